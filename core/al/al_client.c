/*
 * ibal access layer: the table of built-in clients and the calls that tell them (al_client.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <stddef.h>
#include "al_client.h"

/* In the order they are told: the CM sends its last messages before the
 * DM agents of the closed instance's IOCs end. */
static const al_client_t *const clients[] = { &al_cm_client, &al_dm_agent_client };

#define N_CLIENTS (sizeof(clients) / sizeof(clients[0]))

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

	for (i = 0; i < N_CLIENTS; i++)
		if (clients[i]->al_closed)
			clients[i]->al_closed();
}
