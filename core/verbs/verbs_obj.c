/*
 * ibal verbs provider: protection domains, address vectors, memory regions and completion queues.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * On a libibverbs CA each object wraps its libibverbs one: ibv_pd, ibv_ah
 * (ib_modify_av makes a new AH and destroys the old one), ibv_mr (the L_Key
 * is its lkey as it is, the R_Key its rkey in network order) and ibv_cq on
 * the CA's completion channel. The MAD path (QP0/QP1 over umad) still needs
 * to check the L_Keys of what it sends, so a libibverbs MR is also listed in
 * the CA's MR table.
 *
 * On a MAD-only CA memory needs no registration (MADs are copied through
 * read and write), so a region is only recorded: reg_mem hands out a key
 * (index in the CA's table plus a generation in the high bits; the L_Key
 * is the key, the R_Key the key in network order) and the MAD path checks
 * every SGE against it (verbs_mr_check). An AV is a checked copy of its
 * ib_av_attr_t.
 *
 * ib_rereg_mem maps to ibv_rereg_mr(); where the device or kernel refuses
 * it, the region gets a new ibv_mr (new range, PD, rights) and the old one
 * is deregistered after, so a failure leaves the old one intact. Either way
 * the provider object stays, with the keys the registration now has (new
 * ones after the fallback). It is refused (IB_RESOURCE_BUSY),
 * as ib_dereg_mr is, while windows are bound to the region. ib_reg_shared
 * registers the region's range again (its address, not the one asked for).
 *
 * A CQ's ring holds MAD completions (and, on a libibverbs CA, completions
 * taken out of the ibv_cq to count them for ib_peek_cq and ib_rearm_n_cq),
 * with the usual arming; poll_cq empties the ring first, then polls the
 * ibv_cq straight into the caller's ib_wc_t list (no allocation). Upcalls
 * are made by the CA worker (verbs_ca.c, verbs_dev.c), never inside post or
 * poll calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "verbs_prov.h"
#include "prov_verbs_xlate.h"
#include "ibal_log.h"

#ifdef HAVE_VERBS_PROV

/* ---- PD ---- */

ib_api_status_t verbs_alloc_pd(void *h, ib_pd_type_t type, void **pp_pd)
{
	verbs_pd_t *pd;

	(void)type;
	if (!pp_pd)
		return IB_INVALID_PARAMETER;
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return IB_INSUFFICIENT_MEMORY;
	pd->ca = h;
	if (pd->ca->ctx) {
		pd->ibv = ibv_alloc_pd(pd->ca->ctx);
		if (!pd->ibv) {
			ib_api_status_t st = verbs_errno_status(errno);

			free(pd);
			return st;
		}
	}
	*pp_pd = pd;
	return IB_SUCCESS;
}

void verbs_dealloc_pd(void *h)
{
	verbs_pd_t *pd = h;

	if (pd->ibv)
		ibv_dealloc_pd(pd->ibv);
	free(pd);
}

/* ---- AV ---- */

static ib_api_status_t av_check(verbs_ca_t *ca, const ib_av_attr_t *a)
{
	uint16_t dlid = cl_ntoh16(a->dlid);

	if (a->port_num < 1 || a->port_num > ca->num_ports)
		return IB_INVALID_PORT;
	if (a->sl > 15 || (dlid == 0 && !a->grh_valid))
		return IB_INVALID_SETTING;
	return IB_SUCCESS;
}

/* A libibverbs AH for @p a (NULL and *p_st set on failure). */
static struct ibv_ah *ah_make(verbs_pd_t *pd, const ib_av_attr_t *a, ib_api_status_t *p_st)
{
	struct ibv_ah_attr h;
	struct ibv_ah *ah;

	verbs_ah_attr(a, verbs_sgid_index(pd->ca, a), &h);
	ah = ibv_create_ah(pd->ibv, &h);
	*p_st = ah ? IB_SUCCESS : verbs_errno_status(errno);
	if (*p_st == IB_INVALID_PARAMETER)
		*p_st = IB_INVALID_SETTING;
	return ah;
}

ib_api_status_t verbs_create_av(void *h, const ib_av_attr_t *p_attr, void **pp_av)
{
	verbs_pd_t *pd = h;
	verbs_av_t *av;
	ib_api_status_t st;

	if (!p_attr || !pp_av)
		return IB_INVALID_PARAMETER;
	st = av_check(pd->ca, p_attr);
	if (st != IB_SUCCESS)
		return st;
	av = calloc(1, sizeof(*av));
	if (!av)
		return IB_INSUFFICIENT_MEMORY;
	av->pd = pd;
	av->attr = *p_attr;
	if (pd->ibv) {
		av->ah = ah_make(pd, p_attr, &st);
		if (!av->ah) {
			free(av);
			return st;
		}
	}
	*pp_av = av;
	return IB_SUCCESS;
}

ib_api_status_t verbs_query_av(void *h, ib_av_attr_t *p_attr)
{
	verbs_av_t *av = h;

	if (!p_attr)
		return IB_INVALID_PARAMETER;
	*p_attr = av->attr;
	return IB_SUCCESS;
}

/* Keeps the object: in-place update (a post copies the attributes it uses;
 * a libibverbs AH is immutable, so a new one replaces it). */
ib_api_status_t verbs_modify_av(void *h, const ib_av_attr_t *p_attr, void **pp_av)
{
	verbs_av_t *av;
	struct ibv_ah *old;
	ib_api_status_t st;

	if (!p_attr || !pp_av || !*pp_av)
		return IB_INVALID_PARAMETER;
	av = *pp_av;
	(void)h;
	st = av_check(av->pd->ca, p_attr);
	if (st != IB_SUCCESS)
		return st;
	old = av->ah;
	if (av->pd->ibv) {
		struct ibv_ah *ah = ah_make(av->pd, p_attr, &st);

		if (!ah)
			return st;
		__atomic_store_n(&av->ah, ah, __ATOMIC_RELEASE);
	}
	av->attr = *p_attr;
	if (old)
		ibv_destroy_ah(old);
	return IB_SUCCESS;
}

void verbs_destroy_av(void *h)
{
	verbs_av_t *av = h;

	if (av->ah)
		ibv_destroy_ah(av->ah);
	free(av);
}

/* ---- MR ---- */

#define KEY_INDEX(k) ((k) & 0xFFFFu)
#define MR_AC_ALL (IB_AC_RDMA_READ | IB_AC_RDMA_WRITE | IB_AC_ATOMIC | IB_AC_LOCAL_WRITE | \
		   IB_AC_MW_BIND | IB_AC_NOT_CACHABLE)

/* Access rights a region may get: known bits only, and remote write or
 * atomic only with local write, as the soft provider checks. */
static ib_api_status_t mr_access_check(ib_access_t access)
{
	if (access & ~(ib_access_t)MR_AC_ALL)
		return IB_INVALID_PERMISSION;
	if ((access & (IB_AC_RDMA_WRITE | IB_AC_ATOMIC)) && !(access & IB_AC_LOCAL_WRITE))
		return IB_INVALID_PERMISSION;
	return IB_SUCCESS;
}

/* The next key generation of the CA, never 0 (ca->lock held). */
static uint32_t mr_next_gen(verbs_ca_t *ca)
{
	ca->mr_gen = (ca->mr_gen + 1) & 0xFFFFu;
	if (!ca->mr_gen)
		ca->mr_gen = 1;
	return ca->mr_gen;
}

/*
 * The keys handed out: the L_Key is libibverbs' lkey (or the MAD-only CA's
 * own key) with its bits as they are, so that a data segment is an ibv_sge
 * (prov_verbs_xlate.h); the R_Key is the key in network order, as a peer
 * expects it.
 */
static void mr_keys(const verbs_mr_t *mr, net32_t *p_lkey, net32_t *p_rkey)
{
	if (mr->ibv) {
		*p_lkey = verbs_lkey_ib(mr->ibv->lkey);
		*p_rkey = cl_hton32(mr->ibv->rkey);
	} else {
		*p_lkey = verbs_lkey_ib(mr->key);
		*p_rkey = cl_hton32(mr->key);
	}
}

ib_api_status_t verbs_reg_mem(void *h, const ib_mr_create_t *p_create, net32_t *p_lkey,
			      net32_t *p_rkey, void **pp_mr)
{
	verbs_pd_t *pd = h;
	verbs_ca_t *ca = pd->ca;
	verbs_mr_t *mr;
	unsigned i;

	if (!p_create || !p_lkey || !p_rkey || !pp_mr)
		return IB_INVALID_PARAMETER;
	if (!p_create->vaddr || !p_create->length)
		return IB_INVALID_PARAMETER;
	if (mr_access_check(p_create->access_ctrl) != IB_SUCCESS)
		return IB_INVALID_PERMISSION;
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return IB_INSUFFICIENT_MEMORY;
	mr->pd = pd;
	mr->va = (uint64_t)(uintptr_t)p_create->vaddr;
	mr->len = p_create->length;
	mr->access = p_create->access_ctrl;
	if (pd->ibv) {
		mr->ibv = ibv_reg_mr(pd->ibv, p_create->vaddr, p_create->length,
				     verbs_access(p_create->access_ctrl));
		if (!mr->ibv) {
			int err = errno;
			ib_api_status_t st = verbs_errno_status(err);

			free(mr);
			/* EFAULT: the range is not mapped (ib_reg_mem documents
			 * IB_INVALID_PARAMETER); EINVAL: the access or sizes. */
			if (err == EFAULT)
				return IB_INVALID_PARAMETER;
			return st == IB_INVALID_PARAMETER ? IB_INVALID_SETTING : st;
		}
	}
	pthread_mutex_lock(&ca->lock);
	for (i = 0; i < VERBS_MAX_MRS && ca->mr[i]; i++)
		;
	if (i == VERBS_MAX_MRS && !mr->ibv) {
		pthread_mutex_unlock(&ca->lock);
		free(mr);
		return IB_INSUFFICIENT_RESOURCES;
	}
	mr->key = (mr_next_gen(ca) << 16) | i;
	/* A libibverbs MR beyond the table is only unusable by the MAD path. */
	if (i < VERBS_MAX_MRS)
		ca->mr[i] = mr;
	pthread_mutex_unlock(&ca->lock);
	mr_keys(mr, p_lkey, p_rkey);
	*pp_mr = mr;
	return IB_SUCCESS;
}

ib_api_status_t verbs_query_mr(void *h, ib_mr_attr_t *p_attr)
{
	verbs_mr_t *mr = h;
	verbs_ca_t *ca = mr->pd->ca;

	if (!p_attr)
		return IB_INVALID_PARAMETER;
	memset(p_attr, 0, sizeof(*p_attr));
	pthread_mutex_lock(&ca->lock); /* against a re-registration's update */
	p_attr->local_lb = mr->va;
	p_attr->local_ub = mr->va + mr->len - 1;
	if (mr->access & (IB_AC_RDMA_READ | IB_AC_RDMA_WRITE | IB_AC_ATOMIC)) {
		p_attr->remote_lb = p_attr->local_lb; /* else none (0, 0), as soft */
		p_attr->remote_ub = p_attr->local_ub;
	}
	p_attr->access_ctrl = mr->access;
	mr_keys(mr, &p_attr->lkey, &p_attr->rkey);
	pthread_mutex_unlock(&ca->lock);
	return IB_SUCCESS;
}

/* The libibverbs side of a re-registration: ibv_rereg_mr(), or when the
 * device or kernel refuses it a new ibv_mr over the new range (PD, rights)
 * that replaces the old one once that one is deregistered. On failure the
 * region keeps its old ibv_mr, unchanged. */
static ib_api_status_t rereg_ibv(verbs_mr_t *mr, ib_mr_mod_t mask, verbs_pd_t *pd, uint64_t va,
				 uint64_t len, ib_access_t access)
{
	verbs_ca_t *ca = pd->ca;
	struct ibv_mr *fresh, *old;
	int flags = 0, rc;

	if (mask & IB_MR_MOD_ADDR)
		flags |= IBV_REREG_MR_CHANGE_TRANSLATION;
	if (mask & IB_MR_MOD_PD)
		flags |= IBV_REREG_MR_CHANGE_PD;
	if (mask & IB_MR_MOD_ACCESS)
		flags |= IBV_REREG_MR_CHANGE_ACCESS;
	rc = ibv_rereg_mr(mr->ibv, flags, pd->ibv, (void *)(uintptr_t)va, (size_t)len,
			  (mask & IB_MR_MOD_ACCESS) ? verbs_access(access) : 0);
	/* DO_FORK_OLD: changed; only the old range's fork protection stayed. */
	if (rc == 0 || rc == IBV_REREG_MR_ERR_DO_FORK_OLD)
		return IB_SUCCESS;
	IBAL_DBG(IBAL_SUB_VERBS, "%s: ibv_rereg_mr: %d (errno %d), registering anew",
			ca->name, rc, errno);
	fresh = ibv_reg_mr(pd->ibv, (void *)(uintptr_t)va, (size_t)len, verbs_access(access));
	if (!fresh) {
		ib_api_status_t st = verbs_errno_status(errno);

		return st == IB_INVALID_PARAMETER ? IB_INVALID_SETTING : st;
	}
	pthread_mutex_lock(&ca->lock);
	old = mr->ibv;
	mr->ibv = fresh;
	pthread_mutex_unlock(&ca->lock);
	rc = ibv_dereg_mr(old);
	if (rc) {
		pthread_mutex_lock(&ca->lock);
		mr->ibv = old;
		pthread_mutex_unlock(&ca->lock);
		ibv_dereg_mr(fresh);
		return rc == EBUSY ? IB_RESOURCE_BUSY : verbs_errno_status(rc);
	}
	return IB_SUCCESS;
}

ib_api_status_t verbs_rereg_mem(void *h, ib_mr_mod_t mask, const ib_mr_create_t *p_create,
				void *new_pd, net32_t *p_lkey, net32_t *p_rkey)
{
	verbs_mr_t *mr = h;
	verbs_pd_t *pd = mr->pd;
	verbs_ca_t *ca = pd->ca;
	uint64_t va, len;
	ib_access_t access;
	uint32_t n_mw;
	ib_api_status_t st;

	if (!p_lkey || !p_rkey || !mask ||
	    (mask & ~(ib_mr_mod_t)(IB_MR_MOD_ADDR | IB_MR_MOD_PD | IB_MR_MOD_ACCESS)))
		return IB_INVALID_PARAMETER;
	if ((mask & (IB_MR_MOD_ADDR | IB_MR_MOD_ACCESS)) && !p_create)
		return IB_INVALID_PARAMETER;
	if (mask & IB_MR_MOD_PD) {
		if (!new_pd || ((verbs_pd_t *)new_pd)->ca != ca)
			return IB_INVALID_PD_HANDLE;
		pd = new_pd;
	}
	pthread_mutex_lock(&ca->lock);
	va = mr->va;
	len = mr->len;
	access = mr->access;
	n_mw = mr->n_mw;
	pthread_mutex_unlock(&ca->lock);
	if (mask & IB_MR_MOD_ADDR) {
		va = (uint64_t)(uintptr_t)p_create->vaddr;
		len = p_create->length;
		if (!va || !len || va + len < va)
			return IB_INVALID_SETTING;
	}
	if (mask & IB_MR_MOD_ACCESS)
		access = p_create->access_ctrl;
	st = mr_access_check(access);
	if (st != IB_SUCCESS)
		return st;
	/* A window bound to the region would outlive its range: refused, as
	 * ib_dereg_mr() is (a bind racing with this call is the caller's). */
	if (n_mw)
		return IB_RESOURCE_BUSY;
	if (mr->ibv) {
		st = rereg_ibv(mr, mask, pd, va, len, access);
		if (st != IB_SUCCESS)
			return st;
	}
	pthread_mutex_lock(&ca->lock);
	mr->pd = pd;
	mr->va = va;
	mr->len = len;
	mr->access = access;
	/* New keys for the MAD path's record (a libibverbs region has its own). */
	mr->key = (mr_next_gen(ca) << 16) | KEY_INDEX(mr->key);
	mr_keys(mr, p_lkey, p_rkey);
	pthread_mutex_unlock(&ca->lock);
	return IB_SUCCESS;
}

ib_api_status_t verbs_reg_shared(void *h, void *h_pd, ib_access_t access, uint64_t *p_vaddr,
				 net32_t *p_lkey, net32_t *p_rkey, void **pp_mr)
{
	verbs_mr_t *mr = h;
	verbs_pd_t *pd = h_pd;
	ib_mr_create_t c;
	ib_api_status_t st;

	if (!p_vaddr)
		return IB_INVALID_PARAMETER;
	if (!pd || pd->ca != mr->pd->ca)
		return IB_INVALID_PD_HANDLE;
	/* The same memory at the same address: a virtual registration cannot
	 * place it elsewhere, so *p_vaddr's request is not honoured (as soft). */
	memset(&c, 0, sizeof(c));
	pthread_mutex_lock(&pd->ca->lock);
	c.vaddr = (void *)(uintptr_t)mr->va;
	c.length = mr->len;
	pthread_mutex_unlock(&pd->ca->lock);
	c.access_ctrl = access;
	st = verbs_reg_mem(pd, &c, p_lkey, p_rkey, pp_mr);
	if (st == IB_SUCCESS)
		*p_vaddr = (uint64_t)(uintptr_t)c.vaddr;
	return st;
}

ib_api_status_t verbs_dereg_mr(void *h)
{
	verbs_mr_t *mr = h;
	verbs_ca_t *ca = mr->pd->ca;
	uint32_t n_mw;

	pthread_mutex_lock(&ca->lock);
	n_mw = mr->n_mw;
	pthread_mutex_unlock(&ca->lock);
	if (n_mw)
		return IB_RESOURCE_BUSY; /* windows bound (rxe would say EINVAL) */
	if (mr->ibv) {
		int rc = ibv_dereg_mr(mr->ibv);

		if (rc)
			return rc == EBUSY ? IB_RESOURCE_BUSY : verbs_errno_status(rc);
	}
	pthread_mutex_lock(&ca->lock);
	if (KEY_INDEX(mr->key) < VERBS_MAX_MRS && ca->mr[KEY_INDEX(mr->key)] == mr)
		ca->mr[KEY_INDEX(mr->key)] = NULL;
	pthread_mutex_unlock(&ca->lock);
	free(mr);
	return IB_SUCCESS;
}

boolean_t verbs_mr_check(verbs_ca_t *ca, verbs_pd_t *pd, net32_t lkey, uint64_t va,
			 uint32_t len)
{
	uint32_t key = verbs_lkey(lkey);
	verbs_mr_t *mr = NULL;
	boolean_t ok = FALSE;
	unsigned i;

	if (!ca->ctx && KEY_INDEX(key) >= VERBS_MAX_MRS)
		return FALSE;
	pthread_mutex_lock(&ca->lock);
	if (ca->ctx) { /* libibverbs keys: look the key up (MAD path only) */
		for (i = 0; i < VERBS_MAX_MRS && !mr; i++)
			if (ca->mr[i] && ca->mr[i]->ibv && ca->mr[i]->ibv->lkey == key)
				mr = ca->mr[i];
	} else {
		mr = ca->mr[KEY_INDEX(key)];
		if (mr && mr->key != key)
			mr = NULL;
	}
	if (mr && mr->pd == pd && va >= mr->va &&
	    (uint64_t)len <= mr->len && va - mr->va <= mr->len - len)
		ok = TRUE;
	pthread_mutex_unlock(&ca->lock);
	return ok;
}

/* ---- CQ ---- */

ib_api_status_t verbs_create_cq(void *h, uint32_t *p_size, void *al_cq, void **pp_cq)
{
	verbs_ca_t *ca = h;
	verbs_cq_t *cq;
	uint32_t size;

	if (!p_size || !pp_cq)
		return IB_INVALID_PARAMETER;
	if (*p_size == 0 || *p_size > (ca->ctx ? ca->attr->max_cqes : VERBS_MAX_CQES))
		return IB_INVALID_CQ_SIZE;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return IB_INSUFFICIENT_MEMORY;
	cq->ca = ca;
	cq->al_cq = al_cq;
	size = *p_size;
	if (ca->ctx) {
		cq->ibv = ibv_create_cq(ca->ctx, (int)size, cq, ca->chan, 0);
		if (!cq->ibv) {
			ib_api_status_t st = verbs_errno_status(errno);

			free(cq);
			return st == IB_INVALID_PARAMETER ? IB_INVALID_CQ_SIZE : st;
		}
		size = (uint32_t)cq->ibv->cqe;
	}
	if (prov_wc_ring_init(&cq->ring, size)) {
		if (cq->ibv)
			ibv_destroy_cq(cq->ibv);
		free(cq);
		return IB_INSUFFICIENT_MEMORY;
	}
	pthread_mutex_init(&cq->lock, NULL);
	*p_size = size;
	*pp_cq = cq;
	return IB_SUCCESS;
}

ib_api_status_t verbs_resize_cq(void *h, uint32_t *p_size)
{
	verbs_cq_t *cq = h;
	prov_wc_ring_t r;
	uint32_t size, i;
	int rc;

	if (!p_size)
		return IB_INVALID_PARAMETER;
	if (!cq->ibv)
		return IB_UNSUPPORTED;
	pthread_mutex_lock(&cq->lock);
	if (*p_size < cq->ring.count) {
		pthread_mutex_unlock(&cq->lock);
		return IB_INVALID_CQ_SIZE;
	}
	rc = ibv_resize_cq(cq->ibv, (int)*p_size);
	if (rc) {
		pthread_mutex_unlock(&cq->lock);
		return rc == EINVAL ? IB_INVALID_CQ_SIZE : verbs_errno_status(rc);
	}
	size = (uint32_t)cq->ibv->cqe;
	if (size != cq->ring.size && !prov_wc_ring_init(&r, size)) {
		for (i = 0; i < cq->ring.count; i++)
			r.wc[i] = cq->ring.wc[prov_ring_at(cq->ring.head, i, cq->ring.size)];
		r.count = cq->ring.count;
		r.arm = cq->ring.arm;
		r.arm_n = cq->ring.arm_n;
		prov_wc_ring_free(&cq->ring);
		cq->ring = r;
	}
	pthread_mutex_unlock(&cq->lock);
	*p_size = size;
	return IB_SUCCESS;
}

ib_api_status_t verbs_query_cq(void *h, uint32_t *p_size)
{
	verbs_cq_t *cq = h;

	if (!p_size)
		return IB_INVALID_PARAMETER;
	*p_size = cq->ibv ? (uint32_t)cq->ibv->cqe : cq->ring.size;
	return IB_SUCCESS;
}

void verbs_destroy_cq(void *h)
{
	verbs_cq_t *cq = h;
	verbs_ca_t *ca = cq->ca;
	verbs_cq_t **pp;

	pthread_mutex_lock(&ca->lock);
	cq->dying = 1;
	for (pp = &ca->notify; *pp; pp = &(*pp)->next_notify) {
		if (*pp == cq) {
			*pp = cq->next_notify;
			break;
		}
	}
	/* Wait for an upcall in progress, unless we are inside it. */
	while (ca->cb_cq == cq && !pthread_equal(pthread_self(), ca->worker))
		pthread_cond_wait(&ca->cond, &ca->lock);
	pthread_mutex_unlock(&ca->lock);
	if (cq->ibv) /* waits until the worker acknowledged its events */
		ibv_destroy_cq(cq->ibv);
	pthread_mutex_destroy(&cq->lock);
	prov_wc_ring_free(&cq->ring);
	free(cq);
}

ib_api_status_t verbs_peek_cq(void *h, uint32_t *p_n)
{
	verbs_cq_t *cq = h;

	if (!p_n)
		return IB_INVALID_PARAMETER;
	pthread_mutex_lock(&cq->lock);
	if (cq->ibv)
		verbs_cq_drain(cq);
	*p_n = cq->ring.count;
	pthread_mutex_unlock(&cq->lock);
	return IB_SUCCESS;
}

/* Translates @p n completions into the free list from *@p p_w on; returns
 * the last entry filled, and leaves *@p p_w at the first still free. */
static inline __attribute__((always_inline)) ib_wc_t *poll_fill(const struct ibv_wc *v, int n,
								  ib_wc_t **p_w)
{
	ib_wc_t *w = *p_w, *last = NULL;
	int i;

	for (i = 0; i < n; i++) {
		verbs_wc(&v[i], w);
		last = w;
		w = w->p_next;
	}
	*p_w = w;
	return last;
}

/* Ends a poll that filled the free list up to @p last: the done list is
 * its head, the free list goes on at @p w. */
static inline __attribute__((always_inline)) ib_api_status_t poll_end(ib_wc_t *w, ib_wc_t *last,
									ib_wc_t **pp_free,
									ib_wc_t **pp_done)
{
	*pp_done = *pp_free;
	*pp_free = w;
	last->p_next = NULL;
	return IB_SUCCESS;
}

/*
 * The fast path: completions straight from the ibv_cq into the free list.
 * The done list is the free list's first entries in their order, so only
 * the last one's p_next is written.
 *
 * The number asked of ibv_poll_cq must be counted down the free list. The
 * first call asks for at most VERBS_POLL_PROBE (poll_ibv, inlined into
 * verbs_poll_cq with a small frame), so that a poll of an empty CQ (the
 * loop of a thread waiting for a completion) or one that finds a
 * completion or two walks a few entries and returns: the waiting loop is
 * shorter, and a completion is seen sooner after it lands. A poll that
 * fills the probe goes on in batches of VERBS_POLL_BATCH (poll_more).
 */
static __attribute__((noinline)) ib_api_status_t poll_more(verbs_cq_t *cq, ib_wc_t *w, ib_wc_t *last,
							   ib_wc_t **pp_free, ib_wc_t **pp_done)
{
	struct ibv_wc v[VERBS_POLL_BATCH];
	ib_wc_t *c;
	int want, n;

	do {
		for (want = 0, c = w; c && want < VERBS_POLL_BATCH; want++)
			c = c->p_next;
		n = ibv_poll_cq(cq->ibv, want, v);
		if (__builtin_expect(n < 0, 0))
			n = 0;  /* what came before is returned; the error shows at the next poll */
		if (n)
			last = poll_fill(v, n, &w);
	} while (n == want && w);
	return poll_end(w, last, pp_free, pp_done);
}

static inline __attribute__((always_inline)) ib_api_status_t
poll_ibv(verbs_cq_t *cq, ib_wc_t **pp_free, ib_wc_t **pp_done)
{
	struct ibv_wc v[VERBS_POLL_PROBE];
	ib_wc_t *w = *pp_free, *last, *c = w->p_next;
	int want = 1, n;

	for (; c && want < VERBS_POLL_PROBE; want++)
		c = c->p_next;
	n = ibv_poll_cq(cq->ibv, want, v);
	if (n <= 0) {
		*pp_done = NULL;
		return n ? IB_ERROR : IB_NOT_FOUND;
	}
	last = poll_fill(v, n, &w);
	if (n == want && w)
		return poll_more(cq, w, last, pp_free, pp_done);
	return poll_end(w, last, pp_free, pp_done);
}

/* Completions the worker stashed in the ring (or counted for a rearm_n). */
static __attribute__((noinline)) ib_api_status_t poll_ring(verbs_cq_t *cq, ib_wc_t **pp_free,
							   ib_wc_t **pp_done)
{
	ib_api_status_t st;

	pthread_mutex_lock(&cq->lock);
	if (cq->ibv)
		verbs_cq_drain(cq);
	st = prov_wc_ring_take(&cq->ring, pp_free, pp_done);
	pthread_mutex_unlock(&cq->lock);
	return st;
}

ib_api_status_t verbs_poll_cq(void *h, ib_wc_t **pp_free, ib_wc_t **pp_done)
{
	verbs_cq_t *cq = h;

	if (!pp_free || !pp_done || !*pp_free)
		return IB_INVALID_PARAMETER;
	if (cq->ibv && !__atomic_load_n(&cq->ring.count, __ATOMIC_ACQUIRE) &&
	    !__atomic_load_n(&cq->n_want, __ATOMIC_ACQUIRE))
		return poll_ibv(cq, pp_free, pp_done);
	return poll_ring(cq, pp_free, pp_done);
}

ib_api_status_t verbs_rearm_cq(void *h, boolean_t solicited)
{
	verbs_cq_t *cq = h;

	pthread_mutex_lock(&cq->lock);
	prov_wc_ring_rearm(&cq->ring, solicited);
	cq->n_want = 0;
	pthread_mutex_unlock(&cq->lock);
	if (cq->ibv) {
		int rc = ibv_req_notify_cq(cq->ibv, solicited ? 1 : 0);

		if (rc)
			return verbs_errno_status(rc);
	}
	return IB_SUCCESS;
}

ib_api_status_t verbs_rearm_n_cq(void *h, uint32_t n)
{
	verbs_cq_t *cq = h;
	int fire = 0;

	if (n == 0 || n > cq->ring.size)
		return IB_INVALID_PARAMETER;
	pthread_mutex_lock(&cq->lock);
	prov_wc_ring_rearm_n(&cq->ring, n);
	if (cq->ibv) {
		/* Completions already there are not new: stash them, then count. */
		cq->n_want = 0;
		verbs_cq_drain(cq);
		cq->n_want = n;
		ibv_req_notify_cq(cq->ibv, 0);
		verbs_cq_drain(cq);
		fire = !cq->n_want;
		if (fire)
			cq->ring.arm = PROV_WC_ARM_NONE;
	}
	pthread_mutex_unlock(&cq->lock);
	if (fire)
		verbs_ca_notify(cq->ca, cq, 0);
	return IB_SUCCESS;
}

/* MAD completions are never solicited; an error completion fires SOL too. */
void verbs_cq_add(verbs_cq_t *cq, const ib_wc_t *p_wc)
{
	boolean_t fire, lost;

	pthread_mutex_lock(&cq->lock);
	prov_wc_ring_put(&cq->ring, p_wc, FALSE, &fire, &lost);
	pthread_mutex_unlock(&cq->lock);
	if (fire || lost)
		verbs_ca_notify(cq->ca, cq, lost);
}

#else /* !HAVE_VERBS_PROV: nothing to build (verbs_prov.c lists no CA) */
typedef int verbs_obj_unused_t;
#endif /* HAVE_VERBS_PROV */
