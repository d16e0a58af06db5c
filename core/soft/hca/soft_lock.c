/*
 * ibal soft provider: the contended paths of the soft HCA's lock (soft_lock.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "soft_lock.h"

void soft_lock_wait(soft_lock_t *l)
{
	uint32_t c;
	unsigned i;

	/* A holder is usually out within a few hundred instructions. */
	for (i = 0; i < SOFT_LOCK_SPINS; i++) {
		ibal_cpu_relax();
		c = __atomic_load_n(&l->word, __ATOMIC_RELAXED);
		if (c == 2)
			break; /* others sleep already: join them */
		if (c == 0 && __atomic_compare_exchange_n(&l->word, &c, 1, FALSE, __ATOMIC_ACQUIRE,
							  __ATOMIC_RELAXED))
			return;
	}
	/* Marked as having sleepers, since this thread may become one; the
	 * releaser then makes a wake-up call that may find nobody. */
	while (__atomic_exchange_n(&l->word, 2, __ATOMIC_ACQUIRE) != 0)
		syscall(SYS_futex, &l->word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

void soft_lock_wake(soft_lock_t *l)
{
	syscall(SYS_futex, &l->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
