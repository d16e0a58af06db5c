/*
 * ibal tests: the CM's hash tables of endpoints (cm_hash_t, al_cm_hash.c).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * What the CM relies on: an entry is found under the key it was last filed
 * with and under no other; the entries sharing a first field are all found
 * (with or without the second); the table grows with its entries and gives
 * its memory back as they go; an allocation that fails costs no entry;
 * keys with a pattern do not pile into one bucket.
 */
#include <string.h>
#include "al_cm_hash.h"
#include "../common/cl_test.h"
#include "../common/mem_track.h"

#define N_ITEMS 20000u

static cm_hitem_t items[N_ITEMS];

/* A key spread as comm IDs are (random-looking, never repeated). */
static uint64_t key_of(uint32_t i)
{
	return ((uint64_t)i * 2654435761u) ^ 0x5A5A5A5Au;
}

static void test_find_grow_shrink(void)
{
	cm_hash_t h;
	uint32_t i;

	test_track_begin();
	memset(items, 0, sizeof(items));
	cm_hash_init(&h);
	CU_ASSERT_EQUAL(cm_hash_buckets(&h), CM_HASH_MIN);
	CU_ASSERT_PTR_NULL(cm_hash_find(&h, 1, 0, FALSE));
	for (i = 0; i < N_ITEMS; i++)
		cm_hash_set(&h, &items[i], TRUE, key_of(i), i, i + 1);
	CU_ASSERT_EQUAL(cm_hash_count(&h), N_ITEMS);
	/* At most one entry per bucket on average. */
	CU_ASSERT(cm_hash_buckets(&h) >= N_ITEMS);
	for (i = 0; i < N_ITEMS; i++) {
		CU_ASSERT_PTR_EQUAL(cm_hash_find(&h, key_of(i), 0, FALSE), &items[i]);
		CU_ASSERT_PTR_EQUAL(cm_hash_find(&h, key_of(i), i, TRUE), &items[i]);
		CU_ASSERT_PTR_NULL(cm_hash_find(&h, key_of(i), i + 1, TRUE));
	}
	CU_ASSERT_PTR_NULL(cm_hash_find(&h, key_of(N_ITEMS), 0, FALSE));
	CU_ASSERT(cl_mem_track_count() == 1); /* the grown bucket array */
	/* Taking them out halves the buckets on the way and ends with none allocated. */
	for (i = 0; i < N_ITEMS; i++) {
		cm_hash_set(&h, &items[i], FALSE, 0, 0, 0);
		CU_ASSERT_FALSE(items[i].on);
		if (i % 997 == 0)
			CU_ASSERT(cm_hash_buckets(&h) <= CM_HASH_MIN ||
				  cm_hash_count(&h) >= cm_hash_buckets(&h) / 8u);
	}
	for (i = 0; i < N_ITEMS; i += 101)
		CU_ASSERT_PTR_NULL(cm_hash_find(&h, key_of(i), 0, FALSE));
	CU_ASSERT_EQUAL(cm_hash_count(&h), 0);
	CU_ASSERT_EQUAL(cm_hash_buckets(&h), CM_HASH_MIN);
	test_track_end();
}

static void test_same_first_field(void)
{
	cm_hash_t h;
	cm_hitem_t *e;
	uint32_t i, seen = 0, seen_b = 0;

	memset(items, 0, sizeof(items));
	cm_hash_init(&h);
	/* 100 entries under a = 7 (b = i % 3), and 300 others around them. */
	for (i = 0; i < 400; i++)
		cm_hash_set(&h, &items[i], TRUE, i < 100 ? 7 : key_of(i), i % 3, i + 1);
	for (e = cm_hash_find(&h, 7, 0, FALSE); e; e = cm_hash_next(e, FALSE)) {
		CU_ASSERT_EQUAL(e->key.a, 7);
		seen++;
	}
	CU_ASSERT_EQUAL(seen, 100);
	for (e = cm_hash_find(&h, 7, 2, TRUE); e; e = cm_hash_next(e, TRUE)) {
		CU_ASSERT_EQUAL(e->key.b, 2);
		seen_b++;
	}
	CU_ASSERT_EQUAL(seen_b, 33); /* i = 2, 5, ..., 98 */
	for (i = 0; i < 400; i++)
		cm_hash_set(&h, &items[i], FALSE, 0, 0, 0);
	CU_ASSERT_EQUAL(cm_hash_count(&h), 0);
}

static void test_move(void)
{
	cm_hash_t h;
	cm_hitem_t a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	cm_hash_init(&h);
	cm_hash_set(&h, &a, TRUE, 10, 1, 1);
	cm_hash_set(&h, &b, TRUE, 10, 2, 2);
	/* Filed again under the same key: no change. */
	cm_hash_set(&h, &a, TRUE, 10, 1, 1);
	CU_ASSERT_EQUAL(cm_hash_count(&h), 2);
	/* Moved: found only under its new key. */
	cm_hash_set(&h, &a, TRUE, 20, 1, 1);
	CU_ASSERT_EQUAL(cm_hash_count(&h), 2);
	CU_ASSERT_PTR_EQUAL(cm_hash_find(&h, 20, 1, TRUE), &a);
	CU_ASSERT_PTR_EQUAL(cm_hash_find(&h, 10, 0, FALSE), &b);
	CU_ASSERT_PTR_NULL(cm_hash_next(&b, FALSE));
	CU_ASSERT_PTR_NULL(cm_hash_find(&h, 10, 1, TRUE));
	/* Taking out what is not in: nothing happens. */
	cm_hash_set(&h, &a, FALSE, 0, 0, 0);
	cm_hash_set(&h, &a, FALSE, 0, 0, 0);
	CU_ASSERT_EQUAL(cm_hash_count(&h), 1);
	cm_hash_set(&h, &b, FALSE, 0, 0, 0);
	CU_ASSERT_EQUAL(cm_hash_count(&h), 0);
	CU_ASSERT_PTR_NULL(cm_hash_find(&h, 10, 0, FALSE));
}

/* A doubling that gets no memory keeps every entry (on longer chains); the
 * next insertion grows the table. */
static void test_grow_without_memory(void)
{
	cm_hash_t h;
	uint32_t i;

	test_track_begin();
	memset(items, 0, sizeof(items));
	cm_hash_init(&h);
	for (i = 0; i < CM_HASH_MIN; i++)
		cm_hash_set(&h, &items[i], TRUE, key_of(i), 0, i + 1);
	CU_ASSERT_EQUAL(cm_hash_buckets(&h), CM_HASH_MIN);
	__cl_mem_fail_nth(1);
	cm_hash_set(&h, &items[CM_HASH_MIN], TRUE, key_of(CM_HASH_MIN), 0, 1);
	CU_ASSERT_TRUE(__cl_mem_fail_nth(0));
	CU_ASSERT_EQUAL(cm_hash_buckets(&h), CM_HASH_MIN);
	CU_ASSERT_EQUAL(cm_hash_count(&h), CM_HASH_MIN + 1);
	for (i = 0; i <= CM_HASH_MIN; i++)
		CU_ASSERT_PTR_EQUAL(cm_hash_find(&h, key_of(i), 0, FALSE), &items[i]);
	cm_hash_set(&h, &items[CM_HASH_MIN + 1], TRUE, key_of(CM_HASH_MIN + 1), 0, 1);
	CU_ASSERT_EQUAL(cm_hash_buckets(&h), 2 * CM_HASH_MIN);
	for (i = 0; i <= CM_HASH_MIN + 1; i++) {
		CU_ASSERT_PTR_EQUAL(cm_hash_find(&h, key_of(i), 0, FALSE), &items[i]);
		cm_hash_set(&h, &items[i], FALSE, 0, 0, 0);
	}
	CU_ASSERT_EQUAL(cm_hash_buckets(&h), CM_HASH_MIN);
	test_track_end();
}

/* Keys with a pattern (differing only in high bits, or only in low ones)
 * still spread over the buckets. (A peer cannot aim at one bucket either:
 * the key is mixed with the table's secret seed.) With 1,024 keys in at
 * least 1,024 buckets, a chain of 16 has a chance below 1e-10. */
static void test_chosen_keys_spread(void)
{
	cm_hash_t h;
	uint32_t i, j, longest;

	for (j = 0; j < 2; j++) {
		memset(items, 0, sizeof(items));
		cm_hash_init(&h);
		for (i = 0; i < 1024; i++)
			cm_hash_set(&h, &items[i], TRUE, j ? (uint64_t)i << 48 : i, 0, i + 1);
		CU_ASSERT(cm_hash_buckets(&h) >= 1024);
		for (i = 0, longest = 0; i < 1024; i++) {
			uint32_t n = cm_hash_chain(&h, items[i].key.a);

			longest = n > longest ? n : longest;
		}
		CU_ASSERT(longest < 16);
		for (i = 0; i < 1024; i++)
			cm_hash_set(&h, &items[i], FALSE, 0, 0, 0);
	}
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_find_grow_shrink),
	TEST_ENTRY(test_same_first_field),
	TEST_ENTRY(test_move),
	TEST_ENTRY(test_grow_without_memory),
	TEST_ENTRY(test_chosen_keys_spread),
};

TEST_MAIN("al_cm_hash", tests)
