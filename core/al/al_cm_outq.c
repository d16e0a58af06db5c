/*
 * ibal access layer: the CM's queues of what is made under its lock and handed on after it.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * See cm_outq_t in al_cm_int.h: the messages to send (al_cm_agent.c) and the
 * callback events to queue on their CEPs (al_cm_cep.c) both go through one.
 * A put is one compare-and-swap and a run that finds the queue empty one
 * load; a thread that hands entries on takes the whole stack with one
 * exchange. That busy and head are sequentially consistent is what keeps an
 * entry from being left behind: a thread that puts and then finds another
 * busy leaves its entry to it, and the busy thread, having ended, looks at
 * head once more, so one of the two sees the other.
 */
#include "al_cm_int.h"

static void **link_of(const cm_outq_t *q, void *entry)
{
	return (void **)((char *)entry + q->link_off);
}

void al_cm_outq_put(cm_outq_t *q, void *entry)
{
	void **link = link_of(q, entry);
	void *old = __atomic_load_n(&q->head, __ATOMIC_RELAXED);

	do
		*link = old;
	while (!__atomic_compare_exchange_n(&q->head, &old, entry, TRUE, __ATOMIC_SEQ_CST,
					    __ATOMIC_RELAXED));
}

/* Makes this thread the busy one; with @p wait, waits for another to end. */
static boolean_t take_busy(cm_outq_t *q, boolean_t wait)
{
	if (!__atomic_exchange_n(&q->busy, 1, __ATOMIC_SEQ_CST))
		return TRUE;
	if (!wait)
		return FALSE;
	pthread_mutex_lock(&q->lock);
	__atomic_add_fetch(&q->waiters, 1, __ATOMIC_SEQ_CST);
	while (__atomic_exchange_n(&q->busy, 1, __ATOMIC_SEQ_CST))
		pthread_cond_wait(&q->idle, &q->lock);
	__atomic_sub_fetch(&q->waiters, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&q->lock);
	return TRUE;
}

static void give_busy(cm_outq_t *q)
{
	__atomic_store_n(&q->busy, 0, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&q->waiters, __ATOMIC_SEQ_CST)) {
		pthread_mutex_lock(&q->lock);
		pthread_cond_broadcast(&q->idle);
		pthread_mutex_unlock(&q->lock);
	}
}

/* Hands on every entry put so far, and those put meanwhile; busy. */
static void hand_all(cm_outq_t *q)
{
	void *entry, *next, *first;

	while ((entry = __atomic_exchange_n(&q->head, NULL, __ATOMIC_SEQ_CST)) != NULL) {
		/* The stack holds the last put first: turned over, the first put. */
		for (first = NULL; entry; entry = next) {
			next = *link_of(q, entry);
			*link_of(q, entry) = first;
			first = entry;
		}
		for (entry = first; entry; entry = next) {
			/* Unlinked before hand: it may free or pass on the entry
			 * (ib_send_mad takes a list through the link). */
			next = *link_of(q, entry);
			*link_of(q, entry) = NULL;
			q->hand(entry);
		}
	}
}

void al_cm_outq_run(cm_outq_t *q, boolean_t wait)
{
	if (!wait && !__atomic_load_n(&q->head, __ATOMIC_SEQ_CST))
		return;
	if (!take_busy(q, wait))
		return;
	for (;;) {
		hand_all(q);
		if (q->emptied)
			q->emptied(q);
		give_busy(q);
		/* An entry put after the last exchange by a thread that found this
		 * one busy has been left to it. */
		if (!__atomic_load_n(&q->head, __ATOMIC_SEQ_CST) || !take_busy(q, FALSE))
			return;
	}
}
