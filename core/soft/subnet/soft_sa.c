/*
 * ibal soft provider: the SA's instance, its port table, request dispatch and responses.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * soft_sa_recv() checks a MAD (length, base and class version, response or
 * request, RMPP use, attribute offset) and hands it to the handler of its
 * attribute; handlers collect records and answer through soft_sa_respond(), which
 * applies the method's rules (IBA 15.2.2, 15.4): Get returns exactly one
 * record, GetTable and GetMulti always answer with an RMPP transfer (even of
 * zero or one record), Set and Delete return the record concerned. Error
 * statuses go back in one MAD without RMPP (AttributeOffset 0, the
 * request's data), as OpenSM sends them; responses carry SM_Key 0
 * (C15-0.1.5). GetMulti(MultiPathRecord) is answered with PathRecords
 * (o15-0.2.7).
 */
#include <stdlib.h>
#include <time.h>
#include "soft_sa_int.h"
#include "ibal_env.h"
#include "ibal_random.h"
#include "ibal_time.h"

/* ------------------------------------------------------------------ */
/* Helpers shared by the handlers                                      */
/* ------------------------------------------------------------------ */

static uint64_t soft_sa_default_clock(void *ctx)
{
	(void)ctx;
	return ibal_time_us(CLOCK_MONOTONIC);
}

uint64_t soft_sa_now(soft_sa_t *sa)
{
	return sa->clock(sa->clock_ctx);
}

bool soft_sa_match(const sa_field_t *fields, size_t n, uint64_t comp_mask, const void *req, const void *rec)
{
	const uint8_t *a = req, *b = rec;
	size_t i;

	for (i = 0; i < n; i++) {
		const sa_field_t *f = &fields[i];

		if (!(comp_mask & ((uint64_t)1 << f->bit)))
			continue;
		if (f->len == 1 && f->mask) {
			if ((a[f->off] ^ b[f->off]) & f->mask)
				return false;
		} else if (memcmp(a + f->off, b + f->off, f->len)) {
			return false;
		}
	}
	return true;
}

void soft_sa_recs_init(sa_recs_t *r, size_t size)
{
	memset(r, 0, sizeof(*r));
	r->size = size;
}

bool soft_sa_recs_add(sa_recs_t *r, const void *rec)
{
	if (r->nomem)
		return false;
	if (r->n >= SA_MAX_RECORDS) {
		r->nomem = true;
		return false;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		uint8_t *b = realloc(r->buf, cap * r->size);

		if (!b) {
			r->nomem = true;
			return false;
		}
		r->buf = b;
		r->cap = cap;
	}
	memcpy(r->buf + r->n * r->size, rec, r->size);
	r->n++;
	return true;
}

void soft_sa_recs_free(sa_recs_t *r)
{
	free(r->buf);
	r->buf = NULL;
	r->n = r->cap = 0;
}

void soft_sa_send(soft_sa_t *sa, const void *mad, const soft_mad_addr_t *dst)
{
	soft_mad_addr_t a = *dst;

	a.qkey = cl_ntoh32(IB_QP1_WELL_KNOWN_Q_KEY);
	sa->ops.send(sa->ops.ctx, mad, &a);
}

/* Response header for a request: R bit, Set/Delete mapping, SA header kept. */
static void soft_sa_resp_hdr(ib_sa_mad_t *resp, const ib_sa_mad_t *req, ib_net16_t status, size_t rec_size)
{
	memset(resp, 0, sizeof(*resp));
	memcpy(resp, req, IB_SA_MAD_HDR_SIZE);
	resp->base_ver = 1;
	resp->class_ver = SA_CLASS_VER;
	resp->status = status;
	resp->method = (uint8_t)(req->method == IB_MAD_METHOD_SET ? IB_MAD_METHOD_GET_RESP :
				 req->method | IB_MAD_METHOD_RESP_MASK);
	resp->rmpp_version = 0;
	resp->rmpp_type = 0;
	resp->rmpp_flags = 0;
	resp->rmpp_status = 0;
	resp->seg_num = 0;
	resp->paylen_newwin = 0;
	resp->sm_key = 0;
	resp->attr_offset = cl_hton16((uint16_t)(rec_size / 8));
	resp->resv3 = 0;
	/* o15-0.2.7: GetMulti(MultiPathRecord) is answered with PathRecords. */
	if (resp->attr_id == IB_MAD_ATTR_MULTIPATH_RECORD)
		resp->attr_id = IB_MAD_ATTR_PATH_RECORD;
}

static bool soft_sa_is_table(uint8_t method)
{
	return method == IB_MAD_METHOD_GETTABLE || method == IB_MAD_METHOD_GETMULTI;
}

static void soft_sa_respond_table(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src,
			     ib_net16_t status, uint8_t *data, size_t len, size_t rec_size)
{
	ib_sa_mad_t hdr;

	soft_sa_resp_hdr(&hdr, req, status, rec_size);
	if (!soft_sa_rmpp_start(sa, &hdr, data, len, src))
		soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_NO_RESOURCES);
}

void soft_sa_respond_err(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src, ib_net16_t status)
{
	ib_sa_mad_t resp;

	/*
	 * Errors go in one MAD without RMPP whatever the method, with the
	 * request's data (as OpenSM does); a refused InformInfo shows
	 * Subscribe 0 (o13-13.1.1).
	 */
	soft_sa_resp_hdr(&resp, req, status, 0);
	memcpy(resp.data, req->data, sizeof(resp.data));
	if (req->attr_id == IB_MAD_ATTR_INFORM_INFO)
		((ib_inform_info_t *)resp.data)->subscribe = 0;
	soft_sa_send(sa, &resp, src);
}

void soft_sa_respond_one(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src, const void *rec,
			 size_t size)
{
	ib_sa_mad_t resp;

	soft_sa_resp_hdr(&resp, req, IB_SA_MAD_STATUS_SUCCESS, size);
	if (size > IB_SA_DATA_SIZE)
		size = IB_SA_DATA_SIZE;
	memcpy(resp.data, rec, size);
	soft_sa_send(sa, &resp, src);
}

void soft_sa_respond(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src, sa_recs_t *r)
{
	if (r->nomem) {
		soft_sa_recs_free(r);
		soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_NO_RESOURCES);
		return;
	}
	if (soft_sa_is_table(req->method)) {
		size_t len = r->n * r->size;
		uint8_t *data = r->buf;

		r->buf = NULL;
		/* No records: AttributeOffset 0, as OpenSM answers. */
		soft_sa_respond_table(sa, req, src, IB_SA_MAD_STATUS_SUCCESS, data, len, r->n ? r->size : 0);
		soft_sa_recs_free(r);
		return;
	}
	if (r->n == 0) {
		ib_sa_mad_t resp;

		soft_sa_resp_hdr(&resp, req, IB_SA_MAD_STATUS_NO_RECORDS, r->size);
		soft_sa_send(sa, &resp, src);
	} else if (r->n > 1 && req->method == IB_MAD_METHOD_GET) {
		ib_sa_mad_t resp;

		soft_sa_resp_hdr(&resp, req, IB_SA_MAD_STATUS_TOO_MANY_RECORDS, r->size);
		soft_sa_send(sa, &resp, src);
	} else {
		soft_sa_respond_one(sa, req, src, r->buf, r->size);
	}
	soft_sa_recs_free(r);
}

/* ------------------------------------------------------------------ */
/* Ports                                                               */
/* ------------------------------------------------------------------ */

uint8_t soft_sa_port_lmc(const sa_port_t *e)
{
	return (uint8_t)(e->p.port_info.mkey_lmc & IB_PORT_LMC_MASK);
}

uint16_t soft_sa_port_lid(soft_sa_t *sa, const sa_port_t *e)
{
	if (e->p.node_info.node_type == IB_NODE_TYPE_SWITCH && e->p.port_num != 0) {
		const sa_port_t *p0 = soft_sa_port_by_node(sa, e->p.node_info.node_guid, 0);

		return p0 ? cl_ntoh16(p0->p.port_info.base_lid) : 0;
	}
	return cl_ntoh16(e->p.port_info.base_lid);
}

static ib_net64_t soft_sa_prefix(const sa_port_t *e)
{
	return e->p.port_info.subnet_prefix ? e->p.port_info.subnet_prefix : IB_DEFAULT_SUBNET_PREFIX;
}

ib_gid_t soft_sa_port_gid(const sa_port_t *e)
{
	ib_gid_t g;

	g.unicast.prefix = soft_sa_prefix(e);
	g.unicast.interface_id = e->p.node_info.port_guid;
	return g;
}

sa_port_t *soft_sa_port_by_lid(soft_sa_t *sa, uint16_t lid)
{
	size_t i;

	if (lid == 0 || lid >= SA_MLID_FIRST)
		return NULL;
	for (i = 0; i < sa->n_ports; i++) {
		sa_port_t *e = &sa->ports[i];
		uint16_t base = cl_ntoh16(e->p.port_info.base_lid);

		if (e->p.node_info.node_type == IB_NODE_TYPE_SWITCH && e->p.port_num != 0)
			continue;
		if (base && lid >= base && lid < base + (1u << soft_sa_port_lmc(e)))
			return e;
	}
	return NULL;
}

sa_port_t *soft_sa_port_by_gid(soft_sa_t *sa, const ib_gid_t *gid)
{
	size_t i;
	unsigned k;

	for (i = 0; i < sa->n_ports; i++) {
		sa_port_t *e = &sa->ports[i];

		if (e->p.node_info.node_type == IB_NODE_TYPE_SWITCH && e->p.port_num != 0)
			continue;
		if (gid->unicast.prefix != soft_sa_prefix(e))
			continue;
		if (gid->unicast.interface_id == e->p.node_info.port_guid)
			return e;
		for (k = 0; k < GUID_TABLE_MAX_ENTRIES; k++)
			if (e->p.guid_info.guid[k] && e->p.guid_info.guid[k] == gid->unicast.interface_id)
				return e;
	}
	return NULL;
}

sa_port_t *soft_sa_port_by_node(soft_sa_t *sa, ib_net64_t node_guid, uint8_t port_num)
{
	size_t i;

	for (i = 0; i < sa->n_ports; i++)
		if (sa->ports[i].p.node_info.node_guid == node_guid && sa->ports[i].p.port_num == port_num)
			return &sa->ports[i];
	return NULL;
}

ib_gid_t soft_sa_sm_gid(soft_sa_t *sa)
{
	ib_gid_t g;
	sa_port_t *e = soft_sa_port_by_lid(sa, sa->sm_lid);

	g.unicast.prefix = e ? soft_sa_prefix(e) : IB_DEFAULT_SUBNET_PREFIX;
	g.unicast.interface_id = sa->sm_info.guid;
	return g;
}

uint8_t soft_sa_port_mtu(const sa_port_t *e)
{
	uint8_t n = ib_port_info_get_neighbor_mtu(&e->p.port_info);
	uint8_t c = ib_port_info_get_mtu_cap(&e->p.port_info);

	if (n >= IB_MIN_MTU && n <= IB_MAX_MTU && (c < IB_MIN_MTU || n <= c))
		return n;
	if (c >= IB_MIN_MTU && c <= IB_MAX_MTU)
		return c;
	return IB_MTU_LEN_256;
}

bool soft_sa_share_pkey(const ib_pkey_table_t *a, const ib_pkey_table_t *b)
{
	unsigned i, j;

	for (i = 0; i < IB_NUM_PKEY_ELEMENTS_IN_BLOCK; i++) {
		ib_net16_t k = a->pkey_entry[i];

		if (!(k & IB_PKEY_BASE_MASK))
			continue;
		for (j = 0; j < IB_NUM_PKEY_ELEMENTS_IN_BLOCK; j++) {
			ib_net16_t l = b->pkey_entry[j];

			if ((l & IB_PKEY_BASE_MASK) == (k & IB_PKEY_BASE_MASK) &&
			    ((k | l) & CL_HTON16(0x8000)))
				return true;
		}
	}
	return false;
}

bool soft_sa_port_has_pkey(const sa_port_t *e, ib_net16_t pkey)
{
	unsigned i;

	if (!(pkey & IB_PKEY_BASE_MASK))
		return false;
	for (i = 0; i < IB_NUM_PKEY_ELEMENTS_IN_BLOCK; i++)
		if ((e->p.pkey_table.pkey_entry[i] & IB_PKEY_BASE_MASK) == (pkey & IB_PKEY_BASE_MASK))
			return true;
	return false;
}

/* Bandwidth of the rate codes, in 100 Mb/s (IBA table 224 and its extensions). */
unsigned soft_sa_rate_bw(uint8_t rate)
{
	static const unsigned bw[] = {
		[IB_PATH_RECORD_RATE_2_5_GBS] = 25,  [IB_PATH_RECORD_RATE_10_GBS] = 100,
		[IB_PATH_RECORD_RATE_30_GBS] = 300,  [IB_PATH_RECORD_RATE_5_GBS] = 50,
		[IB_PATH_RECORD_RATE_20_GBS] = 200,  [IB_PATH_RECORD_RATE_40_GBS] = 400,
		[IB_PATH_RECORD_RATE_60_GBS] = 600,  [IB_PATH_RECORD_RATE_80_GBS] = 800,
		[IB_PATH_RECORD_RATE_120_GBS] = 1200, [IB_PATH_RECORD_RATE_14_GBS] = 140,
		[IB_PATH_RECORD_RATE_56_GBS] = 560,  [IB_PATH_RECORD_RATE_112_GBS] = 1120,
		[IB_PATH_RECORD_RATE_168_GBS] = 1680, [IB_PATH_RECORD_RATE_25_GBS] = 250,
		[IB_PATH_RECORD_RATE_100_GBS] = 1000, [IB_PATH_RECORD_RATE_200_GBS] = 2000,
		[IB_PATH_RECORD_RATE_300_GBS] = 3000, [IB_PATH_RECORD_RATE_28_GBS] = 280,
		[IB_PATH_RECORD_RATE_50_GBS] = 500,  [IB_PATH_RECORD_RATE_400_GBS] = 4000,
		[IB_PATH_RECORD_RATE_600_GBS] = 6000,
	};

	return rate < sizeof(bw) / sizeof(bw[0]) ? bw[rate] : 0;
}

const uint8_t soft_sa_rate_cands[] = {
	IB_PATH_RECORD_RATE_2_5_GBS, IB_PATH_RECORD_RATE_5_GBS, IB_PATH_RECORD_RATE_10_GBS,
	IB_PATH_RECORD_RATE_14_GBS, IB_PATH_RECORD_RATE_20_GBS, IB_PATH_RECORD_RATE_25_GBS,
	IB_PATH_RECORD_RATE_28_GBS, IB_PATH_RECORD_RATE_30_GBS, IB_PATH_RECORD_RATE_40_GBS,
	IB_PATH_RECORD_RATE_50_GBS, IB_PATH_RECORD_RATE_56_GBS, IB_PATH_RECORD_RATE_60_GBS,
	IB_PATH_RECORD_RATE_80_GBS, IB_PATH_RECORD_RATE_100_GBS, IB_PATH_RECORD_RATE_112_GBS,
	IB_PATH_RECORD_RATE_120_GBS, IB_PATH_RECORD_RATE_168_GBS, IB_PATH_RECORD_RATE_200_GBS,
	IB_PATH_RECORD_RATE_300_GBS, IB_PATH_RECORD_RATE_400_GBS, IB_PATH_RECORD_RATE_600_GBS,
};
const size_t soft_sa_n_rate_cands = sizeof(soft_sa_rate_cands) / sizeof(soft_sa_rate_cands[0]);
const uint8_t soft_sa_mtu_cands[] = { 1, 2, 3, 4, 5 };

unsigned soft_sa_mtu_merit(uint8_t mtu)
{
	return mtu >= IB_MIN_MTU && mtu <= IB_MAX_MTU ? mtu : 0;
}

uint8_t soft_sa_select(uint8_t sel, uint8_t want, uint8_t avail, bool given, unsigned (*merit)(uint8_t),
		  const uint8_t *cands, size_t n)
{
	unsigned ma = merit(avail), mw = merit(want);
	uint8_t best = 0;
	size_t i;

	if (!ma)
		return 0;
	if (!given || sel == IB_PATH_SELECTOR_LARGEST)
		return avail;
	if (!mw)
		return 0;
	if (sel == IB_PATH_SELECTOR_EXACTLY)
		return mw <= ma ? want : 0;
	for (i = 0; i < n; i++) {
		unsigned m = merit(cands[i]);

		if (!m || m > ma)
			continue;
		if (sel == IB_PATH_SELECTOR_GREATER_THAN && m <= mw)
			continue;
		if (sel == IB_PATH_SELECTOR_LESS_THAN && m >= mw)
			continue;
		if (!best || m > merit(best))
			best = cands[i];
	}
	/* Prefer the port's own value when it qualifies. */
	if (best && merit(best) == ma)
		return avail;
	return best;
}

/* ------------------------------------------------------------------ */
/* Dispatch                                                            */
/* ------------------------------------------------------------------ */

#define M_GET (1u << 0)
#define M_SET (1u << 1)
#define M_GETTABLE (1u << 2)
#define M_DELETE (1u << 3)
#define M_GETMULTI (1u << 4)

typedef void (*sa_handler_t)(soft_sa_t *, const ib_sa_mad_t *, const soft_mad_addr_t *);

static const struct sa_attr {
	ib_net16_t id;
	unsigned methods;
	uint16_t rec_size;
	sa_handler_t fn;
} soft_sa_attrs[] = {
	{ IB_MAD_ATTR_CLASS_PORT_INFO, M_GET, sizeof(ib_class_port_info_t), soft_sa_h_class_port_info },
	{ IB_MAD_ATTR_NODE_RECORD, M_GET | M_GETTABLE, sizeof(ib_node_record_t), soft_sa_h_node },
	{ IB_MAD_ATTR_PORTINFO_RECORD, M_GET | M_GETTABLE, sizeof(ib_portinfo_record_t), soft_sa_h_portinfo },
	{ IB_MAD_ATTR_LINK_RECORD, M_GET | M_GETTABLE, sizeof(ib_link_record_t), soft_sa_h_link },
	{ IB_MAD_ATTR_GUIDINFO_RECORD, M_GET | M_GETTABLE, sizeof(ib_guidinfo_record_t), soft_sa_h_guidinfo },
	{ IB_MAD_ATTR_PKEY_TBL_RECORD, M_GET | M_GETTABLE, sizeof(ib_pkey_table_record_t), soft_sa_h_pkey },
	{ IB_MAD_ATTR_SMINFO_RECORD, M_GET | M_GETTABLE, sizeof(ib_sminfo_record_t), soft_sa_h_sminfo },
	{ IB_MAD_ATTR_PATH_RECORD, M_GET | M_GETTABLE, sizeof(ib_path_rec_t), soft_sa_h_path },
	{ IB_MAD_ATTR_MULTIPATH_RECORD, M_GETMULTI, 0, soft_sa_h_multipath },
	{ IB_MAD_ATTR_SERVICE_RECORD, M_GET | M_GETTABLE | M_SET | M_DELETE, sizeof(ib_service_record_t),
	  soft_sa_h_service },
	{ IB_MAD_ATTR_MCMEMBER_RECORD, M_GET | M_GETTABLE | M_SET | M_DELETE, sizeof(ib_member_rec_t),
	  soft_sa_h_mcmember },
	{ IB_MAD_ATTR_INFORM_INFO, M_SET, sizeof(ib_inform_info_t), soft_sa_h_inform },
	{ IB_MAD_ATTR_INFORM_INFO_RECORD, M_GET | M_GETTABLE, sizeof(ib_inform_info_record_t), soft_sa_h_inform_rec },
};

static unsigned soft_sa_method_bit(uint8_t method)
{
	switch (method) {
	case IB_MAD_METHOD_GET:
		return M_GET;
	case IB_MAD_METHOD_SET:
		return M_SET;
	case IB_MAD_METHOD_GETTABLE:
		return M_GETTABLE;
	case IB_MAD_METHOD_DELETE:
		return M_DELETE;
	case IB_MAD_METHOD_GETMULTI:
		return M_GETMULTI;
	default:
		return 0;
	}
}

/* The ACK a receiver owes the single segment of an RMPP request (GetMulti). */
static void soft_sa_ack_request(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src)
{
	ib_sa_mad_t ack;

	memset(&ack, 0, sizeof(ack));
	memcpy(&ack, req, IB_SA_MAD_HDR_SIZE);
	/* An ACK goes the other way: the R bit flips (as the Linux MAD layer does). */
	ack.method = (uint8_t)(req->method ^ IB_MAD_METHOD_RESP_MASK);
	ack.rmpp_version = 1;
	ack.rmpp_type = IB_RMPP_TYPE_ACK;
	ack.rmpp_flags = (uint8_t)((IB_RMPP_NO_RESP_TIME << 3) | IB_RMPP_FLAG_ACTIVE);
	ack.rmpp_status = 0;
	ack.seg_num = cl_hton32(1);
	ack.paylen_newwin = cl_hton32(1);
	soft_sa_send(sa, &ack, src);
}

static void soft_sa_dispatch(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src)
{
	const struct sa_attr *a = NULL;
	unsigned mbit = soft_sa_method_bit(req->method);
	size_t i;

	if (req->class_ver != SA_CLASS_VER) {
		soft_sa_respond_err(sa, req, src, IB_MAD_STATUS_UNSUP_CLASS_VER);
		return;
	}
	if (!mbit) {
		soft_sa_respond_err(sa, req, src, IB_MAD_STATUS_UNSUP_METHOD);
		return;
	}
	for (i = 0; i < sizeof(soft_sa_attrs) / sizeof(soft_sa_attrs[0]); i++)
		if (soft_sa_attrs[i].id == req->attr_id)
			a = &soft_sa_attrs[i];
	if (!a || !(a->methods & mbit)) {
		soft_sa_respond_err(sa, req, src, IB_MAD_STATUS_UNSUP_METHOD_ATTR);
		return;
	}
	if (req->rmpp_flags & IB_RMPP_FLAG_ACTIVE) {
		/* Only GetMulti requests travel with RMPP, in one DATA segment here. */
		if (mbit != M_GETMULTI || req->rmpp_version != 1 || req->rmpp_type != IB_RMPP_TYPE_DATA ||
		    (req->rmpp_flags & (IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST)) !=
			    (IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST) ||
		    cl_ntoh32(req->seg_num) != 1) {
			soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_REQ_INVALID);
			return;
		}
		soft_sa_ack_request(sa, req, src);
	}
	/*
	 * AttributeOffset of a request: 0, or the record's size in 8-byte
	 * units, rounded down (as ib_get_attr_offset() gives it for the 36-byte
	 * InformInfo) or up.
	 */
	if (req->attr_offset && a->rec_size && req->attr_id != IB_MAD_ATTR_CLASS_PORT_INFO &&
	    cl_ntoh16(req->attr_offset) != a->rec_size / 8u &&
	    cl_ntoh16(req->attr_offset) != (a->rec_size + 7u) / 8u) {
		soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_REQ_INVALID);
		return;
	}
	a->fn(sa, req, src);
}

void soft_sa_recv(soft_sa_t *sa, const ib_mad_t *p_mad, size_t len, const soft_mad_addr_t *p_src)
{
	ib_sa_mad_t req;

	if (!sa || !p_mad || !p_src || len < MAD_BLOCK_SIZE)
		return;
	memcpy(&req, p_mad, sizeof(req));
	if (req.base_ver != 1 || req.mgmt_class != IB_MCLASS_SUBN_ADM)
		return;
	pthread_mutex_lock(&sa->lock);
	if (req.method & IB_MAD_METHOD_RESP_MASK) {
		/* Responses: RMPP control of our transfers, ReportResp. */
		if ((req.rmpp_flags & IB_RMPP_FLAG_ACTIVE) &&
		    (req.method == IB_MAD_METHOD_GETTABLE_RESP || req.method == IB_MAD_METHOD_GETMULTI_RESP))
			soft_sa_rmpp_recv(sa, &req, p_src);
		else if (req.method == IB_MAD_METHOD_REPORT_RESP)
			soft_sa_report_resp(sa, p_mad, p_src);
	} else if (req.method == IB_MAD_METHOD_TRAP_REPRESS || req.method == IB_MAD_METHOD_REPORT ||
		   req.method == IB_MAD_METHOD_TRAP) {
		/* Not requests the SA answers. */
	} else if ((req.rmpp_flags & IB_RMPP_FLAG_ACTIVE) && req.rmpp_type != IB_RMPP_TYPE_DATA) {
		/*
		 * RMPP control of one of our responses as the Linux MAD layer
		 * sends it: the response method with the R bit flipped.
		 */
		if (req.method == IB_MAD_METHOD_GETTABLE || req.method == IB_MAD_METHOD_GETMULTI)
			soft_sa_rmpp_recv(sa, &req, p_src);
	} else {
		soft_sa_dispatch(sa, &req, p_src);
	}
	pthread_mutex_unlock(&sa->lock);
}

/* ------------------------------------------------------------------ */
/* Life cycle and SM pushes                                            */
/* ------------------------------------------------------------------ */

soft_sa_t *soft_sa_create(const soft_sa_ops_t *p_ops, const ib_sm_info_t *p_sm_info, uint16_t sm_lid)
{
	soft_sa_t *sa;

	if (!p_ops || !p_ops->send)
		return NULL;
	sa = calloc(1, sizeof(*sa));
	if (!sa)
		return NULL;
	if (pthread_mutex_init(&sa->lock, NULL)) {
		free(sa);
		return NULL;
	}
	sa->ops = *p_ops;
	sa->clock = soft_sa_default_clock;
	if (p_sm_info)
		sa->sm_info = *p_sm_info;
	sa->sm_lid = sm_lid;
	sa->next_tid = ibal_random64() & 0xFFFFFFFFFFull; /* a random start: ibal_random.h */
	sa->mgid_seq = ibal_random64(); /* MGIDs it assigns: not guessable either */
	soft_sa_svc_init(sa);
	sa->subs_max = (uint32_t)__cl_env_uint(SOFT_SA_ENV_SUBS_PER_PORT, 1, 1u << 16, SA_SUBS_PER_PORT);
	return sa;
}

void soft_sa_destroy(soft_sa_t *sa)
{
	if (!sa)
		return;
	soft_sa_rmpp_free_all(sa);
	soft_sa_inform_free_all(sa);
	soft_sa_mcast_free_all(sa);
	soft_sa_svc_free_all(sa);
	free(sa->ports);
	pthread_mutex_destroy(&sa->lock);
	free(sa);
}

void soft_sa_set_clock(soft_sa_t *sa, uint64_t (*now)(void *ctx), void *ctx)
{
	if (!sa)
		return;
	pthread_mutex_lock(&sa->lock);
	sa->clock = now ? now : soft_sa_default_clock;
	sa->clock_ctx = now ? ctx : NULL;
	pthread_mutex_unlock(&sa->lock);
}

void soft_sa_set_sm_info(soft_sa_t *sa, const ib_sm_info_t *p_sm_info, uint16_t sm_lid)
{
	if (!sa || !p_sm_info)
		return;
	pthread_mutex_lock(&sa->lock);
	sa->sm_info = *p_sm_info;
	sa->sm_lid = sm_lid;
	pthread_mutex_unlock(&sa->lock);
}

ib_api_status_t soft_sa_port_update(soft_sa_t *sa, const soft_sa_port_t *p_port)
{
	sa_port_t *e;
	ib_gid_t gid;

	if (!sa || !p_port)
		return IB_INVALID_PARAMETER;
	pthread_mutex_lock(&sa->lock);
	e = soft_sa_port_by_node(sa, p_port->node_info.node_guid, p_port->port_num);
	if (!e) {
		if (sa->n_ports == sa->cap_ports) {
			size_t cap = sa->cap_ports ? sa->cap_ports * 2 : 16;
			sa_port_t *n = realloc(sa->ports, cap * sizeof(*n));

			if (!n) {
				pthread_mutex_unlock(&sa->lock);
				return IB_INSUFFICIENT_MEMORY;
			}
			sa->ports = n;
			sa->cap_ports = cap;
		}
		e = &sa->ports[sa->n_ports++];
		memset(e, 0, sizeof(*e));
	}
	e->p = *p_port;
	if (!e->in_service && p_port->node_info.node_type != IB_NODE_TYPE_SWITCH &&
	    ib_port_info_get_port_state(&p_port->port_info) == IB_LINK_ACTIVE) {
		e->in_service = true;
		gid = soft_sa_port_gid(e);
		soft_sa_notice(sa, 64, &gid, &e->p.pkey_table, 0);
	}
	pthread_mutex_unlock(&sa->lock);
	return IB_SUCCESS;
}

void soft_sa_port_remove(soft_sa_t *sa, ib_net64_t node_guid, uint8_t port_num)
{
	sa_port_t *e;
	ib_pkey_table_t pkeys;
	ib_gid_t gid;
	bool was, endport;

	if (!sa)
		return;
	pthread_mutex_lock(&sa->lock);
	e = soft_sa_port_by_node(sa, node_guid, port_num);
	if (!e) {
		pthread_mutex_unlock(&sa->lock);
		return;
	}
	gid = soft_sa_port_gid(e);
	pkeys = e->p.pkey_table;
	was = e->in_service;
	endport = e->p.node_info.node_type != IB_NODE_TYPE_SWITCH || port_num == 0;
	*e = sa->ports[--sa->n_ports];
	if (endport) {
		soft_sa_svc_port_gone(sa, &gid);
		soft_sa_mcast_port_gone(sa, &gid);
		soft_sa_inform_port_gone(sa, &gid);
	}
	if (was)
		soft_sa_notice(sa, 65, &gid, &pkeys, 0);
	pthread_mutex_unlock(&sa->lock);
}

uint64_t soft_sa_timer(soft_sa_t *sa, uint64_t now_us)
{
	uint64_t next, t;

	if (!sa)
		return UINT64_MAX;
	pthread_mutex_lock(&sa->lock);
	next = soft_sa_svc_expire(sa, now_us);
	t = soft_sa_rmpp_timer(sa, now_us);
	if (t < next)
		next = t;
	t = soft_sa_report_timer(sa, now_us);
	if (t < next)
		next = t;
	pthread_mutex_unlock(&sa->lock);
	return next;
}
