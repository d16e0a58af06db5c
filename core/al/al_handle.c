/*
 * ibal access layer: handle table allocation, release, invalidation and draining.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Locks: table_lock guards the free lists, the high-water marks, the
 * reservation and the slots' writability; drain_lock pairs with drain_cond for the drainers. Each
 * is a leaf: nothing else is taken while either is held.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <complib/cl_debug.h>
#include "al_epoch.h"
#include "al_handle.h"
#include "ibal_mem.h"
#include "ibal_time.h"

_Static_assert(sizeof(al_handle_slot_t) == 64, "a slot fills one cache line");
_Static_assert(AL_HDL_TYPE_COUNT <= (1 << AL_HANDLE_TYPE_BITS), "handle types have 6 bits");
_Static_assert(AL_HANDLE_INDEX_SHIFT + AL_HANDLE_INDEX_BITS < AL_HANDLE_GEN_SHIFT - 1,
	       "index below the live bit");
_Static_assert(AL_HANDLE_GEN_BITS >= 8 && AL_HANDLE_GEN_BITS <= 32, "generation width");
_Static_assert((uint64_t)AL_HANDLE_REGION * AL_HDL_TYPE_COUNT < ((uint64_t)1 << 31),
	       "the region of a constant type is a 32-bit displacement");

/* End of the free list. */
#define NO_SLOT UINT32_MAX

/* Slots made writable at a time (64 KiB). */
#define CHUNK_SLOTS 1024u

/* A drain waiting longer than this is reported (debug builds). */
#define DRAIN_REPORT_S 10

uintptr_t al_handle_base;
uintptr_t al_handle_region[AL_HDL_TYPE_COUNT];

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
/* Per type: the FIFO of freed slots, and the slots ever handed out. */
static uint32_t free_head[AL_HDL_TYPE_COUNT] = { [0 ... AL_HDL_TYPE_COUNT - 1] = NO_SLOT };
static uint32_t free_tail[AL_HDL_TYPE_COUNT] = { [0 ... AL_HDL_TYPE_COUNT - 1] = NO_SLOT };
static uint32_t high_water[AL_HDL_TYPE_COUNT];
static uint32_t live_count; /* atomic reads */

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

/* The word of a live slot of type type and generation gen. */
static al_handle_t live_word(uint32_t gen, uint32_t type)
{
	return (al_handle_t)gen << AL_HANDLE_GEN_SHIFT | AL_HANDLE_LIVE | type;
}

/* The next generation of a slot, within the bits a handle carries. */
static uint32_t next_gen(uint32_t gen)
{
	uint64_t mask = ((uint64_t)1 << AL_HANDLE_GEN_BITS) - 1;

	return (uint32_t)((gen + (uint64_t)1) & mask);
}

/* The slot idx of type's region (the table exists). */
static al_handle_slot_t *slot_of(uint32_t type, uint32_t idx)
{
	return al_handle_slot_at(al_handle_base, (al_handle_t)idx << AL_HANDLE_INDEX_SHIFT,
				 (al_handle_type_t)type);
}

/* ---- The table's reservation ---- */

/* Reserves the regions of every type, readable and not writable: a lookup
 * of any value reads zeros from a page never handed out (and so finds no
 * live slot); only slots handed out are made writable (take_slot()). Under
 * table_lock. */
static boolean_t reserve_table(void)
{
	size_t size = (size_t)AL_HANDLE_REGION * (AL_HDL_TYPE_COUNT - 1);
	uintptr_t base;
	void *p;
	int t;

	if (al_handle_base)
		return TRUE;
	/* Plain mmap: the table lives as long as the process and is not one of
	 * the allocations complib's tracking counts. Read-only private pages
	 * are not charged against the commit limit until made writable. */
	p = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return FALSE;
	/* Region 1 (AL_HDL_AL) is the first mapped. */
	base = (uintptr_t)p - AL_HANDLE_REGION;
	for (t = AL_HDL_AL; t < AL_HDL_TYPE_COUNT; t++)
		__atomic_store_n(&al_handle_region[t], base + (uintptr_t)t * AL_HANDLE_REGION,
				 __ATOMIC_RELAXED);
	__atomic_store_n(&al_handle_base, base, __ATOMIC_RELEASE);
	return TRUE;
}

boolean_t al_handle_table_ready(void)
{
	boolean_t ok;

	if (__atomic_load_n(&al_handle_base, __ATOMIC_ACQUIRE))
		return TRUE;
	pthread_mutex_lock(&table_lock);
	ok = reserve_table();
	pthread_mutex_unlock(&table_lock);
	return ok;
}

/* ---- Allocation and release (under table_lock) ---- */

/* Takes a slot of type: the oldest freed one, else a never-used one. */
static ib_api_status_t take_slot(uint32_t type, uint32_t *p_idx)
{
	uint32_t idx;

	if (!reserve_table())
		return IB_INSUFFICIENT_MEMORY;
	if (free_head[type] != NO_SLOT) {
		idx = free_head[type];
		free_head[type] = slot_of(type, idx)->next_free;
		if (free_head[type] == NO_SLOT)
			free_tail[type] = NO_SLOT;
		*p_idx = idx;
		return IB_SUCCESS;
	}
	idx = high_water[type];
	if (idx >= AL_HANDLE_MAX)
		return IB_INSUFFICIENT_RESOURCES;
	if (!(idx % CHUNK_SLOTS)) {
		if (mprotect(slot_of(type, idx), CHUNK_SLOTS * sizeof(al_handle_slot_t),
			     PROT_READ | PROT_WRITE))
			return IB_INSUFFICIENT_MEMORY;
		/* Resident at once: one call, not a page fault every few dozen
		 * handles of a burst of connections (ibal_mem.h). */
		ibal_mem_prefault(slot_of(type, idx), CHUNK_SLOTS * sizeof(al_handle_slot_t));
	}
	high_water[type] = idx + 1;
	*p_idx = idx;
	return IB_SUCCESS;
}

static void put_slot(uint32_t type, uint32_t idx)
{
	slot_of(type, idx)->next_free = NO_SLOT;
	if (free_tail[type] == NO_SLOT)
		free_head[type] = idx;
	else
		slot_of(type, free_tail[type])->next_free = idx;
	free_tail[type] = idx;
}

ib_api_status_t al_handle_alloc(al_handle_type_t type, void *p_obj, al_handle_t *p_handle)
{
	return al_handle_alloc_dp(type, p_obj, NULL, p_handle);
}

ib_api_status_t al_handle_alloc_dp(al_handle_type_t type, void *p_obj, const al_handle_dp_t *p_dp,
				   al_handle_t *p_handle)
{
	al_handle_slot_t *p_slot;
	ib_api_status_t status;
	al_handle_t w;
	uint32_t idx;

	if (type <= AL_HDL_INVALID || type >= AL_HDL_TYPE_COUNT || !p_obj || !p_handle)
		return IB_INVALID_PARAMETER;

	pthread_mutex_lock(&table_lock);
	status = take_slot(type, &idx);
	if (status == IB_SUCCESS) {
		p_slot = slot_of(type, idx);
		w = live_word(al_handle_generation(__atomic_load_n(&p_slot->word, __ATOMIC_RELAXED)),
			      type);
		/* The object and the cache first, then the live word: a reader
		 * that sees the word (acquire) sees them. No reader uses the
		 * cache of a slot that is not live. */
		if (p_dp)
			p_slot->dp = *p_dp;
		else
			memset(&p_slot->dp, 0, sizeof(p_slot->dp));
		__atomic_store_n(&p_slot->p_obj, p_obj, __ATOMIC_RELEASE);
		__atomic_store_n(&p_slot->word, w, __ATOMIC_RELEASE);
		__atomic_store_n(&live_count, live_count + 1, __ATOMIC_RELAXED);
		*p_handle = w | (al_handle_t)idx << AL_HANDLE_INDEX_SHIFT;
	}
	pthread_mutex_unlock(&table_lock);
	return status;
}

/* Bits of a slot's word naming its owner: generation and type (0: free). */
#define KEY_MASK (AL_HANDLE_GEN_MASK | AL_HANDLE_TYPE_MASK)

/* The slot of an allocated (live or invalidated) handle, or NULL. */
static al_handle_slot_t *allocated_slot(al_handle_t h, al_handle_t *p_word)
{
	al_handle_slot_t *p_slot;
	al_handle_t w;

	if (!(p_slot = al_handle_slot(h)))
		return NULL;
	w = __atomic_load_n(&p_slot->word, __ATOMIC_ACQUIRE);
	if ((w ^ h) & KEY_MASK)
		return NULL;
	if (p_word)
		*p_word = w;
	return p_slot;
}

ib_api_status_t al_handle_free(al_handle_t h)
{
	return al_handle_free_ex(h, TRUE);
}

ib_api_status_t al_handle_free_ex(al_handle_t h, boolean_t wait_calls)
{
	al_handle_slot_t *p_slot = allocated_slot(h, NULL);
	ib_api_status_t status = IB_INVALID_HANDLE;
	al_handle_t w;

	if (!p_slot)
		return IB_INVALID_HANDLE;
	if (wait_calls) {
		al_handle_invalidate(h);
		al_handle_drain(h);
	}

	pthread_mutex_lock(&table_lock);
	/* Check again: another thread may have freed it meanwhile. */
	w = __atomic_load_n(&p_slot->word, __ATOMIC_ACQUIRE);
	if (!((w ^ h) & KEY_MASK)) {
		CL_ASSERT(!(w & (AL_HANDLE_LIVE | AL_HSLOT_COUNT_MASK)));
		/* Type 0 marks the slot free; the bumped generation is what the
		 * next owner's handle will carry. */
		__atomic_store_n(&p_slot->word,
				 (al_handle_t)next_gen(al_handle_generation(w)) << AL_HANDLE_GEN_SHIFT,
				 __ATOMIC_RELEASE);
		__atomic_store_n(&p_slot->p_obj, NULL, __ATOMIC_RELEASE);
		put_slot(al_handle_type(h), al_handle_index(h));
		__atomic_store_n(&live_count, live_count - 1, __ATOMIC_RELAXED);
		status = IB_SUCCESS;
	}
	pthread_mutex_unlock(&table_lock);
	return status;
}

/* ---- Invalidation and draining ---- */

boolean_t al_handle_invalidate(al_handle_t h)
{
	al_handle_t w;
	al_handle_slot_t *p_slot = allocated_slot(h, &w);

	if (!p_slot)
		return FALSE;
	do {
		if (((w ^ h) & KEY_MASK) || !(w & AL_HANDLE_LIVE))
			return FALSE;
	} while (!__atomic_compare_exchange_n(&p_slot->word, &w, w & ~AL_HANDLE_LIVE, 1,
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

/* Calls inside slot p_slot while it still holds h's key; 0 once freed. */
static uint32_t inside(al_handle_slot_t *p_slot, al_handle_t h)
{
	al_handle_t w = __atomic_load_n(&p_slot->word, __ATOMIC_ACQUIRE);

	if ((w ^ h) & KEY_MASK)
		return 0;
	return (uint32_t)((w & AL_HSLOT_COUNT_MASK) >> AL_HANDLE_INDEX_SHIFT);
}

static struct timespec deadline_after(unsigned seconds)
{
	return ibal_time_after_us(CLOCK_MONOTONIC, (uint64_t)seconds * 1000000u);
}

void al_handle_drain(al_handle_t h)
{
	al_handle_drain_since(h, AL_EPOCH_NO_SNAPSHOT);
}

void al_handle_drain_since(al_handle_t h, uint64_t snap)
{
	al_handle_t w;
	al_handle_slot_t *p_slot = allocated_slot(h, &w);
	unsigned waited_s = 0;
	struct timespec deadline;

	/* Data-path calls are not counted: they are waited for by epoch. */
	if (p_slot && al_handle_type_dp(al_handle_type(h)))
		al_epoch_synchronize_since(snap);
	if (!p_slot || !(w & AL_HSLOT_COUNT_MASK))
		return;
	CL_ASSERT(!(w & AL_HANDLE_LIVE));
	pthread_once(&drain_once, init_drain_cond);
	pthread_mutex_lock(&drain_lock);
	deadline = deadline_after(DRAIN_REPORT_S);
	while (inside(p_slot, h)) {
		if (pthread_cond_timedwait(&drain_cond, &drain_lock, &deadline) != ETIMEDOUT)
			continue;
		waited_s += DRAIN_REPORT_S;
		deadline = deadline_after(DRAIN_REPORT_S);
#ifdef _DEBUG_
		cl_msg_out("al: %s handle %#llx: %u calls still inside after %u s\n",
			   al_handle_type_str(al_handle_type(h)), (unsigned long long)h,
			   inside(p_slot, h), waited_s);
#else
		(void)waited_s;
#endif
	}
	pthread_mutex_unlock(&drain_lock);
}

/* ---- Diagnostics ---- */

uint32_t al_handle_inflight(al_handle_t h)
{
	al_handle_t w;

	if (!allocated_slot(h, &w))
		return 0;
	return (uint32_t)((w & AL_HSLOT_COUNT_MASK) >> AL_HANDLE_INDEX_SHIFT);
}

uint32_t al_handle_count(void)
{
	return __atomic_load_n(&live_count, __ATOMIC_RELAXED);
}
