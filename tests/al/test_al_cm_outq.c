/*
 * ibal tests: the CM's queues of what is handed on after its lock (cm_outq_t, al_cm_outq.c).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * What the CM relies on: every entry is handed on once, in the order it was
 * put; one thread hands at a time; an entry is unlinked before it is handed
 * on (the send queue's hand takes a list through the link); an entry put
 * while a thread hands is handed by that thread, none is left behind when
 * every putting thread has run the queue; and after
 * al_cm_outq_run(q, TRUE) returns, every entry put before the call has been
 * handed on.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "al_cm_int.h"
#include "../common/cl_test.h"

typedef struct entry {
	uint32_t seq;
	struct entry *link;
	uint32_t handed;
	uint32_t link_at_hand;    /* 1 when the link was not NULL at hand */
} entry_t;

#define N_THREADS 4
#define N_PER_THREAD 2000

static pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER; /* stands for al_cm_g.lock */
static uint32_t next_seq;          /* under big_lock */
static uint32_t order[N_THREADS * N_PER_THREAD + 8];
static uint32_t n_order;           /* under the queue's single hander */
static int inside;                 /* atomic: threads in hand at once */
static int max_inside;

static void record(entry_t *e)
{
	int now = __atomic_add_fetch(&inside, 1, __ATOMIC_SEQ_CST);

	if (now > max_inside)
		max_inside = now;
	e->link_at_hand = e->link != NULL;
	e->handed++;
	order[n_order++] = e->seq;
	__atomic_sub_fetch(&inside, 1, __ATOMIC_SEQ_CST);
}

static void hand(void *p)
{
	record((entry_t *)p);
}

static cm_outq_t q = CM_OUTQ_INIT(entry_t, link, hand);

static void reset(void)
{
	next_seq = 0;
	n_order = 0;
	max_inside = 0;
}

static void test_order(void)
{
	entry_t e[5];
	uint32_t i;

	reset();
	memset(e, 0, sizeof(e));
	al_cm_outq_run(&q, FALSE); /* empty: nothing */
	CU_ASSERT_EQUAL(n_order, 0);
	for (i = 0; i < 5; i++) {
		e[i].seq = i;
		al_cm_outq_put(&q, &e[i]);
	}
	al_cm_outq_run(&q, FALSE);
	CU_ASSERT_EQUAL_FATAL(n_order, 5);
	for (i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(order[i], i);
		CU_ASSERT_EQUAL(e[i].handed, 1);
		CU_ASSERT_EQUAL(e[i].link_at_hand, 0);
	}
	al_cm_outq_run(&q, TRUE);
	CU_ASSERT_EQUAL(n_order, 5);
}

/* An entry put by a hand (as a callback may queue another) goes in the same run. */
static entry_t chained[3];
static cm_outq_t *chain_q;

static void hand_chain(void *p)
{
	entry_t *e = (entry_t *)p;

	record(e);
	if (e->seq + 1 < 3)
		al_cm_outq_put(chain_q, &chained[e->seq + 1]);
}

static cm_outq_t cq = CM_OUTQ_INIT(entry_t, link, hand_chain);

static void test_put_while_handing(void)
{
	uint32_t i;

	reset();
	memset(chained, 0, sizeof(chained));
	for (i = 0; i < 3; i++)
		chained[i].seq = i;
	chain_q = &cq;
	al_cm_outq_put(&cq, &chained[0]);
	al_cm_outq_run(&cq, FALSE);
	CU_ASSERT_EQUAL_FATAL(n_order, 3);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(order[i], i);
		CU_ASSERT_EQUAL(chained[i].handed, 1);
	}
}

/* Threads make entries under one lock (their order), put them there and
 * hand the queue on after it, as al_cm_unlock() does. */
static entry_t many[N_THREADS * N_PER_THREAD];

static void *maker(void *arg)
{
	uint32_t i, k = (uint32_t)(uintptr_t)arg;

	for (i = 0; i < N_PER_THREAD; i++) {
		entry_t *e = &many[k * N_PER_THREAD + i];

		pthread_mutex_lock(&big_lock);
		e->seq = next_seq++;
		al_cm_outq_put(&q, e);
		pthread_mutex_unlock(&big_lock);
		al_cm_outq_run(&q, FALSE);
	}
	return NULL;
}

static void test_threads_keep_order(void)
{
	pthread_t t[N_THREADS];
	uint32_t i;

	reset();
	memset(many, 0, sizeof(many));
	for (i = 0; i < N_THREADS; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, maker, (void *)(uintptr_t)i), 0);
	for (i = 0; i < N_THREADS; i++)
		pthread_join(t[i], NULL);
	/* Each maker ran the queue after its put, and a run that found another
	 * thread at it left its entry to that thread: with every maker gone,
	 * none is left on the queue. */
	CU_ASSERT_EQUAL(n_order, N_THREADS * N_PER_THREAD);
	al_cm_outq_run(&q, TRUE);
	CU_ASSERT_EQUAL_FATAL(n_order, N_THREADS * N_PER_THREAD);
	for (i = 0; i < n_order; i++)
		if (order[i] != i) {
			CU_FAIL("an entry was handed out of order");
			break;
		}
	for (i = 0; i < N_THREADS * N_PER_THREAD; i++)
		if (many[i].handed != 1 || many[i].link_at_hand) {
			CU_FAIL("an entry was not handed exactly once, unlinked");
			break;
		}
	CU_ASSERT_EQUAL(max_inside, 1);
}

/* The one moment a put can be left behind: the busy thread has found the
 * queue empty and not yet ended being busy. Another thread puts then and
 * runs the queue, finds it busy and leaves its entry; the busy thread must
 * look once more after it ends and hand the entry on itself. */
static entry_t lb[2];
static cm_outq_t lq;

static void *lb_putter(void *arg)
{
	(void)arg;
	al_cm_outq_put(&lq, &lb[1]);
	al_cm_outq_run(&lq, FALSE); /* busy: returns at once */
	return NULL;
}

static void lb_emptied(cm_outq_t *q)
{
	pthread_t t;

	q->emptied = NULL; /* once */
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, lb_putter, NULL), 0);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(lb[1].handed, 0);
}

static void test_none_left_behind(void)
{
	cm_outq_t init = CM_OUTQ_INIT(entry_t, link, hand);

	reset();
	memset(lb, 0, sizeof(lb));
	lb[1].seq = 1;
	lq = init;
	lq.emptied = lb_emptied;
	al_cm_outq_put(&lq, &lb[0]);
	al_cm_outq_run(&lq, FALSE);
	CU_ASSERT_PTR_NULL(lq.emptied); /* the moment came */
	CU_ASSERT_EQUAL(lb[0].handed, 1);
	CU_ASSERT_EQUAL(lb[1].handed, 1);
	CU_ASSERT_EQUAL(n_order, 2);
	CU_ASSERT_PTR_NULL(__atomic_load_n(&lq.head, __ATOMIC_SEQ_CST));
}

/* A hand that waits until released, to hold the queue busy. */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_in, gate_open;
static entry_t slow[2];

static void hand_slow(void *p)
{
	entry_t *e = (entry_t *)p;

	if (e == &slow[0]) {
		pthread_mutex_lock(&gate_lock);
		gate_in = 1;
		pthread_cond_broadcast(&gate_cond);
		while (!gate_open)
			pthread_cond_wait(&gate_cond, &gate_lock);
		pthread_mutex_unlock(&gate_lock);
	}
	__atomic_add_fetch(&e->handed, 1, __ATOMIC_SEQ_CST);
}

static cm_outq_t sq = CM_OUTQ_INIT(entry_t, link, hand_slow);

static void *slow_runner(void *arg)
{
	(void)arg;
	al_cm_outq_run(&sq, FALSE);
	return NULL;
}

static void *waiter(void *arg)
{
	uint32_t *p_seen = (uint32_t *)arg;

	al_cm_outq_put(&sq, &slow[1]);
	al_cm_outq_run(&sq, TRUE);
	/* Returned: what it put was handed on, by it or by the busy thread. */
	*p_seen = __atomic_load_n(&slow[1].handed, __ATOMIC_SEQ_CST);
	return NULL;
}

static void test_wait_sees_everything_handed(void)
{
	pthread_t a, b;
	uint32_t seen = 0;

	memset(slow, 0, sizeof(slow));
	al_cm_outq_put(&sq, &slow[0]);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&a, NULL, slow_runner, NULL), 0);
	pthread_mutex_lock(&gate_lock);
	while (!gate_in)    /* bounded: the runner is on its way into hand_slow */
		pthread_cond_wait(&gate_cond, &gate_lock);
	pthread_mutex_unlock(&gate_lock);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&b, NULL, waiter, &seen), 0);
	/* A non-waiting run while the queue is busy leaves its entries to the busy thread. */
	al_cm_outq_run(&sq, FALSE);
	pthread_mutex_lock(&gate_lock);
	gate_open = 1;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	CU_ASSERT_EQUAL(seen, 1);
	CU_ASSERT_EQUAL(slow[0].handed, 1);
	CU_ASSERT_EQUAL(slow[1].handed, 1);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_order),
	TEST_ENTRY(test_put_while_handing),
	TEST_ENTRY(test_threads_keep_order),
	TEST_ENTRY(test_none_left_behind),
	TEST_ENTRY(test_wait_sees_everything_handed),
};

TEST_MAIN("al_cm_outq", tests)
