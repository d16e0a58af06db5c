/*
 * ibal soft provider: the embedded subnet manager of a soft fabric.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file soft_sm.h
 * @brief The subnet manager a process runs for each fabric directory its soft
 * CAs use (see docs/soft-fabric.md). Private to the soft provider.
 *
 * One instance per fabric directory and process, alive while a soft CA of
 * the process has ports there. Its thread competes for the master role with
 * flock(LOCK_EX|LOCK_NB) on `<dir>/sm.lock`: the holder is master; the
 * others are standbys and retry every $IBAL_SOFT_SM_RETRY_MS. The master
 * sweeps with directed-route SMPs sent from its first local port, brings
 * ports to ACTIVE, watches the directory (inotify) and the registry for
 * ports joining and leaving, and feeds the SA (soft_sa.h), whose requests
 * and timers it serves, with every port it knows and the virtual switch
 * they are all cabled to. Internals: soft_sm_int.h.
 *
 * Thread safety: every function may be called from any thread.
 */
#ifndef SOFT_SM_H
#define SOFT_SM_H

#include "soft_hca.h"
#include "soft_sa.h"

/**
 * A CA of this process opened its ports: joins (or makes) the SM instance
 * of their fabric directory and asks it to bring them up. The instance
 * reads the IBAL_SOFT_SM* settings when it is made (the first CA of the
 * process with ports in that directory); they hold until its last CA
 * closes.
 * @param ca the CA (ports open, progress thread running).
 * @param p_wait_ms receives how long the open should wait for ACTIVE ports
 * ($IBAL_SOFT_SM_WAIT_MS), in milliseconds; 0 when the directory's SM is
 * off ($IBAL_SOFT_SM=off) or could not be made for want of a descriptor
 * (logged).
 * @return IB_SUCCESS; IB_INSUFFICIENT_MEMORY (logged) when the instance or
 * its list of ports could not grow: the CA is not part of any instance
 * then, and its open must fail.
 */
ib_api_status_t soft_sm_ca_opened(soft_ca_t *ca, uint32_t *p_wait_ms);

/**
 * A CA is closing: its ports leave the SM instance, which no longer uses
 * them when this returns (an SMP in flight through them is abandoned; the
 * SM moves to another local port if the SM's port was one of them). Call
 * before the CA's progress thread stops.
 * @param ca the CA.
 */
void soft_sm_ca_closing(soft_ca_t *ca);

/**
 * Ends a closing CA's reference to its SM instance (which ends with the
 * last one, releasing the master role). Call after its progress thread
 * stopped and before its ports close.
 * @param ca the CA.
 */
void soft_sm_ca_closed(soft_ca_t *ca);

/**
 * Offers an SMP response to the local SM (progress thread).
 * @param port the port it reached. @param smp the response.
 * @return TRUE if the SM was waiting for it (consumed).
 */
boolean_t soft_sm_smp_resp(soft_port_t *port, const ib_smp_t *smp);

/**
 * Offers a LID-routed Trap SMP to the local SM (progress thread). Trap 144
 * (CapabilityMask changed) reaching the master's port makes the next sweep
 * read the issuer's PortInfo again and update the SA, at once.
 * @param port the port. @param smp the trap.
 * @return TRUE if @p port is the master SM's port (the trap is consumed).
 */
boolean_t soft_sm_trap(soft_port_t *port, const ib_smp_t *smp);

/**
 * Offers an SA-class MAD that reached a port to the master's SA.
 * @param port the port. @param p_mad the MAD. @param len its length.
 * @param p_src where it came from.
 * @return TRUE if @p port is the master SM's port and the SA took it.
 */
boolean_t soft_sm_sa_recv(soft_port_t *port, const ib_mad_t *p_mad, size_t len,
			  const soft_mad_addr_t *p_src);

/**
 * SMInfo of the SM running on a port, if one does.
 * @param port the port. @param p_info receives SMInfo.
 * @return TRUE if @p port is the port of this process's SM instance
 * (master or standby).
 */
boolean_t soft_sm_info(soft_port_t *port, ib_sm_info_t *p_info);

/**
 * Whether this process is the master SM of a CA's fabric directory
 * (for tests and diagnostics).
 * @param ca an open CA.
 * @return TRUE if it is.
 */
boolean_t soft_sm_is_master(soft_ca_t *ca);

/**
 * Waits, bounded, until this process is the master SM of a CA's fabric
 * directory (for tests of the election).
 * @param ca an open CA. @param ms most milliseconds to wait.
 * @return TRUE if it is master.
 */
boolean_t soft_sm_wait_master(soft_ca_t *ca, uint32_t ms);

/**
 * Asks the SM of a CA's fabric directory, if this process is master there,
 * to sweep now and waits until it did (bounded).
 * @param ca an open CA. @param ms most milliseconds to wait.
 * @return TRUE if a sweep ran.
 */
boolean_t soft_sm_sweep_now(soft_ca_t *ca, uint32_t ms);

/**
 * Counts the ports the master SM of a CA's fabric directory knows (for
 * tests).
 * @param ca an open CA.
 * @return the number, or -1 when this process is not master there.
 */
int soft_sm_known_ports(soft_ca_t *ca);

#endif /* SOFT_SM_H */
