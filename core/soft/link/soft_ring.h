/*
 * ibal soft provider: a port's receive ring in shared memory.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file soft_ring.h
 * @brief The shared-memory link of a soft port: a multi-producer,
 * single-consumer ring of packets in a file of the fabric directory
 * (`ring-<port GUID>`), mapped by the port's process (the consumer) and by
 * every process that sends to the port (the producers).
 *
 * **Layout.** A header page, then `SOFT_RING_BYTES` of records, then
 * `SOFT_RING_SPILL` bytes into which the last record of a lap may run on
 * (records are written and read contiguously, never split). A record is a
 * 16-byte head (stamp, length, flags) and the packet, padded to
 * `SOFT_RING_ALIGN`. Positions grow without wrapping (64 bits); a record at
 * position p lives at offset p % SOFT_RING_BYTES.
 *
 * **Residency.** The consumer's mapping (soft_ring_create) and a producer's
 * (soft_ring_attach) are put in the process's page tables whole when made
 * (ibal_mem_populate_shared), so that the first lap of records faults no
 * page on either side.
 *
 * **Producers** claim space by a compare-and-swap on the shared tail, provided
 * the consumer's published head leaves room (as the producer last read it:
 * the shared head is read again only when that copy shows too little); a
 * full ring is not waited on: the packet is dropped (soft_ring_put returns
 * SOFT_RING_FULL), as a switch drops what a congested port cannot take. The
 * producer then copies the packet and publishes it by storing the record's
 * stamp (its position + 1) last, with release order.
 *
 * **The consumer** keeps its own copy of the head and trusts nothing in the
 * shared area: a record is taken only when its stamp is exactly the one its
 * position calls for; its length is checked before any byte is copied; the
 * packet is copied out before it is parsed, and the stamp is read again after
 * the copy (a record overwritten meanwhile is dropped). A record with a bad
 * length, or one claimed but not published for SOFT_RING_STUCK_MS (its
 * producer died between the two steps), makes the consumer skip to the tail
 * as it was then: the packets between are dropped and counted, never a crash
 * or a wait. A consumer that finds nothing reads the shared tail only once
 * in 1,024 polls of one position, so that a caught-up consumer
 * does not pull the tail's line from the producers on every poll.
 *
 * **Sleeping.** A consumer that found the ring empty for a while sets the
 * shared `sleeping` word (soft_ring_arm), reads the tail, and waits on the
 * port's socket only if no record was claimed meanwhile; a producer reads
 * the word right after its claim (the claim's compare-and-swap orders the
 * two), clears it if set, and rings that socket once the record is published
 * (soft_ring_put's @p p_ring). While the consumer polls, producers make no
 * system call and no fence beyond the claim.
 */
#ifndef SOFT_RING_H
#define SOFT_RING_H

#include <stddef.h>
#include <stdint.h>
#include <iba/ib_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of records in a ring (a power of two). */
#define SOFT_RING_BYTES (1u << 20)
/** Record alignment (a cache line: producers never share one). */
#define SOFT_RING_ALIGN 64u
/** Bytes of a record's head. */
#define SOFT_RING_REC_HDR 16u
/** Largest packet a record holds. */
#define SOFT_RING_MAX_PKT (4096u + 128u)
/** Room past the end for the last record of a lap. */
#define SOFT_RING_SPILL 8192u
/** Bytes of the header page. */
#define SOFT_RING_HDR_BYTES 4096u
/** Size of a ring file. */
#define SOFT_RING_FILE_BYTES (SOFT_RING_HDR_BYTES + SOFT_RING_BYTES + SOFT_RING_SPILL)
/** The consumer publishes its head at least every this many bytes read (and whenever it is idle). */
#define SOFT_RING_PUBLISH_BYTES (SOFT_RING_BYTES / 8)
/** How long a claimed record may stay unpublished before it is skipped. */
#define SOFT_RING_STUCK_MS 1000u

/** 64-bit words of the ring header kept for the owner's port counters. */
#define SOFT_RING_OWNER_STATS 32u

/** The shared header of a ring file. */
typedef struct soft_ring_hdr {
	uint64_t magic;          /**< SOFT_RING_MAGIC. */
	uint32_t version;        /**< SOFT_RING_VERSION. */
	uint32_t hdr_bytes;      /**< SOFT_RING_HDR_BYTES. */
	uint64_t ring_bytes;     /**< SOFT_RING_BYTES. */
	uint64_t gen;            /**< Registry generation of the owner's LID; 0 once closed (atomic). */
	int32_t owner_pid;       /**< The consumer's process. */
	uint32_t reserved0;      /**< Zero. */
	uint8_t pad0[64 - 40];   /**< To the next cache line. */
	uint64_t tail;           /**< Next position to claim (producers, atomic). */
	uint8_t pad1[56];        /**< Own cache line. */
	uint64_t head;           /**< Consumer's position, published for producers (atomic). */
	uint8_t pad2[56];        /**< Own cache line. */
	uint32_t sleeping;       /**< Set by a consumer about to sleep (atomic). */
	uint8_t pad3[60];        /**< To the next cache line. */
	/** The consumer's port counters (soft_fabric_stats_t), written by the
	 * consumer's process only, read by the fabric inspector; what a
	 * producer finds there is never used. */
	uint64_t owner_stats[SOFT_RING_OWNER_STATS];
	uint8_t pad4[SOFT_RING_HDR_BYTES - 256 - 8 * SOFT_RING_OWNER_STATS]; /**< Rest of the page. */
} soft_ring_hdr_t;

/** "IBALRNG1" read little endian. */
#define SOFT_RING_MAGIC 0x31474E524C414249ull
/** Layout version. */
#define SOFT_RING_VERSION 1u

/** One process's view of a ring. */
typedef struct soft_ring {
	soft_ring_hdr_t *hdr;    /**< The mapping (header first); NULL when closed. */
	uint8_t *data;           /**< First byte of the records. */
	/** Consumer: next position to read (the trusted copy; written atomically
	 * for soft_ring_ready). Producer: the consumer's head as last read
	 * (atomic; shared by the process's threads). */
	uint64_t head;
	/* Consumer only. */
	uint64_t published;      /**< The head as last published in hdr->head. */
	uint64_t stuck_pos;      /**< Position found claimed but unpublished, or UINT64_MAX. */
	uint64_t stuck_ns;       /**< When it was first found so after stuck_polls polls (0: not yet). */
	uint32_t stuck_polls;    /**< Polls that found it so. */
	uint64_t dropped;        /**< Records skipped (bad, stuck, overwritten). */
} soft_ring_t;

/** soft_ring_put results. */
typedef enum {
	SOFT_RING_OK = 0,  /**< Published. */
	SOFT_RING_FULL,    /**< No room: dropped. */
	SOFT_RING_CLOSED   /**< The ring's owner closed it (generation changed). */
} soft_ring_put_t;

/** soft_ring_get results. */
typedef enum {
	SOFT_RING_GOT = 0, /**< A packet was copied out. */
	SOFT_RING_EMPTY,   /**< Nothing published at the head. */
	SOFT_RING_WAIT,    /**< A record is claimed at the head but not yet published (soft_ring_arm;
			    *   soft_ring_get once 1,024 polls found it so). */
	SOFT_RING_BIG      /**< The packet was longer than the buffer: discarded. */
} soft_ring_get_t;

/**
 * Creates a ring file (replacing a stale one of that name) and maps it as its
 * consumer. The file is allocated in full (posix_fallocate), so a full file
 * system fails here, never later with SIGBUS.
 * @param path the file's path.
 * @param gen the owner's registry generation.
 * @param ring receives the mapping.
 * @return 0, or an errno value.
 */
int soft_ring_create(const char *path, uint64_t gen, soft_ring_t *ring);

/**
 * Maps another port's ring as a producer. The file must be a regular file of
 * the caller's user, of the exact size, with this layout's magic and version.
 * @param path the file's path.
 * @param ring receives the mapping.
 * @return 0, or an errno value (EPROTO for a file that is not a ring).
 */
int soft_ring_attach(const char *path, soft_ring_t *ring);

/**
 * Marks a ring file closed (generation 0) so that producers stop using it,
 * without mapping it for anything else; used for the rings of dead ports.
 * @param path the file's path.
 * @param gen the generation it must still have.
 */
void soft_ring_retire(const char *path, uint64_t gen);

/** Unmaps a ring (NULL mapping ignored). */
void soft_ring_unmap(soft_ring_t *ring);

/**
 * Lets go of a producer's mapping that other threads of the process may
 * still be using without a reference (a peer replaced in the lock-free
 * peer table, soft_fabric_link.c): when it is the process's last mapping
 * of the file, the same addresses become private zero pages (the file's
 * pages are released; a late producer's record lands where nobody reads
 * it, and soft_ring_gen() reads 0 there). soft_ring_unmap() still frees
 * the addresses, once no thread can use them.
 * @param ring a producer's mapping (NULL mapping: nothing to do).
 * @return 1 if done (or nothing to do), 0 if another view of the file in
 * this process still maps it (try again later).
 */
int soft_ring_hollow(soft_ring_t *ring);

/** The owner's generation as the ring says now. */
static inline uint64_t soft_ring_gen(const soft_ring_t *ring)
{
	return __atomic_load_n(&ring->hdr->gen, __ATOMIC_ACQUIRE);
}

/** Sets the owner's generation (consumer: a LID move, or 0 when closing). */
static inline void soft_ring_set_gen(soft_ring_t *ring, uint64_t gen)
{
	__atomic_store_n(&ring->hdr->gen, gen, __ATOMIC_RELEASE);
}

/**
 * Publishes a packet.
 * @param ring a producer's mapping.
 * @param pkt the packet.
 * @param len its length, 1..SOFT_RING_MAX_PKT.
 * @param flags carried with it (SOFT_FABRIC_NO_CRC), untrusted by the consumer.
 * @param p_ring set TRUE when the consumer was asleep and must be woken.
 * @param p_count when not NULL and the consumer needs no waking: a counter
 * incremented (atomically) as soon as the record is claimed, before the
 * packet is copied, so that this locked instruction does not wait for the
 * copy's stores to reach the cache (a later one does, after the caller has
 * done other work meanwhile).
 * @return SOFT_RING_OK, or SOFT_RING_FULL (dropped).
 */
soft_ring_put_t soft_ring_put(soft_ring_t *ring, const void *pkt, size_t len, uint32_t flags,
			      boolean_t *p_ring, uint64_t *p_count);

/**
 * Takes the packet at the head, if any.
 * @param ring the consumer's mapping.
 * @param buf where to copy it.
 * @param cap size of @p buf.
 * @param p_len receives its length (also for SOFT_RING_BIG).
 * @param p_flags receives the flags its producer gave.
 * @return a soft_ring_get_t.
 */
soft_ring_get_t soft_ring_get(soft_ring_t *ring, void *buf, size_t cap, size_t *p_len,
			      uint32_t *p_flags);

/**
 * The first byte of the record at position @p pos (for the ring's own code
 * and its inline readers). @param ring a mapping. @param pos a position.
 * @return where the record's 8-byte stamp starts.
 */
static inline uint8_t *soft_ring_rec_ptr(const soft_ring_t *ring, uint64_t pos)
{
	return ring->data + (pos & ((uint64_t)SOFT_RING_BYTES - 1));
}

/**
 * Whether the record at @p rec, position @p pos, is published: its stamp
 * (its first 8 bytes) is pos + 1. An acquire load, so the record's other
 * fields may be read after it. @param rec soft_ring_rec_ptr(ring, pos).
 * @param pos its position. @return TRUE if published.
 */
static inline boolean_t soft_ring_rec_published(const void *rec, uint64_t pos)
{
	return __atomic_load_n((const uint64_t *)rec, __ATOMIC_ACQUIRE) == pos + 1;
}

/**
 * Whether a packet is published at the head, without taking it or any
 * lock: for pollers that would otherwise take the consumer's lock to find
 * nothing. It may run while another thread consumes; its answer is a hint
 * (a record claimed and not yet published reads FALSE: the consumer's next
 * soft_ring_get handles it).
 * Inline: every empty poll of a waiting thread makes it.
 * @param ring the consumer's mapping.
 * @return TRUE if soft_ring_get would find a record now.
 */
static inline boolean_t soft_ring_ready(const soft_ring_t *ring)
{
	uint64_t pos = __atomic_load_n(&ring->head, __ATOMIC_RELAXED);
	const uint8_t *r = soft_ring_rec_ptr(ring, pos);

	if (soft_ring_rec_published(r, pos))
		return TRUE;
	/* The record's second line, fetched while nothing is there yet. */
	__builtin_prefetch(r + SOFT_RING_ALIGN);
	return FALSE;
}

/**
 * Copies the first bytes of the record at the head without taking it: a
 * look ahead for a consumer deciding whether to take it now (a hint: the
 * bytes are a producer's and may change until soft_ring_get takes them).
 * @param ring the consumer's mapping.
 * @param dst receives at most @p n bytes. @param n their number.
 * @return bytes copied: 0 if no record is published at the head.
 */
size_t soft_ring_peek(const soft_ring_t *ring, void *dst, size_t n);

/**
 * Tells whether the consumer may sleep, and if so marks it asleep.
 * @param ring the consumer's mapping.
 * @return SOFT_RING_EMPTY (marked asleep), SOFT_RING_GOT (a packet waits:
 * not marked) or SOFT_RING_WAIT (a record is claimed: poll again soon).
 */
soft_ring_get_t soft_ring_arm(soft_ring_t *ring);

/**
 * Would a packet of @p len bytes fit now? (A producer's look: another may
 * take the room before it puts.)
 * @param ring a producer's mapping. @param len the packet's length.
 * @return TRUE if it fits.
 */
boolean_t soft_ring_room(const soft_ring_t *ring, size_t len);

/** Marks the consumer awake again. */
static inline void soft_ring_disarm(soft_ring_t *ring)
{
	if (__atomic_load_n(&ring->hdr->sleeping, __ATOMIC_RELAXED))
		__atomic_store_n(&ring->hdr->sleeping, 0, __ATOMIC_RELAXED);
}

#ifdef __cplusplus
}
#endif

#endif /* SOFT_RING_H */
