/*
 * ibal soft provider: the links of the soft fabric: packets into the receiving port's
 * shared-memory ring, a doorbell on its socket only when it sleeps.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A sending process maps each destination's ring once (soft_peer_t, per
 * fabric directory, by LID) and checks on every packet that the ring still
 * carries the generation the registry gave its LID: a port that closed, died
 * (its record reclaimed: soft_fabric_registry.c retires the ring) or moved to
 * another LID changes it, and the next packet looks the LID up again under
 * the registry lock. A port without a ring is sent datagrams on its socket,
 * as before rings existed; that answer is kept for RINGLESS_TTL_NS.
 *
 * Senders read the table without a lock and take no reference (no atomic
 * read-modify-write per packet): an entry, once published, stays valid
 * until the fabric closes. One that is replaced (its holder closed, died or
 * moved) is kept on a list, its ring turned into private zero pages as soon
 * as no other view of the process maps that file (soft_ring_hollow), so
 * that a sender still holding it writes where nobody reads instead of into
 * freed memory. A replaced peer thus costs its small entry and the 1 MiB of
 * address space (no memory) until the fabric closes.
 * Nothing waits: a full ring or socket drops the packet (counted drop_busy),
 * and a full ring makes the sender check, at most every LIVENESS_NS, whether
 * its owner is alive.
 *
 * The peer table and its entries are a cache of the fabric, shared by every
 * CA of the process on it and kept until the fabric closes, not by any
 * access-layer instance: they come from libc, out of complib's accounting
 * (a test's leak check of an instance it opened and closed must not see
 * them). A failed allocation only costs the packet (counted).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include "soft_fabric_int.h"
#include "soft_wire.h"
#include "ibal_log.h"

#define RINGLESS_TTL_NS 100000000ull /* 100 ms */
#define LIVENESS_NS 100000000ull     /* 100 ms */

/* Frees an entry no other thread has seen (never published, or the fabric closing). */
static void peer_free(soft_peer_t *p)
{
	soft_ring_unmap(&p->ring);
	free(p);
}

/* Is the entry still the LID's holder? (One load of the ring's generation
 * line, which only opens, closes and moves write; the clock is read only for
 * a peer without a ring.) */
static inline boolean_t peer_current(const soft_peer_t *p)
{
	if (p->ring.hdr)
		return soft_ring_gen(&p->ring) == p->gen;
	return soft_mono_ns() < __atomic_load_n(&p->expires_ns, __ATOMIC_RELAXED);
}

/* Looks lid up in the registry and maps its holder's ring; NULL if nobody holds it. */
static soft_peer_t *peer_lookup(soft_fabric_t *fab, uint16_t lid, uint64_t now)
{
	char path[PATH_MAX];
	ib_net64_t guid = 0;
	soft_peer_t *p;
	uint64_t gen = 0;
	int32_t pid = 0;

	if (soft_reg_lock(fab) != IB_SUCCESS)
		return NULL;
	if (fab->recs[lid].state == SOFT_REC_ACTIVE) {
		guid = fab->recs[lid].port_guid;
		gen = fab->recs[lid].gen;
		pid = fab->recs[lid].owner_pid;
	}
	soft_reg_unlock(fab);
	if (!guid)
		return NULL;
	p = (soft_peer_t *)calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->lid = lid;
	p->gen = gen;
	p->pid = pid > 0 ? pid : 0;
	soft_reg_ring_path(fab, guid, path, sizeof(path));
	if (soft_ring_attach(path, &p->ring) != 0 || soft_ring_gen(&p->ring) != gen) {
		soft_ring_unmap(&p->ring);
		p->expires_ns = now + RINGLESS_TTL_NS;
	}
	return p;
}

/*
 * peer_lock held: takes a replaced entry out of use. Other threads may still
 * hold its address (they read the table without a lock or a reference), so
 * the entry is kept until the fabric closes; its ring is hollowed as soon as
 * no other view of the process maps that file (soft_ring_hollow: the file's
 * pages are released, the addresses stay valid). Earlier retirees whose ring
 * could not be hollowed then are tried again, and whenever a port of the
 * process closes (soft_link_sweep: its own view of its ring was the other).
 */
static void hollow_retired(soft_fabric_t *fab)
{
	soft_peer_t *r;

	for (r = fab->retired; r; r = r->next_retired)
		if (!r->hollow)
			r->hollow = soft_ring_hollow(&r->ring) != 0;
}

static void peer_retire(soft_fabric_t *fab, soft_peer_t *p)
{
	p->next_retired = fab->retired;
	fab->retired = p;
	hollow_retired(fab);
}

void soft_link_sweep(soft_fabric_t *fab)
{
	pthread_mutex_lock(&fab->peer_lock);
	hollow_retired(fab);
	pthread_mutex_unlock(&fab->peer_lock);
}

/*
 * The entry at lid was missing or stale: looks the LID up again and
 * publishes the answer (NULL: nobody holds lid). Another thread may have done
 * the same meanwhile: its current entry wins and ours, never seen by anyone,
 * is freed.
 */
static soft_peer_t *peer_refresh(soft_fabric_t *fab, uint16_t lid)
{
	soft_peer_t **tab, *cur, *fresh;

	pthread_mutex_lock(&fab->peer_lock);
	tab = fab->peers;
	if (!tab) {
		tab = (soft_peer_t **)calloc(SOFT_FABRIC_LID_UNICAST_MAX + 1, sizeof(*tab));
		__atomic_store_n(&fab->peers, tab, __ATOMIC_RELEASE);
	}
	cur = tab ? tab[lid] : NULL;
	pthread_mutex_unlock(&fab->peer_lock);
	if (cur && peer_current(cur))
		return cur;

	fresh = peer_lookup(fab, lid, soft_mono_ns());
	pthread_mutex_lock(&fab->peer_lock);
	cur = tab ? tab[lid] : NULL;
	if (cur && peer_current(cur)) {
		/* Published by another thread meanwhile. */
		pthread_mutex_unlock(&fab->peer_lock);
		if (fresh)
			peer_free(fresh);
		return cur;
	}
	if (cur && fresh && !cur->ring.hdr && !fresh->ring.hdr && cur->gen == fresh->gen) {
		/* Still the same holder without a ring: the entry lives on. */
		__atomic_store_n(&cur->expires_ns, fresh->expires_ns, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&fab->peer_lock);
		peer_free(fresh);
		return cur;
	}
	if (tab) {
		__atomic_store_n(&tab[lid], fresh, __ATOMIC_RELEASE);
		if (cur)
			peer_retire(fab, cur);
	}
	pthread_mutex_unlock(&fab->peer_lock);
	if (!tab && fresh) {
		/* No table (out of memory): nowhere to keep it, nobody saw it. */
		peer_free(fresh);
		return NULL;
	}
	return fresh;
}

/*
 * The entry of lid's current holder, or NULL (nobody holds lid). On the path
 * of every packet: two loads and the ring's generation, no lock and no
 * read-modify-write. An entry stays valid while the fabric is open
 * (peer_retire), so nothing is counted.
 */
static inline __attribute__((always_inline)) soft_peer_t *peer_get(soft_fabric_t *fab, uint16_t lid)
{
	soft_peer_t **tab = __atomic_load_n(&fab->peers, __ATOMIC_ACQUIRE);
	soft_peer_t *p = tab ? __atomic_load_n(&tab[lid], __ATOMIC_ACQUIRE) : NULL;

	if (p && peer_current(p))
		return p;
	return peer_refresh(fab, lid);
}

void soft_link_free_all(soft_fabric_t *fab)
{
	soft_peer_t *p;
	unsigned lid;

	while ((p = fab->retired)) {
		fab->retired = p->next_retired;
		peer_free(p);
	}
	if (!fab->peers)
		return;
	for (lid = 0; lid <= SOFT_FABRIC_LID_UNICAST_MAX; lid++)
		if (fab->peers[lid])
			peer_free(fab->peers[lid]);
	free(fab->peers);
	fab->peers = NULL;
}

void soft_link_count_failure(soft_fabric_port_t *port, uint16_t lid, int err)
{
	IBAL_DBG(IBAL_SUB_FABRIC, "LID 0x%x: packet to LID 0x%x dropped: %s", port->lid, lid,
		 strerror(err));
	switch (err) {
	case ENOENT:
	case ENOTDIR:
		SOFT_STAT_ADD(port, drop_unknown, 1);
		break;
	case ECONNREFUSED:
	case ECONNRESET:
		SOFT_STAT_ADD(port, drop_dead, 1);
		soft_reg_reclaim(port->fab, lid);
		break;
	case EAGAIN:
	case ENOBUFS:
		SOFT_STAT_ADD(port, drop_busy, 1);
		break;
	default:
		SOFT_STAT_ADD(port, drop_error, 1);
		break;
	}
}

/* One datagram to lid's socket, never waiting; 0 or an errno value. */
static int send_dgram(soft_fabric_port_t *port, uint16_t lid, const void *buf, size_t len)
{
	struct sockaddr_un sa;
	socklen_t sa_len = soft_reg_sockaddr(port->fab, lid, &sa);
	ssize_t rc;

	do
		rc = sendto(port->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL,
			    (const struct sockaddr *)&sa, sa_len);
	while (rc < 0 && errno == EINTR);
	return rc < 0 ? errno : 0;
}

/*
 * Wakes a sleeping receiver. 0 if rung (or already ringing); else the error
 * that says the holder is gone (its socket refused or vanished: its record
 * is reclaimed and the packet counted as not delivered).
 */
static int ring_doorbell(soft_fabric_port_t *port, uint16_t lid)
{
	static const uint8_t bell = 0;
	int err = send_dgram(port, lid, &bell, sizeof(bell));

	switch (err) {
	case ENOENT:
	case ENOTDIR:
		soft_reg_reclaim(port->fab, lid);
		/* fall through */
	case ECONNREFUSED:
	case ECONNRESET:
		return err;
	default:
		return 0;
	}
}

/* The ring was full: is its owner still there? (at most every LIVENESS_NS) */
static void check_full_peer(soft_fabric_port_t *port, soft_peer_t *p)
{
	uint64_t now = soft_mono_ns();
	boolean_t check;

	pthread_mutex_lock(&port->fab->peer_lock);
	check = now - p->checked_ns >= LIVENESS_NS;
	if (check)
		p->checked_ns = now;
	pthread_mutex_unlock(&port->fab->peer_lock);
	if (check)
		soft_reg_reclaim(port->fab, p->lid);
}

int32_t soft_fabric_direct_pid(soft_fabric_port_t *port, uint16_t lid)
{
	soft_peer_t *p;
	int32_t pid = 0;

	if (!port || !lid || lid > SOFT_FABRIC_LID_UNICAST_MAX || !soft_link_plain(port->fab))
		return 0;
	p = peer_get(port->fab, lid);
	if (p) {
		if (p->ring.hdr)
			pid = p->pid;
	}
	return pid;
}

boolean_t soft_fabric_room(soft_fabric_port_t *port, uint16_t dlid, size_t len)
{
	soft_peer_t *p;
	boolean_t room = TRUE;

	if (!port || !dlid || dlid > SOFT_FABRIC_LID_UNICAST_MAX)
		return TRUE;
	p = peer_get(port->fab, dlid);
	if (p) {
		if (p->ring.hdr)
			room = soft_ring_room(&p->ring, len);
	}
	return room;
}

/* A packet to a LID whose holder has no ring (or nobody holds it): a
 * datagram on the holder's socket (out of line: its frame holds a sealed
 * copy of the packet). */
static __attribute__((noinline)) ib_api_status_t deliver_dgram(soft_fabric_port_t *port,
								 uint16_t lid, const void *pkt,
								 size_t len, uint32_t flags)
{
	uint8_t sealed[SOFT_FABRIC_MAX_PACKET];
	int err;

	/* Data placed directly stands for packets that were not built. */
	if (flags & SOFT_FABRIC_DIRECT) {
		SOFT_STAT_ADD(port, drop_error, 1);
		return IB_SUCCESS;
	}
	/* A datagram has no room for flags: it carries its CRCs. */
	if (flags & SOFT_FABRIC_NO_CRC) {
		memcpy(sealed, pkt, len);
		soft_pkt_seal(sealed, len);
		pkt = sealed;
	}
	err = send_dgram(port, lid, pkt, len);
	if (err)
		soft_link_count_failure(port, lid, err);
	else
		SOFT_STAT_ADD(port, delivered, 1);
	return IB_SUCCESS;
}

ib_api_status_t soft_link_deliver(soft_fabric_port_t *port, uint16_t lid, const void *pkt,
				  size_t len, uint32_t flags)
{
	soft_peer_t *p = peer_get(port->fab, lid);
	boolean_t wake;
	int err;

	if (!p || !p->ring.hdr)
		return deliver_dgram(port, lid, pkt, len, flags);
	/* `delivered` is counted by the put once it has claimed the record
	 * (no doorbell to ring), not after the copy: see soft_ring_put. */
	if (soft_ring_put(&p->ring, pkt, len, flags, &wake, &port->stats->delivered) ==
	    SOFT_RING_OK) {
		err = wake ? ring_doorbell(port, lid) : 0;
		if (err)
			soft_link_count_failure(port, lid, err);
		else if (wake)
			SOFT_STAT_ADD(port, delivered, 1);
		return IB_SUCCESS;
	}
	check_full_peer(port, p);
	if (flags & SOFT_FABRIC_TELL_FULL) {
		/* Held by its sender, as a packet waits for link credits. */
		IBAL_DBG(IBAL_SUB_FABRIC, "LID 0x%x: packet to LID 0x%x held: its ring is full",
			 port->lid, lid);
		return IB_RESOURCE_BUSY;
	}
	IBAL_DBG(IBAL_SUB_FABRIC, "LID 0x%x: packet to LID 0x%x dropped: its ring is full",
		 port->lid, lid);
	SOFT_STAT_ADD(port, drop_busy, 1);
	return IB_SUCCESS;
}
