/*
 * ibal tests: soft provider packets built and parsed: every opcode round
 * trip, build errors, what a parser must refuse, and mutated packets.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Random packets come from wire_test.h's deterministic generator, so a
 * failure reproduces.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "soft_wire.h"
#include "../common/cl_test.h"
#include "wire_test.h"

/* ------------------------------------------------------------------------ */
/* Build and parse                                                           */
/* ------------------------------------------------------------------------ */

static void random_pkt(soft_pkt_t *p, uint8_t opcode, boolean_t global, uint32_t payload_len,
		       const uint8_t *payload)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->lrh.vl = (uint8_t)rnd_below(16);
	p->lrh.sl = (uint8_t)rnd_below(16);
	p->lrh.lnh = global ? SOFT_LNH_IBA_GLOBAL : SOFT_LNH_IBA_LOCAL;
	p->lrh.dlid = (uint16_t)rnd();
	p->lrh.slid = (uint16_t)rnd();
	if (global) {
		p->grh.ver_class_flow = ib_grh_set_ver_class_flow(6, (uint8_t)rnd(),
								  cl_hton32((uint32_t)rnd()));
		p->grh.hop_limit = (uint8_t)rnd();
		for (i = 0; i < 16; i++) {
			p->grh.src_gid.raw[i] = (uint8_t)rnd();
			p->grh.dest_gid.raw[i] = (uint8_t)rnd();
		}
	}
	p->bth.opcode = opcode;
	p->bth.se = (uint8_t)rnd_below(2);
	p->bth.mig = (uint8_t)rnd_below(2);
	p->bth.pkey = (uint16_t)rnd();
	p->bth.dest_qp = (uint32_t)rnd() & SOFT_QPN_MASK;
	p->bth.ack_req = (uint8_t)rnd_below(2);
	p->bth.psn = (uint32_t)rnd() & SOFT_PSN_MASK;
	p->deth.qkey = (uint32_t)rnd();
	p->deth.src_qp = (uint32_t)rnd() & SOFT_QPN_MASK;
	p->reth.va = rnd();
	p->reth.rkey = (uint32_t)rnd();
	p->reth.dma_len = (uint32_t)rnd();
	p->aeth.syndrome = (uint8_t)rnd();
	p->aeth.msn = (uint32_t)rnd() & SOFT_MSN_MASK;
	p->atomic_eth.va = rnd();
	p->atomic_eth.rkey = (uint32_t)rnd();
	p->atomic_eth.swap_add = rnd();
	p->atomic_eth.compare = rnd();
	p->atomic_ack.orig = rnd();
	p->immdt.data = (uint32_t)rnd();
	p->ieth.rkey = (uint32_t)rnd();
	p->payload = payload;
	p->payload_len = payload_len;
}

/* Compares what a parse gives back with what was built. */
static void check_same(const soft_pkt_t *a, const soft_pkt_t *b)
{
	const soft_opcode_info_t *info = soft_opcode_info(a->bth.opcode);

	CU_ASSERT_EQUAL(a->lrh.vl, b->lrh.vl);
	CU_ASSERT_EQUAL(a->lrh.sl, b->lrh.sl);
	CU_ASSERT_EQUAL(a->lrh.lnh, b->lrh.lnh);
	CU_ASSERT_EQUAL(a->lrh.dlid, b->lrh.dlid);
	CU_ASSERT_EQUAL(a->lrh.slid, b->lrh.slid);
	if (a->lrh.lnh == SOFT_LNH_IBA_GLOBAL) {
		CU_ASSERT_EQUAL(a->grh.ver_class_flow, b->grh.ver_class_flow);
		CU_ASSERT_EQUAL(a->grh.hop_limit, b->grh.hop_limit);
		CU_ASSERT_EQUAL(memcmp(&a->grh.src_gid, &b->grh.src_gid, 16), 0);
		CU_ASSERT_EQUAL(memcmp(&a->grh.dest_gid, &b->grh.dest_gid, 16), 0);
	}
	CU_ASSERT_EQUAL(a->bth.opcode, b->bth.opcode);
	CU_ASSERT_EQUAL(a->bth.se, b->bth.se);
	CU_ASSERT_EQUAL(a->bth.mig, b->bth.mig);
	CU_ASSERT_EQUAL(a->bth.pkey, b->bth.pkey);
	CU_ASSERT_EQUAL(a->bth.dest_qp, b->bth.dest_qp);
	CU_ASSERT_EQUAL(a->bth.ack_req, b->bth.ack_req);
	CU_ASSERT_EQUAL(a->bth.psn, b->bth.psn);
	CU_ASSERT_PTR_NOT_NULL_FATAL(info);
	if (info->hdrs & SOFT_HDRF_DETH)
		CU_ASSERT_EQUAL(memcmp(&a->deth, &b->deth, sizeof(a->deth)), 0);
	if (info->hdrs & SOFT_HDRF_RETH)
		CU_ASSERT_EQUAL(memcmp(&a->reth, &b->reth, sizeof(a->reth)), 0);
	if (info->hdrs & SOFT_HDRF_AETH) {
		CU_ASSERT_EQUAL(a->aeth.syndrome, b->aeth.syndrome);
		CU_ASSERT_EQUAL(a->aeth.msn, b->aeth.msn);
	}
	if (info->hdrs & SOFT_HDRF_ATOMIC_ETH) {
		CU_ASSERT_EQUAL(a->atomic_eth.va, b->atomic_eth.va);
		CU_ASSERT_EQUAL(a->atomic_eth.rkey, b->atomic_eth.rkey);
		CU_ASSERT_EQUAL(a->atomic_eth.swap_add, b->atomic_eth.swap_add);
		CU_ASSERT_EQUAL(a->atomic_eth.compare, b->atomic_eth.compare);
	}
	if (info->hdrs & SOFT_HDRF_ATOMIC_ACK_ETH)
		CU_ASSERT_EQUAL(a->atomic_ack.orig, b->atomic_ack.orig);
	if (info->hdrs & SOFT_HDRF_IMMDT)
		CU_ASSERT_EQUAL(a->immdt.data, b->immdt.data);
	if (info->hdrs & SOFT_HDRF_IETH)
		CU_ASSERT_EQUAL(a->ieth.rkey, b->ieth.rkey);
	CU_ASSERT_EQUAL(a->payload_len, b->payload_len);
	if (a->payload_len && b->payload_len == a->payload_len)
		CU_ASSERT_EQUAL(memcmp(a->payload, b->payload, a->payload_len), 0);
}

/* Payload sizes worth trying for an opcode. */
static unsigned payload_sizes(const soft_opcode_info_t *info, uint32_t *sizes)
{
	static const uint32_t any[] = { 0, 1, 2, 3, 4, 5, 255, 256, 1023, 4095, SOFT_MAX_PAYLOAD };
	static const uint32_t full[] = { 4, 256, 1024, 2048, SOFT_MAX_PAYLOAD };
	unsigned n = 0, i;

	if (!(info->flags & SOFT_OPF_PAYLOAD)) {
		sizes[n++] = 0;
	} else if (info->flags & (SOFT_OPF_FIRST | SOFT_OPF_MIDDLE)) {
		for (i = 0; i < TEST_COUNT(full); i++)
			sizes[n++] = full[i];
	} else {
		for (i = 0; i < TEST_COUNT(any); i++)
			sizes[n++] = any[i];
	}
	return n;
}

static uint8_t payload_src[SOFT_MAX_PAYLOAD];

static void test_round_trip_every_opcode(void)
{
	uint8_t *buf = (uint8_t *)malloc(SOFT_MAX_PKT_LEN);
	unsigned op, g, k, n, built = 0;
	uint32_t sizes[16];

	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	for (k = 0; k < sizeof(payload_src); k++)
		payload_src[k] = (uint8_t)rnd();
	for (op = 0; op < 256; op++) {
		const soft_opcode_info_t *info = soft_opcode_info((uint8_t)op);

		if (!info)
			continue;
		n = payload_sizes(info, sizes);
		for (g = 0; g < 2; g++)
			for (k = 0; k < n; k++) {
				soft_pkt_t p, q;
				size_t len = 0, hdr = 0;
				const uint8_t *bth;
				soft_wire_status_t st;

				random_pkt(&p, (uint8_t)op, g == 1, sizes[k], payload_src);
				st = soft_pkt_build(&p, buf, SOFT_MAX_PKT_LEN, &len);
				CU_ASSERT_EQUAL_FATAL(st, SOFT_WIRE_OK);
				built++;
				CU_ASSERT_EQUAL(len, soft_pkt_len(&p));
				CU_ASSERT_EQUAL(len % 4, 2);
				CU_ASSERT_TRUE(len <= SOFT_MAX_PKT_LEN);
				CU_ASSERT_EQUAL(soft_lrh_pkt_len(buf) * 4u + 2u, len);
				bth = soft_pkt_bth(buf);
				CU_ASSERT_EQUAL(soft_bth_pad_cnt(bth), (4 - sizes[k] % 4) % 4);
				CU_ASSERT_EQUAL(soft_bth_psn(bth), p.bth.psn);
				CU_ASSERT_EQUAL(soft_bth_dest_qp(bth), p.bth.dest_qp);
				CU_ASSERT_EQUAL(soft_lrh_dlid(buf), p.lrh.dlid);
				CU_ASSERT_EQUAL(soft_pkt_build_hdrs(&p, buf, len, &hdr),
						SOFT_WIRE_OK);
				CU_ASSERT_EQUAL(hdr, soft_pkt_hdr_len(&p));
				CU_ASSERT_EQUAL(hdr, len - 6 - sizes[k] - (4 - sizes[k] % 4) % 4);
				CU_ASSERT_EQUAL_FATAL(soft_pkt_parse(buf, len, &q), SOFT_WIRE_OK);
				check_same(&p, &q);
				CU_ASSERT_EQUAL(q.lrh.pkt_len * 4u + 2u, len);
				if (g) {
					uint8_t ver;
					CU_ASSERT_EQUAL(cl_ntoh16(q.grh.resv1), len - 2 - 48);
					CU_ASSERT_EQUAL(q.grh.resv2, SOFT_GRH_NXTHDR_IBA);
					ib_grh_get_ver_class_flow(q.grh.ver_class_flow, &ver,
								  NULL, NULL);
					CU_ASSERT_EQUAL(ver, 6);
				}
			}
	}
	CU_ASSERT_TRUE(built > 37 * 2);
	free(buf);
}

static void test_build_errors(void)
{
	soft_pkt_t p;
	uint8_t buf[SOFT_MAX_PKT_LEN];
	size_t len = 12345;

	fill_kat_local(&p);
	CU_ASSERT_EQUAL(soft_pkt_build(NULL, buf, sizeof(buf), &len), SOFT_WIRE_ERR_ARG);
	CU_ASSERT_EQUAL(soft_pkt_build(&p, NULL, sizeof(buf), &len), SOFT_WIRE_ERR_ARG);
	CU_ASSERT_EQUAL(soft_pkt_build_hdrs(NULL, buf, sizeof(buf), &len), SOFT_WIRE_ERR_ARG);
	CU_ASSERT_EQUAL(len, 12345);
	/* Too small, by one byte, then big enough. */
	CU_ASSERT_EQUAL(soft_pkt_build(&p, buf, sizeof(kat_local) - 1, &len), SOFT_WIRE_ERR_SPACE);
	CU_ASSERT_EQUAL(soft_pkt_build(&p, buf, sizeof(kat_local), &len), SOFT_WIRE_OK);
	CU_ASSERT_EQUAL(soft_pkt_build_hdrs(&p, buf, 19, &len), SOFT_WIRE_ERR_SPACE);
	CU_ASSERT_EQUAL(soft_pkt_build_hdrs(&p, buf, 20, &len), SOFT_WIRE_OK);
	CU_ASSERT_EQUAL(len, 20);
	/* Argument errors win over space errors. */
	p.lrh.vl = 16;
	CU_ASSERT_EQUAL(soft_pkt_build(&p, buf, 4, &len), SOFT_WIRE_ERR_ARG);
	CU_ASSERT_EQUAL(soft_pkt_build(&p, buf, sizeof(buf), &len), SOFT_WIRE_ERR_ARG);
	fill_kat_local(&p);
	p.lrh.lnh = SOFT_LNH_RAW;
	CU_ASSERT_EQUAL(soft_pkt_build(&p, buf, sizeof(buf), &len), SOFT_WIRE_ERR_ARG);
	CU_ASSERT_EQUAL(soft_pkt_len(&p), 0);
	CU_ASSERT_EQUAL(soft_pkt_hdr_len(&p), 0);
	fill_kat_local(&p);
	p.bth.opcode = 0x40; /* RD SEND First */
	CU_ASSERT_EQUAL(soft_pkt_build(&p, buf, sizeof(buf), &len), SOFT_WIRE_ERR_ARG);
	fill_kat_local(&p);
	p.bth.psn = 0x1000000;
	CU_ASSERT_EQUAL(soft_pkt_build(&p, buf, sizeof(buf), &len), SOFT_WIRE_ERR_ARG);
	fill_kat_local(&p);
	p.bth.se = 2;
	CU_ASSERT_EQUAL(soft_pkt_build(&p, buf, sizeof(buf), &len), SOFT_WIRE_ERR_ARG);
	fill_kat_local(&p);
	p.payload = NULL;
	CU_ASSERT_EQUAL(soft_pkt_build(&p, buf, sizeof(buf), &len), SOFT_WIRE_ERR_ARG);
	fill_kat_local(&p);
	p.payload_len = SOFT_MAX_PAYLOAD + 1;
	p.payload = payload_src;
	CU_ASSERT_EQUAL(soft_pkt_build(&p, buf, sizeof(buf), &len), SOFT_WIRE_ERR_ARG);
	fill_kat_local(&p);
	p.bth.opcode = 0x11; /* ACK carries no payload */
	CU_ASSERT_EQUAL(soft_pkt_build(&p, buf, sizeof(buf), &len), SOFT_WIRE_ERR_ARG);
	p.payload_len = 0;
	p.aeth.msn = 0x1000000;
	CU_ASSERT_EQUAL(soft_pkt_build(&p, buf, sizeof(buf), &len), SOFT_WIRE_ERR_ARG);
	p.aeth.msn = 1;
	CU_ASSERT_EQUAL(soft_pkt_build(&p, buf, sizeof(buf), &len), SOFT_WIRE_OK);
	CU_ASSERT_EQUAL(len, 8 + 12 + 4 + 6);
	fill_kat_local(&p);
	p.bth.opcode = 0x00; /* SEND First: a whole PMTU, never padded */
	p.payload_len = 3;
	CU_ASSERT_EQUAL(soft_pkt_build(&p, buf, sizeof(buf), &len), SOFT_WIRE_ERR_ARG);
	p.payload_len = 0;
	CU_ASSERT_EQUAL(soft_pkt_build(&p, buf, sizeof(buf), &len), SOFT_WIRE_ERR_ARG);
	p.payload_len = 4;
	CU_ASSERT_EQUAL(soft_pkt_build(&p, buf, sizeof(buf), &len), SOFT_WIRE_OK);
	/* Seal refuses impossible lengths. */
	CU_ASSERT_EQUAL(soft_pkt_seal(NULL, 30), SOFT_WIRE_ERR_ARG);
	CU_ASSERT_EQUAL(soft_pkt_seal(buf, SOFT_MIN_PKT_LEN - 1), SOFT_WIRE_ERR_ARG);
	CU_ASSERT_STRING_EQUAL(soft_wire_strerror(SOFT_WIRE_ERR_ICRC), "SOFT_WIRE_ERR_ICRC");
	CU_ASSERT_STRING_EQUAL(soft_wire_strerror(SOFT_WIRE_OK), "SOFT_WIRE_OK");
	CU_ASSERT_STRING_EQUAL(soft_wire_strerror(SOFT_WIRE_STATUS_COUNT), "SOFT_WIRE_UNKNOWN");
}

/* Copies a packet into an exactly sized heap block, so that ASan sees over-reads. */
static soft_wire_status_t parse_exact(const uint8_t *img, size_t len, soft_pkt_t *out)
{
	uint8_t *copy = (uint8_t *)malloc(len ? len : 1);
	soft_wire_status_t st;

	memcpy(copy, img, len);
	st = soft_pkt_parse(copy, len, out);
	if (st == SOFT_WIRE_OK && out->payload_len) {
		CU_ASSERT_TRUE(out->payload >= copy &&
			       out->payload + out->payload_len <= copy + len - 6);
	}
	free(copy);
	return st;
}

/* Rewrites PktLen (and GRH:PayLen) for a new total length, then reseals. */
static void relength(uint8_t *p, size_t len)
{
	p[4] = (uint8_t)((p[4] & 0xF8) | (((len - 2) / 4) >> 8));
	p[5] = (uint8_t)((len - 2) / 4);
	soft_pkt_seal(p, len);
}

static void test_parse_rejects(void)
{
	uint8_t b[256];
	size_t n = sizeof(kat_local), ng = sizeof(kat_global);
	soft_pkt_t q;

	CU_ASSERT_EQUAL(soft_pkt_parse(NULL, n, &q), SOFT_WIRE_ERR_ARG);
	CU_ASSERT_EQUAL(soft_pkt_parse(kat_local, n, NULL), SOFT_WIRE_ERR_ARG);
	CU_ASSERT_EQUAL(parse_exact(kat_local, 0, &q), SOFT_WIRE_ERR_SHORT);
	CU_ASSERT_EQUAL(parse_exact(kat_local, 7, &q), SOFT_WIRE_ERR_SHORT);
	CU_ASSERT_EQUAL(parse_exact(kat_local, 25, &q), SOFT_WIRE_ERR_SHORT);
	CU_ASSERT_EQUAL(parse_exact(kat_global, 60, &q), SOFT_WIRE_ERR_SHORT);
	/* Truncated or extended: PktLen disagrees. */
	CU_ASSERT_EQUAL(parse_exact(kat_local, n - 1, &q), SOFT_WIRE_ERR_LENGTH);
	memcpy(b, kat_local, n);
	b[n] = 0;
	CU_ASSERT_EQUAL(parse_exact(b, n + 1, &q), SOFT_WIRE_ERR_LENGTH);
	CU_ASSERT_EQUAL(parse_exact(b, n + 4, &q), SOFT_WIRE_ERR_LENGTH);
	/* Raw and IP packets. */
	memcpy(b, kat_local, n);
	b[1] &= 0xFC;
	CU_ASSERT_EQUAL(parse_exact(b, n, &q), SOFT_WIRE_ERR_LNH);
	b[1] |= 1;
	CU_ASSERT_EQUAL(parse_exact(b, n, &q), SOFT_WIRE_ERR_LNH);
	/* CRCs. */
	memcpy(b, kat_local, n);
	b[n - 1] ^= 0x80;
	CU_ASSERT_EQUAL(parse_exact(b, n, &q), SOFT_WIRE_ERR_VCRC);
	memcpy(b, kat_local, n);
	b[21] ^= 0x01; /* payload */
	CU_ASSERT_EQUAL(parse_exact(b, n, &q), SOFT_WIRE_ERR_VCRC);
	b[n - 2] = (uint8_t)soft_vcrc(b, n - 2);
	b[n - 1] = (uint8_t)(soft_vcrc(b, n - 2) >> 8);
	CU_ASSERT_EQUAL(parse_exact(b, n, &q), SOFT_WIRE_ERR_ICRC);
	memcpy(b, kat_local, n);
	b[n - 6] ^= 0x01; /* the ICRC itself, VCRC fixed */
	b[n - 2] = (uint8_t)soft_vcrc(b, n - 2);
	b[n - 1] = (uint8_t)(soft_vcrc(b, n - 2) >> 8);
	CU_ASSERT_EQUAL(parse_exact(b, n, &q), SOFT_WIRE_ERR_ICRC);
	/* A switch changing the VL only needs a new VCRC. */
	memcpy(b, kat_local, n);
	b[0] = 0x70;
	b[n - 2] = (uint8_t)soft_vcrc(b, n - 2);
	b[n - 1] = (uint8_t)(soft_vcrc(b, n - 2) >> 8);
	CU_ASSERT_EQUAL(parse_exact(b, n, &q), SOFT_WIRE_OK);
	CU_ASSERT_EQUAL(q.lrh.vl, 7);
	/* Versions. */
	memcpy(b, kat_local, n);
	b[0] |= 0x01; /* LVer */
	soft_pkt_seal(b, n);
	CU_ASSERT_EQUAL(parse_exact(b, n, &q), SOFT_WIRE_ERR_VERSION);
	memcpy(b, kat_local, n);
	b[9] |= 0x01; /* TVer */
	soft_pkt_seal(b, n);
	CU_ASSERT_EQUAL(parse_exact(b, n, &q), SOFT_WIRE_ERR_VERSION);
	memcpy(b, kat_global, ng);
	b[8] = (uint8_t)((b[8] & 0x0F) | 0x40); /* IPVer 4 */
	soft_pkt_seal(b, ng);
	CU_ASSERT_EQUAL(parse_exact(b, ng, &q), SOFT_WIRE_ERR_VERSION);
	memcpy(b, kat_global, ng);
	b[14] = 0x11; /* NxtHdr */
	soft_pkt_seal(b, ng);
	CU_ASSERT_EQUAL(parse_exact(b, ng, &q), SOFT_WIRE_ERR_VERSION);
	memcpy(b, kat_global, ng);
	b[13] += 4; /* PayLen */
	soft_pkt_seal(b, ng);
	CU_ASSERT_EQUAL(parse_exact(b, ng, &q), SOFT_WIRE_ERR_LENGTH);
	/* Opcodes: RD, reserved RC, UD other than SEND Only, CNP. */
	{
		static const uint8_t bad_ops[] = { 0x40, 0x15, 0x18, 0x1F, 0x2C,
						   0x60, 0x66, 0x80, 0xA0, 0xFF };
		unsigned i;

		for (i = 0; i < sizeof(bad_ops); i++) {
			memcpy(b, kat_local, n);
			b[8] = bad_ops[i];
			soft_pkt_seal(b, n);
			CU_ASSERT_EQUAL(parse_exact(b, n, &q), SOFT_WIRE_ERR_OPCODE);
		}
	}
	/* Extended headers longer than the packet: RC WRITE First needs a 16-byte RETH. */
	memcpy(b, kat_local, n);
	b[8] = 0x06;
	b[9] = 0x00;
	soft_pkt_seal(b, n); /* 4 bytes after the BTH */
	CU_ASSERT_EQUAL(parse_exact(b, n, &q), SOFT_WIRE_ERR_SHORT);
	memcpy(b, kat_local, n);
	b[8] = 0x13; /* CmpSwap, AtomicETH is 28 bytes */
	soft_pkt_seal(b, n);
	CU_ASSERT_EQUAL(parse_exact(b, n, &q), SOFT_WIRE_ERR_SHORT);
	/* Pad count and payload size. */
	memcpy(b, kat_local, n);
	b[9] = 0x30; /* PadCnt 3 of a 4-byte payload: fine, 1 byte of payload */
	soft_pkt_seal(b, n);
	CU_ASSERT_EQUAL(parse_exact(b, n, &q), SOFT_WIRE_OK);
	CU_ASSERT_EQUAL(q.payload_len, 1);
	memcpy(b, kat_local, n);
	b[8] = 0x11; /* ACK with 4 payload bytes: AETH takes them, fine */
	soft_pkt_seal(b, n);
	CU_ASSERT_EQUAL(parse_exact(b, n, &q), SOFT_WIRE_OK);
	CU_ASSERT_EQUAL(q.aeth.syndrome, 0x41);
	b[9] = 0x10; /* ... but not with a pad count */
	soft_pkt_seal(b, n);
	CU_ASSERT_EQUAL(parse_exact(b, n, &q), SOFT_WIRE_ERR_PAD);
	memcpy(b, kat_local, n);
	b[8] = 0x11; /* ACK with 4 more bytes than the AETH */
	memset(b + n - 6, 0, 10);
	relength(b, n + 4);
	CU_ASSERT_EQUAL(parse_exact(b, n + 4, &q), SOFT_WIRE_ERR_PAD);
	memcpy(b, kat_local, n);
	b[8] = 0x0C; /* READ Request: exactly a RETH */
	memset(b + n - 6, 0, 20);
	relength(b, n + 12);
	CU_ASSERT_EQUAL(parse_exact(b, n + 12, &q), SOFT_WIRE_OK);
	relength(b, n + 16);
	CU_ASSERT_EQUAL(parse_exact(b, n + 16, &q), SOFT_WIRE_ERR_PAD);
	memcpy(b, kat_local, n);
	b[8] = 0x00; /* SEND First with a pad count */
	b[9] = 0x10;
	soft_pkt_seal(b, n);
	CU_ASSERT_EQUAL(parse_exact(b, n, &q), SOFT_WIRE_ERR_PAD);
	memcpy(b, kat_local, n);
	b[8] = 0x01; /* SEND Middle with no payload */
	relength(b, n - 4);
	CU_ASSERT_EQUAL(parse_exact(b, n - 4, &q), SOFT_WIRE_ERR_PAD);
	memcpy(b, kat_local, n);
	relength(b, n - 4); /* SEND Only with no payload and pad count 0: fine */
	CU_ASSERT_EQUAL(parse_exact(b, n - 4, &q), SOFT_WIRE_OK);
	CU_ASSERT_EQUAL(q.payload_len, 0);
	CU_ASSERT_PTR_NULL(q.payload);
	b[9] = 0x20;
	soft_pkt_seal(b, n - 4);
	CU_ASSERT_EQUAL(parse_exact(b, n - 4, &q), SOFT_WIRE_ERR_PAD);
}

static void test_parse_too_long(void)
{
	uint8_t *b = (uint8_t *)calloc(1, SOFT_MAX_PKT_LEN + 8);
	soft_pkt_t p, q;
	size_t len = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	/* A local UD packet whose payload is over 4096 bytes but fits the maximum length. */
	random_pkt(&p, 0x64, FALSE, SOFT_MAX_PAYLOAD, payload_src);
	CU_ASSERT_EQUAL(soft_pkt_build(&p, b, SOFT_MAX_PKT_LEN, &len), SOFT_WIRE_OK);
	CU_ASSERT_EQUAL(parse_exact(b, len, &q), SOFT_WIRE_OK);
	relength(b, len + 4);
	CU_ASSERT_EQUAL(parse_exact(b, len + 4, &q), SOFT_WIRE_ERR_PAD);
	/* Longer than any packet. */
	relength(b, SOFT_MAX_PKT_LEN + 4);
	CU_ASSERT_EQUAL(parse_exact(b, SOFT_MAX_PKT_LEN + 4, &q), SOFT_WIRE_ERR_LENGTH);
	free(b);
}

/*
 * Random mutations of valid packets: flipped bits, random bytes, cut or
 * extended lengths, with and without fixing the CRCs afterwards. Parsing
 * must never crash or read outside the buffer (exact-size heap copies under
 * ASan/valgrind); whatever it accepts must rebuild and parse to the same.
 */
static void test_fuzz_mutations(void)
{
	static const uint8_t ops[] = { 0x00, 0x04, 0x05, 0x06, 0x0A, 0x0B, 0x0C, 0x0D, 0x10, 0x11,
				       0x12, 0x13, 0x14, 0x17, 0x24, 0x2B, 0x64, 0x65 };
	uint8_t *orig = (uint8_t *)malloc(SOFT_MAX_PKT_LEN + 64);
	uint8_t *mut = (uint8_t *)malloc(SOFT_MAX_PKT_LEN + 64);
	uint8_t *again = (uint8_t *)malloc(SOFT_MAX_PKT_LEN);
	unsigned iter, counts[SOFT_WIRE_STATUS_COUNT] = { 0 };

	CU_ASSERT_PTR_NOT_NULL_FATAL(orig);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mut);
	CU_ASSERT_PTR_NOT_NULL_FATAL(again);
	for (iter = 0; iter < 6000; iter++) {
		uint8_t op = ops[rnd_below(sizeof(ops))];
		const soft_opcode_info_t *info = soft_opcode_info(op);
		uint32_t plen = 0;
		size_t len = 0, mlen;
		soft_pkt_t p, q, r;
		soft_wire_status_t st;
		unsigned m, nmut;

		if (info->flags & SOFT_OPF_PAYLOAD)
			plen = info->flags & (SOFT_OPF_FIRST | SOFT_OPF_MIDDLE) ? 256
										  : rnd_below(300);
		random_pkt(&p, op, rnd_below(4) == 0, plen, payload_src);
		CU_ASSERT_EQUAL_FATAL(soft_pkt_build(&p, orig, SOFT_MAX_PKT_LEN, &len),
				      SOFT_WIRE_OK);
		memcpy(mut, orig, len);
		mlen = len;
		nmut = 1 + rnd_below(4);
		for (m = 0; m < nmut && mlen; m++) {
			size_t k, add;

			switch (rnd_below(7)) {
			case 0: /* bit flip in the headers */
				k = rnd_below((uint32_t)(mlen < 96 ? mlen : 96));
				mut[k] ^= (uint8_t)(1u << rnd_below(8));
				break;
			case 1: /* random byte anywhere */
				mut[rnd_below((uint32_t)mlen)] = (uint8_t)rnd();
				break;
			case 2: /* cut */
				mlen = rnd_below((uint32_t)mlen + 1);
				break;
			case 3: /* extend */
				add = rnd_below(40);
				for (k = 0; k < add; k++)
					mut[mlen + k] = (uint8_t)rnd();
				mlen += add;
				break;
			case 4: /* change the length field, keep the size */
				if (mlen >= 6)
					mut[5] = (uint8_t)rnd();
				break;
			case 5: /* change the opcode */
				if (mlen >= 60)
					mut[soft_pkt_bth(mut) - mut] = (uint8_t)rnd();
				break;
			default: /* change the pad count */
				if (mlen >= 60)
					mut[soft_pkt_bth(mut) + 1 - mut] ^=
						(uint8_t)(rnd_below(4) << 4);
				break;
			}
		}
		/* Mostly make the length and CRCs right again so that the deeper checks run. */
		if (mlen >= SOFT_MIN_PKT_LEN + 4)
			switch (rnd_below(4)) {
			case 0:
				break;
			case 1: /* VCRC only: the ICRC check sees the damage */
				mut[mlen - 2] = (uint8_t)soft_vcrc(mut, mlen - 2);
				mut[mlen - 1] = (uint8_t)(soft_vcrc(mut, mlen - 2) >> 8);
				break;
			case 2:
				soft_pkt_seal(mut, mlen);
				break;
			default: /* a whole number of words, PktLen to match, both CRCs */
				mlen = (mlen & ~(size_t)3) + 2;
				relength(mut, mlen);
				break;
			}
		st = parse_exact(mut, mlen, &q);
		CU_ASSERT_TRUE_FATAL((unsigned)st < SOFT_WIRE_STATUS_COUNT);
		counts[st]++;
		if (st != SOFT_WIRE_OK)
			continue;
		/* Accepted: it must be self-consistent and survive a rebuild. */
		{
			uint8_t *copy = (uint8_t *)malloc(mlen);
			size_t len2 = 0;

			memcpy(copy, mut, mlen);
			CU_ASSERT_EQUAL_FATAL(soft_pkt_parse(copy, mlen, &q), SOFT_WIRE_OK);
			CU_ASSERT_TRUE(q.payload_len <= SOFT_MAX_PAYLOAD);
			CU_ASSERT_EQUAL_FATAL(soft_pkt_build(&q, again, SOFT_MAX_PKT_LEN, &len2),
					      SOFT_WIRE_OK);
			CU_ASSERT_EQUAL(len2, mlen);
			CU_ASSERT_EQUAL_FATAL(soft_pkt_parse(again, len2, &r), SOFT_WIRE_OK);
			check_same(&q, &r);
			free(copy);
		}
	}
	/* The mutations reached the different checks. */
	for (iter = SOFT_WIRE_ERR_SHORT; iter < SOFT_WIRE_STATUS_COUNT; iter++)
		CU_ASSERT_TRUE(counts[iter] > 10);
	CU_ASSERT_TRUE(counts[SOFT_WIRE_OK] > 100);
	free(orig);
	free(mut);
	free(again);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_round_trip_every_opcode),
	TEST_ENTRY(test_build_errors),
	TEST_ENTRY(test_parse_rejects),
	TEST_ENTRY(test_parse_too_long),
	TEST_ENTRY(test_fuzz_mutations),
};

TEST_MAIN("soft_wire build and parse", tests)
