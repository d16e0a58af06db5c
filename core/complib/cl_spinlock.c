/*
 * ibal complib: spin lock initialization (an adaptive pthread mutex).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <complib/cl_spinlock.h>

cl_status_t cl_spinlock_init(cl_spinlock_t *const p_spinlock)
{
	pthread_mutexattr_t attr;
	int rc;

	CL_ASSERT(p_spinlock);
	cl_spinlock_construct(p_spinlock);
	if (pthread_mutexattr_init(&attr))
		return CL_ERROR;
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
	/* Spin a little before sleeping, like a Windows critical section. */
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
	rc = pthread_mutex_init(&p_spinlock->mutex, &attr);
	pthread_mutexattr_destroy(&attr);
	if (rc)
		return CL_ERROR;
	p_spinlock->state = CL_INITIALIZED;
	return CL_SUCCESS;
}
