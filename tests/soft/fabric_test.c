/*
 * ibal tests: what the soft fabric's test programs share (fabric_test.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "soft_fabric.h"
#include "soft_wire.h"
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "fabric_test.h"

char fab_dir[256];

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

/* A new fabric directory for this test, no injection, the default wait. */
void fabric_begin(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(fab_dir, sizeof(fab_dir), "%s/ibal-fab-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv(SOFT_FABRIC_ENV_DIR, fab_dir, 1);
	unsetenv(SOFT_FABRIC_ENV_DROP_PCT);
	unsetenv(SOFT_FABRIC_ENV_SEED);
	unsetenv(SOFT_FABRIC_ENV_DELAY_US);
	unsetenv(SOFT_FABRIC_ENV_PCAP);
	unsetenv(SOFT_FABRIC_ENV_PCAP_LINKTYPE);
}

void fabric_end(void)
{
	test_rm_tree(fab_dir);
	unsetenv(SOFT_FABRIC_ENV_DIR);
}

soft_fabric_port_t *open_port(unsigned n)
{
	soft_fabric_port_t *port = NULL;

	CU_ASSERT_EQUAL(soft_fabric_port_open(GUID(n), NODE(n), 1, &port), IB_SUCCESS);
	return port;
}

void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

uint16_t get16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

/*
 * A UD SEND Only packet: LRH (VL 0, LNH IBA local), BTH, DETH, @p payload
 * bytes of which the first four hold @p seq, then ICRC and VCRC (left zero:
 * the fabric carries bytes and does not check them).
 */
size_t make_pkt(uint8_t *b, uint16_t dlid, uint16_t slid, uint8_t opcode, uint32_t seq,
		size_t payload)
{
	size_t len = HDR_LEN + payload + 6;

	memset(b, 0, len);
	b[1] = 0x02; /* SL 0, LNH 2 */
	put16(b + 2, dlid);
	put16(b + 4, (uint16_t)((len - 2) / 4));
	put16(b + 6, slid);
	b[8] = opcode;
	put16(b + 10, 0xFFFF); /* P_Key */
	b[15] = 1;             /* DestQP 1 */
	b[19] = (uint8_t)seq;  /* PSN */
	b[HDR_LEN + 0] = (uint8_t)(seq >> 24);
	b[HDR_LEN + 1] = (uint8_t)(seq >> 16);
	b[HDR_LEN + 2] = (uint8_t)(seq >> 8);
	b[HDR_LEN + 3] = (uint8_t)seq;
	return len;
}

uint32_t pkt_seq(const uint8_t *b)
{
	return ((uint32_t)b[HDR_LEN] << 24) | ((uint32_t)b[HDR_LEN + 1] << 16) |
	       ((uint32_t)b[HDR_LEN + 2] << 8) | b[HDR_LEN + 3];
}

void send_seq(soft_fabric_port_t *from, uint16_t dlid, uint32_t seq)
{
	uint8_t b[256];
	size_t len = make_pkt(b, dlid, soft_fabric_port_lid(from), OP_UD_SEND_ONLY, seq, 16);

	CU_ASSERT_EQUAL(soft_fabric_send(from, b, len), IB_SUCCESS);
}

/* Waits (poll, bounded) for the next packet; IB_SUCCESS or IB_TIMEOUT. */
ib_api_status_t wait_recv(soft_fabric_port_t *port, uint8_t *buf, size_t cap, size_t *p_len,
			  int timeout_ms)
{
	uint64_t end = test_now_ms() + (uint64_t)timeout_ms;
	ib_api_status_t status;

	for (;;) {
		struct pollfd pfd = { .fd = soft_fabric_port_fd(port), .events = POLLIN };
		uint64_t now;

		status = soft_fabric_recv(port, buf, cap, p_len);
		if (status != IB_NOT_FOUND)
			return status;
		now = test_now_ms();
		if (now >= end)
			return IB_TIMEOUT;
		/* A record a sender has claimed but not written raises no doorbell:
		 * look again every 10 ms. */
		poll(&pfd, 1, end - now < 10 ? (int)(end - now) : 10);
	}
}

/* Receives one packet (waiting for it) and returns its sequence number, or -1. */
long recv_seq(soft_fabric_port_t *port)
{
	uint8_t b[SOFT_FABRIC_MAX_PACKET];
	size_t len = 0;

	if (wait_recv(port, b, sizeof(b), &len, WAIT_MS) != IB_SUCCESS || len < HDR_LEN + 4)
		return -1;
	return (long)pkt_seq(b);
}

boolean_t nothing_waiting(soft_fabric_port_t *port)
{
	uint8_t b[SOFT_FABRIC_MAX_PACKET];
	size_t len;

	return soft_fabric_recv(port, b, sizeof(b), &len) == IB_NOT_FOUND;
}

soft_fabric_stats_t stats_of(soft_fabric_port_t *port)
{
	soft_fabric_stats_t s;

	soft_fabric_port_stats(port, &s);
	return s;
}

boolean_t sock_file_exists(uint16_t lid)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/lid-%04x", fab_dir, lid);
	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}
