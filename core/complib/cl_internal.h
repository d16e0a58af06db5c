/*
 * ibal complib: private declarations shared by complib's own files.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#ifndef CL_INTERNAL_H
#define CL_INTERNAL_H

#include <stdio.h>
#include <complib/cl_types.h>

/* Mark functions that must not leave the library (the version script hides
 * them anyway; this keeps them out of the dynamic symbol table early). */
#define CL_PRIVATE __attribute__((visibility("hidden")))

/* The stream complib and the library's log (ibal_log.h) write diagnostics
 * to: the file named by IBAL_LOG_FILE, else CL_LOG_FILE (opened for append
 * once), else stderr. Never NULL. */
CL_PRIVATE FILE *cl_out_stream(void);

/* Writes one formatted diagnostic line to cl_out_stream() under a lock so
 * that lines from several threads do not interleave. */
CL_PRIVATE void cl_out_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The capacity a vector of grow step `grow` needs to hold `size` elements:
 * `size` rounded up to a multiple of `grow`. CL_INSUFFICIENT_MEMORY when the
 * vector cannot grow (`grow` 0) or the rounding would overflow. */
static inline cl_status_t cl_grow_capacity(size_t size, size_t grow, size_t *p_cap)
{
	if (!grow)
		return CL_INSUFFICIENT_MEMORY;
	*p_cap = size;
	if (size % grow) {
		if (size > SIZE_MAX - (grow - size % grow))
			return CL_INSUFFICIENT_MEMORY;
		*p_cap += grow - size % grow;
	}
	return CL_SUCCESS;
}

#endif
