/*
 * ibal complib: Linux byte order detection and swapping behind cl_byteswap.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_byteswap_osd.h
 * @brief CPU_LE / CPU_BE and the inline cl_ntoh16 ... cl_hton64 functions,
 * which compile to a single byte-swap instruction (or to nothing on a
 * big-endian CPU). Like upstream's (whose swaps are the C library's), it
 * includes `<stdlib.h>`: programs including cl_byteswap.h or iba/ib_types.h
 * call malloc() and free() without including it.
 *
 * Thread safety: pure functions.
 */
#ifndef _CL_BYTESWAP_OSD_H_
#define _CL_BYTESWAP_OSD_H_

#include <complib/cl_types.h>
#include <stdlib.h>

#if !defined(__BYTE_ORDER__) || !defined(__ORDER_LITTLE_ENDIAN__)
#error "the compiler does not predefine __BYTE_ORDER__"
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define CPU_LE 1 /**< 1 on a little-endian CPU, 0 otherwise. */
#define CPU_BE 0 /**< 1 on a big-endian CPU, 0 otherwise. */
#else
#define CPU_LE 0
#define CPU_BE 1
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Converts a 16-bit value from network to host byte order.
 * @param val value in network order.
 * @return @p val in host order.
 */
CL_INLINE uint16_t CL_API cl_ntoh16(IN const uint16_t val)
{
#if CPU_LE
	return __builtin_bswap16(val);
#else
	return val;
#endif
}

/**
 * Converts a 16-bit value from host to network byte order.
 * @param val value in host order.
 * @return @p val in network order.
 */
CL_INLINE uint16_t CL_API cl_hton16(IN const uint16_t val)
{
	return cl_ntoh16(val);
}

/**
 * Converts a 32-bit value from network to host byte order.
 * @param val value in network order.
 * @return @p val in host order.
 */
CL_INLINE uint32_t CL_API cl_ntoh32(IN const uint32_t val)
{
#if CPU_LE
	return __builtin_bswap32(val);
#else
	return val;
#endif
}

/**
 * Converts a 32-bit value from host to network byte order.
 * @param val value in host order.
 * @return @p val in network order.
 */
CL_INLINE uint32_t CL_API cl_hton32(IN const uint32_t val)
{
	return cl_ntoh32(val);
}

/**
 * Converts a 64-bit value from network to host byte order.
 * @param val value in network order.
 * @return @p val in host order.
 */
CL_INLINE uint64_t CL_API cl_ntoh64(IN const uint64_t val)
{
#if CPU_LE
	return __builtin_bswap64(val);
#else
	return val;
#endif
}

/**
 * Converts a 64-bit value from host to network byte order.
 * @param val value in host order.
 * @return @p val in network order.
 */
CL_INLINE uint64_t CL_API cl_hton64(IN const uint64_t val)
{
	return cl_ntoh64(val);
}

#ifdef __cplusplus
}
#endif

#endif /* _CL_BYTESWAP_OSD_H_ */
