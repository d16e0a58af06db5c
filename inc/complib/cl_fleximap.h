/*
 * ibal complib: flexi map, an intrusive red-black tree with caller-defined keys.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_fleximap.h
 * @brief Flexi map: a balanced binary tree of caller-embedded cl_fmap_item_t,
 * each with a unique key of any type, ordered by a caller-supplied compare
 * function.
 *
 * The map stores only a pointer to each key: key storage must stay valid
 * and unchanged while the item is in the map. Lookup, insertion and removal
 * take O(log n) compare calls. Items are also threaded on a sorted list, so
 * cl_fmap_head() / cl_fmap_next() iterate in key order until the item equals
 * cl_fmap_end(). To remove items while iterating, fetch the next item first.
 * The map never allocates, so no operation can fail.
 *
 * A cl_fmap_item_t has the same layout as a cl_map_item_t (with a key
 * pointer in place of the 64-bit key) and starts with a cl_pool_item_t.
 *
 * Thread safety: none; callers serialize access to one map (concurrent
 * readers without writers are safe if the compare function is).
 */
#ifndef _CL_FLEXIMAP_H_
#define _CL_FLEXIMAP_H_

#include <complib/cl_qmap.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Link embedded in an object kept in a cl_fmap_t. Fields are private. */
typedef struct _cl_fmap_item {
	cl_pool_item_t pool_item;      /**< Sorted-list link; first so items cast to pool/list items. */
	struct _cl_fmap_item *p_left;  /**< Left child, or the map's nil. */
	struct _cl_fmap_item *p_right; /**< Right child, or the map's nil. */
	struct _cl_fmap_item *p_up;    /**< Parent (the map's root sentinel for the top node). */
	cl_map_color_t color;          /**< Red or black. */
	const void *p_key;             /**< Key given to cl_fmap_insert(); read with cl_fmap_key(). */
#ifdef _DEBUG_
	struct _cl_fmap *p_map;        /**< Map holding the item (debug builds only, as upstream). */
#endif
} cl_fmap_item_t;

/**
 * Key comparison of a flexi map.
 * @param p_key1 the first key.
 * @param p_key2 the second key.
 * @return 0 if the keys are equal, a negative value if @p p_key1 orders
 *         first, a positive value if it orders last.
 */
typedef int (CL_API *cl_pfn_fmap_cmp_t)(IN const void *const p_key1,
					IN const void *const p_key2);

/** Flexi map. Initialize with cl_fmap_init() before use. */
typedef struct _cl_fmap {
	cl_fmap_item_t root;           /**< Sentinel above the tree: root.p_left is the top node. */
	cl_fmap_item_t nil;            /**< Leaf terminator, end marker and head of the sorted list. */
	cl_state_t state;              /**< CL_INITIALIZED after cl_fmap_init(). */
	size_t count;                  /**< Number of items in the map. */
	cl_pfn_fmap_cmp_t pfn_compare; /**< Orders the keys. */
} cl_fmap_t;

/**
 * Callback of cl_fmap_apply_func().
 * @param p_map_item the item.
 * @param context the caller's context.
 */
typedef void (CL_API *cl_pfn_fmap_apply_t)(IN cl_fmap_item_t *const p_map_item,
					   IN void *context);

/**
 * Number of items in a flexi map.
 * @param p_map the map.
 * @return the count.
 */
CL_INLINE size_t CL_API cl_fmap_count(IN const cl_fmap_t *const p_map)
{
	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	return p_map->count;
}

/**
 * Tells whether a flexi map is empty.
 * @param p_map the map.
 * @return TRUE if the map holds no item, FALSE otherwise.
 */
CL_INLINE boolean_t CL_API cl_is_fmap_empty(IN const cl_fmap_t *const p_map)
{
	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	return p_map->count == 0;
}

/**
 * Key of a map item.
 * @param p_item the item.
 * @return the key pointer it was inserted with; do not modify the key.
 */
CL_INLINE const void *CL_API cl_fmap_key(IN const cl_fmap_item_t *const p_item)
{
	CL_ASSERT(p_item);
	return p_item->p_key;
}

/**
 * Initializes an empty flexi map. Cannot fail.
 * @param p_map the map.
 * @param pfn_compare the function ordering the keys.
 */
void CL_API cl_fmap_init(IN cl_fmap_t *const p_map, IN cl_pfn_fmap_cmp_t pfn_compare);

/**
 * The end marker, returned when no item qualifies.
 * @param p_map the map.
 * @return the map's nil sentinel.
 */
CL_INLINE const cl_fmap_item_t *CL_API cl_fmap_end(IN const cl_fmap_t *const p_map)
{
	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	return &p_map->nil;
}

/**
 * Item with the lowest key.
 * @param p_map the map.
 * @return that item, or cl_fmap_end() if the map is empty.
 */
CL_INLINE cl_fmap_item_t *CL_API cl_fmap_head(IN const cl_fmap_t *const p_map)
{
	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	return (cl_fmap_item_t *)p_map->nil.pool_item.list_item.p_next;
}

/**
 * Item with the highest key.
 * @param p_map the map.
 * @return that item, or cl_fmap_end() if the map is empty.
 */
CL_INLINE cl_fmap_item_t *CL_API cl_fmap_tail(IN const cl_fmap_t *const p_map)
{
	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	return (cl_fmap_item_t *)p_map->nil.pool_item.list_item.p_prev;
}

/**
 * Item with the next higher key.
 * @param p_item an item in a map.
 * @return the successor, or the map's end after the last item.
 */
CL_INLINE cl_fmap_item_t *CL_API cl_fmap_next(IN const cl_fmap_item_t *const p_item)
{
	CL_ASSERT(p_item);
	return (cl_fmap_item_t *)p_item->pool_item.list_item.p_next;
}

/**
 * Item with the next lower key.
 * @param p_item an item in a map.
 * @return the predecessor, or the map's end before the first item.
 */
CL_INLINE cl_fmap_item_t *CL_API cl_fmap_prev(IN const cl_fmap_item_t *const p_item)
{
	CL_ASSERT(p_item);
	return (cl_fmap_item_t *)p_item->pool_item.list_item.p_prev;
}

/**
 * Inserts an item under a key, unless an equal key is already present.
 * @param p_map the map.
 * @param p_key the key; only the pointer is stored, so it must stay valid.
 * @param p_item the item, not in any map.
 * @return @p p_item if it was inserted; otherwise the item already holding
 *         an equal key (the map and @p p_item are then unchanged).
 */
cl_fmap_item_t *CL_API cl_fmap_insert(IN cl_fmap_t *const p_map, IN const void *const p_key,
				      IN cl_fmap_item_t *const p_item);

/**
 * Looks a key up with another compare function, which must order keys
 * consistently with the map's (it may treat more keys as equal, e.g. to
 * match on a prefix).
 * @param p_map the map.
 * @param p_key the key.
 * @param pfn_compare the compare function; NULL means the map's own.
 * @return an item whose key compares equal to @p p_key, or cl_fmap_end().
 */
cl_fmap_item_t *CL_API cl_fmap_match(IN const cl_fmap_t *const p_map, IN const void *const p_key,
				     IN cl_pfn_fmap_cmp_t pfn_compare);

/**
 * Looks a key up.
 * @param p_map the map.
 * @param p_key the key.
 * @return the item with an equal key, or cl_fmap_end() if there is none.
 */
cl_fmap_item_t *CL_API cl_fmap_get(IN const cl_fmap_t *const p_map, IN const void *const p_key);

/**
 * Finds the first item whose key orders strictly after @p p_key.
 * @param p_map the map.
 * @param p_key the key.
 * @return that item, or cl_fmap_end() if there is none.
 */
cl_fmap_item_t *CL_API cl_fmap_get_next(IN const cl_fmap_t *const p_map,
					IN const void *const p_key);

/**
 * Removes an item from a flexi map.
 * @param p_map the map.
 * @param p_item an item of @p p_map; passing cl_fmap_end() does nothing.
 */
void CL_API cl_fmap_remove_item(IN cl_fmap_t *const p_map, IN cl_fmap_item_t *const p_item);

/**
 * Removes the item with a given key.
 * @param p_map the map.
 * @param p_key the key.
 * @return the removed item, or cl_fmap_end() if no item had an equal key.
 */
cl_fmap_item_t *CL_API cl_fmap_remove(IN cl_fmap_t *const p_map, IN const void *const p_key);

/**
 * Empties a flexi map in O(1). The items are forgotten, not touched.
 * @param p_map the map.
 */
CL_INLINE void CL_API cl_fmap_remove_all(IN cl_fmap_t *const p_map)
{
	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	p_map->root.p_left = &p_map->nil;
	p_map->nil.pool_item.list_item.p_next = &p_map->nil.pool_item.list_item;
	p_map->nil.pool_item.list_item.p_prev = &p_map->nil.pool_item.list_item;
	p_map->count = 0;
}

/**
 * Moves every item of @p p_src_map whose key is not in @p p_dest_map into
 * @p p_dest_map. Items with duplicate keys stay in @p p_src_map. Both maps
 * must use the same ordering.
 * @param p_dest_map the destination map.
 * @param p_src_map the source map; on return it holds only the duplicates.
 */
void CL_API cl_fmap_merge(OUT cl_fmap_t *const p_dest_map, IN OUT cl_fmap_t *const p_src_map);

/**
 * Computes the difference of two maps by key: items only in @p p_map1 move
 * to @p p_old, items only in @p p_map2 move to @p p_new, items whose key is
 * in both stay where they are. All maps must use the same ordering.
 * @param p_map1 the first ("old") map.
 * @param p_map2 the second ("new") map.
 * @param p_new an empty map; receives the items unique to @p p_map2.
 * @param p_old an empty map; receives the items unique to @p p_map1.
 */
void CL_API cl_fmap_delta(IN OUT cl_fmap_t *const p_map1, IN OUT cl_fmap_t *const p_map2,
			  OUT cl_fmap_t *const p_new, OUT cl_fmap_t *const p_old);

/**
 * Calls a function for every item, in key order. The function must not
 * modify the map.
 * @param p_map the map.
 * @param pfn_func the function.
 * @param context passed to @p pfn_func.
 */
void CL_API cl_fmap_apply_func(IN const cl_fmap_t *const p_map, IN cl_pfn_fmap_apply_t pfn_func,
			       IN const void *const context);

#ifdef __cplusplus
}
#endif

#endif /* _CL_FLEXIMAP_H_ */
