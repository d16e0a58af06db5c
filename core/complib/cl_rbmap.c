/*
 * ibal complib: RB map insertion and removal (red-black rebalancing).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_rbmap.h>

/*
 * Layout: map->root is a black sentinel whose p_left is the top node (and
 * whose p_up is itself); map->nil is the black sentinel ending every leaf.
 * Every real node has a parent whose p_left or p_right points at it.
 */
typedef cl_rbmap_item_t node_t;

#define RED CL_MAP_RED
#define BLACK CL_MAP_BLACK

static inline node_t **link_to(node_t *n)
{
	node_t *up = n->p_up;

	return up->p_left == n ? &up->p_left : &up->p_right;
}

/* Rotations; `nil` is never given a new parent here. */
static void rotate_left(node_t *nil, node_t *a)
{
	node_t *c = a->p_right;

	*link_to(a) = c;
	c->p_up = a->p_up;
	a->p_right = c->p_left;
	if (c->p_left != nil)
		c->p_left->p_up = a;
	c->p_left = a;
	a->p_up = c;
}

static void rotate_right(node_t *nil, node_t *c)
{
	node_t *a = c->p_left;

	*link_to(c) = a;
	a->p_up = c->p_up;
	c->p_left = a->p_right;
	if (a->p_right != nil)
		a->p_right->p_up = c;
	a->p_right = c;
	c->p_up = a;
}

/* Restores the red-black rules after `x` (red) was linked in. */
static void insert_fixup(cl_rbmap_t *map, node_t *x)
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
				rotate_left(nil, p);
				p = x;
			}
			p->color = BLACK;
			g->color = RED;
			rotate_right(nil, g);
		} else {
			u = g->p_left;
			if (u->color == RED) {
				p->color = u->color = BLACK;
				g->color = RED;
				x = g;
				continue;
			}
			if (x == p->p_left) {
				rotate_right(nil, p);
				p = x;
			}
			p->color = BLACK;
			g->color = RED;
			rotate_left(nil, g);
		}
		break;
	}
	map->root.p_left->color = BLACK;
}

/* Restores the red-black rules after a black node was unlinked above `x`. */
static void remove_fixup(cl_rbmap_t *map, node_t *x)
{
	node_t *nil = &map->nil, *top = &map->root;

	while (x->color == BLACK && x->p_up != top) {
		node_t *p = x->p_up, *w;

		if (x == p->p_left) {
			w = p->p_right;
			if (w->color == RED) {
				w->color = BLACK;
				p->color = RED;
				rotate_left(nil, p);
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
				rotate_right(nil, w);
				w = p->p_right;
			}
			w->color = p->color;
			p->color = BLACK;
			w->p_right->color = BLACK;
			rotate_left(nil, p);
		} else {
			w = p->p_left;
			if (w->color == RED) {
				w->color = BLACK;
				p->color = RED;
				rotate_right(nil, p);
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
				rotate_left(nil, w);
				w = p->p_left;
			}
			w->color = p->color;
			p->color = BLACK;
			w->p_left->color = BLACK;
			rotate_right(nil, p);
		}
		break;
	}
	x->color = BLACK;
}

void cl_rbmap_insert(cl_rbmap_t *const p_map, cl_rbmap_item_t *const p_insert_at,
		     cl_rbmap_item_t *const p_item, boolean_t left)
{
	node_t *nil;

	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED && p_insert_at && p_item);
	nil = &p_map->nil;
	p_item->p_left = nil;
	p_item->p_right = nil;
	p_item->color = RED;
	p_item->p_map = p_map;
	if (p_insert_at == nil) {
		CL_ASSERT(p_map->root.p_left == nil);
		p_map->root.p_left = p_item;
		p_item->p_up = &p_map->root;
	} else {
		if (left) {
			CL_ASSERT(p_insert_at->p_left == nil);
			p_insert_at->p_left = p_item;
		} else {
			CL_ASSERT(p_insert_at->p_right == nil);
			p_insert_at->p_right = p_item;
		}
		p_item->p_up = p_insert_at;
	}
	p_map->count++;
	insert_fixup(p_map, p_item);
}

void cl_rbmap_remove_item(cl_rbmap_t *const p_map, cl_rbmap_item_t *const p_item)
{
	node_t *nil, *y, *x;

	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED && p_item);
	nil = &p_map->nil;
	if (p_item == nil)
		return;
	CL_ASSERT(p_item->p_map == p_map);
	/* y: the node actually unlinked from the tree; x: the child taking its place. */
	if (p_item->p_left == nil || p_item->p_right == nil) {
		y = p_item;
	} else {
		/* The in-order successor: leftmost node of the right subtree. */
		for (y = p_item->p_right; y->p_left != nil; y = y->p_left)
			;
	}
	x = y->p_left != nil ? y->p_left : y->p_right;
	x->p_up = y->p_up; /* may set nil's parent, which remove_fixup relies on */
	*link_to(y) = x;
	if (y->color == BLACK)
		remove_fixup(p_map, x);
	if (y != p_item) {
		/* Put the successor where the removed item was. */
		y->p_up = p_item->p_up;
		y->p_left = p_item->p_left;
		y->p_right = p_item->p_right;
		y->color = p_item->color;
		*link_to(p_item) = y;
		y->p_left->p_up = y;
		y->p_right->p_up = y;
	}
	p_map->count--;
	nil->p_up = nil;
	p_item->p_map = NULL;
}
