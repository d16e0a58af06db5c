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
#include "al_handle.h"
#include "ibal_log.h"

const al_epoch_rec_t al_epoch_off = { .active = AL_EPOCH_OFF };
__thread al_epoch_rec_t *al_epoch_self __attribute__((tls_model("initial-exec"))) =
	(al_epoch_rec_t *)&al_epoch_off;

static int membarrier_ok;  /* atomic: registered for private expedited membarrier */
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static al_epoch_rec_t *rec_head; /* atomic; every record ever made */
static pthread_key_t rec_key;
static pthread_once_t rec_once = PTHREAD_ONCE_INIT;
/* Grace periods: how many al_epoch_synchronize() calls have begun (each
 * takes the next number), and the highest number of one that has ended
 * (atomic, both). */
static uint64_t gp_begun;
static uint64_t gp_ended;

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

	__atomic_store_n(&r->active, AL_EPOCH_OUT, __ATOMIC_RELEASE);
	/* A data-path call from a later destructor of this thread takes the
	 * slow path (and may register anew) rather than use a record another
	 * thread may take now. */
	al_epoch_self = (al_epoch_rec_t *)&al_epoch_off;
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
		__atomic_store_n(&r->active, AL_EPOCH_OUT, __ATOMIC_RELAXED);
		__atomic_store_n(&r->in_use, 0, __ATOMIC_RELAXED);
	}
}

/*
 * The registration is made again at the first data-path call (init_once),
 * but made first here, as the library is loaded: a process then has one
 * thread as a rule, and the kernel registers one at once, where for a
 * process with threads it first waits for an RCU grace period (10 to 15 ms
 * here, which every program paid at its first QP or SA query). The second
 * registration returns at once; a failure here changes nothing.
 */
__attribute__((constructor)) static void register_at_load(void)
{
	int saved = errno;

	(void)membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED);
	errno = saved;
}

static void init_once(void)
{
	pthread_key_create(&rec_key, rec_release);
	pthread_atfork(NULL, NULL, after_fork_child);
	if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0) {
		__atomic_store_n(&membarrier_ok, 1, __ATOMIC_RELEASE);
	} else {
		IBAL_INFO(IBAL_SUB_AL, "no private expedited membarrier: data-path calls count "
			  "themselves in their handles");
	}
}

int al_epoch_register(void)
{
	al_epoch_rec_t *r;

	if (al_epoch_self != &al_epoch_off)
		return 0; /* registered: the caller is nested in a call */
	pthread_once(&rec_once, init_once);
	if (!__atomic_load_n(&membarrier_ok, __ATOMIC_ACQUIRE) || !al_handle_table_ready())
		return 0;
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
			IBAL_WARN(IBAL_SUB_AL, "out of memory for a thread's data-path record");
			return 0;
		}
		r->next = rec_head;
		__atomic_store_n(&rec_head, r, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&r->in_use, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&r->active, AL_EPOCH_OUT, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&rec_lock);
	if (pthread_setspecific(rec_key, r)) {
		/* Not given back at exit: lost, but harmless (it reads 0). */
		IBAL_WARN(IBAL_SUB_AL, "a thread's data-path record is not given back at its exit");
	}
	al_epoch_self = r;
	return 1;
}

al_epoch_rec_t *al_epoch_enter(void)
{
	if (al_epoch_try_enter(al_epoch_rec()))
		return al_epoch_rec();
	if (al_epoch_register() && al_epoch_try_enter(al_epoch_rec()))
		return al_epoch_rec();
	return NULL;
}

/* Waits until a record is no longer inside a call that began before the look. */
static void wait_record(al_epoch_rec_t *r)
{
	uintptr_t a = __atomic_load_n(&r->active, __ATOMIC_ACQUIRE);
	unsigned spins;

	/* Mark a call inside; a failed mark leaves in a what is there now:
	 * 0 (it returned) or another synchronizer's mark. */
	if (a == AL_EPOCH_IN &&
	    __atomic_compare_exchange_n(&r->active, &a, AL_EPOCH_SEEN, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		a = AL_EPOCH_SEEN;
	/* Only the thread's exit changes a mark (to 0); a new call then
	 * stores AL_EPOCH_IN, which is not waited for. */
	for (spins = 0; a == AL_EPOCH_SEEN; spins++) {
		if (spins < 64) {
			sched_yield();
		} else {
			struct timespec ts = { 0, 50000 };

			nanosleep(&ts, NULL);
		}
		a = __atomic_load_n(&r->active, __ATOMIC_ACQUIRE);
	}
}

void al_epoch_synchronize(void)
{
	al_epoch_rec_t *r;
	uint64_t n, done;

	/* Numbered first: a snapshot taken before this (al_epoch_snapshot())
	 * is at most n, so this grace period counts for what was invalidated
	 * before it. */
	n = __atomic_add_fetch(&gp_begun, 1, __ATOMIC_SEQ_CST);
	r = __atomic_load_n(&rec_head, __ATOMIC_ACQUIRE);
	if (!r)
		goto ended; /* no thread ever registered */
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* the invalidation before the scan */
	/* Every thread's store of AL_EPOCH_IN before the handle's invalidation
	 * is now visible here, and every later lookup sees the invalidation. A
	 * record exists only once the registration succeeded, so this cannot
	 * fail; if it ever did, nothing would keep the objects safe. */
	if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) {
		IBAL_ERR(IBAL_SUB_AL, "membarrier failed after registration: cannot order the data "
			 "path against a destroy");
		abort();
	}
	for (; r; r = r->next)
		wait_record(r);
ended:
	done = __atomic_load_n(&gp_ended, __ATOMIC_RELAXED);
	while (done < n && !__atomic_compare_exchange_n(&gp_ended, &done, n, 1, __ATOMIC_RELEASE,
							  __ATOMIC_RELAXED))
		;
}

uint64_t al_epoch_snapshot(void)
{
	/* The caller's invalidation before the read: a grace period numbered
	 * above what is read here began after it. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(&gp_begun, __ATOMIC_SEQ_CST) + 1;
}

uint64_t al_epoch_grace_periods(void)
{
	return __atomic_load_n(&gp_begun, __ATOMIC_RELAXED);
}

void al_epoch_synchronize_since(uint64_t snap)
{
	/* A grace period numbered snap or above began after the snapshot and
	 * has ended: every call that was inside then has returned. */
	if (__atomic_load_n(&gp_ended, __ATOMIC_ACQUIRE) >= snap)
		return;
	al_epoch_synchronize();
}
