/*
 * ibal access layer: SA answers made locally for RoCE ports (path records from the GID table).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A RoCE port (transport RDMA_TRANSPORT_RDMAOE) has no subnet manager and no
 * SA. So that connection code written for InfiniBand runs unchanged there,
 * the SA client answers PathRecord queries by GIDs itself, as librdmacm and
 * the kernel's RDMA CM do for RoCE: the path goes from the source GID (one
 * of the port's; the first when the query names none) to the destination
 * GID with no LIDs (0), hop limit 64 (so an AV made from it carries a GRH),
 * P_Key 0xFFFF, SL 0, reversible, the port's active MTU and rate, and a
 * packet lifetime of 2^16 x 4.096 us (the kernel RDMA CM's RoCE value).
 * Any other SA request gets a response with a MAD status, never a timeout:
 * a PathRecord without a DGID has insufficient components, one by LIDs
 * none to match (RoCE has no LIDs), a source GID the port does not have is
 * invalid, and every other attribute or method is unsupported.
 */
#include <string.h>
#include "al_sa_client.h"

/* 2^16 x 4.096 us = 268 ms, the RDMA CM's packet lifetime on RoCE. */
#define AL_ROCE_PKT_LIFE 16

/* Link rate in tenths of Gb/s, and its path record encoding. */
static const struct {
	uint16_t tenths;
	uint8_t enc;
} rate_tab[] = {
	{ 25, IB_PATH_RECORD_RATE_2_5_GBS },  { 50, IB_PATH_RECORD_RATE_5_GBS },
	{ 100, IB_PATH_RECORD_RATE_10_GBS },  { 140, IB_PATH_RECORD_RATE_14_GBS },
	{ 200, IB_PATH_RECORD_RATE_20_GBS },  { 250, IB_PATH_RECORD_RATE_25_GBS },
	{ 300, IB_PATH_RECORD_RATE_30_GBS },  { 400, IB_PATH_RECORD_RATE_40_GBS },
	{ 500, IB_PATH_RECORD_RATE_50_GBS },  { 560, IB_PATH_RECORD_RATE_56_GBS },
	{ 600, IB_PATH_RECORD_RATE_60_GBS },  { 800, IB_PATH_RECORD_RATE_80_GBS },
	{ 1000, IB_PATH_RECORD_RATE_100_GBS }, { 1120, IB_PATH_RECORD_RATE_112_GBS },
	{ 1200, IB_PATH_RECORD_RATE_120_GBS }, { 1680, IB_PATH_RECORD_RATE_168_GBS },
	{ 2000, IB_PATH_RECORD_RATE_200_GBS }, { 3000, IB_PATH_RECORD_RATE_300_GBS },
	{ 4000, IB_PATH_RECORD_RATE_400_GBS }, { 6000, IB_PATH_RECORD_RATE_600_GBS },
};

/* The encoded rate of a port's active width and speed (10 Gb/s if unknown). */
uint8_t al_sa_port_rate(const ib_port_attr_t *pa)
{
	static const struct {
		uint8_t width, lanes;
	} widths[] = { { 1, 1 }, { 2, 4 }, { 4, 8 }, { 8, 12 }, { 16, 2 } };
	unsigned lanes = 0, lane = 0, i;

	for (i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		if (widths[i].width == pa->active_width)
			lanes = widths[i].lanes;
	if (pa->ext_active_speed)
		lane = pa->ext_active_speed == 1 ? 140 : pa->ext_active_speed == 2 ? 250
						       : pa->ext_active_speed == 4 ? 500 : 1000;
	else
		lane = pa->active_speed == 1 ? 25 : pa->active_speed == 2 ? 50
						   : pa->active_speed == 4 ? 100 : 0;
	for (i = 0; i < sizeof(rate_tab) / sizeof(rate_tab[0]); i++)
		if (rate_tab[i].tenths == lanes * lane)
			return rate_tab[i].enc;
	return IB_PATH_RECORD_RATE_10_GBS;
}

void al_sa_roce_path(const ib_port_attr_t *pa, const ib_gid_t *p_sgid, const ib_gid_t *p_dgid,
		     ib_path_rec_t *p)
{
	memset(p, 0, sizeof(*p));
	ib_path_rec_init_local(p, p_dgid, p_sgid, 0, 0, 0x80 | 1, CL_HTON16(IB_DEFAULT_PKEY), 0, 0,
			       IB_PATH_SELECTOR_EXACTLY, pa->mtu ? pa->mtu : IB_MTU_LEN_1024,
			       IB_PATH_SELECTOR_EXACTLY, al_sa_port_rate(pa),
			       IB_PATH_SELECTOR_EXACTLY, AL_ROCE_PKT_LIFE, 0);
	ib_path_rec_set_hop_flow_raw(p, 64, 0, FALSE);
}

/* The SA status of a query on a RoCE port; *p_path is the answer on success. */
ib_net16_t al_sa_roce_status(const ib_port_attr_t *pa, const ib_user_query_t *q,
			     ib_path_rec_t *p_path)
{
	const ib_path_rec_t *t = (const ib_path_rec_t *)q->p_attr;
	ib_gid_t sgid;
	unsigned i;

	if (q->attr_id != IB_MAD_ATTR_PATH_RECORD ||
	    (q->method != IB_MAD_METHOD_GET && q->method != IB_MAD_METHOD_GETTABLE))
		return IB_MAD_STATUS_UNSUP_METHOD_ATTR;
	if (!t || !(q->comp_mask & IB_PR_COMPMASK_DGID))
		return (t && (q->comp_mask & IB_PR_COMPMASK_DLID)) ? IB_SA_MAD_STATUS_NO_RECORDS
								   : IB_SA_MAD_STATUS_INSUF_COMPS;
	if (!pa->num_gids || !pa->p_gid_table)
		return IB_SA_MAD_STATUS_NO_RECORDS;
	sgid = pa->p_gid_table[0];
	if (q->comp_mask & IB_PR_COMPMASK_SGID) {
		for (i = 0; i < pa->num_gids; i++)
			if (!memcmp(&pa->p_gid_table[i], &t->sgid, sizeof(sgid)))
				break;
		if (i == pa->num_gids)
			return IB_SA_MAD_STATUS_INVALID_GID;
		sgid = t->sgid;
	}
	al_sa_roce_path(pa, &sgid, &t->dgid, p_path);
	return IB_SA_MAD_STATUS_SUCCESS;
}

ib_api_status_t al_sa_roce_answer(ib_pool_key_t pool_key, const ib_port_attr_t *pa,
				  const ib_user_query_t *q, ib_mad_element_t **pp_resp,
				  ib_api_status_t *p_status)
{
	ib_mad_element_t *p_mad;
	ib_sa_mad_t *p_sa;
	ib_path_rec_t path;
	ib_net16_t status;
	ib_api_status_t st;
	uint32_t rec = (sizeof(ib_path_rec_t) + 7u) & ~7u;

	status = al_sa_roce_status(pa, q, &path);
	st = ib_get_mad(pool_key, MAD_BLOCK_SIZE, &p_mad);
	if (st != IB_SUCCESS)
		return st;
	p_sa = (ib_sa_mad_t *)p_mad->p_mad_buf;
	memset(p_sa, 0, MAD_BLOCK_SIZE);
	ib_mad_init_new((ib_mad_t *)p_sa, IB_MCLASS_SUBN_ADM, 2,
			(uint8_t)(q->method == IB_MAD_METHOD_GETTABLE ? IB_MAD_METHOD_GETTABLE_RESP
								       : (q->method | IB_MAD_METHOD_RESP_MASK)),
			0, q->attr_id, 0);
	p_sa->status = status;
	p_mad->size = MAD_BLOCK_SIZE;
	if (status == IB_SA_MAD_STATUS_SUCCESS) {
		p_sa->attr_offset = ib_get_attr_offset(rec);
		memcpy(p_sa->data, &path, sizeof(path));
		/* one record: the size tells a GetTable answer how many came */
		p_mad->size = (uint32_t)IB_SA_MAD_HDR_SIZE + rec;
	}
	*pp_resp = p_mad;
	*p_status = status == IB_SA_MAD_STATUS_SUCCESS ? IB_SUCCESS : IB_REMOTE_ERROR;
	return IB_SUCCESS;
}
