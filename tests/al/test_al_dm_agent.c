/*
 * ibal tests: the device management agent answering DevMgt MADs from the wire, and the port capability it sets.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Two soft CAs in one process (IBAL_SOFT_CAS=2) on a fabric directory of
 * their own: CA 0 is the target (its IOCs are registered), CA 1 the
 * initiator, which sends DevMgt requests from its QP1 (al_gmp_client) to
 * the target port's LID: every attribute with good and bad slots and
 * ranges, the change ID moving, malformed requests (class version, Set,
 * unknown attribute and method, a short MAD), and the
 * IsDeviceManagementSupported bit in the port's attributes and in the SA's
 * PortInfoRecord while IOCs are registered. Waits are bounded, never
 * sleeps (polls of the SA stop at a deadline).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <iba/ib_al.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "al_mad.h"
#include "al_ioc.h"
#include "al_sa_client.h"

static char fab_dir[64];
static ib_al_handle_t h_al;
static ib_ca_handle_t h_ca[2];
static ib_net64_t ca_guid[2];
static ib_net64_t port_guid[2];
static ib_net16_t port_lid[2];
static al_gmp_client_t client;

static void read_port(int i)
{
	uint32_t size = 0;
	ib_ca_attr_t *p_attr;

	CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca[i], NULL, &size), IB_INSUFFICIENT_MEMORY);
	p_attr = (ib_ca_attr_t *)malloc(size);
	CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca[i], p_attr, &size), IB_SUCCESS);
	port_guid[i] = p_attr->p_port_attr[0].port_guid;
	port_lid[i] = p_attr->p_port_attr[0].lid;
	free(p_attr);
}

static boolean_t port_dev_mgmt(int i)
{
	uint32_t size = 0;
	ib_ca_attr_t *p_attr;
	boolean_t on;

	CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca[i], NULL, &size), IB_INSUFFICIENT_MEMORY);
	p_attr = (ib_ca_attr_t *)malloc(size);
	CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca[i], p_attr, &size), IB_SUCCESS);
	on = p_attr->p_port_attr[0].cap.dev_mgmt;
	free(p_attr);
	return on;
}

static void up(void)
{
	size_t n = 2;
	int i;

	test_fixture_up = 1;
	strcpy(fab_dir, "/tmp/ibal-dm-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "2", 1);
	setenv("IBAL_PROVIDERS", "soft", 1);
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, ca_guid, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, ca_guid[i], NULL, NULL, &h_ca[i]), IB_SUCCESS);
		read_port(i);
	}
	CU_ASSERT_EQUAL_FATAL(al_gmp_client_open(h_ca[1], port_guid[1], &client), IB_SUCCESS);
}

static void down(void)
{
	al_gmp_client_close(&client);
	if (h_al)
		CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	h_al = NULL;
	al_dm_agent_quiesce();
	al_sa_quiesce();
	CU_ASSERT_EQUAL(al_dm_agent_count(), 0);
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
	test_fixture_up = 0;
}

/* ---- One request, its response ---- */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
	ib_api_status_t status;
	ib_dm_mad_t resp;
} R = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, IB_SUCCESS, { { 0 }, { 0 }, { 0 } } };

static void gmp_cb(void *ctx, ib_api_status_t status, ib_mad_element_t *p_resp)
{
	(void)ctx;
	pthread_mutex_lock(&R.lock);
	R.status = status;
	memset(&R.resp, 0, sizeof(R.resp));
	if (p_resp) {
		memcpy(&R.resp, ib_get_mad_buf(p_resp),
		       p_resp->size < sizeof(R.resp) ? p_resp->size : sizeof(R.resp));
		ib_put_mad(p_resp);
	}
	R.done = 1;
	pthread_cond_broadcast(&R.cond);
	pthread_mutex_unlock(&R.lock);
}

static uint32_t tid_seq;

/* Sends a DevMgt request of @p len bytes to the target port; returns the
 * completion status (the response is in R.resp). */
static ib_api_status_t dm_req_len(uint8_t method, uint8_t class_ver, ib_net16_t attr, uint32_t mod,
				  size_t len)
{
	ib_dm_mad_t req;
	struct timespec until;
	ib_api_status_t st;

	memset(&req, 0, sizeof(req));
	req.hdr.base_ver = 1;
	req.hdr.mgmt_class = IB_MCLASS_DEV_MGMT;
	req.hdr.class_ver = class_ver;
	req.hdr.method = method;
	req.hdr.trans_id = cl_hton64(++tid_seq);
	req.hdr.attr_id = attr;
	req.hdr.attr_mod = cl_hton32(mod);
	pthread_mutex_lock(&R.lock);
	R.done = 0;
	pthread_mutex_unlock(&R.lock);
	st = al_gmp_request(&client, port_lid[0], &req.hdr, len, 500, 3, gmp_cb, NULL);
	if (st != IB_SUCCESS)
		return st;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += TEST_WAIT_US / 1000000u;
	pthread_mutex_lock(&R.lock);
	while (!R.done && pthread_cond_timedwait(&R.cond, &R.lock, &until) == 0)
		;
	st = R.done ? R.status : IB_TIMEOUT;
	pthread_mutex_unlock(&R.lock);
	return st;
}

static ib_api_status_t dm_get(ib_net16_t attr, uint32_t mod)
{
	return dm_req_len(IB_MAD_METHOD_GET, 1, attr, mod, MAD_BLOCK_SIZE);
}

/* Status of a Get answered (the request must complete). */
static uint16_t get_status(ib_net16_t attr, uint32_t mod)
{
	CU_ASSERT_EQUAL_FATAL(dm_get(attr, mod), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.resp.hdr.method, IB_MAD_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(R.resp.hdr.attr_id, attr);
	return cl_ntoh16(R.resp.hdr.status);
}

static uint32_t svc_mod(uint8_t slot, uint8_t first, uint8_t last)
{
	return cl_ntoh32(ib_dm_set_slot_lo_hi(slot, first, last));
}

static uint16_t iou_change_id(void)
{
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_IO_UNIT_INFO, 0), 0);
	return cl_ntoh16(((ib_iou_info_t *)R.resp.data)->change_id);
}

/* ---- Fixture: IOCs on the target ---- */

static void make_ioc(ib_ioc_handle_t *ph, uint64_t guid, int n_svc, ib_svc_handle_t *ph_svc)
{
	ib_ioc_profile_t prof;
	ib_svc_entry_t e;
	int i;

	memset(&prof, 0, sizeof(prof));
	prof.ioc_guid = cl_hton64(guid);
	ib_ioc_profile_set_vend_id(&prof, 0xABCDEF);
	prof.io_class = cl_hton16(0x0100);
	snprintf(prof.id_string, sizeof(prof.id_string), "ioc-%llx", (unsigned long long)guid);
	CU_ASSERT_EQUAL_FATAL(ib_create_ioc(h_ca[0], &prof, ph), IB_SUCCESS);
	for (i = 0; i < n_svc; i++) {
		memset(&e, 0, sizeof(e));
		snprintf(e.name, sizeof(e.name), "svc-%d", i);
		e.id = cl_hton64(0x1000 + (uint64_t)i);
		CU_ASSERT_EQUAL_FATAL(ib_add_svc_entry(*ph, &e, ph_svc ? &ph_svc[i] : &(ib_svc_handle_t){ 0 }),
				      IB_SUCCESS);
	}
	CU_ASSERT_EQUAL_FATAL(ib_reg_ioc(*ph), IB_SUCCESS);
}

/* ---- Attributes ---- */

static void test_dm_no_agent(void)
{
	up();
	/* No IOC registered: nobody takes class 6 on the target's QP1. */
	CU_ASSERT_EQUAL(dm_get(IB_MAD_ATTR_IO_UNIT_INFO, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.resp.hdr.status, IB_MAD_STATUS_UNSUP_CLASS_VER);
	CU_ASSERT_FALSE(port_dev_mgmt(0));
	down();
}

static void test_dm_class_port_info(void)
{
	ib_ioc_handle_t h;
	ib_class_port_info_t *p_cpi;

	up();
	make_ioc(&h, 0x10, 0, NULL);
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_CLASS_PORT_INFO, 0), 0);
	p_cpi = (ib_class_port_info_t *)R.resp.data;
	CU_ASSERT_EQUAL(p_cpi->base_ver, 1);
	CU_ASSERT_EQUAL(p_cpi->class_ver, 1);
	CU_ASSERT_EQUAL(R.resp.hdr.class_ver, 1);
	CU_ASSERT_EQUAL(R.resp.hdr.mgmt_class, IB_MCLASS_DEV_MGMT);
	CU_ASSERT(cl_ntoh32(p_cpi->cap_mask2_resp_time) & 0x1F);
	down();
}

static void test_dm_iou_info(void)
{
	ib_ioc_handle_t h[3];
	ib_svc_handle_t hs[2];
	ib_iou_info_t *p_info;
	uint16_t cid, cid2;

	up();
	make_ioc(&h[0], 0x20, 0, NULL);
	make_ioc(&h[1], 0x21, 0, NULL);
	make_ioc(&h[2], 0x22, 2, hs);
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_IO_UNIT_INFO, 0), 0);
	p_info = (ib_iou_info_t *)R.resp.data;
	CU_ASSERT_EQUAL(p_info->max_controllers, AL_IOU_MAX_SLOTS);
	CU_ASSERT_EQUAL(ioc_at_slot(p_info, 1), IOC_INSTALLED);
	CU_ASSERT_EQUAL(ioc_at_slot(p_info, 2), IOC_INSTALLED);
	CU_ASSERT_EQUAL(ioc_at_slot(p_info, 3), IOC_INSTALLED);
	CU_ASSERT_EQUAL(ioc_at_slot(p_info, 4), IOC_NOT_INSTALLED);
	CU_ASSERT_EQUAL(ioc_at_slot(p_info, 255), IOC_NOT_INSTALLED);
	CU_ASSERT_EQUAL(p_info->controller_list[127] & 0x0F, SLOT_DOES_NOT_EXIST);
	CU_ASSERT_EQUAL(ib_iou_info_diag_dev_id(p_info), 0);
	cid = cl_ntoh16(p_info->change_id);
	/* The change ID moves on every visible change. */
	CU_ASSERT_EQUAL(ib_destroy_ioc(h[1]), IB_SUCCESS);
	cid2 = iou_change_id();
	CU_ASSERT_EQUAL(cid2, (uint16_t)(cid + 1));
	CU_ASSERT_EQUAL(ioc_at_slot((ib_iou_info_t *)R.resp.data, 2), IOC_NOT_INSTALLED);
	CU_ASSERT_EQUAL(ib_remove_svc_entry(hs[0]), IB_SUCCESS);
	CU_ASSERT_EQUAL(iou_change_id(), (uint16_t)(cid + 2));
	make_ioc(&h[1], 0x23, 0, NULL);
	CU_ASSERT_EQUAL(iou_change_id(), (uint16_t)(cid + 3));
	CU_ASSERT_EQUAL(ioc_at_slot((ib_iou_info_t *)R.resp.data, 2), IOC_INSTALLED);
	down();
}

static void test_dm_ioc_profile(void)
{
	ib_ioc_handle_t h[2];
	ib_svc_handle_t hs[3];
	ib_ioc_profile_t *p_prof;

	up();
	make_ioc(&h[0], 0x30, 3, hs);
	make_ioc(&h[1], 0x31, 0, NULL);
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_IO_CONTROLLER_PROFILE, 1), 0);
	p_prof = (ib_ioc_profile_t *)R.resp.data;
	CU_ASSERT_EQUAL(p_prof->ioc_guid, cl_hton64(0x30));
	CU_ASSERT_EQUAL(ib_ioc_profile_get_vend_id(p_prof), 0xABCDEF);
	CU_ASSERT_EQUAL(p_prof->num_svc_entries, 3);
	CU_ASSERT_STRING_EQUAL(p_prof->id_string, "ioc-30");
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_IO_CONTROLLER_PROFILE, 2), 0);
	CU_ASSERT_EQUAL(p_prof->ioc_guid, cl_hton64(0x31));
	CU_ASSERT_EQUAL(p_prof->num_svc_entries, 0);
	/* Bad and empty slots. */
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_IO_CONTROLLER_PROFILE, 0), 0x001C);
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_IO_CONTROLLER_PROFILE, 256), 0x001C);
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_IO_CONTROLLER_PROFILE, 0xFFFFFFFFu), 0x001C);
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_IO_CONTROLLER_PROFILE, 3), 0x0100);
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_IO_CONTROLLER_PROFILE, 255), 0x0100);
	/* The entry count follows removals; a destroyed IOC's slot empties. */
	CU_ASSERT_EQUAL(ib_remove_svc_entry(hs[1]), IB_SUCCESS);
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_IO_CONTROLLER_PROFILE, 1), 0);
	CU_ASSERT_EQUAL(p_prof->num_svc_entries, 2);
	CU_ASSERT_EQUAL(ib_destroy_ioc(h[1]), IB_SUCCESS);
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_IO_CONTROLLER_PROFILE, 2), 0x0100);
	down();
}

static void test_dm_svc_entries(void)
{
	ib_ioc_handle_t h[2];
	ib_svc_handle_t hs[6];
	ib_svc_entries_t *p_e;
	int n;

	up();
	make_ioc(&h[0], 0x40, 6, hs);
	make_ioc(&h[1], 0x41, 0, NULL);
	p_e = (ib_svc_entries_t *)R.resp.data;
	/* One to four entries. */
	for (n = 1; n <= 4; n++) {
		CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_SERVICE_ENTRIES, svc_mod(1, 1, (uint8_t)n)), 0);
		CU_ASSERT_EQUAL(p_e->service_entry[0].id, cl_hton64(0x1001));
		CU_ASSERT_STRING_EQUAL(p_e->service_entry[0].name, "svc-1");
		CU_ASSERT_EQUAL(p_e->service_entry[n - 1].id, cl_hton64(0x1000 + (uint64_t)n));
		if (n < 4)
			CU_ASSERT_EQUAL(p_e->service_entry[n].id, 0);
	}
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_SERVICE_ENTRIES, svc_mod(1, 5, 5)), 0);
	CU_ASSERT_EQUAL(p_e->service_entry[0].id, cl_hton64(0x1005));
	/* Bad ranges. */
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_SERVICE_ENTRIES, svc_mod(1, 0, 4)), 0x001C);
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_SERVICE_ENTRIES, svc_mod(1, 3, 2)), 0x001C);
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_SERVICE_ENTRIES, svc_mod(1, 4, 7)), 0x0200);
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_SERVICE_ENTRIES, svc_mod(1, 6, 6)), 0x0200);
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_SERVICE_ENTRIES, svc_mod(2, 0, 0)), 0x0200);
	/* Bad and empty slots. */
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_SERVICE_ENTRIES, svc_mod(0, 0, 0)), 0x001C);
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_SERVICE_ENTRIES, svc_mod(3, 0, 0)), 0x0100);
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_SERVICE_ENTRIES, 0x01000000u | svc_mod(1, 0, 0)), 0x001C);
	/* A removal renumbers the entries after it. */
	CU_ASSERT_EQUAL(ib_remove_svc_entry(hs[0]), IB_SUCCESS);
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_SERVICE_ENTRIES, svc_mod(1, 0, 0)), 0);
	CU_ASSERT_EQUAL(p_e->service_entry[0].id, cl_hton64(0x1001));
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_SERVICE_ENTRIES, svc_mod(1, 5, 5)), 0x0200);
	down();
}

static void test_dm_diag_and_malformed(void)
{
	ib_ioc_handle_t h;

	up();
	make_ioc(&h, 0x50, 1, NULL);
	/* Diagnostics: not implemented. */
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_DIAGNOSTIC_TIMEOUT, 0), 0x000C);
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_DIAG_CODE, 1), 0x000C);
	CU_ASSERT_EQUAL(dm_req_len(IB_MAD_METHOD_SET, 1, IB_MAD_ATTR_PREPARE_TO_TEST, 1, 256), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.resp.hdr.status, CL_HTON16(0x000C));
	CU_ASSERT_EQUAL(dm_req_len(IB_MAD_METHOD_SET, 1, IB_MAD_ATTR_TEST_DEVICE_ONCE, 1, 256), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.resp.hdr.status, CL_HTON16(0x000C));
	CU_ASSERT_EQUAL(dm_req_len(IB_MAD_METHOD_SET, 1, IB_MAD_ATTR_TEST_DEVICE_LOOP, 1, 256), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.resp.hdr.status, CL_HTON16(0x000C));
	/* Sets of readable attributes. */
	CU_ASSERT_EQUAL(dm_req_len(IB_MAD_METHOD_SET, 1, IB_MAD_ATTR_IO_UNIT_INFO, 0, 256), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.resp.hdr.status, CL_HTON16(0x000C));
	CU_ASSERT_EQUAL(R.resp.hdr.method, IB_MAD_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(dm_req_len(IB_MAD_METHOD_SET, 1, IB_MAD_ATTR_CLASS_PORT_INFO, 0, 256), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.resp.hdr.status, CL_HTON16(0x000C));
	/* Unknown attribute, class version, method. */
	CU_ASSERT_EQUAL(get_status(CL_HTON16(0x0099), 0), 0x000C);
	CU_ASSERT_EQUAL(dm_req_len(IB_MAD_METHOD_GET, 2, IB_MAD_ATTR_IO_UNIT_INFO, 0, 256), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.resp.hdr.status, IB_MAD_STATUS_UNSUP_CLASS_VER);
	CU_ASSERT_EQUAL(dm_req_len(IB_MAD_METHOD_GETTABLE, 1, IB_MAD_ATTR_IO_UNIT_INFO, 0, 256), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.resp.hdr.status, IB_MAD_STATUS_UNSUP_METHOD);
	/* A short request (header only): answered or dropped, the agent lives on. */
	(void)dm_req_len(IB_MAD_METHOD_GET, 1, IB_MAD_ATTR_IO_UNIT_INFO, 0, 24);
	CU_ASSERT_EQUAL(get_status(IB_MAD_ATTR_IO_UNIT_INFO, 0), 0);
	CU_ASSERT_EQUAL(ioc_at_slot((ib_iou_info_t *)R.resp.data, 1), IOC_INSTALLED);
	down();
}

/* ---- The capability bit ---- */

static struct {
	pthread_mutex_t lock;
	int done;
	ib_api_status_t status;
	ib_net32_t cap;
	uint32_t cnt;
} Q = { PTHREAD_MUTEX_INITIALIZER, 0, IB_SUCCESS, 0, 0 };

static void AL_API on_query(ib_query_rec_t *p)
{
	pthread_mutex_lock(&Q.lock);
	Q.status = p->status;
	Q.cnt = p->result_cnt;
	if (p->status == IB_SUCCESS && p->result_cnt)
		Q.cap = ib_get_query_portinfo_rec(p->p_result_mad, 0)->port_info.capability_mask;
	Q.done = 1;
	pthread_mutex_unlock(&Q.lock);
	if (p->p_result_mad)
		ib_put_mad(p->p_result_mad);
}

/* The target port's CapabilityMask as the SA has it, through CA 1. */
static ib_net32_t sa_cap(void)
{
	ib_query_req_t q;
	ib_query_handle_t h_q;

	memset(&q, 0, sizeof(q));
	q.query_type = IB_QUERY_PORT_REC_BY_LID;
	q.p_query_input = &port_lid[0];
	q.port_guid = port_guid[1];
	q.timeout_ms = 500;
	q.retry_cnt = 3;
	q.flags = IB_FLAGS_SYNC;
	q.pfn_query_cb = on_query;
	Q.done = 0;
	Q.cap = 0;
	CU_ASSERT_EQUAL_FATAL(ib_query(h_al, &q, &h_q), IB_SUCCESS);
	CU_ASSERT_EQUAL(Q.done, 1);
	CU_ASSERT_EQUAL(Q.status, IB_SUCCESS);
	CU_ASSERT(Q.cnt >= 1);
	return Q.cap;
}

/* Polls the SA until the bit is as wanted or the deadline passes. */
static boolean_t sa_dev_mgmt_becomes(boolean_t want)
{
	uint64_t end = test_now_ms() + 10000;
	boolean_t on;

	do {
		on = (sa_cap() & IB_PORT_CAP_HAS_DEV_MGT) != 0;
		if (on == want)
			return TRUE;
	} while (test_now_ms() < end);
	return FALSE;
}

static void test_dm_capability(void)
{
	ib_ioc_handle_t h[2];

	up();
	CU_ASSERT_FALSE(port_dev_mgmt(0));
	CU_ASSERT_TRUE(sa_dev_mgmt_becomes(FALSE));
	make_ioc(&h[0], 0x60, 0, NULL);
	make_ioc(&h[1], 0x61, 0, NULL);
	CU_ASSERT_TRUE(port_dev_mgmt(0));
	CU_ASSERT_FALSE(port_dev_mgmt(1));
	CU_ASSERT_TRUE(sa_dev_mgmt_becomes(TRUE));
	/* One IOC left: still set. */
	CU_ASSERT_EQUAL(ib_destroy_ioc(h[0]), IB_SUCCESS);
	al_dm_agent_quiesce();
	CU_ASSERT_TRUE(port_dev_mgmt(0));
	CU_ASSERT_EQUAL(ib_destroy_ioc(h[1]), IB_SUCCESS);
	al_dm_agent_quiesce();
	CU_ASSERT_EQUAL(al_dm_agent_count(), 0);
	CU_ASSERT_FALSE(port_dev_mgmt(0));
	CU_ASSERT_TRUE(sa_dev_mgmt_becomes(FALSE));
	/* The agent is gone from QP1 too. */
	CU_ASSERT_EQUAL(dm_get(IB_MAD_ATTR_IO_UNIT_INFO, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.resp.hdr.status, IB_MAD_STATUS_UNSUP_CLASS_VER);
	down();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_dm_no_agent),
	TEST_ENTRY(test_dm_class_port_info),
	TEST_ENTRY(test_dm_iou_info),
	TEST_ENTRY(test_dm_ioc_profile),
	TEST_ENTRY(test_dm_svc_entries),
	TEST_ENTRY(test_dm_diag_and_malformed),
	TEST_ENTRY(test_dm_capability),
};

TEST_MAIN("al_dm_agent", tests)
