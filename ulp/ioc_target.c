/*
 * ibal ulp: the IOC example's target - an I/O controller with two service entries that echoes messages.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Opens the access layer and the first CA, creates an I/O controller
 * (ib_create_ioc) with two service entries, "ibal.echo" and "ibal.spare"
 * (ib_add_svc_entry), and registers it with the local device manager
 * (ib_reg_ioc): from then on the CA's port claims device management and
 * the access layer's DM agent answers for it. It listens (ib_cm_listen) on
 * the service ID of the first entry, accepts one RC connection, echoes
 * every message it receives until the initiator disconnects, then destroys
 * the controller and exits. Initiators find it through PnP
 * (ulp/ioc_initiator.c; docs/ioc.md).
 *
 *   ibal_ioc_target [--timeout S]   (default 60 s for the whole run)
 *   ibal_ioc_target --help
 *
 * The fabric directory is $IBAL_SOFT_FABRIC, else the soft provider's
 * default. Exit status 0 only if a connection was served to its end.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include <complib/cl_waitobj.h>

/** The example's IOC vendor ID (IEEE OUI left to the user: a made-up one). */
#define EX_VEND_ID 0x00DEADu
#define EX_ID_STRING "ibal IOC example"
#define SLOTS 16u
#define MSG 256u

enum { EV_REQ = 1, EV_RTU = 2, EV_DREQ = 4, EV_REJ = 8 };

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned ev;
	ib_cm_handle_t h_req;
} S = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, { 0 } };

static uint64_t deadline_ms;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void note(unsigned ev)
{
	pthread_mutex_lock(&S.lock);
	S.ev |= ev;
	pthread_cond_broadcast(&S.cond);
	pthread_mutex_unlock(&S.lock);
}

/* Waits for any of @p ev until the deadline; the events seen. */
static unsigned wait_ev(unsigned ev)
{
	struct timespec ts;
	unsigned got;

	pthread_mutex_lock(&S.lock);
	while (!(S.ev & ev) && now_ms() < deadline_ms) {
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
	return got & ev;
}

/* The events among @p ev seen so far. */
static unsigned peek_ev(unsigned ev)
{
	unsigned got;

	pthread_mutex_lock(&S.lock);
	got = S.ev & ev;
	pthread_mutex_unlock(&S.lock);
	return got;
}

static int bad(const char *what, ib_api_status_t st)
{
	fprintf(stderr, "ibal_ioc_target: %s: %s\n", what, ib_get_err_str(st));
	return 0;
}

static void AL_API on_req(ib_cm_req_rec_t *p)
{
	pthread_mutex_lock(&S.lock);
	if (S.ev & EV_REQ) {
		ib_cm_rej_t rej;

		pthread_mutex_unlock(&S.lock);
		memset(&rej, 0, sizeof(rej));
		rej.rej_status = IB_REJ_INSUF_QP; /* one initiator at a time */
		ib_cm_rej(p->h_cm_req, &rej);
		return;
	}
	S.h_req = p->h_cm_req;
	pthread_mutex_unlock(&S.lock);
	note(EV_REQ);
}

static void AL_API on_rtu(ib_cm_rtu_rec_t *p)
{
	(void)p;
	note(EV_RTU);
}

static void AL_API on_rej(ib_cm_rej_rec_t *p)
{
	(void)p;
	note(EV_REJ);
}

static void AL_API on_mra(ib_cm_mra_rec_t *p)
{
	(void)p;
}

static void AL_API on_lap(ib_cm_lap_rec_t *p)
{
	ib_cm_apr_t apr;

	memset(&apr, 0, sizeof(apr));
	apr.qp_type = IB_QPT_RELIABLE_CONN;
	apr.apr_status = IB_AP_REJECT;
	ib_cm_apr(p->h_cm_lap, &apr);
}

static void AL_API on_dreq(ib_cm_dreq_rec_t *p)
{
	ib_cm_drep_t drep;

	memset(&drep, 0, sizeof(drep));
	ib_cm_drep(p->h_cm_dreq, &drep);
	note(EV_DREQ);
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
	uint8_t *buf;                /* SLOTS receive slots, then one send slot */
	ib_net64_t port_guid;
} res_t;

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
	if (st != IB_SUCCESS && st != IB_INSUFFICIENT_MEMORY)
		return bad("ib_get_ca_guids", st);
	if (!n)
		return bad("no channel adapter", IB_NOT_FOUND);
	if ((st = ib_open_ca(h_al, guid, NULL, NULL, &r->h_ca)) != IB_SUCCESS)
		return bad("ib_open_ca", st);
	if (ib_query_ca(r->h_ca, NULL, &size) != IB_INSUFFICIENT_MEMORY || !(attr = malloc(size)))
		return bad("ib_query_ca", IB_ERROR);
	st = ib_query_ca(r->h_ca, attr, &size);
	if (st == IB_SUCCESS)
		r->port_guid = attr->p_port_attr[0].port_guid;
	free(attr);
	if (st != IB_SUCCESS)
		return bad("ib_query_ca", st);
	if ((st = ib_alloc_pd(r->h_ca, IB_PDT_NORMAL, NULL, &r->h_pd)) != IB_SUCCESS)
		return bad("ib_alloc_pd", st);
	if (cl_waitobj_create(FALSE, &r->wo) != CL_SUCCESS)
		return bad("cl_waitobj_create", IB_ERROR);
	memset(&cc, 0, sizeof(cc));
	cc.size = 2 * SLOTS + 2;
	cc.h_wait_obj = r->wo;
	if ((st = ib_create_cq(r->h_ca, &cc, NULL, NULL, &r->h_cq)) != IB_SUCCESS)
		return bad("ib_create_cq", st);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	qc.sq_depth = 2;
	qc.rq_depth = SLOTS;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = qc.h_rq_cq = r->h_cq;
	qc.sq_signaled = TRUE;
	if ((st = ib_create_qp(r->h_pd, &qc, NULL, NULL, &r->h_qp)) != IB_SUCCESS)
		return bad("ib_create_qp", st);
	r->buf = calloc(SLOTS + 1, MSG);
	if (!r->buf)
		return bad("out of memory", IB_INSUFFICIENT_MEMORY);
	memset(&mc, 0, sizeof(mc));
	mc.vaddr = r->buf;
	mc.length = (uint64_t)(SLOTS + 1) * MSG;
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	if ((st = ib_reg_mem(r->h_pd, &mc, &r->lkey, &rkey, &r->h_mr)) != IB_SUCCESS)
		return bad("ib_reg_mem", st);
	return 1;
}

/* The IOC: profile, two service entries, registered. */
static int make_ioc(const res_t *r, ib_net64_t svc_id, ib_ioc_handle_t *ph)
{
	ib_ioc_profile_t prof;
	ib_svc_entry_t se;
	ib_svc_handle_t h_svc;
	ib_api_status_t st;

	memset(&prof, 0, sizeof(prof));
	/* A GUID of its own: the port's, with the top byte changed. */
	prof.ioc_guid = r->port_guid ^ CL_HTON64(0x0100000000000000ULL);
	ib_ioc_profile_set_vend_id(&prof, EX_VEND_ID);
	prof.dev_id = CL_HTON32(1);
	prof.dev_ver = CL_HTON16(1);
	prof.io_class = CL_HTON16(0xFFFF);
	prof.io_subclass = CL_HTON16(0xFFFF);
	prof.protocol = CL_HTON16(0xFFFF);
	prof.send_msg_depth = CL_HTON16(SLOTS);
	prof.send_msg_size = CL_HTON32(MSG);
	prof.ctrl_ops_cap = CTRL_OPS_CAP_ST | CTRL_OPS_CAP_SF;
	snprintf(prof.id_string, sizeof(prof.id_string), "%s", EX_ID_STRING);
	if ((st = ib_create_ioc(r->h_ca, &prof, ph)) != IB_SUCCESS)
		return bad("ib_create_ioc", st);
	memset(&se, 0, sizeof(se));
	snprintf(se.name, sizeof(se.name), "ibal.echo");
	se.id = svc_id;
	if ((st = ib_add_svc_entry(*ph, &se, &h_svc)) != IB_SUCCESS)
		return bad("ib_add_svc_entry", st);
	snprintf(se.name, sizeof(se.name), "ibal.spare");
	se.id = svc_id ^ CL_HTON64(1);
	if ((st = ib_add_svc_entry(*ph, &se, &h_svc)) != IB_SUCCESS)
		return bad("ib_add_svc_entry", st);
	if ((st = ib_reg_ioc(*ph)) != IB_SUCCESS)
		return bad("ib_reg_ioc", st);
	printf("target: IOC 0x%016" PRIx64 " \"%s\" registered, services \"ibal.echo\" 0x%016" PRIx64
	       " and \"ibal.spare\"\n",
	       cl_ntoh64(prof.ioc_guid), EX_ID_STRING, cl_ntoh64(svc_id));
	fflush(stdout);
	return 1;
}

static ib_api_status_t post_recv(const res_t *r, uint32_t slot)
{
	ib_local_ds_t ds;
	ib_recv_wr_t wr;

	ds.vaddr = (uintptr_t)(r->buf + (size_t)slot * MSG);
	ds.length = MSG;
	ds.lkey = r->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = slot;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	return ib_post_recv(r->h_qp, &wr, NULL);
}

/* Accepts the REQ with the QP, every receive posted first. */
static int accept_req(const res_t *r)
{
	ib_cm_rep_t rep;
	ib_api_status_t st;
	uint32_t i;

	if (!(wait_ev(EV_REQ) & EV_REQ))
		return bad("no connection request came", IB_TIMEOUT);
	memset(&rep, 0, sizeof(rep));
	rep.h_qp = r->h_qp;
	rep.qp_type = IB_QPT_RELIABLE_CONN;
	rep.access_ctrl = IB_AC_LOCAL_WRITE;
	rep.failover_accepted = IB_FAILOVER_ACCEPT_UNSUPPORTED;
	rep.flow_ctrl = TRUE;
	rep.rnr_nak_timeout = 1;
	rep.rnr_retry_cnt = 7;
	rep.pfn_cm_rej_cb = on_rej;
	rep.pfn_cm_mra_cb = on_mra;
	rep.pfn_cm_rtu_cb = on_rtu;
	rep.pfn_cm_lap_cb = on_lap;
	rep.pfn_cm_dreq_cb = on_dreq;
	st = ib_cm_rep(S.h_req, &rep);
	if (st != IB_SUCCESS)
		return bad("ib_cm_rep", st);
	for (i = 0; i < SLOTS; i++)
		if ((st = post_recv(r, i)) != IB_SUCCESS)
			return bad("ib_post_recv", st);
	if (!(wait_ev(EV_RTU | EV_REJ) & EV_RTU))
		return bad("no RTU came", IB_TIMEOUT);
	printf("target: connected\n");
	fflush(stdout);
	return 1;
}

/* Echoes messages until the initiator disconnects; the count. */
static long echo(const res_t *r)
{
	ib_wc_t wc, *p_free, *p_done;
	ib_local_ds_t ds;
	ib_send_wr_t wr;
	long n = 0;
	boolean_t armed = FALSE;

	while (now_ms() < deadline_ms) {
		wc.p_next = NULL;
		p_free = &wc;
		if (ib_poll_cq(r->h_cq, &p_free, &p_done) != IB_SUCCESS) {
			if (peek_ev(EV_DREQ))
				return n;
			if (!armed) {
				ib_rearm_cq(r->h_cq, FALSE);
				armed = TRUE;
				continue;
			}
			cl_waitobj_wait_on(r->wo, 100000, FALSE);
			armed = FALSE;
			continue;
		}
		if (p_done->status != IB_WCS_SUCCESS) {
			/* Flushed: the QP left RTS, because the initiator's
			 * DREQ came (its callback may still be on its way). */
			if (p_done->status == IB_WCS_WR_FLUSHED_ERR && (wait_ev(EV_DREQ) & EV_DREQ))
				return n;
			fprintf(stderr, "ibal_ioc_target: completion status %s\n",
				ib_get_wc_status_str(p_done->status));
			return -1;
		}
		if (p_done->wc_type != IB_WC_RECV)
			continue;
		/* Echo the message, then give the slot back. */
		memcpy(r->buf + (size_t)SLOTS * MSG, r->buf + (size_t)p_done->wr_id * MSG,
		       p_done->length);
		ds.vaddr = (uintptr_t)(r->buf + (size_t)SLOTS * MSG);
		ds.length = p_done->length;
		ds.lkey = r->lkey;
		memset(&wr, 0, sizeof(wr));
		wr.wr_type = WR_SEND;
		wr.num_ds = 1;
		wr.ds_array = &ds;
		wr.send_opt = IB_SEND_OPT_SIGNALED;
		if (ib_post_send(r->h_qp, &wr, NULL) != IB_SUCCESS ||
		    post_recv(r, (uint32_t)p_done->wr_id) != IB_SUCCESS)
			return -1;
		n++;
	}
	return -1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ibal_ioc_target [--timeout SECONDS]\n"
		"The IOC example's target: creates an I/O controller \"" EX_ID_STRING "\" with two\n"
		"service entries, \"ibal.echo\" and \"ibal.spare\", registers it with the device\n"
		"manager, accepts one RC connection to the first and echoes every message until\n"
		"the initiator (ibal_ioc_initiator) disconnects, then destroys the controller.\n"
		"  --timeout SECONDS   limit of the whole run (default 60)\n"
		"  -h, --help          this text\n"
		"The soft fabric directory is $IBAL_SOFT_FABRIC or the provider's default.\n"
		"Exit status 0 only if a connection was served to its end.\n");
}

int main(int argc, char **argv)
{
	ib_al_handle_t h_al = NULL;
	ib_cm_listen_t l;
	ib_listen_handle_t h_listen;
	ib_ioc_handle_t h_ioc;
	res_t r;
	ib_net64_t svc_id;
	unsigned timeout_s = 60;
	long n;
	int ok = 0;
	ib_api_status_t st;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--timeout"))
		timeout_s = (unsigned)strtoul(argv[2], NULL, 10);
	else if (argc != 1) {
		const char *what = "unknown option", *word = argv[1];

		if (!strcmp(argv[1], "--timeout") && argc == 2)
			what = "a value is missing after";
		else if (!strcmp(argv[1], "--timeout"))
			what = "unexpected argument", word = argv[3];
		else if (argv[1][0] != '-')
			what = "unexpected argument";
		fprintf(stderr, "ibal_ioc_target: %s '%s' (try --help)\n", what, word);
		return 2;
	}
	deadline_ms = now_ms() + timeout_s * 1000ull;
	memset(&r, 0, sizeof(r));
	if ((st = ib_open_al(&h_al)) != IB_SUCCESS)
		return bad("ib_open_al", st), 1;
	svc_id = cl_hton64(0x0A1B000000000000ULL | (uint64_t)getpid());
	if (!make_res(h_al, &r) || !make_ioc(&r, svc_id, &h_ioc))
		goto out;
	memset(&l, 0, sizeof(l));
	l.svc_id = svc_id;
	l.ca_guid = IB_ALL_CAS;
	l.port_guid = r.port_guid;
	l.lid = IB_ALL_LIDS;
	l.pkey = IB_ALL_PKEYS;
	l.qp_type = IB_QPT_RELIABLE_CONN;
	l.pfn_cm_req_cb = on_req;
	if ((st = ib_cm_listen(h_al, &l, NULL, &h_listen)) != IB_SUCCESS) {
		bad("ib_cm_listen", st);
		goto out;
	}
	printf("target: listening on service 0x%016" PRIx64 "\n", cl_ntoh64(svc_id));
	fflush(stdout);
	if (!accept_req(&r))
		goto out;
	n = echo(&r);
	if (n < 0) {
		bad("echoing", IB_ERROR);
		goto out;
	}
	printf("target: echoed %ld messages, the initiator disconnected\n", n);
	st = ib_destroy_ioc(h_ioc);
	if (st != IB_SUCCESS)
		bad("ib_destroy_ioc", st);
	else
		printf("target: IOC destroyed\n");
	ok = st == IB_SUCCESS && n > 0;
out:
	ib_close_al(h_al);
	if (r.wo)
		cl_waitobj_destroy(r.wo);
	free(r.buf);
	printf("target %s\n", ok ? "OK" : "FAILED");
	return ok ? 0 : 1;
}
