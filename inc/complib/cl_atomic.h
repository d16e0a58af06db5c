/*
 * ibal complib: atomic operations on 32-bit signed integers.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_atomic.h
 * @brief Atomic increment, decrement, add, subtract, exchange and
 * compare-exchange of an atomic32_t.
 *
 * Return values follow OFED for Windows: cl_atomic_inc, cl_atomic_dec,
 * cl_atomic_add and cl_atomic_sub return the **new** value; cl_atomic_xchg
 * and cl_atomic_comp_xchg return the **old** value. The functions are
 * inline (see cl_atomic_osd.h) and act as full memory barriers.
 *
 * Thread safety: all functions may run concurrently on the same value.
 */
#ifndef _CL_ATOMIC_H_
#define _CL_ATOMIC_H_

#include <complib/cl_atomic_osd.h>

#endif /* _CL_ATOMIC_H_ */
