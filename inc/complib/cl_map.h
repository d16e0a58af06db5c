/*
 * ibal complib: map, a sorted 64-bit-key map of object pointers.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_map.h
 * @brief Map: a balanced binary tree keyed by unique 64-bit values that
 * stores pointers to the caller's objects, keeping its own items
 * (cl_map_obj_t) in a quick pool.
 *
 * Unlike the quick map, objects need no embedded item, so insertions
 * allocate (from the map's pool) and can fail; the first @c min_items
 * insertions given to cl_map_init() cannot fail. Removal returns items to
 * the pool; memory is freed by cl_map_destroy().
 *
 * Iterate in key order from cl_map_head() with cl_map_next() until the
 * iterator equals cl_map_end(). To remove while iterating, fetch the next
 * iterator before cl_map_remove_item() on the current one.
 *
 * Thread safety: none; callers serialize access to one map.
 */
#ifndef _CL_MAP_H_
#define _CL_MAP_H_

#include <complib/cl_qmap.h>
#include <complib/cl_qpool.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Map. Treat as opaque; use the cl_map functions. */
typedef struct _cl_map {
	cl_qmap_t qmap;  /**< The quick map of cl_map_obj_t items. */
	cl_qpool_t pool; /**< Pool of cl_map_obj_t items. */
} cl_map_t;

/** Position in a map: an item, or the map's end. Treat as opaque. */
typedef const cl_map_item_t *cl_map_iterator_t;

/**
 * Number of objects in a map.
 * @param p_map an initialized map.
 * @return the count.
 */
CL_INLINE size_t CL_API cl_map_count(IN const cl_map_t *const p_map)
{
	CL_ASSERT(p_map);
	return cl_qmap_count(&p_map->qmap);
}

/**
 * Tells whether a map is empty.
 * @param p_map an initialized map.
 * @return TRUE if empty, FALSE otherwise.
 */
CL_INLINE boolean_t CL_API cl_is_map_empty(IN const cl_map_t *const p_map)
{
	CL_ASSERT(p_map);
	return cl_is_qmap_empty(&p_map->qmap);
}

/**
 * Key at a position.
 * @param itor a position in a map other than its end.
 * @return the key the object was inserted with.
 */
CL_INLINE uint64_t CL_API cl_map_key(IN const cl_map_iterator_t itor)
{
	return cl_qmap_key(itor);
}

/**
 * Puts a map in a state where cl_map_init(), cl_map_destroy() and
 * cl_is_map_inited() may be called. Cannot fail.
 * @param p_map the map.
 */
void CL_API cl_map_construct(IN cl_map_t *const p_map);

/**
 * Tells whether a map was initialized successfully.
 * @param p_map a constructed map.
 * @return TRUE if initialized, FALSE otherwise.
 */
CL_INLINE boolean_t CL_API cl_is_map_inited(IN const cl_map_t *const p_map)
{
	CL_ASSERT(p_map);
	/* The pool is initialized last. */
	return cl_is_qpool_inited(&p_map->pool);
}

/**
 * Initializes an empty map able to hold @p min_items objects without
 * further allocation; beyond that it grows by min_items / 8 items (at least
 * 32) at a time.
 * @param p_map the map.
 * @param min_items items allocated now.
 * @return CL_SUCCESS, or CL_INSUFFICIENT_MEMORY.
 */
cl_status_t CL_API cl_map_init(IN cl_map_t *const p_map, IN const size_t min_items);

/**
 * Destroys a map, freeing its items. The objects are not touched. Allowed
 * after construct only.
 * @param p_map the map.
 */
void CL_API cl_map_destroy(IN cl_map_t *const p_map);

/**
 * The end of a map: what iteration and searches return past the last item.
 * @param p_map an initialized map.
 * @return the end iterator.
 */
CL_INLINE cl_map_iterator_t CL_API cl_map_end(IN const cl_map_t *const p_map)
{
	CL_ASSERT(p_map);
	return cl_qmap_end(&p_map->qmap);
}

/**
 * Position of the lowest key.
 * @param p_map an initialized map.
 * @return its iterator, or cl_map_end() if the map is empty.
 */
CL_INLINE cl_map_iterator_t CL_API cl_map_head(IN const cl_map_t *const p_map)
{
	CL_ASSERT(p_map);
	return cl_qmap_head(&p_map->qmap);
}

/**
 * Position of the highest key.
 * @param p_map an initialized map.
 * @return its iterator, or cl_map_end() if the map is empty.
 */
CL_INLINE cl_map_iterator_t CL_API cl_map_tail(IN const cl_map_t *const p_map)
{
	CL_ASSERT(p_map);
	return cl_qmap_tail(&p_map->qmap);
}

/**
 * Position of the next higher key.
 * @param itor a position in a map.
 * @return the successor, or the map's end after the highest key.
 */
CL_INLINE cl_map_iterator_t CL_API cl_map_next(IN const cl_map_iterator_t itor)
{
	CL_ASSERT(itor);
	return cl_qmap_next(itor);
}

/**
 * Position of the next lower key.
 * @param itor a position in a map.
 * @return the predecessor, or the map's end before the lowest key.
 */
CL_INLINE cl_map_iterator_t CL_API cl_map_prev(IN const cl_map_iterator_t itor)
{
	CL_ASSERT(itor);
	return cl_qmap_prev(itor);
}

/**
 * Inserts an object under a key, unless the key is already present (the
 * object there is then kept, not replaced).
 * @param p_map an initialized map.
 * @param key the key.
 * @param p_object the object (should not be NULL: NULL reports failure).
 * @return the object stored under @p key after the call (@p p_object, or the
 * one already there); NULL if memory ran out.
 */
void *CL_API cl_map_insert(IN cl_map_t *const p_map, IN const uint64_t key,
			   IN const void *const p_object);

/**
 * Looks up a key.
 * @param p_map an initialized map.
 * @param key the key.
 * @return the object stored under @p key, or NULL if there is none.
 */
void *CL_API cl_map_get(IN const cl_map_t *const p_map, IN const uint64_t key);

/**
 * Finds the object with the lowest key strictly greater than @p key (as
 * OpenSM's complib provides).
 * @param p_map an initialized map.
 * @param key the key.
 * @return that object, or NULL if there is none.
 */
void *CL_API cl_map_get_next(IN const cl_map_t *const p_map, IN const uint64_t key);

/**
 * Removes the object at an iterator, which becomes invalid. Passing the
 * map's end does nothing.
 * @param p_map an initialized map.
 * @param itor a position in @p p_map.
 */
void CL_API cl_map_remove_item(IN cl_map_t *const p_map, IN const cl_map_iterator_t itor);

/**
 * Removes the object stored under a key.
 * @param p_map an initialized map.
 * @param key the key.
 * @return the removed object, or NULL if no object had that key.
 */
void *CL_API cl_map_remove(IN cl_map_t *const p_map, IN const uint64_t key);

/**
 * Removes every object from a map (the objects are not touched).
 * @param p_map an initialized map.
 */
void CL_API cl_map_remove_all(IN cl_map_t *const p_map);

/**
 * Object at a position.
 * @param itor a position in a map other than its end.
 * @return the object.
 */
CL_INLINE void *CL_API cl_map_obj(IN const cl_map_iterator_t itor)
{
	return cl_qmap_obj((const cl_map_obj_t *)(const void *)itor);
}

/**
 * Moves every object of @p p_src_map whose key is not in @p p_dest_map into
 * @p p_dest_map, in key order. Objects with duplicate keys stay in
 * @p p_src_map.
 * @param p_dest_map an initialized map.
 * @param p_src_map an initialized map.
 * @return CL_SUCCESS; CL_INSUFFICIENT_MEMORY if memory ran out, in which case
 * the objects moved so far stay in @p p_dest_map and the others in
 * @p p_src_map (nothing is lost).
 */
cl_status_t CL_API cl_map_merge(OUT cl_map_t *const p_dest_map,
				IN OUT cl_map_t *const p_src_map);

/**
 * Computes the difference of two maps by key: objects only in @p p_map1
 * move to @p p_old, objects only in @p p_map2 move to @p p_new, objects
 * whose key is in both stay where they are.
 * @param p_map1 the first ("old") map.
 * @param p_map2 the second ("new") map.
 * @param p_new an empty map; receives the objects unique to @p p_map2.
 * @param p_old an empty map; receives the objects unique to @p p_map1.
 * @return CL_SUCCESS; CL_INSUFFICIENT_MEMORY if memory ran out, in which case
 * all four maps are restored to their state before the call.
 */
cl_status_t CL_API cl_map_delta(IN OUT cl_map_t *const p_map1, IN OUT cl_map_t *const p_map2,
				OUT cl_map_t *const p_new, OUT cl_map_t *const p_old);

#ifdef __cplusplus
}
#endif

#endif /* _CL_MAP_H_ */
