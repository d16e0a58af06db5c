/*
 * ibal provider layer: the layout of a CA attribute block (prov_ca_attr.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include "prov_ca_attr.h"

/* Places @p bytes at *p_off aligned to @p align; returns where and moves *p_off past them. */
static uint64_t place(uint64_t *p_off, uint64_t align, uint64_t bytes)
{
	uint64_t at = (*p_off + align - 1) & ~(align - 1);

	*p_off = at + bytes;
	return at;
}

/* Walks the layout; with @p a, sets the pointers and counts. Returns the size. */
static uint32_t walk(ib_ca_attr_t *a, uint32_t n_page_sizes, uint8_t n_ports, uint16_t gids,
		     uint16_t pkeys)
{
	uint8_t *base = (uint8_t *)a;
	uint64_t off = sizeof(ib_ca_attr_t), at;
	unsigned i;

	at = place(&off, 4, (uint64_t)n_page_sizes * sizeof(uint32_t));
	if (a) {
		a->num_page_sizes = n_page_sizes;
		a->p_page_size = (uint32_t *)(void *)(base + at);
	}
	at = place(&off, 8, (uint64_t)n_ports * sizeof(ib_port_attr_t));
	if (a) {
		a->num_ports = n_ports;
		a->p_port_attr = (ib_port_attr_t *)(void *)(base + at);
	}
	for (i = 0; i < n_ports; i++) {
		ib_port_attr_t *pa = a ? &a->p_port_attr[i] : NULL;

		at = place(&off, 8, (uint64_t)gids * sizeof(ib_gid_t));
		if (pa) {
			pa->port_num = (uint8_t)(i + 1);
			pa->num_gids = gids;
			pa->p_gid_table = (ib_gid_t *)(void *)(base + at);
		}
		at = place(&off, 2, (uint64_t)pkeys * sizeof(ib_net16_t));
		if (pa) {
			pa->num_pkeys = pkeys;
			pa->p_pkey_table = (ib_net16_t *)(void *)(base + at);
		}
	}
	place(&off, 8, 0);
	if (a)
		a->size = (uint32_t)off;
	return (uint32_t)off;
}

uint32_t prov_ca_attr_size(uint32_t n_page_sizes, uint8_t n_ports, uint16_t gids, uint16_t pkeys)
{
	return walk(NULL, n_page_sizes, n_ports, gids, pkeys);
}

void prov_ca_attr_layout(ib_ca_attr_t *a, uint32_t n_page_sizes, uint8_t n_ports, uint16_t gids,
			 uint16_t pkeys)
{
	walk(a, n_page_sizes, n_ports, gids, pkeys);
}
