/*
 * ibal tests: the connection manager's other exchanges between two soft CAs (handoff, peer-to-peer, LAP/APR, SIDR, malformed and duplicate messages).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Same fixture as test_al_cm.c (cm_fixture.h). Malformed, duplicate and
 * stale messages are sent through a QP1 alias of the test's own with a
 * class 0x07 service of another class version, packed by al_cm_pack().
 * Waits are bounded, never sleeps.
 */
#define _GNU_SOURCE /* pthread_getname_np (cm_fixture.h) */
#include <sys/wait.h>
#include <unistd.h>
#include "cm_fixture.h"
#include "al_cm_int.h"
#include "al_mad.h"
#include "ibal_arena.h"
#include <iba/ibal_soft.h>
#include "../common/soft_ctl.h"

/* The passive side rejects the REQ of @p h (a user-defined reason). */
static void rej_req(ib_cm_handle_t h)
{
	ib_cm_rej_t j;

	memset(&j, 0, sizeof(j));
	j.rej_status = IB_REJ_USER_DEFINED;
	CU_ASSERT_EQUAL(ib_cm_rej(h, &j), IB_SUCCESS);
}

/* ib_cm_handoff: the REQ of one listen is delivered to the listen of another service. */
static void test_cm_handoff(void)
{
	ib_listen_handle_t h1, h2;
	ib_cm_req_t q;

	ends_up();
	h1 = listen_on(SVC, NULL, 0, 0, (void *)1);
	h2 = listen_on(CL_HTON64(0x2222), NULL, 0, 0, (void *)2);
	mode.handoff = CL_HTON64(0x2222);
	mode.rep_in_req = 1;
	mode.rtu_in_rep = 1;
	req_fill(&q, SVC, (const uint8_t *)"handoff", 8);
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rtu, 1), 1);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_req, 2), 2);
	CU_ASSERT_EQUAL(cm_rec.req_context, (void *)2);
	CU_ASSERT_EQUAL(cm_rec.h_listen, h2);
	CU_ASSERT(!memcmp(cm_rec.req_pdata, "handoff", 8));
	cm_check_data(&act, &pas, 100, 5);
	disconnect_pair();
	wait_no_cep();
	/* To a service nobody listens on: refused, the REQ stays. */
	qp_reset(act.qp);
	qp_reset(pas.qp);
	cm_rec_reset();
	mode.handoff = 0;
	mode.rep_in_req = 0;
	req_fill(&q, SVC, NULL, 0);
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_req, 1), 1);
	CU_ASSERT_EQUAL(ib_cm_handoff(cm_rec.h_req, CL_HTON64(0x3333)), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_cm_handoff(cm_rec.h_req, 0), IB_INVALID_PARAMETER);
	rej_req(cm_rec.h_req);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, 1), 1);
	wait_no_cep();
	CU_ASSERT_EQUAL(ib_cm_cancel(h1, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_cm_cancel(h2, ib_sync_destroy), IB_SUCCESS);
	ends_down();
}

/* Peer-to-peer: both sides send a REQ for the same service; one becomes passive. */
static void test_cm_peer_to_peer(void)
{
	ib_cm_req_t qa, qb;
	ib_path_rec_t pb;
	int tries;

	ends_up();
	mode.p2p = 1;
	mode.rep_in_req = 1;
	mode.rtu_in_rep = 1;
	req_fill(&qa, SVC, (const uint8_t *)"A", 2);
	qa.pfn_cm_req_cb = on_req;
	cm_make_path(&pb, lid[1], &gid[1], lid[0], &gid[0], PKT_LIFE);
	qb = qa;
	qb.p_primary_path = &pb;
	qb.h_qp = pas.qp;
	qb.p_req_pdata = (const uint8_t *)"B";
	/* A REQ that arrives before the peer's own ib_cm_req finds nothing to
	 * match and is rejected, as the IBA says: then both try again. */
	for (tries = 0; tries < 5; tries++) {
		CU_ASSERT_EQUAL(ib_cm_req(&qa), IB_SUCCESS);
		CU_ASSERT_EQUAL(ib_cm_req(&qb), IB_SUCCESS);
		if (cm_wait_ms(&cm_rec.n_rtu, 1, 2000) == 1) {
			cm_wait(&cm_rec.n_rep, 1);
			cm_wait(&cm_rec.n_req, 1);
			break;
		}
		CU_ASSERT(cm_rec.n_rej >= 1);
		wait_no_cep();
		qp_reset(act.qp);
		qp_reset(pas.qp);
		cm_rec_reset();
	}
	CU_ASSERT_EQUAL(cm_rec.n_rtu, 1);
	CU_ASSERT_EQUAL(cm_rec.n_req, 1);
	CU_ASSERT_EQUAL(cm_rec.n_rep, 1);
	CU_ASSERT_EQUAL(cm_rec.n_rej, 0);
	/* The side with the larger CA GUID answered the other's REQ. */
	CU_ASSERT(!memcmp(cm_rec.req_pdata,
			  cl_ntoh64(ca_guid[0]) > cl_ntoh64(ca_guid[1]) ? "B" : "A", 2));
	CU_ASSERT_EQUAL(cm_qp_state(act.qp), IB_QPS_RTS);
	CU_ASSERT_EQUAL(cm_qp_state(pas.qp), IB_QPS_RTS);
	cm_check_data(&act, &pas, 50, 9);
	cm_check_data(&pas, &act, 70, 11);
	disconnect_pair();
	cm_test_end(NULL);
}

/* LAP timeouts: one answered (t(18) = 1.07 s: a loaded machine never
 * resends the LAP across its APR), one left unanswered (t(RESP_TO)). */
#define LAP_TO_LONG 18

static ib_api_status_t send_lap_to(ib_path_rec_t *p_alt, uint8_t resp_to)
{
	ib_cm_lap_t l;

	memset(&l, 0, sizeof(l));
	l.qp_type = IB_QPT_RELIABLE_CONN;
	l.h_qp = act.qp;
	l.remote_resp_timeout = resp_to;
	l.p_alt_path = p_alt;
	l.p_lap_pdata = (const uint8_t *)"lap";
	l.lap_length = 4;
	l.pfn_cm_apr_cb = on_apr;
	return ib_cm_lap(&l);
}

static ib_api_status_t send_lap(ib_path_rec_t *p_alt)
{
	return send_lap_to(p_alt, LAP_TO_LONG);
}

/* ib_cm_mra for a received LAP: the LAP's sender waits the MRA's service
 * timeout (4.3 s) instead of its own (~0.4 s with the resends), then the
 * APR given later from this thread is taken. */
static void test_cm_lap_mra(void)
{
	ib_listen_handle_t hl;
	ib_path_rec_t alt;
	ib_cm_apr_t a;
	al_cm_stats_t s0, s1;

	hl = ends_up_listen();
	connect_pair();
	memset(&lap, 0, sizeof(lap));
	lap.apm = TRUE;
	cm_make_path(&alt, lid[0], &gid[0], lid[1], &gid[1], PKT_LIFE);
	ib_path_rec_set_sl(&alt, 1);
	lap.answer = -2;
	CU_ASSERT_EQUAL(send_lap_to(&alt, RESP_TO), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&lap.n_lap, 1), 1);
	CU_ASSERT(cm_wait(&cm_rec.n_mra, 1) >= 1);
	al_cm_get_stats(&s0);
	/* Past the LAP's own timeout and resends: no APR callback (a timeout
	 * would have given one with IB_TIMEOUT), no LAP resent. */
	CU_ASSERT_EQUAL(cm_wait_ms(&lap.n_apr, 1, 700), 0);
	al_cm_get_stats(&s1);
	CU_ASSERT_EQUAL(s1.n_resend, s0.n_resend);
	CU_ASSERT_EQUAL(lap.n_lap, 1);
	memset(&a, 0, sizeof(a));
	a.qp_type = IB_QPT_RELIABLE_CONN;
	a.h_qp = pas.qp;
	a.apr_status = IB_AP_SUCCESS;
	CU_ASSERT_EQUAL(ib_cm_apr(lap.h_lap, &a), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&lap.n_apr, 1), 1);
	CU_ASSERT_EQUAL(lap.cm_status, IB_SUCCESS);
	CU_ASSERT_EQUAL(lap.apr_status, IB_AP_SUCCESS);
	cm_check_data(&act, &pas, 40, 6);
	disconnect_pair();
	cm_test_end(hl);
}

/* Unplugs CA i from the process or plugs it back (the soft provider's ib_ci_call). */
static ib_api_status_t ca_present(int i, boolean_t present)
{
	return soft_set_present(h_ca[i], present);
}

/* A CA plugged in after the CM started gets its agent from its port's PnP
 * event: a connection to it through a listen made before works. */
static void test_cm_port_added(void)
{
	ib_listen_handle_t hl;
	uint64_t end;
	int dummy = 0;

	ends_up();
	CU_ASSERT_EQUAL_FATAL(ca_present(1, FALSE), IB_SUCCESS);
	hl = listen_on(SVC, NULL, 0, 0, NULL);          /* starts the CM: CA 0 only */
	CU_ASSERT_EQUAL(al_cm_port_count(), 1);
	CU_ASSERT_EQUAL_FATAL(ca_present(1, TRUE), IB_SUCCESS);
	end = test_now_ms() + TEST_WAIT_US / 1000u;
	while (al_cm_port_count() < 2 && test_now_ms() < end)
		cm_wait_ms(&dummy, 1, 10);
	CU_ASSERT_EQUAL_FATAL(al_cm_port_count(), 2);
	{
		/* The port's LID, as it is now. */
		ib_ca_attr_t *p_attr;
		uint32_t size = 0;

		ib_query_ca(h_ca[1], NULL, &size);
		p_attr = (ib_ca_attr_t *)malloc(size);
		CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca[1], p_attr, &size), IB_SUCCESS);
		lid[1] = p_attr->p_port_attr[0].lid;
		free(p_attr);
	}
	connect_pair();
	cm_check_data(&act, &pas, 64, 7);
	cm_check_data(&pas, &act, 32, 8);
	disconnect_pair();
	cm_test_end(hl);
}

/* Port 2 of CA i (LID, GID), on a fabric made with IBAL_SOFT_PORTS=2. */
static void port2_of(int i, ib_net16_t *p_lid, ib_gid_t *p_gid)
{
	ib_ca_attr_t *p_attr;
	uint32_t size = 0;

	CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca[i], NULL, &size), IB_INSUFFICIENT_MEMORY);
	p_attr = (ib_ca_attr_t *)malloc(size);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p_attr);
	CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca[i], p_attr, &size), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(p_attr->num_ports, 2);
	*p_lid = p_attr->p_port_attr[1].lid;
	*p_gid = p_attr->p_port_attr[1].p_gid_table[0];
	free(p_attr);
}

/* A REQ with an alternate path over port 2: accepted by the REP, both QPs
 * load and arm it when they go to RTR/RTS, ib_force_apm works at once and
 * data flows on port 2; refused, no QP has it. */
static void test_cm_req_alt_path(void)
{
	ib_listen_handle_t hl;
	ib_path_rec_t alt;
	ib_net16_t lid2[2];
	ib_gid_t gid2[2];
	ib_cm_req_t q;
	ib_qp_attr_t qa;
	int round;

	setenv("IBAL_SOFT_PORTS", "2", 1);
	up();
	port2_of(0, &lid2[0], &gid2[0]);
	port2_of(1, &lid2[1], &gid2[1]);
	ends_open();
	hl = listen_on(SVC, NULL, 0, 0, NULL);
	cm_make_path(&alt, lid2[0], &gid2[0], lid2[1], &gid2[1], PKT_LIFE);
	for (round = 0; round < 2; round++) {
		/* Round 0: failover accepted; round 1: refused. */
		mode.failover = round == 0;
		mode.rep_in_req = 1;
		mode.rtu_in_rep = 1;
		req_fill(&q, SVC, (const uint8_t *)"alt", 4);
		q.p_alt_path = &alt;
		CU_ASSERT_EQUAL_FATAL(ib_cm_req(&q), IB_SUCCESS);
		CU_ASSERT_EQUAL_FATAL(cm_wait(&cm_rec.n_rtu, 1), 1);
		CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rep, 1), 1);
		/* The passive side saw the alternate path from its side. */
		CU_ASSERT_EQUAL(cm_rec.req_alt_path.dlid, lid2[0]);
		CU_ASSERT_EQUAL(cm_rec.req_alt_path.slid, lid2[1]);
		CU_ASSERT_EQUAL(cm_rec.rep_apr_status, round == 0 ? IB_AP_SUCCESS : IB_AP_UNSUPPORTED);
		CU_ASSERT_EQUAL(ib_query_qp(act.qp, &qa), IB_SUCCESS);
		CU_ASSERT_EQUAL(qa.state, IB_QPS_RTS);
		CU_ASSERT_EQUAL(qa.apm_state, round == 0 ? IB_APM_ARMED : IB_APM_MIGRATED);
		if (round == 0) {
			CU_ASSERT_EQUAL(qa.alternate_av.dlid, lid2[1]);
			CU_ASSERT_EQUAL(qa.alternate_av.port_num, 2);
		}
		CU_ASSERT_EQUAL(ib_query_qp(pas.qp, &qa), IB_SUCCESS);
		CU_ASSERT_EQUAL(qa.state, IB_QPS_RTS);
		CU_ASSERT_EQUAL(qa.apm_state, round == 0 ? IB_APM_ARMED : IB_APM_MIGRATED);
		if (round == 0) {
			CU_ASSERT_EQUAL(qa.alternate_av.dlid, lid2[0]);
			CU_ASSERT_EQUAL(qa.alternate_av.port_num, 2);
			/* Right after connecting: migrate, and data flows on port 2
			 * both ways (the passive QP follows the MigReq). */
			CU_ASSERT_EQUAL(ib_force_apm(act.qp), IB_SUCCESS);
			CU_ASSERT_EQUAL(ib_query_qp(act.qp, &qa), IB_SUCCESS);
			CU_ASSERT_EQUAL(qa.apm_state, IB_APM_MIGRATED);
			CU_ASSERT_EQUAL(qa.primary_av.dlid, lid2[1]);
			CU_ASSERT_EQUAL(qa.primary_av.port_num, 2);
			cm_check_data(&act, &pas, 64, 3);
			cm_check_data(&pas, &act, 96, 5);
			CU_ASSERT_EQUAL(ib_query_qp(pas.qp, &qa), IB_SUCCESS);
			CU_ASSERT_EQUAL(qa.apm_state, IB_APM_MIGRATED);
			CU_ASSERT_EQUAL(qa.primary_av.dlid, lid2[0]);
		} else {
			CU_ASSERT_EQUAL(ib_force_apm(act.qp), IB_INVALID_QP_STATE);
			cm_check_data(&act, &pas, 64, 3);
		}
		disconnect_pair();
		wait_no_cep();
		qp_reset(act.qp);
		qp_reset(pas.qp);
		cm_rec_reset();
	}
	CU_ASSERT_EQUAL(ib_cm_cancel(hl, ib_sync_destroy), IB_SUCCESS);
	ends_down();
	unsetenv("IBAL_SOFT_PORTS");
}

/* LAP/APR: the alternate path is loaded and armed on both QPs; refusals and timeouts. */
static void test_cm_lap_apr(void)
{
	ib_listen_handle_t hl;
	ib_path_rec_t alt;
	ib_qp_attr_t qa;
	ib_cm_lap_t l;
	ib_ca_attr_t *p_attr;
	uint32_t size = 0;
	boolean_t apm;

	up();
	ib_query_ca(h_ca[1], NULL, &size);
	p_attr = (ib_ca_attr_t *)malloc(size);
	CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca[1], p_attr, &size), IB_SUCCESS);
	apm = p_attr->apm_support;
	free(p_attr);
	ends_open();
	hl = listen_on(SVC, NULL, 0, 0, NULL);
	connect_pair();
	memset(&lap, 0, sizeof(lap));
	lap.apm = apm;
	/* The same ports on another SL. */
	cm_make_path(&alt, lid[0], &gid[0], lid[1], &gid[1], PKT_LIFE);
	ib_path_rec_set_sl(&alt, 1);
	lap.answer = IB_AP_SUCCESS;
	CU_ASSERT_EQUAL(send_lap(&alt), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&lap.n_apr, 1), 1);
	CU_ASSERT_EQUAL(cm_wait(&lap.n_lap_done, 1), 1);   /* before the next LAP */
	CU_ASSERT_EQUAL(lap.n_lap, 1);
	CU_ASSERT_EQUAL(lap.cm_status, IB_SUCCESS);
	CU_ASSERT(!memcmp(lap.lap_pdata, "lap", 4));
	CU_ASSERT_EQUAL(lap.alt.dlid, lid[0]);
	CU_ASSERT_EQUAL(ib_path_rec_sl(&lap.alt), 1);
	if (!apm) {
		/* A CA without path migration cannot load it: the passive side
		 * answers IB_AP_REJECT although its user accepted. */
		CU_ASSERT_EQUAL(lap.apr_status, IB_AP_REJECT);
		goto refused;
	}
	CU_ASSERT_EQUAL(lap.apr_status, IB_AP_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_qp(act.qp, &qa), IB_SUCCESS);
	CU_ASSERT_EQUAL(qa.apm_state, IB_APM_ARMED);
	CU_ASSERT_EQUAL(qa.alternate_av.dlid, lid[1]);
	CU_ASSERT_EQUAL(qa.alternate_av.sl, 1);
	CU_ASSERT_EQUAL(ib_query_qp(pas.qp, &qa), IB_SUCCESS);
	CU_ASSERT_EQUAL(qa.apm_state, IB_APM_ARMED);
	CU_ASSERT_EQUAL(qa.alternate_av.dlid, lid[0]);
	cm_check_data(&act, &pas, 80, 2);
	/* Migration to the loaded path (ib_force_apm, helper A's): data
	 * still flows, now on SL 1. */
	CU_ASSERT_EQUAL(ib_force_apm(act.qp), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_qp(act.qp, &qa), IB_SUCCESS);
	CU_ASSERT_EQUAL(qa.apm_state, IB_APM_MIGRATED);
	CU_ASSERT_EQUAL(qa.primary_av.sl, 1);
	cm_check_data(&act, &pas, 90, 4);

refused:
	/* Refused. */
	lap.answer = IB_AP_REJECT;
	CU_ASSERT_EQUAL(send_lap(&alt), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&lap.n_apr, 2), 2);
	CU_ASSERT_EQUAL(cm_wait(&lap.n_lap_done, 2), 2);
	CU_ASSERT_EQUAL(lap.apr_status, IB_AP_REJECT);
	CU_ASSERT_EQUAL(lap.cm_status, IB_SUCCESS);

	/* Not answered: resends, then IB_TIMEOUT. */
	lap.answer = -1;
	CU_ASSERT_EQUAL(send_lap_to(&alt, RESP_TO), IB_SUCCESS);
	CU_ASSERT_EQUAL(send_lap_to(&alt, RESP_TO), IB_INVALID_STATE);   /* one at a time */
	CU_ASSERT_EQUAL(cm_wait(&lap.n_apr, 3), 3);
	CU_ASSERT_EQUAL(lap.cm_status, IB_TIMEOUT);
	CU_ASSERT_EQUAL(lap.n_lap, 3);

	/* The passive side cannot send a LAP; bad input. */
	memset(&l, 0, sizeof(l));
	l.qp_type = IB_QPT_RELIABLE_CONN;
	l.h_qp = pas.qp;
	l.p_alt_path = &alt;
	l.pfn_cm_apr_cb = on_apr;
	CU_ASSERT_EQUAL(ib_cm_lap(&l), IB_INVALID_STATE);   /* still LAP_RCVD */
	l.h_qp = NULL;
	CU_ASSERT_EQUAL(ib_cm_lap(&l), IB_INVALID_QP_HANDLE);
	l.h_qp = act.qp;
	l.lap_length = IB_LAP_PDATA_SIZE + 1;
	CU_ASSERT_EQUAL(ib_cm_lap(&l), IB_INVALID_SETTING);

	disconnect_pair();
	cm_test_end(hl);
}

/* ---- SIDR ---- */

static struct {
	ib_cm_rep_rec_t rec;
	uint8_t pdata[IB_SIDR_REP_PDATA_SIZE];
	int rej_in_req;
	ib_qp_handle_t qp;
} sidr;

static void AL_API on_sidr_rep(ib_cm_rep_rec_t *p)
{
	pthread_mutex_lock(&cm_rec.lock);
	sidr.rec = *p;
	memcpy(sidr.pdata, p->p_rep_pdata, sizeof(sidr.pdata));
	pthread_mutex_unlock(&cm_rec.lock);
	cm_bump(&cm_rec.n_rep);
}

static void AL_API on_sidr_req(ib_cm_req_rec_t *p)
{
	ib_cm_rep_t r;

	pthread_mutex_lock(&cm_rec.lock);
	cm_rec.req_context = p->sidr_context;
	memcpy(cm_rec.req_pdata, p->p_req_pdata, IB_REQ_PDATA_SIZE);
	pthread_mutex_unlock(&cm_rec.lock);
	CU_ASSERT_EQUAL(p->qp_type, IB_QPT_UNRELIABLE_DGRM);
	cm_bump(&cm_rec.n_req);
	if (sidr.rej_in_req) {
		rej_req(p->h_cm_req);
		return;
	}
	memset(&r, 0, sizeof(r));
	r.qp_type = IB_QPT_UNRELIABLE_DGRM;
	r.h_qp = sidr.qp;
	r.status = IB_SIDR_SUCCESS;
	r.p_rep_pdata = (const uint8_t *)"sidr-reply";
	r.rep_length = 11;
	CU_ASSERT_EQUAL(ib_cm_rep(p->h_cm_req, &r), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_cm_rep(p->h_cm_req, &r), IB_INVALID_HANDLE);
}

static void sidr_req_fill(ib_cm_req_t *q, ib_net64_t svc)
{
	cm_make_path(&g_path, lid[0], &gid[0], lid[1], &gid[1], PKT_LIFE);
	memset(q, 0, sizeof(*q));
	q->svc_id = svc;
	q->qp_type = IB_QPT_UNRELIABLE_DGRM;
	q->h_al = h_al;
	q->p_primary_path = &g_path;
	q->pfn_cm_rep_cb = on_sidr_rep;
	q->pfn_cm_rej_cb = on_rej;
	q->p_req_pdata = (const uint8_t *)"who serves?";
	q->req_length = 12;
	q->sidr_context = (void *)0x77;
	q->timeout_ms = 100;
	q->max_cm_retries = 2;
	q->pkey = CL_HTON16(0xFFFF);
}

/* Sends the SIDR_REQ @q and waits for its answer, which must have @status
 * after @n_req REQ callbacks (-1: not checked); then for the CEPs to go. */
static void sidr_expect(const ib_cm_req_t *q, ib_sidr_status_t status, int n_req)
{
	CU_ASSERT_EQUAL(ib_cm_req(q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rep, 1), 1);
	CU_ASSERT_EQUAL(sidr.rec.status, status);
	if (n_req >= 0)
		CU_ASSERT_EQUAL(cm_rec.n_req, n_req);
	wait_no_cep();
}

static void test_cm_sidr(void)
{
	ib_cm_listen_t l;
	ib_listen_handle_t hl;
	ib_cm_req_t q;
	ib_dgrm_info_t di;
	ib_qp_attr_t qa;

	up();
	mode.type = IB_QPT_UNRELIABLE_DGRM;
	cm_end_open(&pas, h_ca[1], IB_QPT_UNRELIABLE_DGRM);
	memset(&di, 0, sizeof(di));
	di.port_guid = port_guid[1];
	di.qkey = CL_HTON32(0x1111);
	CU_ASSERT_EQUAL_FATAL(ib_init_dgrm_svc(pas.qp, &di), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_query_qp(pas.qp, &qa), IB_SUCCESS);
	sidr.qp = pas.qp;
	sidr.rej_in_req = 0;
	memset(&l, 0, sizeof(l));
	l.svc_id = SVC;
	l.pfn_cm_req_cb = on_sidr_req;
	l.qp_type = IB_QPT_UNRELIABLE_DGRM;
	l.sidr_context = (void *)0x51;
	CU_ASSERT_EQUAL_FATAL(ib_cm_listen(h_al, &l, NULL, &hl), IB_SUCCESS);

	/* Resolved. */
	sidr_req_fill(&q, SVC);
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rep, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.n_req, 1);
	CU_ASSERT_EQUAL(cm_rec.req_context, (void *)0x51);
	CU_ASSERT(!memcmp(cm_rec.req_pdata, "who serves?", 12));
	CU_ASSERT_EQUAL(sidr.rec.status, IB_SIDR_SUCCESS);
	CU_ASSERT_EQUAL(sidr.rec.sidr_context, (void *)0x77);
	CU_ASSERT_EQUAL(sidr.rec.qp_type, IB_QPT_UNRELIABLE_DGRM);
	CU_ASSERT_EQUAL(sidr.rec.remote_qp, qa.num);
	CU_ASSERT_EQUAL(sidr.rec.remote_qkey, CL_HTON32(0x1111));
	CU_ASSERT(!memcmp(sidr.pdata, "sidr-reply", 11));
	wait_no_cep();

	/* Rejected by the service. */
	cm_rec_reset();
	sidr.rej_in_req = 1;
	sidr_expect(&q, IB_SIDR_REJECT, -1);

	/* No listen for the service. */
	cm_rec_reset();
	sidr_req_fill(&q, CL_HTON64(0x4444));
	sidr_expect(&q, IB_SIDR_UNSUPPORTED, 0);

	/* Nobody answers (the port is not a CA's): the rej callback with a timeout. */
	cm_rec_reset();
	sidr_req_fill(&q, SVC);
	g_path.dlid = CL_HTON16(0x7F00);
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.rej_status, IB_REJ_TIMEOUT);
	CU_ASSERT_EQUAL(cm_rec.n_rep, 0);
	wait_no_cep();

	/* A listen restricted to the LID the SIDR_REQ goes to, comparing bytes
	 * past the first 92 of its 216 of private data: resolved; other bytes,
	 * or a listen restricted to another (local) LID: unsupported. */
	{
		static const uint8_t tail[8] = { 't', 'a', 'i', 'l', '-', 'c', 'm', 'p' };
		uint8_t pd[IB_SIDR_REQ_PDATA_SIZE];
		ib_listen_handle_t hl2, hl3;

		memset(&l, 0, sizeof(l));
		l.svc_id = CL_HTON64(0x5555);
		l.pfn_cm_req_cb = on_sidr_req;
		l.qp_type = IB_QPT_UNRELIABLE_DGRM;
		l.lid = lid[1];
		l.p_compare_buffer = (uint8_t *)tail;
		l.compare_offset = 200;
		l.compare_length = sizeof(tail);
		CU_ASSERT_EQUAL_FATAL(ib_cm_listen(h_al, &l, NULL, &hl2), IB_SUCCESS);
		l.svc_id = CL_HTON64(0x5556);
		l.lid = lid[0];
		CU_ASSERT_EQUAL_FATAL(ib_cm_listen(h_al, &l, NULL, &hl3), IB_SUCCESS);
		/* Past the SIDR private data: refused. */
		l.svc_id = CL_HTON64(0x5557);
		l.compare_offset = IB_SIDR_REQ_PDATA_SIZE - 4;
		CU_ASSERT_EQUAL(ib_cm_listen(h_al, &l, NULL, &hl3), IB_INVALID_SETTING);
		l.svc_id = CL_HTON64(0x5556);
		memset(pd, 0xA5, sizeof(pd));
		memcpy(pd + 200, tail, sizeof(tail));

		cm_rec_reset();
		sidr.rej_in_req = 0;
		sidr_req_fill(&q, CL_HTON64(0x5555));
		q.p_req_pdata = pd;
		q.req_length = sizeof(pd);
		sidr_expect(&q, IB_SIDR_SUCCESS, 1);

		cm_rec_reset();
		pd[207] = 'X';
		sidr_expect(&q, IB_SIDR_UNSUPPORTED, 0);

		cm_rec_reset();
		pd[207] = 'p';
		sidr_req_fill(&q, CL_HTON64(0x5556));
		q.p_req_pdata = pd;
		q.req_length = sizeof(pd);
		sidr_expect(&q, IB_SIDR_UNSUPPORTED, 0);
		CU_ASSERT_EQUAL(ib_cm_cancel(hl2, ib_sync_destroy), IB_SUCCESS);
		CU_ASSERT_EQUAL(ib_cm_cancel(hl3, ib_sync_destroy), IB_SUCCESS);
	}

	/* Bad input. */
	sidr_req_fill(&q, SVC);
	q.h_al = NULL;
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_INVALID_AL_HANDLE);
	sidr_req_fill(&q, SVC);
	q.req_length = IB_SIDR_REQ_PDATA_SIZE + 1;
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_INVALID_SETTING);

	CU_ASSERT_EQUAL(ib_cm_cancel(hl, ib_sync_destroy), IB_SUCCESS);
	cm_end_close(&pas);
	down();
}

/* ---- Malformed messages, sent through a QP1 alias of the test's own ---- */

static int n_raw_sent;

static void AL_API raw_on_send(const ib_mad_svc_handle_t h, void *ctx, ib_mad_element_t *p)
{
	(void)h;
	(void)ctx;
	ib_put_mad(p);
	cm_bump(&n_raw_sent);
}

static void AL_API raw_on_recv(const ib_mad_svc_handle_t h, void *ctx, ib_mad_element_t *p)
{
	(void)h;
	(void)ctx;
	ib_put_mad(p);
}

/* Sends a CM MAD with attribute @p attr and body @p body to CA 1's QP1. */
static void raw_send(ib_mad_svc_handle_t svc, ib_pool_key_t key, uint16_t attr, const void *body,
		     size_t len)
{
	ib_mad_element_t *p;
	int before = n_raw_sent;

	CU_ASSERT_EQUAL_FATAL(ib_get_mad(key, MAD_BLOCK_SIZE, &p), IB_SUCCESS);
	memset(p->p_mad_buf, 0, MAD_BLOCK_SIZE);
	ib_mad_init_new(p->p_mad_buf, IB_MCLASS_COMM_MGMT, 2, IB_MAD_METHOD_SEND,
			CL_HTON64(0x1234), cl_hton16(attr), 0);
	memcpy((uint8_t *)p->p_mad_buf + 24, body, len);
	p->size = MAD_BLOCK_SIZE;
	p->remote_qp = IB_QP1;
	p->remote_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	p->remote_lid = lid[1];
	CU_ASSERT_EQUAL(ib_send_mad(svc, p, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&n_raw_sent, before + 1), before + 1);
}

/* Waits (bounded) until a CM counter moves past @p v. */
static uint32_t stat_wait(const uint32_t *p_field_in_s, al_cm_stats_t *s, uint32_t v)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000u;
	int dummy = 0;

	al_cm_get_stats(s);
	while (*p_field_in_s < v && test_now_ms() < end) {
		cm_wait_ms(&dummy, 1, 10);
		al_cm_get_stats(s);
	}
	return *p_field_in_s;
}

static ib_qp_handle_t raw_qp;
static ib_pool_key_t raw_key;
static ib_mad_svc_handle_t raw_svc;

/* A QP1 alias on CA 0 with a class 0x07 version 1 service, to send any CM MAD. */
static void raw_open(void)
{
	ib_pd_handle_t pd;
	ib_qp_create_t qc;
	ib_mad_svc_t ms;

	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca[0], IB_PDT_ALIAS, NULL, &pd), IB_SUCCESS);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_QP1_ALIAS;
	qc.sq_depth = qc.rq_depth = 8;
	qc.sq_sge = qc.rq_sge = 1;
	qc.sq_signaled = TRUE;
	CU_ASSERT_EQUAL_FATAL(ib_get_spl_qp(pd, port_guid[0], &qc, NULL, NULL, &raw_key, &raw_qp),
			      IB_SUCCESS);
	memset(&ms, 0, sizeof(ms));
	ms.pfn_mad_send_cb = raw_on_send;
	ms.pfn_mad_recv_cb = raw_on_recv;
	ms.mgmt_class = IB_MCLASS_COMM_MGMT;
	ms.mgmt_version = 1;        /* not the CM's version: no clash */
	ms.svc_type = IB_MAD_SVC_DEFAULT;
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_svc(raw_qp, &ms, &raw_svc), IB_SUCCESS);
}

/* Sends a CM message packed by al_cm_pack to CA 1's QP1. */
static void raw_send_msg(al_cm_msg_type_t type, const al_cm_msg_t *m)
{
	union {
		ib_mad_t hdr;
		uint8_t bytes[MAD_BLOCK_SIZE];
	} mad;

	al_cm_pack(type, m, CL_HTON64(0x77), &mad.hdr);
	raw_send(raw_svc, raw_key, cl_ntoh16(mad.hdr.attr_id), mad.bytes + 24, AL_CM_MSG_SIZE);
}

static void test_cm_malformed(void)
{
	ib_listen_handle_t hl;
	ib_mad_svc_handle_t svc;
	ib_pool_key_t key;
	ib_qp_handle_t qp;
	al_cm_stats_t s0, s;
	uint8_t body[AL_CM_MSG_SIZE];

	ends_up();
	hl = listen_on(SVC, NULL, 0, 0, NULL);   /* starts the CM */
	raw_open();
	svc = raw_svc;
	key = raw_key;
	qp = raw_qp;
	al_cm_get_stats(&s0);

	/* An attribute that is no CM message: dropped. */
	memset(body, 0, sizeof(body));
	raw_send(svc, key, 0x0030, body, sizeof(body));
	CU_ASSERT(stat_wait(&s.n_drop, &s, s0.n_drop + 1) >= s0.n_drop + 1);
	/* A REP for no REQ: dropped, and answered with a REJ (which CA 0's
	 * CM drops in turn). */
	body[0] = 0x11;            /* any sender comm ID */
	body[4] = 0x5A;            /* a receiver comm ID nobody has */
	raw_send(svc, key, 0x0013, body, sizeof(body));
	CU_ASSERT(stat_wait(&s.n_rej_tx, &s, s0.n_rej_tx + 1) >= s0.n_rej_tx + 1);
	CU_ASSERT(stat_wait(&s.n_drop, &s, s0.n_drop + 3) >= s0.n_drop + 3);
	/* RTU, MRA, DREP for nobody: dropped. */
	raw_send(svc, key, 0x0014, body, sizeof(body));
	raw_send(svc, key, 0x0011, body, sizeof(body));
	raw_send(svc, key, 0x0016, body, sizeof(body));
	CU_ASSERT(stat_wait(&s.n_drop, &s, s0.n_drop + 6) >= s0.n_drop + 6);
	/* The CM still works. */
	CU_ASSERT_EQUAL(al_cm_cep_count(), 0);
	connect_pair();
	disconnect_pair();
	wait_no_cep();
	CU_ASSERT_EQUAL(ib_destroy_qp(qp, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_cm_cancel(hl, ib_sync_destroy), IB_SUCCESS);
	ends_down();
}

/* Duplicates answered with the last message; a REQ from a connected QP is stale. */
static void test_cm_duplicates_and_stale(void)
{
	ib_listen_handle_t hl;
	al_cm_stats_t s0, s;
	al_cm_msg_t m;
	ib_cm_rtu_t t;
	ib_cm_dreq_t d;
	ib_qp_attr_t qa;

	hl = ends_up_listen();
	raw_open();
	mode.rep_in_req = 1;       /* REP sent; the active side holds its RTU */
	{
		ib_cm_req_t q;

		req_fill(&q, SVC, NULL, 0);
		/* A long time-wait (packet life 2^18 x 4.096 us = 1.07 s, so
		 * ~3.2 s): the passive side must still be in it when the DREQs
		 * below arrive, however slowly this thread runs (valgrind). */
		cm_make_path(&g_path, lid[0], &gid[0], lid[1], &gid[1], 18);
		CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	}
	CU_ASSERT_EQUAL_FATAL(cm_wait(&cm_rec.n_rep, 1), 1);
	al_cm_get_stats(&s0);
	/* The REQ again (same sender ID and CA GUID): the REP is sent again. */
	memset(&m, 0, sizeof(m));
	m.req.local_comm_id = cl_ntoh32(cm_rec.h_rep.cid);
	m.req.local_ca_guid = cl_ntoh64(ca_guid[0]);
	m.req.service_id = cl_ntoh64(SVC);
	raw_send_msg(AL_CM_MSG_REQ, &m);
	CU_ASSERT(stat_wait(&s.n_dup, &s, s0.n_dup + 1) >= s0.n_dup + 1);
	CU_ASSERT_EQUAL(cm_rec.n_req, 1);
	rtu_with(&t);
	CU_ASSERT_EQUAL(ib_cm_rtu(cm_rec.h_rep, &t), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rtu, 1), 1);

	/* A new REQ (another comm ID) from the connected QP: stale. It gets a
	 * REJ, and the connection it names is stale too: the passive side
	 * disconnects it (DREQ; the active side's dreq callback answers). */
	mode.drep_in_dreq = 1;
	CU_ASSERT_EQUAL(ib_query_qp(act.qp, &qa), IB_SUCCESS);
	memset(&m, 0, sizeof(m));
	m.req.local_comm_id = 0x0BADC0DE;
	m.req.local_ca_guid = cl_ntoh64(ca_guid[0]);
	m.req.local_qpn = cl_ntoh32(qa.num);
	m.req.service_id = cl_ntoh64(SVC);
	m.req.transport = AL_CM_TRANSPORT_RC;
	raw_send_msg(AL_CM_MSG_REQ, &m);
	CU_ASSERT(stat_wait(&s.n_rej_tx, &s, s0.n_rej_tx + 1) >= s0.n_rej_tx + 1);
	CU_ASSERT_EQUAL(cm_rec.n_req, 1);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_dreq, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.h_dreq.cid, cm_rec.h_rep.cid);   /* the active side's */
	CU_ASSERT_EQUAL(cm_qp_state(pas.qp), IB_QPS_ERROR);
	CU_ASSERT_EQUAL(cm_qp_state(act.qp), IB_QPS_ERROR);
	memset(&d, 0, sizeof(d));
	d.qp_type = IB_QPT_RELIABLE_CONN;
	d.h_qp = act.qp;
	d.pfn_cm_drep_cb = on_drep;
	CU_ASSERT_EQUAL(ib_cm_dreq(&d), IB_INVALID_STATE);

	/* A DREQ again while the passive side is in time-wait (after the
	 * active side's DREP): a DREP is sent again. Until that DREP has come
	 * the passive side is still in DREQ_SENT, where a DREQ is the peer's
	 * own disconnection (not a duplicate): send until one is answered as
	 * a duplicate (bounded). */
	al_cm_get_stats(&s0);
	memset(&m, 0, sizeof(m));
	m.dreq.local_comm_id = cl_ntoh32(cm_rec.h_rep.cid);
	m.dreq.remote_comm_id = cl_ntoh32(cm_rec.h_req.cid);
	CU_ASSERT_EQUAL(ib_query_qp(pas.qp, &qa), IB_SUCCESS);
	m.dreq.remote_qpn = cl_ntoh32(qa.num);
	{
		/* Bounded by time, not by a count: under valgrind the DREP that
		 * ends DREQ_SENT may take longer than many rounds of this loop. */
		uint64_t end = test_now_ms() + TEST_WAIT_US / 1000u;
		int dummy = 0;

		s = s0;
		while (s.n_dup < s0.n_dup + 1 && test_now_ms() < end) {
			raw_send_msg(AL_CM_MSG_DREQ, &m);
			cm_wait_ms(&dummy, 1, 5);
			al_cm_get_stats(&s);
		}
	}
	CU_ASSERT(stat_wait(&s.n_dup, &s, s0.n_dup + 1) >= s0.n_dup + 1);
	CU_ASSERT_EQUAL(cm_rec.n_dreq, 1);
	wait_no_cep();
	CU_ASSERT_EQUAL(ib_destroy_qp(raw_qp, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_cm_cancel(hl, ib_sync_destroy), IB_SUCCESS);
	ends_down();
}

/*
 * A DREQ naming a live connection's receiver comm ID but not its sender's
 * comm ID, or not the receiving QP's number, is dropped (as the Linux CM
 * drops it): the connection stays up, and the peer's own DREQ still ends it.
 */
/* Hands a CM message to the CM as if it came on @p port_guid's QP1 from
 * @p slid (synchronous: al_cm_recv handles it before returning). */
static void recv_on_port(ib_net64_t port_guid_in, al_cm_msg_type_t type, const al_cm_msg_t *m,
			 ib_net16_t slid)
{
	union {
		ib_mad_t hdr;
		uint8_t bytes[MAD_BLOCK_SIZE];
	} mad;
	ib_mad_element_t e;
	cm_port_t *p_port = al_cm_port_by_guid(al_cm_g.p_agents, port_guid_in);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p_port);
	al_cm_pack(type, m, CL_HTON64(0x78), &mad.hdr);
	memset(&e, 0, sizeof(e));
	e.p_mad_buf = &mad.hdr;
	e.size = MAD_BLOCK_SIZE;
	e.remote_lid = slid;
	e.remote_qp = IB_QP1;
	e.remote_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	al_cm_recv(p_port, &e);
}

static void test_cm_spoofed_dreq(void)
{
	ib_listen_handle_t hl;
	al_cm_stats_t s0, s;
	al_cm_msg_t m;
	ib_qp_attr_t qa;

	hl = ends_up_listen();
	raw_open();
	connect_pair();
	CU_ASSERT_EQUAL(ib_query_qp(pas.qp, &qa), IB_SUCCESS);
	/* Comm IDs are random, not a counter: the two ends' are not neighbours. */
	CU_ASSERT(cl_ntoh32(cm_rec.h_rep.cid) - cl_ntoh32(cm_rec.h_req.cid) + 1u > 2u);
	al_cm_get_stats(&s0);
	memset(&m, 0, sizeof(m));
	m.dreq.local_comm_id = cl_ntoh32(cm_rec.h_rep.cid) ^ 0x10;  /* not the peer's */
	m.dreq.remote_comm_id = cl_ntoh32(cm_rec.h_req.cid);
	m.dreq.remote_qpn = cl_ntoh32(qa.num);
	raw_send_msg(AL_CM_MSG_DREQ, &m);
	CU_ASSERT(stat_wait(&s.n_drop, &s, s0.n_drop + 1) >= s0.n_drop + 1);
	m.dreq.local_comm_id = cl_ntoh32(cm_rec.h_rep.cid);
	m.dreq.remote_qpn = (cl_ntoh32(qa.num) + 1) & 0xFFFFFFu;     /* not the QP's */
	raw_send_msg(AL_CM_MSG_DREQ, &m);
	CU_ASSERT(stat_wait(&s.n_drop, &s, s0.n_drop + 2) >= s0.n_drop + 2);
	/* Right comm IDs, QPN and source LID, but handed to the CM on the
	 * other CA's port, which the passive end's connection does not use. */
	m.dreq.remote_qpn = cl_ntoh32(qa.num);
	recv_on_port(port_guid[0], AL_CM_MSG_DREQ, &m, lid[0]);
	al_cm_get_stats(&s);
	CU_ASSERT_EQUAL(s.n_drop, s0.n_drop + 3);
	CU_ASSERT_EQUAL(cm_rec.n_dreq, 0);
	CU_ASSERT_EQUAL(cm_qp_state(pas.qp), IB_QPS_RTS);
	CU_ASSERT_EQUAL(cm_qp_state(act.qp), IB_QPS_RTS);
	disconnect_pair();
	wait_no_cep();
	CU_ASSERT_EQUAL(ib_destroy_qp(raw_qp, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_cm_cancel(hl, ib_sync_destroy), IB_SUCCESS);
	ends_down();
}

/*
 * Identifiers a peer could guess differ between processes: a PSN (and a
 * TID) drawn first in a forked child is not the parent's first one, as it
 * was when they came from an unseeded rand().
 */
static void test_cm_ids_differ_per_process(void)
{
	int fds[2];
	pid_t pid;
	uint32_t psn, psn_child = 0;
	ib_net64_t tid, tid_child = 0;
	int status = 0;

	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (!pid) {
		psn = al_cm_rand24();
		tid = al_cm_new_tid();
		if (write(fds[1], &psn, sizeof(psn)) != sizeof(psn) ||
		    write(fds[1], &tid, sizeof(tid)) != sizeof(tid))
			_exit(1);
		_exit(0);
	}
	psn = al_cm_rand24();
	tid = al_cm_new_tid();
	CU_ASSERT_EQUAL(read(fds[0], &psn_child, sizeof(psn_child)), (ssize_t)sizeof(psn_child));
	CU_ASSERT_EQUAL(read(fds[0], &tid_child, sizeof(tid_child)), (ssize_t)sizeof(tid_child));
	CU_ASSERT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status));
	close(fds[0]);
	close(fds[1]);
	CU_ASSERT(psn && psn <= 0xFFFFFFu);
	CU_ASSERT(psn != psn_child);
	CU_ASSERT(tid != tid_child);
}

/*
 * The CM's timers come out earliest first, whether their timeouts have
 * lists (the first AL_CM_TIMER_LISTS distinct ones) or not (the ordered
 * map), and a timer set again goes behind the others of its timeout.
 * Fake endpoints, timers of ten minutes (none runs out during the test).
 */
static void test_cm_timer_order(void)
{
	enum { N = AL_CM_TIMER_LISTS + 4 };
	static al_cep_t ceps[N];
	ib_listen_handle_t hl;
	uint32_t i, on_lists = 0;

	hl = ends_up_listen();  /* the CM and its timer are up */
	memset(ceps, 0, sizeof(ceps));
	pthread_mutex_lock(&al_cm_g.lock);
	for (i = 0; i < N; i++) {
		ceps[i].listed = TRUE;
		ceps[i].local_id = 0x7000u + i;
		/* Each a second shorter: deadlines fall as the timers are set. */
		al_cm_timer_arm(&ceps[i], 600000u - i * 1000u, 0);
	}
	for (i = 0; i < AL_CM_TIMER_LISTS; i++)
		on_lists += al_cm_g.tlists[i].n;
	CU_ASSERT_EQUAL(on_lists, AL_CM_TIMER_LISTS);
	CU_ASSERT_TRUE(ceps[N - 1].by_time.on);  /* no list left for it */
	for (i = N; i-- > 0;) {
		CU_ASSERT_PTR_EQUAL(al_cm_timer_first(), &ceps[i]);
		al_cm_timer_stop(&ceps[i]);
		CU_ASSERT_PTR_NULL(ceps[i].p_tlist);
		CU_ASSERT_FALSE(ceps[i].by_time.on);
	}
	CU_ASSERT_PTR_NULL(al_cm_timer_first());
	/* One timeout: first set, first out; set again, last. */
	for (i = 0; i < 3; i++)
		al_cm_timer_arm(&ceps[i], 600000u, 0);
	CU_ASSERT_PTR_EQUAL(al_cm_timer_first(), &ceps[0]);
	al_cm_timer_rearm(&ceps[0], 600000u);
	CU_ASSERT_PTR_EQUAL(al_cm_timer_first(), &ceps[1]);
	al_cm_timer_stop(&ceps[1]);
	CU_ASSERT_PTR_EQUAL(al_cm_timer_first(), &ceps[2]);
	al_cm_timer_stop(&ceps[2]);
	CU_ASSERT_PTR_EQUAL(al_cm_timer_first(), &ceps[0]);
	al_cm_timer_stop(&ceps[0]);
	CU_ASSERT_PTR_NULL(al_cm_timer_first());
	for (i = 0, on_lists = 0; i < AL_CM_TIMER_LISTS; i++)
		on_lists += al_cm_g.tlists[i].n;
	CU_ASSERT_EQUAL(on_lists, 0);
	al_cm_unlock();
	cm_test_end(hl);
}

/* Room for requests to one remote port (0: the default); under the CM's lock,
 * which its threads read it under. */
static void pace_set(uint32_t n)
{
	pthread_mutex_lock(&al_cm_g.lock);
	al_cm_g.pace_max = n;
	pthread_mutex_unlock(&al_cm_g.lock);
}

static uint32_t pace_dests(void)
{
	uint32_t n;

	pthread_mutex_lock(&al_cm_g.lock);
	n = al_cm_pace_dests();
	pthread_mutex_unlock(&al_cm_g.lock);
	return n;
}

/* A REQ from @p qp to the listen on SVC; a patient one has retries and
 * timeouts that outlast the test (4.3 s, 15 times). */
static void pace_req(ib_qp_handle_t qp, int patient)
{
	ib_cm_req_t q;

	req_fill(&q, SVC, NULL, 0);
	q.h_qp = qp;
	if (patient) {
		q.max_cm_retries = 15;
		q.remote_resp_timeout = 20;
		q.local_resp_timeout = 20;
	}
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
}

/* A REQ on @p qp to SVC that the listen never answers, with @p resp_to
 * (the peer's CM response timeout, 4.096 us * 2^resp_to) and one resend. */
static void unanswered_req(ib_qp_handle_t qp, uint8_t resp_to)
{
	ib_cm_req_t q;

	req_fill(&q, SVC, NULL, 0);
	q.h_qp = qp;
	q.remote_resp_timeout = resp_to;
	q.max_cm_retries = 1;
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
}

/*
 * The CM has one timer for every endpoint's deadline, and leaves it alone
 * when it is due sooner than a new deadline (al_cm_timer_due). A REQ with a
 * 67 ms timeout made while another's 4.3 s one runs times out on its own
 * schedule; so does one made after the timer fired for it, when the timer
 * waits for the long one again.
 */
static void test_cm_timer_sooner_deadline(void)
{
	static cm_end_t other;
	ib_listen_handle_t hl;
	ib_cm_handle_t h_long;
	int round;

	ends_up();
	hl = listen_on(SVC, NULL, 0, 0, NULL); /* its callback does not answer */
	cm_end_open(&other, h_ca[0], mode.type);
	unanswered_req(act.qp, 20);            /* 4.3 s a send */
	CU_ASSERT_EQUAL_FATAL(cm_wait(&cm_rec.n_req, 1), 1);
	h_long = cm_rec.h_req;
	for (round = 1; round <= 2; round++) {
		unanswered_req(other.qp, RESP_TO);   /* 2 sends of 67 ms */
		/* Well before the long one's first resend. */
		CU_ASSERT_EQUAL(cm_wait_ms(&cm_rec.n_rej, round, 2000), round);
		CU_ASSERT_EQUAL(cm_rec.rej_status, IB_REJ_TIMEOUT);
		CU_ASSERT_EQUAL(cm_qp_state(other.qp), IB_QPS_ERROR);
		CU_ASSERT_EQUAL(cm_qp_state(act.qp), IB_QPS_INIT);
		qp_reset(other.qp);
	}
	rej_req(h_long);                       /* the long one ends */
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, 3), 3);
	cm_end_close(&other);
	cm_test_end(hl);
}

/*
 * Requests to one remote port are paced (al_cm_pace.c): with room for two,
 * four REQs put two on the wire and two waiting; each answer (a REJ, an
 * MRA) sends the next. Nothing is left behind once they are done.
 */
static void test_cm_pace_reqs(void)
{
	enum { N = 4 };
	static cm_end_t ends[N];
	ib_listen_handle_t hl;
	al_cm_stats_t s0, s;
	ib_cm_mra_t m;
	int i;

	hl = ends_up_listen();   /* mode: the REQ callback only records */
	pace_set(2);
	al_cm_get_stats(&s0);
	for (i = 0; i < N; i++) {
		cm_end_open(&ends[i], h_ca[0], mode.type);
		pace_req(ends[i].qp, 1);   /* no timeout while the test answers */
	}
	al_cm_get_stats(&s);
	CU_ASSERT_EQUAL(s.n_paced - s0.n_paced, 2);    /* decided in ib_cm_req */
	CU_ASSERT_EQUAL(pace_dests(), 1);
	/* Nothing answers them yet: two REQs arrive, no more can. */
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_req, 2), 2);
	CU_ASSERT_EQUAL(cm_rec.n_req, 2);
	/* A REJ frees a place: the third REQ goes. */
	rej_req(cm_rec.h_req);       /* the REQ received last */
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_req, 3), 3);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, 1), 1);
	/* So does an MRA: the peer has the request. */
	memset(&m, 0, sizeof(m));
	m.svc_timeout = 20;
	CU_ASSERT_EQUAL(ib_cm_mra(cm_rec.h_req, &m), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_req, 4), 4);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_mra, 1), 1);
	al_cm_get_stats(&s);
	CU_ASSERT_EQUAL(s.n_paced - s0.n_paced, 2);
	CU_ASSERT_EQUAL(s.n_resend, s0.n_resend);      /* none was lost */
	/* The active ends go: their REJs end the passive CEPs. */
	for (i = 0; i < N; i++)
		cm_end_close(&ends[i]);
	wait_no_cep();
	CU_ASSERT_EQUAL(pace_dests(), 0);
	pace_set(0);
	cm_test_end(hl);
}

/*
 * A DREQ waits for room as a REQ does, and goes when an answer frees it; a
 * waiting REQ whose QP is destroyed leaves nothing behind; one that runs
 * out of retries while waiting times out as if lost.
 */
static void test_cm_pace_dreq(void)
{
	static cm_end_t other, third;
	ib_listen_handle_t hl;
	al_cm_stats_t s0, s;
	ib_cm_dreq_t d;

	hl = ends_up_listen();
	connect_pair();
	mode.rep_in_req = 0;       /* further REQs are only recorded */
	pace_set(1);
	cm_end_open(&other, h_ca[0], mode.type);
	cm_end_open(&third, h_ca[0], mode.type);
	pace_req(other.qp, 1);        /* holds the one place */
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_req, 2), 2);
	al_cm_get_stats(&s0);
	/* A REQ that waits, then its QP goes: nothing of it is left. */
	pace_req(third.qp, 1);
	cm_end_close(&third);
	/* The connection's DREQ waits too. */
	mode.drep_in_dreq = 1;
	memset(&d, 0, sizeof(d));
	d.qp_type = mode.type;
	d.h_qp = act.qp;
	d.pfn_cm_drep_cb = on_drep;
	CU_ASSERT_EQUAL(ib_cm_dreq(&d), IB_SUCCESS);
	al_cm_get_stats(&s);
	CU_ASSERT_EQUAL(s.n_paced - s0.n_paced, 2);
	CU_ASSERT_EQUAL(cm_rec.n_dreq, 0);
	/* The held REQ is rejected: the DREQ goes, the DREP comes. */
	rej_req(cm_rec.h_req);       /* the REQ received last */
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_dreq, 1), 1);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_drep, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.drep_status, IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.n_req, 2);   /* the destroyed QP's REQ never went */
	/* A REQ held and one waiting, both with few retries: both time out. */
	cm_rec_reset();
	qp_reset(other.qp);
	pace_req(other.qp, 0);
	cm_end_open(&third, h_ca[0], mode.type);
	pace_req(third.qp, 0);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, 2), 2);
	CU_ASSERT_EQUAL(cm_rec.rej_status, IB_REJ_TIMEOUT);
	cm_end_close(&other);
	cm_end_close(&third);
	wait_no_cep();
	CU_ASSERT_EQUAL(pace_dests(), 0);
	pace_set(0);
	cm_test_end(hl);
}

/*
 * A remote port, for pacing, is where the messages go: the DLID, or with a
 * GRH the DGID's port. A GID claimed in a path that is sent by LID does not
 * count: requests by one DLID share a limit whatever GID they name.
 */
static void test_cm_pace_keys(void)
{
	static al_cep_t c[4];
	ib_listen_handle_t hl;
	ib_gid_t other;
	uint32_t i;

	hl = ends_up_listen();   /* the CM and its agents are up */
	memset(c, 0, sizeof(c));
	other = gid[1];
	other.unicast.interface_id ^= CL_HTON64(0x55);
	pthread_mutex_lock(&al_cm_g.lock);
	al_cm_g.pace_max = 1;
	for (i = 0; i < 4; i++) {
		c[i].local_id = 0x7100u + i;
		c[i].p_port = &al_cm_g.p_agents->ports[0];
		c[i].dlid = lid[1];
		cm_make_path(&c[i].path, lid[0], &gid[0], lid[1], &gid[1], PKT_LIFE);
	}
	c[1].path.dgid = other;                  /* same DLID, another GID claimed */
	c[2].dlid = lid[0];                      /* another DLID, c[0]'s GID claimed */
	c[3].dlid = lid[0];                      /* sent with a GRH: by its DGID */
	ib_path_rec_set_hop_flow_raw(&c[3].path, 2, 0, FALSE);
	CU_ASSERT_TRUE(al_cm_pace_send(&c[0], AL_CM_MSG_REQ));
	CU_ASSERT_FALSE(al_cm_pace_send(&c[1], AL_CM_MSG_REQ));  /* waits behind c[0] */
	CU_ASSERT_TRUE(c[1].parked);
	CU_ASSERT_TRUE(al_cm_pace_send(&c[2], AL_CM_MSG_REQ));
	CU_ASSERT_TRUE(al_cm_pace_send(&c[3], AL_CM_MSG_REQ));
	CU_ASSERT_EQUAL(al_cm_pace_dests(), 3);
	CU_ASSERT_PTR_EQUAL(c[0].p_dest, c[1].p_dest);
	CU_ASSERT_PTR_NOT_EQUAL(c[2].p_dest, c[0].p_dest);
	CU_ASSERT_PTR_NOT_EQUAL(c[3].p_dest, c[2].p_dest);
	CU_ASSERT_TRUE(al_cm_pace_send(&c[0], AL_CM_MSG_REQ));   /* a resend keeps its place */
	/* The waiting one gives up first (nothing is sent), then the others end. */
	al_cm_pace_done(&c[1]);
	CU_ASSERT_FALSE(c[1].parked);
	for (i = 0; i < 4; i++)
		al_cm_pace_done(&c[i]);
	CU_ASSERT_EQUAL(al_cm_pace_dests(), 0);
	for (i = 0; i < 4; i++)
		CU_ASSERT_PTR_NULL(c[i].p_dest);
	al_cm_g.pace_max = 0;
	pthread_mutex_unlock(&al_cm_g.lock);
	cm_test_end(hl);
}

/*
 * A port with requests on the wire to several remote ports asks its MAD
 * dispatcher for room for their answers, once it has twice what one remote
 * port takes out (al_cm_pace.c): not before, so that a process connecting
 * to one server keeps its first receive buffers. No listen here, so
 * nothing else asks.
 */
static void test_cm_pace_burst_room(void)
{
	static al_cep_t c[5];
	cm_agents_t *p_ag;
	cm_port_t *p_port;
	al_mad_disp_t *d;
	uint32_t i;

	ends_up();
	CU_ASSERT_EQUAL_FATAL(al_cm_get(&p_ag), IB_SUCCESS);
	p_port = al_cm_port_by_guid(p_ag, port_guid[0]);
	d = cm_port_disp(port_guid[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p_port);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(__atomic_load_n(&d->n_recv, __ATOMIC_ACQUIRE), AL_MAD_RECV_SLOTS);
	memset(c, 0, sizeof(c));
	pthread_mutex_lock(&al_cm_g.lock);
	al_cm_lists_init_locked();   /* as the first CEP or listen does */
	CU_ASSERT_EQUAL(__atomic_load_n(&p_port->burst_asked, __ATOMIC_RELAXED), 0);
	al_cm_g.pace_max = 2;
	for (i = 0; i < 5; i++) {
		c[i].local_id = 0x7200u + i;
		c[i].p_port = p_port;
		c[i].dlid = i < 3 ? lid[1] : lid[0];   /* two remote ports */
		cm_make_path(&c[i].path, lid[0], &gid[0], c[i].dlid, &gid[1], PKT_LIFE);
	}
	/* Two on the wire to the first port, a third waits: one port's worth. */
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(al_cm_pace_send(&c[i], AL_CM_MSG_REQ), i < 2);
	CU_ASSERT_EQUAL(p_port->reqs_out, 2);
	CU_ASSERT_TRUE(al_cm_pace_send(&c[3], AL_CM_MSG_REQ));
	CU_ASSERT_EQUAL(__atomic_load_n(&p_port->burst_asked, __ATOMIC_RELAXED), 0);
	/* The fourth on the wire, to the second port: room is asked for. */
	CU_ASSERT_TRUE(al_cm_pace_send(&c[4], AL_CM_MSG_REQ));
	CU_ASSERT_EQUAL(p_port->reqs_out, 4);
	CU_ASSERT_EQUAL(__atomic_load_n(&p_port->burst_asked, __ATOMIC_RELAXED), 1);
	pthread_mutex_unlock(&al_cm_g.lock);
	/* The dispatcher's thread grows its buffers at its next round. */
	CU_ASSERT_EQUAL(cm_disp_wait_recv(d, AL_MAD_RECV_BURST), AL_MAD_RECV_BURST);
	/* The waiting one gives up first (nothing is sent), then the others end. */
	pthread_mutex_lock(&al_cm_g.lock);
	al_cm_pace_done(&c[2]);
	for (i = 0; i < 5; i++)
		al_cm_pace_done(&c[i]);
	CU_ASSERT_EQUAL(p_port->reqs_out, 0);
	CU_ASSERT_EQUAL(al_cm_pace_dests(), 0);
	al_cm_g.pace_max = 0;
	pthread_mutex_unlock(&al_cm_g.lock);
	al_cm_put();
	cm_test_end(NULL);
}

/* Connects and disconnects act and pas, and checks what the event cache then
 * holds: the events that were out at once (none under valgrind). */
static void connect_cached_events(void)
{
	uint32_t cached;

	connect_pair();
	disconnect_pair();
	wait_no_cep();              /* their callbacks, and so their events, are done */
	cached = __atomic_load_n(&al_cm_g.ev_cached, __ATOMIC_ACQUIRE);
	if (ibal_arena_checked()) {
		CU_ASSERT_EQUAL(cached, 0);
	} else {
		CU_ASSERT(cached >= 1 && cached <= 5);   /* REQ, REP, RTU, DREQ, DREP at most */
	}
}

/*
 * A callback's event comes from the CM's cache and goes back once the
 * callback has run (al_cm_cep.c): after a connection and disconnection (five
 * callbacks) the cache holds as many events as were out at once, at most
 * five; after a second one still at most five, where ten events made anew
 * would all be there. ib_close_al leaves none (down() also checks that no
 * allocation is left). Under valgrind every event is its own allocation,
 * and the cache stays empty.
 */
static void test_cm_event_cache(void)
{
	ib_listen_handle_t hl;

	hl = ends_up_listen();
	connect_cached_events();
	qp_reset(act.qp);
	qp_reset(pas.qp);
	cm_rec_reset();
	connect_cached_events();    /* reused: at most five, not ten */
	cm_test_end(hl);
	CU_ASSERT_EQUAL(__atomic_load_n(&al_cm_g.ev_cached, __ATOMIC_ACQUIRE), 0);
	CU_ASSERT_PTR_NULL(__atomic_load_n(&al_cm_g.ev_cache, __ATOMIC_ACQUIRE));
}

/* ---- Where the callbacks run ---- */

/* The callbacks run on the MAD thread ("al_mad") that received their
 * messages, even when a message shares its batch (as a resent one may under
 * valgrind) or a callback thread happens to be awake (the hook's second
 * argument: no pause after a thread replaced, as valgrind, which runs one
 * thread at a time, may make one look asleep); with IBAL_AL_CM_INLINE=0
 * (the hook's first) on the callback threads ("al_cb"). */
static void test_cm_callbacks_where_received(void)
{
	static const char *const want[2] = { "al_mad", "al_cb" };
	ib_listen_handle_t hl;
	int k, i;

	for (k = 0; k < 2; k++) {
		al_mad_lend_configure(k == 0, 0);
		memset(cm_cb_thread, 0, sizeof(cm_cb_thread));
		cm_rec_reset();
		hl = ends_up_listen();
		connect_pair();
		for (i = 0; i < CB_KINDS; i++)
			CU_ASSERT_STRING_EQUAL(cm_cb_thread[i], want[k]);
		disconnect_pair();
		cm_test_end(hl);
	}
	al_mad_lend_configure(TRUE, AL_MAD_LEND_OFF_US);
}

/* Eight REQs that reach the passive port in one batch: the first one's
 * callback waits, running, until the test has sent the seven others, which
 * wait meanwhile (the thread that would take them in is in the callback),
 * so that the thread's next poll takes them together. Every callback of
 * the batch runs on the MAD thread too (a burst's callbacks went to the
 * callback threads until 2026-12-07). The callbacks keep their requests;
 * the test rejects them once all eight have run, so that nothing else of
 * the CM's runs meanwhile: an event is put on its endpoint by whichever
 * thread is at the CM's queue of events (al_cm_unlock), and one that is no
 * MAD thread (the asynchronous thread ending an active endpoint a REJ
 * ended) sends it to the callback threads (docs/cm.md). Patient REQs: no
 * timer of theirs runs out while the first callback holds the thread. */
enum { BURST_REQS = 8 };
static struct {
	pthread_mutex_t lock;
	int n, on_mad;
	int sent;     /* atomic: the seven after the first are sent */
	int started;  /* atomic: the first callback runs */
	ib_cm_handle_t h[BURST_REQS];
} bq = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, { { 0 } } };

static void AL_API on_burst_req(ib_cm_req_rec_t *p)
{
	char name[16] = "";
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000u;
	int i;

	pthread_getname_np(pthread_self(), name, sizeof(name));
	pthread_mutex_lock(&bq.lock);
	i = bq.n++;
	if (i < BURST_REQS)
		bq.h[i] = p->h_cm_req;
	bq.on_mad += !strcmp(name, "al_mad");
	pthread_mutex_unlock(&bq.lock);
	if (i == 0) {
		__atomic_store_n(&bq.started, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&bq.sent, __ATOMIC_ACQUIRE) && test_now_ms() < end)
			sched_yield(); /* runnable, not asleep: the watch lets it be */
	}
	cm_bump(&cm_rec.n_req);
}

static void test_cm_burst_callbacks_where_received(void)
{
	static cm_end_t ends[BURST_REQS];
	ib_cm_listen_t l;
	ib_listen_handle_t hl = NULL;
	ib_cm_req_t q;
	uint64_t end, replaced;
	int i;

	al_mad_lend_configure(TRUE, 0);
	ends_up();
	cm_rec_reset();
	memset(&l, 0, sizeof(l));
	l.svc_id = SVC;
	l.pfn_cm_req_cb = on_burst_req;
	l.qp_type = mode.type;
	CU_ASSERT_EQUAL_FATAL(ib_cm_listen(h_al, &l, NULL, &hl), IB_SUCCESS);
	bq.n = bq.on_mad = bq.sent = bq.started = 0;
	for (i = 0; i < BURST_REQS; i++)
		cm_end_open(&ends[i], h_ca[0], mode.type);
	replaced = al_mad_lend_replaced();
	for (i = 0; i < BURST_REQS; i++) {
		req_fill(&q, SVC, NULL, 0);
		q.h_qp = ends[i].qp;
		q.max_cm_retries = 15;
		q.remote_resp_timeout = 20;
		q.local_resp_timeout = 20;
		CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
		end = test_now_ms() + TEST_WAIT_US / 1000u;
		while (!i && !__atomic_load_n(&bq.started, __ATOMIC_ACQUIRE) && test_now_ms() < end)
			sched_yield();
	}
	__atomic_store_n(&bq.sent, 1, __ATOMIC_RELEASE);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_req, BURST_REQS), BURST_REQS);
	CU_ASSERT_EQUAL(al_mad_lend_replaced(), replaced); /* the first callback was let be */
	pthread_mutex_lock(&bq.lock);
	CU_ASSERT_EQUAL(bq.on_mad, BURST_REQS);
	pthread_mutex_unlock(&bq.lock);
	for (i = 0; i < BURST_REQS; i++)
		rej_req(bq.h[i]);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, BURST_REQS), BURST_REQS);
	for (i = 0; i < BURST_REQS; i++)
		cm_end_close(&ends[i]);
	cm_test_end(hl);
	al_mad_lend_configure(TRUE, AL_MAD_LEND_OFF_US);
}

/* A REQ callback waits for an SA answer, which comes through the port whose
 * MAD thread runs the callback: the watch replaces that thread after a
 * millisecond, the new one takes the answer, and the connection completes.
 * The next connection's callbacks go to the callback threads (for a
 * second after the replacement), and it completes too. */
static void test_cm_callback_waits_for_sa(void)
{
	ib_listen_handle_t hl;
	uint64_t before = al_mad_lend_replaced();

	al_mad_lend_configure(TRUE, AL_MAD_LEND_OFF_US);
	cm_rec_reset();
	memset(cm_cb_thread, 0, sizeof(cm_cb_thread));
	hl = ends_up_listen();
	mode.sa_in_req = 1;
	connect_pair();
	mode.sa_in_req = 0;
	CU_ASSERT_STRING_EQUAL(cm_cb_thread[CB_REQ], "al_mad");
	pthread_mutex_lock(&cm_sa.lock);
	CU_ASSERT_EQUAL(cm_sa.done, 1);
	CU_ASSERT_EQUAL(cm_sa.status, IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_sa.results, 1);
	pthread_mutex_unlock(&cm_sa.lock);
	CU_ASSERT(al_mad_lend_replaced() > before);
	disconnect_pair();
	wait_no_cep();
	qp_reset(act.qp);
	qp_reset(pas.qp);
	cm_rec_reset();
	connect_pair();
	disconnect_pair();
	cm_test_end(hl);
	al_mad_lend_configure(TRUE, AL_MAD_LEND_OFF_US);
}

/* Twenty REQ callbacks in a row keep the passive port's MAD thread (each
 * waits until the watch has replaced it), with no pause of the callbacks
 * after a replacement: each thread is replaced, the one before joined, and
 * every connection completes. */
static void test_cm_threads_replaced_in_a_row(void)
{
	ib_listen_handle_t hl;
	uint64_t before;
	int i;

	al_mad_lend_configure(TRUE, 0);
	cm_rec_reset();
	hl = ends_up_listen();
	before = al_mad_lend_replaced();
	g_replaced_in_req = 0;
	for (i = 0; i < 20; i++) {
		mode.wait_replaced = 1;
		connect_pair();
		mode.wait_replaced = 0;
		disconnect_pair();
		wait_no_cep();
		qp_reset(act.qp);
		qp_reset(pas.qp);
		cm_rec_reset();
	}
	CU_ASSERT_EQUAL(g_replaced_in_req, 20);
	CU_ASSERT_EQUAL(al_mad_lend_replaced() - before, 20);
	cm_test_end(hl);
	al_mad_lend_configure(TRUE, AL_MAD_LEND_OFF_US);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_cm_callbacks_where_received),
	TEST_ENTRY(test_cm_burst_callbacks_where_received),
	TEST_ENTRY(test_cm_threads_replaced_in_a_row),
	TEST_ENTRY(test_cm_callback_waits_for_sa),
	TEST_ENTRY(test_cm_handoff),
	TEST_ENTRY(test_cm_peer_to_peer),
	TEST_ENTRY(test_cm_lap_apr),
	TEST_ENTRY(test_cm_req_alt_path),
	TEST_ENTRY(test_cm_lap_mra),
	TEST_ENTRY(test_cm_port_added),
	TEST_ENTRY(test_cm_sidr),
	TEST_ENTRY(test_cm_malformed),
	TEST_ENTRY(test_cm_duplicates_and_stale),
	TEST_ENTRY(test_cm_spoofed_dreq),
	TEST_ENTRY(test_cm_ids_differ_per_process),
	TEST_ENTRY(test_cm_timer_order),
	TEST_ENTRY(test_cm_pace_reqs),
	TEST_ENTRY(test_cm_pace_dreq),
	TEST_ENTRY(test_cm_timer_sooner_deadline),
	TEST_ENTRY(test_cm_pace_keys),
	TEST_ENTRY(test_cm_pace_burst_room),
	TEST_ENTRY(test_cm_event_cache),
};

/* CM_TEST_ONLY=name runs one test. */
int main(void)
{
	return cm_test_main("al_cm_ext", tests, TEST_COUNT(tests));
}
