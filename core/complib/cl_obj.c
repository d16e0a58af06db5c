/*
 * ibal complib: the object manager, object references and staged destruction.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Lock order: a parent's lock before its child's lock (down the tree). The
 * manager's lock, the asynchronous processor's lock and sync_wake_lock are
 * innermost. cl_obj_deref takes no object lock, except for objects of the
 * STAY_IN_PARENT_LIST type (their own). No callback runs while any lock of
 * this file is held.
 */
#include <pthread.h>
#include <complib/cl_obj.h>
#include <complib/cl_memory.h>
#include "cl_internal.h"
#include "ibal_log.h"

/* Relationship items added to the manager's pool each time it grows. */
#define REL_POOL_GROW (4096 / sizeof(cl_obj_rel_t))

/* How often a synchronous destroy in a debug build reports that it is still
 * waiting for references to go away. */
#define SYNC_DESTROY_REPORT_US 10000000u

cl_obj_mgr_t *gp_obj_mgr = NULL;

/* Held by the thread that wakes a synchronous destroyer, around the wakeup;
 * the woken destroyer takes it once before it completes (and frees) the
 * object, so it never frees an event still being signalled. Innermost. */
static pthread_mutex_t sync_wake_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- Atomic views of the fields read outside the object's lock ---- */

static cl_state_t obj_state(const cl_obj_t *p_obj)
{
	return __atomic_load_n(&p_obj->state, __ATOMIC_ACQUIRE);
}

static void obj_set_state_raw(cl_obj_t *p_obj, cl_state_t state)
{
	__atomic_store_n(&p_obj->state, state, __ATOMIC_RELEASE);
}

static boolean_t is_async_type(cl_destroy_type_t t)
{
	return t == CL_DESTROY_ASYNC || t == CL_DESTROY_ASYNC_KEEP_CHILDREN ||
	       t == CL_DESTROY_ASYNC_KEEP_CHILDREN_STAY_IN_PARENT_LIST_TILL_FREE;
}

static boolean_t is_sync_type(cl_destroy_type_t t)
{
	return t == CL_DESTROY_SYNC || t == CL_DESTROY_SYNC_KEEP_CHILDREN;
}

static boolean_t keeps_children(cl_destroy_type_t t)
{
	return t == CL_DESTROY_SYNC_KEEP_CHILDREN || t == CL_DESTROY_ASYNC_KEEP_CHILDREN ||
	       t == CL_DESTROY_ASYNC_KEEP_CHILDREN_STAY_IN_PARENT_LIST_TILL_FREE;
}

static boolean_t stays_in_parents(cl_destroy_type_t t)
{
	return t == CL_DESTROY_ASYNC_KEEP_CHILDREN_STAY_IN_PARENT_LIST_TILL_FREE;
}

static cl_obj_rel_t *rel_of_child_item(cl_list_item_t *it)
{
	return PARENT_STRUCT(it, cl_obj_rel_t, pool_item.list_item);
}

static cl_obj_rel_t *rel_of_parent_item(cl_list_item_t *it)
{
	return PARENT_STRUCT(it, cl_obj_rel_t, list_item);
}

/* ---- The global object manager ---- */

cl_status_t cl_obj_mgr_create(void)
{
	cl_obj_mgr_t *mgr;
	cl_status_t status;

	if (gp_obj_mgr)
		return CL_SUCCESS;
	mgr = (cl_obj_mgr_t *)cl_zalloc(sizeof(*mgr));
	if (!mgr)
		return CL_INSUFFICIENT_MEMORY;
	cl_qlist_init(&mgr->obj_list);
	cl_spinlock_construct(&mgr->lock);
	cl_async_proc_construct(&mgr->async_proc_mgr);
	cl_qpool_construct(&mgr->rel_pool);
	gp_obj_mgr = mgr;

	status = cl_spinlock_init(&mgr->lock);
	if (status == CL_SUCCESS)
		status = cl_async_proc_init(&mgr->async_proc_mgr, 0, "obj_mgr");
	if (status == CL_SUCCESS)
		status = cl_qpool_init(&mgr->rel_pool, 0, 0, REL_POOL_GROW, sizeof(cl_obj_rel_t),
				       NULL, NULL, mgr);
	if (status != CL_SUCCESS)
		cl_obj_mgr_destroy();
	return status;
}

/*
 * An object is on the manager's list exactly while its link's p_next is set:
 * cl_obj_construct() clears the object, and this clears the link when the
 * object leaves the list (or the list goes away with its manager).
 */
static void untracked(cl_list_item_t *it)
{
	it->p_next = NULL;
	it->p_prev = NULL;
}

void cl_obj_mgr_destroy(void)
{
	cl_obj_mgr_t *mgr = gp_obj_mgr;
	cl_list_item_t *it, *next;
	cl_obj_t *p_obj;

	if (!mgr)
		return;
	/* Complete the queued asynchronous destructions first: they still need
	 * the manager's lock, list and pool. */
	cl_async_proc_destroy(&mgr->async_proc_mgr);

	for (it = cl_qlist_head(&mgr->obj_list); it != cl_qlist_end(&mgr->obj_list); it = next) {
		next = cl_qlist_next(it);
		p_obj = PARENT_STRUCT(it, cl_obj_t, pool_item.list_item);
		IBAL_WARN(IBAL_SUB_COMPLIB, "object not destroyed %p (type %u), ref_cnt %d",
			  (void *)p_obj, p_obj->type,
			  (int)__atomic_load_n(&p_obj->ref_cnt, __ATOMIC_RELAXED));
		/* Forget it: its later deinit must not touch the freed list. */
		untracked(it);
	}
	cl_qpool_destroy(&mgr->rel_pool);
	cl_spinlock_destroy(&mgr->lock);
	gp_obj_mgr = NULL;
	cl_free(mgr);
}

cl_obj_rel_t *cl_rel_alloc(void)
{
	cl_pool_item_t *p_item;

	CL_ASSERT(gp_obj_mgr);
	if (!gp_obj_mgr)
		return NULL;
	cl_spinlock_acquire(&gp_obj_mgr->lock);
	p_item = cl_qpool_get(&gp_obj_mgr->rel_pool);
	cl_spinlock_release(&gp_obj_mgr->lock);
	return p_item ? PARENT_STRUCT(p_item, cl_obj_rel_t, pool_item) : NULL;
}

void cl_rel_free(cl_obj_rel_t *const p_rel)
{
	CL_ASSERT(gp_obj_mgr && p_rel);
	cl_spinlock_acquire(&gp_obj_mgr->lock);
	cl_qpool_put(&gp_obj_mgr->rel_pool, &p_rel->pool_item);
	cl_spinlock_release(&gp_obj_mgr->lock);
}

static void track_obj(cl_obj_t *p_obj)
{
	CL_ASSERT(gp_obj_mgr);
	if (!gp_obj_mgr)
		return;	/* untracked: deinit sees p_next == NULL (construct cleared it) */
	cl_spinlock_acquire(&gp_obj_mgr->lock);
	cl_qlist_insert_tail(&gp_obj_mgr->obj_list, &p_obj->pool_item.list_item);
	cl_spinlock_release(&gp_obj_mgr->lock);
}

static void untrack_obj(cl_obj_t *p_obj)
{
	cl_list_item_t *it = &p_obj->pool_item.list_item;

	if (!gp_obj_mgr)
		return;
	cl_spinlock_acquire(&gp_obj_mgr->lock);
	if (it->p_next) {
		cl_qlist_remove_item(&gp_obj_mgr->obj_list, it);
		untracked(it);
	}
	cl_spinlock_release(&gp_obj_mgr->lock);
}

/* ---- Objects ---- */

static void CL_API destroy_cb(cl_async_proc_item_t *p_item);

void cl_obj_construct(cl_obj_t *const p_obj, const uint32_t obj_type)
{
	CL_ASSERT(p_obj);
	cl_memclr(p_obj, sizeof(*p_obj));
	cl_spinlock_construct(&p_obj->lock);
	cl_event_construct(&p_obj->event);
	p_obj->state = CL_UNINITIALIZED;
	p_obj->type = obj_type;
	cl_qlist_init(&p_obj->parent_list);
	cl_qlist_init(&p_obj->child_list);
	track_obj(p_obj);
}

cl_status_t cl_obj_init(cl_obj_t *const p_obj, cl_destroy_type_t destroy_type,
			const cl_pfn_obj_call_t pfn_destroying, const cl_pfn_obj_call_t pfn_cleanup,
			const cl_pfn_obj_call_t pfn_free)
{
	cl_status_t status;

	CL_ASSERT(p_obj && pfn_free);
	CL_ASSERT(p_obj->state == CL_UNINITIALIZED);
	p_obj->ref_cnt = 1;
	p_obj->pfn_destroying = pfn_destroying;
	p_obj->pfn_cleanup = pfn_cleanup;
	p_obj->pfn_free = pfn_free;
	p_obj->destroy_type = destroy_type;
	p_obj->async_item.pfn_callback = destroy_cb;

	status = cl_spinlock_init(&p_obj->lock);
	if (status != CL_SUCCESS)
		return status;
	status = cl_event_init(&p_obj->event, FALSE);
	if (status != CL_SUCCESS)
		return status;
	obj_set_state_raw(p_obj, CL_INITIALIZED);
	return CL_SUCCESS;
}

/* Moves an initialized object to CL_DESTROYING; TRUE if this call did it,
 * which makes the caller the one thread that destroys the object. */
static boolean_t claim_destruction(cl_obj_t *p_obj)
{
	boolean_t claimed;

	/* Not initialized (its lock may not be either), or already claimed. */
	if (obj_state(p_obj) != CL_INITIALIZED)
		return FALSE;
	cl_spinlock_acquire(&p_obj->lock);
	claimed = (p_obj->state == CL_INITIALIZED);
	if (claimed)
		obj_set_state_raw(p_obj, CL_DESTROYING);
	cl_spinlock_release(&p_obj->lock);
	return claimed;
}

/* Takes the object off the child lists of all its parents and drops the
 * references the relationships held on it. The relationships stay on the
 * object's parent_list, and keep their reference on the parent, until the
 * object completes. Nobody else changes the parent_list of an object being
 * destroyed: insertion needs an initialized child. */
static void leave_parents(cl_obj_t *p_obj)
{
	cl_list_item_t *it;
	cl_obj_rel_t *p_rel;
	cl_obj_t *parent;

	for (it = cl_qlist_tail(&p_obj->parent_list); it != cl_qlist_end(&p_obj->parent_list);
	     it = cl_qlist_prev(it)) {
		p_rel = rel_of_parent_item(it);
		if (!p_rel->p_child_obj)
			continue;	/* already left */
		parent = p_rel->p_parent_obj;
		cl_spinlock_acquire(&parent->lock);
		cl_qlist_remove_item(&parent->child_list, &p_rel->pool_item.list_item);
		p_rel->p_child_obj = NULL;
		cl_spinlock_release(&parent->lock);
		cl_atomic_dec(&p_obj->ref_cnt);
	}
}

/* Under the parent's lock, finds a child (from the most recent) that is
 * still initialized and marks it destroying, under its own lock. Children
 * already destroying belong to whoever marked them. The child's own
 * reference keeps it alive until its destruction, which the caller runs. */
static cl_obj_t *claim_next_child(cl_obj_t *p_obj)
{
	cl_list_item_t *it;
	cl_obj_t *child;
	boolean_t claimed;

	for (it = cl_qlist_tail(&p_obj->child_list); it != cl_qlist_end(&p_obj->child_list);
	     it = cl_qlist_prev(it)) {
		child = rel_of_child_item(it)->p_child_obj;
		cl_spinlock_acquire(&child->lock);
		claimed = (child->state == CL_INITIALIZED);
		if (claimed)
			obj_set_state_raw(child, CL_DESTROYING);
		cl_spinlock_release(&child->lock);
		if (claimed)
			return child;
	}
	return NULL;
}

static void destroy_claimed(cl_obj_t *p_obj);

static void destroy_children(cl_obj_t *p_obj)
{
	cl_obj_t *child;

	for (;;) {
		cl_spinlock_acquire(&p_obj->lock);
		child = claim_next_child(p_obj);
		cl_spinlock_release(&p_obj->lock);
		if (!child)
			return;
		destroy_claimed(child);
	}
}

/* Blocks until the object's last reference is gone. The deref that drops it
 * to zero signals the event exactly once, after its decrement. */
static void wait_unreferenced(cl_obj_t *p_obj)
{
	cl_status_t status;

	for (;;) {
#ifdef _DEBUG_
		status = cl_event_wait_on(&p_obj->event, SYNC_DESTROY_REPORT_US, FALSE);
		if (status == CL_TIMEOUT)
			cl_out_printf("complib: sync destroy of object %p (type %u) still "
				      "waits, ref_cnt %d\n", (void *)p_obj, p_obj->type,
				      (int)__atomic_load_n(&p_obj->ref_cnt, __ATOMIC_RELAXED));
#else
		status = cl_event_wait_on(&p_obj->event, EVENT_NO_TIMEOUT, FALSE);
#endif
		if (status != CL_TIMEOUT && status != CL_NOT_DONE)
			return;
	}
}

/* Destroys an object this thread has moved to CL_DESTROYING. */
static void destroy_claimed(cl_obj_t *p_obj)
{
	cl_destroy_type_t type = p_obj->destroy_type;
	int32_t ref_cnt;

	CL_ASSERT(obj_state(p_obj) == CL_DESTROYING);
	if (!stays_in_parents(type))
		leave_parents(p_obj);
	if (p_obj->pfn_destroying)
		p_obj->pfn_destroying(p_obj);
	if (!keeps_children(type))
		destroy_children(p_obj);

	/* Drop the object's own reference. For an asynchronous object this may
	 * queue its completion, after which p_obj must not be touched. */
	ref_cnt = cl_obj_deref(p_obj);
	if (!is_sync_type(type))
		return;
	if (ref_cnt) {
		wait_unreferenced(p_obj);
		/* Wait for the waking thread to be done with the event. */
		pthread_mutex_lock(&sync_wake_lock);
		pthread_mutex_unlock(&sync_wake_lock);
	} else {
		cl_event_reset(&p_obj->event);	/* our own deref signalled it */
	}
	destroy_cb(&p_obj->async_item);
}

void cl_obj_destroy(cl_obj_t *p_obj)
{
	CL_ASSERT(p_obj);
	if (claim_destruction(p_obj))
		destroy_claimed(p_obj);
}

/* Clears every relationship's parent pointer and dereferences all parents
 * but the last, which is returned: it is dereferenced after pfn_free. */
static cl_obj_t *release_parents(cl_obj_t *p_obj)
{
	cl_list_item_t *it, *next;
	cl_obj_rel_t *p_rel;
	cl_obj_t *parent;

	for (it = cl_qlist_head(&p_obj->parent_list); it != cl_qlist_end(&p_obj->parent_list);
	     it = next) {
		next = cl_qlist_next(it);
		p_rel = rel_of_parent_item(it);
		parent = p_rel->p_parent_obj;
		p_rel->p_parent_obj = NULL;
		CL_ASSERT(!p_rel->p_child_obj);
		if (next == cl_qlist_end(&p_obj->parent_list))
			return parent;
		cl_obj_deref(parent);
	}
	return NULL;
}

/* Completes an unreferenced object: cleanup, parents, free. */
static void CL_API destroy_cb(cl_async_proc_item_t *p_item)
{
	cl_obj_t *p_obj = PARENT_STRUCT(p_item, cl_obj_t, async_item);
	cl_obj_t *last_parent;

	CL_ASSERT(obj_state(p_obj) == CL_DESTROYING);
	if (p_obj->pfn_cleanup)
		p_obj->pfn_cleanup(p_obj);
	if (stays_in_parents(p_obj->destroy_type))
		leave_parents(p_obj);
	CL_ASSERT(__atomic_load_n(&p_obj->ref_cnt, __ATOMIC_ACQUIRE) == 0);
	last_parent = release_parents(p_obj);
	CL_ASSERT(p_obj->pfn_free);
	p_obj->pfn_free(p_obj);
	if (last_parent)
		cl_obj_deref(last_parent);
}

void cl_obj_deinit(cl_obj_t *const p_obj)
{
	CL_ASSERT(p_obj);
	CL_ASSERT(p_obj->state == CL_UNINITIALIZED || p_obj->state == CL_DESTROYING);
	CL_ASSERT(cl_is_qlist_empty(&p_obj->child_list));
#ifdef _DEBUG_
	{
		/* Items of the manager's pool must have been taken off the parent
		 * list (and freed) by now; user-owned items may stay. */
		cl_list_item_t *it;

		for (it = cl_qlist_head(&p_obj->parent_list);
		     it != cl_qlist_end(&p_obj->parent_list); it = cl_qlist_next(it))
			CL_ASSERT(!gp_obj_mgr || rel_of_parent_item(it)->pool_item.p_pool !=
							 &gp_obj_mgr->rel_pool.qcpool);
	}
#endif
	untrack_obj(p_obj);
	cl_event_destroy(&p_obj->event);
	cl_spinlock_destroy(&p_obj->lock);
	obj_set_state_raw(p_obj, CL_DESTROYED);
}

void cl_obj_reset(cl_obj_t *const p_obj)
{
	CL_ASSERT(p_obj);
	CL_ASSERT(p_obj->ref_cnt == 0);
	CL_ASSERT(p_obj->state == CL_DESTROYING);
	__atomic_store_n(&p_obj->ref_cnt, 1, __ATOMIC_RELAXED);
	cl_qlist_remove_all(&p_obj->parent_list);
	cl_qlist_remove_all(&p_obj->child_list);
	obj_set_state_raw(p_obj, CL_INITIALIZED);
}

/* ---- Relationships ---- */

cl_status_t cl_obj_insert_rel(cl_obj_rel_t *const p_rel, cl_obj_t *const p_parent_obj,
			      cl_obj_t *const p_child_obj)
{
	cl_status_t status;

	CL_ASSERT(p_rel && p_parent_obj && p_child_obj);
	if (obj_state(p_parent_obj) != CL_INITIALIZED)
		return CL_INVALID_STATE;	/* its lock may not be initialized */
	cl_spinlock_acquire(&p_parent_obj->lock);
	status = cl_obj_insert_rel_parent_locked(p_rel, p_parent_obj, p_child_obj);
	cl_spinlock_release(&p_parent_obj->lock);
	return status;
}

cl_status_t cl_obj_insert_rel_parent_locked(cl_obj_rel_t *const p_rel,
					    cl_obj_t *const p_parent_obj,
					    cl_obj_t *const p_child_obj)
{
	CL_ASSERT(p_rel && p_parent_obj && p_child_obj && p_parent_obj != p_child_obj);
	if (p_parent_obj->state != CL_INITIALIZED || obj_state(p_child_obj) != CL_INITIALIZED)
		return CL_INVALID_STATE;

	/* Both lists change under the child's lock (and the parent's, held by
	 * the caller), so the relationship appears in both at once. */
	cl_spinlock_acquire(&p_child_obj->lock);
	if (p_child_obj->state != CL_INITIALIZED) {
		cl_spinlock_release(&p_child_obj->lock);
		return CL_INVALID_STATE;
	}
	cl_atomic_inc(&p_parent_obj->ref_cnt);
	cl_atomic_inc(&p_child_obj->ref_cnt);
	p_rel->p_parent_obj = p_parent_obj;
	p_rel->p_child_obj = p_child_obj;
	cl_qlist_insert_tail(&p_child_obj->parent_list, &p_rel->list_item);
	cl_qlist_insert_tail(&p_parent_obj->child_list, &p_rel->pool_item.list_item);
	cl_spinlock_release(&p_child_obj->lock);
	return CL_SUCCESS;
}

void cl_obj_remove_rel(cl_obj_rel_t *const p_rel)
{
	cl_obj_t *parent, *child;

	CL_ASSERT(p_rel && p_rel->p_child_obj && p_rel->p_parent_obj);
	parent = p_rel->p_parent_obj;
	child = p_rel->p_child_obj;

	cl_spinlock_acquire(&parent->lock);
	cl_spinlock_acquire(&child->lock);
	cl_qlist_remove_item(&child->parent_list, &p_rel->list_item);
	cl_qlist_remove_item(&parent->child_list, &p_rel->pool_item.list_item);
	p_rel->p_child_obj = NULL;
	p_rel->p_parent_obj = NULL;
	cl_spinlock_release(&child->lock);
	cl_spinlock_release(&parent->lock);

	cl_obj_deref(parent);
	cl_obj_deref(child);
}

/* ---- References ---- */

int32_t cl_obj_ref(cl_obj_t *const p_obj)
{
	CL_ASSERT(p_obj);
	/* Destroying objects may still be referenced: parents and children
	 * synchronize their destruction through references. */
	CL_ASSERT(__cl_obj_is_live(p_obj));
	return cl_atomic_inc(&p_obj->ref_cnt);
}

/* Hands an unreferenced asynchronous object to the manager's processor. */
static void queue_completion(cl_obj_t *p_obj)
{
	CL_ASSERT(gp_obj_mgr);
	if (gp_obj_mgr)
		cl_async_proc_queue(&gp_obj_mgr->async_proc_mgr, &p_obj->async_item);
	else
		destroy_cb(&p_obj->async_item);	/* no manager: complete in place */
}

/* Dereference of a CL_DESTROY_ASYNC_KEEP_CHILDREN_STAY_IN_PARENT_LIST_TILL_FREE
 * object: it completes once the only references left are those of its parent
 * relationships. The count and the list length are compared under the
 * object's lock, under which the list changes, so exactly one deref sees the
 * two meet; the completion cannot run before this thread queues it. */
static int32_t deref_staying(cl_obj_t *p_obj)
{
	int32_t ref_cnt;
	boolean_t complete;

	cl_spinlock_acquire(&p_obj->lock);
	ref_cnt = cl_atomic_dec(&p_obj->ref_cnt);
	complete = p_obj->state == CL_DESTROYING &&
		   ref_cnt == (int32_t)cl_qlist_count(&p_obj->parent_list);
	cl_spinlock_release(&p_obj->lock);
	if (complete)
		queue_completion(p_obj);
	return ref_cnt;
}

int32_t cl_obj_deref(cl_obj_t *const p_obj)
{
	/* Read the type before the decrement: once it is done, another thread
	 * may complete and free the object. */
	cl_destroy_type_t type;
	int32_t ref_cnt;

	CL_ASSERT(p_obj && __cl_obj_is_live(p_obj));
	type = p_obj->destroy_type;
	if (stays_in_parents(type))
		return deref_staying(p_obj);

	ref_cnt = cl_atomic_dec(&p_obj->ref_cnt);
	CL_ASSERT(ref_cnt >= 0);
	if (ref_cnt == 0) {
		/* The last reference: nobody else may touch the object now. */
		CL_ASSERT(obj_state(p_obj) == CL_DESTROYING);
		if (is_async_type(type)) {
			queue_completion(p_obj);
		} else {
			pthread_mutex_lock(&sync_wake_lock);
			cl_event_signal(&p_obj->event);
			pthread_mutex_unlock(&sync_wake_lock);
		}
	}
	return ref_cnt;
}
