/*
 * ibal soft provider: private declarations shared by the soft fabric's files.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#ifndef SOFT_FABRIC_INT_H
#define SOFT_FABRIC_INT_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <complib/cl_event.h>
#include <complib/cl_mutex.h>
#include <complib/cl_qlist.h>
#include <complib/cl_thread.h>
#include "soft_fabric.h"
#include "soft_pcap.h"
#include "soft_ring.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* Functions shared between the fabric's files, never exported. */
#define SOFT_PRIVATE __attribute__((visibility("hidden")))

/* ---- Registry file layout (shared by every process of the fabric) ---- */

#define SOFT_REG_FILE "registry"
#define SOFT_REG_MAGIC 0x3142414642414C49ull /* "ILABFAB1" read little endian */
#define SOFT_REG_VERSION 1u
#define SOFT_REG_HDR_SIZE 4096u
#define SOFT_REG_NRECS 0xC000u /* one record per LID 0..0xBFFF; record 0 unused */

/* Room for the path template of a capture started by the inspector. */
#define SOFT_REG_CAPTURE_PATH 1024u

#define SOFT_REC_FREE 0u
#define SOFT_REC_ACTIVE 1u

/* soft_reg_rec_t.flags: the LID belongs to the port GUID of the record (a
 * node of the fabric service's topology); a FREE record with this flag
 * keeps port_guid, node_guid and port_num and is given to that GUID only. */
#define SOFT_RECF_RESERVED 1u

typedef struct soft_reg_hdr {
	uint64_t magic;
	uint32_t version;
	uint32_t hdr_size;
	uint32_t rec_size;
	uint32_t n_recs;
	uint32_t hwm;             /* highest LID ever assigned; scans stop there */
	uint32_t reserved0;
	uint64_t gen;             /* bumped at every assignment; names it */
	ib_net64_t subnet_prefix; /* GID prefix of the fabric's ports */
	/* The master SM as it last described itself (soft_fabric_sm_publish;
	 * zero in a registry no SM wrote): for the inspector only. */
	int32_t sm_pid;
	uint16_t sm_lid;
	uint8_t sm_priority;
	uint8_t sm_reserved;
	ib_net64_t sm_guid;
	uint64_t sm_sweeps;
	uint64_t sm_since;        /* when it became master (CLOCK_REALTIME seconds) */
	/* Capture of the running fabric (soft_fabric_view_capture_set): each
	 * process compares capture_gen with its own copy at every send and,
	 * when it changed, opens capture_path (`%p`: its PID) or stops. */
	uint64_t capture_gen;     /* atomic; written last, with release order */
	uint32_t capture_on;
	uint32_t capture_linktype; /* SOFT_PCAP_LINKTYPE_ERF or _INFINIBAND */
	char capture_path[SOFT_REG_CAPTURE_PATH];
	uint8_t pad[SOFT_REG_HDR_SIZE - 96 - SOFT_REG_CAPTURE_PATH];
} soft_reg_hdr_t;

typedef struct soft_reg_rec {
	uint32_t state; /* SOFT_REC_FREE or SOFT_REC_ACTIVE */
	uint16_t lid;
	uint8_t port_num;
	uint8_t n_mcast;
	int32_t owner_pid;
	uint32_t flags;       /* SOFT_RECF_* */
	uint64_t owner_start; /* start time of owner_pid (clock ticks since boot), 0 if unknown */
	uint64_t gen;         /* soft_reg_hdr_t.gen of the assignment */
	ib_net64_t port_guid;
	ib_net64_t node_guid;
	uint16_t mlid[SOFT_FABRIC_MAX_MCAST];
} soft_reg_rec_t;

/* ---- Per-process objects ---- */

/* Settings read from the environment when the fabric object is created. */
typedef struct soft_fab_cfg {
	double drop_pct;
	uint64_t seed;
	uint32_t delay_us;
} soft_fab_cfg_t;

/* Another port's ring as this process maps it (soft_fabric_link.c). */
typedef struct soft_peer {
	uint16_t lid;         /* the LID it was found at */
	uint64_t gen;         /* the registry generation it was found with */
	int32_t pid;          /* the process holding it then */
	soft_ring_t ring;     /* hdr NULL: the port has no ring (socket only) */
	uint64_t expires_ns;  /* ring-less entries are looked up again after this (atomic) */
	uint64_t checked_ns;  /* last liveness check after a full ring (under peer_lock) */
	struct soft_peer *next_retired; /* in soft_fabric_t.retired (under peer_lock) */
	boolean_t hollow;     /* retired and its ring hollowed (under peer_lock) */
} soft_peer_t;

/* A packet waiting in the delay queue. */
typedef struct soft_delayed {
	cl_list_item_t item;
	soft_fabric_port_t *port;
	uint64_t due_ns;
	uint16_t dest_lid; /* the DLID to route by (or the explicit destination) */
	boolean_t explicit_dest;
	uint32_t flags;
	size_t len;
	uint8_t data[];
} soft_delayed_t;

/* One fabric directory as seen by one process; shared by its ports there. */
typedef struct soft_fabric {
	struct soft_fabric *next; /* in the process's list (under the list lock) */
	unsigned refs;            /* ports using it (under the list lock) */
	pid_t pid;                /* process that created it (fork detection) */
	uint64_t self_start;      /* that process's start time */
	char dir[PATH_MAX];
	struct sockaddr_un sa_proto; /* "<dir>/lid-" ready for the LID digits */
	size_t sa_prefix_len;

	/* The registry: this process's accesses are serialized by reg_lock,
	 * those of all processes by flock on reg_fd. */
	cl_mutex_t reg_lock;
	int reg_fd;
	soft_reg_hdr_t *hdr;
	soft_reg_rec_t *recs;
	size_t map_len;

	soft_fab_cfg_t cfg;
	soft_pcap_t *pcap;        /* $IBAL_SOFT_PCAP's, for the fabric object's life */

	/* The capture the registry asks for (soft_fabric_capture.c): live_pcap
	 * is replaced under live_lock held for writing, used under it held for
	 * reading; live_gen is the registry's capture_gen it follows (atomic). */
	pthread_rwlock_t live_lock;
	soft_pcap_t *live_pcap;   /* atomic pointer */
	uint64_t live_gen;

	/* Peers' rings by LID (soft_fabric_link.c), allocated at the first send:
	 * read without a lock (atomic pointers), changed under peer_lock; an
	 * entry replaced goes to `retired`, freed only with the fabric. */
	pthread_mutex_t peer_lock;
	soft_peer_t **peers;
	soft_peer_t *retired;

	/* Delay queue: FIFO of soft_delayed_t, due times increasing. */
	cl_mutex_t q_lock;    /* guards delay_q, delay_running, delay_stop */
	cl_mutex_t send_lock; /* held by the delay thread while it sends */
	cl_qlist_t delay_q;
	cl_event_t delay_ev;
	cl_thread_t delay_thread;
	boolean_t delay_running;
	boolean_t delay_stop;
} soft_fabric_t;

struct soft_fabric_port {
	soft_fabric_t *fab;
	int fd;
	uint16_t lid;
	uint16_t want_lid; /* the LID the port must have (0: any), for soft_reg_attach */
	uint8_t port_num;
	uint64_t gen; /* registry generation of our record */
	ib_net64_t port_guid;
	ib_net64_t node_guid;
	uint64_t rng_key;
	uint64_t rng_ctr; /* atomic */
	soft_ring_t ring; /* the port's receive ring (consumer side) */
	uint64_t ring_seen_drops; /* ring.dropped already added to the stats */
	uint32_t empty_polls;     /* soft_fabric_poll's empty polls since it looked at the socket */
	uint32_t rx_flags;        /* flags of the packet received last */
	soft_fabric_stats_t *stats; /* &own_stats, or in the ring's header for the inspector */
	soft_fabric_stats_t own_stats; /* fields updated atomically */
};

/* ---- soft_fabric_registry.c ---- */

/* Opens (creating and initializing it if needed) and maps the registry of fab->dir. */
SOFT_PRIVATE ib_api_status_t soft_reg_open(soft_fabric_t *fab);
SOFT_PRIVATE void soft_reg_close(soft_fabric_t *fab);
/* Whether fab->dir still holds the registry fab mapped (same file). */
SOFT_PRIVATE boolean_t soft_reg_intact(const soft_fabric_t *fab);
/* Serializes against every other registry user, in and out of this process. */
SOFT_PRIVATE ib_api_status_t soft_reg_lock(soft_fabric_t *fab);
SOFT_PRIVATE void soft_reg_unlock(soft_fabric_t *fab);
/* Under the lock: TRUE if the holder of lid's record still exists (nothing freed). */
SOFT_PRIVATE boolean_t soft_reg_holder_alive(const soft_fabric_t *fab, uint16_t lid);
/* Under the lock: TRUE if the record's holder still exists (frees it otherwise). */
SOFT_PRIVATE boolean_t soft_reg_check_live(soft_fabric_t *fab, uint16_t lid);
/* Under the lock: chooses a LID for port_guid (port->want_lid if not 0), binds fd there and records it. */
SOFT_PRIVATE ib_api_status_t soft_reg_attach(soft_fabric_t *fab, soft_fabric_port_t *port);
/* Under the lock: removes the port's record and socket file if still its own. */
SOFT_PRIVATE void soft_reg_detach(soft_fabric_t *fab, soft_fabric_port_t *port);
/* Lock held: moves port's record and socket file to new_lid (which must
 * be free); IB_RESOURCE_BUSY when a live port holds it. */
SOFT_PRIVATE ib_api_status_t soft_reg_move(soft_fabric_t *fab, soft_fabric_port_t *port,
					   uint16_t new_lid);
/* Takes the lock: frees the record of lid if its holder is gone. */
SOFT_PRIVATE void soft_reg_reclaim(soft_fabric_t *fab, uint16_t lid);
/* Under the lock: the port's own record, or NULL if it lost it. */
SOFT_PRIVATE soft_reg_rec_t *soft_reg_own_rec(soft_fabric_t *fab, const soft_fabric_port_t *port);
/* Takes the lock: collects up to cap members of mlid with LIDs >= *p_next
 * into out; *p_next becomes the LID to resume from (0 when the scan is done). */
SOFT_PRIVATE size_t soft_reg_mcast_members(soft_fabric_t *fab, uint16_t mlid, uint16_t *p_next,
					   uint16_t *out, size_t cap);
/* Fills *sa with the socket address of lid; returns its length. */
SOFT_PRIVATE socklen_t soft_reg_sockaddr(const soft_fabric_t *fab, uint16_t lid,
					 struct sockaddr_un *sa);
/* Start time of a process (field 22 of /proc/<pid>/stat); 0 if unknown. */
SOFT_PRIVATE uint64_t soft_proc_start_time(pid_t pid);

/* Fills out with "<dir>/ring-<port GUID in hex>". */
SOFT_PRIVATE void soft_reg_ring_path(const soft_fabric_t *fab, ib_net64_t port_guid, char *out,
				     size_t cap);

/* ---- soft_fabric_link.c ---- */

/* Places one packet at the port holding lid (its ring, else its socket), or
 * counts why not. IB_RESOURCE_BUSY: the ring was full and @p flags has
 * SOFT_FABRIC_TELL_FULL (the packet is the sender's again, not counted as
 * dropped); else IB_SUCCESS, delivered or dropped. */
SOFT_PRIVATE ib_api_status_t soft_link_deliver(soft_fabric_port_t *port, uint16_t lid,
					       const void *pkt, size_t len, uint32_t flags);
/* Forgets every peer mapping (fabric teardown). */
SOFT_PRIVATE void soft_link_free_all(soft_fabric_t *fab);
/* Releases the files of replaced peers' rings that a port of this process
 * mapped until now (port close). */
SOFT_PRIVATE void soft_link_sweep(soft_fabric_t *fab);
/* Counts why a datagram could not be sent to lid (reclaiming a dead holder). */
SOFT_PRIVATE void soft_link_count_failure(soft_fabric_port_t *port, uint16_t lid, int err);

/* ---- soft_fabric_xfer.c ---- */

/* Nothing observes or perturbs packets on fab (no capture, loss, delay or drop filter). */
SOFT_PRIVATE boolean_t soft_link_plain(const soft_fabric_t *fab);

/* Stops the delay thread and frees what it still held (fabric teardown). */
SOFT_PRIVATE void soft_delay_shutdown(soft_fabric_t *fab);
/* Discards the port's delayed packets and waits out a send of one (port close). */
SOFT_PRIVATE void soft_delay_purge(soft_fabric_t *fab, soft_fabric_port_t *port);
/* The key of a port's drop decisions. */
SOFT_PRIVATE uint64_t soft_rng_key(uint64_t seed, ib_net64_t port_guid, uint8_t port_num);

/* ---- soft_fabric_capture.c ---- */

/* The capture a packet sent now goes to, or NULL; when not NULL, fab->live_lock
 * may be held for reading: release with soft_capture_put(fab, pcap). */
SOFT_PRIVATE soft_pcap_t *soft_capture_get(soft_fabric_t *fab);
SOFT_PRIVATE void soft_capture_put(soft_fabric_t *fab, soft_pcap_t *pcap);
/* Whether any capture is on (the environment's or the registry's). */
SOFT_PRIVATE boolean_t soft_capture_any(const soft_fabric_t *fab);
/* Closes the registry's capture (fabric teardown). */
SOFT_PRIVATE void soft_capture_free(soft_fabric_t *fab);

/* ---- soft_fabric.c ---- */

/* The canonical path of a fabric directory: @p path, else $IBAL_SOFT_FABRIC,
 * else the default; created (mode 0700) if @p create, else IB_NOT_FOUND when
 * missing; IB_INVALID_SETTING when it is not a directory its user alone may write. */
SOFT_PRIVATE ib_api_status_t soft_fabric_resolve_dir(const char *path, boolean_t create, char *out);
/* A fabric object for dir that no port uses and the process's list does not
 * hold (the inspector's view); freed with soft_fabric_free. */
SOFT_PRIVATE ib_api_status_t soft_fabric_create(const char *dir, soft_fabric_t **pp_fab);
SOFT_PRIVATE void soft_fabric_free(soft_fabric_t *fab);

/* This process's object for the fabric directory of the environment, one more reference. */
SOFT_PRIVATE ib_api_status_t soft_fabric_get(soft_fabric_t **pp_fab);
/* Drops a reference taken by soft_fabric_get (the last one frees the object). */
SOFT_PRIVATE void soft_fabric_put(soft_fabric_t *fab);

/* Registry lock held, the port's GUID free: creates its receive ring (a
 * warning and no ring if that fails: peers then send it datagrams). */
SOFT_PRIVATE void soft_fabric_ring_create(soft_fabric_port_t *port);
/* A non-blocking, close-on-exec datagram socket with a large send buffer; -1 on failure. */
SOFT_PRIVATE int soft_fabric_new_socket(void);

/* Atomic counter helpers for the port statistics. */
#define SOFT_STAT_ADD(port, field, v) \
	__atomic_fetch_add(&(port)->stats->field, (uint64_t)(v), __ATOMIC_RELAXED)

#endif
