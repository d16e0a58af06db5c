/*
 * ibal tests: the inline helpers and constants of ib_types_smp.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Each setter runs on two backgrounds (all bits clear, all bits set) and the
 * whole attribute is compared with the expected image, so a setter that
 * touches a neighbouring bit fails. Getters read images written byte by byte
 * from the specification's layouts (big-endian fields, high nibble first).
 */
#include <string.h>
#include <iba/ib_types.h>
#include "../common/cl_test.h"

#define BYTES_EQ(p, img) CU_ASSERT_EQUAL(memcmp((p), (img), sizeof(img)), 0)

/*
 * Checks that @p after equals @p before except for byte @p off, which must
 * hold @p expect.
 */
static void only_byte_changed(const void *before, const void *after, size_t len,
			      size_t off, uint8_t expect)
{
	const uint8_t *b = (const uint8_t *)before;
	const uint8_t *a = (const uint8_t *)after;
	size_t i;

	for (i = 0; i < len; i++) {
		if (i == off) {
			CU_ASSERT_EQUAL(a[i], expect);
		} else {
			CU_ASSERT_EQUAL(a[i], b[i]);
		}
	}
}

/* ------------------------------------------------------------------------ */

static void test_constant_images(void)
{
	static const uint8_t cap_is_sm[] = { 0x00, 0x00, 0x00, 0x02 };
	static const uint8_t cap_hier[] = { 0x80, 0x00, 0x00, 0x00 };
	static const uint8_t cap_client_rereg[] = { 0x02, 0x00, 0x00, 0x00 };
	static const uint8_t cap_ext_speeds[] = { 0x00, 0x00, 0x40, 0x00 };
	static const uint8_t cap2_pi_ext[] = { 0x00, 0x02 };
	static const uint8_t port_num_mask[] = { 0xFF, 0x00, 0x00, 0x00 };
	static const uint8_t vend_id_mask[] = { 0x00, 0xFF, 0xFF, 0xFF };
	static const uint8_t t259_sl[] = { 0xF0, 0x00, 0x00, 0x00 };
	static const uint8_t t259_qp[] = { 0x00, 0xFF, 0xFF, 0xFF };
	static const uint8_t t144_nd[] = { 0x00, 0x01 };
	static const uint8_t t144_ext[] = { 0x00, 0x20 };
	static const uint8_t rs_fec[] = { 0x00, 0x02 };
	static const uint8_t fec_sup[] = { 0x00, 0x00, 0x00, 0x01 };
	ib_net16_t v16;
	ib_net32_t v32;

	v32 = IB_PORT_CAP_IS_SM;
	BYTES_EQ(&v32, cap_is_sm);
	v32 = IB_PORT_CAP_HAS_HIER_INFO;
	BYTES_EQ(&v32, cap_hier);
	v32 = IB_PORT_CAP_HAS_CLIENT_REREG;
	BYTES_EQ(&v32, cap_client_rereg);
	v32 = IB_PORT_CAP_RESV14;
	BYTES_EQ(&v32, cap_ext_speeds);
	CU_ASSERT_EQUAL(IB_PORT_CAP_RESV13, IB_PORT_CAP_HAS_CABLE_INFO);
	CU_ASSERT_EQUAL(IB_PORT_CAP_RESV15, IB_PORT_CAP_HAS_CAP_MASK2);
	v16 = IB_PORT_CAP2_IS_PORT_INFO_EXT_SUPPORTED;
	BYTES_EQ(&v16, cap2_pi_ext);
	v32 = IB_NODE_INFO_PORT_NUM_MASK;
	BYTES_EQ(&v32, port_num_mask);
	v32 = IB_NODE_INFO_VEND_ID_MASK;
	BYTES_EQ(&v32, vend_id_mask);
	v32 = TRAP_259_MASK_SL;
	BYTES_EQ(&v32, t259_sl);
	v32 = TRAP_259_MASK_QP;
	BYTES_EQ(&v32, t259_qp);
	v16 = TRAP_144_MASK_NODE_DESCRIPTION_CHANGE;
	BYTES_EQ(&v16, t144_nd);
	v16 = TRAP_144_MASK_LINK_SPEED_EXT_ENABLE_CHG;
	BYTES_EQ(&v16, t144_ext);
	CU_ASSERT_EQUAL(TRAP_144_MASK_CAPABILITY_MASK2_CHANGE, TRAP_144_MASK_LINK_SPEED_EXT_ENABLE_CHG);
	v16 = IB_PORT_EXT_RS_FEC_MODE_ACTIVE;
	BYTES_EQ(&v16, rs_fec);
	v32 = IB_PORT_EXT_CAP_IS_FEC_MODE_SUPPORTED;
	BYTES_EQ(&v32, fec_sup);
	CU_ASSERT_EQUAL(SM_LOCAL_CHANGES_TRAP, 144);
	CU_ASSERT_EQUAL(SM_BAD_SWITCH_PKEY_TRAP, 259);
	CU_ASSERT_EQUAL(IB_PKEY_ENTRIES_MAX, 2048 * 32);
}

/* ------------------------------------------------------------------------ */

static void test_sminfo(void)
{
	static const uint8_t img[21] = {
		0x00, 0x02, 0xC9, 0x03, 0x00, 0x00, 0x00, 0x01, /* guid */
		0, 0, 0, 0, 0, 0, 0x12, 0x34,                   /* sm_key */
		0x00, 0x00, 0x01, 0x00,                         /* act_count 256 */
		0xA3                                            /* priority 10, master */
	};
	ib_sm_info_t smi;

	memcpy(&smi, img, sizeof(img));
	CU_ASSERT_EQUAL(smi.guid, CL_HTON64(0x0002C90300000001ULL));
	CU_ASSERT_EQUAL(smi.sm_key, CL_HTON64(0x1234));
	CU_ASSERT_EQUAL(smi.act_count, CL_HTON32(256));
	CU_ASSERT_EQUAL(ib_sminfo_get_priority(&smi), 10);
	CU_ASSERT_EQUAL(ib_sminfo_get_state(&smi), IB_SMINFO_STATE_MASTER);
	smi.pri_state = 0x0F;
	CU_ASSERT_EQUAL(ib_sminfo_get_priority(&smi), 0);
	CU_ASSERT_EQUAL(ib_sminfo_get_state(&smi), 0x0F);
	smi.pri_state = 0xF0;
	CU_ASSERT_EQUAL(ib_sminfo_get_priority(&smi), 15);
	CU_ASSERT_EQUAL(ib_sminfo_get_state(&smi), IB_SMINFO_STATE_NOTACTIVE);
}

static void test_node_info(void)
{
	static const uint8_t img[40] = {
		0x01, 0x01, IB_NODE_TYPE_SWITCH, 36,            /* versions, type, ports */
		0x00, 0x02, 0xC9, 0x03, 0x00, 0xAA, 0xBB, 0xCC, /* sys_guid */
		0x00, 0x02, 0xC9, 0x03, 0x00, 0xAA, 0xBB, 0xCD, /* node_guid */
		0x00, 0x02, 0xC9, 0x03, 0x00, 0xAA, 0xBB, 0xCE, /* port_guid */
		0x00, 0x08,                                     /* partition_cap */
		0xC7, 0x38,                                     /* device_id */
		0x00, 0x00, 0x00, 0xA0,                         /* revision */
		0x11, 0x00, 0x02, 0xC9                          /* port 17, vendor 0x0002C9 */
	};
	ib_node_info_t ni;

	memcpy(&ni, img, sizeof(img));
	CU_ASSERT_EQUAL(ni.node_type, IB_NODE_TYPE_SWITCH);
	CU_ASSERT_EQUAL(ni.num_ports, 36);
	CU_ASSERT_EQUAL(ni.node_guid, CL_HTON64(0x0002C90300AABBCDULL));
	CU_ASSERT_EQUAL(ni.partition_cap, CL_HTON16(8));
	CU_ASSERT_EQUAL(ni.device_id, CL_HTON16(0xC738));
	CU_ASSERT_EQUAL(ib_node_info_get_local_port_num(&ni), 17);
	CU_ASSERT_EQUAL(ib_node_info_get_vendor_id(&ni), CL_HTON32(0x0002C9));

	ni.port_num_vendor_id = CL_HTON32(0xFFFFFFFF);
	CU_ASSERT_EQUAL(ib_node_info_get_local_port_num(&ni), 0xFF);
	CU_ASSERT_EQUAL(ib_node_info_get_vendor_id(&ni), CL_HTON32(0x00FFFFFF));
	ni.port_num_vendor_id = CL_HTON32(0x01000000);
	CU_ASSERT_EQUAL(ib_node_info_get_local_port_num(&ni), 1);
	CU_ASSERT_EQUAL(ib_node_info_get_vendor_id(&ni), 0);
}

/* ------------------------------------------------------------------------ */
/* PortInfo getters                                                         */
/* ------------------------------------------------------------------------ */

/* A PortInfo written from table 146 of the specification. */
static const uint8_t port_info_img[64] = {
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* 0: M_Key */
	0xFE, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 8: GidPrefix */
	0x00, 0x05,                                     /* 16: LID 5 */
	0x00, 0x01,                                     /* 18: MasterSMLID 1 */
	0x02, 0x51, 0x08, 0x68,                         /* 20: CapabilityMask */
	0x00, 0x00,                                     /* 24: DiagCode */
	0x00, 0x0F,                                     /* 26: M_KeyLeasePeriod */
	0x01,                                           /* 28: LocalPortNum */
	0x03, 0x0B, 0x02,                               /* 29: LinkWidthEnabled/Supported/Active */
	0x34, /* 32: LinkSpeedSupported 3, PortState 4 */
	0x52, /* 33: PortPhysicalState 5, LinkDownDefaultState 2 */
	0x83, /* 34: M_KeyProtectBits 2, LMC 3 */
	0x47, /* 35: LinkSpeedActive 4, LinkSpeedEnabled 7 */
	0x4B, /* 36: NeighborMTU 4, MasterSMSL 11 */
	0x3A, /* 37: VLCap 3, InitType 0xA */
	0x10, 0x08, 0x08, /* 38: VLHighLimit, VLArbHighCap, VLArbLowCap */
	0x25, /* 41: InitTypeReply 2, MTUCap 5 */
	0x73, /* 42: VLStallCount 3, HOQLife 0x13 */
	0x2F, /* 43: OperationalVLs 2, enforcement bits 0xF */
	0x00, 0x01, 0x00, 0x02, 0x00, 0x03, /* 44: M_Key, P_Key, Q_Key violations */
	0x20, /* 50: GUIDCap */
	0xD2, /* 51: ClientReregister 1, McastPKeyTrapSuppr 1, bit 5 0, SubnetTimeOut 0x12 */
	0xF3, /* 52: reserved bits set, RespTimeValue 0x13 */
	0xC3, /* 53: LocalPhyErrors 0xC, OverrunErrors 3 */
	0x00, 0x40, /* 54: MaxCreditHint */
	0x00, 0x00, 0x12, 0x34, /* 56: LinkRoundTripLatency */
	0x00, 0x02, /* 60: CapabilityMask2 */
	0x21, /* 62: LinkSpeedExtActive 2, LinkSpeedExtSupported 1 */
	0xFE, /* 63: reserved bits set, LinkSpeedExtEnabled 0x1E */
};

static void test_port_info_getters(void)
{
	ib_port_info_t pi;

	memcpy(&pi, port_info_img, sizeof(pi));
	CU_ASSERT_EQUAL(ib_port_info_get_m_key(&pi), CL_HTON64(0x0102030405060708ULL));
	CU_ASSERT_EQUAL(pi.base_lid, CL_HTON16(5));
	CU_ASSERT_TRUE((pi.capability_mask & IB_PORT_CAP_IS_SM) == 0);
	CU_ASSERT_TRUE((pi.capability_mask & IB_PORT_CAP_HAS_TRAP) != 0);
	CU_ASSERT_TRUE((pi.capability_mask & IB_PORT_CAP_HAS_CLIENT_REREG) != 0);
	CU_ASSERT_TRUE((pi.capability_mask2 & IB_PORT_CAP2_IS_PORT_INFO_EXT_SUPPORTED) != 0);
	CU_ASSERT_EQUAL(ib_port_info_get_link_speed_sup(&pi), 3);
	CU_ASSERT_EQUAL(ib_port_info_get_port_state(&pi), IB_LINK_ACTIVE);
	CU_ASSERT_EQUAL(ib_port_info_get_port_phys_state(&pi), IB_PORT_PHYS_STATE_LINKUP);
	CU_ASSERT_EQUAL(ib_port_info_get_link_down_def_state(&pi), 2);
	CU_ASSERT_EQUAL(ib_port_info_get_mpb(&pi), 2);
	CU_ASSERT_EQUAL(ib_port_info_get_lmc(&pi), 3);
	CU_ASSERT_EQUAL(ib_port_info_get_link_speed_active(&pi), IB_LINK_SPEED_ACTIVE_10);
	CU_ASSERT_EQUAL(ib_port_info_get_link_speed_enabled(&pi), 7);
	CU_ASSERT_EQUAL(ib_port_info_get_neighbor_mtu(&pi), IB_MTU_LEN_2048);
	CU_ASSERT_EQUAL(ib_port_info_get_master_smsl(&pi), 11);
	CU_ASSERT_EQUAL(ib_port_info_get_sm_sl(&pi), 11);
	ib_port_info_set_sm_sl(&pi, 5);
	CU_ASSERT_EQUAL(ib_port_info_get_master_smsl(&pi), 5);
	CU_ASSERT_EQUAL(ib_port_info_get_neighbor_mtu(&pi), IB_MTU_LEN_2048);
	ib_port_info_set_sm_sl(&pi, 11);
	CU_ASSERT_EQUAL(ib_port_info_get_vl_cap(&pi), 3);
	CU_ASSERT_EQUAL(ib_port_info_get_init_type(&pi), 0xA);
	CU_ASSERT_EQUAL(ib_port_info_get_mtu_cap(&pi), IB_MTU_LEN_4096);
	CU_ASSERT_EQUAL(ib_port_info_get_vl_stall_count(&pi), 3);
	CU_ASSERT_EQUAL(ib_port_info_get_hoq_lifetime(&pi), 0x13);
	CU_ASSERT_EQUAL(ib_port_info_get_op_vls(&pi), 2);
	CU_ASSERT_EQUAL(ib_port_info_get_client_rereg(&pi), 1);
	CU_ASSERT_EQUAL(ib_port_info_get_mcast_pkey_trap_suppress(&pi), 1);
	CU_ASSERT_EQUAL(ib_port_info_get_timeout(&pi), 0x12);
	CU_ASSERT_EQUAL(ib_port_info_get_resp_time_value(&pi), 0x13);
	CU_ASSERT_EQUAL(ib_port_info_get_local_phy_err_thd(&pi), 0xC);
	CU_ASSERT_EQUAL(ib_port_info_get_overrun_err_thd(&pi), 3);
	CU_ASSERT_EQUAL(ib_port_info_get_link_speed_ext_active(&pi), IB_LINK_SPEED_EXT_ACTIVE_25);
	CU_ASSERT_EQUAL(ib_port_info_get_link_speed_ext_sup(&pi), 1);
	CU_ASSERT_EQUAL(ib_port_info_get_link_speed_ext_enabled(&pi), 0x1E);
	CU_ASSERT_EQUAL(pi.link_rt_latency, CL_HTON32(0x1234));

	/* The opposite nibble values, to catch a getter reading the wrong half. */
	memset(&pi, 0, sizeof(pi));
	pi.state_info1 = 0x43;
	pi.state_info2 = 0x25;
	pi.mkey_lmc = 0x47; /* M_KeyProtectBits 1, a reserved bit, LMC 7 */
	pi.link_speed = 0x74;
	pi.mtu_smsl = 0xB4;
	pi.subnet_timeout = 0x3F; /* only bit 5 and the timeout */
	pi.link_speed_ext = 0x12;
	CU_ASSERT_EQUAL(ib_port_info_get_link_speed_sup(&pi), 4);
	CU_ASSERT_EQUAL(ib_port_info_get_port_state(&pi), 3);
	CU_ASSERT_EQUAL(ib_port_info_get_port_phys_state(&pi), 2);
	CU_ASSERT_EQUAL(ib_port_info_get_link_down_def_state(&pi), 5);
	CU_ASSERT_EQUAL(ib_port_info_get_mpb(&pi), 1);
	CU_ASSERT_EQUAL(ib_port_info_get_lmc(&pi), 7);
	CU_ASSERT_EQUAL(ib_port_info_get_link_speed_active(&pi), 7);
	CU_ASSERT_EQUAL(ib_port_info_get_link_speed_enabled(&pi), 4);
	CU_ASSERT_EQUAL(ib_port_info_get_neighbor_mtu(&pi), 0xB);
	CU_ASSERT_EQUAL(ib_port_info_get_master_smsl(&pi), 4);
	CU_ASSERT_EQUAL(ib_port_info_get_client_rereg(&pi), 0);
	CU_ASSERT_EQUAL(ib_port_info_get_mcast_pkey_trap_suppress(&pi), 0);
	CU_ASSERT_EQUAL(ib_port_info_get_timeout(&pi), 0x1F);
	CU_ASSERT_EQUAL(ib_port_info_get_link_speed_ext_active(&pi), 1);
	CU_ASSERT_EQUAL(ib_port_info_get_link_speed_ext_sup(&pi), 2);
}

/* ------------------------------------------------------------------------ */
/* PortInfo setters: one byte changes, and only the field's bits of it.     */
/* ------------------------------------------------------------------------ */

typedef void (*pi_setter_t)(ib_port_info_t *p_pi);

/*
 * Runs @p set on a PortInfo filled with 0x00 and on one filled with 0xFF;
 * only byte @p off may change, to @p on_zero and @p on_ones respectively.
 */
static void check_pi_setter(pi_setter_t set, size_t off, uint8_t on_zero, uint8_t on_ones)
{
	ib_port_info_t before, pi;

	memset(&before, 0x00, sizeof(before));
	pi = before;
	set(&pi);
	only_byte_changed(&before, &pi, sizeof(pi), off, on_zero);

	memset(&before, 0xFF, sizeof(before));
	pi = before;
	set(&pi);
	only_byte_changed(&before, &pi, sizeof(pi), off, on_ones);
}

static void set_state_active(ib_port_info_t *p) { ib_port_info_set_port_state(p, IB_LINK_ACTIVE); }
static void set_state_down(ib_port_info_t *p) { ib_port_info_set_port_state(p, IB_LINK_DOWN); }
static void set_speed_sup(ib_port_info_t *p) { ib_port_info_set_link_speed_sup(5, p); }
static void set_phys_linkup(ib_port_info_t *p) { ib_port_info_set_port_phys_state(IB_PORT_PHYS_STATE_LINKUP, p); }
static void set_phys_disabled(ib_port_info_t *p) { ib_port_info_set_port_phys_state(IB_PORT_PHYS_STATE_DISABLED, p); }
static void set_lnkdwn_polling(ib_port_info_t *p) { ib_port_info_set_link_down_def_state(p, 2); }
static void set_op_vls_3(ib_port_info_t *p) { ib_port_info_set_op_vls(p, 3); }
static void set_nmtu_4096(ib_port_info_t *p) { ib_port_info_set_neighbor_mtu(p, IB_MTU_LEN_4096); }
static void set_nmtu_256(ib_port_info_t *p) { ib_port_info_set_neighbor_mtu(p, IB_MTU_LEN_256); }
static void set_smsl_b(ib_port_info_t *p) { ib_port_info_set_master_smsl(p, 0xB); }
static void set_timeout_12(ib_port_info_t *p) { ib_port_info_set_timeout(p, 0x12); }
static void set_rereg_1(ib_port_info_t *p) { ib_port_info_set_client_rereg(p, 1); }
static void set_rereg_0(ib_port_info_t *p) { ib_port_info_set_client_rereg(p, 0); }
static void set_suppr_1(ib_port_info_t *p) { ib_port_info_set_mcast_pkey_trap_suppress(p, 1); }
static void set_suppr_0(ib_port_info_t *p) { ib_port_info_set_mcast_pkey_trap_suppress(p, 0); }
static void set_ext_en_1e(ib_port_info_t *p) { ib_port_info_set_link_speed_ext_enabled(p, 0x1E); }
static void set_hoq_13(ib_port_info_t *p) { ib_port_info_set_hoq_lifetime(p, 0x13); }
static void set_stall_5(ib_port_info_t *p) { ib_port_info_set_vl_stall_count(p, 5); }
static void set_lmc_5(ib_port_info_t *p) { ib_port_info_set_lmc(p, 5); }
static void set_lmc_0(ib_port_info_t *p) { ib_port_info_set_lmc(p, 0); }
static void set_speed_en_a(ib_port_info_t *p) { ib_port_info_set_link_speed_enabled(p, 0xA); }
static void set_mpb_2(ib_port_info_t *p) { ib_port_info_set_mpb(p, 2); }
static void set_thd_c3(ib_port_info_t *p) { ib_port_info_set_phy_and_overrun_err_thd(p, 0xC, 0x3); }

static void test_port_info_setters(void)
{
	check_pi_setter(set_state_active, 32, 0x04, 0xF4);
	check_pi_setter(set_state_down, 32, 0x01, 0xF1);
	check_pi_setter(set_speed_sup, 32, 0x50, 0x5F);
	check_pi_setter(set_phys_linkup, 33, 0x50, 0x5F);
	check_pi_setter(set_phys_disabled, 33, 0x30, 0x3F);
	check_pi_setter(set_lnkdwn_polling, 33, 0x02, 0xF2);
	check_pi_setter(set_op_vls_3, 43, 0x30, 0x3F);
	check_pi_setter(set_nmtu_4096, 36, 0x50, 0x5F);
	check_pi_setter(set_nmtu_256, 36, 0x10, 0x1F);
	check_pi_setter(set_smsl_b, 36, 0x0B, 0xFB);
	check_pi_setter(set_timeout_12, 51, 0x12, 0xF2);
	check_pi_setter(set_rereg_1, 51, 0x80, 0xFF);
	check_pi_setter(set_rereg_0, 51, 0x00, 0x7F);
	check_pi_setter(set_suppr_1, 51, 0x40, 0xFF);
	check_pi_setter(set_suppr_0, 51, 0x00, 0xBF);
	check_pi_setter(set_ext_en_1e, 63, 0x1E, 0x1E); /* reserved bits cleared */
	check_pi_setter(set_hoq_13, 42, 0x13, 0xF3);
	check_pi_setter(set_stall_5, 42, 0xA0, 0xBF);
	check_pi_setter(set_lmc_5, 34, 0x05, 0xFD);
	check_pi_setter(set_lmc_0, 34, 0x00, 0xF8);
	check_pi_setter(set_speed_en_a, 35, 0x0A, 0xFA);
	check_pi_setter(set_mpb_2, 34, 0x80, 0xBF);
	check_pi_setter(set_thd_c3, 53, 0xC3, 0xC3);
}

static void test_port_info_set_state_no_change(void)
{
	ib_port_info_t before, pi;
	size_t i;

	memset(&before, 0xFF, sizeof(before));
	pi = before;
	ib_port_info_set_state_no_change(&pi);
	for (i = 0; i < sizeof(pi); i++) {
		const uint8_t *a = (const uint8_t *)&pi;

		if (i == 32) {
			CU_ASSERT_EQUAL(a[i], 0xF0); /* LinkSpeedSupported kept, PortState 0 */
		} else if (i == 33) {
			CU_ASSERT_EQUAL(a[i], 0x00); /* both physical states "no change" */
		} else {
			CU_ASSERT_EQUAL(a[i], 0xFF);
		}
	}
	CU_ASSERT_EQUAL(ib_port_info_get_port_state(&pi), IB_LINK_NO_CHANGE);
	CU_ASSERT_EQUAL(ib_port_info_get_port_phys_state(&pi), IB_PORT_PHYS_STATE_NO_CHANGE);
}

static void test_port_info_m_key(void)
{
	static const uint8_t img[8] = { 0xDE, 0xAD, 0xBE, 0xEF, 0x00, 0x11, 0x22, 0x33 };
	ib_port_info_t before, pi;
	size_t i;

	memset(&before, 0x5A, sizeof(before));
	pi = before;
	ib_port_info_set_m_key(&pi, CL_HTON64(0xDEADBEEF00112233ULL));
	CU_ASSERT_EQUAL(memcmp(&pi, img, sizeof(img)), 0);
	for (i = sizeof(img); i < sizeof(pi); i++)
		CU_ASSERT_EQUAL(((const uint8_t *)&pi)[i], 0x5A);
	CU_ASSERT_EQUAL(ib_port_info_get_m_key(&pi), CL_HTON64(0xDEADBEEF00112233ULL));
}

/* Every setter followed by its getter returns the value for every legal input. */
static void test_port_info_round_trips(void)
{
	ib_port_info_t pi;
	unsigned v;

	memset(&pi, 0xA5, sizeof(pi));
	for (v = 0; v <= 0x0F; v++) {
		ib_port_info_set_port_state(&pi, (uint8_t)v);
		CU_ASSERT_EQUAL(ib_port_info_get_port_state(&pi), v);
		ib_port_info_set_link_speed_sup((uint8_t)v, &pi);
		CU_ASSERT_EQUAL(ib_port_info_get_link_speed_sup(&pi), v);
		CU_ASSERT_EQUAL(ib_port_info_get_port_state(&pi), v);
		ib_port_info_set_port_phys_state((uint8_t)v, &pi);
		CU_ASSERT_EQUAL(ib_port_info_get_port_phys_state(&pi), v);
		ib_port_info_set_link_down_def_state(&pi, (uint8_t)v);
		CU_ASSERT_EQUAL(ib_port_info_get_link_down_def_state(&pi), v);
		CU_ASSERT_EQUAL(ib_port_info_get_port_phys_state(&pi), v);
		ib_port_info_set_op_vls(&pi, (uint8_t)v);
		CU_ASSERT_EQUAL(ib_port_info_get_op_vls(&pi), v);
		ib_port_info_set_master_smsl(&pi, (uint8_t)v);
		CU_ASSERT_EQUAL(ib_port_info_get_master_smsl(&pi), v);
		ib_port_info_set_link_speed_enabled(&pi, (uint8_t)v);
		CU_ASSERT_EQUAL(ib_port_info_get_link_speed_enabled(&pi), v);
		ib_port_info_set_phy_and_overrun_err_thd(&pi, (uint8_t)v, (uint8_t)(15 - v));
		CU_ASSERT_EQUAL(ib_port_info_get_local_phy_err_thd(&pi), v);
		CU_ASSERT_EQUAL(ib_port_info_get_overrun_err_thd(&pi), 15 - v);
	}
	for (v = IB_MTU_LEN_256; v <= IB_MTU_LEN_4096; v++) {
		ib_port_info_set_neighbor_mtu(&pi, (uint8_t)v);
		CU_ASSERT_EQUAL(ib_port_info_get_neighbor_mtu(&pi), v);
		CU_ASSERT_EQUAL(ib_port_info_get_master_smsl(&pi), 15);
	}
	for (v = 0; v <= 0x1F; v++) {
		ib_port_info_set_timeout(&pi, (uint8_t)v);
		CU_ASSERT_EQUAL(ib_port_info_get_timeout(&pi), v);
		ib_port_info_set_link_speed_ext_enabled(&pi, (uint8_t)v);
		CU_ASSERT_EQUAL(ib_port_info_get_link_speed_ext_enabled(&pi), v);
		ib_port_info_set_hoq_lifetime(&pi, (uint8_t)v);
		CU_ASSERT_EQUAL(ib_port_info_get_hoq_lifetime(&pi), v);
	}
	for (v = 0; v <= 7; v++) {
		ib_port_info_set_vl_stall_count(&pi, (uint8_t)v);
		CU_ASSERT_EQUAL(ib_port_info_get_vl_stall_count(&pi), v);
		CU_ASSERT_EQUAL(ib_port_info_get_hoq_lifetime(&pi), 0x1F);
		ib_port_info_set_lmc(&pi, (uint8_t)v);
		CU_ASSERT_EQUAL(ib_port_info_get_lmc(&pi), v);
	}
	for (v = 0; v <= 3; v++) {
		ib_port_info_set_mpb(&pi, (uint8_t)v);
		CU_ASSERT_EQUAL(ib_port_info_get_mpb(&pi), v);
		CU_ASSERT_EQUAL(ib_port_info_get_lmc(&pi), 7);
	}
	for (v = 0; v <= 1; v++) {
		ib_port_info_set_client_rereg(&pi, (uint8_t)v);
		CU_ASSERT_EQUAL(ib_port_info_get_client_rereg(&pi), v);
		ib_port_info_set_mcast_pkey_trap_suppress(&pi, (uint8_t)v);
		CU_ASSERT_EQUAL(ib_port_info_get_mcast_pkey_trap_suppress(&pi), v);
		CU_ASSERT_EQUAL(ib_port_info_get_client_rereg(&pi), v);
		CU_ASSERT_EQUAL(ib_port_info_get_timeout(&pi), 0x1F);
	}
}

/* Out-of-range values for nibble fields stay inside their nibble. */
static void test_port_info_setters_mask_values(void)
{
	ib_port_info_t pi;

	memset(&pi, 0, sizeof(pi));
	ib_port_info_set_port_state(&pi, 0x14);
	CU_ASSERT_EQUAL(pi.state_info1, 0x04);
	ib_port_info_set_link_speed_sup(0x13, &pi);
	CU_ASSERT_EQUAL(pi.state_info1, 0x34);
	ib_port_info_set_link_down_def_state(&pi, 0x21);
	CU_ASSERT_EQUAL(pi.state_info2, 0x01);
	ib_port_info_set_master_smsl(&pi, 0x31);
	CU_ASSERT_EQUAL(pi.mtu_smsl, 0x01);
	ib_port_info_set_link_speed_enabled(&pi, 0x52);
	CU_ASSERT_EQUAL(pi.link_speed, 0x02);
	ib_port_info_set_hoq_lifetime(&pi, 0x25);
	CU_ASSERT_EQUAL(pi.vl_stall_life, 0x05);
	ib_port_info_set_vl_stall_count(&pi, 0x09);
	CU_ASSERT_EQUAL(pi.vl_stall_life, 0x25);
	ib_port_info_set_mpb(&pi, 0x05);
	CU_ASSERT_EQUAL(pi.mkey_lmc, 0x40);
	ib_port_info_set_phy_and_overrun_err_thd(&pi, 0x1A, 0x2B);
	CU_ASSERT_EQUAL(pi.error_threshold, 0xAB);
}

/* A Set(PortInfo) SMP built with the helpers, compared with its wire image. */
static void test_port_info_in_smp(void)
{
	static const uint8_t path[IB_SUBNET_PATH_HOPS_MAX] = { 0, 1 };
	static const uint8_t hdr[8] = { 0x01, 0x81, 0x01, 0x02, 0x00, 0x00, 0x00, 0x01 };
	static const uint8_t attr[8] = { 0x00, 0x15, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01 };
	static const uint8_t pi_img[64] = {
		[16] = 0x00, [17] = 0x07,       /* LID 7 */
		[18] = 0x00, [19] = 0x01,       /* master SM LID 1 */
		[32] = 0x04,                    /* PortState Active */
		[33] = 0x52,                    /* LinkUp, default Polling */
		[34] = 0x02,                    /* LMC 2 */
		[36] = 0x4B,                    /* NeighborMTU 2048, MasterSMSL 11 */
		[43] = 0x40,                    /* OperationalVLs 4 */
		[51] = 0x92,                    /* ClientReregister, SubnetTimeOut 18 */
	};
	ib_smp_t smp;
	ib_port_info_t *p_pi;

	ib_smp_init_new(&smp, IB_MAD_METHOD_SET, CL_HTON64(1), IB_MAD_ATTR_PORT_INFO,
			CL_HTON32(1), 1, 0, path, IB_LID_PERMISSIVE, IB_LID_PERMISSIVE);
	p_pi = (ib_port_info_t *)ib_smp_get_payload_ptr(&smp);
	p_pi->base_lid = CL_HTON16(7);
	p_pi->master_sm_base_lid = CL_HTON16(1);
	ib_port_info_set_port_state(p_pi, IB_LINK_ACTIVE);
	ib_port_info_set_port_phys_state(IB_PORT_PHYS_STATE_LINKUP, p_pi);
	ib_port_info_set_link_down_def_state(p_pi, IB_PORT_PHYS_STATE_POLLING);
	ib_port_info_set_lmc(p_pi, 2);
	ib_port_info_set_neighbor_mtu(p_pi, IB_MTU_LEN_2048);
	ib_port_info_set_master_smsl(p_pi, 11);
	ib_port_info_set_op_vls(p_pi, 4);
	ib_port_info_set_timeout(p_pi, 18);
	ib_port_info_set_client_rereg(p_pi, 1);

	BYTES_EQ(&smp, hdr);
	CU_ASSERT_EQUAL(memcmp((const uint8_t *)&smp + 16, attr, sizeof(attr)), 0);
	CU_ASSERT_EQUAL(memcmp((const uint8_t *)&smp + 64, pi_img, sizeof(pi_img)), 0);
}

/* ------------------------------------------------------------------------ */
/* Rates, IPD, highest speed/width                                          */
/* ------------------------------------------------------------------------ */

static uint8_t rate_of(uint8_t speed_active, uint8_t width, uint8_t ext_active, int extended)
{
	ib_port_info_t pi;

	memset(&pi, 0, sizeof(pi));
	pi.link_speed = (uint8_t)(speed_active << 4);
	pi.link_width_active = width;
	pi.link_speed_ext = (uint8_t)(ext_active << 4);
	return ib_port_info_compute_rate(&pi, extended);
}

static void test_compute_rate(void)
{
	/* Base speeds by width. */
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_2_5, IB_LINK_WIDTH_ACTIVE_1X, 0, 0), IB_PATH_RECORD_RATE_2_5_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_2_5, IB_LINK_WIDTH_ACTIVE_4X, 0, 0), IB_PATH_RECORD_RATE_10_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_2_5, IB_LINK_WIDTH_ACTIVE_8X, 0, 0), IB_PATH_RECORD_RATE_20_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_2_5, IB_LINK_WIDTH_ACTIVE_12X, 0, 0), IB_PATH_RECORD_RATE_30_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_5, IB_LINK_WIDTH_ACTIVE_1X, 0, 0), IB_PATH_RECORD_RATE_5_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_5, IB_LINK_WIDTH_ACTIVE_4X, 0, 0), IB_PATH_RECORD_RATE_20_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_5, IB_LINK_WIDTH_ACTIVE_8X, 0, 0), IB_PATH_RECORD_RATE_40_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_5, IB_LINK_WIDTH_ACTIVE_12X, 0, 0), IB_PATH_RECORD_RATE_60_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_10, IB_LINK_WIDTH_ACTIVE_1X, 0, 0), IB_PATH_RECORD_RATE_10_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_10, IB_LINK_WIDTH_ACTIVE_4X, 0, 0), IB_PATH_RECORD_RATE_40_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_10, IB_LINK_WIDTH_ACTIVE_8X, 0, 0), IB_PATH_RECORD_RATE_80_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_10, IB_LINK_WIDTH_ACTIVE_12X, 0, 0), IB_PATH_RECORD_RATE_120_GBS);
	/* Unknown width counts as 1x; unknown speed gives 2.5 Gb/s. */
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_10, IB_LINK_WIDTH_ACTIVE_2X, 0, 0), IB_PATH_RECORD_RATE_10_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_5, 0, 0, 0), IB_PATH_RECORD_RATE_5_GBS);
	CU_ASSERT_EQUAL(rate_of(0, IB_LINK_WIDTH_ACTIVE_12X, 0, 0), IB_PATH_RECORD_RATE_2_5_GBS);
	CU_ASSERT_EQUAL(rate_of(3, IB_LINK_WIDTH_ACTIVE_4X, 0, 0), IB_PATH_RECORD_RATE_2_5_GBS);
	/* Extended speeds, only when asked for. */
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_10, IB_LINK_WIDTH_ACTIVE_1X, IB_LINK_SPEED_EXT_ACTIVE_14, 1), IB_PATH_RECORD_RATE_14_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_10, IB_LINK_WIDTH_ACTIVE_4X, IB_LINK_SPEED_EXT_ACTIVE_14, 1), IB_PATH_RECORD_RATE_56_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_10, IB_LINK_WIDTH_ACTIVE_8X, IB_LINK_SPEED_EXT_ACTIVE_14, 1), IB_PATH_RECORD_RATE_112_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_10, IB_LINK_WIDTH_ACTIVE_12X, IB_LINK_SPEED_EXT_ACTIVE_14, 1), IB_PATH_RECORD_RATE_168_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_10, IB_LINK_WIDTH_ACTIVE_1X, IB_LINK_SPEED_EXT_ACTIVE_25, 1), IB_PATH_RECORD_RATE_25_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_10, IB_LINK_WIDTH_ACTIVE_4X, IB_LINK_SPEED_EXT_ACTIVE_25, 1), IB_PATH_RECORD_RATE_100_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_10, IB_LINK_WIDTH_ACTIVE_8X, IB_LINK_SPEED_EXT_ACTIVE_25, 1), IB_PATH_RECORD_RATE_200_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_10, IB_LINK_WIDTH_ACTIVE_12X, IB_LINK_SPEED_EXT_ACTIVE_25, 1), IB_PATH_RECORD_RATE_300_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_10, IB_LINK_WIDTH_ACTIVE_2X, IB_LINK_SPEED_EXT_ACTIVE_25, 1), IB_PATH_RECORD_RATE_25_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_10, IB_LINK_WIDTH_ACTIVE_4X, IB_LINK_SPEED_EXT_ACTIVE_25, 0), IB_PATH_RECORD_RATE_40_GBS);
	/* No or unknown extended speed: the base speed decides. */
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_10, IB_LINK_WIDTH_ACTIVE_4X, IB_LINK_SPEED_EXT_ACTIVE_NONE, 1), IB_PATH_RECORD_RATE_40_GBS);
	CU_ASSERT_EQUAL(rate_of(IB_LINK_SPEED_ACTIVE_5, IB_LINK_WIDTH_ACTIVE_4X, IB_LINK_SPEED_EXT_ACTIVE_50, 1), IB_PATH_RECORD_RATE_20_GBS);
}

static void test_path_get_ipd(void)
{
	CU_ASSERT_EQUAL(ib_path_get_ipd(1, IB_PATH_RECORD_RATE_2_5_GBS), 0);
	CU_ASSERT_EQUAL(ib_path_get_ipd(3, IB_PATH_RECORD_RATE_2_5_GBS), 3);
	CU_ASSERT_EQUAL(ib_path_get_ipd(3, IB_PATH_RECORD_RATE_10_GBS), 0);
	CU_ASSERT_EQUAL(ib_path_get_ipd(3, 0xC0 | IB_PATH_RECORD_RATE_2_5_GBS), 3);
	CU_ASSERT_EQUAL(ib_path_get_ipd(11, IB_PATH_RECORD_RATE_2_5_GBS), 11);
	CU_ASSERT_EQUAL(ib_path_get_ipd(11, IB_PATH_RECORD_RATE_10_GBS), 2);
	CU_ASSERT_EQUAL(ib_path_get_ipd(11, 0x80 | IB_PATH_RECORD_RATE_10_GBS), 2);
	CU_ASSERT_EQUAL(ib_path_get_ipd(11, IB_PATH_RECORD_RATE_30_GBS), 0);
	CU_ASSERT_EQUAL(ib_path_get_ipd(11, IB_PATH_RECORD_RATE_40_GBS), 0);
	CU_ASSERT_EQUAL(ib_path_get_ipd(2, IB_PATH_RECORD_RATE_2_5_GBS), 0);
}

static void test_highest_link_speed_width(void)
{
	CU_ASSERT_EQUAL(ib_get_highest_link_speed(0x00), 0);
	CU_ASSERT_EQUAL(ib_get_highest_link_speed(0x01), IB_LINK_SPEED_ACTIVE_2_5);
	CU_ASSERT_EQUAL(ib_get_highest_link_speed(0x03), IB_LINK_SPEED_ACTIVE_5);
	CU_ASSERT_EQUAL(ib_get_highest_link_speed(0x07), IB_LINK_SPEED_ACTIVE_10);
	CU_ASSERT_EQUAL(ib_get_highest_link_speed(0x0F), FDR10 << 3);
	CU_ASSERT_EQUAL(ib_get_highest_link_speed(0x1F), IB_LINK_SPEED_EXT_ACTIVE_14 << 4);
	CU_ASSERT_EQUAL(ib_get_highest_link_speed(0x37), IB_LINK_SPEED_EXT_ACTIVE_25 << 4);
	CU_ASSERT_EQUAL(ib_get_highest_link_speed(0x7F), IB_LINK_SPEED_EXT_ACTIVE_50 << 4);
	CU_ASSERT_EQUAL(ib_get_highest_link_speed(0x80), 0); /* bit 7 is not a speed */

	CU_ASSERT_EQUAL(ib_get_highest_link_width(0x00), 0);
	CU_ASSERT_EQUAL(ib_get_highest_link_width(0x01), IB_LINK_WIDTH_ACTIVE_1X);
	CU_ASSERT_EQUAL(ib_get_highest_link_width(0x11), IB_LINK_WIDTH_ACTIVE_2X);
	CU_ASSERT_EQUAL(ib_get_highest_link_width(0x13), IB_LINK_WIDTH_ACTIVE_4X);
	CU_ASSERT_EQUAL(ib_get_highest_link_width(0x17), IB_LINK_WIDTH_ACTIVE_8X);
	CU_ASSERT_EQUAL(ib_get_highest_link_width(IB_LINK_WIDTH_1X_2X_4X_8X_OR_12X), IB_LINK_WIDTH_ACTIVE_12X);
	CU_ASSERT_EQUAL(ib_get_highest_link_width(0xE0), 0);
}

/* ------------------------------------------------------------------------ */
/* SwitchInfo                                                               */
/* ------------------------------------------------------------------------ */

static void test_switch_info(void)
{
	static const uint8_t img[20] = {
		0xC0, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x40, /* caps, LinearFDBTop */
		0x00, 0xFF, 0xFF,                               /* default ports */
		0xA5, /* 11: LifeTimeValue 0x14, PortStateChange, OptimizedSLtoVL 1 */
		0x00, 0x01, 0x00, 0x20,                         /* LIDsPerPort, enforcement cap */
		0xF8, /* 16: enforcement caps, EnhancedPort0 */
		0x00, 0xC0, 0x3F                                /* reserved, MulticastFDBTop */
	};
	ib_switch_info_t si, before;

	memcpy(&si, img, sizeof(img));
	CU_ASSERT_EQUAL(si.lin_cap, CL_HTON16(0xC000));
	CU_ASSERT_EQUAL(si.lin_top, CL_HTON16(0x40));
	CU_ASSERT_EQUAL(si.mcast_top, CL_HTON16(0xC03F));
	CU_ASSERT_TRUE(ib_switch_info_get_state_change(&si));
	CU_ASSERT_TRUE(ib_switch_info_get_opt_sl2vlmapping(&si));
	CU_ASSERT_TRUE(ib_switch_info_is_enhanced_port0(&si));

	before = si;
	ib_switch_info_clear_state_change(&si);
	only_byte_changed(&before, &si, sizeof(si), 11, 0xA1);
	CU_ASSERT_FALSE(ib_switch_info_get_state_change(&si));
	ib_switch_info_state_change_set(&si);
	only_byte_changed(&before, &si, sizeof(si), 11, 0xA5);
	CU_ASSERT_TRUE(ib_switch_info_get_state_change(&si));
	ib_switch_info_set_life_time(&si, 0x0B);
	only_byte_changed(&before, &si, sizeof(si), 11, 0x5D);
	ib_switch_info_set_life_time(&si, 0x1F);
	only_byte_changed(&before, &si, sizeof(si), 11, 0xFD);
	ib_switch_info_set_life_time(&si, 0);
	only_byte_changed(&before, &si, sizeof(si), 11, 0x05);

	si.life_state = 0xFE; /* PSC and OptimizedSLtoVL bit 1 set, bit 0 clear */
	CU_ASSERT_TRUE(ib_switch_info_get_state_change(&si));
	CU_ASSERT_FALSE(ib_switch_info_get_opt_sl2vlmapping(&si));
	si.life_state = 0xFF & ~IB_SWITCH_PSC;
	CU_ASSERT_FALSE(ib_switch_info_get_state_change(&si));
	si.flags = 0xF7;
	CU_ASSERT_FALSE(ib_switch_info_is_enhanced_port0(&si));
	si.flags = 0x08;
	CU_ASSERT_TRUE(ib_switch_info_is_enhanced_port0(&si));
}

/* ------------------------------------------------------------------------ */
/* SL to VL and VL arbitration tables                                       */
/* ------------------------------------------------------------------------ */

static void test_slvl_table(void)
{
	static const uint8_t img[8] = { 0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10 };
	ib_slvl_table_t tbl, before;
	uint8_t sl;

	memset(&tbl, 0, sizeof(tbl));
	for (sl = 0; sl < 16; sl++)
		ib_slvl_table_set(&tbl, sl, (uint8_t)(15 - sl));
	BYTES_EQ(tbl.raw_vl_by_sl, img);
	for (sl = 0; sl < 16; sl++)
		CU_ASSERT_EQUAL(ib_slvl_table_get(&tbl, sl), 15 - sl);

	/* Even SL: high nibble; odd SL: low nibble; nothing else moves. */
	memset(&before, 0xFF, sizeof(before));
	tbl = before;
	ib_slvl_table_set(&tbl, 4, 0);
	only_byte_changed(&before, &tbl, sizeof(tbl), 2, 0x0F);
	tbl = before;
	ib_slvl_table_set(&tbl, 5, 0);
	only_byte_changed(&before, &tbl, sizeof(tbl), 2, 0xF0);
	memset(&before, 0x00, sizeof(before));
	tbl = before;
	ib_slvl_table_set(&tbl, 15, IB_DROP_VL);
	only_byte_changed(&before, &tbl, sizeof(tbl), 7, 0x0F);
	CU_ASSERT_EQUAL(ib_slvl_table_get(&tbl, 15), IB_DROP_VL);
	CU_ASSERT_EQUAL(ib_slvl_table_get(&tbl, 14), 0);
}

static void test_vl_arb(void)
{
	ib_vl_arb_table_t tbl;
	ib_vl_arb_element_t e;

	e.vl = 0x00;
	e.weight = 0x40;
	ib_vl_arb_element_set_vl(&e, 5);
	CU_ASSERT_EQUAL(e.vl, 0x50); /* OFED for Windows: the high nibble */
	CU_ASSERT_EQUAL(e.weight, 0x40);
	CU_ASSERT_EQUAL(ib_vl_arb_element_get_vl(e), 5);
	e.vl = 0xFF;
	ib_vl_arb_element_set_vl(&e, 0x1A); /* only 4 bits kept; low nibble cleared */
	CU_ASSERT_EQUAL(e.vl, 0xA0);
	CU_ASSERT_EQUAL(ib_vl_arb_element_get_vl(e), 0xA);

	memset(&tbl, 0, sizeof(tbl));
	ib_vl_arb_element_set_vl(&tbl.vl_entry[31], 7);
	tbl.vl_entry[31].weight = 0xFF;
	CU_ASSERT_EQUAL(((const uint8_t *)&tbl)[62], 0x70);
	CU_ASSERT_EQUAL(((const uint8_t *)&tbl)[63], 0xFF);
}

/* ------------------------------------------------------------------------ */
/* Notice                                                                   */
/* ------------------------------------------------------------------------ */

static void test_notice_generic(void)
{
	static const uint8_t hdr[10] = {
		0x80 | IB_NOTICE_TYPE_SUBN_MGMT,   /* IsGeneric, Type */
		0x00, 0x00, 0x02,                  /* ProducerType switch */
		0x00, 0x80,                        /* TrapNumber 128 */
		0x00, 0x2A,                        /* IssuerLID */
		0x80, 0x05,                        /* NoticeToggle, NoticeCount 5 */
	};
	ib_mad_notice_attr_t ntc;
	size_t i;

	memset(&ntc, 0xEE, sizeof(ntc));
	ntc.generic_type = 0x80 | IB_NOTICE_TYPE_SUBN_MGMT;
	ib_notice_set_prod_type(&ntc, IB_NOTICE_PRODUCER_TYPE_SWITCH);
	ntc.g_or_v.generic.trap_num = CL_HTON16(SM_LINK_STATE_CHANGED_TRAP);
	ntc.issuer_lid = CL_HTON16(42);
	ntc.toggle_count = CL_HTON16(0x8005);
	BYTES_EQ(&ntc, hdr);
	for (i = sizeof(hdr); i < sizeof(ntc); i++)
		CU_ASSERT_EQUAL(((const uint8_t *)&ntc)[i], 0xEE);

	CU_ASSERT_TRUE(ib_notice_is_generic(&ntc));
	CU_ASSERT_EQUAL(ib_notice_get_type(&ntc), IB_NOTICE_TYPE_SUBN_MGMT);
	CU_ASSERT_EQUAL(ib_notice_get_prod_type(&ntc), IB_NOTICE_PRODUCER_TYPE_SWITCH);

	ib_notice_set_prod_type_ho(&ntc, 0xAB123456);
	CU_ASSERT_EQUAL(((const uint8_t *)&ntc)[1], 0x12);
	CU_ASSERT_EQUAL(((const uint8_t *)&ntc)[2], 0x34);
	CU_ASSERT_EQUAL(((const uint8_t *)&ntc)[3], 0x56);
	CU_ASSERT_EQUAL(ntc.g_or_v.generic.trap_num, CL_HTON16(128));
	CU_ASSERT_EQUAL(ib_notice_get_prod_type(&ntc), CL_HTON32(0x123456));
	ib_notice_set_prod_type(&ntc, CL_HTON32(0xFF654321));
	CU_ASSERT_EQUAL(ib_notice_get_prod_type(&ntc), CL_HTON32(0x654321));

	ntc.generic_type = 0xFF;
	CU_ASSERT_TRUE(ib_notice_is_generic(&ntc));
	CU_ASSERT_EQUAL(ib_notice_get_type(&ntc), IB_NOTICE_TYPE_EMPTY);
}

static void test_notice_vendor(void)
{
	static const uint8_t hdr[6] = {
		IB_NOTICE_TYPE_INFO,   /* vendor notice, informational */
		0x00, 0x02, 0xC9,      /* VendorID */
		0x12, 0x34,            /* DeviceID */
	};
	ib_mad_notice_attr_t ntc;

	memset(&ntc, 0, sizeof(ntc));
	ntc.generic_type = IB_NOTICE_TYPE_INFO;
	ib_notice_set_vend_id(&ntc, CL_HTON32(0x0002C9));
	ntc.g_or_v.vend.dev_id = CL_HTON16(0x1234);
	BYTES_EQ(&ntc, hdr);
	CU_ASSERT_FALSE(ib_notice_is_generic(&ntc));
	CU_ASSERT_EQUAL(ib_notice_get_type(&ntc), IB_NOTICE_TYPE_INFO);
	CU_ASSERT_EQUAL(ib_notice_get_vend_id(&ntc), CL_HTON32(0x0002C9));

	ib_notice_set_vend_id_ho(&ntc, 0x77ABCDEF);
	CU_ASSERT_EQUAL(((const uint8_t *)&ntc)[1], 0xAB);
	CU_ASSERT_EQUAL(((const uint8_t *)&ntc)[2], 0xCD);
	CU_ASSERT_EQUAL(((const uint8_t *)&ntc)[3], 0xEF);
	CU_ASSERT_EQUAL(ntc.g_or_v.vend.dev_id, CL_HTON16(0x1234));
	CU_ASSERT_EQUAL(ib_notice_get_vend_id(&ntc), CL_HTON32(0xABCDEF));
	ib_notice_set_vend_id(&ntc, CL_HTON32(0x11000001));
	CU_ASSERT_EQUAL(ib_notice_get_vend_id(&ntc), CL_HTON32(0x000001));
}

static void test_notice_details(void)
{
	ib_mad_notice_attr_t ntc;
	const uint8_t *b = (const uint8_t *)&ntc;

	memset(&ntc, 0, sizeof(ntc));
	ntc.data_details.ntc_144.lid = CL_HTON16(0x0102);
	ntc.data_details.ntc_144.local_changes = TRAP_144_MASK_OTHER_LOCAL_CHANGES;
	ntc.data_details.ntc_144.new_cap_mask = IB_PORT_CAP_IS_SM | IB_PORT_CAP_HAS_TRAP;
	ntc.data_details.ntc_144.change_flgs = TRAP_144_MASK_SM_PRIORITY_CHANGE;
	ntc.data_details.ntc_144.cap_mask2 = IB_PORT_CAP2_IS_VIRT_SUPPORTED;
	CU_ASSERT_EQUAL(b[12], 0x01);
	CU_ASSERT_EQUAL(b[13], 0x02);
	CU_ASSERT_EQUAL(b[15], 0x01);
	CU_ASSERT_EQUAL(b[19], 0x0A);
	CU_ASSERT_EQUAL(b[21], 0x08);
	CU_ASSERT_EQUAL(b[23], 0x04);

	memset(&ntc, 0, sizeof(ntc));
	ntc.data_details.ntc_259.sl_qp1 = CL_HTON32(0x50000000 | 0x123456);
	CU_ASSERT_EQUAL(ntc.data_details.ntc_259.sl_qp1 & TRAP_259_MASK_QP, CL_HTON32(0x123456));
	CU_ASSERT_EQUAL(ntc.data_details.ntc_259.sl_qp1 & TRAP_259_MASK_SL, CL_HTON32(0x50000000));
	CU_ASSERT_EQUAL(b[18], 0x50);
	ntc.data_details.ntc_259.port_no = 9;
	CU_ASSERT_EQUAL(b[60], 9);
}

/* ------------------------------------------------------------------------ */
/* InformInfo                                                               */
/* ------------------------------------------------------------------------ */

static void test_inform_info(void)
{
	static const uint8_t tail[12] = {
		0x00, 0x01,             /* 24: Type urgent */
		0x01, 0x00,             /* 26: TrapNumber 256 */
		0x12, 0x34, 0x56, 0xF3, /* 28: QPN 0x123456, reserved bits, RespTimeValue 0x13 */
		0x00,                   /* 32: reserved */
		0x00, 0x00, 0x02,       /* 33: ProducerType switch */
	};
	ib_inform_info_t ii;
	ib_net32_t qpn = 0;
	uint8_t rt = 0;

	memset(&ii, 0, sizeof(ii));
	ii.trap_type = CL_HTON16(IB_NOTICE_TYPE_URGENT);
	ii.g_or_v.generic.trap_num = CL_HTON16(SM_BAD_MKEY_TRAP);
	ii.g_or_v.generic.qpn_resp_time_val = CL_HTON32(0xFFFFFFF3);
	ib_inform_info_set_qpn(&ii, CL_HTON32(0x123456));
	ii.g_or_v.generic.node_type_lsb = CL_HTON16(2);
	CU_ASSERT_EQUAL(memcmp((const uint8_t *)&ii + 24, tail, sizeof(tail)), 0);

	ib_inform_info_get_qpn_resp_time(ii.g_or_v.generic.qpn_resp_time_val, &qpn, &rt);
	CU_ASSERT_EQUAL(qpn, CL_HTON32(0x123456));
	CU_ASSERT_EQUAL(rt, 0x13);
	qpn = 0xDEAD;
	ib_inform_info_get_qpn_resp_time(CL_HTON32(0x00000101), NULL, &rt);
	CU_ASSERT_EQUAL(rt, 0x01);
	ib_inform_info_get_qpn_resp_time(CL_HTON32(0x00000101), &qpn, NULL);
	CU_ASSERT_EQUAL(qpn, CL_HTON32(1));
	ib_inform_info_get_qpn_resp_time(CL_HTON32(0xFFFFFFFF), NULL, NULL);

	/* Only the low 24 bits of the QPN are stored. */
	ib_inform_info_set_qpn(&ii, CL_HTON32(0xFF000001));
	CU_ASSERT_EQUAL(ii.g_or_v.generic.qpn_resp_time_val, CL_HTON32(0x000001F3));

	CU_ASSERT_EQUAL(ib_inform_info_get_prod_type(&ii), IB_NOTICE_PRODUCER_TYPE_SWITCH);
	ii.g_or_v.generic.node_type_msb = 0x12;
	ii.g_or_v.generic.node_type_lsb = CL_HTON16(0x3456);
	CU_ASSERT_EQUAL(ib_inform_info_get_prod_type(&ii), CL_HTON32(0x123456));

	/* The vendor view shares the same bytes. */
	CU_ASSERT_EQUAL(ib_inform_info_get_vend_id(&ii), CL_HTON32(0x123456));
	ii.g_or_v.vend.vendor_id_msb = 0x00;
	ii.g_or_v.vend.vendor_id_lsb = CL_HTON16(0x02C9);
	CU_ASSERT_EQUAL(ib_inform_info_get_vend_id(&ii), CL_HTON32(0x0002C9));
	CU_ASSERT_EQUAL(ii.g_or_v.vend.dev_id, CL_HTON16(SM_BAD_MKEY_TRAP));
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_constant_images),
	TEST_ENTRY(test_sminfo),
	TEST_ENTRY(test_node_info),
	TEST_ENTRY(test_port_info_getters),
	TEST_ENTRY(test_port_info_setters),
	TEST_ENTRY(test_port_info_set_state_no_change),
	TEST_ENTRY(test_port_info_m_key),
	TEST_ENTRY(test_port_info_round_trips),
	TEST_ENTRY(test_port_info_setters_mask_values),
	TEST_ENTRY(test_port_info_in_smp),
	TEST_ENTRY(test_compute_rate),
	TEST_ENTRY(test_path_get_ipd),
	TEST_ENTRY(test_highest_link_speed_width),
	TEST_ENTRY(test_switch_info),
	TEST_ENTRY(test_slvl_table),
	TEST_ENTRY(test_vl_arb),
	TEST_ENTRY(test_notice_generic),
	TEST_ENTRY(test_notice_vendor),
	TEST_ENTRY(test_notice_details),
	TEST_ENTRY(test_inform_info),
};

TEST_MAIN("ib_types_smp", tests)
