/*
 * ibal tests: two soft CAs with a PD on each, driven through soft_prov_ops,
 * and the waits every soft HCA test makes on them.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Included by the soft HCA's tests of verbs and transports (test_soft_hca,
 * test_soft_ud through soft_hca_fixture.h, test_soft_rc, test_soft_mcast).
 * Each test calls up() first and down() last: the test gets a fabric
 * directory of its own (soft_fab_fixture.h), the provider's upcalls go to
 * the recorder (upcall_rec.h); down() also removes a drop filter the test
 * installed. Waits are bounded condition waits on the recorder
 * (TEST_WAIT_US), never sleeps.
 */
#ifndef TESTS_SOFT_CA_FIXTURE_H
#define TESTS_SOFT_CA_FIXTURE_H

#include "soft_fab_fixture.h"

static void *ca[2];
static void *pd[2];
static ib_net64_t guids[2];

static inline void up(void)
{
	size_t n = 2;
	int i;

	test_fixture_up = 1;
	fab_begin();
	CU_ASSERT_EQUAL_FATAL(ops->init(&rec_upcalls), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ops->get_ca_guids(guids, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(ops->open_ca(guids[i], &ca[i], &ca[i]), IB_SUCCESS);
		CU_ASSERT_EQUAL_FATAL(ops->alloc_pd(ca[i], IB_PDT_NORMAL, &pd[i]), IB_SUCCESS);
	}
}

static inline void down(void)
{
	int i;

	soft_fabric_set_drop_filter(NULL, NULL);
	for (i = 0; i < 2; i++) {
		ops->dealloc_pd(pd[i]);
		ops->close_ca(ca[i]);
	}
	ops->cleanup();
	fab_end();
	test_fixture_up = 0;
}

/* The LID of port 1 of CA @p ci. */
static inline uint16_t ca_lid(int ci)
{
	return ((soft_ca_t *)ca[ci])->port[0].lid;
}

/*
 * Polls one completion of @p cq into @p wc, waiting (armed, bounded) for
 * it. @p tag is the CQ's context, whose completion upcalls are waited for;
 * NULL: any CQ's. Returns 0 if none came within TEST_WAIT_US (looked for
 * once more after the wait).
 */
static inline int wait_wc(void *cq, void *tag, ib_wc_t *wc)
{
	ib_wc_t *free_l, *done;
	unsigned seen;
	int timed_out = 0;

	for (;;) {
		free_l = wc;
		wc->p_next = NULL;
		if (ops->poll_cq(cq, &free_l, &done) == IB_SUCCESS)
			return 1;
		if (timed_out)
			return 0;
		seen = rec_comps(tag);
		CU_ASSERT_EQUAL(ops->rearm_cq(cq, FALSE), IB_SUCCESS);
		free_l = wc;
		wc->p_next = NULL;
		if (ops->poll_cq(cq, &free_l, &done) == IB_SUCCESS)
			return 1;
		timed_out = rec_wait_comps(tag, seen + 1) <= seen;
	}
}

/* Whether @p cq holds no completion. */
static inline int cq_empty(void *cq)
{
	uint32_t n = 99;

	CU_ASSERT_EQUAL(ops->peek_cq(cq, &n), IB_SUCCESS);
	return n == 0;
}

#endif /* TESTS_SOFT_CA_FIXTURE_H */
