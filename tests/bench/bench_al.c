/*
 * ibal bench: what the access layer adds to ib_post_send / ib_poll_cq over the provider's slot.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Sets up a UD QP pair on two soft CAs through the public API, then, for
 * each of ib_post_send and ib_poll_cq (one completion), runs N calls through
 * the public function and N calls straight into the provider's slot
 * (p_ops->post_send(p_prov, ...), found through the internal headers). Each
 * measured call sits alone in a noinline function of its own:
 *
 *   bench_al_post_public  bench_al_post_prov  bench_al_poll_public  bench_al_poll_prov
 *
 * so that `valgrind --tool=callgrind --toggle-collect=FUNC` counts exactly
 * the instructions of that call (and nothing of the soft provider's own
 * threads, nor of the setup and draining around it). The work around each
 * measured call (draining the send CQ, waiting for the completion to poll)
 * is identical for both variants and not collected.
 *
 * usage: bench_al [-n N]         timing: ns per call of each variant
 *        bench_al -c [-n N]      callgrind mode: prints "CG\tFUNC\tcalls"
 *                                (tests/bench/bench_al.sh divides the Ir)
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include "al_verbs.h"
#include "../common/fab_dir.h"

#define QKEY 0x0BADCAFEu
#define WAIT_NS (20ull * 1000 * 1000 * 1000) /* bound of a wait for a completion */
#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

typedef struct end {
	ib_ca_handle_t ca;
	ib_pd_handle_t pd;
	ib_cq_handle_t cq;           /* send and receive */
	ib_qp_handle_t qp;
	ib_mr_handle_t mr;
	ib_av_handle_t av;           /* to the other side */
	net32_t lkey;
	net32_t qpn;
	ib_net16_t lid;
	uint8_t buf[256];
} end_t;

static ib_al_handle_t h_al;
static end_t ea, eb;
static char fab_dir[64];
static ib_send_wr_t wr;          /* A -> B, 64 bytes */
static ib_local_ds_t ds;
static al_verbs_obj_t *p_qp_v, *p_cq_v; /* A's QP and CQ, behind their handles */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Reports a failure and exits, removing the fabric directory. */
static void die(const char *what, ib_api_status_t st)
{
	fprintf(stderr, "bench_al: %s: %s\n", what, ib_get_err_str(st));
	if (fab_dir[0])
		test_rm_tree(fab_dir);
	exit(1);
}

#define CHECK(call)                                \
	do {                                       \
		ib_api_status_t st__ = (call);     \
		if (st__ != IB_SUCCESS)            \
			die(#call, st__);          \
	} while (0)

/* ---- Setup (public API only) ---- */

/* The CQs are never armed, so this never runs; ib_create_cq wants one. */
static void AL_API on_comp(const ib_cq_handle_t h_cq, void *context)
{
	(void)h_cq;
	(void)context;
}

static void to_state(ib_qp_handle_t qp, ib_qp_state_t s)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = s;
	if (s == IB_QPS_INIT) {
		m.state.init.primary_port = 1;
		m.state.init.qkey = CL_HTON32(QKEY);
	} else if (s == IB_QPS_RTS) {
		m.state.rts.sq_psn = CL_HTON32(1);
	}
	CHECK(ib_modify_qp(qp, &m));
}

static void end_open(end_t *e, ib_net64_t guid)
{
	ib_cq_create_t cc;
	ib_qp_create_t qc;
	ib_mr_create_t mc;
	ib_qp_attr_t qa;
	ib_ca_attr_t *attr;
	uint32_t size = 0;
	net32_t rkey;

	CHECK(ib_open_ca(h_al, guid, NULL, e, &e->ca));
	if (ib_query_ca(e->ca, NULL, &size) != IB_INSUFFICIENT_MEMORY)
		die("ib_query_ca size", IB_ERROR);
	attr = (ib_ca_attr_t *)calloc(1, size);
	CHECK(ib_query_ca(e->ca, attr, &size));
	e->lid = attr->p_port_attr[0].lid;
	free(attr);
	CHECK(ib_alloc_pd(e->ca, IB_PDT_UD, e, &e->pd));
	/* Polled only: never armed. */
	memset(&cc, 0, sizeof(cc));
	cc.size = 64;
	cc.pfn_comp_cb = on_comp;
	CHECK(ib_create_cq(e->ca, &cc, e, NULL, &e->cq));
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_UNRELIABLE_DGRM;
	qc.sq_depth = 16;
	qc.rq_depth = 16;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = qc.h_rq_cq = e->cq;
	qc.sq_signaled = TRUE;
	CHECK(ib_create_qp(e->pd, &qc, e, NULL, &e->qp));
	CHECK(ib_query_qp(e->qp, &qa));
	e->qpn = qa.num;
	to_state(e->qp, IB_QPS_INIT);
	to_state(e->qp, IB_QPS_RTR);
	to_state(e->qp, IB_QPS_RTS);
	mc.vaddr = e->buf;
	mc.length = sizeof(e->buf);
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	CHECK(ib_reg_mem(e->pd, &mc, &e->lkey, &rkey, &e->mr));
}

static void make_av(end_t *e, const end_t *peer)
{
	ib_av_attr_t a;

	memset(&a, 0, sizeof(a));
	a.port_num = 1;
	a.dlid = peer->lid;
	CHECK(ib_create_av(e->pd, &a, &e->av));
}

static void up(void)
{
	ib_net64_t guids[2];
	size_t n = 2;

	strcpy(fab_dir, "/tmp/ibal-benchal-XXXXXX");
	if (!mkdtemp(fab_dir)) {
		perror("bench_al: mkdtemp");
		exit(1);
	}
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "2", 1);
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
	CHECK(ib_open_al(&h_al));
	CHECK(ib_get_ca_guids(h_al, guids, &n));
	if (n < 2)
		die("two soft CAs", IB_NOT_FOUND);
	end_open(&ea, guids[0]);
	end_open(&eb, guids[1]);
	make_av(&ea, &eb);
	make_av(&eb, &ea);

	/* B posts no receives: A's datagrams are dropped at B (UD), and A
	 * gets one send completion per post. */
	ds.vaddr = (uintptr_t)ea.buf;
	ds.length = 64;
	ds.lkey = ea.lkey;
	wr.wr_type = WR_SEND;
	wr.send_opt = IB_SEND_OPT_SIGNALED;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	wr.dgrm.ud.h_av = ea.av;
	wr.dgrm.ud.remote_qp = eb.qpn;
	wr.dgrm.ud.remote_qkey = CL_HTON32(QKEY);

	p_qp_v = (al_verbs_obj_t *)al_handle_lookup(AL_HANDLE_FROM_IB(ea.qp), AL_HDL_QP);
	p_cq_v = (al_verbs_obj_t *)al_handle_lookup(AL_HANDLE_FROM_IB(ea.cq), AL_HDL_CQ);
	if (!p_qp_v || !p_cq_v || !p_qp_v->p_ops->post_send || !p_cq_v->p_ops->poll_cq ||
	    !p_cq_v->p_ops->peek_cq)
		die("internal objects", IB_ERROR);
}

static void down(void)
{
	CHECK(ib_close_al(h_al));
	test_rm_tree(fab_dir);
}

/* ---- The measured calls: one call each, nothing else ---- */

/* Global (not static) so that their names stay in the symbol table for
 * --toggle-collect; declared first for -Wmissing-prototypes. */
ib_api_status_t bench_al_post_public(void);
ib_api_status_t bench_al_post_prov(void);
ib_api_status_t bench_al_poll_public(ib_wc_t **pp_free, ib_wc_t **pp_done);
ib_api_status_t bench_al_poll_prov(ib_wc_t **pp_free, ib_wc_t **pp_done);

NOINLINE ib_api_status_t bench_al_post_public(void)
{
	return ib_post_send(ea.qp, &wr, NULL);
}

NOINLINE ib_api_status_t bench_al_post_prov(void)
{
	return p_qp_v->p_ops->post_send(p_qp_v->p_prov, &wr, NULL);
}

NOINLINE ib_api_status_t bench_al_poll_public(ib_wc_t **pp_free, ib_wc_t **pp_done)
{
	return ib_poll_cq(ea.cq, pp_free, pp_done);
}

NOINLINE ib_api_status_t bench_al_poll_prov(ib_wc_t **pp_free, ib_wc_t **pp_done)
{
	return p_cq_v->p_ops->poll_cq(p_cq_v->p_prov, pp_free, pp_done);
}

/* ---- Helpers around them (same for both variants, not measured) ---- */

/* Waits (bounded) until A's CQ holds a completion. */
static void wait_cqe(void)
{
	uint64_t end = now_ns() + WAIT_NS;
	uint32_t n = 0;

	while (p_cq_v->p_ops->peek_cq(p_cq_v->p_prov, &n) != IB_SUCCESS || !n) {
		if (now_ns() > end)
			die("no send completion", IB_TIMEOUT);
		sched_yield();
	}
}

/* Takes one completion off A's CQ through the provider; checks it. */
static void reap(void)
{
	ib_wc_t wc, *p_free = &wc, *p_done = NULL;

	wc.p_next = NULL;
	wait_cqe();
	CHECK(p_cq_v->p_ops->poll_cq(p_cq_v->p_prov, &p_free, &p_done));
	if (p_done != &wc || wc.status != IB_WCS_SUCCESS || wc.wc_type != IB_WC_SEND)
		die("send completion", IB_ERROR);
}

typedef ib_api_status_t (*post_fn_t)(void);
typedef ib_api_status_t (*poll_fn_t)(ib_wc_t **, ib_wc_t **);

/* n posts through fn, each reaped; returns the ns spent inside fn. */
static uint64_t run_post(post_fn_t fn, unsigned n)
{
	uint64_t t, sum = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		t = now_ns();
		if (fn() != IB_SUCCESS)
			die("post", IB_ERROR);
		sum += now_ns() - t;
		reap();
	}
	return sum;
}

/* n polls of one completion each through fn; returns the ns spent inside fn. */
static uint64_t run_poll(poll_fn_t fn, unsigned n)
{
	ib_wc_t wc, *p_free, *p_done;
	uint64_t t, sum = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		CHECK(p_qp_v->p_ops->post_send(p_qp_v->p_prov, &wr, NULL));
		wait_cqe();
		wc.p_next = NULL;
		p_free = &wc;
		p_done = NULL;
		t = now_ns();
		if (fn(&p_free, &p_done) != IB_SUCCESS)
			die("poll", IB_ERROR);
		sum += now_ns() - t;
		if (p_done != &wc || p_free || wc.status != IB_WCS_SUCCESS)
			die("polled completion", IB_ERROR);
	}
	return sum;
}

/* Cost of the two clock reads around a call, to take off the timings. */
static double clock_pair_ns(unsigned n)
{
	uint64_t t, sum = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		t = now_ns();
		sum += now_ns() - t;
	}
	return (double)sum / n;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_al [-c] [-n N]\n"
			"  -c  callgrind mode: N calls of each measured function, printed as\n"
			"      CG<TAB>function<TAB>calls (run under --toggle-collect=function)\n"
			"  -n  calls per variant (default 100000; 10000 with -c)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned n = 0, warm, best_of = 5, r;
	int opt, cg = 0;
	double base, t[4] = { 0, 0, 0, 0 }, v;

	while ((opt = getopt(argc, argv, "cn:")) != -1) {
		if (opt == 'c')
			cg = 1;
		else if (opt == 'n')
			n = (unsigned)strtoul(optarg, NULL, 0);
		else
			usage();
	}
	if (optind != argc)
		usage();
	if (!n)
		n = cg ? 10000 : 100000;
	warm = n / 10 + 1;
	up();

	if (cg) {
		/* Every call of a measured function is counted, warm-up
		 * included: the script divides by the counts printed here. */
		run_post(bench_al_post_public, warm + n);
		run_post(bench_al_post_prov, warm + n);
		run_poll(bench_al_poll_public, warm + n);
		run_poll(bench_al_poll_prov, warm + n);
		printf("CG\tbench_al_post_public\t%u\n", warm + n);
		printf("CG\tbench_al_post_prov\t%u\n", warm + n);
		printf("CG\tbench_al_poll_public\t%u\n", warm + n);
		printf("CG\tbench_al_poll_prov\t%u\n", warm + n);
	} else {
		run_post(bench_al_post_public, warm);
		run_post(bench_al_post_prov, warm);
		run_poll(bench_al_poll_public, warm);
		run_poll(bench_al_poll_prov, warm);
		base = clock_pair_ns(n);
		/* Best of a few rounds, variants alternating. */
		for (r = 0; r < best_of; r++) {
			v = (double)run_post(bench_al_post_public, n) / n - base;
			if (!r || v < t[0])
				t[0] = v;
			v = (double)run_post(bench_al_post_prov, n) / n - base;
			if (!r || v < t[1])
				t[1] = v;
			v = (double)run_poll(bench_al_poll_public, n) / n - base;
			if (!r || v < t[2])
				t[2] = v;
			v = (double)run_poll(bench_al_poll_prov, n) / n - base;
			if (!r || v < t[3])
				t[3] = v;
		}
		printf("bench_al: %u calls per variant, best of %u rounds, clock pair %.1f ns taken off\n",
		       n, best_of, base);
		printf("ib_post_send overhead: %.1f ns/call (public %.1f vs provider %.1f)\n",
		       t[0] - t[1], t[0], t[1]);
		printf("ib_poll_cq overhead: %.1f ns/call (public %.1f vs provider %.1f)\n",
		       t[2] - t[3], t[2], t[3]);
	}
	down();
	return 0;
}
