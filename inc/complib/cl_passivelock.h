/*
 * ibal complib: passive lock, a readers/writer lock for code that may sleep.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_passivelock.h
 * @brief Passive lock: cl_plock_construct, cl_plock_init, cl_plock_destroy,
 * cl_plock_acquire (shared), cl_plock_excl_acquire (exclusive),
 * cl_plock_release (either).
 *
 * Any number of threads may hold the lock shared, or one thread exclusively.
 * The lock prefers writers, as OFED for Windows' does: once a thread waits
 * for exclusive access, new shared requests wait behind it, so writers are
 * never starved. Consequently a thread must not take the lock shared twice
 * (a writer arriving in between would deadlock it). cl_plock_release works
 * out by itself which kind of hold it ends, and may be called by a thread
 * other than the one that acquired.
 *
 * Linux implementation: a pthread mutex and two condition variables (not
 * pthread_rwlock_t, whose writer preference is a GNU extension and whose
 * write unlock must come from the locking thread).
 *
 * Thread safety: acquire, excl_acquire and release may run concurrently
 * from any threads; construct, init and destroy must not race with other
 * use, and the lock must not be held when destroyed.
 */
#ifndef _CL_PASSIVE_LOCK_H_
#define _CL_PASSIVE_LOCK_H_

#include <pthread.h>
#include <complib/cl_types.h>
#include <complib/cl_event.h>
#include <complib/cl_atomic.h>

/** Passive lock. Treat as opaque; use the cl_plock functions. */
typedef struct _cl_plock {
	pthread_mutex_t mutex;       /**< Protects the fields below. */
	pthread_cond_t reader_cond;  /**< Shared requests wait here. */
	pthread_cond_t writer_cond;  /**< Exclusive requests wait here. */
	atomic32_t reader_count;     /**< Threads holding the lock shared. */
	int32_t readers_waiting;     /**< Threads waiting for shared access. */
	int32_t writers_waiting;     /**< Threads waiting for exclusive access. */
	boolean_t writer;            /**< TRUE while held exclusively. */
	cl_state_t state;            /**< CL_INITIALIZED between init and destroy. */
} cl_plock_t;

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Constructs a passive lock so that cl_plock_destroy is safe. Cannot fail.
 * @param p_lock the lock.
 */
CL_INLINE void CL_API cl_plock_construct(IN cl_plock_t *const p_lock)
{
	CL_ASSERT(p_lock);
	p_lock->reader_count = 0;
	p_lock->readers_waiting = 0;
	p_lock->writers_waiting = 0;
	p_lock->writer = FALSE;
	p_lock->state = CL_UNINITIALIZED;
}

/**
 * Initializes a passive lock, not held.
 * @param p_lock the lock.
 * @return CL_SUCCESS, or CL_ERROR if the system refused to create the
 * underlying mutex or condition variables.
 */
CL_EXPORT cl_status_t CL_API cl_plock_init(IN cl_plock_t *const p_lock);

/**
 * Destroys a passive lock after cl_plock_construct or cl_plock_init. The
 * lock must not be held or waited for.
 * @param p_lock the lock.
 */
CL_EXPORT void CL_API cl_plock_destroy(IN cl_plock_t *const p_lock);

/**
 * Acquires a passive lock for shared access, waiting while it is held
 * exclusively or a thread waits for exclusive access.
 * @param p_lock an initialized lock.
 */
CL_EXPORT void CL_API cl_plock_acquire(IN cl_plock_t *const p_lock);

/**
 * Acquires a passive lock for exclusive access, waiting until no thread
 * holds it in either mode.
 * @param p_lock an initialized lock.
 */
CL_EXPORT void CL_API cl_plock_excl_acquire(IN cl_plock_t *const p_lock);

/**
 * Releases a passive lock held shared or exclusively.
 * @param p_lock a held lock.
 */
CL_EXPORT void CL_API cl_plock_release(IN cl_plock_t *const p_lock);

#ifdef __cplusplus
}
#endif

#endif /* _CL_PASSIVE_LOCK_H_ */
