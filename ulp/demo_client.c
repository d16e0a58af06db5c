/*
 * ibal ulp: ibal_demo's client measurements on the connection: send/receive
 * ping-pong latency, the rate of a stream of small sends, RDMA write and
 * read bandwidth, each checked, and their table.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * See ibal_demo.c for the program and demo.h for what it shares.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "demo.h"

/*
 * Waits for up to max completions of cq into wcs[] (at least one). Polls,
 * rearms, polls again, then waits on the wait object in slices, looking
 * at the control channel between them.
 */
static uint32_t client_wait(side_t *s, ib_cq_handle_t cq, ib_wc_t *wcs, uint32_t max,
			    const char *what)
{
	ib_wc_t *free_l, *done, *w;
	uint32_t i, n;
	boolean_t armed = FALSE;

	for (;;) {
		for (i = 0; i < max; i++)
			wcs[i].p_next = i + 1 < max ? &wcs[i + 1] : NULL;
		free_l = wcs;
		if (ib_poll_cq(cq, &free_l, &done) == IB_SUCCESS) {
			for (n = 0, w = done; w; w = w->p_next)
				if (w->status != IB_WCS_SUCCESS)
					return fail(s, "%s: %s completion failed: %s", what,
						    ib_get_wc_type_str(w->wc_type),
						    ib_get_wc_status_str(w->status)), 0;
				else
					n++;
			return n;
		}
		if (!armed) {
			if (!ok(s, ib_rearm_cq(cq, FALSE), "ib_rearm_cq"))
				return 0;
			armed = TRUE;
			continue;
		}
		if (!left_us())
			return fail(s, "%s: no completion within the %u s limit of the run", what,
				    s->o->timeout_s), 0;
		cl_waitobj_wait_on(s->wo, left_us() < SLICE_US ? (uint32_t)left_us() : SLICE_US, FALSE);
		armed = FALSE;
		if (!peer_check(s))
			return 0;
	}
}

/* One result line of the table. */
typedef struct row {
	const char *name;
	int state;             /* 0 not run, 1 passed, -1 failed */
	double value;
	const char *unit;
	char note[96];
} row_t;

enum { ROW_LAT, ROW_RATE, ROW_WRITE, ROW_READ, ROWS };

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static boolean_t client_pingpong(side_t *s, row_t *r)
{
	uint32_t n = s->o->pings, i, len = 32;
	uint64_t *rtt = calloc(n, sizeof(*rtt)), t0;
	ib_send_wr_t wr;
	ib_local_ds_t ds;
	ib_wc_t wc;
	boolean_t good = rtt != NULL;

	for (i = 0; good && i < WARMUP + n; i++) {
		msg_fill(send_slot(s, i), len, KIND_PING, i);
		make_wr(&wr, &ds, WR_SEND, i, send_slot(s, i), len, s->slot_lkey);
		t0 = now_ns();
		good = ok(s, ib_post_send(s->qp, &wr, NULL), "ib_post_send (ping)") &&
		       client_wait(s, s->rcq, &wc, 1, "ping-pong");
		if (!good)
			break;
		if (i >= WARMUP)
			rtt[i - WARMUP] = now_ns() - t0;
		if (!msg_good(recv_slot(s, (uint32_t)wc.wr_id), wc.length, KIND_PING, i))
			good = fail(s, "pong %u is not the ping echoed", i);
		else
			good = ok(s, post_recv_slot(s, (uint32_t)wc.wr_id), "ib_post_recv") &&
			       client_wait(s, s->scq, &wc, 1, "ping-pong");
	}
	if (good) {
		qsort(rtt, n, sizeof(*rtt), cmp_u64);
		r->value = rtt[n / 2] / 2000.0;
		snprintf(r->note, sizeof(r->note), "median of %u round trips / 2, min %.1f us", n,
			 rtt[0] / 2000.0);
	}
	free(rtt);
	return good;
}

/*
 * The stream: sends posted in chains of up to 16, at most WINDOW in flight.
 * Only every 16th send (and the last) asks for a completion; since RC
 * completes in order, that completion retires the sends before it too.
 */
static boolean_t client_stream(side_t *s, row_t *r)
{
	uint32_t total = s->o->msgs, len = s->o->msg_len, posted = 0, done = 0, k, got, i;
	ib_send_wr_t wr[16], *bad;
	ib_local_ds_t ds[16];
	ib_wc_t wcs[32];
	oob_msg_t m;
	uint64_t t0 = now_ns(), t;

	while (done < total) {
		for (k = 0; k < 16 && posted + k < total && posted + k - done < WINDOW; k++) {
			uint32_t seq = posted + k;

			msg_fill(send_slot(s, seq), len, KIND_STREAM, seq);
			make_wr(&wr[k], &ds[k], WR_SEND, seq, send_slot(s, seq), len, s->slot_lkey);
			if (seq % 16u != 15u && seq + 1 != total)
				wr[k].send_opt = 0;
			if (k)
				wr[k - 1].p_next = &wr[k];
		}
		if (k && !ok(s, ib_post_send(s->qp, wr, &bad), "ib_post_send (stream)"))
			return FALSE;
		posted += k;
		if (posted - done < WINDOW && posted < total)
			continue;   /* room for more before waiting */
		if (!(got = client_wait(s, s->scq, wcs, 32, "message stream")))
			return FALSE;
		for (i = 0; i < got; i++)
			if (wcs[i].wr_id + 1 > done)
				done = (uint32_t)wcs[i].wr_id + 1;
	}
	t = now_ns() - t0;
	if (!oob_send(s, OOB_STREAM_END, total, 0) || !oob_expect(s, &m, OOB_STREAM_OK))
		return FALSE;
	if (m.arg0 != total)
		return fail(s, "the server counted %" PRIu64 " of %u messages", m.arg0, total);
	r->value = total * 1000.0 / (double)t;
	snprintf(r->note, sizeof(r->note), "%u sends of %u B, all in order and intact", total, len);
	return TRUE;
}

/* Posts RDMA ops over len bytes in CHUNK pieces, at most `window` in flight. */
static boolean_t client_rdma(side_t *s, ib_wr_type_t type, uint64_t len, uint32_t window,
			     const char *what, uint64_t *p_ns)
{
	uint64_t n_wr = (len + CHUNK - 1) / CHUNK, posted = 0, done = 0, off, t0 = now_ns();
	uint32_t got, piece;
	ib_send_wr_t wr;
	ib_local_ds_t ds;
	ib_wc_t wcs[32];

	while (done < n_wr) {
		for (; posted < n_wr && posted - done < window; posted++) {
			off = posted * CHUNK;
			piece = len - off < CHUNK ? (uint32_t)(len - off) : CHUNK;
			make_wr(&wr, &ds, type, posted, s->rdma + off, piece, s->rdma_lkey);
			wr.remote_ops.vaddr = s->peer.va + off;
			wr.remote_ops.rkey = s->peer.rkey;
			if (!ok(s, ib_post_send(s->qp, &wr, NULL), what))
				return FALSE;
		}
		if (!(got = client_wait(s, s->scq, wcs, 32, what)))
			return FALSE;
		done += got;
	}
	*p_ns = now_ns() - t0;
	return TRUE;
}

/* A 16-byte message of the given kind from the client's send slot 0, waited for. */
static boolean_t client_note(side_t *s, uint32_t kind, const char *what)
{
	ib_send_wr_t wr;
	ib_local_ds_t ds;
	ib_wc_t wc;

	msg_fill(send_slot(s, 0), 16, kind, 0);
	make_wr(&wr, &ds, WR_SEND, 0, send_slot(s, 0), 16, s->slot_lkey);
	return ok(s, ib_post_send(s->qp, &wr, NULL), what) && client_wait(s, s->scq, &wc, 1, what);
}

/*
 * RDMA write of the pattern into the server's buffer; then a send on the
 * same QP (RC keeps the order) tells the server the data is there, and the
 * control channel gives it the pattern to check against.
 */
static boolean_t client_write(side_t *s, uint64_t len, row_t *r)
{
	uint64_t seed = mix(now_ns()), ns;
	oob_msg_t m;

	pattern_fill(s->rdma, len, seed);
	if (!client_rdma(s, WR_RDMA_WRITE, len, WINDOW, "RDMA write", &ns) ||
	    !client_note(s, KIND_WDONE, "send after the RDMA writes") ||
	    !oob_send(s, OOB_WRITE_DONE, len, seed) || !oob_expect(s, &m, OOB_WRITE_OK))
		return FALSE;
	r->value = len * 1000.0 / (double)ns;
	snprintf(r->note, sizeof(r->note), "%" PRIu64 " KiB in %u KiB WRs, server checked every byte",
		 len >> 10, CHUNK >> 10);
	return TRUE;
}

/* The server fills its buffer and says so with a send; the client reads it back. */
static boolean_t client_read(side_t *s, uint64_t len, row_t *r)
{
	uint64_t seed = mix(now_ns() + 1), ns, off;
	uint32_t window = s->init_depth ? s->init_depth : 1;
	ib_wc_t wc;

	if (!oob_send(s, OOB_READ_PREP, len, seed) ||
	    !client_wait(s, s->rcq, &wc, 1, "waiting for the server's buffer"))
		return FALSE;
	if (!msg_good(recv_slot(s, (uint32_t)wc.wr_id), wc.length, KIND_RREADY, 0))
		return fail(s, "the server sent something else than 'read ready'");
	if (!ok(s, post_recv_slot(s, (uint32_t)wc.wr_id), "ib_post_recv"))
		return FALSE;
	memset(s->rdma, 0, len);
	if (!client_rdma(s, WR_RDMA_READ, len, window, "RDMA read", &ns))
		return FALSE;
	off = pattern_check(s->rdma, len, seed);
	if (off != len)
		return fail(s, "RDMA read: byte %" PRIu64 " of %" PRIu64 " differs", off, len);
	r->value = len * 1000.0 / (double)ns;
	snprintf(r->note, sizeof(r->note), "%" PRIu64 " KiB, %u reads in flight, every byte checked",
		 len >> 10, window);
	return TRUE;
}

static void print_table(const row_t *rows)
{
	int i;

	printf("  %-22s %12s  %-8s %s\n", "test", "result", "unit", "check");
	for (i = 0; i < ROWS; i++) {
		const row_t *r = &rows[i];

		if (r->state > 0)
			printf("  %-22s %12.4g  %-8s ok: %s\n", r->name, r->value, r->unit, r->note);
		else
			printf("  %-22s %12s  %-8s %s\n", r->name, "-", r->unit,
			       r->state < 0 ? "FAILED" : "not run");
	}
}

boolean_t client_run(side_t *s)
{
	row_t rows[ROWS] = {
		{ "send/recv latency", 0, 0, "us", "" },
		{ "send message rate", 0, 0, "Mmsg/s", "" },
		{ "RDMA write bandwidth", 0, 0, "MB/s", "" },
		{ "RDMA read bandwidth", 0, 0, "MB/s", "" },
	};
	oob_msg_t m;
	uint64_t len;
	boolean_t good;
	const char *fab = getenv("IBAL_SOFT_FABRIC");

	printf("ibal access-layer demo: RC between two processes on the soft fabric (%s)\n",
	       fab && *fab ? fab : "default directory");
	good = side_open(s) && hello(s) && client_connect(s) && oob_expect(s, &m, OOB_READY);
	if (good) {
		print_end("server", &s->peer);
		print_end("client", &s->me);
		printf("  RC connection through the CM (service ID 0x%016" PRIx64 "): path MTU %u, "
		       "%u RDMA reads in flight; control: Unix socket\n", cl_ntoh64(s->peer.svc_id),
		       128u << s->me.mtu, s->init_depth);
	}
	len = s->rdma_len < s->peer.len ? s->rdma_len : s->peer.len;
	if (good)
		rows[ROW_LAT].state = (good = client_pingpong(s, &rows[ROW_LAT])) ? 1 : -1;
	if (good)
		rows[ROW_RATE].state = (good = client_stream(s, &rows[ROW_RATE])) ? 1 : -1;
	if (good)
		rows[ROW_WRITE].state = (good = client_write(s, len, &rows[ROW_WRITE])) ? 1 : -1;
	if (good)
		rows[ROW_READ].state = (good = client_read(s, len, &rows[ROW_READ])) ? 1 : -1;
	good = good && oob_send(s, OOB_BYE, 0, 0) && oob_expect(s, &m, OOB_BYE);
	if (good) {
		cl_spinlock_acquire(&s->lock);
		s->bye = TRUE; /* the server may exit once it has answered the DREQ */
		cl_spinlock_release(&s->lock);
	}
	good = good && client_disconnect(s);
	print_table(rows);
	return good;
}
