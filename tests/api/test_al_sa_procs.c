/*
 * ibal tests: the SA client across processes: a forked process queries and registers with the SA of the parent's master SM.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The parent opens the access layer first on a fabric directory of its own,
 * so its process holds the master SM and hosts the SA; a forked child (made
 * before the parent opens anything, so that it inherits no ports or
 * threads) opens its own soft CA on the same fabric as a standby and,
 * through the public calls only:
 *  - sees the parent's port as its SM (sm_lid) once its port is ACTIVE,
 *  - asks for the PathRecord from its LID to the parent's,
 *  - registers a ServiceRecord with the SA in the other process.
 * The parent then finds that record by service ID (its GID is the child's)
 * and a PathRecord to the child, subscribes to trap 65 ("GID out of
 * service"), lets the child close and exit, receives the report naming
 * the child's GID, and finds the child's ServiceRecord gone.
 * The two processes talk out of band over a socket pair; every wait is
 * bounded (poll with a timeout, condition waits with a deadline).
 */
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/al_procs.h"

#define SVC_ID 0x1000000000C0FFEEull
#define OOB_WAIT_MS 20000

/* What the child tells the parent. */
typedef struct child_msg {
	int ok;             /* every child check passed */
	ib_net16_t lid;     /* the child's LID */
	ib_gid_t gid;       /* its GID */
	char why[96];       /* the first failed check, when !ok */
} child_msg_t;

static char fab_dir[64];

/* ---- Results of synchronous requests (their callbacks run in the caller) ---- */

static ib_query_rec_t g_q;
static ib_reg_svc_rec_t g_reg;
static ib_sub_rec_t g_sub;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static int g_reports;
static ib_mad_notice_attr_t g_notice;

static void AL_API on_query(ib_query_rec_t *p) { g_q = *p; }
static void AL_API on_reg(ib_reg_svc_rec_t *p) { g_reg = *p; }
static void AL_API on_sub(ib_sub_rec_t *p) { g_sub = *p; }

static void AL_API on_report(ib_report_rec_t *p)
{
	pthread_mutex_lock(&g_lock);
	if (p->p_notice && p->p_notice->g_or_v.generic.trap_num == CL_HTON16(65)) {
		g_notice = *p->p_notice;
		g_reports++;
	}
	pthread_cond_broadcast(&g_cond);
	pthread_mutex_unlock(&g_lock);
}

static ib_api_status_t query(ib_al_handle_t h_al, ib_net64_t port_guid, ib_query_type_t type,
			     const void *in)
{
	ib_query_req_t q;

	memset(&q, 0, sizeof(q));
	memset(&g_q, 0, sizeof(g_q));
	q.query_type = type;
	q.p_query_input = in;
	q.port_guid = port_guid;
	q.timeout_ms = 500;
	q.retry_cnt = 4;
	q.flags = IB_FLAGS_SYNC;
	q.pfn_query_cb = on_query;
	return ib_query(h_al, &q, NULL);
}

static void put_result(void)
{
	if (g_q.p_result_mad)
		ib_put_mad(g_q.p_result_mad);
	g_q.p_result_mad = NULL;
}

/* Reads exactly @p len bytes within OOB_WAIT_MS; 0 on success. */
static int oob_read(int fd, void *buf, size_t len)
{
	return test_oob_read(fd, buf, len, OOB_WAIT_MS);
}

/* ---- The child ---- */

#define CHILD_CHECK(cond, text)                                   \
	do {                                                      \
		if (!(cond) && m.ok) {                            \
			m.ok = 0;                                 \
			strncpy(m.why, text, sizeof(m.why) - 1);  \
		}                                                 \
	} while (0)

static void child_main(int fd)
{
	child_msg_t m;
	ib_al_handle_t h_al = NULL;
	ib_ca_handle_t h_ca;
	ib_port_attr_t port;
	ib_net16_t parent_lid;
	ib_lid_pair_t lp;
	ib_reg_svc_req_t rs;
	ib_reg_svc_handle_t h_reg;
	char go;
	static const char name[] = "ibal-procs-test";

	memset(&m, 0, sizeof(m));
	m.ok = 1;
	/* Wait for the parent's master SM; then it sends its LID. */
	if (oob_read(fd, &parent_lid, sizeof(parent_lid)))
		_exit(2);
	CHILD_CHECK(test_open_first_port(&h_al, &h_ca, &port, &m.gid) == IB_SUCCESS, "open");
	if (m.ok) {
		m.lid = port.lid;
		CHILD_CHECK(port.link_state == IB_LINK_ACTIVE, "port not ACTIVE");
		CHILD_CHECK(port.sm_lid == parent_lid, "SM LID is not the parent's");
		lp.src_lid = port.lid;
		lp.dest_lid = parent_lid;
		CHILD_CHECK(query(h_al, port.port_guid, IB_QUERY_PATH_REC_BY_LIDS, &lp) == IB_SUCCESS,
			    "ib_query path");
		CHILD_CHECK(g_q.status == IB_SUCCESS && g_q.result_cnt >= 1, "path query result");
		if (g_q.status == IB_SUCCESS && g_q.result_cnt >= 1) {
			CHILD_CHECK(ib_get_query_path_rec(g_q.p_result_mad, 0)->dlid == parent_lid,
				    "path DLID");
			CHILD_CHECK(ib_get_query_path_rec(g_q.p_result_mad, 0)->slid == port.lid,
				    "path SLID");
		}
		put_result();
		memset(&rs, 0, sizeof(rs));
		rs.svc_rec.service_id = CL_HTON64(SVC_ID);
		rs.svc_rec.service_gid = m.gid;
		rs.svc_rec.service_pkey = CL_HTON16(0xFFFF);
		rs.svc_rec.service_lease = 0xFFFFFFFF;
		memcpy(rs.svc_rec.service_name, name, sizeof(name));
		rs.port_guid = port.port_guid;
		rs.timeout_ms = 500;
		rs.retry_cnt = 4;
		rs.flags = IB_FLAGS_SYNC;
		rs.pfn_reg_svc_cb = on_reg;
		CHILD_CHECK(ib_reg_svc(h_al, &rs, &h_reg) == IB_SUCCESS, "ib_reg_svc");
		CHILD_CHECK(g_reg.req_status == IB_SUCCESS, "registration result");
	}
	if (write(fd, &m, sizeof(m)) != (ssize_t)sizeof(m))
		_exit(3);
	/* Stay until the parent has looked; then leave without deregistering:
	 * the SA must drop the record when the port goes. */
	if (oob_read(fd, &go, 1))
		_exit(4);
	if (h_al)
		ib_close_al(h_al);
	_exit(m.ok ? 0 : 1);
}

/* ---- The parent ---- */

static void test_sa_across_processes(void)
{
	int sv[2], status = -1;
	pid_t pid;
	ib_al_handle_t h_al;
	ib_ca_handle_t h_ca;
	ib_port_attr_t port;
	ib_gid_t gid;
	child_msg_t m;
	ib_net64_t sid = CL_HTON64(SVC_ID);
	ib_lid_pair_t lp;
	ib_inform_info_t info;
	ib_sub_req_t sr;
	ib_sub_handle_t h_sub;
	struct timespec dl;
	char go = 'g';
	uint32_t i;
	int found;

	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		close(sv[0]);
		child_main(sv[1]);
	}
	close(sv[1]);
	CU_ASSERT_EQUAL_FATAL(test_open_first_port(&h_al, &h_ca, &port, &gid), IB_SUCCESS);
	CU_ASSERT_EQUAL(port.link_state, IB_LINK_ACTIVE);
	CU_ASSERT_EQUAL(port.sm_lid, port.lid); /* the first process is the master */
	CU_ASSERT_EQUAL(write(sv[0], &port.lid, sizeof(port.lid)), (ssize_t)sizeof(port.lid));

	/* Trap 65 from the SA when a port leaves. */
	memset(&info, 0, sizeof(info));
	info.lid_range_begin = CL_HTON16(0xFFFF);
	info.is_generic = 1;
	info.trap_type = CL_HTON16(0xFFFF);
	info.g_or_v.generic.trap_num = CL_HTON16(65);
	info.g_or_v.generic.node_type_msb = 0xFF;
	info.g_or_v.generic.node_type_lsb = CL_HTON16(0xFFFF);
	memset(&sr, 0, sizeof(sr));
	sr.p_inform_info = &info;
	sr.port_guid = port.port_guid;
	sr.timeout_ms = 500;
	sr.retry_cnt = 4;
	sr.flags = IB_FLAGS_SYNC;
	sr.pfn_sub_cb = on_sub;
	sr.pfn_report_cb = on_report;
	CU_ASSERT_EQUAL(ib_subscribe(h_al, &sr, &h_sub), IB_SUCCESS);
	CU_ASSERT_EQUAL(g_sub.status, IB_SUCCESS);

	memset(&m, 0, sizeof(m));
	CU_ASSERT_EQUAL_FATAL(oob_read(sv[0], &m, sizeof(m)), 0);
	if (!m.ok)
		fprintf(stderr, "child: %s\n", m.why);
	CU_ASSERT_TRUE(m.ok);
	CU_ASSERT_NOT_EQUAL(m.lid, port.lid);

	/* The child's ServiceRecord, registered with the SA in this process. */
	CU_ASSERT_EQUAL(query(h_al, port.port_guid, IB_QUERY_SVC_REC_BY_ID, &sid), IB_SUCCESS);
	CU_ASSERT_EQUAL(g_q.status, IB_SUCCESS);
	CU_ASSERT_EQUAL(g_q.result_cnt, 1);
	found = 0;
	for (i = 0; g_q.status == IB_SUCCESS && i < g_q.result_cnt; i++)
		found |= !memcmp(&ib_get_query_svc_rec(g_q.p_result_mad, i)->service_gid, &m.gid,
				 sizeof(m.gid));
	CU_ASSERT_TRUE(found);
	put_result();
	lp.src_lid = port.lid;
	lp.dest_lid = m.lid;
	CU_ASSERT_EQUAL(query(h_al, port.port_guid, IB_QUERY_PATH_REC_BY_LIDS, &lp), IB_SUCCESS);
	CU_ASSERT_EQUAL(g_q.status, IB_SUCCESS);
	if (g_q.status == IB_SUCCESS && g_q.result_cnt)
		CU_ASSERT_EQUAL(ib_get_query_path_rec(g_q.p_result_mad, 0)->dlid, m.lid);
	put_result();

	/* The child leaves: trap 65 with its GID, and its record is gone. */
	CU_ASSERT_EQUAL(write(sv[0], &go, 1), 1);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += TEST_WAIT_US / 1000000;
	pthread_mutex_lock(&g_lock);
	while (!g_reports && pthread_cond_timedwait(&g_cond, &g_lock, &dl) == 0)
		;
	CU_ASSERT_EQUAL(g_reports, 1);
	if (g_reports)
		CU_ASSERT(!memcmp(&g_notice.data_details.ntc_64_67.gid, &m.gid, sizeof(m.gid)));
	pthread_mutex_unlock(&g_lock);
	CU_ASSERT_EQUAL(query(h_al, port.port_guid, IB_QUERY_SVC_REC_BY_ID, &sid), IB_SUCCESS);
	CU_ASSERT(g_q.status != IB_SUCCESS || g_q.result_cnt == 0);
	put_result();

	CU_ASSERT_EQUAL(ib_unsubscribe(h_sub, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	close(sv[0]);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_sa_across_processes),
};

int main(void)
{
	int rc;

	strcpy(fab_dir, "/tmp/ibal-saprocs-XXXXXX");
	if (!mkdtemp(fab_dir))
		return 2;
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	unsetenv("IBAL_SOFT_CAS");
	unsetenv("IBAL_SOFT_SM");
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
	/* Valgrind on a loaded machine: let a CA open wait longer for the SM. */
	setenv("IBAL_SOFT_SM_WAIT_MS", "20000", 1);
	rc = test_run_suite("al_sa_procs", tests, TEST_COUNT(tests));
	test_rm_tree(fab_dir);
	return rc;
}
