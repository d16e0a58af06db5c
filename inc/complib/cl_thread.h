/*
 * ibal complib: threads of execution and thread-related services.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_thread.h
 * @brief Thread: cl_thread_construct, cl_thread_init, cl_thread_destroy,
 * cl_is_current_thread; and cl_thread_suspend, cl_thread_stall,
 * cl_proc_count, cl_is_blockable.
 *
 * cl_thread_init starts a POSIX thread that calls the callback once and
 * exits when it returns; cl_thread_destroy joins it.
 *
 * Thread safety: construct, init and destroy of one cl_thread_t must not
 * race with each other; the other functions may be called from any thread.
 */
#ifndef _CL_THREAD_H_
#define _CL_THREAD_H_

#include <complib/cl_thread_osd.h>

/**
 * Function a thread runs.
 * @param context the value given to cl_thread_init.
 */
typedef void (CL_API *cl_pfn_thread_callback_t)(IN void *context);

/** Thread object. Treat as opaque; use the cl_thread functions. */
typedef struct _cl_thread {
	cl_thread_osd_t osd;                   /**< The POSIX thread. */
	cl_pfn_thread_callback_t pfn_callback; /**< Function the thread runs. */
	const void *context;                   /**< Argument of @c pfn_callback. */
	char name[16];                         /**< Thread name, NUL-terminated. */
} cl_thread_t;

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Constructs a thread object so that cl_thread_destroy is safe. Cannot fail.
 * @param p_thread the thread object.
 */
CL_EXPORT void CL_API cl_thread_construct(IN cl_thread_t *const p_thread);

/**
 * Starts a thread that calls @p pfn_callback(@p context) once and then exits.
 * @param p_thread the thread object; must stay valid until cl_thread_destroy.
 * @param pfn_callback the function to run.
 * @param context its argument.
 * @param name name of the thread (optional); at most 15 characters are kept,
 * and the system thread name (see `ps -L`, gdb) is set to it.
 * @return CL_SUCCESS; CL_INVALID_PARAMETER if @p p_thread or @p pfn_callback
 * is NULL; CL_ERROR if the thread could not be created. A non-NULL
 * @p p_thread is constructed first, so cl_thread_destroy is safe after any
 * result.
 */
CL_EXPORT cl_status_t CL_API cl_thread_init(IN cl_thread_t *const p_thread,
					    IN cl_pfn_thread_callback_t pfn_callback,
					    IN const void *const context,
					    IN const char *const name);

/**
 * Waits for the thread to finish its callback and releases its resources.
 * Safe after cl_thread_construct alone, and when called twice. It must not
 * be called by the thread itself (ibal then detaches the thread instead of
 * deadlocking).
 * @param p_thread the thread object.
 */
CL_EXPORT void CL_API cl_thread_destroy(IN cl_thread_t *const p_thread);

/**
 * Puts the calling thread to sleep for at least @p pause_ms milliseconds
 * (signals do not shorten it). 0 yields the processor.
 * @param pause_ms sleep time in milliseconds.
 */
CL_EXPORT void CL_API cl_thread_suspend(IN const uint32_t pause_ms);

/**
 * Busy-waits for at least @p pause_us microseconds without giving up the
 * processor. Prefer cl_thread_suspend for anything but very short delays.
 * @param pause_us delay in microseconds.
 */
CL_EXPORT void CL_API cl_thread_stall(IN const uint32_t pause_us);

/**
 * Number of processors in the system.
 * @return the count of online processors, at least 1.
 */
CL_EXPORT uint32_t CL_API cl_proc_count(void);

/**
 * Tells whether the caller is the thread a cl_thread_t started.
 * @param p_thread the thread object.
 * @return TRUE if the calling thread is @p p_thread's running thread;
 * FALSE otherwise (also when it was never started or is destroyed).
 */
CL_EXPORT boolean_t CL_API cl_is_current_thread(IN const cl_thread_t *const p_thread);

#ifdef __cplusplus
}
#endif

#endif /* _CL_THREAD_H_ */
