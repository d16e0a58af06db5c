/*
 * ibal access layer: the CM's queues of what is made under its lock and handed on after it.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * See cm_outq_t in al_cm_int.h: the messages to send (al_cm_agent.c) and the
 * callback events to queue on their CEPs (al_cm_cep.c) both go through one.
 */
#include "al_cm_int.h"

static void **link_of(const cm_outq_t *q, void *entry)
{
	return (void **)((char *)entry + q->link_off);
}

void al_cm_outq_put(cm_outq_t *q, void *entry)
{
	*link_of(q, entry) = NULL;
	pthread_mutex_lock(&q->lock);
	if (!q->tail)
		__atomic_store_n(&q->head, entry, __ATOMIC_RELAXED);
	else
		*q->tail = entry;
	q->tail = link_of(q, entry);
	pthread_mutex_unlock(&q->lock);
}

void al_cm_outq_run(cm_outq_t *q, boolean_t wait)
{
	void *entry, *next;

	if (!wait && !__atomic_load_n(&q->head, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&q->lock);
	while (wait && q->busy)
		pthread_cond_wait(&q->idle, &q->lock);
	if (q->busy) {
		pthread_mutex_unlock(&q->lock);
		return;
	}
	q->busy = TRUE;
	while ((entry = q->head) != NULL) {
		__atomic_store_n(&q->head, NULL, __ATOMIC_RELAXED);
		q->tail = NULL;
		pthread_mutex_unlock(&q->lock);
		for (; entry; entry = next) {
			/* Unlinked before hand: it may free or pass on the entry
			 * (ib_send_mad takes a list through the link). */
			next = *link_of(q, entry);
			*link_of(q, entry) = NULL;
			q->hand(entry);
		}
		pthread_mutex_lock(&q->lock);
	}
	q->busy = FALSE;
	pthread_cond_broadcast(&q->idle);
	pthread_mutex_unlock(&q->lock);
}
