/*
 * ibal tests: the connection manager between two processes: connect, transfer, disconnect, and a peer that dies.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A forked child (made before the parent opens anything) opens its own
 * soft CA on the parent's fabric directory and listens on a service ID;
 * its callbacks accept each REQ with a QP of their own, send one message
 * once the RTU arrives and answer DREQs. The parent connects to it
 * (IB_FLAGS_SYNC), receives the child's message on the connected RC QP,
 * disconnects (DREP received), connects again, then kills the child: its
 * DREQ is resent and ends with the drep callback's IB_TIMEOUT.
 * The processes talk out of band over a socket pair; every wait is bounded.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/al_procs.h"
#include "../common/cm_test.h"
#include "al_cm.h"
#include "al_sa_client.h"

#define SVC CL_HTON64(0x1000000000C3C3E5ull)
#define OOB_WAIT_MS 20000

typedef struct peer_info {
	int ok;
	ib_net16_t lid;
	ib_gid_t gid;
} peer_info_t;

static char fab_dir[64];

/* Opens the access layer and the first CA; *p gets port 1's LID, GID and whether it is ACTIVE. */
static ib_api_status_t open_port(ib_al_handle_t *ph_al, ib_ca_handle_t *ph_ca, peer_info_t *p)
{
	ib_port_attr_t port;
	ib_api_status_t st = test_open_first_port(ph_al, ph_ca, &port, &p->gid);

	if (st == IB_SUCCESS) {
		p->lid = port.lid;
		p->ok = port.link_state == IB_LINK_ACTIVE;
	}
	return st;
}

static int oob_read(int fd, void *buf, size_t len)
{
	return test_oob_read(fd, buf, len, OOB_WAIT_MS);
}

/* ---- The child ---- */

static cm_end_t c_end[2];
static int c_next;
static int c_fd;

static void AL_API c_on_rtu(ib_cm_rtu_rec_t *p)
{
	cm_end_t *e = (cm_end_t *)(uintptr_t)p->qp_context;
	char up = 'u';

	memcpy(e->buf + 2048, "from the child", 15);
	cm_post_send(e, 15);
	if (write(c_fd, &up, 1) != 1)
		_exit(5);
}

static void AL_API c_on_req(ib_cm_req_rec_t *p)
{
	cm_rep_rc(p->h_cm_req, c_end[c_next++ & 1].qp, cm_ignore_rej, c_on_rtu, cm_answer_dreq);
}

static void child_main(int fd)
{
	peer_info_t me, parent;
	ib_al_handle_t h_al;
	ib_ca_handle_t h_ca;
	ib_cm_listen_t l;
	ib_listen_handle_t hl;
	char c;

	c_fd = fd;
	if (oob_read(fd, &parent, sizeof(parent)))
		_exit(2);
	memset(&me, 0, sizeof(me));
	if (open_port(&h_al, &h_ca, &me) != IB_SUCCESS)
		me.ok = 0;
	if (me.ok) {
		cm_end_open(&c_end[0], h_ca, IB_QPT_RELIABLE_CONN);
		cm_end_open(&c_end[1], h_ca, IB_QPT_RELIABLE_CONN);
		memset(&l, 0, sizeof(l));
		l.svc_id = SVC;
		l.pfn_cm_req_cb = c_on_req;
		me.ok = ib_cm_listen(h_al, &l, NULL, &hl) == IB_SUCCESS;
	}
	if (write(fd, &me, sizeof(me)) != (ssize_t)sizeof(me))
		_exit(3);
	/* Serve until the parent says to go (or kills us). */
	if (oob_read(fd, &c, 1))
		_exit(4);
	ib_close_al(h_al);
	_exit(0);
}

/* ---- The parent ---- */

static cm_end_t p_end;
static pthread_mutex_t p_lock = PTHREAD_MUTEX_INITIALIZER;

static void AL_API p_on_rej(ib_cm_rej_rec_t *p)
{
	pthread_mutex_lock(&p_lock);
	cm_rec.rej_status = p->rej_status;
	pthread_mutex_unlock(&p_lock);
	cm_bump(&cm_rec.n_rej);
}

static void AL_API p_on_rep(ib_cm_rep_rec_t *p)
{
	ib_cm_rtu_t t;

	/* The child sends at once after our RTU: the receive goes first. */
	CU_ASSERT_EQUAL(cm_post_recv(&p_end, 64), IB_SUCCESS);
	memset(&t, 0, sizeof(t));
	CU_ASSERT_EQUAL(ib_cm_rtu(p->h_cm_rep, &t), IB_SUCCESS);
	cm_bump(&cm_rec.n_rep);
}

static void AL_API p_on_drep(ib_cm_drep_rec_t *p)
{
	pthread_mutex_lock(&cm_rec.lock);
	cm_rec.drep_status = p->cm_status;
	pthread_mutex_unlock(&cm_rec.lock);
	cm_bump(&cm_rec.n_drep);
}

static void p_connect(const peer_info_t *me, const peer_info_t *child)
{
	ib_path_rec_t path;
	ib_cm_req_t q;
	ib_wc_t wc;

	cm_make_path(&path, me->lid, &me->gid, child->lid, &child->gid, 12);
	memset(&q, 0, sizeof(q));
	q.svc_id = SVC;
	q.flags = IB_FLAGS_SYNC;
	q.max_cm_retries = 3;
	q.p_primary_path = &path;
	q.pfn_cm_rep_cb = p_on_rep;
	q.pfn_cm_rej_cb = p_on_rej;
	q.qp_type = IB_QPT_RELIABLE_CONN;
	q.h_qp = p_end.qp;
	q.remote_resp_timeout = 16;
	q.local_resp_timeout = 16;
	q.retry_cnt = 7;
	q.rnr_retry_cnt = 7;
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_rec.n_rep, 1);       /* IB_FLAGS_SYNC: after the callback */
	CU_ASSERT_EQUAL(cm_rec.n_rej, 0);
	CU_ASSERT_EQUAL(cm_qp_state(p_end.qp), IB_QPS_RTS);
	memset(&wc, 0, sizeof(wc));
	CU_ASSERT_EQUAL(cm_poll_one(&p_end, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL(wc.length, 15);
	CU_ASSERT(!memcmp(p_end.buf, "from the child", 15));
}

static void p_dreq(void)
{
	ib_cm_dreq_t d;

	memset(&d, 0, sizeof(d));
	d.qp_type = IB_QPT_RELIABLE_CONN;
	d.h_qp = p_end.qp;
	d.pfn_cm_drep_cb = p_on_drep;
	CU_ASSERT_EQUAL(ib_cm_dreq(&d), IB_SUCCESS);
}

static void test_cm_across_processes(void)
{
	int sv[2], status = -1;
	pid_t pid;
	ib_al_handle_t h_al;
	ib_ca_handle_t h_ca;
	peer_info_t me, child;
	char up;
	uint64_t end;
	ib_qp_mod_t m;

	strcpy(fab_dir, "/tmp/ibal-alcmp-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "1", 1);
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		close(sv[0]);
		child_main(sv[1]);
	}
	close(sv[1]);
	memset(&me, 0, sizeof(me));
	CU_ASSERT_EQUAL_FATAL(open_port(&h_al, &h_ca, &me), IB_SUCCESS);
	CU_ASSERT_TRUE(me.ok);
	CU_ASSERT_EQUAL(write(sv[0], &me, sizeof(me)), (ssize_t)sizeof(me));
	CU_ASSERT_EQUAL_FATAL(oob_read(sv[0], &child, sizeof(child)), 0);
	CU_ASSERT_TRUE_FATAL(child.ok);
	cm_end_open(&p_end, h_ca, IB_QPT_RELIABLE_CONN);
	cm_rec_reset();

	/* Connect, receive the child's message, disconnect. */
	p_connect(&me, &child);
	CU_ASSERT_EQUAL(oob_read(sv[0], &up, 1), 0);
	p_dreq();
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_drep, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.drep_status, IB_SUCCESS);
	end = test_now_ms() + TEST_WAIT_US / 1000u;
	while (al_cm_cep_count() && test_now_ms() < end)
		cm_wait_ms(&cm_rec.n_destroy, 1 << 30, 20);
	CU_ASSERT_EQUAL(al_cm_cep_count(), 0);

	/* Again on the same QP, then the child dies: the DREQ times out. */
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RESET;
	CU_ASSERT_EQUAL(ib_modify_qp(p_end.qp, &m), IB_SUCCESS);
	cm_rec_reset();
	p_connect(&me, &child);
	CU_ASSERT_EQUAL(oob_read(sv[0], &up, 1), 0);
	CU_ASSERT_EQUAL(kill(pid, SIGKILL), 0);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFSIGNALED(status));
	p_dreq();
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_drep, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.drep_status, IB_TIMEOUT);

	close(sv[0]);
	cm_end_close(&p_end);
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	al_cm_quiesce();
	al_sa_quiesce();
	CU_ASSERT_EQUAL(al_cm_cep_count(), 0);
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_cm_across_processes),
};

TEST_MAIN("al_cm_procs", tests)
