/*
 * ibal access layer: the verbs objects (AL, CA, PD, AV, CQ, QP, SRQ, MR, MW), private.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Tree of objects (al_obj parent relations): AL -> CA -> {PD, CQ},
 * PD -> {AV, QP, SRQ, MR, MW}. Cross links that are not parent relations
 * hold an al_obj reference, so that the provider objects go in a legal
 * order whatever order siblings are destroyed in: a QP references its CQs
 * and SRQ, a bound MW references its MR, an MR moved to another PD
 * references that PD.
 *
 * Provider CAs: one provider CA per GUID per process (al_ci_ca_t), opened
 * on the first ib_open_ca() of the GUID by any AL instance and closed when
 * the last al_ca_t on it is cleaned up. The provider's upcall context of a
 * CA is the al_ci_ca_t; CA events go to every al_ca_t open on it.
 *
 * Upcall contexts: every object the provider may call back about (CA, QP,
 * CQ, SRQ) gets the address of its `kind` field as core context, so the
 * async_event upcall can tell what it is.
 *
 * Thread safety: see each function; the object fields written after
 * creation are atomics or under the named lock.
 */
#ifndef AL_VERBS_H
#define AL_VERBS_H

#include <pthread.h>
#include <complib/cl_qlist.h>
#include <complib/cl_waitobj.h>
#include "al_handle.h"
#include "al_verbs_obj.h"

/* What an upcall context is (the first field its address points to). */
typedef enum al_ctx_kind {
	AL_CTX_CI_CA = 0x43410001,
	AL_CTX_QP,
	AL_CTX_CQ,
	AL_CTX_SRQ,
} al_ctx_kind_t;

/* An access-layer instance: the root of its objects. */
typedef struct al_inst {
	al_obj_t obj;
	void *p_mad_pool;            /* al_pool_t of the MAD services, or NULL (al_mad_disp.c) */
} al_inst_t;

/* The process-wide provider CA of one GUID. Fields but `ref` and `cas`
 * are constant while it lives. */
typedef struct al_ci_ca {
	al_ctx_kind_t kind;          /* AL_CTX_CI_CA: the provider's context */
	cl_list_item_t item;         /* on the manager's list (mgr lock) */
	ib_net64_t guid;
	const al_prov_ops_t *p_ops;
	void *p_prov;
	uint32_t ref;                /* al_ca_t using it (mgr lock) */
	pthread_mutex_t lock;        /* cas */
	cl_qlist_t cas;              /* al_ca_t::ci_item */
} al_ci_ca_t;

/* An open CA (one per ib_open_ca()). */
typedef struct al_ca {
	al_verbs_obj_t v;
	al_ci_ca_t *p_ci;
	ib_pfn_event_cb_t pfn_event_cb;
	cl_list_item_t ci_item;      /* on p_ci->cas while listed */
	boolean_t listed;            /* p_ci->lock */
} al_ca_t;

typedef struct al_pd {
	al_verbs_obj_t v;
	al_ca_t *p_ca;
	ib_pd_type_t type;
} al_pd_t;

typedef struct al_av {
	al_verbs_obj_t v;
	al_pd_t *p_pd;
} al_av_t;

typedef struct al_cq {
	al_verbs_obj_t v;
	al_ctx_kind_t kind;          /* AL_CTX_CQ */
	al_ca_t *p_ca;
	ib_pfn_comp_cb_t pfn_comp_cb;
	cl_waitobj_handle_t h_wait_obj;
	ib_pfn_event_cb_t pfn_event_cb;
	al_cb_item_t comp_item;      /* the completion callback, queued at most once */
	uint32_t comp_queued;        /* atomic: comp_item is queued */
	uint32_t n_qp;               /* atomic: QPs using the CQ */
} al_cq_t;

typedef struct al_srq {
	al_verbs_obj_t v;
	al_ctx_kind_t kind;          /* AL_CTX_SRQ */
	al_pd_t *p_pd;
	ib_pfn_event_cb_t pfn_event_cb;
	uint32_t n_qp;               /* atomic: QPs attached */
} al_srq_t;

typedef struct al_qp {
	al_verbs_obj_t v;
	al_ctx_kind_t kind;          /* AL_CTX_QP */
	al_pd_t *p_pd;
	al_cq_t *p_sq_cq, *p_rq_cq;  /* referenced */
	al_srq_t *p_srq;             /* referenced, or NULL */
	ib_pfn_event_cb_t pfn_event_cb;
} al_qp_t;

typedef struct al_mr {
	al_verbs_obj_t v;
	al_pd_t *p_pd;               /* the parent */
	al_pd_t *p_cur_pd;           /* the PD it is in now (referenced when not p_pd; atomic) */
	/* Calls that use the provider MR hold it shared; ib_dereg_mr holds it
	 * exclusive while the provider deregisters, then clears v.p_prov. */
	pthread_rwlock_t use_lock;
	void *shm_addr;              /* ib_reg_shmid: the attached segment, detached at cleanup */
} al_mr_t;

typedef struct al_mw {
	al_verbs_obj_t v;
	al_pd_t *p_pd;
	al_mr_t *p_bound_mr;         /* referenced, or NULL (atomic exchange) */
} al_mw_t;

/* ---- al_mgr.c ---- */

/* Finds (opening if needed) the provider CA of a GUID and counts a user in.
 * Returns IB_SUCCESS, IB_INVALID_GUID, or the provider's status. */
ib_api_status_t al_ci_ca_acquire(ib_net64_t guid, al_ci_ca_t **pp_ci);

/* Counts a user out; the last closes the provider CA. Must not be called
 * with any provider lock held. */
void al_ci_ca_release(al_ci_ca_t *p_ci);

/* Queries a provider CA into a fresh cl_malloc'd block (freed by caller). */
ib_api_status_t al_ci_ca_query_alloc(al_ci_ca_t *p_ci, ib_ca_attr_t **pp_attr);

/* A count of the providers' port_change upcalls (any CA, any port): what
 * was derived from a CA's attributes holds while it has not moved. */
uint32_t al_ca_attr_gen(void);

/* Every CA GUID of every loaded provider, in a cl_malloc'd array (NULL
 * when there are none; freed by the caller). */
ib_api_status_t al_ca_guids_alloc(ib_net64_t **pp_guids, size_t *p_count);

/* ---- al_pnp.c ---- */

/* Something about a CA or port changed (provider upcall): the PnP manager
 * re-reads the CAs on its thread. Any thread; no lock needed. */
void al_pnp_poke(void);

/* ---- al_pnp.c <-> al_ioc_pnp.c: the IOU and IOC classes ---- */

struct al_pnp;

/* The lock guarding the registrations and the discovered IOCs. */
void al_pnp_lock(void);
void al_pnp_unlock(void);

/* Lock held: queues an IOU or IOC event on one registration (p_reg) or on
 * every registration of the event's class (p_reg NULL). p_rec is the whole
 * record (ib_pnp_iou_rec_t, ib_pnp_ioc_rec_t or ib_pnp_ioc_path_rec_t) of
 * rec_size bytes, copied; its pnp_rec part is filled at delivery. guid
 * names the device (IOU or IOC GUID); ADD makes it known, REMOVE forgets
 * it, path events need it known. */
void al_pnp_ioc_event(struct al_pnp *p_reg, ib_pnp_event_t event, ib_net64_t guid,
		      ib_net64_t ca_guid, const void *p_rec, size_t rec_size);

/* Lock held: a sweep ended; registrations waiting for the first one get
 * their IB_PNP_REG_COMPLETE (and ib_reg_pnp() its return). */
void al_pnp_ioc_swept(void);

/* al_ioc_pnp.c. Counts an IOU/IOC registration in (the first starts the
 * discovery thread) or out (the last stops it). */
ib_api_status_t al_ioc_pnp_use(void);
void al_ioc_pnp_unuse(void);
/* Lock held: TRUE once the discovery made its first sweep. */
boolean_t al_ioc_pnp_ready(void);
/* Lock held: tells one new registration of the discovered IOUs or IOCs. */
void al_ioc_pnp_announce(struct al_pnp *p_reg, uint32_t pnp_class);
/* Waits until no discovery thread is left (tests, before leak checks). */
void al_ioc_pnp_quiesce(void);
/* The GUIDs of the discovered IOCs, cl_malloc'd (a one-off sweep when no
 * registration runs the discovery and the caller is not an AL callback). */
ib_api_status_t al_ioc_guids_alloc(ib_net64_t **pp_guids, size_t *p_count);

/**
 * Where the IOC discovery gets a unit's DevMgt attributes: a Get of
 * @p attr_id with @p attr_mod whose answer's first @p len bytes of data go
 * to @p p_data; IB_SUCCESS, or the failure of the request or the answer.
 */
typedef ib_api_status_t (*al_ioc_dm_get_fn)(void *ctx, ib_net16_t attr_id, ib_net32_t attr_mod,
					    void *p_data, size_t len);

/**
 * Reads one unit as the IOC discovery does (IOUnitInfo, then the profile
 * and service entries of each installed controller) from @p get, and frees
 * what it built: the parser of the DM answers, for tests/fuzz/fuzz_dm_resp.
 * @param get the source of answers. @param ctx its context.
 * @param p_n_ioc receives the controllers read. @param p_n_svc their service entries.
 * @return the first failure of @p get, or IB_SUCCESS; IB_INVALID_PARAMETER;
 * IB_INSUFFICIENT_MEMORY.
 */
ib_api_status_t al_ioc_read_unit(al_ioc_dm_get_fn get, void *ctx, uint32_t *p_n_ioc,
				 uint32_t *p_n_svc);

/* The instance of a handle, entered (al_handle_exit when done), or NULL. */
al_inst_t *al_inst_enter(ib_al_handle_t h_al);

/* ---- al_ca.c ---- */

/* Delivers a CA async event to every open al_ca_t of a provider CA. */
void al_ca_event(al_ci_ca_t *p_ci, ib_async_event_t code, uint64_t vendor);

/* ---- al_mr.c: use of an MR by a call ---- */

/* Enters h_mr and holds its provider MR against deregistration; NULL when
 * the handle is not a live, registered MR. Release with al_mr_unuse(). */
al_mr_t *al_mr_use(ib_mr_handle_t h_mr);
void al_mr_unuse(ib_mr_handle_t h_mr, al_mr_t *p_mr);

/* ---- al_cq.c, al_qp.c, al_srq.c: upcall targets ---- */

void al_cq_comp(al_cq_t *p_cq);
void al_cq_event(al_cq_t *p_cq, ib_async_event_t code, uint64_t vendor);
void al_qp_event(al_qp_t *p_qp, ib_async_event_t code, uint64_t vendor);
void al_srq_event(al_srq_t *p_srq, ib_async_event_t code, uint64_t vendor);

/* ---- al_qp.c: special QPs ---- */

/* Creates the provider's special QP (c->qp_type IB_QPT_QP0 or IB_QPT_QP1) of
 * port @p port under an entered PD, with the user's CQs, as ib_create_qp()
 * creates other QPs. IB_RESOURCE_BUSY when the port's special QP exists. */
ib_api_status_t al_qp_create_spl(al_pd_t *p_pd, uint8_t port, ib_qp_create_t *p_create,
				 const void *qp_context, ib_pfn_event_cb_t pfn_event_cb,
				 ib_qp_handle_t *ph_qp);

/* ---- shared helpers (al_ca.c) ---- */

/* Queues an ib_async_event_rec_t for pfn on p_obj (no-op without pfn). */
void al_queue_event(al_obj_t *p_obj, ib_pfn_event_cb_t pfn, ib_async_event_t code,
		    uint64_t vendor, void *h);

/* Common destroy of a handle: validates it, destroys the object with the
 * callback (NULL: asynchronous, no callback; ib_sync_destroy). Returns
 * IB_SUCCESS; @p bad when the handle is not live; IB_INVALID_STATE when
 * ib_sync_destroy is refused because the caller runs in a callback of the
 * object or of one of its descendants. */
ib_api_status_t al_destroy_handle(void *h, al_handle_type_t type, ib_pfn_destroy_cb_t pfn,
				  ib_api_status_t bad);

/* How calls documented as synchronous (ib_destroy_av, ib_destroy_mw)
 * destroy: ib_sync_destroy, except on an AL callback thread, where waiting
 * could deadlock: asynchronously there (the handle is invalid at once). */
static inline ib_pfn_destroy_cb_t al_sync_unless_cb(void)
{
	return al_is_cb_thread() ? NULL : ib_sync_destroy;
}

/* pfn_free for every verbs object: cl_free. */
void al_verbs_free(al_obj_t *p_obj);

/* The handle of an object as an opaque pointer. */
static inline void *al_obj_h(const al_obj_t *p_obj)
{
	return (void *)(uintptr_t)__atomic_load_n(&p_obj->handle, __ATOMIC_ACQUIRE);
}

#define AL_ENTER(h, type) al_handle_enter(AL_HANDLE_FROM_IB(h), (type))
#define AL_EXIT(h) al_handle_exit(AL_HANDLE_FROM_IB(h))

#endif /* AL_VERBS_H */
