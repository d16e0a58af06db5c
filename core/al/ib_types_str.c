/*
 * ibal access layer: names of the status, event, QP, work request and work completion values.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <iba/ib_types.h>

#define NAME(v) [v] = #v
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const err_names[] = {
	NAME(IB_SUCCESS),
	NAME(IB_INSUFFICIENT_RESOURCES),
	NAME(IB_INSUFFICIENT_MEMORY),
	NAME(IB_INVALID_PARAMETER),
	NAME(IB_INVALID_SETTING),
	NAME(IB_NOT_FOUND),
	NAME(IB_TIMEOUT),
	NAME(IB_CANCELED),
	NAME(IB_INTERRUPTED),
	NAME(IB_INVALID_PERMISSION),
	NAME(IB_UNSUPPORTED),
	NAME(IB_OVERFLOW),
	NAME(IB_MAX_MCAST_QPS_REACHED),
	NAME(IB_INVALID_QP_STATE),
	NAME(IB_INVALID_APM_STATE),
	NAME(IB_INVALID_PORT_STATE),
	NAME(IB_INVALID_STATE),
	NAME(IB_RESOURCE_BUSY),
	NAME(IB_INVALID_PKEY),
	NAME(IB_INVALID_LKEY),
	NAME(IB_INVALID_RKEY),
	NAME(IB_INVALID_MAX_WRS),
	NAME(IB_INVALID_MAX_SGE),
	NAME(IB_INVALID_CQ_SIZE),
	NAME(IB_INVALID_SRQ_SIZE),
	NAME(IB_INVALID_SERVICE_TYPE),
	NAME(IB_INVALID_GID),
	NAME(IB_INVALID_LID),
	NAME(IB_INVALID_GUID),
	NAME(IB_INVALID_GUID_MASK),
	NAME(IB_INVALID_CA_HANDLE),
	NAME(IB_INVALID_AV_HANDLE),
	NAME(IB_INVALID_CQ_HANDLE),
	NAME(IB_INVALID_QP_HANDLE),
	NAME(IB_INVALID_SRQ_HANDLE),
	NAME(IB_INVALID_PD_HANDLE),
	NAME(IB_INVALID_MR_HANDLE),
	NAME(IB_INVALID_FMR_HANDLE),
	NAME(IB_INVALID_MW_HANDLE),
	NAME(IB_INVALID_MCAST_HANDLE),
	NAME(IB_INVALID_CALLBACK),
	NAME(IB_INVALID_AL_HANDLE),
	NAME(IB_INVALID_HANDLE),
	NAME(IB_ERROR),
	NAME(IB_REMOTE_ERROR),
	NAME(IB_VERBS_PROCESSING_DONE),
	NAME(IB_INVALID_WR_TYPE),
	NAME(IB_QP_IN_TIMEWAIT),
	NAME(IB_EE_IN_TIMEWAIT),
	NAME(IB_INVALID_PORT),
	NAME(IB_NOT_DONE),
	NAME(IB_INVALID_INDEX),
	NAME(IB_NO_MATCH),
	NAME(IB_PENDING),
	NAME(IB_UNKNOWN_ERROR),
};
_Static_assert(COUNT(err_names) == IB_UNKNOWN_ERROR + 1, "one name per ib_api_status_t");

/* Event 0 does not exist; OFED for Windows names it "IB_AE_DUMMY". */
static const char *const async_event_names[] = {
	[0] = "IB_AE_DUMMY",
	NAME(IB_AE_SQ_ERROR),
	NAME(IB_AE_SQ_DRAINED),
	NAME(IB_AE_RQ_ERROR),
	NAME(IB_AE_CQ_ERROR),
	NAME(IB_AE_QP_FATAL),
	NAME(IB_AE_QP_COMM),
	NAME(IB_AE_QP_APM),
	NAME(IB_AE_LOCAL_FATAL),
	NAME(IB_AE_PKEY_TRAP),
	NAME(IB_AE_QKEY_TRAP),
	NAME(IB_AE_MKEY_TRAP),
	NAME(IB_AE_PORT_TRAP),
	NAME(IB_AE_SYSIMG_GUID_TRAP),
	NAME(IB_AE_BUF_OVERRUN),
	NAME(IB_AE_LINK_INTEGRITY),
	NAME(IB_AE_FLOW_CTRL_ERROR),
	NAME(IB_AE_BKEY_TRAP),
	NAME(IB_AE_QP_APM_ERROR),
	NAME(IB_AE_WQ_REQ_ERROR),
	NAME(IB_AE_WQ_ACCESS_ERROR),
	NAME(IB_AE_PORT_ACTIVE),
	NAME(IB_AE_PORT_DOWN),
	NAME(IB_AE_CLIENT_REREGISTER),
	NAME(IB_AE_SRQ_LIMIT_REACHED),
	NAME(IB_AE_SRQ_CATAS_ERROR),
	NAME(IB_AE_SRQ_QP_LAST_WQE_REACHED),
	NAME(IB_AE_RESET_DRIVER),
	NAME(IB_AE_RESET_CLIENT),
	NAME(IB_AE_RESET_END),
	NAME(IB_AE_RESET_FAILED),
	NAME(IB_AE_LID_CHANGE),
	NAME(IB_AE_PKEY_CHANGE),
	NAME(IB_AE_SM_CHANGE),
	NAME(IB_AE_GID_CHANGE),
	NAME(IB_AE_RESET_4_RMV),
	NAME(IB_AE_CQ_OVERFLOW),
	NAME(IB_AE_UNKNOWN),
};
_Static_assert(COUNT(async_event_names) == IB_AE_UNKNOWN + 1, "one name per ib_async_event_t");

static const char *const wc_status_names[] = {
	NAME(IB_WCS_SUCCESS),
	NAME(IB_WCS_LOCAL_LEN_ERR),
	NAME(IB_WCS_LOCAL_OP_ERR),
	NAME(IB_WCS_LOCAL_PROTECTION_ERR),
	NAME(IB_WCS_WR_FLUSHED_ERR),
	NAME(IB_WCS_MEM_WINDOW_BIND_ERR),
	NAME(IB_WCS_REM_ACCESS_ERR),
	NAME(IB_WCS_REM_OP_ERR),
	NAME(IB_WCS_RNR_RETRY_ERR),
	NAME(IB_WCS_TIMEOUT_RETRY_ERR),
	NAME(IB_WCS_REM_INVALID_REQ_ERR),
	NAME(IB_WCS_BAD_RESP_ERR),
	NAME(IB_WCS_LOCAL_ACCESS_ERR),
	NAME(IB_WCS_GENERAL_ERR),
	NAME(IB_WCS_UNMATCHED_RESPONSE),
	NAME(IB_WCS_CANCELED),
	NAME(IB_WCS_REM_ABORT_ERR),
	NAME(IB_WCS_UNKNOWN),
};
_Static_assert(COUNT(wc_status_names) == IB_WCS_UNKNOWN + 1, "one name per ib_wc_status_t");

/* Send-side completion types: 0 .. IB_WC_UNKNOWN1 - 1. */
static const char *const wc_send_type_names[] = {
	NAME(IB_WC_SEND),
	NAME(IB_WC_RDMA_WRITE),
	NAME(IB_WC_RDMA_READ),
	NAME(IB_WC_COMPARE_SWAP),
	NAME(IB_WC_FETCH_ADD),
	NAME(IB_WC_MW_BIND),
	NAME(IB_WC_NOP),
};
_Static_assert(COUNT(wc_send_type_names) == IB_WC_UNKNOWN1, "one name per send completion type");

/* Receive-side completion types, indexed from IB_WC_RECV. */
static const char *const wc_recv_type_names[] = {
	[IB_WC_RECV - IB_WC_RECV] = "IB_WC_RECV",
	[IB_WC_RECV_RDMA_WRITE - IB_WC_RECV] = "IB_WC_RECV_RDMA_WRITE",
	[IB_WC_LSO - IB_WC_RECV] = "IB_WC_LSO",
	[IB_WC_LOCAL_INV - IB_WC_RECV] = "IB_WC_LOCAL_INV",
	[IB_WC_FAST_REG_MR - IB_WC_RECV] = "IB_WC_FAST_REG_MR",
};
_Static_assert(COUNT(wc_recv_type_names) == IB_WC_UNKNOWN2 - IB_WC_RECV,
	       "one name per receive completion type");

static const char *const wr_type_names[] = {
	NAME(WR_SEND),
	NAME(WR_RDMA_WRITE),
	NAME(WR_RDMA_READ),
	NAME(WR_COMPARE_SWAP),
	NAME(WR_FETCH_ADD),
	NAME(WR_LSO),
	NAME(WR_NOP),
	NAME(WR_LOCAL_INV),
	NAME(WR_FAST_REG_MR),
	NAME(WR_UNKNOWN),
};
_Static_assert(COUNT(wr_type_names) == WR_UNKNOWN + 1, "one name per ib_wr_type_t");

static const char *const qp_type_names[] = {
	NAME(IB_QPT_RELIABLE_CONN),
	NAME(IB_QPT_UNRELIABLE_CONN),
	NAME(IB_QPT_RELIABLE_DGRM),
	NAME(IB_QPT_UNRELIABLE_DGRM),
	NAME(IB_QPT_QP0),
	NAME(IB_QPT_QP1),
	NAME(IB_QPT_RAW_IPV6),
	NAME(IB_QPT_RAW_ETHER),
	NAME(IB_QPT_MAD),
	NAME(IB_QPT_QP0_ALIAS),
	NAME(IB_QPT_QP1_ALIAS),
	NAME(IB_QPT_UNKNOWN),
};
_Static_assert(COUNT(qp_type_names) == IB_QPT_UNKNOWN + 1, "one name per ib_qp_type_t");

/* Entry @p v of @p names, or the last entry when @p v is past the end. */
static const char *name_or_last(const char *const *names, size_t count, unsigned int v)
{
	return names[v < count ? v : count - 1];
}

const char *AL_API ib_get_err_str(IN ib_api_status_t status)
{
	return name_or_last(err_names, COUNT(err_names), (unsigned int)status);
}

const char *AL_API ib_get_async_event_str(IN ib_async_event_t event)
{
	return name_or_last(async_event_names, COUNT(async_event_names), (unsigned int)event);
}

const char *AL_API ib_get_wc_status_str(IN ib_wc_status_t wc_status)
{
	return name_or_last(wc_status_names, COUNT(wc_status_names), (unsigned int)wc_status);
}

const char *AL_API ib_get_wc_type_str(IN ib_wc_type_t wc_type)
{
	unsigned int v = (unsigned int)wc_type;

	if (v < COUNT(wc_send_type_names))
		return wc_send_type_names[v];
	if (v >= IB_WC_RECV && v - IB_WC_RECV < COUNT(wc_recv_type_names))
		return wc_recv_type_names[v - IB_WC_RECV];
	return "IB_WC_UNKNOWN";
}

const char *AL_API ib_get_wr_type_str(IN uint8_t wr_type)
{
	return name_or_last(wr_type_names, COUNT(wr_type_names), wr_type);
}

const char *AL_API ib_get_qp_type_str(IN uint8_t qp_type)
{
	return name_or_last(qp_type_names, COUNT(qp_type_names), qp_type);
}
