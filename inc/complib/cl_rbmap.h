/*
 * ibal complib: RB map, a red-black tree the caller walks and compares itself.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_rbmap.h
 * @brief RB map: a red-black tree of caller-embedded cl_rbmap_item_t whose
 * ordering is known only to the caller.
 *
 * The map stores no keys. To insert, the caller walks down from
 * cl_rbmap_root() with cl_rbmap_left() / cl_rbmap_right(), comparing its own
 * keys, until the next step would reach cl_rbmap_end(); it then calls
 * cl_rbmap_insert() with the last item visited (or the end, for an empty
 * map) and the side to attach to. The map rebalances itself, so a walk is
 * O(log n). Searching is the same walk. The map never allocates, so no
 * operation can fail.
 *
 * Thread safety: none; callers serialize access to one map.
 */
#ifndef _CL_RBMAP_H_
#define _CL_RBMAP_H_

#include <complib/cl_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Colour of a node of a red-black map (shared by all complib maps). */
typedef enum _cl_map_color {
	CL_MAP_RED,  /**< The node is red. */
	CL_MAP_BLACK /**< The node is black. */
} cl_map_color_t;

/** Link embedded in an object kept in a cl_rbmap_t. Fields are private. */
typedef struct _cl_rbmap_item {
	struct _cl_rbmap_item *p_left;  /**< Left child, or the map's nil. */
	struct _cl_rbmap_item *p_right; /**< Right child, or the map's nil. */
	struct _cl_rbmap_item *p_up;    /**< Parent (the map's root sentinel for the top node). */
	cl_map_color_t color;           /**< Red or black. */
#ifdef _DEBUG_
	struct _cl_rbmap *p_map;        /**< Map holding the item (debug builds only, as upstream). */
#endif
} cl_rbmap_item_t;

/** RB map. Initialize with cl_rbmap_init() before use. */
typedef struct _cl_rbmap {
	cl_rbmap_item_t root; /**< Sentinel above the tree: root.p_left is the top node. */
	cl_rbmap_item_t nil;  /**< Sentinel terminating every leaf; also the end marker. */
	cl_state_t state;     /**< CL_INITIALIZED after cl_rbmap_init(). */
	size_t count;         /**< Number of items in the map. */
} cl_rbmap_t;

/**
 * Number of items in an RB map.
 * @param p_map the map.
 * @return the count.
 */
CL_INLINE size_t CL_API cl_rbmap_count(IN const cl_rbmap_t *const p_map)
{
	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	return p_map->count;
}

/**
 * Tells whether an RB map is empty.
 * @param p_map the map.
 * @return TRUE if the map holds no item, FALSE otherwise.
 */
CL_INLINE boolean_t CL_API cl_is_rbmap_empty(IN const cl_rbmap_t *const p_map)
{
	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	return p_map->count == 0;
}

/**
 * Empties an RB map in O(1). The items are forgotten, not touched.
 * @param p_map the map.
 */
CL_INLINE void CL_API cl_rbmap_reset(IN cl_rbmap_t *const p_map)
{
	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	p_map->root.p_left = &p_map->nil;
	p_map->count = 0;
}

/**
 * Initializes an empty RB map. Cannot fail.
 * @param p_map the map.
 */
CL_INLINE void CL_API cl_rbmap_init(IN cl_rbmap_t *const p_map)
{
	CL_ASSERT(p_map);
	p_map->root.p_left = &p_map->nil;
	p_map->root.p_right = &p_map->nil;
	p_map->root.p_up = &p_map->root;
	p_map->root.color = CL_MAP_BLACK;
	p_map->nil.p_left = &p_map->nil;
	p_map->nil.p_right = &p_map->nil;
	p_map->nil.p_up = &p_map->nil;
	p_map->nil.color = CL_MAP_BLACK;
#ifdef _DEBUG_
	p_map->root.p_map = p_map;
	p_map->nil.p_map = p_map;
#endif
	p_map->state = CL_INITIALIZED;
	p_map->count = 0;
}

/**
 * Top node of the tree, where a walk starts.
 * @param p_map the map.
 * @return the top item, or cl_rbmap_end() if the map is empty.
 */
CL_INLINE cl_rbmap_item_t *CL_API cl_rbmap_root(IN const cl_rbmap_t *const p_map)
{
	CL_ASSERT(p_map);
	return p_map->root.p_left;
}

/**
 * The end marker: the value a walk reaches below a leaf.
 * @param p_map the map.
 * @return the map's nil sentinel.
 */
CL_INLINE const cl_rbmap_item_t *CL_API cl_rbmap_end(IN const cl_rbmap_t *const p_map)
{
	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	return &p_map->nil;
}

/**
 * Left child of an item (every key in that subtree orders before the item).
 * @param p_item an item in a map.
 * @return the left child, or the map's end if there is none.
 */
CL_INLINE cl_rbmap_item_t *CL_API cl_rbmap_left(IN const cl_rbmap_item_t *const p_item)
{
	CL_ASSERT(p_item);
	return p_item->p_left;
}

/**
 * Right child of an item (every key in that subtree orders after the item).
 * @param p_item an item in a map.
 * @return the right child, or the map's end if there is none.
 */
CL_INLINE cl_rbmap_item_t *CL_API cl_rbmap_right(IN const cl_rbmap_item_t *const p_item)
{
	CL_ASSERT(p_item);
	return p_item->p_right;
}

/**
 * Attaches an item below @p p_insert_at and rebalances the tree.
 * @param p_map the map.
 * @param p_insert_at the parent: the last item of the caller's walk, whose
 *        chosen child is the end; or cl_rbmap_end() when the map is empty.
 * @param p_item the item to insert, not in any map.
 * @param left TRUE to attach as left child, FALSE as right child (ignored
 *        when @p p_insert_at is the end).
 */
void CL_API cl_rbmap_insert(IN cl_rbmap_t *const p_map, IN cl_rbmap_item_t *const p_insert_at,
			    IN cl_rbmap_item_t *const p_item, IN boolean_t left);

/**
 * Removes an item from an RB map and rebalances the tree.
 * @param p_map the map.
 * @param p_item an item of @p p_map; passing cl_rbmap_end() does nothing.
 */
void CL_API cl_rbmap_remove_item(IN cl_rbmap_t *const p_map, IN cl_rbmap_item_t *const p_item);

#ifdef __cplusplus
}
#endif

#endif /* _CL_RBMAP_H_ */
