/*
 * ibal access layer: address vectors (ib_create_av .. ib_destroy_av_ctx).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * ib_destroy_av() returns once the provider object is gone (posts using it
 * drained), except on an AL callback thread, where waiting could deadlock:
 * there the handle is invalid at once and the object goes shortly after.
 * modify_av may hand back a new provider object (immutable AHs): it is
 * published at once, and the old one is destroyed.
 */
#include <complib/cl_memory.h>
#include "al_verbs.h"

static void av_cleanup(al_obj_t *p_obj)
{
	al_av_t *p_av = PARENT_STRUCT(p_obj, al_av_t, v.obj);

	if (p_av->v.p_prov)
		p_av->v.p_ops->destroy_av(p_av->v.p_prov);
	p_av->v.p_prov = NULL;
}

ib_api_status_t ib_create_av_ctx(const ib_pd_handle_t h_pd, const ib_av_attr_t *const p_av_attr,
				 uint16_t ctx, ib_av_handle_t *const ph_av)
{
	al_pd_t *p_pd = (al_pd_t *)AL_ENTER(h_pd, AL_HDL_PD);
	al_av_t *p_av;
	ib_api_status_t st;

	(void)ctx;
	if (!p_pd)
		return IB_INVALID_PD_HANDLE;
	if (!p_av_attr || !ph_av) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	p_av = (al_av_t *)cl_zalloc(sizeof(*p_av));
	if (!p_av) {
		st = IB_INSUFFICIENT_MEMORY;
		goto out;
	}
	p_av->p_pd = p_pd;
	p_av->v.p_ops = p_pd->v.p_ops;
	al_obj_construct(&p_av->v.obj, AL_HDL_AV);
	st = al_obj_init(&p_av->v.obj, &p_pd->v.obj, NULL, NULL, av_cleanup, al_verbs_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_av->v.obj);
		cl_free(p_av);
		st = st == IB_INVALID_STATE ? IB_INVALID_PD_HANDLE : st;
		goto out;
	}
	st = p_pd->v.p_ops->create_av(p_pd->v.p_prov, p_av_attr, &p_av->v.p_prov);
	if (st == IB_SUCCESS)
		st = al_obj_insert_handle(&p_av->v.obj);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_av->v.obj, NULL);
		goto out;
	}
	*ph_av = (ib_av_handle_t)al_obj_h(&p_av->v.obj);
out:
	AL_EXIT(h_pd);
	return st;
}

ib_api_status_t ib_create_av(const ib_pd_handle_t h_pd, const ib_av_attr_t *const p_av_attr,
			     ib_av_handle_t *const ph_av)
{
	return ib_create_av_ctx(h_pd, p_av_attr, 0, ph_av);
}

ib_api_status_t ib_query_av(const ib_av_handle_t h_av, ib_av_attr_t *const p_av_attr,
			    ib_pd_handle_t *const ph_pd)
{
	al_av_t *p_av = (al_av_t *)AL_ENTER(h_av, AL_HDL_AV);
	ib_api_status_t st;

	if (!p_av)
		return IB_INVALID_AV_HANDLE;
	if (!p_av_attr || !ph_pd) {
		st = IB_INVALID_PARAMETER;
	} else {
		st = p_av->v.p_ops->query_av(__atomic_load_n(&p_av->v.p_prov, __ATOMIC_ACQUIRE),
					     p_av_attr);
		if (st == IB_SUCCESS)
			*ph_pd = (ib_pd_handle_t)al_obj_h(&p_av->p_pd->v.obj);
	}
	AL_EXIT(h_av);
	return st;
}

ib_api_status_t ib_modify_av(const ib_av_handle_t h_av, const ib_av_attr_t *const p_av_attr)
{
	al_av_t *p_av = (al_av_t *)AL_ENTER(h_av, AL_HDL_AV);
	void *old, *cur;
	ib_api_status_t st;

	if (!p_av)
		return IB_INVALID_AV_HANDLE;
	if (!p_av_attr) {
		st = IB_INVALID_PARAMETER;
	} else {
		old = cur = __atomic_load_n(&p_av->v.p_prov, __ATOMIC_ACQUIRE);
		st = p_av->v.p_ops->modify_av(p_av->p_pd->v.p_prov, p_av_attr, &cur);
		if (st == IB_SUCCESS && cur != old &&
		    __atomic_compare_exchange_n(&p_av->v.p_prov, &old, cur, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			p_av->v.p_ops->destroy_av(old);
		else if (st == IB_SUCCESS && cur != old)
			p_av->v.p_ops->destroy_av(cur); /* a racing modify won */
	}
	AL_EXIT(h_av);
	return st;
}

ib_api_status_t ib_destroy_av_ctx(const ib_av_handle_t h_av, uint16_t ctx)
{
	(void)ctx;
	return al_destroy_handle((void *)h_av, AL_HDL_AV, al_sync_unless_cb(), IB_INVALID_AV_HANDLE);
}

ib_api_status_t ib_destroy_av(const ib_av_handle_t h_av)
{
	return ib_destroy_av_ctx(h_av, 0);
}
