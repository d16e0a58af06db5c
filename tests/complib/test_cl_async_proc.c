/*
 * ibal tests: cl_async_proc.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <sched.h>
#include <complib/cl_async_proc.h>
#include <complib/cl_atomic.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/mem_track.h"

#define N_ITEMS 64

typedef struct _test_item {
	cl_async_proc_item_t item;
	int index;
	atomic32_t calls;
	struct _test_ctx *ctx;
} test_item_t;

typedef struct _test_ctx {
	cl_async_proc_t *proc;
	int order[N_ITEMS * 2];
	atomic32_t done_count;
	int32_t expected;
	cl_event_t done;     /* auto-reset: expected callbacks have run */
	cl_event_t entered;  /* auto-reset: the gate callback started */
	cl_event_t gate;     /* manual-reset: the gate callback may return */
	test_item_t *extra;  /* queued by the gate callback, if set */
} test_ctx_t;

static void ctx_init(test_ctx_t *c, cl_async_proc_t *proc, int32_t expected)
{
	cl_memclr(c, sizeof(*c));
	c->proc = proc;
	c->expected = expected;
	cl_event_construct(&c->done);
	cl_event_construct(&c->entered);
	cl_event_construct(&c->gate);
	CU_ASSERT_EQUAL(cl_event_init(&c->done, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_init(&c->entered, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_init(&c->gate, TRUE), CL_SUCCESS);
}

static void ctx_destroy(test_ctx_t *c)
{
	cl_event_destroy(&c->done);
	cl_event_destroy(&c->entered);
	cl_event_destroy(&c->gate);
}

static int32_t load32(atomic32_t *v)
{
	return __atomic_load_n(v, __ATOMIC_ACQUIRE);
}

/* Records the order of calls; meaningful with one thread. */
static void CL_API record_cb(cl_async_proc_item_t *p_item)
{
	test_item_t *t = PARENT_STRUCT(p_item, test_item_t, item);
	test_ctx_t *c = t->ctx;
	int32_t n;

	cl_atomic_inc(&t->calls);
	n = cl_atomic_inc(&c->done_count);
	if (n <= (int32_t)(sizeof(c->order) / sizeof(c->order[0])))
		c->order[n - 1] = t->index;
	if (n == c->expected)
		cl_event_signal(&c->done);
}

static void CL_API gate_cb(cl_async_proc_item_t *p_item)
{
	test_item_t *t = PARENT_STRUCT(p_item, test_item_t, item);
	test_ctx_t *c = t->ctx;

	cl_event_signal(&c->entered);
	cl_event_wait_on(&c->gate, TEST_WAIT_US, FALSE);
	if (c->extra)
		cl_async_proc_queue(c->proc, &c->extra->item);
	record_cb(p_item);
}

static void item_init(test_item_t *t, test_ctx_t *c, int index, cl_pfn_async_proc_cb_t cb)
{
	cl_memclr(t, sizeof(*t));
	t->index = index;
	t->ctx = c;
	t->item.pfn_callback = cb;
}

static void test_construct_destroy(void)
{
	cl_async_proc_t proc;

	test_track_begin();
	cl_async_proc_construct(&proc);
	CU_ASSERT_EQUAL(proc.state, CL_UNINITIALIZED);
	cl_async_proc_destroy(&proc);
	CU_ASSERT_EQUAL(proc.state, CL_DESTROYED);
	test_track_end();
}

static void test_init_zero_threads(void)
{
	cl_async_proc_t proc;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_async_proc_init(&proc, 0, "ap_zero"), CL_SUCCESS);
	CU_ASSERT_EQUAL(proc.state, CL_INITIALIZED);
	CU_ASSERT_EQUAL(proc.thread_pool.thread_count, cl_proc_count());
	cl_async_proc_destroy(&proc);
	test_track_end();
}

/* One thread: callbacks run in queueing order, each exactly once. */
static void test_fifo_order_single_thread(void)
{
	static test_item_t items[N_ITEMS];
	cl_async_proc_t proc;
	test_ctx_t c;
	int i;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_async_proc_init(&proc, 1, "ap_fifo"), CL_SUCCESS);
	ctx_init(&c, &proc, N_ITEMS);
	for (i = 0; i < N_ITEMS; i++) {
		item_init(&items[i], &c, i, record_cb);
		cl_async_proc_queue(&proc, &items[i].item);
	}
	CU_ASSERT_EQUAL(cl_event_wait_on(&c.done, TEST_WAIT_US, FALSE), CL_SUCCESS);
	for (i = 0; i < N_ITEMS; i++) {
		CU_ASSERT_EQUAL(c.order[i], i);
		CU_ASSERT_EQUAL(load32(&items[i].calls), 1);
	}
	cl_async_proc_destroy(&proc);
	CU_ASSERT_EQUAL(load32(&c.done_count), N_ITEMS);
	ctx_destroy(&c);
	test_track_end();
}

/* Several threads and several queueing threads: every item runs once. */
typedef struct {
	cl_async_proc_t *proc;
	test_item_t *items;
	int count;
} producer_t;

static void CL_API producer(void *context)
{
	producer_t *p = (producer_t *)context;
	int i;

	for (i = 0; i < p->count; i++)
		cl_async_proc_queue(p->proc, &p->items[i].item);
}

static void test_completion_many_threads(void)
{
	enum { PRODUCERS = 3, PER = 200 };
	static test_item_t items[PRODUCERS * PER];
	cl_thread_t thr[PRODUCERS];
	producer_t prod[PRODUCERS];
	cl_async_proc_t proc;
	test_ctx_t c;
	int i;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_async_proc_init(&proc, 4, "ap_many"), CL_SUCCESS);
	ctx_init(&c, &proc, PRODUCERS * PER);
	for (i = 0; i < PRODUCERS * PER; i++)
		item_init(&items[i], &c, i, record_cb);
	for (i = 0; i < PRODUCERS; i++) {
		prod[i].proc = &proc;
		prod[i].items = &items[i * PER];
		prod[i].count = PER;
		cl_thread_construct(&thr[i]);
		CU_ASSERT_EQUAL(cl_thread_init(&thr[i], producer, &prod[i], "ap_prod"), CL_SUCCESS);
	}
	CU_ASSERT_EQUAL(cl_event_wait_on(&c.done, TEST_WAIT_US, FALSE), CL_SUCCESS);
	for (i = 0; i < PRODUCERS; i++)
		cl_thread_destroy(&thr[i]);
	cl_async_proc_destroy(&proc);
	CU_ASSERT_EQUAL(load32(&c.done_count), PRODUCERS * PER);
	for (i = 0; i < PRODUCERS * PER; i++)
		CU_ASSERT_EQUAL(load32(&items[i].calls), 1);
	ctx_destroy(&c);
	test_track_end();
}

/* Destroy with items still queued behind a busy callback: none is dropped,
 * all run once, in order, before destroy returns. */
static void test_destroy_runs_queued_items(void)
{
	static test_item_t items[N_ITEMS];
	test_item_t gate;
	cl_async_proc_t proc;
	test_ctx_t c;
	int i;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_async_proc_init(&proc, 1, "ap_flush"), CL_SUCCESS);
	ctx_init(&c, &proc, N_ITEMS + 1);
	item_init(&gate, &c, -1, gate_cb);
	cl_async_proc_queue(&proc, &gate.item);
	CU_ASSERT_EQUAL(cl_event_wait_on(&c.entered, TEST_WAIT_US, FALSE), CL_SUCCESS);
	for (i = 0; i < N_ITEMS; i++) {
		item_init(&items[i], &c, i, record_cb);
		cl_async_proc_queue(&proc, &items[i].item);
	}
	CU_ASSERT_EQUAL(load32(&c.done_count), 0);
	cl_event_signal(&c.gate);
	cl_async_proc_destroy(&proc);
	CU_ASSERT_EQUAL(load32(&c.done_count), N_ITEMS + 1);
	CU_ASSERT_EQUAL(c.order[0], -1);
	for (i = 0; i < N_ITEMS; i++) {
		CU_ASSERT_EQUAL(c.order[i + 1], i);
		CU_ASSERT_EQUAL(load32(&items[i].calls), 1);
	}
	ctx_destroy(&c);
	test_track_end();
}

/* A callback still running when destroy starts may queue more work; that
 * work runs before destroy returns. */
typedef struct {
	cl_async_proc_t *proc;
	cl_event_t done;
} destroyer_t;

static void CL_API destroyer(void *context)
{
	destroyer_t *d = (destroyer_t *)context;

	cl_async_proc_destroy(d->proc);
	cl_event_signal(&d->done);
}

static void test_queue_from_callback_during_destroy(void)
{
	test_item_t gate, extra;
	cl_async_proc_t proc;
	cl_thread_t thr;
	destroyer_t d;
	test_ctx_t c;
	uint64_t deadline;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_async_proc_init(&proc, 2, "ap_late"), CL_SUCCESS);
	ctx_init(&c, &proc, 2);
	item_init(&gate, &c, 0, gate_cb);
	item_init(&extra, &c, 1, record_cb);
	c.extra = &extra;
	cl_async_proc_queue(&proc, &gate.item);
	CU_ASSERT_EQUAL(cl_event_wait_on(&c.entered, TEST_WAIT_US, FALSE), CL_SUCCESS);

	d.proc = &proc;
	cl_event_construct(&d.done);
	CU_ASSERT_EQUAL(cl_event_init(&d.done, FALSE), CL_SUCCESS);
	cl_thread_construct(&thr);
	CU_ASSERT_EQUAL(cl_thread_init(&thr, destroyer, &d, "ap_destroyer"), CL_SUCCESS);
	deadline = test_now_ms() + TEST_WAIT_US / 1000u;
	while (__atomic_load_n(&proc.thread_pool.exit, __ATOMIC_ACQUIRE) == FALSE &&
	       test_now_ms() < deadline)
		sched_yield();
	CU_ASSERT_TRUE(__atomic_load_n(&proc.thread_pool.exit, __ATOMIC_ACQUIRE));
	CU_ASSERT_EQUAL(cl_event_wait_on(&d.done, 0, FALSE), CL_TIMEOUT);
	cl_event_signal(&c.gate);
	CU_ASSERT_EQUAL(cl_event_wait_on(&d.done, TEST_WAIT_US, FALSE), CL_SUCCESS);
	cl_thread_destroy(&thr);

	CU_ASSERT_EQUAL(load32(&gate.calls), 1);
	CU_ASSERT_EQUAL(load32(&extra.calls), 1);
	CU_ASSERT_EQUAL(load32(&c.done_count), 2);
	cl_event_destroy(&d.done);
	ctx_destroy(&c);
	test_track_end();
}

/* A callback may queue its own item again, and may free it. */
typedef struct {
	cl_async_proc_item_t item;
	cl_async_proc_t *proc;
	int remaining;
	cl_event_t *done;
} bounce_t;

static void CL_API bounce_cb(cl_async_proc_item_t *p_item)
{
	bounce_t *b = PARENT_STRUCT(p_item, bounce_t, item);
	cl_event_t *done = b->done;

	if (--b->remaining > 0) {
		cl_async_proc_queue(b->proc, &b->item);
		return;
	}
	cl_free(b);
	cl_event_signal(done);
}

static void test_requeue_and_free_in_callback(void)
{
	cl_async_proc_t proc;
	cl_event_t done;
	bounce_t *b;

	test_track_begin();
	cl_event_construct(&done);
	CU_ASSERT_EQUAL(cl_event_init(&done, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_async_proc_init(&proc, 2, "ap_bounce"), CL_SUCCESS);
	b = (bounce_t *)cl_zalloc(sizeof(*b));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	b->item.pfn_callback = bounce_cb;
	b->proc = &proc;
	b->remaining = 100;
	b->done = &done;
	cl_async_proc_queue(&proc, &b->item);
	CU_ASSERT_EQUAL(cl_event_wait_on(&done, TEST_WAIT_US, FALSE), CL_SUCCESS);
	cl_async_proc_destroy(&proc);
	cl_event_destroy(&done);
	test_track_end();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_construct_destroy),
	TEST_ENTRY(test_init_zero_threads),
	TEST_ENTRY(test_fifo_order_single_thread),
	TEST_ENTRY(test_completion_many_threads),
	TEST_ENTRY(test_destroy_runs_queued_items),
	TEST_ENTRY(test_queue_from_callback_during_destroy),
	TEST_ENTRY(test_requeue_and_free_in_callback),
};

TEST_MAIN("cl_async_proc", tests)
