/*
 * ibal internal: the one reader of the environment's settings.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Every setting the library takes from the environment is read here. An
 * unset or empty variable gives the default; a value that does not parse
 * or is out of range gives the default and a warning in the log
 * (ibal_log.h) naming the variable and what it wants. Private to the
 * library's sources; every folder of core/ may include it.
 */
#ifndef IBAL_ENV_H
#define IBAL_ENV_H

#include <stdint.h>

/**
 * An unsigned integer (decimal, 0x hex or 0 octal) within [@p lo, @p hi].
 * @return the value, or @p dflt when unset, empty, malformed or out of range.
 */
uint64_t __cl_env_uint(const char *name, uint64_t lo, uint64_t hi, uint64_t dflt);

/**
 * A real number within [@p lo, @p hi].
 * @return the value, or @p dflt when unset, empty, malformed or out of range.
 */
double __cl_env_double(const char *name, double lo, double hi, double dflt);

/** The variable's text, or NULL when it is unset or empty. */
const char *__cl_env_str(const char *name);

#endif /* IBAL_ENV_H */
