/*
 * ibal access layer: ib_force_apm(), migrating a queue pair to its alternate path.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The IBA lets the consumer move a connected QP's path migration state
 * from ARMED to MIGRATED while the QP is in RTS (vol. 1, 17.2.8): the QP
 * switches to its alternate path at once, and the peer follows when the
 * first packet with MigReq set reaches it on its own alternate path. This
 * is a Modify QP that changes nothing else (RTS to RTS with
 * IB_MOD_QP_APM_STATE = IB_APM_MIGRATED), so it works through any
 * provider's modify_qp (the soft HCA, and libibverbs' path_mig_state).
 *
 * The checks first read the QP (query_qp): only a reliable or unreliable
 * connection in RTS with an alternate path loaded and the APM state ARMED
 * may migrate; anything else is IB_INVALID_QP_STATE, as ib_al.h documents.
 * Should the HCA migrate by itself between the query and the modify, the
 * modify sets MIGRATED on a migrated QP, which changes nothing: the QP is
 * on its alternate path either way.
 */
#include <string.h>
#include "al_verbs.h"

/* The QP may be migrated now (see the file comment). */
static boolean_t apm_armed(const ib_qp_attr_t *a)
{
	return (a->qp_type == IB_QPT_RELIABLE_CONN || a->qp_type == IB_QPT_UNRELIABLE_CONN) &&
	       a->state == IB_QPS_RTS && a->apm_state == IB_APM_ARMED && a->alternate_port;
}

/* The migration of an entered QP. */
static ib_api_status_t force_apm(al_qp_t *p_qp)
{
	const al_prov_ops_t *ops = p_qp->v.p_ops;
	ib_qp_attr_t attr;
	ib_qp_mod_t mod;
	ib_api_status_t st;

	memset(&attr, 0, sizeof(attr));
	st = ops->query_qp(p_qp->v.p_prov, &attr);
	if (st != IB_SUCCESS)
		return st;
	if (!apm_armed(&attr))
		return IB_INVALID_QP_STATE;
	memset(&mod, 0, sizeof(mod));
	mod.req_state = IB_QPS_RTS;
	mod.state.rts.opts = IB_MOD_QP_APM_STATE;
	mod.state.rts.apm_state = IB_APM_MIGRATED;
	return ops->modify_qp(p_qp->v.p_prov, &mod);
}

ib_api_status_t ib_force_apm(const ib_qp_handle_t h_qp)
{
	al_qp_t *p_qp = (al_qp_t *)AL_ENTER(h_qp, AL_HDL_QP);
	ib_api_status_t st;

	if (!p_qp)
		return IB_INVALID_QP_HANDLE;
	st = force_apm(p_qp);
	AL_EXIT(h_qp);
	return st;
}
