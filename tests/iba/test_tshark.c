/*
 * ibal tests: cross-checks ib_types.h wire layouts against Wireshark's dissector.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * MADs are built with the structures and inline helpers of <iba/ib_types.h>,
 * framed as native InfiniBand UD packets (LRH, BTH, DETH, MAD, ICRC, VCRC)
 * and written to a capture file (pcap with ERF records of type INFINIBAND:
 * see write_pcap()). One `tshark -T fields` run decodes them; every test
 * asserts that tshark reads back the values the helpers wrote. Without
 * tshark on PATH the program exits 77 (skipped). IBAL_TSHARK_KEEP=<file>
 * keeps the capture in <file>; otherwise it goes to $TMPDIR (or /tmp).
 *
 * Wireshark 4.0's infiniband dissector shows the ICRC and VCRC but does not
 * verify them; they are computed anyway (IBA 7.8: CRC-32 of the invariant
 * fields with LRH:VL and BTH:Resv8a set to ones; CRC-16 with polynomial
 * 0x100B over LRH..ICRC; both bit-reflected with preset and inverted
 * result, sent least significant byte first, as the Ethernet FCS is).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <iba/ib_types.h>
#include "../common/cl_test.h"

/* ------------------------------------------------------------------------ */
/* Packet framing                                                            */
/* ------------------------------------------------------------------------ */

#define LRH_LEN  8
#define BTH_LEN  12
#define DETH_LEN 8
#define HDR_LEN  (LRH_LEN + BTH_LEN + DETH_LEN)
#define ICRC_LEN 4
#define VCRC_LEN 2
#define PKT_LEN  (HDR_LEN + MAD_BLOCK_SIZE + ICRC_LEN + VCRC_LEN)
#define BTH_OPCODE_UD_SEND_ONLY 0x64
#define LNH_IBA_LOCAL 2

/* Addressing of one packet. */
typedef struct {
	uint8_t vl, sl;
	uint16_t dlid, slid, pkey;
	uint32_t dest_qp, src_qp, qkey, psn;
} route_t;

typedef struct {
	uint8_t b[PKT_LEN];
	uint32_t icrc; /* as computed, before byte serialization */
	uint16_t vcrc;
} packet_t;

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/*
 * Bit-reflected CRC register update (LSB-first shift register), shared by the
 * ICRC (reflected polynomial 0xEDB88320) and the VCRC (0xD008, the reflection
 * of 0x100B).
 */
static uint32_t crc_reflected(uint32_t crc, uint32_t poly, const uint8_t *p, size_t n)
{
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		crc ^= p[i];
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ ((crc & 1u) ? poly : 0u);
	}
	return crc;
}

#define CRC32_POLY_R 0xEDB88320u
#define CRC16_POLY_R 0xD008u

/* Frames the 256-byte @p mad as a UD SEND Only packet with both CRCs. */
static void frame_mad(packet_t *pkt, const route_t *r, const void *mad)
{
	uint8_t *b = pkt->b;
	uint8_t masked[HDR_LEN];
	uint32_t crc;

	memset(pkt, 0, sizeof(*pkt));
	/* LRH: VL, LVer 0 | SL, LNH | DLID | PktLen (words, LRH..ICRC) | SLID */
	b[0] = (uint8_t)(r->vl << 4);
	b[1] = (uint8_t)((r->sl << 4) | LNH_IBA_LOCAL);
	put16(b + 2, r->dlid);
	put16(b + 4, (uint16_t)((PKT_LEN - VCRC_LEN) / 4));
	put16(b + 6, r->slid);
	/* BTH: opcode | SE, M, PadCnt, TVer | P_Key | Resv8a | DestQP | A | PSN */
	b[8] = BTH_OPCODE_UD_SEND_ONLY;
	put16(b + 10, r->pkey);
	put24(b + 13, r->dest_qp);
	put24(b + 17, r->psn);
	/* DETH: Q_Key | reserved | SrcQP */
	put32(b + 20, r->qkey);
	put24(b + 25, r->src_qp);
	memcpy(b + HDR_LEN, mad, MAD_BLOCK_SIZE);

	memcpy(masked, b, HDR_LEN);
	masked[0] |= 0xF0; /* LRH:VL */
	masked[12] = 0xFF; /* BTH:Resv8a */
	crc = crc_reflected(0xFFFFFFFFu, CRC32_POLY_R, masked, HDR_LEN);
	crc = crc_reflected(crc, CRC32_POLY_R, b + HDR_LEN, MAD_BLOCK_SIZE);
	pkt->icrc = ~crc;
	b[HDR_LEN + MAD_BLOCK_SIZE + 0] = (uint8_t)pkt->icrc;
	b[HDR_LEN + MAD_BLOCK_SIZE + 1] = (uint8_t)(pkt->icrc >> 8);
	b[HDR_LEN + MAD_BLOCK_SIZE + 2] = (uint8_t)(pkt->icrc >> 16);
	b[HDR_LEN + MAD_BLOCK_SIZE + 3] = (uint8_t)(pkt->icrc >> 24);

	crc = crc_reflected(0xFFFFu, CRC16_POLY_R, b, PKT_LEN - VCRC_LEN);
	pkt->vcrc = (uint16_t)(~crc & 0xFFFFu);
	b[PKT_LEN - 2] = (uint8_t)pkt->vcrc;
	b[PKT_LEN - 1] = (uint8_t)(pkt->vcrc >> 8);
}

static const route_t smi_route = { 15, 0, 0xFFFF, 0x0001, 0xFFFF, 0, 0, 0, 0x000101 };
static const route_t gsi_route = { 0, 0, 0x0001, 0x0017, 0xFFFF, 1, 1, 0x80010000u, 0x000102 };

/* ------------------------------------------------------------------------ */
/* The MADs                                                                  */
/* ------------------------------------------------------------------------ */

enum {
	P_SMP_GET_NODE_INFO,
	P_SMP_RESP_NODE_INFO,
	P_SA_GET_PATH,
	P_SA_SET_MCMEMBER,
	P_PM_GET_COUNTERS,
	P_PM_RESP_COUNTERS,
	P_DM_RESP_IOC_PROFILE,
	N_PACKETS
};

#define TID(n) CL_HTON64(0x0123456789AB0000ULL + (n))

static const uint8_t dr_path[IB_SUBNET_PATH_HOPS_MAX] = { 0, 1, 7 };

static const uint8_t sgid_raw[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0xbc, 0xde
};
static const uint8_t dgid_raw[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x12, 0x34, 0x56
};
static const uint8_t mgid_raw[16] = {
	0xff, 0x10, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff
};

/* Values written by the builders and expected back from tshark. */
#define NI_SYS_GUID  0x0002C90300ABCD00ULL
#define NI_NODE_GUID 0x0002C90300ABCD01ULL
#define NI_PORT_GUID 0x0002C90300ABCD02ULL
#define SMP_MKEY     0x1122334455667788ULL
#define PR_FLOW      0x12345u
#define MC_QKEY      0x00000B1Bu
#define IOC_GUID     0x0002C90300001234ULL

static void build_smp_get(uint8_t mad[MAD_BLOCK_SIZE])
{
	ib_smp_t smp;

	ib_smp_init_new(&smp, IB_MAD_METHOD_GET, TID(1), IB_MAD_ATTR_NODE_INFO, 0, 2,
			CL_HTON64(SMP_MKEY), dr_path, CL_HTON16(IB_LID_PERMISSIVE),
			CL_HTON16(IB_LID_PERMISSIVE));
	memcpy(mad, &smp, MAD_BLOCK_SIZE);
}

static void build_smp_resp(uint8_t mad[MAD_BLOCK_SIZE])
{
	ib_smp_t smp;
	ib_node_info_t ni;

	ib_smp_init_new(&smp, IB_MAD_METHOD_GET, TID(2), IB_MAD_ATTR_NODE_INFO, 0, 2,
			CL_HTON64(SMP_MKEY), dr_path, CL_HTON16(IB_LID_PERMISSIVE),
			CL_HTON16(IB_LID_PERMISSIVE));
	smp.method = IB_MAD_METHOD_GET_RESP;
	smp.status = IB_SMP_DIRECTION;
	smp.hop_ptr = 2;
	smp.return_path[1] = 3;
	smp.return_path[2] = 9;

	memset(&ni, 0, sizeof(ni));
	ni.base_version = 1;
	ni.class_version = 1;
	ni.node_type = IB_NODE_TYPE_CA;
	ni.num_ports = 2;
	ni.sys_guid = CL_HTON64(NI_SYS_GUID);
	ni.node_guid = CL_HTON64(NI_NODE_GUID);
	ni.port_guid = CL_HTON64(NI_PORT_GUID);
	ni.partition_cap = CL_HTON16(128);
	ni.device_id = CL_HTON16(0x1017);
	ni.revision = CL_HTON32(0x000000A0);
	ni.port_num_vendor_id = CL_HTON32(0x020002C9); /* LocalPortNum 2, VendorID 0x0002C9 */
	memcpy(ib_smp_get_payload_ptr(&smp), &ni, sizeof(ni));
	memcpy(mad, &smp, MAD_BLOCK_SIZE);
}

/*
 * The SA MAD header is built in an ib_mad_t and copied in (no pointer cast
 * between MAD structures: see docs/porting.md on strict aliasing).
 */
static void build_sa_path(uint8_t mad[MAD_BLOCK_SIZE])
{
	ib_mad_t hdr;
	ib_sa_mad_t sa;
	ib_path_rec_t pr;
	ib_gid_t dgid, sgid;

	memset(&sa, 0, sizeof(sa));
	ib_mad_init_new(&hdr, IB_MCLASS_SUBN_ADM, 2, IB_MAD_METHOD_GET, TID(3),
			IB_MAD_ATTR_PATH_RECORD, 0);
	memcpy(&sa, &hdr, sizeof(hdr));
	sa.sm_key = CL_HTON64(0x0A0B0C0D0E0F1011ULL);
	sa.attr_offset = ib_get_attr_offset(sizeof(ib_path_rec_t));
	sa.comp_mask = IB_PR_COMPMASK_DGID | IB_PR_COMPMASK_SGID | IB_PR_COMPMASK_DLID |
		       IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_PKEY | IB_PR_COMPMASK_SL |
		       IB_PR_COMPMASK_MTUSELEC | IB_PR_COMPMASK_MTU |
		       IB_PR_COMPMASK_RATESELEC | IB_PR_COMPMASK_RATE |
		       IB_PR_COMPMASK_NUMBPATH;

	memcpy(dgid.raw, dgid_raw, 16);
	memcpy(sgid.raw, sgid_raw, 16);
	ib_path_rec_init_local(&pr, &dgid, &sgid, CL_HTON16(0x0123), CL_HTON16(0x0017),
			       0x80 | 1, CL_HTON16(0x8001), 5, 0xABC,
			       IB_PATH_SELECTOR_EXACTLY, IB_MTU_LEN_2048,
			       IB_PATH_SELECTOR_GREATER_THAN, IB_PATH_RECORD_RATE_40_GBS,
			       IB_PATH_SELECTOR_LESS_THAN, 18, 7);
	ib_path_rec_set_hop_flow_raw(&pr, 0x40, CL_HTON32(PR_FLOW), TRUE);
	ib_path_rec_set_sl(&pr, 11);
	pr.tclass = 0x5A;
	memcpy(ib_sa_mad_get_payload_ptr(&sa), &pr, sizeof(pr));
	memcpy(mad, &sa, MAD_BLOCK_SIZE);
}

static void build_sa_mcmember(uint8_t mad[MAD_BLOCK_SIZE])
{
	ib_mad_t hdr;
	ib_sa_mad_t sa;
	ib_member_rec_t mc;

	memset(&sa, 0, sizeof(sa));
	ib_mad_init_new(&hdr, IB_MCLASS_SUBN_ADM, 2, IB_MAD_METHOD_SET, TID(4),
			IB_MAD_ATTR_MCMEMBER_RECORD, 0);
	memcpy(&sa, &hdr, sizeof(hdr));
	sa.attr_offset = ib_get_attr_offset(sizeof(ib_member_rec_t));
	sa.comp_mask = IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID |
		       IB_MCR_COMPMASK_QKEY | IB_MCR_COMPMASK_PKEY | IB_MCR_COMPMASK_SL |
		       IB_MCR_COMPMASK_FLOW | IB_MCR_COMPMASK_TCLASS |
		       IB_MCR_COMPMASK_SCOPE | IB_MCR_COMPMASK_JOIN_STATE;

	memset(&mc, 0, sizeof(mc));
	memcpy(mc.mgid.raw, mgid_raw, 16);
	ib_mgid_set_scope(&mc.mgid, IB_MC_SCOPE_LINK_LOCAL);
	memcpy(mc.port_gid.raw, sgid_raw, 16);
	mc.qkey = CL_HTON32(MC_QKEY);
	mc.mlid = CL_HTON16(0xC003);
	mc.mtu = (uint8_t)((IB_PATH_SELECTOR_EXACTLY << 6) | IB_MTU_LEN_4096);
	mc.tclass = 0x21;
	mc.pkey = CL_HTON16(0xFFFF);
	mc.rate = (uint8_t)((IB_PATH_SELECTOR_EXACTLY << 6) | IB_PATH_RECORD_RATE_10_GBS);
	mc.pkt_life = (uint8_t)((IB_PATH_SELECTOR_EXACTLY << 6) | 14);
	mc.sl_flow_hop = ib_member_set_sl_flow_hop(3, CL_HTON32(0xABCDE), 0x7F);
	mc.scope_state = ib_member_set_scope_state(IB_MC_SCOPE_SITE_LOCAL,
						   IB_MC_REC_STATE_NON_MEMBER);
	ib_member_set_scope(&mc.scope_state, IB_MC_SCOPE_LINK_LOCAL);
	ib_member_set_join_state(&mc, IB_MC_REC_STATE_FULL_MEMBER);
	mc.proxy_join = 0x80;
	memcpy(ib_sa_mad_get_payload_ptr(&sa), &mc, sizeof(mc));
	memcpy(mad, &sa, MAD_BLOCK_SIZE);
}

static void build_pm(uint8_t mad[MAD_BLOCK_SIZE], int response)
{
	ib_perfmgt_mad_t pm;
	ib_port_counters_t pc;

	memset(&pm, 0, sizeof(pm));
	ib_mad_init_new(&pm.header, IB_MCLASS_PERF, 1,
			response ? IB_MAD_METHOD_GET_RESP : IB_MAD_METHOD_GET,
			TID(response ? 6 : 5), IB_MAD_ATTR_PORT_CNTRS, 0);
	memset(&pc, 0, sizeof(pc));
	pc.port_select = 1;
	pc.counter_select = CL_HTON16(0xFFFF);
	if (response) {
		pc.symbol_error_counter = CL_HTON16(0x0102);
		pc.link_error_recovery_counter = 0x03;
		pc.link_down_counter = 0x04;
		pc.port_rcv_errors = CL_HTON16(0x0506);
		pc.port_rcv_remote_physical_errors = CL_HTON16(0x0708);
		pc.port_rcv_switch_relay_errors = CL_HTON16(0x090A);
		pc.port_xmit_discard = CL_HTON16(0x0B0C);
		pc.port_xmit_constraint_errors = 0x0D;
		pc.port_rcv_constraint_errors = 0x0E;
		pc.lli_errors_exc_buf_errors = 0xA5;
		pc.vl15_dropped = CL_HTON16(0x0F10);
		pc.port_xmit_data = CL_HTON32(0x11121314);
		pc.port_rcv_data = CL_HTON32(0x15161718);
		pc.port_xmit_pkts = CL_HTON32(0x191A1B1C);
		pc.port_rcv_pkts = CL_HTON32(0x1D1E1F20);
	}
	memcpy(pm.data, &pc, sizeof(pc));
	memcpy(mad, &pm, MAD_BLOCK_SIZE);
}

static void build_dm_ioc_profile(uint8_t mad[MAD_BLOCK_SIZE])
{
	ib_dm_mad_t dm;
	ib_ioc_profile_t p;

	memset(&dm, 0, sizeof(dm));
	ib_mad_init_new(&dm.hdr, IB_MCLASS_DEV_MGMT, 1, IB_MAD_METHOD_GET_RESP, TID(7),
			IB_MAD_ATTR_IO_CONTROLLER_PROFILE, CL_HTON32(1));
	memset(&p, 0, sizeof(p));
	p.ioc_guid = CL_HTON64(IOC_GUID);
	ib_ioc_profile_set_vend_id(&p, 0x0002C9);
	p.dev_id = CL_HTON32(0x00006278);
	p.dev_ver = CL_HTON16(0x00A0);
	ib_ioc_profile_set_subsys_vend_id(&p, 0x0002C9);
	p.subsys_id = CL_HTON32(0x00000001);
	p.io_class = CL_HTON16(0x0100);
	p.io_subclass = CL_HTON16(0x609E);
	p.protocol = CL_HTON16(0x0108);
	p.protocol_ver = CL_HTON16(0x0001);
	p.send_msg_depth = CL_HTON16(64);
	p.rdma_read_depth = 4;
	p.send_msg_size = CL_HTON32(4096);
	p.rdma_size = CL_HTON32(1u << 20);
	p.ctrl_ops_cap = CTRL_OPS_CAP_ST | CTRL_OPS_CAP_SF | CTRL_OPS_CAP_RF | CTRL_OPS_CAP_WF;
	p.num_svc_entries = 1;
	strcpy(p.id_string, "ibal test IOC");
	memcpy(dm.data, &p, sizeof(p));
	memcpy(mad, &dm, MAD_BLOCK_SIZE);
}

static packet_t packets[N_PACKETS];

static void build_all(void)
{
	uint8_t mad[MAD_BLOCK_SIZE];

	build_smp_get(mad);
	frame_mad(&packets[P_SMP_GET_NODE_INFO], &smi_route, mad);
	build_smp_resp(mad);
	frame_mad(&packets[P_SMP_RESP_NODE_INFO], &smi_route, mad);
	build_sa_path(mad);
	frame_mad(&packets[P_SA_GET_PATH], &gsi_route, mad);
	build_sa_mcmember(mad);
	frame_mad(&packets[P_SA_SET_MCMEMBER], &gsi_route, mad);
	build_pm(mad, 0);
	frame_mad(&packets[P_PM_GET_COUNTERS], &gsi_route, mad);
	build_pm(mad, 1);
	frame_mad(&packets[P_PM_RESP_COUNTERS], &gsi_route, mad);
	build_dm_ioc_profile(mad);
	frame_mad(&packets[P_DM_RESP_IOC_PROFILE], &gsi_route, mad);
}

/* ------------------------------------------------------------------------ */
/* pcap writing and the tshark run                                           */
/* ------------------------------------------------------------------------ */

/*
 * The capture file is a classic pcap of link type LINKTYPE_ERF (197): each
 * record is an Endace ERF header of type INFINIBAND (21) followed by the
 * packet from the LRH through the VCRC. Wireshark 4.0 does not read pcap
 * files of link type LINKTYPE_INFINIBAND (247) ("network type 247 unknown or
 * unsupported"); ERF type 21 hands the same bytes to the same "infiniband"
 * dissector.
 */
#define LINKTYPE_ERF      197
#define ERF_TYPE_IB       21
#define ERF_FLAG_VARLEN   0x04
#define ERF_HDR_LEN       16
#define CAPTURE_EPOCH     1767225600u /* 2026-01-01 00:00:00 UTC */

static int write_bytes(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -1;
}

/* pcap header fields are in the writer's byte order (the magic tells which). */
static int write_host32(FILE *f, uint32_t v)
{
	return write_bytes(f, &v, sizeof(v));
}

static int write_host16(FILE *f, uint16_t v)
{
	return write_bytes(f, &v, sizeof(v));
}

static int write_pcap(const char *path)
{
	FILE *f = fopen(path, "wb");
	uint8_t erf[ERF_HDR_LEN];
	int i, k, rc = 0;

	if (!f)
		return -1;
	rc |= write_host32(f, 0xA1B2C3D4u);
	rc |= write_host16(f, 2);
	rc |= write_host16(f, 4);
	rc |= write_host32(f, 0); /* thiszone */
	rc |= write_host32(f, 0); /* sigfigs */
	rc |= write_host32(f, 65535);
	rc |= write_host32(f, LINKTYPE_ERF);
	for (i = 0; i < N_PACKETS; i++) {
		uint32_t secs = CAPTURE_EPOCH + (uint32_t)i;

		rc |= write_host32(f, secs);
		rc |= write_host32(f, 0);
		rc |= write_host32(f, ERF_HDR_LEN + PKT_LEN);
		rc |= write_host32(f, ERF_HDR_LEN + PKT_LEN);
		/* ERF: 32.32 fixed-point timestamp, little endian; the rest big endian. */
		memset(erf, 0, sizeof(erf));
		for (k = 0; k < 4; k++)
			erf[4 + k] = (uint8_t)(secs >> (8 * k));
		erf[8] = ERF_TYPE_IB;
		erf[9] = ERF_FLAG_VARLEN;
		put16(erf + 10, ERF_HDR_LEN + PKT_LEN); /* rlen */
		put16(erf + 14, PKT_LEN);               /* wlen */
		rc |= write_bytes(f, erf, sizeof(erf));
		rc |= write_bytes(f, packets[i].b, PKT_LEN);
	}
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

/* Every field asserted by some test; one tshark column each. */
static const char *const field_names[] = {
	"_ws.expert",
	"_ws.malformed",
	"infiniband.lrh.vl",
	"infiniband.lrh.lnh",
	"infiniband.lrh.dlid",
	"infiniband.lrh.pktlen",
	"infiniband.lrh.slid",
	"infiniband.bth.opcode",
	"infiniband.bth.p_key",
	"infiniband.bth.destqp",
	"infiniband.bth.psn",
	"infiniband.deth.q_key",
	"infiniband.deth.srcqp",
	"infiniband.invariant.crc",
	"infiniband.variant.crc",
	"infiniband.mad.baseversion",
	"infiniband.mad.mgmtclass",
	"infiniband.mad.classversion",
	"infiniband.mad.method",
	"infiniband.mad.status",
	"infiniband.mad.transactionid",
	"infiniband.mad.attributeid",
	"infiniband.mad.attributemodifier",
	"infiniband.mad.data",
	"infiniband.smpdirected.smpstatus",
	"infiniband.smpdirected.hoppointer",
	"infiniband.smpdirected.hopcount",
	"infiniband.smpdirected.drslid",
	"infiniband.smpdirected.drdlid",
	"infiniband.smpdirected.initialpath",
	"infiniband.smpdirected.returnpath",
	"infiniband.smplid.mkey",
	"infiniband.nodeinfo.baseversion",
	"infiniband.nodeinfo.classversion",
	"infiniband.nodeinfo.nodetype",
	"infiniband.nodeinfo.numports",
	"infiniband.nodeinfo.systemimageguid",
	"infiniband.nodeinfo.nodeguid",
	"infiniband.nodeinfo.portguid",
	"infiniband.nodeinfo.partitioncap",
	"infiniband.nodeinfo.deviceid",
	"infiniband.nodeinfo.revision",
	"infiniband.nodeinfo.localportnum",
	"infiniband.nodeinfo.vendorid",
	"infiniband.sa.smkey",
	"infiniband.sa.attributeoffset",
	"infiniband.sa.componentmask",
	"infiniband.pathrecord.dgid",
	"infiniband.pathrecord.sgid",
	"infiniband.pathrecord.dlid",
	"infiniband.pathrecord.slid",
	"infiniband.pathrecord.rawtraffic",
	"infiniband.pathrecord.flowlabel",
	"infiniband.pathrecord.hoplimit",
	"infiniband.pathrecord.tclass",
	"infiniband.pathrecord.reversible",
	"infiniband.pathrecord.numbpath",
	"infiniband.pathrecord.p_key",
	"infiniband.pathrecord.sl",
	"infiniband.pathrecord.mtuselector",
	"infiniband.pathrecord.mtu",
	"infiniband.pathrecord.rateselector",
	"infiniband.pathrecord.rate",
	"infiniband.pathrecord.packetlifetimeselector",
	"infiniband.pathrecord.packetlifetime",
	"infiniband.pathrecord.preference",
	"infiniband.mcmemberrecord.mgid",
	"infiniband.mcmemberrecord.portgid",
	"infiniband.mcmemberrecord.q_key",
	"infiniband.mcmemberrecord.mlid",
	"infiniband.mcmemberrecord.mtuselector",
	"infiniband.mcmemberrecord.mtu",
	"infiniband.mcmemberrecord.tclass",
	"infiniband.mcmemberrecord.p_key",
	"infiniband.mcmemberrecord.rateselector",
	"infiniband.mcmemberrecord.rate",
	"infiniband.mcmemberrecord.packetlifetimeselector",
	"infiniband.mcmemberrecord.packetlifetime",
	"infiniband.mcmemberrecord.sl",
	"infiniband.mcmemberrecord.flowlabel",
	"infiniband.mcmemberrecord.hoplimit",
	"infiniband.mcmemberrecord.scope",
	"infiniband.mcmemberrecord.joinstate",
	"infiniband.mcmemberrecord.proxyjoin",
	"infiniband.portcounters.portselect",
	"infiniband.portcounters.counterselect",
	"infiniband.portcounters.symbolerrorcounter",
	"infiniband.portcounters.linkerrorrecoverycounter",
	"infiniband.portcounters.linkdownedcounter",
	"infiniband.portcounters.portrcverrors",
	"infiniband.portcounters.portrcvremotephysicalerrors",
	"infiniband.portcounters.portrcvswitchrelayerrors",
	"infiniband.portcounters.portxmitdiscards",
	"infiniband.portcounters.portxmitconstrainterrors",
	"infiniband.portcounters.portrcvconstrainterrors",
	"infiniband.portcounters.locallinkintegrityerrors",
	"infiniband.portcounters.excessivebufferoverrunerrors",
	"infiniband.portcounters.vl15dropped",
	"infiniband.portcounters.portxmitdata",
	"infiniband.portcounters.portrcvdata",
	"infiniband.portcounters.portxmitpkts",
	"infiniband.portcounters.portrcvpkts",
};
#define N_FIELDS TEST_COUNT(field_names)

/* tshark's output: values[packet][field], malloc'ed strings. */
static char *values[N_PACKETS][N_FIELDS];
static int tshark_rows = -1;

static char *dup_n(const char *s, size_t n)
{
	char *d = (char *)malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* Splits one tab-separated output line into values[row]. */
static void store_row(int row, char *line)
{
	size_t f = 0;
	char *p = line, *tab;

	line[strcspn(line, "\r\n")] = '\0';
	while (f < N_FIELDS) {
		tab = strchr(p, '\t');
		values[row][f++] = dup_n(p, tab ? (size_t)(tab - p) : strlen(p));
		if (!tab)
			break;
		p = tab + 1;
	}
}

static int run_tshark(const char *pcap)
{
	size_t cmd_len = 256 + strlen(pcap), i;
	char *cmd, line[8192];
	FILE *p;
	int row = 0;

	for (i = 0; i < N_FIELDS; i++)
		cmd_len += strlen(field_names[i]) + 4;
	cmd = (char *)malloc(cmd_len);
	if (!cmd)
		return -1;
	snprintf(cmd, cmd_len, "tshark -n -r '%s' -T fields -E separator=/t -E occurrence=a"
		 " -E aggregator=,", pcap);
	for (i = 0; i < N_FIELDS; i++) {
		strcat(cmd, " -e ");
		strcat(cmd, field_names[i]);
	}
	strcat(cmd, " 2>/dev/null");
	p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		if (row < N_PACKETS)
			store_row(row, line);
		row++;
	}
	if (pclose(p) != 0)
		return -1;
	return row;
}

/* The value tshark printed for @p field of packet @p pkt ("" if none). */
static const char *val(int pkt, const char *field)
{
	size_t i;

	for (i = 0; i < N_FIELDS; i++)
		if (strcmp(field_names[i], field) == 0)
			return values[pkt][i] ? values[pkt][i] : "";
	printf("\n  field %s is not in the tshark column list\n", field);
	return "";
}

/* Parses tshark's number (decimal or 0x hex); -1 if it is not one. */
static long long num(int pkt, const char *field)
{
	const char *s = val(pkt, field);
	char *end;
	unsigned long long v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	return (long long)v;
}

static int check_num(int pkt, const char *field, unsigned long long want)
{
	long long got = num(pkt, field);

	if (got < 0 || (unsigned long long)got != want) {
		printf("\n  packet %d %s: tshark \"%s\", want 0x%llx\n", pkt + 1, field,
		       val(pkt, field), want);
		return 0;
	}
	return 1;
}

/* 64-bit fields: compared as text-parsed unsigned values (they may exceed LLONG_MAX). */
static int check_u64(int pkt, const char *field, uint64_t want)
{
	const char *s = val(pkt, field);
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (!*s || errno || *end || v != want) {
		printf("\n  packet %d %s: tshark \"%s\", want 0x%llx\n", pkt + 1, field, s,
		       (unsigned long long)want);
		return 0;
	}
	return 1;
}

static int check_gid(int pkt, const char *field, const uint8_t want[16])
{
	uint8_t got[16];
	const char *s = val(pkt, field);

	if (inet_pton(AF_INET6, s, got) != 1 || memcmp(got, want, 16) != 0) {
		printf("\n  packet %d %s: tshark \"%s\"\n", pkt + 1, field, s);
		return 0;
	}
	return 1;
}

static int check_str(int pkt, const char *field, const char *want)
{
	const char *s = val(pkt, field);

	if (strcmp(s, want) != 0) {
		printf("\n  packet %d %s: tshark \"%s\", want \"%s\"\n", pkt + 1, field, s, want);
		return 0;
	}
	return 1;
}

/* Hex text of @p n bytes, as tshark prints FT_BYTES fields (lower case, no separators). */
static void hex_of(const void *p, size_t n, char *out)
{
	const uint8_t *b = (const uint8_t *)p;
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = '\0';
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                     */
/* ------------------------------------------------------------------------ */

static void test_tshark_decoded_all(void)
{
	int i;

	CU_ASSERT_EQUAL(tshark_rows, N_PACKETS);
	for (i = 0; i < N_PACKETS && i < tshark_rows; i++) {
		CU_ASSERT(check_str(i, "_ws.expert", ""));
		CU_ASSERT(check_str(i, "_ws.malformed", ""));
	}
}

/* The number a big-endian reading of our least-significant-byte-first CRC gives. */
static uint32_t swab32(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v & 0xFF00u) << 8) | (v << 24);
}

static void test_framing(void)
{
	int i, crcs_shown = 0;

	for (i = 0; i < N_PACKETS && i < tshark_rows; i++) {
		const route_t *r = i < P_SA_GET_PATH ? &smi_route : &gsi_route;

		CU_ASSERT(check_num(i, "infiniband.lrh.vl", r->vl));
		CU_ASSERT(check_num(i, "infiniband.lrh.lnh", LNH_IBA_LOCAL));
		CU_ASSERT(check_num(i, "infiniband.lrh.dlid", r->dlid));
		CU_ASSERT(check_num(i, "infiniband.lrh.slid", r->slid));
		CU_ASSERT(check_num(i, "infiniband.lrh.pktlen", (PKT_LEN - VCRC_LEN) / 4));
		CU_ASSERT(check_num(i, "infiniband.bth.opcode", BTH_OPCODE_UD_SEND_ONLY));
		CU_ASSERT(check_num(i, "infiniband.bth.p_key", r->pkey));
		CU_ASSERT(check_num(i, "infiniband.bth.destqp", r->dest_qp));
		CU_ASSERT(check_num(i, "infiniband.bth.psn", r->psn));
		CU_ASSERT(check_num(i, "infiniband.deth.q_key", r->qkey));
		CU_ASSERT(check_num(i, "infiniband.deth.srcqp", r->src_qp));
		/*
		 * tshark 4.0 shows the CRCs only when its attribute parser leaves
		 * its offset right before them (not after MCMemberRecord or
		 * PortCounters); where shown, they are the last six bytes.
		 */
		if (*val(i, "infiniband.invariant.crc") || *val(i, "infiniband.variant.crc")) {
			crcs_shown++;
			CU_ASSERT(check_num(i, "infiniband.invariant.crc", swab32(packets[i].icrc)));
			CU_ASSERT(check_num(i, "infiniband.variant.crc",
					    (uint16_t)((packets[i].vcrc << 8) | (packets[i].vcrc >> 8))));
		}
	}
	CU_ASSERT(crcs_shown > 0);
}

/* The CRC routine against the standard CRC-32 check value and residue. */
static void test_crc_check_value(void)
{
	static const uint8_t digits[] = "123456789";
	uint8_t fcs[4];
	uint32_t crc = crc_reflected(0xFFFFFFFFu, CRC32_POLY_R, digits, 9), v = ~crc;

	CU_ASSERT_EQUAL(v, 0xCBF43926u);
	/* The data followed by its CRC, least significant byte first, leaves the residue. */
	fcs[0] = (uint8_t)v;
	fcs[1] = (uint8_t)(v >> 8);
	fcs[2] = (uint8_t)(v >> 16);
	fcs[3] = (uint8_t)(v >> 24);
	CU_ASSERT_EQUAL(crc_reflected(crc, CRC32_POLY_R, fcs, 4), 0xDEBB20E3u);
}

static void check_mad_header(int pkt, unsigned mclass, unsigned cver, unsigned method,
			     uint64_t tid, unsigned attr, unsigned long attr_mod)
{
	/* the 16-bit status word: a directed-route SMP's D bit is its top bit */
	unsigned status = pkt == P_SMP_RESP_NODE_INFO ? 0x8000u : 0u;

	CU_ASSERT(check_num(pkt, "infiniband.mad.baseversion", 1));
	CU_ASSERT(check_num(pkt, "infiniband.mad.mgmtclass", mclass));
	CU_ASSERT(check_num(pkt, "infiniband.mad.classversion", cver));
	CU_ASSERT(check_num(pkt, "infiniband.mad.method", method));
	CU_ASSERT(check_num(pkt, "infiniband.mad.status", status));
	CU_ASSERT(check_u64(pkt, "infiniband.mad.transactionid", tid));
	CU_ASSERT(check_num(pkt, "infiniband.mad.attributeid", attr));
	CU_ASSERT(check_num(pkt, "infiniband.mad.attributemodifier", attr_mod));
}

static void test_smp_get_node_info(void)
{
	const int k = P_SMP_GET_NODE_INFO;
	char hex[2 * IB_SUBNET_PATH_HOPS_MAX + 1];

	check_mad_header(k, IB_MCLASS_SUBN_DIR, 1, IB_MAD_METHOD_GET, 0x0123456789AB0001ULL,
			 0x0011, 0);
	CU_ASSERT(check_num(k, "infiniband.smpdirected.smpstatus", 0));
	CU_ASSERT(check_num(k, "infiniband.smpdirected.hoppointer", 0));
	CU_ASSERT(check_num(k, "infiniband.smpdirected.hopcount", 2));
	CU_ASSERT(check_num(k, "infiniband.smpdirected.drslid", 0xFFFF));
	CU_ASSERT(check_num(k, "infiniband.smpdirected.drdlid", 0xFFFF));
	CU_ASSERT(check_u64(k, "infiniband.smplid.mkey", SMP_MKEY));
	hex_of(dr_path, sizeof(dr_path), hex);
	CU_ASSERT(check_str(k, "infiniband.smpdirected.initialpath", hex));
}

static void test_smp_resp_node_info(void)
{
	const int k = P_SMP_RESP_NODE_INFO;
	uint8_t rpath[IB_SUBNET_PATH_HOPS_MAX] = { 0, 3, 9 };
	char hex[2 * IB_SUBNET_PATH_HOPS_MAX + 1];

	check_mad_header(k, IB_MCLASS_SUBN_DIR, 1, IB_MAD_METHOD_GET_RESP,
			 0x0123456789AB0002ULL, 0x0011, 0);
	CU_ASSERT(check_num(k, "infiniband.smpdirected.smpstatus", 0x8000));
	CU_ASSERT(check_num(k, "infiniband.smpdirected.hoppointer", 2));
	hex_of(rpath, sizeof(rpath), hex);
	CU_ASSERT(check_str(k, "infiniband.smpdirected.returnpath", hex));
	CU_ASSERT(check_num(k, "infiniband.nodeinfo.baseversion", 1));
	CU_ASSERT(check_num(k, "infiniband.nodeinfo.classversion", 1));
	CU_ASSERT(check_num(k, "infiniband.nodeinfo.nodetype", IB_NODE_TYPE_CA));
	CU_ASSERT(check_num(k, "infiniband.nodeinfo.numports", 2));
	CU_ASSERT(check_u64(k, "infiniband.nodeinfo.systemimageguid", NI_SYS_GUID));
	CU_ASSERT(check_u64(k, "infiniband.nodeinfo.nodeguid", NI_NODE_GUID));
	CU_ASSERT(check_u64(k, "infiniband.nodeinfo.portguid", NI_PORT_GUID));
	CU_ASSERT(check_num(k, "infiniband.nodeinfo.partitioncap", 128));
	CU_ASSERT(check_num(k, "infiniband.nodeinfo.deviceid", 0x1017));
	CU_ASSERT(check_num(k, "infiniband.nodeinfo.revision", 0xA0));
	CU_ASSERT(check_num(k, "infiniband.nodeinfo.localportnum", 2));
	CU_ASSERT(check_num(k, "infiniband.nodeinfo.vendorid", 0x0002C9));
}

/* Our own getters read what tshark decoded. */
static void test_node_info_helpers_agree(void)
{
	ib_node_info_t ni;

	memcpy(&ni, packets[P_SMP_RESP_NODE_INFO].b + HDR_LEN + 64, sizeof(ni));
	CU_ASSERT_EQUAL(ib_node_info_get_local_port_num(&ni), num(P_SMP_RESP_NODE_INFO,
			"infiniband.nodeinfo.localportnum"));
	CU_ASSERT_EQUAL(cl_ntoh32(ib_node_info_get_vendor_id(&ni)),
			num(P_SMP_RESP_NODE_INFO, "infiniband.nodeinfo.vendorid"));
}

static void test_sa_get_path_record(void)
{
	const int k = P_SA_GET_PATH;

	check_mad_header(k, IB_MCLASS_SUBN_ADM, 2, IB_MAD_METHOD_GET, 0x0123456789AB0003ULL,
			 0x0035, 0);
	CU_ASSERT(check_u64(k, "infiniband.sa.smkey", 0x0A0B0C0D0E0F1011ULL));
	CU_ASSERT(check_num(k, "infiniband.sa.attributeoffset", 64 / 8));
	CU_ASSERT(check_u64(k, "infiniband.sa.componentmask",
			    (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 12) |
			    (1u << 13) | (1u << 15) | (1u << 16) | (1u << 17) | (1u << 18) |
			    (1u << 19)));
	CU_ASSERT(check_gid(k, "infiniband.pathrecord.dgid", dgid_raw));
	CU_ASSERT(check_gid(k, "infiniband.pathrecord.sgid", sgid_raw));
	CU_ASSERT(check_num(k, "infiniband.pathrecord.dlid", 0x0123));
	CU_ASSERT(check_num(k, "infiniband.pathrecord.slid", 0x0017));
	CU_ASSERT(check_num(k, "infiniband.pathrecord.rawtraffic", 1));
	CU_ASSERT(check_num(k, "infiniband.pathrecord.flowlabel", PR_FLOW));
	CU_ASSERT(check_num(k, "infiniband.pathrecord.hoplimit", 0x40));
	CU_ASSERT(check_num(k, "infiniband.pathrecord.tclass", 0x5A));
	CU_ASSERT(check_num(k, "infiniband.pathrecord.reversible", 1));
	CU_ASSERT(check_num(k, "infiniband.pathrecord.numbpath", 1));
	CU_ASSERT(check_num(k, "infiniband.pathrecord.p_key", 0x8001));
	CU_ASSERT(check_num(k, "infiniband.pathrecord.sl", 11));
	CU_ASSERT(check_num(k, "infiniband.pathrecord.mtuselector", IB_PATH_SELECTOR_EXACTLY));
	CU_ASSERT(check_num(k, "infiniband.pathrecord.mtu", IB_MTU_LEN_2048));
	CU_ASSERT(check_num(k, "infiniband.pathrecord.rateselector",
			    IB_PATH_SELECTOR_GREATER_THAN));
	CU_ASSERT(check_num(k, "infiniband.pathrecord.rate", IB_PATH_RECORD_RATE_40_GBS));
	CU_ASSERT(check_num(k, "infiniband.pathrecord.packetlifetimeselector",
			    IB_PATH_SELECTOR_LESS_THAN));
	CU_ASSERT(check_num(k, "infiniband.pathrecord.packetlifetime", 18));
	CU_ASSERT(check_num(k, "infiniband.pathrecord.preference", 7));
}

static void test_sa_set_mcmember_record(void)
{
	const int k = P_SA_SET_MCMEMBER;
	uint8_t mgid[16];

	memcpy(mgid, mgid_raw, 16);
	mgid[1] = 0x12; /* flags 1, scope 2 (link-local) */
	check_mad_header(k, IB_MCLASS_SUBN_ADM, 2, IB_MAD_METHOD_SET, 0x0123456789AB0004ULL,
			 0x0038, 0);
	CU_ASSERT(check_num(k, "infiniband.sa.attributeoffset", 56 / 8));
	CU_ASSERT(check_u64(k, "infiniband.sa.componentmask",
			    (1u << 0) | (1u << 1) | (1u << 2) | (1u << 6) | (1u << 7) |
			    (1u << 12) | (1u << 13) | (1u << 15) | (1u << 16)));
	CU_ASSERT(check_gid(k, "infiniband.mcmemberrecord.mgid", mgid));
	CU_ASSERT(check_gid(k, "infiniband.mcmemberrecord.portgid", sgid_raw));
	CU_ASSERT(check_num(k, "infiniband.mcmemberrecord.q_key", MC_QKEY));
	CU_ASSERT(check_num(k, "infiniband.mcmemberrecord.mlid", 0xC003));
	CU_ASSERT(check_num(k, "infiniband.mcmemberrecord.mtuselector", IB_PATH_SELECTOR_EXACTLY));
	CU_ASSERT(check_num(k, "infiniband.mcmemberrecord.mtu", IB_MTU_LEN_4096));
	CU_ASSERT(check_num(k, "infiniband.mcmemberrecord.tclass", 0x21));
	CU_ASSERT(check_num(k, "infiniband.mcmemberrecord.p_key", 0xFFFF));
	CU_ASSERT(check_num(k, "infiniband.mcmemberrecord.rateselector", IB_PATH_SELECTOR_EXACTLY));
	CU_ASSERT(check_num(k, "infiniband.mcmemberrecord.rate", IB_PATH_RECORD_RATE_10_GBS));
	CU_ASSERT(check_num(k, "infiniband.mcmemberrecord.packetlifetimeselector",
			    IB_PATH_SELECTOR_EXACTLY));
	CU_ASSERT(check_num(k, "infiniband.mcmemberrecord.packetlifetime", 14));
	CU_ASSERT(check_num(k, "infiniband.mcmemberrecord.sl", 3));
	CU_ASSERT(check_num(k, "infiniband.mcmemberrecord.flowlabel", 0xABCDE));
	CU_ASSERT(check_num(k, "infiniband.mcmemberrecord.hoplimit", 0x7F));
	CU_ASSERT(check_num(k, "infiniband.mcmemberrecord.scope", IB_MC_SCOPE_LINK_LOCAL));
	CU_ASSERT(check_num(k, "infiniband.mcmemberrecord.joinstate",
			    IB_MC_REC_STATE_FULL_MEMBER));
	CU_ASSERT(check_num(k, "infiniband.mcmemberrecord.proxyjoin", 1));
}

static void test_perf_get_port_counters(void)
{
	const int k = P_PM_GET_COUNTERS;

	check_mad_header(k, IB_MCLASS_PERF, 1, IB_MAD_METHOD_GET, 0x0123456789AB0005ULL,
			 0x0012, 0);
	CU_ASSERT(check_num(k, "infiniband.portcounters.portselect", 1));
	CU_ASSERT(check_num(k, "infiniband.portcounters.counterselect", 0xFFFF));
	CU_ASSERT(check_num(k, "infiniband.portcounters.portrcvpkts", 0));
}

static void test_perf_resp_port_counters(void)
{
	const int k = P_PM_RESP_COUNTERS;

	check_mad_header(k, IB_MCLASS_PERF, 1, IB_MAD_METHOD_GET_RESP, 0x0123456789AB0006ULL,
			 0x0012, 0);
	CU_ASSERT(check_num(k, "infiniband.portcounters.portselect", 1));
	CU_ASSERT(check_num(k, "infiniband.portcounters.counterselect", 0xFFFF));
	CU_ASSERT(check_num(k, "infiniband.portcounters.symbolerrorcounter", 0x0102));
	CU_ASSERT(check_num(k, "infiniband.portcounters.linkerrorrecoverycounter", 0x03));
	CU_ASSERT(check_num(k, "infiniband.portcounters.linkdownedcounter", 0x04));
	CU_ASSERT(check_num(k, "infiniband.portcounters.portrcverrors", 0x0506));
	CU_ASSERT(check_num(k, "infiniband.portcounters.portrcvremotephysicalerrors", 0x0708));
	CU_ASSERT(check_num(k, "infiniband.portcounters.portrcvswitchrelayerrors", 0x090A));
	CU_ASSERT(check_num(k, "infiniband.portcounters.portxmitdiscards", 0x0B0C));
	CU_ASSERT(check_num(k, "infiniband.portcounters.portxmitconstrainterrors", 0x0D));
	CU_ASSERT(check_num(k, "infiniband.portcounters.portrcvconstrainterrors", 0x0E));
	CU_ASSERT(check_num(k, "infiniband.portcounters.locallinkintegrityerrors", 0xA));
	CU_ASSERT(check_num(k, "infiniband.portcounters.excessivebufferoverrunerrors", 0x5));
	CU_ASSERT(check_num(k, "infiniband.portcounters.vl15dropped", 0x0F10));
	CU_ASSERT(check_num(k, "infiniband.portcounters.portxmitdata", 0x11121314));
	CU_ASSERT(check_num(k, "infiniband.portcounters.portrcvdata", 0x15161718));
	CU_ASSERT(check_num(k, "infiniband.portcounters.portxmitpkts", 0x191A1B1C));
	CU_ASSERT(check_num(k, "infiniband.portcounters.portrcvpkts", 0x1D1E1F20));
}

/*
 * tshark 4.0 decodes only the common header of device-management MADs; the
 * rest of the MAD is its "MAD Data Payload" (232 bytes from MAD offset 24).
 * The IOControllerProfile must sit 40 bytes into it (MAD offset 64).
 */
static void test_dm_ioc_profile(void)
{
	const int k = P_DM_RESP_IOC_PROFILE;
	const uint8_t *mad = packets[k].b + HDR_LEN;
	char hex[2 * (MAD_BLOCK_SIZE - 24) + 1];
	ib_ioc_profile_t p;

	check_mad_header(k, IB_MCLASS_DEV_MGMT, 1, IB_MAD_METHOD_GET_RESP,
			 0x0123456789AB0007ULL, 0x0011, 1);
	hex_of(mad + 24, MAD_BLOCK_SIZE - 24, hex);
	CU_ASSERT(check_str(k, "infiniband.mad.data", hex));
	/* Spot checks of the profile's bytes at the IBA 16.3.3.4 offsets. */
	CU_ASSERT(strncmp(hex + 2 * 40, "0002c90300001234", 16) == 0);       /* IOCGUID */
	CU_ASSERT(strncmp(hex + 2 * 48, "0002c900", 8) == 0);               /* VendorID */
	CU_ASSERT(strncmp(hex + 2 * (40 + 28), "0100609e01080001", 16) == 0); /* class..ver */
	CU_ASSERT(strncmp(hex + 2 * (40 + 64), "6962616c", 8) == 0);         /* IDString */
	memcpy(&p, mad + 64, sizeof(p));
	CU_ASSERT_EQUAL(ib_ioc_profile_get_vend_id(&p), 0x0002C9);
	CU_ASSERT_EQUAL(ib_ioc_profile_get_subsys_vend_id(&p), 0x0002C9);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_crc_check_value),
	TEST_ENTRY(test_tshark_decoded_all),
	TEST_ENTRY(test_framing),
	TEST_ENTRY(test_smp_get_node_info),
	TEST_ENTRY(test_smp_resp_node_info),
	TEST_ENTRY(test_node_info_helpers_agree),
	TEST_ENTRY(test_sa_get_path_record),
	TEST_ENTRY(test_sa_set_mcmember_record),
	TEST_ENTRY(test_perf_get_port_counters),
	TEST_ENTRY(test_perf_resp_port_counters),
	TEST_ENTRY(test_dm_ioc_profile),
};

/* True if an executable named @p name is in one of PATH's directories. */
static int on_path(const char *name)
{
	const char *path = getenv("PATH"), *p, *colon;
	char buf[4096];
	size_t n;

	if (!path)
		return 0;
	for (p = path; *p; p = colon ? colon + 1 : p + strlen(p)) {
		colon = strchr(p, ':');
		n = colon ? (size_t)(colon - p) : strlen(p);
		if (n == 0 || n + strlen(name) + 2 > sizeof(buf))
			continue;
		memcpy(buf, p, n);
		buf[n] = '/';
		strcpy(buf + n + 1, name);
		if (access(buf, X_OK) == 0)
			return 1;
		if (!colon)
			break;
	}
	return 0;
}

int main(void)
{
	const char *keep = getenv("IBAL_TSHARK_KEEP");
	const char *tmpdir = getenv("TMPDIR");
	char tmpl[4096];
	const char *pcap;
	int fd, rc, i;
	size_t f;

	if (!on_path("tshark")) {
		printf("tshark is not on PATH: wire layouts not cross-checked (SKIP)\n");
		return 77;
	}
	build_all();
	if (keep && *keep) {
		pcap = keep;
	} else {
		snprintf(tmpl, sizeof(tmpl), "%s/ibal-tshark-XXXXXX",
			 tmpdir && *tmpdir ? tmpdir : "/tmp");
		fd = mkstemp(tmpl);
		if (fd < 0) {
			perror("mkstemp");
			return 99;
		}
		close(fd);
		pcap = tmpl;
	}
	if (strchr(pcap, '\'') || write_pcap(pcap) != 0) {
		perror(pcap);
		return 99;
	}
	tshark_rows = run_tshark(pcap);
	if (pcap == tmpl)
		remove(tmpl);
	if (tshark_rows < 0)
		printf("running tshark failed\n");
	rc = test_run_suite("tshark cross-check", tests, TEST_COUNT(tests));
	for (i = 0; i < N_PACKETS; i++)
		for (f = 0; f < N_FIELDS; f++)
			free(values[i][f]);
	return rc;
}
