/*
 * ibal tests: cl_reqmgr.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_reqmgr.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/mem_track.h"

/* The object source the manager asks: a plain count. */
typedef struct {
	size_t available;
	unsigned calls;
} source_t;

static size_t CL_API get_count(void *context)
{
	source_t *s = (source_t *)context;

	s->calls++;
	return s->available;
}

static void CL_API cb_a(void) {}
static void CL_API cb_b(void) {}

static int ctx1, ctx2, ctx3, ctx4;

static void mgr_init(cl_req_mgr_t *m, source_t *s, size_t available)
{
	s->available = available;
	s->calls = 0;
	cl_req_mgr_construct(m);
	CU_ASSERT_EQUAL_FATAL(cl_req_mgr_init(m, get_count, s), CL_SUCCESS);
}

/* Resume's outputs, preset to values resume must overwrite. */
typedef struct {
	size_t count;
	cl_pfn_req_cb_t cb;
	const void *c1, *c2;
} resume_t;

static cl_status_t resume(cl_req_mgr_t *m, resume_t *r)
{
	r->count = 12345;
	r->cb = NULL;
	r->c1 = r->c2 = NULL;
	return cl_req_mgr_resume(m, &r->count, &r->cb, &r->c1, &r->c2);
}

static void test_construct_destroy(void)
{
	cl_req_mgr_t m;

	test_track_begin();
	cl_req_mgr_construct(&m);
	cl_req_mgr_destroy(&m);
	test_track_end();
}

static void test_sync(void)
{
	cl_req_mgr_t m;
	source_t s;
	size_t n;

	test_track_begin();
	mgr_init(&m, &s, 5);
	n = 5;
	CU_ASSERT_EQUAL(cl_req_mgr_get(&m, &n, REQ_GET_SYNC, cb_a, &ctx1, &ctx2), CL_SUCCESS);
	CU_ASSERT_EQUAL(n, 5u);
	CU_ASSERT_EQUAL(s.calls, 1u);
	n = 6;
	CU_ASSERT_EQUAL(cl_req_mgr_get(&m, &n, REQ_GET_SYNC, cb_a, &ctx1, &ctx2),
			CL_INSUFFICIENT_RESOURCES);
	/* A failed synchronous request leaves nothing queued. */
	CU_ASSERT_TRUE(cl_is_qlist_empty(&m.request_queue));
	{
		resume_t r;

		CU_ASSERT_EQUAL(resume(&m, &r), CL_NOT_DONE);
		CU_ASSERT_EQUAL(r.count, 12345u);	/* untouched */
	}
	cl_req_mgr_destroy(&m);
	test_track_end();
}

/* A queued request blocks later ones, synchronous ones included, even when
 * they could be met. */
static void test_async_queue_blocks_later_requests(void)
{
	cl_req_mgr_t m;
	source_t s;
	resume_t r;
	size_t n;

	test_track_begin();
	mgr_init(&m, &s, 3);
	n = 4;
	CU_ASSERT_EQUAL(cl_req_mgr_get(&m, &n, REQ_GET_ASYNC, cb_a, &ctx1, &ctx2), CL_PENDING);
	CU_ASSERT_EQUAL(n, 0u);	/* all or nothing */
	n = 1;
	CU_ASSERT_EQUAL(cl_req_mgr_get(&m, &n, REQ_GET_SYNC, cb_b, &ctx3, &ctx4),
			CL_INSUFFICIENT_RESOURCES);
	n = 1;
	CU_ASSERT_EQUAL(cl_req_mgr_get(&m, &n, REQ_GET_ASYNC, cb_b, &ctx3, &ctx4), CL_PENDING);
	CU_ASSERT_EQUAL(n, 0u);
	CU_ASSERT_EQUAL(cl_qlist_count(&m.request_queue), 2u);

	/* The head cannot proceed yet: its details are still reported. */
	CU_ASSERT_EQUAL(resume(&m, &r), CL_INSUFFICIENT_RESOURCES);
	CU_ASSERT_PTR_EQUAL(r.cb, cb_a);
	CU_ASSERT_PTR_EQUAL(r.c1, &ctx1);
	CU_ASSERT_PTR_EQUAL(r.c2, &ctx2);

	s.available = 4;
	CU_ASSERT_EQUAL(resume(&m, &r), CL_SUCCESS);
	CU_ASSERT_EQUAL(r.count, 4u);
	CU_ASSERT_PTR_EQUAL(r.cb, cb_a);
	/* The caller took 4 objects; one comes back later. */
	s.available = 1;
	CU_ASSERT_EQUAL(resume(&m, &r), CL_SUCCESS);
	CU_ASSERT_EQUAL(r.count, 1u);
	CU_ASSERT_PTR_EQUAL(r.cb, cb_b);
	CU_ASSERT_PTR_EQUAL(r.c1, &ctx3);
	CU_ASSERT_PTR_EQUAL(r.c2, &ctx4);
	CU_ASSERT_EQUAL(resume(&m, &r), CL_NOT_DONE);
	cl_req_mgr_destroy(&m);
	test_track_end();
}

static void test_partial(void)
{
	cl_req_mgr_t m;
	source_t s;
	resume_t r;
	size_t n;

	test_track_begin();
	mgr_init(&m, &s, 3);
	/* Nothing queued: take the 3 available now, queue the other 7. */
	n = 10;
	CU_ASSERT_EQUAL(cl_req_mgr_get(&m, &n, REQ_GET_PARTIAL_OK, cb_a, &ctx1, &ctx2),
			CL_PENDING);
	CU_ASSERT_EQUAL(n, 3u);
	/* The caller took them. A partial request behind a queued one is
	 * queued whole and gets nothing now. */
	s.available = 2;
	n = 2;
	CU_ASSERT_EQUAL(cl_req_mgr_get(&m, &n, REQ_GET_PARTIAL_OK, cb_b, &ctx3, &ctx4),
			CL_PENDING);
	CU_ASSERT_EQUAL(n, 0u);

	/* The first request gets what there is, part by part. */
	CU_ASSERT_EQUAL(resume(&m, &r), CL_PENDING);
	CU_ASSERT_EQUAL(r.count, 2u);
	CU_ASSERT_PTR_EQUAL(r.cb, cb_a);
	s.available = 0;
	CU_ASSERT_EQUAL(resume(&m, &r), CL_PENDING);
	CU_ASSERT_EQUAL(r.count, 0u);
	s.available = 4;
	CU_ASSERT_EQUAL(resume(&m, &r), CL_PENDING);
	CU_ASSERT_EQUAL(r.count, 4u);
	s.available = 9;
	CU_ASSERT_EQUAL(resume(&m, &r), CL_SUCCESS);
	CU_ASSERT_EQUAL(r.count, 1u);	/* 7 = 2 + 0 + 4 + 1 */
	/* The second one was queued whole, without partial grants. */
	s.available = 1;
	CU_ASSERT_EQUAL(resume(&m, &r), CL_INSUFFICIENT_RESOURCES);
	CU_ASSERT_PTR_EQUAL(r.cb, cb_b);
	s.available = 2;
	CU_ASSERT_EQUAL(resume(&m, &r), CL_SUCCESS);
	CU_ASSERT_EQUAL(r.count, 2u);
	CU_ASSERT_EQUAL(resume(&m, &r), CL_NOT_DONE);
	cl_req_mgr_destroy(&m);
	test_track_end();
}

/* Partial with enough available is an immediate success. */
static void test_partial_immediate(void)
{
	cl_req_mgr_t m;
	source_t s;
	size_t n;

	test_track_begin();
	mgr_init(&m, &s, 8);
	n = 8;
	CU_ASSERT_EQUAL(cl_req_mgr_get(&m, &n, REQ_GET_PARTIAL_OK, cb_a, NULL, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(n, 8u);
	CU_ASSERT_TRUE(cl_is_qlist_empty(&m.request_queue));
	cl_req_mgr_destroy(&m);
	test_track_end();
}

/* The request storage grows past its initial size, and destroy releases
 * queued requests. */
static void test_many_queued_then_destroy(void)
{
	cl_req_mgr_t m;
	source_t s;
	size_t n;
	int i;

	test_track_begin();
	mgr_init(&m, &s, 0);
	for (i = 0; i < 100; i++) {
		n = 1;
		CU_ASSERT_EQUAL(cl_req_mgr_get(&m, &n, REQ_GET_ASYNC, cb_a, NULL, NULL),
				CL_PENDING);
	}
	CU_ASSERT_EQUAL(cl_qlist_count(&m.request_queue), 100u);
	cl_req_mgr_destroy(&m);
	test_track_end();
}

/* Resume meets requests strictly in FIFO order. */
static void test_fifo_resume(void)
{
	static int ctx[20];
	cl_req_mgr_t m;
	source_t s;
	resume_t r;
	size_t n;
	int i;

	test_track_begin();
	mgr_init(&m, &s, 0);
	for (i = 0; i < 20; i++) {
		n = (size_t)i + 1;
		CU_ASSERT_EQUAL(cl_req_mgr_get(&m, &n, REQ_GET_ASYNC, cb_a, &ctx[i], NULL),
				CL_PENDING);
	}
	s.available = 1000;
	for (i = 0; i < 20; i++) {
		CU_ASSERT_EQUAL(resume(&m, &r), CL_SUCCESS);
		CU_ASSERT_EQUAL(r.count, (size_t)i + 1);
		CU_ASSERT_PTR_EQUAL(r.c1, &ctx[i]);
		CU_ASSERT_PTR_NULL(r.c2);
	}
	CU_ASSERT_EQUAL(resume(&m, &r), CL_NOT_DONE);
	cl_req_mgr_destroy(&m);
	test_track_end();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_construct_destroy),
	TEST_ENTRY(test_sync),
	TEST_ENTRY(test_async_queue_blocks_later_requests),
	TEST_ENTRY(test_partial),
	TEST_ENTRY(test_partial_immediate),
	TEST_ENTRY(test_many_queued_then_destroy),
	TEST_ENTRY(test_fifo_resume),
};

TEST_MAIN("cl_reqmgr", tests)
