/*
 * ibal verbs provider: private declarations (CAs from libibumad, the MAD path on QP0/QP1).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file verbs_prov.h
 * @brief Internal interface of the "verbs" provider (never installed).
 *
 * **What it is.** A provider whose CAs are the libibverbs devices
 * (ibv_get_device_list(), matched to libibumad's CAs by node GUID) and the
 * libibumad CAs that have no libibverbs device (ibsim through umad2sim,
 * which offers MADs only). On a libibverbs CA every verb maps to its ibv_*
 * call (verbs_dev.c: CA, attributes, events; verbs_obj.c: PD, AV as an
 * ibv_ah, MR, CQ; verbs_mw.c: memory windows; verbs_qp.c: QP, SRQ, the
 * data path; verbs_watch.c: devices added and removed), while QP0/QP1
 * (create_spl_qp) go through libibumad agents (verbs_mad.c) as on a
 * MAD-only CA, whose data-path slots answer IB_UNSUPPORTED. Built only with
 * libibverbs and libibumad (HAVE_VERBS_PROV); without them verbs_prov_ops
 * enumerates no CA.
 *
 * **Objects.** verbs_ca_t per open CA, with one verbs_port_t per port. A
 * port opens its umad device (umad_open_port) when its first special QP is
 * created and closes it with the last; its receive thread reads MADs and
 * completes them into the QP's receive CQ. A CQ is a libibverbs CQ (on a
 * libibverbs CA) plus a ring of ib_wc_t holding MAD completions and the
 * completions ib_peek_cq/ib_rearm_n_cq had to take out of the libibverbs CQ
 * to count them. The CA has one worker thread that waits (poll()) on an
 * eventfd, the device's async event fd and its completion channel: it makes
 * the cq_comp upcalls (never from inside post or poll calls), turns
 * libibverbs async events into async_event/port_change upcalls, and
 * re-reads the port attributes every IBAL_VERBS_POLL_MS (default 1000 ms),
 * calling port_change when a port's state, LID, LMC, SM LID or SM SL changed.
 *
 * **Thread safety.** Every entry point may be called from any thread. Lock
 * order: port->oc_lock, then port->lock, then qp->lock, then cq->lock, then
 * ca->lock; upcalls are made with no provider lock held.
 */
#ifndef VERBS_PROV_H
#define VERBS_PROV_H

#ifdef HAVE_CONFIG_H
#include <config.h> /* HAVE_VERBS_PROV */
#endif
#include <pthread.h>
#include <stdint.h>
#include "al_prov.h"
#include "prov_wc_ring.h"

#ifdef HAVE_VERBS_PROV

#include <infiniband/umad.h>
#include <infiniband/verbs.h>
#include "prov_qp_state.h"

/** @cond INTERNAL */
#define VERBS_MAX_PORTS    UMAD_CA_MAX_PORTS /* port numbers 1..9 */
#define VERBS_MAX_PKEYS    64     /* P_Key entries reported per port */
#define VERBS_MAX_CQES     65536
#define VERBS_MAX_WRS      4096
#define VERBS_MAX_SGES     8
#define VERBS_MAX_MRS      1024
#define VERBS_MAD_SIZE     256
#define VERBS_GRH_SIZE     40
#define VERBS_MAX_GIDS     16     /* GID entries reported per port (the first ones) */
#define VERBS_POLL_BATCH   16     /* ibv_wc read per ibv_poll_cq call */
#define VERBS_POLL_PROBE   4      /* ...in the first call of an ib_poll_cq (verbs_poll_cq) */
/* umad_size() is 56 until a port is opened with P_Key support, 64 after:
 * buffers are sized for the larger header. */
#define VERBS_UMAD_BUF     (sizeof(struct ib_user_mad) + VERBS_MAD_SIZE)
#define VERBS_TID_SLOTS    64     /* remembered requests per port (TID restore) */
#define VERBS_RECV_POLL_MS 100    /* receive thread's wait: stop latency without rx_wake (umad2sim) */
#define VERBS_TWIN_WAIT_MS 200    /* how long a MAD refused as a duplicate is tried again */
#define VERBS_TWIN_YIELDS  16     /* tries after a yield before the tries after a sleep */
#define VERBS_ENV_POLL     "IBAL_VERBS_POLL_MS"
#define VERBS_ENV_TIMEOUT  "IBAL_VERBS_MAD_TIMEOUT_MS"
#define VERBS_ENV_ISSM     "IBAL_VERBS_ISSM"

typedef struct verbs_ca verbs_ca_t;
typedef struct verbs_qp verbs_qp_t;

/** A completion queue: a libibverbs CQ (NULL on a MAD-only CA) and a ring of ib_wc_t. */
typedef struct verbs_cq {
	verbs_ca_t *ca;
	void *al_cq;
	struct ibv_cq *ibv;       /* NULL on a MAD-only CA */
	pthread_mutex_t lock;
	prov_wc_ring_t ring; /* MAD completions and stashed ibv ones; arming, overrun */
	uint32_t n_want;  /* ib_rearm_n_cq: new completions still to come (lock) */
	int dying;        /* destroy_cq began: no more upcalls (ca->lock) */
	int queued;       /* on ca->notify (ca->lock) */
	int ev_pending;   /* IB_AE_CQ_ERROR to report (ca->lock) */
	struct verbs_cq *next_notify;
} verbs_cq_t;

typedef struct verbs_pd {
	verbs_ca_t *ca;
	struct ibv_pd *ibv;       /* NULL on a MAD-only CA */
} verbs_pd_t;

typedef struct verbs_av {
	verbs_pd_t *pd;
	ib_av_attr_t attr;
	struct ibv_ah *ah;        /* NULL on a MAD-only CA */
} verbs_av_t;

typedef struct verbs_mr {
	verbs_pd_t *pd;
	uint64_t va, len;
	ib_access_t access;
	uint32_t key; /* MAD-only CA: the L_Key (these bits), R_Key in network order */
	struct ibv_mr *ibv;       /* NULL on a MAD-only CA */
	uint32_t n_mw;            /* windows bound to the region (ca->lock) */
} verbs_mr_t;

/** A type-1 memory window (libibverbs CAs only). */
typedef struct verbs_mw {
	verbs_pd_t *pd;
	struct ibv_mw *ibv;       /* its R_Key changes with each bind posted (ca->lock) */
	verbs_mr_t *mr;           /* region of the last bind posted, NULL if unbound (ca->lock) */
} verbs_mw_t;

/** A shared receive queue (libibverbs CAs only). */
typedef struct verbs_srq {
	verbs_pd_t *pd;
	void *al_srq;
	struct ibv_srq *ibv;
	uint32_t max_sge;
} verbs_srq_t;

/** One remembered request: how its TID went out and what the user gave. */
typedef struct verbs_tid {
	uint64_t stamp;     /* 0: free; else order of use */
	uint8_t mgmt_class;
	uint16_t dlid;      /* host order, the request's destination */
	uint32_t lo;        /* low 32 bits (never rewritten) */
	uint32_t user_hi;   /* high 32 bits the user sent */
	uint32_t wire_hi;   /* high 32 bits seen in the response (valid if learned) */
	int learned;
} verbs_tid_t;

/** A vendor range 2 agent (class and OUI), registered on first send. */
typedef struct verbs_oui_agent {
	uint8_t mgmt_class;
	uint8_t oui[3];
	int id;
} verbs_oui_agent_t;

/** Vendor range 2 agents a port holds at most. */
#define VERBS_OUI_AGENTS 16

/** A port's umad device and the agents registered on it. */
typedef struct verbs_umad {
	int fd;                   /* umad portid, -1 while closed */
	int agent[256];           /* agent id per management class (-1: none) */
	verbs_oui_agent_t oui_agent[VERBS_OUI_AGENTS]; /* vendor range 2 agents */
	unsigned n_oui;
} verbs_umad_t;

/** A port of an open CA: its umad device and agents. */
typedef struct verbs_port {
	verbs_ca_t *ca;
	uint8_t num;
	pthread_mutex_t oc_lock;  /* serializes special QP create/destroy (device open/close) */
	pthread_mutex_t lock;     /* dev, spl[], TID table */
	verbs_umad_t dev;         /* the umad device and its agents */
	int issm_fd;              /* open issm device (IBAL_VERBS_ISSM=1), else -1 */
	int issm_tried;           /* the claim was made (issm_claim), fd or not; lock */
	int n_users;              /* special QPs using dev */
	verbs_qp_t *spl[2];       /* QP0, QP1 */
	verbs_tid_t tid[VERBS_TID_SLOTS];
	uint64_t tid_clock;
	pthread_t rx_thread;
	int rx_stop;              /* atomic: asks the receive thread to leave */
	int rx_wake;              /* eventfd that ends the receive thread's wait at close; -1: none */
	uint8_t *rx_buf;          /* VERBS_UMAD_BUF bytes */
} verbs_port_t;

/** A posted receive. */
typedef struct verbs_rwqe {
	uint64_t wr_id;
	uint32_t num_ds;
	ib_local_ds_t ds[VERBS_MAX_SGES];
} verbs_rwqe_t;

struct verbs_qp {
	struct ibv_qp *ibv;       /* a libibverbs QP; NULL for QP0/QP1 over umad */
	uint32_t max_sge;         /* libibverbs QP: SGEs per send WR */
	uint32_t max_inline;      /* libibverbs QP: inline bytes per send WR */
	uint32_t wr_types;        /* libibverbs QP: bit per ib_wr_type_t it may post */
	verbs_srq_t *srq;
	verbs_pd_t *pd;
	verbs_port_t *port;
	void *al_qp;
	ib_qp_type_t type;
	unsigned n;               /* 0 or 1 */
	verbs_cq_t *scq, *rcq;
	pthread_mutex_t lock;     /* attr, rq */
	prov_qp_attr_t attr;      /* attributes given (libibverbs QP: state synced from the hardware) */
	boolean_t sq_signaled;
	uint32_t sq_depth, sq_sge, rq_depth, rq_sge;
	verbs_rwqe_t *rq;
	uint32_t rq_head, rq_count;
	uint8_t *tx_buf;          /* VERBS_UMAD_BUF bytes, under tx_lock */
	pthread_mutex_t tx_lock;
};

struct verbs_ca {
	ib_net64_t guid;
	struct ibv_context *ctx;  /* NULL: a MAD-only CA (umad2sim) */
	struct ibv_comp_channel *chan;
	int wake_fd;              /* eventfd: wakes the worker */
	int has_umad;             /* libibumad lists the CA (special QPs possible) */
	char name[UMAD_CA_NAME_LEN];
	void *al_ca;
	uint8_t num_ports;
	pthread_mutex_t lock;     /* attr, notify list, MR table, worker state */
	pthread_cond_t cond;
	ib_ca_attr_t *attr;       /* last attributes read (attr_size bytes) */
	uint32_t attr_size;
	verbs_port_t port[VERBS_MAX_PORTS];
	verbs_mr_t *mr[VERBS_MAX_MRS];
	uint32_t mr_gen;
	verbs_cq_t *notify;       /* CQs with an upcall to make */
	verbs_cq_t *cb_cq;        /* CQ whose upcall the worker is making */
	pthread_t worker;
	int stop;
	unsigned poll_ms;
};

extern al_prov_upcalls_t verbs_upcalls;
extern unsigned verbs_mad_timeout_ms;
extern int verbs_issm;
/** IBAL_VERBS_POLL_MS: how often a CA's ports and the device list are looked at, ms. */
extern unsigned verbs_poll_ms;

/* verbs_dev.c: libibverbs devices */
/* Calls @p fn for each CA (libibverbs devices, then umad-only CAs) until it
 * returns TRUE; from the list last read, for at most IBAL_VERBS_POLL_MS,
 * while the device watch listens to uevents (verbs_watch_listening()),
 * else read now. */
void verbs_for_each_ca(boolean_t (*fn)(ib_net64_t guid, const char *name, int has_ibv,
				       int has_umad, void *ctx), void *ctx);
/* The device list may have changed: verbs_for_each_ca() reads it anew. */
void verbs_ca_list_forget(void);
uint32_t verbs_attr_size(uint8_t n_ports);
void verbs_attr_layout(ib_ca_attr_t *a, uint8_t n_ports);
ib_api_status_t verbs_read_attr(verbs_ca_t *ca, ib_ca_attr_t *a);
uint8_t verbs_sgid_index(verbs_ca_t *ca, const ib_av_attr_t *a);
void verbs_async_events(verbs_ca_t *ca);
void verbs_comp_events(verbs_ca_t *ca);
void verbs_cq_drain(verbs_cq_t *cq);

/* verbs_ca.c */
ib_api_status_t verbs_open_ca(ib_net64_t guid, void *al_ca, void **pp_ca);
ib_api_status_t verbs_query_ca(void *ca, ib_ca_attr_t *p_attr, uint32_t *p_size);
void verbs_close_ca(void *ca);
const ib_port_attr_t *verbs_port_attr(verbs_ca_t *ca, uint8_t port_num);
ib_api_status_t verbs_umad_read_attr(verbs_ca_t *ca, ib_ca_attr_t *a);
void verbs_cap_from_mask(uint32_t m, ib_port_cap_t *c);
/* Re-reads the attributes; returns a bit per port (bit n-1) that changed. */
uint32_t verbs_ca_refresh(verbs_ca_t *ca);
void verbs_ca_notify(verbs_ca_t *ca, verbs_cq_t *cq, int cq_error);
void verbs_ca_wake(verbs_ca_t *ca);

/* verbs_obj.c: PD, AV, MR, CQ */
ib_api_status_t verbs_alloc_pd(void *ca, ib_pd_type_t type, void **pp_pd);
void verbs_dealloc_pd(void *pd);
ib_api_status_t verbs_create_av(void *pd, const ib_av_attr_t *p_attr, void **pp_av);
ib_api_status_t verbs_query_av(void *av, ib_av_attr_t *p_attr);
ib_api_status_t verbs_modify_av(void *pd, const ib_av_attr_t *p_attr, void **pp_av);
void verbs_destroy_av(void *av);
ib_api_status_t verbs_reg_mem(void *pd, const ib_mr_create_t *p_create, net32_t *p_lkey,
			      net32_t *p_rkey, void **pp_mr);
ib_api_status_t verbs_query_mr(void *mr, ib_mr_attr_t *p_attr);
ib_api_status_t verbs_dereg_mr(void *mr);
ib_api_status_t verbs_rereg_mem(void *mr, ib_mr_mod_t mask, const ib_mr_create_t *p_create,
				void *new_pd, net32_t *p_lkey, net32_t *p_rkey);
ib_api_status_t verbs_reg_shared(void *mr, void *pd, ib_access_t access, uint64_t *p_vaddr,
				 net32_t *p_lkey, net32_t *p_rkey, void **pp_mr);
boolean_t verbs_mr_check(verbs_ca_t *ca, verbs_pd_t *pd, net32_t lkey, uint64_t va,
			 uint32_t len);
ib_api_status_t verbs_create_cq(void *ca, uint32_t *p_size, void *al_cq, void **pp_cq);
ib_api_status_t verbs_query_cq(void *cq, uint32_t *p_size);
ib_api_status_t verbs_resize_cq(void *cq, uint32_t *p_size);
void verbs_destroy_cq(void *cq);
ib_api_status_t verbs_peek_cq(void *cq, uint32_t *p_n);
ib_api_status_t verbs_poll_cq(void *cq, ib_wc_t **pp_free, ib_wc_t **pp_done);
ib_api_status_t verbs_rearm_cq(void *cq, boolean_t solicited);
ib_api_status_t verbs_rearm_n_cq(void *cq, uint32_t n);
void verbs_cq_add(verbs_cq_t *cq, const ib_wc_t *p_wc);

/* verbs_mw.c: type-1 memory windows */
ib_api_status_t verbs_create_mw(void *pd, net32_t *p_rkey, void **pp_mw);
ib_api_status_t verbs_query_mw(void *mw, net32_t *p_rkey);
ib_api_status_t verbs_bind_mw(void *mw, void *qp, ib_bind_wr_t *p_bind, net32_t *p_rkey);
void verbs_destroy_mw(void *mw);

/* verbs_qp.c: libibverbs QPs and SRQs, the data path; dispatch to verbs_spl_* */
ib_api_status_t verbs_create_qp(void *pd, ib_qp_create_t *p_create, void *send_cq,
				void *recv_cq, void *srq, void *al_qp, void **pp_qp);
ib_api_status_t verbs_query_qp(void *qp, ib_qp_attr_t *p_attr);
ib_api_status_t verbs_modify_qp(void *qp, const ib_qp_mod_t *p_mod);
void verbs_destroy_qp(void *qp);
ib_api_status_t verbs_post_send(void *qp, ib_send_wr_t *p_wr, ib_send_wr_t **pp_failure);
ib_api_status_t verbs_post_recv(void *qp, ib_recv_wr_t *p_wr, ib_recv_wr_t **pp_failure);
ib_api_status_t verbs_attach_mcast(void *qp, const ib_gid_t *p_mgid, ib_net16_t mlid);
ib_api_status_t verbs_detach_mcast(void *qp, const ib_gid_t *p_mgid, ib_net16_t mlid);
ib_api_status_t verbs_create_srq(void *pd, const ib_srq_attr_t *p_attr, void *al_srq,
				 void **pp_srq);
ib_api_status_t verbs_query_srq(void *srq, ib_srq_attr_t *p_attr);
ib_api_status_t verbs_modify_srq(void *srq, const ib_srq_attr_t *p_attr, ib_srq_attr_mask_t mask);
void verbs_destroy_srq(void *srq);
ib_api_status_t verbs_post_srq_recv(void *srq, ib_recv_wr_t *p_wr, ib_recv_wr_t **pp_failure);

/* verbs_mad.c: special QPs over umad */
ib_api_status_t verbs_create_spl_qp(void *pd, uint8_t port_num, ib_qp_create_t *p_create,
				    void *send_cq, void *recv_cq, void *al_qp, void **pp_qp);
ib_api_status_t verbs_spl_query_qp(verbs_qp_t *qp, ib_qp_attr_t *p_attr);
ib_api_status_t verbs_spl_modify_qp(verbs_qp_t *qp, const ib_qp_mod_t *p_mod);
void verbs_spl_destroy_qp(verbs_qp_t *qp);
ib_api_status_t verbs_spl_post_send(verbs_qp_t *qp, ib_send_wr_t *p_wr,
				    ib_send_wr_t **pp_failure);
ib_api_status_t verbs_spl_post_recv(verbs_qp_t *qp, ib_recv_wr_t *p_wr,
				    ib_recv_wr_t **pp_failure);
void verbs_port_init(verbs_ca_t *ca, verbs_port_t *port, uint8_t num);
void verbs_port_fini(verbs_port_t *port);
/* One MAD read from the umad device (@p len bytes after the umad header):
 * checked and delivered to the port's QP0 or QP1 (port->lock not held;
 * the receive thread's body, exposed for the unit test). */
void verbs_rx_umad(verbs_port_t *port, uint8_t *umad, int len);
/* TID table (exposed for the unit test) */
void verbs_tid_sent(verbs_port_t *port, uint8_t *mad, uint16_t dlid);
void verbs_tid_received(verbs_port_t *port, uint8_t *mad, uint16_t slid);
/** @endcond */

#endif /* HAVE_VERBS_PROV */

#endif /* VERBS_PROV_H */
