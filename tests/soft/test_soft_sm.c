/*
 * ibal tests: the soft ports' SMA and PMA, the agents' packet rules and the embedded subnet manager.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Every test runs in a fabric directory of its own (mkdtemp, named by
 * IBAL_SOFT_FABRIC) with two soft CAs, through soft_prov_ops. MADs reach the
 * agents through ops->local_mad and as packets from a "probe": a bare
 * fabric port of the test that builds and reads IBA packets itself, as an
 * external subnet manager would; it also queries the SA (RMPP reassembled
 * and acknowledged by hand) for the virtual switch's records. The settings
 * are checked per fabric directory. Election and takeover use fork()ed
 * processes and pipes. Waits are bounded (poll, condition waits), never
 * sleeps.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <iba/ibal_soft.h>
#include "soft_fab_fixture.h"
#include "soft_mad_agent.h"
#include "soft_sm.h"

/* --- Fixture --------------------------------------------------------------- */

static void *ca[2];
static ib_net64_t guids[2];

static void open_cas(int n)
{
	size_t cnt = 2;
	int i;

	CU_ASSERT_EQUAL_FATAL(ops->init(&rec_upcalls), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ops->get_ca_guids(guids, &cnt), IB_SUCCESS);
	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL_FATAL(ops->open_ca(guids[i], &ca[i], &ca[i]), IB_SUCCESS);
}

static void close_cas(int n)
{
	int i;

	for (i = 0; i < n; i++)
		ops->close_ca(ca[i]);
	ops->cleanup();
}

static void up(void)
{
	test_fixture_up = 1;
	fab_begin();
	open_cas(2);
}

static void down(void)
{
	close_cas(2);
	fab_end();
	test_fixture_up = 0;
}

static soft_port_t *port_of(int ci)
{
	return &((soft_ca_t *)ca[ci])->port[0];
}

static uint16_t lid_of(int ci)
{
	return soft_port_lid(port_of(ci));
}

static uint8_t state_of(int ci)
{
	return __atomic_load_n(&port_of(ci)->link_state, __ATOMIC_ACQUIRE);
}

/* --- MAD helpers ----------------------------------------------------------- */

static void smp_init(ib_smp_t *smp, uint8_t cls, uint8_t method, ib_net16_t attr, uint32_t mod)
{
	memset(smp, 0, sizeof(*smp));
	smp->base_ver = 1;
	smp->mgmt_class = cls;
	smp->class_ver = 1;
	smp->method = method;
	smp->trans_id = CL_HTON64(0x1234);
	smp->attr_id = attr;
	smp->attr_mod = cl_hton32(mod);
	smp->dr_slid = CL_HTON16(0xFFFF);
	smp->dr_dlid = CL_HTON16(0xFFFF);
}

/* Get/Set through local_mad; returns the response status (host order) or
 * 0xFFFF when local_mad failed. */
static uint16_t local(int ci, uint8_t method, ib_net16_t attr, uint32_t mod, const void *data,
		      size_t len, void *out)
{
	ib_smp_t in, resp;

	smp_init(&in, IB_MCLASS_SUBN_LID, method, attr, mod);
	if (data)
		memcpy(in.data, data, len);
	if (ops->local_mad(ca[ci], 1, &in, &resp) != IB_SUCCESS)
		return 0xFFFF;
	CU_ASSERT_EQUAL(resp.method, IB_MAD_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(resp.trans_id, in.trans_id);
	if (out)
		memcpy(out, resp.data, IB_SMP_DATA_SIZE);
	return cl_ntoh16(resp.status);
}

static void get_pi(int ci, ib_port_info_t *pi)
{
	uint8_t d[IB_SMP_DATA_SIZE];

	CU_ASSERT_EQUAL(local(ci, IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_INFO, 0, NULL, 0, d), 0);
	memcpy(pi, d, sizeof(*pi));
}

/* The port's MasterSMLID, as its SMA reports it. */
static uint16_t sm_lid_of(int ci)
{
	ib_port_info_t pi;

	get_pi(ci, &pi);
	return cl_ntoh16(pi.master_sm_base_lid);
}

static uint16_t set_pi(int ci, const ib_port_info_t *pi)
{
	return local(ci, IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 0, pi, sizeof(*pi), NULL);
}

/* A Set of PortInfo that changes nothing but what the caller edits. */
static void pi_for_set(int ci, ib_port_info_t *pi)
{
	get_pi(ci, pi);
	pi->state_info1 &= 0xF0;
	pi->state_info2 = 0;
	pi->link_width_enabled = 0;
	pi->link_speed &= 0xF0;
}

/* --- The probe: a bare fabric port speaking raw packets -------------------- */

static soft_fabric_port_t *probe;

static void probe_open(void)
{
	CU_ASSERT_EQUAL_FATAL(soft_fabric_port_open(CL_HTON64(0x02BA1AFFFF000011ull),
						    CL_HTON64(0x02BA1AFFFF000010ull), 1, &probe),
			      IB_SUCCESS);
}

/* Sends a MAD (len bytes) from the probe. */
static void probe_send(uint16_t dlid, uint16_t to_lid, uint32_t dqp, uint32_t qkey, uint8_t vl,
		       const void *mad, uint32_t len)
{
	uint8_t buf[512];
	soft_pkt_t pkt;
	size_t n;

	memset(&pkt, 0, sizeof(pkt));
	pkt.lrh.vl = vl;
	pkt.lrh.lnh = SOFT_LNH_IBA_LOCAL;
	pkt.lrh.dlid = dlid;
	pkt.lrh.slid = soft_fabric_port_lid(probe);
	pkt.bth.opcode = SOFT_OPCODE(SOFT_TRANSPORT_UD, SOFT_OP_SEND_ONLY);
	pkt.bth.pkey = 0xFFFF;
	pkt.bth.dest_qp = dqp;
	pkt.deth.qkey = qkey;
	pkt.deth.src_qp = dqp;
	pkt.payload = mad;
	pkt.payload_len = len;
	CU_ASSERT_EQUAL_FATAL(soft_pkt_build(&pkt, buf, sizeof(buf), &n), SOFT_WIRE_OK);
	if (to_lid) {
		CU_ASSERT_EQUAL(soft_fabric_send_to(probe, to_lid, buf, n), IB_SUCCESS);
	} else {
		CU_ASSERT_EQUAL(soft_fabric_send(probe, buf, n), IB_SUCCESS);
	}
}

/* The next MAD at the probe before @p end (test_now_ms()): 1 with its 256
 * bytes in @p mad and the packet's headers in @p p_pkt, 0 at @p end. */
static int probe_next(uint64_t end, void *mad, soft_pkt_t *p_pkt)
{
	uint8_t buf[SOFT_FABRIC_MAX_PACKET];
	struct pollfd pfd;
	size_t len;

	for (;;) {
		if (soft_fabric_recv(probe, buf, sizeof(buf), &len) == IB_SUCCESS) {
			if (soft_pkt_parse(buf, len, p_pkt) != SOFT_WIRE_OK || p_pkt->payload_len < 256)
				continue;
			memcpy(mad, p_pkt->payload, 256);
			p_pkt->payload = NULL; /* it was in buf */
			return 1;
		}
		if (test_now_ms() >= end)
			return 0;
		pfd.fd = soft_fabric_port_fd(probe);
		pfd.events = POLLIN;
		poll(&pfd, 1, (int)(end - test_now_ms()));
	}
}

/* Receives one response MAD at the probe within @p ms; returns 1 and fills
 * @p mad (256 bytes) and @p p_pkt's headers, 0 on timeout. */
static int probe_recv(int ms, void *mad, soft_pkt_t *p_pkt)
{
	uint64_t end = test_now_ms() + (uint64_t)ms;

	while (probe_next(end, mad, p_pkt))
		/* The SM sweeps the probe too: its requests are not ours. */
		if (((const ib_mad_t *)mad)->method & IB_MAD_METHOD_RESP_MASK)
			return 1;
	return 0;
}

/* Waits for the response with TID @p tid (other MADs are skipped). */
static int probe_resp(uint64_t tid, int ms, void *mad, soft_pkt_t *p_pkt)
{
	while (probe_recv(ms, mad, p_pkt))
		if (((ib_mad_t *)mad)->trans_id == cl_hton64(tid))
			return 1;
	return 0;
}

/* --- SA queries from the probe ---------------------------------------------- */

/* Sends an SA request from the probe to the SA (on CA 0's port) and
 * gathers the answer, acknowledging RMPP segments. Fills @p out with the
 * records (at most @p cap bytes) and *@p p_stride with their size; returns
 * the number of records, or -1 (timeout, error status). */
static int sa_query(uint8_t method, ib_net16_t attr, ib_net64_t cm, const void *rec, size_t rec_len,
		    uint64_t tid, uint8_t *out, size_t cap, size_t *p_stride)
{
	ib_sa_mad_t m, r;
	soft_pkt_t pkt;
	size_t len = 0;
	uint32_t next = 1;
	int last = 0;

	memset(&m, 0, sizeof(m));
	m.base_ver = 1;
	m.mgmt_class = IB_MCLASS_SUBN_ADM;
	m.class_ver = 2;
	m.method = method;
	m.trans_id = cl_hton64(tid);
	m.attr_id = attr;
	m.comp_mask = cm;
	if (rec)
		memcpy(m.data, rec, rec_len);
	probe_send(lid_of(0), 0, 1, SOFT_QP1_QKEY, 0, &m, 256);
	while (!last) {
		uint32_t seg;

		if (!probe_resp(tid, 5000, &r, &pkt) || r.status)
			return -1;
		*p_stride = (size_t)cl_ntoh16(r.attr_offset) * 8;
		if (!*p_stride)
			return -1;
		if (!(r.rmpp_flags & IB_RMPP_FLAG_ACTIVE)) {
			memcpy(out, r.data, *p_stride < cap ? *p_stride : cap);
			return 1;
		}
		if (r.rmpp_type != IB_RMPP_TYPE_DATA)
			return -1;
		seg = cl_ntoh32(r.seg_num);
		if (seg == next) {
			size_t n = IB_SA_DATA_SIZE;

			if (r.rmpp_flags & IB_RMPP_FLAG_LAST) {
				n = cl_ntoh32(r.paylen_newwin) - 20; /* less its SA header */
				last = 1;
			}
			if (len + n > cap)
				return -1;
			memcpy(out + len, r.data, n);
			len += n;
			next++;
		}
		/* ACK what arrived in order, with a window of 8 more */
		r.rmpp_type = IB_RMPP_TYPE_ACK;
		r.rmpp_flags = IB_RMPP_FLAG_ACTIVE;
		r.seg_num = cl_hton32(next - 1);
		r.paylen_newwin = cl_hton32(next + 8);
		probe_send(lid_of(0), 0, 1, SOFT_QP1_QKEY, 0, &r, 256);
	}
	return (int)(len / *p_stride);
}

/* --- The probe as a port's SMA ----------------------------------------------- */

/* What the probe's port is, as its SMA answers the SM. */
static ib_port_info_t probe_pi;

/* The probe's port starts as a soft port does: CA 1's PortInfo, in INIT,
 * with the probe's LID and no SM yet. */
static void probe_sma_init(void)
{
	get_pi(1, &probe_pi);
	probe_pi.base_lid = cl_hton16(soft_fabric_port_lid(probe));
	probe_pi.master_sm_base_lid = 0;
	probe_pi.state_info1 = (uint8_t)((probe_pi.state_info1 & 0xF0) | IB_LINK_INIT);
}

/* The next request of the SM at the probe (directed route, to QP0), within
 * @p ms: 1 with it in @p smp and its packet's headers in @p p_pkt, 0 on timeout. */
static int probe_smp_req(int ms, ib_smp_t *smp, soft_pkt_t *p_pkt)
{
	uint64_t end = test_now_ms() + (uint64_t)ms;

	while (probe_next(end, smp, p_pkt))
		if (p_pkt->bth.dest_qp == 0 && smp->mgmt_class == IB_MCLASS_SUBN_DIR &&
		    !(smp->method & IB_MAD_METHOD_RESP_MASK))
			return 1;
	return 0;
}

/* Answers the SM's request @p smp as a CA port's SMA: NodeInfo,
 * NodeDescription, PortInfo; a Set of PortInfo takes the LID, SM LID and
 * prefix it carries and moves the state on (INIT to ARMED to ACTIVE). */
static void probe_sma_answer(ib_smp_t *smp, const soft_pkt_t *p_pkt)
{
	ib_node_info_t *ni = (ib_node_info_t *)smp->data;
	const ib_port_info_t *want = (const ib_port_info_t *)smp->data;
	uint8_t st;

	if (smp->attr_id == IB_MAD_ATTR_NODE_INFO) {
		memset(smp->data, 0, sizeof(smp->data));
		ni->base_version = 1;
		ni->class_version = 1;
		ni->node_type = IB_NODE_TYPE_CA;
		ni->num_ports = 1;
		ni->node_guid = CL_HTON64(0x02BA1AFFFF000010ull);
		ni->sys_guid = ni->node_guid;
		ni->port_guid = CL_HTON64(0x02BA1AFFFF000011ull);
		ni->partition_cap = CL_HTON16(1);
		ni->port_num_vendor_id = cl_hton32(1u << 24);
	} else if (smp->attr_id == IB_MAD_ATTR_NODE_DESC) {
		memset(smp->data, 0, sizeof(smp->data));
		strcpy((char *)smp->data, "probe");
	} else if (smp->attr_id == IB_MAD_ATTR_PORT_INFO) {
		if (smp->method == IB_MAD_METHOD_SET) {
			probe_pi.base_lid = want->base_lid;
			probe_pi.master_sm_base_lid = want->master_sm_base_lid;
			probe_pi.subnet_prefix = want->subnet_prefix;
			st = ib_port_info_get_port_state(want);
			if (st != IB_LINK_NO_CHANGE)
				probe_pi.state_info1 = (uint8_t)((probe_pi.state_info1 & 0xF0) | st);
		}
		memset(smp->data, 0, sizeof(smp->data));
		memcpy(smp->data, &probe_pi, sizeof(probe_pi));
	} else {
		smp->status |= CL_HTON16(IB_MAD_STATUS_UNSUP_METHOD_ATTR);
	}
	/* At the end of its path: the SMI records the port and turns it back */
	smp->return_path[smp->hop_ptr] = 1;
	smp->method = IB_MAD_METHOD_GET_RESP;
	smp->status |= IB_SMP_DIRECTION;
	probe_send(IB_LID_PERMISSIVE, p_pkt->lrh.slid, 0, 0, 15, smp, sizeof(*smp));
}

/* The probe's PortInfoRecord, as the SA gives it: its PortState, or 0xFF
 * when the SA gave no record. */
static uint8_t probe_state_at_sa(uint64_t tid)
{
	ib_portinfo_record_t pq;
	uint8_t buf[512];
	size_t stride = 0;

	memset(&pq, 0, sizeof(pq));
	pq.lid = cl_hton16(soft_fabric_port_lid(probe));
	if (sa_query(IB_MAD_METHOD_GET, IB_MAD_ATTR_PORTINFO_RECORD, IB_PIR_COMPMASK_LID, &pq, sizeof(pq), tid,
		     buf, sizeof(buf), &stride) != 1)
		return 0xFF;
	return ib_port_info_get_port_state(&((ib_portinfo_record_t *)buf)->port_info);
}

/* --- Tests: SMA through local_mad ----------------------------------------- */

static void test_sma_attrs(void)
{
	uint8_t d[IB_SMP_DATA_SIZE];
	ib_node_info_t ni;
	ib_port_info_t pi;
	ib_sm_info_t smi;
	ib_smp_t in, out;

	up();
	/* NodeInfo */
	CU_ASSERT_EQUAL(local(1, IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, NULL, 0, d), 0);
	memcpy(&ni, d, sizeof(ni));
	CU_ASSERT_EQUAL(ni.node_type, IB_NODE_TYPE_CA);
	CU_ASSERT_EQUAL(ni.num_ports, 1);
	CU_ASSERT_EQUAL(ni.node_guid, guids[1]);
	CU_ASSERT_EQUAL(ni.port_guid, port_of(1)->guid);
	CU_ASSERT_EQUAL(ib_node_info_get_local_port_num(&ni), 1);
	CU_ASSERT_EQUAL(ni.partition_cap, CL_HTON16(1));
	/* NodeDescription */
	CU_ASSERT_EQUAL(local(1, IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_DESC, 0, NULL, 0, d), 0);
	CU_ASSERT_EQUAL(memcmp(d, "ibal-soft ", 10), 0);
	/* PortInfo: the SM made it ACTIVE, with the registry LID, its LID, fe80:: */
	get_pi(1, &pi);
	CU_ASSERT_EQUAL(ib_port_info_get_port_state(&pi), IB_LINK_ACTIVE);
	CU_ASSERT_EQUAL(cl_ntoh16(pi.base_lid), lid_of(1));
	CU_ASSERT_EQUAL(cl_ntoh16(pi.master_sm_base_lid), lid_of(0));
	CU_ASSERT_EQUAL(pi.subnet_prefix, IB_DEFAULT_SUBNET_PREFIX);
	CU_ASSERT_EQUAL(pi.local_port_num, 1);
	CU_ASSERT_EQUAL(ib_port_info_get_mtu_cap(&pi), IB_MTU_LEN_4096);
	/* The SM's port says IsSM; the other does not. */
	CU_ASSERT(!(pi.capability_mask & IB_PORT_CAP_IS_SM));
	get_pi(0, &pi);
	CU_ASSERT(pi.capability_mask & IB_PORT_CAP_IS_SM);
	/* GUIDInfo, P_KeyTable */
	CU_ASSERT_EQUAL(local(1, IB_MAD_METHOD_GET, IB_MAD_ATTR_GUID_INFO, 0, NULL, 0, d), 0);
	CU_ASSERT_EQUAL(((ib_guid_info_t *)d)->guid[0], port_of(1)->guid);
	CU_ASSERT_EQUAL(((ib_guid_info_t *)d)->guid[1], 0);
	CU_ASSERT_EQUAL(local(1, IB_MAD_METHOD_GET, IB_MAD_ATTR_GUID_INFO, 1, NULL, 0, d), 0x1C);
	CU_ASSERT_EQUAL(local(1, IB_MAD_METHOD_GET, IB_MAD_ATTR_P_KEY_TABLE, 0, NULL, 0, d), 0);
	CU_ASSERT_EQUAL(((ib_pkey_table_t *)d)->pkey_entry[0], CL_HTON16(0xFFFF));
	CU_ASSERT_EQUAL(local(1, IB_MAD_METHOD_GET, IB_MAD_ATTR_P_KEY_TABLE, 5, NULL, 0, d), 0x1C);
	/* SLtoVL and VLArbitration: stored */
	memset(d, 0, sizeof(d));
	d[0] = 0x01;
	d[7] = 0x10;
	CU_ASSERT_EQUAL(local(1, IB_MAD_METHOD_SET, IB_MAD_ATTR_SLVL_TABLE, 0, d, 8, NULL), 0);
	CU_ASSERT_EQUAL(local(1, IB_MAD_METHOD_GET, IB_MAD_ATTR_SLVL_TABLE, 0, NULL, 0, d), 0);
	CU_ASSERT(d[0] == 0x01 && d[7] == 0x10);
	memset(d, 0x22, sizeof(d));
	CU_ASSERT_EQUAL(local(1, IB_MAD_METHOD_SET, IB_MAD_ATTR_VL_ARBITRATION, 2u << 16, d, 64,
			      NULL), 0);
	memset(d, 0, sizeof(d));
	CU_ASSERT_EQUAL(local(1, IB_MAD_METHOD_GET, IB_MAD_ATTR_VL_ARBITRATION, 2u << 16, NULL, 0,
			      d), 0);
	CU_ASSERT_EQUAL(d[63], 0x22);
	CU_ASSERT_EQUAL(local(1, IB_MAD_METHOD_GET, IB_MAD_ATTR_VL_ARBITRATION, 3u << 16, NULL, 0,
			      d), 0x1C);
	/* SMInfo: the master's port only */
	CU_ASSERT_EQUAL(local(0, IB_MAD_METHOD_GET, IB_MAD_ATTR_SM_INFO, 0, NULL, 0, d), 0);
	memcpy(&smi, d, sizeof(smi));
	CU_ASSERT_EQUAL(smi.guid, port_of(0)->guid);
	CU_ASSERT_EQUAL(ib_sminfo_get_state(&smi), IB_SMINFO_STATE_MASTER);
	CU_ASSERT(cl_ntoh32(smi.act_count) >= 1);
	CU_ASSERT_EQUAL(local(1, IB_MAD_METHOD_GET, IB_MAD_ATTR_SM_INFO, 0, NULL, 0, d), 0x0C);
	/* Bad attribute, read-only attribute, bad method, bad class version */
	CU_ASSERT_EQUAL(local(1, IB_MAD_METHOD_GET, CL_HTON16(0x00FE), 0, NULL, 0, d), 0x0C);
	CU_ASSERT_EQUAL(local(1, IB_MAD_METHOD_SET, IB_MAD_ATTR_NODE_INFO, 0, NULL, 0, d), 0x0C);
	CU_ASSERT_EQUAL(local(1, IB_MAD_METHOD_SEND, IB_MAD_ATTR_NODE_INFO, 0, NULL, 0, d), 0x08);
	smp_init(&in, IB_MCLASS_SUBN_LID, IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0);
	in.class_ver = 2;
	CU_ASSERT_EQUAL(ops->local_mad(ca[1], 1, &in, &out), IB_SUCCESS);
	CU_ASSERT_EQUAL(out.status, IB_MAD_STATUS_UNSUP_CLASS_VER);
	/* Directed route, hop count 0: answered with the D bit */
	smp_init(&in, IB_MCLASS_SUBN_DIR, IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0);
	CU_ASSERT_EQUAL(ops->local_mad(ca[1], 1, &in, &out), IB_SUCCESS);
	CU_ASSERT(ib_smp_is_d(&out));
	CU_ASSERT_EQUAL(out.status & IB_SMP_STATUS_MASK, 0);
	/* local_mad arguments */
	CU_ASSERT_EQUAL(ops->local_mad(ca[1], 2, &in, &out), IB_INVALID_PORT);
	CU_ASSERT_EQUAL(ops->local_mad(ca[1], 0, &in, &out), IB_INVALID_PORT);
	CU_ASSERT_EQUAL(ops->local_mad(ca[1], 1, NULL, &out), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ops->local_mad(ca[1], 1, &in, NULL), IB_INVALID_PARAMETER);
	in.method = IB_MAD_METHOD_GET_RESP;
	CU_ASSERT_EQUAL(ops->local_mad(ca[1], 1, &in, &out), IB_UNSUPPORTED);
	in.method = IB_MAD_METHOD_GET;
	in.mgmt_class = IB_MCLASS_COMM_MGMT;
	CU_ASSERT_EQUAL(ops->local_mad(ca[1], 1, &in, &out), IB_UNSUPPORTED);
	down();
}

static void test_sma_portinfo_set(void)
{
	ib_port_info_t pi;
	ib_ca_attr_t *a;
	uint32_t size = 0;
	uint16_t new_lid;

	up();
	/* LMC, SM SL, subnet timeout: kept and reported by query_ca */
	pi_for_set(1, &pi);
	ib_port_info_set_lmc(&pi, 2);
	pi.mtu_smsl = (pi.mtu_smsl & 0xF0) | 5;
	pi.subnet_timeout = 12;
	CU_ASSERT_EQUAL(set_pi(1, &pi), 0);
	ops->query_ca(ca[1], NULL, &size);
	a = malloc(size);
	CU_ASSERT_EQUAL_FATAL(ops->query_ca(ca[1], a, &size), IB_SUCCESS);
	CU_ASSERT_EQUAL(a->p_port_attr[0].lmc, 2);
	CU_ASSERT_EQUAL(a->p_port_attr[0].sm_sl, 5);
	CU_ASSERT_EQUAL(a->p_port_attr[0].subnet_timeout, 12);
	CU_ASSERT_EQUAL(a->p_port_attr[0].sm_lid, cl_hton16(lid_of(0)));
	free(a);
	/* SM SL changed: the SM-change event */
	CU_ASSERT(rec_wait_events(&ca[1], IB_AE_SM_CHANGE, 1) >= 1);
	/* Invalid transitions: ACTIVE -> ARMED, -> INIT, bad LIDs; nothing changes */
	pi_for_set(1, &pi);
	pi.state_info1 |= IB_LINK_ARMED;
	CU_ASSERT_EQUAL(set_pi(1, &pi), 0x1C);
	pi_for_set(1, &pi);
	pi.state_info1 |= IB_LINK_INIT;
	CU_ASSERT_EQUAL(set_pi(1, &pi), 0x1C);
	pi_for_set(1, &pi);
	pi.base_lid = 0;
	CU_ASSERT_EQUAL(set_pi(1, &pi), 0x1C);
	pi.base_lid = CL_HTON16(0xC001);
	CU_ASSERT_EQUAL(set_pi(1, &pi), 0x1C);
	pi.base_lid = cl_hton16(lid_of(0)); /* held by another live port */
	CU_ASSERT_EQUAL(set_pi(1, &pi), 0x1C);
	CU_ASSERT_EQUAL(state_of(1), IB_LINK_ACTIVE);
	/* DOWN (one SMP, M_Key 0: accepted as the IBA says): the link goes
	 * down (PORT_DOWN) and retrains; its Trap 128 tells the SM, which brings
	 * the port up again (PORT_ACTIVE): one SMP cannot keep a port down. The
	 * INIT transitions themselves are checked in test_sm_off. */
	pi_for_set(1, &pi);
	pi.state_info1 |= IB_LINK_DOWN;
	CU_ASSERT_EQUAL(set_pi(1, &pi), 0);
	CU_ASSERT(rec_wait_events(&ca[1], IB_AE_PORT_DOWN, 1) >= 1);
	CU_ASSERT(rec_wait_events(&ca[1], IB_AE_PORT_ACTIVE, 1) >= 1);
	CU_ASSERT_EQUAL(state_of(1), IB_LINK_ACTIVE);
	/* A new LID moves the port; LID_CHANGE */
	new_lid = (uint16_t)(0x2000 + (getpid() & 0xFFF));
	pi_for_set(1, &pi);
	pi.base_lid = cl_hton16(new_lid);
	CU_ASSERT_EQUAL(set_pi(1, &pi), 0);
	CU_ASSERT_EQUAL(lid_of(1), new_lid);
	CU_ASSERT(rec_wait_events(&ca[1], IB_AE_LID_CHANGE, 1) >= 1);
	/* M_Key: protected Sets with another key are dropped and counted */
	pi_for_set(1, &pi);
	pi.m_key = CL_HTON64(0x77);
	ib_port_info_set_mpb(&pi, 1);
	CU_ASSERT_EQUAL(set_pi(1, &pi), 0);
	pi_for_set(1, &pi); /* Get with protect bits 1 still answers */
	CU_ASSERT_EQUAL(pi.m_key, CL_HTON64(0x77));
	CU_ASSERT_EQUAL(set_pi(1, &pi), 0xFFFF); /* no M_Key in the SMP: dropped */
	get_pi(1, &pi);
	CU_ASSERT_EQUAL(cl_ntoh16(pi.m_key_violations), 1);
	{
		ib_smp_t in, out;

		smp_init(&in, IB_MCLASS_SUBN_LID, IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 0);
		in.m_key = CL_HTON64(0x77);
		pi.m_key = 0;
		ib_port_info_set_mpb(&pi, 0);
		pi.state_info1 &= 0xF0;
		memcpy(in.data, &pi, sizeof(pi));
		CU_ASSERT_EQUAL(ops->local_mad(ca[1], 1, &in, &out), IB_SUCCESS);
		CU_ASSERT_EQUAL(out.status, 0);
	}
	down();
}

/* --- Tests: the agents on the wire ----------------------------------------- */

static void test_smp_wire(void)
{
	ib_smp_t smp, r;
	soft_pkt_t pkt;
	ib_node_info_t ni;
	uint16_t target;

	up();
	probe_open();
	target = lid_of(1);
	/* LID-routed Get NodeInfo: answered to the probe's QP0, on VL15 */
	smp_init(&smp, IB_MCLASS_SUBN_LID, IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0);
	smp.trans_id = CL_HTON64(101);
	probe_send(target, 0, 0, 0, 15, &smp, 256);
	CU_ASSERT_FATAL(probe_resp(101, 5000, &r, &pkt));
	CU_ASSERT_EQUAL(pkt.lrh.vl, 15);
	CU_ASSERT_EQUAL(pkt.lrh.slid, target);
	CU_ASSERT_EQUAL(pkt.deth.src_qp, 0);
	CU_ASSERT_EQUAL(r.method, IB_MAD_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(r.status, 0);
	memcpy(&ni, r.data, sizeof(ni));
	CU_ASSERT_EQUAL(ni.port_guid, port_of(1)->guid);
	/* Directed route, one hop: D bit, hop pointer back, return path */
	smp_init(&smp, IB_MCLASS_SUBN_DIR, IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_INFO, 0);
	smp.trans_id = CL_HTON64(102);
	smp.hop_count = 1;
	smp.hop_ptr = 1;
	smp.initial_path[1] = 1;
	probe_send(0xFFFF, target, 0, 0, 15, &smp, 256);
	CU_ASSERT_FATAL(probe_resp(102, 5000, &r, &pkt));
	CU_ASSERT_EQUAL(pkt.lrh.dlid, 0xFFFF);
	CU_ASSERT(ib_smp_is_d(&r));
	CU_ASSERT_EQUAL(r.status & IB_SMP_STATUS_MASK, 0);
	CU_ASSERT_EQUAL(r.hop_ptr, 1);
	CU_ASSERT_EQUAL(r.return_path[1], 1);
	CU_ASSERT_EQUAL(cl_ntoh16(((ib_port_info_t *)r.data)->base_lid), target);
	/* Malformed or misrouted SMPs: dropped without a word */
	smp.trans_id = CL_HTON64(103);
	smp.hop_count = 2; /* a CA forwards nothing */
	probe_send(0xFFFF, target, 0, 0, 15, &smp, 256);
	smp.trans_id = CL_HTON64(104);
	smp.hop_count = 1;
	smp.dr_dlid = CL_HTON16(5); /* LID-routed part at the end: not modelled */
	probe_send(0xFFFF, target, 0, 0, 15, &smp, 256);
	smp_init(&smp, IB_MCLASS_SUBN_LID, IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0);
	smp.trans_id = CL_HTON64(105);
	probe_send(target, 0, 0, 0, 0, &smp, 256); /* not VL15 */
	smp.trans_id = CL_HTON64(106);
	probe_send(target, 0, 0, 0, 15, &smp, 100); /* truncated */
	smp.trans_id = CL_HTON64(107);
	smp.base_ver = 2;
	probe_send(target, 0, 0, 0, 15, &smp, 256);
	smp.base_ver = 1;
	smp.mgmt_class = IB_MCLASS_PERF; /* not an SMP class on QP0 */
	smp.trans_id = CL_HTON64(108);
	probe_send(target, 0, 0, 0, 15, &smp, 256);
	/* Bad class version: answered with the status */
	smp_init(&smp, IB_MCLASS_SUBN_LID, IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0);
	smp.trans_id = CL_HTON64(109);
	smp.class_ver = 9;
	probe_send(target, 0, 0, 0, 15, &smp, 256);
	CU_ASSERT_FATAL(probe_recv(5000, &r, &pkt));
	CU_ASSERT_EQUAL(r.trans_id, CL_HTON64(109)); /* 103..108 never answered */
	CU_ASSERT_EQUAL(r.status, IB_MAD_STATUS_UNSUP_CLASS_VER);
	/* SMPs are answered in INIT too; data would not be */
	{
		ibal_soft_port_ctl_t c = { 1, IB_LINK_INIT, 0 };
		ib_ci_op_t op;

		memset(&op, 0, sizeof(op));
		op.command = IBAL_SOFT_CI_PORT_STATE;
		op.p_buf = &c;
		op.buf_size = sizeof(c);
		CU_ASSERT_EQUAL(ops->ci_call(ca[1], NULL, 0, &op), IB_SUCCESS);
		smp_init(&smp, IB_MCLASS_SUBN_LID, IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_INFO, 0);
		smp.trans_id = CL_HTON64(110);
		probe_send(target, 0, 0, 0, 15, &smp, 256);
		CU_ASSERT_FATAL(probe_resp(110, 5000, &r, &pkt));
		CU_ASSERT_EQUAL(ib_port_info_get_port_state((ib_port_info_t *)r.data), IB_LINK_INIT);
	}
	soft_fabric_port_close(probe);
	down();
}

static void perf_init(ib_perfmgt_mad_t *m, uint8_t method, ib_net16_t attr, uint64_t tid)
{
	memset(m, 0, sizeof(*m));
	m->header.base_ver = 1;
	m->header.mgmt_class = IB_MCLASS_PERF;
	m->header.class_ver = 1;
	m->header.method = method;
	m->header.trans_id = cl_hton64(tid);
	m->header.attr_id = attr;
}

static void test_gmp_wire(void)
{
	ib_perfmgt_mad_t m, r;
	ib_port_counters_t pc;
	ib_mad_t g;
	soft_pkt_t pkt;
	ib_port_info_t pi;
	uint16_t target;
	uint32_t pkts0;

	up();
	probe_open();
	target = lid_of(1);
	/* PerfMgt ClassPortInfo and PortCounters through QP1 */
	perf_init(&m, IB_MAD_METHOD_GET, IB_MAD_ATTR_CLASS_PORT_INFO, 201);
	probe_send(target, 0, 1, SOFT_QP1_QKEY, 0, &m, 256);
	CU_ASSERT_FATAL(probe_resp(201, 5000, &r, &pkt));
	CU_ASSERT_EQUAL(pkt.deth.src_qp, 1);
	CU_ASSERT_EQUAL(pkt.deth.qkey, SOFT_QP1_QKEY);
	CU_ASSERT_EQUAL(r.header.status, 0);
	CU_ASSERT_EQUAL(((ib_class_port_info_t *)r.data)->class_ver, 1);
	perf_init(&m, IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_CNTRS, 202);
	m.data[1] = 1;
	probe_send(target, 0, 1, SOFT_QP1_QKEY, 0, &m, 256);
	CU_ASSERT_FATAL(probe_resp(202, 5000, &r, &pkt));
	memcpy(&pc, r.data, sizeof(pc));
	CU_ASSERT(cl_ntoh32(pc.port_rcv_pkts) >= 2);
	CU_ASSERT(cl_ntoh32(pc.port_xmit_pkts) >= 1);
	pkts0 = cl_ntoh32(pc.port_rcv_pkts);
	/* Wrong Q_Key: dropped, counted in PortInfo:Q_KeyViolations */
	perf_init(&m, IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_CNTRS, 203);
	probe_send(target, 0, 1, 0x1234, 0, &m, 256);
	/* A class nobody serves on a port without QP1: unsupported class */
	memset(&g, 0, sizeof(g));
	g.base_ver = 1;
	g.mgmt_class = IB_MCLASS_DEV_MGMT;
	g.class_ver = 1;
	g.method = IB_MAD_METHOD_GET;
	g.trans_id = CL_HTON64(204);
	{
		uint8_t mad[256];

		memset(mad, 0, sizeof(mad));
		memcpy(mad, &g, sizeof(g));
		probe_send(target, 0, 1, SOFT_QP1_QKEY, 0, mad, 256);
		CU_ASSERT_FATAL(probe_recv(5000, mad, &pkt));
		CU_ASSERT_EQUAL(((ib_mad_t *)mad)->trans_id, CL_HTON64(204)); /* 203 dropped */
		CU_ASSERT_EQUAL(((ib_mad_t *)mad)->method, IB_MAD_METHOD_GET_RESP);
		CU_ASSERT_EQUAL(((ib_mad_t *)mad)->status, IB_MAD_STATUS_UNSUP_CLASS_VER);
		/* A response is not answered */
		((ib_mad_t *)mad)->trans_id = CL_HTON64(205);
		probe_send(target, 0, 1, SOFT_QP1_QKEY, 0, mad, 256);
	}
	get_pi(1, &pi);
	CU_ASSERT_EQUAL(cl_ntoh16(pi.q_key_violations), 1);
	/* SA class: to the master SM's port, the SA answers; to another port
	 * without QP1, the provider says the class is not supported */
	{
		uint8_t mad[256];
		ib_mad_t *h = (ib_mad_t *)mad;

		memset(mad, 0, sizeof(mad));
		h->base_ver = 1;
		h->mgmt_class = IB_MCLASS_SUBN_ADM;
		h->class_ver = 2;
		h->method = IB_MAD_METHOD_GET;
		h->attr_id = IB_MAD_ATTR_CLASS_PORT_INFO;
		h->trans_id = CL_HTON64(211);
		probe_send(lid_of(0), 0, 1, SOFT_QP1_QKEY, 0, mad, 256);
		CU_ASSERT_FATAL(probe_resp(211, 5000, mad, &pkt));
		CU_ASSERT_EQUAL(pkt.lrh.slid, lid_of(0));
		CU_ASSERT_EQUAL(pkt.deth.src_qp, 1);
		CU_ASSERT_EQUAL(h->mgmt_class, IB_MCLASS_SUBN_ADM);
		CU_ASSERT_EQUAL(h->method, IB_MAD_METHOD_GET_RESP);
		CU_ASSERT_NOT_EQUAL(h->status, IB_MAD_STATUS_UNSUP_CLASS_VER);
		memset(mad, 0, sizeof(mad));
		h->base_ver = 1;
		h->mgmt_class = IB_MCLASS_SUBN_ADM;
		h->class_ver = 2;
		h->method = IB_MAD_METHOD_GET;
		h->attr_id = IB_MAD_ATTR_CLASS_PORT_INFO;
		h->trans_id = CL_HTON64(212);
		probe_send(target, 0, 1, SOFT_QP1_QKEY, 0, mad, 256);
		CU_ASSERT_FATAL(probe_resp(212, 5000, mad, &pkt));
		CU_ASSERT_EQUAL(h->status, IB_MAD_STATUS_UNSUP_CLASS_VER);
	}
	/* Counters grew with that traffic; a Set clears what it selects */
	perf_init(&m, IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_CNTRS, 206);
	probe_send(target, 0, 1, SOFT_QP1_QKEY, 0, &m, 256);
	CU_ASSERT_FATAL(probe_resp(206, 5000, &r, &pkt)); /* 205 got no answer */
	memcpy(&pc, r.data, sizeof(pc));
	CU_ASSERT(cl_ntoh32(pc.port_rcv_pkts) >= pkts0 + 4);
	CU_ASSERT(cl_ntoh32(pc.port_rcv_data) > 0);
	perf_init(&m, IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_CNTRS, 207);
	*(ib_net16_t *)(m.data + 2) = CL_HTON16(0xF000); /* data and packets */
	probe_send(target, 0, 1, SOFT_QP1_QKEY, 0, &m, 256);
	CU_ASSERT_FATAL(probe_resp(207, 5000, &r, &pkt));
	memcpy(&pc, r.data, sizeof(pc));
	CU_ASSERT_EQUAL(pc.port_rcv_pkts, 0);
	CU_ASSERT_EQUAL(pc.port_xmit_pkts, 0);
	CU_ASSERT_EQUAL(pc.port_xmit_data, 0);
	/* Bad attribute, bad method, bad port select */
	perf_init(&m, IB_MAD_METHOD_GET, CL_HTON16(0x0077), 208);
	probe_send(target, 0, 1, SOFT_QP1_QKEY, 0, &m, 256);
	CU_ASSERT_FATAL(probe_resp(208, 5000, &r, &pkt));
	CU_ASSERT_EQUAL(r.header.status, IB_MAD_STATUS_UNSUP_METHOD_ATTR);
	perf_init(&m, IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_CNTRS, 209);
	m.data[1] = 7;
	probe_send(target, 0, 1, SOFT_QP1_QKEY, 0, &m, 256);
	CU_ASSERT_FATAL(probe_resp(209, 5000, &r, &pkt));
	CU_ASSERT_EQUAL(r.header.status, IB_MAD_STATUS_INVALID_FIELD);
	perf_init(&m, IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_PORT_CNTRS, 210);
	probe_send(target, 0, 1, SOFT_QP1_QKEY, 0, &m, 256);
	CU_ASSERT_FATAL(probe_resp(210, 5000, &r, &pkt));
	CU_ASSERT_EQUAL(r.header.status, IB_MAD_STATUS_UNSUP_METHOD);
	soft_fabric_port_close(probe);
	down();
}

static void test_pma_local(void)
{
	ib_perfmgt_mad_t m, r;
	ib_port_counters_ext_t pce;
	ib_port_counters_t pc;

	up();
	perf_init(&m, IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_CNTRS_EXT, 1);
	CU_ASSERT_EQUAL(ops->local_mad(ca[0], 1, &m, &r), IB_SUCCESS);
	CU_ASSERT_EQUAL(r.header.status, 0);
	memcpy(&pce, r.data, sizeof(pce));
	/* The SM's port sent SMPs to bring CA 1 up */
	CU_ASSERT(cl_ntoh64(pce.xmit_pkts) >= 1);
	CU_ASSERT(cl_ntoh64(pce.xmit_data) >= 1);
	perf_init(&m, IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_CNTRS, 2);
	*(ib_net16_t *)(m.data + 2) = CL_HTON16(0xFFFF);
	CU_ASSERT_EQUAL(ops->local_mad(ca[0], 1, &m, &r), IB_SUCCESS);
	memcpy(&pc, r.data, sizeof(pc));
	CU_ASSERT_EQUAL(pc.port_xmit_pkts, 0);
	m.header.class_ver = 2;
	CU_ASSERT_EQUAL(ops->local_mad(ca[0], 1, &m, &r), IB_SUCCESS);
	CU_ASSERT_EQUAL(r.header.status, IB_MAD_STATUS_UNSUP_CLASS_VER);
	down();
}

/* --- Tests: the subnet manager --------------------------------------------- */

static void test_sm_brings_ports_up(void)
{
	up();
	CU_ASSERT_EQUAL(state_of(0), IB_LINK_ACTIVE);
	CU_ASSERT_EQUAL(state_of(1), IB_LINK_ACTIVE);
	CU_ASSERT(soft_sm_is_master(ca[0]));
	CU_ASSERT(soft_sm_sweep_now(ca[0], 10000));
	CU_ASSERT_EQUAL(soft_sm_known_ports(ca[0]), 2);
	CU_ASSERT_EQUAL(sm_lid_of(1), lid_of(0));
	/* Bring-up during the open raised no events (the core reads the state) */
	CU_ASSERT_EQUAL(rec_events(&ca[1], IB_AE_PORT_ACTIVE), 0);
	down();
}

static void test_sm_off(void)
{
	ibal_soft_port_ctl_t c = { 1, IB_LINK_ACTIVE, 0 };
	ib_ci_op_t op;

	fab_begin();
	setenv(SOFT_ENV_SM, "off", 1);
	open_cas(2);
	CU_ASSERT_EQUAL(state_of(0), IB_LINK_INIT);
	CU_ASSERT_EQUAL(state_of(1), IB_LINK_INIT);
	CU_ASSERT(!soft_sm_is_master(ca[0]));
	CU_ASSERT_EQUAL(sm_lid_of(1), 0);
	memset(&op, 0, sizeof(op));
	op.command = IBAL_SOFT_CI_PORT_STATE;
	op.p_buf = &c;
	op.buf_size = sizeof(c);
	CU_ASSERT_EQUAL(ops->ci_call(ca[1], NULL, 0, &op), IB_SUCCESS);
	CU_ASSERT_EQUAL(state_of(1), IB_LINK_ACTIVE);
	CU_ASSERT(rec_wait_events(&ca[1], IB_AE_PORT_ACTIVE, 1) >= 1);
	/* An external SM can do it with SMPs (here: local_mad): INIT -> ACTIVE
	 * is refused, INIT -> ARMED -> ACTIVE works; DOWN retrains to INIT (no
	 * SM here to bring it up again). */
	{
		ib_port_info_t pi;

		pi_for_set(0, &pi);
		pi.state_info1 |= IB_LINK_ACTIVE;
		CU_ASSERT_EQUAL(set_pi(0, &pi), 0x1C);
		pi_for_set(0, &pi);
		pi.state_info1 |= IB_LINK_ARMED;
		pi.master_sm_base_lid = cl_hton16(lid_of(1));
		CU_ASSERT_EQUAL(set_pi(0, &pi), 0);
		CU_ASSERT_EQUAL(state_of(0), IB_LINK_ARMED);
		pi_for_set(0, &pi);
		pi.state_info1 |= IB_LINK_ACTIVE;
		CU_ASSERT_EQUAL(set_pi(0, &pi), 0);
		CU_ASSERT_EQUAL(state_of(0), IB_LINK_ACTIVE);
		CU_ASSERT(rec_wait_events(&ca[0], IB_AE_PORT_ACTIVE, 1) >= 1);
		pi_for_set(0, &pi);
		pi.state_info1 |= IB_LINK_DOWN;
		CU_ASSERT_EQUAL(set_pi(0, &pi), 0);
		CU_ASSERT_EQUAL(state_of(0), IB_LINK_INIT);
		CU_ASSERT(rec_wait_events(&ca[0], IB_AE_PORT_DOWN, 1) >= 1);
	}
	close_cas(2);
	unsetenv(SOFT_ENV_SM);
	fab_end();
}

/* IBAL_SOFT_SM is read when a directory gets its first CA of the process:
 * later CAs there keep that choice; once the directory has no CA, and in
 * another directory, the setting is read again. */
static void test_sm_settings_per_dir(void)
{
	char dir2[64];
	size_t n = 2;

	fab_begin();
	setenv(SOFT_ENV_SM, "off", 1);
	CU_ASSERT_EQUAL_FATAL(ops->init(&rec_upcalls), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ops->get_ca_guids(guids, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ops->open_ca(guids[0], &ca[0], &ca[0]), IB_SUCCESS);
	CU_ASSERT_EQUAL(state_of(0), IB_LINK_INIT);
	unsetenv(SOFT_ENV_SM);
	CU_ASSERT_EQUAL_FATAL(ops->open_ca(guids[1], &ca[1], &ca[1]), IB_SUCCESS);
	CU_ASSERT_EQUAL(state_of(1), IB_LINK_INIT); /* the directory's choice holds */
	CU_ASSERT(!soft_sm_is_master(ca[1]));
	CU_ASSERT(!soft_sm_wait_master(ca[1], 50));
	ops->close_ca(ca[0]);
	ops->close_ca(ca[1]);
	/* The directory has no CA left: the next one reads the setting (on) */
	CU_ASSERT_EQUAL_FATAL(ops->open_ca(guids[0], &ca[0], &ca[0]), IB_SUCCESS);
	CU_ASSERT_EQUAL(state_of(0), IB_LINK_ACTIVE);
	CU_ASSERT(soft_sm_wait_master(ca[0], 10000));
	/* Another directory opened now reads it too (off there) */
	strcpy(dir2, "/tmp/ibal-softsm2-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir2));
	setenv(SOFT_FABRIC_ENV_DIR, dir2, 1);
	setenv(SOFT_ENV_SM, "off", 1);
	CU_ASSERT_EQUAL_FATAL(ops->open_ca(guids[1], &ca[1], &ca[1]), IB_SUCCESS);
	CU_ASSERT_EQUAL(state_of(1), IB_LINK_INIT);
	CU_ASSERT(!soft_sm_is_master(ca[1]));
	CU_ASSERT(soft_sm_is_master(ca[0]));
	CU_ASSERT_EQUAL(state_of(0), IB_LINK_ACTIVE);
	unsetenv(SOFT_ENV_SM);
	close_cas(2);
	test_rm_tree(dir2);
	fab_end();
}

/* Child side of the multi-process tests: (after a first byte if @p wait_go)
 * opens CA 0, reports whether it is master ('M') or standby ('S') with its
 * port up ('E' on error), then waits for a byte before exiting. Children
 * are forked before the parent has threads (ThreadSanitizer needs that). */
static int child_main(int wfd, int rfd, int want_master, int wait_go)
{
	size_t n = 2;
	char c;
	int rc = 0;

	if (wait_go && read(rfd, &c, 1) != 1)
		return 9;
	if (ops->init(&rec_upcalls) != IB_SUCCESS || ops->get_ca_guids(guids, &n) != IB_SUCCESS ||
	    ops->open_ca(guids[0], &ca[0], &ca[0]) != IB_SUCCESS)
		return 10;
	if (state_of(0) != IB_LINK_ACTIVE)
		rc = 11;
	if (want_master && !soft_sm_wait_master(ca[0], 10000))
		rc = 12;
	c = rc ? 'E' : soft_sm_is_master(ca[0]) ? 'M' : 'S';
	if (write(wfd, &c, 1) != 1)
		rc = 13;
	if (read(rfd, &c, 1) != 1)
		rc = rc ? rc : 0;
	ops->close_ca(ca[0]);
	ops->cleanup();
	return rc;
}

static pid_t spawn(int *p_w, int *p_r, int want_master, int wait_go)
{
	int up_p[2], down_p[2];
	pid_t pid;

	CU_ASSERT_FATAL(pipe(up_p) == 0 && pipe(down_p) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		close(up_p[0]);
		close(down_p[1]);
		_exit(child_main(up_p[1], down_p[0], want_master, wait_go));
	}
	close(up_p[1]);
	close(down_p[0]);
	*p_w = down_p[1];
	*p_r = up_p[0];
	return pid;
}

static char read_byte(int fd)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	char c = 0;

	if (poll(&pfd, 1, (int)(TEST_WAIT_US / 1000u)) == 1 && read(fd, &c, 1) != 1)
		c = 0;
	return c;
}

static int child_done(pid_t pid, int wfd, int rfd)
{
	int status = -1;

	if (write(wfd, "x", 1) != 1)
		return -1;
	close(wfd);
	close(rfd);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_sm_election_takeover(void)
{
	int w, r;
	pid_t pid;
	ib_sm_info_t smi;
	uint8_t d[IB_SMP_DATA_SIZE];
	size_t n = 2;

	fab_begin();
	/* The child opens first: it is master */
	pid = spawn(&w, &r, 1, 0);
	CU_ASSERT_EQUAL(read_byte(r), 'M');
	/* Ours is brought up by the child's SM; we stand by */
	CU_ASSERT_EQUAL_FATAL(ops->init(&rec_upcalls), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ops->get_ca_guids(guids, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ops->open_ca(guids[0], &ca[0], &ca[0]), IB_SUCCESS);
	CU_ASSERT_EQUAL(state_of(0), IB_LINK_ACTIVE);
	CU_ASSERT(!soft_sm_is_master(ca[0]));
	CU_ASSERT_NOT_EQUAL(sm_lid_of(0), 0);
	CU_ASSERT_NOT_EQUAL(sm_lid_of(0), lid_of(0));
	CU_ASSERT_EQUAL(local(0, IB_MAD_METHOD_GET, IB_MAD_ATTR_SM_INFO, 0, NULL, 0, d), 0);
	memcpy(&smi, d, sizeof(smi));
	CU_ASSERT_EQUAL(ib_sminfo_get_state(&smi), IB_SMINFO_STATE_STANDBY);
	/* The master's process exits: we take over, and bring up a new port */
	CU_ASSERT_EQUAL(child_done(pid, w, r), 0);
	CU_ASSERT(soft_sm_wait_master(ca[0], 10000));
	CU_ASSERT(soft_sm_sweep_now(ca[0], 10000)); /* the full sweep of a new master */
	CU_ASSERT_EQUAL(local(0, IB_MAD_METHOD_GET, IB_MAD_ATTR_SM_INFO, 0, NULL, 0, d), 0);
	memcpy(&smi, d, sizeof(smi));
	CU_ASSERT_EQUAL(ib_sminfo_get_state(&smi), IB_SMINFO_STATE_MASTER);
	CU_ASSERT_EQUAL(sm_lid_of(0), lid_of(0));
	CU_ASSERT_EQUAL_FATAL(ops->open_ca(guids[1], &ca[1], &ca[1]), IB_SUCCESS);
	CU_ASSERT_EQUAL(state_of(1), IB_LINK_ACTIVE);
	CU_ASSERT_EQUAL(sm_lid_of(1), lid_of(0));
	down();
}

static void test_sm_join_leave(void)
{
	int w, r;
	pid_t pid;

	fab_begin();
	pid = spawn(&w, &r, 0, 1);
	open_cas(2);
	CU_ASSERT(soft_sm_sweep_now(ca[0], 10000));
	CU_ASSERT_EQUAL(soft_sm_known_ports(ca[0]), 2);
	/* A process joins: its port comes up (it says so) and the SM knows it */
	CU_ASSERT_EQUAL_FATAL(write(w, "g", 1), 1);
	CU_ASSERT_EQUAL(read_byte(r), 'S');
	CU_ASSERT(soft_sm_sweep_now(ca[0], 10000));
	CU_ASSERT_EQUAL(soft_sm_known_ports(ca[0]), 3);
	/* It leaves (exits): the next sweep forgets its port */
	CU_ASSERT_EQUAL(child_done(pid, w, r), 0);
	CU_ASSERT(soft_sm_sweep_now(ca[0], 10000));
	CU_ASSERT_EQUAL(soft_sm_known_ports(ca[0]), 2);
	/* Closing the CA of the SM's port moves the SM to the next port: the
	 * remaining port learns the new SM LID */
	ops->close_ca(ca[0]);
	CU_ASSERT(soft_sm_sweep_now(ca[1], 10000));
	CU_ASSERT_EQUAL(sm_lid_of(1), lid_of(1));
	CU_ASSERT(rec_wait_events(&ca[1], IB_AE_SM_CHANGE, 1) >= 1);
	ops->close_ca(ca[1]);
	ops->cleanup();
	fab_end();
}

/* The SA sees the virtual switch every CA port is cabled to: LinkRecords
 * both ways, the switch's NodeRecord and PortInfoRecords under a LID no
 * registry port holds; paths between the CAs are unchanged. Three CAs: two
 * here, one in a child process. */
static void test_sm_switch_links(void)
{
	static uint8_t buf[8192];
	ib_link_record_t *lr;
	ib_node_record_t *nr;
	ib_portinfo_record_t pq, *pr;
	ib_path_rec_t q;
	uint16_t sw = 0, lids[2];
	uint8_t to_ports = 0;
	ib_net64_t sw_guid = 0;
	size_t stride;
	int w, r, n, i, j, nsw = 0;
	pid_t pid;

	fab_begin();
	pid = spawn(&w, &r, 0, 1);
	open_cas(2);
	probe_open();
	CU_ASSERT_EQUAL_FATAL(write(w, "g", 1), 1);
	CU_ASSERT_EQUAL(read_byte(r), 'S');
	CU_ASSERT(soft_sm_sweep_now(ca[0], 10000));
	lids[0] = lid_of(0);
	lids[1] = lid_of(1);
	/* Every LinkRecord: CA port 1 -> switch and back, for three CAs */
	n = sa_query(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_LINK_RECORD, 0, NULL, 0, 301, buf, sizeof(buf), &stride);
	CU_ASSERT_EQUAL(n, 6);
	CU_ASSERT_EQUAL(stride, 8);
	for (i = 0; i < n && i < 6; i++) {
		lr = (ib_link_record_t *)(buf + (size_t)i * stride);
		if (lr->from_lid == cl_hton16(lids[0]))
			sw = cl_ntoh16(lr->to_lid);
	}
	CU_ASSERT_NOT_EQUAL_FATAL(sw, 0);
	CU_ASSERT_NOT_EQUAL(sw, lids[0]);
	CU_ASSERT_NOT_EQUAL(sw, lids[1]);
	CU_ASSERT_NOT_EQUAL(sw, soft_fabric_port_lid(probe));
	for (i = 0; i < n && i < 6; i++) {
		lr = (ib_link_record_t *)(buf + (size_t)i * stride);
		if (lr->to_lid == cl_hton16(sw)) {
			/* a CA port 1 to a switch port; the reverse record exists */
			CU_ASSERT_EQUAL(lr->from_port_num, 1);
			CU_ASSERT(lr->to_port_num >= 1 && lr->to_port_num <= 3);
			to_ports |= (uint8_t)(1u << lr->to_port_num);
			for (j = 0; j < n && j < 6; j++) {
				ib_link_record_t *b = (ib_link_record_t *)(buf + (size_t)j * stride);

				if (b->from_lid == cl_hton16(sw) && b->from_port_num == lr->to_port_num)
					break;
			}
			CU_ASSERT(j < n);
			if (j < n) {
				ib_link_record_t *b = (ib_link_record_t *)(buf + (size_t)j * stride);

				CU_ASSERT_EQUAL(b->to_lid, lr->from_lid);
				CU_ASSERT_EQUAL(b->to_port_num, 1);
			}
		} else {
			CU_ASSERT_EQUAL(lr->from_lid, cl_hton16(sw));
		}
	}
	CU_ASSERT_EQUAL(to_ports, 0x0E); /* switch ports 1, 2 and 3 */
	/* A Get by FromLID and FromPort: CA 1's link */
	{
		ib_link_record_t lq;

		memset(&lq, 0, sizeof(lq));
		lq.from_lid = cl_hton16(lids[1]);
		lq.from_port_num = 1;
		n = sa_query(IB_MAD_METHOD_GET, IB_MAD_ATTR_LINK_RECORD,
			     IB_LR_COMPMASK_FROM_LID | IB_LR_COMPMASK_FROM_PORT, &lq, sizeof(lq), 302, buf,
			     sizeof(buf), &stride);
		CU_ASSERT_EQUAL(n, 1);
		CU_ASSERT_EQUAL(((ib_link_record_t *)buf)->to_lid, cl_hton16(sw));
	}
	/* NodeRecords: three CAs and the switch, under its LID */
	n = sa_query(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0, 303, buf, sizeof(buf), &stride);
	CU_ASSERT_EQUAL(n, 4);
	for (i = 0; i < n; i++) {
		nr = (ib_node_record_t *)(buf + (size_t)i * stride);
		if (nr->node_info.node_type != IB_NODE_TYPE_SWITCH)
			continue;
		nsw++;
		sw_guid = nr->node_info.node_guid;
		CU_ASSERT_EQUAL(nr->lid, cl_hton16(sw));
		CU_ASSERT_EQUAL(nr->node_info.num_ports, 3);
		CU_ASSERT_EQUAL(nr->node_info.port_guid, sw_guid);
		CU_ASSERT_EQUAL(cl_ntoh64(sw_guid) >> 40, 0x02BA1Aull);
		CU_ASSERT((cl_ntoh64(sw_guid) & (1ull << 39)) != 0); /* never a CA's */
	}
	CU_ASSERT_EQUAL(nsw, 1);
	/* PortInfoRecords: switch port 0 holds the LID, ports 1..3 are up */
	memset(&pq, 0, sizeof(pq));
	pq.lid = cl_hton16(sw);
	n = sa_query(IB_MAD_METHOD_GET, IB_MAD_ATTR_PORTINFO_RECORD,
		     IB_PIR_COMPMASK_LID | IB_PIR_COMPMASK_PORTNUM, &pq, sizeof(pq), 304, buf, sizeof(buf), &stride);
	CU_ASSERT_EQUAL(n, 1);
	pr = (ib_portinfo_record_t *)buf;
	CU_ASSERT_EQUAL(pr->port_num, 0);
	CU_ASSERT_EQUAL(pr->port_info.base_lid, cl_hton16(sw));
	CU_ASSERT_EQUAL(pr->port_info.master_sm_base_lid, cl_hton16(lids[0]));
	CU_ASSERT_EQUAL(ib_port_info_get_port_state(&pr->port_info), IB_LINK_ACTIVE);
	n = sa_query(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_PORTINFO_RECORD, IB_PIR_COMPMASK_LID, &pq, sizeof(pq),
		     305, buf, sizeof(buf), &stride);
	CU_ASSERT_EQUAL(n, 4);
	for (i = 0; i < n; i++) {
		pr = (ib_portinfo_record_t *)(buf + (size_t)i * stride);
		CU_ASSERT_EQUAL(ib_port_info_get_port_state(&pr->port_info), IB_LINK_ACTIVE);
	}
	/* Paths from CA 0: to each CA (itself included), none to the switch */
	memset(&q, 0, sizeof(q));
	q.sgid.unicast.prefix = IB_DEFAULT_SUBNET_PREFIX;
	q.sgid.unicast.interface_id = port_of(0)->guid;
	n = sa_query(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_PATH_RECORD, IB_PR_COMPMASK_SGID, &q, sizeof(q), 306, buf,
		     sizeof(buf), &stride);
	CU_ASSERT_EQUAL(n, 3);
	for (i = 0; i < n; i++)
		CU_ASSERT_NOT_EQUAL(((ib_path_rec_t *)(buf + (size_t)i * stride))->dlid, cl_hton16(sw));
	/* The child leaves: its link goes, the switch shrinks to two ports */
	CU_ASSERT_EQUAL(child_done(pid, w, r), 0);
	CU_ASSERT(soft_sm_sweep_now(ca[0], 10000));
	n = sa_query(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_LINK_RECORD, 0, NULL, 0, 307, buf, sizeof(buf), &stride);
	CU_ASSERT_EQUAL(n, 4);
	memset(&pq, 0, sizeof(pq));
	pq.lid = cl_hton16(sw);
	n = sa_query(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_PORTINFO_RECORD, IB_PIR_COMPMASK_LID, &pq, sizeof(pq),
		     308, buf, sizeof(buf), &stride);
	CU_ASSERT_EQUAL(n, 3);
	/* The SM moves to CA 1's port: a new SA there knows the same switch */
	soft_fabric_port_close(probe);
	ops->close_ca(ca[0]);
	CU_ASSERT(soft_sm_sweep_now(ca[1], 10000));
	ca[0] = ca[1];
	probe_open();
	{
		ib_node_record_t nq;

		memset(&nq, 0, sizeof(nq));
		nq.node_info.node_type = IB_NODE_TYPE_SWITCH;
		n = sa_query(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_RECORD, IB_NR_COMPMASK_NODETYPE, &nq,
			     sizeof(nq), 309, buf, sizeof(buf), &stride);
	}
	CU_ASSERT_EQUAL(n, 1);
	nr = (ib_node_record_t *)buf;
	CU_ASSERT_EQUAL(nr->node_info.node_guid, sw_guid);
	CU_ASSERT_EQUAL(nr->lid, cl_hton16(sw));
	/* CA 1 keeps switch port 2 (cables do not move); port 1 is down */
	CU_ASSERT_EQUAL(nr->node_info.num_ports, 2);
	n = sa_query(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_LINK_RECORD, 0, NULL, 0, 310, buf, sizeof(buf), &stride);
	CU_ASSERT_EQUAL(n, 2);
	memset(&pq, 0, sizeof(pq));
	pq.lid = cl_hton16(sw);
	pq.port_num = 1;
	n = sa_query(IB_MAD_METHOD_GET, IB_MAD_ATTR_PORTINFO_RECORD,
		     IB_PIR_COMPMASK_LID | IB_PIR_COMPMASK_PORTNUM, &pq, sizeof(pq), 311, buf, sizeof(buf), &stride);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(ib_port_info_get_port_state(&((ib_portinfo_record_t *)buf)->port_info), IB_LINK_DOWN);
	soft_fabric_port_close(probe);
	ops->close_ca(ca[1]);
	ops->cleanup();
	fab_end();
}

/* A port that does not answer the SM while its process is slow (starved for
 * seconds after it opened its CA, as many processes starting at once under
 * a sanitizer are) is tried again for as long as it is registered, and comes
 * up once it answers. Before, the SM gave up on it after three failed
 * bring-ups, and its owner waited for ACTIVE in vain. The probe is that port:
 * silent for four bring-ups (three tries of Get NodeInfo each), then an SMA.
 * A light sweep every 20 ms keeps the test short. */
static void test_sm_retries_silent_port(void)
{
	ib_smp_t smp;
	soft_pkt_t pkt;
	unsigned gets = 0;
	uint64_t last_tid = 0;
	int active = 0;

	setenv(SOFT_ENV_SM_SWEEP_MS, "20", 1);
	up();
	probe_open();
	probe_sma_init();
	/* Silent: the SM's bring-ups fail (each asks NodeInfo three times) */
	while (gets < 3 * 4 && probe_smp_req(10000, &smp, &pkt)) {
		if (smp.attr_id == IB_MAD_ATTR_NODE_INFO && smp.trans_id != last_tid) {
			last_tid = smp.trans_id;
			gets++;
		}
	}
	CU_ASSERT_EQUAL_FATAL(gets, 3 * 4);
	/* The SM tries again: answered now, the port comes up */
	while (!active && probe_smp_req(10000, &smp, &pkt)) {
		active = smp.method == IB_MAD_METHOD_SET && smp.attr_id == IB_MAD_ATTR_PORT_INFO &&
			 ib_port_info_get_port_state((const ib_port_info_t *)smp.data) == IB_LINK_ACTIVE;
		probe_sma_answer(&smp, &pkt);
	}
	CU_ASSERT_FATAL(active);
	CU_ASSERT_EQUAL(cl_ntoh16(probe_pi.master_sm_base_lid), lid_of(0));
	CU_ASSERT_EQUAL(probe_state_at_sa(401), IB_LINK_ACTIVE);
	soft_fabric_port_close(probe);
	down();
	unsetenv(SOFT_ENV_SM_SWEEP_MS);
}

/* The SM tells the SA a port is ACTIVE before its Set to ACTIVE, so that the
 * port's owner finds itself at the SA as soon as it sees the port ACTIVE.
 * When that Set gets no answer (the port's process is slow, and will most
 * likely apply it), the SA keeps the port ACTIVE until the port's next
 * bring-up reads it; before, it was put back to ARMED, and a PathRecord
 * query from the port's owner, which saw ACTIVE, found no path. */
static void test_sm_set_unanswered_keeps_sa(void)
{
	ib_smp_t smp;
	soft_pkt_t pkt;
	int sets = 0, next = 0;

	setenv(SOFT_ENV_SM_SWEEP_MS, "20", 1);
	up();
	probe_open();
	probe_sma_init();
	/* Answer all but the Set to ACTIVE, until the next bring-up begins */
	while (!next && probe_smp_req(10000, &smp, &pkt)) {
		if (smp.method == IB_MAD_METHOD_SET && smp.attr_id == IB_MAD_ATTR_PORT_INFO &&
		    ib_port_info_get_port_state((const ib_port_info_t *)smp.data) == IB_LINK_ACTIVE) {
			sets++;
			continue;
		}
		if (sets && smp.attr_id == IB_MAD_ATTR_NODE_INFO) {
			next = 1; /* the SM is done with the failed bring-up */
			continue;
		}
		probe_sma_answer(&smp, &pkt);
	}
	CU_ASSERT_FATAL(next);
	CU_ASSERT_EQUAL(sets, 3);
	CU_ASSERT_EQUAL(ib_port_info_get_port_state(&probe_pi), IB_LINK_ARMED);
	CU_ASSERT_EQUAL(probe_state_at_sa(402), IB_LINK_ACTIVE);
	soft_fabric_port_close(probe);
	down();
	unsetenv(SOFT_ENV_SM_SWEEP_MS);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_sma_attrs),
	TEST_ENTRY(test_sma_portinfo_set),
	TEST_ENTRY(test_smp_wire),
	TEST_ENTRY(test_gmp_wire),
	TEST_ENTRY(test_pma_local),
	TEST_ENTRY(test_sm_brings_ports_up),
	TEST_ENTRY(test_sm_off),
	TEST_ENTRY(test_sm_election_takeover),
	TEST_ENTRY(test_sm_join_leave),
	TEST_ENTRY(test_sm_settings_per_dir),
	TEST_ENTRY(test_sm_switch_links),
	TEST_ENTRY(test_sm_retries_silent_port),
	TEST_ENTRY(test_sm_set_unanswered_keeps_sa),
};

TEST_MAIN("soft_sm", tests)
