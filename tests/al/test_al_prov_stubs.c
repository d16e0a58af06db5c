/*
 * ibal tests: the stubs that fill a provider's empty slots (core/al/al_prov_stubs.c).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <string.h>
#include "../common/cl_test.h"
#include "al_prov.h"

typedef void (*slot_t)(void);

static ib_api_status_t my_query_qp(void *qp, ib_qp_attr_t *p_attr)
{
	(void)qp;
	(void)p_attr;
	return IB_SUCCESS;
}

/* Every slot of a filled table is set, whatever the source left empty. */
static void test_every_slot_set(void)
{
	al_prov_ops_t t;
	size_t off;

	al_prov_fill(&t, NULL);
	CU_ASSERT_EQUAL(t.size, sizeof(al_prov_ops_t));
	CU_ASSERT_STRING_EQUAL(t.name, "none");
	for (off = offsetof(al_prov_ops_t, init); off < sizeof(t); off += sizeof(slot_t)) {
		slot_t f;

		memcpy(&f, (const char *)&t + off, sizeof(f));
		CU_ASSERT_PTR_NOT_NULL(f);
		CU_ASSERT_FALSE(al_prov_has(&t, off));
	}
	CU_ASSERT_FALSE(al_prov_has(&t, 0)); /* size and name are not slots */
	CU_ASSERT_FALSE(al_prov_has(&t, sizeof(t)));
	CU_ASSERT_FALSE(al_prov_has(NULL, offsetof(al_prov_ops_t, init)));
}

/* The stubs answer IB_UNSUPPORTED, do nothing, or (init, get_ca_guids) succeed with nothing. */
static void test_stub_answers(void)
{
	al_prov_ops_t t;
	ib_net64_t guid;
	size_t n = 1;
	uint32_t size = 0, cqes = 0;
	void *obj = NULL;
	ib_wc_t wc, *free_l = &wc, *done = NULL;

	al_prov_fill(&t, NULL);
	CU_ASSERT_EQUAL(t.init(NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(t.get_ca_guids(&guid, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_EQUAL(t.open_ca(0, NULL, &obj), IB_UNSUPPORTED);
	CU_ASSERT_EQUAL(t.query_ca(NULL, NULL, &size), IB_UNSUPPORTED);
	CU_ASSERT_EQUAL(t.create_cq(NULL, &size, NULL, &obj), IB_UNSUPPORTED);
	CU_ASSERT_EQUAL(t.post_send(NULL, NULL, NULL), IB_UNSUPPORTED);
	CU_ASSERT_EQUAL(t.poll_cq(NULL, &free_l, &done), IB_UNSUPPORTED);
	CU_ASSERT_EQUAL(t.peek_cq(NULL, &cqes), IB_UNSUPPORTED);
	CU_ASSERT_EQUAL(t.rearm_n_cq(NULL, 1), IB_UNSUPPORTED);
	CU_ASSERT_EQUAL(t.dereg_mr(NULL), IB_UNSUPPORTED);
	t.close_ca(NULL); /* slots returning nothing do nothing */
	t.destroy_qp(NULL);
	t.cleanup();
	CU_ASSERT_PTR_NULL(obj);
	CU_ASSERT_PTR_EQUAL(free_l, &wc);
	CU_ASSERT_PTR_NULL(done);
}

/* A provider's own slots and name are kept, and AL_PROV_HAS tells them from stubs. */
static void test_own_slots_kept(void)
{
	static const al_prov_ops_t src = {
		.size = sizeof(al_prov_ops_t),
		.name = "mine",
		.query_qp = my_query_qp,
	};
	al_prov_ops_t t;

	al_prov_fill(&t, &src);
	CU_ASSERT_STRING_EQUAL(t.name, "mine");
	CU_ASSERT_PTR_EQUAL(t.query_qp, my_query_qp);
	CU_ASSERT_TRUE(AL_PROV_HAS(&t, query_qp));
	CU_ASSERT_FALSE(AL_PROV_HAS(&t, modify_qp));
	CU_ASSERT_EQUAL(t.modify_qp(NULL, NULL), IB_UNSUPPORTED);
	/* The built-in providers' tables load too. */
	al_prov_fill(&t, &soft_prov_ops);
	CU_ASSERT_TRUE(AL_PROV_HAS(&t, post_send));
	CU_ASSERT_TRUE(AL_PROV_HAS(&t, poll_cq));
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_every_slot_set),
	TEST_ENTRY(test_stub_answers),
	TEST_ENTRY(test_own_slots_kept),
};

int main(void)
{
	return test_run_suite("al_prov_stubs", tests, TEST_COUNT(tests));
}
