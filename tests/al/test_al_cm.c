/*
 * ibal tests: the connection manager between two soft CAs in one process (REQ/REP/RTU, REJ, MRA, DREQ/DREP, timeouts, listens).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Two soft CAs (IBAL_SOFT_CAS=2) on a fabric directory of their own; the
 * active side's QP is on CA 0, the passive side's on CA 1, and the CM
 * messages go through each CA's QP1. Paths are built by hand (LIDs and
 * GIDs of the ports), so no SA query is needed. Each test checks what the
 * callbacks report, the QP states the CM drove, and for the connected
 * tests that data flows on the QPs. Timeouts are made short with small
 * timeout fields; waits are bounded, never sleeps.
 */
#define _GNU_SOURCE /* pthread_getname_np (cm_fixture.h) */
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>
#include "cm_fixture.h"
#include "ibal_log.h"
#include "al_cm_int.h"
#include "al_handle.h"
#include "al_mad.h"

/* ---- Tests ---- */

static void connect_and_transfer(ib_qp_type_t type)
{
	ib_listen_handle_t hl;

	up();
	mode.type = type;
	ends_open();
	hl = listen_on(SVC, NULL, 0, 0, &pas);
	connect_pair();
	CU_ASSERT_EQUAL(cm_rec.req_context, &pas);
	CU_ASSERT_EQUAL(cm_rec.h_listen, hl);
	CU_ASSERT_EQUAL(cm_rec.req_path.dlid, lid[0]);
	CU_ASSERT_EQUAL(cm_rec.req_path.slid, lid[1]);
	CU_ASSERT_EQUAL(cm_rec.req_resp_res, 2);
	CU_ASSERT(!memcmp(cm_rec.rep_pdata, "reply", 5));
	CU_ASSERT(!memcmp(cm_rec.rtu_pdata, "rtu", 3));
	CU_ASSERT_EQUAL(cm_qp_state(act.qp), IB_QPS_RTS);
	CU_ASSERT_EQUAL(cm_qp_state(pas.qp), IB_QPS_RTS);
	/* Data both ways on the connected QPs. */
	cm_check_data(&act, &pas, 200, 7);
	cm_check_data(&pas, &act, 1000, 99);
	disconnect_pair();
	/* Time-wait ends, then the QPs can be reused. */
	cm_test_end(hl);
}

static void test_cm_rc_connect(void)
{
	connect_and_transfer(IB_QPT_RELIABLE_CONN);
}

static void test_cm_uc_connect(void)
{
	connect_and_transfer(IB_QPT_UNRELIABLE_CONN);
}

/* A second connection on the same QPs after the first one's time-wait. */
static void test_cm_reconnect(void)
{
	ib_listen_handle_t hl;

	hl = ends_up_listen();
	connect_pair();
	disconnect_pair();
	/* While the time-wait lasts the QP is still bound. */
	{
		ib_cm_req_t q;

		req_fill(&q, SVC, NULL, 0);
		CU_ASSERT_EQUAL(ib_cm_req(&q), IB_INVALID_QP_STATE);
	}
	wait_no_cep();
	qp_reset(act.qp);
	qp_reset(pas.qp);
	cm_rec_reset();
	connect_pair();
	cm_check_data(&act, &pas, 64, 3);
	disconnect_pair();
	cm_test_end(hl);
}

static void test_cm_rej_no_listen(void)
{
	ib_cm_req_t q;
	ib_listen_handle_t hl;

	ends_up();
	/* A listen on another service: the REQ's still has none. */
	hl = listen_on(CL_HTON64(0x42), NULL, 0, 0, NULL);
	req_fill(&q, SVC, NULL, 0);
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.rej_status, IB_REJ_INVALID_SID);
	CU_ASSERT_EQUAL(cm_rec.n_req, 0);
	CU_ASSERT_EQUAL(cm_qp_state(act.qp), IB_QPS_ERROR);
	cm_test_end(hl);
}

/* With IBAL_LOG_LEVEL=debug for the CM, the REJ of a REQ nobody listens
 * for says why in the log (here standard error, caught in a file). */
static void test_cm_log_says_why(void)
{
	char path[] = "/tmp/test_al_cm_log.XXXXXX", text[8192];
	int fd = mkstemp(path), saved;
	ib_listen_handle_t hl;
	ib_cm_req_t q;
	ssize_t n;

	CU_ASSERT_FATAL(fd >= 0);
	fflush(stderr);
	saved = dup(2);
	CU_ASSERT_FATAL(saved >= 0 && dup2(fd, 2) == 2);
	setenv("IBAL_LOG_LEVEL", "debug", 1);
	setenv("IBAL_LOG_SUBSYS", "cm", 1);
	__cl_log_reset();
	ends_up();
	hl = listen_on(CL_HTON64(0x42), NULL, 0, 0, NULL);
	req_fill(&q, SVC, NULL, 0);
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, 1), 1);
	cm_test_end(hl);
	unsetenv("IBAL_LOG_LEVEL");
	unsetenv("IBAL_LOG_SUBSYS");
	__cl_log_reset();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, text, sizeof(text) - 1, 0);
	close(fd);
	unlink(path);
	CU_ASSERT_FATAL(n > 0);
	text[n] = '\0';
	/* The passive side's REJ (reason 8: invalid service ID), on a line of the log's form. */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, " cm debug al_cm_"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "REJ (reason 8)"));
	CU_ASSERT_PTR_NULL(strstr(text, " mad debug ")); /* not chosen */
}

static void test_cm_consumer_rej(void)
{
	ib_cm_req_t q;
	ib_listen_handle_t hl;

	hl = ends_up_listen();
	mode.rej_in_req = 1;
	req_fill(&q, SVC, NULL, 0);
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.n_req, 1);
	CU_ASSERT_EQUAL(cm_rec.rej_status, IB_REJ_USER_DEFINED);
	CU_ASSERT(!memcmp(cm_rec.rej_pdata, "nope", 5));
	/* The handle is gone once rejected. */
	{
		ib_cm_rej_t j;

		memset(&j, 0, sizeof(j));
		CU_ASSERT_EQUAL(ib_cm_rej(cm_rec.h_req, &j), IB_INVALID_HANDLE);
	}
	cm_test_end(hl);
}

/* Several listens on one service ID, told apart by their compare buffers. */
static void test_cm_compare_buffers(void)
{
	ib_cm_req_t q;
	ib_listen_handle_t h1, h2, h3 = NULL;
	ib_cm_listen_t l;
	static uint8_t c1[4] = { 1, 2, 3, 4 }, c2[4] = { 5, 6, 7, 8 };
	uint8_t pd[16];

	ends_up();
	h1 = listen_on(SVC, c1, 4, 4, (void *)1);
	h2 = listen_on(SVC, c2, 4, 4, (void *)2);
	/* The same again, or another offset on the service: refused. */
	memset(&l, 0, sizeof(l));
	l.svc_id = SVC;
	l.p_compare_buffer = c1;
	l.compare_offset = 4;
	l.compare_length = 4;
	l.pfn_cm_req_cb = on_req;
	CU_ASSERT_EQUAL(ib_cm_listen(h_al, &l, NULL, &h3), IB_INVALID_SETTING);
	l.compare_offset = 3;
	l.p_compare_buffer = (uint8_t *)"zzzz";
	CU_ASSERT_EQUAL(ib_cm_listen(h_al, &l, NULL, &h3), IB_INVALID_SETTING);
	l.compare_offset = IB_REQ_PDATA_SIZE - 2;
	CU_ASSERT_EQUAL(ib_cm_listen(h_al, &l, NULL, &h3), IB_INVALID_SETTING);

	/* Matches the second listen. */
	mode.rej_in_req = 1;
	memset(pd, 0, sizeof(pd));
	memcpy(pd + 4, c2, 4);
	req_fill(&q, SVC, pd, sizeof(pd));
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.n_req, 1);
	CU_ASSERT_EQUAL(cm_rec.req_context, (void *)2);
	CU_ASSERT_EQUAL(cm_rec.h_listen, h2);
	CU_ASSERT_EQUAL(cm_rec.rej_status, IB_REJ_USER_DEFINED);
	wait_no_cep();
	qp_reset(act.qp);

	/* Matches none: invalid service ID. */
	cm_rec_reset();
	pd[4] = 0x77;
	req_fill(&q, SVC, pd, sizeof(pd));
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.n_req, 0);
	CU_ASSERT_EQUAL(cm_rec.rej_status, IB_REJ_INVALID_SID);
	wait_no_cep();
	qp_reset(act.qp);

	/* The first listen, once the second is cancelled. */
	CU_ASSERT_EQUAL(ib_cm_cancel(h2, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_cm_cancel(h2, NULL), IB_INVALID_HANDLE);
	cm_rec_reset();
	memcpy(pd + 4, c1, 4);
	req_fill(&q, SVC, pd, sizeof(pd));
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.req_context, (void *)1);
	wait_no_cep();
	CU_ASSERT_EQUAL(ib_cm_cancel(h1, ib_sync_destroy), IB_SUCCESS);
	ends_down();
}

/*
 * A listen may get any number of requests at once: before any comes, the
 * MAD dispatcher of each port it covers grows its receive buffers to
 * AL_MAD_RECV_BURST (docs/mad.md). No MAD is sent here, so only the listen
 * can make it grow.
 */
static void test_cm_listen_makes_room(void)
{
	ib_cm_listen_t l;
	ib_listen_handle_t h = NULL;
	al_mad_disp_t *d;

	ends_up();
	memset(&l, 0, sizeof(l));
	l.svc_id = SVC;
	l.pfn_cm_req_cb = on_req;
	l.qp_type = IB_QPT_RELIABLE_CONN;
	l.ca_guid = ca_guid[0];
	CU_ASSERT_EQUAL_FATAL(ib_cm_listen(h_al, &l, NULL, &h), IB_SUCCESS);
	d = cm_port_disp(port_guid[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(cm_disp_wait_recv(d, AL_MAD_RECV_BURST), AL_MAD_RECV_BURST);
	CU_ASSERT_EQUAL(ib_cm_cancel(h, ib_sync_destroy), IB_SUCCESS);
	ends_down();
}

/* CA, port, LID and P_Key restrictions of a listen. */
static void test_cm_listen_filters(void)
{
	ib_cm_listen_t l;
	ib_listen_handle_t h = NULL, hx;
	ib_cm_req_t q;

	ends_up();
	memset(&l, 0, sizeof(l));
	l.svc_id = SVC;
	l.pfn_cm_req_cb = on_req;
	l.qp_type = IB_QPT_RELIABLE_CONN;
	l.ca_guid = CL_HTON64(0xDEAD);
	CU_ASSERT_EQUAL(ib_cm_listen(h_al, &l, NULL, &h), IB_INVALID_GUID);
	l.ca_guid = 0;
	l.port_guid = CL_HTON64(0xBEEF);
	CU_ASSERT_EQUAL(ib_cm_listen(h_al, &l, NULL, &h), IB_INVALID_GUID);
	l.port_guid = 0;
	l.lid = CL_HTON16(0xBEEF);
	CU_ASSERT_EQUAL(ib_cm_listen(h_al, &l, NULL, &h), IB_INVALID_LID);
	l.lid = 0;
	l.pkey = CL_HTON16(0x1234);
	CU_ASSERT_EQUAL(ib_cm_listen(h_al, &l, NULL, &h), IB_INVALID_PKEY);
	l.pkey = 0;
	/* A listen on CA 0 only: the REQ reaches CA 1 and finds none. */
	l.ca_guid = ca_guid[0];
	CU_ASSERT_EQUAL(ib_cm_listen(h_al, &l, NULL, &hx), IB_SUCCESS);
	req_fill(&q, SVC, NULL, 0);
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.rej_status, IB_REJ_INVALID_SID);
	CU_ASSERT_EQUAL(cm_rec.n_req, 0);
	wait_no_cep();
	qp_reset(act.qp);
	/* The port, LID and P_Key of CA 1: the REQ matches. */
	cm_rec_reset();
	l.ca_guid = ca_guid[1];
	l.port_guid = port_guid[1];
	l.lid = lid[1];
	l.pkey = CL_HTON16(0xFFFF);
	CU_ASSERT_EQUAL(ib_cm_listen(h_al, &l, (void *)9, &h), IB_SUCCESS);
	mode.rej_in_req = 1;
	req_fill(&q, SVC, NULL, 0);
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.n_req, 1);
	CU_ASSERT_EQUAL(cm_rec.req_context, (void *)9);
	wait_no_cep();
	CU_ASSERT_EQUAL(ib_cm_cancel(h, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_cm_cancel(hx, ib_sync_destroy), IB_SUCCESS);
	ends_down();
}

/* Nobody answers the REQ: resends, then IB_REJ_TIMEOUT. */
static void test_cm_req_timeout(void)
{
	ib_cm_req_t q;
	ib_listen_handle_t hl;
	al_cm_stats_t s0, s1;
	uint64_t t0;

	ends_up();
	hl = listen_on(SVC, NULL, 0, 0, NULL);  /* its callback does not answer */
	al_cm_get_stats(&s0);
	req_fill(&q, SVC, NULL, 0);
	t0 = test_now_ms();
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.rej_status, IB_REJ_TIMEOUT);
	/* 1 + 3 sends of at least 67 ms each. */
	CU_ASSERT(test_now_ms() - t0 >= 4 * 67);
	al_cm_get_stats(&s1);
	CU_ASSERT(s1.n_resend - s0.n_resend >= 3);
	CU_ASSERT_EQUAL(cm_rec.n_req, 1);       /* duplicates were not reported */
	CU_ASSERT_EQUAL(cm_qp_state(act.qp), IB_QPS_ERROR);
	/* The passive endpoint got the REJ and is gone too. */
	wait_no_cep();
	{
		ib_cm_rep_t r;

		rep_with(cm_rec.h_req, &r);
		CU_ASSERT_EQUAL(ib_cm_rep(cm_rec.h_req, &r), IB_INVALID_HANDLE);
	}
	CU_ASSERT_EQUAL(ib_cm_cancel(hl, ib_sync_destroy), IB_SUCCESS);
	ends_down();
}

/* The active side never sends its RTU: REP resends, then both sides time out. */
static void test_cm_rep_timeout(void)
{
	ib_cm_req_t q;
	ib_listen_handle_t hl;
	al_cm_stats_t s0, s1;

	hl = ends_up_listen();
	mode.rep_in_req = 1;
	al_cm_get_stats(&s0);
	req_fill(&q, SVC, NULL, 0);
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rep, 1), 1);
	/* Passive REP timeout: its rej callback, and a REJ to the active side. */
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, 2), 2);
	CU_ASSERT_EQUAL(cm_rec.rej_status, IB_REJ_TIMEOUT);
	CU_ASSERT_EQUAL(cm_rec.n_rep, 1);
	CU_ASSERT_EQUAL(cm_rec.n_rtu, 0);
	al_cm_get_stats(&s1);
	CU_ASSERT(s1.n_resend - s0.n_resend >= 3);
	CU_ASSERT_EQUAL(cm_qp_state(pas.qp), IB_QPS_ERROR);
	CU_ASSERT_EQUAL(cm_qp_state(act.qp), IB_QPS_ERROR);
	{
		ib_cm_rtu_t t;

		rtu_with(&t);
		CU_ASSERT_EQUAL(ib_cm_rtu(cm_rec.h_rep, &t), IB_INVALID_STATE);
	}
	cm_test_end(hl);
}

/* The peer does not answer the DREQ: resends, then the drep callback with IB_TIMEOUT. */
static void test_cm_dreq_timeout(void)
{
	ib_listen_handle_t hl;
	ib_cm_dreq_t d;
	ib_cm_drep_t r;
	al_cm_stats_t s0, s1;

	hl = ends_up_listen();
	connect_pair();
	mode.drep_in_dreq = 0;
	al_cm_get_stats(&s0);
	memset(&d, 0, sizeof(d));
	d.qp_type = mode.type;
	d.h_qp = act.qp;
	d.pfn_cm_drep_cb = on_drep;
	CU_ASSERT_EQUAL(ib_cm_dreq(&d), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_cm_dreq(&d), IB_INVALID_STATE);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_drep, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.drep_status, IB_TIMEOUT);
	CU_ASSERT_EQUAL(cm_rec.n_dreq, 1);      /* the duplicates were not reported */
	al_cm_get_stats(&s1);
	CU_ASSERT(s1.n_resend - s0.n_resend >= 3);
	/* A late DREP from the passive side is still accepted. */
	memset(&r, 0, sizeof(r));
	CU_ASSERT_EQUAL(ib_cm_drep(cm_rec.h_dreq, &r), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_cm_drep(cm_rec.h_dreq, &r), IB_INVALID_STATE);
	cm_test_end(hl);
}

/* The passive side sends an MRA and answers after the REQ timeout would have expired. */
static void test_cm_mra(void)
{
	ib_cm_req_t q;
	ib_listen_handle_t hl;
	ib_cm_rep_t r;
	uint64_t t0;

	hl = ends_up_listen();
	mode.mra_in_req = 1;
	mode.rtu_in_rep = 1;
	req_fill(&q, SVC, NULL, 0);
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_mra, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.n_req, 1);
	/* Past 4 REQ timeouts, with no REJ. */
	t0 = test_now_ms();
	CU_ASSERT_EQUAL(cm_wait_ms(&cm_rec.n_rej, 1, 600), 0);
	CU_ASSERT(test_now_ms() - t0 >= 590);
	rep_with(cm_rec.h_req, &r);
	CU_ASSERT_EQUAL(ib_cm_rep(cm_rec.h_req, &r), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rtu, 1), 1);
	cm_check_data(&act, &pas, 32, 1);
	disconnect_pair();
	cm_test_end(hl);
}

/* IB_FLAGS_SYNC on ib_cm_rep (back after the RTU callback), ib_cm_lap
 * (after the APR callback) and ib_cm_dreq (after the DREP callback);
 * refused (IB_INVALID_STATE) in an AL callback, where it could never end. */
static void test_cm_sync_calls(void)
{
	ib_listen_handle_t hl;
	ib_cm_req_t q;
	ib_cm_rep_t r;
	ib_cm_lap_t l;
	ib_cm_dreq_t d;
	ib_path_rec_t alt;
	ib_ca_attr_t *p_attr;
	uint32_t size = 0;

	up();
	ib_query_ca(h_ca[1], NULL, &size);
	p_attr = (ib_ca_attr_t *)malloc(size);
	CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca[1], p_attr, &size), IB_SUCCESS);
	memset(&lap, 0, sizeof(lap));
	lap.apm = p_attr->apm_support;
	free(p_attr);
	ends_open();
	hl = listen_on(SVC, NULL, 0, 0, NULL);

	/* In the REQ callback: refused; the reply without the flag goes. */
	mode.sync_in_cb = 1;
	g_sync_cb_st = IB_SUCCESS;
	connect_pair();
	CU_ASSERT_EQUAL(g_sync_cb_st, IB_INVALID_STATE);
	disconnect_pair();
	wait_no_cep();
	qp_reset(act.qp);
	qp_reset(pas.qp);
	cm_rec_reset();

	/* ib_cm_rep from this thread: the RTU callback has run on return. */
	mode.sync_in_cb = 0;
	mode.rep_in_req = 0;
	mode.rtu_in_rep = 1;
	req_fill(&q, SVC, NULL, 0);
	CU_ASSERT_EQUAL_FATAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(cm_wait(&cm_rec.n_req, 1), 1);
	rep_with(cm_rec.h_req, &r);
	r.flags = IB_FLAGS_SYNC;
	CU_ASSERT_EQUAL_FATAL(ib_cm_rep(cm_rec.h_req, &r), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_rec.n_rtu, 1);
	CU_ASSERT_EQUAL(cm_qp_state(pas.qp), IB_QPS_RTS);
	CU_ASSERT_EQUAL(ib_cm_rep(cm_rec.h_req, &r), IB_INVALID_STATE);

	/* ib_cm_lap: the APR callback has run on return. */
	cm_make_path(&alt, lid[0], &gid[0], lid[1], &gid[1], PKT_LIFE);
	ib_path_rec_set_sl(&alt, 1);
	lap.answer = IB_AP_SUCCESS;
	memset(&l, 0, sizeof(l));
	l.flags = IB_FLAGS_SYNC;
	l.qp_type = IB_QPT_RELIABLE_CONN;
	l.h_qp = act.qp;
	l.remote_resp_timeout = 18;     /* 1 s: no LAP resent across the APR on a loaded machine */
	l.p_alt_path = &alt;
	l.pfn_cm_apr_cb = on_apr;
	CU_ASSERT_EQUAL(ib_cm_lap(&l), IB_SUCCESS);
	CU_ASSERT_EQUAL(lap.n_apr, 1);
	CU_ASSERT_EQUAL(lap.n_lap, 1);
	CU_ASSERT_EQUAL(cm_wait(&lap.n_lap_done, 1), 1);
	CU_ASSERT_EQUAL(lap.cm_status, IB_SUCCESS);
	CU_ASSERT_EQUAL(lap.apr_status, lap.apm ? IB_AP_SUCCESS : IB_AP_REJECT);

	/* ib_cm_dreq: the DREP callback has run on return. */
	mode.drep_in_dreq = 1;
	memset(&d, 0, sizeof(d));
	d.flags = IB_FLAGS_SYNC;
	d.qp_type = IB_QPT_RELIABLE_CONN;
	d.h_qp = act.qp;
	d.pfn_cm_drep_cb = on_drep;
	CU_ASSERT_EQUAL(ib_cm_dreq(&d), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_rec.n_drep, 1);
	CU_ASSERT_EQUAL(cm_rec.drep_status, IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_dreq, 1), 1);
	CU_ASSERT_EQUAL(ib_cm_dreq(&d), IB_INVALID_STATE);
	cm_test_end(hl);
}

/* IB_FLAGS_SYNC: ib_cm_req returns after the REP callback. */
static void test_cm_sync_req(void)
{
	ib_cm_req_t q;
	ib_listen_handle_t hl;

	hl = ends_up_listen();
	mode.rep_in_req = 1;
	mode.rtu_in_rep = 1;
	req_fill(&q, SVC, NULL, 0);
	q.flags = IB_FLAGS_SYNC;
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_rec.n_rep, 1);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rtu, 1), 1);
	disconnect_pair();
	/* And with a rejection: after the rej callback. */
	wait_no_cep();
	qp_reset(act.qp);
	cm_rec_reset();
	req_fill(&q, CL_HTON64(0x99), NULL, 0);
	q.flags = IB_FLAGS_SYNC;
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_rec.n_rej, 1);
	cm_test_end(hl);
}

/* A connected QP destroyed: the peer gets a DREQ. */
static void test_cm_qp_destroyed(void)
{
	ib_listen_handle_t hl;

	hl = ends_up_listen();
	connect_pair();
	mode.drep_in_dreq = 1;
	CU_ASSERT_EQUAL(ib_destroy_qp(act.qp, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_dreq, 1), 1);
	CU_ASSERT_EQUAL(cm_qp_state(pas.qp), IB_QPS_ERROR);
	cm_test_end(hl);
}

/* ib_close_al with a listen, a connection and a REQ waiting for its answer. */
static void test_cm_close_al(void)
{
	ends_up();
	listen_on(SVC, NULL, 0, 0, NULL);
	connect_pair();
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	h_al = NULL;
	cl_waitobj_destroy(act.wo);
	cl_waitobj_destroy(pas.wo);
	memset(&act, 0, sizeof(act));
	memset(&pas, 0, sizeof(pas));
	down();
}

/* A listen cancelled from its REQ callback: that REQ is still answered, the
 * destroy callback comes after it, and later REQs find no listen. */
static void test_cm_listen_cancel(void)
{
	ib_cm_req_t q;

	ends_up();
	listen_on(SVC, NULL, 0, 0, NULL);
	mode.cancel_in_req = 1;
	connect_pair();
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_destroy, 1), 1);
	disconnect_pair();
	wait_no_cep();
	qp_reset(act.qp);
	qp_reset(pas.qp);
	cm_rec_reset();
	mode.cancel_in_req = 0;
	req_fill(&q, SVC, NULL, 0);
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.rej_status, IB_REJ_INVALID_SID);
	cm_test_end(NULL);
}

/* The passive side's AL instance closes with connections in several states:
 * the active side hears of each (DREQ, or REJ). */
static void test_cm_close_states(void)
{
	ib_al_handle_t h_al2;
	ib_ca_handle_t ca2;
	ib_cm_listen_t l;
	ib_listen_handle_t hl;
	cm_end_t *a, *p;
	ib_cm_req_t q;
	int i;

	up();
	a = (cm_end_t *)calloc(4, sizeof(*a));
	p = (cm_end_t *)calloc(4, sizeof(*p));
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al2), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al2, ca_guid[1], NULL, NULL, &ca2), IB_SUCCESS);
	for (i = 0; i < 4; i++) {
		cm_end_open(&a[i], h_ca[0], IB_QPT_RELIABLE_CONN);
		cm_end_open(&p[i], ca2, IB_QPT_RELIABLE_CONN);
	}
	memset(&l, 0, sizeof(l));
	l.svc_id = SVC;
	l.pfn_cm_req_cb = on_req;
	CU_ASSERT_EQUAL_FATAL(ib_cm_listen(h_al2, &l, NULL, &hl), IB_SUCCESS);
	mode.p2p = 1;               /* other QPs than act and pas: no checks on them */
	mode.drep_in_dreq = 1;
	for (i = 0; i < 4; i++) {
		req_fill(&q, SVC, NULL, 0);
		q.h_qp = a[i].qp;
		g_rep_qp = p[i].qp;
		mode.rep_in_req = i == 0 || i == 2;
		mode.rtu_in_rep = i == 0;
		mode.mra_in_req = i == 3;
		CU_ASSERT_EQUAL(ib_cm_req(&q), IB_SUCCESS);
		CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_req, i + 1), i + 1);
		if (i == 0)
			CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rtu, 1), 1);
		if (i == 2)
			CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rep, 2), 2);
		if (i == 3)
			CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_mra, 1), 1);
	}
	g_rep_qp = NULL;
	/* ESTABLISHED, REQ_RCVD, REP_SENT, MRA_REQ_SENT: closed. */
	CU_ASSERT_EQUAL(ib_close_al(h_al2), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_dreq, 1), 1);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rej, 3), 3);
	CU_ASSERT_EQUAL(cm_qp_state(a[0].qp), IB_QPS_ERROR);
	CU_ASSERT_EQUAL(cm_qp_state(a[1].qp), IB_QPS_ERROR);
	wait_no_cep();
	for (i = 0; i < 4; i++) {
		cm_end_close(&a[i]);
		cl_waitobj_destroy(p[i].wo);
	}
	free(a);
	free(p);
	down();
}

/* Invalid handles and values. */
static void test_cm_bad_input(void)
{
	ib_cm_listen_t l;
	ib_listen_handle_t h;
	ib_cm_req_t q;
	ib_cm_handle_t bad;
	ib_cm_rep_t r;
	ib_cm_rtu_t t;
	ib_cm_rej_t j;
	ib_cm_mra_t m;
	ib_cm_dreq_t d;
	ib_cm_drep_t dr;
	ib_cm_lap_t lp;
	ib_cm_apr_t ap;

	ends_up();
	memset(&l, 0, sizeof(l));
	l.svc_id = SVC;
	l.pfn_cm_req_cb = on_req;
	CU_ASSERT_EQUAL(ib_cm_listen(NULL, &l, NULL, &h), IB_INVALID_AL_HANDLE);
	CU_ASSERT_EQUAL(ib_cm_listen((ib_al_handle_t)(uintptr_t)0x12345, &l, NULL, &h), IB_INVALID_AL_HANDLE);
	CU_ASSERT_EQUAL(ib_cm_listen(h_al, NULL, NULL, &h), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_cm_listen(h_al, &l, NULL, NULL), IB_INVALID_PARAMETER);
	l.pfn_cm_req_cb = NULL;
	CU_ASSERT_EQUAL(ib_cm_listen(h_al, &l, NULL, &h), IB_INVALID_PARAMETER);
	l.pfn_cm_req_cb = on_req;
	l.compare_length = 4;
	CU_ASSERT_EQUAL(ib_cm_listen(h_al, &l, NULL, &h), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(ib_cm_cancel(NULL, NULL), IB_INVALID_HANDLE);

	CU_ASSERT_EQUAL(ib_cm_req(NULL), IB_INVALID_PARAMETER);
	req_fill(&q, SVC, NULL, 0);
	q.h_qp = NULL;
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_INVALID_QP_HANDLE);
	req_fill(&q, SVC, NULL, 0);
	q.req_length = IB_REQ_PDATA_SIZE + 1;
	q.p_req_pdata = (const uint8_t *)&q;
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_INVALID_SETTING);
	req_fill(&q, SVC, NULL, 0);
	q.p_primary_path = NULL;
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_INVALID_SETTING);
	req_fill(&q, SVC, NULL, 0);
	q.qp_type = IB_QPT_UNRELIABLE_CONN;    /* not the QP's type */
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_INVALID_SETTING);
	req_fill(&q, SVC, NULL, 0);
	g_path.slid = CL_HTON16(0x7777);       /* not a port of the QP's CA */
	memset(&g_path.sgid, 0, sizeof(g_path.sgid));
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_INVALID_SETTING);
	req_fill(&q, SVC, NULL, 0);
	q.max_cm_retries = 16;
	CU_ASSERT_EQUAL(ib_cm_req(&q), IB_INVALID_SETTING);
	/* A QP in RTS cannot be connected. */
	{
		ib_qp_mod_t mod;

		memset(&mod, 0, sizeof(mod));
		mod.req_state = IB_QPS_ERROR;
		CU_ASSERT_EQUAL(ib_modify_qp(act.qp, &mod), IB_SUCCESS);
		req_fill(&q, SVC, NULL, 0);
		CU_ASSERT_EQUAL(ib_cm_req(&q), IB_INVALID_QP_STATE);
		mod.req_state = IB_QPS_RESET;
		CU_ASSERT_EQUAL(ib_modify_qp(act.qp, &mod), IB_SUCCESS);
	}

	memset(&bad, 0, sizeof(bad));
	bad.h_al = h_al;
	bad.cid = CL_HTON32(0x5A5A5A5A);
	rep_with(bad, &r);
	CU_ASSERT_EQUAL(ib_cm_rep(bad, &r), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_cm_rep(bad, NULL), IB_INVALID_HANDLE);
	rtu_with(&t);
	CU_ASSERT_EQUAL(ib_cm_rtu(bad, &t), IB_INVALID_HANDLE);
	memset(&j, 0, sizeof(j));
	CU_ASSERT_EQUAL(ib_cm_rej(bad, &j), IB_INVALID_HANDLE);
	memset(&m, 0, sizeof(m));
	CU_ASSERT_EQUAL(ib_cm_mra(bad, &m), IB_INVALID_HANDLE);
	memset(&dr, 0, sizeof(dr));
	CU_ASSERT_EQUAL(ib_cm_drep(bad, &dr), IB_INVALID_HANDLE);
	memset(&ap, 0, sizeof(ap));
	CU_ASSERT_EQUAL(ib_cm_apr(bad, &ap), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_cm_handoff(bad, SVC), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_cm_dreq(NULL), IB_INVALID_PARAMETER);
	memset(&d, 0, sizeof(d));
	d.qp_type = IB_QPT_RELIABLE_CONN;
	d.pfn_cm_drep_cb = on_drep;
	CU_ASSERT_EQUAL(ib_cm_dreq(&d), IB_INVALID_QP_HANDLE);
	d.h_qp = act.qp;                      /* not connected */
	CU_ASSERT_EQUAL(ib_cm_dreq(&d), IB_INVALID_STATE);
	d.dreq_length = IB_DREQ_PDATA_SIZE + 1;
	CU_ASSERT_EQUAL(ib_cm_dreq(&d), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(ib_cm_lap(NULL), IB_INVALID_PARAMETER);
	memset(&lp, 0, sizeof(lp));
	(void)lp;
	ends_down();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_cm_rc_connect),
	TEST_ENTRY(test_cm_uc_connect),
	TEST_ENTRY(test_cm_reconnect),
	TEST_ENTRY(test_cm_rej_no_listen),
	TEST_ENTRY(test_cm_log_says_why),
	TEST_ENTRY(test_cm_consumer_rej),
	TEST_ENTRY(test_cm_compare_buffers),
	TEST_ENTRY(test_cm_listen_filters),
	TEST_ENTRY(test_cm_listen_makes_room),
	TEST_ENTRY(test_cm_req_timeout),
	TEST_ENTRY(test_cm_rep_timeout),
	TEST_ENTRY(test_cm_dreq_timeout),
	TEST_ENTRY(test_cm_mra),
	TEST_ENTRY(test_cm_sync_req),
	TEST_ENTRY(test_cm_sync_calls),
	TEST_ENTRY(test_cm_qp_destroyed),
	TEST_ENTRY(test_cm_close_al),
	TEST_ENTRY(test_cm_listen_cancel),
	TEST_ENTRY(test_cm_close_states),
	TEST_ENTRY(test_cm_bad_input),
};

/* CM_TEST_ONLY=name runs one test. */
int main(void)
{
	return cm_test_main("al_cm", tests, TEST_COUNT(tests));
}
