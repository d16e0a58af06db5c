/*
 * ibal verbs provider: the provider table, its lifetime and the enumeration of libibumad CAs.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Built without libibumad (no HAVE_IBUMAD) the table has only its name,
 * init and get_ca_guids, which enumerates no CA, so the access layer runs
 * with the other providers alone.
 *
 * Environment: IBAL_VERBS_POLL_MS (port attribute polling period, 10..60000,
 * default 1000), IBAL_VERBS_MAD_TIMEOUT_MS (how long the kernel keeps a sent
 * request waiting for its response, 100..600000, default 30000; see
 * verbs_mad.c), IBAL_VERBS_DEBUG=1 (one stderr line per agent registered,
 * TID rewrite undone and MAD dropped), IBAL_VERBS_ISSM=1 (test fabrics only:
 * hold each open port's issm device, see verbs_mad.c).
 */
#include <stdlib.h>
#include <string.h>
#include "verbs_prov.h"

#ifdef HAVE_IBUMAD

al_prov_upcalls_t verbs_upcalls;
unsigned verbs_mad_timeout_ms = 30000;
int verbs_debug;
int verbs_issm;

static unsigned env_uint(const char *name, unsigned dflt, unsigned lo, unsigned hi)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return dflt;
	v = strtoul(s, &end, 0);
	if (*end || v < lo || v > hi)
		return dflt;
	return (unsigned)v;
}

static ib_api_status_t verbs_init(const al_prov_upcalls_t *up)
{
	if (!up)
		return IB_INVALID_PARAMETER;
	verbs_upcalls = *up;
	verbs_mad_timeout_ms = env_uint(VERBS_ENV_TIMEOUT, 30000, 100, 600000);
	verbs_debug = (int)env_uint(VERBS_ENV_DEBUG, 0, 0, 9);
	verbs_issm = (int)env_uint(VERBS_ENV_ISSM, 0, 0, 1);
	/* Fails where there is no umad ABI (no RDMA stack): then no CA is listed. */
	(void)umad_init();
	return IB_SUCCESS;
}

static void verbs_cleanup(void)
{
	umad_done();
	memset(&verbs_upcalls, 0, sizeof(verbs_upcalls));
}

/* Calls @p fn for each channel adapter libibumad lists, until it returns TRUE. */
static void for_each_ca(boolean_t (*fn)(const umad_ca_t *ca, void *ctx), void *ctx)
{
	char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	int n, i;

	n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
	for (i = 0; i < n; i++) {
		umad_ca_t ca;
		boolean_t done;

		if (umad_get_ca(names[i], &ca) < 0)
			continue;
		done = ca.node_type == 1 && fn(&ca, ctx);
		umad_release_ca(&ca);
		if (done)
			return;
	}
}

typedef struct {
	ib_net64_t guids[UMAD_MAX_DEVICES];
	size_t n;
} guid_list_t;

static boolean_t add_guid(const umad_ca_t *ca, void *ctx)
{
	guid_list_t *l = ctx;

	if (l->n < UMAD_MAX_DEVICES)
		l->guids[l->n++] = (ib_net64_t)ca->node_guid;
	return FALSE;
}

static ib_api_status_t verbs_get_ca_guids(ib_net64_t *p_guids, size_t *p_count)
{
	guid_list_t l;
	size_t room;

	if (!p_count)
		return IB_INVALID_PARAMETER;
	l.n = 0;
	for_each_ca(add_guid, &l);
	room = *p_count;
	*p_count = l.n;
	if (room < l.n || (l.n && !p_guids))
		return l.n ? IB_INSUFFICIENT_MEMORY : IB_SUCCESS;
	if (l.n)
		memcpy(p_guids, l.guids, l.n * sizeof(l.guids[0]));
	return IB_SUCCESS;
}

typedef struct {
	ib_net64_t guid;
	char *name;
	boolean_t found;
} find_t;

static boolean_t match_guid(const umad_ca_t *ca, void *ctx)
{
	find_t *f = ctx;

	if ((ib_net64_t)ca->node_guid != f->guid)
		return FALSE;
	memcpy(f->name, ca->ca_name, UMAD_CA_NAME_LEN);
	f->name[UMAD_CA_NAME_LEN - 1] = 0;
	f->found = TRUE;
	return TRUE;
}

boolean_t verbs_ca_name(ib_net64_t guid, char *name)
{
	find_t f = { guid, name, FALSE };

	for_each_ca(match_guid, &f);
	return f.found;
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
	.create_spl_qp = verbs_create_spl_qp,
	.query_qp = verbs_query_qp,
	.modify_qp = verbs_modify_qp,
	.destroy_qp = verbs_destroy_qp,
	.create_cq = verbs_create_cq,
	.query_cq = verbs_query_cq,
	.destroy_cq = verbs_destroy_cq,
	.reg_mem = verbs_reg_mem,
	.query_mr = verbs_query_mr,
	.dereg_mr = verbs_dereg_mr,
	.post_send = verbs_post_send,
	.post_recv = verbs_post_recv,
	.peek_cq = verbs_peek_cq,
	.poll_cq = verbs_poll_cq,
	.rearm_cq = verbs_rearm_cq,
	.rearm_n_cq = verbs_rearm_n_cq,
};

#else /* !HAVE_IBUMAD */

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

#endif /* HAVE_IBUMAD */
