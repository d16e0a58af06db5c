/*
 * ibal tests: helpers shared by the tests that run the access layer in two processes.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * test_open_first_port() opens the access layer and the first CA and reads
 * port 1; test_oob_read() reads a message from the other process's pipe or
 * socket within a bound. Both return codes the caller can check in a child
 * (no CUnit asserts here).
 */
#ifndef TESTS_AL_PROCS_H
#define TESTS_AL_PROCS_H

#include <poll.h>
#include <stdlib.h>
#include <unistd.h>
#include <iba/ib_al.h>

/*
 * Opens the access layer and the first CA; *p_port receives port 1's
 * attributes (without its tables) and *p_gid its first GID.
 */
static inline ib_api_status_t test_open_first_port(ib_al_handle_t *ph_al, ib_ca_handle_t *ph_ca,
						   ib_port_attr_t *p_port, ib_gid_t *p_gid)
{
	ib_net64_t guid;
	size_t n = 1;
	uint32_t size = 0;
	ib_ca_attr_t *a;
	ib_api_status_t st;

	st = ib_open_al(ph_al);
	if (st == IB_SUCCESS)
		st = ib_get_ca_guids(*ph_al, &guid, &n);
	if (st == IB_SUCCESS)
		st = ib_open_ca(*ph_al, guid, NULL, NULL, ph_ca);
	if (st != IB_SUCCESS)
		return st;
	ib_query_ca(*ph_ca, NULL, &size);
	a = (ib_ca_attr_t *)malloc(size);
	if (!a)
		return IB_INSUFFICIENT_MEMORY;
	st = ib_query_ca(*ph_ca, a, &size);
	if (st == IB_SUCCESS) {
		*p_port = a->p_port_attr[0];
		*p_gid = a->p_port_attr[0].p_gid_table[0];
		p_port->p_gid_table = NULL;
		p_port->p_pkey_table = NULL;
	}
	free(a);
	return st;
}

/* Reads exactly @p len bytes from @p fd, each wait at most @p wait_ms; 0 on success. */
static inline int test_oob_read(int fd, void *buf, size_t len, int wait_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN, .revents = 0 };
	size_t got = 0;
	ssize_t r;

	while (got < len) {
		if (poll(&p, 1, wait_ms) != 1)
			return -1;
		r = read(fd, (char *)buf + got, len - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

#endif /* TESTS_AL_PROCS_H */
