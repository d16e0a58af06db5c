/*
 * ibal access layer: the base of every access-layer object, its lifetime and its callback queue.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file al_obj.h
 * @brief al_obj_t: the part common to every access-layer object (AL
 * instance, CA, PD, AV, QP, SRQ, CQ, MR, MW, MAD services, queries, CM
 * endpoints, IOCs, PnP registrations, ...): parent/child relation, handle,
 * user context, staged destruction and in-order callback delivery.
 *
 * An object embeds an al_obj_t (usually first) and lives as follows:
 *  -# al_obj_construct(), which cannot fail;
 *  -# al_obj_init() with its parent (which must not be being destroyed) and
 *     the object's hooks; on failure release it with al_obj_deinit();
 *  -# creation of whatever the object stands for (the provider object);
 *  -# al_obj_insert_handle(), which makes it reachable through a handle;
 *  -# use: calls enter it through its handle (al_handle_enter(),
 *     al_obj_enter()); upcalls queue callbacks on it
 *     (al_obj_queue_callback()), which AL callback threads deliver in order;
 *  -# al_obj_destroy(), with a destroy callback, NULL, or ib_sync_destroy.
 *
 * Destruction, built on cl_obj (CL_DESTROY_ASYNC):
 *  -# in the destroyer's thread: the handle is invalidated (lookups and
 *     enters fail from then on), pfn_destroying runs, and each child is
 *     destroyed the same way (children get no destroy callback);
 *  -# once every child has completed and no reference remains, on a thread
 *     of the cl_obj manager: the calls still inside the object are drained;
 *     then a final item is queued behind the object's callbacks, and the
 *     queue is closed: callbacks queued before that are delivered, later
 *     ones are refused (IB_INVALID_STATE);
 *  -# on an AL callback thread, after every earlier callback has returned:
 *     pfn_cleanup (release the provider object there), the user's destroy
 *     callback, then the handle is freed, then pfn_free releases the
 *     memory, then the parent is released.
 * A child therefore always completes, destroy callback included, before its
 * parent's destroy callback. With ib_sync_destroy, al_obj_destroy() returns
 * once the last step is done; no destroy callback is made.
 *
 * Callbacks: each object has a queue. Queueing puts the object on a ready
 * list served by the AL callback threads; one thread at a time runs an
 * object's queue, so callbacks of one object run one after the other, in
 * queueing order, while different objects' callbacks run in parallel (a
 * thread moves on to another object after 64 callbacks of one). No
 * lock is held while a callback runs, so callbacks may call any function of
 * this file, except that an object must not be destroyed with
 * ib_sync_destroy from a callback of itself or of one of its descendants
 * (al_obj_destroy() refuses that). A synchronous destroy made from an AL
 * callback thread does not wait idle: it runs the pending callbacks of the
 * object and its descendants itself, so it completes even when every
 * callback thread is busy.
 *
 * A thread that is not a callback thread may run, itself, the callbacks it
 * queues with al_obj_queue_cb_item_here() (al_obj_here_t): the MAD
 * dispatchers do, for the CM's callbacks of the messages they receive. Such
 * a thread is an AL callback thread while it runs them.
 *
 * al_init() creates the cl_obj manager (unless one exists) and the callback
 * threads; al_cleanup() stops them. Calls nest: the first al_init() and the
 * last al_cleanup() do the work.
 *
 * Thread safety: all functions may be called from any thread, on objects
 * the caller keeps alive (by holding a reference, having entered it, or
 * being inside one of its callbacks). al_init() and al_cleanup() must not
 * race with the use of objects, and al_cleanup() must not be called from a
 * callback.
 */
#ifndef AL_OBJ_H
#define AL_OBJ_H

#include <iba/ib_al.h>
#include <complib/cl_obj.h>
#include <complib/cl_qlist.h>
#include <complib/cl_spinlock.h>
#include "al_handle.h"

#ifdef __cplusplus
extern "C" {
#endif

struct _al_obj;

/**
 * A hook of an object's destruction.
 * @param p_obj the object.
 */
typedef void (*al_pfn_obj_t)(IN struct _al_obj *p_obj);

/**
 * A queued callback.
 * @param context the context given when it was queued.
 */
typedef void (*al_pfn_cb_t)(IN void *context);

/**
 * A callback to deliver, owned by the caller of al_obj_queue_cb_item()
 * (al_obj_queue_callback() allocates one itself).
 */
typedef struct _al_cb_item {
	cl_list_item_t list_item; /**< Links the item on the object's queue. */
	al_pfn_cb_t pfn_cb;       /**< The function to call; not NULL. */
	void *context;            /**< Its argument. */
	boolean_t allocated;      /**< Set by al_obj_queue_callback(): freed after the call. */
} al_cb_item_t;

/** @cond INTERNAL */
struct _al_obj_waiter;
/** @endcond */

/**
 * The base of an access-layer object. Fields are the module's: read type,
 * handle, context and p_parent; change nothing.
 */
typedef struct _al_obj {
	cl_obj_t cl_obj;               /**< References, relations and staged destruction. */
	cl_obj_rel_t parent_rel;       /**< The relation to the parent. */
	struct _al_obj *p_parent;      /**< The parent; NULL for a root (an AL instance). */
	uint32_t type;                 /**< An al_handle_type_t, or a higher internal type. */
	al_handle_t handle;            /**< The handle; AL_HANDLE_NULL until inserted (atomic). */
	const void *context;           /**< The user's context, passed to the destroy callback. */
	ib_pfn_destroy_cb_t pfn_destroy_cb; /**< Given to al_obj_destroy(). */
	al_pfn_obj_t pfn_destroying;   /**< Destroyer's thread, before the children go. */
	al_pfn_obj_t pfn_cleanup;      /**< Children, calls and callbacks over: release the provider object. */
	al_pfn_obj_t pfn_free;         /**< Last: release the memory. */
	cl_spinlock_t cb_lock;         /**< Guards the fields below and handle changes. */
	cl_qlist_t cb_queue;           /**< Callbacks waiting (al_cb_item_t::list_item). */
	cl_list_item_t ready_item;     /**< Links the object on the ready list. */
	boolean_t cb_ready;            /**< On the ready list. */
	boolean_t cb_busy;             /**< A thread is running the queue. */
	boolean_t cb_closed;           /**< The final item is queued: no more callbacks. */
	boolean_t destroying;          /**< Destruction has started. */
	al_handle_t drained;           /**< The handle obj_cleanup drained once invalid: its free waits for nothing more. */
	uint64_t drain_snap;           /**< al_epoch_snapshot() after the handle's invalidation (atomic; AL_EPOCH_NO_SNAPSHOT: none). */
	struct _al_obj_waiter *p_sync_waiter; /**< The synchronous destroyer to wake, if any. */
	al_cb_item_t final_item;       /**< Queued last, runs the end of the destruction. */
} al_obj_t;

/** First object type with no handle kind, for internal objects. */
#define AL_OBJ_TYPE_INTERNAL 0x100u

/**
 * Initializes the access layer's object machinery: the cl_obj manager
 * (unless one exists already) and the AL callback threads. Calls nest.
 * @return IB_SUCCESS; IB_INSUFFICIENT_MEMORY when memory ran out; IB_ERROR
 *         when a lock or a thread could not be created.
 */
ib_api_status_t al_init(void);

/**
 * Undoes one al_init(). The last call stops the callback threads (the
 * callbacks still queued then are delivered in the calling thread) and
 * destroys the cl_obj manager if al_init() created it. Every object should
 * be destroyed by then. Must not be called from an AL callback thread.
 */
void al_cleanup(void);

/**
 * Chooses the number of AL callback threads the next first al_init()
 * starts (for tests).
 * @param count threads; 0 restores the default (one per processor, at
 *        least two).
 */
void al_cb_thread_count_set(uint32_t count);

/**
 * Tells whether the calling thread is an AL callback thread.
 * @return TRUE on a callback thread (or while al_cleanup() delivers the
 *         last callbacks); FALSE otherwise.
 */
boolean_t al_is_cb_thread(void);

/**
 * Prepares an object. Cannot fail; al_init() must have been called.
 * @param p_obj the object.
 * @param type its type: an al_handle_type_t, or AL_OBJ_TYPE_INTERNAL and
 *        above for objects that never get a handle.
 */
void al_obj_construct(IN al_obj_t *const p_obj, IN const uint32_t type);

/**
 * Initializes a constructed object and makes it a child of @p p_parent.
 * @param p_obj the object.
 * @param p_parent the parent, which the caller keeps alive; NULL for a root.
 * @param context the user's context.
 * @param pfn_destroying called in the destroying thread after the handle is
 *        invalidated and before the children are destroyed; may be NULL.
 * @param pfn_cleanup called once the children have completed, the calls
 *        inside have drained and the callbacks have returned, on an AL
 *        callback thread, before the destroy callback; may be NULL.
 * @param pfn_free called last, on an AL callback thread, after the destroy
 *        callback, to release the memory of the object; required.
 * @return IB_SUCCESS; IB_INVALID_PARAMETER when @p pfn_free is NULL;
 *         IB_INVALID_STATE when the parent is being destroyed; IB_ERROR when
 *         a lock could not be created. After a failure the object must be
 *         released with al_obj_deinit().
 */
ib_api_status_t al_obj_init(IN al_obj_t *const p_obj, IN al_obj_t *const p_parent OPTIONAL,
			    IN const void *const context,
			    IN const al_pfn_obj_t pfn_destroying OPTIONAL,
			    IN const al_pfn_obj_t pfn_cleanup OPTIONAL,
			    IN const al_pfn_obj_t pfn_free);

/**
 * Releases an object that was only constructed, or whose al_obj_init()
 * failed. Its memory may be freed afterwards.
 * @param p_obj the object.
 */
void al_obj_deinit(IN al_obj_t *const p_obj);

/**
 * Gives an initialized object a live handle of its type, so that lookups
 * find it.
 * @param p_obj the object.
 * @return IB_SUCCESS (the handle is in p_obj->handle); IB_INVALID_PARAMETER
 *         when the type has no handle kind; IB_INVALID_STATE when the
 *         object already has a handle or is being destroyed (its parent may
 *         be); the status of al_handle_alloc() otherwise.
 */
ib_api_status_t al_obj_insert_handle(IN al_obj_t *const p_obj);

/**
 * al_obj_insert_handle() with the data-path cache of the handle's slot
 * (QPs, SRQs, CQs: al_handle_dp_fill()).
 * @param p_obj the object.
 * @param p_dp the cache; NULL: zeroed.
 * @return as al_obj_insert_handle().
 */
ib_api_status_t al_obj_insert_handle_dp(IN al_obj_t *const p_obj, IN const al_handle_dp_t *p_dp);

/**
 * Destroys an initialized object and its children (see the file
 * description).
 * @param p_obj the object.
 * @param pfn_destroy_cb called with the object's context on an AL callback
 *        thread once everything is over; NULL for no callback;
 *        ib_sync_destroy to return only once everything is over.
 * @return IB_SUCCESS; IB_NOT_FOUND when the object is already being
 *         destroyed (callers report their invalid-handle status);
 *         IB_INVALID_STATE for ib_sync_destroy from a callback of the object
 *         or of one of its descendants (nothing is done then).
 */
ib_api_status_t al_obj_destroy(IN al_obj_t *const p_obj,
			       IN const ib_pfn_destroy_cb_t pfn_destroy_cb OPTIONAL);

/**
 * As al_obj_destroy(), for a caller that entered the object's handle to
 * keep it alive while it gets there (so that two threads destroying one
 * handle at once never touch a freed object): the handle is exited once
 * the destruction is claimed or refused, before any wait.
 * @param p_obj the object, entered through @p entered.
 * @param pfn_destroy_cb as for al_obj_destroy().
 * @param entered the handle the caller entered; exited here in every case.
 * @return as al_obj_destroy().
 */
ib_api_status_t al_obj_destroy_entered(IN al_obj_t *const p_obj,
				       IN const ib_pfn_destroy_cb_t pfn_destroy_cb OPTIONAL,
				       IN al_handle_t entered);

/**
 * Queues a callback on an object; an AL callback thread will call
 * pfn_cb(context) after the callbacks queued on the object before it, with
 * no lock held. The item (allocated here) is freed after the call.
 * @param p_obj the object.
 * @param pfn_cb the function; not NULL.
 * @param context its argument.
 * @return IB_SUCCESS; IB_INVALID_PARAMETER when @p pfn_cb is NULL;
 *         IB_INSUFFICIENT_MEMORY; IB_INVALID_STATE when the object's
 *         destruction has closed its queue (nothing will be called).
 */
ib_api_status_t al_obj_queue_callback(IN al_obj_t *const p_obj, IN const al_pfn_cb_t pfn_cb,
				      IN void *const context);

/**
 * As al_obj_queue_callback(), with an item the caller owns (no allocation).
 * The item must stay valid and must not be queued again until its callback
 * has started; the callback may free or requeue it.
 * @param p_obj the object.
 * @param p_item the item, with pfn_cb and context set.
 * @return IB_SUCCESS; IB_INVALID_PARAMETER when @p p_item or its pfn_cb is
 *         NULL; IB_INVALID_STATE when the queue is closed (the item is not
 *         queued).
 */
ib_api_status_t al_obj_queue_cb_item(IN al_obj_t *const p_obj, IN al_cb_item_t *const p_item);

/**
 * A thread's list of objects whose callbacks it runs itself: the objects
 * whose queue it made ready with al_obj_queue_cb_item_here(), in that
 * order. A waiting synchronous destroyer on a callback thread takes one
 * from here as it takes one from the ready list, and al_obj_here_give()
 * (from any thread) hands the rest to the callback threads. Fields are the
 * module's.
 */
typedef struct _al_obj_here {
	cl_list_item_t list_item; /**< On the module's list of these. */
	cl_qlist_t objs;          /**< al_obj_t::ready_item, under the module's lock. */
	uint32_t count;           /**< Objects in objs (atomic, read without the lock). */
	uint32_t max;             /**< Most objects it takes at once. */
	boolean_t open;           /**< Takes objects (until al_obj_here_give()). */
} al_obj_here_t;

/**
 * Makes the calling thread, which is not an AL callback thread, run the
 * callbacks it queues with al_obj_queue_cb_item_here() (al_obj_here_run_one())
 * until al_obj_here_end(). al_init() must have been called.
 * @param p_here the thread's list, valid until al_obj_here_end().
 * @param max most objects the list holds at once; the next go to the
 *        callback threads.
 */
void al_obj_here_begin(IN al_obj_here_t *const p_here, IN uint32_t max);

/**
 * Ends al_obj_here_begin(): what the list still holds goes to the callback
 * threads.
 * @param p_here the thread's list.
 */
void al_obj_here_end(IN al_obj_here_t *const p_here);

/**
 * As al_obj_queue_cb_item(); when the calling thread runs its callbacks
 * (al_obj_here_begin()), is not running one, its list takes the object
 * (it has room), and the object's
 * queue was idle and is not being destroyed, the object goes on the
 * thread's list instead of the ready list: no callback thread is woken for
 * it.
 * @param p_obj the object.
 * @param p_item the item, with pfn_cb and context set.
 * @return as al_obj_queue_cb_item().
 */
ib_api_status_t al_obj_queue_cb_item_here(IN al_obj_t *const p_obj, IN al_cb_item_t *const p_item);

/**
 * How many objects a list holds.
 * @param p_here the list.
 * @return the count (a snapshot).
 */
static inline uint32_t al_obj_here_count(IN al_obj_here_t *const p_here)
{
	return __atomic_load_n(&p_here->count, __ATOMIC_ACQUIRE);
}

/**
 * Takes the first object of the calling thread's list and runs its queue,
 * as a callback thread would (the thread is an AL callback thread meanwhile).
 * No lock of the caller's may be held.
 * @param p_here the calling thread's list.
 * @return TRUE if an object was run; FALSE if the list was empty.
 */
boolean_t al_obj_here_run_one(IN al_obj_here_t *const p_here);

/**
 * Changes what a list takes (the objects on it stay), as al_obj_here_begin()
 * set it. Only the list's thread.
 * @param p_here the calling thread's list.
 * @param max most objects it takes at once; 0: none for now.
 */
void al_obj_here_set(IN al_obj_here_t *const p_here, IN uint32_t max);

/**
 * Hands the objects of a list to the callback threads; the list goes on
 * taking objects. Any thread.
 * @param p_here the list.
 */
void al_obj_here_hand(IN al_obj_here_t *const p_here);

/**
 * Hands the objects of a list to the callback threads and closes the list:
 * later al_obj_queue_cb_item_here() calls of its thread use the ready list.
 * Any thread.
 * @param p_here the list.
 */
void al_obj_here_give(IN al_obj_here_t *const p_here);

/**
 * Takes a reference on an object: its destruction does not complete (and
 * its destroy callback is not made) until the reference is released.
 * @param p_obj an initialized or destroying object.
 * @return the new reference count.
 */
static inline int32_t al_obj_ref(IN al_obj_t *const p_obj)
{
	return cl_obj_ref(&p_obj->cl_obj);
}

/**
 * Releases a reference taken with al_obj_ref().
 * @param p_obj the object.
 * @return the new reference count.
 */
static inline int32_t al_obj_deref(IN al_obj_t *const p_obj)
{
	return cl_obj_deref(&p_obj->cl_obj);
}

/**
 * Counts a call in on an object whose handle is live (see al_handle_enter();
 * use that when starting from a handle). The object must be kept alive by
 * the caller.
 * @param p_obj the object.
 * @return TRUE when entered (call al_obj_exit()); FALSE when the object has
 *         no handle or its handle is invalidated.
 */
static inline boolean_t al_obj_enter(IN al_obj_t *const p_obj)
{
	al_handle_t h = __atomic_load_n(&p_obj->handle, __ATOMIC_ACQUIRE);

	return h != AL_HANDLE_NULL && al_handle_enter(h, (al_handle_type_t)p_obj->type) != NULL;
}

/**
 * Counts a call out of an object entered with al_obj_enter() or
 * al_handle_enter().
 * @param p_obj the object.
 */
static inline void al_obj_exit(IN al_obj_t *const p_obj)
{
	al_handle_exit(__atomic_load_n(&p_obj->handle, __ATOMIC_RELAXED));
}

/**
 * Invalidates an object's handle (enters fail from then on) and waits until
 * the calls inside have left. Destruction does this by itself.
 * @param p_obj the object; one without a handle returns at once.
 */
void al_obj_invalidate_and_drain(IN al_obj_t *const p_obj);

#ifdef __cplusplus
}
#endif

#endif /* AL_OBJ_H */
