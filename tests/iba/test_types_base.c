/*
 * ibal tests: the inline helpers and constants of ib_types_base.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Structures are built with the helpers and compared byte for byte with
 * images written from the specification's layouts (big-endian fields).
 */
#include <string.h>
#include <iba/ib_types.h>
#include "../common/cl_test.h"

#define BYTES_EQ(p, img) CU_ASSERT_EQUAL(memcmp((p), (img), sizeof(img)), 0)

static void test_constant_images(void)
{
	static const uint8_t attr_port_info[] = { 0x00, 0x15 };
	static const uint8_t qp1[] = { 0x00, 0x00, 0x00, 0x01 };
	static const uint8_t qkey[] = { 0x80, 0x01, 0x00, 0x00 };
	static const uint8_t prefix[] = { 0xFE, 0x80, 0, 0, 0, 0, 0, 0 };
	static const uint8_t ucast_end[] = { 0xBF, 0xFF };
	static const uint8_t direction[] = { 0x80, 0x00 };
	static const uint8_t invalid_field[] = { 0x00, 0x1C };
	static const uint8_t no_records[] = { 0x03, 0x00 };
	static const uint8_t producer_sw[] = { 0x00, 0x00, 0x00, 0x02 };
	ib_net16_t v16;
	ib_net32_t v32;
	ib_net64_t v64;

	v16 = IB_MAD_ATTR_PORT_INFO;
	BYTES_EQ(&v16, attr_port_info);
	v32 = IB_QP1;
	BYTES_EQ(&v32, qp1);
	v32 = IB_QP1_WELL_KNOWN_Q_KEY;
	BYTES_EQ(&v32, qkey);
	v64 = IB_DEFAULT_SUBNET_PREFIX;
	BYTES_EQ(&v64, prefix);
	v16 = IB_LID_UCAST_END;
	BYTES_EQ(&v16, ucast_end);
	v16 = IB_SMP_DIRECTION;
	BYTES_EQ(&v16, direction);
	v16 = IB_MAD_STATUS_INVALID_FIELD;
	BYTES_EQ(&v16, invalid_field);
	v16 = IB_SA_MAD_STATUS_NO_RECORDS;
	BYTES_EQ(&v16, no_records);
	v32 = IB_NOTICE_PRODUCER_TYPE_SWITCH;
	BYTES_EQ(&v32, producer_sw);
	CU_ASSERT_EQUAL(MAD_RMPP_DATA_SIZE, 220);
	CU_ASSERT_EQUAL(IB_MAX_RATE, IB_PATH_RECORD_RATE_300_GBS);
	CU_ASSERT_EQUAL(IB_MAX_MTU, 5);
}

static void test_field32(void)
{
	static const uint8_t img[] = { 0x01, 0x02, 0x03, 0x04 };
	ib_field32_t f;

	f.val = CL_HTON32(0x01020304);
	BYTES_EQ(f.bytes, img);
}

static void test_class_ranges(void)
{
	CU_ASSERT_FALSE(ib_class_is_vendor_specific_low(0x08));
	CU_ASSERT_TRUE(ib_class_is_vendor_specific_low(0x09));
	CU_ASSERT_TRUE(ib_class_is_vendor_specific_low(0x0F));
	CU_ASSERT_FALSE(ib_class_is_vendor_specific_low(0x10));
	CU_ASSERT_FALSE(ib_class_is_vendor_specific_high(0x2F));
	CU_ASSERT_TRUE(ib_class_is_vendor_specific_high(0x30));
	CU_ASSERT_TRUE(ib_class_is_vendor_specific_high(0x4F));
	CU_ASSERT_FALSE(ib_class_is_vendor_specific_high(0x50));
	CU_ASSERT_TRUE(ib_class_is_vendor_specific(0x0A));
	CU_ASSERT_TRUE(ib_class_is_vendor_specific(0x40));
	CU_ASSERT_FALSE(ib_class_is_vendor_specific(IB_MCLASS_SUBN_ADM));
	CU_ASSERT_FALSE(ib_class_is_vendor_specific(0xFF));

	CU_ASSERT_TRUE(ib_class_is_rmpp(IB_MCLASS_SUBN_ADM));
	CU_ASSERT_TRUE(ib_class_is_rmpp(IB_MCLASS_DEV_MGMT));
	CU_ASSERT_TRUE(ib_class_is_rmpp(IB_MCLASS_DEV_ADM));
	CU_ASSERT_TRUE(ib_class_is_rmpp(IB_MCLASS_BIS));
	CU_ASSERT_TRUE(ib_class_is_rmpp(0x30));
	CU_ASSERT_TRUE(ib_class_is_rmpp(0x4F));
	CU_ASSERT_FALSE(ib_class_is_rmpp(IB_MCLASS_SUBN_LID));
	CU_ASSERT_FALSE(ib_class_is_rmpp(IB_MCLASS_SUBN_DIR));
	CU_ASSERT_FALSE(ib_class_is_rmpp(IB_MCLASS_PERF));
	CU_ASSERT_FALSE(ib_class_is_rmpp(IB_MCLASS_COMM_MGMT));
	CU_ASSERT_FALSE(ib_class_is_rmpp(IB_MCLASS_CC));
	CU_ASSERT_FALSE(ib_class_is_rmpp(0x09)); /* low vendor range: no RMPP */
	CU_ASSERT_FALSE(ib_class_is_rmpp(0x50));
}

static void test_pkey(void)
{
	CU_ASSERT_EQUAL(ib_pkey_get_base(CL_HTON16(0xFFFF)), CL_HTON16(0x7FFF));
	CU_ASSERT_EQUAL(ib_pkey_get_base(CL_HTON16(0x8001)), CL_HTON16(0x0001));
	CU_ASSERT_TRUE(ib_pkey_is_full_member(CL_HTON16(IB_DEFAULT_PKEY)));
	CU_ASSERT_TRUE(ib_pkey_is_full_member(CL_HTON16(0x8000)));
	CU_ASSERT_FALSE(ib_pkey_is_full_member(IB_DEFAULT_PARTIAL_PKEY));
	CU_ASSERT_TRUE(ib_pkey_is_invalid(CL_HTON16(0x0000)));
	CU_ASSERT_TRUE(ib_pkey_is_invalid(CL_HTON16(0x8000)));
	CU_ASSERT_FALSE(ib_pkey_is_invalid(CL_HTON16(0x0001)));
	CU_ASSERT_FALSE(ib_pkey_is_invalid(CL_HTON16(0xFFFF)));
}

static void test_gid_unicast(void)
{
	static const uint8_t img[16] = {
		0xFE, 0x80, 0, 0, 0, 0, 0, 0,
		0x00, 0x02, 0xC9, 0x03, 0x00, 0x12, 0x34, 0x56
	};
	ib_gid_t gid;

	memset(&gid, 0xAA, sizeof(gid));
	ib_gid_set_default(&gid, CL_HTON64(0x0002C90300123456ULL));
	BYTES_EQ(gid.raw, img);
	CU_ASSERT_EQUAL(ib_gid_get_subnet_prefix(&gid), IB_DEFAULT_SUBNET_PREFIX);
	CU_ASSERT_EQUAL(ib_gid_get_guid(&gid), CL_HTON64(0x0002C90300123456ULL));
	CU_ASSERT_FALSE(ib_gid_is_multicast(&gid));
	CU_ASSERT_TRUE(ib_gid_is_link_local(&gid));
	CU_ASSERT_FALSE(ib_gid_is_site_local(&gid));

	/* FE80::/10 reaches FEBF; FEC0 is site-local, not link-local. */
	gid.unicast.prefix = CL_HTON64(0xFEBF000000000000ULL);
	CU_ASSERT_TRUE(ib_gid_is_link_local(&gid));
	gid.unicast.prefix = CL_HTON64(0xFEC0000000001234ULL);
	CU_ASSERT_FALSE(ib_gid_is_link_local(&gid));
	CU_ASSERT_TRUE(ib_gid_is_site_local(&gid));
	gid.unicast.prefix = CL_HTON64(0xFEC0000000010000ULL);
	CU_ASSERT_FALSE(ib_gid_is_site_local(&gid));
	gid.unicast.prefix = CL_HTON64(0x2001000000000000ULL);
	CU_ASSERT_FALSE(ib_gid_is_link_local(&gid));
	CU_ASSERT_FALSE(ib_gid_is_site_local(&gid));
}

static void test_gid_multicast(void)
{
	ib_gid_t mgid;

	memset(&mgid, 0, sizeof(mgid));
	mgid.raw[0] = 0xFF;
	mgid.raw[1] = 0x12; /* flags 1, scope link-local */
	CU_ASSERT_TRUE(ib_gid_is_multicast(&mgid));
	CU_ASSERT_EQUAL(ib_mgid_get_scope(&mgid), IB_MC_SCOPE_LINK_LOCAL);
	ib_mgid_set_scope(&mgid, IB_MC_SCOPE_SITE_LOCAL);
	CU_ASSERT_EQUAL(mgid.raw[1], 0x15);
	CU_ASSERT_EQUAL(ib_mgid_get_scope(&mgid), IB_MC_SCOPE_SITE_LOCAL);
	ib_mgid_set_scope(&mgid, 0xFE); /* only the low nibble counts */
	CU_ASSERT_EQUAL(mgid.raw[1], 0x1E);
	CU_ASSERT_EQUAL(mgid.multicast.header[1], 0x1E);
	mgid.raw[0] = 0xFE;
	CU_ASSERT_FALSE(ib_gid_is_multicast(&mgid));

	/* IPoIB view: signature and P_Key after the two header bytes. */
	mgid.ip_multicast.signature = CL_HTON16(0x401B);
	mgid.ip_multicast.p_key = CL_HTON16(0xFFFF);
	CU_ASSERT_EQUAL(mgid.raw[2], 0x40);
	CU_ASSERT_EQUAL(mgid.raw[3], 0x1B);
	CU_ASSERT_EQUAL(mgid.raw[4], 0xFF);
	CU_ASSERT_EQUAL(mgid.raw[5], 0xFF);
}

static void test_mad_init_new(void)
{
	static const uint8_t img[24] = {
		0x01, 0x03, 0x02, 0x12, 0x00, 0x00, 0x00, 0x00,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x00, 0x35, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44
	};
	union {
		uint8_t buf[MAD_BLOCK_SIZE];
		ib_mad_t mad;
	} u;
	uint8_t *buf = u.buf;
	ib_mad_t *p_mad = &u.mad;
	size_t i;

	memset(buf, 0xAA, sizeof(u.buf));
	ib_mad_init_new(p_mad, IB_MCLASS_SUBN_ADM, 2, IB_MAD_METHOD_GETTABLE,
			CL_HTON64(0x0102030405060708ULL), IB_MAD_ATTR_PATH_RECORD,
			CL_HTON32(0x11223344));
	BYTES_EQ(buf, img);
	for (i = sizeof(ib_mad_t); i < sizeof(u.buf); i++)
		if (buf[i] != 0xAA)
			break;
	CU_ASSERT_EQUAL(i, sizeof(u.buf)); /* only the header is written */
	CU_ASSERT_FALSE(ib_mad_is_response(p_mad));
}

static void test_mad_init_response(void)
{
	ib_mad_t req, resp;

	ib_mad_init_new(&req, IB_MCLASS_SUBN_LID, 1, IB_MAD_METHOD_SET,
			CL_HTON64(7), IB_MAD_ATTR_PORT_INFO, CL_HTON32(1));
	req.class_spec = CL_HTON16(0x1234);
	memset(&resp, 0xAA, sizeof(resp));
	ib_mad_init_response(&req, &resp, IB_MAD_STATUS_UNSUP_METHOD_ATTR);
	CU_ASSERT_EQUAL(resp.method, IB_MAD_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(resp.status, IB_MAD_STATUS_UNSUP_METHOD_ATTR);
	CU_ASSERT_EQUAL(resp.class_spec, CL_HTON16(0x1234));
	CU_ASSERT_EQUAL(resp.trans_id, CL_HTON64(7));
	CU_ASSERT_EQUAL(resp.attr_id, IB_MAD_ATTR_PORT_INFO);
	CU_ASSERT_EQUAL(resp.attr_mod, CL_HTON32(1));
	CU_ASSERT_EQUAL(resp.mgmt_class, IB_MCLASS_SUBN_LID);
	CU_ASSERT_TRUE(ib_mad_is_response(&resp));

	/* In place; Get and other methods only gain the R bit. */
	req.method = IB_MAD_METHOD_GET;
	ib_mad_init_response(&req, &req, 0);
	CU_ASSERT_EQUAL(req.method, IB_MAD_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(req.status, 0);
	req.method = IB_MAD_METHOD_REPORT;
	ib_mad_init_response(&req, &req, 0);
	CU_ASSERT_EQUAL(req.method, IB_MAD_METHOD_REPORT_RESP);
	req.method = IB_MAD_METHOD_GETTABLE;
	ib_mad_init_response(&req, &req, 0);
	CU_ASSERT_EQUAL(req.method, IB_MAD_METHOD_GETTABLE_RESP);

	req.method = IB_MAD_METHOD_TRAP_REPRESS;
	CU_ASSERT_TRUE(ib_mad_is_response(&req));
	req.method = IB_MAD_METHOD_TRAP;
	CU_ASSERT_FALSE(ib_mad_is_response(&req));
	req.method = IB_MAD_METHOD_SEND;
	CU_ASSERT_FALSE(ib_mad_is_response(&req));
}

static void test_rmpp(void)
{
	static const uint8_t img[12] = {
		0x01, IB_RMPP_TYPE_DATA, (0x1F << 3) | 0x07, 0x00,
		0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x01, 0x00
	};
	ib_rmpp_mad_t rmpp;

	memset(&rmpp, 0, sizeof(rmpp));
	rmpp.rmpp_version = 1;
	rmpp.rmpp_type = IB_RMPP_TYPE_DATA;
	rmpp.rmpp_flags = IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST;
	rmpp.seg_num = CL_HTON32(2);
	rmpp.paylen_newwin = CL_HTON32(256);
	CU_ASSERT_TRUE(ib_rmpp_is_flag_set(&rmpp, IB_RMPP_FLAG_ACTIVE));
	CU_ASSERT_TRUE(ib_rmpp_is_flag_set(&rmpp, IB_RMPP_FLAG_FIRST));
	CU_ASSERT_FALSE(ib_rmpp_is_flag_set(&rmpp, IB_RMPP_FLAG_LAST));
	CU_ASSERT_TRUE(ib_rmpp_is_flag_set(&rmpp,
					   IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST));
	CU_ASSERT_FALSE(ib_rmpp_is_flag_set(&rmpp,
					    IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_LAST));
	CU_ASSERT_EQUAL(ib_rmpp_get_resp_time(&rmpp), 0);

	ib_rmpp_set_resp_time(&rmpp, 0x12);
	CU_ASSERT_EQUAL(ib_rmpp_get_resp_time(&rmpp), 0x12);
	CU_ASSERT_TRUE(ib_rmpp_is_flag_set(&rmpp, IB_RMPP_FLAG_FIRST));
	/* Upstream ors the time in; it never clears bits. */
	ib_rmpp_set_resp_time(&rmpp, IB_RMPP_NO_RESP_TIME);
	rmpp.rmpp_flags |= IB_RMPP_FLAG_LAST;
	CU_ASSERT_EQUAL(ib_rmpp_get_resp_time(&rmpp), IB_RMPP_NO_RESP_TIME);
	BYTES_EQ((const uint8_t *)&rmpp + 24, img);
}

static void test_smp_init_new(void)
{
	static const uint8_t hdr[40] = {
		0x01, 0x81, 0x01, 0x01, 0x00, 0x00, 0x00, 0x03,
		0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80,
		0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
		0xDE, 0xAD, 0xBE, 0xEF, 0x01, 0x02, 0x03, 0x04,
		0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00
	};
	uint8_t path[IB_SUBNET_PATH_HOPS_MAX];
	ib_smp_t smp;
	const uint8_t *raw = (const uint8_t *)&smp;
	size_t i;
	int zero = 1;

	for (i = 0; i < sizeof(path); i++)
		path[i] = (uint8_t)(i + 1);
	memset(&smp, 0xAA, sizeof(smp));
	ib_smp_init_new(&smp, IB_MAD_METHOD_GET, CL_HTON64(0x1020304050607080ULL),
			IB_MAD_ATTR_NODE_INFO, CL_HTON32(5), 3,
			CL_HTON64(0xDEADBEEF01020304ULL), path,
			IB_LID_PERMISSIVE, IB_LID_PERMISSIVE);
	BYTES_EQ(raw, hdr);
	for (i = 40; i < 128; i++)
		zero &= raw[i] == 0;
	for (i = 192; i < 256; i++)
		zero &= raw[i] == 0;
	CU_ASSERT_TRUE(zero); /* reserved, data and return path cleared */
	CU_ASSERT_EQUAL(memcmp(raw + 128, path, sizeof(path)), 0);

	CU_ASSERT_PTR_EQUAL(ib_smp_get_payload_ptr(&smp), raw + 64);
	CU_ASSERT_FALSE(ib_smp_is_d(&smp));
	CU_ASSERT_EQUAL(ib_smp_get_status(&smp), 0);
	CU_ASSERT_FALSE(ib_smp_is_response(&smp));
}

static void test_smp_status_bits(void)
{
	ib_smp_t smp;
	uint8_t path[IB_SUBNET_PATH_HOPS_MAX] = { 0 };

	ib_smp_init_new(&smp, IB_MAD_METHOD_GET_RESP, 0, IB_MAD_ATTR_PORT_INFO,
			0, 1, 0, path, IB_LID_PERMISSIVE, IB_LID_PERMISSIVE);
	CU_ASSERT_TRUE(ib_smp_is_response(&smp));
	smp.status = CL_HTON16(0x801C);
	CU_ASSERT_TRUE(ib_smp_is_d(&smp));
	CU_ASSERT_EQUAL(ib_smp_get_status(&smp), IB_MAD_STATUS_INVALID_FIELD);
	smp.status = CL_HTON16(0x0004);
	CU_ASSERT_FALSE(ib_smp_is_d(&smp));
	CU_ASSERT_EQUAL(ib_smp_get_status(&smp), IB_MAD_STATUS_UNSUP_CLASS_VER);
	smp.status = IB_SMP_DIRECTION;
	CU_ASSERT_TRUE(ib_smp_is_d(&smp));
	CU_ASSERT_EQUAL(ib_smp_get_status(&smp), 0);
}

static void test_sa_mad(void)
{
	static const uint8_t img[20] = {
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* sm_key */
		0x00, 0x08, 0x00, 0x00,                         /* attr_offset */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0C  /* comp_mask */
	};
	union {
		ib_sa_mad_t sa;
		ib_mad_t hdr;
	} u;
	ib_sa_mad_t *p_sa = &u.sa;
	const uint8_t *raw = (const uint8_t *)&u;

	memset(&u, 0, sizeof(u));
	ib_mad_init_new(&u.hdr, IB_MCLASS_SUBN_ADM, 2, IB_MAD_METHOD_GET,
			CL_HTON64(1), IB_MAD_ATTR_PATH_RECORD, 0);
	CU_ASSERT_EQUAL(p_sa->mgmt_class, IB_MCLASS_SUBN_ADM);
	CU_ASSERT_EQUAL(p_sa->attr_id, IB_MAD_ATTR_PATH_RECORD);
	p_sa->sm_key = CL_HTON64(0x0102030405060708ULL);
	p_sa->attr_offset = ib_get_attr_offset(64);
	p_sa->comp_mask = CL_HTON64(0x0C);
	BYTES_EQ(raw + 36, img);
	CU_ASSERT_EQUAL(raw[1], IB_MCLASS_SUBN_ADM);
	CU_ASSERT_EQUAL(raw[17], 0x35);
	CU_ASSERT_PTR_EQUAL(ib_sa_mad_get_payload_ptr(p_sa), raw + 56);

	CU_ASSERT_EQUAL(ib_get_attr_size(CL_HTON16(8)), 64u);
	CU_ASSERT_EQUAL(ib_get_attr_size(CL_HTON16(0)), 0u);
	CU_ASSERT_EQUAL(ib_get_attr_size(CL_HTON16(0xFFFF)), 0x7FFF8u);
	CU_ASSERT_EQUAL(ib_get_attr_offset(0), 0);
	CU_ASSERT_EQUAL(ib_get_attr_offset(7), 0); /* truncates */
	CU_ASSERT_EQUAL(ib_get_attr_offset(176), CL_HTON16(22));
	CU_ASSERT_EQUAL(ib_get_attr_size(ib_get_attr_offset(176)), 176u);
}

static void test_grh(void)
{
	static const uint8_t img[4] = { 0x6A, 0xB1, 0x23, 0x45 };
	ib_grh_t grh;
	uint8_t ver = 0, tclass = 0;
	net32_t flow = 0;

	memset(&grh, 0, sizeof(grh));
	grh.ver_class_flow = ib_grh_set_ver_class_flow(6, 0xAB, CL_HTON32(0x12345));
	BYTES_EQ(&grh, img);
	ib_grh_get_ver_class_flow(grh.ver_class_flow, &ver, &tclass, &flow);
	CU_ASSERT_EQUAL(ver, 6);
	CU_ASSERT_EQUAL(tclass, 0xAB);
	CU_ASSERT_EQUAL(flow, CL_HTON32(0x12345));

	/* Flow label bits above 20 are dropped; NULL outputs are skipped. */
	grh.ver_class_flow = ib_grh_set_ver_class_flow(6, 0, CL_HTON32(0xFFF00001));
	ib_grh_get_ver_class_flow(grh.ver_class_flow, NULL, NULL, &flow);
	CU_ASSERT_EQUAL(flow, CL_HTON32(0x00001));
	ib_grh_get_ver_class_flow(grh.ver_class_flow, &ver, NULL, NULL);
	CU_ASSERT_EQUAL(ver, 6);
	ib_grh_get_ver_class_flow(grh.ver_class_flow, NULL, &tclass, NULL);
	CU_ASSERT_EQUAL(tclass, 0);

	grh.hop_limit = 0xFF;
	ib_gid_set_default(&grh.dest_gid, CL_HTON64(1));
	CU_ASSERT_EQUAL(((const uint8_t *)&grh)[7], 0xFF);
	CU_ASSERT_EQUAL(((const uint8_t *)&grh)[24], 0xFE);
	CU_ASSERT_EQUAL(((const uint8_t *)&grh)[39], 0x01);
}

static void test_node_type_str(void)
{
	CU_ASSERT_STRING_EQUAL(ib_get_node_type_str(0), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(ib_get_node_type_str(IB_NODE_TYPE_CA), "Channel Adapter");
	CU_ASSERT_STRING_EQUAL(ib_get_node_type_str(IB_NODE_TYPE_SWITCH), "Switch");
	CU_ASSERT_STRING_EQUAL(ib_get_node_type_str(IB_NODE_TYPE_ROUTER), "Router");
	CU_ASSERT_STRING_EQUAL(ib_get_node_type_str(4), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(ib_get_node_type_str(255), "UNKNOWN");
}

static void test_producer_type_str(void)
{
	CU_ASSERT_STRING_EQUAL(ib_get_producer_type_str(0), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(ib_get_producer_type_str(IB_NOTICE_PRODUCER_TYPE_CA),
			       "Channel Adapter");
	CU_ASSERT_STRING_EQUAL(ib_get_producer_type_str(IB_NOTICE_PRODUCER_TYPE_SWITCH),
			       "Switch");
	CU_ASSERT_STRING_EQUAL(ib_get_producer_type_str(IB_NOTICE_PRODUCER_TYPE_ROUTER),
			       "Router");
	CU_ASSERT_STRING_EQUAL(ib_get_producer_type_str(IB_NOTICE_PRODUCER_TYPE_CLASS_MGR),
			       "Class Manager");
	CU_ASSERT_STRING_EQUAL(ib_get_producer_type_str(CL_HTON32(5)), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(ib_get_producer_type_str(0xFFFFFFFFu), "UNKNOWN");
}

static void test_port_state_str(void)
{
	static const char *const names[] = {
		"No State Change (NOP)", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTDEFER"
	};
	uint8_t s;

	for (s = IB_LINK_NO_CHANGE; s <= IB_LINK_ACT_DEFER; s++) {
		CU_ASSERT_STRING_EQUAL(ib_get_port_state_str(s), names[s]);
		CU_ASSERT_EQUAL(ib_get_port_state_from_str(names[s]), s);
	}
	/* Upstream maps every value above ACTIVE to the ACTDEFER name. */
	CU_ASSERT_STRING_EQUAL(ib_get_port_state_str(6), "ACTDEFER");
	CU_ASSERT_STRING_EQUAL(ib_get_port_state_str(255), "ACTDEFER");

	CU_ASSERT_EQUAL(ib_get_port_state_from_str("bogus"), 6);
	CU_ASSERT_EQUAL(ib_get_port_state_from_str(""), 6);
	CU_ASSERT_EQUAL(ib_get_port_state_from_str("ACT"), 6);
	CU_ASSERT_EQUAL(ib_get_port_state_from_str("DOWx"), 6);
	CU_ASSERT_EQUAL(ib_get_port_state_from_str("INI"), 6);
	CU_ASSERT_EQUAL(ib_get_port_state_from_str("ARME"), 6);
	CU_ASSERT_EQUAL(ib_get_port_state_from_str("ACTDEFE"), 6);
	CU_ASSERT_EQUAL(ib_get_port_state_from_str("No State Ch"), 6);
	CU_ASSERT_EQUAL(ib_get_port_state_from_str("No State Cha"), IB_LINK_NO_CHANGE);
	CU_ASSERT_EQUAL(ib_get_port_state_from_str("ACTIVE state"), IB_LINK_ACTIVE);
	CU_ASSERT_EQUAL(ib_get_port_state_from_str("ACTDEFER"), IB_LINK_ACT_DEFER);
	CU_ASSERT_EQUAL(ib_get_port_state_from_str("down"), 6); /* case matters */
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_constant_images),
	TEST_ENTRY(test_field32),
	TEST_ENTRY(test_class_ranges),
	TEST_ENTRY(test_pkey),
	TEST_ENTRY(test_gid_unicast),
	TEST_ENTRY(test_gid_multicast),
	TEST_ENTRY(test_mad_init_new),
	TEST_ENTRY(test_mad_init_response),
	TEST_ENTRY(test_rmpp),
	TEST_ENTRY(test_smp_init_new),
	TEST_ENTRY(test_smp_status_bits),
	TEST_ENTRY(test_sa_mad),
	TEST_ENTRY(test_grh),
	TEST_ENTRY(test_node_type_str),
	TEST_ENTRY(test_producer_type_str),
	TEST_ENTRY(test_port_state_str),
};

TEST_MAIN("ib_types_base", tests)
