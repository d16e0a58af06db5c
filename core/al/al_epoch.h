/*
 * ibal access layer: epochs that keep data-path calls safe from a racing destroy without an atomic read-modify-write.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file al_epoch.h
 * @brief Epoch-based protection of the data path (al_dp.c).
 *
 * A data-path call (ib_post_send, ib_poll_cq, ...) marks its thread as
 * inside with a plain store of AL_EPOCH_IN to a record of its own, looks
 * its handle up without counting itself in, calls the provider, and marks
 * itself outside with a release store of 0. A destroy invalidates the
 * handle, then al_epoch_synchronize() waits for every call that was inside
 * when it looked: it marks each record it finds AL_EPOCH_IN as
 * AL_EPOCH_SEEN (a compare-and-swap on that thread's record, the only
 * write a destroy makes there) and waits until the thread stores 0. A call
 * that starts after the look stores AL_EPOCH_IN again, which the wait does
 * not take for its own mark, so a thread calling in a loop cannot hold a
 * destroy back; every call that could have seen the handle live has
 * returned, and the object may go.
 *
 * The reader's store and its later load of the handle must not be reordered
 * (a store followed by a load: the one reordering x86 does). Instead of a
 * fence on every call, the destroyer makes every thread of the process run
 * one (membarrier(2), MEMBARRIER_CMD_PRIVATE_EXPEDITED), as liburcu's
 * membarrier flavour does. A destroy costs one membarrier and a scan of the
 * threads' records; a call costs no atomic read-modify-write, no fence, and
 * touches no line another thread writes. Grace periods are numbered, so a
 * destroy whose handle was invalidated before another destroy's grace
 * period began waits for none of its own (al_epoch_snapshot(),
 * al_epoch_synchronize_since()).
 *
 * A thread's record pointer (al_epoch_self, initial-exec TLS) starts at a
 * shared record that always reads "busy" (al_epoch_off), so the one load
 * and test of al_epoch_try_enter() sends to the caller's slow path a thread
 * not registered yet, a thread of a process without private expedited
 * membarrier (never registered), and a call nested in another (its own
 * record is busy). The slow path registers the thread when it can
 * (al_epoch_register()) and otherwise counts itself in the handle
 * (al_handle_enter(), which the drain waits for too). Records are
 * allocated on a thread's registration, given back when it exits (pthread
 * key destructor), reused, and never freed. After fork() the child's
 * records of the parent's other threads are cleared.
 */
#ifndef AL_EPOCH_H
#define AL_EPOCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Record values (al_epoch_rec_t::active). */
enum {
	AL_EPOCH_OUT = 0,  /**< Outside the data path. */
	AL_EPOCH_IN = 1,   /**< Inside a call. */
	AL_EPOCH_SEEN = 2, /**< Inside a call a synchronizer waits for. */
	AL_EPOCH_OFF = 3   /**< Not a registered thread's record (al_epoch_off). */
};

/** One thread's record. */
typedef struct al_epoch_rec {
	uintptr_t active;           /**< AL_EPOCH_OUT, _IN or _SEEN (atomic). */
	uint32_t in_use;            /**< A thread owns it (atomic). */
	struct al_epoch_rec *next;  /**< In the list of every record (never unlinked). */
	uint8_t pad[64 - 3 * sizeof(void *)];
} al_epoch_rec_t;

/** @cond INTERNAL */
#define AL_EPOCH_HIDDEN __attribute__((visibility("hidden")))
extern __thread al_epoch_rec_t *al_epoch_self
	__attribute__((tls_model("initial-exec"))) AL_EPOCH_HIDDEN;
extern const al_epoch_rec_t al_epoch_off AL_EPOCH_HIDDEN;
/** @endcond */

/**
 * The calling thread's record (al_epoch_off until it registers). Never NULL.
 */
static inline al_epoch_rec_t *al_epoch_rec(void)
{
	return al_epoch_self;
}

/**
 * Marks the calling thread inside a data-path call, if it can take the
 * fast path: a registered thread not already inside one.
 * @param r the thread's record, al_epoch_rec().
 * @return nonzero when it is inside (leave with al_epoch_exit(r)); 0 when
 *         the caller must take the slow path (al_epoch_register(), else
 *         al_handle_enter()).
 */
static inline int al_epoch_try_enter(al_epoch_rec_t *r)
{
	int busy;

#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
	/* A relaxed load, compared in place: on x86-64 an aligned 8-byte load
	 * is atomic, and the compiler does not fold __atomic loads into a
	 * compare (one instruction less on every call). The load orders
	 * nothing, so sanitizers lose nothing by not seeing it. */
	__asm__("cmpq $0, %1" : "=@ccne"(busy) : "m"(r->active));
#else
	busy = __atomic_load_n(&r->active, __ATOMIC_RELAXED) != AL_EPOCH_OUT;
#endif
	if (__builtin_expect(busy, 0))
		return 0;
	/* Ordered before the handle's load by the synchronizer's membarrier;
	 * the compiler must not move the load above it. */
	__atomic_store_n(&r->active, AL_EPOCH_IN, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 1;
}

/**
 * Marks the calling thread outside again.
 * @param r the record al_epoch_try_enter() succeeded with.
 */
static inline void al_epoch_exit(al_epoch_rec_t *r)
{
	/* Release: a synchronizer that reads 0 sees everything the call did. */
	__atomic_store_n(&r->active, AL_EPOCH_OUT, __ATOMIC_RELEASE);
}

/**
 * Registers the calling thread for the fast path, reserving the handle
 * table first (al_handle_table_ready()), so that its lookups of any value
 * are safe.
 * @return nonzero when the thread was not registered and now is (its next
 *         al_epoch_try_enter() succeeds); 0 when it was registered already,
 *         or the process has no private expedited membarrier, or memory
 *         ran out: the caller counts itself in the handle instead.
 */
int al_epoch_register(void);

/**
 * Marks the calling thread inside, registering it first if needed (for
 * callers other than the data path's fast path, such as tests).
 * @return its record; NULL when it cannot (see al_epoch_register(); a call
 *         nested in one that succeeded also gets NULL).
 */
al_epoch_rec_t *al_epoch_enter(void);

/**
 * Waits until every data-path call that was inside when it was called has
 * returned. Call it after invalidating a handle, before its object goes;
 * never from inside a data-path call.
 */
void al_epoch_synchronize(void);

/** A snapshot that al_epoch_synchronize_since() takes for "nothing yet". */
#define AL_EPOCH_NO_SNAPSHOT UINT64_MAX

/**
 * Where the grace periods stand, for a later al_epoch_synchronize_since().
 * Take it after invalidating a handle (it orders the invalidation first).
 * @return the number a grace period must have to count for what was
 *         invalidated before this call.
 */
uint64_t al_epoch_snapshot(void);

/**
 * As al_epoch_synchronize(), unless a grace period that began after the
 * snapshot has ended since: then every call that could have seen what was
 * invalidated before the snapshot has returned already, and nothing is
 * waited for (no membarrier). A thread that destroys many objects one after
 * the other, each invalidated before, waits for one grace period, not one
 * each (as the kernel's cond_synchronize_rcu()).
 * @param snap al_epoch_snapshot() taken after the invalidation, or
 *        AL_EPOCH_NO_SNAPSHOT (always waits).
 */
void al_epoch_synchronize_since(uint64_t snap);

/**
 * How many grace periods (al_epoch_synchronize() calls) have begun in this
 * process: what destroys cost the threads in the data path (each one a
 * membarrier), for tests and diagnostics.
 * @return the count.
 */
uint64_t al_epoch_grace_periods(void);

#ifdef __cplusplus
}
#endif

#endif /* AL_EPOCH_H */
