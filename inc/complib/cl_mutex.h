/*
 * ibal complib: mutex, mutual exclusion for code that may sleep.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_mutex.h
 * @brief Mutex: cl_mutex_construct, cl_mutex_init, cl_mutex_destroy,
 * cl_mutex_acquire, cl_mutex_release (all inline, see cl_mutex_osd.h).
 *
 * The mutex is created unlocked and is not recursive.
 *
 * Thread safety: acquire and release may be called from any thread;
 * construct, init and destroy must not race with other use of the mutex.
 */
#ifndef _CL_MUTEX_H_
#define _CL_MUTEX_H_

#include <complib/cl_mutex_osd.h>

#endif /* _CL_MUTEX_H_ */
