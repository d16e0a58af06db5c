/*
 * ibal verbs provider: QP0/QP1 over libibumad agents: agents, sends, the receive thread, TID restore.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A port opens its umad device (umad_open_port) with its first special QP.
 * Creating QP1 registers one agent per GMP class (SA 0x03 v2, PerfMgt 0x04,
 * BM 0x05, DM 0x06, CM 0x07 v2, SNMP 0x08, vendor 0x09-0x0F), QP0 one per
 * SMP class (0x01, 0x81), all with RMPP version 0 (the access layer does
 * RMPP itself) and a method mask of the request methods (Get, Set, Send,
 * Trap, Report, TrapRepress, GetTable, GetTraceTable, GetMulti, Delete) so
 * unsolicited requests arrive. A registration refused with a mask (EINVAL:
 * another agent owns those methods, as the kernel's CM does for class 0x07)
 * is retried without methods (responses only); one refused again leaves the
 * class without an agent until the first send of that class registers it.
 * Classes not listed, and vendor range 2 (0x30-0x4F, per OUI), are
 * registered, responses only, at their first send.
 *
 * **Sends.** Each UD work request becomes one umad_send of 256 bytes (the
 * gathered SGEs, zero padded) to the AV's DLID/SL (and GRH: gid_index is
 * set by hand, umad_set_grh would not copy it), the WR's remote QP, Q_Key
 * and P_Key index. A request (R bit clear) goes with a timeout and no
 * retries: the kernel delivers a response only while the request is
 * outstanding there; the expiry it reports (status ETIMEDOUT) is dropped,
 * since the access layer times out itself. The timeout is how long the
 * access layer waits before it sends the request again (AL_PROV_MAD_WAIT in
 * the WR), else IBAL_VERBS_MAD_TIMEOUT_MS.
 * Responses go with timeout 0. The send completes as soon as umad_send
 * accepted it. The kernel refuses (EINVAL) a non-response MAD whose class
 * and TID are those of one this file sent that it still keeps; such a MAD
 * is tried again until that one is gone (send_after_twin(), at most
 * VERBS_TWIN_WAIT_MS): the answer of a CM endpoint to its peer in this
 * process carries the TID of the request it answers, and a resent request
 * the TID of its first copy. SGE L_Keys are checked
 * (IB_WCS_LOCAL_PROTECTION_ERR).
 *
 * **TID restore.** The kernel rewrites the high 32 bits of a request's TID
 * to its agent's hi_tid; umad2sim (ibsim) puts the agent id in bits 32-47.
 * Responses come back with the rewritten TID, while the access layer
 * matches them with the TID it sent. Each port therefore remembers its last
 * VERBS_TID_SLOTS requests (class, low 32 bits, destination LID, the
 * user's high 32 bits); a received response (R bit set) whose class and low
 * 32 bits match one (preferring the same LID, then the most recent) gets the
 * user's high bits back, and the wire high bits are learned. A response the
 * user sends back to such a peer with the user's TID (an RMPP ACK of a
 * multi-segment answer) gets the learned wire bits again.
 *
 * **Receives.** The port's receive thread waits in poll() on the umad
 * device and an eventfd that the port's close writes (so that destroying
 * the last QP does not wait out the poll), at most VERBS_RECV_POLL_MS at a
 * time: umad2sim's poll() watches only its own descriptor, and under it the
 * close waits for that bound as before. A MAD read (umad_recv) fills the
 * next receive of the QP the agent belongs to: the 40-byte
 * GRH area first (a GRH is written there when the MAD came with one:
 * IB_RECV_OPT_GRH_VALID), then the MAD; the completion carries the source
 * LID, QP, SL, path bits and P_Key index (an index outside the port's table,
 * as umad2sim leaves it, is reported as 0). Its byte count is the GRH area
 * plus the length umad_recv() gave: 256 from the kernel, but umad2sim
 * (ibsim) passes only the bytes the sender wrote (a 120-byte GetTableResp
 * of one PathRecord), and that length is what tells the SA client how many
 * records came. The receive buffer is still zero filled up to 256 bytes
 * after a shorter MAD (zeros that are not counted). A MAD that finds no
 * QP in RTR or RTS, or no posted receive, is dropped, as the HCA would
 * drop it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sched.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <complib/cl_timer.h>
#include "verbs_prov.h"
#include "ibal_log.h"

#ifdef HAVE_VERBS_PROV

#define MAD_CLASS(m)  ((m)[1])
#define MAD_VER(m)    ((m)[2])
#define MAD_METHOD(m) ((m)[3])
#define MAD_IS_RESP(m) (((m)[3] & 0x80) != 0)

static const struct {
	uint8_t mgmt_class, version, qpn;
} std_classes[] = {
	{ 0x01, 1, 0 }, { 0x81, 1, 0 },
	{ 0x03, 2, 1 }, { 0x04, 1, 1 }, { 0x05, 1, 1 }, { 0x06, 1, 1 }, { 0x07, 2, 1 },
	{ 0x08, 1, 1 }, { 0x09, 1, 1 }, { 0x0A, 1, 1 }, { 0x0B, 1, 1 }, { 0x0C, 1, 1 },
	{ 0x0D, 1, 1 }, { 0x0E, 1, 1 }, { 0x0F, 1, 1 },
};

static const uint8_t req_methods[] = { 0x01, 0x02, 0x03, 0x05, 0x06, 0x07,
				       0x12, 0x13, 0x14, 0x15 };

static uint32_t rd32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static void wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* ---- Ports and agents ---- */

/* A device not open, with no agents. */
static void dev_clear(verbs_umad_t *dev)
{
	unsigned i;

	dev->fd = -1;
	for (i = 0; i < 256; i++)
		dev->agent[i] = -1;
	dev->n_oui = 0;
}

void verbs_port_init(verbs_ca_t *ca, verbs_port_t *port, uint8_t num)
{
	memset(port, 0, sizeof(*port));
	port->ca = ca;
	port->num = num;
	dev_clear(&port->dev);
	port->issm_fd = -1;
	port->rx_wake = -1;
	pthread_mutex_init(&port->oc_lock, NULL);
	pthread_mutex_init(&port->lock, NULL);
}

void verbs_port_fini(verbs_port_t *port)
{
	/* The core destroys QPs before it closes the CA: the device is closed. */
	pthread_mutex_destroy(&port->lock);
	pthread_mutex_destroy(&port->oc_lock);
}

/* Registers an agent for @p cls (port->lock held). */
static int reg_class(verbs_port_t *port, uint8_t cls, uint8_t version, boolean_t requests)
{
	long mask[16 / sizeof(long)];
	int id = -1;
	size_t i;

	if (requests) {
		memset(mask, 0, sizeof(mask));
		for (i = 0; i < sizeof(req_methods); i++) {
			unsigned b = req_methods[i];

			mask[b / (8 * sizeof(long))] |= 1L << (b % (8 * sizeof(long)));
		}
		id = umad_register(port->dev.fd, cls, version, 0, mask);
	}
	if (id < 0)
		id = umad_register(port->dev.fd, cls, version, 0, NULL);
	IBAL_DBG(IBAL_SUB_VERBS, "%s port %u class 0x%02x v%u: agent %d%s",
			port->ca->name, port->num, cls, version, id,
			requests ? "" : " (responses only)");
	return id;
}

/* Registers the agents of QP @p n (port->lock held). */
static void reg_qp_agents(verbs_port_t *port, unsigned n)
{
	size_t i;

	for (i = 0; i < sizeof(std_classes) / sizeof(std_classes[0]); i++) {
		uint8_t c = std_classes[i].mgmt_class;

		if (std_classes[i].qpn != n || port->dev.agent[c] >= 0)
			continue;
		port->dev.agent[c] = reg_class(port, c, std_classes[i].version, TRUE);
	}
}

/*
 * A QP's agents are never unregistered one by one: they stay until the
 * device closes (port_close), which releases them all after the receive
 * thread has stopped. A response can arrive at any time (a late answer to a
 * canceled query, say); umad2sim, ibsim's umad library, dereferences a NULL
 * queue for a MAD of a class whose agent was just unregistered and crashes
 * the process, and on a kernel such a MAD would only be answered or dropped
 * there instead of here. While the port stays open for another special QP,
 * MADs for a destroyed one are dropped by the receive thread. A MAD-only
 * CA's device is not even closed (umad_park()).
 */

/* The agent to send @p mad with, registering one if needed (port->lock held). */
static int send_agent(verbs_port_t *port, const uint8_t *mad, unsigned n)
{
	uint8_t cls = MAD_CLASS(mad);
	unsigned i;
	int id;

	if ((cls == 0x01 || cls == 0x81) != (n == 0))
		return -1; /* SMP classes only on QP0, GMP classes only on QP1 */
	if (cls >= 0x30 && cls <= 0x4F) {
		for (i = 0; i < port->dev.n_oui; i++)
			if (port->dev.oui_agent[i].mgmt_class == cls &&
			    !memcmp(port->dev.oui_agent[i].oui, mad + 37, 3))
				return port->dev.oui_agent[i].id;
		if (port->dev.n_oui == VERBS_OUI_AGENTS)
			return -1;
		id = umad_register_oui(port->dev.fd, cls, 0, (uint8_t *)mad + 37, NULL);
		if (id < 0)
			return -1;
		port->dev.oui_agent[port->dev.n_oui].mgmt_class = cls;
		memcpy(port->dev.oui_agent[port->dev.n_oui].oui, mad + 37, 3);
		port->dev.oui_agent[port->dev.n_oui++].id = id;
		return id;
	}
	if (port->dev.agent[cls] < 0)
		port->dev.agent[cls] = reg_class(port, cls, MAD_VER(mad), FALSE);
	return port->dev.agent[cls];
}

/* ---- TID table ---- */

static uint32_t tid_hi(const uint8_t *mad)
{
	return rd32(mad + 8);
}

static uint32_t tid_lo(const uint8_t *mad)
{
	return rd32(mad + 12);
}

void verbs_tid_sent(verbs_port_t *port, uint8_t *mad, uint16_t dlid)
{
	uint8_t cls = MAD_CLASS(mad);
	uint32_t hi = tid_hi(mad), lo = tid_lo(mad);
	verbs_tid_t *t, *victim = NULL;
	unsigned i;

	if (MAD_IS_RESP(mad)) {
		for (i = 0; i < VERBS_TID_SLOTS; i++) {
			t = &port->tid[i];
			if (t->stamp && t->learned && t->mgmt_class == cls && t->lo == lo &&
			    t->user_hi == hi && t->dlid == dlid) {
				wr32(mad + 8, t->wire_hi);
				return;
			}
		}
		return;
	}
	for (i = 0; i < VERBS_TID_SLOTS; i++) {
		t = &port->tid[i];
		if (t->stamp && t->mgmt_class == cls && t->lo == lo && t->user_hi == hi &&
		    t->dlid == dlid) {
			victim = t; /* a retry: same entry */
			break;
		}
		if (!victim || !t->stamp || (victim->stamp && t->stamp < victim->stamp))
			victim = t;
	}
	if (victim->stamp && !(victim->mgmt_class == cls && victim->lo == lo &&
			       victim->user_hi == hi && victim->dlid == dlid))
		memset(victim, 0, sizeof(*victim));
	victim->stamp = ++port->tid_clock;
	victim->mgmt_class = cls;
	victim->lo = lo;
	victim->user_hi = hi;
	victim->dlid = dlid;
}

void verbs_tid_received(verbs_port_t *port, uint8_t *mad, uint16_t slid)
{
	uint8_t cls = MAD_CLASS(mad);
	uint32_t lo = tid_lo(mad), hi = tid_hi(mad);
	verbs_tid_t *best = NULL;
	unsigned i;

	if (!MAD_IS_RESP(mad))
		return;
	for (i = 0; i < VERBS_TID_SLOTS; i++) {
		verbs_tid_t *t = &port->tid[i];
		int same, best_same;

		if (!t->stamp || t->mgmt_class != cls || t->lo != lo)
			continue;
		if (t->learned && t->wire_hi != hi && t->user_hi != hi)
			continue;
		same = t->dlid == slid;
		best_same = best && best->dlid == slid;
		if (!best || same > best_same || (same == best_same && t->stamp > best->stamp))
			best = t;
	}
	if (!best)
		return;
	if (!best->learned) {
		best->wire_hi = hi;
		best->learned = 1;
	}
	if (hi != best->user_hi) {
		IBAL_DBG(IBAL_SUB_VERBS, "TID restored class 0x%02x: wire 0x%08x%08x -> "
				"user 0x%08x%08x", cls, hi, lo, best->user_hi, lo);
		wr32(mad + 8, best->user_hi);
	}
}

/* ---- Receive thread ---- */

static void wc_flush(verbs_qp_t *qp, const verbs_rwqe_t *w, ib_wc_t *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = w->wr_id;
	wc->wc_type = IB_WC_RECV;
	wc->status = IB_WCS_WR_FLUSHED_ERR;
	(void)qp;
}

/* Flushes the receive queue into the CQ (qp->lock held). */
static void flush_rq(verbs_qp_t *qp)
{
	while (qp->rq_count) {
		ib_wc_t wc;

		wc_flush(qp, &qp->rq[qp->rq_head], &wc);
		qp->rq_head = prov_ring_at(qp->rq_head, 1, qp->rq_depth);
		qp->rq_count--;
		verbs_cq_add(qp->rcq, &wc);
	}
}

/* Copies @p len bytes at @p src to offset @p off of the WQE's SGEs. */
static void scatter(const verbs_rwqe_t *w, uint32_t off, const void *src, uint32_t len)
{
	const uint8_t *s = src;
	uint32_t i;

	for (i = 0; i < w->num_ds && len; i++) {
		uint32_t l = w->ds[i].length;

		if (off >= l) {
			off -= l;
			continue;
		}
		l -= off;
		if (l > len)
			l = len;
		memcpy((uint8_t *)(uintptr_t)w->ds[i].vaddr + off, s, l);
		s += l;
		len -= l;
		off = 0;
	}
}

/* Delivers one MAD to QP @p qp (port->lock held). */
static void deliver(verbs_port_t *port, verbs_qp_t *qp, const ib_mad_addr_t *addr,
		    const uint8_t *mad, uint32_t len)
{
	verbs_ca_t *ca = port->ca;
	const ib_port_attr_t *pa;
	verbs_rwqe_t w;
	ib_wc_t wc;
	uint32_t i, room = 0;
	boolean_t ok = TRUE;

	pthread_mutex_lock(&qp->lock);
	if ((qp->attr.state != IB_QPS_RTR && qp->attr.state != IB_QPS_RTS) || !qp->rq_count) {
		pthread_mutex_unlock(&qp->lock);
		IBAL_DBG(IBAL_SUB_VERBS, "QP%u: MAD dropped (%s)", qp->n,
				qp->rq_count ? "state" : "no receive posted");
		return;
	}
	w = qp->rq[qp->rq_head];
	qp->rq_head = prov_ring_at(qp->rq_head, 1, qp->rq_depth);
	qp->rq_count--;
	pthread_mutex_unlock(&qp->lock);

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = w.wr_id;
	wc.wc_type = IB_WC_RECV;
	for (i = 0; i < w.num_ds; i++) {
		room += w.ds[i].length;
		if (!verbs_mr_check(ca, qp->pd, w.ds[i].lkey, w.ds[i].vaddr, w.ds[i].length))
			ok = FALSE;
	}
	if (!ok) {
		wc.status = IB_WCS_LOCAL_PROTECTION_ERR;
	} else if (room < VERBS_GRH_SIZE + len) {
		wc.status = IB_WCS_LOCAL_LEN_ERR;
	} else {
		if (addr->grh_present) {
			ib_grh_t grh;

			memset(&grh, 0, sizeof(grh));
			grh.ver_class_flow = ib_grh_set_ver_class_flow(6, addr->traffic_class,
								       addr->flow_label);
			grh.resv1 = cl_hton16((uint16_t)len);
			grh.resv2 = 0x1B;
			grh.hop_limit = addr->hop_limit;
			memcpy(&grh.src_gid, addr->gid, sizeof(grh.src_gid));
			pthread_mutex_lock(&ca->lock);
			pa = verbs_port_attr(ca, port->num);
			/* The kernel gives the index of the local GID the MAD came to
			 * (umad2sim leaves 0). */
			if (pa && pa->num_gids)
				grh.dest_gid = pa->p_gid_table[addr->gid_index < pa->num_gids
									 ? addr->gid_index : 0];
			pthread_mutex_unlock(&ca->lock);
			scatter(&w, 0, &grh, sizeof(grh));
			wc.recv.ud.recv_opt |= IB_RECV_OPT_GRH_VALID;
		}
		scatter(&w, VERBS_GRH_SIZE, mad, len);
		if (len < VERBS_MAD_SIZE && room > VERBS_GRH_SIZE + len) {
			/* Zeros up to 256 bytes, as room allows; not counted. */
			static const uint8_t zeros[VERBS_MAD_SIZE];
			uint32_t pad = VERBS_MAD_SIZE - len;

			if (pad > room - VERBS_GRH_SIZE - len)
				pad = room - VERBS_GRH_SIZE - len;
			scatter(&w, VERBS_GRH_SIZE + len, zeros, pad);
		}
		wc.status = IB_WCS_SUCCESS;
		wc.length = VERBS_GRH_SIZE + len;
		wc.recv.ud.remote_qp = addr->qpn;
		wc.recv.ud.remote_lid = addr->lid;
		wc.recv.ud.remote_sl = addr->sl;
		wc.recv.ud.path_bits = addr->path_bits;
		pthread_mutex_lock(&ca->lock);
		pa = verbs_port_attr(ca, port->num);
		wc.recv.ud.pkey_index = (pa && addr->pkey_index < pa->num_pkeys) ?
						addr->pkey_index : 0;
		pthread_mutex_unlock(&ca->lock);
	}
	verbs_cq_add(qp->rcq, &wc);
}

static void backoff(void)
{
	struct timespec ts = { 0, 10 * 1000000L };

	nanosleep(&ts, NULL);
}

void verbs_rx_umad(verbs_port_t *port, uint8_t *umad, int len)
{
	uint8_t *mad;
	ib_mad_addr_t *addr;
	unsigned n;

	if (umad_status(umad)) {
		IBAL_DBG(IBAL_SUB_VERBS, "dropped umad with status %d", umad_status(umad));
		return;
	}
	if (len < 24 || len > VERBS_MAD_SIZE)
		return;
	mad = umad_get_mad(umad);
	addr = umad_get_mad_addr(umad);
	/* SMP classes travel on QP0, every other class on QP1. */
	n = (MAD_CLASS(mad) == 0x01 || MAD_CLASS(mad) == 0x81) ? 0 : 1;
	pthread_mutex_lock(&port->lock);
	verbs_tid_received(port, mad, cl_ntoh16(addr->lid));
	if (port->spl[n])
		deliver(port, port->spl[n], addr, mad, (uint32_t)len);
	else
		IBAL_DBG(IBAL_SUB_VERBS, "MAD for QP%u dropped (no QP)", n);
	pthread_mutex_unlock(&port->lock);
}

/* Waits (at most VERBS_RECV_POLL_MS) until the umad device has something
 * to read or the port's close wakes the thread; TRUE for the device. */
static boolean_t rx_wait(verbs_port_t *port)
{
	struct pollfd pfd[2];
	nfds_t n = 1;

	pfd[0].fd = umad_get_fd(port->dev.fd);
	pfd[0].events = POLLIN;
	pfd[0].revents = 0;
	if (port->rx_wake >= 0) {
		pfd[1].fd = port->rx_wake;
		pfd[1].events = POLLIN;
		pfd[1].revents = 0;
		n = 2;
	}
	return poll(pfd, n, VERBS_RECV_POLL_MS) > 0 && pfd[0].revents;
}

static void *rx_main(void *arg)
{
	verbs_port_t *port = arg;
	uint8_t *buf = port->rx_buf;

	while (!__atomic_load_n(&port->rx_stop, __ATOMIC_ACQUIRE)) {
		int len = VERBS_MAD_SIZE, id;

		if (!rx_wait(port))
			continue;
		memset(buf, 0, umad_size());
		id = umad_recv(port->dev.fd, buf, &len, 0);
		if (id < 0) {
			if (id != -ETIMEDOUT && id != -EAGAIN && id != -EWOULDBLOCK)
				backoff();
			continue;
		}
		verbs_rx_umad(port, buf, len);
	}
	return NULL;
}

/*
 * A MAD-only CA's umad device (ibsim's, through umad2sim) stays open once
 * opened, until the process exits. umad2sim crashes the process on a MAD
 * that arrives for a device already closed (it looks up a queue it freed),
 * and ibsim sends MADs after any close: it returns a request it cannot
 * deliver (to an SM that is gone, say) to its sender at once, status
 * ETIMEDOUT, so a request sent just before the close could come back after
 * it, as it did in a CI run. A closing port parks its device here, with
 * its agents and its receive thread stopped; the next open of that CA port
 * in the process takes it back. What came meanwhile is read then (and
 * dropped, as a MAD for a TID nobody waits for is). Devices of CAs with a
 * libibverbs device close, as the kernel drops what comes after.
 */
typedef struct parked_umad {
	struct parked_umad *next;
	char ca_name[UMAD_CA_NAME_LEN];
	uint8_t num;
	verbs_umad_t dev;
} parked_umad_t;

static pthread_mutex_t parked_lock = PTHREAD_MUTEX_INITIALIZER;
static parked_umad_t *parked; /* from libc: kept for the process's life */

/* Parks @p port's device; FALSE (the caller closes it) when the CA has a
 * libibverbs device or there is no memory. */
static boolean_t umad_park(verbs_port_t *port)
{
	parked_umad_t *p;

	if (port->ca->ctx)
		return FALSE;
	p = malloc(sizeof(*p));
	if (!p)
		return FALSE;
	snprintf(p->ca_name, sizeof(p->ca_name), "%s", port->ca->name);
	p->num = port->num;
	p->dev = port->dev;
	pthread_mutex_lock(&parked_lock);
	p->next = parked;
	parked = p;
	pthread_mutex_unlock(&parked_lock);
	IBAL_DBG(IBAL_SUB_VERBS, "%s port %u: umad device %d kept open (MAD-only CA)", port->ca->name,
		 port->num, port->dev.fd);
	return TRUE;
}

/* Takes back a parked device of @p port's CA port, with its agents: TRUE if there was one. */
static boolean_t umad_unpark(verbs_port_t *port)
{
	parked_umad_t **pp, *p = NULL;

	pthread_mutex_lock(&parked_lock);
	for (pp = &parked; *pp; pp = &(*pp)->next)
		if ((*pp)->num == port->num && !strcmp((*pp)->ca_name, port->ca->name)) {
			p = *pp;
			*pp = p->next;
			break;
		}
	pthread_mutex_unlock(&parked_lock);
	if (!p)
		return FALSE;
	port->dev = p->dev;
	free(p);
	return TRUE;
}

/* Parks or closes the port's device; the port has no device and no agents then. */
static void dev_release(verbs_port_t *port)
{
	if (!umad_park(port))
		umad_close_port(port->dev.fd); /* releases every agent of the port */
	dev_clear(&port->dev);
}

static void rx_wake_close(verbs_port_t *port)
{
	if (port->rx_wake >= 0)
		close(port->rx_wake);
	port->rx_wake = -1;
}

/* Opens the umad device and starts the receive thread (port->oc_lock and port->lock held). */
static ib_api_status_t port_open(verbs_port_t *port)
{
	port->rx_buf = calloc(1, VERBS_UMAD_BUF);
	if (!port->rx_buf)
		return IB_INSUFFICIENT_MEMORY;
	if (!umad_unpark(port))
		port->dev.fd = umad_open_port(port->ca->name, port->num);
	if (port->dev.fd < 0) {
		free(port->rx_buf);
		port->rx_buf = NULL;
		port->dev.fd = -1;
		return IB_ERROR;
	}
	port->rx_stop = 0;
	/* Without it the close waits out the thread's poll (VERBS_RECV_POLL_MS). */
	port->rx_wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (verbs_issm) {
		/* umad2sim crashes on a MAD of a class no agent registered (it
		 * looks up a NULL queue), and an SM client gets requests of every
		 * class: register both QPs' classes now, before the issm open
		 * (issm_claim) makes the SM sweep us (agents stay until the port
		 * closes). */
		reg_qp_agents(port, 0);
		reg_qp_agents(port, 1);
	}
	if (pthread_create(&port->rx_thread, NULL, rx_main, port)) {
		dev_release(port);
		rx_wake_close(port);
		free(port->rx_buf);
		port->rx_buf = NULL;
		return IB_INSUFFICIENT_RESOURCES;
	}
	return IB_SUCCESS;
}

/*
 * IBAL_VERBS_ISSM=1: the port claims IsSM (opens its issm device) once its
 * QP0 can take what the claim draws, an SM's SubnGet(SMInfo): in RTR or RTS
 * with a receive posted. Claimed at the port's open (the first special QP),
 * the SM asked within milliseconds, before QP0 had a receive, the request
 * was dropped, and OpenSM's sweep waited for it for a minute. The claim
 * holds until the port closes. Called without qp->lock (port->lock is taken
 * before it).
 */
static void issm_claim(verbs_port_t *port)
{
	char path[256];
	int err = 0;

	pthread_mutex_lock(&port->lock);
	if (port->dev.fd >= 0 && !port->issm_tried) {
		port->issm_tried = 1;
		/* plain open(): umad2sim intercepts it, not openat() */
		if (umad_get_issm_path(port->ca->name, port->num, path, sizeof(path)) < 0) {
			snprintf(path, sizeof(path), "(no issm device)");
			err = ENODEV;
		} else if ((port->issm_fd = open(path, O_RDWR)) < 0) {
			err = errno;
		}
		if (port->issm_fd >= 0)
			IBAL_DBG(IBAL_SUB_VERBS, "%s port %u claims IsSM: %s, fd %d", port->ca->name,
				 port->num, path, port->issm_fd);
		else
			IBAL_WARN(IBAL_SUB_VERBS, "%s port %u: IBAL_VERBS_ISSM=1 but no IsSM claim (%s: %s)",
				  port->ca->name, port->num, path, strerror(err));
	}
	pthread_mutex_unlock(&port->lock);
}

/* Whether @p qp is a QP0 that can receive an SMP (qp->lock held). */
static int qp0_ready(const verbs_qp_t *qp)
{
	return qp->n == 0 && qp->rq_count &&
	       (qp->attr.state == IB_QPS_RTR || qp->attr.state == IB_QPS_RTS);
}

/* Stops the receive thread and closes the device (port->oc_lock held, port->lock not). */
static void port_close(verbs_port_t *port)
{
	uint64_t one = 1;

	__atomic_store_n(&port->rx_stop, 1, __ATOMIC_RELEASE);
	if (port->rx_wake >= 0 && write(port->rx_wake, &one, sizeof(one)) < 0)
		IBAL_DBG(IBAL_SUB_VERBS, "%s port %u: waking the receive thread: %s", port->ca->name,
			 port->num, strerror(errno));
	pthread_join(port->rx_thread, NULL);
	rx_wake_close(port);
	dev_release(port);
	if (port->issm_fd >= 0)
		close(port->issm_fd);
	port->issm_fd = -1;
	port->issm_tried = 0;
	free(port->rx_buf);
	port->rx_buf = NULL;
	memset(port->tid, 0, sizeof(port->tid));
}

/* ---- Special QPs ---- */

static void qp_free(verbs_qp_t *qp)
{
	pthread_mutex_destroy(&qp->lock);
	pthread_mutex_destroy(&qp->tx_lock);
	free(qp->rq);
	free(qp->tx_buf);
	free(qp);
}

/* What a special QP asks of the CA: QP0 or QP1 (no aliases), a port of
 * it, both CQs, and queue sizes within the provider's limits. */
static ib_api_status_t spl_qp_check(const verbs_ca_t *ca, uint8_t port_num,
				    const ib_qp_create_t *c, const void *send_cq,
				    const void *recv_cq)
{
	if (c->qp_type == IB_QPT_QP0_ALIAS || c->qp_type == IB_QPT_QP1_ALIAS)
		return IB_UNSUPPORTED;
	if (c->qp_type != IB_QPT_QP0 && c->qp_type != IB_QPT_QP1)
		return IB_INVALID_SETTING;
	if (port_num < 1 || port_num > ca->num_ports)
		return IB_INVALID_PORT;
	if (!send_cq || !recv_cq)
		return IB_INVALID_CQ_HANDLE;
	if (!c->sq_depth || c->sq_depth > VERBS_MAX_WRS || !c->rq_depth ||
	    c->rq_depth > VERBS_MAX_WRS)
		return IB_INVALID_MAX_WRS;
	if (c->sq_sge > VERBS_MAX_SGES || c->rq_sge > VERBS_MAX_SGES || !c->rq_sge)
		return IB_INVALID_MAX_SGE;
	return IB_SUCCESS;
}

ib_api_status_t verbs_create_spl_qp(void *h_pd, uint8_t port_num, ib_qp_create_t *c,
				    void *send_cq, void *recv_cq, void *al_qp, void **pp_qp)
{
	verbs_pd_t *pd = h_pd;
	verbs_ca_t *ca = pd->ca;
	verbs_port_t *port;
	verbs_qp_t *qp;
	ib_api_status_t st = IB_SUCCESS;
	unsigned n;

	if (!c || !pp_qp)
		return IB_INVALID_PARAMETER;
	st = spl_qp_check(ca, port_num, c, send_cq, recv_cq);
	if (st != IB_SUCCESS)
		return st;
	n = c->qp_type == IB_QPT_QP0 ? 0 : 1;
	port = &ca->port[port_num - 1];
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return IB_INSUFFICIENT_MEMORY;
	pthread_mutex_init(&qp->lock, NULL);
	pthread_mutex_init(&qp->tx_lock, NULL);
	qp->pd = pd;
	qp->port = port;
	qp->al_qp = al_qp;
	qp->type = c->qp_type;
	qp->n = n;
	qp->scq = send_cq;
	qp->rcq = recv_cq;
	qp->sq_signaled = c->sq_signaled;
	qp->sq_depth = c->sq_depth;
	qp->sq_sge = c->sq_sge;
	qp->rq_depth = c->rq_depth;
	qp->rq_sge = c->rq_sge;
	c->sq_max_inline = 0;
	prov_qp_attr_init(&qp->attr, qp->type, port_num);
	qp->rq = calloc(c->rq_depth, sizeof(*qp->rq));
	qp->tx_buf = calloc(1, VERBS_UMAD_BUF);
	if (!qp->rq || !qp->tx_buf) {
		qp_free(qp);
		return IB_INSUFFICIENT_MEMORY;
	}
	pthread_mutex_lock(&port->oc_lock);
	pthread_mutex_lock(&port->lock);
	if (port->spl[n])
		st = IB_RESOURCE_BUSY;
	else if (port->dev.fd < 0)
		st = port_open(port);
	if (st == IB_SUCCESS) {
		reg_qp_agents(port, n);
		if (n == 0 && port->dev.agent[0x01] < 0 && port->dev.agent[0x81] < 0)
			st = IB_UNSUPPORTED; /* the device gives no QP0 */
	}
	if (st == IB_SUCCESS) {
		port->spl[n] = qp;
		port->n_users++;
	} else if (port->dev.fd >= 0 && !port->n_users) {
		pthread_mutex_unlock(&port->lock);
		port_close(port);
		pthread_mutex_unlock(&port->oc_lock);
		qp_free(qp);
		return st;
	}
	pthread_mutex_unlock(&port->lock);
	pthread_mutex_unlock(&port->oc_lock);
	if (st != IB_SUCCESS) {
		qp_free(qp);
		return st;
	}
	*pp_qp = qp;
	return IB_SUCCESS;
}

ib_api_status_t verbs_spl_query_qp(verbs_qp_t *qp, ib_qp_attr_t *a)
{

	if (!a)
		return IB_INVALID_PARAMETER;
	memset(a, 0, sizeof(*a));
	pthread_mutex_lock(&qp->lock);
	prov_qp_attr_to_ib(&qp->attr, a);
	pthread_mutex_unlock(&qp->lock);
	a->qp_type = qp->type;
	a->sq_depth = qp->sq_depth;
	a->rq_depth = qp->rq_depth;
	a->sq_sge = qp->sq_sge;
	a->rq_sge = qp->rq_sge;
	a->sq_signaled = qp->sq_signaled;
	a->num = cl_hton32(qp->n);
	return IB_SUCCESS;
}

ib_api_status_t verbs_spl_modify_qp(verbs_qp_t *qp, const ib_qp_mod_t *p_mod)
{
	verbs_ca_t *ca = qp->pd->ca;
	ib_qp_state_t old;
	ib_api_status_t st;
	ib_async_event_t ev = (ib_async_event_t)0;
	int claim;

	if (!p_mod)
		return IB_INVALID_PARAMETER;
	pthread_mutex_lock(&qp->lock);
	old = qp->attr.state;
	pthread_mutex_lock(&ca->lock);
	st = prov_qp_modify(qp->type, &qp->attr, p_mod, ca->attr, NULL);
	pthread_mutex_unlock(&ca->lock);
	if (st == IB_SUCCESS) {
		if (qp->attr.state == IB_QPS_ERROR && old != IB_QPS_ERROR)
			flush_rq(qp);
		else if (qp->attr.state == IB_QPS_RESET)
			qp->rq_head = qp->rq_count = 0;
		else if (qp->attr.state == IB_QPS_SQD_DRAINING)
			/* sends complete at once: the queue is drained already */
			prov_qp_event(qp->type, &qp->attr, PROV_QP_EV_SQ_DRAINED, &ev);
	}
	claim = verbs_issm && qp0_ready(qp);
	pthread_mutex_unlock(&qp->lock);
	if (claim)
		issm_claim(qp->port);
	if (ev && verbs_upcalls.async_event)
		verbs_upcalls.async_event(qp->al_qp, ev, 0);
	return st;
}

void verbs_spl_destroy_qp(verbs_qp_t *qp)
{
	verbs_port_t *port = qp->port;
	int last;

	pthread_mutex_lock(&port->oc_lock);
	pthread_mutex_lock(&port->lock);
	port->spl[qp->n] = NULL;
	last = --port->n_users == 0;
	pthread_mutex_unlock(&port->lock);
	if (last)
		port_close(port); /* joins the receive thread: port->lock not held */
	pthread_mutex_unlock(&port->oc_lock);
	qp_free(qp);
}

ib_api_status_t verbs_spl_post_recv(verbs_qp_t *qp, ib_recv_wr_t *p_wr,
				    ib_recv_wr_t **pp_failure)
{
	ib_api_status_t st = IB_SUCCESS;
	int claim;

	if (!p_wr)
		return IB_INVALID_PARAMETER;
	pthread_mutex_lock(&qp->lock);
	if (qp->attr.state == IB_QPS_RESET)
		st = IB_INVALID_QP_STATE;
	for (; st == IB_SUCCESS && p_wr; p_wr = p_wr->p_next) {
		verbs_rwqe_t *w;

		if (p_wr->num_ds > qp->rq_sge || (p_wr->num_ds && !p_wr->ds_array)) {
			st = IB_INVALID_MAX_SGE;
			break;
		}
		if (qp->rq_count == qp->rq_depth) {
			st = IB_INSUFFICIENT_RESOURCES;
			break;
		}
		w = &qp->rq[prov_ring_at(qp->rq_head, qp->rq_count, qp->rq_depth)];
		w->wr_id = p_wr->wr_id;
		w->num_ds = p_wr->num_ds;
		if (p_wr->num_ds)
			memcpy(w->ds, p_wr->ds_array, p_wr->num_ds * sizeof(ib_local_ds_t));
		qp->rq_count++;
	}
	if (qp->attr.state == IB_QPS_ERROR)
		flush_rq(qp);
	claim = verbs_issm && qp0_ready(qp);
	pthread_mutex_unlock(&qp->lock);
	if (claim)
		issm_claim(qp->port);
	if (st != IB_SUCCESS && pp_failure)
		*pp_failure = p_wr;
	return st;
}

/* Gathers the WR's data into @p mad (VERBS_MAD_SIZE bytes, zero padded). */
static ib_wc_status_t gather(verbs_qp_t *qp, const ib_send_wr_t *wr, uint8_t *mad,
			     uint32_t *p_len)
{
	uint32_t i, off = 0;

	memset(mad, 0, VERBS_MAD_SIZE);
	for (i = 0; i < wr->num_ds; i++) {
		const ib_local_ds_t *ds = &wr->ds_array[i];

		if (ds->length > VERBS_MAD_SIZE - off)
			return IB_WCS_LOCAL_LEN_ERR;
		if (!(wr->send_opt & IB_SEND_OPT_INLINE) &&
		    !verbs_mr_check(qp->pd->ca, qp->pd, ds->lkey, ds->vaddr, ds->length))
			return IB_WCS_LOCAL_PROTECTION_ERR;
		memcpy(mad + off, (const void *)(uintptr_t)ds->vaddr, ds->length);
		off += ds->length;
	}
	*p_len = off;
	return off < 24 ? IB_WCS_LOCAL_LEN_ERR : IB_WCS_SUCCESS;
}

/*
 * How long the kernel keeps a request for its response: as long as the
 * access layer's dispatcher waits before it sends it again
 * (AL_PROV_MAD_WAIT in the WR), else IBAL_VERBS_MAD_TIMEOUT_MS. Kept longer,
 * the resend (same TID) would be refused as a duplicate of it.
 */
static int request_timeout(const ib_send_wr_t *wr)
{
	uint32_t ms = al_prov_mad_wait_ms(wr->dgrm.ud.rsvd);

	return (int)(ms && ms < verbs_mad_timeout_ms ? ms : verbs_mad_timeout_ms);
}

/*
 * A MAD the kernel refused as a duplicate (EINVAL), sent with no timeout or
 * with its sender's wait (not the default 30 s): another non-response MAD
 * of this umad file with the same class and wire TID is still on the
 * kernel's list, which a MAD leaves at its send completion and a request
 * at its response or timeout.
 * - Between two endpoints of this process: a CM reply (the DREP to a DREQ,
 *   the REP to a REQ) carries the TID of the request it answers, which the
 *   kernel made from this file's agent, and on rxe the request is received
 *   before its own send completion is reaped.
 * - A request sent again: the kernel keeps the first copy until its
 *   timeout, which runs from its send completion, a little after the
 *   access layer's.
 * Either way the twin soon leaves, so the send is tried again, yielding and
 * then sleeping between tries, for at most VERBS_TWIN_WAIT_MS. Returns
 * umad_send's last result (errno set).
 */
static int send_after_twin(verbs_port_t *port, int agent, void *umad, const uint8_t *mad, int timeout)
{
	struct timespec nap = { 0, 20000 };
	uint64_t t0 = cl_get_time_stamp(), us;
	unsigned tries = 0;
	int rc, err;

	do {
		if (tries < VERBS_TWIN_YIELDS) {
			sched_yield();
		} else {
			nanosleep(&nap, NULL);
			if (nap.tv_nsec < 1000000L)
				nap.tv_nsec *= 2;
		}
		tries++;
		rc = umad_send(port->dev.fd, agent, umad, VERBS_MAD_SIZE, timeout, 0);
		err = rc < 0 ? errno : 0;
		us = cl_get_time_stamp() - t0;
	} while (err == EINVAL && us < VERBS_TWIN_WAIT_MS * 1000u);
	if (rc < 0) {
		IBAL_WARN(IBAL_SUB_VERBS, "umad_send class 0x%02x method 0x%02x TID 0x%08x%08x: refused "
			  "for %llu us (%u tries), errno %d", MAD_CLASS(mad), MAD_METHOD(mad), tid_hi(mad),
			  tid_lo(mad), (unsigned long long)us, tries, -err);
		errno = err;
	} else
		IBAL_DBG(IBAL_SUB_VERBS, "umad_send class 0x%02x method 0x%02x TID 0x%08x%08x: sent after "
			 "its twin's completion, %llu us (%u tries)", MAD_CLASS(mad), MAD_METHOD(mad),
			 tid_hi(mad), tid_lo(mad), (unsigned long long)us, tries);
	return rc;
}

/* Sends one WR (qp->tx_lock held); returns the completion status. */
static ib_wc_status_t send_one(verbs_qp_t *qp, const ib_send_wr_t *wr, const ib_av_attr_t *av,
			       uint32_t *p_len)
{
	verbs_port_t *port = qp->port;
	uint8_t *mad = umad_get_mad(qp->tx_buf);
	ib_mad_addr_t *addr = umad_get_mad_addr(qp->tx_buf);
	ib_wc_status_t ws;
	int agent, timeout, rc;

	ws = gather(qp, wr, mad, p_len);
	if (ws != IB_WCS_SUCCESS)
		return ws;
	memset(qp->tx_buf, 0, umad_size());
	umad_set_addr_net(qp->tx_buf, av->dlid, qp->n ? wr->dgrm.ud.remote_qp : 0, av->sl,
			  qp->n ? wr->dgrm.ud.remote_qkey : 0);
	umad_set_pkey(qp->tx_buf, qp->n ? wr->dgrm.ud.pkey_index : 0);
	addr->path_bits = av->path_bits;
	if (av->grh_valid) {
		uint8_t ver, tclass;
		net32_t flow;

		ib_grh_get_ver_class_flow(av->grh.ver_class_flow, &ver, &tclass, &flow);
		addr->grh_present = 1;
		/* The AV's source GID in the port's table on a libibverbs CA
		 * (RoCE: an IPv4-mapped GID, say); libibumad alone sees GID 0 only. */
		addr->gid_index = port->ca->ctx ? verbs_sgid_index(port->ca, av) : 0;
		addr->hop_limit = av->grh.hop_limit;
		addr->traffic_class = tclass;
		memcpy(addr->gid, &av->grh.dest_gid, 16);
		addr->flow_label = flow;
	}
	pthread_mutex_lock(&port->lock);
	agent = port->dev.fd >= 0 ? send_agent(port, mad, qp->n) : -1;
	if (agent >= 0)
		verbs_tid_sent(port, mad, cl_ntoh16(av->dlid));
	pthread_mutex_unlock(&port->lock);
	if (agent < 0)
		return IB_WCS_LOCAL_OP_ERR;
	/* Only a request waits in the kernel for its response. A Send (the CM's
	 * messages) expects none; kept outstanding, it would also make the
	 * kernel refuse another Send with the same TID from this file as a
	 * duplicate (EINVAL), as a CEP's answer to its own peer in this
	 * process is. Until its send completion it is still outstanding:
	 * send_after_twin() waits that out. A request is kept as long as its
	 * sender waits for the response (request_timeout()), and a resend,
	 * refused until the kernel let the first go, is sent then. */
	timeout = MAD_IS_RESP(mad) || MAD_METHOD(mad) == 0x03 ? 0 : request_timeout(wr);
	rc = umad_send(port->dev.fd, agent, qp->tx_buf, VERBS_MAD_SIZE, timeout, 0);
	if (rc < 0 && errno == EINVAL && (unsigned)timeout < verbs_mad_timeout_ms)
		rc = send_after_twin(port, agent, qp->tx_buf, mad, timeout);
	if (rc < 0) {
		IBAL_DBG(IBAL_SUB_VERBS, "umad_send class 0x%02x agent %d lid %u qpn %u grh %d gid_index %u"
				" hop %u: errno %d",
				MAD_CLASS(mad), agent, cl_ntoh16(addr->lid), cl_ntoh32(addr->qpn),
				addr->grh_present, addr->gid_index, addr->hop_limit, -errno);
		return IB_WCS_LOCAL_OP_ERR;
	}
	return IB_WCS_SUCCESS;
}

ib_api_status_t verbs_spl_post_send(verbs_qp_t *qp, ib_send_wr_t *p_wr,
				    ib_send_wr_t **pp_failure)
{
	ib_api_status_t st = IB_SUCCESS;

	if (!p_wr)
		return IB_INVALID_PARAMETER;
	pthread_mutex_lock(&qp->tx_lock);
	for (; p_wr; p_wr = p_wr->p_next) {
		ib_qp_state_t state;
		verbs_av_t *av;
		ib_av_attr_t av_attr;
		ib_wc_t wc;
		uint32_t len = 0;

		pthread_mutex_lock(&qp->lock);
		state = qp->attr.state;
		pthread_mutex_unlock(&qp->lock);
		if (state != IB_QPS_RTS) {
			st = IB_INVALID_QP_STATE;
			break;
		}
		if (p_wr->wr_type != WR_SEND) {
			st = IB_INVALID_WR_TYPE;
			break;
		}
		if (p_wr->num_ds > qp->sq_sge || (p_wr->num_ds && !p_wr->ds_array)) {
			st = IB_INVALID_MAX_SGE;
			break;
		}
		av = al_prov_av(p_wr->dgrm.ud.h_av);
		if (!av) {
			st = IB_INVALID_AV_HANDLE;
			break;
		}
		av_attr = av->attr;
		al_prov_put(p_wr->dgrm.ud.h_av);
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = p_wr->wr_id;
		wc.wc_type = IB_WC_SEND;
		wc.status = send_one(qp, p_wr, &av_attr, &len);
		wc.length = len;
		if (wc.status != IB_WCS_SUCCESS || qp->sq_signaled ||
		    (p_wr->send_opt & IB_SEND_OPT_SIGNALED))
			verbs_cq_add(qp->scq, &wc);
	}
	pthread_mutex_unlock(&qp->tx_lock);
	if (st != IB_SUCCESS && pp_failure)
		*pp_failure = p_wr;
	return st;
}

#else /* !HAVE_VERBS_PROV: nothing to build (verbs_prov.c lists no CA) */
typedef int verbs_mad_unused_t;
#endif /* HAVE_VERBS_PROV */
