/*
 * ibal access layer: packing and unpacking the CM messages from tables of their fields.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Every message is a list of fields (an X-macro per message): the member
 * of the host structure, the byte offset in the 232 bytes after the MAD
 * header, the bit offset in that byte counted from its most significant
 * bit (the specification's numbering), and the width in bits. One pair of
 * routines (bits_get/bits_put) moves any integer field; GIDs and byte
 * arrays (byte aligned, whole bytes) are copied. The offsets are IBA
 * volume 1, chapter 12 (tables "REQ Message Contents" .. "SIDR_REP Message
 * Contents"); bytes and bits not in a table are reserved and stay zero.
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
/* The tables the routines walk                                               */
/* ------------------------------------------------------------------------ */

/** One field: where it is in the host structure and on the wire. */
typedef struct cm_field {
	uint16_t host_off; /* offsetof in the message structure */
	uint16_t host_size; /* bytes of the member */
	uint16_t wire_bit; /* first bit, counted from bit 7 of byte 0 */
	uint16_t width;    /* bits */
	uint8_t bytes;     /* 1: copied as bytes (width a multiple of 8, byte aligned) */
} cm_field_t;

#define ROW_X(T, member, byte, bit, width) \
	{ offsetof(T, member), MEMBER_SIZE(T, member), (byte) * 8 + (bit), (width), 0 },
#define ROW_B(T, member, byte, nbytes) \
	{ offsetof(T, member), MEMBER_SIZE(T, member), (byte) * 8, (nbytes) * 8, 1 },

#define TABLE(NAME, memb, T)                                                                  \
	static const cm_field_t NAME##_table[] = { NAME##_FIELDS(ROW_X_##NAME, ROW_B_##NAME) };
#define ROW_X_REQ(...) ROW_X(al_cm_req_msg_t, __VA_ARGS__)
#define ROW_B_REQ(...) ROW_B(al_cm_req_msg_t, __VA_ARGS__)
#define ROW_X_MRA(...) ROW_X(al_cm_mra_msg_t, __VA_ARGS__)
#define ROW_B_MRA(...) ROW_B(al_cm_mra_msg_t, __VA_ARGS__)
#define ROW_X_REJ(...) ROW_X(al_cm_rej_msg_t, __VA_ARGS__)
#define ROW_B_REJ(...) ROW_B(al_cm_rej_msg_t, __VA_ARGS__)
#define ROW_X_REP(...) ROW_X(al_cm_rep_msg_t, __VA_ARGS__)
#define ROW_B_REP(...) ROW_B(al_cm_rep_msg_t, __VA_ARGS__)
#define ROW_X_RTU(...) ROW_X(al_cm_rtu_msg_t, __VA_ARGS__)
#define ROW_B_RTU(...) ROW_B(al_cm_rtu_msg_t, __VA_ARGS__)
#define ROW_X_DREQ(...) ROW_X(al_cm_dreq_msg_t, __VA_ARGS__)
#define ROW_B_DREQ(...) ROW_B(al_cm_dreq_msg_t, __VA_ARGS__)
#define ROW_X_DREP(...) ROW_X(al_cm_drep_msg_t, __VA_ARGS__)
#define ROW_B_DREP(...) ROW_B(al_cm_drep_msg_t, __VA_ARGS__)
#define ROW_X_SIDR_REQ(...) ROW_X(al_cm_sidr_req_msg_t, __VA_ARGS__)
#define ROW_B_SIDR_REQ(...) ROW_B(al_cm_sidr_req_msg_t, __VA_ARGS__)
#define ROW_X_SIDR_REP(...) ROW_X(al_cm_sidr_rep_msg_t, __VA_ARGS__)
#define ROW_B_SIDR_REP(...) ROW_B(al_cm_sidr_rep_msg_t, __VA_ARGS__)
#define ROW_X_LAP(...) ROW_X(al_cm_lap_msg_t, __VA_ARGS__)
#define ROW_B_LAP(...) ROW_B(al_cm_lap_msg_t, __VA_ARGS__)
#define ROW_X_APR(...) ROW_X(al_cm_apr_msg_t, __VA_ARGS__)
#define ROW_B_APR(...) ROW_B(al_cm_apr_msg_t, __VA_ARGS__)

ALL_MSGS(TABLE)

/** A message type's table, its member's offset in al_cm_msg_t, and its name. */
static const struct cm_msg_desc {
	const cm_field_t *fields;
	size_t n_fields;
	size_t union_off;
	const char *name;
} g_msgs[AL_CM_MSG_COUNT] = {
#define DESC(NAME, memb, T) \
	[AL_CM_MSG_##NAME] = { NAME##_table, sizeof(NAME##_table) / sizeof(NAME##_table[0]), \
			       offsetof(al_cm_msg_t, memb), #NAME },
	ALL_MSGS(DESC)
#undef DESC
};

/* ------------------------------------------------------------------------ */
/* Bits                                                                       */
/* ------------------------------------------------------------------------ */

/* The @width bits from bit @pos (0 = bit 7 of p[0]), most significant first. */
static uint64_t bits_get(const uint8_t *p, unsigned pos, unsigned width)
{
	uint64_t v = 0;

	/* Most fields are whole bytes (a QPN, a P_Key, a GID's halves): byte by byte. */
	if (!(pos % 8) && !(width % 8)) {
		const uint8_t *b = p + pos / 8, *end = b + width / 8;

		while (b < end)
			v = v << 8 | *b++;
		return v;
	}
	while (width) {
		unsigned bit = pos % 8;
		unsigned n = 8 - bit < width ? 8 - bit : width;
		unsigned shift = 8 - bit - n;

		v = (v << n) | ((uint64_t)(p[pos / 8] >> shift) & ((1u << n) - 1));
		pos += n;
		width -= n;
	}
	return v;
}

/* Writes the low @width bits of @v at bit @pos; the other bits of the bytes are kept. */
static void bits_put(uint8_t *p, unsigned pos, unsigned width, uint64_t v)
{
	if (!(pos % 8) && !(width % 8)) {
		uint8_t *b = p + pos / 8 + width / 8;

		while (b > p + pos / 8) {
			*--b = (uint8_t)v;
			v >>= 8;
		}
		return;
	}
	while (width) {
		unsigned bit = pos % 8;
		unsigned n = 8 - bit < width ? 8 - bit : width;
		unsigned shift = 8 - bit - n;
		unsigned mask = ((1u << n) - 1) << shift;
		unsigned part = (unsigned)(v >> (width - n)) & ((1u << n) - 1);

		p[pos / 8] = (uint8_t)((p[pos / 8] & ~mask) | (part << shift));
		pos += n;
		width -= n;
	}
}

/* A host integer member of 1, 2, 4 or 8 bytes, widened. */
static uint64_t host_get(const uint8_t *p, size_t size)
{
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (size) {
	case 1: memcpy(&v8, p, 1); return v8;
	case 2: memcpy(&v16, p, 2); return v16;
	case 4: memcpy(&v32, p, 4); return v32;
	default: memcpy(&v64, p, 8); return v64;
	}
}

static void host_put(uint8_t *p, size_t size, uint64_t v)
{
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	switch (size) {
	case 1: memcpy(p, &v8, 1); break;
	case 2: memcpy(p, &v16, 2); break;
	case 4: memcpy(p, &v32, 4); break;
	default: memcpy(p, &v, 8); break;
	}
}

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
	const struct cm_msg_desc *d;
	const uint8_t *src;
	uint8_t *dst = (uint8_t *)(p_mad + 1);
	size_t i;

	memset(p_mad, 0, MAD_BLOCK_SIZE);
	p_mad->base_ver = 1;
	p_mad->mgmt_class = IB_MCLASS_COMM_MGMT;
	p_mad->class_ver = AL_CM_CLASS_VERSION;
	p_mad->method = IB_MAD_METHOD_SEND;
	p_mad->trans_id = tid;
	if ((unsigned)type >= AL_CM_MSG_COUNT || !p_msg)
		return;
	p_mad->attr_id = al_cm_attr_id(type);

	d = &g_msgs[type];
	src = (const uint8_t *)p_msg + d->union_off;
	for (i = 0; i < d->n_fields; i++) {
		const cm_field_t *f = &d->fields[i];

		if (f->bytes)
			memcpy(dst + f->wire_bit / 8, src + f->host_off, f->width / 8);
		else
			bits_put(dst, f->wire_bit, f->width, host_get(src + f->host_off, f->host_size));
	}
}

ib_api_status_t al_cm_unpack(const ib_mad_t *p_mad, size_t len, al_cm_msg_type_t *p_type,
			     al_cm_msg_t *p_msg)
{
	const struct cm_msg_desc *d;
	const uint8_t *src;
	uint8_t *dst;
	al_cm_msg_type_t type;
	size_t i;

	if (!p_mad || !p_type || !p_msg)
		return IB_INVALID_PARAMETER;
	if (len < sizeof(ib_mad_t) + AL_CM_MSG_SIZE || p_mad->mgmt_class != IB_MCLASS_COMM_MGMT)
		return IB_INVALID_SETTING;
	type = al_cm_msg_type(p_mad->attr_id);
	if (type == AL_CM_MSG_COUNT)
		return IB_INVALID_SETTING;

	*p_type = type;
	memset(p_msg, 0, sizeof(*p_msg));
	d = &g_msgs[type];
	src = (const uint8_t *)(p_mad + 1);
	dst = (uint8_t *)p_msg + d->union_off;
	for (i = 0; i < d->n_fields; i++) {
		const cm_field_t *f = &d->fields[i];

		if (f->bytes)
			memcpy(dst + f->host_off, src + f->wire_bit / 8, f->width / 8);
		else
			host_put(dst + f->host_off, f->host_size, bits_get(src, f->wire_bit, f->width));
	}
	return IB_SUCCESS;
}
