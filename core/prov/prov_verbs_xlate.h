/*
 * ibal provider layer: translation between ib_al.h types and libibverbs types (no device needed).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file prov_verbs_xlate.h
 * @brief Pure translations between the access layer's types and libibverbs'
 * (never installed), for the verbs provider (core/verbs) and the access
 * layer's CM through the kernel's (core/al/al_cm_kern*.c, which turns the
 * QP attributes librdmacm gives into ib_qp_mod_t).
 *
 * Everything here is a static inline function of its arguments: no device,
 * no allocation, no lock, so the data path inlines it and the host unit test
 * (tests/verbs/test_verbs_xlate.c) checks it without hardware.
 *
 * Byte orders: the access layer keeps QP numbers, Q_Keys, PSNs, LIDs, R_Keys
 * and atomic operands in network order (ib_net*_t); libibverbs in host order,
 * except imm_data (network order on both sides). An R_Key the provider hands
 * out is the libibverbs key in network order, so an R_Key a peer receives
 * means the same as one from any libibverbs program. An L_Key never leaves
 * the host and is opaque to the application: the provider hands out
 * libibverbs' lkey with its bits as they are, so that a data segment
 * (ib_local_ds_t) is libibverbs' struct ibv_sge and needs no translation.
 *
 * Thread safety: none needed (pure functions).
 */
#ifndef PROV_VERBS_XLATE_H
#define PROV_VERBS_XLATE_H

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <iba/ib_al.h>

/** @cond INTERNAL */

/* ---- errno -> status ---- */

/* What a failed libibverbs call's errno means for the caller. */
static inline ib_api_status_t verbs_errno_status(int err)
{
	switch (err) {
	case 0:
		return IB_SUCCESS;
	case ENOMEM:
		return IB_INSUFFICIENT_MEMORY;
	case EAGAIN:
	case ENOSPC:
	case EMFILE:
	case ENFILE:
		return IB_INSUFFICIENT_RESOURCES;
	case EINVAL:
	case ERANGE:
	case EOVERFLOW:
	case EFAULT:   /* ibv_reg_mr of memory that is not mapped */
		return IB_INVALID_PARAMETER;
	case EPERM:
	case EACCES:
		return IB_INVALID_PERMISSION;
	case EOPNOTSUPP:
	case ENOSYS:
	case EPROTONOSUPPORT:
		return IB_UNSUPPORTED;
	case EBUSY:
		return IB_RESOURCE_BUSY;
	case ENODEV:
	case ENXIO:
	case EIO:
		return IB_INVALID_CA_HANDLE;
	case ETIMEDOUT:
		return IB_TIMEOUT;
	default:
		return IB_ERROR;
	}
}

/* ---- access rights ---- */

static inline int verbs_access(ib_access_t ac)
{
	int f = 0;

	if (ac & IB_AC_LOCAL_WRITE)
		f |= IBV_ACCESS_LOCAL_WRITE;
	if (ac & IB_AC_RDMA_WRITE)
		f |= IBV_ACCESS_REMOTE_WRITE;
	if (ac & IB_AC_RDMA_READ)
		f |= IBV_ACCESS_REMOTE_READ;
	if (ac & IB_AC_ATOMIC)
		f |= IBV_ACCESS_REMOTE_ATOMIC;
	if (ac & IB_AC_MW_BIND)
		f |= IBV_ACCESS_MW_BIND;
	return f;
}

static inline ib_access_t verbs_access_ib(int f)
{
	ib_access_t ac = 0;

	if (f & IBV_ACCESS_LOCAL_WRITE)
		ac |= IB_AC_LOCAL_WRITE;
	if (f & IBV_ACCESS_REMOTE_WRITE)
		ac |= IB_AC_RDMA_WRITE;
	if (f & IBV_ACCESS_REMOTE_READ)
		ac |= IB_AC_RDMA_READ;
	if (f & IBV_ACCESS_REMOTE_ATOMIC)
		ac |= IB_AC_ATOMIC;
	if (f & IBV_ACCESS_MW_BIND)
		ac |= IB_AC_MW_BIND;
	return ac;
}

/* ---- QP states and types ---- */

static inline enum ibv_qp_state verbs_qp_state(ib_qp_state_t s)
{
	switch (s) {
	case IB_QPS_RESET:
		return IBV_QPS_RESET;
	case IB_QPS_INIT:
		return IBV_QPS_INIT;
	case IB_QPS_RTR:
		return IBV_QPS_RTR;
	case IB_QPS_RTS:
		return IBV_QPS_RTS;
	case IB_QPS_SQD:
	case IB_QPS_SQD_DRAINING:
	case IB_QPS_SQD_DRAINED:
		return IBV_QPS_SQD;
	case IB_QPS_SQERR:
		return IBV_QPS_SQE;
	case IB_QPS_ERROR:
		return IBV_QPS_ERR;
	default:
		return IBV_QPS_UNKNOWN;
	}
}

static inline ib_qp_state_t verbs_qp_state_ib(enum ibv_qp_state s)
{
	static const ib_qp_state_t tab[] = {
		[IBV_QPS_RESET] = IB_QPS_RESET, [IBV_QPS_INIT] = IB_QPS_INIT,
		[IBV_QPS_RTR] = IB_QPS_RTR,     [IBV_QPS_RTS] = IB_QPS_RTS,
		[IBV_QPS_SQD] = IB_QPS_SQD,     [IBV_QPS_SQE] = IB_QPS_SQERR,
		[IBV_QPS_ERR] = IB_QPS_ERROR,
	};

	return (unsigned)s < sizeof(tab) / sizeof(tab[0]) ? tab[s] : IB_QPS_ERROR;
}

/* 0 for a type libibverbs has no user QP for. */
static inline enum ibv_qp_type verbs_qp_type(ib_qp_type_t t)
{
	switch (t) {
	case IB_QPT_RELIABLE_CONN:
		return IBV_QPT_RC;
	case IB_QPT_UNRELIABLE_CONN:
		return IBV_QPT_UC;
	case IB_QPT_UNRELIABLE_DGRM:
		return IBV_QPT_UD;
	default:
		return (enum ibv_qp_type)0;
	}
}

static inline enum ibv_mig_state verbs_mig_state(ib_apm_state_t s)
{
	return s == IB_APM_MIGRATED ? IBV_MIG_MIGRATED : s == IB_APM_REARM ? IBV_MIG_REARM
									    : IBV_MIG_ARMED;
}

static inline ib_apm_state_t verbs_mig_state_ib(enum ibv_mig_state s)
{
	return s == IBV_MIG_MIGRATED ? IB_APM_MIGRATED : s == IBV_MIG_REARM ? IB_APM_REARM
									     : IB_APM_ARMED;
}

/* ---- address vectors ---- */

/* The address part of an AV (no source GID index: the caller looks it up). */
static inline void verbs_ah_attr(const ib_av_attr_t *a, uint8_t sgid_index, struct ibv_ah_attr *h)
{
	memset(h, 0, sizeof(*h));
	h->dlid = cl_ntoh16(a->dlid);
	h->sl = a->sl;
	h->src_path_bits = a->path_bits;
	h->static_rate = a->static_rate; /* enum ibv_rate uses the IBA encoding */
	h->port_num = a->port_num;
	if (a->grh_valid) {
		uint32_t vcf = cl_ntoh32(a->grh.ver_class_flow);

		h->is_global = 1;
		memcpy(h->grh.dgid.raw, a->grh.dest_gid.raw, 16);
		h->grh.flow_label = vcf & 0xFFFFFu;
		h->grh.traffic_class = (uint8_t)(vcf >> 20);
		h->grh.hop_limit = a->grh.hop_limit ? a->grh.hop_limit : 64;
		h->grh.sgid_index = sgid_index;
	}
}

/* An AV back from libibverbs; @p sgid is the GID at the AH's source index. */
static inline void verbs_av_attr_ib(const struct ibv_ah_attr *h, const ib_gid_t *sgid,
				    ib_av_attr_t *a)
{
	memset(a, 0, sizeof(*a));
	a->port_num = h->port_num;
	a->sl = h->sl;
	a->dlid = cl_hton16(h->dlid);
	a->path_bits = h->src_path_bits;
	a->static_rate = (uint8_t)h->static_rate;
	if (h->is_global) {
		a->grh_valid = TRUE;
		a->grh.ver_class_flow = cl_hton32((6u << 28) | ((uint32_t)h->grh.traffic_class << 20) |
						  (h->grh.flow_label & 0xFFFFFu));
		a->grh.hop_limit = h->grh.hop_limit;
		memcpy(a->grh.dest_gid.raw, h->grh.dgid.raw, 16);
		if (sgid)
			a->grh.src_gid = *sgid;
	}
}

/* ---- work requests ---- */

/*
 * An ib_local_ds_t is a struct ibv_sge: same size, same fields at the same
 * offsets, and the L_Key the provider hands out is libibverbs' lkey as it is
 * (see the byte orders above). So a work request's ds_array is given to
 * libibverbs as its sg_list, without a copy.
 */
_Static_assert(sizeof(ib_local_ds_t) == sizeof(struct ibv_sge), "ib_local_ds_t is an ibv_sge");
_Static_assert(offsetof(ib_local_ds_t, vaddr) == offsetof(struct ibv_sge, addr) &&
		       sizeof(((ib_local_ds_t *)0)->vaddr) == sizeof(((struct ibv_sge *)0)->addr),
	       "ib_local_ds_t.vaddr is ibv_sge.addr");
_Static_assert(offsetof(ib_local_ds_t, length) == offsetof(struct ibv_sge, length) &&
		       sizeof(((ib_local_ds_t *)0)->length) == sizeof(((struct ibv_sge *)0)->length),
	       "ib_local_ds_t.length is ibv_sge.length");
_Static_assert(offsetof(ib_local_ds_t, lkey) == offsetof(struct ibv_sge, lkey) &&
		       sizeof(((ib_local_ds_t *)0)->lkey) == sizeof(((struct ibv_sge *)0)->lkey),
	       "ib_local_ds_t.lkey is ibv_sge.lkey");

/* The data segments of a work request as libibverbs' scatter/gather list. */
static inline struct ibv_sge *verbs_sge_list(ib_local_ds_t *ds)
{
	return (struct ibv_sge *)(void *)ds;
}

/* The L_Key handed out for libibverbs' @p lkey, and back (the same bits). */
static inline net32_t verbs_lkey_ib(uint32_t lkey)
{
	return (net32_t)lkey;
}

static inline uint32_t verbs_lkey(net32_t lkey)
{
	return (uint32_t)lkey;
}

/* IB_SEND_OPT_* fence, signaled, solicited, inline are IBV_SEND_* shifted left by one. */
_Static_assert(IB_SEND_OPT_FENCE == IBV_SEND_FENCE << 1 &&
		       IB_SEND_OPT_SIGNALED == IBV_SEND_SIGNALED << 1 &&
		       IB_SEND_OPT_SOLICITED == IBV_SEND_SOLICITED << 1 &&
		       IB_SEND_OPT_INLINE == IBV_SEND_INLINE << 1 && IB_SEND_OPT_IMMEDIATE == 1,
	       "send options are libibverbs' send flags shifted by one");

static inline unsigned verbs_send_flags(ib_send_opt_t o)
{
	return (o >> 1) & (IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_INLINE);
}

/* Opcode of a send work request; -1 for one libibverbs cannot post. */
static inline int verbs_wr_opcode(const ib_send_wr_t *wr)
{
	/* by (wr_type << 1 | immediate) */
#define VERBS_WR_OPS(t, op, op_imm) [(t) << 1] = (op), [((t) << 1) | 1] = (op_imm)
	static const int8_t tab[WR_UNKNOWN << 1] = {
		VERBS_WR_OPS(WR_SEND, IBV_WR_SEND, IBV_WR_SEND_WITH_IMM),
		VERBS_WR_OPS(WR_RDMA_WRITE, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM),
		VERBS_WR_OPS(WR_RDMA_READ, IBV_WR_RDMA_READ, IBV_WR_RDMA_READ),
		VERBS_WR_OPS(WR_COMPARE_SWAP, IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_CMP_AND_SWP),
		VERBS_WR_OPS(WR_FETCH_ADD, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_FETCH_AND_ADD),
		VERBS_WR_OPS(WR_LSO, -1, -1),
		VERBS_WR_OPS(WR_NOP, -1, -1),
		VERBS_WR_OPS(WR_LOCAL_INV, -1, -1),
		VERBS_WR_OPS(WR_FAST_REG_MR, -1, -1),
	};
#undef VERBS_WR_OPS

	if ((unsigned)wr->wr_type >= WR_UNKNOWN)
		return -1;
	return tab[((unsigned)wr->wr_type << 1) | (wr->send_opt & IB_SEND_OPT_IMMEDIATE)];
}

/*
 * One send work request with opcode @p op (verbs_wr_opcode(), not -1), not
 * its AH: sg_list is the request's own ds_array, next is left to the
 * caller, and for UD the caller fills wr.ud. imm_data is copied whatever
 * the opcode (libibverbs reads it only for the *_WITH_IMM ones), and so are
 * the RDMA fields for a send (a device reads them only for RDMA; UD's
 * fields, set after, overlay them).
 */
static inline void verbs_send_wr_op(const ib_send_wr_t *wr, int op, struct ibv_send_wr *v)
{
	v->wr_id = wr->wr_id;
	v->sg_list = verbs_sge_list(wr->ds_array);
	v->num_sge = (int)wr->num_ds;
	v->opcode = (enum ibv_wr_opcode)op;
	v->send_flags = verbs_send_flags(wr->send_opt);
	v->imm_data = wr->immediate_data;
	v->wr.rdma.remote_addr = wr->remote_ops.vaddr;
	v->wr.rdma.rkey = cl_ntoh32(wr->remote_ops.rkey);
	if (__builtin_expect(op >= IBV_WR_ATOMIC_CMP_AND_SWP, 0)) {
		v->wr.atomic.remote_addr = wr->remote_ops.vaddr;
		v->wr.atomic.rkey = cl_ntoh32(wr->remote_ops.rkey);
		v->wr.atomic.compare_add = cl_ntoh64(wr->remote_ops.atomic1);
		v->wr.atomic.swap = op == IBV_WR_ATOMIC_CMP_AND_SWP ? cl_ntoh64(wr->remote_ops.atomic2)
								    : 0;
	}
}

/*
 * One send work request (not its AH: for UD the caller fills wr.ud), next
 * set to NULL. Returns IB_SUCCESS or IB_INVALID_WR_TYPE.
 */
static inline ib_api_status_t verbs_send_wr(const ib_send_wr_t *wr, struct ibv_send_wr *v)
{
	int op = verbs_wr_opcode(wr);

	if (op < 0)
		return IB_INVALID_WR_TYPE;
	verbs_send_wr_op(wr, op, v);
	v->next = NULL;
	return IB_SUCCESS;
}

/* ---- completions ---- */

static inline ib_wc_status_t verbs_wc_status(enum ibv_wc_status s)
{
	static const uint8_t tab[] = {
		[IBV_WC_SUCCESS] = IB_WCS_SUCCESS,
		[IBV_WC_LOC_LEN_ERR] = IB_WCS_LOCAL_LEN_ERR,
		[IBV_WC_LOC_QP_OP_ERR] = IB_WCS_LOCAL_OP_ERR,
		[IBV_WC_LOC_EEC_OP_ERR] = IB_WCS_LOCAL_OP_ERR,
		[IBV_WC_LOC_PROT_ERR] = IB_WCS_LOCAL_PROTECTION_ERR,
		[IBV_WC_WR_FLUSH_ERR] = IB_WCS_WR_FLUSHED_ERR,
		[IBV_WC_MW_BIND_ERR] = IB_WCS_MEM_WINDOW_BIND_ERR,
		[IBV_WC_BAD_RESP_ERR] = IB_WCS_BAD_RESP_ERR,
		[IBV_WC_LOC_ACCESS_ERR] = IB_WCS_LOCAL_ACCESS_ERR,
		[IBV_WC_REM_INV_REQ_ERR] = IB_WCS_REM_INVALID_REQ_ERR,
		[IBV_WC_REM_ACCESS_ERR] = IB_WCS_REM_ACCESS_ERR,
		[IBV_WC_REM_OP_ERR] = IB_WCS_REM_OP_ERR,
		[IBV_WC_RETRY_EXC_ERR] = IB_WCS_TIMEOUT_RETRY_ERR,
		[IBV_WC_RNR_RETRY_EXC_ERR] = IB_WCS_RNR_RETRY_ERR,
		[IBV_WC_LOC_RDD_VIOL_ERR] = IB_WCS_LOCAL_PROTECTION_ERR,
		[IBV_WC_REM_INV_RD_REQ_ERR] = IB_WCS_REM_INVALID_REQ_ERR,
		[IBV_WC_REM_ABORT_ERR] = IB_WCS_REM_ABORT_ERR,
		[IBV_WC_INV_EECN_ERR] = IB_WCS_GENERAL_ERR,
		[IBV_WC_INV_EEC_STATE_ERR] = IB_WCS_GENERAL_ERR,
		[IBV_WC_FATAL_ERR] = IB_WCS_GENERAL_ERR,
		[IBV_WC_RESP_TIMEOUT_ERR] = IB_WCS_TIMEOUT_RETRY_ERR,
		[IBV_WC_GENERAL_ERR] = IB_WCS_GENERAL_ERR,
	};

	return (unsigned)s < sizeof(tab) / sizeof(tab[0]) ? (ib_wc_status_t)tab[s]
							   : IB_WCS_GENERAL_ERR;
}

/*
 * The type of a completion's opcode, from one table of the byte: the send
 * side (0-7) by name, IBV_WC_RECV_RDMA_WITH_IMM, and a receive for any
 * other opcode (as for one above the byte).
 */
static inline ib_wc_type_t verbs_wc_type(enum ibv_wc_opcode op)
{
	static const uint8_t tab[256] = {
		[IBV_WC_SEND] = IB_WC_SEND,
		[IBV_WC_RDMA_WRITE] = IB_WC_RDMA_WRITE,
		[IBV_WC_RDMA_READ] = IB_WC_RDMA_READ,
		[IBV_WC_COMP_SWAP] = IB_WC_COMPARE_SWAP,
		[IBV_WC_FETCH_ADD] = IB_WC_FETCH_ADD,
		[IBV_WC_BIND_MW] = IB_WC_MW_BIND,
		[IBV_WC_LOCAL_INV] = IB_WC_LOCAL_INV,
		[IBV_WC_TSO] = IB_WC_LSO,
		[IBV_WC_TSO + 1 ... IBV_WC_RECV] = IB_WC_RECV,
		[IBV_WC_RECV_RDMA_WITH_IMM] = IB_WC_RECV_RDMA_WRITE,
		[IBV_WC_RECV_RDMA_WITH_IMM + 1 ... 255] = IB_WC_RECV,
	};

	return (unsigned)op < 256 ? (ib_wc_type_t)tab[op] : IB_WC_RECV;
}

/* IBV_WC_WITH_IMM >> 1 is IB_RECV_OPT_IMMEDIATE; IBV_WC_GRH << 2 is IB_RECV_OPT_GRH_VALID. */
_Static_assert(IBV_WC_WITH_IMM >> 1 == IB_RECV_OPT_IMMEDIATE && IBV_WC_GRH << 2 == IB_RECV_OPT_GRH_VALID,
	       "receive flags");
_Static_assert(IB_WCS_UNKNOWN < 256 && IB_WC_UNKNOWN2 < 256, "status and type fit the tables");

/*
 * One completion. On error libibverbs defines only wr_id, status and
 * qp_num, as ib_wc_t does (wc_type is then whatever the opcode field held).
 * A receive gets the datagram fields whatever its QP's type: the conn and
 * ud members share recv_opt and immediate_data, and the others are zero for
 * a connected QP, so no QP lookup is needed. immediate_data is 0 without
 * IB_RECV_OPT_IMMEDIATE; a send's recv_opt and immediate_data are 0.
 */
static inline void verbs_wc(const struct ibv_wc *v, ib_wc_t *w)
{
	ib_wc_type_t t = verbs_wc_type(v->opcode);

	w->wr_id = v->wr_id;
	w->length = v->byte_len;
	w->wc_type = t;
	if (__builtin_expect(v->status == IBV_WC_SUCCESS, 1)) {
		w->status = IB_WCS_SUCCESS;
		w->vendor_specific = 0;
		if (t & IB_WC_RECV) {
			uint32_t f = v->wc_flags;

			w->recv.ud.recv_opt = ((f & IBV_WC_WITH_IMM) >> 1) | ((f & IBV_WC_GRH) << 2);
			w->recv.ud.immediate_data = (f & IBV_WC_WITH_IMM) ? v->imm_data : 0;
			w->recv.ud.remote_qp = cl_hton32(v->src_qp);
			w->recv.ud.pkey_index = v->pkey_index;
			w->recv.ud.remote_lid = cl_hton16(v->slid);
			w->recv.ud.remote_sl = v->sl;
			w->recv.ud.path_bits = v->dlid_path_bits;
			return;
		}
	} else {
		w->status = verbs_wc_status(v->status);
		w->vendor_specific = v->vendor_err;
	}
	w->recv.ud.recv_opt = 0;
	w->recv.ud.immediate_data = 0;
}

/* ---- async events ---- */

/* The access layer's code of a libibverbs event; IB_AE_UNKNOWN if none. */
static inline ib_async_event_t verbs_event_code(enum ibv_event_type t)
{
	static const ib_async_event_t tab[] = {
		[IBV_EVENT_CQ_ERR] = IB_AE_CQ_ERROR,
		[IBV_EVENT_QP_FATAL] = IB_AE_QP_FATAL,
		[IBV_EVENT_QP_REQ_ERR] = IB_AE_WQ_REQ_ERROR,
		[IBV_EVENT_QP_ACCESS_ERR] = IB_AE_WQ_ACCESS_ERROR,
		[IBV_EVENT_COMM_EST] = IB_AE_QP_COMM,
		[IBV_EVENT_SQ_DRAINED] = IB_AE_SQ_DRAINED,
		[IBV_EVENT_PATH_MIG] = IB_AE_QP_APM,
		[IBV_EVENT_PATH_MIG_ERR] = IB_AE_QP_APM_ERROR,
		[IBV_EVENT_DEVICE_FATAL] = IB_AE_LOCAL_FATAL,
		[IBV_EVENT_PORT_ACTIVE] = IB_AE_PORT_ACTIVE,
		[IBV_EVENT_PORT_ERR] = IB_AE_PORT_DOWN,
		[IBV_EVENT_LID_CHANGE] = IB_AE_LID_CHANGE,
		[IBV_EVENT_PKEY_CHANGE] = IB_AE_PKEY_CHANGE,
		[IBV_EVENT_SM_CHANGE] = IB_AE_SM_CHANGE,
		[IBV_EVENT_SRQ_ERR] = IB_AE_SRQ_CATAS_ERROR,
		[IBV_EVENT_SRQ_LIMIT_REACHED] = IB_AE_SRQ_LIMIT_REACHED,
		[IBV_EVENT_QP_LAST_WQE_REACHED] = IB_AE_SRQ_QP_LAST_WQE_REACHED,
		[IBV_EVENT_CLIENT_REREGISTER] = IB_AE_CLIENT_REREGISTER,
		[IBV_EVENT_GID_CHANGE] = IB_AE_GID_CHANGE,
	};

	if ((unsigned)t >= sizeof(tab) / sizeof(tab[0]) || (!tab[t] && t != IBV_EVENT_CQ_ERR))
		return IB_AE_UNKNOWN;
	return tab[t];
}

/* ---- QP modification ---- */

/*
 * Fills @p a and returns the libibverbs attribute mask for moving a QP of
 * type @p t from state @p cur with @p m. Source GID indexes of the AVs are
 * given (looked up by the caller). Returns 0 for a requested state that
 * does not exist.
 */
static inline int verbs_qp_mod(const ib_qp_mod_t *m, ib_qp_type_t t, ib_qp_state_t cur,
			       uint8_t sgid_pri, uint8_t sgid_alt, struct ibv_qp_attr *a)
{
	int mask = IBV_QP_STATE;
	boolean_t conn = t == IB_QPT_RELIABLE_CONN || t == IB_QPT_UNRELIABLE_CONN;
	boolean_t rc = t == IB_QPT_RELIABLE_CONN;
	ib_qp_opts_t o = 0;

	memset(a, 0, sizeof(*a));
	a->qp_state = verbs_qp_state(m->req_state);
	if (a->qp_state == IBV_QPS_UNKNOWN)
		return 0;
	switch (m->req_state) {
	case IB_QPS_INIT:
		a->port_num = m->state.init.primary_port;
		a->pkey_index = m->state.init.pkey_index;
		mask |= IBV_QP_PKEY_INDEX;
		if (cur == IB_QPS_RESET)
			mask |= IBV_QP_PORT;
		if (conn) {
			a->qp_access_flags = verbs_access(m->state.init.access_ctrl);
			mask |= IBV_QP_ACCESS_FLAGS;
		} else {
			a->qkey = cl_ntoh32(m->state.init.qkey);
			mask |= IBV_QP_QKEY;
		}
		return mask;
	case IB_QPS_RTR:
		o = m->state.rtr.opts;
		if (conn) {
			verbs_ah_attr(&m->state.rtr.primary_av, sgid_pri, &a->ah_attr);
			a->path_mtu = (enum ibv_mtu)m->state.rtr.primary_av.conn.path_mtu;
			a->dest_qp_num = cl_ntoh32(m->state.rtr.dest_qp);
			a->rq_psn = cl_ntoh32(m->state.rtr.rq_psn) & 0xFFFFFFu;
			mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
			if (rc) {
				a->max_dest_rd_atomic = m->state.rtr.resp_res;
				a->min_rnr_timer = m->state.rtr.rnr_nak_timeout;
				mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
			}
			if (o & IB_MOD_QP_ALTERNATE_AV) {
				verbs_ah_attr(&m->state.rtr.alternate_av, sgid_alt, &a->alt_ah_attr);
				a->alt_port_num = m->state.rtr.alternate_av.port_num;
				a->alt_timeout = m->state.rtr.alternate_av.conn.local_ack_timeout;
				a->alt_pkey_index = m->state.rtr.pkey_index;
				mask |= IBV_QP_ALT_PATH;
			}
			if (o & IB_MOD_QP_ACCESS_CTRL) {
				a->qp_access_flags = verbs_access(m->state.rtr.access_ctrl);
				mask |= IBV_QP_ACCESS_FLAGS;
			}
		} else if (o & IB_MOD_QP_QKEY) {
			a->qkey = cl_ntoh32(m->state.rtr.qkey);
			mask |= IBV_QP_QKEY;
		}
		if (o & IB_MOD_QP_PKEY) {
			a->pkey_index = m->state.rtr.pkey_index;
			mask |= IBV_QP_PKEY_INDEX;
		}
		return mask;
	case IB_QPS_RTS:
		o = m->state.rts.opts;
		if (cur == IB_QPS_RTR) {
			a->sq_psn = cl_ntoh32(m->state.rts.sq_psn) & 0xFFFFFFu;
			mask |= IBV_QP_SQ_PSN;
			if (rc) {
				a->timeout = m->state.rts.local_ack_timeout;
				a->retry_cnt = m->state.rts.retry_cnt;
				a->rnr_retry = m->state.rts.rnr_retry_cnt;
				a->max_rd_atomic = m->state.rts.init_depth;
				mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					IBV_QP_MAX_QP_RD_ATOMIC;
			}
		}
		if ((o & IB_MOD_QP_RNR_NAK_TIMEOUT) && rc) {
			a->min_rnr_timer = m->state.rts.rnr_nak_timeout;
			mask |= IBV_QP_MIN_RNR_TIMER;
		}
		if ((o & IB_MOD_QP_ACCESS_CTRL) && conn) {
			a->qp_access_flags = verbs_access(m->state.rts.access_ctrl);
			mask |= IBV_QP_ACCESS_FLAGS;
		}
		if ((o & IB_MOD_QP_QKEY) && !conn) {
			a->qkey = cl_ntoh32(m->state.rts.qkey);
			mask |= IBV_QP_QKEY;
		}
		if ((o & IB_MOD_QP_ALTERNATE_AV) && conn) {
			verbs_ah_attr(&m->state.rts.alternate_av, sgid_alt, &a->alt_ah_attr);
			a->alt_port_num = m->state.rts.alternate_av.port_num;
			a->alt_timeout = m->state.rts.alternate_av.conn.local_ack_timeout;
			a->alt_pkey_index = m->state.rts.pkey_index;
			mask |= IBV_QP_ALT_PATH;
		}
		if ((o & IB_MOD_QP_APM_STATE) && conn) {
			a->path_mig_state = verbs_mig_state(m->state.rts.apm_state);
			mask |= IBV_QP_PATH_MIG_STATE;
		}
		if (o & IB_MOD_QP_CURRENT_STATE) {
			a->cur_qp_state = verbs_qp_state(m->state.rts.current_state);
			mask |= IBV_QP_CUR_STATE;
		}
		return mask;
	case IB_QPS_SQD:
	case IB_QPS_SQD_DRAINING:
	case IB_QPS_SQD_DRAINED:
		a->en_sqd_async_notify = m->state.sqd.sqd_event ? 1 : 0;
		mask |= IBV_QP_EN_SQD_ASYNC_NOTIFY;
		return mask;
	default: /* RESET, ERROR, SQE */
		return mask;
	}
}

/** @endcond */

#endif /* PROV_VERBS_XLATE_H */
