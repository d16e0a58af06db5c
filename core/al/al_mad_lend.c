/*
 * ibal access layer: a MAD dispatcher's thread lent to the callbacks it queues, and the watch that replaces one kept too long.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A CM message that a dispatcher's thread receives makes a user callback
 * (al_cm_cep.c queues it with al_obj_queue_cb_item_here()). Handed to a
 * callback thread, each message cost a wake-up or a thread looking for
 * work, and the message's data moved to another processor; the thread that
 * received it now runs the callback itself, after the batch of completions
 * it took (al_mad_run_here()), as an AL callback thread: every callback
 * of the batch, whether the batch held one message or a burst's.
 *
 * A callback may take long or wait (for an SA answer, for another
 * connection's callback) while the thread is lent: the port's MADs, timers
 * and the callbacks it still had to run would wait with it. So a watch
 * (one thread per process, "al_watch") looks every millisecond while a
 * callback is lent, and less often (up to every 64 ms) while callbacks come
 * and go between its looks. A thread on one callback for a millisecond or more
 * and asleep in the kernel at two looks in a row (it waits for something),
 * or on one callback for 50 ms whatever it does, is replaced; one that runs,
 * or waits for a processor on a busy machine, is let finish. A new thread
 * then serves the dispatcher, the callbacks the old one had not started go
 * to the callback threads, and for the next second so do the dispatcher's
 * callbacks. The old thread ends when its callback returns and is joined
 * by the new one (or at the dispatcher's end); a dispatcher has at most one
 * replaced thread at a time. After about a second with no callback run the
 * watch sleeps until the next one. So a callback that waits keeps the port
 * for 2 to 66 ms.
 *
 * The lent thread and the watch agree through d->lent: the thread sets it
 * to its generation for each callback and takes it back with a
 * compare-and-swap; the watch swaps in AL_MAD_LEND_TAKING, gives the old
 * thread's list away, starts the new thread (generation + 1) and swaps it
 * back to 0 unless the new thread has already lent itself. A thread whose
 * swap finds neither its generation nor AL_MAD_LEND_TAKING has been
 * replaced, and touches nothing of the dispatcher's after. The old thread
 * waits in its swap only while AL_MAD_LEND_TAKING is there, and the new one
 * may replace that at its first callback: the watch touches the old one's
 * list before it starts the new one, never after (once the new thread has
 * lent itself the old one may have ended, its list with it).
 */
#define _GNU_SOURCE /* pthread_setname_np, pthread_tryjoin_np */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "al_obj.h"
#include "al_mad_int.h"
#include "ibal_env.h"
#include "ibal_log.h"
#include "ibal_time.h"

/* How often the watch looks while a callback is lent, us. */
#define WATCH_LOOK_US 1000u
/* How seldom it looks at the most while callbacks come and go but none is
 * lent when it looks, us: each look after one that found none waits twice
 * as long, so that a burst of callbacks costs few wake-ups of the watch. */
#define WATCH_LOOK_MAX_US 64000u
/* Looks in a row that must find a lent thread waiting (asleep in the
 * kernel) before it is replaced: one could be a short wait for a lock. */
#define WATCH_WAITING_LOOKS 2u
/* A lent thread found on one callback this long is replaced even when it
 * runs (or waits for a processor), us. */
#define WATCH_BUSY_MAX_US 50000u
/* Looks in a row, at the longest interval, that find no new callback
 * before the watch sleeps until the next lend wakes it (about a second). */
#define WATCH_IDLE_LOOKS 16u
/* Objects whose callbacks the thread keeps to run itself after a batch:
 * all of a batch's (a poll takes 16 receive completions, and a CM message
 * makes one endpoint's queue ready), whether the batch held one message or a burst's
 * and whatever the callback threads do. Handed to the callback threads, a
 * burst's callbacks ran beside this thread but each cost a hand-over (a
 * queue, often a wake-up, the message's data moved to another processor);
 * run here they cost none, and two processes' bursts of 1,000 connections
 * went a sixth faster (docs/bench-cm.md, "Every callback of a batch on the
 * thread that received it"). */
#define HERE_MAX 16u

static struct watch {
	pthread_once_t once;
	pthread_mutex_t life;   /* serializes the watch's start and stop (add, remove) */
	pthread_mutex_t lock;   /* guards what follows, and the watched dispatchers'
				 * thread, retired and watch_* fields */
	pthread_cond_t cond;    /* the watch's sleep (CLOCK_MONOTONIC) */
	cl_qlist_t disps;       /* al_mad_disp_t::watch_item */
	pthread_t thread;
	boolean_t running;      /* thread is to be joined */
	boolean_t stop;
	uint32_t up;            /* atomic: the watch runs (lends are safe) */
	uint32_t asleep;        /* atomic: the watch waits for a lend to wake it */
	uint32_t enabled;       /* atomic: IBAL_AL_CM_INLINE */
	uint32_t off_us;        /* atomic: callbacks to the callback threads this long
				 * after a replacement (AL_MAD_LEND_OFF_US) */
	uint64_t replaced;      /* atomic: threads replaced (al_mad_lend_replaced()) */
} watch = { .once = PTHREAD_ONCE_INIT,
	     .life = PTHREAD_MUTEX_INITIALIZER,
	     .lock = PTHREAD_MUTEX_INITIALIZER };

static __thread al_obj_here_t *tls_here; /* the dispatcher thread's list, if it lends */
static __thread uint32_t tls_gen;        /* its generation */
static __thread boolean_t tls_lost;      /* it was replaced */

static void watch_init(void)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&watch.cond, &attr);
	pthread_condattr_destroy(&attr);
	cl_qlist_init(&watch.disps);
	__atomic_store_n(&watch.enabled, (uint32_t)__cl_env_uint(AL_ENV_CM_INLINE, 0, 1, 1),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&watch.off_us, AL_MAD_LEND_OFF_US, __ATOMIC_RELAXED);
}

/* ---- The watch ---- */

/* Replaces d's thread of generation @p gen, lent since the last look
 * (watch.lock held). */
static void take_over(al_mad_disp_t *d, uint32_t gen)
{
	al_obj_here_t *p_old;
	uint32_t v = gen, off;
	pthread_t t;
	int rc;

	/* One replaced thread at a time: the last one must have ended. */
	if (__atomic_load_n(&d->has_retired, __ATOMIC_ACQUIRE)) {
		if (pthread_tryjoin_np(d->retired, NULL))
			return;
		__atomic_store_n(&d->has_retired, 0, __ATOMIC_RELEASE);
	}
	if (!__atomic_compare_exchange_n(&d->lent, &v, AL_MAD_LEND_TAKING, FALSE, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return;
	/* The old thread is held in its callback or its swap (unlend) until
	 * the new one lends itself or the swap back below: its list is alive
	 * now, and may not be once the new thread runs. What it had not
	 * started runs on the callback threads (so also where no new thread
	 * can be started: the old one goes on without its list). */
	p_old = __atomic_load_n(&d->p_here, __ATOMIC_ACQUIRE);
	if (p_old)
		al_obj_here_give(p_old);
	__atomic_store_n(&d->gen, gen + 1, __ATOMIC_RELEASE);
	rc = pthread_create(&t, NULL, al_mad_disp_thread, d);
	if (rc) {
		__atomic_store_n(&d->gen, gen, __ATOMIC_RELEASE);
		__atomic_store_n(&d->lent, gen, __ATOMIC_RELEASE);
		IBAL_WARN(IBAL_SUB_MAD,
			  "CA 0x%016llx port %u: a callback keeps the MAD thread and no thread can replace it: %s",
			  (unsigned long long)cl_ntoh64(d->ca_guid), d->port_num, strerror(rc));
		return;
	}
	d->retired = d->thread;
	d->thread = t;
	__atomic_store_n(&d->has_retired, 1, __ATOMIC_RELEASE);
	off = __atomic_load_n(&watch.off_us, __ATOMIC_RELAXED);
	if (off)
		__atomic_store_n(&d->here_off_until, al_mad_now_us() + off, __ATOMIC_RELEASE);
	__atomic_add_fetch(&watch.replaced, 1, __ATOMIC_RELAXED);
	/* Unless the new thread already runs a callback (its generation is
	 * there then): the old one must find it has been replaced. */
	v = AL_MAD_LEND_TAKING;
	__atomic_compare_exchange_n(&d->lent, &v, 0, FALSE, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	IBAL_INFO(IBAL_SUB_MAD,
		  "CA 0x%016llx port %u: a callback kept the MAD thread over %u us; a new thread serves the port, and its callbacks go to the callback threads for %u ms",
		  (unsigned long long)cl_ntoh64(d->ca_guid), d->port_num, WATCH_LOOK_US, off / 1000u);
}

/* Whether thread @p tid of this process sleeps in the kernel (state S or
 * D: it waits for something), rather than runs or waits for a processor;
 * TRUE when that cannot be read. */
static boolean_t thread_waits(pid_t tid)
{
	char path[64], buf[512];
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return TRUE;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return TRUE;
	buf[n] = 0;
	/* "tid (name) S ...": the name may hold anything, the last ')' ends it. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return TRUE;
	return p[2] == 'S' || p[2] == 'D';
}

/* One look at every dispatcher (watch.lock held): replaces the threads that
 * have been on one callback since a look WATCH_LOOK_US ago or more and wait
 * (WATCH_WAITING_LOOKS looks in a row), or for WATCH_BUSY_MAX_US whatever
 * they do. A thread that runs, or waits for a processor on a busy machine,
 * is left to finish. Returns the callbacks run so far over all; *p_lent
 * tells if one runs. */
static uint64_t look(boolean_t *p_lent)
{
	cl_list_item_t *it;
	uint64_t sum = 0, now = al_mad_now_us();

	*p_lent = FALSE;
	for (it = cl_qlist_head(&watch.disps); it != cl_qlist_end(&watch.disps);
	     it = cl_qlist_next(it)) {
		al_mad_disp_t *d = PARENT_STRUCT(it, al_mad_disp_t, watch_item);
		uint64_t n = __atomic_load_n(&d->lends, __ATOMIC_SEQ_CST);
		uint32_t g = __atomic_load_n(&d->lent, __ATOMIC_ACQUIRE);

		sum += n;
		if (!g || g == AL_MAD_LEND_TAKING) {
			d->watch_since = 0;
			continue;
		}
		*p_lent = TRUE;
		/* The count is taken when a callback starts: the same count
		 * seen lent again is the same callback. */
		if (n != d->watch_lends || !d->watch_since) {
			d->watch_lends = n;
			d->watch_since = now;
			d->watch_waits = 0;
		} else if (now - d->watch_since >= WATCH_LOOK_US) {
			if (thread_waits(__atomic_load_n(&d->tid, __ATOMIC_RELAXED)))
				d->watch_waits++;
			else
				d->watch_waits = 0;
			if (d->watch_waits >= WATCH_WAITING_LOOKS ||
			    now - d->watch_since >= WATCH_BUSY_MAX_US)
				take_over(d, g);
		}
	}
	return sum;
}

static void wait_us(uint32_t us)
{
	struct timespec ts = ibal_time_after_us(CLOCK_MONOTONIC, us);

	pthread_cond_timedwait(&watch.cond, &watch.lock, &ts);
}

static void *watch_main(void *arg)
{
	uint64_t seen = 0, sum;
	uint32_t idle = 0, interval = WATCH_LOOK_US;
	boolean_t lent;

	(void)arg;
	pthread_setname_np(pthread_self(), "al_watch");
	pthread_mutex_lock(&watch.lock);
	while (!watch.stop) {
		sum = look(&lent);
		if (lent)
			interval = WATCH_LOOK_US;
		else if (interval < WATCH_LOOK_MAX_US)
			interval *= 2;
		if (sum != seen || lent || interval < WATCH_LOOK_MAX_US) {
			seen = sum;
			idle = 0;
		} else if (++idle >= WATCH_IDLE_LOOKS) {
			/* Asleep first, then a last look at the count: a lend
			 * either is seen here or sees the flag (and wakes us). */
			__atomic_store_n(&watch.asleep, 1, __ATOMIC_SEQ_CST);
			if (look(&lent) == seen && !lent)
				while (__atomic_load_n(&watch.asleep, __ATOMIC_RELAXED) && !watch.stop)
					pthread_cond_wait(&watch.cond, &watch.lock);
			__atomic_store_n(&watch.asleep, 0, __ATOMIC_RELAXED);
			idle = 0;
			interval = WATCH_LOOK_US;
			continue;
		}
		wait_us(interval);
	}
	pthread_mutex_unlock(&watch.lock);
	return NULL;
}

/* A lend found the watch asleep: wakes it. */
static void watch_wake(void)
{
	pthread_mutex_lock(&watch.lock);
	__atomic_store_n(&watch.asleep, 0, __ATOMIC_RELAXED);
	pthread_cond_signal(&watch.cond);
	pthread_mutex_unlock(&watch.lock);
}

void al_mad_watch_add(al_mad_disp_t *d)
{
	int rc;

	pthread_once(&watch.once, watch_init);
	pthread_mutex_lock(&watch.life);
	pthread_mutex_lock(&watch.lock);
	if (!watch.running) {
		watch.stop = FALSE;
		rc = pthread_create(&watch.thread, NULL, watch_main, NULL);
		if (rc)
			IBAL_WARN(IBAL_SUB_MAD,
				  "no watch thread (%s): the CM's callbacks run on the callback threads",
				  strerror(rc));
		watch.running = rc == 0;
		__atomic_store_n(&watch.up, rc == 0, __ATOMIC_RELEASE);
	}
	cl_qlist_insert_tail(&watch.disps, &d->watch_item);
	d->watched = TRUE;
	pthread_mutex_unlock(&watch.lock);
	pthread_mutex_unlock(&watch.life);
}

void al_mad_watch_remove(al_mad_disp_t *d)
{
	boolean_t join = FALSE;

	pthread_once(&watch.once, watch_init);
	pthread_mutex_lock(&watch.life);
	pthread_mutex_lock(&watch.lock);
	if (!d->watched) {
		pthread_mutex_unlock(&watch.lock);
		pthread_mutex_unlock(&watch.life);
		return;
	}
	cl_qlist_remove_item(&watch.disps, &d->watch_item);
	d->watched = FALSE;
	if (cl_is_qlist_empty(&watch.disps) && watch.running) {
		watch.stop = TRUE;
		watch.running = FALSE;
		__atomic_store_n(&watch.up, 0, __ATOMIC_RELEASE);
		pthread_cond_signal(&watch.cond);
		join = TRUE;
	}
	pthread_mutex_unlock(&watch.lock);
	if (join)
		pthread_join(watch.thread, NULL);
	pthread_mutex_unlock(&watch.life);
}

/* ---- The dispatcher's thread ---- */

/* How many objects the thread's list takes: none while the setting is off
 * (IBAL_AL_CM_INLINE=0: every CM callback to the callback threads). */
static uint32_t here_max(void)
{
	return __atomic_load_n(&watch.enabled, __ATOMIC_RELAXED) ? HERE_MAX : 0;
}

void al_mad_lend_begin(al_mad_disp_t *d, al_obj_here_t *p_here)
{
	pthread_once(&watch.once, watch_init);
	__atomic_store_n(&d->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELAXED);
	tls_gen = __atomic_load_n(&d->gen, __ATOMIC_ACQUIRE);
	tls_lost = FALSE;
	al_obj_here_begin(p_here, here_max());
	tls_here = p_here;
	__atomic_store_n(&d->p_here, p_here, __ATOMIC_RELEASE);
}

void al_mad_lend_end(al_obj_here_t *p_here)
{
	if (tls_here == p_here)
		al_obj_here_end(p_here);
	tls_here = NULL;
}

void al_mad_lend_batch(void)
{
	if (tls_here)
		al_obj_here_set(tls_here, here_max());
}

boolean_t al_mad_lend_lost(void)
{
	return tls_lost;
}

/* Takes the thread back after a callback; FALSE if it was replaced. */
static boolean_t unlend(al_mad_disp_t *d, uint32_t gen)
{
	uint32_t v;

	for (;;) {
		v = gen;
		if (__atomic_compare_exchange_n(&d->lent, &v, 0, FALSE, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return TRUE;
		if (v != AL_MAD_LEND_TAKING)
			return FALSE;
		sched_yield(); /* the watch is starting the new thread, or failing to */
	}
}

boolean_t al_mad_run_here(al_mad_disp_t *d)
{
	al_obj_here_t *p_here = tls_here;
	uint64_t off;

	if (tls_lost || !p_here || !al_obj_here_count(p_here))
		return !tls_lost;
	off = __atomic_load_n(&d->here_off_until, __ATOMIC_ACQUIRE);
	if (off) {
		if (al_mad_now_us() < off) {
			al_obj_here_hand(p_here);
			return TRUE;
		}
		__atomic_store_n(&d->here_off_until, 0, __ATOMIC_RELAXED);
	}
	if (!__atomic_load_n(&watch.up, __ATOMIC_ACQUIRE)) {
		al_obj_here_hand(p_here);
		return TRUE;
	}
	while (al_obj_here_count(p_here)) {
		__atomic_add_fetch(&d->lends, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&d->lent, tls_gen, __ATOMIC_RELEASE);
		if (__atomic_load_n(&watch.asleep, __ATOMIC_SEQ_CST))
			watch_wake();
		al_obj_here_run_one(p_here);
		if (!unlend(d, tls_gen)) {
			tls_lost = TRUE;
			return FALSE;
		}
	}
	return TRUE;
}

void al_mad_lend_join(al_mad_disp_t *d)
{
	if (!__atomic_load_n(&d->has_retired, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&watch.lock);
	if (d->has_retired && pthread_tryjoin_np(d->retired, NULL) == 0)
		__atomic_store_n(&d->has_retired, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&watch.lock);
}

void al_mad_lend_join_all(al_mad_disp_t *d)
{
	if (__atomic_load_n(&d->has_retired, __ATOMIC_ACQUIRE)) {
		pthread_join(d->retired, NULL);
		d->has_retired = 0;
	}
}

uint64_t al_mad_lend_replaced(void)
{
	return __atomic_load_n(&watch.replaced, __ATOMIC_RELAXED);
}

void al_mad_lend_configure(boolean_t enabled, uint32_t off_us)
{
	pthread_once(&watch.once, watch_init);
	__atomic_store_n(&watch.enabled, enabled ? 1u : 0u, __ATOMIC_RELAXED);
	__atomic_store_n(&watch.off_us, off_us, __ATOMIC_RELAXED);
}
