/*
 * ibal soft provider: packet capture of a running fabric, switched on and off
 * through its registry.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Besides $IBAL_SOFT_PCAP (read once, kept for the fabric object's life), a
 * capture can be started and stopped for every process of a running fabric
 * (ibal_soft_inspect capture): the registry header carries a generation, an
 * on flag, a link type and a path template. Every send compares the
 * generation with the process's copy (one relaxed load while nothing
 * changes); the first sender after a change takes live_lock for writing and
 * opens or closes the process's writer. Senders that find a writer use it
 * under live_lock held for reading, so that it is never closed under them.
 * What the registry holds is shared memory: the path is copied out bounded
 * and terminated, the link type must be one of the two.
 */
#include <string.h>
#include "soft_fabric_int.h"
#include "ibal_log.h"

/* Follows the registry's capture request (live_lock held for writing). */
static void follow(soft_fabric_t *fab, uint64_t gen)
{
	const soft_reg_hdr_t *h = fab->hdr;
	char path[SOFT_REG_CAPTURE_PATH];
	uint32_t on, linktype;
	soft_pcap_t *pcap = NULL;
	ib_api_status_t status;

	if (__atomic_load_n(&fab->live_gen, __ATOMIC_RELAXED) == gen)
		return; /* another thread followed it first */
	on = __atomic_load_n(&h->capture_on, __ATOMIC_RELAXED);
	linktype = __atomic_load_n(&h->capture_linktype, __ATOMIC_RELAXED);
	memcpy(path, h->capture_path, sizeof(path));
	path[sizeof(path) - 1] = '\0';
	if (on && path[0]) {
		if (linktype != SOFT_PCAP_LINKTYPE_INFINIBAND)
			linktype = SOFT_PCAP_LINKTYPE_ERF;
		status = soft_pcap_open(path, linktype, &pcap);
		if (status != IB_SUCCESS) {
			pcap = NULL;
			IBAL_WARN(IBAL_SUB_FABRIC, "capture asked for by the fabric's registry: %s %s",
				  path, status == IB_INVALID_SETTING ? "is not a capture of this kind"
								     : "cannot be opened");
		} else {
			IBAL_INFO(IBAL_SUB_FABRIC, "capture started: %s", soft_pcap_path(pcap));
		}
	}
	if (fab->live_pcap)
		IBAL_INFO(IBAL_SUB_FABRIC, "capture stopped: %s", soft_pcap_path(fab->live_pcap));
	soft_pcap_close(fab->live_pcap);
	__atomic_store_n(&fab->live_pcap, pcap, __ATOMIC_RELEASE);
	__atomic_store_n(&fab->live_gen, gen, __ATOMIC_RELAXED);
}

soft_pcap_t *soft_capture_get(soft_fabric_t *fab)
{
	uint64_t gen;

	if (fab->pcap)
		return fab->pcap; /* $IBAL_SOFT_PCAP's: the registry's is not looked at */
	gen = __atomic_load_n(&fab->hdr->capture_gen, __ATOMIC_ACQUIRE);
	if (gen != __atomic_load_n(&fab->live_gen, __ATOMIC_RELAXED)) {
		pthread_rwlock_wrlock(&fab->live_lock);
		follow(fab, gen);
		pthread_rwlock_unlock(&fab->live_lock);
	}
	if (!__atomic_load_n(&fab->live_pcap, __ATOMIC_ACQUIRE))
		return NULL;
	pthread_rwlock_rdlock(&fab->live_lock);
	if (fab->live_pcap)
		return fab->live_pcap;
	pthread_rwlock_unlock(&fab->live_lock);
	return NULL;
}

void soft_capture_put(soft_fabric_t *fab, soft_pcap_t *pcap)
{
	if (pcap && pcap != fab->pcap)
		pthread_rwlock_unlock(&fab->live_lock);
}

boolean_t soft_capture_any(const soft_fabric_t *fab)
{
	return fab->pcap || __atomic_load_n(&fab->live_pcap, __ATOMIC_ACQUIRE) ||
	       (fab->hdr && __atomic_load_n(&fab->hdr->capture_on, __ATOMIC_RELAXED));
}

void soft_capture_free(soft_fabric_t *fab)
{
	soft_pcap_close(fab->live_pcap);
	fab->live_pcap = NULL;
}
