/*
 * ibal tests: the soft fabric's management traffic (SMPs, SA MADs, RMPP) decoded by Wireshark.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Two soft CAs in one process (IBAL_SOFT_CAS=2) on a fabric directory of
 * their own, with IBAL_SOFT_PCAP capturing every packet their ports send
 * (ERF records of type InfiniBand, the default). Opening the access layer
 * lets the embedded SM bring the second port up with directed-route SMPs
 * (NodeInfo, NodeDescription, PortInfo Get and Set); then, through the
 * public calls only: PortInfoRecord GetTables until the SA knows both
 * ports (see wait_sa_knows()), a PathRecord query by LIDs, NSVC ServiceRecords
 * registered with ib_reg_svc, a GetTable of every NodeRecord and one of
 * every ServiceRecord (RMPP: DATA segments and ACKs), a multicast join
 * (MCMemberRecord Set), and the teardown's Deletes. One `tshark -T fields`
 * run decodes the capture; each test asserts what Wireshark read against
 * what the calls asked for and what they returned.
 *
 * Two fields of Wireshark 4.0's dissector are not used, because they do not
 * show the bits the IBA defines (the raw bytes they come from are checked):
 *  - infiniband.smpdirected.d is a one-byte item with the 16-bit mask
 *    0x8000, so it always reads 0; the D bit is checked as bit 15 of
 *    infiniband.smpdirected.smpstatus (IBA 14.2.1.2).
 *  - infiniband.rmpp.rresptime and .rmppflags split their byte 4/4 bits;
 *    the IBA (13.6.2.1) has RRespTime in bits 7..3 and RMPPFlags in bits
 *    2..0 (as the Linux kernel's ib_get_rmpp_resptime/_flags read it). The
 *    byte is put back together from the two fields (rmpp_byte()), whichever
 *    split the dissector uses.
 * And Wireshark does not reassemble RMPP: the record fields it shows for a
 * DATA segment after the first are the segment's data read as if a record
 * began there (every segment does carry the SA header, which is checked).
 *
 * Without tshark on PATH the program exits 77 (skipped).
 * IBAL_TSHARK_KEEP=<file> keeps the capture in <file> (replaced).
 * IBAL_TSHARK_DUMP=1 prints every decoded field.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "tshark_test.h"
#include "al_sa_client.h"

/* ------------------------------------------------------------------------ */
/* What the calls asked for and got                                          */
/* ------------------------------------------------------------------------ */

#define NSVC        10                    /* ServiceRecords registered: a table of 9 segments */
#define SVC_ID_BASE 0x1BA1000000005A00ull
#define MC_QKEY     0x0BADCAFEu
#define MAX_NODES   16

#define SA_HDR_LEN   56  /* MAD header, RMPP header and SA header */
#define SA_DATA_LEN  (MAD_BLOCK_SIZE - SA_HDR_LEN) /* data of one segment: 200 */
#define SA_AFTER_RMPP 20 /* SA header bytes after the RMPP header, counted in PayloadLength */
#define MAD_PKT_LEN  (8 + 12 + 8 + MAD_BLOCK_SIZE + 4 + 2) /* LRH BTH DETH MAD ICRC VCRC */

static char fab_dir[64];
static char pcap_path[600];

static struct {
	ib_net64_t ca_guid[2];
	ib_port_attr_t port[2];  /* port 1 of each CA; tables not kept */
	ib_gid_t gid[2];
	uint16_t lid[2], sm_lid; /* host order */
	ib_path_rec_t path;
	uint32_t n_path;
	ib_node_record_t node[MAX_NODES];
	uint32_t n_node;
	ib_service_record_t svc[NSVC];
	ib_service_record_t svc_table0; /* first record of the GetTable */
	uint32_t n_svc_table;
	ib_member_rec_t mc_req, mc_resp;
} S;

static ib_query_rec_t q_res;
static ib_reg_svc_rec_t reg_res;
static ib_mcast_rec_t mc_res;
static ib_member_rec_t mc_rec;

static void AL_API on_query(ib_query_rec_t *p)
{
	q_res = *p;
}

static void AL_API on_reg(ib_reg_svc_rec_t *p)
{
	reg_res = *p;
}

static void AL_API on_mcast(ib_mcast_rec_t *p)
{
	mc_res = *p;
	if (p->p_member_rec)
		mc_rec = *p->p_member_rec;
}

static void read_port(ib_ca_handle_t h_ca, int i)
{
	uint32_t size = 0;
	ib_ca_attr_t *p_attr;

	CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca, NULL, &size), IB_INSUFFICIENT_MEMORY);
	p_attr = (ib_ca_attr_t *)malloc(size);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p_attr);
	CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca, p_attr, &size), IB_SUCCESS);
	S.port[i] = p_attr->p_port_attr[0];
	S.gid[i] = p_attr->p_port_attr[0].p_gid_table[0];
	S.port[i].p_gid_table = NULL;
	S.port[i].p_pkey_table = NULL;
	S.lid[i] = cl_ntoh16(S.port[i].lid);
	free(p_attr);
}

/* A synchronous query through port i; the result is in q_res. */
static ib_api_status_t query(ib_al_handle_t h_al, int i, ib_query_type_t type, const void *in)
{
	ib_query_req_t q;

	memset(&q, 0, sizeof(q));
	q.query_type = type;
	q.p_query_input = in;
	q.port_guid = S.port[i].port_guid;
	q.timeout_ms = 1000;
	q.retry_cnt = 3;
	q.flags = IB_FLAGS_SYNC;
	q.pfn_query_cb = on_query;
	memset(&q_res, 0, sizeof(q_res));
	return ib_query(h_al, &q, NULL);
}

static void put_result(void)
{
	if (q_res.p_result_mad)
		CU_ASSERT_EQUAL(ib_put_mad(q_res.p_result_mad), IB_SUCCESS);
	q_res.p_result_mad = NULL;
}

/*
 * Waits (bounded) until the SA has an ACTIVE PortInfoRecord of port i.
 * The soft SM sets a port ACTIVE, which lets ib_open_ca() return, before it
 * hands the port's records to the SA; a request naming the port at once
 * can reach the SA before them (a Set(ServiceRecord) with the port's GID
 * is then answered INVALID_GID). The PortInfoRecord queries this sends are
 * in the capture too.
 */
static int wait_sa_knows(ib_al_handle_t h_al, int i)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000;
	int known = 0;

	while (!known && test_now_ms() < end) {
		if (query(h_al, 0, IB_QUERY_PORT_REC_BY_LID, &S.port[i].lid) == IB_SUCCESS &&
		    q_res.status == IB_SUCCESS && q_res.result_cnt >= 1)
			known = ib_port_info_get_port_state(
					&ib_get_query_portinfo_rec(q_res.p_result_mad, 0)->port_info) ==
				IB_LINK_ACTIVE;
		put_result();
	}
	return known;
}

static void svc_name(int i, ib_svc_name_t name)
{
	memset(name, 0, sizeof(ib_svc_name_t));
	snprintf((char *)name, sizeof(ib_svc_name_t), "ibal-tshark-svc-%02d", i);
}

static void make_fabric(void)
{
	strcpy(fab_dir, "/tmp/ibal-satshark-XXXXXX");
	CU_ASSERT_EQUAL_FATAL(tshark_capture_env(fab_dir, pcap_path, sizeof(pcap_path), "mgmt.pcap"), 0);
}

static void run_queries(ib_al_handle_t h_al)
{
	ib_lid_pair_t lp;
	ib_user_query_t uq;
	uint32_t i;

	/* PathRecord from the second port to the first, asked by the second. */
	lp.src_lid = S.port[1].lid;
	lp.dest_lid = S.port[0].lid;
	CU_ASSERT_EQUAL(query(h_al, 1, IB_QUERY_PATH_REC_BY_LIDS, &lp), IB_SUCCESS);
	CU_ASSERT_EQUAL(q_res.status, IB_SUCCESS);
	CU_ASSERT_EQUAL(q_res.result_cnt, 1);
	if (q_res.status == IB_SUCCESS && q_res.result_cnt == 1) {
		S.path = *ib_get_query_path_rec(q_res.p_result_mad, 0);
		S.n_path = 1;
	}
	put_result();

	/* Every NodeRecord, asked through the SM's own port. */
	memset(&uq, 0, sizeof(uq));
	uq.method = IB_MAD_METHOD_GETTABLE;
	uq.attr_id = IB_MAD_ATTR_NODE_RECORD;
	uq.attr_size = sizeof(ib_node_record_t);
	CU_ASSERT_EQUAL(query(h_al, 0, IB_QUERY_USER_DEFINED, &uq), IB_SUCCESS);
	CU_ASSERT_EQUAL(q_res.status, IB_SUCCESS);
	CU_ASSERT(q_res.result_cnt >= 2); /* the two CAs, and any switch the SA models */
	for (i = 0; q_res.status == IB_SUCCESS && i < q_res.result_cnt && i < MAX_NODES; i++)
		S.node[S.n_node++] = *ib_get_query_node_rec(q_res.p_result_mad, i);
	put_result();

	/* Every ServiceRecord, asked through the second port. */
	uq.attr_id = IB_MAD_ATTR_SERVICE_RECORD;
	uq.attr_size = sizeof(ib_service_record_t);
	CU_ASSERT_EQUAL(query(h_al, 1, IB_QUERY_USER_DEFINED, &uq), IB_SUCCESS);
	CU_ASSERT_EQUAL(q_res.status, IB_SUCCESS);
	CU_ASSERT_EQUAL(q_res.result_cnt, NSVC);
	if (q_res.status == IB_SUCCESS && q_res.result_cnt) {
		S.n_svc_table = q_res.result_cnt;
		S.svc_table0 = *ib_get_query_svc_rec(q_res.p_result_mad, 0);
	}
	put_result();
}

static void run_reg_svc(ib_al_handle_t h_al, ib_reg_svc_handle_t h_reg[NSVC])
{
	ib_reg_svc_req_t rs;
	int i;

	for (i = 0; i < NSVC; i++) {
		memset(&rs, 0, sizeof(rs));
		rs.svc_rec.service_id = cl_hton64(SVC_ID_BASE + (uint64_t)i);
		rs.svc_rec.service_pkey = CL_HTON16(0xFFFF);
		rs.svc_rec.service_lease = 0xFFFFFFFF;
		svc_name(i, rs.svc_rec.service_name);
		rs.port_guid = S.port[1].port_guid;
		rs.timeout_ms = 1000;
		rs.retry_cnt = 3;
		rs.flags = IB_FLAGS_SYNC;
		rs.pfn_reg_svc_cb = on_reg;
		memset(&reg_res, 0, sizeof(reg_res));
		CU_ASSERT_EQUAL(ib_reg_svc(h_al, &rs, &h_reg[i]), IB_SUCCESS);
		CU_ASSERT_EQUAL(reg_res.req_status, IB_SUCCESS);
		S.svc[i] = rs.svc_rec;
		S.svc[i].service_gid = S.gid[1]; /* a zero GID is sent as the port's */
	}
}

static void run_join(ib_mcast_handle_t *p_h_mc)
{
	ib_mcast_req_t mr;

	memset(&mr, 0, sizeof(mr));
	mr.create = TRUE;
	mr.member_rec.mgid.raw[0] = 0xFF;
	mr.member_rec.mgid.raw[1] = 0x12; /* link-local scope */
	mr.member_rec.mgid.raw[2] = 0x40;
	mr.member_rec.mgid.raw[3] = 0x1B;
	mr.member_rec.mgid.raw[14] = 0x7E;
	mr.member_rec.mgid.raw[15] = 0x57;
	mr.member_rec.qkey = CL_HTON32(MC_QKEY);
	mr.member_rec.pkey = CL_HTON16(0xFFFF);
	mr.member_rec.scope_state = IB_MC_REC_STATE_FULL_MEMBER;
	mr.pfn_mcast_cb = on_mcast;
	mr.timeout_ms = 1000;
	mr.retry_cnt = 3;
	mr.flags = IB_FLAGS_SYNC;
	mr.port_guid = S.port[0].port_guid;
	memset(&mc_res, 0, sizeof(mc_res));
	CU_ASSERT_EQUAL(ib_join_mcast_no_qp(&mr, p_h_mc), IB_SUCCESS);
	CU_ASSERT_EQUAL(mc_res.status, IB_SUCCESS);
	S.mc_req = mr.member_rec;
	S.mc_resp = mc_rec;
	CU_ASSERT(cl_ntoh16(mc_rec.mlid) >= 0xC000);
}

/* ------------------------------------------------------------------------ */
/* tshark                                                                    */
/* ------------------------------------------------------------------------ */

#define FIELDS(X)                                                     \
	X(F_FRAME_LEN, "frame.len")                                   \
	X(F_ERF_TYPE, "erf.types.type")                               \
	X(F_ERF_RXE, "erf.flags.rxe")                                 \
	X(F_MALFORMED, "_ws.malformed")                               \
	X(F_EXPERT_SEV, "_ws.expert.severity")                        \
	X(F_EXPERT_GROUP, "_ws.expert.group")                         \
	X(F_EXPERT_MSG, "_ws.expert.message")                         \
	X(F_VL, "infiniband.lrh.vl")                                  \
	X(F_DLID, "infiniband.lrh.dlid")                              \
	X(F_SLID, "infiniband.lrh.slid")                              \
	X(F_PKTLEN, "infiniband.lrh.pktlen")                          \
	X(F_OPCODE, "infiniband.bth.opcode")                          \
	X(F_PADCNT, "infiniband.bth.padcnt")                          \
	X(F_BTH_PKEY, "infiniband.bth.p_key")                         \
	X(F_DESTQP, "infiniband.bth.destqp")                          \
	X(F_QKEY, "infiniband.deth.q_key")                            \
	X(F_SRCQP, "infiniband.deth.srcqp")                           \
	X(F_BASEVER, "infiniband.mad.baseversion")                    \
	X(F_CLASS, "infiniband.mad.mgmtclass")                        \
	X(F_CLASSVER, "infiniband.mad.classversion")                  \
	X(F_METHOD, "infiniband.mad.method")                          \
	X(F_STATUS, "infiniband.mad.status")                          \
	X(F_TID, "infiniband.mad.transactionid")                      \
	X(F_ATTR, "infiniband.mad.attributeid")                       \
	X(F_ATTRMOD, "infiniband.mad.attributemodifier")              \
	X(F_DR_STATUS, "infiniband.smpdirected.smpstatus")            \
	X(F_DR_HOPPTR, "infiniband.smpdirected.hoppointer")           \
	X(F_DR_HOPCNT, "infiniband.smpdirected.hopcount")             \
	X(F_DR_SLID, "infiniband.smpdirected.drslid")                 \
	X(F_DR_DLID, "infiniband.smpdirected.drdlid")                 \
	X(F_DR_INITPATH, "infiniband.smpdirected.initialpath")        \
	X(F_DR_RETPATH, "infiniband.smpdirected.returnpath")          \
	X(F_NI_NODETYPE, "infiniband.nodeinfo.nodetype")              \
	X(F_NI_NODEGUID, "infiniband.nodeinfo.nodeguid")              \
	X(F_NI_PORTGUID, "infiniband.nodeinfo.portguid")              \
	X(F_NI_PORTNUM, "infiniband.nodeinfo.localportnum")           \
	X(F_ND_STRING, "infiniband.nodedescription.nodestring")       \
	X(F_PI_GIDPREFIX, "infiniband.portinfo.guid")                 \
	X(F_PI_LID, "infiniband.portinfo.lid")                        \
	X(F_PI_SMLID, "infiniband.portinfo.mastersmlid")              \
	X(F_PI_STATE, "infiniband.portinfo.portstate")                \
	X(F_RMPP_VER, "infiniband.rmpp.rmppversion")                  \
	X(F_RMPP_TYPE, "infiniband.rmpp.rmpptype")                    \
	X(F_RMPP_RTIME, "infiniband.rmpp.rresptime")                  \
	X(F_RMPP_FLAGS, "infiniband.rmpp.rmppflags")                  \
	X(F_RMPP_STATUS, "infiniband.rmpp.rmppstatus")                \
	X(F_RMPP_SEG, "infiniband.rmpp.segmentnumber")                \
	X(F_RMPP_PAYLEN, "infiniband.rmpp.payloadlength")             \
	X(F_RMPP_NWL, "infiniband.rmpp.newwindowlast")                \
	X(F_SA_ATTROFF, "infiniband.sa.attributeoffset")              \
	X(F_SA_COMPMASK, "infiniband.sa.componentmask")               \
	X(F_SA_LID, "infiniband.sa.lid")                              \
	X(F_PR_DGID, "infiniband.pathrecord.dgid")                    \
	X(F_PR_SGID, "infiniband.pathrecord.sgid")                    \
	X(F_PR_DLID, "infiniband.pathrecord.dlid")                    \
	X(F_PR_SLID, "infiniband.pathrecord.slid")                    \
	X(F_PR_REVERSIBLE, "infiniband.pathrecord.reversible")        \
	X(F_PR_PKEY, "infiniband.pathrecord.p_key")                   \
	X(F_PR_SL, "infiniband.pathrecord.sl")                        \
	X(F_PR_MTUSEL, "infiniband.pathrecord.mtuselector")           \
	X(F_PR_MTU, "infiniband.pathrecord.mtu")                      \
	X(F_PR_RATE, "infiniband.pathrecord.rate")                    \
	X(F_PR_PKTLIFE, "infiniband.pathrecord.packetlifetime")       \
	X(F_SR_ID, "infiniband.linkrecord.serviceid")                 \
	X(F_SR_GID, "infiniband.linkrecord.servicegid")               \
	X(F_SR_PKEY, "infiniband.linkrecord.servicep_key")            \
	X(F_SR_LEASE, "infiniband.linkrecord.servicelease")           \
	X(F_SR_NAME, "infiniband.linkrecord.servicename")             \
	X(F_MC_MGID, "infiniband.mcmemberrecord.mgid")                \
	X(F_MC_PORTGID, "infiniband.mcmemberrecord.portgid")          \
	X(F_MC_QKEY, "infiniband.mcmemberrecord.q_key")               \
	X(F_MC_MLID, "infiniband.mcmemberrecord.mlid")                \
	X(F_MC_MTU, "infiniband.mcmemberrecord.mtu")                  \
	X(F_MC_PKEY, "infiniband.mcmemberrecord.p_key")               \
	X(F_MC_SCOPE, "infiniband.mcmemberrecord.scope")              \
	X(F_MC_JOINSTATE, "infiniband.mcmemberrecord.joinstate")

TSHARK_DECLARE_ROWS(FIELDS);
static int n_records = -1; /* records in the capture file */

/* The first occurrence of a field, copied to @p buf. */
static const char *sval(int r, int f, char *buf, size_t cap)
{
	const char *v = rows[r].v[f] ? rows[r].v[f] : "";
	size_t n = strcspn(v, "|");

	if (n >= cap)
		n = cap - 1;
	memcpy(buf, v, n);
	buf[n] = '\0';
	return buf;
}

/* The first occurrence of a numeric field; -1 if absent or not a number. */
static long long num(int r, int f)
{
	return tshark_num(rows[r].v[f]);
}

/* A 64-bit field, compared as unsigned. */
static int num64_is(int r, int f, uint64_t expect)
{
	return tshark_u64_is(rows[r].v[f], expect);
}

static int str_is(int r, int f, const char *expect)
{
	char buf[512];

	return strcmp(sval(r, f, buf, sizeof(buf)), expect) == 0;
}

static uint64_t tid_of(int r)
{
	const char *v = rows[r].v[F_TID] ? rows[r].v[F_TID] : "";

	return strtoull(v, NULL, 0);
}

static int is_mad(int r, int mclass, int method, ib_net16_t attr)
{
	return num(r, F_CLASS) == mclass && num(r, F_METHOD) == method &&
	       num(r, F_ATTR) == cl_ntoh16(attr);
}

/* The byte holding RRespTime and RMPPFlags, from the dissector's two fields. */
static int rmpp_byte(int r)
{
	long long rt = num(r, F_RMPP_RTIME), fl = num(r, F_RMPP_FLAGS);

	if (rt < 0 || fl < 0)
		return -1;
	return (int)(fl > 7 ? (rt << 4) | fl : (rt << 3) | fl); /* 4/4 or 5/3 split */
}

static void gid_str(const ib_gid_t *p_gid, char *buf)
{
	inet_ntop(AF_INET6, p_gid->raw, buf, INET6_ADDRSTRLEN);
}

static void hex_str(const void *p, size_t n, char *buf)
{
	const uint8_t *b = (const uint8_t *)p;
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(buf + 2 * i, "%02x", b[i]);
	buf[2 * n] = '\0';
}

static int run_tshark(const char *path)
{
	int n;

	rows = (row_t *)tshark_run_rows(rows, path, field_names, N_FIELDS, sizeof(row_t), &n);
	return n;
}

static void free_rows(void)
{
	tshark_free_rows(rows, n_rows, N_FIELDS, sizeof(row_t));
	rows = NULL;
}

/* Records of the capture file (classic pcap, link type ERF); -1 if it is not one. */
static int count_records(const char *path)
{
	uint32_t len;
	int swap, n = 0;
	FILE *f = tshark_pcap_open_erf(path, &swap);

	if (!f)
		return -1;
	while (tshark_pcap_next(f, swap, &len)) {
		if (fseek(f, (long)len, SEEK_CUR) != 0)
			break;
		n++;
	}
	fclose(f);
	return n;
}

static void dump_rows(void)
{
	int r;
	unsigned f;

	for (r = 0; r < n_rows; r++)
		for (f = 0; f < N_FIELDS; f++)
			if (rows[r].v[f] && rows[r].v[f][0])
				printf("%d %s = %s\n", r + 1, field_names[f], rows[r].v[f]);
}

/* ------------------------------------------------------------------------ */
/* Helpers over the decoded packets                                          */
/* ------------------------------------------------------------------------ */

/* The distinct TIDs of the requests matching (class, method, attr). */
static int request_tids(int mclass, int method, ib_net16_t attr, uint64_t *tids, int cap)
{
	int r, k, n = 0;

	for (r = 0; r < n_rows; r++) {
		uint64_t t;

		if (!is_mad(r, mclass, method, attr) || num(r, F_RMPP_TYPE) > 1)
			continue;
		t = tid_of(r);
		for (k = 0; k < n && tids[k] != t; k++)
			;
		if (k == n && n < cap)
			tids[n++] = t;
	}
	return n;
}

/* Each of the GMP's packets goes between QP1s on VL0 with the GSI Q_Key. */
static void check_gmp_addressing(int r, uint16_t slid, uint16_t dlid)
{
	CU_ASSERT_EQUAL(num(r, F_SLID), slid);
	CU_ASSERT_EQUAL(num(r, F_DLID), dlid);
	CU_ASSERT_EQUAL(num(r, F_VL), 0);
	CU_ASSERT_EQUAL(num(r, F_DESTQP), 1);
	CU_ASSERT_EQUAL(num(r, F_SRCQP), 1);
	CU_ASSERT_EQUAL(num(r, F_QKEY), cl_ntoh32(IB_QP1_WELL_KNOWN_Q_KEY));
	CU_ASSERT_EQUAL(num(r, F_CLASSVER), 2);
}

/*
 * The SA request/response pairs of one TID: requests from the port of LID
 * @p client to the SA, responses (GetResp to a Set, else the method with
 * the R bit) back with status 0. *p_req and *p_resp get the first of each.
 */
static void check_exchange(uint64_t tid, int method, ib_net16_t attr, uint16_t client,
			   int *p_req, int *p_resp)
{
	int resp_method = method == IB_MAD_METHOD_SET ? IB_MAD_METHOD_GET_RESP
						      : (method | IB_MAD_METHOD_RESP_MASK);
	int r;

	*p_req = *p_resp = -1;
	for (r = 0; r < n_rows; r++) {
		if (tid_of(r) != tid || num(r, F_CLASS) != IB_MCLASS_SUBN_ADM)
			continue;
		CU_ASSERT_EQUAL(num(r, F_ATTR), cl_ntoh16(attr));
		if (num(r, F_METHOD) == method) {
			check_gmp_addressing(r, client, S.sm_lid);
			if (*p_req < 0)
				*p_req = r;
		} else {
			CU_ASSERT_EQUAL(num(r, F_METHOD), resp_method);
			CU_ASSERT_EQUAL(num(r, F_STATUS), 0);
			check_gmp_addressing(r, S.sm_lid, client);
			if (*p_resp < 0)
				*p_resp = r;
		}
	}
	CU_ASSERT(*p_req >= 0);
	CU_ASSERT(*p_resp >= 0);
}

/*
 * One GetTable of @p n_rec records of @p rec_size bytes, asked through the
 * port of LID @p client: the request, the DATA segments 1..N of the
 * GetTableResp and the client's ACKs. Returns the row of segment 1, or -1.
 */
static int check_rmpp_table(ib_net16_t attr, uint32_t rec_size, uint32_t n_rec, uint16_t client)
{
	uint32_t data = n_rec * rec_size;
	uint32_t n_seg = data ? (data + SA_DATA_LEN - 1) / SA_DATA_LEN : 1;
	uint32_t last_len = SA_AFTER_RMPP + data - (n_seg - 1) * SA_DATA_LEN;
	uint32_t seen = 0, n_ack = 0, acked_last = 0, acked_first = 0, s;
	uint64_t tid;
	int r, first = -1, n;

	n = request_tids(IB_MCLASS_SUBN_ADM, IB_MAD_METHOD_GETTABLE, attr, &tid, 1);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_FATAL(n_seg >= 2 && n_seg <= 32);
	for (r = 0; r < n_rows; r++) {
		if (tid_of(r) != tid || num(r, F_CLASS) != IB_MCLASS_SUBN_ADM)
			continue;
		CU_ASSERT_EQUAL(num(r, F_ATTR), cl_ntoh16(attr));
		CU_ASSERT_EQUAL(num(r, F_SA_ATTROFF), rec_size / 8); /* every segment has the SA header */
		switch (num(r, F_RMPP_TYPE)) {
		case 0: /* the request */
			CU_ASSERT_EQUAL(num(r, F_METHOD), IB_MAD_METHOD_GETTABLE);
			CU_ASSERT_EQUAL(rmpp_byte(r) & IB_RMPP_FLAG_ACTIVE, 0);
			check_gmp_addressing(r, client, S.sm_lid);
			break;
		case IB_RMPP_TYPE_DATA:
			s = (uint32_t)num(r, F_RMPP_SEG);
			CU_ASSERT_EQUAL(num(r, F_METHOD), IB_MAD_METHOD_GETTABLE_RESP);
			CU_ASSERT_EQUAL(num(r, F_STATUS), 0);
			CU_ASSERT_EQUAL(num(r, F_RMPP_VER), 1);
			CU_ASSERT_EQUAL(num(r, F_RMPP_STATUS), 0);
			check_gmp_addressing(r, S.sm_lid, client);
			CU_ASSERT_FATAL(s >= 1 && s <= n_seg);
			seen |= 1u << (s - 1);
			/* RRespTime 0x1F ("none given"), then Active, First on 1, Last on N. */
			CU_ASSERT_EQUAL(rmpp_byte(r),
					(IB_RMPP_NO_RESP_TIME << 3) | IB_RMPP_FLAG_ACTIVE |
						(s == 1 ? IB_RMPP_FLAG_FIRST : 0) |
						(s == n_seg ? IB_RMPP_FLAG_LAST : 0));
			/* PayloadLength: the whole transfer on 1, its own part on N, else 0. */
			if (s == 1) {
				CU_ASSERT_EQUAL(num(r, F_RMPP_PAYLEN),
						(n_seg - 1) * (SA_DATA_LEN + SA_AFTER_RMPP) + last_len);
			} else if (s == n_seg) {
				CU_ASSERT_EQUAL(num(r, F_RMPP_PAYLEN), last_len);
			} else {
				CU_ASSERT_EQUAL(num(r, F_RMPP_PAYLEN), 0);
			}
			if (s == 1 && first < 0)
				first = r;
			break;
		case IB_RMPP_TYPE_ACK:
			s = (uint32_t)num(r, F_RMPP_SEG);
			n_ack++;
			/* The ACK copies the DATA's class header with the R bit cleared. */
			CU_ASSERT_EQUAL(num(r, F_METHOD), IB_MAD_METHOD_GETTABLE);
			CU_ASSERT_EQUAL(num(r, F_RMPP_VER), 1);
			CU_ASSERT_EQUAL(num(r, F_RMPP_STATUS), 0);
			CU_ASSERT_EQUAL(rmpp_byte(r) & 7, IB_RMPP_FLAG_ACTIVE);
			check_gmp_addressing(r, client, S.sm_lid);
			CU_ASSERT(s >= 1 && s <= n_seg);
			CU_ASSERT(num(r, F_RMPP_NWL) >= (long long)s);
			if (s == 1)
				acked_first = 1;
			if (s == n_seg)
				acked_last = 1;
			break;
		default:
			CU_FAIL("STOP or ABORT in a clean transfer");
		}
	}
	CU_ASSERT_EQUAL(seen, (n_seg == 32 ? 0 : (1u << n_seg)) - 1u);
	CU_ASSERT(n_ack >= 2);
	CU_ASSERT(acked_first); /* the sender's window starts at 1 */
	CU_ASSERT(acked_last);
	CU_ASSERT(first >= 0);
	return first;
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                     */
/* ------------------------------------------------------------------------ */

/* Runs the traffic through the public calls, then decodes its capture. */
static void test_scenario(void)
{
	ib_al_handle_t h_al;
	ib_ca_handle_t h_ca[2];
	ib_reg_svc_handle_t h_reg[NSVC];
	ib_mcast_handle_t h_mc;
	size_t n = 2;
	int i;

	make_fabric();
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, S.ca_guid, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, S.ca_guid[i], NULL, NULL, &h_ca[i]),
				      IB_SUCCESS);
		read_port(h_ca[i], i);
		CU_ASSERT_EQUAL_FATAL(S.port[i].link_state, IB_LINK_ACTIVE);
	}
	/* The embedded SM runs on the first soft port the process opened. */
	S.sm_lid = cl_ntoh16(S.port[0].sm_lid);
	CU_ASSERT_EQUAL_FATAL(S.sm_lid, S.lid[0]);
	CU_ASSERT_EQUAL(cl_ntoh16(S.port[1].sm_lid), S.sm_lid);
	CU_ASSERT_FATAL(wait_sa_knows(h_al, 0));
	CU_ASSERT_FATAL(wait_sa_knows(h_al, 1));

	run_reg_svc(h_al, h_reg);
	run_queries(h_al);
	run_join(&h_mc);

	CU_ASSERT_EQUAL(ib_leave_mcast(h_mc, ib_sync_destroy), IB_SUCCESS);
	for (i = 0; i < NSVC; i++)
		CU_ASSERT_EQUAL(ib_dereg_svc(h_reg[i], ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	al_sa_quiesce();
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);

	n_records = count_records(pcap_path);
	n_rows = run_tshark(pcap_path);
	if (getenv("IBAL_TSHARK_DUMP") && n_rows > 0)
		dump_rows();
	if (pcap_path[0] && strncmp(pcap_path, fab_dir, strlen(fab_dir)) != 0)
		printf("capture kept in %s\n", pcap_path);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
	unsetenv("IBAL_SOFT_PCAP");
	CU_ASSERT(n_records > 0);
	CU_ASSERT_EQUAL(n_rows, n_records);
}

#define EXPERT_WARN      0x00600000u /* PI_WARN; PI_ERROR is above */
#define EXPERT_UNDECODED 0x05000000u /* PI_UNDECODED */

/*
 * Expert items of severity warning or error on packet r. Wireshark does not
 * reassemble RMPP: it decodes the data of every segment as if a record began
 * there, so in DATA segments after the first a record field (a NodeString cut
 * in the middle of a record) may be "undecoded": those warnings do not count.
 */
static int expert_complaints(int r)
{
	const char *sev = rows[r].v[F_EXPERT_SEV] ? rows[r].v[F_EXPERT_SEV] : "";
	const char *grp = rows[r].v[F_EXPERT_GROUP] ? rows[r].v[F_EXPERT_GROUP] : "";
	int continuation = num(r, F_RMPP_TYPE) == IB_RMPP_TYPE_DATA && num(r, F_RMPP_SEG) > 1;
	int n = 0;
	char *end, *gend;

	while (*sev) {
		unsigned long s = strtoul(sev, &end, 0);
		unsigned long g = strtoul(grp, &gend, 0);

		if (end == sev)
			return n + 1;
		if (s >= EXPERT_WARN &&
		    !(continuation && s == EXPERT_WARN && g == EXPERT_UNDECODED))
			n++;
		sev = *end == '|' ? end + 1 : end;
		grp = *gend == '|' ? gend + 1 : gend;
	}
	return n;
}

/* Every record is an InfiniBand packet Wireshark decodes without complaint. */
static void test_all_decoded(void)
{
	int r, n_smp = 0, n_sa = 0;

	CU_ASSERT_FATAL(n_rows > 0);
	for (r = 0; r < n_rows; r++) {
		CU_ASSERT_EQUAL(num(r, F_ERF_TYPE), 21); /* INFINIBAND */
		CU_ASSERT_EQUAL(num(r, F_ERF_RXE), 0);   /* nothing dropped */
		CU_ASSERT_STRING_EQUAL(rows[r].v[F_MALFORMED] ? rows[r].v[F_MALFORMED] : "", "");
		if (expert_complaints(r))
			printf("\nframe %d: %s\n", r + 1, rows[r].v[F_EXPERT_MSG]);
		CU_ASSERT_EQUAL(expert_complaints(r), 0);
		CU_ASSERT_EQUAL(num(r, F_FRAME_LEN), MAD_PKT_LEN);
		CU_ASSERT_EQUAL(num(r, F_PKTLEN) * 4 + 2, MAD_PKT_LEN); /* LRH..ICRC in words, VCRC */
		CU_ASSERT_EQUAL(num(r, F_OPCODE), 0x64);                /* UD SEND Only */
		CU_ASSERT_EQUAL(num(r, F_PADCNT), 0);
		CU_ASSERT_EQUAL(num(r, F_BTH_PKEY), 0xFFFF);
		CU_ASSERT_EQUAL(num(r, F_BASEVER), 1);
		if (num(r, F_CLASS) == IB_MCLASS_SUBN_DIR)
			n_smp++;
		else if (num(r, F_CLASS) == IB_MCLASS_SUBN_ADM)
			n_sa++;
	}
	CU_ASSERT(n_smp >= 10); /* 5 requests and their answers, retries aside */
	CU_ASSERT(n_sa > 2 * NSVC);
	CU_ASSERT_EQUAL(n_smp + n_sa, n_rows);
}

/* Which of the two ports holds @p lid: 0, 1, or -1. */
static int port_of_lid(long long lid)
{
	return lid == S.lid[0] ? 0 : lid == S.lid[1] ? 1 : -1;
}

/* A 64-byte DR path, all zero but hop 1, as tshark prints it. */
static void dr_path_str(uint8_t hop1, char *buf)
{
	uint8_t path[64];

	memset(path, 0, sizeof(path));
	path[1] = hop1;
	hex_str(path, sizeof(path), buf);
}

/* The NodeDescription of the node holding @p lid, from the NodeRecords ib_query returned. */
static void node_desc_of(uint16_t lid, char desc[65])
{
	uint32_t i;

	desc[0] = '\0';
	for (i = 0; i < S.n_node; i++)
		if (cl_ntoh16(S.node[i].lid) == lid) {
			memcpy(desc, S.node[i].node_desc.description, 64);
			desc[64] = '\0';
		}
}

/* One directed-route SMP of one hop between the two ports (IBA 14.2.2). */
static void check_dr_smp(int r, int from, int *p_matched)
{
	char path[129];
	int to = 1 - from, k;
	long long method = num(r, F_METHOD);

	/* QP0 on VL15, to the permissive LID, Q_Key 0 */
	CU_ASSERT_EQUAL(num(r, F_VL), 15);
	CU_ASSERT_EQUAL(num(r, F_DLID), IB_LID_PERMISSIVE);
	CU_ASSERT_EQUAL(num(r, F_DESTQP), 0);
	CU_ASSERT_EQUAL(num(r, F_SRCQP), 0);
	CU_ASSERT_EQUAL(num(r, F_QKEY), 0);
	CU_ASSERT_EQUAL(num(r, F_CLASSVER), 1);
	/* One hop, directed route at both ends, status as in the common header */
	CU_ASSERT_EQUAL(num(r, F_DR_HOPCNT), 1);
	CU_ASSERT_EQUAL(num(r, F_DR_HOPPTR), 1);
	CU_ASSERT_EQUAL(num(r, F_DR_SLID), IB_LID_PERMISSIVE);
	CU_ASSERT_EQUAL(num(r, F_DR_DLID), IB_LID_PERMISSIVE);
	CU_ASSERT_EQUAL(num(r, F_DR_STATUS), num(r, F_STATUS));
	*p_matched = 0;
	if (method == IB_MAD_METHOD_GET || method == IB_MAD_METHOD_SET) {
		/* Out of the requester's port; no return path yet; D bit clear. */
		dr_path_str(S.port[from].port_num, path);
		CU_ASSERT_TRUE(str_is(r, F_DR_INITPATH, path));
		dr_path_str(0, path);
		CU_ASSERT_TRUE(str_is(r, F_DR_RETPATH, path));
		CU_ASSERT_EQUAL(num(r, F_DR_STATUS), 0);
		return;
	}
	/* The answer: D bit, status 0, paths as the request arrived. */
	CU_ASSERT_EQUAL(method, IB_MAD_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(num(r, F_DR_STATUS), 0x8000);
	dr_path_str(S.port[to].port_num, path);
	CU_ASSERT_TRUE(str_is(r, F_DR_INITPATH, path));
	dr_path_str(S.port[from].port_num, path); /* the port it came in by */
	CU_ASSERT_TRUE(str_is(r, F_DR_RETPATH, path));
	for (k = 0; k < r; k++)
		if (tid_of(k) == tid_of(r) && num(k, F_CLASS) == IB_MCLASS_SUBN_DIR &&
		    num(k, F_METHOD) != IB_MAD_METHOD_GET_RESP && num(k, F_ATTR) == num(r, F_ATTR) &&
		    num(k, F_SLID) == S.lid[to])
			*p_matched = 1;
	CU_ASSERT(*p_matched);
}

/*
 * The SM's sweep of the second port: directed-route SMPs of one hop. When
 * the first CA closes before the second, the second port's SM takes over
 * and sweeps too: those SMPs are checked the same way, from the other side.
 */
static void test_smp_sweep(void)
{
	char nd[65], buf[512];
	int r, from, matched, n_req = 0, n_resp = 0, first_armed = -1, first_active = -1;
	int got_ni = 0, got_nd = 0, got_pi = 0;

	CU_ASSERT_FATAL(n_rows > 0);
	for (r = 0; r < n_rows; r++) {
		long long method = num(r, F_METHOD);

		if (num(r, F_CLASS) != IB_MCLASS_SUBN_DIR)
			continue;
		from = port_of_lid(num(r, F_SLID));
		CU_ASSERT_FATAL(from >= 0);
		check_dr_smp(r, from, &matched);
		if (num(r, F_SLID) == S.sm_lid && method != IB_MAD_METHOD_GET_RESP)
			n_req++;
		if (matched && from == 1)
			n_resp++;
		switch (num(r, F_ATTR)) {
		case 0x0011: /* NodeInfo: the answering node's */
			if (method != IB_MAD_METHOD_GET_RESP)
				break;
			got_ni |= matched;
			CU_ASSERT_EQUAL(num(r, F_NI_NODETYPE), IB_NODE_TYPE_CA);
			CU_ASSERT_TRUE(num64_is(r, F_NI_NODEGUID, cl_ntoh64(S.ca_guid[from])));
			CU_ASSERT_TRUE(num64_is(r, F_NI_PORTGUID, cl_ntoh64(S.port[from].port_guid)));
			CU_ASSERT_EQUAL(num(r, F_NI_PORTNUM), S.port[from].port_num);
			break;
		case 0x0010: /* NodeDescription: as the SA's NodeRecord has it */
			if (method != IB_MAD_METHOD_GET_RESP)
				break;
			got_nd |= matched;
			node_desc_of(S.lid[from], nd);
			CU_ASSERT(nd[0] != '\0');
			CU_ASSERT_STRING_EQUAL(sval(r, F_ND_STRING, buf, sizeof(buf)), nd);
			break;
		case 0x0015: /* PortInfo: the SM sets the LID it found and itself as SM */
			if (method == IB_MAD_METHOD_GET_RESP)
				got_pi |= matched;
			if (method != IB_MAD_METHOD_SET)
				break;
			CU_ASSERT_EQUAL(num(r, F_PI_LID), S.lid[1 - from]);
			CU_ASSERT_EQUAL(num(r, F_PI_SMLID), S.lid[from]);
			CU_ASSERT_TRUE(num64_is(r, F_PI_GIDPREFIX, 0xFE80000000000000ull));
			if (num(r, F_SLID) != S.sm_lid)
				break;
			if (num(r, F_PI_STATE) == IB_LINK_ARMED && first_armed < 0)
				first_armed = r;
			if (num(r, F_PI_STATE) == IB_LINK_ACTIVE && first_active < 0)
				first_active = r;
			break;
		default:
			CU_FAIL("an SMP attribute the sweep does not use");
		}
	}
	/* Get NodeInfo, NodeDescription, PortInfo; Set PortInfo twice; all answered. */
	CU_ASSERT(n_req >= 5);
	CU_ASSERT(n_resp >= 5);
	CU_ASSERT(got_ni && got_nd && got_pi);
	/* Set PortInfo ARMED, then ACTIVE (IBA 14.2.5.6) */
	CU_ASSERT(first_armed >= 0);
	CU_ASSERT(first_active > first_armed);
}

/* PathRecord by LIDs: Get and GetResp, as queried and as ib_query returned. */
static void test_path_record(void)
{
	char sgid[INET6_ADDRSTRLEN], dgid[INET6_ADDRSTRLEN];
	uint64_t tid;
	int req, resp;

	CU_ASSERT_FATAL(n_rows > 0);
	CU_ASSERT_EQUAL_FATAL(S.n_path, 1);
	CU_ASSERT_EQUAL_FATAL(request_tids(IB_MCLASS_SUBN_ADM, IB_MAD_METHOD_GET,
					   IB_MAD_ATTR_PATH_RECORD, &tid, 1), 1);
	check_exchange(tid, IB_MAD_METHOD_GET, IB_MAD_ATTR_PATH_RECORD, S.lid[1], &req, &resp);
	CU_ASSERT_FATAL(req >= 0 && resp >= 0);

	/* The request: SLID and DLID, flagged in the component mask. */
	CU_ASSERT_EQUAL(num(req, F_SA_ATTROFF), sizeof(ib_path_rec_t) / 8);
	CU_ASSERT_EQUAL(num(req, F_SA_COMPMASK) & 0x30, 0x30); /* bits 4 DLID, 5 SLID */
	CU_ASSERT_EQUAL(num(req, F_PR_SLID), S.lid[1]);
	CU_ASSERT_EQUAL(num(req, F_PR_DLID), S.lid[0]);
	CU_ASSERT_EQUAL(num(req, F_RMPP_TYPE), 0);

	/* The answer: what ib_query handed back, field by field. */
	gid_str(&S.gid[1], sgid);
	gid_str(&S.gid[0], dgid);
	CU_ASSERT_EQUAL(num(resp, F_SA_ATTROFF), sizeof(ib_path_rec_t) / 8);
	CU_ASSERT_EQUAL(num(resp, F_PR_SLID), S.lid[1]);
	CU_ASSERT_EQUAL(num(resp, F_PR_DLID), S.lid[0]);
	CU_ASSERT_EQUAL(num(resp, F_PR_SLID), cl_ntoh16(S.path.slid));
	CU_ASSERT_EQUAL(num(resp, F_PR_DLID), cl_ntoh16(S.path.dlid));
	CU_ASSERT_TRUE(str_is(resp, F_PR_SGID, sgid));
	CU_ASSERT_TRUE(str_is(resp, F_PR_DGID, dgid));
	CU_ASSERT_EQUAL(num(resp, F_PR_PKEY), 0xFFFF);
	CU_ASSERT_EQUAL(num(resp, F_PR_PKEY), cl_ntoh16(S.path.pkey));
	CU_ASSERT_EQUAL(num(resp, F_PR_MTU), S.path.mtu & 0x3F);
	CU_ASSERT_EQUAL(num(resp, F_PR_MTUSEL), S.path.mtu >> 6);
	CU_ASSERT_EQUAL(num(resp, F_PR_MTU),
			S.port[0].mtu < S.port[1].mtu ? S.port[0].mtu : S.port[1].mtu);
	CU_ASSERT_EQUAL(num(resp, F_PR_RATE), S.path.rate & 0x3F);
	CU_ASSERT_EQUAL(num(resp, F_PR_PKTLIFE), S.path.pkt_life & 0x3F);
	CU_ASSERT_EQUAL(num(resp, F_PR_SL), cl_ntoh16(S.path.qos_class_sl) & 0xF);
	CU_ASSERT_EQUAL(num(resp, F_PR_REVERSIBLE), S.path.num_path >> 7);
}

/* GetTable of every NodeRecord: two or more records, two or more RMPP segments. */
static void test_node_table(void)
{
	char buf[512], desc[65];
	uint32_t i;
	int r, k, found;

	CU_ASSERT_FATAL(n_rows > 0);
	CU_ASSERT_FATAL(S.n_node >= 2 && S.n_node < MAX_NODES);
	for (k = 0; k < 2; k++) {
		for (i = 0, found = 0; i < S.n_node; i++)
			found += S.node[i].node_info.node_guid == S.ca_guid[k];
		CU_ASSERT_EQUAL(found, 1);
	}
	r = check_rmpp_table(IB_MAD_ATTR_NODE_RECORD, sizeof(ib_node_record_t), S.n_node, S.lid[0]);
	CU_ASSERT_FATAL(r >= 0);
	/* Segment 1 starts with the first record ib_query returned. */
	memcpy(desc, S.node[0].node_desc.description, 64);
	desc[64] = '\0';
	CU_ASSERT_EQUAL(num(r, F_SA_LID), cl_ntoh16(S.node[0].lid));
	CU_ASSERT_TRUE(num64_is(r, F_NI_NODEGUID, cl_ntoh64(S.node[0].node_info.node_guid)));
	CU_ASSERT_TRUE(num64_is(r, F_NI_PORTGUID, cl_ntoh64(S.node[0].node_info.port_guid)));
	CU_ASSERT_EQUAL(num(r, F_NI_NODETYPE), S.node[0].node_info.node_type);
	CU_ASSERT_STRING_EQUAL(sval(r, F_ND_STRING, buf, sizeof(buf)), desc);
}

/* GetTable of every ServiceRecord: NSVC records, nine RMPP segments. */
static void test_service_table(void)
{
	char name[2 * 64 + 1];
	int r;

	CU_ASSERT_FATAL(n_rows > 0);
	CU_ASSERT_EQUAL_FATAL(S.n_svc_table, NSVC);
	r = check_rmpp_table(IB_MAD_ATTR_SERVICE_RECORD, sizeof(ib_service_record_t), NSVC,
			     S.lid[1]);
	CU_ASSERT_FATAL(r >= 0);
	hex_str(S.svc_table0.service_name, sizeof(ib_svc_name_t), name);
	CU_ASSERT_TRUE(num64_is(r, F_SR_ID, cl_ntoh64(S.svc_table0.service_id)));
	CU_ASSERT_TRUE(str_is(r, F_SR_NAME, name));
}

/* ib_reg_svc: Set(ServiceRecord) and its GetResp, NSVC times. */
static void test_service_set(void)
{
	char name[2 * 64 + 1], gid[INET6_ADDRSTRLEN];
	uint64_t tids[NSVC + 1];
	int i, k, req, resp;

	CU_ASSERT_FATAL(n_rows > 0);
	CU_ASSERT_EQUAL_FATAL(request_tids(IB_MCLASS_SUBN_ADM, IB_MAD_METHOD_SET,
					   IB_MAD_ATTR_SERVICE_RECORD, tids, NSVC + 1),
			      NSVC);
	gid_str(&S.gid[1], gid);
	for (i = 0; i < NSVC; i++) {
		uint64_t id = SVC_ID_BASE + (uint64_t)i;
		int found = -1;

		for (k = 0; k < NSVC; k++) {
			int r;

			for (r = 0; r < n_rows && found < 0; r++)
				if (tid_of(r) == tids[k] && num64_is(r, F_SR_ID, id))
					found = k;
		}
		CU_ASSERT_FATAL(found >= 0);
		check_exchange(tids[found], IB_MAD_METHOD_SET, IB_MAD_ATTR_SERVICE_RECORD,
			       S.lid[1], &req, &resp);
		CU_ASSERT_FATAL(req >= 0 && resp >= 0);
		hex_str(S.svc[i].service_name, sizeof(ib_svc_name_t), name);
		/* Default component mask: ID, GID, P_Key, lease, key, name. */
		CU_ASSERT_TRUE(num64_is(req, F_SA_COMPMASK,
					cl_ntoh64(IB_SR_COMPMASK_SID | IB_SR_COMPMASK_SGID |
						  IB_SR_COMPMASK_SPKEY | IB_SR_COMPMASK_SLEASE |
						  IB_SR_COMPMASK_SKEY | IB_SR_COMPMASK_SNAME)));
		CU_ASSERT_EQUAL(num(req, F_SA_ATTROFF), sizeof(ib_service_record_t) / 8);
		for (k = 0; k < 2; k++) {
			int r = k ? resp : req;

			CU_ASSERT_TRUE(num64_is(r, F_SR_ID, id));
			CU_ASSERT_TRUE(str_is(r, F_SR_NAME, name));
			CU_ASSERT_TRUE(str_is(r, F_SR_GID, gid));
			CU_ASSERT_EQUAL(num(r, F_SR_PKEY), 0xFFFF);
			CU_ASSERT_EQUAL(num(r, F_SR_LEASE), 0xFFFFFFFFll);
		}
	}
}

/* ib_join_mcast_no_qp: Set(MCMemberRecord) creating the group, and its GetResp. */
static void test_mcmember_set(void)
{
	char mgid[INET6_ADDRSTRLEN], pgid[INET6_ADDRSTRLEN];
	uint64_t tid;
	int req, resp;
	uint64_t need = cl_ntoh64(IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID |
				  IB_MCR_COMPMASK_JOIN_STATE);

	CU_ASSERT_FATAL(n_rows > 0);
	CU_ASSERT_EQUAL_FATAL(request_tids(IB_MCLASS_SUBN_ADM, IB_MAD_METHOD_SET,
					   IB_MAD_ATTR_MCMEMBER_RECORD, &tid, 1), 1);
	check_exchange(tid, IB_MAD_METHOD_SET, IB_MAD_ATTR_MCMEMBER_RECORD, S.lid[0], &req, &resp);
	CU_ASSERT_FATAL(req >= 0 && resp >= 0);
	gid_str(&S.mc_req.mgid, mgid);
	gid_str(&S.gid[0], pgid);
	CU_ASSERT_STRING_EQUAL(mgid, "ff12:401b::7e57");

	CU_ASSERT_EQUAL((uint64_t)num(req, F_SA_COMPMASK) & need, need);
	CU_ASSERT_EQUAL(num(req, F_SA_ATTROFF), sizeof(ib_member_rec_t) / 8);
	CU_ASSERT_TRUE(str_is(req, F_MC_MGID, mgid));
	CU_ASSERT_TRUE(str_is(req, F_MC_PORTGID, pgid));
	CU_ASSERT_EQUAL(num(req, F_MC_QKEY), MC_QKEY);
	CU_ASSERT_EQUAL(num(req, F_MC_PKEY), 0xFFFF);
	CU_ASSERT_EQUAL(num(req, F_MC_JOINSTATE), 1); /* FullMember */

	CU_ASSERT_TRUE(str_is(resp, F_MC_MGID, mgid));
	CU_ASSERT_TRUE(str_is(resp, F_MC_PORTGID, pgid));
	CU_ASSERT_EQUAL(num(resp, F_MC_QKEY), MC_QKEY);
	CU_ASSERT_EQUAL(num(resp, F_MC_MLID), cl_ntoh16(S.mc_resp.mlid));
	CU_ASSERT(num(resp, F_MC_MLID) >= 0xC000);
	CU_ASSERT_EQUAL(num(resp, F_MC_MTU), S.mc_resp.mtu & 0x3F);
	CU_ASSERT_EQUAL(num(resp, F_MC_PKEY), 0xFFFF);
	CU_ASSERT_EQUAL(num(resp, F_MC_SCOPE), 2); /* the MGID's: link-local */
	CU_ASSERT_EQUAL(num(resp, F_MC_SCOPE), S.mc_resp.scope_state >> 4);
	CU_ASSERT_EQUAL(num(resp, F_MC_JOINSTATE), 1);
}

/* The teardown: Delete(ServiceRecord) per registration, Delete(MCMemberRecord) for the join. */
static void test_teardown_deletes(void)
{
	uint64_t tids[NSVC + 1];
	char mgid[INET6_ADDRSTRLEN];
	int i, n, req, resp;

	CU_ASSERT_FATAL(n_rows > 0);
	n = request_tids(IB_MCLASS_SUBN_ADM, IB_MAD_METHOD_DELETE, IB_MAD_ATTR_SERVICE_RECORD, tids,
			 NSVC + 1);
	CU_ASSERT_EQUAL(n, NSVC);
	for (i = 0; i < n; i++)
		check_exchange(tids[i], IB_MAD_METHOD_DELETE, IB_MAD_ATTR_SERVICE_RECORD, S.lid[1],
			       &req, &resp);
	n = request_tids(IB_MCLASS_SUBN_ADM, IB_MAD_METHOD_DELETE, IB_MAD_ATTR_MCMEMBER_RECORD,
			 tids, NSVC + 1);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	check_exchange(tids[0], IB_MAD_METHOD_DELETE, IB_MAD_ATTR_MCMEMBER_RECORD, S.lid[0], &req,
		       &resp);
	CU_ASSERT_FATAL(req >= 0 && resp >= 0);
	gid_str(&S.mc_req.mgid, mgid);
	CU_ASSERT_TRUE(str_is(req, F_MC_MGID, mgid));
	CU_ASSERT_EQUAL(num(req, F_MC_JOINSTATE), 1);
	CU_ASSERT_EQUAL(num(resp, F_MC_MLID), cl_ntoh16(S.mc_resp.mlid));
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_scenario),
	TEST_ENTRY(test_all_decoded),
	TEST_ENTRY(test_smp_sweep),
	TEST_ENTRY(test_path_record),
	TEST_ENTRY(test_node_table),
	TEST_ENTRY(test_service_table),
	TEST_ENTRY(test_service_set),
	TEST_ENTRY(test_mcmember_set),
	TEST_ENTRY(test_teardown_deletes),
};

int main(void)
{
	int rc;

	if (system("tshark -v >/dev/null 2>&1") != 0) {
		printf("tshark not found: skipped\n");
		return 77;
	}
	rc = test_run_suite("soft_sa_tshark", tests, TEST_COUNT(tests));
	free_rows();
	return rc;
}
