/*
 * ibal tests: compile-time proof of the SA, PerfMgt, DM and CC wire layouts.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Sizes and field offsets below come from the InfiniBand specification's
 * attribute layouts (byte offsets within the attribute). Compiled as C11; the
 * program does nothing at run time.
 */
#include <stddef.h>
#include <iba/ib_types.h>

#define SIZE(t, n) _Static_assert(sizeof(t) == (n), "sizeof " #t)
#define OFF(t, f, n) _Static_assert(offsetof(t, f) == (n), #t "." #f)

/* PathRecord (15.2.5.16) */
SIZE(ib_path_rec_t, 64);
OFF(ib_path_rec_t, service_id, 0);
OFF(ib_path_rec_t, dgid, 8);
OFF(ib_path_rec_t, sgid, 24);
OFF(ib_path_rec_t, dlid, 40);
OFF(ib_path_rec_t, slid, 42);
OFF(ib_path_rec_t, hop_flow_raw, 44);
OFF(ib_path_rec_t, tclass, 48);
OFF(ib_path_rec_t, num_path, 49);
OFF(ib_path_rec_t, pkey, 50);
OFF(ib_path_rec_t, qos_class_sl, 52);
OFF(ib_path_rec_t, mtu, 54);
OFF(ib_path_rec_t, rate, 55);
OFF(ib_path_rec_t, pkt_life, 56);
OFF(ib_path_rec_t, preference, 57);
OFF(ib_path_rec_t, resv2, 58);

/* ClassPortInfo (13.4.8.1) */
SIZE(ib_class_port_info_t, 72);
OFF(ib_class_port_info_t, base_ver, 0);
OFF(ib_class_port_info_t, class_ver, 1);
OFF(ib_class_port_info_t, cap_mask, 2);
OFF(ib_class_port_info_t, cap_mask2_resp_time, 4);
OFF(ib_class_port_info_t, redir_gid, 8);
OFF(ib_class_port_info_t, redir_tc_sl_fl, 24);
OFF(ib_class_port_info_t, redir_lid, 28);
OFF(ib_class_port_info_t, redir_pkey, 30);
OFF(ib_class_port_info_t, redir_qp, 32);
OFF(ib_class_port_info_t, redir_qkey, 36);
OFF(ib_class_port_info_t, trap_gid, 40);
OFF(ib_class_port_info_t, trap_tc_sl_fl, 56);
OFF(ib_class_port_info_t, trap_lid, 60);
OFF(ib_class_port_info_t, trap_pkey, 62);
OFF(ib_class_port_info_t, trap_hop_qp, 64);
OFF(ib_class_port_info_t, trap_qkey, 68);

/* NodeRecord (15.2.5.2): 108 bytes of record, padded to 112 */
SIZE(ib_node_record_t, 112);
OFF(ib_node_record_t, lid, 0);
OFF(ib_node_record_t, resv, 2);
OFF(ib_node_record_t, node_info, 4);
OFF(ib_node_record_t, node_desc, 44);
OFF(ib_node_record_t, pad, 108);

/* ServiceRecord (15.2.5.14) */
SIZE(ib_svc_name_t, 64);
SIZE(ib_service_record_t, 176);
OFF(ib_service_record_t, service_id, 0);
OFF(ib_service_record_t, service_gid, 8);
OFF(ib_service_record_t, service_pkey, 24);
OFF(ib_service_record_t, resv, 26);
OFF(ib_service_record_t, service_lease, 28);
OFF(ib_service_record_t, service_key, 32);
OFF(ib_service_record_t, service_name, 48);
OFF(ib_service_record_t, service_data8, 112);
OFF(ib_service_record_t, service_data16, 128);
OFF(ib_service_record_t, service_data32, 144);
OFF(ib_service_record_t, service_data64, 160);

/* PortInfoRecord (15.2.5.3): 68 bytes, padded to 72 */
SIZE(ib_portinfo_record_t, 72);
OFF(ib_portinfo_record_t, lid, 0);
OFF(ib_portinfo_record_t, port_num, 2);
OFF(ib_portinfo_record_t, options, 3);
OFF(ib_portinfo_record_t, port_info, 4);
OFF(ib_portinfo_record_t, pad, 68);

/* PortInfoExtendedRecord */
SIZE(ib_portinfoext_record_t, 68);
OFF(ib_portinfoext_record_t, lid, 0);
OFF(ib_portinfoext_record_t, port_num, 2);
OFF(ib_portinfoext_record_t, options, 3);
OFF(ib_portinfoext_record_t, port_info_ext, 4);

/* LinkRecord (15.2.5.13) */
SIZE(ib_link_record_t, 8);
OFF(ib_link_record_t, from_lid, 0);
OFF(ib_link_record_t, from_port_num, 2);
OFF(ib_link_record_t, to_port_num, 3);
OFF(ib_link_record_t, to_lid, 4);
OFF(ib_link_record_t, pad, 6);

/* SMInfoRecord (15.2.5.7): 25 bytes, padded to 32 */
SIZE(ib_sminfo_record_t, 32);
OFF(ib_sminfo_record_t, lid, 0);
OFF(ib_sminfo_record_t, resv0, 2);
OFF(ib_sminfo_record_t, sm_info, 4);
OFF(ib_sminfo_record_t, pad, 25);

/* LinearForwardingTableRecord (15.2.5.6) */
SIZE(ib_lft_record_t, 72);
OFF(ib_lft_record_t, lid, 0);
OFF(ib_lft_record_t, block_num, 2);
OFF(ib_lft_record_t, resv0, 4);
OFF(ib_lft_record_t, lft, 8);

/* MulticastForwardingTableRecord (15.2.5.8) */
SIZE(ib_mft_record_t, 72);
OFF(ib_mft_record_t, lid, 0);
OFF(ib_mft_record_t, position_block_num, 2);
OFF(ib_mft_record_t, resv0, 4);
OFF(ib_mft_record_t, mft, 8);

/* SwitchInfoRecord (15.2.5.4) */
SIZE(ib_switch_info_record_t, 24);
OFF(ib_switch_info_record_t, lid, 0);
OFF(ib_switch_info_record_t, resv0, 2);
OFF(ib_switch_info_record_t, switch_info, 4);

/* GuidInfoRecord (15.2.5.18) */
SIZE(ib_guidinfo_record_t, 72);
OFF(ib_guidinfo_record_t, lid, 0);
OFF(ib_guidinfo_record_t, block_num, 2);
OFF(ib_guidinfo_record_t, resv, 3);
OFF(ib_guidinfo_record_t, reserved, 4);
OFF(ib_guidinfo_record_t, guid_info, 8);

/* MultiPathRecord (15.2.5.20): 24-byte fixed part, then the GIDs */
SIZE(ib_multipath_rec_t, 24 + 16 * IB_MULTIPATH_MAX_GIDS);
OFF(ib_multipath_rec_t, hop_flow_raw, 0);
OFF(ib_multipath_rec_t, tclass, 4);
OFF(ib_multipath_rec_t, num_path, 5);
OFF(ib_multipath_rec_t, pkey, 6);
OFF(ib_multipath_rec_t, qos_class_sl, 8);
OFF(ib_multipath_rec_t, mtu, 10);
OFF(ib_multipath_rec_t, rate, 11);
OFF(ib_multipath_rec_t, pkt_life, 12);
OFF(ib_multipath_rec_t, service_id_8msb, 13);
OFF(ib_multipath_rec_t, independence, 14);
OFF(ib_multipath_rec_t, sgid_count, 15);
OFF(ib_multipath_rec_t, dgid_count, 16);
OFF(ib_multipath_rec_t, service_id_56lsb, 17);
OFF(ib_multipath_rec_t, gids, 24);

/* P_KeyTableRecord (15.2.5.11) */
SIZE(ib_pkey_table_record_t, 72);
OFF(ib_pkey_table_record_t, lid, 0);
OFF(ib_pkey_table_record_t, block_num, 2);
OFF(ib_pkey_table_record_t, port_num, 4);
OFF(ib_pkey_table_record_t, reserved1, 5);
OFF(ib_pkey_table_record_t, reserved2, 6);
OFF(ib_pkey_table_record_t, pkey_tbl, 8);

/* SLtoVLMappingTableRecord (15.2.5.4) */
SIZE(ib_slvl_table_record_t, 16);
OFF(ib_slvl_table_record_t, lid, 0);
OFF(ib_slvl_table_record_t, in_port_num, 2);
OFF(ib_slvl_table_record_t, out_port_num, 3);
OFF(ib_slvl_table_record_t, resv, 4);
OFF(ib_slvl_table_record_t, slvl_tbl, 8);

/* VLArbitrationTableRecord (15.2.5.9) */
SIZE(ib_vl_arb_table_record_t, 72);
OFF(ib_vl_arb_table_record_t, lid, 0);
OFF(ib_vl_arb_table_record_t, port_num, 2);
OFF(ib_vl_arb_table_record_t, block_num, 3);
OFF(ib_vl_arb_table_record_t, reserved, 4);
OFF(ib_vl_arb_table_record_t, vl_arb_tbl, 8);

/* MCMemberRecord (15.2.5.17): 52 bytes, padded to 56 */
SIZE(ib_member_rec_t, 56);
OFF(ib_member_rec_t, mgid, 0);
OFF(ib_member_rec_t, port_gid, 16);
OFF(ib_member_rec_t, qkey, 32);
OFF(ib_member_rec_t, mlid, 36);
OFF(ib_member_rec_t, mtu, 38);
OFF(ib_member_rec_t, tclass, 39);
OFF(ib_member_rec_t, pkey, 40);
OFF(ib_member_rec_t, rate, 42);
OFF(ib_member_rec_t, pkt_life, 43);
OFF(ib_member_rec_t, sl_flow_hop, 44);
OFF(ib_member_rec_t, scope_state, 48);
OFF(ib_member_rec_t, proxy_join, 49);
OFF(ib_member_rec_t, reserved, 50);
OFF(ib_member_rec_t, pad, 52);

/* InformInfoRecord (15.2.5.12): 60 bytes, padded to 64 */
SIZE(ib_inform_info_record_t, 64);
OFF(ib_inform_info_record_t, subscriber_gid, 0);
OFF(ib_inform_info_record_t, subscriber_enum, 16);
OFF(ib_inform_info_record_t, reserved, 18);
OFF(ib_inform_info_record_t, inform_info, 24);
OFF(ib_inform_info_record_t, pad, 60);

/* PerfMgt MAD (16.1.1) and attributes */
SIZE(ib_perfmgt_mad_t, MAD_BLOCK_SIZE);
OFF(ib_perfmgt_mad_t, header, 0);
OFF(ib_perfmgt_mad_t, resv, 24);
OFF(ib_perfmgt_mad_t, data, 64);
_Static_assert(IB_PM_DATA_SIZE == 192, "IB_PM_DATA_SIZE");

SIZE(ib_port_counters_t, 40);
OFF(ib_port_counters_t, reserved0, 0);
OFF(ib_port_counters_t, port_select, 1);
OFF(ib_port_counters_t, counter_select, 2);
OFF(ib_port_counters_t, symbol_error_counter, 4);
OFF(ib_port_counters_t, link_error_recovery_counter, 6);
OFF(ib_port_counters_t, link_down_counter, 7);
OFF(ib_port_counters_t, port_rcv_errors, 8);
OFF(ib_port_counters_t, port_rcv_remote_physical_errors, 10);
OFF(ib_port_counters_t, port_rcv_switch_relay_errors, 12);
OFF(ib_port_counters_t, port_xmit_discard, 14);
OFF(ib_port_counters_t, port_xmit_constraint_errors, 16);
OFF(ib_port_counters_t, port_rcv_constraint_errors, 17);
OFF(ib_port_counters_t, reserved1, 18);
OFF(ib_port_counters_t, lli_errors_exc_buf_errors, 19);
OFF(ib_port_counters_t, reserved2, 20);
OFF(ib_port_counters_t, vl15_dropped, 22);
OFF(ib_port_counters_t, port_xmit_data, 24);
OFF(ib_port_counters_t, port_rcv_data, 28);
OFF(ib_port_counters_t, port_xmit_pkts, 32);
OFF(ib_port_counters_t, port_rcv_pkts, 36);

SIZE(ib_port_counters_ext_t, 72);
OFF(ib_port_counters_ext_t, reserved, 0);
OFF(ib_port_counters_ext_t, port_select, 1);
OFF(ib_port_counters_ext_t, counter_select, 2);
OFF(ib_port_counters_ext_t, reserved2, 4);
OFF(ib_port_counters_ext_t, xmit_data, 8);
OFF(ib_port_counters_ext_t, rcv_data, 16);
OFF(ib_port_counters_ext_t, xmit_pkts, 24);
OFF(ib_port_counters_ext_t, rcv_pkts, 32);
OFF(ib_port_counters_ext_t, unicast_xmit_pkts, 40);
OFF(ib_port_counters_ext_t, unicast_rcv_pkts, 48);
OFF(ib_port_counters_ext_t, multicast_xmit_pkts, 56);
OFF(ib_port_counters_ext_t, multicast_rcv_pkts, 64);

SIZE(ib_port_samples_control_t, 68);
OFF(ib_port_samples_control_t, op_code, 0);
OFF(ib_port_samples_control_t, port_select, 1);
OFF(ib_port_samples_control_t, tick, 2);
OFF(ib_port_samples_control_t, counter_width, 3);
OFF(ib_port_samples_control_t, counter_mask, 4);
OFF(ib_port_samples_control_t, counter_mask_10to14, 8);
OFF(ib_port_samples_control_t, sample_mech, 10);
OFF(ib_port_samples_control_t, sample_status, 11);
OFF(ib_port_samples_control_t, option_mask, 12);
OFF(ib_port_samples_control_t, vendor_mask, 20);
OFF(ib_port_samples_control_t, sample_start, 28);
OFF(ib_port_samples_control_t, sample_interval, 32);
OFF(ib_port_samples_control_t, tag, 36);
OFF(ib_port_samples_control_t, counter_select0, 38);
OFF(ib_port_samples_control_t, counter_select14, 66);

SIZE(ib_port_samples_result_t, 64);
OFF(ib_port_samples_result_t, tag, 0);
OFF(ib_port_samples_result_t, sample_status, 2);
OFF(ib_port_samples_result_t, counter0, 4);
OFF(ib_port_samples_result_t, counter14, 60);

SIZE(ib_port_xmit_data_sl_t, IB_PM_DATA_SIZE);
OFF(ib_port_xmit_data_sl_t, port_select, 1);
OFF(ib_port_xmit_data_sl_t, counter_select, 2);
OFF(ib_port_xmit_data_sl_t, port_xmit_data_sl, 4);
OFF(ib_port_xmit_data_sl_t, resv, 68);
SIZE(ib_port_rcv_data_sl_t, IB_PM_DATA_SIZE);
OFF(ib_port_rcv_data_sl_t, port_select, 1);
OFF(ib_port_rcv_data_sl_t, counter_select, 2);
OFF(ib_port_rcv_data_sl_t, port_rcv_data_sl, 4);
OFF(ib_port_rcv_data_sl_t, resv, 68);

/* Device management (16.3) */
SIZE(ib_dm_mad_t, MAD_BLOCK_SIZE);
OFF(ib_dm_mad_t, hdr, 0);
OFF(ib_dm_mad_t, resv, 24);
OFF(ib_dm_mad_t, data, 64);
_Static_assert(IB_DM_DATA_SIZE == 192, "IB_DM_DATA_SIZE");

SIZE(ib_iou_info_t, 132);
OFF(ib_iou_info_t, change_id, 0);
OFF(ib_iou_info_t, max_controllers, 2);
OFF(ib_iou_info_t, diag_rom, 3);
OFF(ib_iou_info_t, controller_list, 4);

SIZE(ib_ioc_profile_t, 128);
OFF(ib_ioc_profile_t, ioc_guid, 0);
OFF(ib_ioc_profile_t, vend_id, 8);
OFF(ib_ioc_profile_t, dev_id, 12);
OFF(ib_ioc_profile_t, dev_ver, 16);
OFF(ib_ioc_profile_t, resv2, 18);
OFF(ib_ioc_profile_t, subsys_vend_id, 20);
OFF(ib_ioc_profile_t, subsys_id, 24);
OFF(ib_ioc_profile_t, io_class, 28);
OFF(ib_ioc_profile_t, io_subclass, 30);
OFF(ib_ioc_profile_t, protocol, 32);
OFF(ib_ioc_profile_t, protocol_ver, 34);
OFF(ib_ioc_profile_t, resv3, 36);
OFF(ib_ioc_profile_t, send_msg_depth, 40);
OFF(ib_ioc_profile_t, resv4, 42);
OFF(ib_ioc_profile_t, rdma_read_depth, 43);
OFF(ib_ioc_profile_t, send_msg_size, 44);
OFF(ib_ioc_profile_t, rdma_size, 48);
OFF(ib_ioc_profile_t, ctrl_ops_cap, 52);
OFF(ib_ioc_profile_t, resv5, 53);
OFF(ib_ioc_profile_t, num_svc_entries, 54);
OFF(ib_ioc_profile_t, resv6, 55);
OFF(ib_ioc_profile_t, id_string, 64);

SIZE(ib_svc_entry_t, 48);
OFF(ib_svc_entry_t, name, 0);
OFF(ib_svc_entry_t, id, 40);
SIZE(ib_svc_entries_t, 192);
OFF(ib_svc_entries_t, service_entry, 0);

/* Congestion control (A10.4) */
SIZE(ib_cc_mad_t, MAD_BLOCK_SIZE);
OFF(ib_cc_mad_t, header, 0);
OFF(ib_cc_mad_t, cc_key, 24);
OFF(ib_cc_mad_t, log_data, 32);
OFF(ib_cc_mad_t, mgt_data, 64);
_Static_assert(IB_CC_MAD_HDR_SIZE == 32, "IB_CC_MAD_HDR_SIZE");

SIZE(ib_cong_info_t, 3);
OFF(ib_cong_info_t, cong_info, 0);
OFF(ib_cong_info_t, ctrl_table_cap, 2);

SIZE(ib_cong_key_info_t, 14);
OFF(ib_cong_key_info_t, cc_key, 0);
OFF(ib_cong_key_info_t, protect_bit, 8);
OFF(ib_cong_key_info_t, lease_period, 10);
OFF(ib_cong_key_info_t, violations, 12);

SIZE(ib_cong_log_event_sw_t, 12);
OFF(ib_cong_log_event_sw_t, slid, 0);
OFF(ib_cong_log_event_sw_t, dlid, 2);
OFF(ib_cong_log_event_sw_t, sl, 4);
OFF(ib_cong_log_event_sw_t, time_stamp, 8);

SIZE(ib_cong_log_event_ca_t, 16);
OFF(ib_cong_log_event_ca_t, local_qp_resv0, 0);
OFF(ib_cong_log_event_ca_t, remote_qp_sl_service_type, 4);
OFF(ib_cong_log_event_ca_t, remote_lid, 8);
OFF(ib_cong_log_event_ca_t, resv1, 10);
OFF(ib_cong_log_event_ca_t, time_stamp, 12);

SIZE(ib_cong_log_t, 220);
OFF(ib_cong_log_t, log_type, 0);
OFF(ib_cong_log_t, log_details.log_sw.cong_flags, 1);
OFF(ib_cong_log_t, log_details.log_sw.event_counter, 2);
OFF(ib_cong_log_t, log_details.log_sw.time_stamp, 4);
OFF(ib_cong_log_t, log_details.log_sw.port_map, 8);
OFF(ib_cong_log_t, log_details.log_sw.entry_list, 40);
OFF(ib_cong_log_t, log_details.log_ca.cong_flags, 1);
OFF(ib_cong_log_t, log_details.log_ca.event_counter, 2);
OFF(ib_cong_log_t, log_details.log_ca.event_map, 4);
OFF(ib_cong_log_t, log_details.log_ca.time_stamp, 8);
OFF(ib_cong_log_t, log_details.log_ca.log_event, 12);
_Static_assert(sizeof(ib_cong_log_t) <= IB_CC_LOG_DATA_SIZE + IB_CC_MGT_DATA_SIZE,
	       "CongestionLog fits the CC MAD");

SIZE(ib_sw_cong_setting_t, 76);
OFF(ib_sw_cong_setting_t, control_map, 0);
OFF(ib_sw_cong_setting_t, victim_mask, 4);
OFF(ib_sw_cong_setting_t, credit_mask, 36);
OFF(ib_sw_cong_setting_t, threshold_resv, 68);
OFF(ib_sw_cong_setting_t, packet_size, 69);
OFF(ib_sw_cong_setting_t, cs_threshold_resv, 70);
OFF(ib_sw_cong_setting_t, cs_return_delay, 72);
OFF(ib_sw_cong_setting_t, marking_rate, 74);

SIZE(ib_sw_port_cong_setting_element_t, 4);
OFF(ib_sw_port_cong_setting_element_t, valid_ctrl_type_res_threshold, 0);
OFF(ib_sw_port_cong_setting_element_t, packet_size, 1);
OFF(ib_sw_port_cong_setting_element_t, cong_param, 2);
SIZE(ib_sw_port_cong_setting_block_t, 128);
SIZE(ib_sw_port_cong_setting_t, 128);

SIZE(ib_ca_cong_entry_t, 8);
OFF(ib_ca_cong_entry_t, ccti_timer, 0);
OFF(ib_ca_cong_entry_t, ccti_increase, 2);
OFF(ib_ca_cong_entry_t, trigger_threshold, 3);
OFF(ib_ca_cong_entry_t, ccti_min, 4);
OFF(ib_ca_cong_entry_t, resv0, 5);
OFF(ib_ca_cong_entry_t, resv1, 6);

SIZE(ib_ca_cong_setting_t, 132);
OFF(ib_ca_cong_setting_t, port_control, 0);
OFF(ib_ca_cong_setting_t, control_map, 2);
OFF(ib_ca_cong_setting_t, entry_list, 4);

SIZE(ib_cc_tbl_entry_t, 2);
SIZE(ib_cc_tbl_t, 132);
OFF(ib_cc_tbl_t, ccti_limit, 0);
OFF(ib_cc_tbl_t, resv, 2);
OFF(ib_cc_tbl_t, entry_list, 4);

SIZE(ib_time_stamp_t, 4);

/* Every SA record fits the SA MAD data area. */
_Static_assert(sizeof(ib_service_record_t) <= IB_SA_DATA_SIZE, "ServiceRecord fits");
_Static_assert(sizeof(ib_multipath_rec_t) <= IB_SA_DATA_SIZE, "MultiPathRecord fits");
_Static_assert(sizeof(ib_node_record_t) <= IB_SA_DATA_SIZE, "NodeRecord fits");

int main(void)
{
	return 0;
}
