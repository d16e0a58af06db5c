/*
 * ibal tests: a program built against the installed tree with nothing but
 * `pkg-config --cflags --libs ibal` (run by make installcheck / distcheck).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <stdio.h>
#include <complib/comp_lib.h>
#include <iba/ib_al.h>

int main(void)
{
	cl_qmap_t map;
	cl_map_item_t item;

	cl_qmap_init(&map);
	cl_qmap_insert(&map, 42, &item);
	printf("%s %s %" PRIu64 "\n", CL_STATUS_MSG(CL_SUCCESS), ib_get_err_str(IB_SUCCESS),
	       cl_qmap_key(cl_qmap_head(&map)));
	return cl_qmap_count(&map) == 1 ? 0 : 1;
}
