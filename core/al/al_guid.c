/*
 * ibal access layer: ib_get_guid(), the GUID of the n-th CA, port or discovered I/O controller.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The list is made fresh by each call: CAs in the order of the providers'
 * CA list, their ports in port order, I/O controllers in the order of the
 * IOC discovery's last sweep (al_ioc_pnp.c; a sweep of its own when no
 * IB_PNP_IOU/IB_PNP_IOC registration runs the discovery). IB_DEV_PORT_ACTIVE
 * applies to ports: a port matches when its link is ACTIVE. CAs and IOCs
 * match any mask of known bits.
 */
#include <string.h>
#include <complib/cl_memory.h>
#include "al_verbs.h"

/* One candidate and whether it has the attributes asked for. */
typedef struct guid_ent {
	ib_net64_t guid;
	boolean_t match;
} guid_ent_t;

static ib_api_status_t port_list(uint64_t attr_mask, guid_ent_t **pp, size_t *p_n)
{
	ib_net64_t *cas = NULL;
	size_t n_ca = 0, i, n = 0;
	guid_ent_t *list = NULL, *grown;
	ib_api_status_t st;

	st = al_ca_guids_alloc(&cas, &n_ca);
	if (st != IB_SUCCESS)
		return st;
	for (i = 0; i < n_ca && st == IB_SUCCESS; i++) {
		al_ci_ca_t *p_ci;
		ib_ca_attr_t *p_attr;
		uint8_t k;

		if (al_ci_ca_acquire(cas[i], &p_ci) != IB_SUCCESS)
			continue; /* gone meanwhile */
		st = al_ci_ca_query_alloc(p_ci, &p_attr);
		al_ci_ca_release(p_ci);
		if (st != IB_SUCCESS)
			break;
		grown = (guid_ent_t *)cl_malloc((n + p_attr->num_ports + 1) * sizeof(*grown));
		if (!grown) {
			st = IB_INSUFFICIENT_MEMORY;
		} else {
			if (n)
				memcpy(grown, list, n * sizeof(*grown));
			cl_free(list);
			list = grown;
			for (k = 0; k < p_attr->num_ports; k++) {
				const ib_port_attr_t *pa = &p_attr->p_port_attr[k];

				list[n].guid = pa->port_guid;
				list[n++].match = !(attr_mask & IB_DEV_PORT_ACTIVE) ||
						  pa->link_state == IB_LINK_ACTIVE;
			}
		}
		cl_free(p_attr);
	}
	cl_free(cas);
	if (st != IB_SUCCESS) {
		cl_free(list);
		return st;
	}
	*pp = list;
	*p_n = n;
	return IB_SUCCESS;
}

/* The GUIDs of a plain list (CAs, IOCs): every one matches. */
static ib_api_status_t plain_list(ib_net64_t *guids, size_t n, guid_ent_t **pp, size_t *p_n)
{
	size_t i;

	*pp = NULL;
	*p_n = 0;
	if (n) {
		*pp = (guid_ent_t *)cl_malloc(n * sizeof(guid_ent_t));
		if (!*pp) {
			cl_free(guids);
			return IB_INSUFFICIENT_MEMORY;
		}
	}
	for (i = 0; i < n; i++) {
		(*pp)[i].guid = guids[i];
		(*pp)[i].match = TRUE;
	}
	*p_n = n;
	cl_free(guids);
	return IB_SUCCESS;
}

static ib_api_status_t make_list(ib_pnp_class_t device_type, uint64_t attr_mask, guid_ent_t **pp,
				 size_t *p_n)
{
	ib_net64_t *guids = NULL;
	size_t n = 0;
	ib_api_status_t st;

	switch (device_type) {
	case IB_PNP_CA:
		st = al_ca_guids_alloc(&guids, &n);
		break;
	case IB_PNP_PORT:
		return port_list(attr_mask, pp, p_n);
	default:
		st = al_ioc_guids_alloc(&guids, &n);
		break;
	}
	if (st != IB_SUCCESS)
		return st;
	return plain_list(guids, n, pp, p_n);
}

ib_api_status_t ib_get_guid(ib_al_handle_t h_al, const uint32_t index,
			    const ib_pnp_class_t device_type, const uint64_t attr_mask,
			    ib_net64_t *const p_guid)
{
	al_inst_t *p_al = al_inst_enter(h_al);
	guid_ent_t *list = NULL;
	size_t n = 0, i;
	ib_api_status_t st;

	if (!p_al)
		return IB_INVALID_AL_HANDLE;
	if (device_type != IB_PNP_CA && device_type != IB_PNP_PORT && device_type != IB_PNP_IOC)
		st = IB_INVALID_SETTING;
	else if (!p_guid)
		st = IB_INVALID_PARAMETER;
	else
		st = make_list(device_type, attr_mask, &list, &n);
	if (st == IB_SUCCESS) {
		if (index == (uint32_t)IB_ANY_INDEX) {
			st = IB_NO_MATCH;
			for (i = 0; i < n; i++)
				if (list[i].match) {
					*p_guid = list[i].guid;
					st = IB_SUCCESS;
					break;
				}
		} else if (index >= n) {
			st = IB_INVALID_INDEX;
		} else if (!list[index].match) {
			st = IB_NO_MATCH;
		} else {
			*p_guid = list[index].guid;
		}
	}
	cl_free(list);
	AL_EXIT(h_al);
	return st;
}
