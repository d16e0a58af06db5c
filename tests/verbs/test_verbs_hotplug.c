/*
 * ibal tests: PnP for RDMA devices added and removed while running (verbs provider, in the VM).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Runs where the project's real-stack VM runs it (tests/integration/realstack): the
 * verbs provider (IBAL_PROVIDERS=verbs), IBAL_RXE_DEV set, root, and the
 * `ip` and `rdma` tools. Anywhere else it exits 77 (skipped) saying why.
 *
 * It makes a second soft-RoCE device while registered for CA and port PnP
 * events: a dummy interface with its own address and `rdma link add` of an
 * rxe device on it. The access layer must report IB_PNP_CA_ADD and the
 * port's IB_PNP_PORT_ADD / IB_PNP_PORT_ACTIVE; the new CA must be usable
 * (PD, CQ, MR, QP). Then `rdma link delete` runs in a child process: rxe
 * has no disassociation, so the kernel finishes the removal only once every
 * user context of the device is closed. The test must see IB_PNP_PORT_REMOVE
 * and IB_PNP_CA_REMOVE, closes its CA from the CA_REMOVE callback, and the
 * child must then end with status 0: nothing in the access layer kept the
 * device open. The GUID must be gone from ib_get_ca_guids and ib_open_ca.
 * The same device is then added and removed again (same GUID: rxe derives
 * it from the interface's MAC): the access layer must report it afresh.
 * A third time it carries a connection made through ib_cm_* (cm_dp_fixture.h
 * on that CA): once the connection is over and its AL closed, the removal
 * must complete although the test's AL instance stays open (the CM's holds,
 * librdmacm's included, must go by themselves).
 * Every wait is bounded (TEST_WAIT_US).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <iba/ib_al.h>
#include <complib/cl_event.h>
#include "../common/cl_test.h"
#include "../common/cm_dp_fixture.h"

#define HP_NETDEV "ibalhp0"
#define HP_IBDEV  "rxehp"
#define HP_ADDR   "10.78.0.1/24"
#define HP_MAX_EV 256

typedef struct {
	ib_pnp_event_t event;
	ib_net64_t guid;     /* CA GUID (CA events) or port GUID (port events) */
	ib_net64_t ca_guid;
} hp_ev_t;

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	hp_ev_t ev[HP_MAX_EV];
	int n;
	ib_net64_t watch;          /* the added CA's GUID, 0 until known */
	ib_ca_handle_t h_ca;       /* opened by the test, closed by the CA_REMOVE callback */
	int close_st;              /* status of that close, -1 until made */
	int destroyed;             /* the CA's destroy callback ran */
} S = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static ib_al_handle_t h_al;
static ib_pnp_handle_t h_pnp_ca, h_pnp_port;

static void AL_API on_ca_destroyed(void *context)
{
	(void)context;
	pthread_mutex_lock(&S.lock);
	S.destroyed = 1;
	pthread_cond_broadcast(&S.cond);
	pthread_mutex_unlock(&S.lock);
}

static ib_api_status_t AL_API on_pnp(ib_pnp_rec_t *p_rec)
{
	ib_ca_handle_t h_close = NULL;

	pthread_mutex_lock(&S.lock);
	if (S.n < HP_MAX_EV) {
		S.ev[S.n].event = p_rec->pnp_event;
		S.ev[S.n].guid = p_rec->guid;
		S.ev[S.n].ca_guid = p_rec->ca_guid;
		S.n++;
	}
	if (p_rec->pnp_event == IB_PNP_CA_REMOVE && S.watch && p_rec->guid == S.watch && S.h_ca) {
		h_close = S.h_ca;
		S.h_ca = NULL;
	}
	pthread_cond_broadcast(&S.cond);
	pthread_mutex_unlock(&S.lock);
	if (h_close) {
		/* What a channel driver does: let go of the CA as it leaves. */
		ib_api_status_t st = ib_close_ca(h_close, on_ca_destroyed);

		pthread_mutex_lock(&S.lock);
		S.close_st = (int)st;
		pthread_mutex_unlock(&S.lock);
	}
	return IB_SUCCESS;
}

/* Index of the first event at or after @p from matching, else -1 (S.lock held). */
static int find_ev(int from, ib_pnp_event_t event, ib_net64_t guid, ib_net64_t ca_guid)
{
	int i;

	for (i = from; i < S.n; i++)
		if (S.ev[i].event == event && (!guid || S.ev[i].guid == guid) &&
		    (!ca_guid || S.ev[i].ca_guid == ca_guid))
			return i;
	return -1;
}

/* Waits (bounded) for such an event; its index or -1. */
static int wait_ev(int from, ib_pnp_event_t event, ib_net64_t guid, ib_net64_t ca_guid)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000u;
	int i;

	pthread_mutex_lock(&S.lock);
	while ((i = find_ev(from, event, guid, ca_guid)) < 0 && test_now_ms() < end) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&S.cond, &S.lock, &ts);
	}
	pthread_mutex_unlock(&S.lock);
	return i;
}

/* A CA_ADD at or after @p from whose GUID is not in @p known[0..n). */
static ib_net64_t wait_new_ca(int from, const ib_net64_t *known, size_t n)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000u;

	for (;;) {
		int i = wait_ev(from, IB_PNP_CA_ADD, 0, 0);
		size_t k;
		ib_net64_t g;

		if (i < 0)
			return 0;
		pthread_mutex_lock(&S.lock);
		g = S.ev[i].guid;
		pthread_mutex_unlock(&S.lock);
		for (k = 0; k < n && known[k] != g; k++)
			;
		if (k == n)
			return g;
		from = i + 1;
		if (test_now_ms() >= end)
			return 0;
	}
}

static int n_events(void)
{
	int n;

	pthread_mutex_lock(&S.lock);
	n = S.n;
	pthread_mutex_unlock(&S.lock);
	return n;
}

static int sh(const char *cmd)
{
	int rc = system(cmd);

	if (rc)
		fprintf(stderr, "hotplug: `%s` exited %d\n", cmd, rc);
	return rc;
}

static int ca_listed(ib_net64_t guid)
{
	ib_net64_t guids[32];
	size_t n = 32, i;

	if (ib_get_ca_guids(h_al, guids, &n) != IB_SUCCESS)
		return -1;
	for (i = 0; i < n; i++)
		if (guids[i] == guid)
			return 1;
	return 0;
}

/* ---- `rdma link delete` in a child, waited for by a thread ---- */

typedef struct {
	pid_t pid;
	int status;
	int done;
	pthread_t th;
} hp_child_t;

static void *reap(void *arg)
{
	hp_child_t *c = arg;
	int st = 0;

	while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&S.lock);
	c->status = st;
	c->done = 1;
	pthread_cond_broadcast(&S.cond);
	pthread_mutex_unlock(&S.lock);
	return NULL;
}

static int delete_start(hp_child_t *c)
{
	memset(c, 0, sizeof(*c));
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (!c->pid) {
		execlp("rdma", "rdma", "link", "delete", HP_IBDEV, (char *)NULL);
		_exit(127);
	}
	return pthread_create(&c->th, NULL, reap, c) ? -1 : 0;
}

/* Waits (bounded) for the child; 1 when it ended with status 0. A child
 * still blocked after the bound is left to the end of the program. */
static int delete_wait(hp_child_t *c)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000u;
	int done;

	pthread_mutex_lock(&S.lock);
	while (!c->done && test_now_ms() < end) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec++;
		pthread_cond_timedwait(&S.cond, &S.lock, &ts);
	}
	done = c->done;
	pthread_mutex_unlock(&S.lock);
	if (!done) {
		fprintf(stderr, "hotplug: `rdma link delete %s` still blocked: a context stays open\n",
			HP_IBDEV);
		pthread_detach(c->th);
		return 0;
	}
	pthread_join(c->th, NULL);
	return WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0;
}

static int wait_destroyed(void)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000u;
	int d;

	pthread_mutex_lock(&S.lock);
	while (!S.destroyed && test_now_ms() < end) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec++;
		pthread_cond_timedwait(&S.cond, &S.lock, &ts);
	}
	d = S.destroyed;
	pthread_mutex_unlock(&S.lock);
	return d;
}

/* ---- the tests ---- */

static ib_net64_t known[32];
static size_t n_known;
static ib_net64_t added;       /* the GUID of the device made by the first test */
static ib_net64_t added_port;  /* its port's GUID */

static void AL_API on_comp(const ib_cq_handle_t h_cq, void *cq_context)
{
	(void)h_cq;
	(void)cq_context;
}

static void use_ca(ib_ca_handle_t h_ca)
{
	static uint8_t buf[4096];
	ib_pd_handle_t h_pd = NULL;
	ib_cq_handle_t h_cq = NULL;
	ib_mr_handle_t h_mr = NULL;
	ib_qp_handle_t h_qp = NULL;
	ib_cq_create_t cc;
	ib_mr_create_t mc;
	ib_qp_create_t qc;
	net32_t lkey, rkey;
	uint32_t size = 0;

	CU_ASSERT_EQUAL(ib_query_ca(h_ca, NULL, &size), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT(size > 0);
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_NORMAL, NULL, &h_pd), IB_SUCCESS);
	memset(&cc, 0, sizeof(cc));
	cc.size = 16;
	cc.pfn_comp_cb = on_comp;
	CU_ASSERT_EQUAL(ib_create_cq(h_ca, &cc, NULL, NULL, &h_cq), IB_SUCCESS);
	memset(&mc, 0, sizeof(mc));
	mc.vaddr = buf;
	mc.length = sizeof(buf);
	mc.access_ctrl = IB_AC_LOCAL_WRITE | IB_AC_RDMA_WRITE;
	CU_ASSERT_EQUAL(ib_reg_mem(h_pd, &mc, &lkey, &rkey, &h_mr), IB_SUCCESS);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	qc.sq_depth = qc.rq_depth = 8;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = qc.h_rq_cq = h_cq;
	qc.sq_signaled = TRUE;
	if (h_cq)
		CU_ASSERT_EQUAL(ib_create_qp(h_pd, &qc, NULL, NULL, &h_qp), IB_SUCCESS);
	/* Left open on purpose: closing the CA must take them along. */
}

static void test_add_then_remove(void)
{
	hp_child_t child;
	ib_ca_handle_t h_ca = NULL;
	int from, i;

	from = n_events();
	CU_ASSERT_EQUAL_FATAL(sh("ip link add " HP_NETDEV " type dummy && ip addr add " HP_ADDR
				 " dev " HP_NETDEV " && ip link set " HP_NETDEV " up && "
				 "rdma link add " HP_IBDEV " type rxe netdev " HP_NETDEV), 0);
	added = wait_new_ca(from, known, n_known);
	CU_ASSERT_FATAL(added != 0);
	CU_ASSERT_EQUAL(ca_listed(added), 1);
	i = wait_ev(from, IB_PNP_PORT_ADD, 0, added);
	CU_ASSERT_FATAL(i >= 0);
	pthread_mutex_lock(&S.lock);
	added_port = S.ev[i].guid;
	pthread_mutex_unlock(&S.lock);
	CU_ASSERT(wait_ev(from, IB_PNP_PORT_ACTIVE, added_port, added) >= 0);

	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, added, NULL, NULL, &h_ca), IB_SUCCESS);
	use_ca(h_ca);
	pthread_mutex_lock(&S.lock);
	S.watch = added;
	S.h_ca = h_ca;
	S.close_st = -1;
	S.destroyed = 0;
	pthread_mutex_unlock(&S.lock);

	from = n_events();
	CU_ASSERT_EQUAL_FATAL(delete_start(&child), 0);
	CU_ASSERT(wait_ev(from, IB_PNP_PORT_REMOVE, added_port, added) >= 0);
	CU_ASSERT(wait_ev(from, IB_PNP_CA_REMOVE, added, 0) >= 0);
	CU_ASSERT(wait_destroyed());
	pthread_mutex_lock(&S.lock);
	CU_ASSERT_EQUAL(S.close_st, IB_SUCCESS);
	pthread_mutex_unlock(&S.lock);
	CU_ASSERT(delete_wait(&child));
	CU_ASSERT_EQUAL(ca_listed(added), 0);
	h_ca = NULL;
	CU_ASSERT_EQUAL(ib_open_ca(h_al, added, NULL, NULL, &h_ca), IB_INVALID_GUID);
	if (h_ca)
		ib_close_ca(h_ca, NULL);
}

static void test_add_again(void)
{
	hp_child_t child;
	int from;

	CU_ASSERT_FATAL(added != 0);
	pthread_mutex_lock(&S.lock);
	S.watch = 0;
	pthread_mutex_unlock(&S.lock);
	from = n_events();
	CU_ASSERT_EQUAL_FATAL(sh("rdma link add " HP_IBDEV " type rxe netdev " HP_NETDEV), 0);
	CU_ASSERT(wait_ev(from, IB_PNP_CA_ADD, added, 0) >= 0);
	CU_ASSERT(wait_ev(from, IB_PNP_PORT_ADD, added_port, added) >= 0);
	CU_ASSERT_EQUAL(ca_listed(added), 1);
	/* Nobody opens it this time: the access layer's own hold must go by itself. */
	from = n_events();
	CU_ASSERT_EQUAL_FATAL(delete_start(&child), 0);
	CU_ASSERT(wait_ev(from, IB_PNP_CA_REMOVE, added, 0) >= 0);
	CU_ASSERT(wait_ev(from, IB_PNP_PORT_REMOVE, added_port, added) >= 0);
	CU_ASSERT(delete_wait(&child));
	CU_ASSERT_EQUAL(ca_listed(added), 0);
	/* The original device was never reported gone. */
	pthread_mutex_lock(&S.lock);
	CU_ASSERT_EQUAL(find_ev(0, IB_PNP_CA_REMOVE, known[0], 0), -1);
	pthread_mutex_unlock(&S.lock);
}

/* A connection through ib_cm_* on the added device (librdmacm's CM in the
 * kcm phase, ibal's over umad in the nokcm phase), then its removal: the CM
 * must let go of the device by itself once the connection is over. */
static void test_cm_then_remove(void)
{
	hp_child_t child;
	ib_path_rec_t path;
	ib_listen_handle_t l;
	dp_cq_t *cq_a, *cq_b;
	dp_qp_t *a, *b;
	int from;

	CU_ASSERT_FATAL(added != 0);
	from = n_events();
	CU_ASSERT_EQUAL_FATAL(sh("rdma link add " HP_IBDEV " type rxe netdev " HP_NETDEV), 0);
	CU_ASSERT_FATAL(wait_ev(from, IB_PNP_PORT_ACTIVE, added_port, added) >= 0);
	D.want_guid = added;
	cmdp_up(&path);
	cq_a = dp_cq(64, 1);
	cq_b = dp_cq(64, 1);
	a = dp_qp(IB_QPT_RELIABLE_CONN, cq_a, cq_a);
	b = dp_qp(IB_QPT_RELIABLE_CONN, cq_b, cq_b);
	l = cmdp_listen(CMDP_SVC, IB_QPT_RELIABLE_CONN);
	CMDP_CONNECT(a, b, &path, CMDP_SVC, 1);
	CMDP_SEND(a, b, 3000, 0, 8, 11);
	CMDP_SEND(b, a, 100, 4, 12, 12);
	CMDP_DISCONNECT(a, b, 1);
	CU_ASSERT_EQUAL(ib_cm_cancel(l, ib_sync_destroy), IB_SUCCESS);
	dp_down();
	cmdp_anchor_close(); /* its AL instance holds the SA client's port on the CA */
	D.want_guid = 0;

	from = n_events();
	CU_ASSERT_EQUAL_FATAL(delete_start(&child), 0);
	CU_ASSERT(wait_ev(from, IB_PNP_CA_REMOVE, added, 0) >= 0);
	CU_ASSERT(delete_wait(&child));
	CU_ASSERT_EQUAL(ca_listed(added), 0);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_add_then_remove),
	TEST_ENTRY(test_add_again),
	TEST_ENTRY(test_cm_then_remove),
};

static const char *why_skip(void)
{
	const char *prov = getenv("IBAL_PROVIDERS");

	if (!prov || strcmp(prov, "verbs"))
		return "needs IBAL_PROVIDERS=verbs";
	if (!getenv("IBAL_RXE_DEV"))
		return "runs in the project's real-stack VM only (IBAL_RXE_DEV unset)";
	if (geteuid())
		return "needs root to add and remove an rxe device";
	if (system("rdma link show >/dev/null 2>&1 && ip link show >/dev/null 2>&1"))
		return "needs the rdma and ip tools";
	return NULL;
}

static int setup(void)
{
	ib_pnp_req_t req;
	size_t n = 32;
	int found;

	if (ib_open_al(&h_al) != IB_SUCCESS)
		return -1;
	if (ib_get_ca_guids(h_al, known, &n) != IB_SUCCESS || !n)
		return -1;
	n_known = n;
	memset(&req, 0, sizeof(req));
	req.pnp_class = IB_PNP_CA | IB_PNP_FLAG_REG_SYNC;
	req.pfn_pnp_cb = on_pnp;
	if (ib_reg_pnp(h_al, &req, &h_pnp_ca) != IB_SUCCESS)
		return -1;
	req.pnp_class = IB_PNP_PORT | IB_PNP_FLAG_REG_SYNC;
	if (ib_reg_pnp(h_al, &req, &h_pnp_port) != IB_SUCCESS)
		return -1;
	/* REG_SYNC: the initial CA_ADD of every CA has been delivered. */
	pthread_mutex_lock(&S.lock);
	found = find_ev(0, IB_PNP_CA_ADD, known[0], 0);
	pthread_mutex_unlock(&S.lock);
	return found < 0 ? -1 : 0;
}

int main(void)
{
	const char *why = why_skip(), *phase;
	int rc;

	if (why) {
		printf("test_verbs_hotplug: skipped: %s\n", why);
		return 77;
	}
	/* A device an earlier program left behind (its cleanup below runs in
	 * the background and the VM's harness kills what a program leaves
	 * running) would make the first `ip link add` fail. Nothing holds it
	 * now, so its removal does not block. */
	(void)!system("(rdma link delete " HP_IBDEV "; ip link delete " HP_NETDEV
		      ") >/dev/null 2>&1");
	if (setup()) {
		fprintf(stderr, "test_verbs_hotplug: set-up failed\n");
		return 1;
	}
	phase = getenv("IBAL_RXE_PHASE");
	cmdp_kcm = phase && !strcmp(phase, "kcm"); /* librdmacm's private data limits */
	cl_event_construct(&D.pause);
	if (cl_event_init(&D.pause, FALSE) != CL_SUCCESS)
		return 2;
	rc = test_run_suite("verbs_hotplug", tests, TEST_COUNT(tests));
	dp_close();
	cmdp_anchor_close();
	cl_event_destroy(&D.pause);
	ib_dereg_pnp(h_pnp_port, NULL);
	ib_dereg_pnp(h_pnp_ca, NULL);
	ib_close_al(h_al);
	/* After a pass nothing holds the device and the removal is quick; after
	 * a failure something may still hold it, so it runs in the background
	 * (and the next program's start removes what is left). */
	(void)!system(rc ? "(rdma link delete " HP_IBDEV "; ip link delete " HP_NETDEV
			   ") >/dev/null 2>&1 &"
			 : "(rdma link delete " HP_IBDEV "; ip link delete " HP_NETDEV
			   ") >/dev/null 2>&1");
	return rc;
}
