/*
 * ibal complib: IO control requests from user mode.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_ioctl.h
 * @brief IOCTL object, user-mode side: IOCTL_CODE to build control codes and
 * cl_ioctl_request() to send a request to a device.
 *
 * On Linux a device handle is a file descriptor carried in a `void *`
 * (cl_ioctl_handle_from_fd()), and cl_ioctl_request() is ioctl(2) on it.
 * Windows' DeviceIoControl has separate input and output buffers while
 * ioctl(2) has one argument, so the buffers are mapped as follows:
 * - output only, or input and output being the same buffer: the output
 *   buffer is the argument;
 * - input only: the input buffer is the argument;
 * - distinct input and output buffers: a temporary buffer as large as the
 *   larger of the two receives the input (zero-filled past it), is the
 *   argument, and its first `out_size` bytes are copied to the output;
 * - both sizes 0: the input pointer (else the output pointer) is passed
 *   unchanged, so an ioctl taking an integer by value can be sent as
 *   `(void *)(uintptr_t)value`.
 *
 * ioctl(2) does not report a byte count: on success `*p_ret_bytes` is
 * `out_size`. Overlapped (asynchronous) requests do not exist on Linux:
 * `p_async_info` must be NULL, and cl_ioctl_result() has no request to
 * report on. The kernel-mode half of upstream's IOCTL object
 * (cl_ioctl_process, cl_ioctl_complete, cl_ioctl_in_buf, ...) is not part of
 * user mode.
 *
 * Thread safety: cl_ioctl_request may be called from any thread; the device
 * defines what concurrent requests do.
 */
#ifndef _CL_IOCTL_H_
#define _CL_IOCTL_H_

#include <complib/cl_types.h>
#include <complib/cl_ioctl_osd.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Opaque handle of an IO request. Upstream defines it for the kernel side
 * of a request; ibal defines it as an opaque pointer so that declarations
 * shared between both sides compile. cl_ioctl_request() takes the device
 * handle as `void *`, not as this type.
 */
typedef void *cl_ioctl_handle_t;

/**
 * Sends an IO control request to a device: ioctl(2) on the file descriptor
 * the handle stands for (see the file description for the buffers). An
 * ioctl interrupted by a signal is restarted. On failure errno tells the
 * error of ioctl(2).
 * @param h_dev device handle: a file descriptor made a pointer with
 * cl_ioctl_handle_from_fd().
 * @param ioctl_code control code (IOCTL_CODE or any Linux ioctl number).
 * @param p_in_buf input buffer; may be NULL when @p in_size is 0.
 * @param in_size size of the input in bytes.
 * @param p_out_buf output buffer; may be NULL when @p out_size is 0.
 * @param out_size size of the output buffer in bytes.
 * @param p_ret_bytes optional: receives @p out_size on success, 0 on failure.
 * @param p_async_info must be NULL (no overlapped I/O on Linux).
 * @return CL_SUCCESS;
 * CL_INVALID_OPERATION when @p p_async_info is not NULL (nothing is sent);
 * CL_INVALID_PARAMETER for a handle that cannot be a file descriptor, a
 * missing buffer with a nonzero size, or ioctl errors EBADF, EFAULT, EINVAL;
 * CL_INVALID_REQUEST when the device does not know the code (ENOTTY);
 * CL_INSUFFICIENT_MEMORY (ENOMEM, or no temporary buffer);
 * CL_INSUFFICIENT_RESOURCES (ENOSPC, ENOBUFS);
 * CL_INVALID_PERMISSION (EPERM, EACCES); CL_BUSY (EBUSY, EAGAIN);
 * CL_TIMEOUT (ETIMEDOUT); CL_CANCELED (ECANCELED); CL_NOT_FOUND (ENOENT);
 * CL_DUPLICATE (EEXIST); CL_UNAVAILABLE (ENODEV, ENXIO);
 * CL_ERROR for other errors.
 */
cl_status_t CL_API cl_ioctl_request(IN void *h_dev, IN uint32_t ioctl_code, IN void *p_in_buf,
				    IN size_t in_size, OUT void *p_out_buf, IN size_t out_size,
				    OUT size_t *p_ret_bytes,
				    IN void *p_async_info);

/**
 * Checks an asynchronous request. Linux has none (cl_ioctl_request never
 * returns CL_PENDING), so there is never anything to report.
 * @param h_dev device handle.
 * @param p_async_info the request's async information.
 * @param p_ret_bytes receives 0 when not NULL.
 * @param blocking whether to wait for completion; ignored.
 * @return CL_INVALID_OPERATION.
 */
cl_status_t CL_API cl_ioctl_result(IN void *h_dev, IN void *p_async_info,
				   OUT size_t *p_ret_bytes, IN boolean_t blocking);

#ifdef __cplusplus
}
#endif

#endif /* _CL_IOCTL_H_ */
