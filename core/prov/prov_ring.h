/*
 * ibal providers: the slot arithmetic of a bounded queue.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The queues the providers keep themselves (a CQ's completion ring, a
 * receive queue, the send queue of a UD or special QP) are arrays of @c size
 * slots with an oldest slot @c head (below @c size) and a count (at most
 * @c size). prov_ring_at() finds a slot after the head by a compare, not a
 * division: these indexes are taken for every completion and receive.
 */
#ifndef PROV_RING_H
#define PROV_RING_H

#include <stdint.h>

/**
 * The slot @p n places after @p head in a queue of @p size slots.
 * @param head a slot, below @p size.
 * @param n places on, at most @p size.
 * @param size the slots.
 * @return (head + n) modulo size.
 */
static inline uint32_t prov_ring_at(uint32_t head, uint32_t n, uint32_t size)
{
	uint32_t i = head + n;

	return i >= size ? i - size : i;
}

#endif /* PROV_RING_H */
