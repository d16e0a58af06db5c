/*
 * ibal access layer: the provider interface (ours; internal, never installed).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A provider (core/soft, core/verbs) fills one `static const al_prov_ops_t`
 * with `size` first. The core loads a copy of it in which every slot the
 * provider left NULL holds a stub answering IB_UNSUPPORTED (or doing
 * nothing, for the slots that return nothing; al_prov_stubs.c), so the core
 * calls every slot without a NULL check. Provider objects are opaque
 * `void *` to the core. The core
 * validates every handle and argument the API documents before it calls a
 * slot, so a provider sees only live objects of the right kind and checked
 * pointers; it still validates what only it can (keys, sizes, QP state).
 *
 * Work requests carry access-layer handles (ib_send_wr_t.dgrm.ud.h_av,
 * ib_bind_wr_t.h_mr): a provider resolves them with al_prov_av() and
 * al_prov_mr() (lock-free handle entries), which return NULL for a bad
 * handle so the provider can fail the request with IB_INVALID_AV_HANDLE or
 * IB_INVALID_MR_HANDLE. A successful resolution keeps the object from
 * being destroyed until the provider calls al_prov_put() with the handle,
 * so a user destroying an AV or MR while a post uses it cannot pull it
 * from under the provider.
 *
 * Threads: a provider reports completions and events through the upcalls it
 * is given at init, from any thread of its own, with none of its locks that
 * the core could need held. The core never calls a provider slot while it
 * holds an internal lock, except the data-path slots, which it calls with
 * no lock at all, open_ca/close_ca (under the CA manager's lock) and
 * query_ca from the PnP manager (under its lock, which no upcall takes).
 */
#ifndef AL_PROV_H
#define AL_PROV_H

#include <stddef.h>
#include <stdint.h>
#include <iba/ib_al.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What the core offers a provider: where completions and events go. */
typedef struct al_prov_upcalls {
	/** A CQ armed by rearm/rearm_n has a completion to report. */
	void (*cq_comp)(void *al_cq);
	/** An asynchronous event on the object whose core context is @p al_obj
	 * (a CA, QP, CQ or SRQ, as given to the provider when it was created). */
	void (*async_event)(void *al_obj, ib_async_event_t code, uint64_t vendor_specific);
	/** A port's state, LID, GID or P_Key table changed (drives PnP port
	 * events): @p al_ca is the CA's core context, @p port_num the port.
	 * When the set of CAs the provider enumerates changed (a CA appeared
	 * or went away), @p al_ca is NULL and @p port_num 0. */
	void (*port_change)(void *al_ca, uint8_t port_num);
} al_prov_upcalls_t;

/** One provider's entry points. */
typedef struct al_prov_ops {
	size_t size;       /**< sizeof(al_prov_ops_t) the provider was built with */
	const char *name;  /**< "soft", "verbs": matched against IBAL_PROVIDERS */

	/* Provider lifetime and CA enumeration. */
	ib_api_status_t (*init)(const al_prov_upcalls_t *up);
	void (*cleanup)(void);
	/* *p_count in: room in p_guids (may be 0 with p_guids NULL); out: CAs. */
	ib_api_status_t (*get_ca_guids)(ib_net64_t *p_guids, size_t *p_count);

	/* CA */
	ib_api_status_t (*open_ca)(ib_net64_t ca_guid, void *al_ca, void **pp_ca);
	ib_api_status_t (*query_ca)(void *ca, ib_ca_attr_t *p_attr, uint32_t *p_size);
	ib_api_status_t (*modify_ca)(void *ca, uint8_t port_num, ib_ca_mod_t mod,
				     const ib_port_attr_mod_t *p_attr);
	void (*close_ca)(void *ca);
	ib_api_status_t (*ci_call)(void *ca, void *const *prov_handles, uint32_t num_handles,
				   ib_ci_op_t *p_ci_op);
	ib_api_status_t (*local_mad)(void *ca, uint8_t port_num, const void *p_mad_in,
				     void *p_mad_out);

	/* PD */
	ib_api_status_t (*alloc_pd)(void *ca, ib_pd_type_t type, void **pp_pd);
	void (*dealloc_pd)(void *pd);

	/* AV. modify_av may replace the provider object (libibverbs AHs are
	 * immutable): it returns the object to use from now on in *pp_av. */
	ib_api_status_t (*create_av)(void *pd, const ib_av_attr_t *p_attr, void **pp_av);
	ib_api_status_t (*query_av)(void *av, ib_av_attr_t *p_attr);
	ib_api_status_t (*modify_av)(void *pd, const ib_av_attr_t *p_attr, void **pp_av);
	void (*destroy_av)(void *av);

	/* SRQ */
	ib_api_status_t (*create_srq)(void *pd, const ib_srq_attr_t *p_attr, void *al_srq,
				      void **pp_srq);
	ib_api_status_t (*query_srq)(void *srq, ib_srq_attr_t *p_attr);
	ib_api_status_t (*modify_srq)(void *srq, const ib_srq_attr_t *p_attr,
				      ib_srq_attr_mask_t mask);
	void (*destroy_srq)(void *srq);

	/* QP. create_qp adjusts the queue sizes in *p_create to what it made.
	 * create_spl_qp makes QP0/QP1 (and aliases) bound to one port. */
	ib_api_status_t (*create_qp)(void *pd, ib_qp_create_t *p_create, void *send_cq,
				     void *recv_cq, void *srq, void *al_qp, void **pp_qp);
	ib_api_status_t (*create_spl_qp)(void *pd, uint8_t port_num, ib_qp_create_t *p_create,
					 void *send_cq, void *recv_cq, void *al_qp,
					 void **pp_qp);
	ib_api_status_t (*query_qp)(void *qp, ib_qp_attr_t *p_attr);
	ib_api_status_t (*modify_qp)(void *qp, const ib_qp_mod_t *p_mod);
	void (*destroy_qp)(void *qp);
	ib_api_status_t (*attach_mcast)(void *qp, const ib_gid_t *p_mgid, ib_net16_t mlid);
	ib_api_status_t (*detach_mcast)(void *qp, const ib_gid_t *p_mgid, ib_net16_t mlid);

	/* CQ */
	ib_api_status_t (*create_cq)(void *ca, uint32_t *p_size, void *al_cq, void **pp_cq);
	ib_api_status_t (*resize_cq)(void *cq, uint32_t *p_size);
	ib_api_status_t (*query_cq)(void *cq, uint32_t *p_size);
	void (*destroy_cq)(void *cq);

	/* MR and MW. reg_phys/rereg_phys stay NULL where physical registration
	 * does not exist (user-space verbs). */
	ib_api_status_t (*reg_mem)(void *pd, const ib_mr_create_t *p_create, net32_t *p_lkey,
				   net32_t *p_rkey, void **pp_mr);
	ib_api_status_t (*reg_phys)(void *pd, const ib_phys_create_t *p_create,
				    uint64_t *p_vaddr, net32_t *p_lkey, net32_t *p_rkey,
				    void **pp_mr);
	ib_api_status_t (*query_mr)(void *mr, ib_mr_attr_t *p_attr);
	ib_api_status_t (*rereg_mem)(void *mr, ib_mr_mod_t mask, const ib_mr_create_t *p_create,
				     void *new_pd, net32_t *p_lkey, net32_t *p_rkey);
	ib_api_status_t (*rereg_phys)(void *mr, ib_mr_mod_t mask,
				      const ib_phys_create_t *p_create, void *new_pd,
				      uint64_t *p_vaddr, net32_t *p_lkey, net32_t *p_rkey);
	ib_api_status_t (*reg_shared)(void *mr, void *pd, ib_access_t access, uint64_t *p_vaddr,
				      net32_t *p_lkey, net32_t *p_rkey, void **pp_mr);
	ib_api_status_t (*dereg_mr)(void *mr);
	ib_api_status_t (*create_mw)(void *pd, net32_t *p_rkey, void **pp_mw);
	ib_api_status_t (*query_mw)(void *mw, net32_t *p_rkey);
	ib_api_status_t (*bind_mw)(void *mw, void *qp, ib_bind_wr_t *p_bind, net32_t *p_rkey);
	void (*destroy_mw)(void *mw);

	/* Data path: reached from the ib_* call with exactly one indirect call. */
	ib_api_status_t (*post_send)(void *qp, ib_send_wr_t *p_wr, ib_send_wr_t **pp_failure);
	ib_api_status_t (*post_recv)(void *qp, ib_recv_wr_t *p_wr, ib_recv_wr_t **pp_failure);
	ib_api_status_t (*post_srq_recv)(void *srq, ib_recv_wr_t *p_wr,
					 ib_recv_wr_t **pp_failure);
	ib_api_status_t (*peek_cq)(void *cq, uint32_t *p_n_cqes);
	ib_api_status_t (*poll_cq)(void *cq, ib_wc_t **pp_free_wclist, ib_wc_t **pp_done_wclist);
	ib_api_status_t (*rearm_cq)(void *cq, boolean_t solicited);
	ib_api_status_t (*rearm_n_cq)(void *cq, uint32_t n_cqes);
} al_prov_ops_t;

/**
 * Makes @p dst a copy of @p src (NULL: of an empty table) whose every NULL
 * slot holds the stub that answers IB_UNSUPPORTED or does nothing; init's
 * stub succeeds and get_ca_guids' lists no CA. dst->size is sizeof(*dst).
 */
void al_prov_fill(al_prov_ops_t *dst, const al_prov_ops_t *src);

/**
 * Whether the provider filled the slot at byte offset @p slot_off of a table
 * made by al_prov_fill (not a stub); AL_PROV_HAS(ops, slot) gives the offset.
 */
int al_prov_has(const al_prov_ops_t *ops, size_t slot_off);

/** Whether the provider behind @p ops has @p slot itself (see al_prov_has). */
#define AL_PROV_HAS(ops, slot) al_prov_has((ops), offsetof(al_prov_ops_t, slot))

/** The built-in providers, in the order CAs are enumerated. */
extern const al_prov_ops_t soft_prov_ops;
extern const al_prov_ops_t verbs_prov_ops;

/* Handle resolution for providers, defined by the core (al_handle.h):
 * the provider object behind an AV or MR handle found in a work request,
 * or NULL if the handle is not a live AV/MR. A non-NULL result must be
 * released with al_prov_put(handle) once the provider is done with it. */
void *al_prov_av(ib_av_handle_t h_av);
void *al_prov_mr(ib_mr_handle_t h_mr);
void al_prov_put(const void *h);

/*
 * What the access layer's MAD dispatcher tells a provider about a MAD it
 * posts on QP0 or QP1: ib_send_wr_t.dgrm.ud.rsvd (reserved to the access
 * layer) holds AL_PROV_MAD_WAIT(ms), how long the sender waits for the
 * response to this request before it sends it again with the same TID (0:
 * no response is expected). It is a tagged number, not a pointer, so a
 * value a program put there itself is at worst a wrong hint. A provider
 * that keeps a request for its response (the verbs provider: the kernel's
 * umad keeps it, and refuses another with its TID meanwhile) keeps it that
 * long, so the resend can go out.
 */
#define AL_PROV_MAD_WAIT_TAG 0xA1000000u
#define AL_PROV_MAD_WAIT_MAX 0x00FFFFFFu
#define AL_PROV_MAD_WAIT(ms)                                                                 \
	((void *)(uintptr_t)(AL_PROV_MAD_WAIT_TAG |                                           \
			     ((ms) < AL_PROV_MAD_WAIT_MAX ? (uint32_t)(ms) : AL_PROV_MAD_WAIT_MAX)))

/** The wait AL_PROV_MAD_WAIT() put in @p rsvd; 0 for anything else. */
static inline uint32_t al_prov_mad_wait_ms(const void *rsvd)
{
	uintptr_t v = (uintptr_t)rsvd;

	return (v & ~(uintptr_t)AL_PROV_MAD_WAIT_MAX) == AL_PROV_MAD_WAIT_TAG
		       ? (uint32_t)(v & AL_PROV_MAD_WAIT_MAX) : 0;
}

#ifdef __cplusplus
}
#endif

#endif /* AL_PROV_H */
