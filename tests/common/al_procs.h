/*
 * ibal tests: helpers shared by the tests that run the access layer in two processes.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * test_open_first_port() opens the access layer and the first CA and reads
 * port 1; test_oob_read() reads a message from the other process's pipe or
 * socket within a bound; test_rc_connect() takes an RC QP to RTS towards a
 * peer by hand; test_port_counters() reads port 1's PortCounters. All return
 * codes the caller can check in a child (no CUnit asserts here).
 */
#ifndef TESTS_AL_PROCS_H
#define TESTS_AL_PROCS_H

#include <poll.h>
#include <stdlib.h>
#include <string.h>
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

/* How test_rc_connect() sets up a QP (the rest is fixed: port 1, retries 7, RNR timer code 1). */
typedef struct test_rc_link {
	ib_access_t access;      /* remote access the QP allows */
	uint8_t path_mtu;        /* IB_MTU_LEN_* */
	uint8_t ack_timeout;     /* local ACK timeout exponent (4.096 us * 2^n) */
	uint8_t depth;           /* responder resources and initiator depth */
	ib_net32_t psn;          /* both sides' starting PSN */
} test_rc_link_t;

/*
 * Takes @p qp RESET -> INIT -> RTR -> RTS towards QP @p dest_qpn at LID
 * @p dlid, as a connection manager would. 0, or -1/-2/-3 for the step that
 * failed.
 */
static inline int test_rc_connect(ib_qp_handle_t qp, ib_net16_t dlid, ib_net32_t dest_qpn,
				  const test_rc_link_t *l)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = 1;
	m.state.init.access_ctrl = l->access;
	if (ib_modify_qp(qp, &m) != IB_SUCCESS)
		return -1;
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTR;
	m.state.rtr.rq_psn = l->psn;
	m.state.rtr.dest_qp = dest_qpn;
	m.state.rtr.primary_av.port_num = 1;
	m.state.rtr.primary_av.dlid = dlid;
	m.state.rtr.primary_av.conn.path_mtu = l->path_mtu;
	m.state.rtr.primary_av.conn.local_ack_timeout = l->ack_timeout;
	m.state.rtr.primary_av.conn.seq_err_retry_cnt = 7;
	m.state.rtr.primary_av.conn.rnr_retry_cnt = 7;
	m.state.rtr.resp_res = l->depth;
	m.state.rtr.rnr_nak_timeout = 1;
	if (ib_modify_qp(qp, &m) != IB_SUCCESS)
		return -2;
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.sq_psn = l->psn;
	m.state.rts.retry_cnt = 7;
	m.state.rts.rnr_retry_cnt = 7;
	m.state.rts.local_ack_timeout = l->ack_timeout;
	m.state.rts.init_depth = l->depth;
	return ib_modify_qp(qp, &m) == IB_SUCCESS ? 0 : -3;
}

/* Some PortCounters of a port (IBA 16.1.3.5). */
typedef struct test_port_counters {
	uint32_t xmit_discards; /* PortXmitDiscards */
	uint32_t xmit_pkts;     /* PortXmitPkts */
	uint32_t rcv_pkts;      /* PortRcvPkts */
} test_port_counters_t;

/* A big-endian 32-bit field. */
static inline uint32_t test_be32_at(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* Port 1's PortCounters through the PMA (ib_local_mad, PerfMgt Get); 0 or -1. */
static inline int test_port_counters(ib_ca_handle_t ca, test_port_counters_t *c)
{
	uint8_t in[256], out[256];
	ib_net16_t attr = IB_MAD_ATTR_PORT_CNTRS;
	const uint8_t *d = out + 64; /* the attribute, after the MAD header */

	memset(in, 0, sizeof(in));
	in[0] = 1;              /* base version */
	in[1] = IB_MCLASS_PERF; /* management class */
	in[2] = 1;              /* class version */
	in[3] = IB_MAD_METHOD_GET;
	memcpy(in + 16, &attr, sizeof(attr));
	in[8 + 7] = 0x5C;       /* transaction ID */
	in[64 + 1] = 1;         /* PortSelect */
	if (ib_local_mad(ca, 1, in, out) != IB_SUCCESS || out[4] || out[5])
		return -1;
	c->xmit_discards = (uint32_t)((d[14] << 8) | d[15]);
	c->xmit_pkts = test_be32_at(d + 32);
	c->rcv_pkts = test_be32_at(d + 36);
	return 0;
}

#endif /* TESTS_AL_PROCS_H */
