/*
 * ibal tests: cl_mutex (the lock tests of tests/common/lock_tests.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_mutex.h>
#include "../common/cl_test.h"

#define LOCK_T cl_mutex_t
#define LOCK_CONSTRUCT cl_mutex_construct
#define LOCK_INIT cl_mutex_init
#define LOCK_DESTROY cl_mutex_destroy
#define LOCK_ACQUIRE cl_mutex_acquire
#define LOCK_RELEASE cl_mutex_release
#include "../common/lock_tests.h"

static const test_entry_t tests[] = {
	LOCK_TEST_ENTRIES,
};

TEST_MAIN("cl_mutex", tests)
