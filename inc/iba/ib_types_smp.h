/*
 * ibal: part of ib_types.h (include <iba/ib_types.h>, not this file).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file ib_types_smp.h
 * @brief Part of ib_types.h; include <iba/ib_types.h> instead.
 *
 * Subnet management attributes (IBA volume 1, chapter 14.2.5, and the
 * Notice/InformInfo attributes of 13.4.8): NodeInfo, NodeDescription,
 * PortInfo, PortInfoExtended, the Mellanox ExtendedPortInfo, SwitchInfo,
 * GUIDInfo, P_KeyTable, SLtoVLMappingTable, VLArbitrationTable, SMInfo,
 * Notice and InformInfo, with the constants that describe their fields and
 * the inline helpers that read and write their packed bit fields.
 *
 * Every structure is byte-packed and keeps its multi-byte fields in network
 * byte order. The helpers work on one caller-owned attribute at a time.
 *
 * Thread safety: the helpers are pure functions of their arguments; callers
 * serialize access to an attribute shared between threads.
 */
#ifndef __IB_TYPES_SMP_H__
#define __IB_TYPES_SMP_H__

#include <complib/cl_types.h>
#include <complib/cl_byteswap.h>
#include <iba/ib_types_base.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The packed structures below are wrapped in cl_packon.h / cl_packoff.h,
 * which change the packing state on purpose; clang warns (-Wpragma-pack)
 * about every such include.
 */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wpragma-pack"
#endif

/* The P_Key helpers (ib_pkey_get_base(), ib_pkey_is_full_member(),
 * ib_pkey_is_invalid()) and IB_PKEY_BASE_MASK / IB_PKEY_TYPE_MASK are in
 * ib_types_base.h, next to the other P_Key constants. */

/* ------------------------------------------------------------------------ */
/* SMInfo (14.2.5.13)                                                       */
/* ------------------------------------------------------------------------ */

#include <complib/cl_packon.h>
/** SMInfo attribute (14.2.5.13): 21 bytes. */
typedef struct _ib_sm_info {
	ib_net64_t guid;      /**< Port GUID of the subnet manager. */
	ib_net64_t sm_key;    /**< SM_Key of the subnet manager. */
	ib_net32_t act_count; /**< ActCount, the SM's heartbeat counter. */
	uint8_t pri_state;    /**< Priority (high nibble) and SMState (low nibble). */
} PACK_SUFFIX ib_sm_info_t;
#include <complib/cl_packoff.h>

/**
 * Reads the priority of an SMInfo attribute.
 * @param p_smi the SMInfo attribute.
 * @return Priority, 0 to 15.
 */
AL_INLINE uint8_t AL_API ib_sminfo_get_priority(IN const ib_sm_info_t *const p_smi)
{
	return (uint8_t)((p_smi->pri_state & 0xF0) >> 4);
}

/**
 * Reads the state of an SMInfo attribute.
 * @param p_smi the SMInfo attribute.
 * @return SMState: IB_SMINFO_STATE_NOTACTIVE, IB_SMINFO_STATE_DISCOVERING,
 * IB_SMINFO_STATE_STANDBY or IB_SMINFO_STATE_MASTER.
 */
AL_INLINE uint8_t AL_API ib_sminfo_get_state(IN const ib_sm_info_t *const p_smi)
{
	return (uint8_t)(p_smi->pri_state & 0x0F);
}

/* ------------------------------------------------------------------------ */
/* NodeInfo (14.2.5.3) and NodeDescription (14.2.5.2)                       */
/* ------------------------------------------------------------------------ */

#include <complib/cl_packon.h>
/** NodeInfo attribute (14.2.5.3): 40 bytes. */
typedef struct _ib_node_info {
	uint8_t base_version;          /**< BaseVersion of the MADs the node supports. */
	uint8_t class_version;         /**< ClassVersion of subnet management supported. */
	uint8_t node_type;             /**< IB_NODE_TYPE_CA, IB_NODE_TYPE_SWITCH or IB_NODE_TYPE_ROUTER. */
	uint8_t num_ports;             /**< Number of physical ports. */
	ib_net64_t sys_guid;           /**< SystemImageGUID. */
	ib_net64_t node_guid;          /**< NodeGUID. */
	ib_net64_t port_guid;          /**< GUID of the port the attribute was read through. */
	ib_net16_t partition_cap;      /**< Number of P_Key table entries (PartitionCap). */
	ib_net16_t device_id;          /**< Vendor-assigned device ID. */
	ib_net32_t revision;           /**< Vendor-assigned device revision. */
	ib_net32_t port_num_vendor_id; /**< LocalPortNum (high byte) and 24-bit VendorID. */
} PACK_SUFFIX ib_node_info_t;
#include <complib/cl_packoff.h>

/** Mask of LocalPortNum in ib_node_info_t::port_num_vendor_id (network order). */
#define IB_NODE_INFO_PORT_NUM_MASK (CL_HTON32(0xFF000000))
/** Mask of VendorID in ib_node_info_t::port_num_vendor_id (network order). */
#define IB_NODE_INFO_VEND_ID_MASK (CL_HTON32(0x00FFFFFF))
#if CPU_LE
/** Shift bringing the masked, unswapped LocalPortNum down to bit 0 (host-dependent). */
#define IB_NODE_INFO_PORT_NUM_SHIFT 0
#else
/** Shift bringing the masked, unswapped LocalPortNum down to bit 0 (host-dependent). */
#define IB_NODE_INFO_PORT_NUM_SHIFT 24
#endif

/**
 * Reads the number of the port that returned a NodeInfo attribute.
 * @param p_ni the NodeInfo attribute.
 * @return LocalPortNum.
 */
AL_INLINE uint8_t AL_API ib_node_info_get_local_port_num(IN const ib_node_info_t *const p_ni)
{
	return (uint8_t)((p_ni->port_num_vendor_id & IB_NODE_INFO_PORT_NUM_MASK) >>
			 IB_NODE_INFO_PORT_NUM_SHIFT);
}

/**
 * Reads the VendorID of a NodeInfo attribute.
 * @param p_ni the NodeInfo attribute.
 * @return the 24-bit VendorID in network byte order (the top byte is zero).
 */
AL_INLINE ib_net32_t AL_API ib_node_info_get_vendor_id(IN const ib_node_info_t *const p_ni)
{
	return (ib_net32_t)(p_ni->port_num_vendor_id & IB_NODE_INFO_VEND_ID_MASK);
}

/** Size in bytes of a NodeDescription string. */
#define IB_NODE_DESCRIPTION_SIZE 64

#include <complib/cl_packon.h>
/** NodeDescription attribute (14.2.5.2): 64 bytes. */
typedef struct _ib_node_desc {
	/** UTF-8 text naming the node; not NUL-terminated when all 64 bytes are used. */
	uint8_t description[IB_NODE_DESCRIPTION_SIZE];
} PACK_SUFFIX ib_node_desc_t;
#include <complib/cl_packoff.h>

/* ------------------------------------------------------------------------ */
/* PortInfo (14.2.5.6)                                                      */
/* ------------------------------------------------------------------------ */

#include <complib/cl_packon.h>
/** PortInfo attribute (14.2.5.6): 64 bytes. */
typedef struct _ib_port_info {
	ib_net64_t m_key;                /**< M_Key. */
	ib_net64_t subnet_prefix;        /**< GidPrefix. */
	ib_net16_t base_lid;             /**< Base LID of the port. */
	ib_net16_t master_sm_base_lid;   /**< LID of the master SM. */
	ib_net32_t capability_mask;      /**< CapabilityMask: IB_PORT_CAP_* bits. */
	ib_net16_t diag_code;            /**< DiagCode. */
	ib_net16_t m_key_lease_period;   /**< M_KeyLeasePeriod. */
	uint8_t local_port_num;          /**< Number of the port the attribute was read through. */
	uint8_t link_width_enabled;      /**< LinkWidthEnabled. */
	uint8_t link_width_supported;    /**< LinkWidthSupported. */
	uint8_t link_width_active;       /**< LinkWidthActive: IB_LINK_WIDTH_ACTIVE_*. */
	uint8_t state_info1;             /**< LinkSpeedSupported (high nibble), PortState (low nibble). */
	uint8_t state_info2;             /**< PortPhysicalState (high nibble), LinkDownDefaultState (low nibble). */
	uint8_t mkey_lmc;                /**< M_KeyProtectBits (bits 7-6), LMC (bits 2-0). */
	uint8_t link_speed;              /**< LinkSpeedActive (high nibble), LinkSpeedEnabled (low nibble). */
	uint8_t mtu_smsl;                /**< NeighborMTU (high nibble), MasterSMSL (low nibble). */
	uint8_t vl_cap;                  /**< VLCap (high nibble), InitType (low nibble). */
	uint8_t vl_high_limit;           /**< VLHighLimit. */
	uint8_t vl_arb_high_cap;         /**< VLArbitrationHighCap. */
	uint8_t vl_arb_low_cap;          /**< VLArbitrationLowCap. */
	uint8_t mtu_cap;                 /**< InitTypeReply (high nibble), MTUCap (low nibble). */
	uint8_t vl_stall_life;           /**< VLStallCount (bits 7-5), HOQLife (bits 4-0). */
	uint8_t vl_enforce;              /**< OperationalVLs (high nibble), partition enforcement bits (low nibble). */
	ib_net16_t m_key_violations;     /**< M_KeyViolations counter. */
	ib_net16_t p_key_violations;     /**< P_KeyViolations counter. */
	ib_net16_t q_key_violations;     /**< Q_KeyViolations counter. */
	uint8_t guid_cap;                /**< GUIDCap: number of GUID entries. */
	uint8_t subnet_timeout;          /**< ClientReregister (bit 7), MulticastPKeyTrapSuppressionEnabled (bit 6), SubnetTimeOut (bits 4-0). */
	uint8_t resp_time_value;         /**< RespTimeValue (bits 4-0). */
	uint8_t error_threshold;         /**< LocalPhyErrors (high nibble), OverrunErrors (low nibble). */
	ib_net16_t max_credit_hint;      /**< MaxCreditHint. */
	ib_net32_t link_rt_latency;      /**< LinkRoundTripLatency (low 24 bits). */
	ib_net16_t capability_mask2;     /**< CapabilityMask2: IB_PORT_CAP2_* bits. */
	uint8_t link_speed_ext;          /**< LinkSpeedExtActive (high nibble), LinkSpeedExtSupported (low nibble). */
	uint8_t link_speed_ext_enabled;  /**< LinkSpeedExtEnabled (bits 4-0). */
} PACK_SUFFIX ib_port_info_t;
#include <complib/cl_packoff.h>

#define IB_PORT_STATE_MASK 0x0F                /**< PortState bits of ib_port_info_t::state_info1. */
#define IB_PORT_LMC_MASK 0x07                  /**< LMC bits of ib_port_info_t::mkey_lmc. */
#define IB_PORT_LMC_MAX 0x07                   /**< Largest LMC value. */
#define IB_PORT_MPB_MASK 0xC0                  /**< M_KeyProtectBits of ib_port_info_t::mkey_lmc. */
#define IB_PORT_MPB_SHIFT 6                    /**< Position of the M_KeyProtectBits. */
#define IB_PORT_LINK_SPEED_SHIFT 4             /**< Position of LinkSpeedSupported and LinkSpeedActive. */
#define IB_PORT_LINK_SPEED_SUPPORTED_MASK 0xF0 /**< LinkSpeedSupported bits of ib_port_info_t::state_info1. */
#define IB_PORT_LINK_SPEED_ACTIVE_MASK 0xF0    /**< LinkSpeedActive bits of ib_port_info_t::link_speed. */
#define IB_PORT_LINK_SPEED_ENABLED_MASK 0x0F   /**< LinkSpeedEnabled bits of ib_port_info_t::link_speed. */
#define IB_PORT_PHYS_STATE_MASK 0xF0           /**< PortPhysicalState bits of ib_port_info_t::state_info2. */
#define IB_PORT_PHYS_STATE_SHIFT 4             /**< Position of PortPhysicalState. */
#define IB_PORT_LNKDWNDFTSTATE_MASK 0x0F       /**< LinkDownDefaultState bits of ib_port_info_t::state_info2. */

/* CapabilityMask bits, in network byte order (14.2.5.6, table 146). */
#define IB_PORT_CAP_RESV0 (CL_HTON32(0x00000001))                         /**< Reserved. */
#define IB_PORT_CAP_IS_SM (CL_HTON32(0x00000002))                         /**< IsSM: an SM runs on the port. */
#define IB_PORT_CAP_HAS_NOTICE (CL_HTON32(0x00000004))                    /**< IsNoticeSupported. */
#define IB_PORT_CAP_HAS_TRAP (CL_HTON32(0x00000008))                      /**< IsTrapSupported. */
#define IB_PORT_CAP_HAS_IPD (CL_HTON32(0x00000010))                       /**< IsOptionalIPDSupported. */
#define IB_PORT_CAP_HAS_AUTO_MIG (CL_HTON32(0x00000020))                  /**< IsAutomaticMigrationSupported. */
#define IB_PORT_CAP_HAS_SL_MAP (CL_HTON32(0x00000040))                    /**< IsSLMappingSupported. */
#define IB_PORT_CAP_HAS_NV_MKEY (CL_HTON32(0x00000080))                   /**< IsMKeyNVRAM. */
#define IB_PORT_CAP_HAS_NV_PKEY (CL_HTON32(0x00000100))                   /**< IsPKeyNVRAM. */
#define IB_PORT_CAP_HAS_LED_INFO (CL_HTON32(0x00000200))                  /**< IsLedInfoSupported. */
#define IB_PORT_CAP_SM_DISAB (CL_HTON32(0x00000400))                      /**< IsSMdisabled. */
#define IB_PORT_CAP_HAS_SYS_IMG_GUID (CL_HTON32(0x00000800))              /**< IsSystemImageGUIDSupported. */
#define IB_PORT_CAP_HAS_PKEY_SW_EXT_PORT_TRAP (CL_HTON32(0x00001000))     /**< IsPKeySwitchExternalPortTrapSupported. */
#define IB_PORT_CAP_RESV13 (CL_HTON32(0x00002000))                        /**< Bit 13 (IsCableInfoSupported in IBA 1.3). */
#define IB_PORT_CAP_HAS_CABLE_INFO (CL_HTON32(0x00002000))                /**< IsCableInfoSupported (OpenSM's name for bit 13). */
#define IB_PORT_CAP_HAS_EXT_SPEEDS (CL_HTON32(0x00004000))                /**< IsExtendedSpeedsSupported. */
#define IB_PORT_CAP_HAS_CAP_MASK2 (CL_HTON32(0x00008000))                 /**< IsCapabilityMask2Supported. */
#define IB_PORT_CAP_HAS_COM_MGT (CL_HTON32(0x00010000))                   /**< IsCommunicationManagementSupported. */
#define IB_PORT_CAP_HAS_SNMP (CL_HTON32(0x00020000))                      /**< IsSNMPTunnelingSupported. */
#define IB_PORT_CAP_REINIT (CL_HTON32(0x00040000))                        /**< IsReinitSupported. */
#define IB_PORT_CAP_HAS_DEV_MGT (CL_HTON32(0x00080000))                   /**< IsDeviceManagementSupported. */
#define IB_PORT_CAP_HAS_VEND_CLS (CL_HTON32(0x00100000))                  /**< IsVendorClassSupported. */
#define IB_PORT_CAP_HAS_DR_NTC (CL_HTON32(0x00200000))                    /**< IsDRNoticeSupported. */
#define IB_PORT_CAP_HAS_CAP_NTC (CL_HTON32(0x00400000))                   /**< IsCapabilityMaskNoticeSupported. */
#define IB_PORT_CAP_HAS_BM (CL_HTON32(0x00800000))                        /**< IsBootManagementSupported. */
#define IB_PORT_CAP_HAS_LINK_RT_LATENCY (CL_HTON32(0x01000000))           /**< IsLinkRoundTripLatencySupported. */
#define IB_PORT_CAP_HAS_CLIENT_REREG (CL_HTON32(0x02000000))              /**< IsClientReregistrationSupported. */
#define IB_PORT_CAP_HAS_OTHER_LOCAL_CHANGES_NTC (CL_HTON32(0x04000000))   /**< IsOtherLocalChangesNoticeSupported. */
#define IB_PORT_CAP_HAS_LINK_SPEED_WIDTH_PAIRS_TBL (CL_HTON32(0x08000000)) /**< IsLinkSpeedWidthPairsTableSupported. */
#define IB_PORT_CAP_HAS_VEND_MADS (CL_HTON32(0x10000000))                 /**< IsVendorSpecificMadsTableSupported. */
#define IB_PORT_CAP_HAS_MCAST_PKEY_TRAP_SUPPRESS (CL_HTON32(0x20000000))  /**< IsMcastPkeyTrapSuppressionSupported. */
#define IB_PORT_CAP_HAS_MCAST_FDB_TOP (CL_HTON32(0x40000000))             /**< IsMulticastFDBTopSupported. */
#define IB_PORT_CAP_HAS_HIER_INFO (CL_HTON32(0x80000000))                 /**< IsHierarchyInfoSupported. */
#define IB_PORT_CAP_RESV14 IB_PORT_CAP_HAS_EXT_SPEEDS                     /**< Former name of bit 14, kept by upstream for old OpenSM code. */
#define IB_PORT_CAP_RESV15 IB_PORT_CAP_HAS_CAP_MASK2                      /**< Former name of bit 15, kept by upstream for old OpenSM code. */

/* CapabilityMask2 bits, in network byte order (from OpenSM). */
#define IB_PORT_CAP2_IS_SET_NODE_DESC_SUPPORTED (CL_HTON16(0x0001))    /**< IsSetNodeDescriptionSupported. */
#define IB_PORT_CAP2_IS_PORT_INFO_EXT_SUPPORTED (CL_HTON16(0x0002))    /**< IsPortInfoExtendedSupported. */
#define IB_PORT_CAP2_IS_VIRT_SUPPORTED (CL_HTON16(0x0004))             /**< IsVirtualizationSupported. */
#define IB_PORT_CAP2_IS_SWITCH_PORT_STATE_TBL_SUPP (CL_HTON16(0x0008)) /**< IsSwitchPortStateTableSupported. */
#define IB_PORT_CAP2_IS_LINK_WIDTH_2X_SUPPORTED (CL_HTON16(0x0010))    /**< IsLinkWidth2xSupported. */
#define IB_PORT_CAP2_IS_LINK_SPEED_HDR_SUPPORTED (CL_HTON16(0x0020))   /**< IsLinkSpeedHDRSupported. */

/* ------------------------------------------------------------------------ */
/* PortInfoExtended (14.2.5.19, from OpenSM)                                */
/* ------------------------------------------------------------------------ */

#include <complib/cl_packon.h>
/** PortInfoExtended attribute (14.2.5.19): 64 bytes. */
typedef struct _ib_port_info_ext {
	ib_net32_t cap_mask;            /**< CapabilityMask: IB_PORT_EXT_CAP_* bits. */
	ib_net16_t fec_mode_active;     /**< FECModeActive: IB_PORT_EXT_*_FEC_MODE_ACTIVE. */
	ib_net16_t fdr_fec_mode_sup;    /**< FDRFECModeSupported. */
	ib_net16_t fdr_fec_mode_enable; /**< FDRFECModeEnabled. */
	ib_net16_t edr_fec_mode_sup;    /**< EDRFECModeSupported. */
	ib_net16_t edr_fec_mode_enable; /**< EDRFECModeEnabled. */
	ib_net16_t hdr_fec_mode_sup;    /**< HDRFECModeSupported. */
	ib_net16_t hdr_fec_mode_enable; /**< HDRFECModeEnabled. */
	uint8_t reserved[46];           /**< Reserved. */
} PACK_SUFFIX ib_port_info_ext_t;
#include <complib/cl_packoff.h>

#define IB_PORT_EXT_NO_FEC_MODE_ACTIVE 0                            /**< FECModeActive: no FEC. */
#define IB_PORT_EXT_FIRE_CODE_FEC_MODE_ACTIVE (CL_HTON16(0x0001))   /**< FECModeActive: Firecode FEC. */
#define IB_PORT_EXT_RS_FEC_MODE_ACTIVE (CL_HTON16(0x0002))          /**< FECModeActive: RS-FEC. */
#define IB_PORT_EXT_LOW_LATENCY_RS_FEC_MODE_ACTIVE (CL_HTON16(0x0003)) /**< FECModeActive: low-latency RS-FEC. */
#define IB_PORT_EXT_CAP_IS_FEC_MODE_SUPPORTED (CL_HTON32(0x00000001)) /**< PortInfoExtended CapabilityMask: IsFECModeSupported. */

/* ------------------------------------------------------------------------ */
/* PortInfo helpers                                                         */
/* ------------------------------------------------------------------------ */

/**
 * Reads PortState.
 * @param p_pi the PortInfo attribute.
 * @return the port state, IB_LINK_NO_CHANGE to IB_LINK_ACT_DEFER.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_port_state(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)(p_pi->state_info1 & IB_PORT_STATE_MASK);
}

/**
 * Writes PortState, leaving LinkSpeedSupported alone.
 * @param p_pi the PortInfo attribute.
 * @param port_state the new port state; only its low 4 bits are used.
 */
AL_INLINE void AL_API ib_port_info_set_port_state(IN ib_port_info_t *const p_pi,
						  IN const uint8_t port_state)
{
	p_pi->state_info1 = (uint8_t)((p_pi->state_info1 & ~IB_PORT_STATE_MASK) |
				      (port_state & IB_PORT_STATE_MASK));
}

/**
 * Reads VLCap.
 * @param p_pi the PortInfo attribute.
 * @return the encoded number of data VLs the port supports.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_vl_cap(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)((p_pi->vl_cap >> 4) & 0x0F);
}

/**
 * Reads InitType.
 * @param p_pi the PortInfo attribute.
 * @return the InitType bits.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_init_type(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)(p_pi->vl_cap & 0x0F);
}

/**
 * Reads OperationalVLs.
 * @param p_pi the PortInfo attribute.
 * @return the encoded number of operational data VLs.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_op_vls(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)((p_pi->vl_enforce >> 4) & 0x0F);
}

/**
 * Writes OperationalVLs, leaving the partition enforcement bits alone.
 * @param p_pi the PortInfo attribute.
 * @param op_vls the encoded number of operational VLs; only its low 4 bits are used.
 */
AL_INLINE void AL_API ib_port_info_set_op_vls(IN ib_port_info_t *const p_pi,
					      IN const uint8_t op_vls)
{
	p_pi->vl_enforce = (uint8_t)((p_pi->vl_enforce & 0x0F) | ((op_vls & 0x0F) << 4));
}

/**
 * Makes a PortInfo Set() change no state: PortState, PortPhysicalState and
 * LinkDownDefaultState all become "no change" (0).
 * @param p_pi the PortInfo attribute.
 */
AL_INLINE void AL_API ib_port_info_set_state_no_change(IN ib_port_info_t *const p_pi)
{
	ib_port_info_set_port_state(p_pi, IB_LINK_NO_CHANGE);
	p_pi->state_info2 = 0;
}

/**
 * Reads LinkSpeedSupported.
 * @param p_pi the PortInfo attribute.
 * @return the supported speeds, a combination of IB_LINK_SPEED_ACTIVE_* bits.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_link_speed_sup(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)((p_pi->state_info1 & IB_PORT_LINK_SPEED_SUPPORTED_MASK) >>
			 IB_PORT_LINK_SPEED_SHIFT);
}

/**
 * Writes LinkSpeedSupported, leaving PortState alone. Note the argument
 * order: the value comes first.
 * @param speed the supported speeds; only the low 4 bits are used.
 * @param p_pi the PortInfo attribute.
 */
AL_INLINE void AL_API ib_port_info_set_link_speed_sup(IN uint8_t const speed,
						      IN ib_port_info_t *p_pi)
{
	p_pi->state_info1 = (uint8_t)((p_pi->state_info1 & ~IB_PORT_LINK_SPEED_SUPPORTED_MASK) |
				      ((speed << IB_PORT_LINK_SPEED_SHIFT) &
				       IB_PORT_LINK_SPEED_SUPPORTED_MASK));
}

/**
 * Reads PortPhysicalState.
 * @param p_pi the PortInfo attribute.
 * @return IB_PORT_PHYS_STATE_NO_CHANGE to IB_PORT_PHYS_STATE_PHYTEST.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_port_phys_state(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)((p_pi->state_info2 & IB_PORT_PHYS_STATE_MASK) >>
			 IB_PORT_PHYS_STATE_SHIFT);
}

/**
 * Writes PortPhysicalState, leaving LinkDownDefaultState alone. Note the
 * argument order: the value comes first.
 * @param phys_state an IB_PORT_PHYS_STATE_* value; only the low 4 bits are used.
 * @param p_pi the PortInfo attribute.
 */
AL_INLINE void AL_API ib_port_info_set_port_phys_state(IN uint8_t const phys_state,
						       IN ib_port_info_t *p_pi)
{
	p_pi->state_info2 = (uint8_t)((p_pi->state_info2 & ~IB_PORT_PHYS_STATE_MASK) |
				      ((phys_state << IB_PORT_PHYS_STATE_SHIFT) &
				       IB_PORT_PHYS_STATE_MASK));
}

/**
 * Reads LinkDownDefaultState.
 * @param p_pi the PortInfo attribute.
 * @return the physical state a link takes when it goes down (2 polling, 1 sleep).
 */
AL_INLINE uint8_t AL_API ib_port_info_get_link_down_def_state(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)(p_pi->state_info2 & IB_PORT_LNKDWNDFTSTATE_MASK);
}

/**
 * Writes LinkDownDefaultState, leaving PortPhysicalState alone.
 * @param p_pi the PortInfo attribute.
 * @param link_dwn_state the new default state; only the low 4 bits are used.
 */
AL_INLINE void AL_API ib_port_info_set_link_down_def_state(IN ib_port_info_t *const p_pi,
							   IN const uint8_t link_dwn_state)
{
	p_pi->state_info2 = (uint8_t)((p_pi->state_info2 & ~IB_PORT_LNKDWNDFTSTATE_MASK) |
				      (link_dwn_state & IB_PORT_LNKDWNDFTSTATE_MASK));
}

/**
 * Reads LinkSpeedActive.
 * @param p_pi the PortInfo attribute.
 * @return an IB_LINK_SPEED_ACTIVE_* value.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_link_speed_active(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)((p_pi->link_speed & IB_PORT_LINK_SPEED_ACTIVE_MASK) >>
			 IB_PORT_LINK_SPEED_SHIFT);
}

/* The link width, link speed and rate codes (IB_LINK_WIDTH_ACTIVE_*,
 * IB_LINK_SPEED_*, IB_PATH_RECORD_RATE_*, IB_MIN_RATE, IB_MAX_RATE) and the
 * PortPhysicalState values (IB_PORT_PHYS_STATE_*) are in ib_types_base.h. */

/**
 * Reads LinkSpeedExtActive.
 * @param p_pi the PortInfo attribute.
 * @return an IB_LINK_SPEED_EXT_ACTIVE_* value.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_link_speed_ext_active(IN const ib_port_info_t *const p_pi);

/**
 * Computes the path rate code of a port from its active width and speed.
 * With @p extended set and an FDR or EDR LinkSpeedExtActive, the extended
 * speed decides; otherwise LinkSpeedActive does (an unknown speed gives
 * 2.5 Gb/s). A width other than 1x, 4x, 8x or 12x counts as 1x.
 * @param p_pi the PortInfo attribute.
 * @param extended non-zero to take LinkSpeedExtActive into account.
 * @return an IB_PATH_RECORD_RATE_* code, IB_MIN_RATE to IB_MAX_RATE.
 */
AL_INLINE uint8_t AL_API ib_port_info_compute_rate(IN const ib_port_info_t *const p_pi,
						   IN const int extended)
{
	/* Rows: speed; columns: 1x, 4x, 8x, 12x. */
	static const uint8_t ext_rates[2][4] = {
		{ IB_PATH_RECORD_RATE_14_GBS, IB_PATH_RECORD_RATE_56_GBS,
		  IB_PATH_RECORD_RATE_112_GBS, IB_PATH_RECORD_RATE_168_GBS },
		{ IB_PATH_RECORD_RATE_25_GBS, IB_PATH_RECORD_RATE_100_GBS,
		  IB_PATH_RECORD_RATE_200_GBS, IB_PATH_RECORD_RATE_300_GBS },
	};
	static const uint8_t base_rates[3][4] = {
		{ IB_PATH_RECORD_RATE_2_5_GBS, IB_PATH_RECORD_RATE_10_GBS,
		  IB_PATH_RECORD_RATE_20_GBS, IB_PATH_RECORD_RATE_30_GBS },
		{ IB_PATH_RECORD_RATE_5_GBS, IB_PATH_RECORD_RATE_20_GBS,
		  IB_PATH_RECORD_RATE_40_GBS, IB_PATH_RECORD_RATE_60_GBS },
		{ IB_PATH_RECORD_RATE_10_GBS, IB_PATH_RECORD_RATE_40_GBS,
		  IB_PATH_RECORD_RATE_80_GBS, IB_PATH_RECORD_RATE_120_GBS },
	};
	unsigned col;

	switch (p_pi->link_width_active) { /* an unknown width counts as 1x */
	case IB_LINK_WIDTH_ACTIVE_4X:
		col = 1;
		break;
	case IB_LINK_WIDTH_ACTIVE_8X:
		col = 2;
		break;
	case IB_LINK_WIDTH_ACTIVE_12X:
		col = 3;
		break;
	default:
		col = 0;
		break;
	}

	if (extended) {
		switch (ib_port_info_get_link_speed_ext_active(p_pi)) {
		case IB_LINK_SPEED_EXT_ACTIVE_14:
			return ext_rates[0][col];
		case IB_LINK_SPEED_EXT_ACTIVE_25:
			return ext_rates[1][col];
		default:
			break;
		}
	}
	switch (ib_port_info_get_link_speed_active(p_pi)) {
	case IB_LINK_SPEED_ACTIVE_2_5:
		return base_rates[0][col];
	case IB_LINK_SPEED_ACTIVE_5:
		return base_rates[1][col];
	case IB_LINK_SPEED_ACTIVE_10:
		return base_rates[2][col];
	default:
		return IB_PATH_RECORD_RATE_2_5_GBS;
	}
}

/**
 * Computes the inter-packet delay a port must apply to a path that is
 * slower than its link.
 * @param local_link_width_supported LinkWidthSupported of the local port
 * (1: 1x; 3: 1x or 4x; 11: 1x, 4x or 12x).
 * @param path_rec_rate Rate byte of the path record (the selector bits are ignored).
 * @return the IPD: 3 for a 2.5 Gb/s path on a 4x port, 11 or 2 for a
 * 2.5 or 10 Gb/s path on a 12x port, 0 otherwise.
 */
AL_INLINE uint8_t AL_API ib_path_get_ipd(IN uint8_t local_link_width_supported,
					 IN uint8_t path_rec_rate)
{
	const uint8_t rate = (uint8_t)(path_rec_rate & 0x3F);

	if (local_link_width_supported == 3 && rate == IB_PATH_RECORD_RATE_2_5_GBS)
		return 3;
	if (local_link_width_supported == 11) {
		if (rate == IB_PATH_RECORD_RATE_2_5_GBS)
			return 11;
		if (rate == IB_PATH_RECORD_RATE_10_GBS)
			return 2;
	}
	return 0;
}

/**
 * Reads MTUCap.
 * @param p_pi the PortInfo attribute.
 * @return the encoded largest MTU the port supports (IB_MTU_LEN_*).
 */
AL_INLINE uint8_t AL_API ib_port_info_get_mtu_cap(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)(p_pi->mtu_cap & 0x0F);
}

/**
 * Reads NeighborMTU.
 * @param p_pi the PortInfo attribute.
 * @return the encoded active MTU of the link (IB_MTU_LEN_*).
 */
AL_INLINE uint8_t AL_API ib_port_info_get_neighbor_mtu(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)((p_pi->mtu_smsl & 0xF0) >> 4);
}

/**
 * Writes NeighborMTU, leaving MasterSMSL alone.
 * @param p_pi the PortInfo attribute.
 * @param mtu encoded MTU, IB_MTU_LEN_256 (1) to IB_MTU_LEN_4096 (5); asserted.
 */
AL_INLINE void AL_API ib_port_info_set_neighbor_mtu(IN ib_port_info_t *const p_pi,
						    IN const uint8_t mtu)
{
	CL_ASSERT(mtu <= 5);
	CL_ASSERT(mtu != 0);
	p_pi->mtu_smsl = (uint8_t)((p_pi->mtu_smsl & 0x0F) | ((mtu & 0x0F) << 4));
}

/**
 * Reads MasterSMSL.
 * @param p_pi the PortInfo attribute.
 * @return the SL used to reach the master SM.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_master_smsl(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)(p_pi->mtu_smsl & 0x0F);
}

/**
 * Writes MasterSMSL, leaving NeighborMTU alone.
 * @param p_pi the PortInfo attribute.
 * @param smsl the SL; only the low 4 bits are used.
 */
AL_INLINE void AL_API ib_port_info_set_master_smsl(IN ib_port_info_t *const p_pi,
						   IN const uint8_t smsl)
{
	p_pi->mtu_smsl = (uint8_t)((p_pi->mtu_smsl & 0xF0) | (smsl & 0x0F));
}

/**
 * Reads MasterSMSL (upstream's other name for ib_port_info_get_master_smsl).
 * @param p_pi the PortInfo attribute.
 * @return the SL used to reach the master SM.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_sm_sl(IN const ib_port_info_t *const p_pi)
{
	return ib_port_info_get_master_smsl(p_pi);
}

/**
 * Writes MasterSMSL (upstream's other name for ib_port_info_set_master_smsl).
 * @param p_pi the PortInfo attribute.
 * @param sm_sl the SL; only the low 4 bits are used.
 */
AL_INLINE void AL_API ib_port_info_set_sm_sl(IN ib_port_info_t *const p_pi,
					     IN const uint8_t sm_sl)
{
	ib_port_info_set_master_smsl(p_pi, sm_sl);
}

/**
 * Writes SubnetTimeOut, leaving the two flag bits above it alone.
 * @param p_pi the PortInfo attribute.
 * @param timeout encoded timeout (4.096 us * 2^timeout), at most 0x1F; asserted.
 */
AL_INLINE void AL_API ib_port_info_set_timeout(IN ib_port_info_t *const p_pi,
					       IN const uint8_t timeout)
{
	CL_ASSERT(timeout <= 0x1F);
	p_pi->subnet_timeout = (uint8_t)((p_pi->subnet_timeout & 0xE0) | (timeout & 0x1F));
}

/**
 * Writes ClientReregister (bit 7 of ib_port_info_t::subnet_timeout).
 * @param p_pi the PortInfo attribute.
 * @param client_rereg 1 to ask the port's clients to reregister, 0 otherwise; asserted.
 */
AL_INLINE void AL_API ib_port_info_set_client_rereg(IN ib_port_info_t *const p_pi,
						    IN const uint8_t client_rereg)
{
	CL_ASSERT(client_rereg <= 0x1);
	p_pi->subnet_timeout = (uint8_t)((p_pi->subnet_timeout & 0x7F) | ((client_rereg & 0x1) << 7));
}

/**
 * Writes MulticastPKeyTrapSuppressionEnabled (bit 6 of
 * ib_port_info_t::subnet_timeout, as OFED for Windows defines it).
 * @param p_pi the PortInfo attribute.
 * @param trap_suppress 1 to suppress the traps, 0 otherwise; asserted.
 */
AL_INLINE void AL_API ib_port_info_set_mcast_pkey_trap_suppress(IN ib_port_info_t *const p_pi,
								IN const uint8_t trap_suppress)
{
	CL_ASSERT(trap_suppress <= 0x1);
	p_pi->subnet_timeout = (uint8_t)((p_pi->subnet_timeout & 0xBF) | ((trap_suppress & 0x1) << 6));
}

/**
 * Reads SubnetTimeOut.
 * @param p_pi the PortInfo attribute.
 * @return the encoded timeout, 0 to 0x1F.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_timeout(IN ib_port_info_t const *p_pi)
{
	return (uint8_t)(p_pi->subnet_timeout & 0x1F);
}

AL_INLINE uint8_t AL_API ib_port_info_get_link_speed_ext_active(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)((p_pi->link_speed_ext & 0xF0) >> 4);
}

/**
 * Reads LinkSpeedExtSupported.
 * @param p_pi the PortInfo attribute.
 * @return a combination of IB_LINK_SPEED_EXT_ACTIVE_* bits.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_link_speed_ext_sup(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)(p_pi->link_speed_ext & 0x0F);
}

/**
 * Reads LinkSpeedExtEnabled.
 * @param p_pi the PortInfo attribute.
 * @return the 5-bit LinkSpeedExtEnabled value.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_link_speed_ext_enabled(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)(p_pi->link_speed_ext_enabled & 0x1F);
}

/**
 * Writes LinkSpeedExtEnabled; the three reserved bits above it become zero.
 * @param p_pi the PortInfo attribute.
 * @param link_speed_ext_enabled the new value, at most 0x1F; asserted.
 */
AL_INLINE void AL_API ib_port_info_set_link_speed_ext_enabled(IN ib_port_info_t *const p_pi,
							      IN const uint8_t link_speed_ext_enabled)
{
	CL_ASSERT(link_speed_ext_enabled <= 0x1F);
	p_pi->link_speed_ext_enabled = (uint8_t)(link_speed_ext_enabled & 0x1F);
}

/**
 * Reads RespTimeValue.
 * @param p_pi the PortInfo attribute.
 * @return the encoded response time, 0 to 0x1F.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_resp_time_value(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)(p_pi->resp_time_value & 0x1F);
}

/**
 * Reads ClientReregister.
 * @param p_pi the PortInfo attribute.
 * @return 1 or 0.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_client_rereg(IN ib_port_info_t const *p_pi)
{
	return (uint8_t)((p_pi->subnet_timeout & 0x80) >> 7);
}

/**
 * Reads MulticastPKeyTrapSuppressionEnabled (bit 6 of
 * ib_port_info_t::subnet_timeout, as OFED for Windows defines it).
 * @param p_pi the PortInfo attribute.
 * @return 1 or 0.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_mcast_pkey_trap_suppress(IN ib_port_info_t const *p_pi)
{
	return (uint8_t)((p_pi->subnet_timeout & 0x40) >> 6);
}

/**
 * Writes HOQLife, the head-of-queue lifetime, leaving VLStallCount alone.
 * @param p_pi the PortInfo attribute.
 * @param hoq_life the encoded lifetime; only the low 5 bits are used.
 */
AL_INLINE void AL_API ib_port_info_set_hoq_lifetime(IN ib_port_info_t *const p_pi,
						    IN const uint8_t hoq_life)
{
	p_pi->vl_stall_life = (uint8_t)((p_pi->vl_stall_life & 0xE0) | (hoq_life & 0x1F));
}

/**
 * Reads HOQLife.
 * @param p_pi the PortInfo attribute.
 * @return the encoded head-of-queue lifetime, 0 to 0x1F.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_hoq_lifetime(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)(p_pi->vl_stall_life & 0x1F);
}

/**
 * Writes VLStallCount, the number of consecutive head-of-queue drops that
 * stall a VL, leaving HOQLife alone.
 * @param p_pi the PortInfo attribute.
 * @param vl_stall_count the count; only the low 3 bits are used.
 */
AL_INLINE void AL_API ib_port_info_set_vl_stall_count(IN ib_port_info_t *const p_pi,
						      IN const uint8_t vl_stall_count)
{
	p_pi->vl_stall_life = (uint8_t)((p_pi->vl_stall_life & 0x1F) | ((vl_stall_count << 5) & 0xE0));
}

/**
 * Reads VLStallCount.
 * @param p_pi the PortInfo attribute.
 * @return the count, 0 to 7.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_vl_stall_count(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)((p_pi->vl_stall_life & 0xE0) >> 5);
}

/**
 * Reads the LMC.
 * @param p_pi the PortInfo attribute.
 * @return the LID mask control, 0 to IB_PORT_LMC_MAX.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_lmc(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)(p_pi->mkey_lmc & IB_PORT_LMC_MASK);
}

/**
 * Writes the LMC, leaving the M_Key protection and reserved bits alone.
 * @param p_pi the PortInfo attribute.
 * @param lmc the LID mask control, at most IB_PORT_LMC_MAX; asserted.
 */
AL_INLINE void AL_API ib_port_info_set_lmc(IN ib_port_info_t *const p_pi, IN const uint8_t lmc)
{
	CL_ASSERT(lmc <= IB_PORT_LMC_MAX);
	p_pi->mkey_lmc = (uint8_t)((p_pi->mkey_lmc & ~IB_PORT_LMC_MASK) | (lmc & IB_PORT_LMC_MASK));
}

/**
 * Reads LinkSpeedEnabled.
 * @param p_pi the PortInfo attribute.
 * @return the enabled speeds (IB_LINK_SPEED_ACTIVE_* bits, or IB_LINK_SPEED_SET_LSS).
 */
AL_INLINE uint8_t AL_API ib_port_info_get_link_speed_enabled(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)(p_pi->link_speed & IB_PORT_LINK_SPEED_ENABLED_MASK);
}

/**
 * Writes LinkSpeedEnabled, leaving LinkSpeedActive alone.
 * @param p_pi the PortInfo attribute.
 * @param link_speed_enabled the enabled speeds; only the low 4 bits are used.
 */
AL_INLINE void AL_API ib_port_info_set_link_speed_enabled(IN ib_port_info_t *const p_pi,
							  IN const uint8_t link_speed_enabled)
{
	p_pi->link_speed = (uint8_t)((p_pi->link_speed & ~IB_PORT_LINK_SPEED_ENABLED_MASK) |
				     (link_speed_enabled & IB_PORT_LINK_SPEED_ENABLED_MASK));
}

/**
 * Reads M_KeyProtectBits.
 * @param p_pi the PortInfo attribute.
 * @return the protection level, 0 to 3.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_mpb(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)((p_pi->mkey_lmc & IB_PORT_MPB_MASK) >> IB_PORT_MPB_SHIFT);
}

/**
 * Writes M_KeyProtectBits, leaving the LMC alone.
 * @param p_pi the PortInfo attribute.
 * @param mpb the protection level; only the low 2 bits are used.
 */
AL_INLINE void AL_API ib_port_info_set_mpb(IN ib_port_info_t *p_pi, IN uint8_t mpb)
{
	p_pi->mkey_lmc = (uint8_t)((p_pi->mkey_lmc & ~IB_PORT_MPB_MASK) |
				   ((mpb << IB_PORT_MPB_SHIFT) & IB_PORT_MPB_MASK));
}

/**
 * Reads LocalPhyErrors, the physical link error threshold.
 * @param p_pi the PortInfo attribute.
 * @return the threshold, 0 to 15.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_local_phy_err_thd(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)((p_pi->error_threshold & 0xF0) >> 4);
}

/**
 * Reads OverrunErrors, the credit overrun error threshold.
 * @param p_pi the PortInfo attribute.
 * @return the threshold, 0 to 15.
 */
AL_INLINE uint8_t AL_API ib_port_info_get_overrun_err_thd(IN const ib_port_info_t *const p_pi)
{
	return (uint8_t)(p_pi->error_threshold & 0x0F);
}

/**
 * Writes both error thresholds above which a port sends trap 129.
 * @param p_pi the PortInfo attribute.
 * @param phy_threshold LocalPhyErrors; only the low 4 bits are used.
 * @param overrun_threshold OverrunErrors; only the low 4 bits are used.
 */
AL_INLINE void AL_API ib_port_info_set_phy_and_overrun_err_thd(IN ib_port_info_t *const p_pi,
							       IN uint8_t phy_threshold,
							       IN uint8_t overrun_threshold)
{
	p_pi->error_threshold = (uint8_t)(((phy_threshold & 0x0F) << 4) | (overrun_threshold & 0x0F));
}

/**
 * Reads the M_Key (from OpenSM).
 * @param p_pi the PortInfo attribute.
 * @return the M_Key in network byte order.
 */
AL_INLINE ib_net64_t AL_API ib_port_info_get_m_key(IN const ib_port_info_t *const p_pi)
{
	return p_pi->m_key;
}

/**
 * Writes the M_Key (from OpenSM).
 * @param p_pi the PortInfo attribute.
 * @param m_key the M_Key in network byte order.
 */
AL_INLINE void AL_API ib_port_info_set_m_key(IN ib_port_info_t *const p_pi, IN ib_net64_t m_key)
{
	p_pi->m_key = m_key;
}

/** FDR10 bit of the Mellanox ExtendedPortInfo link speed fields. */
#define FDR10 0x01

/**
 * Picks the fastest speed of a combined speed bit field (from OpenSM).
 * The low 3 bits carry LinkSpeedSupported/Enabled, bit 3 FDR10 and the high
 * nibble LinkSpeedExtSupported/Enabled.
 * @param speeds the combined bit field.
 * @return the single bit of the fastest speed at its position in @p speeds
 * (0x40 HDR, 0x20 EDR, 0x10 FDR, 0x08 FDR10, 4 QDR, 2 DDR, 1 SDR), or 0.
 */
AL_INLINE uint8_t AL_API ib_get_highest_link_speed(IN const uint8_t speeds)
{
	static const uint8_t order[] = {
		IB_LINK_SPEED_EXT_ACTIVE_50 << 4, IB_LINK_SPEED_EXT_ACTIVE_25 << 4,
		IB_LINK_SPEED_EXT_ACTIVE_14 << 4, FDR10 << 3, IB_LINK_SPEED_ACTIVE_10,
		IB_LINK_SPEED_ACTIVE_5, IB_LINK_SPEED_ACTIVE_2_5,
	};
	size_t i;

	for (i = 0; i < sizeof(order); i++)
		if (speeds & order[i])
			return order[i];
	return 0;
}

/**
 * Picks the widest width of a LinkWidth bit field (from OpenSM).
 * @param widths IB_LINK_WIDTH_ACTIVE_* bits.
 * @return the widest width bit (12x, 8x, 4x, 2x, then 1x), or 0.
 */
AL_INLINE uint8_t AL_API ib_get_highest_link_width(IN const uint8_t widths)
{
	static const uint8_t order[] = {
		IB_LINK_WIDTH_ACTIVE_12X, IB_LINK_WIDTH_ACTIVE_8X, IB_LINK_WIDTH_ACTIVE_4X,
		IB_LINK_WIDTH_ACTIVE_2X, IB_LINK_WIDTH_ACTIVE_1X,
	};
	size_t i;

	for (i = 0; i < sizeof(order); i++)
		if (widths & order[i])
			return order[i];
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Mellanox ExtendedPortInfo (vendor-specific SM attribute 0xFF90)          */
/* ------------------------------------------------------------------------ */

#include <complib/cl_packon.h>
/** Mellanox ExtendedPortInfo (IB_MAD_ATTR_MLNX_EXTENDED_PORT_INFO): 64 bytes. */
typedef struct _ib_mlnx_ext_port_info {
	uint8_t resvd1[3];            /**< Reserved. */
	uint8_t state_change_enable;  /**< StateChangeEnable. */
	uint8_t resvd2[3];            /**< Reserved. */
	uint8_t link_speed_supported; /**< Vendor link speeds supported (FDR10). */
	uint8_t resvd3[3];            /**< Reserved. */
	uint8_t link_speed_enabled;   /**< Vendor link speeds enabled (FDR10). */
	uint8_t resvd4[3];            /**< Reserved. */
	uint8_t link_speed_active;    /**< Vendor link speed active (FDR10). */
	uint8_t resvd5[48];           /**< Reserved. */
} PACK_SUFFIX ib_mlnx_ext_port_info_t;
#include <complib/cl_packoff.h>

/* ------------------------------------------------------------------------ */
/* SwitchInfo (14.2.5.4)                                                    */
/* ------------------------------------------------------------------------ */

#include <complib/cl_packon.h>
/** SwitchInfo attribute (14.2.5.4): 20 bytes. */
typedef struct _ib_switch_info {
	ib_net16_t lin_cap;         /**< LinearFDBCap. */
	ib_net16_t rand_cap;        /**< RandomFDBCap. */
	ib_net16_t mcast_cap;       /**< MulticastFDBCap. */
	ib_net16_t lin_top;         /**< LinearFDBTop. */
	uint8_t def_port;           /**< DefaultPort. */
	uint8_t def_mcast_pri_port; /**< DefaultMulticastPrimaryPort. */
	uint8_t def_mcast_not_port; /**< DefaultMulticastNotPrimaryPort. */
	uint8_t life_state;         /**< LifeTimeValue (bits 7-3), PortStateChange (bit 2), OptimizedSLtoVLMappingProgramming (bits 1-0). */
	ib_net16_t lids_per_port;   /**< LIDsPerPort. */
	ib_net16_t enforce_cap;     /**< PartitionEnforcementCap. */
	uint8_t flags;              /**< Inbound/outbound enforcement and filtering caps (bits 7-4), EnhancedPort0 (bit 3). */
	uint8_t resvd;              /**< Reserved. */
	ib_net16_t mcast_top;       /**< MulticastFDBTop. */
} PACK_SUFFIX ib_switch_info_t;
#include <complib/cl_packoff.h>

/** PortStateChange bit of ib_switch_info_t::life_state. */
#define IB_SWITCH_PSC 0x04

/**
 * Reads PortStateChange.
 * @param p_si the SwitchInfo attribute.
 * @return TRUE when a port of the switch changed state, FALSE otherwise.
 */
AL_INLINE boolean_t AL_API ib_switch_info_get_state_change(IN const ib_switch_info_t *const p_si)
{
	return (p_si->life_state & IB_SWITCH_PSC) == IB_SWITCH_PSC;
}

/**
 * Clears PortStateChange (writing 1 to it on the wire is what clears it in
 * the switch; this only clears the local copy).
 * @param p_si the SwitchInfo attribute.
 */
AL_INLINE void AL_API ib_switch_info_clear_state_change(IN ib_switch_info_t *const p_si)
{
	p_si->life_state = (uint8_t)(p_si->life_state & ~IB_SWITCH_PSC);
}

/**
 * Sets PortStateChange (from OpenSM), as a Set(SwitchInfo) that acknowledges
 * a state change does.
 * @param p_si the SwitchInfo attribute.
 */
AL_INLINE void AL_API ib_switch_info_state_change_set(IN ib_switch_info_t *const p_si)
{
	p_si->life_state = (uint8_t)(p_si->life_state | IB_SWITCH_PSC);
}

/**
 * Reads the OptimizedSLtoVLMappingProgramming capability.
 * @param p_si the SwitchInfo attribute.
 * @return TRUE when bit 0 of ib_switch_info_t::life_state is set, FALSE otherwise.
 */
AL_INLINE boolean_t AL_API ib_switch_info_get_opt_sl2vlmapping(IN const ib_switch_info_t *const p_si)
{
	return (p_si->life_state & 0x01) == 0x01;
}

/**
 * Writes LifeTimeValue (from OpenSM), leaving the three low bits alone.
 * @param p_si the SwitchInfo attribute.
 * @param life_time_val the encoded lifetime; only the low 5 bits are used.
 */
AL_INLINE void AL_API ib_switch_info_set_life_time(IN ib_switch_info_t *const p_si,
						   IN const uint8_t life_time_val)
{
	p_si->life_state = (uint8_t)((p_si->life_state & 0x07) | ((life_time_val & 0x1F) << 3));
}

/**
 * Reads EnhancedPort0.
 * @param p_si the SwitchInfo attribute.
 * @return TRUE when the switch's port 0 is an enhanced port, FALSE otherwise.
 */
AL_INLINE boolean_t AL_API ib_switch_info_is_enhanced_port0(IN const ib_switch_info_t *const p_si)
{
	return (p_si->flags & 0x08) == 0x08;
}

/* ------------------------------------------------------------------------ */
/* GUIDInfo (14.2.5.5) and P_KeyTable (14.2.5.7)                            */
/* ------------------------------------------------------------------------ */

/** Number of GUIDs in a GUIDInfo block. */
#define GUID_TABLE_MAX_ENTRIES 8

#include <complib/cl_packon.h>
/** GUIDInfo attribute (14.2.5.5): one block of 8 port GUIDs, 64 bytes. */
typedef struct _ib_guid_info {
	ib_net64_t guid[GUID_TABLE_MAX_ENTRIES]; /**< GUIDs, in network byte order. */
} PACK_SUFFIX ib_guid_info_t;
#include <complib/cl_packoff.h>

/** Number of P_Keys in a P_KeyTable block. */
#define IB_NUM_PKEY_ELEMENTS_IN_BLOCK 32

#include <complib/cl_packon.h>
/** P_KeyTable attribute (14.2.5.7): one block of 32 P_Keys, 64 bytes. */
typedef struct _ib_pkey_table {
	ib_net16_t pkey_entry[IB_NUM_PKEY_ELEMENTS_IN_BLOCK]; /**< P_Keys, in network byte order. */
} PACK_SUFFIX ib_pkey_table_t;
#include <complib/cl_packoff.h>

/* ------------------------------------------------------------------------ */
/* SLtoVLMappingTable (14.2.5.8)                                            */
/* ------------------------------------------------------------------------ */

/* IB_DROP_VL and IB_MAX_NUM_VLS are in ib_types_base.h. */

#include <complib/cl_packon.h>
/** SLtoVLMappingTable attribute (14.2.5.8): 8 bytes. */
typedef struct _ib_slvl_table {
	/** VL of each SL, two per byte: even SL in the high nibble, odd SL in the low nibble. */
	uint8_t raw_vl_by_sl[IB_MAX_NUM_VLS / 2];
} PACK_SUFFIX ib_slvl_table_t;
#include <complib/cl_packoff.h>

/**
 * Writes the VL of one SL.
 * @param p_slvl_tbl the table.
 * @param sl_index the SL, 0 to 15; asserted.
 * @param vl the VL, 0 to 15; asserted.
 */
AL_INLINE void AL_API ib_slvl_table_set(IN ib_slvl_table_t *p_slvl_tbl,
					IN const uint8_t sl_index, IN const uint8_t vl)
{
	uint8_t *const p_byte = &p_slvl_tbl->raw_vl_by_sl[(sl_index / 2) & 0x07];

	CL_ASSERT(vl <= 15);
	CL_ASSERT(sl_index <= 15);
	if (sl_index & 1)
		*p_byte = (uint8_t)((*p_byte & 0xF0) | (vl & 0x0F));
	else
		*p_byte = (uint8_t)((*p_byte & 0x0F) | ((vl & 0x0F) << 4));
}

/**
 * Reads the VL of one SL.
 * @param p_slvl_tbl the table.
 * @param sl_index the SL, 0 to 15; asserted.
 * @return the VL.
 */
AL_INLINE uint8_t AL_API ib_slvl_table_get(IN const ib_slvl_table_t *p_slvl_tbl,
					   IN const uint8_t sl_index)
{
	const uint8_t byte = p_slvl_tbl->raw_vl_by_sl[(sl_index / 2) & 0x07];

	CL_ASSERT(sl_index <= 15);
	return (uint8_t)((sl_index & 1) ? (byte & 0x0F) : (byte >> 4));
}

/* ------------------------------------------------------------------------ */
/* VLArbitrationTable (14.2.5.9)                                            */
/* ------------------------------------------------------------------------ */

#include <complib/cl_packon.h>
/** One VL arbitration table element (14.2.5.9): 2 bytes. */
typedef struct _ib_vl_arb_element {
	uint8_t vl;     /**< The VL (see ib_vl_arb_element_get_vl() for the nibble used). */
	uint8_t weight; /**< Weight: units of 64 bytes the VL may send in its turn. */
} PACK_SUFFIX ib_vl_arb_element_t;
#include <complib/cl_packoff.h>

/**
 * Reads the VL of an arbitration element the way OFED for Windows does:
 * from the high nibble of ib_vl_arb_element_t::vl. The specification puts
 * the VL in the low nibble (the high one is reserved); code that needs the
 * wire value reads `vl & 0x0F` itself.
 * @param vl_arb_element the element, by value.
 * @return the high nibble of the element's vl byte.
 */
AL_INLINE uint8_t AL_API ib_vl_arb_element_get_vl(IN const ib_vl_arb_element_t vl_arb_element)
{
	return (uint8_t)(vl_arb_element.vl >> 4);
}

/**
 * Writes the VL of an arbitration element the way OFED for Windows does:
 * into the high nibble of ib_vl_arb_element_t::vl, clearing the low one
 * (see ib_vl_arb_element_get_vl()).
 * @param p_vl_arb_element the element.
 * @param vl the VL; only the low 4 bits are used.
 */
AL_INLINE void AL_API ib_vl_arb_element_set_vl(IN OUT ib_vl_arb_element_t *const p_vl_arb_element,
					       IN const uint8_t vl)
{
	p_vl_arb_element->vl = (uint8_t)((vl & 0x0F) << 4);
}

/** Number of elements in a VLArbitrationTable block. */
#define IB_NUM_VL_ARB_ELEMENTS_IN_BLOCK 32

#include <complib/cl_packon.h>
/** VLArbitrationTable attribute (14.2.5.9): one block of 32 elements, 64 bytes. */
typedef struct _ib_vl_arb_table {
	ib_vl_arb_element_t vl_entry[IB_NUM_VL_ARB_ELEMENTS_IN_BLOCK]; /**< The elements. */
} PACK_SUFFIX ib_vl_arb_table_t;
#include <complib/cl_packoff.h>

/* ------------------------------------------------------------------------ */
/* Notice (13.4.8.2)                                                        */
/* ------------------------------------------------------------------------ */

/* The notice types (IB_NOTICE_TYPE_*) are in ib_types_base.h. */

/* Trap numbers of the subnet management traps (14.2.5.1; from OpenSM). */
#define SM_GID_IN_SERVICE_TRAP 64            /**< Trap 64: a GID is in service. */
#define SM_GID_OUT_OF_SERVICE_TRAP 65        /**< Trap 65: a GID is out of service. */
#define SM_MGID_CREATED_TRAP 66              /**< Trap 66: a multicast group was created. */
#define SM_MGID_DESTROYED_TRAP 67            /**< Trap 67: a multicast group was deleted. */
#define SM_UNPATH_TRAP 68                    /**< Trap 68: paths are no longer valid. */
#define SM_REPATH_TRAP 69                    /**< Trap 69: paths were recomputed. */
#define SM_LINK_STATE_CHANGED_TRAP 128       /**< Trap 128: a switch link state changed. */
#define SM_LINK_INTEGRITY_THRESHOLD_TRAP 129 /**< Trap 129: local link integrity threshold reached. */
#define SM_BUFFER_OVERRUN_THRESHOLD_TRAP 130 /**< Trap 130: excessive buffer overrun threshold reached. */
#define SM_WATCHDOG_TIMER_EXPIRED_TRAP 131   /**< Trap 131: flow control update watchdog expired. */
#define SM_LOCAL_CHANGES_TRAP 144            /**< Trap 144: capability mask or other local attributes changed. */
#define SM_SYS_IMG_GUID_CHANGED_TRAP 145     /**< Trap 145: system image GUID changed. */
#define SM_BAD_MKEY_TRAP 256                 /**< Trap 256: bad M_Key. */
#define SM_BAD_PKEY_TRAP 257                 /**< Trap 257: bad P_Key. */
#define SM_BAD_QKEY_TRAP 258                 /**< Trap 258: bad Q_Key. */
#define SM_BAD_SWITCH_PKEY_TRAP 259          /**< Trap 259: bad P_Key at a switch external port. */

#include <complib/cl_packon.h>
/**
 * Notice attribute (13.4.8.2): 80 bytes.
 *
 * The data details of traps 256, 257 and 258 follow OFED for Windows, whose
 * layouts differ from the specification past the fields documented here:
 * see the notes on _ntc_256 and _ntc_257_258.
 */
typedef struct _ib_mad_notice_attr {
	uint8_t generic_type; /**< IsGeneric (bit 7) and Type (bits 6-0, IB_NOTICE_TYPE_*). */

	/** ProducerType/TrapNumber of a generic notice, or VendorID/DeviceID of a vendor one. */
	union _notice_g_or_v {
		/** Generic notice. */
		struct _notice_generic {
			uint8_t prod_type_msb;    /**< ProducerType, bits 23-16. */
			ib_net16_t prod_type_lsb; /**< ProducerType, bits 15-0. */
			ib_net16_t trap_num;      /**< TrapNumber. */
		} PACK_SUFFIX generic;        /**< IsGeneric set. */
		/** Vendor-specific notice. */
		struct _notice_vend {
			uint8_t vend_id_msb;      /**< VendorID, bits 23-16. */
			ib_net16_t vend_id_lsb;   /**< VendorID, bits 15-0. */
			ib_net16_t dev_id;        /**< DeviceID. */
		} PACK_SUFFIX vend;           /**< IsGeneric clear. */
	} g_or_v;                         /**< Bytes 1-5. */

	ib_net16_t issuer_lid;   /**< IssuerLID. */
	ib_net16_t toggle_count; /**< NoticeToggle (bit 15) and NoticeCount (bits 14-0). */

	/** DataDetails: 54 bytes whose layout depends on the trap. */
	union _data_details {
		/** Uninterpreted bytes. */
		struct _raw_data {
			uint8_t details[54]; /**< The bytes. */
		} PACK_SUFFIX raw_data;  /**< Any trap. */

		/** Traps 64 to 67. */
		struct _ntc_64_67 {
			uint8_t res[6];      /**< Reserved. */
			ib_gid_t gid;        /**< The port or multicast group that came or went. */
		} PACK_SUFFIX ntc_64_67; /**< Traps 64 to 67. */

		/** Trap 128. */
		struct _ntc_128 {
			ib_net16_t sw_lid;   /**< LID of the switch whose link state changed. */
		} PACK_SUFFIX ntc_128;   /**< Trap 128. */

		/** Traps 129 to 131. */
		struct _ntc_129_131 {
			ib_net16_t pad;        /**< Reserved. */
			ib_net16_t lid;        /**< LID of the reporting port. */
			uint8_t port_num;      /**< Number of the port with the error. */
		} PACK_SUFFIX ntc_129_131; /**< Traps 129 to 131. */

		/** Trap 144. */
		struct _ntc_144 {
			ib_net16_t pad1;         /**< Reserved. */
			ib_net16_t lid;          /**< LID of the port whose attributes changed. */
			uint8_t pad2;            /**< Reserved. */
			uint8_t local_changes;   /**< OtherLocalChanges (bit 0, TRAP_144_MASK_OTHER_LOCAL_CHANGES). */
			ib_net32_t new_cap_mask; /**< The new CapabilityMask. */
			ib_net16_t change_flgs;  /**< What changed: TRAP_144_MASK_* bits. */
			ib_net16_t cap_mask2;    /**< The new CapabilityMask2 (from OpenSM). */
		} PACK_SUFFIX ntc_144;       /**< Trap 144. */

		/** Trap 145. */
		struct _ntc_145 {
			ib_net16_t pad1;         /**< Reserved. */
			ib_net16_t lid;          /**< LID of the port whose system image GUID changed. */
			ib_net16_t pad2;         /**< Reserved. */
			ib_net64_t new_sys_guid; /**< The new SystemImageGUID. */
		} PACK_SUFFIX ntc_145;       /**< Trap 145. */

		/**
		 * Trap 256 (bad M_Key). OFED for Windows names the 16 bits at
		 * offset 4 (the specification's DRSLID) pad2, and the byte at
		 * offset 22 (DRNotice, DRPathTruncated, DRHopCount) dr_slid.
		 */
		struct _ntc_256 {
			ib_net16_t pad1;          /**< Reserved. */
			ib_net16_t lid;           /**< LIDADDR: LID of the port that saw the bad M_Key. */
			ib_net16_t pad2;          /**< DRSLID in the specification. */
			uint8_t method;           /**< Method of the offending MAD. */
			uint8_t pad3;             /**< Reserved. */
			ib_net16_t attr_id;       /**< AttributeID of the offending MAD. */
			ib_net32_t attr_mod;      /**< AttributeModifier of the offending MAD. */
			ib_net64_t mkey;          /**< M_Key of the offending MAD. */
			uint8_t dr_slid;          /**< DRNotice/DRPathTruncated/DRHopCount byte in the specification. */
			uint8_t dr_trunc_hop;     /**< Per OFED for Windows: path truncated flag and hop count. */
			uint8_t dr_rtn_path[30];  /**< Return path of a directed-route MAD. */
		} PACK_SUFFIX ntc_256;        /**< Trap 256. */

		/**
		 * Traps 257 and 258 (bad P_Key or Q_Key), laid out as the
		 * specification (and OpenSM) does: the SL/QP1 word at offset 10,
		 * QP2 at 14, GID1 at 18, GID2 at 34. OFED for Windows declares a
		 * separate sl byte before qp1, which shifts every later field by
		 * one byte against what an SM sends; here sl overlays the first
		 * byte of that word instead, so code using either name compiles
		 * and reads the bytes on the wire (SL is in bits 7-4 of sl).
		 */
		struct _ntc_257_258 {
			ib_net16_t pad1;       /**< Reserved. */
			ib_net16_t lid1;       /**< LID1: source LID of the offending packet. */
			ib_net16_t lid2;       /**< LID2: destination LID of the offending packet. */
			ib_net32_t key;        /**< The bad P_Key or Q_Key. */
			__extension__ union {
				uint8_t sl;      /**< First byte of the SL/QP1 word: SL in bits 7-4. */
				ib_net32_t qp1;  /**< SL (bits 31-28) and source QP (bits 23-0), offset 10. */
			} PACK_SUFFIX;
			ib_net32_t qp2;        /**< Destination QP (low 24 bits). */
			ib_gid_t gid1;         /**< Source GID. */
			ib_gid_t gid2;         /**< Destination GID. */
		} PACK_SUFFIX ntc_257_258; /**< Traps 257 and 258. */

		/** Trap 259. */
		struct _ntc_259 {
			ib_net16_t data_valid; /**< Which of the following fields are valid. */
			ib_net16_t lid1;       /**< LID1: source LID. */
			ib_net16_t lid2;       /**< LID2: destination LID. */
			ib_net16_t pkey;       /**< The offending P_Key. */
			ib_net32_t sl_qp1;     /**< SL (bits 31-28, TRAP_259_MASK_SL) and source QP (TRAP_259_MASK_QP). */
			ib_net32_t qp2;        /**< Destination QP (low 24 bits). */
			ib_gid_t gid1;         /**< Source GID. */
			ib_gid_t gid2;         /**< Destination GID. */
			ib_net16_t sw_lid;     /**< LID of the switch. */
			uint8_t port_no;       /**< Switch external port that saw the violation. */
		} PACK_SUFFIX ntc_259;     /**< Trap 259. */

		/** B_Key violation (baseboard management trap 259). */
		struct _ntc_bkey_259 {
			ib_net16_t lidaddr;            /**< LID of the port that saw the bad B_Key. */
			uint8_t method;                /**< Method of the offending MAD. */
			uint8_t reserved;              /**< Reserved. */
			ib_net16_t attribute_id;       /**< AttributeID of the offending MAD. */
			ib_net32_t attribute_modifier; /**< AttributeModifier of the offending MAD. */
			ib_net32_t qp;                 /**< QP (low 24 bits). */
			ib_net64_t bkey;               /**< The bad B_Key. */
			ib_gid_t gid;                  /**< GID of the requester. */
		} PACK_SUFFIX ntc_bkey_259;        /**< B_Key violation. */

		/** CC_Key violation (congestion control trap 0). */
		struct _ntc_cckey_0 {
			ib_net16_t slid;               /**< Source LID of the offending packet. */
			uint8_t method;                /**< Method of the offending MAD. */
			uint8_t resv0;                 /**< Reserved. */
			ib_net16_t attribute_id;       /**< AttributeID of the offending MAD. */
			ib_net16_t resv1;              /**< Reserved. */
			ib_net32_t attribute_modifier; /**< AttributeModifier of the offending MAD. */
			ib_net32_t qp;                 /**< Destination QP (low 24 bits). */
			ib_net64_t cc_key;             /**< The bad CC_Key. */
			ib_gid_t source_gid;           /**< Source GID of the offending packet. */
			uint8_t padding[14];           /**< Padding. */
		} PACK_SUFFIX ntc_cckey_0;         /**< CC_Key violation. */
	} data_details;                        /**< Bytes 10-63. */

	ib_gid_t issuer_gid; /**< IssuerGID. */
} PACK_SUFFIX ib_mad_notice_attr_t;
#include <complib/cl_packoff.h>

#define TRAP_259_MASK_SL (CL_HTON32(0xF0000000)) /**< SL bits of ntc_259.sl_qp1. */
#define TRAP_259_MASK_QP (CL_HTON32(0x00FFFFFF)) /**< QP bits of ntc_259.sl_qp1 and ntc_259.qp2. */

#define TRAP_144_MASK_OTHER_LOCAL_CHANGES 0x01                  /**< ntc_144.local_changes: other local changes. */
#define TRAP_144_MASK_LINK_SPEED_EXT_ENABLE_CHG (CL_HTON16(0x0020)) /**< ntc_144.change_flgs: LinkSpeedExtEnabled changed. */
#define TRAP_144_MASK_CAPABILITY_MASK2_CHANGE (CL_HTON16(0x0020))   /**< OpenSM's name for the same bit: CapabilityMask2 changed. */
#define TRAP_144_MASK_HIERARCHY_INFO_CHANGE (CL_HTON16(0x0010))     /**< ntc_144.change_flgs: HierarchyInfo changed. */
#define TRAP_144_MASK_SM_PRIORITY_CHANGE (CL_HTON16(0x0008))        /**< ntc_144.change_flgs: SM priority changed. */
#define TRAP_144_MASK_LINK_SPEED_ENABLE_CHANGE (CL_HTON16(0x0004))  /**< ntc_144.change_flgs: LinkSpeedEnabled changed. */
#define TRAP_144_MASK_LINK_WIDTH_ENABLE_CHANGE (CL_HTON16(0x0002))  /**< ntc_144.change_flgs: LinkWidthEnabled changed. */
#define TRAP_144_MASK_NODE_DESCRIPTION_CHANGE (CL_HTON16(0x0001))   /**< ntc_144.change_flgs: NodeDescription changed. */

/**
 * Tells whether a notice is generic.
 * @param p_ntc the Notice attribute.
 * @return non-zero (the IsGeneric bit, 0x80) for a generic notice, FALSE
 * for a vendor-specific one.
 */
AL_INLINE boolean_t AL_API ib_notice_is_generic(IN const ib_mad_notice_attr_t *p_ntc)
{
	return p_ntc->generic_type & 0x80;
}

/**
 * Reads the notice type.
 * @param p_ntc the Notice attribute.
 * @return Type, an IB_NOTICE_TYPE_* value.
 */
AL_INLINE uint8_t AL_API ib_notice_get_type(IN const ib_mad_notice_attr_t *p_ntc)
{
	return (uint8_t)(p_ntc->generic_type & 0x7F);
}

/**
 * Reads the ProducerType of a generic notice.
 * @param p_ntc the Notice attribute.
 * @return the 24-bit producer type in network byte order
 * (IB_NOTICE_PRODUCER_TYPE_*).
 */
AL_INLINE ib_net32_t AL_API ib_notice_get_prod_type(IN const ib_mad_notice_attr_t *p_ntc)
{
	return cl_hton32(((uint32_t)p_ntc->g_or_v.generic.prod_type_msb << 16) |
			 cl_ntoh16(p_ntc->g_or_v.generic.prod_type_lsb));
}

/**
 * Writes the ProducerType of a generic notice.
 * @param p_ntc the Notice attribute.
 * @param prod_type_val the producer type in network byte order; its top byte is ignored.
 */
AL_INLINE void AL_API ib_notice_set_prod_type(IN ib_mad_notice_attr_t *p_ntc,
					      IN ib_net32_t prod_type_val)
{
	const uint32_t ho = cl_ntoh32(prod_type_val);

	p_ntc->g_or_v.generic.prod_type_lsb = cl_hton16((uint16_t)(ho & 0xFFFF));
	p_ntc->g_or_v.generic.prod_type_msb = (uint8_t)((ho >> 16) & 0xFF);
}

/**
 * Writes the ProducerType of a generic notice from a host-order value.
 * @param p_ntc the Notice attribute.
 * @param prod_type_val_ho the producer type in host byte order; its top byte is ignored.
 */
AL_INLINE void AL_API ib_notice_set_prod_type_ho(IN ib_mad_notice_attr_t *p_ntc,
						 IN uint32_t prod_type_val_ho)
{
	p_ntc->g_or_v.generic.prod_type_lsb = cl_hton16((uint16_t)(prod_type_val_ho & 0xFFFF));
	p_ntc->g_or_v.generic.prod_type_msb = (uint8_t)((prod_type_val_ho >> 16) & 0xFF);
}

/**
 * Reads the VendorID of a vendor-specific notice.
 * @param p_ntc the Notice attribute.
 * @return the 24-bit vendor ID in network byte order.
 */
AL_INLINE ib_net32_t AL_API ib_notice_get_vend_id(IN const ib_mad_notice_attr_t *p_ntc)
{
	return cl_hton32(((uint32_t)p_ntc->g_or_v.vend.vend_id_msb << 16) |
			 cl_ntoh16(p_ntc->g_or_v.vend.vend_id_lsb));
}

/**
 * Writes the VendorID of a vendor-specific notice.
 * @param p_ntc the Notice attribute.
 * @param vend_id the vendor ID in network byte order; its top byte is ignored.
 */
AL_INLINE void AL_API ib_notice_set_vend_id(IN ib_mad_notice_attr_t *p_ntc, IN ib_net32_t vend_id)
{
	const uint32_t ho = cl_ntoh32(vend_id);

	p_ntc->g_or_v.vend.vend_id_lsb = cl_hton16((uint16_t)(ho & 0xFFFF));
	p_ntc->g_or_v.vend.vend_id_msb = (uint8_t)((ho >> 16) & 0xFF);
}

/**
 * Writes the VendorID of a vendor-specific notice from a host-order value.
 * @param p_ntc the Notice attribute.
 * @param vend_id_ho the vendor ID in host byte order; its top byte is ignored.
 */
AL_INLINE void AL_API ib_notice_set_vend_id_ho(IN ib_mad_notice_attr_t *p_ntc,
					       IN uint32_t vend_id_ho)
{
	p_ntc->g_or_v.vend.vend_id_lsb = cl_hton16((uint16_t)(vend_id_ho & 0xFFFF));
	p_ntc->g_or_v.vend.vend_id_msb = (uint8_t)((vend_id_ho >> 16) & 0xFF);
}

/* ------------------------------------------------------------------------ */
/* InformInfo (13.4.8.3)                                                    */
/* ------------------------------------------------------------------------ */

#include <complib/cl_packon.h>
/** InformInfo attribute (13.4.8.3): 36 bytes. */
typedef struct _ib_inform_info {
	ib_gid_t gid;               /**< GID of the port whose traps are wanted, or zero. */
	ib_net16_t lid_range_begin; /**< First LID of the range, or 0xFFFF for all. */
	ib_net16_t lid_range_end;   /**< Last LID of the range. */
	ib_net16_t reserved1;       /**< Reserved. */
	uint8_t is_generic;         /**< IsGeneric: 1 for generic traps. */
	uint8_t subscribe;          /**< Subscribe: 1 to subscribe, 0 to unsubscribe. */
	ib_net16_t trap_type;       /**< Type (IB_NOTICE_TYPE_*), or 0xFFFF for all. */

	/** Generic or vendor-specific subscription details. */
	union _inform_g_or_v {
		/** Generic traps. */
		struct _inform_generic {
			ib_net16_t trap_num;          /**< TrapNumber, or 0xFFFF for all. */
			ib_net32_t qpn_resp_time_val; /**< QPN (bits 31-8) and RespTimeValue (bits 4-0). */
			uint8_t reserved2;            /**< Reserved. */
			uint8_t node_type_msb;        /**< ProducerType, bits 23-16. */
			ib_net16_t node_type_lsb;     /**< ProducerType, bits 15-0. */
		} PACK_SUFFIX generic;            /**< is_generic set. */
		/** Vendor-specific traps. */
		struct _inform_vend {
			ib_net16_t dev_id;            /**< DeviceID, or 0xFFFF for all. */
			ib_net32_t qpn_resp_time_val; /**< QPN (bits 31-8) and RespTimeValue (bits 4-0). */
			uint8_t reserved2;            /**< Reserved. */
			uint8_t vendor_id_msb;        /**< VendorID, bits 23-16. */
			ib_net16_t vendor_id_lsb;     /**< VendorID, bits 15-0. */
		} PACK_SUFFIX vend;               /**< is_generic clear. */
	} PACK_SUFFIX g_or_v;                 /**< Bytes 26-35. */
} PACK_SUFFIX ib_inform_info_t;
#include <complib/cl_packoff.h>

/**
 * Splits the QPN/RespTimeValue word of an InformInfo attribute.
 * @param qpn_resp_time_val the word (g_or_v.generic.qpn_resp_time_val).
 * @param p_qpn receives the 24-bit QPN in network byte order; may be NULL.
 * @param p_resp_time_val receives RespTimeValue (low 5 bits); may be NULL.
 */
AL_INLINE void AL_API ib_inform_info_get_qpn_resp_time(IN const ib_net32_t qpn_resp_time_val,
						       OUT ib_net32_t *const p_qpn,
						       OUT uint8_t *const p_resp_time_val)
{
	const uint32_t ho = cl_ntoh32(qpn_resp_time_val);

	if (p_qpn)
		*p_qpn = cl_hton32(ho >> 8);
	if (p_resp_time_val)
		*p_resp_time_val = (uint8_t)(ho & 0x1F);
}

/**
 * Writes the QPN of an InformInfo attribute, leaving the low byte (reserved
 * bits and RespTimeValue) alone.
 * @param p_ii the InformInfo attribute.
 * @param qpn the QPN in network byte order; only its low 24 bits are used.
 */
AL_INLINE void AL_API ib_inform_info_set_qpn(IN ib_inform_info_t *p_ii, IN ib_net32_t const qpn)
{
	const uint32_t ho = cl_ntoh32(p_ii->g_or_v.generic.qpn_resp_time_val);

	p_ii->g_or_v.generic.qpn_resp_time_val =
		cl_hton32((ho & 0x000000FF) | (cl_ntoh32(qpn) << 8));
}

/**
 * Reads the ProducerType of a generic InformInfo attribute.
 * @param p_inf the InformInfo attribute.
 * @return the 24-bit producer type in network byte order.
 */
AL_INLINE ib_net32_t AL_API ib_inform_info_get_prod_type(IN const ib_inform_info_t *p_inf)
{
	return cl_hton32(((uint32_t)p_inf->g_or_v.generic.node_type_msb << 16) |
			 cl_ntoh16(p_inf->g_or_v.generic.node_type_lsb));
}

/**
 * Reads the VendorID of a vendor-specific InformInfo attribute.
 * @param p_inf the InformInfo attribute.
 * @return the 24-bit vendor ID in network byte order.
 */
AL_INLINE ib_net32_t AL_API ib_inform_info_get_vend_id(IN const ib_inform_info_t *p_inf)
{
	return cl_hton32(((uint32_t)p_inf->g_or_v.vend.vendor_id_msb << 16) |
			 cl_ntoh16(p_inf->g_or_v.vend.vendor_id_lsb));
}

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* __IB_TYPES_SMP_H__ */
