/*
 * ibal soft provider: the soft HCA's table lock, readers first, one futex word.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file soft_rwlock.h
 * @brief The reader-writer lock of a soft CA's tables (`soft_ca_t.tab_lock`,
 * soft_hca.h): one 32-bit futex word, its read side taken and released
 * inline. Never installed.
 *
 * Every RC post takes the tables for reading, and so does the flush of the
 * ACKs a poll queued; they change only when a QP, MR or MW is made or
 * destroyed. A glibc rwlock costs two calls through the PLT and about 60
 * instructions per read lock and unlock; this one is an atomic add to take
 * and an atomic subtract to release, as the kernel's and liburcu's reader
 * counts are.
 *
 * The word holds the number of readers inside (low bits), `HELD` while a
 * writer is inside, `WANTED` while one waits for the readers to leave and
 * `SLEEPERS` while a reader sleeps until the writer leaves.
 * Readers come first, as with glibc's default rwlock: a reader waits only
 * for a writer inside, never for one waiting, so a thread may take the read
 * side again while it holds it (a writer waiting cannot deadlock it). Writers
 * are serialized by the caller (soft_tab_write() takes rx_lock first); a
 * writer waits until no reader is inside, and the last reader out hands the
 * lock over to it (as glibc's last reader starts a write phase), so that a
 * thread reading again and again cannot keep it out. Waits spin briefly,
 * then sleep on the word (futex). Under ThreadSanitizer each take and release is announced
 * (__tsan_mutex_*, read locks flagged), so that it knows what the lock orders.
 */
#ifndef SOFT_RWLOCK_H
#define SOFT_RWLOCK_H

#include <stdint.h>
#include <complib/cl_types.h>
#include "ibal_tsan.h"

/** A reader-writer lock: readers inside and the SOFT_RWLOCK_* bits. */
typedef struct soft_rwlock {
	uint32_t word; /**< The futex word. */
} soft_rwlock_t;

/** A writer is inside. */
#define SOFT_RWLOCK_HELD   0x80000000u
/** A writer waits for the readers to leave. */
#define SOFT_RWLOCK_WANTED 0x40000000u
/** A reader sleeps until the writer inside leaves. */
#define SOFT_RWLOCK_SLEEPERS 0x20000000u
/** The readers inside. */
#define SOFT_RWLOCK_READERS 0x1fffffffu

/**
 * The read side's wait for a writer to leave, out of line: takes back the
 * count the inline take added, waits, and counts itself in again.
 * @param l the lock.
 */
void soft_rwlock_read_wait(soft_rwlock_t *l);
/**
 * Hands the lock over to the writer waiting for the last reader, who just
 * left, and wakes it. @param l the lock.
 */
void soft_rwlock_read_wake(soft_rwlock_t *l);
/** Takes the write side (the caller serializes writers). @param l the lock. */
void soft_rwlock_write(soft_rwlock_t *l);
/** Releases the write side, waking the readers that wait. @param l the lock. */
void soft_rwlock_write_end(soft_rwlock_t *l);

/** Makes a lock, free. @param l the lock. */
static inline void soft_rwlock_init(soft_rwlock_t *l)
{
	l->word = 0;
	IBAL_TSAN_ANNOTATE(__tsan_mutex_create(l, 0));
}

/** Ends a lock, free and unused. @param l the lock. */
static inline void soft_rwlock_destroy(soft_rwlock_t *l)
{
	IBAL_TSAN_ANNOTATE(__tsan_mutex_destroy(l, 0));
	(void)l;
}

/** Takes the read side, waiting while a writer is inside. @param l the lock. */
static inline void soft_rwlock_read(soft_rwlock_t *l)
{
	IBAL_TSAN_ANNOTATE(__tsan_mutex_pre_lock(l, __tsan_mutex_read_lock));
	if (__builtin_expect(__atomic_fetch_add(&l->word, 1, __ATOMIC_ACQUIRE) & SOFT_RWLOCK_HELD, 0))
		soft_rwlock_read_wait(l);
	IBAL_TSAN_ANNOTATE(__tsan_mutex_post_lock(l, __tsan_mutex_read_lock, 0));
}

/** Releases the read side, waking a waiting writer if this was the last reader. @param l the lock. */
static inline void soft_rwlock_read_end(soft_rwlock_t *l)
{
	uint32_t v;

	IBAL_TSAN_ANNOTATE(__tsan_mutex_pre_unlock(l, __tsan_mutex_read_lock));
	v = __atomic_fetch_sub(&l->word, 1, __ATOMIC_RELEASE);
	if (__builtin_expect((v & SOFT_RWLOCK_WANTED) != 0, 0) && (v & SOFT_RWLOCK_READERS) == 1)
		soft_rwlock_read_wake(l);
	IBAL_TSAN_ANNOTATE(__tsan_mutex_post_unlock(l, __tsan_mutex_read_lock));
}

#endif /* SOFT_RWLOCK_H */
