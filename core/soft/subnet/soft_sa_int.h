/*
 * ibal soft provider: what the files of the subnet administrator share (its state, helpers).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file soft_sa_int.h
 * @brief Internals of the SA (soft_sa*.c): the instance, its tables and the
 * helpers the attribute handlers share. Private to soft_sa*.c.
 *
 * Every function here runs with soft_sa_t::lock held (taken by the public
 * entry points of soft_sa.c) unless it says otherwise. The functions shared
 * between the files are named soft_sa_* like the public ones of soft_sa.h;
 * the attribute handlers are soft_sa_h_*.
 */
#ifndef SOFT_SA_INT_H
#define SOFT_SA_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <complib/cl_fleximap.h>
#include <complib/cl_qmap.h>
#include "soft_sa.h"

/** SA class version answered (IBA 15.2.1). */
#define SA_CLASS_VER 2
/** Bytes of SA data carried by one MAD (after the 56 bytes of headers). */
#define SA_SEG_DATA IB_SA_DATA_SIZE
/** SA header (SM_Key, AttributeOffset, ComponentMask) bytes, counted in each RMPP PayloadLength. */
#define SA_HDR_AFTER_RMPP 20
/** First MLID the SA assigns. */
#define SA_MLID_FIRST 0xC000
/** Last MLID the SA assigns (0xFFFF is the permissive LID). */
#define SA_MLID_LAST 0xFFFE
/** PacketLifeTime of every path of the soft fabric (4.096 us * 2^18, about 1 s, as OpenSM's default). */
#define SA_PKT_LIFE 18
/** RMPP: time to wait for an ACK before sending the window again. */
#define SA_RMPP_TIMEOUT_US 200000u
/** RMPP: retransmissions of one window before the transfer is aborted (status TMR). */
#define SA_RMPP_MAX_RETRIES 5u
/** RMPP: transfers in progress at once; beyond that requests get NO_RESOURCES. */
#define SA_RMPP_MAX_XFERS 256u
/** Records one answer may hold; a query matching more is answered NO_RESOURCES. */
#define SA_MAX_RECORDS 100000u
/** ServiceRecords one port may register (then Set answers NO_RESOURCES). */
#define SA_SVC_PER_PORT 1024u
/** The environment variable that changes SA_SVC_PER_PORT. */
#define SOFT_SA_ENV_SVC_PER_PORT "IBAL_SOFT_SA_SVC_PER_PORT"
/** InformInfo subscriptions one port may hold (then Set answers NO_RESOURCES). */
#define SA_SUBS_PER_PORT 256u
/** The environment variable that changes SA_SUBS_PER_PORT. */
#define SOFT_SA_ENV_SUBS_PER_PORT "IBAL_SOFT_SA_SUBS_PER_PORT"
/** Report: retransmissions of one Notice before the SA gives it up. */
#define SA_REPORT_MAX_RETRIES 3u
/** Report: shortest wait for a ReportResp. */
#define SA_REPORT_MIN_TIMEOUT_US 100000u
/** Report: longest wait for a ReportResp. */
#define SA_REPORT_MAX_TIMEOUT_US 4000000u

/** A port the SM told the SA about. */
typedef struct sa_port {
	soft_sa_port_t p;  /**< What the SM pushed. */
	bool in_service;   /**< Trap 64 was raised for it (a CA port that reached ACTIVE). */
} sa_port_t;

/** A registered service (ServiceRecord). */
/** A ServiceRecord's RID (ServiceID, ServiceGID, ServiceP_Key): its key. */
typedef struct sa_svc_rid {
	ib_net64_t service_id;     /**< ServiceID. */
	ib_gid_t gid;              /**< ServiceGID. */
	ib_net16_t pkey;           /**< ServiceP_Key. */
	uint8_t pad[6];            /**< Zero (the key is compared as bytes). */
} sa_svc_rid_t;

/** When a leased record ends, and which one it is: its key in the expiry index. */
typedef struct sa_svc_due {
	uint64_t expire_us;        /**< When the lease ends. */
	uint64_t self;             /**< The record's address (keys are unique). */
} sa_svc_due_t;

typedef struct sa_svc {
	cl_fmap_item_t by_rid;     /**< In soft_sa_t::svc_rid. */
	cl_fmap_item_t by_due;     /**< In soft_sa_t::svc_due while the lease is finite. */
	sa_svc_rid_t rid;          /**< Key of by_rid. */
	sa_svc_due_t due;          /**< Key of by_due. */
	struct sa_svc_count *count; /**< Its port's record count. */
	ib_service_record_t rec;   /**< The record as registered. */
	uint64_t expire_us;        /**< When the lease ends; UINT64_MAX: never. */
} sa_svc_t;

/** How many records a port (by the ServiceGID's interface ID) registered. */
typedef struct sa_svc_count {
	cl_map_item_t item;        /**< In soft_sa_t::svc_counts, by interface ID. */
	uint32_t n;                /**< Records; the entry goes at 0. */
} sa_svc_count_t;

/** A member of a multicast group. */
typedef struct sa_mcm {
	struct sa_mcm *next; /**< Next member of the group. */
	ib_gid_t port_gid;   /**< The member's port GID. */
	uint8_t join_state;  /**< IB_MC_REC_STATE_* bits. */
	bool proxy;          /**< Joined by proxy. */
} sa_mcm_t;

/** A multicast group. */
typedef struct sa_mcg {
	struct sa_mcg *next; /**< Next in soft_sa_t::groups. */
	ib_member_rec_t rec; /**< Group parameters (MGID, Q_Key, MLID, MTU, rate, ...); port_gid/join state unused. */
	sa_mcm_t *members;   /**< Its members. */
} sa_mcg_t;

/** An InformInfo subscription. */
typedef struct sa_sub {
	struct sa_sub *next;    /**< Next in soft_sa_t::subs. */
	ib_gid_t subscriber;    /**< GID of the subscribing port. */
	ib_inform_info_t info;  /**< The InformInfo as set (subscribe bit 1). */
	soft_mad_addr_t addr;   /**< Where its Reports go (LID, QPN of the InformInfo). */
	uint16_t enum_id;       /**< SubscriberEnum of its InformInfoRecord. */
} sa_sub_t;

/** A Report (Notice) waiting for its ReportResp. */
typedef struct sa_report {
	struct sa_report *next;    /**< Next in soft_sa_t::reports. */
	uint8_t mad[MAD_BLOCK_SIZE]; /**< The Report MAD. */
	soft_mad_addr_t dst;       /**< Its destination. */
	uint64_t deadline;         /**< Next retransmission. */
	uint64_t timeout_us;       /**< Wait between tries. */
	unsigned tries;            /**< Retransmissions made. */
} sa_report_t;

/** An RMPP transfer of a response (GetTableResp, GetMultiResp) in progress. */
typedef struct sa_xfer {
	struct sa_xfer *next;          /**< Next in soft_sa_t::xfers. */
	uint8_t hdr[IB_SA_MAD_HDR_SIZE]; /**< Headers of every segment (RMPP fields filled per segment). */
	uint8_t *data;                 /**< Records (after the SA header), len bytes. */
	size_t len;                    /**< Bytes of records. */
	soft_mad_addr_t dst;           /**< The requester. */
	uint32_t nseg;                 /**< Segments in all. */
	uint32_t acked;                /**< Last segment acknowledged. */
	uint32_t win_last;             /**< Last segment the receiver's window allows. */
	uint32_t sent;                 /**< Highest segment sent. */
	unsigned retries;              /**< Timeouts since the last progress. */
	uint64_t deadline;             /**< When the window is sent again. */
} sa_xfer_t;

/** Records collected by a query, all of one size. */
typedef struct sa_recs {
	uint8_t *buf;     /**< n records of size bytes. */
	size_t n;         /**< Records held. */
	size_t cap;       /**< Records buf has room for. */
	size_t size;      /**< Size of a record (a multiple of 8). */
	bool nomem;       /**< An allocation failed. */
} sa_recs_t;

/** The SA instance. */
struct soft_sa {
	pthread_mutex_t lock;       /**< Serializes everything. */
	soft_sa_ops_t ops;          /**< How it sends. */
	uint64_t (*clock)(void *);  /**< Monotonic microseconds (soft_sa_set_clock). */
	void *clock_ctx;            /**< Argument of clock. */
	ib_sm_info_t sm_info;       /**< SMInfo of the master SM. */
	uint16_t sm_lid;            /**< LID of the SM port, host order. */
	sa_port_t *ports;           /**< Ports known. */
	size_t n_ports;             /**< Entries used in ports. */
	size_t cap_ports;           /**< Entries allocated in ports. */
	cl_fmap_t svc_rid;          /**< Service records by RID (sa_svc_t). */
	cl_fmap_t svc_due;          /**< Leased service records by end of lease. */
	cl_qmap_t svc_counts;       /**< Records per port (sa_svc_count_t). */
	uint32_t svc_max;           /**< Records one port may hold (SA_SVC_PER_PORT). */
	uint32_t subs_max;          /**< Subscriptions one port may hold (SA_SUBS_PER_PORT). */
	sa_mcg_t *groups;           /**< Multicast groups. */
	sa_sub_t *subs;             /**< InformInfo subscriptions. */
	sa_report_t *reports;       /**< Reports awaiting ReportResp. */
	sa_xfer_t *xfers;           /**< RMPP transfers. */
	size_t n_xfers;             /**< Entries in xfers. */
	uint64_t next_tid;          /**< Transaction IDs of the SA's own requests (Reports). */
	uint64_t mgid_seq;          /**< Counter of SA-assigned MGIDs (random start). */
	uint16_t sub_enum;          /**< Next SubscriberEnum. */
};

/** A field of a record that a component mask bit selects. */
typedef struct sa_field {
	uint8_t bit;  /**< Component mask bit (0..63). */
	uint8_t off;  /**< Byte offset in the record. */
	uint8_t len;  /**< Length in bytes. */
	uint8_t mask; /**< For len 1: the bits of the byte that belong to the field (0: all). */
} sa_field_t;

/* soft_sa.c */
/** Now, microseconds, from the SA's clock. */
uint64_t soft_sa_now(soft_sa_t *sa);
/** Tells whether every field of @p fields selected by @p comp_mask (host order) matches. */
bool soft_sa_match(const sa_field_t *fields, size_t n, uint64_t comp_mask, const void *req, const void *rec);
/** Starts a record list for records of @p size bytes. */
void soft_sa_recs_init(sa_recs_t *r, size_t size);
/** Appends a copy of @p rec (r->size bytes); false when out of memory or past SA_MAX_RECORDS (r->nomem set). */
bool soft_sa_recs_add(sa_recs_t *r, const void *rec);
/** Frees a record list. */
void soft_sa_recs_free(sa_recs_t *r);
/**
 * Answers a request with collected records: Get (exactly one, else NO_RECORDS
 * or TOO_MANY_RECORDS), GetTable/GetMulti (RMPP), Set/Delete (the first).
 * Frees @p r.
 */
void soft_sa_respond(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src, sa_recs_t *r);
/** Answers a request with an error status and no records. */
void soft_sa_respond_err(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src, ib_net16_t status);
/** Answers with one record of @p size bytes (Set/Delete/Get results). */
void soft_sa_respond_one(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src, const void *rec,
			 size_t size);
/** Sends one MAD to @p dst, with the well-known QP1 Q_Key. */
void soft_sa_send(soft_sa_t *sa, const void *mad, const soft_mad_addr_t *dst);
/** The LID of a port entry (a switch's port 0 LID for its other ports), host order. */
uint16_t soft_sa_port_lid(soft_sa_t *sa, const sa_port_t *e);
/** The port GID of an entry. */
ib_gid_t soft_sa_port_gid(const sa_port_t *e);
/** The entry whose LID range holds @p lid (host order), or NULL. */
sa_port_t *soft_sa_port_by_lid(soft_sa_t *sa, uint16_t lid);
/** The entry with this GID (subnet prefix + port GUID or a GUIDInfo GUID), or NULL. */
sa_port_t *soft_sa_port_by_gid(soft_sa_t *sa, const ib_gid_t *gid);
/** The entry of a node's port, or NULL. */
sa_port_t *soft_sa_port_by_node(soft_sa_t *sa, ib_net64_t node_guid, uint8_t port_num);
/** The GID of the SM's port. */
ib_gid_t soft_sa_sm_gid(soft_sa_t *sa);
/** The port's LMC. */
uint8_t soft_sa_port_lmc(const sa_port_t *e);
/** Link bandwidth of a rate code in 100 Mb/s units, 0 for an unknown code. */
unsigned soft_sa_rate_bw(uint8_t rate);
/**
 * Picks a value for a selector field (IBA 15.2.5.16): among @p cands (in
 * increasing order of merit), the best one not above @p avail that the selector
 * allows. @p merit maps a candidate to an ordered value.
 * @return the value, or 0 when none fits.
 */
uint8_t soft_sa_select(uint8_t sel, uint8_t want, uint8_t avail, bool given, unsigned (*merit)(uint8_t),
		  const uint8_t *cands, size_t n);
/** Merit of an MTU code (its value). */
unsigned soft_sa_mtu_merit(uint8_t mtu);
/** Rate codes in increasing bandwidth (for soft_sa_select). */
extern const uint8_t soft_sa_rate_cands[];
/** Number of entries of soft_sa_rate_cands. */
extern const size_t soft_sa_n_rate_cands;
/** MTU codes 1..5 (for soft_sa_select). */
extern const uint8_t soft_sa_mtu_cands[];
/** The active MTU of a port (NeighborMTU, else MTUCap). */
uint8_t soft_sa_port_mtu(const sa_port_t *e);
/** Tells whether a port's P_Key table holds @p pkey (base 15 bits). */
bool soft_sa_port_has_pkey(const sa_port_t *e, ib_net16_t pkey);

/* soft_sa_records.c */
/** ClassPortInfo. */
void soft_sa_h_class_port_info(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src);
/** NodeRecord. */
void soft_sa_h_node(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src);
/** PortInfoRecord. */
void soft_sa_h_portinfo(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src);
/** LinkRecord. */
void soft_sa_h_link(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src);
/** GUIDInfoRecord. */
void soft_sa_h_guidinfo(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src);
/** P_KeyTableRecord. */
void soft_sa_h_pkey(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src);
/** SMInfoRecord. */
void soft_sa_h_sminfo(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src);

/* soft_sa_path.c */
/** PathRecord. */
void soft_sa_h_path(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src);
/** MultiPathRecord (GetMulti). */
void soft_sa_h_multipath(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src);

/* soft_sa_svc.c */
/** ServiceRecord. */
void soft_sa_h_service(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src);
/** Drops expired leases; returns the next expiry (UINT64_MAX: none). */
uint64_t soft_sa_svc_expire(soft_sa_t *sa, uint64_t now);
/** Drops a port's service records. */
void soft_sa_svc_port_gone(soft_sa_t *sa, const ib_gid_t *gid);
/** Frees all service records. */
void soft_sa_svc_free_all(soft_sa_t *sa);
/** Makes the ServiceRecord indexes and reads their bound (soft_sa_svc.c). */
void soft_sa_svc_init(soft_sa_t *sa);

/* soft_sa_mcast.c */
/** MCMemberRecord. */
void soft_sa_h_mcmember(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src);
/** The group with this MGID, or NULL. */
sa_mcg_t *soft_sa_mcg_find(soft_sa_t *sa, const ib_gid_t *mgid);
/** Drops a port's memberships (groups left without full members go, trap 67). */
void soft_sa_mcast_port_gone(soft_sa_t *sa, const ib_gid_t *gid);
/** Frees all groups. */
void soft_sa_mcast_free_all(soft_sa_t *sa);

/* soft_sa_inform.c */
/** InformInfo (Set). */
void soft_sa_h_inform(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src);
/** InformInfoRecord (Get, GetTable). */
void soft_sa_h_inform_rec(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src);
/**
 * Reports trap 64..67 about @p gid to every subscriber that wants it and may
 * see it (o13-17.1.1): for 64/65 a subscriber sharing a P_Key with @p pkeys
 * (the port's table), for 66/67 one holding @p pkey (the group's).
 */
void soft_sa_notice(soft_sa_t *sa, uint16_t trap, const ib_gid_t *gid, const ib_pkey_table_t *pkeys,
	       ib_net16_t pkey);
/** Tells whether two ports share a P_Key (base 15 bits, not both limited members). */
bool soft_sa_share_pkey(const ib_pkey_table_t *a, const ib_pkey_table_t *b);
/** Takes a ReportResp. */
void soft_sa_report_resp(soft_sa_t *sa, const ib_mad_t *mad, const soft_mad_addr_t *src);
/** Retransmits Reports due; returns the next deadline (UINT64_MAX: none). */
uint64_t soft_sa_report_timer(soft_sa_t *sa, uint64_t now);
/** Drops a port's subscriptions. */
void soft_sa_inform_port_gone(soft_sa_t *sa, const ib_gid_t *gid);
/** Frees subscriptions and pending Reports. */
void soft_sa_inform_free_all(soft_sa_t *sa);

/* soft_sa_rmpp.c */
/**
 * Starts an RMPP transfer of @p len bytes of records after the headers @p hdr
 * (a response whose RMPP fields are filled here); takes @p data (malloc'ed,
 * may be NULL when len is 0).
 * @return false when too many transfers are in progress or out of memory
 * (data freed).
 */
bool soft_sa_rmpp_start(soft_sa_t *sa, const ib_sa_mad_t *hdr, uint8_t *data, size_t len,
		   const soft_mad_addr_t *dst);
/** Takes an RMPP ACK/STOP/ABORT for a transfer in progress. */
void soft_sa_rmpp_recv(soft_sa_t *sa, const ib_sa_mad_t *mad, const soft_mad_addr_t *src);
/** Retransmits and aborts transfers; returns the next deadline (UINT64_MAX: none). */
uint64_t soft_sa_rmpp_timer(soft_sa_t *sa, uint64_t now);
/** Frees all transfers. */
void soft_sa_rmpp_free_all(soft_sa_t *sa);

#endif /* SOFT_SA_INT_H */
