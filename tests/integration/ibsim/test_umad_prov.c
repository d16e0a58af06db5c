/*
 * ibal tests: the verbs provider's MAD path driven directly (no access layer) against OpenSM on ibsim.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Run by tests/integration/ibsim/ibsim-run.sh under LD_PRELOAD=libumad2sim.so on a
 * simulated node that is not the SM's (SIM_HOST=H2). It calls verbs_prov_ops
 * directly: init, get_ca_guids, open_ca, query_ca, a PD, two CQs, a region,
 * QP1 taken RESET-INIT-RTR-RTS, receives posted, then SA queries to the SM
 * LID the port attributes give: PathRecord Get (this port to the SM port),
 * NodeRecord GetTable for the SM's LID, NodeRecord GetTable of everything
 * (to show what ibsim does with multi-MAD answers), and finally a vendor
 * class (0x09) Get sent to its own LID, to see whether an unsolicited QP1
 * request reaches a non-SM client. Completions are awaited through the
 * armed CQ's cq_comp upcall (bounded waits, no sleeping).
 *
 * Output: KEY lines the harness compares with saquery's answers in the same
 * run, then "RESULT: PASS" or "RESULT: FAIL (<n>)". It leaves with _exit()
 * after flushing, because libumad2sim.so may crash in its exit handler.
 *
 * Handle resolution: without the access layer, the test passes the
 * provider's AV object itself as ib_av_handle_t; the al_prov_* functions
 * below stand in for the core's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
#include <time.h>
#include <errno.h>
#include <iba/ib_types.h>
#include "al_prov.h"
#include "../../common/prov_shim.h"

/* ---- Upcalls ---- */
static pthread_mutex_t up_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t up_cond;
static unsigned n_comp, n_port_change, n_async;

static void up_cq_comp(void *al_cq)
{
	(void)al_cq;
	pthread_mutex_lock(&up_lock);
	n_comp++;
	pthread_cond_broadcast(&up_cond);
	pthread_mutex_unlock(&up_lock);
}

static void up_async(void *obj, ib_async_event_t code, uint64_t v)
{
	(void)v;
	printf("ASYNC obj %p code %d\n", obj, (int)code);
	pthread_mutex_lock(&up_lock);
	n_async++;
	pthread_mutex_unlock(&up_lock);
}

static void up_port_change(void *al_ca, uint8_t port)
{
	printf("PORT_CHANGE ca %p port %u\n", al_ca, port);
	pthread_mutex_lock(&up_lock);
	n_port_change++;
	pthread_cond_broadcast(&up_cond);
	pthread_mutex_unlock(&up_lock);
}

static const al_prov_upcalls_t upcalls = { up_cq_comp, up_async, up_port_change };

static int fails;
#define CHECK(c, ...)                                                        \
	do {                                                                 \
		if (!(c)) {                                                  \
			fails++;                                             \
			printf("CHECK FAILED line %d: %s: ", __LINE__, #c);  \
			printf(__VA_ARGS__);                                 \
			printf("\n");                                        \
		}                                                            \
	} while (0)

static const al_prov_ops_t *ops = &verbs_prov_ops;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Waits (at most @p ms) for one completion on @p cq, using the armed upcall. */
static int wait_wc(void *cq, ib_wc_t *out, unsigned ms)
{
	uint64_t end = now_ms() + ms;

	for (;;) {
		ib_wc_t wc, *free_list = &wc, *done = NULL;
		unsigned seen;
		struct timespec ts;

		memset(&wc, 0, sizeof(wc));
		if (ops->poll_cq(cq, &free_list, &done) == IB_SUCCESS && done) {
			*out = *done;
			return 0;
		}
		pthread_mutex_lock(&up_lock);
		seen = n_comp;
		pthread_mutex_unlock(&up_lock);
		ops->rearm_cq(cq, FALSE);
		free_list = &wc;
		if (ops->poll_cq(cq, &free_list, &done) == IB_SUCCESS && done) {
			*out = *done;
			return 0;
		}
		if (now_ms() >= end)
			return -1;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_mutex_lock(&up_lock);
		while (n_comp == seen && now_ms() < end)
			if (pthread_cond_timedwait(&up_cond, &up_lock, &ts) == ETIMEDOUT)
				break;
		pthread_mutex_unlock(&up_lock);
	}
}

/* ---- The fixture ---- */
#define N_RECV   8
#define RECV_LEN (40 + 256)

static struct {
	void *ca, *pd, *scq, *rcq, *qp, *mr, *av, *av_self;
	ib_ca_attr_t *attr;
	net32_t lkey;
	uint8_t *region; /* N_RECV receive buffers, then one send buffer */
	uint32_t tid_lo;
	uint16_t lid, sm_lid;
} f;

/*
 * A completion of one of the QP1 receives (wr_id below N_RECV) on f.rcq.
 * The QP0 test shares the CQ, and as the SM's port QP0 also receives
 * OpenSM's sweep: a request that came to its second buffer after the answer
 * is still in the CQ afterwards. Such completions are dropped here.
 */
static int wait_qp1_wc(ib_wc_t *out, unsigned ms)
{
	uint64_t end = now_ms() + ms;

	for (;;) {
		uint64_t now = now_ms();

		if (wait_wc(f.rcq, out, now < end ? (unsigned)(end - now) : 0))
			return -1;
		if (out->wr_id < N_RECV)
			return 0;
		printf("QP0 completion (wr_id %llu) dropped from the shared CQ\n",
		       (unsigned long long)out->wr_id);
	}
}

static uint8_t *send_buf(void)
{
	return f.region + N_RECV * RECV_LEN;
}

static void post_one_recv(unsigned i)
{
	ib_local_ds_t ds = { (uint64_t)(uintptr_t)(f.region + i * RECV_LEN), RECV_LEN, f.lkey };
	ib_recv_wr_t wr;
	ib_api_status_t st;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = i;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	st = ops->post_recv(f.qp, &wr, NULL);
	CHECK(st == IB_SUCCESS, "post_recv %d", st);
}

/*
 * Sends the 256-byte MAD in send_buf() to (@p av, QP @p qpn) and waits for
 * the response; returns its receive buffer (GRH area first) or NULL.
 */
static const uint8_t *round_trip(void *av, uint32_t qpn, unsigned wait_ms, ib_wc_t *p_rwc)
{
	ib_local_ds_t ds = { (uint64_t)(uintptr_t)send_buf(), 256, f.lkey };
	ib_send_wr_t wr;
	ib_wc_t swc;
	ib_api_status_t st;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1000;
	wr.wr_type = WR_SEND;
	wr.send_opt = IB_SEND_OPT_SIGNALED;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	wr.dgrm.ud.h_av = (ib_av_handle_t)av;
	wr.dgrm.ud.remote_qp = cl_hton32(qpn);
	wr.dgrm.ud.remote_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	wr.dgrm.ud.pkey_index = 0;
	st = ops->post_send(f.qp, &wr, NULL);
	CHECK(st == IB_SUCCESS, "post_send %d", st);
	if (st != IB_SUCCESS)
		return NULL;
	if (wait_wc(f.scq, &swc, 2000)) {
		CHECK(0, "no send completion");
		return NULL;
	}
	CHECK(swc.status == IB_WCS_SUCCESS && swc.wr_id == 1000 && swc.wc_type == IB_WC_SEND,
	      "send wc status %d", swc.status);
	if (wait_qp1_wc(p_rwc, wait_ms))
		return NULL;
	post_one_recv((unsigned)p_rwc->wr_id);
	if (p_rwc->status != IB_WCS_SUCCESS)
		return NULL;
	return f.region + p_rwc->wr_id * RECV_LEN;
}

/* Builds an SA request in send_buf() with a TID whose high half is 0x12345678. */
static ib_sa_mad_t *sa_req(uint8_t method, ib_net16_t attr, ib_net64_t comp_mask)
{
	ib_sa_mad_t *m = (ib_sa_mad_t *)send_buf();

	memset(m, 0, 256);
	m->base_ver = 1;
	m->mgmt_class = IB_MCLASS_SUBN_ADM;
	m->class_ver = 2;
	m->method = method;
	m->trans_id = cl_hton64(0x1234567800000000ull | ++f.tid_lo);
	m->attr_id = attr;
	m->comp_mask = comp_mask;
	return m;
}

static int check_resp(const uint8_t *buf, const ib_wc_t *wc, const char *what)
{
	const ib_sa_mad_t *r = (const ib_sa_mad_t *)(buf + 40);
	const ib_sa_mad_t *q = (const ib_sa_mad_t *)send_buf();
	uint32_t i;

	printf("%s_WC len %u remote_lid %u remote_qp %u sl %u pkey_index %u grh %s\n", what,
	       wc->length, cl_ntoh16(wc->recv.ud.remote_lid), cl_ntoh32(wc->recv.ud.remote_qp),
	       wc->recv.ud.remote_sl, wc->recv.ud.pkey_index,
	       (wc->recv.ud.recv_opt & IB_RECV_OPT_GRH_VALID) ? "yes" : "no");
	printf("%s_TID sent 0x%016llx received 0x%016llx %s\n", what,
	       (unsigned long long)cl_ntoh64(q->trans_id), (unsigned long long)cl_ntoh64(r->trans_id),
	       r->trans_id == q->trans_id ? "MATCH" : "DIFFERENT");
	CHECK(r->trans_id == q->trans_id, "%s TID", what);
	CHECK(r->method == (q->method == IB_MAD_METHOD_GETTABLE ? IB_MAD_METHOD_GETTABLE_RESP
								: IB_MAD_METHOD_GET_RESP),
	      "%s method 0x%x", what, r->method);
	CHECK(cl_ntoh16(wc->recv.ud.remote_lid) == f.sm_lid, "%s source LID", what);
	/* The bytes that came (umad2sim: what OpenSM wrote), zero filled to 256. */
	CHECK(wc->length >= 40 + IB_SA_MAD_HDR_SIZE && wc->length <= RECV_LEN, "%s length %u",
	      what, wc->length);
	for (i = wc->length; i < RECV_LEN && !buf[i]; i++)
		;
	CHECK(i >= RECV_LEN, "%s: byte %u after the MAD is not zero", what, i);
	printf("%s_STATUS 0x%04x rmpp version %u type %u flags 0x%02x seg %u paylen %u "
	       "attr_offset %u\n",
	       what, cl_ntoh16(r->status), r->rmpp_version, r->rmpp_type, r->rmpp_flags,
	       cl_ntoh32(r->seg_num), cl_ntoh32(r->paylen_newwin), cl_ntoh16(r->attr_offset));
	return cl_ntoh16(r->status);
}

static void query_path(void)
{
	ib_sa_mad_t *m = sa_req(IB_MAD_METHOD_GET, IB_MAD_ATTR_PATH_RECORD,
				IB_PR_COMPMASK_SLID | IB_PR_COMPMASK_DLID);
	ib_path_rec_t *pr = (ib_path_rec_t *)m->data;
	const uint8_t *buf;
	ib_wc_t wc;

	pr->slid = cl_hton16(f.lid);
	pr->dlid = cl_hton16(f.sm_lid);
	buf = round_trip(f.av, 1, 3000, &wc);
	CHECK(buf != NULL, "PathRecord: no response");
	if (!buf)
		return;
	if (check_resp(buf, &wc, "PR") == 0) {
		const ib_sa_mad_t *r = (const ib_sa_mad_t *)(buf + 40);
		const ib_path_rec_t *p = (const ib_path_rec_t *)r->data;

		printf("PR slid=%u dlid=%u sl=%u mtu=%u rate=%u pkt_life=%u pkey=%u\n",
		       cl_ntoh16(p->slid), cl_ntoh16(p->dlid), cl_ntoh16(p->qos_class_sl) & 0xF,
		       p->mtu & 0x3F, p->rate & 0x3F, p->pkt_life & 0x3F, cl_ntoh16(p->pkey));
	}
}

static void print_node_rec(const ib_node_record_t *n, const char *tag)
{
	char desc[65];

	memcpy(desc, n->node_desc.description, 64);
	desc[64] = 0;
	printf("%s lid=%u node_guid=0x%016llx port_guid=0x%016llx type=%u ports=%u desc=%s\n",
	       tag, cl_ntoh16(n->lid), (unsigned long long)cl_ntoh64(n->node_info.node_guid),
	       (unsigned long long)cl_ntoh64(n->node_info.port_guid), n->node_info.node_type,
	       n->node_info.num_ports, desc);
}

static void query_nodes(boolean_t all)
{
	ib_sa_mad_t *m = sa_req(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_RECORD,
				all ? 0 : IB_NR_COMPMASK_LID);
	ib_node_record_t *nr = (ib_node_record_t *)m->data;
	const char *tag = all ? "NRALL" : "NR";
	const uint8_t *buf;
	ib_wc_t wc;

	if (!all)
		nr->lid = cl_hton16(f.sm_lid);
	buf = round_trip(f.av, 1, 3000, &wc);
	CHECK(buf != NULL, "%s: no response", tag);
	if (!buf)
		return;
	if (check_resp(buf, &wc, tag) == 0) {
		const ib_sa_mad_t *r = (const ib_sa_mad_t *)(buf + 40);
		unsigned rec = cl_ntoh16(r->attr_offset) * 8u, paylen = cl_ntoh32(r->paylen_newwin);
		unsigned n_total = rec ? (paylen > 20 ? (paylen - 20) / rec : 0) : 0, i;
		unsigned n_here = rec ? IB_SA_DATA_SIZE / rec : 0;

		if (!all)
			n_total = rec ? 1 : 0;
		else if (!paylen) /* no RMPP PayloadLength: the sender left it to a kernel */
			n_total = n_here;
		printf("%s records_in_answer=%u records_in_this_mad=%u\n", tag, n_total,
		       n_total < n_here ? n_total : n_here);
		for (i = 0; i < n_here && i < n_total; i++)
			print_node_rec((const ib_node_record_t *)(r->data + i * rec), tag);
	}
}

/*
 * QP0: a LID-routed SubnGet(NodeInfo) to the SM's port (ibsim's SMA answers):
 * the node GUID must be the one the SA's NodeRecord gave.
 */
static void smp_nodeinfo(uint64_t want_guid)
{
	ib_qp_create_t c;
	ib_qp_mod_t mod;
	void *qp0 = NULL, *mr0 = NULL;
	uint8_t *rbuf = calloc(2, RECV_LEN);
	ib_mr_create_t mc;
	net32_t lkey0, rkey0;
	ib_local_ds_t ds;
	ib_recv_wr_t rwr, rwr1;
	ib_local_ds_t ds1;
	const uint8_t *got = NULL;
	ib_send_wr_t wr;
	unsigned i;
	ib_wc_t wc;
	ib_api_status_t st;
	uint8_t *m = send_buf();

	memset(&c, 0, sizeof(c));
	c.qp_type = IB_QPT_QP0;
	c.sq_depth = c.rq_depth = 2;
	c.sq_sge = c.rq_sge = 1;
	c.sq_signaled = TRUE;
	st = ops->create_spl_qp(f.pd, 1, &c, f.scq, f.rcq, (void *)0x90, &qp0);
	printf("QP0 create_spl_qp: %s\n", ib_get_err_str(st));
	if (st != IB_SUCCESS) {
		free(rbuf);
		return;
	}
	memset(&mc, 0, sizeof(mc));
	mc.vaddr = rbuf;
	mc.length = 2 * RECV_LEN;
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	CHECK(ops->reg_mem(f.pd, &mc, &lkey0, &rkey0, &mr0) == IB_SUCCESS, "reg_mem QP0");
	memset(&mod, 0, sizeof(mod));
	mod.req_state = IB_QPS_INIT;
	CHECK(ops->modify_qp(qp0, &mod) == IB_SUCCESS, "QP0 to INIT");
	ds.vaddr = (uint64_t)(uintptr_t)rbuf;
	ds.length = RECV_LEN;
	ds.lkey = lkey0;
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 500;
	rwr.num_ds = 1;
	rwr.ds_array = &ds;
	CHECK(ops->post_recv(qp0, &rwr, NULL) == IB_SUCCESS, "QP0 post_recv");
	/* A second buffer: OpenSM's sweep may take one while the answer is on its way. */
	ds1 = ds;
	ds1.vaddr = (uint64_t)(uintptr_t)(rbuf + RECV_LEN);
	rwr1 = rwr;
	rwr1.wr_id = 502;
	rwr1.ds_array = &ds1;
	CHECK(ops->post_recv(qp0, &rwr1, NULL) == IB_SUCCESS, "QP0 post_recv (second buffer)");
	mod.req_state = IB_QPS_RTR;
	CHECK(ops->modify_qp(qp0, &mod) == IB_SUCCESS, "QP0 to RTR");
	memset(&mod, 0, sizeof(mod));
	mod.req_state = IB_QPS_RTS;
	CHECK(ops->modify_qp(qp0, &mod) == IB_SUCCESS, "QP0 to RTS");
	memset(m, 0, 256);
	m[0] = 1;
	m[1] = IB_MCLASS_SUBN_LID;
	m[2] = 1;
	m[3] = IB_MAD_METHOD_GET;
	m[8] = 0x55;
	m[15] = 0x01;
	m[16] = 0x00; /* AttributeID NodeInfo (0x0011) */
	m[17] = 0x11;
	ds.vaddr = (uint64_t)(uintptr_t)m;
	ds.length = 256;
	ds.lkey = f.lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 501;
	wr.wr_type = WR_SEND;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	wr.dgrm.ud.h_av = (ib_av_handle_t)f.av;
	wr.dgrm.ud.remote_qp = 0;
	CHECK(ops->post_send(qp0, &wr, NULL) == IB_SUCCESS, "QP0 post_send");
	CHECK(wait_wc(f.scq, &wc, 2000) == 0 && wc.wr_id == 501 && wc.status == IB_WCS_SUCCESS,
	      "QP0 send completion");
	/* As the SM's port (IBAL_VERBS_ISSM=1) QP0 also receives OpenSM's own
	 * sweep (DR SMP requests): skip requests until the response arrives. */
	for (i = 0; i < 16; i++) {
		if (wait_wc(f.rcq, &wc, 3000) || (wc.wr_id != 500 && wc.wr_id != 502) ||
		    wc.status != IB_WCS_SUCCESS)
			break;
		got = rbuf + (wc.wr_id == 502 ? RECV_LEN : 0);
		if (got[40 + 3] & 0x80)
			break;
		printf("SMP request (method 0x%02x) from lid %u skipped\n", got[40 + 3],
		       cl_ntoh16(wc.recv.ud.remote_lid));
		CHECK(ops->post_recv(qp0, wc.wr_id == 502 ? &rwr1 : &rwr, NULL) == IB_SUCCESS,
		      "QP0 post_recv again");
	}
	if (i < 16 && got && wc.status == IB_WCS_SUCCESS && (got[40 + 3] & 0x80)) {
		const uint8_t *r = got + 40;
		const ib_node_info_t *ni = (const ib_node_info_t *)(r + 64);

		printf("SMP NodeInfo from lid %u qp %u: method 0x%02x status 0x%02x%02x node_guid "
		       "0x%016llx\n", cl_ntoh16(wc.recv.ud.remote_lid),
		       cl_ntoh32(wc.recv.ud.remote_qp), r[3], r[4], r[5],
		       (unsigned long long)cl_ntoh64(ni->node_guid));
		CHECK(r[3] == IB_MAD_METHOD_GET_RESP && cl_ntoh64(ni->node_guid) == want_guid,
		      "SMP NodeInfo answer");
		CHECK(r[8] == 0x55 && r[15] == 0x01, "SMP TID");
	} else {
		CHECK(0, "QP0: no NodeInfo answer");
	}
	ops->destroy_qp(qp0);
	ops->dereg_mr(mr0);
	free(rbuf);
}

/* PerfMgt ClassPortInfo Get to the SM's port (answered by ibsim's PMA): a second class and agent. */
static void query_pma(void)
{
	ib_sa_mad_t *m = sa_req(IB_MAD_METHOD_GET, CL_HTON16(0x0001), 0);
	const uint8_t *buf;
	ib_wc_t wc;

	m->mgmt_class = IB_MCLASS_PERF;
	m->class_ver = 1;
	buf = round_trip(f.av, 1, 3000, &wc);
	CHECK(buf != NULL, "PerfMgt ClassPortInfo: no response");
	if (buf)
		check_resp(buf, &wc, "PMA");
}

/* A vendor class 0x09 Get to our own LID's QP1: does an unsolicited request arrive? */
static void unsolicited_self(void)
{
	uint8_t *m = send_buf();
	ib_wc_t wc;
	const uint8_t *buf;

	memset(m, 0, 256);
	m[0] = 1;
	m[1] = 0x09;
	m[2] = 1;
	m[3] = IB_MAD_METHOD_GET;
	m[8] = 0xAB;
	m[15] = 0x77;
	buf = round_trip(f.av_self, 1, 1500, &wc);
	if (buf)
		printf("UNSOLICITED class 0x09 Get to own LID %u: RECEIVED (method 0x%02x)\n", f.lid,
		       buf[40 + 3]);
	else
		printf("UNSOLICITED class 0x09 Get to own LID %u: NOT RECEIVED within 1.5 s\n",
		       f.lid);
}

/*
 * Subscribes to every generic trap (InformInfo Set), prints SUBSCRIBED (the
 * harness then unlinks H3 in ibsim, so OpenSM reports GID out of service),
 * and waits up to 5 s for an SA Report on QP1.
 */
static void report_wait(void)
{
	ib_sa_mad_t *m = sa_req(IB_MAD_METHOD_SET, IB_MAD_ATTR_INFORM_INFO, 0);
	ib_inform_info_t *ii = (ib_inform_info_t *)m->data;
	const uint8_t *buf;
	ib_wc_t wc;
	uint64_t end;

	ii->lid_range_begin = CL_HTON16(0xFFFF);
	ii->is_generic = 1;
	ii->subscribe = 1;
	ii->trap_type = CL_HTON16(0xFFFF);
	ii->g_or_v.generic.trap_num = CL_HTON16(0xFFFF);
	ii->g_or_v.generic.qpn_resp_time_val = cl_hton32((1u << 8) | 18);
	ii->g_or_v.generic.node_type_msb = 0xFF;
	ii->g_or_v.generic.node_type_lsb = CL_HTON16(0xFFFF);
	buf = round_trip(f.av, 1, 3000, &wc);
	CHECK(buf != NULL, "InformInfo Set: no response");
	if (!buf || check_resp(buf, &wc, "INFORM") != 0)
		return;
	printf("SUBSCRIBED to all generic traps\n");
	fflush(stdout);
	end = now_ms() + 5000;
	while (now_ms() < end) {
		const ib_sa_mad_t *r;

		if (wait_qp1_wc(&wc, (unsigned)(end - now_ms())))
			break;
		post_one_recv((unsigned)wc.wr_id);
		if (wc.status != IB_WCS_SUCCESS)
			continue;
		r = (const ib_sa_mad_t *)(f.region + wc.wr_id * RECV_LEN + 40);
		printf("UNSOLICITED received class 0x%02x method 0x%02x attr 0x%04x from lid %u\n",
		       r->mgmt_class, r->method, cl_ntoh16(r->attr_id),
		       cl_ntoh16(wc.recv.ud.remote_lid));
		if (r->method == IB_MAD_METHOD_REPORT) {
			printf("REPORT RECEIVED trap %u\n",
			       cl_ntoh16(((const ib_mad_notice_attr_t *)r->data)->g_or_v.generic.trap_num));
			return;
		}
	}
	printf("REPORT NOT RECEIVED within 5 s\n");
}

/*
 * umad2sim writes the device's sysfs files once, under ./sys-<pid>/ (its
 * "sysfs" for this process). Rewriting the SM LID there is what the kernel
 * would show after an SM change: the provider's poll must see it and call
 * port_change (IBAL_VERBS_POLL_MS is set low by the harness).
 */
static void port_change_sim(void)
{
	char path[256];
	FILE *fp;
	unsigned before, seen = 0;
	uint64_t end;
	uint32_t size = 0;
	ib_ca_attr_t *a;

	snprintf(path, sizeof(path), "./sys-%d//sys/class/infiniband/ibsim0/ports/1/sm_lid",
		 (int)getpid());
	pthread_mutex_lock(&up_lock);
	before = n_port_change;
	pthread_mutex_unlock(&up_lock);
	fp = fopen(path, "w");
	if (!fp) {
		printf("PORT_CHANGE_SIM skipped: cannot write %s\n", path);
		return;
	}
	fprintf(fp, "0x%x", f.sm_lid + 100);
	fclose(fp);
	end = now_ms() + 3000;
	pthread_mutex_lock(&up_lock);
	while (n_port_change == before && now_ms() < end) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&up_cond, &up_lock, &ts);
	}
	seen = n_port_change - before;
	pthread_mutex_unlock(&up_lock);
	ops->query_ca(f.ca, NULL, &size);
	a = calloc(1, size);
	ops->query_ca(f.ca, a, &size);
	printf("PORT_CHANGE_SIM upcalls=%u sm_lid now %u\n", seen, cl_ntoh16(a->p_port_attr[0].sm_lid));
	CHECK(seen >= 1, "no port_change upcall after the SM LID changed");
	CHECK(cl_ntoh16(a->p_port_attr[0].sm_lid) == f.sm_lid + 100, "query_ca SM LID");
	free(a);
	fp = fopen(path, "w");
	if (fp) {
		fprintf(fp, "0x%x", f.sm_lid);
		fclose(fp);
	}
}

static void setup_qp(void)
{
	ib_qp_create_t c;
	ib_qp_mod_t mod;
	uint32_t size = 64;
	ib_mr_create_t mc;
	net32_t rkey;
	ib_av_attr_t av;
	ib_qp_attr_t qa;
	unsigned i;

	CHECK(ops->alloc_pd(f.ca, IB_PDT_NORMAL, &f.pd) == IB_SUCCESS, "alloc_pd");
	CHECK(ops->create_cq(f.ca, &size, (void *)0x5C, &f.scq) == IB_SUCCESS, "create_cq");
	CHECK(ops->create_cq(f.ca, &size, (void *)0x6C, &f.rcq) == IB_SUCCESS, "create_cq");
	f.region = calloc(N_RECV + 1, RECV_LEN);
	memset(&mc, 0, sizeof(mc));
	mc.vaddr = f.region;
	mc.length = (N_RECV + 1) * RECV_LEN;
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	CHECK(ops->reg_mem(f.pd, &mc, &f.lkey, &rkey, &f.mr) == IB_SUCCESS, "reg_mem");
	memset(&c, 0, sizeof(c));
	c.qp_type = IB_QPT_QP1;
	c.sq_depth = 16;
	c.rq_depth = N_RECV;
	c.sq_sge = 1;
	c.rq_sge = 1;
	c.sq_signaled = FALSE;
	CHECK(ops->create_spl_qp(f.pd, 1, &c, f.scq, f.rcq, (void *)0x9F, &f.qp) == IB_SUCCESS,
	      "create_spl_qp QP1");
	memset(&mod, 0, sizeof(mod));
	mod.req_state = IB_QPS_INIT;
	mod.state.init.qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	mod.state.init.pkey_index = 0;
	CHECK(ops->modify_qp(f.qp, &mod) == IB_SUCCESS, "to INIT");
	for (i = 0; i < N_RECV; i++)
		post_one_recv(i);
	memset(&mod, 0, sizeof(mod));
	mod.req_state = IB_QPS_RTR;
	CHECK(ops->modify_qp(f.qp, &mod) == IB_SUCCESS, "to RTR");
	memset(&mod, 0, sizeof(mod));
	mod.req_state = IB_QPS_RTS;
	mod.state.rts.sq_psn = 0;
	CHECK(ops->modify_qp(f.qp, &mod) == IB_SUCCESS, "to RTS");
	memset(&mod, 0, sizeof(mod));
	mod.req_state = IB_QPS_RTR;
	CHECK(ops->modify_qp(f.qp, &mod) == IB_INVALID_QP_STATE, "RTS to RTR refused");
	CHECK(ops->query_qp(f.qp, &qa) == IB_SUCCESS && qa.state == IB_QPS_RTS &&
		      qa.num == cl_hton32(1) && qa.qkey == IB_QP1_WELL_KNOWN_Q_KEY,
	      "query_qp state %d num 0x%x", qa.state, cl_ntoh32(qa.num));
	memset(&av, 0, sizeof(av));
	av.port_num = 1;
	av.dlid = cl_hton16(f.sm_lid);
	av.sl = f.attr->p_port_attr[0].sm_sl;
	CHECK(ops->create_av(f.pd, &av, &f.av) == IB_SUCCESS, "create_av");
	av.dlid = cl_hton16(f.lid);
	CHECK(ops->create_av(f.pd, &av, &f.av_self) == IB_SUCCESS, "create_av self");
	av.dlid = 0;
	{
		void *bad = NULL;

		CHECK(ops->create_av(f.pd, &av, &bad) == IB_INVALID_SETTING, "AV DLID 0 refused");
	}
}

/* A send whose SGE carries a wrong L_Key completes in error, nothing is sent. */
static void bad_lkey(void)
{
	/* bit 16 of the key as the provider hands it out (host order since 7f86d69) */
	ib_local_ds_t ds = { (uint64_t)(uintptr_t)send_buf(), 256, f.lkey ^ 0x10000u };
	ib_send_wr_t wr;
	ib_wc_t wc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 77;
	wr.wr_type = WR_SEND;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	wr.dgrm.ud.h_av = (ib_av_handle_t)f.av;
	wr.dgrm.ud.remote_qp = cl_hton32(1);
	wr.dgrm.ud.remote_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	CHECK(ops->post_send(f.qp, &wr, NULL) == IB_SUCCESS, "post_send bad lkey");
	CHECK(wait_wc(f.scq, &wc, 1000) == 0 && wc.wr_id == 77 &&
		      wc.status == IB_WCS_LOCAL_PROTECTION_ERR,
	      "bad L_Key completion status %d", wc.status);
}

int main(void)
{
	ib_net64_t guids[8];
	size_t n = 8;
	uint32_t size = 0;
	const ib_port_attr_t *pa;
	pthread_condattr_t ca;

	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_condattr_init(&ca);
	pthread_cond_init(&up_cond, &ca);
	CHECK(ops->init(&upcalls) == IB_SUCCESS, "init");
	CHECK(ops->get_ca_guids(guids, &n) == IB_SUCCESS && n >= 1, "get_ca_guids n=%zu", n);
	if (fails || n < 1) {
		printf("RESULT: FAIL (no CA)\n");
		fflush(stdout);
		_exit(1);
	}
	printf("CAS %zu first_guid=0x%016llx\n", n, (unsigned long long)cl_ntoh64(guids[0]));
	CHECK(ops->open_ca(guids[0], (void *)0xCA, &f.ca) == IB_SUCCESS, "open_ca");
	CHECK(ops->query_ca(f.ca, NULL, &size) == IB_INSUFFICIENT_MEMORY && size, "size probe");
	f.attr = calloc(1, size);
	CHECK(ops->query_ca(f.ca, f.attr, &size) == IB_SUCCESS, "query_ca");
	pa = &f.attr->p_port_attr[0];
	f.lid = cl_ntoh16(pa->lid);
	f.sm_lid = cl_ntoh16(pa->sm_lid);
	printf("CA guid=0x%016llx sysguid=0x%016llx ports=%u\n",
	       (unsigned long long)cl_ntoh64(f.attr->ca_guid),
	       (unsigned long long)cl_ntoh64(f.attr->system_image_guid), f.attr->num_ports);
	printf("PORT num=%u state=%u phys=%u lid=%u lmc=%u sm_lid=%u sm_sl=%u width=%u speed=%u "
	       "port_guid=0x%016llx gid_prefix=0x%016llx pkeys=%u pkey0=0x%04x cap_sm=%d\n",
	       pa->port_num, pa->link_state, pa->phys_state, f.lid, pa->lmc, f.sm_lid, pa->sm_sl,
	       pa->active_width, pa->active_speed, (unsigned long long)cl_ntoh64(pa->port_guid),
	       (unsigned long long)cl_ntoh64(pa->p_gid_table[0].unicast.prefix), pa->num_pkeys,
	       cl_ntoh16(pa->p_pkey_table[0]), pa->cap.sm);
	CHECK(pa->link_state == IB_LINK_ACTIVE && f.lid && f.sm_lid, "port not active");
	setup_qp();
	if (!fails) {
		bad_lkey();
		query_path();
		query_nodes(FALSE);
		query_nodes(TRUE);
		query_pma();
		smp_nodeinfo(0x0000000000100000ull); /* H1's node GUID in the topology */
		unsolicited_self();
		report_wait();
		port_change_sim();
	}
	pthread_mutex_lock(&up_lock);
	printf("UPCALLS cq_comp=%u port_change=%u async=%u\n", n_comp, n_port_change, n_async);
	CHECK(n_comp > 0, "no cq_comp upcall");
	pthread_mutex_unlock(&up_lock);
	ops->destroy_av(f.av);
	ops->destroy_av(f.av_self);
	ops->destroy_qp(f.qp);
	ops->dereg_mr(f.mr);
	ops->destroy_cq(f.scq);
	ops->destroy_cq(f.rcq);
	ops->dealloc_pd(f.pd);
	ops->close_ca(f.ca);
	ops->cleanup();
	free(f.region);
	free(f.attr);
	if (fails)
		printf("RESULT: FAIL (%d)\n", fails);
	else
		printf("RESULT: PASS\n");
	fflush(stdout);
	fflush(stderr);
	_exit(fails ? 1 : 0);
}
