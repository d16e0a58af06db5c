/*
 * ibal complib: RB map insertion and removal (red-black rebalancing).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_rbmap.h>

#define CL_RBTREE_NODE cl_rbmap_item_t
#define CL_RBTREE_MAP cl_rbmap_t
#include "cl_rbtree.h"

void cl_rbmap_insert(cl_rbmap_t *const p_map, cl_rbmap_item_t *const p_insert_at,
		     cl_rbmap_item_t *const p_item, boolean_t left)
{
	node_t *parent = p_insert_at;

	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED && p_insert_at && p_item);
	if (p_insert_at == &p_map->nil) {
		/* The first item: it becomes the root sentinel's (left) child. */
		CL_ASSERT(p_map->root.p_left == &p_map->nil);
		parent = &p_map->root;
		parent->p_left = p_item;
	} else if (left) {
		CL_ASSERT(parent->p_left == &p_map->nil);
		parent->p_left = p_item;
	} else {
		CL_ASSERT(parent->p_right == &p_map->nil);
		parent->p_right = p_item;
	}
	rbt_link(p_map, parent, p_item);
}

void cl_rbmap_remove_item(cl_rbmap_t *const p_map, cl_rbmap_item_t *const p_item)
{
	node_t *nil, *y;

	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED && p_item);
	nil = &p_map->nil;
	if (p_item == nil)
		return;
	CL_ASSERT(p_item->p_map == p_map);
	y = p_item;
	if (rbt_has_two_children(p_map, p_item)) {
		/* The in-order successor: leftmost node of the right subtree. */
		for (y = p_item->p_right; y->p_left != nil; y = y->p_left)
			;
	}
	rbt_unlink(p_map, p_item, y);
}
