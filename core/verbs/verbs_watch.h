/*
 * ibal verbs provider: the device watch's interface (verbs_watch.c).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#ifndef VERBS_WATCH_H
#define VERBS_WATCH_H

#include <stddef.h>
#include <string.h>

/** @cond INTERNAL */
/* How long a burst of uevents must have been quiet before the CAs are listed again. */
#define VERBS_WATCH_QUIET_MS 100

/* Starts the watch thread (uevents, else a comparison every @p poll_ms). */
void verbs_watch_start(unsigned poll_ms);
/* Stops and joins it; harmless when it never started. */
void verbs_watch_stop(void);
/* Asks for a comparison of the CA list soon (a device reported a fatal error). */
void verbs_watch_poke(void);
/* Whether the watch runs on uevents, so that it hears of every device
 * added or removed (verbs_for_each_ca() keeps its list while it does). */
int verbs_watch_listening(void);
/* Whether the @p n bytes at @p p are exactly the string @p s. */
static inline int verbs_watch_is(const char *p, size_t n, const char *s)
{
	return p && strlen(s) == n && !memcmp(p, s, n);
}

/* Whether the uevent message @p msg of @p len bytes ("ACTION@DEVPATH", then
 * NUL-separated KEY=value strings; the last one may lack its NUL) adds or
 * removes an RDMA device. */
static inline int verbs_watch_relevant(const char *msg, size_t len)
{
	const char *p = msg, *end = msg + len, *action = NULL, *subsys = NULL;
	size_t a_len = 0, s_len = 0;

	while (p < end) {
		size_t n = strnlen(p, (size_t)(end - p));

		if (n >= 7 && !memcmp(p, "ACTION=", 7)) {
			action = p + 7;
			a_len = n - 7;
		} else if (n >= 10 && !memcmp(p, "SUBSYSTEM=", 10)) {
			subsys = p + 10;
			s_len = n - 10;
		}
		p += n + 1;
	}
	if (verbs_watch_is(action, a_len, "add"))
		return verbs_watch_is(subsys, s_len, "infiniband");
	if (verbs_watch_is(action, a_len, "remove"))
		return verbs_watch_is(subsys, s_len, "infiniband") ||
		       verbs_watch_is(subsys, s_len, "infiniband_verbs") ||
		       verbs_watch_is(subsys, s_len, "infiniband_mad");
	return 0;
}
/** @endcond */

#endif /* VERBS_WATCH_H */
