/*
 * ibal complib: flexi map operations (red-black tree plus sorted item list).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_fleximap.h>

/*
 * The tree and its sentinels are cl_rbtree.h's; map->nil is also the end
 * marker and the head of the circular list threading the items in key order.
 */
#define CL_RBTREE_NODE cl_fmap_item_t
#define CL_RBTREE_MAP cl_fmap_t
#include "cl_rbtree.h"

/*
 * The descent of find_slot(). With `fetch`, both children of a node are
 * fetched while its key is: the comparison reads the caller's key through
 * p_key, a second memory access per level, and in a map larger than the
 * caches the next node is then on its way. In a small map, which the caches
 * hold, the prefetches would only be two more instructions per level, so
 * find_slot() has a copy of this loop without them.
 */
static inline __attribute__((always_inline)) node_t *
descend(const node_t *nil, const node_t *p, const void *key, cl_pfn_fmap_cmp_t cmp,
	node_t **p_parent, int *p_side, const int fetch)
{
	const node_t *next;
	int c;

	/* The parent of the slot is the last node compared: no copy of it per level. */
	for (;;) {
		if (fetch) {
			__builtin_prefetch(p->p_left);
			__builtin_prefetch(p->p_right);
		}
		c = cmp(key, p->p_key);
		if (!c)
			break;
		next = c < 0 ? p->p_left : p->p_right;
		if (next == nil)
			break;
		p = next;
	}
	*p_parent = (node_t *)p;
	*p_side = c;
	return (node_t *)(c ? nil : p);
}

/*
 * Looks `key` up with `cmp`: returns its node, or nil on a miss, in which case
 * *p_parent is the node below which a new node with that key belongs (the
 * root sentinel for an empty map) and *p_side the last comparison's sign.
 */
static inline node_t *find_slot(const cl_fmap_t *map, const void *key, cl_pfn_fmap_cmp_t cmp,
				node_t **p_parent, int *p_side)
{
	const node_t *nil = &map->nil, *p = map->root.p_left;

	if (p == nil) {
		*p_parent = (node_t *)&map->root;
		*p_side = 0;
		return (node_t *)nil;
	}
	if (map->count >= RBT_FETCH_MIN)
		return descend(nil, p, key, cmp, p_parent, p_side, 1);
	return descend(nil, p, key, cmp, p_parent, p_side, 0);
}

/* Links `item` below `parent` on `side` (<0 left) and rebalances. */
static inline void link_at(cl_fmap_t *map, const void *key, node_t *item, node_t *parent,
			   int side)
{
	cl_list_item_t *at;

	item->p_key = key;
	/* A left child precedes its parent in the list; a right child follows it. */
	if (parent == &map->root) {
		parent->p_left = item;
		at = &map->nil.pool_item.list_item;
	} else if (side < 0) {
		parent->p_left = item;
		at = &parent->pool_item.list_item;
	} else {
		parent->p_right = item;
		at = parent->pool_item.list_item.p_next;
	}
	__cl_primitive_insert(at, &item->pool_item.list_item);
	rbt_link(map, parent, item);
}

void cl_fmap_init(cl_fmap_t *const p_map, cl_pfn_fmap_cmp_t pfn_compare)
{
	cl_list_item_t *end;

	CL_ASSERT(p_map && pfn_compare);
	rbt_init(p_map);
	p_map->root.p_key = NULL;
	p_map->nil.p_key = NULL;
	end = &p_map->nil.pool_item.list_item;
	end->p_next = end;
	end->p_prev = end;
	p_map->pfn_compare = pfn_compare;
	p_map->state = CL_INITIALIZED;
}

cl_fmap_item_t *cl_fmap_insert(cl_fmap_t *const p_map, const void *const p_key,
			       cl_fmap_item_t *const p_item)
{
	node_t *parent, *found;
	int side;

	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED && p_item);
	found = find_slot(p_map, p_key, p_map->pfn_compare, &parent, &side);
	if (found != &p_map->nil)
		return found;
	link_at(p_map, p_key, p_item, parent, side);
	return p_item;
}

cl_fmap_item_t *cl_fmap_match(const cl_fmap_t *const p_map, const void *const p_key,
			      cl_pfn_fmap_cmp_t pfn_compare)
{
	node_t *parent;
	int side;

	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	return find_slot(p_map, p_key, pfn_compare ? pfn_compare : p_map->pfn_compare, &parent,
			 &side);
}

cl_fmap_item_t *cl_fmap_get(const cl_fmap_t *const p_map, const void *const p_key)
{
	node_t *parent;
	int side;

	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	return find_slot(p_map, p_key, p_map->pfn_compare, &parent, &side);
}

cl_fmap_item_t *cl_fmap_get_next(const cl_fmap_t *const p_map, const void *const p_key)
{
	const node_t *nil, *p, *best;

	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	nil = &p_map->nil;
	best = nil;
	p = p_map->root.p_left;
	while (p != nil) {
		if (p_map->pfn_compare(p_key, p->p_key) < 0) {
			best = p;
			p = p->p_left;
		} else {
			p = p->p_right;
		}
	}
	return (node_t *)best;
}

void cl_fmap_remove_item(cl_fmap_t *const p_map, cl_fmap_item_t *const p_item)
{
	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED && p_item);
	if (p_item == &p_map->nil)
		return;
	CL_ASSERT(p_item->p_map == p_map);
	/* The list gives the in-order successor in O(1). */
	rbt_unlink(p_map, p_item,
		   rbt_has_two_children(p_map, p_item) ? cl_fmap_next(p_item) : p_item);
	__cl_primitive_remove(&p_item->pool_item.list_item);
}

cl_fmap_item_t *cl_fmap_remove(cl_fmap_t *const p_map, const void *const p_key)
{
	cl_fmap_item_t *p_item = cl_fmap_get(p_map, p_key);

	cl_fmap_remove_item(p_map, p_item);
	return p_item;
}

void cl_fmap_merge(cl_fmap_t *const p_dest_map, cl_fmap_t *const p_src_map)
{
	node_t *item, *next, *parent;
	int side;

	CL_ASSERT(p_dest_map && p_dest_map->state == CL_INITIALIZED);
	CL_ASSERT(p_src_map && p_src_map->state == CL_INITIALIZED);
	CL_ASSERT(p_dest_map != p_src_map);
	for (item = cl_fmap_head(p_src_map); item != &p_src_map->nil; item = next) {
		next = cl_fmap_next(item);
		/* Removing from the source leaves the destination slot valid. */
		if (find_slot(p_dest_map, item->p_key, p_dest_map->pfn_compare, &parent, &side) !=
		    &p_dest_map->nil)
			continue;
		cl_fmap_remove_item(p_src_map, item);
		link_at(p_dest_map, item->p_key, item, parent, side);
	}
}

/* Moves `item` (the smallest remaining of `from`) to `to`, keeping key order. */
static void move_item(cl_fmap_t *from, cl_fmap_t *to, node_t *item)
{
	node_t *tail = cl_fmap_tail(to), *parent;
	int side;

	cl_fmap_remove_item(from, item);
	if (tail == &to->nil) {
		link_at(to, item->p_key, item, &to->root, 0);
	} else if (to->pfn_compare(item->p_key, tail->p_key) > 0) {
		/* The largest node has no right child: append there. */
		link_at(to, item->p_key, item, tail, 1);
	} else if (find_slot(to, item->p_key, to->pfn_compare, &parent, &side) == &to->nil) {
		link_at(to, item->p_key, item, parent, side);
	} else {
		/* Only reachable if p_new / p_old were not empty: put it back. */
		cl_fmap_insert(from, item->p_key, item);
	}
}

void cl_fmap_delta(cl_fmap_t *const p_map1, cl_fmap_t *const p_map2, cl_fmap_t *const p_new,
		   cl_fmap_t *const p_old)
{
	node_t *i1, *i2, *next;

	CL_ASSERT(p_map1 && p_map1->state == CL_INITIALIZED);
	CL_ASSERT(p_map2 && p_map2->state == CL_INITIALIZED);
	CL_ASSERT(p_new && p_new->state == CL_INITIALIZED && !p_new->count);
	CL_ASSERT(p_old && p_old->state == CL_INITIALIZED && !p_old->count);
	i1 = cl_fmap_head(p_map1);
	i2 = cl_fmap_head(p_map2);
	/* Both lists are sorted: walk them side by side. */
	while (i1 != &p_map1->nil && i2 != &p_map2->nil) {
		int c = p_map1->pfn_compare(i1->p_key, i2->p_key);

		if (c < 0) {
			next = cl_fmap_next(i1);
			move_item(p_map1, p_old, i1);
			i1 = next;
		} else if (c > 0) {
			next = cl_fmap_next(i2);
			move_item(p_map2, p_new, i2);
			i2 = next;
		} else {
			i1 = cl_fmap_next(i1);
			i2 = cl_fmap_next(i2);
		}
	}
	for (; i1 != &p_map1->nil; i1 = next) {
		next = cl_fmap_next(i1);
		move_item(p_map1, p_old, i1);
	}
	for (; i2 != &p_map2->nil; i2 = next) {
		next = cl_fmap_next(i2);
		move_item(p_map2, p_new, i2);
	}
}

void cl_fmap_apply_func(const cl_fmap_t *const p_map, cl_pfn_fmap_apply_t pfn_func,
			const void *const context)
{
	cl_fmap_item_t *item;

	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED && pfn_func);
	for (item = cl_fmap_head(p_map); item != &p_map->nil; item = cl_fmap_next(item))
		pfn_func(item, (void *)context);
}
