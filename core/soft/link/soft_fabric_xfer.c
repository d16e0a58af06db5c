/*
 * ibal soft provider: packet delivery on the soft fabric, with loss and delay injection.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <complib/cl_memory.h>
#include "soft_fabric_int.h"
#include "soft_wire.h"
#include "ibal_log.h"

#define LID_PERMISSIVE 0xFFFFu
#define MCAST_LO 0xC000u
#define MCAST_CHUNK 64 /* multicast members resolved per registry lock */
#define SOCK_POLL_EVERY 1024u /* a polling receiver looks at its socket once in this many empty polls */

/* The drop filter: called under filter_lock; filter_armed says whether to look. */
static pthread_mutex_t filter_lock = PTHREAD_MUTEX_INITIALIZER;
static soft_fabric_drop_fn_t filter_fn;
static void *filter_ctx;
static int filter_armed;

/* The SplitMix64 output function: a bijection that scrambles consecutive inputs. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

uint64_t soft_rng_key(uint64_t seed, ib_net64_t port_guid, uint8_t port_num)
{
	return mix64(seed ^ mix64(port_guid ^ ((uint64_t)port_num << 56)));
}

void soft_fabric_set_drop_filter(soft_fabric_drop_fn_t pfn_filter, void *context)
{
	pthread_mutex_lock(&filter_lock);
	filter_fn = pfn_filter;
	filter_ctx = context;
	__atomic_store_n(&filter_armed, pfn_filter != NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&filter_lock);
}

/* The injection decision for one packet: the filter first, then the drop rate. */
static boolean_t inject_drop(soft_fabric_port_t *port, const void *pkt, size_t len)
{
	double pct = port->fab->cfg.drop_pct;
	boolean_t drop = FALSE;
	uint64_t r;

	if (__atomic_load_n(&filter_armed, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&filter_lock);
		if (filter_fn)
			drop = filter_fn(filter_ctx, pkt, len);
		pthread_mutex_unlock(&filter_lock);
		if (drop)
			return TRUE;
	}
	if (pct <= 0.0)
		return FALSE;
	/* Counter-based: the n-th decision of a port depends only on key and n. */
	r = mix64(port->rng_key + __atomic_fetch_add(&port->rng_ctr, 1, __ATOMIC_RELAXED));
	return (double)(r >> 11) * (1.0 / 9007199254740992.0) * 100.0 < pct;
}

boolean_t soft_link_plain(const soft_fabric_t *fab)
{
	return !soft_capture_any(fab) && fab->cfg.drop_pct <= 0.0 && !fab->cfg.delay_us &&
	       !__atomic_load_n(&filter_armed, __ATOMIC_ACQUIRE);
}

/* ---- Delivery ---- */

static void deliver_mcast(soft_fabric_port_t *port, uint16_t mlid, const void *pkt, size_t len,
			  uint32_t flags)
{
	uint16_t members[MCAST_CHUNK], next = 0;
	size_t i, n, total = 0;

	do {
		n = soft_reg_mcast_members(port->fab, mlid, &next, members, MCAST_CHUNK);
		for (i = 0; i < n; i++)
			soft_link_deliver(port, members[i], pkt, len, flags & ~SOFT_FABRIC_TELL_FULL);
		total += n;
	} while (next);
	if (!total) {
		IBAL_DBG(IBAL_SUB_FABRIC, "LID 0x%x: packet to multicast LID 0x%x dropped: no member",
			 port->lid, mlid);
		SOFT_STAT_ADD(port, drop_unknown, 1);
	}
}

/* Delivers by destination: an explicit port, else the DLID's meaning.
 * IB_RESOURCE_BUSY as soft_link_deliver(); IB_SUCCESS otherwise. */
static inline __attribute__((always_inline)) ib_api_status_t
route(soft_fabric_port_t *port, uint16_t dlid, boolean_t explicit_dest, const void *pkt, size_t len,
      uint32_t flags)
{
	if (explicit_dest || (dlid && dlid <= SOFT_FABRIC_LID_UNICAST_MAX))
		return soft_link_deliver(port, dlid, pkt, len, flags);
	if (dlid >= MCAST_LO && dlid != LID_PERMISSIVE) {
		deliver_mcast(port, dlid, pkt, len, flags);
	} else {
		IBAL_DBG(IBAL_SUB_FABRIC, "LID 0x%x: packet to LID 0x%x dropped: no such destination",
			 port->lid, dlid);
		SOFT_STAT_ADD(port, drop_unknown, 1); /* LID 0, or permissive without a port */
	}
	return IB_SUCCESS;
}

/* ---- Delay queue ---- */

static void delay_thread(void *context)
{
	soft_fabric_t *fab = (soft_fabric_t *)context;

	cl_mutex_acquire(&fab->q_lock);
	while (!fab->delay_stop) {
		cl_list_item_t *head = cl_qlist_head(&fab->delay_q);
		soft_delayed_t *e;
		uint64_t now, due;

		if (head == cl_qlist_end(&fab->delay_q)) {
			cl_mutex_release(&fab->q_lock);
			cl_event_wait_on(&fab->delay_ev, EVENT_NO_TIMEOUT, FALSE);
			cl_mutex_acquire(&fab->q_lock);
			continue;
		}
		e = PARENT_STRUCT(head, soft_delayed_t, item);
		now = soft_mono_ns();
		due = e->due_ns; /* e may be purged once the lock is released */
		if (due > now) {
			cl_mutex_release(&fab->q_lock);
			cl_event_wait_on(&fab->delay_ev, (uint32_t)((due - now + 999) / 1000), FALSE);
			cl_mutex_acquire(&fab->q_lock);
			continue;
		}
		cl_qlist_remove_head(&fab->delay_q);
		/* Closing the port waits for send_lock, so the port outlives this send. */
		cl_mutex_acquire(&fab->send_lock);
		cl_mutex_release(&fab->q_lock);
		(void)route(e->port, e->dest_lid, e->explicit_dest, e->data, e->len, e->flags);
		cl_mutex_release(&fab->send_lock);
		cl_free(e);
		cl_mutex_acquire(&fab->q_lock);
	}
	cl_mutex_release(&fab->q_lock);
}

/* Queues a packet until now + delay; FALSE if it could not be queued. */
static boolean_t delay_enqueue(soft_fabric_port_t *port, uint16_t dlid, boolean_t explicit_dest,
			       const void *pkt, size_t len, uint32_t flags)
{
	soft_fabric_t *fab = port->fab;
	soft_delayed_t *e = (soft_delayed_t *)cl_malloc(sizeof(*e) + len);

	if (!e)
		return FALSE;
	e->port = port;
	e->dest_lid = dlid;
	e->explicit_dest = explicit_dest;
	e->flags = flags;
	e->len = len;
	memcpy(e->data, pkt, len);
	cl_mutex_acquire(&fab->q_lock);
	if (!fab->delay_running) {
		if (cl_thread_init(&fab->delay_thread, delay_thread, fab, "soft-fab-delay") !=
		    CL_SUCCESS) {
			cl_mutex_release(&fab->q_lock);
			cl_free(e);
			return FALSE;
		}
		fab->delay_running = TRUE;
	}
	/* Due times are taken under the lock, so the queue stays in due order. */
	e->due_ns = soft_mono_ns() + (uint64_t)fab->cfg.delay_us * 1000u;
	cl_qlist_insert_tail(&fab->delay_q, &e->item);
	cl_mutex_release(&fab->q_lock);
	cl_event_signal(&fab->delay_ev);
	return TRUE;
}

void soft_delay_purge(soft_fabric_t *fab, soft_fabric_port_t *port)
{
	cl_list_item_t *it, *next;

	cl_mutex_acquire(&fab->q_lock);
	for (it = cl_qlist_head(&fab->delay_q); it != cl_qlist_end(&fab->delay_q); it = next) {
		soft_delayed_t *e = PARENT_STRUCT(it, soft_delayed_t, item);

		next = cl_qlist_next(it);
		if (e->port == port) {
			cl_qlist_remove_item(&fab->delay_q, it);
			cl_free(e);
		}
	}
	/* A packet of this port may be on its way out right now: wait for it. */
	cl_mutex_acquire(&fab->send_lock);
	cl_mutex_release(&fab->send_lock);
	cl_mutex_release(&fab->q_lock);
}

void soft_delay_shutdown(soft_fabric_t *fab)
{
	cl_list_item_t *it;

	if (fab->q_lock.state != CL_INITIALIZED)
		return;
	cl_mutex_acquire(&fab->q_lock);
	fab->delay_stop = TRUE;
	cl_mutex_release(&fab->q_lock);
	cl_event_signal(&fab->delay_ev);
	cl_thread_destroy(&fab->delay_thread);
	while ((it = cl_qlist_remove_head(&fab->delay_q)) != cl_qlist_end(&fab->delay_q))
		cl_free(PARENT_STRUCT(it, soft_delayed_t, item));
}

/* ---- Sending and receiving ---- */

/*
 * Whether a packet sent now meets nothing between its port and its
 * destination: no capture (the registry's generation is the one followed),
 * no loss injection, no delay. Read at every send, without a lock.
 */
static inline boolean_t path_plain(const soft_fabric_t *fab)
{
	return !fab->pcap &&
	       __atomic_load_n(&fab->hdr->capture_gen, __ATOMIC_ACQUIRE) ==
		       __atomic_load_n(&fab->live_gen, __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&fab->live_pcap, __ATOMIC_ACQUIRE) && !fab->cfg.delay_us &&
	       fab->cfg.drop_pct <= 0.0 && !__atomic_load_n(&filter_armed, __ATOMIC_ACQUIRE);
}

/* A send that something observes or perturbs: capture, loss injection, delay
 * (out of line: its frame holds a sealed copy of the packet). */
static __attribute__((noinline)) ib_api_status_t
send_observed(soft_fabric_port_t *port, uint16_t dlid, boolean_t explicit_dest, const void *pkt,
	      size_t len, uint32_t flags)
{
	uint8_t sealed[SOFT_FABRIC_MAX_PACKET];
	soft_fabric_t *fab = port->fab;
	soft_pcap_t *pcap;
	boolean_t dropped;

	/* A packet held back stays out of the delay queue (which cannot give it
	 * back) and out of a capture (it has not left). */
	if (fab->cfg.delay_us)
		flags &= ~SOFT_FABRIC_TELL_FULL;
	pcap = soft_capture_get(fab);
	if (pcap && (flags & SOFT_FABRIC_TELL_FULL) && !soft_fabric_room(port, dlid, len)) {
		soft_capture_put(fab, pcap);
		return IB_RESOURCE_BUSY;
	}
	/* A captured packet carries its CRCs, as on a wire: computed here. */
	if ((flags & SOFT_FABRIC_NO_CRC) && pcap) {
		memcpy(sealed, pkt, len);
		if (soft_pkt_seal(sealed, len) == SOFT_WIRE_OK) {
			pkt = sealed;
			flags &= ~SOFT_FABRIC_NO_CRC;
		}
	}
	dropped = inject_drop(port, pkt, len);
	if (pcap) {
		soft_pcap_write(pcap, pkt, len, dropped);
		soft_capture_put(fab, pcap);
	}
	/* Lost on the wire, queued for later, or delivered: sent and counted;
	 * handed back (SOFT_FABRIC_TELL_FULL): neither. */
	if (dropped) {
		SOFT_STAT_ADD(port, drop_injected, 1);
	} else if (!fab->cfg.delay_us || !delay_enqueue(port, dlid, explicit_dest, pkt, len, flags)) {
		if (route(port, dlid, explicit_dest, pkt, len, flags) == IB_RESOURCE_BUSY)
			return IB_RESOURCE_BUSY;
	}
	SOFT_STAT_ADD(port, tx_packets, 1);
	SOFT_STAT_ADD(port, tx_bytes, len);
	return IB_SUCCESS;
}

static inline __attribute__((always_inline)) ib_api_status_t
send_common(soft_fabric_port_t *port, uint16_t dest_lid, boolean_t explicit_dest, const void *pkt,
	    size_t len, uint32_t flags)
{
	const uint8_t *b = (const uint8_t *)pkt;
	soft_fabric_t *fab;
	uint16_t dlid;

	if (!port || !pkt || len < SOFT_FABRIC_MIN_PACKET || len > SOFT_FABRIC_MAX_PACKET)
		return IB_INVALID_PARAMETER;
	fab = port->fab;
	if ((flags & SOFT_FABRIC_DIRECT) && (explicit_dest || !soft_link_plain(fab)))
		return IB_NOT_DONE;
	/* LRH bytes 2-3: the destination LID, big endian. */
	dlid = explicit_dest ? dest_lid : (uint16_t)((b[2] << 8) | b[3]);
	if (__builtin_expect(!path_plain(fab), 0))
		return send_observed(port, dlid, explicit_dest, pkt, len, flags);
	if (route(port, dlid, explicit_dest, pkt, len, flags) == IB_RESOURCE_BUSY)
		return IB_RESOURCE_BUSY;
	SOFT_STAT_ADD(port, tx_packets, 1);
	SOFT_STAT_ADD(port, tx_bytes, len);
	return IB_SUCCESS;
}

ib_api_status_t soft_fabric_send(soft_fabric_port_t *port, const void *pkt, size_t len)
{
	return send_common(port, 0, FALSE, pkt, len, 0);
}

ib_api_status_t soft_fabric_send_flags(soft_fabric_port_t *port, const void *pkt, size_t len,
				       uint32_t flags)
{
	return send_common(port, 0, FALSE, pkt, len,
			   flags & (SOFT_FABRIC_NO_CRC | SOFT_FABRIC_DIRECT | SOFT_FABRIC_TELL_FULL));
}

uint32_t soft_fabric_rx_flags(const soft_fabric_port_t *port)
{
	return port->rx_flags;
}

ib_api_status_t soft_fabric_send_to(soft_fabric_port_t *port, uint16_t dest_lid, const void *pkt,
				    size_t len)
{
	if (dest_lid == 0 || dest_lid > SOFT_FABRIC_LID_UNICAST_MAX)
		return port && pkt ? IB_INVALID_LID : IB_INVALID_PARAMETER;
	return send_common(port, dest_lid, TRUE, pkt, len, 0);
}

/* Datagrams on the socket: packets of senders that had no ring for us;
 * those shorter than a packet are doorbells, read only to empty the queue. */
static ib_api_status_t recv_dgram(soft_fabric_port_t *port, void *buf, size_t cap, size_t *p_len)
{
	ssize_t n;

	for (;;) {
		n = recv(port->fd, buf, cap, MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? IB_NOT_FOUND : IB_ERROR;
		if ((size_t)n >= SOFT_FABRIC_MIN_PACKET)
			break;
	}
	*p_len = (size_t)n;
	if ((size_t)n > cap) {
		SOFT_STAT_ADD(port, rx_truncated, 1);
		return IB_OVERFLOW;
	}
	return IB_SUCCESS;
}

/* Adds the ring's newly dropped records to the port's counters. */
static void count_ring_drops(soft_fabric_port_t *port)
{
	uint64_t d = port->ring.dropped;

	if (d != port->ring_seen_drops) {
		IBAL_DBG(IBAL_SUB_FABRIC, "LID 0x%x: %llu ring record(s) dropped (malformed, stuck or "
			 "overwritten)", port->lid, (unsigned long long)(d - port->ring_seen_drops));
		SOFT_STAT_ADD(port, rx_ring_dropped, d - port->ring_seen_drops);
		port->ring_seen_drops = d;
	}
}

/* How take() looks at the socket after the ring. */
enum { SOCK_ALWAYS, SOCK_SOMETIMES, SOCK_NEVER };

/* Ring first; then the socket always, once in SOCK_POLL_EVERY empty polls, or never. */
static ib_api_status_t take(soft_fabric_port_t *port, void *buf, size_t cap, size_t *p_len,
			    int sock)
{
	ib_api_status_t status = IB_NOT_FOUND;

	if (!port || !buf || !p_len)
		return IB_INVALID_PARAMETER;
	if (port->ring.hdr) {
		port->rx_flags = 0;
		switch (soft_ring_get(&port->ring, buf, cap, p_len, &port->rx_flags)) {
		case SOFT_RING_GOT:
			status = IB_SUCCESS;
			break;
		case SOFT_RING_BIG:
			SOFT_STAT_ADD(port, rx_truncated, 1);
			status = IB_OVERFLOW;
			break;
		default:
			break;
		}
		count_ring_drops(port);
		/* A polling receiver makes no system call for an empty socket (it
		 * looks once every SOCK_POLL_EVERY empty polls). */
		if (status == IB_NOT_FOUND &&
		    (sock == SOCK_NEVER ||
		     (sock == SOCK_SOMETIMES && ++port->empty_polls < SOCK_POLL_EVERY)))
			return status;
		port->empty_polls = 0;
	}
	if (status == IB_NOT_FOUND) {
		port->rx_flags = 0; /* datagrams always carry their CRCs */
		status = recv_dgram(port, buf, cap, p_len);
	}
	if (status == IB_SUCCESS) {
		SOFT_STAT_ADD(port, rx_packets, 1);
		SOFT_STAT_ADD(port, rx_bytes, *p_len);
	}
	return status;
}

ib_api_status_t soft_fabric_poll(soft_fabric_port_t *port, void *buf, size_t cap, size_t *p_len)
{
	return take(port, buf, cap, p_len, SOCK_SOMETIMES);
}

ib_api_status_t soft_fabric_poll_ring(soft_fabric_port_t *port, void *buf, size_t cap,
				      size_t *p_len)
{
	if (port && !port->ring.hdr)
		return IB_NOT_FOUND;
	return take(port, buf, cap, p_len, SOCK_NEVER);
}

boolean_t soft_fabric_ring_ready(const soft_fabric_port_t *port)
{
	return port->ring.hdr && soft_ring_ready(&port->ring);
}

size_t soft_fabric_ring_peek(const soft_fabric_port_t *port, void *dst, size_t n)
{
	return port->ring.hdr ? soft_ring_peek(&port->ring, dst, n) : 0;
}

ib_api_status_t soft_fabric_port_arm(soft_fabric_port_t *port)
{
	if (!port)
		return IB_INVALID_PARAMETER;
	if (!port->ring.hdr)
		return IB_SUCCESS;
	switch (soft_ring_arm(&port->ring)) {
	case SOFT_RING_EMPTY:
		return IB_SUCCESS;
	case SOFT_RING_WAIT:
		return IB_PENDING;
	default:
		return IB_NOT_DONE;
	}
}

void soft_fabric_port_disarm(soft_fabric_port_t *port)
{
	if (port && port->ring.hdr)
		soft_ring_disarm(&port->ring);
}

ib_api_status_t soft_fabric_recv(soft_fabric_port_t *port, void *buf, size_t cap, size_t *p_len)
{
	ib_api_status_t status = take(port, buf, cap, p_len, SOCK_ALWAYS);

	/* Nothing: the caller is about to wait on the socket, so ask for a doorbell. */
	if (status == IB_NOT_FOUND && soft_fabric_port_arm(port) == IB_NOT_DONE)
		status = take(port, buf, cap, p_len, SOCK_ALWAYS);
	else if (status == IB_SUCCESS)
		soft_fabric_port_disarm(port);
	return status;
}
