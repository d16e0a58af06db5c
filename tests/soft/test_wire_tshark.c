/*
 * ibal tests: soft provider packets cross-checked against Wireshark's InfiniBand dissector.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Packets of many opcodes are built with soft_pkt_build() and written to a
 * pcap of link type LINKTYPE_INFINIBAND (247), the format of the soft
 * fabric's captures. Wireshark 4.0 does not read that link type ("network
 * type 247 unknown or unsupported"), so when it refuses the file the test
 * reads a copy whose header says LINKTYPE_USER0 (147), with the user DLT
 * table mapping 147 to the "infiniband" dissector: the records are the same
 * bytes. One `tshark -T fields` run decodes everything; each test asserts
 * that tshark reads back the values the builder was given.
 *
 * Wireshark shows the ICRC and VCRC but does not verify them; the test
 * checks that it finds them where soft_pkt_build() put them (so it agrees on
 * the packet length and pad) and that they are the bytes soft_icrc() and
 * soft_vcrc() give, least significant byte first.
 *
 * Without tshark on PATH the program exits 77 (skipped).
 * IBAL_TSHARK_KEEP=<file> keeps the link type 247 capture.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "soft_wire.h"
#include "../common/cl_test.h"
#include "tshark_test.h"

/* ------------------------------------------------------------------------ */
/* The packets                                                               */
/* ------------------------------------------------------------------------ */

enum {
	P_UD_MAD,        /* UD SEND Only to QP1 carrying an SA MAD */
	P_UD_IMM,        /* UD SEND Only with Immediate */
	P_RC_SEND,       /* RC SEND Only, 13 bytes (pad 3), SE */
	P_RC_SEND_INV,   /* RC SEND Only with Invalidate */
	P_RC_WRITE_FIRST,/* RC RDMA WRITE First with RETH, 256 bytes */
	P_RC_WRITE_IMM,  /* RC RDMA WRITE Only with Immediate */
	P_RC_READ_REQ,   /* RC RDMA READ Request */
	P_RC_READ_RESP,  /* RC RDMA READ response Only with AETH */
	P_RC_ACK,        /* RC Acknowledge, ACK with credits */
	P_RC_RNR_NAK,    /* RC Acknowledge, RNR NAK */
	P_RC_NAK,        /* RC Acknowledge, NAK remote access error */
	P_RC_CMP_SWAP,   /* RC CmpSwap */
	P_RC_FETCH_ADD,  /* RC FetchAdd */
	P_RC_ATOMIC_ACK, /* RC ATOMIC Acknowledge */
	P_UC_WRITE_ONLY, /* UC RDMA WRITE Only */
	P_RC_GLOBAL,     /* RC SEND Only with Immediate behind a GRH */
	N_PACKETS
};

typedef struct {
	soft_pkt_t pkt;
	uint8_t b[600];
	size_t len;
} packet_t;

static packet_t packets[N_PACKETS];
static uint8_t mad[256];
static uint8_t data[256];

#define MAD_TID 0x0102030405060708ull

static void base(soft_pkt_t *p, uint8_t opcode, uint32_t seq)
{
	memset(p, 0, sizeof(*p));
	p->lrh.vl = (uint8_t)(seq % 15);
	p->lrh.sl = (uint8_t)(15 - seq % 15);
	p->lrh.lnh = SOFT_LNH_IBA_LOCAL;
	p->lrh.dlid = (uint16_t)(0x100 + seq);
	p->lrh.slid = (uint16_t)(0xC000 + seq);
	p->bth.opcode = opcode;
	p->bth.pkey = (uint16_t)(0x8000 | (0x10 + seq));
	p->bth.dest_qp = 0x0A0000 + seq;
	p->bth.psn = 0xFFFFF0 + seq; /* crosses the 2^24 wrap */
	p->bth.psn &= SOFT_PSN_MASK;
}

static void build_all(void)
{
	soft_pkt_t *p;
	ib_mad_t *hdr = (ib_mad_t *)mad;
	unsigned i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(0x20 + i % 64);
	memset(mad, 0, sizeof(mad));
	hdr->base_ver = 1;
	hdr->mgmt_class = IB_MCLASS_SUBN_ADM;
	hdr->class_ver = 2;
	hdr->method = IB_MAD_METHOD_GET;
	hdr->trans_id = cl_hton64(MAD_TID);
	hdr->attr_id = IB_MAD_ATTR_PATH_RECORD;

	p = &packets[P_UD_MAD].pkt;
	base(p, SOFT_OPCODE(SOFT_TRANSPORT_UD, SOFT_OP_SEND_ONLY), P_UD_MAD);
	p->lrh.vl = 0;
	p->bth.pkey = 0xFFFF;
	p->bth.dest_qp = 1;
	p->deth.qkey = cl_ntoh32(IB_QP1_WELL_KNOWN_Q_KEY);
	p->deth.src_qp = 1;
	p->payload = mad;
	p->payload_len = sizeof(mad);

	p = &packets[P_UD_IMM].pkt;
	base(p, SOFT_OPCODE(SOFT_TRANSPORT_UD, SOFT_OP_SEND_ONLY_IMM), P_UD_IMM);
	p->deth.qkey = 0x11223344;
	p->deth.src_qp = 0x00ABCD;
	p->immdt.data = 0xCAFEF00Du;
	p->payload = data;
	p->payload_len = 32;

	p = &packets[P_RC_SEND].pkt;
	base(p, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_SEND_ONLY), P_RC_SEND);
	p->bth.se = 1;
	p->bth.ack_req = 1;
	p->payload = data;
	p->payload_len = 13;

	p = &packets[P_RC_SEND_INV].pkt;
	base(p, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_SEND_ONLY_INV), P_RC_SEND_INV);
	p->ieth.rkey = 0x5EED1234u;
	p->payload = data;
	p->payload_len = 8;

	p = &packets[P_RC_WRITE_FIRST].pkt;
	base(p, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_WRITE_FIRST), P_RC_WRITE_FIRST);
	p->bth.mig = 1;
	p->reth.va = 0x00007F0012345000ull;
	p->reth.rkey = 0x00C0FFEEu;
	p->reth.dma_len = 1000;
	p->payload = data;
	p->payload_len = 256;

	p = &packets[P_RC_WRITE_IMM].pkt;
	base(p, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_WRITE_ONLY_IMM), P_RC_WRITE_IMM);
	p->reth.va = 0xFFFF800000001000ull;
	p->reth.rkey = 0xA5A5A5A5u;
	p->reth.dma_len = 7;
	p->immdt.data = 0x01020304u;
	p->payload = data;
	p->payload_len = 7;

	p = &packets[P_RC_READ_REQ].pkt;
	base(p, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_READ_REQUEST), P_RC_READ_REQ);
	p->bth.ack_req = 1;
	p->reth.va = 0x0000000000400000ull;
	p->reth.rkey = 0x00001234u;
	p->reth.dma_len = 4096;

	p = &packets[P_RC_READ_RESP].pkt;
	base(p, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_READ_RESPONSE_ONLY), P_RC_READ_RESP);
	p->aeth.syndrome = soft_aeth_encode(SOFT_AETH_ACK, 10);
	p->aeth.msn = 0x000100;
	p->payload = data;
	p->payload_len = 64;

	p = &packets[P_RC_ACK].pkt;
	base(p, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_ACKNOWLEDGE), P_RC_ACK);
	p->aeth.syndrome = soft_aeth_encode(SOFT_AETH_ACK, 12);
	p->aeth.msn = 0xFFFFFF;

	p = &packets[P_RC_RNR_NAK].pkt;
	base(p, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_ACKNOWLEDGE), P_RC_RNR_NAK);
	p->aeth.syndrome = soft_aeth_encode(SOFT_AETH_RNR_NAK, 14);
	p->aeth.msn = 0x000042;

	p = &packets[P_RC_NAK].pkt;
	base(p, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_ACKNOWLEDGE), P_RC_NAK);
	p->aeth.syndrome = soft_aeth_encode(SOFT_AETH_NAK, SOFT_NAK_REM_ACCESS_ERR);
	p->aeth.msn = 0x000043;

	p = &packets[P_RC_CMP_SWAP].pkt;
	base(p, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_COMPARE_SWAP), P_RC_CMP_SWAP);
	p->bth.ack_req = 1;
	p->atomic_eth.va = 0x0000600000000008ull;
	p->atomic_eth.rkey = 0x77665544u;
	p->atomic_eth.swap_add = 0x1122334455667788ull;
	p->atomic_eth.compare = 0x0000000000000005ull;

	p = &packets[P_RC_FETCH_ADD].pkt;
	base(p, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_FETCH_ADD), P_RC_FETCH_ADD);
	p->atomic_eth.va = 0x0000600000000010ull;
	p->atomic_eth.rkey = 0x33221100u;
	p->atomic_eth.swap_add = 42;

	p = &packets[P_RC_ATOMIC_ACK].pkt;
	base(p, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_ATOMIC_ACKNOWLEDGE), P_RC_ATOMIC_ACK);
	p->aeth.syndrome = soft_aeth_encode(SOFT_AETH_ACK, SOFT_AETH_CREDITS_INVALID);
	p->aeth.msn = 0x000777;
	p->atomic_ack.orig = 0x8000000000000001ull;

	p = &packets[P_UC_WRITE_ONLY].pkt;
	base(p, SOFT_OPCODE(SOFT_TRANSPORT_UC, SOFT_OP_WRITE_ONLY), P_UC_WRITE_ONLY);
	p->reth.va = 0x1000;
	p->reth.rkey = 0x0BADC0DEu;
	p->reth.dma_len = 2;
	p->payload = data;
	p->payload_len = 2;

	p = &packets[P_RC_GLOBAL].pkt;
	base(p, SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_SEND_ONLY_IMM), P_RC_GLOBAL);
	p->lrh.lnh = SOFT_LNH_IBA_GLOBAL;
	p->grh.ver_class_flow = ib_grh_set_ver_class_flow(6, 0x5C, cl_hton32(0xABCDE));
	p->grh.hop_limit = 63;
	p->grh.src_gid.unicast.prefix = cl_hton64(0xFE80000000000000ull);
	p->grh.src_gid.unicast.interface_id = cl_hton64(0x0002C90300001111ull);
	p->grh.dest_gid.unicast.prefix = cl_hton64(0xFEC0000000000001ull);
	p->grh.dest_gid.unicast.interface_id = cl_hton64(0x0002C90300002222ull);
	p->immdt.data = 0x0000FFFFu;
	p->payload = data;
	p->payload_len = 40;

	for (i = 0; i < N_PACKETS; i++) {
		packet_t *k = &packets[i];
		soft_wire_status_t st = soft_pkt_build(&k->pkt, k->b, sizeof(k->b), &k->len);

		if (st != SOFT_WIRE_OK) {
			fprintf(stderr, "packet %u: %s\n", i, soft_wire_strerror(st));
			exit(2);
		}
	}
}

/* ------------------------------------------------------------------------ */
/* pcap and tshark                                                           */
/* ------------------------------------------------------------------------ */

#define LINKTYPE_INFINIBAND 247
#define LINKTYPE_USER0      147
#define CAPTURE_EPOCH       1767225600u /* 2026-01-01 00:00:00 UTC */

/* pcap header fields are in the writer's byte order (the magic says which). */
static int put(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -1;
}

static int put32(FILE *f, uint32_t v)
{
	return put(f, &v, 4);
}

static int put16(FILE *f, uint16_t v)
{
	return put(f, &v, 2);
}

static int write_pcap(const char *path, uint32_t linktype)
{
	FILE *f = fopen(path, "wb");
	int rc = 0, i;

	if (!f)
		return -1;
	rc |= put32(f, 0xA1B2C3D4u);
	rc |= put16(f, 2);
	rc |= put16(f, 4);
	rc |= put32(f, 0);
	rc |= put32(f, 0);
	rc |= put32(f, 65535);
	rc |= put32(f, linktype);
	for (i = 0; i < N_PACKETS; i++) {
		rc |= put32(f, CAPTURE_EPOCH + (uint32_t)i);
		rc |= put32(f, 0);
		rc |= put32(f, (uint32_t)packets[i].len);
		rc |= put32(f, (uint32_t)packets[i].len);
		rc |= put(f, packets[i].b, packets[i].len);
	}
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

static const char *const field_names[] = {
	"_ws.malformed",
	"_ws.expert.severity",
	"infiniband.lrh.vl",
	"infiniband.lrh.lver",
	"infiniband.lrh.sl",
	"infiniband.lrh.lnh",
	"infiniband.lrh.dlid",
	"infiniband.lrh.pktlen",
	"infiniband.lrh.slid",
	"infiniband.grh.ipver",
	"infiniband.grh.tclass",
	"infiniband.grh.flowlabel",
	"infiniband.grh.paylen",
	"infiniband.grh.nxthdr",
	"infiniband.grh.hoplmt",
	"infiniband.grh.sgid",
	"infiniband.grh.dgid",
	"infiniband.bth.opcode",
	"infiniband.bth.se",
	"infiniband.bth.m",
	"infiniband.bth.padcnt",
	"infiniband.bth.tver",
	"infiniband.bth.p_key",
	"infiniband.bth.destqp",
	"infiniband.bth.a",
	"infiniband.bth.psn",
	"infiniband.deth.q_key",
	"infiniband.deth.srcqp",
	"infiniband.reth.va",
	"infiniband.reth.r_key",
	"infiniband.reth.dmalen",
	"infiniband.aeth.syndrome",
	"infiniband.aeth.msn",
	"infiniband.atomiceth.swapdt",
	"infiniband.atomiceth.cmpdt",
	"infiniband.atomicacketh.origremdt",
	"infiniband.immdt",
	"infiniband.ieth",
	"data.data",
	"infiniband.invariant.crc",
	"infiniband.variant.crc",
	"infiniband.mad.baseversion",
	"infiniband.mad.mgmtclass",
	"infiniband.mad.classversion",
	"infiniband.mad.method",
	"infiniband.mad.transactionid",
	"infiniband.mad.attributeid",
};
#define N_FIELDS TEST_COUNT(field_names)

/* tshark's output: values[packet][field], malloc'ed strings. */
static char *values[N_PACKETS][N_FIELDS];
static int tshark_rows = -1;

static int field_index(const char *name)
{
	unsigned i;

	for (i = 0; i < N_FIELDS; i++)
		if (strcmp(field_names[i], name) == 0)
			return (int)i;
	fprintf(stderr, "unknown field %s\n", name);
	abort();
}

static const char *val(int pkt, const char *name)
{
	const char *v = values[pkt][field_index(name)];

	return v ? v : "";
}

/* A numeric field (tshark prints decimal or 0x-hex); -1 if absent or not a number. */
static long long num(int pkt, const char *name)
{
	const char *v = val(pkt, name);
	char *end;
	unsigned long long x;

	if (!*v)
		return -1;
	if (strcmp(v, "True") == 0)
		return 1;
	if (strcmp(v, "False") == 0)
		return 0;
	x = strtoull(v, &end, 0);
	return *end ? -1 : (long long)x;
}

/* A 64-bit numeric field, compared as unsigned. */
static int num64_is(int pkt, const char *name, uint64_t expect)
{
	const char *v = val(pkt, name);
	char *end;

	return *v && strtoull(v, &end, 0) == expect && !*end;
}

/*
 * Upper-layer protocols whose heuristics would claim RC payloads (and then
 * call them malformed): the payload is left to the "data" dissector.
 */
#define NO_HEURISTICS                                                                  \
	"--disable-protocol rpcordma --disable-protocol iser --disable-protocol nvme-rdma " \
	"--disable-protocol smb_direct --disable-protocol lnet --disable-protocol smc"

/* The user DLT table entry handing LINKTYPE_USER0 to the InfiniBand dissector. */
#define USER0_IS_INFINIBAND \
	"-o 'uat:user_dlts:\"User 0 (DLT=147)\",\"infiniband\",\"0\",\"\",\"0\",\"\"'"

/* tshark_run()'s slot for line @index: values[index], or none past N_PACKETS. */
static char **row_slot(void *ctx, int index)
{
	(void)ctx;
	return index < N_PACKETS ? values[index] : NULL;
}

static int run_tshark(const char *path, const char *extra)
{
	char before[1024];

	snprintf(before, sizeof(before), "%s %s", NO_HEURISTICS, extra);
	return tshark_run(before, path, "-E occurrence=f", field_names, N_FIELDS, row_slot, NULL);
}

static void free_values(void)
{
	int p;

	for (p = 0; p < N_PACKETS; p++)
		tshark_free_row(values[p], N_FIELDS);
}

/* Writes the capture and decodes it once for all tests. */
static int decode_all(void)
{
	const char *keep = getenv("IBAL_TSHARK_KEEP");
	const char *tmp = getenv("TMPDIR");
	char dir[512], f247[600], f147[600];
	int rows;

	snprintf(dir, sizeof(dir), "%s/ibal-wire-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	snprintf(f247, sizeof(f247), "%s/ib247.pcap", dir);
	snprintf(f147, sizeof(f147), "%s/ib147.pcap", dir);
	if (write_pcap(keep && *keep ? keep : f247, LINKTYPE_INFINIBAND) != 0 ||
	    write_pcap(f147, LINKTYPE_USER0) != 0)
		return -1;
	rows = run_tshark(keep && *keep ? keep : f247, "");
	if (rows != N_PACKETS) {
		free_values();
		rows = run_tshark(f147, USER0_IS_INFINIBAND);
	}
	unlink(f247);
	unlink(f147);
	rmdir(dir);
	if (getenv("IBAL_TSHARK_DUMP")) {
		int p;
		unsigned f;

		for (p = 0; p < N_PACKETS; p++)
			for (f = 0; f < N_FIELDS; f++)
				if (values[p][f] && values[p][f][0])
					printf("%d %s = %s\n", p, field_names[f], values[p][f]);
	}
	return rows;
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                     */
/* ------------------------------------------------------------------------ */

static void test_decoded_all(void)
{
	int p;

	CU_ASSERT_EQUAL_FATAL(tshark_rows, N_PACKETS);
	for (p = 0; p < N_PACKETS; p++) {
		CU_ASSERT_STRING_EQUAL(val(p, "_ws.malformed"), "");
		CU_ASSERT_STRING_EQUAL(val(p, "_ws.expert.severity"), "");
		CU_ASSERT_EQUAL(num(p, "infiniband.bth.opcode"), packets[p].pkt.bth.opcode);
	}
}

static void test_lrh(void)
{
	int p;

	CU_ASSERT_EQUAL_FATAL(tshark_rows, N_PACKETS);
	for (p = 0; p < N_PACKETS; p++) {
		const soft_pkt_t *k = &packets[p].pkt;

		CU_ASSERT_EQUAL(num(p, "infiniband.lrh.vl"), k->lrh.vl);
		CU_ASSERT_EQUAL(num(p, "infiniband.lrh.lver"), 0);
		CU_ASSERT_EQUAL(num(p, "infiniband.lrh.sl"), k->lrh.sl);
		CU_ASSERT_EQUAL(num(p, "infiniband.lrh.lnh"), k->lrh.lnh);
		CU_ASSERT_EQUAL(num(p, "infiniband.lrh.dlid"), k->lrh.dlid);
		CU_ASSERT_EQUAL(num(p, "infiniband.lrh.slid"), k->lrh.slid);
		CU_ASSERT_EQUAL(num(p, "infiniband.lrh.pktlen"),
				(long long)(packets[p].len - 2) / 4);
	}
}

static void test_bth(void)
{
	int p;

	CU_ASSERT_EQUAL_FATAL(tshark_rows, N_PACKETS);
	for (p = 0; p < N_PACKETS; p++) {
		const soft_pkt_t *k = &packets[p].pkt;

		CU_ASSERT_EQUAL(num(p, "infiniband.bth.se"), k->bth.se);
		CU_ASSERT_EQUAL(num(p, "infiniband.bth.m"), k->bth.mig);
		CU_ASSERT_EQUAL(num(p, "infiniband.bth.padcnt"), (4 - k->payload_len % 4) % 4);
		CU_ASSERT_EQUAL(num(p, "infiniband.bth.tver"), 0);
		CU_ASSERT_EQUAL(num(p, "infiniband.bth.p_key"), k->bth.pkey);
		CU_ASSERT_EQUAL(num(p, "infiniband.bth.destqp"), k->bth.dest_qp);
		CU_ASSERT_EQUAL(num(p, "infiniband.bth.a"), k->bth.ack_req);
		CU_ASSERT_EQUAL(num(p, "infiniband.bth.psn"), k->bth.psn);
	}
	/* The PSNs straddle the 2^24 wrap. */
	CU_ASSERT_EQUAL(num(P_UD_MAD, "infiniband.bth.psn"), 0xFFFFF0);
	CU_ASSERT_EQUAL(num(P_RC_GLOBAL, "infiniband.bth.psn"), 0xFFFFFF);
	CU_ASSERT_EQUAL(num(P_RC_SEND, "infiniband.bth.padcnt"), 3);
}

static void test_ud_deth_mad(void)
{
	CU_ASSERT_EQUAL_FATAL(tshark_rows, N_PACKETS);
	CU_ASSERT_EQUAL(num(P_UD_MAD, "infiniband.bth.opcode"), 0x64);
	CU_ASSERT_EQUAL(num(P_UD_MAD, "infiniband.deth.q_key"), cl_ntoh32(IB_QP1_WELL_KNOWN_Q_KEY));
	CU_ASSERT_EQUAL(num(P_UD_MAD, "infiniband.deth.srcqp"), 1);
	CU_ASSERT_EQUAL(num(P_UD_MAD, "infiniband.mad.baseversion"), 1);
	CU_ASSERT_EQUAL(num(P_UD_MAD, "infiniband.mad.mgmtclass"), IB_MCLASS_SUBN_ADM);
	CU_ASSERT_EQUAL(num(P_UD_MAD, "infiniband.mad.classversion"), 2);
	CU_ASSERT_EQUAL(num(P_UD_MAD, "infiniband.mad.method"), IB_MAD_METHOD_GET);
	CU_ASSERT_TRUE(num64_is(P_UD_MAD, "infiniband.mad.transactionid", MAD_TID));
	CU_ASSERT_EQUAL(num(P_UD_MAD, "infiniband.mad.attributeid"),
			cl_ntoh16(IB_MAD_ATTR_PATH_RECORD));
	CU_ASSERT_EQUAL(num(P_UD_IMM, "infiniband.deth.q_key"), 0x11223344);
	CU_ASSERT_EQUAL(num(P_UD_IMM, "infiniband.deth.srcqp"), 0xABCD);
}

static void test_reth(void)
{
	static const int with_reth[] = { P_RC_WRITE_FIRST, P_RC_WRITE_IMM, P_RC_READ_REQ,
					 P_UC_WRITE_ONLY };
	unsigned i;

	CU_ASSERT_EQUAL_FATAL(tshark_rows, N_PACKETS);
	for (i = 0; i < TEST_COUNT(with_reth); i++) {
		int p = with_reth[i];
		const soft_pkt_t *k = &packets[p].pkt;

		CU_ASSERT_TRUE(num64_is(p, "infiniband.reth.va", k->reth.va));
		CU_ASSERT_EQUAL(num(p, "infiniband.reth.r_key"), k->reth.rkey);
		CU_ASSERT_EQUAL(num(p, "infiniband.reth.dmalen"), k->reth.dma_len);
	}
	CU_ASSERT_STRING_EQUAL(val(P_RC_SEND, "infiniband.reth.va"), "");
}

static void test_aeth(void)
{
	static const int with_aeth[] = { P_RC_READ_RESP, P_RC_ACK, P_RC_RNR_NAK, P_RC_NAK,
					 P_RC_ATOMIC_ACK };
	unsigned i;

	CU_ASSERT_EQUAL_FATAL(tshark_rows, N_PACKETS);
	for (i = 0; i < TEST_COUNT(with_aeth); i++) {
		int p = with_aeth[i];
		const soft_pkt_t *k = &packets[p].pkt;

		CU_ASSERT_EQUAL(num(p, "infiniband.aeth.syndrome"), k->aeth.syndrome);
		CU_ASSERT_EQUAL(num(p, "infiniband.aeth.msn"), k->aeth.msn);
	}
	CU_ASSERT_EQUAL(num(P_RC_RNR_NAK, "infiniband.aeth.syndrome"), 0x2E);
	CU_ASSERT_EQUAL(num(P_RC_NAK, "infiniband.aeth.syndrome"), 0x62);
	CU_ASSERT_EQUAL(num(P_RC_ACK, "infiniband.aeth.syndrome"), 0x0C);
}

static void test_atomics(void)
{
	CU_ASSERT_EQUAL_FATAL(tshark_rows, N_PACKETS);
	CU_ASSERT_TRUE(num64_is(P_RC_CMP_SWAP, "infiniband.atomiceth.swapdt",
				0x1122334455667788ull));
	CU_ASSERT_TRUE(num64_is(P_RC_CMP_SWAP, "infiniband.atomiceth.cmpdt", 5));
	CU_ASSERT_TRUE(num64_is(P_RC_FETCH_ADD, "infiniband.atomiceth.swapdt", 42));
	CU_ASSERT_TRUE(num64_is(P_RC_FETCH_ADD, "infiniband.atomiceth.cmpdt", 0));
	/* The dissector shows the AtomicETH VA and R_Key with the RETH's fields. */
	CU_ASSERT_TRUE(num64_is(P_RC_CMP_SWAP, "infiniband.reth.va", 0x0000600000000008ull));
	CU_ASSERT_EQUAL(num(P_RC_CMP_SWAP, "infiniband.reth.r_key"), 0x77665544);
	CU_ASSERT_TRUE(num64_is(P_RC_FETCH_ADD, "infiniband.reth.va", 0x0000600000000010ull));
	CU_ASSERT_EQUAL(num(P_RC_FETCH_ADD, "infiniband.reth.r_key"), 0x33221100);
	CU_ASSERT_TRUE(num64_is(P_RC_ATOMIC_ACK, "infiniband.atomicacketh.origremdt",
				0x8000000000000001ull));
}

static void test_imm_ieth_payload(void)
{
	char hex[2 * 600 + 1];
	int p;

	CU_ASSERT_EQUAL_FATAL(tshark_rows, N_PACKETS);
	CU_ASSERT_STRING_EQUAL(val(P_UD_IMM, "infiniband.immdt"), "cafef00d");
	CU_ASSERT_STRING_EQUAL(val(P_RC_WRITE_IMM, "infiniband.immdt"), "01020304");
	CU_ASSERT_STRING_EQUAL(val(P_RC_GLOBAL, "infiniband.immdt"), "0000ffff");
	CU_ASSERT_STRING_EQUAL(val(P_RC_SEND_INV, "infiniband.ieth"), "5eed1234");
	/* The dissector hands payload and pad to "data": the payload, then zeros. */
	for (p = 0; p < N_PACKETS; p++) {
		const soft_pkt_t *k = &packets[p].pkt;
		uint32_t i, pad = (4 - k->payload_len % 4) % 4;

		if (p == P_UD_MAD)
			continue;
		hex[0] = '\0';
		for (i = 0; i < k->payload_len + pad; i++)
			snprintf(hex + 2 * i, 3, "%02x", i < k->payload_len ? k->payload[i] : 0);
		CU_ASSERT_STRING_EQUAL(val(p, "data.data"), hex);
	}
	CU_ASSERT_EQUAL(strlen(val(P_RC_SEND, "data.data")), 2 * 16);
}

static void test_grh(void)
{
	int p = P_RC_GLOBAL;

	CU_ASSERT_EQUAL_FATAL(tshark_rows, N_PACKETS);
	CU_ASSERT_EQUAL(num(p, "infiniband.grh.ipver"), 6);
	CU_ASSERT_EQUAL(num(p, "infiniband.grh.tclass"), 0x5C);
	CU_ASSERT_EQUAL(num(p, "infiniband.grh.flowlabel"), 0xABCDE);
	CU_ASSERT_EQUAL(num(p, "infiniband.grh.paylen"), (long long)packets[p].len - 8 - 40 - 2);
	CU_ASSERT_EQUAL(num(p, "infiniband.grh.nxthdr"), 0x1B);
	CU_ASSERT_EQUAL(num(p, "infiniband.grh.hoplmt"), 63);
	CU_ASSERT_STRING_EQUAL(val(p, "infiniband.grh.sgid"), "fe80::2:c903:0:1111");
	CU_ASSERT_STRING_EQUAL(val(p, "infiniband.grh.dgid"), "fec0::1:2:c903:0:2222");
	CU_ASSERT_STRING_EQUAL(val(P_RC_SEND, "infiniband.grh.ipver"), "");
}

static void test_crcs(void)
{
	int p;

	CU_ASSERT_EQUAL_FATAL(tshark_rows, N_PACKETS);
	for (p = 0; p < N_PACKETS; p++) {
		const uint8_t *b = packets[p].b;
		size_t n = packets[p].len;
		uint32_t icrc = soft_icrc(b, n - 6);
		uint16_t vcrc = soft_vcrc(b, n - 2);
		/* tshark reads both fields big-endian; they are sent LSB first. */
		uint32_t icrc_shown = ((icrc & 0xFF) << 24) | ((icrc & 0xFF00) << 8) |
				      ((icrc >> 8) & 0xFF00) | (icrc >> 24);
		uint16_t vcrc_shown = (uint16_t)((vcrc << 8) | (vcrc >> 8));

		CU_ASSERT_EQUAL(num(p, "infiniband.invariant.crc"), icrc_shown);
		CU_ASSERT_EQUAL(num(p, "infiniband.variant.crc"), vcrc_shown);
	}
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_decoded_all),
	TEST_ENTRY(test_lrh),
	TEST_ENTRY(test_bth),
	TEST_ENTRY(test_ud_deth_mad),
	TEST_ENTRY(test_reth),
	TEST_ENTRY(test_aeth),
	TEST_ENTRY(test_atomics),
	TEST_ENTRY(test_imm_ieth_payload),
	TEST_ENTRY(test_grh),
	TEST_ENTRY(test_crcs),
};

int main(void)
{
	int rc;

	if (system("tshark -v >/dev/null 2>&1") != 0) {
		printf("tshark not found: skipped\n");
		return 77;
	}
	build_all();
	tshark_rows = decode_all();
	rc = test_run_suite("soft_wire_tshark", tests, TEST_COUNT(tests));
	free_values();
	return rc;
}
