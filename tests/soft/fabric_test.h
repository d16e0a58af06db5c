/*
 * ibal tests: what the soft fabric's test programs share (test_fabric,
 * test_fabric_inject): a fabric directory per test, ports, and packets
 * made, sent and awaited.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#ifndef IBAL_TESTS_SOFT_FABRIC_TEST_H
#define IBAL_TESTS_SOFT_FABRIC_TEST_H

#include <stddef.h>
#include <stdint.h>
#include "soft_fabric.h"

#define WAIT_MS ((int)(TEST_WAIT_US / 1000u))
#define GUID(n) CL_HTON64(0x0002C90300000000ull + (n))
#define NODE(n) CL_HTON64(0x0002C90300100000ull + (n))
#define OP_UD_SEND_ONLY 0x64
#define OP_RC_SEND_ONLY 0x04
#define HDR_LEN 28 /* LRH 8 + BTH 12 + DETH 8 */
#define MLID 0xC001

/* The current test's fabric directory (fabric_begin). */
extern char fab_dir[256];

void fabric_begin(void);
void fabric_end(void);
soft_fabric_port_t *open_port(unsigned n);
void put16(uint8_t *p, uint16_t v);
uint16_t get16(const uint8_t *p);
size_t make_pkt(uint8_t *b, uint16_t dlid, uint16_t slid, uint8_t opcode, uint32_t seq,
		size_t payload);
uint32_t pkt_seq(const uint8_t *b);
void send_seq(soft_fabric_port_t *from, uint16_t dlid, uint32_t seq);
ib_api_status_t wait_recv(soft_fabric_port_t *port, uint8_t *buf, size_t cap, size_t *p_len,
			  int timeout_ms);
long recv_seq(soft_fabric_port_t *port);
boolean_t nothing_waiting(soft_fabric_port_t *port);
soft_fabric_stats_t stats_of(soft_fabric_port_t *port);
boolean_t sock_file_exists(uint16_t lid);

#endif /* IBAL_TESTS_SOFT_FABRIC_TEST_H */
