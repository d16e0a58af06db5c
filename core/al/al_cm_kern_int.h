/*
 * ibal access layer: what the files of the CM through the kernel's CM share (al_cm_kern*.c).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * al_cm_kern.c: CAs, starting the event thread, connections, time-wait,
 * callbacks, listens, the client (start, stop, CA list changes);
 * al_cm_kern_events.c: the event thread and the rdma_cm events;
 * al_cm_kern_calls.c: the ib_cm_* calls (kc_ops); al_cm_kern_addr.c:
 * librdmacm addresses of paths and service IDs; al_cm_kern_qp.c: moving a QP
 * with the attributes librdmacm gives. See al_cm_kern.c for the design.
 *
 * This is access-layer code over librdmacm and libibverbs, built when both
 * are found (HAVE_AL_CM_KERN). It reaches a CA only through the access
 * layer (its QPs, ib_modify_qp, the provider's CA attributes), never a
 * provider's objects.
 */
#ifndef AL_CM_KERN_INT_H
#define AL_CM_KERN_INT_H

#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#ifdef HAVE_AL_CM_KERN
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <infiniband/ib.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include "al_cm_int.h"
#include "al_cm_kern.h"
#include "al_client.h"
#include "al_verbs.h"
#include "prov_verbs_xlate.h"
#include "ibal_log.h"

/* libibverbs devices this path keeps track of. */
#define KC_MAX_CAS 16

/* Service IDs of librdmacm's TCP port space: 0x0000000001060000 + port. */
#define KC_SID_TCP 0x0000000001060000ull

/* Private data the kernel CM leaves for the user in a REQ over IP (its own
 * header takes 36 of the 92 bytes); a service ID not of the TCP port space
 * also takes 8 (KC_SID_HDR). */
#define KC_IP_REQ_PDATA 56
#define KC_SID_HDR 8

/* REJ private data that tells the requester "no such service" (librdmacm
 * rejects as the consumer: its reason is always 28). */
#define KC_NOSID_MAGIC "ibal-sid"

/* Whether @p svc_id (host order) is a service ID of librdmacm's TCP port space. */
static inline int kc_sid_is_tcp(uint64_t svc_id)
{
	return (svc_id >> 16) == (KC_SID_TCP >> 16);
}

/* The TCP port a service ID (host order) listens on: its low 16 bits (0
 * becomes 0xffff, as port 0 would ask for any). */
static inline uint16_t kc_sid_port(uint64_t svc_id)
{
	uint16_t p = (uint16_t)svc_id;

	return p ? p : 0xffff;
}

/* Fills @p sa (room for a sockaddr_storage) with the address of @p gid for
 * service @p svc_id: an IPv4-mapped GID gives AF_INET, other GIDs of an
 * Ethernet port AF_INET6 (link-local ones scoped to @p ifindex), a GID of an
 * InfiniBand port AF_IB with the service ID. Returns the address length
 * (al_cm_kern_addr.c). */
socklen_t kc_gid_addr(const ib_gid_t *gid, int ib_link, uint32_t ifindex, ib_net16_t pkey,
		      uint64_t svc_id, struct sockaddr *sa);

/* The index of the network interface that has @p gid as an IPv6 address,
 * or 0 (the scope of a link-local GID of an Ethernet port; al_cm_kern_addr.c). */
uint32_t kc_gid_ifindex(const ib_gid_t *gid);

/* Moves @p h_qp to @p state with the attributes the kernel CM gives for
 * @p id (INIT: @p access when nonzero replaces its access rights;
 * al_cm_kern_qp.c). */
ib_api_status_t kc_qp_to(struct rdma_cm_id *id, ib_qp_handle_t h_qp, ib_qp_state_t state,
			 ib_access_t access);

typedef enum kc_state {
	KC_RESOLVING,   /* active: address, then route */
	KC_REQ_SENT,
	KC_REP_RCVD,
	KC_REQ_RCVD,    /* passive: the REQ callback has the handle */
	KC_REP_SENT,
	KC_EST,
	KC_DREQ_SENT,
	KC_DREQ_RCVD,
	KC_TIMEWAIT,
	KC_DEAD         /* rejected or failed: no more calls */
} kc_state_t;

/* Callback kinds (bits of a sync wait). */
enum { KE_REQ, KE_REP, KE_RTU, KE_REJ, KE_DREQ, KE_DREP };

typedef struct kc_conn {
	al_obj_t obj;
	cl_map_item_t item;           /* kc.conns by cid */
	uint32_t cid;                 /* host order, AL_CM_KERN_CID set */
	boolean_t listed;
	struct rdma_cm_id *id;
	kc_state_t state;
	boolean_t active;
	ib_al_handle_t h_al;
	ib_qp_handle_t h_qp;          /* bound QP or NULL */
	void *p_qp;                   /* its al_qp_t */
	const void *qp_context;
	ib_qp_type_t qp_type;
	uint64_t svc_id;              /* host order */
	int ib;                       /* active on an InfiniBand port: AF_IB with the path given */
	ib_path_rec_t path;
	struct rdma_conn_param cp;    /* active: for rdma_connect */
	uint8_t req_pdata[IB_REQ_PDATA_SIZE];
	uint8_t peer_resp_res;        /* passive: the REQ's responder resources */
	uint8_t peer_init_depth;      /* passive: the REQ's initiator depth */
	ib_access_t access;
	ib_pfn_cm_rep_cb_t pfn_rep;
	ib_pfn_cm_rej_cb_t pfn_rej;
	ib_pfn_cm_rtu_cb_t pfn_rtu;
	ib_pfn_cm_dreq_cb_t pfn_dreq;
	ib_pfn_cm_drep_cb_t pfn_drep;
	cl_event_t *p_sync;           /* IB_FLAGS_SYNC waiter */
	uint32_t sync_kinds;
	uint32_t cb_pending;          /* user callbacks queued and not yet returned (under kc.lock) */
	uint32_t twait_ms;            /* time-wait: t(packet lifetime + 1) + t(packet lifetime) */
	uint64_t twait_end_ms;        /* KC_TIMEWAIT: when the QP is free again */
} kc_conn_t;

/* One queued user callback, with its own copy of the private data. */
typedef struct kc_ev {
	kc_conn_t *p_conn;
	int kind;
	void *pfn;
	al_listen_t *p_listen;        /* REQ: referenced */
	uint8_t pdata[IB_REP_PDATA_SIZE];
	union {
		ib_cm_req_rec_t req;
		ib_cm_rep_rec_t rep;
		ib_cm_rtu_rec_t rtu;
		ib_cm_rej_rec_t rej;
		ib_cm_dreq_rec_t dreq;
		ib_cm_drep_rec_t drep;
	} rec;
} kc_ev_t;

/* A librdmacm listen on one TCP port (IP) or one service ID (AF_IB). */
typedef struct kc_lport {
	cl_list_item_t item;
	uint64_t key;                 /* TCP port, or the service ID (AF_IB) */
	boolean_t ib;
	uint32_t users;               /* ibal listens on it */
	struct rdma_cm_id *id;
} kc_lport_t;

/* An ibal listen the kernel CM serves. */
typedef struct kc_listen {
	cl_list_item_t item;
	al_listen_t *p_l;
} kc_listen_t;

/* The kernel CM path's state (kc.lock guards the tables and every connection). */
typedef struct kc_global {
	pthread_mutex_t lock;
	boolean_t on;                 /* ops installed */
	struct rdma_event_channel *ch;
	pthread_t thread;
	boolean_t running;
	int stop_fd;                  /* eventfd: wakes the thread (kc.stop: to leave) */
	boolean_t stop;
	cl_qmap_t conns;
	uint32_t next_cid;
	cl_qlist_t lports;
	cl_qlist_t listens;
	ib_net64_t guids[KC_MAX_CAS]; /* CAs with a libibverbs device, ever (atomic count) */
	uint32_t n_guids;
	ib_net64_t present[KC_MAX_CAS]; /* the devices libibverbs listed last */
	uint32_t n_present;
	int any_ib;                   /* some CA has an InfiniBand port */
} kc_global_t;

/* The one instance. */
extern kc_global_t kc;
/* The CM ops this path installs (al_cm_kern_calls.c). */
extern const al_cm_kern_ops_t kc_ops;

/* Connections (al_cm_kern.c); _locked: kc.lock held, _unlock: released on return. */
kc_conn_t *kc_conn_by_qp_locked(const void *p_qp);
void kc_conn_end(kc_conn_t *c);
void kc_conn_fail_unlock(kc_conn_t *c, ib_rej_status_t reason, const void *pdata, uint8_t len);
kc_conn_t *kc_conn_get_locked(uint32_t cid);
ib_cm_handle_t kc_conn_handle(const kc_conn_t *c);
ib_api_status_t kc_conn_new(al_obj_t *p_parent, kc_conn_t **pp);
ib_api_status_t kc_conn_of_handle(const ib_cm_handle_t *h, const void *arg, kc_conn_t **pp);
void kc_conn_put_unlock(kc_conn_t *c);
void kc_conn_unbind_locked(kc_conn_t *c);
void kc_enter_timewait_locked(kc_conn_t *c);
/* User callbacks, queued on the connection's object (al_cm_kern.c). */
kc_ev_t *kc_ev_new(kc_conn_t *c, int kind, void *pfn);
void kc_ev_queue(kc_ev_t *e);
/* Listens and time-wait (al_cm_kern.c). */
al_listen_t *kc_listen_match_locked(uint64_t sid, ib_net64_t ca_guid, const uint8_t *pdata, uint32_t len);
kc_lport_t *kc_lport_of_id_locked(const struct rdma_cm_id *id);
int kc_timewait_run(void);
uint32_t kc_twait_of(uint8_t pkt_life);
void kc_cancel(al_listen_t *p_l);
ib_api_status_t kc_listen(al_listen_t *p_l);
boolean_t kc_owns_ca(ib_net64_t ca_guid);
ib_api_status_t kc_start_locked(void);
/* The event thread (al_cm_kern_events.c). */
void *kc_thread(void *arg);

#endif /* HAVE_AL_CM_KERN */
#endif /* AL_CM_KERN_INT_H */
