/*
 * ibal soft provider: a CA that is a node of the fabric service's topology
 * asks the service for it (IBAL_SOFT_NODE; the protocol is in soft_topo.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "soft_hca.h"
#include "soft_topo.h"

/* How long a CA open waits for the service's answer. */
#define SOFT_NODE_WAIT_MS 10000

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

ib_api_status_t soft_node_take(const char *name, int *p_fd)
{
	char msg[SOFT_SVC_MSG_MAX + 1], ans[32];
	int fd = svc_connect();
	int n;

	*p_fd = -1;
	if (fd == -1)
		return IB_SUCCESS; /* no service: the node's LIDs are used as they are */
	if (fd < 0) {
		soft_fabric_warn("node %s: cannot reach the fabric service", name);
		return IB_ERROR;
	}
	n = snprintf(msg, sizeof(msg), "%s%s", SOFT_SVC_TAKE, name);
	if (n < 0 || (size_t)n >= sizeof(msg) || send(fd, msg, (size_t)n, MSG_NOSIGNAL) != n ||
	    svc_answer(fd, ans, sizeof(ans)) <= 0) {
		soft_fabric_warn("node %s: the fabric service did not answer", name);
		close(fd);
		return IB_TIMEOUT;
	}
	if (!strcmp(ans, SOFT_SVC_OK)) {
		*p_fd = fd;
		return IB_SUCCESS;
	}
	close(fd);
	if (!strcmp(ans, SOFT_SVC_BUSY)) {
		soft_fabric_warn("node %s is another process's", name);
		return IB_RESOURCE_BUSY;
	}
	soft_fabric_warn("node %s: the fabric service says '%s'", name, ans);
	return IB_INVALID_GUID;
}

void soft_node_give_back(int fd)
{
	if (fd >= 0)
		close(fd);
}
