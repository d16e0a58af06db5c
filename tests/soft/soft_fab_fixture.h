/*
 * ibal tests: a soft fabric of the test's own for the soft HCA's unit
 * tests, which drive the provider through soft_prov_ops.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * fab_begin() makes a directory (mkdtemp), names it in IBAL_SOFT_FABRIC
 * with IBAL_SOFT_CAS=2 (and IBAL_SOFT_PORTS as asked, unset by default)
 * and resets the upcall recorder (upcall_rec.h); fab_end() removes the
 * directory and unsets both. The test opens the provider and its CAs in
 * between (soft_ca_fixture.h: two CAs with a PD each).
 */
#ifndef TESTS_SOFT_FAB_FIXTURE_H
#define TESTS_SOFT_FAB_FIXTURE_H

#include <stdlib.h>
#include <string.h>
#include "soft_hca.h"
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/prov_shim.h"
#include "../common/upcall_rec.h"

static const al_prov_ops_t *ops = &soft_prov_ops;

static char fab_dir[64];

/* The fabric directory, with two CAs of @p ports ports each (NULL: the provider's default). */
static inline void fab_begin_ports(const char *ports)
{
	strcpy(fab_dir, "/tmp/ibal-softca-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv(SOFT_FABRIC_ENV_DIR, fab_dir, 1);
	setenv(SOFT_ENV_CAS, "2", 1);
	if (ports)
		setenv(SOFT_ENV_PORTS, ports, 1);
	else
		unsetenv(SOFT_ENV_PORTS);
	rec_reset();
}

/* The fabric directory, two CAs of one port each. */
static inline void fab_begin(void)
{
	fab_begin_ports(NULL);
}

static inline void fab_end(void)
{
	test_rm_tree(fab_dir);
	unsetenv(SOFT_FABRIC_ENV_DIR);
	unsetenv(SOFT_ENV_PORTS);
}

#endif /* TESTS_SOFT_FAB_FIXTURE_H */
