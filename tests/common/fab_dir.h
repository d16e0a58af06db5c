/*
 * ibal tests: removal of a test's private soft-fabric directory.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Tests that use the soft provider make their own fabric directory with
 * mkdtemp() and name it in IBAL_SOFT_FABRIC; test_rm_tree() removes it
 * afterwards. The directory holds files (sockets, the registry) and, in the
 * tests of untrusted directories, subdirectories of its own: those are
 * removed the same way (a symbolic link is removed, never followed).
 */
#ifndef TESTS_FAB_DIR_H
#define TESTS_FAB_DIR_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Removes the files and subdirectories of @p dir, then @p dir itself; a
 * missing one is fine. */
static inline void test_rm_tree(const char *dir)
{
	char path[512];
	struct dirent *e;
	DIR *d = opendir(dir);
	int n;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			n = snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			if (n < 0 || (size_t)n >= sizeof(path))
				continue; /* no test makes a name this long */
			if (unlink(path) && errno == EISDIR)
				test_rm_tree(path);
		}
	closedir(d);
	rmdir(dir);
}

#endif /* TESTS_FAB_DIR_H */
