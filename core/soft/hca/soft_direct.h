/*
 * ibal soft provider: direct placement of RDMA data between processes, declarations.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file soft_direct.h
 * @brief Direct placement: the data of a long RC RDMA write or read moves
 * from one process's registered memory into the other's with one copy
 * (process_vm_readv(2), or memcpy() within a process) instead of in
 * MTU-sized packets through the receiver's ring. Never installed.
 *
 * A direct write is one RDMA WRITE Only packet (sent with
 * SOFT_FABRIC_DIRECT) whose RETH is the write's and whose payload is a
 * descriptor of the requester's source segments; the responder checks it
 * exactly as the packets it stands for (QP state, PSN, R_Key, rights,
 * bounds, receive WQE for immediate data), then pulls the data into the
 * region. A read request sent with SOFT_FABRIC_DIRECT lets the responder
 * answer with one READ RESPONSE Only packet whose payload describes the
 * range it checked; the requester pulls it into its segments. Either
 * packet consumes the PSNs of the packets it stands for, so ACKs,
 * duplicates and go-back-N work as for packets. The process pulled from is
 * always the one the fabric registry names for the other port's LID
 * (soft_fabric_direct_pid()), never one a packet names.
 *
 * A pull that fails (process_vm_readv refused by the kernel, a process
 * gone) makes the puller ask for packets: a responder answers the write
 * with a PSN sequence error NAK sent with SOFT_FABRIC_DIRECT, a requester
 * asks for the read again without the flag; either QP then stops using
 * direct placement and logs it once per process.
 */
#ifndef SOFT_DIRECT_H
#define SOFT_DIRECT_H

#include <stdint.h>
#include <complib/cl_types.h>

/** Environment: the smallest RDMA write or read placed directly, bytes; 0: never. */
#define SOFT_ENV_DIRECT "IBAL_SOFT_DIRECT"
/** Default of SOFT_ENV_DIRECT. */
#define SOFT_DIRECT_MIN_DEFAULT 16384u
/** Segments a descriptor holds at most (the soft HCA's SGE limit). */
#define SOFT_DIRECT_MAX_SEGS 32u

/** SOFT_ENV_DIRECT, read at provider init (soft_prov.c). */
extern uint32_t soft_direct_min;

/** A range of one process's memory: address in that process, length. */
typedef struct soft_direct_seg {
	uint64_t addr; /**< Start, in the describing process. */
	uint64_t len;  /**< Bytes. */
} soft_direct_seg_t;

/**
 * Bytes of a descriptor of @p n segments (a multiple of 4).
 * @param n segments, 1..SOFT_DIRECT_MAX_SEGS. @return its length.
 */
static inline uint32_t soft_direct_desc_len(uint32_t n)
{
	return 8u + 16u * n;
}

/**
 * Writes a descriptor of @p n segments at @p dst (soft_direct_desc_len(n) bytes).
 * @param dst where. @param seg the segments. @param n their number.
 */
void soft_direct_encode(uint8_t *dst, const soft_direct_seg_t *seg, uint32_t n);

/**
 * Reads a descriptor a peer wrote, trusting nothing: the length must be
 * exactly that of its segment count, 1..SOFT_DIRECT_MAX_SEGS segments, none
 * empty, the total without overflow.
 * @param src the payload. @param len its length.
 * @param seg receives up to SOFT_DIRECT_MAX_SEGS segments.
 * @param p_total receives the sum of their lengths.
 * @return the number of segments, 0 if the descriptor is malformed.
 */
uint32_t soft_direct_decode(const uint8_t *src, uint32_t len, soft_direct_seg_t *seg,
			    uint64_t *p_total);

/**
 * Copies the bytes of process @p pid's segments @p src into this process's
 * segments @p dst (the same total): memcpy() when @p pid is this process,
 * process_vm_readv(2) otherwise. The first refusal by the kernel is logged.
 * @param pid the process holding @p src (from the fabric registry).
 * @param dst local segments. @param nd their number.
 * @param src remote segments. @param ns their number.
 * @return TRUE if every byte was copied.
 */
boolean_t soft_direct_pull(int32_t pid, const soft_direct_seg_t *dst, uint32_t nd,
			   const soft_direct_seg_t *src, uint32_t ns);

#endif /* SOFT_DIRECT_H */
