/*
 * ibal access layer: epochs that keep data-path calls safe from a racing destroy without an atomic read-modify-write.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file al_epoch.h
 * @brief Epoch-based protection of the data path (al_dp.c).
 *
 * A data-path call (ib_post_send, ib_poll_cq, ...) marks its thread as
 * inside with a plain store of the current epoch to a record of its own,
 * looks its handle up without counting itself in, calls the provider, and
 * marks itself outside with a release store. A destroy invalidates the
 * handle, then al_epoch_synchronize() starts a new epoch and waits until no
 * thread is still inside an older one: every call that could have seen the
 * handle live has returned, and the object may go.
 *
 * The reader's store and its later load of the handle must not be reordered
 * (a store followed by a load: the one reordering x86 does). Instead of a
 * fence on every call, the destroyer makes every thread of the process run
 * one (membarrier(2), MEMBARRIER_CMD_PRIVATE_EXPEDITED), as liburcu's
 * membarrier flavour does; where the kernel (or valgrind) has no such
 * command, readers fence themselves (al_epoch_fence). A destroy costs one
 * membarrier and a scan of the threads' records; a call costs no atomic
 * read-modify-write and touches no line another thread writes.
 *
 * Records are per thread, allocated on a thread's first data-path call,
 * given back when it exits (pthread key destructor), reused, and never
 * freed. Calls nest (a record counts its depth). After fork() the child's
 * records of the parent's other threads are cleared.
 */
#ifndef AL_EPOCH_H
#define AL_EPOCH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One thread's record. */
typedef struct al_epoch_rec {
	uint64_t active;            /**< 0 outside; else the epoch it entered in (atomic). */
	uint32_t depth;             /**< Nesting (its own thread only). */
	uint32_t in_use;            /**< A thread owns it (atomic). */
	struct al_epoch_rec *next;  /**< In the list of every record (never unlinked). */
	uint8_t pad[64 - 2 * sizeof(uint64_t) - sizeof(void *)];
} al_epoch_rec_t;

/** @cond INTERNAL */
extern __thread al_epoch_rec_t *al_epoch_self __attribute__((tls_model("initial-exec")));
extern uint64_t al_epoch_now;  /* the current epoch, >= 1 (atomic) */
extern int al_epoch_fence;     /* readers fence: no private expedited membarrier */
al_epoch_rec_t *al_epoch_register(void);
/** @endcond */

/**
 * Marks the calling thread inside a data-path call.
 * @return its record, for al_epoch_exit().
 */
static inline al_epoch_rec_t *al_epoch_enter(void)
{
	al_epoch_rec_t *r = al_epoch_self;

	if (__builtin_expect(!r, 0))
		r = al_epoch_register();
	if (!r->depth++) {
		/* Release (a plain store on x86): a synchronizer that reads this
		 * epoch also sees everything before the thread's last exit. */
		__atomic_store_n(&r->active, __atomic_load_n(&al_epoch_now, __ATOMIC_RELAXED),
				 __ATOMIC_RELEASE);
		if (__builtin_expect(__atomic_load_n(&al_epoch_fence, __ATOMIC_RELAXED), 0))
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
		else
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
	}
	return r;
}

/**
 * Marks the calling thread outside again.
 * @param r what al_epoch_enter() returned.
 */
static inline void al_epoch_exit(al_epoch_rec_t *r)
{
	if (!--r->depth)
		__atomic_store_n(&r->active, 0, __ATOMIC_RELEASE);
}

/**
 * Waits until every data-path call that began before this call has
 * returned. Call it after invalidating a handle, before its object goes;
 * never from inside a data-path call.
 */
void al_epoch_synchronize(void);

#ifdef __cplusplus
}
#endif

#endif /* AL_EPOCH_H */
