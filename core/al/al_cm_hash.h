/*
 * ibal access layer: the CM's hash tables of endpoints (by local comm ID, remote comm ID, remote QPN, bound QP), private.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * An object has an entry (cm_hitem_t) in each table it may be filed in,
 * under a key of three numbers {a, b, c}; a table is found by @c a alone
 * (the entries sharing it are chained in one bucket), so that a lookup,
 * an insertion and a removal cost one hash and a short walk, whatever the
 * number of connections. @c c names the object (its local comm ID), so
 * that a key is unique. The bucket array doubles when the entries
 * outnumber the buckets and halves when they fall below an eighth; it
 * starts, and ends when the table empties, as an array inside the table,
 * so that no insertion fails and an empty table holds no allocation. A
 * doubling that cannot get memory keeps the current array (longer
 * chains). Keys are mixed with a random seed of the table's, so that a
 * peer cannot choose comm IDs or QPNs that fall into one bucket. The
 * caller serialises every call (al_cm_g.lock).
 */
#ifndef AL_CM_HASH_H
#define AL_CM_HASH_H

#include <stdint.h>
#include <complib/cl_types.h>

/** The key of a CM table entry: three numbers; @c a chooses the bucket. */
typedef struct cm_key {
	uint64_t a, b, c;
} cm_key_t;

/** An object's entry in one CM hash table. */
typedef struct cm_hitem {
	struct cm_hitem *next;        /**< Next in its bucket. */
	cm_key_t key;                 /**< Where it is filed. */
	boolean_t on;                 /**< In its table. */
} cm_hitem_t;

/** Buckets of an empty table (inside the table). */
#define CM_HASH_MIN 64u

/** A CM hash table. */
typedef struct cm_hash {
	cm_hitem_t **bucket;          /**< The buckets: fixed[] or an allocation. */
	uint64_t seed;                /**< Secret, mixed into every key's hash. */
	uint32_t shift;               /**< 64 - log2(buckets). */
	uint32_t count;               /**< Entries. */
	cm_hitem_t *fixed[CM_HASH_MIN]; /**< The buckets while few entries. */
} cm_hash_t;

/** Makes @p h an empty table with a fresh seed. */
void cm_hash_init(cm_hash_t *h);

/** cm_hash_set() when something changes. */
void cm_hash_move(cm_hash_t *h, cm_hitem_t *e, boolean_t on, uint64_t a, uint64_t b, uint64_t c);

/**
 * Files @p e under {a, b, c} (moving it if it was filed under another
 * key), or takes it out (@p on FALSE). Most calls change nothing (the CM
 * refiles an endpoint in every table whenever one of its keys may have
 * changed): those return here.
 */
static inline void cm_hash_set(cm_hash_t *h, cm_hitem_t *e, boolean_t on, uint64_t a, uint64_t b,
			       uint64_t c)
{
	if (e->on ? on && e->key.a == a && e->key.b == b && e->key.c == c : !on)
		return;
	cm_hash_move(h, e, on, a, b, c);
}

/**
 * The first entry filed with @c a, and @c b too if @p match_b; NULL if none.
 * The others follow with cm_hash_next().
 */
cm_hitem_t *cm_hash_find(const cm_hash_t *h, uint64_t a, uint64_t b, boolean_t match_b);

/** The entry after @p e with the same @c a (and @c b if @p match_b), or NULL. */
cm_hitem_t *cm_hash_next(const cm_hitem_t *e, boolean_t match_b);

/** Entries in the bucket where @c a would be (for tests). */
uint32_t cm_hash_chain(const cm_hash_t *h, uint64_t a);

/** Entries in @p h. */
static inline uint32_t cm_hash_count(const cm_hash_t *h)
{
	return h->count;
}

/** Buckets of @p h now (for tests). */
static inline uint32_t cm_hash_buckets(const cm_hash_t *h)
{
	return (uint32_t)(1ull << (64 - h->shift));
}

#endif /* AL_CM_HASH_H */
