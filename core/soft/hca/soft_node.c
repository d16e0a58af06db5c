/*
 * ibal soft provider: a CA that is a node of the fabric service's topology
 * asks the service for it (IBAL_SOFT_NODE; the protocol is in soft_topo.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * When no service runs and IBAL_SOFT_TOPOLOGY names the topology, the
 * first process that asks starts one (`ibal_soft_fabric --daemon -q`,
 * installed in the library's bindir, or IBAL_SOFT_FABRIC_SERVICE) and
 * asks it; of processes that race to do so, one service wins and the
 * services the others started exit at once.
 *
 * The connection is the process's, not its children's: a forked child
 * closes its copies at once (pthread_atfork), and a CA that closes shuts
 * the connection down rather than only closing its descriptor, so a child
 * that kept a copy anyway (forked by a raw clone) cannot keep the node lent.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include "soft_hca.h"
#include "soft_topo.h"
#include "ibal_log.h"

/* How long a CA open waits for the service's answer. */
#define SOFT_NODE_WAIT_MS 10000
/* Environment: the fabric service program a node starts (default: the installed one). */
#define SOFT_NODE_ENV_SERVICE "IBAL_SOFT_FABRIC_SERVICE"
#ifndef IBAL_BINDIR
#define IBAL_BINDIR "/usr/local/bin"
#endif

extern char **environ;

/* The process's node connections (a slot is -1 when free); atomic ints, so
 * that the fork child handler reads them without a lock. */
static int node_fds[SOFT_MAX_CAS];
static pthread_once_t node_once = PTHREAD_ONCE_INIT;

/* In a forked child: the nodes stay the parent's. */
static void node_atfork_child(void)
{
	unsigned i;

	for (i = 0; i < SOFT_MAX_CAS; i++) {
		int fd = __atomic_exchange_n(&node_fds[i], -1, __ATOMIC_RELAXED);

		if (fd >= 0)
			close(fd);
	}
}

static void node_init(void)
{
	unsigned i;

	for (i = 0; i < SOFT_MAX_CAS; i++)
		node_fds[i] = -1;
	if (pthread_atfork(NULL, NULL, node_atfork_child))
		IBAL_WARN(IBAL_SUB_SOFT, "pthread_atfork failed: a forked child keeps its parent's nodes "
					 "lent until it exits");
}

/* Remembers fd as a node connection of this process. */
static void node_fd_keep(int fd)
{
	unsigned i;

	for (i = 0; i < SOFT_MAX_CAS; i++) {
		int none = -1;

		if (__atomic_compare_exchange_n(&node_fds[i], &none, fd, 0, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return;
	}
}

/* Forgets fd (FALSE if it is not one: a forked child's handler closed it). */
static boolean_t node_fd_forget(int fd)
{
	unsigned i;

	for (i = 0; i < SOFT_MAX_CAS; i++) {
		int mine = fd;

		if (__atomic_compare_exchange_n(&node_fds[i], &mine, -1, 0, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return TRUE;
	}
	return FALSE;
}

/* Connects to the service's socket: the descriptor, -1 if no service runs, -2 on another failure. */
static int svc_connect(void)
{
	struct sockaddr_un sa;
	int fd, err;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (soft_fabric_dir_file(SOFT_TOPO_DIR_SOCKET, sa.sun_path, sizeof(sa.sun_path)) != IB_SUCCESS)
		return -2;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -2;
	if (connect(fd, (const struct sockaddr *)&sa, sizeof(sa)) == 0)
		return fd;
	err = errno;
	close(fd);
	return err == ENOENT || err == ECONNREFUSED ? -1 : -2;
}

/* The service's answer within the wait; its length, or -1. */
static ssize_t svc_answer(int fd, char *buf, size_t cap)
{
	struct pollfd p = { .fd = fd, .events = POLLIN, .revents = 0 };
	ssize_t n;
	int rc;

	do
		rc = poll(&p, 1, SOFT_NODE_WAIT_MS);
	while (rc < 0 && errno == EINTR);
	if (rc != 1)
		return -1;
	n = recv(fd, buf, cap - 1, 0);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/*
 * Starts the fabric service on the topology file and waits until it is
 * ready (its --daemon parent exits then); TRUE if it ran to that point or
 * lost the race to another one.
 */
static boolean_t svc_start(const char *topo)
{
	const char *prog = getenv(SOFT_NODE_ENV_SERVICE);
	char *argv[5];
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc, status = 0;

	if (!prog || !*prog)
		prog = IBAL_BINDIR "/ibal_soft_fabric";
	argv[0] = (char *)"ibal_soft_fabric";
	argv[1] = (char *)"--daemon";
	argv[2] = (char *)"-q";
	argv[3] = (char *)topo;
	argv[4] = NULL;
	if (posix_spawn_file_actions_init(&fa))
		return FALSE;
	/* It prints 'ready' on stdout: not into the application's output. */
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	rc = posix_spawn(&pid, prog, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		IBAL_WARN(IBAL_SUB_SOFT, "cannot start the fabric service %s: %s", prog, strerror(rc));
		return FALSE;
	}
	while ((rc = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	return rc == pid && WIFEXITED(status) && WEXITSTATUS(status) <= 1;
}

ib_api_status_t soft_node_take(const char *name, int *p_fd)
{
	char msg[SOFT_SVC_MSG_MAX + 1], ans[32];
	const char *topo = getenv(SOFT_TOPO_ENV_FILE);
	int fd = svc_connect();
	int n;

	*p_fd = -1;
	pthread_once(&node_once, node_init);
	if (fd == -1 && topo && *topo && svc_start(topo))
		fd = svc_connect();
	if (fd == -1)
		return IB_SUCCESS; /* no service: the node's LIDs are used as they are */
	if (fd < 0) {
		IBAL_WARN(IBAL_SUB_SOFT, "node %s: cannot reach the fabric service", name);
		return IB_ERROR;
	}
	n = snprintf(msg, sizeof(msg), "%s%s", SOFT_SVC_TAKE, name);
	if (n < 0 || (size_t)n >= sizeof(msg) || send(fd, msg, (size_t)n, MSG_NOSIGNAL) != n ||
	    svc_answer(fd, ans, sizeof(ans)) <= 0) {
		IBAL_WARN(IBAL_SUB_SOFT, "node %s: the fabric service did not answer", name);
		close(fd);
		return IB_TIMEOUT;
	}
	if (!strcmp(ans, SOFT_SVC_OK)) {
		node_fd_keep(fd);
		*p_fd = fd;
		return IB_SUCCESS;
	}
	close(fd);
	if (!strcmp(ans, SOFT_SVC_BUSY)) {
		IBAL_WARN(IBAL_SUB_SOFT, "node %s is another process's", name);
		return IB_RESOURCE_BUSY;
	}
	IBAL_WARN(IBAL_SUB_SOFT, "node %s: the fabric service says '%s'", name, ans);
	return IB_INVALID_GUID;
}

void soft_node_give_back(int fd)
{
	/* In a forked child the descriptor was closed at the fork (and its
	 * number may be another file's now): nothing to give back. */
	if (fd < 0 || !node_fd_forget(fd))
		return;
	(void)shutdown(fd, SHUT_RDWR);
	close(fd);
}
