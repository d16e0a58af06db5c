/*
 * ibal soft provider: the simulated subnet the soft HCA's ports attach to.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file soft_fabric.h
 * @brief The soft fabric: a subnet of soft HCA ports spanning the processes
 * of one host, with LID assignment, packet delivery, loss and delay
 * injection and packet capture.
 *
 * **Rendezvous.** Processes share a fabric directory, `$IBAL_SOFT_FABRIC`
 * (default `/tmp/ibal-soft-<uid>/default`), created with mode 0700 when the
 * first port opens. Each port has a receive ring in shared memory, the file
 * `ring-<port GUID>` there (soft_ring.h), and a Unix datagram socket bound
 * there as `lid-XXXX` (the port's LID in hex). A packet is the bytes an IB
 * link carries, LRH through VCRC. There is no daemon, but for the optional
 * fabric service (ibal_soft_fabric), which reserves LIDs for the nodes of
 * its topology (soft_fabric_reserve()) and holds them while no process is
 * them.
 *
 * **Registry.** `registry` in that directory is a file of fixed-size records,
 * one per unicast LID, mapped by every process and changed only under an
 * exclusive `flock`. A port opening takes the LID its port GUID had if that
 * holder is gone, else the lowest LID (1..0xBFFF) that is free or whose holder
 * is gone and that is not reserved for another port GUID. A holder is gone when its process no longer exists (PID checked
 * together with the process start time, so a reused PID is not mistaken for
 * it) or when its socket refuses a connection (ECONNREFUSED, ENOENT: the
 * process died, closed it without deregistering, or exec'ed). Stale records
 * are reclaimed when an open, a lookup or a listing meets them, when a
 * doorbell or datagram to that LID is refused, and when a sender finds the
 * holder's ring full (at most every 100 ms); reclaiming a record retires its
 * ring (its generation becomes 0, the file is removed).
 *
 * **Delivery.** soft_fabric_send() routes by the DLID of the LRH (bytes 2-3,
 * big-endian): a unicast LID reaches the port holding it (the sender itself
 * included, as loopback); a multicast LID (0xC000..0xFFFE) reaches every port
 * attached to it with soft_fabric_mcast_attach(), the sender included when it
 * is attached (the soft HCA filters its own packets if it must); LID 0 and
 * the permissive LID 0xFFFF are not routable by DLID and are dropped.
 * soft_fabric_send_to() delivers to a port named by the caller whatever the
 * DLID is: that is how directed-route SMPs (DLID 0xFFFF) travel. A packet for
 * a LID nobody holds, or whose holder is dead, is dropped silently, as a link
 * would, and counted (soft_fabric_port_stats()).
 *
 * **Links.** The sender copies the packet into the receiver's ring
 * (soft_fabric_link.c: each process maps a destination's ring once and checks
 * on every packet that the ring still carries the registry generation of its
 * LID). No system call is made while the receiver polls; a receiver that is
 * about to sleep says so in its ring (soft_fabric_port_arm(), or
 * soft_fabric_recv() finding nothing), and the first sender after that sends
 * a one-byte doorbell datagram to its socket. A port whose ring could not be
 * created is sent datagrams on its socket instead.
 *
 * **Congestion.** Sends never wait. A packet that finds the receiver's ring
 * (or, without a ring, its socket queue) full is dropped and counted
 * (drop_busy), as a switch drops what a congested port cannot take; reliable
 * transports recover by retransmission.
 *
 * **Injection.** `$IBAL_SOFT_DROP_PCT` (0..100, fractions allowed) drops that
 * share of the packets each port sends, decided by a counter-based PRNG keyed
 * by `$IBAL_SOFT_SEED` (default 0x1BA15EED) and the port GUID, so a run that
 * sends the same packets in the same order per port drops the same ones.
 * soft_fabric_set_drop_filter() installs a test hook consulted first.
 * `$IBAL_SOFT_DELAY_US` delays every packet by that many microseconds: the
 * sender queues it with its due time and a per-process timer thread sends it
 * then, so receivers need no changes and the order of each port's packets is
 * kept. Packets still queued when their port closes are lost.
 *
 * **Capture.** `$IBAL_SOFT_PCAP=path` appends every packet a port of this
 * process sends (after the injection decisions) to a pcap file; `%p` in the
 * path is replaced by the process ID. The link type is LINKTYPE_ERF (197),
 * each record an ERF header of type InfiniBand followed by the packet bytes,
 * because Wireshark reads that and does not read LINKTYPE_INFINIBAND (247);
 * injected drops are recorded with the ERF "RX error" flag set (Wireshark
 * filter `erf.flags.rxe == 0` shows what was delivered).
 * `$IBAL_SOFT_PCAP_LINKTYPE=247` writes LINKTYPE_INFINIBAND records (the
 * packet bytes alone) instead, without the dropped packets. Records are
 * appended with one `writev` each on a file opened `O_APPEND`, so threads and
 * processes may share one file (on a local file system); an existing file
 * is appended to, never truncated. The inspector can also start and stop a
 * capture of every process of a running fabric through the registry
 * (soft_fabric_view_capture_set()); `$IBAL_SOFT_PCAP` takes precedence in the
 * processes that set it. Each port's counters (soft_fabric_port_stats()) live
 * in the header of its ring, where the inspector reads them.
 *
 * The environment is read when the first port of a fabric directory opens in
 * a process; the settings hold until the last port of that directory closes.
 *
 * **Threads and processes.** Every function may be called from any thread;
 * send, receive and the lookups may run concurrently on one port, but a port
 * must not be closed while another thread uses it. After fork() the child
 * may open ports of its own; it must not use ports it inherited (closing one
 * there releases only the child's descriptors).
 *
 * LIDs in this interface are in host byte order; GUIDs are ib_net64_t, in
 * network order, as everywhere in the access layer.
 */
#ifndef SOFT_FABRIC_H
#define SOFT_FABRIC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <complib/cl_memory.h>
#include <iba/ib_types.h>
#include <iba/ibal_soft.h>
#include "ibal_time.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Resizes a block of complib's allocator (cl_malloc(), cl_zalloc()) as
 * realloc() would: complib has no realloc, and the soft provider allocates
 * through complib so that its fault injection (__cl_mem_fail_nth()) and
 * allocation tracking cover it.
 * @param p the block, or NULL.
 * @param old_bytes its size: what is kept (no more than @p new_bytes).
 * @param new_bytes the size wanted.
 * @return the new block (@p p is freed), or NULL with @p p as it was.
 */
static inline void *soft_mem_resize(void *p, size_t old_bytes, size_t new_bytes)
{
	void *n = cl_malloc(new_bytes);

	if (!n)
		return NULL;
	if (p)
		memcpy(n, p, old_bytes < new_bytes ? old_bytes : new_bytes);
	cl_free(p);
	return n;
}

/** Largest packet the fabric carries: a 4096-byte payload plus every header. */
#define SOFT_FABRIC_MAX_PACKET (4096 + 128)
/** Smallest packet: a local route header (LRH). */
#define SOFT_FABRIC_MIN_PACKET 8
/** Highest unicast LID the registry assigns (host order). */
#define SOFT_FABRIC_LID_UNICAST_MAX 0xBFFF
/** Multicast groups one port may be attached to at a time. */
#define SOFT_FABRIC_MAX_MCAST 104

/** The master SM's lock in the fabric directory (flock: the election). */
#define SOFT_FABRIC_SM_LOCK "sm.lock"
/** The fabric service's lock in the fabric directory (one service per fabric). */
#define SOFT_FABRIC_SERVICE_LOCK "service.lock"
/** The fabric service's copy of its topology in the fabric directory. */
#define SOFT_FABRIC_TOPOLOGY "topology"

/** Environment variable naming the fabric directory. */
#define SOFT_FABRIC_ENV_DIR "IBAL_SOFT_FABRIC"
/** Environment variable: percentage of sent packets to drop (0..100). */
#define SOFT_FABRIC_ENV_DROP_PCT "IBAL_SOFT_DROP_PCT"
/** Environment variable: seed of the drop decisions. */
#define SOFT_FABRIC_ENV_SEED "IBAL_SOFT_SEED"
/** Environment variable: delay of every packet, in microseconds. */
#define SOFT_FABRIC_ENV_DELAY_US "IBAL_SOFT_DELAY_US"
/** Environment variable: pcap file to capture to (`%p`: process ID). */
#define SOFT_FABRIC_ENV_PCAP "IBAL_SOFT_PCAP"
/** Environment variable: pcap link type, `erf` (default) or `247`. */
#define SOFT_FABRIC_ENV_PCAP_LINKTYPE "IBAL_SOFT_PCAP_LINKTYPE"

/** A port attached to the fabric. Opaque. */
typedef struct soft_fabric_port soft_fabric_port_t;

/** Counters of one port; each only grows while the port is open. */
typedef struct soft_fabric_stats {
	uint64_t tx_packets;    /**< Packets given to soft_fabric_send / _send_to. */
	uint64_t tx_bytes;      /**< Their bytes. */
	uint64_t delivered;     /**< Datagrams placed at a receiving port (one per multicast member). */
	uint64_t rx_packets;    /**< Packets returned by soft_fabric_recv. */
	uint64_t rx_bytes;      /**< Their bytes. */
	uint64_t drop_injected; /**< Dropped by IBAL_SOFT_DROP_PCT or the drop filter. */
	uint64_t drop_unknown;  /**< Dropped: no port holds the LID, DLID 0 or 0xFFFF, multicast group without members. */
	uint64_t drop_dead;     /**< Dropped: the port holding the LID is gone. */
	uint64_t drop_busy;     /**< Dropped: the receiver's queue stayed full for the whole wait. */
	uint64_t drop_error;    /**< Dropped: any other failure of the socket. */
	uint64_t rx_truncated;  /**< Received packets discarded because the buffer was too small. */
	uint64_t rx_ring_dropped; /**< Ring records the receiver skipped: malformed, or claimed and never published. */
} soft_fabric_stats_t;

/** What the registry records about a live port. */
typedef struct soft_fabric_port_info {
	ib_net64_t port_guid; /**< Port GUID, network order. */
	ib_net64_t node_guid; /**< Node GUID of the port's CA, network order. */
	uint16_t lid;         /**< Assigned LID, host order. */
	uint8_t port_num;     /**< Port number on its CA. */
	int32_t owner_pid;    /**< Process that opened the port. */
} soft_fabric_port_info_t;

/**
 * Decides whether to drop a packet a port is sending (test hook; the
 * public IBAL_SOFT_CI_DROP_FILTER command of ibal_soft.h installs it).
 * Called for every packet before IBAL_SOFT_DROP_PCT applies, from the sending
 * thread, under a process-wide lock (so calls never overlap, and after
 * soft_fabric_set_drop_filter returns the previous filter is not running and
 * will not run again). It must not call soft_fabric functions.
 */
typedef ibal_soft_drop_fn_t soft_fabric_drop_fn_t;

/**
 * Attaches a port to the fabric of `$IBAL_SOFT_FABRIC`: binds its socket,
 * registers it and assigns its LID.
 * @param port_guid the port GUID (network order), unique on the fabric.
 * @param node_guid the node GUID of its CA (network order).
 * @param port_num the port number on its CA.
 * @param pp_port receives the port.
 * @return IB_SUCCESS; IB_INVALID_PARAMETER if @p pp_port is NULL;
 * IB_INVALID_GUID if @p port_guid is 0; IB_RESOURCE_BUSY if a live port
 * already has @p port_guid; IB_INSUFFICIENT_RESOURCES if every unicast LID is
 * held by a live port; IB_INVALID_SETTING if the fabric directory cannot be
 * used (its path is too long for a socket address, it is not a directory, or
 * the default one is not owned by the caller) or the registry there is not
 * one this version understands; IB_INSUFFICIENT_MEMORY; IB_ERROR if a system
 * call failed.
 */
ib_api_status_t soft_fabric_port_open(ib_net64_t port_guid, ib_net64_t node_guid,
				      uint8_t port_num, soft_fabric_port_t **pp_port);

/**
 * soft_fabric_port_open() of a port that must have one LID (a node of the
 * fabric service's topology, whose LIDs are fixed).
 * @param port_guid the port GUID (network order). @param node_guid its CA's
 * node GUID. @param port_num its number on the CA.
 * @param lid the LID it must have (host order), or 0 for any.
 * @param pp_port receives the port.
 * @return as soft_fabric_port_open(); IB_INVALID_PARAMETER for a LID above
 * 0xBFFF; IB_RESOURCE_BUSY also when a live port holds @p lid or it is
 * reserved for another port GUID (soft_fabric_reserve()).
 */
ib_api_status_t soft_fabric_port_open_at(ib_net64_t port_guid, ib_net64_t node_guid,
					 uint8_t port_num, uint16_t lid,
					 soft_fabric_port_t **pp_port);

/**
 * Reserves LIDs of the fabric of `$IBAL_SOFT_FABRIC` for port GUIDs (the
 * fabric service's topology): each LID is then given only to its port GUID
 * (soft_fabric_port_open_at()), never to another port opening without a
 * LID, and goes back to its reservation when its holder closes or dies.
 * All or nothing.
 * @param p_ports what to reserve: port_guid, node_guid, lid, port_num of
 * each (owner_pid is ignored). @param n how many.
 * @param p_bad receives, on IB_RESOURCE_BUSY, the index of the first entry
 * whose LID a live port of another GUID holds (may be NULL).
 * @return IB_SUCCESS; IB_INVALID_PARAMETER (NULL, a LID outside 1..0xBFFF,
 * a GUID 0); IB_RESOURCE_BUSY; the statuses of opening the fabric
 * directory (soft_fabric_port_open()).
 */
ib_api_status_t soft_fabric_reserve(const soft_fabric_port_info_t *p_ports, size_t n,
				    size_t *p_bad);

/**
 * Lifts the reservations soft_fabric_reserve() made for these ports (a
 * port holding such a LID keeps it while it is open).
 * @param p_ports as given to soft_fabric_reserve(). @param n how many.
 */
void soft_fabric_unreserve(const soft_fabric_port_info_t *p_ports, size_t n);

/**
 * The path of a file in the fabric directory of `$IBAL_SOFT_FABRIC`
 * (created as soft_fabric_port_open() creates it): for the fabric service's
 * socket and topology.
 * @param name the file's name (no '/'). @param out receives the path.
 * @param cap size of @p out.
 * @return IB_SUCCESS; IB_INVALID_PARAMETER; IB_INVALID_SETTING if the
 * directory cannot be used or the path does not fit.
 */
ib_api_status_t soft_fabric_dir_file(const char *name, char *out, size_t cap);

/**
 * Whether a port's fabric directory still holds the registry this process
 * mapped: FALSE when the directory or its registry was removed, or replaced
 * by another (another fabric now lives at that path, which this process's
 * ports can no longer reach or be reached from).
 * @param port a port of the fabric.
 * @return TRUE while the directory is intact.
 */
boolean_t soft_fabric_dir_intact(const soft_fabric_port_t *port);

/**
 * Detaches a port: deregisters it (its LID becomes free), closes its socket
 * and discards its delayed packets. NULL is ignored.
 * @param port the port; invalid afterwards.
 */
void soft_fabric_port_close(soft_fabric_port_t *port);

/**
 * The LID assigned to a port.
 * @param port the port.
 * @return its LID, host order.
 */
uint16_t soft_fabric_port_lid(const soft_fabric_port_t *port);

/**
 * Gives a port another LID, as a subnet manager reassigning it would: its
 * registration and its socket move to the new LID's address, so packets
 * already queued stay and senders reach it at the new LID only.
 * @param port the port.
 * @param lid the new LID (host order), a unicast LID.
 * @return IB_SUCCESS (also when @p lid is the current LID);
 * IB_INVALID_PARAMETER for NULL or a LID outside 1..0xBFFF;
 * IB_RESOURCE_BUSY if a live port holds @p lid; IB_ERROR if the port's
 * registration is gone or a system call failed.
 */
ib_api_status_t soft_fabric_port_set_lid(soft_fabric_port_t *port, uint16_t lid);

/**
 * The port's socket, for poll/epoll: readable when a doorbell or a datagram
 * waits, which after soft_fabric_recv() returned IB_NOT_FOUND (or
 * soft_fabric_port_arm() returned IB_SUCCESS) is the case as soon as a packet
 * arrives. The caller must only poll it; read with soft_fabric_recv.
 * @param port the port.
 * @return a non-blocking file descriptor, valid until the port closes.
 */
int soft_fabric_port_fd(const soft_fabric_port_t *port);

/**
 * Copies a port's counters.
 * @param port the port.
 * @param p_stats receives them.
 */
void soft_fabric_port_stats(const soft_fabric_port_t *port, soft_fabric_stats_t *p_stats);

/**
 * Sends a packet, routed by the DLID of its LRH. Never waits. Packets that cannot be delivered are dropped and
 * counted, not reported.
 * @param port the sending port.
 * @param pkt the packet, LRH through VCRC.
 * @param len its length, SOFT_FABRIC_MIN_PACKET..SOFT_FABRIC_MAX_PACKET.
 * @return IB_SUCCESS (also when the packet was dropped);
 * IB_INVALID_PARAMETER if @p port or @p pkt is NULL or @p len is out of range.
 */
ib_api_status_t soft_fabric_send(soft_fabric_port_t *port, const void *pkt, size_t len);

/**
 * The monotonic clock in nanoseconds: the one clock of the soft provider
 * (timers, liveness checks, ring stall detection, delay injection).
 * @return CLOCK_MONOTONIC now.
 */
static inline uint64_t soft_mono_ns(void)
{
	return ibal_time_ns(CLOCK_MONOTONIC);
}

/** soft_fabric_send_flags(): the packet's ICRC and VCRC were not computed. */
#define SOFT_FABRIC_NO_CRC 1u

/**
 * soft_fabric_send_flags(): the packet stands for data its receiver places
 * directly (an RDMA write or read response whose payload describes memory
 * of the sending or receiving process; see soft_fabric_direct_pid()). Such
 * a packet travels only through its receiver's ring and only while nothing
 * observes or perturbs packets (capture, loss or delay injection, a drop
 * filter); otherwise it is not sent (IB_NOT_DONE) and the sender sends the
 * data as packets. Its receiver sees the flag with soft_fabric_rx_flags().
 */
#define SOFT_FABRIC_DIRECT 2u

/**
 * soft_fabric_send_flags(): a unicast packet that finds its receiver's ring
 * full is not sent and not dropped: the call returns IB_RESOURCE_BUSY and the
 * packet is its sender's again, as a packet waits for link credits on an IB
 * link. It is not counted (neither sent nor dropped) and not captured. The
 * sender (an RC or UC QP's requests and positive ACKs, a datagram QP's
 * sends) sends it again once there is room. Without
 * the flag, or with delay injection on, a full ring drops the packet
 * (drop_busy) as a congested switch port would.
 */
#define SOFT_FABRIC_TELL_FULL 4u

/**
 * soft_fabric_send() of a packet whose CRC fields may not hold CRCs. With
 * SOFT_FABRIC_NO_CRC the receiver is told (through its ring) not to check
 * them; where the packet is captured, or must travel as a datagram, the
 * fabric computes them first on a copy.
 * @param port the sending port. @param pkt the packet. @param len its length.
 * @param flags SOFT_FABRIC_NO_CRC, SOFT_FABRIC_DIRECT, SOFT_FABRIC_TELL_FULL,
 * any of them, or 0.
 * @return as soft_fabric_send(); IB_NOT_DONE for a SOFT_FABRIC_DIRECT packet
 * that cannot travel as one now (nothing was sent); IB_RESOURCE_BUSY for a
 * SOFT_FABRIC_TELL_FULL packet held back (nothing was sent).
 */
ib_api_status_t soft_fabric_send_flags(soft_fabric_port_t *port, const void *pkt, size_t len,
				       uint32_t flags);


/**
 * Whether the data of RDMA operations with the port holding @p lid may be
 * placed directly now instead of travelling in packets: that port is
 * reached through its ring, and nothing captures packets or injects loss
 * or delay on this fabric. Both ends ask: the sender before it sends a
 * SOFT_FABRIC_DIRECT packet, its receiver before it reaches into the
 * sender's memory (process_vm_readv(2)), so that the process it reaches
 * into is the one the registry names for the packet's SLID, never one a
 * packet names.
 * @param port the asking port. @param lid the other port's LID, host order.
 * @return the process holding @p lid, or 0 if data must travel in packets.
 */
int32_t soft_fabric_direct_pid(soft_fabric_port_t *port, uint16_t lid);

/**
 * Tells whether a packet of @p len bytes sent to @p dlid now would find room
 * at its receiver (its ring is not too full). A sender that can wait (a
 * responder pacing a long read response) asks before each packet rather
 * than have packets dropped; another sender may take the room meanwhile.
 * @param port the sending port. @param dlid the destination LID, host order.
 * @param len the packet's length.
 * @return TRUE if it fits, or if @p dlid has no ring (the send decides).
 */
boolean_t soft_fabric_room(soft_fabric_port_t *port, uint16_t dlid, size_t len);

/**
 * The flags the packet soft_fabric_recv() or soft_fabric_poll() returned last
 * came with (SOFT_FABRIC_NO_CRC: its CRCs were not computed: do not check
 * them; SOFT_FABRIC_DIRECT: see there). Only packets taken from the port's
 * ring carry flags. Only the thread that received it may ask.
 * @param port the port. @return the flags.
 */
uint32_t soft_fabric_rx_flags(const soft_fabric_port_t *port);

/**
 * Sends a packet to the port holding @p dest_lid, whatever the DLID of its
 * LRH (directed-route SMPs carry the permissive DLID 0xFFFF). Injection,
 * capture and delay apply as for soft_fabric_send.
 * @param port the sending port.
 * @param dest_lid unicast LID of the receiving port, host order.
 * @param pkt the packet, LRH through VCRC.
 * @param len its length, SOFT_FABRIC_MIN_PACKET..SOFT_FABRIC_MAX_PACKET.
 * @return IB_SUCCESS (also when the packet was dropped); IB_INVALID_LID if
 * @p dest_lid is not a unicast LID; IB_INVALID_PARAMETER as soft_fabric_send.
 */
ib_api_status_t soft_fabric_send_to(soft_fabric_port_t *port, uint16_t dest_lid,
				    const void *pkt, size_t len);

/**
 * Takes the next packet that reached the port, without waiting: from its
 * ring first, then datagrams on its socket (doorbells are discarded). When
 * nothing waits, the port is armed (soft_fabric_port_arm()), so that its
 * socket becomes readable when a packet comes.
 * @param port the receiving port.
 * @param buf where to copy the packet.
 * @param cap size of @p buf; SOFT_FABRIC_MAX_PACKET holds any packet.
 * @param p_len receives the packet's length.
 * @return IB_SUCCESS; IB_NOT_FOUND if no packet is waiting; IB_OVERFLOW if
 * the packet was longer than @p cap (it is discarded, counted in
 * rx_truncated, and *@p p_len tells its length); IB_INVALID_PARAMETER if a
 * pointer is NULL; IB_ERROR if the socket failed.
 */
ib_api_status_t soft_fabric_recv(soft_fabric_port_t *port, void *buf, size_t cap, size_t *p_len);

/**
 * soft_fabric_recv() without arming, and without a system call for an empty
 * socket but once in 1024 empty polls: for a receiver that polls on (spins)
 * before it sleeps, and arms with soft_fabric_port_arm() only then.
 * @return as soft_fabric_recv().
 */
ib_api_status_t soft_fabric_poll(soft_fabric_port_t *port, void *buf, size_t cap, size_t *p_len);

/**
 * soft_fabric_poll() of the port's ring only: never reads its socket, so
 * that a doorbell meant for a receiver sleeping on the socket stays there
 * to wake it. For threads that take packets besides that receiver (an
 * application polling its CQ); datagrams wait for the receiver.
 * @return as soft_fabric_recv(); IB_NOT_FOUND for a port without a ring.
 */
ib_api_status_t soft_fabric_poll_ring(soft_fabric_port_t *port, void *buf, size_t cap,
				      size_t *p_len);

/**
 * Whether soft_fabric_poll_ring() would find a packet now, without a lock
 * or a copy (a hint: see soft_ring_ready()). For a poller that would
 * otherwise take its CA's receive lock to find nothing.
 * @param port the port. @return TRUE if a packet waits in its ring.
 */
boolean_t soft_fabric_ring_ready(const soft_fabric_port_t *port);

/**
 * Copies the first bytes of the packet soft_fabric_poll_ring() would take
 * next, without taking it (a hint: see soft_ring_peek()).
 * @param port the port. @param dst receives at most @p n bytes.
 * @param n their number.
 * @return bytes copied: 0 if no packet waits in the port's ring.
 */
size_t soft_fabric_ring_peek(const soft_fabric_port_t *port, void *dst, size_t n);

/**
 * Says that the port's receiver is about to wait on its socket, so that the
 * next sender rings it; checks the ring once more after saying so.
 * @param port the port.
 * @return IB_SUCCESS: nothing waits, the receiver may sleep; IB_NOT_DONE: a
 * packet waits (not armed); IB_PENDING: a sender is writing a packet (not
 * armed: poll again within a few milliseconds); IB_INVALID_PARAMETER for NULL.
 */
ib_api_status_t soft_fabric_port_arm(soft_fabric_port_t *port);

/**
 * Says that the port's receiver is awake again (senders stop ringing it).
 * @param port the port (NULL ignored).
 */
void soft_fabric_port_disarm(soft_fabric_port_t *port);

/**
 * Attaches a port to a multicast group, so that packets to @p mlid reach it.
 * Attaching twice is the same as once.
 * @param port the port.
 * @param mlid the multicast LID, 0xC000..0xFFFE, host order.
 * @return IB_SUCCESS; IB_INVALID_LID if @p mlid is not a multicast LID;
 * IB_INSUFFICIENT_RESOURCES if the port is attached to SOFT_FABRIC_MAX_MCAST
 * groups; IB_INVALID_PORT_STATE if the port lost its registration (its socket
 * file was removed and another process reclaimed the LID); IB_ERROR if the
 * registry could not be locked.
 */
ib_api_status_t soft_fabric_mcast_attach(soft_fabric_port_t *port, uint16_t mlid);

/**
 * Detaches a port from a multicast group.
 * @param port the port.
 * @param mlid the multicast LID, host order.
 * @return IB_SUCCESS; IB_NOT_FOUND if the port was not attached to it;
 * IB_INVALID_LID, IB_INVALID_PORT_STATE, IB_ERROR as soft_fabric_mcast_attach.
 */
ib_api_status_t soft_fabric_mcast_detach(soft_fabric_port_t *port, uint16_t mlid);

/**
 * Finds the LID of a live port of the fabric @p port is on, by port GUID.
 * @param port any open port (names the fabric).
 * @param port_guid the port GUID, network order.
 * @param p_lid receives the LID, host order.
 * @return IB_SUCCESS; IB_NOT_FOUND if no live port has that GUID;
 * IB_INVALID_PARAMETER if a pointer is NULL; IB_ERROR if the registry could
 * not be locked.
 */
ib_api_status_t soft_fabric_lid_by_guid(soft_fabric_port_t *port, ib_net64_t port_guid,
					uint16_t *p_lid);

/**
 * Finds the LID of a live port by its GID: the subnet prefix must be the
 * fabric's (the default, fe80::/64) and the interface ID is the port GUID.
 * @param port any open port (names the fabric).
 * @param p_gid the GID.
 * @param p_lid receives the LID, host order.
 * @return IB_SUCCESS; IB_NOT_FOUND if the prefix is not the fabric's or no
 * live port has that GUID; IB_INVALID_PARAMETER if a pointer is NULL;
 * IB_ERROR if the registry could not be locked.
 */
ib_api_status_t soft_fabric_lid_by_gid(soft_fabric_port_t *port, const ib_gid_t *p_gid,
				       uint16_t *p_lid);

/**
 * Describes the live port holding a LID.
 * @param port any open port (names the fabric).
 * @param lid a unicast LID, host order.
 * @param p_info receives the description.
 * @return IB_SUCCESS; IB_NOT_FOUND if no live port holds @p lid;
 * IB_INVALID_LID if @p lid is not a unicast LID; IB_INVALID_PARAMETER if a
 * pointer is NULL; IB_ERROR if the registry could not be locked.
 */
ib_api_status_t soft_fabric_port_by_lid(soft_fabric_port_t *port, uint16_t lid,
					soft_fabric_port_info_t *p_info);

/**
 * Lists the live ports of the fabric in increasing LID order, reclaiming the
 * records of dead ones on the way.
 * @param port any open port (names the fabric).
 * @param p_info array receiving up to @p cap descriptions (may be NULL if
 * @p cap is 0).
 * @param cap number of elements of @p p_info.
 * @param p_count receives the number of live ports.
 * @return IB_SUCCESS; IB_INSUFFICIENT_MEMORY if there are more than @p cap
 * live ports (the first @p cap are filled and *@p p_count tells how many
 * there are); IB_INVALID_PARAMETER if @p port or @p p_count is NULL, or
 * @p p_info is NULL with @p cap > 0; IB_ERROR if the registry could not be
 * locked.
 */
ib_api_status_t soft_fabric_port_list(soft_fabric_port_t *port, soft_fabric_port_info_t *p_info,
				      size_t cap, size_t *p_count);

/**
 * Installs the process-wide drop filter (test hook), replacing any previous
 * one. When this returns, the previous filter is not running and will not
 * be called again.
 * @param pfn_filter the filter; NULL removes it.
 * @param context passed to it.
 */
void soft_fabric_set_drop_filter(soft_fabric_drop_fn_t pfn_filter, void *context);

#ifdef __cplusplus
}
#endif

#endif /* SOFT_FABRIC_H */
