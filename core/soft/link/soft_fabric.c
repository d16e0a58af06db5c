/*
 * ibal soft provider: fabric directories, their settings, and opening and closing ports.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <complib/cl_memory.h>
#include "soft_fabric_int.h"
#include "ibal_env.h"
#include "ibal_errno.h"
#include "ibal_log.h"

#define DEFAULT_SEED 0x1BA15EEDull
#define MAX_ENV_US 60000000u /* 60 s */
#define SOCK_BUF_BYTES (4 << 20)
#define SOCK_NAME_PREFIX "/lid-"

/* The fabric directories this process has ports in. */
static pthread_mutex_t fab_list_lock = PTHREAD_MUTEX_INITIALIZER;
static soft_fabric_t *fab_list;

/* ---- Settings ---- */

static void read_cfg(soft_fab_cfg_t *cfg)
{
	cfg->drop_pct = __cl_env_double(SOFT_FABRIC_ENV_DROP_PCT, 0.0, 100.0, 0.0);
	cfg->seed = __cl_env_uint(SOFT_FABRIC_ENV_SEED, 0, UINT64_MAX, DEFAULT_SEED);
	cfg->delay_us = (uint32_t)__cl_env_uint(SOFT_FABRIC_ENV_DELAY_US, 0, MAX_ENV_US, 0);
}

static void open_capture(soft_fabric_t *fab)
{
	const char *path = getenv(SOFT_FABRIC_ENV_PCAP);
	const char *lt = getenv(SOFT_FABRIC_ENV_PCAP_LINKTYPE);
	uint32_t linktype = SOFT_PCAP_LINKTYPE_ERF;
	ib_api_status_t status;

	if (!path || !*path)
		return;
	if (lt && (!strcmp(lt, "247") || !strcmp(lt, "infiniband")))
		linktype = SOFT_PCAP_LINKTYPE_INFINIBAND;
	else if (lt && *lt && strcmp(lt, "erf") && strcmp(lt, "197"))
		IBAL_WARN(IBAL_SUB_FABRIC, "%s=%s ignored (want erf or 247)", SOFT_FABRIC_ENV_PCAP_LINKTYPE, lt);
	status = soft_pcap_open(path, linktype, &fab->pcap);
	if (status != IB_SUCCESS) {
		fab->pcap = NULL;
		IBAL_WARN(IBAL_SUB_FABRIC, "no capture: %s=%s %s", SOFT_FABRIC_ENV_PCAP, path,
				 status == IB_INVALID_SETTING ? "is not a capture of this kind" :
								"cannot be opened");
	}
}

/* ---- The fabric directory ---- */

/* mkdir -p with mode 0700 for the directories it creates. */
static void make_dirs(const char *path)
{
	char buf[PATH_MAX];
	size_t i, n = strlen(path);

	if (n >= sizeof(buf))
		return;
	memcpy(buf, path, n + 1);
	for (i = 1; i < n; i++) {
		if (buf[i] != '/')
			continue;
		buf[i] = '\0';
		mkdir(buf, 0700);
		buf[i] = '/';
	}
	mkdir(buf, 0700);
}

/*
 * The trust boundary (docs/soft-fabric.md): a fabric directory holds the
 * registry, rings and sockets every process of the fabric maps and reads,
 * so only its user may own or write it. One owned by another user, or
 * writable by the group or others, is refused with a message naming it.
 */
static boolean_t dir_trusted(const char *path, const struct stat *st)
{
	if (st->st_uid != geteuid()) {
		IBAL_WARN(IBAL_SUB_FABRIC, "fabric directory %s refused: owned by uid %lu, not this "
			  "user (%lu)", path, (unsigned long)st->st_uid, (unsigned long)geteuid());
		return FALSE;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		IBAL_WARN(IBAL_SUB_FABRIC, "fabric directory %s refused: writable by others (mode "
			  "%04o); chmod go-w it", path, (unsigned)(st->st_mode & 07777));
		return FALSE;
	}
	return TRUE;
}

ib_api_status_t soft_fabric_resolve_dir(const char *path, boolean_t create, char *out)
{
	const char *env = path && *path ? path : getenv(SOFT_FABRIC_ENV_DIR);
	char base[64], dflt[80];
	struct stat st;

	if (env && *env) {
		if (create)
			make_dirs(env);
	} else {
		snprintf(base, sizeof(base), "/tmp/ibal-soft-%lu", (unsigned long)getuid());
		if (create)
			mkdir(base, 0700);
		else if (lstat(base, &st) < 0 && errno == ENOENT)
			return IB_NOT_FOUND;
		/* Shared /tmp: refuse a directory (or a link) someone else planted. */
		if (lstat(base, &st) < 0 || !S_ISDIR(st.st_mode) || !dir_trusted(base, &st))
			return IB_INVALID_SETTING;
		snprintf(dflt, sizeof(dflt), "%s/default", base);
		if (create)
			mkdir(dflt, 0700);
		env = dflt;
	}
	if (!create && stat(env, &st) < 0 && errno == ENOENT)
		return IB_NOT_FOUND;
	if (!realpath(env, out) || stat(out, &st) < 0 || !S_ISDIR(st.st_mode)) {
		IBAL_WARN(IBAL_SUB_FABRIC, "fabric directory %s cannot be used", env);
		return IB_INVALID_SETTING;
	}
	return dir_trusted(out, &st) ? IB_SUCCESS : IB_INVALID_SETTING;
}

void soft_fabric_free(soft_fabric_t *fab)
{
	soft_delay_shutdown(fab);
	soft_link_free_all(fab);
	pthread_mutex_destroy(&fab->peer_lock);
	soft_capture_free(fab);
	pthread_rwlock_destroy(&fab->live_lock);
	soft_pcap_close(fab->pcap);
	soft_reg_close(fab);
	cl_event_destroy(&fab->delay_ev);
	cl_mutex_destroy(&fab->send_lock);
	cl_mutex_destroy(&fab->q_lock);
	cl_mutex_destroy(&fab->reg_lock);
	cl_free(fab);
}

ib_api_status_t soft_fabric_create(const char *dir, soft_fabric_t **pp_fab)
{
	soft_fabric_t *fab = (soft_fabric_t *)cl_zalloc(sizeof(*fab));
	ib_api_status_t status;
	size_t n = strlen(dir);

	if (!fab)
		return IB_INSUFFICIENT_MEMORY;
	fab->reg_fd = -1;
	pthread_mutex_init(&fab->peer_lock, NULL);
	pthread_rwlock_init(&fab->live_lock, NULL);
	cl_mutex_construct(&fab->reg_lock);
	cl_mutex_construct(&fab->q_lock);
	cl_mutex_construct(&fab->send_lock);
	cl_event_construct(&fab->delay_ev);
	cl_thread_construct(&fab->delay_thread);
	cl_qlist_init(&fab->delay_q);
	if (cl_mutex_init(&fab->reg_lock) != CL_SUCCESS || cl_mutex_init(&fab->q_lock) != CL_SUCCESS ||
	    cl_mutex_init(&fab->send_lock) != CL_SUCCESS ||
	    cl_event_init(&fab->delay_ev, FALSE) != CL_SUCCESS) {
		soft_fabric_free(fab);
		return IB_ERROR;
	}
	fab->pid = getpid();
	fab->self_start = soft_proc_start_time(fab->pid);
	memcpy(fab->dir, dir, n + 1);
	/* "<dir>/lid-XXXX" must fit a socket address. */
	if (n + sizeof(SOCK_NAME_PREFIX) - 1 + 4 + 1 > sizeof(fab->sa_proto.sun_path)) {
		IBAL_WARN(IBAL_SUB_FABRIC, "fabric directory %s: path too long for a socket", dir);
		soft_fabric_free(fab);
		return IB_INVALID_SETTING;
	}
	fab->sa_proto.sun_family = AF_UNIX;
	memcpy(fab->sa_proto.sun_path, dir, n);
	memcpy(fab->sa_proto.sun_path + n, SOCK_NAME_PREFIX, sizeof(SOCK_NAME_PREFIX));
	fab->sa_prefix_len = n + sizeof(SOCK_NAME_PREFIX) - 1;
	status = soft_reg_open(fab);
	if (status != IB_SUCCESS) {
		soft_fabric_free(fab);
		return status;
	}
	read_cfg(&fab->cfg);
	open_capture(fab);
	*pp_fab = fab;
	return IB_SUCCESS;
}

ib_api_status_t soft_fabric_get(soft_fabric_t **pp_fab)
{
	char dir[PATH_MAX];
	ib_api_status_t status = soft_fabric_resolve_dir(NULL, TRUE, dir);
	pid_t self = getpid();
	soft_fabric_t *fab;

	if (status != IB_SUCCESS)
		return status;
	pthread_mutex_lock(&fab_list_lock);
	/* Objects inherited across fork() belong to the parent: never reused. */
	for (fab = fab_list; fab; fab = fab->next)
		if (fab->pid == self && !strcmp(fab->dir, dir))
			break;
	if (!fab) {
		status = soft_fabric_create(dir, &fab);
		if (status == IB_SUCCESS) {
			fab->next = fab_list;
			fab_list = fab;
		}
	}
	if (status == IB_SUCCESS) {
		fab->refs++;
		*pp_fab = fab;
	}
	pthread_mutex_unlock(&fab_list_lock);
	return status;
}

void soft_fabric_put(soft_fabric_t *fab)
{
	soft_fabric_t **pp;

	pthread_mutex_lock(&fab_list_lock);
	if (--fab->refs) {
		pthread_mutex_unlock(&fab_list_lock);
		return;
	}
	for (pp = &fab_list; *pp != fab; pp = &(*pp)->next)
		;
	*pp = fab->next;
	pthread_mutex_unlock(&fab_list_lock);
	soft_fabric_free(fab);
}

ib_api_status_t soft_fabric_dir_file(const char *name, char *out, size_t cap)
{
	char dir[PATH_MAX];
	ib_api_status_t status;
	int n;

	if (!name || !*name || strchr(name, '/') || !out || !cap)
		return IB_INVALID_PARAMETER;
	status = soft_fabric_resolve_dir(NULL, TRUE, dir);
	if (status != IB_SUCCESS)
		return status;
	n = snprintf(out, cap, "%s/%s", dir, name);
	return n > 0 && (size_t)n < cap ? IB_SUCCESS : IB_INVALID_SETTING;
}

/* ---- Ports ---- */

int soft_fabric_new_socket(void)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int sz = SOCK_BUF_BYTES;

	/* Best effort: more packets in flight before a sender must wait. */
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	return fd;
}

static void port_free(soft_fabric_port_t *port)
{
	if (port->fd >= 0)
		close(port->fd);
	soft_ring_unmap(&port->ring);
	cl_free(port);
}

void soft_fabric_ring_create(soft_fabric_port_t *port)
{
	char path[PATH_MAX];
	int err;

	soft_reg_ring_path(port->fab, port->port_guid, path, sizeof(path));
	err = soft_ring_create(path, 0, &port->ring);
	if (!err) /* the counters go where the inspector reads them */
		port->stats = (soft_fabric_stats_t *)(void *)port->ring.hdr->owner_stats;
	if (err)
		IBAL_WARN(IBAL_SUB_FABRIC, "%s: no shared-memory ring (%s); the port receives on its socket",
				 path, strerror(err));
}

ib_api_status_t soft_fabric_port_open(ib_net64_t port_guid, ib_net64_t node_guid,
				      uint8_t port_num, soft_fabric_port_t **pp_port)
{
	return soft_fabric_port_open_at(port_guid, node_guid, port_num, 0, pp_port);
}

ib_api_status_t soft_fabric_port_open_at(ib_net64_t port_guid, ib_net64_t node_guid,
					 uint8_t port_num, uint16_t lid,
					 soft_fabric_port_t **pp_port)
{
	soft_fabric_port_t *port;
	ib_api_status_t status;
	soft_fabric_t *fab;

	if (!pp_port || lid > SOFT_FABRIC_LID_UNICAST_MAX)
		return IB_INVALID_PARAMETER;
	if (!port_guid)
		return IB_INVALID_GUID;
	port = (soft_fabric_port_t *)cl_zalloc(sizeof(*port));
	if (!port)
		return IB_INSUFFICIENT_MEMORY;
	port->stats = &port->own_stats;
	port->want_lid = lid;
	port->port_guid = port_guid;
	port->node_guid = node_guid;
	port->port_num = port_num;
	port->fd = soft_fabric_new_socket();
	if (port->fd < 0) {
		int err = errno;

		IBAL_ERR(IBAL_SUB_FABRIC, "port 0x%016" PRIx64 ": no socket: %s", cl_ntoh64(port_guid),
			 strerror(err));
		port_free(port);
		return ibal_status_of_errno(err);
	}
	status = soft_fabric_get(&fab);
	if (status != IB_SUCCESS) {
		port_free(port);
		return status;
	}
	port->fab = fab;
	port->rng_key = soft_rng_key(fab->cfg.seed, port_guid, port_num);
	status = soft_reg_lock(fab);
	if (status == IB_SUCCESS) {
		status = soft_reg_attach(fab, port);
		soft_reg_unlock(fab);
	}
	if (status != IB_SUCCESS) {
		port_free(port);
		soft_fabric_put(fab);
		return status;
	}
	*pp_port = port;
	return IB_SUCCESS;
}

void soft_fabric_port_close(soft_fabric_port_t *port)
{
	soft_fabric_t *fab;

	if (!port)
		return;
	fab = port->fab;
	if (fab->pid != getpid()) {
		/* Inherited across fork(): the parent still owns port, ring and fabric. */
		port_free(port);
		return;
	}
	soft_delay_purge(fab, port);
	if (soft_reg_lock(fab) == IB_SUCCESS) {
		soft_reg_detach(fab, port);
		soft_reg_unlock(fab);
	}
	port_free(port);
	/* A replaced peer's view of the ring just unmapped may now be the last. */
	soft_link_sweep(fab);
	soft_fabric_put(fab);
}

boolean_t soft_fabric_dir_intact(const soft_fabric_port_t *port)
{
	return soft_reg_intact(port->fab);
}

uint16_t soft_fabric_port_lid(const soft_fabric_port_t *port)
{
	return __atomic_load_n(&port->lid, __ATOMIC_ACQUIRE);
}

ib_api_status_t soft_fabric_port_set_lid(soft_fabric_port_t *port, uint16_t lid)
{
	ib_api_status_t status;

	if (!port || !lid || lid > SOFT_FABRIC_LID_UNICAST_MAX)
		return IB_INVALID_PARAMETER;
	status = soft_reg_lock(port->fab);
	if (status != IB_SUCCESS)
		return status;
	status = soft_reg_move(port->fab, port, lid);
	if (status == IB_SUCCESS && port->ring.hdr)
		soft_ring_set_gen(&port->ring, port->gen);
	soft_reg_unlock(port->fab);
	return status;
}

int soft_fabric_port_fd(const soft_fabric_port_t *port)
{
	return port->fd;
}

void soft_fabric_port_stats(const soft_fabric_port_t *port, soft_fabric_stats_t *p_stats)
{
	const uint64_t *src = (const uint64_t *)(const void *)port->stats;
	uint64_t *dst = (uint64_t *)(void *)p_stats;
	size_t i;

	for (i = 0; i < sizeof(*p_stats) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}
