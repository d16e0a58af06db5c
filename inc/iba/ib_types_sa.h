/*
 * ibal: part of ib_types.h (include <iba/ib_types.h>, not this file).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file ib_types_sa.h
 * @brief Part of ib_types.h; include <iba/ib_types.h> instead.
 *
 * Subnet administration (SA) records and their component masks, the
 * ClassPortInfo attribute, the performance management (PerfMgt), device
 * management (DM) and congestion control (CC) attributes, and the inline
 * helpers that read and write their packed bit fields.
 *
 * Every wire structure here is byte-packed; multi-byte fields are in network
 * byte order. Component masks (`IB_*_COMPMASK_*`) are 64-bit constants in
 * network byte order, to be OR-ed into ib_sa_mad_t::comp_mask.
 *
 * Thread safety: the helpers only touch the record passed to them; callers
 * serialize access to a shared record.
 */
#ifndef __IB_TYPES_SA_H__
#define __IB_TYPES_SA_H__

#include <complib/cl_types.h>
#include <complib/cl_byteswap.h>
#include <iba/ib_types_base.h>
#include <iba/ib_types_smp.h>

#ifdef __cplusplus
extern "C" {
#endif

/* clang warns each time cl_packon.h/cl_packoff.h change the packing state. */
#ifdef __clang__
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wpragma-pack"
#endif

/* ------------------------------------------------------------------------ */
/* PathRecord                                                                */
/* ------------------------------------------------------------------------ */

#include <complib/cl_packon.h>
/**
 * PathRecord (IBA 15.2.5.16): the properties of one route between two ports
 * of a subnet. 64 bytes.
 */
typedef struct _ib_path_rec {
	ib_net64_t service_id;   /**< Service ID the path is for (QoS). */
	ib_gid_t dgid;           /**< GID of the destination port. */
	ib_gid_t sgid;           /**< GID of the source port. */
	ib_net16_t dlid;         /**< LID of the destination port. */
	ib_net16_t slid;         /**< LID of the source port. */
	ib_net32_t hop_flow_raw; /**< RawTraffic (bit 31), FlowLabel (bits 27..8), HopLimit (bits 7..0). */
	uint8_t tclass;          /**< Traffic class of the GRH. */
	uint8_t num_path;        /**< Reversible (bit 7); in queries, NumbPath (bits 6..0). */
	ib_net16_t pkey;         /**< Partition key to use on the path. */
	ib_net16_t qos_class_sl; /**< QoSClass (bits 15..4) and SL (bits 3..0). */
	uint8_t mtu;             /**< MTUSelector (bits 7..6) and encoded MTU (bits 5..0). */
	uint8_t rate;            /**< RateSelector (bits 7..6) and encoded rate (bits 5..0). */
	uint8_t pkt_life;        /**< PacketLifeTimeSelector (bits 7..6) and PacketLifeTime (bits 5..0). */
	uint8_t preference;      /**< Merit of this path among those returned; lower is better. */
	uint8_t resv2[6];        /**< Reserved. */
} PACK_SUFFIX ib_path_rec_t;
#include <complib/cl_packoff.h>

/* ------------------------------------------------------------------------ */
/* SA component masks                                                        */
/* ------------------------------------------------------------------------ */

/* PathRecord */
#define IB_PR_COMPMASK_SERVICEID_MSB (CL_HTON64(((uint64_t)1) << 0))     /**< PathRecord: ServiceID, upper half. */
#define IB_PR_COMPMASK_SERVICEID_LSB (CL_HTON64(((uint64_t)1) << 1))     /**< PathRecord: ServiceID, lower half. */
#define IB_PR_COMPMASK_DGID (CL_HTON64(((uint64_t)1) << 2))              /**< PathRecord: DGID. */
#define IB_PR_COMPMASK_SGID (CL_HTON64(((uint64_t)1) << 3))              /**< PathRecord: SGID. */
#define IB_PR_COMPMASK_DLID (CL_HTON64(((uint64_t)1) << 4))              /**< PathRecord: DLID. */
#define IB_PR_COMPMASK_SLID (CL_HTON64(((uint64_t)1) << 5))              /**< PathRecord: SLID. */
#define IB_PR_COMPMASK_RAWTRAFFIC (CL_HTON64(((uint64_t)1) << 6))        /**< PathRecord: RawTraffic. */
#define IB_PR_COMPMASK_RESV0 (CL_HTON64(((uint64_t)1) << 7))             /**< PathRecord: reserved. */
#define IB_PR_COMPMASK_FLOWLABEL (CL_HTON64(((uint64_t)1) << 8))         /**< PathRecord: FlowLabel. */
#define IB_PR_COMPMASK_HOPLIMIT (CL_HTON64(((uint64_t)1) << 9))          /**< PathRecord: HopLimit. */
#define IB_PR_COMPMASK_TCLASS (CL_HTON64(((uint64_t)1) << 10))           /**< PathRecord: TClass. */
#define IB_PR_COMPMASK_REVERSIBLE (CL_HTON64(((uint64_t)1) << 11))       /**< PathRecord: Reversible. */
#define IB_PR_COMPMASK_NUMBPATH (CL_HTON64(((uint64_t)1) << 12))         /**< PathRecord: NumbPath. */
#define IB_PR_COMPMASK_PKEY (CL_HTON64(((uint64_t)1) << 13))             /**< PathRecord: P_Key. */
#define IB_PR_COMPMASK_QOS_CLASS (CL_HTON64(((uint64_t)1) << 14))        /**< PathRecord: QoSClass. */
#define IB_PR_COMPMASK_SL (CL_HTON64(((uint64_t)1) << 15))               /**< PathRecord: SL. */
#define IB_PR_COMPMASK_MTUSELEC (CL_HTON64(((uint64_t)1) << 16))         /**< PathRecord: MTUSelector. */
#define IB_PR_COMPMASK_MTU (CL_HTON64(((uint64_t)1) << 17))              /**< PathRecord: MTU. */
#define IB_PR_COMPMASK_RATESELEC (CL_HTON64(((uint64_t)1) << 18))        /**< PathRecord: RateSelector. */
#define IB_PR_COMPMASK_RATE (CL_HTON64(((uint64_t)1) << 19))             /**< PathRecord: Rate. */
#define IB_PR_COMPMASK_PKTLIFETIMESELEC (CL_HTON64(((uint64_t)1) << 20)) /**< PathRecord: PacketLifeTimeSelector. */
#define IB_PR_COMPMASK_PKTLIFETIME (CL_HTON64(((uint64_t)1) << 21))      /**< PathRecord: PacketLifeTime. */
/** PathRecord: the whole ServiceID (both halves). */
#define IB_PR_COMPMASK_SERVICEID (IB_PR_COMPMASK_SERVICEID_MSB | IB_PR_COMPMASK_SERVICEID_LSB)

/* LinkRecord */
#define IB_LR_COMPMASK_FROM_LID (CL_HTON64(((uint64_t)1) << 0))  /**< LinkRecord: FromLID. */
#define IB_LR_COMPMASK_FROM_PORT (CL_HTON64(((uint64_t)1) << 1)) /**< LinkRecord: FromPort. */
#define IB_LR_COMPMASK_TO_PORT (CL_HTON64(((uint64_t)1) << 2))   /**< LinkRecord: ToPort. */
#define IB_LR_COMPMASK_TO_LID (CL_HTON64(((uint64_t)1) << 3))    /**< LinkRecord: ToLID. */

/* VLArbitrationTableRecord */
#define IB_VLA_COMPMASK_LID (CL_HTON64(((uint64_t)1) << 0))      /**< VLArbitrationTableRecord: LID. */
#define IB_VLA_COMPMASK_OUT_PORT (CL_HTON64(((uint64_t)1) << 1)) /**< VLArbitrationTableRecord: OutputPortNum. */
#define IB_VLA_COMPMASK_BLOCK (CL_HTON64(((uint64_t)1) << 2))    /**< VLArbitrationTableRecord: BlockNum. */

/* SLtoVLMappingTableRecord */
#define IB_SLVL_COMPMASK_LID (CL_HTON64(((uint64_t)1) << 0))      /**< SLtoVLMappingTableRecord: LID. */
#define IB_SLVL_COMPMASK_IN_PORT (CL_HTON64(((uint64_t)1) << 1))  /**< SLtoVLMappingTableRecord: InputPortNum. */
#define IB_SLVL_COMPMASK_OUT_PORT (CL_HTON64(((uint64_t)1) << 2)) /**< SLtoVLMappingTableRecord: OutputPortNum. */

/* P_KeyTableRecord */
#define IB_PKEY_COMPMASK_LID (CL_HTON64(((uint64_t)1) << 0))   /**< P_KeyTableRecord: LID. */
#define IB_PKEY_COMPMASK_BLOCK (CL_HTON64(((uint64_t)1) << 1)) /**< P_KeyTableRecord: BlockNum. */
#define IB_PKEY_COMPMASK_PORT (CL_HTON64(((uint64_t)1) << 2))  /**< P_KeyTableRecord: PortNum. */

/* SwitchInfoRecord */
#define IB_SWIR_COMPMASK_LID (CL_HTON64(((uint64_t)1) << 0))       /**< SwitchInfoRecord: LID. */
#define IB_SWIR_COMPMASK_RESERVED1 (CL_HTON64(((uint64_t)1) << 1)) /**< SwitchInfoRecord: reserved. */

/* LinearForwardingTableRecord */
#define IB_LFTR_COMPMASK_LID (CL_HTON64(((uint64_t)1) << 0))   /**< LinearForwardingTableRecord: LID. */
#define IB_LFTR_COMPMASK_BLOCK (CL_HTON64(((uint64_t)1) << 1)) /**< LinearForwardingTableRecord: BlockNum. */

/* MulticastForwardingTableRecord */
#define IB_MFTR_COMPMASK_LID (CL_HTON64(((uint64_t)1) << 0))       /**< MulticastForwardingTableRecord: LID. */
#define IB_MFTR_COMPMASK_POSITION (CL_HTON64(((uint64_t)1) << 1))  /**< MulticastForwardingTableRecord: Position. */
#define IB_MFTR_COMPMASK_RESERVED1 (CL_HTON64(((uint64_t)1) << 2)) /**< MulticastForwardingTableRecord: reserved. */
#define IB_MFTR_COMPMASK_BLOCK (CL_HTON64(((uint64_t)1) << 3))     /**< MulticastForwardingTableRecord: BlockNum. */
#define IB_MFTR_COMPMASK_RESERVED2 (CL_HTON64(((uint64_t)1) << 4)) /**< MulticastForwardingTableRecord: reserved. */

/* NodeRecord */
#define IB_NR_COMPMASK_LID (CL_HTON64(((uint64_t)1) << 0))           /**< NodeRecord: LID. */
#define IB_NR_COMPMASK_RESERVED1 (CL_HTON64(((uint64_t)1) << 1))     /**< NodeRecord: reserved. */
#define IB_NR_COMPMASK_BASEVERSION (CL_HTON64(((uint64_t)1) << 2))   /**< NodeRecord: NodeInfo.BaseVersion. */
#define IB_NR_COMPMASK_CLASSVERSION (CL_HTON64(((uint64_t)1) << 3))  /**< NodeRecord: NodeInfo.ClassVersion. */
#define IB_NR_COMPMASK_NODETYPE (CL_HTON64(((uint64_t)1) << 4))      /**< NodeRecord: NodeInfo.NodeType. */
#define IB_NR_COMPMASK_NUMPORTS (CL_HTON64(((uint64_t)1) << 5))      /**< NodeRecord: NodeInfo.NumPorts. */
#define IB_NR_COMPMASK_SYSIMAGEGUID (CL_HTON64(((uint64_t)1) << 6))  /**< NodeRecord: NodeInfo.SystemImageGUID. */
#define IB_NR_COMPMASK_NODEGUID (CL_HTON64(((uint64_t)1) << 7))      /**< NodeRecord: NodeInfo.NodeGUID. */
#define IB_NR_COMPMASK_PORTGUID (CL_HTON64(((uint64_t)1) << 8))      /**< NodeRecord: NodeInfo.PortGUID. */
#define IB_NR_COMPMASK_PARTCAP (CL_HTON64(((uint64_t)1) << 9))       /**< NodeRecord: NodeInfo.PartitionCap. */
#define IB_NR_COMPMASK_DEVID (CL_HTON64(((uint64_t)1) << 10))        /**< NodeRecord: NodeInfo.DeviceID. */
#define IB_NR_COMPMASK_REV (CL_HTON64(((uint64_t)1) << 11))          /**< NodeRecord: NodeInfo.Revision. */
#define IB_NR_COMPMASK_PORTNUM (CL_HTON64(((uint64_t)1) << 12))      /**< NodeRecord: NodeInfo.LocalPortNum. */
#define IB_NR_COMPMASK_VENDID (CL_HTON64(((uint64_t)1) << 13))       /**< NodeRecord: NodeInfo.VendorID. */
#define IB_NR_COMPMASK_NODEDESC (CL_HTON64(((uint64_t)1) << 14))     /**< NodeRecord: NodeDescription. */

/* ServiceRecord */
#define IB_SR_COMPMASK_SID (CL_HTON64(((uint64_t)1) << 0))         /**< ServiceRecord: ServiceID. */
#define IB_SR_COMPMASK_SGID (CL_HTON64(((uint64_t)1) << 1))        /**< ServiceRecord: ServiceGID. */
#define IB_SR_COMPMASK_SPKEY (CL_HTON64(((uint64_t)1) << 2))       /**< ServiceRecord: ServiceP_Key. */
#define IB_SR_COMPMASK_RES1 (CL_HTON64(((uint64_t)1) << 3))        /**< ServiceRecord: reserved. */
#define IB_SR_COMPMASK_SLEASE (CL_HTON64(((uint64_t)1) << 4))      /**< ServiceRecord: ServiceLease. */
#define IB_SR_COMPMASK_SKEY (CL_HTON64(((uint64_t)1) << 5))        /**< ServiceRecord: ServiceKey. */
#define IB_SR_COMPMASK_SNAME (CL_HTON64(((uint64_t)1) << 6))       /**< ServiceRecord: ServiceName. */
#define IB_SR_COMPMASK_SDATA8_0 (CL_HTON64(((uint64_t)1) << 7))    /**< ServiceRecord: ServiceData8.0. */
#define IB_SR_COMPMASK_SDATA8_1 (CL_HTON64(((uint64_t)1) << 8))    /**< ServiceRecord: ServiceData8.1. */
#define IB_SR_COMPMASK_SDATA8_2 (CL_HTON64(((uint64_t)1) << 9))    /**< ServiceRecord: ServiceData8.2. */
#define IB_SR_COMPMASK_SDATA8_3 (CL_HTON64(((uint64_t)1) << 10))   /**< ServiceRecord: ServiceData8.3. */
#define IB_SR_COMPMASK_SDATA8_4 (CL_HTON64(((uint64_t)1) << 11))   /**< ServiceRecord: ServiceData8.4. */
#define IB_SR_COMPMASK_SDATA8_5 (CL_HTON64(((uint64_t)1) << 12))   /**< ServiceRecord: ServiceData8.5. */
#define IB_SR_COMPMASK_SDATA8_6 (CL_HTON64(((uint64_t)1) << 13))   /**< ServiceRecord: ServiceData8.6. */
#define IB_SR_COMPMASK_SDATA8_7 (CL_HTON64(((uint64_t)1) << 14))   /**< ServiceRecord: ServiceData8.7. */
#define IB_SR_COMPMASK_SDATA8_8 (CL_HTON64(((uint64_t)1) << 15))   /**< ServiceRecord: ServiceData8.8. */
#define IB_SR_COMPMASK_SDATA8_9 (CL_HTON64(((uint64_t)1) << 16))   /**< ServiceRecord: ServiceData8.9. */
#define IB_SR_COMPMASK_SDATA8_10 (CL_HTON64(((uint64_t)1) << 17))  /**< ServiceRecord: ServiceData8.10. */
#define IB_SR_COMPMASK_SDATA8_11 (CL_HTON64(((uint64_t)1) << 18))  /**< ServiceRecord: ServiceData8.11. */
#define IB_SR_COMPMASK_SDATA8_12 (CL_HTON64(((uint64_t)1) << 19))  /**< ServiceRecord: ServiceData8.12. */
#define IB_SR_COMPMASK_SDATA8_13 (CL_HTON64(((uint64_t)1) << 20))  /**< ServiceRecord: ServiceData8.13. */
#define IB_SR_COMPMASK_SDATA8_14 (CL_HTON64(((uint64_t)1) << 21))  /**< ServiceRecord: ServiceData8.14. */
#define IB_SR_COMPMASK_SDATA8_15 (CL_HTON64(((uint64_t)1) << 22))  /**< ServiceRecord: ServiceData8.15. */
#define IB_SR_COMPMASK_SDATA16_0 (CL_HTON64(((uint64_t)1) << 23))  /**< ServiceRecord: ServiceData16.0. */
#define IB_SR_COMPMASK_SDATA16_1 (CL_HTON64(((uint64_t)1) << 24))  /**< ServiceRecord: ServiceData16.1. */
#define IB_SR_COMPMASK_SDATA16_2 (CL_HTON64(((uint64_t)1) << 25))  /**< ServiceRecord: ServiceData16.2. */
#define IB_SR_COMPMASK_SDATA16_3 (CL_HTON64(((uint64_t)1) << 26))  /**< ServiceRecord: ServiceData16.3. */
#define IB_SR_COMPMASK_SDATA16_4 (CL_HTON64(((uint64_t)1) << 27))  /**< ServiceRecord: ServiceData16.4. */
#define IB_SR_COMPMASK_SDATA16_5 (CL_HTON64(((uint64_t)1) << 28))  /**< ServiceRecord: ServiceData16.5. */
#define IB_SR_COMPMASK_SDATA16_6 (CL_HTON64(((uint64_t)1) << 29))  /**< ServiceRecord: ServiceData16.6. */
#define IB_SR_COMPMASK_SDATA16_7 (CL_HTON64(((uint64_t)1) << 30))  /**< ServiceRecord: ServiceData16.7. */
#define IB_SR_COMPMASK_SDATA32_0 (CL_HTON64(((uint64_t)1) << 31))  /**< ServiceRecord: ServiceData32.0. */
#define IB_SR_COMPMASK_SDATA32_1 (CL_HTON64(((uint64_t)1) << 32))  /**< ServiceRecord: ServiceData32.1. */
#define IB_SR_COMPMASK_SDATA32_2 (CL_HTON64(((uint64_t)1) << 33))  /**< ServiceRecord: ServiceData32.2. */
#define IB_SR_COMPMASK_SDATA32_3 (CL_HTON64(((uint64_t)1) << 34))  /**< ServiceRecord: ServiceData32.3. */
#define IB_SR_COMPMASK_SDATA64_0 (CL_HTON64(((uint64_t)1) << 35))  /**< ServiceRecord: ServiceData64.0. */
#define IB_SR_COMPMASK_SDATA64_1 (CL_HTON64(((uint64_t)1) << 36))  /**< ServiceRecord: ServiceData64.1. */

/* PortInfoRecord */
#define IB_PIR_COMPMASK_LID (CL_HTON64(((uint64_t)1) << 0))               /**< PortInfoRecord: EndportLID. */
#define IB_PIR_COMPMASK_PORTNUM (CL_HTON64(((uint64_t)1) << 1))           /**< PortInfoRecord: PortNum. */
#define IB_PIR_COMPMASK_OPTIONS (CL_HTON64(((uint64_t)1) << 2))           /**< PortInfoRecord: Options. */
#define IB_PIR_COMPMASK_MKEY (CL_HTON64(((uint64_t)1) << 3))              /**< PortInfoRecord: M_Key. */
#define IB_PIR_COMPMASK_GIDPRE (CL_HTON64(((uint64_t)1) << 4))            /**< PortInfoRecord: GidPrefix. */
#define IB_PIR_COMPMASK_BASELID (CL_HTON64(((uint64_t)1) << 5))           /**< PortInfoRecord: LID. */
#define IB_PIR_COMPMASK_SMLID (CL_HTON64(((uint64_t)1) << 6))             /**< PortInfoRecord: MasterSMLID. */
#define IB_PIR_COMPMASK_CAPMASK (CL_HTON64(((uint64_t)1) << 7))           /**< PortInfoRecord: CapabilityMask. */
#define IB_PIR_COMPMASK_DIAGCODE (CL_HTON64(((uint64_t)1) << 8))          /**< PortInfoRecord: DiagCode. */
#define IB_PIR_COMPMASK_MKEYLEASEPRD (CL_HTON64(((uint64_t)1) << 9))      /**< PortInfoRecord: M_KeyLeasePeriod. */
#define IB_PIR_COMPMASK_LOCALPORTNUM (CL_HTON64(((uint64_t)1) << 10))     /**< PortInfoRecord: LocalPortNum. */
#define IB_PIR_COMPMASK_LINKWIDTHENABLED (CL_HTON64(((uint64_t)1) << 11)) /**< PortInfoRecord: LinkWidthEnabled. */
#define IB_PIR_COMPMASK_LNKWIDTHSUPPORT (CL_HTON64(((uint64_t)1) << 12))  /**< PortInfoRecord: LinkWidthSupported. */
#define IB_PIR_COMPMASK_LNKWIDTHACTIVE (CL_HTON64(((uint64_t)1) << 13))   /**< PortInfoRecord: LinkWidthActive. */
#define IB_PIR_COMPMASK_LNKSPEEDSUPPORT (CL_HTON64(((uint64_t)1) << 14))  /**< PortInfoRecord: LinkSpeedSupported. */
#define IB_PIR_COMPMASK_PORTSTATE (CL_HTON64(((uint64_t)1) << 15))        /**< PortInfoRecord: PortState. */
#define IB_PIR_COMPMASK_PORTPHYSTATE (CL_HTON64(((uint64_t)1) << 16))     /**< PortInfoRecord: PortPhysicalState. */
#define IB_PIR_COMPMASK_LINKDWNDFLTSTATE (CL_HTON64(((uint64_t)1) << 17)) /**< PortInfoRecord: LinkDownDefaultState. */
#define IB_PIR_COMPMASK_MKEYPROTBITS (CL_HTON64(((uint64_t)1) << 18))     /**< PortInfoRecord: M_KeyProtectBits. */
#define IB_PIR_COMPMASK_RESV2 (CL_HTON64(((uint64_t)1) << 19))            /**< PortInfoRecord: reserved. */
#define IB_PIR_COMPMASK_LMC (CL_HTON64(((uint64_t)1) << 20))              /**< PortInfoRecord: LMC. */
#define IB_PIR_COMPMASK_LINKSPEEDACTIVE (CL_HTON64(((uint64_t)1) << 21))  /**< PortInfoRecord: LinkSpeedActive. */
#define IB_PIR_COMPMASK_LINKSPEEDENABLE (CL_HTON64(((uint64_t)1) << 22))  /**< PortInfoRecord: LinkSpeedEnabled. */
#define IB_PIR_COMPMASK_NEIGHBORMTU (CL_HTON64(((uint64_t)1) << 23))      /**< PortInfoRecord: NeighborMTU. */
#define IB_PIR_COMPMASK_MASTERSMSL (CL_HTON64(((uint64_t)1) << 24))       /**< PortInfoRecord: MasterSMSL. */
#define IB_PIR_COMPMASK_VLCAP (CL_HTON64(((uint64_t)1) << 25))            /**< PortInfoRecord: VLCap. */
#define IB_PIR_COMPMASK_INITTYPE (CL_HTON64(((uint64_t)1) << 26))         /**< PortInfoRecord: InitType. */
#define IB_PIR_COMPMASK_VLHIGHLIMIT (CL_HTON64(((uint64_t)1) << 27))      /**< PortInfoRecord: VLHighLimit. */
#define IB_PIR_COMPMASK_VLARBHIGHCAP (CL_HTON64(((uint64_t)1) << 28))     /**< PortInfoRecord: VLArbitrationHighCap. */
#define IB_PIR_COMPMASK_VLARBLOWCAP (CL_HTON64(((uint64_t)1) << 29))      /**< PortInfoRecord: VLArbitrationLowCap. */
#define IB_PIR_COMPMASK_INITTYPEREPLY (CL_HTON64(((uint64_t)1) << 30))    /**< PortInfoRecord: InitTypeReply. */
#define IB_PIR_COMPMASK_MTUCAP (CL_HTON64(((uint64_t)1) << 31))           /**< PortInfoRecord: MTUCap. */
#define IB_PIR_COMPMASK_VLSTALLCNT (CL_HTON64(((uint64_t)1) << 32))       /**< PortInfoRecord: VLStallCount. */
#define IB_PIR_COMPMASK_HOQLIFE (CL_HTON64(((uint64_t)1) << 33))          /**< PortInfoRecord: HOQLife. */
#define IB_PIR_COMPMASK_OPVLS (CL_HTON64(((uint64_t)1) << 34))            /**< PortInfoRecord: OperationalVLs. */
#define IB_PIR_COMPMASK_PARENFIN (CL_HTON64(((uint64_t)1) << 35))         /**< PortInfoRecord: PartitionEnforcementInbound. */
#define IB_PIR_COMPMASK_PARENFOUT (CL_HTON64(((uint64_t)1) << 36))        /**< PortInfoRecord: PartitionEnforcementOutbound. */
#define IB_PIR_COMPMASK_FILTERRAWIN (CL_HTON64(((uint64_t)1) << 37))      /**< PortInfoRecord: FilterRawInbound. */
#define IB_PIR_COMPMASK_FILTERRAWOUT (CL_HTON64(((uint64_t)1) << 38))     /**< PortInfoRecord: FilterRawOutbound. */
#define IB_PIR_COMPMASK_MKEYVIO (CL_HTON64(((uint64_t)1) << 39))          /**< PortInfoRecord: M_KeyViolations. */
#define IB_PIR_COMPMASK_PKEYVIO (CL_HTON64(((uint64_t)1) << 40))          /**< PortInfoRecord: P_KeyViolations. */
#define IB_PIR_COMPMASK_QKEYVIO (CL_HTON64(((uint64_t)1) << 41))          /**< PortInfoRecord: Q_KeyViolations. */
#define IB_PIR_COMPMASK_GUIDCAP (CL_HTON64(((uint64_t)1) << 42))          /**< PortInfoRecord: GUIDCap. */
#define IB_PIR_COMPMASK_CLIENTREREG (CL_HTON64(((uint64_t)1) << 43))      /**< PortInfoRecord: ClientReregister. */
#define IB_PIR_COMPMASK_RESV3 (CL_HTON64(((uint64_t)1) << 44))            /**< PortInfoRecord: reserved. */
#define IB_PIR_COMPMASK_SUBNTO (CL_HTON64(((uint64_t)1) << 45))           /**< PortInfoRecord: SubnetTimeOut. */
#define IB_PIR_COMPMASK_RESV4 (CL_HTON64(((uint64_t)1) << 46))            /**< PortInfoRecord: reserved. */
#define IB_PIR_COMPMASK_RESPTIME (CL_HTON64(((uint64_t)1) << 47))         /**< PortInfoRecord: RespTimeValue. */
#define IB_PIR_COMPMASK_LOCALPHYERR (CL_HTON64(((uint64_t)1) << 48))      /**< PortInfoRecord: LocalPhyErrors. */
#define IB_PIR_COMPMASK_OVERRUNERR (CL_HTON64(((uint64_t)1) << 49))       /**< PortInfoRecord: OverrunErrors. */
#define IB_PIR_COMPMASK_MAXCREDHINT (CL_HTON64(((uint64_t)1) << 50))      /**< PortInfoRecord: MaxCreditHint. */
#define IB_PIR_COMPMASK_RESV5 (CL_HTON64(((uint64_t)1) << 51))            /**< PortInfoRecord: reserved. */
#define IB_PIR_COMPMASK_LINKRTLAT (CL_HTON64(((uint64_t)1) << 52))        /**< PortInfoRecord: LinkRoundTripLatency. */
#define IB_PIR_COMPMASK_CAPMASK2 (CL_HTON64(((uint64_t)1) << 53))         /**< PortInfoRecord: CapabilityMask2. */
#define IB_PIR_COMPMASK_LINKSPDEXTACT (CL_HTON64(((uint64_t)1) << 54))    /**< PortInfoRecord: LinkSpeedExtActive. */
#define IB_PIR_COMPMASK_LINKSPDEXTSUPP (CL_HTON64(((uint64_t)1) << 55))   /**< PortInfoRecord: LinkSpeedExtSupported. */
#define IB_PIR_COMPMASK_RESV7 (CL_HTON64(((uint64_t)1) << 56))            /**< PortInfoRecord: reserved. */
#define IB_PIR_COMPMASK_LINKSPDEXTENAB (CL_HTON64(((uint64_t)1) << 57))   /**< PortInfoRecord: LinkSpeedExtEnabled. */

/* MCMemberRecord */
#define IB_MCR_COMPMASK_GID (CL_HTON64(((uint64_t)1) << 0))         /**< MCMemberRecord: MGID (older name). */
#define IB_MCR_COMPMASK_MGID (CL_HTON64(((uint64_t)1) << 0))        /**< MCMemberRecord: MGID. */
#define IB_MCR_COMPMASK_PORT_GID (CL_HTON64(((uint64_t)1) << 1))    /**< MCMemberRecord: PortGID. */
#define IB_MCR_COMPMASK_QKEY (CL_HTON64(((uint64_t)1) << 2))        /**< MCMemberRecord: Q_Key. */
#define IB_MCR_COMPMASK_MLID (CL_HTON64(((uint64_t)1) << 3))        /**< MCMemberRecord: MLID. */
#define IB_MCR_COMPMASK_MTU_SEL (CL_HTON64(((uint64_t)1) << 4))     /**< MCMemberRecord: MTUSelector. */
#define IB_MCR_COMPMASK_MTU (CL_HTON64(((uint64_t)1) << 5))         /**< MCMemberRecord: MTU. */
#define IB_MCR_COMPMASK_TCLASS (CL_HTON64(((uint64_t)1) << 6))      /**< MCMemberRecord: TClass. */
#define IB_MCR_COMPMASK_PKEY (CL_HTON64(((uint64_t)1) << 7))        /**< MCMemberRecord: P_Key. */
#define IB_MCR_COMPMASK_RATE_SEL (CL_HTON64(((uint64_t)1) << 8))    /**< MCMemberRecord: RateSelector. */
#define IB_MCR_COMPMASK_RATE (CL_HTON64(((uint64_t)1) << 9))        /**< MCMemberRecord: Rate. */
#define IB_MCR_COMPMASK_LIFE_SEL (CL_HTON64(((uint64_t)1) << 10))   /**< MCMemberRecord: PacketLifeTimeSelector. */
#define IB_MCR_COMPMASK_LIFE (CL_HTON64(((uint64_t)1) << 11))       /**< MCMemberRecord: PacketLifeTime. */
#define IB_MCR_COMPMASK_SL (CL_HTON64(((uint64_t)1) << 12))         /**< MCMemberRecord: SL. */
#define IB_MCR_COMPMASK_FLOW (CL_HTON64(((uint64_t)1) << 13))       /**< MCMemberRecord: FlowLabel. */
#define IB_MCR_COMPMASK_HOP (CL_HTON64(((uint64_t)1) << 14))        /**< MCMemberRecord: HopLimit. */
#define IB_MCR_COMPMASK_SCOPE (CL_HTON64(((uint64_t)1) << 15))      /**< MCMemberRecord: Scope. */
#define IB_MCR_COMPMASK_JOIN_STATE (CL_HTON64(((uint64_t)1) << 16)) /**< MCMemberRecord: JoinState. */
#define IB_MCR_COMPMASK_PROXY (CL_HTON64(((uint64_t)1) << 17))      /**< MCMemberRecord: ProxyJoin. */

/* GuidInfoRecord */
#define IB_GIR_COMPMASK_LID (CL_HTON64(((uint64_t)1) << 0))      /**< GuidInfoRecord: LID. */
#define IB_GIR_COMPMASK_BLOCKNUM (CL_HTON64(((uint64_t)1) << 1)) /**< GuidInfoRecord: BlockNum. */
#define IB_GIR_COMPMASK_RESV1 (CL_HTON64(((uint64_t)1) << 2))    /**< GuidInfoRecord: reserved. */
#define IB_GIR_COMPMASK_RESV2 (CL_HTON64(((uint64_t)1) << 3))    /**< GuidInfoRecord: reserved. */
#define IB_GIR_COMPMASK_GID0 (CL_HTON64(((uint64_t)1) << 4))     /**< GuidInfoRecord: GUID 0 of the block. */
#define IB_GIR_COMPMASK_GID1 (CL_HTON64(((uint64_t)1) << 5))     /**< GuidInfoRecord: GUID 1 of the block. */
#define IB_GIR_COMPMASK_GID2 (CL_HTON64(((uint64_t)1) << 6))     /**< GuidInfoRecord: GUID 2 of the block. */
#define IB_GIR_COMPMASK_GID3 (CL_HTON64(((uint64_t)1) << 7))     /**< GuidInfoRecord: GUID 3 of the block. */
#define IB_GIR_COMPMASK_GID4 (CL_HTON64(((uint64_t)1) << 8))     /**< GuidInfoRecord: GUID 4 of the block. */
#define IB_GIR_COMPMASK_GID5 (CL_HTON64(((uint64_t)1) << 9))     /**< GuidInfoRecord: GUID 5 of the block. */
#define IB_GIR_COMPMASK_GID6 (CL_HTON64(((uint64_t)1) << 10))    /**< GuidInfoRecord: GUID 6 of the block. */
#define IB_GIR_COMPMASK_GID7 (CL_HTON64(((uint64_t)1) << 11))    /**< GuidInfoRecord: GUID 7 of the block. */

/* MultiPathRecord */
#define IB_MPR_COMPMASK_RAWTRAFFIC (CL_HTON64(((uint64_t)1) << 0))        /**< MultiPathRecord: RawTraffic. */
#define IB_MPR_COMPMASK_RESV0 (CL_HTON64(((uint64_t)1) << 1))             /**< MultiPathRecord: reserved. */
#define IB_MPR_COMPMASK_FLOWLABEL (CL_HTON64(((uint64_t)1) << 2))         /**< MultiPathRecord: FlowLabel. */
#define IB_MPR_COMPMASK_HOPLIMIT (CL_HTON64(((uint64_t)1) << 3))          /**< MultiPathRecord: HopLimit. */
#define IB_MPR_COMPMASK_TCLASS (CL_HTON64(((uint64_t)1) << 4))            /**< MultiPathRecord: TClass. */
#define IB_MPR_COMPMASK_REVERSIBLE (CL_HTON64(((uint64_t)1) << 5))        /**< MultiPathRecord: Reversible. */
#define IB_MPR_COMPMASK_NUMBPATH (CL_HTON64(((uint64_t)1) << 6))          /**< MultiPathRecord: NumbPath. */
#define IB_MPR_COMPMASK_PKEY (CL_HTON64(((uint64_t)1) << 7))              /**< MultiPathRecord: P_Key. */
#define IB_MPR_COMPMASK_QOS_CLASS (CL_HTON64(((uint64_t)1) << 8))         /**< MultiPathRecord: QoSClass. */
#define IB_MPR_COMPMASK_SL (CL_HTON64(((uint64_t)1) << 9))                /**< MultiPathRecord: SL. */
#define IB_MPR_COMPMASK_MTUSELEC (CL_HTON64(((uint64_t)1) << 10))         /**< MultiPathRecord: MTUSelector. */
#define IB_MPR_COMPMASK_MTU (CL_HTON64(((uint64_t)1) << 11))              /**< MultiPathRecord: MTU. */
#define IB_MPR_COMPMASK_RATESELEC (CL_HTON64(((uint64_t)1) << 12))        /**< MultiPathRecord: RateSelector. */
#define IB_MPR_COMPMASK_RATE (CL_HTON64(((uint64_t)1) << 13))             /**< MultiPathRecord: Rate. */
#define IB_MPR_COMPMASK_PKTLIFETIMESELEC (CL_HTON64(((uint64_t)1) << 14)) /**< MultiPathRecord: PacketLifeTimeSelector. */
#define IB_MPR_COMPMASK_PKTLIFETIME (CL_HTON64(((uint64_t)1) << 15))      /**< MultiPathRecord: PacketLifeTime. */
#define IB_MPR_COMPMASK_SERVICEID_MSB (CL_HTON64(((uint64_t)1) << 16))    /**< MultiPathRecord: ServiceID, upper 8 bits. */
#define IB_MPR_COMPMASK_INDEPSELEC (CL_HTON64(((uint64_t)1) << 17))       /**< MultiPathRecord: IndependenceSelector. */
#define IB_MPR_COMPMASK_RESV3 (CL_HTON64(((uint64_t)1) << 18))            /**< MultiPathRecord: reserved. */
#define IB_MPR_COMPMASK_SGIDCOUNT (CL_HTON64(((uint64_t)1) << 19))        /**< MultiPathRecord: SGIDCount. */
#define IB_MPR_COMPMASK_DGIDCOUNT (CL_HTON64(((uint64_t)1) << 20))        /**< MultiPathRecord: DGIDCount. */
#define IB_MPR_COMPMASK_SERVICEID_LSB (CL_HTON64(((uint64_t)1) << 21))    /**< MultiPathRecord: ServiceID, lower 56 bits. */
/** MultiPathRecord: the whole ServiceID (both parts). */
#define IB_MPR_COMPMASK_SERVICEID (IB_MPR_COMPMASK_SERVICEID_MSB | IB_MPR_COMPMASK_SERVICEID_LSB)

/* SMInfoRecord */
#define IB_SMIR_COMPMASK_LID (CL_HTON64(((uint64_t)1) << 0))      /**< SMInfoRecord: LID. */
#define IB_SMIR_COMPMASK_RESV0 (CL_HTON64(((uint64_t)1) << 1))    /**< SMInfoRecord: reserved. */
#define IB_SMIR_COMPMASK_GUID (CL_HTON64(((uint64_t)1) << 2))     /**< SMInfoRecord: GUID. */
#define IB_SMIR_COMPMASK_SMKEY (CL_HTON64(((uint64_t)1) << 3))    /**< SMInfoRecord: SM_Key. */
#define IB_SMIR_COMPMASK_ACTCOUNT (CL_HTON64(((uint64_t)1) << 4)) /**< SMInfoRecord: ActCount. */
#define IB_SMIR_COMPMASK_PRIORITY (CL_HTON64(((uint64_t)1) << 5)) /**< SMInfoRecord: Priority. */
#define IB_SMIR_COMPMASK_SMSTATE (CL_HTON64(((uint64_t)1) << 6))  /**< SMInfoRecord: SMState. */

/* InformInfoRecord */
#define IB_IIR_COMPMASK_SUBSCRIBERGID (CL_HTON64(((uint64_t)1) << 0)) /**< InformInfoRecord: SubscriberGID. */
#define IB_IIR_COMPMASK_ENUM (CL_HTON64(((uint64_t)1) << 1))          /**< InformInfoRecord: Enum. */
#define IB_IIR_COMPMASK_RESV0 (CL_HTON64(((uint64_t)1) << 2))         /**< InformInfoRecord: reserved. */
#define IB_IIR_COMPMASK_GID (CL_HTON64(((uint64_t)1) << 3))           /**< InformInfoRecord: InformInfo.GID. */
#define IB_IIR_COMPMASK_LIDRANGEBEGIN (CL_HTON64(((uint64_t)1) << 4)) /**< InformInfoRecord: InformInfo.LIDRangeBegin. */
#define IB_IIR_COMPMASK_LIDRANGEEND (CL_HTON64(((uint64_t)1) << 5))   /**< InformInfoRecord: InformInfo.LIDRangeEnd. */
#define IB_IIR_COMPMASK_RESV1 (CL_HTON64(((uint64_t)1) << 6))         /**< InformInfoRecord: reserved. */
#define IB_IIR_COMPMASK_ISGENERIC (CL_HTON64(((uint64_t)1) << 7))     /**< InformInfoRecord: InformInfo.IsGeneric. */
#define IB_IIR_COMPMASK_SUBSCRIBE (CL_HTON64(((uint64_t)1) << 8))     /**< InformInfoRecord: InformInfo.Subscribe. */
#define IB_IIR_COMPMASK_TYPE (CL_HTON64(((uint64_t)1) << 9))          /**< InformInfoRecord: InformInfo.Type. */
#define IB_IIR_COMPMASK_TRAPNUMB (CL_HTON64(((uint64_t)1) << 10))     /**< InformInfoRecord: InformInfo.TrapNumber (generic). */
#define IB_IIR_COMPMASK_DEVICEID (CL_HTON64(((uint64_t)1) << 10))     /**< InformInfoRecord: InformInfo.DeviceID (vendor). */
#define IB_IIR_COMPMASK_QPN (CL_HTON64(((uint64_t)1) << 11))          /**< InformInfoRecord: InformInfo.QPN. */
#define IB_IIR_COMPMASK_RESV2 (CL_HTON64(((uint64_t)1) << 12))        /**< InformInfoRecord: reserved. */
#define IB_IIR_COMPMASK_RESPTIME (CL_HTON64(((uint64_t)1) << 13))     /**< InformInfoRecord: InformInfo.RespTimeValue. */
#define IB_IIR_COMPMASK_RESV3 (CL_HTON64(((uint64_t)1) << 14))        /**< InformInfoRecord: reserved. */
#define IB_IIR_COMPMASK_PRODTYPE (CL_HTON64(((uint64_t)1) << 15))     /**< InformInfoRecord: InformInfo.ProducerType (generic). */
#define IB_IIR_COMPMASK_VENDID (CL_HTON64(((uint64_t)1) << 15))       /**< InformInfoRecord: InformInfo.VendorID (vendor). */

/* ------------------------------------------------------------------------ */
/* PathRecord helpers                                                        */
/* ------------------------------------------------------------------------ */

/**
 * Fills a path record for a path inside the local subnet: the global routing
 * fields (hop_flow_raw, tclass) and service_id are cleared, as are the
 * reserved bytes.
 * @param p_rec the path record to fill.
 * @param p_dgid GID of the destination port.
 * @param p_sgid GID of the source port.
 * @param dlid LID of the destination port, network order.
 * @param slid LID of the source port, network order.
 * @param num_path the num_path byte (Reversible bit 7, NumbPath bits 6..0).
 * @param pkey partition key, network order.
 * @param sl service level (low 4 bits used).
 * @param qos_class QoS class (low 12 bits used).
 * @param mtu_selector MTU selector (IB_PATH_SELECTOR_*).
 * @param mtu encoded MTU (IB_MTU_LEN_*).
 * @param rate_selector rate selector (IB_PATH_SELECTOR_*).
 * @param rate encoded rate (IB_PATH_RECORD_RATE_*).
 * @param pkt_life_selector packet lifetime selector (IB_PATH_SELECTOR_*).
 * @param pkt_life encoded packet lifetime.
 * @param preference merit of the path; lower is better.
 */
AL_INLINE void AL_API ib_path_rec_init_local(IN ib_path_rec_t *const p_rec,
					     IN const ib_gid_t *const p_dgid,
					     IN const ib_gid_t *const p_sgid,
					     IN const ib_net16_t dlid,
					     IN const ib_net16_t slid,
					     IN const uint8_t num_path,
					     IN const ib_net16_t pkey,
					     IN const uint8_t sl,
					     IN const uint16_t qos_class,
					     IN const uint8_t mtu_selector,
					     IN const uint8_t mtu,
					     IN const uint8_t rate_selector,
					     IN const uint8_t rate,
					     IN const uint8_t pkt_life_selector,
					     IN const uint8_t pkt_life,
					     IN const uint8_t preference)
{
	p_rec->service_id = 0;
	p_rec->dgid = *p_dgid;
	p_rec->sgid = *p_sgid;
	p_rec->dlid = dlid;
	p_rec->slid = slid;
	p_rec->hop_flow_raw = 0;
	p_rec->tclass = 0;
	p_rec->num_path = num_path;
	p_rec->pkey = pkey;
	p_rec->qos_class_sl = cl_hton16((uint16_t)(((unsigned)qos_class << 4) |
						   (sl & IB_PATH_REC_SL_MASK)));
	p_rec->mtu = (uint8_t)((mtu_selector << 6) | (mtu & IB_PATH_REC_BASE_MASK));
	p_rec->rate = (uint8_t)((rate_selector << 6) | (rate & IB_PATH_REC_BASE_MASK));
	p_rec->pkt_life = (uint8_t)((pkt_life_selector << 6) |
				    (pkt_life & IB_PATH_REC_BASE_MASK));
	p_rec->preference = preference;
	memset(p_rec->resv2, 0, sizeof(p_rec->resv2));
}

/**
 * Maximum number of paths a query asks for (NumbPath).
 * @param p_rec the path record.
 * @return bits 6..0 of num_path.
 */
AL_INLINE uint8_t AL_API ib_path_rec_num_path(IN const ib_path_rec_t *const p_rec)
{
	return (uint8_t)(p_rec->num_path & 0x7F);
}

/**
 * Sets the service level, keeping the QoS class.
 * @param p_rec the path record.
 * @param sl service level (low 4 bits used).
 */
AL_INLINE void AL_API ib_path_rec_set_sl(IN ib_path_rec_t *const p_rec, IN const uint8_t sl)
{
	p_rec->qos_class_sl = (ib_net16_t)((p_rec->qos_class_sl &
					    CL_HTON16(IB_PATH_REC_QOS_CLASS_MASK)) |
					   cl_hton16((uint16_t)(sl & IB_PATH_REC_SL_MASK)));
}

/**
 * Service level of the path.
 * @param p_rec the path record.
 * @return the SL (0..15).
 */
AL_INLINE uint8_t AL_API ib_path_rec_sl(IN const ib_path_rec_t *const p_rec)
{
	return (uint8_t)(cl_ntoh16(p_rec->qos_class_sl) & IB_PATH_REC_SL_MASK);
}

/**
 * Sets the QoS class, keeping the service level.
 * @param p_rec the path record.
 * @param qos_class QoS class (low 12 bits used).
 */
AL_INLINE void AL_API ib_path_rec_set_qos_class(IN ib_path_rec_t *const p_rec,
						IN const uint16_t qos_class)
{
	p_rec->qos_class_sl = (ib_net16_t)((p_rec->qos_class_sl &
					    CL_HTON16(IB_PATH_REC_SL_MASK)) |
					   cl_hton16((uint16_t)((unsigned)qos_class << 4)));
}

/**
 * QoS class of the path.
 * @param p_rec the path record.
 * @return the QoS class (0..4095).
 */
AL_INLINE uint16_t AL_API ib_path_rec_qos_class(IN const ib_path_rec_t *const p_rec)
{
	return (uint16_t)(cl_ntoh16(p_rec->qos_class_sl) >> 4);
}

/**
 * Encoded MTU of the path.
 * @param p_rec the path record.
 * @return 1: 256, 2: 512, 3: 1024, 4: 2048, 5: 4096 bytes; others reserved.
 */
AL_INLINE uint8_t AL_API ib_path_rec_mtu(IN const ib_path_rec_t *const p_rec)
{
	return (uint8_t)(p_rec->mtu & IB_PATH_REC_BASE_MASK);
}

/**
 * MTU selector of a query.
 * @param p_rec the path record.
 * @return 0: greater than, 1: less than, 2: exactly, 3: largest available.
 */
AL_INLINE uint8_t AL_API ib_path_rec_mtu_sel(IN const ib_path_rec_t *const p_rec)
{
	return (uint8_t)((p_rec->mtu & IB_PATH_REC_SELECTOR_MASK) >> 6);
}

/**
 * Encoded static rate of the path.
 * @param p_rec the path record.
 * @return an IB_PATH_RECORD_RATE_* value (2: 2.5 Gb/s, 3: 10 Gb/s, ...).
 */
AL_INLINE uint8_t AL_API ib_path_rec_rate(IN const ib_path_rec_t *const p_rec)
{
	return (uint8_t)(p_rec->rate & IB_PATH_REC_BASE_MASK);
}

/**
 * Rate selector of a query.
 * @param p_rec the path record.
 * @return 0: greater than, 1: less than, 2: exactly, 3: largest available.
 */
AL_INLINE uint8_t AL_API ib_path_rec_rate_sel(IN const ib_path_rec_t *const p_rec)
{
	return (uint8_t)((p_rec->rate & IB_PATH_REC_SELECTOR_MASK) >> 6);
}

/**
 * Encoded packet lifetime of the path (4.096 us * 2^value).
 * @param p_rec the path record.
 * @return the PacketLifeTime field (0..63).
 */
AL_INLINE uint8_t AL_API ib_path_rec_pkt_life(IN const ib_path_rec_t *const p_rec)
{
	return (uint8_t)(p_rec->pkt_life & IB_PATH_REC_BASE_MASK);
}

/**
 * Packet lifetime selector of a query.
 * @param p_rec the path record.
 * @return 0: greater than, 1: less than, 2: exactly, 3: smallest available.
 */
AL_INLINE uint8_t AL_API ib_path_rec_pkt_life_sel(IN const ib_path_rec_t *const p_rec)
{
	return (uint8_t)((p_rec->pkt_life & IB_PATH_REC_SELECTOR_MASK) >> 6);
}

/**
 * Flow label of the path.
 * @param p_rec the path record.
 * @return the 20-bit flow label, in network byte order.
 */
AL_INLINE net32_t AL_API ib_path_rec_flow_lbl(IN const ib_path_rec_t *const p_rec)
{
	return cl_hton32((cl_ntoh32(p_rec->hop_flow_raw) >> 8) & 0x000FFFFF);
}

/**
 * Hop limit of the path.
 * @param p_rec the path record.
 * @return the HopLimit field.
 */
AL_INLINE uint8_t AL_API ib_path_rec_hop_limit(IN const ib_path_rec_t *const p_rec)
{
	return (uint8_t)(cl_ntoh32(p_rec->hop_flow_raw) & 0x000000FF);
}

/**
 * Sets the hop limit, flow label and raw-traffic bit of a path record.
 * @param p_rec the path record.
 * @param hop_limit hop limit.
 * @param flow_lbl flow label in network byte order (low 20 bits used).
 * @param raw TRUE if the path carries raw traffic.
 */
AL_INLINE void AL_API ib_path_rec_set_hop_flow_raw(OUT ib_path_rec_t *const p_rec,
						   IN const uint8_t hop_limit,
						   IN const net32_t flow_lbl,
						   IN const boolean_t raw)
{
	uint32_t v = raw ? 0x80000000u : 0u;

	v |= (cl_ntoh32(flow_lbl) & 0x000FFFFF) << 8;
	v |= hop_limit;
	p_rec->hop_flow_raw = cl_hton32(v);
}

/* ------------------------------------------------------------------------ */
/* ClassPortInfo                                                             */
/* ------------------------------------------------------------------------ */

/** ClassPortInfo CapabilityMask: the class supports Trap() MADs. */
#define IB_CLASS_CAP_TRAP 0x0001
/** ClassPortInfo CapabilityMask: the class supports Get/Set(Notice). */
#define IB_CLASS_CAP_GETSET 0x0002
/** ClassPortInfo CapabilityMask: CapabilityMask2 is valid. */
#define IB_CLASS_CAP_CAPMASK2 0x0004
/** ClassPortInfo CapabilityMask (switches): enhanced port 0 supports CA congestion control. */
#define IB_CLASS_ENH_PORT0_CC_MASK 0x0100
/** Mask of RespTimeValue in ib_class_port_info_t::cap_mask2_resp_time (host order). */
#define IB_CLASS_RESP_TIME_MASK 0x1F
/** Shift of CapabilityMask2 in ib_class_port_info_t::cap_mask2_resp_time (host order). */
#define IB_CLASS_CAPMASK2_SHIFT 5

#include <complib/cl_packon.h>
/** ClassPortInfo attribute (IBA 13.4.8.1), common to all management classes. 72 bytes. */
typedef struct _ib_class_port_info {
	uint8_t base_ver;               /**< Highest MAD base version supported. */
	uint8_t class_ver;              /**< Highest class version supported. */
	ib_net16_t cap_mask;            /**< Class capabilities (IB_CLASS_CAP_*, class specific bits). */
	ib_net32_t cap_mask2_resp_time; /**< CapabilityMask2 (bits 31..5) and RespTimeValue (bits 4..0). */
	ib_gid_t redir_gid;             /**< GID to redirect requests to, or zero. */
	ib_net32_t redir_tc_sl_fl;      /**< Traffic class, SL and flow label for redirected requests. */
	ib_net16_t redir_lid;           /**< LID to redirect requests to, or zero. */
	ib_net16_t redir_pkey;          /**< P_Key for redirected requests. */
	ib_net32_t redir_qp;            /**< QP number to redirect requests to. */
	ib_net32_t redir_qkey;          /**< Q_Key of the redirection QP. */
	ib_gid_t trap_gid;              /**< GID to send traps to. */
	ib_net32_t trap_tc_sl_fl;       /**< Traffic class, SL and flow label of traps. */
	ib_net16_t trap_lid;            /**< LID to send traps to, or zero. */
	ib_net16_t trap_pkey;           /**< P_Key of traps. */
	ib_net32_t trap_hop_qp;         /**< Hop limit (bits 31..24) and QP number of traps. */
	ib_net32_t trap_qkey;           /**< Q_Key of the trap QP. */
} PACK_SUFFIX ib_class_port_info_t;
#include <complib/cl_packoff.h>

/* PerfMgt ClassPortInfo CapabilityMask bits (network order). */
#define IB_PM_ALL_PORT_SELECT (CL_HTON16(((uint16_t)1) << 8))              /**< PerfMgt: AllPortSelect supported. */
#define IB_PM_EXT_WIDTH_SUPPORTED (CL_HTON16(((uint16_t)1) << 9))          /**< PerfMgt: PortCountersExtended supported. */
#define IB_PM_EXT_WIDTH_NOIETF_SUP (CL_HTON16(((uint16_t)1) << 10))        /**< PerfMgt: extended counters without IETF ones. */
#define IB_PM_SAMPLES_ONLY_SUP (CL_HTON16(((uint16_t)1) << 11))            /**< PerfMgt: only the sampling mechanism. */
#define IB_PM_PC_XMIT_WAIT_SUP (CL_HTON16(((uint16_t)1) << 12))            /**< PerfMgt: PortXmitWait supported. */
#define IS_PM_INH_LMTD_PKEY_MC_CONSTR_ERR (CL_HTON16(((uint16_t)1) << 13)) /**< PerfMgt: no limited-P_Key multicast constraint errors. */
#define IS_PM_RSFEC_COUNTERS_SUP (CL_HTON16(((uint16_t)1) << 14))          /**< PerfMgt: RS-FEC counters supported. */
#define IB_PM_IS_QP1_DROP_SUP (CL_HTON16(((uint16_t)1) << 15))             /**< PerfMgt: PortQP1Dropped supported. */
/* PerfMgt ClassPortInfo CapabilityMask2 bits (network order). */
#define IB_PM_IS_PM_KEY_SUPPORTED (CL_HTON32(((uint32_t)1) << 0))          /**< PerfMgt: PM_Key supported. */
#define IB_PM_IS_ADDL_PORT_CTRS_EXT_SUP (CL_HTON32(((uint32_t)1) << 1))    /**< PerfMgt: additional PortCountersExtended. */

/**
 * Sets RespTimeValue, keeping CapabilityMask2.
 * @param p_cpi the ClassPortInfo.
 * @param val response time value (low 5 bits used).
 */
AL_INLINE void AL_API ib_class_set_resp_time_val(IN ib_class_port_info_t *const p_cpi,
						 IN const uint8_t val)
{
	p_cpi->cap_mask2_resp_time = (ib_net32_t)((p_cpi->cap_mask2_resp_time &
						   CL_HTON32(~(uint32_t)IB_CLASS_RESP_TIME_MASK)) |
						  cl_hton32((uint32_t)(val & IB_CLASS_RESP_TIME_MASK)));
}

/**
 * RespTimeValue of the ClassPortInfo.
 * @param p_cpi the ClassPortInfo.
 * @return the response time value (0..31).
 */
AL_INLINE uint8_t AL_API ib_class_resp_time_val(IN ib_class_port_info_t *const p_cpi)
{
	return (uint8_t)(cl_ntoh32(p_cpi->cap_mask2_resp_time) & IB_CLASS_RESP_TIME_MASK);
}

/**
 * Sets CapabilityMask2, keeping RespTimeValue.
 * @param p_cpi the ClassPortInfo.
 * @param cap_mask2 CapabilityMask2 in host order (low 27 bits used).
 */
AL_INLINE void AL_API ib_class_set_cap_mask2(IN ib_class_port_info_t *const p_cpi,
					     IN const uint32_t cap_mask2)
{
	p_cpi->cap_mask2_resp_time = (ib_net32_t)((p_cpi->cap_mask2_resp_time &
						   CL_HTON32(IB_CLASS_RESP_TIME_MASK)) |
						  cl_hton32(cap_mask2 << IB_CLASS_CAPMASK2_SHIFT));
}

/**
 * CapabilityMask2 of the ClassPortInfo.
 * @param p_cpi the ClassPortInfo.
 * @return CapabilityMask2 in host order.
 */
AL_INLINE uint32_t AL_API ib_class_cap_mask2(IN const ib_class_port_info_t *const p_cpi)
{
	return cl_ntoh32(p_cpi->cap_mask2_resp_time) >> IB_CLASS_CAPMASK2_SHIFT;
}

/* ------------------------------------------------------------------------ */
/* SA records of subnet management attributes                               */
/* ------------------------------------------------------------------------ */

#include <complib/cl_packon.h>
/** NodeRecord (IBA 15.2.5.2), padded to a multiple of 8 bytes: 112 bytes. */
typedef struct _ib_node_record_t {
	ib_net16_t lid;            /**< LID of the port the NodeInfo was read through. */
	ib_net16_t resv;           /**< Reserved. */
	ib_node_info_t node_info;  /**< NodeInfo of the node. */
	ib_node_desc_t node_desc;  /**< NodeDescription of the node. */
	uint8_t pad[4];            /**< Padding to an 8-byte multiple. */
} PACK_SUFFIX ib_node_record_t;

/** ServiceName of a ServiceRecord: 64 bytes of UTF-8, NUL-terminated if shorter. */
typedef uint8_t ib_svc_name_t[64];

/** ServiceRecord (IBA 15.2.5.14): a service registered with the SA. 176 bytes. */
typedef struct _ib_service_record {
	ib_net64_t service_id;        /**< ServiceID. */
	ib_gid_t service_gid;         /**< GID of the port providing the service. */
	ib_net16_t service_pkey;      /**< P_Key to reach the service with. */
	ib_net16_t resv;              /**< Reserved. */
	ib_net32_t service_lease;     /**< Lease in seconds; 0xFFFFFFFF is infinite. */
	uint8_t service_key[16];      /**< Key that guards changes of the record. */
	ib_svc_name_t service_name;   /**< Name of the service. */
	uint8_t service_data8[16];    /**< Service data, 8-bit items. */
	ib_net16_t service_data16[8]; /**< Service data, 16-bit items. */
	ib_net32_t service_data32[4]; /**< Service data, 32-bit items. */
	ib_net64_t service_data64[2]; /**< Service data, 64-bit items. */
} PACK_SUFFIX ib_service_record_t;

/** PortInfoRecord (IBA 15.2.5.3), padded to a multiple of 8 bytes: 72 bytes. */
typedef struct _ib_portinfo_record {
	ib_net16_t lid;           /**< LID of the port (of port 0 for a switch). */
	uint8_t port_num;         /**< Port number (switches). */
	uint8_t options;          /**< Options (IBA 1.3); reserved before. */
	ib_port_info_t port_info; /**< PortInfo of the port. */
	uint8_t pad[4];           /**< Padding to an 8-byte multiple. */
} PACK_SUFFIX ib_portinfo_record_t;

/** PortInfoExtendedRecord: the PortInfoExtended attribute of a port. 68 bytes. */
typedef struct _ib_portinfoext_record {
	ib_net16_t lid;                   /**< LID of the port (of port 0 for a switch). */
	uint8_t port_num;                 /**< Port number (switches). */
	uint8_t options;                  /**< Options. */
	ib_port_info_ext_t port_info_ext; /**< PortInfoExtended of the port. */
} PACK_SUFFIX ib_portinfoext_record_t;

/** LinkRecord (IBA 15.2.5.13): one link between two ports. 8 bytes. */
typedef struct _ib_link_record {
	ib_net16_t from_lid;   /**< LID of the port the link leaves. */
	uint8_t from_port_num; /**< Port number the link leaves. */
	uint8_t to_port_num;   /**< Port number the link enters. */
	ib_net16_t to_lid;     /**< LID of the port the link enters. */
	uint8_t pad[2];        /**< Padding to an 8-byte multiple. */
} PACK_SUFFIX ib_link_record_t;

/** SMInfoRecord (IBA 15.2.5.7), padded to a multiple of 8 bytes: 32 bytes. */
typedef struct _ib_sminfo_record {
	ib_net16_t lid;       /**< LID of the SM's port. */
	uint16_t resv0;       /**< Reserved. */
	ib_sm_info_t sm_info; /**< SMInfo of the SM. */
	uint8_t pad[7];       /**< Padding to an 8-byte multiple. */
} PACK_SUFFIX ib_sminfo_record_t;

/** LinearForwardingTableRecord (IBA 15.2.5.6): one 64-entry LFT block. 72 bytes. */
typedef struct _ib_lft_record {
	ib_net16_t lid;       /**< LID of the switch. */
	ib_net16_t block_num; /**< Block number. */
	uint32_t resv0;       /**< Reserved. */
	uint8_t lft[64];      /**< Output port of each of the block's 64 LIDs. */
} PACK_SUFFIX ib_lft_record_t;

/** MulticastForwardingTableRecord (IBA 15.2.5.8): one MFT block. 72 bytes. */
typedef struct _ib_mft_record {
	ib_net16_t lid;                      /**< LID of the switch. */
	ib_net16_t position_block_num;       /**< Position (bits 15..12) and BlockNum (bits 8..0). */
	uint32_t resv0;                      /**< Reserved. */
	ib_net16_t mft[IB_MCAST_BLOCK_SIZE]; /**< Port masks of the block's 32 MLIDs. */
} PACK_SUFFIX ib_mft_record_t;

/** SwitchInfoRecord (IBA 15.2.5.4). 24 bytes. */
typedef struct _ib_switch_info_record {
	ib_net16_t lid;               /**< LID of the switch. */
	uint16_t resv0;               /**< Reserved. */
	ib_switch_info_t switch_info; /**< SwitchInfo of the switch. */
} PACK_SUFFIX ib_switch_info_record_t;

/** GuidInfoRecord (IBA 15.2.5.18): one block of 8 port GUIDs. 72 bytes. */
typedef struct _ib_guidinfo_record {
	ib_net16_t lid;           /**< LID of the port. */
	uint8_t block_num;        /**< Block number. */
	uint8_t resv;             /**< Reserved. */
	uint32_t reserved;        /**< Reserved. */
	ib_guid_info_t guid_info; /**< The block of GUIDs. */
} PACK_SUFFIX ib_guidinfo_record_t;
#include <complib/cl_packoff.h>

/* ------------------------------------------------------------------------ */
/* MultiPathRecord                                                           */
/* ------------------------------------------------------------------------ */

/** Number of GIDs ib_multipath_rec_t carries (those that fit in one SA MAD). */
#define IB_MULTIPATH_MAX_GIDS 11

#include <complib/cl_packon.h>
/** MultiPathRecord (IBA 15.2.5.20) request, with room for 11 GIDs. 200 bytes. */
typedef struct _ib_multipath_rec_t {
	ib_net32_t hop_flow_raw;             /**< RawTraffic (bit 31), FlowLabel (bits 27..8), HopLimit (bits 7..0). */
	uint8_t tclass;                      /**< Traffic class. */
	uint8_t num_path;                    /**< Reversible (bit 7) and NumbPath (bits 6..0). */
	ib_net16_t pkey;                     /**< Partition key. */
	ib_net16_t qos_class_sl;             /**< QoSClass (bits 15..4) and SL (bits 3..0). */
	uint8_t mtu;                         /**< MTUSelector (bits 7..6) and encoded MTU. */
	uint8_t rate;                        /**< RateSelector (bits 7..6) and encoded rate. */
	uint8_t pkt_life;                    /**< PacketLifeTimeSelector (bits 7..6) and PacketLifeTime. */
	uint8_t service_id_8msb;             /**< Upper 8 bits of the ServiceID. */
	uint8_t independence;                /**< IndependenceSelector (bits 7..6); formerly reserved. */
	uint8_t sgid_count;                  /**< Number of source GIDs in gids. */
	uint8_t dgid_count;                  /**< Number of destination GIDs in gids. */
	uint8_t service_id_56lsb[7];         /**< Lower 56 bits of the ServiceID. */
	ib_gid_t gids[IB_MULTIPATH_MAX_GIDS]; /**< Source GIDs, then destination GIDs. */
} PACK_SUFFIX ib_multipath_rec_t;
#include <complib/cl_packoff.h>

/**
 * Maximum number of paths a query asks for (NumbPath).
 * @param p_rec the multipath record.
 * @return bits 6..0 of num_path.
 */
AL_INLINE uint8_t AL_API ib_multipath_rec_num_path(IN const ib_multipath_rec_t *const p_rec)
{
	return (uint8_t)(p_rec->num_path & 0x7F);
}

/**
 * Sets the service level, keeping the QoS class.
 * @param p_rec the multipath record.
 * @param sl service level (low 4 bits used).
 */
AL_INLINE void AL_API ib_multipath_rec_set_sl(IN ib_multipath_rec_t *const p_rec,
					      IN const uint8_t sl)
{
	p_rec->qos_class_sl = (ib_net16_t)((p_rec->qos_class_sl &
					    CL_HTON16(IB_MULTIPATH_REC_QOS_CLASS_MASK)) |
					   cl_hton16((uint16_t)(sl & IB_MULTIPATH_REC_SL_MASK)));
}

/**
 * Service level of the multipath record.
 * @param p_rec the multipath record.
 * @return the SL (0..15).
 */
AL_INLINE uint8_t AL_API ib_multipath_rec_sl(IN const ib_multipath_rec_t *const p_rec)
{
	return (uint8_t)(cl_ntoh16(p_rec->qos_class_sl) & IB_MULTIPATH_REC_SL_MASK);
}

/**
 * Sets the QoS class, keeping the service level.
 * @param p_rec the multipath record.
 * @param qos_class QoS class (low 12 bits used).
 */
AL_INLINE void AL_API ib_multipath_rec_set_qos_class(IN ib_multipath_rec_t *const p_rec,
						     IN const uint16_t qos_class)
{
	p_rec->qos_class_sl = (ib_net16_t)((p_rec->qos_class_sl &
					    CL_HTON16(IB_MULTIPATH_REC_SL_MASK)) |
					   cl_hton16((uint16_t)((unsigned)qos_class << 4)));
}

/**
 * QoS class of the multipath record.
 * @param p_rec the multipath record.
 * @return the QoS class (0..4095).
 */
AL_INLINE uint16_t AL_API ib_multipath_rec_qos_class(IN const ib_multipath_rec_t *const p_rec)
{
	return (uint16_t)(cl_ntoh16(p_rec->qos_class_sl) >> 4);
}

/**
 * Encoded MTU.
 * @param p_rec the multipath record.
 * @return 1: 256, 2: 512, 3: 1024, 4: 2048, 5: 4096 bytes; others reserved.
 */
AL_INLINE uint8_t AL_API ib_multipath_rec_mtu(IN const ib_multipath_rec_t *const p_rec)
{
	return (uint8_t)(p_rec->mtu & IB_MULTIPATH_REC_BASE_MASK);
}

/**
 * MTU selector.
 * @param p_rec the multipath record.
 * @return 0: greater than, 1: less than, 2: exactly, 3: largest available.
 */
AL_INLINE uint8_t AL_API ib_multipath_rec_mtu_sel(IN const ib_multipath_rec_t *const p_rec)
{
	return (uint8_t)((p_rec->mtu & IB_MULTIPATH_REC_SELECTOR_MASK) >> 6);
}

/**
 * Encoded static rate.
 * @param p_rec the multipath record.
 * @return an IB_PATH_RECORD_RATE_* value.
 */
AL_INLINE uint8_t AL_API ib_multipath_rec_rate(IN const ib_multipath_rec_t *const p_rec)
{
	return (uint8_t)(p_rec->rate & IB_MULTIPATH_REC_BASE_MASK);
}

/**
 * Rate selector.
 * @param p_rec the multipath record.
 * @return 0: greater than, 1: less than, 2: exactly, 3: largest available.
 */
AL_INLINE uint8_t AL_API ib_multipath_rec_rate_sel(IN const ib_multipath_rec_t *const p_rec)
{
	return (uint8_t)((p_rec->rate & IB_MULTIPATH_REC_SELECTOR_MASK) >> 6);
}

/**
 * Encoded packet lifetime (4.096 us * 2^value).
 * @param p_rec the multipath record.
 * @return the PacketLifeTime field (0..63).
 */
AL_INLINE uint8_t AL_API ib_multipath_rec_pkt_life(IN const ib_multipath_rec_t *const p_rec)
{
	return (uint8_t)(p_rec->pkt_life & IB_MULTIPATH_REC_BASE_MASK);
}

/**
 * Packet lifetime selector.
 * @param p_rec the multipath record.
 * @return 0: greater than, 1: less than, 2: exactly, 3: smallest available.
 */
AL_INLINE uint8_t AL_API ib_multipath_rec_pkt_life_sel(IN const ib_multipath_rec_t *const p_rec)
{
	return (uint8_t)((p_rec->pkt_life & IB_MULTIPATH_REC_SELECTOR_MASK) >> 6);
}

/**
 * ServiceID of the multipath record, joined from its two parts.
 * @param p_rec the multipath record.
 * @return the 64-bit ServiceID in network byte order.
 */
AL_INLINE ib_net64_t AL_API ib_multipath_rec_service_id(IN const ib_multipath_rec_t *const p_rec)
{
	uint8_t bytes[8];
	ib_net64_t sid;

	bytes[0] = p_rec->service_id_8msb;
	memcpy(&bytes[1], p_rec->service_id_56lsb, sizeof(p_rec->service_id_56lsb));
	memcpy(&sid, bytes, sizeof(sid));
	return sid;
}

/* ------------------------------------------------------------------------ */
/* P_Key, SL-to-VL and VL arbitration table records                          */
/* ------------------------------------------------------------------------ */

#include <complib/cl_packon.h>
/** P_KeyTableRecord (IBA 15.2.5.11): one 32-entry P_Key block. 72 bytes. */
typedef struct _ib_pkey_table_record {
	ib_net16_t lid;           /**< LID of the port (of port 0 for a switch). */
	uint16_t block_num;       /**< Block number, network order. */
	uint8_t port_num;         /**< Port number (switches); reserved for CAs. */
	uint8_t reserved1;        /**< Reserved. */
	uint16_t reserved2;       /**< Reserved. */
	ib_pkey_table_t pkey_tbl; /**< The block of P_Keys. */
} PACK_SUFFIX ib_pkey_table_record_t;

/** SLtoVLMappingTableRecord (IBA 15.2.5.4). 16 bytes. */
typedef struct _ib_slvl_table_record {
	ib_net16_t lid;           /**< LID of the port (of port 0 for a switch). */
	uint8_t in_port_num;      /**< Input port (switches); reserved for CAs. */
	uint8_t out_port_num;     /**< Output port (switches); reserved for CAs. */
	uint32_t resv;            /**< Reserved. */
	ib_slvl_table_t slvl_tbl; /**< The SL-to-VL mapping. */
} PACK_SUFFIX ib_slvl_table_record_t;

/** VLArbitrationTableRecord (IBA 15.2.5.9): one 32-entry block. 72 bytes. */
typedef struct _ib_vl_arb_table_record {
	ib_net16_t lid;               /**< LID of the port (of port 0 for a switch). */
	uint8_t port_num;             /**< Output port number. */
	uint8_t block_num;            /**< Block: 1/2 low priority, 3/4 high priority. */
	uint32_t reserved;            /**< Reserved. */
	ib_vl_arb_table_t vl_arb_tbl; /**< The arbitration entries. */
} PACK_SUFFIX ib_vl_arb_table_record_t;
#include <complib/cl_packoff.h>

/* ------------------------------------------------------------------------ */
/* MCMemberRecord                                                            */
/* ------------------------------------------------------------------------ */

#include <complib/cl_packon.h>
/**
 * MCMemberRecord (IBA 15.2.5.17): creates, joins and leaves multicast
 * groups. 52 bytes of record, padded to 56.
 */
typedef struct _ib_member_rec {
	ib_gid_t mgid;          /**< Multicast GID of the group. */
	ib_gid_t port_gid;      /**< GID of the joining port. */
	ib_net32_t qkey;        /**< Q_Key of the group. */
	ib_net16_t mlid;        /**< Multicast LID of the group. */
	uint8_t mtu;            /**< MTUSelector (bits 7..6) and encoded MTU. */
	uint8_t tclass;         /**< Traffic class. */
	ib_net16_t pkey;        /**< P_Key of the group. */
	uint8_t rate;           /**< RateSelector (bits 7..6) and encoded rate. */
	uint8_t pkt_life;       /**< PacketLifeTimeSelector (bits 7..6) and PacketLifeTime. */
	ib_net32_t sl_flow_hop; /**< SL (bits 31..28), FlowLabel (bits 27..8), HopLimit (bits 7..0). */
	uint8_t scope_state;    /**< Scope (bits 7..4) and JoinState (bits 3..0). */
	uint8_t proxy_join;     /**< ProxyJoin (bit 7). */
	uint8_t reserved[2];    /**< Reserved. */
	uint8_t pad[4];         /**< Padding to an 8-byte multiple. */
} PACK_SUFFIX ib_member_rec_t;
#include <complib/cl_packoff.h>

/**
 * Splits an MCMemberRecord sl_flow_hop field.
 * @param sl_flow_hop the field, network order.
 * @param p_sl receives the service level, or NULL.
 * @param p_flow_lbl receives the flow label in network byte order, or NULL.
 * @param p_hop receives the hop limit, or NULL.
 */
AL_INLINE void AL_API ib_member_get_sl_flow_hop(IN const ib_net32_t sl_flow_hop,
						OUT uint8_t *const p_sl OPTIONAL,
						OUT net32_t *const p_flow_lbl OPTIONAL,
						OUT uint8_t *const p_hop OPTIONAL)
{
	uint32_t v = cl_ntoh32(sl_flow_hop);

	if (p_sl)
		*p_sl = (uint8_t)(v >> 28);
	if (p_flow_lbl)
		*p_flow_lbl = cl_hton32((v >> 8) & 0x000FFFFF);
	if (p_hop)
		*p_hop = (uint8_t)(v & 0xFF);
}

/**
 * Builds an MCMemberRecord sl_flow_hop field.
 * @param sl service level (low 4 bits used).
 * @param flow_lbl flow label in network byte order (low 20 bits used).
 * @param hop_limit hop limit.
 * @return the field, network order.
 */
AL_INLINE ib_net32_t AL_API ib_member_set_sl_flow_hop(IN const uint8_t sl,
						      IN const net32_t flow_lbl,
						      IN const uint8_t hop_limit)
{
	uint32_t v = (uint32_t)(sl & 0x0F) << 28;

	v |= (cl_ntoh32(flow_lbl) & 0x000FFFFF) << 8;
	v |= hop_limit;
	return cl_hton32(v);
}

/**
 * Scope of a scope_state byte.
 * @param scope_state the MCMemberRecord scope_state field.
 * @return the scope (upper nibble).
 */
AL_INLINE uint8_t AL_API ib_member_get_scope(IN const uint8_t scope_state)
{
	return (uint8_t)(scope_state >> 4);
}

/**
 * JoinState of a scope_state byte.
 * @param scope_state the MCMemberRecord scope_state field.
 * @return the join state (lower nibble).
 */
AL_INLINE uint8_t AL_API ib_member_get_state(IN const uint8_t scope_state)
{
	return (uint8_t)(scope_state & 0x0F);
}

/**
 * Splits a scope_state byte.
 * @param scope_state the MCMemberRecord scope_state field.
 * @param p_scope receives the scope, or NULL.
 * @param p_state receives the join state, or NULL.
 */
AL_INLINE void AL_API ib_member_get_scope_state(IN const uint8_t scope_state,
						OUT uint8_t *const p_scope,
						OUT uint8_t *const p_state)
{
	if (p_scope)
		*p_scope = ib_member_get_scope(scope_state);
	if (p_state)
		*p_state = ib_member_get_state(scope_state);
}

/**
 * Builds a scope_state byte.
 * @param scope MGID scope (IB_MC_SCOPE_*).
 * @param state join state (IB_MC_REC_STATE_* bits).
 * @return the byte: scope in the upper nibble, state in the lower.
 */
AL_INLINE uint8_t AL_API ib_member_set_scope_state(IN const uint8_t scope, IN const uint8_t state)
{
	return (uint8_t)((scope << 4) | state);
}

/**
 * Replaces the scope of a scope_state byte, keeping the join state.
 * @param p_scope_state the MCMemberRecord scope_state field.
 * @param scope the new scope (0..15).
 */
AL_INLINE void AL_API ib_member_set_scope(IN OUT uint8_t *const p_scope_state,
					  IN const uint8_t scope)
{
	CL_ASSERT(scope <= 0x0F);
	*p_scope_state = (uint8_t)((*p_scope_state & 0x0F) | (scope << 4));
}

/**
 * Replaces the join state of a scope_state byte, keeping the scope.
 * @param p_scope_state the MCMemberRecord scope_state field.
 * @param state the new join state (0..15).
 */
AL_INLINE void AL_API ib_member_set_state(IN OUT uint8_t *const p_scope_state,
					  IN const uint8_t state)
{
	CL_ASSERT(state <= 0x0F);
	*p_scope_state = (uint8_t)((*p_scope_state & 0xF0) | (state & 0x0F));
}

/**
 * Sets the JoinState of a member record, keeping its scope.
 * @param p_mc_rec the member record.
 * @param state the new join state (low 4 bits used).
 */
AL_INLINE void AL_API ib_member_set_join_state(IN OUT ib_member_rec_t *p_mc_rec,
					       IN const uint8_t state)
{
	p_mc_rec->scope_state = (uint8_t)((p_mc_rec->scope_state & 0xF0) | (state & 0x0F));
}

/* JoinState bits of an MCMemberRecord. */
#define IB_MC_REC_STATE_FULL_MEMBER 0x01           /**< JoinState: full member. */
#define IB_MC_REC_STATE_NON_MEMBER 0x02            /**< JoinState: non member. */
#define IB_MC_REC_STATE_SEND_ONLY_NON_MEMBER 0x04  /**< JoinState: send-only non member. */
#define IB_MC_REC_STATE_SEND_ONLY_FULL_MEMBER 0x08 /**< JoinState: send-only full member. */

/* ------------------------------------------------------------------------ */
/* InformInfoRecord                                                          */
/* ------------------------------------------------------------------------ */

#include <complib/cl_packon.h>
/** InformInfoRecord (IBA 15.2.5.12), padded to a multiple of 8 bytes: 64 bytes. */
typedef struct _ib_inform_info_record {
	ib_gid_t subscriber_gid;      /**< GID of the subscriber. */
	net16_t subscriber_enum;      /**< Distinguishes subscriptions of one subscriber. */
	uint8_t reserved[6];          /**< Reserved. */
	ib_inform_info_t inform_info; /**< The subscription. */
	uint8_t pad[4];               /**< Padding to an 8-byte multiple. */
} PACK_SUFFIX ib_inform_info_record_t;
#include <complib/cl_packoff.h>

/* ------------------------------------------------------------------------ */
/* Performance management                                                    */
/* ------------------------------------------------------------------------ */

/** Size of the PerfMgt MAD data area. */
#define IB_PM_DATA_SIZE 192

#include <complib/cl_packon.h>
/** Performance management MAD (IBA 16.1.1). 256 bytes. */
typedef struct _ib_perfmgt_mad {
	ib_mad_t header;               /**< Common MAD header. */
	uint8_t resv[40];              /**< Reserved. */
	uint8_t data[IB_PM_DATA_SIZE]; /**< Attribute data. */
} PACK_SUFFIX ib_perfmgt_mad_t;
#include <complib/cl_packoff.h>

/** LocalLinkIntegrityErrors nibble of a PortCounters lli/buffer-overrun byte. */
#define PC_LINK_INT(integ_buf_over) (((integ_buf_over) & 0xF0) >> 4)
/** ExcessiveBufferOverrunErrors nibble of a PortCounters lli/buffer-overrun byte. */
#define PC_BUF_OVERRUN(integ_buf_over) ((integ_buf_over) & 0x0F)

#include <complib/cl_packon.h>
/** PortCountersExtended attribute (IBA 16.1.4.11): 64-bit data counters. 72 bytes. */
typedef struct _ib_port_counters_ext {
	uint8_t reserved;               /**< Reserved. */
	uint8_t port_select;            /**< Port the counters are for. */
	ib_net16_t counter_select;      /**< Counters a Set() clears. */
	ib_net32_t reserved2;           /**< Reserved. */
	ib_net64_t xmit_data;           /**< PortXmitData, in 32-bit words. */
	ib_net64_t rcv_data;            /**< PortRcvData, in 32-bit words. */
	ib_net64_t xmit_pkts;           /**< PortXmitPkts. */
	ib_net64_t rcv_pkts;            /**< PortRcvPkts. */
	ib_net64_t unicast_xmit_pkts;   /**< PortUnicastXmitPkts. */
	ib_net64_t unicast_rcv_pkts;    /**< PortUnicastRcvPkts. */
	ib_net64_t multicast_xmit_pkts; /**< PortMulticastXmitPkts. */
	ib_net64_t multicast_rcv_pkts;  /**< PortMulticastRcvPkts. */
} PACK_SUFFIX ib_port_counters_ext_t;

/** PortSamplesControl attribute (IBA 16.1.3.2). 68 bytes. */
typedef struct _ib_port_samples_control {
	uint8_t op_code;                /**< OpCode. */
	uint8_t port_select;            /**< Port to sample. */
	uint8_t tick;                   /**< Sampling tick. */
	uint8_t counter_width;          /**< CounterWidth (bits 2..0). */
	ib_net32_t counter_mask;        /**< CounterMask0 (bits 29..27) and CounterMasks1to9 (bits 26..0). */
	ib_net16_t counter_mask_10to14; /**< CounterMasks10to14 (bits 14..0). */
	uint8_t sample_mech;            /**< SampleMechanisms. */
	uint8_t sample_status;          /**< SampleStatus (bits 1..0). */
	ib_net64_t option_mask;         /**< OptionMask. */
	ib_net64_t vendor_mask;         /**< VendorMask. */
	ib_net32_t sample_start;        /**< SampleStart. */
	ib_net32_t sample_interval;     /**< SampleInterval. */
	ib_net16_t tag;                 /**< Tag of the sample. */
	ib_net16_t counter_select0;     /**< CounterSelect0 (IB_CS_*). */
	ib_net16_t counter_select1;     /**< CounterSelect1. */
	ib_net16_t counter_select2;     /**< CounterSelect2. */
	ib_net16_t counter_select3;     /**< CounterSelect3. */
	ib_net16_t counter_select4;     /**< CounterSelect4. */
	ib_net16_t counter_select5;     /**< CounterSelect5. */
	ib_net16_t counter_select6;     /**< CounterSelect6. */
	ib_net16_t counter_select7;     /**< CounterSelect7. */
	ib_net16_t counter_select8;     /**< CounterSelect8. */
	ib_net16_t counter_select9;     /**< CounterSelect9. */
	ib_net16_t counter_select10;    /**< CounterSelect10. */
	ib_net16_t counter_select11;    /**< CounterSelect11. */
	ib_net16_t counter_select12;    /**< CounterSelect12. */
	ib_net16_t counter_select13;    /**< CounterSelect13. */
	ib_net16_t counter_select14;    /**< CounterSelect14. */
} PACK_SUFFIX ib_port_samples_control_t;
#include <complib/cl_packoff.h>

/* Mandatory CounterSelect values (IBA 16.1.3.3), network order. */
#define IB_CS_PORT_XMIT_DATA (CL_HTON16(0x0001)) /**< CounterSelect: PortXmitData. */
#define IB_CS_PORT_RCV_DATA (CL_HTON16(0x0002))  /**< CounterSelect: PortRcvData. */
#define IB_CS_PORT_XMIT_PKTS (CL_HTON16(0x0003)) /**< CounterSelect: PortXmitPkts. */
#define IB_CS_PORT_RCV_PKTS (CL_HTON16(0x0004))  /**< CounterSelect: PortRcvPkts. */
#define IB_CS_PORT_XMIT_WAIT (CL_HTON16(0x0005)) /**< CounterSelect: PortXmitWait. */

#include <complib/cl_packon.h>
/** PortSamplesResult attribute (IBA 16.1.3.4). 64 bytes. */
typedef struct _ib_port_samples_result {
	ib_net16_t tag;           /**< Tag of the sample. */
	ib_net16_t sample_status; /**< SampleStatus (bits 1..0). */
	ib_net32_t counter0;      /**< Counter 0. */
	ib_net32_t counter1;      /**< Counter 1. */
	ib_net32_t counter2;      /**< Counter 2. */
	ib_net32_t counter3;      /**< Counter 3. */
	ib_net32_t counter4;      /**< Counter 4. */
	ib_net32_t counter5;      /**< Counter 5. */
	ib_net32_t counter6;      /**< Counter 6. */
	ib_net32_t counter7;      /**< Counter 7. */
	ib_net32_t counter8;      /**< Counter 8. */
	ib_net32_t counter9;      /**< Counter 9. */
	ib_net32_t counter10;     /**< Counter 10. */
	ib_net32_t counter11;     /**< Counter 11. */
	ib_net32_t counter12;     /**< Counter 12. */
	ib_net32_t counter13;     /**< Counter 13. */
	ib_net32_t counter14;     /**< Counter 14. */
} PACK_SUFFIX ib_port_samples_result_t;

/** PortXmitDataSL attribute (IBA A13.6.4): per-SL transmitted data. 192 bytes. */
typedef struct _ib_port_xmit_data_sl {
	uint8_t reserved;                  /**< Reserved. */
	uint8_t port_select;               /**< Port the counters are for. */
	ib_net16_t counter_select;         /**< Counters a Set() clears. */
	ib_net32_t port_xmit_data_sl[16];  /**< Data transmitted per SL, in 32-bit words. */
	uint8_t resv[124];                 /**< Reserved. */
} PACK_SUFFIX ib_port_xmit_data_sl_t;

/** PortRcvDataSL attribute (IBA A13.6.4): per-SL received data. 192 bytes. */
typedef struct _ib_port_rcv_data_sl {
	uint8_t reserved;                 /**< Reserved. */
	uint8_t port_select;              /**< Port the counters are for. */
	ib_net16_t counter_select;        /**< Counters a Set() clears. */
	ib_net32_t port_rcv_data_sl[16];  /**< Data received per SL, in 32-bit words. */
	uint8_t resv[124];                /**< Reserved. */
} PACK_SUFFIX ib_port_rcv_data_sl_t;
#include <complib/cl_packoff.h>

/* ------------------------------------------------------------------------ */
/* Device management                                                         */
/* ------------------------------------------------------------------------ */

/** ServiceName under which the device manager registers (IBA 16.3). */
#define DM_SVC_NAME "DeviceManager.IBTA"

/** Size of the DM MAD data area. */
#define IB_DM_DATA_SIZE 192

#include <complib/cl_packon.h>
/** Device management MAD (IBA 16.3.1). 256 bytes. */
typedef struct _ib_dm_mad {
	ib_mad_t hdr;                  /**< Common MAD header. */
	uint8_t resv[40];              /**< Reserved. */
	uint8_t data[IB_DM_DATA_SIZE]; /**< Attribute data. */
} PACK_SUFFIX ib_dm_mad_t;
#include <complib/cl_packoff.h>

/** Size in bytes of IOUnitInfo's ControllerList (two slots per byte). */
#define IB_DM_CTRL_LIST_SIZE 128
/** ControllerList slot value: no IOC in the slot. */
#define IOC_NOT_INSTALLED 0x0
/** ControllerList slot value: an IOC is in the slot. */
#define IOC_INSTALLED 0x1
/** ControllerList slot value: the slot does not exist (0x2..0xE are reserved). */
#define SLOT_DOES_NOT_EXIST 0xF

#include <complib/cl_packon.h>
/** IOUnitInfo attribute (IBA 16.3.3.3). 132 bytes. */
typedef struct _ib_iou_info {
	ib_net16_t change_id;                         /**< Incremented on any ControllerList change. */
	uint8_t max_controllers;                      /**< Number of slots in controller_list. */
	uint8_t diag_rom;                             /**< OptionROM (bit 7) and DiagDeviceID (bit 6). */
	uint8_t controller_list[IB_DM_CTRL_LIST_SIZE]; /**< One nibble per slot; slot 1 in the upper nibble of byte 0. */
} PACK_SUFFIX ib_iou_info_t;
#include <complib/cl_packoff.h>

/**
 * DiagDeviceID bit of an IOUnitInfo.
 * @param p_iou_info the IOUnitInfo.
 * @return 1 if diagnostics address the IOCs by slot, else 0.
 */
AL_INLINE uint8_t AL_API ib_iou_info_diag_dev_id(IN const ib_iou_info_t *const p_iou_info)
{
	return (uint8_t)((p_iou_info->diag_rom >> 6) & 1);
}

/**
 * OptionROM bit of an IOUnitInfo.
 * @param p_iou_info the IOUnitInfo.
 * @return 1 if the IO unit has an option ROM, else 0.
 */
AL_INLINE uint8_t AL_API ib_iou_info_option_rom(IN const ib_iou_info_t *const p_iou_info)
{
	return (uint8_t)(p_iou_info->diag_rom >> 7);
}

/**
 * State of one controller slot of an IOUnitInfo. Slots are numbered from 1;
 * slot 1 is the upper nibble of controller_list[0], slot 2 its lower nibble.
 * @param p_iou_info the IOUnitInfo.
 * @param slot slot number, 1..255.
 * @return IOC_NOT_INSTALLED, IOC_INSTALLED, a reserved value, or
 * SLOT_DOES_NOT_EXIST (also for slot 0).
 */
AL_INLINE uint8_t AL_API ioc_at_slot(IN const ib_iou_info_t *const p_iou_info, IN uint8_t slot)
{
	uint8_t byte;

	if (slot == 0)
		return SLOT_DOES_NOT_EXIST;
	byte = p_iou_info->controller_list[(slot - 1) / 2];
	return (uint8_t)((slot & 1) ? (byte >> 4) : (byte & 0x0F));
}

/* ControllerOperationsCapabilityMask bits of an IOControllerProfile. */
#define CTRL_OPS_CAP_ST 0x01 /**< Send messages to the IOC. */
#define CTRL_OPS_CAP_SF 0x02 /**< Send messages from the IOC. */
#define CTRL_OPS_CAP_RT 0x04 /**< RDMA reads to the IOC. */
#define CTRL_OPS_CAP_RF 0x08 /**< RDMA reads from the IOC. */
#define CTRL_OPS_CAP_WT 0x10 /**< RDMA writes to the IOC. */
#define CTRL_OPS_CAP_WF 0x20 /**< RDMA writes from the IOC. */
#define CTRL_OPS_CAP_AT 0x40 /**< Atomics to the IOC. */
#define CTRL_OPS_CAP_AF 0x80 /**< Atomics from the IOC. */
/** Largest number of service entries of one IOC. */
#define MAX_NUM_SVC_ENTRIES 0xff
/** Size of the IOControllerProfile IDString. */
#define CTRL_ID_STRING_LEN 64

#include <complib/cl_packon.h>
/** IOControllerProfile attribute (IBA 16.3.3.4). 128 bytes. */
typedef struct _ib_ioc_profile {
	ib_net64_t ioc_guid;        /**< EUI-64 GUID of the IO controller. */
	ib_net32_t vend_id;         /**< IEEE VendorID (bits 31..8); use ib_ioc_profile_get_vend_id(). */
	ib_net32_t dev_id;          /**< Vendor-assigned controller type. */
	ib_net16_t dev_ver;         /**< Vendor-assigned device version. */
	ib_net16_t resv2;           /**< Reserved. */
	ib_net32_t subsys_vend_id;  /**< IEEE SubsystemVendorID (bits 31..8), or zero. */
	ib_net32_t subsys_id;       /**< Vendor-assigned subsystem ID. */
	ib_net16_t io_class;        /**< IO class; 0xFFFF is vendor specific. */
	ib_net16_t io_subclass;     /**< IO subclass; 0xFFFF is vendor specific. */
	ib_net16_t protocol;        /**< IO protocol; 0xFFFF is vendor specific. */
	ib_net16_t protocol_ver;    /**< Protocol version. */
	ib_net32_t resv3;           /**< Reserved. */
	ib_net16_t send_msg_depth;  /**< Depth of the send message queue. */
	uint8_t resv4;              /**< Reserved. */
	uint8_t rdma_read_depth;    /**< Depth of the per-channel RDMA read queue. */
	ib_net32_t send_msg_size;   /**< Largest send message, bytes. */
	ib_net32_t rdma_size;       /**< Largest RDMA transfer the IOC initiates, bytes. */
	uint8_t ctrl_ops_cap;       /**< Operations the IOC supports (CTRL_OPS_CAP_*). */
	uint8_t resv5;              /**< Reserved. */
	uint8_t num_svc_entries;    /**< Number of entries in the IOC's service table. */
	uint8_t resv6[9];           /**< Reserved. */
	char id_string[CTRL_ID_STRING_LEN]; /**< UTF-8 name of the controller for operators. */
} PACK_SUFFIX ib_ioc_profile_t;
#include <complib/cl_packoff.h>

/**
 * VendorID of an IOControllerProfile.
 * @param p_ioc_profile the profile.
 * @return the 24-bit IEEE vendor ID, host order.
 */
AL_INLINE uint32_t AL_API ib_ioc_profile_get_vend_id(IN const ib_ioc_profile_t *const p_ioc_profile)
{
	return cl_ntoh32(p_ioc_profile->vend_id) >> 8;
}

/**
 * Sets the VendorID of an IOControllerProfile (the reserved low byte becomes 0).
 * @param p_ioc_profile the profile.
 * @param vend_id the 24-bit IEEE vendor ID, host order.
 */
AL_INLINE void AL_API ib_ioc_profile_set_vend_id(IN ib_ioc_profile_t *const p_ioc_profile,
						 IN const uint32_t vend_id)
{
	p_ioc_profile->vend_id = cl_hton32(vend_id << 8);
}

/**
 * SubsystemVendorID of an IOControllerProfile.
 * @param p_ioc_profile the profile.
 * @return the 24-bit IEEE subsystem vendor ID, host order.
 */
AL_INLINE uint32_t AL_API ib_ioc_profile_get_subsys_vend_id(IN const ib_ioc_profile_t *const p_ioc_profile)
{
	return cl_ntoh32(p_ioc_profile->subsys_vend_id) >> 8;
}

/**
 * Sets the SubsystemVendorID of an IOControllerProfile (the reserved low byte
 * becomes 0).
 * @param p_ioc_profile the profile.
 * @param subsys_vend_id the 24-bit IEEE subsystem vendor ID, host order.
 */
AL_INLINE void AL_API ib_ioc_profile_set_subsys_vend_id(IN ib_ioc_profile_t *const p_ioc_profile,
							IN const uint32_t subsys_vend_id)
{
	p_ioc_profile->subsys_vend_id = cl_hton32(subsys_vend_id << 8);
}

/** Size of a ServiceEntry name. */
#define MAX_SVC_ENTRY_NAME_LEN 40
/** Number of service entries in one ServiceEntries attribute. */
#define SVC_ENTRY_COUNT 4

#include <complib/cl_packon.h>
/** One entry of the ServiceEntries attribute (IBA 16.3.3.5). 48 bytes. */
typedef struct _ib_svc_entry {
	char name[MAX_SVC_ENTRY_NAME_LEN]; /**< UTF-8 name of the service, NUL-terminated. */
	ib_net64_t id;                     /**< Identifier of the service. */
} PACK_SUFFIX ib_svc_entry_t;

/** ServiceEntries attribute (IBA 16.3.3.5): up to four entries. 192 bytes. */
typedef struct _ib_svc_entries {
	ib_svc_entry_t service_entry[SVC_ENTRY_COUNT]; /**< The entries. */
} PACK_SUFFIX ib_svc_entries_t;
#include <complib/cl_packoff.h>

/**
 * Splits the attribute modifier of a ServiceEntries query.
 * @param slot_lo_hi the attribute modifier, network order.
 * @param p_slot receives the IOC slot (bits 23..16), or NULL.
 * @param p_lo receives the first entry (bits 7..0), or NULL.
 * @param p_hi receives the last entry (bits 15..8), or NULL.
 */
AL_INLINE void AL_API ib_dm_get_slot_lo_hi(IN const ib_net32_t slot_lo_hi,
					   OUT uint8_t *const p_slot OPTIONAL,
					   OUT uint8_t *const p_lo OPTIONAL,
					   OUT uint8_t *const p_hi OPTIONAL)
{
	uint32_t v = cl_ntoh32(slot_lo_hi);

	if (p_slot)
		*p_slot = (uint8_t)(v >> 16);
	if (p_hi)
		*p_hi = (uint8_t)(v >> 8);
	if (p_lo)
		*p_lo = (uint8_t)v;
}

/**
 * Builds the attribute modifier of a ServiceEntries query.
 * @param slot IOC slot.
 * @param lo first service entry.
 * @param hi last service entry.
 * @return the attribute modifier, network order.
 */
AL_INLINE net32_t AL_API ib_dm_set_slot_lo_hi(IN const uint8_t slot, IN const uint8_t lo,
					      IN const uint8_t hi)
{
	return cl_hton32(((uint32_t)slot << 16) | ((uint32_t)hi << 8) | lo);
}

/** An IO controller as the access layer reports it (host structure, not packed). */
typedef struct _ib_ioc_info {
	net64_t chassis_guid;     /**< GUID of the chassis holding the IO unit. */
	uint8_t chassis_slot;     /**< Chassis slot of the IO unit. */
	net64_t iou_guid;         /**< GUID of the IO unit. */
	uint8_t iou_slot;         /**< Slot of the controller in the IO unit. */
	ib_ioc_profile_t profile; /**< IOControllerProfile of the controller. */
} ib_ioc_info_t;

/* ------------------------------------------------------------------------ */
/* PortCounters                                                              */
/* ------------------------------------------------------------------------ */

#include <complib/cl_packon.h>
/** PortCounters attribute (IBA 16.1.3.5). 40 bytes. */
typedef struct _ib_port_counters {
	uint8_t reserved0;                          /**< Reserved. */
	uint8_t port_select;                        /**< Port the counters are for. */
	ib_net16_t counter_select;                  /**< Counters a Set() clears (IB_COUNTER_*). */
	ib_net16_t symbol_error_counter;            /**< SymbolErrorCounter. */
	uint8_t link_error_recovery_counter;        /**< LinkErrorRecoveryCounter. */
	uint8_t link_down_counter;                  /**< LinkDownedCounter. */
	ib_net16_t port_rcv_errors;                 /**< PortRcvErrors. */
	ib_net16_t port_rcv_remote_physical_errors; /**< PortRcvRemotePhysicalErrors. */
	ib_net16_t port_rcv_switch_relay_errors;    /**< PortRcvSwitchRelayErrors. */
	ib_net16_t port_xmit_discard;               /**< PortXmitDiscards. */
	uint8_t port_xmit_constraint_errors;        /**< PortXmitConstraintErrors. */
	uint8_t port_rcv_constraint_errors;         /**< PortRcvConstraintErrors. */
	uint8_t reserved1;                          /**< Reserved. */
	uint8_t lli_errors_exc_buf_errors;          /**< LocalLinkIntegrityErrors (bits 7..4), ExcessiveBufferOverrunErrors (bits 3..0). */
	ib_net16_t reserved2;                       /**< Reserved. */
	ib_net16_t vl15_dropped;                    /**< VL15Dropped. */
	ib_net32_t port_xmit_data;                  /**< PortXmitData, in 32-bit words. */
	ib_net32_t port_rcv_data;                   /**< PortRcvData, in 32-bit words. */
	ib_net32_t port_xmit_pkts;                  /**< PortXmitPkts. */
	ib_net32_t port_rcv_pkts;                   /**< PortRcvPkts. */
} PACK_SUFFIX ib_port_counters_t;
#include <complib/cl_packoff.h>

/* PortCounters CounterSelect bits, network order. */
#define IB_COUNTER_SYMBOL_ERROR CL_NTOH16(1 << 0)           /**< CounterSelect: SymbolErrorCounter. */
#define IB_COUNTER_LINK_RECOVERY_ERROR CL_NTOH16(1 << 1)    /**< CounterSelect: LinkErrorRecoveryCounter. */
#define IB_COUNTER_LINK_DOWN CL_NTOH16(1 << 2)              /**< CounterSelect: LinkDownedCounter. */
#define IB_COUNTER_RCV_ERROR CL_NTOH16(1 << 3)              /**< CounterSelect: PortRcvErrors. */
#define IB_COUNTERT_RCV_RMT_PHY_ERROR CL_NTOH16(1 << 4)     /**< CounterSelect: PortRcvRemotePhysicalErrors. */
#define IB_COUNTER_RCV_SWITCH_RELAY_ERROR CL_NTOH16(1 << 5) /**< CounterSelect: PortRcvSwitchRelayErrors. */
#define IB_COUNTER_XMIT_DISCARD CL_NTOH16(1 << 6)           /**< CounterSelect: PortXmitDiscards. */
#define IB_COUNTER_XMIT_CONSTRAIN CL_NTOH16(1 << 7)         /**< CounterSelect: PortXmitConstraintErrors. */
#define IB_COUNTER_RCV_CONSTRAIN CL_NTOH16(1 << 8)          /**< CounterSelect: PortRcvConstraintErrors. */
#define IB_COUNTER_LINK_INTEG_ERROR CL_NTOH16(1 << 9)       /**< CounterSelect: LocalLinkIntegrityErrors. */
#define IB_COUNTER_EXECE_BUF_ERROR CL_NTOH16(1 << 10)       /**< CounterSelect: ExcessiveBufferOverrunErrors. */
#define IB_COUNTER_VL15_DROP CL_NTOH16(1 << 11)             /**< CounterSelect: VL15Dropped. */
#define IB_COUNTER_XMIT_DATA CL_NTOH16(1 << 12)             /**< CounterSelect: PortXmitData. */
#define IB_COUNTER_XMIT_PKT CL_NTOH16(1 << 13)              /**< CounterSelect: PortXmitPkts. */
#define IB_COUNTER_RCV_DATA CL_NTOH16(1 << 14)              /**< CounterSelect: PortRcvData. */
#define IB_COUNTER_RCV_PKT CL_NTOH16(1 << 15)               /**< CounterSelect: PortRcvPkts. */
#define IB_COUNTER_ALL 0xff                                 /**< CounterSelect value 0xff, used by OFED code to mean "all". */

/* ------------------------------------------------------------------------ */
/* Congestion control                                                        */
/* ------------------------------------------------------------------------ */

/** Size of the CC MAD log data area. */
#define IB_CC_LOG_DATA_SIZE 32
/** Size of the CC MAD management data area. */
#define IB_CC_MGT_DATA_SIZE 192
/** Size of the CC MAD header: common header plus CC_Key. */
#define IB_CC_MAD_HDR_SIZE (sizeof(ib_sa_mad_t) - IB_CC_LOG_DATA_SIZE - IB_CC_MGT_DATA_SIZE)

#include <complib/cl_packon.h>
/** Congestion control MAD (IBA A10.4.1). 256 bytes. */
typedef struct _ib_cc_mad {
	ib_mad_t header;                          /**< Common MAD header. */
	ib_net64_t cc_key;                        /**< CC_Key. */
	uint8_t log_data[IB_CC_LOG_DATA_SIZE];    /**< Log data. */
	uint8_t mgt_data[IB_CC_MGT_DATA_SIZE];    /**< Management data. */
} PACK_SUFFIX ib_cc_mad_t;
#include <complib/cl_packoff.h>

/**
 * CC_Key of a CC MAD.
 * @param p_cc_mad the MAD.
 * @return the CC_Key, network order.
 */
AL_INLINE ib_net64_t AL_API ib_cc_mad_get_cc_key(IN const ib_cc_mad_t *const p_cc_mad)
{
	return p_cc_mad->cc_key;
}

/**
 * Log data area of a CC MAD.
 * @param p_cc_mad the MAD.
 * @return a pointer to the log data.
 */
AL_INLINE void *AL_API ib_cc_mad_get_log_data_ptr(IN const ib_cc_mad_t *const p_cc_mad)
{
	return (void *)p_cc_mad->log_data;
}

/**
 * Management data area of a CC MAD.
 * @param p_cc_mad the MAD.
 * @return a pointer to the management data.
 */
AL_INLINE void *AL_API ib_cc_mad_get_mgt_data_ptr(IN const ib_cc_mad_t *const p_cc_mad)
{
	return (void *)p_cc_mad->mgt_data;
}

#include <complib/cl_packon.h>
/** CongestionInfo attribute (IBA A10.4.3.3). 3 bytes. */
typedef struct _ib_cong_info {
	uint8_t cong_info;      /**< Congestion control capabilities of the node. */
	uint8_t resv;           /**< Reserved. */
	uint8_t ctrl_table_cap; /**< Number of 64-entry CongestionControlTable blocks. */
} PACK_SUFFIX ib_cong_info_t;

/** CongestionKeyInfo attribute (IBA A10.4.3.4). 14 bytes. */
typedef struct _ib_cong_key_info {
	ib_net64_t cc_key;       /**< CC_Key. */
	ib_net16_t protect_bit;  /**< CC_KeyProtectBit (bit 15). */
	ib_net16_t lease_period; /**< CC_KeyLeasePeriod, seconds. */
	ib_net16_t violations;   /**< CC_KeyViolations. */
} PACK_SUFFIX ib_cong_key_info_t;

/** Switch CongestionLogEvent (IBA A10.4.3.5). 12 bytes. */
typedef struct _ib_cong_log_event_sw {
	ib_net16_t slid;       /**< Source LID of the event. */
	ib_net16_t dlid;       /**< Destination LID of the event. */
	ib_net32_t sl;         /**< SL of the event (bits 31..28). */
	ib_net32_t time_stamp; /**< Time of the event. */
} PACK_SUFFIX ib_cong_log_event_sw_t;

/** CA CongestionLogEvent (IBA A10.4.3.5). 16 bytes. */
typedef struct _ib_cong_log_event_ca {
	ib_net32_t local_qp_resv0;            /**< Local QP (bits 31..8) that reached the threshold. */
	ib_net32_t remote_qp_sl_service_type; /**< Remote QP (bits 31..8), SL (bits 7..4), service type (bits 3..0). */
	ib_net16_t remote_lid;                /**< LID of the remote port. */
	ib_net16_t resv1;                     /**< Reserved. */
	ib_net32_t time_stamp;                /**< Time of the event. */
} PACK_SUFFIX ib_cong_log_event_ca_t;

/** CongestionLog attribute (IBA A10.4.3.5). 220 bytes. */
typedef struct _ib_cong_log {
	uint8_t log_type; /**< 1: switch log, 2: CA log. */
	/** Type-specific part of the log. */
	union _log_details {
		/** Switch congestion log. */
		struct _log_sw {
			uint8_t cong_flags;                      /**< CongestionFlags. */
			ib_net16_t event_counter;                /**< Events since the log was last read. */
			ib_net32_t time_stamp;                   /**< Time the log was read. */
			uint8_t port_map[32];                    /**< Ports that marked FECN (bits 1..254). */
			ib_cong_log_event_sw_t entry_list[15];   /**< Most recent events. */
		} PACK_SUFFIX log_sw;                            /**< Switch log (log_type 1). */
		/** CA congestion log. */
		struct _log_ca {
			uint8_t cong_flags;                      /**< CongestionFlags. */
			ib_net16_t event_counter;                /**< Events since the log was last read. */
			ib_net16_t event_map;                    /**< One bit per SL. */
			ib_net16_t resv;                         /**< Reserved. */
			ib_net32_t time_stamp;                   /**< Time the log was read. */
			ib_cong_log_event_ca_t log_event[13];    /**< Most recent events. */
		} PACK_SUFFIX log_ca;                            /**< CA log (log_type 2). */
	} log_details; /**< The log. */
} PACK_SUFFIX ib_cong_log_t;
#include <complib/cl_packoff.h>

/** Size of a switch congestion port mask (256 bits). */
#define IB_CC_PORT_MASK_DATA_SIZE 32

#include <complib/cl_packon.h>
/** SwitchCongestionSetting attribute (IBA A10.4.3.6). 76 bytes. */
typedef struct _ib_sw_cong_setting {
	ib_net32_t control_map;                          /**< Which components are valid. */
	uint8_t victim_mask[IB_CC_PORT_MASK_DATA_SIZE];  /**< Ports that mark FECN as victims too. */
	uint8_t credit_mask[IB_CC_PORT_MASK_DATA_SIZE];  /**< Ports that apply credit starvation. */
	uint8_t threshold_resv;                          /**< Threshold (bits 7..4). */
	uint8_t packet_size;                             /**< Smallest packet marked with FECN, 64-byte units. */
	ib_net16_t cs_threshold_resv;                    /**< CS_Threshold (bits 15..12). */
	ib_net16_t cs_return_delay;                      /**< CS_ReturnDelay. */
	ib_net16_t marking_rate;                         /**< Packets between FECN markings. */
} PACK_SUFFIX ib_sw_cong_setting_t;

/** SwitchPortCongestionSettingElement (IBA A10.4.3.7). 4 bytes. */
typedef struct _ib_sw_port_cong_setting_element {
	uint8_t valid_ctrl_type_res_threshold; /**< Valid (bit 7), Control_Type (bit 6), Threshold (bits 3..0). */
	uint8_t packet_size;                   /**< Smallest packet marked (Control_Type 0). */
	ib_net16_t cong_param;                 /**< Marking rate (Control_Type 0). */
} PACK_SUFFIX ib_sw_port_cong_setting_element_t;
#include <complib/cl_packoff.h>

/** Number of elements in a SwitchPortCongestionSetting block. */
#define IB_CC_SW_PORT_SETTING_ELEMENTS 32

/** A SwitchPortCongestionSetting block (IBA A10.4.3.7). */
typedef ib_sw_port_cong_setting_element_t
	ib_sw_port_cong_setting_block_t[IB_CC_SW_PORT_SETTING_ELEMENTS];

#include <complib/cl_packon.h>
/** SwitchPortCongestionSetting attribute (IBA A10.4.3.7). 128 bytes. */
typedef struct _ib_sw_port_cong_setting {
	ib_sw_port_cong_setting_block_t block; /**< The elements. */
} PACK_SUFFIX ib_sw_port_cong_setting_t;

/** CACongestionEntry (IBA A10.4.3.8). 8 bytes. */
typedef struct _ib_ca_cong_entry {
	ib_net16_t ccti_timer;     /**< Period after which the CCTI is decremented. */
	uint8_t ccti_increase;     /**< CCTI increment on a BECN. */
	uint8_t trigger_threshold; /**< CCTI value that logs an event. */
	uint8_t ccti_min;          /**< Lowest CCTI. */
	uint8_t resv0;             /**< Reserved. */
	ib_net16_t resv1;          /**< Reserved. */
} PACK_SUFFIX ib_ca_cong_entry_t;
#include <complib/cl_packoff.h>

/** Number of entries in a CACongestionSetting (one per SL). */
#define IB_CA_CONG_ENTRY_DATA_SIZE 16

#include <complib/cl_packon.h>
/** CACongestionSetting attribute (IBA A10.4.3.8). 132 bytes. */
typedef struct _ib_ca_cong_setting {
	ib_net16_t port_control;                                /**< Bit 0: 0 QP based, 1 SL/port based. */
	ib_net16_t control_map;                                 /**< One bit per SL: entry is to be changed. */
	ib_ca_cong_entry_t entry_list[IB_CA_CONG_ENTRY_DATA_SIZE]; /**< One entry per SL. */
} PACK_SUFFIX ib_ca_cong_setting_t;

/** CongestionControlTableEntry (IBA A10.4.3.9). 2 bytes. */
typedef struct _ib_cc_tbl_entry {
	ib_net16_t shift_multiplier; /**< CCT_Shift (bits 15..14) and CCT_Multiplier (bits 13..0). */
} PACK_SUFFIX ib_cc_tbl_entry_t;
#include <complib/cl_packoff.h>

/** Number of entries in one CongestionControlTable block. */
#define IB_CC_TBL_ENTRY_LIST_MAX 64

#include <complib/cl_packon.h>
/** CongestionControlTable attribute (IBA A10.4.3.9). 132 bytes. */
typedef struct _ib_cc_tbl {
	ib_net16_t ccti_limit;                                /**< Largest valid CCTI. */
	ib_net16_t resv;                                      /**< Reserved. */
	ib_cc_tbl_entry_t entry_list[IB_CC_TBL_ENTRY_LIST_MAX]; /**< The entries of the block. */
} PACK_SUFFIX ib_cc_tbl_t;

/** TimeStamp attribute (IBA A10.4.3.10). 4 bytes. */
typedef struct _ib_time_stamp {
	ib_net32_t value; /**< Free-running clock, 1.024 us units. */
} PACK_SUFFIX ib_time_stamp_t;
#include <complib/cl_packoff.h>

#ifdef __clang__
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* __IB_TYPES_SA_H__ */
