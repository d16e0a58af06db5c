/*
 * ibal ulp: the access-layer demo - an RC connection between two processes on the soft fabric.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A server and a client each open the access layer, a CA, a PD, CQs, an RC
 * QP and two memory regions. The server listens on a service ID
 * (ib_cm_listen) and tells the client, over an out-of-band Unix socket, its
 * LID and that service ID. The client resolves the path through the SA
 * (ib_query, PathRecord by LIDs) and connects through the connection
 * manager: ib_cm_req, the server's ib_cm_rep (its receives posted with it),
 * the client's ib_cm_rtu. The CM negotiates what the QPs need (QPNs,
 * starting PSNs, path MTU, RDMA read resources) and takes both QPs to RTS;
 * the REQ's and the REP's private data carry each side's RDMA buffer
 * (address, length, R_Key). On that connection the client
 * measures send/receive ping-pong latency, the rate of a stream of small
 * sends, RDMA write bandwidth (the server checks the bytes) and RDMA read
 * bandwidth (the client checks them), and prints a table.
 *
 * The socket then only paces the steps (stream done, buffer checked, ...).
 * At the end the client disconnects with ib_cm_dreq and the server answers
 * ib_cm_drep.
 *
 * The server's single CQ reports through a completion callback that echoes
 * pings and checks the stream; the client's two CQs share a wait object.
 * Every wait is bounded by the run's deadline; no step sleeps.
 *
 *   ibal_demo                    fork a server and a client and run both
 *   ibal_demo --server PATH      serve one client through the socket PATH
 *   ibal_demo --client PATH      connect to the server listening at PATH
 *
 * The fabric directory is $IBAL_SOFT_FABRIC, else the soft provider's default.
 * Exit status 0 only if every check passed.
 *
 * This file has the options, the control channel, the patterns, a side's
 * resources, the server and the processes; demo_cm.c the connection through
 * the CM, demo_client.c the client's measurements; demo.h what they share.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include <complib/comp_lib.h>
#include "ibal_cmdline.h"
#include "demo.h"

/* ---- Options and time ---- */

uint64_t deadline_ns;

/* Microseconds left before the deadline (0 once it passed). */
uint64_t left_us(void)
{
	uint64_t t = now_ns();

	return t >= deadline_ns ? 0 : (deadline_ns - t) / 1000u;
}

static boolean_t fail_v(side_t *s, const char *fmt, va_list ap)
{
	char msg[sizeof(s->err)];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (!s->closing)
		fprintf(stderr, "%s: %s\n", s->name, msg);
	if (!s->err[0])
		snprintf(s->err, sizeof(s->err), "%s", msg);
	return FALSE;
}

/* Records and prints a failure; returns FALSE for `return fail(...)`. */
boolean_t fail(side_t *s, const char *fmt, ...)
{
	va_list ap;
	boolean_t r;

	va_start(ap, fmt);
	r = fail_v(s, fmt, ap);
	va_end(ap);
	return r;
}

/* Checks an access-layer status. */
boolean_t ok(side_t *s, ib_api_status_t st, const char *what)
{
	if (st == IB_SUCCESS)
		return TRUE;
	return fail(s, "%s failed: %s", what, ib_get_err_str(st));
}

boolean_t oob_send(side_t *s, uint32_t type, uint64_t arg0, uint64_t arg1)
{
	oob_msg_t m;
	size_t done = 0;
	ssize_t n;
	struct pollfd p = { s->fd, POLLOUT, 0 };

	if (type == OOB_HELLO) {
		m = s->me;   /* the port and service ID; the rest goes through the CM */
		m.qpn = m.psn = m.rkey = 0;
		m.va = m.len = 0;
	} else {
		memset(&m, 0, sizeof(m));
		if (type == OOB_ERROR)
			snprintf(m.text, sizeof(m.text), "%s", s->err);
	}
	m.magic = MAGIC;
	m.type = type;
	m.arg0 = arg0;
	m.arg1 = arg1;
	while (done < sizeof(m)) {
		if (poll(&p, 1, (int)(left_us() / 1000u)) <= 0)
			return fail(s, "control channel: the peer does not take messages");
		n = send(s->fd, (char *)&m + done, sizeof(m) - done, MSG_NOSIGNAL);
		if (n < 0 && errno != EINTR && errno != EAGAIN) {
			s->peer_failed = TRUE;
			return fail(s, "control channel: %s", strerror(errno));
		}
		done += n > 0 ? (size_t)n : 0;
	}
	return TRUE;
}

/*
 * Reads one message. wait_us bounds the wait (0: only if one is there);
 * *p_got is FALSE when none came in that time. An OOB_ERROR or a hang-up of
 * the peer is a failure.
 */
static boolean_t oob_read(side_t *s, oob_msg_t *m, uint64_t wait_us, boolean_t *p_got)
{
	size_t done = 0;
	ssize_t n;
	struct pollfd p = { s->fd, POLLIN, 0 };

	*p_got = FALSE;
	if (poll(&p, 1, (int)(wait_us / 1000u)) <= 0)
		return TRUE;
	while (done < sizeof(*m)) {
		n = recv(s->fd, (char *)m + done, sizeof(*m) - done, 0);
		if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
			s->peer_failed = TRUE;
			return fail(s, "control channel: the peer hung up (it failed or was killed)");
		}
		done += n > 0 ? (size_t)n : 0;
		if (done < sizeof(*m) && poll(&p, 1, (int)(left_us() / 1000u)) <= 0)
			return fail(s, "control channel: a message was cut short");
	}
	if (m->magic != MAGIC)
		return fail(s, "control channel: not an ibal_demo peer");
	if (m->type == OOB_ERROR) {
		s->peer_failed = TRUE;
		m->text[sizeof(m->text) - 1] = 0;
		return fail(s, "the peer failed: %s", m->text);
	}
	*p_got = TRUE;
	return TRUE;
}

/* Server: reports a failure the completion callback recorded, if any. */
boolean_t cb_check(side_t *s)
{
	char msg[sizeof(s->cb_err)];
	boolean_t failed;

	if (!s->server)
		return TRUE;
	cl_spinlock_acquire(&s->lock);
	failed = s->cb_failed;
	memcpy(msg, s->cb_err, sizeof(msg));
	cl_spinlock_release(&s->lock);
	return failed ? fail(s, "%s", msg) : TRUE;
}

/* Waits (bounded by the deadline) for the next message, of any type. */
static boolean_t oob_next(side_t *s, oob_msg_t *m)
{
	boolean_t got = FALSE;

	while (!got) {
		if (!left_us())
			return fail(s, "the peer did not answer within the %u s limit of the run",
				    s->o->timeout_s);
		if (!oob_read(s, m, left_us() < SLICE_US ? left_us() : SLICE_US, &got) ||
		    !cb_check(s))
			return FALSE;
	}
	return TRUE;
}

/* Waits (bounded by the deadline) for a message of the given type. */
boolean_t oob_expect(side_t *s, oob_msg_t *m, uint32_t type)
{
	if (!oob_next(s, m))
		return FALSE;
	if (m->type != type)
		return fail(s, "control channel: message %u where %u was due", m->type, type);
	return TRUE;
}

/* Between waits: a message from the peer now can only be a failure. */
boolean_t peer_check(side_t *s)
{
	oob_msg_t m;
	boolean_t got;
	ssize_t n;
	struct pollfd p = { s->fd, POLLIN, 0 };

	if (poll(&p, 1, 0) <= 0)
		return TRUE;
	/* A message the peer sent ahead of our wait (its READY may come before
	 * our CM callback does) stays queued for the step that expects it; only
	 * an error report or a hang-up is read here. */
	n = recv(s->fd, &m, sizeof(m), MSG_PEEK | MSG_DONTWAIT);
	if (n == (ssize_t)sizeof(m) && m.magic == MAGIC && m.type != OOB_ERROR)
		return TRUE;
	if (n > 0 && n < (ssize_t)sizeof(m))
		return TRUE; /* the rest is on its way */
	if (!oob_read(s, &m, 0, &got))
		return FALSE;
	if (got)
		return fail(s, "control channel: unexpected message %u", m.type);
	return TRUE;
}

/* ---- Patterns ---- */

uint64_t mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

void pattern_fill(uint8_t *p, uint64_t len, uint64_t seed)
{
	uint64_t i, w;

	for (i = 0; i < len; i += 8) {
		w = mix(seed ^ (i >> 3));
		memcpy(p + i, &w, len - i < 8 ? len - i : 8);
	}
}

/* The offset of the first byte that differs from the pattern, or len. */
uint64_t pattern_check(const uint8_t *p, uint64_t len, uint64_t seed)
{
	uint64_t i, j, w;

	for (i = 0; i < len; i += 8) {
		w = mix(seed ^ (i >> 3));
		if (memcmp(p + i, &w, len - i < 8 ? len - i : 8))
			for (j = 0; j < 8 && i + j < len; j++)
				if (p[i + j] != ((uint8_t *)&w)[j])
					return i + j;
	}
	return len;
}

/* A small message: kind, sequence number, then bytes derived from both. */
void msg_fill(uint8_t *p, uint32_t len, uint32_t kind, uint32_t seq)
{
	uint32_t i;

	memcpy(p, &kind, 4);
	memcpy(p + 4, &seq, 4);
	for (i = 8; i < len; i++)
		p[i] = (uint8_t)(seq * 7u + i);
}

boolean_t msg_good(const uint8_t *p, uint32_t len, uint32_t kind, uint32_t seq)
{
	uint32_t k, q, i;

	if (len < 8)
		return FALSE;
	memcpy(&k, p, 4);
	memcpy(&q, p + 4, 4);
	if (k != kind || q != seq)
		return FALSE;
	for (i = 8; i < len; i++)
		if (p[i] != (uint8_t)(seq * 7u + i))
			return FALSE;
	return TRUE;
}

/* ---- Verbs helpers ---- */

ib_api_status_t post_recv_slot(side_t *s, uint32_t i)
{
	ib_local_ds_t ds;
	ib_recv_wr_t wr;

	ds.vaddr = (uintptr_t)recv_slot(s, i);
	ds.length = SLOT;
	ds.lkey = s->slot_lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = i;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	return ib_post_recv(s->qp, &wr, NULL);
}

/* Fills one send WR (with its data segment) for a send of a slot or an RDMA op. */
void make_wr(ib_send_wr_t *wr, ib_local_ds_t *ds, ib_wr_type_t type, uint64_t wr_id,
	     const void *addr, uint32_t len, net32_t lkey)
{
	ds->vaddr = (uintptr_t)addr;
	ds->length = len;
	ds->lkey = lkey;
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->wr_type = type;
	wr->send_opt = IB_SEND_OPT_SIGNALED;
	wr->num_ds = 1;
	wr->ds_array = ds;
}

static void AL_API on_async_event(ib_async_event_rec_t *p_rec)
{
	side_t *s = (side_t *)p_rec->context;

	fprintf(stderr, "%s: asynchronous event %s\n", s->name, ib_get_async_event_str(p_rec->code));
}

/*
 * Server, completion callback. It is the only writer of the counters and of
 * cb_failed (the callbacks of one CQ never run concurrently), and writes
 * them under s->lock because the main thread reads them.
 */
static void cb_fail(side_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cb_fail(side_t *s, const char *fmt, ...)
{
	va_list ap;

	cl_spinlock_acquire(&s->lock);
	va_start(ap, fmt);
	vsnprintf(s->cb_err, sizeof(s->cb_err), fmt, ap);
	va_end(ap);
	s->cb_failed = TRUE;
	cl_spinlock_release(&s->lock);
	cl_event_signal(&s->ev);
}

static void cb_count(side_t *s, uint32_t *p_count, boolean_t wake)
{
	cl_spinlock_acquire(&s->lock);
	(*p_count)++;
	wake = wake || (p_count == &s->n_stream && s->want && s->n_stream >= s->want);
	cl_spinlock_release(&s->lock);
	if (wake)
		cl_event_signal(&s->ev);
}

/* Server: handles one completion: echoes a ping, counts the stream and WDONEs. */
static boolean_t server_wc(side_t *s, const ib_wc_t *wc)
{
	uint8_t *p;
	uint32_t seq;
	ib_send_wr_t wr;
	ib_local_ds_t ds;
	ib_api_status_t st = IB_SUCCESS;

	if (wc->status == IB_WCS_WR_FLUSHED_ERR) {
		boolean_t bye;

		cl_spinlock_acquire(&s->lock);
		bye = s->bye;
		cl_spinlock_release(&s->lock);
		if (bye)
			return TRUE;   /* the disconnection flushes the receives left */
	}
	if (wc->status != IB_WCS_SUCCESS) {
		cb_fail(s, "%s completion failed: %s", ib_get_wc_type_str(wc->wc_type),
			ib_get_wc_status_str(wc->status));
		return FALSE;
	}
	if (wc->wc_type != IB_WC_RECV)
		return TRUE;   /* a pong or the 'read ready' went out */
	p = recv_slot(s, (uint32_t)wc->wr_id);
	memcpy(&seq, p + 4, 4);
	if (msg_good(p, wc->length, KIND_PING, s->n_ping)) {
		/* Echo: the same bytes back, from a send slot (the last is not for pongs). */
		seq %= s->n_send - 1;
		memcpy(send_slot(s, seq), p, wc->length);
		make_wr(&wr, &ds, WR_SEND, seq, send_slot(s, seq), wc->length, s->slot_lkey);
		st = ib_post_send(s->qp, &wr, NULL);
		cb_count(s, &s->n_ping, FALSE);
	} else if (msg_good(p, wc->length, KIND_STREAM, s->n_stream)) {
		cb_count(s, &s->n_stream, FALSE);
	} else if (msg_good(p, wc->length, KIND_WDONE, s->n_wdone)) {
		/* RC executes in order: the client's RDMA writes before it are in memory. */
		cb_count(s, &s->n_wdone, TRUE);
	} else {
		cb_fail(s, "message %u (%u bytes) out of order or damaged", seq, wc->length);
		return FALSE;
	}
	if (st == IB_SUCCESS)
		st = post_recv_slot(s, (uint32_t)wc->wr_id);
	if (st != IB_SUCCESS) {
		cb_fail(s, "posting from the completion callback failed: %s", ib_get_err_str(st));
		return FALSE;
	}
	return TRUE;
}

/* Server: the completion callback drains the CQ, rearms it, drains again. */
static void AL_API server_cq_cb(const ib_cq_handle_t h_cq, void *context)
{
	side_t *s = (side_t *)context;
	ib_wc_t wcs[16], *free_l, *done, *w;
	boolean_t rearmed = FALSE;
	ib_api_status_t st;
	unsigned i;

	for (;;) {
		for (i = 0; i < 16; i++)
			wcs[i].p_next = i + 1 < 16 ? &wcs[i + 1] : NULL;
		free_l = wcs;
		st = ib_poll_cq(h_cq, &free_l, &done);
		if (st == IB_NOT_FOUND && !rearmed) {
			/* Rearm, then poll once more for what came meanwhile. */
			st = ib_rearm_cq(h_cq, FALSE);
			rearmed = TRUE;
			if (st == IB_SUCCESS)
				continue;
		}
		if (st == IB_NOT_FOUND)
			return;
		if (st != IB_SUCCESS) {
			cb_fail(s, "polling or rearming the CQ failed: %s", ib_get_err_str(st));
			return;
		}
		rearmed = FALSE;
		for (w = done; w; w = w->p_next)
			if (!server_wc(s, w))
				return;   /* the main thread reports it */
	}
}

/* Opens the access layer and the first CA, and reads its port 1 and limits. */
static boolean_t open_ca(side_t *s)
{
	ib_net64_t *guids;
	size_t n = 0;
	uint32_t size = 0;
	ib_ca_attr_t *attr;
	ib_port_attr_t *pa;
	ib_api_status_t st;

	if (!ok(s, ib_open_al(&s->al), "ib_open_al"))
		return FALSE;
	/* The number of CAs first, then their GUIDs; the first CA will do. */
	if (ib_get_ca_guids(s->al, NULL, &n) != IB_INSUFFICIENT_MEMORY || !n)
		return fail(s, "no channel adapter found");
	if (!(guids = calloc(n, sizeof(*guids))))
		return fail(s, "out of memory");
	st = ib_get_ca_guids(s->al, guids, &n);
	if (st == IB_SUCCESS)
		st = ib_open_ca(s->al, guids[0], on_async_event, s, &s->ca);
	free(guids);
	if (!ok(s, st, "opening the CA"))
		return FALSE;
	if (ib_query_ca(s->ca, NULL, &size) != IB_INSUFFICIENT_MEMORY || !(attr = calloc(1, size)))
		return fail(s, "ib_query_ca gave no size");
	st = ib_query_ca(s->ca, attr, &size);
	if (st == IB_SUCCESS && attr->num_ports) {
		pa = &attr->p_port_attr[0];
		s->me.port_guid = pa->port_guid;
		s->me.lid = pa->lid;
		s->me.mtu = pa->mtu;
		s->me.rd_atom = attr->max_qp_resp_res;
		s->max_init_depth = attr->max_qp_init_depth;
	}
	free(attr);
	if (!ok(s, st, "ib_query_ca"))
		return FALSE;
	if (!s->me.lid)
		return fail(s, "port 1 of the CA has no LID");
	return TRUE;
}

/* The PD, the CQs (server: one, with a callback; client: two, one wait object) and the QP. */
static boolean_t make_qp(side_t *s)
{
	ib_cq_create_t cc;
	ib_qp_create_t qc;
	ib_qp_attr_t qa;

	if (!ok(s, ib_alloc_pd(s->ca, IB_PDT_NORMAL, s, &s->pd), "ib_alloc_pd"))
		return FALSE;
	memset(&cc, 0, sizeof(cc));
	if (s->server) {
		cc.size = SRV_RECV_SLOTS + SRV_SEND_SLOTS;
		cc.pfn_comp_cb = server_cq_cb;
		if (!ok(s, ib_create_cq(s->ca, &cc, s, on_async_event, &s->rcq), "ib_create_cq"))
			return FALSE;
		s->scq = s->rcq;
		s->n_recv = SRV_RECV_SLOTS;
		s->n_send = SRV_SEND_SLOTS;
	} else {
		if (cl_waitobj_create(FALSE, &s->wo) != CL_SUCCESS)
			return fail(s, "cl_waitobj_create failed");
		cc.h_wait_obj = s->wo;
		cc.size = WINDOW;
		if (!ok(s, ib_create_cq(s->ca, &cc, s, on_async_event, &s->scq), "ib_create_cq"))
			return FALSE;
		cc.size = CLI_RECV_SLOTS;
		if (!ok(s, ib_create_cq(s->ca, &cc, s, on_async_event, &s->rcq), "ib_create_cq"))
			return FALSE;
		s->n_recv = CLI_RECV_SLOTS;
		s->n_send = WINDOW;
	}

	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	qc.sq_depth = s->n_send;
	qc.rq_depth = s->n_recv;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = s->scq;
	qc.h_rq_cq = s->rcq;
	qc.sq_signaled = FALSE;   /* each WR says whether it wants a completion */
	if (!ok(s, ib_create_qp(s->pd, &qc, s, on_async_event, &s->qp), "ib_create_qp (RC)") ||
	    !ok(s, ib_query_qp(s->qp, &qa), "ib_query_qp"))
		return FALSE;
	s->me.qpn = qa.num;
	return TRUE;
}

/* The RDMA buffer (the server's open to remote writes and reads) and the message slots. */
static boolean_t make_mrs(side_t *s)
{
	ib_mr_create_t mc;
	net32_t rkey;

	s->rdma_len = s->o->rdma_len;
	if (posix_memalign((void **)&s->rdma, 4096, s->rdma_len) ||
	    posix_memalign((void **)&s->slots, 4096, (size_t)(s->n_recv + s->n_send) * SLOT))
		return fail(s, "out of memory for %" PRIu64 " bytes", s->rdma_len);
	memset(s->rdma, 0, s->rdma_len);
	mc.vaddr = s->rdma;
	mc.length = s->rdma_len;
	mc.access_ctrl = IB_AC_LOCAL_WRITE | (s->server ? IB_AC_RDMA_READ | IB_AC_RDMA_WRITE : 0);
	if (!ok(s, ib_reg_mem(s->pd, &mc, &s->rdma_lkey, &s->rdma_rkey, &s->rdma_mr),
		"ib_reg_mem (RDMA buffer)"))
		return FALSE;
	mc.vaddr = s->slots;
	mc.length = (uint64_t)(s->n_recv + s->n_send) * SLOT;
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	if (!ok(s, ib_reg_mem(s->pd, &mc, &s->slot_lkey, &rkey, &s->slot_mr),
		"ib_reg_mem (message slots)"))
		return FALSE;
	s->me.rkey = s->rdma_rkey;
	s->me.va = (uintptr_t)s->rdma;
	s->me.len = s->rdma_len;
	s->me.pid = (uint32_t)getpid();
	s->me.psn = cl_hton32((uint32_t)mix(now_ns() ^ (uint64_t)getpid()) & 0xFFFFFFu);
	return TRUE;
}

boolean_t side_open(side_t *s)
{
	return open_ca(s) && make_qp(s) && make_mrs(s);
}

static void side_close(side_t *s)
{
	if (s->al && ib_close_al(s->al) != IB_SUCCESS)
		fprintf(stderr, "%s: ib_close_al failed\n", s->name);
	s->al = NULL;
	if (s->wo)
		cl_waitobj_destroy(s->wo);
	free(s->rdma);
	free(s->slots);
}

/* ---- Server ---- */

/* Waits until the callback has counted n in *p_count (stream messages or WDONEs). */
static boolean_t server_wait(side_t *s, const uint32_t *p_count, uint32_t n, const char *what)
{
	uint32_t got;

	cl_spinlock_acquire(&s->lock);
	if (p_count == &s->n_stream)
		s->want = n;
	cl_spinlock_release(&s->lock);
	for (;;) {
		cl_spinlock_acquire(&s->lock);
		got = *p_count;
		cl_spinlock_release(&s->lock);
		if (got >= n)
			return TRUE;
		if (!cb_check(s))
			return FALSE;
		if (!left_us())
			return fail(s, "%s: %u of %u arrived within the %u s limit", what, got, n,
				    s->o->timeout_s);
		cl_event_wait_on(&s->ev, left_us() < SLICE_US ? (uint32_t)left_us() : SLICE_US, FALSE);
		if (!peer_check(s))
			return FALSE;
	}
}

/* Fills the buffer for the client's reads and says so on the QP. */
static boolean_t server_read_prep(side_t *s, uint64_t len, uint64_t seed)
{
	uint8_t *p = send_slot(s, s->n_send - 1);
	ib_send_wr_t wr;
	ib_local_ds_t ds;

	if (len > s->rdma_len)
		return fail(s, "the client wants to read past the buffer");
	pattern_fill(s->rdma, len, seed);
	/* The send is ordered after the fill (and the HCA sees both in that order). */
	msg_fill(p, 16, KIND_RREADY, 0);
	make_wr(&wr, &ds, WR_SEND, UINT32_MAX, p, 16, s->slot_lkey);
	return ok(s, ib_post_send(s->qp, &wr, NULL), "ib_post_send (read ready)");
}

static boolean_t server_serve(side_t *s)
{
	oob_msg_t m;
	uint64_t off;

	if (!side_open(s) || !cm_listen(s) || !hello(s) ||
	    !ok(s, ib_rearm_cq(s->rcq, FALSE), "ib_rearm_cq") || !server_accept(s))
		return FALSE;
	if (!s->quiet) {
		printf("server: connected to pid %u (LID 0x%04x, QPN 0x%06x)\n", s->peer.pid,
		       cl_ntoh16(s->peer.lid), cl_ntoh32(s->peer.qpn));
	}
	if (!oob_send(s, OOB_READY, 0, 0))
		return FALSE;
	for (;;) {
		if (!oob_next(s, &m))
			return FALSE;
		switch (m.type) {
		case OOB_STREAM_END:
			if (!server_wait(s, &s->n_stream, (uint32_t)m.arg0, "stream messages") ||
			    !oob_send(s, OOB_STREAM_OK, s->n_stream, s->n_ping))
				return FALSE;
			break;
		case OOB_WRITE_DONE:
			if (m.arg0 > s->rdma_len)
				return fail(s, "the client wrote past the buffer");
			if (!server_wait(s, &s->n_wdone, 1, "the send after the RDMA writes"))
				return FALSE;
			off = pattern_check(s->rdma, m.arg0, m.arg1);
			if (off != m.arg0)
				return fail(s, "RDMA write: byte %" PRIu64 " of %" PRIu64 " differs", off,
					    m.arg0);
			if (!s->quiet)
				printf("server: RDMA write of %" PRIu64 " bytes verified\n", m.arg0);
			if (!oob_send(s, OOB_WRITE_OK, m.arg0, 0))
				return FALSE;
			break;
		case OOB_READ_PREP:
			if (!server_read_prep(s, m.arg0, m.arg1))
				return FALSE;
			break;
		case OOB_BYE:
			if (!s->quiet)
				printf("server: %u pings echoed, %u stream messages in order\n", s->n_ping,
				       s->n_stream);
			/* The client disconnects next; the DREQ callback answers it. */
			cl_spinlock_acquire(&s->lock);
			s->bye = TRUE;
			cl_spinlock_release(&s->lock);
			return oob_send(s, OOB_BYE, 0, 0) &&
			       cm_wait(s, CM_EV_DREQ, "waiting for the client's DREQ");
		default:
			return fail(s, "control channel: unexpected message %u", m.type);
		}
	}
}

/* ---- Processes ---- */

/* Runs one side on the connected control socket fd; returns the exit status. */
static int run_side(boolean_t server, int fd, const opts_t *o, boolean_t quiet)
{
	side_t s;
	boolean_t good;

	memset(&s, 0, sizeof(s));
	s.name = server ? "server" : "client";
	s.server = server;
	s.quiet = quiet;
	s.o = o;
	s.fd = fd;
	if (server)   /* a grace period, so that the client reports a timeout first */
		deadline_ns += 2000000000u;
	cl_spinlock_construct(&s.lock);
	cl_event_construct(&s.ev);
	if (cl_spinlock_init(&s.lock) != CL_SUCCESS || cl_event_init(&s.ev, FALSE) != CL_SUCCESS) {
		fprintf(stderr, "%s: complib init failed\n", s.name);
		return 1;
	}
	good = server ? server_serve(&s) : client_run(&s);
	if (!good && !s.peer_failed) {
		s.closing = TRUE;
		oob_send(&s, OOB_ERROR, 0, 0);   /* best effort: tell the peer why */
	}
	side_close(&s);
	close(fd);
	cl_event_destroy(&s.ev);
	cl_spinlock_destroy(&s.lock);
	return good ? 0 : 1;
}

/* --server PATH: listen on PATH (made visible atomically), take one client. */
static int listen_path(const char *path)
{
	struct sockaddr_un a;
	char tmp[sizeof(a.sun_path)];
	struct pollfd p;
	int lfd, fd = -1;

	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	if (snprintf(tmp, sizeof(tmp), "%s.%u", path, (unsigned)getpid()) >= (int)sizeof(tmp)) {
		fprintf(stderr, "server: socket path too long: %s\n", path);
		return -1;
	}
	memcpy(a.sun_path, tmp, strlen(tmp) + 1);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	unlink(tmp);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1) ||
	    rename(tmp, path)) {
		fprintf(stderr, "server: cannot listen on %s: %s\n", path, strerror(errno));
		unlink(tmp);
		if (lfd >= 0)
			close(lfd);
		return -1;
	}
	printf("server: waiting for a client on %s\n", path);
	p.fd = lfd;
	p.events = POLLIN;
	if (poll(&p, 1, (int)(left_us() / 1000u)) > 0)
		fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		fprintf(stderr, "server: no client came to %s in time\n", path);
	unlink(path);
	close(lfd);
	return fd;
}

/* --client PATH: connect, waiting (inotify, bounded) for the server to appear. */
static int connect_path(const char *path)
{
	struct sockaddr_un a;
	char dir[PATH_MAX], buf[4096];
	char *slash;
	struct pollfd p;
	int fd, ino, err;

	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a.sun_path) || strlen(path) >= sizeof(dir)) {
		fprintf(stderr, "client: socket path too long: %s\n", path);
		return -1;
	}
	memcpy(a.sun_path, path, strlen(path) + 1);
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = 0;          /* a socket in / */
	else
		*slash = 0;
	ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (ino >= 0 && inotify_add_watch(ino, dir, IN_CREATE | IN_MOVED_TO) < 0) {
		close(ino);
		ino = -1;
	}
	for (;;) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a)))
			break;
		err = errno;
		if (fd >= 0)
			close(fd);
		fd = -1;
		if ((err != ENOENT && err != ECONNREFUSED) || ino < 0 || !left_us()) {
			fprintf(stderr, "client: cannot connect to %s: %s\n", path,
				left_us() ? strerror(err) : "no server came in time");
			break;
		}
		p.fd = ino;
		p.events = POLLIN;
		if (poll(&p, 1, (int)(left_us() / 1000u)) > 0)
			while (read(ino, buf, sizeof(buf)) > 0)
				;
	}
	if (ino >= 0)
		close(ino);
	return fd;
}

/* Waits (bounded) for both children; kills what is left at the deadline. */
static int reap(pid_t pid[2], const sigset_t *chld, uint32_t timeout_s)
{
	int status[2] = { -1, -1 }, i, left = 2, st;
	struct timespec ts;
	uint64_t us;
	pid_t w;

	while (left) {
		while ((w = waitpid(-1, &st, WNOHANG)) > 0)
			for (i = 0; i < 2; i++)
				if (w == pid[i]) {
					status[i] = st;
					pid[i] = 0;
					left--;
				}
		if (!left || !(us = left_us()))
			break;
		ts.tv_sec = (time_t)(us / 1000000u);
		ts.tv_nsec = (long)(us % 1000000u) * 1000;
		sigtimedwait(chld, NULL, &ts);
	}
	for (i = 0; i < 2; i++)
		if (pid[i]) {
			fprintf(stderr, "ibal_demo: the %s did not finish within %u s; killing it\n",
				i ? "client" : "server", timeout_s);
			kill(pid[i], SIGKILL);
			waitpid(pid[i], &status[i], 0);
			status[i] = -1;
		}
	for (i = 0; i < 2; i++) {
		if (status[i] == 0 || status[i] == -1)
			continue;
		if (WIFSIGNALED(status[i]))
			fprintf(stderr, "ibal_demo: the %s died of signal %d\n", i ? "client" : "server",
				WTERMSIG(status[i]));
		else
			fprintf(stderr, "ibal_demo: the %s exited with status %d\n",
				i ? "client" : "server", WEXITSTATUS(status[i]));
	}
	return status[0] == 0 && status[1] == 0 ? 0 : 1;
}

/* No options: a server and a client as two children on a socket pair. */
static int run_both(const opts_t *o)
{
	sigset_t chld, old;
	pid_t pid[2];
	int sv[2], i, rc;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		perror("ibal_demo: socketpair");
		return 1;
	}
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			sigprocmask(SIG_SETMASK, &old, NULL);
			close(sv[1 - i]);
			deadline_ns = now_ns() + (uint64_t)o->timeout_s * 1000000000u;
			_exit(run_side(i == 0, sv[i], o, i == 0));
		}
		if (pid[i] < 0) {
			perror("ibal_demo: fork");
			if (i)
				kill(pid[0], SIGKILL);
			return 1;
		}
	}
	close(sv[0]);
	close(sv[1]);
	/* The children time out first and say why; this is the backstop. */
	deadline_ns = now_ns() + ((uint64_t)o->timeout_s + 10u) * 1000000000u;
	rc = reap(pid, &chld, o->timeout_s + 10u);
	printf("%s\n", rc ? "demo FAILED" : "demo OK");
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ibal_demo [--server PATH | --client PATH] [options]\n"
		"  (no mode)       fork a server and a client connected by a socket pair\n"
		"  --server PATH   serve one client through the Unix socket PATH\n"
		"  --client PATH   connect to the server at PATH\n"
		"  --pings N       measured ping-pong round trips (default 1000)\n"
		"  --messages N    messages of the send stream (default 50000)\n"
		"  --msg-size B    bytes per stream message, 8..%u (default 64)\n"
		"  --size B        bytes of the RDMA buffers, 1 KiB..1 GiB (default 8 MiB)\n"
		"  --timeout S     limit of the whole run in seconds (default 60)\n"
		"The soft fabric directory is $IBAL_SOFT_FABRIC or the provider's default.\n",
		SLOT);
}

static boolean_t parse_num(const char *arg, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || v < lo || v > hi)
		return FALSE;
	*out = v;
	return TRUE;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "server", required_argument, NULL, 's' }, { "client", required_argument, NULL, 'c' },
		{ "pings", required_argument, NULL, 'p' },  { "messages", required_argument, NULL, 'm' },
		{ "msg-size", required_argument, NULL, 'l' }, { "size", required_argument, NULL, 'b' },
		{ "timeout", required_argument, NULL, 't' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	opts_t o = { 1000, 50000, 64, 8u << 20, 60 };
	const char *server = NULL, *client = NULL;
	uint64_t v;
	int c, li, fd, rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	opterr = 0;
	while ((li = -1, c = getopt_long(argc, argv, ":s:c:p:m:l:b:t:h", longopts, &li)) != -1) {
		switch (c) {
		case 's': server = optarg; continue;
		case 'c': client = optarg; continue;
		case 'h': usage(stdout); return 0;
		case 'p': if (parse_num(optarg, 1, 10000000, &v)) { o.pings = (uint32_t)v; continue; } break;
		case 'm': if (parse_num(optarg, 1, 1000000000, &v)) { o.msgs = (uint32_t)v; continue; } break;
		case 'l': if (parse_num(optarg, 8, SLOT, &v)) { o.msg_len = (uint32_t)v; continue; } break;
		case 'b': if (parse_num(optarg, 1024, 1u << 30, &v)) { o.rdma_len = v; continue; } break;
		case 't': if (parse_num(optarg, 1, 86400, &v)) { o.timeout_s = (uint32_t)v; continue; } break;
		default: break;
		}
		return ibal_cmdline_error("ibal_demo", c, longopts, li, argv);
	}
	if (optind < argc)
		return ibal_cmdline_extra("ibal_demo", argv[optind]);
	if (server && client)
		return ibal_cmdline_bad("ibal_demo", "--server and --client exclude each other");
	if (!server && !client)
		return run_both(&o);
	deadline_ns = now_ns() + (uint64_t)o.timeout_s * 1000000000u;
	fd = server ? listen_path(server) : connect_path(client);
	rc = fd < 0 ? 1 : run_side(server != NULL, fd, &o, FALSE);
	printf("%s\n", rc ? "demo FAILED" : "demo OK");
	return rc;
}
