/*
 * ibal bench: what the parts of bench_soft share: limits, options, failure,
 * the out-of-band channel, data patterns and one end of an RC connection.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * bench_soft.c is the program (the parent's measurements, the scale and
 * memory modes, the options), bench_soft_child.c the target process of the
 * two-process measurements, bench_soft_common.c what both use. What a
 * measured loop calls on every round is here inline (now_ns, pp_inline) or
 * in the loop's own file, so that the split adds no call to it.
 */
#ifndef TESTS_BENCH_SOFT_H
#define TESTS_BENCH_SOFT_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <iba/ib_al.h>
#include <complib/comp_lib.h>

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

/* ---- Options, time, failure (bench_soft_common.c) ---- */

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

extern char g_fab_dir[64];              /* the private fabric directory */
extern boolean_t g_poll;                /* the parent polls its CQ (-e: waits for events) */
extern boolean_t g_small_pages;         /* -4: RDMA buffers on 4 KiB pages, no huge pages asked */
extern uint32_t g_inline;               /* -I: ping-pong sends of up to this many bytes go inline */
extern pid_t g_child;                   /* parent: the child's pid, 0 once reaped */
extern int g_fd;                        /* the out-of-band socket */
extern int g_is_child;                  /* this process is the child */
extern unsigned g_limit_s;              /* limit of the whole run */

/* The largest RDMA size of -s (at least 8) and message size of -m and -l (at least MIN_MSG). */
void opts_largest(const opts_t *o, uint64_t *p_max_rdma, uint32_t *p_max_msg);

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Prints the reason and exits with status 1. The child first tells the
 * parent why; the parent kills the child and removes the fabric directory.
 */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#define CHECK(call)                                                        \
	do {                                                               \
		ib_api_status_t st__ = (call);                             \
		if (st__ != IB_SUCCESS)                                    \
			die("%s failed: %s", #call, ib_get_err_str(st__)); \
	} while (0)

/* The handler of SIGALRM, SIGTERM and SIGINT: the run's backstop. */
void on_alarm(int sig);

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

/* Sends @p m as a message of @p type (bounded). */
void ctl_send(ctl_t *m, uint32_t type);

/* Receives one message of @p type (0: any) within @p wait_ms; a CTL_ERROR is the peer's failure. */
void ctl_recv(ctl_t *m, uint32_t type, int wait_ms);

/* ---- Data patterns ---- */

/* A 64-bit mix of @p x (seeds, PSNs). */
uint64_t mix(uint64_t x);

/* Fills @p len bytes at @p p with the pattern of @p seed. */
void pattern(uint8_t *p, uint64_t len, uint64_t seed);

/* Whether @p len bytes at @p p hold the pattern of @p seed. */
boolean_t pattern_ok(const uint8_t *p, uint64_t len, uint64_t seed);

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
static inline uint32_t pp_inline(const end_t *e, uint32_t len)
{
	return len <= e->max_inline ? IB_SEND_OPT_INLINE : 0;
}

/* Reads port 1 of a CA: its LID and MTU. */
void port_info(ib_ca_handle_t ca, ib_net16_t *p_lid, uint8_t *p_mtu);

/* KiB of this process's anonymous memory on transparent huge pages (0 if unknown). */
unsigned long huge_page_kib(void);

/*
 * Opens an end on a CA: PD, one CQ (polled through a wait object, or with
 * the completion callback cb), an RC QP, the RDMA buffer (open to remote
 * writes if remote is TRUE) and n_slots message slots of slot_len bytes.
 */
void end_open(end_t *e, ib_ca_handle_t ca, ib_pfn_comp_cb_t cb, void *cb_ctx, uint32_t sq,
	      uint32_t rq, uint64_t buf_len, boolean_t remote, uint32_t n_slots, uint32_t slot_len);

/* After ib_close_al (which destroyed the verbs objects): the memory and the wait object. */
void end_free(end_t *e);

/* RESET -> INIT; remote TRUE lets the peer write into this end's memory. */
void qp_init(end_t *e, boolean_t remote);

/* INIT -> RTR -> RTS towards the peer, as a connection manager would. */
void qp_connect(end_t *e, ib_net16_t lid, ib_net32_t qpn, ib_net32_t psn, uint8_t mtu);

/* A CTL_HELLO describing @p e: what a connection manager would carry. */
void ctl_hello(ctl_t *m, const end_t *e);

/* ---- The child (bench_soft_child.c) ---- */

/* The child process of the two-process measurements, forked by @p parent; its exit status. */
int child_main(pid_t parent, const opts_t *o);

#endif /* TESTS_BENCH_SOFT_H */
