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
 * bits 0-5 hold the handle type (al_handle_type_t), bits 6-25 the slot
 * index, bit 31 is always set (AL_HANDLE_LIVE) and bits 26-30 are clear,
 * bits 32-63 hold the slot's generation. Since bit 31 is set, no handle is
 * 0 (NULL). Freeing a handle bumps its slot's generation, so the old value
 * stays invalid after the slot is reused. (Where pointers have 32 bits: the
 * index has bits 6-19, bit 23 is set, bits 20-22 are clear and the
 * generation has bits 24-31.) Handles are stored in the opaque pointer types
 * of ib_al.h with AL_HANDLE_TO_IB() and read back with AL_HANDLE_FROM_IB().
 *
 * The table is one virtual reservation, made once and never moved or
 * unmapped: a region of AL_HANDLE_MAX slots of 64 bytes per type, readable
 * everywhere (pages never written read as zeros) and made writable as slots
 * are first handed out. The bits 6-25 of a handle are, as they stand, the
 * byte offset of its slot in its type's region, so a lookup is one masked
 * load: any value, garbage included, names a readable slot of its type's
 * region, and only a slot holding exactly the handle's generation, type and
 * live bit matches. Allocation and release take one mutex. Freed slots are
 * reused first in, first out (per type), which keeps a stale handle's slot
 * free (and the handle detectably stale) as long as possible.
 *
 * Each slot's word has the layout of a handle whose index bits hold the
 * in-flight count: the live bit is clear once the handle is invalidated,
 * the type bits are 0 while the slot is free. al_handle_enter() checks the
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
 * then only safe while something else keeps the object alive. The calls of
 * al_dp.c do not count themselves in: inside a data-path epoch
 * (al_epoch.h) they read the slot once (al_handle_dp_slot()), and the slot
 * of a QP, SRQ or CQ also caches the provider object and the data-path
 * functions (al_handle_dp_t), so the call needs nothing else.
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

/** A handle's value: type, index, live bit and generation (see the file description). */
typedef uintptr_t al_handle_t;

/** No handle. No valid handle has this value. */
#define AL_HANDLE_NULL ((al_handle_t)0)

/** Bits of a handle holding the type (bits 0 .. 5). */
#define AL_HANDLE_TYPE_BITS 6
/** First bit of the slot index; also log2 of a slot's size in bytes. */
#define AL_HANDLE_INDEX_SHIFT 6
/** Bits of a handle holding the slot index. */
#define AL_HANDLE_INDEX_BITS (UINTPTR_MAX > 0xFFFFFFFFu ? 20 : 14)
/** First bit of the generation. */
#define AL_HANDLE_GEN_SHIFT (UINTPTR_MAX > 0xFFFFFFFFu ? 32 : 24)
/** Bits of a handle holding the generation. */
#define AL_HANDLE_GEN_BITS ((int)sizeof(al_handle_t) * 8 - AL_HANDLE_GEN_SHIFT)
/** The bit every handle has set (and a slot's word while its handle is live). */
#define AL_HANDLE_LIVE ((al_handle_t)1 << (AL_HANDLE_GEN_SHIFT - 1))
/** Largest number of handles of one type that can be allocated at once. */
#define AL_HANDLE_MAX ((uint32_t)1 << AL_HANDLE_INDEX_BITS)

/** @cond INTERNAL */
#define AL_HANDLE_TYPE_MASK (((al_handle_t)1 << AL_HANDLE_TYPE_BITS) - 1)
#define AL_HANDLE_INDEX_MASK (((al_handle_t)AL_HANDLE_MAX - 1) << AL_HANDLE_INDEX_SHIFT)
#define AL_HANDLE_GEN_MASK (~(al_handle_t)0 << AL_HANDLE_GEN_SHIFT)
/* The bits that hold neither type nor index nor generation: the live bit
 * and the clear bits below it. */
#define AL_HANDLE_FORM_MASK \
	(~(AL_HANDLE_GEN_MASK | AL_HANDLE_INDEX_MASK | AL_HANDLE_TYPE_MASK))
/* Bits of a slot's word that must equal the handle's for a live match. */
#define AL_HANDLE_MATCH_MASK (~AL_HANDLE_INDEX_MASK)
/** @endcond */

/** Converts a handle into an ib_al.h handle type @p ib_type. */
#define AL_HANDLE_TO_IB(ib_type, h) ((ib_type)(uintptr_t)(h))
/** Converts an ib_al.h handle (any of the opaque pointer types) into a handle. */
#define AL_HANDLE_FROM_IB(h_ib) ((al_handle_t)(uintptr_t)(h_ib))

/**
 * Slot index of a handle.
 * @param h the handle.
 * @return bits 6-25 (6-19 with 32-bit pointers), shifted down.
 */
static inline uint32_t al_handle_index(al_handle_t h)
{
	return (uint32_t)((h & AL_HANDLE_INDEX_MASK) >> AL_HANDLE_INDEX_SHIFT);
}

/**
 * Type of a handle, as encoded in it.
 * @param h the handle.
 * @return the type bits; AL_HDL_INVALID for AL_HANDLE_NULL.
 */
static inline al_handle_type_t al_handle_type(al_handle_t h)
{
	return (al_handle_type_t)(h & AL_HANDLE_TYPE_MASK);
}

/**
 * Generation of a handle, as encoded in it.
 * @param h the handle.
 * @return the generation bits.
 */
static inline uint32_t al_handle_generation(al_handle_t h)
{
	return (uint32_t)((uint64_t)h >> AL_HANDLE_GEN_SHIFT);
}

/** A data-path function, as cached in a slot (cast back to its own type to call). */
typedef void (*al_dp_fn_t)(void);

/** What the slot of a QP, SRQ or CQ caches for the data path (al_dp.c). */
typedef struct _al_handle_dp {
	void *p_prov;        /**< The provider's object, the functions' first argument. */
	al_dp_fn_t pfn[4];   /**< QP: post_send, post_recv; SRQ: post_srq_recv;
			      *   CQ: poll_cq, peek_cq, rearm_cq, rearm_n_cq. */
} al_handle_dp_t;

/** @cond INTERNAL */

/* One slot. word: the layout of a handle (type, live bit, generation) with
 * the in-flight count in the index bits; the type is 0 while the slot is
 * free. A slot fills a cache line so that the counts of two objects never
 * share one. The data-path cache is written before the handle is live and
 * stays until the slot is freed. */
typedef struct _al_handle_slot {
	al_handle_t word;    /* atomic */
	void *p_obj;         /* atomic */
	al_handle_dp_t dp;
	uint32_t next_free;  /* free-list link, under the table mutex */
	uint8_t pad[64 - 2 * sizeof(void *) - sizeof(al_handle_dp_t) - sizeof(uint32_t)];
} al_handle_slot_t;

#define AL_HSLOT_COUNT_ONE ((al_handle_t)1 << AL_HANDLE_INDEX_SHIFT)
#define AL_HSLOT_COUNT_MASK AL_HANDLE_INDEX_MASK
/* Bytes of one type's region. */
#define AL_HANDLE_REGION ((uintptr_t)AL_HANDLE_MAX << AL_HANDLE_INDEX_SHIFT)

/* Where the region of type t starts, less t regions: region t is at
 * al_handle_base + t * AL_HANDLE_REGION. 0 until the table is reserved
 * (al_handle_table_ready()); then never changes. */
extern uintptr_t al_handle_base __attribute__((visibility("hidden")));
/* Where each type's region starts (the same, one load with a constant
 * type); set with al_handle_base. */
extern uintptr_t al_handle_region[AL_HDL_TYPE_COUNT] __attribute__((visibility("hidden")));

/* The slot a handle of type @p type (a constant on the data path) names,
 * once al_handle_base is set: any handle value names a readable slot. */
static inline al_handle_slot_t *al_handle_slot_at(uintptr_t base, al_handle_t h,
						  al_handle_type_t type)
{
	return (al_handle_slot_t *)(base + (uintptr_t)type * AL_HANDLE_REGION +
				    (h & AL_HANDLE_INDEX_MASK));
}

/* The slot a handle names, or NULL when its type is not one, its form is
 * not a handle's, or no table exists yet. */
static inline al_handle_slot_t *al_handle_slot(al_handle_t h)
{
	uintptr_t base = __atomic_load_n(&al_handle_base, __ATOMIC_ACQUIRE);
	al_handle_type_t type = al_handle_type(h);

	if (!base || type == AL_HDL_INVALID || type >= AL_HDL_TYPE_COUNT ||
	    (h & AL_HANDLE_FORM_MASK) != AL_HANDLE_LIVE)
		return NULL;
	return al_handle_slot_at(base, h, type);
}

/* Wakes the threads in al_handle_drain(); called by the exit that empties
 * an invalidated slot. */
void al_handle_wake_drainers(void);

/** @endcond */

/**
 * Makes sure the table's address space is reserved; after a success, any
 * handle value may be looked up with al_handle_dp_slot().
 * @return TRUE when the table exists; FALSE when it could not be reserved.
 */
boolean_t al_handle_table_ready(void);

/**
 * Allocates a handle for an object.
 * @param type the handle type, AL_HDL_AL .. AL_HDL_TYPE_COUNT - 1.
 * @param p_obj the object lookups return; not NULL.
 * @param p_handle receives the handle, which is live at once.
 * @return IB_SUCCESS; IB_INVALID_PARAMETER for a bad type, a NULL object or
 *         a NULL @p p_handle; IB_INSUFFICIENT_MEMORY when the table or its
 *         slots could not be mapped; IB_INSUFFICIENT_RESOURCES when all
 *         AL_HANDLE_MAX handles of the type are in use.
 */
ib_api_status_t al_handle_alloc(al_handle_type_t type, void *p_obj, al_handle_t *p_handle);

/**
 * Allocates a handle, with the data-path cache of its slot (for the handles
 * of QPs, SRQs and CQs; al_handle_alloc() leaves it zeroed).
 * @param type the handle type.
 * @param p_obj the object lookups return; not NULL.
 * @param p_dp what al_handle_dp_slot() callers find in the slot; may be NULL.
 * @param p_handle receives the handle.
 * @return as al_handle_alloc().
 */
ib_api_status_t al_handle_alloc_dp(al_handle_type_t type, void *p_obj, const al_handle_dp_t *p_dp,
				   al_handle_t *p_handle);

/**
 * Fills the data-path cache of a QP, SRQ or CQ handle from its object
 * (al_dp.c, which knows the provider's functions).
 * @param type AL_HDL_QP, AL_HDL_SRQ or AL_HDL_CQ (any other: only p_prov).
 * @param p_verbs_obj the object, an al_verbs_obj_t with its provider object
 *        and ops set.
 * @param p_dp receives the cache.
 */
void al_handle_dp_fill(al_handle_type_t type, const void *p_verbs_obj, al_handle_dp_t *p_dp);

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
	al_handle_t w;
	void *p_obj;

	if (al_handle_type(h) != type || !(p_slot = al_handle_slot(h)))
		return NULL;
	w = __atomic_load_n(&p_slot->word, __ATOMIC_ACQUIRE);
	if ((w ^ h) & AL_HANDLE_MATCH_MASK)
		return NULL;
	p_obj = __atomic_load_n(&p_slot->p_obj, __ATOMIC_ACQUIRE);
	/* The slot may have been freed and reused between the two loads: the
	 * pointer belongs to h only if the key is still there. */
	w = __atomic_load_n(&p_slot->word, __ATOMIC_RELAXED);
	if ((w ^ h) & AL_HANDLE_MATCH_MASK)
		return NULL;
	return p_obj;
}

/**
 * The slot a handle of a data-path type names, for a caller inside a
 * data-path epoch (al_epoch_try_enter(), which only a thread registered
 * with al_epoch_register() passes, and registration reserves the table):
 * one masked offset into the type's region. Whether the handle is live
 * there is al_handle_dp_live()'s to say.
 * @param h the handle (any value).
 * @param type AL_HDL_QP, AL_HDL_SRQ or AL_HDL_CQ (a constant).
 * @return the slot (never NULL, readable).
 */
static inline const al_handle_slot_t *al_handle_dp_slot(al_handle_t h, al_handle_type_t type)
{
	/* A plain load: written once, before the registration of the caller's
	 * thread read al_handle_base (acquire). */
	return (const al_handle_slot_t *)(al_handle_region[type] + (h & AL_HANDLE_INDEX_MASK));
}

/**
 * Whether the slot al_handle_dp_slot() gave holds @p h live. The handle of
 * a QP, SRQ or CQ is drained with al_epoch_synchronize(), so once seen live
 * here inside an epoch its slot, cache and object stay until
 * al_epoch_exit(), and one look at the slot suffices. Every slot of a
 * type's region holds that type or none, so a match also proves the
 * handle's type bits.
 * @param p_slot al_handle_dp_slot(h, type).
 * @param h the handle.
 * @return nonzero when live.
 */
static inline int al_handle_dp_live(const al_handle_slot_t *p_slot, al_handle_t h)
{
	/* Acquire: the cache and the object written before the handle went
	 * live are seen. */
	return !((__atomic_load_n(&p_slot->word, __ATOMIC_ACQUIRE) ^ h) & AL_HANDLE_MATCH_MASK);
}

/**
 * The object of a live handle for a caller inside a data-path epoch (as
 * al_handle_dp_slot() and al_handle_dp_live()).
 * @param h the handle (any value).
 * @param type AL_HDL_QP, AL_HDL_SRQ or AL_HDL_CQ.
 * @return the object; NULL when @p h is not a live handle of type @p type.
 */
static inline void *al_handle_get_dp(al_handle_t h, al_handle_type_t type)
{
	const al_handle_slot_t *p_slot = al_handle_dp_slot(h, type);

	return al_handle_dp_live(p_slot, h) ? __atomic_load_n(&p_slot->p_obj, __ATOMIC_RELAXED)
					    : NULL;
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
	al_handle_t w;

	if (al_handle_type(h) != type || !(p_slot = al_handle_slot(h)))
		return NULL;
	w = __atomic_load_n(&p_slot->word, __ATOMIC_RELAXED);
	do {
		if (((w ^ h) & AL_HANDLE_MATCH_MASK) ||
		    (w & AL_HSLOT_COUNT_MASK) == AL_HSLOT_COUNT_MASK)
			return NULL;
	} while (!__atomic_compare_exchange_n(&p_slot->word, &w, w + AL_HSLOT_COUNT_ONE, 1,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
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
	al_handle_t w;

	CL_ASSERT(p_slot);
	w = __atomic_sub_fetch(&p_slot->word, AL_HSLOT_COUNT_ONE, __ATOMIC_RELEASE);
	CL_ASSERT((w & AL_HSLOT_COUNT_MASK) != AL_HSLOT_COUNT_MASK);
	if (!(w & (AL_HANDLE_LIVE | AL_HSLOT_COUNT_MASK)))
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
 * al_handle_drain(), for a handle invalidated before @p snap was taken: the
 * data path's grace period is waited for only if none has begun and ended
 * since (al_epoch_synchronize_since()).
 * @param h the handle, invalidated with al_handle_invalidate().
 * @param snap al_epoch_snapshot() taken after the invalidation, or
 *        AL_EPOCH_NO_SNAPSHOT.
 */
void al_handle_drain_since(al_handle_t h, uint64_t snap);

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
 * al_handle_free(), or (@p wait_calls FALSE) the same for a handle that
 * al_handle_drain() has drained since al_handle_invalidate(): no call can
 * have entered since, so the data path's grace period (a membarrier) is not
 * waited for again.
 * @param h the handle.
 * @param wait_calls TRUE to drain as al_handle_free() does.
 * @return as al_handle_free().
 */
ib_api_status_t al_handle_free_ex(al_handle_t h, boolean_t wait_calls);

/**
 * Number of calls inside a handle (for diagnostics and tests).
 * @param h the handle.
 * @return the in-flight count; 0 when @p h is not an allocated handle.
 */
uint32_t al_handle_inflight(al_handle_t h);

/**
 * Number of handles allocated and not yet freed, process-wide (all types).
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
