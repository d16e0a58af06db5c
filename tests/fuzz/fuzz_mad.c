/*
 * ibal fuzzing: the access layer's MAD dispatcher (al_mad_rx), RMPP reassembly, and what it hands MADs to.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * One soft CA in a fabric directory of the harness's own, opened once. On
 * its port's QP1 are the MAD services a process meets: an SA-class and a
 * vendor-class (RMPP, 0x30) service of the harness taking every method
 * unsolicited, the CM's agent (a listen started it) and the DM agent of a
 * registered I/O controller with two service entries. Each input is up to
 * eight MADs (256-byte pieces, the last may be shorter) handed in order to
 * the port's dispatcher as received from LID 2, under the dispatcher's lock
 * as its thread does; then every RMPP transfer is forgotten, so that the
 * next input starts from none, and the dispatcher's thread is poked to send
 * the answers queued (at most AL_MAD_MAX_REPLIES wait). Covers the dispatch (base version, RMPP
 * control, responses matched to no send, services by class, version and
 * method, error answers), the RMPP receiver (segments, windows, ACK, STOP,
 * ABORT, lengths), the CM's receive path and the DM agent's attributes.
 * What the services get they give back (ib_put_mad); answers go to LID 2,
 * which no port has. Seeds: requests of each of those kinds and a
 * three-segment RMPP transfer.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include "al_verbs.h"
#include "al_mad.h"
#include "al_mad_int.h"
#include "al_cm_wire.h"
#include "../common/fab_dir.h"
#include "fuzz.h"

#define MAX_MADS 8
#define VENDOR_CLASS 0x30

static char fab_dir[64];
static ib_al_handle_t h_al;
static al_mad_disp_t *g_disp;

static void AL_API on_send(const ib_mad_svc_handle_t h_svc, void *ctx, ib_mad_element_t *p_mad)
{
	(void)h_svc;
	(void)ctx;
	ib_put_mad(p_mad);
}

static void AL_API on_recv(const ib_mad_svc_handle_t h_svc, void *ctx, ib_mad_element_t *p_mad)
{
	(void)h_svc;
	(void)ctx;
	ib_put_mad(p_mad);
}

static void AL_API on_listen_req(ib_cm_req_rec_t *p)
{
	(void)p;
}

static int reg_svc(ib_qp_handle_t qp, uint8_t mgmt_class, uint8_t version)
{
	ib_mad_svc_handle_t h;
	ib_mad_svc_t s;
	unsigned m;

	memset(&s, 0, sizeof(s));
	s.pfn_mad_send_cb = on_send;
	s.pfn_mad_recv_cb = on_recv;
	s.support_unsol = TRUE;
	s.mgmt_class = mgmt_class;
	s.mgmt_version = version;
	for (m = 1; m < IB_MAX_METHODS && m < 0x80; m++)
		s.method_array[m] = TRUE;
	s.svc_type = IB_MAD_SVC_DEFAULT;
	return ib_reg_mad_svc(qp, &s, &h) == IB_SUCCESS ? 0 : -1;
}

static int reg_ioc(ib_ca_handle_t ca)
{
	ib_ioc_handle_t h;
	ib_ioc_profile_t prof;
	ib_svc_entry_t e;
	ib_svc_handle_t hs;
	int i;

	memset(&prof, 0, sizeof(prof));
	prof.ioc_guid = CL_HTON64(0x00C0FFEE00000001ull);
	ib_ioc_profile_set_vend_id(&prof, 0xABCDEF);
	prof.io_class = CL_HTON16(0x0100);
	strcpy((char *)prof.id_string, "fuzz-ioc");
	if (ib_create_ioc(ca, &prof, &h) != IB_SUCCESS)
		return -1;
	for (i = 0; i < 2; i++) {
		memset(&e, 0, sizeof(e));
		e.name[0] = (char)('a' + i);
		e.id = cl_hton64(0x1000 + (uint64_t)i);
		if (ib_add_svc_entry(h, &e, &hs) != IB_SUCCESS)
			return -1;
	}
	return ib_reg_ioc(h) == IB_SUCCESS ? 0 : -1;
}

static void cleanup(void)
{
	if (h_al)
		ib_close_al(h_al);
	h_al = NULL;
	test_rm_tree(fab_dir);
}

/* Opens the CA, the services and the CM; finds the port's QP1 dispatcher. */
static int setup(void)
{
	ib_net64_t ca_guid;
	size_t n = 1;
	ib_ca_handle_t ca;
	ib_pd_handle_t pd;
	ib_qp_handle_t qp;
	ib_pool_key_t key;
	ib_qp_create_t qc;
	ib_ca_attr_t *a;
	uint32_t size = 0;
	ib_cm_listen_t l;
	ib_listen_handle_t hl;
	al_qp_t *p_qp;

	strcpy(fab_dir, "/tmp/ibal-fuzz-mad-XXXXXX");
	if (!mkdtemp(fab_dir))
		return -1;
	atexit(cleanup);
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "1", 1);
	setenv("IBAL_PROVIDERS", "soft", 1);
	if (ib_open_al(&h_al) != IB_SUCCESS || ib_get_ca_guids(h_al, &ca_guid, &n) != IB_SUCCESS ||
	    ib_open_ca(h_al, ca_guid, NULL, NULL, &ca) != IB_SUCCESS)
		return -1;
	ib_query_ca(ca, NULL, &size);
	a = (ib_ca_attr_t *)malloc(size);
	if (!a || ib_query_ca(ca, a, &size) != IB_SUCCESS)
		return -1;
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_QP1_ALIAS;
	qc.sq_depth = qc.rq_depth = 64;
	qc.sq_sge = qc.rq_sge = 1;
	qc.sq_signaled = TRUE;
	if (ib_alloc_pd(ca, IB_PDT_ALIAS, NULL, &pd) != IB_SUCCESS ||
	    ib_get_spl_qp(pd, a->p_port_attr[0].port_guid, &qc, NULL, NULL, &key, &qp) != IB_SUCCESS)
		return -1;
	free(a);
	if (reg_svc(qp, IB_MCLASS_SUBN_ADM, 2) || reg_svc(qp, VENDOR_CLASS, 1) || reg_ioc(ca))
		return -1;
	memset(&l, 0, sizeof(l));
	l.svc_id = CL_HTON64(0x1000);
	l.ca_guid = IB_ALL_CAS;
	l.port_guid = IB_ALL_PORTS;
	l.lid = IB_ALL_LIDS;
	l.qp_type = IB_QPT_RELIABLE_CONN;
	l.pfn_cm_req_cb = on_listen_req;
	if (ib_cm_listen(h_al, &l, NULL, &hl) != IB_SUCCESS)
		return -1;
	p_qp = (al_qp_t *)AL_ENTER(qp, AL_HDL_QP);
	if (!p_qp)
		return -1;
	g_disp = ((al_mad_qp_t *)p_qp)->p_disp;
	AL_EXIT(qp);
	return g_disp ? 0 : -1;
}

/* ---- Seeds ---- */

static uint8_t seeds[MAX_MADS][MAD_BLOCK_SIZE];

static ib_mad_t *seed_mad(unsigned i, uint8_t mgmt_class, uint8_t version, uint8_t method,
			  uint16_t attr, uint32_t attr_mod)
{
	ib_mad_t *m = (ib_mad_t *)seeds[i];

	memset(seeds[i], 0, MAD_BLOCK_SIZE);
	ib_mad_init_new(m, mgmt_class, version, method, cl_hton64(0x4242 + i), cl_hton16(attr),
			cl_hton32(attr_mod));
	return m;
}

static void seed_rmpp(unsigned i, uint8_t type, uint8_t flags, uint32_t seg, uint32_t len)
{
	ib_rmpp_mad_t *r = (ib_rmpp_mad_t *)seeds[i];

	r->rmpp_version = 1;
	r->rmpp_type = type;
	r->rmpp_flags = (uint8_t)(flags | IB_RMPP_FLAG_ACTIVE);
	r->seg_num = cl_hton32(seg);
	r->paylen_newwin = cl_hton32(len);
}

static void write_seeds(void)
{
	union {
		ib_mad_t hdr;
		uint8_t bytes[MAD_BLOCK_SIZE];
	} cm;
	al_cm_msg_t m;
	unsigned i;

	seed_mad(0, IB_MCLASS_SUBN_ADM, 2, IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_SERVICE_RECORD, 0);
	fuzz_seed("sa-gettable", seeds[0], MAD_BLOCK_SIZE);
	/* A Set of 3 segments: 200 + 200 + 100 data bytes past the SA header. */
	for (i = 0; i < 3; i++) {
		seed_mad(i, IB_MCLASS_SUBN_ADM, 2, IB_MAD_METHOD_SET, IB_MAD_ATTR_SERVICE_RECORD, 0);
		((ib_mad_t *)seeds[i])->trans_id = CL_HTON64(0x7777);
		seed_rmpp(i, IB_RMPP_TYPE_DATA,
			  (uint8_t)((i == 0 ? IB_RMPP_FLAG_FIRST : 0) | (i == 2 ? IB_RMPP_FLAG_LAST : 0)),
			  i + 1, i == 0 ? 520 : i == 2 ? 120 : 0);
	}
	fuzz_seed("sa-rmpp-set", seeds, 3 * MAD_BLOCK_SIZE);
	seed_mad(0, IB_MCLASS_SUBN_ADM, 2, IB_MAD_METHOD_GET_RESP, IB_MAD_ATTR_SERVICE_RECORD, 0);
	seed_rmpp(0, IB_RMPP_TYPE_ACK, 0, 1, 1);
	fuzz_seed("sa-rmpp-ack", seeds[0], MAD_BLOCK_SIZE);
	seed_mad(0, IB_MCLASS_SUBN_ADM, 2, IB_MAD_METHOD_GET_RESP, IB_MAD_ATTR_PATH_RECORD, 0);
	fuzz_seed("sa-response", seeds[0], MAD_BLOCK_SIZE);
	seed_mad(0, VENDOR_CLASS, 1, IB_MAD_METHOD_GET, 0x10, 0);
	fuzz_seed("vendor-get", seeds[0], MAD_BLOCK_SIZE);
	seed_mad(0, 0x09, 1, IB_MAD_METHOD_GET, 0x10, 0);
	fuzz_seed("unknown-class", seeds[0], MAD_BLOCK_SIZE);
	seed_mad(0, IB_MCLASS_DEV_MGMT, 1, IB_MAD_METHOD_GET, cl_ntoh16(IB_MAD_ATTR_CLASS_PORT_INFO), 0);
	fuzz_seed("dm-classportinfo", seeds[0], MAD_BLOCK_SIZE);
	seed_mad(0, IB_MCLASS_DEV_MGMT, 1, IB_MAD_METHOD_GET, cl_ntoh16(IB_MAD_ATTR_IO_UNIT_INFO), 0);
	fuzz_seed("dm-iounitinfo", seeds[0], MAD_BLOCK_SIZE);
	seed_mad(0, IB_MCLASS_DEV_MGMT, 1, IB_MAD_METHOD_GET,
		 cl_ntoh16(IB_MAD_ATTR_IO_CONTROLLER_PROFILE), 1);
	fuzz_seed("dm-iocprofile", seeds[0], MAD_BLOCK_SIZE);
	seed_mad(0, IB_MCLASS_DEV_MGMT, 1, IB_MAD_METHOD_GET, cl_ntoh16(IB_MAD_ATTR_SERVICE_ENTRIES),
		 cl_ntoh32(ib_dm_set_slot_lo_hi(1, 0, 1)));
	fuzz_seed("dm-svcentries", seeds[0], MAD_BLOCK_SIZE);
	memset(&m, 0, sizeof(m));
	m.req.local_comm_id = 0x11223344u;
	m.req.service_id = 0x1000;
	m.req.local_qpn = 0x12;
	m.req.starting_psn = 0x100;
	m.req.primary.local_lid = 2;
	m.req.primary.remote_lid = 1;
	al_cm_pack(AL_CM_MSG_REQ, &m, CL_HTON64(0x99), &cm.hdr);
	fuzz_seed("cm-req", cm.bytes, MAD_BLOCK_SIZE);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (setup()) {
		fprintf(stderr, "fuzz_mad: no soft CA with the MAD services\n");
		exit(1);
	}
	write_seeds();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[MAD_BLOCK_GRH_SIZE];
	ib_wc_t wc;
	size_t off, n;
	unsigned i;

	pthread_mutex_lock(&g_disp->lock);
	for (i = 0, off = 0; i < MAX_MADS && off < size; i++, off += n) {
		n = size - off < MAD_BLOCK_SIZE ? size - off : MAD_BLOCK_SIZE;
		memset(buf, 0, sizeof(buf));
		memcpy(buf + sizeof(ib_grh_t), data + off, n);
		memset(&wc, 0, sizeof(wc));
		wc.wc_type = IB_WC_RECV;
		wc.status = IB_WCS_SUCCESS;
		wc.length = (uint32_t)(sizeof(ib_grh_t) + n);
		wc.recv.ud.remote_lid = CL_HTON16(2);
		wc.recv.ud.remote_qp = CL_HTON32(1);
		al_mad_rx(g_disp, &wc, buf);
	}
	al_rmpp_free_all(g_disp);
	pthread_mutex_unlock(&g_disp->lock);
	al_mad_poke(g_disp);   /* its thread sends the answers queued */
	return 0;
}
