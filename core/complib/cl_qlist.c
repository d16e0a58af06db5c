/*
 * ibal complib: the out-of-line quick list operations.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_qlist.h>

#ifdef _DEBUG_
/* This library has the debug layout of the items (see cl_qlist.h). */
const char __cl_debug_layout = 1;
#endif

/* Splices all of src in front of `at` (an item of dest or its end). */
static void splice_before(cl_qlist_t *dest, cl_list_item_t *at, cl_qlist_t *src)
{
	cl_list_item_t *first, *last;

	if (!src->count)
		return;
#ifdef _DEBUG_
	/* Only debug builds record the list in each item (then the splice is O(n)). */
	for (cl_list_item_t *it = src->end.p_next; it != &src->end; it = it->p_next)
		it->p_list = dest;
#endif
	first = src->end.p_next;
	last = src->end.p_prev;
	first->p_prev = at->p_prev;
	at->p_prev->p_next = first;
	last->p_next = at;
	at->p_prev = last;
	dest->count += src->count;
	cl_qlist_init(src);
}

void cl_qlist_insert_list_head(cl_qlist_t *const p_dest_list, cl_qlist_t *const p_src_list)
{
	CL_ASSERT(p_dest_list && p_src_list && p_dest_list != p_src_list);
	splice_before(p_dest_list, p_dest_list->end.p_next, p_src_list);
}

void cl_qlist_insert_list_tail(cl_qlist_t *const p_dest_list, cl_qlist_t *const p_src_list)
{
	CL_ASSERT(p_dest_list && p_src_list && p_dest_list != p_src_list);
	splice_before(p_dest_list, &p_dest_list->end, p_src_list);
}

void cl_qlist_insert_array_head(cl_qlist_t *const p_list, cl_list_item_t *const p_array,
				size_t item_count, const size_t item_size)
{
	cl_list_item_t *at = p_list->end.p_next;
	uint8_t *p = (uint8_t *)p_array;

	CL_ASSERT(p_list && p_array && item_size >= sizeof(cl_list_item_t));
	/* Each element goes before the old head, so array order is kept. */
	while (item_count--) {
		cl_qlist_insert_prev(p_list, at, (cl_list_item_t *)(void *)p);
		p += item_size;
	}
}

void cl_qlist_insert_array_tail(cl_qlist_t *const p_list, cl_list_item_t *const p_array,
				size_t item_count, const size_t item_size)
{
	uint8_t *p = (uint8_t *)p_array;

	CL_ASSERT(p_list && p_array && item_size >= sizeof(cl_list_item_t));
	while (item_count--) {
		cl_qlist_insert_tail(p_list, (cl_list_item_t *)(void *)p);
		p += item_size;
	}
}

boolean_t cl_is_item_in_qlist(const cl_qlist_t *const p_list,
			      const cl_list_item_t *const p_list_item)
{
	const cl_list_item_t *it;

	CL_ASSERT(p_list && p_list_item);
	for (it = p_list->end.p_next; it != &p_list->end; it = it->p_next)
		if (it == p_list_item)
			return TRUE;
	return FALSE;
}

cl_list_item_t *cl_qlist_find_next(const cl_qlist_t *const p_list,
				   const cl_list_item_t *const p_list_item,
				   cl_pfn_qlist_find_t pfn_func, const void *const context)
{
	cl_list_item_t *it;

	CL_ASSERT(p_list && p_list_item && pfn_func);
	for (it = p_list_item->p_next; it != &p_list->end; it = it->p_next)
		if (pfn_func(it, (void *)context) == CL_SUCCESS)
			break;
	return it;
}

cl_list_item_t *cl_qlist_find_prev(const cl_qlist_t *const p_list,
				   const cl_list_item_t *const p_list_item,
				   cl_pfn_qlist_find_t pfn_func, const void *const context)
{
	cl_list_item_t *it;

	CL_ASSERT(p_list && p_list_item && pfn_func);
	for (it = p_list_item->p_prev; it != &p_list->end; it = it->p_prev)
		if (pfn_func(it, (void *)context) == CL_SUCCESS)
			break;
	return it;
}

void cl_qlist_apply_func(const cl_qlist_t *const p_list, cl_pfn_qlist_apply_t pfn_func,
			 const void *const context)
{
	cl_list_item_t *it, *next;

	CL_ASSERT(p_list && pfn_func);
	for (it = p_list->end.p_next; it != &p_list->end; it = next) {
		next = it->p_next;	/* the callback may remove `it` */
		pfn_func(it, (void *)context);
	}
}

void cl_qlist_move_items(cl_qlist_t *const p_src_list, cl_qlist_t *const p_dest_list,
			 cl_pfn_qlist_find_t pfn_func, const void *const context)
{
	cl_list_item_t *it, *next;

	CL_ASSERT(p_src_list && p_dest_list && pfn_func);
	for (it = p_src_list->end.p_next; it != &p_src_list->end; it = next) {
		next = it->p_next;
		if (pfn_func(it, (void *)context) == CL_SUCCESS) {
			cl_qlist_remove_item(p_src_list, it);
			cl_qlist_insert_tail(p_dest_list, it);
		}
	}
}
