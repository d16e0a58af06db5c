/*
 * ibal soft provider: InfiniBand packet formats on the simulated links.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file soft_wire.h
 * @brief Wire formats of the soft provider: header field tables, opcodes,
 * ICRC/VCRC, PSN arithmetic, whole-packet build and parse.
 *
 * A soft port sends exactly the bytes an InfiniBand link would carry
 * (IBA volume 1, chapters 5 to 9): LRH, optional GRH, BTH, the extended
 * transport headers the opcode calls for, payload, pad, ICRC and VCRC.
 *
 * Every header is described by a table of fields (name, byte offset, bit
 * offset from the most significant bit of that byte, width). The generic
 * functions soft_hdr_pack() and soft_hdr_unpack() move a header between its
 * wire image and a host-order structure (soft_lrh_t, soft_bth_t, ...);
 * soft_field_get() and soft_field_set() reach one field. The headers of
 * every packet (LRH, BTH, AETH, RETH) also have a codec written out for their
 * layout (soft_hdr_desc_t::pack), which those functions use instead of the
 * walk, with the same result. The GRH is held as
 * the access layer's ib_grh_t, which is already its wire image. For the data
 * path, static inline accessors read and write the hot fields of a wire image
 * directly (soft_bth_psn(), soft_lrh_dlid(), ...).
 *
 * soft_pkt_build() assembles a packet from a soft_pkt_t; soft_pkt_parse()
 * checks a received buffer (lengths, VCRC, ICRC, versions, opcode, pad) and
 * fills a soft_pkt_t whose payload points into the buffer. Neither reads or
 * writes outside the buffers it is given.
 *
 * Thread safety: every function is reentrant and touches only its
 * arguments; the CRC tables are built once, on first use, under pthread_once.
 */
#ifndef _SOFT_WIRE_H_
#define _SOFT_WIRE_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <iba/ib_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Sizes and constants                                                       */
/* ------------------------------------------------------------------------ */

#define SOFT_LRH_LEN            8  /**< Local route header bytes. */
#define SOFT_GRH_LEN            40 /**< Global route header bytes. */
#define SOFT_BTH_LEN            12 /**< Base transport header bytes. */
#define SOFT_DETH_LEN           8  /**< Datagram extended transport header bytes. */
#define SOFT_RETH_LEN           16 /**< RDMA extended transport header bytes. */
#define SOFT_AETH_LEN           4  /**< ACK extended transport header bytes. */
#define SOFT_ATOMIC_ETH_LEN     28 /**< Atomic extended transport header bytes. */
#define SOFT_ATOMIC_ACK_ETH_LEN 8  /**< Atomic ACK extended transport header bytes. */
#define SOFT_IMMDT_LEN          4  /**< Immediate data bytes. */
#define SOFT_IETH_LEN           4  /**< Invalidate extended transport header bytes. */
#define SOFT_ICRC_LEN           4  /**< Invariant CRC bytes. */
#define SOFT_VCRC_LEN           2  /**< Variant CRC bytes. */

/** Largest payload of one packet: the largest path MTU (4096 bytes). */
#define SOFT_MAX_PAYLOAD 4096
/** Largest extended-header run after the BTH (AtomicETH, 28 bytes). */
#define SOFT_MAX_EXT_LEN 28
/** Largest header run from LRH through the extended headers. */
#define SOFT_MAX_HDR_LEN (SOFT_LRH_LEN + SOFT_GRH_LEN + SOFT_BTH_LEN + SOFT_MAX_EXT_LEN)
/** Largest packet soft_pkt_build() produces and soft_pkt_parse() accepts. */
#define SOFT_MAX_PKT_LEN (SOFT_MAX_HDR_LEN + SOFT_MAX_PAYLOAD + SOFT_ICRC_LEN + SOFT_VCRC_LEN)
/** Smallest IBA transport packet: LRH, BTH, ICRC, VCRC. */
#define SOFT_MIN_PKT_LEN (SOFT_LRH_LEN + SOFT_BTH_LEN + SOFT_ICRC_LEN + SOFT_VCRC_LEN)

#define SOFT_LNH_RAW        0 /**< LRH:LNH: raw packet (not supported here). */
#define SOFT_LNH_IP         1 /**< LRH:LNH: IPv6 non-IBA transport (not supported here). */
#define SOFT_LNH_IBA_LOCAL  2 /**< LRH:LNH: BTH follows the LRH. */
#define SOFT_LNH_IBA_GLOBAL 3 /**< LRH:LNH: GRH, then BTH, follow the LRH. */

#define SOFT_GRH_IPVER      6    /**< GRH:IPVer of an IBA packet. */
#define SOFT_GRH_NXTHDR_IBA 0x1B /**< GRH:NxtHdr when a BTH follows. */

#define SOFT_PSN_MASK   0x00FFFFFFu /**< PSNs are 24 bits. */
#define SOFT_QPN_MASK   0x00FFFFFFu /**< QP numbers are 24 bits. */
#define SOFT_MSN_MASK   0x00FFFFFFu /**< MSNs are 24 bits. */
#define SOFT_PSN_WINDOW 0x00800000u /**< Half the PSN space (2^23): the comparison window. */

/* ------------------------------------------------------------------------ */
/* Status                                                                    */
/* ------------------------------------------------------------------------ */

/** Result of building or parsing a packet. */
typedef enum soft_wire_status {
	SOFT_WIRE_OK = 0,         /**< Success. */
	SOFT_WIRE_ERR_ARG,        /**< NULL pointer; build: unknown opcode, field out of range. */
	SOFT_WIRE_ERR_SPACE,      /**< Build: the output buffer is too small. */
	SOFT_WIRE_ERR_SHORT,      /**< Parse: shorter than the headers it announces. */
	SOFT_WIRE_ERR_LENGTH,     /**< Parse: PktLen or PayLen disagrees with the size; too long. */
	SOFT_WIRE_ERR_LNH,        /**< Parse: raw or IP packet (LRH:LNH 0 or 1). */
	SOFT_WIRE_ERR_VERSION,    /**< Parse: LVer, IPVer, NxtHdr or TVer unsupported. */
	SOFT_WIRE_ERR_VCRC,       /**< Parse: VCRC mismatch. */
	SOFT_WIRE_ERR_ICRC,       /**< Parse: ICRC mismatch. */
	SOFT_WIRE_ERR_OPCODE,     /**< Parse: opcode unknown or not supported. */
	SOFT_WIRE_ERR_PAD,        /**< Parse: pad count or payload size wrong for the opcode. */
	SOFT_WIRE_STATUS_COUNT    /**< Number of status values. */
} soft_wire_status_t;

/**
 * Names a status.
 * @param status the status.
 * @return a static string ("SOFT_WIRE_OK", ...), "SOFT_WIRE_UNKNOWN" if out of range.
 */
const char *soft_wire_strerror(soft_wire_status_t status);

/* ------------------------------------------------------------------------ */
/* Header structures (host byte order)                                       */
/* ------------------------------------------------------------------------ */

/** Local route header (IBA 7.7). */
typedef struct soft_lrh {
	uint8_t vl;        /**< Virtual lane (4 bits). */
	uint8_t lver;      /**< Link version (4 bits, 0). */
	uint8_t sl;        /**< Service level (4 bits). */
	uint8_t lnh;       /**< Link next header (2 bits), SOFT_LNH_*. */
	uint16_t dlid;     /**< Destination LID. */
	uint16_t pkt_len;  /**< Packet length in 4-byte words, LRH through ICRC (11 bits). */
	uint16_t slid;     /**< Source LID. */
} soft_lrh_t;

/** Base transport header (IBA 9.2). */
typedef struct soft_bth {
	uint8_t opcode;    /**< Opcode (transport in the top 3 bits). */
	uint8_t se;        /**< Solicited event (1 bit). */
	uint8_t mig;       /**< Migration request (1 bit). */
	uint8_t pad_cnt;   /**< Pad bytes after the payload (2 bits). */
	uint8_t tver;      /**< Transport header version (4 bits, 0). */
	uint16_t pkey;     /**< Partition key. */
	uint32_t dest_qp;  /**< Destination QP (24 bits). */
	uint8_t ack_req;   /**< Acknowledge request (1 bit). */
	uint32_t psn;      /**< Packet sequence number (24 bits). */
} soft_bth_t;

/** Datagram extended transport header (IBA 9.3.3). */
typedef struct soft_deth {
	uint32_t qkey;     /**< Queue key. */
	uint32_t src_qp;   /**< Source QP (24 bits). */
} soft_deth_t;

/** RDMA extended transport header (IBA 9.3.4). */
typedef struct soft_reth {
	uint64_t va;       /**< Virtual address. */
	uint32_t rkey;     /**< Remote key. */
	uint32_t dma_len;  /**< Length of the whole RDMA operation, bytes. */
} soft_reth_t;

/** ACK extended transport header (IBA 9.3.5). */
typedef struct soft_aeth {
	uint8_t syndrome;  /**< Syndrome: see soft_aeth_encode(). */
	uint32_t msn;      /**< Message sequence number (24 bits). */
} soft_aeth_t;

/** Atomic extended transport header (IBA 9.3.6). */
typedef struct soft_atomic_eth {
	uint64_t va;       /**< Virtual address (8-byte aligned). */
	uint32_t rkey;     /**< Remote key. */
	uint64_t swap_add; /**< Swap value (compare and swap) or addend (fetch and add). */
	uint64_t compare;  /**< Compare value (compare and swap). */
} soft_atomic_eth_t;

/** Atomic ACK extended transport header (IBA 9.3.7). */
typedef struct soft_atomic_ack_eth {
	uint64_t orig;     /**< Original remote data. */
} soft_atomic_ack_eth_t;

/** Immediate data (IBA 9.3.8): 4 opaque bytes, read big-endian. */
typedef struct soft_immdt {
	uint32_t data;     /**< The data, as the big-endian value of the 4 wire bytes. */
} soft_immdt_t;

/** Invalidate extended transport header (IBA 9.3.9). */
typedef struct soft_ieth {
	uint32_t rkey;     /**< Remote key to invalidate. */
} soft_ieth_t;

/* ------------------------------------------------------------------------ */
/* Field tables                                                              */
/* ------------------------------------------------------------------------ */

/** Headers with a field table. */
typedef enum soft_hdr_id {
	SOFT_HDR_LRH = 0,        /**< soft_lrh_t. */
	SOFT_HDR_GRH,            /**< ib_grh_t (the structure is the wire image). */
	SOFT_HDR_BTH,            /**< soft_bth_t. */
	SOFT_HDR_DETH,           /**< soft_deth_t. */
	SOFT_HDR_RETH,           /**< soft_reth_t. */
	SOFT_HDR_AETH,           /**< soft_aeth_t. */
	SOFT_HDR_ATOMIC_ETH,     /**< soft_atomic_eth_t. */
	SOFT_HDR_ATOMIC_ACK_ETH, /**< soft_atomic_ack_eth_t. */
	SOFT_HDR_IMMDT,          /**< soft_immdt_t. */
	SOFT_HDR_IETH,           /**< soft_ieth_t. */
	SOFT_HDR_COUNT           /**< Number of headers. */
} soft_hdr_id_t;

#define SOFT_FIELD_RSVD    0x01 /**< Reserved: written as zeros, ignored when read. */
#define SOFT_FIELD_VARIANT 0x02 /**< May change in flight: ones in the ICRC computation. */

/** One field of a header: where it is on the wire and in the host structure. */
typedef struct soft_field {
	const char *name;    /**< Field name ("dlid", "psn", ...). */
	uint16_t struct_off; /**< Offset of the member in the host structure. */
	uint8_t struct_size; /**< Member size 1, 2, 4 or 8; 0 if the structure has no member. */
	uint8_t byte_off;    /**< Wire: byte holding the field's most significant bit. */
	uint8_t bit_off;     /**< Wire: that bit's position, 0 = the byte's most significant bit. */
	uint8_t width;       /**< Wire: width in bits, 1 to 64. */
	uint8_t flags;       /**< SOFT_FIELD_RSVD, SOFT_FIELD_VARIANT. */
} soft_field_t;

/** A header's layout. */
typedef struct soft_hdr_desc {
	const char *name;           /**< Header name ("LRH", ...). */
	uint8_t len;                /**< Wire length in bytes. */
	uint16_t struct_size;       /**< Size of the host structure. */
	boolean_t wire_struct;      /**< TRUE if the host structure is the wire image (GRH). */
	uint8_t n_fields;           /**< Entries in @ref fields. */
	const soft_field_t *fields; /**< Fields in wire order, reserved ones included. */
	/** The header's codec written out for its layout (LRH, BTH, AETH, RETH:
	 * the headers of every packet), or NULL: soft_hdr_pack() uses it instead
	 * of walking @ref fields, with the same result. */
	boolean_t (*pack)(const void *hdr_struct, uint8_t *wire);
	/** As @ref pack, for soft_hdr_unpack(). */
	void (*unpack)(const uint8_t *wire, void *hdr_struct);
} soft_hdr_desc_t;

/**
 * Returns a header's layout.
 * @param id the header.
 * @return the layout, or NULL if @p id is out of range.
 */
const soft_hdr_desc_t *soft_hdr_desc(soft_hdr_id_t id);

/**
 * Finds a field of a header by name.
 * @param id the header.
 * @param name the field name.
 * @return the field, or NULL if there is none of that name.
 */
const soft_field_t *soft_hdr_field(soft_hdr_id_t id, const char *name);

/**
 * Reads a field from a header's wire image.
 * @param f the field.
 * @param hdr the header's first byte; at least up to the field's last byte is read.
 * @return the field's value.
 */
uint64_t soft_field_get(const soft_field_t *f, const uint8_t *hdr);

/**
 * Writes a field into a header's wire image; other bits are kept.
 * @param f the field.
 * @param hdr the header's first byte.
 * @param value the value; bits above the field's width are dropped.
 */
void soft_field_set(const soft_field_t *f, uint8_t *hdr, uint64_t value);

/**
 * Writes a header's wire image from its host structure (reserved bits zero).
 * @param id the header.
 * @param hdr_struct the host structure (soft_lrh_t, ..., ib_grh_t for the GRH).
 * @param wire receives soft_hdr_desc(id)->len bytes.
 * @return TRUE if every value fitted its field, FALSE if one was truncated or
 *         @p id is out of range (nothing is written then).
 */
boolean_t soft_hdr_pack(soft_hdr_id_t id, const void *hdr_struct, uint8_t *wire);

/**
 * Fills a header's host structure from its wire image.
 * @param id the header.
 * @param wire soft_hdr_desc(id)->len bytes.
 * @param hdr_struct receives the values; members without a field are untouched.
 */
void soft_hdr_unpack(soft_hdr_id_t id, const uint8_t *wire, void *hdr_struct);

/**
 * soft_hdr_pack() by walking the field table, even for a header with a
 * written-out codec (for the test that the two agree).
 */
boolean_t soft_hdr_pack_fields(soft_hdr_id_t id, const void *hdr_struct, uint8_t *wire);

/** soft_hdr_unpack() by walking the field table (see soft_hdr_pack_fields()). */
void soft_hdr_unpack_fields(soft_hdr_id_t id, const uint8_t *wire, void *hdr_struct);

/**
 * Prints a header's fields as "name=value" pairs (reserved fields skipped).
 * @param id the header.
 * @param wire soft_hdr_desc(id)->len bytes.
 * @param out receives a NUL-terminated string, truncated to fit.
 * @param out_size size of @p out.
 * @return the length the full string has (as snprintf), or -1 if @p id is out of range.
 */
int soft_hdr_format(soft_hdr_id_t id, const uint8_t *wire, char *out, size_t out_size);

/* ------------------------------------------------------------------------ */
/* Opcodes                                                                   */
/* ------------------------------------------------------------------------ */

#define SOFT_TRANSPORT_RC 0x00 /**< Opcode bits 7:5: reliable connection. */
#define SOFT_TRANSPORT_UC 0x20 /**< Opcode bits 7:5: unreliable connection. */
#define SOFT_TRANSPORT_RD 0x40 /**< Opcode bits 7:5: reliable datagram (not supported). */
#define SOFT_TRANSPORT_UD 0x60 /**< Opcode bits 7:5: unreliable datagram. */
#define SOFT_TRANSPORT_MASK 0xE0 /**< Transport bits of an opcode. */

/** Opcode bits 4:0, the operation (IBA table 38). */
enum soft_op {
	SOFT_OP_SEND_FIRST = 0x00,            /**< SEND First. */
	SOFT_OP_SEND_MIDDLE = 0x01,           /**< SEND Middle. */
	SOFT_OP_SEND_LAST = 0x02,             /**< SEND Last. */
	SOFT_OP_SEND_LAST_IMM = 0x03,         /**< SEND Last with Immediate. */
	SOFT_OP_SEND_ONLY = 0x04,             /**< SEND Only. */
	SOFT_OP_SEND_ONLY_IMM = 0x05,         /**< SEND Only with Immediate. */
	SOFT_OP_WRITE_FIRST = 0x06,           /**< RDMA WRITE First. */
	SOFT_OP_WRITE_MIDDLE = 0x07,          /**< RDMA WRITE Middle. */
	SOFT_OP_WRITE_LAST = 0x08,            /**< RDMA WRITE Last. */
	SOFT_OP_WRITE_LAST_IMM = 0x09,        /**< RDMA WRITE Last with Immediate. */
	SOFT_OP_WRITE_ONLY = 0x0A,            /**< RDMA WRITE Only. */
	SOFT_OP_WRITE_ONLY_IMM = 0x0B,        /**< RDMA WRITE Only with Immediate. */
	SOFT_OP_READ_REQUEST = 0x0C,          /**< RDMA READ Request. */
	SOFT_OP_READ_RESPONSE_FIRST = 0x0D,   /**< RDMA READ response First. */
	SOFT_OP_READ_RESPONSE_MIDDLE = 0x0E,  /**< RDMA READ response Middle. */
	SOFT_OP_READ_RESPONSE_LAST = 0x0F,    /**< RDMA READ response Last. */
	SOFT_OP_READ_RESPONSE_ONLY = 0x10,    /**< RDMA READ response Only. */
	SOFT_OP_ACKNOWLEDGE = 0x11,           /**< Acknowledge. */
	SOFT_OP_ATOMIC_ACKNOWLEDGE = 0x12,    /**< ATOMIC Acknowledge. */
	SOFT_OP_COMPARE_SWAP = 0x13,          /**< CmpSwap. */
	SOFT_OP_FETCH_ADD = 0x14,             /**< FetchAdd. */
	SOFT_OP_SEND_LAST_INV = 0x16,         /**< SEND Last with Invalidate. */
	SOFT_OP_SEND_ONLY_INV = 0x17          /**< SEND Only with Invalidate. */
};

/** Builds an opcode from a SOFT_TRANSPORT_* and a SOFT_OP_* value. */
#define SOFT_OPCODE(transport, op) ((uint8_t)((transport) | (op)))

#define SOFT_HDRF_DETH           (1u << SOFT_HDR_DETH)           /**< Opcode carries a DETH. */
#define SOFT_HDRF_RETH           (1u << SOFT_HDR_RETH)           /**< Opcode carries a RETH. */
#define SOFT_HDRF_AETH           (1u << SOFT_HDR_AETH)           /**< Opcode carries an AETH. */
/** Opcode carries an AtomicETH. */
#define SOFT_HDRF_ATOMIC_ETH     (1u << SOFT_HDR_ATOMIC_ETH)
/** Opcode carries an AtomicAckETH. */
#define SOFT_HDRF_ATOMIC_ACK_ETH (1u << SOFT_HDR_ATOMIC_ACK_ETH)
#define SOFT_HDRF_IMMDT          (1u << SOFT_HDR_IMMDT)          /**< Opcode carries ImmDt. */
#define SOFT_HDRF_IETH           (1u << SOFT_HDR_IETH)           /**< Opcode carries an IETH. */

#define SOFT_OPF_PAYLOAD  0x0001 /**< May carry payload (else none, pad count 0). */
#define SOFT_OPF_FIRST    0x0002 /**< First packet of a message (full PMTU, pad count 0). */
#define SOFT_OPF_MIDDLE   0x0004 /**< Middle packet of a message (full PMTU, pad count 0). */
#define SOFT_OPF_LAST     0x0008 /**< Last packet of a message. */
#define SOFT_OPF_ONLY     0x0010 /**< Only packet of a message. */
#define SOFT_OPF_REQUEST  0x0020 /**< Sent by a requester. */
#define SOFT_OPF_RESPONSE 0x0040 /**< Sent by a responder. */
#define SOFT_OPF_SEND     0x0080 /**< SEND operation. */
#define SOFT_OPF_WRITE    0x0100 /**< RDMA WRITE operation. */
#define SOFT_OPF_READ     0x0200 /**< RDMA READ request or response. */
#define SOFT_OPF_ATOMIC   0x0400 /**< Atomic request or atomic ACK. */
#define SOFT_OPF_ACK      0x0800 /**< Acknowledge (with or without atomic data). */
#define SOFT_OPF_IMM      0x1000 /**< Carries immediate data. */
#define SOFT_OPF_INV      0x2000 /**< SEND with invalidate. */

/** What an opcode carries. */
typedef struct soft_opcode_info {
	const char *name;  /**< Name, e.g. "RC_SEND_ONLY"; NULL for unsupported opcodes. */
	uint16_t hdrs;     /**< Extended headers after the BTH (SOFT_HDRF_*), in that order. */
	uint8_t ext_len;   /**< Their total length in bytes. */
	uint16_t flags;    /**< SOFT_OPF_*. */
} soft_opcode_info_t;

/**
 * The opcode table, indexed by BTH:OpCode: what each opcode of RC, UC and
 * UD that this module supports carries. The entries of the other opcodes
 * are all zero (no name, no flags). Read it through soft_opcode_info() and
 * the helpers beside it; it is in the header so that they are inline.
 */
extern const soft_opcode_info_t soft_opcodes[256];

/**
 * Describes an opcode.
 * @param opcode BTH:OpCode.
 * @return the description, or NULL if the opcode is not one of RC, UC or UD
 *         that this module supports.
 */
static inline const soft_opcode_info_t *soft_opcode_info(uint8_t opcode)
{
	return soft_opcodes[opcode].name ? &soft_opcodes[opcode] : NULL;
}

/* ------------------------------------------------------------------------ */
/* AETH syndrome                                                             */
/* ------------------------------------------------------------------------ */

/** AETH syndrome bits 6:5. */
enum soft_aeth_type {
	SOFT_AETH_ACK = 0,      /**< ACK; bits 4:0 are the credit count code. */
	SOFT_AETH_RNR_NAK = 1,  /**< RNR NAK; bits 4:0 are the RNR timer code. */
	SOFT_AETH_RESERVED = 2, /**< Reserved. */
	SOFT_AETH_NAK = 3       /**< NAK; bits 4:0 are a SOFT_NAK_* code. */
};

/** NAK codes (AETH syndrome bits 4:0 when the type is SOFT_AETH_NAK). */
enum soft_nak_code {
	SOFT_NAK_PSN_SEQ_ERR = 0,    /**< PSN sequence error. */
	SOFT_NAK_INVALID_REQ = 1,    /**< Invalid request. */
	SOFT_NAK_REM_ACCESS_ERR = 2, /**< Remote access error. */
	SOFT_NAK_REM_OP_ERR = 3,     /**< Remote operational error. */
	SOFT_NAK_INVALID_RD_REQ = 4  /**< Invalid RD request. */
};

/** Credit count code meaning "no end-to-end credits advertised". */
#define SOFT_AETH_CREDITS_INVALID 0x1F

/**
 * Builds an AETH syndrome.
 * @param type a soft_aeth_type value.
 * @param value credit code, RNR timer code or NAK code (5 bits).
 * @return the syndrome byte.
 */
static inline uint8_t soft_aeth_encode(unsigned type, unsigned value)
{
	return (uint8_t)(((type & 3u) << 5) | (value & 0x1Fu));
}

/**
 * Type of an AETH syndrome.
 * @param syndrome the syndrome.
 * @return its soft_aeth_type value.
 */
static inline unsigned soft_aeth_type(uint8_t syndrome)
{
	return (syndrome >> 5) & 3u;
}

/**
 * Value bits of an AETH syndrome.
 * @param syndrome the syndrome.
 * @return credit code, RNR timer code or NAK code (5 bits).
 */
static inline unsigned soft_aeth_value(uint8_t syndrome)
{
	return syndrome & 0x1Fu;
}

/**
 * Decodes an AETH credit count code.
 * @param code the code, 0 to 31.
 * @return the number of credits (0 to 32768), or -1 for SOFT_AETH_CREDITS_INVALID.
 */
int soft_aeth_credits(unsigned code);

/**
 * Decodes an RNR NAK timer code (also the QP attribute rnr_nak_timeout).
 * @param code the code, 0 to 31 (0 is the longest, 655.36 ms).
 * @return the minimum delay in microseconds.
 */
uint32_t soft_rnr_timer_us(unsigned code);

/* ------------------------------------------------------------------------ */
/* PSN arithmetic                                                            */
/* ------------------------------------------------------------------------ */

/**
 * Adds to a PSN modulo 2^24.
 * @param psn the PSN.
 * @param n the increment (may be "negative" as a wrapped uint32_t).
 * @return (psn + n) mod 2^24.
 */
static inline uint32_t soft_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & SOFT_PSN_MASK;
}

/**
 * Signed distance from one PSN to another within the 2^23 window.
 * @param a a PSN.
 * @param b a PSN.
 * @return a - b as a value in [-2^23, 2^23 - 1]: positive when @p a is after @p b.
 */
static inline int32_t soft_psn_diff(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & SOFT_PSN_MASK;

	return d >= SOFT_PSN_WINDOW ? (int32_t)d - (int32_t)(SOFT_PSN_MASK + 1) : (int32_t)d;
}

/**
 * Tells whether a PSN comes before another.
 * @param a a PSN.
 * @param b a PSN.
 * @return TRUE if soft_psn_diff(a, b) < 0.
 */
static inline boolean_t soft_psn_lt(uint32_t a, uint32_t b)
{
	return soft_psn_diff(a, b) < 0;
}

/**
 * Tells whether a PSN comes before or equals another.
 * @param a a PSN.
 * @param b a PSN.
 * @return TRUE if soft_psn_diff(a, b) <= 0.
 */
static inline boolean_t soft_psn_le(uint32_t a, uint32_t b)
{
	return soft_psn_diff(a, b) <= 0;
}

/**
 * Tells whether a PSN lies in a range, both ends included, going forward.
 * @param psn the PSN.
 * @param first first PSN of the range.
 * @param last last PSN of the range, less than 2^23 after @p first.
 * @return TRUE if @p psn is one of first, first + 1, ..., last.
 */
static inline boolean_t soft_psn_in_range(uint32_t psn, uint32_t first, uint32_t last)
{
	return ((psn - first) & SOFT_PSN_MASK) <= ((last - first) & SOFT_PSN_MASK);
}

/** Where a received request PSN lies relative to the expected PSN (IBA 9.7.5.1). */
typedef enum soft_psn_region {
	SOFT_PSN_EXPECTED = 0, /**< The expected PSN. */
	SOFT_PSN_DUPLICATE,    /**< One of the 2^23 PSNs before it: a duplicate. */
	SOFT_PSN_INVALID       /**< One of the 2^23 - 1 PSNs after it: a sequence error. */
} soft_psn_region_t;

/**
 * Classifies a received request PSN against the responder's expected PSN.
 * @param psn the received PSN.
 * @param expected the expected PSN.
 * @return SOFT_PSN_EXPECTED, SOFT_PSN_DUPLICATE or SOFT_PSN_INVALID.
 */
static inline soft_psn_region_t soft_psn_region(uint32_t psn, uint32_t expected)
{
	int32_t d = soft_psn_diff(psn, expected);

	return d == 0 ? SOFT_PSN_EXPECTED : d < 0 ? SOFT_PSN_DUPLICATE : SOFT_PSN_INVALID;
}

/* ------------------------------------------------------------------------ */
/* CRCs                                                                      */
/* ------------------------------------------------------------------------ */

/**
 * CRC-32 of the ICRC (and of Ethernet): polynomial 0x04C11DB7, bit-reflected,
 * preset to ones, complemented result. Chainable: pass the previous result.
 * @param crc 0 to start, or the result over the preceding bytes.
 * @param data the bytes.
 * @param len their number.
 * @return the CRC of everything so far (0xCBF43926 for "123456789").
 */
uint32_t soft_crc32(uint32_t crc, const void *data, size_t len);

/**
 * CRC-16 of the VCRC: polynomial 0x100B, bit-reflected, preset to ones,
 * complemented result. Chainable: pass the previous result.
 * @param crc 0 to start, or the result over the preceding bytes.
 * @param data the bytes.
 * @param len their number.
 * @return the CRC of everything so far.
 */
uint16_t soft_crc16(uint16_t crc, const void *data, size_t len);

/**
 * Computes a packet's ICRC (IBA 7.8.1): CRC-32 of the bytes from the LRH up
 * to the ICRC with the variant fields as ones: LRH:VL and BTH:Resv8a for a
 * local packet; the whole LRH, GRH:TClass, GRH:FlowLabel, GRH:HopLmt and
 * BTH:Resv8a for a global one (LRH:LNH tells which).
 * @param pkt the packet from its first LRH byte.
 * @param icrc_off offset of the ICRC field: the length covered.
 * @return the ICRC, or 0 if @p icrc_off is shorter than LRH [+ GRH] + BTH.
 */
uint32_t soft_icrc(const uint8_t *pkt, size_t icrc_off);

/**
 * Computes a packet's VCRC (IBA 7.8.2): CRC-16 of every byte from the LRH
 * through the ICRC.
 * @param pkt the packet from its first LRH byte.
 * @param vcrc_off offset of the VCRC field: the length covered.
 * @return the VCRC.
 */
uint16_t soft_vcrc(const uint8_t *pkt, size_t vcrc_off);

/**
 * Computes and stores the ICRC and VCRC of a packet whose headers, payload
 * and pad are in place. Both are stored least significant byte first, as the
 * Ethernet FCS and the RoCE ICRC are.
 * @param pkt the packet.
 * @param len its total length, ICRC and VCRC included, at least SOFT_MIN_PKT_LEN
 *        (40 more with a GRH).
 * @return SOFT_WIRE_OK, or SOFT_WIRE_ERR_ARG if @p pkt is NULL or @p len too short.
 */
soft_wire_status_t soft_pkt_seal(uint8_t *pkt, size_t len);

/**
 * Stores zero in a packet's ICRC and VCRC instead of computing them: for a
 * packet whose link says it carries no CRCs (see soft_fabric_send_flags()).
 * @param pkt the packet. @param len its total length.
 * @return as soft_pkt_seal().
 */
soft_wire_status_t soft_pkt_seal_none(uint8_t *pkt, size_t len);

/* ------------------------------------------------------------------------ */
/* Whole packets                                                             */
/* ------------------------------------------------------------------------ */

/** A packet, unpacked. Only the headers its opcode calls for are meaningful. */
typedef struct soft_pkt {
	soft_lrh_t lrh;                   /**< LRH; lnh chooses local or global. */
	ib_grh_t grh;                     /**< GRH (wire image) if lrh.lnh is 3 (global). */
	soft_bth_t bth;                   /**< BTH. */
	soft_deth_t deth;                 /**< DETH. */
	soft_reth_t reth;                 /**< RETH. */
	soft_aeth_t aeth;                 /**< AETH. */
	soft_atomic_eth_t atomic_eth;     /**< AtomicETH. */
	soft_atomic_ack_eth_t atomic_ack; /**< AtomicAckETH. */
	soft_immdt_t immdt;               /**< ImmDt. */
	soft_ieth_t ieth;                 /**< IETH. */
	const uint8_t *payload;           /**< Payload bytes (parse: inside the parsed buffer). */
	uint32_t payload_len;             /**< Payload length, pad excluded. */
	uint32_t icrc;                    /**< Parse: the ICRC received. */
	uint16_t vcrc;                    /**< Parse: the VCRC received. */
	uint32_t link_flags;              /**< Receive: soft_fabric_rx_flags() it came with (set by the receiver after parsing; 0 from the parser). */
} soft_pkt_t;

/**
 * Length of the headers a packet will have (LRH through the extended headers).
 * @param pkt the packet; lrh.lnh and bth.opcode are used.
 * @return the length in bytes, or 0 if lnh or the opcode is not supported.
 */
size_t soft_pkt_hdr_len(const soft_pkt_t *pkt);

/**
 * Length of the whole packet soft_pkt_build() will produce.
 * @param pkt the packet; lrh.lnh, bth.opcode and payload_len are used.
 * @return the length in bytes, or 0 if lnh or the opcode is not supported.
 */
size_t soft_pkt_len(const soft_pkt_t *pkt);

/**
 * Writes a packet's headers (LRH through the extended headers), so that the
 * caller can then gather the payload after them and call soft_pkt_seal().
 * Computed, not taken from @p pkt: LRH:PktLen, BTH:PadCnt, GRH:IPVer (6),
 * GRH:PayLen and GRH:NxtHdr (0x1B). Everything else is written as given.
 * @param pkt the packet; payload_len is used, payload is not.
 * @param buf receives the headers.
 * @param buf_size size of @p buf.
 * @param p_hdr_len receives the header length; may be NULL.
 * @return SOFT_WIRE_OK; SOFT_WIRE_ERR_ARG if a pointer is NULL, lrh.lnh is not
 *         2 or 3, the opcode is not supported, a field exceeds its width, the
 *         payload is longer than SOFT_MAX_PAYLOAD, present on an opcode without
 *         payload, or empty or not a multiple of 4 on a first or middle packet;
 *         SOFT_WIRE_ERR_SPACE if @p buf_size is below the header length (argument
 *         errors are reported first). On error @p buf holds unspecified bytes.
 */
soft_wire_status_t soft_pkt_build_hdrs(const soft_pkt_t *pkt, uint8_t *buf, size_t buf_size,
				       size_t *p_hdr_len);

/**
 * Builds a whole packet: headers, payload, zero pad, ICRC, VCRC.
 * @param pkt the packet (see soft_pkt_build_hdrs(); payload may be NULL only
 *        if payload_len is 0).
 * @param buf receives the packet.
 * @param buf_size size of @p buf.
 * @param p_len receives the packet length; may be NULL.
 * @return as soft_pkt_build_hdrs(), and SOFT_WIRE_ERR_ARG if payload is NULL
 *         with a nonzero payload_len; SOFT_WIRE_ERR_SPACE if the whole packet
 *         does not fit.
 */
soft_wire_status_t soft_pkt_build(const soft_pkt_t *pkt, uint8_t *buf, size_t buf_size,
				  size_t *p_len);

/**
 * Checks and unpacks a received packet. In order: the size against the LRH
 * (SOFT_WIRE_ERR_SHORT, _LNH, _LENGTH), the VCRC, the ICRC, the GRH
 * (IPVer, NxtHdr: _VERSION; PayLen: _LENGTH), LRH:LVer and BTH:TVer
 * (_VERSION), the opcode (_OPCODE), the extended headers (_SHORT), the pad
 * count and payload size (_PAD).
 * @param buf the packet from its first LRH byte; only @p len bytes are read.
 * @param len the packet length, VCRC included.
 * @param pkt receives the headers; payload points into @p buf. Unused headers are zeroed.
 * @return SOFT_WIRE_OK or the first error found (see above); SOFT_WIRE_ERR_ARG
 *         if a pointer is NULL.
 */
soft_wire_status_t soft_pkt_parse(const uint8_t *buf, size_t len, soft_pkt_t *pkt);

/** soft_pkt_parse_flags(): the ICRC and VCRC were not computed (a link that cannot corrupt). */
#define SOFT_PARSE_NO_CRC 1u

/**
 * soft_pkt_parse() with options: with SOFT_PARSE_NO_CRC the VCRC and ICRC are
 * not checked (their fields are still unpacked).
 * @param buf the packet. @param len its length. @param flags SOFT_PARSE_*.
 * @param pkt receives the headers.
 * @return as soft_pkt_parse().
 */
soft_wire_status_t soft_pkt_parse_flags(const uint8_t *buf, size_t len, unsigned flags,
					soft_pkt_t *pkt);

/* ------------------------------------------------------------------------ */
/* Fast accessors on wire images                                             */
/* ------------------------------------------------------------------------ */

/** @cond INTERNAL */
static inline uint16_t soft_get_be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t soft_get_be24(const uint8_t *p)
{
	return ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
}

static inline uint32_t soft_get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | soft_get_be24(p + 1);
}

static inline uint64_t soft_get_be64(const uint8_t *p)
{
	return ((uint64_t)soft_get_be32(p) << 32) | soft_get_be32(p + 4);
}

static inline void soft_put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}
/** @endcond */

/** @param lrh LRH wire image. @return LRH:VL. */
static inline uint8_t soft_lrh_vl(const uint8_t *lrh) { return lrh[0] >> 4; }
/** @param lrh LRH wire image. @return LRH:SL. */
static inline uint8_t soft_lrh_sl(const uint8_t *lrh) { return lrh[1] >> 4; }
/** @param lrh LRH wire image. @return LRH:LNH. */
static inline uint8_t soft_lrh_lnh(const uint8_t *lrh) { return lrh[1] & 3u; }
/** @param lrh LRH wire image. @return LRH:DLID. */
static inline uint16_t soft_lrh_dlid(const uint8_t *lrh) { return soft_get_be16(lrh + 2); }
/** @param lrh LRH wire image. @return LRH:PktLen, in 4-byte words. */
static inline uint16_t soft_lrh_pkt_len(const uint8_t *lrh)
{
	return soft_get_be16(lrh + 4) & 0x7FFu;
}
/** @param lrh LRH wire image. @return LRH:SLID. */
static inline uint16_t soft_lrh_slid(const uint8_t *lrh) { return soft_get_be16(lrh + 6); }

/**
 * Finds the BTH of a packet.
 * @param pkt the packet from its first LRH byte (LRH, and GRH if present, readable).
 * @return the BTH's first byte (after the GRH if LRH:LNH says global).
 */
static inline const uint8_t *soft_pkt_bth(const uint8_t *pkt)
{
	return pkt + SOFT_LRH_LEN + (soft_lrh_lnh(pkt) == SOFT_LNH_IBA_GLOBAL ? SOFT_GRH_LEN : 0);
}

/**
 * Whether the first bytes of a packet, not taken yet (a look ahead at a
 * ring's next record), are a response (SOFT_OPF_RESPONSE in the opcode
 * table: an RC read response or acknowledgement, which a responder sends and
 * a requester consumes). Nothing but the LRH:LNH and the BTH:OpCode is
 * looked at: a hint, not a check of the packet.
 * @param pkt the packet's first bytes. @param len how many there are.
 * @return TRUE for a response; FALSE otherwise, or if @p len is too short.
 */
static inline boolean_t soft_pkt_peek_response(const uint8_t *pkt, size_t len)
{
	const soft_opcode_info_t *info;
	const uint8_t *bth;

	if (len <= SOFT_LRH_LEN ||
	    (soft_lrh_lnh(pkt) != SOFT_LNH_IBA_LOCAL && soft_lrh_lnh(pkt) != SOFT_LNH_IBA_GLOBAL))
		return FALSE;
	bth = soft_pkt_bth(pkt);
	if ((size_t)(bth - pkt) >= len)
		return FALSE;
	info = soft_opcode_info(bth[0]); /* BTH:OpCode */
	return info && (info->flags & SOFT_OPF_RESPONSE);
}

/** @param bth BTH wire image. @return BTH:OpCode. */
static inline uint8_t soft_bth_opcode(const uint8_t *bth) { return bth[0]; }
/** @param bth BTH wire image. @return BTH:SE. */
static inline uint8_t soft_bth_se(const uint8_t *bth) { return bth[1] >> 7; }
/** @param bth BTH wire image. @return BTH:M. */
static inline uint8_t soft_bth_mig(const uint8_t *bth) { return (bth[1] >> 6) & 1u; }
/** @param bth BTH wire image. @return BTH:PadCnt. */
static inline uint8_t soft_bth_pad_cnt(const uint8_t *bth) { return (bth[1] >> 4) & 3u; }
/** @param bth BTH wire image. @return BTH:TVer. */
static inline uint8_t soft_bth_tver(const uint8_t *bth) { return bth[1] & 0xFu; }
/** @param bth BTH wire image. @return BTH:P_Key. */
static inline uint16_t soft_bth_pkey(const uint8_t *bth) { return soft_get_be16(bth + 2); }
/** @param bth BTH wire image. @return BTH:DestQP. */
static inline uint32_t soft_bth_dest_qp(const uint8_t *bth) { return soft_get_be24(bth + 5); }
/** @param bth BTH wire image. @return BTH:A. */
static inline uint8_t soft_bth_ack_req(const uint8_t *bth) { return bth[8] >> 7; }
/** @param bth BTH wire image. @return BTH:PSN. */
static inline uint32_t soft_bth_psn(const uint8_t *bth) { return soft_get_be24(bth + 9); }

/**
 * Sets BTH:PSN (the packet must be sealed again).
 * @param bth BTH wire image.
 * @param psn the PSN (24 bits used).
 */
static inline void soft_bth_set_psn(uint8_t *bth, uint32_t psn) { soft_put_be24(bth + 9, psn); }

/**
 * Sets BTH:A (the packet must be sealed again).
 * @param bth BTH wire image.
 * @param ack_req 0 or 1.
 */
static inline void soft_bth_set_ack_req(uint8_t *bth, unsigned ack_req)
{
	bth[8] = (uint8_t)((bth[8] & 0x7Fu) | ((ack_req & 1u) << 7));
}

/**
 * Whether an opcode's packets carry no extended header (in the opcode
 * table: supported, no SOFT_HDRF_* bit): the RC and UC SEND First, Middle,
 * Last and Only and RDMA WRITE Middle and Last, and the RC RDMA READ
 * response Middle.
 * @param opcode the opcode. @return TRUE for those.
 */
static inline boolean_t soft_opcode_bare(uint8_t opcode)
{
	/* Every supported opcode has flags; the others are all zero. */
	return soft_opcodes[opcode].flags && !soft_opcodes[opcode].hdrs;
}

/**
 * Writes the headers of a packet without extended headers (soft_opcode_bare)
 * on a path's base: the LRH, GRH (if any) and BTH of an earlier packet of
 * the same path as soft_pkt_build_hdrs() wrote them. The base gives what a
 * path fixes (VL, SL, LNH, the LIDs, the GRH, MigReq, P_Key, DestQP); the
 * rest is set as soft_pkt_build_hdrs() would for these values: LRH:PktLen,
 * GRH:PayLen and BTH:PadCnt from @p payload_len, BTH:OpCode, SE, A, PSN.
 * For the RC transport's every data packet: about 20 instructions where the
 * codec takes about 175. The caller vouches for the arguments.
 * @param buf receives the headers (@p base_len bytes).
 * @param base the base. @param base_len its bytes: LRH + BTH, or LRH + GRH + BTH.
 * @param opcode a bare opcode. @param se BTH:SE, 0 or 1.
 * @param ack_req BTH:A, 0 or 1. @param psn BTH:PSN (24 bits used).
 * @param payload_len the payload's bytes, at most SOFT_MAX_PAYLOAD.
 * @return the header length, @p base_len.
 */
static inline size_t soft_hdrs_on_base(uint8_t *buf, const uint8_t *base, size_t base_len,
				       uint8_t opcode, unsigned se, unsigned ack_req, uint32_t psn,
				       uint32_t payload_len)
{
	uint32_t pad = (4u - (payload_len & 3u)) & 3u;
	uint32_t total = (uint32_t)base_len + payload_len + pad + SOFT_ICRC_LEN;
	uint8_t *bth = buf + base_len - SOFT_BTH_LEN;

	/* Copies of a constant size: a few moves each. */
	if (base_len > SOFT_LRH_LEN + SOFT_BTH_LEN) {
		memcpy(buf, base, SOFT_LRH_LEN + SOFT_GRH_LEN + SOFT_BTH_LEN);
		buf[SOFT_LRH_LEN + 4] = (uint8_t)((total - SOFT_LRH_LEN - SOFT_GRH_LEN) >> 8);
		buf[SOFT_LRH_LEN + 5] = (uint8_t)(total - SOFT_LRH_LEN - SOFT_GRH_LEN); /* GRH:PayLen */
	} else {
		memcpy(buf, base, SOFT_LRH_LEN + SOFT_BTH_LEN);
	}
	buf[4] = (uint8_t)(total >> 10); /* LRH:PktLen, in words; its 5 reserved bits 0 */
	buf[5] = (uint8_t)(total >> 2);
	bth[0] = opcode;
	bth[1] = (uint8_t)((bth[1] & 0x4Fu) | (se & 1u) << 7 | pad << 4); /* MigReq, TVer kept */
	bth[8] = (uint8_t)((ack_req & 1u) << 7);
	soft_put_be24(bth + 9, psn);
	return base_len;
}

/**
 * Sets AETH:Syndrome and AETH:MSN (the packet must be sealed again).
 * @param aeth AETH wire image.
 * @param syndrome the syndrome (soft_aeth_encode()).
 * @param msn the MSN (24 bits used).
 */
static inline void soft_aeth_set(uint8_t *aeth, uint8_t syndrome, uint32_t msn)
{
	aeth[0] = syndrome;
	soft_put_be24(aeth + 1, msn);
}

/** @param deth DETH wire image. @return DETH:Q_Key. */
static inline uint32_t soft_deth_qkey(const uint8_t *deth) { return soft_get_be32(deth); }
/** @param deth DETH wire image. @return DETH:SrcQP. */
static inline uint32_t soft_deth_src_qp(const uint8_t *deth) { return soft_get_be24(deth + 5); }
/** @param reth RETH wire image. @return RETH:VA. */
static inline uint64_t soft_reth_va(const uint8_t *reth) { return soft_get_be64(reth); }
/** @param reth RETH wire image. @return RETH:R_Key. */
static inline uint32_t soft_reth_rkey(const uint8_t *reth) { return soft_get_be32(reth + 8); }
/** @param reth RETH wire image. @return RETH:DMALen. */
static inline uint32_t soft_reth_dma_len(const uint8_t *reth) { return soft_get_be32(reth + 12); }
/** @param aeth AETH wire image. @return AETH:Syndrome. */
static inline uint8_t soft_aeth_syndrome(const uint8_t *aeth) { return aeth[0]; }
/** @param aeth AETH wire image. @return AETH:MSN. */
static inline uint32_t soft_aeth_msn(const uint8_t *aeth) { return soft_get_be24(aeth + 1); }
/** @param ae AtomicETH wire image. @return AtomicETH:VA. */
static inline uint64_t soft_atomic_eth_va(const uint8_t *ae) { return soft_get_be64(ae); }
/** @param ae AtomicETH wire image. @return AtomicETH:R_Key. */
static inline uint32_t soft_atomic_eth_rkey(const uint8_t *ae) { return soft_get_be32(ae + 8); }
/** @param ae AtomicETH wire image. @return AtomicETH:SwapDt (or AddData). */
static inline uint64_t soft_atomic_eth_swap_add(const uint8_t *ae)
{
	return soft_get_be64(ae + 12);
}
/** @param ae AtomicETH wire image. @return AtomicETH:CmpDt. */
static inline uint64_t soft_atomic_eth_compare(const uint8_t *ae) { return soft_get_be64(ae + 20); }
/** @param aa AtomicAckETH wire image. @return AtomicAckETH:OrigRemDt. */
static inline uint64_t soft_atomic_ack_orig(const uint8_t *aa) { return soft_get_be64(aa); }

#ifdef __cplusplus
}
#endif

#endif /* _SOFT_WIRE_H_ */
