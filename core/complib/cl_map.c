/*
 * ibal complib: map, a quick map whose items come from a quick pool.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_map.h>

/* Items added at a time when the pool runs dry, at least. */
#define MAP_MIN_GROW 32

void cl_map_construct(cl_map_t *const p_map)
{
	CL_ASSERT(p_map);
	cl_qmap_init(&p_map->qmap);
	cl_qpool_construct(&p_map->pool);
}

cl_status_t cl_map_init(cl_map_t *const p_map, const size_t min_items)
{
	size_t grow_size = min_items >> 3;

	CL_ASSERT(p_map);
	cl_qmap_init(&p_map->qmap);
	if (grow_size < MAP_MIN_GROW)
		grow_size = MAP_MIN_GROW;
	return cl_qpool_init(&p_map->pool, min_items, 0, grow_size, sizeof(cl_map_obj_t), NULL,
			     NULL, NULL);
}

void cl_map_destroy(cl_map_t *const p_map)
{
	CL_ASSERT(p_map);
	/* The items live in the pool's memory: forgetting them is enough. */
	cl_qpool_destroy(&p_map->pool);
	cl_qmap_init(&p_map->qmap);
}

/* Takes an item from the map's pool holding p_object; NULL if none. */
static cl_map_obj_t *new_item(cl_map_t *p_map, const void *p_object)
{
	cl_map_obj_t *p_map_obj = (cl_map_obj_t *)(void *)cl_qpool_get(&p_map->pool);

	if (p_map_obj)
		cl_qmap_set_obj(p_map_obj, p_object);
	return p_map_obj;
}

/* Unlinks an item from the map and gives it back to the pool. */
static void drop_item(cl_map_t *p_map, cl_map_item_t *p_item)
{
	cl_qmap_remove_item(&p_map->qmap, p_item);
	cl_qpool_put(&p_map->pool, &p_item->pool_item);
}

void *cl_map_insert(cl_map_t *const p_map, const uint64_t key, const void *const p_object)
{
	cl_map_obj_t *p_map_obj;
	cl_map_item_t *p_at_key;

	CL_ASSERT(p_map);
	CL_ASSERT(cl_is_map_inited(p_map));
	p_map_obj = new_item(p_map, p_object);
	if (!p_map_obj) {
		/* Out of memory: an existing key still reports its object. */
		p_at_key = cl_qmap_get(&p_map->qmap, key);
		if (p_at_key == cl_qmap_end(&p_map->qmap))
			return NULL;
		return cl_map_obj(p_at_key);
	}
	p_at_key = cl_qmap_insert(&p_map->qmap, key, &p_map_obj->item);
	if (p_at_key != &p_map_obj->item)	/* duplicate key: keep the old one */
		cl_qpool_put(&p_map->pool, &p_map_obj->item.pool_item);
	return cl_map_obj(p_at_key);
}

void *cl_map_get(const cl_map_t *const p_map, const uint64_t key)
{
	cl_map_item_t *p_item;

	CL_ASSERT(p_map);
	CL_ASSERT(cl_is_map_inited(p_map));
	p_item = cl_qmap_get(&p_map->qmap, key);
	if (p_item == cl_qmap_end(&p_map->qmap))
		return NULL;
	return cl_map_obj(p_item);
}

void *cl_map_get_next(const cl_map_t *const p_map, const uint64_t key)
{
	cl_map_item_t *p_item;

	CL_ASSERT(p_map);
	CL_ASSERT(cl_is_map_inited(p_map));
	p_item = cl_qmap_get_next(&p_map->qmap, key);
	if (p_item == cl_qmap_end(&p_map->qmap))
		return NULL;
	return cl_map_obj(p_item);
}

void cl_map_remove_item(cl_map_t *const p_map, const cl_map_iterator_t itor)
{
	CL_ASSERT(p_map);
	CL_ASSERT(cl_is_map_inited(p_map));
	CL_ASSERT(itor);
	if (itor == cl_map_end(p_map))
		return;
	drop_item(p_map, (cl_map_item_t *)itor);
}

void *cl_map_remove(cl_map_t *const p_map, const uint64_t key)
{
	cl_map_item_t *p_item;
	void *p_object;

	CL_ASSERT(p_map);
	CL_ASSERT(cl_is_map_inited(p_map));
	p_item = cl_qmap_remove(&p_map->qmap, key);
	if (p_item == cl_qmap_end(&p_map->qmap))
		return NULL;
	p_object = cl_map_obj(p_item);
	cl_qpool_put(&p_map->pool, &p_item->pool_item);
	return p_object;
}

void cl_map_remove_all(cl_map_t *const p_map)
{
	cl_map_item_t *p_item, *p_next;

	CL_ASSERT(p_map);
	CL_ASSERT(cl_is_map_inited(p_map));
	/* Walk the sorted links once, then reset the tree: no rebalancing. */
	for (p_item = cl_qmap_head(&p_map->qmap); p_item != cl_qmap_end(&p_map->qmap);
	     p_item = p_next) {
		p_next = cl_qmap_next(p_item);
		cl_qpool_put(&p_map->pool, &p_item->pool_item);
	}
	cl_qmap_remove_all(&p_map->qmap);
}

/* Moves the object at *p_itor from p_src to p_dest, whose key is known not
 * to be in p_dest, and advances *p_itor. On failure nothing changes. */
static cl_status_t move_item(cl_map_t *p_dest, cl_map_t *p_src, cl_map_iterator_t *p_itor)
{
	cl_map_item_t *p_item = (cl_map_item_t *)*p_itor;
	cl_map_obj_t *p_new = new_item(p_dest, cl_map_obj(p_item));

	if (!p_new)
		return CL_INSUFFICIENT_MEMORY;
	*p_itor = cl_map_next(p_item);
	(void)cl_qmap_insert(&p_dest->qmap, cl_map_key(p_item), &p_new->item);
	drop_item(p_src, p_item);
	return CL_SUCCESS;
}

cl_status_t cl_map_merge(cl_map_t *const p_dest_map, cl_map_t *const p_src_map)
{
	cl_map_iterator_t itor;
	cl_status_t status;

	CL_ASSERT(p_dest_map && cl_is_map_inited(p_dest_map));
	CL_ASSERT(p_src_map && cl_is_map_inited(p_src_map));
	itor = cl_map_head(p_src_map);
	while (itor != cl_map_end(p_src_map)) {
		if (cl_qmap_get(&p_dest_map->qmap, cl_map_key(itor)) !=
		    cl_qmap_end(&p_dest_map->qmap)) {
			itor = cl_map_next(itor);	/* duplicate: stays */
			continue;
		}
		status = move_item(p_dest_map, p_src_map, &itor);
		if (status != CL_SUCCESS)
			return status;
	}
	return CL_SUCCESS;
}

/* Moves the objects of p_from back into p_to. Cannot run out of memory:
 * every object in p_from left one free item behind in p_to's pool. */
static void move_back(cl_map_t *p_to, cl_map_t *p_from)
{
	cl_map_iterator_t itor = cl_map_head(p_from);
	cl_status_t status;

	while (itor != cl_map_end(p_from)) {
		status = move_item(p_to, p_from, &itor);
		CL_ASSERT(status == CL_SUCCESS);
		if (status != CL_SUCCESS)
			break;
	}
}

cl_status_t cl_map_delta(cl_map_t *const p_map1, cl_map_t *const p_map2,
			 cl_map_t *const p_new, cl_map_t *const p_old)
{
	cl_map_iterator_t itor1, itor2;
	cl_status_t status = CL_SUCCESS;
	uint64_t key1, key2;

	CL_ASSERT(p_map1 && cl_is_map_inited(p_map1));
	CL_ASSERT(p_map2 && cl_is_map_inited(p_map2));
	CL_ASSERT(p_new && cl_is_map_inited(p_new) && cl_is_map_empty(p_new));
	CL_ASSERT(p_old && cl_is_map_inited(p_old) && cl_is_map_empty(p_old));
	itor1 = cl_map_head(p_map1);
	itor2 = cl_map_head(p_map2);
	while (status == CL_SUCCESS &&
	       (itor1 != cl_map_end(p_map1) || itor2 != cl_map_end(p_map2))) {
		if (itor2 == cl_map_end(p_map2)) {
			status = move_item(p_old, p_map1, &itor1);
			continue;
		}
		if (itor1 == cl_map_end(p_map1)) {
			status = move_item(p_new, p_map2, &itor2);
			continue;
		}
		key1 = cl_map_key(itor1);
		key2 = cl_map_key(itor2);
		if (key1 < key2) {
			status = move_item(p_old, p_map1, &itor1);
		} else if (key1 > key2) {
			status = move_item(p_new, p_map2, &itor2);
		} else {
			itor1 = cl_map_next(itor1);
			itor2 = cl_map_next(itor2);
		}
	}
	if (status != CL_SUCCESS) {
		move_back(p_map1, p_old);
		move_back(p_map2, p_new);
	}
	return status;
}
