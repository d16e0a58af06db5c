/*
 * ibal complib: base types, status codes and annotation keywords.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_types.h
 * @brief Base types of the component library: network-order integer types,
 * `cl_status_t` (values 0..21 as in OFED for Windows and OpenSM), object
 * states, `PARENT_STRUCT`, and the `IN`/`OUT`/`OPTIONAL` keywords.
 */
#ifndef _CL_TYPES_H_
#define _CL_TYPES_H_

#include <complib/cl_types_osd.h>

/** 16-bit value in network (big-endian) byte order. */
typedef uint16_t net16_t;
/** 32-bit value in network (big-endian) byte order. */
typedef uint32_t net32_t;
/** 64-bit value in network (big-endian) byte order. */
typedef uint64_t net64_t;

#ifndef offsetof
/** Offset in bytes of @p MEMBER within structure @p TYPE. */
#define offsetof(TYPE, MEMBER) ((uintptr_t)&((TYPE *)0)->MEMBER)
#endif

#ifndef PARENT_STRUCT
/**
 * Pointer to the structure of type @p PARENT_TYPE whose member @p MEMBER_NAME
 * is at @p p_member.
 */
#define PARENT_STRUCT(p_member, PARENT_TYPE, MEMBER_NAME) \
	((PARENT_TYPE *)(void *)((uint8_t *)(p_member) - offsetof(PARENT_TYPE, MEMBER_NAME)))
#endif

#ifndef IN
#define IN /**< Marks an input parameter. */
#endif
#ifndef OUT
#define OUT /**< Marks an output parameter. */
#endif
#ifndef OPTIONAL
#define OPTIONAL /**< Marks a parameter that may be NULL. */
#endif

#if !defined(FALSE)
#define FALSE 0 /**< boolean_t false. */
#endif
#if !defined(TRUE)
#define TRUE (!FALSE) /**< boolean_t true. */
#endif

/**
 * Status returned by complib functions. The numeric values are those of OFED
 * for Windows' user mode and of OpenSM's complib.
 */
typedef enum _cl_status {
	CL_SUCCESS = 0,            /**< The operation succeeded. */
	CL_ERROR,                  /**< An unspecified error. */
	CL_INVALID_STATE,          /**< The object is in the wrong state. */
	CL_INVALID_OPERATION,      /**< The operation is not allowed. */
	CL_INVALID_SETTING,        /**< A setting is invalid. */
	CL_INVALID_PARAMETER,      /**< A parameter is invalid. */
	CL_INSUFFICIENT_RESOURCES, /**< Resources other than memory ran out. */
	CL_INSUFFICIENT_MEMORY,    /**< Memory allocation failed. */
	CL_INVALID_PERMISSION,     /**< Permission denied. */
	CL_COMPLETED,              /**< The operation completed. */
	CL_NOT_DONE,               /**< The operation did not complete. */
	CL_PENDING,                /**< The operation is in progress. */
	CL_TIMEOUT,                /**< A wait timed out. */
	CL_CANCELED,               /**< The operation was canceled. */
	CL_REJECT,                 /**< The request was rejected. */
	CL_OVERRUN,                /**< A buffer was overrun. */
	CL_NOT_FOUND,              /**< The item was not found. */
	CL_UNAVAILABLE,            /**< The resource is unavailable. */
	CL_BUSY,                   /**< The resource is busy. */
	CL_DISCONNECT,             /**< The connection was lost. */
	CL_DUPLICATE,              /**< The item already exists. */
	CL_INVALID_REQUEST,        /**< The request is invalid. */
	CL_STATUS_COUNT            /**< Number of status values; not a status. */
} cl_status_t;

#ifdef __cplusplus
extern "C" {
#endif

/** Text for each cl_status_t value; use CL_STATUS_MSG to index it safely. */
extern const char *cl_status_text[CL_STATUS_COUNT];

/**
 * Text for a cl_status_t, bounds-checked.
 * @param errcode status to describe.
 * @return a static string; "invalid status code" when out of range.
 */
#define CL_STATUS_MSG(errcode) \
	(((unsigned)(errcode) < (unsigned)CL_STATUS_COUNT) ? \
		cl_status_text[(errcode)] : "invalid status code")

/**
 * Prints a formatted message to the log target (stderr unless redirected
 * with CL_LOG_FILE) and aborts the process.
 * @param message printf-style format.
 */
void cl_panic(const char *const message, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

/** States of complib objects, as in OFED for Windows. */
typedef enum _cl_state {
	CL_UNINITIALIZED = 1, /**< Constructed, not initialized. */
	CL_INITIALIZED,       /**< Initialized and usable. */
	CL_DESTROYING,        /**< Being destroyed. */
	CL_DESTROYED          /**< Destroyed. */
} cl_state_t;

/**
 * Tells whether @p state holds one of the cl_state_t values.
 * @param state the state to check.
 * @return TRUE if valid, FALSE otherwise.
 */
CL_INLINE boolean_t CL_API cl_is_state_valid(IN const cl_state_t state)
{
	return (state == CL_UNINITIALIZED) || (state == CL_INITIALIZED) ||
	       (state == CL_DESTROYING) || (state == CL_DESTROYED);
}

#ifdef __cplusplus
}
#endif

#endif /* _CL_TYPES_H_ */
