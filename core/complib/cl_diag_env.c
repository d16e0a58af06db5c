/*
 * ibal complib: the library's one reader of environment settings (core/common/ibal_env.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <errno.h>
#include <stdlib.h>
#include "cl_internal.h"
#include "ibal_env.h"
#include "ibal_log.h"

const char *__cl_env_str(const char *name)
{
	const char *s = name ? getenv(name) : NULL;

	return s && *s ? s : NULL;
}

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Whether [s, end) is one number with only blanks around it (and, for an
 * unsigned one, begins with a digit: strtoull takes "-1"). */
static int number_ends(const char *s, const char *end, int digit_first)
{
	while (blank(*s))
		s++;
	if (end == s || (digit_first && (*s < '0' || *s > '9')))
		return 0;
	while (blank(*end))
		end++;
	return *end == '\0';
}

uint64_t __cl_env_uint(const char *name, uint64_t lo, uint64_t hi, uint64_t dflt)
{
	const char *s = __cl_env_str(name);
	unsigned long long v;
	char *end;

	if (!s)
		return dflt;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || !number_ends(s, end, 1) || v < lo || v > hi) {
		IBAL_WARN(IBAL_SUB_COMPLIB, "%s=%s ignored (want %llu..%llu): using %llu", name, s,
			  (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)dflt);
		return dflt;
	}
	return v;
}

double __cl_env_double(const char *name, double lo, double hi, double dflt)
{
	const char *s = __cl_env_str(name);
	char *end;
	double v;

	if (!s)
		return dflt;
	errno = 0;
	v = strtod(s, &end);
	if (errno || !number_ends(s, end, 0) || !(v >= lo && v <= hi)) {
		IBAL_WARN(IBAL_SUB_COMPLIB, "%s=%s ignored (want %g..%g): using %g", name, s, lo, hi,
			  dflt);
		return dflt;
	}
	return v;
}
