/*
 * ibal: part of ib_types.h (include <iba/ib_types.h>, not this file).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file ib_types_base.h
 * @brief Part of ib_types.h; include <iba/ib_types.h> instead.
 *
 * The first part of ib_types.h: the portability macros of the access-layer
 * headers (`AL_EXPORT`, `AL_API`, `AL_INLINE`, `TO_LONG_PTR` ...), the base
 * constants of the InfiniBand architecture (MAD classes, methods, status
 * codes, attribute IDs, LID ranges, P_Key and Q_Key values, MTU and rate
 * codes, link states), the network-order integer types, `ib_gid_t` with its
 * helpers, the global route header, the common MAD header, the RMPP header,
 * the directed-route SMP, the SA MAD and the generic GMP layout, and the
 * string lookups that OFED for Windows defines inline.
 *
 * Wire structures are byte-packed; their multi-byte fields hold network byte
 * order. Every helper is a pure function of its arguments or touches only the
 * structure it is given: they are thread-safe as long as no other thread
 * writes the same structure at the same time.
 */
#ifndef __IB_TYPES_BASE_H__
#define __IB_TYPES_BASE_H__

#include <complib/cl_types.h>
#include <complib/cl_byteswap.h>

/*
 * Portability macros. On Linux the access layer uses the plain C ABI: the
 * export and calling-convention markers expand to nothing, inline helpers are
 * `static inline`. Each one may be predefined by the user.
 */

#ifndef AL_STRINGIFY
/** Turns the token @p x into a string literal. */
#define AL_STRINGIFY(x) #x
#endif
#ifndef AL_TOSTRING
/** Turns the expansion of @p x into a string literal. */
#define AL_TOSTRING(x) AL_STRINGIFY(x)
#endif
#ifndef WIDEN2
/** Prefixes the string literal @p x with L (no macro expansion of @p x). */
#define WIDEN2(x) L ## x
#endif
#ifndef WIDEN
/** Makes a wide string literal out of the expansion of @p x. */
#define WIDEN(x) WIDEN2(x)
#endif
#ifndef AL_WFILE
/** Name of the current source file as a wide string literal. */
#define AL_WFILE WIDEN(__FILE__)
#endif
#ifndef AL_WLINE
/** Current line number as a wide string literal. */
#define AL_WLINE WIDEN(AL_TOSTRING(__LINE__))
#endif
#ifndef AL_WLOCATION
/** "file:line" of the current source position as a wide string literal. */
#define AL_WLOCATION AL_WFILE L":" AL_WLINE
#endif

#ifndef IB_CONCAT
/** Pastes the tokens @p str1 and @p str2 together. */
#define IB_CONCAT(str1, str2) str1##str2
#endif

#ifndef TO_LONG_PTR
/**
 * Declares the structure member @p member_name of type @p type (usually a
 * pointer or handle) padded to 64 bits, so that structures shared between
 * 32-bit and 64-bit code keep one layout. The padding member is named
 * `<member_name>_padding`.
 */
#define TO_LONG_PTR(type, member_name) \
	union { type member_name; uint64_t IB_CONCAT(member_name, _padding); }
#endif

#ifndef AL_EXPORT
/** Marks a function exported by the access layer; nothing on Linux. */
#define AL_EXPORT
#endif
#ifndef AL_API
/** Calling convention of access-layer functions: the plain C one on Linux. */
#define AL_API
#endif
#ifndef AL_INLINE
/** Inline helpers of the access-layer headers. */
#define AL_INLINE static inline
#endif

#ifndef OSM_EXPORT
/** OpenSM's marker for exported data and functions: `extern` on Linux. */
#define OSM_EXPORT extern
#endif
#ifndef OSM_API
/** OpenSM's calling-convention marker; nothing on Linux. */
#define OSM_API
#endif
#ifndef OSM_CDECL
/** OpenSM's cdecl marker; nothing on Linux. */
#define OSM_CDECL
#endif
#ifndef __ptr64
/** Windows 64-bit pointer qualifier used by OpenSM's headers; nothing here. */
#define __ptr64
#endif

#ifndef BEGIN_C_DECLS
#ifdef __cplusplus
#  define BEGIN_C_DECLS extern "C" {
#  define END_C_DECLS   }
#else
#  define BEGIN_C_DECLS /**< Opens a C-linkage block in C++; nothing in C. */
#  define END_C_DECLS   /**< Closes the block opened by BEGIN_C_DECLS. */
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The packed structures below are wrapped in cl_packon.h / cl_packoff.h;
 * clang warns (-Wpragma-pack) whenever an included file changes the packing
 * state, which is the whole point of those two headers.
 */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wpragma-pack"
#endif

/*
 * Base constants (InfiniBand Architecture Specification, volume 1).
 */

#define MAD_BLOCK_SIZE      256 /**< Size of a non-RMPP MAD datagram. */
#define MAD_RMPP_HDR_SIZE   36  /**< Size of the common MAD header plus the RMPP header. */
/** Size of the data section of an RMPP segment. */
#define MAD_RMPP_DATA_SIZE  (MAD_BLOCK_SIZE - MAD_RMPP_HDR_SIZE)
#define MAD_BLOCK_GRH_SIZE  296 /**< Size of a MAD datagram preceded by a GRH. */

#define IB_LID_PERMISSIVE   0xFFFF /**< Permissive LID (host order). */
#define IB_DEFAULT_PKEY     0xFFFF /**< P_Key of the default partition (host order). */

/** Well-known Q_Key of QP1 (15.4.2), network order. */
#define IB_QP1_WELL_KNOWN_Q_KEY CL_HTON32(0x80010000)
#define IB_QP0 0               /**< Number of QP0, the SMI queue pair. */
#define IB_QP1 CL_HTON32(1)    /**< Number of QP1, the GSI queue pair, network order. */
/** Q_Key with the most significant bit set (controlled Q_Key), network order. */
#define IB_QP_PRIVILEGED_Q_KEY CL_HTON32(0x80000000)

#define IB_LID_UCAST_START_HO 0x0001 /**< Lowest unicast LID, host order. */
/** Lowest unicast LID, network order. */
#define IB_LID_UCAST_START    (CL_HTON16(IB_LID_UCAST_START_HO))
#define IB_LID_UCAST_END_HO   0xBFFF /**< Highest unicast LID, host order. */
/** Highest unicast LID, network order. */
#define IB_LID_UCAST_END      (CL_HTON16(IB_LID_UCAST_END_HO))
#define IB_LID_MCAST_START_HO 0xC000 /**< Lowest multicast LID, host order. */
/** Lowest multicast LID, network order. */
#define IB_LID_MCAST_START    (CL_HTON16(IB_LID_MCAST_START_HO))
#define IB_LID_MCAST_END_HO   0xFFFE /**< Highest multicast LID, host order. */
/** Highest multicast LID, network order. */
#define IB_LID_MCAST_END      (CL_HTON16(IB_LID_MCAST_END_HO))

/** Default (link-local) subnet prefix FE80::/64, network order. */
#define IB_DEFAULT_SUBNET_PREFIX    (CL_HTON64(0xFE80000000000000ULL))
/** Default (link-local) subnet prefix, host order (OpenSM). */
#define IB_DEFAULT_SUBNET_PREFIX_HO (0xFE80000000000000ULL)

#define IB_NODE_NUM_PORTS_MAX   0xFE /**< Maximum number of ports of a node (14.2.5.7). */
#define IB_INVALID_PORT_NUM     0xFF /**< Port number meaning "no port" (14.2.5.10). */
#define IB_SUBNET_PATH_HOPS_MAX 64   /**< Maximum directed-route hops (14.2.1.2). */
#define IB_HOPLIMIT_MAX         255  /**< Maximum number of router hops. */

#define IB_MC_SCOPE_LINK_LOCAL 0x2 /**< Multicast GID scope: link-local. */
#define IB_MC_SCOPE_SITE_LOCAL 0x5 /**< Multicast GID scope: site-local. */
#define IB_MC_SCOPE_ORG_LOCAL  0x8 /**< Multicast GID scope: organization-local. */
#define IB_MC_SCOPE_GLOBAL     0xE /**< Multicast GID scope: global. */

#define IB_PKEY_MAX_BLOCKS        2048       /**< Maximum number of P_Key table blocks (14.2.5.7). */
#define IB_MCAST_MAX_BLOCK_ID     511        /**< Highest multicast forwarding table block ID. */
#define IB_MCAST_BLOCK_ID_MASK_HO 0x000001FF /**< Block ID bits of the MFT attribute modifier, host order. */
#define IB_MCAST_BLOCK_SIZE       32         /**< Port mask entries per multicast forwarding table block. */
#define IB_MCAST_MASK_SIZE        16         /**< Port bits per multicast forwarding table entry. */
#define IB_MCAST_POSITION_MASK_HO 0xF0000000 /**< Position bits of the MFT attribute modifier, host order. */
#define IB_MCAST_POSITION_MAX     0xF        /**< Highest multicast forwarding table position. */
#define IB_MCAST_POSITION_SHIFT   28         /**< Shift of the position in the MFT attribute modifier. */
/** Maximum number of P_Key entries of a port (14.2.5.7). */
#define IB_PKEY_ENTRIES_MAX (IB_PKEY_MAX_BLOCKS * IB_NUM_PKEY_ELEMENTS_IN_BLOCK)
/** Base (low 15 bits) of a P_Key entry, network order. */
#define IB_PKEY_BASE_MASK       (CL_HTON16(0x7FFF))
/** Membership bit of a P_Key entry (set: full member), network order. */
#define IB_PKEY_TYPE_MASK       (CL_HTON16(0x8000))
/** Default partition with limited membership, network order. */
#define IB_DEFAULT_PARTIAL_PKEY (CL_HTON16(0x7FFF))

#define IB_MCLASS_SUBN_LID  0x01 /**< Management class: subnet management, LID routed (13.4.4). */
#define IB_MCLASS_SUBN_DIR  0x81 /**< Management class: subnet management, directed route. */
#define IB_MCLASS_SUBN_ADM  0x03 /**< Management class: subnet administration. */
#define IB_MCLASS_PERF      0x04 /**< Management class: performance management. */
#define IB_MCLASS_BM        0x05 /**< Management class: baseboard management. */
#define IB_MCLASS_DEV_MGMT  0x06 /**< Management class: device management. */
#define IB_MCLASS_COMM_MGMT 0x07 /**< Management class: communication management. */
#define IB_MCLASS_SNMP      0x08 /**< Management class: SNMP tunneling. */
#define IB_MCLASS_VENDOR_LOW_RANGE_MIN 0x09 /**< First vendor-specific class of the low range. */
#define IB_MCLASS_VENDOR_LOW_RANGE_MAX 0x0f /**< Last vendor-specific class of the low range. */
#define IB_MLX_VENDOR_CLASS1 0x9 /**< Mellanox vendor-specific class 1. */
#define IB_MLX_VENDOR_CLASS2 0xA /**< Mellanox vendor-specific class 2. */
#define IB_MCLASS_DEV_ADM   0x10 /**< Management class: device administration. */
#define IB_MCLASS_BIS       0x12 /**< Management class: BIS. */
#define IB_MCLASS_CC        0x21 /**< Management class: congestion control (A10.4.1). */
#define IB_MCLASS_VENDOR_HIGH_RANGE_MIN 0x30 /**< First vendor-specific class of the high range. */
#define IB_MCLASS_VENDOR_HIGH_RANGE_MAX 0x4f /**< Last vendor-specific class of the high range. */

/**
 * Tells whether a management class is in the low vendor-specific range.
 * @param class_code management class.
 * @return TRUE for 0x09..0x0F, FALSE otherwise.
 */
AL_INLINE boolean_t AL_API
ib_class_is_vendor_specific_low(IN const uint8_t class_code)
{
	return class_code >= IB_MCLASS_VENDOR_LOW_RANGE_MIN &&
	       class_code <= IB_MCLASS_VENDOR_LOW_RANGE_MAX;
}

/**
 * Tells whether a management class is in the high vendor-specific range.
 * @param class_code management class.
 * @return TRUE for 0x30..0x4F, FALSE otherwise.
 */
AL_INLINE boolean_t AL_API
ib_class_is_vendor_specific_high(IN const uint8_t class_code)
{
	return class_code >= IB_MCLASS_VENDOR_HIGH_RANGE_MIN &&
	       class_code <= IB_MCLASS_VENDOR_HIGH_RANGE_MAX;
}

/**
 * Tells whether a management class is vendor specific (either range).
 * @param class_code management class.
 * @return TRUE if vendor specific, FALSE otherwise.
 */
AL_INLINE boolean_t AL_API
ib_class_is_vendor_specific(IN const uint8_t class_code)
{
	return ib_class_is_vendor_specific_low(class_code) ||
	       ib_class_is_vendor_specific_high(class_code);
}

/**
 * Tells whether a management class uses RMPP: subnet administration, device
 * management, device administration, BIS and the high vendor range.
 * @param class_code management class.
 * @return TRUE if the class supports RMPP, FALSE otherwise.
 */
AL_INLINE boolean_t AL_API
ib_class_is_rmpp(IN const uint8_t class_code)
{
	switch (class_code) {
	case IB_MCLASS_SUBN_ADM:
	case IB_MCLASS_DEV_MGMT:
	case IB_MCLASS_DEV_ADM:
	case IB_MCLASS_BIS:
		return TRUE;
	default:
		return ib_class_is_vendor_specific_high(class_code);
	}
}

#define IB_MAX_METHODS              128  /**< Methods per class, not counting the R bit. */
#define IB_MAD_METHOD_RESP_MASK     0x80 /**< The R (response) bit of the method (13.4.5). */
#define IB_MAD_METHOD_GET           0x01 /**< Get(). */
#define IB_MAD_METHOD_SET           0x02 /**< Set(). */
#define IB_MAD_METHOD_GET_RESP      0x81 /**< GetResp(). */
#define IB_MAD_METHOD_DELETE        0x15 /**< SubnAdmDelete(). */
#define IB_MAD_METHOD_GETTABLE      0x12 /**< SubnAdmGetTable() (15.2.2). */
#define IB_MAD_METHOD_GETTABLE_RESP 0x92 /**< SubnAdmGetTableResp(). */
#define IB_MAD_METHOD_GETTRACETABLE 0x13 /**< SubnAdmGetTraceTable(). */
#define IB_MAD_METHOD_GETMULTI      0x14 /**< SubnAdmGetMulti(). */
#define IB_MAD_METHOD_GETMULTI_RESP 0x94 /**< SubnAdmGetMultiResp(). */
#define IB_MAD_METHOD_SEND          0x03 /**< Send(). */
#define IB_MAD_METHOD_TRAP          0x05 /**< Trap(). */
#define IB_MAD_METHOD_REPORT        0x06 /**< Report(). */
#define IB_MAD_METHOD_REPORT_RESP   0x86 /**< ReportResp(). */
#define IB_MAD_METHOD_TRAP_REPRESS  0x07 /**< TrapRepress(). */

#define IB_MAD_STATUS_BUSY              (CL_HTON16(0x0001)) /**< Busy, MAD discarded (13.4.7). */
#define IB_MAD_STATUS_REDIRECT          (CL_HTON16(0x0002)) /**< Redirection required. */
#define IB_MAD_STATUS_UNSUP_CLASS_VER   (CL_HTON16(0x0004)) /**< Class version not supported. */
#define IB_MAD_STATUS_UNSUP_METHOD      (CL_HTON16(0x0008)) /**< Method not supported. */
#define IB_MAD_STATUS_UNSUP_METHOD_ATTR (CL_HTON16(0x000C)) /**< Method/attribute combination not supported. */
#define IB_MAD_STATUS_INVALID_FIELD     (CL_HTON16(0x001C)) /**< One or more attribute fields invalid. */
#define IB_MAD_STATUS_CLASS_MASK        (CL_HTON16(0xFF00)) /**< Class-specific status bits. */

#define IB_SA_MAD_STATUS_SUCCESS          (CL_HTON16(0x0000)) /**< SA: success. */
#define IB_SA_MAD_STATUS_NO_RESOURCES     (CL_HTON16(0x0100)) /**< SA: out of resources. */
#define IB_SA_MAD_STATUS_REQ_INVALID      (CL_HTON16(0x0200)) /**< SA: invalid request. */
#define IB_SA_MAD_STATUS_NO_RECORDS       (CL_HTON16(0x0300)) /**< SA: no matching record. */
#define IB_SA_MAD_STATUS_TOO_MANY_RECORDS (CL_HTON16(0x0400)) /**< SA: more than one record matched. */
#define IB_SA_MAD_STATUS_INVALID_GID      (CL_HTON16(0x0500)) /**< SA: invalid GID. */
#define IB_SA_MAD_STATUS_INSUF_COMPS      (CL_HTON16(0x0600)) /**< SA: insufficient components. */
#define IB_SA_MAD_STATUS_DENIED           (CL_HTON16(0x0700)) /**< SA: request denied. */
#define IB_SA_MAD_STATUS_PRIO_SUGGESTED   (CL_HTON16(0x0800)) /**< SA: priority suggested. */

#define IB_DM_MAD_STATUS_NO_IOC_RESP    (CL_HTON16(0x0100)) /**< DM: IOC not responding. */
#define IB_DM_MAD_STATUS_NO_SVC_ENTRIES (CL_HTON16(0x0200)) /**< DM: no service entries in range. */
#define IB_DM_MAD_STATUS_IOC_FAILURE    (CL_HTON16(0x8000)) /**< DM: generic IOC failure. */

/* Attribute IDs (network order). IDs repeat across classes. */
#define IB_MAD_ATTR_CLASS_PORT_INFO   (CL_HTON16(0x0001)) /**< ClassPortInfo (13.4.8). */
#define IB_MAD_ATTR_NOTICE            (CL_HTON16(0x0002)) /**< Notice (13.4.8). */
#define IB_MAD_ATTR_INFORM_INFO       (CL_HTON16(0x0003)) /**< InformInfo (13.4.8). */
#define IB_MAD_ATTR_NODE_DESC         (CL_HTON16(0x0010)) /**< SM: NodeDescription (14.2.5). */
#define IB_MAD_ATTR_PORT_SMPL_CTRL    (CL_HTON16(0x0010)) /**< PerfMgt: PortSamplesControl (16.1.3). */
#define IB_MAD_ATTR_NODE_INFO         (CL_HTON16(0x0011)) /**< SM: NodeInfo. */
#define IB_MAD_ATTR_PORT_SMPL_RSLT    (CL_HTON16(0x0011)) /**< PerfMgt: PortSamplesResult. */
#define IB_MAD_ATTR_SWITCH_INFO       (CL_HTON16(0x0012)) /**< SM: SwitchInfo. */
#define IB_MAD_ATTR_PORT_CNTRS        (CL_HTON16(0x0012)) /**< PerfMgt: PortCounters. */
#define IB_MAD_ATTR_PORT_CNTRS_EXT    (CL_HTON16(0x001D)) /**< PerfMgt: PortCountersExtended (16.1.4). */
#define IB_MAD_ATTR_PORT_XMIT_DATA_SL (CL_HTON16(0x0036)) /**< PerfMgt: PortXmitDataSL (A13.6.4). */
#define IB_MAD_ATTR_PORT_RCV_DATA_SL  (CL_HTON16(0x0037)) /**< PerfMgt: PortRcvDataSL (A13.6.4). */
#define IB_MAD_ATTR_GUID_INFO         (CL_HTON16(0x0014)) /**< SM: GUIDInfo. */
#define IB_MAD_ATTR_PORT_INFO         (CL_HTON16(0x0015)) /**< SM: PortInfo. */
#define IB_MAD_ATTR_P_KEY_TABLE       (CL_HTON16(0x0016)) /**< SM: P_KeyTable. */
#define IB_MAD_ATTR_SLVL_TABLE        (CL_HTON16(0x0017)) /**< SM: SLtoVLMappingTable. */
#define IB_MAD_ATTR_VL_ARBITRATION    (CL_HTON16(0x0018)) /**< SM: VLArbitrationTable. */
#define IB_MAD_ATTR_LIN_FWD_TBL       (CL_HTON16(0x0019)) /**< SM: LinearForwardingTable. */
#define IB_MAD_ATTR_RND_FWD_TBL       (CL_HTON16(0x001A)) /**< SM: RandomForwardingTable. */
#define IB_MAD_ATTR_MCAST_FWD_TBL     (CL_HTON16(0x001B)) /**< SM: MulticastForwardingTable. */
#define IB_MAD_ATTR_NODE_RECORD       (CL_HTON16(0x0011)) /**< SA: NodeRecord (15.2.5). */
#define IB_MAD_ATTR_PORTINFO_RECORD   (CL_HTON16(0x0012)) /**< SA: PortInfoRecord. */
#define IB_MAD_ATTR_SWITCH_INFO_RECORD (CL_HTON16(0x0014)) /**< SA: SwitchInfoRecord. */
#define IB_MAD_ATTR_LINK_RECORD       (CL_HTON16(0x0020)) /**< SA: LinkRecord. */
#define IB_MAD_ATTR_SM_INFO           (CL_HTON16(0x0020)) /**< SM: SMInfo. */
#define IB_MAD_ATTR_SMINFO_RECORD     (CL_HTON16(0x0018)) /**< SA: SMInfoRecord. */
#define IB_MAD_ATTR_GUIDINFO_RECORD   (CL_HTON16(0x0030)) /**< SA: GuidInfoRecord. */
#define IB_MAD_ATTR_VENDOR_DIAG       (CL_HTON16(0x0030)) /**< SM: VendorDiag. */
#define IB_MAD_ATTR_LED_INFO          (CL_HTON16(0x0031)) /**< SM: LedInfo. */
#define IB_MAD_ATTR_MLNX_EXTENDED_PORT_INFO (CL_HTON16(0xFF90)) /**< SM: Mellanox ExtendedPortInfo. */
#define IB_MAD_ATTR_SERVICE_RECORD    (CL_HTON16(0x0031)) /**< SA: ServiceRecord. */
#define IB_MAD_ATTR_LFT_RECORD        (CL_HTON16(0x0015)) /**< SA: LinearForwardingTableRecord (15.2.5.6). */
#define IB_MAD_ATTR_MFT_RECORD        (CL_HTON16(0x0017)) /**< SA: MulticastForwardingTableRecord (15.2.5.8). */
#define IB_MAD_ATTR_PKEY_TBL_RECORD   (CL_HTON16(0x0033)) /**< SA: P_KeyTableRecord. */
#define IB_MAD_ATTR_PATH_RECORD       (CL_HTON16(0x0035)) /**< SA: PathRecord. */
#define IB_MAD_ATTR_VLARB_RECORD      (CL_HTON16(0x0036)) /**< SA: VLArbitrationTableRecord. */
#define IB_MAD_ATTR_SLVL_RECORD       (CL_HTON16(0x0013)) /**< SA: SLtoVLMappingTableRecord. */
#define IB_MAD_ATTR_MCMEMBER_RECORD   (CL_HTON16(0x0038)) /**< SA: MCMemberRecord. */
#define IB_MAD_ATTR_TRACE_RECORD      (CL_HTON16(0x0039)) /**< SA: TraceRecord. */
#define IB_MAD_ATTR_MULTIPATH_RECORD  (CL_HTON16(0x003A)) /**< SA: MultiPathRecord. */
#define IB_MAD_ATTR_SVC_ASSOCIATION_RECORD (CL_HTON16(0x003B)) /**< SA: ServiceAssociationRecord. */
#define IB_MAD_ATTR_INFORM_INFO_RECORD (CL_HTON16(0x00F3)) /**< SA: InformInfoRecord. */
#define IB_MAD_ATTR_IO_UNIT_INFO      (CL_HTON16(0x0010)) /**< DM: IOUnitInfo (16.3.3). */
#define IB_MAD_ATTR_IO_CONTROLLER_PROFILE (CL_HTON16(0x0011)) /**< DM: IOControllerProfile. */
#define IB_MAD_ATTR_SERVICE_ENTRIES   (CL_HTON16(0x0012)) /**< DM: ServiceEntries. */
#define IB_MAD_ATTR_DIAGNOSTIC_TIMEOUT (CL_HTON16(0x0020)) /**< DM: DiagnosticTimeout. */
#define IB_MAD_ATTR_PREPARE_TO_TEST   (CL_HTON16(0x0021)) /**< DM: PrepareToTest. */
#define IB_MAD_ATTR_TEST_DEVICE_ONCE  (CL_HTON16(0x0022)) /**< DM: TestDeviceOnce. */
#define IB_MAD_ATTR_TEST_DEVICE_LOOP  (CL_HTON16(0x0023)) /**< DM: TestDeviceLoop. */
#define IB_MAD_ATTR_DIAG_CODE         (CL_HTON16(0x0024)) /**< DM: DiagCode. */
#define IB_MAD_ATTR_CONG_INFO         (CL_HTON16(0x0011)) /**< CC: CongestionInfo (A10.4.3). */
#define IB_MAD_ATTR_CONG_KEY_INFO     (CL_HTON16(0x0012)) /**< CC: CongestionKeyInfo. */
#define IB_MAD_ATTR_CONG_LOG          (CL_HTON16(0x0013)) /**< CC: CongestionLog. */
#define IB_MAD_ATTR_SW_CONG_SETTING   (CL_HTON16(0x0014)) /**< CC: SwitchCongestionSetting. */
#define IB_MAD_ATTR_SW_PORT_CONG_SETTING (CL_HTON16(0x0015)) /**< CC: SwitchPortCongestionSetting. */
#define IB_MAD_ATTR_CA_CONG_SETTING   (CL_HTON16(0x0016)) /**< CC: CACongestionSetting. */
#define IB_MAD_ATTR_CC_TBL            (CL_HTON16(0x0017)) /**< CC: CongestionControlTable. */
#define IB_MAD_ATTR_TIME_STAMP        (CL_HTON16(0x0018)) /**< CC: TimeStamp. */

#define IB_NODE_TYPE_CA     0x01 /**< Node type: channel adapter (14.2.5.3). */
#define IB_NODE_TYPE_SWITCH 0x02 /**< Node type: switch. */
#define IB_NODE_TYPE_ROUTER 0x03 /**< Node type: router. */

#define IB_NOTICE_PRODUCER_TYPE_CA        (CL_HTON32(0x000001)) /**< Notice producer: channel adapter (13.4.8.2). */
#define IB_NOTICE_PRODUCER_TYPE_SWITCH    (CL_HTON32(0x000002)) /**< Notice producer: switch. */
#define IB_NOTICE_PRODUCER_TYPE_ROUTER    (CL_HTON32(0x000003)) /**< Notice producer: router. */
#define IB_NOTICE_PRODUCER_TYPE_CLASS_MGR (CL_HTON32(0x000004)) /**< Notice producer: class manager. */

#define IB_MTU_LEN_256  1 /**< Encoded MTU: 256 bytes. */
#define IB_MTU_LEN_512  2 /**< Encoded MTU: 512 bytes. */
#define IB_MTU_LEN_1024 3 /**< Encoded MTU: 1024 bytes. */
#define IB_MTU_LEN_2048 4 /**< Encoded MTU: 2048 bytes. */
#define IB_MTU_LEN_4096 5 /**< Encoded MTU: 4096 bytes. */
#define IB_MIN_MTU IB_MTU_LEN_256  /**< Smallest encoded MTU. */
#define IB_MAX_MTU IB_MTU_LEN_4096 /**< Largest encoded MTU. */

#define IB_PATH_SELECTOR_GREATER_THAN 0 /**< Selector: greater than the value given. */
#define IB_PATH_SELECTOR_LESS_THAN    1 /**< Selector: less than the value given. */
#define IB_PATH_SELECTOR_EXACTLY      2 /**< Selector: exactly the value given. */
#define IB_PATH_SELECTOR_LARGEST      3 /**< Selector: largest available (smallest for packet lifetime). */

#define IB_SMINFO_STATE_NOTACTIVE   0 /**< SMInfo state: not active. */
#define IB_SMINFO_STATE_DISCOVERING 1 /**< SMInfo state: discovering. */
#define IB_SMINFO_STATE_STANDBY     2 /**< SMInfo state: standby. */
#define IB_SMINFO_STATE_MASTER      3 /**< SMInfo state: master. */

#define IB_PATH_REC_SL_MASK             0x000F /**< SL bits of PathRecord qos_class_sl (host order). */
#define IB_MULTIPATH_REC_SL_MASK        0x000F /**< SL bits of MultiPathRecord qos_class_sl (host order). */
#define IB_PATH_REC_QOS_CLASS_MASK      0xFFF0 /**< QoS class bits of PathRecord qos_class_sl (host order). */
#define IB_MULTIPATH_REC_QOS_CLASS_MASK 0xFFF0 /**< QoS class bits of MultiPathRecord qos_class_sl (host order). */
#define IB_PATH_REC_SELECTOR_MASK       0xC0   /**< Selector bits of PathRecord MTU, rate and lifetime. */
#define IB_MULTIPATH_REC_SELECTOR_MASK  0xC0   /**< Selector bits of MultiPathRecord MTU, rate and lifetime. */
#define IB_PATH_REC_BASE_MASK           0x3F   /**< Value bits of PathRecord MTU, rate and lifetime. */
#define IB_MULTIPATH_REC_BASE_MASK      0x3F   /**< Value bits of MultiPathRecord MTU, rate and lifetime. */

/*
 * Type definitions.
 */

/** 16-bit value in network byte order. */
typedef uint16_t ib_net16_t;
/** 32-bit value in network byte order. */
typedef uint32_t ib_net32_t;
/** 64-bit value in network byte order. */
typedef uint64_t ib_net64_t;
/** Subnet prefix of a GID, network order. */
typedef ib_net64_t ib_gid_prefix_t;

#define IB_LINK_NO_CHANGE 0 /**< Port state: no state change (in Set). */
#define IB_LINK_DOWN      1 /**< Port state: down. */
#define IB_LINK_INIT      2 /**< Port state: initialize. */
#define IB_LINK_ARMED     3 /**< Port state: armed. */
#define IB_LINK_ACTIVE    4 /**< Port state: active. */
#define IB_LINK_ACT_DEFER 5 /**< Port state: active, deferred. */

/** Names of the node types, indexed by IB_NODE_TYPE_* (0: unknown). */
static const char *const __ib_node_type_str[] = {
	"UNKNOWN",
	"Channel Adapter",
	"Switch",
	"Router",
	"Subnet Management"
};

/**
 * Name of a node type (NodeInfo, 14.2.5.3).
 * @param node_type encoded node type.
 * @return a static string; "UNKNOWN" for values above IB_NODE_TYPE_ROUTER.
 */
AL_INLINE const char *AL_API
ib_get_node_type_str(IN uint8_t node_type)
{
	return __ib_node_type_str[node_type <= IB_NODE_TYPE_ROUTER ? node_type : 0];
}

/** Names of the Notice producer types, indexed by host-order value. */
static const char *const __ib_producer_type_str[] = {
	"UNKNOWN",
	"Channel Adapter",
	"Switch",
	"Router",
	"Class Manager"
};

/**
 * Name of a Notice/InformInfo producer type (13.4.8.2).
 * @param producer_type encoded producer type, network order.
 * @return a static string; "UNKNOWN" for values above the class manager.
 */
AL_INLINE const char *AL_API
ib_get_producer_type_str(IN ib_net32_t producer_type)
{
	uint32_t type = cl_ntoh32(producer_type);

	if (type > CL_NTOH32(IB_NOTICE_PRODUCER_TYPE_CLASS_MGR))
		type = 0;
	return __ib_producer_type_str[type];
}

/** Names of the port states, indexed by IB_LINK_*; the last is "UNKNOWN". */
static const char *const __ib_port_state_str[] = {
	"No State Change (NOP)",
	"DOWN",
	"INIT",
	"ARMED",
	"ACTIVE",
	"ACTDEFER",
	"UNKNOWN"
};

/**
 * Name of a port state (PortInfo). As in OFED for Windows and OpenSM, any
 * value above IB_LINK_ACTIVE yields the name of IB_LINK_ACT_DEFER.
 * @param port_state encoded port state.
 * @return a static string.
 */
AL_INLINE const char *AL_API
ib_get_port_state_str(IN uint8_t port_state)
{
	return __ib_port_state_str[port_state <= IB_LINK_ACTIVE ?
				   port_state : IB_LINK_ACTIVE + 1];
}

/**
 * Port state named by a string that starts like one of the names of
 * ib_get_port_state_str(). Only a prefix of each name is compared (12
 * characters of the NOP name, the whole of the others).
 * @param p_port_state_str the string.
 * @return IB_LINK_NO_CHANGE .. IB_LINK_ACT_DEFER, or 6 if nothing matches.
 */
AL_INLINE uint8_t AL_API
ib_get_port_state_from_str(IN const char *p_port_state_str)
{
	static const uint8_t len[] = { 12, 4, 4, 5, 6, 8 };
	uint8_t i;

	for (i = 0; i < (uint8_t)sizeof(len); i++)
		if (!strncmp(p_port_state_str, __ib_port_state_str[i], len[i]))
			return i;
	return i;
}

#define IB_JOIN_STATE_FULL           1 /**< MCMemberRecord JoinState: full member. */
#define IB_JOIN_STATE_NON            2 /**< MCMemberRecord JoinState: non-member. */
#define IB_JOIN_STATE_SEND_ONLY      4 /**< MCMemberRecord JoinState: send-only non-member. */
#define IB_JOIN_STATE_SEND_ONLY_FULL 8 /**< MCMemberRecord JoinState: send-only full member (OpenSM). */

/**
 * P_Key without its membership bit.
 * @param pkey P_Key, network order.
 * @return the low 15 bits, network order.
 */
AL_INLINE ib_net16_t AL_API
ib_pkey_get_base(IN const ib_net16_t pkey)
{
	return (ib_net16_t)(pkey & IB_PKEY_BASE_MASK);
}

/**
 * Tells whether a P_Key denotes full membership.
 * @param pkey P_Key, network order.
 * @return TRUE if the membership bit is set, FALSE otherwise.
 */
AL_INLINE boolean_t AL_API
ib_pkey_is_full_member(IN const ib_net16_t pkey)
{
	return (pkey & IB_PKEY_TYPE_MASK) == IB_PKEY_TYPE_MASK;
}

/**
 * Tells whether a P_Key is invalid: its low 15 bits are all zero (C10-116).
 * @param pkey P_Key, network order.
 * @return TRUE if invalid, FALSE otherwise.
 */
AL_INLINE boolean_t AL_API
ib_pkey_is_invalid(IN const ib_net16_t pkey)
{
	return ib_pkey_get_base(pkey) == 0 ? TRUE : FALSE;
}

#include <complib/cl_packon.h>
/** A 128-bit GID, viewed as bytes, as unicast or as multicast (4.1.1). */
typedef union _ib_gid {
	uint8_t raw[16]; /**< The GID as 16 bytes. */
	/** Unicast view. */
	struct _ib_gid_unicast {
		ib_gid_prefix_t prefix;  /**< Subnet prefix, network order. */
		ib_net64_t interface_id; /**< Interface ID (port GUID), network order. */
	} PACK_SUFFIX unicast; /**< Unicast view: subnet prefix and interface ID. */
	/** Multicast view. */
	struct _ib_gid_multicast {
		uint8_t header[2];        /**< 0xFF, then flags (high nibble) and scope (low nibble). */
		uint8_t raw_group_id[14]; /**< Group ID. */
	} PACK_SUFFIX multicast; /**< Multicast view: header and group ID. */
	/** IP-over-IB multicast view (OpenSM). */
	struct _ib_gid_ip_multicast {
		uint8_t header[2];    /**< 0xFF, then flags and scope. */
		ib_net16_t signature; /**< IPoIB signature (0x401B IPv4, 0x601B IPv6). */
		ib_net16_t p_key;     /**< P_Key of the partition. */
		uint8_t group_id[10]; /**< Low bits of the IP multicast group. */
	} PACK_SUFFIX ip_multicast; /**< IPoIB multicast view (OpenSM). */
} PACK_SUFFIX ib_gid_t;
#include <complib/cl_packoff.h>

/**
 * Tells whether a GID is a multicast GID (first byte 0xFF).
 * @param p_gid the GID.
 * @return TRUE if multicast, FALSE otherwise.
 */
AL_INLINE boolean_t AL_API
ib_gid_is_multicast(IN const ib_gid_t *p_gid)
{
	return p_gid->raw[0] == 0xFF;
}

/**
 * Scope of a multicast GID.
 * @param p_gid the (multicast) GID.
 * @return the scope, IB_MC_SCOPE_*.
 */
AL_INLINE uint8_t AL_API
ib_mgid_get_scope(IN const ib_gid_t *p_gid)
{
	return (uint8_t)(p_gid->raw[1] & 0x0F);
}

/**
 * Sets the scope of a multicast GID, keeping its flags.
 * @param p_gid the (multicast) GID.
 * @param scope scope, IB_MC_SCOPE_*; only the low 4 bits are used.
 */
AL_INLINE void AL_API
ib_mgid_set_scope(IN ib_gid_t *const p_gid, IN const uint8_t scope)
{
	p_gid->raw[1] = (uint8_t)((p_gid->raw[1] & 0xF0) | (scope & 0x0F));
}

/**
 * Sets a GID to the default subnet prefix and the given interface ID.
 * @param p_gid the GID to set.
 * @param interface_id interface ID (EUI-64 of the port), network order.
 */
AL_INLINE void AL_API
ib_gid_set_default(IN ib_gid_t *const p_gid, IN const ib_net64_t interface_id)
{
	p_gid->unicast.prefix = IB_DEFAULT_SUBNET_PREFIX;
	p_gid->unicast.interface_id = interface_id;
}

/**
 * Subnet prefix of a GID.
 * @param p_gid the GID.
 * @return the prefix, network order.
 */
AL_INLINE ib_net64_t AL_API
ib_gid_get_subnet_prefix(IN const ib_gid_t *const p_gid)
{
	return p_gid->unicast.prefix;
}

/**
 * Tells whether a unicast GID is link-local (prefix FE80::/10).
 * @param p_gid the GID.
 * @return TRUE if link-local, FALSE otherwise.
 */
AL_INLINE boolean_t AL_API
ib_gid_is_link_local(IN const ib_gid_t *const p_gid)
{
	return (ib_gid_get_subnet_prefix(p_gid) &
		CL_HTON64(0xFFC0000000000000ULL)) == IB_DEFAULT_SUBNET_PREFIX;
}

/**
 * Tells whether a unicast GID is site-local: its top 48 bits are
 * FEC0:0000:0000.
 * @param p_gid the GID.
 * @return TRUE if site-local, FALSE otherwise.
 */
AL_INLINE boolean_t AL_API
ib_gid_is_site_local(IN const ib_gid_t *const p_gid)
{
	return (ib_gid_get_subnet_prefix(p_gid) &
		CL_HTON64(0xFFFFFFFFFFFF0000ULL)) == CL_HTON64(0xFEC0000000000000ULL);
}

/**
 * Interface ID (GUID) of a GID.
 * @param p_gid the GID.
 * @return the interface ID, network order.
 */
AL_INLINE ib_net64_t AL_API
ib_gid_get_guid(IN const ib_gid_t *const p_gid)
{
	return p_gid->unicast.interface_id;
}

#include <complib/cl_packon.h>
/** A 32-bit field seen as a network-order value or as 4 bytes. */
typedef union _ib_field32_t {
	net32_t val;      /**< The whole field. */
	uint8_t bytes[4]; /**< The field's bytes, in wire order. */
} PACK_SUFFIX ib_field32_t;
#include <complib/cl_packoff.h>

#include <complib/cl_packon.h>
/** Common MAD header (13.4.3). All MADs start with it. */
typedef struct _ib_mad {
	uint8_t base_ver;     /**< MAD base version (1). */
	uint8_t mgmt_class;   /**< Management class, IB_MCLASS_*. */
	uint8_t class_ver;    /**< Class version. */
	uint8_t method;       /**< Method, IB_MAD_METHOD_*, including the R bit. */
	ib_net16_t status;    /**< Status, IB_MAD_STATUS_*. */
	ib_net16_t class_spec; /**< Class-specific field. */
	ib_net64_t trans_id;  /**< Transaction ID. */
	ib_net16_t attr_id;   /**< Attribute ID, IB_MAD_ATTR_*. */
	ib_net16_t resv;      /**< Reserved. */
	ib_net32_t attr_mod;  /**< Attribute modifier. */
} PACK_SUFFIX ib_mad_t;
#include <complib/cl_packoff.h>

#include <complib/cl_packon.h>
/** Common MAD header followed by the RMPP header (13.6.2.1). */
typedef struct _ib_rmpp_mad {
	ib_mad_t common_hdr;      /**< Common MAD header. */
	uint8_t rmpp_version;     /**< RMPP version (1; 0 when RMPP is not used). */
	uint8_t rmpp_type;        /**< RMPP packet type, IB_RMPP_TYPE_*. */
	uint8_t rmpp_flags;       /**< RRespTime (high 5 bits) and IB_RMPP_FLAG_* (low 3 bits). */
	uint8_t rmpp_status;      /**< RMPP status, IB_RMPP_STATUS_*. */
	ib_net32_t seg_num;       /**< Segment number (DATA, ACK). */
	ib_net32_t paylen_newwin; /**< Payload length (DATA) or NewWindowLast (ACK). */
} PACK_SUFFIX ib_rmpp_mad_t;
#include <complib/cl_packoff.h>

/**
 * Initializes a common MAD header for a new request: base version 1, status,
 * class-specific and reserved fields zero.
 * @param p_mad header to fill.
 * @param mgmt_class management class.
 * @param class_ver class version.
 * @param method method, including the R bit.
 * @param trans_id transaction ID, network order.
 * @param attr_id attribute ID, network order.
 * @param attr_mod attribute modifier, network order.
 */
AL_INLINE void AL_API
ib_mad_init_new(IN ib_mad_t *const p_mad, IN const uint8_t mgmt_class,
		IN const uint8_t class_ver, IN const uint8_t method,
		IN const ib_net64_t trans_id, IN const ib_net16_t attr_id,
		IN const ib_net32_t attr_mod)
{
	CL_ASSERT(p_mad);
	p_mad->base_ver = 1;
	p_mad->mgmt_class = mgmt_class;
	p_mad->class_ver = class_ver;
	p_mad->method = method;
	p_mad->status = 0;
	p_mad->class_spec = 0;
	p_mad->trans_id = trans_id;
	p_mad->attr_id = attr_id;
	p_mad->resv = 0;
	p_mad->attr_mod = attr_mod;
}

/**
 * Initializes a common MAD header as the response to a request: a copy of
 * the request header with the given status and the R bit set; a Set()
 * becomes GetResp(). The two pointers may designate the same MAD.
 * @param p_req_mad header of the request.
 * @param p_mad header to fill.
 * @param status status of the response, network order.
 */
AL_INLINE void AL_API
ib_mad_init_response(IN const ib_mad_t *const p_req_mad,
		     IN ib_mad_t *const p_mad, IN const ib_net16_t status)
{
	CL_ASSERT(p_req_mad);
	CL_ASSERT(p_mad);
	*p_mad = *p_req_mad;
	p_mad->status = status;
	if (p_mad->method == IB_MAD_METHOD_SET)
		p_mad->method = IB_MAD_METHOD_GET;
	p_mad->method |= IB_MAD_METHOD_RESP_MASK;
}

/**
 * Tells whether a MAD is a response: the R bit is set or the method is
 * TrapRepress().
 * @param p_mad the MAD.
 * @return TRUE for a response, FALSE otherwise.
 */
AL_INLINE boolean_t AL_API
ib_mad_is_response(IN const ib_mad_t *const p_mad)
{
	CL_ASSERT(p_mad);
	return (p_mad->method & IB_MAD_METHOD_RESP_MASK) ||
	       p_mad->method == IB_MAD_METHOD_TRAP_REPRESS;
}

#define IB_RMPP_TYPE_DATA  1 /**< RMPP packet type: DATA. */
#define IB_RMPP_TYPE_ACK   2 /**< RMPP packet type: ACK. */
#define IB_RMPP_TYPE_STOP  3 /**< RMPP packet type: STOP. */
#define IB_RMPP_TYPE_ABORT 4 /**< RMPP packet type: ABORT. */

#define IB_RMPP_NO_RESP_TIME 0x1F /**< RRespTime value meaning "no time given". */
#define IB_RMPP_FLAG_ACTIVE  0x01 /**< RMPP flag: RMPP active. */
#define IB_RMPP_FLAG_FIRST   0x02 /**< RMPP flag: first segment. */
#define IB_RMPP_FLAG_LAST    0x04 /**< RMPP flag: last segment. */

#define IB_RMPP_STATUS_SUCCESS    0   /**< RMPP status: normal. */
#define IB_RMPP_STATUS_RESX       1   /**< RMPP status: resources exhausted. */
#define IB_RMPP_STATUS_T2L        118 /**< RMPP status: total time too long. */
#define IB_RMPP_STATUS_BAD_LEN    119 /**< RMPP status: inconsistent last and payload length. */
#define IB_RMPP_STATUS_BAD_SEG    120 /**< RMPP status: inconsistent first and segment number. */
#define IB_RMPP_STATUS_BADT       121 /**< RMPP status: bad RMPP type. */
#define IB_RMPP_STATUS_W2S        122 /**< RMPP status: NewWindowLast too small. */
#define IB_RMPP_STATUS_S2B        123 /**< RMPP status: segment number too big. */
#define IB_RMPP_STATUS_BAD_STATUS 124 /**< RMPP status: illegal status. */
#define IB_RMPP_STATUS_UNV        125 /**< RMPP status: unsupported version. */
#define IB_RMPP_STATUS_TMR        126 /**< RMPP status: too many retries. */
#define IB_RMPP_STATUS_UNSPEC     127 /**< RMPP status: unspecified error. */

/**
 * Tells whether all bits of an RMPP flag are set.
 * @param p_rmpp_mad MAD with an RMPP header.
 * @param flag IB_RMPP_FLAG_* (or several of them or-ed).
 * @return TRUE if every bit of @p flag is set, FALSE otherwise.
 */
AL_INLINE boolean_t AL_API
ib_rmpp_is_flag_set(IN const ib_rmpp_mad_t *const p_rmpp_mad,
		    IN const uint8_t flag)
{
	CL_ASSERT(p_rmpp_mad);
	return (p_rmpp_mad->rmpp_flags & flag) == flag;
}

/**
 * Ors a response time into the RRespTime bits of the RMPP flags. As in
 * upstream the bits are or-ed in, not replaced: start from zero.
 * @param p_rmpp_mad MAD with an RMPP header.
 * @param resp_time response time (5 bits).
 */
AL_INLINE void AL_API
ib_rmpp_set_resp_time(IN ib_rmpp_mad_t *const p_rmpp_mad,
		      IN const uint8_t resp_time)
{
	CL_ASSERT(p_rmpp_mad);
	p_rmpp_mad->rmpp_flags = (uint8_t)(p_rmpp_mad->rmpp_flags | (resp_time << 3));
}

/**
 * RRespTime of an RMPP header.
 * @param p_rmpp_mad MAD with an RMPP header.
 * @return the high 5 bits of the RMPP flags.
 */
AL_INLINE uint8_t AL_API
ib_rmpp_get_resp_time(IN const ib_rmpp_mad_t *const p_rmpp_mad)
{
	CL_ASSERT(p_rmpp_mad);
	return (uint8_t)(p_rmpp_mad->rmpp_flags >> 3);
}

#define IB_SMP_DIRECTION_HO 0x8000 /**< D (direction) bit of a directed-route SMP status, host order. */
/** D (direction) bit of a directed-route SMP status, network order. */
#define IB_SMP_DIRECTION    (CL_HTON16(IB_SMP_DIRECTION_HO))
#define IB_SMP_STATUS_MASK_HO 0x7FFF /**< Status bits of a directed-route SMP, host order. */
/** Status bits of a directed-route SMP, network order. */
#define IB_SMP_STATUS_MASK  (CL_HTON16(IB_SMP_STATUS_MASK_HO))

#define IB_SMP_DATA_SIZE 64 /**< Size of the SMP data area. */

#include <complib/cl_packon.h>
/** Subnet management packet, directed-route layout (14.2.1.2). */
typedef struct _ib_smp {
	uint8_t base_ver;     /**< MAD base version (1). */
	uint8_t mgmt_class;   /**< Management class (IB_MCLASS_SUBN_DIR or _LID). */
	uint8_t class_ver;    /**< Class version (1). */
	uint8_t method;       /**< Method, including the R bit. */
	ib_net16_t status;    /**< D bit and status. */
	uint8_t hop_ptr;      /**< Directed-route hop pointer. */
	uint8_t hop_count;    /**< Directed-route hop count. */
	ib_net64_t trans_id;  /**< Transaction ID. */
	ib_net16_t attr_id;   /**< Attribute ID. */
	ib_net16_t resv;      /**< Reserved. */
	ib_net32_t attr_mod;  /**< Attribute modifier. */
	ib_net64_t m_key;     /**< M_Key. */
	ib_net16_t dr_slid;   /**< Directed-route source LID. */
	ib_net16_t dr_dlid;   /**< Directed-route destination LID. */
	uint32_t resv1[7];    /**< Reserved (28 bytes). */
	uint8_t data[IB_SMP_DATA_SIZE];                    /**< SMP data. */
	uint8_t initial_path[IB_SUBNET_PATH_HOPS_MAX];     /**< Outbound port list. */
	uint8_t return_path[IB_SUBNET_PATH_HOPS_MAX];      /**< Inbound port list. */
} PACK_SUFFIX ib_smp_t;
#include <complib/cl_packoff.h>

/**
 * Status of an SMP without the D bit.
 * @param p_smp the SMP.
 * @return the status, network order.
 */
AL_INLINE ib_net16_t AL_API
ib_smp_get_status(IN const ib_smp_t *const p_smp)
{
	return (ib_net16_t)(p_smp->status & IB_SMP_STATUS_MASK);
}

/**
 * Tells whether an SMP is a response: the R bit is set or the method is
 * TrapRepress(), as ib_mad_is_response() decides for any MAD. The method is
 * read through the SMP itself (no cast to ib_mad_t), which keeps the helper
 * correct under the compiler's strict-aliasing optimizations.
 * @param p_smp the SMP.
 * @return TRUE for a response, FALSE otherwise.
 */
AL_INLINE boolean_t AL_API
ib_smp_is_response(IN const ib_smp_t *const p_smp)
{
	return (p_smp->method & IB_MAD_METHOD_RESP_MASK) ||
	       p_smp->method == IB_MAD_METHOD_TRAP_REPRESS;
}

/**
 * Tells whether the D (direction) bit of an SMP is set.
 * @param p_smp the SMP.
 * @return TRUE if the D bit is set, FALSE otherwise.
 */
AL_INLINE boolean_t AL_API
ib_smp_is_d(IN const ib_smp_t *const p_smp)
{
	return (p_smp->status & IB_SMP_DIRECTION) == IB_SMP_DIRECTION;
}

/**
 * Initializes a directed-route SMP: the whole packet is zeroed, the header
 * is set for class IB_MCLASS_SUBN_DIR version 1 with hop pointer 0, and
 * IB_SUBNET_PATH_HOPS_MAX bytes of @p path_out are copied to initial_path.
 * @param p_smp SMP to fill.
 * @param method method.
 * @param trans_id transaction ID, network order.
 * @param attr_id attribute ID, network order.
 * @param attr_mod attribute modifier, network order.
 * @param hop_count number of hops, below IB_SUBNET_PATH_HOPS_MAX.
 * @param m_key M_Key, network order.
 * @param path_out IB_SUBNET_PATH_HOPS_MAX bytes: the outbound port list.
 * @param dr_slid directed-route source LID, network order.
 * @param dr_dlid directed-route destination LID, network order.
 */
AL_INLINE void AL_API
ib_smp_init_new(IN ib_smp_t *const p_smp, IN const uint8_t method,
		IN const ib_net64_t trans_id, IN const ib_net16_t attr_id,
		IN const ib_net32_t attr_mod, IN const uint8_t hop_count,
		IN const ib_net64_t m_key, IN const uint8_t *path_out,
		IN const ib_net16_t dr_slid, IN const ib_net16_t dr_dlid)
{
	CL_ASSERT(p_smp);
	CL_ASSERT(hop_count < IB_SUBNET_PATH_HOPS_MAX);
	memset(p_smp, 0, sizeof(*p_smp));
	p_smp->base_ver = 1;
	p_smp->mgmt_class = IB_MCLASS_SUBN_DIR;
	p_smp->class_ver = 1;
	p_smp->method = method;
	p_smp->hop_count = hop_count;
	p_smp->trans_id = trans_id;
	p_smp->attr_id = attr_id;
	p_smp->attr_mod = attr_mod;
	p_smp->m_key = m_key;
	p_smp->dr_slid = dr_slid;
	p_smp->dr_dlid = dr_dlid;
	memcpy(p_smp->initial_path, path_out, sizeof(p_smp->initial_path));
}

/**
 * Data area of an SMP.
 * @param p_smp the SMP.
 * @return pointer to its IB_SMP_DATA_SIZE data bytes.
 */
AL_INLINE void *AL_API
ib_smp_get_payload_ptr(IN const ib_smp_t *const p_smp)
{
	return (void *)(uintptr_t)p_smp->data;
}

#define IB_SA_DATA_SIZE 200 /**< Size of the SA MAD data area. */

#include <complib/cl_packon.h>
/** Subnet administration MAD: common, RMPP and SA headers, then data (15.2.1). */
typedef struct _ib_sa_mad {
	uint8_t base_ver;         /**< MAD base version (1). */
	uint8_t mgmt_class;       /**< Management class (IB_MCLASS_SUBN_ADM). */
	uint8_t class_ver;        /**< Class version (2). */
	uint8_t method;           /**< Method, including the R bit. */
	ib_net16_t status;        /**< Status. */
	ib_net16_t resv;          /**< Class-specific field (reserved). */
	ib_net64_t trans_id;      /**< Transaction ID. */
	ib_net16_t attr_id;       /**< Attribute ID. */
	ib_net16_t resv1;         /**< Reserved. */
	ib_net32_t attr_mod;      /**< Attribute modifier. */
	uint8_t rmpp_version;     /**< RMPP version. */
	uint8_t rmpp_type;        /**< RMPP packet type. */
	uint8_t rmpp_flags;       /**< RRespTime and RMPP flags. */
	uint8_t rmpp_status;      /**< RMPP status. */
	ib_net32_t seg_num;       /**< Segment number. */
	ib_net32_t paylen_newwin; /**< Payload length or NewWindowLast. */
	ib_net64_t sm_key;        /**< SM_Key. */
	ib_net16_t attr_offset;   /**< Record size in units of 8 bytes. */
	ib_net16_t resv3;         /**< Reserved. */
	ib_net64_t comp_mask;     /**< Component mask. */
	uint8_t data[IB_SA_DATA_SIZE]; /**< SA data. */
} PACK_SUFFIX ib_sa_mad_t;
#include <complib/cl_packoff.h>

/** Size of the headers of an SA MAD (56 bytes). */
#define IB_SA_MAD_HDR_SIZE (sizeof(ib_sa_mad_t) - IB_SA_DATA_SIZE)

/**
 * Record size given by an SA attribute offset.
 * @param attr_offset attribute offset, network order (units of 8 bytes).
 * @return the size in bytes.
 */
AL_INLINE uint32_t AL_API
ib_get_attr_size(IN const ib_net16_t attr_offset)
{
	return ((uint32_t)cl_ntoh16(attr_offset)) << 3;
}

/**
 * SA attribute offset for a record size.
 * @param attr_size record size in bytes (a multiple of 8).
 * @return the attribute offset, network order.
 */
AL_INLINE ib_net16_t AL_API
ib_get_attr_offset(IN const uint32_t attr_size)
{
	return cl_hton16((uint16_t)(attr_size >> 3));
}

/**
 * Data area of an SA MAD.
 * @param p_sa_mad the SA MAD.
 * @return pointer to its IB_SA_DATA_SIZE data bytes.
 */
AL_INLINE void *AL_API
ib_sa_mad_get_payload_ptr(IN const ib_sa_mad_t *const p_sa_mad)
{
	return (void *)(uintptr_t)p_sa_mad->data;
}

/* Physical port states, link widths and speeds, rates (14.2.5.6, 15.2.5.16). */

#define IB_PORT_PHYS_STATE_NO_CHANGE       0 /**< PortPhysicalState: no state change. */
#define IB_PORT_PHYS_STATE_SLEEP           1 /**< PortPhysicalState: sleep. */
#define IB_PORT_PHYS_STATE_POLLING         2 /**< PortPhysicalState: polling. */
#define IB_PORT_PHYS_STATE_DISABLED        3 /**< PortPhysicalState: disabled. */
#define IB_PORT_PHYS_STATE_PORTCONFTRAIN   4 /**< PortPhysicalState: port configuration training. */
#define IB_PORT_PHYS_STATE_LINKUP          5 /**< PortPhysicalState: link up. */
#define IB_PORT_PHYS_STATE_LINKERRRECOVER  6 /**< PortPhysicalState: link error recovery. */
#define IB_PORT_PHYS_STATE_PHYTEST         7 /**< PortPhysicalState: Phy test. */

#define IB_LINK_WIDTH_ACTIVE_1X  1  /**< Link width 1x. */
#define IB_LINK_WIDTH_ACTIVE_4X  2  /**< Link width 4x. */
#define IB_LINK_WIDTH_ACTIVE_8X  4  /**< Link width 8x. */
#define IB_LINK_WIDTH_ACTIVE_12X 8  /**< Link width 12x. */
#define IB_LINK_WIDTH_ACTIVE_2X  16 /**< Link width 2x (OpenSM). */
/** All link widths (OpenSM). */
#define IB_LINK_WIDTH_1X_2X_4X_8X_OR_12X (IB_LINK_WIDTH_ACTIVE_1X | \
	IB_LINK_WIDTH_ACTIVE_2X | IB_LINK_WIDTH_ACTIVE_4X | \
	IB_LINK_WIDTH_ACTIVE_8X | IB_LINK_WIDTH_ACTIVE_12X)
#define IB_LINK_WIDTH_SET_LWS    255 /**< LinkWidthEnabled: set to LinkWidthSupported (OpenSM). */
#define IB_LINK_SPEED_ACTIVE_EXTENDED 0 /**< LinkSpeedActive: see the extended speed (OpenSM). */
#define IB_LINK_SPEED_ACTIVE_2_5 1 /**< Link speed 2.5 Gb/s. */
#define IB_LINK_SPEED_ACTIVE_5   2 /**< Link speed 5 Gb/s. */
#define IB_LINK_SPEED_ACTIVE_10  4 /**< Link speed 10 Gb/s. */
/** The three base link speeds (OpenSM). */
#define IB_LINK_SPEED_2_5_5_OR_10 (IB_LINK_SPEED_ACTIVE_2_5 | \
	IB_LINK_SPEED_ACTIVE_5 | IB_LINK_SPEED_ACTIVE_10)
#define IB_LINK_SPEED_SET_LSS    15 /**< LinkSpeedEnabled: set to LinkSpeedSupported (OpenSM). */
#define IB_LINK_SPEED_EXT_ACTIVE_NONE 0 /**< No extended link speed. */
#define IB_LINK_SPEED_EXT_ACTIVE_14   1 /**< Extended link speed 14 Gb/s (FDR). */
#define IB_LINK_SPEED_EXT_ACTIVE_25   2 /**< Extended link speed 25 Gb/s (EDR). */
#define IB_LINK_SPEED_EXT_ACTIVE_50   4 /**< Extended link speed 50 Gb/s (HDR, OpenSM). */
/** All extended link speeds (OpenSM). */
#define IB_LINK_SPEED_EXT_14_25_OR_50 (IB_LINK_SPEED_EXT_ACTIVE_14 | \
	IB_LINK_SPEED_EXT_ACTIVE_25 | IB_LINK_SPEED_EXT_ACTIVE_50)
#define IB_LINK_SPEED_EXT_DISABLE  30 /**< LinkSpeedExtEnabled: disable extended speeds. */
#define IB_LINK_SPEED_EXT_SET_LSES 31 /**< LinkSpeedExtEnabled: set to LinkSpeedExtSupported. */

#define IB_PATH_RECORD_RATE_2_5_GBS 2  /**< Encoded rate 2.5 Gb/s. */
#define IB_PATH_RECORD_RATE_10_GBS  3  /**< Encoded rate 10 Gb/s. */
#define IB_PATH_RECORD_RATE_30_GBS  4  /**< Encoded rate 30 Gb/s. */
#define IB_PATH_RECORD_RATE_5_GBS   5  /**< Encoded rate 5 Gb/s. */
#define IB_PATH_RECORD_RATE_20_GBS  6  /**< Encoded rate 20 Gb/s. */
#define IB_PATH_RECORD_RATE_40_GBS  7  /**< Encoded rate 40 Gb/s. */
#define IB_PATH_RECORD_RATE_60_GBS  8  /**< Encoded rate 60 Gb/s. */
#define IB_PATH_RECORD_RATE_80_GBS  9  /**< Encoded rate 80 Gb/s. */
#define IB_PATH_RECORD_RATE_120_GBS 10 /**< Encoded rate 120 Gb/s. */
#define IB_PATH_RECORD_RATE_14_GBS  11 /**< Encoded rate 14 Gb/s. */
#define IB_PATH_RECORD_RATE_56_GBS  12 /**< Encoded rate 56 Gb/s. */
#define IB_PATH_RECORD_RATE_112_GBS 13 /**< Encoded rate 112 Gb/s. */
#define IB_PATH_RECORD_RATE_168_GBS 14 /**< Encoded rate 168 Gb/s. */
#define IB_PATH_RECORD_RATE_25_GBS  15 /**< Encoded rate 25 Gb/s. */
#define IB_PATH_RECORD_RATE_100_GBS 16 /**< Encoded rate 100 Gb/s. */
#define IB_PATH_RECORD_RATE_200_GBS 17 /**< Encoded rate 200 Gb/s. */
#define IB_PATH_RECORD_RATE_300_GBS 18 /**< Encoded rate 300 Gb/s. */
#define IB_PATH_RECORD_RATE_28_GBS  19 /**< Encoded rate 28 Gb/s (OpenSM). */
#define IB_PATH_RECORD_RATE_50_GBS  20 /**< Encoded rate 50 Gb/s (OpenSM). */
#define IB_PATH_RECORD_RATE_400_GBS 21 /**< Encoded rate 400 Gb/s (OpenSM). */
#define IB_PATH_RECORD_RATE_600_GBS 22 /**< Encoded rate 600 Gb/s (OpenSM). */

#define IB_MIN_RATE IB_PATH_RECORD_RATE_2_5_GBS /**< Smallest encoded rate. */
/** Largest encoded rate known to OFED for Windows (300 Gb/s). */
#define IB_MAX_RATE IB_PATH_RECORD_RATE_300_GBS
/** Largest encoded rate known to OpenSM (600 Gb/s). */
#define IB_RATE_MAX IB_PATH_RECORD_RATE_600_GBS

#define IB_DROP_VL     15 /**< VL number meaning "drop the packet". */
#define IB_MAX_NUM_VLS 16 /**< Number of VLs, VL15 included. */

#include <complib/cl_packon.h>
/** Global route header (8.3) as received ahead of unreliable datagrams. */
typedef struct _ib_grh {
	ib_net32_t ver_class_flow; /**< IP version (4 bits), traffic class (8), flow label (20). */
	uint16_t resv1;            /**< Payload length field (not interpreted). */
	uint8_t resv2;             /**< Next header field (not interpreted). */
	uint8_t hop_limit;         /**< Hop limit. */
	ib_gid_t src_gid;          /**< Source GID. */
	ib_gid_t dest_gid;         /**< Destination GID. */
} PACK_SUFFIX ib_grh_t;
#include <complib/cl_packoff.h>

/**
 * Splits the first word of a GRH.
 * @param ver_class_flow the word, network order.
 * @param p_ver receives the IP version (4 bits); may be NULL.
 * @param p_tclass receives the traffic class; may be NULL.
 * @param p_flow_lbl receives the flow label, network order; may be NULL.
 */
AL_INLINE void AL_API
ib_grh_get_ver_class_flow(IN const ib_net32_t ver_class_flow,
			  OUT uint8_t *const p_ver,
			  OUT uint8_t *const p_tclass,
			  OUT net32_t *const p_flow_lbl)
{
	uint32_t word = cl_ntoh32(ver_class_flow);

	if (p_ver)
		*p_ver = (uint8_t)(word >> 28);
	if (p_tclass)
		*p_tclass = (uint8_t)(word >> 20);
	if (p_flow_lbl)
		*p_flow_lbl = ver_class_flow & CL_HTON32(0x000FFFFF);
}

/**
 * Builds the first word of a GRH.
 * @param ver IP version (low 4 bits used).
 * @param tclass traffic class.
 * @param flow_lbl flow label, network order (low 20 bits used).
 * @return the word, network order.
 */
AL_INLINE ib_net32_t AL_API
ib_grh_set_ver_class_flow(IN const uint8_t ver, IN const uint8_t tclass,
			  IN const net32_t flow_lbl)
{
	return cl_hton32(((uint32_t)ver << 28) | ((uint32_t)tclass << 20)) |
	       (flow_lbl & CL_HTON32(0x000FFFFF));
}

#define IB_NOTICE_TYPE_FATAL     0x00 /**< Generic notice type: fatal. */
#define IB_NOTICE_TYPE_URGENT    0x01 /**< Generic notice type: urgent. */
#define IB_NOTICE_TYPE_SECURITY  0x02 /**< Generic notice type: security. */
#define IB_NOTICE_TYPE_SUBN_MGMT 0x03 /**< Generic notice type: subnet management. */
#define IB_NOTICE_TYPE_INFO      0x04 /**< Generic notice type: informational. */
#define IB_NOTICE_TYPE_EMPTY     0x7F /**< Generic notice type: empty. */

#define IB_GMP_DATA_SIZE 200 /**< Size of the GMP data area. */

#include <complib/cl_packon.h>
/**
 * General services MAD: common header, 40 reserved bytes, data (16.1.1).
 * As in OFED for Windows the data area is IB_GMP_DATA_SIZE (200) bytes, so
 * the structure is 264 bytes long, 8 more than a MAD: use it to address the
 * fields of a MAD buffer, not to size one.
 */
typedef struct _ib_gmp {
	uint8_t base_ver;      /**< MAD base version (1). */
	uint8_t mgmt_class;    /**< Management class. */
	uint8_t class_ver;     /**< Class version. */
	uint8_t method;        /**< Method, including the R bit. */
	ib_net16_t status;     /**< Status. */
	ib_net16_t resv;       /**< Class-specific field (reserved). */
	ib_net64_t trans_id;   /**< Transaction ID. */
	ib_net16_t attr_id;    /**< Attribute ID. */
	ib_net16_t resv1;      /**< Reserved. */
	ib_net32_t attr_mod;   /**< Attribute modifier. */
	uint8_t resv2[40];     /**< Reserved (class-specific header). */
	uint8_t data[IB_GMP_DATA_SIZE]; /**< Data. */
} PACK_SUFFIX ib_gmp_t;
#include <complib/cl_packoff.h>

/** Size of the headers of a GMP (64 bytes). */
#define IB_GMP_MAD_HDR_SIZE (sizeof(ib_gmp_t) - IB_GMP_DATA_SIZE)

#define IB_SMINFO_STATE_INIT 4 /**< SMInfo state used by the SM state machine: initializing. */

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* __IB_TYPES_BASE_H__ */
