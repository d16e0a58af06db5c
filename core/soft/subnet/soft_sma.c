/*
 * ibal soft provider: the subnet management agent of every soft port, and ops->local_mad.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Attributes (IBA 14.2.5): NodeInfo, NodeDescription (read-only),
 * PortInfo, GUIDInfo (one GUID, block 0; Set leaves it), P_KeyTable (one
 * entry 0xFFFF, block 0; Set leaves it), SLtoVLMappingTable and
 * VLArbitrationTable (blocks 1 and 2; stored, no effect on the single data
 * VL), SMInfo (only on the port an SM runs on). A method other than Get/Set
 * is answered with IB_MAD_STATUS_UNSUP_METHOD, an attribute the port does not
 * have (or Set of a read-only one) with IB_MAD_STATUS_UNSUP_METHOD_ATTR, a bad
 * attribute modifier or field value with IB_MAD_STATUS_INVALID_FIELD (and no
 * change at all), a class version other than 1 with
 * IB_MAD_STATUS_UNSUP_CLASS_VER.
 *
 * PortInfo Set (14.2.5.6): LID (1..0xBFFF; moves the port on the fabric),
 * LMC (kept and reported; only the base LID routes), M_Key, its protect
 * bits and lease, MasterSMLID/SL, GidPrefix, SubnetTimeOut, ClientReregister
 * and PortState: NoChange, Down (the link retrains at once: the port is
 * back in INIT), Armed (from INIT or ARMED), Active (from ARMED or ACTIVE);
 * any other transition is an invalid field. M_Key check (simple): with a
 * nonzero M_Key and protect bits > 0, a Set carrying another M_Key is
 * dropped and counted in M_KeyViolations (protect bits >= 2 drop Gets too).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "soft_mad_agent.h"
#include "soft_sm.h"

static void node_info(soft_port_t *port, ib_node_info_t *ni)
{
	soft_ca_t *ca = port->ca;

	memset(ni, 0, sizeof(*ni));
	ni->base_version = 1;
	ni->class_version = 1;
	ni->node_type = IB_NODE_TYPE_CA;
	ni->num_ports = ca->num_ports;
	ni->sys_guid = ca->guid;
	ni->node_guid = ca->guid;
	ni->port_guid = port->guid;
	ni->partition_cap = CL_HTON16(1);
	ni->device_id = CL_HTON16(0x50F7);
	ni->revision = CL_HTON32(1);
	ni->port_num_vendor_id = cl_hton32(((uint32_t)port->num << 24) | 0x02BA1Au);
}

static void node_desc(soft_port_t *port, ib_node_desc_t *nd)
{
	char host[32] = "localhost";

	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = 0;
	const char *name = soft_prov_node_name(port->ca->index, NULL);

	memset(nd, 0, sizeof(*nd));
	if (name) /* a node of the fabric service's topology is known by its name */
		snprintf((char *)nd->description, sizeof(nd->description), "%s", name);
	else
		snprintf((char *)nd->description, sizeof(nd->description),
			 "ibal-soft %s pid %d CA %u", host, (int)getpid(), port->ca->index);
}

static ib_net32_t cap_mask(soft_port_t *port)
{
	const ib_port_cap_t *c = &port->cap;
	ib_sm_info_t smi;
	ib_net32_t m = IB_PORT_CAP_HAS_TRAP | IB_PORT_CAP_HAS_SYS_IMG_GUID;

	if (c->sm || soft_sm_info(port, &smi))
		m |= IB_PORT_CAP_IS_SM;
	if (c->sm_disable)
		m |= IB_PORT_CAP_SM_DISAB;
	if (c->notice)
		m |= IB_PORT_CAP_HAS_NOTICE;
	if (c->cm)
		m |= IB_PORT_CAP_HAS_COM_MGT;
	if (c->snmp)
		m |= IB_PORT_CAP_HAS_SNMP;
	if (c->dev_mgmt)
		m |= IB_PORT_CAP_HAS_DEV_MGT;
	if (c->vend)
		m |= IB_PORT_CAP_HAS_VEND_CLS;
	if (c->client_reregister)
		m |= IB_PORT_CAP_HAS_CLIENT_REREG;
	return m;
}

void soft_sma_port_info(soft_port_t *port, ib_port_info_t *pi)
{
	soft_ca_t *ca = port->ca;
	const soft_port_mgmt_t *g = &port->mgmt;
	ib_net32_t caps = cap_mask(port);

	memset(pi, 0, sizeof(*pi));
	pthread_mutex_lock(&ca->lock);
	pi->m_key = g->m_key;
	pi->subnet_prefix = g->subnet_prefix;
	pi->base_lid = cl_hton16(soft_port_lid(port));
	pi->master_sm_base_lid = cl_hton16(g->sm_lid);
	pi->capability_mask = caps;
	pi->m_key_lease_period = cl_hton16(g->mkey_lease);
	pi->local_port_num = port->num;
	pi->link_width_enabled = IB_LINK_WIDTH_ACTIVE_4X;
	pi->link_width_supported = IB_LINK_WIDTH_ACTIVE_1X | IB_LINK_WIDTH_ACTIVE_4X;
	pi->link_width_active = IB_LINK_WIDTH_ACTIVE_4X;
	pi->state_info1 = (uint8_t)((IB_LINK_SPEED_ACTIVE_2_5 << 4) | port->link_state);
	pi->state_info2 = (uint8_t)(((port->link_state == IB_LINK_DOWN ? 3 : 5) << 4) | 2);
	pi->mkey_lmc = (uint8_t)((g->mkey_protect << 6) | g->lmc);
	pi->link_speed = (IB_LINK_SPEED_ACTIVE_2_5 << 4) | IB_LINK_SPEED_ACTIVE_2_5;
	pi->mtu_smsl = (uint8_t)((IB_MTU_LEN_4096 << 4) | g->sm_sl);
	pi->vl_cap = 1 << 4;
	pi->vl_arb_high_cap = 32;
	pi->vl_arb_low_cap = 32;
	pi->mtu_cap = IB_MTU_LEN_4096;
	pi->vl_stall_life = 0x13;
	pi->vl_enforce = 1 << 4;
	pi->m_key_violations = cl_hton16(g->mkey_violations);
	pi->p_key_violations = cl_hton16(port->pkey_ctr);
	pi->q_key_violations = cl_hton16(port->qkey_ctr);
	pi->guid_cap = 1;
	pi->subnet_timeout = (uint8_t)((g->client_rereg << 7) | g->subnet_timeout);
	pi->resp_time_value = 8;
	pthread_mutex_unlock(&ca->lock);
}

static void send_trap(soft_port_t *port, uint16_t trap);

/* Applies a PortInfo Set; returns the MAD status (0 when applied). */
static ib_net16_t port_info_set(soft_port_t *port, const ib_port_info_t *pi)
{
	soft_ca_t *ca = port->ca;
	soft_port_mgmt_t *g = &port->mgmt;
	uint16_t lid = cl_ntoh16(pi->base_lid);
	uint8_t want = pi->state_info1 & IB_PORT_STATE_MASK, cur;
	boolean_t sm_changed;

	cur = __atomic_load_n(&port->link_state, __ATOMIC_ACQUIRE);
	if (!lid || lid > SOFT_FABRIC_LID_UNICAST_MAX)
		return IB_MAD_STATUS_INVALID_FIELD;
	if (want > IB_LINK_ACTIVE || want == IB_LINK_INIT ||
	    (want == IB_LINK_ARMED && cur != IB_LINK_INIT && cur != IB_LINK_ARMED) ||
	    (want == IB_LINK_ACTIVE && cur != IB_LINK_ARMED && cur != IB_LINK_ACTIVE))
		return IB_MAD_STATUS_INVALID_FIELD;
	if (lid != soft_port_lid(port) && soft_port_set_lid(port, lid) != IB_SUCCESS)
		return IB_MAD_STATUS_INVALID_FIELD;
	pthread_mutex_lock(&ca->lock);
	sm_changed = g->sm_lid != cl_ntoh16(pi->master_sm_base_lid) ||
		     g->sm_sl != (pi->mtu_smsl & 0xF) || g->subnet_prefix != pi->subnet_prefix;
	g->m_key = pi->m_key;
	g->subnet_prefix = pi->subnet_prefix;
	g->sm_lid = cl_ntoh16(pi->master_sm_base_lid);
	g->sm_sl = pi->mtu_smsl & 0xF;
	g->lmc = pi->mkey_lmc & IB_PORT_LMC_MASK;
	g->mkey_protect = (uint8_t)(pi->mkey_lmc >> IB_PORT_MPB_SHIFT);
	g->mkey_lease = cl_ntoh16(pi->m_key_lease_period);
	g->subnet_timeout = pi->subnet_timeout & 0x1F;
	g->client_rereg = (uint8_t)(pi->subnet_timeout >> 7);
	pthread_mutex_unlock(&ca->lock);
	if (sm_changed)
		soft_port_announce(port, IB_AE_SM_CHANGE);
	if (g->client_rereg)
		soft_port_announce(port, IB_AE_CLIENT_REREGISTER);
	if (want == IB_LINK_DOWN) {
		soft_port_set_state(port, IB_LINK_DOWN);
		soft_port_set_state(port, IB_LINK_INIT); /* the link retrains */
		/* ... and the SM hears of it (a switch's Trap 128), so that it
		 * brings the port up again: one SMP cannot keep it down. */
		send_trap(port, SOFT_TRAP_LINK_STATE);
	} else if (want != IB_LINK_NO_CHANGE) {
		soft_port_set_state(port, want);
	}
	return 0;
}

/* M_Key check; FALSE drops the SMP. */
static boolean_t mkey_ok(soft_port_t *port, const ib_smp_t *smp)
{
	soft_port_mgmt_t *g = &port->mgmt;
	boolean_t ok;

	pthread_mutex_lock(&port->ca->lock);
	ok = !g->m_key || !g->mkey_protect || smp->m_key == g->m_key ||
	     (smp->method == IB_MAD_METHOD_GET && g->mkey_protect < 2);
	if (!ok)
		g->mkey_violations++;
	pthread_mutex_unlock(&port->ca->lock);
	return ok;
}

static ib_net16_t do_attr(soft_port_t *port, ib_smp_t *smp)
{
	boolean_t set = smp->method == IB_MAD_METHOD_SET;
	uint32_t mod = cl_ntoh32(smp->attr_mod);
	uint8_t *d = smp->data;
	ib_sm_info_t smi;
	ib_net16_t st = 0;

	switch (smp->attr_id) {
	case IB_MAD_ATTR_NODE_INFO:
		if (set)
			return IB_MAD_STATUS_UNSUP_METHOD_ATTR;
		node_info(port, (ib_node_info_t *)d);
		return 0;
	case IB_MAD_ATTR_NODE_DESC:
		if (set)
			return IB_MAD_STATUS_UNSUP_METHOD_ATTR;
		node_desc(port, (ib_node_desc_t *)d);
		return 0;
	case IB_MAD_ATTR_PORT_INFO:
		if (mod && mod != port->num) {
			soft_port_t *other = soft_ca_port(port->ca, (uint8_t)mod);

			if (!other || mod > 0xFF)
				return IB_MAD_STATUS_INVALID_FIELD;
			port = other;
		}
		if (set) {
			ib_port_info_t pi;

			memcpy(&pi, d, sizeof(pi));
			st = port_info_set(port, &pi);
		}
		soft_sma_port_info(port, (ib_port_info_t *)d);
		return st;
	case IB_MAD_ATTR_GUID_INFO:
		if (mod)
			return IB_MAD_STATUS_INVALID_FIELD;
		memset(d, 0, sizeof(ib_guid_info_t));
		((ib_guid_info_t *)d)->guid[0] = port->guid;
		return 0;
	case IB_MAD_ATTR_P_KEY_TABLE:
		if (mod & 0xFFFF)
			return IB_MAD_STATUS_INVALID_FIELD;
		memset(d, 0, sizeof(ib_pkey_table_t));
		((ib_pkey_table_t *)d)->pkey_entry[0] = CL_HTON16(0xFFFF);
		return 0;
	case IB_MAD_ATTR_SLVL_TABLE:
		pthread_mutex_lock(&port->ca->lock);
		if (set)
			memcpy(port->mgmt.slvl, d, sizeof(port->mgmt.slvl));
		memset(d, 0, IB_SMP_DATA_SIZE);
		memcpy(d, port->mgmt.slvl, sizeof(port->mgmt.slvl));
		pthread_mutex_unlock(&port->ca->lock);
		return 0;
	case IB_MAD_ATTR_VL_ARBITRATION:
		mod >>= 16;
		if (mod != 1 && mod != 2)
			return IB_MAD_STATUS_INVALID_FIELD;
		pthread_mutex_lock(&port->ca->lock);
		if (set)
			memcpy(port->mgmt.vlarb[mod - 1], d, 64);
		memcpy(d, port->mgmt.vlarb[mod - 1], 64);
		pthread_mutex_unlock(&port->ca->lock);
		return 0;
	case IB_MAD_ATTR_SM_INFO:
		if (!soft_sm_info(port, &smi))
			return IB_MAD_STATUS_UNSUP_METHOD_ATTR;
		/* Set (14.4.1 handshake: HANDOVER, ACKNOWLEDGE, DISABLE, STANDBY,
		 * DISCOVER in the attribute modifier) is acknowledged with the
		 * SM's unchanged SMInfo: the embedded SM keeps its role. */
		memset(d, 0, IB_SMP_DATA_SIZE);
		memcpy(d, &smi, sizeof(smi));
		return 0;
	default:
		return IB_MAD_STATUS_UNSUP_METHOD_ATTR;
	}
}

boolean_t soft_sma_process(soft_port_t *port, ib_smp_t *smp)
{
	ib_net16_t st;

	if (smp->method != IB_MAD_METHOD_GET && smp->method != IB_MAD_METHOD_SET) {
		if ((smp->method & IB_MAD_METHOD_RESP_MASK) || smp->method == IB_MAD_METHOD_TRAP ||
		    smp->method == IB_MAD_METHOD_TRAP_REPRESS)
			return FALSE;
		st = IB_MAD_STATUS_UNSUP_METHOD;
	} else if (smp->class_ver != 1) {
		st = IB_MAD_STATUS_UNSUP_CLASS_VER;
	} else {
		if (!mkey_ok(port, smp))
			return FALSE;
		st = do_attr(port, smp);
	}
	smp->method = IB_MAD_METHOD_GET_RESP;
	smp->status = (smp->status & IB_SMP_DIRECTION) | st;
	return TRUE;
}

ib_api_status_t soft_local_mad(void *h, uint8_t port_num, const void *p_mad_in, void *p_mad_out)
{
	soft_port_t *port = soft_ca_port((soft_ca_t *)h, port_num);
	const ib_mad_t *in = p_mad_in;
	ib_smp_t *out = p_mad_out;

	if (!port)
		return IB_INVALID_PORT;
	if (!p_mad_in || !p_mad_out)
		return IB_INVALID_PARAMETER;
	if (in->base_ver != 1)
		return IB_UNSUPPORTED;
	if (in->method & IB_MAD_METHOD_RESP_MASK)
		return IB_UNSUPPORTED;
	if (p_mad_out != p_mad_in)
		memmove(p_mad_out, p_mad_in, MAD_BLOCK_SIZE);
	switch (in->mgmt_class) {
	case IB_MCLASS_SUBN_DIR:
		if (!ib_smp_is_d(out) && out->hop_ptr == out->hop_count &&
		    out->hop_count < IB_SUBNET_PATH_HOPS_MAX)
			out->return_path[out->hop_ptr] = port_num;
		/* fall through */
	case IB_MCLASS_SUBN_LID:
		if (!soft_sma_process(port, out))
			return IB_UNSUPPORTED;
		if (in->mgmt_class == IB_MCLASS_SUBN_DIR)
			out->status |= IB_SMP_DIRECTION;
		return IB_SUCCESS;
	case IB_MCLASS_PERF:
		soft_pma_process(port, (ib_mad_t *)out);
		return IB_SUCCESS;
	default:
		return IB_UNSUPPORTED;
	}
}

/* ---- Traps to the master SM: 144 (CapabilityMask changed), 128 (link) ---- */

/* Sends Trap(Notice @p trap) from @p port to its master SM, LID-routed to
 * QP0; nothing while the port knows no SM (it reads PortInfo when it
 * brings the port up). No lock held. */
static void send_trap(soft_port_t *port, uint16_t trap)
{
	ib_smp_t smp;
	ib_mad_notice_attr_t *ntc = (ib_mad_notice_attr_t *)smp.data;
	soft_mad_addr_t dst;
	uint16_t lid, sm_lid, pkey = 0xFFFF;
	static uint32_t tid_seq;

	pthread_mutex_lock(&port->ca->lock);
	lid = soft_port_lid(port);
	sm_lid = port->mgmt.sm_lid;
	memset(&dst, 0, sizeof(dst));
	dst.sl = port->mgmt.sm_sl;
	pthread_mutex_unlock(&port->ca->lock);
	if (!sm_lid)
		return; /* no SM yet: it reads PortInfo when it brings the port up */
	(void)soft_port_pkey(port, 0, &pkey);
	memset(&smp, 0, sizeof(smp));
	smp.base_ver = 1;
	smp.mgmt_class = IB_MCLASS_SUBN_LID;
	smp.class_ver = 1;
	smp.method = IB_MAD_METHOD_TRAP;
	smp.trans_id = cl_hton64(((uint64_t)0x7E << 56) | ((uint64_t)lid << 32) |
				 __atomic_add_fetch(&tid_seq, 1, __ATOMIC_RELAXED));
	smp.attr_id = IB_MAD_ATTR_NOTICE;
	ntc->generic_type = (uint8_t)(0x80 | IB_NOTICE_TYPE_INFO);
	ib_notice_set_prod_type(ntc, IB_NOTICE_PRODUCER_TYPE_CA);
	ntc->g_or_v.generic.trap_num = cl_hton16(trap);
	ntc->issuer_lid = cl_hton16(lid);
	if (trap == SOFT_TRAP_CAP_MASK_CHANGED) {
		ntc->data_details.ntc_144.lid = cl_hton16(lid);
		ntc->data_details.ntc_144.new_cap_mask = cap_mask(port);
	} else {
		ntc->data_details.ntc_128.sw_lid = cl_hton16(lid);
	}
	dst.lid = sm_lid;
	dst.qpn = 0;
	dst.pkey = pkey;
	soft_agent_send(port, &smp, MAD_BLOCK_SIZE, 0, &dst, sm_lid, 0);
}

void soft_sma_cap_changed(soft_port_t *port)
{
	send_trap(port, SOFT_TRAP_CAP_MASK_CHANGED);
}
