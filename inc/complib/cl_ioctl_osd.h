/*
 * ibal complib: Linux definitions behind cl_ioctl.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_ioctl_osd.h
 * @brief Linux glue for cl_ioctl.h: IOCTL_CODE in the Linux ioctl number
 * layout, and conversions between file descriptors and the `void *` device
 * handles cl_ioctl_request() takes.
 *
 * Thread safety: everything here is a pure computation.
 */
#ifndef _CL_IOCTL_OSD_H_
#define _CL_IOCTL_OSD_H_

#include <complib/cl_types.h>
#include <sys/ioctl.h>

/**
 * Builds an IO control code from a device type and a command. As upstream
 * documents for Linux, both are truncated to 8 bits; the result is a Linux
 * ioctl number with both transfer directions and size 0
 * (`_IOC(_IOC_READ | _IOC_WRITE, type, cmd, 0)`). For one type, codes grow
 * with the command, so range checks such as `code > START && code < MAX`
 * work as with upstream's codes.
 * @param type device type (8 bits used).
 * @param cmd command (8 bits used).
 */
#define IOCTL_CODE(type, cmd) \
	((uint32_t)_IOC(_IOC_READ | _IOC_WRITE, (unsigned)(type) & 0xFFu, (unsigned)(cmd) & 0xFFu, 0))

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Device handle for cl_ioctl_request() standing for a file descriptor
 * (ibal extension).
 * @param fd an open file descriptor.
 * @return the handle.
 */
CL_INLINE void *CL_API cl_ioctl_handle_from_fd(IN const int fd)
{
	return (void *)(intptr_t)fd;
}

/**
 * File descriptor a device handle stands for (ibal extension).
 * @param h_dev a handle made by cl_ioctl_handle_from_fd().
 * @return the file descriptor; -1 when @p h_dev cannot be one.
 */
CL_INLINE int CL_API cl_ioctl_fd_from_handle(IN const void *const h_dev)
{
	intptr_t v = (intptr_t)h_dev;

	return (v < 0 || v > 0x7FFFFFFF) ? -1 : (int)v;
}

#ifdef __cplusplus
}
#endif

#endif /* _CL_IOCTL_OSD_H_ */
