/*
 * ibal soft provider: the performance management agent of every soft port.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * ClassPortInfo (Get), PortCounters (Get, Set) and PortCountersExtended
 * (Get, Set) of IBA 16.1. The counters come from the port's fabric counters
 * (soft_fabric_port_stats(): every packet the port sent or received, SMPs
 * included, whole packets LRH through VCRC) and the agents' own counts:
 * PortXmitData/PortRcvData in 4-byte words, PortXmitPkts/PortRcvPkts,
 * PortXmitDiscards (packets the fabric could not deliver), PortRcvErrors
 * (malformed packets), VL15Dropped, PortMulticastRcvPkts. A Set clears the
 * counters its CounterSelect names (the others keep counting); counters
 * saturate at their width as IBA 16.1.3.5 says. Error counters the soft
 * fabric cannot produce (symbol errors, link recovery...) read 0.
 */
#include <string.h>
#include "soft_mad_agent.h"

/* Current raw values, indexed by SOFT_PMA_*. */
static void sample(soft_port_t *port, uint64_t v[8])
{
	soft_fabric_stats_t st;

	soft_fabric_port_stats(port->fp, &st);
	v[SOFT_PMA_XMIT_DATA] = st.tx_bytes / 4;
	v[SOFT_PMA_RCV_DATA] = st.rx_bytes / 4;
	v[SOFT_PMA_XMIT_PKTS] = st.tx_packets;
	v[SOFT_PMA_RCV_PKTS] = st.rx_packets;
	v[SOFT_PMA_XMIT_DISCARD] = st.drop_unknown + st.drop_dead + st.drop_busy + st.drop_error;
	v[SOFT_PMA_RCV_ERRORS] = __atomic_load_n(&port->mgmt.rcv_errors, __ATOMIC_RELAXED) +
				 st.rx_truncated;
	v[SOFT_PMA_VL15_DROPPED] = __atomic_load_n(&port->mgmt.vl15_dropped, __ATOMIC_RELAXED);
	v[SOFT_PMA_MCAST_RCV] = __atomic_load_n(&port->mgmt.multicast_rcv, __ATOMIC_RELAXED);
}

static uint64_t sat(uint64_t v, uint64_t max)
{
	return v > max ? max : v;
}

/* Clears (rebases) the counters of @p idx_mask; ca->lock held. */
static void rebase(soft_port_t *port, const uint64_t v[8], unsigned idx_mask)
{
	unsigned i;

	for (i = 0; i < 8; i++)
		if (idx_mask & (1u << i))
			port->mgmt.base[i] = v[i];
}

/* CounterSelect bits (host order) of PortCounters -> SOFT_PMA_* mask. */
static unsigned select_basic(uint16_t sel)
{
	unsigned m = 0;

	if (sel & (1u << 3))
		m |= 1u << SOFT_PMA_RCV_ERRORS;
	if (sel & (1u << 6))
		m |= 1u << SOFT_PMA_XMIT_DISCARD;
	if (sel & (1u << 11))
		m |= 1u << SOFT_PMA_VL15_DROPPED;
	if (sel & (1u << 12))
		m |= 1u << SOFT_PMA_XMIT_DATA;
	if (sel & (1u << 13))
		m |= 1u << SOFT_PMA_RCV_DATA;
	if (sel & (1u << 14))
		m |= 1u << SOFT_PMA_XMIT_PKTS;
	if (sel & (1u << 15))
		m |= 1u << SOFT_PMA_RCV_PKTS;
	return m;
}

/* CounterSelect of PortCountersExtended: bits 0..3 data/packets, 7 mcast rcv. */
static unsigned select_ext(uint16_t sel)
{
	unsigned m = 0;

	if (sel & 1u)
		m |= 1u << SOFT_PMA_XMIT_DATA;
	if (sel & 2u)
		m |= 1u << SOFT_PMA_RCV_DATA;
	if (sel & 4u)
		m |= 1u << SOFT_PMA_XMIT_PKTS;
	if (sel & 8u)
		m |= 1u << SOFT_PMA_RCV_PKTS;
	if (sel & 0x80u)
		m |= 1u << SOFT_PMA_MCAST_RCV;
	return m;
}

static void fill_basic(const uint64_t d[8], ib_port_counters_t *pc)
{
	pc->port_rcv_errors = cl_hton16((uint16_t)sat(d[SOFT_PMA_RCV_ERRORS], 0xFFFF));
	pc->port_xmit_discard = cl_hton16((uint16_t)sat(d[SOFT_PMA_XMIT_DISCARD], 0xFFFF));
	pc->vl15_dropped = cl_hton16((uint16_t)sat(d[SOFT_PMA_VL15_DROPPED], 0xFFFF));
	pc->port_xmit_data = cl_hton32((uint32_t)sat(d[SOFT_PMA_XMIT_DATA], 0xFFFFFFFFu));
	pc->port_rcv_data = cl_hton32((uint32_t)sat(d[SOFT_PMA_RCV_DATA], 0xFFFFFFFFu));
	pc->port_xmit_pkts = cl_hton32((uint32_t)sat(d[SOFT_PMA_XMIT_PKTS], 0xFFFFFFFFu));
	pc->port_rcv_pkts = cl_hton32((uint32_t)sat(d[SOFT_PMA_RCV_PKTS], 0xFFFFFFFFu));
}

static void fill_ext(const uint64_t d[8], ib_port_counters_ext_t *pc)
{
	uint64_t mc = d[SOFT_PMA_MCAST_RCV];

	pc->xmit_data = cl_hton64(d[SOFT_PMA_XMIT_DATA]);
	pc->rcv_data = cl_hton64(d[SOFT_PMA_RCV_DATA]);
	pc->xmit_pkts = cl_hton64(d[SOFT_PMA_XMIT_PKTS]);
	pc->rcv_pkts = cl_hton64(d[SOFT_PMA_RCV_PKTS]);
	pc->unicast_xmit_pkts = cl_hton64(d[SOFT_PMA_XMIT_PKTS]);
	pc->unicast_rcv_pkts = cl_hton64(d[SOFT_PMA_RCV_PKTS] >= mc ? d[SOFT_PMA_RCV_PKTS] - mc : 0);
	pc->multicast_xmit_pkts = 0;
	pc->multicast_rcv_pkts = cl_hton64(mc);
}

/* PortCounters / PortCountersExtended; returns the MAD status. */
static ib_net16_t counters(soft_port_t *port, ib_perfmgt_mad_t *m, boolean_t set, boolean_t ext)
{
	uint8_t port_select = m->data[1];
	uint16_t sel = cl_ntoh16(*(ib_net16_t *)(m->data + 2));
	uint64_t v[8], d[8];
	unsigned i;

	if (port_select != port->num && port_select != 0 && port_select != 0xFF)
		return IB_MAD_STATUS_INVALID_FIELD;
	sample(port, v);
	pthread_mutex_lock(&port->ca->lock);
	if (set)
		rebase(port, v, ext ? select_ext(sel) : select_basic(sel));
	for (i = 0; i < 8; i++)
		d[i] = v[i] - port->mgmt.base[i];
	pthread_mutex_unlock(&port->ca->lock);
	if (ext) {
		ib_port_counters_ext_t pc;

		memset(&pc, 0, sizeof(pc));
		pc.port_select = port_select;
		pc.counter_select = cl_hton16(sel);
		fill_ext(d, &pc);
		memcpy(m->data, &pc, sizeof(pc));
	} else {
		ib_port_counters_t pc;

		memset(&pc, 0, sizeof(pc));
		pc.port_select = port_select;
		pc.counter_select = cl_hton16(sel);
		fill_basic(d, &pc);
		memcpy(m->data, &pc, sizeof(pc));
	}
	return 0;
}

static void class_port_info(ib_perfmgt_mad_t *m)
{
	ib_class_port_info_t cpi;

	memset(&cpi, 0, sizeof(cpi));
	cpi.base_ver = 1;
	cpi.class_ver = 1;
	/* IsExtendedWidthSupported-style bits: PortCountersExtended (bit 9). */
	cpi.cap_mask = CL_HTON16(1u << 9);
	cpi.cap_mask2_resp_time = CL_HTON32(18);
	memset(m->data, 0, sizeof(m->data));
	memcpy(m->data, &cpi, sizeof(cpi));
}

void soft_pma_process(soft_port_t *port, ib_mad_t *p_mad)
{
	ib_perfmgt_mad_t *m = (ib_perfmgt_mad_t *)p_mad;
	boolean_t set = p_mad->method == IB_MAD_METHOD_SET;
	ib_net16_t st;

	if (p_mad->method != IB_MAD_METHOD_GET && !set)
		st = IB_MAD_STATUS_UNSUP_METHOD;
	else if (p_mad->class_ver != 1)
		st = IB_MAD_STATUS_UNSUP_CLASS_VER;
	else if (p_mad->attr_id == IB_MAD_ATTR_CLASS_PORT_INFO && !set) {
		class_port_info(m);
		st = 0;
	} else if (p_mad->attr_id == IB_MAD_ATTR_PORT_CNTRS)
		st = counters(port, m, set, FALSE);
	else if (p_mad->attr_id == IB_MAD_ATTR_PORT_CNTRS_EXT)
		st = counters(port, m, set, TRUE);
	else
		st = IB_MAD_STATUS_UNSUP_METHOD_ATTR;
	p_mad->method = IB_MAD_METHOD_GET_RESP;
	p_mad->status = st;
}
