/*
 * ibal soft provider: the soft HCA's lock, one futex word.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file soft_lock.h
 * @brief The lock of the soft HCA's queues and transport state: a mutex of
 * one 32-bit futex word, taken and released inline. Never installed.
 *
 * Every message and ACK takes several of these (the RC transport's, the
 * receive queue's, the CQ's, the receive path's), each once per packet. A
 * glibc mutex costs a call through the PLT and about 57 instructions per lock
 * and unlock (its type, owner and count); this one is a compare-and-swap to
 * take and an exchange to release, as rdma-core's providers keep their queue
 * locks small. The word's states are the classic futex mutex's: 0 free, 1
 * held, 2 held with sleepers. A contended take spins for a while
 * (SOFT_LOCK_SPINS pauses), then sleeps in the kernel: a holder preempted on
 * a busy machine costs its waiters a sleep, not a spinning time slice.
 *
 * Not recursive; no condition variables (locks that need one stay
 * pthread mutexes); a lock is released by the thread that took it. Under
 * ThreadSanitizer every take and release is announced to it (__tsan_mutex_*),
 * so that it knows what the lock orders.
 */
#ifndef SOFT_LOCK_H
#define SOFT_LOCK_H

#include <stdint.h>
#include <complib/cl_types.h>
#include "ibal_cpu.h"

#include "ibal_tsan.h"

/** A lock: 0 free, 1 held, 2 held with sleepers. */
typedef struct soft_lock {
	uint32_t word; /**< The futex word. */
} soft_lock_t;

/** Pauses a contended take spins before it sleeps (the table lock's waits too: soft_rwlock.c). */
#define SOFT_LOCK_SPINS 100u

/**
 * The contended take, out of line: spins, then sleeps until the lock is free.
 * @param l the lock.
 */
void soft_lock_wait(soft_lock_t *l);
/**
 * Wakes one sleeper of a lock just released with sleepers.
 * @param l the lock.
 */
void soft_lock_wake(soft_lock_t *l);

/** Makes a lock, free. @param l the lock. */
static inline void soft_lock_init(soft_lock_t *l)
{
	l->word = 0;
	IBAL_TSAN_ANNOTATE(__tsan_mutex_create(l, 0));
}

/** Ends a lock, free and unused. @param l the lock. */
static inline void soft_lock_destroy(soft_lock_t *l)
{
	IBAL_TSAN_ANNOTATE(__tsan_mutex_destroy(l, 0));
	(void)l;
}

/** Takes a lock, waiting as long as it is held. @param l the lock. */
static inline void soft_lock(soft_lock_t *l)
{
	uint32_t c = 0;

	IBAL_TSAN_ANNOTATE(__tsan_mutex_pre_lock(l, 0));
	if (!__atomic_compare_exchange_n(&l->word, &c, 1, FALSE, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		soft_lock_wait(l);
	IBAL_TSAN_ANNOTATE(__tsan_mutex_post_lock(l, 0, 0));
}

/**
 * Takes a lock if it is free.
 * @param l the lock.
 * @return TRUE if taken, FALSE if it is held.
 */
static inline boolean_t soft_trylock(soft_lock_t *l)
{
	uint32_t c = 0;
	boolean_t took;

	IBAL_TSAN_ANNOTATE(__tsan_mutex_pre_lock(l, __tsan_mutex_try_lock));
	took = __atomic_compare_exchange_n(&l->word, &c, 1, FALSE, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
	IBAL_TSAN_ANNOTATE(__tsan_mutex_post_lock(
		l, __tsan_mutex_try_lock | (took ? 0 : __tsan_mutex_try_lock_failed), 0));
	return took;
}

/** Releases a lock its caller holds, waking a sleeper if there is one. @param l the lock. */
static inline void soft_unlock(soft_lock_t *l)
{
	IBAL_TSAN_ANNOTATE(__tsan_mutex_pre_unlock(l, 0));
	if (__atomic_exchange_n(&l->word, 0, __ATOMIC_RELEASE) == 2)
		soft_lock_wake(l);
	IBAL_TSAN_ANNOTATE(__tsan_mutex_post_unlock(l, 0));
}

#endif /* SOFT_LOCK_H */
