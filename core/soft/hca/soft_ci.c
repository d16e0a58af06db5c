/*
 * ibal soft provider: ib_ci_call commands (inc/iba/ibal_soft.h): port state, LID, CA presence, drop filter.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Changes are made under ca->lock and announced through the CA's deferred
 * upcalls, so the core hears of them in order from the progress thread:
 * the async event first, then port_change (port_change with no context
 * and port 0 when the set of CAs changed).
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <iba/ibal_soft.h>
#include "soft_hca.h"
#include "ibal_time.h"

/* Port changes wake soft_ca_wait_active(). */
static pthread_mutex_t st_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t st_cond;
static pthread_once_t st_once = PTHREAD_ONCE_INIT;

static void st_init(void)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&st_cond, &a);
	pthread_condattr_destroy(&a);
}

/* Set while an agent answers an SMP: waiters are woken once the response
 * is on the wire (an opener must not run ahead of the SMA's reply). */
static __thread int kick_held, kick_pending;

static void st_kick(void)
{
	if (kick_held) {
		kick_pending = 1;
		return;
	}
	pthread_once(&st_once, st_init);
	pthread_mutex_lock(&st_lock);
	pthread_cond_broadcast(&st_cond);
	pthread_mutex_unlock(&st_lock);
}

static boolean_t all_active(soft_ca_t *ca)
{
	unsigned i;

	for (i = 0; i < ca->num_ports; i++)
		if (__atomic_load_n(&ca->port[i].link_state, __ATOMIC_ACQUIRE) != IB_LINK_ACTIVE)
			return FALSE;
	return TRUE;
}

void soft_port_kick_hold(boolean_t hold)
{
	kick_held = hold;
	if (!hold && kick_pending) {
		kick_pending = 0;
		st_kick();
	}
}

boolean_t soft_ca_wait_active(soft_ca_t *ca, uint32_t ms)
{
	struct timespec ts;
	boolean_t ok;

	pthread_once(&st_once, st_init);
	ts = ibal_time_after_us(CLOCK_MONOTONIC, (uint64_t)ms * 1000u);
	pthread_mutex_lock(&st_lock);
	while (!(ok = all_active(ca)))
		if (pthread_cond_timedwait(&st_cond, &st_lock, &ts) == ETIMEDOUT) {
			ok = all_active(ca);
			break;
		}
	pthread_mutex_unlock(&st_lock);
	return ok;
}

/* Queues the async event and the port change of one port; nothing while
 * the CA is being opened (the core learns the state from query_ca). */
void soft_port_announce(soft_port_t *port, ib_async_event_t code)
{
	soft_ca_t *ca = port->ca;

	if (__atomic_load_n(&ca->opening, __ATOMIC_ACQUIRE))
		return;
	if (code)
		soft_ca_defer(ca, ca, ca->al_ca, SOFT_UPCALL_ASYNC, code, port->num);
	soft_ca_defer(ca, ca, ca->al_ca, SOFT_UPCALL_PORT, 0, port->num);
}

static void announce(soft_port_t *port, ib_async_event_t code)
{
	soft_port_announce(port, code);
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
	/* Announce before waking soft_ca_wait_active(): the opener clears
	 * ca->opening once woken, and this change belongs to the open. */
	if (state == IB_LINK_ACTIVE)
		announce(port, IB_AE_PORT_ACTIVE);
	else if (old == IB_LINK_ACTIVE)
		announce(port, IB_AE_PORT_DOWN);
	else
		announce(port, (ib_async_event_t)0);
	st_kick();
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

static ib_api_status_t cmd_drop(ib_ci_op_t *op)
{
	ibal_soft_drop_ctl_t *c = (ibal_soft_drop_ctl_t *)arg(op, sizeof(*c));

	if (!c)
		return IB_INVALID_PARAMETER;
	soft_fabric_set_drop_filter(c->pfn_filter, c->pfn_filter ? c->context : NULL);
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
	case IBAL_SOFT_CI_DROP_FILTER:
		st = cmd_drop(op);
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
