/*
 * ibal soft provider: the packet path of the port agents: QP0/QP1 checks, directed route, replies.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * See soft_mad_agent.h for the rules. Directed route (IBA 14.2.2) on a CA
 * port: an outbound SMP (D bit clear) must arrive with hop pointer equal to
 * its hop count (a CA forwards nothing) and a permissive DrDLID; the port
 * records itself in the return path, the SMA answers, and the response
 * (D bit set, hop pointer back to the hop count) goes back the way it came:
 * on the soft fabric, to the port named by the request's SLID. An inbound
 * SMP (D bit set) must arrive with hop pointer 1, which the port takes to 0
 * before handing it to the SM that sent the request.
 */
#include <string.h>
#include "soft_mad_agent.h"
#include "soft_sm.h"

void soft_agent_send(soft_port_t *port, const void *p_mad, uint32_t len, uint32_t src_qp,
		     const soft_mad_addr_t *p_dst, uint16_t dlid, uint16_t to_lid)
{
	uint8_t buf[SOFT_LRH_LEN + SOFT_GRH_LEN + SOFT_BTH_LEN + SOFT_DETH_LEN + MAD_BLOCK_SIZE +
		    SOFT_ICRC_LEN + SOFT_VCRC_LEN + 4];
	soft_pkt_t pkt;
	size_t n;

	if (len > MAD_BLOCK_SIZE ||
	    __atomic_load_n(&port->link_state, __ATOMIC_ACQUIRE) == IB_LINK_DOWN)
		return;
	memset(&pkt, 0, sizeof(pkt));
	pkt.lrh.vl = src_qp == 0 ? 15 : 0;
	pkt.lrh.sl = p_dst->sl & 0xF;
	pkt.lrh.lnh = p_dst->grh_valid ? SOFT_LNH_IBA_GLOBAL : SOFT_LNH_IBA_LOCAL;
	pkt.lrh.dlid = dlid;
	pkt.lrh.slid = soft_port_lid(port);
	if (p_dst->grh_valid) {
		pkt.grh.ver_class_flow = CL_HTON32(0x60000000u);
		pkt.grh.hop_limit = 255;
		pkt.grh.src_gid.unicast.prefix = port->mgmt.subnet_prefix;
		pkt.grh.src_gid.unicast.interface_id = port->guid;
		pkt.grh.dest_gid = p_dst->gid;
	}
	pkt.bth.opcode = SOFT_OPCODE(SOFT_TRANSPORT_UD, SOFT_OP_SEND_ONLY);
	pkt.bth.pkey = p_dst->pkey;
	pkt.bth.dest_qp = p_dst->qpn & SOFT_QPN_MASK;
	pkt.deth.qkey = p_dst->qkey;
	pkt.deth.src_qp = src_qp;
	pkt.payload = p_mad;
	pkt.payload_len = len;
	if (soft_pkt_build(&pkt, buf, sizeof(buf), &n) != SOFT_WIRE_OK)
		return;
	if (to_lid)
		soft_fabric_send_to(port->fp, to_lid, buf, n);
	else
		soft_fabric_send(port->fp, buf, n);
}

static void count(uint64_t *p)
{
	__atomic_add_fetch(p, 1, __ATOMIC_RELAXED);
}

/* The address a response to @p pkt goes to. */
static void src_addr(const soft_pkt_t *pkt, uint32_t qkey, soft_mad_addr_t *a)
{
	memset(a, 0, sizeof(*a));
	a->lid = pkt->lrh.slid;
	a->qpn = pkt->deth.src_qp;
	a->qkey = qkey;
	a->pkey = pkt->bth.pkey;
	a->sl = pkt->lrh.sl;
	if (pkt->lrh.lnh == SOFT_LNH_IBA_GLOBAL) {
		a->grh_valid = TRUE;
		a->gid = pkt->grh.src_gid;
	}
}

static boolean_t is_unicast(uint16_t lid)
{
	return lid && lid <= SOFT_FABRIC_LID_UNICAST_MAX;
}

/* Whether a user QP0 of the port takes the SMPs its SMA does not own (a
 * subnet manager's QP0 MAD service through the access layer). A hint read
 * without the table lock: a QP0 going away meanwhile loses the SMP. */
static boolean_t qp0_open(soft_port_t *port)
{
	return __atomic_load_n(&port->spl[0], __ATOMIC_ACQUIRE) != NULL;
}

/* Whether the port's SMA owns a request, as HCA firmware owns it: Get and
 * Set (class version 1) of the attributes it implements, SMInfo only while
 * this process's embedded SM runs on the port. The rest (Trap, TrapRepress,
 * other methods, SMInfo for another SM) is a subnet manager's: through a
 * user QP0 when there is one, else the SMA answers it (an error status). */
static boolean_t sma_owns(soft_port_t *port, const ib_smp_t *smp)
{
	ib_sm_info_t smi;

	if (smp->method != IB_MAD_METHOD_GET && smp->method != IB_MAD_METHOD_SET)
		return FALSE;
	if (smp->attr_id == IB_MAD_ATTR_SM_INFO)
		return soft_sm_info(port, &smi);
	return TRUE;
}

/* A response reached QP0: the SM's if it waits for it, else a user QP0's. */
static boolean_t smp_response(soft_port_t *port, const ib_smp_t *smp)
{
	return soft_sm_smp_resp(port, smp);
}

/* Directed-route SMP (class 0x81). */
static boolean_t smp_dr(soft_port_t *port, const soft_pkt_t *pkt, ib_smp_t *smp)
{
	soft_mad_addr_t dst;

	if (ib_smp_is_d(smp)) {
		/* Inbound: back at the port that sent the request. */
		if (smp->hop_ptr != 1)
			return TRUE;
		smp->hop_ptr = 0;
		if (smp_response(port, smp))
			return TRUE;
		((ib_smp_t *)(uintptr_t)pkt->payload)->hop_ptr = 0;
		return FALSE;
	}
	if (!smp->hop_count || smp->hop_count >= IB_SUBNET_PATH_HOPS_MAX ||
	    smp->hop_ptr != smp->hop_count || smp->dr_dlid != CL_HTON16(IB_LID_PERMISSIVE) ||
	    !is_unicast(pkt->lrh.slid))
		return TRUE; /* a CA forwards nothing; LID-routed parts are not modelled */
	if (smp->method & IB_MAD_METHOD_RESP_MASK)
		return TRUE;
	smp->return_path[smp->hop_ptr] = port->num;
	smp->hop_ptr++;
	if (smp->method == IB_MAD_METHOD_TRAP || (!sma_owns(port, smp) && qp0_open(port))) {
		/* The SM's: it gets the SMP as this port's SMI leaves it. */
		memcpy((void *)(uintptr_t)pkt->payload, smp, sizeof(*smp));
		return FALSE;
	}
	soft_port_kick_hold(TRUE);
	if (soft_sma_process(port, smp)) {
		smp->status |= IB_SMP_DIRECTION;
		smp->hop_ptr--;
		src_addr(pkt, 0, &dst);
		dst.qpn = 0;
		soft_agent_send(port, smp, MAD_BLOCK_SIZE, 0, &dst, IB_LID_PERMISSIVE,
				pkt->lrh.slid);
	}
	soft_port_kick_hold(FALSE);
	return TRUE;
}

static boolean_t smp_recv(soft_port_t *port, const soft_pkt_t *pkt, uint8_t state)
{
	ib_smp_t smp;
	soft_mad_addr_t dst;

	if (state == IB_LINK_DOWN)
		return TRUE;
	if (pkt->lrh.vl != 15 || pkt->payload_len < MAD_BLOCK_SIZE) {
		count(&port->mgmt.vl15_dropped);
		return TRUE;
	}
	memcpy(&smp, pkt->payload, sizeof(smp));
	if (smp.base_ver != 1) {
		count(&port->mgmt.vl15_dropped);
		return TRUE;
	}
	if (smp.mgmt_class == IB_MCLASS_SUBN_DIR)
		return smp_dr(port, pkt, &smp);
	if (smp.mgmt_class != IB_MCLASS_SUBN_LID) {
		count(&port->mgmt.vl15_dropped);
		return TRUE;
	}
	if (pkt->lrh.dlid != soft_port_lid(port) && pkt->lrh.dlid != IB_LID_PERMISSIVE)
		return TRUE;
	if (smp.method & IB_MAD_METHOD_RESP_MASK)
		return smp_response(port, &smp);
	if (smp.method == IB_MAD_METHOD_TRAP)
		return soft_sm_trap(port, &smp);
	if (!sma_owns(port, &smp) && qp0_open(port))
		return FALSE;   /* a subnet manager's, through QP0 */
	if (!is_unicast(pkt->lrh.slid))
		return TRUE;
	soft_port_kick_hold(TRUE);
	if (soft_sma_process(port, &smp)) {
		src_addr(pkt, 0, &dst);
		soft_agent_send(port, &smp, MAD_BLOCK_SIZE, 0, &dst, pkt->lrh.slid, 0);
	}
	soft_port_kick_hold(FALSE);
	return TRUE;
}

/* P_Key of a GMP against the port's table (as soft_ud.c does for QP1). */
static boolean_t pkey_ok(soft_port_t *port, uint16_t pkey)
{
	uint16_t mine;

	return soft_port_pkey(port, 0, &mine) && (pkey & 0x7FFF) == (mine & 0x7FFF) &&
	       ((pkey | mine) & 0x8000);
}

/* Methods answered with a response (R bit clear, not Send/Trap/Report/TrapRepress). */
static boolean_t wants_reply(uint8_t method)
{
	return !(method & IB_MAD_METHOD_RESP_MASK) && method != IB_MAD_METHOD_SEND &&
	       method != IB_MAD_METHOD_TRAP && method != IB_MAD_METHOD_REPORT &&
	       method != IB_MAD_METHOD_TRAP_REPRESS;
}

/* Replies to a GMP request in @p buf (already turned into its response). */
static void gmp_reply(soft_port_t *port, const soft_pkt_t *pkt, void *buf)
{
	soft_mad_addr_t dst;

	src_addr(pkt, SOFT_QP1_QKEY, &dst);
	soft_agent_send(port, buf, MAD_BLOCK_SIZE, 1, &dst, pkt->lrh.slid, 0);
}

static boolean_t gmp_recv(soft_port_t *port, const soft_pkt_t *pkt, uint8_t state)
{
	const ib_mad_t *mad = (const ib_mad_t *)pkt->payload;
	uint8_t buf[MAD_BLOCK_SIZE];
	soft_mad_addr_t src;
	boolean_t has_qp1;

	if (state != IB_LINK_ACTIVE || pkt->lrh.dlid != soft_port_lid(port))
		return TRUE;
	if (!pkey_ok(port, pkt->bth.pkey)) {
		port->pkey_ctr++;
		return TRUE;
	}
	if (pkt->deth.qkey != SOFT_QP1_QKEY) {
		port->qkey_ctr++;
		return TRUE;
	}
	if (pkt->payload_len < sizeof(ib_mad_t) || mad->base_ver != 1 ||
	    mad->mgmt_class == IB_MCLASS_SUBN_LID || mad->mgmt_class == IB_MCLASS_SUBN_DIR) {
		count(&port->mgmt.rcv_errors);
		return TRUE;
	}
	memset(buf, 0, sizeof(buf));
	memcpy(buf, pkt->payload, pkt->payload_len < sizeof(buf) ? pkt->payload_len : sizeof(buf));
	if (mad->mgmt_class == IB_MCLASS_PERF && wants_reply(mad->method)) {
		soft_pma_process(port, (ib_mad_t *)buf);
		gmp_reply(port, pkt, buf);
		return TRUE;
	}
	if (mad->mgmt_class == IB_MCLASS_SUBN_ADM) {
		src_addr(pkt, SOFT_QP1_QKEY, &src);
		if (soft_sm_sa_recv(port, mad, pkt->payload_len, &src))
			return TRUE;
	}
	soft_rwlock_read(&port->ca->tab_lock);
	has_qp1 = port->spl[1] != NULL;
	soft_rwlock_read_end(&port->ca->tab_lock);
	if (has_qp1)
		return FALSE;
	if (wants_reply(mad->method)) {
		ib_mad_t *r = (ib_mad_t *)buf;

		r->method = r->method == IB_MAD_METHOD_SET ? IB_MAD_METHOD_GET_RESP
							 : (uint8_t)(r->method | IB_MAD_METHOD_RESP_MASK);
		r->status = IB_MAD_STATUS_UNSUP_CLASS_VER;
		gmp_reply(port, pkt, buf);
	}
	return TRUE;
}

boolean_t soft_agent_recv(soft_port_t *port, const soft_pkt_t *pkt)
{
	uint8_t state = __atomic_load_n(&port->link_state, __ATOMIC_ACQUIRE);

	if (pkt->bth.opcode != SOFT_OPCODE(SOFT_TRANSPORT_UD, SOFT_OP_SEND_ONLY))
		return TRUE; /* management datagrams are single packets without immediate data */
	if (pkt->bth.dest_qp == 0)
		return smp_recv(port, pkt, state);
	return gmp_recv(port, pkt, state);
}
