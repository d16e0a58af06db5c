/*
 * ibal complib: spin lock, mutual exclusion for short critical sections.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_spinlock.h
 * @brief Spin lock: cl_spinlock_construct, cl_spinlock_init,
 * cl_spinlock_destroy, cl_spinlock_acquire, cl_spinlock_release.
 *
 * Construct (cannot fail) makes destroy safe; init makes the lock usable.
 * Acquire and release are inline. See cl_spinlock_osd.h for the Linux
 * implementation (an adaptive pthread mutex, not recursive).
 *
 * Thread safety: acquire and release may be called from any thread;
 * construct, init and destroy must not race with other use of the lock.
 */
#ifndef _CL_SPINLOCK_H_
#define _CL_SPINLOCK_H_

#include <complib/cl_spinlock_osd.h>

#endif /* _CL_SPINLOCK_H_ */
