/*
 * ibal complib: the log provider, events for the system log.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_log.h
 * @brief Log provider: cl_log_event() records an informational, warning or
 * error event in the system log instead of the debug output.
 *
 * On Linux an event goes to syslog(3): the event's `name` is the syslog
 * identity (as upstream's event source), the facility is LOG_USER, and the
 * type selects the priority (CL_LOG_INFO: LOG_INFO, CL_LOG_WARN:
 * LOG_WARNING, CL_LOG_ERROR: LOG_ERR). The entry is `message`, followed by
 * ` [data: xx xx ...]` with the bytes of `p_data` in hexadecimal when given.
 * For each event the system log is opened with openlog(name, LOG_PID,
 * LOG_USER) and closed again, as upstream registers and deregisters an event
 * source per event; a process that also calls syslog(3) itself should pass
 * its identity to openlog() again after logging events.
 *
 * **Targets (ibal).** The environment variable `CL_LOG_EVENT`, read once on
 * the first event, chooses where events go: `syslog` (the default), `log`
 * (the complib log target only: stderr, or the file named by `CL_LOG_FILE`),
 * `both`, or `none`. Other values are reported on the complib log target and
 * the default is used. On the complib log target an event is one line:
 * `name[pid]: INFO|WARN|ERROR: message [data: ...]`.
 *
 * Upstream's kernel-only cl_event_log_write() does not exist in user mode;
 * CL_PRINT_TO_EVENT_LOG is the user-mode no-op of upstream.
 *
 * Thread safety: cl_log_event may be called from any thread; events are
 * serialized.
 */
#ifndef _CL_LOG_H_
#define _CL_LOG_H_

#include <complib/cl_types.h>

/** Kind of a log entry. */
typedef enum _cl_log_type {
	CL_LOG_INFO,  /**< Purely informational. */
	CL_LOG_WARN,  /**< A warning, not fatal. */
	CL_LOG_ERROR  /**< A fatal error. */
} cl_log_type_t;

/** Name of the environment variable choosing where events go (ibal). */
#define CL_LOG_EVENT_ENV "CL_LOG_EVENT"

/** Largest p_data logged with an event; longer data is left out (the event is still logged). */
#define CL_LOG_MAX_DATA 256

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Adds an entry to the system log (see the file description for where it
 * goes on Linux).
 * @param name source of the entry (the syslog identity); when NULL nothing
 * is logged.
 * @param type CL_LOG_INFO, CL_LOG_WARN or CL_LOG_ERROR; other values are
 * logged as CL_LOG_INFO.
 * @param message text of the entry, without a trailing newline (one is
 * removed if present); NULL logs an empty text.
 * @param p_data optional bytes giving context; logged in hexadecimal.
 * @param data_len size of @p p_data; ignored when p_data is NULL. When it
 * exceeds CL_LOG_MAX_DATA the entry is logged without its data.
 */
void CL_API cl_log_event(IN const char *const name, IN const cl_log_type_t type,
			 IN const char *const message, IN const void *const p_data,
			 IN const uint32_t data_len);

#ifdef __cplusplus
}
#endif

/**
 * Kernel-mode event-log print of upstream; no effect in user mode, and its
 * arguments are not evaluated.
 * @param _obj_ driver or device object.
 * @param _event_id_ event id.
 * @param _msg_ parenthesized printf arguments.
 */
#define CL_PRINT_TO_EVENT_LOG(_obj_, _event_id_, _msg_) ((void)0)

#endif /* _CL_LOG_H_ */
