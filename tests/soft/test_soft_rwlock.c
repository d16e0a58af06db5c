/*
 * ibal tests: the soft HCA's table lock (core/soft/hca/soft_rwlock.h): a
 * writer excludes readers and readers share, a reader may take it again
 * while a writer waits, the last reader out hands the lock to a waiting
 * writer, and sleepers on either side are woken.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getcpu, CPU_SET, pthread_setaffinity_np, SCHED_IDLE */
#endif
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "soft_lock.h"
#include "soft_rwlock.h"
#include "../common/cl_test.h"

#define READERS 3
#define ROUNDS 50000
#define WAIT_NS (10ull * 1000000000ull) /* bound of a wait for another thread */

static soft_rwlock_t lock;
static soft_lock_t writers; /* serializes writers, as rx_lock does for the CA's tables */
static long a, b;           /* a writer makes them equal; a reader must never see them differ */
static int readers_in, writers_in;
static int torn, overlaps, entered;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint32_t word(void)
{
	return __atomic_load_n(&lock.word, __ATOMIC_RELAXED);
}

/* Waits (bounded) until the lock word has every bit of @p bits. */
static int wait_bits(uint32_t bits)
{
	uint64_t end = now_ns() + WAIT_NS;

	while ((word() & bits) != bits && now_ns() < end)
		sched_yield();
	return (word() & bits) == bits;
}

/* Whether thread @p tid sleeps in the kernel (state S in /proc), waiting at most WAIT_NS. */
static int wait_asleep(pid_t tid)
{
	uint64_t end = now_ns() + WAIT_NS;
	char path[64], buf[256], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	do {
		f = fopen(path, "r");
		if (!f)
			return 0;
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		if (p && p[1] == ' ' && p[2] == 'S')
			return 1;
		sched_yield();
	} while (now_ns() < end);
	return 0;
}

static void *reader(void *arg)
{
	long i, rounds = (long)(intptr_t)arg;

	for (i = 0; i < rounds; i++) {
		soft_rwlock_read(&lock);
		__atomic_fetch_add(&readers_in, 1, __ATOMIC_RELAXED);
		if (__atomic_load_n(&writers_in, __ATOMIC_RELAXED))
			__atomic_fetch_add(&overlaps, 1, __ATOMIC_RELAXED);
		if (a != b)
			__atomic_fetch_add(&torn, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&entered, 1, __ATOMIC_RELAXED);
		__atomic_fetch_sub(&readers_in, 1, __ATOMIC_RELAXED);
		soft_rwlock_read_end(&lock);
	}
	return NULL;
}

static void *writer(void *arg)
{
	long i, rounds = (long)(intptr_t)arg;

	for (i = 0; i < rounds; i++) {
		soft_lock(&writers);
		soft_rwlock_write(&lock);
		if (__atomic_fetch_add(&writers_in, 1, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&readers_in, __ATOMIC_RELAXED))
			__atomic_fetch_add(&overlaps, 1, __ATOMIC_RELAXED);
		a++;
		sched_yield(); /* a reader would see a != b now, if it could come in */
		b++;
		__atomic_fetch_add(&entered, 1, __ATOMIC_RELAXED);
		__atomic_fetch_sub(&writers_in, 1, __ATOMIC_RELAXED);
		soft_rwlock_write_end(&lock);
		soft_unlock(&writers);
	}
	return NULL;
}

static void reset(void)
{
	soft_rwlock_init(&lock);
	soft_lock_init(&writers);
	a = b = 0;
	readers_in = writers_in = torn = overlaps = entered = 0;
}

/* Three readers and two writers at once: a writer is alone inside, readers never see its half-done work. */
static void test_writer_excludes(void)
{
	pthread_t t[READERS + 2];
	long w_rounds = ROUNDS / 50;
	int i;

	reset();
	for (i = 0; i < READERS; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, reader, (void *)(intptr_t)ROUNDS), 0);
	for (i = READERS; i < READERS + 2; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, writer, (void *)(intptr_t)w_rounds), 0);
	for (i = 0; i < READERS + 2; i++)
		pthread_join(t[i], NULL);
	CU_ASSERT_EQUAL(torn, 0);
	CU_ASSERT_EQUAL(overlaps, 0);
	CU_ASSERT_EQUAL(a, 2 * w_rounds);
	CU_ASSERT_EQUAL(b, 2 * w_rounds);
	CU_ASSERT_EQUAL(entered, READERS * ROUNDS + 2 * w_rounds);
	CU_ASSERT_EQUAL(word(), 0u);
	soft_rwlock_destroy(&lock);
	soft_lock_destroy(&writers);
}

/* Readers share: a thread holding the read side takes it again at once. */
static void test_readers_share(void)
{
	reset();
	soft_rwlock_read(&lock);
	soft_rwlock_read(&lock);
	CU_ASSERT_EQUAL(word(), 2u);
	soft_rwlock_read_end(&lock);
	soft_rwlock_read_end(&lock);
	CU_ASSERT_EQUAL(word(), 0u);
	soft_rwlock_write(&lock);
	CU_ASSERT_EQUAL(word(), SOFT_RWLOCK_HELD);
	soft_rwlock_write_end(&lock);
	CU_ASSERT_EQUAL(word(), 0u);
	soft_rwlock_destroy(&lock);
}

static pid_t writer_tid;

static void *one_writer(void *arg)
{
	(void)arg;
	__atomic_store_n(&writer_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	soft_rwlock_write(&lock);
	__atomic_fetch_add(&entered, 1, __ATOMIC_RELAXED);
	soft_rwlock_write_end(&lock);
	return NULL;
}

/* Takes the read side, starts one_writer() in @p t and waits (bounded)
 * until the writer waits for the lock, asleep past its spins. */
static void reader_with_writer_asleep(pthread_t *t)
{
	uint64_t end;

	writer_tid = 0;
	soft_rwlock_read(&lock);
	CU_ASSERT_EQUAL_FATAL(pthread_create(t, NULL, one_writer, NULL), 0);
	CU_ASSERT_TRUE(wait_bits(SOFT_RWLOCK_WANTED));
	end = now_ns() + WAIT_NS;
	while (!__atomic_load_n(&writer_tid, __ATOMIC_ACQUIRE) && now_ns() < end)
		sched_yield();
	CU_ASSERT_TRUE(wait_asleep(__atomic_load_n(&writer_tid, __ATOMIC_ACQUIRE)));
}

/*
 * A reader inside, a writer waiting for it (asleep past its spins): the
 * reader takes the read side again without waiting (readers come first, so
 * a nested read cannot deadlock), and the last release wakes the writer.
 */
static void test_nested_read_while_writer_waits(void)
{
	pthread_t t;

	reset();
	reader_with_writer_asleep(&t);
	soft_rwlock_read(&lock);
	CU_ASSERT_EQUAL(word() & SOFT_RWLOCK_READERS, 2u);
	CU_ASSERT_EQUAL(__atomic_load_n(&entered, __ATOMIC_RELAXED), 0);
	soft_rwlock_read_end(&lock);
	CU_ASSERT_EQUAL(__atomic_load_n(&entered, __ATOMIC_RELAXED), 0);
	soft_rwlock_read_end(&lock);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(entered, 1);
	CU_ASSERT_EQUAL(word(), 0u);
	soft_rwlock_destroy(&lock);
}

/*
 * A reader inside, a writer asleep waiting for it. The writer is then made
 * unable to run while the reader can (both on the reader's processor, the
 * writer with the idle policy): when the reader leaves and at once comes
 * back, the writer must already own the lock (the last reader out hands it
 * over) and be through before the reader gets back in. Without the hand-over
 * the reader would get back in first, as often as it liked: a thread that
 * reads again and again (a loop of RC posts) could keep a writer (a QP
 * created on another thread) out.
 */
static void test_writer_not_starved(void)
{
	struct sched_param idle = { 0 };
	cpu_set_t one, was;
	pthread_t t;
	int cpu;

	reset();
	reader_with_writer_asleep(&t);
	CU_ASSERT_EQUAL_FATAL(pthread_getaffinity_np(pthread_self(), sizeof(was), &was), 0);
	cpu = sched_getcpu();
	CU_ASSERT_FATAL(cpu >= 0);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	CU_ASSERT_EQUAL_FATAL(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
	CU_ASSERT_EQUAL_FATAL(pthread_setaffinity_np(t, sizeof(one), &one), 0);
	CU_ASSERT_EQUAL_FATAL(pthread_setschedparam(t, SCHED_IDLE, &idle), 0);
	soft_rwlock_read_end(&lock);
	soft_rwlock_read(&lock);
	CU_ASSERT_EQUAL(__atomic_load_n(&entered, __ATOMIC_RELAXED), 1);
	soft_rwlock_read_end(&lock);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(pthread_setaffinity_np(pthread_self(), sizeof(was), &was), 0);
	CU_ASSERT_EQUAL(entered, 1);
	CU_ASSERT_EQUAL(word(), 0u);
	soft_rwlock_destroy(&lock);
}

/* A writer inside while three readers come: past their spins they mark the
 * lock and sleep; the writer's release wakes all of them and each gets in. */
static void test_readers_sleep_and_wake(void)
{
	pthread_t t[READERS];
	int i;

	reset();
	soft_rwlock_write(&lock);
	for (i = 0; i < READERS; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, reader, (void *)(intptr_t)1), 0);
	CU_ASSERT_TRUE(wait_bits(SOFT_RWLOCK_HELD | SOFT_RWLOCK_SLEEPERS));
	CU_ASSERT_EQUAL(__atomic_load_n(&entered, __ATOMIC_RELAXED), 0);
	soft_rwlock_write_end(&lock);
	for (i = 0; i < READERS; i++)
		pthread_join(t[i], NULL);
	CU_ASSERT_EQUAL(entered, READERS);
	CU_ASSERT_EQUAL(torn, 0);
	CU_ASSERT_EQUAL(word(), 0u);
	soft_rwlock_destroy(&lock);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_writer_excludes),
	TEST_ENTRY(test_readers_share),
	TEST_ENTRY(test_nested_read_while_writer_waits),
	TEST_ENTRY(test_writer_not_starved),
	TEST_ENTRY(test_readers_sleep_and_wake),
};

TEST_MAIN("soft_rwlock", tests)
