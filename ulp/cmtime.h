/*
 * ibal ulp: ibal_cmtime's shared definitions: options, one connection and
 * one side of the benchmark, and what the server, the client and the rest
 * of the program call of each other.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * ibal_cmtime.c has the options, the sides' set-up, messages and
 * completions, the no-CM reference, the report and main();
 * cmtime_server.c the server; cmtime_client.c the client. See
 * ibal_cmtime.c for what the program does.
 */
#ifndef IBAL_CMTIME_H
#define IBAL_CMTIME_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <iba/ib_al.h>
#include <complib/comp_lib.h>
#include "ibal_progress.h"

#define MSG_LEN 64u              /* bytes of one message */
#define RSLOTS 2u                /* receive buffers per connection */
#define SSLOTS 2u                /* send buffers per connection */
#define SLOTS (RSLOTS + SSLOTS)
#define SRV_MIN_CAP 4096u        /* connections a server can hold at least */
#define PD_MAGIC 0x434D5449u     /* "CMTI": private data of our REQs and REPs */
#define RDMA_PS_TCP 0x0000000001060000ull

/* ---- Options ---- */

typedef struct opts {
	boolean_t server, both, raw, json;
	uint32_t conns;          /* -c */
	uint32_t msgs;           /* -n */
	uint64_t svc_id;         /* host order */
	uint64_t port_guid;      /* -P, host order; 0 = default */
	const char *dest;        /* -d / DEST */
	uint8_t retries;         /* -r */
	uint32_t timeout_ms;     /* -t */
	uint32_t window;         /* -w */
	uint32_t limit_s;        /* -T */
} opts_t;

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- Per-phase timing (cmtime's step table) ---- */

enum {
	STEP_RESOLVE, STEP_CREATE, STEP_REQ_REP, STEP_RTU, STEP_CONNECT, STEP_EXCHANGE,
	STEP_DISCONNECT, STEP_DESTROY, STEPS
};

/* One step of one connection: when it started and ended (0: not done). */
typedef struct span {
	uint64_t start, end;
} span_t;

/* ---- One connection, one side ---- */

typedef struct bench bench_t;

typedef struct conn {
	bench_t *b;
	uint32_t idx;
	ib_qp_handle_t qp;
	span_t t[STEPS];
	uint32_t sent, got;        /* messages: client sent / echoes received; server received */
	uint32_t pending;          /* server: bit per receive slot to echo once established */
	boolean_t established;     /* server: the RTU came */
	boolean_t failed;
} conn_t;

/* One side of the benchmark. */
struct bench {
	const opts_t *o;
	const char *name;          /* "server" or "client" */
	boolean_t server;
	int ca_index;              /* -f: which CA; -1: by -P or the first */
	uint64_t deadline;

	ib_al_handle_t al;
	ib_ca_handle_t ca;
	ib_pd_handle_t pd;
	ib_cq_handle_t cq;
	ib_mr_handle_t mr;
	net32_t lkey;
	uint8_t *buf;              /* SLOTS * MSG_LEN bytes per connection */
	ib_port_attr_t port;       /* the local port (tables not kept) */
	uint8_t port_num;
	ib_gid_t gid;
	ib_path_rec_t path;        /* client: to the server */
	ib_listen_handle_t listen;
	ib_reg_svc_handle_t reg;

	conn_t *c;
	uint32_t cap;              /* entries of c[] */
	uint32_t n;                /* connections of the run */
	uint32_t expect;           /* server: connections to serve (0: not known yet) */
	uint32_t msgs;             /* messages per connection (the server: as announced) */

	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint32_t n_req, n_rep, n_rej, n_est, n_xdone, n_disc, n_dfail, n_destroyed, n_fail;
	/* What wait_count() waits for (w_a NULL: nothing): counts wake it only then. */
	const uint32_t *w_a, *w_b;
	uint32_t w_want;
	uint32_t n_mra;
	uint32_t x_next;           /* client: the next connection to start exchanging */
	boolean_t stop_on_fail;    /* a wait ends at the first failed connection */
	span_t resolve;
	uint16_t sa_status;        /* the MAD status of the last SA answer that was an error */
	char err[256];             /* the first failure */
	ibal_progress_t prog;      /* on a terminal: the waits' counts (not -f's server thread) */

	/* -f: the server tells the client where it is. */
	pthread_mutex_t *ready_lock;
	pthread_cond_t *ready_cond;
	int *ready;                /* 1 listening, -1 failed */
	ib_gid_t *ready_gid;
};

/* The CM response timeout field for a time in ms: 4.096 us * 2^x >= ms. */
static inline uint8_t cm_timeout_exp(uint32_t ms)
{
	uint8_t x = 0;

	while (x < 31 && 4.096 * (double)(1u << x) < ms * 1000.0)
		x++;
	return x;
}

/* The private data of our REQs (network order). */
typedef struct req_pdata {
	net32_t magic, idx, total, msgs, pid;
} req_pdata_t;

/* ---- Message buffers ---- */

/* Buffer @p s of connection @p ci. */
static inline uint8_t *slot(bench_t *b, uint32_t ci, uint32_t s)
{
	return b->buf + ((size_t)ci * SLOTS + s) * MSG_LEN;
}

/* wr_id of a buffer: connection index and slot. */
static inline uint64_t wr_id(uint32_t ci, uint32_t s)
{
	return ((uint64_t)ci << 8) | s;
}

/* ---- ibal_cmtime.c ---- */

/* Says why a side fails (once, the first reason kept for the report). */
void failf(bench_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Checks an access-layer status; FALSE (after saying why) unless IB_SUCCESS. */
boolean_t ok(bench_t *b, ib_api_status_t st, const char *what);
/* Counts one event under the side's lock; wakes wait_count() when it is met. */
void count(bench_t *b, uint32_t *p);
/* Wakes the waiter of wait_count() if its wait is met (b->lock held). */
void wake_if_met(bench_t *b);
/* Marks a connection failed (once) and counts it. */
void conn_fail(conn_t *c);
/* Waits until *a (+ *b2) reaches want, the run's limit or a failure. */
boolean_t wait_count(bench_t *b, const uint32_t *a, const uint32_t *b2, uint32_t want,
		     const char *what);
/* Posts a connection's receive buffers. */
ib_api_status_t post_recvs(bench_t *b, conn_t *c);
/* Client: starts the exchange of connection @p ci (its first message). */
void start_exchange(bench_t *b, uint32_t ci);
/* Server: echoes the message in receive slot @p s (the connection is established). */
void server_echo(bench_t *b, conn_t *c, uint32_t s);
/* Opens the access layer and the CA, finds the port, waits for it to be active. */
boolean_t open_side(bench_t *b);
/* The PD, the CQ and the registered message buffers for @p cap connections. */
boolean_t make_resources(bench_t *b, uint32_t cap);
/* Creates connection @p c's RC QP on the side's PD and CQ. */
ib_api_status_t create_qp(bench_t *b, conn_t *c);
/* The MRA callback of both sides: counted. */
void AL_API on_mra(ib_cm_mra_rec_t *p);

/* ---- cmtime_server.c ---- */

/* -f: tells the client thread that the server listens (1) or failed (-1). */
void tell_ready(bench_t *b, int v);
/* Listens, serves the run's connections; TRUE if all went well. */
boolean_t server_run(bench_t *b);

/* ---- cmtime_client.c ---- */

/* Resolves the path to the server (by GID, by LID or by service ID). */
boolean_t resolve(bench_t *b, const ib_gid_t *dgid_in);
/* Sends the messages of every connection, -w at a time, and waits for the echoes. */
boolean_t client_exchange(bench_t *b);
/* Connects, exchanges and disconnects the run's connections; TRUE if all went well. */
boolean_t client_run(bench_t *b, const ib_gid_t *dgid);

#endif /* IBAL_CMTIME_H */
