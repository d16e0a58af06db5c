/*
 * ibal complib: Linux definitions behind cl_types.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_types_osd.h
 * @brief Linux glue for cl_types.h: fixed-size integer types, the calling
 * convention and annotation macros of OFED for Windows, and assertions.
 *
 * Ported code uses `IN`, `OUT`, `OPTIONAL`, `CL_EXPORT`, `CL_API` and
 * `CL_INLINE` freely; on Linux they expand to nothing harmful (the ABI is the
 * plain C ABI). `<inttypes.h>` is included so that `PRIx64` and friends work
 * as they do with OFED for Windows. Upstream's user-mode cl_types_osd.h
 * includes `<windows.h>`, which brings the C library's `<string.h>` and
 * `<stdarg.h>`; programs rely on that, so this one includes them. It never
 * includes `<unistd.h>`.
 */
#ifndef _CL_TYPES_OSD_H_
#define _CL_TYPES_OSD_H_

#ifndef __STDC_FORMAT_MACROS
#define __STDC_FORMAT_MACROS 1 /**< PRI* macros in older C++ libraries. */
#endif
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <inttypes.h>
#include <string.h>
#include <assert.h>

#if defined(_DEBUG) && !defined(_DEBUG_)
#define _DEBUG_ 1
#endif

/** Signed natural-sized integer: 64 bits on a 64-bit platform. */
typedef intptr_t intn_t;
/** Unsigned natural-sized integer: 64 bits on a 64-bit platform. */
typedef uintptr_t uintn_t;
/** 32-bit value operated on by the cl_atomic functions. */
typedef volatile int32_t atomic32_t;
/** Integral boolean: set to TRUE or FALSE. */
typedef int boolean_t;
/** Unsigned char, as the Windows headers name it. */
typedef unsigned char uchar_t;

/** Marks a function exported from a complib or access-layer library. */
#ifndef CL_EXPORT
#define CL_EXPORT
#endif
/** Calling convention of complib functions: the plain C one on Linux. */
#ifndef CL_API
#define CL_API
#endif
/** Inline functions of the public headers. */
#ifndef CL_INLINE
#define CL_INLINE static inline
#endif
/**
 * Inline definition of a function the library also exports: callers compiled
 * with optimization run the header's body in place; any call that is not
 * inlined (and every call at -O0) goes to the exported function, whose
 * definition in the library has the same body. Binaries built against older
 * headers keep calling the exported function.
 */
#ifndef CL_EXTERN_INLINE
#define CL_EXTERN_INLINE extern inline __attribute__((__gnu_inline__))
#endif

/** Builds a 64-bit unsigned constant. */
#define CL_CONST64(x) x##ULL

/** Silences the unused-parameter warning for @p P. */
#define UNUSED_PARAM(P) ((void)(P))
/** Same as UNUSED_PARAM; upstream's variant for WPP tracing builds. */
#define UNUSED_PARAM_WOWPP(P) ((void)(P))
/** Static-analysis hint of upstream; nothing on Linux. */
#define CONDITION_ASSUMED(X)

/**
 * Debug-build assertion. With `_DEBUG_` defined (configure --enable-debug or
 * -D_DEBUG) a false @p exp aborts with its text; otherwise it is not evaluated.
 */
#ifndef CL_ASSERT
#ifdef _DEBUG_
#define CL_ASSERT(exp) assert(exp)
#else
#define CL_ASSERT(exp) ((void)0)
#endif
#endif

#endif /* _CL_TYPES_OSD_H_ */
