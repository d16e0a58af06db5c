/*
 * ibal fuzzing: a soft port's agents, the SMA and the PMA (SMPs and PMA MADs as they arrive).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * One soft CA in a fabric directory of its own (made once, with its
 * embedded SM off so that nothing else talks to the port); each input is a
 * MAD answered through the provider's local_mad, as an SMP or PMA MAD that
 * reached port 1 (directed-route SMPs taken as having arrived). The port's
 * state carries over from input to input (a Set changes it), as it would on
 * a wire. Seeds: Get and Set of the SMA's attributes and a PMA Get.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* nftw */
#endif
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "soft_hca.h"
#include "soft_fabric.h"
#include "../common/prov_shim.h"
#include "fuzz.h"

static const al_prov_ops_t *ops = &soft_prov_ops;
static void *ca;
static char dir[] = "/tmp/ibal-fuzz-smp-XXXXXX";

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* At exit: the CA closed, its fabric directory removed. */
static void smp_down(void)
{
	ops->close_ca(ca);
	ops->cleanup();
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

static void up_comp(void *al_cq)
{
	(void)al_cq;
}

static void up_event(void *al_obj, ib_async_event_t code, uint64_t vendor)
{
	(void)al_obj;
	(void)code;
	(void)vendor;
}

static void up_port(void *al_ca, uint8_t port_num)
{
	(void)al_ca;
	(void)port_num;
}

static const al_prov_upcalls_t upcalls = { up_comp, up_event, up_port };

static void seed(const char *name, uint8_t cls, uint8_t method, ib_net16_t attr, uint32_t mod)
{
	ib_smp_t smp;

	memset(&smp, 0, sizeof(smp));
	smp.base_ver = 1;
	smp.mgmt_class = cls;
	smp.class_ver = 1;
	smp.method = method;
	smp.trans_id = CL_HTON64(0x1234);
	smp.attr_id = attr;
	smp.attr_mod = cl_hton32(mod);
	smp.dr_slid = CL_HTON16(0xFFFF);
	smp.dr_dlid = CL_HTON16(0xFFFF);
	fuzz_seed(name, &smp, sizeof(smp));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	ib_net64_t guid;
	size_t n = 1;

	(void)argc;
	(void)argv;
	seed("node-info", IB_MCLASS_SUBN_LID, IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0);
	seed("port-info", IB_MCLASS_SUBN_DIR, IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_INFO, 1);
	seed("port-info-set", IB_MCLASS_SUBN_LID, IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 1);
	seed("pkey-table", IB_MCLASS_SUBN_LID, IB_MAD_METHOD_GET, IB_MAD_ATTR_P_KEY_TABLE, 0);
	seed("guid-info", IB_MCLASS_SUBN_LID, IB_MAD_METHOD_GET, IB_MAD_ATTR_GUID_INFO, 0);
	seed("sm-info", IB_MCLASS_SUBN_LID, IB_MAD_METHOD_GET, IB_MAD_ATTR_SM_INFO, 0);
	seed("pma-counters", IB_MCLASS_PERF, IB_MAD_METHOD_GET, CL_HTON16(0x0012), 0);
	if (!mkdtemp(dir))
		abort();
	setenv(SOFT_FABRIC_ENV_DIR, dir, 1);
	setenv(SOFT_ENV_CAS, "1", 1);
	setenv("IBAL_SOFT_SM", "off", 1);
	if (ops->init(&upcalls) != IB_SUCCESS || ops->get_ca_guids(&guid, &n) != IB_SUCCESS ||
	    ops->open_ca(guid, &ca, &ca) != IB_SUCCESS)
		abort();
	atexit(smp_down);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ib_smp_t in, out;

	if (size > sizeof(in))
		return 0;
	memset(&in, 0, sizeof(in));
	memcpy(&in, data, size);
	(void)ops->local_mad(ca, 1, &in, &out);
	return 0;
}
