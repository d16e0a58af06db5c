/*
 * ibal tests: the eleven CM messages as al_cm_pack writes them, sent between two soft CAs and decoded by Wireshark.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Two soft CAs in one process (IBAL_SOFT_CAS=2) on a fabric directory of
 * their own, with IBAL_SOFT_PCAP capturing every packet (ERF records of
 * type InfiniBand). Through the public MAD calls only (ib_get_spl_qp with
 * IB_QPT_QP1_ALIAS, ib_reg_mad_svc for class 0x07 version 2, ib_send_mad),
 * CA 0 sends one MAD of each CM message type, built by al_cm_pack with
 * distinctive values, to CA 1's QP1; CA 1 receives each and al_cm_unpack
 * must give back what was sent. One `tshark -T fields` run decodes the
 * capture, and the capture file itself is read for the raw MAD bytes.
 *
 * For every CM packet of the capture the checks are (check_cm_packet()):
 *  - Wireshark's MAD header fields (class 7, version 2, Send, attribute);
 *  - no malformed packet and no expert warning;
 *  - al_cm_unpack of the raw bytes gives the message sent;
 *  - the fields Wireshark 4.0 decodes equal the message's (check_row());
 *  - the bytes of fields Wireshark does not decode, or misreads, equal
 *    the message's at the offsets of the IBA tables (check_raw()).
 *
 * Where Wireshark 4.0's dissector (packet-infiniband.c) falls short:
 *  - It decodes only REQ, REP, RTU, REJ, DREQ and DREP. MRA, SIDR_REQ,
 *    SIDR_REP, LAP and APR are shown as "(Dissector Not Implemented)"
 *    with their attribute name in the Info column: their fields are
 *    checked in the raw bytes.
 *  - REQ primary/alternate Flow Label and Packet Rate: the dissector adds
 *    the flow label as a 3-byte item with the 32-bit mask 0xFFFFF000, so
 *    it shows the label's upper 12 bits only (0xABCDE reads 0xabc), and
 *    the packet rate as one byte at the flow label's first byte with mask
 *    0x3F (it shows the low 6 bits of byte 88, resp. 132). Both are
 *    checked in the raw bytes (flow label: bits 31..12 of bytes 88..91,
 *    resp. 132..135; packet rate: the low 6 bits of byte 91, resp. 135);
 *    Wireshark's values must be either the right ones or these misreadings
 *    (ws_flow_label_ok(), ws_rate_ok()), so a third reading still fails.
 *  - The DREQ's Remote QPN is named infiniband.cm.req.remoteqpneecn.
 *  - Not Wireshark: the MAD layer replaces the upper 32 bits of a request
 *    TID on an IB_MAD_SVC_DEFAULT service with the service's client id
 *    (docs/mad.md), so the packets are matched by the lower 32 bits and
 *    checked against the TID the send callback shows.
 *
 * Second scenario (test_handshake): the CM itself. CA 1 listens
 * (ib_cm_listen), CA 0 connects an RC QP (ib_cm_req), CA 1 answers
 * (ib_cm_rep), CA 0 sends ib_cm_rtu, then ib_cm_dreq and CA 1 ib_cm_drep;
 * no MAD service of the test's own is registered (the CM owns class 7).
 * Every CM packet of the capture goes through check_cm_packet() with the
 * message unpacked from its raw bytes (Wireshark agrees, no complaint),
 * and the first REQ, REP, RTU, DREQ and DREP carry what the calls asked
 * for: service ID, CA GUIDs, QPNs, LIDs and GIDs of the path, resp_res,
 * initiator depth, timeouts, retry counts, flow control, and the private
 * data (the given bytes, zero after them); comm IDs pair up across them,
 * and so do TIDs: REP and RTU carry the REQ's TID, the DREP the DREQ's
 * (the CM's MAD service is IB_MAD_SVC_RAW: TIDs go out as the CM made
 * them), so Wireshark pairs each request with its answer.
 *
 * Without tshark on PATH the program exits 77 (skipped).
 * IBAL_TSHARK_KEEP=<file> keeps the capture in <file> (replaced).
 * IBAL_TSHARK_DUMP=1 prints every decoded field.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "tshark_test.h"
#include "al_cm_wire.h"
#include "al_cm.h"
#include "al_sa_client.h"

/* ------------------------------------------------------------------------ */
/* The fabric and the capture                                                 */
/* ------------------------------------------------------------------------ */

#define MAX_PKTS 4096

static char fab_dir[64];
static char pcap_path[600];

/* One CA's side: its port, QP1 alias and CM-class MAD service. */
typedef struct side {
	ib_ca_handle_t ca;
	ib_pd_handle_t pd;
	ib_net64_t ca_guid;
	ib_net64_t port_guid;
	ib_net16_t lid;
	ib_gid_t gid;
	ib_qp_handle_t qp;
	ib_pool_key_t key;
	ib_mad_svc_handle_t svc;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int n_send, n_recv, bad;
	ib_mad_element_t *recvd[AL_CM_MSG_COUNT * 2];
} side_t;

static side_t side[2];

/* A packet of the capture: its MAD (if it carries one), raw. */
typedef struct {
	int has_mad;
	uint8_t mad[MAD_BLOCK_SIZE];
} raw_pkt_t;

static raw_pkt_t *raw;
static int n_raw = -1;

static void make_fabric(const char *tag)
{
	snprintf(fab_dir, sizeof(fab_dir), "/tmp/ibal-cmtshark-%s-XXXXXX", tag);
	CU_ASSERT_EQUAL_FATAL(tshark_capture_env(fab_dir, pcap_path, sizeof(pcap_path), "cm.pcap"), 0);
}

/*
 * Reads the capture (classic pcap, link type ERF, records of type
 * InfiniBand): for each record, the MAD after LRH [GRH] BTH DETH when the
 * packet is a UD send to QP0/QP1. Returns the records read, -1 on a format error.
 */
static int read_capture(const char *path)
{
	uint8_t buf[4096];
	uint32_t len;
	int swap, n = 0;
	FILE *f = tshark_pcap_open_erf(path, &swap);

	if (!f)
		return -1;
	raw = (raw_pkt_t *)calloc(MAX_PKTS, sizeof(raw_pkt_t));
	while (n < MAX_PKTS && tshark_pcap_next(f, swap, &len)) {
		const uint8_t *p = buf + 16; /* after the ERF header */
		size_t off;

		if (len > sizeof(buf) || len < 16 || fread(buf, len, 1, f) != 1)
			break;
		if (buf[8] != 21) { /* ERF type InfiniBand */
			n++;
			continue;
		}
		off = 8;                       /* LRH */
		if ((p[1] & 3) == 3)
			off += 40;             /* GRH */
		/* BTH opcode 0x64: UD Send Only; then DETH, then the MAD. */
		if ((p[1] & 3) >= 2 && len >= 16 + off + 12 + 8 + MAD_BLOCK_SIZE && p[off] == 0x64) {
			raw[n].has_mad = 1;
			memcpy(raw[n].mad, p + off + 12 + 8, MAD_BLOCK_SIZE);
		}
		n++;
	}
	fclose(f);
	return n;
}

/* ------------------------------------------------------------------------ */
/* tshark                                                                     */
/* ------------------------------------------------------------------------ */

#define FIELDS(X)                                                     \
	X(F_INFO, "_ws.col.Info")                                     \
	X(F_MALFORMED, "_ws.malformed")                               \
	X(F_EXPERT_SEV, "_ws.expert.severity")                        \
	X(F_EXPERT_MSG, "_ws.expert.message")                         \
	X(F_DESTQP, "infiniband.bth.destqp")                          \
	X(F_QKEY, "infiniband.deth.q_key")                            \
	X(F_SRCQP, "infiniband.deth.srcqp")                           \
	X(F_CLASS, "infiniband.mad.mgmtclass")                        \
	X(F_CLASSVER, "infiniband.mad.classversion")                  \
	X(F_METHOD, "infiniband.mad.method")                          \
	X(F_TID, "infiniband.mad.transactionid")                      \
	X(F_ATTR, "infiniband.mad.attributeid")                       \
	X(F_REQ_LCID, "infiniband.cm.req")                            \
	X(F_REQ_SID, "infiniband.cm.req.serviceid")                   \
	X(F_REQ_GUID, "infiniband.cm.req.localcaguid")                \
	X(F_REQ_QKEY, "infiniband.cm.req.localqkey")                  \
	X(F_REQ_QPN, "infiniband.cm.req.localqpn")                    \
	X(F_REQ_RESPRES, "infiniband.cm.req.responderres")            \
	X(F_REQ_LEECN, "infiniband.cm.req.localeecn")                 \
	X(F_REQ_INITDEPTH, "infiniband.cm.req.initdepth")             \
	X(F_REQ_REECN, "infiniband.cm.req.remoteeecn")                \
	X(F_REQ_RTO, "infiniband.cm.req.remoteresptout")              \
	X(F_REQ_TRANSP, "infiniband.cm.req.transpsvctype")            \
	X(F_REQ_E2E, "infiniband.cm.req.e2eflowctrl")                 \
	X(F_REQ_PSN, "infiniband.cm.req.startpsn")                    \
	X(F_REQ_LTO, "infiniband.cm.req.localresptout")               \
	X(F_REQ_RETRY, "infiniband.cm.req.retrcount")                 \
	X(F_REQ_PKEY, "infiniband.cm.req.pkey")                       \
	X(F_REQ_MTU, "infiniband.cm.req.pppmtu")                      \
	X(F_REQ_RDC, "infiniband.cm.req.rdcexist")                    \
	X(F_REQ_RNR, "infiniband.cm.req.rnrretrcount")                \
	X(F_REQ_MAXCM, "infiniband.cm.req.maxcmretr")                 \
	X(F_REQ_SRQ, "infiniband.cm.req.srq")                         \
	X(F_REQ_EXT, "infiniband.cm.req.ext_transport")               \
	X(F_REQ_P_LLID, "infiniband.cm.req.prim_locallid")            \
	X(F_REQ_P_RLID, "infiniband.cm.req.prim_remotelid")           \
	X(F_REQ_P_LGID, "infiniband.cm.req.prim_localgid")            \
	X(F_REQ_P_RGID, "infiniband.cm.req.prim_remotegid")           \
	X(F_REQ_P_FLOW, "infiniband.cm.req.prim_flowlabel")           \
	X(F_REQ_P_RATE, "infiniband.cm.req.prim_pktrate")             \
	X(F_REQ_P_TC, "infiniband.cm.req.prim_tfcclass")              \
	X(F_REQ_P_HOP, "infiniband.cm.req.prim_hoplim")               \
	X(F_REQ_P_SL, "infiniband.cm.req.prim_sl")                    \
	X(F_REQ_P_SUBNET, "infiniband.cm.req.prim_subnetlocal")       \
	X(F_REQ_P_ACKTO, "infiniband.cm.req.prim_localacktout")       \
	X(F_REQ_A_LLID, "infiniband.cm.req.alt_locallid")             \
	X(F_REQ_A_RLID, "infiniband.cm.req.alt_remotelid")            \
	X(F_REQ_A_LGID, "infiniband.cm.req.alt_localgid")             \
	X(F_REQ_A_RGID, "infiniband.cm.req.alt_remotegid")            \
	X(F_REQ_A_FLOW, "infiniband.cm.req.alt_flowlabel")            \
	X(F_REQ_A_RATE, "infiniband.cm.req.alt_pktrate")              \
	X(F_REQ_A_TC, "infiniband.cm.req.alt_tfcclass")               \
	X(F_REQ_A_HOP, "infiniband.cm.req.alt_hoplim")                \
	X(F_REQ_A_SL, "infiniband.cm.req.alt_sl")                     \
	X(F_REQ_A_SUBNET, "infiniband.cm.req.alt_subnetlocal")        \
	X(F_REQ_A_ACKTO, "infiniband.cm.req.alt_localacktout")        \
	X(F_REQ_PDATA, "infiniband.cm.req.private")                   \
	X(F_REP_LCID, "infiniband.cm.rep")                            \
	X(F_REP_RCID, "infiniband.cm.rep.remotecommid")               \
	X(F_REP_QKEY, "infiniband.cm.rep.localqkey")                  \
	X(F_REP_QPN, "infiniband.cm.rep.localqpn")                    \
	X(F_REP_EECN, "infiniband.cm.rep.localeecn")                  \
	X(F_REP_PSN, "infiniband.cm.rep.startpsn")                    \
	X(F_REP_RESPRES, "infiniband.cm.rep.respres")                 \
	X(F_REP_INITDEPTH, "infiniband.cm.rep.initdepth")             \
	X(F_REP_ACKDELAY, "infiniband.cm.rep.tgtackdelay")            \
	X(F_REP_FAILOVER, "infiniband.cm.rep.failoveracc")            \
	X(F_REP_E2E, "infiniband.cm.rep.e2eflowctrl")                 \
	X(F_REP_RNR, "infiniband.cm.rep.rnrretrcount")                \
	X(F_REP_SRQ, "infiniband.cm.rep.srq")                         \
	X(F_REP_GUID, "infiniband.cm.rep.localcaguid")                \
	X(F_REP_PDATA, "infiniband.cm.rep.private")                   \
	X(F_RTU_LCID, "infiniband.cm.rtu.localcommid")                \
	X(F_RTU_RCID, "infiniband.cm.rtu.remotecommid")               \
	X(F_RTU_PDATA, "infiniband.cm.rtu.private")                   \
	X(F_REJ_LCID, "infiniband.cm.rej.localcommid")                \
	X(F_REJ_RCID, "infiniband.cm.rej.remotecommid")               \
	X(F_REJ_MSG, "infiniband.cm.rej.msgrej")                      \
	X(F_REJ_ARILEN, "infiniband.cm.rej.rejinfolen")               \
	X(F_REJ_REASON, "infiniband.cm.rej.reason")                   \
	X(F_REJ_ARI, "infiniband.cm.rej.ari")                         \
	X(F_REJ_PDATA, "infiniband.cm.rej.private")                   \
	X(F_DREQ_LCID, "infiniband.cm.dreq.localcommid")              \
	X(F_DREQ_RCID, "infiniband.cm.dreq.remotecommid")             \
	X(F_DREQ_QPN, "infiniband.cm.req.remoteqpneecn")              \
	X(F_DREQ_PDATA, "infiniband.cm.dreq.private")                 \
	X(F_DREP_LCID, "infiniband.cm.drsp.localcommid")              \
	X(F_DREP_RCID, "infiniband.cm.drsp.remotecommid")             \
	X(F_DREP_PDATA, "infiniband.cm.drsp.private")

TSHARK_DECLARE_ROWS(FIELDS);

static const char *fv(int r, int f)
{
	return rows[r].v[f] ? rows[r].v[f] : "";
}

/* The first occurrence of a numeric field; -1 if absent or not a number. */
static long long num(int r, int f)
{
	return tshark_num(fv(r, f));
}

/* A 64-bit field, compared as unsigned. */
static int num64_is(int r, int f, uint64_t expect)
{
	return tshark_u64_is(fv(r, f), expect);
}

/* A bytes field (tshark prints hex, maybe with ':' separators) equals @n bytes of @p. */
static int bytes_is(int r, int f, const void *p, size_t n)
{
	const uint8_t *b = (const uint8_t *)p;
	const char *v = fv(r, f);
	size_t i = 0;

	while (*v && *v != '|' && i < n) {
		unsigned x;

		if (*v == ':') {
			v++;
			continue;
		}
		if (sscanf(v, "%2x", &x) != 1 || x != b[i])
			return 0;
		v += 2;
		i++;
	}
	return i == n && (!*v || *v == '|');
}

/* A GID field shown as an IPv6 address. */
static int gid_is(int r, int f, const ib_gid_t *g)
{
	char buf[INET6_ADDRSTRLEN];
	const char *v = fv(r, f);
	size_t n = strcspn(v, "|");

	inet_ntop(AF_INET6, g->raw, buf, sizeof(buf));
	return strlen(buf) == n && strncmp(v, buf, n) == 0;
}

static int run_tshark(const char *path)
{
	int n;

	rows = (row_t *)tshark_run_rows(rows, path, field_names, N_FIELDS, sizeof(row_t), &n);
	return n;
}

static void free_capture(void)
{
	tshark_free_rows(rows, n_rows, N_FIELDS, sizeof(row_t));
	rows = NULL;
	n_rows = -1;
	free(raw);
	raw = NULL;
	n_raw = -1;
}

static void dump_rows(void)
{
	int r;
	unsigned f;

	for (r = 0; r < n_rows; r++) {
		if (num(r, F_CLASS) != IB_MCLASS_COMM_MGMT)
			continue;
		printf("\n--- packet %d\n", r + 1);
		for (f = 0; f < N_FIELDS; f++)
			if (rows[r].v[f] && rows[r].v[f][0])
				printf("  %-40s %s\n", field_names[f], rows[r].v[f]);
	}
}

/* ------------------------------------------------------------------------ */
/* The two sides                                                              */
/* ------------------------------------------------------------------------ */

/*
 * What a driver sent (expected in the capture). On an IB_MAD_SVC_DEFAULT
 * service the access layer replaces the upper 32 bits of a request's TID
 * with the service's client id (docs/mad.md): tid is the TID given, and
 * tid_out the one that went out (read back in the send callback).
 */
typedef struct {
	al_cm_msg_type_t type;
	ib_net64_t tid;
	ib_net64_t tid_out;
	al_cm_msg_t msg;
} sent_t;

#define MAX_SENT 64
static sent_t sent[MAX_SENT];
static int n_sent;

/* The sent message whose TID has the low 32 bits of @tid; -1 if none. */
static int sent_by_tid(ib_net64_t tid)
{
	int k;

	for (k = 0; k < n_sent; k++)
		if ((cl_ntoh64(sent[k].tid) & 0xFFFFFFFFu) == (cl_ntoh64(tid) & 0xFFFFFFFFu))
			return k;
	return -1;
}

static void AL_API on_send(const ib_mad_svc_handle_t h, void *ctx, ib_mad_element_t *e)
{
	side_t *s = (side_t *)ctx;
	int k;

	(void)h;
	pthread_mutex_lock(&s->lock);
	if (e->status != IB_WCS_SUCCESS)
		s->bad++;
	k = sent_by_tid(e->p_mad_buf->trans_id);
	if (k >= 0)
		sent[k].tid_out = e->p_mad_buf->trans_id;
	else
		s->bad++;
	s->n_send++;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	ib_put_mad(e);
}

static void AL_API on_recv(const ib_mad_svc_handle_t h, void *ctx, ib_mad_element_t *e)
{
	side_t *s = (side_t *)ctx;

	(void)h;
	pthread_mutex_lock(&s->lock);
	if (s->n_recv < (int)(sizeof(s->recvd) / sizeof(s->recvd[0])))
		s->recvd[s->n_recv] = e;
	else
		ib_put_mad(e);
	s->n_recv++;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* Waits (bounded) until *p >= want; returns the value seen. */
static int wait_n(side_t *s, int *p, int want)
{
	struct timespec ts;
	int v;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += TEST_WAIT_US / 1000000u;
	pthread_mutex_lock(&s->lock);
	while (*p < want && pthread_cond_timedwait(&s->cond, &s->lock, &ts) == 0)
		;
	v = *p;
	pthread_mutex_unlock(&s->lock);
	return v;
}

/*
 * Opens CA @guid, its port 1's QP1 alias and, with @with_svc, a MAD service
 * for the CM class on it (a driver using the CM leaves the class to it).
 */
static void side_open(ib_al_handle_t h_al, side_t *s, ib_net64_t guid, int with_svc)
{
	ib_ca_attr_t *attr;
	ib_qp_create_t qc;
	ib_mad_svc_t svc;
	uint32_t size = 0;

	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	test_cond_init_mono(&s->cond);
	s->ca_guid = guid;
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, guid, NULL, s, &s->ca), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_query_ca(s->ca, NULL, &size), IB_INSUFFICIENT_MEMORY);
	attr = (ib_ca_attr_t *)calloc(1, size);
	CU_ASSERT_PTR_NOT_NULL_FATAL(attr);
	CU_ASSERT_EQUAL_FATAL(ib_query_ca(s->ca, attr, &size), IB_SUCCESS);
	CU_ASSERT_EQUAL(attr->p_port_attr[0].link_state, IB_LINK_ACTIVE);
	s->lid = attr->p_port_attr[0].lid;
	s->port_guid = attr->p_port_attr[0].port_guid;
	s->gid = attr->p_port_attr[0].p_gid_table[0];
	free(attr);
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(s->ca, IB_PDT_ALIAS, s, &s->pd), IB_SUCCESS);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_QP1_ALIAS;
	CU_ASSERT_EQUAL_FATAL(ib_get_spl_qp(s->pd, s->port_guid, &qc, s, NULL, &s->key, &s->qp),
			      IB_SUCCESS);
	if (!with_svc)
		return;
	memset(&svc, 0, sizeof(svc));
	svc.mad_svc_context = s;
	svc.pfn_mad_send_cb = on_send;
	svc.pfn_mad_recv_cb = on_recv;
	svc.mgmt_class = IB_MCLASS_COMM_MGMT;
	svc.mgmt_version = AL_CM_CLASS_VERSION;
	svc.svc_type = IB_MAD_SVC_DEFAULT;
	svc.support_unsol = TRUE;
	svc.method_array[IB_MAD_METHOD_SEND] = TRUE;
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_svc(s->qp, &svc, &s->svc), IB_SUCCESS);
}

static void side_close(side_t *s)
{
	int i;

	for (i = 0; i < s->n_recv && i < (int)(sizeof(s->recvd) / sizeof(s->recvd[0])); i++)
		if (s->recvd[i])
			ib_put_mad(s->recvd[i]);
	CU_ASSERT_EQUAL(s->bad, 0);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
}

/* Sends one CM MAD from side @from to the other side's QP1. */
static void send_cm(side_t *from, const side_t *to, al_cm_msg_type_t type, const al_cm_msg_t *m,
		    ib_net64_t tid)
{
	ib_mad_element_t *e = NULL;

	CU_ASSERT_EQUAL_FATAL(ib_get_mad(from->key, MAD_BLOCK_SIZE, &e), IB_SUCCESS);
	al_cm_pack(type, m, tid, e->p_mad_buf);
	e->size = MAD_BLOCK_SIZE;
	e->remote_lid = to->lid;
	e->remote_qp = CL_HTON32(1);
	e->remote_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	e->pkey_index = 0;
	e->resp_expected = FALSE;
	CU_ASSERT_EQUAL(ib_send_mad(from->svc, e, NULL), IB_SUCCESS);
}

/* ------------------------------------------------------------------------ */
/* Scenario                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * Opens the access layer on a fresh two-CA fabric with a capture, opens both
 * sides (with CM-class MAD services if @with_svc), runs @driver, closes
 * everything, and decodes the capture (rows[], raw[]).
 */
static void run_capture(const char *tag, int with_svc, void (*driver)(ib_al_handle_t h_al))
{
	ib_al_handle_t h_al = NULL;
	ib_net64_t guids[2];
	size_t n = 2;

	n_sent = 0;
	make_fabric(tag);
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, guids, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	side_open(h_al, &side[0], guids[0], with_svc);
	side_open(h_al, &side[1], guids[1], with_svc);

	driver(h_al);

	side_close(&side[0]);
	side_close(&side[1]);
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	al_sa_quiesce();
	al_cm_quiesce();
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);

	n_raw = read_capture(pcap_path);
	n_rows = run_tshark(pcap_path);
	if (getenv("IBAL_TSHARK_DUMP") && n_rows > 0)
		dump_rows();
	if (strncmp(pcap_path, fab_dir, strlen(fab_dir)) != 0)
		printf("capture kept in %s\n", pcap_path);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
	unsetenv("IBAL_SOFT_PCAP");
	CU_ASSERT(n_raw > 0);
	CU_ASSERT_EQUAL(n_rows, n_raw);
	if (n_rows != n_raw)
		printf("\n  tshark read %d packets, the capture has %d records\n", n_rows, n_raw);
}

/* ------------------------------------------------------------------------ */
/* Checks                                                                     */
/* ------------------------------------------------------------------------ */

/* Big-endian @n bytes at message offset @off of a raw MAD. */
static uint64_t be(const uint8_t *mad, unsigned off, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		v = (v << 8) | mad[24 + off + i];
	return v;
}

/* Wireshark's REQ flow label: right, or 4.0's upper 12 bits. */
static int ws_flow_label_ok(int r, int f, uint32_t label)
{
	long long v = num(r, f);

	return v == (long long)label || v == (long long)(label >> 8);
}

/* Wireshark's REQ packet rate: right, or 4.0's low 6 bits of the flow label's first byte. */
static int ws_rate_ok(int r, int f, uint8_t rate, uint32_t label)
{
	long long v = num(r, f);

	return v == rate || v == (long long)((label >> 12) & 0x3F);
}

/* Every field Wireshark 4.0 decodes, against @m. */
static void check_row(int r, al_cm_msg_type_t type, const al_cm_msg_t *m)
{
	switch (type) {
	case AL_CM_MSG_REQ: {
		const al_cm_req_msg_t *q = &m->req;

		CU_ASSERT_EQUAL(num(r, F_REQ_LCID), q->local_comm_id);
		CU_ASSERT_TRUE(num64_is(r, F_REQ_SID, q->service_id));
		CU_ASSERT_TRUE(num64_is(r, F_REQ_GUID, q->local_ca_guid));
		CU_ASSERT_EQUAL(num(r, F_REQ_QKEY), q->local_qkey);
		CU_ASSERT_EQUAL(num(r, F_REQ_QPN), q->local_qpn);
		CU_ASSERT_EQUAL(num(r, F_REQ_RESPRES), q->resp_res);
		CU_ASSERT_EQUAL(num(r, F_REQ_LEECN), q->local_eecn);
		CU_ASSERT_EQUAL(num(r, F_REQ_INITDEPTH), q->init_depth);
		CU_ASSERT_EQUAL(num(r, F_REQ_REECN), q->remote_eecn);
		CU_ASSERT_EQUAL(num(r, F_REQ_RTO), q->remote_cm_resp_timeout);
		CU_ASSERT_EQUAL(num(r, F_REQ_TRANSP), q->transport);
		CU_ASSERT_EQUAL(num(r, F_REQ_E2E), q->flow_ctrl);
		CU_ASSERT_EQUAL(num(r, F_REQ_PSN), q->starting_psn);
		CU_ASSERT_EQUAL(num(r, F_REQ_LTO), q->local_cm_resp_timeout);
		CU_ASSERT_EQUAL(num(r, F_REQ_RETRY), q->retry_count);
		CU_ASSERT_EQUAL(num(r, F_REQ_PKEY), q->pkey);
		CU_ASSERT_EQUAL(num(r, F_REQ_MTU), q->path_mtu);
		CU_ASSERT_EQUAL(num(r, F_REQ_RDC), q->rdc_exists);
		CU_ASSERT_EQUAL(num(r, F_REQ_RNR), q->rnr_retry_count);
		CU_ASSERT_EQUAL(num(r, F_REQ_MAXCM), q->max_cm_retries);
		CU_ASSERT_EQUAL(num(r, F_REQ_SRQ), q->srq);
		CU_ASSERT_EQUAL(num(r, F_REQ_EXT), q->ext_transport);
		CU_ASSERT_EQUAL(num(r, F_REQ_P_LLID), q->primary.local_lid);
		CU_ASSERT_EQUAL(num(r, F_REQ_P_RLID), q->primary.remote_lid);
		CU_ASSERT_TRUE(gid_is(r, F_REQ_P_LGID, &q->primary.local_gid));
		CU_ASSERT_TRUE(gid_is(r, F_REQ_P_RGID, &q->primary.remote_gid));
		CU_ASSERT_TRUE(ws_flow_label_ok(r, F_REQ_P_FLOW, q->primary.flow_label));
		CU_ASSERT_TRUE(ws_rate_ok(r, F_REQ_P_RATE, q->primary.packet_rate, q->primary.flow_label));
		CU_ASSERT_EQUAL(num(r, F_REQ_P_TC), q->primary.traffic_class);
		CU_ASSERT_EQUAL(num(r, F_REQ_P_HOP), q->primary.hop_limit);
		CU_ASSERT_EQUAL(num(r, F_REQ_P_SL), q->primary.sl);
		CU_ASSERT_EQUAL(num(r, F_REQ_P_SUBNET), q->primary.subnet_local);
		CU_ASSERT_EQUAL(num(r, F_REQ_P_ACKTO), q->primary.local_ack_timeout);
		CU_ASSERT_EQUAL(num(r, F_REQ_A_LLID), q->alternate.local_lid);
		CU_ASSERT_EQUAL(num(r, F_REQ_A_RLID), q->alternate.remote_lid);
		CU_ASSERT_TRUE(bytes_is(r, F_REQ_A_LGID, q->alternate.local_gid.raw, 16));
		CU_ASSERT_TRUE(bytes_is(r, F_REQ_A_RGID, q->alternate.remote_gid.raw, 16));
		CU_ASSERT_TRUE(ws_flow_label_ok(r, F_REQ_A_FLOW, q->alternate.flow_label));
		CU_ASSERT_TRUE(ws_rate_ok(r, F_REQ_A_RATE, q->alternate.packet_rate, q->alternate.flow_label));
		CU_ASSERT_EQUAL(num(r, F_REQ_A_TC), q->alternate.traffic_class);
		CU_ASSERT_EQUAL(num(r, F_REQ_A_HOP), q->alternate.hop_limit);
		CU_ASSERT_EQUAL(num(r, F_REQ_A_SL), q->alternate.sl);
		CU_ASSERT_EQUAL(num(r, F_REQ_A_SUBNET), q->alternate.subnet_local);
		CU_ASSERT_EQUAL(num(r, F_REQ_A_ACKTO), q->alternate.local_ack_timeout);
		CU_ASSERT_TRUE(bytes_is(r, F_REQ_PDATA, q->private_data, IB_REQ_PDATA_SIZE));
		break;
	}
	case AL_CM_MSG_REP: {
		const al_cm_rep_msg_t *p = &m->rep;

		CU_ASSERT_EQUAL(num(r, F_REP_LCID), p->local_comm_id);
		CU_ASSERT_EQUAL(num(r, F_REP_RCID), p->remote_comm_id);
		CU_ASSERT_EQUAL(num(r, F_REP_QKEY), p->local_qkey);
		CU_ASSERT_EQUAL(num(r, F_REP_QPN), p->local_qpn);
		CU_ASSERT_EQUAL(num(r, F_REP_EECN), p->local_eecn);
		CU_ASSERT_EQUAL(num(r, F_REP_PSN), p->starting_psn);
		CU_ASSERT_EQUAL(num(r, F_REP_RESPRES), p->resp_res);
		CU_ASSERT_EQUAL(num(r, F_REP_INITDEPTH), p->init_depth);
		CU_ASSERT_EQUAL(num(r, F_REP_ACKDELAY), p->target_ack_delay);
		CU_ASSERT_EQUAL(num(r, F_REP_FAILOVER), p->failover_accepted);
		CU_ASSERT_EQUAL(num(r, F_REP_E2E), p->flow_ctrl);
		CU_ASSERT_EQUAL(num(r, F_REP_RNR), p->rnr_retry_count);
		CU_ASSERT_EQUAL(num(r, F_REP_SRQ), p->srq);
		CU_ASSERT_TRUE(num64_is(r, F_REP_GUID, p->local_ca_guid));
		CU_ASSERT_TRUE(bytes_is(r, F_REP_PDATA, p->private_data, IB_REP_PDATA_SIZE));
		break;
	}
	case AL_CM_MSG_RTU:
		CU_ASSERT_EQUAL(num(r, F_RTU_LCID), m->rtu.local_comm_id);
		CU_ASSERT_EQUAL(num(r, F_RTU_RCID), m->rtu.remote_comm_id);
		CU_ASSERT_TRUE(bytes_is(r, F_RTU_PDATA, m->rtu.private_data, IB_RTU_PDATA_SIZE));
		break;
	case AL_CM_MSG_REJ:
		CU_ASSERT_EQUAL(num(r, F_REJ_LCID), m->rej.local_comm_id);
		CU_ASSERT_EQUAL(num(r, F_REJ_RCID), m->rej.remote_comm_id);
		CU_ASSERT_EQUAL(num(r, F_REJ_MSG), m->rej.msg_rejected);
		CU_ASSERT_EQUAL(num(r, F_REJ_ARILEN), m->rej.ari_length);
		CU_ASSERT_EQUAL(num(r, F_REJ_REASON), m->rej.reason);
		CU_ASSERT_TRUE(bytes_is(r, F_REJ_ARI, m->rej.ari, IB_ARI_SIZE));
		CU_ASSERT_TRUE(bytes_is(r, F_REJ_PDATA, m->rej.private_data, IB_REJ_PDATA_SIZE));
		break;
	case AL_CM_MSG_DREQ:
		CU_ASSERT_EQUAL(num(r, F_DREQ_LCID), m->dreq.local_comm_id);
		CU_ASSERT_EQUAL(num(r, F_DREQ_RCID), m->dreq.remote_comm_id);
		CU_ASSERT_EQUAL(num(r, F_DREQ_QPN), m->dreq.remote_qpn);
		CU_ASSERT_TRUE(bytes_is(r, F_DREQ_PDATA, m->dreq.private_data, IB_DREQ_PDATA_SIZE));
		break;
	case AL_CM_MSG_DREP:
		CU_ASSERT_EQUAL(num(r, F_DREP_LCID), m->drep.local_comm_id);
		CU_ASSERT_EQUAL(num(r, F_DREP_RCID), m->drep.remote_comm_id);
		CU_ASSERT_TRUE(bytes_is(r, F_DREP_PDATA, m->drep.private_data, IB_DREP_PDATA_SIZE));
		break;
	default:
		/* Not dissected by Wireshark 4.0: no CM field at all. */
		CU_ASSERT_STRING_EQUAL(fv(r, F_REQ_LCID), "");
		CU_ASSERT_STRING_EQUAL(fv(r, F_REP_LCID), "");
		break;
	}
}

/* The fields Wireshark does not decode (or misreads), in the raw bytes, at the IBA offsets. */
static void check_raw(const uint8_t *mad, al_cm_msg_type_t type, const al_cm_msg_t *m)
{
	switch (type) {
	case AL_CM_MSG_REQ: {
		const al_cm_path_t *p = &m->req.primary, *a = &m->req.alternate;

		CU_ASSERT_EQUAL(be(mad, 88, 4), ((uint64_t)p->flow_label << 12) | p->packet_rate);
		CU_ASSERT_EQUAL(be(mad, 132, 4), ((uint64_t)a->flow_label << 12) | a->packet_rate);
		CU_ASSERT_EQUAL(mad[24 + 139] & 0x04, m->req.sap_supported ? 0x04 : 0);
		break;
	}
	case AL_CM_MSG_MRA:
		CU_ASSERT_EQUAL(be(mad, 0, 4), m->mra.local_comm_id);
		CU_ASSERT_EQUAL(be(mad, 4, 4), m->mra.remote_comm_id);
		CU_ASSERT_EQUAL(mad[24 + 8] >> 6, m->mra.msg_mraed);
		CU_ASSERT_EQUAL(mad[24 + 9] >> 3, m->mra.service_timeout);
		CU_ASSERT_EQUAL(memcmp(mad + 24 + 10, m->mra.private_data, IB_MRA_PDATA_SIZE), 0);
		break;
	case AL_CM_MSG_SIDR_REQ:
		CU_ASSERT_EQUAL(be(mad, 0, 4), m->sidr_req.request_id);
		CU_ASSERT_EQUAL(be(mad, 4, 2), m->sidr_req.pkey);
		CU_ASSERT_EQUAL(be(mad, 8, 8), m->sidr_req.service_id);
		CU_ASSERT_EQUAL(memcmp(mad + 24 + 16, m->sidr_req.private_data, IB_SIDR_REQ_PDATA_SIZE), 0);
		break;
	case AL_CM_MSG_SIDR_REP:
		CU_ASSERT_EQUAL(be(mad, 0, 4), m->sidr_rep.request_id);
		CU_ASSERT_EQUAL(be(mad, 4, 1), m->sidr_rep.status);
		CU_ASSERT_EQUAL(be(mad, 5, 1), m->sidr_rep.add_info_length);
		CU_ASSERT_EQUAL(be(mad, 8, 3), m->sidr_rep.qpn);
		CU_ASSERT_EQUAL(be(mad, 12, 8), m->sidr_rep.service_id);
		CU_ASSERT_EQUAL(be(mad, 20, 4), m->sidr_rep.qkey);
		CU_ASSERT_EQUAL(memcmp(mad + 24 + 24, m->sidr_rep.class_port_info, 72), 0);
		CU_ASSERT_EQUAL(memcmp(mad + 24 + 96, m->sidr_rep.private_data, IB_SIDR_REP_PDATA_SIZE), 0);
		break;
	case AL_CM_MSG_LAP: {
		const al_cm_path_t *a = &m->lap.alternate;

		CU_ASSERT_EQUAL(be(mad, 0, 4), m->lap.local_comm_id);
		CU_ASSERT_EQUAL(be(mad, 4, 4), m->lap.remote_comm_id);
		CU_ASSERT_EQUAL(be(mad, 12, 3), m->lap.remote_qpn);
		CU_ASSERT_EQUAL(mad[24 + 15] >> 3, m->lap.remote_cm_resp_timeout);
		CU_ASSERT_EQUAL(be(mad, 20, 2), a->local_lid);
		CU_ASSERT_EQUAL(be(mad, 22, 2), a->remote_lid);
		CU_ASSERT_EQUAL(memcmp(mad + 24 + 24, a->local_gid.raw, 16), 0);
		CU_ASSERT_EQUAL(memcmp(mad + 24 + 40, a->remote_gid.raw, 16), 0);
		CU_ASSERT_EQUAL(be(mad, 56, 4), ((uint64_t)a->flow_label << 12) | a->traffic_class);
		CU_ASSERT_EQUAL(mad[24 + 60], a->hop_limit);
		CU_ASSERT_EQUAL(mad[24 + 61], a->packet_rate);
		CU_ASSERT_EQUAL(mad[24 + 62], (a->sl << 4) | (a->subnet_local << 3));
		CU_ASSERT_EQUAL(mad[24 + 63], a->local_ack_timeout << 3);
		CU_ASSERT_EQUAL(memcmp(mad + 24 + 64, m->lap.private_data, IB_LAP_PDATA_SIZE), 0);
		break;
	}
	case AL_CM_MSG_APR:
		CU_ASSERT_EQUAL(be(mad, 0, 4), m->apr.local_comm_id);
		CU_ASSERT_EQUAL(be(mad, 4, 4), m->apr.remote_comm_id);
		CU_ASSERT_EQUAL(mad[24 + 8], m->apr.info_length);
		CU_ASSERT_EQUAL(mad[24 + 9], m->apr.ap_status);
		CU_ASSERT_EQUAL(memcmp(mad + 24 + 12, m->apr.info, IB_APR_INFO_SIZE), 0);
		CU_ASSERT_EQUAL(memcmp(mad + 24 + 84, m->apr.private_data, IB_APR_PDATA_SIZE), 0);
		break;
	default:
		break;
	}
}

/* Attribute names Wireshark shows in the Info column ("CM: <name>"). */
static const char *const ws_attr_name[AL_CM_MSG_COUNT] = {
	"ConnectRequest", "MsgRcptAck", "ConnectReject", "ConnectReply", "ReadyToUse",
	"DisconnectRequest", "DisconnectReply", "ServiceIDResReq", "ServiceIDResReqResp",
	"LoadAlternatePath", "AlternatePathResponse",
};

/*
 * Packet r is the CM message @m of @type: Wireshark's header, no complaint,
 * the raw bytes unpack to @m, Wireshark's fields and the raw bytes agree with it.
 */
static void check_cm_packet(int r, al_cm_msg_type_t type, ib_net64_t tid, const al_cm_msg_t *m)
{
	al_cm_msg_t got;
	al_cm_msg_type_t got_type = AL_CM_MSG_COUNT;

	CU_ASSERT_EQUAL(num(r, F_CLASS), IB_MCLASS_COMM_MGMT);
	CU_ASSERT_EQUAL(num(r, F_CLASSVER), AL_CM_CLASS_VERSION);
	CU_ASSERT_EQUAL(num(r, F_METHOD), IB_MAD_METHOD_SEND);
	CU_ASSERT_EQUAL(num(r, F_ATTR), cl_ntoh16(al_cm_attr_id(type)));
	CU_ASSERT_TRUE(num64_is(r, F_TID, cl_ntoh64(tid)));
	CU_ASSERT_EQUAL(num(r, F_DESTQP), 1);
	CU_ASSERT_EQUAL(num(r, F_SRCQP), 1);
	CU_ASSERT_EQUAL(num(r, F_QKEY), 0x80010000);
	CU_ASSERT_STRING_EQUAL(fv(r, F_MALFORMED), "");
	CU_ASSERT_PTR_NOT_NULL(strstr(fv(r, F_INFO), ws_attr_name[type]));
	if (*fv(r, F_EXPERT_MSG))
		printf("\n  packet %d (%s): expert: %s\n", r + 1, al_cm_msg_name(type), fv(r, F_EXPERT_MSG));
	CU_ASSERT_STRING_EQUAL(fv(r, F_EXPERT_SEV), "");

	CU_ASSERT_TRUE_FATAL(raw[r].has_mad);
	CU_ASSERT_EQUAL(al_cm_unpack((const ib_mad_t *)raw[r].mad, MAD_BLOCK_SIZE, &got_type, &got),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(got_type, type);
	CU_ASSERT_EQUAL(memcmp(&got, m, sizeof(got)), 0);
	check_row(r, type, m);
	check_raw(raw[r].mad, type, m);
}

/* ------------------------------------------------------------------------ */
/* Scenario 1: one MAD of each type through the MAD API                       */
/* ------------------------------------------------------------------------ */

static void pdata(uint8_t *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 13u);
}

static void gid_of(ib_gid_t *g, const ib_gid_t *port_gid, uint8_t last)
{
	*g = *port_gid;
	g->raw[15] ^= last;
}

/* The eleven messages, all fields distinctive and within their widths. */
static void build_messages(void)
{
	const side_t *a = &side[0], *b = &side[1];
	al_cm_msg_t *m;
	unsigned t;

	for (t = 0; t < AL_CM_MSG_COUNT; t++) {
		sent[t].type = (al_cm_msg_type_t)t;
		sent[t].tid = cl_hton64(0x00C3000000000100ull + t);
		memset(&sent[t].msg, 0, sizeof(sent[t].msg));
	}
	m = &sent[AL_CM_MSG_REQ].msg;
	m->req.local_comm_id = 0xC0DE1001;
	m->req.service_id = 0x1BA1C0DE00000007ull;
	m->req.local_ca_guid = cl_ntoh64(a->ca_guid);
	m->req.local_qkey = 0x0BADCAFE;
	m->req.local_qpn = 0x00A1B2;
	m->req.resp_res = 4;
	m->req.local_eecn = 0x00ABCD;
	m->req.init_depth = 3;
	m->req.remote_eecn = 0x0DCBA0;
	m->req.remote_cm_resp_timeout = 21;
	m->req.transport = AL_CM_TRANSPORT_UC;
	m->req.flow_ctrl = 1;
	m->req.starting_psn = 0x5A5A5A;
	m->req.local_cm_resp_timeout = 18;
	m->req.retry_count = 6;
	m->req.pkey = 0xFFFF;
	m->req.path_mtu = IB_MTU_LEN_2048;
	m->req.rdc_exists = 1;
	m->req.rnr_retry_count = 7;
	m->req.max_cm_retries = 15;
	m->req.srq = 1;
	m->req.ext_transport = 5;
	m->req.primary.local_lid = cl_ntoh16(a->lid);
	m->req.primary.remote_lid = cl_ntoh16(b->lid);
	m->req.primary.local_gid = a->gid;
	m->req.primary.remote_gid = b->gid;
	m->req.primary.flow_label = 0xABCDE;
	m->req.primary.packet_rate = 0x2A;
	m->req.primary.traffic_class = 0x5C;
	m->req.primary.hop_limit = 0x40;
	m->req.primary.sl = 0xB;
	m->req.primary.subnet_local = 1;
	m->req.primary.local_ack_timeout = 19;
	m->req.alternate.local_lid = 0x0A0B;
	m->req.alternate.remote_lid = 0x0C0D;
	gid_of(&m->req.alternate.local_gid, &a->gid, 0x11);
	gid_of(&m->req.alternate.remote_gid, &b->gid, 0x22);
	m->req.alternate.flow_label = 0x12345;
	m->req.alternate.packet_rate = 0x11;
	m->req.alternate.traffic_class = 0x66;
	m->req.alternate.hop_limit = 0x77;
	m->req.alternate.sl = 3;
	m->req.alternate.subnet_local = 0;
	m->req.alternate.local_ack_timeout = 14;
	m->req.sap_supported = 1;
	pdata(m->req.private_data, IB_REQ_PDATA_SIZE, 0x10);

	m = &sent[AL_CM_MSG_MRA].msg;
	m->mra.local_comm_id = 0xC0DE2002;
	m->mra.remote_comm_id = 0xC0DE1001;
	m->mra.msg_mraed = AL_CM_REF_REP;
	m->mra.service_timeout = 29;
	pdata(m->mra.private_data, IB_MRA_PDATA_SIZE, 0x20);

	m = &sent[AL_CM_MSG_REJ].msg;
	m->rej.local_comm_id = 0xC0DE2002;
	m->rej.remote_comm_id = 0xC0DE1001;
	m->rej.msg_rejected = AL_CM_REF_OTHER;
	m->rej.ari_length = 72;
	m->rej.reason = 28; /* consumer defined */
	pdata(m->rej.ari, IB_ARI_SIZE, 0x30);
	pdata(m->rej.private_data, IB_REJ_PDATA_SIZE, 0x31);

	m = &sent[AL_CM_MSG_REP].msg;
	m->rep.local_comm_id = 0xC0DE2002;
	m->rep.remote_comm_id = 0xC0DE1001;
	m->rep.local_qkey = 0x11111111;
	m->rep.local_qpn = 0x00C3D4;
	m->rep.local_eecn = 0x000E0E;
	m->rep.starting_psn = 0xA5A5A5;
	m->rep.resp_res = 2;
	m->rep.init_depth = 1;
	m->rep.target_ack_delay = 25;
	m->rep.failover_accepted = 2;
	m->rep.flow_ctrl = 1;
	m->rep.rnr_retry_count = 5;
	m->rep.srq = 1;
	m->rep.local_ca_guid = cl_ntoh64(b->ca_guid);
	pdata(m->rep.private_data, IB_REP_PDATA_SIZE, 0x40);

	m = &sent[AL_CM_MSG_RTU].msg;
	m->rtu.local_comm_id = 0xC0DE1001;
	m->rtu.remote_comm_id = 0xC0DE2002;
	pdata(m->rtu.private_data, IB_RTU_PDATA_SIZE, 0x50);

	m = &sent[AL_CM_MSG_DREQ].msg;
	m->dreq.local_comm_id = 0xC0DE1001;
	m->dreq.remote_comm_id = 0xC0DE2002;
	m->dreq.remote_qpn = 0x00C3D4;
	pdata(m->dreq.private_data, IB_DREQ_PDATA_SIZE, 0x60);

	m = &sent[AL_CM_MSG_DREP].msg;
	m->drep.local_comm_id = 0xC0DE2002;
	m->drep.remote_comm_id = 0xC0DE1001;
	pdata(m->drep.private_data, IB_DREP_PDATA_SIZE, 0x70);

	m = &sent[AL_CM_MSG_SIDR_REQ].msg;
	m->sidr_req.request_id = 0x51D00001;
	m->sidr_req.pkey = 0x8001;
	m->sidr_req.service_id = 0x1BA1C0DE00000008ull;
	pdata(m->sidr_req.private_data, IB_SIDR_REQ_PDATA_SIZE, 0x80);

	m = &sent[AL_CM_MSG_SIDR_REP].msg;
	m->sidr_rep.request_id = 0x51D00001;
	m->sidr_rep.status = 0;
	m->sidr_rep.add_info_length = 0;
	m->sidr_rep.qpn = 0x00E5F6;
	m->sidr_rep.service_id = 0x1BA1C0DE00000008ull;
	m->sidr_rep.qkey = 0x22222222;
	pdata(m->sidr_rep.class_port_info, 72, 0x90);
	pdata(m->sidr_rep.private_data, IB_SIDR_REP_PDATA_SIZE, 0x91);

	m = &sent[AL_CM_MSG_LAP].msg;
	m->lap.local_comm_id = 0xC0DE1001;
	m->lap.remote_comm_id = 0xC0DE2002;
	m->lap.remote_qpn = 0x00C3D4;
	m->lap.remote_cm_resp_timeout = 17;
	m->lap.alternate.local_lid = 0x0E0F;
	m->lap.alternate.remote_lid = 0x1011;
	gid_of(&m->lap.alternate.local_gid, &a->gid, 0x33);
	gid_of(&m->lap.alternate.remote_gid, &b->gid, 0x44);
	m->lap.alternate.flow_label = 0xFEDCB;
	m->lap.alternate.traffic_class = 0x99;
	m->lap.alternate.hop_limit = 0x42;
	m->lap.alternate.packet_rate = 0x2B;
	m->lap.alternate.sl = 7;
	m->lap.alternate.subnet_local = 1;
	m->lap.alternate.local_ack_timeout = 12;
	pdata(m->lap.private_data, IB_LAP_PDATA_SIZE, 0xA0);

	m = &sent[AL_CM_MSG_APR].msg;
	m->apr.local_comm_id = 0xC0DE2002;
	m->apr.remote_comm_id = 0xC0DE1001;
	m->apr.info_length = 16;
	m->apr.ap_status = 3;
	pdata(m->apr.info, IB_APR_INFO_SIZE, 0xB0);
	pdata(m->apr.private_data, IB_APR_PDATA_SIZE, 0xB1);
	n_sent = AL_CM_MSG_COUNT;
}

static void drive_each_type(ib_al_handle_t h_al)
{
	side_t *a = &side[0], *b = &side[1];
	int i;

	(void)h_al;
	build_messages();
	for (i = 0; i < n_sent; i++)
		send_cm(a, b, sent[i].type, &sent[i].msg, sent[i].tid);
	CU_ASSERT_EQUAL(wait_n(a, &a->n_send, n_sent), n_sent);
	CU_ASSERT_EQUAL(wait_n(b, &b->n_recv, n_sent), n_sent);
	/* What B received unpacks to what A sent (matched by TID: delivery order is not promised). */
	for (i = 0; i < b->n_recv && i < n_sent; i++) {
		ib_mad_element_t *e = b->recvd[i];
		al_cm_msg_t got;
		al_cm_msg_type_t t;
		int k;

		CU_ASSERT_EQUAL(e->remote_lid, a->lid);
		CU_ASSERT_EQUAL(e->remote_qp, CL_HTON32(1));
		CU_ASSERT_EQUAL_FATAL(al_cm_unpack(e->p_mad_buf, e->size, &t, &got), IB_SUCCESS);
		k = sent_by_tid(e->p_mad_buf->trans_id);
		CU_ASSERT_FATAL(k >= 0);
		CU_ASSERT_EQUAL(e->p_mad_buf->trans_id, sent[k].tid_out);
		CU_ASSERT_EQUAL(t, sent[k].type);
		CU_ASSERT_EQUAL(memcmp(&got, &sent[k].msg, sizeof(got)), 0);
	}
}

/* Each sent message appears exactly once in the capture, and checks. */
static void check_sent(void)
{
	int i, r;

	CU_ASSERT_FATAL(n_rows > 0 && n_rows == n_raw);
	for (i = 0; i < n_sent; i++) {
		int found = -1, count = 0;

		for (r = 0; r < n_rows; r++)
			if (raw[r].has_mad && raw[r].mad[1] == IB_MCLASS_COMM_MGMT &&
			    memcmp(&raw[r].mad[8], &sent[i].tid_out, 8) == 0) {
				found = r;
				count++;
			}
		CU_ASSERT_EQUAL(count, 1);
		if (found < 0)
			continue;
		check_cm_packet(found, sent[i].type, sent[i].tid_out, &sent[i].msg);
	}
}

static void test_each_message_type(void)
{
	int r, n_cm = 0;

	run_capture("each", 1, drive_each_type);
	check_sent();
	for (r = 0; r < n_rows; r++)
		if (num(r, F_CLASS) == IB_MCLASS_COMM_MGMT)
			n_cm++;
	CU_ASSERT_EQUAL(n_cm, AL_CM_MSG_COUNT); /* nothing else of class 7 on the wire */
	free_capture();
}

/* ------------------------------------------------------------------------ */
/* Scenario 2: a connection through the CM (REQ REP RTU DREQ DREP)           */
/* ------------------------------------------------------------------------ */

#define HS_SVC_ID 0x1BA1C0DE000000C5ull

/* One side's RC endpoint and what its CM callbacks saw. */
typedef struct hs_end {
	ib_pd_handle_t pd;
	ib_cq_handle_t cq;
	ib_qp_handle_t qp;
	uint32_t qpn;            /* host order */
	ib_cm_handle_t h_cm;     /* the REQ (passive), the REP (active), the DREQ (passive) */
	int n_req, n_rep, n_rtu, n_rej, n_dreq, n_drep;
	ib_api_status_t drep_status;
	uint8_t pdata[IB_REQ_PDATA_SIZE > IB_DREP_PDATA_SIZE ? IB_REQ_PDATA_SIZE : IB_DREP_PDATA_SIZE];
} hs_end_t;

static hs_end_t hs[2];
static pthread_mutex_t hs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hs_cond;

static void hs_bump(int *p)
{
	pthread_mutex_lock(&hs_lock);
	(*p)++;
	pthread_cond_broadcast(&hs_cond);
	pthread_mutex_unlock(&hs_lock);
}

static int hs_wait(int *p, int want)
{
	struct timespec ts;
	int v;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += TEST_WAIT_US / 1000000u;
	pthread_mutex_lock(&hs_lock);
	while (*p < want && pthread_cond_timedwait(&hs_cond, &hs_lock, &ts) == 0)
		;
	v = *p;
	pthread_mutex_unlock(&hs_lock);
	return v;
}

static void AL_API hs_on_req(ib_cm_req_rec_t *r)
{
	pthread_mutex_lock(&hs_lock);
	hs[1].h_cm = r->h_cm_req;
	pthread_mutex_unlock(&hs_lock);
	hs_bump(&hs[1].n_req);
}

static void AL_API hs_on_rep(ib_cm_rep_rec_t *r)
{
	pthread_mutex_lock(&hs_lock);
	hs[0].h_cm = r->h_cm_rep;
	pthread_mutex_unlock(&hs_lock);
	hs_bump(&hs[0].n_rep);
}

static void AL_API hs_on_rtu(ib_cm_rtu_rec_t *r)
{
	(void)r;
	hs_bump(&hs[1].n_rtu);
}

static void AL_API hs_on_rej(ib_cm_rej_rec_t *r)
{
	printf("\n  connection rejected: reason %u\n", cl_ntoh16(r->rej_status));
	hs_bump(&hs[0].n_rej);
}

static void AL_API hs_on_mra(ib_cm_mra_rec_t *r)
{
	(void)r;
}

static void AL_API hs_on_dreq(ib_cm_dreq_rec_t *r)
{
	pthread_mutex_lock(&hs_lock);
	hs[1].h_cm = r->h_cm_dreq;
	pthread_mutex_unlock(&hs_lock);
	hs_bump(&hs[1].n_dreq);
}

static void AL_API hs_on_drep(ib_cm_drep_rec_t *r)
{
	pthread_mutex_lock(&hs_lock);
	hs[0].drep_status = r->cm_status;
	pthread_mutex_unlock(&hs_lock);
	hs_bump(&hs[0].n_drep);
}

static void AL_API hs_on_lap(ib_cm_lap_rec_t *r)
{
	(void)r;
}

static void AL_API hs_on_comp(const ib_cq_handle_t h_cq, void *context)
{
	(void)h_cq;
	(void)context;
}

static void hs_end_open(hs_end_t *e, const side_t *s)
{
	ib_cq_create_t cc;
	ib_qp_create_t qc;
	ib_qp_attr_t qa;

	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(s->ca, IB_PDT_NORMAL, e, &e->pd), IB_SUCCESS);
	memset(&cc, 0, sizeof(cc));
	cc.size = 16;
	cc.pfn_comp_cb = hs_on_comp;
	CU_ASSERT_EQUAL_FATAL(ib_create_cq(s->ca, &cc, e, NULL, &e->cq), IB_SUCCESS);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	qc.sq_depth = qc.rq_depth = 4;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = qc.h_rq_cq = e->cq;
	qc.sq_signaled = TRUE;
	CU_ASSERT_EQUAL_FATAL(ib_create_qp(e->pd, &qc, e, NULL, &e->qp), IB_SUCCESS);
	memset(&qa, 0, sizeof(qa));
	CU_ASSERT_EQUAL_FATAL(ib_query_qp(e->qp, &qa), IB_SUCCESS);
	e->qpn = cl_ntoh32(qa.num);
}

static void hs_path(ib_path_rec_t *p, const side_t *from, const side_t *to)
{
	memset(p, 0, sizeof(*p));
	p->slid = from->lid;
	p->dlid = to->lid;
	p->sgid = from->gid;
	p->dgid = to->gid;
	p->pkey = CL_HTON16(0xFFFF);
	p->num_path = 0x81;
	p->mtu = (uint8_t)(0x80 | IB_MTU_LEN_1024);
	p->rate = (uint8_t)(0x80 | IB_PATH_RECORD_RATE_10_GBS);
	p->pkt_life = (uint8_t)(0x80 | 2);
	ib_path_rec_set_hop_flow_raw(p, 0, 0, FALSE);
}

static void drive_handshake(ib_al_handle_t h_al)
{
	ib_cm_listen_t l;
	ib_cm_req_t req;
	ib_cm_rep_t rep;
	ib_cm_rtu_t rtu;
	ib_cm_dreq_t dreq;
	ib_cm_drep_t drep;
	ib_listen_handle_t h_listen = NULL;
	ib_path_rec_t path;
	ib_cm_handle_t h;
	int i;

	test_cond_init_mono(&hs_cond);
	memset(hs, 0, sizeof(hs));
	for (i = 0; i < 2; i++) {
		hs_end_open(&hs[i], &side[i]);
		pdata(hs[i].pdata, sizeof(hs[i].pdata), 0xC0 + i);
	}

	memset(&l, 0, sizeof(l));
	l.svc_id = cl_hton64(HS_SVC_ID);
	l.ca_guid = side[1].ca_guid;
	l.port_guid = side[1].port_guid;
	l.pfn_cm_req_cb = hs_on_req;
	l.qp_type = IB_QPT_RELIABLE_CONN;
	CU_ASSERT_EQUAL_FATAL(ib_cm_listen(h_al, &l, &hs[1], &h_listen), IB_SUCCESS);

	hs_path(&path, &side[0], &side[1]);
	memset(&req, 0, sizeof(req));
	req.svc_id = cl_hton64(HS_SVC_ID);
	req.max_cm_retries = 3;
	req.p_primary_path = &path;
	req.pfn_cm_rep_cb = hs_on_rep;
	req.p_req_pdata = hs[0].pdata;
	req.req_length = 40;
	req.qp_type = IB_QPT_RELIABLE_CONN;
	req.h_qp = hs[0].qp;
	req.resp_res = 2;
	req.init_depth = 3;
	req.remote_resp_timeout = 16;
	req.flow_ctrl = TRUE;
	req.local_resp_timeout = 17;
	req.rnr_nak_timeout = 6;
	req.rnr_retry_cnt = 5;
	req.retry_cnt = 4;
	req.pfn_cm_mra_cb = hs_on_mra;
	req.pfn_cm_rej_cb = hs_on_rej;
	CU_ASSERT_EQUAL_FATAL(ib_cm_req(&req), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(hs_wait(&hs[1].n_req, 1), 1);

	memset(&rep, 0, sizeof(rep));
	rep.p_rep_pdata = hs[1].pdata;
	rep.rep_length = 50;
	rep.h_qp = hs[1].qp;
	rep.qp_type = IB_QPT_RELIABLE_CONN;
	rep.access_ctrl = IB_AC_RDMA_READ | IB_AC_RDMA_WRITE | IB_AC_LOCAL_WRITE;
	rep.init_depth = 1;
	rep.target_ack_delay = 9;
	rep.failover_accepted = IB_FAILOVER_ACCEPT_UNSUPPORTED;
	rep.flow_ctrl = TRUE;
	rep.rnr_nak_timeout = 7;
	rep.rnr_retry_cnt = 6;
	rep.pfn_cm_rej_cb = hs_on_rej;
	rep.pfn_cm_mra_cb = hs_on_mra;
	rep.pfn_cm_rtu_cb = hs_on_rtu;
	rep.pfn_cm_lap_cb = hs_on_lap;
	rep.pfn_cm_dreq_cb = hs_on_dreq;
	pthread_mutex_lock(&hs_lock);
	h = hs[1].h_cm;
	pthread_mutex_unlock(&hs_lock);
	CU_ASSERT_EQUAL_FATAL(ib_cm_rep(h, &rep), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(hs_wait(&hs[0].n_rep, 1), 1);

	memset(&rtu, 0, sizeof(rtu));
	rtu.access_ctrl = IB_AC_RDMA_READ | IB_AC_RDMA_WRITE | IB_AC_LOCAL_WRITE;
	rtu.p_rtu_pdata = hs[0].pdata + 1;
	rtu.rtu_length = 60;
	rtu.pfn_cm_dreq_cb = hs_on_dreq;
	pthread_mutex_lock(&hs_lock);
	h = hs[0].h_cm;
	pthread_mutex_unlock(&hs_lock);
	CU_ASSERT_EQUAL_FATAL(ib_cm_rtu(h, &rtu), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(hs_wait(&hs[1].n_rtu, 1), 1);

	memset(&dreq, 0, sizeof(dreq));
	dreq.p_dreq_pdata = hs[0].pdata + 2;
	dreq.dreq_length = 70;
	dreq.qp_type = IB_QPT_RELIABLE_CONN;
	dreq.h_qp = hs[0].qp;
	dreq.pfn_cm_drep_cb = hs_on_drep;
	CU_ASSERT_EQUAL_FATAL(ib_cm_dreq(&dreq), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(hs_wait(&hs[1].n_dreq, 1), 1);

	memset(&drep, 0, sizeof(drep));
	drep.p_drep_pdata = hs[1].pdata + 3;
	drep.drep_length = 80;
	pthread_mutex_lock(&hs_lock);
	h = hs[1].h_cm;
	pthread_mutex_unlock(&hs_lock);
	CU_ASSERT_EQUAL_FATAL(ib_cm_drep(h, &drep), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(hs_wait(&hs[0].n_drep, 1), 1);
	CU_ASSERT_EQUAL(hs[0].drep_status, IB_SUCCESS);
	CU_ASSERT_EQUAL(hs[0].n_rej, 0);

	CU_ASSERT_EQUAL(ib_cm_cancel(h_listen, NULL), IB_SUCCESS);
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(ib_dealloc_pd(hs[i].pd, ib_sync_destroy), IB_SUCCESS);
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(ib_destroy_cq(hs[i].cq, ib_sync_destroy), IB_SUCCESS);
}

/* @n bytes of @p, then zeros, fill @size bytes of @field. */
static int pdata_is(const uint8_t *field, size_t size, const uint8_t *p, size_t n)
{
	size_t i;

	if (memcmp(field, p, n) != 0)
		return 0;
	for (i = n; i < size; i++)
		if (field[i])
			return 0;
	return 1;
}

/*
 * The first packet of each message type (the CM may resend one); its
 * message unpacked from the raw bytes. -1 if none.
 */
static int first_of(al_cm_msg_type_t type, al_cm_msg_t *m)
{
	al_cm_msg_type_t t;
	int r;

	for (r = 0; r < n_rows; r++)
		if (raw[r].has_mad && raw[r].mad[1] == IB_MCLASS_COMM_MGMT &&
		    al_cm_unpack((const ib_mad_t *)raw[r].mad, MAD_BLOCK_SIZE, &t, m) == IB_SUCCESS &&
		    t == type)
			return r;
	return -1;
}

static void test_handshake(void)
{
	al_cm_msg_t req, rep, rtu, dreq, drep;
	int r_req, r_rep, r_rtu, r_dreq, r_drep, r;

	run_capture("hs", 0, drive_handshake);
	CU_ASSERT_FATAL(n_rows > 0 && n_rows == n_raw);
	r_req = first_of(AL_CM_MSG_REQ, &req);
	r_rep = first_of(AL_CM_MSG_REP, &rep);
	r_rtu = first_of(AL_CM_MSG_RTU, &rtu);
	r_dreq = first_of(AL_CM_MSG_DREQ, &dreq);
	r_drep = first_of(AL_CM_MSG_DREP, &drep);
	CU_ASSERT_FATAL(r_req >= 0 && r_rep > r_req && r_rtu > r_rep && r_dreq > r_rtu && r_drep > r_dreq);

	/* Every CM packet: Wireshark agrees with the raw bytes, no complaint. */
	for (r = 0; r < n_rows; r++) {
		al_cm_msg_t m;
		al_cm_msg_type_t t;
		ib_net64_t tid;

		if (!raw[r].has_mad || raw[r].mad[1] != IB_MCLASS_COMM_MGMT)
			continue;
		CU_ASSERT_EQUAL_FATAL(al_cm_unpack((const ib_mad_t *)raw[r].mad, MAD_BLOCK_SIZE, &t, &m),
				      IB_SUCCESS);
		memcpy(&tid, &raw[r].mad[8], 8);
		check_cm_packet(r, t, tid, &m);
	}

	/* One TID per exchange, as Linux's CM does and Wireshark pairs them:
	 * the REQ's for the REP and RTU, the DREQ's (another) for the DREP. */
	{
		ib_net64_t t_req, t_rep, t_rtu, t_dreq, t_drep;

		memcpy(&t_req, &raw[r_req].mad[8], 8);
		memcpy(&t_rep, &raw[r_rep].mad[8], 8);
		memcpy(&t_rtu, &raw[r_rtu].mad[8], 8);
		memcpy(&t_dreq, &raw[r_dreq].mad[8], 8);
		memcpy(&t_drep, &raw[r_drep].mad[8], 8);
		CU_ASSERT_EQUAL(t_rep, t_req);
		CU_ASSERT_EQUAL(t_rtu, t_req);
		CU_ASSERT_EQUAL(t_drep, t_dreq);
		CU_ASSERT_NOT_EQUAL(t_dreq, t_req);
		CU_ASSERT_TRUE(num64_is(r_rep, F_TID, cl_ntoh64(t_req)));
		CU_ASSERT_TRUE(num64_is(r_drep, F_TID, cl_ntoh64(t_dreq)));
	}

	/* What the calls asked for. */
	CU_ASSERT_EQUAL(req.req.service_id, HS_SVC_ID);
	CU_ASSERT_EQUAL(req.req.local_ca_guid, cl_ntoh64(side[0].ca_guid));
	CU_ASSERT_EQUAL(req.req.local_qpn, hs[0].qpn);
	CU_ASSERT_EQUAL(req.req.resp_res, 2);
	CU_ASSERT_EQUAL(req.req.init_depth, 3);
	CU_ASSERT_EQUAL(req.req.remote_cm_resp_timeout, 16);
	CU_ASSERT_EQUAL(req.req.local_cm_resp_timeout, 17);
	CU_ASSERT_EQUAL(req.req.transport, AL_CM_TRANSPORT_RC);
	CU_ASSERT_EQUAL(req.req.flow_ctrl, 1);
	CU_ASSERT_EQUAL(req.req.retry_count, 4);
	CU_ASSERT_EQUAL(req.req.rnr_retry_count, 5);
	CU_ASSERT_EQUAL(req.req.max_cm_retries, 3);
	CU_ASSERT_EQUAL(req.req.pkey, 0xFFFF);
	CU_ASSERT_EQUAL(req.req.path_mtu, IB_MTU_LEN_1024);
	CU_ASSERT_EQUAL(req.req.primary.local_lid, cl_ntoh16(side[0].lid));
	CU_ASSERT_EQUAL(req.req.primary.remote_lid, cl_ntoh16(side[1].lid));
	CU_ASSERT_EQUAL(memcmp(&req.req.primary.local_gid, &side[0].gid, 16), 0);
	CU_ASSERT_EQUAL(memcmp(&req.req.primary.remote_gid, &side[1].gid, 16), 0);
	CU_ASSERT_EQUAL(req.req.primary.packet_rate, IB_PATH_RECORD_RATE_10_GBS);
	CU_ASSERT_EQUAL(req.req.primary.subnet_local, 1);
	CU_ASSERT_EQUAL(req.req.alternate.local_lid, 0);
	CU_ASSERT_TRUE(pdata_is(req.req.private_data, IB_REQ_PDATA_SIZE, hs[0].pdata, 40));

	CU_ASSERT_EQUAL(rep.rep.remote_comm_id, req.req.local_comm_id);
	CU_ASSERT_NOT_EQUAL(rep.rep.local_comm_id, 0);
	CU_ASSERT_EQUAL(rep.rep.local_qpn, hs[1].qpn);
	CU_ASSERT_EQUAL(rep.rep.local_ca_guid, cl_ntoh64(side[1].ca_guid));
	CU_ASSERT_EQUAL(rep.rep.init_depth, 1);
	CU_ASSERT_EQUAL(rep.rep.target_ack_delay, 9);
	CU_ASSERT_EQUAL(rep.rep.failover_accepted, IB_FAILOVER_ACCEPT_UNSUPPORTED);
	CU_ASSERT_EQUAL(rep.rep.flow_ctrl, 1);
	CU_ASSERT_EQUAL(rep.rep.rnr_retry_count, 6);
	CU_ASSERT_TRUE(pdata_is(rep.rep.private_data, IB_REP_PDATA_SIZE, hs[1].pdata, 50));

	CU_ASSERT_EQUAL(rtu.rtu.local_comm_id, req.req.local_comm_id);
	CU_ASSERT_EQUAL(rtu.rtu.remote_comm_id, rep.rep.local_comm_id);
	CU_ASSERT_TRUE(pdata_is(rtu.rtu.private_data, IB_RTU_PDATA_SIZE, hs[0].pdata + 1, 60));

	CU_ASSERT_EQUAL(dreq.dreq.local_comm_id, req.req.local_comm_id);
	CU_ASSERT_EQUAL(dreq.dreq.remote_comm_id, rep.rep.local_comm_id);
	CU_ASSERT_EQUAL(dreq.dreq.remote_qpn, hs[1].qpn);
	CU_ASSERT_TRUE(pdata_is(dreq.dreq.private_data, IB_DREQ_PDATA_SIZE, hs[0].pdata + 2, 70));

	CU_ASSERT_EQUAL(drep.drep.local_comm_id, rep.rep.local_comm_id);
	CU_ASSERT_EQUAL(drep.drep.remote_comm_id, req.req.local_comm_id);
	CU_ASSERT_TRUE(pdata_is(drep.drep.private_data, IB_DREP_PDATA_SIZE, hs[1].pdata + 3, 80));
	free_capture();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_each_message_type),
	TEST_ENTRY(test_handshake),
};

int main(void)
{
	if (system("tshark -v >/dev/null 2>&1") != 0) {
		printf("tshark not found: skipped\n");
		return 77;
	}
	return test_run_suite("soft_cm_tshark", tests, TEST_COUNT(tests));
}
