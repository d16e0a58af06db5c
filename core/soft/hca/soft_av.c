/*
 * ibal soft provider: address vectors (validated copies of ib_av_attr_t).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Checks: port number of the CA (IB_INVALID_PORT); SL 0..15, static rate
 * 0 (port rate) or a defined IB_PATH_RECORD_RATE_* value, DLID not 0, a
 * multicast DLID only with a GRH, GRH IP version 6 (or 0, taken as 6),
 * path bits below 2^LMC (LMC is 0) - all IB_INVALID_SETTING.
 */
#include <stdlib.h>
#include "soft_hca.h"

ib_api_status_t soft_av_check(soft_ca_t *ca, const ib_av_attr_t *a)
{
	uint16_t dlid = cl_ntoh16(a->dlid);

	if (!soft_ca_port(ca, a->port_num))
		return IB_INVALID_PORT;
	if (a->sl > 15 || a->static_rate > IB_RATE_MAX || a->static_rate == 1 || dlid == 0)
		return IB_INVALID_SETTING;
	if (dlid >= 0xC000 && dlid != 0xFFFF && !a->grh_valid)
		return IB_INVALID_SETTING;
	if (a->path_bits)
		return IB_INVALID_SETTING;
	if (a->grh_valid) {
		uint8_t ver = (uint8_t)(cl_ntoh32(a->grh.ver_class_flow) >> 28);

		if (ver != 0 && ver != SOFT_GRH_IPVER)
			return IB_INVALID_SETTING;
	}
	return IB_SUCCESS;
}

ib_api_status_t soft_create_av(void *h, const ib_av_attr_t *p_attr, void **pp_av)
{
	soft_pd_t *pd = h;
	soft_av_t *av;
	ib_api_status_t st;

	if (!p_attr || !pp_av)
		return IB_INVALID_PARAMETER;
	st = soft_av_check(pd->ca, p_attr);
	if (st != IB_SUCCESS)
		return st;
	pthread_mutex_lock(&pd->ca->lock);
	if (pd->ca->n_av >= SOFT_MAX_AVS) {
		pthread_mutex_unlock(&pd->ca->lock);
		return IB_INSUFFICIENT_RESOURCES;
	}
	pd->ca->n_av++;
	pthread_mutex_unlock(&pd->ca->lock);
	av = cl_zalloc(sizeof(*av));
	if (!av) {
		pthread_mutex_lock(&pd->ca->lock);
		pd->ca->n_av--;
		pthread_mutex_unlock(&pd->ca->lock);
		return IB_INSUFFICIENT_MEMORY;
	}
	av->pd = pd;
	av->attr = *p_attr;
	*pp_av = av;
	return IB_SUCCESS;
}

ib_api_status_t soft_query_av(void *h, ib_av_attr_t *p_attr)
{
	soft_av_t *av = h;

	if (!p_attr)
		return IB_INVALID_PARAMETER;
	*p_attr = av->attr;
	return IB_SUCCESS;
}

/* The soft AV is mutable: modify changes *pp_av in place and keeps it (a
 * NULL *pp_av creates one on @p h, the PD).
 * Posts racing a modify may use either the old or the new attributes. */
ib_api_status_t soft_modify_av(void *h, const ib_av_attr_t *p_attr, void **pp_av)
{
	soft_av_t *av;
	ib_api_status_t st;

	if (!p_attr || !pp_av)
		return IB_INVALID_PARAMETER;
	if (!*pp_av)
		return soft_create_av(h, p_attr, pp_av);
	av = *pp_av;
	st = soft_av_check(av->pd->ca, p_attr);
	if (st == IB_SUCCESS)
		av->attr = *p_attr;
	return st;
}

void soft_destroy_av(void *h)
{
	soft_av_t *av = h;

	pthread_mutex_lock(&av->pd->ca->lock);
	av->pd->ca->n_av--;
	pthread_mutex_unlock(&av->pd->ca->lock);
	cl_free(av);
}
