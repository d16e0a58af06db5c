/*
 * ibal access layer: MAD pools, their registrations with protection domains, and MAD elements.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file al_mad_pool.h
 * @brief MAD pools (ib_create_mad_pool() .. ib_put_mad()), private: the
 * objects behind ib_pool_handle_t and ib_pool_key_t, the wrapper of every
 * ib_mad_element_t, and the calls the MAD services build on.
 *
 * Objects and lifetimes:
 *  - a pool (al_pool_t, AL_HDL_MAD_POOL) is a child of the object it was
 *    created under: the AL instance for ib_create_mad_pool(), so
 *    ib_close_al() destroys it. It owns every element it ever allocated, in
 *    chunks that are freed only with the pool.
 *  - a pool key (al_pool_key_t, AL_HDL_POOL_KEY) is a child of its PD
 *    (as upstream) and has a second cl_obj parent relation to its pool, so
 *    destroying the PD, the pool, the CA or the AL instance destroys the key;
 *    the key also holds a reference on the pool until its cleanup, so the
 *    pool always completes after its keys.
 *  - an element (al_mad_elem_t) is either free (on its pool's free list) or
 *    out (obtained with a key, on that key's list). When a key is destroyed
 *    with elements out (its PD was destroyed, for instance), those elements
 *    are orphaned: they stay out, count against their pool, and go back to
 *    it normally with ib_put_mad(). A pool is destroyed with elements out
 *    only with its AL instance; their memory goes with the pool.
 *
 * Statuses decided where ib_al.h leaves room (upstream does the same except
 * where noted): ib_create_mad_pool() returns IB_INVALID_SETTING also for
 * min == 0 with grow_size == 0 (ib_al.h says min must not be 0 then;
 * upstream accepts a pool that can never give an element). A pool grows by
 * grow_size, the last growth clamped to max (upstream refuses a growth that
 * would pass max, so fewer than max elements may be obtainable there).
 * ib_destroy_mad_pool() is IB_RESOURCE_BUSY only while elements are out;
 * registered keys are deregistered by it (upstream also refuses while keys
 * exist). ib_get_mad() returns IB_INVALID_PARAMETER for buf_size 0 and
 * IB_INVALID_SETTING for buf_size of 0xFFFFFFFF or more (as upstream).
 * ib_put_mad() returns IB_INVALID_PARAMETER, and returns nothing, when any
 * element of the list is not out of a pool (never obtained, already
 * returned, listed twice); upstream skips those silently.
 *
 * Thread safety: every function may be called from any thread. Each pool
 * has one lock, a leaf: it guards the pool's lists and counts, its keys'
 * lists, counts and closing flags, and the key of each element. No other
 * lock is taken and no callback is made while it is held.
 */
#ifndef AL_MAD_POOL_H
#define AL_MAD_POOL_H

#include <complib/cl_qlist.h>
#include <complib/cl_spinlock.h>
#include "al_verbs.h"

struct al_pool_key;

/** A pool of MAD elements: the object behind ib_pool_handle_t. */
typedef struct al_pool {
	al_obj_t obj;            /**< Base; type AL_HDL_MAD_POOL. */
	cl_spinlock_t lock;      /**< Guards the fields below (see the file description). */
	cl_qlist_t free_list;    /**< Free elements (al_mad_elem_t::list_item), latest first. */
	cl_qlist_t chunks;       /**< Allocated blocks of elements, freed with the pool. */
	size_t max;              /**< Largest number of elements; 0 for no limit. */
	size_t grow_size;        /**< Elements added per growth; 0 for a fixed pool. */
	size_t actual;           /**< Elements allocated, or being allocated by a growth. */
	size_t n_out;            /**< Elements out, orphans included. */
	boolean_t closing;       /**< Destruction started: no element is handed out. */
} al_pool_t;

/** A pool registered with a protection domain: the object behind ib_pool_key_t. */
typedef struct al_pool_key {
	al_obj_t obj;            /**< Base; type AL_HDL_POOL_KEY; child of the PD. */
	cl_obj_rel_t pool_rel;   /**< Second parent relation: to the pool. */
	al_pool_t *p_pool;       /**< The pool; referenced until the key's cleanup. */
	al_pd_t *p_pd;           /**< The PD (the parent). */
	boolean_t internal;      /**< Made by the access layer: ib_dereg_mad_pool() refuses it. */
	boolean_t closing;       /**< Pool lock: deregistering or destroyed; gets fail. */
	size_t n_out;            /**< Pool lock: elements out with this key. */
	cl_qlist_t out_list;     /**< Pool lock: those elements (al_mad_elem_t::list_item). */
} al_pool_key_t;

struct al_mad_svc;

/** States of a send (docs/mad.md). */
typedef enum al_mad_send_state {
	AL_MAD_SEND_QUEUED = 1, /**< Waiting for a send slot or the window to open. */
	AL_MAD_SEND_POSTED,     /**< Posted; the send completion has not come yet. */
	AL_MAD_SEND_WAIT_RESP,  /**< Sent; waiting for a response or an RMPP ACK. */
} al_mad_send_state_t;

/** One element given to ib_send_mad(), until its send callback is queued.
 * It lives in the element (al_mad_elem_t::send): an element is sent once at
 * a time, so a send allocates nothing. */
typedef struct al_mad_send {
	cl_list_item_t item;        /**< On disp->sends (disp->lock). */
	ib_mad_element_t *p_elem;   /**< The user's element. */
	struct al_mad_svc *p_svc;   /**< The service it was sent on. */
	al_mad_send_state_t state;  /**< See al_mad_send_state_t. */
	uint32_t n_posted;          /**< Slots still in flight for it. */
	uint32_t retries_left;      /**< Timeouts it may still survive. */
	uint64_t deadline_us;       /**< When the current wait ends (monotonic us); 0: none. */
	boolean_t sent_once;        /**< The send completed at least once. */
	ib_mad_element_t *p_resp;   /**< Response received before the send completion. */
	boolean_t resp_started;     /**< An RMPP response is being reassembled: no timer. */
	ib_net64_t tid;             /**< The TID it went out with. */
	ib_av_attr_t av;            /**< Where it goes. */
	/* RMPP sender */
	boolean_t rmpp;             /**< Sent with RMPP (segments of MAD_RMPP_DATA_SIZE). */
	uint32_t seg_count;         /**< Segments of the whole payload. */
	uint32_t seg_next;          /**< Next segment to post (1-based). */
	uint32_t seg_acked;         /**< Highest segment acknowledged. */
	uint32_t win_last;          /**< Last segment the receiver's window allows. */
	boolean_t ack_done;         /**< Every segment acknowledged. */
} al_mad_send_t;

/** The private wrapper of every ib_mad_element_t a pool hands out. */
typedef struct al_mad_elem {
	ib_mad_element_t element;   /**< The user's part; first, so the addresses match. */
	uint32_t magic;             /**< AL_MAD_MAGIC_FREE, _OUT or _PUT (atomic). */
	struct al_mad_elem *p_self; /**< Its own address: a copy does not pass for an element. */
	al_pool_t *p_pool;          /**< The pool it belongs to, for its whole life. */
	al_pool_key_t *p_key;       /**< Pool lock: its key; NULL when free or orphaned. */
	cl_list_item_t list_item;   /**< Pool lock: on the free list or its key's out_list. */
	cl_list_item_t svc_item;    /**< Free for the MAD services while the element is out. */
	void *svc_context;          /**< Free for the MAD services (NULL after a get). */
	/** The callback that hands it to a MAD service (al_mad_queue_cb()): an
	 * element is queued for one callback at a time, so none is allocated. */
	al_cb_item_t cb_item;
	struct al_mad_svc *cb_svc;  /**< The service of that callback. */
	boolean_t cb_recv;          /**< A receive callback (else a send completion). */
	al_mad_send_t send;         /**< Its send while ib_send_mad() has it (svc_context). */
	ib_mad_t *p_big_buf;        /**< Buffer for more than MAD_BLOCK_SIZE bytes, or NULL. */
	size_t big_cap;             /**< Bytes of p_big_buf. */
	/** The GRH area (p_grh), then the MAD buffer of up to MAD_BLOCK_SIZE bytes. */
	uint8_t buf[MAD_BLOCK_GRH_SIZE];
} al_mad_elem_t;

/** al_mad_elem_t::magic of a free element. */
#define AL_MAD_MAGIC_FREE 0x4d414446u
/** al_mad_elem_t::magic of an element out of its pool. */
#define AL_MAD_MAGIC_OUT 0x4d41444fu
/** al_mad_elem_t::magic of an element an ib_put_mad() is returning. */
#define AL_MAD_MAGIC_PUT 0x4d414450u

/**
 * Creates a pool under any access-layer object (ib_create_mad_pool() uses
 * the AL instance; the MAD services may use a QP or a CA). The pool gets a
 * handle.
 * @param p_parent the parent, kept alive by the caller.
 * @param min elements allocated at once.
 * @param max largest number of elements; 0 for no limit.
 * @param grow_size elements added per growth; 0 for a fixed pool.
 * @param pp_pool receives the pool, which the parent's destruction may
 *        destroy at any time: the caller must keep the parent alive (or
 *        reference the pool) while it uses the pointer.
 * @param ph_pool receives the pool's handle; may be NULL.
 * @return IB_SUCCESS; IB_INVALID_SETTING when max is not 0 and less than
 *         min, or when min and grow_size are both 0; IB_INVALID_STATE when
 *         the parent is being destroyed; IB_INSUFFICIENT_MEMORY; the status
 *         of al_obj_insert_handle() otherwise.
 */
ib_api_status_t al_mad_pool_create(al_obj_t *p_parent, size_t min, size_t max, size_t grow_size,
				   al_pool_t **pp_pool, ib_pool_handle_t *ph_pool);

/**
 * Registers a pool with a PD (ib_reg_mad_pool() with @p internal FALSE).
 * The key gets a handle.
 * @param p_pool the pool, kept alive by the caller.
 * @param p_pd the PD, kept alive by the caller.
 * @param internal TRUE for a key of the access layer's own (for instance
 *        the one ib_get_spl_qp() returns), which ib_dereg_mad_pool()
 *        refuses; destroy it with al_pool_key_destroy().
 * @param pp_key receives the key, which destroying the PD or the pool may
 *        destroy at any time: the caller must keep one of them alive (or
 *        reference the key) while it uses the pointer.
 * @param ph_key receives the key's handle; may be NULL.
 * @return IB_SUCCESS; IB_INVALID_HANDLE when the pool is being destroyed;
 *         IB_INVALID_PD_HANDLE when the PD is being destroyed;
 *         IB_INSUFFICIENT_MEMORY; the status of al_obj_insert_handle()
 *         otherwise.
 */
ib_api_status_t al_pool_key_create(al_pool_t *p_pool, al_pd_t *p_pd, boolean_t internal,
				   al_pool_key_t **pp_key, ib_pool_key_t *ph_key);

/**
 * Destroys a key, asynchronously, whatever elements are out with it (they
 * are orphaned). For the access layer's own keys.
 * @param p_key the key.
 */
void al_pool_key_destroy(al_pool_key_t *p_key);

/**
 * Takes an element out of a pool, as ib_get_mad() does (fields reset, GRH
 * area and buffer zeroed, buffer of at least @p buf_size bytes). Does not
 * block on anything but the pool's lock and memory allocation, so AL
 * callback threads may call it.
 * @param p_key the key, kept alive by the caller (entered, referenced, or
 *        the caller is inside a call on an object the key belongs to).
 * @param buf_size bytes of MAD buffer; more than MAD_BLOCK_SIZE allocates a
 *        separate buffer, freed when the element is returned.
 * @param pp_elem receives the element.
 * @return IB_SUCCESS; IB_INVALID_PARAMETER when the key is being
 *         deregistered or destroyed, or @p buf_size is 0;
 *         IB_INVALID_SETTING when @p buf_size is 0xFFFFFFFF or more;
 *         IB_INSUFFICIENT_RESOURCES when the pool is empty and may not grow;
 *         IB_INSUFFICIENT_MEMORY.
 */
ib_api_status_t al_mad_pool_get(al_pool_key_t *p_key, size_t buf_size, al_mad_elem_t **pp_elem);

/**
 * Returns one element to its pool (ib_put_mad() of a one-element list,
 * without the validation): the element must be out.
 * @param p_elem the element.
 */
void al_mad_pool_put(al_mad_elem_t *p_elem);

/**
 * Makes the buffer of an element out hold @p buf_size bytes (RMPP
 * reassembly): the first min(size, @p buf_size) bytes are kept, the bytes
 * past the old size are zeroed, element.size becomes @p buf_size and
 * element.p_mad_buf may change. Only the element's owner may call it.
 * @param p_elem the element.
 * @param buf_size the new size; not 0.
 * @return IB_SUCCESS; IB_INVALID_PARAMETER for 0; IB_INVALID_SETTING for
 *         0xFFFFFFFF or more; IB_INSUFFICIENT_MEMORY (the element is then
 *         unchanged).
 */
ib_api_status_t al_mad_elem_resize(al_mad_elem_t *p_elem, size_t buf_size);

/**
 * The wrapper of an element a pool handed out.
 * @param p_element the user's part.
 * @return the wrapper (no check is made).
 */
static inline al_mad_elem_t *al_mad_elem_from_ib(const ib_mad_element_t *p_element)
{
	return PARENT_STRUCT(p_element, al_mad_elem_t, element);
}

/**
 * Tells whether memory is an element of a live pool (without reading it):
 * the address is an element's in a chunk of a pool not yet freed.
 * @param p_element what a user gave as an element.
 * @return TRUE when it is one.
 */
boolean_t al_mad_elem_known(const ib_mad_element_t *p_element);

/**
 * Tells whether an element is out of a pool, for validating an element
 * given by a user: anything not in a live pool's chunk is refused before
 * its wrapper is read (al_mad_elem_known).
 * @param p_element the element.
 * @return TRUE when it was obtained from a pool and not returned.
 */
static inline boolean_t al_mad_elem_is_out(const ib_mad_element_t *p_element)
{
	const al_mad_elem_t *p_elem = al_mad_elem_from_ib(p_element);

	return al_mad_elem_known(p_element) && p_elem->p_self == p_elem &&
	       __atomic_load_n(&p_elem->magic, __ATOMIC_ACQUIRE) == AL_MAD_MAGIC_OUT;
}

/**
 * The key an element is out with, referenced.
 * @param p_elem the element, out.
 * @return the key, with a reference to release with al_obj_deref(); NULL
 *         when the element is orphaned (its key was destroyed).
 */
al_pool_key_t *al_mad_elem_key_ref(al_mad_elem_t *p_elem);

/**
 * The PD of a key.
 * @param p_key the key, kept alive by the caller.
 * @return the PD, which outlives the key.
 */
static inline al_pd_t *al_pool_key_pd(const al_pool_key_t *p_key)
{
	return p_key->p_pd;
}

/**
 * Counts of a pool, for diagnostics and tests.
 * @param h_pool the pool.
 * @param p_total receives the number of elements allocated (or being
 *        allocated by a growth); may be NULL.
 * @param p_out receives the number of elements out; may be NULL.
 * @return IB_SUCCESS; IB_INVALID_HANDLE when @p h_pool is not a live pool.
 */
ib_api_status_t al_mad_pool_counts(ib_pool_handle_t h_pool, size_t *p_total, size_t *p_out);

#endif /* AL_MAD_POOL_H */
