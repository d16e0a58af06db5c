/*
 * ibal provider layer: the memory of connections (prov_conn_mem.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include "prov_conn_mem.h"
#include "ibal_arena.h"

static ibal_arena_t conn_mem = IBAL_ARENA_INIT;

void *prov_conn_mem_get(size_t size)
{
	return ibal_arena_get(&conn_mem, size);
}

void prov_conn_mem_put(void *p, size_t size)
{
	ibal_arena_put(&conn_mem, p, size);
}

size_t prov_conn_mem_held(void)
{
	return ibal_arena_held(&conn_mem);
}
