/*
 * ibal soft provider: ib_ci_call commands (inc/iba/ibal_soft.h): port state, LID, CA presence.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Changes are made under ca->lock and announced through the CA's deferred
 * upcalls, so the core hears of them in order from the progress thread:
 * the async event first, then port_change (port_change with no context
 * and port 0 when the set of CAs changed).
 */
#include <string.h>
#include <iba/ibal_soft.h>
#include "soft_hca.h"

/* Queues the async event and the port change of one port. */
static void announce(soft_port_t *port, ib_async_event_t code)
{
	soft_ca_t *ca = port->ca;

	if (code)
		soft_ca_defer(ca, ca, ca->al_ca, SOFT_UPCALL_ASYNC, code, port->num);
	soft_ca_defer(ca, ca, ca->al_ca, SOFT_UPCALL_PORT, 0, port->num);
}

void soft_port_set_state(soft_port_t *port, uint8_t state)
{
	soft_ca_t *ca = port->ca;
	uint8_t old;

	pthread_mutex_lock(&ca->lock);
	old = port->link_state;
	__atomic_store_n(&port->link_state, state, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ca->lock);
	if (old == state)
		return;
	if (state == IB_LINK_ACTIVE)
		announce(port, IB_AE_PORT_ACTIVE);
	else if (old == IB_LINK_ACTIVE)
		announce(port, IB_AE_PORT_DOWN);
	else
		announce(port, (ib_async_event_t)0);
}

ib_api_status_t soft_port_set_lid(soft_port_t *port, uint16_t lid)
{
	soft_ca_t *ca = port->ca;
	ib_api_status_t st;
	uint16_t old;

	pthread_mutex_lock(&ca->lock);
	old = port->lid;
	st = soft_fabric_port_set_lid(port->fp, lid);
	if (st == IB_SUCCESS)
		__atomic_store_n(&port->lid, lid, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ca->lock);
	if (st == IB_SUCCESS && old != lid)
		announce(port, IB_AE_LID_CHANGE);
	return st;
}

/* The command's argument, or NULL when the buffer cannot hold it. */
static void *arg(ib_ci_op_t *op, size_t size)
{
	return op->p_buf && op->buf_size >= size ? op->p_buf : NULL;
}

static ib_api_status_t cmd_port(soft_ca_t *ca, ib_ci_op_t *op)
{
	ibal_soft_port_ctl_t *c = (ibal_soft_port_ctl_t *)arg(op, sizeof(*c));
	soft_port_t *port;

	if (!c)
		return IB_INVALID_PARAMETER;
	port = soft_ca_port(ca, c->port_num);
	if (!port)
		return IB_INVALID_PORT;
	if (op->command == IBAL_SOFT_CI_PORT_LID) {
		uint16_t lid = cl_ntoh16(c->lid);

		if (!lid || lid > SOFT_FABRIC_LID_UNICAST_MAX)
			return IB_INVALID_PARAMETER;
		return soft_port_set_lid(port, lid);
	}
	if (c->link_state < IB_LINK_DOWN || c->link_state > IB_LINK_ACTIVE)
		return IB_INVALID_PARAMETER;
	soft_port_set_state(port, c->link_state);
	return IB_SUCCESS;
}

static ib_api_status_t cmd_present(soft_ca_t *ca, ib_ci_op_t *op)
{
	ibal_soft_ca_ctl_t *c = (ibal_soft_ca_ctl_t *)arg(op, sizeof(*c));
	unsigned i;

	if (!c)
		return IB_INVALID_PARAMETER;
	if (!soft_prov_set_present(ca->index, c->present))
		return IB_SUCCESS;
	for (i = 0; i < ca->num_ports; i++)
		soft_port_set_state(&ca->port[i], c->present ? IB_LINK_ACTIVE : IB_LINK_DOWN);
	/* The set of CAs changed: no context, port 0. */
	soft_ca_defer(ca, ca, NULL, SOFT_UPCALL_PORT, 0, 0);
	return IB_SUCCESS;
}

ib_api_status_t soft_ci_call(void *h, void *const *prov_handles, uint32_t num_handles,
			     ib_ci_op_t *op)
{
	soft_ca_t *ca = h;
	ib_api_status_t st;

	(void)prov_handles;
	(void)num_handles;
	switch (op->command) {
	case IBAL_SOFT_CI_PORT_STATE:
	case IBAL_SOFT_CI_PORT_LID:
		st = cmd_port(ca, op);
		break;
	case IBAL_SOFT_CI_CA_PRESENT:
		st = cmd_present(ca, op);
		break;
	default:
		st = IB_INVALID_SETTING;
		break;
	}
	op->num_bytes_ret = 0;
	if (st == IB_SUCCESS)
		op->status = 0;
	return st;
}
