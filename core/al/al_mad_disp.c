/*
 * ibal access layer: a MAD dispatcher's making, sharing and teardown, and an
 * AL instance's internal MAD pool.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A dispatcher (al_mad.h) serves a port's QP0 or QP1, or the UD QP of one
 * IB_QPT_MAD queue pair: its private AL instance, PD, CQs, QP, send slots and
 * first receive buffers are made here; a special QP's dispatcher is shared
 * by every QP alias and MAD service of its port (al_mad_disp_get() /
 * al_mad_disp_put()) and torn down by its last user.
 * What a dispatcher does while it lives (its thread, sends, completions,
 * receive buffers) is in al_mad.c; docs/mad.md says how.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* PTHREAD_MUTEX_ADAPTIVE_NP */
#endif
#include <string.h>
#include <complib/cl_memory.h>
#include "al_mad.h"
#include "al_mad_int.h"
#include "al_obj.h"
#include "al_prov.h"
#include "ibal_log.h"
#include "ibal_mem.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_create_lock = PTHREAD_MUTEX_INITIALIZER; /* creations (see al_mad_disp_get) */
static pthread_cond_t g_closed = PTHREAD_COND_INITIALIZER; /* g_closing dropped */
static uint32_t g_closing; /* g_lock: shared dispatchers being torn down */
static uint32_t g_closed_gen; /* g_lock: teardowns finished (ever) */
static cl_qlist_t g_disps; /* shared dispatchers (al_mad_disp_t::item) */
static boolean_t g_init;

/* ---- Internal pool of an AL instance ---- */

ib_api_status_t al_mad_inst_pool(al_pd_t *p_pd, al_pool_t **pp_pool)
{
	al_inst_t *p_inst = PARENT_STRUCT(p_pd->p_ca->v.obj.p_parent, al_inst_t, obj);
	al_pool_t *p_pool;
	ib_api_status_t st = IB_SUCCESS;

	pthread_mutex_lock(&g_lock);
	p_pool = (al_pool_t *)p_inst->p_mad_pool;
	if (!p_pool) {
		st = al_mad_pool_create(&p_inst->obj, 16, 0, 16, &p_pool, NULL);
		if (st == IB_SUCCESS)
			p_inst->p_mad_pool = p_pool;
	}
	pthread_mutex_unlock(&g_lock);
	*pp_pool = p_pool;
	return st;
}

/* ---- Dispatcher lifetime ---- */

static void inst_free(al_obj_t *p_obj)
{
	cl_free(PARENT_STRUCT(p_obj, al_inst_t, obj));
}

static void disp_free(al_mad_disp_t *d)
{
	cl_list_item_t *it;
	uint32_t k;

	/* Unwatched first: its thread is not replaced from then on. */
	al_mad_watch_remove(d);
	if (d->thread) {
		__atomic_store_n(&d->stop, 1, __ATOMIC_RELEASE);
		cl_waitobj_signal(d->wo);
		pthread_join(d->thread, NULL);
	}
	al_mad_lend_join_all(d);
	while ((it = cl_qlist_remove_head(&d->replies)) != cl_qlist_end(&d->replies))
		cl_free(it);
	while ((it = cl_qlist_remove_head(&d->fails)) != cl_qlist_end(&d->fails))
		cl_free(it);
	al_rmpp_free_all(d);
	/* Direct callbacks hold their service, a descendant of a user of d. */
	CL_ASSERT(cl_is_qlist_empty(&d->direct));
	/* Everything the instance holds (CA, PD, CQ, QP, MR, the slots' AVs)
	 * goes with it. */
	if (d->p_inst)
		al_obj_destroy(&d->p_inst->obj, ib_sync_destroy);
	if (d->wo)
		cl_waitobj_destroy(d->wo);
	cl_free(d->bufs);
	for (k = 0; k < d->n_recv_maps; k++)
		munmap(d->recv_maps[k].p, d->recv_maps[k].len);
	pthread_mutex_destroy(&d->lock);
	cl_free(d);
}

/* The dispatcher's private AL instance (its objects must not be a user's). */
static ib_api_status_t disp_inst(al_mad_disp_t *d)
{
	ib_api_status_t st;

	d->p_inst = (al_inst_t *)cl_zalloc(sizeof(*d->p_inst));
	if (!d->p_inst)
		return IB_INSUFFICIENT_MEMORY;
	al_obj_construct(&d->p_inst->obj, AL_HDL_AL);
	st = al_obj_init(&d->p_inst->obj, NULL, NULL, NULL, NULL, inst_free);
	if (st == IB_SUCCESS)
		st = al_obj_insert_handle(&d->p_inst->obj);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&d->p_inst->obj);
		cl_free(d->p_inst);
		d->p_inst = NULL;
	}
	return st;
}

/* The dispatcher's CA, PD, wait object, CQ and registered slot buffers. */
static ib_api_status_t disp_resources(al_mad_disp_t *d, ib_net64_t ca_guid, size_t len)
{
	ib_cq_create_t cc;
	ib_mr_create_t mc;
	net32_t rkey;
	ib_api_status_t st;
	uint32_t k;

	st = ib_open_ca((ib_al_handle_t)al_obj_h(&d->p_inst->obj), ca_guid, NULL, d, &d->h_ca);
	if (st == IB_SUCCESS)
		st = ib_alloc_pd(d->h_ca, IB_PDT_NORMAL, d, &d->h_pd);
	if (st == IB_SUCCESS && cl_waitobj_create(FALSE, &d->wo) != CL_SUCCESS)
		st = IB_INSUFFICIENT_RESOURCES;
	if (st != IB_SUCCESS)
		return st;
	memset(&cc, 0, sizeof(cc));
	cc.size = al_mad_recv_cq_size(AL_MAD_RECV_SLOTS);
	cc.h_wait_obj = d->wo;
	st = ib_create_cq(d->h_ca, &cc, d, NULL, &d->h_cq);
	if (st != IB_SUCCESS)
		return st;
	cc.size = AL_MAD_SEND_SLOTS + 16;
	st = ib_create_cq(d->h_ca, &cc, d, NULL, &d->h_scq);
	if (st != IB_SUCCESS)
		return st;
	ibal_mem_prefault(d->bufs, len); /* as al_mad.c's recv_add_chunk() */
	mc.vaddr = d->bufs;
	mc.length = len;
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	st = ib_reg_mem(d->h_pd, &mc, &d->lkey, &rkey, &d->h_mr);
	for (k = 0; k < AL_MAD_RECV_SLOTS / AL_MAD_RECV_CHUNK; k++) {
		d->recv_base[k] = d->bufs + (size_t)AL_MAD_SEND_SLOTS * MAD_BLOCK_SIZE +
				  (size_t)k * AL_MAD_RECV_CHUNK * AL_MAD_RECV_SLOT;
		d->recv_lkey[k] = d->lkey;
	}
	return st;
}

/* Makes the dispatcher's provider QP as @p qc asks: a UD QP, or the port's special QP. */
static ib_api_status_t disp_qp_make(al_mad_disp_t *d, ib_qp_create_t *qc)
{
	al_pd_t *p_pd;
	ib_api_status_t st;

	if (d->type == IB_QPT_UNRELIABLE_DGRM)
		return ib_create_qp(d->h_pd, qc, d, NULL, &d->h_qp);
	p_pd = (al_pd_t *)AL_ENTER(d->h_pd, AL_HDL_PD);
	if (!p_pd)
		return IB_INVALID_PD_HANDLE;
	st = al_qp_create_spl(p_pd, d->port_num, qc, d, NULL, &d->h_qp);
	AL_EXIT(d->h_pd);
	return st;
}

/* The dispatcher's QP (a UD QP, or the port's special QP) in RTS, its QPN
 * in d->qpn. Every receive is posted in INIT: a MAD that comes as soon as
 * the QP is in RTR (an SM's SubnGet(SMInfo) to a port that claims IsSM, a
 * peer's retry) then finds one (it would be dropped, and an SM may wait
 * long for the answer). */
static ib_api_status_t disp_qp(al_mad_disp_t *d)
{
	ib_qp_create_t qc;
	ib_qp_attr_t qa;
	ib_api_status_t st;
	uint32_t i;

	memset(&qc, 0, sizeof(qc));
	qc.qp_type = d->type;
	qc.sq_depth = AL_MAD_SEND_SLOTS;
	qc.rq_depth = AL_MAD_RECV_MAX; /* room to grow; AL_MAD_RECV_SLOTS posted */
	qc.sq_sge = 1;
	qc.rq_sge = 1;
	qc.h_sq_cq = d->h_scq;
	qc.h_rq_cq = d->h_cq;
	qc.sq_signaled = TRUE;
	st = disp_qp_make(d, &qc);
	if (st == IB_INVALID_MAX_WRS) {
		/* a CA whose queues are shorter: the first buffers only */
		qc.rq_depth = AL_MAD_RECV_SLOTS;
		st = disp_qp_make(d, &qc);
	}
	d->n_recv = AL_MAD_RECV_SLOTS;
	if (st == IB_SUCCESS)
		st = al_qp_to_init(d->h_qp, d->port_num, d->qkey, d->pkey_index);
	for (i = 0; i < AL_MAD_RECV_SLOTS && st == IB_SUCCESS; i++)
		st = al_mad_post_recv(d, i);
	if (st == IB_SUCCESS)
		st = al_qp_init_to_rts(d->h_qp);
	if (st == IB_SUCCESS)
		st = ib_query_qp(d->h_qp, &qa);
	if (st == IB_SUCCESS) {
		d->qpn = qa.num;
		d->recv_max = qa.rq_depth < AL_MAD_RECV_MAX ? qa.rq_depth : AL_MAD_RECV_MAX;
		d->recv_max -= d->recv_max % AL_MAD_RECV_CHUNK;
		if (d->recv_max < d->n_recv)
			d->recv_max = d->n_recv;
	}
	return st;
}

/* The dispatcher's lock: taken by its thread and by every sender for short
 * stretches, so it spins a little before sleeping (as complib's spinlock). */
static void disp_lock_init(pthread_mutex_t *p_lock)
{
	pthread_mutexattr_t attr;

	pthread_mutexattr_init(&attr);
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
	pthread_mutex_init(p_lock, &attr);
	pthread_mutexattr_destroy(&attr);
}

static ib_api_status_t disp_new(al_ci_ca_t *p_ci, uint8_t port, ib_qp_type_t type,
				ib_net32_t qkey, uint16_t pkey_index, al_mad_disp_t **pp)
{
	al_mad_disp_t *d = (al_mad_disp_t *)cl_zalloc(sizeof(*d));
	size_t len = (size_t)AL_MAD_SEND_SLOTS * MAD_BLOCK_SIZE +
		     (size_t)AL_MAD_RECV_SLOTS * AL_MAD_RECV_SLOT;
	ib_api_status_t st;

	if (!d)
		return IB_INSUFFICIENT_MEMORY;
	disp_lock_init(&d->lock);
	cl_qlist_init(&d->svcs);
	cl_qlist_init(&d->sends);
	cl_qlist_init(&d->rmpp_rx);
	cl_qlist_init(&d->replies);
	cl_qlist_init(&d->fails);
	cl_qlist_init(&d->direct);
	d->ca_guid = p_ci->guid;
	d->port_num = port;
	d->type = type;
	d->qkey = type == IB_QPT_QP1 ? IB_QP1_WELL_KNOWN_Q_KEY : qkey;
	d->pkey_index = pkey_index;
	d->n_free_slots = AL_MAD_SEND_SLOTS;
	d->bufs = (uint8_t *)cl_zalloc(len);
	st = d->bufs ? disp_inst(d) : IB_INSUFFICIENT_MEMORY;
	if (st == IB_SUCCESS)
		st = disp_resources(d, p_ci->guid, len);
	if (st == IB_SUCCESS)
		st = disp_qp(d);
	if (st == IB_SUCCESS)
		st = ib_rearm_cq(d->h_cq, FALSE);
	if (st == IB_SUCCESS)
		st = ib_rearm_cq(d->h_scq, TRUE);
	d->gen = 1;
	if (st == IB_SUCCESS && pthread_create(&d->thread, NULL, al_mad_disp_thread, d))
		st = IB_INSUFFICIENT_RESOURCES;
	if (st != IB_SUCCESS) {
		d->thread = 0;
		disp_free(d);
		return st;
	}
	al_mad_watch_add(d);
	d->users = 1;
	*pp = d;
	return IB_SUCCESS;
}

/* The shared dispatcher of (CA, port, type) with one more user, or NULL; g_lock held. */
static al_mad_disp_t *disp_find(ib_net64_t guid, uint8_t port_num, ib_qp_type_t type)
{
	cl_list_item_t *it;

	if (!g_init) {
		cl_qlist_init(&g_disps);
		g_init = TRUE;
	}
	for (it = cl_qlist_head(&g_disps); it != cl_qlist_end(&g_disps); it = cl_qlist_next(it)) {
		al_mad_disp_t *d = PARENT_STRUCT(it, al_mad_disp_t, item);

		if (d->ca_guid == guid && d->port_num == port_num && d->type == type) {
			d->users++;
			return d;
		}
	}
	return NULL;
}

ib_api_status_t al_mad_disp_get(al_ci_ca_t *p_ci, uint8_t port_num, ib_qp_type_t type,
				al_mad_disp_t **pp_disp)
{
	al_mad_disp_t *d;
	uint32_t gen;
	ib_api_status_t st;

	pthread_mutex_lock(&g_lock);
	d = disp_find(p_ci->guid, port_num, type);
	pthread_mutex_unlock(&g_lock);
	if (d) {
		*pp_disp = d;
		return IB_SUCCESS;
	}
	/* Creations are serialized by a lock of their own, which the last
	 * user's put (on an AL callback thread) never takes, so a failed
	 * creation may wait for its objects' destruction while holding it. */
	pthread_mutex_lock(&g_create_lock);
	pthread_mutex_lock(&g_lock);
	d = disp_find(p_ci->guid, port_num, type);
	gen = g_closed_gen;
	pthread_mutex_unlock(&g_lock);
	st = IB_SUCCESS;
	if (!d) {
		st = disp_new(p_ci, port_num, type, 0, 0, &d);
		if (st == IB_RESOURCE_BUSY) {
			/* The last alias may just have gone: its dispatcher held
			 * the special QP until its teardown ended (or ends). */
			pthread_mutex_lock(&g_lock);
			if (g_closing || g_closed_gen != gen) {
				while (g_closing)
					pthread_cond_wait(&g_closed, &g_lock);
				st = IB_NOT_DONE;
			}
			pthread_mutex_unlock(&g_lock);
			if (st == IB_NOT_DONE)
				st = disp_new(p_ci, port_num, type, 0, 0, &d);
		}
		if (st == IB_SUCCESS) {
			pthread_mutex_lock(&g_lock);
			cl_qlist_insert_tail(&g_disps, &d->item);
			pthread_mutex_unlock(&g_lock);
		}
	}
	pthread_mutex_unlock(&g_create_lock);
	if (st == IB_SUCCESS)
		*pp_disp = d;
	return st;
}

ib_api_status_t al_mad_disp_create_ud(al_ci_ca_t *p_ci, uint8_t port_num, ib_net32_t qkey,
				      uint16_t pkey_index, al_mad_disp_t **pp_disp)
{
	return disp_new(p_ci, port_num, IB_QPT_UNRELIABLE_DGRM, qkey, pkey_index, pp_disp);
}

void al_mad_disp_put(al_mad_disp_t *d)
{
	if (d->type != IB_QPT_UNRELIABLE_DGRM) {
		pthread_mutex_lock(&g_lock);
		if (--d->users) {
			pthread_mutex_unlock(&g_lock);
			return;
		}
		cl_qlist_remove_item(&g_disps, &d->item);
		g_closing++;
		pthread_mutex_unlock(&g_lock);
		disp_free(d);
		pthread_mutex_lock(&g_lock);
		g_closed_gen++;
		if (!--g_closing)
			pthread_cond_broadcast(&g_closed);
		pthread_mutex_unlock(&g_lock);
		return;
	}
	disp_free(d);
}
