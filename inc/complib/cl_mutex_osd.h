/*
 * ibal complib: Linux mutex object behind cl_mutex.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_mutex_osd.h
 * @brief cl_mutex_t as a default pthread mutex, all functions inline.
 *
 * The mutex is not recursive, as in OFED for Windows' kernel (a fast mutex);
 * the Windows user-mode mutex object happened to be recursive, and portable
 * code does not rely on that.
 */
#ifndef _CL_MUTEX_OSD_H_
#define _CL_MUTEX_OSD_H_

#include <pthread.h>
#include <complib/cl_types.h>

/** Mutex. Treat as opaque; use the cl_mutex functions. */
typedef struct _cl_mutex {
	pthread_mutex_t mutex; /**< The lock. */
	cl_state_t state;      /**< CL_INITIALIZED between init and destroy. */
} cl_mutex_t;

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Constructs a mutex so that cl_mutex_destroy is safe. Cannot fail.
 * @param p_mutex the mutex.
 */
CL_INLINE void CL_API cl_mutex_construct(IN cl_mutex_t *const p_mutex)
{
	CL_ASSERT(p_mutex);
	p_mutex->state = CL_UNINITIALIZED;
}

/**
 * Initializes a mutex, unlocked.
 * @param p_mutex the mutex.
 * @return CL_SUCCESS, or CL_ERROR if the system refused to create the mutex.
 */
CL_INLINE cl_status_t CL_API cl_mutex_init(IN cl_mutex_t *const p_mutex)
{
	CL_ASSERT(p_mutex);
	if (pthread_mutex_init(&p_mutex->mutex, NULL)) {
		p_mutex->state = CL_UNINITIALIZED;
		return CL_ERROR;
	}
	p_mutex->state = CL_INITIALIZED;
	return CL_SUCCESS;
}

/**
 * Destroys a mutex after cl_mutex_construct or cl_mutex_init. The mutex must
 * not be held.
 * @param p_mutex the mutex.
 */
CL_INLINE void CL_API cl_mutex_destroy(IN cl_mutex_t *const p_mutex)
{
	CL_ASSERT(p_mutex);
	CL_ASSERT(cl_is_state_valid(p_mutex->state));
	if (p_mutex->state == CL_INITIALIZED)
		pthread_mutex_destroy(&p_mutex->mutex);
	p_mutex->state = CL_UNINITIALIZED;
}

/**
 * Acquires a mutex, sleeping as long as another thread holds it.
 * @param p_mutex an initialized mutex not held by the caller.
 */
CL_INLINE void CL_API cl_mutex_acquire(IN cl_mutex_t *const p_mutex)
{
	CL_ASSERT(p_mutex && p_mutex->state == CL_INITIALIZED);
	pthread_mutex_lock(&p_mutex->mutex);
}

/**
 * Releases a mutex held by the caller.
 * @param p_mutex the mutex.
 */
CL_INLINE void CL_API cl_mutex_release(IN cl_mutex_t *const p_mutex)
{
	CL_ASSERT(p_mutex && p_mutex->state == CL_INITIALIZED);
	pthread_mutex_unlock(&p_mutex->mutex);
}

#ifdef __cplusplus
}
#endif

#endif /* _CL_MUTEX_OSD_H_ */
