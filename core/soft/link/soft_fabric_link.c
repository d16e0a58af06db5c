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

static void peer_unref(soft_peer_t *p)
{
	/* The table's reference goes only under peer_lock, so the last one
	 * dropped is never that of a peer still in the table. */
	if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL))
		return;
	soft_ring_unmap(&p->ring);
	free(p);
}

/* peer_lock held: is the cached entry still the LID's holder? (The clock is
 * read only for a peer without a ring: not on the path of every packet.) */
static boolean_t peer_current(const soft_peer_t *p)
{
	if (p->ring.hdr)
		return soft_ring_gen(&p->ring) == p->gen;
	return soft_mono_ns() < p->expires_ns;
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
	p->refs = 1;
	soft_reg_ring_path(fab, guid, path, sizeof(path));
	if (soft_ring_attach(path, &p->ring) != 0 || soft_ring_gen(&p->ring) != gen) {
		soft_ring_unmap(&p->ring);
		p->expires_ns = now + RINGLESS_TTL_NS;
	}
	return p;
}

/* The peer at lid with one more reference, or NULL (nobody holds lid). */
static soft_peer_t *peer_get(soft_fabric_t *fab, uint16_t lid)
{
	soft_peer_t *p, *fresh;

	pthread_mutex_lock(&fab->peer_lock);
	if (!fab->peers)
		fab->peers = (soft_peer_t **)calloc((SOFT_FABRIC_LID_UNICAST_MAX + 1),
						       sizeof(*fab->peers));
	p = fab->peers ? fab->peers[lid] : NULL;
	if (p && peer_current(p)) {
		__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&fab->peer_lock);
		return p;
	}
	if (p) {
		fab->peers[lid] = NULL;
		peer_unref(p);
	}
	pthread_mutex_unlock(&fab->peer_lock);

	fresh = peer_lookup(fab, lid, soft_mono_ns());
	if (!fresh)
		return NULL;
	pthread_mutex_lock(&fab->peer_lock);
	if (fab->peers) {
		p = fab->peers[lid];
		fab->peers[lid] = fresh;
		__atomic_add_fetch(&fresh->refs, 1, __ATOMIC_RELAXED);
		if (p)
			peer_unref(p);
	}
	pthread_mutex_unlock(&fab->peer_lock);
	return fresh;
}

void soft_link_free_all(soft_fabric_t *fab)
{
	unsigned lid;

	if (!fab->peers)
		return;
	for (lid = 0; lid <= SOFT_FABRIC_LID_UNICAST_MAX; lid++)
		if (fab->peers[lid])
			peer_unref(fab->peers[lid]);
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
		peer_unref(p);
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
		peer_unref(p);
	}
	return room;
}

void soft_link_deliver(soft_fabric_port_t *port, uint16_t lid, const void *pkt, size_t len,
		       uint32_t flags)
{
	uint8_t sealed[SOFT_FABRIC_MAX_PACKET];
	soft_peer_t *p = peer_get(port->fab, lid);
	boolean_t wake;
	int err;

	if (p && p->ring.hdr) {
		if (soft_ring_put(&p->ring, pkt, len, flags, &wake) == SOFT_RING_OK) {
			err = wake ? ring_doorbell(port, lid) : 0;
			if (err)
				soft_link_count_failure(port, lid, err);
			else
				SOFT_STAT_ADD(port, delivered, 1);
		} else {
			IBAL_DBG(IBAL_SUB_FABRIC, "LID 0x%x: packet to LID 0x%x dropped: its ring is full",
				 port->lid, lid);
			SOFT_STAT_ADD(port, drop_busy, 1);
			check_full_peer(port, p);
		}
		peer_unref(p);
		return;
	}
	if (p)
		peer_unref(p);
	/* Data placed directly stands for packets that were not built. */
	if (flags & SOFT_FABRIC_DIRECT) {
		SOFT_STAT_ADD(port, drop_error, 1);
		return;
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
}
