/*
 * ibal tests: cl_spinlock (the lock tests of tests/common/lock_tests.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_spinlock.h>
#include "../common/cl_test.h"

#define LOCK_T cl_spinlock_t
#define LOCK_CONSTRUCT cl_spinlock_construct
#define LOCK_INIT cl_spinlock_init
#define LOCK_DESTROY cl_spinlock_destroy
#define LOCK_ACQUIRE cl_spinlock_acquire
#define LOCK_RELEASE cl_spinlock_release
#include "../common/lock_tests.h"

static const test_entry_t tests[] = {
	LOCK_TEST_ENTRIES,
};

TEST_MAIN("cl_spinlock", tests)
