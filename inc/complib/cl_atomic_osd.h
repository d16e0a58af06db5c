/*
 * ibal complib: Linux atomic operations behind cl_atomic.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_atomic_osd.h
 * @brief Inline 32-bit atomic operations over the GCC `__atomic` builtins.
 *
 * Every operation is sequentially consistent (a full barrier), as the
 * Interlocked functions behind OFED for Windows are. All of them are safe to
 * call concurrently on the same value from any number of threads.
 */
#ifndef _CL_ATOMIC_OSD_H_
#define _CL_ATOMIC_OSD_H_

#include <complib/cl_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Atomically increments a 32-bit signed integer.
 * @param p_value the integer.
 * @return the value after the increment.
 */
CL_INLINE int32_t CL_API cl_atomic_inc(IN atomic32_t *const p_value)
{
	return __atomic_add_fetch(p_value, 1, __ATOMIC_SEQ_CST);
}

/**
 * Atomically decrements a 32-bit signed integer.
 * @param p_value the integer.
 * @return the value after the decrement.
 */
CL_INLINE int32_t CL_API cl_atomic_dec(IN atomic32_t *const p_value)
{
	return __atomic_sub_fetch(p_value, 1, __ATOMIC_SEQ_CST);
}

/**
 * Atomically adds to a 32-bit signed integer.
 * @param p_value the integer.
 * @param increment the amount added.
 * @return the value after the addition.
 */
CL_INLINE int32_t CL_API cl_atomic_add(IN atomic32_t *const p_value,
				       IN const int32_t increment)
{
	return __atomic_add_fetch(p_value, increment, __ATOMIC_SEQ_CST);
}

/**
 * Atomically subtracts from a 32-bit signed integer.
 * @param p_value the integer.
 * @param decrement the amount subtracted.
 * @return the value after the subtraction.
 */
CL_INLINE int32_t CL_API cl_atomic_sub(IN atomic32_t *const p_value,
				       IN const int32_t decrement)
{
	return __atomic_sub_fetch(p_value, decrement, __ATOMIC_SEQ_CST);
}

/**
 * Atomically replaces a 32-bit signed integer.
 * @param p_value the integer.
 * @param new_value the value stored.
 * @return the value before the exchange.
 */
CL_INLINE int32_t CL_API cl_atomic_xchg(IN atomic32_t *const p_value,
					IN const int32_t new_value)
{
	return __atomic_exchange_n(p_value, new_value, __ATOMIC_SEQ_CST);
}

/**
 * Atomically stores @p new_value in a 32-bit signed integer if it equals
 * @p compare.
 * @param p_value the integer.
 * @param compare the value the integer must hold for the store to happen.
 * @param new_value the value stored on a match.
 * @return the value before the operation (equal to @p compare exactly when
 * the store happened).
 */
CL_INLINE int32_t CL_API cl_atomic_comp_xchg(IN atomic32_t *const p_value,
					     IN const int32_t compare,
					     IN const int32_t new_value)
{
	int32_t expected = compare;

	__atomic_compare_exchange_n(p_value, &expected, new_value, 0,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return expected;
}

#ifdef __cplusplus
}
#endif

#endif /* _CL_ATOMIC_OSD_H_ */
