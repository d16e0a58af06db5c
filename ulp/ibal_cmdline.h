/*
 * ibal tools: one line for a command-line error, for the tools that parse with getopt_long.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file ibal_cmdline.h
 * @brief Bad command lines get one line on standard error naming what is
 * wrong and status 2, as every ibal tool answers them (tests/ulp/
 * test_bad_input.sh). Parse with `opterr = 0` and an option string that
 * starts with ':' so that getopt_long() tells a missing value (':') from an
 * unknown option ('?'), and pass the index it fills in.
 */
#ifndef IBAL_CMDLINE_H
#define IBAL_CMDLINE_H

#include <getopt.h>
#include <stdio.h>

/**
 * Says what getopt_long() or the tool found wrong with the option just
 * read: an unknown option ('?'), a missing value (':'), or else a value the
 * tool refused.
 * @param prog the tool's name. @param c what getopt_long() returned.
 * @param longopts the long options given to it. @param li the index it set
 * (-1 if it did not). @param argv the arguments.
 * @return 2, the status of a bad command line.
 */
static inline int ibal_cmdline_error(const char *prog, int c, const struct option *longopts,
				     int li, char **argv)
{
	const char *word = optind > 0 ? argv[optind - 1] : "";
	char name[64];

	/* A missing value: the option is the last word read ("--repeat", "-t"). */
	if (li >= 0 && longopts[li].name)
		snprintf(name, sizeof(name), "--%s", longopts[li].name);
	else if (c == '?' && optopt)
		snprintf(name, sizeof(name), "-%c", optopt);
	else if (c == '?' || c == ':')
		snprintf(name, sizeof(name), "%s", word);
	else
		snprintf(name, sizeof(name), "-%c", c);
	if (c == '?')
		fprintf(stderr, "%s: unknown option '%s' (try --help)\n", prog, name);
	else if (c == ':')
		fprintf(stderr, "%s: option %s needs a value (try --help)\n", prog, name);
	else
		fprintf(stderr, "%s: bad value '%s' for %s (try --help)\n", prog, optarg ? optarg : "",
			name);
	return 2;
}

/**
 * Says that the command line, its options read, is wrong as a whole.
 * @param prog the tool's name. @param what what is wrong ("unexpected
 * argument 'x'", "-s and -f exclude each other").
 * @return 2.
 */
static inline int ibal_cmdline_bad(const char *prog, const char *what)
{
	fprintf(stderr, "%s: %s (try --help)\n", prog, what);
	return 2;
}

/**
 * Says that an argument was not expected.
 * @param prog the tool's name. @param word the argument.
 * @return 2.
 */
static inline int ibal_cmdline_extra(const char *prog, const char *word)
{
	fprintf(stderr, "%s: unexpected argument '%s' (try --help)\n", prog, word);
	return 2;
}

#endif /* IBAL_CMDLINE_H */
