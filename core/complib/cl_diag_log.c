/*
 * ibal complib: the library's one diagnostic log (core/common/ibal_log.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Levels per subsystem, read once from IBAL_LOG_LEVEL and IBAL_LOG_SUBSYS;
 * lines go to complib's output stream (IBAL_LOG_FILE, CL_LOG_FILE or
 * standard error), one line per write, under the stream's lock. With
 * IBAL_LOG_TIME set (not "0") each line carries CLOCK_MONOTONIC after the
 * process ID, in seconds and microseconds: the same clock in every process
 * of a host, so that the logs of two ends can be put in one order.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cl_internal.h"
#include "ibal_log.h"

#define UNREAD 0xFFu

static const char *const sub_names[IBAL_SUB_COUNT] = {
	[IBAL_SUB_COMPLIB] = "complib", [IBAL_SUB_AL] = "al",         [IBAL_SUB_CM] = "cm",
	[IBAL_SUB_MAD] = "mad",         [IBAL_SUB_SA] = "sa",         [IBAL_SUB_IOC] = "ioc",
	[IBAL_SUB_PNP] = "pnp",         [IBAL_SUB_SOFT] = "soft",     [IBAL_SUB_FABRIC] = "fabric",
	[IBAL_SUB_SM] = "sm",           [IBAL_SUB_VERBS] = "verbs",
};

static const char *const level_names[] = { "none", "error", "warn", "info", "debug", "trace" };

static uint8_t levels[IBAL_SUB_COUNT] = { [0 ... IBAL_SUB_COUNT - 1] = UNREAD };
static uint8_t with_time; /* atomic: IBAL_LOG_TIME, set with the levels */
static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;

const char *__cl_log_subsys_name(unsigned sub)
{
	return sub < IBAL_SUB_COUNT ? sub_names[sub] : NULL;
}

/* A level by name or number (n bytes of s); -1 if it is neither. */
static int level_parse(const char *s, size_t n)
{
	unsigned i;

	if (n == 1 && s[0] >= '0' && s[0] <= '5')
		return s[0] - '0';
	for (i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (strlen(level_names[i]) == n && !strncmp(s, level_names[i], n))
			return (int)i;
	if (n == 3 && !strncmp(s, "err", 3))
		return IBAL_LOG_ERR;
	return -1;
}

static int subsys_parse(const char *s, size_t n)
{
	unsigned i;

	for (i = 0; i < IBAL_SUB_COUNT; i++)
		if (strlen(sub_names[i]) == n && !strncmp(s, sub_names[i], n))
			return (int)i;
	return -1;
}

/* Applies one IBAL_LOG_SUBSYS entry, "name" or "name=level"; FALSE if bad. */
static boolean_t subsys_entry(uint8_t *lv, const char *s, size_t n, int level)
{
	const char *eq = memchr(s, '=', n);
	size_t name_len = eq ? (size_t)(eq - s) : n;
	int sub = subsys_parse(s, name_len);

	if (eq)
		level = level_parse(eq + 1, n - name_len - 1);
	if (sub < 0 || level < 0)
		return FALSE;
	lv[sub] = (uint8_t)level;
	return TRUE;
}

#define MAX_BAD 8

/* The levels the environment chooses; what it has wrong goes in *bad_level
 * and bad_subsys[] (up to MAX_BAD entries, counted in *n_bad). */
static void levels_read(uint8_t *lv, const char **bad_level, const char **bad_subsys,
			unsigned *n_bad)
{
	const char *lvs = getenv("IBAL_LOG_LEVEL"), *subs = getenv("IBAL_LOG_SUBSYS");
	int level = IBAL_LOG_WARN;
	unsigned i;

	if (lvs && *lvs && (level = level_parse(lvs, strlen(lvs))) < 0) {
		*bad_level = lvs;
		level = IBAL_LOG_WARN;
	}
	for (i = 0; i < IBAL_SUB_COUNT; i++)
		lv[i] = (uint8_t)(subs && *subs ? IBAL_LOG_WARN : level);
	while (subs && *subs) {
		size_t n = strcspn(subs, ",");

		if (n && !subsys_entry(lv, subs, n, level) && *n_bad < MAX_BAD)
			bad_subsys[(*n_bad)++] = subs;
		subs += n + (subs[n] == ',');
	}
}

static void levels_setup(void)
{
	uint8_t lv[IBAL_SUB_COUNT];
	const char *bad_level = NULL, *bad_subsys[MAX_BAD];
	unsigned i, n_bad = 0;

	pthread_mutex_lock(&setup_lock);
	if (__atomic_load_n(&levels[0], __ATOMIC_ACQUIRE) != UNREAD) {
		pthread_mutex_unlock(&setup_lock);
		return;
	}
	levels_read(lv, &bad_level, bad_subsys, &n_bad);
	{
		const char *t = getenv("IBAL_LOG_TIME");

		__atomic_store_n(&with_time, (uint8_t)(t && *t && strcmp(t, "0") != 0),
				 __ATOMIC_RELAXED);
	}
	/* levels[0] last: it says the others are set. */
	for (i = IBAL_SUB_COUNT; i-- > 0;)
		__atomic_store_n(&levels[i], lv[i], __ATOMIC_RELEASE);
	pthread_mutex_unlock(&setup_lock);
	if (bad_level)
		IBAL_WARN(IBAL_SUB_COMPLIB, "IBAL_LOG_LEVEL=%s ignored (want none, error, warn, info, "
			  "debug, trace or 0..5): using warn", bad_level);
	for (i = 0; i < n_bad; i++)
		IBAL_WARN(IBAL_SUB_COMPLIB, "IBAL_LOG_SUBSYS: entry \"%.*s\" ignored (want a "
			  "subsystem name, optionally =level)", (int)strcspn(bad_subsys[i], ","),
			  bad_subsys[i]);
}

int __cl_log_on(unsigned sub, unsigned level)
{
	uint8_t lv;

	if (sub >= IBAL_SUB_COUNT)
		return 0;
	if (__atomic_load_n(&levels[0], __ATOMIC_ACQUIRE) == UNREAD)
		levels_setup();
	lv = __atomic_load_n(&levels[sub], __ATOMIC_RELAXED);
	return level != IBAL_LOG_NONE && level <= lv;
}

void __cl_log_reset(void)
{
	pthread_mutex_lock(&setup_lock);
	__atomic_store_n(&levels[0], UNREAD, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&setup_lock);
	levels_setup();
}

void __cl_log_write(unsigned sub, unsigned level, const char *file, int line, const char *fmt, ...)
{
	const char *base = file ? strrchr(file, '/') : NULL;
	char text[1024], when[32] = "";
	va_list ap;

	if (sub >= IBAL_SUB_COUNT || level < IBAL_LOG_ERR || level > IBAL_LOG_TRACE || !fmt)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	text[strcspn(text, "\n")] = '\0';
	if (__atomic_load_n(&with_time, __ATOMIC_RELAXED)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(when, sizeof(when), "%lld.%06ld ", (long long)ts.tv_sec,
			 (long)(ts.tv_nsec / 1000));
	}
	cl_out_printf("ibal[%ld] %s%s %s %s:%d: %s\n", (long)getpid(), when, sub_names[sub],
		      level_names[level], base ? base + 1 : (file ? file : "?"), line, text);
}
