/*
 * ibal tests: the connection manager through the public API, on the provider the environment names (soft, or verbs on rxe).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * One program for every provider, as test_al_dp: `make check` runs it on a
 * private soft fabric; with IBAL_PROVIDERS=verbs it runs on the first verbs
 * CA (soft-RoCE in the project's VM) and exits 77 when there is none. Both
 * ends of every connection are QPs of the first CA on port 1, connected by
 * ibal's CM over QP1 to each other, on the path the SA client gives for the
 * port's GID to itself (cm_dp_fixture.h). With IBAL_RXE_PHASE=kcm the
 * kernel's CM owns the CM MAD class, so ibal's CM cannot receive a REQ
 * there: the program is skipped.
 *
 * What docs/cm.md says is checked at each step: QP states (the active QP
 * INIT after the REQ, RTR before the rep callback, RTS after ib_cm_rtu; the
 * passive QP RTR after ib_cm_rep, RTS before the rtu callback; both ERROR
 * after a DREQ; a rejected REQ's QP ERROR), the negotiated attributes, every
 * byte of private data of each message, the REJ reasons, the time-wait
 * before a QP connects again, and none where no QP numbers were exchanged.
 *
 * Two tests of the MADs under the CM, from the port to itself: MADs whose
 * TIDs are the same on the wire, as a CEP's answer to its peer in this
 * process is, all arrive; a request that got no answer is sent again and
 * the answer to a later copy completes it.
 */
#include "../common/cm_dp_fixture.h"

#define REMOTE_AC (IB_AC_RDMA_READ | IB_AC_RDMA_WRITE | IB_AC_ATOMIC)

/* ---- Shared checks ---- */

/* A QP's primary path names port 1's own address as @p path does. */
static void check_av(const ib_qp_attr_t *qa, const ib_path_rec_t *path)
{
	CU_ASSERT_EQUAL(qa->primary_port, 1);
	CU_ASSERT_EQUAL(qa->primary_av.conn.path_mtu, ib_path_rec_mtu(path));
	if (cmdp_path_grh(path)) {
		CU_ASSERT(qa->primary_av.grh_valid);
		CU_ASSERT_EQUAL(memcmp(&qa->primary_av.grh.dest_gid, &D.gid, sizeof(D.gid)), 0);
	} else {
		CU_ASSERT_EQUAL(qa->primary_av.dlid, D.lid);
	}
}

/* Two connected QPs name each other, their PSNs match, paths are ours. */
static void check_pair(const dp_qp_t *a, const dp_qp_t *b, const ib_path_rec_t *path)
{
	ib_qp_attr_t qa = dp_query(a), qb = dp_query(b);

	CU_ASSERT_EQUAL(qa.state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(qb.state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(qa.dest_num, b->qpn);
	CU_ASSERT_EQUAL(qb.dest_num, a->qpn);
	CU_ASSERT_EQUAL(qa.sq_psn, qb.rq_psn);
	CU_ASSERT_EQUAL(qb.sq_psn, qa.rq_psn);
	check_av(&qa, path);
	check_av(&qb, path);
}

/* The REQ as the passive side saw it: our GID at both ends, the path's
 * P_Key and MTU, and our LID at both ends on IB. */
static void check_req_rec(const ib_path_rec_t *path, ib_qp_type_t type, ib_listen_handle_t l)
{
	const ib_path_rec_t *p = &C.req.primary_path;

	CU_ASSERT_PTR_EQUAL(C.req.context, &C);
	CU_ASSERT_PTR_EQUAL(C.req.h_cm_listen, l);
	CU_ASSERT_EQUAL(C.req.qp_type, type);
	CU_ASSERT_EQUAL(C.req.rnr_retry_cnt, 7);
	CU_ASSERT_EQUAL(memcmp(&p->sgid, &D.gid, sizeof(D.gid)), 0);
	CU_ASSERT_EQUAL(memcmp(&p->dgid, &D.gid, sizeof(D.gid)), 0);
	CU_ASSERT_EQUAL(p->pkey, path->pkey);
	CU_ASSERT_EQUAL(ib_path_rec_mtu(p), ib_path_rec_mtu(path));
	if (!cmdp_path_grh(path)) {
		CU_ASSERT_EQUAL(p->slid, D.lid);
		CU_ASSERT_EQUAL(p->dlid, D.lid);
	}
}

/* A REJ of @p status for @p a's REQ came, and a is in ERROR. */
static void check_rej(const dp_qp_t *a, ib_rej_status_t status)
{
	pthread_mutex_lock(&D.lock);
	CU_ASSERT_EQUAL(C.rej.rej_status, status);
	CU_ASSERT_PTR_EQUAL(C.rej.h_qp, a->h);
	CU_ASSERT_PTR_EQUAL(C.rej.qp_context, a);
	CU_ASSERT_EQUAL(C.state_in_rej, IB_QPS_ERROR);
	pthread_mutex_unlock(&D.lock);
	CU_ASSERT_EQUAL(dp_state(a), IB_QPS_ERROR);
}

static void check_no_stray(void)
{
	CU_ASSERT_EQUAL(dp_get(&C.n_mra), 0);
	CU_ASSERT_EQUAL(dp_get(&C.n_lap), 0);
	CU_ASSERT_EQUAL(dp_get(&C.n_bad), 0);
}

/* ---- Tests ---- */

/* The path the SA client gives from port 1's GID to itself. */
static void test_path(void)
{
	ib_path_rec_t path, again;
	char gid[64];

	cmdp_up(&path);
	pthread_mutex_lock(&D.lock);
	CU_ASSERT(C.q_count >= 1);
	pthread_mutex_unlock(&D.lock);
	CU_ASSERT_EQUAL(memcmp(&path.sgid, &D.gid, sizeof(D.gid)), 0);
	CU_ASSERT_EQUAL(memcmp(&path.dgid, &D.gid, sizeof(D.gid)), 0);
	CU_ASSERT_EQUAL(cl_ntoh16(path.pkey) & 0x7FFF, 0x7FFF);
	CU_ASSERT(ib_path_rec_mtu(&path) >= IB_MIN_MTU && ib_path_rec_mtu(&path) <= D.port->mtu);
	CU_ASSERT(path.num_path & 0x80);      /* reversible: the CM's paths must be */
	CU_ASSERT(ib_path_rec_pkt_life(&path) <= 31);
	if (D.roce) {
		/* RoCE: no LIDs, a GRH in every packet. */
		CU_ASSERT_EQUAL(path.slid, 0);
		CU_ASSERT_EQUAL(path.dlid, 0);
		CU_ASSERT(cmdp_path_grh(&path));
	} else {
		CU_ASSERT_EQUAL(path.slid, D.lid);
		CU_ASSERT_EQUAL(path.dlid, D.lid);
		CU_ASSERT(cmdp_path_grh(&path) == D.force_grh);
	}
	/* The same answer twice. */
	CU_ASSERT_EQUAL(cmdp_query_path(&again), IB_SUCCESS);
	cmdp_path_force(&again);
	CU_ASSERT_EQUAL(memcmp(&again, &path, sizeof(path)), 0);
	dp_gid_str(&path.sgid, gid, sizeof(gid));
	printf("\n    %s port, path GID[%u] %s LID 0x%x to itself, MTU %u, packet life %u "
	       "(time-wait %u ms), %s\n  ",
	       D.roce ? "RoCE" : "IB", D.gid_index, gid, cl_ntoh16(path.dlid),
	       128u << ib_path_rec_mtu(&path), ib_path_rec_pkt_life(&path), cmdp_timewait_ms(&path),
	       cmdp_path_grh(&path) ? "GRH" : "no GRH");
	check_no_stray();
	dp_down();
}

/*
 * RC through the callbacks: REQ -> ib_cm_rep (posting a receive), REP ->
 * ib_cm_rtu, RTU; private data of each; negotiated depths and access; sends
 * both ways, the first into the REP's receive; RDMA writes both ways; RDMA
 * reads; DREQ -> ib_cm_drep, DREP; both QPs ERROR (a receive left flushed
 * on each); then the time-wait refuses a new REQ on the QP.
 */
/*
 * The fixture up (@p path: the port to itself), an RC QP on a CQ of its own
 * at each end (*@p pa active on *@p pca, *@p pb passive on *@p pcb), and a
 * listen of CMDP_SVC for RC, which is returned.
 */
static ib_listen_handle_t rc_pair_listening(ib_path_rec_t *path, dp_cq_t **pca, dp_cq_t **pcb,
					    dp_qp_t **pa, dp_qp_t **pb)
{
	cmdp_up(path);
	*pca = dp_cq(64, 1);
	*pcb = dp_cq(64, 1);
	*pa = dp_qp(IB_QPT_RELIABLE_CONN, *pca, *pca);
	*pb = dp_qp(IB_QPT_RELIABLE_CONN, *pcb, *pcb);
	return cmdp_listen(CMDP_SVC, IB_QPT_RELIABLE_CONN);
}

static void test_rc_connect(void)
{
	ib_path_rec_t path;
	dp_cq_t *ca, *cp;
	dp_qp_t *a, *b;
	ib_listen_handle_t l;
	ib_qp_attr_t qa, qb;
	uint8_t dr, di;
	uint32_t big, rd;

	cmdp_up(&path);
	dr = D.resp_res < CMDP_DEPTH ? D.resp_res : CMDP_DEPTH;
	di = D.init_depth < CMDP_DEPTH ? D.init_depth : CMDP_DEPTH;
	ca = dp_cq(64, 1);
	cp = dp_cq(64, 1);
	a = dp_qp(IB_QPT_RELIABLE_CONN, ca, ca);
	b = dp_qp(IB_QPT_RELIABLE_CONN, cp, cp);
	CU_ASSERT_EQUAL(dp_state(a), IB_QPS_RESET);
	CU_ASSERT_EQUAL(dp_state(b), IB_QPS_RESET);
	l = cmdp_listen(CMDP_SVC, IB_QPT_RELIABLE_CONN);
	cmdp_set(&C.rep_recv, 1);
	pthread_mutex_lock(&D.lock);
	C.rep_access = IB_AC_LOCAL_WRITE | IB_AC_RDMA_WRITE | IB_AC_RDMA_READ;
	pthread_mutex_unlock(&D.lock);
	memset(DP_AT(CMDP_REP_RECV_SLOT), 0, 4 * DP_SLOT);

	CMDP_CONNECT(a, b, &path, CMDP_SVC, 1);
	check_req_rec(&path, IB_QPT_RELIABLE_CONN, l);
	CU_ASSERT_EQUAL(C.req.resp_res, dr);
	/* The REP: our QP's context, the responder resources it grants (the
	 * REQ's initiator depth), no alternate path. */
	CU_ASSERT_PTR_EQUAL(C.rep.qp_context, a);
	CU_ASSERT_EQUAL(C.rep.qp_type, IB_QPT_RELIABLE_CONN);
	CU_ASSERT_EQUAL(C.rep.resp_res, di);
	CU_ASSERT_EQUAL(C.rep.apr_status, IB_AP_UNSUPPORTED);
	CU_ASSERT_PTR_EQUAL(C.rtu.h_qp, b->h);
	CU_ASSERT_PTR_EQUAL(C.rtu.qp_context, b);
	check_pair(a, b, &path);
	qa = dp_query(a);
	qb = dp_query(b);
	/* Remote access: the passive QP's from the REP (writes and reads), the
	 * active one's from the RTU (writes). */
	CU_ASSERT_EQUAL(qb.access_ctrl & REMOTE_AC, IB_AC_RDMA_WRITE | IB_AC_RDMA_READ);
	CU_ASSERT_EQUAL(qa.access_ctrl & REMOTE_AC, IB_AC_RDMA_WRITE);
	/* Depths: the REQ offered resp_res dr and asked init_depth di, the REP
	 * granted di and asked 1: a may have di reads outstanding at b, which
	 * serves di; b may have 1 at a, which serves 1. */
	CU_ASSERT_EQUAL(qa.init_depth, di);
	CU_ASSERT_EQUAL(qa.resp_res, 1);
	CU_ASSERT_EQUAL(qb.resp_res, di);
	CU_ASSERT_EQUAL(qb.init_depth, 1);

	/* The first message lands in the receive ib_cm_rep posted. */
	big = 2 * D.mtu_bytes + 11;
	dp_fill(DP_AT(0), big, 77);
	CU_ASSERT_EQUAL(dp_send(a, 1, DP_AT(0), big, 0), IB_SUCCESS);
	DP_EXPECT(a->scq, 1, IB_WCS_SUCCESS, IB_WC_SEND, big, NULL);
	DP_EXPECT(b->rcq, CMDP_REP_RECV_ID, IB_WCS_SUCCESS, IB_WC_RECV, big, NULL);
	CU_ASSERT_EQUAL(dp_diff(DP_AT(CMDP_REP_RECV_SLOT), big, 77), -1);
	CU_ASSERT_EQUAL(dp_diff_byte(DP_AT(CMDP_REP_RECV_SLOT) + big, 4 * DP_SLOT - big, 0), -1);
	CMDP_SEND(a, b, 3000, 0, 8, 11);
	CMDP_SEND(b, a, big, 4, 12, 12);
	CMDP_SEND(b, a, 1, 4, 12, 13);
	CMDP_WRITE(a, b, 3 * D.mtu_bytes + 5, 16, 20, 14);
	CMDP_WRITE(b, a, 3 * D.mtu_bytes + 5, 24, 28, 15);
	/* Two RDMA reads from b's memory, back to back (a's initiator depth). */
	rd = 2 * D.mtu_bytes + 7;
	dp_fill(DP_AT(52), rd, 16);
	memset(DP_AT(56), 0, 4 * DP_SLOT);
	CU_ASSERT_EQUAL(dp_rdma(a, 5000, WR_RDMA_READ, DP_AT(56), rd / 2, DP_AT(52), D.rkey, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(dp_rdma(a, 5001, WR_RDMA_READ, DP_AT(56) + rd / 2, rd - rd / 2, DP_AT(52) + rd / 2,
				D.rkey, 0),
			IB_SUCCESS);
	DP_EXPECT(ca, 5000, IB_WCS_SUCCESS, IB_WC_RDMA_READ, rd / 2, NULL);
	DP_EXPECT(ca, 5001, IB_WCS_SUCCESS, IB_WC_RDMA_READ, rd - rd / 2, NULL);
	CU_ASSERT_EQUAL(dp_diff(DP_AT(56), rd, 16), -1);
	CU_ASSERT_EQUAL(dp_diff_byte(DP_AT(56) + rd, 4 * DP_SLOT - rd, 0), -1);
	DP_EMPTY(ca);
	DP_EMPTY(cp);

	/* A receive left on each side is flushed by the disconnection. */
	CU_ASSERT_EQUAL(dp_recv(a, 700, DP_AT(32), 64), IB_SUCCESS);
	CU_ASSERT_EQUAL(dp_recv(b, 701, DP_AT(33), 64), IB_SUCCESS);
	CMDP_DISCONNECT(a, b, 1);
	DP_EXPECT(ca, 700, IB_WCS_WR_FLUSHED_ERR, IB_WC_RECV, 0, NULL);
	DP_EXPECT(cp, 701, IB_WCS_WR_FLUSHED_ERR, IB_WC_RECV, 0, NULL);

	/* Time-wait: no second DREQ; a new REQ needs a QP in RESET or INIT,
	 * and then the QP's time-wait refuses it. */
	CU_ASSERT_EQUAL(cmdp_dreq(a, 1, 0), IB_INVALID_STATE);
	CU_ASSERT_EQUAL(cmdp_dreq(b, 1, 0), IB_INVALID_STATE);
	CU_ASSERT_EQUAL(cmdp_req(a, &path, CMDP_SVC, 2, 0), IB_INVALID_QP_STATE);
	CU_ASSERT_EQUAL(dp_to(a, IB_QPS_RESET), IB_SUCCESS);
	CU_ASSERT_EQUAL(cmdp_req(a, &path, CMDP_SVC, 2, 0), IB_INVALID_STATE);
	CU_ASSERT_EQUAL(dp_get(&C.n_req), 1);
	CU_ASSERT_EQUAL(dp_get(&C.n_rej), 0);
	check_no_stray();
	CU_ASSERT_EQUAL(ib_cm_cancel(l, ib_sync_destroy), IB_SUCCESS);
	dp_down();
}

/*
 * RC answered from the test thread, a state checked between every two
 * steps; second answers refused; traffic once the RTU came; the passive
 * side disconnects (the active side's DREQ callback, from ib_cm_rtu,
 * answers).
 */
static void test_rc_by_hand(void)
{
	uint8_t pd_rep[IB_REP_PDATA_SIZE], pd_rtu[IB_RTU_PDATA_SIZE];
	ib_path_rec_t path;
	dp_cq_t *ca, *cp;
	dp_qp_t *a, *b;
	ib_listen_handle_t l;
	ib_cm_rep_t r;
	ib_cm_rtu_t t;
	ib_cm_handle_t h;

	l = rc_pair_listening(&path, &ca, &cp, &a, &b);
	cmdp_use(a, b);
	cmdp_set_req_do(CMDP_REQ_NONE);
	cmdp_set(&C.rtu_in_rep, 0);
	cmdp_set_seed(2);

	/* REQ sent: the active QP in INIT, bound (a second REQ refused). */
	CU_ASSERT_EQUAL_FATAL(cmdp_req(a, &path, CMDP_SVC, 2, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(dp_state(a), IB_QPS_INIT);
	CU_ASSERT_EQUAL(cmdp_req(a, &path, CMDP_SVC, 2, 0), IB_INVALID_STATE);
	CU_ASSERT_FATAL(CMDP_WAIT(C.n_req, 1));
	check_req_rec(&path, IB_QPT_RELIABLE_CONN, l);
	CU_ASSERT(cmdp_pdata_ok(C.req_pdata, CMDP_REQ_LEN, PD_REQ, 2));
	CU_ASSERT_EQUAL(dp_state(b), IB_QPS_RESET);
	CU_ASSERT_EQUAL(dp_state(a), IB_QPS_INIT);
	pthread_mutex_lock(&D.lock);
	h = C.req.h_cm_req;
	pthread_mutex_unlock(&D.lock);

	/* REP: the passive QP RTR; a second REP refused. */
	cmdp_rep_fill(&r, pd_rep, b, 2, C.rep_access);
	CU_ASSERT_EQUAL_FATAL(ib_cm_rep(h, &r), IB_SUCCESS);
	CU_ASSERT_EQUAL(dp_state(b), IB_QPS_RTR);
	CU_ASSERT_EQUAL(ib_cm_rep(h, &r), IB_INVALID_STATE);
	CU_ASSERT_FATAL(CMDP_WAIT(C.n_rep, 1));
	CU_ASSERT_EQUAL(C.act_in_rep, IB_QPS_RTR);
	CU_ASSERT(cmdp_pdata_ok(C.rep_pdata, IB_REP_PDATA_SIZE, PD_REP, 2));
	CU_ASSERT_EQUAL(dp_state(a), IB_QPS_RTR);
	/* No RTU yet: the passive QP stays RTR (it receives, does not send). */
	CU_ASSERT_EQUAL(dp_state(b), IB_QPS_RTR);
	CU_ASSERT_EQUAL(dp_get(&C.n_rtu), 0);

	/* RTU: the active QP RTS; a second RTU refused; the passive QP RTS
	 * before its rtu callback. */
	pthread_mutex_lock(&D.lock);
	h = C.rep.h_cm_rep;
	pthread_mutex_unlock(&D.lock);
	cmdp_rtu_fill(&t, pd_rtu, 2, C.rtu_access);
	CU_ASSERT_EQUAL_FATAL(ib_cm_rtu(h, &t), IB_SUCCESS);
	CU_ASSERT_EQUAL(dp_state(a), IB_QPS_RTS);
	CU_ASSERT_EQUAL(ib_cm_rtu(h, &t), IB_INVALID_STATE);
	CU_ASSERT_FATAL(CMDP_WAIT(C.n_rtu, 1));
	CU_ASSERT_EQUAL(C.pas_in_rtu, IB_QPS_RTS);
	CU_ASSERT(cmdp_pdata_ok(C.rtu_pdata, CMDP_RTU_LEN, PD_RTU, 2));
	check_pair(a, b, &path);

	CMDP_SEND(b, a, 2 * D.mtu_bytes, 0, 8, 21);
	CMDP_SEND(a, b, 100, 4, 12, 22);
	CMDP_WRITE(b, a, D.mtu_bytes + 1, 16, 20, 23);

	/* The passive side disconnects. */
	CMDP_DISCONNECT(b, a, 2);
	CU_ASSERT_EQUAL(cmdp_dreq(b, 2, 0), IB_INVALID_STATE);
	CU_ASSERT_EQUAL(cmdp_dreq(a, 2, 0), IB_INVALID_STATE);
	CU_ASSERT_EQUAL(dp_get(&C.n_rej), 0);
	check_no_stray();
	CU_ASSERT_EQUAL(ib_cm_cancel(l, ib_sync_destroy), IB_SUCCESS);
	dp_down();
}

/*
 * A REQ for a service nobody listens on (another one has a listen): the
 * rej callback with IB_REJ_INVALID_SID, no private data, the QP in ERROR,
 * no REQ callback. No QP numbers were exchanged, so no time-wait: the QP,
 * reset, connects at once.
 */
static void test_rej_no_listener(void)
{
	ib_path_rec_t path;
	dp_cq_t *ca, *cp;
	dp_qp_t *a, *b;
	ib_listen_handle_t l;

	l = rc_pair_listening(&path, &ca, &cp, &a, &b);
	cmdp_use(a, b);

	CU_ASSERT_EQUAL_FATAL(cmdp_req(a, &path, CMDP_SVC_NONE, 3, 0), IB_SUCCESS);
	CU_ASSERT_FATAL(CMDP_WAIT(C.n_rej, 1));
	check_rej(a, IB_REJ_INVALID_SID);
	CU_ASSERT_EQUAL(C.rej.ari_length, 0);
	CU_ASSERT_EQUAL(dp_diff_byte(C.rej_pdata, IB_REJ_PDATA_SIZE, 0), -1);
	CU_ASSERT_EQUAL(dp_get(&C.n_req), 0);
	CU_ASSERT_EQUAL(dp_get(&C.n_rep), 0);
	CU_ASSERT_EQUAL(dp_state(b), IB_QPS_RESET);

	CU_ASSERT_EQUAL(dp_to(a, IB_QPS_RESET), IB_SUCCESS);
	CMDP_CONNECT(a, b, &path, CMDP_SVC, 3);
	check_pair(a, b, &path);
	CMDP_SEND(a, b, 500, 0, 8, 31);
	CMDP_DISCONNECT(a, b, 3);
	CU_ASSERT_EQUAL(dp_get(&C.n_rej), 1);
	check_no_stray();
	CU_ASSERT_EQUAL(ib_cm_cancel(l, ib_sync_destroy), IB_SUCCESS);
	dp_down();
}

/*
 * ib_cm_rej (IB_REJ_USER_DEFINED, 148 bytes of private data) from the REQ
 * callback: the active side's rej callback has both, its QP is in ERROR,
 * the passive QP was never touched, the request's handle is gone. Then
 * the same QPs connect at once (no time-wait without QP numbers).
 */
static void test_rej_from_req_callback(void)
{
	uint8_t pd_rep[IB_REP_PDATA_SIZE];
	ib_path_rec_t path;
	dp_cq_t *ca, *cp;
	dp_qp_t *a, *b;
	ib_listen_handle_t l;
	ib_cm_rep_t r;
	ib_cm_handle_t h;

	l = rc_pair_listening(&path, &ca, &cp, &a, &b);
	cmdp_use(a, b);
	cmdp_set_req_do(CMDP_REQ_REJ);
	cmdp_set_seed(4);

	CU_ASSERT_EQUAL_FATAL(cmdp_req(a, &path, CMDP_SVC, 4, 0), IB_SUCCESS);
	CU_ASSERT_FATAL(CMDP_WAIT(C.n_rej, 1));
	/* The REQ callback counts after ib_cm_rej returned: maybe after the REJ's. */
	CU_ASSERT_FATAL(CMDP_WAIT(C.n_req, 1));
	CU_ASSERT_EQUAL(C.st_rep, IB_SUCCESS);     /* ib_cm_rej's status */
	check_rej(a, IB_REJ_USER_DEFINED);
	CU_ASSERT(cmdp_pdata_ok(C.rej_pdata, IB_REJ_PDATA_SIZE, PD_REJ, 4));
	CU_ASSERT_EQUAL(dp_state(b), IB_QPS_RESET);
	CU_ASSERT_EQUAL(dp_get(&C.n_rep), 0);
	pthread_mutex_lock(&D.lock);
	h = C.req.h_cm_req;
	pthread_mutex_unlock(&D.lock);
	cmdp_rep_fill(&r, pd_rep, b, 4, C.rep_access);
	CU_ASSERT_EQUAL(ib_cm_rep(h, &r), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(dp_state(b), IB_QPS_RESET);

	cmdp_set_req_do(CMDP_REQ_REP);
	CU_ASSERT_EQUAL(dp_to(a, IB_QPS_RESET), IB_SUCCESS);
	CMDP_CONNECT(a, b, &path, CMDP_SVC, 5);
	check_pair(a, b, &path);
	CMDP_SEND(b, a, 64, 0, 8, 41);
	CMDP_DISCONNECT(a, b, 5);
	CU_ASSERT_EQUAL(dp_get(&C.n_rej), 1);
	check_no_stray();
	CU_ASSERT_EQUAL(ib_cm_cancel(l, ib_sync_destroy), IB_SUCCESS);
	dp_down();
}

/*
 * A listen is unique per service ID (no compare buffer); ib_cm_cancel ends
 * it (destroy callback with its context), a second cancel is refused, a
 * REQ for its service is then rejected with IB_REJ_INVALID_SID without a
 * REQ callback; a new listen on the service takes the next REQ.
 */
static void test_listen_cancel(void)
{
	ib_path_rec_t path;
	ib_cm_listen_t li;
	ib_listen_handle_t l, l2 = NULL;
	dp_cq_t *ca, *cp;
	dp_qp_t *a, *b;

	cmdp_up(&path);
	ca = dp_cq(64, 1);
	cp = dp_cq(64, 1);
	a = dp_qp(IB_QPT_RELIABLE_CONN, ca, ca);
	b = dp_qp(IB_QPT_RELIABLE_CONN, cp, cp);
	cmdp_use(a, b);
	l = cmdp_listen(CMDP_SVC, IB_QPT_RELIABLE_CONN);
	memset(&li, 0, sizeof(li));
	li.svc_id = CMDP_SVC;
	li.ca_guid = IB_ALL_CAS;
	li.port_guid = IB_ALL_PORTS;
	li.lid = IB_ALL_LIDS;
	li.pkey = IB_ALL_PKEYS;
	li.pfn_cm_req_cb = cmdp_on_req;
	li.qp_type = IB_QPT_RELIABLE_CONN;
	CU_ASSERT_EQUAL(ib_cm_listen(D.al, &li, &C, &l2), IB_INVALID_SETTING);

	CU_ASSERT_EQUAL(ib_cm_cancel(l, cmdp_on_destroy), IB_SUCCESS);
	CU_ASSERT(CMDP_WAIT(C.n_destroy, 1));
	CU_ASSERT_EQUAL(ib_cm_cancel(l, cmdp_on_destroy), IB_INVALID_HANDLE);

	CU_ASSERT_EQUAL_FATAL(cmdp_req(a, &path, CMDP_SVC, 6, 0), IB_SUCCESS);
	CU_ASSERT_FATAL(CMDP_WAIT(C.n_rej, 1));
	check_rej(a, IB_REJ_INVALID_SID);
	CU_ASSERT_EQUAL(dp_get(&C.n_req), 0);

	CU_ASSERT_EQUAL_FATAL(ib_cm_listen(D.al, &li, &C, &l2), IB_SUCCESS);
	CU_ASSERT_EQUAL(dp_to(a, IB_QPS_RESET), IB_SUCCESS);
	CMDP_CONNECT(a, b, &path, CMDP_SVC, 6);
	CMDP_DISCONNECT(a, b, 6);
	CU_ASSERT_EQUAL(ib_cm_cancel(l2, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(dp_get(&C.n_destroy), 1);   /* ib_sync_destroy: no callback */
	check_no_stray();
	dp_down();
}

#define TEN_PAIRS 5
#define TEN_CONNS 10

/*
 * Ten connections one after another on five pairs of QPs, each pair used
 * twice, with a message each way and a disconnection (from the active
 * side) each time. A QP is reset after its disconnection; its new REQ is
 * refused (IB_INVALID_STATE) until the time-wait is over, so the second
 * round waits for it: at least t(ACK timeout) + t(packet life) after the
 * DREQ. The passive QP's time-wait began earlier (with its DREP), so its
 * ib_cm_rep is taken. Every connection has new communication IDs.
 */
static void test_rc_ten_connections(void)
{
	ib_path_rec_t path;
	dp_cq_t *ca, *cp;
	dp_qp_t *a[TEN_PAIRS], *b[TEN_PAIRS];
	ib_listen_handle_t l;
	ib_api_status_t st;
	uint64_t t_dreq[TEN_PAIRS], t0, end, waited, max_wait = 0;
	net32_t cid_act[TEN_CONNS], cid_pas[TEN_CONNS];
	uint32_t twait, k, j, tries;
	int refused_first;

	cmdp_up(&path);
	twait = cmdp_timewait_ms(&path);
	ca = dp_cq(256, 1);
	cp = dp_cq(256, 1);
	for (k = 0; k < TEN_PAIRS; k++) {
		a[k] = dp_qp(IB_QPT_RELIABLE_CONN, ca, ca);
		b[k] = dp_qp(IB_QPT_RELIABLE_CONN, cp, cp);
	}
	l = cmdp_listen(CMDP_SVC, IB_QPT_RELIABLE_CONN);
	t0 = test_now_ms();

	for (k = 0; k < TEN_CONNS; k++) {
		dp_qp_t *x = a[k % TEN_PAIRS], *y = b[k % TEN_PAIRS];
		uint32_t seed = 100 + k;

		cmdp_use(x, y);
		cmdp_set_seed(seed);
		/* A QP of the second round waits for its time-wait: its REQ is
		 * refused until then, nothing sent. */
		tries = 0;
		end = test_now_ms() + twait + DP_WAIT_MS;
		while ((st = cmdp_req(x, &path, CMDP_SVC, seed, 0)) == IB_INVALID_STATE &&
		       test_now_ms() < end) {
			tries++;
			dp_pause_ms(5);
		}
		CU_ASSERT_EQUAL_FATAL(st, IB_SUCCESS);
		if (k >= TEN_PAIRS) {
			waited = test_now_ms() - t_dreq[k % TEN_PAIRS];
			if (waited + 2 < twait)
				fprintf(stderr, "\n  connection %u: QP reused %llu ms after its DREQ, "
					"time-wait %u ms\n", k, (unsigned long long)waited, twait);
			CU_ASSERT(waited + 2 >= twait);
			if (tries && waited > max_wait)
				max_wait = waited;
		} else {
			CU_ASSERT_EQUAL(tries, 0);
		}
		CMDP_HANDSHAKE_WAIT((int)k, (int)k, (int)k);
		pthread_mutex_lock(&D.lock);
		CU_ASSERT_EQUAL(C.st_rep, IB_SUCCESS);
		CU_ASSERT_EQUAL(C.st_rtu, IB_SUCCESS);
		CU_ASSERT(cmdp_pdata_ok(C.req_pdata, CMDP_REQ_LEN, PD_REQ, seed));
		CU_ASSERT(cmdp_pdata_ok(C.rep_pdata, IB_REP_PDATA_SIZE, PD_REP, seed));
		CU_ASSERT(cmdp_pdata_ok(C.rtu_pdata, CMDP_RTU_LEN, PD_RTU, seed));
		cid_pas[k] = C.req.h_cm_req.cid;
		cid_act[k] = C.rep.h_cm_rep.cid;
		pthread_mutex_unlock(&D.lock);
		check_pair(x, y, &path);
		CMDP_SEND(x, y, 200 + k, 0, 8, seed);
		CMDP_SEND(y, x, 300 + k, 4, 12, seed + 50);

		t_dreq[k % TEN_PAIRS] = test_now_ms();
		CMDP_DISCONNECT(x, y, seed);
		CU_ASSERT_EQUAL(dp_to(x, IB_QPS_RESET), IB_SUCCESS);
		CU_ASSERT_EQUAL(dp_to(y, IB_QPS_RESET), IB_SUCCESS);
		if (k == 0) {
			/* Right after the DREP: in time-wait. */
			refused_first = cmdp_req(x, &path, CMDP_SVC, seed, 0) == IB_INVALID_STATE;
			CU_ASSERT(refused_first);
		}
	}
	CU_ASSERT_EQUAL(dp_get(&C.n_req), TEN_CONNS);
	CU_ASSERT_EQUAL(dp_get(&C.n_drep), TEN_CONNS);
	CU_ASSERT_EQUAL(dp_get(&C.n_rej), 0);
	for (k = 0; k < TEN_CONNS; k++)
		for (j = 0; j < k; j++) {
			CU_ASSERT_NOT_EQUAL(cid_act[k], cid_act[j]);
			CU_ASSERT_NOT_EQUAL(cid_pas[k], cid_pas[j]);
		}
	for (k = 0; k < TEN_CONNS; k++)
		CU_ASSERT_NOT_EQUAL(cid_act[k], cid_pas[k]);
	DP_EMPTY(ca);
	DP_EMPTY(cp);
	printf("\n    %u connections in %llu ms (time-wait %u ms, longest reuse wait %llu ms)\n  ",
	       TEN_CONNS, (unsigned long long)(test_now_ms() - t0), twait,
	       (unsigned long long)max_wait);
	check_no_stray();
	CU_ASSERT_EQUAL(ib_cm_cancel(l, ib_sync_destroy), IB_SUCCESS);
	dp_down();
}

/* UC: connect, sends both ways, RDMA writes both ways, disconnect. */
static void test_uc_connect(void)
{
	ib_path_rec_t path;
	dp_cq_t *ca, *cp;
	dp_qp_t *a, *b;
	ib_listen_handle_t l;
	ib_qp_attr_t qa, qb;

	cmdp_up(&path);
	ca = dp_cq(64, 1);
	cp = dp_cq(64, 1);
	a = dp_qp(IB_QPT_UNRELIABLE_CONN, ca, ca);
	b = dp_qp(IB_QPT_UNRELIABLE_CONN, cp, cp);
	l = cmdp_listen(CMDP_SVC, IB_QPT_UNRELIABLE_CONN);
	if (cmdp_kcm) {
		/* librdmacm connects RC only: the documented status, nothing sent. */
		CU_ASSERT_EQUAL(cmdp_req(a, &path, CMDP_SVC, 7, 0), IB_UNSUPPORTED);
		CU_ASSERT_EQUAL(dp_state(a), IB_QPS_RESET);
		CU_ASSERT_EQUAL(ib_cm_cancel(l, ib_sync_destroy), IB_SUCCESS);
		dp_down();
		return;
	}

	CMDP_CONNECT(a, b, &path, CMDP_SVC, 7);
	check_req_rec(&path, IB_QPT_UNRELIABLE_CONN, l);
	CU_ASSERT_EQUAL(C.rep.qp_type, IB_QPT_UNRELIABLE_CONN);
	CU_ASSERT_PTR_EQUAL(C.rep.qp_context, a);
	check_pair(a, b, &path);
	qa = dp_query(a);
	qb = dp_query(b);
	CU_ASSERT_EQUAL(qa.qp_type, IB_QPT_UNRELIABLE_CONN);
	CU_ASSERT_EQUAL(qb.access_ctrl & REMOTE_AC, IB_AC_RDMA_WRITE);
	CU_ASSERT_EQUAL(qa.access_ctrl & REMOTE_AC, IB_AC_RDMA_WRITE);

	CMDP_SEND(a, b, 2 * D.mtu_bytes + 3, 0, 8, 71);
	CMDP_SEND(b, a, 17, 4, 12, 72);
	CMDP_WRITE(a, b, 2 * D.mtu_bytes + 9, 16, 20, 73);
	CMDP_WRITE(b, a, 100, 24, 28, 74);
	DP_EMPTY(ca);
	DP_EMPTY(cp);
	CMDP_DISCONNECT(a, b, 7);
	CU_ASSERT_EQUAL(dp_get(&C.n_rej), 0);
	check_no_stray();
	CU_ASSERT_EQUAL(ib_cm_cancel(l, ib_sync_destroy), IB_SUCCESS);
	dp_down();
}

/*
 * The kernel CM's path keeps what its last REQ learned of the CA (the port
 * with the path's source GID, the P_Key's index) until the CA reports a
 * change; a REQ from a GID that memo does not hold still reads the CA
 * afresh: after the connections above (this GID learned), a source GID no
 * port has is refused with IB_INVALID_SETTING, nothing sent, the QP left in
 * RESET; and the real GID connects again. The soft fabric's CM takes a path
 * whose GID it does not know by its source LID, so this is the kernel CM's.
 */
static void test_req_unknown_sgid(void)
{
	ib_path_rec_t path, bad;
	dp_cq_t *ca, *cp;
	dp_qp_t *a, *b;
	ib_listen_handle_t l;

	if (!cmdp_kcm)
		return;
	l = rc_pair_listening(&path, &ca, &cp, &a, &b);
	bad = path;
	bad.sgid.raw[15] ^= 0x5a;
	CU_ASSERT_EQUAL(cmdp_req(a, &bad, CMDP_SVC, 9, 0), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(dp_state(a), IB_QPS_RESET);
	CU_ASSERT_EQUAL(dp_get(&C.n_req), 0);
	CMDP_CONNECT(a, b, &path, CMDP_SVC, 9);
	CMDP_DISCONNECT(a, b, 9);
	check_no_stray();
	CU_ASSERT_EQUAL(ib_cm_cancel(l, ib_sync_destroy), IB_SUCCESS);
	dp_down();
}

/* The kernel CM phase's address test: GID change events of port 1 (D.lock). */
static int gid_events;

static ib_api_status_t AL_API on_port_pnp(ib_pnp_rec_t *p_rec)
{
	if (p_rec->pnp_event == IB_PNP_GID_CHANGE) {
		pthread_mutex_lock(&D.lock);
		cmdp_bump(&gid_events);
		pthread_mutex_unlock(&D.lock);
	}
	return IB_SUCCESS;
}

/* Whether port 1's GID table (read afresh) holds @p g. */
static int port_has_gid(const ib_gid_t *g)
{
	ib_ca_attr_t *attr = dp_query_ca();
	const ib_port_attr_t *p;
	int has = 0;
	uint16_t i;

	if (attr && attr->num_ports && attr->p_port_attr) {
		p = &attr->p_port_attr[0];
		for (i = 0; p->p_gid_table && i < p->num_gids && !has; i++)
			has = !memcmp(p->p_gid_table[i].raw, g->raw, sizeof(g->raw));
	}
	free(attr);
	return has;
}

/*
 * Runs `ip addr ACTION ADDR/24 dev NETDEV` and waits (bounded) until port
 * 1's table does (@p want 1) or does not hold @p g and a GID change event
 * came after the command: the access layer has then had the provider's
 * upcall for it.
 */
static int ip_addr_change(const char *action, const ib_gid_t *g, const char *netdev, int want)
{
	char cmd[128];
	uint64_t end = test_now_ms() + DP_WAIT_MS;
	int ev0 = dp_get(&gid_events), ev = ev0;

	snprintf(cmd, sizeof(cmd), "ip addr %s %u.%u.%u.%u/24 dev %s", action, g->raw[12], g->raw[13],
		 g->raw[14], g->raw[15], netdev);
	if (system(cmd) != 0) {
		fprintf(stderr, "\n  '%s' failed\n", cmd);
		return 0;
	}
	while (ev == ev0 || port_has_gid(g) != want) {
		uint64_t now = test_now_ms();

		if (now >= end)
			return 0;
		ev = dp_wait_count(&gid_events, ev + 1, end - now);
	}
	return 1;
}

/*
 * What the CM through the kernel's learned of the CA does not outlive an
 * address change: an IPv4 address added to the port's network device gives
 * a GID, and a connection from it to itself is made and ended; once the
 * address is removed again (the GID change reported), a REQ from that GID
 * is refused with IB_INVALID_SETTING, nothing sent and the QP left in
 * RESET, as for a GID the port never had; the port's own GID still
 * connects. Root in the rxe guest (`ip`); the kernel CM phase only.
 */
static void test_req_after_address_change(void)
{
	ib_pnp_req_t pr = { IB_PNP_PORT | IB_PNP_FLAG_REG_SYNC, NULL, on_port_pnp };
	const char *netdev = getenv("IBAL_RXE_NETDEV");
	ib_path_rec_t path, p9;
	ib_pnp_handle_t h_pnp = NULL;
	dp_cq_t *ca, *cp;
	dp_qp_t *a, *b, *c, *d;
	ib_listen_handle_t l;
	int n_req;

	if (!cmdp_kcm)
		return;
	CU_ASSERT_PTR_NOT_NULL_FATAL(netdev);
	l = rc_pair_listening(&path, &ca, &cp, &a, &b);
	CU_ASSERT_FATAL(D.gid_v4);
	CU_ASSERT_EQUAL_FATAL(ib_reg_pnp(D.al, &pr, &h_pnp), IB_SUCCESS);
	p9 = path;
	p9.sgid.raw[15] ^= 8; /* 10.77.0.1 -> 10.77.0.9 */
	p9.dgid = p9.sgid;
	CU_ASSERT_FATAL(!port_has_gid(&p9.sgid));

	CU_ASSERT_FATAL(ip_addr_change("add", &p9.sgid, netdev, 1));
	CMDP_CONNECT(a, b, &p9, CMDP_SVC, 10);
	CMDP_DISCONNECT(a, b, 10);

	CU_ASSERT_FATAL(ip_addr_change("del", &p9.sgid, netdev, 0));
	c = dp_qp(IB_QPT_RELIABLE_CONN, ca, ca);
	d = dp_qp(IB_QPT_RELIABLE_CONN, cp, cp);
	n_req = dp_get(&C.n_req);
	CU_ASSERT_EQUAL(cmdp_req(c, &p9, CMDP_SVC, 11, 0), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(dp_state(c), IB_QPS_RESET);
	CU_ASSERT_EQUAL(dp_get(&C.n_req), n_req);
	CMDP_CONNECT(c, d, &path, CMDP_SVC, 12);
	CMDP_DISCONNECT(c, d, 12);
	check_no_stray();
	CU_ASSERT_EQUAL(ib_dereg_pnp(h_pnp, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_cm_cancel(l, ib_sync_destroy), IB_SUCCESS);
	dp_down();
}

/*
 * IB_FLAGS_SYNC from the test thread: ib_cm_req returns after the rep
 * callback (which sent the RTU) has returned; ib_cm_dreq after the drep
 * callback; a REQ nobody listens to after the rej callback. In the REQ
 * callback (an AL thread) the flag is refused with IB_INVALID_STATE.
 */
static void test_sync_calls(void)
{
	ib_path_rec_t path;
	dp_cq_t *ca, *cp;
	dp_qp_t *a, *b, *c;
	ib_listen_handle_t l;

	cmdp_up(&path);
	ca = dp_cq(64, 1);
	cp = dp_cq(64, 1);
	a = dp_qp(IB_QPT_RELIABLE_CONN, ca, ca);
	b = dp_qp(IB_QPT_RELIABLE_CONN, cp, cp);
	c = dp_qp(IB_QPT_RELIABLE_CONN, ca, ca);
	l = cmdp_listen(CMDP_SVC, IB_QPT_RELIABLE_CONN);
	cmdp_use(a, b);
	cmdp_set(&C.sync_in_req, 1);
	cmdp_set_seed(8);

	CU_ASSERT_EQUAL_FATAL(cmdp_req(a, &path, CMDP_SVC, 8, IB_FLAGS_SYNC), IB_SUCCESS);
	CU_ASSERT_EQUAL(dp_get(&C.n_rep_done), 1);
	CU_ASSERT_EQUAL(dp_state(a), IB_QPS_RTS);
	CU_ASSERT_EQUAL(C.st_rtu, IB_SUCCESS);
	CMDP_HANDSHAKE_WAIT(0, 0, 0);
	CU_ASSERT_EQUAL(C.st_sync, IB_INVALID_STATE);
	CU_ASSERT_EQUAL(C.st_rep, IB_SUCCESS);
	check_pair(a, b, &path);
	CMDP_SEND(a, b, 1000, 0, 8, 81);

	CU_ASSERT_EQUAL(cmdp_dreq(a, 8, IB_FLAGS_SYNC), IB_SUCCESS);
	CU_ASSERT_EQUAL(dp_get(&C.n_drep_done), 1);
	CU_ASSERT_EQUAL(C.drep.cm_status, IB_SUCCESS);
	CU_ASSERT(cmdp_pdata_ok(C.drep_pdata, CMDP_DREP_LEN, PD_DREP, 8));
	CU_ASSERT(CMDP_WAIT(C.n_dreq, 1));
	CU_ASSERT_EQUAL(dp_state(a), IB_QPS_ERROR);
	CU_ASSERT_EQUAL(dp_state(b), IB_QPS_ERROR);

	cmdp_use(c, b);
	CU_ASSERT_EQUAL(cmdp_req(c, &path, CMDP_SVC_NONE, 9, IB_FLAGS_SYNC), IB_SUCCESS);
	CU_ASSERT_EQUAL(dp_get(&C.n_rej), 1);
	check_rej(c, IB_REJ_INVALID_SID);
	CU_ASSERT_EQUAL(dp_get(&C.n_req), 1);
	check_no_stray();
	CU_ASSERT_EQUAL(ib_cm_cancel(l, ib_sync_destroy), IB_SUCCESS);
	dp_down();
}

/* ---- MADs from port 1 to itself ---- */

#define SELF_MAD_CLASS 0x09u   /* a vendor class nobody else here uses */
#define TWIN_PAIRS 20u
#define TWIN_MAX   (2u * TWIN_PAIRS + 1u)

/* What the twin test's service saw (D.lock). */
static struct {
	int n_recv, n_send, n_send_bad;
	uint64_t tid[TWIN_MAX];
} twin;

static void AL_API twin_on_send(const ib_mad_svc_handle_t h, void *ctx, ib_mad_element_t *e)
{
	(void)h;
	(void)ctx;
	pthread_mutex_lock(&D.lock);
	if (e->status != IB_WCS_SUCCESS)
		twin.n_send_bad++;
	cmdp_bump(&twin.n_send);
	pthread_mutex_unlock(&D.lock);
	ib_put_mad(e);
}

static void AL_API twin_on_recv(const ib_mad_svc_handle_t h, void *ctx, ib_mad_element_t *e)
{
	(void)h;
	(void)ctx;
	pthread_mutex_lock(&D.lock);
	if (twin.n_recv < (int)TWIN_MAX)
		twin.tid[twin.n_recv] = cl_ntoh64(e->p_mad_buf->trans_id);
	cmdp_bump(&twin.n_recv);
	pthread_mutex_unlock(&D.lock);
	ib_put_mad(e);
}

/* A MAD of SELF_MAD_CLASS (@p method, TID @p tid) from @p key to port 1's own QP1. */
static ib_mad_element_t *self_mad(ib_pool_key_t key, uint8_t method, uint64_t tid, ib_grh_t *grh)
{
	ib_mad_element_t *e = NULL;

	CU_ASSERT_EQUAL_FATAL(ib_get_mad(key, MAD_BLOCK_SIZE, &e), IB_SUCCESS);
	memset(e->p_mad_buf, 0, MAD_BLOCK_SIZE);
	e->p_mad_buf->base_ver = 1;
	e->p_mad_buf->mgmt_class = SELF_MAD_CLASS;
	e->p_mad_buf->class_ver = 1;
	e->p_mad_buf->method = method;
	e->p_mad_buf->trans_id = cl_hton64(tid);
	e->size = MAD_BLOCK_SIZE;
	e->remote_lid = D.lid;
	e->remote_qp = CL_HTON32(1);
	e->remote_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	e->pkey_index = 0;
	if (D.grh) {
		e->grh_valid = TRUE;
		e->p_grh = grh;
	}
	return e;
}

/* Port 1's own QP1 through an alias (the PD and QP in *pp_pd, *pp_qp, the pool
 * key in *p_key), and the GRH a MAD to itself carries where the port needs one. */
static void mad_open(ib_pd_handle_t *pp_pd, ib_qp_handle_t *pp_qp, ib_pool_key_t *p_key, ib_grh_t *grh)
{
	ib_qp_create_t qc;

	memset(grh, 0, sizeof(*grh));
	grh->ver_class_flow = cl_hton32(6u << 28);
	grh->hop_limit = 64;
	grh->src_gid = D.gid;
	grh->dest_gid = D.gid;
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(D.ca, IB_PDT_ALIAS, NULL, pp_pd), IB_SUCCESS);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_QP1_ALIAS;
	CU_ASSERT_EQUAL_FATAL(ib_get_spl_qp(*pp_pd, D.port->port_guid, &qc, NULL, NULL, p_key, pp_qp),
			      IB_SUCCESS);
}

/* A service of SELF_MAD_CLASS on @p qp: @p type, unsolicited @p method (0: none). */
static ib_mad_svc_handle_t mad_svc(ib_qp_handle_t qp, ib_mad_svc_type_t type, uint8_t method,
				   ib_pfn_mad_comp_cb_t send_cb, ib_pfn_mad_comp_cb_t recv_cb)
{
	ib_mad_svc_handle_t h = NULL;
	ib_mad_svc_t svc;

	memset(&svc, 0, sizeof(svc));
	svc.pfn_mad_send_cb = send_cb;
	svc.pfn_mad_recv_cb = recv_cb;
	svc.mgmt_class = SELF_MAD_CLASS;
	svc.mgmt_version = 1;
	svc.svc_type = type;
	if (method) {
		svc.support_unsol = TRUE;
		svc.method_array[method] = TRUE;
	}
	CU_ASSERT_EQUAL_FATAL(ib_reg_mad_svc(qp, &svc, &h), IB_SUCCESS);
	return h;
}

static void mad_close(ib_pd_handle_t pd, ib_qp_handle_t qp)
{
	CU_ASSERT_EQUAL(ib_destroy_qp(qp, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dealloc_pd(pd, NULL), IB_SUCCESS);
}

/*
 * Two MADs of one class whose TIDs are the same on the wire, sent back to
 * back from one port to itself, both arrive. So a CM endpoint answers its
 * peer in the same process: the DREP to a DREQ carries the TID of the DREQ
 * as it came, which on a verbs port is the one the kernel gave it (its
 * agent's high half). The kernel refuses a MAD whose class and TID are
 * those of one of the same file whose send has not completed yet; rxe can
 * deliver a MAD before that, and the answer was lost (a DREP callback then
 * came from the DREQ's resend, seconds later, without the private data).
 * The first MAD tells the TID's high half on the wire; each pair is then a
 * MAD with a new TID and, at once, one with its wire TID.
 */
static void test_mad_twin_tids(void)
{
	ib_path_rec_t path;
	ib_pd_handle_t pd = NULL;
	ib_qp_handle_t qp = NULL;
	ib_pool_key_t key = NULL;
	ib_mad_svc_handle_t svc;
	ib_grh_t grh;
	uint64_t hi, lo, tid;
	uint32_t k;
	int i, found;

	cmdp_up(&path);
	memset(&twin, 0, sizeof(twin));
	mad_open(&pd, &qp, &key, &grh);
	svc = mad_svc(qp, IB_MAD_SVC_RAW, IB_MAD_METHOD_SEND, twin_on_send, twin_on_recv);

	CU_ASSERT_EQUAL_FATAL(ib_send_mad(svc, self_mad(key, IB_MAD_METHOD_SEND, 0x5A5A5A5A00000100ull, &grh),
					  NULL), IB_SUCCESS);
	cmdp_wait(__FILE__, __LINE__, &twin.n_recv, 1, "twin.n_recv");
	pthread_mutex_lock(&D.lock);
	hi = twin.tid[0] >> 32;
	CU_ASSERT_EQUAL(twin.tid[0] & 0xFFFFFFFFu, 0x100u);
	pthread_mutex_unlock(&D.lock);

	for (k = 1; k <= TWIN_PAIRS; k++) {
		lo = 0x100u + k;
		CU_ASSERT_EQUAL(ib_send_mad(svc, self_mad(key, IB_MAD_METHOD_SEND, 0x5A5A5A5A00000000ull | lo, &grh),
					    NULL), IB_SUCCESS);
		CU_ASSERT_EQUAL(ib_send_mad(svc, self_mad(key, IB_MAD_METHOD_SEND, hi << 32 | lo, &grh), NULL),
				IB_SUCCESS);
	}
	cmdp_wait(__FILE__, __LINE__, &twin.n_send, (int)TWIN_MAX, "twin.n_send");
	cmdp_wait(__FILE__, __LINE__, &twin.n_recv, (int)TWIN_MAX, "twin.n_recv");
	pthread_mutex_lock(&D.lock);
	CU_ASSERT_EQUAL(twin.n_send_bad, 0);
	CU_ASSERT_EQUAL(twin.n_recv, (int)TWIN_MAX);
	for (k = 1; k <= TWIN_PAIRS; k++) {
		tid = hi << 32 | (0x100u + k);
		for (i = 1, found = 0; i < twin.n_recv && i < (int)TWIN_MAX; i++)
			found += twin.tid[i] == tid;
		if (found != 2)
			fprintf(stderr, "\n  TID 0x%016llx arrived %d times\n", (unsigned long long)tid, found);
		CU_ASSERT_EQUAL(found, 2);
	}
	pthread_mutex_unlock(&D.lock);
	mad_close(pd, qp);
}

/* ---- A request sent again ---- */

#define AGAIN_ANSWERED 3      /* the copy of the request that is answered */

/* What the resend test's two services saw (D.lock). */
static struct {
	int n_get, n_resp, n_done, n_bad;
	ib_wc_status_t st;
	ib_mad_svc_handle_t responder;
	ib_pool_key_t key;
	ib_grh_t grh;
} again;

/* The responder: answers the request's copies from the AGAIN_ANSWERED-th on. */
static void AL_API again_on_get(const ib_mad_svc_handle_t h, void *ctx, ib_mad_element_t *e)
{
	ib_mad_element_t *r;
	int n;

	(void)h;
	(void)ctx;
	pthread_mutex_lock(&D.lock);
	n = ++again.n_get;
	pthread_mutex_unlock(&D.lock);
	if (n >= AGAIN_ANSWERED) {
		r = self_mad(again.key, IB_MAD_METHOD_GET_RESP, cl_ntoh64(e->p_mad_buf->trans_id), &again.grh);
		if (ib_send_mad(again.responder, r, NULL) != IB_SUCCESS) {
			ib_put_mad(r);
			pthread_mutex_lock(&D.lock);
			again.n_bad++;
			pthread_mutex_unlock(&D.lock);
		}
	}
	ib_put_mad(e);
}

static void AL_API again_on_sent(const ib_mad_svc_handle_t h, void *ctx, ib_mad_element_t *e)
{
	(void)h;
	(void)ctx;
	pthread_mutex_lock(&D.lock);
	if (e->p_mad_buf->method == IB_MAD_METHOD_GET) {
		again.st = e->status;
		cmdp_bump(&again.n_done);
	} else if (e->status != IB_WCS_SUCCESS) {
		again.n_bad++;
	}
	pthread_mutex_unlock(&D.lock);
	ib_put_mad(e);
}

static void AL_API again_on_resp(const ib_mad_svc_handle_t h, void *ctx, ib_mad_element_t *e)
{
	(void)h;
	(void)ctx;
	pthread_mutex_lock(&D.lock);
	if (e->p_mad_buf->method == IB_MAD_METHOD_GET_RESP)
		cmdp_bump(&again.n_resp);
	else
		again.n_bad++;
	pthread_mutex_unlock(&D.lock);
	ib_put_mad(e);
}

/*
 * A request whose first copies get no answer is sent again, with its TID,
 * and the answer to a later copy completes it. On a verbs port the kernel
 * keeps a request until its response or its timeout, and refuses another
 * with the same TID meanwhile: it kept each for 30 s, so the access layer's
 * resend was refused and the request ended with a local error at its first
 * timeout. The kernel now keeps a request as long as its sender waits.
 */
static void test_mad_request_resent(void)
{
	ib_path_rec_t path;
	ib_pd_handle_t pd = NULL;
	ib_qp_handle_t qp = NULL;
	ib_mad_svc_handle_t requester;
	ib_mad_element_t *e;
	uint16_t k;
	int answerable = 1;

	cmdp_up(&path);
	memset(&again, 0, sizeof(again));
	mad_open(&pd, &qp, &again.key, &again.grh);
	/* On RoCE v2 over IPv4 the kernel takes the GID it matches a response
	 * by from the IPv4 header's place in the receive buffer, and drops
	 * every response: the request goes from an IPv6 GID of the port. A
	 * port without one can only show that every copy went out. */
	if (D.roce && D.gid_v4) {
		answerable = 0;
		for (k = 0; k < D.port->num_gids; k++)
			if (!dp_gid_is_v4(&D.port->p_gid_table[k]) &&
			    D.port->p_gid_table[k].unicast.prefix) {
				again.grh.src_gid = again.grh.dest_gid = D.port->p_gid_table[k];
				answerable = 1;
				break;
			}
		if (!answerable)
			fprintf(stderr, "\n  no IPv6 GID: the copies are counted, no answer can come back\n");
	}
	again.responder = mad_svc(qp, IB_MAD_SVC_DEFAULT, IB_MAD_METHOD_GET, again_on_sent, again_on_get);
	requester = mad_svc(qp, IB_MAD_SVC_DEFAULT, 0, again_on_sent, again_on_resp);

	e = self_mad(again.key, IB_MAD_METHOD_GET, 0x0000000000000200ull, &again.grh);
	e->resp_expected = TRUE;
	e->timeout_ms = 200;
	e->retry_cnt = AGAIN_ANSWERED;
	CU_ASSERT_EQUAL_FATAL(ib_send_mad(requester, e, NULL), IB_SUCCESS);
	cmdp_wait(__FILE__, __LINE__, &again.n_done, 1, "again.n_done");
	if (answerable)
		cmdp_wait(__FILE__, __LINE__, &again.n_resp, 1, "again.n_resp");
	pthread_mutex_lock(&D.lock);
	if (again.st != (answerable ? IB_WCS_SUCCESS : IB_WCS_TIMEOUT_RETRY_ERR))
		fprintf(stderr, "\n  the request ended with %s after %d copies\n",
			ib_get_wc_status_str(again.st), again.n_get);
	if (answerable) {
		CU_ASSERT_EQUAL(again.st, IB_WCS_SUCCESS);
		/* One more copy if the answer took longer than the timeout. */
		CU_ASSERT(again.n_get == AGAIN_ANSWERED || again.n_get == AGAIN_ANSWERED + 1);
		CU_ASSERT_EQUAL(again.n_resp, 1);
	} else {
		CU_ASSERT_EQUAL(again.st, IB_WCS_TIMEOUT_RETRY_ERR);
		CU_ASSERT_EQUAL(again.n_get, AGAIN_ANSWERED + 1);
	}
	CU_ASSERT_EQUAL(again.n_bad, 0);
	pthread_mutex_unlock(&D.lock);
	mad_close(pd, qp);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_path),
	TEST_ENTRY(test_rc_connect),
	TEST_ENTRY(test_rc_by_hand),
	TEST_ENTRY(test_rej_no_listener),
	TEST_ENTRY(test_rej_from_req_callback),
	TEST_ENTRY(test_listen_cancel),
	TEST_ENTRY(test_rc_ten_connections),
	TEST_ENTRY(test_uc_connect),
	TEST_ENTRY(test_req_unknown_sgid),
	TEST_ENTRY(test_req_after_address_change),
	TEST_ENTRY(test_sync_calls),
	TEST_ENTRY(test_mad_twin_tids),
	TEST_ENTRY(test_mad_request_resent),
};

/*
 * Soft unless the environment names other providers; without a CA from
 * those, or with the kernel's CM owning the CM class, the program is
 * skipped (77, automake's SKIP).
 */
int main(void)
{
	const char *prov = getenv("IBAL_PROVIDERS");
	const char *phase = getenv("IBAL_RXE_PHASE");
	const char *grh = getenv("IBAL_DP_FORCE_GRH");
	ib_al_handle_t h_al = NULL;
	size_t n = 0;
	int rc;

	cmdp_kcm = phase && !strcmp(phase, "kcm");
	D.force_grh = grh && !strcmp(grh, "1");
	cl_event_construct(&D.pause);
	if (cl_event_init(&D.pause, FALSE) != CL_SUCCESS)
		return 2;
	if (!prov || !*prov || !strcmp(prov, "soft")) {
		if (cmdp_fabric_open()) {
			perror("test_al_cm_dp: mkdtemp");
			cl_event_destroy(&D.pause);
			return 2;
		}
	} else {
		if (ib_open_al(&h_al) == IB_SUCCESS) {
			ib_get_ca_guids(h_al, NULL, &n);
			ib_close_al(h_al);
		}
		if (!n) {
			printf("test_al_cm_dp: SKIP: no CA from IBAL_PROVIDERS=%s\n", prov);
			cl_event_destroy(&D.pause);
			return 77;
		}
	}
	rc = test_run_suite("al_cm_dp", tests, TEST_COUNT(tests));
	dp_close();
	cmdp_anchor_close();
	cmdp_fabric_close();
	cl_event_destroy(&D.pause);
	return rc;
}
