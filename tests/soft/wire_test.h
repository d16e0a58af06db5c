/*
 * ibal tests: what test_wire.c and test_wire_parse.c share: a deterministic
 * random generator and two packets known by heart (their images, ICRC and
 * VCRC computed bit-serially in Python).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#ifndef TESTS_SOFT_WIRE_TEST_H
#define TESTS_SOFT_WIRE_TEST_H

#include <stdint.h>
#include <string.h>
#include "soft_wire.h"

/* Deterministic generator (xorshift64*), so failures reproduce. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static inline uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

static inline uint32_t rnd_below(uint32_t n)
{
	return (uint32_t)(rnd() % n);
}

/* Hand-made images, ICRC and VCRC from a Python bit-serial computation. */
static const uint8_t kat_local[] = {
	0x30, 0x12, 0x00, 0x05, 0x00, 0x07, 0x00, 0x03, /* LRH: VL 3, SL 1, DLID 5, 7 words */
	0x04, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x12, /* BTH: RC SEND Only, QP 0x12 */
	0x80, 0x00, 0x00, 0x2A,                         /* A, PSN 42 */
	0x41, 0x42, 0x43, 0x44,                         /* "ABCD" */
	0xD3, 0x38, 0x1B, 0x71,                         /* ICRC 0x711B38D3 */
	0x7B, 0x06,                                     /* VCRC 0x067B */
};

static const uint8_t kat_global[] = {
	0x00, 0x03, 0x00, 0x10, 0x00, 0x15, 0x00, 0x20, /* LRH: LNH 3, DLID 0x10, 21 words */
	0x6A, 0xB1, 0x23, 0x45, 0x00, 0x24, 0x1B, 0x40, /* GRH: 6, AB, 12345, 36 bytes, 1B, 64 */
	0xFE, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* SGID */
	0x00, 0x02, 0xC9, 0x03, 0x00, 0x00, 0x00, 0x01,
	0xFE, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* DGID */
	0x00, 0x02, 0xC9, 0x03, 0x00, 0x00, 0x00, 0x02,
	0x65, 0x30, 0x80, 0x01, 0x00, 0x00, 0x00, 0x01, /* BTH: UD SEND Only Imm, pad 3, QP 1 */
	0x00, 0x12, 0x34, 0x56,                         /* PSN 0x123456 */
	0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, /* DETH: Q_Key 80010000, SrcQP 2 */
	0xDE, 0xAD, 0xBE, 0xEF,                         /* ImmDt */
	0x68, 0x65, 0x6C, 0x6C, 0x6F, 0x00, 0x00, 0x00, /* "hello" + pad */
	0x3C, 0xE6, 0x69, 0x7F,                         /* ICRC 0x7F69E63C */
	0x50, 0x05,                                     /* VCRC 0x0550 */
};

static inline void fill_kat_local(soft_pkt_t *p)
{
	memset(p, 0, sizeof(*p));
	p->lrh.vl = 3;
	p->lrh.sl = 1;
	p->lrh.lnh = SOFT_LNH_IBA_LOCAL;
	p->lrh.dlid = 5;
	p->lrh.slid = 3;
	p->bth.opcode = 0x04;
	p->bth.pkey = 0xFFFF;
	p->bth.dest_qp = 0x12;
	p->bth.ack_req = 1;
	p->bth.psn = 42;
	p->payload = (const uint8_t *)"ABCD";
	p->payload_len = 4;
}

static inline void fill_kat_global(soft_pkt_t *p)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->lrh.lnh = SOFT_LNH_IBA_GLOBAL;
	p->lrh.dlid = 0x10;
	p->lrh.slid = 0x20;
	p->grh.ver_class_flow = ib_grh_set_ver_class_flow(0, 0xAB, cl_hton32(0x12345));
	p->grh.hop_limit = 0x40;
	for (i = 0; i < 16; i++)
		p->grh.src_gid.raw[i] = p->grh.dest_gid.raw[i] = kat_global[16 + i];
	p->grh.dest_gid.raw[15] = 2;
	p->bth.opcode = 0x65;
	p->bth.pkey = 0x8001;
	p->bth.dest_qp = 1;
	p->bth.psn = 0x123456;
	p->deth.qkey = 0x80010000u;
	p->deth.src_qp = 2;
	p->immdt.data = 0xDEADBEEFu;
	p->payload = (const uint8_t *)"hello";
	p->payload_len = 5;
}

#endif /* TESTS_SOFT_WIRE_TEST_H */
