/*
 * ibal complib: Linux thread information behind cl_thread.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_thread_osd.h
 * @brief The POSIX thread behind a cl_thread_t, and cl_is_blockable.
 */
#ifndef _CL_THREAD_OSD_H_
#define _CL_THREAD_OSD_H_

#include <pthread.h>
#include <complib/cl_types.h>
#include <complib/cl_timer.h>

/** Operating-system part of a cl_thread_t. */
typedef struct _cl_thread_osd {
	pthread_t id;      /**< The thread; meaningful only while @c started. */
	boolean_t started; /**< TRUE from a successful cl_thread_init until destroy. */
} cl_thread_osd_t;

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Tells whether the caller may block (sleep, wait on an event or mutex).
 * @return TRUE: every user-mode thread may block.
 */
CL_INLINE boolean_t CL_API cl_is_blockable(void)
{
	return TRUE;
}

#ifdef __cplusplus
}
#endif

#endif /* _CL_THREAD_OSD_H_ */
