/*
 * ibal verbs provider: type-1 memory windows (ibv_alloc_mw, ibv_bind_mw through a QP's send queue).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A window is an ibv_mw of type 1 on the PD's ibv_pd; a device without
 * windows (ibv_alloc_mw failing EOPNOTSUPP or ENOSYS) and a MAD-only CA
 * answer IB_UNSUPPORTED. ib_bind_mw posts ibv_bind_mw() on the QP, which
 * gives the window its next R_Key at once (returned in *p_rkey); the bind
 * executes in send-queue order and, when signaled, completes on the send CQ
 * as IB_WC_MW_BIND. A bind of length 0 unbinds (see unbind_mr() for the
 * region it names all the same).
 *
 * The provider checks a bind before posting it, with the soft provider's
 * statuses (QP type and state, current R_Key, region, PD, rights, range),
 * so that what the device would only report as a failed completion (and a
 * QP in ERROR) is refused by the call. Each region counts the windows whose
 * last bind posted names it (ca->lock): while any does, its deregistration
 * and re-registration answer IB_RESOURCE_BUSY. The count follows the binds
 * posted, so a bind the device fails later still counts until the window is
 * re-bound or destroyed.
 */
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "verbs_prov.h"
#include "prov_verbs_xlate.h"

#ifdef HAVE_VERBS_PROV

#define MW_AC_REMOTE (IB_AC_RDMA_READ | IB_AC_RDMA_WRITE | IB_AC_ATOMIC)

ib_api_status_t verbs_create_mw(void *h, net32_t *p_rkey, void **pp_mw)
{
	verbs_pd_t *pd = h;
	verbs_mw_t *mw;
	ib_api_status_t st;

	if (!p_rkey || !pp_mw)
		return IB_INVALID_PARAMETER;
	if (!pd->ibv)
		return IB_UNSUPPORTED; /* a MAD-only CA */
	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return IB_INSUFFICIENT_MEMORY;
	mw->pd = pd;
	mw->ibv = ibv_alloc_mw(pd->ibv, IBV_MW_TYPE_1);
	if (!mw->ibv) {
		st = verbs_errno_status(errno);
		free(mw);
		return st == IB_INVALID_PARAMETER ? IB_UNSUPPORTED : st;
	}
	*p_rkey = cl_hton32(mw->ibv->rkey);
	*pp_mw = mw;
	return IB_SUCCESS;
}

ib_api_status_t verbs_query_mw(void *h, net32_t *p_rkey)
{
	verbs_mw_t *mw = h;
	verbs_ca_t *ca = mw->pd->ca;

	if (!p_rkey)
		return IB_INVALID_PARAMETER;
	pthread_mutex_lock(&ca->lock);
	*p_rkey = cl_hton32(mw->ibv->rkey);
	pthread_mutex_unlock(&ca->lock);
	return IB_SUCCESS;
}

/* Checks a bind against the QP, the window and the region (ca->lock held). */
static ib_api_status_t bind_check(const verbs_mw_t *mw, verbs_qp_t *qp, const ib_bind_wr_t *b,
				  const verbs_mr_t *mr)
{
	ib_access_t acc = b->access_ctrl;
	uint64_t va = b->local_ds.vaddr, len = b->local_ds.length;

	if (!qp->ibv || (qp->type != IB_QPT_RELIABLE_CONN && qp->type != IB_QPT_UNRELIABLE_CONN))
		return IB_INVALID_SERVICE_TYPE;
	if (__atomic_load_n(&qp->attr.state, __ATOMIC_RELAXED) != IB_QPS_RTS)
		return IB_INVALID_QP_STATE;
	if (cl_ntoh32(b->current_rkey) != mw->ibv->rkey)
		return IB_INVALID_RKEY;
	if (len == 0)
		return IB_SUCCESS;
	if (!mr || !mr->ibv)
		return IB_INVALID_MR_HANDLE;
	if (mr->pd != mw->pd || qp->pd != mw->pd)
		return IB_INVALID_PD_HANDLE;
	if (acc & ~(ib_access_t)(MW_AC_REMOTE | IB_AC_LOCAL_WRITE))
		return IB_INVALID_PERMISSION;
	if (!(mr->access & IB_AC_MW_BIND))
		return IB_INVALID_PERMISSION;
	if ((acc & (IB_AC_RDMA_WRITE | IB_AC_ATOMIC)) && !(mr->access & IB_AC_LOCAL_WRITE))
		return IB_INVALID_PERMISSION;
	if (va < mr->va || len > mr->len || va - mr->va > mr->len - len)
		return IB_INVALID_SETTING;
	return IB_SUCCESS;
}

/*
 * A region of the window's PD to name in an unbind (length 0), where
 * libibverbs allows NULL: rxe's provider (rdma-core 44) reads the L_Key of
 * bind_info.mr whatever the length and crashes on NULL. The kernel ignores
 * the region of a bind of length 0. The window's region, else the
 * request's, else any of the PD's; NULL if the PD has none (ca->lock held).
 */
static struct ibv_mr *unbind_mr(const verbs_mw_t *mw, const verbs_mr_t *mr)
{
	verbs_ca_t *ca = mw->pd->ca;
	unsigned i;

	if (mw->mr && mw->mr->ibv)
		return mw->mr->ibv;
	if (mr && mr->ibv && mr->pd == mw->pd)
		return mr->ibv;
	for (i = 0; i < VERBS_MAX_MRS; i++)
		if (ca->mr[i] && ca->mr[i]->ibv && ca->mr[i]->pd == mw->pd)
			return ca->mr[i]->ibv;
	return NULL;
}

/* Posts the bind (ca->lock held: the window's R_Key changes in it). */
static ib_api_status_t bind_post(verbs_mw_t *mw, verbs_qp_t *qp, const ib_bind_wr_t *b,
				 const verbs_mr_t *mr)
{
	struct ibv_mw_bind mb;
	int rc;

	memset(&mb, 0, sizeof(mb));
	mb.wr_id = b->wr_id;
	if (b->send_opt & IB_SEND_OPT_SIGNALED)
		mb.send_flags |= IBV_SEND_SIGNALED;
	if (b->send_opt & IB_SEND_OPT_FENCE)
		mb.send_flags |= IBV_SEND_FENCE;
	if (b->local_ds.length) {
		mb.bind_info.mr = mr->ibv;
		mb.bind_info.addr = b->local_ds.vaddr;
		mb.bind_info.length = b->local_ds.length;
		/* Only remote rights mean anything for a window. */
		mb.bind_info.mw_access_flags =
			(unsigned)verbs_access(b->access_ctrl & (ib_access_t)MW_AC_REMOTE);
	} else {
		mb.bind_info.mr = unbind_mr(mw, mr);
	}
	rc = ibv_bind_mw(qp->ibv, mw->ibv, &mb);
	if (rc == ENOMEM || rc == ENOSPC)
		return IB_INSUFFICIENT_RESOURCES; /* the send queue is full */
	return verbs_errno_status(rc);
}

ib_api_status_t verbs_bind_mw(void *h, void *h_qp, ib_bind_wr_t *b, net32_t *p_rkey)
{
	verbs_mw_t *mw = h;
	verbs_qp_t *qp = h_qp;
	verbs_ca_t *ca = mw->pd->ca;
	verbs_mr_t *mr;
	ib_api_status_t st;

	if (!b || !p_rkey || !qp)
		return IB_INVALID_PARAMETER;
	/* Held against ib_dereg_mr() until al_prov_put(). */
	mr = b->h_mr ? al_prov_mr(b->h_mr) : NULL;
	pthread_mutex_lock(&ca->lock);
	st = bind_check(mw, qp, b, mr);
	if (st == IB_SUCCESS)
		st = bind_post(mw, qp, b, mr);
	if (st == IB_SUCCESS) {
		if (mw->mr)
			mw->mr->n_mw--;
		mw->mr = b->local_ds.length ? mr : NULL;
		if (mw->mr)
			mw->mr->n_mw++;
		*p_rkey = cl_hton32(mw->ibv->rkey);
	}
	pthread_mutex_unlock(&ca->lock);
	if (mr)
		al_prov_put(b->h_mr);
	return st;
}

void verbs_destroy_mw(void *h)
{
	verbs_mw_t *mw = h;
	verbs_ca_t *ca = mw->pd->ca;

	pthread_mutex_lock(&ca->lock);
	if (mw->mr)
		mw->mr->n_mw--;
	mw->mr = NULL;
	pthread_mutex_unlock(&ca->lock);
	ibv_dealloc_mw(mw->ibv);
	free(mw);
}

#else /* !HAVE_VERBS_PROV */
typedef int verbs_mw_unused_t;
#endif /* HAVE_VERBS_PROV */
