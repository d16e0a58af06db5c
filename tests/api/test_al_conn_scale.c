/*
 * ibal tests: many RC connections between two processes carry their messages without stalls or
 * a retransmission storm.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A forked child and the parent each open their own soft CA on one fabric
 * directory, make N_CONN RC QPs, exchange LIDs and QP numbers over a socket
 * pair and connect the QPs pairwise by hand (one send CQ, four receive CQs
 * that can each hold all the receives of their QPs). Then both stream N_MSG
 * messages on every connection at once (each QP keeps up to DEPTH sends in
 * flight; every receive is posted before the first send, so no RNR NAK
 * makes a sender repeat anything), checking
 * that each connection's messages arrive whole and in order. The port
 * counters read through ib_local_mad (PerfMgt PortCounters) before and after
 * must show no discarded packet and no more packets sent than the messages
 * and their acknowledgements need, plus a little slack: retransmissions
 * would show there. Every wait is bounded.
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/al_procs.h"

#define N_CONN 100
#define N_MSG 1000 /* per connection and direction; fewer under a sanitizer (n_msg) */
#define MSG_LEN 64
#define DEPTH 16
#define RQ_DEPTH N_MSG /* every receive posted up front: no RNR NAK, ever */
#define N_RCQ 4 /* receive CQs, so that none can overrun: N_CONN / N_RCQ * N_MSG each */
#define RCQ_SIZE (N_CONN / N_RCQ * RQ_DEPTH)
#define SCQ_SIZE (N_CONN * DEPTH)
#define SEND_SLOTS (N_CONN * DEPTH)
#define SLOTS (SEND_SLOTS + N_CONN * RQ_DEPTH)
#define OOB_WAIT_MS 20000
#define RUN_MS 120000 /* the whole exchange; it takes seconds */

typedef struct peer {
	ib_net16_t lid;
	net32_t qpn[N_CONN];
} peer_t;

typedef struct side {
	ib_al_handle_t al;
	ib_ca_handle_t ca;
	ib_pd_handle_t pd;
	ib_cq_handle_t scq, rcq[N_RCQ];
	ib_mr_handle_t mr;
	net32_t lkey, rkey;
	uint8_t *buf;
	ib_qp_handle_t qp[N_CONN];
	peer_t me;
	uint32_t sent[N_CONN], got[N_CONN], inflight[N_CONN];
	uint32_t bad; /* messages out of order or torn */
} side_t;

typedef struct counters {
	uint32_t discards, xmit, rcv;
} counters_t;

static char fab_dir[64];
static uint32_t n_msg = N_MSG;

/*
 * Under valgrind or TSan the whole exchange takes both processors for many
 * seconds and starves the timing-sensitive tests make runs beside it: there
 * a tenth of the messages is enough to show the same behaviour.
 */
static uint32_t messages_per_connection(void)
{
	const char *pre = getenv("LD_PRELOAD");

#if defined(__SANITIZE_THREAD__)
	return N_MSG / 10;
#endif
	if (pre && strstr(pre, "vgpreload"))
		return N_MSG / 10;
	return N_MSG;
}

static void AL_API on_comp(const ib_cq_handle_t h_cq, void *context)
{
	(void)h_cq;
	(void)context;
}

/* PortXmitDiscards, PortXmitPkts and PortRcvPkts of port 1 through the PMA. */
static int read_counters(ib_ca_handle_t ca, counters_t *c)
{
	test_port_counters_t pc;

	if (test_port_counters(ca, &pc))
		return -1;
	c->discards = pc.xmit_discards;
	c->xmit = pc.xmit_pkts;
	c->rcv = pc.rcv_pkts;
	return 0;
}

static int open_side(side_t *s)
{
	ib_port_attr_t port;
	ib_gid_t gid;
	ib_cq_create_t cc;
	ib_qp_create_t qc;
	ib_qp_attr_t qa;
	ib_mr_create_t mc;
	uint32_t i;

	if (test_open_first_port(&s->al, &s->ca, &port, &gid) != IB_SUCCESS ||
	    port.link_state != IB_LINK_ACTIVE)
		return -1;
	s->me.lid = port.lid;
	if (ib_alloc_pd(s->ca, IB_PDT_NORMAL, NULL, &s->pd) != IB_SUCCESS)
		return -2;
	memset(&cc, 0, sizeof(cc));
	cc.size = SCQ_SIZE;
	cc.pfn_comp_cb = on_comp;
	if (ib_create_cq(s->ca, &cc, NULL, NULL, &s->scq) != IB_SUCCESS)
		return -3;
	cc.size = RCQ_SIZE;
	for (i = 0; i < N_RCQ; i++)
		if (ib_create_cq(s->ca, &cc, NULL, NULL, &s->rcq[i]) != IB_SUCCESS)
			return -3;
	s->buf = (uint8_t *)calloc(SLOTS, MSG_LEN);
	if (!s->buf)
		return -4;
	memset(&mc, 0, sizeof(mc));
	mc.vaddr = s->buf;
	mc.length = (uint64_t)SLOTS * MSG_LEN;
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	if (ib_reg_mem(s->pd, &mc, &s->lkey, &s->rkey, &s->mr) != IB_SUCCESS)
		return -5;
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	qc.sq_depth = DEPTH;
	qc.rq_depth = RQ_DEPTH;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = s->scq;
	qc.sq_signaled = TRUE;
	for (i = 0; i < N_CONN; i++) {
		qc.h_rq_cq = s->rcq[i % N_RCQ];
		if (ib_create_qp(s->pd, &qc, NULL, NULL, &s->qp[i]) != IB_SUCCESS ||
		    ib_query_qp(s->qp[i], &qa) != IB_SUCCESS)
			return -6;
		s->me.qpn[i] = qa.num;
	}
	return 0;
}

static int connect_qp(side_t *s, uint32_t i, const peer_t *peer)
{
	/* 4.3 s ACK timeout: under valgrind a packet may wait in a full ring
	 * for most of a second; retransmissions would show in the packet
	 * counts anyway. */
	static const test_rc_link_t link = { IB_AC_LOCAL_WRITE, IB_MTU_LEN_2048, 20, 1,
					     CL_HTON32(0x100) };

	return test_rc_connect(s->qp[i], peer->lid, peer->qpn[i], &link);
}

/* Receive slot k of QP i, after the send slots. */
static uint8_t *recv_slot(side_t *s, uint32_t i, uint32_t k)
{
	return s->buf + ((size_t)SEND_SLOTS + (size_t)i * RQ_DEPTH + k) * MSG_LEN;
}

static int post_recv(side_t *s, uint32_t i, uint32_t k)
{
	ib_local_ds_t ds;
	ib_recv_wr_t wr;

	ds.vaddr = (uintptr_t)recv_slot(s, i, k);
	ds.length = MSG_LEN;
	ds.lkey = s->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = ((uint64_t)i << 32) | k;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	return ib_post_recv(s->qp[i], &wr, NULL) == IB_SUCCESS ? 0 : -1;
}

/* The next message of QP i, from its send slot; its first word is its sequence number. */
static int post_send(side_t *s, uint32_t i)
{
	uint32_t seq = s->sent[i], slot = i * DEPTH + seq % DEPTH;
	uint8_t *p = s->buf + (size_t)slot * MSG_LEN;
	ib_local_ds_t ds;
	ib_send_wr_t wr;

	memset(p, (int)(seq & 0xFF), MSG_LEN);
	p[0] = (uint8_t)(seq >> 24);
	p[1] = (uint8_t)(seq >> 16);
	p[2] = (uint8_t)(seq >> 8);
	p[3] = (uint8_t)seq;
	ds.vaddr = (uintptr_t)p;
	ds.length = MSG_LEN;
	ds.lkey = s->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = ((uint64_t)i << 32) | 0x80000000u | seq;
	wr.wr_type = WR_SEND;
	wr.send_opt = IB_SEND_OPT_SIGNALED;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	if (ib_post_send(s->qp[i], &wr, NULL) != IB_SUCCESS)
		return -1;
	s->sent[i]++;
	s->inflight[i]++;
	return 0;
}

static int on_wc(side_t *s, const ib_wc_t *wc)
{
	uint32_t i = (uint32_t)(wc->wr_id >> 32), k = (uint32_t)wc->wr_id & 0x7FFFFFFFu;
	const uint8_t *p;
	uint32_t n;

	if (wc->status != IB_WCS_SUCCESS || i >= N_CONN) {
		fprintf(stderr, "QP %u: %s completion %s\n", i,
			wc->wc_type == IB_WC_SEND ? "send" : "receive", ib_get_wc_status_str(wc->status));
		return -1;
	}
	if (wc->wc_type == IB_WC_SEND) {
		s->inflight[i]--;
		return 0;
	}
	p = recv_slot(s, i, k);
	if (k != s->got[i] || wc->length != MSG_LEN || test_be32_at(p) != s->got[i])
		s->bad++;
	for (n = 4; n < MSG_LEN; n++)
		if (p[n] != (uint8_t)(s->got[i] & 0xFF))
			s->bad++;
	s->got[i]++;
	return 0;
}

/* Streams every connection's messages; 0 when all went and came. */
static int exchange(side_t *s)
{
	uint64_t end = test_now_ms() + RUN_MS;
	ib_wc_t wcs[64], *p_free, *p_done;
	uint32_t i, done;
	int k, c;

	for (;;) {
		done = 0;
		for (i = 0; i < N_CONN; i++) {
			while (s->sent[i] < n_msg && s->inflight[i] < DEPTH)
				if (post_send(s, i))
					return -1;
			done += s->sent[i] == n_msg && !s->inflight[i] && s->got[i] == n_msg;
		}
		if (done == N_CONN)
			return 0;
		if (test_now_ms() > end)
			return -2;
		for (c = 0; c <= N_RCQ; c++) {
			do {
				for (k = 0; k < 63; k++)
					wcs[k].p_next = &wcs[k + 1];
				wcs[63].p_next = NULL;
				p_free = wcs;
				if (ib_poll_cq(c < N_RCQ ? s->rcq[c] : s->scq, &p_free, &p_done) !=
				    IB_SUCCESS)
					break;
				for (; p_done; p_done = p_done->p_next)
					if (on_wc(s, p_done))
						return -3;
			} while (!p_free); /* all 64 used: there may be more */
		}
	}
}

/* One side's whole run, after the socket pair is set up; 0 or a step code. */
static int run_side(side_t *s, int fd, counters_t *delta)
{
	counters_t before, after;
	peer_t peer;
	uint32_t i, k;
	char c = 'R';
	int rc;

	rc = open_side(s);
	if (rc)
		return 10 - rc;
	if (write(fd, &s->me, sizeof(s->me)) != (ssize_t)sizeof(s->me) ||
	    test_oob_read(fd, &peer, sizeof(peer), OOB_WAIT_MS))
		return 20;
	for (i = 0; i < N_CONN; i++) {
		if (connect_qp(s, i, &peer))
			return 21;
		for (k = 0; k < RQ_DEPTH; k++)
			if (post_recv(s, i, k))
				return 22;
	}
	if (read_counters(s->ca, &before))
		return 23;
	/* Both sides have their receives posted before anything is sent. */
	if (write(fd, &c, 1) != 1 || test_oob_read(fd, &c, 1, OOB_WAIT_MS))
		return 24;
	rc = exchange(s);
	if (rc)
		return 30 - rc;
	/* The peer's last ACKs may still be on their way: wait for it too. */
	if (write(fd, &c, 1) != 1 || test_oob_read(fd, &c, 1, OOB_WAIT_MS))
		return 40;
	if (read_counters(s->ca, &after))
		return 41;
	delta->discards = after.discards - before.discards;
	delta->xmit = after.xmit - before.xmit;
	delta->rcv = after.rcv - before.rcv;
	return s->bad ? 50 : 0;
}

static void close_side(side_t *s)
{
	if (s->al)
		ib_close_al(s->al);
	free(s->buf);
}

static void test_many_connections_two_processes(void)
{
	static side_t me;
	counters_t d = { 0, 0, 0 }, cd = { 0, 0, 0 };
	uint64_t t0, ms;
	int sv[2], status = -1, rc, crc = -1;
	/* Each side sends its messages (one packet each) and at most one ACK
	 * per message it receives. */
	uint32_t need;
	pid_t pid;

	n_msg = messages_per_connection();
	need = 2u * N_CONN * n_msg;
	strcpy(fab_dir, "/tmp/ibal-scale-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "1", 1);
	setenv("IBAL_PROVIDERS", "soft", 1);
	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	fflush(stdout);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		static side_t child;

		memset(&cd, 0, sizeof(cd));
		close(sv[0]);
		rc = run_side(&child, sv[1], &cd);
		if (write(sv[1], &rc, sizeof(rc)) != sizeof(rc) ||
		    write(sv[1], &cd, sizeof(cd)) != sizeof(cd))
			rc = 60;
		/* Stay until the parent has read its counters. */
		test_oob_read(sv[1], &status, 1, OOB_WAIT_MS);
		close_side(&child);
		_exit(rc);
	}
	close(sv[1]);
	t0 = test_now_ms();
	rc = run_side(&me, sv[0], &d);
	ms = test_now_ms() - t0;
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(test_oob_read(sv[0], &crc, sizeof(crc), OOB_WAIT_MS), 0);
	CU_ASSERT_EQUAL(crc, 0);
	CU_ASSERT_EQUAL(test_oob_read(sv[0], &cd, sizeof(cd), OOB_WAIT_MS), 0);
	CU_ASSERT_EQUAL(write(sv[0], "x", 1), 1);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	printf("\n    %u x %u messages each way in %llu ms; packets sent %u / %u (least %u), "
	       "discarded %u / %u; steps %d / %d\n  ",
	       N_CONN, n_msg, (unsigned long long)ms, d.xmit, cd.xmit, need, d.discards,
	       cd.discards, rc, crc);
	if (rc == 0 && crc == 0) {
		/* No packet dropped, so none resent: at most what the messages and
		 * their ACKs need, plus the subnet manager's few. */
		CU_ASSERT_EQUAL(d.discards, 0);
		CU_ASSERT_EQUAL(cd.discards, 0);
		CU_ASSERT_TRUE(d.xmit >= need / 2 && d.xmit <= need + need / 1000);
		CU_ASSERT_TRUE(cd.xmit >= need / 2 && cd.xmit <= need + need / 1000);
	}
	close(sv[0]);
	close_side(&me);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_many_connections_two_processes),
};

TEST_MAIN("al_conn_scale", tests)
