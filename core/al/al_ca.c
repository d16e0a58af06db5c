/*
 * ibal access layer: open CAs (ib_open_ca .. ib_ci_call), CA events, shared helpers.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Also the helpers every verbs object uses: async event delivery through
 * the object's callback queue and the common destroy of a handle.
 */
#include <string.h>
#include <complib/cl_memory.h>
#include "al_verbs.h"

/* ---- Shared helpers ---- */

void al_verbs_free(al_obj_t *p_obj)
{
	cl_free(p_obj);
}

/* A queued async event. */
typedef struct al_event_cb {
	ib_pfn_event_cb_t pfn;
	ib_async_event_rec_t rec;
} al_event_cb_t;

static void run_event(void *context)
{
	al_event_cb_t *p_ev = (al_event_cb_t *)context;

	p_ev->pfn(&p_ev->rec);
	cl_free(p_ev);
}

void al_queue_event(al_obj_t *p_obj, ib_pfn_event_cb_t pfn, ib_async_event_t code,
		    uint64_t vendor, void *h)
{
	al_event_cb_t *p_ev;

	if (!pfn)
		return;
	p_ev = (al_event_cb_t *)cl_zalloc(sizeof(*p_ev));
	if (!p_ev)
		return;
	p_ev->pfn = pfn;
	p_ev->rec.code = code;
	p_ev->rec.vendor_specific = vendor;
	p_ev->rec.context = (void *)(uintptr_t)p_obj->context;
	p_ev->rec.handle.h_qp = (ib_qp_handle_t)h; /* the union's members are all handles */
	if (al_obj_queue_callback(p_obj, run_event, p_ev) != IB_SUCCESS)
		cl_free(p_ev);
}

ib_api_status_t al_destroy_handle(void *h, al_handle_type_t type, ib_pfn_destroy_cb_t pfn,
				  ib_api_status_t bad)
{
	al_obj_t *p_obj;
	ib_api_status_t st;

	/* Entered, so that the object cannot complete under us even when
	 * another thread destroys the same handle; the entry is left before
	 * the synchronous wait, which drains the calls inside the object. */
	p_obj = (al_obj_t *)AL_ENTER(h, type);
	if (!p_obj)
		return bad;
	st = al_obj_destroy_entered(p_obj, pfn, AL_HANDLE_FROM_IB(h));
	if (st == IB_SUCCESS)
		return IB_SUCCESS;
	/* Refused: IB_INVALID_STATE for ib_sync_destroy from a callback of the
	 * object or of a descendant; IB_NOT_FOUND when another thread claimed
	 * the destruction first (its handle may still look live for a moment). */
	return st == IB_INVALID_STATE ? st : bad;
}

/* ---- CA objects ---- */

void al_ca_event(al_ci_ca_t *p_ci, ib_async_event_t code, uint64_t vendor)
{
	cl_list_item_t *it;
	al_ca_t *p_ca;

	pthread_mutex_lock(&p_ci->lock);
	for (it = cl_qlist_head(&p_ci->cas); it != cl_qlist_end(&p_ci->cas); it = cl_qlist_next(it)) {
		p_ca = PARENT_STRUCT(it, al_ca_t, ci_item);
		al_queue_event(&p_ca->v.obj, p_ca->pfn_event_cb, code, vendor,
			       al_obj_h(&p_ca->v.obj));
	}
	pthread_mutex_unlock(&p_ci->lock);
}

static void unlist(al_ca_t *p_ca)
{
	pthread_mutex_lock(&p_ca->p_ci->lock);
	if (p_ca->listed)
		cl_qlist_remove_item(&p_ca->p_ci->cas, &p_ca->ci_item);
	p_ca->listed = FALSE;
	pthread_mutex_unlock(&p_ca->p_ci->lock);
}

/* Destroying thread: no more CA events. */
static void ca_destroying(al_obj_t *p_obj)
{
	unlist(PARENT_STRUCT(p_obj, al_ca_t, v.obj));
}

/* Every PD and CQ of this open is gone: let the provider CA go. */
static void ca_cleanup(al_obj_t *p_obj)
{
	al_ca_t *p_ca = PARENT_STRUCT(p_obj, al_ca_t, v.obj);

	unlist(p_ca);
	al_ci_ca_release(p_ca->p_ci);
}

ib_api_status_t ib_open_ca(const ib_al_handle_t h_al, const ib_net64_t ca_guid,
			   const ib_pfn_event_cb_t pfn_ca_event_cb, const void *const ca_context,
			   ib_ca_handle_t *const ph_ca)
{
	al_inst_t *p_al = al_inst_enter(h_al);
	al_ca_t *p_ca;
	ib_api_status_t st;

	if (!p_al)
		return IB_INVALID_AL_HANDLE;
	if (!ph_ca) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	p_ca = (al_ca_t *)cl_zalloc(sizeof(*p_ca));
	if (!p_ca) {
		st = IB_INSUFFICIENT_MEMORY;
		goto out;
	}
	st = al_ci_ca_acquire(ca_guid, &p_ca->p_ci);
	if (st != IB_SUCCESS) {
		cl_free(p_ca);
		goto out;
	}
	p_ca->v.p_prov = p_ca->p_ci->p_prov;
	p_ca->v.p_ops = p_ca->p_ci->p_ops;
	p_ca->pfn_event_cb = pfn_ca_event_cb;
	al_obj_construct(&p_ca->v.obj, AL_HDL_CA);
	st = al_obj_init(&p_ca->v.obj, &p_al->obj, ca_context, ca_destroying, ca_cleanup,
			 al_verbs_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_ca->v.obj);
		al_ci_ca_release(p_ca->p_ci);
		cl_free(p_ca);
		st = st == IB_INVALID_STATE ? IB_INVALID_AL_HANDLE : st;
		goto out;
	}
	st = al_obj_insert_handle(&p_ca->v.obj);
	if (st == IB_SUCCESS) {
		pthread_mutex_lock(&p_ca->p_ci->lock);
		cl_qlist_insert_tail(&p_ca->p_ci->cas, &p_ca->ci_item);
		p_ca->listed = TRUE;
		pthread_mutex_unlock(&p_ca->p_ci->lock);
		*ph_ca = (ib_ca_handle_t)al_obj_h(&p_ca->v.obj);
	} else {
		al_obj_destroy(&p_ca->v.obj, NULL);
	}
out:
	AL_EXIT(h_al);
	return st;
}

/* Copies a provider CA's attributes with the size probe of ib_query_ca(). */
static ib_api_status_t query_ci(al_ci_ca_t *p_ci, ib_ca_attr_t *p_ca_attr, uint32_t *p_size)
{
	if (!p_ca_attr) {
		uint32_t need = 0;
		ib_api_status_t st = p_ci->p_ops->query_ca(p_ci->p_prov, NULL, &need);

		if (st == IB_INSUFFICIENT_MEMORY || st == IB_SUCCESS) {
			*p_size = need;
			return IB_INSUFFICIENT_MEMORY;
		}
		return st;
	}
	return p_ci->p_ops->query_ca(p_ci->p_prov, p_ca_attr, p_size);
}

ib_api_status_t ib_query_ca(const ib_ca_handle_t h_ca, ib_ca_attr_t *const p_ca_attr,
			    uint32_t *const p_size)
{
	al_ca_t *p_ca = (al_ca_t *)AL_ENTER(h_ca, AL_HDL_CA);
	ib_api_status_t st;

	if (!p_ca)
		return IB_INVALID_CA_HANDLE;
	st = p_size ? query_ci(p_ca->p_ci, p_ca_attr, p_size) : IB_INVALID_PARAMETER;
	AL_EXIT(h_ca);
	return st;
}

ib_api_status_t ib_query_ca_by_guid(const ib_al_handle_t h_al, const ib_net64_t ca_guid,
				    ib_ca_attr_t *const p_ca_attr, uint32_t *const p_size)
{
	al_inst_t *p_al = al_inst_enter(h_al);
	al_ci_ca_t *p_ci;
	ib_api_status_t st;

	if (!p_al)
		return IB_INVALID_AL_HANDLE;
	if (!p_size) {
		st = IB_INVALID_PARAMETER;
	} else {
		st = al_ci_ca_acquire(ca_guid, &p_ci);
		if (st == IB_SUCCESS) {
			st = query_ci(p_ci, p_ca_attr, p_size);
			al_ci_ca_release(p_ci);
		}
	}
	AL_EXIT(h_al);
	return st;
}

ib_api_status_t ib_modify_ca(const ib_ca_handle_t h_ca, const uint8_t port_num,
			     const ib_ca_mod_t ca_mod, const ib_port_attr_mod_t *const p_port_attr_mod)
{
	al_ca_t *p_ca = (al_ca_t *)AL_ENTER(h_ca, AL_HDL_CA);
	ib_api_status_t st;

	if (!p_ca)
		return IB_INVALID_CA_HANDLE;
	if (!p_port_attr_mod)
		st = IB_INVALID_PARAMETER;
	else
		st = p_ca->v.p_ops->modify_ca(p_ca->v.p_prov, port_num, ca_mod, p_port_attr_mod);
	AL_EXIT(h_ca);
	return st;
}

ib_api_status_t ib_close_ca(const ib_ca_handle_t h_ca, const ib_pfn_destroy_cb_t pfn_destroy_cb)
{
	return al_destroy_handle((void *)h_ca, AL_HDL_CA, pfn_destroy_cb, IB_INVALID_CA_HANDLE);
}

/* Handle kinds ib_ci_call() accepts in its array. */
static boolean_t ci_kind(al_handle_type_t t)
{
	return t == AL_HDL_PD || t == AL_HDL_CQ || t == AL_HDL_AV || t == AL_HDL_QP ||
	       t == AL_HDL_MR || t == AL_HDL_MW;
}

ib_api_status_t ib_ci_call(ib_ca_handle_t h_ca, const void **const handle_array,
			   uint32_t num_handles, ib_ci_op_t *const p_ci_op)
{
	al_ca_t *p_ca = (al_ca_t *)AL_ENTER(h_ca, AL_HDL_CA);
	void **prov = NULL;
	uint32_t i, entered = 0;
	ib_api_status_t st = IB_SUCCESS;

	if (!p_ca)
		return IB_INVALID_CA_HANDLE;
	if (!p_ci_op || (num_handles && !handle_array)) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	if (num_handles) {
		prov = (void **)cl_zalloc(num_handles * sizeof(*prov));
		if (!prov) {
			st = IB_INSUFFICIENT_MEMORY;
			goto out;
		}
	}
	for (; entered < num_handles; entered++) {
		al_handle_t h = AL_HANDLE_FROM_IB(handle_array[entered]);
		al_handle_type_t t = al_handle_type(h);
		al_verbs_obj_t *p_v = ci_kind(t) ? (al_verbs_obj_t *)al_handle_enter(h, t) : NULL;

		if (!p_v) {
			st = IB_INVALID_HANDLE;
			break;
		}
		prov[entered] = p_v->p_prov;
	}
	if (st == IB_SUCCESS) {
		st = p_ca->v.p_ops->ci_call(p_ca->v.p_prov, (void *const *)prov, num_handles,
					    p_ci_op);
	}
	for (i = 0; i < entered; i++)
		al_handle_exit(AL_HANDLE_FROM_IB(handle_array[i]));
	cl_free(prov);
out:
	AL_EXIT(h_ca);
	return st;
}
