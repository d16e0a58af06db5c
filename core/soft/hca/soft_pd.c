/*
 * ibal soft provider: protection domains.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <stdlib.h>
#include "soft_hca.h"

ib_api_status_t soft_alloc_pd(void *h, ib_pd_type_t type, void **pp_pd)
{
	soft_ca_t *ca = h;
	soft_pd_t *pd;

	if (!pp_pd || type > IB_PDT_UD)
		return IB_INVALID_PARAMETER;
	pthread_mutex_lock(&ca->lock);
	if (ca->n_pd >= SOFT_MAX_PDS) {
		pthread_mutex_unlock(&ca->lock);
		return IB_INSUFFICIENT_RESOURCES;
	}
	ca->n_pd++;
	pthread_mutex_unlock(&ca->lock);
	pd = cl_zalloc(sizeof(*pd));
	if (!pd) {
		pthread_mutex_lock(&ca->lock);
		ca->n_pd--;
		pthread_mutex_unlock(&ca->lock);
		return IB_INSUFFICIENT_MEMORY;
	}
	pd->ca = ca;
	pd->type = type;
	*pp_pd = pd;
	return IB_SUCCESS;
}

void soft_dealloc_pd(void *h)
{
	soft_pd_t *pd = h;
	soft_ca_t *ca = pd->ca;

	pthread_mutex_lock(&ca->lock);
	ca->n_pd--;
	pthread_mutex_unlock(&ca->lock);
	cl_free(pd);
}
