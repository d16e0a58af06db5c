/*
 * ibal tests: cl_timer and the time stamp functions.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <pthread.h>
#include <time.h>
#include <complib/cl_timer.h>
#include <complib/cl_event.h>
#include <complib/cl_atomic.h>
#include "../common/cl_test.h"

#define NEVER_US 150000	/* how long we watch for a callback that must not come */

/* A timer with the bookkeeping its callback fills in. */
typedef struct {
	cl_timer_t timer;
	cl_event_t fired;      /* signalled by every callback */
	atomic32_t count;      /* callbacks so far */
	uint64_t started_us;   /* cl_get_time_stamp() when the test started it */
	uint32_t interval_ms;  /* interval of that start */
	uint64_t fired_us;     /* cl_get_time_stamp() in the last callback */
	int32_t restarts;      /* callbacks that restart the timer */
	boolean_t stop_self;   /* callback restarts then stops its timer */
	boolean_t destroy_self;/* callback destroys its timer */
	cl_event_t *entered;   /* if set: signalled on entry ... */
	cl_event_t *release;   /* ... then the callback waits for this */
	volatile int finished; /* set at the very end of a blocking callback */
} tmr_t;

static void CL_API on_timer(void *context)
{
	tmr_t *t = (tmr_t *)context;

	t->fired_us = cl_get_time_stamp();
	if (t->entered) {
		cl_event_signal(t->entered);
		cl_event_wait_on(t->release, TEST_WAIT_US, FALSE);
	}
	if (t->restarts > 0) {
		t->restarts--;
		CU_ASSERT_EQUAL(cl_timer_start(&t->timer, 1), CL_SUCCESS);
	}
	if (t->stop_self) {
		CU_ASSERT_EQUAL(cl_timer_start(&t->timer, 10), CL_SUCCESS);
		cl_timer_stop(&t->timer);
	}
	if (t->destroy_self) {
		cl_timer_destroy(&t->timer);
		cl_timer_destroy(&t->timer);	/* twice, still harmless */
	}
	cl_atomic_inc(&t->count);
	__atomic_store_n(&t->finished, 1, __ATOMIC_RELEASE);
	cl_event_signal(&t->fired);
}

static void tmr_init(tmr_t *t)
{
	memset(t, 0, sizeof(*t));
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&t->fired, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(cl_timer_init(&t->timer, on_timer, t), CL_SUCCESS);
}

static void tmr_start(tmr_t *t, uint32_t ms)
{
	t->started_us = cl_get_time_stamp();
	t->interval_ms = ms;
	CU_ASSERT_EQUAL(cl_timer_start(&t->timer, ms), CL_SUCCESS);
}

static void tmr_destroy(tmr_t *t)
{
	cl_timer_destroy(&t->timer);
	cl_event_destroy(&t->fired);
}

static cl_status_t tmr_wait(tmr_t *t, uint32_t us)
{
	return cl_event_wait_on(&t->fired, us, FALSE);
}

static uint64_t tmr_delay_ms(tmr_t *t)
{
	return (t->fired_us - t->started_us) / 1000u;
}

static void test_time_stamps(void)
{
	uint64_t a, b, t0, t1;
	uint32_t s;
	cl_event_t ev;

	CU_ASSERT_EQUAL(cl_get_tick_freq(), 1000000000u);
	a = cl_get_time_stamp();
	t0 = cl_get_tick_count();
	s = cl_get_time_stamp_sec();
	b = cl_get_time_stamp_usec();
	t1 = cl_get_tick_count();
	CU_ASSERT(a > 0);
	CU_ASSERT(b >= a);
	CU_ASSERT(t1 >= t0);
	CU_ASSERT(t0 / 1000u >= a);	/* same clock, finer unit */
	CU_ASSERT(s >= a / 1000000u && s <= b / 1000000u + 1);
	/* The stamp follows real time: a 20 ms wait shows up. */
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&ev, FALSE), CL_SUCCESS);
	a = cl_get_time_stamp();
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, 20000, FALSE), CL_TIMEOUT);
	CU_ASSERT(cl_get_time_stamp() - a >= 20000u);
	cl_event_destroy(&ev);
}

static void test_construct_destroy(void)
{
	cl_timer_t t;

	cl_timer_construct(&t);
	cl_timer_destroy(&t);
	cl_timer_destroy(&t);
	cl_timer_construct(&t);
	CU_ASSERT_EQUAL(cl_timer_start(&t, 1), CL_ERROR);	/* not initialized */
	CU_ASSERT_EQUAL(cl_timer_trim(&t, 1), CL_ERROR);
	cl_timer_stop(&t);
	memset(&t, 0xA5, sizeof(t));
	CU_ASSERT_EQUAL(cl_timer_init(&t, NULL, NULL), CL_INVALID_PARAMETER);
	cl_timer_destroy(&t);	/* init constructed it first */
	CU_ASSERT_EQUAL(cl_timer_init(NULL, on_timer, NULL), CL_INVALID_PARAMETER);
}

static void test_fires_once_after_interval(void)
{
	tmr_t t;

	tmr_init(&t);
	tmr_start(&t, 50);
	CU_ASSERT_EQUAL_FATAL(tmr_wait(&t, TEST_WAIT_US), CL_SUCCESS);
	CU_ASSERT(t.fired_us - t.started_us >= 50000u);	/* never early */
	CU_ASSERT(tmr_delay_ms(&t) < 50 + 5000);
	CU_ASSERT_EQUAL(tmr_wait(&t, NEVER_US), CL_TIMEOUT);	/* one-shot */
	CU_ASSERT_EQUAL(t.count, 1);
	/* Start again after it fired. */
	tmr_start(&t, 0);
	CU_ASSERT_EQUAL(tmr_wait(&t, TEST_WAIT_US), CL_SUCCESS);
	CU_ASSERT_EQUAL(t.count, 2);
	tmr_destroy(&t);
}

static void test_stop(void)
{
	tmr_t t;

	tmr_init(&t);
	tmr_start(&t, 30);
	cl_timer_stop(&t.timer);
	CU_ASSERT_EQUAL(tmr_wait(&t, NEVER_US), CL_TIMEOUT);
	CU_ASSERT_EQUAL(t.count, 0);
	cl_timer_stop(&t.timer);	/* stopping an idle timer is harmless */
	tmr_destroy(&t);
}

static void test_start_replaces_deadline(void)
{
	tmr_t t;

	tmr_init(&t);
	/* Earlier replaces later. */
	tmr_start(&t, 60000);
	tmr_start(&t, 10);
	CU_ASSERT_EQUAL_FATAL(tmr_wait(&t, TEST_WAIT_US), CL_SUCCESS);
	CU_ASSERT(tmr_delay_ms(&t) < 10 + 5000);
	/* Later replaces earlier. */
	tmr_start(&t, 10);
	tmr_start(&t, 200);
	CU_ASSERT_EQUAL_FATAL(tmr_wait(&t, TEST_WAIT_US), CL_SUCCESS);
	CU_ASSERT(t.fired_us - t.started_us >= 200000u);
	CU_ASSERT_EQUAL(t.count, 2);
	tmr_destroy(&t);
}

static void test_trim(void)
{
	tmr_t t;

	tmr_init(&t);
	/* Trim pulls a later deadline in. */
	tmr_start(&t, 60000);
	CU_ASSERT_EQUAL(cl_timer_trim(&t.timer, 10), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(tmr_wait(&t, TEST_WAIT_US), CL_SUCCESS);
	CU_ASSERT(tmr_delay_ms(&t) < 10 + 5000);
	/* Trim does not push an earlier deadline out. */
	tmr_start(&t, 20);
	CU_ASSERT_EQUAL(cl_timer_trim(&t.timer, 60000), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(tmr_wait(&t, TEST_WAIT_US), CL_SUCCESS);
	CU_ASSERT(tmr_delay_ms(&t) < 20 + 5000);
	/* Trim starts an idle timer. */
	t.started_us = cl_get_time_stamp();
	CU_ASSERT_EQUAL(cl_timer_trim(&t.timer, 30), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(tmr_wait(&t, TEST_WAIT_US), CL_SUCCESS);
	CU_ASSERT(t.fired_us - t.started_us >= 30000u);
	CU_ASSERT_EQUAL(t.count, 3);
	tmr_destroy(&t);
}

static int order[3], order_len;

static void CL_API note_order(void *context)
{
	int n = order_len;	/* callbacks are serialized: only this thread writes */

	order[n] = (int)(intptr_t)context;
	__atomic_store_n(&order_len, n + 1, __ATOMIC_RELEASE);
}

static void test_deadline_order(void)
{
	cl_timer_t t[3];
	cl_event_t tick;
	int ms[3] = { 90, 30, 60 }, i;
	uint64_t end;

	order_len = 0;
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&tick, FALSE), CL_SUCCESS);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL_FATAL(cl_timer_init(&t[i], note_order, (void *)(intptr_t)ms[i]),
				      CL_SUCCESS);
	for (i = 0; i < 3; i++)
		cl_timer_start(&t[i], (uint32_t)ms[i]);
	end = test_now_ms() + TEST_WAIT_US / 1000;
	while (__atomic_load_n(&order_len, __ATOMIC_ACQUIRE) < 3 && test_now_ms() < end)
		cl_event_wait_on(&tick, 5000, FALSE);
	for (i = 0; i < 3; i++)
		cl_timer_destroy(&t[i]);	/* waits for callbacks: order is stable now */
	CU_ASSERT_EQUAL_FATAL(order_len, 3);
	CU_ASSERT_EQUAL(order[0], 30);
	CU_ASSERT_EQUAL(order[1], 60);
	CU_ASSERT_EQUAL(order[2], 90);
	cl_event_destroy(&tick);
}

static void test_restart_from_callback(void)
{
	tmr_t t;
	uint64_t end;

	tmr_init(&t);
	t.restarts = 4;
	tmr_start(&t, 1);
	end = test_now_ms() + TEST_WAIT_US / 1000;
	while (cl_atomic_add(&t.count, 0) < 5 && test_now_ms() < end)
		tmr_wait(&t, 100000);
	CU_ASSERT_EQUAL(cl_atomic_add(&t.count, 0), 5);
	tmr_wait(&t, 0);
	CU_ASSERT_EQUAL(tmr_wait(&t, NEVER_US), CL_TIMEOUT);	/* no sixth run */
	CU_ASSERT_EQUAL(t.count, 5);
	tmr_destroy(&t);
}

static void test_stop_from_callback(void)
{
	tmr_t t;

	tmr_init(&t);
	t.stop_self = TRUE;
	tmr_start(&t, 0);
	CU_ASSERT_EQUAL_FATAL(tmr_wait(&t, TEST_WAIT_US), CL_SUCCESS);
	CU_ASSERT_EQUAL(tmr_wait(&t, NEVER_US), CL_TIMEOUT);	/* the restart was stopped */
	CU_ASSERT_EQUAL(t.count, 1);
	tmr_destroy(&t);
}

static void test_destroy_from_callback(void)
{
	tmr_t t, other;

	/* The only timer destroys itself: the timer thread winds down from
	 * inside its own callback. */
	tmr_init(&t);
	t.destroy_self = TRUE;
	tmr_start(&t, 0);
	CU_ASSERT_EQUAL_FATAL(tmr_wait(&t, TEST_WAIT_US), CL_SUCCESS);
	CU_ASSERT_EQUAL(t.count, 1);
	CU_ASSERT_EQUAL(cl_timer_start(&t.timer, 0), CL_ERROR);	/* destroyed */
	/* Timers keep working afterwards (a new timer thread). */
	tmr_init(&other);
	tmr_start(&other, 0);
	CU_ASSERT_EQUAL(tmr_wait(&other, TEST_WAIT_US), CL_SUCCESS);
	/* Now with another timer alive while one destroys itself. */
	CU_ASSERT_EQUAL_FATAL(cl_timer_init(&t.timer, on_timer, &t), CL_SUCCESS);
	tmr_start(&t, 0);
	CU_ASSERT_EQUAL(tmr_wait(&t, TEST_WAIT_US), CL_SUCCESS);
	CU_ASSERT_EQUAL(t.count, 2);
	tmr_start(&other, 0);
	CU_ASSERT_EQUAL(tmr_wait(&other, TEST_WAIT_US), CL_SUCCESS);
	tmr_destroy(&other);
	cl_timer_destroy(&t.timer);	/* already destroyed by its callback */
	cl_event_destroy(&t.fired);
}

static void test_destroy_pending(void)
{
	tmr_t t;

	tmr_init(&t);
	tmr_start(&t, 30);
	cl_timer_destroy(&t.timer);
	CU_ASSERT_EQUAL(tmr_wait(&t, NEVER_US), CL_TIMEOUT);
	CU_ASSERT_EQUAL(t.count, 0);
	cl_event_destroy(&t.fired);
}

typedef struct {
	tmr_t *t;
	cl_event_t returned;
	int finished_before_return;
} destroyer_t;

static void *destroyer_main(void *arg)
{
	destroyer_t *d = (destroyer_t *)arg;

	cl_timer_destroy(&d->t->timer);
	d->finished_before_return = __atomic_load_n(&d->t->finished, __ATOMIC_ACQUIRE);
	cl_event_signal(&d->returned);
	return NULL;
}

static void test_destroy_waits_for_running_callback(void)
{
	tmr_t t;
	cl_event_t entered, release;
	destroyer_t d;
	pthread_t thr;
	uint64_t start;

	tmr_init(&t);
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&entered, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&release, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&d.returned, FALSE), CL_SUCCESS);
	t.entered = &entered;
	t.release = &release;
	d.t = &t;
	tmr_start(&t, 0);
	CU_ASSERT_EQUAL_FATAL(cl_event_wait_on(&entered, TEST_WAIT_US, FALSE), CL_SUCCESS);
	/* The callback is running: stop must not wait for it. */
	start = test_now_ms();
	cl_timer_stop(&t.timer);
	CU_ASSERT(test_now_ms() - start < TEST_WAIT_US / 2000);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&thr, NULL, destroyer_main, &d), 0);
	/* Destroy blocks while the callback runs... */
	CU_ASSERT_EQUAL(cl_event_wait_on(&d.returned, 50000, FALSE), CL_TIMEOUT);
	cl_event_signal(&release);
	/* ... and returns once it finished. */
	CU_ASSERT_EQUAL(cl_event_wait_on(&d.returned, TEST_WAIT_US, FALSE), CL_SUCCESS);
	pthread_join(thr, NULL);
	CU_ASSERT_TRUE(d.finished_before_return);
	CU_ASSERT_EQUAL(t.count, 1);
	cl_event_destroy(&d.returned);
	cl_event_destroy(&release);
	cl_event_destroy(&entered);
	cl_event_destroy(&t.fired);
}

#define MANY 200
static tmr_t many[MANY];

static void test_many_timers(void)
{
	atomic32_t total = 0;
	uint64_t end;
	int i, early = 0;

	for (i = 0; i < MANY; i++)
		tmr_init(&many[i]);
	/* Every tenth timer (from 0) is started far out and restarted to 5 ms;
	 * every tenth from 5 is started far out and stopped. */
	for (i = 0; i < MANY; i++)
		tmr_start(&many[i], i % 5 ? (uint32_t)((i * 37) % 50) : 60000);
	/* Some get restarted or stopped while pending. */
	for (i = 0; i < MANY; i += 10)
		tmr_start(&many[i], 5);
	for (i = 5; i < MANY; i += 10)
		cl_timer_stop(&many[i].timer);
	end = test_now_ms() + TEST_WAIT_US / 1000;
	for (i = 0; i < MANY; i++) {
		if (i % 10 == 5)
			continue;
		if (cl_event_wait_on(&many[i].fired, (uint32_t)((end - test_now_ms()) * 1000u),
				     FALSE) == CL_SUCCESS)
			cl_atomic_inc(&total);
	}
	for (i = 0; i < MANY; i++) {
		if (many[i].count &&
		    many[i].fired_us - many[i].started_us < many[i].interval_ms * 1000u)
			early++;
		tmr_destroy(&many[i]);
	}
	CU_ASSERT_EQUAL(total, MANY - MANY / 10);
	for (i = 0; i < MANY; i++)
		CU_ASSERT_EQUAL(many[i].count, i % 10 == 5 ? 0 : 1);
	CU_ASSERT_EQUAL(early, 0);
}

static void test_init_destroy_cycles(void)
{
	tmr_t t;
	int i;

	/* Each cycle starts and ends the timer thread. */
	for (i = 0; i < 20; i++) {
		tmr_init(&t);
		if (i % 2)
			tmr_start(&t, 0);
		if (i % 4 == 1)
			CU_ASSERT_EQUAL(tmr_wait(&t, TEST_WAIT_US), CL_SUCCESS);
		tmr_destroy(&t);
	}
}

/* The timer the racing destroy takes down, and when it returned. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
	cl_timer_t t;
} last_tmr = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, { 0 } };

static void CL_API race_cb(void *context)
{
	(void)context;
}

static void *destroy_last(void *arg)
{
	(void)arg;
	cl_timer_destroy(&last_tmr.t);
	pthread_mutex_lock(&last_tmr.lock);
	last_tmr.done = 1;
	pthread_cond_broadcast(&last_tmr.cond);
	pthread_mutex_unlock(&last_tmr.lock);
	return NULL;
}

/*
 * The destroy of the last timer waits for the timer thread to end; a timer
 * initialized meanwhile keeps the thread serving, and the destroy must
 * return all the same. It once waited until some later destroy or callback
 * woke it: with the other timer idle, for ever (two QP destroys of
 * test_al_races hung so, 2026-12-05). The initialization follows the
 * destroy after a delay that grows from 0 over the rounds, to fall into
 * the destroy's wait in some of them (2 rounds of 300 did before the fix);
 * each destroy must return while the other timer stays initialized.
 */
static void test_init_during_last_destroy(void)
{
	enum { ROUNDS = 600 };
	cl_timer_t other;
	pthread_t th;
	struct timespec ts;
	int i, done, late = 0;

	for (i = 0; i < ROUNDS; i++) {
		cl_timer_construct(&last_tmr.t);
		cl_timer_construct(&other);
		CU_ASSERT_EQUAL_FATAL(cl_timer_init(&last_tmr.t, race_cb, NULL), CL_SUCCESS);
		last_tmr.done = 0;
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, destroy_last, NULL), 0);
		for (volatile int k = 0; k < (i % 60) * 200; k++)
			;
		CU_ASSERT_EQUAL_FATAL(cl_timer_init(&other, race_cb, NULL), CL_SUCCESS);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += TEST_WAIT_US / 1000000u;
		pthread_mutex_lock(&last_tmr.lock);
		while (!last_tmr.done &&
		       pthread_cond_timedwait(&last_tmr.cond, &last_tmr.lock, &ts) == 0)
			;
		done = last_tmr.done;
		pthread_mutex_unlock(&last_tmr.lock);
		late += !done;
		cl_timer_destroy(&other); /* also wakes a destroy that hangs */
		pthread_join(th, NULL);
	}
	CU_ASSERT_EQUAL(late, 0);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_time_stamps),
	TEST_ENTRY(test_construct_destroy),
	TEST_ENTRY(test_fires_once_after_interval),
	TEST_ENTRY(test_stop),
	TEST_ENTRY(test_start_replaces_deadline),
	TEST_ENTRY(test_trim),
	TEST_ENTRY(test_deadline_order),
	TEST_ENTRY(test_restart_from_callback),
	TEST_ENTRY(test_stop_from_callback),
	TEST_ENTRY(test_destroy_from_callback),
	TEST_ENTRY(test_destroy_pending),
	TEST_ENTRY(test_destroy_waits_for_running_callback),
	TEST_ENTRY(test_many_timers),
	TEST_ENTRY(test_init_destroy_cycles),
	TEST_ENTRY(test_init_during_last_destroy),
};

TEST_MAIN("cl_timer", tests)
