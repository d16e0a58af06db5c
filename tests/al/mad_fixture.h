/*
 * ibal tests: the fixture shared by the MAD-service tests (two soft CAs, a QP1 alias and MAD services on each).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Included by test_al_mad.c and test_al_mad_recv.c only. Every test runs
 * in a fabric directory of its own with IBAL_SOFT_CAS=2: side A (sa) and
 * side B (sb) each open one CA, get a QP1 alias on port 1 and register MAD
 * services on it. The callbacks record what they get under the side's
 * lock; the test thread waits for counts with a bounded wait (never a
 * sleep) and down() returns the recorded elements to their pools.
 */
#ifndef TESTS_MAD_FIXTURE_H
#define TESTS_MAD_FIXTURE_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <iba/ib_al.h>
#include "al_mad.h"
#include "al_mad_int.h"
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/mem_track.h"

#define VCLASS 0x09      /* vendor class, low range (no RMPP header) */
#define RCLASS 0x30      /* vendor class, high range (RMPP header, 40-byte class header) */
#define RHDR 40          /* class header bytes of RCLASS segments */
#define RDATA (256 - RHDR)
#define MAXREC 1024

static char fab_dir[64];
static ib_al_handle_t h_al;

typedef struct side {
	ib_ca_handle_t ca;
	ib_pd_handle_t pd;
	ib_net64_t port_guid;
	ib_net16_t lid;
	ib_qp_handle_t qp;           /* QP1 alias */
	ib_pool_key_t key;
	ib_mad_svc_handle_t svc;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int n_send, n_recv, n_destroy;
	int order[8];                /* 1 = send cb, 2 = destroy cb (first events) */
	int n_order;
	int bad;                     /* a callback saw something wrong */
	ib_mad_element_t *sends[MAXREC];
	ib_mad_element_t *recvs[MAXREC];
	boolean_t responder;         /* answer Get requests (attr_mod = segments of the answer) */
	boolean_t put_recvs;         /* return received elements at once (counting only) */
	ib_mad_svc_handle_t resp_svc; /* service the responder sends on */
} side_t;

static side_t sa, sb;

/* ---- Callbacks ---- */

static inline void fill(uint8_t *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7u + seed);
}

static inline int check(const uint8_t *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != (uint8_t)(i * 7u + seed))
			return 0;
	return 1;
}

/* Builds and sends the responder's answer to request e (on a callback). */
static inline void respond(side_t *s, ib_mad_element_t *req)
{
	ib_mad_t *q = req->p_mad_buf;
	uint32_t segs = cl_ntoh32(q->attr_mod);
	uint32_t size = segs ? RHDR + (segs - 1) * RDATA + 100 : 256;
	ib_mad_element_t *r;

	if (ib_get_mad(s->key, size, &r) != IB_SUCCESS) {
		s->bad++;
		return;
	}
	memcpy(r->p_mad_buf, q, sizeof(ib_mad_t));
	r->p_mad_buf->method = IB_MAD_METHOD_GET_RESP;
	if (segs)
		fill((uint8_t *)r->p_mad_buf + RHDR, size - RHDR, segs);
	r->size = size;
	r->rmpp_version = segs ? 1 : 0;
	r->remote_lid = req->remote_lid;
	r->remote_qp = req->remote_qp;
	r->remote_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	r->pkey_index = req->pkey_index;
	r->remote_sl = req->remote_sl;
	r->context2 = s;
	if (ib_send_mad(s->resp_svc, r, NULL) != IB_SUCCESS) {
		s->bad++;
		ib_put_mad(r);
	}
}

static inline void AL_API on_send(const ib_mad_svc_handle_t h, void *ctx, ib_mad_element_t *e)
{
	side_t *s = (side_t *)ctx;

	(void)h;
	pthread_mutex_lock(&s->lock);
	if (s->n_order < 8)
		s->order[s->n_order++] = 1;
	if (e->context2 == (void *)s) {
		/* A responder's answer: not recorded. */
		if (e->status != IB_WCS_SUCCESS)
			s->bad++;
		pthread_mutex_unlock(&s->lock);
		ib_put_mad(e);
		return;
	}
	if (s->n_send < MAXREC)
		s->sends[s->n_send] = e;
	s->n_send++;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

static inline void AL_API on_recv(const ib_mad_svc_handle_t h, void *ctx, ib_mad_element_t *e)
{
	side_t *s = (side_t *)ctx;

	(void)h;
	if (s->responder && !ib_mad_is_response(e->p_mad_buf) &&
	    e->p_mad_buf->method == IB_MAD_METHOD_GET) {
		respond(s, e);
		ib_put_mad(e);
		pthread_mutex_lock(&s->lock);
		s->n_recv++;
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->lock);
		return;
	}
	pthread_mutex_lock(&s->lock);
	if (s->put_recvs || s->n_recv >= MAXREC) {
		ib_put_mad(e);
	} else {
		s->recvs[s->n_recv] = e;
	}
	s->n_recv++;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

static inline void AL_API on_destroy(void *ctx)
{
	side_t *s = (side_t *)ctx;

	pthread_mutex_lock(&s->lock);
	if (s->n_order < 8)
		s->order[s->n_order++] = 2;
	s->n_destroy++;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* Waits (bounded) until *p >= want; returns the value seen. */
static inline int wait_n(side_t *s, int *p, int want)
{
	struct timespec ts;
	int v;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += TEST_WAIT_US / 1000000u;
	pthread_mutex_lock(&s->lock);
	while (*p < want && pthread_cond_timedwait(&s->cond, &s->lock, &ts) == 0)
		;
	v = *p;
	pthread_mutex_unlock(&s->lock);
	return v;
}

/* ---- Setup ---- */

static inline void side_open(side_t *s, ib_net64_t guid)
{
	ib_ca_attr_t *attr;
	ib_qp_create_t qc;
	uint32_t size = 0;

	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	test_cond_init_mono(&s->cond);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, guid, NULL, s, &s->ca), IB_SUCCESS);
	ib_query_ca(s->ca, NULL, &size);
	attr = (ib_ca_attr_t *)calloc(1, size);
	CU_ASSERT_EQUAL_FATAL(ib_query_ca(s->ca, attr, &size), IB_SUCCESS);
	s->lid = attr->p_port_attr[0].lid;
	s->port_guid = attr->p_port_attr[0].port_guid;
	free(attr);
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(s->ca, IB_PDT_ALIAS, s, &s->pd), IB_SUCCESS);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_QP1_ALIAS;
	CU_ASSERT_EQUAL_FATAL(ib_get_spl_qp(s->pd, s->port_guid, &qc, s, NULL, &s->key, &s->qp),
			      IB_SUCCESS);
	CU_ASSERT_PTR_NOT_NULL(s->key);
}

static inline void up(void)
{
	ib_net64_t guids[2];
	size_t n = 2;

	test_fixture_up = 1;
	test_track_begin();
	strcpy(fab_dir, "/tmp/ibal-almad-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "2", 1);
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, guids, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	side_open(&sa, guids[0]);
	side_open(&sb, guids[1]);
}

/* Under the side's lock: a responder's callback may still be counting the
 * request it answered (on_recv) when the test is done with the answer. */
static inline void put_all(side_t *s)
{
	int i;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->n_send && i < MAXREC; i++)
		if (s->sends[i])
			CU_ASSERT_EQUAL(ib_put_mad(s->sends[i]), IB_SUCCESS);
	for (i = 0; i < s->n_recv && i < MAXREC; i++)
		if (s->recvs[i])
			CU_ASSERT_EQUAL(ib_put_mad(s->recvs[i]), IB_SUCCESS);
	s->n_send = s->n_recv = 0;
	pthread_mutex_unlock(&s->lock);
}

static inline void down(void)
{
	CU_ASSERT_EQUAL(sa.bad, 0);
	CU_ASSERT_EQUAL(sb.bad, 0);
	put_all(&sa);
	put_all(&sb);
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	h_al = NULL;
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
	pthread_mutex_destroy(&sa.lock);
	pthread_cond_destroy(&sa.cond);
	pthread_mutex_destroy(&sb.lock);
	pthread_cond_destroy(&sb.cond);
	test_track_end();
	test_fixture_up = 0;
}

/* Registers a service with the given callbacks on @p qp for class/version
 * and methods (0-terminated), context @p s. */
static inline ib_api_status_t reg_cb(side_t *s, ib_qp_handle_t qp, uint8_t cls, uint8_t ver,
				     ib_mad_svc_type_t type, const uint8_t *methods,
				     ib_pfn_mad_comp_cb_t send_cb, ib_pfn_mad_comp_cb_t recv_cb,
				     ib_mad_svc_handle_t *ph)
{
	ib_mad_svc_t svc;

	memset(&svc, 0, sizeof(svc));
	svc.mad_svc_context = s;
	svc.pfn_mad_send_cb = send_cb;
	svc.pfn_mad_recv_cb = recv_cb;
	svc.mgmt_class = cls;
	svc.mgmt_version = ver;
	svc.svc_type = type;
	for (; methods && *methods; methods++) {
		svc.support_unsol = TRUE;
		svc.method_array[*methods] = TRUE;
	}
	return ib_reg_mad_svc(qp, &svc, ph);
}

/* Registers a service on s's alias for class/version and the given methods (0-terminated). */
static inline ib_api_status_t reg(side_t *s, ib_qp_handle_t qp, uint8_t cls, uint8_t ver,
				  ib_mad_svc_type_t type, const uint8_t *methods,
				  ib_mad_svc_handle_t *ph)
{
	return reg_cb(s, qp, cls, ver, type, methods, on_send, on_recv, ph);
}

/* An element from s's key addressed to peer's QP1. */
static inline ib_mad_element_t *mad_to(side_t *s, const side_t *peer, uint32_t size,
				       uint8_t cls, uint8_t method, uint64_t tid)
{
	ib_mad_element_t *e = NULL;

	CU_ASSERT_EQUAL_FATAL(ib_get_mad(s->key, size, &e), IB_SUCCESS);
	e->p_mad_buf->base_ver = 1;
	e->p_mad_buf->mgmt_class = cls;
	e->p_mad_buf->class_ver = 1;
	e->p_mad_buf->method = method;
	e->p_mad_buf->trans_id = cl_hton64(tid);
	e->p_mad_buf->attr_id = CL_HTON16(0x1234);
	e->size = size;
	e->remote_lid = peer->lid;
	e->remote_qp = CL_HTON32(1);
	e->remote_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	return e;
}

static inline al_mad_disp_t *disp_of(ib_qp_handle_t h_qp)
{
	al_qp_t *p_qp = (al_qp_t *)al_handle_lookup(AL_HANDLE_FROM_IB(h_qp), AL_HDL_QP);

	return p_qp ? PARENT_STRUCT(p_qp, al_mad_qp_t, qp)->p_disp : NULL;
}

#endif /* TESTS_MAD_FIXTURE_H */
