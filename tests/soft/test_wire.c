/*
 * ibal tests: soft provider wire formats (field tables, header images, opcodes, CRCs, PSNs).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Header images are compared with byte images written by hand from the IBA
 * volume 1 layouts; CRC known answers come from a bit-serial reference
 * (computed independently of the table-driven code, here and in Python).
 * Building and parsing whole packets is test_wire_parse.c's.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "soft_wire.h"
#include "../common/cl_test.h"
#include "wire_test.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

/* Bit-serial CRCs, most significant bit first on bit-reversed bytes: a
 * different formulation from the reflected tables of soft_wire.c. */
static uint32_t reverse_bits(uint32_t v, unsigned n)
{
	uint32_t r = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		if (v & (1u << i))
			r |= 1u << (n - 1 - i);
	return r;
}

static uint32_t ref_crc(const uint8_t *p, size_t len, uint32_t poly, unsigned width)
{
	uint32_t mask = width == 32 ? 0xFFFFFFFFu : (1u << width) - 1;
	uint32_t top = 1u << (width - 1), c = mask;
	size_t k;
	int i;

	for (k = 0; k < len; k++) {
		uint32_t b = reverse_bits(p[k], 8);

		for (i = 7; i >= 0; i--) {
			uint32_t fb = ((c & top) != 0) ^ ((b >> i) & 1);

			c = (c << 1) & mask;
			if (fb)
				c ^= poly;
		}
	}
	return reverse_bits(c, width) ^ mask;
}

static uint32_t ref_crc32(const uint8_t *p, size_t len)
{
	return ref_crc(p, len, 0x04C11DB7u, 32);
}

static uint16_t ref_crc16(const uint8_t *p, size_t len)
{
	return (uint16_t)ref_crc(p, len, 0x100Bu, 16);
}

static void check_image(soft_hdr_id_t id, const void *s, const uint8_t *expect)
{
	const soft_hdr_desc_t *d = soft_hdr_desc(id);
	uint8_t wire[64];

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	memset(wire, 0xA5, sizeof(wire));
	CU_ASSERT_TRUE(soft_hdr_pack(id, s, wire));
	CU_ASSERT_EQUAL(memcmp(wire, expect, d->len), 0);
	CU_ASSERT_EQUAL(wire[d->len], 0xA5); /* nothing written past the header */
}

/* ------------------------------------------------------------------------ */
/* Header images                                                             */
/* ------------------------------------------------------------------------ */

static void test_lrh_image(void)
{
	/* VL 10, LVer 0, SL 5, LNH 2, DLID 0x1234, PktLen 0x5A7, SLID 0xBEEF */
	static const uint8_t img[SOFT_LRH_LEN] = { 0xA0, 0x52, 0x12, 0x34, 0x05, 0xA7, 0xBE, 0xEF };
	soft_lrh_t lrh = { 10, 0, 5, SOFT_LNH_IBA_LOCAL, 0x1234, 0x5A7, 0xBEEF };
	soft_lrh_t back;
	uint8_t wire[SOFT_LRH_LEN];

	check_image(SOFT_HDR_LRH, &lrh, img);
	memset(&back, 0xFF, sizeof(back));
	soft_hdr_unpack(SOFT_HDR_LRH, img, &back);
	CU_ASSERT_EQUAL(memcmp(&back, &lrh, sizeof(lrh)), 0);
	CU_ASSERT_EQUAL(soft_lrh_vl(img), 10);
	CU_ASSERT_EQUAL(soft_lrh_sl(img), 5);
	CU_ASSERT_EQUAL(soft_lrh_lnh(img), 2);
	CU_ASSERT_EQUAL(soft_lrh_dlid(img), 0x1234);
	CU_ASSERT_EQUAL(soft_lrh_pkt_len(img), 0x5A7);
	CU_ASSERT_EQUAL(soft_lrh_slid(img), 0xBEEF);

	/* Values wider than their field are reported (and truncated). */
	lrh.vl = 16;
	CU_ASSERT_FALSE(soft_hdr_pack(SOFT_HDR_LRH, &lrh, wire));
	lrh.vl = 0;
	lrh.pkt_len = 0x800;
	CU_ASSERT_FALSE(soft_hdr_pack(SOFT_HDR_LRH, &lrh, wire));
	CU_ASSERT_EQUAL(soft_lrh_pkt_len(wire), 0);
	/* Reserved bits set on the wire are ignored when read. */
	{
		uint8_t r[SOFT_LRH_LEN] = { 0x00, 0x0E, 0, 0, 0xF8, 0x01, 0, 0 };

		soft_hdr_unpack(SOFT_HDR_LRH, r, &back);
		CU_ASSERT_EQUAL(back.lnh, 2);
		CU_ASSERT_EQUAL(back.pkt_len, 1);
	}
}

static void test_bth_image(void)
{
	/* RC RDMA WRITE Only, SE, PadCnt 2, P_Key 0x8001, DestQP 0x123456, A, PSN 0xABCDEF */
	static const uint8_t img[SOFT_BTH_LEN] = { 0x0A, 0xA0, 0x80, 0x01, 0x00, 0x12,
						   0x34, 0x56, 0x80, 0xAB, 0xCD, 0xEF };
	/* M and TVer 15, nothing else */
	static const uint8_t img2[SOFT_BTH_LEN] = { 0x00, 0x4F, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	soft_bth_t bth = { 0x0A, 1, 0, 2, 0, 0x8001, 0x123456, 1, 0xABCDEF };
	soft_bth_t bth2 = { 0, 0, 1, 0, 15, 0, 0, 0, 0 };
	soft_bth_t back;
	uint8_t wire[SOFT_BTH_LEN];

	check_image(SOFT_HDR_BTH, &bth, img);
	check_image(SOFT_HDR_BTH, &bth2, img2);
	memset(&back, 0, sizeof(back));
	soft_hdr_unpack(SOFT_HDR_BTH, img, &back);
	CU_ASSERT_EQUAL(back.opcode, 0x0A);
	CU_ASSERT_EQUAL(back.se, 1);
	CU_ASSERT_EQUAL(back.mig, 0);
	CU_ASSERT_EQUAL(back.pad_cnt, 2);
	CU_ASSERT_EQUAL(back.tver, 0);
	CU_ASSERT_EQUAL(back.pkey, 0x8001);
	CU_ASSERT_EQUAL(back.dest_qp, 0x123456);
	CU_ASSERT_EQUAL(back.ack_req, 1);
	CU_ASSERT_EQUAL(back.psn, 0xABCDEF);
	CU_ASSERT_EQUAL(soft_bth_opcode(img), 0x0A);
	CU_ASSERT_EQUAL(soft_bth_se(img), 1);
	CU_ASSERT_EQUAL(soft_bth_mig(img), 0);
	CU_ASSERT_EQUAL(soft_bth_pad_cnt(img), 2);
	CU_ASSERT_EQUAL(soft_bth_tver(img), 0);
	CU_ASSERT_EQUAL(soft_bth_mig(img2), 1);
	CU_ASSERT_EQUAL(soft_bth_tver(img2), 15);
	CU_ASSERT_EQUAL(soft_bth_pkey(img), 0x8001);
	CU_ASSERT_EQUAL(soft_bth_dest_qp(img), 0x123456);
	CU_ASSERT_EQUAL(soft_bth_ack_req(img), 1);
	CU_ASSERT_EQUAL(soft_bth_psn(img), 0xABCDEF);

	memcpy(wire, img, sizeof(wire));
	soft_bth_set_psn(wire, 0x000102);
	soft_bth_set_ack_req(wire, 0);
	CU_ASSERT_EQUAL(soft_bth_psn(wire), 0x000102);
	CU_ASSERT_EQUAL(soft_bth_ack_req(wire), 0);
	CU_ASSERT_EQUAL(memcmp(wire, img, 8), 0);
	CU_ASSERT_EQUAL(wire[8], 0x00);
	bth.dest_qp = 0x1000000;
	CU_ASSERT_FALSE(soft_hdr_pack(SOFT_HDR_BTH, &bth, wire));
}

static void test_deth_reth_aeth_images(void)
{
	static const uint8_t deth_img[] = { 0x80, 0x01, 0x00, 0x00, 0x00, 0xAB, 0xCD, 0xEF };
	static const uint8_t reth_img[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
					    0x11, 0x22, 0x33, 0x44, 0x00, 0x00, 0x10, 0x00 };
	static const uint8_t aeth_rnr[] = { 0x2E, 0x00, 0xAB, 0xCD };
	static const uint8_t aeth_nak[] = { 0x62, 0xFF, 0xFF, 0xFF };
	static const uint8_t aeth_ack[] = { 0x1F, 0x00, 0x00, 0x01 };
	soft_deth_t deth = { 0x80010000u, 0xABCDEF };
	soft_reth_t reth = { 0x0102030405060708ull, 0x11223344u, 0x1000 };
	soft_aeth_t rnr = { soft_aeth_encode(SOFT_AETH_RNR_NAK, 14), 0xABCD };
	soft_aeth_t nak = { soft_aeth_encode(SOFT_AETH_NAK, SOFT_NAK_REM_ACCESS_ERR), 0xFFFFFF };
	soft_aeth_t ack = { soft_aeth_encode(SOFT_AETH_ACK, SOFT_AETH_CREDITS_INVALID), 1 };
	soft_reth_t rb;

	check_image(SOFT_HDR_DETH, &deth, deth_img);
	check_image(SOFT_HDR_RETH, &reth, reth_img);
	check_image(SOFT_HDR_AETH, &rnr, aeth_rnr);
	check_image(SOFT_HDR_AETH, &nak, aeth_nak);
	check_image(SOFT_HDR_AETH, &ack, aeth_ack);
	CU_ASSERT_EQUAL(soft_deth_qkey(deth_img), 0x80010000u);
	CU_ASSERT_EQUAL(soft_deth_src_qp(deth_img), 0xABCDEF);
	CU_ASSERT_EQUAL(soft_reth_va(reth_img), 0x0102030405060708ull);
	CU_ASSERT_EQUAL(soft_reth_rkey(reth_img), 0x11223344u);
	CU_ASSERT_EQUAL(soft_reth_dma_len(reth_img), 0x1000);
	CU_ASSERT_EQUAL(soft_aeth_syndrome(aeth_rnr), 0x2E);
	CU_ASSERT_EQUAL(soft_aeth_msn(aeth_rnr), 0xABCD);
	CU_ASSERT_EQUAL(soft_aeth_type(0x2E), SOFT_AETH_RNR_NAK);
	CU_ASSERT_EQUAL(soft_aeth_value(0x2E), 14);
	CU_ASSERT_EQUAL(soft_aeth_type(0x62), SOFT_AETH_NAK);
	CU_ASSERT_EQUAL(soft_aeth_value(0x62), SOFT_NAK_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL(soft_aeth_encode(SOFT_AETH_NAK, SOFT_NAK_PSN_SEQ_ERR), 0x60);
	CU_ASSERT_EQUAL(soft_aeth_encode(SOFT_AETH_NAK, SOFT_NAK_INVALID_REQ), 0x61);
	CU_ASSERT_EQUAL(soft_aeth_encode(SOFT_AETH_NAK, SOFT_NAK_REM_OP_ERR), 0x63);
	CU_ASSERT_EQUAL(soft_aeth_encode(SOFT_AETH_NAK, SOFT_NAK_INVALID_RD_REQ), 0x64);
	memset(&rb, 0, sizeof(rb));
	soft_hdr_unpack(SOFT_HDR_RETH, reth_img, &rb);
	CU_ASSERT_EQUAL(memcmp(&rb, &reth, sizeof(rb)), 0);
}

/* A packet with a path's fields (local route, or global with @p route 1). */
static void path_pkt(soft_pkt_t *pkt, unsigned route)
{
	memset(pkt, 0, sizeof(*pkt));
	pkt->lrh.sl = 5;
	pkt->lrh.lnh = route ? SOFT_LNH_IBA_GLOBAL : SOFT_LNH_IBA_LOCAL;
	pkt->lrh.dlid = 0x1234;
	pkt->lrh.slid = 0x0042;
	if (route) {
		pkt->grh.ver_class_flow = cl_hton32(0x6ABCDEF1u);
		pkt->grh.hop_limit = 7;
		pkt->grh.dest_gid.unicast.interface_id = cl_hton64(0x1122334455667788ull);
	}
	pkt->bth.pkey = 0x8001;
	pkt->bth.mig = 1;
	pkt->bth.dest_qp = 0xABCDEF;
}

/*
 * The soft RC transport sends an ACK as the headers of its path's first ACK
 * with BTH:PSN and the AETH set (soft_bth_set_psn, soft_aeth_set): for both
 * routes, that must be the bytes the codec builds for those values.
 */
static void test_ack_headers_patched(void)
{
	static const struct { uint32_t psn, msn; unsigned type, value; } acks[] = {
		{ 0xFFFFFF, 0, SOFT_AETH_ACK, SOFT_AETH_CREDITS_INVALID },
		{ 0x123456, 0xABCDEF, SOFT_AETH_RNR_NAK, 14 },
		{ 0, 0xFFFFFF, SOFT_AETH_NAK, SOFT_NAK_PSN_SEQ_ERR },
	};
	uint8_t first[SOFT_MAX_HDR_LEN], want[SOFT_MAX_HDR_LEN], got[SOFT_MAX_HDR_LEN];
	soft_pkt_t pkt;
	size_t hdr, hdr2;
	unsigned route, i;

	for (route = 0; route < 2; route++) {
		path_pkt(&pkt, route);
		pkt.bth.opcode = SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_ACKNOWLEDGE);
		pkt.bth.psn = 7;
		pkt.aeth.syndrome = soft_aeth_encode(SOFT_AETH_ACK, 3);
		pkt.aeth.msn = 9;
		CU_ASSERT_EQUAL_FATAL(soft_pkt_build_hdrs(&pkt, first, sizeof(first), &hdr),
				      SOFT_WIRE_OK);
		CU_ASSERT_EQUAL(hdr, SOFT_LRH_LEN + (route ? SOFT_GRH_LEN : 0) + SOFT_BTH_LEN +
					     SOFT_AETH_LEN);
		for (i = 0; i < sizeof(acks) / sizeof(acks[0]); i++) {
			pkt.bth.psn = acks[i].psn;
			pkt.aeth.syndrome = soft_aeth_encode(acks[i].type, acks[i].value);
			pkt.aeth.msn = acks[i].msn;
			CU_ASSERT_EQUAL_FATAL(soft_pkt_build_hdrs(&pkt, want, sizeof(want), &hdr2),
					      SOFT_WIRE_OK);
			memcpy(got, first, hdr);
			soft_bth_set_psn(got + hdr - SOFT_AETH_LEN - SOFT_BTH_LEN, acks[i].psn);
			soft_aeth_set(got + hdr - SOFT_AETH_LEN, pkt.aeth.syndrome, acks[i].msn);
			CU_ASSERT_EQUAL(hdr2, hdr);
			CU_ASSERT_EQUAL(memcmp(got, want, hdr), 0);
		}
	}
}

/*
 * soft_pkt_peek_response (the look a CQ poll takes at the next packet) says
 * TRUE for exactly the RC and UC responses (read responses, ACK, atomic ACK)
 * on either route, and FALSE for requests, UD, other link headers and
 * bytes too few to reach the opcode.
 */
static void test_peek_response(void)
{
	static const uint8_t payload[256];
	uint8_t buf[SOFT_MAX_PKT_LEN];
	soft_pkt_t pkt;
	size_t len, at;
	unsigned route, tr, op, resp = 0;

	for (route = 0; route < 2; route++) {
		at = SOFT_LRH_LEN + (route ? SOFT_GRH_LEN : 0);
		for (tr = 0; tr < 4; tr++) {
			for (op = 0; op < 32; op++) {
				memset(&pkt, 0, sizeof(pkt));
				pkt.lrh.lnh = route ? SOFT_LNH_IBA_GLOBAL : SOFT_LNH_IBA_LOCAL;
				pkt.lrh.dlid = 1;
				pkt.lrh.slid = 2;
				if (route)
					pkt.grh.ver_class_flow = cl_hton32(0x60000000u);
				pkt.bth.opcode = (uint8_t)(tr << 5 | op);
				if (!soft_opcode_info(pkt.bth.opcode))
					continue;
				/* With a payload where the opcode takes one (first and
				 * middle packets must have it), else without. */
				pkt.payload = payload;
				pkt.payload_len = sizeof(payload);
				if (soft_pkt_build(&pkt, buf, sizeof(buf), &len) != SOFT_WIRE_OK) {
					pkt.payload_len = 0;
					CU_ASSERT_EQUAL_FATAL(soft_pkt_build(&pkt, buf, sizeof(buf), &len),
							      SOFT_WIRE_OK);
				}
				CU_ASSERT_EQUAL(soft_pkt_peek_response(buf, len),
						tr <= 1 && op >= SOFT_OP_READ_RESPONSE_FIRST &&
							op <= SOFT_OP_ATOMIC_ACKNOWLEDGE);
				resp += soft_pkt_peek_response(buf, len);
				/* The opcode byte itself must be there. */
				CU_ASSERT_FALSE(soft_pkt_peek_response(buf, at));
				CU_ASSERT_EQUAL(soft_pkt_peek_response(buf, at + 1),
						soft_pkt_peek_response(buf, len));
			}
		}
		/* LNH 0 and 1 (raw packets) are no IBA transport. */
		buf[1] &= 0xFC;
		CU_ASSERT_FALSE(soft_pkt_peek_response(buf, len));
		buf[1] |= 1;
		CU_ASSERT_FALSE(soft_pkt_peek_response(buf, len));
	}
	/* Read response first, middle, last, only, ACK, atomic ACK; RC and UC
	 * (UC has none of them), both routes. */
	CU_ASSERT_EQUAL(resp, 2u * 6u);
	CU_ASSERT_FALSE(soft_pkt_peek_response(buf, 0));
}

/*
 * The soft RC transport writes the headers of its sends and write middles
 * (and read response middles) on its path's base (soft_hdrs_on_base): for
 * both routes, RC and UC, every bare opcode, payloads of each pad and up to the largest, and the BTH bits,
 * that must be the codec's bytes; soft_opcode_bare picks exactly the
 * opcodes with no extended header.
 */
static void test_hdrs_on_base(void)
{
	static const uint32_t lens[] = { 0, 1, 2, 3, 4, 5, 64, 255, 256, 4096 };
	uint8_t base[SOFT_MAX_HDR_LEN], want[SOFT_MAX_HDR_LEN], got[SOFT_MAX_HDR_LEN];
	const soft_opcode_info_t *info;
	soft_pkt_t pkt;
	size_t base_len, hdr;
	unsigned route, op, i, n = 0, bare = 0;

	for (op = 0; op < 256; op++) {
		info = soft_opcode_info((uint8_t)op);
		if (!info)
			continue;
		CU_ASSERT_EQUAL(soft_opcode_bare((uint8_t)op),
				(op & 0xE0) <= SOFT_TRANSPORT_UC &&
					!(info->hdrs & ~((1u << SOFT_HDR_DETH) - 1u)));
		bare += soft_opcode_bare((uint8_t)op);
	}
	CU_ASSERT_EQUAL(bare, 13u); /* 7 RC (a read response middle too), 6 UC */
	for (route = 0; route < 2; route++) {
		path_pkt(&pkt, route);
		pkt.bth.opcode = SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_SEND_ONLY);
		pkt.bth.psn = 1;
		pkt.payload_len = 3;
		CU_ASSERT_EQUAL_FATAL(soft_pkt_build_hdrs(&pkt, base, sizeof(base), &base_len),
				      SOFT_WIRE_OK);
		for (op = 0; op < 64; op++) {
			if (!soft_opcode_bare((uint8_t)op))
				continue;
			info = soft_opcode_info((uint8_t)op);
			for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
				pkt.bth.opcode = (uint8_t)op;
				pkt.payload_len = lens[i];
				pkt.bth.se = i & 1;
				pkt.bth.ack_req = (i >> 1) & 1;
				pkt.bth.psn = i & 4 ? 0xFFFFFF : 0x123456 + i;
				if (soft_pkt_build_hdrs(&pkt, want, sizeof(want), &hdr) != SOFT_WIRE_OK) {
					/* first and middle packets: whole words, never empty */
					CU_ASSERT(info->flags & (SOFT_OPF_FIRST | SOFT_OPF_MIDDLE));
					continue;
				}
				memset(got, 0xA5, sizeof(got));
				CU_ASSERT_EQUAL(soft_hdrs_on_base(got, base, base_len, (uint8_t)op,
								  pkt.bth.se, pkt.bth.ack_req,
								  pkt.bth.psn, lens[i]),
						hdr);
				CU_ASSERT_EQUAL(memcmp(got, want, hdr), 0);
				n++;
			}
		}
	}
	CU_ASSERT(n > 80);
}

static void test_atomic_imm_ieth_images(void)
{
	static const uint8_t ae_img[SOFT_ATOMIC_ETH_LEN] = {
		0x00, 0x00, 0x7F, 0xFF, 0x12, 0x34, 0x56, 0x78, /* VA */
		0xCA, 0xFE, 0xBA, 0xBE,                         /* R_Key */
		0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x22, 0x22, /* SwapDt */
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* CmpDt */
	};
	static const uint8_t aa_img[] = { 0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10 };
	static const uint8_t imm_img[] = { 0xDE, 0xAD, 0xBE, 0xEF };
	static const uint8_t ieth_img[] = { 0x00, 0x01, 0x02, 0x03 };
	soft_atomic_eth_t ae = { 0x00007FFF12345678ull, 0xCAFEBABEu, 0x1111111122222222ull,
				 0x8877665544332211ull };
	soft_atomic_ack_eth_t aa = { 0xFEDCBA9876543210ull };
	soft_immdt_t imm = { 0xDEADBEEFu };
	soft_ieth_t ieth = { 0x00010203u };
	soft_atomic_eth_t back;

	check_image(SOFT_HDR_ATOMIC_ETH, &ae, ae_img);
	check_image(SOFT_HDR_ATOMIC_ACK_ETH, &aa, aa_img);
	check_image(SOFT_HDR_IMMDT, &imm, imm_img);
	check_image(SOFT_HDR_IETH, &ieth, ieth_img);
	CU_ASSERT_EQUAL(soft_atomic_eth_va(ae_img), ae.va);
	CU_ASSERT_EQUAL(soft_atomic_eth_rkey(ae_img), ae.rkey);
	CU_ASSERT_EQUAL(soft_atomic_eth_swap_add(ae_img), ae.swap_add);
	CU_ASSERT_EQUAL(soft_atomic_eth_compare(ae_img), ae.compare);
	CU_ASSERT_EQUAL(soft_atomic_ack_orig(aa_img), aa.orig);
	memset(&back, 0, sizeof(back));
	soft_hdr_unpack(SOFT_HDR_ATOMIC_ETH, ae_img, &back);
	CU_ASSERT_EQUAL(back.va, ae.va);
	CU_ASSERT_EQUAL(back.rkey, ae.rkey);
	CU_ASSERT_EQUAL(back.swap_add, ae.swap_add);
	CU_ASSERT_EQUAL(back.compare, ae.compare);
}

static void test_grh_fields(void)
{
	ib_grh_t grh;
	uint8_t wire[SOFT_GRH_LEN];
	const soft_field_t *f;
	int i;

	memset(&grh, 0, sizeof(grh));
	grh.ver_class_flow = ib_grh_set_ver_class_flow(6, 0xAB, cl_hton32(0x12345));
	grh.resv1 = cl_hton16(0x0102);
	grh.resv2 = 0x1B;
	grh.hop_limit = 0x40;
	for (i = 0; i < 16; i++) {
		grh.src_gid.raw[i] = (uint8_t)(0x10 + i);
		grh.dest_gid.raw[i] = (uint8_t)(0x80 + i);
	}
	CU_ASSERT_TRUE(soft_hdr_pack(SOFT_HDR_GRH, &grh, wire));
	CU_ASSERT_EQUAL(memcmp(wire, &grh, SOFT_GRH_LEN), 0);
	CU_ASSERT_EQUAL(wire[0], 0x6A);
	CU_ASSERT_EQUAL(wire[1], 0xB1);
	CU_ASSERT_EQUAL(wire[2], 0x23);
	CU_ASSERT_EQUAL(wire[3], 0x45);
	CU_ASSERT_EQUAL(soft_field_get(soft_hdr_field(SOFT_HDR_GRH, "ipver"), wire), 6);
	CU_ASSERT_EQUAL(soft_field_get(soft_hdr_field(SOFT_HDR_GRH, "tclass"), wire), 0xAB);
	CU_ASSERT_EQUAL(soft_field_get(soft_hdr_field(SOFT_HDR_GRH, "flow_label"), wire), 0x12345);
	CU_ASSERT_EQUAL(soft_field_get(soft_hdr_field(SOFT_HDR_GRH, "pay_len"), wire), 0x0102);
	CU_ASSERT_EQUAL(soft_field_get(soft_hdr_field(SOFT_HDR_GRH, "nxt_hdr"), wire), 0x1B);
	CU_ASSERT_EQUAL(soft_field_get(soft_hdr_field(SOFT_HDR_GRH, "hop_lmt"), wire), 0x40);
	CU_ASSERT_EQUAL(soft_field_get(soft_hdr_field(SOFT_HDR_GRH, "sgid_prefix"), wire),
			0x1011121314151617ull);
	CU_ASSERT_EQUAL(soft_field_get(soft_hdr_field(SOFT_HDR_GRH, "dgid_guid"), wire),
			0x88898A8B8C8D8E8Full);
	f = soft_hdr_field(SOFT_HDR_GRH, "flow_label");
	soft_field_set(f, wire, 0xFFFFF);
	CU_ASSERT_EQUAL(wire[1], 0xBF);
	CU_ASSERT_EQUAL(wire[2], 0xFF);
	CU_ASSERT_EQUAL(wire[3], 0xFF);
	CU_ASSERT_EQUAL(wire[0], 0x6A);
	memset(&grh, 0, sizeof(grh));
	soft_hdr_unpack(SOFT_HDR_GRH, wire, &grh);
	CU_ASSERT_EQUAL(memcmp(wire, &grh, SOFT_GRH_LEN), 0);
	CU_ASSERT_PTR_NULL(soft_hdr_field(SOFT_HDR_GRH, "nope"));
	CU_ASSERT_PTR_NULL(soft_hdr_field(SOFT_HDR_COUNT, "psn"));
	CU_ASSERT_PTR_NULL(soft_hdr_desc(SOFT_HDR_COUNT));
}

/* Every header's fields tile it exactly, in wire order, and fit their members. */
static void test_tables_tile_headers(void)
{
	unsigned id, i, b;

	for (id = 0; id < SOFT_HDR_COUNT; id++) {
		const soft_hdr_desc_t *d = soft_hdr_desc((soft_hdr_id_t)id);
		unsigned next = 0;

		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		CU_ASSERT_EQUAL(d->len % 4, 0);
		for (i = 0; i < d->n_fields; i++) {
			const soft_field_t *f = &d->fields[i];
			unsigned start = f->byte_off * 8u + f->bit_off;

			CU_ASSERT_EQUAL(start, next);
			CU_ASSERT_TRUE(f->bit_off < 8 && f->width >= 1 && f->width <= 64);
			next = start + f->width;
			if (f->struct_size) {
				CU_ASSERT_TRUE(f->width <= f->struct_size * 8u);
				CU_ASSERT_TRUE(f->struct_off + f->struct_size <= d->struct_size);
				CU_ASSERT_FALSE(d->wire_struct);
			} else if (!d->wire_struct) {
				CU_ASSERT_TRUE(f->flags & SOFT_FIELD_RSVD);
			}
			CU_ASSERT_PTR_EQUAL(soft_hdr_field((soft_hdr_id_t)id, f->name), f);
		}
		CU_ASSERT_EQUAL(next, d->len * 8u);
	}
	/* The variant fields the ICRC masks: VL, Resv8a, TClass, FlowLabel, HopLmt. */
	for (id = 0, b = 0; id < SOFT_HDR_COUNT; id++) {
		const soft_hdr_desc_t *d = soft_hdr_desc((soft_hdr_id_t)id);

		for (i = 0; i < d->n_fields; i++)
			if (d->fields[i].flags & SOFT_FIELD_VARIANT)
				b += d->fields[i].width;
	}
	CU_ASSERT_EQUAL(b, 4 + 8 + 8 + 20 + 8);
}

/*
 * The headers with a written-out codec (all but the GRH) give the same
 * wire image, the same "fits" answer and the same host structure as the walk
 * over their field tables, for random values, out-of-range ones included.
 */
static void test_direct_codecs_agree(void)
{
	unsigned id, iter, i, with_codec = 0;

	for (id = 0; id < SOFT_HDR_COUNT; id++) {
		const soft_hdr_desc_t *d = soft_hdr_desc((soft_hdr_id_t)id);

		if (!d->pack)
			continue;
		CU_ASSERT_PTR_NOT_NULL(d->unpack);
		with_codec++;
		for (iter = 0; iter < 2000; iter++) {
			uint8_t hs[64], w1[64], w2[64], h1[64], h2[64];
			boolean_t narrow = iter & 1;

			CU_ASSERT_FATAL(d->struct_size <= 32 && d->len <= 32);
			for (i = 0; i < sizeof(hs); i++)
				hs[i] = (uint8_t)rnd();
			/* Every other round in range: members as a random image gives them. */
			if (narrow)
				soft_hdr_unpack_fields((soft_hdr_id_t)id, hs + 32, hs);
			memset(w1, 0xA5, sizeof(w1));
			memset(w2, 0x5A, sizeof(w2));
			CU_ASSERT_EQUAL(soft_hdr_pack((soft_hdr_id_t)id, hs, w1),
					soft_hdr_pack_fields((soft_hdr_id_t)id, hs, w2));
			CU_ASSERT_EQUAL(memcmp(w1, w2, d->len), 0);
			memset(h1, 0, sizeof(h1));
			memset(h2, 0, sizeof(h2));
			soft_hdr_unpack((soft_hdr_id_t)id, hs, h1);
			soft_hdr_unpack_fields((soft_hdr_id_t)id, hs, h2);
			CU_ASSERT_EQUAL(memcmp(h1, h2, d->struct_size), 0);
		}
	}
	CU_ASSERT_EQUAL(with_codec, SOFT_HDR_COUNT - 1);
}

static void test_field_get_set_generic(void)
{
	/* A 13-bit field starting at bit 3 of byte 1, and a 64-bit field at bit 4. */
	soft_field_t odd = { "odd", 0, 0, 1, 3, 13, 0 };
	soft_field_t wide = { "wide", 0, 0, 0, 4, 64, 0 };
	uint8_t w[12];
	uint8_t expect[12];

	memset(w, 0xFF, sizeof(w));
	soft_field_set(&odd, w, 0);
	CU_ASSERT_EQUAL(w[0], 0xFF);
	CU_ASSERT_EQUAL(w[1], 0xE0);
	CU_ASSERT_EQUAL(w[2], 0x00);
	CU_ASSERT_EQUAL(w[3], 0xFF);
	soft_field_set(&odd, w, 0x1ABC);
	CU_ASSERT_EQUAL(soft_field_get(&odd, w), 0x1ABC);
	CU_ASSERT_EQUAL(w[1], 0xE0 | (0x1ABC >> 8));
	CU_ASSERT_EQUAL(w[2], 0xBC);

	memset(w, 0, sizeof(w));
	soft_field_set(&wide, w, 0x0123456789ABCDEFull);
	memset(expect, 0, sizeof(expect));
	expect[0] = 0x00;
	expect[1] = 0x12;
	expect[2] = 0x34;
	expect[3] = 0x56;
	expect[4] = 0x78;
	expect[5] = 0x9A;
	expect[6] = 0xBC;
	expect[7] = 0xDE;
	expect[8] = 0xF0;
	CU_ASSERT_EQUAL(memcmp(w, expect, sizeof(w)), 0);
	CU_ASSERT_EQUAL(soft_field_get(&wide, w), 0x0123456789ABCDEFull);
}

static void test_format(void)
{
	static const uint8_t img[SOFT_BTH_LEN] = { 0x04, 0x00, 0xFF, 0xFF, 0x00, 0x00,
						   0x00, 0x12, 0x80, 0x00, 0x00, 0x2A };
	char out[256], tiny[8];
	int n;

	n = soft_hdr_format(SOFT_HDR_BTH, img, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "opcode=4 se=0 mig=0 pad_cnt=0 tver=0 pkey=0xffff "
				    "dest_qp=0x12 ack_req=1 psn=0x2a");
	CU_ASSERT_EQUAL(n, (int)strlen(out));
	CU_ASSERT_EQUAL(soft_hdr_format(SOFT_HDR_BTH, img, tiny, sizeof(tiny)), n);
	CU_ASSERT_STRING_EQUAL(tiny, "opcode=");
	CU_ASSERT_EQUAL(soft_hdr_format(SOFT_HDR_BTH, img, NULL, 0), n);
	CU_ASSERT_EQUAL(soft_hdr_format(SOFT_HDR_COUNT, img, out, sizeof(out)), -1);
}

/* ------------------------------------------------------------------------ */
/* Opcodes                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct {
	uint8_t opcode;
	const char *name;
	uint16_t hdrs;
	uint8_t ext_len;
	boolean_t payload;
} op_expect_t;

#define D SOFT_HDRF_DETH
#define R SOFT_HDRF_RETH
#define A SOFT_HDRF_AETH
#define X SOFT_HDRF_ATOMIC_ETH
#define K SOFT_HDRF_ATOMIC_ACK_ETH
#define I SOFT_HDRF_IMMDT
#define V SOFT_HDRF_IETH

/* IBA table 38, written out independently of the implementation's table. */
static const op_expect_t op_expect[] = {
	{ 0x00, "RC_SEND_FIRST", 0, 0, TRUE },
	{ 0x01, "RC_SEND_MIDDLE", 0, 0, TRUE },
	{ 0x02, "RC_SEND_LAST", 0, 0, TRUE },
	{ 0x03, "RC_SEND_LAST_IMM", I, 4, TRUE },
	{ 0x04, "RC_SEND_ONLY", 0, 0, TRUE },
	{ 0x05, "RC_SEND_ONLY_IMM", I, 4, TRUE },
	{ 0x06, "RC_WRITE_FIRST", R, 16, TRUE },
	{ 0x07, "RC_WRITE_MIDDLE", 0, 0, TRUE },
	{ 0x08, "RC_WRITE_LAST", 0, 0, TRUE },
	{ 0x09, "RC_WRITE_LAST_IMM", I, 4, TRUE },
	{ 0x0A, "RC_WRITE_ONLY", R, 16, TRUE },
	{ 0x0B, "RC_WRITE_ONLY_IMM", R | I, 20, TRUE },
	{ 0x0C, "RC_READ_REQUEST", R, 16, FALSE },
	{ 0x0D, "RC_READ_RESPONSE_FIRST", A, 4, TRUE },
	{ 0x0E, "RC_READ_RESPONSE_MIDDLE", 0, 0, TRUE },
	{ 0x0F, "RC_READ_RESPONSE_LAST", A, 4, TRUE },
	{ 0x10, "RC_READ_RESPONSE_ONLY", A, 4, TRUE },
	{ 0x11, "RC_ACKNOWLEDGE", A, 4, FALSE },
	{ 0x12, "RC_ATOMIC_ACKNOWLEDGE", A | K, 12, FALSE },
	{ 0x13, "RC_COMPARE_SWAP", X, 28, FALSE },
	{ 0x14, "RC_FETCH_ADD", X, 28, FALSE },
	{ 0x16, "RC_SEND_LAST_INV", V, 4, TRUE },
	{ 0x17, "RC_SEND_ONLY_INV", V, 4, TRUE },
	{ 0x20, "UC_SEND_FIRST", 0, 0, TRUE },
	{ 0x21, "UC_SEND_MIDDLE", 0, 0, TRUE },
	{ 0x22, "UC_SEND_LAST", 0, 0, TRUE },
	{ 0x23, "UC_SEND_LAST_IMM", I, 4, TRUE },
	{ 0x24, "UC_SEND_ONLY", 0, 0, TRUE },
	{ 0x25, "UC_SEND_ONLY_IMM", I, 4, TRUE },
	{ 0x26, "UC_WRITE_FIRST", R, 16, TRUE },
	{ 0x27, "UC_WRITE_MIDDLE", 0, 0, TRUE },
	{ 0x28, "UC_WRITE_LAST", 0, 0, TRUE },
	{ 0x29, "UC_WRITE_LAST_IMM", I, 4, TRUE },
	{ 0x2A, "UC_WRITE_ONLY", R, 16, TRUE },
	{ 0x2B, "UC_WRITE_ONLY_IMM", R | I, 20, TRUE },
	{ 0x64, "UD_SEND_ONLY", D, 8, TRUE },
	{ 0x65, "UD_SEND_ONLY_IMM", D | I, 12, TRUE },
};

static const op_expect_t *find_expect(unsigned opcode)
{
	unsigned i;

	for (i = 0; i < TEST_COUNT(op_expect); i++)
		if (op_expect[i].opcode == opcode)
			return &op_expect[i];
	return NULL;
}

static void test_opcode_table(void)
{
	unsigned op, known = 0;

	for (op = 0; op < 256; op++) {
		const soft_opcode_info_t *info = soft_opcode_info((uint8_t)op);
		const op_expect_t *e = find_expect(op);

		if (!e) {
			CU_ASSERT_PTR_NULL(info);
			continue;
		}
		known++;
		CU_ASSERT_PTR_NOT_NULL_FATAL(info);
		CU_ASSERT_STRING_EQUAL(info->name, e->name);
		CU_ASSERT_EQUAL(info->hdrs, e->hdrs);
		CU_ASSERT_EQUAL(info->ext_len, e->ext_len);
		CU_ASSERT_EQUAL(!!(info->flags & SOFT_OPF_PAYLOAD), e->payload);
		CU_ASSERT_EQUAL(!!(info->flags & SOFT_OPF_IMM), !!(e->hdrs & I));
		CU_ASSERT_EQUAL(!!(info->flags & SOFT_OPF_INV), !!(e->hdrs & V));
		CU_ASSERT_EQUAL(!!(info->flags & SOFT_OPF_REQUEST) +
				!!(info->flags & SOFT_OPF_RESPONSE), 1);
		CU_ASSERT_TRUE(info->ext_len <= SOFT_MAX_EXT_LEN);
	}
	CU_ASSERT_EQUAL(known, TEST_COUNT(op_expect));
	CU_ASSERT_EQUAL(SOFT_OPCODE(SOFT_TRANSPORT_UD, SOFT_OP_SEND_ONLY), 0x64);
	CU_ASSERT_EQUAL(SOFT_OPCODE(SOFT_TRANSPORT_UC, SOFT_OP_WRITE_ONLY_IMM), 0x2B);
	CU_ASSERT_TRUE(soft_opcode_info(0x0D)->flags & SOFT_OPF_FIRST);
	CU_ASSERT_TRUE(soft_opcode_info(0x0E)->flags & SOFT_OPF_MIDDLE);
	CU_ASSERT_TRUE(soft_opcode_info(0x0F)->flags & SOFT_OPF_LAST);
	CU_ASSERT_TRUE(soft_opcode_info(0x10)->flags & SOFT_OPF_ONLY);
	CU_ASSERT_TRUE(soft_opcode_info(0x13)->flags & SOFT_OPF_ATOMIC);
	CU_ASSERT_TRUE(soft_opcode_info(0x12)->flags & SOFT_OPF_ACK);
}

#undef D
#undef R
#undef A
#undef X
#undef K
#undef I
#undef V

/* ------------------------------------------------------------------------ */
/* AETH codes and PSNs                                                       */
/* ------------------------------------------------------------------------ */

static void test_aeth_codes(void)
{
	/* IBA table 45 (credits) and table 44 (RNR timer, in hundredths of ms). */
	static const int credits[31] = { 0,    1,    2,    3,    4,    6,     8,     12,
					 16,   24,   32,   48,   64,   96,    128,   192,
					 256,  384,  512,  768,  1024, 1536,  2048,  3072,
					 4096, 6144, 8192, 12288, 16384, 24576, 32768 };
	static const uint32_t rnr_10us[32] = {
		65536, 1,    2,    3,    4,     6,     8,     12,    16,   24,   32,
		48,    64,   96,   128,  192,   256,   384,   512,   768,  1024, 1536,
		2048,  3072, 4096, 6144, 8192,  12288, 16384, 24576, 32768, 49152,
	};
	unsigned i;

	for (i = 0; i < 31; i++)
		CU_ASSERT_EQUAL(soft_aeth_credits(i), credits[i]);
	CU_ASSERT_EQUAL(soft_aeth_credits(31), -1);
	CU_ASSERT_EQUAL(soft_aeth_credits(32), -1);
	for (i = 0; i < 32; i++)
		CU_ASSERT_EQUAL(soft_rnr_timer_us(i), rnr_10us[i] * 10u);
}

static void test_psn_arith(void)
{
	CU_ASSERT_EQUAL(soft_psn_add(0xFFFFFF, 1), 0);
	CU_ASSERT_EQUAL(soft_psn_add(0xFFFFFE, 5), 3);
	CU_ASSERT_EQUAL(soft_psn_add(0, (uint32_t)-1), 0xFFFFFF);
	CU_ASSERT_EQUAL(soft_psn_add(5, 0x1000000), 5);

	CU_ASSERT_EQUAL(soft_psn_diff(0, 0xFFFFFF), 1);
	CU_ASSERT_EQUAL(soft_psn_diff(0xFFFFFF, 0), -1);
	CU_ASSERT_EQUAL(soft_psn_diff(10, 10), 0);
	CU_ASSERT_EQUAL(soft_psn_diff(0x7FFFFF, 0), 0x7FFFFF);
	CU_ASSERT_EQUAL(soft_psn_diff(0x800000, 0), -0x800000);
	CU_ASSERT_EQUAL(soft_psn_diff(0, 0x800000), -0x800000);
	CU_ASSERT_EQUAL(soft_psn_diff(0x000010, 0xFFFFF0), 0x20);
	/* Bits above 24 are ignored. */
	CU_ASSERT_EQUAL(soft_psn_diff(0xFF000001, 0), 1);

	CU_ASSERT_TRUE(soft_psn_lt(0xFFFFFF, 0));
	CU_ASSERT_FALSE(soft_psn_lt(0, 0xFFFFFF));
	CU_ASSERT_FALSE(soft_psn_lt(7, 7));
	CU_ASSERT_TRUE(soft_psn_le(7, 7));
	CU_ASSERT_TRUE(soft_psn_le(0xFFFFF0, 0x10));

	CU_ASSERT_TRUE(soft_psn_in_range(0xFFFFFF, 0xFFFFFE, 2));
	CU_ASSERT_TRUE(soft_psn_in_range(0, 0xFFFFFE, 2));
	CU_ASSERT_TRUE(soft_psn_in_range(2, 0xFFFFFE, 2));
	CU_ASSERT_FALSE(soft_psn_in_range(3, 0xFFFFFE, 2));
	CU_ASSERT_FALSE(soft_psn_in_range(0xFFFFFD, 0xFFFFFE, 2));
	CU_ASSERT_TRUE(soft_psn_in_range(5, 5, 5));
	CU_ASSERT_FALSE(soft_psn_in_range(6, 5, 5));

	CU_ASSERT_EQUAL(soft_psn_region(100, 100), SOFT_PSN_EXPECTED);
	CU_ASSERT_EQUAL(soft_psn_region(99, 100), SOFT_PSN_DUPLICATE);
	CU_ASSERT_EQUAL(soft_psn_region(101, 100), SOFT_PSN_INVALID);
	/* The duplicate region is the 2^23 PSNs before the expected one, across the wrap. */
	CU_ASSERT_EQUAL(soft_psn_region(0xFFFFFF, 0), SOFT_PSN_DUPLICATE);
	CU_ASSERT_EQUAL(soft_psn_region(0x800000, 0), SOFT_PSN_DUPLICATE);
	CU_ASSERT_EQUAL(soft_psn_region(0x7FFFFF, 0), SOFT_PSN_INVALID);
	CU_ASSERT_EQUAL(soft_psn_region(0x000005, 0xFFFFFA), SOFT_PSN_INVALID);
	CU_ASSERT_EQUAL(soft_psn_region(0xFFFFFA, 0x000005), SOFT_PSN_DUPLICATE);
}

/* ------------------------------------------------------------------------ */
/* CRCs                                                                      */
/* ------------------------------------------------------------------------ */

static void test_crc_known_answers(void)
{
	static const char check[] = "123456789";
	uint8_t buf[768];
	unsigned i;

	CU_ASSERT_EQUAL(soft_crc32(0, check, 9), 0xCBF43926u);
	CU_ASSERT_EQUAL(soft_crc16(0, check, 9), 0x0A3D);
	CU_ASSERT_EQUAL(ref_crc32((const uint8_t *)check, 9), 0xCBF43926u);
	CU_ASSERT_EQUAL(ref_crc16((const uint8_t *)check, 9), 0x0A3D);
	CU_ASSERT_EQUAL(soft_crc32(0, NULL, 0), 0);
	CU_ASSERT_EQUAL(soft_crc16(0, NULL, 0), 0);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)i;
	CU_ASSERT_EQUAL(soft_crc32(0, buf, sizeof(buf)), 0xB0C0DF2Au);
	CU_ASSERT_EQUAL(soft_crc16(0, buf, sizeof(buf)), 0x8C93);
	/* Chaining. */
	CU_ASSERT_EQUAL(soft_crc32(soft_crc32(0, check, 4), check + 4, 5), 0xCBF43926u);
	CU_ASSERT_EQUAL(soft_crc16(soft_crc16(0, check, 7), check + 7, 2), 0x0A3D);
}

/* The sliced tables agree with the bit-serial reference at every length and alignment. */
static void test_crc_vs_reference(void)
{
	uint8_t buf[200];
	unsigned off, len, i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rnd();
	for (off = 0; off < 8; off++)
		for (len = 0; len + off <= sizeof(buf); len += 1 + len / 16) {
			CU_ASSERT_EQUAL(soft_crc32(0, buf + off, len), ref_crc32(buf + off, len));
			CU_ASSERT_EQUAL(soft_crc16(0, buf + off, len), ref_crc16(buf + off, len));
		}
}

static void test_packet_known_answers(void)
{
	soft_pkt_t p, q;
	uint8_t buf[128];
	size_t len = 0;

	fill_kat_local(&p);
	CU_ASSERT_EQUAL(soft_pkt_len(&p), sizeof(kat_local));
	CU_ASSERT_EQUAL(soft_pkt_build(&p, buf, sizeof(buf), &len), SOFT_WIRE_OK);
	CU_ASSERT_EQUAL(len, sizeof(kat_local));
	CU_ASSERT_EQUAL(memcmp(buf, kat_local, sizeof(kat_local)), 0);
	CU_ASSERT_EQUAL(soft_icrc(kat_local, 24), 0x711B38D3u);
	CU_ASSERT_EQUAL(soft_vcrc(kat_local, 28), 0x067B);
	CU_ASSERT_EQUAL_FATAL(soft_pkt_parse(kat_local, sizeof(kat_local), &q), SOFT_WIRE_OK);
	CU_ASSERT_EQUAL(q.icrc, 0x711B38D3u);
	CU_ASSERT_EQUAL(q.vcrc, 0x067B);
	CU_ASSERT_EQUAL(q.lrh.pkt_len, 7);
	CU_ASSERT_EQUAL(q.payload_len, 4);
	CU_ASSERT_PTR_EQUAL(q.payload, kat_local + 20);

	fill_kat_global(&p);
	CU_ASSERT_EQUAL(soft_pkt_build(&p, buf, sizeof(buf), &len), SOFT_WIRE_OK);
	CU_ASSERT_EQUAL(len, sizeof(kat_global));
	CU_ASSERT_EQUAL(memcmp(buf, kat_global, sizeof(kat_global)), 0);
	CU_ASSERT_EQUAL_FATAL(soft_pkt_parse(kat_global, sizeof(kat_global), &q), SOFT_WIRE_OK);
	CU_ASSERT_EQUAL(q.icrc, 0x7F69E63Cu);
	CU_ASSERT_EQUAL(q.vcrc, 0x0550);
	CU_ASSERT_EQUAL(q.bth.pad_cnt, 3);
	CU_ASSERT_EQUAL(q.payload_len, 5);
	CU_ASSERT_EQUAL(memcmp(q.payload, "hello", 5), 0);
	CU_ASSERT_EQUAL(q.immdt.data, 0xDEADBEEFu);
	CU_ASSERT_EQUAL(q.deth.src_qp, 2);
	CU_ASSERT_EQUAL(memcmp(&q.grh, kat_global + 8, SOFT_GRH_LEN), 0);
	CU_ASSERT_PTR_EQUAL(soft_pkt_bth(kat_global), kat_global + 48);
	CU_ASSERT_PTR_EQUAL(soft_pkt_bth(kat_local), kat_local + 8);
}

/* The ICRC ignores exactly the variant fields; the VCRC covers everything. */
static void test_icrc_variant_fields(void)
{
	uint8_t a[sizeof(kat_global)], b[sizeof(kat_global)];
	uint32_t icrc;
	size_t n = sizeof(kat_global), i;

	/* Local: VL and Resv8a are variant, SL and the LIDs are not. */
	memcpy(a, kat_local, sizeof(kat_local));
	icrc = soft_icrc(a, sizeof(kat_local) - 6);
	a[0] = (uint8_t)((a[0] & 0x0F) | 0xE0);
	a[8 + 4] = 0x5A;
	CU_ASSERT_EQUAL(soft_icrc(a, sizeof(kat_local) - 6), icrc);
	a[1] ^= 0x10; /* SL */
	CU_ASSERT_NOT_EQUAL(soft_icrc(a, sizeof(kat_local) - 6), icrc);
	a[1] ^= 0x10;
	a[3] ^= 1; /* DLID */
	CU_ASSERT_NOT_EQUAL(soft_icrc(a, sizeof(kat_local) - 6), icrc);

	/* Global: the LRH (but LNH decides the layout), TClass, FlowLabel, HopLmt, Resv8a. */
	memcpy(a, kat_global, n);
	icrc = soft_icrc(a, n - 6);
	a[0] = 0xF7;              /* VL, LVer */
	a[1] = 0xF3;              /* SL, reserved; LNH kept */
	a[2] = a[3] = a[6] = a[7] = 0x99; /* LIDs */
	a[8] = 0x6F;              /* TClass high nibble */
	a[9] = a[10] = a[11] = 0; /* TClass low nibble, FlowLabel */
	a[15] = 1;                /* HopLmt */
	a[48 + 4] = 0x77;         /* Resv8a */
	CU_ASSERT_EQUAL(soft_icrc(a, n - 6), icrc);
	/* Every other header and payload bit counts. */
	for (i = 12; i < n - 6; i++) {
		if (i == 15 || i == 48 + 4)
			continue;
		memcpy(b, a, n);
		b[i] ^= 0x01;
		CU_ASSERT_NOT_EQUAL(soft_icrc(b, n - 6), icrc);
	}
	memcpy(b, a, n);
	b[8] ^= 0x10; /* IPVer */
	CU_ASSERT_NOT_EQUAL(soft_icrc(b, n - 6), icrc);
	/* Too short for its headers. */
	CU_ASSERT_EQUAL(soft_icrc(kat_global, 59), 0);
	CU_ASSERT_EQUAL(soft_icrc(kat_local, 4), 0);
	CU_ASSERT_EQUAL(soft_icrc(NULL, 100), 0);
	/* The VCRC changes with a variant field. */
	memcpy(a, kat_local, sizeof(kat_local));
	a[0] ^= 0x10;
	CU_ASSERT_NOT_EQUAL(soft_vcrc(a, sizeof(kat_local) - 2), 0x067B);
}

/* ------------------------------------------------------------------------ */
/* Threads                                                                   */
/* ------------------------------------------------------------------------ */

/* Builds, seals and parses on its own buffers: everything is reentrant. */
static void *wire_worker(void *arg)
{
	uintptr_t ok = 1;
	unsigned i;

	(void)arg;
	for (i = 0; i < 200; i++) {
		soft_pkt_t p, q;
		uint8_t buf[128];
		size_t len = 0;

		fill_kat_global(&p);
		ok &= soft_crc32(0, "123456789", 9) == 0xCBF43926u;
		ok &= soft_pkt_build(&p, buf, sizeof(buf), &len) == SOFT_WIRE_OK;
		ok &= len == sizeof(kat_global) && memcmp(buf, kat_global, len) == 0;
		ok &= soft_pkt_parse(buf, len, &q) == SOFT_WIRE_OK && q.payload_len == 5;
	}
	return (void *)ok;
}

/* Runs first, so that the threads race for the one-time CRC table setup. */
static void test_threads_first_use(void)
{
	pthread_t t[4];
	unsigned i;

	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, wire_worker, NULL), 0);
	for (i = 0; i < 4; i++) {
		void *ok = NULL;

		CU_ASSERT_EQUAL(pthread_join(t[i], &ok), 0);
		CU_ASSERT_PTR_EQUAL(ok, (void *)1);
	}
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_threads_first_use),
	TEST_ENTRY(test_lrh_image),
	TEST_ENTRY(test_bth_image),
	TEST_ENTRY(test_deth_reth_aeth_images),
	TEST_ENTRY(test_ack_headers_patched),
	TEST_ENTRY(test_atomic_imm_ieth_images),
	TEST_ENTRY(test_hdrs_on_base),
	TEST_ENTRY(test_peek_response),
	TEST_ENTRY(test_grh_fields),
	TEST_ENTRY(test_tables_tile_headers),
	TEST_ENTRY(test_field_get_set_generic),
	TEST_ENTRY(test_direct_codecs_agree),
	TEST_ENTRY(test_format),
	TEST_ENTRY(test_opcode_table),
	TEST_ENTRY(test_aeth_codes),
	TEST_ENTRY(test_psn_arith),
	TEST_ENTRY(test_crc_known_answers),
	TEST_ENTRY(test_crc_vs_reference),
	TEST_ENTRY(test_packet_known_answers),
	TEST_ENTRY(test_icrc_variant_fields),
};

TEST_MAIN("soft_wire", tests)
