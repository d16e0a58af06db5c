/*
 * ibal access layer: the CM calls on CAs whose CM class the kernel owns (the ops al_cm_kern.c installs), private.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * While the kernel's IB CM is loaded it owns the CM MAD class of every
 * rdma-core device, so ibal's own CM (al_cm_*.c) cannot receive there. The
 * access layer's CM through the kernel's (al_cm_kern*.c, over librdmacm,
 * built when librdmacm is found; a client of the core, al_client.h) then
 * installs these ops and the ib_cm_* calls of al_cm.c hand every exchange on such a
 * CA to them: a connection whose handle has AL_CM_KERN_CID set in its cid,
 * listens for the CA's REQs, and the QP hooks. Soft CAs and rdma-core CAs
 * without a kernel CM stay with ibal's CM. docs/verbs-provider.md lists what
 * differs (private data sizes, MRA/LAP/APR, SIDR, UC).
 */
#ifndef AL_CM_KERN_H
#define AL_CM_KERN_H

#include <iba/ib_al.h>

/* The cid bit of connections run by the kernel CM ops. */
#define AL_CM_KERN_CID 0x80000000u

struct al_listen;
struct al_qp;

typedef struct al_cm_kern_ops {
	/* TRUE when the CA of @p ca_guid has its CM run by these ops. */
	boolean_t (*owns_ca)(ib_net64_t ca_guid);
	/* A listen was made (every field checked): listen on the kernel CM too,
	 * if the listen can match a CA of ours. IB_SUCCESS when it need not. */
	ib_api_status_t (*listen)(struct al_listen *p_l);
	/* The listen is being destroyed: no REQ callback for it starts after. */
	void (*cancel)(struct al_listen *p_l);
	/* ib_cm_req on a connected-QP of a CA of ours (entered, arguments checked). */
	ib_api_status_t (*req)(const ib_cm_req_t *p_req, struct al_qp *p_qp);
	ib_api_status_t (*rep)(const ib_cm_handle_t *h, const ib_cm_rep_t *p_rep);
	ib_api_status_t (*rtu)(const ib_cm_handle_t *h, const ib_cm_rtu_t *p_rtu);
	ib_api_status_t (*rej)(const ib_cm_handle_t *h, const ib_cm_rej_t *p_rej);
	/* ib_cm_dreq: IB_NOT_FOUND when the QP has no connection of ours. */
	ib_api_status_t (*dreq)(const ib_cm_dreq_t *p_dreq);
	ib_api_status_t (*drep)(const ib_cm_handle_t *h, const ib_cm_drep_t *p_drep);
	ib_api_status_t (*handoff)(const ib_cm_handle_t *h, ib_net64_t svc_id);
	/* TRUE when the QP has a connection of ours (for ib_cm_lap's status). */
	boolean_t (*has_qp)(ib_qp_handle_t h_qp);
	/* A QP is being destroyed: its connection ends. */
	void (*qp_destroying)(void *p_qp);
} al_cm_kern_ops_t;

/* Installed by al_cm_kern.c when its client starts (NULL: none), read by the ib_cm_* calls. */
extern const al_cm_kern_ops_t *al_cm_kern;

static inline const al_cm_kern_ops_t *al_cm_kern_get(void)
{
	return __atomic_load_n(&al_cm_kern, __ATOMIC_ACQUIRE);
}

static inline void al_cm_kern_set(const al_cm_kern_ops_t *p_ops)
{
	__atomic_store_n(&al_cm_kern, p_ops, __ATOMIC_RELEASE);
}

static inline boolean_t al_cm_kern_owns(ib_net64_t ca_guid)
{
	const al_cm_kern_ops_t *k = al_cm_kern_get();

	return k && k->owns_ca(ca_guid);
}

#endif /* AL_CM_KERN_H */
