/*
 * ibal internal: the status of a failed system call, by its errno.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A call that makes a descriptor, a mapping or a thread fails for want of
 * resources (EMFILE and ENFILE: no file descriptor left; ENOMEM, ENOSPC,
 * EAGAIN) or for another reason. The first is IB_INSUFFICIENT_RESOURCES, as
 * the API documents for exhausted resources; the rest IB_ERROR. The caller
 * logs what it was making and strerror(err). Private to the library's
 * sources; every folder of core/ may include it.
 */
#ifndef IBAL_ERRNO_H
#define IBAL_ERRNO_H

#include <errno.h>
#include <iba/ib_types.h>

static inline ib_api_status_t ibal_status_of_errno(int err)
{
	switch (err) {
	case EMFILE:
	case ENFILE:
	case ENOMEM:
	case ENOSPC:
	case EAGAIN:
		return IB_INSUFFICIENT_RESOURCES;
	default:
		return IB_ERROR;
	}
}

#endif /* IBAL_ERRNO_H */
