/*
 * ibal tests: compile-time proof of the wire layouts of ib_types_base.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Sizes and field offsets are those the InfiniBand specification fixes
 * (volume 1: 13.4.3 MAD header, 13.6.2.1 RMPP header, 14.2.1.2 SMP,
 * 15.2.1 SA MAD, 8.3 GRH, 4.1.1 GID). Compiled as C11; the program only
 * has to build.
 */
#include <stddef.h>
#include <iba/ib_types.h>

#define OFF(type, field, off) \
	_Static_assert(offsetof(type, field) == (off), #type "." #field " at " #off)
#define SIZE(type, size) \
	_Static_assert(sizeof(type) == (size), "sizeof(" #type ") == " #size)

/* Network-order integer types. */
SIZE(ib_net16_t, 2);
SIZE(ib_net32_t, 4);
SIZE(ib_net64_t, 8);
SIZE(ib_gid_prefix_t, 8);

/* GID (4.1.1): 16 bytes, prefix then interface ID; multicast header. */
SIZE(ib_gid_t, 16);
_Static_assert(_Alignof(ib_gid_t) == 1, "ib_gid_t is byte-packed");
OFF(ib_gid_t, raw, 0);
OFF(ib_gid_t, unicast.prefix, 0);
OFF(ib_gid_t, unicast.interface_id, 8);
OFF(ib_gid_t, multicast.header, 0);
OFF(ib_gid_t, multicast.raw_group_id, 2);
OFF(ib_gid_t, ip_multicast.header, 0);
OFF(ib_gid_t, ip_multicast.signature, 2);
OFF(ib_gid_t, ip_multicast.p_key, 4);
OFF(ib_gid_t, ip_multicast.group_id, 6);

SIZE(ib_field32_t, 4);
OFF(ib_field32_t, val, 0);
OFF(ib_field32_t, bytes, 0);

/* Common MAD header (13.4.3): 24 bytes. */
SIZE(ib_mad_t, 24);
_Static_assert(_Alignof(ib_mad_t) == 1, "ib_mad_t is byte-packed");
OFF(ib_mad_t, base_ver, 0);
OFF(ib_mad_t, mgmt_class, 1);
OFF(ib_mad_t, class_ver, 2);
OFF(ib_mad_t, method, 3);
OFF(ib_mad_t, status, 4);
OFF(ib_mad_t, class_spec, 6);
OFF(ib_mad_t, trans_id, 8);
OFF(ib_mad_t, attr_id, 16);
OFF(ib_mad_t, resv, 18);
OFF(ib_mad_t, attr_mod, 20);

/* RMPP header (13.6.2.1): bytes 24..35. */
SIZE(ib_rmpp_mad_t, 36);
SIZE(ib_rmpp_mad_t, MAD_RMPP_HDR_SIZE);
OFF(ib_rmpp_mad_t, common_hdr, 0);
OFF(ib_rmpp_mad_t, rmpp_version, 24);
OFF(ib_rmpp_mad_t, rmpp_type, 25);
OFF(ib_rmpp_mad_t, rmpp_flags, 26);
OFF(ib_rmpp_mad_t, rmpp_status, 27);
OFF(ib_rmpp_mad_t, seg_num, 28);
OFF(ib_rmpp_mad_t, paylen_newwin, 32);
_Static_assert(MAD_RMPP_DATA_SIZE == 220, "RMPP data per segment");

/* Directed-route SMP (14.2.1.2): 256 bytes. */
SIZE(ib_smp_t, 256);
SIZE(ib_smp_t, MAD_BLOCK_SIZE);
_Static_assert(_Alignof(ib_smp_t) == 1, "ib_smp_t is byte-packed");
OFF(ib_smp_t, base_ver, 0);
OFF(ib_smp_t, mgmt_class, 1);
OFF(ib_smp_t, class_ver, 2);
OFF(ib_smp_t, method, 3);
OFF(ib_smp_t, status, 4);
OFF(ib_smp_t, hop_ptr, 6);
OFF(ib_smp_t, hop_count, 7);
OFF(ib_smp_t, trans_id, 8);
OFF(ib_smp_t, attr_id, 16);
OFF(ib_smp_t, resv, 18);
OFF(ib_smp_t, attr_mod, 20);
OFF(ib_smp_t, m_key, 24);
OFF(ib_smp_t, dr_slid, 32);
OFF(ib_smp_t, dr_dlid, 34);
OFF(ib_smp_t, resv1, 36);
OFF(ib_smp_t, data, 64);
OFF(ib_smp_t, initial_path, 128);
OFF(ib_smp_t, return_path, 192);
_Static_assert(sizeof(((ib_smp_t *)0)->data) == IB_SMP_DATA_SIZE, "SMP data");
_Static_assert(sizeof(((ib_smp_t *)0)->initial_path) == IB_SUBNET_PATH_HOPS_MAX,
	       "SMP initial path");

/* SA MAD (15.2.1): 56-byte header, 200 bytes of data. */
SIZE(ib_sa_mad_t, 256);
_Static_assert(IB_SA_MAD_HDR_SIZE == 56, "SA MAD header size");
_Static_assert(IB_SA_DATA_SIZE == 200, "SA MAD data size");
OFF(ib_sa_mad_t, base_ver, 0);
OFF(ib_sa_mad_t, mgmt_class, 1);
OFF(ib_sa_mad_t, class_ver, 2);
OFF(ib_sa_mad_t, method, 3);
OFF(ib_sa_mad_t, status, 4);
OFF(ib_sa_mad_t, resv, 6);
OFF(ib_sa_mad_t, trans_id, 8);
OFF(ib_sa_mad_t, attr_id, 16);
OFF(ib_sa_mad_t, resv1, 18);
OFF(ib_sa_mad_t, attr_mod, 20);
OFF(ib_sa_mad_t, rmpp_version, 24);
OFF(ib_sa_mad_t, rmpp_type, 25);
OFF(ib_sa_mad_t, rmpp_flags, 26);
OFF(ib_sa_mad_t, rmpp_status, 27);
OFF(ib_sa_mad_t, seg_num, 28);
OFF(ib_sa_mad_t, paylen_newwin, 32);
OFF(ib_sa_mad_t, sm_key, 36);
OFF(ib_sa_mad_t, attr_offset, 44);
OFF(ib_sa_mad_t, resv3, 46);
OFF(ib_sa_mad_t, comp_mask, 48);
OFF(ib_sa_mad_t, data, 56);

/* GMP (16.1.1): common header, 40-byte class header, data at 64. As
 * upstream, data is 200 bytes, so the structure is 264 bytes. */
OFF(ib_gmp_t, base_ver, 0);
OFF(ib_gmp_t, mgmt_class, 1);
OFF(ib_gmp_t, class_ver, 2);
OFF(ib_gmp_t, method, 3);
OFF(ib_gmp_t, status, 4);
OFF(ib_gmp_t, resv, 6);
OFF(ib_gmp_t, trans_id, 8);
OFF(ib_gmp_t, attr_id, 16);
OFF(ib_gmp_t, resv1, 18);
OFF(ib_gmp_t, attr_mod, 20);
OFF(ib_gmp_t, resv2, 24);
OFF(ib_gmp_t, data, 64);
SIZE(ib_gmp_t, 64 + IB_GMP_DATA_SIZE);
_Static_assert(IB_GMP_MAD_HDR_SIZE == 64, "GMP header size");

/* GRH (8.3): 40 bytes. */
SIZE(ib_grh_t, 40);
_Static_assert(_Alignof(ib_grh_t) == 1, "ib_grh_t is byte-packed");
OFF(ib_grh_t, ver_class_flow, 0);
OFF(ib_grh_t, resv1, 4);
OFF(ib_grh_t, resv2, 6);
OFF(ib_grh_t, hop_limit, 7);
OFF(ib_grh_t, src_gid, 8);
OFF(ib_grh_t, dest_gid, 24);
_Static_assert(MAD_BLOCK_GRH_SIZE == sizeof(ib_grh_t) + MAD_BLOCK_SIZE,
	       "MAD with GRH");

/* Constants usable in constant expressions, with their wire values. */
_Static_assert(CL_NTOH16(IB_MAD_ATTR_PORT_INFO) == 0x0015, "PortInfo ID");
_Static_assert(CL_NTOH32(IB_QP1_WELL_KNOWN_Q_KEY) == 0x80010000u, "QP1 Q_Key");
_Static_assert(CL_NTOH64(IB_DEFAULT_SUBNET_PREFIX) == IB_DEFAULT_SUBNET_PREFIX_HO,
	       "default prefix");
_Static_assert(CL_NTOH16(IB_LID_MCAST_START) == 0xC000, "multicast LIDs");

/* The packing state is restored after the header: natural alignment again. */
struct after_header {
	char c;
	uint32_t u;
};
_Static_assert(offsetof(struct after_header, u) == 4, "packing restored");

int main(void)
{
	return 0;
}
