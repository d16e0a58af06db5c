/*
 * ibal providers: a ring of work completions with the CQ's arming and overrun state.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file prov_wc_ring.h
 * @brief The completion ring a provider that keeps its own CQs (soft, and
 * the verbs provider's MAD-only CAs) builds them on. Private.
 *
 * Overrun: a completion that finds the ring full is lost; the first loss
 * since the last poll is reported to the caller, which raises
 * IB_AE_CQ_ERROR once. Notification: armed NEXT fires on any new
 * completion, SOL on a solicited (or error) one, N after that many new
 * completions; each arming fires once.
 *
 * Thread safety: none; the provider holds its CQ's lock around every call.
 */
#ifndef PROV_WC_RING_H
#define PROV_WC_RING_H

#include <stdlib.h>
#include <iba/ib_types.h>
#include "prov_ring.h"
#include "ibal_mem.h"

/** @cond INTERNAL */

enum {
	PROV_WC_ARM_NONE = 0, /* not armed */
	PROV_WC_ARM_NEXT = 1, /* next completion */
	PROV_WC_ARM_SOL = 2,  /* next solicited (or error) completion */
	PROV_WC_ARM_N = 3     /* after arm_n completions */
};

typedef struct prov_wc_ring {
	ib_wc_t *wc;      /* entries (p_next unused) */
	uint32_t size;    /* capacity */
	uint32_t head;    /* oldest entry */
	uint32_t count;   /* entries held */
	int arm;          /* PROV_WC_ARM_* */
	uint32_t arm_n;   /* PROV_WC_ARM_N: completions still to come */
	int overrun;      /* a loss was reported; cleared by a poll */
} prov_wc_ring_t;

/* Zeroed room for @p size entries (a large ring in huge pages,
 * ibal_mem_queue_alloc), or NULL; freed with prov_wc_ring_free_entries(). */
static inline ib_wc_t *prov_wc_ring_alloc_entries(uint32_t size)
{
	return (ib_wc_t *)ibal_mem_queue_alloc((size_t)size * sizeof(ib_wc_t));
}

static inline void prov_wc_ring_free_entries(ib_wc_t *wc, uint32_t size)
{
	ibal_mem_queue_free(wc, (size_t)size * sizeof(ib_wc_t));
}

/* Allocates @p size entries; 0, or -1 when out of memory. */
static inline int prov_wc_ring_init(prov_wc_ring_t *r, uint32_t size)
{
	r->wc = prov_wc_ring_alloc_entries(size);
	r->size = size;
	r->head = r->count = 0;
	r->arm = PROV_WC_ARM_NONE;
	r->arm_n = 0;
	r->overrun = 0;
	return r->wc ? 0 : -1;
}

static inline void prov_wc_ring_free(prov_wc_ring_t *r)
{
	prov_wc_ring_free_entries(r->wc, r->size);
	r->wc = NULL;
}

/* Moves the oldest entries into the free list's elements, as poll_cq does;
 * IB_NOT_FOUND (and *pp_done NULL) when the ring is empty. */
static inline ib_api_status_t prov_wc_ring_take(prov_wc_ring_t *r, ib_wc_t **pp_free,
					      ib_wc_t **pp_done)
{
	ib_wc_t *done = NULL, **tail = &done, *wc;

	if (!r->count) {
		*pp_done = NULL;
		return IB_NOT_FOUND;
	}
	while (r->count && *pp_free) {
		wc = *pp_free;
		*pp_free = wc->p_next;
		*wc = r->wc[r->head];
		wc->p_next = NULL;
		*tail = wc;
		tail = &wc->p_next;
		r->head = prov_ring_at(r->head, 1, r->size);
		r->count--;
	}
	r->overrun = 0;
	*pp_done = done;
	return IB_SUCCESS;
}

/* Arms for the next (or next solicited) completion; NEXT is not narrowed to SOL. */
static inline void prov_wc_ring_rearm(prov_wc_ring_t *r, boolean_t solicited)
{
	if (!(solicited && r->arm == PROV_WC_ARM_NEXT))
		r->arm = solicited ? PROV_WC_ARM_SOL : PROV_WC_ARM_NEXT;
}

/* Arms for @p n more completions (the caller checked 1..size). */
static inline void prov_wc_ring_rearm_n(prov_wc_ring_t *r, uint32_t n)
{
	r->arm = PROV_WC_ARM_N;
	r->arm_n = n;
}

/* Adds a completion. *p_fire: the arming fired (and is cleared);
 * *p_lost: the ring was full and this is the first loss since a poll. */
static inline void prov_wc_ring_put(prov_wc_ring_t *r, const ib_wc_t *p_wc, boolean_t solicited,
				  boolean_t *p_fire, boolean_t *p_lost)
{
	uint32_t slot;

	*p_fire = FALSE;
	*p_lost = FALSE;
	if (r->count == r->size) {
		*p_lost = !r->overrun;
		r->overrun = 1;
		return;
	}
	slot = prov_ring_at(r->head, r->count, r->size);
	r->wc[slot] = *p_wc;
	r->wc[slot].p_next = NULL;
	r->count++;
	switch (r->arm) {
	case PROV_WC_ARM_NEXT:
		*p_fire = TRUE;
		break;
	case PROV_WC_ARM_SOL:
		*p_fire = solicited || p_wc->status != IB_WCS_SUCCESS;
		break;
	case PROV_WC_ARM_N:
		*p_fire = --r->arm_n == 0;
		break;
	default:
		break;
	}
	if (*p_fire)
		r->arm = PROV_WC_ARM_NONE;
}

/** @endcond */

#endif /* PROV_WC_RING_H */
