/*
 * ibal tests: the soft provider's controls (iba/ibal_soft.h) through ib_ci_call.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * For tests written on the public API that take a soft CA's port down and
 * up or unplug the CA: soft_ctl() sends one IBAL_SOFT_CI_* command,
 * soft_set_port() and soft_set_present() the two the tests use most.
 * Include after iba/ib_al.h and iba/ibal_soft.h.
 */
#ifndef IBAL_TEST_SOFT_CTL_H
#define IBAL_TEST_SOFT_CTL_H

#include <string.h>

/* One IBAL_SOFT_CI_* command on a CA; ib_ci_call's status. */
static inline ib_api_status_t soft_ctl(ib_ca_handle_t h_ca, uint32_t command, void *p_buf,
				       uint32_t size)
{
	ib_ci_op_t op;

	memset(&op, 0, sizeof(op));
	op.command = command;
	op.p_buf = p_buf;
	op.buf_size = size;
	op.status = -1;
	return ib_ci_call(h_ca, NULL, 0, &op);
}

/* Sets the link state of a port (IB_LINK_DOWN .. IB_LINK_ACTIVE). */
static inline ib_api_status_t soft_set_port(ib_ca_handle_t h_ca, uint8_t port_num, uint8_t state)
{
	ibal_soft_port_ctl_t c;

	memset(&c, 0, sizeof(c));
	c.port_num = port_num;
	c.link_state = state;
	return soft_ctl(h_ca, IBAL_SOFT_CI_PORT_STATE, &c, sizeof(c));
}

/* Unplugs the CA (FALSE) or plugs it back (TRUE). */
static inline ib_api_status_t soft_set_present(ib_ca_handle_t h_ca, boolean_t present)
{
	ibal_soft_ca_ctl_t c;

	memset(&c, 0, sizeof(c));
	c.present = present;
	return soft_ctl(h_ca, IBAL_SOFT_CI_CA_PRESENT, &c, sizeof(c));
}

#endif /* IBAL_TEST_SOFT_CTL_H */
