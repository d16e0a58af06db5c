/*
 * ibal complib: cl_ioctl_request on ioctl(2).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <complib/cl_ioctl.h>

static cl_status_t status_of(int err)
{
	switch (err) {
	case EBADF:
	case EFAULT:
	case EINVAL:
		return CL_INVALID_PARAMETER;
	case ENOTTY:
		return CL_INVALID_REQUEST;
	case ENOMEM:
		return CL_INSUFFICIENT_MEMORY;
	case ENOSPC:
	case ENOBUFS:
		return CL_INSUFFICIENT_RESOURCES;
	case EPERM:
	case EACCES:
		return CL_INVALID_PERMISSION;
	case EBUSY:
	case EAGAIN:
		return CL_BUSY;
	case ETIMEDOUT:
		return CL_TIMEOUT;
	case ECANCELED:
		return CL_CANCELED;
	case ENOENT:
		return CL_NOT_FOUND;
	case EEXIST:
		return CL_DUPLICATE;
	case ENODEV:
	case ENXIO:
		return CL_UNAVAILABLE;
	default:
		return CL_ERROR;
	}
}

static int do_ioctl(int fd, uint32_t code, void *arg)
{
	int rc;

	do
		rc = ioctl(fd, (unsigned long)code, arg);
	while (rc == -1 && errno == EINTR);
	return rc;
}

/* ioctl with distinct input and output buffers, through one temporary. */
static int bounce_ioctl(int fd, uint32_t code, const void *in, size_t in_size, void *out,
			size_t out_size)
{
	size_t size = in_size > out_size ? in_size : out_size;
	void *tmp = calloc(1, size);
	int rc, err;

	if (!tmp) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(tmp, in, in_size);
	rc = do_ioctl(fd, code, tmp);
	err = errno;
	if (rc != -1)
		memcpy(out, tmp, out_size);
	free(tmp);
	errno = err;
	return rc;
}

cl_status_t cl_ioctl_request(void *h_dev, uint32_t ioctl_code, void *p_in_buf, size_t in_size,
			     void *p_out_buf, size_t out_size, size_t *p_ret_bytes,
			     void *p_async_info)
{
	int fd = cl_ioctl_fd_from_handle(h_dev);
	void *arg;
	int rc;

	if (p_ret_bytes)
		*p_ret_bytes = 0;
	if (p_async_info)
		return CL_INVALID_OPERATION;
	if (fd < 0 || (in_size && !p_in_buf) || (out_size && !p_out_buf))
		return CL_INVALID_PARAMETER;

	if (in_size && out_size && p_in_buf != p_out_buf) {
		rc = bounce_ioctl(fd, ioctl_code, p_in_buf, in_size, p_out_buf, out_size);
	} else {
		if (out_size)
			arg = p_out_buf;
		else if (in_size)
			arg = p_in_buf;
		else
			arg = p_in_buf ? p_in_buf : p_out_buf;
		rc = do_ioctl(fd, ioctl_code, arg);
	}
	if (rc == -1)
		return status_of(errno);
	if (p_ret_bytes)
		*p_ret_bytes = out_size;
	return CL_SUCCESS;
}

cl_status_t cl_ioctl_result(void *h_dev, void *p_async_info, size_t *p_ret_bytes,
			    boolean_t blocking)
{
	UNUSED_PARAM(h_dev);
	UNUSED_PARAM(p_async_info);
	UNUSED_PARAM(blocking);
	if (p_ret_bytes)
		*p_ret_bytes = 0;
	return CL_INVALID_OPERATION;
}
