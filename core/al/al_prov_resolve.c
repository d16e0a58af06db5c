/*
 * ibal access layer: handle resolution for providers (see al_prov.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Kept alone in its file so that unit tests of a provider can link their
 * own stand-ins instead.
 */
#include "al_handle.h"
#include "al_verbs_obj.h"

static void *prov_of(void *h, al_handle_type_t type)
{
	al_verbs_obj_t *p = al_handle_lookup(AL_HANDLE_FROM_IB(h), type);

	/* Atomic: ib_modify_av() may publish a new provider AV meanwhile. */
	return p ? __atomic_load_n(&p->p_prov, __ATOMIC_ACQUIRE) : NULL;
}

void *al_prov_av(ib_av_handle_t h_av)
{
	return prov_of((void *)h_av, AL_HDL_AV);
}

void *al_prov_mr(ib_mr_handle_t h_mr)
{
	return prov_of((void *)h_mr, AL_HDL_MR);
}
