/*
 * ibal access layer: handle table allocation, release, invalidation and draining.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Locks: table_lock guards the free list, the high-water mark and the
 * directory writes; drain_lock pairs with drain_cond for the drainers. Each
 * is a leaf: nothing else is taken while either is held.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <complib/cl_debug.h>
#include "al_epoch.h"
#include "al_handle.h"

_Static_assert(sizeof(al_handle_slot_t) == 64, "a slot fills one cache line");
_Static_assert(AL_HDL_TYPE_COUNT <= 256, "handle types have 8 bits");
_Static_assert(AL_HANDLE_GEN_BITS >= 8 && AL_HANDLE_GEN_BITS <= 32, "generation width");

/* End of the free list. */
#define NO_SLOT UINT32_MAX

/* A drain waiting longer than this is reported (debug builds). */
#define DRAIN_REPORT_S 10

al_handle_slot_t *al_handle_dir[AL_HANDLE_DIR_SIZE];

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t free_head = NO_SLOT, free_tail = NO_SLOT; /* FIFO of freed slots */
static uint32_t high_water;                                /* slots ever handed out */
static uint32_t live_count;                                /* atomic reads */

static pthread_mutex_t drain_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t drain_cond;
static pthread_once_t drain_once = PTHREAD_ONCE_INIT;

static const char *const type_names[AL_HDL_TYPE_COUNT] = {
	[AL_HDL_INVALID] = "invalid",    [AL_HDL_AL] = "AL",
	[AL_HDL_CA] = "CA",              [AL_HDL_PD] = "PD",
	[AL_HDL_AV] = "AV",              [AL_HDL_QP] = "QP",
	[AL_HDL_SRQ] = "SRQ",            [AL_HDL_CQ] = "CQ",
	[AL_HDL_MR] = "MR",              [AL_HDL_MW] = "MW",
	[AL_HDL_MCAST] = "MCAST",        [AL_HDL_MAD_POOL] = "MAD pool",
	[AL_HDL_POOL_KEY] = "pool key",  [AL_HDL_MAD_SVC] = "MAD service",
	[AL_HDL_MAD_SEND] = "MAD send",  [AL_HDL_QUERY] = "query",
	[AL_HDL_REG_SVC] = "reg svc",    [AL_HDL_SUB] = "subscription",
	[AL_HDL_CM] = "CM",              [AL_HDL_LISTEN] = "listen",
	[AL_HDL_IOC] = "IOC",            [AL_HDL_SVC_ENTRY] = "svc entry",
	[AL_HDL_PNP] = "PnP",            [AL_HDL_FMR] = "FMR",
	[AL_HDL_FMR_POOL] = "FMR pool",  [AL_HDL_FMR_POOL_EL] = "FMR pool element",
};

const char *al_handle_type_str(al_handle_type_t type)
{
	if ((unsigned)type >= AL_HDL_TYPE_COUNT || !type_names[type])
		return "invalid";
	return type_names[type];
}

/* Key of a slot holding generation gen and type type. */
static uint64_t make_key(uint32_t gen, uint32_t type)
{
	return (uint64_t)gen << 8 | type;
}

static uint32_t key_gen(uint64_t word)
{
	return (uint32_t)(word >> (AL_HSLOT_KEY_SHIFT + 8));
}

static al_handle_t make_handle(uint64_t key, uint32_t idx)
{
	return (al_handle_t)(key << AL_HANDLE_INDEX_BITS) | idx;
}

/* The next generation of a slot, within the bits a handle carries. */
static uint32_t next_gen(uint32_t gen)
{
	uint64_t mask = ((uint64_t)1 << AL_HANDLE_GEN_BITS) - 1;

	return (uint32_t)((gen + (uint64_t)1) & mask);
}

/* ---- Allocation and release (under table_lock) ---- */

/* Makes sure the page holding slot idx exists. */
static ib_api_status_t ensure_page(uint32_t idx)
{
	uint32_t page = idx >> AL_HANDLE_PAGE_SHIFT;
	void *mem;

	if (al_handle_dir[page])
		return IB_SUCCESS;
	/* Plain libc memory: the table lives as long as the process and is not
	 * one of the allocations complib's tracking counts. */
	if (posix_memalign(&mem, 64, AL_HANDLE_PAGE_SLOTS * sizeof(al_handle_slot_t)))
		return IB_INSUFFICIENT_MEMORY;
	memset(mem, 0, AL_HANDLE_PAGE_SLOTS * sizeof(al_handle_slot_t));
	__atomic_store_n(&al_handle_dir[page], (al_handle_slot_t *)mem, __ATOMIC_RELEASE);
	return IB_SUCCESS;
}

/* Takes a slot: the oldest freed one, else a never-used one. */
static ib_api_status_t take_slot(uint32_t *p_idx)
{
	ib_api_status_t status;
	uint32_t idx;

	if (free_head != NO_SLOT) {
		idx = free_head;
		free_head = al_handle_slot(idx)->next_free;
		if (free_head == NO_SLOT)
			free_tail = NO_SLOT;
		*p_idx = idx;
		return IB_SUCCESS;
	}
	if (high_water >= AL_HANDLE_MAX)
		return IB_INSUFFICIENT_RESOURCES;
	status = ensure_page(high_water);
	if (status != IB_SUCCESS)
		return status;
	*p_idx = high_water++;
	return IB_SUCCESS;
}

static void put_slot(uint32_t idx)
{
	al_handle_slot(idx)->next_free = NO_SLOT;
	if (free_tail == NO_SLOT)
		free_head = idx;
	else
		al_handle_slot(free_tail)->next_free = idx;
	free_tail = idx;
}

ib_api_status_t al_handle_alloc(al_handle_type_t type, void *p_obj, al_handle_t *p_handle)
{
	al_handle_slot_t *p_slot;
	ib_api_status_t status;
	uint64_t key;
	uint32_t idx;

	if (type <= AL_HDL_INVALID || type >= AL_HDL_TYPE_COUNT || !p_obj || !p_handle)
		return IB_INVALID_PARAMETER;

	pthread_mutex_lock(&table_lock);
	status = take_slot(&idx);
	if (status == IB_SUCCESS) {
		p_slot = al_handle_slot(idx);
		key = make_key(key_gen(__atomic_load_n(&p_slot->word, __ATOMIC_RELAXED)), type);
		/* The object first, then the live key: a reader that sees the key
		 * (acquire) sees the object. */
		__atomic_store_n(&p_slot->p_obj, p_obj, __ATOMIC_RELEASE);
		__atomic_store_n(&p_slot->word, key << AL_HSLOT_KEY_SHIFT | AL_HSLOT_LIVE,
				 __ATOMIC_RELEASE);
		__atomic_store_n(&live_count, live_count + 1, __ATOMIC_RELAXED);
		*p_handle = make_handle(key, idx);
	}
	pthread_mutex_unlock(&table_lock);
	return status;
}

/* The slot of an allocated (live or invalidated) handle, or NULL. */
static al_handle_slot_t *allocated_slot(al_handle_t h, uint64_t *p_word)
{
	al_handle_slot_t *p_slot;
	uint64_t key = al_handle_key(h), w;
	uint32_t type = (uint32_t)(key & 0xFF);

	if (type == AL_HDL_INVALID || type >= AL_HDL_TYPE_COUNT || !(p_slot = al_handle_slot(h)))
		return NULL;
	w = __atomic_load_n(&p_slot->word, __ATOMIC_ACQUIRE);
	if ((w >> AL_HSLOT_KEY_SHIFT) != key)
		return NULL;
	if (p_word)
		*p_word = w;
	return p_slot;
}

ib_api_status_t al_handle_free(al_handle_t h)
{
	al_handle_slot_t *p_slot = allocated_slot(h, NULL);
	ib_api_status_t status = IB_INVALID_HANDLE;
	uint64_t w;

	if (!p_slot)
		return IB_INVALID_HANDLE;
	al_handle_invalidate(h);
	al_handle_drain(h);

	pthread_mutex_lock(&table_lock);
	/* Check again: another thread may have freed it meanwhile. */
	w = __atomic_load_n(&p_slot->word, __ATOMIC_ACQUIRE);
	if ((w >> AL_HSLOT_KEY_SHIFT) == al_handle_key(h)) {
		CL_ASSERT(!(w & (AL_HSLOT_LIVE | AL_HSLOT_COUNT_MASK)));
		/* Type 0 marks the slot free; the bumped generation is what the
		 * next owner's handle will carry. */
		__atomic_store_n(&p_slot->word,
				 make_key(next_gen(key_gen(w)), AL_HDL_INVALID) << AL_HSLOT_KEY_SHIFT,
				 __ATOMIC_RELEASE);
		__atomic_store_n(&p_slot->p_obj, NULL, __ATOMIC_RELEASE);
		put_slot(al_handle_index(h));
		__atomic_store_n(&live_count, live_count - 1, __ATOMIC_RELAXED);
		status = IB_SUCCESS;
	}
	pthread_mutex_unlock(&table_lock);
	return status;
}

/* ---- Invalidation and draining ---- */

boolean_t al_handle_invalidate(al_handle_t h)
{
	uint64_t key = al_handle_key(h), w;
	al_handle_slot_t *p_slot = allocated_slot(h, &w);

	if (!p_slot)
		return FALSE;
	do {
		if ((w >> AL_HSLOT_KEY_SHIFT) != key || !(w & AL_HSLOT_LIVE))
			return FALSE;
	} while (!__atomic_compare_exchange_n(&p_slot->word, &w, w & ~AL_HSLOT_LIVE, 1,
					      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	return TRUE;
}

static void init_drain_cond(void)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&drain_cond, &attr);
	pthread_condattr_destroy(&attr);
}

void al_handle_wake_drainers(void)
{
	pthread_once(&drain_once, init_drain_cond);
	/* Under the lock: a drainer checks the count and sleeps under it, so
	 * this wakeup cannot fall between its check and its sleep. */
	pthread_mutex_lock(&drain_lock);
	pthread_cond_broadcast(&drain_cond);
	pthread_mutex_unlock(&drain_lock);
}

/* Calls inside slot p_slot while it still holds key; 0 once freed. */
static uint32_t inside(al_handle_slot_t *p_slot, uint64_t key)
{
	uint64_t w = __atomic_load_n(&p_slot->word, __ATOMIC_ACQUIRE);

	if ((w >> AL_HSLOT_KEY_SHIFT) != key)
		return 0;
	return (uint32_t)(w & AL_HSLOT_COUNT_MASK);
}

static struct timespec deadline_after(unsigned seconds)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += seconds;
	return ts;
}

void al_handle_drain(al_handle_t h)
{
	uint64_t key = al_handle_key(h), w;
	al_handle_slot_t *p_slot = allocated_slot(h, &w);
	unsigned waited_s = 0;
	struct timespec deadline;

	/* Data-path calls are not counted: they are waited for by epoch. */
	if (p_slot && al_handle_type_dp(al_handle_type(h)))
		al_epoch_synchronize();
	if (!p_slot || !(w & AL_HSLOT_COUNT_MASK))
		return;
	CL_ASSERT(!(w & AL_HSLOT_LIVE));
	pthread_once(&drain_once, init_drain_cond);
	pthread_mutex_lock(&drain_lock);
	deadline = deadline_after(DRAIN_REPORT_S);
	while (inside(p_slot, key)) {
		if (pthread_cond_timedwait(&drain_cond, &drain_lock, &deadline) != ETIMEDOUT)
			continue;
		waited_s += DRAIN_REPORT_S;
		deadline = deadline_after(DRAIN_REPORT_S);
#ifdef _DEBUG_
		cl_msg_out("al: %s handle %#llx: %u calls still inside after %u s\n",
			   al_handle_type_str(al_handle_type(h)), (unsigned long long)h,
			   inside(p_slot, key), waited_s);
#else
		(void)waited_s;
#endif
	}
	pthread_mutex_unlock(&drain_lock);
}

/* ---- Diagnostics ---- */

uint32_t al_handle_inflight(al_handle_t h)
{
	uint64_t w;

	if (!allocated_slot(h, &w))
		return 0;
	return (uint32_t)(w & AL_HSLOT_COUNT_MASK);
}

uint32_t al_handle_count(void)
{
	return __atomic_load_n(&live_count, __ATOMIC_RELAXED);
}
