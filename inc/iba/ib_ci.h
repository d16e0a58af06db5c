/*
 * ibal: the user-visible part of the channel interface header of OFED for Windows.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file ib_ci.h
 * @brief Channel interface (verbs provider) definitions visible to user code:
 * the verbs interface version constants and `ci_umv_buf_t`, the buffer a
 * user-mode verbs library exchanges with its driver.
 *
 * In OFED for Windows the rest of this header is the kernel channel
 * interface: the `ci_*` function pointer types and the `ci_interface_t`
 * table a kernel HCA driver registers with `ib_register_ca()`. ibal does
 * not provide them: ibal's provider interface is its own and internal to the
 * library, and is not part of the public API.
 *
 * `ib_ci_op_t`, the vendor-specific request structure, is defined by
 * <iba/ib_types.h>, which this header includes.
 *
 * Thread safety: declarations only.
 */
#ifndef __IB_CI_H__
#define __IB_CI_H__

#include <iba/ib_types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VERBS_MAJOR_VER    (0x0002) /**< Major version of the verbs interface. */
#define VERBS_MINOR_VER    (0x0007) /**< Minor version of the verbs interface. */
#define VERBS_EX_MAJOR_VER (0x0001) /**< Major version of the extended verbs interface. */
#define VERBS_EX_MINOR_VER (0x0000) /**< Minor version of the extended verbs interface. */

/** Verbs interface version: major in the high 16 bits, minor in the low 16. */
#define VERBS_VERSION (((VERBS_MAJOR_VER) << 16) | (VERBS_MINOR_VER))

/**
 * Builds a verbs interface version number.
 * @param maj major version (low 16 bits used).
 * @param min minor version (low 16 bits used).
 */
#define MK_VERBS_VERSION(maj, min) ((((maj) & 0xFFFF) << 16) | ((min) & 0xFFFF))

/** Size of the name of a provider's user-mode library, terminator included. */
#define MAX_LIB_NAME 32

/**
 * Buffer through which a provider's user-mode library and its driver
 * exchange vendor-specific data around a verbs call.
 */
typedef struct _umv_buf {
	uint32_t command;     /**< Command code the driver understands. */
	uint32_t status;      /**< Driver status; initialize it so that a failure is detectable. */
	uint32_t input_size;  /**< Bytes of input in p_inout_buf. */
	uint32_t output_size; /**< On input the room for output; on return the bytes returned. */
	uint64_t p_inout_buf; /**< Address of the input/output buffer. */
} ci_umv_buf_t;

#ifdef __cplusplus
}
#endif

#endif /* __IB_CI_H__ */
