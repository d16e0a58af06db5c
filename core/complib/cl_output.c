/*
 * ibal complib: the diagnostic output stream (ibal_log.h's too), status text and cl_panic.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include "cl_internal.h"

static pthread_once_t out_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out_stream;

static void out_open(void)
{
	const char *path = getenv("IBAL_LOG_FILE");

	if (!path || !*path)
		path = getenv("CL_LOG_FILE");

	out_stream = NULL;
	if (path && *path)
		out_stream = fopen(path, "ae");
	if (out_stream)
		setvbuf(out_stream, NULL, _IOLBF, 0);
	else
		out_stream = stderr;
}

FILE *cl_out_stream(void)
{
	pthread_once(&out_once, out_open);
	return out_stream;
}

void cl_out_printf(const char *fmt, ...)
{
	FILE *f = cl_out_stream();
	va_list ap;

	va_start(ap, fmt);
	pthread_mutex_lock(&out_lock);
	vfprintf(f, fmt, ap);
	fflush(f);
	pthread_mutex_unlock(&out_lock);
	va_end(ap);
}

const char *cl_status_text[CL_STATUS_COUNT] = {
	"CL_SUCCESS",
	"CL_ERROR",
	"CL_INVALID_STATE",
	"CL_INVALID_OPERATION",
	"CL_INVALID_SETTING",
	"CL_INVALID_PARAMETER",
	"CL_INSUFFICIENT_RESOURCES",
	"CL_INSUFFICIENT_MEMORY",
	"CL_INVALID_PERMISSION",
	"CL_COMPLETED",
	"CL_NOT_DONE",
	"CL_PENDING",
	"CL_TIMEOUT",
	"CL_CANCELED",
	"CL_REJECT",
	"CL_OVERRUN",
	"CL_NOT_FOUND",
	"CL_UNAVAILABLE",
	"CL_BUSY",
	"CL_DISCONNECT",
	"CL_DUPLICATE",
	"CL_INVALID_REQUEST",
};

void cl_panic(const char *const message, ...)
{
	FILE *f = cl_out_stream();
	va_list ap;

	va_start(ap, message);
	pthread_mutex_lock(&out_lock);
	vfprintf(f, message, ap);
	fflush(f);
	pthread_mutex_unlock(&out_lock);
	va_end(ap);
	abort();
}
