/*
 * ibal bench: soft-fabric RDMA write bandwidth against memcpy, small-message rate and latency.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Public API only (<iba/ib_al.h>, <complib/comp_lib.h>). In a private fabric
 * directory (mkdtemp, removed at exit) the program measures, for each size
 * of -s, best of -r runs of -t seconds each:
 *
 *   memcpy                 copies between the two buffers of the RDMA test
 *   rdma_write_1_process   RC RDMA writes between two soft CAs of this process
 *   rdma_write_2_process   RC RDMA writes to a forked child process
 *
 * for each size of -m the rate of RC sends to the child
 * (send_rate_2_process), and for each size of -l the one-way latency, half
 * the round trip of an RC send ping-pong with the child, which answers each
 * message with one of the same size, polling its CQ as the parent does (with
 * -e: from its completion callback) (latency_2_process). The ping-pong's
 * sends of up to -I bytes (default PP_INLINE) are posted inline
 * (IB_SEND_OPT_INLINE), as perftest's ib_send_lat posts them; the send rate's
 * are not, as perftest's ib_send_bw does not. A bandwidth row also gives its ratio to memcpy's
 * bandwidth at that size, measured in the same run: figures are meant to be
 * compared within a run, never against a fixed threshold.
 *
 * Writes and sends are posted in chains of `group` work requests (the last
 * one signaled) with at most `window` in flight; RC completes in order, so a
 * signaled completion retires the chain before it. After each measurement
 * the target checks what arrived (the written bytes, or the number and order
 * of the messages) over the out-of-band socket pair made before the fork.
 *
 * Every wait is bounded (WAIT_US per completion or reply; an alarm() for the
 * whole run as a backstop); on any failure the program prints why and exits
 * with status 1. Output: tab-separated rows under '#' comment lines, or
 * with -p only lines "ROW BYTES VALUE UNIT" for scripts (bench_soft_ucx.sh).
 *
 * With -P PAIRS it measures instead, for each number of pairs, the aggregate
 * RDMA write bandwidth of that many pairs (a process and its child) writing
 * at once on one fabric (rdma_write_N_pairs, the last -s size); with -Q N
 * the memory an idle connected RC QP makes resident (memory_per_rc_qp).
 *
 * RDMA buffers are allocated in whole 2 MiB pages with madvise(MADV_HUGEPAGE)
 * (transparent huge pages where the kernel gives them, as UCX's allocator
 * prefers huge pages for ucx_perftest's); -4 keeps them on 4 KiB pages. Both
 * outputs say which, and how much of the parent is on huge pages.
 *
 * usage: bench_soft [-s SIZES] [-m SIZES] [-l SIZES] [-t SECONDS] [-r RUNS] [-p] [-e] [-4] [-I BYTES]
 *                   [-P PAIRS | -Q N] [-h]
 * (`make bench` runs it with $(BENCH_SOFT_ARGS); see docs/bench-soft.md)
 *
 * This file is the parent's side, the scale and memory modes and the
 * options; the child is bench_soft_child.c, what both use
 * bench_soft_common.c (bench_soft.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench_soft.h"
#include "../common/al_procs.h"
#include "../common/fab_dir.h"

/* ---- Requester: streams of writes or sends ---- */

/*
 * Waits (bounded) for completions on a polled end's CQ; returns the send
 * work request id after the last one completed (at least `done`). A receive
 * completion sets e->recv_done and e->recv_len instead. Polls, rearms,
 * polls again, then waits on the wait object.
 */
static uint64_t cq_wait(end_t *e, uint64_t done, const char *what)
{
	ib_wc_t wcs[32], *free_l, *list, *w;
	uint64_t end = 0;
	boolean_t armed = FALSE;
	ib_api_status_t st;
	unsigned i, empty = 0;

	for (;;) {
		for (i = 0; i < 32; i++)
			wcs[i].p_next = i + 1 < 32 ? &wcs[i + 1] : NULL;
		free_l = wcs;
		list = NULL;
		st = ib_poll_cq(e->cq, &free_l, &list);
		if (st != IB_SUCCESS && st != IB_NOT_FOUND)
			die("%s: ib_poll_cq failed: %s", what, ib_get_err_str(st));
		if (st == IB_SUCCESS && list) {
			for (w = list; w; w = w->p_next) {
				if (w->status != IB_WCS_SUCCESS)
					die("%s: %s completion failed: %s", what,
					    ib_get_wc_type_str(w->wc_type),
					    ib_get_wc_status_str(w->status));
				if (w->wc_type == IB_WC_RECV) {
					if (w->wr_id + 1 > e->recv_done)
						e->recv_done = w->wr_id + 1;
					e->recv_len = w->length;
				} else if (w->wr_id + 1 > done) {
					done = w->wr_id + 1;
				}
			}
			return done;
		}
		if (g_poll) {
			/* Busy polling, as ucx_perftest and perftest do. The clock is
			 * read only every 1,024 empty polls: a read costs some 85 ns
			 * in a guest on kvm-clock, which would delay noticing the
			 * completion being waited for. */
			if (++empty % 1024)
				continue;
			if (!end)
				end = now_ns() + WAIT_US * 1000ull;
			else if (now_ns() > end)
				die("%s: no completion within %u s", what, WAIT_US / 1000000u);
			continue;
		}
		if (!armed) {
			CHECK(ib_rearm_cq(e->cq, FALSE));
			armed = TRUE;
			continue;
		}
		if (!end)
			end = now_ns() + WAIT_US * 1000ull;
		else if (now_ns() > end)
			die("%s: no completion within %u s", what, WAIT_US / 1000000u);
		cl_waitobj_wait_on(e->wo, SLICE_US, FALSE);
		armed = FALSE;
	}
}

/* What a stream posts. */
typedef struct stream {
	ib_wr_type_t type;              /* WR_RDMA_WRITE or WR_SEND */
	uint32_t len;                   /* bytes per work request */
	uint64_t raddr;                 /* writes: target address */
	net32_t rkey;                   /* writes: its R_Key */
	uint32_t window;                /* work requests in flight, a multiple of group */
	uint32_t group;                 /* work requests per chain, the last signaled */
	double secs;                    /* post for this long, then drain */
	const char *what;
} stream_t;

/* Runs a stream; returns the elapsed ns and the work requests completed in *p_count. */
static uint64_t stream_run(end_t *e, const stream_t *s, uint64_t *p_count)
{
	ib_send_wr_t wr[MSG_GROUP], *bad;
	ib_local_ds_t ds[MSG_GROUP];
	uint64_t start = e->seq, posted = start, done = start, t0, t_end, seq;
	boolean_t stop = FALSE;
	uint32_t k;
	uint8_t *p;

	t0 = now_ns();
	t_end = t0 + (uint64_t)(s->secs * 1e9);
	for (;;) {
		while (!stop && posted - done + s->group <= s->window) {
			for (k = 0; k < s->group; k++) {
				seq = posted + k;
				memset(&wr[k], 0, sizeof(wr[k]));
				wr[k].p_next = k + 1 < s->group ? &wr[k + 1] : NULL;
				wr[k].wr_id = seq;
				wr[k].wr_type = s->type;
				wr[k].send_opt = k + 1 == s->group ? IB_SEND_OPT_SIGNALED : 0;
				wr[k].num_ds = 1;
				wr[k].ds_array = &ds[k];
				ds[k].length = s->len;
				if (s->type == WR_SEND) {
					/* at most window (= n_slots) in flight: the slot is free */
					p = e->slots + (seq % e->n_slots) * e->slot_len;
					memcpy(p, &e->msg_seq, 8);
					e->msg_seq++;
					ds[k].vaddr = (uintptr_t)p;
					ds[k].lkey = e->slot_lkey;
				} else {
					ds[k].vaddr = (uintptr_t)e->buf;
					ds[k].lkey = e->buf_lkey;
					wr[k].remote_ops.vaddr = s->raddr;
					wr[k].remote_ops.rkey = s->rkey;
				}
			}
			CHECK(ib_post_send(e->qp, wr, &bad));
			posted += s->group;
		}
		if (!stop && now_ns() >= t_end)
			stop = TRUE;
		if (stop && done == posted)
			break;
		done = cq_wait(e, done, s->what);
	}
	e->seq = posted;
	*p_count = posted - start;
	return now_ns() - t0;
}

/* Writes in flight for a size: about RDMA_INFLIGHT bytes, 4..RDMA_MAX_WINDOW, chains of a quarter. */
static void rdma_window(uint32_t len, uint32_t *p_window, uint32_t *p_group)
{
	uint32_t w = RDMA_INFLIGHT / len;

	if (w > RDMA_MAX_WINDOW)
		w = RDMA_MAX_WINDOW;
	if (w < 4)
		w = 4;
	*p_group = w / 4;
	*p_window = *p_group * 4;
}

/* ---- The parent: memcpy and the requesters ---- */

/* Best (highest) figures of each row. */
typedef struct results {
	double memcpy_mbs[MAX_SIZES];
	double local_mbs[MAX_SIZES];
	double remote_mbs[MAX_SIZES];
	double rate[MAX_SIZES];         /* messages per second */
	double lat_us[MAX_SIZES];       /* one-way latency, us (lowest kept; 0: none yet) */
	unsigned long huge_kib;         /* of the parent, its RDMA buffers allocated */
} results_t;

/* The comment line that says on which pages the RDMA buffers are, with
 * how much of the parent the kernel put on huge pages when @p p_huge_kib
 * tells (the scale mode's parent holds no buffer). */
static void print_pages(const unsigned long *p_huge_kib)
{
	printf("# rdma buffers: %s", g_small_pages ? "4 KiB pages (-4)"
						   : "transparent huge pages asked (2 MiB, madvise)");
	if (!g_small_pages && p_huge_kib)
		printf("; %lu KiB of the parent on huge pages", *p_huge_kib);
	printf("\n");
}

static void keep_max(double *p, double v)
{
	if (v > *p)
		*p = v;
}

static void keep_min(double *p, double v)
{
	if (*p == 0 || v < *p)
		*p = v;
}

/* memcpy of len bytes from src to dst, repeated for secs; MB/s. */
static double memcpy_mbs(uint8_t *dst, const uint8_t *src, uint32_t len, double secs)
{
	uint64_t t0 = now_ns(), t, n = 0, batch = (1u << 20) / len + 1, i;

	do {
		for (i = 0; i < batch; i++) {
			memcpy(dst, src, len);
			/* the copy is used: the compiler may not drop or merge it */
			__asm__ __volatile__("" : : "r"(dst), "r"(src) : "memory");
		}
		n += batch;
		t = now_ns() - t0;
	} while (t < (uint64_t)(secs * 1e9));
	return (double)n * len * 1e3 / (double)t;
}

/* One RDMA write measurement from a to the buffer at raddr/rkey; MB/s. */
static double rdma_mbs(end_t *a, uint64_t raddr, net32_t rkey, uint32_t len, double secs,
		       const char *what)
{
	stream_t s;
	uint64_t ns, count;

	memset(&s, 0, sizeof(s));
	s.type = WR_RDMA_WRITE;
	s.len = len;
	s.raddr = raddr;
	s.rkey = rkey;
	rdma_window(len, &s.window, &s.group);
	s.secs = secs;
	s.what = what;
	ns = stream_run(a, &s, &count);
	return (double)count * len * 1e3 / (double)ns;
}

/* One message-rate measurement to the child; messages per second. */
static double send_rate(end_t *a, uint32_t len, double secs)
{
	stream_t s;
	uint64_t ns, count;
	ctl_t m;

	/* The child polls its CQ while the messages come (as ucx_perftest's
	 * receiver does), or (-e) takes them in its completion callback. */
	memset(&m, 0, sizeof(m));
	m.arg1 = g_poll;
	ctl_send(&m, CTL_ECHO);
	ctl_recv(&m, CTL_OK, WAIT_US / 1000);
	memset(&s, 0, sizeof(s));
	s.type = WR_SEND;
	s.len = len;
	s.window = MSG_WINDOW;
	s.group = MSG_GROUP;
	s.secs = secs;
	s.what = "RC sends";
	ns = stream_run(a, &s, &count);
	/* CTL_COUNT ends the child's polling too. */
	memset(&m, 0, sizeof(m));
	m.arg0 = a->msg_seq;
	ctl_send(&m, CTL_COUNT);
	ctl_recv(&m, CTL_OK, WAIT_US / 1000 + 1000);
	if (m.arg0 != a->msg_seq)
		die("the child received %" PRIu64 " of %" PRIu64 " messages", m.arg0, a->msg_seq);
	return (double)count * 1e9 / (double)ns;
}

/*
 * One latency measurement: a ping-pong of len-byte RC sends with the child,
 * which answers each message in echo mode. Before each message a receive
 * for the answer is posted (so the answer never meets an empty receive
 * queue); the answer must carry the message's number. Every MSG_GROUP-th
 * message is signaled, and the last one, so that at the end all are
 * retired. PP_WARMUP untimed round trips first. Returns the one-way latency
 * in us: half the mean round trip.
 */
static double pingpong_us(end_t *a, uint32_t len, double secs)
{
	ib_send_wr_t wr, *bad;
	ib_recv_wr_t rwr, *rbad;
	ib_local_ds_t ds, rds;
	uint8_t *ping = a->slots, *pong = a->slots + a->slot_len;
	uint64_t posted = a->seq, done = a->seq, t0 = 0, t_end = 0, t, rounds = 0, seq, got;
	boolean_t timing = FALSE, last = FALSE;
	ctl_t m;

	memset(&m, 0, sizeof(m));
	m.arg0 = 1;
	m.arg1 = g_poll; /* the child polls too, or answers from its callback (-e) */
	ctl_send(&m, CTL_ECHO);
	ctl_recv(&m, CTL_OK, WAIT_US / 1000);
	while (!last) {
		/* The clock only every PP_CLOCK_EVERY rounds (a read costs some
		 * 85 ns in a guest on kvm-clock): the time is taken at both ends
		 * of the timed rounds, which may run on by that many. */
		if (!timing && rounds == PP_WARMUP) {
			timing = TRUE;
			rounds = 0;
			t0 = now_ns();
			t_end = t0 + (uint64_t)(secs * 1e9);
		}
		last = timing && rounds % PP_CLOCK_EVERY == PP_CLOCK_EVERY - 1 && now_ns() >= t_end;
		/* unsignaled sends are retired by a later signaled one: keep the SQ from filling */
		while (posted - done + MSG_GROUP >= SQ_DEPTH)
			done = cq_wait(a, done, "RC ping-pong");

		seq = a->msg_seq++;
		memset(pong, 0xFF, 8);
		rds.vaddr = (uintptr_t)pong;
		rds.length = a->slot_len;
		rds.lkey = a->slot_lkey;
		memset(&rwr, 0, sizeof(rwr));
		rwr.wr_id = a->recv_seq++;
		rwr.num_ds = 1;
		rwr.ds_array = &rds;
		CHECK(ib_post_recv(a->qp, &rwr, &rbad));

		memcpy(ping, &seq, 8);
		ds.vaddr = (uintptr_t)ping;
		ds.length = len;
		ds.lkey = a->slot_lkey;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = posted;
		wr.wr_type = WR_SEND;
		wr.send_opt = (last || posted % MSG_GROUP == MSG_GROUP - 1 ? IB_SEND_OPT_SIGNALED : 0) |
			      pp_inline(a, len);
		wr.num_ds = 1;
		wr.ds_array = &ds;
		CHECK(ib_post_send(a->qp, &wr, &bad));
		posted++;

		while (a->recv_done < a->recv_seq)
			done = cq_wait(a, done, "RC ping-pong");
		memcpy(&got, pong, 8);
		if (a->recv_len != len || got != seq)
			die("ping-pong: message %" PRIu64 " of %u bytes answered by number %" PRIu64
			    " of %u bytes", seq, len, got, a->recv_len);
		rounds++;
	}
	t = now_ns() - t0;
	while (done < posted)
		done = cq_wait(a, done, "RC ping-pong");
	a->seq = posted;

	memset(&m, 0, sizeof(m));
	ctl_send(&m, CTL_ECHO);
	ctl_recv(&m, CTL_OK, WAIT_US / 1000);
	memset(&m, 0, sizeof(m));
	m.arg0 = a->msg_seq;
	ctl_send(&m, CTL_COUNT);
	ctl_recv(&m, CTL_OK, WAIT_US / 1000 + 1000);
	if (m.arg0 != a->msg_seq)
		die("the child received %" PRIu64 " of %" PRIu64 " messages", m.arg0, a->msg_seq);
	return (double)t / (double)rounds / 2e3;
}

/* -p: one line per figure, "ROW BYTES VALUE UNIT", for scripts. */
static void print_parseable(const opts_t *o, const results_t *r)
{
	unsigned i;

	print_pages(&r->huge_kib);
	for (i = 0; i < o->n_sizes; i++)
		printf("memcpy %u %.3f MB/s\n", o->sizes[i], r->memcpy_mbs[i]);
	for (i = 0; i < o->n_sizes; i++)
		printf("rdma_write_1_process %u %.3f MB/s\n", o->sizes[i], r->local_mbs[i]);
	for (i = 0; i < o->n_sizes; i++)
		printf("rdma_write_2_process %u %.3f MB/s\n", o->sizes[i], r->remote_mbs[i]);
	for (i = 0; i < o->n_msgs; i++)
		printf("send_rate_2_process %u %.3f msg/s\n", o->msgs[i], r->rate[i]);
	for (i = 0; i < o->n_lats; i++)
		printf("latency_2_process %u %.3f us\n", o->lats[i], r->lat_us[i]);
}

static void print_results(const opts_t *o, const results_t *r, uint8_t mtu)
{
	unsigned i;

	if (o->parseable) {
		print_parseable(o, r);
		return;
	}

	printf("# bench_soft: soft fabric, RC, path MTU %u B; best of %u run(s) of %.2f s each\n",
	       128u << mtu, o->runs, o->secs);
	printf("# ratio = RDMA write bandwidth / memcpy bandwidth of that size, both from this run;"
	       " MB = 10^6 bytes\n");
	printf("# latency = half the round trip of an RC send ping-pong with the child (lowest run);"
	       " sends of up to %u B inline (-I)\n", g_inline);
	print_pages(&r->huge_kib);
	printf("# %-22s\t%8s\t%12s\t%-5s\t%12s\t%s\n", "test", "bytes", "result", "unit",
	       "memcpy MB/s", "ratio");
	for (i = 0; i < o->n_sizes; i++)
		printf("%-24s\t%8u\t%12.2f\t%-5s\n", "memcpy", o->sizes[i], r->memcpy_mbs[i], "MB/s");
	for (i = 0; i < o->n_sizes; i++)
		printf("%-24s\t%8u\t%12.2f\t%-5s\t%12.1f\t%.3g\n", "rdma_write_1_process",
		       o->sizes[i], r->local_mbs[i], "MB/s", r->memcpy_mbs[i],
		       r->local_mbs[i] / r->memcpy_mbs[i]);
	for (i = 0; i < o->n_sizes; i++)
		printf("%-24s\t%8u\t%12.2f\t%-5s\t%12.1f\t%.3g\n", "rdma_write_2_process",
		       o->sizes[i], r->remote_mbs[i], "MB/s", r->memcpy_mbs[i],
		       r->remote_mbs[i] / r->memcpy_mbs[i]);
	for (i = 0; i < o->n_msgs; i++)
		printf("%-24s\t%8u\t%12.0f\t%-5s\n", "send_rate_2_process", o->msgs[i], r->rate[i],
		       "msg/s");
	for (i = 0; i < o->n_lats; i++)
		printf("%-24s\t%8u\t%12.2f\t%-5s\n", "latency_2_process", o->lats[i], r->lat_us[i],
		       "us");
}

/* Waits (bounded) for the child's exit after its CTL_BYE; SIGCHLD is blocked. */
static void reap_child(const sigset_t *chld)
{
	uint64_t end = now_ns() + WAIT_US * 1000ull, t;
	struct timespec ts;
	int st = 0;
	pid_t w;

	while ((w = waitpid(g_child, &st, WNOHANG)) == 0) {
		if ((t = now_ns()) > end)
			die("the child did not exit");
		ts.tv_sec = (time_t)((end - t) / 1000000000u);
		ts.tv_nsec = (long)((end - t) % 1000000000u);
		sigtimedwait(chld, NULL, &ts);
	}
	g_child = 0;
	if (w < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		die("the child ended with status 0x%x", (unsigned)st);
}

/*
 * Opens the parent's end on @p ca (RDMA buffer of @p rdma_len bytes,
 * message slots of @p slot_len) and connects its QP with the child's: the
 * HELLOs both ways, then the child's READY. *@p peer: the child's HELLO.
 */
static void child_connect(end_t *a, ib_ca_handle_t ca, uint64_t rdma_len, uint32_t slot_len,
			  ctl_t *peer)
{
	ctl_t m;

	end_open(a, ca, NULL, NULL, SQ_DEPTH, 1, rdma_len, FALSE, MSG_WINDOW, slot_len);
	qp_init(a, FALSE);
	ctl_recv(peer, CTL_HELLO, WAIT_US / 1000);
	if (peer->arg0 < rdma_len)
		die("the child's buffer is too small");
	ctl_hello(&m, a);
	ctl_send(&m, CTL_HELLO);
	qp_connect(a, peer->lid, peer->qpn, peer->psn, peer->mtu);
	ctl_recv(&m, CTL_READY, WAIT_US / 1000);
}

/* Says goodbye to the child and waits (bounded) for its exit. */
static void child_bye(const sigset_t *chld)
{
	ctl_t m;

	memset(&m, 0, sizeof(m));
	ctl_send(&m, CTL_BYE);
	ctl_recv(&m, CTL_BYE, WAIT_US / 1000);
	reap_child(chld);
}

static int parent_main(const opts_t *o, const sigset_t *chld)
{
	ib_al_handle_t al;
	ib_ca_handle_t ca[2];
	ib_net64_t guids[2];
	size_t n = 2;
	end_t a_loc, b_loc, a_rem;
	results_t res;
	uint64_t max_rdma, seed;
	uint32_t max_msg, len;
	unsigned r, i;
	ctl_t m, peer;

	opts_largest(o, &max_rdma, &max_msg);
	setenv("IBAL_SOFT_CAS", "2", 1);
	CHECK(ib_open_al(&al));
	CHECK(ib_get_ca_guids(al, guids, &n));
	if (n < 2)
		die("two soft CAs wanted, %zu found", n);
	CHECK(ib_open_ca(al, guids[0], NULL, NULL, &ca[0]));
	CHECK(ib_open_ca(al, guids[1], NULL, NULL, &ca[1]));

	/* One process: CA 0 writes into CA 1. */
	end_open(&a_loc, ca[0], NULL, NULL, SQ_DEPTH, 1, max_rdma, FALSE, 1, 64);
	end_open(&b_loc, ca[1], NULL, NULL, 1, 1, max_rdma, TRUE, 1, 64);
	qp_init(&a_loc, FALSE);
	qp_init(&b_loc, TRUE);
	qp_connect(&a_loc, b_loc.lid, b_loc.qpn, b_loc.psn, b_loc.mtu);
	qp_connect(&b_loc, a_loc.lid, a_loc.qpn, a_loc.psn, a_loc.mtu);

	/* Two processes: CA 0 writes and sends to the child (one receive: ping-pong answers). */
	child_connect(&a_rem, ca[0], max_rdma, (max_msg + 63u) & ~63u, &peer);

	/* Each run measures every row once; the rows of one size follow each other. */
	memset(&res, 0, sizeof(res));
	res.huge_kib = huge_page_kib();
	for (r = 0; r < o->runs; r++) {
		for (i = 0; i < o->n_sizes; i++) {
			len = o->sizes[i];
			keep_max(&res.memcpy_mbs[i], memcpy_mbs(b_loc.buf, a_loc.buf, len, o->secs));

			seed = mix(now_ns());
			pattern(a_loc.buf, len, seed);
			memset(b_loc.buf, 0, len);
			keep_max(&res.local_mbs[i], rdma_mbs(&a_loc, (uintptr_t)b_loc.buf,
							     b_loc.buf_rkey, len, o->secs,
							     "RDMA write, one process"));
			if (memcmp(b_loc.buf, a_loc.buf, len))
				die("RDMA write, one process: the target does not hold what was sent");

			seed = mix(now_ns());
			pattern(a_rem.buf, len, seed);
			keep_max(&res.remote_mbs[i], rdma_mbs(&a_rem, peer.va, peer.rkey, len,
							      o->secs, "RDMA write, two processes"));
			memset(&m, 0, sizeof(m));
			m.arg0 = len;
			m.arg1 = seed;
			ctl_send(&m, CTL_CHECK);
			ctl_recv(&m, CTL_OK, WAIT_US / 1000);
		}
		for (i = 0; i < o->n_msgs; i++)
			keep_max(&res.rate[i], send_rate(&a_rem, o->msgs[i], o->secs));
		for (i = 0; i < o->n_lats; i++)
			keep_min(&res.lat_us[i], pingpong_us(&a_rem, o->lats[i], o->secs));
	}
	print_results(o, &res, a_loc.mtu < peer.mtu ? a_loc.mtu : peer.mtu);

	child_bye(chld);
	CHECK(ib_close_al(al));
	end_free(&a_loc);
	end_free(&b_loc);
	end_free(&a_rem);
	close(g_fd);
	return 0;
}

/* ---- Scale: several pairs of processes at once (-P) ---- */

#define MAX_PAIRS 8u

/*
 * One pair's parent (its child runs child_main): one CA, a QP to the child,
 * then, when the whole set is ready (a byte on @p ready_fd, then one read
 * from @p go_fd), RDMA writes of @p len bytes for o->secs; its MB/s go to
 * @p res_fd.
 */
static int pair_main(const opts_t *o, const sigset_t *chld, uint32_t len, int ready_fd, int go_fd,
		     int res_fd)
{
	ib_al_handle_t al;
	ib_ca_handle_t ca;
	ib_net64_t guid;
	size_t n = 1;
	end_t a;
	ctl_t peer;
	double mbs;
	char c = 'r';

	CHECK(ib_open_al(&al));
	CHECK(ib_get_ca_guids(al, &guid, &n));
	CHECK(ib_open_ca(al, guid, NULL, NULL, &ca));
	child_connect(&a, ca, len, 64, &peer);
	pattern(a.buf, len, 7);
	if (write(ready_fd, &c, 1) != 1 || read(go_fd, &c, 1) != 1)
		die("the scale run's start failed");
	mbs = rdma_mbs(&a, peer.va, peer.rkey, len, o->secs, "RDMA write, pairs at once");
	if (write(res_fd, &mbs, sizeof(mbs)) != (ssize_t)sizeof(mbs))
		die("reporting the result failed");
	child_bye(chld);
	CHECK(ib_close_al(al));
	end_free(&a);
	close(g_fd);
	return 0;
}

static int spawn_pair(const opts_t *o, const sigset_t *chld, const sigset_t *old_mask);

static int g_ready[2], g_go[2], g_res[2];

/*
 * -P: for each number of pairs, best of o->runs: that many pairs (each a
 * process and its child, all on the fabric directory) write at once for
 * o->secs, started together; the row is the sum of their bandwidths.
 */
static int scale_main(const opts_t *o, const sigset_t *chld, const sigset_t *old_mask)
{
	double best[MAX_SIZES], mbs, sum;
	uint32_t len = o->sizes[o->n_sizes - 1];
	pid_t pids[MAX_PAIRS];
	unsigned i, k, r;
	int st;
	char go[MAX_PAIRS], c;

	memset(go, 'g', sizeof(go));
	for (i = 0; i < o->n_pairs; i++) {
		best[i] = 0;
		for (r = 0; r < o->runs; r++) {
			if (pipe(g_ready) || pipe(g_go) || pipe(g_res))
				die("pipe: %s", strerror(errno));
			for (k = 0; k < o->pairs[i]; k++) {
				fflush(stdout);
				pids[k] = fork();
				if (pids[k] < 0)
					die("fork: %s", strerror(errno));
				if (pids[k] == 0)
					_exit(spawn_pair(o, chld, old_mask));
			}
			for (k = 0; k < o->pairs[i]; k++)
				if (test_oob_read(g_ready[0], &c, 1, (int)(WAIT_US / 1000)))
					die("pair %u of %u did not get ready", k + 1, o->pairs[i]);
			if (write(g_go[1], go, o->pairs[i]) != (ssize_t)o->pairs[i])
				die("starting the pairs failed");
			for (sum = 0, k = 0; k < o->pairs[i]; k++) {
				if (test_oob_read(g_res[0], &mbs, sizeof(mbs), (int)(WAIT_US / 1000)))
					die("a pair of %u gave no result", o->pairs[i]);
				sum += mbs;
			}
			for (k = 0; k < o->pairs[i]; k++)
				if (waitpid(pids[k], &st, 0) != pids[k] || !WIFEXITED(st) ||
				    WEXITSTATUS(st))
					die("a pair of %u failed", o->pairs[i]);
			close(g_ready[0]);
			close(g_ready[1]);
			close(g_go[0]);
			close(g_go[1]);
			close(g_res[0]);
			close(g_res[1]);
			keep_max(&best[i], sum);
		}
	}
	if (!o->parseable) {
		printf("# bench_soft -P: pairs of processes (a process and its child) each doing RC RDMA"
		       " writes at once on one soft fabric; best of %u run(s) of %.2f s\n",
		       o->runs, o->secs);
		printf("# aggregate = the sum of the pairs' bandwidths; ratio = aggregate / the first"
		       " row's; MB = 10^6 bytes\n");
		print_pages(NULL);
		printf("# %-22s\t%8s\t%12s\t%-5s\t%s\n", "test", "bytes", "aggregate", "unit",
		       "ratio");
	}
	for (i = 0; i < o->n_pairs; i++) {
		char row[32];

		snprintf(row, sizeof(row), "rdma_write_%u_pairs", o->pairs[i]);
		if (o->parseable)
			printf("%s %u %.3f MB/s\n", row, len, best[i]);
		else
			printf("%-24s\t%8u\t%12.2f\t%-5s\t%.3g\n", row, len, best[i], "MB/s",
			       best[0] > 0 ? best[i] / best[0] : 0.0);
	}
	return 0;
}

/* A pair for scale_main: forks the pair's child, then runs pair_main. */
static int spawn_pair(const opts_t *o, const sigset_t *chld, const sigset_t *old_mask)
{
	pid_t parent = getpid();
	int sv[2];

	close(g_ready[0]);
	close(g_go[1]);
	close(g_res[0]);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die("socketpair: %s", strerror(errno));
	g_fab_dir[0] = 0; /* the run's directory is the caller's to remove */
	fflush(stdout);
	g_child = fork();
	if (g_child < 0)
		die("fork: %s", strerror(errno));
	if (g_child == 0) {
		sigprocmask(SIG_SETMASK, old_mask, NULL);
		close(sv[0]);
		g_fd = sv[1];
		_exit(child_main(parent, o));
	}
	close(sv[1]);
	g_fd = sv[0];
	return pair_main(o, chld, o->sizes[o->n_sizes - 1], g_ready[1], g_go[0], g_res[1]);
}

/* ---- Memory per connected RC QP (-Q) ---- */

static void AL_API idle_cq_cb(const ib_cq_handle_t h_cq, void *context)
{
	(void)h_cq;
	(void)context;
}

/* Resident bytes of the process (/proc/self/statm), 0 if unknown. */
static size_t resident(void)
{
	unsigned long size, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu %lu", &size, &res) != 2)
			res = 0;
		fclose(f);
	}
	return (size_t)res * (size_t)sysconf(_SC_PAGESIZE);
}

/*
 * -Q N: N RC QPs on soft CA 0 connected to N on CA 1 (one process; 16 work
 * requests each way, 4 segments, as an application's QP), idle; the memory
 * they made resident, per QP: the heap's pages and the connections' arena
 * (prov_conn_mem.h), whose chunks the heap's count (mallinfo2) does not see.
 */
static int qp_memory_main(const opts_t *o)
{
	ib_al_handle_t al;
	ib_ca_handle_t ca[2];
	ib_net64_t guids[2];
	ib_pd_handle_t pd[2];
	ib_cq_handle_t cq[2];
	ib_qp_handle_t *qp;
	ib_qp_create_t qc;
	ib_qp_attr_t qa;
	ib_cq_create_t cc;
	ib_net16_t lid[2];
	uint8_t mtu[2];
	size_t n = 2, before, after;
	uint32_t i, k, nq = o->mem_qps;
	end_t e;

	setenv("IBAL_SOFT_CAS", "2", 1);
	CHECK(ib_open_al(&al));
	CHECK(ib_get_ca_guids(al, guids, &n));
	if (n < 2)
		die("two soft CAs wanted, %zu found", n);
	qp = (ib_qp_handle_t *)calloc(2 * (size_t)nq, sizeof(*qp));
	if (!qp)
		die("out of memory");
	for (k = 0; k < 2; k++) {
		CHECK(ib_open_ca(al, guids[k], NULL, NULL, &ca[k]));
		CHECK(ib_alloc_pd(ca[k], IB_PDT_NORMAL, NULL, &pd[k]));
		memset(&cc, 0, sizeof(cc));
		cc.size = 64;
		cc.pfn_comp_cb = idle_cq_cb;
		CHECK(ib_create_cq(ca[k], &cc, NULL, NULL, &cq[k]));
		port_info(ca[k], &lid[k], &mtu[k]);
	}
	before = resident();
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	qc.sq_depth = qc.rq_depth = 16;
	qc.sq_sge = qc.rq_sge = 4;
	qc.sq_signaled = TRUE;
	for (i = 0; i < 2 * nq; i++) {
		k = i % 2;
		qc.h_sq_cq = qc.h_rq_cq = cq[k];
		CHECK(ib_create_qp(pd[k], &qc, NULL, NULL, &qp[i]));
	}
	for (i = 0; i < 2 * nq; i++) {
		memset(&e, 0, sizeof(e));
		e.qp = qp[i];
		e.mtu = mtu[i % 2];
		e.psn = CL_HTON32(0x10);
		CHECK(ib_query_qp(qp[i ^ 1], &qa));
		qp_init(&e, TRUE);
		qp_connect(&e, lid[(i % 2) ^ 1], qa.num, e.psn, mtu[(i % 2) ^ 1]);
	}
	after = resident();
	if (o->parseable)
		printf("memory_per_rc_qp %u %.0f B\n", nq, (double)(after - before) / (2.0 * nq));
	else
		printf("# memory of an idle connected RC QP: resident bytes added by %u connected pairs,"
		       " per QP;"
		       " goal 8192 B\n%-24s\t%8u\t%12.0f\t%-5s\n", nq, "memory_per_rc_qp", nq,
		       (double)(after - before) / (2.0 * nq), "B");
	CHECK(ib_close_al(al));
	free(qp);
	return 0;
}

/* ---- Options and main ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench_soft [-s SIZES] [-m SIZES] [-l SIZES] [-t SECONDS] [-r RUNS] [-p] [-e] [-4]\n"
		"                  [-I BYTES] [-P PAIRS | -Q N]\n"
		"  -s SIZES    RDMA write (and memcpy) sizes, comma-separated, suffix k or m\n"
		"              for KiB/MiB, 1..64m (default 64,4k,64k,1m)\n"
		"  -m SIZES    message sizes of the send rate, %u..%u (default 8,64)\n"
		"  -l SIZES    message sizes of the ping-pong latency, %u..%u (default 8,64)\n"
		"  -I BYTES    ping-pong sends of up to BYTES are posted inline, as perftest's\n"
		"              ib_send_lat does (default %u; 0: none)\n"
		"  -t SECONDS  per measurement (default 0.3)\n"
		"  -r RUNS     runs; each row keeps its best (default 3)\n"
		"  -p          parseable output: only lines \"ROW BYTES VALUE UNIT\"\n"
		"  -e          the parent waits for completion events (a wait object)\n"
		"              instead of polling its CQ\n"
		"  -4          RDMA buffers on 4 KiB pages (default: transparent huge pages\n"
		"              asked for, as UCX's allocator prefers huge pages)\n"
		"  -P PAIRS    scale instead: for each number (1..8) that many pairs of\n"
		"              processes do RDMA writes of the last -s size at once;\n"
		"              rows give the sum of their bandwidths\n"
		"  -Q N        memory instead: resident bytes per idle connected RC QP, over N\n"
		"              connected pairs in this process (1..4096)\n"
		"  -h          this help\n"
		"Runs in a private soft fabric directory (IBAL_SOFT_FABRIC is set to it).\n",
		MIN_MSG, MAX_MSG, MIN_MSG, MAX_MSG, PP_INLINE);
}

/* Parses "64,4k,1m" into sizes[] (at most MAX_SIZES), each in lo..hi. */
static boolean_t parse_sizes(const char *arg, uint32_t lo, uint32_t hi, uint32_t *sizes,
			     unsigned *p_n)
{
	const char *p = arg;
	char *end;
	unsigned long long v;
	unsigned n = 0;

	for (;;) {
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || end == p || n == MAX_SIZES)
			return FALSE;
		if (*end == 'k' || *end == 'K') {
			v <<= 10;
			end++;
		} else if (*end == 'm' || *end == 'M') {
			v <<= 20;
			end++;
		}
		if (v < lo || v > hi)
			return FALSE;
		sizes[n++] = (uint32_t)v;
		if (!*end)
			break;
		if (*end != ',')
			return FALSE;
		p = end + 1;
	}
	*p_n = n;
	return TRUE;
}

int main(int argc, char **argv)
{
	opts_t o = { { 64, 4096, 64u << 10, 1u << 20 }, 4, { 8, 64 }, 2, { 8, 64 }, 2, 0.3, 3,
		     FALSE, { 0 }, 0, 0 };
	char *end;
	int opt, sv[2], rc;
	unsigned measurements;
	sigset_t chld, old_mask;
	pid_t parent = getpid();

	while ((opt = getopt(argc, argv, "s:m:l:t:r:I:P:Q:pe4h")) != -1) {
		switch (opt) {
		case 'I':
			g_inline = (uint32_t)strtoul(optarg, &end, 10);
			if (end == optarg || *end || g_inline > MAX_MSG)
				goto bad;
			break;
		case 'P':
			if (!parse_sizes(optarg, 1, MAX_PAIRS, o.pairs, &o.n_pairs))
				goto bad;
			break;
		case 'Q':
			o.mem_qps = (uint32_t)strtoul(optarg, &end, 10);
			if (end == optarg || *end || o.mem_qps < 1 || o.mem_qps > 4096)
				goto bad;
			break;
		case 'e':
			g_poll = FALSE;
			break;
		case '4':
			g_small_pages = TRUE;
			break;
		case 's':
			if (!parse_sizes(optarg, 1, MAX_RDMA, o.sizes, &o.n_sizes))
				goto bad;
			break;
		case 'm':
			if (!parse_sizes(optarg, MIN_MSG, MAX_MSG, o.msgs, &o.n_msgs))
				goto bad;
			break;
		case 'l':
			if (!parse_sizes(optarg, MIN_MSG, MAX_MSG, o.lats, &o.n_lats))
				goto bad;
			break;
		case 'p':
			o.parseable = TRUE;
			break;
		case 't':
			o.secs = strtod(optarg, &end);
			if (end == optarg || *end || !(o.secs >= 0.001 && o.secs <= 60))
				goto bad;
			break;
		case 'r':
			o.runs = (unsigned)strtoul(optarg, &end, 10);
			if (end == optarg || *end || o.runs < 1 || o.runs > 100)
				goto bad;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc)
		goto bad;

	/* A generous bound of the whole run: two minutes plus 5 s and twice
	 * the measured time per measurement. */
	measurements = o.runs * (3 * o.n_sizes + o.n_msgs + o.n_lats + o.n_pairs);
	g_limit_s = 120u + (unsigned)(measurements * (5.0 + 2 * o.secs));
	signal(SIGALRM, on_alarm);
	signal(SIGTERM, on_alarm);
	signal(SIGINT, on_alarm);
	alarm(g_limit_s);

	strcpy(g_fab_dir, "/tmp/ibal-benchsoft-XXXXXX");
	if (!mkdtemp(g_fab_dir)) {
		g_fab_dir[0] = 0;
		die("mkdtemp: %s", strerror(errno));
	}
	setenv("IBAL_SOFT_FABRIC", g_fab_dir, 1);
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die("socketpair: %s", strerror(errno));
	/* Blocked in the parent and every thread it starts: reap_child() waits for it. */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old_mask);
	if (o.n_pairs || o.mem_qps) {
		close(sv[0]);
		close(sv[1]);
		rc = o.mem_qps ? qp_memory_main(&o) : scale_main(&o, &chld, &old_mask);
		test_rm_tree(g_fab_dir);
		return rc;
	}
	fflush(stdout);
	g_child = fork();
	if (g_child < 0)
		die("fork: %s", strerror(errno));
	if (g_child == 0) {
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		close(sv[0]);
		g_fd = sv[1];
		_exit(child_main(parent, &o));
	}
	close(sv[1]);
	g_fd = sv[0];
	rc = parent_main(&o, &chld);
	test_rm_tree(g_fab_dir);
	return rc;

bad:
	usage(stderr);
	return 2;
}
