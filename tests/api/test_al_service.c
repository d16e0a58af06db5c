/*
 * ibal tests: the soft fabric's service (ibal_soft_fabric): nodes of a
 * topology that exist before and after the processes that are them.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Each test starts the service on a fabric directory of its own with a
 * two-node topology (server 0x10, client 0x20) and waits for its "ready"
 * line. The processes that are nodes (IBAL_SOFT_NODE) are children forked
 * before anything of the access layer is open in this process; each
 * reports one node_msg_t on a socket pair and takes orders from it. The
 * parent itself never opens the access layer. Every wait is bounded.
 *
 * - A node whose application has not started is in the SA: a PathRecord
 *   query for its LID is answered, and a node's ports (two for the client)
 *   have the topology's LIDs.
 * - Server first, then client; and client first (its REQ is sent while
 *   the server's node is only the service's, and its CM sends it again
 *   until the server listens): both connect through the CM and a message
 *   crosses the connection.
 * - A node is one process's at a time; when that process is killed the
 *   service takes the node back and lends it to the next, even while a
 *   child the process forked lives on.
 * - A topology of the most nodes the service holds (255) is held whole.
 * - The service refuses a second instance, a bad topology, and stops
 *   cleanly on SIGTERM, removing its socket.
 * - With IBAL_SOFT_TOPOLOGY and no service running, the first node's
 *   process starts one.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/al_procs.h"
#include "../common/cm_test.h"

#define SVC_ID CL_HTON64(0x1000000000C5E7E1ull)
#define WAIT_MS 30000
#define SERVER_LID 0x10
#define CLIENT_LID 0x20
#define MESSAGE "over a connection made in either order"

static const char topology[] = "# the test's fabric\n"
			       "node server guid=0x0002c90300a01230 lid=0x10\n"
			       "node client guid=0x0002c90300a01240 lid=0x20,0x21\n"; /* two ports */

/* What a node's child reports. */
typedef struct node_msg {
	int ok;
	ib_api_status_t status; /* of the step that failed */
	uint16_t lid;           /* its port 1's LID, host order */
	pid_t forked;           /* ROLE_FORK, ROLE_CLONE: the child it made */
	char why[96];
} node_msg_t;

static char fab_dir[64];
static char topo_path[96];
static pid_t svc_pid;
static int svc_out = -1;

/* ---- The service ---- */

/* Runs the service with @p args after the program name; its stdout is *p_out. */
static pid_t svc_spawn(const char *arg1, const char *arg2, int *p_out)
{
	int pfd[2];
	pid_t pid;

	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execl(SVC_PROG, SVC_PROG, arg1, arg2, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	*p_out = pfd[0];
	return pid;
}

/* Reads what the service printed until its end or a line; 0 with the text in buf. */
static int svc_read_line(int fd, char *buf, size_t cap)
{
	size_t n = 0;

	while (n + 1 < cap) {
		if (test_oob_read(fd, buf + n, 1, WAIT_MS))
			break;
		if (buf[n++] == '\n')
			break;
	}
	buf[n] = '\0';
	return n ? 0 : -1;
}

static void on_alarm(int sig)
{
	(void)sig; /* interrupts waitpid */
}

/* Waits, bounded (an alarm interrupts it), for a child's exit; its status, or -1 (then killed). */
static int svc_wait(pid_t pid)
{
	struct sigaction sa, old;
	int status = 0;
	pid_t r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART */
	sigaction(SIGALRM, &sa, &old);
	alarm(WAIT_MS / 1000);
	r = waitpid(pid, &status, 0);
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	if (r != pid) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return -1;
	}
	return status;
}

/* A fresh fabric directory (IBAL_SOFT_FABRIC) holding a file @p name with @p text, at @p path. */
static void fabric_dir_with(const char *name, const char *text, char *path, size_t cap)
{
	FILE *f;

	strcpy(fab_dir, "/tmp/ibal-svc-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_PROVIDERS", "soft", 1);
	unsetenv("IBAL_SOFT_NODE");
	snprintf(path, cap, "%s/%s", fab_dir, name);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

/* A fabric directory with the service running on @p text. */
static void fabric_setup_with(const char *text)
{
	char line[256];

	fabric_dir_with("net", text, topo_path, sizeof(topo_path));
	svc_pid = svc_spawn("-q", topo_path, &svc_out);
	CU_ASSERT_FATAL(svc_pid > 0);
	CU_ASSERT_EQUAL_FATAL(svc_read_line(svc_out, line, sizeof(line)), 0);
	CU_ASSERT_EQUAL(strncmp(line, "ready ", 6), 0);
}

static void fabric_setup(void)
{
	fabric_setup_with(topology);
}

static void fabric_teardown(void)
{
	char path[128];
	struct stat st;
	int status;

	CU_ASSERT_EQUAL(kill(svc_pid, SIGTERM), 0);
	status = svc_wait(svc_pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(svc_out);
	/* It took its socket and its copy of the topology with it. */
	snprintf(path, sizeof(path), "%s/service", fab_dir);
	CU_ASSERT_NOT_EQUAL(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/topology", fab_dir);
	CU_ASSERT_NOT_EQUAL(stat(path, &st), 0);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
}

/* ---- The nodes' children ---- */

#define CHECK(m, cond, st, text)                                        \
	do {                                                            \
		if ((m)->ok && !(cond)) {                               \
			(m)->ok = 0;                                    \
			(m)->status = (st);                             \
			strncpy((m)->why, text, sizeof((m)->why) - 1);  \
		}                                                       \
	} while (0)

static cm_end_t g_end;
static ib_query_rec_t g_q;

static void AL_API on_query(ib_query_rec_t *p)
{
	g_q = *p;
}

/* A PathRecord from port @p me to LID @p dlid through the SA; IB_SUCCESS with *p_path. */
static ib_api_status_t path_to(ib_al_handle_t al, const ib_port_attr_t *me, uint16_t dlid,
			       ib_path_rec_t *p_path)
{
	ib_lid_pair_t lp = { .src_lid = me->lid, .dest_lid = cl_hton16(dlid) };
	ib_query_req_t q;
	ib_api_status_t st;

	memset(&q, 0, sizeof(q));
	memset(&g_q, 0, sizeof(g_q));
	q.query_type = IB_QUERY_PATH_REC_BY_LIDS;
	q.p_query_input = &lp;
	q.port_guid = me->port_guid;
	q.timeout_ms = 500;
	q.retry_cnt = 4;
	q.flags = IB_FLAGS_SYNC;
	q.pfn_query_cb = on_query;
	st = ib_query(al, &q, NULL);
	if (st == IB_SUCCESS)
		st = g_q.status;
	if (st == IB_SUCCESS && g_q.result_cnt < 1)
		st = IB_NOT_FOUND;
	if (st == IB_SUCCESS)
		*p_path = *ib_get_query_path_rec(g_q.p_result_mad, 0);
	if (g_q.p_result_mad)
		ib_put_mad(g_q.p_result_mad);
	return st;
}

static void AL_API on_rtu(ib_cm_rtu_rec_t *p)
{
	(void)p;
}

static void AL_API on_req(ib_cm_req_rec_t *p)
{
	if (cm_rep_rc(p->h_cm_req, g_end.qp, cm_ignore_rej, on_rtu, cm_answer_dreq) == IB_SUCCESS)
		cm_post_recv(&g_end, 2048);
	cm_bump(&cm_rec.n_req);
}

static void AL_API on_rep(ib_cm_rep_rec_t *p)
{
	ib_cm_rtu_t t;

	memset(&t, 0, sizeof(t));
	if (ib_cm_rtu(p->h_cm_rep, &t) == IB_SUCCESS)
		cm_bump(&cm_rec.n_rep);
}

/* Opens the node's CA; *p_port gets port 1. */
static void node_open(node_msg_t *m, ib_al_handle_t *p_al, ib_ca_handle_t *p_ca,
		      ib_port_attr_t *p_port, uint16_t lid)
{
	ib_gid_t gid;
	ib_api_status_t st = test_open_first_port(p_al, p_ca, p_port, &gid);

	CHECK(m, st == IB_SUCCESS, st, "open the node's CA");
	if (!m->ok)
		return;
	m->lid = cl_ntoh16(p_port->lid);
	CHECK(m, m->lid == lid, IB_ERROR, "the port has not the topology's LID");
	CHECK(m, p_port->link_state == IB_LINK_ACTIVE, IB_ERROR, "the port is not ACTIVE");
}

typedef enum role { ROLE_PATH, ROLE_SERVER, ROLE_CLIENT, ROLE_HOLD, ROLE_FORK, ROLE_CLONE } role_t;

static void report(int fd, const node_msg_t *m)
{
	if (write(fd, m, sizeof(*m)) != (ssize_t)sizeof(*m))
		_exit(3);
}

/* Looks the other node up in the SA, and holds its node until told to go. */
static void role_path(int fd, node_msg_t *m, ib_al_handle_t al, ib_ca_handle_t ca,
		      const ib_port_attr_t *me, uint16_t peer)
{
	ib_path_rec_t path;
	ib_api_status_t st = path_to(al, me, peer, &path);
	uint32_t size = 0;
	ib_ca_attr_t *a;

	CHECK(m, st == IB_SUCCESS, st, "PathRecord of the other node");
	CHECK(m, cl_ntoh16(path.dlid) == peer, IB_ERROR, "the path's DLID");
	/* The client node has two ports, the second at the topology's 0x21. */
	ib_query_ca(ca, NULL, &size);
	a = (ib_ca_attr_t *)malloc(size);
	st = a ? ib_query_ca(ca, a, &size) : IB_INSUFFICIENT_MEMORY;
	CHECK(m, st == IB_SUCCESS, st, "ib_query_ca");
	if (st == IB_SUCCESS && me->lid == cl_hton16(CLIENT_LID))
		CHECK(m, a->num_ports == 2 && a->p_port_attr[1].lid == cl_hton16(CLIENT_LID + 1),
		      IB_ERROR, "the client node's second port");
	free(a);
	report(fd, m);
}

/* Polls the endpoint's next completion: its status (IB_WCS_GENERAL_ERR if none came), *p_len its length. */
static ib_wc_status_t poll_one(uint32_t *p_len)
{
	ib_wc_t wc;

	memset(&wc, 0, sizeof(wc));
	if (!cm_poll_one(&g_end, &wc))
		return IB_WCS_GENERAL_ERR;
	*p_len = wc.length;
	return wc.status;
}

static void role_server(int fd, node_msg_t *m, ib_al_handle_t al, ib_ca_handle_t ca)
{
	ib_cm_listen_t l;
	ib_listen_handle_t hl;
	ib_api_status_t st = cm_end_try_open(&g_end, ca, IB_QPT_RELIABLE_CONN);
	uint32_t len = 0;
	node_msg_t up;

	CHECK(m, st == IB_SUCCESS, st, "the server's QP");
	memset(&l, 0, sizeof(l));
	l.svc_id = SVC_ID;
	l.pfn_cm_req_cb = on_req;
	st = m->ok ? ib_cm_listen(al, &l, NULL, &hl) : IB_ERROR;
	CHECK(m, st == IB_SUCCESS, st, "ib_cm_listen");
	up = *m;
	report(fd, &up); /* listening */
	if (!m->ok)
		return;
	CHECK(m, cm_wait(&cm_rec.n_req, 1), IB_TIMEOUT, "no REQ reached the server");
	CHECK(m, poll_one(&len) == IB_WCS_SUCCESS, IB_ERROR, "the server's receive");
	CHECK(m, len == sizeof(MESSAGE) && !memcmp(g_end.buf, MESSAGE, len), IB_ERROR,
	      "the message");
}

static void role_client(int fd, node_msg_t *m, ib_al_handle_t al, ib_ca_handle_t ca,
			const ib_port_attr_t *me)
{
	ib_path_rec_t path;
	ib_cm_req_t q;
	ib_api_status_t st = cm_end_try_open(&g_end, ca, IB_QPT_RELIABLE_CONN);
	ib_wc_status_t wcs;
	uint32_t len;
	node_msg_t sent;

	CHECK(m, st == IB_SUCCESS, st, "the client's QP");
	st = m->ok ? path_to(al, me, SERVER_LID, &path) : IB_ERROR;
	CHECK(m, st == IB_SUCCESS, st, "PathRecord of the server");
	memset(&q, 0, sizeof(q));
	q.svc_id = SVC_ID;
	q.max_cm_retries = 15;
	q.p_primary_path = &path;
	q.pfn_cm_rep_cb = on_rep;
	q.pfn_cm_rej_cb = cm_ignore_rej;
	q.qp_type = IB_QPT_RELIABLE_CONN;
	q.h_qp = g_end.qp;
	q.remote_resp_timeout = 18; /* 1 s between REQs: 16 s in all */
	q.local_resp_timeout = 18;
	q.retry_cnt = 7;
	q.rnr_retry_cnt = 7;
	st = m->ok ? ib_cm_req(&q) : IB_ERROR;
	CHECK(m, st == IB_SUCCESS, st, "ib_cm_req");
	sent = *m;
	report(fd, &sent); /* the REQ is out */
	if (!m->ok)
		return;
	CHECK(m, cm_wait(&cm_rec.n_rep, 1), IB_TIMEOUT, "no REP");
	memcpy(g_end.buf + 2048, MESSAGE, sizeof(MESSAGE));
	st = m->ok ? cm_post_send(&g_end, sizeof(MESSAGE)) : IB_ERROR;
	CHECK(m, st == IB_SUCCESS, st, "the client's send");
	wcs = m->ok ? poll_one(&len) : IB_WCS_SUCCESS;
	CHECK(m, wcs == IB_WCS_SUCCESS, IB_ERROR, "the send's completion");
	if (wcs != IB_WCS_SUCCESS)
		snprintf(m->why, sizeof(m->why), "the send's completion: %s", ib_get_wc_status_str(wcs));
}

static void child_main(int fd, const char *node, role_t role, uint16_t lid, uint16_t peer)
{
	node_msg_t m;
	ib_al_handle_t al = NULL;
	ib_ca_handle_t ca = NULL;
	ib_port_attr_t port;

	memset(&m, 0, sizeof(m));
	m.ok = 1;
	setenv("IBAL_SOFT_NODE", node, 1);
	node_open(&m, &al, &ca, &port, lid);
	if (role == ROLE_FORK && m.ok) {
		/* A child that does nothing but live on (until killed). */
		m.forked = fork();
		if (m.forked == 0) {
			close(fd);
			for (;;)
				pause();
		}
		CHECK(&m, m.forked > 0, IB_ERROR, "fork");
	}
	if (role == ROLE_CLONE && m.ok) {
		/* A raw clone runs no fork handler: the child keeps its copy of
		 * the node's connection to the service for as long as it lives
		 * (as a child made by fork() does until it first runs). */
		m.forked = (pid_t)syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
		if (m.forked == 0) {
			for (;;)
				pause();
		}
		CHECK(&m, m.forked > 0, IB_ERROR, "clone");
	}
	if (role == ROLE_HOLD || role == ROLE_FORK || role == ROLE_CLONE || !m.ok) {
		report(fd, &m);
	} else if (role == ROLE_PATH) {
		role_path(fd, &m, al, ca, &port, peer);
	} else if (role == ROLE_SERVER) {
		role_server(fd, &m, al, ca);
		report(fd, &m);
	} else {
		role_client(fd, &m, al, ca, &port);
		report(fd, &m);
	}
	/* Hold on until told to go: a responder that has its receive may not
	 * have sent the ACK yet (ACKs are coalesced), and leaving now would
	 * leave the requester retrying into a closed port. */
	if (m.ok) {
		char c;

		(void)test_oob_read(fd, &c, 1, WAIT_MS);
	}
	if (al)
		ib_close_al(al);
	close(fd);
	_exit(0);
}

/* A child that is @p node; *p_fd talks to it. */
static pid_t node_spawn(const char *node, role_t role, uint16_t lid, uint16_t peer, int *p_fd)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		close(svc_out);
		child_main(sv[1], node, role, lid, peer);
	}
	close(sv[1]);
	*p_fd = sv[0];
	return pid;
}

/* Reads a child's report; its ok, with the reason printed when not. */
static int node_report(int fd, node_msg_t *m)
{
	memset(m, 0, sizeof(*m));
	if (test_oob_read(fd, m, sizeof(*m), WAIT_MS)) {
		fprintf(stderr, "a node's child said nothing\n");
		return 0;
	}
	if (!m->ok)
		fprintf(stderr, "node child: %s (%s)\n", m->why, ib_get_err_str(m->status));
	return m->ok;
}

/* Tells a child to go and waits for its exit; TRUE if it exited 0. */
static int node_end(pid_t pid, int fd)
{
	int status;

	(void)send(fd, "q", 1, MSG_NOSIGNAL); /* it may have ended already */
	status = svc_wait(pid);
	close(fd);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* ---- Tests ---- */

static void test_absent_node_in_sa(void)
{
	node_msg_t m;
	int fd;
	pid_t pid;

	fabric_setup();
	/* Only the client runs: the server's LID is answered all the same. */
	pid = node_spawn("client", ROLE_PATH, CLIENT_LID, SERVER_LID, &fd);
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_TRUE(node_report(fd, &m));
	CU_ASSERT_EQUAL(m.lid, CLIENT_LID);
	CU_ASSERT_TRUE(node_end(pid, fd));
	fabric_teardown();
}

/* Starts server and client in the order asked; both must connect. */
static void connect_in_order(int server_first)
{
	node_msg_t ms, mc;
	int fs = -1, fc = -1;
	pid_t ps = -1, pc = -1;

	fabric_setup();
	if (server_first) {
		ps = node_spawn("server", ROLE_SERVER, SERVER_LID, 0, &fs);
		CU_ASSERT_TRUE(node_report(fs, &ms)); /* listening */
		pc = node_spawn("client", ROLE_CLIENT, CLIENT_LID, 0, &fc);
		CU_ASSERT_TRUE(node_report(fc, &mc)); /* REQ sent */
	} else {
		pc = node_spawn("client", ROLE_CLIENT, CLIENT_LID, 0, &fc);
		/* The REQ leaves while the server's node is the service's. */
		CU_ASSERT_TRUE(node_report(fc, &mc));
		ps = node_spawn("server", ROLE_SERVER, SERVER_LID, 0, &fs);
		CU_ASSERT_TRUE(node_report(fs, &ms));
	}
	CU_ASSERT_TRUE(node_report(fc, &mc)); /* connected, message sent */
	CU_ASSERT_TRUE(node_report(fs, &ms)); /* message received */
	CU_ASSERT_TRUE(node_end(pc, fc));
	CU_ASSERT_TRUE(node_end(ps, fs));
	fabric_teardown();
}

static void test_server_first(void)
{
	connect_in_order(1);
}

static void test_client_first(void)
{
	connect_in_order(0);
}

static void test_node_busy_then_back(void)
{
	node_msg_t m;
	int fa, fb, fc, status;
	pid_t a, b, c;

	fabric_setup();
	a = node_spawn("server", ROLE_HOLD, SERVER_LID, 0, &fa);
	CU_ASSERT_TRUE(node_report(fa, &m));
	/* A second process cannot be the same node. */
	b = node_spawn("server", ROLE_HOLD, SERVER_LID, 0, &fb);
	CU_ASSERT_FALSE(node_report(fb, &m));
	CU_ASSERT_EQUAL(m.status, IB_RESOURCE_BUSY);
	CU_ASSERT_TRUE(node_end(b, fb));
	/* Killed, the first gives the node back: the next process gets it. */
	CU_ASSERT_EQUAL(kill(a, SIGKILL), 0);
	status = svc_wait(a);
	CU_ASSERT(WIFSIGNALED(status));
	close(fa);
	c = node_spawn("server", ROLE_PATH, SERVER_LID, CLIENT_LID, &fc);
	CU_ASSERT_TRUE(node_report(fc, &m));
	CU_ASSERT_TRUE(node_end(c, fc));
	fabric_teardown();
}

/*
 * A process that is the server node, made with @p role (ROLE_FORK or
 * ROLE_CLONE: it makes a child that lives on), is killed; the child still
 * runs, and the next process gets the node all the same.
 */
static void node_not_kept_by_child(role_t role)
{
	node_msg_t m;
	int fa, fc, status;
	pid_t a, c, child;

	fabric_setup();
	a = node_spawn("server", role, SERVER_LID, 0, &fa);
	CU_ASSERT_TRUE(node_report(fa, &m));
	child = m.forked;
	CU_ASSERT(child > 0);
	CU_ASSERT_EQUAL(kill(a, SIGKILL), 0);
	status = svc_wait(a);
	CU_ASSERT(WIFSIGNALED(status));
	close(fa);
	if (child > 0)
		CU_ASSERT_EQUAL(kill(child, 0), 0);
	c = node_spawn("server", ROLE_PATH, SERVER_LID, CLIENT_LID, &fc);
	CU_ASSERT_TRUE(node_report(fc, &m));
	CU_ASSERT_TRUE(node_end(c, fc));
	if (child > 0)
		kill(child, SIGKILL); /* init reaps it */
	fabric_teardown();
}

/* A forked child closes its copy of the connection in its fork handler
 * (if it has run by then: the service also watches the process's end). */
static void test_node_not_kept_by_forked_child(void)
{
	node_not_kept_by_child(ROLE_FORK);
}

/*
 * A child made by a raw clone, which runs no fork handler, keeps its copy
 * of the connection to the service for good (as a child made by fork()
 * does until it first runs): the service sees the process end (its pidfd)
 * and lends the node to the next process without waiting for the
 * connection to close.
 */
static void test_node_not_kept_by_cloned_child(void)
{
	node_not_kept_by_child(ROLE_CLONE);
}

/* The most nodes a topology may have (docs/soft-fabric.md): the service
 * holds them all, and the last one's process finds the first in the SA. */
#define MANY_NODES 255
#define MANY_LID(i) (0x100 + (i))

static void test_many_nodes(void)
{
	static char text[MANY_NODES * 64];
	node_msg_t m;
	size_t len = 0;
	int fd, i;
	pid_t pid;

	for (i = 0; i < MANY_NODES; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"node n%d guid=0x0002c90300b%05x0 lid=0x%x\n", i, i + 1,
					MANY_LID(i));
	CU_ASSERT_FATAL(len < sizeof(text));
	fabric_setup_with(text);
	pid = node_spawn("n254", ROLE_PATH, MANY_LID(MANY_NODES - 1), MANY_LID(0), &fd);
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_TRUE(node_report(fd, &m));
	CU_ASSERT_EQUAL(m.lid, MANY_LID(MANY_NODES - 1));
	CU_ASSERT_TRUE(node_end(pid, fd));
	fabric_teardown();
}

static void test_service_refuses(void)
{
	char line[512], bad[128];
	int out, status;
	pid_t pid;

	fabric_setup();
	/* A second service on the same fabric directory. */
	pid = svc_spawn(topo_path, NULL, &out);
	status = svc_wait(pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	close(out);
	/* It left the running service's files alone. */
	snprintf(line, sizeof(line), "%s/topology", fab_dir);
	CU_ASSERT_EQUAL(access(line, R_OK), 0);
	snprintf(line, sizeof(line), "%s/service", fab_dir);
	CU_ASSERT_EQUAL(access(line, F_OK), 0);
	fabric_teardown();

	/* A bad topology: one line on stderr, status 2 (read from a file, not the tty). */
	fabric_dir_with("bad", "node a guid=0x10 lid=1\nnode b guid=0x20 lid=1\n", bad, sizeof(bad));
	pid = svc_spawn(bad, NULL, &out);
	status = svc_wait(pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 2);
	CU_ASSERT_NOT_EQUAL(svc_read_line(out, line, sizeof(line)), 0); /* nothing on stdout */
	close(out);
	pid = svc_spawn("--no-such-option", NULL, &out);
	status = svc_wait(pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 2);
	close(out);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
}

/* With IBAL_SOFT_TOPOLOGY and no service, the first node starts one. */
static void test_first_node_starts_service(void)
{
	node_msg_t m;
	char path[128], buf[32];
	int fd, lock, status;
	ssize_t n;
	pid_t pid, svc;

	fabric_dir_with("net", topology, topo_path, sizeof(topo_path));
	setenv("IBAL_SOFT_TOPOLOGY", topo_path, 1);
	setenv("IBAL_SOFT_FABRIC_SERVICE", SVC_PROG, 1);
	/* The service outlives the node that started it: it becomes our child. */
	CU_ASSERT_EQUAL(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	pid = node_spawn("client", ROLE_PATH, CLIENT_LID, SERVER_LID, &fd);
	CU_ASSERT_TRUE(node_report(fd, &m)); /* the server's node is in the SA */
	CU_ASSERT_TRUE(node_end(pid, fd));
	/* The service's lock file names it; it stops on SIGTERM. */
	snprintf(path, sizeof(path), "%s/service.lock", fab_dir);
	lock = open(path, O_RDONLY);
	CU_ASSERT_FATAL(lock >= 0);
	n = read(lock, buf, sizeof(buf) - 1);
	close(lock);
	CU_ASSERT_FATAL(n > 0);
	buf[n] = '\0';
	svc = (pid_t)atol(buf);
	CU_ASSERT_FATAL(svc > 0);
	CU_ASSERT_EQUAL(kill(svc, SIGTERM), 0);
	status = svc_wait(svc);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_EQUAL(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
	unsetenv("IBAL_SOFT_TOPOLOGY");
	unsetenv("IBAL_SOFT_FABRIC_SERVICE");
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_absent_node_in_sa),
	TEST_ENTRY(test_server_first),
	TEST_ENTRY(test_client_first),
	TEST_ENTRY(test_node_busy_then_back),
	TEST_ENTRY(test_node_not_kept_by_forked_child),
	TEST_ENTRY(test_node_not_kept_by_cloned_child),
	TEST_ENTRY(test_many_nodes),
	TEST_ENTRY(test_service_refuses),
	TEST_ENTRY(test_first_node_starts_service),
};

TEST_MAIN("al_service", tests)
