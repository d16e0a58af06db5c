/*
 * ibal tests: MAD pools, pool keys and MAD elements: statuses, limits, lifetimes, threads.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Every test runs in a fabric directory of its own (mkdtemp, named by
 * IBAL_SOFT_FABRIC) with IBAL_SOFT_CAS=2, on the soft provider. Waits are
 * bounded condition waits, never sleeps.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include <complib/cl_memory.h>
#include "al_handle.h"
#include "al_mad_pool.h"
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/mem_track.h"

/* ---- Environment: one AL, one CA, two PDs ---- */

static char fab_dir[64];
static ib_al_handle_t h_al;
static ib_ca_handle_t h_ca;
static ib_pd_handle_t h_pd, h_pd2;

static void up(void)
{
	ib_net64_t guids[2];
	size_t n = 2;

	test_fixture_up = 1;
	strcpy(fab_dir, "/tmp/ibal-madpool-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "2", 1);
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, guids, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, guids[0], NULL, NULL, &h_ca), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_NORMAL, NULL, &h_pd), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_NORMAL, NULL, &h_pd2), IB_SUCCESS);
}

static void down(void)
{
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
	test_fixture_up = 0;
}

/* ---- Helpers ---- */

static size_t pool_out(ib_pool_handle_t h)
{
	size_t out = (size_t)-1;

	CU_ASSERT_EQUAL(al_mad_pool_counts(h, NULL, &out), IB_SUCCESS);
	return out;
}

static size_t pool_total(ib_pool_handle_t h)
{
	size_t total = (size_t)-1;

	CU_ASSERT_EQUAL(al_mad_pool_counts(h, &total, NULL), IB_SUCCESS);
	return total;
}

static int all_zero(const void *p, size_t n)
{
	const uint8_t *b = (const uint8_t *)p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

/* Gets an element and checks what every fresh element must look like. */
static ib_mad_element_t *get_checked(ib_pool_key_t key, size_t size)
{
	ib_mad_element_t *e = NULL;

	CU_ASSERT_EQUAL_FATAL(ib_get_mad(key, size, &e), IB_SUCCESS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->p_mad_buf);
	CU_ASSERT_PTR_EQUAL(ib_get_mad_buf(e), e->p_mad_buf);
	CU_ASSERT_EQUAL(e->size, size);
	CU_ASSERT(all_zero(e->p_mad_buf, size));
	CU_ASSERT_PTR_NOT_NULL(e->p_grh);
	if (e->p_grh)
		CU_ASSERT(all_zero(e->p_grh, sizeof(ib_grh_t)));
	CU_ASSERT_PTR_NULL(e->p_next);
	CU_ASSERT_PTR_NULL(e->context1);
	CU_ASSERT_PTR_NULL(e->context2);
	CU_ASSERT_PTR_NULL(e->h_av);
	CU_ASSERT_PTR_NULL(e->send_context1);
	CU_ASSERT_PTR_NULL(e->send_context2);
	CU_ASSERT_EQUAL(e->status, 0);
	CU_ASSERT_EQUAL(e->resp_expected, FALSE);
	CU_ASSERT_EQUAL(e->grh_valid, FALSE);
	CU_ASSERT_EQUAL(e->remote_qp, 0);
	CU_ASSERT_EQUAL(e->remote_lid, 0);
	CU_ASSERT_EQUAL(e->timeout_ms, 0);
	CU_ASSERT_EQUAL(e->retry_cnt, 0);
	CU_ASSERT(al_mad_elem_is_out(e));
	return e;
}

/* Dirties every field and the buffers, as a user would. */
static void dirty(ib_mad_element_t *e)
{
	memset(e->p_mad_buf, 0xA5, e->size);
	memset(e->p_grh, 0x5A, sizeof(ib_grh_t));
	e->context1 = e;
	e->context2 = e;
	e->h_av = (ib_av_handle_t)(uintptr_t)1;
	e->status = IB_WCS_LOCAL_LEN_ERR;
	e->resp_expected = TRUE;
	e->grh_valid = TRUE;
	e->remote_qp = 7;
	e->remote_lid = 9;
	e->timeout_ms = 11;
	e->retry_cnt = 3;
	e->send_context1 = e;
	e->send_context2 = e;
}

/* A handle value whose slot was freed and then given to another object:
 * churns slots with internal handles of its type (each type has its
 * own slots) until @p h_dead's slot is reused, then
 * frees them, except the one on the slot, returned in *p_keep. */
static boolean_t reuse_slot(void *h_dead, al_handle_t *p_keep)
{
	static int dummy;
	al_handle_t *hs = (al_handle_t *)calloc(AL_HANDLE_MAX / 64, sizeof(*hs));
	uint32_t i, n = 0;
	boolean_t found = FALSE;

	*p_keep = AL_HANDLE_NULL;
	while (n < AL_HANDLE_MAX / 64 &&
	       al_handle_alloc(al_handle_type(AL_HANDLE_FROM_IB(h_dead)), &dummy, &hs[n]) == IB_SUCCESS) {
		if (al_handle_index(hs[n]) == al_handle_index(AL_HANDLE_FROM_IB(h_dead))) {
			*p_keep = hs[n];
			found = TRUE;
			break;
		}
		n++;
	}
	for (i = 0; i < n; i++)
		al_handle_free(hs[i]);
	free(hs);
	return found;
}

/* ---- Destroy-callback record ---- */

static pthread_mutex_t cb_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cb_cond = PTHREAD_COND_INITIALIZER;
static int n_destroyed;
static ib_pool_handle_t cb_pool;
static ib_api_status_t cb_status;

static void AL_API on_pd_destroyed(void *context)
{
	ib_api_status_t st = IB_SUCCESS;

	(void)context;
	/* On an AL callback thread: the destroy may not wait there. */
	if (cb_pool) {
		st = ib_destroy_mad_pool(cb_pool);
		if (st == IB_SUCCESS && ib_destroy_mad_pool(cb_pool) != IB_INVALID_HANDLE)
			st = IB_ERROR;
	}
	pthread_mutex_lock(&cb_lock);
	cb_status = st;
	n_destroyed++;
	pthread_cond_broadcast(&cb_cond);
	pthread_mutex_unlock(&cb_lock);
}

static int wait_destroyed(int want)
{
	struct timespec ts;
	int v;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += TEST_WAIT_US / 1000000u;
	pthread_mutex_lock(&cb_lock);
	while (n_destroyed < want && pthread_cond_timedwait(&cb_cond, &cb_lock, &ts) == 0)
		;
	v = n_destroyed;
	pthread_mutex_unlock(&cb_lock);
	return v;
}

/* ---- Tests ---- */

static void test_create_destroy(void)
{
	ib_pool_handle_t pool = NULL, pool2;

	up();
	CU_ASSERT_EQUAL(ib_create_mad_pool(NULL, 1, 0, 1, &pool), IB_INVALID_AL_HANDLE);
	CU_ASSERT_EQUAL(ib_create_mad_pool((ib_al_handle_t)h_pd, 1, 0, 1, &pool),
			IB_INVALID_AL_HANDLE);
	CU_ASSERT_EQUAL(ib_create_mad_pool(h_al, 1, 0, 1, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_create_mad_pool(h_al, 5, 4, 1, &pool), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(ib_create_mad_pool(h_al, 0, 0, 0, &pool), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(ib_create_mad_pool(h_al, 0, 8, 0, &pool), IB_INVALID_SETTING);
	/* Allowed shapes. */
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 4, 4, 0, &pool), IB_SUCCESS);
	CU_ASSERT_EQUAL(pool_total(pool), 4);
	CU_ASSERT_EQUAL(pool_out(pool), 0);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(pool), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(pool), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(al_mad_pool_counts(pool, NULL, NULL), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 0, 0, 4, &pool), IB_SUCCESS);
	CU_ASSERT_EQUAL(pool_total(pool), 0);
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 3, 0, 0, &pool2), IB_SUCCESS);
	CU_ASSERT_PTR_NOT_EQUAL(pool, pool2);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(pool2), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(NULL), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool((ib_pool_handle_t)h_pd), IB_INVALID_HANDLE);
	/* pool is left for ib_close_al. */
	down();
}

static void test_reg_dereg(void)
{
	ib_pool_handle_t pool;
	ib_pool_key_t key = NULL, key2 = NULL;
	ib_mad_element_t *e;

	up();
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 2, 0, 2, &pool), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_reg_mad_pool(NULL, h_pd, &key), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_reg_mad_pool(NULL, NULL, &key), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_reg_mad_pool(pool, NULL, &key), IB_INVALID_PD_HANDLE);
	CU_ASSERT_EQUAL(ib_reg_mad_pool(pool, NULL, NULL), IB_INVALID_PD_HANDLE);
	CU_ASSERT_EQUAL(ib_reg_mad_pool(pool, h_pd, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd, &key), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd2, &key2), IB_SUCCESS);
	CU_ASSERT_PTR_NOT_EQUAL(key, key2);
	e = get_checked(key2, MAD_BLOCK_SIZE);
	CU_ASSERT_EQUAL(ib_put_mad(e), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_mad_pool(NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_dereg_mad_pool((ib_pool_key_t)pool), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_dereg_mad_pool(key), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_mad_pool(key), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_get_mad(key, MAD_BLOCK_SIZE, &e), IB_INVALID_PARAMETER);
	/* The other key is unaffected; a pool may be registered again. */
	e = get_checked(key2, 100);
	CU_ASSERT_EQUAL(ib_put_mad(e), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd, &key), IB_SUCCESS);
	e = get_checked(key, 100);
	CU_ASSERT_EQUAL(ib_put_mad(e), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_mad_pool(key), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_mad_pool(key2), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(pool), IB_SUCCESS);
	down();
}

static void test_get_put_fields(void)
{
	static const size_t sizes[] = { 1, 24, 100, MAD_BLOCK_SIZE, MAD_BLOCK_SIZE + 1, 4096,
					100000 };
	ib_pool_handle_t pool;
	ib_pool_key_t key;
	ib_mad_element_t *e = NULL, *e2;
	size_t i;
	int round;

	up();
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 1, 0, 1, &pool), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd, &key), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_get_mad(NULL, MAD_BLOCK_SIZE, &e), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_get_mad(key, MAD_BLOCK_SIZE, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_get_mad(key, 0, &e), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_get_mad(key, 0xFFFFFFFFu, &e), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(pool_out(pool), 0);
	/* A one-element pool: every round reuses the element the previous
	 * round dirtied, and it comes back clean. */
	for (round = 0; round < 2; round++) {
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			e = get_checked(key, sizes[i]);
			CU_ASSERT_EQUAL(pool_total(pool), 1);
			CU_ASSERT_EQUAL(pool_out(pool), 1);
			if (sizes[i] <= MAD_BLOCK_SIZE)
				/* GRH then the MAD, contiguous, as a receive scatters them. */
				CU_ASSERT_PTR_EQUAL((uint8_t *)e->p_mad_buf,
						    (uint8_t *)e->p_grh + sizeof(ib_grh_t));
			dirty(e);
			CU_ASSERT_EQUAL(ib_put_mad(e), IB_SUCCESS);
			CU_ASSERT_EQUAL(pool_out(pool), 0);
		}
	}
	/* Two at once are distinct. */
	e = get_checked(key, MAD_BLOCK_SIZE);
	e2 = get_checked(key, MAD_BLOCK_SIZE);
	CU_ASSERT_PTR_NOT_EQUAL(e, e2);
	CU_ASSERT_PTR_NOT_EQUAL(e->p_mad_buf, e2->p_mad_buf);
	CU_ASSERT_EQUAL(pool_total(pool), 2);
	e->p_next = e2;
	CU_ASSERT_EQUAL(ib_put_mad(e), IB_SUCCESS);
	CU_ASSERT_EQUAL(pool_out(pool), 0);
	down();
}

static void test_limits(void)
{
	ib_mad_element_t *list = NULL, *e;
	ib_pool_handle_t pool;
	ib_pool_key_t key;
	int i;

	up();
	/* min 2, max 5, grow 2: 2, 4, then 5 (the last growth clamped). */
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 2, 5, 2, &pool), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd, &key), IB_SUCCESS);
	CU_ASSERT_EQUAL(pool_total(pool), 2);
	for (i = 0; i < 5; i++) {
		e = get_checked(key, MAD_BLOCK_SIZE);
		e->p_next = list;
		list = e;
		if (i == 1)
			CU_ASSERT_EQUAL(pool_total(pool), 2);
		if (i == 2)
			CU_ASSERT_EQUAL(pool_total(pool), 4);
	}
	CU_ASSERT_EQUAL(pool_total(pool), 5);
	CU_ASSERT_EQUAL(ib_get_mad(key, MAD_BLOCK_SIZE, &e), IB_INSUFFICIENT_RESOURCES);
	CU_ASSERT_EQUAL(ib_get_mad(key, 1000, &e), IB_INSUFFICIENT_RESOURCES);
	CU_ASSERT_EQUAL(pool_out(pool), 5);
	CU_ASSERT_EQUAL(ib_put_mad(list), IB_SUCCESS);
	/* All five again, with no more growth. */
	list = NULL;
	for (i = 0; i < 5; i++) {
		e = get_checked(key, 300);
		e->p_next = list;
		list = e;
	}
	CU_ASSERT_EQUAL(pool_total(pool), 5);
	CU_ASSERT_EQUAL(ib_put_mad(list), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(pool), IB_SUCCESS);

	/* Fixed pool: min 3, grow 0. */
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 3, 0, 0, &pool), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd, &key), IB_SUCCESS);
	list = NULL;
	for (i = 0; i < 3; i++) {
		e = get_checked(key, MAD_BLOCK_SIZE);
		e->p_next = list;
		list = e;
	}
	CU_ASSERT_EQUAL(ib_get_mad(key, MAD_BLOCK_SIZE, &e), IB_INSUFFICIENT_RESOURCES);
	CU_ASSERT_EQUAL(pool_total(pool), 3);
	CU_ASSERT_EQUAL(ib_put_mad(list), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(pool), IB_SUCCESS);

	/* Unlimited pool from nothing: grows by 3 on demand. */
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 0, 0, 3, &pool), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd, &key), IB_SUCCESS);
	CU_ASSERT_EQUAL(pool_total(pool), 0);
	list = NULL;
	for (i = 0; i < 10; i++) {
		e = get_checked(key, MAD_BLOCK_SIZE);
		e->p_next = list;
		list = e;
		CU_ASSERT_EQUAL(pool_total(pool), (size_t)(i / 3 + 1) * 3);
	}
	CU_ASSERT_EQUAL(ib_put_mad(list), IB_SUCCESS);
	CU_ASSERT_EQUAL(pool_out(pool), 0);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(pool), IB_SUCCESS);

	/* A growth larger than max is clamped to max. */
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 0, 2, 100, &pool), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd, &key), IB_SUCCESS);
	e = get_checked(key, 1);
	CU_ASSERT_EQUAL(pool_total(pool), 2);
	CU_ASSERT_EQUAL(ib_put_mad(e), IB_SUCCESS);
	down();
}

static void test_busy(void)
{
	ib_pool_handle_t pool;
	ib_pool_key_t key, key2, key3;
	ib_mad_element_t *e;

	up();
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 2, 0, 2, &pool), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd, &key), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd2, &key2), IB_SUCCESS);
	e = get_checked(key, 2000);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(pool), IB_RESOURCE_BUSY);
	CU_ASSERT_EQUAL(ib_dereg_mad_pool(key), IB_RESOURCE_BUSY);
	/* Still usable after the refusals. */
	CU_ASSERT_EQUAL(pool_out(pool), 1);
	/* Busy is per key: the other one goes. */
	CU_ASSERT_EQUAL(ib_dereg_mad_pool(key2), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_put_mad(e), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_mad_pool(key), IB_SUCCESS);
	/* Keys registered but no element out: the pool goes, with its keys. */
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd, &key), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd2, &key3), IB_SUCCESS);
	e = get_checked(key3, 10);
	CU_ASSERT_EQUAL(ib_put_mad(e), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(pool), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_get_mad(key, MAD_BLOCK_SIZE, &e), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_dereg_mad_pool(key), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_dereg_mad_pool(key3), IB_INVALID_PARAMETER);
	/* The PDs are untouched. */
	CU_ASSERT_EQUAL(ib_dealloc_pd(h_pd2, ib_sync_destroy), IB_SUCCESS);
	down();
}

static void test_put_validation(void)
{
	ib_pool_handle_t pool, pool2;
	ib_pool_key_t key, key2, key3;
	ib_mad_element_t *a, *b, *c, *d;
	al_mad_elem_t *fake;

	up();
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 4, 0, 4, &pool), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 4, 0, 4, &pool2), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd, &key), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd2, &key2), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool2, h_pd, &key3), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_put_mad(NULL), IB_INVALID_PARAMETER);

	/* Double put. */
	a = get_checked(key, MAD_BLOCK_SIZE);
	CU_ASSERT_EQUAL(ib_put_mad(a), IB_SUCCESS);
	CU_ASSERT_FALSE(al_mad_elem_is_out(a));
	CU_ASSERT_EQUAL(ib_put_mad(a), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(pool_out(pool), 0);

	/* A list with a returned element in it: nothing is returned. */
	a = get_checked(key, MAD_BLOCK_SIZE);
	b = get_checked(key, 600);
	c = get_checked(key, MAD_BLOCK_SIZE);
	CU_ASSERT_EQUAL(ib_put_mad(c), IB_SUCCESS);
	a->p_next = b;
	b->p_next = c;
	CU_ASSERT_EQUAL(ib_put_mad(a), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(pool_out(pool), 2);
	CU_ASSERT(al_mad_elem_is_out(a) && al_mad_elem_is_out(b));
	/* A list that loops: nothing is returned either. */
	b->p_next = a;
	CU_ASSERT_EQUAL(ib_put_mad(a), IB_INVALID_PARAMETER);
	a->p_next = a;
	CU_ASSERT_EQUAL(ib_put_mad(a), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(pool_out(pool), 2);
	CU_ASSERT(al_mad_elem_is_out(a) && al_mad_elem_is_out(b));

	/* Elements that never came from a pool: zeroed memory, and a copy of
	 * an element that is out. */
	fake = (al_mad_elem_t *)calloc(1, sizeof(*fake));
	CU_ASSERT_PTR_NOT_NULL_FATAL(fake);
	CU_ASSERT_EQUAL(ib_put_mad(&fake->element), IB_INVALID_PARAMETER);
	memcpy(fake, al_mad_elem_from_ib(a), sizeof(*fake));
	fake->element.p_next = NULL;
	CU_ASSERT_EQUAL(ib_put_mad(&fake->element), IB_INVALID_PARAMETER);
	a->p_next = &fake->element;
	CU_ASSERT_EQUAL(ib_put_mad(a), IB_INVALID_PARAMETER);
	free(fake);
	/* An object of the caller's, just an element's size: refused without
	 * reading past its end (ASan would tell). */
	{
		ib_mad_element_t *mine = (ib_mad_element_t *)calloc(1, sizeof(*mine));

		CU_ASSERT_PTR_NOT_NULL_FATAL(mine);
		CU_ASSERT_EQUAL(ib_put_mad(mine), IB_INVALID_PARAMETER);
		a->p_next = mine;
		CU_ASSERT_EQUAL(ib_put_mad(a), IB_INVALID_PARAMETER);
		free(mine);
	}
	CU_ASSERT_EQUAL(pool_out(pool), 2);

	/* A list across two keys of one pool and a second pool. */
	c = get_checked(key2, MAD_BLOCK_SIZE);
	d = get_checked(key3, 5000);
	CU_ASSERT_EQUAL(pool_out(pool2), 1);
	a->p_next = d;
	d->p_next = b;
	b->p_next = c;
	CU_ASSERT_EQUAL(ib_put_mad(a), IB_SUCCESS);
	CU_ASSERT_EQUAL(pool_out(pool), 0);
	CU_ASSERT_EQUAL(pool_out(pool2), 0);
	CU_ASSERT_EQUAL(ib_dereg_mad_pool(key), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_mad_pool(key2), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(pool), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(pool2), IB_SUCCESS);
	down();
}

/* A PD destroyed under a registered key: the key goes, its elements stay
 * out (orphaned) until they are put back. */
static void test_pd_destroyed(void)
{
	ib_pool_handle_t pool;
	ib_pool_key_t key, key2;
	ib_pd_handle_t pd3;
	ib_mad_element_t *a, *b, *c;

	up();
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 2, 0, 2, &pool), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd2, &key), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd, &key2), IB_SUCCESS);
	a = get_checked(key, MAD_BLOCK_SIZE);
	b = get_checked(key, 3000);
	c = get_checked(key2, MAD_BLOCK_SIZE);
	CU_ASSERT_EQUAL(ib_dealloc_pd(h_pd2, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_get_mad(key, MAD_BLOCK_SIZE, &a->p_next), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_dereg_mad_pool(key), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(pool_out(pool), 3);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(pool), IB_RESOURCE_BUSY);
	/* The orphans are still good memory and go back normally. */
	memset(b->p_mad_buf, 1, b->size);
	a->p_next = b;
	CU_ASSERT_EQUAL(ib_put_mad(a), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(pool), IB_RESOURCE_BUSY);
	CU_ASSERT_EQUAL(ib_dereg_mad_pool(key2), IB_RESOURCE_BUSY);
	CU_ASSERT_EQUAL(ib_put_mad(c), IB_SUCCESS);

	/* Asynchronous PD destroy with a callback, key registered. */
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_NORMAL, NULL, &pd3), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, pd3, &key), IB_SUCCESS);
	a = get_checked(key, MAD_BLOCK_SIZE);
	n_destroyed = 0;
	cb_pool = NULL;
	CU_ASSERT_EQUAL(ib_dealloc_pd(pd3, on_pd_destroyed), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_destroyed(1), 1);
	CU_ASSERT_EQUAL(ib_get_mad(key, MAD_BLOCK_SIZE, &b), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_put_mad(a), IB_SUCCESS);

	/* ib_destroy_mad_pool from an AL callback thread (a destroy callback)
	 * works, asynchronously: the handle is invalid at once. */
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_NORMAL, NULL, &pd3), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, pd3, &key), IB_SUCCESS);
	n_destroyed = 0;
	cb_pool = pool;
	cb_status = IB_ERROR;
	CU_ASSERT_EQUAL(ib_dealloc_pd(pd3, on_pd_destroyed), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_destroyed(1), 1);
	CU_ASSERT_EQUAL(cb_status, IB_SUCCESS);
	cb_pool = NULL;
	CU_ASSERT_EQUAL(ib_dereg_mad_pool(key2), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_get_mad(key2, MAD_BLOCK_SIZE, &a), IB_INVALID_PARAMETER);

	/* ib_close_ca takes the keys of its PDs. */
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 1, 0, 1, &pool), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd, &key), IB_SUCCESS);
	a = get_checked(key, 700);
	CU_ASSERT_EQUAL(ib_close_ca(h_ca, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_get_mad(key, MAD_BLOCK_SIZE, &b), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_put_mad(a), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(pool), IB_SUCCESS);
	down();
}

/* ib_close_al with pools, keys and elements out releases everything. */
static void test_close_al_releases_all(void)
{
	ib_pool_handle_t pool, pool2;
	ib_pool_key_t key, key2;
	ib_mad_element_t *e;
	ib_al_handle_t h_al2;
	uint32_t handles;
	int i;

	handles = al_handle_count();
	test_track_begin();
	up();
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 4, 0, 4, &pool), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 0, 16, 8, &pool2), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd, &key), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool2, h_pd2, &key2), IB_SUCCESS);
	for (i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL(ib_get_mad(key, i & 1 ? 9000 : MAD_BLOCK_SIZE, &e), IB_SUCCESS);
		CU_ASSERT_EQUAL(ib_get_mad(key2, i & 1 ? 300 : 64, &e), IB_SUCCESS);
	}
	/* A second instance's pool registered on this instance's PD. */
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al2), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al2, 1, 0, 1, &pool2), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool2, h_pd, &key2), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_get_mad(key2, 500, &e), IB_SUCCESS);
	down();
	/* The key went with the PD; the element is orphaned, not lost. */
	CU_ASSERT_EQUAL(ib_get_mad(key2, 1, &e), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(pool2), IB_RESOURCE_BUSY);
	CU_ASSERT_EQUAL(ib_close_al(h_al2), IB_SUCCESS);
	/* Its pool went with the instance: the element is refused, its memory
	 * not read (it is freed). */
	CU_ASSERT_EQUAL(ib_put_mad(e), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(al_handle_count(), handles);
	test_track_end();
}

static void test_bad_handle_sweep(void)
{
	ib_pool_handle_t good_pool, b_pool, pool_out_h;
	ib_pool_key_t good_key, b_key, key_out;
	ib_pd_handle_t b_pd;
	ib_mad_element_t *e = NULL;
	al_handle_t keep;
	int round;

	up();
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 1, 0, 1, &good_pool), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(good_pool, h_pd, &good_key), IB_SUCCESS);
	/* round 0: NULL; 1: wrong type; 2: destroyed; 3: destroyed, slot reused */
	for (round = 0; round < 4; round++) {
		b_pool = NULL;
		b_key = NULL;
		b_pd = NULL;
		if (round == 1) {
			b_pool = (ib_pool_handle_t)h_pd;
			b_key = (ib_pool_key_t)good_pool;
			b_pd = (ib_pd_handle_t)good_key;
		} else if (round >= 2) {
			CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_NORMAL, NULL, &b_pd),
					      IB_SUCCESS);
			CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 1, 0, 1, &b_pool),
					      IB_SUCCESS);
			CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(b_pool, b_pd, &b_key), IB_SUCCESS);
			CU_ASSERT_EQUAL(ib_dereg_mad_pool(b_key), IB_SUCCESS);
			CU_ASSERT_EQUAL(ib_destroy_mad_pool(b_pool), IB_SUCCESS);
			CU_ASSERT_EQUAL(ib_dealloc_pd(b_pd, ib_sync_destroy), IB_SUCCESS);
			if (round == 3) {
				CU_ASSERT_FATAL(reuse_slot(b_key, &keep));
				CU_ASSERT_EQUAL(ib_get_mad(b_key, 1, &e), IB_INVALID_PARAMETER);
				CU_ASSERT_EQUAL(ib_dereg_mad_pool(b_key), IB_INVALID_PARAMETER);
				al_handle_free(keep);
				CU_ASSERT_FATAL(reuse_slot(b_pool, &keep));
				CU_ASSERT_EQUAL(ib_destroy_mad_pool(b_pool), IB_INVALID_HANDLE);
				CU_ASSERT_EQUAL(ib_reg_mad_pool(b_pool, h_pd, &key_out),
						IB_INVALID_HANDLE);
				al_handle_free(keep);
			}
		}
		CU_ASSERT_EQUAL(ib_destroy_mad_pool(b_pool), IB_INVALID_HANDLE);
		CU_ASSERT_EQUAL(ib_reg_mad_pool(b_pool, h_pd, &key_out), IB_INVALID_HANDLE);
		CU_ASSERT_EQUAL(ib_reg_mad_pool(good_pool, b_pd, &key_out), IB_INVALID_PD_HANDLE);
		CU_ASSERT_EQUAL(ib_dereg_mad_pool(b_key), IB_INVALID_PARAMETER);
		CU_ASSERT_EQUAL(ib_get_mad(b_key, MAD_BLOCK_SIZE, &e), IB_INVALID_PARAMETER);
		CU_ASSERT_EQUAL(al_mad_pool_counts(b_pool, NULL, NULL), IB_INVALID_HANDLE);
		CU_ASSERT_EQUAL(ib_create_mad_pool((ib_al_handle_t)b_pool, 1, 0, 1, &pool_out_h),
				IB_INVALID_AL_HANDLE);
	}
	/* The good ones still work. */
	e = get_checked(good_key, MAD_BLOCK_SIZE);
	CU_ASSERT_EQUAL(ib_put_mad(e), IB_SUCCESS);
	down();
}

/* The calls of the MAD services: get from a key pointer, resize, key of an
 * element, internal keys. */
static void test_internal_calls(void)
{
	ib_pool_handle_t h_pool;
	ib_pool_key_t h_key, h_ikey;
	al_pool_t *p_pool;
	al_pool_key_t *p_key, *p_ikey, *p_ref;
	al_pd_t *p_pd;
	al_mad_elem_t *p_elem;
	ib_mad_element_t *e;
	uint8_t *b;
	size_t i;

	up();
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 1, 0, 1, &h_pool), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(h_pool, h_pd, &h_key), IB_SUCCESS);
	p_pool = (al_pool_t *)al_handle_lookup(AL_HANDLE_FROM_IB(h_pool), AL_HDL_MAD_POOL);
	p_key = (al_pool_key_t *)al_handle_lookup(AL_HANDLE_FROM_IB(h_key), AL_HDL_POOL_KEY);
	p_pd = (al_pd_t *)al_handle_lookup(AL_HANDLE_FROM_IB(h_pd), AL_HDL_PD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p_pool);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p_key);
	CU_ASSERT_PTR_EQUAL(al_pool_key_pd(p_key), p_pd);

	CU_ASSERT_EQUAL(al_mad_pool_get(p_key, 0, &p_elem), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL_FATAL(al_mad_pool_get(p_key, 200, &p_elem), IB_SUCCESS);
	e = &p_elem->element;
	CU_ASSERT_PTR_EQUAL(al_mad_elem_from_ib(e), p_elem);
	CU_ASSERT_EQUAL(e->size, 200);
	p_ref = al_mad_elem_key_ref(p_elem);
	CU_ASSERT_PTR_EQUAL(p_ref, p_key);
	if (p_ref)
		al_obj_deref(&p_ref->obj);
	/* Resize: within the block, then past it twice, then smaller. */
	b = (uint8_t *)e->p_mad_buf;
	for (i = 0; i < 200; i++)
		b[i] = (uint8_t)i;
	CU_ASSERT_EQUAL(al_mad_elem_resize(p_elem, 0), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(al_mad_elem_resize(p_elem, 0xFFFFFFFFu), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(al_mad_elem_resize(p_elem, MAD_BLOCK_SIZE), IB_SUCCESS);
	CU_ASSERT_PTR_EQUAL(e->p_mad_buf, b);
	CU_ASSERT(all_zero(b + 200, MAD_BLOCK_SIZE - 200));
	CU_ASSERT_EQUAL(al_mad_elem_resize(p_elem, 1000), IB_SUCCESS);
	CU_ASSERT_EQUAL(e->size, 1000);
	b = (uint8_t *)e->p_mad_buf;
	for (i = 0; i < 200; i++)
		CU_ASSERT_EQUAL_FATAL(b[i], (uint8_t)i);
	CU_ASSERT(all_zero(b + 200, 800));
	memset(b + 200, 0xEE, 800);
	CU_ASSERT_EQUAL(al_mad_elem_resize(p_elem, 70000), IB_SUCCESS);
	b = (uint8_t *)e->p_mad_buf;
	CU_ASSERT_EQUAL(b[199], 199);
	CU_ASSERT_EQUAL(b[999], 0xEE);
	CU_ASSERT(all_zero(b + 1000, 69000));
	CU_ASSERT_EQUAL(al_mad_elem_resize(p_elem, 10), IB_SUCCESS);
	CU_ASSERT_EQUAL(e->size, 10);
	CU_ASSERT_EQUAL(al_mad_elem_resize(p_elem, 500), IB_SUCCESS);
	CU_ASSERT(all_zero(b + 10, 490));
	CU_ASSERT_EQUAL(ib_put_mad(e), IB_SUCCESS);

	/* An internal key: usable through its handle, refused by dereg,
	 * destroyed by the access layer, orphaning its elements. */
	CU_ASSERT_EQUAL_FATAL(al_pool_key_create(p_pool, p_pd, TRUE, &p_ikey, &h_ikey),
			      IB_SUCCESS);
	CU_ASSERT_PTR_EQUAL(al_handle_lookup(AL_HANDLE_FROM_IB(h_ikey), AL_HDL_POOL_KEY), p_ikey);
	e = get_checked(h_ikey, MAD_BLOCK_SIZE);
	CU_ASSERT_EQUAL(ib_dereg_mad_pool(h_ikey), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL_FATAL(al_mad_pool_get(p_ikey, 20, &p_elem), IB_SUCCESS);
	al_pool_key_destroy(p_ikey);
	CU_ASSERT_PTR_NULL(al_mad_elem_key_ref(p_elem));
	CU_ASSERT_EQUAL(ib_get_mad(h_ikey, MAD_BLOCK_SIZE, &e->p_next), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(pool_out(h_pool), 2);
	al_mad_pool_put(p_elem);
	CU_ASSERT_EQUAL(ib_put_mad(e), IB_SUCCESS);
	CU_ASSERT_EQUAL(pool_out(h_pool), 0);

	/* A key on a PD being destroyed, or on a pool being destroyed (kept
	 * in memory by a reference meanwhile). */
	p_pd = (al_pd_t *)al_handle_lookup(AL_HANDLE_FROM_IB(h_pd2), AL_HDL_PD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p_pd);
	al_obj_ref(&p_pd->v.obj);
	CU_ASSERT_EQUAL(ib_dealloc_pd(h_pd2, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_pool_key_create(p_pool, p_pd, FALSE, &p_ikey, NULL),
			IB_INVALID_PD_HANDLE);
	al_obj_deref(&p_pd->v.obj);
	p_pd = (al_pd_t *)al_handle_lookup(AL_HANDLE_FROM_IB(h_pd), AL_HDL_PD);
	al_obj_ref(&p_pool->obj);
	CU_ASSERT_EQUAL(al_obj_destroy(&p_pool->obj, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_pool_key_create(p_pool, p_pd, FALSE, &p_ikey, NULL), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_get_mad(h_key, MAD_BLOCK_SIZE, &e), IB_INVALID_PARAMETER);
	al_obj_deref(&p_pool->obj);

	/* A pool under another object (a PD here) goes with it, elements out
	 * and all. */
	CU_ASSERT_EQUAL(al_mad_pool_create(&p_pd->v.obj, 5, 4, 1, &p_pool, &h_pool),
			IB_INVALID_SETTING);
	CU_ASSERT_EQUAL_FATAL(al_mad_pool_create(&p_pd->v.obj, 1, 0, 1, &p_pool, &h_pool),
			      IB_SUCCESS);
	CU_ASSERT_PTR_EQUAL(al_handle_lookup(AL_HANDLE_FROM_IB(h_pool), AL_HDL_MAD_POOL), p_pool);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(h_pool, h_pd, &h_key), IB_SUCCESS);
	e = get_checked(h_key, 3000);
	CU_ASSERT_EQUAL(ib_dealloc_pd(h_pd, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_mad_pool_counts(h_pool, NULL, NULL), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_get_mad(h_key, MAD_BLOCK_SIZE, &e), IB_INVALID_PARAMETER);
	down();
}

/* ---- Threads ---- */

#define MT_THREADS 4
#define MT_ROUNDS 400

static struct {
	ib_pool_key_t keys[2];
	ib_pool_handle_t pool;
	int errors;
	int gets;
} mt;

static void *mt_worker(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	unsigned seed = (unsigned)id * 7919u + 1;
	ib_mad_element_t *list, *e;
	int round, n, i, errors = 0, gets = 0;
	size_t size;

	for (round = 0; round < MT_ROUNDS; round++) {
		list = NULL;
		n = 1 + (int)(rand_r(&seed) % 4);
		for (i = 0; i < n; i++) {
			size = (rand_r(&seed) % 8 == 0) ? 256 + rand_r(&seed) % 2000
							 : 1 + rand_r(&seed) % 256;
			if (ib_get_mad(mt.keys[(round + i) & 1], size, &e) != IB_SUCCESS) {
				errors++;
				continue;
			}
			gets++;
			if (e->size != size || !all_zero(e->p_mad_buf, size) ||
			    !all_zero(e->p_grh, sizeof(ib_grh_t)) || e->context1 || e->p_next)
				errors++;
			/* Mark it as ours: a second owner would overwrite it. */
			memset(e->p_mad_buf, (int)(id + 1), size);
			e->context1 = (void *)id;
			e->p_next = list;
			list = e;
		}
		for (e = list; e; e = e->p_next)
			if ((uintptr_t)e->context1 != id ||
			    ((uint8_t *)e->p_mad_buf)[e->size - 1] != (uint8_t)(id + 1))
				errors++;
		if (list && ib_put_mad(list) != IB_SUCCESS)
			errors++;
	}
	__atomic_add_fetch(&mt.errors, errors, __ATOMIC_RELAXED);
	__atomic_add_fetch(&mt.gets, gets, __ATOMIC_RELAXED);
	return NULL;
}

/* A key registered and deregistered over and over on the same pool while
 * the workers run. */
static void *mt_churn(void *arg)
{
	ib_pool_key_t key;
	ib_mad_element_t *e;
	int i, errors = 0;

	(void)arg;
	for (i = 0; i < MT_ROUNDS / 4; i++) {
		if (ib_reg_mad_pool(mt.pool, h_pd2, &key) != IB_SUCCESS) {
			errors++;
			continue;
		}
		if (ib_get_mad(key, 64, &e) != IB_SUCCESS || ib_put_mad(e) != IB_SUCCESS)
			errors++;
		if (ib_dereg_mad_pool(key) != IB_SUCCESS)
			errors++;
	}
	__atomic_add_fetch(&mt.errors, errors, __ATOMIC_RELAXED);
	return NULL;
}

static void test_threads(void)
{
	pthread_t th[MT_THREADS + 1];
	uintptr_t i;

	up();
	mt.errors = 0;
	mt.gets = 0;
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 4, 64, 4, &mt.pool), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(mt.pool, h_pd, &mt.keys[0]), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(mt.pool, h_pd2, &mt.keys[1]), IB_SUCCESS);
	for (i = 0; i < MT_THREADS; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, mt_worker, (void *)i), 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th[MT_THREADS], NULL, mt_churn, NULL), 0);
	for (i = 0; i <= MT_THREADS; i++)
		pthread_join(th[i], NULL);
	CU_ASSERT_EQUAL(mt.errors, 0);
	CU_ASSERT(mt.gets >= MT_THREADS * MT_ROUNDS);
	CU_ASSERT_EQUAL(pool_out(mt.pool), 0);
	CU_ASSERT(pool_total(mt.pool) <= 64);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(mt.pool), IB_SUCCESS);
	down();
}

/* Gets racing the destruction of the key's PD: each either works or
 * reports the invalid key; every element obtained goes back. */
static struct {
	ib_pool_key_t key;
	int iterations; /* cb_lock */
	int bad;
} race;

static void *race_worker(void *arg)
{
	ib_mad_element_t *e;
	ib_api_status_t st;
	int gone = 0;

	(void)arg;
	while (!gone) {
		st = ib_get_mad(race.key, 100, &e);
		if (st == IB_SUCCESS) {
			if (ib_put_mad(e) != IB_SUCCESS)
				race.bad++;
		} else if (st == IB_INVALID_PARAMETER) {
			gone = 1;
		} else {
			race.bad++;
		}
		pthread_mutex_lock(&cb_lock);
		race.iterations++;
		pthread_cond_broadcast(&cb_cond);
		pthread_mutex_unlock(&cb_lock);
	}
	return NULL;
}

static void test_destroy_races_get(void)
{
	ib_pool_handle_t pool;
	ib_pd_handle_t pd;
	pthread_t th;
	struct timespec ts;
	int round;

	up();
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 2, 0, 2, &pool), IB_SUCCESS);
	for (round = 0; round < 12; round++) {
		CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_NORMAL, NULL, &pd), IB_SUCCESS);
		CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, pd, &race.key), IB_SUCCESS);
		pthread_mutex_lock(&cb_lock);
		race.iterations = 0;
		pthread_mutex_unlock(&cb_lock);
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, race_worker, NULL), 0);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += TEST_WAIT_US / 1000000u;
		pthread_mutex_lock(&cb_lock);
		while (race.iterations < 1 + round &&
		       pthread_cond_timedwait(&cb_cond, &cb_lock, &ts) == 0)
			;
		pthread_mutex_unlock(&cb_lock);
		switch (round % 3) {
		case 0:
			CU_ASSERT_EQUAL(ib_dealloc_pd(pd, ib_sync_destroy), IB_SUCCESS);
			break;
		case 1:
			CU_ASSERT_EQUAL(ib_dealloc_pd(pd, NULL), IB_SUCCESS);
			break;
		default: {
			ib_api_status_t st;

			/* Busy while the worker holds an element: retry. */
			while ((st = ib_dereg_mad_pool(race.key)) == IB_RESOURCE_BUSY)
				;
			CU_ASSERT_EQUAL(st, IB_SUCCESS);
			CU_ASSERT_EQUAL(ib_dealloc_pd(pd, NULL), IB_SUCCESS);
		}
		}
		pthread_join(th, NULL);
		CU_ASSERT_EQUAL(pool_out(pool), 0);
	}
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(pool), IB_SUCCESS);

	/* The pool itself destroyed under the gets: busy while the worker
	 * holds an element, then destroyed with its key, never with an
	 * element out (the worker's put would touch freed memory). */
	for (round = 0; round < 12; round++) {
		ib_api_status_t st;

		CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(h_al, 1, 0, 1, &pool), IB_SUCCESS);
		CU_ASSERT_EQUAL_FATAL(ib_reg_mad_pool(pool, h_pd, &race.key), IB_SUCCESS);
		pthread_mutex_lock(&cb_lock);
		race.iterations = 0;
		pthread_mutex_unlock(&cb_lock);
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, race_worker, NULL), 0);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += TEST_WAIT_US / 1000000u;
		pthread_mutex_lock(&cb_lock);
		while (race.iterations < 1 + round &&
		       pthread_cond_timedwait(&cb_cond, &cb_lock, &ts) == 0)
			;
		pthread_mutex_unlock(&cb_lock);
		while ((st = ib_destroy_mad_pool(pool)) == IB_RESOURCE_BUSY)
			;
		CU_ASSERT_EQUAL(st, IB_SUCCESS);
		pthread_join(th, NULL);
	}
	CU_ASSERT_EQUAL(race.bad, 0);
	down();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_create_destroy),
	TEST_ENTRY(test_reg_dereg),
	TEST_ENTRY(test_get_put_fields),
	TEST_ENTRY(test_limits),
	TEST_ENTRY(test_busy),
	TEST_ENTRY(test_put_validation),
	TEST_ENTRY(test_pd_destroyed),
	TEST_ENTRY(test_close_al_releases_all),
	TEST_ENTRY(test_bad_handle_sweep),
	TEST_ENTRY(test_internal_calls),
	TEST_ENTRY(test_threads),
	TEST_ENTRY(test_destroy_races_get),
};

TEST_MAIN("al_mad_pool", tests)
