/*
 * ibal access layer: the common head of every object a provider backs.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * CA, PD, AV, QP, SRQ, CQ, MR and MW objects start with al_verbs_obj_t:
 * the al_obj_t base, the provider object, and the provider's ops table
 * (cached so that a data-path call is one handle lookup and one indirect
 * call). Type-specific fields follow in each object's own struct.
 */
#ifndef AL_VERBS_OBJ_H
#define AL_VERBS_OBJ_H

#include "al_obj.h"
#include "al_prov.h"

typedef struct al_verbs_obj {
	al_obj_t obj;                 /* base: handle, parent, lifetime, callbacks */
	void *p_prov;                 /* the provider's object; NULL until created */
	const al_prov_ops_t *p_ops;   /* the provider that made it */
} al_verbs_obj_t;

/* al_obj_insert_handle() for a verbs object created at its provider: the
 * handle of a QP, SRQ or CQ carries the data-path cache (al_dp.c). */
static inline ib_api_status_t al_verbs_insert_handle(al_verbs_obj_t *p_v)
{
	al_handle_dp_t dp;

	if (!al_handle_type_dp((al_handle_type_t)p_v->obj.type))
		return al_obj_insert_handle(&p_v->obj);
	al_handle_dp_fill((al_handle_type_t)p_v->obj.type, p_v, &dp);
	return al_obj_insert_handle_dp(&p_v->obj, &dp);
}

#endif /* AL_VERBS_OBJ_H */
