/*
 * ibal access layer: MAD pools (ib_create_mad_pool .. ib_put_mad) and their elements.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * See al_mad_pool.h for the objects, their lifetimes and the statuses.
 * Elements live in chunks (one allocation per growth) owned by the pool;
 * every element carries a magic that says whether it is free or out, which
 * ib_put_mad() claims atomically for the whole list before returning any,
 * so a bad list (an element never obtained, returned twice, or repeated)
 * changes nothing.
 */
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <complib/cl_memory.h>
#include <complib/cl_qmap.h>
#include "al_mad_pool.h"

/* One growth's worth of elements. */
typedef struct al_mad_chunk {
	cl_list_item_t item;   /* on al_pool_t::chunks */
	cl_map_item_t live;    /* in live_chunks, by address */
	size_t count;
	al_mad_elem_t elems[];
} al_mad_chunk_t;

/* ---- The chunks that exist, to tell a pool's element from any memory ---- */

/* Every chunk of every pool, by address: an element a user hands back is
 * looked up here before its wrapper is read, so an object that never came
 * from a pool (or whose pool is gone) is refused without reading past it. */
static pthread_rwlock_t live_lock = PTHREAD_RWLOCK_INITIALIZER;
static cl_qmap_t live_chunks;
static boolean_t live_init;

static void chunk_register(al_mad_chunk_t *p_chunk)
{
	pthread_rwlock_wrlock(&live_lock);
	if (!live_init) {
		cl_qmap_init(&live_chunks);
		live_init = TRUE;
	}
	cl_qmap_insert(&live_chunks, (uint64_t)(uintptr_t)p_chunk, &p_chunk->live);
	pthread_rwlock_unlock(&live_lock);
}

static void chunk_free(al_mad_chunk_t *p_chunk)
{
	size_t i;

	pthread_rwlock_wrlock(&live_lock);
	cl_qmap_remove_item(&live_chunks, &p_chunk->live);
	pthread_rwlock_unlock(&live_lock);
	for (i = 0; i < p_chunk->count; i++)
		if (p_chunk->elems[i].p_big_buf)
			cl_free(p_chunk->elems[i].p_big_buf);
	cl_free(p_chunk);
}

boolean_t al_mad_elem_known(const ib_mad_element_t *p_element)
{
	uintptr_t a = (uintptr_t)p_element - offsetof(al_mad_elem_t, element), first;
	const al_mad_chunk_t *p_chunk;
	cl_map_item_t *it;
	boolean_t known = FALSE;

	if (!p_element)
		return FALSE;
	pthread_rwlock_rdlock(&live_lock);
	if (live_init) {
		/* The chunk starting last at or before a. */
		it = cl_qmap_get_next(&live_chunks, (uint64_t)a);
		it = it == cl_qmap_end(&live_chunks) ? cl_qmap_tail(&live_chunks) : cl_qmap_prev(it);
		if (it != cl_qmap_end(&live_chunks)) {
			p_chunk = PARENT_STRUCT(it, al_mad_chunk_t, live);
			first = (uintptr_t)p_chunk->elems;
			known = a >= first && a < first + p_chunk->count * sizeof(al_mad_elem_t) &&
				(a - first) % sizeof(al_mad_elem_t) == 0;
		}
	}
	pthread_rwlock_unlock(&live_lock);
	return known;
}

/* ---- Pools ---- */

/* Allocates a chunk of n free elements of p_pool (not linked yet). */
static al_mad_chunk_t *chunk_alloc(al_pool_t *p_pool, size_t n)
{
	al_mad_chunk_t *p_chunk;
	size_t i;

	if (!n || n > (SIZE_MAX - sizeof(*p_chunk)) / sizeof(al_mad_elem_t))
		return NULL;
	p_chunk = (al_mad_chunk_t *)cl_zalloc(sizeof(*p_chunk) + n * sizeof(al_mad_elem_t));
	if (!p_chunk)
		return NULL;
	p_chunk->count = n;
	for (i = 0; i < n; i++) {
		al_mad_elem_t *p_elem = &p_chunk->elems[i];

		p_elem->magic = AL_MAD_MAGIC_FREE;
		p_elem->p_self = p_elem;
		p_elem->p_pool = p_pool;
	}
	chunk_register(p_chunk);
	return p_chunk;
}

/* Pool lock held: links a chunk and puts its elements on the free list. */
static void chunk_link(al_pool_t *p_pool, al_mad_chunk_t *p_chunk)
{
	size_t i;

	cl_qlist_insert_tail(&p_pool->chunks, &p_chunk->item);
	for (i = 0; i < p_chunk->count; i++)
		cl_qlist_insert_tail(&p_pool->free_list, &p_chunk->elems[i].list_item);
}

static void pool_destroying(al_obj_t *p_obj)
{
	al_pool_t *p_pool = PARENT_STRUCT(p_obj, al_pool_t, obj);

	cl_spinlock_acquire(&p_pool->lock);
	p_pool->closing = TRUE;
	cl_spinlock_release(&p_pool->lock);
}

/* Last: every key is gone. Elements still out (the AL instance was closed
 * with them) go with their chunks. */
static void pool_free(al_obj_t *p_obj)
{
	al_pool_t *p_pool = PARENT_STRUCT(p_obj, al_pool_t, obj);
	cl_list_item_t *it;

	while ((it = cl_qlist_remove_head(&p_pool->chunks)) != cl_qlist_end(&p_pool->chunks))
		chunk_free(PARENT_STRUCT(it, al_mad_chunk_t, item));
	cl_spinlock_destroy(&p_pool->lock);
	cl_free(p_pool);
}

ib_api_status_t al_mad_pool_create(al_obj_t *p_parent, size_t min, size_t max, size_t grow_size,
				   al_pool_t **pp_pool, ib_pool_handle_t *ph_pool)
{
	al_mad_chunk_t *p_chunk = NULL;
	al_pool_t *p_pool;
	ib_api_status_t st;

	if ((max && max < min) || (!min && !grow_size))
		return IB_INVALID_SETTING;
	p_pool = (al_pool_t *)cl_zalloc(sizeof(*p_pool));
	if (!p_pool)
		return IB_INSUFFICIENT_MEMORY;
	cl_spinlock_construct(&p_pool->lock);
	cl_qlist_init(&p_pool->free_list);
	cl_qlist_init(&p_pool->chunks);
	p_pool->max = max;
	p_pool->grow_size = grow_size;
	if (min) {
		p_chunk = chunk_alloc(p_pool, min);
		if (!p_chunk) {
			cl_free(p_pool);
			return IB_INSUFFICIENT_MEMORY;
		}
		chunk_link(p_pool, p_chunk);
		p_pool->actual = min;
	}
	if (cl_spinlock_init(&p_pool->lock) != CL_SUCCESS) {
		if (p_chunk)
			chunk_free(p_chunk);
		cl_free(p_pool);
		return IB_ERROR;
	}
	al_obj_construct(&p_pool->obj, AL_HDL_MAD_POOL);
	st = al_obj_init(&p_pool->obj, p_parent, NULL, pool_destroying, NULL, pool_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_pool->obj);
		pool_free(&p_pool->obj);
		return st;
	}
	/* A destruction of the parent from now on destroys the pool: this
	 * reference keeps its memory until the end of this function. */
	al_obj_ref(&p_pool->obj);
	st = al_obj_insert_handle(&p_pool->obj);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_pool->obj, NULL);
	} else {
		*pp_pool = p_pool;
		if (ph_pool)
			*ph_pool = (ib_pool_handle_t)al_obj_h(&p_pool->obj);
	}
	al_obj_deref(&p_pool->obj);
	return st;
}

ib_api_status_t ib_create_mad_pool(const ib_al_handle_t h_al, const size_t min, const size_t max,
				   const size_t grow_size, ib_pool_handle_t *const ph_pool)
{
	al_inst_t *p_al = al_inst_enter(h_al);
	al_pool_t *p_pool;
	ib_api_status_t st;

	if (!p_al)
		return IB_INVALID_AL_HANDLE;
	if (!ph_pool) {
		st = IB_INVALID_PARAMETER;
	} else {
		st = al_mad_pool_create(&p_al->obj, min, max, grow_size, &p_pool, ph_pool);
		if (st == IB_INVALID_STATE)
			st = IB_INVALID_AL_HANDLE;
	}
	AL_EXIT(h_al);
	return st;
}

ib_api_status_t ib_destroy_mad_pool(const ib_pool_handle_t h_pool)
{
	al_pool_t *p_pool = (al_pool_t *)AL_ENTER(h_pool, AL_HDL_MAD_POOL);
	boolean_t busy;

	if (!p_pool)
		return IB_INVALID_HANDLE;
	/* Under the lock, so that no get slips in between check and close. */
	cl_spinlock_acquire(&p_pool->lock);
	busy = p_pool->n_out != 0;
	if (!busy)
		p_pool->closing = TRUE;
	cl_spinlock_release(&p_pool->lock);
	AL_EXIT(h_pool);
	if (busy)
		return IB_RESOURCE_BUSY;
	return al_destroy_handle((void *)h_pool, AL_HDL_MAD_POOL, al_sync_unless_cb(),
				 IB_INVALID_HANDLE);
}

ib_api_status_t al_mad_pool_counts(ib_pool_handle_t h_pool, size_t *p_total, size_t *p_out)
{
	al_pool_t *p_pool = (al_pool_t *)AL_ENTER(h_pool, AL_HDL_MAD_POOL);

	if (!p_pool)
		return IB_INVALID_HANDLE;
	cl_spinlock_acquire(&p_pool->lock);
	if (p_total)
		*p_total = p_pool->actual;
	if (p_out)
		*p_out = p_pool->n_out;
	cl_spinlock_release(&p_pool->lock);
	AL_EXIT(h_pool);
	return IB_SUCCESS;
}

/* ---- Keys ---- */

/* Destroyer's thread, before the reference count can drop: no more gets,
 * and the elements out with the key are orphaned, so nothing refers to the
 * key once it is freed. */
static void key_destroying(al_obj_t *p_obj)
{
	al_pool_key_t *p_key = PARENT_STRUCT(p_obj, al_pool_key_t, obj);
	al_pool_t *p_pool = p_key->p_pool;
	cl_list_item_t *it;

	cl_spinlock_acquire(&p_pool->lock);
	p_key->closing = TRUE;
	while ((it = cl_qlist_remove_head(&p_key->out_list)) != cl_qlist_end(&p_key->out_list))
		PARENT_STRUCT(it, al_mad_elem_t, list_item)->p_key = NULL;
	p_key->n_out = 0;
	cl_spinlock_release(&p_pool->lock);
}

/* Calls inside the key have drained: release the pool. */
static void key_cleanup(al_obj_t *p_obj)
{
	al_pool_key_t *p_key = PARENT_STRUCT(p_obj, al_pool_key_t, obj);

	al_obj_deref(&p_key->p_pool->obj);
}

static void key_free(al_obj_t *p_obj)
{
	cl_free(PARENT_STRUCT(p_obj, al_pool_key_t, obj));
}

ib_api_status_t al_pool_key_create(al_pool_t *p_pool, al_pd_t *p_pd, boolean_t internal,
				   al_pool_key_t **pp_key, ib_pool_key_t *ph_key)
{
	al_pool_key_t *p_key;
	ib_api_status_t st;

	p_key = (al_pool_key_t *)cl_zalloc(sizeof(*p_key));
	if (!p_key)
		return IB_INSUFFICIENT_MEMORY;
	p_key->p_pool = p_pool;
	p_key->p_pd = p_pd;
	p_key->internal = internal;
	cl_qlist_init(&p_key->out_list);
	/* Released by key_cleanup once the key is initialized. */
	al_obj_ref(&p_pool->obj);
	al_obj_construct(&p_key->obj, AL_HDL_POOL_KEY);
	st = al_obj_init(&p_key->obj, &p_pd->v.obj, NULL, key_destroying, key_cleanup, key_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_key->obj);
		cl_free(p_key);
		al_obj_deref(&p_pool->obj);
		return st == IB_INVALID_STATE ? IB_INVALID_PD_HANDLE : st;
	}
	/* A destruction of the PD from now on destroys the key: this
	 * reference keeps its memory until the end of this function. */
	al_obj_ref(&p_key->obj);
	if (cl_obj_insert_rel(&p_key->pool_rel, &p_pool->obj.cl_obj, &p_key->obj.cl_obj) !=
	    CL_SUCCESS) {
		st = IB_INVALID_HANDLE;
	} else {
		st = al_obj_insert_handle(&p_key->obj);
		if (st == IB_INVALID_STATE)
			st = IB_INVALID_PD_HANDLE; /* destroyed with the PD meanwhile */
	}
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_key->obj, NULL);
	} else {
		*pp_key = p_key;
		if (ph_key)
			*ph_key = (ib_pool_key_t)al_obj_h(&p_key->obj);
	}
	al_obj_deref(&p_key->obj);
	return st;
}

void al_pool_key_destroy(al_pool_key_t *p_key)
{
	al_obj_destroy(&p_key->obj, NULL);
}

ib_api_status_t ib_reg_mad_pool(const ib_pool_handle_t h_pool, const ib_pd_handle_t h_pd,
				ib_pool_key_t *const p_pool_key)
{
	al_pool_t *p_pool = (al_pool_t *)AL_ENTER(h_pool, AL_HDL_MAD_POOL);
	al_pool_key_t *p_key;
	al_pd_t *p_pd;
	ib_api_status_t st;

	if (!p_pool)
		return IB_INVALID_HANDLE;
	p_pd = (al_pd_t *)AL_ENTER(h_pd, AL_HDL_PD);
	if (!p_pd) {
		AL_EXIT(h_pool);
		return IB_INVALID_PD_HANDLE;
	}
	if (!p_pool_key)
		st = IB_INVALID_PARAMETER;
	else
		st = al_pool_key_create(p_pool, p_pd, FALSE, &p_key, p_pool_key);
	AL_EXIT(h_pd);
	AL_EXIT(h_pool);
	return st;
}

ib_api_status_t ib_dereg_mad_pool(const ib_pool_key_t pool_key)
{
	al_pool_key_t *p_key = (al_pool_key_t *)AL_ENTER(pool_key, AL_HDL_POOL_KEY);
	al_pool_t *p_pool;
	ib_api_status_t st = IB_SUCCESS;

	if (!p_key)
		return IB_INVALID_PARAMETER;
	p_pool = p_key->p_pool;
	cl_spinlock_acquire(&p_pool->lock);
	if (p_key->internal || p_key->closing)
		st = IB_INVALID_PARAMETER;
	else if (p_key->n_out)
		st = IB_RESOURCE_BUSY;
	else
		p_key->closing = TRUE;
	cl_spinlock_release(&p_pool->lock);
	AL_EXIT(pool_key);
	if (st != IB_SUCCESS)
		return st;
	return al_destroy_handle((void *)pool_key, AL_HDL_POOL_KEY, al_sync_unless_cb(),
				 IB_INVALID_PARAMETER);
}

al_pool_key_t *al_mad_elem_key_ref(al_mad_elem_t *p_elem)
{
	al_pool_t *p_pool = p_elem->p_pool;
	al_pool_key_t *p_key;

	/* A key seen under the lock has not run key_destroying, so it still
	 * holds its own reference and may be referenced. */
	cl_spinlock_acquire(&p_pool->lock);
	p_key = p_elem->p_key;
	if (p_key)
		al_obj_ref(&p_key->obj);
	cl_spinlock_release(&p_pool->lock);
	return p_key;
}

/* ---- Elements ---- */

/* Pool lock held: takes a free element for p_key, growing the pool if it
 * may; the lock is released and retaken around the allocation. */
static ib_api_status_t take_locked(al_pool_t *p_pool, al_pool_key_t *p_key,
				   al_mad_elem_t **pp_elem)
{
	al_mad_chunk_t *p_chunk;
	cl_list_item_t *it;
	size_t n;

	for (;;) {
		if (p_key->closing || p_pool->closing)
			return IB_INVALID_PARAMETER;
		it = cl_qlist_remove_head(&p_pool->free_list);
		if (it != cl_qlist_end(&p_pool->free_list))
			break;
		n = p_pool->grow_size;
		if (!n || (p_pool->max && p_pool->actual >= p_pool->max))
			return IB_INSUFFICIENT_RESOURCES;
		if (p_pool->max && n > p_pool->max - p_pool->actual)
			n = p_pool->max - p_pool->actual;
		p_pool->actual += n; /* reserved: concurrent growths respect max */
		cl_spinlock_release(&p_pool->lock);
		p_chunk = chunk_alloc(p_pool, n);
		cl_spinlock_acquire(&p_pool->lock);
		if (!p_chunk) {
			p_pool->actual -= n;
			return IB_INSUFFICIENT_MEMORY;
		}
		chunk_link(p_pool, p_chunk);
	}
	*pp_elem = PARENT_STRUCT(it, al_mad_elem_t, list_item);
	(*pp_elem)->p_key = p_key;
	cl_qlist_insert_tail(&p_key->out_list, it);
	p_key->n_out++;
	p_pool->n_out++;
	return IB_SUCCESS;
}

/* Back on the free list: big buffer released, accounting undone. */
static void give_back(al_mad_elem_t *p_elem)
{
	al_pool_t *p_pool = p_elem->p_pool;
	al_pool_key_t *p_key;

	if (p_elem->p_big_buf) {
		cl_free(p_elem->p_big_buf);
		p_elem->p_big_buf = NULL;
		p_elem->big_cap = 0;
	}
	cl_spinlock_acquire(&p_pool->lock);
	p_key = p_elem->p_key;
	if (p_key) {
		cl_qlist_remove_item(&p_key->out_list, &p_elem->list_item);
		p_key->n_out--;
		p_elem->p_key = NULL;
	}
	p_pool->n_out--;
	__atomic_store_n(&p_elem->magic, AL_MAD_MAGIC_FREE, __ATOMIC_RELEASE);
	cl_qlist_insert_head(&p_pool->free_list, &p_elem->list_item);
	cl_spinlock_release(&p_pool->lock);
}

ib_api_status_t al_mad_pool_get(al_pool_key_t *p_key, size_t buf_size, al_mad_elem_t **pp_elem)
{
	al_pool_t *p_pool = p_key->p_pool;
	al_mad_elem_t *p_elem;
	ib_api_status_t st;

	if (!buf_size)
		return IB_INVALID_PARAMETER;
	if (buf_size >= 0xFFFFFFFFu)
		return IB_INVALID_SETTING;
	cl_spinlock_acquire(&p_pool->lock);
	st = take_locked(p_pool, p_key, &p_elem);
	cl_spinlock_release(&p_pool->lock);
	if (st != IB_SUCCESS)
		return st;

	memset(&p_elem->element, 0, sizeof(p_elem->element));
	memset(p_elem->buf, 0, sizeof(p_elem->buf));
	memset(&p_elem->svc_item, 0, sizeof(p_elem->svc_item));
	p_elem->svc_context = NULL;
	if (buf_size > MAD_BLOCK_SIZE) {
		p_elem->p_big_buf = (ib_mad_t *)cl_zalloc(buf_size);
		if (!p_elem->p_big_buf) {
			give_back(p_elem);
			return IB_INSUFFICIENT_MEMORY;
		}
		p_elem->big_cap = buf_size;
		p_elem->element.p_mad_buf = p_elem->p_big_buf;
	} else {
		p_elem->element.p_mad_buf = (ib_mad_t *)(p_elem->buf + sizeof(ib_grh_t));
	}
	p_elem->element.size = (uint32_t)buf_size;
	p_elem->element.p_grh = (ib_grh_t *)p_elem->buf;
	__atomic_store_n(&p_elem->magic, AL_MAD_MAGIC_OUT, __ATOMIC_RELEASE);
	*pp_elem = p_elem;
	return IB_SUCCESS;
}

void al_mad_pool_put(al_mad_elem_t *p_elem)
{
	CL_ASSERT(__atomic_load_n(&p_elem->magic, __ATOMIC_RELAXED) == AL_MAD_MAGIC_OUT);
	give_back(p_elem);
}

ib_api_status_t al_mad_elem_resize(al_mad_elem_t *p_elem, size_t buf_size)
{
	ib_mad_element_t *p_e = &p_elem->element;
	size_t cap = p_elem->p_big_buf ? p_elem->big_cap : MAD_BLOCK_SIZE;
	uint8_t *p_new;

	if (!buf_size)
		return IB_INVALID_PARAMETER;
	if (buf_size >= 0xFFFFFFFFu)
		return IB_INVALID_SETTING;
	if (buf_size > cap) {
		p_new = (uint8_t *)cl_malloc(buf_size);
		if (!p_new)
			return IB_INSUFFICIENT_MEMORY;
		memcpy(p_new, p_e->p_mad_buf, p_e->size);
		memset(p_new + p_e->size, 0, buf_size - p_e->size);
		if (p_elem->p_big_buf)
			cl_free(p_elem->p_big_buf);
		p_elem->p_big_buf = (ib_mad_t *)p_new;
		p_elem->big_cap = buf_size;
		p_e->p_mad_buf = p_elem->p_big_buf;
	} else if (buf_size > p_e->size) {
		memset((uint8_t *)p_e->p_mad_buf + p_e->size, 0, buf_size - p_e->size);
	}
	p_e->size = (uint32_t)buf_size;
	return IB_SUCCESS;
}

ib_api_status_t ib_get_mad(const ib_pool_key_t pool_key, const size_t buf_size,
			   ib_mad_element_t **pp_mad_element)
{
	al_pool_key_t *p_key = (al_pool_key_t *)AL_ENTER(pool_key, AL_HDL_POOL_KEY);
	al_mad_elem_t *p_elem;
	ib_api_status_t st;

	if (!p_key)
		return IB_INVALID_PARAMETER;
	if (!pp_mad_element) {
		st = IB_INVALID_PARAMETER;
	} else {
		st = al_mad_pool_get(p_key, buf_size, &p_elem);
		if (st == IB_SUCCESS)
			*pp_mad_element = &p_elem->element;
	}
	AL_EXIT(pool_key);
	return st;
}

/* Gives the first n claimed elements of a list back their OUT mark. */
static void unclaim(const ib_mad_element_t *p_list, size_t n)
{
	for (; n; n--, p_list = p_list->p_next)
		__atomic_store_n(&al_mad_elem_from_ib(p_list)->magic, AL_MAD_MAGIC_OUT,
				 __ATOMIC_RELEASE);
}

ib_api_status_t ib_put_mad(const ib_mad_element_t *p_mad_element_list)
{
	const ib_mad_element_t *p_e, *p_next;
	al_mad_elem_t *p_elem;
	uint32_t want;
	size_t n = 0;

	if (!p_mad_element_list)
		return IB_INVALID_PARAMETER;
	/* Claim every element (OUT -> PUT) before returning any: an element
	 * not out, or met twice (a list that loops), fails the claim, and so
	 * does one that ib_send_mad() has (its send record is part of it,
	 * al_mad.c): it comes back in its send callback. The claim and the look
	 * at svc_context are sequentially consistent, as ib_send_mad()'s claim
	 * of svc_context and its look at the magic, so that of a put and a send
	 * of one element at once, at least one is refused. */
	for (p_e = p_mad_element_list; p_e; p_e = p_e->p_next, n++) {
		p_elem = al_mad_elem_from_ib(p_e);
		want = AL_MAD_MAGIC_OUT;
		if (!al_mad_elem_known(p_e) || p_elem->p_self != p_elem ||
		    !__atomic_compare_exchange_n(&p_elem->magic, &want, AL_MAD_MAGIC_PUT, 0,
						 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
			unclaim(p_mad_element_list, n);
			return IB_INVALID_PARAMETER;
		}
		if (__atomic_load_n(&p_elem->svc_context, __ATOMIC_SEQ_CST)) {
			unclaim(p_mad_element_list, n + 1);
			return IB_INVALID_PARAMETER;
		}
	}
	for (p_e = p_mad_element_list; n; n--, p_e = p_next) {
		p_next = p_e->p_next; /* the element may be reused once given back */
		give_back(al_mad_elem_from_ib(p_e));
	}
	return IB_SUCCESS;
}
