/*
 * ibal bench: what both processes of bench_soft use: failure and the run's
 * backstop, the out-of-band channel, data patterns, one end of an RC
 * connection (bench_soft.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bench_soft.h"
#include "../common/fab_dir.h"

char g_fab_dir[64];              /* the private fabric directory */
boolean_t g_poll = TRUE;         /* the parent polls its CQ (-e: waits for events) */
boolean_t g_small_pages;         /* -4: RDMA buffers on 4 KiB pages, no huge pages asked */
uint32_t g_inline = PP_INLINE;   /* -I: ping-pong sends of up to this many bytes go inline */
pid_t g_child;                   /* parent: the child's pid, 0 once reaped */
int g_fd = -1;                   /* the out-of-band socket */
int g_is_child;                  /* this process is the child */
unsigned g_limit_s;              /* limit of the whole run */

/* ---- Options, time, failure ---- */

static void ctl_error(const char *text);

/*
 * Prints the reason and exits with status 1. The child first tells the
 * parent why; the parent kills the child and removes the fabric directory.
 * _exit: the access layer's threads may still be running.
 */
void die(const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "bench_soft%s: %s\n", g_is_child ? " (child)" : "", msg);
	fflush(stdout);
	if (g_is_child) {
		ctl_error(msg);
		_exit(1);
	}
	if (g_child > 0) {
		kill(g_child, SIGKILL);
		waitpid(g_child, NULL, 0);
	}
	if (g_fab_dir[0])
		test_rm_tree(g_fab_dir);
	_exit(1);
}

/* A record of getdents64, as the Linux system call returns it. */
typedef struct dirent_raw {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
} dirent_raw_t;

/*
 * The backstop: something did not return within the limit of the run
 * (SIGALRM), or the run was stopped (SIGTERM, SIGINT: `timeout`, ^C). The
 * parent kills the child and removes the fabric directory; the child just
 * exits. Async-signal-safe only: write, kill, waitpid, and the fabric directory
 * emptied with raw getdents64/unlinkat (opendir and friends are not safe here).
 */
void on_alarm(int sig)
{
	static const char late[] = "bench_soft: the run exceeded its time limit; aborting\n";
	static const char stopped[] = "bench_soft: stopped by a signal; aborting\n";
	uint64_t buf[512];   /* records are 8-byte aligned */
	long n, off;
	int fd;

	if (g_is_child)
		_exit(1);
	if (sig == SIGALRM)
		n = write(2, late, sizeof(late) - 1);
	else
		n = write(2, stopped, sizeof(stopped) - 1);
	if (g_child > 0) {
		kill(g_child, SIGKILL);
		waitpid(g_child, NULL, 0);
	}
	fd = g_fab_dir[0] ? open(g_fab_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	while (fd >= 0 && (n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (off = 0; off < n; off += ((dirent_raw_t *)((char *)buf + off))->reclen) {
			const char *name = ((dirent_raw_t *)((char *)buf + off))->name;

			if (strcmp(name, ".") && strcmp(name, ".."))
				unlinkat(fd, name, 0);
		}
	if (fd >= 0) {
		close(fd);
		rmdir(g_fab_dir);
	}
	_exit(1);
}

/* The largest RDMA size of -s (at least 8) and message size of -m and -l (at least MIN_MSG). */
void opts_largest(const opts_t *o, uint64_t *p_max_rdma, uint32_t *p_max_msg)
{
	uint64_t max_rdma = 8;
	uint32_t max_msg = MIN_MSG;
	unsigned i;

	for (i = 0; i < o->n_sizes; i++)
		max_rdma = o->sizes[i] > max_rdma ? o->sizes[i] : max_rdma;
	for (i = 0; i < o->n_msgs; i++)
		max_msg = o->msgs[i] > max_msg ? o->msgs[i] : max_msg;
	for (i = 0; i < o->n_lats; i++)
		max_msg = o->lats[i] > max_msg ? o->lats[i] : max_msg;
	*p_max_rdma = max_rdma;
	*p_max_msg = max_msg;
}

/* ---- Out-of-band channel (a socket pair made before the fork) ---- */

void ctl_send(ctl_t *m, uint32_t type)
{
	size_t done = 0;
	ssize_t n;
	struct pollfd p = { g_fd, POLLOUT, 0 };

	m->magic = MAGIC;
	m->type = type;
	while (done < sizeof(*m)) {
		if (poll(&p, 1, WAIT_US / 1000) <= 0)
			die("the out-of-band peer takes no messages");
		n = send(g_fd, (char *)m + done, sizeof(*m) - done, MSG_NOSIGNAL);
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			die("out-of-band send: %s", strerror(errno));
		done += n > 0 ? (size_t)n : 0;
	}
}

/* Child, failing: tells the parent why (best effort, once). */
static void ctl_error(const char *text)
{
	ctl_t m;
	int fd = g_fd;

	if (fd < 0)
		return;
	g_fd = -1;
	memset(&m, 0, sizeof(m));
	m.magic = MAGIC;
	m.type = CTL_ERROR;
	snprintf(m.text, sizeof(m.text), "%s", text);
	if (send(fd, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		return;
}

/* Receives one message of the given type within wait_ms; a CTL_ERROR is the peer's failure. */
void ctl_recv(ctl_t *m, uint32_t type, int wait_ms)
{
	size_t done = 0;
	ssize_t n;
	struct pollfd p = { g_fd, POLLIN, 0 };

	while (done < sizeof(*m)) {
		if (poll(&p, 1, wait_ms) <= 0)
			die("no answer from the %s within %d ms", g_is_child ? "parent" : "child",
			    wait_ms);
		n = recv(g_fd, (char *)m + done, sizeof(*m) - done, 0);
		if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
			die("the %s hung up", g_is_child ? "parent" : "child");
		done += n > 0 ? (size_t)n : 0;
	}
	if (m->magic != MAGIC)
		die("out-of-band: a message that is not ours");
	if (m->type == CTL_ERROR) {
		m->text[sizeof(m->text) - 1] = 0;
		die("the %s failed: %s", g_is_child ? "parent" : "child", m->text);
	}
	if (type && m->type != type)
		die("out-of-band: message %u where %u was due", m->type, type);
}

/* ---- Data patterns ---- */

uint64_t mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

void pattern(uint8_t *p, uint64_t len, uint64_t seed)
{
	uint64_t i, w;

	for (i = 0; i < len; i += 8) {
		w = mix(seed + (i >> 3));
		memcpy(p + i, &w, len - i < 8 ? len - i : 8);
	}
}

/* TRUE if p holds pattern(len, seed). */
boolean_t pattern_ok(const uint8_t *p, uint64_t len, uint64_t seed)
{
	uint64_t i, w;

	for (i = 0; i < len; i += 8) {
		w = mix(seed + (i >> 3));
		if (memcmp(p + i, &w, len - i < 8 ? len - i : 8))
			return FALSE;
	}
	return TRUE;
}

/* ---- One end of an RC connection ---- */

/* Reads port 1 of a CA: its LID and MTU. */
void port_info(ib_ca_handle_t ca, ib_net16_t *p_lid, uint8_t *p_mtu)
{
	ib_ca_attr_t *attr;
	uint32_t size = 0;

	if (ib_query_ca(ca, NULL, &size) != IB_INSUFFICIENT_MEMORY || !size)
		die("ib_query_ca gave no size");
	if (!(attr = (ib_ca_attr_t *)calloc(1, size)))
		die("out of memory");
	CHECK(ib_query_ca(ca, attr, &size));
	if (!attr->num_ports || !attr->p_port_attr[0].lid)
		die("port 1 of the CA has no LID");
	*p_lid = attr->p_port_attr[0].lid;
	*p_mtu = (uint8_t)attr->p_port_attr[0].mtu;
	free(attr);
}

static void *alloc_zeroed(uint64_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len ? (size_t)len : 1))
		die("out of memory for %" PRIu64 " bytes", len);
	memset(p, 0, (size_t)len);   /* touch every page now, not during a measurement */
	return p;
}

/*
 * An RDMA buffer: unless -4, in whole 2 MiB pages asked to be transparent
 * huge pages (madvise(MADV_HUGEPAGE)), as UCX's allocator prefers huge
 * pages for ucx_perftest's buffers; the kernel may give 4 KiB pages all the
 * same (huge_page_kib() tells). Between processes the soft fabric pulls RDMA
 * data with process_vm_readv(2), which pins the source's pages: a huge page
 * is pinned at once, 4 KiB pages one by one.
 */
static void *alloc_rdma(uint64_t len)
{
	uint64_t round = (len + HUGE_PAGE - 1) & ~(uint64_t)(HUGE_PAGE - 1);
	void *p = NULL;

	if (g_small_pages || !round)
		return alloc_zeroed(len);
	if (posix_memalign(&p, HUGE_PAGE, (size_t)round))
		die("out of memory for %" PRIu64 " bytes", round);
	(void)madvise(p, (size_t)round, MADV_HUGEPAGE); /* a hint: refused, 4 KiB pages */
	memset(p, 0, (size_t)round);
	return p;
}

/* KiB of this process's anonymous memory on transparent huge pages (0 if unknown). */
unsigned long huge_page_kib(void)
{
	char line[256];
	unsigned long kib = 0;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %lu kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/*
 * Opens an end on a CA: PD, one CQ (polled through a wait object, or with
 * the completion callback cb), an RC QP, the RDMA buffer (open to remote
 * writes if remote is TRUE) and n_slots message slots of slot_len bytes.
 */
void end_open(end_t *e, ib_ca_handle_t ca, ib_pfn_comp_cb_t cb, void *cb_ctx,
		     uint32_t sq, uint32_t rq, uint64_t buf_len, boolean_t remote, uint32_t n_slots,
		     uint32_t slot_len)
{
	ib_cq_create_t cc;
	ib_qp_create_t qc;
	ib_mr_create_t mc;
	ib_qp_attr_t qa;
	net32_t rkey;

	memset(e, 0, sizeof(*e));
	port_info(ca, &e->lid, &e->mtu);
	CHECK(ib_alloc_pd(ca, IB_PDT_NORMAL, e, &e->pd));
	memset(&cc, 0, sizeof(cc));
	cc.size = sq + rq + 16;
	if (cb) {
		cc.pfn_comp_cb = cb;
	} else {
		if (cl_waitobj_create(FALSE, &e->wo) != CL_SUCCESS)
			die("cl_waitobj_create failed");
		cc.h_wait_obj = e->wo;
	}
	CHECK(ib_create_cq(ca, &cc, cb_ctx, NULL, &e->cq));
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	qc.sq_depth = sq;
	qc.rq_depth = rq;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = qc.h_rq_cq = e->cq;
	qc.sq_signaled = FALSE;   /* each work request says whether it wants a completion */
	qc.sq_max_inline = g_inline;
	CHECK(ib_create_qp(e->pd, &qc, e, NULL, &e->qp));
	CHECK(ib_query_qp(e->qp, &qa));
	e->qpn = qa.num;
	e->max_inline = qa.sq_max_inline < g_inline ? qa.sq_max_inline : g_inline;
	e->psn = cl_hton32((uint32_t)mix(now_ns() ^ (uintptr_t)e) & 0xFFFFFFu);

	e->buf_len = buf_len;
	e->buf = (uint8_t *)alloc_rdma(buf_len);
	memset(&mc, 0, sizeof(mc));
	mc.vaddr = e->buf;
	mc.length = buf_len;
	mc.access_ctrl = IB_AC_LOCAL_WRITE | (remote ? IB_AC_RDMA_WRITE : 0);
	CHECK(ib_reg_mem(e->pd, &mc, &e->buf_lkey, &e->buf_rkey, &e->buf_mr));
	e->n_slots = n_slots;
	e->slot_len = slot_len;
	e->slots = (uint8_t *)alloc_zeroed((uint64_t)n_slots * slot_len);
	mc.vaddr = e->slots;
	mc.length = (uint64_t)n_slots * slot_len;
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	CHECK(ib_reg_mem(e->pd, &mc, &e->slot_lkey, &rkey, &e->slot_mr));
}

/* After ib_close_al (which destroyed the verbs objects): the memory and the wait object. */
void end_free(end_t *e)
{
	if (e->wo)
		cl_waitobj_destroy(e->wo);
	free(e->buf);
	free(e->slots);
	memset(e, 0, sizeof(*e));
}

/* RESET -> INIT; remote TRUE lets the peer write into this end's memory. */
void qp_init(end_t *e, boolean_t remote)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = 1;
	m.state.init.access_ctrl = remote ? IB_AC_RDMA_WRITE : 0;
	CHECK(ib_modify_qp(e->qp, &m));
}

/* INIT -> RTR -> RTS towards the peer, as a connection manager would. */
void qp_connect(end_t *e, ib_net16_t lid, ib_net32_t qpn, ib_net32_t psn, uint8_t mtu)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTR;
	m.state.rtr.rq_psn = psn;
	m.state.rtr.dest_qp = qpn;
	m.state.rtr.primary_av.port_num = 1;
	m.state.rtr.primary_av.dlid = lid;
	m.state.rtr.primary_av.conn.path_mtu = e->mtu < mtu ? e->mtu : mtu;
	m.state.rtr.primary_av.conn.local_ack_timeout = 14;
	m.state.rtr.primary_av.conn.seq_err_retry_cnt = 7;
	m.state.rtr.primary_av.conn.rnr_retry_cnt = 7;
	m.state.rtr.resp_res = 1;
	m.state.rtr.rnr_nak_timeout = 1;
	CHECK(ib_modify_qp(e->qp, &m));
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.sq_psn = e->psn;
	m.state.rts.retry_cnt = 7;
	m.state.rts.rnr_retry_cnt = 7;       /* retry for ever on RNR NAKs */
	m.state.rts.local_ack_timeout = 14;  /* 4.096 us * 2^14, about 67 ms */
	m.state.rts.init_depth = 1;
	CHECK(ib_modify_qp(e->qp, &m));
}

void ctl_hello(ctl_t *m, const end_t *e)
{
	memset(m, 0, sizeof(*m));
	m->lid = e->lid;
	m->mtu = e->mtu;
	m->qpn = e->qpn;
	m->psn = e->psn;
	m->rkey = e->buf_rkey;
	m->va = (uintptr_t)e->buf;
	m->arg0 = e->buf_len;
}
