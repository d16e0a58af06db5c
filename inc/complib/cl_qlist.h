/*
 * ibal complib: quick list, an intrusive doubly linked list.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_qlist.h
 * @brief Quick list: a doubly linked list of caller-embedded cl_list_item_t.
 *
 * The list never allocates, so no operation can fail. The list keeps a
 * sentinel (`end`): iteration runs from cl_qlist_head() until the item equals
 * cl_qlist_end(). To remove items while iterating, fetch the next item with
 * cl_qlist_next() before removing the current one.
 *
 * Thread safety: none; callers serialize access to one list.
 */
#ifndef _CL_QUICK_LIST_H_
#define _CL_QUICK_LIST_H_

#include <complib/cl_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Link embedded in an object kept on a cl_qlist_t. */
typedef struct _cl_list_item {
	struct _cl_list_item *p_next; /**< Next item (the list's end after the tail). */
	struct _cl_list_item *p_prev; /**< Previous item (the list's end before the head). */
#ifdef _DEBUG_
	struct _cl_qlist *p_list;     /**< List the item is on (debug builds only, as upstream). */
#endif
} cl_list_item_t;

/** List item carrying a pointer to an arbitrary object. */
typedef struct _cl_list_obj {
	cl_list_item_t list_item; /**< The link. */
	const void *p_object;     /**< The object the item stands for. */
} cl_list_obj_t;

/** @cond INTERNAL */
#ifdef _DEBUG_
/*
 * With _DEBUG_ the list, pool and map items carry upstream's debug-only
 * fields, so code built with it needs a libibalcomp built with it too
 * (configure --enable-debug), which alone defines this name: against a
 * release library the link fails here instead of memory being corrupted.
 */
extern const char __cl_debug_layout;
static const char *const __cl_debug_layout_ref __attribute__((used)) = &__cl_debug_layout;
#endif
/** @endcond */

/** Quick list. Initialize with cl_qlist_init() before use. */
typedef struct _cl_qlist {
	cl_list_item_t end; /**< Sentinel: head is end.p_next, tail is end.p_prev. */
	size_t count;       /**< Number of items on the list. */
	cl_state_t state;   /**< CL_INITIALIZED after cl_qlist_init(). */
} cl_qlist_t;

/**
 * Callback of cl_qlist_apply_func().
 * @param p_list_item the item.
 * @param context the caller's context.
 */
typedef void (CL_API *cl_pfn_qlist_apply_t)(IN cl_list_item_t *const p_list_item,
					    IN void *context);

/**
 * Callback of the cl_qlist find and move functions.
 * @param p_list_item the item examined.
 * @param context the caller's context.
 * @return CL_SUCCESS when the item matches; any other status otherwise.
 */
typedef cl_status_t (CL_API *cl_pfn_qlist_find_t)(IN const cl_list_item_t *const p_list_item,
						  IN void *context);

/**
 * Sets the object pointer of a list object.
 * @param p_list_obj the list object.
 * @param p_object the object to store.
 */
CL_INLINE void CL_API cl_qlist_set_obj(IN cl_list_obj_t *const p_list_obj,
				       IN const void *const p_object)
{
	CL_ASSERT(p_list_obj);
	p_list_obj->p_object = p_object;
}

/**
 * Returns the object pointer of a list object.
 * @param p_list_obj the list object.
 * @return the object stored with cl_qlist_set_obj().
 */
CL_INLINE void *CL_API cl_qlist_obj(IN const cl_list_obj_t *const p_list_obj)
{
	CL_ASSERT(p_list_obj);
	return (void *)p_list_obj->p_object;
}

/** @cond INTERNAL */
CL_INLINE void CL_API __cl_primitive_insert(IN cl_list_item_t *const p_list_item,
					    IN cl_list_item_t *const p_new_item)
{
	p_new_item->p_next = p_list_item;
	p_new_item->p_prev = p_list_item->p_prev;
	p_list_item->p_prev = p_new_item;
	p_new_item->p_prev->p_next = p_new_item;
}

CL_INLINE void CL_API __cl_primitive_remove(IN cl_list_item_t *const p_list_item)
{
	p_list_item->p_next->p_prev = p_list_item->p_prev;
	p_list_item->p_prev->p_next = p_list_item->p_next;
}
/** @endcond */

/**
 * Initializes an empty quick list. Cannot fail.
 * @param p_list the list.
 */
CL_INLINE void CL_API cl_qlist_init(IN cl_qlist_t *const p_list)
{
	CL_ASSERT(p_list);
	p_list->state = CL_INITIALIZED;
	p_list->end.p_next = &p_list->end;
	p_list->end.p_prev = &p_list->end;
#ifdef _DEBUG_
	p_list->end.p_list = p_list;
#endif
	p_list->count = 0;
}

/**
 * Number of items on a list.
 * @param p_list the list.
 * @return the count.
 */
CL_INLINE size_t CL_API cl_qlist_count(IN const cl_qlist_t *const p_list)
{
	CL_ASSERT(p_list && p_list->state == CL_INITIALIZED);
	return p_list->count;
}

/**
 * Tells whether a list is empty.
 * @param p_list the list.
 * @return TRUE if empty.
 */
CL_INLINE boolean_t CL_API cl_is_qlist_empty(IN const cl_qlist_t *const p_list)
{
	CL_ASSERT(p_list && p_list->state == CL_INITIALIZED);
	return !p_list->count;
}

/**
 * Item after @p p_list_item.
 * @param p_list_item an item on a list.
 * @return the next item, or the list's end after the tail.
 */
CL_INLINE cl_list_item_t *CL_API cl_qlist_next(IN const cl_list_item_t *const p_list_item)
{
	CL_ASSERT(p_list_item);
	return p_list_item->p_next;
}

/**
 * Item before @p p_list_item.
 * @param p_list_item an item on a list.
 * @return the previous item, or the list's end before the head.
 */
CL_INLINE cl_list_item_t *CL_API cl_qlist_prev(IN const cl_list_item_t *const p_list_item)
{
	CL_ASSERT(p_list_item);
	return p_list_item->p_prev;
}

/**
 * First item of a list.
 * @param p_list the list.
 * @return the head, or cl_qlist_end() if the list is empty.
 */
CL_INLINE cl_list_item_t *CL_API cl_qlist_head(IN const cl_qlist_t *const p_list)
{
	CL_ASSERT(p_list && p_list->state == CL_INITIALIZED);
	return p_list->end.p_next;
}

/**
 * Last item of a list.
 * @param p_list the list.
 * @return the tail, or cl_qlist_end() if the list is empty.
 */
CL_INLINE cl_list_item_t *CL_API cl_qlist_tail(IN const cl_qlist_t *const p_list)
{
	CL_ASSERT(p_list && p_list->state == CL_INITIALIZED);
	return p_list->end.p_prev;
}

/**
 * The sentinel that marks the end of a list (compare iterators with it).
 * @param p_list the list.
 * @return the end marker.
 */
CL_INLINE const cl_list_item_t *CL_API cl_qlist_end(IN const cl_qlist_t *const p_list)
{
	CL_ASSERT(p_list && p_list->state == CL_INITIALIZED);
	return &p_list->end;
}

/**
 * Inserts an item at the head.
 * @param p_list the list.
 * @param p_list_item the item, not on any list.
 */
CL_INLINE void CL_API cl_qlist_insert_head(IN cl_qlist_t *const p_list,
					   IN cl_list_item_t *const p_list_item)
{
	CL_ASSERT(p_list && p_list->state == CL_INITIALIZED && p_list_item);
#ifdef _DEBUG_
	p_list_item->p_list = p_list;
#endif
	__cl_primitive_insert(cl_qlist_head(p_list), p_list_item);
	p_list->count++;
}

/**
 * Inserts an item at the tail.
 * @param p_list the list.
 * @param p_list_item the item, not on any list.
 */
CL_INLINE void CL_API cl_qlist_insert_tail(IN cl_qlist_t *const p_list,
					   IN cl_list_item_t *const p_list_item)
{
	CL_ASSERT(p_list && p_list->state == CL_INITIALIZED && p_list_item);
#ifdef _DEBUG_
	p_list_item->p_list = p_list;
#endif
	__cl_primitive_insert(&p_list->end, p_list_item);
	p_list->count++;
}

/**
 * Moves every item of @p p_src_list to the head of @p p_dest_list, keeping
 * their order; the source list ends up empty.
 * @param p_dest_list destination list.
 * @param p_src_list source list.
 */
void CL_API cl_qlist_insert_list_head(IN cl_qlist_t *const p_dest_list,
				      IN cl_qlist_t *const p_src_list);

/**
 * Moves every item of @p p_src_list to the tail of @p p_dest_list, keeping
 * their order; the source list ends up empty.
 * @param p_dest_list destination list.
 * @param p_src_list source list.
 */
void CL_API cl_qlist_insert_list_tail(IN cl_qlist_t *const p_dest_list,
				      IN cl_qlist_t *const p_src_list);

/**
 * Inserts the items of an array at the head, keeping array order.
 * @param p_list the list.
 * @param p_array first cl_list_item_t of the array.
 * @param item_count number of array elements.
 * @param item_size size of one element in bytes (the stride).
 */
void CL_API cl_qlist_insert_array_head(IN cl_qlist_t *const p_list,
				       IN cl_list_item_t *const p_array,
				       IN size_t item_count, IN const size_t item_size);

/**
 * Inserts the items of an array at the tail, keeping array order.
 * @param p_list the list.
 * @param p_array first cl_list_item_t of the array.
 * @param item_count number of array elements.
 * @param item_size size of one element in bytes (the stride).
 */
void CL_API cl_qlist_insert_array_tail(IN cl_qlist_t *const p_list,
				       IN cl_list_item_t *const p_array,
				       IN size_t item_count, IN const size_t item_size);

/**
 * Inserts @p p_new_item before @p p_list_item.
 * @param p_list the list holding @p p_list_item.
 * @param p_list_item an item on the list (or its end, to insert at the tail).
 * @param p_new_item the item to insert.
 */
CL_INLINE void CL_API cl_qlist_insert_prev(IN cl_qlist_t *const p_list,
					   IN cl_list_item_t *const p_list_item,
					   IN cl_list_item_t *const p_new_item)
{
	CL_ASSERT(p_list && p_list->state == CL_INITIALIZED && p_list_item && p_new_item);
#ifdef _DEBUG_
	p_new_item->p_list = p_list;
#endif
	__cl_primitive_insert(p_list_item, p_new_item);
	p_list->count++;
}

/**
 * Inserts @p p_new_item after @p p_list_item.
 * @param p_list the list holding @p p_list_item.
 * @param p_list_item an item on the list (or its end, to insert at the head).
 * @param p_new_item the item to insert.
 */
CL_INLINE void CL_API cl_qlist_insert_next(IN cl_qlist_t *const p_list,
					   IN cl_list_item_t *const p_list_item,
					   IN cl_list_item_t *const p_new_item)
{
	CL_ASSERT(p_list && p_list->state == CL_INITIALIZED && p_list_item && p_new_item);
#ifdef _DEBUG_
	p_new_item->p_list = p_list;
#endif
	__cl_primitive_insert(cl_qlist_next(p_list_item), p_new_item);
	p_list->count++;
}

/**
 * Removes and returns the head.
 * @param p_list the list.
 * @return the former head, or cl_qlist_end() if the list was empty.
 */
CL_INLINE cl_list_item_t *CL_API cl_qlist_remove_head(IN cl_qlist_t *const p_list)
{
	cl_list_item_t *p_item;

	CL_ASSERT(p_list && p_list->state == CL_INITIALIZED);
	p_item = cl_qlist_head(p_list);
	if (p_item == &p_list->end)
		return p_item;
	__cl_primitive_remove(p_item);
#ifdef _DEBUG_
	p_item->p_list = NULL;
#endif
	p_list->count--;
	return p_item;
}

/**
 * Removes and returns the tail.
 * @param p_list the list.
 * @return the former tail, or cl_qlist_end() if the list was empty.
 */
CL_INLINE cl_list_item_t *CL_API cl_qlist_remove_tail(IN cl_qlist_t *const p_list)
{
	cl_list_item_t *p_item;

	CL_ASSERT(p_list && p_list->state == CL_INITIALIZED);
	p_item = cl_qlist_tail(p_list);
	if (p_item == &p_list->end)
		return p_item;
	__cl_primitive_remove(p_item);
#ifdef _DEBUG_
	p_item->p_list = NULL;
#endif
	p_list->count--;
	return p_item;
}

/**
 * Removes an item. Passing the list's end is allowed and does nothing.
 * @param p_list the list.
 * @param p_list_item an item on @p p_list.
 */
CL_INLINE void CL_API cl_qlist_remove_item(IN cl_qlist_t *const p_list,
					   IN cl_list_item_t *const p_list_item)
{
	CL_ASSERT(p_list && p_list->state == CL_INITIALIZED && p_list_item);
	if (p_list_item == &p_list->end)
		return;
	CL_ASSERT(p_list_item->p_list == p_list);
	__cl_primitive_remove(p_list_item);
#ifdef _DEBUG_
	p_list_item->p_list = NULL;
#endif
	p_list->count--;
}

/**
 * Empties a list without touching the items (they are simply forgotten).
 * @param p_list the list.
 */
CL_INLINE void CL_API cl_qlist_remove_all(IN cl_qlist_t *const p_list)
{
	CL_ASSERT(p_list && p_list->state == CL_INITIALIZED);
	cl_qlist_init(p_list);
}

/**
 * Tells whether an item is on a list, by walking the list.
 * @param p_list the list.
 * @param p_list_item the item looked for.
 * @return TRUE if found.
 */
boolean_t CL_API cl_is_item_in_qlist(IN const cl_qlist_t *const p_list,
				     IN const cl_list_item_t *const p_list_item);

/**
 * Searches forward, starting after @p p_list_item, for an item matching @p pfn_func.
 * @param p_list the list.
 * @param p_list_item where to start (exclusive); the list's end searches all.
 * @param pfn_func match callback.
 * @param context passed to @p pfn_func.
 * @return the first matching item, or cl_qlist_end() if none.
 */
cl_list_item_t *CL_API cl_qlist_find_next(IN const cl_qlist_t *const p_list,
					  IN const cl_list_item_t *const p_list_item,
					  IN cl_pfn_qlist_find_t pfn_func,
					  IN const void *const context);

/**
 * Searches backward, starting before @p p_list_item, for an item matching @p pfn_func.
 * @param p_list the list.
 * @param p_list_item where to start (exclusive); the list's end searches all.
 * @param pfn_func match callback.
 * @param context passed to @p pfn_func.
 * @return the first matching item, or cl_qlist_end() if none.
 */
cl_list_item_t *CL_API cl_qlist_find_prev(IN const cl_qlist_t *const p_list,
					  IN const cl_list_item_t *const p_list_item,
					  IN cl_pfn_qlist_find_t pfn_func,
					  IN const void *const context);

/**
 * Searches the whole list from its head.
 * @param p_list the list.
 * @param pfn_func match callback.
 * @param context passed to @p pfn_func.
 * @return the first matching item, or cl_qlist_end() if none.
 */
CL_INLINE cl_list_item_t *CL_API cl_qlist_find_from_head(IN const cl_qlist_t *const p_list,
							 IN cl_pfn_qlist_find_t pfn_func,
							 IN const void *const context)
{
	return cl_qlist_find_next(p_list, cl_qlist_end(p_list), pfn_func, context);
}

/**
 * Searches the whole list from its tail.
 * @param p_list the list.
 * @param pfn_func match callback.
 * @param context passed to @p pfn_func.
 * @return the last matching item, or cl_qlist_end() if none.
 */
CL_INLINE cl_list_item_t *CL_API cl_qlist_find_from_tail(IN const cl_qlist_t *const p_list,
							 IN cl_pfn_qlist_find_t pfn_func,
							 IN const void *const context)
{
	return cl_qlist_find_prev(p_list, cl_qlist_end(p_list), pfn_func, context);
}

/**
 * Calls @p pfn_func for every item, head to tail. The callback must not
 * remove items other than the one it is given.
 * @param p_list the list.
 * @param pfn_func callback.
 * @param context passed to @p pfn_func.
 */
void CL_API cl_qlist_apply_func(IN const cl_qlist_t *const p_list,
				IN cl_pfn_qlist_apply_t pfn_func,
				IN const void *const context);

/**
 * Moves every item for which @p pfn_func returns CL_SUCCESS from
 * @p p_src_list to the tail of @p p_dest_list, in order.
 * @param p_src_list source list.
 * @param p_dest_list destination list.
 * @param pfn_func match callback.
 * @param context passed to @p pfn_func.
 */
void CL_API cl_qlist_move_items(IN cl_qlist_t *const p_src_list,
				IN cl_qlist_t *const p_dest_list,
				IN cl_pfn_qlist_find_t pfn_func,
				IN const void *const context);

#ifdef __cplusplus
}
#endif

#endif /* _CL_QUICK_LIST_H_ */
