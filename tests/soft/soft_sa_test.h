/*
 * ibal tests: shared harness of the soft SA test programs (capture send, fake clock, MAD builders).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#ifndef IBAL_SOFT_SA_TEST_H
#define IBAL_SOFT_SA_TEST_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "../common/cl_test.h"
#include "soft_sa.h"
#include "soft_sa_ports.h"

/* Each program that includes this file gets its own copy of the state below. */

/* ------------------------------------------------------------------ */
/* Harness: captured sends, fake clock, ports, requests                */
/* ------------------------------------------------------------------ */

/* Component mask bits in host order. */
#define HO(x) cl_ntoh64(x)

#define MAXCAP 4096

typedef struct cap {
	uint8_t mad[MAD_BLOCK_SIZE];
	soft_mad_addr_t dst;
} cap_t;

static cap_t *caps;
static size_t ncap;
static uint64_t fake_now = 1000000;
static uint64_t tid_seq = 100;

static inline void cap_send(void *ctx, const ib_mad_t *m, const soft_mad_addr_t *dst)
{
	(void)ctx;
	if (ncap < MAXCAP) {
		memcpy(caps[ncap].mad, m, MAD_BLOCK_SIZE);
		caps[ncap].dst = *dst;
		ncap++;
	}
}

static inline uint64_t fake_clock(void *ctx)
{
	(void)ctx;
	return fake_now;
}

static inline const ib_sa_mad_t *cap_sa(size_t i)
{
	return (const ib_sa_mad_t *)caps[i].mad;
}

static inline soft_sa_t *mk_sa(void)
{
	soft_sa_ops_t ops = { NULL, cap_send };
	ib_sm_info_t smi;
	soft_sa_t *sa;

	if (!caps)
		caps = calloc(MAXCAP, sizeof(*caps));
	ncap = 0;
	memset(&smi, 0, sizeof(smi));
	smi.guid = cl_hton64(0x201);
	smi.sm_key = cl_hton64(0x1234);
	smi.pri_state = (uint8_t)((1 << 4) | IB_SMINFO_STATE_MASTER);
	sa = soft_sa_create(&ops, &smi, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sa);
	soft_sa_set_clock(sa, fake_clock, NULL);
	return sa;
}

static inline void add_ports(soft_sa_t *sa, unsigned n)
{
	unsigned i;

	for (i = 1; i <= n; i++) {
		soft_sa_port_t p = mk_port(i, (uint16_t)i, IB_LINK_ACTIVE);

		CU_ASSERT_EQUAL(soft_sa_port_update(sa, &p), IB_SUCCESS);
	}
}

static inline soft_mad_addr_t from(uint16_t lid)
{
	soft_mad_addr_t a;

	memset(&a, 0, sizeof(a));
	a.lid = lid;
	a.qpn = 1;
	a.qkey = 0x80010000;
	a.pkey = 0xFFFF;
	return a;
}

static inline ib_sa_mad_t req(uint8_t method, ib_net16_t attr, uint64_t comp_mask, const void *rec, size_t len)
{
	ib_sa_mad_t m;

	memset(&m, 0, sizeof(m));
	m.base_ver = 1;
	m.mgmt_class = IB_MCLASS_SUBN_ADM;
	m.class_ver = 2;
	m.method = method;
	m.trans_id = cl_hton64(__atomic_add_fetch(&tid_seq, 1, __ATOMIC_RELAXED));
	m.attr_id = attr;
	m.comp_mask = cl_hton64(comp_mask);
	if (rec)
		memcpy(m.data, rec, len);
	return m;
}

static inline void send_to(soft_sa_t *sa, const ib_sa_mad_t *m, uint16_t lid)
{
	soft_mad_addr_t a = from(lid);

	soft_sa_recv(sa, (const ib_mad_t *)m, MAD_BLOCK_SIZE, &a);
}

/* Sends a non-table request and returns the single answer (index in caps). */
static inline const ib_sa_mad_t *ask(soft_sa_t *sa, const ib_sa_mad_t *m)
{
	size_t before = ncap;

	send_to(sa, m, 2);
	CU_ASSERT_EQUAL_FATAL(ncap, before + 1);
	CU_ASSERT_EQUAL(cap_sa(before)->trans_id, m->trans_id);
	return cap_sa(before);
}

/* An RMPP receiver: ACKs windows of win segments; collects the records. */
typedef struct table {
	uint8_t *data;
	size_t len;
	uint32_t nseg;
	ib_net16_t status;
	uint16_t attr_offset;
	uint32_t first_paylen, last_paylen;
	uint32_t win_last; /* the receiver's window end (0: not started, ACK segment 1) */
	bool ok;
} table_t;

static inline void rmpp_ctl(soft_sa_t *sa, const ib_sa_mad_t *resp, uint8_t type, uint32_t seg, uint32_t win, uint8_t st)
{
	ib_sa_mad_t a;

	memset(&a, 0, sizeof(a));
	memcpy(&a, resp, 56);
	/* as the Linux MAD layer does, except for TIDs with bit 0x40 set (kept as is) */
	if (!(cl_ntoh64(a.trans_id) & 0x40))
		a.method ^= IB_MAD_METHOD_RESP_MASK;
	a.rmpp_version = 1;
	a.rmpp_type = type;
	a.rmpp_flags = IB_RMPP_FLAG_ACTIVE;
	a.rmpp_status = st;
	a.seg_num = cl_hton32(seg);
	a.paylen_newwin = cl_hton32(win);
	send_to(sa, &a, 2);
}

/* Processes captured segments from index *pi; returns true when the last came. */
static inline bool table_collect(soft_sa_t *sa, table_t *t, size_t *pi, uint32_t win, bool ack)
{
	uint32_t expect = t->nseg + 1;

	while (*pi < ncap) {
		const ib_sa_mad_t *m = cap_sa((*pi)++);
		uint32_t seg = cl_ntoh32(m->seg_num);
		bool last;

		if (!(m->rmpp_flags & IB_RMPP_FLAG_ACTIVE) && (m->method & IB_MAD_METHOD_RESP_MASK)) {
			/* an error answer: one MAD without RMPP */
			t->status = m->status;
			t->attr_offset = cl_ntoh16(m->attr_offset);
			t->ok = true;
			return true;
		}
		if (m->rmpp_type != IB_RMPP_TYPE_DATA || seg != expect)
			continue;
		if (seg == 1) {
			t->first_paylen = cl_ntoh32(m->paylen_newwin);
			t->status = m->status;
			t->attr_offset = cl_ntoh16(m->attr_offset);
			CU_ASSERT(m->rmpp_flags & IB_RMPP_FLAG_FIRST);
		}
		t->data = realloc(t->data, (size_t)seg * IB_SA_DATA_SIZE);
		memcpy(t->data + (size_t)(seg - 1) * IB_SA_DATA_SIZE, m->data, IB_SA_DATA_SIZE);
		t->nseg = seg;
		expect++;
		last = (m->rmpp_flags & IB_RMPP_FLAG_LAST) != 0;
		if (last)
			t->last_paylen = cl_ntoh32(m->paylen_newwin);
		if (ack && (last || seg >= t->win_last)) {
			t->win_last = seg + win;
			rmpp_ctl(sa, m, IB_RMPP_TYPE_ACK, seg, last ? seg : seg + win, 0);
			if (last) {
				t->ok = true;
				return true;
			}
		}
	}
	return false;
}

/* A GetTable/GetMulti exchange, ACKing windows of win. */
static inline table_t table(soft_sa_t *sa, const ib_sa_mad_t *m, uint32_t win)
{
	table_t t;
	size_t i = ncap;

	memset(&t, 0, sizeof(t));
	send_to(sa, m, 2);
	/* the first window is one segment */
	while (!table_collect(sa, &t, &i, win, true) && i < ncap)
		;
	if (t.ok) {
		uint32_t pad = t.nseg * 200 - (uint32_t)(t.first_paylen - t.nseg * 20);

		t.len = (size_t)t.nseg * 200 - pad;
	}
	return t;
}

static inline size_t nrecs(const table_t *t)
{
	return t->attr_offset ? t->len / (t->attr_offset * 8u) : 0;
}

static inline void destroy(soft_sa_t *sa)
{
	soft_sa_destroy(sa);
}

/* A ServiceRecord of service id on port, named name, leased for lease seconds. */
static inline ib_service_record_t svc(uint64_t id, unsigned port, const char *name, uint32_t lease)
{
	ib_service_record_t s;

	memset(&s, 0, sizeof(s));
	s.service_id = cl_hton64(id);
	s.service_gid = gid_of(port);
	s.service_pkey = cl_hton16(0xFFFF);
	s.service_lease = cl_hton32(lease);
	strcpy((char *)s.service_name, name);
	s.service_data8[3] = 7;
	return s;
}


#endif
