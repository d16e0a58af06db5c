/*
 * ibal verbs provider: the device watch (RDMA devices appearing and going away while running).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * One thread per process, started with the provider. It listens to the
 * kernel's uevents (a NETLINK_KOBJECT_UEVENT socket on the kernel's group,
 * which needs no privilege and no udev) for the RDMA classes: an
 * "infiniband" device added (the kernel announces it once its clients,
 * uverbs and umad, are ready) or an "infiniband", "infiniband_verbs" or
 * "infiniband_mad" device removed (uverbs and umad go first; the
 * "infiniband" device itself only once every user context of a device
 * without disassociation, rxe for example, is closed). After the burst of
 * events has been quiet for VERBS_WATCH_QUIET_MS it lists the CAs again
 * (verbs_for_each_ca) and, when the list of GUIDs changed, makes the
 * port_change(NULL, 0) upcall, on which the access layer's PnP manager
 * re-reads the CAs and reports IB_PNP_CA_ADD / IB_PNP_CA_REMOVE and the
 * port events. Where the socket cannot be had (a sandbox without netlink)
 * the list is compared every IBAL_VERBS_POLL_MS instead. A device reporting
 * IBV_EVENT_DEVICE_FATAL asks for a comparison too (verbs_watch_poke()).
 * While it runs on uevents, verbs_for_each_ca() keeps the list it read
 * (ibv_get_device_list() scans sysfs and asks netlink each time); a
 * relevant uevent makes it read the list anew at once, and the
 * comparison reads it anew too.
 *
 * The thread holds no lock while it makes the upcall; verbs_watch_stop()
 * wakes it through an eventfd and joins it.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include "verbs_prov.h"
#include "verbs_watch.h"
#include "ibal_log.h"

#ifdef HAVE_VERBS_PROV

#define WATCH_MAX_CAS 64

/* The CAs last seen, as a sorted list of GUIDs. */
typedef struct {
	ib_net64_t guid[WATCH_MAX_CAS];
	size_t n;
} watch_list_t;

static struct {
	pthread_t thread;
	int running;
	int wake_fd;      /* eventfd: stop or poke */
	int nl_fd;        /* uevent socket, -1 when polling */
	int stop;         /* atomic */
	int poked;        /* atomic: compare at once */
	int listening;    /* atomic: running on uevents (verbs_watch_listening) */
	unsigned poll_ms;
	watch_list_t last;
} w = { .wake_fd = -1, .nl_fd = -1 };

static boolean_t list_add(ib_net64_t guid, const char *name, int has_ibv, int has_umad,
			  void *ctx)
{
	watch_list_t *l = ctx;
	size_t i;

	(void)name;
	(void)has_ibv;
	(void)has_umad;
	if (l->n == WATCH_MAX_CAS)
		return TRUE;
	for (i = l->n; i && l->guid[i - 1] > guid; i--)
		l->guid[i] = l->guid[i - 1];
	l->guid[i] = guid;
	l->n++;
	return FALSE;
}

/* The CAs as they are now: the list verbs_for_each_ca() keeps is read anew. */
static void list_read(watch_list_t *l)
{
	l->n = 0;
	verbs_ca_list_forget();
	verbs_for_each_ca(list_add, l);
}

/* Re-lists the CAs; tells the access layer when the set changed. */
static void compare(void)
{
	watch_list_t now;
	size_t i, j;
	int gone = 0;

	list_read(&now);
	if (now.n == w.last.n && !memcmp(now.guid, w.last.guid, now.n * sizeof(now.guid[0])))
		return;
	for (i = 0, j = 0; i < w.last.n; i++) { /* both sorted */
		while (j < now.n && now.guid[j] < w.last.guid[i])
			j++;
		gone |= j == now.n || now.guid[j] != w.last.guid[i];
	}
	w.last = now;
	IBAL_DBG(IBAL_SUB_VERBS, "device list changed: %zu CA(s)%s", now.n,
			gone ? ", some gone" : "");
	if (verbs_upcalls.port_change)
		verbs_upcalls.port_change(NULL, 0);
}

/* Reads every pending uevent; whether one of them matters. */
static int read_uevents(void)
{
	char buf[4096];
	int relevant = 0;
	ssize_t n;

	while ((n = recv(w.nl_fd, buf, sizeof(buf) - 1, MSG_DONTWAIT)) > 0) {
		buf[n] = '\0';
		relevant |= verbs_watch_relevant(buf, (size_t)n);
	}
	if (n < 0 && errno == ENOBUFS)
		relevant = 1; /* events were lost: compare anyway */
	if (relevant)
		verbs_ca_list_forget(); /* at once: the comparison waits for quiet */
	return relevant;
}

static void drain_wake(void)
{
	uint64_t v;

	if (read(w.wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return;
}

static void *watch_main(void *arg)
{
	int pending = 0;

	(void)arg;
	while (!__atomic_load_n(&w.stop, __ATOMIC_ACQUIRE)) {
		struct pollfd pf[2] = { { w.wake_fd, POLLIN, 0 }, { w.nl_fd, POLLIN, 0 } };
		int timeout = w.nl_fd < 0 ? (int)w.poll_ms : pending ? VERBS_WATCH_QUIET_MS : -1;
		int rc = poll(pf, w.nl_fd < 0 ? 1 : 2, timeout);

		if (rc < 0 && errno != EINTR)
			break;
		if (rc > 0 && (pf[0].revents & POLLIN))
			drain_wake();
		if (__atomic_exchange_n(&w.poked, 0, __ATOMIC_ACQ_REL))
			pending = 1;
		if (w.nl_fd >= 0 && rc > 0 && (pf[1].revents & POLLIN)) {
			if (read_uevents())
				pending = 1;
			continue; /* the burst goes on: wait until it is quiet */
		}
		/* A timeout comes only while a burst settles, or every poll_ms when polling. */
		if (rc == 0 || (pending && w.nl_fd < 0)) {
			compare();
			pending = 0;
		}
	}
	return NULL;
}

static int open_uevent_socket(void)
{
	struct sockaddr_nl a;
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_KOBJECT_UEVENT);

	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.nl_family = AF_NETLINK;
	a.nl_groups = 1; /* the kernel's own uevents */
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

void verbs_watch_start(unsigned poll_ms)
{
	if (w.running)
		return;
	w.poll_ms = poll_ms;
	w.stop = 0;
	w.poked = 0;
	w.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w.wake_fd < 0)
		return;
	w.nl_fd = open_uevent_socket();
	list_read(&w.last);
	if (pthread_create(&w.thread, NULL, watch_main, NULL)) {
		if (w.nl_fd >= 0)
			close(w.nl_fd);
		close(w.wake_fd);
		w.nl_fd = w.wake_fd = -1;
		return;
	}
	w.running = 1;
	__atomic_store_n(&w.listening, w.nl_fd >= 0, __ATOMIC_RELEASE);
	IBAL_DBG(IBAL_SUB_VERBS, "device watch by %s",
			w.nl_fd >= 0 ? "uevents" : "polling");
}

int verbs_watch_listening(void)
{
	return __atomic_load_n(&w.listening, __ATOMIC_ACQUIRE);
}

void verbs_watch_poke(void)
{
	uint64_t one = 1;

	if (!w.running)
		return;
	verbs_ca_list_forget();
	__atomic_store_n(&w.poked, 1, __ATOMIC_RELEASE);
	if (write(w.wake_fd, &one, sizeof(one)) < 0)
		return;
}

void verbs_watch_stop(void)
{
	uint64_t one = 1;

	if (!w.running)
		return;
	__atomic_store_n(&w.listening, 0, __ATOMIC_RELEASE);
	verbs_ca_list_forget();
	__atomic_store_n(&w.stop, 1, __ATOMIC_RELEASE);
	if (write(w.wake_fd, &one, sizeof(one)) < 0)
		return; /* cannot happen with an eventfd below its limit */
	pthread_join(w.thread, NULL);
	if (w.nl_fd >= 0)
		close(w.nl_fd);
	close(w.wake_fd);
	w.nl_fd = w.wake_fd = -1;
	w.running = 0;
}

#endif /* HAVE_VERBS_PROV */
