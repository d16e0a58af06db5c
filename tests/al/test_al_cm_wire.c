/*
 * ibal tests: the CM messages' wire format (al_cm_pack / al_cm_unpack) byte by byte.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The expectations are written from the IBA (volume 1, chapter 12, the
 * "Message Contents" tables), not from al_cm_wire.c's tables: each
 * message is packed with distinctive values and every byte that carries a
 * field is compared with the value worked out by hand from the table's
 * byte and bit offsets. Byte offsets below count from the start of the
 * message, i.e. after the 24-byte MAD header (MSG(n) = mad byte 24 + n).
 * Then: round trips, truncation of values wider than their field (and
 * their neighbours untouched), reserved bits (a message with every host
 * bit set must set exactly the bits the spec defines; a MAD with every
 * bit set unpacks and repacks with the reserved bits zero), the MAD
 * header, attribute IDs and names, and unpack's errors.
 */
#include <stdio.h>
#include <string.h>
#include <iba/ib_types.h>
#include "al_cm_wire.h"
#include "../common/cl_test.h"

#define HDR 24
#define TID CL_HTON64(0x0123456789ABCDEFull)

static uint8_t g_mad[MAD_BLOCK_SIZE];
#define MAD ((ib_mad_t *)g_mad)
#define MSG(n) (g_mad[HDR + (n)])

/* Big-endian number of @n bytes at message offset @off. */
static uint64_t be(unsigned off, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		v = (v << 8) | MSG(off + i);
	return v;
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

/* The bytes at message offset @off equal @n bytes of @p. */
static int bytes_are(unsigned off, const void *p, size_t n)
{
	return memcmp(&MSG(off), p, n) == 0;
}

static void gid_fill(ib_gid_t *g, uint8_t seed)
{
	fill(g->raw, 16, seed);
}

static void pack(al_cm_msg_type_t t, const al_cm_msg_t *m)
{
	memset(g_mad, 0xEE, sizeof(g_mad)); /* pack must overwrite everything */
	al_cm_pack(t, m, TID, MAD);
}

static void check_header(al_cm_msg_type_t t)
{
	CU_ASSERT_EQUAL(g_mad[0], 1);    /* base version */
	CU_ASSERT_EQUAL(g_mad[1], 0x07); /* class: CM */
	CU_ASSERT_EQUAL(g_mad[2], 2);    /* class version */
	CU_ASSERT_EQUAL(g_mad[3], 0x03); /* Send() */
	CU_ASSERT_EQUAL(g_mad[4], 0);    /* status */
	CU_ASSERT_EQUAL(g_mad[5], 0);
	CU_ASSERT_EQUAL(g_mad[6], 0);    /* class specific */
	CU_ASSERT_EQUAL(g_mad[7], 0);
	CU_ASSERT_EQUAL(memcmp(&g_mad[8], "\x01\x23\x45\x67\x89\xAB\xCD\xEF", 8), 0);
	CU_ASSERT_EQUAL(g_mad[16], 0x00);
	CU_ASSERT_EQUAL(g_mad[17], 0x10 + (unsigned)t); /* attribute ID */
	CU_ASSERT_EQUAL(g_mad[18], 0);   /* reserved */
	CU_ASSERT_EQUAL(g_mad[19], 0);
	CU_ASSERT_EQUAL(g_mad[20] | g_mad[21] | g_mad[22] | g_mad[23], 0); /* attribute modifier */
}

/* Unpacks g_mad and compares with @m member by member (memcmp of the union; both zeroed first). */
static void check_round_trip(al_cm_msg_type_t t, const al_cm_msg_t *m, size_t size)
{
	al_cm_msg_t out;
	al_cm_msg_type_t got = AL_CM_MSG_COUNT;

	memset(&out, 0x5A, sizeof(out));
	CU_ASSERT_EQUAL(al_cm_unpack(MAD, sizeof(g_mad), &got, &out), IB_SUCCESS);
	CU_ASSERT_EQUAL(got, t);
	CU_ASSERT_EQUAL(memcmp(&out, m, size), 0);
}

/* ------------------------------------------------------------------------ */
/* Exact bytes                                                                */
/* ------------------------------------------------------------------------ */

static void req_values(al_cm_msg_t *m)
{
	al_cm_req_msg_t *r = &m->req;

	memset(m, 0, sizeof(*m));
	r->local_comm_id = 0x11223344;
	r->service_id = 0x0102030405060708ull;
	r->local_ca_guid = 0xA1A2A3A4A5A6A7A8ull;
	r->local_qkey = 0x0BADCAFE;
	r->local_qpn = 0x123456;
	r->resp_res = 0x9A;
	r->local_eecn = 0x654321;
	r->init_depth = 0x7B;
	r->remote_eecn = 0xABCDEF;
	r->remote_cm_resp_timeout = 0x15;
	r->transport = AL_CM_TRANSPORT_UC;
	r->flow_ctrl = 1;
	r->starting_psn = 0xFEDCBA;
	r->local_cm_resp_timeout = 0x0C;
	r->retry_count = 5;
	r->pkey = 0x8001;
	r->path_mtu = 4;
	r->rdc_exists = 1;
	r->rnr_retry_count = 6;
	r->max_cm_retries = 0xA;
	r->srq = 1;
	r->ext_transport = 2;
	r->primary.local_lid = 0x0102;
	r->primary.remote_lid = 0x0304;
	gid_fill(&r->primary.local_gid, 0x10);
	gid_fill(&r->primary.remote_gid, 0x20);
	r->primary.flow_label = 0xABCDE;
	r->primary.packet_rate = 0x2A;
	r->primary.traffic_class = 0x5C;
	r->primary.hop_limit = 0x40;
	r->primary.sl = 0xB;
	r->primary.subnet_local = 1;
	r->primary.local_ack_timeout = 0x13;
	r->alternate.local_lid = 0x0506;
	r->alternate.remote_lid = 0x0708;
	gid_fill(&r->alternate.local_gid, 0x30);
	gid_fill(&r->alternate.remote_gid, 0x40);
	r->alternate.flow_label = 0x12345;
	r->alternate.packet_rate = 0x11;
	r->alternate.traffic_class = 0x66;
	r->alternate.hop_limit = 0x77;
	r->alternate.sl = 3;
	r->alternate.subnet_local = 0;
	r->alternate.local_ack_timeout = 0x1F;
	r->sap_supported = 1;
	fill(r->private_data, sizeof(r->private_data), 0x61);
}

static void test_req_bytes(void)
{
	al_cm_msg_t m;

	req_values(&m);
	pack(AL_CM_MSG_REQ, &m);
	check_header(AL_CM_MSG_REQ);
	CU_ASSERT_EQUAL(be(0, 4), 0x11223344);            /* Local Communication ID */
	CU_ASSERT_EQUAL(be(4, 4), 0);                     /* reserved */
	CU_ASSERT_EQUAL(be(8, 8), 0x0102030405060708ull); /* ServiceID */
	CU_ASSERT_EQUAL(be(16, 8), 0xA1A2A3A4A5A6A7A8ull); /* Local CA GUID */
	CU_ASSERT_EQUAL(be(24, 4), 0);                    /* reserved */
	CU_ASSERT_EQUAL(be(28, 4), 0x0BADCAFE);           /* Local Q_Key */
	CU_ASSERT_EQUAL(be(32, 3), 0x123456);             /* Local QPN */
	CU_ASSERT_EQUAL(MSG(35), 0x9A);                   /* Responder Resources */
	CU_ASSERT_EQUAL(be(36, 3), 0x654321);             /* Local EECN */
	CU_ASSERT_EQUAL(MSG(39), 0x7B);                   /* Initiator Depth */
	CU_ASSERT_EQUAL(be(40, 3), 0xABCDEF);             /* Remote EECN */
	CU_ASSERT_EQUAL(MSG(43), 0xAB); /* timeout 10101, transport 01, flow control 1 */
	CU_ASSERT_EQUAL(be(44, 3), 0xFEDCBA);             /* Starting PSN */
	CU_ASSERT_EQUAL(MSG(47), 0x65); /* local CM timeout 01100, retry count 101 */
	CU_ASSERT_EQUAL(be(48, 2), 0x8001);               /* Partition Key */
	CU_ASSERT_EQUAL(MSG(50), 0x4E); /* MTU 0100, RDC 1, RNR retry 110 */
	CU_ASSERT_EQUAL(MSG(51), 0xAA); /* max CM retries 1010, SRQ 1, ext transport 010 */
	/* Primary path */
	CU_ASSERT_EQUAL(be(52, 2), 0x0102);
	CU_ASSERT_EQUAL(be(54, 2), 0x0304);
	CU_ASSERT_TRUE(bytes_are(56, m.req.primary.local_gid.raw, 16));
	CU_ASSERT_TRUE(bytes_are(72, m.req.primary.remote_gid.raw, 16));
	CU_ASSERT_EQUAL(be(88, 4), 0xABCDE02Au); /* flow label 20, reserved 6, rate 6 */
	CU_ASSERT_EQUAL(MSG(92), 0x5C);          /* traffic class */
	CU_ASSERT_EQUAL(MSG(93), 0x40);          /* hop limit */
	CU_ASSERT_EQUAL(MSG(94), 0xB8);          /* SL 1011, subnet local 1, reserved */
	CU_ASSERT_EQUAL(MSG(95), 0x98);          /* local ACK timeout 10011, reserved */
	/* Alternate path */
	CU_ASSERT_EQUAL(be(96, 2), 0x0506);
	CU_ASSERT_EQUAL(be(98, 2), 0x0708);
	CU_ASSERT_TRUE(bytes_are(100, m.req.alternate.local_gid.raw, 16));
	CU_ASSERT_TRUE(bytes_are(116, m.req.alternate.remote_gid.raw, 16));
	CU_ASSERT_EQUAL(be(132, 4), 0x12345011u);
	CU_ASSERT_EQUAL(MSG(136), 0x66);
	CU_ASSERT_EQUAL(MSG(137), 0x77);
	CU_ASSERT_EQUAL(MSG(138), 0x30);         /* SL 0011, subnet local 0 */
	CU_ASSERT_EQUAL(MSG(139), 0xFC);         /* ACK timeout 11111, SAP supported 1 */
	CU_ASSERT_TRUE(bytes_are(140, m.req.private_data, 92));
	check_round_trip(AL_CM_MSG_REQ, &m, sizeof(m.req));
}

static void test_mra_bytes(void)
{
	al_cm_msg_t m;

	memset(&m, 0, sizeof(m));
	m.mra.local_comm_id = 0xC0DE0001;
	m.mra.remote_comm_id = 0xC0DE0002;
	m.mra.msg_mraed = AL_CM_REF_OTHER;
	m.mra.service_timeout = 0x1D;
	fill(m.mra.private_data, sizeof(m.mra.private_data), 3);
	pack(AL_CM_MSG_MRA, &m);
	check_header(AL_CM_MSG_MRA);
	CU_ASSERT_EQUAL(be(0, 4), 0xC0DE0001);
	CU_ASSERT_EQUAL(be(4, 4), 0xC0DE0002);
	CU_ASSERT_EQUAL(MSG(8), 0x80);  /* message MRAed 10, reserved */
	CU_ASSERT_EQUAL(MSG(9), 0xE8);  /* service timeout 11101, reserved */
	CU_ASSERT_TRUE(bytes_are(10, m.mra.private_data, 222));
	check_round_trip(AL_CM_MSG_MRA, &m, sizeof(m.mra));
}

static void test_rej_bytes(void)
{
	al_cm_msg_t m;

	memset(&m, 0, sizeof(m));
	m.rej.local_comm_id = 0x01020304;
	m.rej.remote_comm_id = 0x05060708;
	m.rej.msg_rejected = AL_CM_REF_REP;
	m.rej.ari_length = 72;
	m.rej.reason = 28;
	fill(m.rej.ari, sizeof(m.rej.ari), 0x90);
	fill(m.rej.private_data, sizeof(m.rej.private_data), 0x17);
	pack(AL_CM_MSG_REJ, &m);
	check_header(AL_CM_MSG_REJ);
	CU_ASSERT_EQUAL(be(0, 4), 0x01020304);
	CU_ASSERT_EQUAL(be(4, 4), 0x05060708);
	CU_ASSERT_EQUAL(MSG(8), 0x40);  /* message rejected 01 */
	CU_ASSERT_EQUAL(MSG(9), 0x90);  /* ARI length 1001000, reserved */
	CU_ASSERT_EQUAL(be(10, 2), 28); /* reason */
	CU_ASSERT_TRUE(bytes_are(12, m.rej.ari, 72));
	CU_ASSERT_TRUE(bytes_are(84, m.rej.private_data, 148));
	check_round_trip(AL_CM_MSG_REJ, &m, sizeof(m.rej));
}

static void test_rep_bytes(void)
{
	al_cm_msg_t m;

	memset(&m, 0, sizeof(m));
	m.rep.local_comm_id = 0xAABBCCDD;
	m.rep.remote_comm_id = 0x11223344;
	m.rep.local_qkey = 0x80010002;
	m.rep.local_qpn = 0xABCDEF;
	m.rep.local_eecn = 0x010203;
	m.rep.starting_psn = 0x0F0E0D;
	m.rep.resp_res = 0x21;
	m.rep.init_depth = 0x43;
	m.rep.target_ack_delay = 0x19;
	m.rep.failover_accepted = 2;
	m.rep.flow_ctrl = 1;
	m.rep.rnr_retry_count = 5;
	m.rep.srq = 1;
	m.rep.local_ca_guid = 0x0002C90300001234ull;
	fill(m.rep.private_data, sizeof(m.rep.private_data), 0x33);
	pack(AL_CM_MSG_REP, &m);
	check_header(AL_CM_MSG_REP);
	CU_ASSERT_EQUAL(be(0, 4), 0xAABBCCDD);
	CU_ASSERT_EQUAL(be(4, 4), 0x11223344);
	CU_ASSERT_EQUAL(be(8, 4), 0x80010002);
	CU_ASSERT_EQUAL(be(12, 4), 0xABCDEF00u); /* QPN, reserved byte */
	CU_ASSERT_EQUAL(be(16, 4), 0x01020300u); /* EECN, reserved */
	CU_ASSERT_EQUAL(be(20, 4), 0x0F0E0D00u); /* PSN, reserved */
	CU_ASSERT_EQUAL(MSG(24), 0x21);
	CU_ASSERT_EQUAL(MSG(25), 0x43);
	CU_ASSERT_EQUAL(MSG(26), 0xCD); /* ACK delay 11001, failover 10, flow control 1 */
	CU_ASSERT_EQUAL(MSG(27), 0xB0); /* RNR retry 101, SRQ 1, reserved */
	CU_ASSERT_EQUAL(be(28, 8), 0x0002C90300001234ull);
	CU_ASSERT_TRUE(bytes_are(36, m.rep.private_data, 196));
	check_round_trip(AL_CM_MSG_REP, &m, sizeof(m.rep));
}

static void test_rtu_drep_bytes(void)
{
	al_cm_msg_t m;

	memset(&m, 0, sizeof(m));
	m.rtu.local_comm_id = 0x0A0B0C0D;
	m.rtu.remote_comm_id = 0x0E0F1011;
	fill(m.rtu.private_data, sizeof(m.rtu.private_data), 0x44);
	pack(AL_CM_MSG_RTU, &m);
	check_header(AL_CM_MSG_RTU);
	CU_ASSERT_EQUAL(be(0, 4), 0x0A0B0C0D);
	CU_ASSERT_EQUAL(be(4, 4), 0x0E0F1011);
	CU_ASSERT_TRUE(bytes_are(8, m.rtu.private_data, 224));
	check_round_trip(AL_CM_MSG_RTU, &m, sizeof(m.rtu));

	memset(&m, 0, sizeof(m));
	m.drep.local_comm_id = 0x12121212;
	m.drep.remote_comm_id = 0x34343434;
	fill(m.drep.private_data, sizeof(m.drep.private_data), 0x55);
	pack(AL_CM_MSG_DREP, &m);
	check_header(AL_CM_MSG_DREP);
	CU_ASSERT_EQUAL(be(0, 4), 0x12121212);
	CU_ASSERT_EQUAL(be(4, 4), 0x34343434);
	CU_ASSERT_TRUE(bytes_are(8, m.drep.private_data, 224));
	check_round_trip(AL_CM_MSG_DREP, &m, sizeof(m.drep));
}

static void test_dreq_bytes(void)
{
	al_cm_msg_t m;

	memset(&m, 0, sizeof(m));
	m.dreq.local_comm_id = 0xDEAD0001;
	m.dreq.remote_comm_id = 0xBEEF0002;
	m.dreq.remote_qpn = 0x00F00D;
	fill(m.dreq.private_data, sizeof(m.dreq.private_data), 0x66);
	pack(AL_CM_MSG_DREQ, &m);
	check_header(AL_CM_MSG_DREQ);
	CU_ASSERT_EQUAL(be(0, 4), 0xDEAD0001);
	CU_ASSERT_EQUAL(be(4, 4), 0xBEEF0002);
	CU_ASSERT_EQUAL(be(8, 4), 0x00F00D00u); /* remote QPN/EECN, reserved */
	CU_ASSERT_TRUE(bytes_are(12, m.dreq.private_data, 220));
	check_round_trip(AL_CM_MSG_DREQ, &m, sizeof(m.dreq));
}

static void test_sidr_bytes(void)
{
	al_cm_msg_t m;

	memset(&m, 0, sizeof(m));
	m.sidr_req.request_id = 0x5151A0A0;
	m.sidr_req.pkey = 0xFFFF;
	m.sidr_req.service_id = 0x1000000000000ABCull;
	fill(m.sidr_req.private_data, sizeof(m.sidr_req.private_data), 0x77);
	pack(AL_CM_MSG_SIDR_REQ, &m);
	check_header(AL_CM_MSG_SIDR_REQ);
	CU_ASSERT_EQUAL(be(0, 4), 0x5151A0A0);
	CU_ASSERT_EQUAL(be(4, 4), 0xFFFF0000u); /* P_Key, reserved */
	CU_ASSERT_EQUAL(be(8, 8), 0x1000000000000ABCull);
	CU_ASSERT_TRUE(bytes_are(16, m.sidr_req.private_data, 216));
	check_round_trip(AL_CM_MSG_SIDR_REQ, &m, sizeof(m.sidr_req));

	memset(&m, 0, sizeof(m));
	m.sidr_rep.request_id = 0x5151A0A0;
	m.sidr_rep.status = 2;
	m.sidr_rep.add_info_length = 72;
	m.sidr_rep.qpn = 0x00ABCD;
	m.sidr_rep.service_id = 0x1000000000000ABCull;
	m.sidr_rep.qkey = 0x11110000;
	fill(m.sidr_rep.class_port_info, sizeof(m.sidr_rep.class_port_info), 0x88);
	fill(m.sidr_rep.private_data, sizeof(m.sidr_rep.private_data), 0x99);
	pack(AL_CM_MSG_SIDR_REP, &m);
	check_header(AL_CM_MSG_SIDR_REP);
	CU_ASSERT_EQUAL(be(0, 4), 0x5151A0A0);
	CU_ASSERT_EQUAL(be(4, 4), 0x02480000u); /* status, info length, reserved */
	CU_ASSERT_EQUAL(be(8, 4), 0x00ABCD00u); /* QPN, reserved */
	CU_ASSERT_EQUAL(be(12, 8), 0x1000000000000ABCull);
	CU_ASSERT_EQUAL(be(20, 4), 0x11110000);
	CU_ASSERT_TRUE(bytes_are(24, m.sidr_rep.class_port_info, 72));
	CU_ASSERT_TRUE(bytes_are(96, m.sidr_rep.private_data, 136));
	check_round_trip(AL_CM_MSG_SIDR_REP, &m, sizeof(m.sidr_rep));
}

static void test_lap_bytes(void)
{
	al_cm_msg_t m;
	al_cm_path_t *p = &m.lap.alternate;

	memset(&m, 0, sizeof(m));
	m.lap.local_comm_id = 0x7A7A0001;
	m.lap.remote_comm_id = 0x7B7B0002;
	m.lap.remote_qpn = 0x0A0B0C;
	m.lap.remote_cm_resp_timeout = 0x11;
	p->local_lid = 0x0C01;
	p->remote_lid = 0x0C02;
	gid_fill(&p->local_gid, 0xA0);
	gid_fill(&p->remote_gid, 0xB0);
	p->flow_label = 0xFEDCB;
	p->traffic_class = 0x99;
	p->hop_limit = 0x42;
	p->packet_rate = 0x2B;
	p->sl = 7;
	p->subnet_local = 1;
	p->local_ack_timeout = 0x0E;
	fill(m.lap.private_data, sizeof(m.lap.private_data), 0xAA);
	pack(AL_CM_MSG_LAP, &m);
	check_header(AL_CM_MSG_LAP);
	CU_ASSERT_EQUAL(be(0, 4), 0x7A7A0001);
	CU_ASSERT_EQUAL(be(4, 4), 0x7B7B0002);
	CU_ASSERT_EQUAL(be(8, 4), 0);           /* reserved */
	CU_ASSERT_EQUAL(be(12, 4), 0x0A0B0C88u); /* remote QPN, timeout 10001, reserved */
	CU_ASSERT_EQUAL(be(16, 4), 0);          /* reserved */
	CU_ASSERT_EQUAL(be(20, 2), 0x0C01);
	CU_ASSERT_EQUAL(be(22, 2), 0x0C02);
	CU_ASSERT_TRUE(bytes_are(24, p->local_gid.raw, 16));
	CU_ASSERT_TRUE(bytes_are(40, p->remote_gid.raw, 16));
	CU_ASSERT_EQUAL(be(56, 4), 0xFEDCB099u); /* flow label 20, reserved 4, traffic class */
	CU_ASSERT_EQUAL(MSG(60), 0x42);          /* hop limit */
	CU_ASSERT_EQUAL(MSG(61), 0x2B);          /* reserved 2, packet rate 101011 */
	CU_ASSERT_EQUAL(MSG(62), 0x78);          /* SL 0111, subnet local 1, reserved */
	CU_ASSERT_EQUAL(MSG(63), 0x70);          /* local ACK timeout 01110, reserved */
	CU_ASSERT_TRUE(bytes_are(64, m.lap.private_data, 168));
	check_round_trip(AL_CM_MSG_LAP, &m, sizeof(m.lap));
}

static void test_apr_bytes(void)
{
	al_cm_msg_t m;

	memset(&m, 0, sizeof(m));
	m.apr.local_comm_id = 0x0D0D0D0D;
	m.apr.remote_comm_id = 0x0E0E0E0E;
	m.apr.info_length = 16;
	m.apr.ap_status = 3;
	fill(m.apr.info, sizeof(m.apr.info), 0xC0);
	fill(m.apr.private_data, sizeof(m.apr.private_data), 0xD0);
	pack(AL_CM_MSG_APR, &m);
	check_header(AL_CM_MSG_APR);
	CU_ASSERT_EQUAL(be(0, 4), 0x0D0D0D0D);
	CU_ASSERT_EQUAL(be(4, 4), 0x0E0E0E0E);
	CU_ASSERT_EQUAL(be(8, 4), 0x10030000u); /* info length, status, reserved */
	CU_ASSERT_TRUE(bytes_are(12, m.apr.info, 72));
	CU_ASSERT_TRUE(bytes_are(84, m.apr.private_data, 148));
	check_round_trip(AL_CM_MSG_APR, &m, sizeof(m.apr));
}

/* ------------------------------------------------------------------------ */
/* Reserved bits                                                              */
/* ------------------------------------------------------------------------ */

/* The bits the spec defines in each message, written from its tables. */
static void defined_bits(al_cm_msg_type_t t, uint8_t *d)
{
	memset(d, 0, AL_CM_MSG_SIZE);
	switch (t) {
	case AL_CM_MSG_REQ:
		memset(d + 0, 0xFF, 4);
		memset(d + 8, 0xFF, 16);    /* service ID, CA GUID */
		memset(d + 28, 0xFF, 24);   /* Q_Key .. byte 51, every bit used */
		for (unsigned base = 52; base <= 96; base += 44) {
			memset(d + base, 0xFF, 36); /* LIDs, GIDs */
			d[base + 36] = 0xFF;
			d[base + 37] = 0xFF;
			d[base + 38] = 0xF0;  /* flow label ends, 4 reserved */
			d[base + 39] = 0x3F;  /* 2 reserved, packet rate */
			d[base + 40] = 0xFF;
			d[base + 41] = 0xFF;
			d[base + 42] = 0xF8;  /* SL, subnet local */
			d[base + 43] = 0xF8;  /* local ACK timeout */
		}
		d[139] |= 0x04;             /* SAP supported */
		memset(d + 140, 0xFF, 92);
		break;
	case AL_CM_MSG_MRA:
		memset(d, 0xFF, 8);
		d[8] = 0xC0;
		d[9] = 0xF8;
		memset(d + 10, 0xFF, 222);
		break;
	case AL_CM_MSG_REJ:
		memset(d, 0xFF, 8);
		d[8] = 0xC0;
		d[9] = 0xFE;
		memset(d + 10, 0xFF, 222);
		break;
	case AL_CM_MSG_REP:
		memset(d, 0xFF, 15);
		memset(d + 16, 0xFF, 3);
		memset(d + 20, 0xFF, 3);
		d[24] = d[25] = d[26] = 0xFF;
		d[27] = 0xF0;
		memset(d + 28, 0xFF, 8 + 196);
		break;
	case AL_CM_MSG_RTU:
	case AL_CM_MSG_DREP:
		memset(d, 0xFF, AL_CM_MSG_SIZE);
		break;
	case AL_CM_MSG_DREQ:
		memset(d, 0xFF, 11);
		memset(d + 12, 0xFF, 220);
		break;
	case AL_CM_MSG_SIDR_REQ:
		memset(d, 0xFF, 6);
		memset(d + 8, 0xFF, 8 + 216);
		break;
	case AL_CM_MSG_SIDR_REP:
		memset(d, 0xFF, 6);
		memset(d + 8, 0xFF, 3);
		memset(d + 12, 0xFF, 8 + 4 + 72 + 136);
		break;
	case AL_CM_MSG_LAP:
		memset(d, 0xFF, 8);
		memset(d + 12, 0xFF, 3);
		d[15] = 0xF8;
		memset(d + 20, 0xFF, 36);
		d[56] = d[57] = 0xFF;
		d[58] = 0xF0;
		d[59] = d[60] = 0xFF;
		d[61] = 0x3F;
		d[62] = 0xF8;
		d[63] = 0xF8;
		memset(d + 64, 0xFF, 168);
		break;
	case AL_CM_MSG_APR:
		memset(d, 0xFF, 10);
		memset(d + 12, 0xFF, 72 + 148);
		break;
	default:
		break;
	}
}

/* Every host bit set: exactly the defined bits go out. */
static void test_reserved_zero_on_pack(void)
{
	uint8_t want[AL_CM_MSG_SIZE];
	al_cm_msg_t m;
	unsigned t, i;

	memset(&m, 0xFF, sizeof(m));
	for (t = 0; t < AL_CM_MSG_COUNT; t++) {
		pack((al_cm_msg_type_t)t, &m);
		defined_bits((al_cm_msg_type_t)t, want);
		for (i = 0; i < AL_CM_MSG_SIZE; i++) {
			if (MSG(i) != want[i]) {
				printf("\n  %s byte %u: 0x%02X, spec defines 0x%02X\n",
				       al_cm_msg_name((al_cm_msg_type_t)t), i, MSG(i), want[i]);
				CU_FAIL("defined bits differ");
			}
		}
	}
}

/* A MAD with every bit set unpacks (reserved bits ignored) and repacks with them zero. */
static void test_reserved_ignored_on_unpack(void)
{
	uint8_t want[AL_CM_MSG_SIZE];
	al_cm_msg_t m;
	al_cm_msg_type_t got;
	unsigned t;

	for (t = 0; t < AL_CM_MSG_COUNT; t++) {
		memset(g_mad, 0xFF, sizeof(g_mad));
		MAD->mgmt_class = IB_MCLASS_COMM_MGMT;
		MAD->attr_id = al_cm_attr_id((al_cm_msg_type_t)t);
		CU_ASSERT_EQUAL_FATAL(al_cm_unpack(MAD, sizeof(g_mad), &got, &m), IB_SUCCESS);
		CU_ASSERT_EQUAL(got, t);
		pack((al_cm_msg_type_t)t, &m);
		defined_bits((al_cm_msg_type_t)t, want);
		CU_ASSERT_EQUAL(memcmp(&MSG(0), want, AL_CM_MSG_SIZE), 0);
	}
	/* Values read are the field widths' maxima. */
	memset(g_mad, 0xFF, sizeof(g_mad));
	MAD->mgmt_class = IB_MCLASS_COMM_MGMT;
	MAD->attr_id = al_cm_attr_id(AL_CM_MSG_REQ);
	CU_ASSERT_EQUAL(al_cm_unpack(MAD, sizeof(g_mad), &got, &m), IB_SUCCESS);
	CU_ASSERT_EQUAL(m.req.local_qpn, 0xFFFFFF);
	CU_ASSERT_EQUAL(m.req.remote_cm_resp_timeout, 0x1F);
	CU_ASSERT_EQUAL(m.req.transport, 3);
	CU_ASSERT_EQUAL(m.req.flow_ctrl, 1);
	CU_ASSERT_EQUAL(m.req.primary.flow_label, 0xFFFFF);
	CU_ASSERT_EQUAL(m.req.primary.packet_rate, 0x3F);
	CU_ASSERT_EQUAL(m.req.primary.sl, 0xF);
	CU_ASSERT_EQUAL(m.req.alternate.local_ack_timeout, 0x1F);
	CU_ASSERT_EQUAL(m.req.sap_supported, 1);
	CU_ASSERT_EQUAL(m.req.service_id, ~0ull);
}

/* ------------------------------------------------------------------------ */
/* Truncation                                                                 */
/* ------------------------------------------------------------------------ */

static void test_truncation(void)
{
	al_cm_msg_t m, out;
	al_cm_msg_type_t got;

	memset(&m, 0, sizeof(m));
	m.req.local_qpn = 0xFFABCDEF;        /* 24 bits */
	m.req.remote_cm_resp_timeout = 0xFF; /* 5 bits: transport and flow control stay 0 */
	m.req.starting_psn = 0x01000001;
	m.req.path_mtu = 0x15;               /* 4 bits: RDC stays 0 */
	m.req.primary.flow_label = 0xFFF12345; /* 20 bits: the reserved bits stay 0 */
	m.req.primary.packet_rate = 0xC1;    /* 6 bits */
	m.req.primary.sl = 0x1F;             /* 4 bits: subnet local stays 0 */
	m.req.alternate.local_ack_timeout = 0xFF;
	pack(AL_CM_MSG_REQ, &m);
	CU_ASSERT_EQUAL(be(32, 4), 0xABCDEF00u);
	CU_ASSERT_EQUAL(MSG(43), 0xF8);
	CU_ASSERT_EQUAL(be(44, 3), 0x000001);
	CU_ASSERT_EQUAL(MSG(50), 0x50);
	CU_ASSERT_EQUAL(be(88, 4), 0x12345001u);
	CU_ASSERT_EQUAL(MSG(94), 0xF0);
	CU_ASSERT_EQUAL(MSG(139), 0xF8);
	CU_ASSERT_EQUAL(al_cm_unpack(MAD, sizeof(g_mad), &got, &out), IB_SUCCESS);
	CU_ASSERT_EQUAL(out.req.local_qpn, 0xABCDEF);
	CU_ASSERT_EQUAL(out.req.remote_cm_resp_timeout, 0x1F);
	CU_ASSERT_EQUAL(out.req.transport, 0);
	CU_ASSERT_EQUAL(out.req.primary.flow_label, 0x12345);
	CU_ASSERT_EQUAL(out.req.primary.packet_rate, 0x01);
	CU_ASSERT_EQUAL(out.req.primary.sl, 0xF);
	CU_ASSERT_EQUAL(out.req.primary.subnet_local, 0);

	memset(&m, 0, sizeof(m));
	m.rej.msg_rejected = 0xFF; /* 2 bits */
	m.rej.ari_length = 0xFF;   /* 7 bits */
	pack(AL_CM_MSG_REJ, &m);
	CU_ASSERT_EQUAL(MSG(8), 0xC0);
	CU_ASSERT_EQUAL(MSG(9), 0xFE);

	memset(&m, 0, sizeof(m));
	m.lap.remote_qpn = 0x12000001;
	m.lap.alternate.flow_label = 0xFFFFFFFF;
	pack(AL_CM_MSG_LAP, &m);
	CU_ASSERT_EQUAL(be(12, 4), 0x00000100u);
	CU_ASSERT_EQUAL(be(56, 4), 0xFFFFF000u);
}

/* ------------------------------------------------------------------------ */
/* Types, names, errors                                                       */
/* ------------------------------------------------------------------------ */

static void test_types_and_names(void)
{
	static const char *const names[] = { "REQ", "MRA", "REJ", "REP", "RTU", "DREQ",
					     "DREP", "SIDR_REQ", "SIDR_REP", "LAP", "APR" };
	unsigned t;

	CU_ASSERT_EQUAL(AL_CM_MSG_COUNT, 11);
	for (t = 0; t < AL_CM_MSG_COUNT; t++) {
		CU_ASSERT_EQUAL(al_cm_attr_id((al_cm_msg_type_t)t), cl_hton16((uint16_t)(0x10 + t)));
		CU_ASSERT_EQUAL(al_cm_msg_type(cl_hton16((uint16_t)(0x10 + t))), t);
		CU_ASSERT_STRING_EQUAL(al_cm_msg_name((al_cm_msg_type_t)t), names[t]);
	}
	CU_ASSERT_EQUAL(al_cm_msg_type(CL_HTON16(0x001A)), AL_CM_MSG_APR);
	CU_ASSERT_EQUAL(al_cm_msg_type(CL_HTON16(0x000F)), AL_CM_MSG_COUNT);
	CU_ASSERT_EQUAL(al_cm_msg_type(CL_HTON16(0x001B)), AL_CM_MSG_COUNT);
	CU_ASSERT_EQUAL(al_cm_msg_type(CL_HTON16(AL_CM_ATTR_CLASS_PORT_INFO)), AL_CM_MSG_COUNT);
	CU_ASSERT_EQUAL(al_cm_msg_type(CL_HTON16(0x1000)), AL_CM_MSG_COUNT); /* 0x0010 byte-swapped */
	CU_ASSERT_STRING_EQUAL(al_cm_msg_name(AL_CM_MSG_COUNT), "?");
	CU_ASSERT_STRING_EQUAL(al_cm_msg_name((al_cm_msg_type_t)-1), "?");
}

static void test_unpack_errors(void)
{
	al_cm_msg_t m;
	al_cm_msg_type_t got;

	memset(&m, 0, sizeof(m));
	m.rtu.local_comm_id = 1;
	pack(AL_CM_MSG_RTU, &m);
	CU_ASSERT_EQUAL(al_cm_unpack(NULL, sizeof(g_mad), &got, &m), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(al_cm_unpack(MAD, sizeof(g_mad), NULL, &m), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(al_cm_unpack(MAD, sizeof(g_mad), &got, NULL), IB_INVALID_PARAMETER);
	/* Short MADs. */
	CU_ASSERT_EQUAL(al_cm_unpack(MAD, sizeof(g_mad) - 1, &got, &m), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(al_cm_unpack(MAD, HDR, &got, &m), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(al_cm_unpack(MAD, 0, &got, &m), IB_INVALID_SETTING);
	/* A longer buffer (a receive of more than 256 bytes) is fine. */
	CU_ASSERT_EQUAL(al_cm_unpack(MAD, sizeof(g_mad) + 40, &got, &m), IB_SUCCESS);
	CU_ASSERT_EQUAL(got, AL_CM_MSG_RTU);
	CU_ASSERT_EQUAL(m.rtu.local_comm_id, 1);
	/* Wrong class. */
	MAD->mgmt_class = IB_MCLASS_SUBN_ADM;
	CU_ASSERT_EQUAL(al_cm_unpack(MAD, sizeof(g_mad), &got, &m), IB_INVALID_SETTING);
	MAD->mgmt_class = IB_MCLASS_COMM_MGMT;
	/* Attributes that are not messages. */
	MAD->attr_id = CL_HTON16(AL_CM_ATTR_CLASS_PORT_INFO);
	CU_ASSERT_EQUAL(al_cm_unpack(MAD, sizeof(g_mad), &got, &m), IB_INVALID_SETTING);
	MAD->attr_id = CL_HTON16(0x001B);
	CU_ASSERT_EQUAL(al_cm_unpack(MAD, sizeof(g_mad), &got, &m), IB_INVALID_SETTING);
	MAD->attr_id = CL_HTON16(0x0000);
	CU_ASSERT_EQUAL(al_cm_unpack(MAD, sizeof(g_mad), &got, &m), IB_INVALID_SETTING);
	/* Field values are never judged: a REP with a zero everything unpacks. */
	memset(g_mad, 0, sizeof(g_mad));
	MAD->mgmt_class = IB_MCLASS_COMM_MGMT;
	MAD->attr_id = CL_HTON16(0x0013);
	CU_ASSERT_EQUAL(al_cm_unpack(MAD, sizeof(g_mad), &got, &m), IB_SUCCESS);
	CU_ASSERT_EQUAL(got, AL_CM_MSG_REP);
}

/* Packing does not depend on what was in the buffer, and leaves nothing past 256 bytes. */
static void test_pack_whole_mad(void)
{
	uint8_t buf[MAD_BLOCK_SIZE + 8];
	al_cm_msg_t m;

	memset(&m, 0, sizeof(m));
	memset(buf, 0xA5, sizeof(buf));
	al_cm_pack(AL_CM_MSG_DREP, &m, 0, (ib_mad_t *)buf);
	CU_ASSERT_EQUAL(buf[MAD_BLOCK_SIZE], 0xA5);
	CU_ASSERT_EQUAL(buf[MAD_BLOCK_SIZE + 7], 0xA5);
	CU_ASSERT_EQUAL(buf[17], 0x16);
	for (unsigned i = 24; i < MAD_BLOCK_SIZE; i++)
		if (buf[i]) {
			CU_FAIL("a zero DREP has a non-zero byte");
			break;
		}
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_req_bytes),
	TEST_ENTRY(test_mra_bytes),
	TEST_ENTRY(test_rej_bytes),
	TEST_ENTRY(test_rep_bytes),
	TEST_ENTRY(test_rtu_drep_bytes),
	TEST_ENTRY(test_dreq_bytes),
	TEST_ENTRY(test_sidr_bytes),
	TEST_ENTRY(test_lap_bytes),
	TEST_ENTRY(test_apr_bytes),
	TEST_ENTRY(test_reserved_zero_on_pack),
	TEST_ENTRY(test_reserved_ignored_on_unpack),
	TEST_ENTRY(test_truncation),
	TEST_ENTRY(test_types_and_names),
	TEST_ENTRY(test_unpack_errors),
	TEST_ENTRY(test_pack_whole_mad),
};

TEST_MAIN("al_cm_wire", tests)
