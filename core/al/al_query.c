/*
 * ibal access layer: SA queries (ib_query, ib_cancel_query).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A query is an object under its AL instance (handle type AL_HDL_QUERY)
 * with one request (al_sa_client.h). Its result is delivered as a callback
 * queued on the query (or, with IB_FLAGS_SYNC, in the caller's thread
 * before ib_query() returns); the query then destroys itself. Closing the
 * instance cancels the queries still out: their callbacks report
 * IB_CANCELED.
 */
#include <string.h>
#include <complib/cl_memory.h>
#include "al_sa_client.h"
#include "al_verbs.h"

typedef struct al_query {
	al_obj_t obj;
	al_sa_req_t req;
	al_sa_port_t *p_port;        /* counted; NULL until got */
	ib_query_type_t type;
	const void *context;
	ib_pfn_query_cb_t pfn_query_cb;
	al_cb_item_t item;           /* the result callback */
} al_query_t;

/* Records in a response: one for the single-record methods, else as many
 * whole records as the payload holds: the RMPP PayloadLength when given,
 * else the element's size, which is the length received (docs/mad.md,
 * "Record counts"). A single 256-byte answer without RMPP thus counts
 * (256 - 56) / record size, zero-filled slots included: an SA that sends
 * fewer records sends RMPP or a shorter MAD. */
static uint32_t result_count(const ib_mad_element_t *p_resp)
{
	const ib_sa_mad_t *p_sa = (const ib_sa_mad_t *)p_resp->p_mad_buf;
	uint32_t rec = ib_get_attr_size(p_sa->attr_offset);
	uint32_t avail, paylen;

	if (!rec || p_resp->size < IB_SA_MAD_HDR_SIZE)
		return 0;
	avail = p_resp->size - (uint32_t)IB_SA_MAD_HDR_SIZE;
	if (p_sa->method != IB_MAD_METHOD_GETTABLE_RESP && p_sa->method != IB_MAD_METHOD_GETMULTI_RESP)
		return avail >= rec ? 1 : 0;
	if ((p_sa->rmpp_flags & IB_RMPP_FLAG_ACTIVE) && p_sa->rmpp_version) {
		/* PayloadLength counts the SA header (20 bytes) and the records. */
		paylen = cl_ntoh32(p_sa->paylen_newwin);
		if (paylen >= IB_SA_MAD_HDR_SIZE - sizeof(ib_rmpp_mad_t) &&
		    paylen - (IB_SA_MAD_HDR_SIZE - sizeof(ib_rmpp_mad_t)) < avail)
			avail = paylen - (uint32_t)(IB_SA_MAD_HDR_SIZE - sizeof(ib_rmpp_mad_t));
	}
	return avail / rec;
}

static void query_deliver(al_query_t *p_q)
{
	ib_query_rec_t rec;

	memset(&rec, 0, sizeof(rec));
	rec.query_context = p_q->context;
	rec.status = p_q->req.status;
	rec.query_type = p_q->type;
	rec.p_result_mad = p_q->req.p_resp;
	if (rec.status == IB_SUCCESS && rec.p_result_mad)
		rec.result_cnt = result_count(rec.p_result_mad);
	p_q->req.p_resp = NULL;
	p_q->pfn_query_cb(&rec);
	/* Over: the query goes (refused when the instance is closing it). */
	al_obj_destroy(&p_q->obj, NULL);
}

static void query_cb(void *context)
{
	query_deliver((al_query_t *)context);
}

static void query_done(al_sa_req_t *p_req, ib_api_status_t status, ib_mad_element_t *p_resp)
{
	al_query_t *p_q = PARENT_STRUCT(p_req, al_query_t, req);

	p_req->status = status;
	p_req->p_resp = p_resp;
	if (p_req->sync) {
		cl_event_signal(&p_req->sync_event);
		return;
	}
	p_q->item.pfn_cb = query_cb;
	p_q->item.context = p_q;
	/* Cannot be refused: the request's hold keeps the queue open. */
	al_obj_queue_cb_item(&p_q->obj, &p_q->item);
}

static void query_destroying(al_obj_t *p_obj)
{
	al_sa_cancel(&PARENT_STRUCT(p_obj, al_query_t, obj)->req);
}

static void query_free(al_obj_t *p_obj)
{
	al_query_t *p_q = PARENT_STRUCT(p_obj, al_query_t, obj);

	if (p_q->req.p_resp)
		ib_put_mad(p_q->req.p_resp);
	if (p_q->p_port)
		al_sa_port_put(p_q->p_port);
	al_sa_req_destroy(&p_q->req);
	cl_free(p_q);
}

/* The records a query type sends: method, attribute and mask, with the
 * template record in *p_rec. */
typedef union query_rec {
	ib_service_record_t svc;
	ib_node_record_t node;
	ib_portinfo_record_t portinfo;
	ib_path_rec_t path;
	ib_class_port_info_t cpi;
	ib_vl_arb_table_record_t vlarb;
	ib_slvl_table_record_t slvl;
} query_rec_t;

/* Each query type's input copied into its template record. */
static void fill_svc_name(query_rec_t *r, const void *in)
{
	memcpy(r->svc.service_name, in, sizeof(ib_svc_name_t));
}

static void fill_svc_id(query_rec_t *r, const void *in)
{
	memcpy(&r->svc.service_id, in, sizeof(ib_net64_t));
}

static void fill_node_guid(query_rec_t *r, const void *in)
{
	memcpy(&r->node.node_info.node_guid, in, sizeof(ib_net64_t));
}

static void fill_port_lid(query_rec_t *r, const void *in)
{
	memcpy(&r->portinfo.lid, in, sizeof(ib_net16_t));
}

static void fill_vlarb(query_rec_t *r, const void *in)
{
	const ib_vl_arb_table_record_t *p_in = (const ib_vl_arb_table_record_t *)in;

	r->vlarb.lid = p_in->lid;
	r->vlarb.port_num = p_in->port_num;
	r->vlarb.block_num = p_in->block_num;
}

static void fill_slvl(query_rec_t *r, const void *in)
{
	const ib_slvl_table_record_t *p_in = (const ib_slvl_table_record_t *)in;

	r->slvl.lid = p_in->lid;
	r->slvl.in_port_num = p_in->in_port_num;
	r->slvl.out_port_num = p_in->out_port_num;
}

static void fill_path_guids(query_rec_t *r, const void *in)
{
	const ib_guid_pair_t *p_in = (const ib_guid_pair_t *)in;

	ib_gid_set_default(&r->path.dgid, p_in->dest_guid);
	ib_gid_set_default(&r->path.sgid, p_in->src_guid);
	r->path.num_path = 1;
}

static void fill_path_gids(query_rec_t *r, const void *in)
{
	const ib_gid_pair_t *p_in = (const ib_gid_pair_t *)in;

	r->path.dgid = p_in->dest_gid;
	r->path.sgid = p_in->src_gid;
	r->path.num_path = 1;
}

static void fill_path_lids(query_rec_t *r, const void *in)
{
	const ib_lid_pair_t *p_in = (const ib_lid_pair_t *)in;

	r->path.dlid = p_in->dest_lid;
	r->path.slid = p_in->src_lid;
	r->path.num_path = 1;
}

/* The SA query each ib_query_type_t makes: method, attribute, component
 * mask, and how its input fills the template (NULL: it takes none). */
typedef struct query_kind {
	uint8_t method;
	ib_net16_t attr_id;
	uint32_t attr_size;
	ib_net64_t comp_mask;
	void (*fill)(query_rec_t *p_rec, const void *in);
} query_kind_t;

#define GETTABLE IB_MAD_METHOD_GETTABLE
static const query_kind_t kinds[] = {
	[IB_QUERY_ALL_SVC_RECS] = { GETTABLE, IB_MAD_ATTR_SERVICE_RECORD, sizeof(ib_service_record_t),
				    0, NULL },
	[IB_QUERY_SVC_REC_BY_NAME] = { GETTABLE, IB_MAD_ATTR_SERVICE_RECORD,
				       sizeof(ib_service_record_t), IB_SR_COMPMASK_SNAME,
				       fill_svc_name },
	[IB_QUERY_SVC_REC_BY_ID] = { GETTABLE, IB_MAD_ATTR_SERVICE_RECORD, sizeof(ib_service_record_t),
				     IB_SR_COMPMASK_SID, fill_svc_id },
	[IB_QUERY_CLASS_PORT_INFO] = { IB_MAD_METHOD_GET, IB_MAD_ATTR_CLASS_PORT_INFO,
				       sizeof(ib_class_port_info_t), 0, NULL },
	[IB_QUERY_NODE_REC_BY_NODE_GUID] = { GETTABLE, IB_MAD_ATTR_NODE_RECORD,
					     sizeof(ib_node_record_t), IB_NR_COMPMASK_NODEGUID,
					     fill_node_guid },
	[IB_QUERY_PORT_REC_BY_LID] = { GETTABLE, IB_MAD_ATTR_PORTINFO_RECORD,
				       sizeof(ib_portinfo_record_t), IB_PIR_COMPMASK_LID,
				       fill_port_lid },
	[IB_QUERY_VLARB_BY_LID_PORT_BLOCK] = { GETTABLE, IB_MAD_ATTR_VLARB_RECORD,
					       sizeof(ib_vl_arb_table_record_t),
					       IB_VLA_COMPMASK_LID | IB_VLA_COMPMASK_OUT_PORT |
						       IB_VLA_COMPMASK_BLOCK,
					       fill_vlarb },
	[IB_QUERY_SLVL_BY_LID_AND_PORTS] = { GETTABLE, IB_MAD_ATTR_SLVL_RECORD,
					     sizeof(ib_slvl_table_record_t),
					     IB_SLVL_COMPMASK_LID | IB_SLVL_COMPMASK_IN_PORT |
						     IB_SLVL_COMPMASK_OUT_PORT,
					     fill_slvl },
	[IB_QUERY_PATH_REC_BY_PORT_GUIDS] = { GETTABLE, IB_MAD_ATTR_PATH_RECORD, sizeof(ib_path_rec_t),
					      IB_PR_COMPMASK_DGID | IB_PR_COMPMASK_SGID |
						      IB_PR_COMPMASK_NUMBPATH,
					      fill_path_guids },
	[IB_QUERY_PATH_REC_BY_GIDS] = { GETTABLE, IB_MAD_ATTR_PATH_RECORD, sizeof(ib_path_rec_t),
					IB_PR_COMPMASK_DGID | IB_PR_COMPMASK_SGID |
						IB_PR_COMPMASK_NUMBPATH,
					fill_path_gids },
	/* A GetTable() needs an SGID: by LIDs it is a Get(). */
	[IB_QUERY_PATH_REC_BY_LIDS] = { IB_MAD_METHOD_GET, IB_MAD_ATTR_PATH_RECORD,
					sizeof(ib_path_rec_t),
					IB_PR_COMPMASK_DLID | IB_PR_COMPMASK_SLID, fill_path_lids },
};
#undef GETTABLE

static ib_api_status_t build(const ib_query_req_t *p_req, query_rec_t *p_rec, ib_user_query_t *p_uq)
{
	const void *in = p_req->p_query_input;
	const query_kind_t *k;

	memset(p_rec, 0, sizeof(*p_rec));
	memset(p_uq, 0, sizeof(*p_uq));
	if (p_req->query_type == IB_QUERY_USER_DEFINED) {
		if (!in)
			return IB_INVALID_PARAMETER;
		*p_uq = *(const ib_user_query_t *)in;
		if (!p_uq->method || p_uq->attr_size > IB_SA_DATA_SIZE)
			return IB_INVALID_SETTING;
		if (!p_uq->p_attr)
			p_uq->comp_mask = 0;
		return IB_SUCCESS;
	}
	if ((unsigned)p_req->query_type >= sizeof(kinds) / sizeof(kinds[0]) ||
	    !kinds[p_req->query_type].attr_id)
		return IB_ERROR;
	k = &kinds[p_req->query_type];
	if (k->fill && !in)
		return IB_INVALID_PARAMETER;
	p_uq->method = k->method;
	p_uq->attr_id = k->attr_id;
	p_uq->attr_size = k->attr_size;
	p_uq->comp_mask = k->comp_mask;
	p_uq->p_attr = p_rec;
	if (k->fill)
		k->fill(p_rec, in);
	return IB_SUCCESS;
}

ib_api_status_t ib_query(const ib_al_handle_t h_al, const ib_query_req_t *const p_query_req,
			 ib_query_handle_t *const ph_query)
{
	al_inst_t *p_al;
	al_query_t *p_q;
	query_rec_t rec;
	ib_user_query_t uq;
	ib_api_status_t st;
	boolean_t sync;

	p_al = al_inst_enter(h_al);
	if (!p_al)
		return IB_INVALID_AL_HANDLE;
	if (!p_query_req || !p_query_req->pfn_query_cb) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	st = build(p_query_req, &rec, &uq);
	if (st != IB_SUCCESS)
		goto out;
	sync = (p_query_req->flags & IB_FLAGS_SYNC) != 0;
	/* A synchronous query waits for MAD callbacks that AL callback
	 * threads deliver: never on one of them. */
	if (sync && al_is_cb_thread()) {
		st = IB_UNSUPPORTED;
		goto out;
	}
	p_q = (al_query_t *)cl_zalloc(sizeof(*p_q));
	if (!p_q) {
		st = IB_INSUFFICIENT_MEMORY;
		goto out;
	}
	al_obj_construct(&p_q->obj, AL_HDL_QUERY);
	p_q->type = p_query_req->query_type;
	p_q->context = p_query_req->query_context;
	p_q->pfn_query_cb = p_query_req->pfn_query_cb;
	st = al_sa_req_init(&p_q->req, &p_q->obj, query_done);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_q->obj);
		cl_free(p_q);
		goto out;
	}
	st = al_obj_init(&p_q->obj, &p_al->obj, p_query_req->query_context, query_destroying, NULL,
			 query_free);
	if (st != IB_SUCCESS) {
		al_sa_req_destroy(&p_q->req);
		al_obj_deinit(&p_q->obj);
		cl_free(p_q);
		goto out;
	}
	st = al_sa_port_get(p_query_req->port_guid, &p_al->obj, &p_q->p_port);
	if (st == IB_SUCCESS)
		st = al_obj_insert_handle(&p_q->obj);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_q->obj, NULL);
		goto out;
	}
	if (ph_query)
		*ph_query = (ib_query_handle_t)al_obj_h(&p_q->obj);
	p_q->req.sync = sync;
	st = al_sa_send(&p_q->req, p_q->p_port, &uq, p_query_req->timeout_ms,
			p_query_req->retry_cnt);
	if (st != IB_SUCCESS) {
		if (ph_query)
			*ph_query = NULL;
		al_obj_destroy(&p_q->obj, NULL);
		goto out;
	}
	if (sync) {
		al_sa_req_wait(&p_q->req);
		query_deliver(p_q);
	}
out:
	al_handle_exit(AL_HANDLE_FROM_IB(h_al));
	return st;
}

void ib_cancel_query(const ib_al_handle_t h_al, const ib_query_handle_t h_query)
{
	al_inst_t *p_al = al_inst_enter(h_al);
	al_query_t *p_q;

	if (!p_al)
		return;
	p_q = (al_query_t *)AL_ENTER(h_query, AL_HDL_QUERY);
	if (p_q) {
		if (p_q->obj.p_parent == &p_al->obj)
			al_sa_cancel(&p_q->req);
		AL_EXIT(h_query);
	}
	al_handle_exit(AL_HANDLE_FROM_IB(h_al));
}
