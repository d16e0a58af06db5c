/*
 * ibal complib: flexi map operations (red-black tree plus sorted item list).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_fleximap.h>

/*
 * Layout: map->root is a black sentinel whose p_left is the top node (and
 * whose p_up is itself); map->nil is a black sentinel ending every leaf, the
 * end marker, and the head of the circular list threading the items in key
 * order. Every real node, the top one included, has a parent whose p_left or
 * p_right points at it, so "which link of the parent" never needs a special
 * case.
 */
typedef cl_fmap_item_t node_t;

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
static void insert_fixup(cl_fmap_t *map, node_t *x)
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
static void remove_fixup(cl_fmap_t *map, node_t *x)
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

/* Threads `n` on the sorted list just before `at`. */
static inline void list_link_before(cl_list_item_t *at, cl_list_item_t *n)
{
	n->p_next = at;
	n->p_prev = at->p_prev;
	at->p_prev->p_next = n;
	at->p_prev = n;
}

/*
 * Looks `key` up with `cmp`: returns its node, or nil on a miss, in which case
 * *p_parent is the node below which a new node with that key belongs (the
 * root sentinel for an empty map) and *p_side the last comparison's sign.
 */
static inline node_t *find_slot(const cl_fmap_t *map, const void *key, cl_pfn_fmap_cmp_t cmp,
				node_t **p_parent, int *p_side)
{
	const node_t *nil = &map->nil, *parent = &map->root, *p = map->root.p_left;
	int c = 0;

	while (p != nil) {
		c = cmp(key, p->p_key);
		if (!c)
			break;
		parent = p;
		p = c < 0 ? p->p_left : p->p_right;
	}
	*p_parent = (node_t *)parent;
	*p_side = c;
	return (node_t *)p;
}

/* Links `item` below `parent` on `side` (<0 left) and rebalances. */
static inline void link_at(cl_fmap_t *map, const void *key, node_t *item, node_t *parent,
			   int side)
{
	node_t *nil = &map->nil;
	cl_list_item_t *at;

	item->p_key = key;
	item->p_left = nil;
	item->p_right = nil;
	item->p_up = parent;
	item->color = RED;
	item->p_map = map;
	/* A left child precedes its parent in the list; a right child follows it. */
	if (parent == &map->root) {
		map->root.p_left = item;
		at = &nil->pool_item.list_item;
	} else if (side < 0) {
		parent->p_left = item;
		at = &parent->pool_item.list_item;
	} else {
		parent->p_right = item;
		at = parent->pool_item.list_item.p_next;
	}
	list_link_before(at, &item->pool_item.list_item);
	map->count++;
	insert_fixup(map, item);
}

void cl_fmap_init(cl_fmap_t *const p_map, cl_pfn_fmap_cmp_t pfn_compare)
{
	node_t *nil;

	CL_ASSERT(p_map && pfn_compare);
	nil = &p_map->nil;
	p_map->root.p_left = nil;
	p_map->root.p_right = nil;
	p_map->root.p_up = &p_map->root;
	p_map->root.color = BLACK;
	p_map->root.p_key = NULL;
	nil->p_left = nil;
	nil->p_right = nil;
	nil->p_up = nil;
	nil->color = BLACK;
	nil->p_key = NULL;
	p_map->root.p_map = p_map;
	nil->p_map = p_map;
	nil->pool_item.list_item.p_next = &nil->pool_item.list_item;
	nil->pool_item.list_item.p_prev = &nil->pool_item.list_item;
	p_map->count = 0;
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
	node_t *nil, *y, *x;
	cl_list_item_t *li;

	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED && p_item);
	nil = &p_map->nil;
	if (p_item == nil)
		return;
	CL_ASSERT(p_item->p_map == p_map);
	/* y: the node actually unlinked from the tree; x: the child taking its place. */
	if (p_item->p_left == nil || p_item->p_right == nil)
		y = p_item;
	else
		y = cl_fmap_next(p_item); /* the in-order successor has no left child */
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
	li = &p_item->pool_item.list_item;
	li->p_prev->p_next = li->p_next;
	li->p_next->p_prev = li->p_prev;
	p_map->count--;
	/* Leave nil self-consistent for the next operation. */
	nil->p_up = nil;
	p_item->p_map = NULL;
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
