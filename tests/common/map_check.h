/*
 * ibal tests: red-black and sorted-list invariant checks for the complib maps, and a test PRNG.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A map test defines, then includes this file after cl_test.h:
 *   MAP_CHECK_MAP            the map type (members root, nil);
 *   MAP_CHECK_ITEM           its item type (p_left, p_right, p_up, color);
 *   MAP_CHECK_CMP(m, a, b)   <0, 0 or >0 as item a's key orders before, with
 *                            or after item b's in map m;
 *   MAP_CHECK_COUNT(m)       the map's item count;
 *   MAP_CHECK_LIST           (optional) the prefix of the functions threading
 *                            the items in key order: cl_qmap or cl_fmap.
 * It gets map_valid(m): 1 if every invariant holds, else 0.
 */
#ifndef IBAL_MAP_CHECK_H
#define IBAL_MAP_CHECK_H

#include <stddef.h>
#include <stdint.h>

#if !defined(MAP_CHECK_MAP) || !defined(MAP_CHECK_ITEM) || !defined(MAP_CHECK_CMP) || \
	!defined(MAP_CHECK_COUNT)
#error "define MAP_CHECK_MAP, MAP_CHECK_ITEM, MAP_CHECK_CMP and MAP_CHECK_COUNT first"
#endif

/* xorshift64: a small deterministic generator for randomized tests (state != 0). */
static inline uint64_t test_xorshift64(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

/*
 * Walks the subtree at `n` (parent `up`) checking links, colours and that
 * every key lies strictly between those of `lo` and `hi` (NULL: unbounded);
 * adds its nodes to *count. Returns its black height, or -1.
 */
static int map_check_subtree(const MAP_CHECK_MAP *m, const MAP_CHECK_ITEM *n,
			     const MAP_CHECK_ITEM *up, const MAP_CHECK_ITEM *lo,
			     const MAP_CHECK_ITEM *hi, size_t *count)
{
	int lh, rh;

	if (n == &m->nil)
		return 1;
	if (n->p_up != up || (n->color != CL_MAP_RED && n->color != CL_MAP_BLACK))
		return -1;
	if ((lo && MAP_CHECK_CMP(m, n, lo) <= 0) || (hi && MAP_CHECK_CMP(m, n, hi) >= 0))
		return -1;
	if (n->color == CL_MAP_RED &&
	    (n->p_left->color == CL_MAP_RED || n->p_right->color == CL_MAP_RED))
		return -1;
	(*count)++;
	lh = map_check_subtree(m, n->p_left, n, lo, n, count);
	rh = map_check_subtree(m, n->p_right, n, n, hi, count);
	if (lh < 0 || lh != rh)
		return -1;
	return lh + (n->color == CL_MAP_BLACK);
}

#ifdef MAP_CHECK_LIST
#define MAP_CHECK_CAT_(a, b) a##b
#define MAP_CHECK_CAT(a, b) MAP_CHECK_CAT_(a, b)
#define MAP_CHECK_FN(name) MAP_CHECK_CAT(MAP_CHECK_LIST, name)

/* Checks the item list: linked both ways, strictly ascending, `count` long. */
static int map_check_list(const MAP_CHECK_MAP *m, size_t count)
{
	const MAP_CHECK_ITEM *it, *prev = MAP_CHECK_FN(_end)(m);
	size_t listed = 0;

	for (it = MAP_CHECK_FN(_head)(m); it != MAP_CHECK_FN(_end)(m); it = MAP_CHECK_FN(_next)(it)) {
		if (MAP_CHECK_FN(_prev)(it) != prev)
			return 0;
		if (prev != MAP_CHECK_FN(_end)(m) && MAP_CHECK_CMP(m, prev, it) >= 0)
			return 0;
		prev = it;
		listed++;
	}
	return listed == count && MAP_CHECK_FN(_tail)(m) == prev;
}
#endif

/* Checks every red-black invariant of a map (and its list, with MAP_CHECK_LIST). */
static int map_valid(const MAP_CHECK_MAP *m)
{
	const MAP_CHECK_ITEM *top = m->root.p_left;
	size_t count = 0;

	if (m->nil.color != CL_MAP_BLACK || m->root.color != CL_MAP_BLACK)
		return 0;
	if (top != &m->nil && top->color != CL_MAP_BLACK)
		return 0;
	if (map_check_subtree(m, top, &m->root, NULL, NULL, &count) < 0)
		return 0;
	if (count != MAP_CHECK_COUNT(m))
		return 0;
#ifdef MAP_CHECK_LIST
	return map_check_list(m, count);
#else
	return 1;
#endif
}

#endif
