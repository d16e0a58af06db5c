/*
 * ibal ulp: ibal_demo's shared definitions: options, the control channel's
 * messages, one side of the demo, and what its files call of each other.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * ibal_demo.c has the options, the control channel, the patterns, a side's
 * resources, the server and the processes; demo_cm.c the connection through
 * the connection manager; demo_client.c the client's measurements. See
 * ibal_demo.c for what the program does.
 */
#ifndef IBAL_DEMO_H
#define IBAL_DEMO_H

#include <stdint.h>
#include <time.h>
#include <iba/ib_al.h>
#include <complib/comp_lib.h>

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

/* When the run must end (CLOCK_MONOTONIC ns); set by main(). */
extern uint64_t deadline_ns;

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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

/* What the connection manager's callbacks report (side_t::cm_ev). */
enum {
	CM_EV_REQ = 1u << 0,   /* server: a request came */
	CM_EV_REP = 1u << 1,   /* client: the reply came and was answered with the RTU */
	CM_EV_RTU = 1u << 2,   /* server: the RTU came, the connection is up */
	CM_EV_REJ = 1u << 3,   /* either: rejected (rej_status says why) */
	CM_EV_DREQ = 1u << 4,  /* either: the peer disconnected (answered) */
	CM_EV_DREP = 1u << 5,  /* client: our disconnection was answered (cm_status) */
	CM_EV_FAIL = 1u << 6,  /* either: a call inside a CM callback failed (cm_status) */
};

/* ---- Message slots ---- */

static inline uint8_t *recv_slot(side_t *s, uint32_t i)
{
	return s->slots + (size_t)i * SLOT;
}

static inline uint8_t *send_slot(side_t *s, uint32_t i)
{
	return s->slots + (size_t)(s->n_recv + i % s->n_send) * SLOT;
}

/* ---- ibal_demo.c ---- */

/* Microseconds left before the deadline (0 once it passed). */
uint64_t left_us(void);
/* Records and prints a failure; returns FALSE for `return fail(...)`. */
boolean_t fail(side_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Checks an access-layer status. */
boolean_t ok(side_t *s, ib_api_status_t st, const char *what);
/* Sends a control message (the side's hello fields with OOB_HELLO). */
boolean_t oob_send(side_t *s, uint32_t type, uint64_t arg0, uint64_t arg1);
/* Waits (bounded by the deadline) for a message of the given type. */
boolean_t oob_expect(side_t *s, oob_msg_t *m, uint32_t type);
/* Between waits: a message from the peer now can only be a failure. */
boolean_t peer_check(side_t *s);
/* Server: reports a failure the completion callback recorded, if any. */
boolean_t cb_check(side_t *s);
/* A 64-bit mixing function (the patterns, the starting PSN). */
uint64_t mix(uint64_t x);
/* Fills @p len bytes with the pattern of @p seed (RDMA buffers). */
void pattern_fill(uint8_t *p, uint64_t len, uint64_t seed);
/* The offset of the first byte that differs from the pattern, or len. */
uint64_t pattern_check(const uint8_t *p, uint64_t len, uint64_t seed);
/* A small message: kind, sequence number, then bytes derived from both. */
void msg_fill(uint8_t *p, uint32_t len, uint32_t kind, uint32_t seq);
/* Whether a received small message is the one msg_fill() made. */
boolean_t msg_good(const uint8_t *p, uint32_t len, uint32_t kind, uint32_t seq);
/* Posts receive slot @p i. */
ib_api_status_t post_recv_slot(side_t *s, uint32_t i);
/* Fills one send WR (with its data segment) for a send of a slot or an RDMA op. */
void make_wr(ib_send_wr_t *wr, ib_local_ds_t *ds, ib_wr_type_t type, uint64_t wr_id,
	     const void *addr, uint32_t len, net32_t lkey);
/* Opens a side's CA, PD, CQs, QP and memory regions. */
boolean_t side_open(side_t *s);

/* ---- demo_cm.c ---- */

/* Waits (bounded by the deadline) for one of the CM events in mask; a rejection fails. */
boolean_t cm_wait(side_t *s, uint32_t mask, const char *what);
/* Server: listens on DEMO_SVC_BASE + pid, on our port, before telling the client. */
boolean_t cm_listen(side_t *s);
/*
 * Server: waits for the client's REQ, accepts it with the REP (the QP, all
 * receive slots posted with it, RDMA read and write allowed on the buffer),
 * and waits for the RTU.
 */
boolean_t server_accept(side_t *s);
/* Client: the path through the SA, the REQ, and (from the REP callback) the RTU. */
boolean_t client_connect(side_t *s);
/* Client: disconnects (DREQ) and waits for the DREP. */
boolean_t client_disconnect(side_t *s);
/* The control channel's first exchange: each side's port, LID and service ID. */
boolean_t hello(side_t *s);
/* Prints one end of the connection: pid, LID, QPN, PSN, buffer and R_Key. */
void print_end(const char *who, const oob_msg_t *m);

/* ---- demo_client.c ---- */

/* The client: connects, measures and checks, prints the table, disconnects. */
boolean_t client_run(side_t *s);

#endif /* IBAL_DEMO_H */
