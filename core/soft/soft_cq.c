/*
 * ibal soft provider: completion queues: ring, poll/peek, arming, overrun.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Overrun: a completion that finds the ring full is lost and the CQ
 * reports IB_AE_CQ_ERROR once; the report rearms when a poll empties room.
 * Notification: armed NEXT fires on any new completion, SOL on a solicited
 * (or error) one, N after that many new completions; each fires once.
 */
#include <stdlib.h>
#include <string.h>
#include "soft_hca.h"

static ib_api_status_t ring_alloc(uint32_t size, ib_wc_t **p_ring, uint8_t **p_sol)
{
	*p_ring = calloc(size, sizeof(ib_wc_t));
	*p_sol = calloc(size, 1);
	if (!*p_ring || !*p_sol) {
		free(*p_ring);
		free(*p_sol);
		return IB_INSUFFICIENT_MEMORY;
	}
	return IB_SUCCESS;
}

ib_api_status_t soft_create_cq(void *h, uint32_t *p_size, void *al_cq, void **pp_cq)
{
	soft_ca_t *ca = h;
	soft_cq_t *cq;

	if (!p_size || !pp_cq)
		return IB_INVALID_PARAMETER;
	if (*p_size == 0 || *p_size > SOFT_MAX_CQES)
		return IB_INVALID_CQ_SIZE;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return IB_INSUFFICIENT_MEMORY;
	if (ring_alloc(*p_size, &cq->ring, &cq->sol) != IB_SUCCESS) {
		free(cq);
		return IB_INSUFFICIENT_MEMORY;
	}
	pthread_mutex_lock(&ca->lock);
	if (ca->n_cq >= SOFT_MAX_CQS) {
		pthread_mutex_unlock(&ca->lock);
		free(cq->ring);
		free(cq->sol);
		free(cq);
		return IB_INSUFFICIENT_RESOURCES;
	}
	ca->n_cq++;
	pthread_mutex_unlock(&ca->lock);
	cq->ca = ca;
	cq->al_cq = al_cq;
	cq->size = *p_size;
	pthread_mutex_init(&cq->lock, NULL);
	*pp_cq = cq;
	return IB_SUCCESS;
}

ib_api_status_t soft_resize_cq(void *h, uint32_t *p_size)
{
	soft_cq_t *cq = h;
	ib_wc_t *ring;
	uint8_t *sol;
	uint32_t i;

	if (!p_size)
		return IB_INVALID_PARAMETER;
	if (*p_size == 0 || *p_size > SOFT_MAX_CQES)
		return IB_INVALID_CQ_SIZE;
	if (ring_alloc(*p_size, &ring, &sol) != IB_SUCCESS)
		return IB_INSUFFICIENT_MEMORY;
	pthread_mutex_lock(&cq->lock);
	if (cq->count > *p_size) {
		pthread_mutex_unlock(&cq->lock);
		free(ring);
		free(sol);
		return IB_OVERFLOW;
	}
	for (i = 0; i < cq->count; i++) {
		ring[i] = cq->ring[(cq->head + i) % cq->size];
		sol[i] = cq->sol[(cq->head + i) % cq->size];
	}
	free(cq->ring);
	free(cq->sol);
	cq->ring = ring;
	cq->sol = sol;
	cq->head = 0;
	cq->size = *p_size;
	cq->overrun = 0;
	pthread_mutex_unlock(&cq->lock);
	return IB_SUCCESS;
}

ib_api_status_t soft_query_cq(void *h, uint32_t *p_size)
{
	soft_cq_t *cq = h;

	if (!p_size)
		return IB_INVALID_PARAMETER;
	pthread_mutex_lock(&cq->lock);
	*p_size = cq->size;
	pthread_mutex_unlock(&cq->lock);
	return IB_SUCCESS;
}

void soft_destroy_cq(void *h)
{
	soft_cq_t *cq = h;
	soft_ca_t *ca = cq->ca;

	soft_ca_purge(ca, cq);
	pthread_mutex_lock(&ca->lock);
	ca->n_cq--;
	pthread_mutex_unlock(&ca->lock);
	pthread_mutex_destroy(&cq->lock);
	free(cq->ring);
	free(cq->sol);
	free(cq);
}

ib_api_status_t soft_peek_cq(void *h, uint32_t *p_n)
{
	soft_cq_t *cq = h;

	if (!p_n)
		return IB_INVALID_PARAMETER;
	pthread_mutex_lock(&cq->lock);
	*p_n = cq->count;
	pthread_mutex_unlock(&cq->lock);
	return IB_SUCCESS;
}

ib_api_status_t soft_poll_cq(void *h, ib_wc_t **pp_free, ib_wc_t **pp_done)
{
	soft_cq_t *cq = h;
	ib_wc_t *done = NULL, **tail = &done, *wc;

	if (!pp_free || !pp_done || !*pp_free)
		return IB_INVALID_PARAMETER;
	pthread_mutex_lock(&cq->lock);
	if (!cq->count) {
		pthread_mutex_unlock(&cq->lock);
		*pp_done = NULL;
		return IB_NOT_FOUND;
	}
	while (cq->count && *pp_free) {
		wc = *pp_free;
		*pp_free = wc->p_next;
		*wc = cq->ring[cq->head];
		wc->p_next = NULL;
		*tail = wc;
		tail = &wc->p_next;
		cq->head = (cq->head + 1) % cq->size;
		cq->count--;
	}
	cq->overrun = 0;
	pthread_mutex_unlock(&cq->lock);
	*pp_done = done;
	return IB_SUCCESS;
}

ib_api_status_t soft_rearm_cq(void *h, boolean_t solicited)
{
	soft_cq_t *cq = h;

	pthread_mutex_lock(&cq->lock);
	if (!(solicited && cq->arm == SOFT_CQ_ARM_NEXT))
		cq->arm = solicited ? SOFT_CQ_ARM_SOL : SOFT_CQ_ARM_NEXT;
	pthread_mutex_unlock(&cq->lock);
	return IB_SUCCESS;
}

ib_api_status_t soft_rearm_n_cq(void *h, uint32_t n)
{
	soft_cq_t *cq = h;

	pthread_mutex_lock(&cq->lock);
	if (n == 0 || n > cq->size) {
		pthread_mutex_unlock(&cq->lock);
		return IB_INVALID_PARAMETER;
	}
	cq->arm = SOFT_CQ_ARM_N;
	cq->arm_n = n;
	pthread_mutex_unlock(&cq->lock);
	return IB_SUCCESS;
}

/* Whether a new completion fires the arming (cq->lock held); disarms if so. */
static boolean_t arm_fires(soft_cq_t *cq, boolean_t solicited)
{
	boolean_t fire = FALSE;

	switch (cq->arm) {
	case SOFT_CQ_ARM_NEXT:
		fire = TRUE;
		break;
	case SOFT_CQ_ARM_SOL:
		fire = solicited;
		break;
	case SOFT_CQ_ARM_N:
		fire = --cq->arm_n == 0;
		break;
	default:
		break;
	}
	if (fire)
		cq->arm = SOFT_CQ_ARM_NONE;
	return fire;
}

void soft_cq_add(soft_cq_t *cq, const ib_wc_t *p_wc, boolean_t solicited)
{
	boolean_t fire = FALSE, overrun = FALSE;

	if (!cq)
		return;
	pthread_mutex_lock(&cq->lock);
	if (cq->count == cq->size) {
		overrun = !cq->overrun;
		cq->overrun = 1;
	} else {
		uint32_t slot = (cq->head + cq->count) % cq->size;

		cq->ring[slot] = *p_wc;
		cq->ring[slot].p_next = NULL;
		cq->sol[slot] = (uint8_t)solicited;
		cq->count++;
		fire = arm_fires(cq, solicited || p_wc->status != IB_WCS_SUCCESS);
	}
	pthread_mutex_unlock(&cq->lock);
	if (overrun)
		soft_ca_defer(cq->ca, cq, cq->al_cq, 0, IB_AE_CQ_ERROR, 0);
	if (fire)
		soft_ca_defer(cq->ca, cq, cq->al_cq, 1, 0, 0);
}
