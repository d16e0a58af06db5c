/*
 * ibal tests: the string lookups of ib_types.h and ib_copy_ca_attr().
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <iba/ib_types.h>
#include "../common/cl_test.h"

typedef struct {
	unsigned int value;
	const char *name;
} name_t;

#define N(v) { (unsigned int)(v), #v }

/* --- String lookups ----------------------------------------------------- */

static const name_t err_names[] = {
	N(IB_SUCCESS), N(IB_INSUFFICIENT_RESOURCES), N(IB_INSUFFICIENT_MEMORY),
	N(IB_INVALID_PARAMETER), N(IB_INVALID_SETTING), N(IB_NOT_FOUND), N(IB_TIMEOUT),
	N(IB_CANCELED), N(IB_INTERRUPTED), N(IB_INVALID_PERMISSION), N(IB_UNSUPPORTED),
	N(IB_OVERFLOW), N(IB_MAX_MCAST_QPS_REACHED), N(IB_INVALID_QP_STATE),
	N(IB_INVALID_APM_STATE), N(IB_INVALID_PORT_STATE), N(IB_INVALID_STATE),
	N(IB_RESOURCE_BUSY), N(IB_INVALID_PKEY), N(IB_INVALID_LKEY), N(IB_INVALID_RKEY),
	N(IB_INVALID_MAX_WRS), N(IB_INVALID_MAX_SGE), N(IB_INVALID_CQ_SIZE),
	N(IB_INVALID_SRQ_SIZE), N(IB_INVALID_SERVICE_TYPE), N(IB_INVALID_GID),
	N(IB_INVALID_LID), N(IB_INVALID_GUID), N(IB_INVALID_GUID_MASK),
	N(IB_INVALID_CA_HANDLE), N(IB_INVALID_AV_HANDLE), N(IB_INVALID_CQ_HANDLE),
	N(IB_INVALID_QP_HANDLE), N(IB_INVALID_SRQ_HANDLE), N(IB_INVALID_PD_HANDLE),
	N(IB_INVALID_MR_HANDLE), N(IB_INVALID_FMR_HANDLE), N(IB_INVALID_MW_HANDLE),
	N(IB_INVALID_MCAST_HANDLE), N(IB_INVALID_CALLBACK), N(IB_INVALID_AL_HANDLE),
	N(IB_INVALID_HANDLE), N(IB_ERROR), N(IB_REMOTE_ERROR), N(IB_VERBS_PROCESSING_DONE),
	N(IB_INVALID_WR_TYPE), N(IB_QP_IN_TIMEWAIT), N(IB_EE_IN_TIMEWAIT), N(IB_INVALID_PORT),
	N(IB_NOT_DONE), N(IB_INVALID_INDEX), N(IB_NO_MATCH), N(IB_PENDING),
	N(IB_UNKNOWN_ERROR),
};

static const name_t async_names[] = {
	N(IB_AE_SQ_ERROR), N(IB_AE_SQ_DRAINED), N(IB_AE_RQ_ERROR), N(IB_AE_CQ_ERROR),
	N(IB_AE_QP_FATAL), N(IB_AE_QP_COMM), N(IB_AE_QP_APM), N(IB_AE_LOCAL_FATAL),
	N(IB_AE_PKEY_TRAP), N(IB_AE_QKEY_TRAP), N(IB_AE_MKEY_TRAP), N(IB_AE_PORT_TRAP),
	N(IB_AE_SYSIMG_GUID_TRAP), N(IB_AE_BUF_OVERRUN), N(IB_AE_LINK_INTEGRITY),
	N(IB_AE_FLOW_CTRL_ERROR), N(IB_AE_BKEY_TRAP), N(IB_AE_QP_APM_ERROR),
	N(IB_AE_WQ_REQ_ERROR), N(IB_AE_WQ_ACCESS_ERROR), N(IB_AE_PORT_ACTIVE),
	N(IB_AE_PORT_DOWN), N(IB_AE_CLIENT_REREGISTER), N(IB_AE_SRQ_LIMIT_REACHED),
	N(IB_AE_SRQ_CATAS_ERROR), N(IB_AE_SRQ_QP_LAST_WQE_REACHED), N(IB_AE_RESET_DRIVER),
	N(IB_AE_RESET_CLIENT), N(IB_AE_RESET_END), N(IB_AE_RESET_FAILED),
	N(IB_AE_LID_CHANGE), N(IB_AE_PKEY_CHANGE), N(IB_AE_SM_CHANGE), N(IB_AE_GID_CHANGE),
	N(IB_AE_RESET_4_RMV), N(IB_AE_CQ_OVERFLOW), N(IB_AE_UNKNOWN),
};

static const name_t wc_status_names[] = {
	N(IB_WCS_SUCCESS), N(IB_WCS_LOCAL_LEN_ERR), N(IB_WCS_LOCAL_OP_ERR),
	N(IB_WCS_LOCAL_PROTECTION_ERR), N(IB_WCS_WR_FLUSHED_ERR), N(IB_WCS_MEM_WINDOW_BIND_ERR),
	N(IB_WCS_REM_ACCESS_ERR), N(IB_WCS_REM_OP_ERR), N(IB_WCS_RNR_RETRY_ERR),
	N(IB_WCS_TIMEOUT_RETRY_ERR), N(IB_WCS_REM_INVALID_REQ_ERR), N(IB_WCS_BAD_RESP_ERR),
	N(IB_WCS_LOCAL_ACCESS_ERR), N(IB_WCS_GENERAL_ERR), N(IB_WCS_UNMATCHED_RESPONSE),
	N(IB_WCS_CANCELED), N(IB_WCS_REM_ABORT_ERR), N(IB_WCS_UNKNOWN),
};

static const name_t wc_type_names[] = {
	N(IB_WC_SEND), N(IB_WC_RDMA_WRITE), N(IB_WC_RDMA_READ), N(IB_WC_COMPARE_SWAP),
	N(IB_WC_FETCH_ADD), N(IB_WC_MW_BIND), N(IB_WC_NOP), N(IB_WC_RECV),
	N(IB_WC_RECV_RDMA_WRITE), N(IB_WC_LSO), N(IB_WC_LOCAL_INV), N(IB_WC_FAST_REG_MR),
};

static const name_t qp_type_names[] = {
	N(IB_QPT_RELIABLE_CONN), N(IB_QPT_UNRELIABLE_CONN), N(IB_QPT_RELIABLE_DGRM),
	N(IB_QPT_UNRELIABLE_DGRM), N(IB_QPT_QP0), N(IB_QPT_QP1), N(IB_QPT_RAW_IPV6),
	N(IB_QPT_RAW_ETHER), N(IB_QPT_MAD), N(IB_QPT_QP0_ALIAS), N(IB_QPT_QP1_ALIAS),
	N(IB_QPT_UNKNOWN),
};

static const name_t wr_type_names[] = {
	N(WR_SEND), N(WR_RDMA_WRITE), N(WR_RDMA_READ), N(WR_COMPARE_SWAP), N(WR_FETCH_ADD),
	N(WR_LSO), N(WR_NOP), N(WR_LOCAL_INV), N(WR_FAST_REG_MR), N(WR_UNKNOWN),
};

/* Whether @p v is one of the @p n values of @p t. */
static int listed(const name_t *t, size_t n, unsigned int v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].value == v)
			return 1;
	return 0;
}

static void test_err_str(void)
{
	size_t i;

	for (i = 0; i < TEST_COUNT(err_names); i++)
		CU_ASSERT_STRING_EQUAL(ib_get_err_str((ib_api_status_t)err_names[i].value),
				       err_names[i].name);
	CU_ASSERT_EQUAL(TEST_COUNT(err_names), IB_UNKNOWN_ERROR + 1);
	CU_ASSERT_STRING_EQUAL(ib_get_err_str((ib_api_status_t)(IB_UNKNOWN_ERROR + 1)),
			       "IB_UNKNOWN_ERROR");
	CU_ASSERT_STRING_EQUAL(ib_get_err_str((ib_api_status_t)1000), "IB_UNKNOWN_ERROR");
	CU_ASSERT_STRING_EQUAL(ib_get_err_str((ib_api_status_t)-1), "IB_UNKNOWN_ERROR");
}

static void test_async_event_str(void)
{
	size_t i;

	for (i = 0; i < TEST_COUNT(async_names); i++)
		CU_ASSERT_STRING_EQUAL(ib_get_async_event_str((ib_async_event_t)async_names[i].value),
				       async_names[i].name);
	/* 0 is no event; OFED for Windows' table names it IB_AE_DUMMY. */
	CU_ASSERT_STRING_EQUAL(ib_get_async_event_str((ib_async_event_t)0), "IB_AE_DUMMY");
	CU_ASSERT_STRING_EQUAL(ib_get_async_event_str((ib_async_event_t)(IB_AE_UNKNOWN + 1)),
			       "IB_AE_UNKNOWN");
	CU_ASSERT_STRING_EQUAL(ib_get_async_event_str((ib_async_event_t)0x7FFFFFFF), "IB_AE_UNKNOWN");
	CU_ASSERT_STRING_EQUAL(ib_get_async_event_str((ib_async_event_t)-1), "IB_AE_UNKNOWN");
}

static void test_wc_status_str(void)
{
	size_t i;

	for (i = 0; i < TEST_COUNT(wc_status_names); i++)
		CU_ASSERT_STRING_EQUAL(ib_get_wc_status_str((ib_wc_status_t)wc_status_names[i].value),
				       wc_status_names[i].name);
	CU_ASSERT_STRING_EQUAL(ib_get_wc_status_str((ib_wc_status_t)(IB_WCS_UNKNOWN + 1)),
			       "IB_WCS_UNKNOWN");
	CU_ASSERT_STRING_EQUAL(ib_get_wc_status_str((ib_wc_status_t)-1), "IB_WCS_UNKNOWN");
}

static void test_wc_type_str(void)
{
	unsigned int v;
	size_t i;

	for (i = 0; i < TEST_COUNT(wc_type_names); i++)
		CU_ASSERT_STRING_EQUAL(ib_get_wc_type_str((ib_wc_type_t)wc_type_names[i].value),
				       wc_type_names[i].name);
	CU_ASSERT_STRING_EQUAL(ib_get_wc_type_str(IB_WC_UNKNOWN1), "IB_WC_UNKNOWN");
	CU_ASSERT_STRING_EQUAL(ib_get_wc_type_str(IB_WC_UNKNOWN2), "IB_WC_UNKNOWN");
	/* Everything else, including the gap between the send and receive types. */
	for (v = 0; v < 0x400; v++) {
		if (listed(wc_type_names, TEST_COUNT(wc_type_names), v))
			continue;
		CU_ASSERT_STRING_EQUAL(ib_get_wc_type_str((ib_wc_type_t)v), "IB_WC_UNKNOWN");
	}
	CU_ASSERT_STRING_EQUAL(ib_get_wc_type_str((ib_wc_type_t)-1), "IB_WC_UNKNOWN");
}

static void test_qp_type_str(void)
{
	unsigned int v;
	size_t i;

	for (i = 0; i < TEST_COUNT(qp_type_names); i++)
		CU_ASSERT_STRING_EQUAL(ib_get_qp_type_str((uint8_t)qp_type_names[i].value),
				       qp_type_names[i].name);
	for (v = IB_QPT_UNKNOWN + 1; v <= 0xFF; v++)
		CU_ASSERT_STRING_EQUAL(ib_get_qp_type_str((uint8_t)v), "IB_QPT_UNKNOWN");
}

static void test_wr_type_str(void)
{
	unsigned int v;
	size_t i;

	for (i = 0; i < TEST_COUNT(wr_type_names); i++)
		CU_ASSERT_STRING_EQUAL(ib_get_wr_type_str((uint8_t)wr_type_names[i].value),
				       wr_type_names[i].name);
	for (v = WR_UNKNOWN + 1; v <= 0xFF; v++)
		CU_ASSERT_STRING_EQUAL(ib_get_wr_type_str((uint8_t)v), "WR_UNKNOWN");
}

/* --- RDMA IP CM service IDs and private data ----------------------------- */

static void test_rdma_cm_sid(void)
{
	/* Annex A11: 00 00 00 00 01 <protocol> <port, big-endian>. */
	static const uint8_t want[8] = { 0, 0, 0, 0, 0x01, 0x06, 0x12, 0x34 };
	net64_t sid = ib_cm_rdma_sid(6, cl_hton16(0x1234));
	net64_t other;

	CU_ASSERT_EQUAL(memcmp(&sid, want, 8), 0);
	CU_ASSERT_EQUAL(ib_cm_rdma_cm_sid(6, cl_hton16(0x1234)), sid);
	CU_ASSERT_TRUE(ib_cm_is_rdma_cm_sid(sid));
	CU_ASSERT_EQUAL(ib_cm_rdma_sid_port(sid), cl_hton16(0x1234));
	CU_ASSERT_EQUAL(ib_cm_rdma_sid_protocol(sid), 6);
	sid = ib_cm_rdma_sid(0x11, cl_hton16(0xFFFE));
	CU_ASSERT_TRUE(ib_cm_is_rdma_cm_sid(sid));
	CU_ASSERT_EQUAL(ib_cm_rdma_sid_port(sid), cl_hton16(0xFFFE));
	CU_ASSERT_EQUAL(ib_cm_rdma_sid_protocol(sid), 0x11);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* On little-endian hosts the prefix constants test the same thing. */
	CU_ASSERT_EQUAL(sid & IB_REQ_CM_RDMA_SID_PREFIX_MASK, IB_REQ_CM_RDMA_SID_PREFIX);
#endif
	/* Other prefixes are not RDMA CM service IDs. */
	CU_ASSERT_FALSE(ib_cm_is_rdma_cm_sid(CL_HTON64(0x0000000002061234ULL)));
	CU_ASSERT_FALSE(ib_cm_is_rdma_cm_sid(CL_HTON64(0x0100000001061234ULL)));
	CU_ASSERT_FALSE(ib_cm_is_rdma_cm_sid(CL_HTON64(0x10000CE100415453ULL)));
	other = CL_HTON64(0x0000000001000000ULL);
	CU_ASSERT_TRUE(ib_cm_is_rdma_cm_sid(other));
}

static void test_rdma_cm_req_valid(void)
{
	ib_cm_rdma_req_t req;

	memset(&req, 0, sizeof(req));
	req.maj_min_ver = IB_REQ_CM_RDMA_VERSION;
	req.ipv = IB_REQ_CM_RDMA_IPV4;
	CU_ASSERT_TRUE(ib_cm_is_rdma_cm_req_valid(&req));
	req.ipv = IB_REQ_CM_RDMA_IPV6;
	CU_ASSERT_TRUE(ib_cm_is_rdma_cm_req_valid(&req));
	req.ipv = 0x50;
	CU_ASSERT_FALSE(ib_cm_is_rdma_cm_req_valid(&req));
	req.ipv = IB_REQ_CM_RDMA_IPV4;
	req.maj_min_ver = 0x10;
	CU_ASSERT_FALSE(ib_cm_is_rdma_cm_req_valid(&req));
}

/* --- ib_copy_ca_attr ---------------------------------------------------- */

#define NUM_PORTS 2
#define NUM_PAGE_SIZES 2
static const uint16_t num_gids[NUM_PORTS] = { 3, 2 };
static const uint16_t num_pkeys[NUM_PORTS] = { 4, 5 };
static const uint32_t page_sizes[NUM_PAGE_SIZES] = { 4096, 65536 };

static uint8_t gid_byte(unsigned int port, unsigned int entry, unsigned int k)
{
	return (uint8_t)(port * 64 + entry * 16 + k);
}

static ib_net16_t pkey_value(unsigned int port, unsigned int entry)
{
	return cl_hton16((uint16_t)(0x8000 | (port << 8) | entry));
}

static void fill_header(ib_ca_attr_t *ca, uint32_t size)
{
	memset(ca, 0, sizeof(*ca));
	ca->ca_guid = CL_HTON64(0x0002C90300ABCDEFULL);
	ca->vend_id = 0x02C9;
	ca->dev_id = 0x1003;
	ca->revision = 1;
	ca->fw_ver = 0x0002000A0001ULL;
	ca->size = size;
	ca->max_qps = 1000;
	ca->max_addr_handles = 0x100000000ULL;
	ca->atomicity = IB_ATOMIC_LOCAL;
	ca->max_sq_desc_sz = 1008;
	ca->local_ack_delay = 15;
	ca->apm_support = TRUE;
	ca->ipoib_csum = TRUE;
	ca->system_image_guid = CL_HTON64(0x0002C90300ABCDF0ULL);
	ca->num_page_sizes = NUM_PAGE_SIZES;
	ca->num_ports = NUM_PORTS;
}

static void fill_port(ib_port_attr_t *port, unsigned int i)
{
	memset(port, 0, sizeof(*port));
	port->port_guid = cl_hton64(0x0002C90300ABCD00ULL + i);
	port->port_num = (uint8_t)(i + 1);
	port->mtu = IB_MTU_LEN_2048;
	port->transport = RDMA_TRANSPORT_IB;
	port->max_msg_size = 0x80000000ULL;
	port->lid = cl_hton16((uint16_t)(0x10 + i));
	port->link_state = IB_LINK_ACTIVE;
	port->cap.cm = TRUE;
	port->cap.client_reregister = TRUE;
	port->num_gids = num_gids[i];
	port->num_pkeys = num_pkeys[i];
}

static void fill_tables(ib_gid_t *gids, ib_net16_t *pkeys, unsigned int i)
{
	unsigned int j, k;

	for (j = 0; j < num_gids[i]; j++)
		for (k = 0; k < 16; k++)
			gids[j].raw[k] = gid_byte(i, j, k);
	for (j = 0; j < num_pkeys[i]; j++)
		pkeys[j] = pkey_value(i, j);
}

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Bytes a contiguous block built by build_block() needs, plus @p extra vendor bytes. */
static size_t block_size(size_t extra)
{
	size_t n = round8(sizeof(ib_ca_attr_t)) + NUM_PORTS * sizeof(ib_port_attr_t) +
		   round8(NUM_PAGE_SIZES * sizeof(uint32_t));
	unsigned int i;

	for (i = 0; i < NUM_PORTS; i++)
		n += round8(num_gids[i] * sizeof(ib_gid_t)) + round8(num_pkeys[i] * sizeof(ib_net16_t));
	return n + extra;
}

/*
 * Builds in @p buf the attribute block of a two-port CA, laid out as a
 * provider would: structure, port array, page sizes, then each port's GID
 * and P_Key tables; @p extra vendor bytes (0x5A) follow.
 */
static ib_ca_attr_t *build_block(void *buf, size_t extra)
{
	uint8_t *base = (uint8_t *)buf;
	size_t size = block_size(extra), off;
	ib_ca_attr_t *ca = (ib_ca_attr_t *)buf;
	unsigned int i;

	memset(buf, 0x5A, size);
	fill_header(ca, (uint32_t)size);
	off = round8(sizeof(*ca));
	ca->p_port_attr = (ib_port_attr_t *)(base + off);
	off += NUM_PORTS * sizeof(ib_port_attr_t);
	ca->p_page_size = (uint32_t *)(base + off);
	memcpy(ca->p_page_size, page_sizes, sizeof(page_sizes));
	off += round8(sizeof(page_sizes));
	for (i = 0; i < NUM_PORTS; i++) {
		ib_port_attr_t *port = &ca->p_port_attr[i];

		fill_port(port, i);
		port->p_gid_table = (ib_gid_t *)(base + off);
		off += round8(num_gids[i] * sizeof(ib_gid_t));
		port->p_pkey_table = (ib_net16_t *)(base + off);
		off += round8(num_pkeys[i] * sizeof(ib_net16_t));
		fill_tables(port->p_gid_table, port->p_pkey_table, i);
	}
	return ca;
}

/* Whether the @p len bytes at @p p lie within the @p size bytes at @p base. */
static int inside(const void *base, size_t size, const void *p, size_t len)
{
	const uint8_t *b = (const uint8_t *)base, *a = (const uint8_t *)p;

	return a >= b && a + len <= b + size;
}

/*
 * Checks that @p ca describes the two-port CA of build_block() and that all
 * its arrays lie within the @p size bytes at @p ca.
 */
static void check_ca(const ib_ca_attr_t *ca, size_t size)
{
	ib_ca_attr_t hdr;
	ib_port_attr_t port;
	unsigned int i, j;

	fill_header(&hdr, (uint32_t)size);
	CU_ASSERT_EQUAL(memcmp(ca, &hdr, offsetof(ib_ca_attr_t, p_page_size)), 0);
	CU_ASSERT_TRUE(inside(ca, size, ca->p_page_size, sizeof(page_sizes)));
	CU_ASSERT_TRUE(inside(ca, size, ca->p_port_attr, NUM_PORTS * sizeof(ib_port_attr_t)));
	if (!inside(ca, size, ca->p_page_size, sizeof(page_sizes)) ||
	    !inside(ca, size, ca->p_port_attr, NUM_PORTS * sizeof(ib_port_attr_t)))
		return;
	CU_ASSERT_EQUAL(memcmp(ca->p_page_size, page_sizes, sizeof(page_sizes)), 0);
	for (i = 0; i < NUM_PORTS; i++) {
		const ib_port_attr_t *p = &ca->p_port_attr[i];

		fill_port(&port, i);
		CU_ASSERT_EQUAL(memcmp(p, &port, offsetof(ib_port_attr_t, p_gid_table)), 0);
		CU_ASSERT_TRUE(inside(ca, size, p->p_gid_table, num_gids[i] * sizeof(ib_gid_t)));
		CU_ASSERT_TRUE(inside(ca, size, p->p_pkey_table, num_pkeys[i] * sizeof(ib_net16_t)));
		if (!inside(ca, size, p->p_gid_table, num_gids[i] * sizeof(ib_gid_t)) ||
		    !inside(ca, size, p->p_pkey_table, num_pkeys[i] * sizeof(ib_net16_t)))
			continue;
		for (j = 0; j < num_gids[i]; j++)
			CU_ASSERT_EQUAL(p->p_gid_table[j].raw[15], gid_byte(i, j, 15));
		for (j = 0; j < num_gids[i]; j++)
			CU_ASSERT_EQUAL(p->p_gid_table[j].raw[0], gid_byte(i, j, 0));
		for (j = 0; j < num_pkeys[i]; j++)
			CU_ASSERT_EQUAL(p->p_pkey_table[j], pkey_value(i, j));
	}
}

/* A buffer aligned for ib_ca_attr_t, filled with @p fill. */
static void *alloc_filled(size_t size, int fill)
{
	void *p = malloc(size);

	if (p)
		memset(p, fill, size);
	return p;
}

static void test_copy_contiguous(void)
{
	size_t size = block_size(24);
	void *src_buf = alloc_filled(size, 0), *dst_buf = alloc_filled(size, 0xEE);
	ib_ca_attr_t *src, *dst;
	size_t i;

	CU_ASSERT_FATAL(src_buf && dst_buf);
	src = build_block(src_buf, 24);
	check_ca(src, size);
	dst = ib_copy_ca_attr((ib_ca_attr_t *)dst_buf, src);
	CU_ASSERT_PTR_EQUAL(dst, dst_buf);
	/* The copy is byte-identical except for the relocated pointers... */
	CU_ASSERT_EQUAL(dst->size, size);
	CU_ASSERT_EQUAL((uint8_t *)dst->p_port_attr - (uint8_t *)dst,
			(uint8_t *)src->p_port_attr - (uint8_t *)src);
	CU_ASSERT_EQUAL((uint8_t *)dst->p_port_attr[1].p_pkey_table - (uint8_t *)dst,
			(uint8_t *)src->p_port_attr[1].p_pkey_table - (uint8_t *)src);
	/* ...and keeps the vendor bytes after the arrays. */
	for (i = size - 24; i < size; i++)
		CU_ASSERT_EQUAL(((uint8_t *)dst_buf)[i], 0x5A);
	/* Independent of the source: scribble over it and free it first. */
	memset(src_buf, 0xC3, size);
	free(src_buf);
	check_ca(dst, size);
	free(dst_buf);
}

static void test_copy_of_copy(void)
{
	size_t size = block_size(0);
	void *a = alloc_filled(size, 0), *b = alloc_filled(size, 0), *c = alloc_filled(size, 0);

	CU_ASSERT_FATAL(a && b && c);
	CU_ASSERT_PTR_EQUAL(ib_copy_ca_attr((ib_ca_attr_t *)b, build_block(a, 0)), b);
	free(a);
	CU_ASSERT_PTR_EQUAL(ib_copy_ca_attr((ib_ca_attr_t *)c, (ib_ca_attr_t *)b), c);
	free(b);
	check_ca((ib_ca_attr_t *)c, size);
	free(c);
}

static void test_copy_overlapping(void)
{
	size_t size = block_size(0);
	uint8_t *buf = (uint8_t *)alloc_filled(size + 64, 0);

	CU_ASSERT_FATAL(buf != NULL);
	build_block(buf, 0);
	/* The block moves 40 bytes up, over itself. */
	CU_ASSERT_PTR_EQUAL(ib_copy_ca_attr((ib_ca_attr_t *)(buf + 40), (ib_ca_attr_t *)buf),
			    buf + 40);
	memset(buf, 0xC3, 40);
	check_ca((ib_ca_attr_t *)(buf + 40), size);
	free(buf);
}

/* The arrays live in separate allocations, outside the source block. */
static void test_copy_scattered(void)
{
	size_t need = block_size(0);
	ib_ca_attr_t src;
	ib_port_attr_t ports[NUM_PORTS];
	ib_gid_t gids0[3], gids1[2];
	ib_net16_t pkeys0[4], pkeys1[5];
	uint32_t pages[NUM_PAGE_SIZES];
	void *dst_buf = alloc_filled(need, 0xEE), *small = alloc_filled(sizeof(src), 0xEE);
	unsigned int i;

	CU_ASSERT_FATAL(dst_buf && small);
	fill_header(&src, (uint32_t)need);
	memcpy(pages, page_sizes, sizeof(pages));
	src.p_page_size = pages;
	src.p_port_attr = ports;
	for (i = 0; i < NUM_PORTS; i++)
		fill_port(&ports[i], i);
	ports[0].p_gid_table = gids0;
	ports[0].p_pkey_table = pkeys0;
	ports[1].p_gid_table = gids1;
	ports[1].p_pkey_table = pkeys1;
	fill_tables(gids0, pkeys0, 0);
	fill_tables(gids1, pkeys1, 1);

	CU_ASSERT_PTR_EQUAL(ib_copy_ca_attr((ib_ca_attr_t *)dst_buf, &src), dst_buf);
	memset(gids0, 0, sizeof(gids0));
	memset(pkeys1, 0, sizeof(pkeys1));
	memset(ports, 0, sizeof(ports));
	check_ca((ib_ca_attr_t *)dst_buf, need);

	/* A size that cannot hold the arrays: refused, nothing written. */
	for (i = 0; i < NUM_PORTS; i++)
		fill_port(&ports[i], i);
	src.size = sizeof(src);
	CU_ASSERT_PTR_NULL(ib_copy_ca_attr((ib_ca_attr_t *)small, &src));
	for (i = 0; i < sizeof(src); i++)
		CU_ASSERT_EQUAL(((uint8_t *)small)[i], 0xEE);
	free(dst_buf);
	free(small);
}

static void test_copy_no_ports(void)
{
	ib_ca_attr_t src, dst;

	fill_header(&src, sizeof(src));
	src.num_ports = 0;
	src.num_page_sizes = 0;
	src.p_port_attr = NULL;
	src.p_page_size = NULL;
	memset(&dst, 0xEE, sizeof(dst));
	CU_ASSERT_PTR_EQUAL(ib_copy_ca_attr(&dst, &src), &dst);
	CU_ASSERT_EQUAL(memcmp(&dst, &src, offsetof(ib_ca_attr_t, p_page_size)), 0);
	CU_ASSERT_PTR_NULL(dst.p_page_size);
	CU_ASSERT_PTR_NULL(dst.p_port_attr);
}

static void test_copy_invalid(void)
{
	size_t size = block_size(0);
	void *src_buf = alloc_filled(size, 0), *dst_buf = alloc_filled(size, 0xEE);
	ib_ca_attr_t *src;
	size_t i;

	CU_ASSERT_FATAL(src_buf && dst_buf);
	src = build_block(src_buf, 0);
	CU_ASSERT_PTR_NULL(ib_copy_ca_attr(NULL, src));
	CU_ASSERT_PTR_NULL(ib_copy_ca_attr((ib_ca_attr_t *)dst_buf, NULL));

	/* size smaller than the structure itself */
	src->size = sizeof(*src) - 1;
	CU_ASSERT_PTR_NULL(ib_copy_ca_attr((ib_ca_attr_t *)dst_buf, src));
	/* size too small for the arrays it claims to hold */
	src->size = (uint32_t)(size - 8);
	CU_ASSERT_PTR_NULL(ib_copy_ca_attr((ib_ca_attr_t *)dst_buf, src));
	src->size = (uint32_t)size;

	/* an array with entries but no pointer */
	src->p_port_attr[1].p_pkey_table = NULL;
	CU_ASSERT_PTR_NULL(ib_copy_ca_attr((ib_ca_attr_t *)dst_buf, src));
	src = build_block(src_buf, 0);
	src->p_page_size = NULL;
	CU_ASSERT_PTR_NULL(ib_copy_ca_attr((ib_ca_attr_t *)dst_buf, src));
	src = build_block(src_buf, 0);
	src->p_port_attr = NULL;
	CU_ASSERT_PTR_NULL(ib_copy_ca_attr((ib_ca_attr_t *)dst_buf, src));

	/* None of the refused calls wrote anything. */
	for (i = 0; i < size; i++)
		if (((uint8_t *)dst_buf)[i] != 0xEE)
			break;
	CU_ASSERT_EQUAL(i, size);

	/* Copying a block onto itself leaves it as it is. */
	src = build_block(src_buf, 0);
	CU_ASSERT_PTR_EQUAL(ib_copy_ca_attr(src, src), src);
	check_ca(src, size);
	free(src_buf);
	free(dst_buf);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_err_str),
	TEST_ENTRY(test_async_event_str),
	TEST_ENTRY(test_wc_status_str),
	TEST_ENTRY(test_wc_type_str),
	TEST_ENTRY(test_qp_type_str),
	TEST_ENTRY(test_wr_type_str),
	TEST_ENTRY(test_rdma_cm_sid),
	TEST_ENTRY(test_rdma_cm_req_valid),
	TEST_ENTRY(test_copy_contiguous),
	TEST_ENTRY(test_copy_of_copy),
	TEST_ENTRY(test_copy_overlapping),
	TEST_ENTRY(test_copy_scattered),
	TEST_ENTRY(test_copy_no_ports),
	TEST_ENTRY(test_copy_invalid),
};

TEST_MAIN("ib_types verbs", tests)
