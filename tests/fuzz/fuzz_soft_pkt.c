/*
 * ibal fuzzing: the soft fabric's packet parser (soft_pkt_parse), any bytes from a link.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Each input is parsed as a packet twice: with its CRCs checked, and with
 * SOFT_PARSE_NO_CRC (as a link without CRCs delivers, so that the fuzzer gets
 * past them). A packet that parses is built again from what the parser gave
 * and parsed once more: both parses must agree (headers, payload), and its
 * LRH and BTH are formatted as a capture decoder would. Seeds: packets of
 * every kind soft_pkt_build makes (UD with and without GRH, RC SEND, WRITE
 * with RETH and immediate, READ request and response with AETH, atomic and
 * atomic ACK).
 */
#include <string.h>
#include "soft_wire.h"
#include "fuzz.h"

static uint8_t payload[SOFT_MAX_PKT_LEN];

static void seed(const char *name, uint8_t lnh, uint8_t opcode, uint32_t payload_len)
{
	uint8_t buf[SOFT_MAX_PKT_LEN];
	soft_pkt_t p;
	size_t len = 0;

	memset(&p, 0, sizeof(p));
	p.lrh.lnh = lnh;
	p.lrh.dlid = 2;
	p.lrh.slid = 1;
	p.bth.opcode = opcode;
	p.bth.pkey = 0xFFFF;
	p.bth.dest_qp = 0x12;
	p.bth.psn = 0x100;
	p.deth.qkey = 0x80010000u;
	p.deth.src_qp = 0x34;
	p.reth.va = 0x1000;
	p.reth.rkey = 0x77;
	p.reth.dma_len = payload_len;
	p.aeth.syndrome = 0x1F;
	p.aeth.msn = 3;
	p.atomic_eth.va = 0x2000;
	p.atomic_eth.rkey = 0x78;
	p.atomic_eth.swap_add = 5;
	p.immdt.data = 0xABCD;
	if (lnh == SOFT_LNH_IBA_GLOBAL) {
		p.grh.hop_limit = 1;
		p.grh.src_gid.unicast.prefix = IB_DEFAULT_SUBNET_PREFIX;
		p.grh.dest_gid.unicast.prefix = IB_DEFAULT_SUBNET_PREFIX;
	}
	p.payload = payload;
	p.payload_len = payload_len;
	if (soft_pkt_build(&p, buf, sizeof(buf), &len) == SOFT_WIRE_OK)
		fuzz_seed(name, buf, len);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	memset(payload, 0x5A, sizeof(payload));
	seed("ud-send", SOFT_LNH_IBA_LOCAL, SOFT_OPCODE(SOFT_TRANSPORT_UD, SOFT_OP_SEND_ONLY), 64);
	seed("ud-send-grh", SOFT_LNH_IBA_GLOBAL, SOFT_OPCODE(SOFT_TRANSPORT_UD, SOFT_OP_SEND_ONLY_IMM), 256);
	seed("rc-send-first", SOFT_LNH_IBA_LOCAL, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_SEND_FIRST), 256);
	seed("rc-write-imm", SOFT_LNH_IBA_LOCAL, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_WRITE_ONLY_IMM), 13);
	seed("uc-write", SOFT_LNH_IBA_LOCAL, SOFT_OPCODE(SOFT_TRANSPORT_UC, SOFT_OP_WRITE_ONLY), 7);
	seed("rc-read-req", SOFT_LNH_IBA_LOCAL, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_READ_REQUEST), 0);
	seed("rc-read-resp", SOFT_LNH_IBA_LOCAL, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_READ_RESPONSE_ONLY), 100);
	seed("rc-ack", SOFT_LNH_IBA_LOCAL, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_ACKNOWLEDGE), 0);
	seed("rc-cmpswap", SOFT_LNH_IBA_LOCAL, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_COMPARE_SWAP), 0);
	seed("rc-atomic-ack", SOFT_LNH_IBA_LOCAL, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_ATOMIC_ACKNOWLEDGE), 0);
	return 0;
}

static void same(const soft_pkt_t *a, const soft_pkt_t *b)
{
	if (a->lrh.dlid != b->lrh.dlid || a->lrh.slid != b->lrh.slid || a->lrh.lnh != b->lrh.lnh ||
	    a->bth.opcode != b->bth.opcode || a->bth.psn != b->bth.psn ||
	    a->bth.dest_qp != b->bth.dest_qp || a->payload_len != b->payload_len ||
	    (a->payload_len && memcmp(a->payload, b->payload, a->payload_len)))
		abort();   /* the builder and the parser disagree */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t again[SOFT_MAX_PKT_LEN];
	char text[512];
	soft_pkt_t p, q;
	size_t len = 0;

	(void)soft_pkt_parse(data, size, &p);
	if (soft_pkt_parse_flags(data, size, SOFT_PARSE_NO_CRC, &p) != SOFT_WIRE_OK)
		return 0;
	(void)soft_hdr_format(SOFT_HDR_LRH, data, text, sizeof(text));
	(void)soft_hdr_format(SOFT_HDR_BTH, data + SOFT_LRH_LEN +
			      (p.lrh.lnh == SOFT_LNH_IBA_GLOBAL ? SOFT_GRH_LEN : 0), text, sizeof(text));
	if (soft_pkt_build(&p, again, sizeof(again), &len) != SOFT_WIRE_OK)
		return 0;   /* fields the parser takes that the builder refuses (reserved bits) */
	if (soft_pkt_parse(again, len, &q) != SOFT_WIRE_OK)
		abort();    /* what the builder makes, the parser must take */
	same(&p, &q);
	return 0;
}
