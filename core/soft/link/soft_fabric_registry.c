/*
 * ibal soft provider: the fabric registry, a shared file of LID records.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "soft_fabric_int.h"
#include "ibal_log.h"

_Static_assert(sizeof(soft_reg_hdr_t) == SOFT_REG_HDR_SIZE, "registry header size");
_Static_assert(sizeof(soft_reg_rec_t) == 256, "registry record size");

#define MCAST_LO 0xC000u
#define MCAST_HI 0xFFFEu

static size_t reg_map_len(void)
{
	return SOFT_REG_HDR_SIZE + (size_t)SOFT_REG_NRECS * sizeof(soft_reg_rec_t);
}

socklen_t soft_reg_sockaddr(const soft_fabric_t *fab, uint16_t lid, struct sockaddr_un *sa)
{
	static const char hex[] = "0123456789abcdef";
	char *p;
	int i;

	*sa = fab->sa_proto;
	p = sa->sun_path + fab->sa_prefix_len;
	for (i = 0; i < 4; i++)
		p[i] = hex[(lid >> (12 - 4 * i)) & 0xF];
	p[4] = '\0';
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + fab->sa_prefix_len + 5);
}

uint64_t soft_proc_start_time(pid_t pid)
{
	char path[64], buf[1024];
	const char *s;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* "pid (comm) state ppid ...": comm may hold anything, so start after
	 * the last ')'; the next token is field 3, starttime is field 22. */
	s = strrchr(buf, ')');
	if (!s)
		return 0;
	for (field = 2; field < 22; field++) {
		s = strchr(s + 1, ' ');
		if (!s)
			return 0;
	}
	return strtoull(s + 1, NULL, 10);
}

static int flock_retry(int fd, int op)
{
	int rc;

	do
		rc = flock(fd, op);
	while (rc < 0 && errno == EINTR);
	return rc;
}

static void init_hdr(soft_reg_hdr_t *h)
{
	memset(h, 0, sizeof(*h));
	h->version = SOFT_REG_VERSION;
	h->hdr_size = SOFT_REG_HDR_SIZE;
	h->rec_size = (uint32_t)sizeof(soft_reg_rec_t);
	h->n_recs = SOFT_REG_NRECS;
	h->subnet_prefix = IB_DEFAULT_SUBNET_PREFIX;
	h->magic = SOFT_REG_MAGIC;
}

static boolean_t hdr_ok(const soft_reg_hdr_t *h)
{
	return h->magic == SOFT_REG_MAGIC && h->version == SOFT_REG_VERSION &&
	       h->hdr_size == SOFT_REG_HDR_SIZE && h->rec_size == sizeof(soft_reg_rec_t) &&
	       h->n_recs == SOFT_REG_NRECS && h->hwm <= SOFT_FABRIC_LID_UNICAST_MAX;
}

/* With the file locked: sizes a new file, maps it, initializes or checks the header. */
static ib_api_status_t map_locked(soft_fabric_t *fab)
{
	size_t len = reg_map_len();
	struct stat st;
	void *map;

	int err;

	if (fstat(fab->reg_fd, &st) < 0)
		return IB_ERROR;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		IBAL_WARN(IBAL_SUB_FABRIC, "%s/%s refused: not a regular file of this user", fab->dir,
			  SOFT_REG_FILE);
		return IB_INVALID_SETTING;
	}
	if (st.st_size == 0) {
		/* Every page allocated now: a full file system is a status
		 * here, not a SIGBUS at the first touch of the mapping. */
		err = posix_fallocate(fab->reg_fd, 0, (off_t)len);
		if (err) {
			IBAL_ERR(IBAL_SUB_FABRIC, "%s/%s: cannot allocate the registry (%zu bytes): %s",
				 fab->dir, SOFT_REG_FILE, len, strerror(err));
			if (ftruncate(fab->reg_fd, 0) < 0) {
				/* left empty or short: the next opener allocates again */
			}
			return err == ENOSPC || err == EDQUOT || err == EFBIG ? IB_INSUFFICIENT_RESOURCES
									  : IB_ERROR;
		}
	} else if ((size_t)st.st_size != len) {
		IBAL_WARN(IBAL_SUB_FABRIC, "%s/%s is not a registry of this version", fab->dir,
			  SOFT_REG_FILE);
		return IB_INVALID_SETTING;
	}
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fab->reg_fd, 0);
	if (map == MAP_FAILED)
		return IB_ERROR;
	fab->hdr = (soft_reg_hdr_t *)map;
	fab->recs = (soft_reg_rec_t *)(void *)((uint8_t *)map + SOFT_REG_HDR_SIZE);
	fab->map_len = len;
	/* A zero magic: a new file, or its creator died before writing the header. */
	if (fab->hdr->magic == 0)
		init_hdr(fab->hdr);
	if (hdr_ok(fab->hdr))
		return IB_SUCCESS;
	IBAL_WARN(IBAL_SUB_FABRIC, "%s/%s is not a registry of this version", fab->dir, SOFT_REG_FILE);
	return IB_INVALID_SETTING;
}

/* Under the lock: the highest LID to scan, never past the records (whatever the file says). */
static uint32_t reg_hwm(const soft_fabric_t *fab)
{
	uint32_t hwm = fab->hdr->hwm;

	return hwm <= SOFT_FABRIC_LID_UNICAST_MAX ? hwm : SOFT_FABRIC_LID_UNICAST_MAX;
}

/* Under the lock: a record's multicast count, never past its array. */
static unsigned rec_n_mcast(const soft_reg_rec_t *rec)
{
	return rec->n_mcast < SOFT_FABRIC_MAX_MCAST ? rec->n_mcast : SOFT_FABRIC_MAX_MCAST;
}

ib_api_status_t soft_reg_open(soft_fabric_t *fab)
{
	char path[PATH_MAX];
	ib_api_status_t status;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", fab->dir, SOFT_REG_FILE) >= sizeof(path))
		return IB_INVALID_SETTING;
	fab->reg_fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fab->reg_fd < 0) {
		int err = errno;

		IBAL_ERR(IBAL_SUB_FABRIC, "%s: cannot open the registry: %s%s", path, strerror(err),
			 err == ELOOP ? " (a symbolic link: refused)" : "");
		return err == EMFILE || err == ENFILE || err == ENOSPC ? IB_INSUFFICIENT_RESOURCES
			: err == ELOOP ? IB_INVALID_SETTING : IB_ERROR;
	}
	if (flock_retry(fab->reg_fd, LOCK_EX) < 0) {
		status = IB_ERROR;
	} else {
		status = map_locked(fab);
		flock_retry(fab->reg_fd, LOCK_UN);
	}
	if (status != IB_SUCCESS)
		soft_reg_close(fab);
	return status;
}

boolean_t soft_reg_intact(const soft_fabric_t *fab)
{
	char path[PATH_MAX];
	struct stat mine, there;

	if (fab->reg_fd < 0 || fstat(fab->reg_fd, &mine) < 0 ||
	    (size_t)snprintf(path, sizeof(path), "%s/%s", fab->dir, SOFT_REG_FILE) >= sizeof(path))
		return FALSE;
	return stat(path, &there) == 0 && there.st_dev == mine.st_dev && there.st_ino == mine.st_ino;
}

void soft_reg_close(soft_fabric_t *fab)
{
	if (fab->hdr)
		munmap(fab->hdr, fab->map_len);
	fab->hdr = NULL;
	fab->recs = NULL;
	if (fab->reg_fd >= 0)
		close(fab->reg_fd);
	fab->reg_fd = -1;
}

ib_api_status_t soft_reg_lock(soft_fabric_t *fab)
{
	cl_mutex_acquire(&fab->reg_lock);
	if (flock_retry(fab->reg_fd, LOCK_EX) < 0) {
		cl_mutex_release(&fab->reg_lock);
		return IB_ERROR;
	}
	return IB_SUCCESS;
}

void soft_reg_unlock(soft_fabric_t *fab)
{
	flock_retry(fab->reg_fd, LOCK_UN);
	cl_mutex_release(&fab->reg_lock);
}

/* Does a socket answer at lid's address? Refusal and absence mean no. */
static boolean_t sock_answers(const soft_fabric_t *fab, uint16_t lid)
{
	struct sockaddr_un sa;
	socklen_t len = soft_reg_sockaddr(fab, lid, &sa);
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int rc, err;

	if (s < 0)
		return TRUE; /* cannot tell: keep the record */
	rc = connect(s, (const struct sockaddr *)&sa, len);
	err = errno;
	close(s);
	return rc == 0 || (err != ECONNREFUSED && err != ENOENT);
}

boolean_t soft_reg_holder_alive(const soft_fabric_t *fab, uint16_t lid)
{
	const soft_reg_rec_t *rec = &fab->recs[lid];
	pid_t pid = (pid_t)rec->owner_pid;

	if (pid <= 0)
		return FALSE;
	if (pid != fab->pid) {
		if (kill(pid, 0) < 0 && errno == ESRCH)
			return FALSE;
		if (rec->owner_start && soft_proc_start_time(pid) != rec->owner_start)
			return FALSE;
	} else if (rec->owner_start && fab->self_start && rec->owner_start != fab->self_start) {
		return FALSE;
	}
	/* Covers zombies, exec, and a socket closed without deregistering. */
	return sock_answers(fab, lid);
}

void soft_reg_ring_path(const soft_fabric_t *fab, ib_net64_t port_guid, char *out, size_t cap)
{
	int n = snprintf(out, cap, "%s/ring-%016" PRIx64, fab->dir, (uint64_t)cl_ntoh64(port_guid));

	if (n < 0 || (size_t)n >= cap)
		out[0] = '\0'; /* no such file: the port goes without a ring */
}

/* Empties a record; a reserved one keeps what names its port. */
static void clear_rec(soft_reg_rec_t *rec, uint16_t lid)
{
	soft_reg_rec_t keep = *rec;

	memset(rec, 0, sizeof(*rec));
	if (!(keep.flags & SOFT_RECF_RESERVED))
		return;
	rec->flags = SOFT_RECF_RESERVED;
	rec->lid = lid;
	rec->port_num = keep.port_num;
	rec->port_guid = keep.port_guid;
	rec->node_guid = keep.node_guid;
}

/* Is the LID of this free record kept for a port GUID other than port_guid? */
static boolean_t reserved_for_other(const soft_reg_rec_t *rec, ib_net64_t port_guid)
{
	return (rec->flags & SOFT_RECF_RESERVED) && rec->port_guid != port_guid;
}

static void free_rec(soft_fabric_t *fab, uint16_t lid)
{
	struct sockaddr_un sa;
	char path[PATH_MAX];

	soft_reg_sockaddr(fab, lid, &sa);
	unlink(sa.sun_path);
	/* Senders that mapped the holder's ring see its generation change. */
	if (fab->recs[lid].state == SOFT_REC_ACTIVE) {
		soft_reg_ring_path(fab, fab->recs[lid].port_guid, path, sizeof(path));
		soft_ring_retire(path, fab->recs[lid].gen);
	}
	clear_rec(&fab->recs[lid], lid);
}

boolean_t soft_reg_check_live(soft_fabric_t *fab, uint16_t lid)
{
	soft_reg_rec_t *rec = &fab->recs[lid];

	if (rec->state != SOFT_REC_ACTIVE)
		return FALSE;
	if (soft_reg_holder_alive(fab, lid))
		return TRUE;
	free_rec(fab, lid);
	return FALSE;
}

/*
 * The LID for a new port with port_guid (want: the LID it must have, or 0),
 * or 0 with the reason in *p_status (IB_RESOURCE_BUSY: a live port has the
 * GUID, or holds want, or want is reserved for another GUID;
 * IB_INSUFFICIENT_RESOURCES).
 */
static uint16_t choose_lid(soft_fabric_t *fab, ib_net64_t port_guid, uint16_t want,
			   ib_api_status_t *p_status)
{
	uint32_t hwm = reg_hwm(fab), lid;

	*p_status = IB_SUCCESS;
	/* A port coming back gets its former LID, as a subnet manager keeps
	 * guid2lid; a reserved LID is its GUID's former LID. */
	for (lid = 1; lid <= hwm; lid++) {
		soft_reg_rec_t *rec = &fab->recs[lid];

		if (rec->port_guid != port_guid ||
		    (rec->state != SOFT_REC_ACTIVE && !(rec->flags & SOFT_RECF_RESERVED)))
			continue;
		if (soft_reg_check_live(fab, (uint16_t)lid)) {
			*p_status = IB_RESOURCE_BUSY;
			return 0;
		}
		if (!want)
			return (uint16_t)lid;
	}
	if (want) {
		if (soft_reg_check_live(fab, want) || reserved_for_other(&fab->recs[want], port_guid)) {
			*p_status = IB_RESOURCE_BUSY;
			return 0;
		}
		return want;
	}
	for (lid = 1; lid <= SOFT_FABRIC_LID_UNICAST_MAX; lid++)
		if (lid > hwm || (!soft_reg_check_live(fab, (uint16_t)lid) &&
				  !reserved_for_other(&fab->recs[lid], port_guid)))
			return (uint16_t)lid;
	*p_status = IB_INSUFFICIENT_RESOURCES;
	return 0;
}

ib_api_status_t soft_reg_attach(soft_fabric_t *fab, soft_fabric_port_t *port)
{
	struct sockaddr_un sa;
	socklen_t sa_len;
	soft_reg_rec_t *rec;
	ib_api_status_t status;
	uint16_t lid = choose_lid(fab, port->port_guid, port->want_lid, &status);
	uint32_t flags;

	if (!lid)
		return status;
	sa_len = soft_reg_sockaddr(fab, lid, &sa);
	/* Any file there is stale: the LID is free and binds happen under the lock. */
	unlink(sa.sun_path);
	if (bind(port->fd, (const struct sockaddr *)&sa, sa_len) < 0) {
		IBAL_ERR(IBAL_SUB_FABRIC, "%s: cannot bind the port's socket: %s", sa.sun_path,
			 strerror(errno));
		return IB_ERROR;
	}
	/* 0600 whatever the umask (the directory is the user's alone anyway). */
	if (chmod(sa.sun_path, 0600) < 0)
		IBAL_WARN(IBAL_SUB_FABRIC, "%s: chmod 0600: %s", sa.sun_path, strerror(errno));
	/* The GUID is free now (a dead holder's ring was retired with its record). */
	soft_fabric_ring_create(port);
	rec = &fab->recs[lid];
	flags = rec->port_guid == port->port_guid ? rec->flags & SOFT_RECF_RESERVED : 0;
	memset(rec, 0, sizeof(*rec));
	rec->flags = flags;
	rec->lid = lid;
	rec->port_num = port->port_num;
	rec->owner_pid = (int32_t)fab->pid;
	rec->owner_start = fab->self_start;
	rec->port_guid = port->port_guid;
	rec->node_guid = port->node_guid;
	rec->gen = ++fab->hdr->gen;
	rec->state = SOFT_REC_ACTIVE;
	if (lid > fab->hdr->hwm)
		fab->hdr->hwm = lid;
	port->lid = lid;
	port->gen = rec->gen;
	if (port->ring.hdr)
		soft_ring_set_gen(&port->ring, port->gen);
	return IB_SUCCESS;
}

soft_reg_rec_t *soft_reg_own_rec(soft_fabric_t *fab, const soft_fabric_port_t *port)
{
	soft_reg_rec_t *rec = &fab->recs[port->lid];

	if (rec->state == SOFT_REC_ACTIVE && rec->gen == port->gen &&
	    rec->owner_pid == (int32_t)fab->pid)
		return rec;
	return NULL;
}

void soft_reg_detach(soft_fabric_t *fab, soft_fabric_port_t *port)
{
	if (soft_reg_own_rec(fab, port))
		free_rec(fab, port->lid);
}

ib_api_status_t soft_reg_move(soft_fabric_t *fab, soft_fabric_port_t *port, uint16_t new_lid)
{
	struct sockaddr_un from, to;
	soft_reg_rec_t *old = soft_reg_own_rec(fab, port);

	if (!old)
		return IB_ERROR;
	if (new_lid == port->lid)
		return IB_SUCCESS;
	if (soft_reg_check_live(fab, new_lid) ||
	    reserved_for_other(&fab->recs[new_lid], port->port_guid))
		return IB_RESOURCE_BUSY;
	/* A bound Unix socket is reached through its file: renaming the file
	 * moves the port to the new LID's address, socket and queue intact. */
	soft_reg_sockaddr(fab, port->lid, &from);
	soft_reg_sockaddr(fab, new_lid, &to);
	if (rename(from.sun_path, to.sun_path) < 0)
		return IB_ERROR;
	{
		uint32_t flags = fab->recs[new_lid].flags;

		fab->recs[new_lid] = *old;
		/* The reservations stay with their LIDs. */
		fab->recs[new_lid].flags = flags;
	}
	fab->recs[new_lid].lid = new_lid;
	fab->recs[new_lid].gen = ++fab->hdr->gen;
	clear_rec(old, port->lid);
	if (new_lid > fab->hdr->hwm)
		fab->hdr->hwm = new_lid;
	__atomic_store_n(&port->lid, new_lid, __ATOMIC_RELEASE);
	port->gen = fab->recs[new_lid].gen;
	return IB_SUCCESS;
}

void soft_reg_reclaim(soft_fabric_t *fab, uint16_t lid)
{
	struct sockaddr_un sa;

	if (soft_reg_lock(fab) != IB_SUCCESS)
		return;
	if (fab->recs[lid].state == SOFT_REC_ACTIVE) {
		soft_reg_check_live(fab, lid);
	} else {
		/* A free LID's file is left over from a crash during an open. */
		soft_reg_sockaddr(fab, lid, &sa);
		unlink(sa.sun_path);
	}
	soft_reg_unlock(fab);
}

static boolean_t rec_has_mlid(const soft_reg_rec_t *rec, uint16_t mlid)
{
	unsigned i, n = rec_n_mcast(rec);

	for (i = 0; i < n; i++)
		if (rec->mlid[i] == mlid)
			return TRUE;
	return FALSE;
}

size_t soft_reg_mcast_members(soft_fabric_t *fab, uint16_t mlid, uint16_t *p_next, uint16_t *out,
			      size_t cap)
{
	uint32_t lid, hwm;
	size_t n = 0;

	if (soft_reg_lock(fab) != IB_SUCCESS) {
		*p_next = 0;
		return 0;
	}
	hwm = reg_hwm(fab);
	for (lid = *p_next ? *p_next : 1; lid <= hwm && n < cap; lid++) {
		const soft_reg_rec_t *rec = &fab->recs[lid];

		if (rec->state == SOFT_REC_ACTIVE && rec_has_mlid(rec, mlid))
			out[n++] = (uint16_t)lid;
	}
	soft_reg_unlock(fab);
	*p_next = lid <= hwm ? (uint16_t)lid : 0;
	return n;
}

/* ---- Multicast membership ---- */

static ib_api_status_t mcast_change(soft_fabric_port_t *port, uint16_t mlid, boolean_t attach)
{
	soft_fabric_t *fab;
	soft_reg_rec_t *rec;
	ib_api_status_t status;
	unsigned i, n;

	if (!port)
		return IB_INVALID_PARAMETER;
	if (mlid < MCAST_LO || mlid > MCAST_HI)
		return IB_INVALID_LID;
	fab = port->fab;
	status = soft_reg_lock(fab);
	if (status != IB_SUCCESS)
		return status;
	rec = soft_reg_own_rec(fab, port);
	if (!rec) {
		status = IB_INVALID_PORT_STATE;
		goto out;
	}
	n = rec_n_mcast(rec);
	for (i = 0; i < n && rec->mlid[i] != mlid; i++)
		;
	if (attach && i == n) {
		if (n >= SOFT_FABRIC_MAX_MCAST)
			status = IB_INSUFFICIENT_RESOURCES;
		else
			rec->mlid[n++] = mlid;
	} else if (!attach) {
		if (i == n)
			status = IB_NOT_FOUND;
		else
			rec->mlid[i] = rec->mlid[--n];
	}
	rec->n_mcast = (uint8_t)n;
out:
	soft_reg_unlock(fab);
	return status;
}

ib_api_status_t soft_fabric_mcast_attach(soft_fabric_port_t *port, uint16_t mlid)
{
	return mcast_change(port, mlid, TRUE);
}

ib_api_status_t soft_fabric_mcast_detach(soft_fabric_port_t *port, uint16_t mlid)
{
	return mcast_change(port, mlid, FALSE);
}

/* ---- Lookups ---- */

static void fill_info(const soft_reg_rec_t *rec, soft_fabric_port_info_t *info)
{
	info->port_guid = rec->port_guid;
	info->node_guid = rec->node_guid;
	info->lid = rec->lid;
	info->port_num = rec->port_num;
	info->owner_pid = rec->owner_pid;
}

ib_api_status_t soft_fabric_lid_by_guid(soft_fabric_port_t *port, ib_net64_t port_guid,
					uint16_t *p_lid)
{
	soft_fabric_t *fab;
	ib_api_status_t status;
	uint32_t lid, hwm;

	if (!port || !p_lid)
		return IB_INVALID_PARAMETER;
	fab = port->fab;
	status = soft_reg_lock(fab);
	if (status != IB_SUCCESS)
		return status;
	status = IB_NOT_FOUND;
	hwm = reg_hwm(fab);
	for (lid = 1; lid <= hwm; lid++) {
		const soft_reg_rec_t *rec = &fab->recs[lid];

		if (rec->state == SOFT_REC_ACTIVE && rec->port_guid == port_guid) {
			if (soft_reg_check_live(fab, (uint16_t)lid)) {
				*p_lid = (uint16_t)lid;
				status = IB_SUCCESS;
			}
			break; /* GUIDs are unique among records */
		}
	}
	soft_reg_unlock(fab);
	return status;
}

ib_api_status_t soft_fabric_lid_by_gid(soft_fabric_port_t *port, const ib_gid_t *p_gid,
				       uint16_t *p_lid)
{
	ib_net64_t prefix;

	if (!port || !p_gid || !p_lid)
		return IB_INVALID_PARAMETER;
	prefix = p_gid->unicast.prefix;
	/* The header's prefix is written once, at creation. */
	if (prefix != port->fab->hdr->subnet_prefix && prefix != IB_DEFAULT_SUBNET_PREFIX)
		return IB_NOT_FOUND;
	return soft_fabric_lid_by_guid(port, p_gid->unicast.interface_id, p_lid);
}

ib_api_status_t soft_fabric_port_by_lid(soft_fabric_port_t *port, uint16_t lid,
					soft_fabric_port_info_t *p_info)
{
	soft_fabric_t *fab;
	ib_api_status_t status;

	if (!port || !p_info)
		return IB_INVALID_PARAMETER;
	if (lid == 0 || lid > SOFT_FABRIC_LID_UNICAST_MAX)
		return IB_INVALID_LID;
	fab = port->fab;
	status = soft_reg_lock(fab);
	if (status != IB_SUCCESS)
		return status;
	if (soft_reg_check_live(fab, lid))
		fill_info(&fab->recs[lid], p_info);
	else
		status = IB_NOT_FOUND;
	soft_reg_unlock(fab);
	return status;
}

ib_api_status_t soft_fabric_port_list(soft_fabric_port_t *port, soft_fabric_port_info_t *p_info,
				      size_t cap, size_t *p_count)
{
	soft_fabric_t *fab;
	ib_api_status_t status;
	uint32_t lid, hwm;
	size_t n = 0;

	if (!port || !p_count || (!p_info && cap))
		return IB_INVALID_PARAMETER;
	fab = port->fab;
	status = soft_reg_lock(fab);
	if (status != IB_SUCCESS)
		return status;
	hwm = reg_hwm(fab);
	for (lid = 1; lid <= hwm; lid++) {
		if (!soft_reg_check_live(fab, (uint16_t)lid))
			continue;
		if (n < cap)
			fill_info(&fab->recs[lid], &p_info[n]);
		n++;
	}
	soft_reg_unlock(fab);
	*p_count = n;
	return n > cap ? IB_INSUFFICIENT_MEMORY : IB_SUCCESS;
}

/* ---- Reservations (the fabric service's topology) ---- */

ib_api_status_t soft_fabric_reserve(const soft_fabric_port_info_t *p_ports, size_t n,
				    size_t *p_bad)
{
	soft_fabric_t *fab;
	ib_api_status_t status;
	size_t i;

	if (!p_ports)
		return IB_INVALID_PARAMETER;
	for (i = 0; i < n; i++)
		if (!p_ports[i].lid || p_ports[i].lid > SOFT_FABRIC_LID_UNICAST_MAX ||
		    !p_ports[i].port_guid)
			return IB_INVALID_PARAMETER;
	status = soft_fabric_get(&fab);
	if (status != IB_SUCCESS)
		return status;
	status = soft_reg_lock(fab);
	if (status != IB_SUCCESS) {
		soft_fabric_put(fab);
		return status;
	}
	for (i = 0; i < n && status == IB_SUCCESS; i++) {
		const soft_reg_rec_t *rec = &fab->recs[p_ports[i].lid];

		if (rec->port_guid != p_ports[i].port_guid &&
		    soft_reg_check_live(fab, p_ports[i].lid)) {
			status = IB_RESOURCE_BUSY;
			if (p_bad)
				*p_bad = i;
		}
	}
	for (i = 0; i < n && status == IB_SUCCESS; i++) {
		soft_reg_rec_t *rec = &fab->recs[p_ports[i].lid];

		if (rec->state != SOFT_REC_ACTIVE) {
			memset(rec, 0, sizeof(*rec));
			rec->lid = p_ports[i].lid;
			rec->port_num = p_ports[i].port_num;
			rec->port_guid = p_ports[i].port_guid;
			rec->node_guid = p_ports[i].node_guid;
		}
		rec->flags |= SOFT_RECF_RESERVED;
		/* Scans that look for a free LID must see it. */
		if (rec->lid > fab->hdr->hwm)
			fab->hdr->hwm = rec->lid;
	}
	soft_reg_unlock(fab);
	soft_fabric_put(fab);
	return status;
}

void soft_fabric_unreserve(const soft_fabric_port_info_t *p_ports, size_t n)
{
	soft_fabric_t *fab;
	size_t i;

	if (!p_ports || soft_fabric_get(&fab) != IB_SUCCESS)
		return;
	if (soft_reg_lock(fab) == IB_SUCCESS) {
		for (i = 0; i < n; i++) {
			soft_reg_rec_t *rec;

			if (!p_ports[i].lid || p_ports[i].lid > SOFT_FABRIC_LID_UNICAST_MAX)
				continue;
			rec = &fab->recs[p_ports[i].lid];
			if (!(rec->flags & SOFT_RECF_RESERVED) || rec->port_guid != p_ports[i].port_guid)
				continue;
			if (rec->state == SOFT_REC_ACTIVE)
				rec->flags &= ~SOFT_RECF_RESERVED;
			else
				memset(rec, 0, sizeof(*rec));
		}
		soft_reg_unlock(fab);
	}
	soft_fabric_put(fab);
}
