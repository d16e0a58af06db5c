/*
 * ibal tests: compile-time proof of the wire layouts of ib_types_smp.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Sizes and field offsets are those the InfiniBand specification fixes
 * (volume 1: 14.2.5.2 NodeDescription, 14.2.5.3 NodeInfo, 14.2.5.4
 * SwitchInfo, 14.2.5.5 GUIDInfo, 14.2.5.6 PortInfo, 14.2.5.7 P_KeyTable,
 * 14.2.5.8 SLtoVLMappingTable, 14.2.5.9 VLArbitrationTable, 14.2.5.13
 * SMInfo, 14.2.5.19 PortInfoExtended, 13.4.8.2 Notice, 13.4.8.3
 * InformInfo). Where OFED for Windows departs from the specification (two
 * trap data layouts of Notice), the upstream offsets are asserted and marked.
 * Compiled as C11; the program only has to build.
 */
#include <stddef.h>
#include <iba/ib_types.h>

#define OFF(type, field, off) \
	_Static_assert(offsetof(type, field) == (off), #type "." #field " at " #off)
#define SIZE(type, size) \
	_Static_assert(sizeof(type) == (size), "sizeof(" #type ") == " #size)
#define PACKED(type) _Static_assert(_Alignof(type) == 1, #type " is byte-packed")

/* SMInfo (14.2.5.13): 21 bytes. */
SIZE(ib_sm_info_t, 21);
PACKED(ib_sm_info_t);
OFF(ib_sm_info_t, guid, 0);
OFF(ib_sm_info_t, sm_key, 8);
OFF(ib_sm_info_t, act_count, 16);
OFF(ib_sm_info_t, pri_state, 20);

/* NodeInfo (14.2.5.3): 40 bytes. */
SIZE(ib_node_info_t, 40);
PACKED(ib_node_info_t);
OFF(ib_node_info_t, base_version, 0);
OFF(ib_node_info_t, class_version, 1);
OFF(ib_node_info_t, node_type, 2);
OFF(ib_node_info_t, num_ports, 3);
OFF(ib_node_info_t, sys_guid, 4);
OFF(ib_node_info_t, node_guid, 12);
OFF(ib_node_info_t, port_guid, 20);
OFF(ib_node_info_t, partition_cap, 28);
OFF(ib_node_info_t, device_id, 30);
OFF(ib_node_info_t, revision, 32);
OFF(ib_node_info_t, port_num_vendor_id, 36);

/* NodeDescription (14.2.5.2): 64 bytes. */
SIZE(ib_node_desc_t, 64);
SIZE(ib_node_desc_t, IB_NODE_DESCRIPTION_SIZE);
OFF(ib_node_desc_t, description, 0);

/* PortInfo (14.2.5.6): 64 bytes; the SMP data area holds exactly one. */
SIZE(ib_port_info_t, 64);
SIZE(ib_port_info_t, IB_SMP_DATA_SIZE);
PACKED(ib_port_info_t);
OFF(ib_port_info_t, m_key, 0);
OFF(ib_port_info_t, subnet_prefix, 8);
OFF(ib_port_info_t, base_lid, 16);
OFF(ib_port_info_t, master_sm_base_lid, 18);
OFF(ib_port_info_t, capability_mask, 20);
OFF(ib_port_info_t, diag_code, 24);
OFF(ib_port_info_t, m_key_lease_period, 26);
OFF(ib_port_info_t, local_port_num, 28);
OFF(ib_port_info_t, link_width_enabled, 29);
OFF(ib_port_info_t, link_width_supported, 30);
OFF(ib_port_info_t, link_width_active, 31);
OFF(ib_port_info_t, state_info1, 32);
OFF(ib_port_info_t, state_info2, 33);
OFF(ib_port_info_t, mkey_lmc, 34);
OFF(ib_port_info_t, link_speed, 35);
OFF(ib_port_info_t, mtu_smsl, 36);
OFF(ib_port_info_t, vl_cap, 37);
OFF(ib_port_info_t, vl_high_limit, 38);
OFF(ib_port_info_t, vl_arb_high_cap, 39);
OFF(ib_port_info_t, vl_arb_low_cap, 40);
OFF(ib_port_info_t, mtu_cap, 41);
OFF(ib_port_info_t, vl_stall_life, 42);
OFF(ib_port_info_t, vl_enforce, 43);
OFF(ib_port_info_t, m_key_violations, 44);
OFF(ib_port_info_t, p_key_violations, 46);
OFF(ib_port_info_t, q_key_violations, 48);
OFF(ib_port_info_t, guid_cap, 50);
OFF(ib_port_info_t, subnet_timeout, 51);
OFF(ib_port_info_t, resp_time_value, 52);
OFF(ib_port_info_t, error_threshold, 53);
OFF(ib_port_info_t, max_credit_hint, 54);
OFF(ib_port_info_t, link_rt_latency, 56);
OFF(ib_port_info_t, capability_mask2, 60);
OFF(ib_port_info_t, link_speed_ext, 62);
OFF(ib_port_info_t, link_speed_ext_enabled, 63);

/* PortInfoExtended (14.2.5.19): 64 bytes. */
SIZE(ib_port_info_ext_t, 64);
PACKED(ib_port_info_ext_t);
OFF(ib_port_info_ext_t, cap_mask, 0);
OFF(ib_port_info_ext_t, fec_mode_active, 4);
OFF(ib_port_info_ext_t, fdr_fec_mode_sup, 6);
OFF(ib_port_info_ext_t, fdr_fec_mode_enable, 8);
OFF(ib_port_info_ext_t, edr_fec_mode_sup, 10);
OFF(ib_port_info_ext_t, edr_fec_mode_enable, 12);
OFF(ib_port_info_ext_t, hdr_fec_mode_sup, 14);
OFF(ib_port_info_ext_t, hdr_fec_mode_enable, 16);
OFF(ib_port_info_ext_t, reserved, 18);

/* Mellanox ExtendedPortInfo (vendor attribute 0xFF90): 64 bytes. */
SIZE(ib_mlnx_ext_port_info_t, 64);
OFF(ib_mlnx_ext_port_info_t, resvd1, 0);
OFF(ib_mlnx_ext_port_info_t, state_change_enable, 3);
OFF(ib_mlnx_ext_port_info_t, resvd2, 4);
OFF(ib_mlnx_ext_port_info_t, link_speed_supported, 7);
OFF(ib_mlnx_ext_port_info_t, resvd3, 8);
OFF(ib_mlnx_ext_port_info_t, link_speed_enabled, 11);
OFF(ib_mlnx_ext_port_info_t, resvd4, 12);
OFF(ib_mlnx_ext_port_info_t, link_speed_active, 15);
OFF(ib_mlnx_ext_port_info_t, resvd5, 16);

/* SwitchInfo (14.2.5.4): 20 bytes. */
SIZE(ib_switch_info_t, 20);
PACKED(ib_switch_info_t);
OFF(ib_switch_info_t, lin_cap, 0);
OFF(ib_switch_info_t, rand_cap, 2);
OFF(ib_switch_info_t, mcast_cap, 4);
OFF(ib_switch_info_t, lin_top, 6);
OFF(ib_switch_info_t, def_port, 8);
OFF(ib_switch_info_t, def_mcast_pri_port, 9);
OFF(ib_switch_info_t, def_mcast_not_port, 10);
OFF(ib_switch_info_t, life_state, 11);
OFF(ib_switch_info_t, lids_per_port, 12);
OFF(ib_switch_info_t, enforce_cap, 14);
OFF(ib_switch_info_t, flags, 16);
OFF(ib_switch_info_t, resvd, 17);
OFF(ib_switch_info_t, mcast_top, 18);

/* GUIDInfo (14.2.5.5): 8 GUIDs, 64 bytes. */
SIZE(ib_guid_info_t, 64);
PACKED(ib_guid_info_t);
OFF(ib_guid_info_t, guid[0], 0);
OFF(ib_guid_info_t, guid[GUID_TABLE_MAX_ENTRIES - 1], 56);

/* P_KeyTable (14.2.5.7): 32 P_Keys, 64 bytes. */
SIZE(ib_pkey_table_t, 64);
PACKED(ib_pkey_table_t);
OFF(ib_pkey_table_t, pkey_entry[0], 0);
OFF(ib_pkey_table_t, pkey_entry[IB_NUM_PKEY_ELEMENTS_IN_BLOCK - 1], 62);
_Static_assert(IB_PKEY_ENTRIES_MAX == 65536, "2048 blocks of 32 P_Keys");

/* SLtoVLMappingTable (14.2.5.8): 16 nibbles, 8 bytes. */
SIZE(ib_slvl_table_t, 8);
OFF(ib_slvl_table_t, raw_vl_by_sl, 0);

/* VLArbitrationTable (14.2.5.9): 32 two-byte elements, 64 bytes. */
SIZE(ib_vl_arb_element_t, 2);
OFF(ib_vl_arb_element_t, vl, 0);
OFF(ib_vl_arb_element_t, weight, 1);
SIZE(ib_vl_arb_table_t, 64);
OFF(ib_vl_arb_table_t, vl_entry[0], 0);
OFF(ib_vl_arb_table_t, vl_entry[IB_NUM_VL_ARB_ELEMENTS_IN_BLOCK - 1], 62);

/* Notice (13.4.8.2): 80 bytes, DataDetails at 10..63. */
SIZE(ib_mad_notice_attr_t, 80);
PACKED(ib_mad_notice_attr_t);
OFF(ib_mad_notice_attr_t, generic_type, 0);
OFF(ib_mad_notice_attr_t, g_or_v.generic.prod_type_msb, 1);
OFF(ib_mad_notice_attr_t, g_or_v.generic.prod_type_lsb, 2);
OFF(ib_mad_notice_attr_t, g_or_v.generic.trap_num, 4);
OFF(ib_mad_notice_attr_t, g_or_v.vend.vend_id_msb, 1);
OFF(ib_mad_notice_attr_t, g_or_v.vend.vend_id_lsb, 2);
OFF(ib_mad_notice_attr_t, g_or_v.vend.dev_id, 4);
OFF(ib_mad_notice_attr_t, issuer_lid, 6);
OFF(ib_mad_notice_attr_t, toggle_count, 8);
OFF(ib_mad_notice_attr_t, data_details, 10);
OFF(ib_mad_notice_attr_t, issuer_gid, 64);
_Static_assert(sizeof(((ib_mad_notice_attr_t *)0)->data_details) == 54, "DataDetails: 54 bytes");

/* DataDetails offsets below are relative to the start of DataDetails. */
#define DD(field, off) OFF(ib_mad_notice_attr_t, data_details.field, 10 + (off))
DD(raw_data.details, 0);
/* Traps 64-67: GID at byte 6. */
DD(ntc_64_67.res, 0);
DD(ntc_64_67.gid, 6);
/* Trap 128: switch LID at byte 0. */
DD(ntc_128.sw_lid, 0);
/* Traps 129-131: LID at 2, port number at 4. */
DD(ntc_129_131.pad, 0);
DD(ntc_129_131.lid, 2);
DD(ntc_129_131.port_num, 4);
/* Trap 144: LID 2, OtherLocalChanges 5, CapabilityMask 6, change flags 10, CapabilityMask2 12. */
DD(ntc_144.pad1, 0);
DD(ntc_144.lid, 2);
DD(ntc_144.pad2, 4);
DD(ntc_144.local_changes, 5);
DD(ntc_144.new_cap_mask, 6);
DD(ntc_144.change_flgs, 10);
DD(ntc_144.cap_mask2, 12);
/* Trap 145: LID 2, SystemImageGUID 6. */
DD(ntc_145.pad1, 0);
DD(ntc_145.lid, 2);
DD(ntc_145.pad2, 4);
DD(ntc_145.new_sys_guid, 6);
/* Trap 256: LIDADDR 2, DRSLID 4 (upstream: pad2), Method 6, AttributeID 8,
 * AttributeModifier 10, M_Key 14, DR byte 22 (upstream: dr_slid). */
DD(ntc_256.pad1, 0);
DD(ntc_256.lid, 2);
DD(ntc_256.pad2, 4);
DD(ntc_256.method, 6);
DD(ntc_256.pad3, 7);
DD(ntc_256.attr_id, 8);
DD(ntc_256.attr_mod, 10);
DD(ntc_256.mkey, 14);
DD(ntc_256.dr_slid, 22);
DD(ntc_256.dr_trunc_hop, 23);
DD(ntc_256.dr_rtn_path, 24);
/* Traps 257-258 as in the specification: LID1 2, LID2 4, Key 6, SL/QP1 10,
 * QP2 14, GID1 18, GID2 34; upstream's separate sl byte overlays offset 10. */
DD(ntc_257_258.pad1, 0);
DD(ntc_257_258.lid1, 2);
DD(ntc_257_258.lid2, 4);
DD(ntc_257_258.key, 6);
DD(ntc_257_258.sl, 10);
DD(ntc_257_258.qp1, 10);
DD(ntc_257_258.qp2, 14);
DD(ntc_257_258.gid1, 18);
DD(ntc_257_258.gid2, 34);
/* Trap 259: DataValid 0, LID1 2, LID2 4, P_Key 6, SL/QP1 8, QP2 12, GID1 16,
 * GID2 32, SwLID 48, PortNo 50. */
DD(ntc_259.data_valid, 0);
DD(ntc_259.lid1, 2);
DD(ntc_259.lid2, 4);
DD(ntc_259.pkey, 6);
DD(ntc_259.sl_qp1, 8);
DD(ntc_259.qp2, 12);
DD(ntc_259.gid1, 16);
DD(ntc_259.gid2, 32);
DD(ntc_259.sw_lid, 48);
DD(ntc_259.port_no, 50);
/* B_Key violation (baseboard management). */
DD(ntc_bkey_259.lidaddr, 0);
DD(ntc_bkey_259.method, 2);
DD(ntc_bkey_259.reserved, 3);
DD(ntc_bkey_259.attribute_id, 4);
DD(ntc_bkey_259.attribute_modifier, 6);
DD(ntc_bkey_259.qp, 10);
DD(ntc_bkey_259.bkey, 14);
DD(ntc_bkey_259.gid, 22);
/* CC_Key violation (congestion control trap 0, A10.4.3.2). */
DD(ntc_cckey_0.slid, 0);
DD(ntc_cckey_0.method, 2);
DD(ntc_cckey_0.resv0, 3);
DD(ntc_cckey_0.attribute_id, 4);
DD(ntc_cckey_0.resv1, 6);
DD(ntc_cckey_0.attribute_modifier, 8);
DD(ntc_cckey_0.qp, 12);
DD(ntc_cckey_0.cc_key, 16);
DD(ntc_cckey_0.source_gid, 24);
DD(ntc_cckey_0.padding, 40);
_Static_assert(sizeof(((ib_mad_notice_attr_t *)0)->data_details.ntc_cckey_0) == 54,
	       "CC_Key details fill DataDetails");

/* InformInfo (13.4.8.3): 36 bytes. */
SIZE(ib_inform_info_t, 36);
PACKED(ib_inform_info_t);
OFF(ib_inform_info_t, gid, 0);
OFF(ib_inform_info_t, lid_range_begin, 16);
OFF(ib_inform_info_t, lid_range_end, 18);
OFF(ib_inform_info_t, reserved1, 20);
OFF(ib_inform_info_t, is_generic, 22);
OFF(ib_inform_info_t, subscribe, 23);
OFF(ib_inform_info_t, trap_type, 24);
OFF(ib_inform_info_t, g_or_v, 26);
OFF(ib_inform_info_t, g_or_v.generic.trap_num, 26);
OFF(ib_inform_info_t, g_or_v.generic.qpn_resp_time_val, 28);
OFF(ib_inform_info_t, g_or_v.generic.reserved2, 32);
OFF(ib_inform_info_t, g_or_v.generic.node_type_msb, 33);
OFF(ib_inform_info_t, g_or_v.generic.node_type_lsb, 34);
OFF(ib_inform_info_t, g_or_v.vend.dev_id, 26);
OFF(ib_inform_info_t, g_or_v.vend.qpn_resp_time_val, 28);
OFF(ib_inform_info_t, g_or_v.vend.reserved2, 32);
OFF(ib_inform_info_t, g_or_v.vend.vendor_id_msb, 33);
OFF(ib_inform_info_t, g_or_v.vend.vendor_id_lsb, 34);

/* Every SM attribute fits the 64-byte SMP data area. */
_Static_assert(sizeof(ib_node_info_t) <= IB_SMP_DATA_SIZE, "NodeInfo fits an SMP");
_Static_assert(sizeof(ib_switch_info_t) <= IB_SMP_DATA_SIZE, "SwitchInfo fits an SMP");
_Static_assert(sizeof(ib_sm_info_t) <= IB_SMP_DATA_SIZE, "SMInfo fits an SMP");
_Static_assert(sizeof(ib_mad_notice_attr_t) <= MAD_BLOCK_SIZE - sizeof(ib_mad_t),
	       "Notice fits a MAD");

int main(void)
{
	return 0;
}
