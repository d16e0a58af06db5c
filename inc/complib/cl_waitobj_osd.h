/*
 * ibal complib: Linux wait object handle behind cl_waitobj.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_waitobj_osd.h
 * @brief cl_waitobj_handle_t: a pointer to a private, reference-counted
 * object that owns an eventfd (see cl_waitobj.h).
 */
#ifndef _CL_WAITOBJ_OSD_H_
#define _CL_WAITOBJ_OSD_H_

#include <complib/cl_types.h>
#include <complib/cl_event.h>

/** @cond INTERNAL */
struct _cl_waitobj;
/** @endcond */

/**
 * Handle of a wait object, passed by value; NULL is never a valid handle.
 * The object behind it is private to complib.
 */
typedef struct _cl_waitobj *cl_waitobj_handle_t;

#endif /* _CL_WAITOBJ_OSD_H_ */
