/*
 * ibal access layer: object initialization, staged destruction and the callback dispatcher.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Locks, outermost first: a parent's cl_obj lock (al_obj_init), an object's
 * cb_lock, the dispatcher's lock, the handle table's locks. No lock of this
 * file is held while a callback or a hook runs.
 *
 * The ready list holds objects whose queue has callbacks and which no
 * thread runs: cb_ready is set (under cb_lock) by whoever queues the first
 * item, and that thread puts the object on the list; the thread that takes
 * it off clears cb_ready and sets cb_busy, and runs the queue until it is
 * empty. So each object is run by one thread at a time, and an object is
 * freed only by the thread that runs its final item, which is the last one.
 *
 * A callback thread that finds the ready list empty looks for a while for
 * a push before it sleeps (al_spin.h): it counts itself in spinning, and
 * while one does a push signals nobody (no system call, no thread woken);
 * the spinner takes the object, or finds it on the list (under the lock)
 * when it stops looking.
 */
#include <pthread.h>
#include <complib/cl_event.h>
#include <complib/cl_memory.h>
#include <complib/cl_thread.h>
#include <complib/cl_threadpool.h>
#include "al_epoch.h"
#include "al_obj.h"
#include "al_spin.h"

/* A synchronous destroyer, on its stack. Its fields and the event signals
 * are under the dispatcher's lock, and it leaves the helper list under that
 * lock, so once the destroyer has seen done nobody touches it again. */
typedef struct _al_obj_waiter {
	cl_event_t event;         /* auto-reset: done, or work to help with */
	boolean_t done;           /* the object's final item has run */
	boolean_t can_help;       /* the destroyer is an AL callback thread */
	al_obj_t *p_root;         /* the object destroyed */
	cl_list_item_t list_item; /* on disp.helpers while a helper waits */
} al_obj_waiter_t;

/* An object whose callback (or destroy callback) runs in this thread. */
typedef struct _cb_frame {
	al_obj_t *p_obj;
	struct _cb_frame *prev;
} cb_frame_t;

/* Callbacks an object runs before it lets the others have a turn. */
#define AL_CB_BATCH 64u

static __thread boolean_t tls_cb_thread;
static __thread cb_frame_t *tls_frames;
static __thread al_obj_here_t *tls_here; /* al_obj_here_begin() */

static struct {
	cl_spinlock_t lock;    /* guards ready, helpers, heres and their lists, pool_running, spinning */
	cl_qlist_t ready;      /* al_obj_t::ready_item */
	cl_qlist_t helpers;    /* al_obj_waiter_t::list_item */
	cl_qlist_t heres;      /* al_obj_here_t::list_item: threads that run their own */
	cl_thread_pool_t pool;
	boolean_t pool_running;
	uint32_t spinning;     /* callback threads looking for a push (no signal needed) */
	uint64_t pushes;       /* written under lock, read atomically by the spinners */
} disp;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t init_count;
static boolean_t own_mgr;
static uint32_t cb_threads_wanted;

/* ---- The dispatcher ---- */

/* Under the dispatcher's lock: wakes the waiting helpers to look. */
static void signal_helpers_locked(void)
{
	cl_list_item_t *it;

	for (it = cl_qlist_head(&disp.helpers); it != cl_qlist_end(&disp.helpers);
	     it = cl_qlist_next(it))
		cl_event_signal(&PARENT_STRUCT(it, al_obj_waiter_t, list_item)->event);
}

/*
 * Puts an object on the ready list. An object being destroyed may be one a
 * synchronous destroyer waits for: the waiting helpers look. The pool is
 * signalled after the lock is released: a woken thread takes the lock first
 * thing, and would otherwise preempt us only to wait for it (two more
 * thread switches per callback on a busy processor). The pool outlives
 * every object (al_cleanup()).
 */
static void push_ready(al_obj_t *p_obj, boolean_t destroying)
{
	boolean_t signal;

	cl_spinlock_acquire(&disp.lock);
	cl_qlist_insert_tail(&disp.ready, &p_obj->ready_item);
	__atomic_store_n(&disp.pushes, disp.pushes + 1, __ATOMIC_RELEASE);
	signal = disp.pool_running && !disp.spinning;
	if (destroying)
		signal_helpers_locked();
	cl_spinlock_release(&disp.lock);
	if (signal)
		cl_thread_pool_signal(&disp.pool);
}

/* Takes the first ready object; wakes another thread if more are ready
 * (after the lock, as push_ready() does). */
static al_obj_t *pop_ready(void)
{
	cl_list_item_t *it;
	boolean_t signal;

	cl_spinlock_acquire(&disp.lock);
	it = cl_qlist_remove_head(&disp.ready);
	signal = it != cl_qlist_end(&disp.ready) && !cl_is_qlist_empty(&disp.ready) &&
		 disp.pool_running && !disp.spinning;
	cl_spinlock_release(&disp.lock);
	if (signal)
		cl_thread_pool_signal(&disp.pool);
	return it == cl_qlist_end(&disp.ready) ? NULL : PARENT_STRUCT(it, al_obj_t, ready_item);
}

/* Under the dispatcher's lock: takes from @p p_list an object of the
 * subtree p_w destroys (the object or a descendant: the destruction waits
 * for them). Ancestors outlive their descendants, so the walk is safe. */
static cl_list_item_t *take_helped_from(cl_qlist_t *p_list, const al_obj_waiter_t *p_w)
{
	cl_list_item_t *it;
	al_obj_t *o;

	for (it = cl_qlist_head(p_list); it != cl_qlist_end(p_list); it = cl_qlist_next(it)) {
		for (o = PARENT_STRUCT(it, al_obj_t, ready_item); o; o = o->p_parent) {
			if (o == p_w->p_root) {
				cl_qlist_remove_item(p_list, it);
				return it;
			}
		}
	}
	return NULL;
}

/* Under the dispatcher's lock: a ready object of the subtree p_w destroys,
 * on the ready list or on the list of a thread that runs its own. */
static al_obj_t *take_helped(al_obj_waiter_t *p_w)
{
	cl_list_item_t *it, *h;

	it = take_helped_from(&disp.ready, p_w);
	for (h = cl_qlist_head(&disp.heres); !it && h != cl_qlist_end(&disp.heres);
	     h = cl_qlist_next(h)) {
		al_obj_here_t *p_here = PARENT_STRUCT(h, al_obj_here_t, list_item);

		it = take_helped_from(&p_here->objs, p_w);
		if (it)
			__atomic_store_n(&p_here->count, p_here->count - 1, __ATOMIC_RELEASE);
	}
	return it ? PARENT_STRUCT(it, al_obj_t, ready_item) : NULL;
}

/* Under cb_lock: appends an item; TRUE when the caller must then put the
 * object on the ready list. */
static boolean_t enqueue_locked(al_obj_t *p_obj, al_cb_item_t *p_item)
{
	cl_qlist_insert_tail(&p_obj->cb_queue, &p_item->list_item);
	if (p_obj->cb_busy || p_obj->cb_ready)
		return FALSE;
	p_obj->cb_ready = TRUE;
	return TRUE;
}

static void wake_waiter(al_obj_waiter_t *p_w)
{
	cl_spinlock_acquire(&disp.lock);
	p_w->done = TRUE;
	cl_event_signal(&p_w->event);
	cl_spinlock_release(&disp.lock);
}

/* The last step of a destruction, on the thread running the object's queue
 * (see the file description of al_obj.h). */
static void finish(al_obj_t *p_obj)
{
	ib_pfn_destroy_cb_t pfn = p_obj->pfn_destroy_cb;
	al_obj_waiter_t *p_waiter = p_obj->p_sync_waiter;
	al_obj_t *p_parent = p_obj->p_parent;
	al_handle_t h = __atomic_load_n(&p_obj->handle, __ATOMIC_RELAXED);
	cb_frame_t frame = { p_obj, tls_frames };

	/* Every callback is over: release what the object stands for. */
	if (p_obj->pfn_cleanup)
		p_obj->pfn_cleanup(p_obj);
	if (pfn && pfn != ib_sync_destroy) {
		tls_frames = &frame;
		pfn((void *)(uintptr_t)p_obj->context);
		tls_frames = frame.prev;
	}
	if (h != AL_HANDLE_NULL)
		al_handle_free_ex(h, h != __atomic_load_n(&p_obj->drained, __ATOMIC_RELAXED));
	cl_obj_deinit(&p_obj->cl_obj);
	cl_spinlock_destroy(&p_obj->cb_lock);
	p_obj->pfn_free(p_obj);
	/* The reference taken in al_obj_init(): the parent completes only now. */
	if (p_parent)
		cl_obj_deref(&p_parent->cl_obj);
	if (p_waiter)
		wake_waiter(p_waiter);
}

/* Runs an object's queue until it is empty, or puts the object back at the
 * end of the ready list after AL_CB_BATCH callbacks so that one busy object
 * does not starve the others. Called with cb_lock held and cb_busy set,
 * returns with the lock released. */
static void run_queue(al_obj_t *p_obj)
{
	cb_frame_t frame = { p_obj, tls_frames };
	boolean_t destroying;
	cl_list_item_t *it;
	al_cb_item_t *p_item;
	al_pfn_cb_t pfn;
	void *context;
	unsigned ran = 0;

	for (;;) {
		if (ran == AL_CB_BATCH && !cl_is_qlist_empty(&p_obj->cb_queue)) {
			p_obj->cb_busy = FALSE;
			p_obj->cb_ready = TRUE;
			destroying = p_obj->destroying;
			cl_spinlock_release(&p_obj->cb_lock);
			push_ready(p_obj, destroying);
			return;
		}
		it = cl_qlist_remove_head(&p_obj->cb_queue);
		if (it == cl_qlist_end(&p_obj->cb_queue)) {
			p_obj->cb_busy = FALSE;
			cl_spinlock_release(&p_obj->cb_lock);
			return;
		}
		cl_spinlock_release(&p_obj->cb_lock);
		p_item = PARENT_STRUCT(it, al_cb_item_t, list_item);
		if (p_item == &p_obj->final_item) {
			/* The queue was closed behind it: nothing follows. */
			finish(p_obj);
			return;
		}
		pfn = p_item->pfn_cb;
		context = p_item->context;
		if (p_item->allocated)
			cl_free(p_item);
		tls_frames = &frame;
		pfn(context);
		tls_frames = frame.prev;
		ran++;
		cl_spinlock_acquire(&p_obj->cb_lock);
	}
}

/* Runs an object just taken off the ready list. */
static void run_popped(al_obj_t *p_obj)
{
	cl_spinlock_acquire(&p_obj->cb_lock);
	CL_ASSERT(p_obj->cb_ready && !p_obj->cb_busy);
	p_obj->cb_ready = FALSE;
	p_obj->cb_busy = TRUE;
	run_queue(p_obj);
}

/* al_spin_until's look: a push since *context. */
static boolean_t pushed_since(void *context)
{
	return __atomic_load_n(&disp.pushes, __ATOMIC_ACQUIRE) != *(const uint64_t *)context;
}

/* The ready list ran dry: looks for a push for a while (the pushers signal
 * nobody meanwhile). TRUE when the list has an object again. */
static boolean_t spin_for_ready(void)
{
	uint64_t seen = 0;
	boolean_t more;

	if (!al_spin_enabled())
		return FALSE;
	cl_spinlock_acquire(&disp.lock);
	more = !cl_is_qlist_empty(&disp.ready);
	if (!more) {
		disp.spinning++;
		seen = disp.pushes;
	}
	cl_spinlock_release(&disp.lock);
	if (more)
		return TRUE;
	al_spin_until(pushed_since, &seen);
	/* What was pushed while we looked signalled nobody: it is ours. */
	cl_spinlock_acquire(&disp.lock);
	disp.spinning--;
	more = !cl_is_qlist_empty(&disp.ready);
	cl_spinlock_release(&disp.lock);
	return more;
}

static void CL_API cb_worker(void *context)
{
	al_obj_t *p_obj;

	(void)context;
	tls_cb_thread = TRUE;
	do {
		while ((p_obj = pop_ready()) != NULL)
			run_popped(p_obj);
	} while (spin_for_ready());
}

/* Waits for a synchronous destruction; a callback thread runs the queues
 * of the objects being destroyed meanwhile. */
static void wait_done(al_obj_waiter_t *p_w)
{
	al_obj_t *p_obj;

	cl_spinlock_acquire(&disp.lock);
	if (p_w->can_help)
		cl_qlist_insert_tail(&disp.helpers, &p_w->list_item);
	while (!p_w->done) {
		p_obj = p_w->can_help ? take_helped(p_w) : NULL;
		cl_spinlock_release(&disp.lock);
		if (p_obj)
			run_popped(p_obj);
		else
			cl_event_wait_on(&p_w->event, EVENT_NO_TIMEOUT, FALSE);
		cl_spinlock_acquire(&disp.lock);
	}
	if (p_w->can_help)
		cl_qlist_remove_item(&disp.helpers, &p_w->list_item);
	cl_spinlock_release(&disp.lock);
	cl_event_destroy(&p_w->event);
}

/* Whether this thread is inside a callback of p_obj or of a descendant. */
static boolean_t runs_under(const al_obj_t *p_obj)
{
	const cb_frame_t *f;
	const al_obj_t *o;

	for (f = tls_frames; f; f = f->prev)
		for (o = f->p_obj; o; o = o->p_parent)
			if (o == p_obj)
				return TRUE;
	return FALSE;
}

/* ---- Initialization ---- */

static ib_api_status_t ib_status_of(cl_status_t status)
{
	return status == CL_INSUFFICIENT_MEMORY ? IB_INSUFFICIENT_MEMORY : IB_ERROR;
}

/* Delivers every ready callback in this thread (cleanup). */
static void flush_ready(void)
{
	al_obj_t *p_obj;

	while ((p_obj = pop_ready()) != NULL)
		run_popped(p_obj);
}

static void stop(void)
{
	cl_spinlock_acquire(&disp.lock);
	disp.pool_running = FALSE;
	cl_spinlock_release(&disp.lock);
	cl_thread_pool_destroy(&disp.pool);

	tls_cb_thread = TRUE;
	flush_ready();
	if (own_mgr) {
		/* Completes queued destructions, which may queue final items. */
		cl_obj_mgr_destroy();
		own_mgr = FALSE;
		flush_ready();
	}
	tls_cb_thread = FALSE;
	cl_spinlock_destroy(&disp.lock);
}

static ib_api_status_t start(void)
{
	uint32_t threads = cb_threads_wanted;
	cl_status_t status = CL_SUCCESS;

	if (!threads) {
		threads = cl_proc_count();
		if (threads < 2)
			threads = 2;
	}
	own_mgr = FALSE;
	if (!gp_obj_mgr) {
		status = cl_obj_mgr_create();
		if (status != CL_SUCCESS)
			return ib_status_of(status);
		own_mgr = TRUE;
	}
	cl_qlist_init(&disp.ready);
	cl_qlist_init(&disp.helpers);
	cl_qlist_init(&disp.heres);
	cl_spinlock_construct(&disp.lock);
	cl_thread_pool_construct(&disp.pool);
	disp.pool_running = FALSE;
	status = cl_spinlock_init(&disp.lock);
	if (status == CL_SUCCESS)
		status = cl_thread_pool_init(&disp.pool, threads, cb_worker, NULL, "al_cb");
	if (status != CL_SUCCESS) {
		cl_thread_pool_destroy(&disp.pool);
		cl_spinlock_destroy(&disp.lock);
		if (own_mgr)
			cl_obj_mgr_destroy();
		own_mgr = FALSE;
		return ib_status_of(status);
	}
	cl_spinlock_acquire(&disp.lock);
	disp.pool_running = TRUE;
	cl_spinlock_release(&disp.lock);
	return IB_SUCCESS;
}

ib_api_status_t al_init(void)
{
	ib_api_status_t status = IB_SUCCESS;

	pthread_mutex_lock(&init_lock);
	if (!init_count)
		status = start();
	if (status == IB_SUCCESS)
		init_count++;
	pthread_mutex_unlock(&init_lock);
	return status;
}

void al_cleanup(void)
{
	CL_ASSERT(!tls_cb_thread);
	pthread_mutex_lock(&init_lock);
	if (init_count && !--init_count)
		stop();
	pthread_mutex_unlock(&init_lock);
}

void al_cb_thread_count_set(uint32_t count)
{
	pthread_mutex_lock(&init_lock);
	cb_threads_wanted = count;
	pthread_mutex_unlock(&init_lock);
}

boolean_t al_is_cb_thread(void)
{
	return tls_cb_thread;
}

/* ---- cl_obj hooks ---- */

static al_obj_t *al_obj_of(cl_obj_t *p_cl_obj)
{
	return PARENT_STRUCT(p_cl_obj, al_obj_t, cl_obj);
}

/*
 * Invalidates the object's handle @p h; if this call did, notes where the
 * grace periods stand, so that obj_cleanup() waits for one only if none
 * began after this and has ended meanwhile (many objects destroyed one
 * after the other share one).
 */
static void note_invalidated(al_obj_t *p_obj, al_handle_t h)
{
	if (al_handle_invalidate(h))
		__atomic_store_n(&p_obj->drain_snap, al_epoch_snapshot(), __ATOMIC_RELAXED);
}

/* Destroying thread: no more enters, then the object's own hook. */
static void CL_API obj_destroying(cl_obj_t *p_cl_obj)
{
	al_obj_t *p_obj = al_obj_of(p_cl_obj);
	al_handle_t h;

	cl_spinlock_acquire(&p_obj->cb_lock);
	p_obj->destroying = TRUE;
	h = p_obj->handle;
	cl_spinlock_release(&p_obj->cb_lock);
	if (h != AL_HANDLE_NULL)
		note_invalidated(p_obj, h);
	if (p_obj->pfn_destroying)
		p_obj->pfn_destroying(p_obj);
}

/* Manager thread, children completed and unreferenced: drain the calls
 * inside. (pfn_cleanup runs later, in finish(), after the callbacks: the
 * manager's threads never wait for callback threads.) */
static void CL_API obj_cleanup(cl_obj_t *p_cl_obj)
{
	al_obj_t *p_obj = al_obj_of(p_cl_obj);
	al_handle_t h;

	cl_spinlock_acquire(&p_obj->cb_lock);
	h = p_obj->handle;
	cl_spinlock_release(&p_obj->cb_lock);
	if (h != AL_HANDLE_NULL) {
		note_invalidated(p_obj, h); /* a handle inserted after destroying */
		al_handle_drain_since(h, __atomic_load_n(&p_obj->drain_snap, __ATOMIC_RELAXED));
		__atomic_store_n(&p_obj->drained, h, __ATOMIC_RELAXED);
	}
}

/* Manager thread: queue the final item behind the callbacks and close. The
 * cl_obj is deinitialized by finish(). */
static void CL_API obj_free(cl_obj_t *p_cl_obj)
{
	al_obj_t *p_obj = al_obj_of(p_cl_obj);
	boolean_t push;

	cl_spinlock_acquire(&p_obj->cb_lock);
	CL_ASSERT(!p_obj->cb_closed && p_obj->destroying);
	p_obj->cb_closed = TRUE;
	push = enqueue_locked(p_obj, &p_obj->final_item);
	cl_spinlock_release(&p_obj->cb_lock);
	if (push)
		push_ready(p_obj, TRUE);
}

/* ---- Objects ---- */

void al_obj_construct(al_obj_t *const p_obj, const uint32_t type)
{
	CL_ASSERT(p_obj && gp_obj_mgr);
	cl_memclr(p_obj, sizeof(*p_obj));
	p_obj->drain_snap = AL_EPOCH_NO_SNAPSHOT;
	cl_obj_construct(&p_obj->cl_obj, type);
	p_obj->type = type;
	cl_spinlock_construct(&p_obj->cb_lock);
	cl_qlist_init(&p_obj->cb_queue);
}

ib_api_status_t al_obj_init(al_obj_t *const p_obj, al_obj_t *const p_parent,
			    const void *const context, const al_pfn_obj_t pfn_destroying,
			    const al_pfn_obj_t pfn_cleanup, const al_pfn_obj_t pfn_free)
{
	cl_status_t status;

	CL_ASSERT(p_obj && p_obj != p_parent);
	if (!pfn_free)
		return IB_INVALID_PARAMETER;
	p_obj->context = context;
	p_obj->pfn_destroying = pfn_destroying;
	p_obj->pfn_cleanup = pfn_cleanup;
	p_obj->pfn_free = pfn_free;
	if (cl_spinlock_init(&p_obj->cb_lock) != CL_SUCCESS)
		return IB_ERROR;

	/* Under the parent's lock its state cannot change, so the relation
	 * below cannot fail once the parent is seen initialized. */
	if (p_parent) {
		cl_obj_lock(&p_parent->cl_obj);
		if (__atomic_load_n(&p_parent->cl_obj.state, __ATOMIC_ACQUIRE) != CL_INITIALIZED) {
			cl_obj_unlock(&p_parent->cl_obj);
			return IB_INVALID_STATE;
		}
	}
	status = cl_obj_init(&p_obj->cl_obj, CL_DESTROY_ASYNC, obj_destroying, obj_cleanup,
			     obj_free);
	if (status == CL_SUCCESS && p_parent) {
		status = cl_obj_insert_rel_parent_locked(&p_obj->parent_rel, &p_parent->cl_obj,
							 &p_obj->cl_obj);
		CL_ASSERT(status == CL_SUCCESS);
		/* Held until finish(): the parent's destroy callback comes after
		 * the child's. */
		cl_obj_ref(&p_parent->cl_obj);
		p_obj->p_parent = p_parent;
	}
	if (p_parent)
		cl_obj_unlock(&p_parent->cl_obj);
	return status == CL_SUCCESS ? IB_SUCCESS : IB_ERROR;
}

void al_obj_deinit(al_obj_t *const p_obj)
{
	CL_ASSERT(p_obj && p_obj->cl_obj.state == CL_UNINITIALIZED);
	cl_obj_deinit(&p_obj->cl_obj);
	cl_spinlock_destroy(&p_obj->cb_lock);
}

ib_api_status_t al_obj_insert_handle(al_obj_t *const p_obj)
{
	return al_obj_insert_handle_dp(p_obj, NULL);
}

ib_api_status_t al_obj_insert_handle_dp(al_obj_t *const p_obj, const al_handle_dp_t *p_dp)
{
	ib_api_status_t status;
	al_handle_t h;

	CL_ASSERT(p_obj);
	if (p_obj->type <= AL_HDL_INVALID || p_obj->type >= AL_HDL_TYPE_COUNT)
		return IB_INVALID_PARAMETER;
	cl_spinlock_acquire(&p_obj->cb_lock);
	if (p_obj->destroying || p_obj->handle != AL_HANDLE_NULL) {
		cl_spinlock_release(&p_obj->cb_lock);
		return IB_INVALID_STATE;
	}
	status = al_handle_alloc_dp((al_handle_type_t)p_obj->type, p_obj, p_dp, &h);
	if (status == IB_SUCCESS)
		__atomic_store_n(&p_obj->handle, h, __ATOMIC_RELEASE);
	cl_spinlock_release(&p_obj->cb_lock);
	return status;
}

/* al_obj_destroy(); @p entered, unless AL_HANDLE_NULL, is a handle the
 * caller entered to keep the object alive: it is exited once the
 * destruction is claimed (or refused), before any wait. */
static ib_api_status_t obj_destroy(al_obj_t *const p_obj, const ib_pfn_destroy_cb_t pfn_destroy_cb,
				   al_handle_t entered)
{
	boolean_t sync = (pfn_destroy_cb == ib_sync_destroy);
	al_obj_waiter_t waiter;
	al_handle_t h;

	CL_ASSERT(p_obj);
	/* Its own callbacks, or its descendants', cannot run while we wait. */
	if (sync && runs_under(p_obj)) {
		if (entered != AL_HANDLE_NULL)
			al_handle_exit(entered);
		return IB_INVALID_STATE;
	}
	if (sync) {
		cl_event_construct(&waiter.event);
		cl_event_init(&waiter.event, FALSE);
		waiter.done = FALSE;
		waiter.can_help = tls_cb_thread;
		waiter.p_root = p_obj;
	}

	cl_spinlock_acquire(&p_obj->cb_lock);
	if (p_obj->destroying) {
		cl_spinlock_release(&p_obj->cb_lock);
		if (sync)
			cl_event_destroy(&waiter.event);
		if (entered != AL_HANDLE_NULL)
			al_handle_exit(entered);
		/* Claimed by another thread, which may not have invalidated
		 * the handle yet: to the caller the handle is already gone. */
		return IB_NOT_FOUND;
	}
	p_obj->destroying = TRUE;
	p_obj->pfn_destroy_cb = pfn_destroy_cb;
	if (sync)
		p_obj->p_sync_waiter = &waiter;
	h = p_obj->handle;
	cl_spinlock_release(&p_obj->cb_lock);

	if (h != AL_HANDLE_NULL)
		note_invalidated(p_obj, h);
	/* Claimed: nobody else can start the destruction, so the object lives
	 * until cl_obj_destroy() below; the caller's entry must go before the
	 * drain that the destruction waits for. */
	if (entered != AL_HANDLE_NULL)
		al_handle_exit(entered);
	cl_obj_destroy(&p_obj->cl_obj);

	if (sync)
		wait_done(&waiter);
	return IB_SUCCESS;
}

ib_api_status_t al_obj_destroy(al_obj_t *const p_obj, const ib_pfn_destroy_cb_t pfn_destroy_cb)
{
	return obj_destroy(p_obj, pfn_destroy_cb, AL_HANDLE_NULL);
}

ib_api_status_t al_obj_destroy_entered(al_obj_t *const p_obj,
				       const ib_pfn_destroy_cb_t pfn_destroy_cb, al_handle_t entered)
{
	return obj_destroy(p_obj, pfn_destroy_cb, entered);
}

/* Puts an object whose queue was idle on the calling thread's list (see
 * al_obj_here_begin()); FALSE when the thread runs none (or is running one,
 * or its list was given away, or is full). */
static boolean_t defer_here(al_obj_t *p_obj)
{
	al_obj_here_t *p_here = tls_here;
	boolean_t took = FALSE;

	/* max is this thread's own (al_obj_here_set()). */
	if (!p_here || tls_cb_thread || !p_here->max)
		return FALSE;
	cl_spinlock_acquire(&disp.lock);
	if (p_here->open && p_here->count < p_here->max) {
		cl_qlist_insert_tail(&p_here->objs, &p_obj->ready_item);
		__atomic_store_n(&p_here->count, p_here->count + 1, __ATOMIC_RELEASE);
		took = TRUE;
	}
	cl_spinlock_release(&disp.lock);
	return took;
}

static ib_api_status_t queue_item(al_obj_t *p_obj, al_cb_item_t *p_item, boolean_t here)
{
	boolean_t push, destroying;

	cl_spinlock_acquire(&p_obj->cb_lock);
	if (p_obj->cb_closed) {
		cl_spinlock_release(&p_obj->cb_lock);
		return IB_INVALID_STATE;
	}
	push = enqueue_locked(p_obj, p_item);
	destroying = p_obj->destroying;
	cl_spinlock_release(&p_obj->cb_lock);
	/* An object being destroyed may be one a destroyer waits for: to the
	 * ready list, whose pushes the waiting helpers are told of. */
	if (push && !(here && !destroying && defer_here(p_obj)))
		push_ready(p_obj, destroying);
	return IB_SUCCESS;
}

void al_obj_here_begin(al_obj_here_t *const p_here, uint32_t max)
{
	CL_ASSERT(!tls_cb_thread && !tls_here);
	cl_qlist_init(&p_here->objs);
	p_here->count = 0;
	p_here->max = max;
	p_here->open = TRUE;
	cl_spinlock_acquire(&disp.lock);
	cl_qlist_insert_tail(&disp.heres, &p_here->list_item);
	cl_spinlock_release(&disp.lock);
	tls_here = p_here;
}

void al_obj_here_set(al_obj_here_t *const p_here, uint32_t max)
{
	/* Its thread's own field (written under the lock for the others). */
	if (p_here->max == max)
		return;
	cl_spinlock_acquire(&disp.lock);
	p_here->max = max;
	cl_spinlock_release(&disp.lock);
}

/* Moves a list's objects to the ready list; closes the list with @p close. */
static void hand_here(al_obj_here_t *p_here, boolean_t close)
{
	boolean_t signal;
	uint32_t n;

	cl_spinlock_acquire(&disp.lock);
	if (close)
		p_here->open = FALSE;
	n = p_here->count;
	cl_qlist_insert_list_tail(&disp.ready, &p_here->objs);
	__atomic_store_n(&p_here->count, 0, __ATOMIC_RELEASE);
	if (n) {
		__atomic_store_n(&disp.pushes, disp.pushes + 1, __ATOMIC_RELEASE);
		signal_helpers_locked();
	}
	signal = n && disp.pool_running && !disp.spinning;
	cl_spinlock_release(&disp.lock);
	if (signal)
		cl_thread_pool_signal(&disp.pool);
}

void al_obj_here_hand(al_obj_here_t *const p_here)
{
	hand_here(p_here, FALSE);
}

void al_obj_here_give(al_obj_here_t *const p_here)
{
	hand_here(p_here, TRUE);
}

void al_obj_here_end(al_obj_here_t *const p_here)
{
	al_obj_here_give(p_here);
	cl_spinlock_acquire(&disp.lock);
	cl_qlist_remove_item(&disp.heres, &p_here->list_item);
	cl_spinlock_release(&disp.lock);
	tls_here = NULL;
}

boolean_t al_obj_here_run_one(al_obj_here_t *const p_here)
{
	cl_list_item_t *it;

	if (!al_obj_here_count(p_here))
		return FALSE;
	cl_spinlock_acquire(&disp.lock);
	it = cl_qlist_remove_head(&p_here->objs);
	if (it != cl_qlist_end(&p_here->objs))
		__atomic_store_n(&p_here->count, p_here->count - 1, __ATOMIC_RELEASE);
	cl_spinlock_release(&disp.lock);
	if (it == cl_qlist_end(&p_here->objs))
		return FALSE;
	tls_cb_thread = TRUE;
	run_popped(PARENT_STRUCT(it, al_obj_t, ready_item));
	tls_cb_thread = FALSE;
	return TRUE;
}

/* Queues an item its caller owns. */
static ib_api_status_t queue_own_item(al_obj_t *p_obj, al_cb_item_t *p_item, boolean_t here)
{
	CL_ASSERT(p_obj);
	if (!p_item || !p_item->pfn_cb)
		return IB_INVALID_PARAMETER;
	p_item->allocated = FALSE;
	return queue_item(p_obj, p_item, here);
}

ib_api_status_t al_obj_queue_cb_item(al_obj_t *const p_obj, al_cb_item_t *const p_item)
{
	return queue_own_item(p_obj, p_item, FALSE);
}

ib_api_status_t al_obj_queue_cb_item_here(al_obj_t *const p_obj, al_cb_item_t *const p_item)
{
	return queue_own_item(p_obj, p_item, TRUE);
}

ib_api_status_t al_obj_queue_callback(al_obj_t *const p_obj, const al_pfn_cb_t pfn_cb,
				      void *const context)
{
	al_cb_item_t *p_item;
	ib_api_status_t status;

	CL_ASSERT(p_obj);
	if (!pfn_cb)
		return IB_INVALID_PARAMETER;
	p_item = (al_cb_item_t *)cl_malloc(sizeof(*p_item));
	if (!p_item)
		return IB_INSUFFICIENT_MEMORY;
	p_item->pfn_cb = pfn_cb;
	p_item->context = context;
	p_item->allocated = TRUE;
	status = queue_item(p_obj, p_item, FALSE);
	if (status != IB_SUCCESS)
		cl_free(p_item);
	return status;
}

void al_obj_invalidate_and_drain(al_obj_t *const p_obj)
{
	al_handle_t h = __atomic_load_n(&p_obj->handle, __ATOMIC_ACQUIRE);

	if (h == AL_HANDLE_NULL)
		return;
	al_handle_invalidate(h);
	al_handle_drain(h);
}
