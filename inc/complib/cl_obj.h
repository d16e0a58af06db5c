/*
 * ibal complib: reference-counted objects with parent/child destruction.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_obj.h
 * @brief Objects: reference counting, dependent (parent/child) relationships
 * and staged, optionally asynchronous, destruction.
 *
 * A global object manager (cl_obj_mgr_create()) tracks every constructed
 * object, supplies relationship items and owns the asynchronous processor
 * that completes asynchronous destructions.
 *
 * Life of an object: cl_obj_construct(), cl_obj_init() (the object then holds
 * one reference on itself), use, cl_obj_destroy(), and finally cl_obj_deinit()
 * (or cl_obj_reset() to reuse it) from the pfn_free callback.
 *
 * A relationship (cl_obj_rel_t, cl_obj_insert_rel()) makes a child depend on
 * a parent; it holds one reference on each. An object may have many parents
 * and many children, but the relationships must form no cycle.
 *
 * cl_obj_destroy() marks the object CL_DESTROYING (only the first call on an
 * initialized object has an effect), then, in the calling thread:
 *  -# detaches the object from all its parents (the parents stay referenced
 *     until the object is freed) and drops the references the relationships
 *     held on it;
 *  -# invokes pfn_destroying;
 *  -# destroys each child that is not already being destroyed, the same way
 *     (unless the destroy type keeps the children);
 *  -# drops the object's own reference.
 *
 * When the last reference is gone (a child's relationship holds a reference
 * on its parent until the child has been freed, so children always finish
 * first), the object completes: pfn_cleanup, then each parent but the last
 * is dereferenced, then pfn_free, then the last parent is dereferenced.
 * CL_DESTROY_SYNC objects complete in the thread that called
 * cl_obj_destroy(), which blocks until the last reference is released;
 * CL_DESTROY_ASYNC objects complete on a thread of the manager's
 * asynchronous processor, queued by whoever releases the last reference.
 *
 * No callback is ever invoked while a lock of this module is held, so
 * callbacks may call any cl_obj function (within the rules above).
 *
 * Thread safety: every function may be called from any thread.
 * cl_obj_ref() and cl_obj_deref() are lock-free; the caller of any function
 * must itself hold a reference (or otherwise know the object cannot
 * complete its destruction meanwhile). cl_obj_mgr_create() and
 * cl_obj_mgr_destroy() must not run concurrently with any other call.
 */
#ifndef __CL_OBJ_H__
#define __CL_OBJ_H__

#include <complib/cl_async_proc.h>
#include <complib/cl_atomic.h>
#include <complib/cl_event.h>
#include <complib/cl_qlist.h>
#include <complib/cl_qpool.h>
#include <complib/cl_spinlock.h>

/** Pointer to an object (upstream's forward declaration). */
typedef struct _cl_obj *__p_cl_obj_t;

/** The global object manager. Create it with cl_obj_mgr_create(). */
typedef struct _cl_obj_mgr {
	cl_qlist_t obj_list;            /**< Every constructed, not yet deinitialized object. */
	cl_spinlock_t lock;             /**< Protects obj_list and rel_pool. */
	cl_async_proc_t async_proc_mgr; /**< Runs asynchronous destructions; users may queue work too. */
	cl_qpool_t rel_pool;            /**< Pool of cl_obj_rel_t served by cl_rel_alloc(). */
} cl_obj_mgr_t;

#ifdef __cplusplus
extern "C" {
#endif

/** The global object manager; NULL until cl_obj_mgr_create() succeeds. */
extern cl_obj_mgr_t *gp_obj_mgr;

/**
 * Creates the global object manager, with an asynchronous processor of one
 * thread per processor. Does nothing when the manager exists already.
 * @return CL_SUCCESS; CL_INSUFFICIENT_MEMORY when memory ran out; the
 *         failing status of the lock, processor or pool initialization.
 */
CL_EXPORT cl_status_t CL_API cl_obj_mgr_create(void);

/**
 * Destroys the global object manager. First completes the asynchronous
 * destructions still queued, then writes one diagnostic line for each object
 * that was never deinitialized, and frees the manager. Does nothing when no
 * manager exists.
 */
CL_EXPORT void CL_API cl_obj_mgr_destroy(void);

/**
 * Destruction callback of an object.
 * @param p_obj the object.
 */
typedef void (CL_API *cl_pfn_obj_call_t)(IN struct _cl_obj *p_obj);

/** How an object completes its destruction. */
typedef enum _cl_destroy_type {
	/** Complete on the manager's asynchronous processor once unreferenced. */
	CL_DESTROY_ASYNC,
	/** cl_obj_destroy() blocks until unreferenced and completes in its thread. */
	CL_DESTROY_SYNC,
	/** As CL_DESTROY_SYNC, but children are not destroyed with the object. */
	CL_DESTROY_SYNC_KEEP_CHILDREN,
	/** As CL_DESTROY_ASYNC, but children are not destroyed with the object. */
	CL_DESTROY_ASYNC_KEEP_CHILDREN,
	/**
	 * As CL_DESTROY_ASYNC_KEEP_CHILDREN, but the object stays on its parents'
	 * child lists until it completes: completion is queued once the only
	 * references left are the ones its parent relationships hold.
	 */
	CL_DESTROY_ASYNC_KEEP_CHILDREN_STAY_IN_PARENT_LIST_TILL_FREE
} cl_destroy_type_t;

/** Object. Embed it in your own structure; treat the fields as read-only. */
typedef struct _cl_obj {
	cl_pool_item_t pool_item;         /**< Links the object on the manager's list; must be first. */
	uint32_t type;                    /**< User-defined type given to cl_obj_construct(). */
	cl_state_t state;                 /**< CL_UNINITIALIZED, CL_INITIALIZED, CL_DESTROYING, CL_DESTROYED. */
	cl_destroy_type_t destroy_type;   /**< How the object completes its destruction. */
	cl_async_proc_item_t async_item;  /**< Queued to complete an asynchronous destruction. */
	cl_event_t event;                 /**< Wakes a synchronous destroy when unreferenced. */
	cl_pfn_obj_call_t pfn_destroying; /**< Called as destruction starts; may be NULL. */
	cl_pfn_obj_call_t pfn_cleanup;    /**< Called once unreferenced; may be NULL. */
	cl_pfn_obj_call_t pfn_free;       /**< Called last; must deinit or reset the object. */
	cl_spinlock_t lock;               /**< The object's lock (cl_obj_lock()). */
	cl_qlist_t parent_list;           /**< Relationships to parents (cl_obj_rel_t::list_item). */
	cl_qlist_t child_list;            /**< Relationships to children (cl_obj_rel_t::pool_item). */
	atomic32_t ref_cnt;               /**< Reference count. */
} cl_obj_t;

/**
 * Prepares an object: clears it, records its type and tracks it with the
 * manager. Cannot fail. Create the manager first.
 * @param p_obj the object.
 * @param obj_type a user-defined type, returned by cl_obj_type().
 */
CL_EXPORT void CL_API cl_obj_construct(IN cl_obj_t *const p_obj, IN const uint32_t obj_type);

/**
 * Initializes a constructed object. On success the object is CL_INITIALIZED
 * and holds one reference on itself, dropped by cl_obj_destroy().
 * @param p_obj a constructed object.
 * @param destroy_type how the object completes its destruction.
 * @param pfn_destroying called in the destroying thread once the object has
 *        left its parents and before its children are destroyed; may be NULL.
 * @param pfn_cleanup called once all children are freed and no reference
 *        remains (on the asynchronous processor for asynchronous types); may
 *        be NULL.
 * @param pfn_free called last; it must call cl_obj_deinit() or
 *        cl_obj_reset(). The relationship items of the object's parents are
 *        still on p_obj->parent_list then, for the user to release.
 * @return CL_SUCCESS; otherwise the failing status of the lock or event
 *         initialization (call cl_obj_deinit() to release the object).
 */
CL_EXPORT cl_status_t CL_API cl_obj_init(IN cl_obj_t *const p_obj,
					 IN cl_destroy_type_t destroy_type,
					 IN const cl_pfn_obj_call_t pfn_destroying OPTIONAL,
					 IN const cl_pfn_obj_call_t pfn_cleanup OPTIONAL,
					 IN const cl_pfn_obj_call_t pfn_free);

/**
 * Starts destroying an object and its children (see the file description).
 * Only the first call on an initialized object has an effect; later calls,
 * from any thread, and calls on an object never initialized, return at once.
 * The destroyer of a synchronous object (or of an object with synchronous
 * descendants) blocks until those are freed: it must not hold a reference
 * on them, and should not run on the manager's asynchronous processor when
 * that wait depends on asynchronous completions.
 * @param p_obj the object.
 */
CL_EXPORT void CL_API cl_obj_destroy(IN cl_obj_t *p_obj);

/**
 * Releases an object's resources and stops tracking it. Call it from pfn_free
 * (or after a failed cl_obj_init()); the object is CL_DESTROYED afterwards
 * and its memory may be released.
 * @param p_obj the object.
 */
CL_EXPORT void CL_API cl_obj_deinit(IN cl_obj_t *const p_obj);

/**
 * Makes a destroyed object usable again, initialized with the same callbacks
 * and one reference; its relationship lists are emptied. Call it from
 * pfn_free instead of cl_obj_deinit().
 * @param p_obj the object.
 */
CL_EXPORT void CL_API cl_obj_reset(IN cl_obj_t *const p_obj);

/**
 * Takes a reference on an object. Lock-free.
 * @param p_obj an initialized or destroying object.
 * @return the new reference count.
 */
CL_EXPORT int32_t CL_API cl_obj_ref(IN cl_obj_t *const p_obj);

/**
 * Releases a reference on an object. Releasing the last reference of a
 * destroying object completes it: a synchronous destroyer is woken, an
 * asynchronous object is queued to the manager's processor, so no callback
 * runs in the caller's thread (unless no manager exists: an asynchronous
 * object then completes in place). Takes no object lock, except for a
 * CL_DESTROY_ASYNC_KEEP_CHILDREN_STAY_IN_PARENT_LIST_TILL_FREE object, whose
 * own lock it takes: do not hold that object's lock, nor a lock of one of
 * its children, when releasing a reference on it.
 * @param p_obj an initialized or destroying object.
 * @return the new reference count.
 */
CL_EXPORT int32_t CL_API cl_obj_deref(IN cl_obj_t *const p_obj);

/**
 * Returns an object's type.
 * @param p_obj the object.
 * @return the type given to cl_obj_construct().
 */
CL_INLINE uint32_t CL_API cl_obj_type(IN cl_obj_t *const p_obj)
{
	return p_obj->type;
}

/** @cond INTERNAL */
CL_INLINE boolean_t CL_API __cl_obj_is_live(IN const cl_obj_t *const p_obj)
{
	cl_state_t state = __atomic_load_n(&p_obj->state, __ATOMIC_RELAXED);

	return state == CL_INITIALIZED || state == CL_DESTROYING;
}
/** @endcond */

/**
 * Acquires an object's lock (not recursive).
 * @param p_obj an initialized or destroying object.
 */
CL_INLINE void CL_API cl_obj_lock(IN cl_obj_t *const p_obj)
{
	CL_ASSERT(__cl_obj_is_live(p_obj));
	cl_spinlock_acquire(&p_obj->lock);
}

/**
 * Releases an object's lock.
 * @param p_obj an object whose lock the caller holds.
 */
CL_INLINE void CL_API cl_obj_unlock(IN cl_obj_t *const p_obj)
{
	CL_ASSERT(__cl_obj_is_live(p_obj));
	cl_spinlock_release(&p_obj->lock);
}

/**
 * A dependent relationship: the child is destroyed when the parent is.
 * Allocate it with cl_rel_alloc() or embed it anywhere.
 */
typedef struct _cl_obj_rel {
	cl_pool_item_t pool_item;     /**< Links it on the parent's child_list (or a pool); must be first. */
	struct _cl_obj *p_parent_obj; /**< The parent; cleared once the parent is dereferenced. */
	cl_list_item_t list_item;     /**< Links it on the child's parent_list. */
	struct _cl_obj *p_child_obj;  /**< The child; cleared once the child leaves the parent. */
} cl_obj_rel_t;

/**
 * Takes a relationship item from the manager's pool, which grows on demand.
 * @return the item, or NULL when memory ran out (or no manager exists).
 */
CL_EXPORT cl_obj_rel_t *CL_API cl_rel_alloc(void);

/**
 * Returns an item obtained from cl_rel_alloc() to the manager's pool. Only
 * free an item after cl_obj_remove_rel() or once the child's pfn_free has
 * been called.
 * @param p_rel the item.
 */
CL_EXPORT void CL_API cl_rel_free(IN cl_obj_rel_t *const p_rel);

/**
 * Makes @p p_child_obj depend on @p p_parent_obj. The relationship takes a
 * reference on both objects.
 * @param p_rel an unused relationship item.
 * @param p_parent_obj the parent.
 * @param p_child_obj the child; never an ancestor of the parent.
 * @return CL_SUCCESS; CL_INVALID_STATE when either object is not
 *         CL_INITIALIZED (for instance already being destroyed).
 */
CL_EXPORT cl_status_t CL_API cl_obj_insert_rel(IN cl_obj_rel_t *const p_rel,
					       IN cl_obj_t *const p_parent_obj,
					       IN cl_obj_t *const p_child_obj);

/**
 * As cl_obj_insert_rel(), for a caller that holds the parent's lock
 * (cl_obj_lock()); the call takes the child's lock.
 * @param p_rel an unused relationship item.
 * @param p_parent_obj the parent, whose lock the caller holds.
 * @param p_child_obj the child.
 * @return CL_SUCCESS; CL_INVALID_STATE when either object is not
 *         CL_INITIALIZED.
 */
CL_EXPORT cl_status_t CL_API cl_obj_insert_rel_parent_locked(IN cl_obj_rel_t *const p_rel,
							     IN cl_obj_t *const p_parent_obj,
							     IN cl_obj_t *const p_child_obj);

/**
 * Removes a relationship made by cl_obj_insert_rel() and releases its
 * references on both objects. The caller must make sure neither object is
 * being destroyed, directly or through a parent.
 * @param p_rel the relationship.
 */
CL_EXPORT void CL_API cl_obj_remove_rel(IN cl_obj_rel_t *const p_rel);

#ifdef __cplusplus
}
#endif

#endif /* __CL_OBJ_H__ */
