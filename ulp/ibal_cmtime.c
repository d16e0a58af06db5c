/*
 * ibal ulp: ibal_cmtime - how fast the connection manager sets up and tears down RC connections.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * In the manner of librdmacm's cmtime, written only on the public API
 * (<iba/ib_al.h>). A server listens on a service ID; a client resolves a
 * path to it through the SA (ib_query, PathRecord by GIDs or by LIDs, or
 * first the server's ServiceRecord when only the service ID is known),
 * creates N RC QPs and connects them through the CM asynchronously, many
 * requests in flight (-w; by default, as cmtime, every ib_cm_req() before
 * the first reply is waited for). The server
 * creates a QP per request in its REQ callback and accepts with ib_cm_rep()
 * (its receives posted with the REP); the client answers each REP with
 * ib_cm_rtu(). Then M messages go back and forth on each connection (the
 * client sends, the server echoes), and the client disconnects them all
 * with ib_cm_dreq() (the server answers ib_cm_drep()). Both sides then
 * destroy their QPs and print a table of the phases, as cmtime does: wall
 * time of the phase over all connections (total), the slowest and the
 * fastest connection, the mean per connection, and connections per second.
 *
 *   ibal_cmtime -s [options]              server
 *   ibal_cmtime [options] DEST            client; DEST is the server's port
 *                                         GID (fe80::...) or LID (decimal, 0x..)
 *   ibal_cmtime [options]                 client that finds the server by
 *                                         its service ID (SA ServiceRecord)
 *   ibal_cmtime -f [options]              server and client as two threads of
 *                                         one process, on two soft CAs
 *   ibal_cmtime -f --raw [options]        the reference without a CM: the same
 *                                         number of QP pairs connected by hand
 *                                         with ib_modify_qp, then put in ERROR
 *
 * Options (cmtime's letters where they mean the same):
 *   -s            run the server
 *   -f            run both sides in this process (sets IBAL_SOFT_CAS=2 and,
 *                 when IBAL_SOFT_FABRIC is unset, a private fabric directory)
 *   -c N          connections (client; default 100). Server: connections
 *                 to serve before exiting (default: what the client's first
 *                 request announces); it holds max(N, 4096)
 *   -n M          messages exchanged on each connection (default 1; 0: none)
 *   -S SVC_ID     service ID (default 0x1060000 + port, RDMA CM's TCP space)
 *   -p PORT       service port, as cmtime's -p (default 7471)
 *   -P GUID       local port GUID to use (default: the first port of the
 *                 first CA; with -f, the first CA's for the server and the
 *                 second's for the client); -b GUID is the same
 *   -d DEST       the server's GID or LID (same as the positional DEST)
 *   -r N          CM retries of each message (max_cm_retries, default 8)
 *   -t MS         CM response timeout in milliseconds (default 1000): the
 *                 remote/local response timeout fields of the REQ
 *   -w N          at most N connection requests, exchanges and DREQs in
 *                 flight (default 0: all at once). A CM message that
 *                 finds no receive buffer at its port's QP1 is dropped and
 *                 costs a CM timeout; the access layer grows those buffers
 *                 under a burst, up to 16,384 a port
 *   -T S          limit of the whole run in seconds (default 120)
 *   --raw         with -f: the no-CM reference
 *   --json        also print one JSON line with every number (last line)
 *   -h, --help    this text
 *
 * The server prints "listening" with its LID, GID and service ID once it
 * accepts requests, and exits when the announced connections are gone.
 * Exit status 0 only if every connection was made, exchanged its messages
 * and was disconnected.
 *
 * This file has the options, the sides' set-up, messages and completions,
 * the no-CM reference, the report and main(); cmtime_server.c the server,
 * cmtime_client.c the client, cmtime.h what they share.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <dirent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include <complib/comp_lib.h>
#include "ibal_cmdline.h"
#include "cmtime.h"

/* ---- Step names (the report's rows, the JSON keys) ---- */

/*
 * The client's steps: resolving the path (once); ib_create_qp; ib_cm_req()
 * to the REP callback; posting the receives and ib_cm_rtu() in that
 * callback; ib_cm_req() to ib_cm_rtu() returned (connect); the first
 * message sent to the last echo received; ib_cm_dreq() to the DREP
 * callback; ib_destroy_qp() to its destroy callback.
 */
static const char *const cli_step_name[STEPS] = {
	"resolve path", "create qp", "req -> rep", "rtu", "connect", "exchange", "disconnect",
	"destroy qp",
};

/*
 * The server's: the REQ callback's ib_create_qp; REQ callback entered to
 * ib_cm_rep() returned; ib_cm_rep() to the RTU callback; REQ callback to
 * RTU callback (connect); DREQ callback entered to ib_cm_drep() returned;
 * ib_destroy_qp() to its destroy callback.
 */
static const char *const srv_step_name[STEPS] = {
	"resolve path", "create qp", "req -> rep", "rep -> rtu", "connect", "exchange", "disconnect",
	"destroy qp",
};

static const char *const step_key[STEPS] = {
	"resolve", "create_qp", "req_rep", "rtu", "connect", "exchange", "disconnect", "destroy_qp",
};

void failf(bench_t *b, const char *fmt, ...)
{
	char msg[sizeof(b->err)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "ibal_cmtime %s: %s\n", b->name, msg);
	pthread_mutex_lock(&b->lock);
	if (!b->err[0])
		snprintf(b->err, sizeof(b->err), "%s", msg);
	pthread_mutex_unlock(&b->lock);
}

/* Checks an access-layer status; FALSE (after saying why) unless IB_SUCCESS. */
boolean_t ok(bench_t *b, ib_api_status_t st, const char *what)
{
	if (st == IB_SUCCESS)
		return TRUE;
	failf(b, "%s failed: %s", what, ib_get_err_str(st));
	return FALSE;
}

/* Wakes the waiter of wait_count() if its wait is met (b->lock held). */
void wake_if_met(bench_t *b)
{
	if (b->w_a && *b->w_a + (b->w_b ? *b->w_b : 0) >= b->w_want)
		pthread_cond_broadcast(&b->cond);
}

/* Counts one event; wakes the waiter only when what it waits for is reached
 * (a wake-up per event would cost the run a context switch per event). */
void count(bench_t *b, uint32_t *p)
{
	pthread_mutex_lock(&b->lock);
	(*p)++;
	wake_if_met(b);
	pthread_mutex_unlock(&b->lock);
}

/* Marks a connection failed (once) and counts it. */
void conn_fail(conn_t *c)
{
	bench_t *b = c->b;

	pthread_mutex_lock(&b->lock);
	if (!c->failed) {
		c->failed = TRUE;
		b->n_fail++;
	}
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

/*
 * Waits until *a (+ *b2 when given) reaches want, or the deadline passes.
 * Returns TRUE when it was reached.
 */
boolean_t wait_count(bench_t *b, const uint32_t *a, const uint32_t *b2, uint32_t want,
		     const char *what)
{
	struct timespec ts;
	uint32_t got;

	pthread_mutex_lock(&b->lock);
	b->w_a = a;
	b->w_b = b2;
	b->w_want = want;
	for (;;) {
		got = *a + (b2 ? *b2 : 0);
		if (got >= want || now_ns() >= b->deadline || (b->stop_on_fail && b->n_fail))
			break;
		/* the run's total, not the window's next step */
		ibal_progress_show(&b->prog, what, got, b->n > want ? b->n : want);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100000000;   /* look at the deadline every 100 ms */
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&b->cond, &b->lock, &ts);
	}
	b->w_a = b->w_b = NULL;
	pthread_mutex_unlock(&b->lock);
	ibal_progress_clear(&b->prog);
	if (got < want && b->stop_on_fail && b->n_fail)
		return FALSE;
	if (got < want) {
		failf(b, "%s: %u of %u within the %u s limit of the run", what, got, want,
		      b->o->limit_s);
		return FALSE;
	}
	return TRUE;
}

/* ---- Message buffers ---- */

static void msg_fill(uint8_t *p, uint32_t idx, uint32_t seq)
{
	uint32_t i;

	memcpy(p, &idx, 4);
	memcpy(p + 4, &seq, 4);
	for (i = 8; i < MSG_LEN; i++)
		p[i] = (uint8_t)(idx * 31u + seq * 7u + i);
}

static boolean_t msg_good(const uint8_t *p, uint32_t len, uint32_t idx, uint32_t seq)
{
	uint8_t want[MSG_LEN];

	msg_fill(want, idx, seq);
	return len == MSG_LEN && !memcmp(p, want, MSG_LEN);
}

ib_api_status_t post_recvs(bench_t *b, conn_t *c)
{
	ib_recv_wr_t wr[RSLOTS];
	ib_local_ds_t ds[RSLOTS];
	uint32_t s;

	for (s = 0; s < RSLOTS; s++) {
		ds[s].vaddr = (uintptr_t)slot(b, c->idx, s);
		ds[s].length = MSG_LEN;
		ds[s].lkey = b->lkey;
		memset(&wr[s], 0, sizeof(wr[s]));
		wr[s].wr_id = wr_id(c->idx, s);
		wr[s].num_ds = 1;
		wr[s].ds_array = &ds[s];
		wr[s].p_next = s + 1 < RSLOTS ? &wr[s + 1] : NULL;
	}
	return ib_post_recv(c->qp, wr, NULL);
}

static ib_api_status_t repost_recv(bench_t *b, conn_t *c, uint32_t s)
{
	ib_recv_wr_t wr;
	ib_local_ds_t ds;

	ds.vaddr = (uintptr_t)slot(b, c->idx, s);
	ds.length = MSG_LEN;
	ds.lkey = b->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id(c->idx, s);
	wr.num_ds = 1;
	wr.ds_array = &ds;
	return ib_post_recv(c->qp, &wr, NULL);
}

/* Posts a send of send slot s (MSG_LEN bytes) of connection c. */
static ib_api_status_t send_slot(bench_t *b, conn_t *c, uint32_t s)
{
	ib_send_wr_t wr;
	ib_local_ds_t ds;

	ds.vaddr = (uintptr_t)slot(b, c->idx, s);
	ds.length = MSG_LEN;
	ds.lkey = b->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id(c->idx, s);
	wr.wr_type = WR_SEND;
	wr.send_opt = IB_SEND_OPT_SIGNALED;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	return ib_post_send(c->qp, &wr, NULL);
}

/* Client: sends message seq of connection c from its send slot seq % SSLOTS. */
static ib_api_status_t send_msg(bench_t *b, conn_t *c, uint32_t seq)
{
	uint32_t s = RSLOTS + seq % SSLOTS;

	msg_fill(slot(b, c->idx, s), c->idx, seq);
	return send_slot(b, c, s);
}

/* ---- Completions ---- */

/* Client: starts the exchange of connection ci (its first message). */
void start_exchange(bench_t *b, uint32_t ci)
{
	conn_t *c = &b->c[ci];
	ib_api_status_t st;

	c->t[STEP_EXCHANGE].start = now_ns();
	c->sent = 1;
	st = send_msg(b, c, 0);
	if (st != IB_SUCCESS) {
		failf(b, "connection %u: ib_post_send failed: %s", ci, ib_get_err_str(st));
		conn_fail(c);
	}
}

/* Client: the window's next connection to exchange, or UINT32_MAX. */
static uint32_t next_exchange(bench_t *b)
{
	uint32_t ci = UINT32_MAX;

	pthread_mutex_lock(&b->lock);
	if (b->x_next < b->n)
		ci = b->x_next++;
	pthread_mutex_unlock(&b->lock);
	return ci;
}

/* Server: echoes the message in receive slot s (the connection is established). */
void server_echo(bench_t *b, conn_t *c, uint32_t s)
{
	uint32_t seq;
	ib_api_status_t st;

	/* The same bytes back (they carry the client's index), from a send slot. */
	memcpy(&seq, slot(b, c->idx, s) + 4, 4);
	memcpy(slot(b, c->idx, RSLOTS + seq % SSLOTS), slot(b, c->idx, s), MSG_LEN);
	st = send_slot(b, c, RSLOTS + seq % SSLOTS);
	if (st == IB_SUCCESS)
		st = repost_recv(b, c, s);
	if (st != IB_SUCCESS) {
		failf(b, "connection %u: echo failed: %s", c->idx, ib_get_err_str(st));
		conn_fail(c);
	}
}

static void on_recv(bench_t *b, const ib_wc_t *wc)
{
	uint32_t ci = (uint32_t)(wc->wr_id >> 8), s = (uint32_t)(wc->wr_id & 0xFF), seq;
	conn_t *c = &b->c[ci];
	uint8_t *p = slot(b, ci, s);
	ib_api_status_t st;
	boolean_t echo;

	memcpy(&seq, p + 4, 4);
	if (b->server) {
		/* Messages carry the client's index; ours may differ, so check the bytes only. */
		uint32_t their;

		memcpy(&their, p, 4);
		if (!msg_good(p, wc->length, their, seq)) {
			failf(b, "connection %u: message damaged", ci);
			conn_fail(c);
			return;
		}
		pthread_mutex_lock(&b->lock);
		c->got++;
		echo = c->established;
		if (!echo)
			c->pending |= 1u << s;   /* data before the RTU: echo once it comes */
		pthread_mutex_unlock(&b->lock);
		if (echo)
			server_echo(b, c, s);
		return;
	}
	/* Client: the echo of message c->sent - 1. */
	if (!msg_good(p, wc->length, ci, seq) || seq + 1 != c->sent) {
		failf(b, "connection %u: echo %u is not message %u", ci, seq, c->sent - 1);
		conn_fail(c);
		return;
	}
	c->got++;
	st = repost_recv(b, c, s);
	if (st == IB_SUCCESS && c->sent < b->o->msgs) {
		st = send_msg(b, c, c->sent);
		c->sent++;
	} else if (st == IB_SUCCESS) {
		c->t[STEP_EXCHANGE].end = now_ns();
		count(b, &b->n_xdone);
		if ((ci = next_exchange(b)) != UINT32_MAX)
			start_exchange(b, ci);
		return;
	}
	if (st != IB_SUCCESS) {
		failf(b, "connection %u: posting failed: %s", ci, ib_get_err_str(st));
		conn_fail(c);
	}
}

/* The completion callback of the side's single CQ: drain, rearm, drain. */
static void AL_API on_cq(const ib_cq_handle_t h_cq, void *context)
{
	bench_t *b = (bench_t *)context;
	ib_wc_t wcs[32], *free_l, *done, *w;
	boolean_t rearmed = FALSE;
	ib_api_status_t st;
	unsigned i;

	for (;;) {
		for (i = 0; i < 32; i++)
			wcs[i].p_next = i + 1 < 32 ? &wcs[i + 1] : NULL;
		free_l = wcs;
		st = ib_poll_cq(h_cq, &free_l, &done);
		if (st == IB_NOT_FOUND && !rearmed) {
			st = ib_rearm_cq(h_cq, FALSE);
			rearmed = TRUE;
			if (st == IB_SUCCESS)
				continue;
		}
		if (st == IB_NOT_FOUND)
			return;
		if (st != IB_SUCCESS) {
			failf(b, "polling the CQ failed: %s", ib_get_err_str(st));
			return;
		}
		rearmed = FALSE;
		for (w = done; w; w = w->p_next) {
			uint32_t ci = (uint32_t)(w->wr_id >> 8);

			if (ci >= b->cap)
				continue;
			if (w->status != IB_WCS_SUCCESS) {
				/* Flushes after a disconnection are expected. */
				if (w->status != IB_WCS_WR_FLUSHED_ERR) {
					failf(b, "connection %u: %s completion failed: %s", ci,
					      ib_get_wc_type_str(w->wc_type),
					      ib_get_wc_status_str(w->status));
					conn_fail(&b->c[ci]);
				}
				continue;
			}
			if (w->wc_type == IB_WC_RECV)
				on_recv(b, w);
		}
	}
}

/* An event of the CA or the CQ (their context: the side). */
static void AL_API on_async(ib_async_event_rec_t *p_rec)
{
	bench_t *b = (bench_t *)p_rec->context;

	fprintf(stderr, "ibal_cmtime %s: asynchronous event %s\n", b ? b->name : "?",
		ib_get_async_event_str(p_rec->code));
}

/* An event of a QP (its context: the connection). */
static void AL_API on_qp_async(ib_async_event_rec_t *p_rec)
{
	conn_t *c = (conn_t *)p_rec->context;

	if (p_rec->code == IB_AE_QP_COMM)   /* data before the RTU: nothing to do */
		return;
	fprintf(stderr, "ibal_cmtime %s: connection %u: asynchronous event %s\n",
		c && c->b ? c->b->name : "?", c ? c->idx : 0, ib_get_async_event_str(p_rec->code));
}

/* ---- Setting up a side ---- */

/* Opens the access layer and the CA, finds the port, waits for it to be active. */
boolean_t open_side(bench_t *b)
{
	ib_net64_t guids[16];
	size_t n = 16, i;
	uint32_t size = 0, p;
	ib_ca_attr_t *attr = NULL;
	ib_api_status_t st;
	boolean_t found = FALSE;

	if (!ok(b, ib_open_al(&b->al), "ib_open_al"))
		return FALSE;
	st = ib_get_ca_guids(b->al, guids, &n);
	if (!ok(b, st, "ib_get_ca_guids"))
		return FALSE;
	if (!n) {
		failf(b, "no channel adapter");
		return FALSE;
	}
	if (b->ca_index >= (int)n) {
		failf(b, "-f needs %d CAs, found %zu (IBAL_SOFT_CAS)", b->ca_index + 1, n);
		return FALSE;
	}
	/* The CA: by index (-f), else the one with the port -P names, else the first. */
	for (i = b->ca_index >= 0 ? (size_t)b->ca_index : 0; i < n && !found; i++) {
		if (b->ca)
			ib_close_ca(b->ca, ib_sync_destroy);
		b->ca = NULL;
		if (!ok(b, ib_open_ca(b->al, guids[i], on_async, b, &b->ca), "ib_open_ca"))
			return FALSE;
		for (;;) {
			size = 0;
			free(attr);
			attr = NULL;
			if (ib_query_ca(b->ca, NULL, &size) != IB_INSUFFICIENT_MEMORY ||
			    !(attr = (ib_ca_attr_t *)malloc(size))) {
				failf(b, "ib_query_ca gave no size");
				return FALSE;
			}
			if (!ok(b, ib_query_ca(b->ca, attr, &size), "ib_query_ca")) {
				free(attr);
				return FALSE;
			}
			for (p = 0; p < attr->num_ports && !found; p++) {
				if (b->o->port_guid && b->ca_index < 0 &&
				    cl_ntoh64(attr->p_port_attr[p].port_guid) != b->o->port_guid)
					continue;
				if (!b->o->port_guid && p)
					continue;
				found = TRUE;
				b->port = attr->p_port_attr[p];
				b->port_num = attr->p_port_attr[p].port_num;
				b->gid = attr->p_port_attr[p].p_gid_table[0];
				b->port.p_gid_table = NULL;
				b->port.p_pkey_table = NULL;
			}
			/* The port must be active (the SM brings soft ports up at once). */
			if (!found || b->port.link_state == IB_LINK_ACTIVE || now_ns() >= b->deadline)
				break;
			found = FALSE;
			usleep(10000);
		}
		if (b->ca_index >= 0)
			break;
	}
	free(attr);
	if (!found) {
		if (b->o->port_guid)
			failf(b, "no local port with GUID 0x%016" PRIx64, b->o->port_guid);
		else
			failf(b, "the CA has no port");
		return FALSE;
	}
	if (b->port.link_state != IB_LINK_ACTIVE) {
		failf(b, "port %u is %s, not active", b->port_num,
		      ib_get_port_state_str(b->port.link_state));
		return FALSE;
	}
	return TRUE;
}

/* The PD, the CQ and the registered message buffers for cap connections. */
boolean_t make_resources(bench_t *b, uint32_t cap)
{
	ib_cq_create_t cc;
	ib_mr_create_t mc;
	net32_t rkey;
	size_t len = (size_t)cap * SLOTS * MSG_LEN;

	b->cap = cap;
	if (!(b->c = (conn_t *)calloc(cap, sizeof(*b->c))) || posix_memalign((void **)&b->buf, 4096, len)) {
		failf(b, "out of memory for %u connections", cap);
		return FALSE;
	}
	/* Both resident before the clock starts: the server's callbacks would
	 * otherwise fault the pages of its own records (b->c) as connections
	 * come, and count that as the CM's time. */
	memset(b->c, 0, (size_t)cap * sizeof(*b->c));
	memset(b->buf, 0, len);
	if (!ok(b, ib_alloc_pd(b->ca, IB_PDT_NORMAL, b, &b->pd), "ib_alloc_pd"))
		return FALSE;
	memset(&cc, 0, sizeof(cc));
	cc.size = cap * SLOTS + 64;
	cc.pfn_comp_cb = on_cq;
	if (!ok(b, ib_create_cq(b->ca, &cc, b, on_async, &b->cq), "ib_create_cq") ||
	    !ok(b, ib_rearm_cq(b->cq, FALSE), "ib_rearm_cq"))
		return FALSE;
	mc.vaddr = b->buf;
	mc.length = len;
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	return ok(b, ib_reg_mem(b->pd, &mc, &b->lkey, &rkey, &b->mr), "ib_reg_mem");
}

ib_api_status_t create_qp(bench_t *b, conn_t *c)
{
	ib_qp_create_t qc;

	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	qc.sq_depth = SSLOTS + 2;
	qc.rq_depth = RSLOTS;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = qc.h_rq_cq = b->cq;
	qc.sq_signaled = TRUE;
	return ib_create_qp(b->pd, &qc, c, on_qp_async, &c->qp);
}

static void AL_API on_qp_destroyed(void *context)
{
	conn_t *c = (conn_t *)context;

	c->t[STEP_DESTROY].end = now_ns();
	count(c->b, &c->b->n_destroyed);
}

/* Destroys every QP of the run and waits for their destroy callbacks. */
/* The connections made so far: none when the run failed before its array. */
static uint32_t conns_made(const bench_t *b)
{
	return b->c ? b->n : 0;
}

static boolean_t destroy_qps(bench_t *b)
{
	uint32_t i, want = 0;
	uint64_t grace = now_ns() + 10000000000ull;

	/* A run that used up its time still gets 10 s to clean up. */
	pthread_mutex_lock(&b->lock);
	if (b->deadline < grace)
		b->deadline = grace;
	pthread_mutex_unlock(&b->lock);

	for (i = 0; i < conns_made(b); i++) {
		conn_t *c = &b->c[i];

		if (!c->qp)
			continue;
		c->t[STEP_DESTROY].start = now_ns();
		if (ok(b, ib_destroy_qp(c->qp, on_qp_destroyed), "ib_destroy_qp"))
			want++;
		c->qp = NULL;
	}
	return wait_count(b, &b->n_destroyed, NULL, want, "QPs destroyed");
}

/* ---- Callbacks both sides use ---- */

void AL_API on_mra(ib_cm_mra_rec_t *p)
{
	conn_t *c = (conn_t *)p->qp_context;

	count(c->b, &c->b->n_mra);
}

/* ---- The reference without a CM (-f --raw) ---- */

/* Takes a QP RESET -> INIT -> RTR -> RTS towards (dlid, dqpn). */
static ib_api_status_t raw_connect(bench_t *b, ib_qp_handle_t qp, ib_net16_t dlid, ib_net32_t dqpn)
{
	ib_qp_mod_t m;
	ib_api_status_t st;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = b->port_num;
	m.state.init.access_ctrl = IB_AC_LOCAL_WRITE;
	if ((st = ib_modify_qp(qp, &m)) != IB_SUCCESS)
		return st;
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTR;
	m.state.rtr.rq_psn = cl_hton32(1);
	m.state.rtr.dest_qp = dqpn;
	m.state.rtr.primary_av.port_num = b->port_num;
	m.state.rtr.primary_av.dlid = dlid;
	m.state.rtr.primary_av.conn.path_mtu = b->port.mtu;
	m.state.rtr.primary_av.conn.local_ack_timeout = 14;
	m.state.rtr.primary_av.conn.seq_err_retry_cnt = 7;
	m.state.rtr.primary_av.conn.rnr_retry_cnt = 7;
	m.state.rtr.rnr_nak_timeout = 1;
	if ((st = ib_modify_qp(qp, &m)) != IB_SUCCESS)
		return st;
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.sq_psn = cl_hton32(1);
	m.state.rts.retry_cnt = 7;
	m.state.rts.rnr_retry_cnt = 7;
	m.state.rts.local_ack_timeout = 14;
	return ib_modify_qp(qp, &m);
}

static ib_api_status_t raw_error(ib_qp_handle_t qp)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_ERROR;
	return ib_modify_qp(qp, &m);
}

/*
 * Both sides in this thread: b (CA 1, the "client") and s (CA 0). Each
 * "connection" is a QP on each CA taken to RTS towards the other by hand
 * (what the CM does for both ends, without the messages); disconnecting
 * puts both in ERROR. Messages (-n) are exchanged as in the CM run.
 */
static boolean_t raw_run(bench_t *b, bench_t *s)
{
	uint32_t i;
	ib_qp_attr_t qa, sa;

	b->n = s->n = b->o->conns;
	if (!open_side(s) || !open_side(b) || !make_resources(s, s->n) || !make_resources(b, b->n))
		return FALSE;
	for (i = 0; i < b->n; i++) {
		conn_t *c = &b->c[i], *d = &s->c[i];

		c->b = b;
		d->b = s;
		c->idx = d->idx = i;
		c->t[STEP_CREATE].start = now_ns();
		if (!ok(b, create_qp(b, c), "ib_create_qp") || !ok(s, create_qp(s, d), "ib_create_qp"))
			return FALSE;
		c->t[STEP_CREATE].end = now_ns();
	}
	for (i = 0; i < b->n; i++) {
		conn_t *c = &b->c[i], *d = &s->c[i];

		c->t[STEP_CONNECT].start = now_ns();
		if (!ok(b, ib_query_qp(c->qp, &qa), "ib_query_qp") ||
		    !ok(s, ib_query_qp(d->qp, &sa), "ib_query_qp") ||
		    !ok(s, raw_connect(s, d->qp, b->port.lid, qa.num), "ib_modify_qp (server end)") ||
		    !ok(s, post_recvs(s, d), "ib_post_recv") ||
		    !ok(b, raw_connect(b, c->qp, s->port.lid, sa.num), "ib_modify_qp (client end)") ||
		    !ok(b, post_recvs(b, c), "ib_post_recv"))
			return FALSE;
		d->established = TRUE;
		c->t[STEP_CONNECT].end = now_ns();
	}
	if (!client_exchange(b))
		return FALSE;
	for (i = 0; i < b->n; i++) {
		conn_t *c = &b->c[i];

		c->t[STEP_DISCONNECT].start = now_ns();
		if (!ok(b, raw_error(c->qp), "ib_modify_qp to ERROR") ||
		    !ok(s, raw_error(s->c[i].qp), "ib_modify_qp to ERROR"))
			return FALSE;
		c->t[STEP_DISCONNECT].end = now_ns();
	}
	for (i = 0; i < b->n; i++) {
		conn_t *c = &b->c[i];

		c->t[STEP_DESTROY].start = now_ns();
		if (!ok(b, ib_destroy_qp(c->qp, ib_sync_destroy), "ib_destroy_qp") ||
		    !ok(s, ib_destroy_qp(s->c[i].qp, ib_sync_destroy), "ib_destroy_qp"))
			return FALSE;
		c->qp = s->c[i].qp = NULL;
		c->t[STEP_DESTROY].end = now_ns();
	}
	return TRUE;
}

/* ---- Report ---- */

typedef struct stat {
	uint32_t n;
	double total_ms, max_ms, min_us, avg_us;
} stat_t;

static stat_t step_stat(const bench_t *b, int k)
{
	stat_t r;
	uint64_t first = UINT64_MAX, last = 0, mx = 0, mn = UINT64_MAX, sum = 0, d;
	uint32_t i;

	memset(&r, 0, sizeof(r));
	if (k == STEP_RESOLVE) {
		if (!b->resolve.end)
			return r;
		d = b->resolve.end - b->resolve.start;
		r.n = 1;
		r.total_ms = r.max_ms = d / 1e6;
		r.min_us = r.avg_us = d / 1e3;
		return r;
	}
	for (i = 0; i < conns_made(b); i++) {
		const span_t *t = &b->c[i].t[k];

		if (!t->start || !t->end || t->end < t->start)
			continue;
		d = t->end - t->start;
		first = t->start < first ? t->start : first;
		last = t->end > last ? t->end : last;
		mx = d > mx ? d : mx;
		mn = d < mn ? d : mn;
		sum += d;
		r.n++;
	}
	if (!r.n)
		return r;
	r.total_ms = (last - first) / 1e6;
	r.max_ms = mx / 1e6;
	r.min_us = mn / 1e3;
	r.avg_us = sum / 1e3 / r.n;
	return r;
}

/* Prints a side's tables (and JSON line); with -f both sides report at
 * once, so a report holds stdout's lock from its first line to its last
 * and the two never interleave (scripts read each side's lines). */
static void report_locked(const bench_t *b, const char *mode, boolean_t good);

static void report(const bench_t *b, const char *mode, boolean_t good)
{
	flockfile(stdout);
	report_locked(b, mode, good);
	fflush(stdout);
	funlockfile(stdout);
}

static void report_locked(const bench_t *b, const char *mode, boolean_t good)
{
	stat_t st[STEPS];
	double conn_s = 0, both_s = 0;
	int k;

	printf("ibal_cmtime %s (%s): %u connections, %u message%s each%s\n", b->name, mode, b->n,
	       b->msgs, b->msgs == 1 ? "" : "s", good ? "" : " - FAILED");
	printf("%-14s %10s %10s %10s %10s\n", "step", "total ms", "max ms", "min us", "us / conn");
	for (k = 0; k < STEPS; k++) {
		st[k] = step_stat(b, k);
		if (st[k].n)
			printf("%-12s : %10.2f %10.2f %10.2f %10.2f\n",
			       b->server ? srv_step_name[k] : cli_step_name[k], st[k].total_ms,
			       st[k].max_ms, st[k].min_us, st[k].avg_us);
	}
	if (st[STEP_CONNECT].total_ms > 0)
		conn_s = st[STEP_CONNECT].n * 1000.0 / st[STEP_CONNECT].total_ms;
	if (st[STEP_CONNECT].total_ms + st[STEP_DISCONNECT].total_ms > 0 && st[STEP_DISCONNECT].n)
		both_s = st[STEP_DISCONNECT].n * 1000.0 /
			 (st[STEP_CONNECT].total_ms + st[STEP_DISCONNECT].total_ms);
	printf("connections per second: %.0f connect, %.0f connect + disconnect\n", conn_s, both_s);
	if (b->n_mra)
		printf("MRAs received: %u\n", b->n_mra);
	if (!b->o->json)
		return;
	printf("{\"tool\":\"ibal_cmtime\",\"role\":\"%s\",\"mode\":\"%s\",\"ok\":%s,\"conns\":%u,"
	       "\"msgs\":%u,\"failed\":%u,\"steps\":{", b->name, mode, good ? "true" : "false", b->n,
	       b->msgs, b->n_fail);
	for (k = 0; k < STEPS; k++)
		printf("%s\"%s\":{\"n\":%u,\"total_ms\":%.3f,\"max_ms\":%.3f,\"min_us\":%.2f,"
		       "\"avg_us\":%.2f}", k ? "," : "", step_key[k], st[k].n, st[k].total_ms,
		       st[k].max_ms, st[k].min_us, st[k].avg_us);
	printf("},\"conn_per_s\":%.1f,\"conn_disc_per_s\":%.1f}\n", conn_s, both_s);
}

/* ---- Sides, threads, process ---- */

static void bench_init(bench_t *b, const opts_t *o, boolean_t server, int ca_index)
{
	memset(b, 0, sizeof(*b));
	b->o = o;
	b->server = server;
	b->name = server ? "server" : "client";
	b->ca_index = ca_index;
	b->msgs = o->msgs;
	b->deadline = now_ns() + (uint64_t)o->limit_s * 1000000000u;
	ibal_progress_init(&b->prog);
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->cond, NULL);
}

static void bench_close(bench_t *b)
{
	uint32_t i;

	if (b->listen)
		ib_cm_cancel(b->listen, ib_sync_destroy);
	if (b->reg)
		ib_dereg_svc(b->reg, ib_sync_destroy);
	if (b->al && ib_close_al(b->al) != IB_SUCCESS)
		fprintf(stderr, "ibal_cmtime %s: ib_close_al failed\n", b->name);
	b->al = NULL;
	for (i = 0; b->c && i < b->n; i++)
		b->c[i].qp = NULL;
	free(b->c);
	free(b->buf);
	pthread_cond_destroy(&b->cond);
	pthread_mutex_destroy(&b->lock);
}

static int run_server(const opts_t *o, int ca_index, bench_t *b)
{
	boolean_t good = server_run(b);
	uint32_t i, left = 0;

	if (!good)
		tell_ready(b, -1);
	for (i = 0; i < conns_made(b); i++)
		if (b->c[i].qp && !b->c[i].failed && !b->c[i].t[STEP_DISCONNECT].end)
			left++;
	if (left) {
		failf(b, "%u connections still up when the run ended (destroying their QPs "
		      "disconnects them)", left);
		good = FALSE;
	}
	if (b->n)
		good = destroy_qps(b) && good;
	report(b, "cm", good);
	(void)o;
	(void)ca_index;
	return good ? 0 : 1;
}

static int run_client(bench_t *b, const ib_gid_t *dgid)
{
	boolean_t good = client_run(b, dgid);

	good = destroy_qps(b) && good;
	report(b, "cm", good);
	return good ? 0 : 1;
}

/* -f: the server's thread. */
typedef struct srv_thread {
	bench_t b;
	int rc;
} srv_thread_t;

static void *server_thread(void *arg)
{
	srv_thread_t *t = (srv_thread_t *)arg;

	t->rc = run_server(t->b.o, 0, &t->b);
	return NULL;
}

/* Removes the files of a private fabric directory, then the directory. */
static void rm_fabric(const char *dir)
{
	char path[4096];
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

static int run_both(const opts_t *o)
{
	static char fab[64];
	const char *cas = getenv("IBAL_SOFT_CAS");
	boolean_t own_fab = FALSE;
	pthread_mutex_t rl = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t rc = PTHREAD_COND_INITIALIZER;
	int ready = 0, rcode;
	ib_gid_t gid;
	srv_thread_t *st;
	bench_t cli;
	pthread_t th;
	struct timespec ts;

	if (!cas || atoi(cas) < 2)
		setenv("IBAL_SOFT_CAS", "2", 1);
	if (!getenv("IBAL_SOFT_FABRIC")) {
		strcpy(fab, "/tmp/ibal-cmtime-XXXXXX");
		if (!mkdtemp(fab)) {
			perror("ibal_cmtime: mkdtemp");
			return 1;
		}
		setenv("IBAL_SOFT_FABRIC", fab, 1);
		own_fab = TRUE;
	}
	if (o->raw) {
		bench_t s;

		bench_init(&s, o, TRUE, 0);
		bench_init(&cli, o, FALSE, 1);
		rcode = raw_run(&cli, &s) ? 0 : 1;
		report(&cli, "raw", rcode == 0);
		bench_close(&cli);
		bench_close(&s);
		goto out;
	}
	st = (srv_thread_t *)calloc(1, sizeof(*st));
	if (!st)
		return 1;
	bench_init(&st->b, o, TRUE, 0);
	st->b.prog.on = 0; /* one progress line: the client's */
	st->b.ready_lock = &rl;
	st->b.ready_cond = &rc;
	st->b.ready = &ready;
	st->b.ready_gid = &gid;
	if (pthread_create(&th, NULL, server_thread, st)) {
		perror("ibal_cmtime: pthread_create");
		return 1;
	}
	pthread_mutex_lock(&rl);
	while (!ready) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += o->limit_s;
		if (pthread_cond_timedwait(&rc, &rl, &ts) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&rl);
	bench_init(&cli, o, FALSE, 1);
	rcode = ready > 0 ? run_client(&cli, &gid) : 1;
	if (ready <= 0)
		fprintf(stderr, "ibal_cmtime: the server thread did not start listening\n");
	pthread_join(th, NULL);
	rcode |= st->rc;
	bench_close(&cli);
	bench_close(&st->b);
	free(st);
out:
	if (own_fab)
		rm_fabric(fab);
	return rcode;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ibal_cmtime -s [options]          server\n"
		"       ibal_cmtime [options] [DEST]      client (DEST: the server's GID or LID;\n"
		"                                         none: found by its service ID)\n"
		"       ibal_cmtime -f [--raw] [options]  both sides in this process (two soft CAs)\n"
		"  -s          run the server\n"
		"  -f          server and client as two threads of one process (IBAL_SOFT_CAS=2)\n"
		"  --raw       with -f: no CM, QP pairs connected by hand with ib_modify_qp\n"
		"  -c N        connections (default 100); server: connections to serve\n"
		"              (default: as the client announces; above %u give -c)\n"
		"  -n M        messages exchanged per connection (default 1)\n"
		"  -S SVC_ID   service ID (default 0x1060000 + port)\n"
		"  -p PORT     service port (default 7471)\n"
		"  -P GUID     local port GUID to use (-b GUID: the same)\n"
		"  -d DEST     the server's GID (fe80::...) or LID\n"
		"  -r N        CM retries (default 8)\n"
		"  -t MS       CM response timeout in ms (default 1000)\n"
		"  -w N        at most N requests, exchanges, DREQs in flight (default 0: all)\n"
		"  -T S        limit of the whole run in seconds (default 120)\n"
		"  --json      also print the results as one JSON line\n"
		"The soft fabric directory is $IBAL_SOFT_FABRIC (with -f: a private one if unset).\n",
		SRV_MIN_CAP);
}

static boolean_t parse_u64(const char *arg, uint64_t lo, uint64_t hi, uint64_t *out)
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
		{ "raw", no_argument, NULL, 'R' }, { "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	opts_t o;
	uint64_t v, port = 7471;
	boolean_t svc_given = FALSE, conns_given = FALSE;
	int c, li, rc;
	bench_t b;

	memset(&o, 0, sizeof(o));
	o.conns = 100;
	o.msgs = 1;
	o.retries = 8;
	o.timeout_ms = 1000;
	o.limit_s = 120;
	o.window = 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	opterr = 0;
	while ((li = -1, c = getopt_long(argc, argv, ":sfc:n:S:p:P:b:d:r:t:w:T:h", longopts, &li)) !=
	       -1) {
		switch (c) {
		case 's': o.server = TRUE; continue;
		case 'f': o.both = TRUE; continue;
		case 'R': o.raw = TRUE; continue;
		case 'J': o.json = TRUE; continue;
		case 'd': o.dest = optarg; continue;
		case 'h': usage(stdout); return 0;
		case 'c': if (parse_u64(optarg, 0, 16000, &v)) { o.conns = (uint32_t)v; conns_given = TRUE; continue; } break;
		case 'n': if (parse_u64(optarg, 0, 100000000, &v)) { o.msgs = (uint32_t)v; continue; } break;
		case 'S': if (parse_u64(optarg, 1, UINT64_MAX, &v)) { o.svc_id = v; svc_given = TRUE; continue; } break;
		case 'p': if (parse_u64(optarg, 0, 65535, &v)) { port = v; continue; } break;
		case 'P': case 'b': if (parse_u64(optarg, 1, UINT64_MAX, &v)) { o.port_guid = v; continue; } break;
		case 'r': if (parse_u64(optarg, 0, 15, &v)) { o.retries = (uint8_t)v; continue; } break;
		case 't': if (parse_u64(optarg, 1, 600000, &v)) { o.timeout_ms = (uint32_t)v; continue; } break;
		case 'w': if (parse_u64(optarg, 0, 16000, &v)) { o.window = (uint32_t)v; continue; } break;
		case 'T': if (parse_u64(optarg, 1, 86400, &v)) { o.limit_s = (uint32_t)v; continue; } break;
		default: break;
		}
		return ibal_cmdline_error("ibal_cmtime", c, longopts, li, argv);
	}
	if (optind < argc && !o.dest)
		o.dest = argv[optind++];
	if (optind < argc)
		return ibal_cmdline_extra("ibal_cmtime", argv[optind]);
	if (o.server && o.both)
		return ibal_cmdline_bad("ibal_cmtime", "-s and -f exclude each other");
	if (o.raw && !o.both)
		return ibal_cmdline_bad("ibal_cmtime", "--raw goes with -f");
	if (o.server && o.dest)
		return ibal_cmdline_bad("ibal_cmtime", "a server takes no destination");
	if (!o.server && !o.conns)
		return ibal_cmdline_bad("ibal_cmtime", "a client needs at least one connection (-c)");
	if (!svc_given)
		o.svc_id = RDMA_PS_TCP + port;
	if (o.server && !conns_given)
		o.conns = 0;   /* as many as the client announces */
	if (o.both)
		return run_both(&o);
	bench_init(&b, &o, o.server, -1);
	rc = o.server ? run_server(&o, -1, &b) : run_client(&b, NULL);
	bench_close(&b);
	return rc;
}
