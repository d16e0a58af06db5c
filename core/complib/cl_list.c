/*
 * ibal complib: the out-of-line list operations.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_list.h>

/* Links added at a time when the pool runs dry, at least. */
#define LIST_MIN_GROW 10

void cl_list_construct(cl_list_t *const p_list)
{
	CL_ASSERT(p_list);
	cl_qlist_init(&p_list->list);
	cl_qpool_construct(&p_list->list_item_pool);
}

cl_status_t cl_list_init(cl_list_t *const p_list, const size_t min_items)
{
	size_t grow_size = min_items >> 3;

	CL_ASSERT(p_list);
	cl_qlist_init(&p_list->list);
	if (grow_size < LIST_MIN_GROW)
		grow_size = LIST_MIN_GROW;
	return cl_qpool_init(&p_list->list_item_pool, min_items, 0, grow_size,
			     sizeof(cl_pool_obj_t), NULL, NULL, NULL);
}

void cl_list_destroy(cl_list_t *const p_list)
{
	CL_ASSERT(p_list);
	/* The links live in the pool's memory: forgetting them is enough. */
	cl_qpool_destroy(&p_list->list_item_pool);
	cl_qlist_init(&p_list->list);
}

/* First link from the head holding p_object, or the list's end. */
static cl_list_item_t *find_object(const cl_list_t *p_list, const void *p_object)
{
	cl_list_item_t *it;

	for (it = cl_qlist_head(&p_list->list); it != cl_qlist_end(&p_list->list);
	     it = cl_qlist_next(it))
		if (cl_list_obj(it) == p_object)
			break;
	return it;
}

cl_status_t cl_list_remove_object(cl_list_t *const p_list, const void *const p_object)
{
	cl_list_item_t *it;

	CL_ASSERT(p_list);
	CL_ASSERT(cl_is_qpool_inited(&p_list->list_item_pool));
	it = find_object(p_list, p_object);
	if (it == cl_qlist_end(&p_list->list))
		return CL_NOT_FOUND;
	cl_list_remove_item(p_list, it);
	return CL_SUCCESS;
}

boolean_t cl_is_object_in_list(const cl_list_t *const p_list, const void *const p_object)
{
	CL_ASSERT(p_list);
	CL_ASSERT(cl_is_qpool_inited(&p_list->list_item_pool));
	return find_object(p_list, p_object) != cl_qlist_end(&p_list->list);
}

cl_status_t cl_list_insert_array_head(cl_list_t *const p_list, const void *const p_array,
				      uint32_t item_count, const uint32_t item_size)
{
	const uint8_t *p;
	uint32_t done;

	CL_ASSERT(p_list);
	CL_ASSERT(cl_is_qpool_inited(&p_list->list_item_pool));
	CL_ASSERT(p_array || !item_count);
	if (!item_count)
		return CL_SUCCESS;
	/* Insert the last element first so that the array order is kept. */
	p = (const uint8_t *)p_array + (size_t)item_size * item_count;
	for (done = 0; done < item_count; done++) {
		p -= item_size;
		if (cl_list_insert_head(p_list, p) != CL_SUCCESS) {
			while (done--)
				(void)cl_list_remove_head(p_list);
			return CL_INSUFFICIENT_MEMORY;
		}
	}
	return CL_SUCCESS;
}

cl_status_t cl_list_insert_array_tail(cl_list_t *const p_list, const void *const p_array,
				      uint32_t item_count, const uint32_t item_size)
{
	const uint8_t *p = (const uint8_t *)p_array;
	uint32_t done;

	CL_ASSERT(p_list);
	CL_ASSERT(cl_is_qpool_inited(&p_list->list_item_pool));
	CL_ASSERT(p_array || !item_count);
	for (done = 0; done < item_count; done++, p += item_size) {
		if (cl_list_insert_tail(p_list, p) != CL_SUCCESS) {
			while (done--)
				(void)cl_list_remove_tail(p_list);
			return CL_INSUFFICIENT_MEMORY;
		}
	}
	return CL_SUCCESS;
}

cl_list_iterator_t cl_list_find_from_head(const cl_list_t *const p_list,
					  cl_pfn_list_find_t pfn_func, const void *const context)
{
	cl_list_iterator_t it;

	CL_ASSERT(p_list);
	CL_ASSERT(cl_is_qpool_inited(&p_list->list_item_pool));
	CL_ASSERT(pfn_func);
	for (it = cl_list_head(p_list); it != cl_list_end(p_list); it = cl_list_next(it))
		if (pfn_func(cl_list_obj(it), (void *)context) == CL_SUCCESS)
			break;
	return it;
}

cl_list_iterator_t cl_list_find_from_tail(const cl_list_t *const p_list,
					  cl_pfn_list_find_t pfn_func, const void *const context)
{
	cl_list_iterator_t it;

	CL_ASSERT(p_list);
	CL_ASSERT(cl_is_qpool_inited(&p_list->list_item_pool));
	CL_ASSERT(pfn_func);
	for (it = cl_list_tail(p_list); it != cl_list_end(p_list); it = cl_list_prev(it))
		if (pfn_func(cl_list_obj(it), (void *)context) == CL_SUCCESS)
			break;
	return it;
}

void cl_list_apply_func(const cl_list_t *const p_list, cl_pfn_list_apply_t pfn_func,
			const void *const context)
{
	cl_list_iterator_t it, next;

	CL_ASSERT(p_list);
	CL_ASSERT(cl_is_qpool_inited(&p_list->list_item_pool));
	CL_ASSERT(pfn_func);
	for (it = cl_list_head(p_list); it != cl_list_end(p_list); it = next) {
		next = cl_list_next(it);
		pfn_func(cl_list_obj(it), (void *)context);
	}
}
