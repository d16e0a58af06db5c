/*
 * ibal access layer: the process-wide handle table and the in-flight guard of data-path calls.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file al_handle.h
 * @brief Handles: the encoded values behind every `ib_*_handle_t`, their
 * lock-free lookup, and the in-flight count that lets destruction wait for
 * the calls using an object.
 *
 * A handle is not a pointer. It names one slot of a process-wide table:
 * bits 0-23 hold the slot index, bits 24-31 the handle type
 * (al_handle_type_t), bits 32-63 the slot's generation. The type is never
 * 0, so no handle is 0 (NULL). Freeing a handle bumps its slot's
 * generation, so the old value stays invalid after the slot is reused.
 * (Where pointers have 32 bits the index has 16 bits, the type 8 and the
 * generation 8.) Handles are stored in the opaque pointer types of ib_al.h
 * with AL_HANDLE_TO_IB() and read back with AL_HANDLE_FROM_IB().
 *
 * The table is a directory of pages of slots. Pages are allocated on
 * demand and are never moved or freed while the process runs, so a lookup
 * takes no lock: it reads the directory, then the slot. Allocation and
 * release take one mutex. Freed slots are reused first in, first out, which
 * keeps a stale handle's slot free (and the handle detectably stale) as long
 * as possible.
 *
 * Each slot also holds a live bit and an in-flight count, in the same
 * atomic word as the generation and type. al_handle_enter() checks the
 * handle and counts the caller in with one compare-and-swap, so an object
 * entered through its handle cannot be released until al_handle_exit().
 * Destruction first invalidates the handle (al_handle_invalidate(): lookups
 * and enters fail from then on), then waits for the calls inside to leave
 * (al_handle_drain(), which sleeps on a condition variable), and finally
 * frees the handle (al_handle_free()). A data-path call racing a destroy
 * therefore either fails to enter, reporting an invalid handle, or
 * completes before the object goes away.
 *
 * The data-path idiom is:
 * @code
 * p_qp = (al_qp_t *)al_handle_enter(AL_HANDLE_FROM_IB(h_qp), AL_HDL_QP);
 * if (!p_qp)
 *         return IB_INVALID_QP_HANDLE;
 * ... use p_qp ...
 * al_handle_exit(AL_HANDLE_FROM_IB(h_qp));
 * @endcode
 * al_handle_lookup() returns the object without entering it; the pointer is
 * then only safe while something else keeps the object alive.
 *
 * Thread safety: every function may be called from any thread, at any time,
 * with any handle value (stale, foreign or garbage values fail cleanly).
 * al_handle_drain() and al_handle_free() block while calls are inside the
 * object: a thread must not call them on a handle it has entered itself.
 */
#ifndef AL_HANDLE_H
#define AL_HANDLE_H

#include <stdint.h>
#include <iba/ib_types.h>
#include <complib/cl_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The kinds of handle: one per handle type of ib_al.h and ib_types.h. */
typedef enum _al_handle_type {
	AL_HDL_INVALID = 0, /**< Never the type of a handle (so no handle is 0). */
	AL_HDL_AL,          /**< ib_al_handle_t: an open access-layer instance. */
	AL_HDL_CA,          /**< ib_ca_handle_t: an open channel adapter. */
	AL_HDL_PD,          /**< ib_pd_handle_t: a protection domain. */
	AL_HDL_AV,          /**< ib_av_handle_t: an address vector. */
	AL_HDL_QP,          /**< ib_qp_handle_t: a queue pair. */
	AL_HDL_SRQ,         /**< ib_srq_handle_t: a shared receive queue. */
	AL_HDL_CQ,          /**< ib_cq_handle_t: a completion queue. */
	AL_HDL_MR,          /**< ib_mr_handle_t: a registered memory region. */
	AL_HDL_MW,          /**< ib_mw_handle_t: a memory window. */
	AL_HDL_MCAST,       /**< ib_mcast_handle_t: a multicast membership. */
	AL_HDL_MAD_POOL,    /**< ib_pool_handle_t: a pool of MAD elements. */
	AL_HDL_POOL_KEY,    /**< ib_pool_key_t: a MAD pool registered with a PD. */
	AL_HDL_MAD_SVC,     /**< ib_mad_svc_handle_t: a MAD service on a QP. */
	AL_HDL_MAD_SEND,    /**< ib_mad_send_handle_t: an outstanding MAD send. */
	AL_HDL_QUERY,       /**< ib_query_handle_t: an outstanding SA query. */
	AL_HDL_REG_SVC,     /**< ib_reg_svc_handle_t: a service registered with the SA. */
	AL_HDL_SUB,         /**< ib_sub_handle_t: an event subscription. */
	AL_HDL_CM,          /**< The connection endpoint behind an ib_cm_handle_t. */
	AL_HDL_LISTEN,      /**< ib_listen_handle_t: a connection listen. */
	AL_HDL_IOC,         /**< ib_ioc_handle_t: a local I/O controller. */
	AL_HDL_SVC_ENTRY,   /**< ib_svc_handle_t: a service entry of a local IOC. */
	AL_HDL_PNP,         /**< ib_pnp_handle_t: a PnP registration or IOC assignment event. */
	AL_HDL_FMR,         /**< mlnx_fmr_handle_t: a Mellanox fast memory region. */
	AL_HDL_FMR_POOL,    /**< mlnx_fmr_pool_handle_t: a Mellanox FMR pool. */
	AL_HDL_FMR_POOL_EL, /**< mlnx_fmr_pool_el_t: an element of a Mellanox FMR pool. */
	AL_HDL_TYPE_COUNT   /**< Number of values; not a type. At most 256. */
} al_handle_type_t;

/** A handle's value: index, type and generation (see the file description). */
typedef uintptr_t al_handle_t;

/** No handle. No valid handle has this value. */
#define AL_HANDLE_NULL ((al_handle_t)0)

/** Bits of a handle holding the slot index. */
#define AL_HANDLE_INDEX_BITS (UINTPTR_MAX > 0xFFFFFFFFu ? 24 : 16)
/** Bits of a handle holding the generation. */
#define AL_HANDLE_GEN_BITS ((int)sizeof(al_handle_t) * 8 - AL_HANDLE_INDEX_BITS - 8)
/** Largest number of handles that can be allocated at once. */
#define AL_HANDLE_MAX ((uint32_t)1 << AL_HANDLE_INDEX_BITS)

/** Converts a handle into an ib_al.h handle type @p ib_type. */
#define AL_HANDLE_TO_IB(ib_type, h) ((ib_type)(uintptr_t)(h))
/** Converts an ib_al.h handle (any of the opaque pointer types) into a handle. */
#define AL_HANDLE_FROM_IB(h_ib) ((al_handle_t)(uintptr_t)(h_ib))

/**
 * Slot index of a handle.
 * @param h the handle.
 * @return bits 0-23 (0-15 with 32-bit pointers).
 */
static inline uint32_t al_handle_index(al_handle_t h)
{
	return (uint32_t)(h & (AL_HANDLE_MAX - 1));
}

/**
 * Type of a handle, as encoded in it.
 * @param h the handle.
 * @return the type bits; AL_HDL_INVALID for AL_HANDLE_NULL.
 */
static inline al_handle_type_t al_handle_type(al_handle_t h)
{
	return (al_handle_type_t)((h >> AL_HANDLE_INDEX_BITS) & 0xFF);
}

/**
 * Generation of a handle, as encoded in it.
 * @param h the handle.
 * @return the generation bits.
 */
static inline uint32_t al_handle_generation(al_handle_t h)
{
	return (uint32_t)((uint64_t)h >> (AL_HANDLE_INDEX_BITS + 8));
}

/** @cond INTERNAL */

/* One slot. word: bits 24-63 the key (generation << 8 | type; type 0 while
 * the slot is free), bit 23 live, bits 0-22 the in-flight count. A slot
 * fills a cache line so that the counts of two objects never share one. */
typedef struct _al_handle_slot {
	uint64_t word;       /* atomic */
	void *p_obj;         /* atomic */
	uint32_t next_free;  /* free-list link, under the table mutex */
	uint8_t pad[64 - sizeof(uint64_t) - sizeof(void *) - sizeof(uint32_t)];
} al_handle_slot_t;

#define AL_HSLOT_COUNT_MASK (((uint64_t)1 << 23) - 1)
#define AL_HSLOT_LIVE ((uint64_t)1 << 23)
#define AL_HSLOT_KEY_SHIFT 24
#define AL_HANDLE_PAGE_SHIFT 10
#define AL_HANDLE_PAGE_SLOTS ((uint32_t)1 << AL_HANDLE_PAGE_SHIFT)
#define AL_HANDLE_DIR_SIZE (AL_HANDLE_MAX >> AL_HANDLE_PAGE_SHIFT)

/* The directory of pages; an entry is NULL until its page exists, and is
 * written once (release) under the table mutex. */
extern al_handle_slot_t *al_handle_dir[AL_HANDLE_DIR_SIZE];

/* The slot a handle names, or NULL when its page does not exist. */
static inline al_handle_slot_t *al_handle_slot(al_handle_t h)
{
	uint32_t idx = al_handle_index(h);
	al_handle_slot_t *page =
		__atomic_load_n(&al_handle_dir[idx >> AL_HANDLE_PAGE_SHIFT], __ATOMIC_ACQUIRE);

	return page ? &page[idx & (AL_HANDLE_PAGE_SLOTS - 1)] : NULL;
}

/* Key a slot must hold for handle h. */
static inline uint64_t al_handle_key(al_handle_t h)
{
	return (uint64_t)h >> AL_HANDLE_INDEX_BITS;
}

/* Wakes the threads in al_handle_drain(); called by the exit that empties
 * an invalidated slot. */
void al_handle_wake_drainers(void);

/** @endcond */

/**
 * Allocates a handle for an object.
 * @param type the handle type, AL_HDL_AL .. AL_HDL_TYPE_COUNT - 1.
 * @param p_obj the object lookups return; not NULL.
 * @param p_handle receives the handle, which is live at once.
 * @return IB_SUCCESS; IB_INVALID_PARAMETER for a bad type, a NULL object or
 *         a NULL @p p_handle; IB_INSUFFICIENT_MEMORY when a page of slots
 *         could not be allocated; IB_INSUFFICIENT_RESOURCES when all
 *         AL_HANDLE_MAX handles are in use.
 */
ib_api_status_t al_handle_alloc(al_handle_type_t type, void *p_obj, al_handle_t *p_handle);

/**
 * Finds the object of a live handle, without entering it. Lock-free. The
 * result may be destroyed at any moment unless the caller otherwise keeps
 * it alive; use al_handle_enter() to use the object safely.
 * @param h the handle (any value).
 * @param type the type the handle must have.
 * @return the object; NULL when @p h is not a live handle of type @p type
 *         (NULL, stale, invalidated, freed, of another type, or garbage).
 */
static inline void *al_handle_lookup(al_handle_t h, al_handle_type_t type)
{
	al_handle_slot_t *p_slot;
	uint64_t key = al_handle_key(h), w;
	void *p_obj;

	if ((key & 0xFF) != (uint64_t)type || !(p_slot = al_handle_slot(h)))
		return NULL;
	w = __atomic_load_n(&p_slot->word, __ATOMIC_ACQUIRE);
	if ((w >> AL_HSLOT_KEY_SHIFT) != key || !(w & AL_HSLOT_LIVE))
		return NULL;
	p_obj = __atomic_load_n(&p_slot->p_obj, __ATOMIC_ACQUIRE);
	/* The slot may have been freed and reused between the two loads: the
	 * pointer belongs to h only if the key is still there. */
	w = __atomic_load_n(&p_slot->word, __ATOMIC_RELAXED);
	if ((w >> AL_HSLOT_KEY_SHIFT) != key || !(w & AL_HSLOT_LIVE))
		return NULL;
	return p_obj;
}

/**
 * Finds the object of a live handle for a caller inside a data-path epoch
 * (al_epoch_enter()): the handle of a QP, SRQ or CQ is drained with
 * al_epoch_synchronize(), so once seen live here its slot and object stay
 * until al_epoch_exit(), and one look at the slot suffices.
 * @param h the handle (any value).
 * @param type AL_HDL_QP, AL_HDL_SRQ or AL_HDL_CQ.
 * @return the object; NULL when @p h is not a live handle of type @p type.
 */
static inline void *al_handle_get_dp(al_handle_t h, al_handle_type_t type)
{
	al_handle_slot_t *p_slot;
	uint64_t key = al_handle_key(h), w;

	if ((key & 0xFF) != (uint64_t)type || !(p_slot = al_handle_slot(h)))
		return NULL;
	w = __atomic_load_n(&p_slot->word, __ATOMIC_ACQUIRE);
	if ((w >> AL_HSLOT_KEY_SHIFT) != key || !(w & AL_HSLOT_LIVE))
		return NULL;
	return __atomic_load_n(&p_slot->p_obj, __ATOMIC_RELAXED);
}

/** Whether handles of this type are used by the data path (drained by epoch too). */
static inline int al_handle_type_dp(al_handle_type_t type)
{
	return type == AL_HDL_QP || type == AL_HDL_SRQ || type == AL_HDL_CQ;
}

/**
 * Finds the object of a live handle and counts the caller in: the handle
 * cannot be freed, nor its drain finish, until the matching
 * al_handle_exit(). Lock-free (one compare-and-swap when uncontended).
 * @param h the handle (any value).
 * @param type the type the handle must have.
 * @return the object; NULL when @p h is not a live handle of type @p type
 *         (nothing is counted then).
 */
static inline void *al_handle_enter(al_handle_t h, al_handle_type_t type)
{
	al_handle_slot_t *p_slot;
	uint64_t key = al_handle_key(h), w;

	if ((key & 0xFF) != (uint64_t)type || !(p_slot = al_handle_slot(h)))
		return NULL;
	w = __atomic_load_n(&p_slot->word, __ATOMIC_RELAXED);
	do {
		if ((w >> AL_HSLOT_KEY_SHIFT) != key || !(w & AL_HSLOT_LIVE) ||
		    (w & AL_HSLOT_COUNT_MASK) == AL_HSLOT_COUNT_MASK)
			return NULL;
	} while (!__atomic_compare_exchange_n(&p_slot->word, &w, w + 1, 1, __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
	/* The count keeps the slot from being freed, so this is h's object. */
	return __atomic_load_n(&p_slot->p_obj, __ATOMIC_RELAXED);
}

/**
 * Counts the caller out of an object it entered with al_handle_enter().
 * The last exit from an invalidated handle wakes its drainers.
 * @param h the handle passed to the successful al_handle_enter().
 */
static inline void al_handle_exit(al_handle_t h)
{
	al_handle_slot_t *p_slot = al_handle_slot(h);
	uint64_t w;

	CL_ASSERT(p_slot);
	w = __atomic_sub_fetch(&p_slot->word, 1, __ATOMIC_RELEASE);
	CL_ASSERT((w & AL_HSLOT_COUNT_MASK) != AL_HSLOT_COUNT_MASK);
	if (!(w & (AL_HSLOT_LIVE | AL_HSLOT_COUNT_MASK)))
		al_handle_wake_drainers();
}

/**
 * Invalidates a live handle: from now on lookups and enters fail. Calls
 * already inside stay until they exit.
 * @param h the handle.
 * @return TRUE when this call invalidated the handle; FALSE when it was not
 *         live (already invalidated, freed, or not a handle).
 */
boolean_t al_handle_invalidate(al_handle_t h);

/**
 * Waits until no call is inside an invalidated handle. Sleeps (no spinning)
 * until the last al_handle_exit() wakes it; in debug builds a wait of more
 * than 10 seconds is reported through cl_msg_out(), and the wait goes on.
 * Returns at once when nothing is inside, or when @p h is not an allocated
 * handle.
 * @param h the handle, invalidated with al_handle_invalidate().
 */
void al_handle_drain(al_handle_t h);

/**
 * Frees a handle: invalidates it if it is still live, drains it, bumps its
 * slot's generation and queues the slot for reuse (FIFO). The handle and
 * every copy of it are invalid afterwards, also once the slot is reused.
 * @param h the handle.
 * @return IB_SUCCESS; IB_INVALID_HANDLE when @p h is not an allocated
 *         handle (for instance freed already).
 */
ib_api_status_t al_handle_free(al_handle_t h);

/**
 * Number of calls inside a handle (for diagnostics and tests).
 * @param h the handle.
 * @return the in-flight count; 0 when @p h is not an allocated handle.
 */
uint32_t al_handle_inflight(al_handle_t h);

/**
 * Number of handles allocated and not yet freed, process-wide.
 * @return the count.
 */
uint32_t al_handle_count(void);

/**
 * Name of a handle type, for diagnostics.
 * @param type the type.
 * @return a static string such as "QP"; "invalid" for AL_HDL_INVALID and
 *         values past the last type.
 */
const char *al_handle_type_str(al_handle_type_t type);

#ifdef __cplusplus
}
#endif

#endif /* AL_HANDLE_H */
