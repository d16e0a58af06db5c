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

#define SLOT 256u               /* bytes of one message slot */
#define SRV_RECV_SLOTS 512u     /* server receive queue: pings and the stream */
#define SRV_SEND_SLOTS 64u      /* server send queue: pongs */
#define CLI_RECV_SLOTS 16u      /* client receive queue: pongs */
#define WINDOW 256u             /* client send queue: sends in flight */
#define CHUNK (1u << 20)        /* bytes of one RDMA work request */
#define WARMUP 100u             /* ping-pongs before the measured ones */
#define SLICE_US 100000u        /* a wait looks at the peer this often */
#define MAGIC 0x1BA1DE30u
#define KIND_PING 0x50494E47u
#define KIND_STREAM 0x5354524Du
#define KIND_WDONE 0x57444F4Eu   /* client: my RDMA writes before this send are done */
#define KIND_RREADY 0x52524459u  /* server: the buffer is ready to be read */

/* ---- Options and time ---- */

typedef struct opts {
	uint32_t pings;         /* measured round trips */
	uint32_t msgs;          /* messages of the stream */
	uint32_t msg_len;       /* bytes of a stream message */
	uint64_t rdma_len;      /* bytes of the RDMA buffers */
	uint32_t timeout_s;     /* limit of the whole run */
} opts_t;

static uint64_t deadline_ns;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Microseconds left before the deadline (0 once it passed). */
static uint64_t left_us(void)
{
	uint64_t t = now_ns();

	return t >= deadline_ns ? 0 : (deadline_ns - t) / 1000u;
}

/* ---- Out-of-band control channel ---- */

enum {
	OOB_HELLO = 1,     /* where to connect (server) / who we are (client) */
	OOB_READY,         /* server: connected (RTU received), receives posted */
	OOB_STREAM_END,    /* client: arg0 stream messages were sent */
	OOB_STREAM_OK,     /* server: arg0 arrived in order and intact */
	OOB_WRITE_DONE,    /* client: arg0 bytes written with pattern seed arg1 */
	OOB_WRITE_OK,      /* server: arg0 bytes verified */
	OOB_READ_PREP,     /* client: fill arg0 bytes with pattern seed arg1 (answered on the QP) */
	OOB_BYE,           /* either: done */
	OOB_ERROR,         /* either: failed, text says why */
};

/* One message of the control channel (both ends run on one host). */
typedef struct oob_msg {
	uint32_t magic;
	uint32_t type;
	uint64_t arg0, arg1;
	/* OOB_HELLO: the port, and the server's service ID. */
	ib_net64_t port_guid;
	ib_net64_t svc_id;     /* server: the service ID it listens on */
	ib_net16_t lid;
	uint8_t mtu;           /* IB_MTU_LEN_* of the port */
	uint8_t rd_atom;       /* RDMA reads we accept in flight (responder resources) */
	/* Not sent: learnt from the CM (private data) and the connected QP. */
	ib_net32_t qpn;
	ib_net32_t psn;        /* starting PSN of the send queue */
	net32_t rkey;          /* R_Key of the RDMA buffer */
	uint64_t va;           /* its address */
	uint64_t len;          /* its length */
	uint32_t pid;
	char text[200];        /* OOB_ERROR: the reason */
} oob_msg_t;

/* ---- One side ---- */

typedef struct side {
	const char *name;              /* "server" or "client" */
	boolean_t server;
	boolean_t quiet;               /* print errors only */
	const opts_t *o;
	int fd;                        /* control channel */
	boolean_t peer_failed;         /* the peer sent OOB_ERROR or hung up */
	boolean_t closing;             /* failed already: later failures go unreported */
	char err[200];                 /* the first failure */

	ib_al_handle_t al;
	ib_ca_handle_t ca;
	ib_pd_handle_t pd;
	ib_cq_handle_t scq, rcq;       /* the server uses one CQ for both */
	ib_qp_handle_t qp;
	cl_waitobj_handle_t wo;        /* client: notifies scq and rcq */
	ib_mr_handle_t rdma_mr, slot_mr;
	uint8_t *rdma;                 /* the RDMA buffer */
	uint64_t rdma_len;
	net32_t rdma_lkey, rdma_rkey;
	uint8_t *slots;                /* receive slots, then send slots */
	uint32_t n_recv, n_send;
	net32_t slot_lkey;
	uint8_t max_init_depth;        /* the CA's limit of RDMA reads in flight */
	uint8_t init_depth;            /* negotiated: reads the client keeps in flight */
	oob_msg_t me, peer;            /* the two hellos */

	/* Connection manager: what its callbacks report (under lock, signalling ev). */
	ib_listen_handle_t listen;     /* server */
	ib_cm_handle_t h_req;          /* server: the request to answer */
	uint32_t cm_ev;                /* CM_EV_* seen */
	ib_rej_status_t rej_status;    /* CM_EV_REJ: the reason */
	ib_api_status_t cm_status;     /* a failure inside a CM callback, or the DREP's status */
	uint8_t peer_resp_res;         /* RDMA reads the peer accepts from us */
	uint8_t cm_pdata[IB_REQ_PDATA_SIZE]; /* the peer's private data (REQ or REP) */
	ib_path_rec_t path;            /* client: to the server, from the SA */
	ib_api_status_t path_status;   /* client: the PathRecord query's result */

	/* Server: state shared with the completion callback. */
	cl_spinlock_t lock;
	cl_event_t ev;                 /* signalled at want stream messages, a WDONE or an error */
	uint32_t n_ping, n_stream, n_wdone, want;
	boolean_t bye;                 /* BYEs exchanged: flushes expected, the peer may exit */
	boolean_t cb_failed;
	char cb_err[200];
} side_t;

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
static boolean_t fail(side_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static boolean_t fail(side_t *s, const char *fmt, ...)
{
	va_list ap;
	boolean_t r;

	va_start(ap, fmt);
	r = fail_v(s, fmt, ap);
	va_end(ap);
	return r;
}

/* Checks an access-layer status. */
static boolean_t ok(side_t *s, ib_api_status_t st, const char *what)
{
	if (st == IB_SUCCESS)
		return TRUE;
	return fail(s, "%s failed: %s", what, ib_get_err_str(st));
}

static boolean_t oob_send(side_t *s, uint32_t type, uint64_t arg0, uint64_t arg1)
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
static boolean_t cb_check(side_t *s)
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
static boolean_t oob_expect(side_t *s, oob_msg_t *m, uint32_t type)
{
	if (!oob_next(s, m))
		return FALSE;
	if (m->type != type)
		return fail(s, "control channel: message %u where %u was due", m->type, type);
	return TRUE;
}

/* Between waits: a message from the peer now can only be a failure. */
static boolean_t peer_check(side_t *s)
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

static uint64_t mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static void pattern_fill(uint8_t *p, uint64_t len, uint64_t seed)
{
	uint64_t i, w;

	for (i = 0; i < len; i += 8) {
		w = mix(seed ^ (i >> 3));
		memcpy(p + i, &w, len - i < 8 ? len - i : 8);
	}
}

/* The offset of the first byte that differs from the pattern, or len. */
static uint64_t pattern_check(const uint8_t *p, uint64_t len, uint64_t seed)
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
static void msg_fill(uint8_t *p, uint32_t len, uint32_t kind, uint32_t seq)
{
	uint32_t i;

	memcpy(p, &kind, 4);
	memcpy(p + 4, &seq, 4);
	for (i = 8; i < len; i++)
		p[i] = (uint8_t)(seq * 7u + i);
}

static boolean_t msg_good(const uint8_t *p, uint32_t len, uint32_t kind, uint32_t seq)
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

static uint8_t *recv_slot(side_t *s, uint32_t i)
{
	return s->slots + (size_t)i * SLOT;
}

static uint8_t *send_slot(side_t *s, uint32_t i)
{
	return s->slots + (size_t)(s->n_recv + i % s->n_send) * SLOT;
}

static ib_api_status_t post_recv_slot(side_t *s, uint32_t i)
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
static void make_wr(ib_send_wr_t *wr, ib_local_ds_t *ds, ib_wr_type_t type, uint64_t wr_id,
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

static boolean_t side_open(side_t *s)
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

/* ---- The connection, through the connection manager ---- */

#define DEMO_SVC_BASE 0x1BA1DE3000000000ull /* service ID: this + the server's pid */
#define CM_RESP_TIMEOUT 18   /* CM response timeouts: 4.096 us * 2^18, about 1 s */
#define CM_RETRIES 8         /* times the CM resends a message */

enum {
	CM_EV_REQ = 1u << 0,   /* server: a request came */
	CM_EV_REP = 1u << 1,   /* client: the reply came and was answered with the RTU */
	CM_EV_RTU = 1u << 2,   /* server: the RTU came, the connection is up */
	CM_EV_REJ = 1u << 3,   /* either: rejected (rej_status says why) */
	CM_EV_DREQ = 1u << 4,  /* either: the peer disconnected (answered) */
	CM_EV_DREP = 1u << 5,  /* client: our disconnection was answered (cm_status) */
	CM_EV_FAIL = 1u << 6,  /* either: a call inside a CM callback failed (cm_status) */
};

/* What the REQ (client) and the REP (server) carry in their private data. */
typedef struct conn_pdata {
	net32_t magic;
	net32_t pid;
	net32_t rkey;          /* R_Key of the RDMA buffer */
	net32_t resv;
	net64_t va;            /* its address */
	net64_t len;           /* its length */
} conn_pdata_t;

static void pdata_make(const side_t *s, conn_pdata_t *p)
{
	memset(p, 0, sizeof(*p));
	p->magic = cl_hton32(MAGIC);
	p->pid = cl_hton32(s->me.pid);
	p->rkey = s->me.rkey;
	p->va = cl_hton64(s->me.va);
	p->len = cl_hton64(s->me.len);
}

/* Takes the peer's buffer from its private data (kept by the callback). */
static boolean_t pdata_take(side_t *s)
{
	conn_pdata_t p;

	memcpy(&p, s->cm_pdata, sizeof(p));
	if (cl_ntoh32(p.magic) != MAGIC)
		return fail(s, "the %s's private data is not an ibal_demo's", s->server ? "REQ" : "REP");
	s->peer.pid = cl_ntoh32(p.pid);
	s->peer.rkey = p.rkey;
	s->peer.va = cl_ntoh64(p.va);
	s->peer.len = cl_ntoh64(p.len);
	return TRUE;
}

/* A CM callback's report to the main thread. */
static void cm_note(side_t *s, uint32_t ev, const uint8_t *pdata, size_t len)
{
	cl_spinlock_acquire(&s->lock);
	if (pdata)
		memcpy(s->cm_pdata, pdata, len);
	s->cm_ev |= ev;
	cl_spinlock_release(&s->lock);
	cl_event_signal(&s->ev);
}

/* Waits (bounded by the deadline) for one of the CM events in mask; a rejection fails. */
static boolean_t cm_wait(side_t *s, uint32_t mask, const char *what)
{
	uint32_t ev;
	ib_rej_status_t rej;
	ib_api_status_t st;

	for (;;) {
		cl_spinlock_acquire(&s->lock);
		ev = s->cm_ev;
		rej = s->rej_status;
		st = s->cm_status;
		cl_spinlock_release(&s->lock);
		if (ev & CM_EV_FAIL)
			return fail(s, "%s: %s", what, ib_get_err_str(st));
		if (ev & mask)
			return TRUE;
		if (ev & CM_EV_REJ)
			return fail(s, "%s: the connection was rejected (reason %u%s)", what,
				    cl_ntoh16(rej), rej == IB_REJ_TIMEOUT ? ", timeout" : "");
		if (!cb_check(s))
			return FALSE;
		if (!left_us())
			return fail(s, "%s: nothing within the %u s limit of the run", what,
				    s->o->timeout_s);
		cl_event_wait_on(&s->ev, left_us() < SLICE_US ? (uint32_t)left_us() : SLICE_US, FALSE);
		/* After the BYEs the peer may exit as soon as its part is done. */
		if (!s->bye && !peer_check(s))
			return FALSE;
	}
}

static void AL_API on_cm_req(ib_cm_req_rec_t *p)
{
	side_t *s = (side_t *)p->context;
	ib_cm_rej_t rej;
	boolean_t first;

	cl_spinlock_acquire(&s->lock);
	first = !(s->cm_ev & CM_EV_REQ);
	if (first) {
		s->h_req = p->h_cm_req;
		s->peer_resp_res = p->resp_res;
	}
	cl_spinlock_release(&s->lock);
	if (!first) {   /* one client only */
		memset(&rej, 0, sizeof(rej));
		rej.rej_status = IB_REJ_INSUF_QP;
		ib_cm_rej(p->h_cm_req, &rej);
		return;
	}
	cm_note(s, CM_EV_REQ, p->p_req_pdata, IB_REQ_PDATA_SIZE);
}

static void AL_API on_cm_rej(ib_cm_rej_rec_t *p)
{
	side_t *s = (side_t *)p->qp_context;

	cl_spinlock_acquire(&s->lock);
	s->rej_status = p->rej_status;
	cl_spinlock_release(&s->lock);
	cm_note(s, CM_EV_REJ, NULL, 0);
}

static void AL_API on_cm_mra(ib_cm_mra_rec_t *p)
{
	(void)p;   /* the peer needs more time: the CM extends its timer */
}

static void AL_API on_cm_dreq(ib_cm_dreq_rec_t *p)
{
	side_t *s = (side_t *)p->qp_context;
	ib_cm_drep_t drep;
	ib_api_status_t st;

	memset(&drep, 0, sizeof(drep));
	st = ib_cm_drep(p->h_cm_dreq, &drep);
	if (st != IB_SUCCESS) {
		cl_spinlock_acquire(&s->lock);
		s->cm_status = st;
		cl_spinlock_release(&s->lock);
	}
	cm_note(s, CM_EV_DREQ | (st != IB_SUCCESS ? CM_EV_FAIL : 0), NULL, 0);
}

static void AL_API on_cm_drep(ib_cm_drep_rec_t *p)
{
	side_t *s = (side_t *)p->qp_context;

	cl_spinlock_acquire(&s->lock);
	s->cm_status = p->cm_status;
	cl_spinlock_release(&s->lock);
	cm_note(s, CM_EV_DREP, NULL, 0);
}

static void AL_API on_cm_rtu(ib_cm_rtu_rec_t *p)
{
	cm_note((side_t *)p->qp_context, CM_EV_RTU, NULL, 0);
}

static void AL_API on_cm_lap(ib_cm_lap_rec_t *p)
{
	ib_cm_apr_t apr;

	memset(&apr, 0, sizeof(apr));   /* no alternate paths in this demo */
	apr.qp_type = IB_QPT_RELIABLE_CONN;
	apr.apr_status = IB_AP_REJECT;
	ib_cm_apr(p->h_cm_lap, &apr);
}

/* Client: the reply. Receives first (the QP is in RTR now), then the RTU. */
static void AL_API on_cm_rep(ib_cm_rep_rec_t *p)
{
	side_t *s = (side_t *)p->qp_context;
	ib_api_status_t st = IB_SUCCESS;
	ib_cm_rtu_t rtu;
	uint32_t i;

	cl_spinlock_acquire(&s->lock);
	s->peer_resp_res = p->resp_res;
	cl_spinlock_release(&s->lock);
	for (i = 0; st == IB_SUCCESS && i < s->n_recv; i++)
		st = post_recv_slot(s, i);
	memset(&rtu, 0, sizeof(rtu));
	rtu.pfn_cm_dreq_cb = on_cm_dreq;
	if (st == IB_SUCCESS)
		st = ib_cm_rtu(p->h_cm_rep, &rtu);
	if (st != IB_SUCCESS) {
		cl_spinlock_acquire(&s->lock);
		s->cm_status = st;
		cl_spinlock_release(&s->lock);
	}
	cm_note(s, CM_EV_REP | (st != IB_SUCCESS ? CM_EV_FAIL : 0), p->p_rep_pdata,
		IB_REP_PDATA_SIZE);
}

/* Server: listens on DEMO_SVC_BASE + pid, on our port, before telling the client. */
static boolean_t cm_listen(side_t *s)
{
	ib_cm_listen_t l;

	s->me.svc_id = cl_hton64(DEMO_SVC_BASE + s->me.pid);
	memset(&l, 0, sizeof(l));
	l.svc_id = s->me.svc_id;
	l.ca_guid = IB_ALL_CAS;
	l.port_guid = s->me.port_guid;
	l.lid = IB_ALL_LIDS;
	l.pkey = IB_ALL_PKEYS;
	l.pfn_cm_req_cb = on_cm_req;
	l.qp_type = IB_QPT_RELIABLE_CONN;
	return ok(s, ib_cm_listen(s->al, &l, s, &s->listen), "ib_cm_listen");
}

/* Reads the connected QP's numbers for the printout: our QPN and PSN, the peer's. */
static boolean_t cm_learn(side_t *s)
{
	ib_qp_attr_t qa;

	if (!ok(s, ib_query_qp(s->qp, &qa), "ib_query_qp"))
		return FALSE;
	if (qa.state != IB_QPS_RTS)
		return fail(s, "the connected QP is not in RTS (state %d)", (int)qa.state);
	s->me.qpn = qa.num;
	s->me.psn = qa.sq_psn;
	s->peer.qpn = qa.dest_num;
	s->peer.psn = qa.rq_psn;     /* what we expect first is what the peer sends first */
	s->me.mtu = s->peer.mtu = qa.primary_av.conn.path_mtu;
	return TRUE;
}

/*
 * Server: waits for the client's REQ, accepts it with the REP (the QP, all
 * receive slots posted with it, RDMA read and write allowed on the buffer),
 * and waits for the RTU.
 */
static boolean_t server_accept(side_t *s)
{
	ib_recv_wr_t *wr, *bad = NULL;
	ib_local_ds_t *ds;
	ib_cm_rep_t rep;
	conn_pdata_t pd;
	ib_api_status_t st;
	uint32_t i;

	if (!cm_wait(s, CM_EV_REQ, "waiting for the client's connection request") || !pdata_take(s))
		return FALSE;
	wr = calloc(s->n_recv, sizeof(*wr));
	ds = calloc(s->n_recv, sizeof(*ds));
	if (!wr || !ds) {
		free(wr);
		free(ds);
		return fail(s, "out of memory");
	}
	for (i = 0; i < s->n_recv; i++) {
		ds[i].vaddr = (uintptr_t)recv_slot(s, i);
		ds[i].length = SLOT;
		ds[i].lkey = s->slot_lkey;
		wr[i].wr_id = i;
		wr[i].num_ds = 1;
		wr[i].ds_array = &ds[i];
		wr[i].p_next = i + 1 < s->n_recv ? &wr[i + 1] : NULL;
	}
	pdata_make(s, &pd);
	memset(&rep, 0, sizeof(rep));
	rep.p_rep_pdata = (const uint8_t *)&pd;
	rep.rep_length = sizeof(pd);
	rep.h_qp = s->qp;
	rep.qp_type = IB_QPT_RELIABLE_CONN;
	rep.access_ctrl = IB_AC_LOCAL_WRITE | IB_AC_RDMA_READ | IB_AC_RDMA_WRITE;
	rep.init_depth = 0;              /* the server reads nothing */
	rep.failover_accepted = IB_FAILOVER_ACCEPT_UNSUPPORTED;
	rep.flow_ctrl = TRUE;
	rep.rnr_nak_timeout = 1;
	rep.rnr_retry_cnt = 7;           /* 7: retry for ever on RNR NAKs */
	rep.pfn_cm_rej_cb = on_cm_rej;
	rep.pfn_cm_mra_cb = on_cm_mra;
	rep.pfn_cm_rtu_cb = on_cm_rtu;
	rep.pfn_cm_lap_cb = on_cm_lap;
	rep.pfn_cm_dreq_cb = on_cm_dreq;
	rep.p_recv_wr = wr;
	rep.pp_recv_failure = &bad;
	st = ib_cm_rep(s->h_req, &rep);
	free(wr);
	free(ds);
	if (s->listen) {   /* one client: no more requests */
		ib_cm_cancel(s->listen, NULL);
		s->listen = NULL;
	}
	return ok(s, st, "ib_cm_rep") && cm_wait(s, CM_EV_RTU, "waiting for the client's RTU") &&
	       cm_learn(s);
}

/* Client: the PathRecord query's answer (synchronous: runs before ib_query returns). */
static void AL_API on_path(ib_query_rec_t *p)
{
	side_t *s = (side_t *)p->query_context;

	s->path_status = p->status;
	if (p->status == IB_SUCCESS && !p->result_cnt)
		s->path_status = IB_NOT_FOUND;
	if (s->path_status == IB_SUCCESS)
		s->path = *ib_get_query_path_rec(p->p_result_mad, 0);
	if (p->p_result_mad)
		ib_put_mad(p->p_result_mad);
}

/* Client: the path through the SA, the REQ, and (from the REP callback) the RTU. */
static boolean_t client_connect(side_t *s)
{
	ib_lid_pair_t lp;
	ib_query_req_t q;
	ib_path_rec_t path;
	ib_cm_req_t req;
	conn_pdata_t pd;
	uint8_t resp_res;

	lp.src_lid = s->me.lid;
	lp.dest_lid = s->peer.lid;
	memset(&q, 0, sizeof(q));
	q.query_type = IB_QUERY_PATH_REC_BY_LIDS;
	q.p_query_input = &lp;
	q.port_guid = s->me.port_guid;
	q.timeout_ms = 500;
	q.retry_cnt = 4;
	q.flags = IB_FLAGS_SYNC;
	q.query_context = s;
	q.pfn_query_cb = on_path;
	s->path_status = IB_ERROR;
	if (!ok(s, ib_query(s->al, &q, NULL), "ib_query (PathRecord)") ||
	    !ok(s, s->path_status, "the PathRecord query"))
		return FALSE;
	path = s->path;
	pdata_make(s, &pd);
	memset(&req, 0, sizeof(req));
	req.svc_id = s->peer.svc_id;
	req.max_cm_retries = CM_RETRIES;
	req.p_primary_path = &path;
	req.pfn_cm_rep_cb = on_cm_rep;
	req.p_req_pdata = (const uint8_t *)&pd;
	req.req_length = sizeof(pd);
	req.qp_type = IB_QPT_RELIABLE_CONN;
	req.h_qp = s->qp;
	req.resp_res = s->me.rd_atom;
	req.init_depth = s->max_init_depth;
	req.remote_resp_timeout = CM_RESP_TIMEOUT;
	req.local_resp_timeout = CM_RESP_TIMEOUT;
	req.flow_ctrl = TRUE;
	req.rnr_nak_timeout = 1;
	req.rnr_retry_cnt = 7;
	req.retry_cnt = 7;
	req.pfn_cm_mra_cb = on_cm_mra;
	req.pfn_cm_rej_cb = on_cm_rej;
	if (!ok(s, ib_cm_req(&req), "ib_cm_req") ||
	    !cm_wait(s, CM_EV_REP, "waiting for the server's reply") || !pdata_take(s) ||
	    !cm_learn(s))
		return FALSE;
	cl_spinlock_acquire(&s->lock);
	resp_res = s->peer_resp_res;
	cl_spinlock_release(&s->lock);
	s->init_depth = s->max_init_depth < resp_res ? s->max_init_depth : resp_res;
	return TRUE;
}

/* Client: disconnects (DREQ) and waits for the DREP. */
static boolean_t client_disconnect(side_t *s)
{
	ib_cm_dreq_t dreq;
	ib_api_status_t st;

	memset(&dreq, 0, sizeof(dreq));
	dreq.qp_type = IB_QPT_RELIABLE_CONN;
	dreq.h_qp = s->qp;
	dreq.pfn_cm_drep_cb = on_cm_drep;
	if (!ok(s, ib_cm_dreq(&dreq), "ib_cm_dreq") ||
	    !cm_wait(s, CM_EV_DREP | CM_EV_DREQ, "waiting for the DREP"))
		return FALSE;
	cl_spinlock_acquire(&s->lock);
	st = (s->cm_ev & CM_EV_DREP) ? s->cm_status : IB_SUCCESS;
	cl_spinlock_release(&s->lock);
	return ok(s, st, "disconnecting");
}

static boolean_t hello(side_t *s)
{
	if (!oob_send(s, OOB_HELLO, 0, 0) || !oob_expect(s, &s->peer, OOB_HELLO))
		return FALSE;
	if (!s->peer.lid || (!s->server && !s->peer.svc_id))
		return fail(s, "the peer sent an incomplete hello");
	s->peer.qpn = s->peer.psn = s->peer.rkey = 0;   /* the CM tells these */
	s->peer.va = s->peer.len = 0;
	return TRUE;
}

static void print_end(const char *who, const oob_msg_t *m)
{
	printf("  %-6s  pid %-7u LID 0x%04x  QPN 0x%06x  PSN 0x%06x  buffer 0x%" PRIx64
	       " (%" PRIu64 " KiB) R_Key 0x%08x\n",
	       who, m->pid, cl_ntoh16(m->lid), cl_ntoh32(m->qpn), cl_ntoh32(m->psn), m->va,
	       m->len >> 10, cl_ntoh32(m->rkey));
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

/* ---- Client ---- */

/*
 * Waits for up to max completions of cq into wcs[] (at least one). Polls,
 * rearms, polls again, then waits on the wait object in slices, looking
 * at the control channel between them.
 */
static uint32_t client_wait(side_t *s, ib_cq_handle_t cq, ib_wc_t *wcs, uint32_t max,
			    const char *what)
{
	ib_wc_t *free_l, *done, *w;
	uint32_t i, n;
	boolean_t armed = FALSE;

	for (;;) {
		for (i = 0; i < max; i++)
			wcs[i].p_next = i + 1 < max ? &wcs[i + 1] : NULL;
		free_l = wcs;
		if (ib_poll_cq(cq, &free_l, &done) == IB_SUCCESS) {
			for (n = 0, w = done; w; w = w->p_next)
				if (w->status != IB_WCS_SUCCESS)
					return fail(s, "%s: %s completion failed: %s", what,
						    ib_get_wc_type_str(w->wc_type),
						    ib_get_wc_status_str(w->status)), 0;
				else
					n++;
			return n;
		}
		if (!armed) {
			if (!ok(s, ib_rearm_cq(cq, FALSE), "ib_rearm_cq"))
				return 0;
			armed = TRUE;
			continue;
		}
		if (!left_us())
			return fail(s, "%s: no completion within the %u s limit of the run", what,
				    s->o->timeout_s), 0;
		cl_waitobj_wait_on(s->wo, left_us() < SLICE_US ? (uint32_t)left_us() : SLICE_US, FALSE);
		armed = FALSE;
		if (!peer_check(s))
			return 0;
	}
}

/* One result line of the table. */
typedef struct row {
	const char *name;
	int state;             /* 0 not run, 1 passed, -1 failed */
	double value;
	const char *unit;
	char note[96];
} row_t;

enum { ROW_LAT, ROW_RATE, ROW_WRITE, ROW_READ, ROWS };

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static boolean_t client_pingpong(side_t *s, row_t *r)
{
	uint32_t n = s->o->pings, i, len = 32;
	uint64_t *rtt = calloc(n, sizeof(*rtt)), t0;
	ib_send_wr_t wr;
	ib_local_ds_t ds;
	ib_wc_t wc;
	boolean_t good = rtt != NULL;

	for (i = 0; good && i < WARMUP + n; i++) {
		msg_fill(send_slot(s, i), len, KIND_PING, i);
		make_wr(&wr, &ds, WR_SEND, i, send_slot(s, i), len, s->slot_lkey);
		t0 = now_ns();
		good = ok(s, ib_post_send(s->qp, &wr, NULL), "ib_post_send (ping)") &&
		       client_wait(s, s->rcq, &wc, 1, "ping-pong");
		if (!good)
			break;
		if (i >= WARMUP)
			rtt[i - WARMUP] = now_ns() - t0;
		if (!msg_good(recv_slot(s, (uint32_t)wc.wr_id), wc.length, KIND_PING, i))
			good = fail(s, "pong %u is not the ping echoed", i);
		else
			good = ok(s, post_recv_slot(s, (uint32_t)wc.wr_id), "ib_post_recv") &&
			       client_wait(s, s->scq, &wc, 1, "ping-pong");
	}
	if (good) {
		qsort(rtt, n, sizeof(*rtt), cmp_u64);
		r->value = rtt[n / 2] / 2000.0;
		snprintf(r->note, sizeof(r->note), "median of %u round trips / 2, min %.1f us", n,
			 rtt[0] / 2000.0);
	}
	free(rtt);
	return good;
}

/*
 * The stream: sends posted in chains of up to 16, at most WINDOW in flight.
 * Only every 16th send (and the last) asks for a completion; since RC
 * completes in order, that completion retires the sends before it too.
 */
static boolean_t client_stream(side_t *s, row_t *r)
{
	uint32_t total = s->o->msgs, len = s->o->msg_len, posted = 0, done = 0, k, got, i;
	ib_send_wr_t wr[16], *bad;
	ib_local_ds_t ds[16];
	ib_wc_t wcs[32];
	oob_msg_t m;
	uint64_t t0 = now_ns(), t;

	while (done < total) {
		for (k = 0; k < 16 && posted + k < total && posted + k - done < WINDOW; k++) {
			uint32_t seq = posted + k;

			msg_fill(send_slot(s, seq), len, KIND_STREAM, seq);
			make_wr(&wr[k], &ds[k], WR_SEND, seq, send_slot(s, seq), len, s->slot_lkey);
			if (seq % 16u != 15u && seq + 1 != total)
				wr[k].send_opt = 0;
			if (k)
				wr[k - 1].p_next = &wr[k];
		}
		if (k && !ok(s, ib_post_send(s->qp, wr, &bad), "ib_post_send (stream)"))
			return FALSE;
		posted += k;
		if (posted - done < WINDOW && posted < total)
			continue;   /* room for more before waiting */
		if (!(got = client_wait(s, s->scq, wcs, 32, "message stream")))
			return FALSE;
		for (i = 0; i < got; i++)
			if (wcs[i].wr_id + 1 > done)
				done = (uint32_t)wcs[i].wr_id + 1;
	}
	t = now_ns() - t0;
	if (!oob_send(s, OOB_STREAM_END, total, 0) || !oob_expect(s, &m, OOB_STREAM_OK))
		return FALSE;
	if (m.arg0 != total)
		return fail(s, "the server counted %" PRIu64 " of %u messages", m.arg0, total);
	r->value = total * 1000.0 / (double)t;
	snprintf(r->note, sizeof(r->note), "%u sends of %u B, all in order and intact", total, len);
	return TRUE;
}

/* Posts RDMA ops over len bytes in CHUNK pieces, at most `window` in flight. */
static boolean_t client_rdma(side_t *s, ib_wr_type_t type, uint64_t len, uint32_t window,
			     const char *what, uint64_t *p_ns)
{
	uint64_t n_wr = (len + CHUNK - 1) / CHUNK, posted = 0, done = 0, off, t0 = now_ns();
	uint32_t got, piece;
	ib_send_wr_t wr;
	ib_local_ds_t ds;
	ib_wc_t wcs[32];

	while (done < n_wr) {
		for (; posted < n_wr && posted - done < window; posted++) {
			off = posted * CHUNK;
			piece = len - off < CHUNK ? (uint32_t)(len - off) : CHUNK;
			make_wr(&wr, &ds, type, posted, s->rdma + off, piece, s->rdma_lkey);
			wr.remote_ops.vaddr = s->peer.va + off;
			wr.remote_ops.rkey = s->peer.rkey;
			if (!ok(s, ib_post_send(s->qp, &wr, NULL), what))
				return FALSE;
		}
		if (!(got = client_wait(s, s->scq, wcs, 32, what)))
			return FALSE;
		done += got;
	}
	*p_ns = now_ns() - t0;
	return TRUE;
}

/* A 16-byte message of the given kind from the client's send slot 0, waited for. */
static boolean_t client_note(side_t *s, uint32_t kind, const char *what)
{
	ib_send_wr_t wr;
	ib_local_ds_t ds;
	ib_wc_t wc;

	msg_fill(send_slot(s, 0), 16, kind, 0);
	make_wr(&wr, &ds, WR_SEND, 0, send_slot(s, 0), 16, s->slot_lkey);
	return ok(s, ib_post_send(s->qp, &wr, NULL), what) && client_wait(s, s->scq, &wc, 1, what);
}

/*
 * RDMA write of the pattern into the server's buffer; then a send on the
 * same QP (RC keeps the order) tells the server the data is there, and the
 * control channel gives it the pattern to check against.
 */
static boolean_t client_write(side_t *s, uint64_t len, row_t *r)
{
	uint64_t seed = mix(now_ns()), ns;
	oob_msg_t m;

	pattern_fill(s->rdma, len, seed);
	if (!client_rdma(s, WR_RDMA_WRITE, len, WINDOW, "RDMA write", &ns) ||
	    !client_note(s, KIND_WDONE, "send after the RDMA writes") ||
	    !oob_send(s, OOB_WRITE_DONE, len, seed) || !oob_expect(s, &m, OOB_WRITE_OK))
		return FALSE;
	r->value = len * 1000.0 / (double)ns;
	snprintf(r->note, sizeof(r->note), "%" PRIu64 " KiB in %u KiB WRs, server checked every byte",
		 len >> 10, CHUNK >> 10);
	return TRUE;
}

/* The server fills its buffer and says so with a send; the client reads it back. */
static boolean_t client_read(side_t *s, uint64_t len, row_t *r)
{
	uint64_t seed = mix(now_ns() + 1), ns, off;
	uint32_t window = s->init_depth ? s->init_depth : 1;
	ib_wc_t wc;

	if (!oob_send(s, OOB_READ_PREP, len, seed) ||
	    !client_wait(s, s->rcq, &wc, 1, "waiting for the server's buffer"))
		return FALSE;
	if (!msg_good(recv_slot(s, (uint32_t)wc.wr_id), wc.length, KIND_RREADY, 0))
		return fail(s, "the server sent something else than 'read ready'");
	if (!ok(s, post_recv_slot(s, (uint32_t)wc.wr_id), "ib_post_recv"))
		return FALSE;
	memset(s->rdma, 0, len);
	if (!client_rdma(s, WR_RDMA_READ, len, window, "RDMA read", &ns))
		return FALSE;
	off = pattern_check(s->rdma, len, seed);
	if (off != len)
		return fail(s, "RDMA read: byte %" PRIu64 " of %" PRIu64 " differs", off, len);
	r->value = len * 1000.0 / (double)ns;
	snprintf(r->note, sizeof(r->note), "%" PRIu64 " KiB, %u reads in flight, every byte checked",
		 len >> 10, window);
	return TRUE;
}

static void print_table(const row_t *rows)
{
	int i;

	printf("  %-22s %12s  %-8s %s\n", "test", "result", "unit", "check");
	for (i = 0; i < ROWS; i++) {
		const row_t *r = &rows[i];

		if (r->state > 0)
			printf("  %-22s %12.4g  %-8s ok: %s\n", r->name, r->value, r->unit, r->note);
		else
			printf("  %-22s %12s  %-8s %s\n", r->name, "-", r->unit,
			       r->state < 0 ? "FAILED" : "not run");
	}
}

static boolean_t client_run(side_t *s)
{
	row_t rows[ROWS] = {
		{ "send/recv latency", 0, 0, "us", "" },
		{ "send message rate", 0, 0, "Mmsg/s", "" },
		{ "RDMA write bandwidth", 0, 0, "MB/s", "" },
		{ "RDMA read bandwidth", 0, 0, "MB/s", "" },
	};
	oob_msg_t m;
	uint64_t len;
	boolean_t good;
	const char *fab = getenv("IBAL_SOFT_FABRIC");

	printf("ibal access-layer demo: RC between two processes on the soft fabric (%s)\n",
	       fab && *fab ? fab : "default directory");
	good = side_open(s) && hello(s) && client_connect(s) && oob_expect(s, &m, OOB_READY);
	if (good) {
		print_end("server", &s->peer);
		print_end("client", &s->me);
		printf("  RC connection through the CM (service ID 0x%016" PRIx64 "): path MTU %u, "
		       "%u RDMA reads in flight; control: Unix socket\n", cl_ntoh64(s->peer.svc_id),
		       128u << s->me.mtu, s->init_depth);
	}
	len = s->rdma_len < s->peer.len ? s->rdma_len : s->peer.len;
	if (good)
		rows[ROW_LAT].state = (good = client_pingpong(s, &rows[ROW_LAT])) ? 1 : -1;
	if (good)
		rows[ROW_RATE].state = (good = client_stream(s, &rows[ROW_RATE])) ? 1 : -1;
	if (good)
		rows[ROW_WRITE].state = (good = client_write(s, len, &rows[ROW_WRITE])) ? 1 : -1;
	if (good)
		rows[ROW_READ].state = (good = client_read(s, len, &rows[ROW_READ])) ? 1 : -1;
	good = good && oob_send(s, OOB_BYE, 0, 0) && oob_expect(s, &m, OOB_BYE);
	if (good) {
		cl_spinlock_acquire(&s->lock);
		s->bye = TRUE; /* the server may exit once it has answered the DREQ */
		cl_spinlock_release(&s->lock);
	}
	good = good && client_disconnect(s);
	print_table(rows);
	return good;
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
