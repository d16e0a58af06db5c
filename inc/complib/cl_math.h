/*
 * ibal complib: MAX, MIN and ROUNDUP.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_math.h
 * @brief Arithmetic helper macros. Each evaluates its arguments more than
 * once, so pass no expressions with side effects. A definition the including
 * code already made (e.g. from <sys/param.h>) is kept.
 *
 * Thread safety: pure macros.
 */
#ifndef _CL_MATH_H_
#define _CL_MATH_H_

#include <complib/cl_types.h>

#ifndef MAX
/** The greater of @p x and @p y. */
#define MAX(x, y) ((x) > (y) ? (x) : (y))
#endif

#ifndef MIN
/** The lesser of @p x and @p y. */
#define MIN(x, y) ((x) < (y) ? (x) : (y))
#endif

#ifndef ROUNDUP
/**
 * @p val rounded up to the next multiple of @p align (any positive value, not
 * only powers of two); @p val itself when already a multiple. Both should be
 * unsigned integers no wider than uintn_t.
 */
#define ROUNDUP(val, align) \
	((((val) / (align)) * (align)) + (((val) % (align)) ? (align) : 0))
#endif

#endif /* _CL_MATH_H_ */
