/*
 * ibal tests: compile-time checks of the verbs data types of ib_types.h and ib_ci.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * These are host structures, so most checks are about field order (users
 * and providers rely on it) and about the fixed 64-bit slots of TO_LONG_PTR
 * members. Exact offsets are asserted where they are the same for 32-bit
 * and 64-bit ABIs; the few that hold only where 64-bit integers are 8-byte
 * aligned in structures (LP64, and OFED for Windows' x64 build) are under
 * __LP64__. Enumerator values are those of OFED for Windows. Compiled as
 * C11; the program does nothing at run time.
 */
#include <stddef.h>
#include <iba/ib_types.h>
#include <iba/ib_ci.h>

#define SIZE(t, n) _Static_assert(sizeof(t) == (n), "sizeof " #t)
#define OFF(t, f, n) _Static_assert(offsetof(t, f) == (n), #t "." #f)
#define BEFORE(t, a, b) _Static_assert(offsetof(t, a) < offsetof(t, b), #t ": " #a " before " #b)
#define SAME(t, a, b) _Static_assert(offsetof(t, a) == offsetof(t, b), #t ": " #a " overlays " #b)
#define LAST(t, f, n) _Static_assert(offsetof(t, f) + (n) == sizeof(t), #t ": " #f " is last")
#define VAL(e, n) _Static_assert((e) == (n), #e " == " #n)

/* Status and enumeration values. */
VAL(IB_SUCCESS, 0);
VAL(IB_INVALID_PARAMETER, 3);
VAL(IB_INVALID_SRQ_SIZE, 24);
VAL(IB_INVALID_CA_HANDLE, 30);
VAL(IB_ERROR, 43);
VAL(IB_VERBS_PROCESSING_DONE, 45);
VAL(IB_PENDING, 53);
VAL(IB_UNKNOWN_ERROR, 54);
VAL(IB_AE_SQ_ERROR, 1);
VAL(IB_AE_PORT_ACTIVE, 21);
VAL(IB_AE_CQ_OVERFLOW, 36);
VAL(IB_AE_UNKNOWN, 37);
VAL(IB_WCS_GENERAL_ERR, 13);
VAL(IB_WCS_REM_ABORT_ERR, 16);
VAL(IB_WCS_UNKNOWN, 17);
VAL(IB_WC_NOP, 6);
VAL(IB_WC_UNKNOWN1, 7);
VAL(IB_WC_RECV, 128);
VAL(IB_WC_FAST_REG_MR, 132);
VAL(IB_WC_UNKNOWN2, 133);
VAL(IB_QPT_RELIABLE_DGRM, 2);
VAL(IB_QPT_MAD, 8);
VAL(IB_QPT_UNKNOWN, 11);
VAL(WR_LSO, 5);
VAL(WR_UNKNOWN, 9);
VAL(IB_PDT_UD, 3);
VAL(IB_APM_ARMED, 3);
VAL(IB_SRQ_LIMIT, 2);
VAL(RDMA_TRANSPORT_RDMAOE, 2);
VAL(IB_REJ_INVALID_MTU, CL_HTON16(26));
VAL(IB_REJ_SERVICE_HANDOFF, 0xFFFF);
VAL(VERBS_VERSION, 0x00020007);
VAL(MK_VERBS_VERSION(3, 1), 0x00030001);
VAL(IB_REQ_CM_RDMA_VERSION, 0);

/* A data segment is 16 bytes, as providers copy it into WQEs. */
SIZE(ib_local_ds_t, 16);
OFF(ib_local_ds_t, vaddr, 0);
OFF(ib_local_ds_t, length, 8);
OFF(ib_local_ds_t, lkey, 12);

/* Send work request: header fields, then the two unnamed unions. */
OFF(ib_send_wr_t, wr_id, 0);
BEFORE(ib_send_wr_t, wr_id, p_next);
BEFORE(ib_send_wr_t, p_next, ds_array);
BEFORE(ib_send_wr_t, ds_array, num_ds);
BEFORE(ib_send_wr_t, num_ds, wr_type);
BEFORE(ib_send_wr_t, wr_type, send_opt);
BEFORE(ib_send_wr_t, send_opt, immediate_data);
SAME(ib_send_wr_t, immediate_data, invalidate_rkey);
BEFORE(ib_send_wr_t, immediate_data, dgrm);
SAME(ib_send_wr_t, dgrm, remote_ops);
SAME(ib_send_wr_t, dgrm, fast_reg);
SAME(ib_send_wr_t, dgrm.ud, dgrm.rd);
SAME(ib_send_wr_t, dgrm.ud.h_av, dgrm.raw_ether.dest_lid);
BEFORE(ib_send_wr_t, dgrm.ud.h_av, dgrm.ud.remote_qp);
BEFORE(ib_send_wr_t, dgrm.ud.remote_qp, dgrm.ud.remote_qkey);
BEFORE(ib_send_wr_t, dgrm.ud.remote_qkey, dgrm.ud.rsvd);
BEFORE(ib_send_wr_t, dgrm.ud.rsvd, dgrm.ud.pkey_index);
BEFORE(ib_send_wr_t, dgrm.ud.pkey_index, dgrm.ud.header);
BEFORE(ib_send_wr_t, dgrm.ud.header, dgrm.ud.hlen);
BEFORE(ib_send_wr_t, dgrm.ud.hlen, dgrm.ud.mss);
BEFORE(ib_send_wr_t, remote_ops.vaddr, remote_ops.rkey);
BEFORE(ib_send_wr_t, remote_ops.rkey, remote_ops.atomic1);
BEFORE(ib_send_wr_t, remote_ops.atomic1, remote_ops.atomic2);
BEFORE(ib_send_wr_t, fast_reg.iova_start, fast_reg.page_list);
BEFORE(ib_send_wr_t, fast_reg.rkey, fast_reg.fbo);

/* Receive work request: the pointers have 64-bit slots (TO_LONG_PTR). */
OFF(ib_recv_wr_t, p_next, 0);
OFF(ib_recv_wr_t, wr_id, 8);
OFF(ib_recv_wr_t, num_ds, 16);
LAST(ib_recv_wr_t, ds_array, 8);

/* Work completion. */
SIZE(ib_wc_t, 56);
OFF(ib_wc_t, p_next, 0);
OFF(ib_wc_t, wr_id, 8);
OFF(ib_wc_t, wc_type, 16);
OFF(ib_wc_t, length, 20);
OFF(ib_wc_t, vendor_specific, 24);
OFF(ib_wc_t, status, 32);
OFF(ib_wc_t, recv, 36);
SAME(ib_wc_t, recv.conn.recv_opt, recv.ud.recv_opt);
SAME(ib_wc_t, recv.conn.immediate_data, recv.ud.immediate_data);
OFF(ib_wc_t, recv.ud.remote_qp, 44);
OFF(ib_wc_t, recv.ud.pkey_index, 48);
OFF(ib_wc_t, recv.ud.remote_lid, 50);
OFF(ib_wc_t, recv.ud.remote_sl, 52);
OFF(ib_wc_t, recv.ud.path_bits, 53);

/* Bind request and event record. */
OFF(ib_bind_wr_t, wr_id, 0);
OFF(ib_bind_wr_t, send_opt, 8);
BEFORE(ib_bind_wr_t, send_opt, h_mr);
_Static_assert(offsetof(ib_bind_wr_t, access_ctrl) == offsetof(ib_bind_wr_t, h_mr) + 8,
	       "h_mr is a 64-bit slot");
BEFORE(ib_bind_wr_t, access_ctrl, current_rkey);
BEFORE(ib_bind_wr_t, current_rkey, local_ds);
OFF(ib_event_rec_t, context, 0);
OFF(ib_event_rec_t, type, 8);
BEFORE(ib_event_rec_t, type, vendor_specific);
BEFORE(ib_event_rec_t, vendor_specific, port_number);
#ifdef __LP64__
SIZE(ib_recv_wr_t, 32);
OFF(ib_recv_wr_t, ds_array, 24);
OFF(ib_bind_wr_t, h_mr, 16);
OFF(ib_bind_wr_t, access_ctrl, 24);
OFF(ib_bind_wr_t, current_rkey, 28);
OFF(ib_bind_wr_t, local_ds, 32);
SIZE(ib_bind_wr_t, 48);
OFF(ib_event_rec_t, vendor_specific, 16);
OFF(ib_event_rec_t, port_number, 24);
SIZE(ib_send_wr_t, 88);
OFF(ib_send_wr_t, immediate_data, 36);
OFF(ib_send_wr_t, dgrm, 40);
#endif

/* Memory registration structures. */
OFF(ib_mr_create_t, vaddr, 0);
OFF(ib_mr_create_t, length, 8);
OFF(ib_mr_create_t, access_ctrl, 16);
OFF(ib_mr_attr_t, h_pd, 0);
OFF(ib_mr_attr_t, local_lb, 8);
OFF(ib_mr_attr_t, remote_ub, 32);
OFF(ib_mr_attr_t, access_ctrl, 40);
OFF(ib_mr_attr_t, lkey, 44);
OFF(ib_mr_attr_t, rkey, 48);
SIZE(ib_phys_range_t, 16);

/* Vendor calls: p_buf keeps its 64-bit slot in the middle. */
OFF(ib_ci_op_t, command, 0);
OFF(ib_ci_op_t, buf_size, 4);
OFF(ib_ci_op_t, buf_info, 8);
OFF(ib_ci_op_t, status, 12);
OFF(ib_ci_op_t, p_buf, 16);
OFF(ib_ci_op_t, num_bytes_ret, 24);
SIZE(ci_umv_buf_t, 24);
OFF(ci_umv_buf_t, command, 0);
OFF(ci_umv_buf_t, status, 4);
OFF(ci_umv_buf_t, input_size, 8);
OFF(ci_umv_buf_t, output_size, 12);
OFF(ci_umv_buf_t, p_inout_buf, 16);

/* Port and CA attributes: pointers last (memcmp up to the first one). */
OFF(ib_port_attr_t, port_guid, 0);
BEFORE(ib_port_attr_t, port_num, mtu);
BEFORE(ib_port_attr_t, mtu, transport);
BEFORE(ib_port_attr_t, transport, max_msg_size);
BEFORE(ib_port_attr_t, lmc, active_width);
BEFORE(ib_port_attr_t, link_state, init_type_reply);
BEFORE(ib_port_attr_t, phys_state, ext_active_speed);
BEFORE(ib_port_attr_t, link_encoding, cap);
BEFORE(ib_port_attr_t, num_pkeys, p_gid_table);
_Static_assert(offsetof(ib_port_attr_t, p_pkey_table) == offsetof(ib_port_attr_t, p_gid_table) + 8,
	       "p_gid_table is a 64-bit slot");
LAST(ib_port_attr_t, p_pkey_table, 8);
OFF(ib_ca_attr_t, ca_guid, 0);
BEFORE(ib_ca_attr_t, fw_ver, size);
BEFORE(ib_ca_attr_t, max_srq_sges, bf_reg_size);
BEFORE(ib_ca_attr_t, hw_agents, ipoib_csum);
BEFORE(ib_ca_attr_t, ipoib_csum, system_image_guid);
BEFORE(ib_ca_attr_t, num_ports, p_page_size);
_Static_assert(offsetof(ib_ca_attr_t, p_port_attr) == offsetof(ib_ca_attr_t, p_page_size) + 8,
	       "p_page_size is a 64-bit slot");
LAST(ib_ca_attr_t, p_port_attr, 8);

/* Address vector and queue pair structures. */
BEFORE(ib_av_attr_t, port_num, sl);
BEFORE(ib_av_attr_t, dlid, grh_valid);
BEFORE(ib_av_attr_t, grh, static_rate);
BEFORE(ib_av_attr_t, path_bits, conn);
OFF(ib_qp_create_t, qp_type, 0);
OFF(ib_qp_create_t, sq_max_inline, 4);
OFF(ib_qp_create_t, h_sq_cq, 24);
OFF(ib_qp_create_t, h_rq_cq, 32);
OFF(ib_qp_create_t, h_srq, 40);
OFF(ib_qp_create_t, sq_signaled, 48);
OFF(ib_qp_attr_t, h_pd, 0);
BEFORE(ib_qp_attr_t, resp_res, h_sq_cq);
BEFORE(ib_qp_attr_t, h_srq, sq_signaled);
BEFORE(ib_qp_attr_t, alternate_av, apm_state);
OFF(ib_qp_mod_t, req_state, 0);
SAME(ib_qp_mod_t, state.init, state.rtr);
SAME(ib_qp_mod_t, state.rts, state.sqd);
BEFORE(ib_qp_mod_t, state.rtr.resp_res, state.rtr.rnr_nak_timeout);
BEFORE(ib_qp_mod_t, state.rtr.rnr_nak_timeout, state.rtr.opts);
BEFORE(ib_qp_mod_t, state.rts.opts, state.rts.rnr_nak_timeout);
BEFORE(ib_qp_mod_t, state.rts.apm_state, state.rts.primary_port);

/* RDMA IP CM private data fills a REQ's private data exactly. */
SIZE(ib_cm_rdma_req_t, IB_REQ_PDATA_SIZE);
OFF(ib_cm_rdma_req_t, maj_min_ver, 0);
OFF(ib_cm_rdma_req_t, ipv, 1);
OFF(ib_cm_rdma_req_t, src_port, 2);
OFF(ib_cm_rdma_req_t, src_ip_addr, 4);
OFF(ib_cm_rdma_req_t, dst_ip_addr, 20);
OFF(ib_cm_rdma_req_t, pdata, 36);

int main(void)
{
	return 0;
}
