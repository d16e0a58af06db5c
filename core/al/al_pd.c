/*
 * ibal access layer: protection domains (ib_alloc_pd, ib_dealloc_pd).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_memory.h>
#include "al_verbs.h"

/* Every AV, QP, SRQ, MR and MW of the PD is gone. */
static void pd_cleanup(al_obj_t *p_obj)
{
	al_pd_t *p_pd = PARENT_STRUCT(p_obj, al_pd_t, v.obj);

	if (p_pd->v.p_prov)
		p_pd->v.p_ops->dealloc_pd(p_pd->v.p_prov);
	p_pd->v.p_prov = NULL;
}

ib_api_status_t ib_alloc_pd(const ib_ca_handle_t h_ca, const ib_pd_type_t pd_type,
			    const void *const pd_context, ib_pd_handle_t *const ph_pd)
{
	al_ca_t *p_ca = (al_ca_t *)AL_ENTER(h_ca, AL_HDL_CA);
	al_pd_t *p_pd;
	ib_api_status_t st;

	if (!p_ca)
		return IB_INVALID_CA_HANDLE;
	if (!ph_pd || (pd_type != IB_PDT_NORMAL && pd_type != IB_PDT_ALIAS &&
		       pd_type != IB_PDT_SQP && pd_type != IB_PDT_UD)) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	p_pd = (al_pd_t *)cl_zalloc(sizeof(*p_pd));
	if (!p_pd) {
		st = IB_INSUFFICIENT_MEMORY;
		goto out;
	}
	p_pd->p_ca = p_ca;
	p_pd->type = pd_type;
	p_pd->v.p_ops = p_ca->v.p_ops;
	al_obj_construct(&p_pd->v.obj, AL_HDL_PD);
	st = al_obj_init(&p_pd->v.obj, &p_ca->v.obj, pd_context, NULL, pd_cleanup,
			 al_verbs_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_pd->v.obj);
		cl_free(p_pd);
		st = st == IB_INVALID_STATE ? IB_INVALID_CA_HANDLE : st;
		goto out;
	}
	st = p_ca->v.p_ops->alloc_pd(p_ca->v.p_prov, pd_type, &p_pd->v.p_prov);
	if (st == IB_SUCCESS)
		st = al_obj_insert_handle(&p_pd->v.obj);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_pd->v.obj, NULL);
		goto out;
	}
	*ph_pd = (ib_pd_handle_t)al_obj_h(&p_pd->v.obj);
out:
	AL_EXIT(h_ca);
	return st;
}

ib_api_status_t ib_dealloc_pd(const ib_pd_handle_t h_pd, const ib_pfn_destroy_cb_t pfn_destroy_cb)
{
	return al_destroy_handle((void *)h_pd, AL_HDL_PD, pfn_destroy_cb, IB_INVALID_PD_HANDLE);
}
