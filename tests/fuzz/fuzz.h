/*
 * ibal tests: what the fuzz harnesses share (tests/fuzz, docs/fuzzing.md).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A harness defines LLVMFuzzerTestOneInput (one input, any bytes) and
 * LLVMFuzzerInitialize, which makes what the harness needs once and, when
 * $FUZZ_SEED_DIR names a directory, writes the harness's seeds there: well
 * formed inputs made by the same encoders the tshark tests check (a
 * corpus to start from). Under libFuzzer (make fuzz, clang) libFuzzer's
 * main calls them; in the ordinary build fuzz_main.c does, over files and
 * directories named on the command line (the regression inputs, make check).
 */
#ifndef IBAL_FUZZ_H
#define IBAL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Writes one seed, $FUZZ_SEED_DIR/<name>, when that variable is set. */
static inline void fuzz_seed(const char *name, const void *p, size_t n)
{
	const char *dir = getenv("FUZZ_SEED_DIR");
	char path[4096];
	FILE *f;

	if (!dir || !*dir || (size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return;
	f = fopen(path, "wb");
	if (!f)
		return;
	if (fwrite(p, 1, n, f) != n)
		fprintf(stderr, "fuzz: %s: short write\n", path);
	fclose(f);
}

#endif /* IBAL_FUZZ_H */
