/*
 * ibal tests: cl_obj, the object manager, relationships and destruction.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <complib/cl_obj.h>
#include <complib/cl_thread.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"

/* ---- Test objects and the log of their callbacks ---- */

enum {
	F_REENTER = 1,  /* callbacks call back into cl_obj */
	F_RESET = 2,    /* pfn_free resets the object instead of freeing it */
};

typedef struct _tobj {
	cl_obj_t obj;
	cl_obj_rel_t rel[2];   /* user-owned relationship items */
	int id;
	uint32_t flags;
	struct _tobj *buddy;   /* destroyed from pfn_destroying, if set */
	atomic32_t *workers_done; /* checked by pfn_cleanup, if set */
	int32_t workers;
	atomic32_t resets;
} tobj_t;

typedef struct {
	char kind;             /* 'D'estroying, 'C'leanup, 'F'ree */
	int id;
	pthread_t thread;
} rec_t;

#define LOG_MAX 4096
static rec_t g_log[LOG_MAX];
static int g_log_len;
static pthread_mutex_t g_log_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic32_t g_freed;      /* objects freed (or reset) so far */
static atomic32_t g_errors;     /* failed CHECKs in callbacks */
static cl_event_t g_freed_ev;   /* auto-reset: g_freed grew */
static cl_event_t g_log_ev;     /* auto-reset: a record was added */

/* CUnit is not thread-safe: callbacks count failures, tests assert zero. */
#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "CHECK failed at line %d: %s\n", __LINE__, #cond); \
	cl_atomic_inc(&g_errors); } } while (0)

static int32_t load32(atomic32_t *v)
{
	return __atomic_load_n(v, __ATOMIC_ACQUIRE);
}

static void log_add(char kind, int id)
{
	pthread_mutex_lock(&g_log_lock);
	if (g_log_len < LOG_MAX) {
		g_log[g_log_len].kind = kind;
		g_log[g_log_len].id = id;
		g_log[g_log_len].thread = pthread_self();
		g_log_len++;
	}
	pthread_mutex_unlock(&g_log_lock);
	cl_event_signal(&g_log_ev);
}

static int log_pos(char kind, int id)
{
	int i, pos = -1;

	pthread_mutex_lock(&g_log_lock);
	for (i = 0; i < g_log_len && pos < 0; i++)
		if (g_log[i].kind == kind && g_log[i].id == id)
			pos = i;
	pthread_mutex_unlock(&g_log_lock);
	return pos;
}

static int log_count(char kind, int id)
{
	int i, n = 0;

	pthread_mutex_lock(&g_log_lock);
	for (i = 0; i < g_log_len; i++)
		n += (g_log[i].kind == kind && g_log[i].id == id);
	pthread_mutex_unlock(&g_log_lock);
	return n;
}

static pthread_t log_thread(char kind, int id)
{
	int pos = log_pos(kind, id);
	pthread_t t;

	pthread_mutex_lock(&g_log_lock);
	t = pos >= 0 ? g_log[pos].thread : (pthread_t)0;
	pthread_mutex_unlock(&g_log_lock);
	return t;
}

/* Waits (bounded) until at least n objects have been freed. */
static boolean_t wait_freed(int32_t n)
{
	uint64_t deadline = test_now_ms() + TEST_WAIT_US / 1000u;

	while (load32(&g_freed) < n && test_now_ms() < deadline)
		cl_event_wait_on(&g_freed_ev, 100000, FALSE);
	return load32(&g_freed) >= n;
}

/* Waits (bounded) until `kind` has been logged `count` times for `id`. */
static boolean_t wait_logged(char kind, int id, int count)
{
	uint64_t deadline = test_now_ms() + TEST_WAIT_US / 1000u;

	while (log_count(kind, id) < count && test_now_ms() < deadline)
		cl_event_wait_on(&g_log_ev, 100000, FALSE);
	return log_count(kind, id) >= count;
}

static void CL_API plain_free(cl_obj_t *p_obj);

/* Waits (bounded, yielding) until a destroyer has dropped the object's own
 * reference, leaving `n`: from then on it is in (or heading to) its wait. */
static boolean_t wait_ref(cl_obj_t *p_obj, int32_t n)
{
	uint64_t deadline = test_now_ms() + TEST_WAIT_US / 1000u;

	while (__atomic_load_n(&p_obj->ref_cnt, __ATOMIC_ACQUIRE) != n &&
	       test_now_ms() < deadline)
		sched_yield();
	return __atomic_load_n(&p_obj->ref_cnt, __ATOMIC_ACQUIRE) == n;
}

/* Exercises the calls a callback may make; each would self-deadlock if the
 * callback ran under the lock it takes. */
static void reenter(tobj_t *t, boolean_t live_parents)
{
	cl_list_item_t *it;
	cl_obj_rel_t *rel;

	cl_obj_lock(&t->obj);
	cl_obj_unlock(&t->obj);
	rel = cl_rel_alloc();	/* the manager's lock */
	CHECK(rel != NULL);
	if (rel)
		cl_rel_free(rel);
	if (!live_parents)
		return;
	for (it = cl_qlist_head(&t->obj.parent_list); it != cl_qlist_end(&t->obj.parent_list);
	     it = cl_qlist_next(it)) {
		rel = PARENT_STRUCT(it, cl_obj_rel_t, list_item);
		CHECK(rel->p_parent_obj != NULL);
		if (rel->p_parent_obj) {
			cl_obj_lock(rel->p_parent_obj);
			cl_obj_unlock(rel->p_parent_obj);
		}
	}
}

static void CL_API t_destroying(cl_obj_t *p_obj)
{
	tobj_t *t = PARENT_STRUCT(p_obj, tobj_t, obj);
	cl_obj_rel_t rel;
	cl_obj_t other;

	CHECK(p_obj->state == CL_DESTROYING);
	log_add('D', t->id);
	if (!(t->flags & F_REENTER))
		return;
	reenter(t, TRUE);
	CHECK(cl_obj_ref(p_obj) >= 2);
	CHECK(cl_obj_deref(p_obj) >= 1);
	cl_obj_destroy(p_obj);	/* already destroying: returns at once */
	/* A destroying object accepts no new child. */
	cl_obj_construct(&other, 0);
	CHECK(cl_obj_init(&other, CL_DESTROY_SYNC, NULL, NULL, plain_free) == CL_SUCCESS);
	CHECK(cl_obj_insert_rel(&rel, p_obj, &other) == CL_INVALID_STATE);
	cl_obj_destroy(&other);	/* a nested synchronous destroy */
	CHECK(other.state == CL_DESTROYED);
	if (t->buddy)
		cl_obj_destroy(&t->buddy->obj);
}

static void CL_API t_cleanup(cl_obj_t *p_obj)
{
	tobj_t *t = PARENT_STRUCT(p_obj, tobj_t, obj);

	int32_t left = 0;

	/* A STAY_IN_PARENT_LIST object is cleaned up while its parent
	 * relationships still hold their references. */
	if (p_obj->destroy_type == CL_DESTROY_ASYNC_KEEP_CHILDREN_STAY_IN_PARENT_LIST_TILL_FREE)
		left = (int32_t)cl_qlist_count(&p_obj->parent_list);
	CHECK(p_obj->state == CL_DESTROYING);
	CHECK(__atomic_load_n(&p_obj->ref_cnt, __ATOMIC_ACQUIRE) == left);
	CHECK(cl_is_qlist_empty(&p_obj->child_list));
	if (t->workers_done)
		CHECK(load32(t->workers_done) == t->workers);
	log_add('C', t->id);
	if (t->flags & F_REENTER)
		reenter(t, TRUE);
}

static void signal_freed(void)
{
	cl_atomic_inc(&g_freed);
	cl_event_signal(&g_freed_ev);
}

static void CL_API t_free(cl_obj_t *p_obj)
{
	tobj_t *t = PARENT_STRUCT(p_obj, tobj_t, obj);
	cl_list_item_t *it;
	cl_obj_rel_t *rel;

	log_add('F', t->id);
	if (t->flags & F_REENTER)
		reenter(t, FALSE);
	if (t->flags & F_RESET) {
		cl_atomic_inc(&t->resets);
		cl_obj_reset(p_obj);
		signal_freed();
		return;
	}
	/* Take the parents' relationship items back; free the pool's. */
	while ((it = cl_qlist_remove_head(&p_obj->parent_list)) != cl_qlist_end(&p_obj->parent_list)) {
		rel = PARENT_STRUCT(it, cl_obj_rel_t, list_item);
		CHECK(rel->p_parent_obj == NULL && rel->p_child_obj == NULL);
		if (rel != &t->rel[0] && rel != &t->rel[1])
			cl_rel_free(rel);
	}
	cl_obj_deinit(p_obj);
	CHECK(p_obj->state == CL_DESTROYED);
	cl_free(t);
	signal_freed();
}

/* pfn_free of objects created on a callback's stack: nothing to release. */
static void CL_API plain_free(cl_obj_t *p_obj)
{
	cl_obj_deinit(p_obj);
}

static tobj_t *tobj_new(int id, cl_destroy_type_t type, uint32_t flags)
{
	tobj_t *t = (tobj_t *)cl_zalloc(sizeof(*t));

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	t->id = id;
	t->flags = flags;
	cl_obj_construct(&t->obj, (uint32_t)id);
	CU_ASSERT_EQUAL(t->obj.state, CL_UNINITIALIZED);
	CU_ASSERT_EQUAL(cl_obj_init(&t->obj, type, t_destroying, t_cleanup, t_free), CL_SUCCESS);
	CU_ASSERT_EQUAL(t->obj.state, CL_INITIALIZED);
	return t;
}

/* Makes child depend on parent, with a pool item or the child's own. */
static void link_rel(tobj_t *parent, tobj_t *child, int own_slot)
{
	cl_obj_rel_t *rel = own_slot >= 0 ? &child->rel[own_slot] : cl_rel_alloc();

	CU_ASSERT_PTR_NOT_NULL_FATAL(rel);
	CU_ASSERT_EQUAL(cl_obj_insert_rel(rel, &parent->obj, &child->obj), CL_SUCCESS);
}

/* F(child) before C(parent), C before F for both, D(parent) before D(child)
 * when the parent's destruction reached the child. */
static void check_order(int parent, int child, boolean_t parent_destroyed_child)
{
	CU_ASSERT(log_pos('F', child) >= 0);
	CU_ASSERT(log_pos('C', parent) >= 0);
	CU_ASSERT(log_pos('F', child) < log_pos('C', parent));
	CU_ASSERT(log_pos('C', child) < log_pos('F', child));
	CU_ASSERT(log_pos('C', parent) < log_pos('F', parent));
	if (parent_destroyed_child)
		CU_ASSERT(log_pos('D', parent) < log_pos('D', child));
}

/* For a parent that is not the child's last one: it is dereferenced before
 * the child's pfn_free, so only the cleanups are ordered. */
static void check_order_weak(int parent, int child)
{
	CU_ASSERT(log_pos('C', child) >= 0);
	CU_ASSERT(log_pos('C', child) < log_pos('C', parent));
	CU_ASSERT(log_pos('C', child) < log_pos('F', child));
	CU_ASSERT(log_pos('C', parent) < log_pos('F', parent));
}

static void check_once(int id)
{
	CU_ASSERT_EQUAL(log_count('D', id), 1);
	CU_ASSERT_EQUAL(log_count('C', id), 1);
	CU_ASSERT_EQUAL(log_count('F', id), 1);
}

static void setup(void)
{
	CU_ASSERT_EQUAL(__cl_mem_track(TRUE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	pthread_mutex_lock(&g_log_lock);
	g_log_len = 0;
	pthread_mutex_unlock(&g_log_lock);
	__atomic_store_n(&g_freed, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&g_errors, 0, __ATOMIC_RELEASE);
	cl_event_construct(&g_freed_ev);
	CU_ASSERT_EQUAL(cl_event_init(&g_freed_ev, FALSE), CL_SUCCESS);
	cl_event_construct(&g_log_ev);
	CU_ASSERT_EQUAL(cl_event_init(&g_log_ev, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(cl_obj_mgr_create(), CL_SUCCESS);
	CU_ASSERT_PTR_NOT_NULL(gp_obj_mgr);
}

static void teardown(void)
{
	cl_obj_mgr_destroy();
	CU_ASSERT_PTR_NULL(gp_obj_mgr);
	cl_event_destroy(&g_freed_ev);
	cl_event_destroy(&g_log_ev);
	CU_ASSERT_EQUAL(load32(&g_errors), 0);
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	__cl_mem_track(FALSE);
}

/* Runs fn(arg) on a thread; a call that does not return in time is taken
 * for a deadlock and ends the program with a failure. */
typedef struct {
	void (*fn)(void *);
	void *arg;
	cl_event_t done;
	cl_thread_t thread;
} bounded_t;

static void CL_API bounded_main(void *context)
{
	bounded_t *b = (bounded_t *)context;

	b->fn(b->arg);
	cl_event_signal(&b->done);
}

static void bounded_start(bounded_t *b, void (*fn)(void *), void *arg)
{
	b->fn = fn;
	b->arg = arg;
	cl_event_construct(&b->done);
	CU_ASSERT_EQUAL(cl_event_init(&b->done, FALSE), CL_SUCCESS);
	cl_thread_construct(&b->thread);
	CU_ASSERT_EQUAL_FATAL(cl_thread_init(&b->thread, bounded_main, b, "obj_test"), CL_SUCCESS);
}

static boolean_t bounded_done_now(bounded_t *b)
{
	if (cl_event_wait_on(&b->done, 0, FALSE) != CL_SUCCESS)
		return FALSE;
	cl_event_signal(&b->done);	/* keep it for bounded_finish */
	return TRUE;
}

static void bounded_finish(bounded_t *b)
{
	if (cl_event_wait_on(&b->done, TEST_WAIT_US, FALSE) != CL_SUCCESS) {
		fprintf(stderr, "deadlock: a cl_obj call did not return\n");
		exit(2);
	}
	cl_thread_destroy(&b->thread);
	cl_event_destroy(&b->done);
}

static void destroy_fn(void *arg)
{
	cl_obj_destroy(&((tobj_t *)arg)->obj);
}

/* ---- Tests ---- */

static void test_mgr_create_destroy(void)
{
	CU_ASSERT_EQUAL(__cl_mem_track(TRUE), CL_SUCCESS);
	CU_ASSERT_PTR_NULL(gp_obj_mgr);
	cl_obj_mgr_destroy();	/* no manager: nothing to do */
	CU_ASSERT_EQUAL(cl_obj_mgr_create(), CL_SUCCESS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(gp_obj_mgr);
	CU_ASSERT_EQUAL(cl_obj_mgr_create(), CL_SUCCESS);	/* exists: no-op */
	CU_ASSERT_EQUAL(gp_obj_mgr->async_proc_mgr.thread_pool.thread_count, cl_proc_count());
	cl_obj_mgr_destroy();
	CU_ASSERT_PTR_NULL(gp_obj_mgr);
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	__cl_mem_track(FALSE);
}

static void test_refs_and_type(void)
{
	tobj_t *t;

	setup();
	t = tobj_new(7, CL_DESTROY_SYNC, 0);
	CU_ASSERT_EQUAL(cl_obj_type(&t->obj), 7u);
	CU_ASSERT_EQUAL(t->obj.ref_cnt, 1);
	CU_ASSERT_EQUAL(cl_obj_ref(&t->obj), 2);
	CU_ASSERT_EQUAL(cl_obj_ref(&t->obj), 3);
	CU_ASSERT_EQUAL(cl_obj_deref(&t->obj), 2);
	CU_ASSERT_EQUAL(cl_obj_deref(&t->obj), 1);
	cl_obj_lock(&t->obj);
	cl_obj_unlock(&t->obj);
	CU_ASSERT_EQUAL(gp_obj_mgr->obj_list.count, 1u);
	cl_obj_destroy(&t->obj);
	CU_ASSERT_EQUAL(load32(&g_freed), 1);
	CU_ASSERT_EQUAL(gp_obj_mgr->obj_list.count, 0u);
	check_once(7);
	CU_ASSERT(log_pos('D', 7) < log_pos('C', 7));
	teardown();
}

/* A synchronous destroy blocks until the last reference is released, and
 * completes in its own thread. */
static void test_sync_destroy_waits_for_refs(void)
{
	bounded_t b;
	tobj_t *t;

	setup();
	t = tobj_new(1, CL_DESTROY_SYNC, 0);
	CU_ASSERT_EQUAL(cl_obj_ref(&t->obj), 2);
	bounded_start(&b, destroy_fn, t);
	/* Destroying starts at once; cleanup waits for our reference. */
	CU_ASSERT_EQUAL(cl_event_wait_on(&g_freed_ev, 0, FALSE), CL_TIMEOUT);
	CU_ASSERT_FALSE(bounded_done_now(&b));
	CU_ASSERT_EQUAL(log_count('C', 1), 0);
	CU_ASSERT_TRUE(wait_ref(&t->obj, 1));
	CU_ASSERT_FALSE(bounded_done_now(&b));
	CU_ASSERT_EQUAL(cl_obj_deref(&t->obj), 0);	/* wakes the destroyer */
	bounded_finish(&b);
	CU_ASSERT_EQUAL(load32(&g_freed), 1);
	check_once(1);
	CU_ASSERT(pthread_equal(log_thread('F', 1), log_thread('D', 1)));
	CU_ASSERT_FALSE(pthread_equal(log_thread('F', 1), pthread_self()));
	teardown();
}

/* Builds P with children C1 (of type c1type) and C2 (async); C1 has G1 (async), C2
 * has G2 (sync). Ids: P=10, C1=11, C2=12, G1=21, G2=22. */
static void build_tree(tobj_t **p, tobj_t **g1, cl_destroy_type_t ptype,
		       cl_destroy_type_t c1type)
{
	tobj_t *c1, *c2, *g2;

	*p = tobj_new(10, ptype, 0);
	c1 = tobj_new(11, c1type, 0);
	c2 = tobj_new(12, CL_DESTROY_ASYNC, 0);
	*g1 = tobj_new(21, CL_DESTROY_ASYNC, 0);
	g2 = tobj_new(22, CL_DESTROY_SYNC, 0);
	link_rel(*p, c1, 0);
	link_rel(*p, c2, -1);
	link_rel(c1, *g1, -1);
	link_rel(c2, g2, 0);
	CU_ASSERT_EQUAL((*p)->obj.ref_cnt, 3);	/* self + two children */
	CU_ASSERT_EQUAL(c1->obj.ref_cnt, 3);	/* self + parent rel + child rel */
	CU_ASSERT_EQUAL((*g1)->obj.ref_cnt, 2);
	CU_ASSERT_EQUAL(cl_qlist_count(&(*p)->obj.child_list), 2u);
}

static void check_tree(void)
{
	int ids[] = { 10, 11, 12, 21, 22 };
	unsigned i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		check_once(ids[i]);
	check_order(10, 11, TRUE);
	check_order(10, 12, TRUE);
	check_order(11, 21, TRUE);
	check_order(12, 22, TRUE);
}

static void test_sync_tree_with_outstanding_ref(void)
{
	tobj_t *p, *g1;
	bounded_t b;

	setup();
	build_tree(&p, &g1, CL_DESTROY_SYNC, CL_DESTROY_SYNC);
	CU_ASSERT_EQUAL(cl_obj_ref(&g1->obj), 3);
	bounded_start(&b, destroy_fn, p);
	/* The whole tree gets marked, but the branch above G1 cannot finish. */
	CU_ASSERT_TRUE(wait_freed(2));	/* G2, then C2 */
	CU_ASSERT_TRUE(wait_logged('D', 21, 1));
	CU_ASSERT_TRUE(wait_ref(&g1->obj, 1));	/* only ours is left */
	CU_ASSERT_FALSE(bounded_done_now(&b));
	CU_ASSERT_EQUAL(g1->obj.state, CL_DESTROYING);
	CU_ASSERT_EQUAL(log_count('D', 21), 1);
	CU_ASSERT_EQUAL(log_count('C', 21), 0);
	CU_ASSERT_EQUAL(log_count('C', 11), 0);
	CU_ASSERT_EQUAL(log_count('C', 10), 0);
	CU_ASSERT_EQUAL(load32(&g_freed), 2);
	CU_ASSERT_EQUAL(cl_obj_deref(&g1->obj), 0);
	bounded_finish(&b);
	/* A synchronous parent is freed when destroy returns, children first. */
	CU_ASSERT_EQUAL(load32(&g_freed), 5);
	check_tree();
	CU_ASSERT(pthread_equal(log_thread('F', 10), log_thread('D', 10)));
	teardown();
}

static void test_async_tree_with_outstanding_ref(void)
{
	tobj_t *p, *g1;

	setup();
	/* A synchronous C1 would block this destroy until G1 is released. */
	build_tree(&p, &g1, CL_DESTROY_ASYNC, CL_DESTROY_ASYNC);
	CU_ASSERT_EQUAL(cl_obj_ref(&g1->obj), 3);
	cl_obj_destroy(&p->obj);	/* returns without waiting */
	CU_ASSERT_EQUAL(p->obj.state, CL_DESTROYING);
	CU_ASSERT_EQUAL(g1->obj.state, CL_DESTROYING);
	CU_ASSERT_EQUAL(log_count('D', 10), 1);
	CU_ASSERT_EQUAL(log_count('D', 11), 1);
	CU_ASSERT_EQUAL(log_count('D', 21), 1);
	CU_ASSERT_TRUE(wait_freed(2));	/* C2 and G2 need nothing of G1 */
	CU_ASSERT_EQUAL(log_count('C', 21), 0);
	CU_ASSERT_EQUAL(log_count('C', 11), 0);
	CU_ASSERT_EQUAL(log_count('C', 10), 0);
	CU_ASSERT_EQUAL(cl_obj_deref(&g1->obj), 0);
	CU_ASSERT_TRUE(wait_freed(5));
	check_tree();
	/* Asynchronous objects complete on the manager's threads. */
	CU_ASSERT_FALSE(pthread_equal(log_thread('F', 10), pthread_self()));
	CU_ASSERT_FALSE(pthread_equal(log_thread('F', 21), pthread_self()));
	teardown();
}

/* Callbacks call back into cl_obj (locks, references, relationships,
 * destroy, the manager's pool) without deadlocking. */
static void reentrant_fn(void *arg)
{
	tobj_t **objs = (tobj_t **)arg;

	cl_obj_destroy(&objs[0]->obj);
}

static void test_callbacks_reenter(void)
{
	tobj_t *objs[4];
	bounded_t b;

	setup();
	objs[0] = tobj_new(1, CL_DESTROY_SYNC, F_REENTER);
	objs[1] = tobj_new(2, CL_DESTROY_SYNC, F_REENTER);
	objs[2] = tobj_new(3, CL_DESTROY_ASYNC, F_REENTER);
	objs[3] = tobj_new(4, CL_DESTROY_SYNC, F_REENTER);	/* the buddy */
	objs[1]->buddy = objs[3];
	link_rel(objs[0], objs[1], 0);
	link_rel(objs[1], objs[2], -1);
	link_rel(objs[0], objs[2], 1);	/* two parents */
	bounded_start(&b, reentrant_fn, objs);
	bounded_finish(&b);
	CU_ASSERT_TRUE(wait_freed(4));
	check_once(1);
	check_once(2);
	check_once(3);
	check_once(4);
	check_order(1, 2, TRUE);
	check_order_weak(2, 3);	/* 3's first parent */
	check_order(1, 3, FALSE);	/* 3's last parent */
	CU_ASSERT(log_pos('D', 2) < log_pos('D', 4));	/* destroyed from D(2) */
	teardown();
}

/* Several threads destroy parts of a tree at once: each object is
 * destroyed once and the ordering rules hold. */
#define CT_CHILDREN 4
#define CT_GRAND 2
#define CT_OBJS (1 + CT_CHILDREN + CT_CHILDREN * CT_GRAND)

typedef struct {
	tobj_t *target;
	cl_event_t *start;
} racer_t;

static void CL_API racer(void *context)
{
	racer_t *r = (racer_t *)context;

	cl_event_wait_on(r->start, TEST_WAIT_US, FALSE);
	cl_obj_destroy(&r->target->obj);
	cl_obj_deref(&r->target->obj);	/* the reference taken for us */
}

static void test_concurrent_destroy(void)
{
	tobj_t *objs[CT_OBJS];
	racer_t racers[4];
	cl_thread_t thr[4];
	cl_event_t start;
	int round, i, j, n;

	setup();
	cl_event_construct(&start);
	CU_ASSERT_EQUAL(cl_event_init(&start, TRUE), CL_SUCCESS);
	for (round = 0; round < 30; round++) {
		pthread_mutex_lock(&g_log_lock);
		g_log_len = 0;
		pthread_mutex_unlock(&g_log_lock);
		__atomic_store_n(&g_freed, 0, __ATOMIC_RELEASE);
		cl_event_reset(&start);
		n = 0;
		objs[n++] = tobj_new(100, CL_DESTROY_ASYNC, 0);
		for (i = 0; i < CT_CHILDREN; i++) {
			objs[n] = tobj_new(110 + i, round & 1 ? CL_DESTROY_SYNC : CL_DESTROY_ASYNC, 0);
			link_rel(objs[0], objs[n], -1);
			n++;
			for (j = 0; j < CT_GRAND; j++) {
				objs[n] = tobj_new(200 + i * 10 + j, CL_DESTROY_ASYNC, 0);
				link_rel(objs[n - 1 - j], objs[n], 0);
				n++;
			}
		}
		/* Root, a child (a grandchild when the children are synchronous:
		 * a racer holds a reference, which would block its own
		 * synchronous destroy), another grandchild and the root again. */
		racers[0].target = objs[0];
		racers[1].target = round & 1 ? objs[2] : objs[1];
		racers[2].target = objs[3 + CT_GRAND + 1];
		racers[3].target = objs[0];
		for (i = 0; i < 4; i++) {
			racers[i].start = &start;
			cl_obj_ref(&racers[i].target->obj);
			cl_thread_construct(&thr[i]);
			CU_ASSERT_EQUAL(cl_thread_init(&thr[i], racer, &racers[i], "obj_race"),
					CL_SUCCESS);
		}
		cl_event_signal(&start);
		for (i = 0; i < 4; i++)
			cl_thread_destroy(&thr[i]);
		CU_ASSERT_TRUE(wait_freed(CT_OBJS));
		check_once(100);
		for (i = 0; i < CT_CHILDREN; i++) {
			check_once(110 + i);
			check_order(100, 110 + i, FALSE);
			for (j = 0; j < CT_GRAND; j++) {
				check_once(200 + i * 10 + j);
				check_order(110 + i, 200 + i * 10 + j, FALSE);
			}
		}
	}
	cl_event_destroy(&start);
	teardown();
}

/* Threads hammer references while the parent is destroyed: cleanup comes
 * only after every worker has dropped its last reference. */
typedef struct {
	tobj_t *target;
	atomic32_t *done;
	cl_event_t *start;
} worker_t;

static void CL_API ref_worker(void *context)
{
	worker_t *w = (worker_t *)context;
	int i;

	cl_event_wait_on(w->start, TEST_WAIT_US, FALSE);
	for (i = 0; i < 2000; i++) {
		cl_obj_ref(&w->target->obj);
		cl_obj_deref(&w->target->obj);
	}
	cl_atomic_inc(w->done);
	cl_obj_deref(&w->target->obj);	/* the reference taken for us */
}

static void test_refs_race_destroy(void)
{
	enum { WORKERS = 4 };
	worker_t w[WORKERS];
	cl_thread_t thr[WORKERS];
	atomic32_t done = 0;
	cl_event_t start;
	tobj_t *p, *o;
	int i;

	setup();
	cl_event_construct(&start);
	CU_ASSERT_EQUAL(cl_event_init(&start, TRUE), CL_SUCCESS);
	p = tobj_new(1, CL_DESTROY_ASYNC, 0);
	o = tobj_new(2, CL_DESTROY_ASYNC, 0);
	o->workers_done = &done;
	o->workers = WORKERS;
	link_rel(p, o, 0);
	for (i = 0; i < WORKERS; i++) {
		w[i].target = o;
		w[i].done = &done;
		w[i].start = &start;
		cl_obj_ref(&o->obj);
		cl_thread_construct(&thr[i]);
		CU_ASSERT_EQUAL(cl_thread_init(&thr[i], ref_worker, &w[i], "obj_refs"), CL_SUCCESS);
	}
	cl_event_signal(&start);
	cl_obj_destroy(&p->obj);
	for (i = 0; i < WORKERS; i++)
		cl_thread_destroy(&thr[i]);
	CU_ASSERT_TRUE(wait_freed(2));
	check_once(1);
	check_once(2);
	check_order(1, 2, TRUE);
	cl_event_destroy(&start);
	teardown();
}

/* Relationship rules: states, manual removal, several parents. */
static void test_relationships(void)
{
	tobj_t *p1, *p2, *x, *y;
	cl_obj_rel_t rel, *prel;
	cl_obj_t fresh;

	setup();
	p1 = tobj_new(1, CL_DESTROY_SYNC, 0);
	p2 = tobj_new(2, CL_DESTROY_SYNC, 0);
	x = tobj_new(3, CL_DESTROY_SYNC, 0);
	y = tobj_new(4, CL_DESTROY_SYNC, 0);

	/* Not initialized: refused. */
	cl_obj_construct(&fresh, 99);
	CU_ASSERT_EQUAL(cl_obj_insert_rel(&rel, &fresh, &x->obj), CL_INVALID_STATE);
	CU_ASSERT_EQUAL(cl_obj_insert_rel(&rel, &x->obj, &fresh), CL_INVALID_STATE);
	CU_ASSERT_EQUAL(x->obj.ref_cnt, 1);
	cl_obj_destroy(&fresh);	/* never initialized: no effect */
	CU_ASSERT_EQUAL(fresh.state, CL_UNINITIALIZED);
	cl_obj_deinit(&fresh);
	CU_ASSERT_EQUAL(fresh.state, CL_DESTROYED);

	/* Parent-locked variant. */
	prel = cl_rel_alloc();
	CU_ASSERT_PTR_NOT_NULL_FATAL(prel);
	cl_obj_lock(&p1->obj);
	CU_ASSERT_EQUAL(cl_obj_insert_rel_parent_locked(prel, &p1->obj, &x->obj), CL_SUCCESS);
	cl_obj_unlock(&p1->obj);
	CU_ASSERT_PTR_EQUAL(prel->p_parent_obj, &p1->obj);
	CU_ASSERT_PTR_EQUAL(prel->p_child_obj, &x->obj);
	link_rel(p2, x, 0);
	CU_ASSERT_EQUAL(x->obj.ref_cnt, 3);
	CU_ASSERT_EQUAL(p1->obj.ref_cnt, 2);

	/* Manual removal gives the references back; the child survives. */
	link_rel(p1, y, 0);
	CU_ASSERT_EQUAL(p1->obj.ref_cnt, 3);
	cl_obj_remove_rel(&y->rel[0]);
	CU_ASSERT_PTR_NULL(y->rel[0].p_parent_obj);
	CU_ASSERT_PTR_NULL(y->rel[0].p_child_obj);
	CU_ASSERT_EQUAL(p1->obj.ref_cnt, 2);
	CU_ASSERT_EQUAL(y->obj.ref_cnt, 1);
	CU_ASSERT_TRUE(cl_is_qlist_empty(&y->obj.parent_list));

	/* Destroying one parent destroys the child and detaches it from the
	 * other parent, which lives on. */
	cl_obj_destroy(&p1->obj);
	CU_ASSERT_EQUAL(load32(&g_freed), 2);	/* x, then p1 */
	check_once(1);
	check_once(3);
	check_order(1, 3, TRUE);
	CU_ASSERT_EQUAL(p2->obj.state, CL_INITIALIZED);
	CU_ASSERT_EQUAL(p2->obj.ref_cnt, 1);
	CU_ASSERT_TRUE(cl_is_qlist_empty(&p2->obj.child_list));
	CU_ASSERT_EQUAL(y->obj.state, CL_INITIALIZED);

	cl_obj_destroy(&y->obj);
	cl_obj_destroy(&p2->obj);
	CU_ASSERT_EQUAL(load32(&g_freed), 4);
	check_once(2);
	check_once(4);
	teardown();
}

static void test_destroying_child_refused(void)
{
	tobj_t *p, *c;
	cl_obj_rel_t rel;

	setup();
	p = tobj_new(1, CL_DESTROY_SYNC, 0);
	c = tobj_new(2, CL_DESTROY_ASYNC, 0);
	CU_ASSERT_EQUAL(cl_obj_ref(&c->obj), 2);
	cl_obj_destroy(&c->obj);	/* async: returns, held by our reference */
	CU_ASSERT_EQUAL(c->obj.state, CL_DESTROYING);
	CU_ASSERT_EQUAL(cl_obj_insert_rel(&rel, &p->obj, &c->obj), CL_INVALID_STATE);
	CU_ASSERT_EQUAL(p->obj.ref_cnt, 1);
	CU_ASSERT_EQUAL(cl_obj_deref(&c->obj), 0);
	CU_ASSERT_TRUE(wait_freed(1));
	cl_obj_destroy(&p->obj);
	CU_ASSERT_EQUAL(load32(&g_freed), 2);
	teardown();
}

/* KEEP_CHILDREN: the children survive the parent's destroy, and the parent
 * completes once they are gone. */
static void keep_children_case(cl_destroy_type_t ptype)
{
	tobj_t *p, *c;
	bounded_t b;

	setup();
	p = tobj_new(1, ptype, 0);
	c = tobj_new(2, CL_DESTROY_SYNC, 0);
	link_rel(p, c, 0);
	bounded_start(&b, destroy_fn, p);
	if (ptype == CL_DESTROY_ASYNC_KEEP_CHILDREN)
		bounded_finish(&b);	/* returns at once */
	/* A synchronous parent now waits for the child's relationship. */
	CU_ASSERT_TRUE(wait_logged('D', 1, 1));
	if (ptype == CL_DESTROY_SYNC_KEEP_CHILDREN)
		CU_ASSERT_FALSE(bounded_done_now(&b));
	CU_ASSERT_EQUAL(c->obj.state, CL_INITIALIZED);
	CU_ASSERT_EQUAL(log_count('D', 2), 0);
	CU_ASSERT_EQUAL(log_count('C', 1), 0);
	cl_obj_destroy(&c->obj);
	if (ptype == CL_DESTROY_SYNC_KEEP_CHILDREN)
		bounded_finish(&b);
	CU_ASSERT_TRUE(wait_freed(2));
	check_once(1);
	check_once(2);
	check_order(1, 2, FALSE);
	teardown();
}

static void test_sync_keep_children(void)
{
	keep_children_case(CL_DESTROY_SYNC_KEEP_CHILDREN);
}

static void test_async_keep_children(void)
{
	keep_children_case(CL_DESTROY_ASYNC_KEEP_CHILDREN);
}

/* STAY_IN_PARENT_LIST_TILL_FREE: the destroyed child stays on its parent's
 * list until its own references are gone. */
static void test_stay_in_parent_list(void)
{
	tobj_t *p, *c;

	setup();
	p = tobj_new(1, CL_DESTROY_SYNC, 0);
	c = tobj_new(2, CL_DESTROY_ASYNC_KEEP_CHILDREN_STAY_IN_PARENT_LIST_TILL_FREE, 0);
	link_rel(p, c, -1);
	CU_ASSERT_EQUAL(cl_obj_ref(&c->obj), 3);
	cl_obj_destroy(&c->obj);
	CU_ASSERT_EQUAL(c->obj.state, CL_DESTROYING);
	CU_ASSERT_EQUAL(cl_qlist_count(&p->obj.child_list), 1u);
	CU_ASSERT_EQUAL(log_count('C', 2), 0);
	/* Only the parent relationship's reference is left now. */
	CU_ASSERT_EQUAL(cl_obj_deref(&c->obj), 1);
	CU_ASSERT_TRUE(wait_freed(1));
	check_once(2);
	CU_ASSERT_TRUE(cl_is_qlist_empty(&p->obj.child_list));
	CU_ASSERT_TRUE(wait_ref(&p->obj, 1));	/* released after pfn_free */
	cl_obj_destroy(&p->obj);
	CU_ASSERT_EQUAL(load32(&g_freed), 2);
	teardown();
}

/* A parent destroyed while its STAY child is referenced waits for it. */
static void test_stay_child_destroyed_by_parent(void)
{
	tobj_t *p, *c;

	setup();
	p = tobj_new(1, CL_DESTROY_ASYNC, 0);
	c = tobj_new(2, CL_DESTROY_ASYNC_KEEP_CHILDREN_STAY_IN_PARENT_LIST_TILL_FREE, 0);
	link_rel(p, c, 0);
	CU_ASSERT_EQUAL(cl_obj_ref(&c->obj), 3);
	cl_obj_destroy(&p->obj);
	CU_ASSERT_EQUAL(c->obj.state, CL_DESTROYING);
	CU_ASSERT_EQUAL(log_count('C', 1), 0);
	CU_ASSERT_EQUAL(cl_obj_deref(&c->obj), 1);
	CU_ASSERT_TRUE(wait_freed(2));
	check_once(1);
	check_once(2);
	check_order(1, 2, TRUE);
	teardown();
}

/* cl_obj_reset from pfn_free makes the object reusable; a stale wakeup of
 * the first destroy must not let the second skip its wait. */
static void test_reset_and_reuse(void)
{
	bounded_t b;
	tobj_t *t;

	setup();
	t = tobj_new(1, CL_DESTROY_SYNC, F_RESET);
	cl_obj_destroy(&t->obj);	/* unreferenced: completes at once */
	CU_ASSERT_EQUAL(load32(&t->resets), 1);
	/* No wakeup may be left pending for the next synchronous destroy. */
	CU_ASSERT_EQUAL(cl_event_wait_on(&t->obj.event, 0, FALSE), CL_TIMEOUT);
	CU_ASSERT_EQUAL(t->obj.state, CL_INITIALIZED);
	CU_ASSERT_EQUAL(t->obj.ref_cnt, 1);

	CU_ASSERT_EQUAL(cl_obj_ref(&t->obj), 2);
	bounded_start(&b, destroy_fn, t);
	CU_ASSERT_TRUE(wait_logged('D', 1, 2));
	CU_ASSERT_FALSE(bounded_done_now(&b));
	CU_ASSERT_EQUAL(log_count('C', 1), 1);	/* the second cleanup waits */
	CU_ASSERT_TRUE(wait_ref(&t->obj, 1));
	CU_ASSERT_FALSE(bounded_done_now(&b));
	CU_ASSERT_EQUAL(cl_obj_deref(&t->obj), 0);
	bounded_finish(&b);
	CU_ASSERT_EQUAL(load32(&t->resets), 2);
	CU_ASSERT_EQUAL(log_count('C', 1), 2);

	t->flags = 0;	/* the third time, free it */
	cl_obj_destroy(&t->obj);
	CU_ASSERT_EQUAL(load32(&g_freed), 3);
	teardown();
}

static void test_rel_pool_grows(void)
{
	enum { N = 1000 };
	static cl_obj_rel_t *rels[N];
	int i;

	setup();
	for (i = 0; i < N; i++) {
		rels[i] = cl_rel_alloc();
		CU_ASSERT_PTR_NOT_NULL_FATAL(rels[i]);
		CU_ASSERT(i == 0 || rels[i] != rels[i - 1]);
	}
	for (i = 0; i < N; i++)
		cl_rel_free(rels[i]);
	teardown();
}

/* Destroying the manager completes the asynchronous destructions queued. */
static void test_mgr_destroy_flushes(void)
{
	tobj_t *objs[8];
	int i;

	setup();
	objs[0] = tobj_new(0, CL_DESTROY_ASYNC, 0);
	for (i = 1; i < 8; i++) {
		objs[i] = tobj_new(i, CL_DESTROY_ASYNC, 0);
		link_rel(objs[i - 1], objs[i], -1);
	}
	cl_obj_destroy(&objs[0]->obj);
	cl_obj_mgr_destroy();
	CU_ASSERT_EQUAL(load32(&g_freed), 8);
	for (i = 1; i < 8; i++)
		check_order(i - 1, i, TRUE);
	teardown();
}

/* Objects left alive are reported, and can still be destroyed after the
 * manager is gone when they are synchronous. */
static void test_mgr_destroy_with_live_object(void)
{
	tobj_t *t;

	setup();
	t = tobj_new(5, CL_DESTROY_SYNC, 0);
	cl_obj_mgr_destroy();
	CU_ASSERT_PTR_NULL(gp_obj_mgr);
	cl_obj_destroy(&t->obj);
	CU_ASSERT_EQUAL(load32(&g_freed), 1);
	teardown();
}

/* An object embedded nowhere, with only the required callback. */
static void test_stack_object(void)
{
	cl_obj_t o;

	setup();
	cl_obj_construct(&o, 3);
	CU_ASSERT_EQUAL(cl_obj_init(&o, CL_DESTROY_SYNC, NULL, NULL, plain_free), CL_SUCCESS);
	cl_obj_destroy(&o);
	CU_ASSERT_EQUAL(o.state, CL_DESTROYED);
	CU_ASSERT_EQUAL(gp_obj_mgr->obj_list.count, 0u);
	teardown();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_mgr_create_destroy),
	TEST_ENTRY(test_refs_and_type),
	TEST_ENTRY(test_stack_object),
	TEST_ENTRY(test_sync_destroy_waits_for_refs),
	TEST_ENTRY(test_sync_tree_with_outstanding_ref),
	TEST_ENTRY(test_async_tree_with_outstanding_ref),
	TEST_ENTRY(test_callbacks_reenter),
	TEST_ENTRY(test_concurrent_destroy),
	TEST_ENTRY(test_refs_race_destroy),
	TEST_ENTRY(test_relationships),
	TEST_ENTRY(test_destroying_child_refused),
	TEST_ENTRY(test_sync_keep_children),
	TEST_ENTRY(test_async_keep_children),
	TEST_ENTRY(test_stay_in_parent_list),
	TEST_ENTRY(test_stay_child_destroyed_by_parent),
	TEST_ENTRY(test_reset_and_reuse),
	TEST_ENTRY(test_rel_pool_grows),
	TEST_ENTRY(test_mgr_destroy_flushes),
	TEST_ENTRY(test_mgr_destroy_with_live_object),
};

TEST_MAIN("cl_obj", tests)
