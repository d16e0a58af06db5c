/*
 * ibal soft provider: the waits of the soft HCA's table lock (soft_rwlock.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "ibal_cpu.h"
#include "soft_lock.h"
#include "soft_rwlock.h"

static void futex_wait(soft_rwlock_t *l, uint32_t v)
{
	syscall(SYS_futex, &l->word, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void futex_wake_all(soft_rwlock_t *l)
{
	syscall(SYS_futex, &l->word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

void soft_rwlock_read_wake(soft_rwlock_t *l)
{
	uint32_t v = SOFT_RWLOCK_WANTED;

	/* The last reader out hands the lock to the waiting writer, as glibc's
	 * last reader starts a write phase: no reader can come in between, so
	 * a thread that reads again and again cannot keep the writer out. A
	 * reader already back in (the exchange fails) hands it over when it
	 * leaves. */
	if (__atomic_compare_exchange_n(&l->word, &v, SOFT_RWLOCK_HELD, FALSE, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED))
		futex_wake_all(l);
}

void soft_rwlock_read_wait(soft_rwlock_t *l)
{
	unsigned spins = 0;
	uint32_t v;

	for (;;) {
		/* Not inside while the writer is: the count goes back. A writer
		 * that came meanwhile may be waiting for this very count. */
		v = __atomic_fetch_sub(&l->word, 1, __ATOMIC_RELAXED);
		if ((v & SOFT_RWLOCK_WANTED) && (v & SOFT_RWLOCK_READERS) == 1)
			soft_rwlock_read_wake(l);
		while ((v = __atomic_load_n(&l->word, __ATOMIC_RELAXED)) & SOFT_RWLOCK_HELD) {
			if (spins < SOFT_LOCK_SPINS) {
				spins++;
				ibal_cpu_relax();
				continue;
			}
			if (!(v & SOFT_RWLOCK_SLEEPERS) &&
			    !__atomic_compare_exchange_n(&l->word, &v, v | SOFT_RWLOCK_SLEEPERS, FALSE,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
				continue;
			futex_wait(l, v | SOFT_RWLOCK_SLEEPERS);
		}
		if (!(__atomic_fetch_add(&l->word, 1, __ATOMIC_ACQUIRE) & SOFT_RWLOCK_HELD))
			return;
	}
}

void soft_rwlock_write(soft_rwlock_t *l)
{
	unsigned spins = 0;
	uint32_t v;

	IBAL_TSAN_ANNOTATE(__tsan_mutex_pre_lock(l, 0));
	v = __atomic_or_fetch(&l->word, SOFT_RWLOCK_WANTED, __ATOMIC_ACQUIRE);
	for (;;) {
		/* Writers are serialized: HELD now is the last reader's hand-over. */
		if (v & SOFT_RWLOCK_HELD)
			break;
		if (!(v & SOFT_RWLOCK_READERS)) {
			/* Readers that come now go in first: the exchange fails. */
			if (__atomic_compare_exchange_n(&l->word, &v, SOFT_RWLOCK_HELD, FALSE,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				break;
			continue;
		}
		if (spins < SOFT_LOCK_SPINS) {
			spins++;
			ibal_cpu_relax();
		} else {
			futex_wait(l, v); /* the last reader out hands it over and wakes it */
		}
		v = __atomic_load_n(&l->word, __ATOMIC_ACQUIRE);
	}
	IBAL_TSAN_ANNOTATE(__tsan_mutex_post_lock(l, 0, 0));
}

void soft_rwlock_write_end(soft_rwlock_t *l)
{
	uint32_t v;

	IBAL_TSAN_ANNOTATE(__tsan_mutex_pre_unlock(l, 0));
	v = __atomic_fetch_and(&l->word, ~(SOFT_RWLOCK_HELD | SOFT_RWLOCK_SLEEPERS), __ATOMIC_RELEASE);
	if (v & SOFT_RWLOCK_SLEEPERS)
		futex_wake_all(l);
	IBAL_TSAN_ANNOTATE(__tsan_mutex_post_unlock(l, 0));
}
