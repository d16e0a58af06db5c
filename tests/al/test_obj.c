/*
 * ibal tests: access-layer objects, their destruction and their callback queues.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <limits.h>
#include <pthread.h>
#include <complib/cl_event.h>
#include <complib/cl_memory.h>
#include <complib/cl_thread.h>
#include <complib/cl_timer.h>
#include "al_obj.h"
#include "al_spin.h"
#include "../common/cl_test.h"

/* ---- Test objects and the record of what happened to them ---- */

enum { MAXID = 16, MAXCB = 4096 };

typedef struct {
	al_obj_t obj;
	int id;
} tobj_t;

/* Everything below is written under rec_lock. */
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int seq;
	int destroying[MAXID], cleanup[MAXID], freed[MAXID]; /* sequence numbers */
	int destroy_cb[MAXID], destroy_cb_count[MAXID];
	int destroy_cb_off_thread[MAXID]; /* on an AL thread, not the test's */
	int cb_count[MAXID], cb_last[MAXID], cb_seq[MAXID], cb_out_of_order, cb_after_destroy;
	int cb_not_al_thread;
	int requeue_refused[MAXID];
} rec;

static pthread_t main_thread;
static cl_event_t ev_destroyed[MAXID], ev_freed[MAXID], ev_destroying[MAXID];
static size_t mem_base;

static int next_seq(void)
{
	return ++rec.seq;
}

static void note(int *field)
{
	pthread_mutex_lock(&rec_lock);
	*field = next_seq();
	pthread_mutex_unlock(&rec_lock);
}

static int get(const int *field)
{
	int v;

	pthread_mutex_lock(&rec_lock);
	v = *field;
	pthread_mutex_unlock(&rec_lock);
	return v;
}

static tobj_t *tobj_of(al_obj_t *p_obj)
{
	return PARENT_STRUCT(p_obj, tobj_t, obj);
}

static void on_destroying(al_obj_t *p_obj)
{
	note(&rec.destroying[tobj_of(p_obj)->id]);
	cl_event_signal(&ev_destroying[tobj_of(p_obj)->id]);
}

static void on_cleanup(al_obj_t *p_obj)
{
	note(&rec.cleanup[tobj_of(p_obj)->id]);
}

static void on_free(al_obj_t *p_obj)
{
	int id = tobj_of(p_obj)->id;

	note(&rec.freed[id]);
	cl_free(tobj_of(p_obj));
	cl_event_signal(&ev_freed[id]);
}

static void CL_API late_cb(void *context)
{
	(void)context;
}

static void AL_API destroy_cb(void *context)
{
	tobj_t *t = (tobj_t *)context;

	/* Nothing may be queued once the destroy callback runs. */
	if (al_obj_queue_callback(&t->obj, late_cb, NULL) == IB_INVALID_STATE) {
		pthread_mutex_lock(&rec_lock);
		rec.requeue_refused[t->id]++;
		pthread_mutex_unlock(&rec_lock);
	}
	pthread_mutex_lock(&rec_lock);
	rec.destroy_cb[t->id] = next_seq();
	rec.destroy_cb_count[t->id]++;
	if (!pthread_equal(pthread_self(), main_thread) && al_is_cb_thread())
		rec.destroy_cb_off_thread[t->id]++;
	pthread_mutex_unlock(&rec_lock);
	cl_event_signal(&ev_destroyed[t->id]);
}

/* A callback counted for object id (context: id << 24 | sequence). */
static void CL_API counted_cb(void *context)
{
	int id = (int)((uintptr_t)context >> 24), n = (int)((uintptr_t)context & 0xFFFFFF);

	pthread_mutex_lock(&rec_lock);
	rec.cb_count[id]++;
	if (n != rec.cb_last[id] + 1)
		rec.cb_out_of_order++;
	rec.cb_last[id] = n;
	rec.cb_seq[id] = next_seq();
	if (rec.destroy_cb_count[id])
		rec.cb_after_destroy++;
	if (pthread_equal(pthread_self(), main_thread) || !al_is_cb_thread())
		rec.cb_not_al_thread++;
	pthread_mutex_unlock(&rec_lock);
}

static void *counted_ctx(int id, int n)
{
	CU_ASSERT(id < MAXID && n < (1 << 24));
	return (void *)(((uintptr_t)id << 24) | (uintptr_t)n);
}

static tobj_t *create(int id, tobj_t *parent, uint32_t type)
{
	tobj_t *t = (tobj_t *)cl_zalloc(sizeof(*t));

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	al_obj_construct(&t->obj, type);
	t->id = id;
	CU_ASSERT_EQUAL_FATAL(al_obj_init(&t->obj, parent ? &parent->obj : NULL, t, on_destroying,
					  on_cleanup, on_free),
			      IB_SUCCESS);
	if (type < AL_HDL_TYPE_COUNT)
		CU_ASSERT_EQUAL(al_obj_insert_handle(&t->obj), IB_SUCCESS);
	return t;
}

static void setup_threads(uint32_t cb_threads)
{
	int i;

	CU_ASSERT_EQUAL(__cl_mem_track(TRUE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	cl_memclr(&rec, sizeof(rec));
	main_thread = pthread_self();
	for (i = 0; i < MAXID; i++) {
		cl_event_construct(&ev_destroyed[i]);
		cl_event_construct(&ev_freed[i]);
		cl_event_construct(&ev_destroying[i]);
		cl_event_init(&ev_destroyed[i], TRUE);
		cl_event_init(&ev_freed[i], TRUE);
		cl_event_init(&ev_destroying[i], TRUE);
	}
	al_cb_thread_count_set(cb_threads);
	CU_ASSERT_EQUAL_FATAL(al_init(), IB_SUCCESS);
	mem_base = cl_mem_track_count();
}

static void setup(void)
{
	setup_threads(0);
}

/* Everything allocated since setup is released, and after al_cleanup()
 * nothing at all is left. */
static void teardown(void)
{
	int i;

	CU_ASSERT_EQUAL(al_handle_count(), 0);
	al_cleanup();
	al_cb_thread_count_set(0);
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	__cl_mem_track(FALSE);
	for (i = 0; i < MAXID; i++) {
		cl_event_destroy(&ev_destroyed[i]);
		cl_event_destroy(&ev_freed[i]);
		cl_event_destroy(&ev_destroying[i]);
	}
}

static void wait_destroyed(int id)
{
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev_destroyed[id], TEST_WAIT_US, FALSE), CL_SUCCESS);
}

static void wait_freed(int id)
{
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev_freed[id], TEST_WAIT_US, FALSE), CL_SUCCESS);
}

/* ---- Destruction order ---- */

static void test_children_before_parent(void)
{
	tobj_t *p, *c1, *c2, *g;
	int i;

	setup();
	p = create(0, NULL, AL_HDL_AL);
	c1 = create(1, p, AL_HDL_CA);
	c2 = create(2, p, AL_HDL_CA);
	g = create(3, c1, AL_HDL_PD);
	(void)c2;
	(void)g;
	CU_ASSERT_EQUAL(al_handle_count(), 4);

	CU_ASSERT_EQUAL(al_obj_destroy(&p->obj, destroy_cb), IB_SUCCESS);
	wait_destroyed(0);
	wait_freed(0);
	/* Started from the top, completed from the bottom. */
	CU_ASSERT(get(&rec.destroying[0]) < get(&rec.destroying[1]));
	CU_ASSERT(get(&rec.destroying[1]) < get(&rec.destroying[3]));
	CU_ASSERT(get(&rec.cleanup[3]) < get(&rec.cleanup[1]));
	CU_ASSERT(get(&rec.freed[3]) < get(&rec.cleanup[1]));
	CU_ASSERT(get(&rec.freed[1]) < get(&rec.cleanup[0]));
	CU_ASSERT(get(&rec.freed[2]) < get(&rec.cleanup[0]));
	CU_ASSERT(get(&rec.cleanup[0]) < get(&rec.destroy_cb[0]));
	CU_ASSERT(get(&rec.destroy_cb[0]) < get(&rec.freed[0]));
	/* Children destroyed with their parent get no destroy callback. */
	for (i = 0; i < 4; i++) {
		CU_ASSERT(get(&rec.freed[i]) > 0);
		CU_ASSERT_EQUAL(get(&rec.destroy_cb_count[i]), i == 0 ? 1 : 0);
	}
	CU_ASSERT_EQUAL(get(&rec.destroy_cb_off_thread[0]), 1);
	CU_ASSERT_EQUAL(get(&rec.requeue_refused[0]), 1);
	teardown();
}

static void test_child_callback_before_parent_callback(void)
{
	tobj_t *p, *c, *g;

	setup();
	p = create(0, NULL, AL_HDL_AL);
	c = create(1, p, AL_HDL_CA);
	g = create(2, c, AL_HDL_PD);
	/* Both destroyed with callbacks, the child first: its destroy callback
	 * (and its grandchild's release) come before the parent's. */
	CU_ASSERT_EQUAL(al_obj_destroy(&c->obj, destroy_cb), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_obj_destroy(&p->obj, destroy_cb), IB_SUCCESS);
	(void)g;
	wait_destroyed(0);
	wait_destroyed(1);
	wait_freed(0);
	CU_ASSERT(get(&rec.freed[2]) < get(&rec.destroy_cb[1]));
	CU_ASSERT(get(&rec.destroy_cb[1]) < get(&rec.freed[1]));
	CU_ASSERT(get(&rec.freed[1]) < get(&rec.destroy_cb[0]));
	CU_ASSERT_EQUAL(get(&rec.destroy_cb_count[0]), 1);
	CU_ASSERT_EQUAL(get(&rec.destroy_cb_count[1]), 1);
	CU_ASSERT_EQUAL(get(&rec.destroy_cb_count[2]), 0);
	teardown();
}

/* ---- The destroy callback ---- */

static void test_async_destroy_after_queued_callbacks(void)
{
	enum { N = 200 };
	tobj_t *a;
	al_handle_t h;
	int i;

	setup();
	a = create(0, NULL, AL_HDL_QP);
	h = a->obj.handle;
	CU_ASSERT_PTR_EQUAL(al_handle_lookup(h, AL_HDL_QP), &a->obj);
	for (i = 1; i <= N; i++)
		CU_ASSERT_EQUAL(al_obj_queue_callback(&a->obj, counted_cb, counted_ctx(0, i)),
				IB_SUCCESS);
	CU_ASSERT_EQUAL(al_obj_destroy(&a->obj, destroy_cb), IB_SUCCESS);
	/* The handle is dead as soon as destroy returns. */
	CU_ASSERT_PTR_NULL(al_handle_lookup(h, AL_HDL_QP));
	CU_ASSERT_PTR_NULL(al_handle_enter(h, AL_HDL_QP));
	wait_destroyed(0);
	wait_freed(0);
	CU_ASSERT_EQUAL(get(&rec.cb_count[0]), N);
	CU_ASSERT_EQUAL(get(&rec.cb_out_of_order), 0);
	/* Callbacks, then the provider object's release, then the callback. */
	CU_ASSERT(get(&rec.cb_seq[0]) < get(&rec.cleanup[0]));
	CU_ASSERT(get(&rec.cleanup[0]) < get(&rec.destroy_cb[0]));
	CU_ASSERT_EQUAL(get(&rec.cb_after_destroy), 0);
	CU_ASSERT_EQUAL(get(&rec.cb_not_al_thread), 0);
	CU_ASSERT_EQUAL(get(&rec.destroy_cb_count[0]), 1);
	CU_ASSERT_EQUAL(get(&rec.destroy_cb_off_thread[0]), 1);
	CU_ASSERT_EQUAL(get(&rec.requeue_refused[0]), 1);
	CU_ASSERT_EQUAL(al_handle_free(h), IB_INVALID_HANDLE);
	teardown();
}

static void test_destroy_without_callback(void)
{
	tobj_t *a;

	setup();
	a = create(0, NULL, AL_HDL_CQ);
	CU_ASSERT_EQUAL(al_obj_queue_callback(&a->obj, counted_cb, counted_ctx(0, 1)), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_obj_destroy(&a->obj, NULL), IB_SUCCESS);
	wait_freed(0);
	CU_ASSERT_EQUAL(get(&rec.cb_count[0]), 1);
	CU_ASSERT_EQUAL(get(&rec.destroy_cb_count[0]), 0);
	teardown();
}

/* Upcalls racing the destroy: queue through the handle until it dies. */
enum { HAMMER_MAX = 200000 };

typedef struct {
	al_handle_t h;
	int queued, attempts;
	cl_event_t started;
} hammer_t;

static void CL_API hammer_thread(void *context)
{
	hammer_t *hm = (hammer_t *)context;
	al_obj_t *p_obj;

	for (;;) {
		p_obj = (al_obj_t *)al_handle_enter(hm->h, AL_HDL_CQ);
		if (!p_obj)
			break;
		/* Enough queued (a slow machine may run this loop for long):
		 * keep entering until the handle dies. */
		if (hm->attempts < HAMMER_MAX) {
			hm->attempts++;
			if (al_obj_queue_callback(p_obj, counted_cb,
						  counted_ctx(0, hm->queued + 1)) == IB_SUCCESS)
				hm->queued++;
		}
		al_handle_exit(hm->h);
		if (hm->attempts == 100)
			cl_event_signal(&hm->started);
	}
	cl_event_signal(&hm->started);
}

static void test_no_callback_after_destroy_callback(void)
{
	tobj_t *a;
	hammer_t hm;
	cl_thread_t thr;

	setup();
	a = create(0, NULL, AL_HDL_CQ);
	cl_memclr(&hm, sizeof(hm));
	hm.h = a->obj.handle;
	cl_event_construct(&hm.started);
	cl_event_init(&hm.started, FALSE);
	CU_ASSERT_EQUAL(cl_thread_init(&thr, hammer_thread, &hm, "hammer"), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&hm.started, TEST_WAIT_US, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(al_obj_destroy(&a->obj, destroy_cb), IB_SUCCESS);
	cl_thread_destroy(&thr);
	wait_destroyed(0);
	wait_freed(0);
	CU_ASSERT(hm.queued >= 100);
	CU_ASSERT_EQUAL(hm.queued, hm.attempts);
	/* Every accepted callback was delivered, in order, before the end. */
	CU_ASSERT_EQUAL(get(&rec.cb_count[0]), hm.queued);
	CU_ASSERT_EQUAL(get(&rec.cb_out_of_order), 0);
	CU_ASSERT_EQUAL(get(&rec.cb_after_destroy), 0);
	CU_ASSERT_EQUAL(get(&rec.destroy_cb_count[0]), 1);
	cl_event_destroy(&hm.started);
	teardown();
}

/* ---- Synchronous destroy ---- */

typedef struct {
	cl_event_t started, go, done;
	al_obj_t *p_obj;
	ib_api_status_t status;
	int returned; /* atomic */
} sync_ctx_t;

static sync_ctx_t sc;

static void CL_API blocking_cb(void *context)
{
	(void)context;
	cl_event_signal(&sc.started);
	cl_event_wait_on(&sc.go, TEST_WAIT_US, FALSE);
	counted_cb(counted_ctx(1, 1));
}

static void CL_API sync_destroyer(void *context)
{
	(void)context;
	sc.status = al_obj_destroy(sc.p_obj, ib_sync_destroy);
	__atomic_store_n(&sc.returned, 1, __ATOMIC_RELEASE);
	cl_event_signal(&sc.done);
}

static void test_sync_destroy_returns_after_everything(void)
{
	tobj_t *p, *c, *g;
	al_handle_t hp, hc, hg;
	cl_thread_t thr;
	size_t mem_objs;
	int i;

	setup();
	cl_event_construct(&sc.started);
	cl_event_construct(&sc.go);
	cl_event_construct(&sc.done);
	cl_event_init(&sc.started, FALSE);
	cl_event_init(&sc.go, FALSE);
	cl_event_init(&sc.done, FALSE);
	p = create(0, NULL, AL_HDL_PD);
	c = create(1, p, AL_HDL_QP);
	g = create(2, c, AL_HDL_MW);
	hp = p->obj.handle;
	hc = c->obj.handle;
	hg = g->obj.handle;
	mem_objs = cl_mem_track_count();
	CU_ASSERT(mem_objs >= mem_base + 3);

	CU_ASSERT_EQUAL(al_obj_queue_callback(&c->obj, blocking_cb, NULL), IB_SUCCESS);
	for (i = 2; i <= 50; i++) {
		CU_ASSERT_EQUAL(al_obj_queue_callback(&c->obj, counted_cb, counted_ctx(1, i)),
				IB_SUCCESS);
		CU_ASSERT_EQUAL(al_obj_queue_callback(&p->obj, counted_cb, counted_ctx(0, i - 1)),
				IB_SUCCESS);
		CU_ASSERT_EQUAL(al_obj_queue_callback(&g->obj, counted_cb, counted_ctx(2, i - 1)),
				IB_SUCCESS);
	}
	CU_ASSERT_EQUAL(cl_event_wait_on(&sc.started, TEST_WAIT_US, FALSE), CL_SUCCESS);
	sc.p_obj = &p->obj;
	CU_ASSERT_EQUAL(cl_thread_init(&thr, sync_destroyer, NULL, "sync_destroy"), CL_SUCCESS);
	/* A callback of a descendant is still running: destroy cannot return. */
	CU_ASSERT_EQUAL(cl_event_wait_on(&sc.done, 20000, FALSE), CL_TIMEOUT);
	CU_ASSERT_EQUAL(__atomic_load_n(&sc.returned, __ATOMIC_ACQUIRE), 0);
	CU_ASSERT_PTR_NULL(al_handle_lookup(hp, AL_HDL_PD));
	CU_ASSERT_PTR_NULL(al_handle_lookup(hc, AL_HDL_QP));
	CU_ASSERT_PTR_NULL(al_handle_lookup(hg, AL_HDL_MW));
	CU_ASSERT_EQUAL(get(&rec.freed[1]), 0);

	cl_event_signal(&sc.go);
	CU_ASSERT_EQUAL(cl_event_wait_on(&sc.done, TEST_WAIT_US, FALSE), CL_SUCCESS);
	cl_thread_destroy(&thr);
	CU_ASSERT_EQUAL(sc.status, IB_SUCCESS);
	/* Everything happened before it returned. */
	CU_ASSERT_EQUAL(get(&rec.cb_count[0]), 49);
	CU_ASSERT_EQUAL(get(&rec.cb_count[1]), 50);
	CU_ASSERT_EQUAL(get(&rec.cb_count[2]), 49);
	CU_ASSERT_EQUAL(get(&rec.cb_out_of_order), 0);
	for (i = 0; i < 3; i++) {
		CU_ASSERT(get(&rec.freed[i]) > 0);
		CU_ASSERT_EQUAL(get(&rec.destroy_cb_count[i]), 0);
	}
	CU_ASSERT_EQUAL(al_handle_count(), 0);
	CU_ASSERT_EQUAL(cl_mem_track_count(), mem_base);
	cl_event_destroy(&sc.started);
	cl_event_destroy(&sc.go);
	cl_event_destroy(&sc.done);
	teardown();
}

/* ---- Callback order ---- */

enum { ORDER_OBJS = 4, ORDER_PRODUCERS = 3, ORDER_N = 1500 };

static tobj_t *order_objs[ORDER_OBJS];
static int order_last[ORDER_OBJS][ORDER_PRODUCERS]; /* under rec_lock */
static int order_errors, order_count;               /* under rec_lock */

/* context: object << 24 | producer << 16 | sequence */
static void CL_API order_cb(void *context)
{
	uintptr_t v = (uintptr_t)context;
	int o = (int)(v >> 24), p = (int)((v >> 16) & 0xFF), n = (int)(v & 0xFFFF);

	pthread_mutex_lock(&rec_lock);
	if (order_last[o][p] + 1 != n)
		order_errors++;
	order_last[o][p] = n;
	order_count++;
	pthread_mutex_unlock(&rec_lock);
}

static void CL_API order_producer(void *context)
{
	int p = (int)(intptr_t)context, n, o;

	for (n = 1; n <= ORDER_N; n++)
		for (o = 0; o < ORDER_OBJS; o++)
			if (al_obj_queue_callback(&order_objs[o]->obj, order_cb,
						  (void *)((uintptr_t)o << 24 | (uintptr_t)p << 16 |
							   (uintptr_t)n)) != IB_SUCCESS) {
				pthread_mutex_lock(&rec_lock);
				order_errors++;
				pthread_mutex_unlock(&rec_lock);
			}
}

static void test_callbacks_in_order(void)
{
	cl_thread_t thr[ORDER_PRODUCERS];
	int i;

	setup();
	cl_memclr(order_last, sizeof(order_last));
	order_errors = order_count = 0;
	for (i = 0; i < ORDER_OBJS; i++)
		order_objs[i] = create(i, NULL, AL_HDL_CQ);
	for (i = 0; i < ORDER_PRODUCERS; i++)
		CU_ASSERT_EQUAL(cl_thread_init(&thr[i], order_producer, (void *)(intptr_t)i, "order"),
				CL_SUCCESS);
	for (i = 0; i < ORDER_PRODUCERS; i++)
		cl_thread_destroy(&thr[i]);
	/* The destroy callback comes after every queued callback. */
	for (i = 0; i < ORDER_OBJS; i++)
		CU_ASSERT_EQUAL(al_obj_destroy(&order_objs[i]->obj, destroy_cb), IB_SUCCESS);
	for (i = 0; i < ORDER_OBJS; i++) {
		wait_destroyed(i);
		wait_freed(i);
	}
	pthread_mutex_lock(&rec_lock);
	CU_ASSERT_EQUAL(order_errors, 0);
	CU_ASSERT_EQUAL(order_count, ORDER_OBJS * ORDER_PRODUCERS * ORDER_N);
	pthread_mutex_unlock(&rec_lock);
	teardown();
}

/* ---- Fairness between objects ---- */

static struct {
	tobj_t *a, *b;
	int a_runs, b_ran; /* atomic */
	cl_event_t done;
} fair;

static void CL_API fair_b_cb(void *context)
{
	(void)context;
	__atomic_store_n(&fair.b_ran, 1, __ATOMIC_RELEASE);
}

/* Requeues itself until B's callback has run (or far too long). */
static void CL_API fair_a_cb(void *context)
{
	(void)context;
	if (fair.a_runs++ == 0)
		CU_ASSERT_EQUAL(al_obj_queue_callback(&fair.b->obj, fair_b_cb, NULL), IB_SUCCESS);
	if (__atomic_load_n(&fair.b_ran, __ATOMIC_ACQUIRE) || fair.a_runs > 100000)
		cl_event_signal(&fair.done);
	else
		al_obj_queue_callback(&fair.a->obj, fair_a_cb, NULL);
}

static void test_busy_object_does_not_starve_others(void)
{
	setup_threads(1);
	cl_memclr(&fair, sizeof(fair));
	cl_event_construct(&fair.done);
	cl_event_init(&fair.done, FALSE);
	fair.a = create(0, NULL, AL_HDL_CQ);
	fair.b = create(1, NULL, AL_HDL_CQ);
	CU_ASSERT_EQUAL(al_obj_queue_callback(&fair.a->obj, fair_a_cb, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&fair.done, TEST_WAIT_US, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(__atomic_load_n(&fair.b_ran, __ATOMIC_ACQUIRE), 1);
	CU_ASSERT(fair.a_runs <= 1000);
	CU_ASSERT_EQUAL(al_obj_destroy(&fair.a->obj, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_obj_destroy(&fair.b->obj, ib_sync_destroy), IB_SUCCESS);
	cl_event_destroy(&fair.done);
	teardown();
}

/* ---- Callbacks that call back in ---- */

static struct {
	tobj_t *a, *b, *c, *d;
	int chain;
	ib_api_status_t b_status, c_status;
	int c_cbs_before, d_cbs_before, c_freed, d_freed;
	cl_event_t done;
} re;

static void CL_API chain_cb(void *context)
{
	(void)context;
	/* Queue more work on the object whose callback is running. */
	if (++re.chain < 10)
		al_obj_queue_callback(&re.a->obj, chain_cb, NULL);
	else
		cl_event_signal(&re.done);
}

static void CL_API reentrant_cb(void *context)
{
	(void)context;
	/* More work on itself and on another object, */
	CU_ASSERT_EQUAL(al_obj_queue_callback(&re.a->obj, chain_cb, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_obj_queue_callback(&re.b->obj, counted_cb, counted_ctx(1, 1)),
			IB_SUCCESS);
	/* an asynchronous destroy of another object, */
	re.b_status = al_obj_destroy(&re.b->obj, destroy_cb);
	/* and a synchronous one, of an object (with a child) whose callbacks
	 * are queued behind this one: with a single callback thread, the
	 * destroyer must run them itself. */
	re.c_status = al_obj_destroy(&re.c->obj, ib_sync_destroy);
	re.c_cbs_before = get(&rec.cb_count[2]);
	re.d_cbs_before = get(&rec.cb_count[3]);
	re.c_freed = get(&rec.freed[2]);
	re.d_freed = get(&rec.freed[3]);
}

static void test_callback_reenters(void)
{
	int i;

	setup_threads(1);
	cl_memclr(&re, sizeof(re));
	cl_event_construct(&re.done);
	cl_event_init(&re.done, FALSE);
	re.a = create(0, NULL, AL_HDL_CQ);
	re.b = create(1, NULL, AL_HDL_CQ);
	re.c = create(2, NULL, AL_HDL_PD);
	re.d = create(3, re.c, AL_HDL_QP);
	for (i = 1; i <= 20; i++) {
		CU_ASSERT_EQUAL(al_obj_queue_callback(&re.c->obj, counted_cb, counted_ctx(2, i)),
				IB_SUCCESS);
		CU_ASSERT_EQUAL(al_obj_queue_callback(&re.d->obj, counted_cb, counted_ctx(3, i)),
				IB_SUCCESS);
	}
	CU_ASSERT_EQUAL(al_obj_queue_callback(&re.a->obj, reentrant_cb, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&re.done, TEST_WAIT_US, FALSE), CL_SUCCESS);
	wait_destroyed(1);
	CU_ASSERT_EQUAL(re.chain, 10);
	CU_ASSERT_EQUAL(re.b_status, IB_SUCCESS);
	CU_ASSERT_EQUAL(re.c_status, IB_SUCCESS);
	CU_ASSERT_EQUAL(re.c_cbs_before, 20);
	CU_ASSERT_EQUAL(re.d_cbs_before, 20);
	CU_ASSERT(re.d_freed > 0 && re.c_freed > re.d_freed);
	CU_ASSERT_EQUAL(get(&rec.cb_count[1]), 1);
	CU_ASSERT_EQUAL(get(&rec.cb_out_of_order), 0);
	CU_ASSERT_EQUAL(al_obj_destroy(&re.a->obj, ib_sync_destroy), IB_SUCCESS);
	wait_freed(1);
	cl_event_destroy(&re.done);
	teardown();
}

/* A descendant whose destruction another, non-callback, thread started and
 * waits for synchronously: the callback thread destroying its ancestor
 * synchronously runs its queue. */
static struct {
	tobj_t *p, *c, *x;
	ib_api_status_t c_status, p_status;
	cl_event_t done;
} fg;

static void CL_API fg_child_destroyer(void *context)
{
	(void)context;
	fg.c_status = al_obj_destroy(&fg.c->obj, ib_sync_destroy);
}

static void CL_API fg_x_cb(void *context)
{
	(void)context;
	/* The other thread has claimed the child and waits for it. */
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev_destroying[1], TEST_WAIT_US, FALSE), CL_SUCCESS);
	fg.p_status = al_obj_destroy(&fg.p->obj, ib_sync_destroy);
	cl_event_signal(&fg.done);
}

static void test_sync_destroy_helps_foreign_descendant(void)
{
	cl_thread_t thr;

	setup_threads(1);
	cl_memclr(&fg, sizeof(fg));
	cl_event_construct(&fg.done);
	cl_event_init(&fg.done, FALSE);
	fg.p = create(0, NULL, AL_HDL_PD);
	fg.c = create(1, fg.p, AL_HDL_QP);
	fg.x = create(2, NULL, AL_HDL_CQ);
	CU_ASSERT_EQUAL(al_obj_queue_callback(&fg.x->obj, fg_x_cb, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(cl_thread_init(&thr, fg_child_destroyer, NULL, "c_destroyer"), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&fg.done, TEST_WAIT_US, FALSE), CL_SUCCESS);
	cl_thread_destroy(&thr);
	CU_ASSERT_EQUAL(fg.c_status, IB_SUCCESS);
	CU_ASSERT_EQUAL(fg.p_status, IB_SUCCESS);
	CU_ASSERT(get(&rec.freed[1]) > 0 && get(&rec.freed[0]) > get(&rec.freed[1]));
	CU_ASSERT_EQUAL(al_obj_destroy(&fg.x->obj, ib_sync_destroy), IB_SUCCESS);
	cl_event_destroy(&fg.done);
	teardown();
}

static struct {
	tobj_t *p, *c;
	ib_api_status_t self_sync, parent_sync, child_sync, self_async;
	cl_event_t done;
} own;

static void CL_API parent_cb(void *context)
{
	(void)context;
	own.self_sync = al_obj_destroy(&own.p->obj, ib_sync_destroy);
	cl_event_signal(&own.done);
}

static void CL_API child_cb(void *context)
{
	(void)context;
	own.parent_sync = al_obj_destroy(&own.p->obj, ib_sync_destroy);
	own.child_sync = al_obj_destroy(&own.c->obj, ib_sync_destroy);
	/* Asynchronously, an object may destroy itself from its callback. */
	own.self_async = al_obj_destroy(&own.c->obj, destroy_cb);
}

static void test_sync_destroy_from_own_callback_refused(void)
{
	setup();
	cl_event_construct(&own.done);
	cl_event_init(&own.done, FALSE);
	own.p = create(0, NULL, AL_HDL_PD);
	own.c = create(1, own.p, AL_HDL_QP);
	CU_ASSERT_EQUAL(al_obj_queue_callback(&own.p->obj, parent_cb, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&own.done, TEST_WAIT_US, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(al_obj_queue_callback(&own.c->obj, child_cb, NULL), IB_SUCCESS);
	wait_destroyed(1);
	CU_ASSERT_EQUAL(own.self_sync, IB_INVALID_STATE);
	CU_ASSERT_EQUAL(own.parent_sync, IB_INVALID_STATE);
	CU_ASSERT_EQUAL(own.child_sync, IB_INVALID_STATE);
	CU_ASSERT_EQUAL(own.self_async, IB_SUCCESS);
	CU_ASSERT_EQUAL(get(&rec.destroy_cb_count[1]), 1);
	wait_freed(1);
	/* Both were left usable by the refusals. */
	CU_ASSERT_EQUAL(get(&rec.destroying[0]), 0);
	CU_ASSERT_EQUAL(al_obj_destroy(&own.p->obj, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT(get(&rec.freed[0]) > 0);
	cl_event_destroy(&own.done);
	teardown();
}

/* ---- Misuse and failures ---- */

static void test_destroy_twice(void)
{
	tobj_t *p, *c;

	setup();
	p = create(0, NULL, AL_HDL_PD);
	c = create(1, p, AL_HDL_AV);
	/* References keep both in memory for the second calls. */
	al_obj_ref(&p->obj);
	al_obj_ref(&c->obj);
	CU_ASSERT_EQUAL(al_obj_destroy(&p->obj, destroy_cb), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_obj_destroy(&p->obj, destroy_cb), IB_NOT_FOUND);
	CU_ASSERT_EQUAL(al_obj_destroy(&p->obj, ib_sync_destroy), IB_NOT_FOUND);
	/* The child is being destroyed with its parent. */
	CU_ASSERT_EQUAL(al_obj_destroy(&c->obj, destroy_cb), IB_NOT_FOUND);
	CU_ASSERT_EQUAL(al_obj_insert_handle(&c->obj), IB_INVALID_STATE);
	/* Not completed while referenced. */
	CU_ASSERT_EQUAL(get(&rec.cleanup[1]), 0);
	CU_ASSERT_EQUAL(get(&rec.cleanup[0]), 0);
	al_obj_deref(&c->obj);
	al_obj_deref(&p->obj);
	wait_destroyed(0);
	wait_freed(0);
	CU_ASSERT_EQUAL(get(&rec.destroy_cb_count[0]), 1);
	CU_ASSERT_EQUAL(get(&rec.destroy_cb_count[1]), 0);
	teardown();
}

static void test_init_failures(void)
{
	tobj_t *p, *c;
	al_obj_t o;

	setup();
	/* No pfn_free. */
	al_obj_construct(&o, AL_HDL_QP);
	CU_ASSERT_EQUAL(al_obj_init(&o, NULL, NULL, NULL, NULL, NULL), IB_INVALID_PARAMETER);
	al_obj_deinit(&o);
	/* Construct alone. */
	al_obj_construct(&o, AL_HDL_QP);
	al_obj_deinit(&o);

	p = create(0, NULL, AL_HDL_PD);
	/* A second handle, or a handle for an internal type, is refused. */
	CU_ASSERT_EQUAL(al_obj_insert_handle(&p->obj), IB_INVALID_STATE);
	c = create(1, NULL, AL_OBJ_TYPE_INTERNAL);
	CU_ASSERT_EQUAL(al_obj_insert_handle(&c->obj), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(c->obj.handle, AL_HANDLE_NULL);
	CU_ASSERT_FALSE(al_obj_enter(&c->obj));
	CU_ASSERT_EQUAL(al_obj_destroy(&c->obj, ib_sync_destroy), IB_SUCCESS);

	/* A parent being destroyed takes no child. */
	al_obj_ref(&p->obj);
	CU_ASSERT_EQUAL(al_obj_destroy(&p->obj, NULL), IB_SUCCESS);
	al_obj_construct(&o, AL_HDL_QP);
	CU_ASSERT_EQUAL(al_obj_init(&o, &p->obj, NULL, NULL, NULL, on_free), IB_INVALID_STATE);
	al_obj_deinit(&o);
	al_obj_deref(&p->obj);
	wait_freed(0);
	/* Queueing needs a function. */
	c = create(2, NULL, AL_HDL_CQ);
	CU_ASSERT_EQUAL(al_obj_queue_callback(&c->obj, NULL, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(al_obj_queue_cb_item(&c->obj, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(al_obj_destroy(&c->obj, ib_sync_destroy), IB_SUCCESS);
	teardown();
}

/* ---- Caller-owned items ---- */

static al_cb_item_t items[8];

static void test_caller_owned_items(void)
{
	tobj_t *a;
	int i;

	setup();
	a = create(0, NULL, AL_HDL_SRQ);
	for (i = 0; i < 8; i++) {
		items[i].pfn_cb = counted_cb;
		items[i].context = counted_ctx(0, i + 1);
		CU_ASSERT_EQUAL(al_obj_queue_cb_item(&a->obj, &items[i]), IB_SUCCESS);
	}
	CU_ASSERT_EQUAL(al_obj_destroy(&a->obj, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(get(&rec.cb_count[0]), 8);
	CU_ASSERT_EQUAL(get(&rec.cb_out_of_order), 0);
	teardown();
}

/* ---- The in-flight guard through objects ---- */

typedef struct {
	al_handle_t h;
	cl_event_t entered, go;
	int exit_seq;
} inside_t;

static void CL_API inside_thread(void *context)
{
	inside_t *in = (inside_t *)context;
	al_obj_t *p_obj = (al_obj_t *)al_handle_enter(in->h, AL_HDL_QP);

	cl_event_signal(&in->entered);
	cl_event_wait_on(&in->go, TEST_WAIT_US, FALSE);
	if (p_obj) {
		note(&in->exit_seq);
		al_obj_exit(p_obj);
	}
}

static void test_destroy_drains_calls_inside(void)
{
	tobj_t *a, *b;
	inside_t in;
	cl_thread_t thr;

	setup();
	a = create(0, NULL, AL_HDL_QP);
	CU_ASSERT_TRUE(al_obj_enter(&a->obj));
	CU_ASSERT_EQUAL(al_handle_inflight(a->obj.handle), 1);
	al_obj_exit(&a->obj);

	cl_memclr(&in, sizeof(in));
	in.h = a->obj.handle;
	cl_event_construct(&in.entered);
	cl_event_construct(&in.go);
	cl_event_init(&in.entered, FALSE);
	cl_event_init(&in.go, FALSE);
	CU_ASSERT_EQUAL(cl_thread_init(&thr, inside_thread, &in, "inside"), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&in.entered, TEST_WAIT_US, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(al_obj_destroy(&a->obj, destroy_cb), IB_SUCCESS);
	/* The object stays (the thread is inside) but takes no new calls. */
	CU_ASSERT_FALSE(al_obj_enter(&a->obj));
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev_destroyed[0], 20000, FALSE), CL_TIMEOUT);
	cl_event_signal(&in.go);
	wait_destroyed(0);
	wait_freed(0);
	cl_thread_destroy(&thr);
	CU_ASSERT(in.exit_seq > 0 && get(&rec.cleanup[0]) > in.exit_seq);

	/* Invalidate and drain by hand, with nobody inside. */
	b = create(1, NULL, AL_HDL_QP);
	CU_ASSERT_TRUE(al_obj_enter(&b->obj));
	al_obj_exit(&b->obj);
	al_obj_invalidate_and_drain(&b->obj);
	CU_ASSERT_FALSE(al_obj_enter(&b->obj));
	CU_ASSERT_PTR_NULL(al_handle_lookup(b->obj.handle, AL_HDL_QP));
	CU_ASSERT_EQUAL(al_obj_destroy(&b->obj, ib_sync_destroy), IB_SUCCESS);
	cl_event_destroy(&in.entered);
	cl_event_destroy(&in.go);
	teardown();
}

/* ---- Looking for work before sleeping (al_spin.h) ---- */

static int look_calls, look_true_at;

static boolean_t look(void *context)
{
	(void)context;
	return ++look_calls >= look_true_at;
}

static void test_spin_until(void)
{
	uint64_t t0;

	/* Found: TRUE at the look that finds it, across the yields between looks. */
	al_spin_configure(AL_SPIN_US_MAX);
	CU_ASSERT_TRUE(al_spin_enabled());
	look_calls = 0;
	look_true_at = 40;
	CU_ASSERT_TRUE(al_spin_until(look, NULL));
	CU_ASSERT_EQUAL(look_calls, 40);
	/* Nothing: FALSE once the bound has passed, not before. */
	al_spin_configure(300);
	look_calls = 0;
	look_true_at = INT_MAX;
	t0 = cl_get_time_stamp();
	CU_ASSERT_FALSE(al_spin_until(look, NULL));
	CU_ASSERT(cl_get_time_stamp() - t0 >= 300);
	CU_ASSERT(look_calls >= 16);
	/* Off: no look at all. */
	al_spin_configure(0);
	CU_ASSERT_FALSE(al_spin_enabled());
	look_calls = 0;
	look_true_at = 1;
	CU_ASSERT_FALSE(al_spin_until(look, NULL));
	CU_ASSERT_EQUAL(look_calls, 0);
	al_spin_configure(AL_SPIN_US_DEFAULT);
}

static cl_event_t spin_ev;

static void CL_API spin_cb(void *context)
{
	(void)context;
	cl_event_signal(&spin_ev);
}

/*
 * A push that comes while the only callback thread looks for one signals
 * nobody: the thread must take it, also when the push comes just as the
 * look ends. Pushes at every point of a 40 us look and after it.
 */
static void test_pushes_while_a_thread_looks(void)
{
	tobj_t *a;
	uint64_t until;
	int i, late = 0;

	setup_threads(1);
	cl_event_construct(&spin_ev);
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&spin_ev, FALSE), CL_SUCCESS);
	a = create(0, NULL, AL_HDL_CQ);
	al_spin_configure(40);
	for (i = 0; i < 2000; i++) {
		CU_ASSERT_EQUAL(al_obj_queue_callback(&a->obj, spin_cb, NULL), IB_SUCCESS);
		if (cl_event_wait_on(&spin_ev, TEST_WAIT_US, FALSE) != CL_SUCCESS) {
			late++; /* lost: the destroy below runs it */
			break;
		}
		until = cl_get_time_stamp() + (uint64_t)(i % 60);
		while (cl_get_time_stamp() < until)
			;
	}
	CU_ASSERT_EQUAL(late, 0);
	al_spin_configure(AL_SPIN_US_DEFAULT);
	CU_ASSERT_EQUAL(al_obj_destroy(&a->obj, ib_sync_destroy), IB_SUCCESS);
	cl_event_destroy(&spin_ev);
	teardown();
}

/* ---- Initialization ---- */

static void test_init_nests(void)
{
	tobj_t *a;

	setup();
	CU_ASSERT_FALSE(al_is_cb_thread());
	CU_ASSERT_EQUAL(al_init(), IB_SUCCESS);
	al_cleanup();
	/* Still initialized. */
	a = create(0, NULL, AL_HDL_AL);
	CU_ASSERT_EQUAL(al_obj_queue_callback(&a->obj, counted_cb, counted_ctx(0, 1)), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_obj_destroy(&a->obj, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(get(&rec.cb_count[0]), 1);
	CU_ASSERT_EQUAL(get(&rec.cb_not_al_thread), 0);
	teardown();
	/* Balanced: one more cleanup does nothing. */
	al_cleanup();
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
}

/* ---- Callbacks a thread runs itself (al_obj_here_t) ---- */

static struct {
	pthread_mutex_t lock;
	int ran_here[MAXID];     /* on the test's thread, as an AL callback thread */
	int ran_elsewhere[MAXID]; /* on a callback thread */
	cl_event_t elsewhere;
} here_rec = { .lock = PTHREAD_MUTEX_INITIALIZER };

static al_cb_item_t here_items[MAXID];
static tobj_t *here_victim;    /* destroyed, synchronously, by callback 0 */
static tobj_t *here_nested;    /* gets callback 3, queued by callback 0 */

static void CL_API here_cb(void *context)
{
	int id = (int)(uintptr_t)context;
	boolean_t here = pthread_equal(pthread_self(), main_thread);

	CU_ASSERT_TRUE(al_is_cb_thread());
	pthread_mutex_lock(&here_rec.lock);
	if (here)
		here_rec.ran_here[id]++;
	else
		here_rec.ran_elsewhere[id]++;
	pthread_mutex_unlock(&here_rec.lock);
	if (!here)
		cl_event_signal(&here_rec.elsewhere);
	/* Queued from inside a callback: to the callback threads. */
	if (id == 0 && here_nested) {
		tobj_t *n = here_nested;

		here_nested = NULL;
		here_items[3].pfn_cb = here_cb;
		here_items[3].context = (void *)(uintptr_t)3;
		CU_ASSERT_EQUAL(al_obj_queue_cb_item_here(&n->obj, &here_items[3]), IB_SUCCESS);
	}
	if (id == 0 && here_victim) {
		tobj_t *v = here_victim;

		here_victim = NULL;
		CU_ASSERT_EQUAL(al_obj_destroy(&v->obj, ib_sync_destroy), IB_SUCCESS);
	}
}

static int here_count(int *field)
{
	int v;

	pthread_mutex_lock(&here_rec.lock);
	v = *field;
	pthread_mutex_unlock(&here_rec.lock);
	return v;
}

static void here_done(void)
{
	cl_event_destroy(&here_rec.elsewhere);
}

static void here_reset(void)
{
	cl_event_construct(&here_rec.elsewhere);
	cl_event_init(&here_rec.elsewhere, FALSE);
	pthread_mutex_lock(&here_rec.lock);
	memset(here_rec.ran_here, 0, sizeof(here_rec.ran_here));
	memset(here_rec.ran_elsewhere, 0, sizeof(here_rec.ran_elsewhere));
	pthread_mutex_unlock(&here_rec.lock);
}

static void queue_here(tobj_t *t, int id)
{
	here_items[id].pfn_cb = here_cb;
	here_items[id].context = (void *)(uintptr_t)id;
	CU_ASSERT_EQUAL(al_obj_queue_cb_item_here(&t->obj, &here_items[id]), IB_SUCCESS);
}

/* Objects made ready with al_obj_queue_cb_item_here() wait on the thread's
 * list, in order, until it runs them; nothing else runs them meanwhile. */
static void test_here_runs_on_queuing_thread(void)
{
	al_obj_here_t h;
	tobj_t *a, *b, *c;

	setup();
	here_reset();
	a = create(0, NULL, AL_HDL_SRQ);
	b = create(1, NULL, AL_HDL_SRQ);
	c = create(2, NULL, AL_HDL_SRQ);
	here_nested = c;
	CU_ASSERT_EQUAL(al_obj_queue_cb_item_here(&a->obj, NULL), IB_INVALID_PARAMETER);
	al_obj_here_begin(&h, MAXID);
	queue_here(a, 0);
	queue_here(b, 1);
	queue_here(a, 2);   /* a's queue is not idle: no second entry */
	CU_ASSERT_EQUAL(al_obj_here_count(&h), 2);
	CU_ASSERT_TRUE(al_obj_here_run_one(&h));   /* a: items 0 and 2 */
	CU_ASSERT_EQUAL(here_count(&here_rec.ran_here[0]), 1);
	CU_ASSERT_EQUAL(here_count(&here_rec.ran_here[2]), 1);
	CU_ASSERT_EQUAL(here_count(&here_rec.ran_here[1]), 0);
	/* Item 3, queued by item 0 for c, ran on a callback thread. */
	CU_ASSERT_EQUAL(cl_event_wait_on(&here_rec.elsewhere, TEST_WAIT_US, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(here_count(&here_rec.ran_elsewhere[3]), 1);
	CU_ASSERT_EQUAL(al_obj_here_count(&h), 1);
	CU_ASSERT_TRUE(al_obj_here_run_one(&h));   /* b */
	CU_ASSERT_EQUAL(here_count(&here_rec.ran_here[1]), 1);
	CU_ASSERT_FALSE(al_obj_here_run_one(&h));
	CU_ASSERT_FALSE(al_is_cb_thread());
	/* al_obj_queue_cb_item(): the callback threads, as always. */
	CU_ASSERT_EQUAL(al_obj_queue_cb_item(&b->obj, &here_items[4]), IB_INVALID_PARAMETER);
	here_items[4].pfn_cb = here_cb;
	here_items[4].context = (void *)(uintptr_t)4;
	CU_ASSERT_EQUAL(al_obj_queue_cb_item(&b->obj, &here_items[4]), IB_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&here_rec.elsewhere, TEST_WAIT_US, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(here_count(&here_rec.ran_elsewhere[4]), 1);
	al_obj_here_end(&h);
	CU_ASSERT_EQUAL(al_obj_destroy(&a->obj, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_obj_destroy(&b->obj, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_obj_destroy(&c->obj, ib_sync_destroy), IB_SUCCESS);
	here_done();
	teardown();
}

/* What a list holds goes to the callback threads when it is handed (the list
 * goes on taking objects) or given (closed: later ones go to the ready list),
 * and at its end. */
static void test_here_hand_give_end(void)
{
	al_obj_here_t h;
	tobj_t *a, *b;

	setup();
	here_reset();
	a = create(0, NULL, AL_HDL_SRQ);
	al_obj_here_begin(&h, MAXID);
	queue_here(a, 1);
	al_obj_here_hand(&h);
	CU_ASSERT_EQUAL(al_obj_here_count(&h), 0);
	CU_ASSERT_EQUAL(cl_event_wait_on(&here_rec.elsewhere, TEST_WAIT_US, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(here_count(&here_rec.ran_elsewhere[1]), 1);
	/* Still open; wait for a's queue to be idle again (its callback over). */
	CU_ASSERT_EQUAL(al_obj_destroy(&a->obj, ib_sync_destroy), IB_SUCCESS);
	a = create(0, NULL, AL_HDL_SRQ);
	queue_here(a, 2);
	CU_ASSERT_EQUAL(al_obj_here_count(&h), 1);
	al_obj_here_give(&h);
	CU_ASSERT_EQUAL(cl_event_wait_on(&here_rec.elsewhere, TEST_WAIT_US, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(here_count(&here_rec.ran_elsewhere[2]), 1);
	CU_ASSERT_EQUAL(al_obj_destroy(&a->obj, ib_sync_destroy), IB_SUCCESS);
	a = create(0, NULL, AL_HDL_SRQ);
	queue_here(a, 5);  /* closed: the ready list */
	CU_ASSERT_EQUAL(al_obj_here_count(&h), 0);
	CU_ASSERT_EQUAL(cl_event_wait_on(&here_rec.elsewhere, TEST_WAIT_US, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(here_count(&here_rec.ran_elsewhere[5]), 1);
	al_obj_here_end(&h);
	CU_ASSERT_EQUAL(al_obj_destroy(&a->obj, ib_sync_destroy), IB_SUCCESS);
	/* A list of one: the second object goes to the callback threads. */
	a = create(0, NULL, AL_HDL_SRQ);
	b = create(1, NULL, AL_HDL_SRQ);
	al_obj_here_begin(&h, 1);
	queue_here(a, 8);
	queue_here(b, 9);
	CU_ASSERT_EQUAL(al_obj_here_count(&h), 1);
	CU_ASSERT_EQUAL(cl_event_wait_on(&here_rec.elsewhere, TEST_WAIT_US, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(here_count(&here_rec.ran_elsewhere[9]), 1);
	CU_ASSERT_TRUE(al_obj_here_run_one(&h));
	CU_ASSERT_EQUAL(here_count(&here_rec.ran_here[8]), 1);
	al_obj_here_end(&h);
	CU_ASSERT_EQUAL(al_obj_destroy(&a->obj, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_obj_destroy(&b->obj, ib_sync_destroy), IB_SUCCESS);
	/* The end hands over what is left. */
	a = create(0, NULL, AL_HDL_SRQ);
	al_obj_here_begin(&h, MAXID);
	queue_here(a, 6);
	al_obj_here_end(&h);
	CU_ASSERT_EQUAL(cl_event_wait_on(&here_rec.elsewhere, TEST_WAIT_US, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(here_count(&here_rec.ran_elsewhere[6]), 1);
	CU_ASSERT_EQUAL(here_count(&here_rec.ran_here[6]), 0);
	CU_ASSERT_EQUAL(al_obj_destroy(&a->obj, ib_sync_destroy), IB_SUCCESS);
	here_done();
	teardown();
}

/* A callback run here destroys, synchronously, an object whose callback
 * waits on the same thread's list: the destroyer takes it from there and
 * runs it (no callback thread could, and this thread is busy). */
static void test_here_sync_destroy_takes_from_list(void)
{
	al_obj_here_t h;
	tobj_t *a, *b;

	setup();
	here_reset();
	a = create(0, NULL, AL_HDL_SRQ);
	b = create(1, NULL, AL_HDL_SRQ);
	here_victim = b;
	al_obj_here_begin(&h, MAXID);
	queue_here(a, 0);
	queue_here(b, 1);
	CU_ASSERT_TRUE(al_obj_here_run_one(&h));   /* a's callback destroys b */
	CU_ASSERT_PTR_NULL(here_victim);
	CU_ASSERT_EQUAL(here_count(&here_rec.ran_here[1]), 1);
	CU_ASSERT_EQUAL(get(&rec.freed[1]) != 0, 1);
	CU_ASSERT_EQUAL(al_obj_here_count(&h), 0);
	CU_ASSERT_FALSE(al_obj_here_run_one(&h));
	al_obj_here_end(&h);
	CU_ASSERT_EQUAL(al_obj_destroy(&a->obj, ib_sync_destroy), IB_SUCCESS);
	here_done();
	teardown();
}

/* An object being destroyed goes to the ready list, which the waiting
 * destroyers are told of, not to the thread's list. */
static void test_here_destroying_to_ready_list(void)
{
	al_obj_here_t h;
	tobj_t *a;

	setup();
	here_reset();
	a = create(0, NULL, AL_HDL_SRQ);
	al_obj_here_begin(&h, MAXID);
	a->obj.destroying = TRUE;   /* as a destruction claimed by another thread */
	queue_here(a, 7);
	CU_ASSERT_EQUAL(al_obj_here_count(&h), 0);
	CU_ASSERT_EQUAL(cl_event_wait_on(&here_rec.elsewhere, TEST_WAIT_US, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(here_count(&here_rec.ran_elsewhere[7]), 1);
	a->obj.destroying = FALSE;
	al_obj_here_end(&h);
	CU_ASSERT_EQUAL(al_obj_destroy(&a->obj, ib_sync_destroy), IB_SUCCESS);
	here_done();
	teardown();
}

/* A list takes objects whatever the callback threads do: with one awake
 * (held in a callback), the object still waits on the list, and runs on
 * the queuing thread. */
static void test_here_while_awake(void)
{
	al_obj_here_t h;
	tobj_t *a, *x;

	setup();
	here_reset();
	cl_event_construct(&sc.started);
	cl_event_construct(&sc.go);
	cl_event_init(&sc.started, FALSE);
	cl_event_init(&sc.go, FALSE);
	x = create(1, NULL, AL_HDL_SRQ);
	a = create(0, NULL, AL_HDL_SRQ);
	CU_ASSERT_EQUAL(al_obj_queue_callback(&x->obj, blocking_cb, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&sc.started, TEST_WAIT_US, FALSE), CL_SUCCESS);
	al_obj_here_begin(&h, MAXID);
	queue_here(a, 10);
	CU_ASSERT_EQUAL(al_obj_here_count(&h), 1);
	CU_ASSERT_TRUE(al_obj_here_run_one(&h));
	CU_ASSERT_EQUAL(here_count(&here_rec.ran_here[10]), 1);
	CU_ASSERT_EQUAL(here_count(&here_rec.ran_elsewhere[10]), 0);
	cl_event_signal(&sc.go);
	al_obj_here_end(&h);
	CU_ASSERT_EQUAL(al_obj_destroy(&a->obj, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_obj_destroy(&x->obj, ib_sync_destroy), IB_SUCCESS);
	cl_event_destroy(&sc.started);
	cl_event_destroy(&sc.go);
	here_done();
	teardown();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_here_runs_on_queuing_thread),
	TEST_ENTRY(test_here_while_awake),
	TEST_ENTRY(test_here_hand_give_end),
	TEST_ENTRY(test_here_sync_destroy_takes_from_list),
	TEST_ENTRY(test_here_destroying_to_ready_list),
	TEST_ENTRY(test_init_nests),
	TEST_ENTRY(test_children_before_parent),
	TEST_ENTRY(test_child_callback_before_parent_callback),
	TEST_ENTRY(test_async_destroy_after_queued_callbacks),
	TEST_ENTRY(test_destroy_without_callback),
	TEST_ENTRY(test_no_callback_after_destroy_callback),
	TEST_ENTRY(test_sync_destroy_returns_after_everything),
	TEST_ENTRY(test_callbacks_in_order),
	TEST_ENTRY(test_busy_object_does_not_starve_others),
	TEST_ENTRY(test_callback_reenters),
	TEST_ENTRY(test_sync_destroy_helps_foreign_descendant),
	TEST_ENTRY(test_sync_destroy_from_own_callback_refused),
	TEST_ENTRY(test_destroy_twice),
	TEST_ENTRY(test_init_failures),
	TEST_ENTRY(test_caller_owned_items),
	TEST_ENTRY(test_destroy_drains_calls_inside),
	TEST_ENTRY(test_spin_until),
	TEST_ENTRY(test_pushes_while_a_thread_looks),
};

TEST_MAIN("al_obj", tests)
