/*
 * ibal ulp: ibal_perf - the RC data path through ib_al.h next to the same loops on raw libibverbs.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * One process, two RC QPs on port 1 of the first CA (device),
 * connected to each other by hand (loopback): A and B, each with a CQ of
 * its own for sends and receives. The same three loops run on either API:
 *
 *   --api ibal   the public access layer only (ib_open_al ... ib_poll_cq)
 *   --api raw    plain libibverbs (ibv_open_device ... ibv_poll_cq)
 *   --api both   the two set up side by side (same buffers, a QP pair each)
 *                and measured in turns: -r rounds, each running n/rounds
 *                iterations on one API then on the other (the order swapped
 *                every round), so that both meet the machine in nearly the
 *                same state; each round's ratio ibal/raw (lat: of the round's
 *                median latencies, ibal slower above 1; bw, rate: of the
 *                throughputs, ibal faster above 1), and their median. Where
 *                the machine's speed drifts (a shared or emulated host), this
 *                pairs what separate processes cannot.
 *
 * Tests (-t):
 *   lat   RC send/receive ping-pong, A -> B -> A, busy polling (B answers
 *         from a thread of its own; -1: the main thread polls both); each
 *         round trip is timed and halved: average and median one-way
 *         latency (us)
 *   bw    RDMA writes A -> B of -s bytes, at most -w in flight; MB/s
 *         (MB = 2^20 bytes, as perftest's MB/sec)
 *   rate  RC sends A -> B of -s bytes (default 64), at most -w in flight;
 *         messages per second, counted when B has received the last one
 *   all   the three, one after the other (the default)
 *
 * What both APIs share, so that their ratio means something: the same
 * registered buffers (one per side: [0, size) is what it sends or writes,
 * [size, 2 size) what it receives or is written), queue depths (send 128,
 * receive 256, CQ 384), one work request per post call, every 16th send or
 * write signaled (every w-th if the window w is smaller; and the last of a
 * run), at most 16 completions per poll call, every receive reposted (the
 * same buffer) as soon as it is polled, a warm-up run (-W) before each
 * measured run. The loops are written once
 * (loop_lat, loop_stream) over two small sets of primitives (post one work
 * request; poll and handle up to 16 completions) and instantiated for each
 * API with the primitives inlined: no indirect call is added to either
 * side's data path.
 *
 * Addressing: on a RoCE port (or one without a LID) the address carries a
 * GRH from and to the port's IPv4-mapped GID (::ffff:a.b.c.d) if it has one
 * among its first 16 entries, else GID 0, or the entry -x names; otherwise
 * the port's own LID (-G: a GRH all the same, to try the RoCE addressing on
 * an IB or soft port).
 *
 * Output, one line per test on stdout (lines starting "# " are comments; one
 * of them after each test gives the CPU time of the process and of its main
 * thread, and the context switches, during the test):
 *   ibal_perf api=ibal test=bw size=65536 n=1000 value=123.45 unit=MB/s
 *   ibal_perf api=raw test=lat size=2 n=1000 value=5.21 unit=us median=5.10
 * and with --api both, each API's line over all its rounds (plus best=, its
 * best round, rounds=, and user_us= sys_us=, CPU us per iteration), then
 *   ibal_perf api=pair test=rate size=64 n=50000 value=0.9950 unit=ibal/raw
 *             rounds=20 min=0.9712 max=1.0203
 * Exit: 0 done, 1 failure, 2 usage, 77 no CA (no libibverbs device for raw).
 *
 * The ibal side runs on any provider: IBAL_PROVIDERS=soft (with a fabric
 * directory, IBAL_SOFT_FABRIC) as well as IBAL_PROVIDERS=verbs. The raw
 * side needs a libibverbs device (rxe, hardware). Every loop busy-polls
 * (lat with two threads): under valgrind, give it --fair-sched=yes, or the
 * provider's own threads may starve.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RUSAGE_THREAD */
#endif
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <iba/ib_al.h>
#include "ibal_cmdline.h"
#include "ibal_progress.h"

/* Raw mode needs libibverbs: always when built by hand, as configure found it otherwise. */
#if !defined(HAVE_CONFIG_H) || defined(HAVE_VERBS_PROV)
#define PERF_RAW 1
#include <infiniband/verbs.h>
#else
#define PERF_RAW 0
#endif

#define PERF_BATCH   16u         /* completions per poll call */
#define PERF_SIG     16u         /* every PERF_SIG-th send is signaled (at most the window) */
#define PERF_SQ      128u        /* send queue depth */
#define PERF_RQ      256u        /* receive queue depth (all posted) */
#define PERF_CQ      (PERF_SQ + PERF_RQ)
#define PERF_MAX_WIN (PERF_RQ / 2u)
#define PERF_PSN_A   0x000100u
#define PERF_PSN_B   0x00A000u
#define PERF_GIDS    16u         /* GID entries searched (what the verbs provider reports) */
#define PERF_ACK_TO  14u         /* local ACK timeout code: 4.096 us * 2^14, 67 ms */
#define PERF_RECV_ID 0xFFFFFFFFFFFFFFFFull /* wr_id of every receive */
#define PERF_SPINS   4096u       /* polls between two looks at the clock */
#define PERF_MIB     (1024.0 * 1024.0)

#define PERF_INLINE static inline __attribute__((always_inline))

enum { T_LAT = 1, T_BW = 2, T_RATE = 4, T_ALL = 7 };
enum { API_IBAL = 0, API_RAW = 1, API_BOTH = 2 };

/** Command line. */
typedef struct opts {
	int api;                     /* --api: API_IBAL, API_RAW or API_BOTH */
	unsigned rounds;             /* --api both: rounds (-r) */
	int tests;                   /* T_* bits */
	uint32_t size;               /* 0: each test's default */
	uint64_t n;                  /* measured iterations */
	uint64_t warm;               /* warm-up iterations */
	uint32_t window;             /* sends or writes in flight */
	int gid_index;               /* -x; -1: the IPv4-mapped GID, else GID 0 */
	int force_grh;               /* -G: a GRH even on a port with a LID */
	int one_thread;              /* -1: lat with both sides in the main thread */
	unsigned limit_s;            /* bound of one run, seconds */
} opts_t;

/** One QP's end: its buffer, counters and both APIs' objects. */
typedef struct side {
	const char *name;            /* "A" or "B" */
	uint8_t *buf;                /* 2 * size bytes (page aligned) */
	uint32_t size;
	/* counters of the current run */
	uint64_t posted;             /* sends or writes posted */
	uint64_t sdone;              /* those known complete: last signaled wr_id + 1 */
	uint64_t rdone;              /* receives completed */
	int err;                     /* a failed completion or repost was seen */
	unsigned spins;              /* polls in this run (time checks) */
	/* ibal */
	ib_cq_handle_t cq;
	ib_qp_handle_t qp;
	ib_mr_handle_t mr;
	net32_t lkey, rkey, qpn;
	ib_send_wr_t swr;            /* the send or write, posted over and over */
	ib_local_ds_t sds;
	ib_recv_wr_t rwr;            /* the receive, likewise */
	ib_local_ds_t rds;
	ib_wc_t wc[PERF_BATCH];
	ib_wc_t *wc_free;            /* free list handed to ib_poll_cq */
#if PERF_RAW
	struct ibv_cq *vcq;
	struct ibv_qp *vqp;
	struct ibv_mr *vmr;
	struct ibv_send_wr vswr;
	struct ibv_sge vssge;
	struct ibv_recv_wr vrwr;
	struct ibv_sge vrsge;
	struct ibv_wc vwc[PERF_BATCH];
#endif
} side_t;

/** The run: the CA, port addressing and both sides. */
typedef struct perf {
	const opts_t *o;
	side_t a, b;
	uint32_t size;               /* buffer half of each side (largest test size) */
	uint32_t test_size;          /* bytes of the current test */
	uint32_t window;
	uint32_t sig;                /* every sig-th send is signaled: min(PERF_SIG, window) */
	int grh;                     /* addresses carry a GRH */
	uint8_t gid[16];
	int gid_index;
	uint16_t lid;                /* host order */
	uint8_t mtu;                 /* IB_MTU_LEN_* (= enum ibv_mtu) */
	uint8_t rd_atom, init_depth;
	uint64_t deadline_ns;        /* end of the current run's time bound */
	int stop;                    /* atomic: a thread of the run failed, the others leave */
	uint64_t echo_n;             /* lat: messages B's thread answers */
	int echo_rc;                 /* lat: how B's thread ended */
	/* ibal */
	ib_al_handle_t al;
	ib_ca_handle_t ca;
	ib_pd_handle_t pd;
#if PERF_RAW
	struct ibv_context *ctx;
	struct ibv_pd *vpd;
	struct ibv_device **list;
#endif
} perf_t;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void pause_ms(unsigned ms)
{
	struct timespec ts = { 0, (long)ms * 1000000L };

	nanosleep(&ts, NULL);
}

static int gid_is_v4(const uint8_t *g)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF };

	return !memcmp(g, prefix, sizeof(prefix));
}

static void gid_str(const uint8_t *g, char *s, size_t len)
{
	if (gid_is_v4(g))
		snprintf(s, len, "::ffff:%u.%u.%u.%u", g[12], g[13], g[14], g[15]);
	else
		snprintf(s, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:"
			 "%02x%02x:%02x%02x", g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7],
			 g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

static int buf_alloc(side_t *s, uint32_t size, uint8_t fill)
{
	void *p = NULL;
	size_t len = ((size_t)size * 2 + 4095) & ~(size_t)4095;

	if (posix_memalign(&p, 4096, len))
		return -1;
	memset(p, 0, len);
	memset(p, fill, size); /* what this side sends */
	s->buf = p;
	s->size = size;
	return 0;
}

/* Whether the send of sequence number @p seq in a run of @p n is signaled
 * (every @p every-th, and the last). */
static inline int signaled(uint64_t seq, uint64_t n, uint32_t every)
{
	return (seq + 1) % every == 0 || seq + 1 == n;
}

/* A completion of a receive: its length is checked (the repost is the API's). */
static inline void got_recv(side_t *s, uint32_t len, uint32_t want)
{
	s->rdone++;
	if (len != want && !s->err) {
		fprintf(stderr, "ibal_perf: %s received %u bytes, not %u\n", s->name, len, want);
		s->err = 1;
	}
}

static void got_error(side_t *s, uint64_t wr_id, const char *status)
{
	if (!s->err)
		fprintf(stderr, "ibal_perf: %s: completion of %s %" PRIu64 " failed: %s\n", s->name,
			wr_id == PERF_RECV_ID ? "receive" : "send", wr_id == PERF_RECV_ID ? 0 : wr_id,
			status);
	s->err = 1;
}

/* ================================================================ ibal */

static int ibal_ok(ib_api_status_t st, const char *what)
{
	if (st == IB_SUCCESS)
		return 1;
	fprintf(stderr, "ibal_perf: %s: %s\n", what, ib_get_err_str(st));
	return 0;
}

static inline int ibal_post(perf_t *p, side_t *s, uint64_t seq, int sig)
{
	ib_api_status_t st;

	s->swr.wr_id = seq;
	s->swr.send_opt = sig ? IB_SEND_OPT_SIGNALED : 0;
	st = ib_post_send(s->qp, &s->swr, NULL);
	(void)p;
	return st == IB_SUCCESS ? 0 : (ibal_ok(st, "ib_post_send"), -1);
}

/* Polls up to PERF_BATCH completions of @p s's CQ and handles them. */
static inline int ibal_poll(perf_t *p, side_t *s)
{
	ib_wc_t *free_list = s->wc_free, *done = NULL, *w, *last = NULL;
	ib_api_status_t st;

	st = ib_poll_cq(s->cq, &free_list, &done);
	if (st != IB_SUCCESS)
		return st == IB_NOT_FOUND ? 0 : (ibal_ok(st, "ib_poll_cq"), -1);
	for (w = done; w; w = w->p_next) {
		last = w;
		if (w->status != IB_WCS_SUCCESS) {
			got_error(s, w->wr_id, ib_get_wc_status_str(w->status));
		} else if (w->wc_type & IB_WC_RECV) {
			got_recv(s, w->length, p->test_size);
			if (ib_post_recv(s->qp, &s->rwr, NULL) != IB_SUCCESS)
				s->err = 1;
		} else {
			s->sdone = w->wr_id + 1;
		}
	}
	if (last) { /* the polled entries go back to the front of the free list */
		last->p_next = free_list;
		s->wc_free = done;
	}
	return 0;
}

static void AL_API ibal_no_comp(const ib_cq_handle_t h_cq, void *context)
{
	(void)h_cq;
	(void)context;
}

/* Reads port 1 (up to 10 s for it to become ACTIVE: a soft port waits for its SM). */
static int ibal_port(perf_t *p)
{
	uint64_t end = now_ns() + 10000000000ull;
	ib_ca_attr_t *attr = NULL;
	const ib_port_attr_t *pa = NULL;
	uint32_t size, i;
	int ret = -1;

	for (;;) {
		size = 0;
		free(attr);
		attr = NULL;
		if (ib_query_ca(p->ca, NULL, &size) != IB_INSUFFICIENT_MEMORY || !size ||
		    !(attr = calloc(1, size)) || !ibal_ok(ib_query_ca(p->ca, attr, &size), "ib_query_ca"))
			goto out;
		pa = attr->num_ports ? &attr->p_port_attr[0] : NULL;
		if (pa && pa->link_state == IB_LINK_ACTIVE)
			break;
		if (now_ns() > end) {
			fprintf(stderr, "ibal_perf: port 1 is not ACTIVE\n");
			goto out;
		}
		pause_ms(20);
	}
	p->lid = cl_ntoh16(pa->lid);
	p->grh = pa->transport == RDMA_TRANSPORT_RDMAOE || !p->lid || p->o->force_grh;
	p->mtu = pa->mtu >= IB_MIN_MTU && pa->mtu <= IB_MAX_MTU ? pa->mtu : IB_MTU_LEN_1024;
	p->rd_atom = attr->max_qp_resp_res < 4 ? (uint8_t)attr->max_qp_resp_res : 4;
	p->init_depth = attr->max_qp_init_depth < 4 ? (uint8_t)attr->max_qp_init_depth : 4;
	if (p->grh) {
		if (!pa->p_gid_table || !pa->num_gids ||
		    (p->o->gid_index >= 0 && (uint32_t)p->o->gid_index >= pa->num_gids)) {
			fprintf(stderr, "ibal_perf: port 1 has no GID %d\n", p->o->gid_index);
			goto out;
		}
		p->gid_index = p->o->gid_index;
		for (i = 0; p->gid_index < 0 && i < pa->num_gids && i < PERF_GIDS; i++)
			if (gid_is_v4(pa->p_gid_table[i].raw))
				p->gid_index = (int)i;
		if (p->gid_index < 0)
			p->gid_index = 0;
		memcpy(p->gid, pa->p_gid_table[p->gid_index].raw, 16);
	}
	ret = 0;
out:
	free(attr);
	return ret;
}

static void ibal_av(const perf_t *p, ib_av_attr_t *av)
{
	memset(av, 0, sizeof(*av));
	av->port_num = 1;
	av->dlid = cl_hton16(p->lid);
	if (p->grh) {
		av->grh_valid = TRUE;
		av->grh.ver_class_flow = CL_HTON32(0x60000000u);
		av->grh.hop_limit = 64;
		memcpy(av->grh.src_gid.raw, p->gid, 16);
		memcpy(av->grh.dest_gid.raw, p->gid, 16);
	}
	av->conn.path_mtu = p->mtu;
	av->conn.local_ack_timeout = PERF_ACK_TO;
	av->conn.seq_err_retry_cnt = 7;
	av->conn.rnr_retry_cnt = 7;
}

static int ibal_side(perf_t *p, side_t *s)
{
	ib_mr_create_t mc;
	ib_cq_create_t cc;
	ib_qp_create_t qc;
	ib_qp_attr_t qa;
	unsigned i;

	memset(&mc, 0, sizeof(mc));
	mc.vaddr = s->buf;
	mc.length = (uint64_t)s->size * 2;
	mc.access_ctrl = IB_AC_LOCAL_WRITE | IB_AC_RDMA_WRITE | IB_AC_RDMA_READ;
	if (!ibal_ok(ib_reg_mem(p->pd, &mc, &s->lkey, &s->rkey, &s->mr), "ib_reg_mem"))
		return -1;
	memset(&cc, 0, sizeof(cc));
	cc.size = PERF_CQ;
	cc.pfn_comp_cb = ibal_no_comp; /* never armed: the loops poll */
	if (!ibal_ok(ib_create_cq(p->ca, &cc, s, NULL, &s->cq), "ib_create_cq"))
		return -1;
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	qc.sq_depth = PERF_SQ;
	qc.rq_depth = PERF_RQ;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = qc.h_rq_cq = s->cq;
	qc.sq_signaled = FALSE;
	if (!ibal_ok(ib_create_qp(p->pd, &qc, s, NULL, &s->qp), "ib_create_qp") ||
	    !ibal_ok(ib_query_qp(s->qp, &qa), "ib_query_qp"))
		return -1;
	s->qpn = qa.num;
	for (i = 0; i < PERF_BATCH; i++)
		s->wc[i].p_next = i + 1 < PERF_BATCH ? &s->wc[i + 1] : NULL;
	s->wc_free = &s->wc[0];
	return 0;
}

static int ibal_connect(perf_t *p, side_t *s, const side_t *peer, uint32_t my_psn,
			uint32_t peer_psn)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = 1;
	m.state.init.pkey_index = 0;
	m.state.init.access_ctrl = IB_AC_LOCAL_WRITE | IB_AC_RDMA_WRITE | IB_AC_RDMA_READ;
	if (!ibal_ok(ib_modify_qp(s->qp, &m), "ib_modify_qp INIT"))
		return -1;
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTR;
	m.state.rtr.rq_psn = cl_hton32(peer_psn);
	m.state.rtr.dest_qp = peer->qpn;
	m.state.rtr.resp_res = p->rd_atom;
	m.state.rtr.rnr_nak_timeout = 1; /* 0.01 ms */
	ibal_av(p, &m.state.rtr.primary_av);
	if (!ibal_ok(ib_modify_qp(s->qp, &m), "ib_modify_qp RTR"))
		return -1;
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.sq_psn = cl_hton32(my_psn);
	m.state.rts.retry_cnt = 7;
	m.state.rts.rnr_retry_cnt = 7;
	m.state.rts.local_ack_timeout = PERF_ACK_TO;
	m.state.rts.init_depth = p->init_depth;
	return ibal_ok(ib_modify_qp(s->qp, &m), "ib_modify_qp RTS") ? 0 : -1;
}

/* Points the work request templates at the buffers; posts every receive. */
static int ibal_templates(perf_t *p, side_t *s, const side_t *peer)
{
	unsigned i;

	memset(&s->swr, 0, sizeof(s->swr));
	s->sds.vaddr = (uintptr_t)s->buf;
	s->sds.length = p->size;
	s->sds.lkey = s->lkey;
	s->swr.wr_type = WR_SEND;
	s->swr.num_ds = 1;
	s->swr.ds_array = &s->sds;
	s->swr.remote_ops.vaddr = (uintptr_t)(peer->buf + peer->size);
	s->swr.remote_ops.rkey = peer->rkey;
	memset(&s->rwr, 0, sizeof(s->rwr));
	s->rds.vaddr = (uintptr_t)(s->buf + s->size);
	s->rds.length = s->size;
	s->rds.lkey = s->lkey;
	s->rwr.wr_id = PERF_RECV_ID;
	s->rwr.num_ds = 1;
	s->rwr.ds_array = &s->rds;
	for (i = 0; i < PERF_RQ; i++)
		if (!ibal_ok(ib_post_recv(s->qp, &s->rwr, NULL), "ib_post_recv"))
			return -1;
	return 0;
}

/* Opens everything; 77 when there is no CA. */
static int ibal_open(perf_t *p)
{
	ib_net64_t *guids;
	size_t n = 0;
	ib_api_status_t st;

	if (!ibal_ok(ib_open_al(&p->al), "ib_open_al"))
		return 1;
	ib_get_ca_guids(p->al, NULL, &n);
	if (!n) {
		fprintf(stderr, "ibal_perf: no channel adapter\n");
		return 77;
	}
	guids = calloc(n, sizeof(*guids));
	if (!guids)
		return 1;
	st = ib_get_ca_guids(p->al, guids, &n);
	if (st == IB_SUCCESS)
		st = ib_open_ca(p->al, guids[0], NULL, p, &p->ca);
	free(guids);
	if (!ibal_ok(st, "ib_open_ca") || ibal_port(p) ||
	    !ibal_ok(ib_alloc_pd(p->ca, IB_PDT_NORMAL, p, &p->pd), "ib_alloc_pd") ||
	    ibal_side(p, &p->a) || ibal_side(p, &p->b) ||
	    ibal_connect(p, &p->a, &p->b, PERF_PSN_A, PERF_PSN_B) ||
	    ibal_connect(p, &p->b, &p->a, PERF_PSN_B, PERF_PSN_A) ||
	    ibal_templates(p, &p->a, &p->b) || ibal_templates(p, &p->b, &p->a))
		return 1;
	return 0;
}

static void ibal_set_test(perf_t *p, side_t *s, int test)
{
	s->swr.wr_type = test == T_BW ? WR_RDMA_WRITE : WR_SEND;
	s->sds.length = p->test_size;
}

static void ibal_close(perf_t *p)
{
	if (p->al && ib_close_al(p->al) != IB_SUCCESS)
		fprintf(stderr, "ibal_perf: ib_close_al failed\n");
	p->al = NULL;
}

/* ================================================================ raw libibverbs */

#if PERF_RAW
static inline int raw_post(perf_t *p, side_t *s, uint64_t seq, int sig)
{
	struct ibv_send_wr *bad;
	int rc;

	s->vswr.wr_id = seq;
	s->vswr.send_flags = sig ? IBV_SEND_SIGNALED : 0;
	rc = ibv_post_send(s->vqp, &s->vswr, &bad);
	(void)p;
	if (rc)
		fprintf(stderr, "ibal_perf: ibv_post_send: %s\n", strerror(rc));
	return rc ? -1 : 0;
}

static inline int raw_poll(perf_t *p, side_t *s)
{
	struct ibv_recv_wr *bad;
	int n, i;

	n = ibv_poll_cq(s->vcq, PERF_BATCH, s->vwc);
	if (n < 0) {
		fprintf(stderr, "ibal_perf: ibv_poll_cq failed\n");
		return -1;
	}
	for (i = 0; i < n; i++) {
		const struct ibv_wc *w = &s->vwc[i];

		if (w->status != IBV_WC_SUCCESS) {
			got_error(s, w->wr_id, ibv_wc_status_str(w->status));
		} else if (w->opcode & IBV_WC_RECV) {
			got_recv(s, w->byte_len, p->test_size);
			if (ibv_post_recv(s->vqp, &s->vrwr, &bad))
				s->err = 1;
		} else {
			s->sdone = w->wr_id + 1;
		}
	}
	return 0;
}

static int raw_fail(const char *what)
{
	perror(what);
	return -1;
}

static int raw_port(perf_t *p)
{
	uint64_t end = now_ns() + 10000000000ull;
	struct ibv_port_attr pa;
	struct ibv_device_attr da;
	union ibv_gid g;
	int i;

	for (;;) {
		if (ibv_query_port(p->ctx, 1, &pa))
			return raw_fail("ibal_perf: ibv_query_port");
		if (pa.state == IBV_PORT_ACTIVE)
			break;
		if (now_ns() > end) {
			fprintf(stderr, "ibal_perf: port 1 is not ACTIVE\n");
			return -1;
		}
		pause_ms(20);
	}
	if (ibv_query_device(p->ctx, &da))
		return raw_fail("ibal_perf: ibv_query_device");
	p->lid = pa.lid;
	p->grh = pa.link_layer == IBV_LINK_LAYER_ETHERNET || !pa.lid || p->o->force_grh;
	p->mtu = (uint8_t)pa.active_mtu;
	p->rd_atom = da.max_qp_rd_atom < 4 ? (uint8_t)da.max_qp_rd_atom : 4;
	p->init_depth = da.max_qp_init_rd_atom < 4 ? (uint8_t)da.max_qp_init_rd_atom : 4;
	if (p->grh) {
		p->gid_index = p->o->gid_index;
		for (i = 0; p->gid_index < 0 && i < pa.gid_tbl_len && i < (int)PERF_GIDS; i++)
			if (!ibv_query_gid(p->ctx, 1, i, &g) && gid_is_v4(g.raw))
				p->gid_index = i;
		if (p->gid_index < 0)
			p->gid_index = 0;
		if (ibv_query_gid(p->ctx, 1, p->gid_index, &g)) {
			fprintf(stderr, "ibal_perf: port 1 has no GID %d\n", p->gid_index);
			return -1;
		}
		memcpy(p->gid, g.raw, 16);
	}
	return 0;
}

static int raw_side(perf_t *p, side_t *s)
{
	struct ibv_qp_init_attr ia;

	s->vmr = ibv_reg_mr(p->vpd, s->buf, (size_t)s->size * 2,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!s->vmr)
		return raw_fail("ibal_perf: ibv_reg_mr");
	s->vcq = ibv_create_cq(p->ctx, (int)PERF_CQ, s, NULL, 0);
	if (!s->vcq)
		return raw_fail("ibal_perf: ibv_create_cq");
	memset(&ia, 0, sizeof(ia));
	ia.qp_context = s;
	ia.send_cq = ia.recv_cq = s->vcq;
	ia.cap.max_send_wr = PERF_SQ;
	ia.cap.max_recv_wr = PERF_RQ;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	ia.qp_type = IBV_QPT_RC;
	ia.sq_sig_all = 0;
	s->vqp = ibv_create_qp(p->vpd, &ia);
	if (!s->vqp)
		return raw_fail("ibal_perf: ibv_create_qp");
	return 0;
}

static int raw_connect(perf_t *p, side_t *s, const side_t *peer, uint32_t my_psn,
		       uint32_t peer_psn)
{
	struct ibv_qp_attr a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	rc = ibv_modify_qp(s->vqp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				       IBV_QP_ACCESS_FLAGS);
	if (rc)
		goto fail;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = (enum ibv_mtu)p->mtu;
	a.dest_qp_num = peer->vqp->qp_num;
	a.rq_psn = peer_psn;
	a.max_dest_rd_atomic = p->rd_atom;
	a.min_rnr_timer = 1;
	a.ah_attr.dlid = p->lid;
	a.ah_attr.port_num = 1;
	if (p->grh) {
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, p->gid, 16);
		a.ah_attr.grh.sgid_index = (uint8_t)p->gid_index;
		a.ah_attr.grh.hop_limit = 64;
	}
	rc = ibv_modify_qp(s->vqp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (rc)
		goto fail;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = my_psn;
	a.timeout = PERF_ACK_TO;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = p->init_depth;
	rc = ibv_modify_qp(s->vqp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				       IBV_QP_MAX_QP_RD_ATOMIC);
	if (rc)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "ibal_perf: ibv_modify_qp to %s: %s\n",
		a.qp_state == IBV_QPS_INIT ? "INIT" : a.qp_state == IBV_QPS_RTR ? "RTR" : "RTS",
		strerror(rc));
	return -1;
}

static int raw_templates(perf_t *p, side_t *s, const side_t *peer)
{
	struct ibv_recv_wr *bad;
	unsigned i;

	memset(&s->vswr, 0, sizeof(s->vswr));
	s->vssge.addr = (uintptr_t)s->buf;
	s->vssge.length = p->size;
	s->vssge.lkey = s->vmr->lkey;
	s->vswr.opcode = IBV_WR_SEND;
	s->vswr.sg_list = &s->vssge;
	s->vswr.num_sge = 1;
	s->vswr.wr.rdma.remote_addr = (uintptr_t)(peer->buf + peer->size);
	s->vswr.wr.rdma.rkey = peer->vmr->rkey;
	memset(&s->vrwr, 0, sizeof(s->vrwr));
	s->vrsge.addr = (uintptr_t)(s->buf + s->size);
	s->vrsge.length = s->size;
	s->vrsge.lkey = s->vmr->lkey;
	s->vrwr.wr_id = PERF_RECV_ID;
	s->vrwr.sg_list = &s->vrsge;
	s->vrwr.num_sge = 1;
	for (i = 0; i < PERF_RQ; i++)
		if (ibv_post_recv(s->vqp, &s->vrwr, &bad))
			return raw_fail("ibal_perf: ibv_post_recv");
	return 0;
}

static int raw_open(perf_t *p)
{
	int n = 0;

	p->list = ibv_get_device_list(&n);
	if (!p->list || n < 1) {
		fprintf(stderr, "ibal_perf: no libibverbs device\n");
		return 77;
	}
	p->ctx = ibv_open_device(p->list[0]);
	if (!p->ctx)
		return raw_fail("ibal_perf: ibv_open_device"), 1;
	if (raw_port(p))
		return 1;
	p->vpd = ibv_alloc_pd(p->ctx);
	if (!p->vpd)
		return raw_fail("ibal_perf: ibv_alloc_pd"), 1;
	if (raw_side(p, &p->a) || raw_side(p, &p->b) ||
	    raw_connect(p, &p->a, &p->b, PERF_PSN_A, PERF_PSN_B) ||
	    raw_connect(p, &p->b, &p->a, PERF_PSN_B, PERF_PSN_A) ||
	    raw_templates(p, &p->a, &p->b) || raw_templates(p, &p->b, &p->a))
		return 1;
	return 0;
}

static void raw_set_test(perf_t *p, side_t *s, int test)
{
	s->vswr.opcode = test == T_BW ? IBV_WR_RDMA_WRITE : IBV_WR_SEND;
	s->vssge.length = p->test_size;
}

static void raw_close_side(side_t *s)
{
	if (s->vqp)
		ibv_destroy_qp(s->vqp);
	if (s->vcq)
		ibv_destroy_cq(s->vcq);
	if (s->vmr)
		ibv_dereg_mr(s->vmr);
	s->vqp = NULL;
	s->vcq = NULL;
	s->vmr = NULL;
}

static void raw_close(perf_t *p)
{
	raw_close_side(&p->a);
	raw_close_side(&p->b);
	if (p->vpd)
		ibv_dealloc_pd(p->vpd);
	if (p->ctx)
		ibv_close_device(p->ctx);
	if (p->list)
		ibv_free_device_list(p->list);
	p->vpd = NULL;
	p->ctx = NULL;
	p->list = NULL;
}
#endif /* PERF_RAW */

/* ================================================================ the loops, written once */

/** The primitives a loop uses; constant, so that inlining turns each call into a direct one. */
typedef struct perf_ops {
	int (*post)(perf_t *p, side_t *s, uint64_t seq, int sig); /* one send or write */
	int (*poll)(perf_t *p, side_t *s); /* up to PERF_BATCH completions, handled */
	void *(*echo)(void *p);     /* lat: B's thread (not on the data path) */
} perf_ops_t;

static void *echo_ibal(void *arg);
static const perf_ops_t ibal_ops = { ibal_post, ibal_poll, echo_ibal };
#if PERF_RAW
static void *echo_raw(void *arg);
static const perf_ops_t raw_ops = { raw_post, raw_poll, echo_raw };
#endif

/* Every PERF_SPINS polls of @p s: whether the run's time bound has passed
 * or another thread of the run failed. */
PERF_INLINE int late(perf_t *p, side_t *s)
{
	if (++s->spins % PERF_SPINS)
		return 0;
	if (__atomic_load_n(&p->stop, __ATOMIC_RELAXED))
		return 1;
	if (now_ns() < p->deadline_ns)
		return 0;
	fprintf(stderr, "ibal_perf: run took longer than %u s (%s: %" PRIu64 " posted, %" PRIu64
		" done, %" PRIu64 " received)\n", p->o->limit_s, s->name, s->posted, s->sdone,
		s->rdone);
	return 1;
}

PERF_INLINE int poll_side(const perf_ops_t *o, perf_t *p, side_t *s)
{
	if (!o->poll(p, s) && !s->err && !late(p, s))
		return 0;
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
	return -1;
}

/* Posts the next send of @p s in a run of @p n, once its send queue has room. */
PERF_INLINE int post_next(const perf_ops_t *o, perf_t *p, side_t *s, uint64_t n)
{
	while (s->posted - s->sdone >= PERF_SQ - 1)
		if (poll_side(o, p, s))
			return -1;
	if (o->post(p, s, s->posted, signaled(s->posted, n, p->sig))) {
		__atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
		return -1;
	}
	s->posted++;
	return 0;
}

/* Waits until every signaled send of @p s is complete (its QP is quiet). */
PERF_INLINE int drain(const perf_ops_t *o, perf_t *p, side_t *s)
{
	while (s->sdone < s->posted)
		if (poll_side(o, p, s))
			return -1;
	return 0;
}

static void run_reset(perf_t *p)
{
	p->a.posted = p->a.sdone = p->a.rdone = 0;
	p->b.posted = p->b.sdone = p->b.rdone = 0;
	p->a.spins = p->b.spins = 0;
	p->stop = 0;
	p->deadline_ns = now_ns() + (uint64_t)p->o->limit_s * 1000000000ull;
}

/* B's side of the ping-pong: each message received is answered. */
PERF_INLINE int echo_loop(const perf_ops_t *o, perf_t *p, uint64_t n)
{
	side_t *b = &p->b;
	uint64_t i;

	for (i = 0; i < n; i++) {
		while (b->rdone <= i)
			if (poll_side(o, p, b))
				return -1;
		if (post_next(o, p, b, n))
			return -1;
	}
	return drain(o, p, b);
}

static void *echo_ibal(void *arg)
{
	perf_t *p = arg;

	p->echo_rc = echo_loop(&ibal_ops, p, p->echo_n);
	return NULL;
}

#if PERF_RAW
static void *echo_raw(void *arg)
{
	perf_t *p = arg;

	p->echo_rc = echo_loop(&raw_ops, p, p->echo_n);
	return NULL;
}
#endif

/*
 * Ping-pong: A sends and busy-polls until it has B's answer; B's side runs
 * in a thread of its own (echo_loop), busy-polling too, as perftest's two
 * processes do; with -1 the main thread polls B between A's send and A's
 * wait instead. @p rtt (when not NULL) gets each round trip in ns.
 */
PERF_INLINE int loop_lat(const perf_ops_t *o, perf_t *p, uint64_t n, uint64_t *rtt)
{
	side_t *a = &p->a, *b = &p->b;
	pthread_t echo;
	uint64_t i, t0;
	int rc = 0;

	run_reset(p);
	if (!p->o->one_thread) {
		p->echo_n = n;
		p->echo_rc = 0;
		if (pthread_create(&echo, NULL, o->echo, p)) {
			fprintf(stderr, "ibal_perf: pthread_create failed\n");
			return -1;
		}
	}
	for (i = 0; i < n && !rc; i++) {
		t0 = now_ns();
		rc = post_next(o, p, a, n);
		if (p->o->one_thread) {
			while (!rc && b->rdone <= i)
				rc = poll_side(o, p, b);
			if (!rc)
				rc = post_next(o, p, b, n);
		}
		while (!rc && a->rdone <= i)
			rc = poll_side(o, p, a);
		if (rtt)
			rtt[i] = now_ns() - t0;
	}
	if (!rc)
		rc = drain(o, p, a);
	if (p->o->one_thread) {
		if (!rc)
			rc = drain(o, p, b);
	} else {
		if (rc)
			__atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
		pthread_join(echo, NULL);
		rc = rc || p->echo_rc;
	}
	return rc ? -1 : 0;
}

/*
 * A streams @p n sends or writes, at most p->window not known complete;
 * with @p to_b, B's receives are polled too (and bound the window so that
 * B never runs out of posted receives). *p_ns: from the first post to the
 * last completion (A's last send and, with @p to_b, B's last receive).
 */
PERF_INLINE int loop_stream(const perf_ops_t *o, perf_t *p, uint64_t n, int to_b, uint64_t *p_ns)
{
	side_t *a = &p->a, *b = &p->b;
	uint64_t t0;

	run_reset(p);
	t0 = now_ns();
	while (a->sdone < n || (to_b && b->rdone < n)) {
		while (a->posted < n && a->posted - a->sdone < p->window &&
		       (!to_b || a->posted - b->rdone < PERF_RQ - PERF_BATCH))
			if (post_next(o, p, a, n))
				return -1;
		if (poll_side(o, p, a) || (to_b && poll_side(o, p, b)))
			return -1;
	}
	*p_ns = now_ns() - t0;
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* The median of @p n values (sorts them). */
static double median_u64(uint64_t *v, uint64_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

static double median_dbl(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static const char *test_name(int test)
{
	return test == T_LAT ? "lat" : test == T_BW ? "bw" : "rate";
}

static const char *test_unit(int test)
{
	return test == T_LAT ? "us" : test == T_BW ? "MB/s" : "msg/s";
}

static const char *api_name(int api)
{
	return api == API_RAW ? "raw" : api == API_BOTH ? "both" : "ibal";
}

static uint32_t test_size(const opts_t *o, int test)
{
	if (o->size)
		return o->size;
	return test == T_LAT ? 2 : test == T_BW ? 65536 : 64;
}

static double tv_s(const struct timeval *t)
{
	return (double)t->tv_sec + (double)t->tv_usec / 1e6;
}

/* Throughput of @p n iterations in @p ns: MB/s (bw) or messages/s (rate). */
static double throughput(const perf_t *p, int test, uint64_t n, uint64_t ns)
{
	double s = (double)ns / 1e9;

	return test == T_BW ? (double)n * p->test_size / s / PERF_MIB : (double)n / s;
}

/*
 * One measurement with the primitives @p o: @p warm warm-up iterations,
 * then @p n measured ones. lat: @p rtt (if not NULL) gets each round trip
 * in ns; bw, rate: *p_ns the time of the n.
 */
PERF_INLINE int measure(const perf_ops_t *o, perf_t *p, int test, uint64_t n, uint64_t warm,
			uint64_t *rtt, uint64_t *p_ns)
{
	if (test == T_LAT)
		return (warm && loop_lat(o, p, warm, NULL)) || loop_lat(o, p, n, rtt) ? -1 : 0;
	if (test == T_BW) /* B's target is cleared, then each write puts A's pattern in it */
		memset(p->b.buf + p->b.size, 0, p->test_size);
	if ((warm && loop_stream(o, p, warm, test == T_RATE, p_ns)) ||
	    loop_stream(o, p, n, test == T_RATE, p_ns))
		return -1;
	if (test == T_BW && memcmp(p->b.buf + p->b.size, p->a.buf, p->test_size)) {
		fprintf(stderr, "ibal_perf: B's buffer does not hold what A wrote\n");
		return -1;
	}
	return 0;
}

static int measure_ibal(perf_t *p, int test, uint64_t n, uint64_t warm, uint64_t *rtt,
			uint64_t *p_ns)
{
	ibal_set_test(p, &p->a, test);
	ibal_set_test(p, &p->b, test);
	return measure(&ibal_ops, p, test, n, warm, rtt, p_ns);
}

#if PERF_RAW
static int measure_raw(perf_t *p, int test, uint64_t n, uint64_t warm, uint64_t *rtt,
		       uint64_t *p_ns)
{
	raw_set_test(p, &p->a, test);
	raw_set_test(p, &p->b, test);
	return measure(&raw_ops, p, test, n, warm, rtt, p_ns);
}
#endif

static int measure_api(perf_t *p, int api, int test, uint64_t n, uint64_t warm, uint64_t *rtt,
		       uint64_t *p_ns)
{
#if PERF_RAW
	if (api == API_RAW)
		return measure_raw(p, test, n, warm, rtt, p_ns);
#else
	(void)api;
#endif
	return measure_ibal(p, test, n, warm, rtt, p_ns);
}

/* One API's result line: lat from its @p n round trips (sorted here), the
 * others from @p n iterations in @p ns; @p extra ends the line. */
static void print_result(const perf_t *p, int api, int test, uint64_t n, uint64_t *rtt,
			 uint64_t ns, const char *extra)
{
	uint64_t i, sum = 0;

	if (test == T_LAT) {
		for (i = 0; i < n; i++)
			sum += rtt[i];
		printf("ibal_perf api=%s test=lat size=%u n=%" PRIu64
		       " value=%.3f unit=us median=%.3f%s\n", api_name(api), p->test_size, n,
		       (double)sum / (double)n / 2000.0, median_u64(rtt, n) / 2000.0, extra);
	} else {
		printf("ibal_perf api=%s test=%s size=%u n=%" PRIu64 " value=%.2f unit=%s%s\n",
		       api_name(api), test_name(test), p->test_size, n,
		       throughput(p, test, n, ns), test_unit(test), extra);
	}
}

/* One test on one API: warm-up, then -n measured iterations; prints its line. */
/* On a terminal: the test and round running (shown between measurements only). */
static ibal_progress_t prog;

static int run_one(perf_t *p, int api, int test)
{
	uint64_t n = p->o->n, ns = 0, *rtt = NULL;
	int rc;

	if (test == T_LAT && !(rtt = calloc(n, sizeof(*rtt))))
		return -1;
	ibal_progress_show(&prog, test_name(test), 0, 0);
	rc = measure_api(p, api, test, n, p->o->warm, rtt, &ns);
	ibal_progress_clear(&prog);
	if (!rc)
		print_result(p, api, test, n, rtt, ns, "");
	free(rtt);
	return rc;
}

/*
 * --api both: a warm-up of each API, then R rounds (-r) of n/R iterations
 * on one API and n/R on the other (ibal first in even rounds, raw first in
 * odd ones), so that the two see the machine in nearly the same state. A
 * round gives each API a figure (lat: the median one-way latency of its
 * round trips; bw, rate: its throughput) and the pair a ratio ibal/raw.
 * Prints each API's line over all its rounds (lat: all its round trips;
 * bw, rate: all its iterations over the sum of its rounds' times) with its
 * best round and the CPU time of the process (every thread) per iteration
 * during its rounds, user and system (us), then the pair's line: the median
 * of the rounds' ratios, with their minimum and maximum.
 */
static int run_both(perf_t *p, int test)
{
	unsigned R = p->o->rounds, r, k;
	uint64_t per = p->o->n / R ? p->o->n / R : 1, n = per * R, ns = 0, tot_ns[2] = { 0, 0 };
	uint64_t *rtt[2] = { NULL, NULL };
	double *val[2], *ratio, best, cpu_u[2] = { 0, 0 }, cpu_s[2] = { 0, 0 };
	struct rusage ru0, ru1;
	char extra[128];
	int rc = -1, api;

	val[0] = calloc(R, sizeof(double));
	val[1] = calloc(R, sizeof(double));
	ratio = calloc(R, sizeof(double));
	if (test == T_LAT) {
		rtt[0] = calloc(n, sizeof(uint64_t));
		rtt[1] = calloc(n, sizeof(uint64_t));
	}
	if (!val[0] || !val[1] || !ratio || (test == T_LAT && (!rtt[0] || !rtt[1])))
		goto out;
	for (api = API_IBAL; api <= API_RAW; api++)
		if (p->o->warm && measure_api(p, api, test, p->o->warm, 0, NULL, &ns))
			goto out;
	for (r = 0; r < R; r++) {
		ibal_progress_show(&prog, test_name(test), r, R);
		for (k = 0; k < 2; k++) {
			uint64_t *slice;

			api = r % 2 ? API_RAW - (int)k : API_IBAL + (int)k;
			slice = rtt[api] ? rtt[api] + (uint64_t)r * per : NULL;
			getrusage(RUSAGE_SELF, &ru0);
			if (measure_api(p, api, test, per, 0, slice, &ns))
				goto out;
			getrusage(RUSAGE_SELF, &ru1);
			cpu_u[api] += tv_s(&ru1.ru_utime) - tv_s(&ru0.ru_utime);
			cpu_s[api] += tv_s(&ru1.ru_stime) - tv_s(&ru0.ru_stime);
			if (test == T_LAT) {
				val[api][r] = median_u64(slice, per) / 2000.0;
			} else {
				val[api][r] = throughput(p, test, per, ns);
				tot_ns[api] += ns;
			}
		}
		ratio[r] = val[API_IBAL][r] / val[API_RAW][r];
	}
	ibal_progress_clear(&prog);
	for (api = API_IBAL; api <= API_RAW; api++) {
		best = val[api][0];
		for (r = 1; r < R; r++)
			if (test == T_LAT ? val[api][r] < best : val[api][r] > best)
				best = val[api][r];
		snprintf(extra, sizeof(extra), " best=%.3f rounds=%u user_us=%.3f sys_us=%.3f", best,
			 R, cpu_u[api] * 1e6 / (double)n, cpu_s[api] * 1e6 / (double)n);
		print_result(p, api, test, n, rtt[api], tot_ns[api], extra);
	}
	best = median_dbl(ratio, R);
	printf("ibal_perf api=pair test=%s size=%u n=%" PRIu64 " value=%.4f unit=ibal/raw rounds=%u"
	       " min=%.4f max=%.4f\n", test_name(test), p->test_size, n, best, R, ratio[0],
	       ratio[R - 1]);
	rc = 0;
out:
	ibal_progress_clear(&prog);
	free(val[0]);
	free(val[1]);
	free(ratio);
	free(rtt[0]);
	free(rtt[1]);
	return rc;
}

/* ================================================================ main */

/* A comment line with the CPU time the test took: the process (every thread:
 * the provider's and the access layer's too), the main thread, and context
 * switches of the process. */
static void print_cpu(int test, const struct rusage *p0, const struct rusage *t0)
{
	struct rusage p1, t1;

	getrusage(RUSAGE_SELF, &p1);
	getrusage(RUSAGE_THREAD, &t1);
	printf("# cpu test=%s: process user %.3f s sys %.3f s, main thread user %.3f s sys %.3f s,"
	       " switches %ld voluntary %ld involuntary\n", test == T_LAT ? "lat" : test == T_BW ?
	       "bw" : "rate", tv_s(&p1.ru_utime) - tv_s(&p0->ru_utime),
	       tv_s(&p1.ru_stime) - tv_s(&p0->ru_stime), tv_s(&t1.ru_utime) - tv_s(&t0->ru_utime),
	       tv_s(&t1.ru_stime) - tv_s(&t0->ru_stime), p1.ru_nvcsw - p0->ru_nvcsw,
	       p1.ru_nivcsw - p0->ru_nivcsw);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ibal_perf [--api ibal|raw|both] [-t lat|bw|rate|all] [-s BYTES] [-n N]\n"
		"                 [-W N] [-w N] [-r ROUNDS] [-x GID_INDEX] [-G] [-1] [-T SECONDS]\n"
		"  --api ibal   the access layer's public API (default); raw: plain libibverbs;\n"
		"               both: the two in turns, -r rounds of N/ROUNDS iterations each,\n"
		"               and the median of the rounds' ratios ibal/raw (api=pair line)\n"
		"  -t TEST      lat: RC send/recv ping-pong, one-way us (average, median)\n"
		"               bw: RDMA write bandwidth, MB/s (2^20 bytes)\n"
		"               rate: RC send message rate, msg/s; all: the three (default)\n"
		"  -s BYTES     message size (default: lat 2, bw 65536, rate 64)\n"
		"  -n N         measured iterations (default 1000)\n"
		"  -W N         warm-up iterations before each test (default 100)\n"
		"  -w N         sends or writes in flight, 1..%u (default 64)\n"
		"  -x INDEX     GID index for RoCE (default: the IPv4-mapped GID, else 0)\n"
		"  -G           a GRH in the addresses even on a port with a LID\n"
		"  -1           lat: one thread polls both sides (default: B answers from a\n"
		"               thread of its own, as perftest's two processes)\n"
		"  -r ROUNDS    --api both: rounds (default 20)\n"
		"  -T SECONDS   bound of one run (default 120)\n"
		"Two RC QPs of port 1 of the first CA, connected to each other; every 16th\n"
		"send signaled (every N-th if -w N is smaller), 16 completions per poll.\n"
		"Exit 77: no CA.\n",
		PERF_MAX_WIN);
}

static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (!s || !*s || *s == '-')
		return -1;
	x = strtoull(s, &end, 0);
	if (*end || x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

static int parse_args(int argc, char **argv, opts_t *o)
{
	static const struct option longopts[] = {
		{ "api", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c, li;

	memset(o, 0, sizeof(*o));
	o->tests = T_ALL;
	o->n = 1000;
	o->warm = 100;
	o->window = 64;
	o->gid_index = -1;
	o->limit_s = 120;
	o->rounds = 20;
	opterr = 0;
	while ((li = -1, c = getopt_long(argc, argv, ":t:s:n:W:w:x:G1r:T:h", longopts, &li)) != -1) {
		switch (c) {
		case 'a':
			if (!strcmp(optarg, "raw"))
				o->api = API_RAW;
			else if (!strcmp(optarg, "both"))
				o->api = API_BOTH;
			else if (strcmp(optarg, "ibal"))
				return ibal_cmdline_error("ibal_perf", c, longopts, li, argv);
			break;
		case 'r':
			if (parse_u64(optarg, 1, 100000, &v))
				return ibal_cmdline_error("ibal_perf", c, longopts, li, argv);
			o->rounds = (unsigned)v;
			break;
		case 't':
			if (!strcmp(optarg, "lat"))
				o->tests = T_LAT;
			else if (!strcmp(optarg, "bw"))
				o->tests = T_BW;
			else if (!strcmp(optarg, "rate"))
				o->tests = T_RATE;
			else if (!strcmp(optarg, "all"))
				o->tests = T_ALL;
			else
				return ibal_cmdline_error("ibal_perf", c, longopts, li, argv);
			break;
		case 's':
			if (parse_u64(optarg, 1, 1u << 30, &v))
				return ibal_cmdline_error("ibal_perf", c, longopts, li, argv);
			o->size = (uint32_t)v;
			break;
		case 'n':
			if (parse_u64(optarg, 1, 1ull << 32, &o->n))
				return ibal_cmdline_error("ibal_perf", c, longopts, li, argv);
			break;
		case 'W':
			if (parse_u64(optarg, 0, 1ull << 32, &o->warm))
				return ibal_cmdline_error("ibal_perf", c, longopts, li, argv);
			break;
		case 'w':
			if (parse_u64(optarg, 1, PERF_MAX_WIN, &v))
				return ibal_cmdline_error("ibal_perf", c, longopts, li, argv);
			o->window = (uint32_t)v;
			break;
		case 'x':
			if (parse_u64(optarg, 0, 255, &v))
				return ibal_cmdline_error("ibal_perf", c, longopts, li, argv);
			o->gid_index = (int)v;
			break;
		case 'G':
			o->force_grh = 1;
			break;
		case '1':
			o->one_thread = 1;
			break;
		case 'T':
			if (parse_u64(optarg, 1, 86400, &v))
				return ibal_cmdline_error("ibal_perf", c, longopts, li, argv);
			o->limit_s = (unsigned)v;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return ibal_cmdline_error("ibal_perf", c, longopts, li, argv);
		}
	}
	return optind == argc ? 0 : ibal_cmdline_extra("ibal_perf", argv[optind]);
}

int main(int argc, char **argv)
{
	static const int order[] = { T_LAT, T_BW, T_RATE };
	struct rusage ru_p, ru_t;
	opts_t o;
	perf_t p;
	uint32_t size = 0;
	char gs[48];
	unsigned i;
	int rc;

	if (parse_args(argc, argv, &o))
		return 2; /* said in one line */
	if (!PERF_RAW && o.api != API_IBAL) {
		fprintf(stderr, "ibal_perf: built without libibverbs: only --api ibal\n");
		return 77;
	}
	ibal_progress_init(&prog);
	memset(&p, 0, sizeof(p));
	p.o = &o;
	p.window = o.window;
	p.sig = o.window < PERF_SIG ? o.window : PERF_SIG;
	p.a.name = "A";
	p.b.name = "B";
	for (i = 0; i < 3; i++)
		if ((o.tests & order[i]) && test_size(&o, order[i]) > size)
			size = test_size(&o, order[i]);
	p.size = size;
	if (buf_alloc(&p.a, size, 0xA5) || buf_alloc(&p.b, size, 0x5B)) {
		fprintf(stderr, "ibal_perf: out of memory\n");
		return 1;
	}
	rc = o.api == API_RAW ? 0 : ibal_open(&p);
#if PERF_RAW
	if (!rc && o.api != API_IBAL)
		rc = raw_open(&p);
#endif
	if (!rc) {
		gid_str(p.gid, gs, sizeof(gs));
		printf("# ibal_perf api=%s port 1: %s, MTU %u, window %u, %" PRIu64
		       " warm-up iterations\n", api_name(o.api), p.grh ? "GRH" : "LID",
		       128u << p.mtu, p.window, o.warm);
		if (p.grh)
			printf("# GID index %d %s\n", p.gid_index, gs);
		else
			printf("# LID %u\n", p.lid);
		fflush(stdout);
	}
	for (i = 0; !rc && i < 3; i++) {
		if (!(o.tests & order[i]))
			continue;
		p.test_size = test_size(&o, order[i]);
		getrusage(RUSAGE_SELF, &ru_p);
		getrusage(RUSAGE_THREAD, &ru_t);
		rc = o.api == API_BOTH ? run_both(&p, order[i]) : run_one(&p, o.api, order[i]);
		if (rc) {
			fprintf(stderr, "ibal_perf: test %s failed\n", test_name(order[i]));
			rc = 1;
		} else {
			print_cpu(order[i], &ru_p, &ru_t);
		}
		fflush(stdout);
	}
#if PERF_RAW
	raw_close(&p);
#endif
	ibal_close(&p);
	free(p.a.buf);
	free(p.b.buf);
	return rc;
}
