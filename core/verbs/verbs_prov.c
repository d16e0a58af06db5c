/*
 * ibal verbs provider: the provider table, its lifetime and the list of CA GUIDs.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Built without libibverbs or libibumad (no HAVE_VERBS_PROV) the table has only its name,
 * init and get_ca_guids, which enumerates no CA, so the access layer runs
 * with the other providers alone.
 *
 * Environment: IBAL_VERBS_POLL_MS (port attribute polling period, 10..60000,
 * default 1000; also the device list's when there are no uevents, see
 * verbs_watch.c), IBAL_VERBS_MAD_TIMEOUT_MS (how long the kernel keeps a sent
 * request waiting for its response, 100..600000, default 30000; see
 * verbs_mad.c), IBAL_VERBS_ISSM=1 (test fabrics only: a port holds its issm
 * device once its QP0 can receive, see issm_claim() in verbs_mad.c).
 */
#include <stdlib.h>
#include <string.h>
#include "verbs_prov.h"
#include "verbs_watch.h"
#include "ibal_env.h"

#ifdef HAVE_VERBS_PROV

al_prov_upcalls_t verbs_upcalls;
unsigned verbs_mad_timeout_ms = 30000;
int verbs_issm;
unsigned verbs_poll_ms = 1000;

static ib_api_status_t verbs_init(const al_prov_upcalls_t *up)
{
	if (!up)
		return IB_INVALID_PARAMETER;
	verbs_upcalls = *up;
	verbs_mad_timeout_ms = (unsigned)__cl_env_uint(VERBS_ENV_TIMEOUT, 100, 600000, 30000);
	verbs_issm = (int)__cl_env_uint(VERBS_ENV_ISSM, 0, 1, 0);
	/* Fails where there is no umad ABI (no RDMA stack): then no CA is listed. */
	(void)umad_init();
	verbs_poll_ms = (unsigned)__cl_env_uint(VERBS_ENV_POLL, 10, 60000, 1000);
	verbs_watch_start(verbs_poll_ms);
	return IB_SUCCESS;
}

static void verbs_cleanup(void)
{
	verbs_watch_stop();
	umad_done();
	memset(&verbs_upcalls, 0, sizeof(verbs_upcalls));
}

typedef struct {
	ib_net64_t guids[2 * UMAD_MAX_DEVICES];
	size_t n;
} guid_list_t;

static boolean_t add_guid(ib_net64_t guid, const char *name, int has_ibv, int has_umad,
			  void *ctx)
{
	guid_list_t *l = ctx;

	(void)name;
	(void)has_ibv;
	(void)has_umad;
	if (l->n < sizeof(l->guids) / sizeof(l->guids[0]))
		l->guids[l->n++] = guid;
	return FALSE;
}

static ib_api_status_t verbs_get_ca_guids(ib_net64_t *p_guids, size_t *p_count)
{
	guid_list_t l;
	size_t room;

	if (!p_count)
		return IB_INVALID_PARAMETER;
	l.n = 0;
	verbs_for_each_ca(add_guid, &l);
	room = *p_count;
	*p_count = l.n;
	if (room < l.n || (l.n && !p_guids))
		return l.n ? IB_INSUFFICIENT_MEMORY : IB_SUCCESS;
	if (l.n)
		memcpy(p_guids, l.guids, l.n * sizeof(l.guids[0]));
	return IB_SUCCESS;
}

const al_prov_ops_t verbs_prov_ops = {
	.size = sizeof(al_prov_ops_t),
	.name = "verbs",
	.init = verbs_init,
	.cleanup = verbs_cleanup,
	.get_ca_guids = verbs_get_ca_guids,
	.open_ca = verbs_open_ca,
	.query_ca = verbs_query_ca,
	.close_ca = verbs_close_ca,
	.alloc_pd = verbs_alloc_pd,
	.dealloc_pd = verbs_dealloc_pd,
	.create_av = verbs_create_av,
	.query_av = verbs_query_av,
	.modify_av = verbs_modify_av,
	.destroy_av = verbs_destroy_av,
	.create_srq = verbs_create_srq,
	.query_srq = verbs_query_srq,
	.modify_srq = verbs_modify_srq,
	.destroy_srq = verbs_destroy_srq,
	.create_qp = verbs_create_qp,
	.create_spl_qp = verbs_create_spl_qp,
	.query_qp = verbs_query_qp,
	.modify_qp = verbs_modify_qp,
	.destroy_qp = verbs_destroy_qp,
	.attach_mcast = verbs_attach_mcast,
	.detach_mcast = verbs_detach_mcast,
	.create_cq = verbs_create_cq,
	.resize_cq = verbs_resize_cq,
	.query_cq = verbs_query_cq,
	.destroy_cq = verbs_destroy_cq,
	.reg_mem = verbs_reg_mem,
	.query_mr = verbs_query_mr,
	.rereg_mem = verbs_rereg_mem,
	.reg_shared = verbs_reg_shared,
	.dereg_mr = verbs_dereg_mr,
	.create_mw = verbs_create_mw,
	.query_mw = verbs_query_mw,
	.bind_mw = verbs_bind_mw,
	.destroy_mw = verbs_destroy_mw,
	.post_send = verbs_post_send,
	.post_recv = verbs_post_recv,
	.post_srq_recv = verbs_post_srq_recv,
	.peek_cq = verbs_peek_cq,
	.poll_cq = verbs_poll_cq,
	.rearm_cq = verbs_rearm_cq,
	.rearm_n_cq = verbs_rearm_n_cq,
};

#else /* !HAVE_VERBS_PROV */

static ib_api_status_t verbs_init(const al_prov_upcalls_t *up)
{
	return up ? IB_SUCCESS : IB_INVALID_PARAMETER;
}

static ib_api_status_t verbs_get_ca_guids(ib_net64_t *p_guids, size_t *p_count)
{
	(void)p_guids;
	if (!p_count)
		return IB_INVALID_PARAMETER;
	*p_count = 0;
	return IB_SUCCESS;
}

const al_prov_ops_t verbs_prov_ops = {
	.size = sizeof(al_prov_ops_t),
	.name = "verbs",
	.init = verbs_init,
	.get_ca_guids = verbs_get_ca_guids,
};

#endif /* HAVE_VERBS_PROV */
