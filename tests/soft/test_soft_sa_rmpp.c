/*
 * ibal tests: the soft SA (core/soft/subnet/soft_sa*.c) as an RMPP sender, on malformed input and under threads.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/* RMPP windows, retransmission, abort/stop, ACK styles and repeated requests; garbage and
 * truncated MADs; concurrent callers. The records/path/service/mcast/inform tests are in
 * test_soft_sa.c; both use the harness in soft_sa_test.h. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "soft_sa_test.h"

/* ------------------------------------------------------------------ */
/* Tests                                                               */
/* ------------------------------------------------------------------ */

/* Hundreds of records in windows of 16; checks segment flags and lengths. */
static void test_rmpp_large_table(void)
{
	soft_sa_t *sa = mk_sa();
	ib_sa_mad_t m;
	table_t t;
	size_t i, first;
	unsigned n = 300;

	for (i = 1; i <= n; i++) {
		soft_sa_port_t p = mk_port((unsigned)i, (uint16_t)i, IB_LINK_ACTIVE);

		soft_sa_port_update(sa, &p);
	}
	first = ncap;
	m = req(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
	t = table(sa, &m, 16);
	CU_ASSERT_TRUE_FATAL(t.ok);
	CU_ASSERT_EQUAL(t.nseg, (n * 112 + 199) / 200);
	CU_ASSERT_EQUAL(nrecs(&t), n);
	CU_ASSERT_EQUAL(t.first_paylen, t.nseg * 20 + n * 112);
	CU_ASSERT_EQUAL(t.last_paylen, 20 + n * 112 - (t.nseg - 1) * 200);
	for (i = 0; i < n; i++) {
		const ib_node_record_t *nr = (const ib_node_record_t *)(t.data + i * 112);

		CU_ASSERT_EQUAL(cl_ntoh64(nr->node_info.node_guid), 0x100u + cl_ntoh16(nr->lid));
	}
	/* exactly one copy of each segment went out (no ACK was late) */
	CU_ASSERT_EQUAL(ncap - first, t.nseg);
	/* the first window held one segment: segment 2 came after the first ACK */
	CU_ASSERT_EQUAL(cl_ntoh32(cap_sa(first)->seg_num), 1);
	for (i = first; i < ncap; i++) {
		uint8_t f = cap_sa(i)->rmpp_flags;
		uint32_t seg = cl_ntoh32(cap_sa(i)->seg_num);

		CU_ASSERT(f & IB_RMPP_FLAG_ACTIVE);
		CU_ASSERT_EQUAL(!!(f & IB_RMPP_FLAG_FIRST), seg == 1);
		CU_ASSERT_EQUAL(!!(f & IB_RMPP_FLAG_LAST), seg == t.nseg);
		if (seg != 1 && seg != t.nseg)
			CU_ASSERT_EQUAL(cap_sa(i)->paylen_newwin, 0);
		CU_ASSERT_EQUAL(cap_sa(i)->trans_id, m.trans_id);
		CU_ASSERT_EQUAL(cl_ntoh16(cap_sa(i)->attr_offset), 14);
	}
	CU_ASSERT_EQUAL(soft_sa_timer(sa, fake_now), UINT64_MAX);
	free(t.data);
	destroy(sa);
}

static void test_rmpp_lost_ack_retransmit(void)
{
	soft_sa_t *sa = mk_sa();
	ib_sa_mad_t m;
	table_t t;
	size_t i, first;
	uint64_t next;

	for (i = 1; i <= 50; i++) {
		soft_sa_port_t p = mk_port((unsigned)i, (uint16_t)i, IB_LINK_ACTIVE);

		soft_sa_port_update(sa, &p);
	}
	memset(&t, 0, sizeof(t));
	first = ncap;
	m = req(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
	send_to(sa, &m, 2); /* 28 segments; segment 1 sent */
	CU_ASSERT_EQUAL(ncap, first + 1);
	/* ACK 1 with window 5: segments 2..5 */
	rmpp_ctl(sa, cap_sa(first), IB_RMPP_TYPE_ACK, 1, 5, 0);
	CU_ASSERT_EQUAL(ncap, first + 5);
	/* the ACK of 5 is lost: after the timeout 2..5 are sent again */
	next = soft_sa_timer(sa, fake_now);
	CU_ASSERT(next > fake_now && next <= fake_now + 1000000);
	soft_sa_timer(sa, next - 1);
	CU_ASSERT_EQUAL(ncap, first + 5);
	fake_now = next;
	soft_sa_timer(sa, fake_now);
	CU_ASSERT_EQUAL(ncap, first + 9);
	CU_ASSERT_EQUAL(cl_ntoh32(cap_sa(first + 5)->seg_num), 2);
	CU_ASSERT_EQUAL(cl_ntoh32(cap_sa(first + 8)->seg_num), 5);
	/* an old ACK is ignored */
	rmpp_ctl(sa, cap_sa(first), IB_RMPP_TYPE_ACK, 0, 1, 0);
	CU_ASSERT_EQUAL(ncap, first + 9);
	/* the receiver now ACKs 5 (window to 10) and takes the rest */
	t.nseg = 5;
	t.win_last = 10;
	t.data = calloc(5, 200);
	i = ncap;
	rmpp_ctl(sa, cap_sa(first), IB_RMPP_TYPE_ACK, 5, 10, 0);
	CU_ASSERT_EQUAL(ncap, i + 5); /* 6..10 */
	CU_ASSERT_EQUAL(cl_ntoh32(cap_sa(i)->seg_num), 6);
	while (!table_collect(sa, &t, &i, 5, true) && i < ncap)
		;
	CU_ASSERT_TRUE(t.ok);
	CU_ASSERT_EQUAL(t.nseg, (50 * 112 + 199) / 200);
	CU_ASSERT_EQUAL(soft_sa_timer(sa, fake_now), UINT64_MAX);
	free(t.data);
	destroy(sa);
}

static void test_rmpp_abort_and_errors(void)
{
	soft_sa_t *sa = mk_sa();
	ib_sa_mad_t m;
	size_t i, first;
	int k;

	for (i = 1; i <= 20; i++) {
		soft_sa_port_t p = mk_port((unsigned)i, (uint16_t)i, IB_LINK_ACTIVE);

		soft_sa_port_update(sa, &p);
	}
	/* the receiver aborts */
	first = ncap;
	m = req(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
	send_to(sa, &m, 2);
	rmpp_ctl(sa, cap_sa(first), IB_RMPP_TYPE_ABORT, 0, 0, IB_RMPP_STATUS_UNSPEC);
	CU_ASSERT_EQUAL(soft_sa_timer(sa, fake_now), UINT64_MAX);
	CU_ASSERT_EQUAL(ncap, first + 1);
	/* STOP too */
	first = ncap;
	m = req(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
	send_to(sa, &m, 2);
	rmpp_ctl(sa, cap_sa(first), IB_RMPP_TYPE_STOP, 0, 0, IB_RMPP_STATUS_RESX);
	CU_ASSERT_EQUAL(soft_sa_timer(sa, fake_now), UINT64_MAX);
	/* ACK of a segment never sent: abort S2B */
	first = ncap;
	m = req(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
	send_to(sa, &m, 2);
	rmpp_ctl(sa, cap_sa(first), IB_RMPP_TYPE_ACK, 7, 9, 0);
	CU_ASSERT_EQUAL(cap_sa(ncap - 1)->rmpp_type, IB_RMPP_TYPE_ABORT);
	CU_ASSERT_EQUAL(cap_sa(ncap - 1)->rmpp_status, IB_RMPP_STATUS_S2B);
	/* window below the segment: abort W2S */
	first = ncap;
	m = req(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
	send_to(sa, &m, 2);
	rmpp_ctl(sa, cap_sa(first), IB_RMPP_TYPE_ACK, 1, 0, 0);
	CU_ASSERT_EQUAL(cap_sa(ncap - 1)->rmpp_status, IB_RMPP_STATUS_W2S);
	CU_ASSERT_EQUAL(soft_sa_timer(sa, fake_now), UINT64_MAX);
	/* a receiver that is gone: 5 retransmissions then ABORT TMR */
	first = ncap;
	m = req(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
	send_to(sa, &m, 2);
	for (k = 0; k < 10; k++) {
		uint64_t next = soft_sa_timer(sa, fake_now);

		if (next == UINT64_MAX)
			break;
		fake_now = next;
	}
	CU_ASSERT_EQUAL(ncap, first + 1 + 5 + 1);
	CU_ASSERT_EQUAL(cap_sa(ncap - 1)->rmpp_type, IB_RMPP_TYPE_ABORT);
	CU_ASSERT_EQUAL(cap_sa(ncap - 1)->rmpp_status, IB_RMPP_STATUS_TMR);
	/* an ACK for no transfer is ignored */
	first = ncap;
	rmpp_ctl(sa, cap_sa(ncap - 1), IB_RMPP_TYPE_ACK, 1, 1, 0);
	CU_ASSERT_EQUAL(ncap, first);
	/* destroy with a transfer in progress */
	m = req(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
	send_to(sa, &m, 2);
	destroy(sa);
}

static void test_malformed(void)
{
	soft_sa_t *sa = mk_sa();
	ib_sa_mad_t m;
	soft_mad_addr_t a = from(2);
	size_t before;
	unsigned k;

	add_ports(sa, 2);
	/* truncated: dropped */
	m = req(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
	before = ncap;
	soft_sa_recv(sa, (const ib_mad_t *)&m, 100, &a);
	soft_sa_recv(sa, (const ib_mad_t *)&m, 0, &a);
	soft_sa_recv(sa, NULL, 256, &a);
	soft_sa_recv(NULL, (const ib_mad_t *)&m, 256, &a);
	CU_ASSERT_EQUAL(ncap, before);
	/* bad base version / class: dropped */
	m.base_ver = 2;
	send_to(sa, &m, 2);
	m.base_ver = 1;
	m.mgmt_class = IB_MCLASS_PERF;
	send_to(sa, &m, 2);
	CU_ASSERT_EQUAL(ncap, before);
	/* class version */
	m = req(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
	m.class_ver = 1;
	CU_ASSERT_EQUAL(ask(sa, &m)->status, IB_MAD_STATUS_UNSUP_CLASS_VER);
	/* unknown method, unknown attribute, method not for the attribute */
	m = req(0x33, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
	CU_ASSERT_EQUAL(ask(sa, &m)->status, IB_MAD_STATUS_UNSUP_METHOD);
	m = req(IB_MAD_METHOD_GET, cl_hton16(0x0099), 0, NULL, 0);
	CU_ASSERT_EQUAL(ask(sa, &m)->status, IB_MAD_STATUS_UNSUP_METHOD_ATTR);
	m = req(IB_MAD_METHOD_SET, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
	CU_ASSERT_EQUAL(ask(sa, &m)->status, IB_MAD_STATUS_UNSUP_METHOD_ATTR);
	m = req(IB_MAD_METHOD_DELETE, IB_MAD_ATTR_PATH_RECORD, 0, NULL, 0);
	CU_ASSERT_EQUAL(ask(sa, &m)->status, IB_MAD_STATUS_UNSUP_METHOD_ATTR);
	/* RMPP on a Get */
	m = req(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
	m.rmpp_version = 1;
	m.rmpp_type = IB_RMPP_TYPE_DATA;
	m.rmpp_flags = IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST;
	CU_ASSERT_EQUAL(ask(sa, &m)->status, IB_SA_MAD_STATUS_REQ_INVALID);
	/* wrong attribute offset */
	m = req(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
	m.attr_offset = cl_hton16(3);
	CU_ASSERT_EQUAL(ask(sa, &m)->status, IB_SA_MAD_STATUS_REQ_INVALID);
	m.attr_offset = cl_hton16(14);
	CU_ASSERT_EQUAL(ask(sa, &m)->status, IB_SA_MAD_STATUS_TOO_MANY_RECORDS);
	/* an error answer to a GetTable is one MAD without RMPP, AttributeOffset 0 */
	m = req(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
	m.attr_offset = cl_hton16(3);
	{
		const ib_sa_mad_t *r = ask(sa, &m);

		CU_ASSERT_EQUAL(r->status, IB_SA_MAD_STATUS_REQ_INVALID);
		CU_ASSERT_EQUAL(r->method, IB_MAD_METHOD_GETTABLE_RESP);
		CU_ASSERT_EQUAL(r->rmpp_flags, 0);
		CU_ASSERT_EQUAL(r->attr_offset, 0);
		CU_ASSERT_EQUAL(r->sm_key, 0);
	}
	CU_ASSERT_EQUAL(soft_sa_timer(sa, fake_now), UINT64_MAX);
	/* responses and traps sent to the SA are not answered */
	before = ncap;
	m = req(IB_MAD_METHOD_GET_RESP, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
	send_to(sa, &m, 2);
	m = req(IB_MAD_METHOD_TRAP, IB_MAD_ATTR_NOTICE, 0, NULL, 0);
	send_to(sa, &m, 2);
	m = req(IB_MAD_METHOD_REPORT_RESP, IB_MAD_ATTR_NOTICE, 0, NULL, 0);
	send_to(sa, &m, 2);
	CU_ASSERT_EQUAL(ncap, before);
	/* random contents (valid class): answered or dropped, never a crash */
	srand(7);
	for (k = 0; k < 3000; k++) {
		size_t j;

		for (j = 0; j < sizeof(m); j++)
			((uint8_t *)&m)[j] = (uint8_t)rand();
		m.base_ver = 1;
		m.mgmt_class = IB_MCLASS_SUBN_ADM;
		if (k % 2)
			m.class_ver = 2;
		if (k % 3)
			m.method &= 0x7F;
		if (k % 5 == 0)
			m.attr_id = IB_MAD_ATTR_MCMEMBER_RECORD;
		else if (k % 5 == 1)
			m.attr_id = IB_MAD_ATTR_PATH_RECORD;
		else if (k % 5 == 2)
			m.attr_id = IB_MAD_ATTR_SERVICE_RECORD;
		if (k % 7 == 0)
			m.attr_offset = 0;
		send_to(sa, &m, (uint16_t)(1 + k % 3));
		if (ncap > MAXCAP - 64)
			ncap = 0;
		fake_now += 50000;
		soft_sa_timer(sa, fake_now);
	}
	destroy(sa);
	/* the last test of this program: release the capture buffer */
	free(caps);
	caps = NULL;
}

static void test_rmpp_ack_styles(void)
{
	soft_sa_t *sa = mk_sa();
	ib_sa_mad_t m;
	table_t t;
	uint64_t tid[2] = { 0x1040, 0x1080 }; /* R bit kept / flipped by rmpp_ctl */
	int k;

	add_ports(sa, 5);
	for (k = 0; k < 2; k++) {
		m = req(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
		m.trans_id = cl_hton64(tid[k]);
		t = table(sa, &m, 1);
		CU_ASSERT_TRUE(t.ok);
		CU_ASSERT_EQUAL(nrecs(&t), 5);
		CU_ASSERT_EQUAL(soft_sa_timer(sa, fake_now), UINT64_MAX);
		free(t.data);
	}
	destroy(sa);
}

static void test_rmpp_repeated_request(void)
{
	soft_sa_t *sa = mk_sa();
	ib_sa_mad_t m;
	table_t t;
	size_t i, first;
	uint64_t tid;

	for (i = 1; i <= 20; i++) {
		soft_sa_port_t p = mk_port((unsigned)i, (uint16_t)i, IB_LINK_ACTIVE);

		soft_sa_port_update(sa, &p);
	}
	m = req(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
	first = ncap;
	send_to(sa, &m, 2);
	rmpp_ctl(sa, cap_sa(first), IB_RMPP_TYPE_ACK, 1, 3, 0); /* segments 2, 3 */
	CU_ASSERT_EQUAL(ncap, first + 3);
	/* the client gives up waiting and sends the request again: one transfer, from segment 1 */
	tid = m.trans_id;
	t = table(sa, &m, 4);
	CU_ASSERT_EQUAL(m.trans_id, tid);
	CU_ASSERT_TRUE(t.ok);
	CU_ASSERT_EQUAL(nrecs(&t), 20);
	CU_ASSERT_EQUAL(soft_sa_timer(sa, fake_now), UINT64_MAX);
	free(t.data);
	destroy(sa);
}

/* Threads calling every entry point at once (run under TSan too). */
static unsigned long thr_sent;

static void count_send(void *ctx, const ib_mad_t *m, const soft_mad_addr_t *dst)
{
	(void)ctx;
	(void)m;
	(void)dst;
	__atomic_add_fetch(&thr_sent, 1, __ATOMIC_RELAXED);
}

static soft_sa_t *thr_sa;

static void *thr_main(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg, k;

	for (k = 0; k < 300; k++) {
		soft_sa_port_t p = mk_port(100 + id * 1000 + k % 20, (uint16_t)(100 + id * 100 + k % 20), IB_LINK_ACTIVE);
		ib_sa_mad_t m = req(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_RECORD, 0, NULL, 0);
		ib_service_record_t s = svc(k, 1, "t", 1);
		soft_mad_addr_t a = from((uint16_t)(1 + id));

		m.trans_id = cl_hton64(((uint64_t)id << 32) | k);
		soft_sa_port_update(thr_sa, &p);
		soft_sa_recv(thr_sa, (const ib_mad_t *)&m, MAD_BLOCK_SIZE, &a);
		m = req(IB_MAD_METHOD_SET, IB_MAD_ATTR_SERVICE_RECORD,
			HO(IB_SR_COMPMASK_SID) | HO(IB_SR_COMPMASK_SGID), &s, sizeof(s));
		soft_sa_recv(thr_sa, (const ib_mad_t *)&m, MAD_BLOCK_SIZE, &a);
		soft_sa_timer(thr_sa, (uint64_t)k * 100000u);
		if (k % 7 == 0)
			soft_sa_port_remove(thr_sa, p.node_info.node_guid, 1);
	}
	return NULL;
}

static void test_threads(void)
{
	soft_sa_ops_t ops = { NULL, count_send };
	soft_sa_port_t p1 = mk_port(1, 1, IB_LINK_ACTIVE);
	pthread_t th[2];
	uintptr_t i;

	thr_sa = soft_sa_create(&ops, NULL, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(thr_sa);
	soft_sa_port_update(thr_sa, &p1);
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(pthread_create(&th[i], NULL, thr_main, (void *)i), 0);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	CU_ASSERT(__atomic_load_n(&thr_sent, __ATOMIC_RELAXED) >= 2 * 300 * 2);
	soft_sa_destroy(thr_sa);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_rmpp_large_table),
	TEST_ENTRY(test_rmpp_lost_ack_retransmit),
	TEST_ENTRY(test_rmpp_abort_and_errors),
	TEST_ENTRY(test_rmpp_ack_styles),
	TEST_ENTRY(test_rmpp_repeated_request),
	TEST_ENTRY(test_threads),
	TEST_ENTRY(test_malformed),
};

TEST_MAIN("soft_sa_rmpp", tests)
