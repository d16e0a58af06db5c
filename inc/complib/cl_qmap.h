/*
 * ibal complib: quick map, an intrusive red-black tree keyed by uint64_t.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_qmap.h
 * @brief Quick map: a balanced binary tree of caller-embedded cl_map_item_t,
 * each with a unique 64-bit key.
 *
 * Lookup, insertion and removal are O(log n). The items are also threaded on
 * a sorted doubly linked list, so cl_qmap_head() / cl_qmap_tail() /
 * cl_qmap_next() / cl_qmap_prev() are O(1) and iterate in key order until the
 * item equals cl_qmap_end(). To remove items while iterating, fetch the next
 * item with cl_qmap_next() before removing the current one. The map never
 * allocates, so no operation can fail.
 *
 * A cl_map_item_t starts with a cl_pool_item_t, so an item taken from a quick
 * pool may be cast to a map item and back, and to a cl_list_item_t while it
 * is in no map.
 *
 * Thread safety: none; callers serialize access to one map (concurrent
 * readers without writers are safe).
 */
#ifndef _CL_QMAP_H_
#define _CL_QMAP_H_

#include <complib/cl_rbmap.h>
#include <complib/cl_qpool.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Link embedded in an object kept in a cl_qmap_t. Fields are private. */
typedef struct _cl_map_item {
	cl_pool_item_t pool_item;     /**< Sorted-list link; first so items cast to pool/list items. */
	struct _cl_map_item *p_left;  /**< Left child, or the map's nil. */
	struct _cl_map_item *p_right; /**< Right child, or the map's nil. */
	struct _cl_map_item *p_up;    /**< Parent (the map's root sentinel for the top node). */
	cl_map_color_t color;         /**< Red or black. */
	uint64_t key;                 /**< Key given to cl_qmap_insert(); read with cl_qmap_key(). */
#ifdef _DEBUG_
	struct _cl_qmap *p_map;       /**< Map holding the item (debug builds only, as upstream). */
#endif
} cl_map_item_t;

/** Map item carrying a pointer to an arbitrary object. */
typedef struct _cl_map_obj {
	cl_map_item_t item;   /**< The link. */
	const void *p_object; /**< The object; use cl_qmap_set_obj() / cl_qmap_obj(). */
} cl_map_obj_t;

/** Quick map. Initialize with cl_qmap_init() before use. */
typedef struct _cl_qmap {
	cl_map_item_t root; /**< Sentinel above the tree: root.p_left is the top node. */
	cl_map_item_t nil;  /**< Leaf terminator, end marker and head of the sorted list. */
	cl_state_t state;   /**< CL_INITIALIZED after cl_qmap_init(). */
	size_t count;       /**< Number of items in the map. */
} cl_qmap_t;

/**
 * Callback of cl_qmap_apply_func().
 * @param p_map_item the item.
 * @param context the caller's context.
 */
typedef void (CL_API *cl_pfn_qmap_apply_t)(IN cl_map_item_t *const p_map_item,
					   IN void *context);

/**
 * Number of items in a quick map.
 * @param p_map the map.
 * @return the count.
 */
CL_INLINE size_t CL_API cl_qmap_count(IN const cl_qmap_t *const p_map)
{
	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	return p_map->count;
}

/**
 * Tells whether a quick map is empty.
 * @param p_map the map.
 * @return TRUE if the map holds no item, FALSE otherwise.
 */
CL_INLINE boolean_t CL_API cl_is_qmap_empty(IN const cl_qmap_t *const p_map)
{
	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	return p_map->count == 0;
}

/**
 * Sets the object pointer of a map object.
 * @param p_map_obj the map object.
 * @param p_object the object to store.
 */
CL_INLINE void CL_API cl_qmap_set_obj(IN cl_map_obj_t *const p_map_obj,
				      IN const void *const p_object)
{
	CL_ASSERT(p_map_obj);
	p_map_obj->p_object = p_object;
}

/**
 * Returns the object pointer of a map object.
 * @param p_map_obj the map object.
 * @return the object stored with cl_qmap_set_obj().
 */
CL_INLINE void *CL_API cl_qmap_obj(IN const cl_map_obj_t *const p_map_obj)
{
	CL_ASSERT(p_map_obj);
	return (void *)p_map_obj->p_object;
}

/**
 * Key of a map item.
 * @param p_item the item.
 * @return the key it was inserted with.
 */
CL_INLINE uint64_t CL_API cl_qmap_key(IN const cl_map_item_t *const p_item)
{
	CL_ASSERT(p_item);
	return p_item->key;
}

/**
 * Initializes an empty quick map. Cannot fail.
 * @param p_map the map.
 */
void CL_API cl_qmap_init(IN cl_qmap_t *const p_map);

/**
 * The end marker, returned when no item qualifies.
 * @param p_map the map.
 * @return the map's nil sentinel.
 */
CL_INLINE const cl_map_item_t *CL_API cl_qmap_end(IN const cl_qmap_t *const p_map)
{
	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	return &p_map->nil;
}

/**
 * Item with the lowest key.
 * @param p_map the map.
 * @return that item, or cl_qmap_end() if the map is empty.
 */
CL_INLINE cl_map_item_t *CL_API cl_qmap_head(IN const cl_qmap_t *const p_map)
{
	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	return (cl_map_item_t *)p_map->nil.pool_item.list_item.p_next;
}

/**
 * Item with the highest key.
 * @param p_map the map.
 * @return that item, or cl_qmap_end() if the map is empty.
 */
CL_INLINE cl_map_item_t *CL_API cl_qmap_tail(IN const cl_qmap_t *const p_map)
{
	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	return (cl_map_item_t *)p_map->nil.pool_item.list_item.p_prev;
}

/**
 * Item with the next higher key.
 * @param p_item an item in a map.
 * @return the successor, or the map's end after the last item.
 */
CL_INLINE cl_map_item_t *CL_API cl_qmap_next(IN const cl_map_item_t *const p_item)
{
	CL_ASSERT(p_item);
	return (cl_map_item_t *)p_item->pool_item.list_item.p_next;
}

/**
 * Item with the next lower key.
 * @param p_item an item in a map.
 * @return the predecessor, or the map's end before the first item.
 */
CL_INLINE cl_map_item_t *CL_API cl_qmap_prev(IN const cl_map_item_t *const p_item)
{
	CL_ASSERT(p_item);
	return (cl_map_item_t *)p_item->pool_item.list_item.p_prev;
}

/**
 * Inserts an item under a key, unless the key is already present.
 * @param p_map the map.
 * @param key the key to give the item.
 * @param p_item the item, not in any map.
 * @return @p p_item if it was inserted; otherwise the item already holding
 *         @p key (the map and @p p_item are then unchanged).
 */
cl_map_item_t *CL_API cl_qmap_insert(IN cl_qmap_t *const p_map, IN const uint64_t key,
				     IN cl_map_item_t *const p_item);

/**
 * Looks up a key.
 *
 * Inline (CL_EXTERN_INLINE): optimized callers run the descent in place; the
 * library exports the same function for calls that are not inlined.
 * @param p_map the map.
 * @param key the key.
 * @return the item with that key, or cl_qmap_end() if there is none.
 */
CL_EXTERN_INLINE cl_map_item_t *CL_API cl_qmap_get(IN const cl_qmap_t *const p_map,
						   IN const uint64_t key)
{
	const cl_map_item_t *nil, *p;

	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	nil = &p_map->nil;
	p = p_map->root.p_left;
	while (p != nil) {
		const uint64_t k = p->key;

		if (key == k)
			break;
		p = key < k ? p->p_left : p->p_right;
	}
	return (cl_map_item_t *)p;
}

/**
 * Finds the first item whose key is strictly greater than @p key.
 * @param p_map the map.
 * @param key the key.
 * @return that item, or cl_qmap_end() if there is none.
 */
cl_map_item_t *CL_API cl_qmap_get_next(IN const cl_qmap_t *const p_map, IN const uint64_t key);

/**
 * Removes an item from a quick map.
 * @param p_map the map.
 * @param p_item an item of @p p_map; passing cl_qmap_end() does nothing.
 */
void CL_API cl_qmap_remove_item(IN cl_qmap_t *const p_map, IN cl_map_item_t *const p_item);

/**
 * Removes the item with a given key.
 * @param p_map the map.
 * @param key the key.
 * @return the removed item, or cl_qmap_end() if no item had that key.
 */
cl_map_item_t *CL_API cl_qmap_remove(IN cl_qmap_t *const p_map, IN const uint64_t key);

/**
 * Empties a quick map in O(1). The items are forgotten, not touched.
 * @param p_map the map.
 */
CL_INLINE void CL_API cl_qmap_remove_all(IN cl_qmap_t *const p_map)
{
	CL_ASSERT(p_map && p_map->state == CL_INITIALIZED);
	p_map->root.p_left = &p_map->nil;
	p_map->nil.pool_item.list_item.p_next = &p_map->nil.pool_item.list_item;
	p_map->nil.pool_item.list_item.p_prev = &p_map->nil.pool_item.list_item;
	p_map->count = 0;
}

/**
 * Moves every item of @p p_src_map whose key is not in @p p_dest_map into
 * @p p_dest_map. Items with duplicate keys stay in @p p_src_map.
 * @param p_dest_map the destination map.
 * @param p_src_map the source map; on return it holds only the duplicates.
 */
void CL_API cl_qmap_merge(OUT cl_qmap_t *const p_dest_map, IN OUT cl_qmap_t *const p_src_map);

/**
 * Computes the difference of two maps by key: items only in @p p_map1 move
 * to @p p_old, items only in @p p_map2 move to @p p_new, items whose key is
 * in both stay where they are.
 * @param p_map1 the first ("old") map.
 * @param p_map2 the second ("new") map.
 * @param p_new an empty map; receives the items unique to @p p_map2.
 * @param p_old an empty map; receives the items unique to @p p_map1.
 */
void CL_API cl_qmap_delta(IN OUT cl_qmap_t *const p_map1, IN OUT cl_qmap_t *const p_map2,
			  OUT cl_qmap_t *const p_new, OUT cl_qmap_t *const p_old);

/**
 * Calls a function for every item, in key order. The function must not
 * modify the map.
 * @param p_map the map.
 * @param pfn_func the function.
 * @param context passed to @p pfn_func.
 */
void CL_API cl_qmap_apply_func(IN const cl_qmap_t *const p_map, IN cl_pfn_qmap_apply_t pfn_func,
			       IN const void *const context);

#ifdef __cplusplus
}
#endif

#endif /* _CL_QMAP_H_ */
