/*
 * ibal access layer: the device management agent (DevMgt class 0x06 on QP1 of each port of a CA with registered IOCs).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * One agent per CA GUID, counted by al_dm_agent_start()/_stop() (one start
 * per registered IOC). An agent has an AL instance of its own, the CA open
 * on it, and per port an alias PD, a QP1 alias and a MAD service taking
 * unsolicited Get and Set of (0x06, version 1); requests of another class
 * version or method are answered by the MAD dispatcher (docs/mad.md). The
 * receive callback answers from the registry (al_ioc.h) by sending the
 * request element back as the GetResp. While it runs, the agent keeps the
 * ports' IsDeviceManagementSupported capability set (ib_modify_ca); a
 * provider refusing that (rdma-core from user space) is logged and the
 * agent answers anyway.
 *
 * Answers (IBA 16.3):
 *  - Get ClassPortInfo: base and class version 1, no capability bits,
 *    RespTimeValue AL_DM_RESP_TIME.
 *  - Get IOUnitInfo: al_iou_get_info().
 *  - Get IOControllerProfile (modifier: slot): slot 0 or above
 *    AL_IOU_MAX_SLOTS: IB_MAD_STATUS_INVALID_FIELD; empty slot:
 *    IB_DM_MAD_STATUS_NO_IOC_RESP.
 *  - Get ServiceEntries (modifier: slot << 16 | last << 8 | first): bad slot
 *    or last < first or more than four entries: IB_MAD_STATUS_INVALID_FIELD;
 *    empty slot: IB_DM_MAD_STATUS_NO_IOC_RESP; entries past the IOC's table:
 *    IB_DM_MAD_STATUS_NO_SVC_ENTRIES.
 *  - Diagnostics are not implemented (IOUnitInfo's DiagDeviceID is 0):
 *    Get DiagnosticTimeout and DiagCode, and Set PrepareToTest,
 *    TestDeviceOnce and TestDeviceLoop, answer
 *    IB_MAD_STATUS_UNSUP_METHOD_ATTR, as does every other attribute and
 *    every Set (ClassPortInfo's redirection and trap fields are fixed).
 *  - A request shorter than a MAD block is dropped.
 */
#include <string.h>
#include <stdio.h>
#include <pthread.h>
#include <complib/cl_memory.h>
#include "al_verbs.h"
#include "al_ioc.h"
#include "al_client.h"
#include "al_port_agent.h"
#include "ibal_log.h"

/** RespTimeValue of ClassPortInfo: 4.096 us * 2^18, about 1 s. */
#define AL_DM_RESP_TIME 18

typedef struct dm_port {
	uint8_t port_num;
	ib_net64_t ca_guid;
	al_port_agent_t agent;      /* the port's QP1 alias and DM MAD service */
} dm_port_t;

typedef struct dm_agent {
	cl_list_item_t item;        /* on agents (ag_lock) */
	ib_net64_t ca_guid;
	uint32_t starts;            /* ag_lock */
	ib_al_handle_t h_al;
	ib_ca_handle_t h_ca;
	uint8_t n_ports;
	dm_port_t *ports;
} dm_agent_t;

static pthread_mutex_t ag_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ag_cond = PTHREAD_COND_INITIALIZER;
static cl_qlist_t agents;
static boolean_t agents_init;
static uint32_t teardowns;          /* agents ending (ag_lock) */

/* ---- Answers ---- */

static void get_class_port_info(ib_dm_mad_t *p_dm)
{
	ib_class_port_info_t *p_cpi = (ib_class_port_info_t *)p_dm->data;

	p_cpi->base_ver = 1;
	p_cpi->class_ver = AL_DM_CLASS_VERSION;
	p_cpi->cap_mask2_resp_time = cl_hton32(AL_DM_RESP_TIME);
}

static ib_net16_t slot_status(ib_api_status_t st)
{
	switch (st) {
	case IB_SUCCESS:
		return 0;
	case IB_NOT_FOUND:
		return IB_DM_MAD_STATUS_NO_IOC_RESP;
	case IB_INVALID_INDEX:
		return IB_DM_MAD_STATUS_NO_SVC_ENTRIES;
	default:
		return IB_MAD_STATUS_INVALID_FIELD;
	}
}

static ib_net16_t get_svc_entries(ib_net64_t ca_guid, ib_dm_mad_t *p_dm)
{
	uint8_t slot, first, last;

	ib_dm_get_slot_lo_hi(p_dm->hdr.attr_mod, &slot, &first, &last);
	if (cl_ntoh32(p_dm->hdr.attr_mod) >> 24)
		return IB_MAD_STATUS_INVALID_FIELD;  /* a slot wider than 8 bits */
	if (last < first || last - first >= SVC_ENTRY_COUNT)
		return IB_MAD_STATUS_INVALID_FIELD;
	return slot_status(al_iou_get_svc_entries(ca_guid, slot, first, last,
						  (ib_svc_entries_t *)p_dm->data));
}

/* Fills the response in place (header kept; data replaced). */
static ib_net16_t answer(ib_net64_t ca_guid, ib_dm_mad_t *p_dm)
{
	ib_net16_t attr = p_dm->hdr.attr_id;

	if (p_dm->hdr.method != IB_MAD_METHOD_GET)
		return IB_MAD_STATUS_UNSUP_METHOD_ATTR;
	memset(p_dm->resv, 0, sizeof(p_dm->resv));
	memset(p_dm->data, 0, sizeof(p_dm->data));
	if (attr == IB_MAD_ATTR_CLASS_PORT_INFO) {
		get_class_port_info(p_dm);
		return 0;
	}
	if (attr == IB_MAD_ATTR_IO_UNIT_INFO)
		return al_iou_get_info(ca_guid, (ib_iou_info_t *)p_dm->data) == IB_SUCCESS
			       ? 0
			       : IB_DM_MAD_STATUS_IOC_FAILURE;
	if (attr == IB_MAD_ATTR_IO_CONTROLLER_PROFILE)
		return slot_status(al_iou_get_profile(ca_guid, cl_ntoh32(p_dm->hdr.attr_mod),
						      (ib_ioc_profile_t *)p_dm->data));
	if (attr == IB_MAD_ATTR_SERVICE_ENTRIES)
		return get_svc_entries(ca_guid, p_dm);
	return IB_MAD_STATUS_UNSUP_METHOD_ATTR;
}

static void AL_API on_send(const ib_mad_svc_handle_t h_svc, void *ctx, ib_mad_element_t *p_mad)
{
	(void)h_svc;
	(void)ctx;
	ib_put_mad(p_mad);
}

static void AL_API on_recv(const ib_mad_svc_handle_t h_svc, void *ctx, ib_mad_element_t *p_mad)
{
	dm_port_t *p_port = (dm_port_t *)ctx;
	ib_dm_mad_t *p_dm = (ib_dm_mad_t *)ib_get_mad_buf(p_mad);
	ib_net16_t status;

	if (!p_dm || p_mad->size < MAD_BLOCK_SIZE || p_dm->hdr.mgmt_class != IB_MCLASS_DEV_MGMT ||
	    (p_dm->hdr.method & IB_MAD_METHOD_RESP_MASK)) {
		ib_put_mad(p_mad);
		return;
	}
	status = answer(p_port->ca_guid, p_dm);
	p_dm->hdr.status = status;
	p_dm->hdr.method = IB_MAD_METHOD_GET_RESP;
	p_mad->resp_expected = FALSE;
	p_mad->remote_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	p_mad->h_av = NULL;
	p_mad->p_next = NULL;
	if (ib_send_mad(h_svc, p_mad, NULL) != IB_SUCCESS)
		ib_put_mad(p_mad);
}

/* ---- Agents ---- */

/* Sets or clears the capability bit on every port; refusals are logged. */
static void set_cap(dm_agent_t *p_ag, boolean_t on)
{
	ib_port_attr_mod_t mod;
	ib_api_status_t st;
	uint8_t i;

	memset(&mod, 0, sizeof(mod));
	mod.cap.dev_mgmt = on;
	for (i = 0; i < p_ag->n_ports; i++) {
		st = ib_modify_ca(p_ag->h_ca, p_ag->ports[i].port_num, IB_CA_MOD_IS_DEV_MGMT_SUPPORTED,
				  &mod);
		if (st != IB_SUCCESS)
			IBAL_WARN(IBAL_SUB_IOC,
				  "device management agent: CA 0x%016llx port %u: cannot %s "
				  "IsDeviceManagementSupported (%s); DevMgt requests are answered anyway",
				  (unsigned long long)cl_ntoh64(p_ag->ca_guid), p_ag->ports[i].port_num,
				  on ? "set" : "clear", ib_get_err_str(st));
	}
}

static ib_api_status_t open_port(dm_port_t *p_port, ib_ca_handle_t h_ca, ib_net64_t port_guid)
{
	ib_mad_svc_t svc;

	memset(&svc, 0, sizeof(svc));
	svc.mad_svc_context = p_port;
	svc.pfn_mad_send_cb = on_send;
	svc.pfn_mad_recv_cb = on_recv;
	svc.support_unsol = TRUE;
	svc.mgmt_class = IB_MCLASS_DEV_MGMT;
	svc.mgmt_version = AL_DM_CLASS_VERSION;
	svc.method_array[IB_MAD_METHOD_GET] = TRUE;
	svc.method_array[IB_MAD_METHOD_SET] = TRUE;
	svc.svc_type = IB_MAD_SVC_RAW;
	return al_port_agent_open(&p_port->agent, h_ca, port_guid, 64, &svc, &al_port_agent_public);
}

/* Ends an agent; not on an AL callback thread (ib_close_al). */
static void agent_close(dm_agent_t *p_ag)
{
	uint8_t i;

	if (p_ag->h_ca)
		set_cap(p_ag, FALSE);
	if (p_ag->h_al) {
		for (i = 0; i < p_ag->n_ports; i++)
			al_port_agent_close(&p_ag->ports[i].agent);
		al_client_close_al(p_ag->h_al);
	}
	cl_free(p_ag->ports);
	cl_free(p_ag);
}

static ib_api_status_t agent_open(ib_net64_t ca_guid, dm_agent_t **pp_ag)
{
	dm_agent_t *p_ag = (dm_agent_t *)cl_zalloc(sizeof(*p_ag));
	ib_ca_attr_t *p_attr = NULL;
	ib_api_status_t st;
	uint32_t size = 0;
	uint8_t p;

	if (!p_ag)
		return IB_INSUFFICIENT_MEMORY;
	p_ag->ca_guid = ca_guid;
	st = ib_open_al(&p_ag->h_al);
	if (st != IB_SUCCESS) {
		p_ag->h_al = NULL;
		goto fail;
	}
	st = ib_open_ca(p_ag->h_al, ca_guid, NULL, NULL, &p_ag->h_ca);
	if (st != IB_SUCCESS) {
		p_ag->h_ca = NULL;
		goto fail;
	}
	st = ib_query_ca(p_ag->h_ca, NULL, &size);
	if (st == IB_INSUFFICIENT_MEMORY) {
		p_attr = (ib_ca_attr_t *)cl_zalloc(size);
		st = p_attr ? ib_query_ca(p_ag->h_ca, p_attr, &size) : IB_INSUFFICIENT_MEMORY;
	}
	if (st != IB_SUCCESS)
		goto fail;
	p_ag->ports = (dm_port_t *)cl_zalloc((p_attr->num_ports + 1u) * sizeof(dm_port_t));
	if (!p_ag->ports) {
		st = IB_INSUFFICIENT_MEMORY;
		goto fail;
	}
	/* A port that cannot carry the agent is left out; none is a failure. */
	st = IB_ERROR;
	for (p = 0; p < p_attr->num_ports; p++) {
		dm_port_t *pp = &p_ag->ports[p_ag->n_ports];
		ib_api_status_t pst;

		pp->port_num = p_attr->p_port_attr[p].port_num;
		pp->ca_guid = ca_guid;
		pst = open_port(pp, p_ag->h_ca, p_attr->p_port_attr[p].port_guid);
		p_ag->n_ports++;   /* kept for the teardown even when it failed */
		if (pst == IB_SUCCESS)
			st = IB_SUCCESS;
		else if (st != IB_SUCCESS)
			st = pst;
	}
	if (st != IB_SUCCESS)
		goto fail;
	cl_free(p_attr);
	set_cap(p_ag, TRUE);
	*pp_ag = p_ag;
	return IB_SUCCESS;
fail:
	cl_free(p_attr);
	agent_close(p_ag);
	return st;
}

static dm_agent_t *agent_find(ib_net64_t ca_guid)
{
	cl_list_item_t *it;

	if (!agents_init) {
		cl_qlist_init(&agents);
		agents_init = TRUE;
	}
	for (it = cl_qlist_head(&agents); it != cl_qlist_end(&agents); it = cl_qlist_next(it))
		if (PARENT_STRUCT(it, dm_agent_t, item)->ca_guid == ca_guid)
			return PARENT_STRUCT(it, dm_agent_t, item);
	return NULL;
}

ib_api_status_t al_dm_agent_start(ib_net64_t ca_guid)
{
	dm_agent_t *p_ag;
	ib_api_status_t st = IB_SUCCESS;

	pthread_mutex_lock(&ag_lock);
	p_ag = agent_find(ca_guid);
	if (!p_ag) {
		/* An agent of the CA may be ending: its QP1 services go first. */
		while (teardowns)
			pthread_cond_wait(&ag_cond, &ag_lock);
		p_ag = agent_find(ca_guid);
	}
	if (!p_ag) {
		st = agent_open(ca_guid, &p_ag);
		if (st == IB_SUCCESS)
			cl_qlist_insert_tail(&agents, &p_ag->item);
	}
	if (st == IB_SUCCESS)
		p_ag->starts++;
	pthread_mutex_unlock(&ag_lock);
	return st;
}

static void *teardown_thread(void *arg)
{
	agent_close((dm_agent_t *)arg);
	pthread_mutex_lock(&ag_lock);
	teardowns--;
	pthread_cond_broadcast(&ag_cond);
	pthread_mutex_unlock(&ag_lock);
	return NULL;
}

void al_dm_agent_stop(ib_net64_t ca_guid)
{
	dm_agent_t *p_ag;
	pthread_attr_t attr;
	pthread_t t;
	boolean_t started = FALSE;

	pthread_mutex_lock(&ag_lock);
	p_ag = agent_find(ca_guid);
	if (p_ag && --p_ag->starts == 0) {
		cl_qlist_remove_item(&agents, &p_ag->item);
		teardowns++;
	} else {
		p_ag = NULL;
	}
	pthread_mutex_unlock(&ag_lock);
	if (!p_ag)
		return;
	/* ib_close_al is refused on AL callback threads, where this may run. */
	if (!pthread_attr_init(&attr)) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		started = !pthread_create(&t, &attr, teardown_thread, p_ag);
		pthread_attr_destroy(&attr);
	}
	if (!started)
		teardown_thread(p_ag);
}

void al_dm_agent_quiesce(void)
{
	pthread_mutex_lock(&ag_lock);
	while (teardowns)
		pthread_cond_wait(&ag_cond, &ag_lock);
	pthread_mutex_unlock(&ag_lock);
}

uint32_t al_dm_agent_count(void)
{
	uint32_t n;

	pthread_mutex_lock(&ag_lock);
	n = agents_init ? (uint32_t)cl_qlist_count(&agents) : 0;
	pthread_mutex_unlock(&ag_lock);
	return n;
}

/* The DM agent as a client of the core (al_client.h): the teardowns of the
 * agents of a closed instance's IOCs end before ib_close_al returns. */
const al_client_t al_dm_agent_client = {
	.name = "dm-agent",
	.al_closed = al_dm_agent_quiesce,
};
