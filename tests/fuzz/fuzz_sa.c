/*
 * ibal fuzzing: the soft fabric's SA (soft_sa_recv), any MAD that reaches the SM port's QP1.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Each input is a MAD to a fresh SA that knows three CA ports (LIDs 1..3),
 * from LID 1; then the SA's timers run far in the future (leases end, RMPP
 * segments and Reports are resent and given up). What the SA sends is
 * dropped. Covers every record the SA answers (Path, MultiPath, Node,
 * PortInfo, Service, MCMember, InformInfo, GUIDInfo, ...), RMPP requests and
 * ACK/STOP/ABORT, and ReportResp. Seeds: one request of each common kind.
 */
#include <string.h>
#include "soft_sa.h"
#include "../soft/soft_sa_ports.h"
#include "fuzz.h"

static void drop(void *ctx, const ib_mad_t *m, const soft_mad_addr_t *dst)
{
	(void)ctx;
	(void)m;
	(void)dst;
}

static void seed(const char *name, uint8_t method, ib_net16_t attr, uint64_t comp_mask,
		 const void *rec, size_t len)
{
	ib_sa_mad_t m;

	memset(&m, 0, sizeof(m));
	m.base_ver = 1;
	m.mgmt_class = IB_MCLASS_SUBN_ADM;
	m.class_ver = 2;
	m.method = method;
	m.trans_id = CL_HTON64(0x1234);
	m.attr_id = attr;
	m.comp_mask = cl_hton64(comp_mask);
	memcpy(m.data, rec, len);
	fuzz_seed(name, &m, sizeof(m));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	ib_path_rec_t pr;
	ib_service_record_t sr;
	ib_member_rec_t mr;
	ib_inform_info_t ii;
	ib_node_record_t nr;

	(void)argc;
	(void)argv;
	memset(&pr, 0, sizeof(pr));
	pr.sgid = gid_of(1);
	pr.dgid = gid_of(2);
	pr.num_path = 0x81;
	seed("path-get", IB_MAD_METHOD_GET, IB_MAD_ATTR_PATH_RECORD,
	     IB_PR_COMPMASK_SGID | IB_PR_COMPMASK_DGID, &pr, sizeof(pr));
	seed("path-gettable", IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_PATH_RECORD, IB_PR_COMPMASK_SGID,
	     &pr, sizeof(pr));
	memset(&nr, 0, sizeof(nr));
	seed("node-gettable", IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_RECORD, 0, &nr, sizeof(nr));
	memset(&sr, 0, sizeof(sr));
	sr.service_id = CL_HTON64(0x1000);
	sr.service_gid = gid_of(1);
	sr.service_pkey = CL_HTON16(0xFFFF);
	sr.service_lease = CL_HTON32(60);
	strcpy((char *)sr.service_name, "fuzz");
	seed("service-set", IB_MAD_METHOD_SET, IB_MAD_ATTR_SERVICE_RECORD,
	     IB_SR_COMPMASK_SID | IB_SR_COMPMASK_SGID | IB_SR_COMPMASK_SLEASE, &sr, sizeof(sr));
	memset(&mr, 0, sizeof(mr));
	mr.mgid.raw[0] = 0xFF;
	mr.mgid.raw[1] = 0x12;
	mr.port_gid = gid_of(1);
	mr.qkey = CL_HTON32(0x1234);
	mr.pkey = CL_HTON16(0xFFFF);
	mr.scope_state = 0x21;
	seed("mcmember-join", IB_MAD_METHOD_SET, IB_MAD_ATTR_MCMEMBER_RECORD,
	     IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID | IB_MCR_COMPMASK_QKEY |
	     IB_MCR_COMPMASK_PKEY | IB_MCR_COMPMASK_JOIN_STATE, &mr, sizeof(mr));
	memset(&ii, 0, sizeof(ii));
	ii.lid_range_begin = CL_HTON16(0xFFFF);
	ii.is_generic = 1;
	ii.subscribe = 1;
	ii.trap_type = CL_HTON16(0xFFFF);
	ii.g_or_v.generic.trap_num = CL_HTON16(64);
	seed("informinfo-set", IB_MAD_METHOD_SET, IB_MAD_ATTR_INFORM_INFO, 0, &ii, sizeof(ii));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const ib_sm_info_t smi = { CL_HTON64(0x201), CL_HTON64(0x1234), 0,
					  (uint8_t)((1 << 4) | IB_SMINFO_STATE_MASTER) };
	soft_sa_ops_t ops = { NULL, drop };
	soft_mad_addr_t src;
	uint8_t mad[4096];
	soft_sa_t *sa;
	unsigned i;

	if (size > sizeof(mad))
		return 0;
	memcpy(mad, data, size);
	sa = soft_sa_create(&ops, &smi, 1);
	if (!sa)
		return 0;
	for (i = 1; i <= 3; i++) {
		soft_sa_port_t p = mk_port(i, (uint16_t)i, IB_LINK_ACTIVE);

		(void)soft_sa_port_update(sa, &p);
	}
	memset(&src, 0, sizeof(src));
	src.lid = 1;
	src.qpn = 1;
	src.qkey = 0x80010000u;
	src.pkey = 0xFFFF;
	soft_sa_recv(sa, (const ib_mad_t *)(const void *)mad, size, &src);
	(void)soft_sa_timer(sa, UINT64_MAX / 2);
	soft_sa_destroy(sa);
	return 0;
}
