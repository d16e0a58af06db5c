/*
 * ibal access layer: epochs of the data path: thread records, membarrier, grace periods (al_epoch.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Locks: rec_lock guards handing records out and back (never held while
 * waiting for readers). The list only grows, and a record's next pointer
 * is written once, before the record is published with a release store
 * of the head, so a synchronizer walks it without a lock.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include "al_epoch.h"
#include "ibal_log.h"

__thread al_epoch_rec_t *al_epoch_self __attribute__((tls_model("initial-exec")));
uint64_t al_epoch_now = 1;
int al_epoch_fence = 1; /* until membarrier is known to work */

static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static al_epoch_rec_t *rec_head; /* atomic; every record ever made */
static pthread_key_t rec_key;
static pthread_once_t rec_once = PTHREAD_ONCE_INIT;

static long membarrier(int cmd)
{
#ifdef __NR_membarrier
	return syscall(__NR_membarrier, cmd, 0, 0);
#else
	(void)cmd;
	errno = ENOSYS;
	return -1;
#endif
}

/* A thread exits: its record goes back (it is outside: nothing calls in after this). */
static void rec_release(void *p)
{
	al_epoch_rec_t *r = p;

	__atomic_store_n(&r->active, 0, __ATOMIC_RELEASE);
	r->depth = 0;
	/* A data-path call from a later destructor of this thread registers
	 * anew rather than use a record another thread may take now. */
	al_epoch_self = NULL;
	__atomic_store_n(&r->in_use, 0, __ATOMIC_RELEASE);
}

/* In the child of fork(): only the forking thread exists; the records of
 * the others would hold grace periods forever. */
static void after_fork_child(void)
{
	al_epoch_rec_t *r;

	pthread_mutex_init(&rec_lock, NULL);
	for (r = __atomic_load_n(&rec_head, __ATOMIC_ACQUIRE); r; r = r->next) {
		if (r == al_epoch_self)
			continue;
		__atomic_store_n(&r->active, 0, __ATOMIC_RELAXED);
		r->depth = 0;
		__atomic_store_n(&r->in_use, 0, __ATOMIC_RELAXED);
	}
}

static void init_once(void)
{
	pthread_key_create(&rec_key, rec_release);
	pthread_atfork(NULL, NULL, after_fork_child);
	if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0) {
		__atomic_store_n(&al_epoch_fence, 0, __ATOMIC_RELEASE);
	} else {
		IBAL_INFO(IBAL_SUB_AL, "no private expedited membarrier: data-path calls fence "
			  "themselves");
	}
}

al_epoch_rec_t *al_epoch_register(void)
{
	al_epoch_rec_t *r;

	pthread_once(&rec_once, init_once);
	pthread_mutex_lock(&rec_lock);
	/* Acquire: a record given back by an exited thread (release) is
	 * taken with everything that thread wrote to it. */
	for (r = rec_head; r; r = r->next)
		if (!__atomic_load_n(&r->in_use, __ATOMIC_ACQUIRE))
			break;
	if (!r) {
		/* Plain calloc: records outlive every access-layer instance, so
		 * they are not counted among its tracked allocations. */
		r = calloc(1, sizeof(*r));
		if (!r) {
			pthread_mutex_unlock(&rec_lock);
			IBAL_ERR(IBAL_SUB_AL, "out of memory for a thread's data-path record");
			abort();
		}
		r->next = rec_head;
		__atomic_store_n(&rec_head, r, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&r->in_use, 1, __ATOMIC_RELAXED);
	r->depth = 0;
	pthread_mutex_unlock(&rec_lock);
	pthread_setspecific(rec_key, r);
	al_epoch_self = r;
	return r;
}

void al_epoch_synchronize(void)
{
	al_epoch_rec_t *r;
	uint64_t e, a;
	unsigned spins;

	r = __atomic_load_n(&rec_head, __ATOMIC_ACQUIRE);
	if (!r)
		return; /* no thread ever made a data-path call */
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* the invalidation before the scan */
	e = __atomic_add_fetch(&al_epoch_now, 1, __ATOMIC_SEQ_CST);
	/* Every thread's store of its epoch before the handle's invalidation
	 * is now visible here, and every later lookup sees the invalidation. */
	if (!__atomic_load_n(&al_epoch_fence, __ATOMIC_ACQUIRE) &&
	    membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0)
		__atomic_store_n(&al_epoch_fence, 1, __ATOMIC_RELEASE); /* cannot happen once registered */
	for (; r; r = r->next) {
		for (spins = 0;; spins++) {
			a = __atomic_load_n(&r->active, __ATOMIC_ACQUIRE);
			if (!a || a >= e)
				break;
			if (spins < 64) {
				sched_yield();
			} else {
				struct timespec ts = { 0, 50000 };

				nanosleep(&ts, NULL);
			}
		}
	}
}
