/*
 * ibal tests: compile-time proof of the structures and constants of ib_al.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The CM private data buffers have the sizes the InfiniBand specification
 * gives the private data of each CM message (volume 1, 12.6); the other
 * structures are host structures whose field names, types and order follow
 * OFED for Windows, and members declared with TO_LONG_PTR are 64 bits wide
 * whatever the pointer size. Compiled as C11 (with the GCC/clang
 * __builtin_types_compatible_p); the program only has to build.
 */
#include <stddef.h>
#include <iba/ib_al.h>

#define SIZE(type, size) \
	_Static_assert(sizeof(type) == (size), "sizeof(" #type ") == " #size)
/* Field @p f of @p T has type @p ft. */
#define FT(T, f, ft) \
	_Static_assert(__builtin_types_compatible_p(__typeof__(((T *)0)->f), ft), \
		       #T "." #f " has type " #ft)
/* Field @p a of @p T comes before field @p b. */
#define SEQ(T, a, b) \
	_Static_assert(offsetof(T, a) < offsetof(T, b), #T ": " #a " before " #b)
/* Field @p f of @p T was declared with TO_LONG_PTR: 8 bytes shared with f_padding. */
#define P64(T, f) \
	_Static_assert(sizeof(((T *)0)->f##_padding) == 8 && \
		       offsetof(T, f) == offsetof(T, f##_padding), #T "." #f " is 64-bit")

/* --- CM private data, ARI and APR information (12.6) ------------------- */
SIZE(ib_req_pdata_t, 92);
SIZE(ib_rep_pdata_t, 196);
SIZE(ib_rtu_pdata_t, 224);
SIZE(ib_rej_pdata_t, 148);
SIZE(ib_mra_pdata_t, 222);
SIZE(ib_lap_pdata_t, 168);
SIZE(ib_apr_pdata_t, 148);
SIZE(ib_dreq_pdata_t, 220);
SIZE(ib_drep_pdata_t, 224);
SIZE(ib_sidr_req_pdata_t, 216);
SIZE(ib_sidr_rep_pdata_t, 136);
SIZE(ib_ari_t, 72);
SIZE(ib_apr_info_t, 72);
FT(ib_req_pdata_t, data, uint8_t[IB_REQ_PDATA_SIZE]);
FT(ib_rep_pdata_t, data, uint8_t[IB_REP_PDATA_SIZE]);
FT(ib_rtu_pdata_t, data, uint8_t[IB_RTU_PDATA_SIZE]);
FT(ib_rej_pdata_t, data, uint8_t[IB_REJ_PDATA_SIZE]);
FT(ib_mra_pdata_t, data, uint8_t[IB_MRA_PDATA_SIZE]);
FT(ib_lap_pdata_t, data, uint8_t[IB_LAP_PDATA_SIZE]);
FT(ib_apr_pdata_t, data, uint8_t[IB_APR_PDATA_SIZE]);
FT(ib_dreq_pdata_t, data, uint8_t[IB_DREQ_PDATA_SIZE]);
FT(ib_drep_pdata_t, data, uint8_t[IB_DREP_PDATA_SIZE]);
FT(ib_sidr_req_pdata_t, data, uint8_t[IB_SIDR_REQ_PDATA_SIZE]);
FT(ib_sidr_rep_pdata_t, data, uint8_t[IB_SIDR_REP_PDATA_SIZE]);
FT(ib_ari_t, data, uint8_t[IB_ARI_SIZE]);
FT(ib_apr_info_t, data, uint8_t[IB_APR_INFO_SIZE]);

/* Other fixed-size buffers. */
SIZE(ib_shmid_t, 64);
SIZE(((ib_pnp_iou_rec_t *)0)->desc, IB_NODE_DESCRIPTION_SIZE + 1);
SIZE(((ib_mad_svc_t *)0)->method_array, IB_MAX_METHODS * sizeof(boolean_t));
SIZE(((ib_pnp_ioc_rec_t *)0)->svc_entry_array, sizeof(ib_svc_entry_t));

/* SA query inputs: plain pairs of network-order values. */
SIZE(ib_gid_pair_t, 32);
_Static_assert(offsetof(ib_gid_pair_t, dest_gid) == 16, "dest_gid at 16");
SIZE(ib_lid_pair_t, 4);
_Static_assert(offsetof(ib_lid_pair_t, dest_lid) == 2, "dest_lid at 2");
SIZE(ib_guid_pair_t, 16);
_Static_assert(offsetof(ib_guid_pair_t, dest_guid) == 8, "dest_guid at 8");

/* --- Handles ------------------------------------------------------------ */
FT(ib_cm_handle_t, h_al, ib_al_handle_t);
FT(ib_cm_handle_t, h_qp, ib_qp_handle_t);
FT(ib_cm_handle_t, cid, net32_t);
SEQ(ib_cm_handle_t, h_al, h_qp);
SEQ(ib_cm_handle_t, h_qp, cid);
_Static_assert(__builtin_types_compatible_p(ib_pnp_handle_t, struct _al_pnp *), "PnP handle");
_Static_assert(__builtin_types_compatible_p(ib_pool_key_t, struct _al_pool_key *), "pool key");
_Static_assert(__builtin_types_compatible_p(ib_pool_handle_t, struct _al_pool *), "pool");
_Static_assert(__builtin_types_compatible_p(ib_svc_handle_t, struct _al_svc_entry *), "svc entry");

/* --- ib_mad_element_t --------------------------------------------------- */
FT(ib_mad_element_t, p_next, struct _ib_mad_element *);
FT(ib_mad_element_t, context1, const void *);
FT(ib_mad_element_t, context2, const void *);
FT(ib_mad_element_t, p_mad_buf, ib_mad_t *);
FT(ib_mad_element_t, size, uint32_t);
FT(ib_mad_element_t, immediate_data, uint32_t);
FT(ib_mad_element_t, remote_qp, ib_net32_t);
FT(ib_mad_element_t, h_av, ib_av_handle_t);
FT(ib_mad_element_t, send_opt, ib_send_opt_t);
FT(ib_mad_element_t, remote_qkey, ib_net32_t);
FT(ib_mad_element_t, resp_expected, boolean_t);
FT(ib_mad_element_t, timeout_ms, uint32_t);
FT(ib_mad_element_t, retry_cnt, uint32_t);
FT(ib_mad_element_t, rmpp_version, uint8_t);
FT(ib_mad_element_t, status, ib_wc_status_t);
FT(ib_mad_element_t, grh_valid, boolean_t);
FT(ib_mad_element_t, p_grh, ib_grh_t *);
FT(ib_mad_element_t, recv_opt, uint32_t);
FT(ib_mad_element_t, remote_lid, ib_net16_t);
FT(ib_mad_element_t, remote_sl, uint8_t);
FT(ib_mad_element_t, pkey_index, uint16_t);
FT(ib_mad_element_t, path_bits, uint8_t);
FT(ib_mad_element_t, send_context1, void *);
FT(ib_mad_element_t, send_context2, void *);
SEQ(ib_mad_element_t, p_next, context1);
SEQ(ib_mad_element_t, context1, context2);
SEQ(ib_mad_element_t, context2, p_mad_buf);
SEQ(ib_mad_element_t, p_mad_buf, size);
SEQ(ib_mad_element_t, size, immediate_data);
SEQ(ib_mad_element_t, immediate_data, remote_qp);
SEQ(ib_mad_element_t, remote_qp, h_av);
SEQ(ib_mad_element_t, h_av, send_opt);
SEQ(ib_mad_element_t, send_opt, remote_qkey);
SEQ(ib_mad_element_t, remote_qkey, resp_expected);
SEQ(ib_mad_element_t, resp_expected, timeout_ms);
SEQ(ib_mad_element_t, timeout_ms, retry_cnt);
SEQ(ib_mad_element_t, retry_cnt, rmpp_version);
SEQ(ib_mad_element_t, rmpp_version, status);
SEQ(ib_mad_element_t, status, grh_valid);
SEQ(ib_mad_element_t, grh_valid, p_grh);
SEQ(ib_mad_element_t, p_grh, recv_opt);
SEQ(ib_mad_element_t, recv_opt, remote_lid);
SEQ(ib_mad_element_t, remote_lid, remote_sl);
SEQ(ib_mad_element_t, remote_sl, pkey_index);
SEQ(ib_mad_element_t, pkey_index, path_bits);
SEQ(ib_mad_element_t, path_bits, send_context1);
SEQ(ib_mad_element_t, send_context1, send_context2);
P64(ib_mad_element_t, p_next);
P64(ib_mad_element_t, context1);
P64(ib_mad_element_t, context2);
P64(ib_mad_element_t, p_mad_buf);
P64(ib_mad_element_t, h_av);
P64(ib_mad_element_t, p_grh);
P64(ib_mad_element_t, send_context1);
P64(ib_mad_element_t, send_context2);

/* --- Asynchronous events and CQ creation --------------------------------- */
FT(ib_async_event_rec_t, code, ib_async_event_t);
FT(ib_async_event_rec_t, vendor_specific, uint64_t);
FT(ib_async_event_rec_t, context, void *);
FT(ib_async_event_rec_t, handle, union _handle_t);
FT(ib_async_event_rec_t, handle.h_ca, ib_ca_handle_t);
FT(ib_async_event_rec_t, handle.h_cq, ib_cq_handle_t);
FT(ib_async_event_rec_t, handle.h_qp, ib_qp_handle_t);
FT(ib_async_event_rec_t, handle.h_srq, ib_srq_handle_t);
FT(ib_async_event_rec_t, port_number, uint8_t);
SEQ(ib_async_event_rec_t, code, vendor_specific);
SEQ(ib_async_event_rec_t, vendor_specific, context);
SEQ(ib_async_event_rec_t, context, handle);
SEQ(ib_async_event_rec_t, handle, port_number);
P64(ib_async_event_rec_t, context);
P64(ib_async_event_rec_t, handle.h_ca);
P64(ib_async_event_rec_t, handle.h_cq);
P64(ib_async_event_rec_t, handle.h_qp);
P64(ib_async_event_rec_t, handle.h_srq);
_Static_assert(offsetof(ib_async_event_rec_t, handle.h_srq) ==
	       offsetof(ib_async_event_rec_t, handle.h_ca), "handle is a union");
SIZE(((ib_async_event_rec_t *)0)->handle, 8);

FT(ib_cq_create_t, size, uint32_t);
FT(ib_cq_create_t, pfn_comp_cb, ib_pfn_comp_cb_t);
FT(ib_cq_create_t, h_wait_obj, cl_waitobj_handle_t);
SEQ(ib_cq_create_t, size, pfn_comp_cb);
SEQ(ib_cq_create_t, pfn_comp_cb, h_wait_obj);

/* --- Multicast ------------------------------------------------------------ */
FT(ib_mcast_rec_t, mcast_context, const void *);
FT(ib_mcast_rec_t, status, ib_api_status_t);
FT(ib_mcast_rec_t, error_status, ib_net16_t);
FT(ib_mcast_rec_t, h_mcast, ib_mcast_handle_t);
FT(ib_mcast_rec_t, p_member_rec, ib_member_rec_t *);
SEQ(ib_mcast_rec_t, mcast_context, status);
SEQ(ib_mcast_rec_t, status, error_status);
SEQ(ib_mcast_rec_t, error_status, h_mcast);
SEQ(ib_mcast_rec_t, h_mcast, p_member_rec);
P64(ib_mcast_rec_t, mcast_context);
P64(ib_mcast_rec_t, h_mcast);
P64(ib_mcast_rec_t, p_member_rec);

FT(ib_mcast_req_t, create, boolean_t);
FT(ib_mcast_req_t, member_rec, ib_member_rec_t);
FT(ib_mcast_req_t, mcast_context, const void *);
FT(ib_mcast_req_t, pfn_mcast_cb, ib_pfn_mcast_cb_t);
FT(ib_mcast_req_t, timeout_ms, uint32_t);
FT(ib_mcast_req_t, retry_cnt, uint32_t);
FT(ib_mcast_req_t, flags, ib_al_flags_t);
FT(ib_mcast_req_t, port_guid, ib_net64_t);
FT(ib_mcast_req_t, pkey_index, uint16_t);
SEQ(ib_mcast_req_t, create, member_rec);
SEQ(ib_mcast_req_t, member_rec, mcast_context);
SEQ(ib_mcast_req_t, mcast_context, pfn_mcast_cb);
SEQ(ib_mcast_req_t, pfn_mcast_cb, timeout_ms);
SEQ(ib_mcast_req_t, timeout_ms, retry_cnt);
SEQ(ib_mcast_req_t, retry_cnt, flags);
SEQ(ib_mcast_req_t, flags, port_guid);
SEQ(ib_mcast_req_t, port_guid, pkey_index);

/* --- CM callback records --------------------------------------------------- */
FT(ib_cm_req_rec_t, context, const void *);
FT(ib_cm_req_rec_t, h_cm_req, ib_cm_handle_t);
FT(ib_cm_req_rec_t, h_cm_listen, ib_listen_handle_t);
FT(ib_cm_req_rec_t, p_req_pdata, const uint8_t *);
FT(ib_cm_req_rec_t, qp_type, ib_qp_type_t);
FT(ib_cm_req_rec_t, resp_res, uint8_t);
FT(ib_cm_req_rec_t, flow_ctrl, boolean_t);
FT(ib_cm_req_rec_t, rnr_retry_cnt, uint8_t);
FT(ib_cm_req_rec_t, primary_path, ib_path_rec_t);
FT(ib_cm_req_rec_t, alt_path, ib_path_rec_t);
FT(ib_cm_req_rec_t, pkey, ib_net16_t);
FT(ib_cm_req_rec_t, sidr_context, const void *);
SEQ(ib_cm_req_rec_t, context, h_cm_req);
SEQ(ib_cm_req_rec_t, h_cm_req, h_cm_listen);
SEQ(ib_cm_req_rec_t, h_cm_listen, p_req_pdata);
SEQ(ib_cm_req_rec_t, p_req_pdata, qp_type);
SEQ(ib_cm_req_rec_t, qp_type, resp_res);
SEQ(ib_cm_req_rec_t, resp_res, flow_ctrl);
SEQ(ib_cm_req_rec_t, flow_ctrl, rnr_retry_cnt);
SEQ(ib_cm_req_rec_t, rnr_retry_cnt, primary_path);
SEQ(ib_cm_req_rec_t, primary_path, alt_path);
SEQ(ib_cm_req_rec_t, alt_path, pkey);
SEQ(ib_cm_req_rec_t, pkey, sidr_context);

FT(ib_cm_rep_rec_t, p_rep_pdata, const uint8_t *);
FT(ib_cm_rep_rec_t, qp_type, ib_qp_type_t);
FT(ib_cm_rep_rec_t, h_cm_rep, ib_cm_handle_t);
FT(ib_cm_rep_rec_t, qp_context, const void *);
FT(ib_cm_rep_rec_t, resp_res, uint8_t);
FT(ib_cm_rep_rec_t, flow_ctrl, boolean_t);
FT(ib_cm_rep_rec_t, apr_status, ib_apr_status_t);
FT(ib_cm_rep_rec_t, sidr_context, const void *);
FT(ib_cm_rep_rec_t, status, ib_sidr_status_t);
FT(ib_cm_rep_rec_t, remote_qp, ib_net32_t);
FT(ib_cm_rep_rec_t, remote_qkey, ib_net32_t);
FT(ib_cm_rep_rec_t, class_info, ib_class_port_info_t);
SEQ(ib_cm_rep_rec_t, p_rep_pdata, qp_type);
SEQ(ib_cm_rep_rec_t, qp_type, h_cm_rep);
SEQ(ib_cm_rep_rec_t, h_cm_rep, qp_context);
SEQ(ib_cm_rep_rec_t, qp_context, resp_res);
SEQ(ib_cm_rep_rec_t, resp_res, flow_ctrl);
SEQ(ib_cm_rep_rec_t, flow_ctrl, apr_status);
SEQ(ib_cm_rep_rec_t, apr_status, sidr_context);
SEQ(ib_cm_rep_rec_t, sidr_context, status);
SEQ(ib_cm_rep_rec_t, status, remote_qp);
SEQ(ib_cm_rep_rec_t, remote_qp, remote_qkey);
SEQ(ib_cm_rep_rec_t, remote_qkey, class_info);

FT(ib_cm_rtu_rec_t, p_rtu_pdata, const uint8_t *);
FT(ib_cm_rtu_rec_t, h_qp, ib_qp_handle_t);
FT(ib_cm_rtu_rec_t, qp_context, const void *);
SEQ(ib_cm_rtu_rec_t, p_rtu_pdata, h_qp);
SEQ(ib_cm_rtu_rec_t, h_qp, qp_context);

FT(ib_cm_rej_rec_t, rej_status, ib_rej_status_t);
FT(ib_cm_rej_rec_t, p_ari, const uint8_t *);
FT(ib_cm_rej_rec_t, ari_length, uint8_t);
FT(ib_cm_rej_rec_t, p_rej_pdata, const uint8_t *);
FT(ib_cm_rej_rec_t, h_qp, ib_qp_handle_t);
FT(ib_cm_rej_rec_t, qp_context, const void *);
SEQ(ib_cm_rej_rec_t, rej_status, p_ari);
SEQ(ib_cm_rej_rec_t, p_ari, ari_length);
SEQ(ib_cm_rej_rec_t, ari_length, p_rej_pdata);
SEQ(ib_cm_rej_rec_t, p_rej_pdata, h_qp);
SEQ(ib_cm_rej_rec_t, h_qp, qp_context);

FT(ib_cm_mra_rec_t, p_mra_pdata, const uint8_t *);
FT(ib_cm_mra_rec_t, h_qp, ib_qp_handle_t);
FT(ib_cm_mra_rec_t, qp_context, const void *);
SEQ(ib_cm_mra_rec_t, p_mra_pdata, h_qp);
SEQ(ib_cm_mra_rec_t, h_qp, qp_context);

FT(ib_cm_lap_rec_t, h_cm_lap, ib_cm_handle_t);
FT(ib_cm_lap_rec_t, alt_path, ib_path_rec_t);
FT(ib_cm_lap_rec_t, p_lap_pdata, const uint8_t *);
FT(ib_cm_lap_rec_t, qp_context, const void *);
SEQ(ib_cm_lap_rec_t, h_cm_lap, alt_path);
SEQ(ib_cm_lap_rec_t, alt_path, p_lap_pdata);
SEQ(ib_cm_lap_rec_t, p_lap_pdata, qp_context);

FT(ib_cm_apr_rec_t, cm_status, ib_api_status_t);
FT(ib_cm_apr_rec_t, apr_status, ib_apr_status_t);
FT(ib_cm_apr_rec_t, p_info, const uint8_t *);
FT(ib_cm_apr_rec_t, info_length, uint8_t);
FT(ib_cm_apr_rec_t, p_apr_pdata, const uint8_t *);
FT(ib_cm_apr_rec_t, h_qp, ib_qp_handle_t);
FT(ib_cm_apr_rec_t, qp_context, const void *);
SEQ(ib_cm_apr_rec_t, cm_status, apr_status);
SEQ(ib_cm_apr_rec_t, apr_status, p_info);
SEQ(ib_cm_apr_rec_t, p_info, info_length);
SEQ(ib_cm_apr_rec_t, info_length, p_apr_pdata);
SEQ(ib_cm_apr_rec_t, p_apr_pdata, h_qp);
SEQ(ib_cm_apr_rec_t, h_qp, qp_context);

FT(ib_cm_dreq_rec_t, h_cm_dreq, ib_cm_handle_t);
FT(ib_cm_dreq_rec_t, p_dreq_pdata, const uint8_t *);
FT(ib_cm_dreq_rec_t, qp_context, const void *);
SEQ(ib_cm_dreq_rec_t, h_cm_dreq, p_dreq_pdata);
SEQ(ib_cm_dreq_rec_t, p_dreq_pdata, qp_context);

FT(ib_cm_drep_rec_t, cm_status, ib_api_status_t);
FT(ib_cm_drep_rec_t, p_drep_pdata, const uint8_t *);
FT(ib_cm_drep_rec_t, h_qp, ib_qp_handle_t);
FT(ib_cm_drep_rec_t, qp_context, const void *);
SEQ(ib_cm_drep_rec_t, cm_status, p_drep_pdata);
SEQ(ib_cm_drep_rec_t, p_drep_pdata, h_qp);
SEQ(ib_cm_drep_rec_t, h_qp, qp_context);

/* --- CM requests ------------------------------------------------------------ */
FT(ib_cm_listen_t, svc_id, ib_net64_t);
FT(ib_cm_listen_t, ca_guid, ib_net64_t);
FT(ib_cm_listen_t, port_guid, ib_net64_t);
FT(ib_cm_listen_t, lid, ib_net16_t);
FT(ib_cm_listen_t, pkey, ib_net16_t);
FT(ib_cm_listen_t, p_compare_buffer, uint8_t *);
FT(ib_cm_listen_t, compare_offset, uint8_t);
FT(ib_cm_listen_t, compare_length, uint8_t);
FT(ib_cm_listen_t, pfn_cm_req_cb, ib_pfn_cm_req_cb_t);
FT(ib_cm_listen_t, qp_type, ib_qp_type_t);
FT(ib_cm_listen_t, sidr_context, const void *);
SEQ(ib_cm_listen_t, svc_id, ca_guid);
SEQ(ib_cm_listen_t, ca_guid, port_guid);
SEQ(ib_cm_listen_t, port_guid, lid);
SEQ(ib_cm_listen_t, lid, pkey);
SEQ(ib_cm_listen_t, pkey, p_compare_buffer);
SEQ(ib_cm_listen_t, p_compare_buffer, compare_offset);
SEQ(ib_cm_listen_t, compare_offset, compare_length);
SEQ(ib_cm_listen_t, compare_length, pfn_cm_req_cb);
SEQ(ib_cm_listen_t, pfn_cm_req_cb, qp_type);
SEQ(ib_cm_listen_t, qp_type, sidr_context);

FT(ib_cm_req_t, svc_id, ib_net64_t);
FT(ib_cm_req_t, flags, ib_al_flags_t);
FT(ib_cm_req_t, max_cm_retries, uint8_t);
FT(ib_cm_req_t, p_primary_path, ib_path_rec_t *);
FT(ib_cm_req_t, pfn_cm_rep_cb, ib_pfn_cm_rep_cb_t);
FT(ib_cm_req_t, p_req_pdata, const uint8_t *);
FT(ib_cm_req_t, req_length, uint8_t);
FT(ib_cm_req_t, qp_type, ib_qp_type_t);
FT(ib_cm_req_t, h_qp, ib_qp_handle_t);
FT(ib_cm_req_t, p_compare_buffer, uint8_t *);
FT(ib_cm_req_t, compare_offset, uint8_t);
FT(ib_cm_req_t, compare_length, uint8_t);
FT(ib_cm_req_t, resp_res, uint8_t);
FT(ib_cm_req_t, init_depth, uint8_t);
FT(ib_cm_req_t, remote_resp_timeout, uint8_t);
FT(ib_cm_req_t, flow_ctrl, boolean_t);
FT(ib_cm_req_t, local_resp_timeout, uint8_t);
FT(ib_cm_req_t, rnr_nak_timeout, uint8_t);
FT(ib_cm_req_t, rnr_retry_cnt, uint8_t);
FT(ib_cm_req_t, retry_cnt, uint8_t);
FT(ib_cm_req_t, p_alt_path, ib_path_rec_t *);
FT(ib_cm_req_t, pfn_cm_req_cb, ib_pfn_cm_req_cb_t);
FT(ib_cm_req_t, pfn_cm_mra_cb, ib_pfn_cm_mra_cb_t);
FT(ib_cm_req_t, pfn_cm_rej_cb, ib_pfn_cm_rej_cb_t);
FT(ib_cm_req_t, h_al, ib_al_handle_t);
FT(ib_cm_req_t, sidr_context, const void *);
FT(ib_cm_req_t, timeout_ms, uint32_t);
FT(ib_cm_req_t, pkey, ib_net16_t);
SEQ(ib_cm_req_t, svc_id, flags);
SEQ(ib_cm_req_t, flags, max_cm_retries);
SEQ(ib_cm_req_t, max_cm_retries, p_primary_path);
SEQ(ib_cm_req_t, p_primary_path, pfn_cm_rep_cb);
SEQ(ib_cm_req_t, pfn_cm_rep_cb, p_req_pdata);
SEQ(ib_cm_req_t, p_req_pdata, req_length);
SEQ(ib_cm_req_t, req_length, qp_type);
SEQ(ib_cm_req_t, qp_type, h_qp);
SEQ(ib_cm_req_t, h_qp, p_compare_buffer);
SEQ(ib_cm_req_t, p_compare_buffer, compare_offset);
SEQ(ib_cm_req_t, compare_offset, compare_length);
SEQ(ib_cm_req_t, compare_length, resp_res);
SEQ(ib_cm_req_t, resp_res, init_depth);
SEQ(ib_cm_req_t, init_depth, remote_resp_timeout);
SEQ(ib_cm_req_t, remote_resp_timeout, flow_ctrl);
SEQ(ib_cm_req_t, flow_ctrl, local_resp_timeout);
SEQ(ib_cm_req_t, local_resp_timeout, rnr_nak_timeout);
SEQ(ib_cm_req_t, rnr_nak_timeout, rnr_retry_cnt);
SEQ(ib_cm_req_t, rnr_retry_cnt, retry_cnt);
SEQ(ib_cm_req_t, retry_cnt, p_alt_path);
SEQ(ib_cm_req_t, p_alt_path, pfn_cm_req_cb);
SEQ(ib_cm_req_t, pfn_cm_req_cb, pfn_cm_mra_cb);
SEQ(ib_cm_req_t, pfn_cm_mra_cb, pfn_cm_rej_cb);
SEQ(ib_cm_req_t, pfn_cm_rej_cb, h_al);
SEQ(ib_cm_req_t, h_al, sidr_context);
SEQ(ib_cm_req_t, sidr_context, timeout_ms);
SEQ(ib_cm_req_t, timeout_ms, pkey);
P64(ib_cm_req_t, p_primary_path);
P64(ib_cm_req_t, pfn_cm_rep_cb);
P64(ib_cm_req_t, p_req_pdata);
P64(ib_cm_req_t, h_qp);
P64(ib_cm_req_t, p_compare_buffer);
P64(ib_cm_req_t, p_alt_path);
P64(ib_cm_req_t, pfn_cm_req_cb);
P64(ib_cm_req_t, pfn_cm_mra_cb);
P64(ib_cm_req_t, pfn_cm_rej_cb);
P64(ib_cm_req_t, h_al);
P64(ib_cm_req_t, sidr_context);

FT(ib_cm_rep_t, flags, ib_al_flags_t);
FT(ib_cm_rep_t, p_rep_pdata, const uint8_t *);
FT(ib_cm_rep_t, rep_length, uint8_t);
FT(ib_cm_rep_t, h_qp, ib_qp_handle_t);
FT(ib_cm_rep_t, qp_type, ib_qp_type_t);
FT(ib_cm_rep_t, access_ctrl, ib_access_t);
FT(ib_cm_rep_t, sq_depth, uint32_t);
FT(ib_cm_rep_t, rq_depth, uint32_t);
FT(ib_cm_rep_t, init_depth, uint8_t);
FT(ib_cm_rep_t, target_ack_delay, uint8_t);
FT(ib_cm_rep_t, failover_accepted, ib_cm_failover_t);
FT(ib_cm_rep_t, flow_ctrl, boolean_t);
FT(ib_cm_rep_t, rnr_nak_timeout, uint8_t);
FT(ib_cm_rep_t, rnr_retry_cnt, uint8_t);
FT(ib_cm_rep_t, pfn_cm_rej_cb, ib_pfn_cm_rej_cb_t);
FT(ib_cm_rep_t, pfn_cm_mra_cb, ib_pfn_cm_mra_cb_t);
FT(ib_cm_rep_t, pfn_cm_rtu_cb, ib_pfn_cm_rtu_cb_t);
FT(ib_cm_rep_t, pfn_cm_lap_cb, ib_pfn_cm_lap_cb_t);
FT(ib_cm_rep_t, pfn_cm_dreq_cb, ib_pfn_cm_dreq_cb_t);
FT(ib_cm_rep_t, p_recv_wr, ib_recv_wr_t *);
FT(ib_cm_rep_t, pp_recv_failure, ib_recv_wr_t **);
FT(ib_cm_rep_t, status, ib_sidr_status_t);
FT(ib_cm_rep_t, class_info, ib_class_port_info_t);
SEQ(ib_cm_rep_t, flags, p_rep_pdata);
SEQ(ib_cm_rep_t, p_rep_pdata, rep_length);
SEQ(ib_cm_rep_t, rep_length, h_qp);
SEQ(ib_cm_rep_t, h_qp, qp_type);
SEQ(ib_cm_rep_t, qp_type, access_ctrl);
SEQ(ib_cm_rep_t, access_ctrl, sq_depth);
SEQ(ib_cm_rep_t, sq_depth, rq_depth);
SEQ(ib_cm_rep_t, rq_depth, init_depth);
SEQ(ib_cm_rep_t, init_depth, target_ack_delay);
SEQ(ib_cm_rep_t, target_ack_delay, failover_accepted);
SEQ(ib_cm_rep_t, failover_accepted, flow_ctrl);
SEQ(ib_cm_rep_t, flow_ctrl, rnr_nak_timeout);
SEQ(ib_cm_rep_t, rnr_nak_timeout, rnr_retry_cnt);
SEQ(ib_cm_rep_t, rnr_retry_cnt, pfn_cm_rej_cb);
SEQ(ib_cm_rep_t, pfn_cm_rej_cb, pfn_cm_mra_cb);
SEQ(ib_cm_rep_t, pfn_cm_mra_cb, pfn_cm_rtu_cb);
SEQ(ib_cm_rep_t, pfn_cm_rtu_cb, pfn_cm_lap_cb);
SEQ(ib_cm_rep_t, pfn_cm_lap_cb, pfn_cm_dreq_cb);
SEQ(ib_cm_rep_t, pfn_cm_dreq_cb, p_recv_wr);
SEQ(ib_cm_rep_t, p_recv_wr, pp_recv_failure);
SEQ(ib_cm_rep_t, pp_recv_failure, status);
SEQ(ib_cm_rep_t, status, class_info);
P64(ib_cm_rep_t, p_rep_pdata);
P64(ib_cm_rep_t, h_qp);
P64(ib_cm_rep_t, pfn_cm_rej_cb);
P64(ib_cm_rep_t, pfn_cm_mra_cb);
P64(ib_cm_rep_t, pfn_cm_rtu_cb);
P64(ib_cm_rep_t, pfn_cm_lap_cb);
P64(ib_cm_rep_t, pfn_cm_dreq_cb);
P64(ib_cm_rep_t, p_recv_wr);
P64(ib_cm_rep_t, pp_recv_failure);

FT(ib_cm_rtu_t, access_ctrl, ib_access_t);
FT(ib_cm_rtu_t, sq_depth, uint32_t);
FT(ib_cm_rtu_t, rq_depth, uint32_t);
FT(ib_cm_rtu_t, p_rtu_pdata, const uint8_t *);
FT(ib_cm_rtu_t, rtu_length, uint8_t);
FT(ib_cm_rtu_t, pfn_cm_apr_cb, ib_pfn_cm_apr_cb_t);
FT(ib_cm_rtu_t, pfn_cm_dreq_cb, ib_pfn_cm_dreq_cb_t);
SEQ(ib_cm_rtu_t, access_ctrl, sq_depth);
SEQ(ib_cm_rtu_t, sq_depth, rq_depth);
SEQ(ib_cm_rtu_t, rq_depth, p_rtu_pdata);
SEQ(ib_cm_rtu_t, p_rtu_pdata, rtu_length);
SEQ(ib_cm_rtu_t, rtu_length, pfn_cm_apr_cb);
SEQ(ib_cm_rtu_t, pfn_cm_apr_cb, pfn_cm_dreq_cb);

FT(ib_cm_rej_t, rej_status, ib_rej_status_t);
FT(ib_cm_rej_t, p_ari, ib_ari_t *);
FT(ib_cm_rej_t, ari_length, uint8_t);
FT(ib_cm_rej_t, p_rej_pdata, const uint8_t *);
FT(ib_cm_rej_t, rej_length, uint8_t);
SEQ(ib_cm_rej_t, rej_status, p_ari);
SEQ(ib_cm_rej_t, p_ari, ari_length);
SEQ(ib_cm_rej_t, ari_length, p_rej_pdata);
SEQ(ib_cm_rej_t, p_rej_pdata, rej_length);

FT(ib_cm_mra_t, svc_timeout, uint8_t);
FT(ib_cm_mra_t, p_mra_pdata, const uint8_t *);
FT(ib_cm_mra_t, mra_length, uint8_t);
SEQ(ib_cm_mra_t, svc_timeout, p_mra_pdata);
SEQ(ib_cm_mra_t, p_mra_pdata, mra_length);
P64(ib_cm_mra_t, p_mra_pdata);

FT(ib_cm_lap_t, flags, ib_al_flags_t);
FT(ib_cm_lap_t, p_lap_pdata, const uint8_t *);
FT(ib_cm_lap_t, lap_length, uint8_t);
FT(ib_cm_lap_t, qp_type, ib_qp_type_t);
FT(ib_cm_lap_t, h_qp, ib_qp_handle_t);
FT(ib_cm_lap_t, remote_resp_timeout, uint8_t);
FT(ib_cm_lap_t, p_alt_path, ib_path_rec_t *);
FT(ib_cm_lap_t, pfn_cm_apr_cb, ib_pfn_cm_apr_cb_t);
SEQ(ib_cm_lap_t, flags, p_lap_pdata);
SEQ(ib_cm_lap_t, p_lap_pdata, lap_length);
SEQ(ib_cm_lap_t, lap_length, qp_type);
SEQ(ib_cm_lap_t, qp_type, h_qp);
SEQ(ib_cm_lap_t, h_qp, remote_resp_timeout);
SEQ(ib_cm_lap_t, remote_resp_timeout, p_alt_path);
SEQ(ib_cm_lap_t, p_alt_path, pfn_cm_apr_cb);
P64(ib_cm_lap_t, p_lap_pdata);
P64(ib_cm_lap_t, h_qp);
P64(ib_cm_lap_t, p_alt_path);

FT(ib_cm_apr_t, p_apr_pdata, const uint8_t *);
FT(ib_cm_apr_t, apr_length, uint8_t);
FT(ib_cm_apr_t, qp_type, ib_qp_type_t);
FT(ib_cm_apr_t, h_qp, ib_qp_handle_t);
FT(ib_cm_apr_t, apr_status, ib_apr_status_t);
FT(ib_cm_apr_t, info_length, uint8_t);
FT(ib_cm_apr_t, p_info, const ib_apr_info_t *);
SEQ(ib_cm_apr_t, p_apr_pdata, apr_length);
SEQ(ib_cm_apr_t, apr_length, qp_type);
SEQ(ib_cm_apr_t, qp_type, h_qp);
SEQ(ib_cm_apr_t, h_qp, apr_status);
SEQ(ib_cm_apr_t, apr_status, info_length);
SEQ(ib_cm_apr_t, info_length, p_info);
P64(ib_cm_apr_t, p_apr_pdata);
P64(ib_cm_apr_t, h_qp);
P64(ib_cm_apr_t, p_info);

FT(ib_cm_dreq_t, flags, ib_al_flags_t);
FT(ib_cm_dreq_t, p_dreq_pdata, uint8_t *);
FT(ib_cm_dreq_t, dreq_length, uint8_t);
FT(ib_cm_dreq_t, qp_type, ib_qp_type_t);
FT(ib_cm_dreq_t, h_qp, ib_qp_handle_t);
FT(ib_cm_dreq_t, pfn_cm_drep_cb, ib_pfn_cm_drep_cb_t);
SEQ(ib_cm_dreq_t, flags, p_dreq_pdata);
SEQ(ib_cm_dreq_t, p_dreq_pdata, dreq_length);
SEQ(ib_cm_dreq_t, dreq_length, qp_type);
SEQ(ib_cm_dreq_t, qp_type, h_qp);
SEQ(ib_cm_dreq_t, h_qp, pfn_cm_drep_cb);

FT(ib_cm_drep_t, p_drep_pdata, uint8_t *);
FT(ib_cm_drep_t, drep_length, uint8_t);
SEQ(ib_cm_drep_t, p_drep_pdata, drep_length);

FT(ib_cep_listen_t, svc_id, net64_t);
FT(ib_cep_listen_t, port_guid, net64_t);
FT(ib_cep_listen_t, p_cmp_buf, uint8_t *);
FT(ib_cep_listen_t, cmp_len, uint8_t);
FT(ib_cep_listen_t, cmp_offset, uint8_t);
SEQ(ib_cep_listen_t, svc_id, port_guid);
SEQ(ib_cep_listen_t, port_guid, p_cmp_buf);
SEQ(ib_cep_listen_t, p_cmp_buf, cmp_len);
SEQ(ib_cep_listen_t, cmp_len, cmp_offset);
P64(ib_cep_listen_t, p_cmp_buf);

/* --- MAD services ------------------------------------------------------------ */
FT(ib_dgrm_info_t, port_guid, ib_net64_t);
FT(ib_dgrm_info_t, qkey, uint32_t);
FT(ib_dgrm_info_t, pkey_index, uint16_t);
SEQ(ib_dgrm_info_t, port_guid, qkey);
SEQ(ib_dgrm_info_t, qkey, pkey_index);

FT(ib_mad_svc_t, mad_svc_context, void *);
FT(ib_mad_svc_t, pfn_mad_send_cb, ib_pfn_mad_comp_cb_t);
FT(ib_mad_svc_t, pfn_mad_recv_cb, ib_pfn_mad_comp_cb_t);
FT(ib_mad_svc_t, support_unsol, boolean_t);
FT(ib_mad_svc_t, mgmt_class, uint8_t);
FT(ib_mad_svc_t, mgmt_version, uint8_t);
FT(ib_mad_svc_t, method_array, boolean_t[IB_MAX_METHODS]);
FT(ib_mad_svc_t, svc_type, ib_mad_svc_type_t);
SEQ(ib_mad_svc_t, mad_svc_context, pfn_mad_send_cb);
SEQ(ib_mad_svc_t, pfn_mad_send_cb, pfn_mad_recv_cb);
SEQ(ib_mad_svc_t, pfn_mad_recv_cb, support_unsol);
SEQ(ib_mad_svc_t, support_unsol, mgmt_class);
SEQ(ib_mad_svc_t, mgmt_class, mgmt_version);
SEQ(ib_mad_svc_t, mgmt_version, method_array);
SEQ(ib_mad_svc_t, method_array, svc_type);
P64(ib_mad_svc_t, mad_svc_context);
P64(ib_mad_svc_t, pfn_mad_send_cb);
P64(ib_mad_svc_t, pfn_mad_recv_cb);

/* --- Service registration ------------------------------------------------------ */
FT(ib_reg_svc_rec_t, svc_context, const void *);
FT(ib_reg_svc_rec_t, h_reg_svc, ib_reg_svc_handle_t);
FT(ib_reg_svc_rec_t, req_status, ib_api_status_t);
FT(ib_reg_svc_rec_t, resp_status, ib_net16_t);
FT(ib_reg_svc_rec_t, svc_rec, ib_service_record_t);
SEQ(ib_reg_svc_rec_t, svc_context, h_reg_svc);
SEQ(ib_reg_svc_rec_t, h_reg_svc, req_status);
SEQ(ib_reg_svc_rec_t, req_status, resp_status);
SEQ(ib_reg_svc_rec_t, resp_status, svc_rec);

FT(ib_reg_svc_req_t, svc_rec, ib_service_record_t);
FT(ib_reg_svc_req_t, port_guid, ib_net64_t);
FT(ib_reg_svc_req_t, timeout_ms, uint32_t);
FT(ib_reg_svc_req_t, retry_cnt, uint32_t);
FT(ib_reg_svc_req_t, flags, ib_al_flags_t);
FT(ib_reg_svc_req_t, svc_context, const void *);
FT(ib_reg_svc_req_t, svc_data_mask, ib_net64_t);
FT(ib_reg_svc_req_t, pfn_reg_svc_cb, ib_pfn_reg_svc_cb_t);
SEQ(ib_reg_svc_req_t, svc_rec, port_guid);
SEQ(ib_reg_svc_req_t, port_guid, timeout_ms);
SEQ(ib_reg_svc_req_t, timeout_ms, retry_cnt);
SEQ(ib_reg_svc_req_t, retry_cnt, flags);
SEQ(ib_reg_svc_req_t, flags, svc_context);
SEQ(ib_reg_svc_req_t, svc_context, svc_data_mask);
SEQ(ib_reg_svc_req_t, svc_data_mask, pfn_reg_svc_cb);

/* --- Queries --------------------------------------------------------------------- */
FT(ib_user_query_t, method, uint8_t);
FT(ib_user_query_t, attr_id, ib_net16_t);
FT(ib_user_query_t, attr_size, uint32_t);
FT(ib_user_query_t, comp_mask, ib_net64_t);
FT(ib_user_query_t, p_attr, void *);
SEQ(ib_user_query_t, method, attr_id);
SEQ(ib_user_query_t, attr_id, attr_size);
SEQ(ib_user_query_t, attr_size, comp_mask);
SEQ(ib_user_query_t, comp_mask, p_attr);
P64(ib_user_query_t, p_attr);

FT(ib_gid_pair_t, src_gid, ib_gid_t);
FT(ib_gid_pair_t, dest_gid, ib_gid_t);
FT(ib_lid_pair_t, src_lid, ib_net16_t);
FT(ib_lid_pair_t, dest_lid, ib_net16_t);
FT(ib_guid_pair_t, src_guid, ib_net64_t);
FT(ib_guid_pair_t, dest_guid, ib_net64_t);

FT(ib_query_rec_t, query_context, const void *);
FT(ib_query_rec_t, status, ib_api_status_t);
FT(ib_query_rec_t, query_type, ib_query_type_t);
FT(ib_query_rec_t, result_cnt, uint32_t);
FT(ib_query_rec_t, p_result_mad, ib_mad_element_t *);
SEQ(ib_query_rec_t, query_context, status);
SEQ(ib_query_rec_t, status, query_type);
SEQ(ib_query_rec_t, query_type, result_cnt);
SEQ(ib_query_rec_t, result_cnt, p_result_mad);

FT(ib_query_req_t, query_type, ib_query_type_t);
FT(ib_query_req_t, p_query_input, const void *);
FT(ib_query_req_t, port_guid, ib_net64_t);
FT(ib_query_req_t, timeout_ms, uint32_t);
FT(ib_query_req_t, retry_cnt, uint32_t);
FT(ib_query_req_t, flags, ib_al_flags_t);
FT(ib_query_req_t, query_context, const void *);
FT(ib_query_req_t, pfn_query_cb, ib_pfn_query_cb_t);
SEQ(ib_query_req_t, query_type, p_query_input);
SEQ(ib_query_req_t, p_query_input, port_guid);
SEQ(ib_query_req_t, port_guid, timeout_ms);
SEQ(ib_query_req_t, timeout_ms, retry_cnt);
SEQ(ib_query_req_t, retry_cnt, flags);
SEQ(ib_query_req_t, flags, query_context);
SEQ(ib_query_req_t, query_context, pfn_query_cb);

/* --- Plug and play ----------------------------------------------------------------- */
FT(ib_pnp_rec_t, pnp_event, ib_pnp_event_t);
FT(ib_pnp_rec_t, h_pnp, struct _al_pnp *);
FT(ib_pnp_rec_t, h_ioc_event, struct _al_pnp *);
FT(ib_pnp_rec_t, pnp_context, void *);
FT(ib_pnp_rec_t, context, void *);
FT(ib_pnp_rec_t, guid, ib_net64_t);
FT(ib_pnp_rec_t, ca_guid, ib_net64_t);
SEQ(ib_pnp_rec_t, pnp_event, h_pnp);
SEQ(ib_pnp_rec_t, h_pnp, h_ioc_event);
SEQ(ib_pnp_rec_t, h_ioc_event, pnp_context);
SEQ(ib_pnp_rec_t, pnp_context, context);
SEQ(ib_pnp_rec_t, context, guid);
/* guid and ca_guid form one 16-byte key (upstream keys a map with them). */
_Static_assert(offsetof(ib_pnp_rec_t, ca_guid) == offsetof(ib_pnp_rec_t, guid) + 8,
	       "ib_pnp_rec_t: ca_guid right after guid");
P64(ib_pnp_rec_t, h_pnp);
P64(ib_pnp_rec_t, h_ioc_event);
P64(ib_pnp_rec_t, pnp_context);
P64(ib_pnp_rec_t, context);

FT(ib_pnp_ca_rec_t, pnp_rec, ib_pnp_rec_t);
FT(ib_pnp_ca_rec_t, p_ca_attr, ib_ca_attr_t *);
_Static_assert(offsetof(ib_pnp_ca_rec_t, pnp_rec) == 0, "CA record starts with pnp_rec");
SEQ(ib_pnp_ca_rec_t, pnp_rec, p_ca_attr);
P64(ib_pnp_ca_rec_t, p_ca_attr);

FT(ib_pnp_port_rec_t, pnp_rec, ib_pnp_rec_t);
FT(ib_pnp_port_rec_t, p_ca_attr, ib_ca_attr_t *);
FT(ib_pnp_port_rec_t, p_port_attr, ib_port_attr_t *);
_Static_assert(offsetof(ib_pnp_port_rec_t, pnp_rec) == 0, "port record starts with pnp_rec");
SEQ(ib_pnp_port_rec_t, pnp_rec, p_ca_attr);
SEQ(ib_pnp_port_rec_t, p_ca_attr, p_port_attr);
P64(ib_pnp_port_rec_t, p_ca_attr);
P64(ib_pnp_port_rec_t, p_port_attr);

FT(ib_pnp_iou_rec_t, pnp_rec, ib_pnp_rec_t);
FT(ib_pnp_iou_rec_t, guid, net64_t);
FT(ib_pnp_iou_rec_t, ca_guid, net64_t);
FT(ib_pnp_iou_rec_t, chassis_guid, net64_t);
FT(ib_pnp_iou_rec_t, slot, uint8_t);
FT(ib_pnp_iou_rec_t, vend_id, net32_t);
FT(ib_pnp_iou_rec_t, dev_id, net16_t);
FT(ib_pnp_iou_rec_t, revision, net32_t);
FT(ib_pnp_iou_rec_t, desc, char[IB_NODE_DESCRIPTION_SIZE + 1]);
_Static_assert(offsetof(ib_pnp_iou_rec_t, pnp_rec) == 0, "IOU record starts with pnp_rec");
SEQ(ib_pnp_iou_rec_t, pnp_rec, guid);
SEQ(ib_pnp_iou_rec_t, guid, ca_guid);
SEQ(ib_pnp_iou_rec_t, ca_guid, chassis_guid);
SEQ(ib_pnp_iou_rec_t, chassis_guid, slot);
SEQ(ib_pnp_iou_rec_t, slot, vend_id);
SEQ(ib_pnp_iou_rec_t, vend_id, dev_id);
SEQ(ib_pnp_iou_rec_t, dev_id, revision);
SEQ(ib_pnp_iou_rec_t, revision, desc);

FT(ib_pnp_ioc_rec_t, pnp_rec, ib_pnp_rec_t);
FT(ib_pnp_ioc_rec_t, ca_guid, net64_t);
FT(ib_pnp_ioc_rec_t, info, ib_ioc_info_t);
FT(ib_pnp_ioc_rec_t, svc_entry_array, ib_svc_entry_t[1]);
_Static_assert(offsetof(ib_pnp_ioc_rec_t, pnp_rec) == 0, "IOC record starts with pnp_rec");
SEQ(ib_pnp_ioc_rec_t, pnp_rec, ca_guid);
SEQ(ib_pnp_ioc_rec_t, ca_guid, info);
SEQ(ib_pnp_ioc_rec_t, info, svc_entry_array);

FT(ib_pnp_ioc_path_rec_t, pnp_rec, ib_pnp_rec_t);
FT(ib_pnp_ioc_path_rec_t, ca_guid, net64_t);
FT(ib_pnp_ioc_path_rec_t, port_guid, net64_t);
FT(ib_pnp_ioc_path_rec_t, path, ib_path_rec_t);
_Static_assert(offsetof(ib_pnp_ioc_path_rec_t, pnp_rec) == 0, "path record starts with pnp_rec");
SEQ(ib_pnp_ioc_path_rec_t, pnp_rec, ca_guid);
SEQ(ib_pnp_ioc_path_rec_t, ca_guid, port_guid);
SEQ(ib_pnp_ioc_path_rec_t, port_guid, path);

FT(ib_pnp_req_t, pnp_class, ib_pnp_class_t);
FT(ib_pnp_req_t, pnp_context, const void *);
FT(ib_pnp_req_t, pfn_pnp_cb, ib_pfn_pnp_cb_t);
SEQ(ib_pnp_req_t, pnp_class, pnp_context);
SEQ(ib_pnp_req_t, pnp_context, pfn_pnp_cb);

/* --- Subscriptions ------------------------------------------------------------------ */
FT(ib_sub_rec_t, sub_context, const void *);
FT(ib_sub_rec_t, status, ib_api_status_t);
FT(ib_sub_rec_t, h_sub, ib_sub_handle_t);
SEQ(ib_sub_rec_t, sub_context, status);
SEQ(ib_sub_rec_t, status, h_sub);

FT(ib_report_rec_t, report_context, const void *);
FT(ib_report_rec_t, p_notice, ib_mad_notice_attr_t *);
SEQ(ib_report_rec_t, report_context, p_notice);

FT(ib_sub_req_t, p_class_mgr_name, ib_svc_name_t *);
FT(ib_sub_req_t, p_inform_info, ib_inform_info_t *);
FT(ib_sub_req_t, port_guid, ib_net64_t);
FT(ib_sub_req_t, timeout_ms, uint32_t);
FT(ib_sub_req_t, retry_cnt, uint32_t);
FT(ib_sub_req_t, flags, ib_al_flags_t);
FT(ib_sub_req_t, sub_context, const void *);
FT(ib_sub_req_t, pfn_sub_cb, ib_pfn_sub_cb_t);
FT(ib_sub_req_t, report_context, const void *);
FT(ib_sub_req_t, pfn_report_cb, ib_pfn_report_cb_t);
SEQ(ib_sub_req_t, p_class_mgr_name, p_inform_info);
SEQ(ib_sub_req_t, p_inform_info, port_guid);
SEQ(ib_sub_req_t, port_guid, timeout_ms);
SEQ(ib_sub_req_t, timeout_ms, retry_cnt);
SEQ(ib_sub_req_t, retry_cnt, flags);
SEQ(ib_sub_req_t, flags, sub_context);
SEQ(ib_sub_req_t, sub_context, pfn_sub_cb);
SEQ(ib_sub_req_t, pfn_sub_cb, report_context);
SEQ(ib_sub_req_t, report_context, pfn_report_cb);

/* --- Callback types ------------------------------------------------------------------- */
_Static_assert(__builtin_types_compatible_p(ib_pfn_comp_cb_t,
		void (*)(const ib_cq_handle_t, void *)), "ib_pfn_comp_cb_t");
_Static_assert(__builtin_types_compatible_p(ib_pfn_destroy_cb_t, void (*)(void *)),
	       "ib_pfn_destroy_cb_t");
_Static_assert(__builtin_types_compatible_p(ib_pfn_event_cb_t, void (*)(ib_async_event_rec_t *)),
	       "ib_pfn_event_cb_t");
_Static_assert(__builtin_types_compatible_p(ib_pfn_mcast_cb_t, void (*)(ib_mcast_rec_t *)),
	       "ib_pfn_mcast_cb_t");
_Static_assert(__builtin_types_compatible_p(ib_pfn_cm_req_cb_t, void (*)(ib_cm_req_rec_t *)),
	       "ib_pfn_cm_req_cb_t");
_Static_assert(__builtin_types_compatible_p(ib_pfn_cm_rep_cb_t, void (*)(ib_cm_rep_rec_t *)),
	       "ib_pfn_cm_rep_cb_t");
_Static_assert(__builtin_types_compatible_p(ib_pfn_cm_rtu_cb_t, void (*)(ib_cm_rtu_rec_t *)),
	       "ib_pfn_cm_rtu_cb_t");
_Static_assert(__builtin_types_compatible_p(ib_pfn_cm_rej_cb_t, void (*)(ib_cm_rej_rec_t *)),
	       "ib_pfn_cm_rej_cb_t");
_Static_assert(__builtin_types_compatible_p(ib_pfn_cm_mra_cb_t, void (*)(ib_cm_mra_rec_t *)),
	       "ib_pfn_cm_mra_cb_t");
_Static_assert(__builtin_types_compatible_p(ib_pfn_cm_lap_cb_t, void (*)(ib_cm_lap_rec_t *)),
	       "ib_pfn_cm_lap_cb_t");
_Static_assert(__builtin_types_compatible_p(ib_pfn_cm_apr_cb_t, void (*)(ib_cm_apr_rec_t *)),
	       "ib_pfn_cm_apr_cb_t");
_Static_assert(__builtin_types_compatible_p(ib_pfn_cm_dreq_cb_t, void (*)(ib_cm_dreq_rec_t *)),
	       "ib_pfn_cm_dreq_cb_t");
_Static_assert(__builtin_types_compatible_p(ib_pfn_cm_drep_cb_t, void (*)(ib_cm_drep_rec_t *)),
	       "ib_pfn_cm_drep_cb_t");
_Static_assert(__builtin_types_compatible_p(ib_pfn_mad_comp_cb_t,
		void (*)(const ib_mad_svc_handle_t, void *, ib_mad_element_t *)),
	       "ib_pfn_mad_comp_cb_t");
_Static_assert(__builtin_types_compatible_p(ib_pfn_reg_svc_cb_t, void (*)(ib_reg_svc_rec_t *)),
	       "ib_pfn_reg_svc_cb_t");
_Static_assert(__builtin_types_compatible_p(ib_pfn_query_cb_t, void (*)(ib_query_rec_t *)),
	       "ib_pfn_query_cb_t");
_Static_assert(__builtin_types_compatible_p(ib_pfn_pnp_cb_t, ib_api_status_t (*)(ib_pnp_rec_t *)),
	       "ib_pfn_pnp_cb_t");
_Static_assert(__builtin_types_compatible_p(ib_pfn_sub_cb_t, void (*)(ib_sub_rec_t *)),
	       "ib_pfn_sub_cb_t");
_Static_assert(__builtin_types_compatible_p(ib_pfn_report_cb_t, void (*)(ib_report_rec_t *)),
	       "ib_pfn_report_cb_t");

/* --- Constants and enumerations, with upstream's values -------------------------------- */
_Static_assert(IB_FLAGS_SYNC == 0x00000001, "IB_FLAGS_SYNC");
_Static_assert(IB_FAILOVER_ACCEPT_SUCCESS == 0 && IB_FAILOVER_ACCEPT_UNSUPPORTED == 1 &&
	       IB_FAILOVER_ACCEPT_ERROR == 2, "IB_FAILOVER_ACCEPT_*");
_Static_assert(IB_ALL_CAS == 0 && IB_ALL_PORTS == 0 && IB_ALL_LIDS == 0 && IB_ALL_PKEYS == 0,
	       "listen wildcards");
_Static_assert(IB_ANY_INDEX == -1 && IB_DEV_PORT_ACTIVE == 0x1, "ib_get_guid constants");
_Static_assert(CL_NTOH64(ATS_SERVICE_ID) == 0x10000CE100415453ULL, "ATS service ID, network order");
_Static_assert(ATS_IPV4_OFFSET == 12 && sizeof(ATS_NAME) == 33, "ATS name and offset");
_Static_assert(IB_MAD_SVC_DEFAULT == 0 && IB_MAD_SVC_RMPP == 1 && IB_MAD_SVC_RAW == 2,
	       "ib_mad_svc_type_t");
_Static_assert(IB_QUERY_USER_DEFINED == 0 && IB_QUERY_ALL_SVC_RECS == 1 &&
	       IB_QUERY_SVC_REC_BY_NAME == 2 && IB_QUERY_SVC_REC_BY_ID == 3 &&
	       IB_QUERY_CLASS_PORT_INFO == 4 && IB_QUERY_NODE_REC_BY_NODE_GUID == 5 &&
	       IB_QUERY_PORT_REC_BY_LID == 6 && IB_QUERY_VLARB_BY_LID_PORT_BLOCK == 7 &&
	       IB_QUERY_SLVL_BY_LID_AND_PORTS == 8 && IB_QUERY_PATH_REC_BY_PORT_GUIDS == 9 &&
	       IB_QUERY_PATH_REC_BY_GIDS == 10 && IB_QUERY_PATH_REC_BY_LIDS == 11,
	       "ib_query_type_t");

_Static_assert(IB_PNP_CA == 0x1 && IB_PNP_PORT == 0x2 && IB_PNP_IOU == 0x4 && IB_PNP_IOC == 0x8,
	       "PnP classes");
_Static_assert(IB_PNP_FLAG_REG_SYNC == 0x40000000 && IB_PNP_FLAG_REG_COMPLETE == 0x80000000u &&
	       IB_PNP_FLAG_MASK == 0xF0000000u && IB_PNP_CLASS_MASK == 0xFF, "PnP flags");
_Static_assert(IB_PNP_EVENT_PATH == 0x800 && IB_PNP_EVENT_ADD == 0x1000 &&
	       IB_PNP_EVENT_REMOVE == 0x2000 && IB_PNP_EVENT_CHANGE == 0x4000 &&
	       IB_PNP_EVENT_INIT == 0x8000 && IB_PNP_EVENT_ARMED == 0x10000 &&
	       IB_PNP_EVENT_ACTIVE == 0x20000 && IB_PNP_EVENT_DOWN == 0x40000 &&
	       IB_PNP_EVENT_PKEY == 0x80000 && IB_PNP_EVENT_SM == 0x100000 &&
	       IB_PNP_EVENT_GID == 0x200000 && IB_PNP_EVENT_LID == 0x400000 &&
	       IB_PNP_EVENT_SUBNET == 0x800000, "PnP event bits");
_Static_assert(IB_PNP_CA_ADD == 0x1001 && IB_PNP_CA_REMOVE == 0x2001, "CA events");
_Static_assert(IB_PNP_PORT_ADD == 0x1002 && IB_PNP_PORT_REMOVE == 0x2002 &&
	       IB_PNP_PORT_INIT == 0x8002 && IB_PNP_PORT_ARMED == 0x10002 &&
	       IB_PNP_PORT_ACTIVE == 0x20002 && IB_PNP_PORT_DOWN == 0x40002 &&
	       IB_PNP_PKEY_CHANGE == 0x80002 && IB_PNP_SM_CHANGE == 0x100002 &&
	       IB_PNP_GID_CHANGE == 0x200002 && IB_PNP_LID_CHANGE == 0x400002 &&
	       IB_PNP_SUBNET_TIMEOUT_CHANGE == 0x800002, "port events");
_Static_assert(IB_PNP_IOU_ADD == 0x1004 && IB_PNP_IOU_REMOVE == 0x2004 &&
	       IB_PNP_IOC_ADD == 0x1008 && IB_PNP_IOC_REMOVE == 0x2008 &&
	       IB_PNP_IOC_PATH_ADD == 0x1808 && IB_PNP_IOC_PATH_REMOVE == 0x2808,
	       "IOU and IOC events");
_Static_assert(IB_PNP_REG_COMPLETE == 0x80000000u, "IB_PNP_REG_COMPLETE");

/* ib_al.h leaves the packing state as it found it. */
struct after_header {
	char c;
	uint32_t u;
};
_Static_assert(offsetof(struct after_header, u) == 4, "packing restored");

int main(void)
{
	return 0;
}
