/*
 * ibal bench: times complib operations; built twice, against ibal and against OpenSM's complib.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */

/*
 * One source, two programs: bench_ibal (our headers, libibalcomp) and
 * bench_osm (-DBENCH_OSM, OpenSM's headers from -isystem
 * /usr/include/infiniband, -losmcomp). Both header sets use the same
 * include names and guards, so they can never meet in one translation unit.
 * The calls below are the ones whose signatures the two libraries share;
 * the few differences are under #ifdef BENCH_OSM.
 *
 * Output, one line per row: "<row>\t<ns per op>\t<ops timed>". A row's
 * time is the best (smallest) sample; tests/bench/run-bench.sh runs both
 * programs several times, interleaved, and keeps the best of those too.
 *
 * With -c (for callgrind), every row runs one warm-up sample and then one
 * measured sample framed by CALLGRIND_ZERO_STATS / CALLGRIND_DUMP_STATS_AT;
 * the line printed is then "CG\t<row>\t<ops>", and the
 * script divides the dump's instruction count by that.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <complib/cl_types.h>
#include <complib/cl_qlist.h>
#include <complib/cl_qmap.h>
#include <complib/cl_fleximap.h>
#include <complib/cl_map.h>
#include <complib/cl_qpool.h>
#include <complib/cl_comppool.h>
#include <complib/cl_vector.h>
#include <complib/cl_ptr_vector.h>
#include <complib/cl_spinlock.h>
#include <complib/cl_event.h>
#include <complib/cl_timer.h>
#include <complib/cl_threadpool.h>
#ifdef BENCH_OSM
#include <complib/cl_debug.h>	/* complib_init_v2(): starts OpenSM's timer provider */
#define BENCH_IMPL "OpenSM"
#else
#define BENCH_IMPL "ibal"
#endif

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define BENCH_HAVE_CALLGRIND 1
#endif
#endif
#ifndef BENCH_HAVE_CALLGRIND
#define CALLGRIND_ZERO_STATS do { } while (0)
#define CALLGRIND_DUMP_STATS_AT(name) do { (void)(name); } while (0)
#endif

/* Sizes of the ordered-map rows, and of every batch of the cheap rows. */
static const size_t map_sizes[] = { 1000, 100000, 1000000 };
static const char *const map_size_names[] = { "1e3", "1e5", "1e6" };
static const size_t cg_map_sizes[] = { 1000, 10000 };
static const char *const cg_map_size_names[] = { "1e3", "1e4" };
#define BATCH 1000u		/* operations per sample of the cheap rows */
#define OBJ_SIZE 64u		/* bytes per pool object */

static int cg_mode;		/* -c: one warm-up and one measured sample per row */
static unsigned samples_fast = 300;	/* samples of the cheap rows */
static unsigned samples_slow = 5;	/* samples of the thread round-trip rows */
static volatile uint64_t sink;	/* keeps results alive */
static unsigned long failures;	/* wrong answers from a library: the run fails */

/* ------------------------------------------------------------------ */
/* Measuring                                                            */

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One row: its name, best sample so far, and the sample counter. Short
 * samples are timed by the wall clock (vDSO, ~25 ns a read) and keep the
 * best of many, which filters out preemption. Samples of a second or so
 * are always preempted on a loaded machine, so the large-map rows read the
 * thread's CPU time instead (a system call, negligible at that length). */
typedef struct {
	char name[48];
	clockid_t clk;		/* CLOCK_MONOTONIC or CLOCK_THREAD_CPUTIME_ID */
	double best_ns;		/* best ns per op */
	uint64_t ops;		/* ops of the sample that gave best_ns (or the measured one) */
	unsigned sample;	/* samples started so far */
	uint64_t t0;
	boolean_t counted;	/* -c: this sample is the measured one */
} meter_t;

static void meter_init(meter_t *m, const char *name)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->clk = CLOCK_MONOTONIC;
	m->best_ns = -1.0;
}

static inline void meter_start(meter_t *m)
{
	m->counted = cg_mode && m->sample == 1;
	m->sample++;
	if (m->counted)
		CALLGRIND_ZERO_STATS;
	m->t0 = now_ns(m->clk);
}

static inline void meter_stop(meter_t *m, uint64_t ops)
{
	uint64_t t1 = now_ns(m->clk);
	double per_op;

	if (m->counted) {
		CALLGRIND_DUMP_STATS_AT(m->name);
		m->ops = ops;
		return;
	}
	per_op = (double)(t1 - m->t0) / (double)ops;
	if (m->best_ns < 0 || per_op < m->best_ns) {
		m->best_ns = per_op;
		m->ops = ops;
	}
}

static void meter_report(const meter_t *m)
{
	if (cg_mode)
		printf("CG\t%s\t%llu\n", m->name, (unsigned long long)m->ops);
	else
		printf("%s\t%.2f\t%llu\n", m->name, m->best_ns, (unsigned long long)m->ops);
	fflush(stdout);
}

/* Samples for a row: two under callgrind (warm-up, measured). */
static unsigned samples(unsigned n)
{
	return cg_mode ? 2 : n;
}

static void check(int ok, const char *what)
{
	if (!ok) {
		if (!failures)
			fprintf(stderr, "bench_%s: wrong result: %s\n", BENCH_IMPL, what);
		failures++;
	}
}

/* splitmix64: the same key sequence in both programs. */
static uint64_t rng_state = 0x1b873593cc9e2d51ull;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Fills keys with n random keys and perm with a random permutation of 0..n-1. */
static void make_keys(uint64_t *keys, size_t *perm, size_t n)
{
	size_t i, j, t;

	for (i = 0; i < n; i++) {
		keys[i] = rng_next();
		perm[i] = i;
	}
	for (i = n - 1; i > 0; i--) {
		j = (size_t)(rng_next() % (i + 1));
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fprintf(stderr, "bench_%s: out of memory\n", BENCH_IMPL);
		exit(2);
	}
	return p;
}

/* Map rows are measured in cycles: insert n keys, get them all in a random
 * order, remove them all in another order. Small maps get many cycles, the
 * largest two: a single sample of a second or more is too often the one
 * during which another process sweeps the shared caches. */
static unsigned map_cycles(size_t n)
{
	size_t c = 300000 / n;

	if (cg_mode)
		return 2;
	return c < 2 ? 2 : c > 300 ? 300 : (unsigned)c;
}

typedef struct {
	meter_t ins, get, rem;
} map_meters_t;

/* Maps from this size on are timed in thread CPU time (see meter_t). */
#define CPU_TIME_MIN_N 10000

static void map_meters_init(map_meters_t *mm, const char *map, const char *size, size_t n)
{
	char name[48];
	clockid_t clk = n >= CPU_TIME_MIN_N ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;

	snprintf(name, sizeof(name), "%s insert %s", map, size);
	meter_init(&mm->ins, name);
	snprintf(name, sizeof(name), "%s get %s", map, size);
	meter_init(&mm->get, name);
	snprintf(name, sizeof(name), "%s remove %s", map, size);
	meter_init(&mm->rem, name);
	mm->ins.clk = mm->get.clk = mm->rem.clk = clk;
}

static void map_meters_report(const map_meters_t *mm)
{
	meter_report(&mm->ins);
	meter_report(&mm->get);
	meter_report(&mm->rem);
}

/* ------------------------------------------------------------------ */
/* qlist                                                                */

static void bench_qlist(void)
{
	cl_list_item_t *items = xcalloc(BATCH, sizeof(*items));
	meter_t ins, rem;
	cl_qlist_t list;
	unsigned s, i;
	uintptr_t acc = 0;

	meter_init(&ins, "qlist insert_tail");
	meter_init(&rem, "qlist remove_head");
	cl_qlist_init(&list);
	for (s = 0; s < samples(samples_fast); s++) {
		meter_start(&ins);
		for (i = 0; i < BATCH; i++)
			cl_qlist_insert_tail(&list, &items[i]);
		meter_stop(&ins, BATCH);
		meter_start(&rem);
		for (i = 0; i < BATCH; i++)
			acc += (uintptr_t)cl_qlist_remove_head(&list);
		meter_stop(&rem, BATCH);
		check(cl_qlist_count(&list) == 0, "qlist not empty");
	}
	sink += acc;
	meter_report(&ins);
	meter_report(&rem);
	free(items);
}

/* ------------------------------------------------------------------ */
/* qmap, fmap, map                                                      */

typedef struct {
	cl_map_item_t item;
	uint64_t pad;
} qmap_obj_t;

static void bench_qmap_size(size_t n, const char *size_name)
{
	qmap_obj_t *objs = xcalloc(n, sizeof(*objs));
	uint64_t *keys = xcalloc(n, sizeof(*keys));
	size_t *perm = xcalloc(n, sizeof(*perm));
	map_meters_t mm;
	cl_qmap_t map;
	unsigned c, cycles = map_cycles(n);
	size_t i;
	unsigned long bad = 0;

	map_meters_init(&mm, "qmap", size_name, n);
	/* Touch the objects once, untimed: the first insert pass must not pay
	 * the page faults of the caller's memory (fmap writes its keys, map
	 * never touches its objects). */
	for (i = 0; i < n; i++)
		objs[i].pad = i;
	for (c = 0; c < cycles; c++) {
		make_keys(keys, perm, n);
		cl_qmap_init(&map);
		meter_start(&mm.ins);
		for (i = 0; i < n; i++)
			bad += cl_qmap_insert(&map, keys[i], &objs[i].item) != &objs[i].item;
		meter_stop(&mm.ins, n);
		meter_start(&mm.get);
		for (i = 0; i < n; i++)
			bad += cl_qmap_get(&map, keys[perm[i]]) != &objs[perm[i]].item;
		meter_stop(&mm.get, n);
		meter_start(&mm.rem);
		for (i = 0; i < n; i++)
			bad += cl_qmap_remove(&map, keys[perm[n - 1 - i]]) !=
			       &objs[perm[n - 1 - i]].item;
		meter_stop(&mm.rem, n);
		check(!bad && cl_qmap_count(&map) == 0, "qmap");
	}
	map_meters_report(&mm);
	free(perm);
	free(keys);
	free(objs);
}

typedef struct {
	cl_fmap_item_t item;
	uint64_t key;
} fmap_obj_t;

static int fmap_cmp(const void *const a, const void *const b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void bench_fmap_size(size_t n, const char *size_name)
{
	fmap_obj_t *objs = xcalloc(n, sizeof(*objs));
	uint64_t *keys = xcalloc(n, sizeof(*keys));
	size_t *perm = xcalloc(n, sizeof(*perm));
	map_meters_t mm;
	cl_fmap_t map;
	unsigned c, cycles = map_cycles(n);
	size_t i;
	unsigned long bad = 0;

	map_meters_init(&mm, "fmap", size_name, n);
	for (c = 0; c < cycles; c++) {
		make_keys(keys, perm, n);
		for (i = 0; i < n; i++)
			objs[i].key = keys[i];
		cl_fmap_init(&map, fmap_cmp);
		meter_start(&mm.ins);
		for (i = 0; i < n; i++)
			bad += cl_fmap_insert(&map, &objs[i].key, &objs[i].item) != &objs[i].item;
		meter_stop(&mm.ins, n);
		meter_start(&mm.get);
		for (i = 0; i < n; i++)
			bad += cl_fmap_get(&map, &keys[perm[i]]) != &objs[perm[i]].item;
		meter_stop(&mm.get, n);
		meter_start(&mm.rem);
		for (i = 0; i < n; i++)
			bad += cl_fmap_remove(&map, &keys[perm[n - 1 - i]]) !=
			       &objs[perm[n - 1 - i]].item;
		meter_stop(&mm.rem, n);
		check(!bad && cl_fmap_count(&map) == 0, "fmap");
	}
	map_meters_report(&mm);
	free(perm);
	free(keys);
	free(objs);
}

/* cl_map allocates its own items from an internal pool; it is initialized
 * afresh every cycle with a modest min_items, so inserts include the pool's
 * growth, as in programs that do not know their map's size up front. */
#define MAP_MIN_ITEMS 128

static void bench_map_size(size_t n, const char *size_name)
{
	uint64_t *objs = xcalloc(n, sizeof(*objs));
	uint64_t *keys = xcalloc(n, sizeof(*keys));
	size_t *perm = xcalloc(n, sizeof(*perm));
	map_meters_t mm;
	cl_map_t map;
	unsigned c, cycles = map_cycles(n);
	size_t i;
	unsigned long bad = 0;

	map_meters_init(&mm, "map", size_name, n);
	for (c = 0; c < cycles; c++) {
		make_keys(keys, perm, n);
		cl_map_construct(&map);
		if (cl_map_init(&map, MAP_MIN_ITEMS) != CL_SUCCESS) {
			check(0, "cl_map_init");
			break;
		}
		meter_start(&mm.ins);
		for (i = 0; i < n; i++)
			bad += cl_map_insert(&map, keys[i], &objs[i]) != &objs[i];
		meter_stop(&mm.ins, n);
		meter_start(&mm.get);
		for (i = 0; i < n; i++)
			bad += cl_map_get(&map, keys[perm[i]]) != &objs[perm[i]];
		meter_stop(&mm.get, n);
		meter_start(&mm.rem);
		for (i = 0; i < n; i++)
			bad += cl_map_remove(&map, keys[perm[n - 1 - i]]) != &objs[perm[n - 1 - i]];
		meter_stop(&mm.rem, n);
		check(!bad && cl_map_count(&map) == 0, "map");
		cl_map_destroy(&map);
	}
	map_meters_report(&mm);
	free(perm);
	free(keys);
	free(objs);
}

static void bench_maps(void (*fn)(size_t, const char *))
{
	const size_t *sizes = cg_mode ? cg_map_sizes : map_sizes;
	const char *const *names = cg_mode ? cg_map_size_names : map_size_names;
	size_t k, count = cg_mode ? sizeof(cg_map_sizes) / sizeof(cg_map_sizes[0])
				  : sizeof(map_sizes) / sizeof(map_sizes[0]);

	for (k = 0; k < count; k++)
		fn(sizes[k], names[k]);
}

static void bench_qmap(void)
{
	bench_maps(bench_qmap_size);
}

static void bench_fmap(void)
{
	bench_maps(bench_fmap_size);
}

static void bench_map(void)
{
	bench_maps(bench_map_size);
}

/* ------------------------------------------------------------------ */
/* qpool, cpool                                                         */

static void bench_qpool(void)
{
	cl_pool_item_t **got = xcalloc(BATCH, sizeof(*got));
	meter_t get, put;
	cl_qpool_t pool;
	unsigned s, i;

	meter_init(&get, "qpool get");
	meter_init(&put, "qpool put");
	cl_qpool_construct(&pool);
	if (cl_qpool_init(&pool, BATCH, 0, BATCH, OBJ_SIZE, NULL, NULL, NULL) != CL_SUCCESS) {
		check(0, "cl_qpool_init");
		free(got);
		return;
	}
	for (s = 0; s < samples(samples_fast); s++) {
		meter_start(&get);
		for (i = 0; i < BATCH; i++)
			got[i] = cl_qpool_get(&pool);
		meter_stop(&get, BATCH);
		meter_start(&put);
		for (i = 0; i < BATCH; i++)
			cl_qpool_put(&pool, got[i]);
		meter_stop(&put, BATCH);
		check(got[BATCH - 1] != NULL && cl_qpool_count(&pool) == BATCH, "qpool");
	}
	meter_report(&get);
	meter_report(&put);
	cl_qpool_destroy(&pool);
	free(got);
}

static void bench_cpool(void)
{
	void **got = xcalloc(BATCH, sizeof(*got));
	size_t comp_size[1] = { OBJ_SIZE };
	meter_t get, put;
	cl_cpool_t pool;
	unsigned s, i;

	meter_init(&get, "cpool get");
	meter_init(&put, "cpool put");
	cl_cpool_construct(&pool);
	if (cl_cpool_init(&pool, BATCH, 0, BATCH, comp_size, 1, NULL, NULL, NULL) !=
	    CL_SUCCESS) {
		check(0, "cl_cpool_init");
		free(got);
		return;
	}
	for (s = 0; s < samples(samples_fast); s++) {
		meter_start(&get);
		for (i = 0; i < BATCH; i++)
			got[i] = cl_cpool_get(&pool);
		meter_stop(&get, BATCH);
		meter_start(&put);
		for (i = 0; i < BATCH; i++)
			cl_cpool_put(&pool, got[i]);
		meter_stop(&put, BATCH);
		check(got[BATCH - 1] != NULL && cl_cpool_count(&pool) == BATCH, "cpool");
	}
	meter_report(&get);
	meter_report(&put);
	cl_cpool_destroy(&pool);
	free(got);
}

/* ------------------------------------------------------------------ */
/* vector, ptr_vector                                                   */

typedef struct {
	uint64_t a, b;
} vec_elem_t;

static void bench_vector(void)
{
	vec_elem_t *out = xcalloc(BATCH, sizeof(*out));
	meter_t set, get;
	cl_vector_t vec;
	vec_elem_t e = { 0, 0 };
	unsigned s, i;
	uint64_t acc = 0;

	meter_init(&set, "vector set");
	meter_init(&get, "vector get");
	cl_vector_construct(&vec);
	if (cl_vector_init(&vec, BATCH, BATCH, sizeof(vec_elem_t), NULL, NULL, NULL) !=
	    CL_SUCCESS || cl_vector_set_size(&vec, BATCH) != CL_SUCCESS) {
		check(0, "cl_vector_init");
		free(out);
		return;
	}
	for (s = 0; s < samples(samples_fast); s++) {
		meter_start(&set);
		for (i = 0; i < BATCH; i++) {
			e.a = i;
			cl_vector_set(&vec, i, &e);
		}
		meter_stop(&set, BATCH);
		/* Each element goes to its own slot and is summed afterwards, so
		 * that no copy waits for the previous one. */
		meter_start(&get);
		for (i = 0; i < BATCH; i++)
			cl_vector_get(&vec, i, &out[i]);
		meter_stop(&get, BATCH);
		for (i = 0; i < BATCH; i++)
			acc += out[i].a;
	}
#ifndef BENCH_OSM
	check(acc == (uint64_t)samples(samples_fast) * BATCH * (BATCH - 1) / 2, "vector");
#else
	/* OpenSM's inline cl_vector_get() copies in the wrong direction (from
	 * p_element into the vector), so its results cannot be checked; the
	 * work timed (one copy of element_size bytes) is the same. */
#endif
	sink += acc;
	meter_report(&set);
	meter_report(&get);
	cl_vector_destroy(&vec);
	free(out);
}

static void bench_ptr_vector(void)
{
	meter_t set, get;
	cl_ptr_vector_t vec;
	unsigned s, i;
	uintptr_t acc = 0;

	meter_init(&set, "ptr_vector set");
	meter_init(&get, "ptr_vector get");
	cl_ptr_vector_construct(&vec);
	if (cl_ptr_vector_init(&vec, BATCH, BATCH) != CL_SUCCESS ||
	    cl_ptr_vector_set_size(&vec, BATCH) != CL_SUCCESS) {
		check(0, "cl_ptr_vector_init");
		return;
	}
	for (s = 0; s < samples(samples_fast); s++) {
		meter_start(&set);
		for (i = 0; i < BATCH; i++)
			cl_ptr_vector_set(&vec, i, (const void *)(uintptr_t)(i + 1));
		meter_stop(&set, BATCH);
		meter_start(&get);
		for (i = 0; i < BATCH; i++)
			acc += (uintptr_t)cl_ptr_vector_get(&vec, i);
		meter_stop(&get, BATCH);
	}
	check(acc == (uintptr_t)samples(samples_fast) * BATCH * (BATCH + 1) / 2, "ptr_vector");
	sink += acc;
	meter_report(&set);
	meter_report(&get);
	cl_ptr_vector_destroy(&vec);
}

/* ------------------------------------------------------------------ */
/* spinlock, event                                                      */

static void bench_spinlock(void)
{
	meter_t m;
	cl_spinlock_t lock;
	unsigned s, i;

	meter_init(&m, "spinlock acquire+release");
	cl_spinlock_construct(&lock);
	if (cl_spinlock_init(&lock) != CL_SUCCESS) {
		check(0, "cl_spinlock_init");
		return;
	}
	for (s = 0; s < samples(samples_fast); s++) {
		meter_start(&m);
		for (i = 0; i < BATCH; i++) {
			cl_spinlock_acquire(&lock);
			sink++;
			cl_spinlock_release(&lock);
		}
		meter_stop(&m, BATCH);
	}
	meter_report(&m);
	cl_spinlock_destroy(&lock);
}

/* The partner of the ping-pong: waits on ping, answers on pong. */
typedef struct {
	cl_event_t ping, pong;
	volatile int stop;
} pingpong_t;

static void *pong_thread(void *arg)
{
	pingpong_t *pp = arg;

	for (;;) {
		if (cl_event_wait_on(&pp->ping, EVENT_NO_TIMEOUT, FALSE) != CL_SUCCESS)
			check(0, "event wait (partner)");
		if (pp->stop)
			break;
		cl_event_signal(&pp->pong);
	}
	return NULL;
}

static void bench_event(void)
{
	meter_t local, rt;
	cl_event_t ev;
	pingpong_t pp;
	pthread_t th;
	unsigned s, i;
	unsigned long bad = 0;

	meter_init(&local, "event signal+wait (1 thread)");
	meter_init(&rt, "event ping-pong (2 threads)");
	cl_event_construct(&ev);
	cl_event_construct(&pp.ping);
	cl_event_construct(&pp.pong);
	if (cl_event_init(&ev, FALSE) != CL_SUCCESS || cl_event_init(&pp.ping, FALSE) != CL_SUCCESS ||
	    cl_event_init(&pp.pong, FALSE) != CL_SUCCESS) {
		check(0, "cl_event_init");
		return;
	}
	for (s = 0; s < samples(samples_fast); s++) {
		meter_start(&local);
		for (i = 0; i < BATCH; i++) {
			cl_event_signal(&ev);
			bad += cl_event_wait_on(&ev, EVENT_NO_TIMEOUT, FALSE) != CL_SUCCESS;
		}
		meter_stop(&local, BATCH);
	}
	check(!bad, "event signal+wait");
	meter_report(&local);

	pp.stop = 0;
	if (pthread_create(&th, NULL, pong_thread, &pp)) {
		check(0, "pthread_create");
		return;
	}
	for (s = 0; s < samples(samples_slow); s++) {
		meter_start(&rt);
		for (i = 0; i < BATCH; i++) {
			cl_event_signal(&pp.ping);
			bad += cl_event_wait_on(&pp.pong, EVENT_NO_TIMEOUT, FALSE) != CL_SUCCESS;
		}
		meter_stop(&rt, BATCH);
	}
	pp.stop = 1;
	cl_event_signal(&pp.ping);
	pthread_join(th, NULL);
	check(!bad, "event ping-pong");
	meter_report(&rt);
	cl_event_destroy(&pp.pong);
	cl_event_destroy(&pp.ping);
	cl_event_destroy(&ev);
}

/* ------------------------------------------------------------------ */
/* timer                                                                */

static void timer_cb(void *context)
{
	(void)context;
	check(0, "timer fired (should have been stopped)");
}

static void bench_timer(void)
{
	meter_t m;
	cl_timer_t timer;
	unsigned s, i;

	meter_init(&m, "timer start+stop");
	cl_timer_construct(&timer);
	if (cl_timer_init(&timer, timer_cb, NULL) != CL_SUCCESS) {
		check(0, "cl_timer_init");
		return;
	}
	for (s = 0; s < samples(samples_fast / 3); s++) {
		meter_start(&m);
		for (i = 0; i < BATCH; i++) {
			cl_timer_start(&timer, 60000);
			cl_timer_stop(&timer);
		}
		meter_stop(&m, BATCH);
	}
	meter_report(&m);
	cl_timer_destroy(&timer);
}

/* ------------------------------------------------------------------ */
/* thread pool                                                          */

/* The callback records the latest request it saw and wakes the main
 * thread. One request = one signal whose callback must observe it, which
 * works whether the pool counts signals (OpenSM) or merges them (ibal). */
typedef struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t want, seen, calls;
} tp_sync_t;

static void tp_cb(void *context)
{
	tp_sync_t *t = context;

	pthread_mutex_lock(&t->lock);
	t->calls++;
	if (t->seen != t->want) {
		t->seen = t->want;
		pthread_cond_signal(&t->cond);
	}
	pthread_mutex_unlock(&t->lock);
}

/* Asks for one more callback and waits until it ran. */
static void tp_round_trip(cl_thread_pool_t *pool, tp_sync_t *t)
{
	uint64_t want;

	pthread_mutex_lock(&t->lock);
	want = ++t->want;
	pthread_mutex_unlock(&t->lock);
	cl_thread_pool_signal(pool);
	pthread_mutex_lock(&t->lock);
	while (t->seen != want)
		pthread_cond_wait(&t->cond, &t->lock);
	pthread_mutex_unlock(&t->lock);
}

static void bench_threadpool(void)
{
	meter_t burst, rt;
	cl_thread_pool_t pool;
	tp_sync_t t;
	unsigned s, i;

	meter_init(&burst, "thread_pool signal (call)");
	meter_init(&rt, "thread_pool signal->callback");
	memset(&t, 0, sizeof(t));
	pthread_mutex_init(&t.lock, NULL);
	pthread_cond_init(&t.cond, NULL);
#ifndef BENCH_OSM
	cl_thread_pool_construct(&pool);	/* OpenSM's pool has no construct */
#endif
	if (cl_thread_pool_init(&pool, 1, tp_cb, &t, "bench") != CL_SUCCESS) {
		check(0, "cl_thread_pool_init");
		return;
	}
	for (s = 0; s < samples(samples_slow); s++) {
		meter_start(&rt);
		for (i = 0; i < BATCH; i++)
			tp_round_trip(&pool, &t);
		meter_stop(&rt, BATCH);
	}
	for (s = 0; s < samples(samples_slow * 4); s++) {
		meter_start(&burst);
		for (i = 0; i < BATCH; i++)
			cl_thread_pool_signal(&pool);
		meter_stop(&burst, BATCH);
		tp_round_trip(&pool, &t);	/* drain before the next sample */
	}
	meter_report(&burst);
	meter_report(&rt);
	cl_thread_pool_destroy(&pool);
	pthread_cond_destroy(&t.cond);
	pthread_mutex_destroy(&t.lock);
}

/* ------------------------------------------------------------------ */

typedef struct {
	const char *name;
	void (*fn)(void);
} group_t;

static const group_t groups[] = {
	{ "qlist", bench_qlist },
	{ "qmap", bench_qmap },
	{ "fmap", bench_fmap },
	{ "map", bench_map },
	{ "qpool", bench_qpool },
	{ "cpool", bench_cpool },
	{ "vector", bench_vector },
	{ "ptr_vector", bench_ptr_vector },
	{ "spinlock", bench_spinlock },
	{ "event", bench_event },
	{ "timer", bench_timer },
	{ "thread_pool", bench_threadpool },
};
#define GROUP_COUNT (sizeof(groups) / sizeof(groups[0]))

static void usage(const char *prog)
{
	size_t g;

	fprintf(stderr,
		"usage: %s [-c] [-l] [GROUP...]\n"
		"  Times complib operations (%s build); prints row<TAB>ns/op<TAB>ops.\n"
		"  -c  callgrind mode: one measured sample per row, dumped by name\n"
		"  -l  list the groups\n"
		"  groups:",
		prog, BENCH_IMPL);
	for (g = 0; g < GROUP_COUNT; g++)
		fprintf(stderr, " %s", groups[g].name);
	fprintf(stderr, "\n");
}

int main(int argc, char **argv)
{
	size_t g;
	int i, first = 1, any = 0;

	while (first < argc && argv[first][0] == '-') {
		if (!strcmp(argv[first], "-c")) {
			cg_mode = 1;
		} else if (!strcmp(argv[first], "-l")) {
			for (g = 0; g < GROUP_COUNT; g++)
				printf("%s\n", groups[g].name);
			return 0;
		} else {
			usage(argv[0]);
			return 2;
		}
		first++;
	}
	for (i = first; i < argc; i++) {
		for (g = 0; g < GROUP_COUNT && strcmp(argv[i], groups[g].name); g++)
			;
		if (g == GROUP_COUNT) {
			usage(argv[0]);
			return 2;
		}
	}
#ifdef BENCH_OSM
	if (complib_init_v2() != CL_SUCCESS) {
		fprintf(stderr, "bench_%s: complib_init_v2 failed\n", BENCH_IMPL);
		return 2;
	}
#endif
	for (g = 0; g < GROUP_COUNT; g++) {
		if (first < argc) {
			for (i = first; i < argc && strcmp(argv[i], groups[g].name); i++)
				;
			if (i == argc)
				continue;
		}
		groups[g].fn();
		any = 1;
	}
#ifdef BENCH_OSM
	complib_exit();
#endif
	(void)any;
	return failures ? 1 : 0;
}
