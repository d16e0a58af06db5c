/*
 * ibal complib: Linux definitions behind cl_debug.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_debug_osd.h
 * @brief Linux glue for cl_debug.h: the module prefix of trace lines, the
 * size_t print format, the mapping of cl_dbg_out in debug builds, the
 * prefixes CL_ENTER/CL_EXIT/CL_TRACE print, CL_CHK_STK and cl_break.
 *
 * Define `__MODULE__` to a string literal before including cl_debug.h to
 * have trace lines start with `module:` before the function name. Every
 * trace line starts with the kernel thread id (hexadecimal) of the caller.
 *
 * Like upstream's, it includes `<stdio.h>` and `<stdarg.h>`: programs that
 * include cl_debug.h call printf() and use va_list without including them.
 *
 * Thread safety: everything here may be used from any thread.
 */
#ifndef _CL_DEBUG_OSD_H_
#define _CL_DEBUG_OSD_H_

#include <complib/cl_types.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if !defined(__MODULE__)
/** Module name printed before the function name in trace lines; define it before including cl_debug.h. */
#define __MODULE__ ""
/** Separator printed between __MODULE__ and the function name: ":" when the includer defines __MODULE__. */
#define __MOD_DELIMITER__ ""
#else
#define __MOD_DELIMITER__ ":"
#endif

/** printf conversion (without the '%') for a size_t printed as a signed value. */
#define PRIdSIZE_T "zd"

#if defined(_DEBUG_)
/** Debug builds send cl_dbg_out to cl_msg_out; release builds get a no-op from cl_debug.h. */
#define cl_dbg_out cl_msg_out
#endif

/**
 * Kernel thread id of the caller, printed at the start of trace lines
 * (ibal's counterpart of GetCurrentThreadId()).
 * @return the thread id.
 */
uint32_t CL_API __cl_dbg_thread_id(void);

/** Arguments of cl_dbg_out for the line CL_ENTER prints. */
#define _CL_DBG_ENTER \
	("0x%x:%s%s%s() [\n", __cl_dbg_thread_id(), __MODULE__, __MOD_DELIMITER__, __func__)
/** Arguments of cl_dbg_out for the line CL_EXIT prints. */
#define _CL_DBG_EXIT \
	("0x%x:%s%s%s() ]\n", __cl_dbg_thread_id(), __MODULE__, __MOD_DELIMITER__, __func__)
/** Arguments of cl_dbg_out for the prefix CL_TRACE prints before a message. */
#define _CL_DBG_INFO \
	("0x%x:%s%s%s(): ", __cl_dbg_thread_id(), __MODULE__, __MOD_DELIMITER__, __func__)
/** Arguments of cl_dbg_out for the prefix CL_TRACE prints before an error message. */
#define _CL_DBG_ERROR \
	("0x%x:%s%s%s() !ERROR!: ", __cl_dbg_thread_id(), __MODULE__, __MOD_DELIMITER__, __func__)

/** Stack check run by CL_ENTER; nothing on Linux. */
#define CL_CHK_STK

#ifndef cl_break
#if defined(_DEBUG_)
/** Halts execution: raises SIGTRAP in debug builds (a debugger stops there). */
#define cl_break() ((void)raise(SIGTRAP))
#else
/** Halts execution in debug builds; no effect in release builds. */
#define cl_break() ((void)0)
#endif
#endif

#ifdef __cplusplus
}
#endif

#endif /* _CL_DEBUG_OSD_H_ */
