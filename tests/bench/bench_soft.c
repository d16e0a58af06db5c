/*
 * ibal bench: soft-fabric RDMA write bandwidth against memcpy, small-message rate and latency.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Public API only (<iba/ib_al.h>, <complib/comp_lib.h>). In a private fabric
 * directory (mkdtemp, removed at exit) the program measures, for each size
 * of -s, best of -r runs of -t seconds each:
 *
 *   memcpy                 copies between the two buffers of the RDMA test
 *   rdma_write_1_process   RC RDMA writes between two soft CAs of this process
 *   rdma_write_2_process   RC RDMA writes to a forked child process
 *
 * for each size of -m the rate of RC sends to the child
 * (send_rate_2_process), and for each size of -l the one-way latency, half
 * the round trip of an RC send ping-pong with the child, which answers each
 * message with one of the same size, polling its CQ as the parent does (with
 * -e: from its completion callback) (latency_2_process). The ping-pong's
 * sends of up to -I bytes (default PP_INLINE) are posted inline
 * (IB_SEND_OPT_INLINE), as perftest's ib_send_lat posts them; the send rate's
 * are not, as perftest's ib_send_bw does not. A bandwidth row also gives its ratio to memcpy's
 * bandwidth at that size, measured in the same run: figures are meant to be
 * compared within a run, never against a fixed threshold.
 *
 * Writes and sends are posted in chains of `group` work requests (the last
 * one signaled) with at most `window` in flight; RC completes in order, so a
 * signaled completion retires the chain before it. After each measurement
 * the target checks what arrived (the written bytes, or the number and order
 * of the messages) over the out-of-band socket pair made before the fork.
 *
 * Every wait is bounded (WAIT_US per completion or reply; an alarm() for the
 * whole run as a backstop); on any failure the program prints why and exits
 * with status 1. Output: tab-separated rows under '#' comment lines, or
 * with -p only lines "ROW BYTES VALUE UNIT" for scripts (bench_soft_ucx.sh).
 *
 * With -P PAIRS it measures instead, for each number of pairs, the aggregate
 * RDMA write bandwidth of that many pairs (a process and its child) writing
 * at once on one fabric (rdma_write_N_pairs, the last -s size); with -Q N
 * the memory an idle connected RC QP makes resident (memory_per_rc_qp).
 *
 * RDMA buffers are allocated in whole 2 MiB pages with madvise(MADV_HUGEPAGE)
 * (transparent huge pages where the kernel gives them, as UCX's allocator
 * prefers huge pages for ucx_perftest's); -4 keeps them on 4 KiB pages. Both
 * outputs say which, and how much of the parent is on huge pages.
 *
 * usage: bench_soft [-s SIZES] [-m SIZES] [-l SIZES] [-t SECONDS] [-r RUNS] [-p] [-e] [-4] [-I BYTES]
 *                   [-P PAIRS | -Q N] [-h]
 * (`make bench` runs it with $(BENCH_SOFT_ARGS); see docs/bench-soft.md)
 */
#include <dirent.h>
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
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include <complib/comp_lib.h>
#include "../common/al_procs.h"

#define MAX_SIZES 8u
#define MAX_RDMA (64u << 20)        /* largest RDMA size (-s) */
#define HUGE_PAGE (2u << 20)        /* a transparent huge page (x86-64, arm64 with 4 KiB pages) */
#define MIN_MSG 8u                  /* a message carries its 64-bit sequence number */
#define MAX_MSG 4096u               /* largest message size (-m, -l): one packet */
#define RDMA_INFLIGHT (4u << 20)    /* bytes of RDMA writes in flight, at most */
#define RDMA_MAX_WINDOW 64u         /* RDMA writes in flight, at most */
#define MSG_WINDOW 128u             /* sends in flight */
#define MSG_GROUP 16u               /* work requests per posted chain */
#define SQ_DEPTH 128u               /* send queue of the requesting QPs */
#define CHILD_RQ 1024u              /* the child's receive queue */
#define PP_WARMUP 16u               /* untimed round trips before a latency measurement */
#define PP_CLOCK_EVERY 16u          /* ping-pong rounds between two looks at the clock */
#define PP_INLINE 236u              /* -I default: perftest's inline size for RC sends in its latency tests */
#define WAIT_US 10000000u           /* bound of one wait: a completion or a reply */
#define SLICE_US 100000u            /* a bounded wait wakes up this often */
#define MAGIC 0x42534F46u

/* ---- Options, time, failure ---- */

typedef struct opts {
	uint32_t sizes[MAX_SIZES];  /* RDMA write sizes, bytes */
	unsigned n_sizes;
	uint32_t msgs[MAX_SIZES];   /* message sizes, bytes */
	unsigned n_msgs;
	uint32_t lats[MAX_SIZES];   /* ping-pong message sizes, bytes */
	unsigned n_lats;
	double secs;                /* per measurement */
	unsigned runs;              /* a row keeps its best run */
	boolean_t parseable;        /* -p: "ROW BYTES VALUE UNIT" lines only */
	uint32_t pairs[MAX_SIZES];  /* -P: numbers of process pairs writing at once */
	unsigned n_pairs;
	uint32_t mem_qps;           /* -Q: connected QP pairs for the memory row */
} opts_t;

static char g_fab_dir[64];          /* the private fabric directory */
static boolean_t g_poll = TRUE;     /* the parent polls its CQ (-e: waits for events) */
static boolean_t g_small_pages;     /* -4: RDMA buffers on 4 KiB pages, no huge pages asked */
static uint32_t g_inline = PP_INLINE; /* -I: ping-pong sends of up to this many bytes go inline */
static pid_t g_child;               /* parent: the child's pid, 0 once reaped */
static int g_fd = -1;               /* the out-of-band socket */
static int g_is_child;
static unsigned g_limit_s;          /* limit of the whole run */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void rm_tree(const char *dir)
{
	char path[512];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(dir);
}

static void ctl_error(const char *text);

/*
 * Prints the reason and exits with status 1. The child first tells the
 * parent why; the parent kills the child and removes the fabric directory.
 * _exit: the access layer's threads may still be running.
 */
static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
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
		rm_tree(g_fab_dir);
	_exit(1);
}

#define CHECK(call)                                                        \
	do {                                                               \
		ib_api_status_t st__ = (call);                             \
		if (st__ != IB_SUCCESS)                                    \
			die("%s failed: %s", #call, ib_get_err_str(st__)); \
	} while (0)

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
static void on_alarm(int sig)
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

/* ---- Out-of-band channel (a socket pair made before the fork) ---- */

enum { CTL_HELLO = 1, CTL_READY, CTL_CHECK, CTL_COUNT, CTL_OK, CTL_BYE, CTL_ERROR, CTL_ECHO };

typedef struct ctl {
	uint32_t magic;
	uint32_t type;
	uint64_t arg0, arg1;
	/* CTL_HELLO: what a connection manager would carry. */
	ib_net16_t lid;
	uint8_t mtu;
	ib_net32_t qpn;
	ib_net32_t psn;
	net32_t rkey;
	uint64_t va;
	char text[200];             /* CTL_ERROR: why */
} ctl_t;

static void ctl_send(ctl_t *m, uint32_t type)
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
static void ctl_recv(ctl_t *m, uint32_t type, int wait_ms)
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

static uint64_t mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static void pattern(uint8_t *p, uint64_t len, uint64_t seed)
{
	uint64_t i, w;

	for (i = 0; i < len; i += 8) {
		w = mix(seed + (i >> 3));
		memcpy(p + i, &w, len - i < 8 ? len - i : 8);
	}
}

/* TRUE if p holds pattern(len, seed). */
static boolean_t pattern_ok(const uint8_t *p, uint64_t len, uint64_t seed)
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

typedef struct end {
	ib_pd_handle_t pd;
	ib_cq_handle_t cq;              /* send and receive */
	ib_qp_handle_t qp;
	cl_waitobj_handle_t wo;         /* the CQ's, when polled */
	ib_mr_handle_t buf_mr, slot_mr;
	uint8_t *buf;                   /* RDMA source or target */
	uint64_t buf_len;
	net32_t buf_lkey, buf_rkey;
	uint8_t *slots;                 /* message slots */
	uint32_t n_slots, slot_len;
	net32_t slot_lkey;
	ib_net16_t lid;
	uint8_t mtu;
	ib_net32_t qpn, psn;
	uint64_t seq;                   /* next send work request id */
	uint64_t msg_seq;               /* next message number (sends) */
	uint64_t recv_seq;              /* next receive work request id (polled ends) */
	uint64_t recv_done;             /* receive work request id after the last one completed */
	uint32_t recv_len;              /* bytes of the last receive completed */
	uint32_t max_inline;            /* inline bytes the QP takes, at most g_inline */
} end_t;

/* IB_SEND_OPT_INLINE for a ping-pong message of len bytes that e's QP takes inline (-I). */
static uint32_t pp_inline(const end_t *e, uint32_t len)
{
	return len <= e->max_inline ? IB_SEND_OPT_INLINE : 0;
}

/* Reads port 1 of a CA: its LID and MTU. */
static void port_info(ib_ca_handle_t ca, ib_net16_t *p_lid, uint8_t *p_mtu)
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
static unsigned long huge_page_kib(void)
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
static void end_open(end_t *e, ib_ca_handle_t ca, ib_pfn_comp_cb_t cb, void *cb_ctx,
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
static void end_free(end_t *e)
{
	if (e->wo)
		cl_waitobj_destroy(e->wo);
	free(e->buf);
	free(e->slots);
	memset(e, 0, sizeof(*e));
}

/* RESET -> INIT; remote TRUE lets the peer write into this end's memory. */
static void qp_init(end_t *e, boolean_t remote)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = 1;
	m.state.init.access_ctrl = remote ? IB_AC_RDMA_WRITE : 0;
	CHECK(ib_modify_qp(e->qp, &m));
}

/* INIT -> RTR -> RTS towards the peer, as a connection manager would. */
static void qp_connect(end_t *e, ib_net16_t lid, ib_net32_t qpn, ib_net32_t psn, uint8_t mtu)
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

static void ctl_hello(ctl_t *m, const end_t *e)
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

/* ---- Requester: streams of writes or sends ---- */

/*
 * Waits (bounded) for completions on a polled end's CQ; returns the send
 * work request id after the last one completed (at least `done`). A receive
 * completion sets e->recv_done and e->recv_len instead. Polls, rearms,
 * polls again, then waits on the wait object.
 */
static uint64_t cq_wait(end_t *e, uint64_t done, const char *what)
{
	ib_wc_t wcs[32], *free_l, *list, *w;
	uint64_t end = 0;
	boolean_t armed = FALSE;
	ib_api_status_t st;
	unsigned i, empty = 0;

	for (;;) {
		for (i = 0; i < 32; i++)
			wcs[i].p_next = i + 1 < 32 ? &wcs[i + 1] : NULL;
		free_l = wcs;
		list = NULL;
		st = ib_poll_cq(e->cq, &free_l, &list);
		if (st != IB_SUCCESS && st != IB_NOT_FOUND)
			die("%s: ib_poll_cq failed: %s", what, ib_get_err_str(st));
		if (st == IB_SUCCESS && list) {
			for (w = list; w; w = w->p_next) {
				if (w->status != IB_WCS_SUCCESS)
					die("%s: %s completion failed: %s", what,
					    ib_get_wc_type_str(w->wc_type),
					    ib_get_wc_status_str(w->status));
				if (w->wc_type == IB_WC_RECV) {
					if (w->wr_id + 1 > e->recv_done)
						e->recv_done = w->wr_id + 1;
					e->recv_len = w->length;
				} else if (w->wr_id + 1 > done) {
					done = w->wr_id + 1;
				}
			}
			return done;
		}
		if (g_poll) {
			/* Busy polling, as ucx_perftest and perftest do. The clock is
			 * read only every 1,024 empty polls: a read costs some 85 ns
			 * in a guest on kvm-clock, which would delay noticing the
			 * completion being waited for. */
			if (++empty % 1024)
				continue;
			if (!end)
				end = now_ns() + WAIT_US * 1000ull;
			else if (now_ns() > end)
				die("%s: no completion within %u s", what, WAIT_US / 1000000u);
			continue;
		}
		if (!armed) {
			CHECK(ib_rearm_cq(e->cq, FALSE));
			armed = TRUE;
			continue;
		}
		if (!end)
			end = now_ns() + WAIT_US * 1000ull;
		else if (now_ns() > end)
			die("%s: no completion within %u s", what, WAIT_US / 1000000u);
		cl_waitobj_wait_on(e->wo, SLICE_US, FALSE);
		armed = FALSE;
	}
}

/* What a stream posts. */
typedef struct stream {
	ib_wr_type_t type;              /* WR_RDMA_WRITE or WR_SEND */
	uint32_t len;                   /* bytes per work request */
	uint64_t raddr;                 /* writes: target address */
	net32_t rkey;                   /* writes: its R_Key */
	uint32_t window;                /* work requests in flight, a multiple of group */
	uint32_t group;                 /* work requests per chain, the last signaled */
	double secs;                    /* post for this long, then drain */
	const char *what;
} stream_t;

/* Runs a stream; returns the elapsed ns and the work requests completed in *p_count. */
static uint64_t stream_run(end_t *e, const stream_t *s, uint64_t *p_count)
{
	ib_send_wr_t wr[MSG_GROUP], *bad;
	ib_local_ds_t ds[MSG_GROUP];
	uint64_t start = e->seq, posted = start, done = start, t0, t_end, seq;
	boolean_t stop = FALSE;
	uint32_t k;
	uint8_t *p;

	t0 = now_ns();
	t_end = t0 + (uint64_t)(s->secs * 1e9);
	for (;;) {
		while (!stop && posted - done + s->group <= s->window) {
			for (k = 0; k < s->group; k++) {
				seq = posted + k;
				memset(&wr[k], 0, sizeof(wr[k]));
				wr[k].p_next = k + 1 < s->group ? &wr[k + 1] : NULL;
				wr[k].wr_id = seq;
				wr[k].wr_type = s->type;
				wr[k].send_opt = k + 1 == s->group ? IB_SEND_OPT_SIGNALED : 0;
				wr[k].num_ds = 1;
				wr[k].ds_array = &ds[k];
				ds[k].length = s->len;
				if (s->type == WR_SEND) {
					/* at most window (= n_slots) in flight: the slot is free */
					p = e->slots + (seq % e->n_slots) * e->slot_len;
					memcpy(p, &e->msg_seq, 8);
					e->msg_seq++;
					ds[k].vaddr = (uintptr_t)p;
					ds[k].lkey = e->slot_lkey;
				} else {
					ds[k].vaddr = (uintptr_t)e->buf;
					ds[k].lkey = e->buf_lkey;
					wr[k].remote_ops.vaddr = s->raddr;
					wr[k].remote_ops.rkey = s->rkey;
				}
			}
			CHECK(ib_post_send(e->qp, wr, &bad));
			posted += s->group;
		}
		if (!stop && now_ns() >= t_end)
			stop = TRUE;
		if (stop && done == posted)
			break;
		done = cq_wait(e, done, s->what);
	}
	e->seq = posted;
	*p_count = posted - start;
	return now_ns() - t0;
}

/* Writes in flight for a size: about RDMA_INFLIGHT bytes, 4..RDMA_MAX_WINDOW, chains of a quarter. */
static void rdma_window(uint32_t len, uint32_t *p_window, uint32_t *p_group)
{
	uint32_t w = RDMA_INFLIGHT / len;

	if (w > RDMA_MAX_WINDOW)
		w = RDMA_MAX_WINDOW;
	if (w < 4)
		w = 4;
	*p_group = w / 4;
	*p_window = *p_group * 4;
}

/* ---- The child: the target of the two-process tests ---- */

typedef struct child {
	end_t e;
	cl_spinlock_t lock;
	cl_event_t ev;                  /* signalled when count reaches want, or on a failure */
	uint64_t count;                 /* messages received in order (written under lock, atomically) */
	uint64_t want;
	boolean_t echo;                 /* answer each message (ping-pong; under lock) */
	boolean_t busy;                 /* the main thread polls the CQ (busy ping-pong): no callbacks */
	uint64_t replies;               /* answers posted (the callback's own) */
	boolean_t failed;
	char err[160];
} child_t;

static void child_fail(child_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void child_fail(child_t *c, const char *fmt, ...)
{
	va_list ap;

	cl_spinlock_acquire(&c->lock);
	if (!c->failed) {
		va_start(ap, fmt);
		vsnprintf(c->err, sizeof(c->err), fmt, ap);
		va_end(ap);
		c->failed = TRUE;
	}
	cl_spinlock_release(&c->lock);
	cl_event_signal(&c->ev);
}

static void post_recvs(end_t *e, const uint64_t *ids, uint32_t n, ib_api_status_t *p_st)
{
	ib_recv_wr_t wr[32], *bad;
	ib_local_ds_t ds[32];
	uint32_t i;

	for (i = 0; i < n; i++) {
		ds[i].vaddr = (uintptr_t)(e->slots + ids[i] * e->slot_len);
		ds[i].length = e->slot_len;
		ds[i].lkey = e->slot_lkey;
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].p_next = i + 1 < n ? &wr[i + 1] : NULL;
		wr[i].wr_id = ids[i];
		wr[i].num_ds = 1;
		wr[i].ds_array = &ds[i];
	}
	*p_st = n ? ib_post_recv(e->qp, wr, &bad) : IB_SUCCESS;
}

/*
 * Ping-pong: answers message seq with a send of len bytes that carries the
 * same number, from the slot after the receive slots. One message is in
 * flight at a time, so that slot is free again when the next one arrives.
 * Every MSG_GROUP-th answer is signaled; its completion retires the ones
 * before it.
 */
static ib_api_status_t child_reply(child_t *c, uint64_t seq, uint32_t len)
{
	ib_send_wr_t wr, *bad;
	ib_local_ds_t ds;
	uint8_t *p = c->e.slots + (uint64_t)CHILD_RQ * c->e.slot_len;

	memcpy(p, &seq, 8);
	ds.vaddr = (uintptr_t)p;
	ds.length = len;
	ds.lkey = c->e.slot_lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = c->replies;
	wr.wr_type = WR_SEND;
	wr.send_opt = (c->replies % MSG_GROUP == MSG_GROUP - 1 ? IB_SEND_OPT_SIGNALED : 0) |
		      pp_inline(&c->e, len);
	wr.num_ds = 1;
	wr.ds_array = &ds;
	c->replies++;
	return ib_post_send(c->e.qp, &wr, &bad);
}

/*
 * Takes what the child's CQ holds (one poller at a time: the callback, or
 * the main thread in busy ping-pong): checks that each message carries the
 * next number, answers it in echo mode, reposts the receives, counts.
 * With @p rearm (the callback) it rearms when the CQ is empty and drains
 * again. Returns FALSE once the child failed.
 */
static boolean_t child_drain(child_t *c, ib_cq_handle_t h_cq, boolean_t rearm)
{
	ib_wc_t wcs[32], *free_l, *list, *w;
	uint64_t ids[32], seq, count;
	boolean_t rearmed = !rearm, wake, echo;
	ib_api_status_t st;
	uint32_t i, n;

	/* Only the draining thread writes count (the callback, or the main
	 * thread while busy): it reads its own value without the lock, which a
	 * busy poll would otherwise take on every empty poll. */
	count = __atomic_load_n(&c->count, __ATOMIC_ACQUIRE);
	for (;;) {
		for (i = 0; i < 32; i++)
			wcs[i].p_next = i + 1 < 32 ? &wcs[i + 1] : NULL;
		free_l = wcs;
		list = NULL;
		st = ib_poll_cq(h_cq, &free_l, &list);
		if (st == IB_NOT_FOUND && !rearmed) {
			st = ib_rearm_cq(h_cq, FALSE);
			rearmed = TRUE;
			if (st == IB_SUCCESS)
				continue;
		}
		if (st == IB_NOT_FOUND)
			return TRUE;
		if (st != IB_SUCCESS) {
			child_fail(c, "polling or rearming the CQ: %s", ib_get_err_str(st));
			return FALSE;
		}
		rearmed = !rearm;
		/* Read after the poll: the parent switches echo mode (CTL_ECHO) only
		 * with no message in flight, so these messages were sent after it. */
		cl_spinlock_acquire(&c->lock);
		echo = c->echo;
		cl_spinlock_release(&c->lock);
		for (n = 0, w = list; w; w = w->p_next) {
			if (w->status == IB_WCS_SUCCESS && w->wc_type == IB_WC_SEND)
				continue;   /* a signaled answer arrived */
			if (w->status != IB_WCS_SUCCESS || w->wc_type != IB_WC_RECV) {
				child_fail(c, "%s completion: %s", ib_get_wc_type_str(w->wc_type),
					   ib_get_wc_status_str(w->status));
				return FALSE;
			}
			memcpy(&seq, c->e.slots + w->wr_id * c->e.slot_len, 8);
			if (w->length < MIN_MSG || seq != count) {
				child_fail(c, "message %" PRIu64 " (%u bytes) arrived as number %" PRIu64,
					   count, w->length, seq);
				return FALSE;
			}
			if (echo && (st = child_reply(c, seq, w->length)) != IB_SUCCESS) {
				child_fail(c, "answering message %" PRIu64 ": %s", seq,
					   ib_get_err_str(st));
				return FALSE;
			}
			count++;
			ids[n++] = w->wr_id;
		}
		post_recvs(&c->e, ids, n, &st);
		if (st != IB_SUCCESS) {
			child_fail(c, "reposting receives: %s", ib_get_err_str(st));
			return FALSE;
		}
		cl_spinlock_acquire(&c->lock);
		__atomic_store_n(&c->count, count, __ATOMIC_RELEASE);
		wake = c->want && count >= c->want;
		cl_spinlock_release(&c->lock);
		if (wake)
			cl_event_signal(&c->ev);
	}
}

/* The child's completion callback (one CQ: never concurrent with itself). */
static void AL_API child_cq_cb(const ib_cq_handle_t h_cq, void *context)
{
	child_t *c = (child_t *)context;
	boolean_t busy;

	cl_spinlock_acquire(&c->lock);
	busy = c->busy;
	cl_spinlock_release(&c->lock);
	if (!busy) /* else the main thread polls; the CQ stays unarmed */
		child_drain(c, h_cq, TRUE);
}

/*
 * Busy mode (CTL_ECHO with arg1: the ping-pong, or with arg0 0 the send
 * rate): the main thread polls the CQ, reposts and answers, as
 * ucx_perftest's and perftest's tests do, until the next out-of-band
 * message arrives (looked for every 1024 empty polls); then the CQ is
 * rearmed for the callback and drained once more.
 */
static void child_busy_echo(child_t *c)
{
	struct pollfd p = { .fd = g_fd, .events = POLLIN, .revents = 0 };
	unsigned idle = 0;

	while (child_drain(c, c->e.cq, FALSE)) {
		if (++idle % 1024)
			continue;
		if (poll(&p, 1, 0) > 0)
			break;
	}
	cl_spinlock_acquire(&c->lock);
	c->busy = FALSE;
	cl_spinlock_release(&c->lock);
	child_drain(c, c->e.cq, TRUE);
}

/* CTL_COUNT: waits (bounded) until want messages arrived; answers with the count. */
static void child_count(child_t *c, uint64_t want)
{
	uint64_t end = now_ns() + WAIT_US * 1000ull, got;
	boolean_t failed;
	char err[sizeof(c->err)];
	ctl_t m;

	for (;;) {
		cl_spinlock_acquire(&c->lock);
		c->want = want;
		got = c->count;
		failed = c->failed;
		memcpy(err, c->err, sizeof(err));
		cl_spinlock_release(&c->lock);
		if (failed)
			die("%s", err);
		if (got >= want || now_ns() > end)
			break;
		cl_event_wait_on(&c->ev, SLICE_US, FALSE);
	}
	memset(&m, 0, sizeof(m));
	m.arg0 = got;
	ctl_send(&m, CTL_OK);
}

static int child_main(pid_t parent, const opts_t *o)
{
	child_t c;
	ib_al_handle_t al;
	ib_ca_handle_t ca;
	ib_net64_t guid;
	size_t n = 1;
	uint64_t ids[32], max_rdma = 8;
	uint32_t i, k, max_msg = MIN_MSG;
	ib_api_status_t st;
	ctl_t m;

	g_is_child = 1;
	g_child = 0;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	unsetenv("IBAL_SOFT_CAS");   /* one CA */
	for (i = 0; i < o->n_sizes; i++)
		max_rdma = o->sizes[i] > max_rdma ? o->sizes[i] : max_rdma;
	for (i = 0; i < o->n_msgs; i++)
		max_msg = o->msgs[i] > max_msg ? o->msgs[i] : max_msg;
	for (i = 0; i < o->n_lats; i++)
		max_msg = o->lats[i] > max_msg ? o->lats[i] : max_msg;

	memset(&c, 0, sizeof(c));
	cl_spinlock_construct(&c.lock);
	cl_event_construct(&c.ev);
	if (cl_spinlock_init(&c.lock) != CL_SUCCESS || cl_event_init(&c.ev, FALSE) != CL_SUCCESS)
		die("complib init failed");
	CHECK(ib_open_al(&al));
	CHECK(ib_get_ca_guids(al, &guid, &n));
	CHECK(ib_open_ca(al, guid, NULL, NULL, &ca));
	/* CHILD_RQ receive slots and the slot of the ping-pong answers */
	end_open(&c.e, ca, child_cq_cb, &c, SQ_DEPTH, CHILD_RQ, max_rdma, TRUE, CHILD_RQ + 1,
		 (max_msg + 63u) & ~63u);
	qp_init(&c.e, TRUE);
	for (i = 0; i < CHILD_RQ; i += k) {
		for (k = 0; k < 32 && i + k < CHILD_RQ; k++)
			ids[k] = i + k;
		post_recvs(&c.e, ids, k, &st);
		CHECK(st);
	}
	ctl_hello(&m, &c.e);
	ctl_send(&m, CTL_HELLO);
	ctl_recv(&m, CTL_HELLO, WAIT_US / 1000);
	qp_connect(&c.e, m.lid, m.qpn, m.psn, m.mtu);
	CHECK(ib_rearm_cq(c.e.cq, FALSE));
	memset(&m, 0, sizeof(m));
	ctl_send(&m, CTL_READY);

	for (;;) {
		ctl_recv(&m, 0, (int)g_limit_s * 1000);
		if (m.type == CTL_BYE)
			break;
		if (m.type == CTL_COUNT) {
			child_count(&c, m.arg0);
		} else if (m.type == CTL_ECHO) {
			/* no message is in flight: the callback sees the change with the next one */
			boolean_t busy = m.arg1 != 0;

			cl_spinlock_acquire(&c.lock);
			c.echo = m.arg0 != 0;
			c.busy = busy;
			cl_spinlock_release(&c.lock);
			memset(&m, 0, sizeof(m));
			ctl_send(&m, CTL_OK);
			if (busy)
				child_busy_echo(&c);
		} else if (m.type == CTL_CHECK) {
			if (m.arg0 > c.e.buf_len || !pattern_ok(c.e.buf, m.arg0, m.arg1))
				die("the RDMA-written %" PRIu64 " bytes are not what was sent", m.arg0);
			memset(c.e.buf, 0, (size_t)m.arg0);   /* the next check sees only new writes */
			memset(&m, 0, sizeof(m));
			ctl_send(&m, CTL_OK);
		} else {
			die("out-of-band: unexpected message %u", m.type);
		}
	}
	CHECK(ib_close_al(al));
	end_free(&c.e);
	cl_event_destroy(&c.ev);
	cl_spinlock_destroy(&c.lock);
	memset(&m, 0, sizeof(m));
	ctl_send(&m, CTL_BYE);
	close(g_fd);
	return 0;
}

/* ---- The parent: memcpy and the requesters ---- */

/* Best (highest) figures of each row. */
typedef struct results {
	double memcpy_mbs[MAX_SIZES];
	double local_mbs[MAX_SIZES];
	double remote_mbs[MAX_SIZES];
	double rate[MAX_SIZES];         /* messages per second */
	double lat_us[MAX_SIZES];       /* one-way latency, us (lowest kept; 0: none yet) */
	unsigned long huge_kib;         /* of the parent, its RDMA buffers allocated */
} results_t;

/* The comment line that says on which pages the RDMA buffers are, with
 * how much of the parent the kernel put on huge pages when @p p_huge_kib
 * tells (the scale mode's parent holds no buffer). */
static void print_pages(const unsigned long *p_huge_kib)
{
	printf("# rdma buffers: %s", g_small_pages ? "4 KiB pages (-4)"
						   : "transparent huge pages asked (2 MiB, madvise)");
	if (!g_small_pages && p_huge_kib)
		printf("; %lu KiB of the parent on huge pages", *p_huge_kib);
	printf("\n");
}

static void keep_max(double *p, double v)
{
	if (v > *p)
		*p = v;
}

static void keep_min(double *p, double v)
{
	if (*p == 0 || v < *p)
		*p = v;
}

/* memcpy of len bytes from src to dst, repeated for secs; MB/s. */
static double memcpy_mbs(uint8_t *dst, const uint8_t *src, uint32_t len, double secs)
{
	uint64_t t0 = now_ns(), t, n = 0, batch = (1u << 20) / len + 1, i;

	do {
		for (i = 0; i < batch; i++) {
			memcpy(dst, src, len);
			/* the copy is used: the compiler may not drop or merge it */
			__asm__ __volatile__("" : : "r"(dst), "r"(src) : "memory");
		}
		n += batch;
		t = now_ns() - t0;
	} while (t < (uint64_t)(secs * 1e9));
	return (double)n * len * 1e3 / (double)t;
}

/* One RDMA write measurement from a to the buffer at raddr/rkey; MB/s. */
static double rdma_mbs(end_t *a, uint64_t raddr, net32_t rkey, uint32_t len, double secs,
		       const char *what)
{
	stream_t s;
	uint64_t ns, count;

	memset(&s, 0, sizeof(s));
	s.type = WR_RDMA_WRITE;
	s.len = len;
	s.raddr = raddr;
	s.rkey = rkey;
	rdma_window(len, &s.window, &s.group);
	s.secs = secs;
	s.what = what;
	ns = stream_run(a, &s, &count);
	return (double)count * len * 1e3 / (double)ns;
}

/* One message-rate measurement to the child; messages per second. */
static double send_rate(end_t *a, uint32_t len, double secs)
{
	stream_t s;
	uint64_t ns, count;
	ctl_t m;

	/* The child polls its CQ while the messages come (as ucx_perftest's
	 * receiver does), or (-e) takes them in its completion callback. */
	memset(&m, 0, sizeof(m));
	m.arg1 = g_poll;
	ctl_send(&m, CTL_ECHO);
	ctl_recv(&m, CTL_OK, WAIT_US / 1000);
	memset(&s, 0, sizeof(s));
	s.type = WR_SEND;
	s.len = len;
	s.window = MSG_WINDOW;
	s.group = MSG_GROUP;
	s.secs = secs;
	s.what = "RC sends";
	ns = stream_run(a, &s, &count);
	/* CTL_COUNT ends the child's polling too. */
	memset(&m, 0, sizeof(m));
	m.arg0 = a->msg_seq;
	ctl_send(&m, CTL_COUNT);
	ctl_recv(&m, CTL_OK, WAIT_US / 1000 + 1000);
	if (m.arg0 != a->msg_seq)
		die("the child received %" PRIu64 " of %" PRIu64 " messages", m.arg0, a->msg_seq);
	return (double)count * 1e9 / (double)ns;
}

/*
 * One latency measurement: a ping-pong of len-byte RC sends with the child,
 * which answers each message in echo mode. Before each message a receive
 * for the answer is posted (so the answer never meets an empty receive
 * queue); the answer must carry the message's number. Every MSG_GROUP-th
 * message is signaled, and the last one, so that at the end all are
 * retired. PP_WARMUP untimed round trips first. Returns the one-way latency
 * in us: half the mean round trip.
 */
static double pingpong_us(end_t *a, uint32_t len, double secs)
{
	ib_send_wr_t wr, *bad;
	ib_recv_wr_t rwr, *rbad;
	ib_local_ds_t ds, rds;
	uint8_t *ping = a->slots, *pong = a->slots + a->slot_len;
	uint64_t posted = a->seq, done = a->seq, t0 = 0, t_end = 0, t, rounds = 0, seq, got;
	boolean_t timing = FALSE, last = FALSE;
	ctl_t m;

	memset(&m, 0, sizeof(m));
	m.arg0 = 1;
	m.arg1 = g_poll; /* the child polls too, or answers from its callback (-e) */
	ctl_send(&m, CTL_ECHO);
	ctl_recv(&m, CTL_OK, WAIT_US / 1000);
	while (!last) {
		/* The clock only every PP_CLOCK_EVERY rounds (a read costs some
		 * 85 ns in a guest on kvm-clock): the time is taken at both ends
		 * of the timed rounds, which may run on by that many. */
		if (!timing && rounds == PP_WARMUP) {
			timing = TRUE;
			rounds = 0;
			t0 = now_ns();
			t_end = t0 + (uint64_t)(secs * 1e9);
		}
		last = timing && rounds % PP_CLOCK_EVERY == PP_CLOCK_EVERY - 1 && now_ns() >= t_end;
		/* unsignaled sends are retired by a later signaled one: keep the SQ from filling */
		while (posted - done + MSG_GROUP >= SQ_DEPTH)
			done = cq_wait(a, done, "RC ping-pong");

		seq = a->msg_seq++;
		memset(pong, 0xFF, 8);
		rds.vaddr = (uintptr_t)pong;
		rds.length = a->slot_len;
		rds.lkey = a->slot_lkey;
		memset(&rwr, 0, sizeof(rwr));
		rwr.wr_id = a->recv_seq++;
		rwr.num_ds = 1;
		rwr.ds_array = &rds;
		CHECK(ib_post_recv(a->qp, &rwr, &rbad));

		memcpy(ping, &seq, 8);
		ds.vaddr = (uintptr_t)ping;
		ds.length = len;
		ds.lkey = a->slot_lkey;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = posted;
		wr.wr_type = WR_SEND;
		wr.send_opt = (last || posted % MSG_GROUP == MSG_GROUP - 1 ? IB_SEND_OPT_SIGNALED : 0) |
			      pp_inline(a, len);
		wr.num_ds = 1;
		wr.ds_array = &ds;
		CHECK(ib_post_send(a->qp, &wr, &bad));
		posted++;

		while (a->recv_done < a->recv_seq)
			done = cq_wait(a, done, "RC ping-pong");
		memcpy(&got, pong, 8);
		if (a->recv_len != len || got != seq)
			die("ping-pong: message %" PRIu64 " of %u bytes answered by number %" PRIu64
			    " of %u bytes", seq, len, got, a->recv_len);
		rounds++;
	}
	t = now_ns() - t0;
	while (done < posted)
		done = cq_wait(a, done, "RC ping-pong");
	a->seq = posted;

	memset(&m, 0, sizeof(m));
	ctl_send(&m, CTL_ECHO);
	ctl_recv(&m, CTL_OK, WAIT_US / 1000);
	memset(&m, 0, sizeof(m));
	m.arg0 = a->msg_seq;
	ctl_send(&m, CTL_COUNT);
	ctl_recv(&m, CTL_OK, WAIT_US / 1000 + 1000);
	if (m.arg0 != a->msg_seq)
		die("the child received %" PRIu64 " of %" PRIu64 " messages", m.arg0, a->msg_seq);
	return (double)t / (double)rounds / 2e3;
}

/* -p: one line per figure, "ROW BYTES VALUE UNIT", for scripts. */
static void print_parseable(const opts_t *o, const results_t *r)
{
	unsigned i;

	print_pages(&r->huge_kib);
	for (i = 0; i < o->n_sizes; i++)
		printf("memcpy %u %.3f MB/s\n", o->sizes[i], r->memcpy_mbs[i]);
	for (i = 0; i < o->n_sizes; i++)
		printf("rdma_write_1_process %u %.3f MB/s\n", o->sizes[i], r->local_mbs[i]);
	for (i = 0; i < o->n_sizes; i++)
		printf("rdma_write_2_process %u %.3f MB/s\n", o->sizes[i], r->remote_mbs[i]);
	for (i = 0; i < o->n_msgs; i++)
		printf("send_rate_2_process %u %.3f msg/s\n", o->msgs[i], r->rate[i]);
	for (i = 0; i < o->n_lats; i++)
		printf("latency_2_process %u %.3f us\n", o->lats[i], r->lat_us[i]);
}

static void print_results(const opts_t *o, const results_t *r, uint8_t mtu)
{
	unsigned i;

	if (o->parseable) {
		print_parseable(o, r);
		return;
	}

	printf("# bench_soft: soft fabric, RC, path MTU %u B; best of %u run(s) of %.2f s each\n",
	       128u << mtu, o->runs, o->secs);
	printf("# ratio = RDMA write bandwidth / memcpy bandwidth of that size, both from this run;"
	       " MB = 10^6 bytes\n");
	printf("# latency = half the round trip of an RC send ping-pong with the child (lowest run);"
	       " sends of up to %u B inline (-I)\n", g_inline);
	print_pages(&r->huge_kib);
	printf("# %-22s\t%8s\t%12s\t%-5s\t%12s\t%s\n", "test", "bytes", "result", "unit",
	       "memcpy MB/s", "ratio");
	for (i = 0; i < o->n_sizes; i++)
		printf("%-24s\t%8u\t%12.2f\t%-5s\n", "memcpy", o->sizes[i], r->memcpy_mbs[i], "MB/s");
	for (i = 0; i < o->n_sizes; i++)
		printf("%-24s\t%8u\t%12.2f\t%-5s\t%12.1f\t%.3g\n", "rdma_write_1_process",
		       o->sizes[i], r->local_mbs[i], "MB/s", r->memcpy_mbs[i],
		       r->local_mbs[i] / r->memcpy_mbs[i]);
	for (i = 0; i < o->n_sizes; i++)
		printf("%-24s\t%8u\t%12.2f\t%-5s\t%12.1f\t%.3g\n", "rdma_write_2_process",
		       o->sizes[i], r->remote_mbs[i], "MB/s", r->memcpy_mbs[i],
		       r->remote_mbs[i] / r->memcpy_mbs[i]);
	for (i = 0; i < o->n_msgs; i++)
		printf("%-24s\t%8u\t%12.0f\t%-5s\n", "send_rate_2_process", o->msgs[i], r->rate[i],
		       "msg/s");
	for (i = 0; i < o->n_lats; i++)
		printf("%-24s\t%8u\t%12.2f\t%-5s\n", "latency_2_process", o->lats[i], r->lat_us[i],
		       "us");
}

/* Waits (bounded) for the child's exit after its CTL_BYE; SIGCHLD is blocked. */
static void reap_child(const sigset_t *chld)
{
	uint64_t end = now_ns() + WAIT_US * 1000ull, t;
	struct timespec ts;
	int st = 0;
	pid_t w;

	while ((w = waitpid(g_child, &st, WNOHANG)) == 0) {
		if ((t = now_ns()) > end)
			die("the child did not exit");
		ts.tv_sec = (time_t)((end - t) / 1000000000u);
		ts.tv_nsec = (long)((end - t) % 1000000000u);
		sigtimedwait(chld, NULL, &ts);
	}
	g_child = 0;
	if (w < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		die("the child ended with status 0x%x", (unsigned)st);
}

/*
 * Opens the parent's end on @p ca (RDMA buffer of @p rdma_len bytes,
 * message slots of @p slot_len) and connects its QP with the child's: the
 * HELLOs both ways, then the child's READY. *@p peer: the child's HELLO.
 */
static void child_connect(end_t *a, ib_ca_handle_t ca, uint64_t rdma_len, uint32_t slot_len,
			  ctl_t *peer)
{
	ctl_t m;

	end_open(a, ca, NULL, NULL, SQ_DEPTH, 1, rdma_len, FALSE, MSG_WINDOW, slot_len);
	qp_init(a, FALSE);
	ctl_recv(peer, CTL_HELLO, WAIT_US / 1000);
	if (peer->arg0 < rdma_len)
		die("the child's buffer is too small");
	ctl_hello(&m, a);
	ctl_send(&m, CTL_HELLO);
	qp_connect(a, peer->lid, peer->qpn, peer->psn, peer->mtu);
	ctl_recv(&m, CTL_READY, WAIT_US / 1000);
}

/* Says goodbye to the child and waits (bounded) for its exit. */
static void child_bye(const sigset_t *chld)
{
	ctl_t m;

	memset(&m, 0, sizeof(m));
	ctl_send(&m, CTL_BYE);
	ctl_recv(&m, CTL_BYE, WAIT_US / 1000);
	reap_child(chld);
}

static int parent_main(const opts_t *o, const sigset_t *chld)
{
	ib_al_handle_t al;
	ib_ca_handle_t ca[2];
	ib_net64_t guids[2];
	size_t n = 2;
	end_t a_loc, b_loc, a_rem;
	results_t res;
	uint64_t max_rdma = 8, seed;
	uint32_t max_msg = MIN_MSG, len;
	unsigned r, i;
	ctl_t m, peer;

	for (i = 0; i < o->n_sizes; i++)
		max_rdma = o->sizes[i] > max_rdma ? o->sizes[i] : max_rdma;
	for (i = 0; i < o->n_msgs; i++)
		max_msg = o->msgs[i] > max_msg ? o->msgs[i] : max_msg;
	for (i = 0; i < o->n_lats; i++)
		max_msg = o->lats[i] > max_msg ? o->lats[i] : max_msg;
	setenv("IBAL_SOFT_CAS", "2", 1);
	CHECK(ib_open_al(&al));
	CHECK(ib_get_ca_guids(al, guids, &n));
	if (n < 2)
		die("two soft CAs wanted, %zu found", n);
	CHECK(ib_open_ca(al, guids[0], NULL, NULL, &ca[0]));
	CHECK(ib_open_ca(al, guids[1], NULL, NULL, &ca[1]));

	/* One process: CA 0 writes into CA 1. */
	end_open(&a_loc, ca[0], NULL, NULL, SQ_DEPTH, 1, max_rdma, FALSE, 1, 64);
	end_open(&b_loc, ca[1], NULL, NULL, 1, 1, max_rdma, TRUE, 1, 64);
	qp_init(&a_loc, FALSE);
	qp_init(&b_loc, TRUE);
	qp_connect(&a_loc, b_loc.lid, b_loc.qpn, b_loc.psn, b_loc.mtu);
	qp_connect(&b_loc, a_loc.lid, a_loc.qpn, a_loc.psn, a_loc.mtu);

	/* Two processes: CA 0 writes and sends to the child (one receive: ping-pong answers). */
	child_connect(&a_rem, ca[0], max_rdma, (max_msg + 63u) & ~63u, &peer);

	/* Each run measures every row once; the rows of one size follow each other. */
	memset(&res, 0, sizeof(res));
	res.huge_kib = huge_page_kib();
	for (r = 0; r < o->runs; r++) {
		for (i = 0; i < o->n_sizes; i++) {
			len = o->sizes[i];
			keep_max(&res.memcpy_mbs[i], memcpy_mbs(b_loc.buf, a_loc.buf, len, o->secs));

			seed = mix(now_ns());
			pattern(a_loc.buf, len, seed);
			memset(b_loc.buf, 0, len);
			keep_max(&res.local_mbs[i], rdma_mbs(&a_loc, (uintptr_t)b_loc.buf,
							     b_loc.buf_rkey, len, o->secs,
							     "RDMA write, one process"));
			if (memcmp(b_loc.buf, a_loc.buf, len))
				die("RDMA write, one process: the target does not hold what was sent");

			seed = mix(now_ns());
			pattern(a_rem.buf, len, seed);
			keep_max(&res.remote_mbs[i], rdma_mbs(&a_rem, peer.va, peer.rkey, len,
							      o->secs, "RDMA write, two processes"));
			memset(&m, 0, sizeof(m));
			m.arg0 = len;
			m.arg1 = seed;
			ctl_send(&m, CTL_CHECK);
			ctl_recv(&m, CTL_OK, WAIT_US / 1000);
		}
		for (i = 0; i < o->n_msgs; i++)
			keep_max(&res.rate[i], send_rate(&a_rem, o->msgs[i], o->secs));
		for (i = 0; i < o->n_lats; i++)
			keep_min(&res.lat_us[i], pingpong_us(&a_rem, o->lats[i], o->secs));
	}
	print_results(o, &res, a_loc.mtu < peer.mtu ? a_loc.mtu : peer.mtu);

	child_bye(chld);
	CHECK(ib_close_al(al));
	end_free(&a_loc);
	end_free(&b_loc);
	end_free(&a_rem);
	close(g_fd);
	return 0;
}

/* ---- Scale: several pairs of processes at once (-P) ---- */

#define MAX_PAIRS 8u

/*
 * One pair's parent (its child runs child_main): one CA, a QP to the child,
 * then, when the whole set is ready (a byte on @p ready_fd, then one read
 * from @p go_fd), RDMA writes of @p len bytes for o->secs; its MB/s go to
 * @p res_fd.
 */
static int pair_main(const opts_t *o, const sigset_t *chld, uint32_t len, int ready_fd, int go_fd,
		     int res_fd)
{
	ib_al_handle_t al;
	ib_ca_handle_t ca;
	ib_net64_t guid;
	size_t n = 1;
	end_t a;
	ctl_t peer;
	double mbs;
	char c = 'r';

	CHECK(ib_open_al(&al));
	CHECK(ib_get_ca_guids(al, &guid, &n));
	CHECK(ib_open_ca(al, guid, NULL, NULL, &ca));
	child_connect(&a, ca, len, 64, &peer);
	pattern(a.buf, len, 7);
	if (write(ready_fd, &c, 1) != 1 || read(go_fd, &c, 1) != 1)
		die("the scale run's start failed");
	mbs = rdma_mbs(&a, peer.va, peer.rkey, len, o->secs, "RDMA write, pairs at once");
	if (write(res_fd, &mbs, sizeof(mbs)) != (ssize_t)sizeof(mbs))
		die("reporting the result failed");
	child_bye(chld);
	CHECK(ib_close_al(al));
	end_free(&a);
	close(g_fd);
	return 0;
}

static int spawn_pair(const opts_t *o, const sigset_t *chld, const sigset_t *old_mask);

static int g_ready[2], g_go[2], g_res[2];

/*
 * -P: for each number of pairs, best of o->runs: that many pairs (each a
 * process and its child, all on the fabric directory) write at once for
 * o->secs, started together; the row is the sum of their bandwidths.
 */
static int scale_main(const opts_t *o, const sigset_t *chld, const sigset_t *old_mask)
{
	double best[MAX_SIZES], mbs, sum;
	uint32_t len = o->sizes[o->n_sizes - 1];
	pid_t pids[MAX_PAIRS];
	unsigned i, k, r;
	int st;
	char go[MAX_PAIRS], c;

	memset(go, 'g', sizeof(go));
	for (i = 0; i < o->n_pairs; i++) {
		best[i] = 0;
		for (r = 0; r < o->runs; r++) {
			if (pipe(g_ready) || pipe(g_go) || pipe(g_res))
				die("pipe: %s", strerror(errno));
			for (k = 0; k < o->pairs[i]; k++) {
				fflush(stdout);
				pids[k] = fork();
				if (pids[k] < 0)
					die("fork: %s", strerror(errno));
				if (pids[k] == 0)
					_exit(spawn_pair(o, chld, old_mask));
			}
			for (k = 0; k < o->pairs[i]; k++)
				if (test_oob_read(g_ready[0], &c, 1, (int)(WAIT_US / 1000)))
					die("pair %u of %u did not get ready", k + 1, o->pairs[i]);
			if (write(g_go[1], go, o->pairs[i]) != (ssize_t)o->pairs[i])
				die("starting the pairs failed");
			for (sum = 0, k = 0; k < o->pairs[i]; k++) {
				if (test_oob_read(g_res[0], &mbs, sizeof(mbs), (int)(WAIT_US / 1000)))
					die("a pair of %u gave no result", o->pairs[i]);
				sum += mbs;
			}
			for (k = 0; k < o->pairs[i]; k++)
				if (waitpid(pids[k], &st, 0) != pids[k] || !WIFEXITED(st) ||
				    WEXITSTATUS(st))
					die("a pair of %u failed", o->pairs[i]);
			close(g_ready[0]);
			close(g_ready[1]);
			close(g_go[0]);
			close(g_go[1]);
			close(g_res[0]);
			close(g_res[1]);
			keep_max(&best[i], sum);
		}
	}
	if (!o->parseable) {
		printf("# bench_soft -P: pairs of processes (a process and its child) each doing RC RDMA"
		       " writes at once on one soft fabric; best of %u run(s) of %.2f s\n",
		       o->runs, o->secs);
		printf("# aggregate = the sum of the pairs' bandwidths; ratio = aggregate / the first"
		       " row's; MB = 10^6 bytes\n");
		print_pages(NULL);
		printf("# %-22s\t%8s\t%12s\t%-5s\t%s\n", "test", "bytes", "aggregate", "unit",
		       "ratio");
	}
	for (i = 0; i < o->n_pairs; i++) {
		char row[32];

		snprintf(row, sizeof(row), "rdma_write_%u_pairs", o->pairs[i]);
		if (o->parseable)
			printf("%s %u %.3f MB/s\n", row, len, best[i]);
		else
			printf("%-24s\t%8u\t%12.2f\t%-5s\t%.3g\n", row, len, best[i], "MB/s",
			       best[0] > 0 ? best[i] / best[0] : 0.0);
	}
	return 0;
}

/* A pair for scale_main: forks the pair's child, then runs pair_main. */
static int spawn_pair(const opts_t *o, const sigset_t *chld, const sigset_t *old_mask)
{
	pid_t parent = getpid();
	int sv[2];

	close(g_ready[0]);
	close(g_go[1]);
	close(g_res[0]);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die("socketpair: %s", strerror(errno));
	g_fab_dir[0] = 0; /* the run's directory is the caller's to remove */
	fflush(stdout);
	g_child = fork();
	if (g_child < 0)
		die("fork: %s", strerror(errno));
	if (g_child == 0) {
		sigprocmask(SIG_SETMASK, old_mask, NULL);
		close(sv[0]);
		g_fd = sv[1];
		_exit(child_main(parent, o));
	}
	close(sv[1]);
	g_fd = sv[0];
	return pair_main(o, chld, o->sizes[o->n_sizes - 1], g_ready[1], g_go[0], g_res[1]);
}

/* ---- Memory per connected RC QP (-Q) ---- */

static void AL_API idle_cq_cb(const ib_cq_handle_t h_cq, void *context)
{
	(void)h_cq;
	(void)context;
}

/* Resident bytes of the process (/proc/self/statm), 0 if unknown. */
static size_t resident(void)
{
	unsigned long size, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu %lu", &size, &res) != 2)
			res = 0;
		fclose(f);
	}
	return (size_t)res * (size_t)sysconf(_SC_PAGESIZE);
}

/*
 * -Q N: N RC QPs on soft CA 0 connected to N on CA 1 (one process; 16 work
 * requests each way, 4 segments, as an application's QP), idle; the memory
 * they made resident, per QP: the heap's pages and the connections' arena
 * (prov_conn_mem.h), whose chunks the heap's count (mallinfo2) does not see.
 */
static int qp_memory_main(const opts_t *o)
{
	ib_al_handle_t al;
	ib_ca_handle_t ca[2];
	ib_net64_t guids[2];
	ib_pd_handle_t pd[2];
	ib_cq_handle_t cq[2];
	ib_qp_handle_t *qp;
	ib_qp_create_t qc;
	ib_qp_attr_t qa;
	ib_cq_create_t cc;
	ib_net16_t lid[2];
	uint8_t mtu[2];
	size_t n = 2, before, after;
	uint32_t i, k, nq = o->mem_qps;
	end_t e;

	setenv("IBAL_SOFT_CAS", "2", 1);
	CHECK(ib_open_al(&al));
	CHECK(ib_get_ca_guids(al, guids, &n));
	if (n < 2)
		die("two soft CAs wanted, %zu found", n);
	qp = (ib_qp_handle_t *)calloc(2 * (size_t)nq, sizeof(*qp));
	if (!qp)
		die("out of memory");
	for (k = 0; k < 2; k++) {
		CHECK(ib_open_ca(al, guids[k], NULL, NULL, &ca[k]));
		CHECK(ib_alloc_pd(ca[k], IB_PDT_NORMAL, NULL, &pd[k]));
		memset(&cc, 0, sizeof(cc));
		cc.size = 64;
		cc.pfn_comp_cb = idle_cq_cb;
		CHECK(ib_create_cq(ca[k], &cc, NULL, NULL, &cq[k]));
		port_info(ca[k], &lid[k], &mtu[k]);
	}
	before = resident();
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	qc.sq_depth = qc.rq_depth = 16;
	qc.sq_sge = qc.rq_sge = 4;
	qc.sq_signaled = TRUE;
	for (i = 0; i < 2 * nq; i++) {
		k = i % 2;
		qc.h_sq_cq = qc.h_rq_cq = cq[k];
		CHECK(ib_create_qp(pd[k], &qc, NULL, NULL, &qp[i]));
	}
	for (i = 0; i < 2 * nq; i++) {
		memset(&e, 0, sizeof(e));
		e.qp = qp[i];
		e.mtu = mtu[i % 2];
		e.psn = CL_HTON32(0x10);
		CHECK(ib_query_qp(qp[i ^ 1], &qa));
		qp_init(&e, TRUE);
		qp_connect(&e, lid[(i % 2) ^ 1], qa.num, e.psn, mtu[(i % 2) ^ 1]);
	}
	after = resident();
	if (o->parseable)
		printf("memory_per_rc_qp %u %.0f B\n", nq, (double)(after - before) / (2.0 * nq));
	else
		printf("# memory of an idle connected RC QP: resident bytes added by %u connected pairs,"
		       " per QP;"
		       " goal 8192 B\n%-24s\t%8u\t%12.0f\t%-5s\n", nq, "memory_per_rc_qp", nq,
		       (double)(after - before) / (2.0 * nq), "B");
	CHECK(ib_close_al(al));
	free(qp);
	return 0;
}

/* ---- Options and main ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench_soft [-s SIZES] [-m SIZES] [-l SIZES] [-t SECONDS] [-r RUNS] [-p] [-e] [-4]\n"
		"                  [-I BYTES] [-P PAIRS | -Q N]\n"
		"  -s SIZES    RDMA write (and memcpy) sizes, comma-separated, suffix k or m\n"
		"              for KiB/MiB, 1..64m (default 64,4k,64k,1m)\n"
		"  -m SIZES    message sizes of the send rate, %u..%u (default 8,64)\n"
		"  -l SIZES    message sizes of the ping-pong latency, %u..%u (default 8,64)\n"
		"  -I BYTES    ping-pong sends of up to BYTES are posted inline, as perftest's\n"
		"              ib_send_lat does (default %u; 0: none)\n"
		"  -t SECONDS  per measurement (default 0.3)\n"
		"  -r RUNS     runs; each row keeps its best (default 3)\n"
		"  -p          parseable output: only lines \"ROW BYTES VALUE UNIT\"\n"
		"  -e          the parent waits for completion events (a wait object)\n"
		"              instead of polling its CQ\n"
		"  -4          RDMA buffers on 4 KiB pages (default: transparent huge pages\n"
		"              asked for, as UCX's allocator prefers huge pages)\n"
		"  -P PAIRS    scale instead: for each number (1..8) that many pairs of\n"
		"              processes do RDMA writes of the last -s size at once;\n"
		"              rows give the sum of their bandwidths\n"
		"  -Q N        memory instead: resident bytes per idle connected RC QP, over N\n"
		"              connected pairs in this process (1..4096)\n"
		"  -h          this help\n"
		"Runs in a private soft fabric directory (IBAL_SOFT_FABRIC is set to it).\n",
		MIN_MSG, MAX_MSG, MIN_MSG, MAX_MSG, PP_INLINE);
}

/* Parses "64,4k,1m" into sizes[] (at most MAX_SIZES), each in lo..hi. */
static boolean_t parse_sizes(const char *arg, uint32_t lo, uint32_t hi, uint32_t *sizes,
			     unsigned *p_n)
{
	const char *p = arg;
	char *end;
	unsigned long long v;
	unsigned n = 0;

	for (;;) {
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || end == p || n == MAX_SIZES)
			return FALSE;
		if (*end == 'k' || *end == 'K') {
			v <<= 10;
			end++;
		} else if (*end == 'm' || *end == 'M') {
			v <<= 20;
			end++;
		}
		if (v < lo || v > hi)
			return FALSE;
		sizes[n++] = (uint32_t)v;
		if (!*end)
			break;
		if (*end != ',')
			return FALSE;
		p = end + 1;
	}
	*p_n = n;
	return TRUE;
}

int main(int argc, char **argv)
{
	opts_t o = { { 64, 4096, 64u << 10, 1u << 20 }, 4, { 8, 64 }, 2, { 8, 64 }, 2, 0.3, 3,
		     FALSE, { 0 }, 0, 0 };
	char *end;
	int opt, sv[2], rc;
	unsigned measurements;
	sigset_t chld, old_mask;
	pid_t parent = getpid();

	while ((opt = getopt(argc, argv, "s:m:l:t:r:I:P:Q:pe4h")) != -1) {
		switch (opt) {
		case 'I':
			g_inline = (uint32_t)strtoul(optarg, &end, 10);
			if (end == optarg || *end || g_inline > MAX_MSG)
				goto bad;
			break;
		case 'P':
			if (!parse_sizes(optarg, 1, MAX_PAIRS, o.pairs, &o.n_pairs))
				goto bad;
			break;
		case 'Q':
			o.mem_qps = (uint32_t)strtoul(optarg, &end, 10);
			if (end == optarg || *end || o.mem_qps < 1 || o.mem_qps > 4096)
				goto bad;
			break;
		case 'e':
			g_poll = FALSE;
			break;
		case '4':
			g_small_pages = TRUE;
			break;
		case 's':
			if (!parse_sizes(optarg, 1, MAX_RDMA, o.sizes, &o.n_sizes))
				goto bad;
			break;
		case 'm':
			if (!parse_sizes(optarg, MIN_MSG, MAX_MSG, o.msgs, &o.n_msgs))
				goto bad;
			break;
		case 'l':
			if (!parse_sizes(optarg, MIN_MSG, MAX_MSG, o.lats, &o.n_lats))
				goto bad;
			break;
		case 'p':
			o.parseable = TRUE;
			break;
		case 't':
			o.secs = strtod(optarg, &end);
			if (end == optarg || *end || !(o.secs >= 0.001 && o.secs <= 60))
				goto bad;
			break;
		case 'r':
			o.runs = (unsigned)strtoul(optarg, &end, 10);
			if (end == optarg || *end || o.runs < 1 || o.runs > 100)
				goto bad;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc)
		goto bad;

	/* A generous bound of the whole run: two minutes plus 5 s and twice
	 * the measured time per measurement. */
	measurements = o.runs * (3 * o.n_sizes + o.n_msgs + o.n_lats + o.n_pairs);
	g_limit_s = 120u + (unsigned)(measurements * (5.0 + 2 * o.secs));
	signal(SIGALRM, on_alarm);
	signal(SIGTERM, on_alarm);
	signal(SIGINT, on_alarm);
	alarm(g_limit_s);

	strcpy(g_fab_dir, "/tmp/ibal-benchsoft-XXXXXX");
	if (!mkdtemp(g_fab_dir)) {
		g_fab_dir[0] = 0;
		die("mkdtemp: %s", strerror(errno));
	}
	setenv("IBAL_SOFT_FABRIC", g_fab_dir, 1);
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die("socketpair: %s", strerror(errno));
	/* Blocked in the parent and every thread it starts: reap_child() waits for it. */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old_mask);
	if (o.n_pairs || o.mem_qps) {
		close(sv[0]);
		close(sv[1]);
		rc = o.mem_qps ? qp_memory_main(&o) : scale_main(&o, &chld, &old_mask);
		rm_tree(g_fab_dir);
		return rc;
	}
	fflush(stdout);
	g_child = fork();
	if (g_child < 0)
		die("fork: %s", strerror(errno));
	if (g_child == 0) {
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		close(sv[0]);
		g_fd = sv[1];
		_exit(child_main(parent, &o));
	}
	close(sv[1]);
	g_fd = sv[0];
	rc = parent_main(&o, &chld);
	rm_tree(g_fab_dir);
	return rc;

bad:
	usage(stderr);
	return 2;
}
