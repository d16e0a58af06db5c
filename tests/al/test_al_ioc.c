/*
 * ibal tests: local I/O controllers and service entries (ib_create_ioc .. ib_remove_svc_entry) and the IOU registry.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * One soft CA on a fabric directory of its own. Every call with good input
 * and each documented status (NULL, wrong-type, destroyed handles, double
 * registration, additions to a destroyed IOC, removal twice, the slot and
 * service-entry limits), read back through the registry the DM agent
 * serves (al_iou_get_*()): slots, profile with num_svc_entries, entry
 * ranges and the change ID. No waits but the access layer's own.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <iba/ib_al.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "al_ioc.h"

static char fab_dir[64];
static ib_al_handle_t h_al;
static ib_ca_handle_t h_ca;
static ib_net64_t ca_guid;

static void up(void)
{
	size_t n = 1;

	test_fixture_up = 1;
	strcpy(fab_dir, "/tmp/ibal-ioc-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "1", 1);
	setenv("IBAL_PROVIDERS", "soft", 1);
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, &ca_guid, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, ca_guid, NULL, NULL, &h_ca), IB_SUCCESS);
}

static void down(void)
{
	if (h_al)
		CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	h_al = NULL;
	al_dm_agent_quiesce();
	CU_ASSERT_EQUAL(al_dm_agent_count(), 0);
	CU_ASSERT_EQUAL(al_iou_reg_count(ca_guid), 0);
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
	test_fixture_up = 0;
}

static void profile(ib_ioc_profile_t *p, uint64_t guid, const char *name)
{
	memset(p, 0, sizeof(*p));
	p->ioc_guid = cl_hton64(guid);
	ib_ioc_profile_set_vend_id(p, 0x123456);
	p->dev_id = cl_hton32(0x77);
	p->io_class = cl_hton16(0x0100);
	p->num_svc_entries = 9; /* ignored: the access layer counts */
	snprintf(p->id_string, sizeof(p->id_string), "%s", name);
}

static void svc(ib_svc_entry_t *p, uint64_t id)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "svc-%llu", (unsigned long long)id);
	p->id = cl_hton64(id);
}

static uint16_t change_id(void)
{
	ib_iou_info_t info;

	CU_ASSERT_EQUAL_FATAL(al_iou_get_info(ca_guid, &info), IB_SUCCESS);
	return cl_ntoh16(info.change_id);
}

/* ---- Good input ---- */

static void test_ioc_lifecycle(void)
{
	ib_ioc_profile_t prof, got;
	ib_ioc_handle_t h_ioc;
	ib_svc_handle_t h_svc[3];
	ib_svc_entry_t e;
	ib_svc_entries_t ents;
	ib_iou_info_t info;
	uint16_t cid;
	int i;

	up();
	CU_ASSERT_EQUAL(al_iou_get_info(ca_guid, &info), IB_NOT_FOUND);
	profile(&prof, 0x1111, "lifecycle");
	CU_ASSERT_EQUAL_FATAL(ib_create_ioc(h_ca, &prof, &h_ioc), IB_SUCCESS);
	CU_ASSERT_PTR_NOT_NULL(h_ioc);
	/* Created, not registered: the IOU exists, no slot is taken. */
	CU_ASSERT_EQUAL_FATAL(al_iou_get_info(ca_guid, &info), IB_SUCCESS);
	CU_ASSERT_EQUAL(info.max_controllers, AL_IOU_MAX_SLOTS);
	CU_ASSERT_EQUAL(ioc_at_slot(&info, 1), IOC_NOT_INSTALLED);
	CU_ASSERT_EQUAL(ioc_at_slot(&info, 255), IOC_NOT_INSTALLED);
	CU_ASSERT_EQUAL(info.controller_list[127] & 0x0F, SLOT_DOES_NOT_EXIST);
	CU_ASSERT_EQUAL(al_iou_reg_count(ca_guid), 0);
	CU_ASSERT_EQUAL(al_dm_agent_count(), 0);
	cid = change_id();
	/* Entries before registration change nothing visible. */
	for (i = 0; i < 2; i++) {
		svc(&e, 100 + i);
		CU_ASSERT_EQUAL(ib_add_svc_entry(h_ioc, &e, &h_svc[i]), IB_SUCCESS);
	}
	CU_ASSERT_EQUAL(change_id(), cid);
	CU_ASSERT_EQUAL(al_iou_get_profile(ca_guid, 1, &got), IB_NOT_FOUND);

	CU_ASSERT_EQUAL_FATAL(ib_reg_ioc(h_ioc), IB_SUCCESS);
	CU_ASSERT_EQUAL(change_id(), (uint16_t)(cid + 1));
	CU_ASSERT_EQUAL(al_iou_reg_count(ca_guid), 1);
	CU_ASSERT_EQUAL(al_dm_agent_count(), 1);
	CU_ASSERT_EQUAL_FATAL(al_iou_get_info(ca_guid, &info), IB_SUCCESS);
	CU_ASSERT_EQUAL(ioc_at_slot(&info, 1), IOC_INSTALLED);
	CU_ASSERT_EQUAL(ioc_at_slot(&info, 2), IOC_NOT_INSTALLED);
	CU_ASSERT_EQUAL_FATAL(al_iou_get_profile(ca_guid, 1, &got), IB_SUCCESS);
	CU_ASSERT_EQUAL(got.ioc_guid, prof.ioc_guid);
	CU_ASSERT_EQUAL(ib_ioc_profile_get_vend_id(&got), 0x123456);
	CU_ASSERT_STRING_EQUAL(got.id_string, "lifecycle");
	CU_ASSERT_EQUAL(got.num_svc_entries, 2);
	CU_ASSERT_EQUAL(al_iou_get_svc_entries(ca_guid, 1, 0, 1, &ents), IB_SUCCESS);
	CU_ASSERT_EQUAL(ents.service_entry[0].id, cl_hton64(100));
	CU_ASSERT_EQUAL(ents.service_entry[1].id, cl_hton64(101));
	CU_ASSERT_STRING_EQUAL(ents.service_entry[1].name, "svc-101");
	CU_ASSERT_EQUAL(ents.service_entry[2].id, 0);

	/* Registered: each entry change bumps the change ID. */
	svc(&e, 102);
	CU_ASSERT_EQUAL(ib_add_svc_entry(h_ioc, &e, &h_svc[2]), IB_SUCCESS);
	CU_ASSERT_EQUAL(change_id(), (uint16_t)(cid + 2));
	CU_ASSERT_EQUAL(ib_remove_svc_entry(h_svc[0]), IB_SUCCESS);
	CU_ASSERT_EQUAL(change_id(), (uint16_t)(cid + 3));
	CU_ASSERT_EQUAL(al_iou_get_profile(ca_guid, 1, &got), IB_SUCCESS);
	CU_ASSERT_EQUAL(got.num_svc_entries, 2);
	/* The entries after the removed one move down. */
	CU_ASSERT_EQUAL(al_iou_get_svc_entries(ca_guid, 1, 0, 1, &ents), IB_SUCCESS);
	CU_ASSERT_EQUAL(ents.service_entry[0].id, cl_hton64(101));
	CU_ASSERT_EQUAL(ents.service_entry[1].id, cl_hton64(102));

	CU_ASSERT_EQUAL(ib_destroy_ioc(h_ioc), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_iou_reg_count(ca_guid), 0);
	/* Its entries went with it. */
	CU_ASSERT_EQUAL(ib_remove_svc_entry(h_svc[1]), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_remove_svc_entry(h_svc[2]), IB_INVALID_HANDLE);
	al_dm_agent_quiesce();
	CU_ASSERT_EQUAL(al_dm_agent_count(), 0);
	/* No IOC left: no IOU. */
	CU_ASSERT_EQUAL(al_iou_get_info(ca_guid, &info), IB_NOT_FOUND);
	down();
}

static void test_ioc_slots(void)
{
	ib_ioc_profile_t prof, got;
	ib_ioc_handle_t h[4];
	ib_iou_info_t info;
	uint16_t cid;
	int i;

	up();
	for (i = 0; i < 4; i++) {
		profile(&prof, 0x2000 + i, "slots");
		CU_ASSERT_EQUAL_FATAL(ib_create_ioc(h_ca, &prof, &h[i]), IB_SUCCESS);
	}
	/* Slots go in registration order, lowest free first. */
	CU_ASSERT_EQUAL(ib_reg_ioc(h[2]), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_reg_ioc(h[0]), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_reg_ioc(h[1]), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_iou_get_profile(ca_guid, 1, &got), IB_SUCCESS);
	CU_ASSERT_EQUAL(got.ioc_guid, cl_hton64(0x2002));
	CU_ASSERT_EQUAL(al_iou_get_profile(ca_guid, 2, &got), IB_SUCCESS);
	CU_ASSERT_EQUAL(got.ioc_guid, cl_hton64(0x2000));
	CU_ASSERT_EQUAL(al_iou_get_profile(ca_guid, 3, &got), IB_SUCCESS);
	CU_ASSERT_EQUAL(got.ioc_guid, cl_hton64(0x2001));
	CU_ASSERT_EQUAL(al_dm_agent_count(), 1);     /* one agent per CA */
	/* Destroying slot 2 leaves a hole; the next registration fills it. */
	cid = change_id();
	CU_ASSERT_EQUAL(ib_destroy_ioc(h[0]), IB_SUCCESS);
	CU_ASSERT_EQUAL(change_id(), (uint16_t)(cid + 1));
	CU_ASSERT_EQUAL_FATAL(al_iou_get_info(ca_guid, &info), IB_SUCCESS);
	CU_ASSERT_EQUAL(ioc_at_slot(&info, 1), IOC_INSTALLED);
	CU_ASSERT_EQUAL(ioc_at_slot(&info, 2), IOC_NOT_INSTALLED);
	CU_ASSERT_EQUAL(ioc_at_slot(&info, 3), IOC_INSTALLED);
	CU_ASSERT_EQUAL(al_iou_get_profile(ca_guid, 2, &got), IB_NOT_FOUND);
	CU_ASSERT_EQUAL(ib_reg_ioc(h[3]), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_iou_get_profile(ca_guid, 2, &got), IB_SUCCESS);
	CU_ASSERT_EQUAL(got.ioc_guid, cl_hton64(0x2003));
	/* Destroying an unregistered IOC is invisible. */
	profile(&prof, 0x2100, "quiet");
	CU_ASSERT_EQUAL_FATAL(ib_create_ioc(h_ca, &prof, &h[0]), IB_SUCCESS);
	cid = change_id();
	CU_ASSERT_EQUAL(ib_destroy_ioc(h[0]), IB_SUCCESS);
	CU_ASSERT_EQUAL(change_id(), cid);
	/* Closing the CA destroys the rest. */
	CU_ASSERT_EQUAL(ib_close_ca(h_ca, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_iou_reg_count(ca_guid), 0);
	CU_ASSERT_EQUAL(ib_destroy_ioc(h[1]), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(al_iou_get_info(ca_guid, &info), IB_NOT_FOUND);
	down();
}

/* IOCs die with their AL instance (ib_close_al in down()). */
static void test_ioc_close_al(void)
{
	ib_ioc_profile_t prof;
	ib_ioc_handle_t h_ioc;
	ib_svc_handle_t h_svc;
	ib_svc_entry_t e;

	up();
	profile(&prof, 0x3000, "close");
	CU_ASSERT_EQUAL_FATAL(ib_create_ioc(h_ca, &prof, &h_ioc), IB_SUCCESS);
	svc(&e, 1);
	CU_ASSERT_EQUAL(ib_add_svc_entry(h_ioc, &e, &h_svc), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_reg_ioc(h_ioc), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_iou_reg_count(ca_guid), 1);
	down();     /* asserts that nothing is left */
	CU_ASSERT_EQUAL(ib_destroy_ioc(h_ioc), IB_INVALID_HANDLE);
}

/* ---- Bad input ---- */

static void test_ioc_bad_input(void)
{
	ib_ioc_profile_t prof;
	ib_ioc_handle_t h_ioc, h_ioc2;
	ib_svc_handle_t h_svc;
	ib_svc_entry_t e;
	ib_pd_handle_t h_pd;

	up();
	profile(&prof, 0x4000, "bad");
	svc(&e, 7);
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_NORMAL, NULL, &h_pd), IB_SUCCESS);
	/* ib_create_ioc */
	CU_ASSERT_EQUAL(ib_create_ioc(NULL, &prof, &h_ioc), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL(ib_create_ioc((ib_ca_handle_t)h_pd, &prof, &h_ioc), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL(ib_create_ioc(h_ca, NULL, &h_ioc), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_create_ioc(h_ca, &prof, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL_FATAL(ib_create_ioc(h_ca, &prof, &h_ioc), IB_SUCCESS);
	/* wrong types and NULL */
	CU_ASSERT_EQUAL(ib_reg_ioc(NULL), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_reg_ioc((ib_ioc_handle_t)h_ca), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_destroy_ioc(NULL), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_destroy_ioc((ib_ioc_handle_t)h_pd), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_add_svc_entry(NULL, &e, &h_svc), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_add_svc_entry((ib_ioc_handle_t)h_pd, &e, &h_svc), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_add_svc_entry(h_ioc, NULL, &h_svc), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_add_svc_entry(h_ioc, &e, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_remove_svc_entry(NULL), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_remove_svc_entry((ib_svc_handle_t)h_ioc), IB_INVALID_HANDLE);
	/* double registration */
	CU_ASSERT_EQUAL(ib_reg_ioc(h_ioc), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_reg_ioc(h_ioc), IB_INVALID_STATE);
	CU_ASSERT_EQUAL(al_iou_reg_count(ca_guid), 1);
	/* remove twice */
	CU_ASSERT_EQUAL_FATAL(ib_add_svc_entry(h_ioc, &e, &h_svc), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_remove_svc_entry(h_svc), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_remove_svc_entry(h_svc), IB_INVALID_HANDLE);
	/* destroyed IOC */
	CU_ASSERT_EQUAL(ib_destroy_ioc(h_ioc), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_ioc(h_ioc), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_reg_ioc(h_ioc), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_add_svc_entry(h_ioc, &e, &h_svc), IB_INVALID_HANDLE);
	/* destroyed CA */
	CU_ASSERT_EQUAL_FATAL(ib_create_ioc(h_ca, &prof, &h_ioc2), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_close_ca(h_ca, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_create_ioc(h_ca, &prof, &h_ioc), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL(ib_reg_ioc(h_ioc2), IB_INVALID_HANDLE);
	/* registry reads */
	CU_ASSERT_EQUAL(al_iou_get_info(ca_guid, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(al_iou_get_profile(ca_guid, 1, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(al_iou_get_svc_entries(ca_guid, 1, 0, 0, NULL), IB_INVALID_PARAMETER);
	down();
}

static void test_ioc_limits(void)
{
	ib_ioc_profile_t prof, got;
	ib_ioc_handle_t h_ioc, h_more;
	ib_ioc_handle_t *h_all;
	ib_svc_handle_t h_svc, h_last = NULL;
	ib_svc_entry_t e;
	ib_svc_entries_t ents;
	ib_iou_info_t info;
	uint32_t i;

	up();
	profile(&prof, 0x5000, "limits");
	/* Service entries: 255 per IOC. */
	CU_ASSERT_EQUAL_FATAL(ib_create_ioc(h_ca, &prof, &h_ioc), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_ioc(h_ioc), IB_SUCCESS);
	for (i = 0; i < AL_IOC_MAX_SVC_ENTRIES; i++) {
		svc(&e, i);
		CU_ASSERT_EQUAL_FATAL(ib_add_svc_entry(h_ioc, &e, &h_last), IB_SUCCESS);
	}
	svc(&e, 999);
	CU_ASSERT_EQUAL(ib_add_svc_entry(h_ioc, &e, &h_svc), IB_INSUFFICIENT_RESOURCES);
	CU_ASSERT_EQUAL(al_iou_get_profile(ca_guid, 1, &got), IB_SUCCESS);
	CU_ASSERT_EQUAL(got.num_svc_entries, 255);
	/* Ranges: up to four, within the table. */
	CU_ASSERT_EQUAL(al_iou_get_svc_entries(ca_guid, 1, 251, 254, &ents), IB_SUCCESS);
	CU_ASSERT_EQUAL(ents.service_entry[3].id, cl_hton64(254));
	CU_ASSERT_EQUAL(al_iou_get_svc_entries(ca_guid, 1, 254, 254, &ents), IB_SUCCESS);
	CU_ASSERT_EQUAL(ents.service_entry[0].id, cl_hton64(254));
	CU_ASSERT_EQUAL(al_iou_get_svc_entries(ca_guid, 1, 252, 255, &ents), IB_INVALID_INDEX);
	CU_ASSERT_EQUAL(al_iou_get_svc_entries(ca_guid, 1, 0, 4, &ents), IB_INVALID_INDEX);
	CU_ASSERT_EQUAL(al_iou_get_svc_entries(ca_guid, 1, 3, 2, &ents), IB_INVALID_INDEX);
	CU_ASSERT_EQUAL(al_iou_get_svc_entries(ca_guid, 2, 0, 0, &ents), IB_NOT_FOUND);
	CU_ASSERT_EQUAL(al_iou_get_svc_entries(ca_guid, 0, 0, 0, &ents), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(al_iou_get_svc_entries(ca_guid, 256, 0, 0, &ents), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(al_iou_get_profile(ca_guid, 0, &got), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(al_iou_get_profile(ca_guid, 256, &got), IB_INVALID_PARAMETER);
	/* Room again after a removal. */
	CU_ASSERT_EQUAL(ib_remove_svc_entry(h_last), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_add_svc_entry(h_ioc, &e, &h_svc), IB_SUCCESS);

	/* Slots: 255 per IOU (one is taken above). */
	h_all = (ib_ioc_handle_t *)calloc(AL_IOU_MAX_SLOTS, sizeof(*h_all));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h_all);
	for (i = 1; i < AL_IOU_MAX_SLOTS; i++) {
		CU_ASSERT_EQUAL_FATAL(ib_create_ioc(h_ca, &prof, &h_all[i]), IB_SUCCESS);
		CU_ASSERT_EQUAL_FATAL(ib_reg_ioc(h_all[i]), IB_SUCCESS);
	}
	CU_ASSERT_EQUAL(al_iou_reg_count(ca_guid), AL_IOU_MAX_SLOTS);
	CU_ASSERT_EQUAL_FATAL(al_iou_get_info(ca_guid, &info), IB_SUCCESS);
	CU_ASSERT_EQUAL(ioc_at_slot(&info, 255), IOC_INSTALLED);
	CU_ASSERT_EQUAL(info.controller_list[127] & 0x0F, SLOT_DOES_NOT_EXIST);
	CU_ASSERT_EQUAL_FATAL(ib_create_ioc(h_ca, &prof, &h_more), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_reg_ioc(h_more), IB_INSUFFICIENT_RESOURCES);
	CU_ASSERT_EQUAL(al_iou_reg_count(ca_guid), AL_IOU_MAX_SLOTS);
	CU_ASSERT_EQUAL(ib_destroy_ioc(h_all[100]), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_reg_ioc(h_more), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_iou_get_profile(ca_guid, 101, &got), IB_SUCCESS);
	free(h_all);
	down();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_ioc_lifecycle),
	TEST_ENTRY(test_ioc_slots),
	TEST_ENTRY(test_ioc_close_al),
	TEST_ENTRY(test_ioc_bad_input),
	TEST_ENTRY(test_ioc_limits),
};

TEST_MAIN("al_ioc", tests)
