/*
 * ibal complib: cl_log_event on syslog and/or the complib log target.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <complib/cl_log.h>
#include "cl_internal.h"
#include "ibal_log.h"

enum {
	TARGET_SYSLOG = 1,
	TARGET_LOG = 2,
};

static pthread_once_t target_once = PTHREAD_ONCE_INIT;
static int targets = TARGET_SYSLOG;
/* openlog() keeps the identity pointer: events are logged one at a time. */
static pthread_mutex_t syslog_lock = PTHREAD_MUTEX_INITIALIZER;

static void target_read(void)
{
	static const struct {
		const char *name;
		int targets;
	} names[] = {
		{ "syslog", TARGET_SYSLOG },
		{ "log", TARGET_LOG },
		{ "both", TARGET_SYSLOG | TARGET_LOG },
		{ "none", 0 },
	};
	const char *s = getenv(CL_LOG_EVENT_ENV);
	size_t i;

	if (!s)
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i].name)) {
			targets = names[i].targets;
			return;
		}
	}
	IBAL_WARN(IBAL_SUB_COMPLIB, "%s=%s ignored (want syslog, log, both or none): logging "
		  "events to syslog", CL_LOG_EVENT_ENV, s);
}

static int priority_of(cl_log_type_t type)
{
	switch (type) {
	case CL_LOG_ERROR:
		return LOG_ERR;
	case CL_LOG_WARN:
		return LOG_WARNING;
	case CL_LOG_INFO:
	default:
		return LOG_INFO;
	}
}

static const char *type_text(cl_log_type_t type)
{
	switch (type) {
	case CL_LOG_ERROR:
		return "ERROR";
	case CL_LOG_WARN:
		return "WARN";
	case CL_LOG_INFO:
	default:
		return "INFO";
	}
}

/* Builds "message [data: xx xx]" without the message's trailing newlines;
 * returns a malloc'd string or NULL. */
static char *event_text(const char *message, const void *p_data, uint32_t data_len)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *d = (const uint8_t *)p_data;
	size_t mlen = message ? strlen(message) : 0;
	size_t dlen = (p_data && data_len && data_len <= CL_LOG_MAX_DATA) ? data_len : 0;
	char *text, *p;
	size_t i;

	while (mlen && (message[mlen - 1] == '\n' || message[mlen - 1] == '\r'))
		mlen--;
	text = (char *)malloc(mlen + sizeof(" [data:]") + 3 * dlen);
	if (!text)
		return NULL;
	if (mlen)
		memcpy(text, message, mlen);
	p = text + mlen;
	if (dlen) {
		memcpy(p, " [data:", 7);
		p += 7;
		for (i = 0; i < dlen; i++) {
			*p++ = ' ';
			*p++ = hex[d[i] >> 4];
			*p++ = hex[d[i] & 0xf];
		}
		*p++ = ']';
	}
	*p = '\0';
	return text;
}

void cl_log_event(const char *const name, const cl_log_type_t type, const char *const message,
		  const void *const p_data, const uint32_t data_len)
{
	char *text;

	if (!name)
		return;
	pthread_once(&target_once, target_read);
	if (!targets)
		return;
	text = event_text(message, p_data, data_len);
	if (!text)
		return;
	if (targets & TARGET_SYSLOG) {
		pthread_mutex_lock(&syslog_lock);
		openlog(name, LOG_PID, LOG_USER);
		syslog(priority_of(type), "%s", text);
		closelog();
		pthread_mutex_unlock(&syslog_lock);
	}
	if (targets & TARGET_LOG)
		cl_out_printf("%s[%d]: %s: %s\n", name, (int)getpid(), type_text(type), text);
	free(text);
}
