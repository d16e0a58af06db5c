/*
 * ibal ulp: the IOC example's initiator - finds the example IOC through PnP and talks to its first service.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Registers for PnP events of the IB_PNP_IOC class and waits for an
 * IB_PNP_IOC_ADD of the controller that ulp/ioc_target.c exports (its
 * IDString is "ibal IOC example"), and for an IB_PNP_IOC_PATH_ADD giving a
 * path to it from this process's port. It prints the profile and the
 * service entries, connects an RC QP to the first service through the CM
 * (ib_cm_req with the path of the path record and the entry's service
 * ID), sends a number of messages and checks that each comes back
 * unchanged, disconnects (ib_cm_dreq), and then waits for the
 * IB_PNP_IOC_REMOVE that the target's exit causes.
 *
 *   ibal_ioc_initiator [--timeout S] [--messages N]   (defaults 60 s, 100)
 *   ibal_ioc_initiator --help
 *
 * The fabric directory is $IBAL_SOFT_FABRIC, else the soft provider's
 * default; IBAL_IOC_SWEEP_MS sets how often the subnet is swept for IOCs.
 * Exit status 0 only if every step passed.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <iba/ib_al.h>
#include <complib/cl_waitobj.h>

#define EX_ID_STRING "ibal IOC example"
#define MSG 256u

enum { EV_IOC = 1, EV_PATH = 2, EV_REP = 4, EV_REJ = 8, EV_DREP = 16, EV_GONE = 32, EV_FAIL = 64 };

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned ev;
	ib_net64_t ioc_guid;
	ib_ioc_info_t info;
	unsigned n_svc;
	ib_svc_entry_t svc[8];
	ib_path_rec_t path;
} S = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, { 0 }, 0, { { { 0 }, 0 } }, { 0 } };

static uint64_t deadline_ms;
static ib_net64_t my_port_guid;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void note_locked(unsigned ev)
{
	S.ev |= ev;
	pthread_cond_broadcast(&S.cond);
}

static void note(unsigned ev)
{
	pthread_mutex_lock(&S.lock);
	note_locked(ev);
	pthread_mutex_unlock(&S.lock);
}

/* Waits until every event of @p all, or any of @p any, was seen, or the deadline. */
static unsigned wait_ev(unsigned all, unsigned any)
{
	struct timespec ts;
	unsigned got;

	pthread_mutex_lock(&S.lock);
	while ((S.ev & all) != all && !(S.ev & any) && now_ms() < deadline_ms) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&S.cond, &S.lock, &ts);
	}
	got = S.ev;
	pthread_mutex_unlock(&S.lock);
	return got;
}

static int bad(const char *what, ib_api_status_t st)
{
	fprintf(stderr, "ibal_ioc_initiator: %s: %s\n", what, ib_get_err_str(st));
	return 0;
}

/* PnP: the example IOC, a path to it from our port, its removal. */
static ib_api_status_t AL_API on_pnp(ib_pnp_rec_t *p)
{
	pthread_mutex_lock(&S.lock);
	switch (p->pnp_event) {
	case IB_PNP_IOC_ADD: {
		const ib_pnp_ioc_rec_t *r = (const ib_pnp_ioc_rec_t *)p;
		unsigned n = r->info.profile.num_svc_entries;

		if (S.ioc_guid || strncmp(r->info.profile.id_string, EX_ID_STRING, CTRL_ID_STRING_LEN)) {
			pthread_mutex_unlock(&S.lock);
			return IB_NOT_FOUND; /* not ours: no more events of it */
		}
		S.ioc_guid = p->guid;
		S.info = r->info;
		S.n_svc = n < 8 ? n : 8;
		memcpy(S.svc, r->svc_entry_array, S.n_svc * sizeof(ib_svc_entry_t));
		note_locked(EV_IOC);
		break;
	}
	case IB_PNP_IOC_PATH_ADD: {
		const ib_pnp_ioc_path_rec_t *r = (const ib_pnp_ioc_path_rec_t *)p;

		if (p->guid == S.ioc_guid && r->port_guid == my_port_guid && !(S.ev & EV_PATH)) {
			S.path = r->path;
			note_locked(EV_PATH);
		}
		break;
	}
	case IB_PNP_IOC_REMOVE:
		if (p->guid == S.ioc_guid)
			note_locked(EV_GONE);
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&S.lock);
	return IB_SUCCESS;
}

static void AL_API on_rep(ib_cm_rep_rec_t *p);

static void AL_API on_rej(ib_cm_rej_rec_t *p)
{
	fprintf(stderr, "ibal_ioc_initiator: connection rejected (reason %u)\n",
		(unsigned)cl_ntoh16(p->rej_status));
	note(EV_REJ);
}

static void AL_API on_mra(ib_cm_mra_rec_t *p)
{
	(void)p;
}

static void AL_API on_dreq(ib_cm_dreq_rec_t *p)
{
	ib_cm_drep_t drep;

	memset(&drep, 0, sizeof(drep));
	ib_cm_drep(p->h_cm_dreq, &drep);
	note(EV_DREP);
}

static void AL_API on_drep(ib_cm_drep_rec_t *p)
{
	(void)p;
	note(EV_DREP);
}

/* The resources of the connection. */
typedef struct res {
	ib_ca_handle_t h_ca;
	ib_pd_handle_t h_pd;
	ib_cq_handle_t h_cq;
	ib_qp_handle_t h_qp;
	ib_mr_handle_t h_mr;
	cl_waitobj_handle_t wo;
	uint32_t lkey;
	uint8_t *buf;                /* receive slot, then send slot */
} res_t;

static res_t R;

static void AL_API on_rep(ib_cm_rep_rec_t *p)
{
	ib_cm_rtu_t rtu;

	memset(&rtu, 0, sizeof(rtu));
	rtu.pfn_cm_dreq_cb = on_dreq;
	note(ib_cm_rtu(p->h_cm_rep, &rtu) == IB_SUCCESS ? EV_REP : EV_FAIL);
}

static int make_res(ib_al_handle_t h_al, res_t *r)
{
	ib_net64_t guid;
	size_t n = 1;
	uint32_t size = 0;
	ib_ca_attr_t *attr;
	ib_cq_create_t cc;
	ib_qp_create_t qc;
	ib_mr_create_t mc;
	net32_t rkey;
	ib_api_status_t st;

	st = ib_get_ca_guids(h_al, &guid, &n);
	if ((st != IB_SUCCESS && st != IB_INSUFFICIENT_MEMORY) || !n)
		return bad("no channel adapter", st);
	if ((st = ib_open_ca(h_al, guid, NULL, NULL, &r->h_ca)) != IB_SUCCESS)
		return bad("ib_open_ca", st);
	if (ib_query_ca(r->h_ca, NULL, &size) != IB_INSUFFICIENT_MEMORY || !(attr = malloc(size)))
		return bad("ib_query_ca", IB_ERROR);
	st = ib_query_ca(r->h_ca, attr, &size);
	if (st == IB_SUCCESS)
		my_port_guid = attr->p_port_attr[0].port_guid;
	free(attr);
	if (st != IB_SUCCESS)
		return bad("ib_query_ca", st);
	if ((st = ib_alloc_pd(r->h_ca, IB_PDT_NORMAL, NULL, &r->h_pd)) != IB_SUCCESS)
		return bad("ib_alloc_pd", st);
	if (cl_waitobj_create(FALSE, &r->wo) != CL_SUCCESS)
		return bad("cl_waitobj_create", IB_ERROR);
	memset(&cc, 0, sizeof(cc));
	cc.size = 8;
	cc.h_wait_obj = r->wo;
	if ((st = ib_create_cq(r->h_ca, &cc, NULL, NULL, &r->h_cq)) != IB_SUCCESS)
		return bad("ib_create_cq", st);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	qc.sq_depth = 2;
	qc.rq_depth = 2;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = qc.h_rq_cq = r->h_cq;
	qc.sq_signaled = TRUE;
	if ((st = ib_create_qp(r->h_pd, &qc, NULL, NULL, &r->h_qp)) != IB_SUCCESS)
		return bad("ib_create_qp", st);
	r->buf = calloc(2, MSG);
	if (!r->buf)
		return bad("out of memory", IB_INSUFFICIENT_MEMORY);
	memset(&mc, 0, sizeof(mc));
	mc.vaddr = r->buf;
	mc.length = 2 * MSG;
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	if ((st = ib_reg_mem(r->h_pd, &mc, &r->lkey, &rkey, &r->h_mr)) != IB_SUCCESS)
		return bad("ib_reg_mem", st);
	return 1;
}

static ib_api_status_t post_recv(const res_t *r)
{
	ib_local_ds_t ds;
	ib_recv_wr_t wr;

	ds.vaddr = (uintptr_t)r->buf;
	ds.length = MSG;
	ds.lkey = r->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.num_ds = 1;
	wr.ds_array = &ds;
	return ib_post_recv(r->h_qp, &wr, NULL);
}

/*
 * Successful completions polled while another type was awaited, by type
 * (0: send, 1: receive), and the length of such a receive: the echo of a
 * message may complete before the message's own send does (the send
 * completes on the target's ACK, which travels independently of the echo;
 * one ACK may also cover several messages).
 */
static unsigned early[2];
static uint32_t early_len;

/* The next completion of @p type, within the deadline; its status. */
static ib_wc_status_t next_wc(const res_t *r, ib_wc_type_t type, uint32_t *p_len)
{
	ib_wc_t wc, *p_free, *p_done;
	boolean_t armed = FALSE;
	int want = type == IB_WC_RECV;

	if (early[want]) {
		early[want]--;
		*p_len = early_len;
		return IB_WCS_SUCCESS;
	}
	while (now_ms() < deadline_ms) {
		wc.p_next = NULL;
		p_free = &wc;
		if (ib_poll_cq(r->h_cq, &p_free, &p_done) == IB_SUCCESS) {
			if (p_done->status != IB_WCS_SUCCESS)
				return p_done->status;
			if (p_done->wc_type != type) {
				if (p_done->wc_type == IB_WC_SEND || p_done->wc_type == IB_WC_RECV) {
					early[p_done->wc_type == IB_WC_RECV]++;
					if (p_done->wc_type == IB_WC_RECV)
						early_len = p_done->length;
				}
				continue;
			}
			*p_len = p_done->length;
			return IB_WCS_SUCCESS;
		}
		if (!armed) {
			ib_rearm_cq(r->h_cq, FALSE);
			armed = TRUE;
			continue;
		}
		cl_waitobj_wait_on(r->wo, 100000, FALSE);
		armed = FALSE;
	}
	return IB_WCS_TIMEOUT_RETRY_ERR;
}

/* Sends @p n messages and checks their echoes. */
static int exchange(const res_t *r, unsigned n)
{
	ib_local_ds_t ds;
	ib_send_wr_t wr;
	ib_api_status_t st;
	ib_wc_status_t ws;
	uint32_t len;
	unsigned i;

	for (i = 0; i < n; i++) {
		int k = snprintf((char *)r->buf + MSG, MSG, "message %u of %u", i + 1, n) + 1;

		if ((st = post_recv(r)) != IB_SUCCESS)
			return bad("ib_post_recv", st);
		ds.vaddr = (uintptr_t)(r->buf + MSG);
		ds.length = (uint32_t)k;
		ds.lkey = r->lkey;
		memset(&wr, 0, sizeof(wr));
		wr.wr_type = WR_SEND;
		wr.num_ds = 1;
		wr.ds_array = &ds;
		wr.send_opt = IB_SEND_OPT_SIGNALED;
		if ((st = ib_post_send(r->h_qp, &wr, NULL)) != IB_SUCCESS)
			return bad("ib_post_send", st);
		if ((ws = next_wc(r, IB_WC_SEND, &len)) != IB_WCS_SUCCESS ||
		    (ws = next_wc(r, IB_WC_RECV, &len)) != IB_WCS_SUCCESS) {
			fprintf(stderr, "ibal_ioc_initiator: message %u: %s\n", i + 1,
				ib_get_wc_status_str(ws));
			return 0;
		}
		if (len != (uint32_t)k || memcmp(r->buf, r->buf + MSG, (size_t)k)) {
			fprintf(stderr, "ibal_ioc_initiator: message %u came back changed\n", i + 1);
			return 0;
		}
	}
	return 1;
}

static int connect_svc(const res_t *r)
{
	ib_cm_req_t req;
	ib_path_rec_t path;
	ib_api_status_t st;

	pthread_mutex_lock(&S.lock);
	path = S.path;
	pthread_mutex_unlock(&S.lock);
	memset(&req, 0, sizeof(req));
	req.svc_id = S.svc[0].id;
	req.max_cm_retries = 3;
	req.p_primary_path = &path;
	req.pfn_cm_rep_cb = on_rep;
	req.qp_type = IB_QPT_RELIABLE_CONN;
	req.h_qp = r->h_qp;
	req.remote_resp_timeout = 16;
	req.local_resp_timeout = 16;
	req.flow_ctrl = TRUE;
	req.rnr_nak_timeout = 1;
	req.rnr_retry_cnt = 7;
	req.retry_cnt = 7;
	req.pfn_cm_mra_cb = on_mra;
	req.pfn_cm_rej_cb = on_rej;
	if ((st = ib_cm_req(&req)) != IB_SUCCESS)
		return bad("ib_cm_req", st);
	if (!(wait_ev(EV_REP, EV_REJ | EV_FAIL) & EV_REP))
		return bad("no connection", IB_TIMEOUT);
	printf("initiator: connected to service \"%.*s\" 0x%016" PRIx64 " (LID 0x%04x)\n",
	       MAX_SVC_ENTRY_NAME_LEN, S.svc[0].name, cl_ntoh64(S.svc[0].id),
	       cl_ntoh16(path.dlid));
	return 1;
}

static int disconnect(const res_t *r)
{
	ib_cm_dreq_t dreq;
	ib_api_status_t st;

	memset(&dreq, 0, sizeof(dreq));
	dreq.qp_type = IB_QPT_RELIABLE_CONN;
	dreq.h_qp = r->h_qp;
	dreq.pfn_cm_drep_cb = on_drep;
	if ((st = ib_cm_dreq(&dreq)) != IB_SUCCESS)
		return bad("ib_cm_dreq", st);
	if (!(wait_ev(EV_DREP, 0) & EV_DREP))
		return bad("no DREP", IB_TIMEOUT);
	printf("initiator: disconnected\n");
	return 1;
}

static void print_ioc(void)
{
	unsigned i;

	printf("initiator: IOC 0x%016" PRIx64 " \"%.*s\" in slot %u of unit 0x%016" PRIx64
	       ", vendor 0x%06x, %u service entries\n",
	       cl_ntoh64(S.ioc_guid), CTRL_ID_STRING_LEN, S.info.profile.id_string,
	       S.info.iou_slot, cl_ntoh64(S.info.iou_guid),
	       ib_ioc_profile_get_vend_id(&S.info.profile), S.info.profile.num_svc_entries);
	for (i = 0; i < S.n_svc; i++)
		printf("initiator:   service %u: \"%.*s\" 0x%016" PRIx64 "\n", i,
		       MAX_SVC_ENTRY_NAME_LEN, S.svc[i].name, cl_ntoh64(S.svc[i].id));
	printf("initiator: path LID 0x%04x -> 0x%04x\n", cl_ntoh16(S.path.slid),
	       cl_ntoh16(S.path.dlid));
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ibal_ioc_initiator [--timeout SECONDS] [--messages N]\n"
		"The IOC example's initiator: waits for the PnP events of the I/O controller\n"
		"\"" EX_ID_STRING "\" (ibal_ioc_target) and of a path to it, prints its profile and\n"
		"service entries, connects to the first service through the CM, checks that N\n"
		"messages come back unchanged, disconnects, and waits for the IOC's removal.\n"
		"  --timeout SECONDS   limit of the whole run (default 60)\n"
		"  --messages N        messages to send and check, at least 1 (default 100)\n"
		"  -h, --help          this text\n"
		"The soft fabric directory is $IBAL_SOFT_FABRIC or the provider's default;\n"
		"IBAL_IOC_SWEEP_MS sets how often the subnet is swept for IOCs.\n"
		"Exit status 0 only if every step passed.\n");
}

int main(int argc, char **argv)
{
	ib_al_handle_t h_al = NULL;
	ib_pnp_req_t preq;
	ib_pnp_handle_t h_pnp;
	unsigned timeout_s = 60, n_msg = 100;
	int i, ok = 0;
	ib_api_status_t st;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--timeout"))
			timeout_s = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--messages"))
			n_msg = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else
			break;
	}
	if (i != argc) {
		fprintf(stderr, "ibal_ioc_initiator: %s '%s' (try --help)\n",
			!strcmp(argv[i], "--timeout") || !strcmp(argv[i], "--messages")
				? "a value is missing after"
				: "unknown option", argv[i]);
		return 2;
	}
	if (!n_msg) {
		fprintf(stderr, "ibal_ioc_initiator: --messages needs at least 1 (try --help)\n");
		return 2;
	}
	deadline_ms = now_ms() + timeout_s * 1000ull;
	if ((st = ib_open_al(&h_al)) != IB_SUCCESS)
		return bad("ib_open_al", st), 1;
	if (!make_res(h_al, &R))
		goto out;
	memset(&preq, 0, sizeof(preq));
	preq.pnp_class = IB_PNP_IOC;
	preq.pfn_pnp_cb = on_pnp;
	if ((st = ib_reg_pnp(h_al, &preq, &h_pnp)) != IB_SUCCESS) {
		bad("ib_reg_pnp", st);
		goto out;
	}
	printf("initiator: waiting for the example IOC\n");
	fflush(stdout);
	if ((wait_ev(EV_IOC | EV_PATH, 0) & (EV_IOC | EV_PATH)) != (EV_IOC | EV_PATH)) {
		bad("the example IOC was not found", IB_TIMEOUT);
		goto out;
	}
	print_ioc();
	if (S.n_svc < 2) {
		bad("the IOC has fewer than two service entries", IB_ERROR);
		goto out;
	}
	if (!connect_svc(&R) || !exchange(&R, n_msg))
		goto out;
	printf("initiator: %u messages echoed unchanged\n", n_msg);
	if (!disconnect(&R))
		goto out;
	fflush(stdout);
	if (!(wait_ev(EV_GONE, 0) & EV_GONE)) {
		bad("no IOC removal event", IB_TIMEOUT);
		goto out;
	}
	printf("initiator: IOC removal reported\n");
	ok = 1;
out:
	ib_close_al(h_al);
	if (R.wo)
		cl_waitobj_destroy(R.wo);
	free(R.buf);
	printf("initiator %s\n", ok ? "OK" : "FAILED");
	return ok ? 0 : 1;
}
