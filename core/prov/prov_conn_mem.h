/*
 * ibal provider layer: the memory of connections, shared by the access layer and the providers.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * One arena (ibal_arena.h) per process for the objects a connection is
 * made of: the access layer's QP object and CM endpoint, and a provider's
 * QP, its transport state and its queues. A server takes a burst of
 * connections at once; from one arena their objects come out of resident
 * chunks, the large ones on transparent huge pages, so that none of them
 * costs a page fault on the thread that makes it (docs/bench-cm.md), and
 * the arena's unused room is the end of one chunk, not one per kind of
 * object. Its chunks go back to the kernel with the last object.
 */
#ifndef PROV_CONN_MEM_H
#define PROV_CONN_MEM_H

#include <stddef.h>

/*
 * A zeroed, resident object of @p size bytes, or NULL when memory is short
 * (complib's fault injection counts it as an allocation). Any size: up to
 * 16 KiB from the arena's chunks (aligned on 64 bytes), a larger one on its
 * own (and every one under ASan and valgrind), aligned as malloc aligns.
 */
void *prov_conn_mem_get(size_t size);

/* Puts back an object of prov_conn_mem_get() of @p size bytes, the size it
 * was got with; NULL does nothing. */
void prov_conn_mem_put(void *p, size_t size);

/* The bytes of the arena's chunks (0 with no object out, and in the builds
 * where each object is its own allocation: ASan, valgrind). */
size_t prov_conn_mem_held(void);

#endif /* PROV_CONN_MEM_H */
