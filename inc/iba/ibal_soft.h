/*
 * ibal: control commands of the soft provider, given through ib_ci_call().
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file ibal_soft.h
 * @brief Commands of the soft provider (the software HCA of ibal) for
 * ib_ci_call(): they do to a soft CA what a cable, a hot-plug slot or a
 * subnet manager does to a real one, so that code handling port and
 * adapter events (PnP, async events) can be tested with no hardware.
 *
 * Use: fill an ib_ci_op_t with one of the IBAL_SOFT_CI_* commands, p_buf
 * pointing to the command's structure and buf_size its size, and call
 * ib_ci_call(h_ca, NULL, 0, &op) on an open soft CA. Every command returns
 * IB_SUCCESS and sets op.status to 0 when done; ib_ci_call() returns
 * IB_INVALID_PARAMETER when p_buf is NULL or buf_size too small (or a
 * field is out of range), IB_INVALID_PORT for a port the CA does not have,
 * IB_INVALID_SETTING for a command the soft provider does not know, and
 * IB_UNSUPPORTED on a CA of another provider. The events follow the
 * changes asynchronously: IB_AE_PORT_ACTIVE, IB_AE_PORT_DOWN and
 * IB_AE_LID_CHANGE to the CA's event callback (vendor_specific = the port
 * number), and the PnP events of ib_reg_pnp().
 *
 * Thread safety: the commands may be called from any thread.
 */
#ifndef IBAL_SOFT_H
#define IBAL_SOFT_H

#include <iba/ib_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Sets a port's link state (ibal_soft_port_ctl_t: port_num, link_state).
 * IB_LINK_DOWN, IB_LINK_INIT, IB_LINK_ARMED or IB_LINK_ACTIVE; data packets
 * leave and enter the port only while it is IB_LINK_ACTIVE, so connections
 * over a port taken down see the transport errors the IBA specifies.
 */
#define IBAL_SOFT_CI_PORT_STATE 0x50F70001u
/**
 * Gives a port another LID (ibal_soft_port_ctl_t: port_num, lid), as a
 * subnet manager reassigning it would; IB_RESOURCE_BUSY when a live port
 * of the fabric has that LID.
 */
#define IBAL_SOFT_CI_PORT_LID 0x50F70002u
/**
 * Unplugs the CA from the process or plugs it back (ibal_soft_ca_ctl_t).
 * An unplugged CA is no longer enumerated (ib_get_ca_guids()) and cannot
 * be opened again; handles already open stay valid, with every port down,
 * until closed. Plugging it back brings its ports up again.
 */
#define IBAL_SOFT_CI_CA_PRESENT 0x50F70003u

/**
 * Installs a filter that sees every packet a soft port of this process
 * sends, before the loss rate of IBAL_SOFT_DROP_PCT applies, and may drop it
 * (ibal_soft_drop_ctl_t; a NULL filter removes it): for tests that lose
 * chosen packets (an RMPP segment, one CM message). One filter serves every
 * soft CA of the process, whichever CA the command is given on. When the
 * call returns, the previous filter is not running and will not run again.
 */
#define IBAL_SOFT_CI_DROP_FILTER 0x50F70004u

/**
 * A packet filter (IBAL_SOFT_CI_DROP_FILTER): called from the sending thread,
 * never concurrently with itself; it must not call ib_* functions.
 * @param context the value given with the filter.
 * @param pkt the packet as the link carries it, LRH first.
 * @param len its length in bytes.
 * @return TRUE to drop the packet, FALSE to let it go on.
 */
typedef boolean_t (*ibal_soft_drop_fn_t)(void *context, const void *pkt, size_t len);

/** Argument of IBAL_SOFT_CI_DROP_FILTER. */
typedef struct _ibal_soft_drop_ctl {
	ibal_soft_drop_fn_t pfn_filter; /**< The filter, or NULL to remove the one installed. */
	void *context;                  /**< Given to every call of the filter. */
} ibal_soft_drop_ctl_t;

/** Argument of IBAL_SOFT_CI_PORT_STATE and IBAL_SOFT_CI_PORT_LID. */
typedef struct _ibal_soft_port_ctl {
	uint8_t port_num;     /**< The port, 1-based. */
	uint8_t link_state;   /**< IBAL_SOFT_CI_PORT_STATE: the new IB_LINK_* state. */
	ib_net16_t lid;       /**< IBAL_SOFT_CI_PORT_LID: the new LID, network order, 1..0xBFFF. */
} ibal_soft_port_ctl_t;

/** Argument of IBAL_SOFT_CI_CA_PRESENT. */
typedef struct _ibal_soft_ca_ctl {
	boolean_t present;    /**< FALSE to unplug the CA, TRUE to plug it back. */
} ibal_soft_ca_ctl_t;

#ifdef __cplusplus
}
#endif

#endif /* IBAL_SOFT_H */
