/*
 * ibal tests: ported OFED-for-Windows programs declare their own getopt.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Compiled after including every public header (check-headers.sh prepends
 * them). If any header pulled in <unistd.h> or <getopt.h>, these
 * declarations would conflict with the C library's and the build would fail.
 */
#ifndef FALSE
#error "complib must define FALSE"
#endif
#ifndef PRIx64
#error "complib must provide PRIx64 (inttypes.h)"
#endif

struct option {
	const char *long_name;
	int has_arg;
	int *flag;
	int val;
};

char *optarg = 0;
long optind = 1;	/* long, unlike POSIX's int: any <unistd.h> makes this an error */

int getopt_long(int argc, char *const argv[], const char *optstring,
		const struct option *longopts, long *longindex);

int getopt_long(int argc, char *const argv[], const char *optstring,
		const struct option *longopts, long *longindex)
{
	(void)argc; (void)argv; (void)optstring; (void)longopts; (void)longindex;
	return -1;
}

int main(void)
{
	boolean_t b = TRUE;
	IN OUT OPTIONAL int unused = 0;

	(void)unused;
	return (b == TRUE && getopt_long(0, 0, "", 0, 0) == -1 && optind == 1) ? 0 : 1;
}
