/*
 * ibal complib: list, a doubly linked list of object pointers.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_list.h
 * @brief List: a doubly linked list that stores pointers to the caller's
 * objects, keeping its own link items in a quick pool.
 *
 * Unlike the quick list, objects need no embedded link, so insertions
 * allocate (from the list's pool) and can fail with CL_INSUFFICIENT_MEMORY;
 * the first @c min_items insertions given to cl_list_init() cannot fail.
 * Removal returns the link to the pool, never to the system; memory is
 * freed by cl_list_destroy().
 *
 * Iterate from cl_list_head() with cl_list_next() until the iterator equals
 * cl_list_end(), reading objects with cl_list_obj(). To remove while
 * iterating, fetch the next iterator before cl_list_remove_item() on the
 * current one. The same object may be stored several times.
 *
 * Thread safety: none; callers serialize access to one list.
 */
#ifndef _CL_LIST_H_
#define _CL_LIST_H_

#include <complib/cl_qlist.h>
#include <complib/cl_qpool.h>

#ifdef __cplusplus
extern "C" {
#endif

/** List. Treat as opaque; use the cl_list functions. */
typedef struct _cl_list {
	cl_qlist_t list;           /**< The links, in list order. */
	cl_qpool_t list_item_pool; /**< Pool of cl_pool_obj_t links. */
} cl_list_t;

/** Position in a list: an object's link, or the list's end. Treat as opaque. */
typedef const cl_list_item_t *cl_list_iterator_t;

/**
 * Callback of cl_list_apply_func().
 * @param p_object an object stored in the list.
 * @param context the caller's context.
 */
typedef void (CL_API *cl_pfn_list_apply_t)(IN void *const p_object, IN void *context);

/**
 * Callback of cl_list_find_from_head() and cl_list_find_from_tail().
 * @param p_object an object stored in the list.
 * @param context the caller's context.
 * @return CL_SUCCESS if the object matches (the search stops);
 * CL_NOT_FOUND (or any other status) to go on.
 */
typedef cl_status_t (CL_API *cl_pfn_list_find_t)(IN const void *const p_object,
						 IN void *context);

/**
 * Puts a list in a state where cl_list_init(), cl_list_destroy() and
 * cl_is_list_inited() may be called. Cannot fail.
 * @param p_list the list.
 */
void CL_API cl_list_construct(IN cl_list_t *const p_list);

/**
 * Tells whether a list was initialized successfully.
 * @param p_list a constructed list.
 * @return TRUE if initialized, FALSE otherwise.
 */
CL_INLINE boolean_t CL_API cl_is_list_inited(IN const cl_list_t *const p_list)
{
	CL_ASSERT(p_list);
	/* The pool is initialized last. */
	return cl_is_qpool_inited(&p_list->list_item_pool);
}

/**
 * Initializes an empty list able to hold @p min_items objects without
 * further allocation; beyond that it grows by min_items / 8 links (at least
 * 10) at a time.
 * @param p_list the list.
 * @param min_items links allocated now.
 * @return CL_SUCCESS, or CL_INSUFFICIENT_MEMORY.
 */
cl_status_t CL_API cl_list_init(IN cl_list_t *const p_list, IN const size_t min_items);

/**
 * Destroys a list, freeing its links. The objects are not touched. Allowed
 * after construct only.
 * @param p_list the list.
 */
void CL_API cl_list_destroy(IN cl_list_t *const p_list);

/**
 * Tells whether a list is empty.
 * @param p_list an initialized list.
 * @return TRUE if empty, FALSE otherwise.
 */
CL_INLINE boolean_t CL_API cl_is_list_empty(IN const cl_list_t *const p_list)
{
	CL_ASSERT(p_list);
	CL_ASSERT(cl_is_qpool_inited(&p_list->list_item_pool));
	return cl_is_qlist_empty(&p_list->list);
}

/** @cond INTERNAL */
/* Takes a link from the list's pool and stores the object in it. */
CL_INLINE cl_pool_obj_t *CL_API __cl_list_new_item(IN cl_list_t *const p_list,
						   IN const void *const p_object)
{
	cl_pool_obj_t *p_pool_obj;

	CL_ASSERT(p_list);
	CL_ASSERT(cl_is_qpool_inited(&p_list->list_item_pool));
	p_pool_obj = (cl_pool_obj_t *)(void *)cl_qpool_get(&p_list->list_item_pool);
	if (p_pool_obj)
		p_pool_obj->list_obj.p_object = p_object;
	return p_pool_obj;
}

/* Unlinks an object's link and gives it back to the pool; returns the object. */
CL_INLINE void *CL_API __cl_list_drop_item(IN cl_list_t *const p_list,
					   IN cl_list_item_t *const p_item)
{
	void *p_object = (void *)((cl_pool_obj_t *)(void *)p_item)->list_obj.p_object;

	cl_qlist_remove_item(&p_list->list, p_item);
	cl_qpool_put(&p_list->list_item_pool, (cl_pool_item_t *)(void *)p_item);
	return p_object;
}
/** @endcond */

/**
 * Inserts an object at the head of a list.
 * @param p_list an initialized list.
 * @param p_object the object (any pointer, NULL included).
 * @return CL_SUCCESS, or CL_INSUFFICIENT_MEMORY (the list is unchanged).
 */
CL_INLINE cl_status_t CL_API cl_list_insert_head(IN cl_list_t *const p_list,
						 IN const void *const p_object)
{
	cl_pool_obj_t *p_pool_obj = __cl_list_new_item(p_list, p_object);

	if (!p_pool_obj)
		return CL_INSUFFICIENT_MEMORY;
	cl_qlist_insert_head(&p_list->list, &p_pool_obj->list_obj.list_item);
	return CL_SUCCESS;
}

/**
 * Inserts an object at the tail of a list.
 * @param p_list an initialized list.
 * @param p_object the object.
 * @return CL_SUCCESS, or CL_INSUFFICIENT_MEMORY (the list is unchanged).
 */
CL_INLINE cl_status_t CL_API cl_list_insert_tail(IN cl_list_t *const p_list,
						 IN const void *const p_object)
{
	cl_pool_obj_t *p_pool_obj = __cl_list_new_item(p_list, p_object);

	if (!p_pool_obj)
		return CL_INSUFFICIENT_MEMORY;
	cl_qlist_insert_tail(&p_list->list, &p_pool_obj->list_obj.list_item);
	return CL_SUCCESS;
}

/**
 * Inserts the elements of an array at the head of a list, keeping array
 * order. All or nothing: on failure no element is added.
 * @param p_list an initialized list.
 * @param p_array the first element; the list stores pointers to elements.
 * @param item_count number of elements (0 inserts nothing).
 * @param item_size size of one element in bytes (the stride).
 * @return CL_SUCCESS, or CL_INSUFFICIENT_MEMORY.
 */
cl_status_t CL_API cl_list_insert_array_head(IN cl_list_t *const p_list,
					     IN const void *const p_array,
					     IN uint32_t item_count,
					     IN const uint32_t item_size);

/**
 * Inserts the elements of an array at the tail of a list, keeping array
 * order. All or nothing: on failure no element is added.
 * @param p_list an initialized list.
 * @param p_array the first element; the list stores pointers to elements.
 * @param item_count number of elements (0 inserts nothing).
 * @param item_size size of one element in bytes (the stride).
 * @return CL_SUCCESS, or CL_INSUFFICIENT_MEMORY.
 */
cl_status_t CL_API cl_list_insert_array_tail(IN cl_list_t *const p_list,
					     IN const void *const p_array,
					     IN uint32_t item_count,
					     IN const uint32_t item_size);

/**
 * Inserts an object after the one at @p iterator (at the head if
 * @p iterator is the list's end).
 * @param p_list an initialized list.
 * @param iterator a position in @p p_list.
 * @param p_object the object.
 * @return CL_SUCCESS, or CL_INSUFFICIENT_MEMORY (the list is unchanged).
 */
CL_INLINE cl_status_t CL_API cl_list_insert_next(IN cl_list_t *const p_list,
						 IN const cl_list_iterator_t iterator,
						 IN const void *const p_object)
{
	cl_pool_obj_t *p_pool_obj = __cl_list_new_item(p_list, p_object);

	if (!p_pool_obj)
		return CL_INSUFFICIENT_MEMORY;
	cl_qlist_insert_next(&p_list->list, (cl_list_item_t *)iterator,
			     &p_pool_obj->list_obj.list_item);
	return CL_SUCCESS;
}

/**
 * Inserts an object before the one at @p iterator (at the tail if
 * @p iterator is the list's end).
 * @param p_list an initialized list.
 * @param iterator a position in @p p_list.
 * @param p_object the object.
 * @return CL_SUCCESS, or CL_INSUFFICIENT_MEMORY (the list is unchanged).
 */
CL_INLINE cl_status_t CL_API cl_list_insert_prev(IN cl_list_t *const p_list,
						 IN const cl_list_iterator_t iterator,
						 IN const void *const p_object)
{
	cl_pool_obj_t *p_pool_obj = __cl_list_new_item(p_list, p_object);

	if (!p_pool_obj)
		return CL_INSUFFICIENT_MEMORY;
	cl_qlist_insert_prev(&p_list->list, (cl_list_item_t *)iterator,
			     &p_pool_obj->list_obj.list_item);
	return CL_SUCCESS;
}

/**
 * Removes the object at the head of a list.
 * @param p_list an initialized list.
 * @return the object, or NULL if the list was empty.
 */
CL_INLINE void *CL_API cl_list_remove_head(IN cl_list_t *const p_list)
{
	CL_ASSERT(p_list);
	CL_ASSERT(cl_is_qpool_inited(&p_list->list_item_pool));
	if (cl_is_qlist_empty(&p_list->list))
		return NULL;
	return __cl_list_drop_item(p_list, cl_qlist_head(&p_list->list));
}

/**
 * Removes the object at the tail of a list.
 * @param p_list an initialized list.
 * @return the object, or NULL if the list was empty.
 */
CL_INLINE void *CL_API cl_list_remove_tail(IN cl_list_t *const p_list)
{
	CL_ASSERT(p_list);
	CL_ASSERT(cl_is_qpool_inited(&p_list->list_item_pool));
	if (cl_is_qlist_empty(&p_list->list))
		return NULL;
	return __cl_list_drop_item(p_list, cl_qlist_tail(&p_list->list));
}

/**
 * Removes every object from a list (the objects are not touched).
 * @param p_list an initialized list.
 */
CL_INLINE void CL_API cl_list_remove_all(IN cl_list_t *const p_list)
{
	CL_ASSERT(p_list);
	CL_ASSERT(cl_is_qpool_inited(&p_list->list_item_pool));
	cl_qpool_put_list(&p_list->list_item_pool, &p_list->list);
}

/**
 * Removes the first occurrence (from the head) of an object.
 * @param p_list an initialized list.
 * @param p_object the object.
 * @return CL_SUCCESS, or CL_NOT_FOUND if the object is not in the list.
 */
cl_status_t CL_API cl_list_remove_object(IN cl_list_t *const p_list,
					 IN const void *const p_object);

/**
 * Removes the object at an iterator, which becomes invalid. Passing the
 * list's end does nothing.
 * @param p_list an initialized list.
 * @param iterator a position in @p p_list.
 */
CL_INLINE void CL_API cl_list_remove_item(IN cl_list_t *const p_list,
					  IN const cl_list_iterator_t iterator)
{
	CL_ASSERT(p_list);
	CL_ASSERT(cl_is_qpool_inited(&p_list->list_item_pool));
	CL_ASSERT(iterator);
	if (iterator == cl_qlist_end(&p_list->list))
		return;
	(void)__cl_list_drop_item(p_list, (cl_list_item_t *)iterator);
}

/**
 * Tells whether an object is stored in a list.
 * @param p_list an initialized list.
 * @param p_object the object.
 * @return TRUE if found, FALSE otherwise.
 */
boolean_t CL_API cl_is_object_in_list(IN const cl_list_t *const p_list,
				      IN const void *const p_object);

/**
 * The end of a list: the position after the tail and before the head.
 * @param p_list an initialized list.
 * @return the end iterator.
 */
CL_INLINE cl_list_iterator_t CL_API cl_list_end(IN const cl_list_t *const p_list)
{
	CL_ASSERT(p_list);
	CL_ASSERT(cl_is_qpool_inited(&p_list->list_item_pool));
	return cl_qlist_end(&p_list->list);
}

/**
 * Position of the head of a list.
 * @param p_list an initialized list.
 * @return the head's iterator, or cl_list_end() if the list is empty.
 */
CL_INLINE cl_list_iterator_t CL_API cl_list_head(IN const cl_list_t *const p_list)
{
	CL_ASSERT(p_list);
	CL_ASSERT(cl_is_qpool_inited(&p_list->list_item_pool));
	return cl_qlist_head(&p_list->list);
}

/**
 * Position of the tail of a list.
 * @param p_list an initialized list.
 * @return the tail's iterator, or cl_list_end() if the list is empty.
 */
CL_INLINE cl_list_iterator_t CL_API cl_list_tail(IN const cl_list_t *const p_list)
{
	CL_ASSERT(p_list);
	CL_ASSERT(cl_is_qpool_inited(&p_list->list_item_pool));
	return cl_qlist_tail(&p_list->list);
}

/**
 * Position after @p iterator.
 * @param iterator a position in a list.
 * @return the next position, or the list's end after the tail.
 */
CL_INLINE cl_list_iterator_t CL_API cl_list_next(IN const cl_list_iterator_t iterator)
{
	CL_ASSERT(iterator);
	return cl_qlist_next(iterator);
}

/**
 * Position before @p iterator.
 * @param iterator a position in a list.
 * @return the previous position, or the list's end before the head.
 */
CL_INLINE cl_list_iterator_t CL_API cl_list_prev(IN const cl_list_iterator_t iterator)
{
	CL_ASSERT(iterator);
	return cl_qlist_prev(iterator);
}

/**
 * Object stored at a position.
 * @param iterator a position in a list other than its end.
 * @return the object.
 */
CL_INLINE void *CL_API cl_list_obj(IN const cl_list_iterator_t iterator)
{
	CL_ASSERT(iterator);
	return (void *)((const cl_pool_obj_t *)(const void *)iterator)->list_obj.p_object;
}

/**
 * Searches from the head for an object matching @p pfn_func. The callback
 * must not modify the list.
 * @param p_list an initialized list.
 * @param pfn_func match callback.
 * @param context passed to @p pfn_func.
 * @return the first match's iterator, or cl_list_end() if none.
 */
cl_list_iterator_t CL_API cl_list_find_from_head(IN const cl_list_t *const p_list,
						 IN cl_pfn_list_find_t pfn_func,
						 IN const void *const context);

/**
 * Searches from the tail for an object matching @p pfn_func. The callback
 * must not modify the list.
 * @param p_list an initialized list.
 * @param pfn_func match callback.
 * @param context passed to @p pfn_func.
 * @return the last match's iterator, or cl_list_end() if none.
 */
cl_list_iterator_t CL_API cl_list_find_from_tail(IN const cl_list_t *const p_list,
						 IN cl_pfn_list_find_t pfn_func,
						 IN const void *const context);

/**
 * Calls @p pfn_func for every object, head to tail. The callback must not
 * modify the list.
 * @param p_list an initialized list.
 * @param pfn_func callback.
 * @param context passed to @p pfn_func.
 */
void CL_API cl_list_apply_func(IN const cl_list_t *const p_list,
			       IN cl_pfn_list_apply_t pfn_func, IN const void *const context);

/**
 * Number of objects stored in a list.
 * @param p_list an initialized list.
 * @return the count.
 */
CL_INLINE size_t CL_API cl_list_count(IN const cl_list_t *const p_list)
{
	CL_ASSERT(p_list);
	CL_ASSERT(cl_is_qpool_inited(&p_list->list_item_pool));
	return cl_qlist_count(&p_list->list);
}

#ifdef __cplusplus
}
#endif

#endif /* _CL_LIST_H_ */
