/*
 * ibal soft provider: receive WQE rings and shared receive queues with their limit event.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The limit is armed by modify_srq with IB_SRQ_LIMIT (a nonzero srq_limit,
 * below max_wr); when taking a WQE leaves fewer than the limit queued, the
 * SRQ raises IB_AE_SRQ_LIMIT_REACHED once and disarms (srq_limit reads 0).
 */
#include <stdlib.h>
#include <string.h>
#include "soft_hca.h"

ib_api_status_t soft_rq_init(soft_rq_t *rq, uint32_t depth, uint32_t max_sge)
{
	memset(rq, 0, sizeof(*rq));
	rq->stride = (uint32_t)SOFT_RWQE_SIZE(max_sge);
	rq->depth = depth;
	rq->max_sge = max_sge;
	if (!depth)
		return IB_SUCCESS;
	/* Resident now, as an HCA's queues are pinned when made (prov_conn_mem.h). */
	rq->buf = prov_conn_mem_get((size_t)depth * rq->stride);
	return rq->buf ? IB_SUCCESS : IB_INSUFFICIENT_MEMORY;
}

void soft_rq_free(soft_rq_t *rq)
{
	prov_conn_mem_put(rq->buf, (size_t)rq->depth * rq->stride);
	rq->buf = NULL;
}

ib_api_status_t soft_rq_push(soft_rq_t *rq, const ib_recv_wr_t *p_wr)
{
	soft_rwqe_t *w;

	if (p_wr->num_ds > rq->max_sge)
		return IB_INVALID_MAX_SGE;
	if (p_wr->num_ds && !p_wr->ds_array)
		return IB_INVALID_PARAMETER;
	if (rq->count == rq->depth)
		return IB_INSUFFICIENT_RESOURCES;
	w = (soft_rwqe_t *)(rq->buf +
			    (size_t)prov_ring_at(rq->head, rq->count, rq->depth) * rq->stride);
	w->wr_id = p_wr->wr_id;
	w->num_ds = p_wr->num_ds;
	if (p_wr->num_ds)
		memcpy(w->ds, p_wr->ds_array, p_wr->num_ds * sizeof(ib_local_ds_t));
	rq->count++;
	return IB_SUCCESS;
}

boolean_t soft_rq_pop(soft_rq_t *rq, soft_rwqe_t *p_wqe)
{
	const soft_rwqe_t *w;

	if (!rq->count)
		return FALSE;
	w = (const soft_rwqe_t *)(rq->buf + (size_t)rq->head * rq->stride);
	memcpy(p_wqe, w, SOFT_RWQE_SIZE(w->num_ds));
	rq->head = prov_ring_at(rq->head, 1, rq->depth);
	rq->count--;
	return TRUE;
}

ib_api_status_t soft_create_srq(void *h, const ib_srq_attr_t *a, void *al_srq, void **pp_srq)
{
	soft_pd_t *pd = h;
	soft_ca_t *ca = pd->ca;
	soft_srq_t *srq;

	if (!a || !pp_srq)
		return IB_INVALID_PARAMETER;
	if (a->max_wr == 0 || a->max_wr > SOFT_MAX_WRS)
		return IB_INVALID_MAX_WRS;
	if (a->max_sge == 0 || a->max_sge > SOFT_MAX_SGES)
		return IB_INVALID_MAX_SGE;
	if (a->srq_limit >= a->max_wr)
		return IB_INVALID_SETTING;
	srq = cl_zalloc(sizeof(*srq));
	if (!srq)
		return IB_INSUFFICIENT_MEMORY;
	if (soft_rq_init(&srq->rq, a->max_wr, a->max_sge) != IB_SUCCESS) {
		cl_free(srq);
		return IB_INSUFFICIENT_MEMORY;
	}
	pthread_mutex_lock(&ca->lock);
	if (ca->n_srq >= SOFT_MAX_SRQS) {
		pthread_mutex_unlock(&ca->lock);
		soft_rq_free(&srq->rq);
		cl_free(srq);
		return IB_INSUFFICIENT_RESOURCES;
	}
	ca->n_srq++;
	pthread_mutex_unlock(&ca->lock);
	srq->pd = pd;
	srq->al_srq = al_srq;
	srq->limit = a->srq_limit;
	soft_lock_init(&srq->lock);
	*pp_srq = srq;
	return IB_SUCCESS;
}

ib_api_status_t soft_query_srq(void *h, ib_srq_attr_t *a)
{
	soft_srq_t *srq = h;

	if (!a)
		return IB_INVALID_PARAMETER;
	soft_lock(&srq->lock);
	a->max_wr = srq->rq.depth;
	a->max_sge = srq->rq.max_sge;
	a->srq_limit = srq->limit;
	soft_unlock(&srq->lock);
	return IB_SUCCESS;
}

ib_api_status_t soft_modify_srq(void *h, const ib_srq_attr_t *a, ib_srq_attr_mask_t mask)
{
	soft_srq_t *srq = h;

	if (!a || !mask || (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT)))
		return IB_INVALID_PARAMETER;
	if (mask & IB_SRQ_MAX_WR)
		return IB_UNSUPPORTED;
	soft_lock(&srq->lock);
	if (a->srq_limit >= srq->rq.depth) {
		soft_unlock(&srq->lock);
		return IB_INVALID_SETTING;
	}
	srq->limit = a->srq_limit;
	soft_unlock(&srq->lock);
	return IB_SUCCESS;
}

void soft_destroy_srq(void *h)
{
	soft_srq_t *srq = h;
	soft_ca_t *ca = srq->pd->ca;

	soft_ca_purge(ca, srq);
	pthread_mutex_lock(&ca->lock);
	ca->n_srq--;
	pthread_mutex_unlock(&ca->lock);
	soft_lock_destroy(&srq->lock);
	soft_rq_free(&srq->rq);
	cl_free(srq);
}

ib_api_status_t soft_post_srq_recv(void *h, ib_recv_wr_t *p_wr, ib_recv_wr_t **pp_failure)
{
	soft_srq_t *srq = h;
	ib_api_status_t st = IB_SUCCESS;

	if (!p_wr)
		return IB_INVALID_PARAMETER;
	soft_lock(&srq->lock);
	for (; p_wr; p_wr = p_wr->p_next) {
		st = soft_rq_push(&srq->rq, p_wr);
		if (st != IB_SUCCESS)
			break;
	}
	soft_unlock(&srq->lock);
	if (st != IB_SUCCESS && pp_failure)
		*pp_failure = p_wr;
	return st;
}

boolean_t soft_srq_take(soft_srq_t *srq, soft_rwqe_t *p_wqe)
{
	boolean_t got, fire = FALSE;

	soft_lock(&srq->lock);
	got = soft_rq_pop(&srq->rq, p_wqe);
	if (got && srq->limit && srq->rq.count < srq->limit) {
		srq->limit = 0;
		fire = TRUE;
	}
	soft_unlock(&srq->lock);
	if (fire)
		soft_ca_defer(srq->pd->ca, srq, srq->al_srq, 0, IB_AE_SRQ_LIMIT_REACHED, 0);
	return got;
}
