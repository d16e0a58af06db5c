/*
 * ibal access layer: moving a QP with the attributes the kernel CM gives (rdma_init_qp_attr).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The QP is the user's access-layer QP: it moves through ib_modify_qp, so
 * the access layer's checks and the provider's state stay as for any other
 * transition.
 */
#include "al_cm_kern_int.h"

#ifdef HAVE_AL_CM_KERN

static void to_init(const struct ibv_qp_attr *a, ib_access_t access, ib_qp_mod_t *m)
{
	m->state.init.primary_port = a->port_num;
	m->state.init.pkey_index = a->pkey_index;
	m->state.init.access_ctrl = access ? access : verbs_access_ib(a->qp_access_flags);
}

static void to_rtr(struct rdma_cm_id *id, const struct ibv_qp_attr *a, ib_qp_mod_t *m)
{
	union ibv_gid g;
	ib_gid_t sgid;
	int have = a->ah_attr.is_global &&
		   !ibv_query_gid(id->verbs, a->ah_attr.port_num, a->ah_attr.grh.sgid_index, &g);

	if (have)
		memcpy(sgid.raw, g.raw, 16);
	m->state.rtr.rq_psn = cl_hton32(a->rq_psn);
	m->state.rtr.dest_qp = cl_hton32(a->dest_qp_num);
	verbs_av_attr_ib(&a->ah_attr, have ? &sgid : NULL, &m->state.rtr.primary_av);
	m->state.rtr.primary_av.conn.path_mtu = (uint8_t)a->path_mtu;
	m->state.rtr.resp_res = a->max_dest_rd_atomic;
	m->state.rtr.rnr_nak_timeout = a->min_rnr_timer;
}

static void to_rts(const struct ibv_qp_attr *a, ib_access_t access, ib_qp_mod_t *m)
{
	m->state.rts.sq_psn = cl_hton32(a->sq_psn);
	m->state.rts.retry_cnt = a->retry_cnt;
	m->state.rts.rnr_retry_cnt = a->rnr_retry;
	m->state.rts.local_ack_timeout = a->timeout;
	m->state.rts.init_depth = a->max_rd_atomic;
	if (access) {
		m->state.rts.opts |= IB_MOD_QP_ACCESS_CTRL;
		m->state.rts.access_ctrl = access;
	}
}

ib_api_status_t kc_qp_to(struct rdma_cm_id *id, ib_qp_handle_t h_qp, ib_qp_state_t state,
				ib_access_t access)
{
	struct ibv_qp_attr a;
	ib_qp_mod_t m;
	int mask = 0;

	memset(&a, 0, sizeof(a));
	memset(&m, 0, sizeof(m));
	m.req_state = state;
	switch (state) {
	case IB_QPS_INIT:
		a.qp_state = IBV_QPS_INIT;
		break;
	case IB_QPS_RTR:
		a.qp_state = IBV_QPS_RTR;
		break;
	case IB_QPS_RTS:
		a.qp_state = IBV_QPS_RTS;
		break;
	default:
		return ib_modify_qp(h_qp, &m);
	}
	if (rdma_init_qp_attr(id, &a, &mask))
		return verbs_errno_status(errno);
	if (state == IB_QPS_INIT)
		to_init(&a, access, &m);
	else if (state == IB_QPS_RTR)
		to_rtr(id, &a, &m);
	else
		to_rts(&a, access, &m);
	return ib_modify_qp(h_qp, &m);
}

#else /* !HAVE_AL_CM_KERN */
typedef int al_cm_kern_qp_unused_t;
#endif /* HAVE_AL_CM_KERN */
