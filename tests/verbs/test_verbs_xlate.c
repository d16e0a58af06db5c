/*
 * ibal tests: the verbs provider's translations between ib_al.h and libibverbs types, on the host.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * No device is needed: core/prov/prov_verbs_xlate.h is pure functions. Each
 * test builds the access layer's structure, translates it and checks every
 * field libibverbs will read, byte orders included.
 */
#include <string.h>
#include "prov_verbs_xlate.h"
#include "verbs_watch.h"
#include "../common/cl_test.h"

static void test_errno(void)
{
	CU_ASSERT_EQUAL(verbs_errno_status(0), IB_SUCCESS);
	CU_ASSERT_EQUAL(verbs_errno_status(ENOMEM), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(verbs_errno_status(EAGAIN), IB_INSUFFICIENT_RESOURCES);
	CU_ASSERT_EQUAL(verbs_errno_status(EINVAL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(verbs_errno_status(EPERM), IB_INVALID_PERMISSION);
	CU_ASSERT_EQUAL(verbs_errno_status(EOPNOTSUPP), IB_UNSUPPORTED);
	CU_ASSERT_EQUAL(verbs_errno_status(EBUSY), IB_RESOURCE_BUSY);
	CU_ASSERT_EQUAL(verbs_errno_status(ENODEV), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL(verbs_errno_status(ETIMEDOUT), IB_TIMEOUT);
	CU_ASSERT_EQUAL(verbs_errno_status(EXDEV), IB_ERROR);
}

static void test_access(void)
{
	ib_access_t all = IB_AC_RDMA_READ | IB_AC_RDMA_WRITE | IB_AC_ATOMIC | IB_AC_LOCAL_WRITE |
			  IB_AC_MW_BIND;

	CU_ASSERT_EQUAL(verbs_access(0), 0);
	CU_ASSERT_EQUAL(verbs_access(IB_AC_RDMA_READ), IBV_ACCESS_REMOTE_READ);
	CU_ASSERT_EQUAL(verbs_access(IB_AC_RDMA_WRITE), IBV_ACCESS_REMOTE_WRITE);
	CU_ASSERT_EQUAL(verbs_access(IB_AC_ATOMIC), IBV_ACCESS_REMOTE_ATOMIC);
	CU_ASSERT_EQUAL(verbs_access(IB_AC_LOCAL_WRITE), IBV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_EQUAL(verbs_access(IB_AC_MW_BIND), IBV_ACCESS_MW_BIND);
	CU_ASSERT_EQUAL(verbs_access_ib(verbs_access(all)), all);
	/* Not cachable has no libibverbs meaning: dropped. */
	CU_ASSERT_EQUAL(verbs_access(IB_AC_NOT_CACHABLE), 0);
}

static void test_states(void)
{
	static const ib_qp_state_t s[] = { IB_QPS_RESET, IB_QPS_INIT, IB_QPS_RTR, IB_QPS_RTS,
					   IB_QPS_SQD, IB_QPS_SQERR, IB_QPS_ERROR };
	size_t i;

	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		CU_ASSERT_EQUAL(verbs_qp_state_ib(verbs_qp_state(s[i])), s[i]);
	CU_ASSERT_EQUAL(verbs_qp_state(IB_QPS_SQD_DRAINED), IBV_QPS_SQD);
	CU_ASSERT_EQUAL(verbs_qp_state(IB_QPS_TIME_WAIT), IBV_QPS_UNKNOWN);
	CU_ASSERT_EQUAL(verbs_qp_type(IB_QPT_RELIABLE_CONN), IBV_QPT_RC);
	CU_ASSERT_EQUAL(verbs_qp_type(IB_QPT_UNRELIABLE_CONN), IBV_QPT_UC);
	CU_ASSERT_EQUAL(verbs_qp_type(IB_QPT_UNRELIABLE_DGRM), IBV_QPT_UD);
	CU_ASSERT_EQUAL(verbs_qp_type(IB_QPT_RELIABLE_DGRM), 0);
	CU_ASSERT_EQUAL(verbs_qp_type(IB_QPT_QP1), 0);
	CU_ASSERT_EQUAL(verbs_mig_state_ib(verbs_mig_state(IB_APM_ARMED)), IB_APM_ARMED);
	CU_ASSERT_EQUAL(verbs_mig_state_ib(verbs_mig_state(IB_APM_REARM)), IB_APM_REARM);
	CU_ASSERT_EQUAL(verbs_mig_state_ib(verbs_mig_state(IB_APM_MIGRATED)), IB_APM_MIGRATED);
}

static void gid_fill(ib_gid_t *g, uint8_t seed)
{
	unsigned i;

	for (i = 0; i < 16; i++)
		g->raw[i] = (uint8_t)(seed + i);
}

static void test_ah(void)
{
	ib_av_attr_t a, b;
	struct ibv_ah_attr h;
	ib_gid_t sgid;

	memset(&a, 0, sizeof(a));
	a.port_num = 2;
	a.sl = 5;
	a.dlid = CL_HTON16(0x1234);
	a.path_bits = 3;
	a.static_rate = IB_PATH_RECORD_RATE_40_GBS;
	verbs_ah_attr(&a, 7, &h);
	CU_ASSERT_EQUAL(h.dlid, 0x1234);
	CU_ASSERT_EQUAL(h.sl, 5);
	CU_ASSERT_EQUAL(h.src_path_bits, 3);
	CU_ASSERT_EQUAL(h.static_rate, IBV_RATE_40_GBPS);
	CU_ASSERT_EQUAL(h.port_num, 2);
	CU_ASSERT_EQUAL(h.is_global, 0);
	CU_ASSERT_EQUAL(h.grh.sgid_index, 0);   /* no GRH: index unused */

	/* RoCE style: GRH, no LID. */
	a.dlid = 0;
	a.grh_valid = TRUE;
	a.grh.ver_class_flow = CL_HTON32((6u << 28) | (0xA5u << 20) | 0x12345u);
	a.grh.hop_limit = 9;
	gid_fill(&a.grh.dest_gid, 0x40);
	gid_fill(&sgid, 0x80);
	a.grh.src_gid = sgid;
	verbs_ah_attr(&a, 7, &h);
	CU_ASSERT_EQUAL(h.is_global, 1);
	CU_ASSERT_EQUAL(h.grh.flow_label, 0x12345u);
	CU_ASSERT_EQUAL(h.grh.traffic_class, 0xA5);
	CU_ASSERT_EQUAL(h.grh.hop_limit, 9);
	CU_ASSERT_EQUAL(h.grh.sgid_index, 7);
	CU_ASSERT_EQUAL(memcmp(h.grh.dgid.raw, a.grh.dest_gid.raw, 16), 0);
	/* A hop limit of 0 would never leave the subnet: 64 instead. */
	a.grh.hop_limit = 0;
	verbs_ah_attr(&a, 0, &h);
	CU_ASSERT_EQUAL(h.grh.hop_limit, 64);
	a.grh.hop_limit = 9;
	verbs_ah_attr(&a, 7, &h);
	verbs_av_attr_ib(&h, &sgid, &b);
	CU_ASSERT_EQUAL(b.port_num, 2);
	CU_ASSERT_EQUAL(b.sl, 5);
	CU_ASSERT_EQUAL(b.grh_valid, TRUE);
	CU_ASSERT_EQUAL(b.grh.ver_class_flow, a.grh.ver_class_flow);
	CU_ASSERT_EQUAL(b.grh.hop_limit, 9);
	CU_ASSERT_EQUAL(memcmp(&b.grh.dest_gid, &a.grh.dest_gid, 16), 0);
	CU_ASSERT_EQUAL(memcmp(&b.grh.src_gid, &sgid, 16), 0);
	CU_ASSERT_EQUAL(b.static_rate, IB_PATH_RECORD_RATE_40_GBS);
}

static void test_send_wr(void)
{
	ib_send_wr_t w;
	struct ibv_send_wr v;
	ib_local_ds_t ds[2] = { { 0x1000, 64, 0x11223344u }, { 0x2000, 8, 0x55667788u } };

	memset(&w, 0, sizeof(w));
	w.wr_id = 0xABCDEF0123456789ull;
	w.wr_type = WR_SEND;
	w.send_opt = IB_SEND_OPT_SIGNALED | IB_SEND_OPT_SOLICITED | IB_SEND_OPT_IMMEDIATE;
	w.immediate_data = CL_HTON32(0xCAFEBABE);
	w.num_ds = 2;
	w.ds_array = ds;
	memset(&v, 0xEE, sizeof(v));
	CU_ASSERT_EQUAL(verbs_send_wr(&w, &v), IB_SUCCESS);
	CU_ASSERT_EQUAL(v.wr_id, w.wr_id);
	CU_ASSERT_PTR_NULL(v.next);
	CU_ASSERT_EQUAL(v.opcode, IBV_WR_SEND_WITH_IMM);
	CU_ASSERT_EQUAL(v.send_flags, IBV_SEND_SIGNALED | IBV_SEND_SOLICITED);
	CU_ASSERT_EQUAL(v.imm_data, w.immediate_data);  /* network order on both sides */
	CU_ASSERT_EQUAL(v.num_sge, 2);
	/* The data segments are the scatter/gather list, not a copy. */
	CU_ASSERT_PTR_EQUAL(v.sg_list, (void *)ds);
	CU_ASSERT_EQUAL(v.sg_list[0].addr, 0x1000);
	CU_ASSERT_EQUAL(v.sg_list[0].length, 64);
	CU_ASSERT_EQUAL(v.sg_list[0].lkey, 0x11223344u);
	CU_ASSERT_EQUAL(v.sg_list[1].addr, 0x2000);
	CU_ASSERT_EQUAL(v.sg_list[1].length, 8);
	CU_ASSERT_EQUAL(v.sg_list[1].lkey, 0x55667788u);

	w.send_opt = IB_SEND_OPT_FENCE | IB_SEND_OPT_INLINE;
	CU_ASSERT_EQUAL(verbs_send_wr(&w, &v), IB_SUCCESS);
	CU_ASSERT_EQUAL(v.opcode, IBV_WR_SEND);
	CU_ASSERT_EQUAL(v.send_flags, IBV_SEND_FENCE | IBV_SEND_INLINE);

	w.wr_type = WR_RDMA_WRITE;
	w.send_opt = IB_SEND_OPT_IMMEDIATE;
	w.remote_ops.vaddr = 0x7F0000001000ull;
	w.remote_ops.rkey = CL_HTON32(0x00ABCDEF);
	CU_ASSERT_EQUAL(verbs_send_wr(&w, &v), IB_SUCCESS);
	CU_ASSERT_EQUAL(v.opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
	CU_ASSERT_EQUAL(v.wr.rdma.remote_addr, 0x7F0000001000ull);
	CU_ASSERT_EQUAL(v.wr.rdma.rkey, 0x00ABCDEFu);
	w.send_opt = 0;
	CU_ASSERT_EQUAL(verbs_send_wr(&w, &v), IB_SUCCESS);
	CU_ASSERT_EQUAL(v.opcode, IBV_WR_RDMA_WRITE);

	w.wr_type = WR_RDMA_READ;
	w.send_opt = IB_SEND_OPT_IMMEDIATE; /* no immediate on a read: ignored */
	CU_ASSERT_EQUAL(verbs_send_wr(&w, &v), IB_SUCCESS);
	CU_ASSERT_EQUAL(v.opcode, IBV_WR_RDMA_READ);
	CU_ASSERT_EQUAL(v.wr.rdma.remote_addr, 0x7F0000001000ull);
	CU_ASSERT_EQUAL(v.wr.rdma.rkey, 0x00ABCDEFu);

	w.wr_type = WR_COMPARE_SWAP;
	w.send_opt = 0;
	w.remote_ops.atomic1 = CL_HTON64(0x0102030405060708ull);
	w.remote_ops.atomic2 = CL_HTON64(0x1112131415161718ull);
	CU_ASSERT_EQUAL(verbs_send_wr(&w, &v), IB_SUCCESS);
	CU_ASSERT_EQUAL(v.opcode, IBV_WR_ATOMIC_CMP_AND_SWP);
	CU_ASSERT_EQUAL(v.wr.atomic.remote_addr, 0x7F0000001000ull);
	CU_ASSERT_EQUAL(v.wr.atomic.rkey, 0x00ABCDEFu);
	CU_ASSERT_EQUAL(v.wr.atomic.compare_add, 0x0102030405060708ull);
	CU_ASSERT_EQUAL(v.wr.atomic.swap, 0x1112131415161718ull);

	w.wr_type = WR_FETCH_ADD;
	CU_ASSERT_EQUAL(verbs_send_wr(&w, &v), IB_SUCCESS);
	CU_ASSERT_EQUAL(v.opcode, IBV_WR_ATOMIC_FETCH_AND_ADD);
	CU_ASSERT_EQUAL(v.wr.atomic.rkey, 0x00ABCDEFu);
	CU_ASSERT_EQUAL(v.wr.atomic.compare_add, 0x0102030405060708ull);
	CU_ASSERT_EQUAL(v.wr.atomic.swap, 0);

	w.wr_type = WR_LSO;
	CU_ASSERT_EQUAL(verbs_send_wr(&w, &v), IB_INVALID_WR_TYPE);
	w.wr_type = WR_LOCAL_INV;
	w.send_opt = IB_SEND_OPT_IMMEDIATE;
	CU_ASSERT_EQUAL(verbs_send_wr(&w, &v), IB_INVALID_WR_TYPE);
	w.wr_type = WR_UNKNOWN;
	CU_ASSERT_EQUAL(verbs_send_wr(&w, &v), IB_INVALID_WR_TYPE);
	w.wr_type = (ib_wr_type_t)77;
	CU_ASSERT_EQUAL(verbs_send_wr(&w, &v), IB_INVALID_WR_TYPE);
}

/* Every combination of the send options against the flags one by one. */
static void test_send_flags(void)
{
	ib_send_opt_t o;

	for (o = 0; o < 0x40; o++) {
		unsigned f = 0;

		if (o & IB_SEND_OPT_SIGNALED)
			f |= IBV_SEND_SIGNALED;
		if (o & IB_SEND_OPT_SOLICITED)
			f |= IBV_SEND_SOLICITED;
		if (o & IB_SEND_OPT_FENCE)
			f |= IBV_SEND_FENCE;
		if (o & IB_SEND_OPT_INLINE)
			f |= IBV_SEND_INLINE;
		CU_ASSERT_EQUAL(verbs_send_flags(o), f);
	}
	/* Vendor bits and the MAD-only local option have no libibverbs flag. */
	CU_ASSERT_EQUAL(verbs_send_flags(IB_SEND_OPT_VEND_MASK | IB_SEND_OPT_LOCAL |
					 IB_SEND_OPT_TX_IP_CSUM | IB_SEND_OPT_TX_TCP_UDP_CSUM), 0);
}

/* An L_Key is libibverbs' lkey bit for bit; a data segment is an ibv_sge. */
static void test_lkey_sge(void)
{
	ib_local_ds_t ds[3] = { { 0x1111222233334444ull, 1, 0x01020304u },
				{ 0x5555666677778888ull, 0xFFFFFFFFu, 0xA1B2C3D4u },
				{ 0, 0, 0 } };
	struct ibv_sge *sg = verbs_sge_list(ds);
	ib_recv_wr_t r;

	CU_ASSERT_EQUAL(verbs_lkey_ib(0x00ABCDEFu), 0x00ABCDEFu);
	CU_ASSERT_EQUAL(verbs_lkey(verbs_lkey_ib(0xDEADBEEFu)), 0xDEADBEEFu);
	CU_ASSERT_PTR_EQUAL(sg, (void *)ds);
	CU_ASSERT_EQUAL(sg[0].addr, 0x1111222233334444ull);
	CU_ASSERT_EQUAL(sg[0].length, 1);
	CU_ASSERT_EQUAL(sg[0].lkey, 0x01020304u);
	CU_ASSERT_EQUAL(sg[1].addr, 0x5555666677778888ull);
	CU_ASSERT_EQUAL(sg[1].length, 0xFFFFFFFFu);
	CU_ASSERT_EQUAL(sg[1].lkey, 0xA1B2C3D4u);
	CU_ASSERT_PTR_EQUAL(&sg[2], (void *)&ds[2]);
	/* A receive's segments too. */
	memset(&r, 0, sizeof(r));
	r.ds_array = ds;
	CU_ASSERT_PTR_EQUAL(verbs_sge_list(r.ds_array), (void *)ds);
}

static void test_wc(void)
{
	struct ibv_wc v;
	ib_wc_t w;

	memset(&v, 0, sizeof(v));
	v.wr_id = 42;
	v.status = IBV_WC_SUCCESS;
	v.opcode = IBV_WC_RECV;
	v.byte_len = 1064;
	v.wc_flags = IBV_WC_WITH_IMM | IBV_WC_GRH;
	v.imm_data = CL_HTON32(0x01020304);
	v.src_qp = 0x123456;
	v.slid = 0x0042;
	v.sl = 3;
	v.pkey_index = 1;
	v.dlid_path_bits = 2;
	verbs_wc(&v, &w);
	CU_ASSERT_EQUAL(w.wr_id, 42);
	CU_ASSERT_EQUAL(w.status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL(w.wc_type, IB_WC_RECV);
	CU_ASSERT_EQUAL(w.length, 1064);
	CU_ASSERT_EQUAL(w.recv.ud.recv_opt, IB_RECV_OPT_IMMEDIATE | IB_RECV_OPT_GRH_VALID);
	CU_ASSERT_EQUAL(w.recv.ud.immediate_data, CL_HTON32(0x01020304));
	CU_ASSERT_EQUAL(w.recv.ud.remote_qp, CL_HTON32(0x123456));
	CU_ASSERT_EQUAL(w.recv.ud.remote_lid, CL_HTON16(0x0042));
	CU_ASSERT_EQUAL(w.recv.ud.remote_sl, 3);
	CU_ASSERT_EQUAL(w.recv.ud.pkey_index, 1);
	CU_ASSERT_EQUAL(w.recv.ud.path_bits, 2);
	/* The connected view shares recv_opt and immediate_data. */
	CU_ASSERT_EQUAL(w.recv.conn.recv_opt, w.recv.ud.recv_opt);
	CU_ASSERT_EQUAL(w.recv.conn.immediate_data, CL_HTON32(0x01020304));

	v.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
	v.wc_flags = IBV_WC_WITH_IMM;
	verbs_wc(&v, &w);
	CU_ASSERT_EQUAL(w.wc_type, IB_WC_RECV_RDMA_WRITE);
	CU_ASSERT_EQUAL(w.recv.conn.recv_opt, IB_RECV_OPT_IMMEDIATE);

	v.opcode = IBV_WC_SEND;
	verbs_wc(&v, &w);
	CU_ASSERT_EQUAL(w.wc_type, IB_WC_SEND);
	CU_ASSERT_EQUAL(w.recv.conn.recv_opt, 0);   /* not a receive */
	CU_ASSERT_EQUAL(verbs_wc_type(IBV_WC_RDMA_WRITE), IB_WC_RDMA_WRITE);
	CU_ASSERT_EQUAL(verbs_wc_type(IBV_WC_RDMA_READ), IB_WC_RDMA_READ);
	CU_ASSERT_EQUAL(verbs_wc_type(IBV_WC_COMP_SWAP), IB_WC_COMPARE_SWAP);
	CU_ASSERT_EQUAL(verbs_wc_type(IBV_WC_FETCH_ADD), IB_WC_FETCH_ADD);
	CU_ASSERT_EQUAL(verbs_wc_type(IBV_WC_BIND_MW), IB_WC_MW_BIND);

	v.status = IBV_WC_WR_FLUSH_ERR;
	v.vendor_err = 0x99;
	verbs_wc(&v, &w);
	CU_ASSERT_EQUAL(w.status, IB_WCS_WR_FLUSHED_ERR);
	CU_ASSERT_EQUAL(w.vendor_specific, 0x99);
	CU_ASSERT_EQUAL(verbs_wc_status(IBV_WC_LOC_LEN_ERR), IB_WCS_LOCAL_LEN_ERR);
	CU_ASSERT_EQUAL(verbs_wc_status(IBV_WC_LOC_QP_OP_ERR), IB_WCS_LOCAL_OP_ERR);
	CU_ASSERT_EQUAL(verbs_wc_status(IBV_WC_LOC_PROT_ERR), IB_WCS_LOCAL_PROTECTION_ERR);
	CU_ASSERT_EQUAL(verbs_wc_status(IBV_WC_MW_BIND_ERR), IB_WCS_MEM_WINDOW_BIND_ERR);
	CU_ASSERT_EQUAL(verbs_wc_status(IBV_WC_REM_ACCESS_ERR), IB_WCS_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL(verbs_wc_status(IBV_WC_REM_OP_ERR), IB_WCS_REM_OP_ERR);
	CU_ASSERT_EQUAL(verbs_wc_status(IBV_WC_RNR_RETRY_EXC_ERR), IB_WCS_RNR_RETRY_ERR);
	CU_ASSERT_EQUAL(verbs_wc_status(IBV_WC_RETRY_EXC_ERR), IB_WCS_TIMEOUT_RETRY_ERR);
	CU_ASSERT_EQUAL(verbs_wc_status(IBV_WC_REM_INV_REQ_ERR), IB_WCS_REM_INVALID_REQ_ERR);
	CU_ASSERT_EQUAL(verbs_wc_status(IBV_WC_BAD_RESP_ERR), IB_WCS_BAD_RESP_ERR);
	CU_ASSERT_EQUAL(verbs_wc_status(IBV_WC_LOC_ACCESS_ERR), IB_WCS_LOCAL_ACCESS_ERR);
	CU_ASSERT_EQUAL(verbs_wc_status(IBV_WC_REM_ABORT_ERR), IB_WCS_REM_ABORT_ERR);
	CU_ASSERT_EQUAL(verbs_wc_status(IBV_WC_GENERAL_ERR), IB_WCS_GENERAL_ERR);
	CU_ASSERT_EQUAL(verbs_wc_status((enum ibv_wc_status)200), IB_WCS_GENERAL_ERR);
	/* An error completion leaves no receive options behind. */
	CU_ASSERT_EQUAL(w.recv.ud.recv_opt, 0);
	CU_ASSERT_EQUAL(w.recv.ud.immediate_data, 0);
	v.status = IBV_WC_SUCCESS;
	CU_ASSERT_EQUAL(verbs_wc_status(IBV_WC_SUCCESS), IB_WCS_SUCCESS);
	verbs_wc(&v, &w);
	CU_ASSERT_EQUAL(w.vendor_specific, 0); /* only an error carries the vendor's code */
}

/* Every opcode table entry and the receive options, one flag at a time. */
static void test_wc_tables(void)
{
	struct ibv_wc v;
	ib_wc_t w;
	unsigned op;

	CU_ASSERT_EQUAL(verbs_wc_type(IBV_WC_SEND), IB_WC_SEND);
	CU_ASSERT_EQUAL(verbs_wc_type(IBV_WC_LOCAL_INV), IB_WC_LOCAL_INV);
	CU_ASSERT_EQUAL(verbs_wc_type(IBV_WC_TSO), IB_WC_LSO);
	CU_ASSERT_EQUAL(verbs_wc_type(IBV_WC_RECV), IB_WC_RECV);
	CU_ASSERT_EQUAL(verbs_wc_type(IBV_WC_RECV_RDMA_WITH_IMM), IB_WC_RECV_RDMA_WRITE);
	/* Opcodes ib_al.h has no type for are receives, as before the tables. */
	for (op = 8; op < 300; op++)
		CU_ASSERT_EQUAL(verbs_wc_type((enum ibv_wc_opcode)op),
				op == IBV_WC_RECV_RDMA_WITH_IMM ? IB_WC_RECV_RDMA_WRITE : IB_WC_RECV);
	CU_ASSERT_EQUAL(verbs_wc_type(IBV_WC_TM_RECV), IB_WC_RECV);
	CU_ASSERT_EQUAL(verbs_wc_type((enum ibv_wc_opcode)1000), IB_WC_RECV);

	memset(&v, 0, sizeof(v));
	v.opcode = IBV_WC_RECV;
	v.imm_data = CL_HTON32(0x0A0B0C0D);
	v.wc_flags = 0;
	verbs_wc(&v, &w);
	CU_ASSERT_EQUAL(w.recv.ud.recv_opt, 0);
	CU_ASSERT_EQUAL(w.recv.ud.immediate_data, 0); /* no IBV_WC_WITH_IMM: not copied */
	v.wc_flags = IBV_WC_GRH;
	verbs_wc(&v, &w);
	CU_ASSERT_EQUAL(w.recv.ud.recv_opt, IB_RECV_OPT_GRH_VALID);
	CU_ASSERT_EQUAL(w.recv.ud.immediate_data, 0);
	v.wc_flags = IBV_WC_WITH_IMM;
	verbs_wc(&v, &w);
	CU_ASSERT_EQUAL(w.recv.ud.recv_opt, IB_RECV_OPT_IMMEDIATE);
	CU_ASSERT_EQUAL(w.recv.ud.immediate_data, CL_HTON32(0x0A0B0C0D));
	v.wc_flags = IBV_WC_IP_CSUM_OK | IBV_WC_WITH_INV;
	verbs_wc(&v, &w);
	CU_ASSERT_EQUAL(w.recv.ud.recv_opt, 0);
	/* A send completion's receive options are 0 whatever the flags. */
	v.opcode = IBV_WC_RDMA_WRITE;
	v.wc_flags = IBV_WC_WITH_IMM | IBV_WC_GRH;
	verbs_wc(&v, &w);
	CU_ASSERT_EQUAL(w.wc_type, IB_WC_RDMA_WRITE);
	CU_ASSERT_EQUAL(w.recv.ud.recv_opt, 0);
	CU_ASSERT_EQUAL(w.recv.ud.immediate_data, 0);
}

static void test_events(void)
{
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_CQ_ERR), IB_AE_CQ_ERROR);
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_QP_FATAL), IB_AE_QP_FATAL);
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_QP_REQ_ERR), IB_AE_WQ_REQ_ERROR);
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_QP_ACCESS_ERR), IB_AE_WQ_ACCESS_ERROR);
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_COMM_EST), IB_AE_QP_COMM);
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_SQ_DRAINED), IB_AE_SQ_DRAINED);
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_PATH_MIG), IB_AE_QP_APM);
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_PATH_MIG_ERR), IB_AE_QP_APM_ERROR);
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_DEVICE_FATAL), IB_AE_LOCAL_FATAL);
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_PORT_ACTIVE), IB_AE_PORT_ACTIVE);
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_PORT_ERR), IB_AE_PORT_DOWN);
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_LID_CHANGE), IB_AE_LID_CHANGE);
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_PKEY_CHANGE), IB_AE_PKEY_CHANGE);
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_SM_CHANGE), IB_AE_SM_CHANGE);
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_SRQ_ERR), IB_AE_SRQ_CATAS_ERROR);
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_SRQ_LIMIT_REACHED), IB_AE_SRQ_LIMIT_REACHED);
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_QP_LAST_WQE_REACHED),
			IB_AE_SRQ_QP_LAST_WQE_REACHED);
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_CLIENT_REREGISTER), IB_AE_CLIENT_REREGISTER);
	CU_ASSERT_EQUAL(verbs_event_code(IBV_EVENT_GID_CHANGE), IB_AE_GID_CHANGE);
	CU_ASSERT_EQUAL(verbs_event_code((enum ibv_event_type)250), IB_AE_UNKNOWN);
}

static void test_qp_mod(void)
{
	ib_qp_mod_t m;
	struct ibv_qp_attr a;
	int mask;

	/* RC RESET -> INIT */
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = 1;
	m.state.init.pkey_index = 2;
	m.state.init.access_ctrl = IB_AC_RDMA_WRITE | IB_AC_LOCAL_WRITE;
	mask = verbs_qp_mod(&m, IB_QPT_RELIABLE_CONN, IB_QPS_RESET, 0, 0, &a);
	CU_ASSERT_EQUAL(mask, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	CU_ASSERT_EQUAL(a.qp_state, IBV_QPS_INIT);
	CU_ASSERT_EQUAL(a.port_num, 1);
	CU_ASSERT_EQUAL(a.pkey_index, 2);
	CU_ASSERT_EQUAL(a.qp_access_flags, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE);
	/* INIT -> INIT: the port stays. */
	mask = verbs_qp_mod(&m, IB_QPT_RELIABLE_CONN, IB_QPS_INIT, 0, 0, &a);
	CU_ASSERT_EQUAL(mask & IBV_QP_PORT, 0);

	/* UD RESET -> INIT: a Q_Key, no access rights. */
	m.state.init.qkey = CL_HTON32(0x11110000);
	mask = verbs_qp_mod(&m, IB_QPT_UNRELIABLE_DGRM, IB_QPS_RESET, 0, 0, &a);
	CU_ASSERT_EQUAL(mask, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
	CU_ASSERT_EQUAL(a.qkey, 0x11110000u);

	/* RC INIT -> RTR */
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTR;
	m.state.rtr.rq_psn = CL_HTON32(0x00ABCDEF);
	m.state.rtr.dest_qp = CL_HTON32(0x000123);
	m.state.rtr.primary_av.port_num = 1;
	m.state.rtr.primary_av.dlid = CL_HTON16(7);
	m.state.rtr.primary_av.conn.path_mtu = IB_MTU_LEN_1024;
	m.state.rtr.resp_res = 4;
	m.state.rtr.rnr_nak_timeout = 12;
	mask = verbs_qp_mod(&m, IB_QPT_RELIABLE_CONN, IB_QPS_INIT, 0, 0, &a);
	CU_ASSERT_EQUAL(mask, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				      IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	CU_ASSERT_EQUAL(a.rq_psn, 0xABCDEFu);
	CU_ASSERT_EQUAL(a.dest_qp_num, 0x123u);
	CU_ASSERT_EQUAL(a.path_mtu, IBV_MTU_1024);
	CU_ASSERT_EQUAL(a.ah_attr.dlid, 7);
	CU_ASSERT_EQUAL(a.max_dest_rd_atomic, 4);
	CU_ASSERT_EQUAL(a.min_rnr_timer, 12);
	/* UC: no read/atomic resources, no RNR timer. */
	mask = verbs_qp_mod(&m, IB_QPT_UNRELIABLE_CONN, IB_QPS_INIT, 0, 0, &a);
	CU_ASSERT_EQUAL(mask, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				      IBV_QP_RQ_PSN);
	/* With an alternate path. */
	m.state.rtr.opts = IB_MOD_QP_ALTERNATE_AV;
	m.state.rtr.alternate_av.port_num = 1;
	m.state.rtr.alternate_av.dlid = CL_HTON16(9);
	m.state.rtr.alternate_av.conn.local_ack_timeout = 14;
	mask = verbs_qp_mod(&m, IB_QPT_RELIABLE_CONN, IB_QPS_INIT, 0, 3, &a);
	CU_ASSERT(mask & IBV_QP_ALT_PATH);
	CU_ASSERT_EQUAL(a.alt_ah_attr.dlid, 9);
	CU_ASSERT_EQUAL(a.alt_timeout, 14);
	CU_ASSERT_EQUAL(a.alt_port_num, 1);

	/* RC RTR -> RTS */
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.sq_psn = CL_HTON32(0x00000100);
	m.state.rts.retry_cnt = 6;
	m.state.rts.rnr_retry_cnt = 7;
	m.state.rts.local_ack_timeout = 14;
	m.state.rts.init_depth = 4;
	mask = verbs_qp_mod(&m, IB_QPT_RELIABLE_CONN, IB_QPS_RTR, 0, 0, &a);
	CU_ASSERT_EQUAL(mask, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				      IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	CU_ASSERT_EQUAL(a.sq_psn, 0x100u);
	CU_ASSERT_EQUAL(a.retry_cnt, 6);
	CU_ASSERT_EQUAL(a.rnr_retry, 7);
	CU_ASSERT_EQUAL(a.timeout, 14);
	CU_ASSERT_EQUAL(a.max_rd_atomic, 4);
	/* RTS -> RTS: only the optional attributes (path migration here). */
	m.state.rts.opts = IB_MOD_QP_APM_STATE;
	m.state.rts.apm_state = IB_APM_MIGRATED;
	mask = verbs_qp_mod(&m, IB_QPT_RELIABLE_CONN, IB_QPS_RTS, 0, 0, &a);
	CU_ASSERT_EQUAL(mask, IBV_QP_STATE | IBV_QP_PATH_MIG_STATE);
	CU_ASSERT_EQUAL(a.path_mig_state, IBV_MIG_MIGRATED);
	/* UD RTR -> RTS: the PSN only. */
	m.state.rts.opts = 0;
	mask = verbs_qp_mod(&m, IB_QPT_UNRELIABLE_DGRM, IB_QPS_RTR, 0, 0, &a);
	CU_ASSERT_EQUAL(mask, IBV_QP_STATE | IBV_QP_SQ_PSN);

	/* SQD with its event, ERROR, RESET, and a state that does not exist. */
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_SQD;
	m.state.sqd.sqd_event = TRUE;
	mask = verbs_qp_mod(&m, IB_QPT_RELIABLE_CONN, IB_QPS_RTS, 0, 0, &a);
	CU_ASSERT_EQUAL(mask, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY);
	CU_ASSERT_EQUAL(a.en_sqd_async_notify, 1);
	m.req_state = IB_QPS_ERROR;
	CU_ASSERT_EQUAL(verbs_qp_mod(&m, IB_QPT_RELIABLE_CONN, IB_QPS_RTS, 0, 0, &a), IBV_QP_STATE);
	CU_ASSERT_EQUAL(a.qp_state, IBV_QPS_ERR);
	m.req_state = IB_QPS_RESET;
	CU_ASSERT_EQUAL(verbs_qp_mod(&m, IB_QPT_RELIABLE_CONN, IB_QPS_RTS, 0, 0, &a), IBV_QP_STATE);
	m.req_state = IB_QPS_TIME_WAIT;
	CU_ASSERT_EQUAL(verbs_qp_mod(&m, IB_QPT_RELIABLE_CONN, IB_QPS_RTS, 0, 0, &a), 0);
}

/* The device watch's uevent filter (verbs_watch.h). */
#define UEV(s) s, sizeof(s) - 1
static void test_uevent_filter(void)
{
	CU_ASSERT(verbs_watch_relevant(UEV("add@/devices/virtual/infiniband/rxe1\0ACTION=add\0"
					   "DEVPATH=/devices/virtual/infiniband/rxe1\0"
					   "SUBSYSTEM=infiniband\0NAME=rxe1\0SEQNUM=1\0")));
	CU_ASSERT(verbs_watch_relevant(UEV("remove@/devices/virtual/infiniband_verbs/uverbs1\0"
					   "ACTION=remove\0SUBSYSTEM=infiniband_verbs\0")));
	CU_ASSERT(verbs_watch_relevant(UEV("remove@/x\0ACTION=remove\0SUBSYSTEM=infiniband_mad\0")));
	CU_ASSERT(verbs_watch_relevant(UEV("remove@/x\0SUBSYSTEM=infiniband\0ACTION=remove")));
	/* uverbs and umad come before the device is complete; other classes never. */
	CU_ASSERT(!verbs_watch_relevant(UEV("add@/x\0ACTION=add\0SUBSYSTEM=infiniband_verbs\0")));
	CU_ASSERT(!verbs_watch_relevant(UEV("add@/x\0ACTION=add\0SUBSYSTEM=net\0")));
	CU_ASSERT(!verbs_watch_relevant(UEV("change@/x\0ACTION=change\0SUBSYSTEM=infiniband\0")));
	CU_ASSERT(!verbs_watch_relevant(UEV("add@/x\0ACTION=add\0SUBSYSTEM=infinibandX\0")));
	CU_ASSERT(!verbs_watch_relevant(UEV("add@/x\0ACTION=add\0SUBSYSTEM=infiniban")));
	CU_ASSERT(!verbs_watch_relevant(UEV("add@/x\0ACTION=add\0")));
	CU_ASSERT(!verbs_watch_relevant(UEV("SUBSYSTEM=infiniband\0")));
	CU_ASSERT(!verbs_watch_relevant(UEV("ACTION=\0SUBSYSTEM=\0")));
	CU_ASSERT(!verbs_watch_relevant("", 0));
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_errno),   TEST_ENTRY(test_access), TEST_ENTRY(test_states),
	TEST_ENTRY(test_ah),      TEST_ENTRY(test_send_wr), TEST_ENTRY(test_send_flags),
	TEST_ENTRY(test_lkey_sge), TEST_ENTRY(test_wc), TEST_ENTRY(test_wc_tables),
	TEST_ENTRY(test_events),  TEST_ENTRY(test_qp_mod), TEST_ENTRY(test_uevent_filter),
};

TEST_MAIN("verbs_xlate", tests)
