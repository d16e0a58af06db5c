/*
 * ibal internal: the one diagnostic log of every layer (complib, access layer, providers).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A message belongs to a subsystem and has a level. It is written when its
 * level is at most the level chosen for its subsystem; the check comes
 * before any formatting. The choice is read once from the environment:
 *
 *   IBAL_LOG_LEVEL   none, error, warn (default), info, debug, trace, or 0..5:
 *                    the level of every subsystem
 *   IBAL_LOG_SUBSYS  a comma-separated list of subsystems (cm, mad, sa, ...),
 *                    each optionally "=level": only these get IBAL_LOG_LEVEL
 *                    (or their own level); the others keep warn
 *   IBAL_LOG_FILE    append to this file instead of standard error
 *                    (CL_LOG_FILE, complib's older name, is read when unset)
 *
 * A line reads "ibal[PID] SUBSYS LEVEL file.c:LINE: text", written with
 * one write(2). This header is private to the library's sources (it is not
 * installed); every folder of core/ may include it.
 */
#ifndef IBAL_LOG_H
#define IBAL_LOG_H

#include <stdint.h>

/** Levels, most severe first. */
typedef enum {
	IBAL_LOG_NONE = 0,  /**< Nothing (a level to choose, never a message's). */
	IBAL_LOG_ERR = 1,   /**< An operation failed for a reason outside the caller's input. */
	IBAL_LOG_WARN = 2,  /**< Something is wrong but work goes on (a setting ignored, a peer misbehaving). */
	IBAL_LOG_INFO = 3,  /**< A rare state change (device added, SM elected). */
	IBAL_LOG_DEBUG = 4, /**< Why a message was dropped or rejected, a timeout, a retry. */
	IBAL_LOG_TRACE = 5  /**< Every message and step. */
} ibal_log_level_t;

/** Subsystems: the names IBAL_LOG_SUBSYS takes are in ibal_log_subsys_name(). */
typedef enum {
	IBAL_SUB_COMPLIB = 0, /**< complib ("complib"). */
	IBAL_SUB_AL,          /**< access-layer objects and the manager ("al"). */
	IBAL_SUB_CM,          /**< the connection manager ("cm"). */
	IBAL_SUB_MAD,         /**< MAD services, pools, RMPP ("mad"). */
	IBAL_SUB_SA,          /**< the SA client and queries ("sa"). */
	IBAL_SUB_IOC,         /**< I/O controllers, the DM agent, IOC discovery ("ioc"). */
	IBAL_SUB_PNP,         /**< plug and play ("pnp"). */
	IBAL_SUB_SOFT,        /**< the soft provider's HCA model ("soft"). */
	IBAL_SUB_FABRIC,      /**< the soft fabric: rings, registry, capture ("fabric"). */
	IBAL_SUB_SM,          /**< the soft fabric's SM, SA and agents ("sm"). */
	IBAL_SUB_VERBS,       /**< the verbs provider ("verbs"). */
	IBAL_SUB_COUNT
} ibal_log_subsys_t;

/**
 * Whether a message of @p level in @p sub would be written (reads the
 * environment at the first call).
 */
int __cl_log_on(unsigned sub, unsigned level);

/** Writes one line (use the macros: they check the level first). */
void __cl_log_write(unsigned sub, unsigned level, const char *file, int line, const char *fmt,
		    ...) __attribute__((format(printf, 5, 6)));

/** A subsystem's name, or NULL when out of range. */
const char *__cl_log_subsys_name(unsigned sub);

/** Reads the environment again (tests; not thread-safe against concurrent logging). */
void __cl_log_reset(void);

/** Writes a message of @p level in @p sub, formatting it only when it is on. */
#define IBAL_LOG(sub, level, ...)                                                   \
	do {                                                                        \
		if (__cl_log_on((sub), (level)))                                    \
			__cl_log_write((sub), (level), __FILE__, __LINE__, __VA_ARGS__); \
	} while (0)

/** An error of @p sub. */
#define IBAL_ERR(sub, ...) IBAL_LOG(sub, IBAL_LOG_ERR, __VA_ARGS__)
/** A warning of @p sub. */
#define IBAL_WARN(sub, ...) IBAL_LOG(sub, IBAL_LOG_WARN, __VA_ARGS__)
/** An informational message of @p sub. */
#define IBAL_INFO(sub, ...) IBAL_LOG(sub, IBAL_LOG_INFO, __VA_ARGS__)
/** A debug message of @p sub. */
#define IBAL_DBG(sub, ...) IBAL_LOG(sub, IBAL_LOG_DEBUG, __VA_ARGS__)
/** A trace message of @p sub. */
#define IBAL_TRACE(sub, ...) IBAL_LOG(sub, IBAL_LOG_TRACE, __VA_ARGS__)

#endif /* IBAL_LOG_H */
