/*
 * ibal complib: Linux spin lock object behind cl_spinlock.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_spinlock_osd.h
 * @brief cl_spinlock_t as a pthread mutex of the adaptive kind (it spins
 * briefly on a contended lock, then sleeps), with inline acquire and release.
 *
 * Why not a pthread spinlock: in user mode the holder of a lock can be
 * preempted, and a pure spinner then burns its whole time slice (on a
 * 2-core machine this stalls the program). OFED for Windows makes the same
 * choice in user mode (a critical section with a spin count). Unlike that
 * critical section, the lock is not recursive: as with kernel spin locks, a
 * thread must not acquire a lock it already holds.
 */
#ifndef _CL_SPINLOCK_OSD_H_
#define _CL_SPINLOCK_OSD_H_

#include <pthread.h>
#include <complib/cl_types.h>

/** Spin lock. Treat as opaque; use the cl_spinlock functions. */
typedef struct _cl_spinlock {
	pthread_mutex_t mutex; /**< The lock (adaptive mutex where available). */
	cl_state_t state;      /**< CL_INITIALIZED between init and destroy. */
} cl_spinlock_t;

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Constructs a spin lock so that cl_spinlock_destroy is safe. Cannot fail.
 * @param p_spinlock the lock.
 */
CL_INLINE void CL_API cl_spinlock_construct(IN cl_spinlock_t *const p_spinlock)
{
	CL_ASSERT(p_spinlock);
	p_spinlock->state = CL_UNINITIALIZED;
}

/**
 * Initializes a spin lock, unlocked.
 * @param p_spinlock the lock.
 * @return CL_SUCCESS, or CL_ERROR if the system refused to create the lock.
 */
CL_EXPORT cl_status_t CL_API cl_spinlock_init(IN cl_spinlock_t *const p_spinlock);

/**
 * Destroys a spin lock after cl_spinlock_construct or cl_spinlock_init. The
 * lock must not be held.
 * @param p_spinlock the lock.
 */
CL_INLINE void CL_API cl_spinlock_destroy(IN cl_spinlock_t *const p_spinlock)
{
	CL_ASSERT(p_spinlock);
	CL_ASSERT(cl_is_state_valid(p_spinlock->state));
	if (p_spinlock->state == CL_INITIALIZED)
		pthread_mutex_destroy(&p_spinlock->mutex);
	p_spinlock->state = CL_UNINITIALIZED;
}

/**
 * Acquires a spin lock, waiting as long as another thread holds it.
 * @param p_spinlock an initialized lock not held by the caller.
 */
CL_INLINE void CL_API cl_spinlock_acquire(IN cl_spinlock_t *const p_spinlock)
{
	CL_ASSERT(p_spinlock && p_spinlock->state == CL_INITIALIZED);
	pthread_mutex_lock(&p_spinlock->mutex);
}

/**
 * Releases a spin lock held by the caller.
 * @param p_spinlock the lock.
 */
CL_INLINE void CL_API cl_spinlock_release(IN cl_spinlock_t *const p_spinlock)
{
	CL_ASSERT(p_spinlock && p_spinlock->state == CL_INITIALIZED);
	pthread_mutex_unlock(&p_spinlock->mutex);
}

#ifdef __cplusplus
}
#endif

#endif /* _CL_SPINLOCK_OSD_H_ */
