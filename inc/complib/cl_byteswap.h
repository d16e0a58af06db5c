/*
 * ibal complib: conversions between network and host byte order.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_byteswap.h
 * @brief Byte swapping between network (big-endian) and host order.
 *
 * - cl_ntoh16, cl_hton16, cl_ntoh32, cl_hton32, cl_ntoh64, cl_hton64:
 *   inline functions for run-time values (cl_byteswap_osd.h).
 * - CL_NTOH16, CL_HTON16, CL_NTOH32, CL_HTON32, CL_NTOH64, CL_HTON64:
 *   macros that are integer constant expressions when their argument is one,
 *   for static initializers, case labels and enumerators.
 * - cl_ntoh: reverses a buffer of arbitrary size, in place or into another one.
 * - CPU_LE and CPU_BE tell the host byte order.
 *
 * Thread safety: pure functions and macros.
 */
#ifndef _CL_BYTESWAP_H_
#define _CL_BYTESWAP_H_

#include <complib/cl_memory.h>
#include <complib/cl_byteswap_osd.h>

#if CPU_LE
/** 16-bit network to host order; a constant expression for constant @p x. */
#define CL_NTOH16(x) ((uint16_t)((((uint16_t)(x) & 0x00FFu) << 8) | \
				 (((uint16_t)(x) & 0xFF00u) >> 8)))
/** 32-bit network to host order; a constant expression for constant @p x. */
#define CL_NTOH32(x) ((uint32_t)((((uint32_t)(x) & 0x000000FFu) << 24) | \
				 (((uint32_t)(x) & 0x0000FF00u) << 8) | \
				 (((uint32_t)(x) & 0x00FF0000u) >> 8) | \
				 (((uint32_t)(x) & 0xFF000000u) >> 24)))
/** 64-bit network to host order; a constant expression for constant @p x. */
#define CL_NTOH64(x) ((uint64_t)((((uint64_t)(x) & CL_CONST64(0x00000000000000FF)) << 56) | \
				 (((uint64_t)(x) & CL_CONST64(0x000000000000FF00)) << 40) | \
				 (((uint64_t)(x) & CL_CONST64(0x0000000000FF0000)) << 24) | \
				 (((uint64_t)(x) & CL_CONST64(0x00000000FF000000)) << 8) | \
				 (((uint64_t)(x) & CL_CONST64(0x000000FF00000000)) >> 8) | \
				 (((uint64_t)(x) & CL_CONST64(0x0000FF0000000000)) >> 24) | \
				 (((uint64_t)(x) & CL_CONST64(0x00FF000000000000)) >> 40) | \
				 (((uint64_t)(x) & CL_CONST64(0xFF00000000000000)) >> 56)))
#else
#define CL_NTOH16(x) ((uint16_t)(x))
#define CL_NTOH32(x) ((uint32_t)(x))
#define CL_NTOH64(x) ((uint64_t)(x))
#endif

/** 16-bit host to network order; a constant expression for constant @p x. */
#define CL_HTON16(x) CL_NTOH16(x)
/** 32-bit host to network order; a constant expression for constant @p x. */
#define CL_HTON32(x) CL_NTOH32(x)
/** 64-bit host to network order; a constant expression for constant @p x. */
#define CL_HTON64(x) CL_NTOH64(x)

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Converts a value of @p size bytes from network to host byte order (on a
 * little-endian host, reverses the bytes). Works in place when @p p_dest
 * equals @p p_src; otherwise the buffers must not overlap.
 * @param p_dest receives the converted value.
 * @param p_src the value in network order.
 * @param size number of bytes.
 */
CL_INLINE void CL_API cl_ntoh(OUT char *const p_dest, IN const char *const p_src,
			      IN const uint8_t size)
{
#if CPU_LE
	uint8_t i;
	char tmp;

	if (p_dest == p_src) {
		for (i = 0; i < size / 2; i++) {
			tmp = p_dest[i];
			p_dest[i] = p_dest[size - 1 - i];
			p_dest[size - 1 - i] = tmp;
		}
		return;
	}
	for (i = 0; i < size; i++)
		p_dest[i] = p_src[size - 1 - i];
#else
	if (p_dest != p_src)
		cl_memcpy(p_dest, p_src, size);
#endif
}

#ifdef __cplusplus
}
#endif

#endif /* _CL_BYTESWAP_H_ */
