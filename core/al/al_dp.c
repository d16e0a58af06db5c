/*
 * ibal access layer: the data path (posts, poll, peek, rearm) with one indirect call each.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Each call marks its thread inside the data path (al_epoch.h: a plain store
 * to the thread's own record, no atomic read-modify-write), looks its handle
 * up, makes one indirect call to the provider through the ops cached in the
 * object, and marks itself outside; a destroy racing the call waits for it
 * (al_handle_drain(): al_epoch_synchronize()). NULL pointers the API
 * documents as invalid are caught here; everything else is the provider's
 * to check.
 */
#include "al_epoch.h"
#include "al_verbs.h"

/* Looks h up as type inside an epoch, or returns bad; calls slot(p_prov,
 * args...) (a slot the provider left empty holds a stub answering
 * IB_UNSUPPORTED: al_prov_stubs.c). */
#define AL_DP_CALL(h, type, bad, slot, ...)                                              \
	do {                                                                             \
		al_epoch_rec_t *p_e_ = al_epoch_enter();                                 \
		al_verbs_obj_t *p_v_ =                                                   \
			(al_verbs_obj_t *)al_handle_get_dp(AL_HANDLE_FROM_IB(h), (type)); \
		ib_api_status_t st_;                                                     \
                                                                                         \
		if (!p_v_) {                                                             \
			al_epoch_exit(p_e_);                                             \
			return (bad);                                                    \
		}                                                                        \
		st_ = p_v_->p_ops->slot(p_v_->p_prov, __VA_ARGS__);                      \
		al_epoch_exit(p_e_);                                                     \
		return st_;                                                              \
	} while (0)

ib_api_status_t ib_post_send(const ib_qp_handle_t h_qp, ib_send_wr_t *const p_send_wr,
			     ib_send_wr_t **pp_send_failure)
{
	if (!p_send_wr) {
		if (!al_handle_lookup(AL_HANDLE_FROM_IB(h_qp), AL_HDL_QP))
			return IB_INVALID_QP_HANDLE;
		return IB_INVALID_PARAMETER;
	}
	AL_DP_CALL(h_qp, AL_HDL_QP, IB_INVALID_QP_HANDLE, post_send, p_send_wr, pp_send_failure);
}

ib_api_status_t ib_post_recv(const ib_qp_handle_t h_qp, ib_recv_wr_t *const p_recv_wr,
			     ib_recv_wr_t **pp_recv_failure)
{
	if (!p_recv_wr) {
		if (!al_handle_lookup(AL_HANDLE_FROM_IB(h_qp), AL_HDL_QP))
			return IB_INVALID_QP_HANDLE;
		return IB_INVALID_PARAMETER;
	}
	AL_DP_CALL(h_qp, AL_HDL_QP, IB_INVALID_QP_HANDLE, post_recv, p_recv_wr, pp_recv_failure);
}

ib_api_status_t ib_post_srq_recv(const ib_srq_handle_t h_srq, ib_recv_wr_t *const p_recv_wr,
				 ib_recv_wr_t **pp_recv_failure)
{
	/* Upstream reports a bad SRQ handle as IB_INVALID_QP_HANDLE here. */
	if (!p_recv_wr || (p_recv_wr->p_next && !pp_recv_failure)) {
		if (!al_handle_lookup(AL_HANDLE_FROM_IB(h_srq), AL_HDL_SRQ))
			return IB_INVALID_QP_HANDLE;
		return IB_INVALID_PARAMETER;
	}
	AL_DP_CALL(h_srq, AL_HDL_SRQ, IB_INVALID_QP_HANDLE, post_srq_recv, p_recv_wr,
		   pp_recv_failure);
}

ib_api_status_t ib_peek_cq(const ib_cq_handle_t h_cq, uint32_t *const p_n_cqes)
{
	if (!p_n_cqes) {
		if (!al_handle_lookup(AL_HANDLE_FROM_IB(h_cq), AL_HDL_CQ))
			return IB_INVALID_CQ_HANDLE;
		return IB_INVALID_PARAMETER;
	}
	AL_DP_CALL(h_cq, AL_HDL_CQ, IB_INVALID_CQ_HANDLE, peek_cq, p_n_cqes);
}

ib_api_status_t ib_poll_cq(const ib_cq_handle_t h_cq, ib_wc_t **const pp_free_wclist,
			   ib_wc_t **const pp_done_wclist)
{
	if (!pp_free_wclist || !pp_done_wclist || !*pp_free_wclist) {
		if (!al_handle_lookup(AL_HANDLE_FROM_IB(h_cq), AL_HDL_CQ))
			return IB_INVALID_CQ_HANDLE;
		return IB_INVALID_PARAMETER;
	}
	AL_DP_CALL(h_cq, AL_HDL_CQ, IB_INVALID_CQ_HANDLE, poll_cq, pp_free_wclist,
		   pp_done_wclist);
}

ib_api_status_t ib_rearm_cq(const ib_cq_handle_t h_cq, const boolean_t solicited)
{
	AL_DP_CALL(h_cq, AL_HDL_CQ, IB_INVALID_CQ_HANDLE, rearm_cq, solicited);
}

ib_api_status_t ib_rearm_n_cq(const ib_cq_handle_t h_cq, const uint32_t n_cqes)
{
	if (!n_cqes) {
		if (!al_handle_lookup(AL_HANDLE_FROM_IB(h_cq), AL_HDL_CQ))
			return IB_INVALID_CQ_HANDLE;
		return IB_INVALID_PARAMETER;
	}
	AL_DP_CALL(h_cq, AL_HDL_CQ, IB_INVALID_CQ_HANDLE, rearm_n_cq, n_cqes);
}
