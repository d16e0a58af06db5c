/*
 * ibal verbs provider: ib_cm_* through the kernel's CM (librdmacm) while it owns the CM class, private.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * verbs_kcm.c keeps the connections and listens and installs the
 * al_cm_kern_ops_t (core/al/al_cm_kern.h); verbs_kcm_addr.c turns paths and
 * service IDs into librdmacm addresses; verbs_kcm_qp.c moves a QP with the
 * attributes rdma_init_qp_attr() gives. docs/verbs-provider.md describes the
 * mapping.
 */
#ifndef VERBS_KCM_H
#define VERBS_KCM_H

#include "verbs_prov.h"

/* Installs the kernel CM ops when the kernel's CM is loaded (or
 * IBAL_CM=kernel); IBAL_CM=ibal keeps ibal's own CM. Weak: the provider's
 * unit tests link it without the access layer (and so without these). */
void verbs_kcm_init(void) __attribute__((weak));
/* Stops the event thread and frees the listens (no connection is left). */
void verbs_kcm_cleanup(void) __attribute__((weak));
/* The device watch (verbs_watch.c) saw the set of CAs change; @p some_gone:
 * a CA went away. Called from the watch thread, before verbs_kcm_cleanup. */
void verbs_kcm_devices_changed(int some_gone) __attribute__((weak));

#ifdef HAVE_VERBS_PROV
#include <stdint.h>
#include <sys/socket.h>
#include <rdma/rdma_cma.h>
#include <iba/ib_al.h>

/* Service IDs of librdmacm's TCP port space: 0x0000000001060000 + port. */
#define VERBS_KCM_SID_TCP 0x0000000001060000ull

/* Private data the kernel CM leaves for the user in a REQ over IP (its own
 * header takes 36 of the 92 bytes); a service ID not of the TCP port space
 * also takes 8 (verbs_kcm_sid_hdr). */
#define VERBS_KCM_IP_REQ_PDATA 56
#define VERBS_KCM_SID_HDR 8

/* REJ private data that tells the requester "no such service" (librdmacm
 * rejects as the consumer: its reason is always 28). */
#define VERBS_KCM_NOSID_MAGIC "ibal-sid"

/* ---- verbs_kcm_addr.c ---- */

/* Whether @p svc_id (host order) is a service ID of librdmacm's TCP port space. */
static inline int verbs_kcm_sid_is_tcp(uint64_t svc_id)
{
	return (svc_id >> 16) == (VERBS_KCM_SID_TCP >> 16);
}

/* The TCP port a service ID (host order) listens on: its low 16 bits (0
 * becomes 0xffff, as port 0 would ask for any). */
static inline uint16_t verbs_kcm_sid_port(uint64_t svc_id)
{
	uint16_t p = (uint16_t)svc_id;

	return p ? p : 0xffff;
}

/* Fills @p sa (room for a sockaddr_storage) with the address of @p gid for
 * service @p svc_id: an IPv4-mapped GID gives AF_INET, other GIDs of an
 * Ethernet port AF_INET6 (link-local ones scoped to @p ifindex), a GID of an
 * InfiniBand port AF_IB with the service ID. Returns the address length. */
socklen_t verbs_kcm_gid_addr(const ib_gid_t *gid, int ib_link, uint32_t ifindex, ib_net16_t pkey,
			     uint64_t svc_id, struct sockaddr *sa);

/* ---- verbs_kcm_qp.c ---- */

/* Moves @p h_qp to @p state with the attributes the kernel CM gives for
 * @p id (INIT: @p access when nonzero replaces its access rights). */
ib_api_status_t verbs_kcm_qp_to(struct rdma_cm_id *id, ib_qp_handle_t h_qp, ib_qp_state_t state,
				ib_access_t access);

#endif /* HAVE_VERBS_PROV */
#endif /* VERBS_KCM_H */
