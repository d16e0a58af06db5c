/*
 * ibal tests: the access layer's handle table and its in-flight guard.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <string.h>
#include <complib/cl_event.h>
#include <complib/cl_thread.h>
#include <iba/ib_al.h>
#include "al_epoch.h"
#include "al_handle.h"
#include "../common/cl_test.h"
#include "../common/mem_resident.h"

static int objs[16];

static al_handle_t alloc_ok(al_handle_type_t type, void *p_obj)
{
	al_handle_t h = AL_HANDLE_NULL;

	CU_ASSERT_EQUAL_FATAL(al_handle_alloc(type, p_obj, &h), IB_SUCCESS);
	CU_ASSERT_NOT_EQUAL(h, AL_HANDLE_NULL);
	return h;
}

static void test_encoding(void)
{
	al_handle_t h = alloc_ok(AL_HDL_QP, &objs[0]);
	ib_qp_handle_t h_qp = AL_HANDLE_TO_IB(ib_qp_handle_t, h);

	CU_ASSERT_EQUAL(al_handle_type(h), AL_HDL_QP);
	CU_ASSERT_EQUAL(AL_HANDLE_GEN_SHIFT + AL_HANDLE_GEN_BITS, (int)sizeof(void *) * 8);
	/* Type in bits 0-5, index from bit 6 (the slot's byte offset in its
	 * region), the live bit just below the generation, clear bits between. */
	CU_ASSERT_EQUAL(h & 0x3F, (al_handle_t)AL_HDL_QP);
	CU_ASSERT_EQUAL(al_handle_index(h), (h >> 6) & (AL_HANDLE_MAX - 1));
	CU_ASSERT_EQUAL(h & AL_HANDLE_INDEX_MASK, (al_handle_t)al_handle_index(h) * 64);
	CU_ASSERT_EQUAL(h & AL_HANDLE_LIVE, AL_HANDLE_LIVE);
	CU_ASSERT_EQUAL(h & AL_HANDLE_FORM_MASK, AL_HANDLE_LIVE);
	CU_ASSERT_EQUAL(al_handle_generation(h), (uint64_t)h >> AL_HANDLE_GEN_SHIFT);
	if (sizeof(void *) == 8) {
		CU_ASSERT_EQUAL(AL_HANDLE_INDEX_BITS, 20);
		CU_ASSERT_EQUAL(AL_HANDLE_LIVE, (al_handle_t)1 << 31);
		CU_ASSERT_EQUAL(AL_HANDLE_GEN_BITS, 32);
	}
	/* The handle survives a trip through the public pointer type. */
	CU_ASSERT_PTR_NOT_NULL(h_qp);
	CU_ASSERT_EQUAL(AL_HANDLE_FROM_IB(h_qp), h);
	CU_ASSERT_PTR_EQUAL(al_handle_lookup(AL_HANDLE_FROM_IB(h_qp), AL_HDL_QP), &objs[0]);
	CU_ASSERT_STRING_EQUAL(al_handle_type_str(AL_HDL_QP), "QP");
	CU_ASSERT_STRING_EQUAL(al_handle_type_str(AL_HDL_FMR_POOL_EL), "FMR pool element");
	CU_ASSERT_STRING_EQUAL(al_handle_type_str(AL_HDL_INVALID), "invalid");
	CU_ASSERT_STRING_EQUAL(al_handle_type_str(AL_HDL_TYPE_COUNT), "invalid");
	CU_ASSERT_STRING_EQUAL(al_handle_type_str((al_handle_type_t)200), "invalid");
	CU_ASSERT_EQUAL(al_handle_free(h), IB_SUCCESS);
}

static void test_every_type(void)
{
	al_handle_t h[AL_HDL_TYPE_COUNT];
	int t, u;

	for (t = AL_HDL_AL; t < AL_HDL_TYPE_COUNT; t++) {
		h[t] = alloc_ok((al_handle_type_t)t, &objs[t % 16]);
		CU_ASSERT_EQUAL(al_handle_type(h[t]), (al_handle_type_t)t);
	}
	for (t = AL_HDL_AL; t < AL_HDL_TYPE_COUNT; t++)
		for (u = AL_HDL_INVALID; u < AL_HDL_TYPE_COUNT; u++)
			CU_ASSERT_PTR_EQUAL(al_handle_lookup(h[t], (al_handle_type_t)u),
					    u == t ? &objs[t % 16] : NULL);
	for (t = AL_HDL_AL; t < AL_HDL_TYPE_COUNT; t++)
		CU_ASSERT_EQUAL(al_handle_free(h[t]), IB_SUCCESS);
}

static void test_alloc_lookup_free(void)
{
	uint32_t base = al_handle_count();
	al_handle_t h = alloc_ok(AL_HDL_CQ, &objs[1]);

	CU_ASSERT_EQUAL(al_handle_count(), base + 1);
	CU_ASSERT_PTR_EQUAL(al_handle_lookup(h, AL_HDL_CQ), &objs[1]);
	CU_ASSERT_PTR_EQUAL(al_handle_enter(h, AL_HDL_CQ), &objs[1]);
	CU_ASSERT_EQUAL(al_handle_inflight(h), 1);
	al_handle_exit(h);
	CU_ASSERT_EQUAL(al_handle_inflight(h), 0);

	CU_ASSERT_EQUAL(al_handle_free(h), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_handle_count(), base);
	CU_ASSERT_PTR_NULL(al_handle_lookup(h, AL_HDL_CQ));
	CU_ASSERT_PTR_NULL(al_handle_enter(h, AL_HDL_CQ));
	CU_ASSERT_FALSE(al_handle_invalidate(h));
	CU_ASSERT_EQUAL(al_handle_inflight(h), 0);
	al_handle_drain(h); /* not allocated: returns at once */
	CU_ASSERT_EQUAL(al_handle_free(h), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(al_handle_count(), base);
}

static void test_wrong_type(void)
{
	al_handle_t h = alloc_ok(AL_HDL_PD, &objs[2]);
	al_handle_t other_type = h ^ (al_handle_t)(AL_HDL_PD ^ AL_HDL_MR);

	CU_ASSERT_PTR_NULL(al_handle_lookup(h, AL_HDL_MR));
	CU_ASSERT_PTR_NULL(al_handle_enter(h, AL_HDL_MR));
	CU_ASSERT_PTR_NULL(al_handle_lookup(h, AL_HDL_INVALID));
	/* The same slot and generation with the type bits changed. */
	CU_ASSERT_EQUAL(al_handle_type(other_type), AL_HDL_MR);
	CU_ASSERT_PTR_NULL(al_handle_lookup(other_type, AL_HDL_MR));
	CU_ASSERT_PTR_NULL(al_handle_enter(other_type, AL_HDL_MR));
	CU_ASSERT_FALSE(al_handle_invalidate(other_type));
	CU_ASSERT_EQUAL(al_handle_free(other_type), IB_INVALID_HANDLE);
	/* The genuine handle is untouched. */
	CU_ASSERT_PTR_EQUAL(al_handle_lookup(h, AL_HDL_PD), &objs[2]);
	CU_ASSERT_EQUAL(al_handle_inflight(h), 0);
	CU_ASSERT_EQUAL(al_handle_free(h), IB_SUCCESS);
}

static void test_null_and_garbage(void)
{
	al_handle_t far = AL_HANDLE_LIVE | AL_HANDLE_INDEX_MASK | AL_HDL_QP;
	uint64_t x = 0x9E3779B97F4A7C15ull;
	uint32_t base = al_handle_count();
	int t, i, found = 0;
	al_handle_t h;

	for (t = AL_HDL_INVALID; t < AL_HDL_TYPE_COUNT; t++) {
		CU_ASSERT_PTR_NULL(al_handle_lookup(AL_HANDLE_NULL, (al_handle_type_t)t));
		CU_ASSERT_PTR_NULL(al_handle_enter(AL_HANDLE_NULL, (al_handle_type_t)t));
	}
	CU_ASSERT_FALSE(al_handle_invalidate(AL_HANDLE_NULL));
	CU_ASSERT_EQUAL(al_handle_free(AL_HANDLE_NULL), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(al_handle_inflight(AL_HANDLE_NULL), 0);
	al_handle_drain(AL_HANDLE_NULL);
	/* The last slot of the region, never handed out (reads as zeros). */
	CU_ASSERT_PTR_NULL(al_handle_lookup(far, AL_HDL_QP));
	CU_ASSERT_PTR_NULL(al_handle_enter(far, AL_HDL_QP));
	CU_ASSERT_EQUAL(al_handle_free(far), IB_INVALID_HANDLE);
	/* Random values, with no handle live (but pages of freed slots): nothing
	 * is found. Half of them name a slot that was used, with a used type. */
	CU_ASSERT_EQUAL(base, 0);
	for (i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		h = (al_handle_t)x;
		if (i % 2)
			h = (h & AL_HANDLE_GEN_MASK) | AL_HANDLE_LIVE |
			    (((al_handle_t)(x % 131072) << AL_HANDLE_INDEX_SHIFT) & AL_HANDLE_INDEX_MASK) |
			    AL_HDL_MR;
		if (al_handle_lookup(h, al_handle_type(h)) || al_handle_enter(h, al_handle_type(h)) ||
		    al_handle_invalidate(h) || al_handle_inflight(h) ||
		    al_handle_free(h) != IB_INVALID_HANDLE)
			found++;
	}
	CU_ASSERT_EQUAL(found, 0);
	CU_ASSERT_EQUAL(al_handle_count(), base);
}

static void test_invalid_parameters(void)
{
	al_handle_t h = AL_HANDLE_NULL;

	CU_ASSERT_EQUAL(al_handle_alloc(AL_HDL_INVALID, &objs[0], &h), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(al_handle_alloc(AL_HDL_TYPE_COUNT, &objs[0], &h), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(al_handle_alloc((al_handle_type_t)255, &objs[0], &h), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(al_handle_alloc(AL_HDL_QP, NULL, &h), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(al_handle_alloc(AL_HDL_QP, &objs[0], NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(h, AL_HANDLE_NULL);
}

/* Allocates until the slot of @p old is handed out again (FIFO: after
 * every slot freed before it). Returns the new handle of that slot and
 * frees the others. */
static al_handle_t realloc_slot(al_handle_t old, void *p_obj)
{
	enum { LIMIT = 1 << 18 };
	static al_handle_t others[LIMIT];
	al_handle_t h = AL_HANDLE_NULL;
	int n = 0, i;

	while (n < LIMIT) {
		CU_ASSERT_EQUAL_FATAL(al_handle_alloc(AL_HDL_AV, p_obj, &h), IB_SUCCESS);
		if (al_handle_index(h) == al_handle_index(old))
			break;
		others[n++] = h;
		h = AL_HANDLE_NULL;
	}
	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL(al_handle_free(others[i]), IB_SUCCESS);
	return h;
}

static void test_stale_after_reuse(void)
{
	al_handle_t old = alloc_ok(AL_HDL_AV, &objs[3]);
	al_handle_t h;

	CU_ASSERT_EQUAL(al_handle_free(old), IB_SUCCESS);
	h = realloc_slot(old, &objs[4]);
	CU_ASSERT_NOT_EQUAL_FATAL(h, AL_HANDLE_NULL);
	/* Same slot, same type, another generation. */
	CU_ASSERT_EQUAL(al_handle_index(h), al_handle_index(old));
	CU_ASSERT_EQUAL(al_handle_type(h), al_handle_type(old));
	CU_ASSERT_NOT_EQUAL(al_handle_generation(h), al_handle_generation(old));
	CU_ASSERT_PTR_NULL(al_handle_lookup(old, AL_HDL_AV));
	CU_ASSERT_PTR_NULL(al_handle_enter(old, AL_HDL_AV));
	CU_ASSERT_FALSE(al_handle_invalidate(old));
	CU_ASSERT_EQUAL(al_handle_free(old), IB_INVALID_HANDLE);
	/* ... and the stale calls did not disturb the new owner. */
	CU_ASSERT_PTR_EQUAL(al_handle_lookup(h, AL_HDL_AV), &objs[4]);
	CU_ASSERT_EQUAL(al_handle_inflight(h), 0);
	CU_ASSERT_EQUAL(al_handle_free(h), IB_SUCCESS);
}

static void test_fifo_reuse(void)
{
	al_handle_t a = alloc_ok(AL_HDL_MW, &objs[5]);
	al_handle_t b = alloc_ok(AL_HDL_MW, &objs[5]);
	al_handle_t c = alloc_ok(AL_HDL_MW, &objs[5]);
	uint32_t ia = al_handle_index(a), ib = al_handle_index(b), ic = al_handle_index(c);
	enum { LIMIT = 1 << 18 };
	static al_handle_t got[LIMIT];
	int n = 0, pa = -1, pb = -1, pc = -1, i;

	CU_ASSERT_EQUAL(al_handle_free(a), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_handle_free(b), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_handle_free(c), IB_SUCCESS);
	while (n < LIMIT && pc < 0) {
		CU_ASSERT_EQUAL_FATAL(al_handle_alloc(AL_HDL_MW, &objs[6], &got[n]), IB_SUCCESS);
		if (al_handle_index(got[n]) == ia)
			pa = n;
		if (al_handle_index(got[n]) == ib)
			pb = n;
		if (al_handle_index(got[n]) == ic)
			pc = n;
		n++;
	}
	/* First freed, first reused: a stale handle's slot stays free longest. */
	CU_ASSERT(pa >= 0 && pa < pb && pb < pc);
	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL(al_handle_free(got[i]), IB_SUCCESS);
}

static void test_many_handles(void)
{
	enum { N = 100000 };
	static char arr[N];
	static al_handle_t h[N];
	uint32_t base = al_handle_count(), lo = UINT32_MAX, hi = 0, idx;
	int i, bad = 0;

	for (i = 0; i < N; i++) {
		if (al_handle_alloc(AL_HDL_MR, &arr[i], &h[i]) != IB_SUCCESS) {
			bad++;
			break;
		}
		idx = al_handle_index(h[i]);
		lo = idx < lo ? idx : lo;
		hi = idx > hi ? idx : hi;
	}
	CU_ASSERT_EQUAL_FATAL(bad, 0);
	CU_ASSERT_EQUAL(al_handle_count(), base + N);
	/* Distinct slots spread over many pages. */
	CU_ASSERT(hi - lo >= N - 1);
	for (i = 0; i < N; i++)
		if (al_handle_lookup(h[i], AL_HDL_MR) != &arr[i])
			bad++;
	CU_ASSERT_EQUAL(bad, 0);
	for (i = 0; i < N; i += 2)
		if (al_handle_free(h[i]) != IB_SUCCESS)
			bad++;
	for (i = 0; i < N; i++)
		if (al_handle_lookup(h[i], AL_HDL_MR) != (i % 2 ? (void *)&arr[i] : NULL))
			bad++;
	for (i = 1; i < N; i += 2)
		if (al_handle_free(h[i]) != IB_SUCCESS)
			bad++;
	for (i = 0; i < N; i++)
		if (al_handle_lookup(h[i], AL_HDL_MR) || al_handle_free(h[i]) != IB_INVALID_HANDLE)
			bad++;
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(al_handle_count(), base);
}

/* The slots of a type are made writable a chunk at a time, and the whole
 * chunk is resident at once: a burst of handles faults no page of the
 * table one slot after another. */
static void test_chunk_resident(void)
{
	static char obj;
	uint32_t idx, first;
	al_handle_t h;
	uintptr_t at;

	CU_ASSERT_EQUAL_FATAL(al_handle_alloc(AL_HDL_SRQ, &obj, &h), IB_SUCCESS);
	idx = al_handle_index(h);
	first = idx - idx % 1024u;
	at = al_handle_region[AL_HDL_SRQ] + ((uintptr_t)first << AL_HANDLE_INDEX_SHIFT);
	CU_ASSERT_EQUAL(test_pages_not_resident((const void *)at, (size_t)1024u << AL_HANDLE_INDEX_SHIFT),
			0);
	CU_ASSERT_EQUAL(al_handle_free(h), IB_SUCCESS);
}

static void test_nested_enter(void)
{
	al_handle_t h = alloc_ok(AL_HDL_SRQ, &objs[7]);

	CU_ASSERT_PTR_EQUAL(al_handle_enter(h, AL_HDL_SRQ), &objs[7]);
	CU_ASSERT_PTR_EQUAL(al_handle_enter(h, AL_HDL_SRQ), &objs[7]);
	CU_ASSERT_EQUAL(al_handle_inflight(h), 2);
	al_handle_exit(h);
	al_handle_exit(h);
	CU_ASSERT_EQUAL(al_handle_inflight(h), 0);
	/* Draining with nothing inside returns at once. */
	CU_ASSERT_TRUE(al_handle_invalidate(h));
	al_handle_drain(h);
	CU_ASSERT_EQUAL(al_handle_free(h), IB_SUCCESS);
}

/* ---- A thread inside an object while it is drained ---- */

typedef struct {
	al_handle_t h;
	cl_event_t entered, go, done;
	boolean_t enter_ok;
	ib_api_status_t free_status;
	boolean_t use_free;
} inside_ctx_t;

static void CL_API inside_thread(void *context)
{
	inside_ctx_t *c = (inside_ctx_t *)context;

	c->enter_ok = al_handle_enter(c->h, AL_HDL_QP) != NULL;
	cl_event_signal(&c->entered);
	cl_event_wait_on(&c->go, TEST_WAIT_US, FALSE);
	if (c->enter_ok)
		al_handle_exit(c->h);
}

static void CL_API drain_thread(void *context)
{
	inside_ctx_t *c = (inside_ctx_t *)context;

	if (c->use_free)
		c->free_status = al_handle_free(c->h);
	else
		al_handle_drain(c->h);
	cl_event_signal(&c->done);
}

static void drain_with_thread_inside(boolean_t use_free)
{
	inside_ctx_t c;
	cl_thread_t in, dr;

	cl_memclr(&c, sizeof(c));
	c.use_free = use_free;
	c.free_status = IB_ERROR;
	cl_event_construct(&c.entered);
	cl_event_construct(&c.go);
	cl_event_construct(&c.done);
	cl_event_init(&c.entered, FALSE);
	cl_event_init(&c.go, FALSE);
	cl_event_init(&c.done, FALSE);
	c.h = alloc_ok(AL_HDL_QP, &objs[8]);

	CU_ASSERT_EQUAL(cl_thread_init(&in, inside_thread, &c, "h_inside"), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&c.entered, TEST_WAIT_US, FALSE), CL_SUCCESS);
	CU_ASSERT_TRUE(c.enter_ok);
	CU_ASSERT_EQUAL(al_handle_inflight(c.h), 1);

	if (!use_free) {
		CU_ASSERT_TRUE(al_handle_invalidate(c.h));
		CU_ASSERT_FALSE(al_handle_invalidate(c.h));
		CU_ASSERT_PTR_NULL(al_handle_lookup(c.h, AL_HDL_QP));
		CU_ASSERT_PTR_NULL(al_handle_enter(c.h, AL_HDL_QP));
	}
	CU_ASSERT_EQUAL(cl_thread_init(&dr, drain_thread, &c, "h_drain"), CL_SUCCESS);
	/* The drain cannot finish while the thread is inside (a loose check:
	 * it can only miss a bug, not invent one). */
	CU_ASSERT_EQUAL(cl_event_wait_on(&c.done, 20000, FALSE), CL_TIMEOUT);
	CU_ASSERT_EQUAL(al_handle_inflight(c.h), 1);
	CU_ASSERT_PTR_NULL(al_handle_enter(c.h, AL_HDL_QP));

	cl_event_signal(&c.go);
	CU_ASSERT_EQUAL(cl_event_wait_on(&c.done, TEST_WAIT_US, FALSE), CL_SUCCESS);
	cl_thread_destroy(&in);
	cl_thread_destroy(&dr);
	if (use_free) {
		CU_ASSERT_EQUAL(c.free_status, IB_SUCCESS);
		CU_ASSERT_PTR_NULL(al_handle_lookup(c.h, AL_HDL_QP));
	} else {
		CU_ASSERT_EQUAL(al_handle_inflight(c.h), 0);
		CU_ASSERT_EQUAL(al_handle_free(c.h), IB_SUCCESS);
	}
	CU_ASSERT_EQUAL(al_handle_free(c.h), IB_INVALID_HANDLE);
	cl_event_destroy(&c.entered);
	cl_event_destroy(&c.go);
	cl_event_destroy(&c.done);
}

static void test_drain_waits_for_exit(void)
{
	drain_with_thread_inside(FALSE);
}

static void test_free_waits_for_exit(void)
{
	drain_with_thread_inside(TRUE);
}

/* ---- The data path's epochs (al_epoch.h) ---- */

typedef struct {
	al_handle_t h;
	void *p_seen;
	boolean_t entered_ok, nested_refused;
	cl_event_t entered, go, done;
	ib_api_status_t free_status;
} epoch_ctx_t;

static void CL_API epoch_inside_thread(void *context)
{
	epoch_ctx_t *c = (epoch_ctx_t *)context;
	al_epoch_rec_t *e = al_epoch_enter();

	c->entered_ok = e != NULL;
	if (e) {
		c->p_seen = al_handle_get_dp(c->h, AL_HDL_QP);
		/* Nested: refused (the caller would count itself in the handle),
		 * and the outer call stays protected. */
		c->nested_refused = al_epoch_enter() == NULL;
	}
	cl_event_signal(&c->entered);
	cl_event_wait_on(&c->go, TEST_WAIT_US, FALSE);
	if (e)
		al_epoch_exit(e);
}

static void CL_API epoch_free_thread(void *context)
{
	epoch_ctx_t *c = (epoch_ctx_t *)context;

	c->free_status = al_handle_free(c->h);
	cl_event_signal(&c->done);
}

/* A QP handle's free waits for a data-path call that found it live (no count
 * in the slot: only the thread's epoch says it is inside); a call that
 * starts after the invalidation does not find it. */
static void test_epoch_free_waits_for_call(void)
{
	epoch_ctx_t c;
	cl_thread_t in, fr;
	al_epoch_rec_t *e;

	cl_memclr(&c, sizeof(c));
	c.free_status = IB_ERROR;
	cl_event_construct(&c.entered);
	cl_event_construct(&c.go);
	cl_event_construct(&c.done);
	cl_event_init(&c.entered, FALSE);
	cl_event_init(&c.go, FALSE);
	cl_event_init(&c.done, FALSE);
	c.h = alloc_ok(AL_HDL_QP, &objs[9]);
	CU_ASSERT_EQUAL(cl_thread_init(&in, epoch_inside_thread, &c, "e_inside"), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&c.entered, TEST_WAIT_US, FALSE), CL_SUCCESS);
	CU_ASSERT_TRUE_FATAL(c.entered_ok); /* the host has private expedited membarrier */
	CU_ASSERT_TRUE(c.nested_refused);
	CU_ASSERT_PTR_EQUAL(c.p_seen, &objs[9]);
	CU_ASSERT_EQUAL(al_handle_inflight(c.h), 0);
	CU_ASSERT_EQUAL(cl_thread_init(&fr, epoch_free_thread, &c, "e_free"), CL_SUCCESS);
	/* The free cannot finish while the call is inside (a loose check: it
	 * can only miss a bug, not invent one)... */
	CU_ASSERT_EQUAL(cl_event_wait_on(&c.done, 20000, FALSE), CL_TIMEOUT);
	/* ...while a call starting now does not find the handle. */
	e = al_epoch_enter();
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_PTR_NULL(al_handle_get_dp(c.h, AL_HDL_QP));
	al_epoch_exit(e);
	cl_event_signal(&c.go);
	CU_ASSERT_EQUAL(cl_event_wait_on(&c.done, TEST_WAIT_US, FALSE), CL_SUCCESS);
	cl_thread_destroy(&in);
	cl_thread_destroy(&fr);
	CU_ASSERT_EQUAL(c.free_status, IB_SUCCESS);
	/* Wrong type, NULL, garbage: not found. */
	e = al_epoch_enter();
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_PTR_NULL(al_handle_get_dp(c.h, AL_HDL_QP));
	CU_ASSERT_PTR_NULL(al_handle_get_dp(AL_HANDLE_NULL, AL_HDL_QP));
	CU_ASSERT_PTR_NULL(al_handle_get_dp((al_handle_t)0xdeadbeefcafeull, AL_HDL_CQ));
	al_epoch_exit(e);
	/* A free with no call inside returns at once (and from a thread that
	 * never made one). */
	c.h = alloc_ok(AL_HDL_CQ, &objs[9]);
	CU_ASSERT_EQUAL(al_handle_free(c.h), IB_SUCCESS);
	cl_event_destroy(&c.entered);
	cl_event_destroy(&c.go);
	cl_event_destroy(&c.done);
}

typedef struct {
	al_handle_t h;
	uint64_t snap;
	cl_event_t done;
} drain_ctx_t;

static void CL_API drain_since_thread(void *context)
{
	drain_ctx_t *d = (drain_ctx_t *)context;

	al_handle_drain_since(d->h, d->snap);
	cl_event_signal(&d->done);
}

/* Starts al_handle_drain_since(h, snap) on a thread of its own; returns
 * whether it ended within @p wait_us (it goes on otherwise: drain_join()). */
static boolean_t drain_since_ends(cl_thread_t *t, drain_ctx_t *d, al_handle_t h, uint64_t snap,
				  uint32_t wait_us)
{
	d->h = h;
	d->snap = snap;
	cl_event_construct(&d->done);
	cl_event_init(&d->done, TRUE); /* manual reset: drain_join() waits again */
	CU_ASSERT_EQUAL_FATAL(cl_thread_init(t, drain_since_thread, d, "drain"), CL_SUCCESS);
	return cl_event_wait_on(&d->done, wait_us, FALSE) == CL_SUCCESS;
}

static void drain_join(cl_thread_t *t, drain_ctx_t *d)
{
	CU_ASSERT_EQUAL(cl_event_wait_on(&d->done, TEST_WAIT_US, FALSE), CL_SUCCESS);
	cl_thread_destroy(t);
	cl_event_destroy(&d->done);
}

/*
 * Numbered grace periods: a drain whose handle was invalidated before a
 * grace period began that has ended since waits for none of its own (no
 * membarrier, not even for a call inside now, which cannot have seen the
 * handle live); with a snapshot taken after that grace period, or none, it
 * waits for every call inside.
 */
static void test_epoch_shared_grace_period(void)
{
	epoch_ctx_t c;
	cl_thread_t in, dt;
	drain_ctx_t d;
	al_handle_t h = alloc_ok(AL_HDL_QP, &objs[10]);
	uint64_t snap, n0;

	CU_ASSERT_TRUE(al_handle_invalidate(h));
	snap = al_epoch_snapshot();
	n0 = al_epoch_grace_periods();
	CU_ASSERT_EQUAL(snap, n0 + 1);
	al_epoch_synchronize(); /* another destroy's grace period, after the snapshot */
	CU_ASSERT_EQUAL(al_epoch_grace_periods(), n0 + 1);
	/* A thread in a data-path call (of another object) from now on. */
	cl_memclr(&c, sizeof(c));
	c.h = alloc_ok(AL_HDL_CQ, &objs[11]);
	cl_event_construct(&c.entered);
	cl_event_construct(&c.go);
	cl_event_init(&c.entered, FALSE);
	cl_event_init(&c.go, FALSE);
	CU_ASSERT_EQUAL_FATAL(cl_thread_init(&in, epoch_inside_thread, &c, "e_inside"), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&c.entered, TEST_WAIT_US, FALSE), CL_SUCCESS);
	CU_ASSERT_TRUE_FATAL(c.entered_ok);
	/* The drain of the first handle takes the ended grace period. */
	CU_ASSERT_TRUE(drain_since_ends(&dt, &d, h, snap, TEST_WAIT_US));
	drain_join(&dt, &d);
	CU_ASSERT_EQUAL(al_epoch_grace_periods(), n0 + 1);
	/* With a snapshot of now, or none, it waits for the call inside (a
	 * loose check: it can only miss a bug, not invent one). */
	CU_ASSERT_FALSE(drain_since_ends(&dt, &d, h, al_epoch_snapshot(), 20000));
	cl_event_signal(&c.go);
	drain_join(&dt, &d);
	cl_thread_destroy(&in);
	CU_ASSERT_EQUAL(al_epoch_grace_periods(), n0 + 2);
	cl_event_reset(&c.go);
	cl_event_reset(&c.entered);
	CU_ASSERT_EQUAL_FATAL(cl_thread_init(&in, epoch_inside_thread, &c, "e_inside"), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&c.entered, TEST_WAIT_US, FALSE), CL_SUCCESS);
	CU_ASSERT_FALSE(drain_since_ends(&dt, &d, h, AL_EPOCH_NO_SNAPSHOT, 20000));
	cl_event_signal(&c.go);
	drain_join(&dt, &d);
	cl_thread_destroy(&in);
	CU_ASSERT_EQUAL(al_epoch_grace_periods(), n0 + 3);
	CU_ASSERT_EQUAL(al_handle_free(h), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_handle_free(c.h), IB_SUCCESS);
	cl_event_destroy(&c.entered);
	cl_event_destroy(&c.go);
}

/* The data-path cache: written with the handle, found through the slot;
 * a handle allocated without one has it zeroed. */
static void test_dp_cache(void)
{
	al_handle_dp_t dp, *p_none;
	const al_handle_slot_t *p_slot;
	al_epoch_rec_t *e;
	al_handle_t h, h2;

	memset(&dp, 0, sizeof(dp));
	dp.p_prov = &objs[10];
	dp.pfn[0] = (al_dp_fn_t)test_dp_cache;
	dp.pfn[3] = (al_dp_fn_t)alloc_ok;
	CU_ASSERT_EQUAL(al_handle_alloc_dp(AL_HDL_CQ, &objs[11], NULL, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL_FATAL(al_handle_alloc_dp(AL_HDL_CQ, &objs[11], &dp, &h), IB_SUCCESS);
	h2 = alloc_ok(AL_HDL_CQ, &objs[12]);
	e = al_epoch_enter();
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	p_slot = al_handle_dp_slot(h, AL_HDL_CQ);
	CU_ASSERT_TRUE(al_handle_dp_live(p_slot, h));
	CU_ASSERT_PTR_EQUAL(p_slot->dp.p_prov, &objs[10]);
	CU_ASSERT(p_slot->dp.pfn[0] == (al_dp_fn_t)test_dp_cache);
	CU_ASSERT(p_slot->dp.pfn[1] == NULL);
	CU_ASSERT(p_slot->dp.pfn[3] == (al_dp_fn_t)alloc_ok);
	CU_ASSERT_PTR_EQUAL(al_handle_get_dp(h, AL_HDL_CQ), &objs[11]);
	p_none = (al_handle_dp_t *)&al_handle_dp_slot(h2, AL_HDL_CQ)->dp;
	CU_ASSERT_PTR_NULL(p_none->p_prov);
	CU_ASSERT(p_none->pfn[0] == NULL);
	/* The CQ's slot is not a QP's: the same bits looked up as a QP fail,
	 * as do the handle with its type bits changed. */
	CU_ASSERT_FALSE(al_handle_dp_live(al_handle_dp_slot(h, AL_HDL_QP), h));
	CU_ASSERT_PTR_NULL(al_handle_get_dp(h ^ (AL_HDL_CQ ^ AL_HDL_QP), AL_HDL_QP));
	CU_ASSERT_PTR_NULL(al_handle_get_dp(h ^ (AL_HDL_CQ ^ AL_HDL_QP), AL_HDL_CQ));
	CU_ASSERT_PTR_NULL(al_handle_get_dp(h & ~AL_HANDLE_LIVE, AL_HDL_CQ));
	al_epoch_exit(e);
	CU_ASSERT_TRUE(al_handle_invalidate(h));
	e = al_epoch_enter();
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_PTR_NULL(al_handle_get_dp(h, AL_HDL_CQ));
	al_epoch_exit(e);
	CU_ASSERT_EQUAL(al_handle_free(h), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_handle_free(h2), IB_SUCCESS);
}

/* Any value looked up on the data path reads a slot of the type's region
 * and matches nothing (no handle is live): the bits of each field garbage,
 * one at a time and all together. */
static void test_dp_garbage(void)
{
	static const al_handle_type_t types[] = { AL_HDL_QP, AL_HDL_SRQ, AL_HDL_CQ };
	uint64_t x = 0x2545F4914F6CDD1Dull;
	al_handle_t h, live = alloc_ok(AL_HDL_QP, &objs[13]);
	al_epoch_rec_t *e;
	int i, t, found = 0, b;

	CU_ASSERT_EQUAL_FATAL(al_handle_free(live), IB_SUCCESS); /* a stale value */
	e = al_epoch_enter();
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	for (t = 0; t < 3; t++) {
		if (al_handle_get_dp(live, types[t]) || al_handle_get_dp(AL_HANDLE_NULL, types[t]) ||
		    al_handle_get_dp(~(al_handle_t)0, types[t]))
			found++;
		for (b = 0; b < (int)sizeof(al_handle_t) * 8; b++)
			if (al_handle_get_dp(live ^ ((al_handle_t)1 << b), types[t]) ||
			    al_handle_get_dp((al_handle_t)1 << b, types[t]))
				found++;
		for (i = 0; i < 100000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			h = (al_handle_t)x;
			if (i % 2)
				h = (h & ~AL_HANDLE_FORM_MASK & ~AL_HANDLE_TYPE_MASK) | AL_HANDLE_LIVE |
				    types[t];
			if (al_handle_get_dp(h, types[t]))
				found++;
		}
	}
	al_epoch_exit(e);
	CU_ASSERT_EQUAL(found, 0);
}

/* ---- Lookups racing allocation and release ---- */

enum { PRODUCERS = 2, READERS = 2, OBJS = 8, ROUNDS = 4000, MIN_HITS = 2000 };

typedef struct {
	al_handle_t h; /* atomic: the object's current handle */
} racy_obj_t;

static racy_obj_t racy[PRODUCERS][OBJS];
static al_handle_t published[PRODUCERS][OBJS]; /* atomic */
static int racing;                               /* atomic */
static long race_errors, race_hits;              /* atomic */
static int readers_started;                      /* atomic */
static cl_event_t readers_ready;

static void CL_API producer(void *context)
{
	int p = (int)(intptr_t)context, r, k;
	al_handle_t h;

	/* At least ROUNDS rounds, and more until the readers have found live
	 * handles often enough (bounded, for a starved machine). */
	for (r = 0; r < ROUNDS || (__atomic_load_n(&race_hits, __ATOMIC_RELAXED) < MIN_HITS &&
				   r < ROUNDS * 100);
	     r++) {
		for (k = 0; k < OBJS; k++) {
			h = __atomic_load_n(&published[p][k], __ATOMIC_RELAXED);
			if (h != AL_HANDLE_NULL && al_handle_free(h) != IB_SUCCESS)
				__atomic_add_fetch(&race_errors, 1, __ATOMIC_RELAXED);
			if (al_handle_alloc(AL_HDL_QP, &racy[p][k], &h) != IB_SUCCESS) {
				__atomic_add_fetch(&race_errors, 1, __ATOMIC_RELAXED);
				h = AL_HANDLE_NULL;
			}
			/* The object learns its handle before anyone else can. */
			__atomic_store_n(&racy[p][k].h, h, __ATOMIC_RELEASE);
			__atomic_store_n(&published[p][k], h, __ATOMIC_RELEASE);
		}
	}
}

static void CL_API reader(void *context)
{
	unsigned x = (unsigned)(uintptr_t)context * 2654435761u + 1;
	racy_obj_t *p_obj;
	al_epoch_rec_t *e;
	al_handle_t h;
	int p, k;

	if (__atomic_add_fetch(&readers_started, 1, __ATOMIC_ACQ_REL) == READERS)
		cl_event_signal(&readers_ready);
	while (__atomic_load_n(&racing, __ATOMIC_ACQUIRE)) {
		x = x * 1103515245u + 12345u;
		p = (int)((x >> 16) % PRODUCERS);
		k = (int)((x >> 20) % OBJS);
		h = __atomic_load_n(&published[p][k], __ATOMIC_ACQUIRE);
		/* Entered, the handle cannot be freed: the object is h's. */
		p_obj = (racy_obj_t *)al_handle_enter(h, AL_HDL_QP);
		if (p_obj) {
			if (p_obj != &racy[p][k] || __atomic_load_n(&p_obj->h, __ATOMIC_ACQUIRE) != h)
				__atomic_add_fetch(&race_errors, 1, __ATOMIC_RELAXED);
			al_handle_exit(h);
			__atomic_add_fetch(&race_hits, 1, __ATOMIC_RELAXED);
		}
		/* Inside a data-path epoch: the object found stays h's until the exit. */
		e = al_epoch_enter();
		if (!e) {
			__atomic_add_fetch(&race_errors, 1, __ATOMIC_RELAXED);
		} else {
			p_obj = (racy_obj_t *)al_handle_get_dp(h, AL_HDL_QP);
			if (p_obj && (p_obj != &racy[p][k] ||
				      __atomic_load_n(&p_obj->h, __ATOMIC_ACQUIRE) != h))
				__atomic_add_fetch(&race_errors, 1, __ATOMIC_RELAXED);
			al_epoch_exit(e);
		}
		/* Not entered: whatever is found must be the slot's object. */
		p_obj = (racy_obj_t *)al_handle_lookup(h, AL_HDL_QP);
		if (p_obj && p_obj != &racy[p][k])
			__atomic_add_fetch(&race_errors, 1, __ATOMIC_RELAXED);
		/* A stale handle of another type never matches. */
		if (al_handle_lookup(h, AL_HDL_CQ))
			__atomic_add_fetch(&race_errors, 1, __ATOMIC_RELAXED);
	}
}

static void test_concurrent_lookup(void)
{
	cl_thread_t prod[PRODUCERS], rd[READERS];
	uint32_t base = al_handle_count();
	int i, k;

	cl_event_construct(&readers_ready);
	cl_event_init(&readers_ready, FALSE);
	__atomic_store_n(&racing, 1, __ATOMIC_RELEASE);
	for (i = 0; i < READERS; i++)
		CU_ASSERT_EQUAL(cl_thread_init(&rd[i], reader, (void *)(intptr_t)i, "h_reader"),
				CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&readers_ready, TEST_WAIT_US, FALSE), CL_SUCCESS);
	for (i = 0; i < PRODUCERS; i++)
		CU_ASSERT_EQUAL(cl_thread_init(&prod[i], producer, (void *)(intptr_t)i, "h_prod"),
				CL_SUCCESS);
	for (i = 0; i < PRODUCERS; i++)
		cl_thread_destroy(&prod[i]);
	__atomic_store_n(&racing, 0, __ATOMIC_RELEASE);
	for (i = 0; i < READERS; i++)
		cl_thread_destroy(&rd[i]);

	cl_event_destroy(&readers_ready);
	CU_ASSERT_EQUAL(race_errors, 0);
	CU_ASSERT(race_hits >= MIN_HITS);
	for (i = 0; i < PRODUCERS; i++)
		for (k = 0; k < OBJS; k++)
			CU_ASSERT_EQUAL(al_handle_free(published[i][k]), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_handle_count(), base);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_encoding),
	TEST_ENTRY(test_every_type),
	TEST_ENTRY(test_alloc_lookup_free),
	TEST_ENTRY(test_wrong_type),
	TEST_ENTRY(test_invalid_parameters),
	TEST_ENTRY(test_stale_after_reuse),
	TEST_ENTRY(test_fifo_reuse),
	TEST_ENTRY(test_many_handles),
	TEST_ENTRY(test_chunk_resident),
	TEST_ENTRY(test_null_and_garbage),
	TEST_ENTRY(test_nested_enter),
	TEST_ENTRY(test_drain_waits_for_exit),
	TEST_ENTRY(test_free_waits_for_exit),
	TEST_ENTRY(test_epoch_free_waits_for_call),
	TEST_ENTRY(test_epoch_shared_grace_period),
	TEST_ENTRY(test_dp_cache),
	TEST_ENTRY(test_dp_garbage),
	TEST_ENTRY(test_concurrent_lookup),
};

TEST_MAIN("al_handle", tests)
