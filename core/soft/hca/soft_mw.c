/*
 * ibal soft provider: type-1 memory windows: create, query, bind through a QP, destroy.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A bind runs at once (as if the QP executed it immediately) and, when
 * signaled, leaves an IB_WC_MW_BIND completion on the QP's send CQ. A bind
 * of length 0 unbinds. Each bind gives the window a new R_Key.
 */
#include <stdlib.h>
#include "soft_hca.h"

ib_api_status_t soft_create_mw(void *h, net32_t *p_rkey, void **pp_mw)
{
	soft_pd_t *pd = h;
	soft_mw_t *mw;
	ib_api_status_t st;

	if (!p_rkey || !pp_mw)
		return IB_INVALID_PARAMETER;
	mw = cl_zalloc(sizeof(*mw));
	if (!mw)
		return IB_INSUFFICIENT_MEMORY;
	mw->pd = pd;
	soft_tab_write(pd->ca);
	st = soft_key_alloc(pd->ca, SOFT_KEY_MW, mw, &mw->rkey);
	soft_tab_write_end(pd->ca);
	if (st != IB_SUCCESS) {
		cl_free(mw);
		return st;
	}
	*p_rkey = cl_hton32(mw->rkey);
	*pp_mw = mw;
	return IB_SUCCESS;
}

ib_api_status_t soft_query_mw(void *h, net32_t *p_rkey)
{
	soft_mw_t *mw = h;

	if (!p_rkey)
		return IB_INVALID_PARAMETER;
	soft_rwlock_read(&mw->pd->ca->tab_lock);
	*p_rkey = cl_hton32(mw->rkey);
	soft_rwlock_read_end(&mw->pd->ca->tab_lock);
	return IB_SUCCESS;
}

soft_mw_t *soft_mw_lookup(soft_ca_t *ca, uint32_t rkey)
{
	uint32_t idx = rkey >> 8;

	if (idx == 0 || idx >= SOFT_MAX_KEYS || ca->keys[idx].type != SOFT_KEY_MW ||
	    ca->keys[idx].key != (uint8_t)rkey)
		return NULL;
	return ca->keys[idx].obj;
}

/* Checks a bind against the window, the QP and the region (tab_lock held). */
static ib_api_status_t bind_check(soft_mw_t *mw, soft_qp_t *qp, const ib_bind_wr_t *b,
				  soft_mr_t *mr)
{
	ib_access_t acc = b->access_ctrl;
	uint64_t va = b->local_ds.vaddr, len = b->local_ds.length;

	if (qp->type != IB_QPT_RELIABLE_CONN && qp->type != IB_QPT_UNRELIABLE_CONN)
		return IB_INVALID_SERVICE_TYPE;
	if (qp->attr.state != IB_QPS_RTS)
		return IB_INVALID_QP_STATE;
	if (cl_ntoh32(b->current_rkey) != mw->rkey)
		return IB_INVALID_RKEY;
	if (len == 0)
		return IB_SUCCESS;
	if (!mr)
		return IB_INVALID_MR_HANDLE;
	if (mr->pd != mw->pd || qp->pd != mw->pd)
		return IB_INVALID_PD_HANDLE;
	if (acc & ~(IB_AC_RDMA_READ | IB_AC_RDMA_WRITE | IB_AC_ATOMIC | IB_AC_LOCAL_WRITE))
		return IB_INVALID_PERMISSION;
	if (!(mr->access & IB_AC_MW_BIND))
		return IB_INVALID_PERMISSION;
	if ((acc & (IB_AC_RDMA_WRITE | IB_AC_ATOMIC)) && !(mr->access & IB_AC_LOCAL_WRITE))
		return IB_INVALID_PERMISSION;
	if (va < mr->va || len > mr->len || va - mr->va > mr->len - len)
		return IB_INVALID_SETTING;
	return IB_SUCCESS;
}

ib_api_status_t soft_bind_mw(void *h, void *h_qp, ib_bind_wr_t *b, net32_t *p_rkey)
{
	soft_mw_t *mw = h;
	soft_qp_t *qp = h_qp;
	soft_ca_t *ca = mw->pd->ca;
	soft_mr_t *mr;
	ib_api_status_t st;
	ib_wc_t wc = { 0 };

	if (!b || !p_rkey || !qp)
		return IB_INVALID_PARAMETER;
	mr = b->h_mr ? al_prov_mr(b->h_mr) : NULL;
	soft_tab_write(ca);
	soft_lock(&qp->lock);
	st = bind_check(mw, qp, b, mr);
	soft_unlock(&qp->lock);
	/* Under tab_lock from here on the region cannot go (its deregistration
	 * takes the lock), so the handle's hold can end. */
	if (mr)
		al_prov_put(b->h_mr);
	if (st != IB_SUCCESS) {
		soft_tab_write_end(ca);
		return st;
	}
	if (mw->mr)
		mw->mr->n_mw--;
	mw->mr = b->local_ds.length ? mr : NULL;
	if (mw->mr)
		mw->mr->n_mw++;
	mw->va = b->local_ds.vaddr;
	mw->len = b->local_ds.length;
	mw->access = b->access_ctrl;
	mw->rkey = soft_key_bump(ca, mw->rkey);
	*p_rkey = cl_hton32(mw->rkey);
	soft_tab_write_end(ca);
	if ((b->send_opt & IB_SEND_OPT_SIGNALED) || qp->sq_signaled) {
		wc.wr_id = b->wr_id;
		wc.wc_type = IB_WC_MW_BIND;
		wc.status = IB_WCS_SUCCESS;
		soft_cq_add(qp->scq, &wc, FALSE);
	}
	return IB_SUCCESS;
}

void soft_destroy_mw(void *h)
{
	soft_mw_t *mw = h;
	soft_ca_t *ca = mw->pd->ca;

	soft_tab_write(ca);
	if (mw->mr)
		mw->mr->n_mw--;
	soft_key_free(ca, mw->rkey);
	soft_tab_write_end(ca);
	cl_free(mw);
}
