/*
 * ibal tests: a peer that dies in the middle of RDMA.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Public API only, two processes on the soft fabric: a survivor and a
 * victim, each with an RC QP connected to the other by hand (ACK timeout
 * 67 ms, 7 retries) and a 4 MiB region. The test process forks both and
 * never opens the access layer itself.
 *
 * The victim is killed (SIGKILL) while the survivor streams RDMA writes to
 * it, eight outstanding: the survivor's writes that were not acknowledged
 * end in one IB_WCS_TIMEOUT_RETRY_ERR, then flushes (IB_WCS_WR_FLUSHED_ERR),
 * within a bound; its QP is in the error state; its completion callback
 * ran; closing the access layer returns.
 *
 * The fabric directory is removed under two running processes: each one's
 * port goes DOWN (PnP IB_PNP_PORT_DOWN) within a bound, and each closes.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/al_procs.h"

#define BUF_LEN (4u << 20)
#define WRITE_LEN (256u << 10)
#define WINDOW 8
#define OOB_WAIT_MS 20000
/* Seven retries of a 67 ms ACK timeout, doubled, and generous slack. */
#define DEATH_BOUND_MS 10000

typedef struct peer {
	ib_net16_t lid;
	net32_t qpn;
	uint64_t va;
	net32_t rkey;
} peer_t;

typedef struct side {
	ib_al_handle_t al;
	ib_ca_handle_t ca;
	ib_pd_handle_t pd;
	ib_cq_handle_t cq;
	ib_qp_handle_t qp;
	ib_mr_handle_t mr;
	net32_t lkey;
	uint8_t *buf;
	peer_t me, other;
} side_t;

static char fab_dir[64];
static volatile int n_comp_cb;   /* completion callbacks of this process */

static void AL_API on_comp(const ib_cq_handle_t h_cq, void *ctx)
{
	(void)h_cq;
	(void)ctx;
	__atomic_add_fetch(&n_comp_cb, 1, __ATOMIC_RELAXED);
}

/* Opens a side and connects its QP with the peer's over @p fd: 0 or a step. */
static int side_up(side_t *s, int fd)
{
	static const test_rc_link_t link = {
		IB_AC_LOCAL_WRITE | IB_AC_RDMA_WRITE, IB_MTU_LEN_4096, 14, 4, CL_HTON32(0x300)
	};
	ib_port_attr_t port;
	ib_gid_t gid;
	ib_cq_create_t cc;
	ib_qp_create_t qc;
	ib_qp_attr_t qa;
	ib_mr_create_t mc;

	memset(s, 0, sizeof(*s));
	if (test_open_first_port(&s->al, &s->ca, &port, &gid) != IB_SUCCESS ||
	    port.link_state != IB_LINK_ACTIVE)
		return 1;
	if (ib_alloc_pd(s->ca, IB_PDT_NORMAL, NULL, &s->pd) != IB_SUCCESS)
		return 2;
	memset(&cc, 0, sizeof(cc));
	cc.size = 64;
	cc.pfn_comp_cb = on_comp;
	if (ib_create_cq(s->ca, &cc, NULL, NULL, &s->cq) != IB_SUCCESS ||
	    ib_rearm_cq(s->cq, FALSE) != IB_SUCCESS)
		return 3;
	s->buf = (uint8_t *)calloc(1, BUF_LEN);
	if (!s->buf)
		return 4;
	memset(&mc, 0, sizeof(mc));
	mc.vaddr = s->buf;
	mc.length = BUF_LEN;
	mc.access_ctrl = IB_AC_LOCAL_WRITE | IB_AC_RDMA_WRITE;
	if (ib_reg_mem(s->pd, &mc, &s->lkey, &s->me.rkey, &s->mr) != IB_SUCCESS)
		return 5;
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	qc.sq_depth = qc.rq_depth = 2 * WINDOW;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = qc.h_rq_cq = s->cq;
	qc.sq_signaled = TRUE;
	if (ib_create_qp(s->pd, &qc, NULL, NULL, &s->qp) != IB_SUCCESS ||
	    ib_query_qp(s->qp, &qa) != IB_SUCCESS)
		return 6;
	s->me.lid = port.lid;
	s->me.qpn = qa.num;
	s->me.va = (uintptr_t)s->buf;
	if (write(fd, &s->me, sizeof(s->me)) != (ssize_t)sizeof(s->me) ||
	    test_oob_read(fd, &s->other, sizeof(s->other), OOB_WAIT_MS))
		return 7;
	return test_rc_connect(s->qp, s->other.lid, s->other.qpn, &link) ? 8 : 0;
}

/* Posts one signaled RDMA write of WRITE_LEN from and to area @p k. */
static ib_api_status_t post_write(side_t *s, uint64_t id, unsigned k)
{
	ib_local_ds_t ds = { (uintptr_t)(s->buf + (k % 16u) * WRITE_LEN), WRITE_LEN, s->lkey };
	ib_send_wr_t wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.wr_type = WR_RDMA_WRITE;
	wr.send_opt = IB_SEND_OPT_SIGNALED;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	wr.remote_ops.vaddr = s->other.va + (k % 16u) * WRITE_LEN;
	wr.remote_ops.rkey = s->other.rkey;
	return ib_post_send(s->qp, &wr, &bad);
}

/* Polls one completion, waiting at most until @p end_ms: 1, or 0 on timeout. */
static int poll_one(side_t *s, ib_wc_t *wc, uint64_t end_ms)
{
	ib_wc_t *p_free, *p_done;

	do {
		wc->p_next = NULL;
		p_free = wc;
		if (ib_poll_cq(s->cq, &p_free, &p_done) == IB_SUCCESS)
			return 1;
	} while (test_now_ms() < end_ms);
	return 0;
}

/* The victim: sets up, tells it is ready, then waits to be killed. */
static int victim(int fd)
{
	static side_t s;
	char c;
	int rc = side_up(&s, fd);

	if (write(fd, rc ? "e" : "r", 1) != 1 || rc)
		return rc ? rc : 9;
	/* Until killed, or told to leave ('q'). */
	while (!test_oob_read(fd, &c, 1, OOB_WAIT_MS) && c != 'q')
		;
	ib_close_al(s.al);
	return 0;
}

/* What the survivor found, reported to the test process. */
typedef struct death_outcome {
	int step;            /* 0: every step went as expected */
	int n_ok;            /* writes acknowledged */
	int n_retry;         /* IB_WCS_TIMEOUT_RETRY_ERR */
	int n_flushed;       /* IB_WCS_WR_FLUSHED_ERR */
	int n_other;         /* any other status */
	uint64_t err_ms;     /* from the kill to the error completion */
	int qp_error;        /* the QP was in the error state after */
	int comp_cb;         /* completion callbacks seen */
	uint64_t close_ms;   /* ib_close_al */
} death_outcome_t;

static void survivor(int fd, pid_t victim_pid, death_outcome_t *o)
{
	static side_t s;
	ib_qp_attr_t qa;
	ib_wc_t wc;
	uint64_t t_kill = 0, end, id = 0;
	unsigned out = 0;
	char c;

	o->step = side_up(&s, fd);
	if (o->step)
		return;
	if (test_oob_read(fd, &c, 1, OOB_WAIT_MS) || c != 'r') {
		o->step = 10;
		return;
	}
	end = test_now_ms() + OOB_WAIT_MS;
	/* Stream writes, WINDOW outstanding; kill the victim after the first
	 * is acknowledged; go on until an error completion and the flushes. */
	for (;;) {
		while (!o->n_retry && !o->n_other && out < WINDOW &&
		       post_write(&s, id + 1, (unsigned)id) == IB_SUCCESS) {
			id++;
			out++;
		}
		if (!out)
			break;
		if (!poll_one(&s, &wc, t_kill ? t_kill + DEATH_BOUND_MS : end)) {
			o->step = 11;   /* no completion within the bound */
			break;
		}
		out--;
		switch (wc.status) {
		case IB_WCS_SUCCESS:
			o->n_ok++;
			break;
		case IB_WCS_TIMEOUT_RETRY_ERR:
			if (!o->n_retry)
				o->err_ms = test_now_ms() - t_kill;
			o->n_retry++;
			break;
		case IB_WCS_WR_FLUSHED_ERR:
			o->n_flushed++;
			break;
		default:
			o->n_other++;
			break;
		}
		if (!t_kill && o->n_ok) {
			kill(victim_pid, SIGKILL);
			t_kill = test_now_ms();
		}
	}
	o->qp_error = ib_query_qp(s.qp, &qa) == IB_SUCCESS && qa.state == IB_QPS_ERROR;
	o->comp_cb = __atomic_load_n(&n_comp_cb, __ATOMIC_RELAXED);
	end = test_now_ms();
	ib_close_al(s.al);
	o->close_ms = test_now_ms() - end;
	free(s.buf);
}

/* Forks a process running @p fn(fd, arg) and exiting with its result. */
static pid_t fork_role(int fd, int close_fd, int (*fn)(int, void *), void *arg)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(close_fd);
		_exit(fn(fd, arg));
	}
	return pid;
}

static int victim_role(int fd, void *arg)
{
	(void)arg;
	return victim(fd);
}

typedef struct survivor_arg {
	pid_t victim;
	int result_fd;
} survivor_arg_t;

static int survivor_role(int fd, void *arg)
{
	survivor_arg_t *a = (survivor_arg_t *)arg;
	death_outcome_t o;

	memset(&o, 0, sizeof(o));
	survivor(fd, a->victim, &o);
	return write(a->result_fd, &o, sizeof(o)) == (ssize_t)sizeof(o) ? 0 : 1;
}

static void dir_begin(void)
{
	strcpy(fab_dir, "/tmp/ibal-death-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "1", 1);
}

static void dir_end(void)
{
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
	unsetenv("IBAL_SOFT_CAS");
}

static void test_peer_killed_mid_rdma(void)
{
	int sv[2], pv[2], status = -1;
	survivor_arg_t a;
	death_outcome_t o;
	pid_t v, s;

	dir_begin();
	CU_ASSERT_FATAL(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv) && !pipe(pv));
	v = fork_role(sv[1], sv[0], victim_role, NULL);
	CU_ASSERT_FATAL(v > 0);
	a.victim = v;
	a.result_fd = pv[1];
	s = fork_role(sv[0], sv[1], survivor_role, &a);
	CU_ASSERT_FATAL(s > 0);
	close(sv[0]);
	close(sv[1]);
	close(pv[1]);
	memset(&o, 0, sizeof(o));
	o.step = 99;
	CU_ASSERT_EQUAL(test_oob_read(pv[0], &o, sizeof(o), 3 * OOB_WAIT_MS), 0);
	close(pv[0]);
	CU_ASSERT_EQUAL(waitpid(s, &status, 0), s);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	kill(v, SIGKILL);          /* if the survivor failed before its kill */
	CU_ASSERT_EQUAL(waitpid(v, &status, 0), v);
	CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	CU_ASSERT_EQUAL(o.step, 0);
	CU_ASSERT(o.n_ok >= 1);
	CU_ASSERT_EQUAL(o.n_retry, 1);
	CU_ASSERT_EQUAL(o.n_other, 0);
	CU_ASSERT(o.err_ms < DEATH_BOUND_MS);
	CU_ASSERT(o.qp_error);
	CU_ASSERT(o.comp_cb >= 1);
	CU_ASSERT(o.close_ms < DEATH_BOUND_MS);
	printf("\n    %d acknowledged, 1 retry error %llu ms after the kill, %d flushed, close %llu ms\n  ",
	       o.n_ok, (unsigned long long)o.err_ms, o.n_flushed, (unsigned long long)o.close_ms);
	dir_end();
}

/* PnP port events of this process: a PORT_DOWN seen (under down_lock). */
static pthread_mutex_t down_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t down_cond = PTHREAD_COND_INITIALIZER;
static int port_down_seen;

static ib_api_status_t AL_API on_pnp(ib_pnp_rec_t *p_rec)
{
	if (p_rec->pnp_event == IB_PNP_PORT_DOWN) {
		pthread_mutex_lock(&down_lock);
		port_down_seen = 1;
		pthread_cond_broadcast(&down_cond);
		pthread_mutex_unlock(&down_lock);
	}
	return IB_SUCCESS;
}

/* Waits (bounded) for a PORT_DOWN; whether one came. */
static int wait_port_down(uint32_t ms)
{
	struct timespec ts;
	int seen;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000u;
	pthread_mutex_lock(&down_lock);
	while (!port_down_seen && pthread_cond_timedwait(&down_cond, &down_lock, &ts) == 0)
		;
	seen = port_down_seen;
	pthread_mutex_unlock(&down_lock);
	return seen;
}

/* A process of the directory test: sets up with its peer over @p fd and
 * reports 'r' on its control socket; on 'x' waits for its port to go down
 * and reports 0 (or 1); ends on 'q'. */
static int dir_role(int fd, void *arg)
{
	static side_t s;
	ib_pnp_req_t req = { IB_PNP_PORT | IB_PNP_FLAG_REG_SYNC, NULL, on_pnp };
	ib_pnp_handle_t h;
	int ctl = *(const int *)arg;
	uint8_t res;
	char c;
	int rc = side_up(&s, fd);

	if (!rc && ib_reg_pnp(s.al, &req, &h) != IB_SUCCESS)
		rc = 20;
	if (write(ctl, rc ? "e" : "r", 1) != 1 || rc)
		return rc ? rc : 9;
	if (test_oob_read(ctl, &c, 1, OOB_WAIT_MS) || c != 'x')
		return 21;
	res = wait_port_down(DEATH_BOUND_MS) ? 0 : 1;
	if (write(ctl, &res, 1) != 1 || test_oob_read(ctl, &c, 1, OOB_WAIT_MS))
		return 22;
	ib_close_al(s.al);
	free(s.buf);
	return 0;
}

static void test_fabric_dir_removed(void)
{
	int sv[2], ctl[2][2], child_ctl[2], status, i;
	uint8_t res;
	char c;
	pid_t p[2];

	dir_begin();
	CU_ASSERT_FATAL(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	for (i = 0; i < 2; i++) {
		CU_ASSERT_FATAL(!socketpair(AF_UNIX, SOCK_STREAM, 0, ctl[i]));
		child_ctl[i] = ctl[i][1];
		p[i] = fork_role(sv[i], sv[1 - i], dir_role, &child_ctl[i]);
		CU_ASSERT_FATAL(p[i] > 0);
		close(ctl[i][1]);
	}
	close(sv[0]);
	close(sv[1]);
	for (i = 0; i < 2; i++) {
		c = 0;
		CU_ASSERT_EQUAL(test_oob_read(ctl[i][0], &c, 1, OOB_WAIT_MS), 0);
		CU_ASSERT_EQUAL(c, 'r');
	}
	test_rm_tree(fab_dir);
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(write(ctl[i][0], "x", 1), 1);
	for (i = 0; i < 2; i++) {
		res = 9;
		CU_ASSERT_EQUAL(test_oob_read(ctl[i][0], &res, 1, OOB_WAIT_MS), 0);
		CU_ASSERT_EQUAL(res, 0);   /* its port went down */
		CU_ASSERT_EQUAL(write(ctl[i][0], "q", 1), 1);
	}
	for (i = 0; i < 2; i++) {
		status = -1;
		CU_ASSERT_EQUAL(waitpid(p[i], &status, 0), p[i]);
		CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		close(ctl[i][0]);
	}
	dir_end();
}

/* With no embedded SM (IBAL_SOFT_SM=off) the process still watches its
 * directory: removed, the port (INIT: nothing activates it) goes DOWN.
 * In this process, after the tests that fork. */
static void test_fabric_dir_removed_sm_off(void)
{
	ib_pnp_req_t req = { IB_PNP_PORT | IB_PNP_FLAG_REG_SYNC, NULL, on_pnp };
	ib_al_handle_t al;
	ib_ca_handle_t ca;
	ib_port_attr_t pa;
	ib_pnp_handle_t h;
	ib_gid_t gid;

	dir_begin();
	setenv("IBAL_SOFT_SM", "off", 1);
	port_down_seen = 0;
	CU_ASSERT_EQUAL_FATAL(test_open_first_port(&al, &ca, &pa, &gid), IB_SUCCESS);
	CU_ASSERT_EQUAL(pa.link_state, IB_LINK_INIT);
	CU_ASSERT_EQUAL(ib_reg_pnp(al, &req, &h), IB_SUCCESS);
	test_rm_tree(fab_dir);
	CU_ASSERT(wait_port_down(DEATH_BOUND_MS));
	CU_ASSERT_EQUAL(ib_close_al(al), IB_SUCCESS);
	unsetenv("IBAL_SOFT_SM");
	dir_end();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_peer_killed_mid_rdma),
	TEST_ENTRY(test_fabric_dir_removed),
	TEST_ENTRY(test_fabric_dir_removed_sm_off),
};

TEST_MAIN("al_peer_death", tests)
