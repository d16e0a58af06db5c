/*
 * ibal soft provider: the SA's records of subnet management attributes and its ClassPortInfo.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * NodeRecord (one per CA/router port with a LID, one per switch), PortInfoRecord
 * (one per port), LinkRecord (one per port whose peer is known), GUIDInfoRecord
 * and P_KeyTableRecord (block 0 of each end port / port), SMInfoRecord (the
 * master). Each is built from what the SM pushed and filtered with the
 * component mask of the request (IBA 15.2.5, table of fields below).
 */
#include <stddef.h>
#include "soft_sa_int.h"

#define F(bit, off, len) { bit, off, len, 0 }
#define FM(bit, off, mask) { bit, off, 1, mask }

/* NodeRecord: LID at 0, NodeInfo at 4, NodeDescription at 44. */
static const sa_field_t node_fields[] = {
	F(0, 0, 2), F(2, 4, 1), F(3, 5, 1), F(4, 6, 1), F(5, 7, 1), F(6, 8, 8), F(7, 16, 8),
	F(8, 24, 8), F(9, 32, 2), F(10, 34, 2), F(11, 36, 4), F(12, 40, 1), F(13, 41, 3),
	F(14, 44, 64),
};

/* PortInfoRecord: LID at 0, PortNum at 2, Options at 3, PortInfo at 4. */
static const sa_field_t portinfo_fields[] = {
	F(0, 0, 2), F(1, 2, 1), F(2, 3, 1), F(3, 4, 8), F(4, 12, 8), F(5, 20, 2), F(6, 22, 2),
	F(7, 24, 4), F(8, 28, 2), F(9, 30, 2), F(10, 32, 1), F(11, 33, 1), F(12, 34, 1),
	F(13, 35, 1), FM(14, 36, 0xF0), FM(15, 36, 0x0F), FM(16, 37, 0xF0), FM(17, 37, 0x0F),
	FM(18, 38, 0xC0), FM(20, 38, 0x07), FM(21, 39, 0xF0), FM(22, 39, 0x0F), FM(23, 40, 0xF0),
	FM(24, 40, 0x0F), FM(25, 41, 0xF0), FM(26, 41, 0x0F), F(27, 42, 1), F(28, 43, 1),
	F(29, 44, 1), FM(30, 45, 0xF0), FM(31, 45, 0x0F), FM(32, 46, 0xE0), FM(33, 46, 0x1F),
	FM(34, 47, 0xF0), FM(35, 47, 0x08), FM(36, 47, 0x04), FM(37, 47, 0x02), FM(38, 47, 0x01),
	F(39, 48, 2), F(40, 50, 2), F(41, 52, 2), F(42, 54, 1), FM(43, 55, 0x80), FM(45, 55, 0x1F),
	FM(47, 56, 0x1F), FM(48, 57, 0xF0), FM(49, 57, 0x0F), F(50, 58, 2), F(52, 60, 4),
	F(53, 64, 2), FM(54, 66, 0xF0), FM(55, 66, 0x0F), FM(57, 67, 0x1F),
};

/* LinkRecord. */
static const sa_field_t link_fields[] = {
	F(0, 0, 2), F(1, 2, 1), F(2, 3, 1), F(3, 4, 2),
};

/* GUIDInfoRecord: LID, BlockNum, then GUIDs 0..7 at 8. */
static const sa_field_t guid_fields[] = {
	F(0, 0, 2), F(1, 2, 1), F(4, 8, 8), F(5, 16, 8), F(6, 24, 8), F(7, 32, 8),
	F(8, 40, 8), F(9, 48, 8), F(10, 56, 8), F(11, 64, 8),
};

/* P_KeyTableRecord: LID, BlockNum (16 bits), PortNum. */
static const sa_field_t pkey_fields[] = {
	F(0, 0, 2), F(1, 2, 2), F(2, 4, 1),
};

/* SMInfoRecord: LID, SMInfo at 4 (GUID, SM_Key, ActCount, priority/state). */
static const sa_field_t sminfo_fields[] = {
	F(0, 0, 2), F(2, 4, 8), F(3, 12, 8), F(4, 20, 4), FM(5, 24, 0xF0), FM(6, 24, 0x0F),
};

#define NF(t) (sizeof(t) / sizeof((t)[0]))

static bool is_switch_port(const sa_port_t *e)
{
	return e->p.node_info.node_type == IB_NODE_TYPE_SWITCH && e->p.port_num != 0;
}

void soft_sa_h_class_port_info(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src)
{
	ib_class_port_info_t cpi;

	memset(&cpi, 0, sizeof(cpi));
	cpi.base_ver = 1;
	cpi.class_ver = SA_CLASS_VER;
	/* IsSubnetGetSetNoticeSupported (bit 1), IsUDMulticastSupported (bit 9),
	 * IsMultiPathSupported (bit 10), the bits OpenSM's SA sets for these. */
	cpi.cap_mask = cl_hton16(IB_CLASS_CAP_GETSET | (1u << 9) | (1u << 10));
	cpi.cap_mask2_resp_time = cl_hton32(16); /* 4.096 us * 2^16: about 268 ms */
	cpi.redir_qp = cl_hton32(1);
	cpi.redir_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	cpi.trap_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	soft_sa_respond_one(sa, req, src, &cpi, sizeof(cpi));
}

void soft_sa_h_node(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src)
{
	uint64_t cm = cl_ntoh64(req->comp_mask);
	sa_recs_t r;
	size_t i;

	soft_sa_recs_init(&r, sizeof(ib_node_record_t));
	for (i = 0; i < sa->n_ports; i++) {
		const sa_port_t *e = &sa->ports[i];
		ib_node_record_t rec;
		uint16_t lid = soft_sa_port_lid(sa, e);

		if (is_switch_port(e) || !lid)
			continue;
		memset(&rec, 0, sizeof(rec));
		rec.lid = cl_hton16(lid);
		rec.node_info = e->p.node_info;
		rec.node_desc = e->p.node_desc;
		if (soft_sa_match(node_fields, NF(node_fields), cm, req->data, &rec))
			soft_sa_recs_add(&r, &rec);
	}
	soft_sa_respond(sa, req, src, &r);
}

void soft_sa_h_portinfo(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src)
{
	uint64_t cm = cl_ntoh64(req->comp_mask);
	sa_recs_t r;
	size_t i;

	soft_sa_recs_init(&r, sizeof(ib_portinfo_record_t));
	for (i = 0; i < sa->n_ports; i++) {
		const sa_port_t *e = &sa->ports[i];
		ib_portinfo_record_t rec;
		uint16_t lid = soft_sa_port_lid(sa, e);

		if (!lid)
			continue;
		memset(&rec, 0, sizeof(rec));
		rec.lid = cl_hton16(lid);
		rec.port_num = e->p.port_num;
		rec.port_info = e->p.port_info;
		if (soft_sa_match(portinfo_fields, NF(portinfo_fields), cm, req->data, &rec))
			soft_sa_recs_add(&r, &rec);
	}
	soft_sa_respond(sa, req, src, &r);
}

void soft_sa_h_link(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src)
{
	uint64_t cm = cl_ntoh64(req->comp_mask);
	sa_recs_t r;
	size_t i;

	soft_sa_recs_init(&r, sizeof(ib_link_record_t));
	for (i = 0; i < sa->n_ports; i++) {
		const sa_port_t *e = &sa->ports[i];
		const sa_port_t *peer;
		ib_link_record_t rec;

		if (!e->p.peer_node_guid)
			continue;
		peer = soft_sa_port_by_node(sa, e->p.peer_node_guid, e->p.peer_port_num);
		if (!peer || !soft_sa_port_lid(sa, e) || !soft_sa_port_lid(sa, peer))
			continue;
		memset(&rec, 0, sizeof(rec));
		rec.from_lid = cl_hton16(soft_sa_port_lid(sa, e));
		rec.from_port_num = e->p.port_num;
		rec.to_port_num = e->p.peer_port_num;
		rec.to_lid = cl_hton16(soft_sa_port_lid(sa, peer));
		if (soft_sa_match(link_fields, NF(link_fields), cm, req->data, &rec))
			soft_sa_recs_add(&r, &rec);
	}
	soft_sa_respond(sa, req, src, &r);
}

void soft_sa_h_guidinfo(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src)
{
	uint64_t cm = cl_ntoh64(req->comp_mask);
	sa_recs_t r;
	size_t i;

	soft_sa_recs_init(&r, sizeof(ib_guidinfo_record_t));
	for (i = 0; i < sa->n_ports; i++) {
		const sa_port_t *e = &sa->ports[i];
		ib_guidinfo_record_t rec;
		uint16_t lid = soft_sa_port_lid(sa, e);

		if (is_switch_port(e) || !lid)
			continue;
		memset(&rec, 0, sizeof(rec));
		rec.lid = cl_hton16(lid);
		rec.block_num = 0;
		rec.guid_info = e->p.guid_info;
		if (!rec.guid_info.guid[0])
			rec.guid_info.guid[0] = e->p.node_info.port_guid;
		if (soft_sa_match(guid_fields, NF(guid_fields), cm, req->data, &rec))
			soft_sa_recs_add(&r, &rec);
	}
	soft_sa_respond(sa, req, src, &r);
}

void soft_sa_h_pkey(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src)
{
	uint64_t cm = cl_ntoh64(req->comp_mask);
	sa_recs_t r;
	size_t i;

	soft_sa_recs_init(&r, sizeof(ib_pkey_table_record_t));
	for (i = 0; i < sa->n_ports; i++) {
		const sa_port_t *e = &sa->ports[i];
		ib_pkey_table_record_t rec;
		uint16_t lid = soft_sa_port_lid(sa, e);

		if (!lid)
			continue;
		memset(&rec, 0, sizeof(rec));
		rec.lid = cl_hton16(lid);
		rec.block_num = 0;
		rec.port_num = e->p.port_num;
		rec.pkey_tbl = e->p.pkey_table;
		if (soft_sa_match(pkey_fields, NF(pkey_fields), cm, req->data, &rec))
			soft_sa_recs_add(&r, &rec);
	}
	soft_sa_respond(sa, req, src, &r);
}

void soft_sa_h_sminfo(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src)
{
	uint64_t cm = cl_ntoh64(req->comp_mask);
	ib_sminfo_record_t rec;
	sa_recs_t r;

	soft_sa_recs_init(&r, sizeof(ib_sminfo_record_t));
	memset(&rec, 0, sizeof(rec));
	rec.lid = cl_hton16(sa->sm_lid);
	rec.sm_info = sa->sm_info;
	/* The SM_Key is only shown to requesters that give it (IBA 15.4.1). */
	if (req->sm_key != sa->sm_info.sm_key)
		rec.sm_info.sm_key = 0;
	if (sa->sm_lid && soft_sa_match(sminfo_fields, NF(sminfo_fields), cm, req->data, &rec))
		soft_sa_recs_add(&r, &rec);
	soft_sa_respond(sa, req, src, &r);
}
