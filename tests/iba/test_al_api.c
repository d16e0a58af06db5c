/*
 * ibal tests: the inline helpers of ib_al.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * SA query results are built here as the SA sends them: the 56-byte SA MAD
 * header, then the records at the stride the header's AttributeOffset gives
 * (in 8-byte units, InfiniBand volume 1, 15.2.1.1). Built with _DEBUG_, the
 * program also checks that the helpers' debug assertions catch a record
 * index past the end of the MAD and a MAD of the wrong attribute.
 */
#include <stdio.h>
#include <string.h>
#include <iba/ib_al.h>
#include "../common/cl_test.h"
#ifdef _DEBUG_
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

/* Room for an SA MAD with a few records of the largest type (RMPP-sized). */
#define RESULT_BUF_SIZE (IB_SA_MAD_HDR_SIZE + 4 * sizeof(ib_service_record_t))

/* An SA GetTableResp MAD buffer, aligned as a MAD pool would give it. */
static union {
	uint64_t align;
	uint8_t bytes[RESULT_BUF_SIZE];
} g_buf;

/*
 * Fills g_buf with an SA response header for @p attr_id whose records are
 * @p stride bytes apart, marks each record's first byte with 0xA0 + index
 * and points @p elem at it, sized for @p count records.
 */
static void build_result(ib_mad_element_t *elem, ib_net16_t attr_id, uint32_t stride,
			 uint32_t count)
{
	ib_sa_mad_t *sa = (ib_sa_mad_t *)g_buf.bytes;
	uint32_t i;

	memset(&g_buf, 0xEE, sizeof(g_buf));
	memset(sa, 0, IB_SA_MAD_HDR_SIZE);
	sa->base_ver = 1;
	sa->mgmt_class = IB_MCLASS_SUBN_ADM;
	sa->class_ver = 2;
	sa->method = IB_MAD_METHOD_GETTABLE_RESP;
	sa->attr_id = attr_id;
	sa->attr_offset = ib_get_attr_offset(stride);
	for (i = 0; i < count; i++)
		g_buf.bytes[IB_SA_MAD_HDR_SIZE + i * stride] = (uint8_t)(0xA0 + i);

	memset(elem, 0, sizeof(*elem));
	elem->p_mad_buf = (ib_mad_t *)g_buf.bytes;
	elem->size = (uint32_t)(IB_SA_MAD_HDR_SIZE + count * stride);
}

/* --- ib_get_mad_buf ------------------------------------------------------- */

static void test_get_mad_buf_returns_buffer(void)
{
	ib_mad_element_t elem;
	const ib_mad_element_t *celem = &elem;
	uint8_t mad[MAD_BLOCK_SIZE];

	memset(&elem, 0, sizeof(elem));
	elem.p_mad_buf = (ib_mad_t *)mad;
	CU_ASSERT_PTR_EQUAL(ib_get_mad_buf(&elem), mad);
	CU_ASSERT_PTR_EQUAL(ib_get_mad_buf(celem), mad);

	elem.p_mad_buf = NULL;
	CU_ASSERT_PTR_NULL(ib_get_mad_buf(&elem));
}

static void test_get_mad_buf_other_fields_ignored(void)
{
	ib_mad_element_t elem;
	uint8_t mad_a[MAD_BLOCK_SIZE], mad_b[MAD_BLOCK_SIZE];

	memset(&elem, 0xFF, sizeof(elem));
	elem.p_next = NULL;
	elem.p_mad_buf = (ib_mad_t *)mad_a;
	elem.size = 0;
	CU_ASSERT_PTR_EQUAL(ib_get_mad_buf(&elem), mad_a);
	elem.p_mad_buf = (ib_mad_t *)mad_b;
	CU_ASSERT_PTR_EQUAL(ib_get_mad_buf(&elem), mad_b);
}

/* --- ib_get_query_result and the typed helpers --------------------------- */

static void test_query_result_stride_from_attr_offset(void)
{
	ib_mad_element_t elem;
	uint32_t i;

	/* A 40-byte stride that is no record's size: the helper must use attr_offset. */
	build_result(&elem, IB_MAD_ATTR_SERVICE_RECORD, 40, 4);
	CU_ASSERT_EQUAL(cl_ntoh16(((ib_sa_mad_t *)g_buf.bytes)->attr_offset), 5);
	for (i = 0; i < 4; i++) {
		uint8_t *rec = (uint8_t *)ib_get_query_result(&elem, i);

		CU_ASSERT_PTR_EQUAL(rec, g_buf.bytes + IB_SA_MAD_HDR_SIZE + 40 * i);
		CU_ASSERT_EQUAL(rec[0], 0xA0 + i);
	}
	/* The first record starts right after the 56-byte header. */
	CU_ASSERT_PTR_EQUAL(ib_get_query_result(&elem, 0), g_buf.bytes + 56);
	CU_ASSERT_PTR_EQUAL(ib_get_query_result(&elem, 0),
			    ((ib_sa_mad_t *)g_buf.bytes)->data);
}

static void test_query_result_last_record_fills_mad(void)
{
	ib_mad_element_t elem;

	/* Exactly three 64-byte records: index 2 ends at elem.size. */
	build_result(&elem, IB_MAD_ATTR_PATH_RECORD, 64, 3);
	CU_ASSERT_EQUAL(elem.size, 56 + 3 * 64);
	CU_ASSERT_PTR_EQUAL((uint8_t *)ib_get_query_result(&elem, 2) + 64,
			    g_buf.bytes + elem.size);
}

static void test_query_path_rec(void)
{
	ib_mad_element_t elem;
	ib_path_rec_t *rec;
	uint32_t i;

	build_result(&elem, IB_MAD_ATTR_PATH_RECORD, sizeof(ib_path_rec_t), 3);
	for (i = 0; i < 3; i++) {
		rec = (ib_path_rec_t *)(g_buf.bytes + IB_SA_MAD_HDR_SIZE + i * 64);
		rec->dlid = cl_hton16((uint16_t)(0x100 + i));
		rec->slid = cl_hton16(0x0042);
		rec->pkey = IB_DEFAULT_PKEY;
	}
	for (i = 0; i < 3; i++) {
		rec = ib_get_query_path_rec(&elem, i);
		CU_ASSERT_PTR_EQUAL(rec, g_buf.bytes + 56 + 64 * i);
		CU_ASSERT_EQUAL(cl_ntoh16(rec->dlid), 0x100 + i);
		CU_ASSERT_EQUAL(rec->slid, cl_hton16(0x0042));
		CU_ASSERT_EQUAL(rec->pkey, IB_DEFAULT_PKEY);
	}
}

static void test_query_portinfo_rec(void)
{
	ib_mad_element_t elem;
	ib_portinfo_record_t *rec;
	uint32_t stride = sizeof(ib_portinfo_record_t);
	uint32_t i;

	CU_ASSERT_EQUAL(stride % 8, 0);
	build_result(&elem, IB_MAD_ATTR_PORTINFO_RECORD, stride, 3);
	for (i = 0; i < 3; i++) {
		rec = (ib_portinfo_record_t *)(g_buf.bytes + IB_SA_MAD_HDR_SIZE + i * stride);
		rec->lid = cl_hton16((uint16_t)(7 + i));
		rec->port_num = (uint8_t)(i + 1);
	}
	for (i = 0; i < 3; i++) {
		rec = ib_get_query_portinfo_rec(&elem, i);
		CU_ASSERT_PTR_EQUAL(rec, g_buf.bytes + 56 + stride * i);
		CU_ASSERT_EQUAL(cl_ntoh16(rec->lid), 7 + i);
		CU_ASSERT_EQUAL(rec->port_num, i + 1);
	}
}

static void test_query_node_rec(void)
{
	ib_mad_element_t elem;
	ib_node_record_t *rec;
	uint32_t i;

	/* NodeRecord: 108 bytes of data, AttributeOffset 14 (112 bytes). */
	build_result(&elem, IB_MAD_ATTR_NODE_RECORD, 112, 3);
	CU_ASSERT_EQUAL(cl_ntoh16(((ib_sa_mad_t *)g_buf.bytes)->attr_offset), 14);
	for (i = 0; i < 3; i++) {
		rec = (ib_node_record_t *)(g_buf.bytes + IB_SA_MAD_HDR_SIZE + i * 112);
		rec->lid = cl_hton16((uint16_t)(0x20 + i));
		rec->node_info.node_guid = cl_hton64(0x0002C90300001000ULL + i);
	}
	for (i = 0; i < 3; i++) {
		rec = ib_get_query_node_rec(&elem, i);
		CU_ASSERT_PTR_EQUAL(rec, g_buf.bytes + 56 + 112 * i);
		CU_ASSERT_EQUAL(cl_ntoh16(rec->lid), 0x20 + i);
		CU_ASSERT_EQUAL(cl_ntoh64(rec->node_info.node_guid), 0x0002C90300001000ULL + i);
	}
}

static void test_query_svc_rec(void)
{
	ib_mad_element_t elem;
	ib_service_record_t *rec;
	uint32_t i;

	/* ServiceRecord: 176 bytes; past one MAD, as an RMPP response is. */
	build_result(&elem, IB_MAD_ATTR_SERVICE_RECORD, 176, 4);
	CU_ASSERT_EQUAL(elem.size, 56 + 4 * 176);
	for (i = 0; i < 4; i++) {
		rec = (ib_service_record_t *)(g_buf.bytes + IB_SA_MAD_HDR_SIZE + i * 176);
		rec->service_id = cl_hton64(0x1000ULL + i);
		snprintf((char *)rec->service_name, sizeof(rec->service_name), "svc-%u", i);
	}
	for (i = 0; i < 4; i++) {
		char want[16];

		rec = ib_get_query_svc_rec(&elem, i);
		CU_ASSERT_PTR_EQUAL(rec, g_buf.bytes + 56 + 176 * i);
		CU_ASSERT_EQUAL(cl_ntoh64(rec->service_id), 0x1000ULL + i);
		snprintf(want, sizeof(want), "svc-%u", i);
		CU_ASSERT_STRING_EQUAL((const char *)rec->service_name, want);
	}
}

static void test_query_helpers_leave_mad_unchanged(void)
{
	ib_mad_element_t elem, copy;
	uint8_t before[RESULT_BUF_SIZE];

	build_result(&elem, IB_MAD_ATTR_PATH_RECORD, 64, 2);
	memcpy(before, g_buf.bytes, sizeof(before));
	copy = elem;
	(void)ib_get_query_result(&elem, 1);
	(void)ib_get_query_path_rec(&elem, 0);
	CU_ASSERT_EQUAL(memcmp(before, g_buf.bytes, sizeof(before)), 0);
	CU_ASSERT_EQUAL(memcmp(&copy, &elem, sizeof(elem)), 0);
}

/* --- Debug assertions ------------------------------------------------------ */

#ifdef _DEBUG_
enum { BAD_INDEX, BAD_ATTR_PATH, BAD_ATTR_NODE, BAD_ATTR_SVC, BAD_ATTR_PORTINFO, GOOD };

/* Runs one helper call in a child; returns 1 if the child died of SIGABRT. */
static int child_aborts(int what)
{
	pid_t pid;
	int status = 0;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		ib_mad_element_t elem;

		/* Keep the child's expected assertion message off the test log. */
		if (!freopen("/dev/null", "w", stderr))
			_exit(3);
		build_result(&elem, IB_MAD_ATTR_NODE_RECORD, 112, 2);
		switch (what) {
		case BAD_INDEX: (void)ib_get_query_result(&elem, 2); break;
		case BAD_ATTR_PATH: (void)ib_get_query_path_rec(&elem, 0); break;
		case BAD_ATTR_SVC: (void)ib_get_query_svc_rec(&elem, 0); break;
		case BAD_ATTR_PORTINFO: (void)ib_get_query_portinfo_rec(&elem, 0); break;
		default: (void)ib_get_query_node_rec(&elem, 1); break;
		}
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static void test_debug_asserts(void)
{
	CU_ASSERT_EQUAL(child_aborts(GOOD), 0);
	CU_ASSERT_EQUAL(child_aborts(BAD_INDEX), 1);
	CU_ASSERT_EQUAL(child_aborts(BAD_ATTR_PATH), 1);
	CU_ASSERT_EQUAL(child_aborts(BAD_ATTR_SVC), 1);
	CU_ASSERT_EQUAL(child_aborts(BAD_ATTR_PORTINFO), 1);
}
#endif

/* --- ib_get_pnp_event_str ---------------------------------------------------- */

static const struct {
	ib_pnp_event_t event;
	const char *name;
} g_pnp_events[] = {
	{ IB_PNP_CA_ADD, "IB_PNP_CA_ADD" },
	{ IB_PNP_CA_REMOVE, "IB_PNP_CA_REMOVE" },
	{ IB_PNP_PORT_ADD, "IB_PNP_PORT_ADD" },
	{ IB_PNP_PORT_REMOVE, "IB_PNP_PORT_REMOVE" },
	{ IB_PNP_PORT_INIT, "IB_PNP_PORT_INIT" },
	{ IB_PNP_PORT_ARMED, "IB_PNP_PORT_ARMED" },
	{ IB_PNP_PORT_ACTIVE, "IB_PNP_PORT_ACTIVE" },
	{ IB_PNP_PORT_DOWN, "IB_PNP_PORT_DOWN" },
	{ IB_PNP_PKEY_CHANGE, "IB_PNP_PKEY_CHANGE" },
	{ IB_PNP_SM_CHANGE, "IB_PNP_SM_CHANGE" },
	{ IB_PNP_GID_CHANGE, "IB_PNP_GID_CHANGE" },
	{ IB_PNP_LID_CHANGE, "IB_PNP_LID_CHANGE" },
	{ IB_PNP_SUBNET_TIMEOUT_CHANGE, "IB_PNP_SUBNET_TIMEOUT_CHANGE" },
	{ IB_PNP_IOU_ADD, "IB_PNP_IOU_ADD" },
	{ IB_PNP_IOU_REMOVE, "IB_PNP_IOU_REMOVE" },
	{ IB_PNP_IOC_ADD, "IB_PNP_IOC_ADD" },
	{ IB_PNP_IOC_REMOVE, "IB_PNP_IOC_REMOVE" },
	{ IB_PNP_IOC_PATH_ADD, "IB_PNP_IOC_PATH_ADD" },
	{ IB_PNP_IOC_PATH_REMOVE, "IB_PNP_IOC_PATH_REMOVE" },
	{ IB_PNP_REG_COMPLETE, "IB_PNP_REG_COMPLETE" },
};

static void test_pnp_event_str_every_event(void)
{
	size_t i, j;

	CU_ASSERT_EQUAL(TEST_COUNT(g_pnp_events), 20);
	for (i = 0; i < TEST_COUNT(g_pnp_events); i++) {
		const char *s = ib_get_pnp_event_str(g_pnp_events[i].event);

		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_STRING_EQUAL(s, g_pnp_events[i].name);
		/* The events are distinct values. */
		for (j = 0; j < i; j++)
			CU_ASSERT_NOT_EQUAL(g_pnp_events[i].event, g_pnp_events[j].event);
	}
}

static void test_pnp_event_str_unknown(void)
{
	static const ib_pnp_event_t unknown[] = {
		0,
		IB_PNP_CA,                            /* a class alone */
		IB_PNP_PORT,
		IB_PNP_EVENT_ADD,                     /* an event bit alone */
		IB_PNP_CA | IB_PNP_EVENT_CHANGE,      /* a combination upstream does not name */
		IB_PNP_PORT | IB_PNP_EVENT_CHANGE,
		IB_PNP_CA | IB_PNP_EVENT_ACTIVE,
		IB_PNP_IOU | IB_PNP_EVENT_PATH | IB_PNP_EVENT_ADD,
		IB_PNP_FLAG_REG_SYNC,
		IB_PNP_PORT_ACTIVE | IB_PNP_FLAG_REG_SYNC,
		0xFFFFFFFFu,
	};
	size_t i;

	for (i = 0; i < TEST_COUNT(unknown); i++)
		CU_ASSERT_STRING_EQUAL(ib_get_pnp_event_str(unknown[i]), "Unknown");
}

static void test_pnp_event_str_is_static(void)
{
	const char *a = ib_get_pnp_event_str(IB_PNP_PORT_DOWN);
	const char *b = ib_get_pnp_event_str(IB_PNP_CA_ADD);

	/* Results stay valid after later calls: static strings. */
	CU_ASSERT_STRING_EQUAL(a, "IB_PNP_PORT_DOWN");
	CU_ASSERT_STRING_EQUAL(b, "IB_PNP_CA_ADD");
	CU_ASSERT_STRING_EQUAL(ib_get_pnp_event_str(IB_PNP_PORT_DOWN), a);
}

/* --- Other definitions used at run time -------------------------------------- */

static void test_sync_destroy_marker(void)
{
	ib_pfn_destroy_cb_t cb = ib_sync_destroy;

	/* The marker is upstream's all-ones pointer, distinct from NULL. */
	CU_ASSERT_PTR_NOT_NULL(cb);
	CU_ASSERT_EQUAL((intptr_t)cb, (intptr_t)-1);
}

static void test_pnp_class_of_events(void)
{
	size_t i;

	for (i = 0; i < TEST_COUNT(g_pnp_events); i++) {
		ib_pnp_event_t ev = g_pnp_events[i].event;
		uint32_t cls = ev & IB_PNP_CLASS_MASK;
		const char *prefix;

		if (ev == IB_PNP_REG_COMPLETE) {
			CU_ASSERT_EQUAL(cls, 0);
			CU_ASSERT_EQUAL(ev & IB_PNP_FLAG_MASK, IB_PNP_FLAG_REG_COMPLETE);
			continue;
		}
		CU_ASSERT(cls == IB_PNP_CA || cls == IB_PNP_PORT || cls == IB_PNP_IOU ||
			  cls == IB_PNP_IOC);
		CU_ASSERT_EQUAL(ev & IB_PNP_FLAG_MASK, 0);
		/* The class bits agree with the event's name. */
		prefix = cls == IB_PNP_CA ? "IB_PNP_CA_" : cls == IB_PNP_IOU ? "IB_PNP_IOU_" :
			 cls == IB_PNP_IOC ? "IB_PNP_IOC_" : "IB_PNP_";
		CU_ASSERT_EQUAL(strncmp(g_pnp_events[i].name, prefix, strlen(prefix)), 0);
		if (cls == IB_PNP_PORT) {
			CU_ASSERT_NOT_EQUAL(strncmp(g_pnp_events[i].name, "IB_PNP_CA_", 10), 0);
			CU_ASSERT_NOT_EQUAL(strncmp(g_pnp_events[i].name, "IB_PNP_IO", 9), 0);
		}
	}
}

static void test_ats_constants(void)
{
	ib_net64_t sid = ATS_SERVICE_ID;
	const uint8_t want[8] = { 0x10, 0x00, 0x0C, 0xE1, 0x00, 0x41, 0x54, 0x53 };

	/* ATS_SERVICE_ID holds the bytes 10 00 0C E1 00 'A' 'T' 'S' in memory order. */
	CU_ASSERT_EQUAL(memcmp(&sid, want, 8), 0);
	CU_ASSERT_STRING_EQUAL(ATS_NAME, "DAPL Address Translation Service");
	CU_ASSERT_EQUAL(ATS_IPV4_OFFSET, 12);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_get_mad_buf_returns_buffer),
	TEST_ENTRY(test_get_mad_buf_other_fields_ignored),
	TEST_ENTRY(test_query_result_stride_from_attr_offset),
	TEST_ENTRY(test_query_result_last_record_fills_mad),
	TEST_ENTRY(test_query_path_rec),
	TEST_ENTRY(test_query_portinfo_rec),
	TEST_ENTRY(test_query_node_rec),
	TEST_ENTRY(test_query_svc_rec),
	TEST_ENTRY(test_query_helpers_leave_mad_unchanged),
#ifdef _DEBUG_
	TEST_ENTRY(test_debug_asserts),
#endif
	TEST_ENTRY(test_pnp_event_str_every_event),
	TEST_ENTRY(test_pnp_event_str_unknown),
	TEST_ENTRY(test_pnp_event_str_is_static),
	TEST_ENTRY(test_sync_destroy_marker),
	TEST_ENTRY(test_pnp_class_of_events),
	TEST_ENTRY(test_ats_constants),
};

TEST_MAIN("ib_al.h inline helpers", tests)
