/*
 * ibal complib: quick map operations (red-black tree plus sorted item list).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_qmap.h>

/*
 * The tree and its sentinels are cl_rbtree.h's; map->nil is also the end
 * marker and the head of the circular list threading the items in key order.
 */
#define CL_RBTREE_NODE cl_map_item_t
#define CL_RBTREE_MAP cl_qmap_t
#include "cl_rbtree.h"

/*
 * The descent of find_slot(). With `fetch`, both children of a node are
 * fetched as soon as the node is here. An insert writes the tree, so the
 * processor cannot start the next insert's descent early as it does for a run
 * of lookups, where the same prefetch measured no better (lookup() has none;
 * cl_qmap_remove() descends here, as it writes the tree too).
 * A small map's tree is in the caches, so find_slot() has a copy of this loop
 * without the prefetches.
 */
static inline __attribute__((always_inline)) node_t *
descend(node_t *nil, node_t *p, uint64_t key, node_t **p_parent, const int fetch)
{
	node_t *next;

	/* The parent of the slot is the last node compared: no copy of it per level. */
	for (;;) {
		const uint64_t k = p->key;

		if (fetch) {
			__builtin_prefetch(p->p_left);
			__builtin_prefetch(p->p_right);
		}
		if (key == k) {
			*p_parent = p;
			return p;
		}
		next = key < k ? p->p_left : p->p_right;
		if (next == nil)
			break;
		p = next;
	}
	*p_parent = p;
	return nil;
}

/*
 * Looks `key` up: returns its node, or nil on a miss, in which case *p_parent
 * is the node below which a new node with that key belongs (the root
 * sentinel for an empty map).
 */
static inline node_t *find_slot(cl_qmap_t *map, uint64_t key, node_t **p_parent)
{
	node_t *nil = &map->nil, *p = map->root.p_left;

	if (p == nil) {
		*p_parent = &map->root;
		return nil;
	}
	if (map->count >= RBT_FETCH_MIN)
		return descend(nil, p, key, p_parent, 1);
	return descend(nil, p, key, p_parent, 0);
}

/* Links `item` below `parent` as found by find_slot() and rebalances. */
static inline void link_at(cl_qmap_t *map, uint64_t key, node_t *item, node_t *parent)
{
	cl_list_item_t *at;

	item->key = key;
	/* A left child precedes its parent in the list; a right child follows it. */
	if (parent == &map->root) {
		parent->p_left = item;
		at = &map->nil.pool_item.list_item;
	} else if (key < parent->key) {
		parent->p_left = item;
		at = &parent->pool_item.list_item;
	} else {
		parent->p_right = item;
		at = parent->pool_item.list_item.p_next;
	}
	__cl_primitive_insert(at, &item->pool_item.list_item);
	rbt_link(map, parent, item);
}

/* Inserts `item` whose key exceeds every key in the map, in O(1) amortized. */
static void append_max(cl_qmap_t *map, uint64_t key, node_t *item)
{
	node_t *tail = cl_qmap_tail(map);

	link_at(map, key, item, tail == &map->nil ? &map->root : tail);
}

void cl_qmap_init(cl_qmap_t *const p_map)
{
	cl_list_item_t *end;

	CL_ASSERT(p_map);
	rbt_init(p_map);
	p_map->root.key = 0;
	p_map->nil.key = 0;
	end = &p_map->nil.pool_item.list_item;
	end->p_next = end;
	end->p_prev = end;
	p_map->state = CL_INITIALIZED;
}

cl_map_item_t *cl_qmap_insert(cl_qmap_t *const p_map, const uint64_t key,
			      cl_map_item_t *const p_item)
{
	node_t *parent, *found;

	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED && p_item);
	found = find_slot(p_map, key, &parent);
	if (found != &p_map->nil)
		return found;
	link_at(p_map, key, p_item, parent);
	return p_item;
}

/*
 * The lookup of the header's CL_EXTERN_INLINE cl_qmap_get(), keep the two
 * bodies the same. Here as a static function because gcc does not inline a
 * gnu_inline function that the file redefines (cl_qmap_remove() needs it
 * inline).
 */
static inline node_t *lookup(const cl_qmap_t *const p_map, const uint64_t key)
{
	const node_t *nil, *p;

	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	nil = &p_map->nil;
	p = p_map->root.p_left;
	while (p != nil) {
		const uint64_t k = p->key;

		if (key == k)
			break;
		p = key < k ? p->p_left : p->p_right;
	}
	return (node_t *)p;
}

/*
 * The exported copy of cl_qmap_get(), for calls the compiler did not inline
 * and for binaries built against headers that only declared it.
 */
cl_map_item_t *cl_qmap_get(const cl_qmap_t *const p_map, const uint64_t key)
{
	return lookup(p_map, key);
}

cl_map_item_t *cl_qmap_get_next(const cl_qmap_t *const p_map, const uint64_t key)
{
	const node_t *nil, *p, *best;

	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	nil = &p_map->nil;
	best = nil;
	p = p_map->root.p_left;
	while (p != nil) {
		if (key < p->key) {
			best = p;
			p = p->p_left;
		} else {
			p = p->p_right;
		}
	}
	return (node_t *)best;
}

static inline void remove_item(cl_qmap_t *const p_map, cl_map_item_t *const p_item)
{
	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED && p_item);
	if (p_item == &p_map->nil)
		return;
	CL_ASSERT(p_item->p_map == p_map);
	/* The list gives the in-order successor in O(1). */
	rbt_unlink(p_map, p_item,
		   rbt_has_two_children(p_map, p_item) ? cl_qmap_next(p_item) : p_item);
	__cl_primitive_remove(&p_item->pool_item.list_item);
}

void cl_qmap_remove_item(cl_qmap_t *const p_map, cl_map_item_t *const p_item)
{
	remove_item(p_map, p_item);
}

cl_map_item_t *cl_qmap_remove(cl_qmap_t *const p_map, const uint64_t key)
{
	node_t *parent;
	cl_map_item_t *p_item;

	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	/* A removal writes the tree as an insert does: the descent that prefetches. */
	p_item = find_slot(p_map, key, &parent);

	remove_item(p_map, p_item);
	return p_item;
}

void cl_qmap_merge(cl_qmap_t *const p_dest_map, cl_qmap_t *const p_src_map)
{
	node_t *item, *next, *parent;

	CL_ASSERT(p_dest_map && p_dest_map->state == CL_INITIALIZED);
	CL_ASSERT(p_src_map && p_src_map->state == CL_INITIALIZED);
	CL_ASSERT(p_dest_map != p_src_map);
	for (item = cl_qmap_head(p_src_map); item != &p_src_map->nil; item = next) {
		next = cl_qmap_next(item);
		/* Removing from the source leaves the destination slot valid. */
		if (find_slot(p_dest_map, item->key, &parent) != &p_dest_map->nil)
			continue;
		cl_qmap_remove_item(p_src_map, item);
		link_at(p_dest_map, item->key, item, parent);
	}
}

/* Moves `item` (the smallest remaining of `from`) to `to`, keeping key order. */
static void move_item(cl_qmap_t *from, cl_qmap_t *to, node_t *item)
{
	node_t *parent;

	cl_qmap_remove_item(from, item);
	if (to->count == 0 || item->key > cl_qmap_tail(to)->key) {
		append_max(to, item->key, item);
	} else if (find_slot(to, item->key, &parent) == &to->nil) {
		link_at(to, item->key, item, parent);
	} else {
		/* Only reachable if p_new / p_old were not empty: put it back. */
		cl_qmap_insert(from, item->key, item);
	}
}

void cl_qmap_delta(cl_qmap_t *const p_map1, cl_qmap_t *const p_map2, cl_qmap_t *const p_new,
		   cl_qmap_t *const p_old)
{
	node_t *i1, *i2, *next;

	CL_ASSERT(p_map1 && p_map1->state == CL_INITIALIZED);
	CL_ASSERT(p_map2 && p_map2->state == CL_INITIALIZED);
	CL_ASSERT(p_new && p_new->state == CL_INITIALIZED && !p_new->count);
	CL_ASSERT(p_old && p_old->state == CL_INITIALIZED && !p_old->count);
	i1 = cl_qmap_head(p_map1);
	i2 = cl_qmap_head(p_map2);
	/* Both lists are sorted: walk them side by side. */
	while (i1 != &p_map1->nil && i2 != &p_map2->nil) {
		if (i1->key < i2->key) {
			next = cl_qmap_next(i1);
			move_item(p_map1, p_old, i1);
			i1 = next;
		} else if (i1->key > i2->key) {
			next = cl_qmap_next(i2);
			move_item(p_map2, p_new, i2);
			i2 = next;
		} else {
			i1 = cl_qmap_next(i1);
			i2 = cl_qmap_next(i2);
		}
	}
	for (; i1 != &p_map1->nil; i1 = next) {
		next = cl_qmap_next(i1);
		move_item(p_map1, p_old, i1);
	}
	for (; i2 != &p_map2->nil; i2 = next) {
		next = cl_qmap_next(i2);
		move_item(p_map2, p_new, i2);
	}
}

void cl_qmap_apply_func(const cl_qmap_t *const p_map, cl_pfn_qmap_apply_t pfn_func,
			const void *const context)
{
	cl_map_item_t *item;

	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED && pfn_func);
	for (item = cl_qmap_head(p_map); item != &p_map->nil; item = cl_qmap_next(item))
		pfn_func(item, (void *)context);
}
