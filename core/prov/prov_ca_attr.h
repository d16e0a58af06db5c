/*
 * ibal provider layer: the layout of a CA attribute block (ib_ca_attr_t and its arrays in one block).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file prov_ca_attr.h
 * @brief One layout of the attribute block a provider's query_ca fills:
 * the ib_ca_attr_t, then (each aligned for its type) the page sizes, the
 * port array and, port after port, its GID table and its P_Key table; the
 * whole rounded up to 8 bytes. ib_copy_ca_attr() gathers arrays in the same
 * order. Both providers size and lay out their blocks here.
 */
#ifndef PROV_CA_ATTR_H
#define PROV_CA_ATTR_H

#include <stdint.h>
#include <iba/ib_types.h>

/**
 * Bytes of a block with @p n_page_sizes page sizes and @p n_ports ports of
 * @p gids GID and @p pkeys P_Key entries each.
 */
uint32_t prov_ca_attr_size(uint32_t n_page_sizes, uint8_t n_ports, uint16_t gids,
			   uint16_t pkeys);

/**
 * Lays out a zeroed block of prov_ca_attr_size() bytes: sets its size, the
 * counts (num_page_sizes, num_ports, each port's num_gids and num_pkeys) and
 * every array pointer, and numbers the ports from 1. The caller fills in
 * the values.
 * @param a the block.
 * @param n_page_sizes, n_ports, gids, pkeys as for prov_ca_attr_size().
 */
void prov_ca_attr_layout(ib_ca_attr_t *a, uint32_t n_page_sizes, uint8_t n_ports, uint16_t gids,
			 uint16_t pkeys);

#endif /* PROV_CA_ATTR_H */
