/*
 * ibal tests: SA, PerfMgt, DM and CC helpers of ib_types.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Records are built with the helpers and compared byte for byte with images
 * written from the InfiniBand specification's attribute layouts.
 */
#include <stdio.h>
#include <string.h>
#include <iba/ib_types.h>
#include "../common/cl_test.h"

/* Compares @p n bytes and prints the first difference. */
static int bytes_equal(const void *got, const void *want, size_t n)
{
	const uint8_t *g = (const uint8_t *)got, *w = (const uint8_t *)want;
	size_t i;

	for (i = 0; i < n; i++) {
		if (g[i] != w[i]) {
			printf("\n  byte %zu: got 0x%02x, want 0x%02x\n", i, g[i], w[i]);
			return 0;
		}
	}
	return 1;
}

/* The bytes of a 64-bit value as it sits in memory. */
static void net64_bytes(uint64_t v, uint8_t out[8])
{
	memcpy(out, &v, 8);
}

static void fill_gid(ib_gid_t *gid, uint8_t first)
{
	int i;

	for (i = 0; i < 16; i++)
		gid->raw[i] = (uint8_t)(first + i);
}

/* --- PathRecord --------------------------------------------------------- */

static void build_local_path(ib_path_rec_t *rec)
{
	ib_gid_t dgid, sgid;

	fill_gid(&dgid, 0x10);
	fill_gid(&sgid, 0x20);
	memset(rec, 0xA5, sizeof(*rec));
	ib_path_rec_init_local(rec, &dgid, &sgid, CL_HTON16(0x1234), CL_HTON16(0x0042),
			       0x81, CL_HTON16(0xFFFF), 5, 0xABC,
			       IB_PATH_SELECTOR_EXACTLY, IB_MTU_LEN_2048,
			       IB_PATH_SELECTOR_EXACTLY, IB_PATH_RECORD_RATE_20_GBS,
			       IB_PATH_SELECTOR_EXACTLY, 18, 1);
}

static void test_path_rec_init_local_image(void)
{
	ib_path_rec_t rec;
	uint8_t want[64];
	int i;

	build_local_path(&rec);
	memset(want, 0, sizeof(want));
	/* 0..7 ServiceID: cleared for a local path */
	for (i = 0; i < 16; i++) {
		want[8 + i] = (uint8_t)(0x10 + i);  /* DGID */
		want[24 + i] = (uint8_t)(0x20 + i); /* SGID */
	}
	want[40] = 0x12; want[41] = 0x34;         /* DLID */
	want[42] = 0x00; want[43] = 0x42;         /* SLID */
	/* 44..47 RawTraffic/FlowLabel/HopLimit and 48 TClass: cleared */
	want[49] = 0x81;                          /* Reversible | NumbPath 1 */
	want[50] = 0xFF; want[51] = 0xFF;         /* P_Key */
	want[52] = 0xAB; want[53] = 0xC5;         /* QoSClass 0xABC, SL 5 */
	want[54] = 0x80 | IB_MTU_LEN_2048;        /* MTUSelector 2, MTU */
	want[55] = 0x80 | IB_PATH_RECORD_RATE_20_GBS;
	want[56] = 0x80 | 18;                     /* PacketLifeTime */
	want[57] = 1;                             /* Preference */
	/* 58..63 reserved: cleared */
	CU_ASSERT_EQUAL(sizeof(rec), sizeof(want));
	CU_ASSERT(bytes_equal(&rec, want, sizeof(want)));
}

static void test_path_rec_getters(void)
{
	ib_path_rec_t rec;

	build_local_path(&rec);
	CU_ASSERT_EQUAL(ib_path_rec_num_path(&rec), 1);
	CU_ASSERT_EQUAL(ib_path_rec_sl(&rec), 5);
	CU_ASSERT_EQUAL(ib_path_rec_qos_class(&rec), 0xABC);
	CU_ASSERT_EQUAL(ib_path_rec_mtu(&rec), IB_MTU_LEN_2048);
	CU_ASSERT_EQUAL(ib_path_rec_mtu_sel(&rec), IB_PATH_SELECTOR_EXACTLY);
	CU_ASSERT_EQUAL(ib_path_rec_rate(&rec), IB_PATH_RECORD_RATE_20_GBS);
	CU_ASSERT_EQUAL(ib_path_rec_rate_sel(&rec), IB_PATH_SELECTOR_EXACTLY);
	CU_ASSERT_EQUAL(ib_path_rec_pkt_life(&rec), 18);
	CU_ASSERT_EQUAL(ib_path_rec_pkt_life_sel(&rec), IB_PATH_SELECTOR_EXACTLY);
	CU_ASSERT_EQUAL(ib_path_rec_flow_lbl(&rec), 0);
	CU_ASSERT_EQUAL(ib_path_rec_hop_limit(&rec), 0);

	rec.mtu = 0xC5; /* selector 3, MTU 5 */
	CU_ASSERT_EQUAL(ib_path_rec_mtu(&rec), 5);
	CU_ASSERT_EQUAL(ib_path_rec_mtu_sel(&rec), IB_PATH_SELECTOR_LARGEST);
	rec.rate = 0x3F;
	CU_ASSERT_EQUAL(ib_path_rec_rate(&rec), 0x3F);
	CU_ASSERT_EQUAL(ib_path_rec_rate_sel(&rec), 0);
	rec.pkt_life = 0x40;
	CU_ASSERT_EQUAL(ib_path_rec_pkt_life(&rec), 0);
	CU_ASSERT_EQUAL(ib_path_rec_pkt_life_sel(&rec), IB_PATH_SELECTOR_LESS_THAN);
	rec.num_path = 0x7F;
	CU_ASSERT_EQUAL(ib_path_rec_num_path(&rec), 0x7F);
}

static void test_path_rec_sl_qos_independent(void)
{
	ib_path_rec_t rec;
	const uint8_t *b = (const uint8_t *)&rec;

	memset(&rec, 0, sizeof(rec));
	ib_path_rec_set_qos_class(&rec, 0x123);
	ib_path_rec_set_sl(&rec, 0xF);
	CU_ASSERT_EQUAL(b[52], 0x12);
	CU_ASSERT_EQUAL(b[53], 0x3F);
	ib_path_rec_set_sl(&rec, 0x7);
	CU_ASSERT_EQUAL(ib_path_rec_qos_class(&rec), 0x123);
	CU_ASSERT_EQUAL(ib_path_rec_sl(&rec), 7);
	ib_path_rec_set_qos_class(&rec, 0xFFF);
	CU_ASSERT_EQUAL(ib_path_rec_sl(&rec), 7);
	CU_ASSERT_EQUAL(b[52], 0xFF);
	CU_ASSERT_EQUAL(b[53], 0xF7);
	ib_path_rec_set_sl(&rec, 0x13); /* only the low 4 bits are kept */
	CU_ASSERT_EQUAL(ib_path_rec_sl(&rec), 3);
	CU_ASSERT_EQUAL(ib_path_rec_qos_class(&rec), 0xFFF);
}

static void test_path_rec_hop_flow_raw(void)
{
	ib_path_rec_t rec;
	const uint8_t *b = (const uint8_t *)&rec;

	memset(&rec, 0, sizeof(rec));
	ib_path_rec_set_hop_flow_raw(&rec, 64, CL_HTON32(0x12345), TRUE);
	CU_ASSERT_EQUAL(b[44], 0x81);
	CU_ASSERT_EQUAL(b[45], 0x23);
	CU_ASSERT_EQUAL(b[46], 0x45);
	CU_ASSERT_EQUAL(b[47], 0x40);
	CU_ASSERT_EQUAL(ib_path_rec_flow_lbl(&rec), CL_HTON32(0x12345));
	CU_ASSERT_EQUAL(ib_path_rec_hop_limit(&rec), 64);

	/* Flow labels wider than 20 bits are cut; raw FALSE clears bit 31. */
	ib_path_rec_set_hop_flow_raw(&rec, 0xFF, CL_HTON32(0xFFFFFFFF), FALSE);
	CU_ASSERT_EQUAL(b[44], 0x0F);
	CU_ASSERT_EQUAL(b[45], 0xFF);
	CU_ASSERT_EQUAL(b[46], 0xFF);
	CU_ASSERT_EQUAL(b[47], 0xFF);
	CU_ASSERT_EQUAL(ib_path_rec_flow_lbl(&rec), CL_HTON32(0xFFFFF));
	CU_ASSERT_EQUAL(ib_path_rec_hop_limit(&rec), 0xFF);
	/* The neighbours of the field are untouched. */
	CU_ASSERT_EQUAL(b[43], 0);
	CU_ASSERT_EQUAL(b[48], 0);
}

/* --- Component masks ---------------------------------------------------- */

/* Each mask of @p masks must be bit i of a network-order 64-bit word. */
static int masks_are_bits(const ib_net64_t *masks, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (masks[i] != cl_hton64((uint64_t)1 << i)) {
			printf("\n  mask %zu is not bit %zu\n", i, i);
			return 0;
		}
	}
	return 1;
}

static void test_compmask_bytes(void)
{
	uint8_t b[8];
	static const ib_net64_t static_mask = IB_PR_COMPMASK_DGID | IB_PR_COMPMASK_SGID;

	net64_bytes(static_mask, b);
	CU_ASSERT(bytes_equal(b, "\0\0\0\0\0\0\0\x0C", 8));
	net64_bytes(IB_PIR_COMPMASK_LINKSPDEXTENAB, b);
	CU_ASSERT(bytes_equal(b, "\x02\0\0\0\0\0\0\0", 8));
	net64_bytes(IB_SR_COMPMASK_SDATA64_1, b);
	CU_ASSERT(bytes_equal(b, "\0\0\0\x10\0\0\0\0", 8));
	net64_bytes(IB_MCR_COMPMASK_PROXY, b);
	CU_ASSERT(bytes_equal(b, "\0\0\0\0\0\x02\0\0", 8));
	CU_ASSERT_EQUAL(IB_MCR_COMPMASK_GID, IB_MCR_COMPMASK_MGID);
	CU_ASSERT_EQUAL(IB_IIR_COMPMASK_TRAPNUMB, IB_IIR_COMPMASK_DEVICEID);
	CU_ASSERT_EQUAL(IB_IIR_COMPMASK_PRODTYPE, IB_IIR_COMPMASK_VENDID);
	CU_ASSERT_EQUAL(IB_PR_COMPMASK_SERVICEID,
			IB_PR_COMPMASK_SERVICEID_MSB | IB_PR_COMPMASK_SERVICEID_LSB);
	CU_ASSERT_EQUAL(IB_MPR_COMPMASK_SERVICEID,
			IB_MPR_COMPMASK_SERVICEID_MSB | IB_MPR_COMPMASK_SERVICEID_LSB);
}

static void test_compmask_sequences(void)
{
	static const ib_net64_t pr[] = {
		IB_PR_COMPMASK_SERVICEID_MSB, IB_PR_COMPMASK_SERVICEID_LSB, IB_PR_COMPMASK_DGID,
		IB_PR_COMPMASK_SGID, IB_PR_COMPMASK_DLID, IB_PR_COMPMASK_SLID,
		IB_PR_COMPMASK_RAWTRAFFIC, IB_PR_COMPMASK_RESV0, IB_PR_COMPMASK_FLOWLABEL,
		IB_PR_COMPMASK_HOPLIMIT, IB_PR_COMPMASK_TCLASS, IB_PR_COMPMASK_REVERSIBLE,
		IB_PR_COMPMASK_NUMBPATH, IB_PR_COMPMASK_PKEY, IB_PR_COMPMASK_QOS_CLASS,
		IB_PR_COMPMASK_SL, IB_PR_COMPMASK_MTUSELEC, IB_PR_COMPMASK_MTU,
		IB_PR_COMPMASK_RATESELEC, IB_PR_COMPMASK_RATE, IB_PR_COMPMASK_PKTLIFETIMESELEC,
		IB_PR_COMPMASK_PKTLIFETIME,
	};
	static const ib_net64_t lr[] = {
		IB_LR_COMPMASK_FROM_LID, IB_LR_COMPMASK_FROM_PORT, IB_LR_COMPMASK_TO_PORT,
		IB_LR_COMPMASK_TO_LID,
	};
	static const ib_net64_t vla[] = {
		IB_VLA_COMPMASK_LID, IB_VLA_COMPMASK_OUT_PORT, IB_VLA_COMPMASK_BLOCK,
	};
	static const ib_net64_t slvl[] = {
		IB_SLVL_COMPMASK_LID, IB_SLVL_COMPMASK_IN_PORT, IB_SLVL_COMPMASK_OUT_PORT,
	};
	static const ib_net64_t pkey[] = {
		IB_PKEY_COMPMASK_LID, IB_PKEY_COMPMASK_BLOCK, IB_PKEY_COMPMASK_PORT,
	};
	static const ib_net64_t swir[] = { IB_SWIR_COMPMASK_LID, IB_SWIR_COMPMASK_RESERVED1 };
	static const ib_net64_t lftr[] = { IB_LFTR_COMPMASK_LID, IB_LFTR_COMPMASK_BLOCK };
	static const ib_net64_t mftr[] = {
		IB_MFTR_COMPMASK_LID, IB_MFTR_COMPMASK_POSITION, IB_MFTR_COMPMASK_RESERVED1,
		IB_MFTR_COMPMASK_BLOCK, IB_MFTR_COMPMASK_RESERVED2,
	};
	static const ib_net64_t nr[] = {
		IB_NR_COMPMASK_LID, IB_NR_COMPMASK_RESERVED1, IB_NR_COMPMASK_BASEVERSION,
		IB_NR_COMPMASK_CLASSVERSION, IB_NR_COMPMASK_NODETYPE, IB_NR_COMPMASK_NUMPORTS,
		IB_NR_COMPMASK_SYSIMAGEGUID, IB_NR_COMPMASK_NODEGUID, IB_NR_COMPMASK_PORTGUID,
		IB_NR_COMPMASK_PARTCAP, IB_NR_COMPMASK_DEVID, IB_NR_COMPMASK_REV,
		IB_NR_COMPMASK_PORTNUM, IB_NR_COMPMASK_VENDID, IB_NR_COMPMASK_NODEDESC,
	};
	static const ib_net64_t sr[] = {
		IB_SR_COMPMASK_SID, IB_SR_COMPMASK_SGID, IB_SR_COMPMASK_SPKEY,
		IB_SR_COMPMASK_RES1, IB_SR_COMPMASK_SLEASE, IB_SR_COMPMASK_SKEY,
		IB_SR_COMPMASK_SNAME, IB_SR_COMPMASK_SDATA8_0, IB_SR_COMPMASK_SDATA8_1,
		IB_SR_COMPMASK_SDATA8_2, IB_SR_COMPMASK_SDATA8_3, IB_SR_COMPMASK_SDATA8_4,
		IB_SR_COMPMASK_SDATA8_5, IB_SR_COMPMASK_SDATA8_6, IB_SR_COMPMASK_SDATA8_7,
		IB_SR_COMPMASK_SDATA8_8, IB_SR_COMPMASK_SDATA8_9, IB_SR_COMPMASK_SDATA8_10,
		IB_SR_COMPMASK_SDATA8_11, IB_SR_COMPMASK_SDATA8_12, IB_SR_COMPMASK_SDATA8_13,
		IB_SR_COMPMASK_SDATA8_14, IB_SR_COMPMASK_SDATA8_15, IB_SR_COMPMASK_SDATA16_0,
		IB_SR_COMPMASK_SDATA16_1, IB_SR_COMPMASK_SDATA16_2, IB_SR_COMPMASK_SDATA16_3,
		IB_SR_COMPMASK_SDATA16_4, IB_SR_COMPMASK_SDATA16_5, IB_SR_COMPMASK_SDATA16_6,
		IB_SR_COMPMASK_SDATA16_7, IB_SR_COMPMASK_SDATA32_0, IB_SR_COMPMASK_SDATA32_1,
		IB_SR_COMPMASK_SDATA32_2, IB_SR_COMPMASK_SDATA32_3, IB_SR_COMPMASK_SDATA64_0,
		IB_SR_COMPMASK_SDATA64_1,
	};
	static const ib_net64_t pir[] = {
		IB_PIR_COMPMASK_LID, IB_PIR_COMPMASK_PORTNUM, IB_PIR_COMPMASK_OPTIONS,
		IB_PIR_COMPMASK_MKEY, IB_PIR_COMPMASK_GIDPRE, IB_PIR_COMPMASK_BASELID,
		IB_PIR_COMPMASK_SMLID, IB_PIR_COMPMASK_CAPMASK, IB_PIR_COMPMASK_DIAGCODE,
		IB_PIR_COMPMASK_MKEYLEASEPRD, IB_PIR_COMPMASK_LOCALPORTNUM,
		IB_PIR_COMPMASK_LINKWIDTHENABLED, IB_PIR_COMPMASK_LNKWIDTHSUPPORT,
		IB_PIR_COMPMASK_LNKWIDTHACTIVE, IB_PIR_COMPMASK_LNKSPEEDSUPPORT,
		IB_PIR_COMPMASK_PORTSTATE, IB_PIR_COMPMASK_PORTPHYSTATE,
		IB_PIR_COMPMASK_LINKDWNDFLTSTATE, IB_PIR_COMPMASK_MKEYPROTBITS,
		IB_PIR_COMPMASK_RESV2, IB_PIR_COMPMASK_LMC, IB_PIR_COMPMASK_LINKSPEEDACTIVE,
		IB_PIR_COMPMASK_LINKSPEEDENABLE, IB_PIR_COMPMASK_NEIGHBORMTU,
		IB_PIR_COMPMASK_MASTERSMSL, IB_PIR_COMPMASK_VLCAP, IB_PIR_COMPMASK_INITTYPE,
		IB_PIR_COMPMASK_VLHIGHLIMIT, IB_PIR_COMPMASK_VLARBHIGHCAP,
		IB_PIR_COMPMASK_VLARBLOWCAP, IB_PIR_COMPMASK_INITTYPEREPLY,
		IB_PIR_COMPMASK_MTUCAP, IB_PIR_COMPMASK_VLSTALLCNT, IB_PIR_COMPMASK_HOQLIFE,
		IB_PIR_COMPMASK_OPVLS, IB_PIR_COMPMASK_PARENFIN, IB_PIR_COMPMASK_PARENFOUT,
		IB_PIR_COMPMASK_FILTERRAWIN, IB_PIR_COMPMASK_FILTERRAWOUT,
		IB_PIR_COMPMASK_MKEYVIO, IB_PIR_COMPMASK_PKEYVIO, IB_PIR_COMPMASK_QKEYVIO,
		IB_PIR_COMPMASK_GUIDCAP, IB_PIR_COMPMASK_CLIENTREREG, IB_PIR_COMPMASK_RESV3,
		IB_PIR_COMPMASK_SUBNTO, IB_PIR_COMPMASK_RESV4, IB_PIR_COMPMASK_RESPTIME,
		IB_PIR_COMPMASK_LOCALPHYERR, IB_PIR_COMPMASK_OVERRUNERR,
		IB_PIR_COMPMASK_MAXCREDHINT, IB_PIR_COMPMASK_RESV5, IB_PIR_COMPMASK_LINKRTLAT,
		IB_PIR_COMPMASK_CAPMASK2, IB_PIR_COMPMASK_LINKSPDEXTACT,
		IB_PIR_COMPMASK_LINKSPDEXTSUPP, IB_PIR_COMPMASK_RESV7,
		IB_PIR_COMPMASK_LINKSPDEXTENAB,
	};
	static const ib_net64_t mcr[] = {
		IB_MCR_COMPMASK_MGID, IB_MCR_COMPMASK_PORT_GID, IB_MCR_COMPMASK_QKEY,
		IB_MCR_COMPMASK_MLID, IB_MCR_COMPMASK_MTU_SEL, IB_MCR_COMPMASK_MTU,
		IB_MCR_COMPMASK_TCLASS, IB_MCR_COMPMASK_PKEY, IB_MCR_COMPMASK_RATE_SEL,
		IB_MCR_COMPMASK_RATE, IB_MCR_COMPMASK_LIFE_SEL, IB_MCR_COMPMASK_LIFE,
		IB_MCR_COMPMASK_SL, IB_MCR_COMPMASK_FLOW, IB_MCR_COMPMASK_HOP,
		IB_MCR_COMPMASK_SCOPE, IB_MCR_COMPMASK_JOIN_STATE, IB_MCR_COMPMASK_PROXY,
	};
	static const ib_net64_t gir[] = {
		IB_GIR_COMPMASK_LID, IB_GIR_COMPMASK_BLOCKNUM, IB_GIR_COMPMASK_RESV1,
		IB_GIR_COMPMASK_RESV2, IB_GIR_COMPMASK_GID0, IB_GIR_COMPMASK_GID1,
		IB_GIR_COMPMASK_GID2, IB_GIR_COMPMASK_GID3, IB_GIR_COMPMASK_GID4,
		IB_GIR_COMPMASK_GID5, IB_GIR_COMPMASK_GID6, IB_GIR_COMPMASK_GID7,
	};
	static const ib_net64_t mpr[] = {
		IB_MPR_COMPMASK_RAWTRAFFIC, IB_MPR_COMPMASK_RESV0, IB_MPR_COMPMASK_FLOWLABEL,
		IB_MPR_COMPMASK_HOPLIMIT, IB_MPR_COMPMASK_TCLASS, IB_MPR_COMPMASK_REVERSIBLE,
		IB_MPR_COMPMASK_NUMBPATH, IB_MPR_COMPMASK_PKEY, IB_MPR_COMPMASK_QOS_CLASS,
		IB_MPR_COMPMASK_SL, IB_MPR_COMPMASK_MTUSELEC, IB_MPR_COMPMASK_MTU,
		IB_MPR_COMPMASK_RATESELEC, IB_MPR_COMPMASK_RATE,
		IB_MPR_COMPMASK_PKTLIFETIMESELEC, IB_MPR_COMPMASK_PKTLIFETIME,
		IB_MPR_COMPMASK_SERVICEID_MSB, IB_MPR_COMPMASK_INDEPSELEC,
		IB_MPR_COMPMASK_RESV3, IB_MPR_COMPMASK_SGIDCOUNT, IB_MPR_COMPMASK_DGIDCOUNT,
		IB_MPR_COMPMASK_SERVICEID_LSB,
	};
	static const ib_net64_t smir[] = {
		IB_SMIR_COMPMASK_LID, IB_SMIR_COMPMASK_RESV0, IB_SMIR_COMPMASK_GUID,
		IB_SMIR_COMPMASK_SMKEY, IB_SMIR_COMPMASK_ACTCOUNT, IB_SMIR_COMPMASK_PRIORITY,
		IB_SMIR_COMPMASK_SMSTATE,
	};
	static const ib_net64_t iir[] = {
		IB_IIR_COMPMASK_SUBSCRIBERGID, IB_IIR_COMPMASK_ENUM, IB_IIR_COMPMASK_RESV0,
		IB_IIR_COMPMASK_GID, IB_IIR_COMPMASK_LIDRANGEBEGIN, IB_IIR_COMPMASK_LIDRANGEEND,
		IB_IIR_COMPMASK_RESV1, IB_IIR_COMPMASK_ISGENERIC, IB_IIR_COMPMASK_SUBSCRIBE,
		IB_IIR_COMPMASK_TYPE, IB_IIR_COMPMASK_TRAPNUMB, IB_IIR_COMPMASK_QPN,
		IB_IIR_COMPMASK_RESV2, IB_IIR_COMPMASK_RESPTIME, IB_IIR_COMPMASK_RESV3,
		IB_IIR_COMPMASK_PRODTYPE,
	};

	CU_ASSERT(masks_are_bits(pr, TEST_COUNT(pr)));
	CU_ASSERT_EQUAL(TEST_COUNT(pr), 22);
	CU_ASSERT(masks_are_bits(lr, TEST_COUNT(lr)));
	CU_ASSERT(masks_are_bits(vla, TEST_COUNT(vla)));
	CU_ASSERT(masks_are_bits(slvl, TEST_COUNT(slvl)));
	CU_ASSERT(masks_are_bits(pkey, TEST_COUNT(pkey)));
	CU_ASSERT(masks_are_bits(swir, TEST_COUNT(swir)));
	CU_ASSERT(masks_are_bits(lftr, TEST_COUNT(lftr)));
	CU_ASSERT(masks_are_bits(mftr, TEST_COUNT(mftr)));
	CU_ASSERT(masks_are_bits(nr, TEST_COUNT(nr)));
	CU_ASSERT(masks_are_bits(sr, TEST_COUNT(sr)));
	CU_ASSERT_EQUAL(TEST_COUNT(sr), 37);
	CU_ASSERT(masks_are_bits(pir, TEST_COUNT(pir)));
	CU_ASSERT_EQUAL(TEST_COUNT(pir), 58);
	CU_ASSERT(masks_are_bits(mcr, TEST_COUNT(mcr)));
	CU_ASSERT(masks_are_bits(gir, TEST_COUNT(gir)));
	CU_ASSERT(masks_are_bits(mpr, TEST_COUNT(mpr)));
	CU_ASSERT(masks_are_bits(smir, TEST_COUNT(smir)));
	CU_ASSERT(masks_are_bits(iir, TEST_COUNT(iir)));
}

/* --- ClassPortInfo ------------------------------------------------------ */

static void test_class_port_info(void)
{
	ib_class_port_info_t cpi;
	const uint8_t *b = (const uint8_t *)&cpi;

	memset(&cpi, 0, sizeof(cpi));
	ib_class_set_resp_time_val(&cpi, 0x12);
	ib_class_set_cap_mask2(&cpi, 0x2ABCDEF);
	CU_ASSERT(bytes_equal(b + 4, "\x55\x79\xBD\xF2", 4));
	CU_ASSERT_EQUAL(ib_class_resp_time_val(&cpi), 0x12);
	CU_ASSERT_EQUAL(ib_class_cap_mask2(&cpi), 0x2ABCDEF);

	/* Each setter keeps the other field. */
	ib_class_set_resp_time_val(&cpi, 0x3F); /* only 5 bits kept */
	CU_ASSERT_EQUAL(ib_class_resp_time_val(&cpi), 0x1F);
	CU_ASSERT_EQUAL(ib_class_cap_mask2(&cpi), 0x2ABCDEF);
	ib_class_set_cap_mask2(&cpi, 1);
	CU_ASSERT_EQUAL(ib_class_resp_time_val(&cpi), 0x1F);
	CU_ASSERT(bytes_equal(b + 4, "\x00\x00\x00\x3F", 4));
	/* Neighbouring fields untouched. */
	CU_ASSERT_EQUAL(cpi.cap_mask, 0);
	CU_ASSERT_EQUAL(b[8], 0);

	CU_ASSERT_EQUAL(IB_CLASS_RESP_TIME_MASK, 0x1F);
	CU_ASSERT_EQUAL(IB_PM_ALL_PORT_SELECT, CL_HTON16(0x0100));
	CU_ASSERT_EQUAL(IB_PM_PC_XMIT_WAIT_SUP, CL_HTON16(0x1000));
	CU_ASSERT_EQUAL(IB_PM_IS_ADDL_PORT_CTRS_EXT_SUP, CL_HTON32(2));
}

/* --- MultiPathRecord ---------------------------------------------------- */

static void test_multipath_rec(void)
{
	ib_multipath_rec_t rec;
	const uint8_t *b = (const uint8_t *)&rec;
	uint8_t sid[8];

	memset(&rec, 0, sizeof(rec));
	rec.num_path = 0x85;
	rec.mtu = 0x44;
	rec.rate = 0x87;
	rec.pkt_life = 0xD3;
	ib_multipath_rec_set_qos_class(&rec, 0x5A5);
	ib_multipath_rec_set_sl(&rec, 9);
	CU_ASSERT_EQUAL(b[8], 0x5A);
	CU_ASSERT_EQUAL(b[9], 0x59);
	CU_ASSERT_EQUAL(ib_multipath_rec_sl(&rec), 9);
	CU_ASSERT_EQUAL(ib_multipath_rec_qos_class(&rec), 0x5A5);
	ib_multipath_rec_set_sl(&rec, 2);
	CU_ASSERT_EQUAL(ib_multipath_rec_qos_class(&rec), 0x5A5);
	ib_multipath_rec_set_qos_class(&rec, 1);
	CU_ASSERT_EQUAL(ib_multipath_rec_sl(&rec), 2);
	CU_ASSERT_EQUAL(ib_multipath_rec_num_path(&rec), 5);
	CU_ASSERT_EQUAL(ib_multipath_rec_mtu(&rec), 4);
	CU_ASSERT_EQUAL(ib_multipath_rec_mtu_sel(&rec), 1);
	CU_ASSERT_EQUAL(ib_multipath_rec_rate(&rec), 7);
	CU_ASSERT_EQUAL(ib_multipath_rec_rate_sel(&rec), 2);
	CU_ASSERT_EQUAL(ib_multipath_rec_pkt_life(&rec), 0x13);
	CU_ASSERT_EQUAL(ib_multipath_rec_pkt_life_sel(&rec), 3);

	/* ServiceID: 8 MSBs at byte 13, 56 LSBs at bytes 17..23. */
	memcpy((uint8_t *)&rec + 13, "\x11", 1);
	memcpy((uint8_t *)&rec + 17, "\x22\x33\x44\x55\x66\x77\x88", 7);
	net64_bytes(ib_multipath_rec_service_id(&rec), sid);
	CU_ASSERT(bytes_equal(sid, "\x11\x22\x33\x44\x55\x66\x77\x88", 8));
	CU_ASSERT_EQUAL(ib_multipath_rec_service_id(&rec), CL_HTON64(0x1122334455667788ULL));
}

/* --- MCMemberRecord ----------------------------------------------------- */

static void test_member_sl_flow_hop(void)
{
	ib_member_rec_t rec;
	const uint8_t *b = (const uint8_t *)&rec;
	uint8_t sl = 0, hop = 0;
	net32_t flow = 0;

	memset(&rec, 0, sizeof(rec));
	rec.sl_flow_hop = ib_member_set_sl_flow_hop(0xA, CL_HTON32(0xBCDEF), 0x7F);
	CU_ASSERT(bytes_equal(b + 44, "\xAB\xCD\xEF\x7F", 4));
	ib_member_get_sl_flow_hop(rec.sl_flow_hop, &sl, &flow, &hop);
	CU_ASSERT_EQUAL(sl, 0xA);
	CU_ASSERT_EQUAL(flow, CL_HTON32(0xBCDEF));
	CU_ASSERT_EQUAL(hop, 0x7F);

	/* Each output is optional. */
	sl = 0; flow = 0; hop = 0;
	ib_member_get_sl_flow_hop(rec.sl_flow_hop, NULL, &flow, NULL);
	CU_ASSERT_EQUAL(flow, CL_HTON32(0xBCDEF));
	ib_member_get_sl_flow_hop(rec.sl_flow_hop, &sl, NULL, NULL);
	CU_ASSERT_EQUAL(sl, 0xA);
	ib_member_get_sl_flow_hop(rec.sl_flow_hop, NULL, NULL, &hop);
	CU_ASSERT_EQUAL(hop, 0x7F);

	/* Oversized inputs do not spill into neighbouring fields. */
	rec.sl_flow_hop = ib_member_set_sl_flow_hop(0x1F, CL_HTON32(0xFFFFFFFF), 0);
	CU_ASSERT(bytes_equal(b + 44, "\xFF\xFF\xFF\x00", 4));
	ib_member_get_sl_flow_hop(rec.sl_flow_hop, &sl, &flow, &hop);
	CU_ASSERT_EQUAL(sl, 0xF);
	CU_ASSERT_EQUAL(flow, CL_HTON32(0xFFFFF));
	CU_ASSERT_EQUAL(hop, 0);
}

static void test_member_scope_state(void)
{
	ib_member_rec_t rec;
	const uint8_t *b = (const uint8_t *)&rec;
	uint8_t ss, scope = 0, state = 0;

	ss = ib_member_set_scope_state(IB_MC_SCOPE_LINK_LOCAL, IB_MC_REC_STATE_FULL_MEMBER);
	CU_ASSERT_EQUAL(ss, 0x21);
	CU_ASSERT_EQUAL(ib_member_get_scope(ss), IB_MC_SCOPE_LINK_LOCAL);
	CU_ASSERT_EQUAL(ib_member_get_state(ss), IB_MC_REC_STATE_FULL_MEMBER);
	ib_member_get_scope_state(ss, &scope, &state);
	CU_ASSERT_EQUAL(scope, 0x2);
	CU_ASSERT_EQUAL(state, 0x1);
	scope = 0;
	ib_member_get_scope_state(ss, &scope, NULL);
	CU_ASSERT_EQUAL(scope, 0x2);
	state = 0;
	ib_member_get_scope_state(ss, NULL, &state);
	CU_ASSERT_EQUAL(state, 0x1);

	/* Setting one nibble keeps the other. */
	ib_member_set_scope(&ss, IB_MC_SCOPE_GLOBAL);
	CU_ASSERT_EQUAL(ss, 0xE1);
	ib_member_set_state(&ss, IB_MC_REC_STATE_SEND_ONLY_NON_MEMBER);
	CU_ASSERT_EQUAL(ss, 0xE4);
	ib_member_set_scope(&ss, IB_MC_SCOPE_SITE_LOCAL);
	CU_ASSERT_EQUAL(ss, 0x54);
	ib_member_set_state(&ss, 0);
	CU_ASSERT_EQUAL(ss, 0x50);

	memset(&rec, 0, sizeof(rec));
	rec.scope_state = 0xE4;
	ib_member_set_join_state(&rec, IB_MC_REC_STATE_FULL_MEMBER | IB_MC_REC_STATE_NON_MEMBER);
	CU_ASSERT_EQUAL(b[48], 0xE3);
	ib_member_set_join_state(&rec, 0xF8); /* only the low nibble is used */
	CU_ASSERT_EQUAL(b[48], 0xE8);
	CU_ASSERT_EQUAL(b[47], 0);
	CU_ASSERT_EQUAL(b[49], 0);
	CU_ASSERT_EQUAL(IB_MC_REC_STATE_SEND_ONLY_FULL_MEMBER, 0x08);
}

static void test_member_rec_image(void)
{
	ib_member_rec_t rec;
	uint8_t want[56];
	int i;

	memset(&rec, 0, sizeof(rec));
	fill_gid(&rec.mgid, 0xF0);
	fill_gid(&rec.port_gid, 0x40);
	rec.qkey = CL_HTON32(0x80010000);
	rec.mlid = CL_HTON16(0xC001);
	rec.mtu = (uint8_t)((IB_PATH_SELECTOR_EXACTLY << 6) | IB_MTU_LEN_2048);
	rec.tclass = 0x12;
	rec.pkey = CL_HTON16(0xFFFF);
	rec.rate = (uint8_t)((IB_PATH_SELECTOR_EXACTLY << 6) | IB_PATH_RECORD_RATE_10_GBS);
	rec.pkt_life = 0x80 | 14;
	rec.sl_flow_hop = ib_member_set_sl_flow_hop(3, CL_HTON32(0x1), 2);
	rec.scope_state = ib_member_set_scope_state(IB_MC_SCOPE_LINK_LOCAL,
						    IB_MC_REC_STATE_FULL_MEMBER);
	rec.proxy_join = 0x80;

	memset(want, 0, sizeof(want));
	for (i = 0; i < 16; i++) {
		want[i] = (uint8_t)(0xF0 + i);
		want[16 + i] = (uint8_t)(0x40 + i);
	}
	memcpy(want + 32, "\x80\x01\x00\x00", 4);
	memcpy(want + 36, "\xC0\x01", 2);
	want[38] = 0x84;
	want[39] = 0x12;
	memcpy(want + 40, "\xFF\xFF", 2);
	want[42] = 0x83;
	want[43] = 0x8E;
	memcpy(want + 44, "\x30\x00\x01\x02", 4);
	want[48] = 0x21;
	want[49] = 0x80;
	CU_ASSERT(bytes_equal(&rec, want, sizeof(want)));
}

/* --- Device management -------------------------------------------------- */

static void test_iou_info(void)
{
	ib_iou_info_t iou;

	memset(&iou, 0, sizeof(iou));
	iou.diag_rom = 0x40;
	CU_ASSERT_EQUAL(ib_iou_info_diag_dev_id(&iou), 1);
	CU_ASSERT_EQUAL(ib_iou_info_option_rom(&iou), 0);
	iou.diag_rom = 0x80;
	CU_ASSERT_EQUAL(ib_iou_info_diag_dev_id(&iou), 0);
	CU_ASSERT_EQUAL(ib_iou_info_option_rom(&iou), 1);
	iou.diag_rom = 0x3F;
	CU_ASSERT_EQUAL(ib_iou_info_diag_dev_id(&iou), 0);
	CU_ASSERT_EQUAL(ib_iou_info_option_rom(&iou), 0);
}

static void test_ioc_at_slot(void)
{
	ib_iou_info_t iou;

	memset(&iou, 0, sizeof(iou));
	iou.max_controllers = 255;
	iou.controller_list[0] = 0x1F;   /* slot 1: installed, slot 2: absent */
	iou.controller_list[1] = 0x01;   /* slot 3: empty, slot 4: installed */
	iou.controller_list[63] = 0x2E;  /* slots 127/128: reserved values */
	iou.controller_list[127] = 0x10; /* slot 255: installed */
	CU_ASSERT_EQUAL(ioc_at_slot(&iou, 1), IOC_INSTALLED);
	CU_ASSERT_EQUAL(ioc_at_slot(&iou, 2), SLOT_DOES_NOT_EXIST);
	CU_ASSERT_EQUAL(ioc_at_slot(&iou, 3), IOC_NOT_INSTALLED);
	CU_ASSERT_EQUAL(ioc_at_slot(&iou, 4), IOC_INSTALLED);
	CU_ASSERT_EQUAL(ioc_at_slot(&iou, 5), IOC_NOT_INSTALLED);
	CU_ASSERT_EQUAL(ioc_at_slot(&iou, 127), 0x2);
	CU_ASSERT_EQUAL(ioc_at_slot(&iou, 128), 0xE);
	CU_ASSERT_EQUAL(ioc_at_slot(&iou, 254), IOC_NOT_INSTALLED);
	CU_ASSERT_EQUAL(ioc_at_slot(&iou, 255), IOC_INSTALLED);
	CU_ASSERT_EQUAL(ioc_at_slot(&iou, 0), SLOT_DOES_NOT_EXIST);
}

static void test_ioc_profile(void)
{
	ib_ioc_profile_t prof;
	const uint8_t *b = (const uint8_t *)&prof;

	memset(&prof, 0, sizeof(prof));
	prof.subsys_id = CL_HTON32(0xDEADBEEF);
	ib_ioc_profile_set_vend_id(&prof, 0x0002C9);
	CU_ASSERT(bytes_equal(b + 8, "\x00\x02\xC9\x00", 4));
	CU_ASSERT_EQUAL(ib_ioc_profile_get_vend_id(&prof), 0x0002C9);
	ib_ioc_profile_set_subsys_vend_id(&prof, 0x123456);
	CU_ASSERT(bytes_equal(b + 20, "\x12\x34\x56\x00", 4));
	CU_ASSERT_EQUAL(ib_ioc_profile_get_subsys_vend_id(&prof), 0x123456);
	CU_ASSERT(bytes_equal(b + 24, "\xDE\xAD\xBE\xEF", 4)); /* SubsystemID kept */
	CU_ASSERT(bytes_equal(b + 12, "\0\0\0\0", 4));
	CU_ASSERT_EQUAL(CTRL_OPS_CAP_ST | CTRL_OPS_CAP_SF | CTRL_OPS_CAP_RT | CTRL_OPS_CAP_RF |
			CTRL_OPS_CAP_WT | CTRL_OPS_CAP_WF | CTRL_OPS_CAP_AT | CTRL_OPS_CAP_AF, 0xFF);
}

static void test_dm_slot_lo_hi(void)
{
	net32_t mod;
	uint8_t slot = 0, lo = 0, hi = 0;
	uint8_t b[4];

	mod = ib_dm_set_slot_lo_hi(5, 1, 3);
	memcpy(b, &mod, 4);
	CU_ASSERT(bytes_equal(b, "\x00\x05\x03\x01", 4));
	ib_dm_get_slot_lo_hi(mod, &slot, &lo, &hi);
	CU_ASSERT_EQUAL(slot, 5);
	CU_ASSERT_EQUAL(lo, 1);
	CU_ASSERT_EQUAL(hi, 3);
	slot = lo = hi = 0;
	ib_dm_get_slot_lo_hi(ib_dm_set_slot_lo_hi(0xFF, 0xFE, 0xFD), NULL, &lo, NULL);
	CU_ASSERT_EQUAL(lo, 0xFE);
	ib_dm_get_slot_lo_hi(ib_dm_set_slot_lo_hi(0xFF, 0xFE, 0xFD), &slot, NULL, &hi);
	CU_ASSERT_EQUAL(slot, 0xFF);
	CU_ASSERT_EQUAL(hi, 0xFD);
}

static void test_dm_constants(void)
{
	CU_ASSERT_STRING_EQUAL(DM_SVC_NAME, "DeviceManager.IBTA");
	CU_ASSERT_EQUAL(IB_DM_CTRL_LIST_SIZE * 2, 256);
	CU_ASSERT_EQUAL(SVC_ENTRY_COUNT * sizeof(ib_svc_entry_t), IB_DM_DATA_SIZE);
	CU_ASSERT_EQUAL(sizeof(ib_ioc_profile_t), 128);
	CU_ASSERT_EQUAL(MAX_SVC_ENTRY_NAME_LEN, 40);
	CU_ASSERT_EQUAL(CTRL_ID_STRING_LEN, 64);
}

/* --- PerfMgt ------------------------------------------------------------ */

static void test_perfmgt_macros(void)
{
	uint16_t v;
	uint8_t b[2];

	CU_ASSERT_EQUAL(PC_LINK_INT(0xA5), 0xA);
	CU_ASSERT_EQUAL(PC_BUF_OVERRUN(0xA5), 0x5);
	v = IB_COUNTER_SYMBOL_ERROR;
	memcpy(b, &v, 2);
	CU_ASSERT(bytes_equal(b, "\x00\x01", 2));
	v = IB_COUNTER_RCV_PKT;
	memcpy(b, &v, 2);
	CU_ASSERT(bytes_equal(b, "\x80\x00", 2));
	v = IB_CS_PORT_XMIT_WAIT;
	memcpy(b, &v, 2);
	CU_ASSERT(bytes_equal(b, "\x00\x05", 2));
}

/* --- Congestion control ------------------------------------------------- */

static void test_cc_mad(void)
{
	ib_cc_mad_t mad;

	memset(&mad, 0, sizeof(mad));
	mad.cc_key = CL_HTON64(0x0102030405060708ULL);
	CU_ASSERT_EQUAL(ib_cc_mad_get_cc_key(&mad), CL_HTON64(0x0102030405060708ULL));
	CU_ASSERT_PTR_EQUAL(ib_cc_mad_get_log_data_ptr(&mad), (uint8_t *)&mad + 32);
	CU_ASSERT_PTR_EQUAL(ib_cc_mad_get_mgt_data_ptr(&mad), (uint8_t *)&mad + 64);
	CU_ASSERT_EQUAL(IB_CC_MAD_HDR_SIZE, 32);
	CU_ASSERT_EQUAL(IB_CC_SW_PORT_SETTING_ELEMENTS * sizeof(ib_sw_port_cong_setting_element_t),
			sizeof(ib_sw_port_cong_setting_t));
	CU_ASSERT_EQUAL(IB_CC_TBL_ENTRY_LIST_MAX, 64);
	CU_ASSERT_EQUAL(IB_CA_CONG_ENTRY_DATA_SIZE, 16);
	CU_ASSERT_EQUAL(IB_CC_PORT_MASK_DATA_SIZE * 8, 256);
}

/* --- Records through an SA MAD ------------------------------------------ */

static void test_service_record_in_sa_mad(void)
{
	ib_sa_mad_t mad;
	ib_service_record_t *rec;
	const uint8_t *d;

	memset(&mad, 0, sizeof(mad));
	mad.comp_mask = IB_SR_COMPMASK_SID | IB_SR_COMPMASK_SNAME;
	rec = (ib_service_record_t *)mad.data;
	rec->service_id = CL_HTON64(0x1000000000000001ULL);
	rec->service_lease = CL_HTON32(0xFFFFFFFF);
	memcpy(rec->service_name, "ibal-test", 10);
	rec->service_data16[7] = CL_HTON16(0xBEEF);
	rec->service_data64[1] = CL_HTON64(0xCAFE);

	d = mad.data;
	CU_ASSERT(bytes_equal(d, "\x10\0\0\0\0\0\0\x01", 8));
	CU_ASSERT(bytes_equal(d + 28, "\xFF\xFF\xFF\xFF", 4));
	CU_ASSERT(bytes_equal(d + 48, "ibal-test", 10));
	CU_ASSERT(bytes_equal(d + 142, "\xBE\xEF", 2));
	CU_ASSERT(bytes_equal(d + 168, "\0\0\0\0\0\0\xCA\xFE", 8));
	CU_ASSERT(bytes_equal((const uint8_t *)&mad + 48, "\0\0\0\0\0\0\0\x41", 8));
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_path_rec_init_local_image),
	TEST_ENTRY(test_path_rec_getters),
	TEST_ENTRY(test_path_rec_sl_qos_independent),
	TEST_ENTRY(test_path_rec_hop_flow_raw),
	TEST_ENTRY(test_compmask_bytes),
	TEST_ENTRY(test_compmask_sequences),
	TEST_ENTRY(test_class_port_info),
	TEST_ENTRY(test_multipath_rec),
	TEST_ENTRY(test_member_sl_flow_hop),
	TEST_ENTRY(test_member_scope_state),
	TEST_ENTRY(test_member_rec_image),
	TEST_ENTRY(test_iou_info),
	TEST_ENTRY(test_ioc_at_slot),
	TEST_ENTRY(test_ioc_profile),
	TEST_ENTRY(test_dm_slot_lo_hi),
	TEST_ENTRY(test_dm_constants),
	TEST_ENTRY(test_perfmgt_macros),
	TEST_ENTRY(test_cc_mad),
	TEST_ENTRY(test_service_record_in_sa_mad),
};

TEST_MAIN("ib_types_sa", tests)
