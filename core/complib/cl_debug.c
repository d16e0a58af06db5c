/*
 * ibal complib: debug output, the CL_DEBUG_LEVEL mask and trace prefixes.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <complib/cl_debug.h>
#include "cl_internal.h"
#include "ibal_env.h"

/* Room for the text of one message before cl_msg_out falls back to the heap. */
#define MSG_STACK_LEN 512
/* Longest trace prefix kept; longer ones are cut (module and function names). */
#define PREFIX_LEN 256

static pthread_once_t level_once = PTHREAD_ONCE_INIT;
static uint32_t dbg_level = CL_DBG_ALL;

/* The prefix CL_TRACE formatted for this thread's next cl_msg_out. */
static __thread char pending_prefix[PREFIX_LEN];

static void level_read(void)
{
	__atomic_store_n(&dbg_level,
			 (uint32_t)__cl_env_uint(CL_DEBUG_LEVEL_ENV, 0, 0xFFFFFFFFu, CL_DBG_ALL),
			 __ATOMIC_RELAXED);
}

uint32_t cl_dbg_get_level(void)
{
	pthread_once(&level_once, level_read);
	return __atomic_load_n(&dbg_level, __ATOMIC_RELAXED);
}

void cl_dbg_set_level(const uint32_t level)
{
	pthread_once(&level_once, level_read);
	__atomic_store_n(&dbg_level, level, __ATOMIC_RELAXED);
}

uint32_t __cl_dbg_thread_id(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

void __cl_dbg_prefix(const char *const format, ...)
{
	va_list ap;

	va_start(ap, format);
	vsnprintf(pending_prefix, sizeof(pending_prefix), format, ap);
	va_end(ap);
}

/* Writes the pending prefix (consuming it) and `text` as one piece. */
static void emit(const char *text)
{
	if (pending_prefix[0]) {
		cl_out_printf("%s%s", pending_prefix, text);
		pending_prefix[0] = '\0';
	} else {
		cl_out_printf("%s", text);
	}
}

void cl_msg_out(const char *const message, ...)
{
	char stack_buf[MSG_STACK_LEN];
	char *heap_buf;
	va_list ap, ap2;
	int len;

	va_start(ap, message);
	va_copy(ap2, ap);
	len = vsnprintf(stack_buf, sizeof(stack_buf), message, ap);
	va_end(ap);
	if (len < 0) {
		va_end(ap2);
		return;
	}
	if ((size_t)len < sizeof(stack_buf)) {
		va_end(ap2);
		emit(stack_buf);
		return;
	}
	heap_buf = (char *)malloc((size_t)len + 1);
	if (heap_buf) {
		vsnprintf(heap_buf, (size_t)len + 1, message, ap2);
		emit(heap_buf);
		free(heap_buf);
	} else {
		/* Out of memory: print what fits rather than nothing. */
		emit(stack_buf);
	}
	va_end(ap2);
}
