/*
 * ibal access layer: the data path (posts, poll, peek, rearm) with one indirect call each.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Fast path, for a thread registered with al_epoch_register() and not
 * already inside a call: the call marks its thread inside (al_epoch.h: one
 * plain store to the thread's own record, no atomic read-modify-write, no
 * fence), reads the handle's slot once (al_handle_dp_slot(): a masked
 * offset into the table's region of the type and one compare), calls the
 * provider function cached in the slot with the provider object cached
 * there, and marks itself outside; a destroy racing the call waits for it
 * (al_handle_drain(): al_epoch_synchronize()).
 *
 * Slow path (out of line): a thread not registered yet registers and takes
 * the fast path; a call nested in another, or any call in a process that
 * cannot register (no private expedited membarrier), counts itself in the
 * handle (al_handle_enter()), which the drain waits for as well.
 *
 * NULL pointers the API documents as invalid are caught here (after the
 * handle, whose error comes first); everything else is the provider's to
 * check.
 */
#include "al_epoch.h"
#include "al_verbs.h"

#define AL_DP_COLD __attribute__((noinline, cold))

/* Indexes of the functions cached in a slot (al_handle_dp_t::pfn). */
enum { DP_POST_SEND, DP_POST_RECV };
enum { DP_POST_SRQ_RECV };
enum { DP_POLL_CQ, DP_PEEK_CQ, DP_REARM_CQ, DP_REARM_N_CQ };

typedef __typeof__(((al_prov_ops_t *)0)->post_send) post_send_fn;
typedef __typeof__(((al_prov_ops_t *)0)->post_recv) post_recv_fn;
typedef __typeof__(((al_prov_ops_t *)0)->post_srq_recv) post_srq_recv_fn;
typedef __typeof__(((al_prov_ops_t *)0)->poll_cq) poll_cq_fn;
typedef __typeof__(((al_prov_ops_t *)0)->peek_cq) peek_cq_fn;
typedef __typeof__(((al_prov_ops_t *)0)->rearm_cq) rearm_cq_fn;
typedef __typeof__(((al_prov_ops_t *)0)->rearm_n_cq) rearm_n_cq_fn;

void al_handle_dp_fill(al_handle_type_t type, const void *p_verbs_obj, al_handle_dp_t *p_dp)
{
	const al_verbs_obj_t *v = (const al_verbs_obj_t *)p_verbs_obj;

	cl_memclr(p_dp, sizeof(*p_dp));
	p_dp->p_prov = v->p_prov;
	switch (type) {
	case AL_HDL_QP:
		p_dp->pfn[DP_POST_SEND] = (al_dp_fn_t)v->p_ops->post_send;
		p_dp->pfn[DP_POST_RECV] = (al_dp_fn_t)v->p_ops->post_recv;
		break;
	case AL_HDL_SRQ:
		p_dp->pfn[DP_POST_SRQ_RECV] = (al_dp_fn_t)v->p_ops->post_srq_recv;
		break;
	case AL_HDL_CQ:
		p_dp->pfn[DP_POLL_CQ] = (al_dp_fn_t)v->p_ops->poll_cq;
		p_dp->pfn[DP_PEEK_CQ] = (al_dp_fn_t)v->p_ops->peek_cq;
		p_dp->pfn[DP_REARM_CQ] = (al_dp_fn_t)v->p_ops->rearm_cq;
		p_dp->pfn[DP_REARM_N_CQ] = (al_dp_fn_t)v->p_ops->rearm_n_cq;
		break;
	default:
		break;
	}
}

/* Fast path: h looked up as type inside an epoch, or bad; the cached
 * function idx, of type fn_type, called with the cached provider object
 * and args...; a thread that cannot enter goes to slow(h, args...). */
#define AL_DP_CALL(h, type, bad, idx, fn_type, slow, ...)                                \
	do {                                                                             \
		al_epoch_rec_t *p_e_ = al_epoch_rec();                                   \
		const al_handle_slot_t *p_s_;                                            \
		ib_api_status_t st_;                                                     \
                                                                                         \
		if (__builtin_expect(!al_epoch_try_enter(p_e_), 0))                      \
			return slow(h, __VA_ARGS__);                                     \
		p_s_ = al_handle_dp_slot(AL_HANDLE_FROM_IB(h), (type));                  \
		if (!al_handle_dp_live(p_s_, AL_HANDLE_FROM_IB(h))) {                    \
			al_epoch_exit(p_e_);                                             \
			return (bad);                                                    \
		}                                                                        \
		st_ = ((fn_type)p_s_->dp.pfn[idx])(p_s_->dp.p_prov, __VA_ARGS__);        \
		al_epoch_exit(p_e_);                                                     \
		return st_;                                                              \
	} while (0)

/* Slow path: registers the thread and retries fast (fast(h, args...)), or
 * enters h as type (counted), calls slot(p_prov, args...) and exits. */
#define AL_DP_SLOW(h, type, bad, slot, fast, ...)                                        \
	do {                                                                             \
		al_verbs_obj_t *p_v_;                                                    \
		ib_api_status_t st_;                                                     \
                                                                                         \
		if (al_epoch_register())                                                 \
			return fast(h, __VA_ARGS__);                                     \
		p_v_ = (al_verbs_obj_t *)al_handle_enter(AL_HANDLE_FROM_IB(h), (type));  \
		if (!p_v_)                                                               \
			return (bad);                                                    \
		st_ = p_v_->p_ops->slot(p_v_->p_prov, __VA_ARGS__);                      \
		al_handle_exit(AL_HANDLE_FROM_IB(h));                                    \
		return st_;                                                              \
	} while (0)

/* A call with a NULL argument: the handle's error first, else bad_arg. */
static AL_DP_COLD ib_api_status_t bad_args(const void *h, al_handle_type_t type,
					   ib_api_status_t bad_handle)
{
	if (!al_handle_lookup(AL_HANDLE_FROM_IB(h), type))
		return bad_handle;
	return IB_INVALID_PARAMETER;
}

/* ---- Posts ---- */

static ib_api_status_t post_send(const ib_qp_handle_t h_qp, ib_send_wr_t *const p_send_wr,
				 ib_send_wr_t **pp_send_failure);

static AL_DP_COLD ib_api_status_t post_send_slow(const ib_qp_handle_t h_qp,
						  ib_send_wr_t *const p_send_wr,
						  ib_send_wr_t **pp_send_failure)
{
	AL_DP_SLOW(h_qp, AL_HDL_QP, IB_INVALID_QP_HANDLE, post_send, post_send, p_send_wr,
		   pp_send_failure);
}

static inline ib_api_status_t post_send(const ib_qp_handle_t h_qp, ib_send_wr_t *const p_send_wr,
					ib_send_wr_t **pp_send_failure)
{
	if (__builtin_expect(!p_send_wr, 0))
		return bad_args(h_qp, AL_HDL_QP, IB_INVALID_QP_HANDLE);
	AL_DP_CALL(h_qp, AL_HDL_QP, IB_INVALID_QP_HANDLE, DP_POST_SEND, post_send_fn,
		   post_send_slow, p_send_wr, pp_send_failure);
}

ib_api_status_t ib_post_send(const ib_qp_handle_t h_qp, ib_send_wr_t *const p_send_wr,
			     ib_send_wr_t **pp_send_failure)
{
	return post_send(h_qp, p_send_wr, pp_send_failure);
}

static ib_api_status_t post_recv(const ib_qp_handle_t h_qp, ib_recv_wr_t *const p_recv_wr,
				 ib_recv_wr_t **pp_recv_failure);

static AL_DP_COLD ib_api_status_t post_recv_slow(const ib_qp_handle_t h_qp,
						  ib_recv_wr_t *const p_recv_wr,
						  ib_recv_wr_t **pp_recv_failure)
{
	AL_DP_SLOW(h_qp, AL_HDL_QP, IB_INVALID_QP_HANDLE, post_recv, post_recv, p_recv_wr,
		   pp_recv_failure);
}

static inline ib_api_status_t post_recv(const ib_qp_handle_t h_qp, ib_recv_wr_t *const p_recv_wr,
					ib_recv_wr_t **pp_recv_failure)
{
	if (__builtin_expect(!p_recv_wr, 0))
		return bad_args(h_qp, AL_HDL_QP, IB_INVALID_QP_HANDLE);
	AL_DP_CALL(h_qp, AL_HDL_QP, IB_INVALID_QP_HANDLE, DP_POST_RECV, post_recv_fn,
		   post_recv_slow, p_recv_wr, pp_recv_failure);
}

ib_api_status_t ib_post_recv(const ib_qp_handle_t h_qp, ib_recv_wr_t *const p_recv_wr,
			     ib_recv_wr_t **pp_recv_failure)
{
	return post_recv(h_qp, p_recv_wr, pp_recv_failure);
}

static ib_api_status_t post_srq_recv(const ib_srq_handle_t h_srq, ib_recv_wr_t *const p_recv_wr,
				     ib_recv_wr_t **pp_recv_failure);

static AL_DP_COLD ib_api_status_t post_srq_recv_slow(const ib_srq_handle_t h_srq,
						      ib_recv_wr_t *const p_recv_wr,
						      ib_recv_wr_t **pp_recv_failure)
{
	/* Upstream reports a bad SRQ handle as IB_INVALID_QP_HANDLE here. */
	AL_DP_SLOW(h_srq, AL_HDL_SRQ, IB_INVALID_QP_HANDLE, post_srq_recv, post_srq_recv,
		   p_recv_wr, pp_recv_failure);
}

static inline ib_api_status_t post_srq_recv(const ib_srq_handle_t h_srq,
					    ib_recv_wr_t *const p_recv_wr,
					    ib_recv_wr_t **pp_recv_failure)
{
	if (__builtin_expect(!p_recv_wr || (p_recv_wr->p_next && !pp_recv_failure), 0))
		return bad_args(h_srq, AL_HDL_SRQ, IB_INVALID_QP_HANDLE);
	AL_DP_CALL(h_srq, AL_HDL_SRQ, IB_INVALID_QP_HANDLE, DP_POST_SRQ_RECV, post_srq_recv_fn,
		   post_srq_recv_slow, p_recv_wr, pp_recv_failure);
}

ib_api_status_t ib_post_srq_recv(const ib_srq_handle_t h_srq, ib_recv_wr_t *const p_recv_wr,
				 ib_recv_wr_t **pp_recv_failure)
{
	return post_srq_recv(h_srq, p_recv_wr, pp_recv_failure);
}

/* ---- Completion queues ---- */

static ib_api_status_t peek_cq(const ib_cq_handle_t h_cq, uint32_t *const p_n_cqes);

static AL_DP_COLD ib_api_status_t peek_cq_slow(const ib_cq_handle_t h_cq,
						uint32_t *const p_n_cqes)
{
	AL_DP_SLOW(h_cq, AL_HDL_CQ, IB_INVALID_CQ_HANDLE, peek_cq, peek_cq, p_n_cqes);
}

static inline ib_api_status_t peek_cq(const ib_cq_handle_t h_cq, uint32_t *const p_n_cqes)
{
	if (__builtin_expect(!p_n_cqes, 0))
		return bad_args(h_cq, AL_HDL_CQ, IB_INVALID_CQ_HANDLE);
	AL_DP_CALL(h_cq, AL_HDL_CQ, IB_INVALID_CQ_HANDLE, DP_PEEK_CQ, peek_cq_fn, peek_cq_slow,
		   p_n_cqes);
}

ib_api_status_t ib_peek_cq(const ib_cq_handle_t h_cq, uint32_t *const p_n_cqes)
{
	return peek_cq(h_cq, p_n_cqes);
}

static ib_api_status_t poll_cq(const ib_cq_handle_t h_cq, ib_wc_t **const pp_free_wclist,
			       ib_wc_t **const pp_done_wclist);

static AL_DP_COLD ib_api_status_t poll_cq_slow(const ib_cq_handle_t h_cq,
						ib_wc_t **const pp_free_wclist,
						ib_wc_t **const pp_done_wclist)
{
	AL_DP_SLOW(h_cq, AL_HDL_CQ, IB_INVALID_CQ_HANDLE, poll_cq, poll_cq, pp_free_wclist,
		   pp_done_wclist);
}

static inline ib_api_status_t poll_cq(const ib_cq_handle_t h_cq, ib_wc_t **const pp_free_wclist,
				      ib_wc_t **const pp_done_wclist)
{
	if (__builtin_expect(!pp_free_wclist || !pp_done_wclist || !*pp_free_wclist, 0))
		return bad_args(h_cq, AL_HDL_CQ, IB_INVALID_CQ_HANDLE);
	AL_DP_CALL(h_cq, AL_HDL_CQ, IB_INVALID_CQ_HANDLE, DP_POLL_CQ, poll_cq_fn, poll_cq_slow,
		   pp_free_wclist, pp_done_wclist);
}

ib_api_status_t ib_poll_cq(const ib_cq_handle_t h_cq, ib_wc_t **const pp_free_wclist,
			   ib_wc_t **const pp_done_wclist)
{
	return poll_cq(h_cq, pp_free_wclist, pp_done_wclist);
}

static ib_api_status_t rearm_cq(const ib_cq_handle_t h_cq, const boolean_t solicited);

static AL_DP_COLD ib_api_status_t rearm_cq_slow(const ib_cq_handle_t h_cq,
						 const boolean_t solicited)
{
	AL_DP_SLOW(h_cq, AL_HDL_CQ, IB_INVALID_CQ_HANDLE, rearm_cq, rearm_cq, solicited);
}

static inline ib_api_status_t rearm_cq(const ib_cq_handle_t h_cq, const boolean_t solicited)
{
	AL_DP_CALL(h_cq, AL_HDL_CQ, IB_INVALID_CQ_HANDLE, DP_REARM_CQ, rearm_cq_fn, rearm_cq_slow,
		   solicited);
}

ib_api_status_t ib_rearm_cq(const ib_cq_handle_t h_cq, const boolean_t solicited)
{
	return rearm_cq(h_cq, solicited);
}

static ib_api_status_t rearm_n_cq(const ib_cq_handle_t h_cq, const uint32_t n_cqes);

static AL_DP_COLD ib_api_status_t rearm_n_cq_slow(const ib_cq_handle_t h_cq,
						   const uint32_t n_cqes)
{
	AL_DP_SLOW(h_cq, AL_HDL_CQ, IB_INVALID_CQ_HANDLE, rearm_n_cq, rearm_n_cq, n_cqes);
}

static inline ib_api_status_t rearm_n_cq(const ib_cq_handle_t h_cq, const uint32_t n_cqes)
{
	if (__builtin_expect(!n_cqes, 0))
		return bad_args(h_cq, AL_HDL_CQ, IB_INVALID_CQ_HANDLE);
	AL_DP_CALL(h_cq, AL_HDL_CQ, IB_INVALID_CQ_HANDLE, DP_REARM_N_CQ, rearm_n_cq_fn,
		   rearm_n_cq_slow, n_cqes);
}

ib_api_status_t ib_rearm_n_cq(const ib_cq_handle_t h_cq, const uint32_t n_cqes)
{
	return rearm_n_cq(h_cq, n_cqes);
}
