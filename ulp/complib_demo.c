/*
 * ibal ulp: complib at work - a thread pool drains a work queue into a map.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Work items come from a cl_qpool and wait on a cl_qlist under a spinlock;
 * a cl_thread_pool checksums them into a cl_qmap keyed by item number; the
 * last finisher signals a cl_event the main thread waits on (bounded); a
 * self-restarting cl_timer counts ticks meanwhile. At the end the results are
 * checked against a single-threaded pass and memory tracking shows no leak.
 *
 *   ibal_complib_demo [-h | --help]
 *
 * Exit status 0 if every result is right and nothing leaked, 1 otherwise,
 * 2 for a bad command line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <complib/comp_lib.h>

#define ITEMS 2000u
#define BLOCK 4096u

typedef struct {
	cl_pool_item_t pool_item;   /* on the pool while free */
	cl_list_item_t queue_item;  /* on the work queue */
	cl_map_item_t map_item;     /* in the results map */
	uint32_t id;
	uint64_t sum;
} work_t;

typedef struct {
	cl_qpool_t pool;
	cl_qlist_t queue;
	cl_qmap_t results;
	cl_spinlock_t lock;
	cl_event_t all_done;
	cl_thread_pool_t workers;
	cl_timer_t ticker;
	atomic32_t done;
	atomic32_t ticks;
	boolean_t ticking;
} demo_t;

static uint64_t block_sum(uint32_t id)
{
	uint64_t h = 0xcbf29ce484222325ull, x = id * 0x9E3779B97F4A7C15ull + 1;
	uint32_t i;

	for (i = 0; i < BLOCK; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;   /* the block's bytes */
		h = (h ^ (uint8_t)x) * 0x100000001b3ull;   /* FNV-1a */
	}
	return h;
}

static void worker(void *context)
{
	demo_t *d = context;
	cl_list_item_t *it;

	for (;;) {
		cl_spinlock_acquire(&d->lock);
		it = cl_qlist_remove_head(&d->queue);
		cl_spinlock_release(&d->lock);
		if (it == cl_qlist_end(&d->queue))
			return;
		work_t *w = PARENT_STRUCT(it, work_t, queue_item);
		w->sum = block_sum(w->id);
		cl_spinlock_acquire(&d->lock);
		cl_qmap_insert(&d->results, w->id, &w->map_item);
		cl_spinlock_release(&d->lock);
		if (cl_atomic_inc(&d->done) == (int32_t)ITEMS)
			cl_event_signal(&d->all_done);
	}
}

static void tick(void *context)
{
	demo_t *d = context;

	cl_atomic_inc(&d->ticks);
	if (d->ticking)
		cl_timer_start(&d->ticker, 5);   /* restart from its own callback */
}

static cl_status_t demo_init(demo_t *d)
{
	cl_status_t st;

	cl_qlist_init(&d->queue);
	cl_qmap_init(&d->results);
	d->done = d->ticks = 0;
	d->ticking = TRUE;
	if ((st = cl_qpool_init(&d->pool, ITEMS, ITEMS, 0, sizeof(work_t), NULL, NULL, NULL)) ||
	    (st = cl_spinlock_init(&d->lock)) || (st = cl_event_init(&d->all_done, FALSE)) ||
	    (st = cl_timer_init(&d->ticker, tick, d)))
		return st;
	return cl_thread_pool_init(&d->workers, 0, worker, d, "demo");
}

static void demo_destroy(demo_t *d)
{
	cl_map_item_t *m;

	d->ticking = FALSE;
	cl_timer_destroy(&d->ticker);
	cl_thread_pool_destroy(&d->workers);
	while ((m = cl_qmap_head(&d->results)) != cl_qmap_end(&d->results)) {
		cl_qmap_remove_item(&d->results, m);
		cl_qpool_put(&d->pool, &PARENT_STRUCT(m, work_t, map_item)->pool_item);
	}
	cl_qpool_destroy(&d->pool);
	cl_event_destroy(&d->all_done);
	cl_spinlock_destroy(&d->lock);
}

static int report(demo_t *d, uint64_t usec)
{
	cl_map_item_t *m;
	uint32_t expect = 0, bad = 0;

	for (m = cl_qmap_head(&d->results); m != cl_qmap_end(&d->results); m = cl_qmap_next(m)) {
		work_t *w = PARENT_STRUCT(m, work_t, map_item);

		if (w->id != expect++ || w->sum != block_sum(w->id))
			bad++;
		if (w->id < 3)
			printf("  item %4u  checksum 0x%016" PRIx64 "\n", w->id, w->sum);
	}
	printf("  ...\n  %zu results in key order, %u wrong; %u threads; %.1f ms; %d timer ticks\n",
	       cl_qmap_count(&d->results), bad, cl_proc_count(), usec / 1000.0, (int)d->ticks);
	return bad || cl_qmap_count(&d->results) != ITEMS;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ibal_complib_demo [-h | --help]\n"
		"complib alone, without the access layer: a thread pool takes %u work items from\n"
		"a queue, checksums a block of %u bytes for each into a map, while a timer ticks;\n"
		"the map is checked against a single-threaded pass and memory tracking shows\n"
		"no leak. Prints the first checksums, the counts and the time, then 'demo OK'\n"
		"(status 0) or 'demo FAILED' (status 1).\n"
		"  -h, --help   this text\n",
		ITEMS, BLOCK);
}

int main(int argc, char **argv)
{
	demo_t d;
	cl_status_t st;
	uint64_t t0;
	uint32_t i;
	int rc;

	for (i = 1; i < (uint32_t)argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		fprintf(stderr, "ibal_complib_demo: unexpected argument '%s' (see --help)\n", argv[i]);
		return 2;
	}
	__cl_mem_track(TRUE);
	printf("ibal complib demo: %u blocks of %u bytes checksummed by a thread pool\n", ITEMS, BLOCK);
	if ((st = demo_init(&d)) != CL_SUCCESS) {
		fprintf(stderr, "init failed: %s\n", CL_STATUS_MSG(st));
		return 1;
	}
	cl_timer_start(&d.ticker, 5);
	t0 = cl_get_time_stamp();
	for (i = 0; i < ITEMS; i++) {
		work_t *w = PARENT_STRUCT(cl_qpool_get(&d.pool), work_t, pool_item);

		w->id = i;
		cl_qlist_insert_tail(&d.queue, &w->queue_item);
	}
	for (i = 0; i < cl_proc_count(); i++)
		cl_thread_pool_signal(&d.workers);
	st = cl_event_wait_on(&d.all_done, 30u * 1000u * 1000u, FALSE);
	printf("  wait for all items: %s\n", CL_STATUS_MSG(st));
	rc = report(&d, cl_get_time_stamp() - t0) || st != CL_SUCCESS;
	demo_destroy(&d);
	printf("  tracked allocations left after cleanup: %zu\n", cl_mem_track_count());
	rc |= cl_mem_track_count() != 0;
	__cl_mem_track(FALSE);
	printf("%s\n", rc ? "demo FAILED" : "demo OK");
	return rc;
}
