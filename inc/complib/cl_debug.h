/*
 * ibal complib: debug and trace output with run-time selectable levels.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_debug.h
 * @brief Debug output: cl_msg_out, cl_dbg_out and the level-filtered trace
 * macros CL_PRINT, CL_ENTER, CL_EXIT, CL_TRACE and CL_TRACE_EXIT.
 *
 * All output goes to the complib log target: stderr, or the file named by
 * the environment variable `CL_LOG_FILE` (opened for append on first use).
 *
 * **Levels.** A debug level is a 32-bit mask. The top bit (CL_DBG_ERROR)
 * marks errors; the lower 31 bits are the caller's own categories. A trace
 * macro takes the message's level (DBG_LVL) and the level to check it
 * against (CHK_LVL, typically the module's global level variable). The
 * message is printed when CHK_LVL has every bit of DBG_LVL set, or when both
 * DBG_LVL and CHK_LVL have CL_DBG_ERROR set (then the lower bits do not
 * matter).
 *
 * **Run-time level (ibal).** On top of CHK_LVL, the process has one global
 * mask, read once from the environment variable `CL_DEBUG_LEVEL` the first
 * time it is needed: a number in C syntax (`0x80000003`, `255`, `0`). It is
 * ANDed into every CHK_LVL, so it can only silence messages; `0` silences
 * all of them, errors included. Unset or unparsable (a warning is printed)
 * means CL_DBG_ALL, which leaves upstream's behaviour unchanged.
 * cl_dbg_set_level() replaces the mask at run time.
 *
 * **Builds.** As upstream, the trace macros and cl_dbg_out produce output
 * only in debug builds (`_DEBUG_` defined, e.g. by -D_DEBUG). In release
 * builds the trace macros compile to nothing (their arguments are not
 * evaluated) and cl_dbg_out is an empty inline function (its format is
 * still checked). cl_msg_out prints in every build and is not filtered by
 * levels.
 *
 * Each macro evaluates DBG_LVL and CHK_LVL once, and the message arguments
 * only when the message is printed. A CL_TRACE line (prefix and message) is
 * written as one piece, so lines of concurrent threads do not mix.
 *
 * Thread safety: every function and macro may be used from any thread.
 */
#ifndef _CL_DEBUG_H_
#define _CL_DEBUG_H_

#include <complib/cl_debug_osd.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef cl_msg_out
/**
 * Writes a message to the complib log target, in debug and release builds.
 * The text is printed as formatted (add the trailing newline yourself) and
 * is never truncated.
 * @param message printf-style format.
 */
void CL_API cl_msg_out(IN const char *const message, IN...)
	__attribute__((format(printf, 1, 2)));
#endif

#ifndef cl_dbg_out
/**
 * Writes a debug message: the same as cl_msg_out in debug builds
 * (cl_debug_osd.h maps it), no effect in release builds.
 * @param debug_message printf-style format.
 */
CL_INLINE void CL_API cl_dbg_out(IN const char *const debug_message, IN...)
	__attribute__((format(printf, 1, 2)));

CL_INLINE void CL_API cl_dbg_out(IN const char *const debug_message, IN...)
{
	UNUSED_PARAM(debug_message);
}
#endif

#ifdef __cplusplus
}
#endif

/** Level that disables all output, errors included. */
#define CL_DBG_DISABLE 0
/** Level bit marking an error message (the most significant bit). */
#define CL_DBG_ERROR 0x80000000
/** Level enabling all output. */
#define CL_DBG_ALL 0xFFFFFFFF

/** Name of the environment variable holding the process-wide level mask (ibal). */
#define CL_DEBUG_LEVEL_ENV "CL_DEBUG_LEVEL"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The process-wide level mask (ibal extension). The first call reads
 * `CL_DEBUG_LEVEL` from the environment; later calls return the cached or
 * set value.
 * @return the mask; CL_DBG_ALL when the variable is unset or invalid.
 */
uint32_t CL_API cl_dbg_get_level(void);

/**
 * Replaces the process-wide level mask (ibal extension); the environment is
 * not read afterwards.
 * @param level the new mask; CL_DBG_DISABLE silences all trace output.
 */
void CL_API cl_dbg_set_level(IN const uint32_t level);

/**
 * Tells whether a message of level @p dbg_lvl passes the check against
 * @p chk_lvl and the process-wide mask (ibal extension; the trace macros use
 * it).
 * @param dbg_lvl level of the message.
 * @param chk_lvl level to check against.
 * @return TRUE if the message is to be printed, FALSE otherwise.
 */
CL_INLINE boolean_t CL_API cl_dbg_is_enabled(IN const uint32_t dbg_lvl, IN const uint32_t chk_lvl)
{
	uint32_t mask = cl_dbg_get_level();
	uint32_t chk = chk_lvl & mask;

	if (mask == CL_DBG_DISABLE)
		return FALSE;
	if (dbg_lvl & chk & CL_DBG_ERROR)
		return TRUE;
	return (dbg_lvl & chk) == dbg_lvl;
}

/** @cond INTERNAL */
/* Formats the prefix of a trace line; the calling thread's next cl_msg_out
 * writes it in front of its own text, as one piece. */
void CL_API __cl_dbg_prefix(IN const char *const format, IN...)
	__attribute__((format(printf, 1, 2)));
/** @endcond */

#ifdef __cplusplus
}
#endif

#if defined(_DEBUG_)

/**
 * Prints STRING when DBG_LVL passes the check against CHK_LVL (see the
 * file description).
 * @param DBG_LVL level of the message.
 * @param CHK_LVL level to check against.
 * @param STRING parenthesized printf arguments, e.g. `("x=%d\n", x)`.
 */
#define CL_PRINT(DBG_LVL, CHK_LVL, STRING) \
	do { \
		if (cl_dbg_is_enabled((uint32_t)(DBG_LVL), (uint32_t)(CHK_LVL))) \
			cl_dbg_out STRING; \
	} while (0)

/**
 * Marks entry into a function: prints `tid:module:function() [`.
 * @param DBG_LVL level of the message.
 * @param CHK_LVL level to check against.
 */
#define CL_ENTER(DBG_LVL, CHK_LVL) \
	do { \
		CL_CHK_STK; \
		CL_PRINT(DBG_LVL, CHK_LVL, _CL_DBG_ENTER); \
	} while (0)

/**
 * Marks exit from a function: prints `tid:module:function() ]`.
 * @param DBG_LVL level of the message.
 * @param CHK_LVL level to check against.
 */
#define CL_EXIT(DBG_LVL, CHK_LVL) CL_PRINT(DBG_LVL, CHK_LVL, _CL_DBG_EXIT)

/**
 * Prints STRING after `tid:module:function(): `, or after
 * `tid:module:function() !ERROR!: ` when DBG_LVL has CL_DBG_ERROR set.
 * @param DBG_LVL level of the message.
 * @param CHK_LVL level to check against.
 * @param STRING parenthesized printf arguments.
 */
#define CL_TRACE(DBG_LVL, CHK_LVL, STRING) \
	do { \
		uint32_t __cl_trace_lvl = (uint32_t)(DBG_LVL); \
		if (cl_dbg_is_enabled(__cl_trace_lvl, (uint32_t)(CHK_LVL))) { \
			if (__cl_trace_lvl & CL_DBG_ERROR) \
				__cl_dbg_prefix _CL_DBG_ERROR; \
			else \
				__cl_dbg_prefix _CL_DBG_INFO; \
			cl_dbg_out STRING; \
		} \
	} while (0)

/**
 * CL_TRACE followed by CL_EXIT.
 * @param DBG_LVL level of the message.
 * @param CHK_LVL level to check against.
 * @param STRING parenthesized printf arguments.
 */
#define CL_TRACE_EXIT(DBG_LVL, CHK_LVL, STRING) \
	do { \
		uint32_t __cl_trace_exit_dbg = (uint32_t)(DBG_LVL); \
		uint32_t __cl_trace_exit_chk = (uint32_t)(CHK_LVL); \
		CL_TRACE(__cl_trace_exit_dbg, __cl_trace_exit_chk, STRING); \
		CL_EXIT(__cl_trace_exit_dbg, __cl_trace_exit_chk); \
	} while (0)

#else /* _DEBUG_ */

/**
 * Prints STRING when DBG_LVL passes the check against CHK_LVL; nothing in
 * release builds (define `_DEBUG_` for output).
 * @param DBG_LVL level of the message.
 * @param CHK_LVL level to check against.
 * @param STRING parenthesized printf arguments, e.g. `("x=%d\n", x)`.
 */
#define CL_PRINT(DBG_LVL, CHK_LVL, STRING) ((void)0)
/**
 * Marks entry into a function (`tid:module:function() [`); nothing in
 * release builds.
 * @param DBG_LVL level of the message.
 * @param CHK_LVL level to check against.
 */
#define CL_ENTER(DBG_LVL, CHK_LVL) ((void)0)
/**
 * Marks exit from a function (`tid:module:function() ]`); nothing in
 * release builds.
 * @param DBG_LVL level of the message.
 * @param CHK_LVL level to check against.
 */
#define CL_EXIT(DBG_LVL, CHK_LVL) ((void)0)
/**
 * Prints STRING after `tid:module:function(): ` (or `... !ERROR!: ` for
 * errors); nothing in release builds.
 * @param DBG_LVL level of the message.
 * @param CHK_LVL level to check against.
 * @param STRING parenthesized printf arguments.
 */
#define CL_TRACE(DBG_LVL, CHK_LVL, STRING) ((void)0)
/**
 * CL_TRACE followed by CL_EXIT; nothing in release builds.
 * @param DBG_LVL level of the message.
 * @param CHK_LVL level to check against.
 * @param STRING parenthesized printf arguments.
 */
#define CL_TRACE_EXIT(DBG_LVL, CHK_LVL, STRING) ((void)0)

#endif /* _DEBUG_ */

#endif /* _CL_DEBUG_H_ */
