/*
 * ibal access layer: ib_copy_ca_attr(), the copy of a CA attribute block with its internal pointers.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <stdint.h>
#include <string.h>
#include <iba/ib_types.h>

/* Rounds @p off up to a multiple of @p align (a power of two). */
static uint64_t align_up(uint64_t off, uint64_t align)
{
	return (off + align - 1) & ~(align - 1);
}

/* Whether the @p len bytes at @p p lie within the @p size bytes at @p base. */
static int within(const void *base, uint32_t size, const void *p, uint64_t len)
{
	uintptr_t b = (uintptr_t)base, a = (uintptr_t)p;

	return a >= b && a - b <= size && len <= size - (a - b);
}

/*
 * Checks that every array with entries has a pointer, and tells whether all
 * of them lie inside the source block. *p_compact receives the bytes the
 * arrays need when gathered behind the structure.
 */
static int check_src(const ib_ca_attr_t *src, int *p_inside, uint64_t *p_compact)
{
	const ib_port_attr_t *ports = src->p_port_attr;
	uint64_t off = align_up(sizeof(*src), 8);
	unsigned int i;
	int inside = 1;

	if ((src->num_page_sizes && !src->p_page_size) || (src->num_ports && !ports))
		return 0;
	off = align_up(off, 4) + (uint64_t)src->num_page_sizes * sizeof(uint32_t);
	inside &= !src->num_page_sizes ||
		  within(src, src->size, src->p_page_size, (uint64_t)src->num_page_sizes * sizeof(uint32_t));
	off = align_up(off, 8) + (uint64_t)src->num_ports * sizeof(*ports);
	inside &= !src->num_ports ||
		  within(src, src->size, ports, (uint64_t)src->num_ports * sizeof(*ports));
	for (i = 0; i < src->num_ports; i++) {
		uint64_t gids = (uint64_t)ports[i].num_gids * sizeof(ib_gid_t);
		uint64_t pkeys = (uint64_t)ports[i].num_pkeys * sizeof(ib_net16_t);

		if ((gids && !ports[i].p_gid_table) || (pkeys && !ports[i].p_pkey_table))
			return 0;
		off = align_up(off, 8) + gids;
		off = align_up(off, 2) + pkeys;
		inside &= !gids || within(src, src->size, ports[i].p_gid_table, gids);
		inside &= !pkeys || within(src, src->size, ports[i].p_pkey_table, pkeys);
	}
	*p_inside = inside;
	*p_compact = off;
	return 1;
}

/*
 * The address in the copy at @p dest that corresponds to @p p in the source
 * block of @p size bytes at @p src, or NULL when @p p does not point into the
 * source block (possible only for an empty array). @p src is not read.
 */
static void *relocate(ib_ca_attr_t *dest, const ib_ca_attr_t *src, uint32_t size, const void *p)
{
	if (!p || !within(src, size, p, 0))
		return NULL;
	return (uint8_t *)dest + ((uintptr_t)p - (uintptr_t)src);
}

/*
 * Copies the block as is and moves every pointer by the distance of the
 * copy. The source may overlap the destination: after the move only the
 * copy is read.
 */
static void copy_block(ib_ca_attr_t *dest, const ib_ca_attr_t *src)
{
	uint32_t size = src->size;
	unsigned int i;

	memmove(dest, src, size);
	dest->p_page_size = (uint32_t *)relocate(dest, src, size, dest->p_page_size);
	dest->p_port_attr = (ib_port_attr_t *)relocate(dest, src, size, dest->p_port_attr);
	for (i = 0; dest->p_port_attr && i < dest->num_ports; i++) {
		ib_port_attr_t *port = &dest->p_port_attr[i];

		port->p_gid_table = (ib_gid_t *)relocate(dest, src, size, port->p_gid_table);
		port->p_pkey_table = (ib_net16_t *)relocate(dest, src, size, port->p_pkey_table);
	}
}

/* Copies @p n bytes from @p from to @p base + *p_off (aligned), returns the copy or NULL if n is 0. */
static void *gather(uint8_t *base, uint64_t *p_off, uint64_t align, const void *from, uint64_t n)
{
	void *to;

	if (!n)
		return NULL;
	*p_off = align_up(*p_off, align);
	to = base + *p_off;
	memcpy(to, from, (size_t)n);
	*p_off += n;
	return to;
}

/* Copies the structure and gathers the arrays, wherever they are, behind it. */
static void copy_gathered(ib_ca_attr_t *dest, const ib_ca_attr_t *src)
{
	uint8_t *base = (uint8_t *)dest;
	uint64_t off = align_up(sizeof(*dest), 8);
	ib_ca_attr_t hdr = *src;
	ib_port_attr_t *ports;
	unsigned int i;

	memset(dest, 0, src->size);
	hdr.p_page_size = (uint32_t *)gather(base, &off, 4, src->p_page_size,
					      (uint64_t)src->num_page_sizes * sizeof(uint32_t));
	ports = (ib_port_attr_t *)gather(base, &off, 8, src->p_port_attr,
					 (uint64_t)src->num_ports * sizeof(*ports));
	hdr.p_port_attr = ports;
	for (i = 0; i < src->num_ports; i++) {
		const ib_port_attr_t *sp = &src->p_port_attr[i];

		ports[i].p_gid_table = (ib_gid_t *)gather(base, &off, 8, sp->p_gid_table,
							  (uint64_t)sp->num_gids * sizeof(ib_gid_t));
		ports[i].p_pkey_table = (ib_net16_t *)gather(base, &off, 2, sp->p_pkey_table,
							     (uint64_t)sp->num_pkeys * sizeof(ib_net16_t));
	}
	memcpy(dest, &hdr, sizeof(hdr));
}

ib_ca_attr_t *AL_API ib_copy_ca_attr(IN ib_ca_attr_t *const p_dest,
				     IN const ib_ca_attr_t *const p_src)
{
	uint64_t compact;
	int inside;

	if (!p_dest || !p_src || p_src->size < sizeof(*p_src))
		return NULL;
	if (!check_src(p_src, &inside, &compact))
		return NULL;
	if (p_dest == p_src)
		return p_dest;
	if (inside) {
		copy_block(p_dest, p_src);
		return p_dest;
	}
	if (compact > p_src->size)
		return NULL;
	copy_gathered(p_dest, p_src);
	return p_dest;
}
