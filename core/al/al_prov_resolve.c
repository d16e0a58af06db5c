/*
 * ibal access layer: handle resolution for providers (see al_prov.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Kept alone in its file so that unit tests of a provider can link their
 * own stand-ins instead.
 */
#include "al_verbs.h"

static void *prov_of(const void *h, al_handle_type_t type)
{
	al_verbs_obj_t *p = al_handle_enter(AL_HANDLE_FROM_IB(h), type);
	void *p_prov;

	if (!p)
		return NULL;
	/* Atomic: ib_modify_av() may publish a new provider AV meanwhile. */
	p_prov = __atomic_load_n(&p->p_prov, __ATOMIC_ACQUIRE);
	if (!p_prov)
		al_handle_exit(AL_HANDLE_FROM_IB(h));
	return p_prov;
}

void al_prov_put(const void *h)
{
	al_handle_t ah = AL_HANDLE_FROM_IB(h);

	if (al_handle_type(ah) == AL_HDL_MR)
		al_mr_unuse((ib_mr_handle_t)h, (al_mr_t *)al_handle_lookup(ah, AL_HDL_MR));
	else
		al_handle_exit(ah);
}

void *al_prov_av(ib_av_handle_t h_av)
{
	return prov_of((void *)h_av, AL_HDL_AV);
}

void *al_prov_mr(ib_mr_handle_t h_mr)
{
	/* Held shared against ib_dereg_mr() until al_prov_put(). */
	al_mr_t *p_mr = al_mr_use(h_mr);

	return p_mr ? p_mr->v.p_prov : NULL;
}
