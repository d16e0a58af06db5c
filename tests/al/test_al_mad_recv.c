/*
 * ibal tests: a MAD dispatcher's receive buffers under a burst, and sends made again from their own send callback.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * On mad_fixture.h's two sides (a QP1 alias on each of two soft CAs). A
 * burst of MADs arrives while the receiver's dispatcher thread is held in
 * a callback: the dispatcher grows its receive buffers (in huge-page
 * mappings, resident before they are posted) rather than losing MADs. A
 * send's record is its element's, so an element sent again from its own
 * send callback works at once.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <iba/ib_al.h>
#include "ibal_mem.h"
#include "mad_fixture.h"
#include "../common/mem_resident.h"

/* The receiver's direct service runs on its dispatcher's thread; its
 * callback holds that thread when the gate_at-th MAD (0-based) comes,
 * until the test moves the gate. */
static struct burst {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int n_recv, n_sent, bad;
	int gate_at;                 /* -1: no gate */
	int held;                    /* the dispatcher's thread waits at the gate */
} bu;

static void AL_API burst_recv(const ib_mad_svc_handle_t h, void *ctx, ib_mad_element_t *e)
{
	struct timespec ts;

	(void)h;
	(void)ctx;
	ib_put_mad(e);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += TEST_WAIT_US / 1000000u;
	pthread_mutex_lock(&bu.lock);
	if (bu.n_recv == bu.gate_at) {
		bu.held = 1;
		pthread_cond_broadcast(&bu.cond);
		while (bu.gate_at == bu.n_recv &&
		       pthread_cond_timedwait(&bu.cond, &bu.lock, &ts) == 0)
			;
		bu.held = 0;
	}
	bu.n_recv++;
	pthread_cond_broadcast(&bu.cond);
	pthread_mutex_unlock(&bu.lock);
}

static void AL_API burst_sent(const ib_mad_svc_handle_t h, void *ctx, ib_mad_element_t *e)
{
	(void)h;
	(void)ctx;
	pthread_mutex_lock(&bu.lock);
	if (e->status != IB_WCS_SUCCESS)
		bu.bad++;
	bu.n_sent++;
	pthread_cond_broadcast(&bu.cond);
	pthread_mutex_unlock(&bu.lock);
	ib_put_mad(e);
}

/* Waits (bounded) until *p >= want, or until the gate holds the thread
 * (p NULL); returns TRUE if it came. */
static int burst_wait(const int *p, int want)
{
	struct timespec ts;
	int ok;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += TEST_WAIT_US / 1000000u;
	pthread_mutex_lock(&bu.lock);
	while (!(p ? *p >= want : bu.held) && pthread_cond_timedwait(&bu.cond, &bu.lock, &ts) == 0)
		;
	ok = p ? *p >= want : bu.held;
	pthread_mutex_unlock(&bu.lock);
	return ok;
}

/* Polls (bounded) until @p want receive completions wait in d's CQ; returns how many did. */
static uint32_t burst_backlog(al_mad_disp_t *d, uint32_t want)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000u;
	uint32_t n = 0;

	while (ib_peek_cq(d->h_cq, &n) == IB_SUCCESS && n < want && test_now_ms() < end)
		sched_yield();
	return n;
}

/* Sends @p n unsolicited MADs from sb's service @p h to sa. */
static void burst_send(ib_mad_svc_handle_t h, int n)
{
	ib_mad_element_t *e;
	int i;

	for (i = 0; i < n; i++) {
		e = mad_to(&sb, &sa, 256, VCLASS, IB_MAD_METHOD_SEND, (uint64_t)i + 1);
		CU_ASSERT_EQUAL_FATAL(ib_send_mad(h, e, NULL), IB_SUCCESS);
	}
}

/* Sends @p n more MADs (@p total in all) while the receiver's thread is held
 * at the gate, checks that it has @p before receive buffers then, and lets
 * it go with the gate at @p next; returns once all @p total are delivered. */
static void burst_phase(ib_mad_svc_handle_t h_tx, al_mad_disp_t *d, int n, int total,
			uint32_t before, int next)
{
	burst_send(h_tx, n);
	CU_ASSERT_FATAL(burst_wait(NULL, 0));
	CU_ASSERT_EQUAL(d->n_recv, before); /* read under the gate */
	CU_ASSERT_FATAL(burst_wait(&bu.n_sent, total));
	CU_ASSERT(burst_backlog(d, (uint32_t)n - 16) >= (uint32_t)n - 16);
	pthread_mutex_lock(&bu.lock);
	bu.gate_at = next;
	pthread_cond_broadcast(&bu.cond);
	pthread_mutex_unlock(&bu.lock);
	CU_ASSERT_FATAL(burst_wait(&bu.n_recv, total));
}

/*
 * A dispatcher that sees a burst grows its receive buffers (a MAD that finds
 * none posted would be dropped): after a poll that fills its batch, it
 * doubles them when a quarter still wait. The receiver's thread is held
 * while 400 MADs come, then let go: its first poll leaves more than 256 (a
 * quarter of its first 1,024) waiting, and it doubles them once (fewer than
 * 512 wait after). Held again while 800 come: let go, it doubles to
 * AL_MAD_RECV_BURST, once. Held again, 3,000 more come, and all of them
 * wait in its queue; let go, every one is delivered, and this larger burst
 * doubles it twice, to AL_MAD_RECV_MAX. A burst of fewer than a quarter
 * (200, between the first two) grows nothing.
 */
static void test_recv_burst(void)
{
	static const uint8_t send[] = { IB_MAD_METHOD_SEND, 0 };
	ib_mad_svc_handle_t h_rx, h_tx;
	al_mad_disp_t *d;
	uint32_t k;

	up();
	memset(&bu, 0, sizeof(bu));
	pthread_mutex_init(&bu.lock, NULL);
	test_cond_init_mono(&bu.cond);
	bu.gate_at = 0;
	CU_ASSERT_EQUAL_FATAL(reg_cb(&sa, sa.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, send, burst_sent,
				     burst_recv, &h_rx),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(al_mad_svc_set_direct(h_rx), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(reg_cb(&sb, sb.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, NULL, burst_sent,
				     burst_recv, &h_tx),
			      IB_SUCCESS);
	d = disp_of(sa.qp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);

	/* 200 while the thread is held at the first: fewer than a quarter of
	 * its 1,024 wait, and it keeps them. */
	burst_phase(h_tx, d, 200, 200, AL_MAD_RECV_SLOTS, 200);
	CU_ASSERT_EQUAL(d->n_recv, AL_MAD_RECV_SLOTS);

	/* 400 while it is held again: let go, more than 256 wait and it
	 * doubles, then fewer than 512 wait, and it stops. */
	burst_phase(h_tx, d, 400, 600, AL_MAD_RECV_SLOTS, 600);
	CU_ASSERT_EQUAL(d->n_recv, 2 * AL_MAD_RECV_SLOTS); /* grown before the later batches' callbacks */

	/* 800: more than 512 wait, it doubles to AL_MAD_RECV_BURST, and stops
	 * with fewer than 1,024 waiting. */
	burst_phase(h_tx, d, 800, 1400, 2 * AL_MAD_RECV_SLOTS, 1400);
	CU_ASSERT_EQUAL(d->n_recv, AL_MAD_RECV_BURST);

	/* 3,000 more while it is held again: every one waits in its queue. */
	burst_phase(h_tx, d, 3000, 4400, AL_MAD_RECV_BURST, -1);
	CU_ASSERT_EQUAL(d->n_recv, AL_MAD_RECV_MAX);
	CU_ASSERT_EQUAL(bu.bad, 0);
	/* Every buffer is resident, the 11,984 no MAD has reached too: made
	 * so before it was posted (ibal_mem.h), as a registration pins it. */
	for (k = 0; k < AL_MAD_RECV_MAX / AL_MAD_RECV_CHUNK; k++)
		CU_ASSERT_EQUAL(test_pages_not_resident(d->recv_base[k],
							(size_t)AL_MAD_RECV_CHUNK * AL_MAD_RECV_SLOT),
				0);
	/* The chunks beyond the first buffers are carved from mappings of
	 * whole huge pages, none overlapping, what one growth leaves serving
	 * the next first: the 4.4 MB of the four growths here take three. */
	CU_ASSERT_EQUAL(d->n_recv_maps, 3);
	for (k = 0; k < d->n_recv_maps; k++) {
		CU_ASSERT_EQUAL((uintptr_t)d->recv_maps[k].p % IBAL_MEM_HUGE, 0);
		CU_ASSERT_EQUAL(d->recv_maps[k].len % IBAL_MEM_HUGE, 0);
	}
	for (k = AL_MAD_RECV_SLOTS / AL_MAD_RECV_CHUNK; k < AL_MAD_RECV_MAX / AL_MAD_RECV_CHUNK; k++) {
		uint32_t m;
		int in = 0;

		for (m = 0; m < d->n_recv_maps; m++)
			in += d->recv_base[k] >= d->recv_maps[m].p &&
			      d->recv_base[k] + (size_t)AL_MAD_RECV_CHUNK * AL_MAD_RECV_SLOT <=
				      d->recv_maps[m].p + d->recv_maps[m].len;
		CU_ASSERT_EQUAL(in, 1);
		if (k > AL_MAD_RECV_SLOTS / AL_MAD_RECV_CHUNK) /* apart from the chunk before */
			CU_ASSERT(d->recv_base[k] >= d->recv_base[k - 1] +
						     (size_t)AL_MAD_RECV_CHUNK * AL_MAD_RECV_SLOT ||
				  d->recv_base[k - 1] >= d->recv_base[k] +
							 (size_t)AL_MAD_RECV_CHUNK * AL_MAD_RECV_SLOT);
	}
	down();
	pthread_mutex_destroy(&bu.lock);
	pthread_cond_destroy(&bu.cond);
}

/*
 * A send's record is part of its element, so an element sent again from its
 * own send callback reuses it at once: each of two elements is sent 300
 * times that way, every send completing and every MAD arriving.
 */
#define RESENDS 300

static void AL_API resend_sent(const ib_mad_svc_handle_t h, void *ctx, ib_mad_element_t *e)
{
	int again;

	(void)ctx;
	pthread_mutex_lock(&bu.lock);
	if (e->status != IB_WCS_SUCCESS)
		bu.bad++;
	again = ++bu.n_sent <= 2 * RESENDS - 2;
	pthread_cond_broadcast(&bu.cond);
	pthread_mutex_unlock(&bu.lock);
	if (again) {
		e->p_mad_buf->trans_id++;
		if (ib_send_mad(h, e, NULL) == IB_SUCCESS)
			return;
		pthread_mutex_lock(&bu.lock);
		bu.bad++;
		pthread_mutex_unlock(&bu.lock);
	}
	ib_put_mad(e);
}

static void test_resend_from_callback(void)
{
	static const uint8_t send[] = { IB_MAD_METHOD_SEND, 0 };
	ib_mad_svc_handle_t h_rx, h_tx;
	ib_mad_element_t *e1, *e2, *fail = NULL;

	up();
	memset(&bu, 0, sizeof(bu));
	pthread_mutex_init(&bu.lock, NULL);
	test_cond_init_mono(&bu.cond);
	bu.gate_at = -1;
	CU_ASSERT_EQUAL_FATAL(reg_cb(&sa, sa.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, send, burst_sent,
				     burst_recv, &h_rx),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(reg_cb(&sb, sb.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, NULL, resend_sent,
				     burst_recv, &h_tx),
			      IB_SUCCESS);
	e1 = mad_to(&sb, &sa, 256, VCLASS, IB_MAD_METHOD_SEND, 1);
	e2 = mad_to(&sb, &sa, 256, VCLASS, IB_MAD_METHOD_SEND, 100001);
	e1->p_next = e2;
	CU_ASSERT_EQUAL_FATAL(ib_send_mad(h_tx, e1, &fail), IB_SUCCESS);
	CU_ASSERT_PTR_NULL(fail);
	CU_ASSERT(burst_wait(&bu.n_sent, 2 * RESENDS));
	CU_ASSERT(burst_wait(&bu.n_recv, 2 * RESENDS));
	CU_ASSERT_EQUAL(bu.bad, 0);
	down();
	pthread_mutex_destroy(&bu.lock);
	pthread_cond_destroy(&bu.cond);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_recv_burst),
	TEST_ENTRY(test_resend_from_callback),
};

TEST_MAIN("al_mad_recv", tests)
