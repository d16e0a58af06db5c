/*
 * ibal complib: the writer-preferring passive (readers/writer) lock.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Everything happens under one mutex. Readers enter while no writer holds
 * or waits; a writer enters when neither readers nor a writer hold the lock.
 * Wake-ups: a release that leaves the lock free hands it to a waiting writer
 * first, otherwise to all waiting readers.
 */
#include <pthread.h>
#include <complib/cl_passivelock.h>

cl_status_t cl_plock_init(cl_plock_t *const p_lock)
{
	CL_ASSERT(p_lock);
	cl_plock_construct(p_lock);
	if (pthread_mutex_init(&p_lock->mutex, NULL))
		return CL_ERROR;
	if (pthread_cond_init(&p_lock->reader_cond, NULL)) {
		pthread_mutex_destroy(&p_lock->mutex);
		return CL_ERROR;
	}
	if (pthread_cond_init(&p_lock->writer_cond, NULL)) {
		pthread_cond_destroy(&p_lock->reader_cond);
		pthread_mutex_destroy(&p_lock->mutex);
		return CL_ERROR;
	}
	p_lock->state = CL_INITIALIZED;
	return CL_SUCCESS;
}

void cl_plock_destroy(cl_plock_t *const p_lock)
{
	CL_ASSERT(p_lock);
	CL_ASSERT(cl_is_state_valid(p_lock->state));
	if (p_lock->state == CL_INITIALIZED) {
		CL_ASSERT(!p_lock->reader_count && !p_lock->writer);
		pthread_cond_destroy(&p_lock->writer_cond);
		pthread_cond_destroy(&p_lock->reader_cond);
		pthread_mutex_destroy(&p_lock->mutex);
	}
	p_lock->state = CL_UNINITIALIZED;
}

void cl_plock_acquire(cl_plock_t *const p_lock)
{
	CL_ASSERT(p_lock && p_lock->state == CL_INITIALIZED);
	pthread_mutex_lock(&p_lock->mutex);
	if (p_lock->writer || p_lock->writers_waiting) {
		p_lock->readers_waiting++;
		do
			pthread_cond_wait(&p_lock->reader_cond, &p_lock->mutex);
		while (p_lock->writer || p_lock->writers_waiting);
		p_lock->readers_waiting--;
	}
	p_lock->reader_count++;
	pthread_mutex_unlock(&p_lock->mutex);
}

void cl_plock_excl_acquire(cl_plock_t *const p_lock)
{
	CL_ASSERT(p_lock && p_lock->state == CL_INITIALIZED);
	pthread_mutex_lock(&p_lock->mutex);
	if (p_lock->writer || p_lock->reader_count) {
		p_lock->writers_waiting++;
		do
			pthread_cond_wait(&p_lock->writer_cond, &p_lock->mutex);
		while (p_lock->writer || p_lock->reader_count);
		p_lock->writers_waiting--;
	}
	p_lock->writer = TRUE;
	pthread_mutex_unlock(&p_lock->mutex);
}

void cl_plock_release(cl_plock_t *const p_lock)
{
	CL_ASSERT(p_lock && p_lock->state == CL_INITIALIZED);
	pthread_mutex_lock(&p_lock->mutex);
	if (p_lock->writer) {
		p_lock->writer = FALSE;
	} else {
		CL_ASSERT(p_lock->reader_count > 0);
		p_lock->reader_count--;
	}
	if (!p_lock->reader_count) {
		if (p_lock->writers_waiting)
			pthread_cond_signal(&p_lock->writer_cond);
		else if (p_lock->readers_waiting)
			pthread_cond_broadcast(&p_lock->reader_cond);
	}
	pthread_mutex_unlock(&p_lock->mutex);
}
