/*
 * ibal bench: the child of bench_soft, the target of its two-process
 * measurements: it takes the parent's RDMA writes and checks them, counts
 * its sends and answers its ping-pong, polling or from its completion
 * callback (bench_soft.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "bench_soft.h"

/* ---- The child: the target of the two-process tests ---- */

typedef struct child {
	end_t e;
	cl_spinlock_t lock;
	cl_event_t ev;                  /* signalled when count reaches want, or on a failure */
	uint64_t count;                 /* messages received in order (written under lock, atomically) */
	uint64_t want;
	boolean_t echo;                 /* answer each message (ping-pong; under lock) */
	boolean_t busy;                 /* the main thread polls the CQ (busy ping-pong): no callbacks */
	uint64_t replies;               /* answers posted (the callback's own) */
	boolean_t failed;
	char err[160];
} child_t;

static void child_fail(child_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void child_fail(child_t *c, const char *fmt, ...)
{
	va_list ap;

	cl_spinlock_acquire(&c->lock);
	if (!c->failed) {
		va_start(ap, fmt);
		vsnprintf(c->err, sizeof(c->err), fmt, ap);
		va_end(ap);
		c->failed = TRUE;
	}
	cl_spinlock_release(&c->lock);
	cl_event_signal(&c->ev);
}

static void post_recvs(end_t *e, const uint64_t *ids, uint32_t n, ib_api_status_t *p_st)
{
	ib_recv_wr_t wr[32], *bad;
	ib_local_ds_t ds[32];
	uint32_t i;

	for (i = 0; i < n; i++) {
		ds[i].vaddr = (uintptr_t)(e->slots + ids[i] * e->slot_len);
		ds[i].length = e->slot_len;
		ds[i].lkey = e->slot_lkey;
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].p_next = i + 1 < n ? &wr[i + 1] : NULL;
		wr[i].wr_id = ids[i];
		wr[i].num_ds = 1;
		wr[i].ds_array = &ds[i];
	}
	*p_st = n ? ib_post_recv(e->qp, wr, &bad) : IB_SUCCESS;
}

/*
 * Ping-pong: answers message seq with a send of len bytes that carries the
 * same number, from the slot after the receive slots. One message is in
 * flight at a time, so that slot is free again when the next one arrives.
 * Every MSG_GROUP-th answer is signaled; its completion retires the ones
 * before it.
 */
static ib_api_status_t child_reply(child_t *c, uint64_t seq, uint32_t len)
{
	ib_send_wr_t wr, *bad;
	ib_local_ds_t ds;
	uint8_t *p = c->e.slots + (uint64_t)CHILD_RQ * c->e.slot_len;

	memcpy(p, &seq, 8);
	ds.vaddr = (uintptr_t)p;
	ds.length = len;
	ds.lkey = c->e.slot_lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = c->replies;
	wr.wr_type = WR_SEND;
	wr.send_opt = (c->replies % MSG_GROUP == MSG_GROUP - 1 ? IB_SEND_OPT_SIGNALED : 0) |
		      pp_inline(&c->e, len);
	wr.num_ds = 1;
	wr.ds_array = &ds;
	c->replies++;
	return ib_post_send(c->e.qp, &wr, &bad);
}

/*
 * Takes what the child's CQ holds (one poller at a time: the callback, or
 * the main thread in busy ping-pong): checks that each message carries the
 * next number, answers it in echo mode, reposts the receives, counts.
 * With @p rearm (the callback) it rearms when the CQ is empty and drains
 * again. Returns FALSE once the child failed.
 */
static boolean_t child_drain(child_t *c, ib_cq_handle_t h_cq, boolean_t rearm)
{
	ib_wc_t wcs[32], *free_l, *list, *w;
	uint64_t ids[32], seq, count;
	boolean_t rearmed = !rearm, wake, echo;
	ib_api_status_t st;
	uint32_t i, n;

	/* Only the draining thread writes count (the callback, or the main
	 * thread while busy): it reads its own value without the lock, which a
	 * busy poll would otherwise take on every empty poll. */
	count = __atomic_load_n(&c->count, __ATOMIC_ACQUIRE);
	for (;;) {
		for (i = 0; i < 32; i++)
			wcs[i].p_next = i + 1 < 32 ? &wcs[i + 1] : NULL;
		free_l = wcs;
		list = NULL;
		st = ib_poll_cq(h_cq, &free_l, &list);
		if (st == IB_NOT_FOUND && !rearmed) {
			st = ib_rearm_cq(h_cq, FALSE);
			rearmed = TRUE;
			if (st == IB_SUCCESS)
				continue;
		}
		if (st == IB_NOT_FOUND)
			return TRUE;
		if (st != IB_SUCCESS) {
			child_fail(c, "polling or rearming the CQ: %s", ib_get_err_str(st));
			return FALSE;
		}
		rearmed = !rearm;
		/* Read after the poll: the parent switches echo mode (CTL_ECHO) only
		 * with no message in flight, so these messages were sent after it. */
		cl_spinlock_acquire(&c->lock);
		echo = c->echo;
		cl_spinlock_release(&c->lock);
		for (n = 0, w = list; w; w = w->p_next) {
			if (w->status == IB_WCS_SUCCESS && w->wc_type == IB_WC_SEND)
				continue;   /* a signaled answer arrived */
			if (w->status != IB_WCS_SUCCESS || w->wc_type != IB_WC_RECV) {
				child_fail(c, "%s completion: %s", ib_get_wc_type_str(w->wc_type),
					   ib_get_wc_status_str(w->status));
				return FALSE;
			}
			memcpy(&seq, c->e.slots + w->wr_id * c->e.slot_len, 8);
			if (w->length < MIN_MSG || seq != count) {
				child_fail(c, "message %" PRIu64 " (%u bytes) arrived as number %" PRIu64,
					   count, w->length, seq);
				return FALSE;
			}
			if (echo && (st = child_reply(c, seq, w->length)) != IB_SUCCESS) {
				child_fail(c, "answering message %" PRIu64 ": %s", seq,
					   ib_get_err_str(st));
				return FALSE;
			}
			count++;
			ids[n++] = w->wr_id;
		}
		post_recvs(&c->e, ids, n, &st);
		if (st != IB_SUCCESS) {
			child_fail(c, "reposting receives: %s", ib_get_err_str(st));
			return FALSE;
		}
		cl_spinlock_acquire(&c->lock);
		__atomic_store_n(&c->count, count, __ATOMIC_RELEASE);
		wake = c->want && count >= c->want;
		cl_spinlock_release(&c->lock);
		if (wake)
			cl_event_signal(&c->ev);
	}
}

/* The child's completion callback (one CQ: never concurrent with itself). */
static void AL_API child_cq_cb(const ib_cq_handle_t h_cq, void *context)
{
	child_t *c = (child_t *)context;
	boolean_t busy;

	cl_spinlock_acquire(&c->lock);
	busy = c->busy;
	cl_spinlock_release(&c->lock);
	if (!busy) /* else the main thread polls; the CQ stays unarmed */
		child_drain(c, h_cq, TRUE);
}

/*
 * Busy mode (CTL_ECHO with arg1: the ping-pong, or with arg0 0 the send
 * rate): the main thread polls the CQ, reposts and answers, as
 * ucx_perftest's and perftest's tests do, until the next out-of-band
 * message arrives (looked for every 1024 empty polls); then the CQ is
 * rearmed for the callback and drained once more.
 */
static void child_busy_echo(child_t *c)
{
	struct pollfd p = { .fd = g_fd, .events = POLLIN, .revents = 0 };
	unsigned idle = 0;

	while (child_drain(c, c->e.cq, FALSE)) {
		if (++idle % 1024)
			continue;
		if (poll(&p, 1, 0) > 0)
			break;
	}
	cl_spinlock_acquire(&c->lock);
	c->busy = FALSE;
	cl_spinlock_release(&c->lock);
	child_drain(c, c->e.cq, TRUE);
}

/* CTL_COUNT: waits (bounded) until want messages arrived; answers with the count. */
static void child_count(child_t *c, uint64_t want)
{
	uint64_t end = now_ns() + WAIT_US * 1000ull, got;
	boolean_t failed;
	char err[sizeof(c->err)];
	ctl_t m;

	for (;;) {
		cl_spinlock_acquire(&c->lock);
		c->want = want;
		got = c->count;
		failed = c->failed;
		memcpy(err, c->err, sizeof(err));
		cl_spinlock_release(&c->lock);
		if (failed)
			die("%s", err);
		if (got >= want || now_ns() > end)
			break;
		cl_event_wait_on(&c->ev, SLICE_US, FALSE);
	}
	memset(&m, 0, sizeof(m));
	m.arg0 = got;
	ctl_send(&m, CTL_OK);
}

int child_main(pid_t parent, const opts_t *o)
{
	child_t c;
	ib_al_handle_t al;
	ib_ca_handle_t ca;
	ib_net64_t guid;
	size_t n = 1;
	uint64_t ids[32], max_rdma;
	uint32_t i, k, max_msg;
	ib_api_status_t st;
	ctl_t m;

	g_is_child = 1;
	g_child = 0;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	unsetenv("IBAL_SOFT_CAS");   /* one CA */
	opts_largest(o, &max_rdma, &max_msg);

	memset(&c, 0, sizeof(c));
	cl_spinlock_construct(&c.lock);
	cl_event_construct(&c.ev);
	if (cl_spinlock_init(&c.lock) != CL_SUCCESS || cl_event_init(&c.ev, FALSE) != CL_SUCCESS)
		die("complib init failed");
	CHECK(ib_open_al(&al));
	CHECK(ib_get_ca_guids(al, &guid, &n));
	CHECK(ib_open_ca(al, guid, NULL, NULL, &ca));
	/* CHILD_RQ receive slots and the slot of the ping-pong answers */
	end_open(&c.e, ca, child_cq_cb, &c, SQ_DEPTH, CHILD_RQ, max_rdma, TRUE, CHILD_RQ + 1,
		 (max_msg + 63u) & ~63u);
	qp_init(&c.e, TRUE);
	for (i = 0; i < CHILD_RQ; i += k) {
		for (k = 0; k < 32 && i + k < CHILD_RQ; k++)
			ids[k] = i + k;
		post_recvs(&c.e, ids, k, &st);
		CHECK(st);
	}
	ctl_hello(&m, &c.e);
	ctl_send(&m, CTL_HELLO);
	ctl_recv(&m, CTL_HELLO, WAIT_US / 1000);
	qp_connect(&c.e, m.lid, m.qpn, m.psn, m.mtu);
	CHECK(ib_rearm_cq(c.e.cq, FALSE));
	memset(&m, 0, sizeof(m));
	ctl_send(&m, CTL_READY);

	for (;;) {
		ctl_recv(&m, 0, (int)g_limit_s * 1000);
		if (m.type == CTL_BYE)
			break;
		if (m.type == CTL_COUNT) {
			child_count(&c, m.arg0);
		} else if (m.type == CTL_ECHO) {
			/* no message is in flight: the callback sees the change with the next one */
			boolean_t busy = m.arg1 != 0;

			cl_spinlock_acquire(&c.lock);
			c.echo = m.arg0 != 0;
			c.busy = busy;
			cl_spinlock_release(&c.lock);
			memset(&m, 0, sizeof(m));
			ctl_send(&m, CTL_OK);
			if (busy)
				child_busy_echo(&c);
		} else if (m.type == CTL_CHECK) {
			if (m.arg0 > c.e.buf_len || !pattern_ok(c.e.buf, m.arg0, m.arg1))
				die("the RDMA-written %" PRIu64 " bytes are not what was sent", m.arg0);
			memset(c.e.buf, 0, (size_t)m.arg0);   /* the next check sees only new writes */
			memset(&m, 0, sizeof(m));
			ctl_send(&m, CTL_OK);
		} else {
			die("out-of-band: unexpected message %u", m.type);
		}
	}
	CHECK(ib_close_al(al));
	end_free(&c.e);
	cl_event_destroy(&c.ev);
	cl_spinlock_destroy(&c.lock);
	memset(&m, 0, sizeof(m));
	ctl_send(&m, CTL_BYE);
	close(g_fd);
	return 0;
}
