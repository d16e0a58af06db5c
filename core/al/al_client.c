/*
 * ibal access layer: the table of built-in clients and the calls that tell them (al_client.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stddef.h>
#include "al_client.h"

/* In the order they are told: the CM sends its last messages before the
 * DM agents of the closed instance's IOCs end; the IOC sweeper a closed
 * registration stopped ends before the SA services it used are waited for;
 * the CM through the kernel's starts after the others and stops before them. */
static const al_client_t *const clients[] = {
	&al_mad_layer_client,
	&al_cm_client,
	&al_dm_agent_client,
	&al_ioc_pnp_client,
	&al_sa_client,
#ifdef HAVE_AL_CM_KERN
	&al_cm_kern_client,
#endif
};

#define N_CLIENTS (sizeof(clients) / sizeof(clients[0]))

/* Depth of al_client_close_al() calls on this thread. */
static __thread uint32_t t_internal_close;

void al_clients_qp_destroying(struct al_qp *p_qp)
{
	size_t i;

	for (i = 0; i < N_CLIENTS; i++)
		if (clients[i]->qp_destroying)
			clients[i]->qp_destroying(p_qp);
}

void al_clients_al_closed(void)
{
	size_t i;

	if (t_internal_close)
		return;
	for (i = 0; i < N_CLIENTS; i++)
		if (clients[i]->al_closed)
			clients[i]->al_closed();
}

void al_clients_start(void)
{
	size_t i;

	for (i = 0; i < N_CLIENTS; i++)
		if (clients[i]->start)
			clients[i]->start();
}

void al_clients_stop(void)
{
	size_t i;

	for (i = N_CLIENTS; i-- > 0;)
		if (clients[i]->stop)
			clients[i]->stop();
}

void al_clients_ca_list_changed(void)
{
	size_t i;

	for (i = 0; i < N_CLIENTS; i++)
		if (clients[i]->ca_list_changed)
			clients[i]->ca_list_changed();
}

void al_client_close_al(ib_al_handle_t h_al)
{
	t_internal_close++;
	(void)ib_close_al(h_al);
	t_internal_close--;
}

ib_api_status_t al_clients_create_qp(struct al_pd *p_pd, const ib_qp_create_t *p_create,
				     const void *qp_context, ib_pfn_event_cb_t pfn_event_cb,
				     ib_qp_handle_t *ph_qp)
{
	ib_api_status_t st;
	size_t i;

	for (i = 0; i < N_CLIENTS; i++) {
		if (!clients[i]->create_qp)
			continue;
		st = clients[i]->create_qp(p_pd, p_create, qp_context, pfn_event_cb, ph_qp);
		if (st != IB_UNSUPPORTED)
			return st;
	}
	return IB_INVALID_SETTING;
}
