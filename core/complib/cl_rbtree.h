/*
 * ibal complib: red-black tree balancing shared by cl_qmap, cl_fleximap and cl_rbmap (private).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */

/*
 * Private to libibalcomp: a template included by one .c file per map type.
 * The includer defines, before including it:
 *   CL_RBTREE_NODE  the item type, with members p_left, p_right, p_up (pointers
 *                   to the item type), color (cl_map_color_t) and, under
 *                   _DEBUG_, p_map;
 *   CL_RBTREE_MAP   the map type, with members root and nil (items), count.
 * Everything here is static and typed on those two types, so the compiler
 * sees plain member accesses at constant offsets, as if the code were written
 * out in each file, and inlines as it did then; no symbol is exported. Every
 * includer uses rbt_link() and rbt_unlink(), hence all the non-inline helpers.
 *
 * Layout: map->root is a black sentinel whose p_left is the top node and whose
 * p_up is itself; map->nil is the black sentinel ending every leaf. Every real
 * node, the top one included, has a parent whose p_left or p_right points at
 * it, so "which link of the parent" never needs a special case.
 *
 * Not thread-safe: the caller serializes access to a map.
 */
#ifndef CL_RBTREE_H
#define CL_RBTREE_H

#if !defined(CL_RBTREE_NODE) || !defined(CL_RBTREE_MAP)
#error "define CL_RBTREE_NODE and CL_RBTREE_MAP before including cl_rbtree.h"
#endif

typedef CL_RBTREE_NODE node_t;
typedef CL_RBTREE_MAP rbt_map_t;

/*
 * From this many items on, a descent prefetches both children of each node
 * (cl_qmap inserts and removals by key, cl_fleximap inserts and lookups):
 * 4,096 items of 64 bytes fill 256 KiB, a quarter of a recent processor's L2.
 * Below it the caches hold the tree and the prefetches would be only more
 * instructions.
 */
#define RBT_FETCH_MIN 4096

#define RED CL_MAP_RED
#define BLACK CL_MAP_BLACK

/* The parent's link that points at `n`. */
static inline node_t **rbt_link_to(node_t *n)
{
	node_t *up = n->p_up;

	return up->p_left == n ? &up->p_left : &up->p_right;
}

/* Rotations; `nil` is never given a new parent here. */
static void rbt_rotate_left(node_t *nil, node_t *a)
{
	node_t *c = a->p_right;

	*rbt_link_to(a) = c;
	c->p_up = a->p_up;
	a->p_right = c->p_left;
	if (c->p_left != nil)
		c->p_left->p_up = a;
	c->p_left = a;
	a->p_up = c;
}

static void rbt_rotate_right(node_t *nil, node_t *c)
{
	node_t *a = c->p_left;

	*rbt_link_to(c) = a;
	a->p_up = c->p_up;
	c->p_left = a->p_right;
	if (a->p_right != nil)
		a->p_right->p_up = c;
	a->p_right = c;
	c->p_up = a;
}

/* Restores the red-black rules after `x` (red) was linked in. */
static void rbt_insert_fixup(rbt_map_t *map, node_t *x)
{
	node_t *nil = &map->nil;

	while (x->p_up->color == RED) {
		node_t *p = x->p_up, *g = p->p_up, *u;

		if (p == g->p_left) {
			u = g->p_right;
			if (u->color == RED) {
				p->color = u->color = BLACK;
				g->color = RED;
				x = g;
				continue;
			}
			if (x == p->p_right) {
				rbt_rotate_left(nil, p);
				p = x;
			}
			p->color = BLACK;
			g->color = RED;
			rbt_rotate_right(nil, g);
		} else {
			u = g->p_left;
			if (u->color == RED) {
				p->color = u->color = BLACK;
				g->color = RED;
				x = g;
				continue;
			}
			if (x == p->p_left) {
				rbt_rotate_right(nil, p);
				p = x;
			}
			p->color = BLACK;
			g->color = RED;
			rbt_rotate_left(nil, g);
		}
		break;
	}
	map->root.p_left->color = BLACK;
}

/* Restores the red-black rules after a black node was unlinked above `x`. */
static void rbt_remove_fixup(rbt_map_t *map, node_t *x)
{
	node_t *nil = &map->nil, *top = &map->root;

	while (x->color == BLACK && x->p_up != top) {
		node_t *p = x->p_up, *w;

		if (x == p->p_left) {
			w = p->p_right;
			if (w->color == RED) {
				w->color = BLACK;
				p->color = RED;
				rbt_rotate_left(nil, p);
				w = p->p_right;
			}
			if (w->p_left->color == BLACK && w->p_right->color == BLACK) {
				w->color = RED;
				x = p;
				continue;
			}
			if (w->p_right->color == BLACK) {
				w->p_left->color = BLACK;
				w->color = RED;
				rbt_rotate_right(nil, w);
				w = p->p_right;
			}
			w->color = p->color;
			p->color = BLACK;
			w->p_right->color = BLACK;
			rbt_rotate_left(nil, p);
		} else {
			w = p->p_left;
			if (w->color == RED) {
				w->color = BLACK;
				p->color = RED;
				rbt_rotate_right(nil, p);
				w = p->p_left;
			}
			if (w->p_left->color == BLACK && w->p_right->color == BLACK) {
				w->color = RED;
				x = p;
				continue;
			}
			if (w->p_left->color == BLACK) {
				w->p_right->color = BLACK;
				w->color = RED;
				rbt_rotate_left(nil, w);
				w = p->p_left;
			}
			w->color = p->color;
			p->color = BLACK;
			w->p_left->color = BLACK;
			rbt_rotate_right(nil, p);
		}
		break;
	}
	x->color = BLACK;
}

/* Makes the tree of `map` empty: both sentinels black, linked as described above. */
static inline void rbt_init(rbt_map_t *map)
{
	node_t *nil = &map->nil;

	map->root.p_left = nil;
	map->root.p_right = nil;
	map->root.p_up = &map->root;
	map->root.color = BLACK;
#ifdef _DEBUG_
	map->root.p_map = map;
#endif
	nil->p_left = nil;
	nil->p_right = nil;
	nil->p_up = nil;
	nil->color = BLACK;
#ifdef _DEBUG_
	nil->p_map = map;
#endif
	map->count = 0;
}

/*
 * Makes `item` a red leaf under `parent`, counts it and rebalances. The
 * caller has already pointed the parent's link at it: p_left or p_right where
 * there was nil, or root.p_left for the first node (parent: the root sentinel).
 */
static inline void rbt_link(rbt_map_t *map, node_t *parent, node_t *item)
{
	node_t *nil = &map->nil;

	item->p_left = nil;
	item->p_right = nil;
	item->p_up = parent;
	item->color = RED;
#ifdef _DEBUG_
	item->p_map = map;
#endif
	map->count++;
	rbt_insert_fixup(map, item);
}

/* Tells whether `n` has two real children (its successor then has no left child). */
static inline int rbt_has_two_children(const rbt_map_t *map, const node_t *n)
{
	return n->p_left != &map->nil && n->p_right != &map->nil;
}

/*
 * Unlinks `item` (a real node of `map`) from the tree, uncounts it and
 * rebalances. `y` is the node to splice out: `item` itself when it has a nil
 * child, else its in-order successor (which has no left child), moved into
 * item's place.
 */
static inline void rbt_unlink(rbt_map_t *map, node_t *item, node_t *y)
{
	node_t *nil = &map->nil, *x;

	/* x: the child of y taking its place. */
	x = y->p_left != nil ? y->p_left : y->p_right;
	x->p_up = y->p_up; /* may set nil's parent, which rbt_remove_fixup relies on */
	*rbt_link_to(y) = x;
	if (y->color == BLACK)
		rbt_remove_fixup(map, x);
	if (y != item) {
		/* Put the successor where the removed item was. */
		y->p_up = item->p_up;
		y->p_left = item->p_left;
		y->p_right = item->p_right;
		y->color = item->color;
		*rbt_link_to(item) = y;
		y->p_left->p_up = y;
		y->p_right->p_up = y;
	}
	map->count--;
	/* Leave nil self-consistent for the next operation. */
	nil->p_up = nil;
#ifdef _DEBUG_
	item->p_map = NULL;
#endif
}

#endif
