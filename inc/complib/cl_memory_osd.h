/*
 * ibal complib: Linux definitions behind cl_memory.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_memory_osd.h
 * @brief Inline memory manipulation over the C library.
 */
#ifndef _CL_MEMORY_OSD_H_
#define _CL_MEMORY_OSD_H_

#include <complib/cl_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Sets @p count bytes at @p p_memory to @p fill.
 * @param p_memory destination.
 * @param fill byte value.
 * @param count number of bytes.
 */
CL_INLINE void CL_API cl_memset(IN void *const p_memory, IN const uint8_t fill,
				IN const size_t count)
{
	memset(p_memory, fill, count);
}

/**
 * Copies @p count bytes from @p p_src to @p p_dest (the ranges must not overlap).
 * @param p_dest destination buffer.
 * @param p_src source buffer.
 * @param count number of bytes.
 * @return @p p_dest.
 */
CL_INLINE void *CL_API cl_memcpy(IN void *const p_dest, IN const void *const p_src,
				 IN const size_t count)
{
	return memcpy(p_dest, p_src, count);
}

/**
 * Compares two buffers.
 * @param p_mem buffer compared.
 * @param p_ref reference buffer.
 * @param count number of bytes.
 * @return less than, equal to or greater than zero as @p p_mem is less than,
 * equal to or greater than @p p_ref.
 */
CL_INLINE int32_t CL_API cl_memcmp(IN const void *const p_mem, IN const void *const p_ref,
				   IN const size_t count)
{
	return memcmp(p_mem, p_ref, count);
}

#ifdef __cplusplus
}
#endif

#endif /* _CL_MEMORY_OSD_H_ */
