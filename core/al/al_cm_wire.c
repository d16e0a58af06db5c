/*
 * ibal access layer: packing and unpacking the CM messages from tables of their fields.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Every message is a list of fields (an X-macro per message): the member
 * of the host structure, the byte offset in the 232 bytes after the MAD
 * header, the bit offset in that byte counted from its most significant
 * bit (the specification's numbering), and the width in bits. One pair of
 * routines (field_get/field_put) moves any integer field; GIDs and byte
 * arrays (byte aligned, whole bytes) are copied. The offsets are IBA
 * volume 1, chapter 12 (tables "REQ Message Contents" .. "SIDR_REP Message
 * Contents"); bytes and bits not in a table are reserved and stay zero.
 * Each table is expanded into one packer and one unpacker per message
 * (CODEC below), whose every field is a constant move.
 *
 * Compile-time checks below prove, for each message, that no field goes
 * past AL_CM_MSG_SIZE, that the private data ends exactly there, that
 * every integer field fits its host member and every byte field fills
 * its member exactly (so the private-data members have the
 * IB_*_PDATA_SIZE the specification gives).
 */
#include <string.h>
#include "al_cm_wire.h"

/* ------------------------------------------------------------------------ */
/* Field tables                                                               */
/* ------------------------------------------------------------------------ */

/*
 * X(member, byte, bit, width): an integer field of up to 64 bits.
 * B(member, byte, bytes):      a byte-aligned array (GID, ARI, private data).
 * A path in a REQ sits at base 52 (primary) or 96 (alternate): LIDs, GIDs,
 * then flow label (20 bits), 6 reserved bits, packet rate (6 bits),
 * traffic class, hop limit, SL / subnet local, local ACK timeout.
 * The LAP's alternate path orders the third word differently: flow label
 * (20 bits), 4 reserved bits, traffic class; then hop limit, packet rate
 * (6 low bits of its byte), SL / subnet local, local ACK timeout.
 */
#define REQ_PATH_FIELDS(X, B, p, base)                     \
	X(p.local_lid, (base) + 0, 0, 16)                  \
	X(p.remote_lid, (base) + 2, 0, 16)                 \
	B(p.local_gid, (base) + 4, 16)                     \
	B(p.remote_gid, (base) + 20, 16)                   \
	X(p.flow_label, (base) + 36, 0, 20)                \
	X(p.packet_rate, (base) + 39, 2, 6)                \
	X(p.traffic_class, (base) + 40, 0, 8)              \
	X(p.hop_limit, (base) + 41, 0, 8)                  \
	X(p.sl, (base) + 42, 0, 4)                         \
	X(p.subnet_local, (base) + 42, 4, 1)               \
	X(p.local_ack_timeout, (base) + 43, 0, 5)

#define REQ_FIELDS(X, B)                                   \
	X(local_comm_id, 0, 0, 32)                         \
	X(service_id, 8, 0, 64)                            \
	X(local_ca_guid, 16, 0, 64)                        \
	X(local_qkey, 28, 0, 32)                           \
	X(local_qpn, 32, 0, 24)                            \
	X(resp_res, 35, 0, 8)                              \
	X(local_eecn, 36, 0, 24)                           \
	X(init_depth, 39, 0, 8)                            \
	X(remote_eecn, 40, 0, 24)                          \
	X(remote_cm_resp_timeout, 43, 0, 5)                \
	X(transport, 43, 5, 2)                             \
	X(flow_ctrl, 43, 7, 1)                             \
	X(starting_psn, 44, 0, 24)                         \
	X(local_cm_resp_timeout, 47, 0, 5)                 \
	X(retry_count, 47, 5, 3)                           \
	X(pkey, 48, 0, 16)                                 \
	X(path_mtu, 50, 0, 4)                              \
	X(rdc_exists, 50, 4, 1)                            \
	X(rnr_retry_count, 50, 5, 3)                       \
	X(max_cm_retries, 51, 0, 4)                        \
	X(srq, 51, 4, 1)                                   \
	X(ext_transport, 51, 5, 3)                         \
	REQ_PATH_FIELDS(X, B, primary, 52)                 \
	REQ_PATH_FIELDS(X, B, alternate, 96)               \
	X(sap_supported, 139, 5, 1)                        \
	B(private_data, 140, IB_REQ_PDATA_SIZE)

#define MRA_FIELDS(X, B)                                   \
	X(local_comm_id, 0, 0, 32)                         \
	X(remote_comm_id, 4, 0, 32)                        \
	X(msg_mraed, 8, 0, 2)                              \
	X(service_timeout, 9, 0, 5)                        \
	B(private_data, 10, IB_MRA_PDATA_SIZE)

#define REJ_FIELDS(X, B)                                   \
	X(local_comm_id, 0, 0, 32)                         \
	X(remote_comm_id, 4, 0, 32)                        \
	X(msg_rejected, 8, 0, 2)                           \
	X(ari_length, 9, 0, 7)                             \
	X(reason, 10, 0, 16)                               \
	B(ari, 12, IB_ARI_SIZE)                            \
	B(private_data, 84, IB_REJ_PDATA_SIZE)

#define REP_FIELDS(X, B)                                   \
	X(local_comm_id, 0, 0, 32)                         \
	X(remote_comm_id, 4, 0, 32)                        \
	X(local_qkey, 8, 0, 32)                            \
	X(local_qpn, 12, 0, 24)                            \
	X(local_eecn, 16, 0, 24)                           \
	X(starting_psn, 20, 0, 24)                         \
	X(resp_res, 24, 0, 8)                              \
	X(init_depth, 25, 0, 8)                            \
	X(target_ack_delay, 26, 0, 5)                      \
	X(failover_accepted, 26, 5, 2)                     \
	X(flow_ctrl, 26, 7, 1)                             \
	X(rnr_retry_count, 27, 0, 3)                       \
	X(srq, 27, 3, 1)                                   \
	X(local_ca_guid, 28, 0, 64)                        \
	B(private_data, 36, IB_REP_PDATA_SIZE)

#define RTU_FIELDS(X, B)                                   \
	X(local_comm_id, 0, 0, 32)                         \
	X(remote_comm_id, 4, 0, 32)                        \
	B(private_data, 8, IB_RTU_PDATA_SIZE)

#define DREQ_FIELDS(X, B)                                  \
	X(local_comm_id, 0, 0, 32)                         \
	X(remote_comm_id, 4, 0, 32)                        \
	X(remote_qpn, 8, 0, 24)                            \
	B(private_data, 12, IB_DREQ_PDATA_SIZE)

#define DREP_FIELDS(X, B)                                  \
	X(local_comm_id, 0, 0, 32)                         \
	X(remote_comm_id, 4, 0, 32)                        \
	B(private_data, 8, IB_DREP_PDATA_SIZE)

#define SIDR_REQ_FIELDS(X, B)                              \
	X(request_id, 0, 0, 32)                            \
	X(pkey, 4, 0, 16)                                  \
	X(service_id, 8, 0, 64)                            \
	B(private_data, 16, IB_SIDR_REQ_PDATA_SIZE)

#define SIDR_REP_FIELDS(X, B)                              \
	X(request_id, 0, 0, 32)                            \
	X(status, 4, 0, 8)                                 \
	X(add_info_length, 5, 0, 8)                        \
	X(qpn, 8, 0, 24)                                   \
	X(service_id, 12, 0, 64)                           \
	X(qkey, 20, 0, 32)                                 \
	B(class_port_info, 24, 72)                         \
	B(private_data, 96, IB_SIDR_REP_PDATA_SIZE)

#define LAP_FIELDS(X, B)                                   \
	X(local_comm_id, 0, 0, 32)                         \
	X(remote_comm_id, 4, 0, 32)                        \
	X(remote_qpn, 12, 0, 24)                           \
	X(remote_cm_resp_timeout, 15, 0, 5)                \
	X(alternate.local_lid, 20, 0, 16)                  \
	X(alternate.remote_lid, 22, 0, 16)                 \
	B(alternate.local_gid, 24, 16)                     \
	B(alternate.remote_gid, 40, 16)                    \
	X(alternate.flow_label, 56, 0, 20)                 \
	X(alternate.traffic_class, 59, 0, 8)               \
	X(alternate.hop_limit, 60, 0, 8)                   \
	X(alternate.packet_rate, 61, 2, 6)                 \
	X(alternate.sl, 62, 0, 4)                          \
	X(alternate.subnet_local, 62, 4, 1)                \
	X(alternate.local_ack_timeout, 63, 0, 5)           \
	B(private_data, 64, IB_LAP_PDATA_SIZE)

#define APR_FIELDS(X, B)                                   \
	X(local_comm_id, 0, 0, 32)                         \
	X(remote_comm_id, 4, 0, 32)                        \
	X(info_length, 8, 0, 8)                            \
	X(ap_status, 9, 0, 8)                              \
	B(info, 12, IB_APR_INFO_SIZE)                      \
	B(private_data, 84, IB_APR_PDATA_SIZE)

/* Every message: X-macro list, member of al_cm_msg_t, its type. */
#define ALL_MSGS(M)                                        \
	M(REQ, req, al_cm_req_msg_t)                       \
	M(MRA, mra, al_cm_mra_msg_t)                       \
	M(REJ, rej, al_cm_rej_msg_t)                       \
	M(REP, rep, al_cm_rep_msg_t)                       \
	M(RTU, rtu, al_cm_rtu_msg_t)                       \
	M(DREQ, dreq, al_cm_dreq_msg_t)                    \
	M(DREP, drep, al_cm_drep_msg_t)                    \
	M(SIDR_REQ, sidr_req, al_cm_sidr_req_msg_t)        \
	M(SIDR_REP, sidr_rep, al_cm_sidr_rep_msg_t)        \
	M(LAP, lap, al_cm_lap_msg_t)                       \
	M(APR, apr, al_cm_apr_msg_t)

/* ------------------------------------------------------------------------ */
/* Compile-time checks                                                        */
/* ------------------------------------------------------------------------ */

#define MEMBER_SIZE(type, member) sizeof(((type *)0)->member)
#define MSG_BITS (AL_CM_MSG_SIZE * 8)

/* Per field: inside the message, fits (or fills) its member, and no integer crosses 64 bits. */
#define CHECK_X(T, member, byte, bit, width)                                           \
	_Static_assert((bit) < 8 && (width) >= 1 && (width) <= 64, #T "." #member ": bits"); \
	_Static_assert((byte) * 8 + (bit) + (width) <= MSG_BITS, #T "." #member ": past the end"); \
	_Static_assert((width) <= 8 * MEMBER_SIZE(T, member), #T "." #member ": wider than its member"); \
	_Static_assert(MEMBER_SIZE(T, member) <= 8, #T "." #member ": not an integer");
#define CHECK_B(T, member, byte, bytes)                                                \
	_Static_assert((byte) + (bytes) <= AL_CM_MSG_SIZE, #T "." #member ": past the end"); \
	_Static_assert(MEMBER_SIZE(T, member) == (bytes), #T "." #member ": size differs");

/* Some field (in practice the private data) ends exactly at the end of the message. */
#define END_X(T, member, byte, bit, width) | ((byte) * 8 + (bit) + (width) == MSG_BITS)
#define END_B(T, member, byte, bytes) | ((byte) + (bytes) == AL_CM_MSG_SIZE)

#define CHECK_MSG(NAME, memb, T)                                                       \
	NAME##_FIELDS(CHECK_X_##NAME, CHECK_B_##NAME)                                  \
	_Static_assert(0 NAME##_FIELDS(END_X_##NAME, END_B_##NAME), #NAME ": does not end at AL_CM_MSG_SIZE");

/* Bind the type argument for each message (X-macros take no extra arguments). */
#define CHECK_X_REQ(...) CHECK_X(al_cm_req_msg_t, __VA_ARGS__)
#define CHECK_B_REQ(...) CHECK_B(al_cm_req_msg_t, __VA_ARGS__)
#define END_X_REQ(...) END_X(al_cm_req_msg_t, __VA_ARGS__)
#define END_B_REQ(...) END_B(al_cm_req_msg_t, __VA_ARGS__)
#define CHECK_X_MRA(...) CHECK_X(al_cm_mra_msg_t, __VA_ARGS__)
#define CHECK_B_MRA(...) CHECK_B(al_cm_mra_msg_t, __VA_ARGS__)
#define END_X_MRA(...) END_X(al_cm_mra_msg_t, __VA_ARGS__)
#define END_B_MRA(...) END_B(al_cm_mra_msg_t, __VA_ARGS__)
#define CHECK_X_REJ(...) CHECK_X(al_cm_rej_msg_t, __VA_ARGS__)
#define CHECK_B_REJ(...) CHECK_B(al_cm_rej_msg_t, __VA_ARGS__)
#define END_X_REJ(...) END_X(al_cm_rej_msg_t, __VA_ARGS__)
#define END_B_REJ(...) END_B(al_cm_rej_msg_t, __VA_ARGS__)
#define CHECK_X_REP(...) CHECK_X(al_cm_rep_msg_t, __VA_ARGS__)
#define CHECK_B_REP(...) CHECK_B(al_cm_rep_msg_t, __VA_ARGS__)
#define END_X_REP(...) END_X(al_cm_rep_msg_t, __VA_ARGS__)
#define END_B_REP(...) END_B(al_cm_rep_msg_t, __VA_ARGS__)
#define CHECK_X_RTU(...) CHECK_X(al_cm_rtu_msg_t, __VA_ARGS__)
#define CHECK_B_RTU(...) CHECK_B(al_cm_rtu_msg_t, __VA_ARGS__)
#define END_X_RTU(...) END_X(al_cm_rtu_msg_t, __VA_ARGS__)
#define END_B_RTU(...) END_B(al_cm_rtu_msg_t, __VA_ARGS__)
#define CHECK_X_DREQ(...) CHECK_X(al_cm_dreq_msg_t, __VA_ARGS__)
#define CHECK_B_DREQ(...) CHECK_B(al_cm_dreq_msg_t, __VA_ARGS__)
#define END_X_DREQ(...) END_X(al_cm_dreq_msg_t, __VA_ARGS__)
#define END_B_DREQ(...) END_B(al_cm_dreq_msg_t, __VA_ARGS__)
#define CHECK_X_DREP(...) CHECK_X(al_cm_drep_msg_t, __VA_ARGS__)
#define CHECK_B_DREP(...) CHECK_B(al_cm_drep_msg_t, __VA_ARGS__)
#define END_X_DREP(...) END_X(al_cm_drep_msg_t, __VA_ARGS__)
#define END_B_DREP(...) END_B(al_cm_drep_msg_t, __VA_ARGS__)
#define CHECK_X_SIDR_REQ(...) CHECK_X(al_cm_sidr_req_msg_t, __VA_ARGS__)
#define CHECK_B_SIDR_REQ(...) CHECK_B(al_cm_sidr_req_msg_t, __VA_ARGS__)
#define END_X_SIDR_REQ(...) END_X(al_cm_sidr_req_msg_t, __VA_ARGS__)
#define END_B_SIDR_REQ(...) END_B(al_cm_sidr_req_msg_t, __VA_ARGS__)
#define CHECK_X_SIDR_REP(...) CHECK_X(al_cm_sidr_rep_msg_t, __VA_ARGS__)
#define CHECK_B_SIDR_REP(...) CHECK_B(al_cm_sidr_rep_msg_t, __VA_ARGS__)
#define END_X_SIDR_REP(...) END_X(al_cm_sidr_rep_msg_t, __VA_ARGS__)
#define END_B_SIDR_REP(...) END_B(al_cm_sidr_rep_msg_t, __VA_ARGS__)
#define CHECK_X_LAP(...) CHECK_X(al_cm_lap_msg_t, __VA_ARGS__)
#define CHECK_B_LAP(...) CHECK_B(al_cm_lap_msg_t, __VA_ARGS__)
#define END_X_LAP(...) END_X(al_cm_lap_msg_t, __VA_ARGS__)
#define END_B_LAP(...) END_B(al_cm_lap_msg_t, __VA_ARGS__)
#define CHECK_X_APR(...) CHECK_X(al_cm_apr_msg_t, __VA_ARGS__)
#define CHECK_B_APR(...) CHECK_B(al_cm_apr_msg_t, __VA_ARGS__)
#define END_X_APR(...) END_X(al_cm_apr_msg_t, __VA_ARGS__)
#define END_B_APR(...) END_B(al_cm_apr_msg_t, __VA_ARGS__)

ALL_MSGS(CHECK_MSG)

/* The private-data sizes the specification gives each message (volume 1, chapter 12). */
_Static_assert(IB_REQ_PDATA_SIZE == 92 && IB_MRA_PDATA_SIZE == 222 && IB_REJ_PDATA_SIZE == 148 &&
		       IB_REP_PDATA_SIZE == 196 && IB_RTU_PDATA_SIZE == 224 && IB_DREQ_PDATA_SIZE == 220 &&
		       IB_DREP_PDATA_SIZE == 224 && IB_SIDR_REQ_PDATA_SIZE == 216 &&
		       IB_SIDR_REP_PDATA_SIZE == 136 && IB_LAP_PDATA_SIZE == 168 &&
		       IB_APR_PDATA_SIZE == 148 && IB_ARI_SIZE == 72 && IB_APR_INFO_SIZE == 72,
	       "private-data sizes differ from the specification");
_Static_assert(sizeof(ib_gid_t) == 16, "a GID is 16 bytes");
_Static_assert(sizeof(ib_mad_t) + AL_CM_MSG_SIZE == MAD_BLOCK_SIZE, "a CM MAD is 256 bytes");

/* ------------------------------------------------------------------------ */
/* Moving one field                                                           */
/* ------------------------------------------------------------------------ */

/*
 * Every call below has constant arguments (the tables' numbers), so each
 * field compiles to a few loads, shifts and stores: no walk over a table at
 * run time. An integer field is either whole bytes from a byte boundary
 * (a QPN, a P_Key, a GUID: big-endian) or bits inside at most 4 bytes
 * (checked below for every table).
 */
#define INLINE static inline __attribute__((always_inline))

/* The @n bytes at @p, big-endian (n of 1 to 8). */
INLINE uint64_t be_get(const uint8_t *p, unsigned n)
{
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (n) {
	case 1: return p[0];
	case 2: memcpy(&v16, p, 2); return cl_ntoh16(v16);
	case 4: memcpy(&v32, p, 4); return cl_ntoh32(v32);
	case 8: memcpy(&v64, p, 8); return cl_ntoh64(v64);
	default: {
		uint64_t v = 0;
		unsigned i;

		for (i = 0; i < n; i++)
			v = v << 8 | p[i];
		return v;
	}
	}
}

/* Writes the low @n bytes of @v at @p, big-endian. */
INLINE void be_put(uint8_t *p, unsigned n, uint64_t v)
{
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (n) {
	case 1: p[0] = (uint8_t)v; return;
	case 2: v16 = cl_hton16((uint16_t)v); memcpy(p, &v16, 2); return;
	case 4: v32 = cl_hton32((uint32_t)v); memcpy(p, &v32, 4); return;
	case 8: v64 = cl_hton64(v); memcpy(p, &v64, 8); return;
	default:
		while (n--) {
			p[n] = (uint8_t)v;
			v >>= 8;
		}
	}
}

/* The @width bits from bit @bit of @p (0 = its most significant), most significant first. */
INLINE uint64_t field_get(const uint8_t *p, unsigned bit, unsigned width)
{
	unsigned n = (bit + width + 7) / 8;

	if (!bit && !(width % 8))
		return be_get(p, width / 8);
	return (be_get(p, n) >> (n * 8 - bit - width)) & ((1u << width) - 1);
}

/* Writes the low @width bits of @v there; the other bits of the bytes are kept. */
INLINE void field_put(uint8_t *p, unsigned bit, unsigned width, uint64_t v)
{
	unsigned n = (bit + width + 7) / 8, shift;
	uint32_t mask;

	if (!bit && !(width % 8)) {
		be_put(p, width / 8, v);
		return;
	}
	shift = n * 8 - bit - width;
	mask = ((1u << width) - 1) << shift;
	be_put(p, n, (be_get(p, n) & ~mask) | (((uint32_t)v << shift) & mask));
}

/* Bits that are not whole bytes stay inside 4 bytes (field_get, field_put). */
#define CHECK_SPAN(member, byte, bit, width)                                            \
	_Static_assert(((bit) == 0 && (width) % 8 == 0) || (bit) + (width) <= 32, #member ": bits span");
#define CHECK_SPAN_B(member, byte, bytes)
#define SPANS(NAME, memb, T) NAME##_FIELDS(CHECK_SPAN, CHECK_SPAN_B)
ALL_MSGS(SPANS)

/* ------------------------------------------------------------------------ */
/* One packer and one unpacker per message, from its table                    */
/* ------------------------------------------------------------------------ */

#define PACK_X(member, byte, bit, width) field_put(w + (byte), (bit), (width), (uint64_t)m->member);
#define PACK_B(member, byte, bytes) memcpy(w + (byte), &m->member, (bytes));
#define UNPACK_X(member, byte, bit, width) \
	m->member = (__typeof__(m->member))field_get(r + (byte), (bit), (width));
#define UNPACK_B(member, byte, bytes) memcpy(&m->member, r + (byte), (bytes));

#define CODEC(NAME, memb, T)                                                   \
	static void pack_##NAME(const al_cm_msg_t *p_msg, uint8_t *w)          \
	{                                                                      \
		const T *m = &p_msg->memb;                                     \
		NAME##_FIELDS(PACK_X, PACK_B)                                  \
	}                                                                      \
	static void unpack_##NAME(const uint8_t *r, al_cm_msg_t *p_msg)        \
	{                                                                      \
		T *m = &p_msg->memb;                                           \
		NAME##_FIELDS(UNPACK_X, UNPACK_B)                              \
	}
ALL_MSGS(CODEC)

/** A message type's packer, unpacker and name. */
static const struct cm_msg_desc {
	void (*pack)(const al_cm_msg_t *p_msg, uint8_t *w);
	void (*unpack)(const uint8_t *r, al_cm_msg_t *p_msg);
	const char *name;
} g_msgs[AL_CM_MSG_COUNT] = {
#define DESC(NAME, memb, T) [AL_CM_MSG_##NAME] = { pack_##NAME, unpack_##NAME, #NAME },
	ALL_MSGS(DESC)
#undef DESC
};

/* ------------------------------------------------------------------------ */
/* API                                                                        */
/* ------------------------------------------------------------------------ */

al_cm_msg_type_t al_cm_msg_type(ib_net16_t attr_id)
{
	uint16_t a = cl_ntoh16(attr_id);

	if (a < AL_CM_ATTR_REQ || a >= AL_CM_ATTR_REQ + AL_CM_MSG_COUNT)
		return AL_CM_MSG_COUNT;
	return (al_cm_msg_type_t)(a - AL_CM_ATTR_REQ);
}

ib_net16_t al_cm_attr_id(al_cm_msg_type_t type)
{
	return cl_hton16((uint16_t)(AL_CM_ATTR_REQ + (unsigned)type));
}

const char *al_cm_msg_name(al_cm_msg_type_t type)
{
	if ((unsigned)type >= AL_CM_MSG_COUNT)
		return "?";
	return g_msgs[type].name;
}

void al_cm_pack(al_cm_msg_type_t type, const al_cm_msg_t *p_msg, ib_net64_t tid, ib_mad_t *p_mad)
{
	memset(p_mad, 0, MAD_BLOCK_SIZE);
	p_mad->base_ver = 1;
	p_mad->mgmt_class = IB_MCLASS_COMM_MGMT;
	p_mad->class_ver = AL_CM_CLASS_VERSION;
	p_mad->method = IB_MAD_METHOD_SEND;
	p_mad->trans_id = tid;
	if ((unsigned)type >= AL_CM_MSG_COUNT || !p_msg)
		return;
	p_mad->attr_id = al_cm_attr_id(type);
	g_msgs[type].pack(p_msg, (uint8_t *)(p_mad + 1));
}

ib_api_status_t al_cm_unpack(const ib_mad_t *p_mad, size_t len, al_cm_msg_type_t *p_type,
			     al_cm_msg_t *p_msg)
{
	al_cm_msg_type_t type;

	if (!p_mad || !p_type || !p_msg)
		return IB_INVALID_PARAMETER;
	if (len < sizeof(ib_mad_t) + AL_CM_MSG_SIZE || p_mad->mgmt_class != IB_MCLASS_COMM_MGMT)
		return IB_INVALID_SETTING;
	type = al_cm_msg_type(p_mad->attr_id);
	if (type == AL_CM_MSG_COUNT)
		return IB_INVALID_SETTING;

	*p_type = type;
	memset(p_msg, 0, sizeof(*p_msg));
	g_msgs[type].unpack((const uint8_t *)(p_mad + 1), p_msg);
	return IB_SUCCESS;
}
