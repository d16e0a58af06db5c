/*
 * ibal access layer: the stubs that fill the slots a provider leaves empty.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A provider's table is copied when the provider is loaded and every NULL
 * slot of the copy gets the stub below (as rdma-core fills a provider's
 * verbs context from its dummy ops), so the core calls any slot without a
 * NULL check. Every stub answers IB_UNSUPPORTED or does nothing, except
 * init (nothing to set up: IB_SUCCESS) and get_ca_guids (no CA).
 */
#include <stddef.h>
#include <string.h>
#include "al_prov.h"

/* Nothing to set up. */
static ib_api_status_t init_none(const al_prov_upcalls_t *up)
{
	(void)up;
	return IB_SUCCESS;
}

static void cleanup_none(void)
{
}

/* No CA. */
static ib_api_status_t get_ca_guids_none(ib_net64_t *p_guids, size_t *p_count)
{
	(void)p_guids;
	*p_count = 0;
	return IB_SUCCESS;
}

static ib_api_status_t open_ca_none(ib_net64_t ca_guid, void *al_ca, void **pp_ca)
{
	(void)ca_guid;
	(void)al_ca;
	(void)pp_ca;
	return IB_UNSUPPORTED;
}

static ib_api_status_t query_ca_none(void *ca, ib_ca_attr_t *p_attr, uint32_t *p_size)
{
	(void)ca;
	(void)p_attr;
	(void)p_size;
	return IB_UNSUPPORTED;
}

static ib_api_status_t modify_ca_none(void *ca, uint8_t port_num, ib_ca_mod_t mod,
				      const ib_port_attr_mod_t *p_attr)
{
	(void)ca;
	(void)port_num;
	(void)mod;
	(void)p_attr;
	return IB_UNSUPPORTED;
}

static void close_ca_none(void *ca)
{
	(void)ca;
}

static ib_api_status_t ci_call_none(void *ca, void *const *prov_handles, uint32_t num_handles,
				    ib_ci_op_t *p_ci_op)
{
	(void)ca;
	(void)prov_handles;
	(void)num_handles;
	(void)p_ci_op;
	return IB_UNSUPPORTED;
}

static ib_api_status_t local_mad_none(void *ca, uint8_t port_num, const void *p_mad_in,
				      void *p_mad_out)
{
	(void)ca;
	(void)port_num;
	(void)p_mad_in;
	(void)p_mad_out;
	return IB_UNSUPPORTED;
}

static ib_api_status_t alloc_pd_none(void *ca, ib_pd_type_t type, void **pp_pd)
{
	(void)ca;
	(void)type;
	(void)pp_pd;
	return IB_UNSUPPORTED;
}

static void dealloc_pd_none(void *pd)
{
	(void)pd;
}

static ib_api_status_t create_av_none(void *pd, const ib_av_attr_t *p_attr, void **pp_av)
{
	(void)pd;
	(void)p_attr;
	(void)pp_av;
	return IB_UNSUPPORTED;
}

static ib_api_status_t query_av_none(void *av, ib_av_attr_t *p_attr)
{
	(void)av;
	(void)p_attr;
	return IB_UNSUPPORTED;
}

static ib_api_status_t modify_av_none(void *pd, const ib_av_attr_t *p_attr, void **pp_av)
{
	(void)pd;
	(void)p_attr;
	(void)pp_av;
	return IB_UNSUPPORTED;
}

static void destroy_av_none(void *av)
{
	(void)av;
}

static ib_api_status_t create_srq_none(void *pd, const ib_srq_attr_t *p_attr, void *al_srq,
				       void **pp_srq)
{
	(void)pd;
	(void)p_attr;
	(void)al_srq;
	(void)pp_srq;
	return IB_UNSUPPORTED;
}

static ib_api_status_t query_srq_none(void *srq, ib_srq_attr_t *p_attr)
{
	(void)srq;
	(void)p_attr;
	return IB_UNSUPPORTED;
}

static ib_api_status_t modify_srq_none(void *srq, const ib_srq_attr_t *p_attr,
				       ib_srq_attr_mask_t mask)
{
	(void)srq;
	(void)p_attr;
	(void)mask;
	return IB_UNSUPPORTED;
}

static void destroy_srq_none(void *srq)
{
	(void)srq;
}

static ib_api_status_t create_qp_none(void *pd, ib_qp_create_t *p_create, void *send_cq,
				      void *recv_cq, void *srq, void *al_qp, void **pp_qp)
{
	(void)pd;
	(void)p_create;
	(void)send_cq;
	(void)recv_cq;
	(void)srq;
	(void)al_qp;
	(void)pp_qp;
	return IB_UNSUPPORTED;
}

static ib_api_status_t create_spl_qp_none(void *pd, uint8_t port_num, ib_qp_create_t *p_create,
					  void *send_cq, void *recv_cq, void *al_qp, void **pp_qp)
{
	(void)pd;
	(void)port_num;
	(void)p_create;
	(void)send_cq;
	(void)recv_cq;
	(void)al_qp;
	(void)pp_qp;
	return IB_UNSUPPORTED;
}

static ib_api_status_t query_qp_none(void *qp, ib_qp_attr_t *p_attr)
{
	(void)qp;
	(void)p_attr;
	return IB_UNSUPPORTED;
}

static ib_api_status_t modify_qp_none(void *qp, const ib_qp_mod_t *p_mod)
{
	(void)qp;
	(void)p_mod;
	return IB_UNSUPPORTED;
}

static void destroy_qp_none(void *qp)
{
	(void)qp;
}

static ib_api_status_t attach_mcast_none(void *qp, const ib_gid_t *p_mgid, ib_net16_t mlid)
{
	(void)qp;
	(void)p_mgid;
	(void)mlid;
	return IB_UNSUPPORTED;
}

static ib_api_status_t detach_mcast_none(void *qp, const ib_gid_t *p_mgid, ib_net16_t mlid)
{
	(void)qp;
	(void)p_mgid;
	(void)mlid;
	return IB_UNSUPPORTED;
}

static ib_api_status_t create_cq_none(void *ca, uint32_t *p_size, void *al_cq, void **pp_cq)
{
	(void)ca;
	(void)p_size;
	(void)al_cq;
	(void)pp_cq;
	return IB_UNSUPPORTED;
}

static ib_api_status_t resize_cq_none(void *cq, uint32_t *p_size)
{
	(void)cq;
	(void)p_size;
	return IB_UNSUPPORTED;
}

static ib_api_status_t query_cq_none(void *cq, uint32_t *p_size)
{
	(void)cq;
	(void)p_size;
	return IB_UNSUPPORTED;
}

static void destroy_cq_none(void *cq)
{
	(void)cq;
}

static ib_api_status_t reg_mem_none(void *pd, const ib_mr_create_t *p_create, net32_t *p_lkey,
				    net32_t *p_rkey, void **pp_mr)
{
	(void)pd;
	(void)p_create;
	(void)p_lkey;
	(void)p_rkey;
	(void)pp_mr;
	return IB_UNSUPPORTED;
}

static ib_api_status_t reg_phys_none(void *pd, const ib_phys_create_t *p_create, uint64_t *p_vaddr,
				     net32_t *p_lkey, net32_t *p_rkey, void **pp_mr)
{
	(void)pd;
	(void)p_create;
	(void)p_vaddr;
	(void)p_lkey;
	(void)p_rkey;
	(void)pp_mr;
	return IB_UNSUPPORTED;
}

static ib_api_status_t query_mr_none(void *mr, ib_mr_attr_t *p_attr)
{
	(void)mr;
	(void)p_attr;
	return IB_UNSUPPORTED;
}

static ib_api_status_t rereg_mem_none(void *mr, ib_mr_mod_t mask, const ib_mr_create_t *p_create,
				      void *new_pd, net32_t *p_lkey, net32_t *p_rkey)
{
	(void)mr;
	(void)mask;
	(void)p_create;
	(void)new_pd;
	(void)p_lkey;
	(void)p_rkey;
	return IB_UNSUPPORTED;
}

static ib_api_status_t rereg_phys_none(void *mr, ib_mr_mod_t mask, const ib_phys_create_t *p_create,
				       void *new_pd, uint64_t *p_vaddr, net32_t *p_lkey, net32_t *p_rkey)
{
	(void)mr;
	(void)mask;
	(void)p_create;
	(void)new_pd;
	(void)p_vaddr;
	(void)p_lkey;
	(void)p_rkey;
	return IB_UNSUPPORTED;
}

static ib_api_status_t reg_shared_none(void *mr, void *pd, ib_access_t access, uint64_t *p_vaddr,
				       net32_t *p_lkey, net32_t *p_rkey, void **pp_mr)
{
	(void)mr;
	(void)pd;
	(void)access;
	(void)p_vaddr;
	(void)p_lkey;
	(void)p_rkey;
	(void)pp_mr;
	return IB_UNSUPPORTED;
}

static ib_api_status_t dereg_mr_none(void *mr)
{
	(void)mr;
	return IB_UNSUPPORTED;
}

static ib_api_status_t create_mw_none(void *pd, net32_t *p_rkey, void **pp_mw)
{
	(void)pd;
	(void)p_rkey;
	(void)pp_mw;
	return IB_UNSUPPORTED;
}

static ib_api_status_t query_mw_none(void *mw, net32_t *p_rkey)
{
	(void)mw;
	(void)p_rkey;
	return IB_UNSUPPORTED;
}

static ib_api_status_t bind_mw_none(void *mw, void *qp, ib_bind_wr_t *p_bind, net32_t *p_rkey)
{
	(void)mw;
	(void)qp;
	(void)p_bind;
	(void)p_rkey;
	return IB_UNSUPPORTED;
}

static void destroy_mw_none(void *mw)
{
	(void)mw;
}

static ib_api_status_t post_send_none(void *qp, ib_send_wr_t *p_wr, ib_send_wr_t **pp_failure)
{
	(void)qp;
	(void)p_wr;
	(void)pp_failure;
	return IB_UNSUPPORTED;
}

static ib_api_status_t post_recv_none(void *qp, ib_recv_wr_t *p_wr, ib_recv_wr_t **pp_failure)
{
	(void)qp;
	(void)p_wr;
	(void)pp_failure;
	return IB_UNSUPPORTED;
}

static ib_api_status_t post_srq_recv_none(void *srq, ib_recv_wr_t *p_wr, ib_recv_wr_t **pp_failure)
{
	(void)srq;
	(void)p_wr;
	(void)pp_failure;
	return IB_UNSUPPORTED;
}

static ib_api_status_t peek_cq_none(void *cq, uint32_t *p_n_cqes)
{
	(void)cq;
	(void)p_n_cqes;
	return IB_UNSUPPORTED;
}

static ib_api_status_t poll_cq_none(void *cq, ib_wc_t **pp_free_wclist, ib_wc_t **pp_done_wclist)
{
	(void)cq;
	(void)pp_free_wclist;
	(void)pp_done_wclist;
	return IB_UNSUPPORTED;
}

static ib_api_status_t rearm_cq_none(void *cq, boolean_t solicited)
{
	(void)cq;
	(void)solicited;
	return IB_UNSUPPORTED;
}

static ib_api_status_t rearm_n_cq_none(void *cq, uint32_t n_cqes)
{
	(void)cq;
	(void)n_cqes;
	return IB_UNSUPPORTED;
}

static const al_prov_ops_t none_ops = {
	.size = sizeof(al_prov_ops_t),
	.name = "none",
	.init = init_none,
	.cleanup = cleanup_none,
	.get_ca_guids = get_ca_guids_none,
	.open_ca = open_ca_none,
	.query_ca = query_ca_none,
	.modify_ca = modify_ca_none,
	.close_ca = close_ca_none,
	.ci_call = ci_call_none,
	.local_mad = local_mad_none,
	.alloc_pd = alloc_pd_none,
	.dealloc_pd = dealloc_pd_none,
	.create_av = create_av_none,
	.query_av = query_av_none,
	.modify_av = modify_av_none,
	.destroy_av = destroy_av_none,
	.create_srq = create_srq_none,
	.query_srq = query_srq_none,
	.modify_srq = modify_srq_none,
	.destroy_srq = destroy_srq_none,
	.create_qp = create_qp_none,
	.create_spl_qp = create_spl_qp_none,
	.query_qp = query_qp_none,
	.modify_qp = modify_qp_none,
	.destroy_qp = destroy_qp_none,
	.attach_mcast = attach_mcast_none,
	.detach_mcast = detach_mcast_none,
	.create_cq = create_cq_none,
	.resize_cq = resize_cq_none,
	.query_cq = query_cq_none,
	.destroy_cq = destroy_cq_none,
	.reg_mem = reg_mem_none,
	.reg_phys = reg_phys_none,
	.query_mr = query_mr_none,
	.rereg_mem = rereg_mem_none,
	.rereg_phys = rereg_phys_none,
	.reg_shared = reg_shared_none,
	.dereg_mr = dereg_mr_none,
	.create_mw = create_mw_none,
	.query_mw = query_mw_none,
	.bind_mw = bind_mw_none,
	.destroy_mw = destroy_mw_none,
	.post_send = post_send_none,
	.post_recv = post_recv_none,
	.post_srq_recv = post_srq_recv_none,
	.peek_cq = peek_cq_none,
	.poll_cq = poll_cq_none,
	.rearm_cq = rearm_cq_none,
	.rearm_n_cq = rearm_n_cq_none,
};

/* Every slot after `name` is a function pointer of the same size. */
typedef void (*slot_t)(void);
#define FIRST_SLOT offsetof(al_prov_ops_t, init)
_Static_assert((sizeof(al_prov_ops_t) - FIRST_SLOT) % sizeof(slot_t) == 0,
	       "al_prov_ops_t: slots after name must all be function pointers");

void al_prov_fill(al_prov_ops_t *dst, const al_prov_ops_t *src)
{
	size_t off;

	memset(dst, 0, sizeof(*dst));
	if (src)
		memcpy(dst, src, src->size < sizeof(*dst) ? src->size : sizeof(*dst));
	dst->size = sizeof(*dst);
	if (!dst->name)
		dst->name = none_ops.name;
	for (off = FIRST_SLOT; off < sizeof(*dst); off += sizeof(slot_t)) {
		slot_t f;

		memcpy(&f, (const char *)dst + off, sizeof(f));
		if (!f)
			memcpy((char *)dst + off, (const char *)&none_ops + off, sizeof(f));
	}
}

int al_prov_has(const al_prov_ops_t *ops, size_t slot_off)
{
	slot_t f, none;

	if (!ops || slot_off < FIRST_SLOT || slot_off + sizeof(f) > sizeof(*ops))
		return 0;
	memcpy(&f, (const char *)ops + slot_off, sizeof(f));
	memcpy(&none, (const char *)&none_ops + slot_off, sizeof(none));
	return f && f != none;
}
