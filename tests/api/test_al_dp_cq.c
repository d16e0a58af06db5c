/*
 * ibal tests: the CQ calls through the public API, on the provider the environment names (soft, or verbs on rxe).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * ib_poll_cq() with free lists of every length, ib_peek_cq(), completion
 * callbacks and their arming (ib_rearm_cq, solicited only), ib_rearm_n_cq(),
 * and CQs that notify a wait object. As test_al_dp.c (see there and
 * dp_fixture.h): one program for every provider, a private soft fabric in
 * `make check`, the first verbs CA with IBAL_PROVIDERS=verbs (77 without
 * one). ib_peek_cq() and ib_rearm_n_cq() are optional for adapters
 * (IB_UNSUPPORTED): required on soft, accepted as unsupported elsewhere.
 */
#include "../common/dp_fixture.h"

/* ib_poll_cq() with a free list shorter and longer than what is there;
 * ib_peek_cq() counts. */
static void test_cq_poll_lists(void)
{
	ib_wc_t wcs[4], *p_free, *p_done, *w;
	uint32_t n = 99;
	dp_qp_t *a, *b;
	int i, peek;

	dp_up();
	dp_pair(IB_QPT_RELIABLE_CONN, NULL, &a, &b);
	for (i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(dp_recv(b, (uint64_t)i, DP_AT(8 + i), 64), IB_SUCCESS);
	for (i = 0; i < 5; i++) {
		dp_fill(DP_AT(0) + 64 * i, 32, 60 + (uint32_t)i);
		CU_ASSERT_EQUAL(dp_send(a, 10 + (uint64_t)i, DP_AT(0) + 64 * i, 32, 0), IB_SUCCESS);
	}
	for (i = 0; i < 5; i++)
		DP_EXPECT(a->scq, 10 + (uint64_t)i, IB_WCS_SUCCESS, IB_WC_SEND, 32, NULL);
	/* The sends are acknowledged; the receives are (or, where the CA
	 * cannot peek, are taken to be) in b's CQ. */
	peek = dp_wait_cqes(b->rcq, 5);
	if (peek >= 0)
		CU_ASSERT_EQUAL(peek, 5);

	/* Three elements for five completions: three taken, the list used up. */
	wcs[0].p_next = &wcs[1];
	wcs[1].p_next = &wcs[2];
	wcs[2].p_next = NULL;
	p_free = wcs;
	p_done = NULL;
	CU_ASSERT_EQUAL_FATAL(ib_poll_cq(b->rcq->h, &p_free, &p_done), IB_SUCCESS);
	CU_ASSERT_PTR_NULL(p_free);
	CU_ASSERT_PTR_EQUAL(p_done, &wcs[0]);
	for (i = 0, w = p_done; w; w = w->p_next, i++) {
		CU_ASSERT_EQUAL(w->wr_id, (uint64_t)i);
		CU_ASSERT_EQUAL(w->status, IB_WCS_SUCCESS);
		CU_ASSERT_EQUAL(w->wc_type, IB_WC_RECV);
		CU_ASSERT_EQUAL(w->length, 32);
		CU_ASSERT_EQUAL(dp_diff(DP_AT(8 + i), 32, 60 + (uint32_t)i), -1);
	}
	CU_ASSERT_EQUAL(i, 3);
	if (peek >= 0) {
		CU_ASSERT_EQUAL(ib_peek_cq(b->rcq->h, &n), IB_SUCCESS);
		CU_ASSERT_EQUAL(n, 2);
	}

	/* Four elements for two: two taken, the other two handed back. */
	for (i = 0; i < 3; i++)
		wcs[i].p_next = &wcs[i + 1];
	wcs[3].p_next = NULL;
	p_free = wcs;
	p_done = NULL;
	CU_ASSERT_EQUAL_FATAL(ib_poll_cq(b->rcq->h, &p_free, &p_done), IB_SUCCESS);
	CU_ASSERT_PTR_EQUAL(p_done, &wcs[0]);
	CU_ASSERT_PTR_EQUAL(wcs[0].p_next, &wcs[1]);
	CU_ASSERT_PTR_NULL(wcs[1].p_next);
	CU_ASSERT_EQUAL(wcs[0].wr_id, 3);
	CU_ASSERT_EQUAL(wcs[1].wr_id, 4);
	CU_ASSERT_EQUAL(dp_diff(DP_AT(12), 32, 64), -1);
	CU_ASSERT_PTR_EQUAL(p_free, &wcs[2]);
	CU_ASSERT_PTR_EQUAL(wcs[2].p_next, &wcs[3]);
	CU_ASSERT_PTR_NULL(wcs[3].p_next);

	/* Empty: IB_NOT_FOUND, the free list untouched, nothing done. */
	p_done = &wcs[0];
	CU_ASSERT_EQUAL(ib_poll_cq(b->rcq->h, &p_free, &p_done), IB_NOT_FOUND);
	CU_ASSERT_PTR_EQUAL(p_free, &wcs[2]);
	CU_ASSERT_PTR_EQUAL(wcs[2].p_next, &wcs[3]);
	CU_ASSERT_PTR_NULL(p_done);
	if (peek >= 0) {
		CU_ASSERT_EQUAL(ib_peek_cq(b->rcq->h, &n), IB_SUCCESS);
		CU_ASSERT_EQUAL(n, 0);
	}
	/* An empty free list is invalid. */
	p_free = NULL;
	CU_ASSERT_EQUAL(ib_poll_cq(b->rcq->h, &p_free, &p_done), IB_INVALID_PARAMETER);
	dp_down();
}

/* A receive CQ notified by callback (b's) and a send CQ with a wait object (a's). */
static void cb_pair(dp_cq_t **p_cs, dp_cq_t **p_cr, dp_qp_t **pa, dp_qp_t **pb, int n_recv)
{
	int i;

	*p_cs = dp_cq(64, 1);
	*p_cr = dp_cq(64, 0);
	*pa = dp_qp(IB_QPT_RELIABLE_CONN, *p_cs, *p_cs);
	*pb = dp_qp(IB_QPT_RELIABLE_CONN, *p_cs, *p_cr);
	dp_connect(*pa, *pb, &dp_link_default);
	for (i = 0; i < n_recv; i++)
		CU_ASSERT_EQUAL(dp_recv(*pb, (uint64_t)i, DP_AT(8 + i), 64), IB_SUCCESS);
}

/* Sends message @p k from a (optionally solicited) and waits for a's completion. */
static void cb_send(dp_qp_t *a, int k, ib_send_opt_t opt)
{
	CU_ASSERT_EQUAL(dp_send(a, 100 + (uint64_t)k, DP_AT(0), 16, opt), IB_SUCCESS);
	DP_EXPECT(a->scq, 100 + (uint64_t)k, IB_WCS_SUCCESS, IB_WC_SEND, 16, NULL);
}

/* Takes b's next receive from @p cr without arming it. */
static void cb_take(dp_cq_t *cr, uint64_t wr_id)
{
	ib_wc_t wc;

	CU_ASSERT_FATAL(dp_poll_quiet(cr, &wc, DP_WAIT_MS));
	CU_ASSERT_EQUAL(wc.wr_id, wr_id);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
}

/*
 * Completion callbacks: none without arming; one per arming however many
 * completions come; a solicited arming ignores unsolicited completions.
 * Each callback records the test's phase, so a callback that should not
 * have come shows up with the phase it came in.
 */
static void test_cq_callback_arming(void)
{
	ib_local_ds_t ds;
	ib_send_wr_t wr[2];
	dp_cq_t *cs, *cr;
	dp_qp_t *a, *b;
	int i;

	dp_up();
	cb_pair(&cs, &cr, &a, &b, 10);
	dp_fill(DP_AT(0), 16, 70);

	/* Phase 0: not armed. */
	cb_send(a, 0, 0);
	cb_take(cr, 0);

	/* Phase 1: armed for the next; two completions, one callback. */
	dp_set_phase(1);
	CU_ASSERT_EQUAL(ib_rearm_cq(cr->h, FALSE), IB_SUCCESS);
	dp_sge(&ds, DP_AT(0), 16);
	dp_wr(&wr[0], 101, WR_SEND, IB_SEND_OPT_SIGNALED, &ds, 1);
	dp_wr(&wr[1], 102, WR_SEND, IB_SEND_OPT_SIGNALED, &ds, 1);
	wr[0].p_next = &wr[1];
	CU_ASSERT_EQUAL(ib_post_send(a->h, &wr[0], NULL), IB_SUCCESS);
	DP_EXPECT(cs, 101, IB_WCS_SUCCESS, IB_WC_SEND, 16, NULL);
	DP_EXPECT(cs, 102, IB_WCS_SUCCESS, IB_WC_SEND, 16, NULL);
	CU_ASSERT_EQUAL(dp_wait_count(&cr->n_cb, 1, DP_WAIT_MS), 1);
	cb_take(cr, 1);
	cb_take(cr, 2);

	/* Phase 2: the arming was used up. */
	dp_set_phase(2);
	cb_send(a, 3, 0);
	cb_take(cr, 3);

	/* Phase 3: armed for a solicited completion; an unsolicited one comes. */
	dp_set_phase(3);
	CU_ASSERT_EQUAL(ib_rearm_cq(cr->h, TRUE), IB_SUCCESS);
	cb_send(a, 4, 0);
	cb_take(cr, 4);

	/* Phase 4: a solicited one. */
	dp_set_phase(4);
	cb_send(a, 5, IB_SEND_OPT_SOLICITED);
	CU_ASSERT_EQUAL(dp_wait_count(&cr->n_cb, 2, DP_WAIT_MS), 2);
	cb_take(cr, 5);

	/* Phase 5: not armed again. */
	dp_set_phase(5);
	cb_send(a, 6, IB_SEND_OPT_SOLICITED);
	cb_take(cr, 6);

	/* Phase 6: armed; the callback that ends the test. */
	dp_set_phase(6);
	CU_ASSERT_EQUAL(ib_rearm_cq(cr->h, FALSE), IB_SUCCESS);
	cb_send(a, 7, 0);
	CU_ASSERT_EQUAL(dp_wait_count(&cr->n_cb, 3, DP_WAIT_MS), 3);
	cb_take(cr, 7);

	pthread_mutex_lock(&D.lock);
	CU_ASSERT_EQUAL(cr->n_cb, 3);
	CU_ASSERT_EQUAL(cr->n_bad_cb, 0);
	if (cr->n_cb == 3) {
		CU_ASSERT_EQUAL(cr->cb_phase[0], 1);
		CU_ASSERT_EQUAL(cr->cb_phase[1], 4);
		CU_ASSERT_EQUAL(cr->cb_phase[2], 6);
	} else {
		for (i = 0; i < cr->n_cb && i < DP_MAX_CB; i++)
			fprintf(stderr, "\n  callback %d in phase %d", i, cr->cb_phase[i]);
	}
	pthread_mutex_unlock(&D.lock);
	dp_down();
}

/* ib_rearm_n_cq(): one callback once n new completions came. */
static void test_cq_rearm_n(void)
{
	ib_api_status_t st;
	dp_cq_t *cs, *cr;
	dp_qp_t *a, *b;
	uint32_t n;
	int peek;

	dp_up();
	cb_pair(&cs, &cr, &a, &b, 8);
	dp_fill(DP_AT(0), 16, 71);
	CU_ASSERT_EQUAL(ib_rearm_n_cq(cr->h, 0), IB_INVALID_PARAMETER);
	st = ib_rearm_n_cq(cr->h, 3);
	if (st == IB_UNSUPPORTED && !D.soft) {
		/* Optional for adapters (ib_al.h). */
		printf("\n    (ib_rearm_n_cq: IB_UNSUPPORTED on this CA)\n  ");
		dp_down();
		return;
	}
	CU_ASSERT_EQUAL_FATAL(st, IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_rearm_n_cq(cr->h, cr->size + 1), IB_INVALID_PARAMETER);
	/* The out-of-range call changed nothing: still armed for 3. */

	/* Phase 1: two completions, no callback yet. */
	dp_set_phase(1);
	cb_send(a, 0, 0);
	cb_send(a, 1, 0);
	peek = dp_wait_cqes(cr, 2);
	if (peek >= 0)
		CU_ASSERT_EQUAL(peek, 2);

	/* Phase 2: the third. */
	dp_set_phase(2);
	cb_send(a, 2, 0);
	CU_ASSERT_EQUAL(dp_wait_count(&cr->n_cb, 1, DP_WAIT_MS), 1);
	if (peek >= 0) {
		CU_ASSERT_EQUAL(ib_peek_cq(cr->h, &n), IB_SUCCESS);
		CU_ASSERT_EQUAL(n, 3);
	}

	/* Phase 3: armed for one more with three already there: those do
	 * not count. Phase 4: the new one fires. */
	dp_set_phase(3);
	CU_ASSERT_EQUAL(ib_rearm_n_cq(cr->h, 1), IB_SUCCESS);
	dp_set_phase(4);
	cb_send(a, 3, 0);
	CU_ASSERT_EQUAL(dp_wait_count(&cr->n_cb, 2, DP_WAIT_MS), 2);
	cb_take(cr, 0);
	cb_take(cr, 1);
	cb_take(cr, 2);
	cb_take(cr, 3);

	pthread_mutex_lock(&D.lock);
	CU_ASSERT_EQUAL(cr->n_cb, 2);
	CU_ASSERT_EQUAL(cr->n_bad_cb, 0);
	CU_ASSERT_EQUAL(cr->cb_phase[0], 2);
	CU_ASSERT_EQUAL(cr->cb_phase[1], 4);
	pthread_mutex_unlock(&D.lock);
	dp_down();
}

/*
 * One datagram from a to b, and b's receive: b's CQ is armed before and
 * its callback awaited after, so every notification the send caused on
 * a's CQ has been delivered by then (one CA delivers them in order).
 */
static void wo_step(dp_qp_t *a, dp_qp_t *b, ib_av_handle_t av, int k)
{
	int seen = dp_get(&b->rcq->n_cb);

	CU_ASSERT_EQUAL(ib_rearm_cq(b->rcq->h, FALSE), IB_SUCCESS);
	CU_ASSERT_EQUAL(dp_ud_send(a, av, b->qpn, CL_HTON32(DP_QKEY), (uint64_t)k, DP_AT(0), 16,
				   0, 0),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(dp_wait_count(&b->rcq->n_cb, seen + 1, DP_WAIT_MS), seen + 1);
	cb_take(b->rcq, (uint64_t)k);
}

/* A CQ with a wait object: signalled once per arming, never unarmed. */
static void test_cq_waitobj(void)
{
	ib_av_handle_t av;
	dp_cq_t *cs, *cr;
	dp_qp_t *a, *b;
	ib_wc_t wc;
	int i;

	dp_up();
	cs = dp_cq(64, 1);
	cr = dp_cq(64, 0);
	a = dp_qp(IB_QPT_UNRELIABLE_DGRM, cs, cs);
	b = dp_qp(IB_QPT_UNRELIABLE_DGRM, cr, cr);
	dp_ud_up(a);
	dp_ud_up(b);
	av = dp_av(0);
	for (i = 1; i <= 8; i++)
		CU_ASSERT_EQUAL(dp_recv(b, (uint64_t)i, DP_AT(8 + i), UD_LEN), IB_SUCCESS);
	dp_fill(DP_AT(0), 16, 72);
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(cs->wo, 0, FALSE), CL_TIMEOUT);

	/* Not armed: the completion comes, the object stays quiet. */
	wo_step(a, b, av, 1);
	CU_ASSERT_FATAL(dp_poll_now(cs, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 1);
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(cs->wo, 0, FALSE), CL_TIMEOUT);

	/* Armed: signalled. */
	CU_ASSERT_EQUAL(ib_rearm_cq(cs->h, FALSE), IB_SUCCESS);
	wo_step(a, b, av, 2);
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(cs->wo, TEST_WAIT_US, FALSE), CL_SUCCESS);
	CU_ASSERT_FATAL(dp_poll_now(cs, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 2);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);

	/* The arming was used up. */
	wo_step(a, b, av, 3);
	CU_ASSERT_FATAL(dp_poll_now(cs, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 3);
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(cs->wo, 0, FALSE), CL_TIMEOUT);

	/* Armed again: two completions, one signal. */
	CU_ASSERT_EQUAL(ib_rearm_cq(cs->h, FALSE), IB_SUCCESS);
	wo_step(a, b, av, 4);
	wo_step(a, b, av, 5);
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(cs->wo, TEST_WAIT_US, FALSE), CL_SUCCESS);
	CU_ASSERT_FATAL(dp_poll_now(cs, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 4);
	CU_ASSERT_FATAL(dp_poll_now(cs, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 5);
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(cs->wo, 0, FALSE), CL_TIMEOUT);
	DP_EMPTY(cs);
	CU_ASSERT_EQUAL(dp_get(&cr->n_bad_cb), 0);
	CU_ASSERT_EQUAL(ib_destroy_av(av), IB_SUCCESS);
	dp_down();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_cq_poll_lists),
	TEST_ENTRY(test_cq_callback_arming),
	TEST_ENTRY(test_cq_rearm_n),
	TEST_ENTRY(test_cq_waitobj),
};

int main(void)
{
	return dp_main("al_dp_cq", tests, TEST_COUNT(tests));
}
