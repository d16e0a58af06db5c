/*
 * ibal bench: what the verbs provider adds to libibverbs per work request and per completion.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * No device is needed. libibverbs' ibv_post_send, ibv_post_recv and
 * ibv_poll_cq are inline calls through the QP's or CQ's
 * context->ops (verbs.h), so a hand-made struct ibv_context whose ops are
 * stub functions stands in for the device. A verbs_qp_t and verbs_cq_t are
 * built by hand around a fake ibv_qp and ibv_cq (as tests/verbs/
 * test_verbs_unit.c builds its CA), and each measurement runs the same
 * work through the provider (verbs_post_send, verbs_post_recv,
 * verbs_poll_cq) and through libibverbs directly with requests built once
 * (what a raw libibverbs program passes). The stubs do the same work for
 * both (read each request's first SGE, fill the completions asked for), so
 * the difference is exactly what the provider adds: translation, checks,
 * the call into it. Each measured call sits alone in a noinline function:
 *
 *   vdp_send1_{raw,prov}   one RC send, one SGE (signaled)
 *   vdp_send16_{raw,prov}  a chain of 16 RC sends, one SGE each
 *   vdp_rdma1_{raw,prov}   one RC RDMA write, one SGE
 *   vdp_ud1_{raw,prov}     one UD send (address vector, Q_Key), one SGE
 *   vdp_recv1_{raw,prov}   one receive, one SGE
 *   vdp_recv16_{raw,prov}  a chain of 16 receives
 *   vdp_poll1_{raw,prov}   one receive completion
 *   vdp_poll16_{raw,prov}  16 completions in one call
 *   vdp_poll0_{raw,prov}   a poll of an empty CQ (room for 16): the loop
 *                          of a thread waiting for a completion
 *
 * so that `valgrind --tool=callgrind --toggle-collect=vdp_*` counts only
 * those calls (tests/bench/bench_verbs_dp.sh; docs/bench-verbs.md).
 *
 * usage: bench_verbs_dp [-n N]      timing: ns per call of each variant
 *        bench_verbs_dp -c [-n N]   callgrind mode: prints "CG\tFUNC\tcalls\twork"
 *                                   (work: WRs or WCs per call)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "verbs_prov.h"
#include "../common/prov_shim.h"

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

#define CHAIN 16

/* ---- the fake device: ops that read what a device would read ---- */

static volatile uint64_t sink;

static int stub_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	uint64_t s = 0;

	(void)qp;
	(void)bad;
	for (; wr; wr = wr->next)
		s += wr->wr_id + wr->sg_list[0].lkey + (unsigned)wr->opcode + wr->send_flags;
	sink = s;
	return 0;
}

static int stub_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	uint64_t s = 0;

	(void)qp;
	(void)bad;
	for (; wr; wr = wr->next)
		s += wr->wr_id + wr->sg_list[0].lkey;
	sink = s;
	return 0;
}

static struct ibv_wc wc_tmpl;
static int stub_empty; /* the CQ has no completion */

static int stub_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int i;

	(void)cq;
	if (stub_empty)
		return 0;
	for (i = 0; i < n; i++) {
		wc[i] = wc_tmpl;
		wc[i].wr_id = (uint64_t)i;
	}
	return n;
}

static struct ibv_context ctx;
static struct ibv_qp fake_qp, fake_ud_qp;
static struct ibv_cq fake_cq;
static struct ibv_ah fake_ah;

/* ---- the provider's objects around them ---- */

static verbs_qp_t *rc, *ud;
static verbs_cq_t *cq;
static verbs_av_t av;

/* ---- work requests: ibal's and the raw ones, built once ---- */

static uint8_t buf[4096];
static ib_local_ds_t ds[CHAIN];
static ib_send_wr_t swr[CHAIN], rdma_wr, ud_wr;
static ib_recv_wr_t rwr[CHAIN];
static struct ibv_sge sge[CHAIN];
static struct ibv_send_wr v_swr[CHAIN], v_rdma_wr, v_ud_wr;
static struct ibv_recv_wr v_rwr[CHAIN];
static ib_wc_t wcs[CHAIN];
static struct ibv_wc v_wc[CHAIN];

static void setup(void)
{
	const uint32_t lkey = 0x00123456u; /* the same bits on both sides: opaque to the stubs */
	int i;

	ctx.ops.post_send = stub_post_send;
	ctx.ops.post_recv = stub_post_recv;
	ctx.ops.poll_cq = stub_poll_cq;
	fake_qp.context = fake_ud_qp.context = fake_cq.context = fake_ah.context = &ctx;
	fake_qp.qp_type = IBV_QPT_RC;
	fake_ud_qp.qp_type = IBV_QPT_UD;

	rc = calloc(1, sizeof(*rc));
	ud = calloc(1, sizeof(*ud));
	cq = calloc(1, sizeof(*cq));
	if (!rc || !ud || !cq) {
		fprintf(stderr, "bench_verbs_dp: out of memory\n");
		exit(1);
	}
	rc->ibv = &fake_qp;
	rc->type = IB_QPT_RELIABLE_CONN;
	rc->max_sge = 4;
	rc->max_inline = 64;
	rc->wr_types = (1u << WR_SEND) | (1u << WR_RDMA_WRITE) | (1u << WR_RDMA_READ);
	rc->attr.state = IB_QPS_RTS;
	rc->rq_sge = 4;
	*ud = *rc;
	ud->ibv = &fake_ud_qp;
	ud->type = IB_QPT_UNRELIABLE_DGRM;
	ud->wr_types = 1u << WR_SEND;
	ud->attr.qkey = 0x11111111u;
	cq->ibv = &fake_cq;
	av.ah = &fake_ah;

	for (i = 0; i < CHAIN; i++) {
		ds[i].vaddr = (uintptr_t)&buf[64 * i];
		ds[i].length = 64;
		ds[i].lkey = lkey;
		swr[i].wr_id = (uint64_t)i;
		swr[i].p_next = i + 1 < CHAIN ? &swr[i + 1] : NULL;
		swr[i].ds_array = &ds[i];
		swr[i].num_ds = 1;
		swr[i].wr_type = WR_SEND;
		swr[i].send_opt = IB_SEND_OPT_SIGNALED;
		rwr[i].wr_id = (uint64_t)i;
		rwr[i].p_next = i + 1 < CHAIN ? &rwr[i + 1] : NULL;
		rwr[i].ds_array = &ds[i];
		rwr[i].num_ds = 1;

		sge[i].addr = ds[i].vaddr;
		sge[i].length = 64;
		sge[i].lkey = lkey;
		v_swr[i].wr_id = (uint64_t)i;
		v_swr[i].next = i + 1 < CHAIN ? &v_swr[i + 1] : NULL;
		v_swr[i].sg_list = &sge[i];
		v_swr[i].num_sge = 1;
		v_swr[i].opcode = IBV_WR_SEND;
		v_swr[i].send_flags = IBV_SEND_SIGNALED;
		v_rwr[i].wr_id = (uint64_t)i;
		v_rwr[i].next = i + 1 < CHAIN ? &v_rwr[i + 1] : NULL;
		v_rwr[i].sg_list = &sge[i];
		v_rwr[i].num_sge = 1;
	}
	rdma_wr = swr[0];
	rdma_wr.p_next = NULL;
	rdma_wr.wr_type = WR_RDMA_WRITE;
	rdma_wr.remote_ops.vaddr = 0x7F0000001000ull;
	rdma_wr.remote_ops.rkey = CL_HTON32(0xABCDu);
	v_rdma_wr = v_swr[0];
	v_rdma_wr.next = NULL;
	v_rdma_wr.opcode = IBV_WR_RDMA_WRITE;
	v_rdma_wr.wr.rdma.remote_addr = 0x7F0000001000ull;
	v_rdma_wr.wr.rdma.rkey = 0xABCDu;

	ud_wr = swr[0];
	ud_wr.p_next = NULL;
	ud_wr.dgrm.ud.h_av = (ib_av_handle_t)&av;
	ud_wr.dgrm.ud.remote_qp = CL_HTON32(0x000ABCu);
	ud_wr.dgrm.ud.remote_qkey = CL_HTON32(0x22222222u);
	v_ud_wr = v_swr[0];
	v_ud_wr.next = NULL;
	v_ud_wr.wr.ud.ah = &fake_ah;
	v_ud_wr.wr.ud.remote_qpn = 0x000ABCu;
	v_ud_wr.wr.ud.remote_qkey = 0x22222222u;

	wc_tmpl.status = IBV_WC_SUCCESS;
	wc_tmpl.opcode = IBV_WC_RECV;
	wc_tmpl.byte_len = 64;
	wc_tmpl.qp_num = 0x000ABCu;
	wc_tmpl.src_qp = 0x000DEFu;
	wc_tmpl.slid = 1;
}

/* ---- the measured calls ---- */

static ib_send_wr_t *s_fail;
static ib_recv_wr_t *r_fail;
static struct ibv_send_wr *v_sbad;
static struct ibv_recv_wr *v_rbad;
static ib_wc_t *wc_free, *wc_done;

NOINLINE static int vdp_send1_raw(void) { return ibv_post_send(&fake_qp, &v_swr[CHAIN - 1], &v_sbad); }
NOINLINE static int vdp_send1_prov(void) { return verbs_post_send(rc, &swr[CHAIN - 1], &s_fail); }
NOINLINE static int vdp_send16_raw(void) { return ibv_post_send(&fake_qp, v_swr, &v_sbad); }
NOINLINE static int vdp_send16_prov(void) { return verbs_post_send(rc, swr, &s_fail); }
NOINLINE static int vdp_rdma1_raw(void) { return ibv_post_send(&fake_qp, &v_rdma_wr, &v_sbad); }
NOINLINE static int vdp_rdma1_prov(void) { return verbs_post_send(rc, &rdma_wr, &s_fail); }
NOINLINE static int vdp_ud1_raw(void) { return ibv_post_send(&fake_ud_qp, &v_ud_wr, &v_sbad); }
NOINLINE static int vdp_ud1_prov(void) { return verbs_post_send(ud, &ud_wr, &s_fail); }
NOINLINE static int vdp_recv1_raw(void) { return ibv_post_recv(&fake_qp, &v_rwr[CHAIN - 1], &v_rbad); }
NOINLINE static int vdp_recv1_prov(void) { return verbs_post_recv(rc, &rwr[CHAIN - 1], &r_fail); }
NOINLINE static int vdp_recv16_raw(void) { return ibv_post_recv(&fake_qp, v_rwr, &v_rbad); }
NOINLINE static int vdp_recv16_prov(void) { return verbs_post_recv(rc, rwr, &r_fail); }
NOINLINE static int vdp_poll1_raw(void) { return ibv_poll_cq(&fake_cq, 1, v_wc); }
NOINLINE static int vdp_poll1_prov(void) { return verbs_poll_cq(cq, &wc_free, &wc_done); }
NOINLINE static int vdp_poll16_raw(void) { return ibv_poll_cq(&fake_cq, CHAIN, v_wc); }
NOINLINE static int vdp_poll16_prov(void) { return verbs_poll_cq(cq, &wc_free, &wc_done); }
NOINLINE static int vdp_poll0_raw(void) { return ibv_poll_cq(&fake_cq, CHAIN, v_wc); }
NOINLINE static int vdp_poll0_prov(void) { return verbs_poll_cq(cq, &wc_free, &wc_done); }

/* A free list of @p n completions for the next verbs_poll_cq (not measured). */
static void wc_list(int n)
{
	int i;

	for (i = 0; i < n; i++)
		wcs[i].p_next = i + 1 < n ? &wcs[i + 1] : NULL;
	wc_free = wcs;
	wc_done = NULL;
}

typedef struct variant {
	const char *name;
	int (*fn)(void);
	int work;  /* WRs or WCs per call */
	int poll;  /* 0, or the free-list length to set up before each call */
	int ok;    /* the expected return value */
	int empty; /* the stub CQ has no completion */
} variant_t;

static const variant_t variants[] = {
	{ "vdp_send1_raw", vdp_send1_raw, 1, 0, 0, 0 },
	{ "vdp_send1_prov", vdp_send1_prov, 1, 0, IB_SUCCESS, 0 },
	{ "vdp_send16_raw", vdp_send16_raw, CHAIN, 0, 0, 0 },
	{ "vdp_send16_prov", vdp_send16_prov, CHAIN, 0, IB_SUCCESS, 0 },
	{ "vdp_rdma1_raw", vdp_rdma1_raw, 1, 0, 0, 0 },
	{ "vdp_rdma1_prov", vdp_rdma1_prov, 1, 0, IB_SUCCESS, 0 },
	{ "vdp_ud1_raw", vdp_ud1_raw, 1, 0, 0, 0 },
	{ "vdp_ud1_prov", vdp_ud1_prov, 1, 0, IB_SUCCESS, 0 },
	{ "vdp_recv1_raw", vdp_recv1_raw, 1, 0, 0, 0 },
	{ "vdp_recv1_prov", vdp_recv1_prov, 1, 0, IB_SUCCESS, 0 },
	{ "vdp_recv16_raw", vdp_recv16_raw, CHAIN, 0, 0, 0 },
	{ "vdp_recv16_prov", vdp_recv16_prov, CHAIN, 0, IB_SUCCESS, 0 },
	{ "vdp_poll1_raw", vdp_poll1_raw, 1, 0, 1, 0 },
	{ "vdp_poll1_prov", vdp_poll1_prov, 1, 1, IB_SUCCESS, 0 },
	{ "vdp_poll16_raw", vdp_poll16_raw, CHAIN, 0, CHAIN, 0 },
	{ "vdp_poll16_prov", vdp_poll16_prov, CHAIN, CHAIN, IB_SUCCESS, 0 },
	{ "vdp_poll0_raw", vdp_poll0_raw, 1, 0, 0, 1 },
	{ "vdp_poll0_prov", vdp_poll0_prov, 1, CHAIN, IB_NOT_FOUND, 1 },
};

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = 0;
	int cg = 0, opt;
	size_t v;

	while ((opt = getopt(argc, argv, "cn:h")) != -1) {
		switch (opt) {
		case 'c':
			cg = 1;
			break;
		case 'n':
			n = strtol(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: %s [-c] [-n N]\n", argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (n <= 0)
		n = cg ? 10000 : 2000000;
	setup();
	for (v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
		const variant_t *x = &variants[v];
		double t0 = 0, t = 0;
		long i;

		stub_empty = x->empty;
		for (i = 0; i < n; i++) {
			int rc;

			if (x->poll)
				wc_list(x->poll);
			if (!cg)
				t0 = now_ns();
			rc = x->fn();
			if (!cg)
				t += now_ns() - t0;
			if (rc != x->ok) {
				fprintf(stderr, "bench_verbs_dp: %s returned %d\n", x->name, rc);
				return 1;
			}
		}
		if (cg)
			printf("CG\t%s\t%ld\t%d\n", x->name, n, x->work);
		else
			printf("%-18s %8.1f ns/call %8.2f ns per WR/WC\n", x->name, t / (double)n,
			       t / (double)n / x->work);
	}
	return 0;
}
