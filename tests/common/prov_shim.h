/*
 * ibal tests: the core's handle lookups for a provider tested without the access layer.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A provider resolves the AV and MR handles of work requests through the
 * core (al_prov_av(), al_prov_mr(), al_prov_put() in al_prov.h). A test that
 * drives a provider's table directly passes the provider's own objects as
 * those handles; these stand-ins, defined once per test program (include
 * this header from its one source file), return them unchanged.
 */
#ifndef TESTS_PROV_SHIM_H
#define TESTS_PROV_SHIM_H

#include "al_prov.h"

/* The handle is the provider's AV. */
void *al_prov_av(ib_av_handle_t h_av)
{
	return (void *)h_av;
}

/* The handle is the provider's MR. */
void *al_prov_mr(ib_mr_handle_t h_mr)
{
	return (void *)h_mr;
}

/* Nothing was entered. */
void al_prov_put(const void *h)
{
	(void)h;
}

#endif /* TESTS_PROV_SHIM_H */
