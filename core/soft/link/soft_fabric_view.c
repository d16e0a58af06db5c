/*
 * ibal soft provider: a running fabric as an outside observer sees it
 * (soft_fabric_view.h), and what the SM publishes for it.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A view is a fabric object of its own (soft_fabric_create) that no port
 * uses: it maps the registry as the fabric's processes do, locks it as they
 * do for the moment of a listing, and reclaims nothing. Counters come from
 * each port's ring header (mapped read-only, one page, only when the ring
 * carries the generation of the port's registry record). Whether an SM or
 * the fabric service runs is read from /proc/locks (who holds `sm.lock`,
 * `service.lock`), never by taking those locks: an observer must not make an
 * election or a service start fail.
 */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <complib/cl_memory.h>
#include "soft_fabric_int.h"
#include "soft_fabric_view.h"

struct soft_fabric_view {
	soft_fabric_t *fab;
};

ib_api_status_t soft_fabric_view_open(const char *dir, soft_fabric_view_t **pp_view)
{
	char path[PATH_MAX], reg[PATH_MAX + 16];
	soft_fabric_view_t *v;
	ib_api_status_t status;
	struct stat st;

	if (!pp_view)
		return IB_INVALID_PARAMETER;
	status = soft_fabric_resolve_dir(dir, FALSE, path);
	if (status != IB_SUCCESS)
		return status;
	snprintf(reg, sizeof(reg), "%s/%s", path, SOFT_REG_FILE);
	if (lstat(reg, &st) < 0)
		return errno == ENOENT ? IB_NOT_FOUND : IB_ERROR;
	if (!S_ISREG(st.st_mode) || st.st_size == 0)
		return S_ISREG(st.st_mode) ? IB_NOT_FOUND : IB_INVALID_SETTING;
	v = (soft_fabric_view_t *)cl_zalloc(sizeof(*v));
	if (!v)
		return IB_INSUFFICIENT_MEMORY;
	status = soft_fabric_create(path, &v->fab);
	if (status != IB_SUCCESS) {
		cl_free(v);
		return status;
	}
	*pp_view = v;
	return IB_SUCCESS;
}

const char *soft_fabric_view_dir(const soft_fabric_view_t *v)
{
	return v->fab->dir;
}

void soft_fabric_view_close(soft_fabric_view_t *v)
{
	if (!v)
		return;
	soft_fabric_free(v->fab);
	cl_free(v);
}

/* The counters and fill of the ring of the port of rec, if it has one of that assignment. */
static void read_ring(const soft_fabric_t *fab, const soft_reg_rec_t *rec, soft_view_port_t *p)
{
	char path[PATH_MAX];
	const soft_ring_hdr_t *h;
	struct stat st;
	uint64_t tail, head;
	void *map;
	size_t i;
	int fd;

	soft_reg_ring_path(fab, rec->port_guid, path, sizeof(path));
	fd = path[0] ? open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)SOFT_RING_HDR_BYTES) {
		close(fd);
		return;
	}
	map = mmap(NULL, SOFT_RING_HDR_BYTES, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return;
	h = (const soft_ring_hdr_t *)map;
	if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) == SOFT_RING_MAGIC &&
	    h->version == SOFT_RING_VERSION && __atomic_load_n(&h->gen, __ATOMIC_RELAXED) == rec->gen) {
		uint64_t *dst = (uint64_t *)(void *)&p->stats;

		for (i = 0; i < sizeof(p->stats) / sizeof(uint64_t); i++)
			dst[i] = __atomic_load_n(&h->owner_stats[i], __ATOMIC_RELAXED);
		tail = __atomic_load_n(&h->tail, __ATOMIC_RELAXED);
		head = __atomic_load_n(&h->head, __ATOMIC_RELAXED);
		p->ring_used = tail >= head && tail - head <= SOFT_RING_BYTES ? tail - head : 0;
		p->flags |= SOFT_VIEW_RING;
	}
	munmap(map, SOFT_RING_HDR_BYTES);
}

ib_api_status_t soft_fabric_view_ports(soft_fabric_view_t *v, soft_view_port_t *out, size_t cap,
				       size_t *p_n)
{
	soft_fabric_t *fab;
	soft_reg_rec_t rec;
	soft_view_port_t p;
	uint32_t lid, hwm;
	size_t n = 0;

	if (!v || !p_n || (!out && cap))
		return IB_INVALID_PARAMETER;
	fab = v->fab;
	if (soft_reg_lock(fab) != IB_SUCCESS)
		return IB_ERROR;
	hwm = fab->hdr->hwm;
	if (hwm > SOFT_FABRIC_LID_UNICAST_MAX)
		hwm = SOFT_FABRIC_LID_UNICAST_MAX;
	for (lid = 1; lid <= hwm; lid++) {
		rec = fab->recs[lid];
		if (rec.state != SOFT_REC_ACTIVE && !(rec.flags & SOFT_RECF_RESERVED))
			continue;
		if (n++ >= cap)
			continue;
		memset(&p, 0, sizeof(p));
		p.info.lid = (uint16_t)lid;
		p.info.port_guid = rec.port_guid;
		p.info.node_guid = rec.node_guid;
		p.info.port_num = rec.port_num;
		if (rec.flags & SOFT_RECF_RESERVED)
			p.flags |= SOFT_VIEW_RESERVED;
		if (rec.state == SOFT_REC_ACTIVE) {
			p.flags |= SOFT_VIEW_ACTIVE;
			p.info.owner_pid = rec.owner_pid;
			p.n_mcast = rec.n_mcast <= SOFT_FABRIC_MAX_MCAST ? rec.n_mcast
									: SOFT_FABRIC_MAX_MCAST;
			if (soft_reg_holder_alive(fab, (uint16_t)lid))
				p.flags |= SOFT_VIEW_LIVE;
			read_ring(fab, &rec, &p);
		}
		out[n - 1] = p;
	}
	soft_reg_unlock(fab);
	*p_n = n;
	return n > cap ? IB_INSUFFICIENT_MEMORY : IB_SUCCESS;
}

/* The PID holding a lock on the file dir/name according to /proc/locks; 0 if none. */
static int32_t lock_holder(const soft_fabric_t *fab, const char *name)
{
	char path[PATH_MAX + 32], line[256], want[64];
	struct stat st;
	FILE *f;
	long pid;
	int32_t holder = 0;

	snprintf(path, sizeof(path), "%s/%s", fab->dir, name);
	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	snprintf(want, sizeof(want), "%02x:%02x:%lu", major(st.st_dev), minor(st.st_dev),
		 (unsigned long)st.st_ino);
	f = fopen("/proc/locks", "re");
	if (!f)
		return 0;
	/* "1: FLOCK  ADVISORY  WRITE 4242 00:2b:1234 0 EOF"; blocked waiters read "-> ...". */
	while (!holder && fgets(line, sizeof(line), f)) {
		char type[16], id[64];

		if (strstr(line, "->") ||
		    sscanf(line, "%*s %15s %*s %*s %ld %63s", type, &pid, id) != 3)
			continue;
		if (!strcmp(id, want) && pid > 0)
			holder = (int32_t)pid;
	}
	fclose(f);
	return holder;
}

void soft_fabric_view_sm(soft_fabric_view_t *v, soft_view_sm_t *p_sm)
{
	const soft_reg_hdr_t *h = v->fab->hdr;

	memset(p_sm, 0, sizeof(*p_sm));
	p_sm->running = lock_holder(v->fab, SOFT_FABRIC_SM_LOCK) != 0;
	p_sm->pid = __atomic_load_n(&h->sm_pid, __ATOMIC_RELAXED);
	p_sm->pid_alive = p_sm->pid > 0 && (kill(p_sm->pid, 0) == 0 || errno == EPERM);
	p_sm->lid = __atomic_load_n(&h->sm_lid, __ATOMIC_RELAXED);
	p_sm->guid = __atomic_load_n(&h->sm_guid, __ATOMIC_RELAXED);
	p_sm->priority = __atomic_load_n(&h->sm_priority, __ATOMIC_RELAXED) & 0xF;
	p_sm->sweeps = __atomic_load_n(&h->sm_sweeps, __ATOMIC_RELAXED);
	p_sm->since = __atomic_load_n(&h->sm_since, __ATOMIC_RELAXED);
}

boolean_t soft_fabric_view_service(soft_fabric_view_t *v, char *topo, size_t cap)
{
	if (topo && cap)
		snprintf(topo, cap, "%s/%s", v->fab->dir, SOFT_FABRIC_TOPOLOGY);
	return lock_holder(v->fab, SOFT_FABRIC_SERVICE_LOCK) != 0;
}

void soft_fabric_view_capture(soft_fabric_view_t *v, soft_view_capture_t *p_cap)
{
	const soft_reg_hdr_t *h = v->fab->hdr;

	memset(p_cap, 0, sizeof(*p_cap));
	p_cap->gen = __atomic_load_n(&h->capture_gen, __ATOMIC_ACQUIRE);
	p_cap->on = __atomic_load_n(&h->capture_on, __ATOMIC_RELAXED) != 0;
	p_cap->linktype = __atomic_load_n(&h->capture_linktype, __ATOMIC_RELAXED);
	memcpy(p_cap->path, h->capture_path,
	       sizeof(p_cap->path) < SOFT_REG_CAPTURE_PATH ? sizeof(p_cap->path) : SOFT_REG_CAPTURE_PATH);
	p_cap->path[sizeof(p_cap->path) - 1] = '\0';
}

ib_api_status_t soft_fabric_view_capture_set(soft_fabric_view_t *v, const char *path,
					     uint32_t linktype)
{
	soft_reg_hdr_t *h;
	size_t n = path ? strlen(path) : 0;

	if (!v || (path && !n) ||
	    (linktype != SOFT_PCAP_LINKTYPE_ERF && linktype != SOFT_PCAP_LINKTYPE_INFINIBAND))
		return IB_INVALID_PARAMETER;
	if (n >= SOFT_REG_CAPTURE_PATH)
		return IB_OVERFLOW;
	if (soft_reg_lock(v->fab) != IB_SUCCESS)
		return IB_ERROR;
	h = v->fab->hdr;
	memset(h->capture_path, 0, sizeof(h->capture_path));
	if (path)
		memcpy(h->capture_path, path, n);
	__atomic_store_n(&h->capture_linktype, linktype, __ATOMIC_RELAXED);
	__atomic_store_n(&h->capture_on, path ? 1u : 0u, __ATOMIC_RELAXED);
	__atomic_store_n(&h->capture_gen, h->capture_gen + 1, __ATOMIC_RELEASE);
	soft_reg_unlock(v->fab);
	return IB_SUCCESS;
}

void soft_fabric_sm_publish(soft_fabric_port_t *port, uint8_t priority, uint64_t sweeps,
			    boolean_t became_master)
{
	soft_reg_hdr_t *h;

	if (!port || !port->fab || !port->fab->hdr)
		return;
	h = port->fab->hdr;
	__atomic_store_n(&h->sm_pid, (int32_t)getpid(), __ATOMIC_RELAXED);
	__atomic_store_n(&h->sm_lid, soft_fabric_port_lid(port), __ATOMIC_RELAXED);
	__atomic_store_n(&h->sm_guid, port->port_guid, __ATOMIC_RELAXED);
	__atomic_store_n(&h->sm_priority, priority, __ATOMIC_RELAXED);
	__atomic_store_n(&h->sm_sweeps, sweeps, __ATOMIC_RELAXED);
	if (became_master)
		__atomic_store_n(&h->sm_since, (uint64_t)time(NULL), __ATOMIC_RELAXED);
}
