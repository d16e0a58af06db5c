/*
 * ibal access layer: memory windows (ib_create_mw, ib_query_mw, ib_bind_mw, ib_destroy_mw).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A window bound to a region holds a reference on it, so that a PD
 * destroyed with both destroys the provider's window before its region.
 */
#include <complib/cl_memory.h>
#include "al_verbs.h"

static void set_bound(al_mw_t *p_mw, al_mr_t *p_mr)
{
	al_mr_t *old;

	if (p_mr)
		al_obj_ref(&p_mr->v.obj);
	old = __atomic_exchange_n(&p_mw->p_bound_mr, p_mr, __ATOMIC_ACQ_REL);
	if (old)
		al_obj_deref(&old->v.obj);
}

static void mw_cleanup(al_obj_t *p_obj)
{
	al_mw_t *p_mw = PARENT_STRUCT(p_obj, al_mw_t, v.obj);

	if (p_mw->v.p_prov)
		p_mw->v.p_ops->destroy_mw(p_mw->v.p_prov);
	p_mw->v.p_prov = NULL;
	set_bound(p_mw, NULL);
}

ib_api_status_t ib_create_mw(const ib_pd_handle_t h_pd, net32_t *const p_rkey,
			     ib_mw_handle_t *const ph_mw)
{
	al_pd_t *p_pd = (al_pd_t *)AL_ENTER(h_pd, AL_HDL_PD);
	al_mw_t *p_mw;
	ib_api_status_t st;

	if (!p_pd)
		return IB_INVALID_PD_HANDLE;
	if (!p_rkey || !ph_mw) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	p_mw = (al_mw_t *)cl_zalloc(sizeof(*p_mw));
	if (!p_mw) {
		st = IB_INSUFFICIENT_MEMORY;
		goto out;
	}
	p_mw->p_pd = p_pd;
	p_mw->v.p_ops = p_pd->v.p_ops;
	al_obj_construct(&p_mw->v.obj, AL_HDL_MW);
	st = al_obj_init(&p_mw->v.obj, &p_pd->v.obj, NULL, NULL, mw_cleanup, al_verbs_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_mw->v.obj);
		cl_free(p_mw);
		st = st == IB_INVALID_STATE ? IB_INVALID_PD_HANDLE : st;
		goto out;
	}
	st = p_pd->v.p_ops->create_mw(p_pd->v.p_prov, p_rkey, &p_mw->v.p_prov);
	if (st == IB_SUCCESS)
		st = al_obj_insert_handle(&p_mw->v.obj);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_mw->v.obj, NULL);
		goto out;
	}
	*ph_mw = (ib_mw_handle_t)al_obj_h(&p_mw->v.obj);
out:
	AL_EXIT(h_pd);
	return st;
}

ib_api_status_t ib_query_mw(const ib_mw_handle_t h_mw, ib_pd_handle_t *const ph_pd,
			    net32_t *const p_rkey)
{
	al_mw_t *p_mw = (al_mw_t *)AL_ENTER(h_mw, AL_HDL_MW);
	ib_api_status_t st;

	if (!p_mw)
		return IB_INVALID_MW_HANDLE;
	if (!ph_pd || !p_rkey) {
		st = IB_INVALID_PARAMETER;
	} else {
		st = p_mw->v.p_ops->query_mw(p_mw->v.p_prov, p_rkey);
		if (st == IB_SUCCESS)
			*ph_pd = (ib_pd_handle_t)al_obj_h(&p_mw->p_pd->v.obj);
	}
	AL_EXIT(h_mw);
	return st;
}

ib_api_status_t ib_bind_mw(const ib_mw_handle_t h_mw, const ib_qp_handle_t h_qp,
			   ib_bind_wr_t *const p_mw_bind, net32_t *const p_rkey)
{
	al_mw_t *p_mw = (al_mw_t *)AL_ENTER(h_mw, AL_HDL_MW);
	al_qp_t *p_qp;
	al_mr_t *p_mr = NULL;
	ib_api_status_t st;

	if (!p_mw)
		return IB_INVALID_MW_HANDLE;
	p_qp = (al_qp_t *)AL_ENTER(h_qp, AL_HDL_QP);
	if (!p_qp) {
		st = IB_INVALID_QP_HANDLE;
		goto out;
	}
	if (!p_mw_bind || !p_rkey) {
		st = IB_INVALID_PARAMETER;
		goto out_qp;
	}
	if (p_mw_bind->h_mr) {
		p_mr = (al_mr_t *)AL_ENTER(p_mw_bind->h_mr, AL_HDL_MR);
		if (!p_mr) {
			st = IB_INVALID_MR_HANDLE;
			goto out_qp;
		}
	}
	st = p_mw->v.p_ops->bind_mw(p_mw->v.p_prov, p_qp->v.p_prov, p_mw_bind, p_rkey);
	if (st == IB_SUCCESS)
		set_bound(p_mw, p_mr);
	if (p_mr)
		AL_EXIT(p_mw_bind->h_mr);
out_qp:
	AL_EXIT(h_qp);
out:
	AL_EXIT(h_mw);
	return st;
}

ib_api_status_t ib_destroy_mw(const ib_mw_handle_t h_mw)
{
	return al_destroy_handle((void *)h_mw, AL_HDL_MW, al_sync_unless_cb(), IB_INVALID_MW_HANDLE);
}
