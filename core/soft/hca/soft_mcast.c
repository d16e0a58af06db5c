/*
 * ibal soft provider: multicast attachments of UD QPs and the delivery of multicast packets.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * attach_mcast records (QP, its port, MLID, MGID) in the CA's list and, for
 * the first QP of a port in a group, attaches the port to the MLID on the
 * fabric (soft_fabric_mcast_attach), which then delivers every packet sent
 * to that MLID to the port. The progress thread hands a received packet
 * whose DLID is a multicast LID (0xC000..0xFFFE), whose BTH:DestQP is
 * 0xFFFFFF and which carries a GRH (IBA 10.5.2: multicast packets are
 * global) to every QP of the port attached to that MLID with that MGID
 * (the GRH's DGID), each with its own Q_Key/P_Key checks and receive
 * queue. The QP that sent the packet does not receive it (the HCA suppresses
 * the loopback to the sender, as Linux HCAs do with
 * IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK); other QPs of the same port and
 * CA do. Destroying a QP detaches it from its groups.
 *
 * Limits: 8 QPs per group per CA, SOFT_MAX_MCAST groups per port.
 * Locking: the list changes under soft_tab_write() (rx_lock and tab_lock)
 * and is read under rx_lock by the packet handling that delivers.
 */
#include <stdlib.h>
#include <string.h>
#include "soft_hca.h"

#define QPS_PER_GROUP 8u

/* Attachments of (port, mlid) other than @p skip, and groups of the port. */
static void tally(soft_ca_t *ca, uint8_t port, uint16_t mlid, const soft_mcast_t *skip,
		  unsigned *p_same_lid, unsigned *p_groups_qps)
{
	const soft_mcast_t *m;

	*p_same_lid = 0;
	if (p_groups_qps)
		*p_groups_qps = 0;
	for (m = ca->mcast; m; m = m->next) {
		if (m == skip || m->port != port)
			continue;
		if (m->mlid == mlid)
			(*p_same_lid)++;
		else if (p_groups_qps)
			(*p_groups_qps)++;
	}
}

static ib_api_status_t check(soft_qp_t *qp, const ib_gid_t *p_mgid, ib_net16_t mlid,
			     uint8_t *p_port)
{
	uint16_t lid = cl_ntoh16(mlid);

	if (qp->type != IB_QPT_UNRELIABLE_DGRM)
		return IB_INVALID_SERVICE_TYPE;
	if (!p_mgid)
		return IB_INVALID_PARAMETER;
	if (p_mgid->raw[0] != 0xFF)
		return IB_INVALID_GID;
	if (lid < 0xC000 || lid == 0xFFFF)
		return IB_INVALID_PARAMETER;
	soft_lock(&qp->lock);
	*p_port = qp->attr.state == IB_QPS_RESET ? 0 : qp->attr.port;
	soft_unlock(&qp->lock);
	return *p_port ? IB_SUCCESS : IB_INVALID_QP_STATE;
}

ib_api_status_t soft_attach_mcast(void *h, const ib_gid_t *p_mgid, ib_net16_t mlid)
{
	soft_qp_t *qp = h;
	soft_ca_t *ca = qp->ca;
	uint16_t lid = cl_ntoh16(mlid);
	soft_mcast_t *m, *n;
	unsigned same, in_group = 0;
	uint8_t port;
	ib_api_status_t st = check(qp, p_mgid, mlid, &port);

	if (st != IB_SUCCESS)
		return st;
	n = cl_zalloc(sizeof(*n));
	if (!n)
		return IB_INSUFFICIENT_MEMORY;
	n->qp = qp;
	n->port = port;
	n->mlid = lid;
	n->mgid = *p_mgid;
	soft_tab_write(ca);
	for (m = ca->mcast; m; m = m->next) {
		if (m->mlid != lid || memcmp(&m->mgid, p_mgid, sizeof(*p_mgid)))
			continue;
		if (m->qp == qp) {
			soft_tab_write_end(ca);
			cl_free(n);
			return IB_SUCCESS; /* attaching twice is attaching once */
		}
		in_group++;
	}
	tally(ca, port, lid, NULL, &same, NULL);
	if (in_group >= QPS_PER_GROUP)
		st = IB_INSUFFICIENT_RESOURCES;
	else if (!same)
		st = soft_fabric_mcast_attach(soft_ca_port(ca, port)->fp, lid);
	if (st == IB_SUCCESS) {
		n->next = ca->mcast;
		ca->mcast = n;
		ca->n_mcast++;
	}
	soft_tab_write_end(ca);
	if (st != IB_SUCCESS)
		cl_free(n);
	return st;
}

/* Unlinks @p m (tab_lock write held) and detaches the port when it was the last. */
static void unlink_ent(soft_ca_t *ca, soft_mcast_t **pp)
{
	soft_mcast_t *m = *pp;
	unsigned same;

	tally(ca, m->port, m->mlid, m, &same, NULL);
	if (!same)
		soft_fabric_mcast_detach(soft_ca_port(ca, m->port)->fp, m->mlid);
	*pp = m->next;
	ca->n_mcast--;
	cl_free(m);
}

ib_api_status_t soft_detach_mcast(void *h, const ib_gid_t *p_mgid, ib_net16_t mlid)
{
	soft_qp_t *qp = h;
	soft_ca_t *ca = qp->ca;
	uint16_t lid = cl_ntoh16(mlid);
	soft_mcast_t **pp;

	if (qp->type != IB_QPT_UNRELIABLE_DGRM)
		return IB_INVALID_SERVICE_TYPE;
	if (!p_mgid)
		return IB_INVALID_PARAMETER;
	soft_tab_write(ca);
	for (pp = &ca->mcast; *pp; pp = &(*pp)->next) {
		if ((*pp)->qp == qp && (*pp)->mlid == lid &&
		    !memcmp(&(*pp)->mgid, p_mgid, sizeof(*p_mgid))) {
			unlink_ent(ca, pp);
			soft_tab_write_end(ca);
			return IB_SUCCESS;
		}
	}
	soft_tab_write_end(ca);
	return IB_NOT_FOUND;
}

void soft_mcast_qp_gone(soft_qp_t *qp)
{
	soft_ca_t *ca = qp->ca;
	soft_mcast_t **pp = &ca->mcast;

	while (*pp) {
		if ((*pp)->qp == qp)
			unlink_ent(ca, pp);
		else
			pp = &(*pp)->next;
	}
}

void soft_mcast_recv(soft_port_t *port, const soft_pkt_t *pkt)
{
	soft_ca_t *ca = port->ca;
	const soft_mcast_t *m;
	boolean_t counted = FALSE;

	if (pkt->lrh.lnh != SOFT_LNH_IBA_GLOBAL)
		return;
	for (m = ca->mcast; m; m = m->next) {
		if (m->port != port->num || m->mlid != pkt->lrh.dlid ||
		    memcmp(&m->mgid, &pkt->grh.dest_gid, sizeof(m->mgid)))
			continue;
		if (!counted) {
			__atomic_add_fetch(&port->mgmt.multicast_rcv, 1, __ATOMIC_RELAXED);
			counted = TRUE;
		}
		if (pkt->lrh.slid == soft_port_lid(port) && pkt->deth.src_qp == m->qp->qpn)
			continue; /* no loopback to the sending QP */
		soft_ud_recv(port, m->qp, pkt);
	}
}
