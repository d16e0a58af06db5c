/*
 * ibal_soft_fabric: the soft fabric's service, which holds the nodes of a
 * topology file so that they outlive the processes that are them.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * It runs the soft provider without the access layer: a CA of its own
 * (whose port hosts the master SM and the SA) and one CA per node of the
 * topology (soft_prov_serve()), each answering SMPs and PMA requests at the
 * node's LIDs as the node's HCA would, with no QP1 of an application (a CM
 * REQ sent to a node whose application has not started is not answered,
 * and the requester's CM sends it again). The node's LIDs are reserved in
 * the registry. A process started with IBAL_SOFT_NODE=name asks for the node
 * through the socket `service` of the fabric directory (protocol in
 * soft_topo.h); the service closes its CA of the node and answers; when
 * the process's connection closes, or the process ends (its pidfd: a child
 * it forked may hold a copy of the connection until that child has run its
 * fork handler, or for good if a raw clone made it), the service opens the
 * node's CA again. docs/soft-fabric.md, "The fabric service", says how to
 * use it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4, pipe2, struct ucred */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include "soft_hca.h"
#include "soft_sm.h"
#include "soft_topo.h"

#define PROG "ibal_soft_fabric"
/* Clients at once (each holds at most one node). */
#define MAX_CLIENTS 128
/* How often a node whose CA could not be opened again is tried, ms. */
#define RETRY_MS 200
/* How long the service waits to become the master SM. */
#define MASTER_WAIT_MS 3000

typedef struct client {
	int fd;
	int node;  /* index in topo->node, or -1 */
	pid_t pid;
	int pidfd; /* readable once the process has ended; -1 if the kernel has none */
	short rev; /* its connection's poll events in this round */
	short ended; /* its process has ended (pidfd readable in this round) */
} client_t;

typedef struct service {
	soft_topo_t *topo;
	char dir_sock[PATH_MAX];
	char dir_topo[PATH_MAX];
	int lock_fd, listen_fd, sig_fd;
	void *own_ca;
	void *node_ca[SOFT_TOPO_MAX_NODES]; /* the service's CA of each node, NULL while lent */
	int lent[SOFT_TOPO_MAX_NODES];      /* the client index holding it, or -1 */
	client_t client[MAX_CLIENTS];
	unsigned n_clients;
	int quiet;
	int stopping; /* no node is opened again */
	int reserved; /* the topology's LIDs are reserved by us */
	int inited;   /* the provider is initialized */
} service_t;

static void say(const service_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(const service_t *s, const char *fmt, ...)
{
	va_list ap;

	if (s && s->quiet)
		return;
	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [-q] [--daemon] TOPOLOGY\n"
		   "Holds the soft fabric of $IBAL_SOFT_FABRIC (default /tmp/ibal-soft-<uid>/default)\n"
		   "as TOPOLOGY describes it: its SM and SA, and every node's ports at their LIDs\n"
		   "until a process started with IBAL_SOFT_NODE=<name> takes the node.\n"
		   "Prints 'ready <fabric directory>' on stdout once every node is up.\n"
		   "  -q, --quiet   say nothing on stderr but errors\n"
		   "  --daemon      go to the background once ready\n"
		   "  -h, --help    this text\n");
}

/* ---- The nodes' CAs ---- */

static void *open_ca(ib_net64_t guid)
{
	void *h = NULL;

	return soft_prov_ops.open_ca(guid, NULL, &h) == IB_SUCCESS ? h : NULL;
}

/* Opens the service's CA of node i again if it is neither open nor lent. */
static void hold_node(service_t *s, int i)
{
	if (s->stopping || s->node_ca[i] || s->lent[i] >= 0)
		return;
	s->node_ca[i] = open_ca(s->topo->node[i].node_guid);
	if (s->node_ca[i])
		say(s, "node %s: held by the service", s->topo->node[i].name);
}

/* Reserves every node's LIDs; a one-line error on failure. */
static int reserve(service_t *s, boolean_t on)
{
	soft_fabric_port_info_t info[SOFT_TOPO_MAX_NODES * SOFT_TOPO_MAX_PORTS];
	size_t n = 0, bad = 0;
	unsigned i, p;
	ib_api_status_t st;

	for (i = 0; i < s->topo->n_nodes; i++) {
		const soft_topo_node_t *node = &s->topo->node[i];

		for (p = 0; p < node->n_ports; p++) {
			memset(&info[n], 0, sizeof(info[n]));
			info[n].port_guid = soft_topo_port_guid(node, (uint8_t)(p + 1));
			info[n].node_guid = node->node_guid;
			info[n].lid = node->lid[p];
			info[n].port_num = (uint8_t)(p + 1);
			n++;
		}
	}
	if (!on) {
		soft_fabric_unreserve(info, n);
		return 0;
	}
	st = soft_fabric_reserve(info, n, &bad);
	if (st == IB_RESOURCE_BUSY)
		say(NULL, "LID 0x%x of the topology is held by another port of the fabric",
		    info[bad].lid);
	else if (st != IB_SUCCESS)
		say(NULL, "cannot reserve the topology's LIDs: %s", ib_get_err_str(st));
	return st == IB_SUCCESS ? 0 : -1;
}

/* ---- Files of the fabric directory ---- */

/* Writes the topology's text where nodes read it (write, then rename). */
static int publish_topology(service_t *s, const char *src)
{
	char tmp[PATH_MAX + 8], buf[4096];
	int in, out, ok = 1;
	ssize_t n;

	snprintf(tmp, sizeof(tmp), "%s.new", s->dir_topo);
	in = open(src, O_RDONLY | O_CLOEXEC);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	while (ok && in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		ok = write(out, buf, (size_t)n) == n;
	if (in < 0 || out < 0 || !ok || fsync(out) < 0 || rename(tmp, s->dir_topo) < 0)
		ok = 0;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (!ok) {
		say(NULL, "cannot write %s: %s", s->dir_topo, strerror(errno));
		unlink(tmp);
	}
	return ok ? 0 : -1;
}

/* One service per fabric directory: flock on <dir>/service.lock. */
static int take_lock(service_t *s)
{
	char path[PATH_MAX];

	if (soft_fabric_dir_file(SOFT_FABRIC_SERVICE_LOCK, path, sizeof(path)) != IB_SUCCESS) {
		say(NULL, "the fabric directory cannot be used");
		return -1;
	}
	s->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (s->lock_fd < 0) {
		say(NULL, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(s->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		say(NULL, "another fabric service runs on this fabric directory (%s)", path);
		return -1;
	}
	/* The lock file says who holds it (for tools and scripts). */
	if (ftruncate(s->lock_fd, 0) < 0 || dprintf(s->lock_fd, "%ld\n", (long)getpid()) < 0) {
		say(NULL, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int listen_socket(service_t *s)
{
	struct sockaddr_un sa;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(s->dir_sock) >= sizeof(sa.sun_path)) {
		say(NULL, "%s: path too long for a socket", s->dir_sock);
		return -1;
	}
	strcpy(sa.sun_path, s->dir_sock);
	unlink(sa.sun_path); /* ours: we hold the service lock */
	s->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->listen_fd < 0 || bind(s->listen_fd, (const struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(sa.sun_path, 0600) < 0 || listen(s->listen_fd, 64) < 0) {
		say(NULL, "%s: %s", s->dir_sock, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- Clients ---- */

static void answer(int fd, const char *msg)
{
	(void)send(fd, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Handles a client's message; -1 when the client is gone (end of file). */
static int client_request(service_t *s, unsigned c)
{
	client_t *cl = &s->client[c];
	char msg[SOFT_SVC_MSG_MAX + 1];
	const soft_topo_node_t *node;
	ssize_t n = recv(cl->fd, msg, sizeof(msg) - 1, MSG_DONTWAIT);
	int i;

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		return -1;
	if (n < 0)
		return 0;
	msg[n] = '\0';
	node = strncmp(msg, SOFT_SVC_TAKE, sizeof(SOFT_SVC_TAKE) - 1)
		       ? NULL
		       : soft_topo_find(s->topo, msg + sizeof(SOFT_SVC_TAKE) - 1);
	if (!node) {
		answer(cl->fd, SOFT_SVC_UNKNOWN);
		return 0;
	}
	i = (int)(node - s->topo->node);
	if (cl->node >= 0 || s->lent[i] >= 0) {
		answer(cl->fd, SOFT_SVC_BUSY);
		return 0;
	}
	if (s->node_ca[i])
		soft_prov_ops.close_ca(s->node_ca[i]);
	s->node_ca[i] = NULL;
	s->lent[i] = (int)c;
	cl->node = i;
	say(s, "node %s: lent to process %ld", node->name, (long)cl->pid);
	answer(cl->fd, SOFT_SVC_OK);
	return 0;
}

static void client_gone(service_t *s, unsigned c)
{
	client_t *cl = &s->client[c];
	int i = cl->node;

	close(cl->fd);
	if (cl->pidfd >= 0)
		close(cl->pidfd);
	if (i >= 0) {
		s->lent[i] = -1;
		say(s, "node %s: given back by process %ld", s->topo->node[i].name, (long)cl->pid);
		hold_node(s, i);
	}
	/* The last client takes the freed slot. */
	s->n_clients--;
	if (c != s->n_clients) {
		s->client[c] = s->client[s->n_clients];
		if (s->client[c].node >= 0)
			s->lent[s->client[c].node] = (int)c;
	}
}

/*
 * A descriptor that becomes readable when process @p pid ends, or -1 (no
 * pidfd_open in this kernel, or the process has ended already: then its
 * connection's end is what tells, as before).
 */
static int pidfd_of(pid_t pid)
{
#ifdef SYS_pidfd_open
	long fd = pid > 0 ? syscall(SYS_pidfd_open, pid, 0) : -1;

	if (fd >= 0) {
		(void)fcntl((int)fd, F_SETFD, FD_CLOEXEC);
		return (int)fd;
	}
#else
	(void)pid;
#endif
	return -1;
}

static void client_new(service_t *s)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	if (s->n_clients == MAX_CLIENTS) {
		answer(fd, SOFT_SVC_BUSY);
		close(fd);
		return;
	}
	memset(&cred, 0, sizeof(cred));
	getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len);
	s->client[s->n_clients].fd = fd;
	s->client[s->n_clients].node = -1;
	s->client[s->n_clients].pid = cred.pid;
	s->client[s->n_clients].pidfd = pidfd_of(cred.pid);
	s->n_clients++;
}

/* ---- Start, loop, stop ---- */

static int start(service_t *s, const char *topo_path)
{
	ib_net64_t guids[SOFT_MAX_CAS];
	size_t n = SOFT_MAX_CAS;
	al_prov_upcalls_t up;
	unsigned i;

	if (take_lock(s) || reserve(s, TRUE))
		return -1;
	s->reserved = 1;
	memset(&up, 0, sizeof(up));
	s->inited = soft_prov_ops.init(&up) == IB_SUCCESS;
	if (!s->inited || soft_prov_serve(s->topo) != IB_SUCCESS ||
	    soft_prov_ops.get_ca_guids(guids, &n) != IB_SUCCESS || n != s->topo->n_nodes + 1) {
		say(NULL, "the soft provider did not start");
		return -1;
	}
	s->own_ca = open_ca(guids[0]);
	if (!s->own_ca) {
		say(NULL, "cannot open the service's own soft CA");
		return -1;
	}
	if (!soft_sm_wait_master((soft_ca_t *)s->own_ca, MASTER_WAIT_MS))
		say(s, "another process is the fabric's SM; this one takes over when it exits");
	for (i = 0; i < s->topo->n_nodes; i++) {
		s->lent[i] = -1;
		hold_node(s, (int)i);
		if (!s->node_ca[i])
			say(NULL, "node %s: its CA did not open (tried again)", s->topo->node[i].name);
	}
	return publish_topology(s, topo_path) || listen_socket(s) ? -1 : 0;
}

static int signal_fd(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		return -1;
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static void run(service_t *s)
{
	struct pollfd p[2 * MAX_CLIENTS + 2];
	unsigned i, n;
	int pending;

	for (;;) {
		pending = 0;
		for (i = 0; i < s->topo->n_nodes; i++) {
			hold_node(s, (int)i);
			pending |= !s->node_ca[i] && s->lent[i] < 0;
		}
		p[0].fd = s->sig_fd;
		p[1].fd = s->listen_fd;
		for (i = 0; i < s->n_clients; i++) {
			p[i + 2].fd = s->client[i].fd;
			p[i + 2 + s->n_clients].fd = s->client[i].pidfd; /* -1: not polled */
		}
		n = 2 * s->n_clients + 2;
		for (i = 0; i < n; i++) {
			p[i].events = POLLIN;
			p[i].revents = 0;
		}
		if (poll(p, n, pending ? RETRY_MS : -1) < 0 && errno != EINTR)
			return;
		if (p[0].revents)
			return;
		for (i = 0; i < s->n_clients; i++) {
			s->client[i].rev = p[i + 2].revents;
			s->client[i].ended = p[i + 2 + s->n_clients].revents != 0;
		}
		/* The clients that went first, so that a node given back in this
		 * round is free for a request of the same round. From the last:
		 * client_gone() moves the last client into the freed slot. */
		for (i = s->n_clients; i-- > 0;)
			if (s->client[i].ended || (s->client[i].rev & (POLLHUP | POLLERR | POLLNVAL)))
				client_gone(s, i);
		for (i = s->n_clients; i-- > 0;)
			if ((s->client[i].rev & POLLIN) && client_request(s, i) < 0)
				client_gone(s, i);
		if (p[1].revents & POLLIN)
			client_new(s);
	}
}

static void stop(service_t *s)
{
	unsigned i;

	s->stopping = 1;
	while (s->n_clients)
		client_gone(s, s->n_clients - 1);
	if (s->listen_fd >= 0) {
		close(s->listen_fd);
		unlink(s->dir_sock);
	}
	if (s->reserved) /* we hold the service lock: the copy is ours */
		unlink(s->dir_topo);
	for (i = 0; i < s->topo->n_nodes; i++) {
		if (s->node_ca[i])
			soft_prov_ops.close_ca(s->node_ca[i]);
	}
	if (s->own_ca)
		soft_prov_ops.close_ca(s->own_ca);
	if (s->inited)
		soft_prov_ops.cleanup();
	/* Only a service that made the reservations lifts them (not one that
	 * found another service running). */
	if (s->reserved)
		reserve(s, FALSE);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
}

/* --daemon: the parent returns once the child says it is ready. */
static int daemonize(int *p_ready_fd)
{
	int pfd[2];
	char c;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		close(pfd[1]);
		_exit(read(pfd[0], &c, 1) == 1 && c == 'r' ? 0 : 1);
	}
	close(pfd[0]);
	setsid();
	*p_ready_fd = pfd[1];
	return 0;
}

int main(int argc, char **argv)
{
	service_t *s;
	const char *path = NULL;
	char err[PATH_MAX + 256], dir[PATH_MAX];
	int i, daemon = 0, quiet = 0, ready_fd = -1, rc = 1;

	/* Started by a node's process, it must not hold that process's descriptors. */
	close_range(3, ~0u, 0);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			quiet = 1;
		} else if (!strcmp(argv[i], "--daemon")) {
			daemon = 1;
		} else if (argv[i][0] == '-' || path) {
			fprintf(stderr, PROG ": unexpected argument '%s' (see --help)\n", argv[i]);
			return 2;
		} else {
			path = argv[i];
		}
	}
	if (!path) {
		fprintf(stderr, PROG ": no topology file (see --help)\n");
		return 2;
	}
	s = (service_t *)calloc(1, sizeof(*s));
	if (!s || !(s->topo = (soft_topo_t *)calloc(1, sizeof(*s->topo)))) {
		free(s);
		return 1;
	}
	s->quiet = quiet;
	s->lock_fd = s->listen_fd = s->sig_fd = -1;
	/* Started by a node's process, it inherited the node's name: not its own. */
	unsetenv(SOFT_TOPO_ENV_NODE);
	if (soft_topo_load(path, s->topo, err, sizeof(err)) != IB_SUCCESS) {
		say(NULL, "%s", err);
		rc = 2;
	} else if (soft_fabric_dir_file(SOFT_TOPO_DIR_SOCKET, s->dir_sock, sizeof(s->dir_sock)) ||
		   soft_fabric_dir_file(SOFT_TOPO_DIR_FILE, s->dir_topo, sizeof(s->dir_topo))) {
		say(NULL, "the fabric directory cannot be used");
	} else if ((s->sig_fd = signal_fd()) < 0 || (daemon && daemonize(&ready_fd) < 0)) {
		say(NULL, "%s", strerror(errno));
	} else if (start(s, path) == 0) {
		snprintf(dir, sizeof(dir), "%s", s->dir_sock);
		*strrchr(dir, '/') = '\0';
		printf("ready %s\n", dir);
		fflush(stdout);
		if (ready_fd >= 0) {
			if (write(ready_fd, "r", 1) != 1)
				say(s, "the starting process is gone");
			close(ready_fd);
		}
		run(s);
		rc = 0;
	}
	stop(s);
	if (s->sig_fd >= 0)
		close(s->sig_fd);
	free(s->topo);
	free(s);
	return rc;
}
