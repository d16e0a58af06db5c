/*
 * ibal access layer: the CM's hash tables of endpoints (al_cm_hash.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <string.h>
#include <complib/cl_memory.h>
#include "ibal_random.h"
#include "al_cm_hash.h"

#define MIN_SHIFT (64u - 6u) /* CM_HASH_MIN buckets */

/* The top bits of the key mixed with the table's secret seed: remote comm
 * IDs and QPNs are chosen by peers, which must not be able to pick keys
 * that share a bucket (a chain as long as their requests). */
static inline uint32_t slot(const cm_hash_t *h, uint64_t a)
{
	return (uint32_t)(ibal_random_mix(a ^ h->seed) >> h->shift);
}

void cm_hash_init(cm_hash_t *h)
{
	h->seed = ibal_random64();
	memset(h->fixed, 0, sizeof(h->fixed));
	h->bucket = h->fixed;
	h->shift = MIN_SHIFT;
	h->count = 0;
}

/* Moves every entry to 2^(64 - @p shift) buckets (at least CM_HASH_MIN);
 * keeps the current ones if memory is short. */
static void resize(cm_hash_t *h, uint32_t shift)
{
	uint32_t i, old_n = cm_hash_buckets(h);
	cm_hitem_t **old = h->bucket, **nb, *e, *next;

	if (shift == MIN_SHIFT) {
		nb = h->fixed;
		if (old == nb)
			return;
		memset(nb, 0, sizeof(h->fixed));
	} else {
		nb = (cm_hitem_t **)cl_zalloc(sizeof(*nb) << (64 - shift));
		if (!nb)
			return;
	}
	h->bucket = nb;
	h->shift = shift;
	for (i = 0; i < old_n; i++) {
		for (e = old[i]; e; e = next) {
			uint32_t s = slot(h, e->key.a);

			next = e->next;
			e->next = nb[s];
			nb[s] = e;
		}
	}
	if (old != h->fixed)
		cl_free(old);
}

static void unlink_item(cm_hash_t *h, cm_hitem_t *e)
{
	cm_hitem_t **pp = &h->bucket[slot(h, e->key.a)];

	while (*pp != e)
		pp = &(*pp)->next;
	*pp = e->next;
	e->next = NULL;
	e->on = FALSE;
	h->count--;
}

void cm_hash_move(cm_hash_t *h, cm_hitem_t *e, boolean_t on, uint64_t a, uint64_t b, uint64_t c)
{
	uint32_t s;

	if (e->on) {
		unlink_item(h, e);
		/* Below an eighth: half the buckets (the fixed ones when empty). */
		if (h->shift < MIN_SHIFT &&
		    (!h->count || h->count < cm_hash_buckets(h) / 8u))
			resize(h, h->count ? h->shift + 1 : MIN_SHIFT);
	}
	if (!on)
		return;
	if (h->count >= cm_hash_buckets(h) && h->shift > 32)
		resize(h, h->shift - 1);
	e->key.a = a;
	e->key.b = b;
	e->key.c = c;
	s = slot(h, a);
	e->next = h->bucket[s];
	h->bucket[s] = e;
	e->on = TRUE;
	h->count++;
}

static inline boolean_t match(const cm_hitem_t *e, uint64_t a, uint64_t b, boolean_t match_b)
{
	return e->key.a == a && (!match_b || e->key.b == b);
}

cm_hitem_t *cm_hash_find(const cm_hash_t *h, uint64_t a, uint64_t b, boolean_t match_b)
{
	cm_hitem_t *e;

	for (e = h->bucket[slot(h, a)]; e; e = e->next)
		if (match(e, a, b, match_b))
			return e;
	return NULL;
}

cm_hitem_t *cm_hash_next(const cm_hitem_t *e, boolean_t match_b)
{
	cm_hitem_t *n;

	for (n = e->next; n; n = n->next)
		if (match(n, e->key.a, e->key.b, match_b))
			return n;
	return NULL;
}

uint32_t cm_hash_chain(const cm_hash_t *h, uint64_t a)
{
	const cm_hitem_t *e;
	uint32_t n = 0;

	for (e = h->bucket[slot(h, a)]; e; e = e->next)
		n++;
	return n;
}
