/*
 * ibal verbs provider: protection domains, address vectors, memory regions and completion queues.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Memory needs no registration for umad (MADs are copied through read and
 * write), so a region is only recorded: reg_mem hands out a key (L_Key =
 * R_Key, index in the CA's table plus a generation in the high bits) and
 * the MAD path checks every SGE against it (verbs_mr_check). An AV is a
 * checked copy of its ib_av_attr_t. A CQ is a ring of ib_wc_t with the
 * usual arming (next, solicited, after n); its upcalls are made by the CA
 * worker (verbs_ca.c), never inside post or poll calls.
 */
#include <stdlib.h>
#include <string.h>
#include "verbs_prov.h"

#ifdef HAVE_IBUMAD

/* ---- PD ---- */

ib_api_status_t verbs_alloc_pd(void *h, ib_pd_type_t type, void **pp_pd)
{
	verbs_pd_t *pd;

	(void)type;
	if (!pp_pd)
		return IB_INVALID_PARAMETER;
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return IB_INSUFFICIENT_MEMORY;
	pd->ca = h;
	*pp_pd = pd;
	return IB_SUCCESS;
}

void verbs_dealloc_pd(void *pd)
{
	free(pd);
}

/* ---- AV ---- */

static ib_api_status_t av_check(verbs_ca_t *ca, const ib_av_attr_t *a)
{
	uint16_t dlid = cl_ntoh16(a->dlid);

	if (a->port_num < 1 || a->port_num > ca->num_ports)
		return IB_INVALID_PORT;
	if (a->sl > 15 || dlid == 0)
		return IB_INVALID_SETTING;
	return IB_SUCCESS;
}

ib_api_status_t verbs_create_av(void *h, const ib_av_attr_t *p_attr, void **pp_av)
{
	verbs_pd_t *pd = h;
	verbs_av_t *av;
	ib_api_status_t st;

	if (!p_attr || !pp_av)
		return IB_INVALID_PARAMETER;
	st = av_check(pd->ca, p_attr);
	if (st != IB_SUCCESS)
		return st;
	av = calloc(1, sizeof(*av));
	if (!av)
		return IB_INSUFFICIENT_MEMORY;
	av->pd = pd;
	av->attr = *p_attr;
	*pp_av = av;
	return IB_SUCCESS;
}

ib_api_status_t verbs_query_av(void *h, ib_av_attr_t *p_attr)
{
	verbs_av_t *av = h;

	if (!p_attr)
		return IB_INVALID_PARAMETER;
	*p_attr = av->attr;
	return IB_SUCCESS;
}

/* Keeps the object: in-place update (a post copies the attributes it uses). */
ib_api_status_t verbs_modify_av(void *h, const ib_av_attr_t *p_attr, void **pp_av)
{
	verbs_av_t *av;
	ib_api_status_t st;

	if (!p_attr || !pp_av || !*pp_av)
		return IB_INVALID_PARAMETER;
	av = *pp_av;
	(void)h;
	st = av_check(av->pd->ca, p_attr);
	if (st != IB_SUCCESS)
		return st;
	av->attr = *p_attr;
	return IB_SUCCESS;
}

void verbs_destroy_av(void *av)
{
	free(av);
}

/* ---- MR ---- */

#define KEY_INDEX(k) ((k) & 0xFFFFu)

ib_api_status_t verbs_reg_mem(void *h, const ib_mr_create_t *p_create, net32_t *p_lkey,
			      net32_t *p_rkey, void **pp_mr)
{
	verbs_pd_t *pd = h;
	verbs_ca_t *ca = pd->ca;
	verbs_mr_t *mr;
	unsigned i;

	if (!p_create || !p_lkey || !p_rkey || !pp_mr)
		return IB_INVALID_PARAMETER;
	if (!p_create->vaddr || !p_create->length)
		return IB_INVALID_PARAMETER;
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return IB_INSUFFICIENT_MEMORY;
	mr->pd = pd;
	mr->va = (uint64_t)(uintptr_t)p_create->vaddr;
	mr->len = p_create->length;
	mr->access = p_create->access_ctrl;
	pthread_mutex_lock(&ca->lock);
	for (i = 0; i < VERBS_MAX_MRS && ca->mr[i]; i++)
		;
	if (i == VERBS_MAX_MRS) {
		pthread_mutex_unlock(&ca->lock);
		free(mr);
		return IB_INSUFFICIENT_RESOURCES;
	}
	ca->mr_gen = (ca->mr_gen + 1) & 0xFFFFu;
	if (!ca->mr_gen)
		ca->mr_gen = 1;
	mr->key = (ca->mr_gen << 16) | i;
	ca->mr[i] = mr;
	pthread_mutex_unlock(&ca->lock);
	*p_lkey = *p_rkey = cl_hton32(mr->key);
	*pp_mr = mr;
	return IB_SUCCESS;
}

ib_api_status_t verbs_query_mr(void *h, ib_mr_attr_t *p_attr)
{
	verbs_mr_t *mr = h;

	if (!p_attr)
		return IB_INVALID_PARAMETER;
	memset(p_attr, 0, sizeof(*p_attr));
	p_attr->local_lb = mr->va;
	p_attr->local_ub = mr->va + mr->len - 1;
	p_attr->remote_lb = p_attr->local_lb;
	p_attr->remote_ub = p_attr->local_ub;
	p_attr->access_ctrl = mr->access;
	p_attr->lkey = p_attr->rkey = cl_hton32(mr->key);
	return IB_SUCCESS;
}

ib_api_status_t verbs_dereg_mr(void *h)
{
	verbs_mr_t *mr = h;
	verbs_ca_t *ca = mr->pd->ca;

	pthread_mutex_lock(&ca->lock);
	ca->mr[KEY_INDEX(mr->key)] = NULL;
	pthread_mutex_unlock(&ca->lock);
	free(mr);
	return IB_SUCCESS;
}

boolean_t verbs_mr_check(verbs_ca_t *ca, verbs_pd_t *pd, net32_t lkey, uint64_t va,
			 uint32_t len)
{
	uint32_t key = cl_ntoh32(lkey);
	verbs_mr_t *mr;
	boolean_t ok = FALSE;

	if (KEY_INDEX(key) >= VERBS_MAX_MRS)
		return FALSE;
	pthread_mutex_lock(&ca->lock);
	mr = ca->mr[KEY_INDEX(key)];
	if (mr && mr->key == key && mr->pd == pd && va >= mr->va &&
	    (uint64_t)len <= mr->len && va - mr->va <= mr->len - len)
		ok = TRUE;
	pthread_mutex_unlock(&ca->lock);
	return ok;
}

/* ---- CQ ---- */

ib_api_status_t verbs_create_cq(void *h, uint32_t *p_size, void *al_cq, void **pp_cq)
{
	verbs_cq_t *cq;

	if (!p_size || !pp_cq)
		return IB_INVALID_PARAMETER;
	if (*p_size == 0 || *p_size > VERBS_MAX_CQES)
		return IB_INVALID_CQ_SIZE;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return IB_INSUFFICIENT_MEMORY;
	if (al_wc_ring_init(&cq->ring, *p_size)) {
		free(cq);
		return IB_INSUFFICIENT_MEMORY;
	}
	cq->ca = h;
	cq->al_cq = al_cq;
	pthread_mutex_init(&cq->lock, NULL);
	*pp_cq = cq;
	return IB_SUCCESS;
}

ib_api_status_t verbs_query_cq(void *h, uint32_t *p_size)
{
	verbs_cq_t *cq = h;

	if (!p_size)
		return IB_INVALID_PARAMETER;
	*p_size = cq->ring.size;
	return IB_SUCCESS;
}

void verbs_destroy_cq(void *h)
{
	verbs_cq_t *cq = h;
	verbs_ca_t *ca = cq->ca;
	verbs_cq_t **pp;

	pthread_mutex_lock(&ca->lock);
	for (pp = &ca->notify; *pp; pp = &(*pp)->next_notify) {
		if (*pp == cq) {
			*pp = cq->next_notify;
			break;
		}
	}
	/* Wait for an upcall in progress, unless we are inside it. */
	while (ca->cb_cq == cq && !pthread_equal(pthread_self(), ca->worker))
		pthread_cond_wait(&ca->cond, &ca->lock);
	pthread_mutex_unlock(&ca->lock);
	pthread_mutex_destroy(&cq->lock);
	al_wc_ring_free(&cq->ring);
	free(cq);
}

ib_api_status_t verbs_peek_cq(void *h, uint32_t *p_n)
{
	verbs_cq_t *cq = h;

	if (!p_n)
		return IB_INVALID_PARAMETER;
	pthread_mutex_lock(&cq->lock);
	*p_n = cq->ring.count;
	pthread_mutex_unlock(&cq->lock);
	return IB_SUCCESS;
}

ib_api_status_t verbs_poll_cq(void *h, ib_wc_t **pp_free, ib_wc_t **pp_done)
{
	verbs_cq_t *cq = h;
	ib_api_status_t st;

	if (!pp_free || !pp_done || !*pp_free)
		return IB_INVALID_PARAMETER;
	pthread_mutex_lock(&cq->lock);
	st = al_wc_ring_take(&cq->ring, pp_free, pp_done);
	pthread_mutex_unlock(&cq->lock);
	return st;
}

ib_api_status_t verbs_rearm_cq(void *h, boolean_t solicited)
{
	verbs_cq_t *cq = h;

	pthread_mutex_lock(&cq->lock);
	al_wc_ring_rearm(&cq->ring, solicited);
	pthread_mutex_unlock(&cq->lock);
	return IB_SUCCESS;
}

ib_api_status_t verbs_rearm_n_cq(void *h, uint32_t n)
{
	verbs_cq_t *cq = h;

	if (n == 0 || n > cq->ring.size)
		return IB_INVALID_PARAMETER;
	pthread_mutex_lock(&cq->lock);
	al_wc_ring_rearm_n(&cq->ring, n);
	pthread_mutex_unlock(&cq->lock);
	return IB_SUCCESS;
}

/* MAD completions are never solicited; an error completion fires SOL too. */
void verbs_cq_add(verbs_cq_t *cq, const ib_wc_t *p_wc)
{
	boolean_t fire, lost;

	pthread_mutex_lock(&cq->lock);
	al_wc_ring_put(&cq->ring, p_wc, FALSE, &fire, &lost);
	pthread_mutex_unlock(&cq->lock);
	if (fire || lost)
		verbs_ca_notify(cq->ca, cq, lost);
}

#else /* !HAVE_IBUMAD: nothing to build (verbs_prov.c lists no CA) */
typedef int verbs_obj_unused_t;
#endif /* HAVE_IBUMAD */
