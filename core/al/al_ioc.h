/*
 * ibal access layer: local I/O controllers, their service entries and the per-CA I/O unit registry, private.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file al_ioc.h
 * @brief The objects behind ib_ioc_handle_t and ib_svc_handle_t, and the
 * process-wide registry of I/O units that the device management (DM) agent
 * serves (al_dm_agent.c).
 *
 * Model (IBA vol. 1, 16.3):
 *  - a node's channel adapter is one I/O unit (IOU); its GUID is the CA's
 *    node GUID. The registry keeps one al_iou_t per CA GUID while at least
 *    one IOC exists on that CA, whichever AL instance created it.
 *  - an IOC (al_ioc_t, AL_HDL_IOC) is a child of the al_ca_t it was
 *    created on (ib_create_ioc()), so it dies with that CA handle or its AL
 *    instance. It holds a copy of the caller's IOControllerProfile whose
 *    num_svc_entries the access layer keeps equal to its number of service
 *    entries. It occupies no slot until ib_reg_ioc(), which gives it the
 *    lowest free slot 1..AL_IOU_MAX_SLOTS; it keeps that slot until it is
 *    destroyed (the slot then reads IOC_NOT_INSTALLED and may be reused).
 *  - a service entry (al_svc_entry_t, AL_HDL_SVC_ENTRY) is a child of its
 *    IOC; entries are numbered 0..n-1 in the order they were added, and
 *    removing one renumbers those after it (the DM answers reflect the
 *    current table, the change ID tells initiators to read it again).
 *  - the IOU's change ID (IOUnitInfo.ChangeID) is incremented on every
 *    change an initiator can see: an IOC registered or destroyed while
 *    registered, and a service entry added to or removed from a registered
 *    IOC. Changes to unregistered IOCs are invisible and do not count.
 *
 * While an IOU has at least one registered IOC, the DM agent answers the
 * DevMgt class on QP1 of every port of the CA and sets the ports'
 * IsDeviceManagementSupported capability; al_ioc.c calls
 * al_dm_agent_start() for each IOC it registers (before the IOC takes its
 * slot) and al_dm_agent_stop() for each registered IOC destroyed, with no
 * lock held; the agent counts them and runs while the count is not 0.
 * ib_close_al() waits for the agents that ended to be gone
 * (al_dm_agent_quiesce(), the DM agent's al_closed as a client of the
 * core: al_client.h).
 *
 * Reading: the al_iou_get_*() functions copy what the DM agent answers
 * under the registry's lock, so each result is consistent in itself
 * (IOUnitInfo with its change ID; a profile with its num_svc_entries; a
 * range of entries). Across calls, the change ID tells whether anything
 * moved in between.
 *
 * Thread safety: every function may be called from any thread, AL callback
 * threads included. One mutex (a leaf: nothing is called with it held)
 * guards the registry, every IOU, IOC slot and service entry list.
 */
#ifndef AL_IOC_H
#define AL_IOC_H

#include <iba/ib_al.h>
#include <complib/cl_qlist.h>
#include "al_obj.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Class version of the DevMgt class the agent implements (IBA 16.3.1). */
#define AL_DM_CLASS_VERSION 1

/**
 * Slots of an I/O unit: IOCs take slots 1..AL_IOU_MAX_SLOTS, and
 * IOUnitInfo.MaxControllers reports this number. A slot number is 8 bits
 * wide in the ServiceEntries attribute modifier, so 255 is the most the
 * specification allows (the 256th nibble of ControllerList reads
 * SLOT_DOES_NOT_EXIST). ib_reg_ioc() fails with IB_INSUFFICIENT_RESOURCES
 * when every slot is taken.
 */
#define AL_IOU_MAX_SLOTS 255

/**
 * Service entries of one IOC: IOControllerProfile.ServiceEntries is 8 bits
 * wide, so at most MAX_NUM_SVC_ENTRIES (255), numbered 0..254.
 * ib_add_svc_entry() fails with IB_INSUFFICIENT_RESOURCES beyond it.
 */
#define AL_IOC_MAX_SVC_ENTRIES MAX_NUM_SVC_ENTRIES

struct _al_iou;

/** A local I/O controller: the object behind ib_ioc_handle_t. */
typedef struct _al_ioc {
	al_obj_t obj;               /**< Base; type AL_HDL_IOC; child of the al_ca_t. */
	ib_net64_t ca_guid;         /**< GUID of its CA (the IOU's key). */
	struct _al_iou *p_iou;      /**< Its IOU (registry lock); counts it while set. */
	ib_ioc_profile_t profile;   /**< The profile; num_svc_entries kept current (registry lock). */
	cl_qlist_t svc_list;        /**< al_svc_entry_t::item, in entry order (registry lock). */
	uint8_t slot;               /**< 1..AL_IOU_MAX_SLOTS once registered; 0 before (registry lock). */
	boolean_t gone;             /**< Being destroyed: refuses new entries (registry lock). */
} al_ioc_t;

/** A service entry of a local IOC: the object behind ib_svc_handle_t. */
typedef struct _al_svc_entry {
	al_obj_t obj;               /**< Base; type AL_HDL_SVC_ENTRY; child of the al_ioc_t. */
	al_ioc_t *p_ioc;            /**< Its IOC (the parent). */
	cl_list_item_t item;        /**< On p_ioc->svc_list while listed (registry lock). */
	boolean_t listed;           /**< On the list (registry lock). */
	ib_svc_entry_t entry;       /**< Name and ServiceID, as given. */
} al_svc_entry_t;

/** The I/O unit of one CA, while IOCs exist on it. */
typedef struct _al_iou {
	cl_list_item_t item;        /**< On the registry's list. */
	ib_net64_t ca_guid;         /**< The CA (and IOU) GUID. */
	uint32_t n_ioc;             /**< IOCs created on the CA (registered or not). */
	uint32_t n_reg;             /**< IOCs registered (slots taken). */
	uint16_t change_id;         /**< IOUnitInfo.ChangeID, host order. */
	al_ioc_t *slots[AL_IOU_MAX_SLOTS + 1]; /**< slots[s]: IOC in slot s, or NULL; [0] unused. */
} al_iou_t;

/* ---- Registry reads (al_ioc.c), used by the DM agent ---- */

/**
 * Number of registered IOCs of a CA.
 * @param ca_guid the CA GUID.
 * @return the count; 0 when the CA has none (or no IOU).
 */
uint32_t al_iou_reg_count(IN ib_net64_t ca_guid);

/**
 * Copies the IOUnitInfo the DM agent reports for a CA: the change ID,
 * MaxControllers (AL_IOU_MAX_SLOTS), DiagDeviceID and OptionROM 0, and the
 * ControllerList (IOC_INSTALLED for a registered IOC's slot,
 * IOC_NOT_INSTALLED for a free one, SLOT_DOES_NOT_EXIST past the last).
 * @param ca_guid the CA GUID.
 * @param p_info receives the attribute, in wire format.
 * @return IB_SUCCESS; IB_INVALID_PARAMETER when @p p_info is NULL;
 *         IB_NOT_FOUND when the CA has no IOU (no IOC was created on it, or
 *         all are gone).
 */
ib_api_status_t al_iou_get_info(IN ib_net64_t ca_guid, OUT ib_iou_info_t *p_info);

/**
 * Copies the IOControllerProfile of the IOC in a slot.
 * @param ca_guid the CA GUID.
 * @param slot the slot, 1..AL_IOU_MAX_SLOTS.
 * @param p_profile receives the profile, num_svc_entries current.
 * @return IB_SUCCESS; IB_INVALID_PARAMETER when @p p_profile is NULL or
 *         @p slot is 0 or above AL_IOU_MAX_SLOTS; IB_NOT_FOUND when no
 *         registered IOC is in the slot (or the CA has no IOU).
 */
ib_api_status_t al_iou_get_profile(IN ib_net64_t ca_guid, IN uint32_t slot,
				   OUT ib_ioc_profile_t *p_profile);

/**
 * Copies service entries first..last of the IOC in a slot, as the
 * ServiceEntries attribute carries them (IBA 16.3.3.5).
 * @param ca_guid the CA GUID.
 * @param slot the slot, 1..AL_IOU_MAX_SLOTS.
 * @param first the first entry (0-based).
 * @param last the last entry; last - first must be 0..3.
 * @param p_entries receives last - first + 1 entries (the rest of the
 *        attribute is zeroed).
 * @return IB_SUCCESS; IB_INVALID_PARAMETER when @p p_entries is NULL or
 *         @p slot is 0 or above AL_IOU_MAX_SLOTS; IB_NOT_FOUND when no
 *         registered IOC is in the slot; IB_INVALID_INDEX when last <
 *         first, last - first > 3, or last is not below the IOC's number of
 *         entries (the DM answers IB_DM_MAD_STATUS_NO_SVC_ENTRIES then).
 */
ib_api_status_t al_iou_get_svc_entries(IN ib_net64_t ca_guid, IN uint32_t slot, IN uint8_t first,
				       IN uint8_t last, OUT ib_svc_entries_t *p_entries);

/* ---- The DM agent (al_dm_agent.c), called by al_ioc.c ---- */

/**
 * Starts serving a CA's I/O unit: a DevMgt MAD service on QP1 of each of
 * its ports and their IsDeviceManagementSupported capability. Called for
 * each IOC registered, with no lock held; a CA already served counts one
 * more start.
 * @param ca_guid the CA GUID.
 * @return IB_SUCCESS; IB_INSUFFICIENT_MEMORY; or the status of opening the
 *         CA or its QP1 services (then nothing is started).
 */
ib_api_status_t al_dm_agent_start(IN ib_net64_t ca_guid);

/**
 * Undoes one al_dm_agent_start(); the last clears the capability bit and
 * ends the CA's MAD services, on a thread of its own (so that it may be
 * called from AL callback threads). al_dm_agent_quiesce() waits for it.
 * @param ca_guid the CA GUID.
 */
void al_dm_agent_stop(IN ib_net64_t ca_guid);

/**
 * Waits until every stopped agent has finished ending (for ib_close_al()
 * paths and tests that count memory).
 */
void al_dm_agent_quiesce(void);

/**
 * Number of CAs the DM agent serves now (for tests).
 * @return the count.
 */
uint32_t al_dm_agent_count(void);

#ifdef __cplusplus
}
#endif

#endif /* AL_IOC_H */
