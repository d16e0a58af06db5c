/*
 * ibal tests: the soft fabric (ports, LIDs, directories, delivery, rings,
 * congestion, processes). Injection, capture and the inspector's view are
 * test_fabric_inject.c; the helpers both use are fabric_test.[ch].
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Every test runs in a fabric directory of its own (mkdtemp, named by
 * IBAL_SOFT_FABRIC), so test programs may run in parallel. Unix datagrams
 * are queued at the receiver before sendto() returns, so "nothing arrived"
 * is checked right after sending; arrivals are awaited with poll() and a
 * generous bound.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fallocate */
#endif
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "soft_fabric.h"
#include "soft_pcap.h"
#include "soft_fabric_view.h"
#include "soft_ring.h"
#include "soft_wire.h"
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/mem_resident.h"
#include "fabric_test.h"

/* ------------------------------------------------------------------------ */
/* Ports and LIDs                                                            */
/* ------------------------------------------------------------------------ */

static void test_open_params(void)
{
	soft_fabric_port_t *port = NULL, *dup = NULL;

	fabric_begin();
	CU_ASSERT_EQUAL(soft_fabric_port_open(GUID(1), NODE(1), 1, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_fabric_port_open(0, NODE(1), 1, &port), IB_INVALID_GUID);
	CU_ASSERT_PTR_NULL(port);
	port = open_port(1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(port);
	/* A live port's GUID cannot be registered twice. */
	CU_ASSERT_EQUAL(soft_fabric_port_open(GUID(1), NODE(9), 2, &dup), IB_RESOURCE_BUSY);
	CU_ASSERT_PTR_NULL(dup);
	CU_ASSERT_TRUE(soft_fabric_port_fd(port) >= 0);
	CU_ASSERT_TRUE(sock_file_exists(soft_fabric_port_lid(port)));
	soft_fabric_port_close(port);
	soft_fabric_port_close(NULL);
	fabric_end();
}

/* Directories and registries the fabric refuses. */
static void test_unusable_directories(void)
{
	soft_fabric_port_t *port = NULL;
	char path[600], sub[512];
	FILE *f;
	size_t n;

	fabric_begin();
	/* A file where the directory should be. */
	snprintf(path, sizeof(path), "%s/file", fab_dir);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fclose(f);
	setenv(SOFT_FABRIC_ENV_DIR, path, 1);
	CU_ASSERT_EQUAL(soft_fabric_port_open(GUID(1), NODE(1), 1, &port), IB_INVALID_SETTING);
	unlink(path);
	/* A registry that is not one. */
	snprintf(sub, sizeof(sub), "%s/bad", fab_dir);
	CU_ASSERT_EQUAL(mkdir(sub, 0700), 0);
	snprintf(path, sizeof(path), "%s/registry", sub);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("something else", f);
	fclose(f);
	setenv(SOFT_FABRIC_ENV_DIR, sub, 1);
	CU_ASSERT_EQUAL(soft_fabric_port_open(GUID(1), NODE(1), 1, &port), IB_INVALID_SETTING);
	unlink(path);
	rmdir(sub);
	/* A path too long for a socket address (created on demand, then refused). */
	n = (size_t)snprintf(sub, sizeof(sub), "%s/", fab_dir);
	memset(sub + n, 'd', 120);
	sub[n + 120] = '\0';
	setenv(SOFT_FABRIC_ENV_DIR, sub, 1);
	CU_ASSERT_EQUAL(soft_fabric_port_open(GUID(1), NODE(1), 1, &port), IB_INVALID_SETTING);
	CU_ASSERT_PTR_NULL(port);
	rmdir(sub);
	fabric_end();
}

/*
 * The trust boundary (docs/soft-fabric.md): a directory writable by others
 * (here, and /tmp itself) is refused; so is a registry that is a symbolic
 * link, and the file it points to is left alone.
 */
static void test_untrusted_directories(void)
{
	soft_fabric_port_t *port = NULL;
	char path[600], target[600], sub[512];
	struct stat st;
	FILE *f;

	fabric_begin();
	snprintf(sub, sizeof(sub), "%s/open", fab_dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0700), 0);
	CU_ASSERT_EQUAL(chmod(sub, 0777), 0);
	setenv(SOFT_FABRIC_ENV_DIR, sub, 1);
	CU_ASSERT_EQUAL(soft_fabric_port_open(GUID(1), NODE(1), 1, &port), IB_INVALID_SETTING);
	CU_ASSERT_PTR_NULL(port);
	CU_ASSERT_EQUAL(chmod(sub, 0720), 0);     /* group-writable: refused too */
	CU_ASSERT_EQUAL(soft_fabric_port_open(GUID(1), NODE(1), 1, &port), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(chmod(sub, 0755), 0);     /* readable by others: the user's choice */
	CU_ASSERT_EQUAL(soft_fabric_port_open(GUID(1), NODE(1), 1, &port), IB_SUCCESS);
	soft_fabric_port_close(port);
	port = NULL;
	setenv(SOFT_FABRIC_ENV_DIR, "/tmp", 1);   /* sticky and writable by all */
	CU_ASSERT_EQUAL(soft_fabric_port_open(GUID(1), NODE(1), 1, &port), IB_INVALID_SETTING);
	/* A registry planted as a link to another file. */
	snprintf(sub, sizeof(sub), "%s/link", fab_dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0700), 0);
	snprintf(target, sizeof(target), "%s/victim", fab_dir);
	f = fopen(target, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/registry", sub);
	CU_ASSERT_EQUAL_FATAL(symlink(target, path), 0);
	setenv(SOFT_FABRIC_ENV_DIR, sub, 1);
	CU_ASSERT_EQUAL(soft_fabric_port_open(GUID(1), NODE(1), 1, &port), IB_INVALID_SETTING);
	CU_ASSERT_PTR_NULL(port);
	CU_ASSERT_EQUAL(stat(target, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, 0);
	fabric_end();
}

/* The errno posix_fallocate fails with (0: the real call), to stand for a
 * full file system. The library is linked into this program, so its calls
 * come here. */
static int fallocate_fails;

int posix_fallocate(int fd, off_t offset, off_t len)
{
	if (fallocate_fails)
		return fallocate_fails;
	if (fallocate(fd, 0, offset, len) == 0)
		return 0;
	if (errno != EOPNOTSUPP)
		return errno;
	return ftruncate(fd, offset + len) == 0 ? 0 : errno;
}

/* A full file system while the registry is made: a status, not a SIGBUS at
 * the first touch of a sparse mapping; the next open, with room, works. */
static void test_registry_full_disk(void)
{
	soft_fabric_port_t *port = NULL;

	fabric_begin();
	fallocate_fails = ENOSPC;
	CU_ASSERT_EQUAL(soft_fabric_port_open(GUID(1), NODE(1), 1, &port), IB_INSUFFICIENT_RESOURCES);
	CU_ASSERT_PTR_NULL(port);
	fallocate_fails = 0;
	CU_ASSERT_EQUAL(soft_fabric_port_open(GUID(1), NODE(1), 1, &port), IB_SUCCESS);
	CU_ASSERT(port && soft_fabric_port_lid(port));
	soft_fabric_port_close(port);
	fabric_end();
}

static void test_lids_unique_and_stable(void)
{
	soft_fabric_port_t *p[5], *d;
	soft_fabric_port_info_t info;
	uint16_t lid2;
	int i, j;

	fabric_begin();
	for (i = 0; i < 5; i++) {
		p[i] = open_port((unsigned)i + 1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p[i]);
	}
	/* A fresh fabric hands out the lowest free LIDs: 1..5. */
	for (i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(soft_fabric_port_lid(p[i]), i + 1);
		for (j = 0; j < i; j++)
			CU_ASSERT_NOT_EQUAL(soft_fabric_port_lid(p[i]), soft_fabric_port_lid(p[j]));
		CU_ASSERT_EQUAL(soft_fabric_port_by_lid(p[0], soft_fabric_port_lid(p[i]), &info),
				IB_SUCCESS);
		CU_ASSERT_EQUAL(info.port_guid, GUID((unsigned)i + 1));
		CU_ASSERT_EQUAL(info.node_guid, NODE((unsigned)i + 1));
		CU_ASSERT_EQUAL(info.port_num, 1);
		CU_ASSERT_EQUAL(info.owner_pid, getpid());
	}
	/* Stable: the registry answers the same while the port lives. */
	CU_ASSERT_EQUAL(soft_fabric_port_by_lid(p[4], 2, &info), IB_SUCCESS);
	CU_ASSERT_EQUAL(info.port_guid, GUID(2));
	/* A closed port's LID is free again, its socket file gone. */
	lid2 = soft_fabric_port_lid(p[1]);
	soft_fabric_port_close(p[1]);
	CU_ASSERT_FALSE(sock_file_exists(lid2));
	CU_ASSERT_EQUAL(soft_fabric_port_by_lid(p[0], lid2, &info), IB_NOT_FOUND);
	d = open_port(6);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(soft_fabric_port_lid(d), lid2);
	CU_ASSERT_EQUAL(soft_fabric_port_by_lid(p[0], 0, &info), IB_INVALID_LID);
	CU_ASSERT_EQUAL(soft_fabric_port_by_lid(p[0], 0xC000, &info), IB_INVALID_LID);
	CU_ASSERT_EQUAL(soft_fabric_port_by_lid(p[0], 77, &info), IB_NOT_FOUND);
	soft_fabric_port_close(d);
	for (i = 0; i < 5; i++)
		if (i != 1)
			soft_fabric_port_close(p[i]);
	fabric_end();
}

static void test_lookups(void)
{
	soft_fabric_port_info_t list[4];
	soft_fabric_port_t *a, *b, *c;
	ib_gid_t gid;
	uint16_t lid = 0;
	size_t n = 0;

	fabric_begin();
	a = open_port(1);
	b = open_port(2);
	c = open_port(3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(soft_fabric_lid_by_guid(a, GUID(3), &lid), IB_SUCCESS);
	CU_ASSERT_EQUAL(lid, soft_fabric_port_lid(c));
	CU_ASSERT_EQUAL(soft_fabric_lid_by_guid(a, GUID(42), &lid), IB_NOT_FOUND);
	CU_ASSERT_EQUAL(soft_fabric_lid_by_guid(a, GUID(3), NULL), IB_INVALID_PARAMETER);
	ib_gid_set_default(&gid, GUID(2));
	CU_ASSERT_EQUAL(soft_fabric_lid_by_gid(c, &gid, &lid), IB_SUCCESS);
	CU_ASSERT_EQUAL(lid, soft_fabric_port_lid(b));
	gid.unicast.prefix = CL_HTON64(0xFEC0000000000000ull);
	CU_ASSERT_EQUAL(soft_fabric_lid_by_gid(c, &gid, &lid), IB_NOT_FOUND);
	/* Listing: LID order; a short array gets the first entries and the count. */
	CU_ASSERT_EQUAL(soft_fabric_port_list(b, list, 4, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_EQUAL(list[0].port_guid, GUID(1));
	CU_ASSERT_EQUAL(list[1].port_guid, GUID(2));
	CU_ASSERT_EQUAL(list[2].port_guid, GUID(3));
	CU_ASSERT_TRUE(list[0].lid < list[1].lid && list[1].lid < list[2].lid);
	memset(list, 0, sizeof(list));
	CU_ASSERT_EQUAL(soft_fabric_port_list(b, list, 2, &n), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_EQUAL(list[1].port_guid, GUID(2));
	CU_ASSERT_EQUAL(list[2].port_guid, 0);
	CU_ASSERT_EQUAL(soft_fabric_port_list(b, NULL, 0, &n), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(soft_fabric_port_list(b, NULL, 1, &n), IB_INVALID_PARAMETER);
	soft_fabric_port_close(b);
	CU_ASSERT_EQUAL(soft_fabric_port_list(a, list, 4, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(soft_fabric_lid_by_guid(a, GUID(2), &lid), IB_NOT_FOUND);
	soft_fabric_port_close(a);
	soft_fabric_port_close(c);
	fabric_end();
}

/* A record whose socket file vanished is reclaimed; its old owner cannot touch the new one. */
static void test_stale_socket_reclaimed(void)
{
	soft_fabric_port_t *a, *b, *c;
	soft_fabric_port_info_t info;
	char path[512];
	uint16_t lid_b;

	fabric_begin();
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	lid_b = soft_fabric_port_lid(b);
	snprintf(path, sizeof(path), "%s/lid-%04x", fab_dir, lid_b);
	CU_ASSERT_EQUAL(unlink(path), 0);
	CU_ASSERT_TRUE(nothing_waiting(b)); /* b sleeps: a sender rings its socket */
	send_seq(a, lid_b, 1);
	CU_ASSERT_EQUAL(stats_of(a).drop_unknown, 1);
	CU_ASSERT_EQUAL(soft_fabric_port_by_lid(a, lid_b, &info), IB_NOT_FOUND);
	CU_ASSERT_EQUAL(soft_fabric_mcast_attach(b, MLID), IB_INVALID_PORT_STATE);
	c = open_port(3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(soft_fabric_port_lid(c), lid_b);
	/* Closing the old port must not deregister the new holder. */
	soft_fabric_port_close(b);
	send_seq(a, lid_b, 2);
	CU_ASSERT_EQUAL(recv_seq(c), 2);
	CU_ASSERT_EQUAL(soft_fabric_port_by_lid(a, lid_b, &info), IB_SUCCESS);
	CU_ASSERT_EQUAL(info.port_guid, GUID(3));
	soft_fabric_port_close(a);
	soft_fabric_port_close(c);
	fabric_end();
}

static void test_default_directory(void)
{
	soft_fabric_port_t *port = NULL;
	char path[512];
	struct stat st;
	/* A GUID no other user of the default fabric would pick. */
	ib_net64_t guid = CL_HTON64(0x0EADBEEF00000000ull | (uint64_t)getpid());

	fabric_begin();
	unsetenv(SOFT_FABRIC_ENV_DIR);
	CU_ASSERT_EQUAL_FATAL(soft_fabric_port_open(guid, guid, 1, &port), IB_SUCCESS);
	snprintf(path, sizeof(path), "/tmp/ibal-soft-%lu/default", (unsigned long)getuid());
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_TRUE(S_ISDIR(st.st_mode));
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0700);
	snprintf(path, sizeof(path), "/tmp/ibal-soft-%lu/default/lid-%04x", (unsigned long)getuid(),
		 soft_fabric_port_lid(port));
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	soft_fabric_port_close(port);
	CU_ASSERT_NOT_EQUAL(stat(path, &st), 0);
	fabric_end();
}

static void test_directories_isolate(void)
{
	soft_fabric_port_t *a1, *a2, *b1;
	char dir_a[256];

	fabric_begin();
	a1 = open_port(1);
	a2 = open_port(2);
	strcpy(dir_a, fab_dir);
	fabric_begin();
	/* Another directory is another subnet: LIDs and GUIDs start over. */
	b1 = open_port(1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b1);
	CU_ASSERT_EQUAL(soft_fabric_port_lid(b1), 1);
	send_seq(b1, 2, 7);
	CU_ASSERT_EQUAL(stats_of(b1).drop_unknown, 1);
	CU_ASSERT_TRUE(nothing_waiting(a2));
	send_seq(a1, 2, 8);
	CU_ASSERT_EQUAL(recv_seq(a2), 8);
	soft_fabric_port_close(b1);
	fabric_end();
	soft_fabric_port_close(a1);
	soft_fabric_port_close(a2);
	strcpy(fab_dir, dir_a);
	fabric_end();
}

/* ------------------------------------------------------------------------ */
/* Delivery                                                                  */
/* ------------------------------------------------------------------------ */

static void test_unicast_exchange(void)
{
	soft_fabric_port_t *a, *b;
	uint8_t out[SOFT_FABRIC_MAX_PACKET], in[SOFT_FABRIC_MAX_PACKET];
	soft_fabric_stats_t s;
	size_t len, got = 0, i;

	fabric_begin();
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	/* The largest packet travels whole. */
	len = make_pkt(out, soft_fabric_port_lid(b), soft_fabric_port_lid(a), OP_UD_SEND_ONLY, 5,
		       SOFT_FABRIC_MAX_PACKET - HDR_LEN - 6);
	CU_ASSERT_EQUAL(len, SOFT_FABRIC_MAX_PACKET);
	for (i = HDR_LEN + 4; i < len - 6; i++)
		out[i] = (uint8_t)(i * 7);
	CU_ASSERT_EQUAL(soft_fabric_send(a, out, len), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_recv(b, in, sizeof(in), &got, WAIT_MS), IB_SUCCESS);
	CU_ASSERT_EQUAL(got, len);
	CU_ASSERT_EQUAL(memcmp(in, out, len), 0);
	CU_ASSERT_TRUE(nothing_waiting(a));
	/* And back, several, in order. */
	for (i = 0; i < 5; i++)
		send_seq(b, soft_fabric_port_lid(a), (uint32_t)i);
	for (i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(recv_seq(a), (long)i);
	CU_ASSERT_TRUE(nothing_waiting(a));
	/* A port reaches itself (loopback). */
	send_seq(a, soft_fabric_port_lid(a), 99);
	CU_ASSERT_EQUAL(recv_seq(a), 99);
	s = stats_of(a);
	CU_ASSERT_EQUAL(s.tx_packets, 2);
	CU_ASSERT_EQUAL(s.delivered, 2);
	CU_ASSERT_EQUAL(s.rx_packets, 6);
	CU_ASSERT_EQUAL(s.tx_bytes, len + (HDR_LEN + 16 + 6));
	s = stats_of(b);
	CU_ASSERT_EQUAL(s.rx_packets, 1);
	CU_ASSERT_EQUAL(s.rx_bytes, len);
	CU_ASSERT_EQUAL(s.tx_packets, 5);
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	fabric_end();
}

static void test_bad_sends_and_unknown_lids(void)
{
	soft_fabric_port_t *a, *b;
	uint8_t pkt[64];
	size_t len;
	soft_fabric_stats_t s;

	fabric_begin();
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	len = make_pkt(pkt, 2, 1, OP_UD_SEND_ONLY, 0, 8);
	CU_ASSERT_EQUAL(soft_fabric_send(NULL, pkt, len), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_fabric_send(a, NULL, len), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_fabric_send(a, pkt, SOFT_FABRIC_MIN_PACKET - 1), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_fabric_send(a, pkt, SOFT_FABRIC_MAX_PACKET + 1), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(stats_of(a).tx_packets, 0);
	/* Just the LRH is a packet the fabric carries. */
	CU_ASSERT_EQUAL(soft_fabric_send(a, pkt, SOFT_FABRIC_MIN_PACKET), IB_SUCCESS);
	CU_ASSERT_EQUAL(stats_of(a).delivered, 1);
	CU_ASSERT_TRUE(!nothing_waiting(b));
	/* LIDs nobody holds, LID 0 and the permissive LID are dropped and counted. */
	send_seq(a, 3, 1);
	send_seq(a, 0xBFFF, 2);
	send_seq(a, 0, 3);
	send_seq(a, 0xFFFF, 4);
	s = stats_of(a);
	CU_ASSERT_EQUAL(s.drop_unknown, 4);
	CU_ASSERT_EQUAL(s.drop_dead + s.drop_busy + s.drop_error + s.drop_injected, 0);
	CU_ASSERT_EQUAL(s.tx_packets, 5);
	CU_ASSERT_EQUAL(s.delivered, 1);
	CU_ASSERT_TRUE(nothing_waiting(b));
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	fabric_end();
}

/* Directed-route SMPs carry DLID 0xFFFF; the caller names the port. */
static void test_send_to(void)
{
	soft_fabric_port_t *a, *b;
	uint8_t pkt[128], in[SOFT_FABRIC_MAX_PACKET];
	size_t len, got;

	fabric_begin();
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	len = make_pkt(pkt, 0xFFFF, 0xFFFF, OP_UD_SEND_ONLY, 11, 16);
	CU_ASSERT_EQUAL(soft_fabric_send_to(a, soft_fabric_port_lid(b), pkt, len), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_recv(b, in, sizeof(in), &got, WAIT_MS), IB_SUCCESS);
	CU_ASSERT_EQUAL(got, len);
	CU_ASSERT_EQUAL(get16(in + 2), 0xFFFF);
	CU_ASSERT_EQUAL(soft_fabric_send_to(a, 0, pkt, len), IB_INVALID_LID);
	CU_ASSERT_EQUAL(soft_fabric_send_to(a, 0xC001, pkt, len), IB_INVALID_LID);
	CU_ASSERT_EQUAL(soft_fabric_send_to(NULL, 0, pkt, len), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_fabric_send_to(a, 2, pkt, 4), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_fabric_send_to(a, 9, pkt, len), IB_SUCCESS);
	CU_ASSERT_EQUAL(stats_of(a).drop_unknown, 1);
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	fabric_end();
}

static void test_recv_edges(void)
{
	soft_fabric_port_t *a;
	uint8_t small[16], big[SOFT_FABRIC_MAX_PACKET];
	size_t len = 0;

	fabric_begin();
	a = open_port(1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(soft_fabric_recv(a, big, sizeof(big), &len), IB_NOT_FOUND);
	CU_ASSERT_EQUAL(soft_fabric_recv(a, NULL, sizeof(big), &len), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_fabric_recv(a, big, sizeof(big), NULL), IB_INVALID_PARAMETER);
	send_seq(a, soft_fabric_port_lid(a), 1);
	send_seq(a, soft_fabric_port_lid(a), 2);
	/* Too small a buffer: the packet is consumed, its length told. */
	CU_ASSERT_EQUAL(soft_fabric_recv(a, small, sizeof(small), &len), IB_OVERFLOW);
	CU_ASSERT_EQUAL(len, HDR_LEN + 16 + 6);
	CU_ASSERT_EQUAL(stats_of(a).rx_truncated, 1);
	CU_ASSERT_EQUAL(recv_seq(a), 2);
	CU_ASSERT_EQUAL(stats_of(a).rx_packets, 1);
	soft_fabric_port_close(a);
	fabric_end();
}

static void test_multicast(void)
{
	soft_fabric_port_t *p[3];
	soft_fabric_stats_t s;
	unsigned i;

	fabric_begin();
	for (i = 0; i < 3; i++) {
		p[i] = open_port(i + 1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p[i]);
	}
	CU_ASSERT_EQUAL(soft_fabric_mcast_attach(p[0], MLID), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_fabric_mcast_attach(p[1], MLID), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_fabric_mcast_attach(p[1], MLID), IB_SUCCESS); /* twice = once */
	CU_ASSERT_EQUAL(soft_fabric_mcast_attach(p[2], MLID + 1), IB_SUCCESS);
	/* Two of three ports are in the group; the sender is not. */
	send_seq(p[2], MLID, 1);
	CU_ASSERT_EQUAL(recv_seq(p[0]), 1);
	CU_ASSERT_EQUAL(recv_seq(p[1]), 1);
	CU_ASSERT_TRUE(nothing_waiting(p[0]));
	CU_ASSERT_TRUE(nothing_waiting(p[1]));
	CU_ASSERT_TRUE(nothing_waiting(p[2]));
	s = stats_of(p[2]);
	CU_ASSERT_EQUAL(s.tx_packets, 1);
	CU_ASSERT_EQUAL(s.delivered, 2);
	/* A member sending to its group gets its own packet too. */
	send_seq(p[0], MLID, 2);
	CU_ASSERT_EQUAL(recv_seq(p[0]), 2);
	CU_ASSERT_EQUAL(recv_seq(p[1]), 2);
	CU_ASSERT_TRUE(nothing_waiting(p[2]));
	/* After a detach only the other member receives. */
	CU_ASSERT_EQUAL(soft_fabric_mcast_detach(p[1], MLID), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_fabric_mcast_detach(p[1], MLID), IB_NOT_FOUND);
	send_seq(p[2], MLID, 3);
	CU_ASSERT_EQUAL(recv_seq(p[0]), 3);
	CU_ASSERT_TRUE(nothing_waiting(p[1]));
	/* A group without members: dropped and counted. */
	send_seq(p[2], 0xFFFE, 4);
	CU_ASSERT_EQUAL(stats_of(p[2]).drop_unknown, 1);
	CU_ASSERT_EQUAL(soft_fabric_mcast_attach(p[0], 0xBFFF), IB_INVALID_LID);
	CU_ASSERT_EQUAL(soft_fabric_mcast_attach(p[0], 0xFFFF), IB_INVALID_LID);
	CU_ASSERT_EQUAL(soft_fabric_mcast_detach(p[0], 5), IB_INVALID_LID);
	CU_ASSERT_EQUAL(soft_fabric_mcast_attach(NULL, MLID), IB_INVALID_PARAMETER);
	for (i = 0; i < 3; i++)
		soft_fabric_port_close(p[i]);
	fabric_end();
}

static void test_multicast_limit(void)
{
	soft_fabric_port_t *a;
	unsigned i;

	fabric_begin();
	a = open_port(1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	for (i = 0; i < SOFT_FABRIC_MAX_MCAST; i++)
		CU_ASSERT_EQUAL(soft_fabric_mcast_attach(a, (uint16_t)(0xC000 + i)), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_fabric_mcast_attach(a, 0xD000), IB_INSUFFICIENT_RESOURCES);
	CU_ASSERT_EQUAL(soft_fabric_mcast_attach(a, 0xC000), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_fabric_mcast_detach(a, 0xC007), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_fabric_mcast_attach(a, 0xD000), IB_SUCCESS);
	send_seq(a, 0xD000, 1);
	CU_ASSERT_EQUAL(recv_seq(a), 1);
	send_seq(a, 0xC007, 2);
	CU_ASSERT_TRUE(nothing_waiting(a));
	soft_fabric_port_close(a);
	fabric_end();
}

/* ------------------------------------------------------------------------ */
/* Congestion                                                                */
/* ------------------------------------------------------------------------ */

static long dgram_qlen(void)
{
	FILE *f = fopen("/proc/sys/net/unix/max_dgram_qlen", "r");
	long v = 10;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 10;
		fclose(f);
	}
	return v;
}

/* A receiver that never reads: its ring fills, and further packets are
 * dropped at once and counted, as a switch drops them; nothing waits. */
static void test_full_receiver_drops(void)
{
	soft_fabric_port_t *a, *b;
	soft_fabric_stats_t s;
	/* Records take at least SOFT_RING_ALIGN bytes: more than the ring holds. */
	long n = SOFT_RING_BYTES / SOFT_RING_ALIGN + 100, i, got = 0;

	fabric_begin();
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	for (i = 0; i < n; i++)
		send_seq(a, 2, (uint32_t)i);
	s = stats_of(a);
	CU_ASSERT_TRUE(s.drop_busy > 0);
	CU_ASSERT_EQUAL(s.delivered + s.drop_busy, (uint64_t)n);
	/* The first packets are the ones kept, in order. */
	for (i = 0; i < (long)s.delivered; i++)
		if (recv_seq(b) == i)
			got++;
	CU_ASSERT_EQUAL((uint64_t)got, s.delivered);
	CU_ASSERT_TRUE(nothing_waiting(b));
	send_seq(a, 2, (uint32_t)n);
	CU_ASSERT_EQUAL(recv_seq(b), n);
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	fabric_end();
}

/* With SOFT_FABRIC_TELL_FULL (RC requests and ACKs, datagrams), a packet that
 * finds the ring full is handed back, IB_RESOURCE_BUSY: not sent, not
 * dropped, not counted, as a packet waits for link credits. Once the
 * receiver has taken what waited, it goes. */
static void test_full_receiver_holds(void)
{
	soft_fabric_port_t *a, *b;
	soft_fabric_stats_t s0, s1;
	uint8_t pkt[256];
	size_t len;
	long n = SOFT_RING_BYTES / SOFT_RING_ALIGN + 100, i, taken = 0;

	fabric_begin();
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	for (i = 0; i < n && stats_of(a).drop_busy == 0; i++)
		send_seq(a, 2, (uint32_t)i);
	s0 = stats_of(a);
	CU_ASSERT_EQUAL_FATAL(s0.drop_busy, 1);    /* the ring is full */
	len = make_pkt(pkt, 2, 1, OP_UD_SEND_ONLY, 0x77777, 16);
	CU_ASSERT_EQUAL(soft_fabric_send_flags(a, pkt, len, SOFT_FABRIC_TELL_FULL),
			IB_RESOURCE_BUSY);
	s1 = stats_of(a);
	CU_ASSERT_EQUAL(s1.drop_busy, s0.drop_busy);
	CU_ASSERT_EQUAL(s1.tx_packets, s0.tx_packets);
	CU_ASSERT_EQUAL(s1.delivered, s0.delivered);
	/* The receiver takes everything (and, idle, publishes its position). */
	while (!nothing_waiting(b))
		taken++;
	CU_ASSERT_EQUAL(taken, (long)s0.delivered);
	CU_ASSERT_EQUAL(soft_fabric_send_flags(a, pkt, len, SOFT_FABRIC_TELL_FULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(recv_seq(b), 0x77777);
	CU_ASSERT_EQUAL(stats_of(a).tx_packets, s1.tx_packets + 1);
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	fabric_end();
}

/* Maps port n's ring as a (hostile) producer would. */
static void map_ring_of(unsigned n, soft_ring_t *ring)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/ring-%016llx", fab_dir,
		 (unsigned long long)cl_ntoh64(GUID(n)));
	CU_ASSERT_EQUAL_FATAL(soft_ring_attach(path, ring), 0);
}

/* Publishes into port n's ring, as a hostile producer, a record whose
 * length word (after the 8-byte stamp) no packet can have. */
static void put_bad_length(unsigned n)
{
	soft_ring_t evil;
	uint8_t pkt[64];
	boolean_t wake;
	uint64_t t;

	map_ring_of(n, &evil);
	memset(pkt, 0xEE, sizeof(pkt));
	t = __atomic_load_n(&evil.hdr->tail, __ATOMIC_ACQUIRE);
	CU_ASSERT_EQUAL(soft_ring_put(&evil, pkt, sizeof(pkt), 0, &wake, NULL), SOFT_RING_OK);
	*(uint32_t *)(void *)(evil.data + (t & (SOFT_RING_BYTES - 1)) + 8) = 0x7FFFFFFF;
	soft_ring_unmap(&evil);
}

/* A record with a length no packet has: the receiver drops it and what
 * follows up to the tail, counts it, and goes on with the next packet. */
static void test_ring_bad_length(void)
{
	soft_fabric_port_t *a, *b;

	fabric_begin();
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	send_seq(a, 2, 1);
	put_bad_length(2);
	send_seq(a, 2, 2);
	CU_ASSERT_EQUAL(recv_seq(b), 1);
	CU_ASSERT_TRUE(nothing_waiting(b)); /* 2 came after the bad record */
	CU_ASSERT_EQUAL(stats_of(b).rx_ring_dropped, 1);
	send_seq(a, 2, 3);
	CU_ASSERT_EQUAL(recv_seq(b), 3);
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	fabric_end();
}

/*
 * A ring is in the page tables of its consumer from its creation and of a
 * producer from its attachment, every page of it: the first lap of packets
 * (a burst of connections' MADs) costs no page fault on either side. The
 * producer here is another process (a process maps a ring once: this one's
 * attachment would be the consumer's mapping).
 */
static void test_ring_resident(void)
{
	long pages = (long)(SOFT_RING_FILE_BYTES / (size_t)sysconf(_SC_PAGESIZE));
	/* Static: the forked child ends with it open, and a leak checker there
	 * must find it reachable. */
	static soft_fabric_port_t *b;
	soft_ring_t ring;
	int status;
	pid_t pid;

	fabric_begin();
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	map_ring_of(2, &ring); /* the consumer's mapping, one more reference */
	if (test_pages_mapped(ring.hdr, SOFT_RING_FILE_BYTES) < 0) {
		soft_ring_unmap(&ring);
		soft_fabric_port_close(b);
		fabric_end();
		CU_PASS("no /proc/self/pagemap here");
		return;
	}
	CU_ASSERT_EQUAL(test_pages_mapped(ring.hdr, SOFT_RING_FILE_BYTES), pages);
	soft_ring_unmap(&ring);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char path[PATH_MAX];
		soft_ring_t mine;

		snprintf(path, sizeof(path), "%s/ring-%016llx", fab_dir,
			 (unsigned long long)cl_ntoh64(GUID(2)));
		if (soft_ring_attach(path, &mine) != 0)
			_exit(2);
		_exit(test_pages_mapped(mine.hdr, SOFT_RING_FILE_BYTES) == pages ? 0 : 1);
	}
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(status));
	CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
	soft_fabric_port_close(b);
	b = NULL;
	fabric_end();
}

/*
 * A look at the next packet (soft_fabric_ring_peek) copies its first bytes
 * and leaves it for the taker; nothing published reads 0 bytes, and so does
 * a record whose length no packet can have (a look trusts no more than a take).
 */
static void test_ring_peek(void)
{
	soft_fabric_port_t *a, *b;
	uint8_t p1[128], p2[128], in[SOFT_FABRIC_MAX_PACKET], look[256];
	size_t l1, l2, got = 0;

	fabric_begin();
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(soft_fabric_ring_peek(b, look, sizeof(look)), 0);
	l1 = make_pkt(p1, 2, 1, OP_UD_SEND_ONLY, 1, 40);
	l2 = make_pkt(p2, 2, 1, OP_RC_SEND_ONLY, 2, 8);
	CU_ASSERT_EQUAL(soft_fabric_send(a, p1, l1), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_fabric_send(a, p2, l2), IB_SUCCESS);
	/* Bounded by the caller's room, then by the packet. */
	CU_ASSERT_EQUAL(soft_fabric_ring_peek(b, look, 9), 9);
	CU_ASSERT_EQUAL(memcmp(look, p1, 9), 0);
	CU_ASSERT_EQUAL(soft_fabric_ring_peek(b, look, sizeof(look)), l1);
	CU_ASSERT_EQUAL(memcmp(look, p1, l1), 0);
	/* The look took nothing. */
	CU_ASSERT_EQUAL(soft_fabric_poll_ring(b, in, sizeof(in), &got), IB_SUCCESS);
	CU_ASSERT_EQUAL(got, l1);
	CU_ASSERT_EQUAL(memcmp(in, p1, l1), 0);
	CU_ASSERT_EQUAL(soft_fabric_ring_peek(b, look, sizeof(look)), l2);
	CU_ASSERT_EQUAL(memcmp(look, p2, l2), 0);
	CU_ASSERT_EQUAL(soft_fabric_poll_ring(b, in, sizeof(in), &got), IB_SUCCESS);
	CU_ASSERT_EQUAL(got, l2);
	CU_ASSERT_EQUAL(soft_fabric_ring_peek(b, look, sizeof(look)), 0);
	/* A record with a length word no packet has. */
	put_bad_length(2);
	CU_ASSERT_EQUAL(soft_fabric_ring_peek(b, look, sizeof(look)), 0);
	send_seq(a, 2, 3);
	CU_ASSERT_TRUE(nothing_waiting(b)); /* the take dropped it and what came after */
	CU_ASSERT_EQUAL(stats_of(b).rx_ring_dropped, 1);
	send_seq(a, 2, 4);
	CU_ASSERT_EQUAL(recv_seq(b), 4);
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	fabric_end();
}

/* Space claimed and never written (a sender killed in between): after
 * SOFT_RING_STUCK_MS the receiver skips it and later packets flow again. */
static void test_ring_abandoned_claim(void)
{
	soft_fabric_port_t *a, *b;
	soft_ring_t evil;
	uint64_t t0;

	fabric_begin();
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	map_ring_of(2, &evil);
	__atomic_fetch_add(&evil.hdr->tail, (uint64_t)SOFT_RING_ALIGN, __ATOMIC_ACQ_REL);
	send_seq(a, 2, 1);
	t0 = test_now_ms();
	/* Held up behind the claim, then dropped with it. */
	CU_ASSERT_EQUAL(recv_seq(b), -1);
	CU_ASSERT_TRUE(test_now_ms() - t0 >= SOFT_RING_STUCK_MS - 1);
	CU_ASSERT_EQUAL(stats_of(b).rx_ring_dropped, 1);
	send_seq(a, 2, 2);
	CU_ASSERT_EQUAL(recv_seq(b), 2);
	soft_ring_unmap(&evil);
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	fabric_end();
}

/* Head and tail words set to nonsense: a bogus head is not read while the
 * producer's own copy of it shows room, and then reads as a full ring; the
 * receiver resynchronizes to a bogus tail (counting it as a drop) and
 * traffic resumes; nothing crashes or waits. */
static void test_ring_bogus_indexes(void)
{
	soft_fabric_port_t *a, *b;
	soft_ring_t evil;
	unsigned polls;

	fabric_begin();
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	map_ring_of(2, &evil);
	__atomic_store_n(&evil.hdr->head, UINT64_MAX - 5, __ATOMIC_RELEASE);
	send_seq(a, 2, 1); /* the producer's copy of the head shows room */
	CU_ASSERT_EQUAL(recv_seq(b), 1);
	CU_ASSERT_EQUAL(stats_of(a).drop_busy, 0);
	__atomic_store_n(&evil.hdr->tail, (uint64_t)1 << 60, __ATOMIC_RELEASE);
	send_seq(a, 2, 2); /* no room between the true head and that tail: dropped */
	CU_ASSERT_EQUAL(stats_of(a).drop_busy, 1);
	/* The receiver finds the tail out of reach within a bounded number of polls. */
	for (polls = 0; polls < 100000 && !stats_of(b).rx_ring_dropped; polls++)
		CU_ASSERT_TRUE(nothing_waiting(b));
	CU_ASSERT_EQUAL(stats_of(b).rx_ring_dropped, 1); /* resynchronized to the tail */
	send_seq(a, 2, 3);
	CU_ASSERT_EQUAL(recv_seq(b), 3);
	soft_ring_unmap(&evil);
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	fabric_end();
}

typedef struct {
	soft_fabric_port_t *port;
	long expect;
	long got;
	boolean_t in_order;
} drain_t;

static void *drain_thread(void *arg)
{
	drain_t *d = (drain_t *)arg;

	d->in_order = TRUE;
	while (d->got < d->expect) {
		long seq = recv_seq(d->port);

		if (seq < 0)
			break;
		if (seq != d->got)
			d->in_order = FALSE;
		d->got++;
	}
	return NULL;
}

/* A receiver that reads while the sender sends more than a socket queue held: nothing is lost. */
static void test_backpressure_lossless(void)
{
	soft_fabric_port_t *a, *b;
	drain_t d;
	pthread_t th;
	long i, n = 20 * dgram_qlen();

	fabric_begin();
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	d.port = b;
	d.expect = n;
	d.got = 0;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, drain_thread, &d), 0);
	for (i = 0; i < n; i++)
		send_seq(a, 2, (uint32_t)i);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(d.got, n);
	CU_ASSERT_TRUE(d.in_order);
	CU_ASSERT_EQUAL(stats_of(a).delivered, (uint64_t)n);
	CU_ASSERT_EQUAL(stats_of(a).drop_busy, 0);
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	fabric_end();
}

#define N_THREADS 4
#define PER_THREAD 8 /* below the socket queue limit: nobody ever waits */

typedef struct {
	pthread_barrier_t *barrier;
	unsigned idx;
	uint16_t *lids;
	soft_fabric_port_t *port;
	int received;
	int send_failures;
	ib_api_status_t open_status;
} peer_t;

static void *peer_thread(void *arg)
{
	peer_t *p = (peer_t *)arg;
	int i;

	p->open_status = soft_fabric_port_open(GUID(100 + p->idx), NODE(100), 1, &p->port);
	p->lids[p->idx] = p->open_status == IB_SUCCESS ? soft_fabric_port_lid(p->port) : 0;
	pthread_barrier_wait(p->barrier);
	if (p->open_status == IB_SUCCESS) {
		uint8_t b[256];
		size_t len;

		for (i = 0; i < PER_THREAD; i++) {
			len = make_pkt(b, p->lids[(p->idx + 1) % N_THREADS], p->lids[p->idx],
				       OP_UD_SEND_ONLY, (uint32_t)i, 16);
			if (soft_fabric_send(p->port, b, len) != IB_SUCCESS)
				p->send_failures++;
		}
		for (i = 0; i < PER_THREAD; i++)
			if (recv_seq(p->port) == i)
				p->received++;
	}
	pthread_barrier_wait(p->barrier);
	soft_fabric_port_close(p->port);
	return NULL;
}

static void test_threads(void)
{
	pthread_barrier_t barrier;
	pthread_t th[N_THREADS];
	peer_t peers[N_THREADS];
	uint16_t lids[N_THREADS];
	unsigned i, j;

	fabric_begin();
	pthread_barrier_init(&barrier, NULL, N_THREADS);
	for (i = 0; i < N_THREADS; i++) {
		memset(&peers[i], 0, sizeof(peers[i]));
		peers[i].barrier = &barrier;
		peers[i].idx = i;
		peers[i].lids = lids;
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, peer_thread, &peers[i]), 0);
	}
	for (i = 0; i < N_THREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&barrier);
	for (i = 0; i < N_THREADS; i++) {
		CU_ASSERT_EQUAL(peers[i].open_status, IB_SUCCESS);
		CU_ASSERT_EQUAL(peers[i].received, PER_THREAD);
		CU_ASSERT_EQUAL(peers[i].send_failures, 0);
		CU_ASSERT_TRUE(lids[i] >= 1 && lids[i] <= N_THREADS);
		for (j = 0; j < i; j++)
			CU_ASSERT_NOT_EQUAL(lids[i], lids[j]);
	}
	fabric_end();
}

/* A thread that sends to one LID, as fast as it can, until told to stop. */
typedef struct churn_sender {
	soft_fabric_port_t *port;
	uint16_t dlid;
	int stop;
	unsigned long failures;
} churn_sender_t;

static void *churn_send_thread(void *arg)
{
	churn_sender_t *c = (churn_sender_t *)arg;
	uint32_t seq = 0;
	uint8_t b[256];
	size_t len;

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		len = make_pkt(b, c->dlid, soft_fabric_port_lid(c->port), OP_UD_SEND_ONLY, seq++, 16);
		if (soft_fabric_send(c->port, b, len) != IB_SUCCESS)
			c->failures++;
	}
	return NULL;
}

/* Mappings of ring files of this test's fabric directory in this process. */
static unsigned ring_mappings(void)
{
	char line[PATH_MAX + 256], needle[PATH_MAX];
	unsigned n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return UINT_MAX;
	snprintf(needle, sizeof(needle), "%s/ring-", fab_dir);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, needle))
			n++;
	fclose(f);
	return n;
}

/*
 * Senders look their peers up without a lock or a reference: a thread keeps
 * sending to a LID while its holder closes and another port takes the LID,
 * again and again. Every holder receives, nothing crashes, and the rings of
 * the holders gone are no longer mapped (their files' pages released).
 */
static void test_peer_replaced_while_sending(void)
{
	enum { ROUNDS = 40 };
	churn_sender_t c;
	soft_fabric_port_t *tx, *rx;
	pthread_t th;
	unsigned i, got = 0;
	uint16_t lid;

	fabric_begin();
	tx = open_port(1);
	rx = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rx);
	lid = soft_fabric_port_lid(rx);
	memset(&c, 0, sizeof(c));
	c.port = tx;
	c.dlid = lid;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, churn_send_thread, &c), 0);
	for (i = 0; i < ROUNDS && rx; i++) {
		if (recv_seq(rx) >= 0)
			got++;
		soft_fabric_port_close(rx);
		rx = NULL;
		CU_ASSERT_EQUAL(soft_fabric_port_open_at(GUID(10 + i), NODE(10 + i), 1, lid, &rx),
				IB_SUCCESS);
	}
	if (rx && recv_seq(rx) >= 0)
		got++;
	__atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(got, ROUNDS + 1);
	CU_ASSERT_EQUAL(c.failures, 0);
	/* tx's own ring and rx's (which tx's view of it shares). */
	CU_ASSERT_EQUAL(ring_mappings(), 2);
	soft_fabric_port_close(tx);
	if (rx)
		soft_fabric_port_close(rx);
	fabric_end();
}

/* ------------------------------------------------------------------------ */
/* Processes                                                                 */
/* ------------------------------------------------------------------------ */

/* Reads exactly n bytes from fd, waiting at most WAIT_MS; 0 on success. */
static int read_pipe(int fd, void *buf, size_t n)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t end = test_now_ms() + WAIT_MS;
	size_t done = 0;

	while (done < n) {
		uint64_t now = test_now_ms();
		ssize_t r;

		if (now >= end || poll(&pfd, 1, (int)(end - now)) <= 0)
			return -1;
		r = read(fd, (char *)buf + done, n - done);
		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

/*
 * The child: opens port GUID(child_guid), reports its LID, answers one packet
 * from the parent with sequence +1, reports that, and waits to be killed.
 * Exit codes name the step that failed.
 */
static void child_main(int to_parent, int from_parent, unsigned child_guid, boolean_t answer)
{
	soft_fabric_port_t *port;
	uint16_t lid;
	long seq;
	char c;

	if (soft_fabric_port_open(GUID(child_guid), NODE(child_guid), 1, &port) != IB_SUCCESS)
		_exit(10);
	lid = soft_fabric_port_lid(port);
	if (write(to_parent, &lid, sizeof(lid)) != sizeof(lid))
		_exit(11);
	if (answer) {
		uint8_t b[SOFT_FABRIC_MAX_PACKET];
		size_t len;

		if (wait_recv(port, b, sizeof(b), &len, WAIT_MS) != IB_SUCCESS)
			_exit(12);
		seq = (long)pkt_seq(b);
		send_seq(port, get16(b + 6), (uint32_t)seq + 1);
		/* Asleep on its socket from now on: the next sender rings it. */
		if (soft_fabric_recv(port, b, sizeof(b), &len) != IB_NOT_FOUND)
			_exit(14);
		c = 'R';
		if (write(to_parent, &c, 1) != 1)
			_exit(13);
	}
	/* Killed here; the bounded wait keeps a lost parent from leaving us behind. */
	read_pipe(from_parent, &c, 1);
	_exit(0);
}

static pid_t spawn_child(unsigned child_guid, boolean_t answer, int *p_to_child, int *p_from_child)
{
	int up[2], down[2];
	pid_t pid;

	if (pipe(up) < 0 || pipe(down) < 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		child_main(up[1], down[0], child_guid, answer);
	}
	close(up[1]);
	close(down[0]);
	*p_to_child = down[1];
	*p_from_child = up[0];
	return pid;
}

/*
 * A peer that stops draining its ring, and one whose process is killed, hold
 * nobody up: packets to them are dropped and counted at once (the senders
 * never wait), and traffic between other ports goes on, every packet
 * delivered in order. The dead one's record is reclaimed once a full ring
 * makes a sender look (at most every 100 ms).
 */
static void test_stuck_and_dead_peers(void)
{
	soft_fabric_port_t *a, *b, *c;
	soft_fabric_port_info_t info;
	soft_fabric_stats_t s;
	long i, n = SOFT_RING_BYTES / SOFT_RING_ALIGN + 100, got = 0;
	int to_child, from_child, status;
	uint16_t dead_lid = 0;
	uint64_t end;
	pid_t pid;

	fabric_begin();
	a = open_port(1);
	b = open_port(2); /* never drained */
	c = open_port(3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	pid = spawn_child(4, FALSE, &to_child, &from_child);
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL_FATAL(read_pipe(from_child, &dead_lid, sizeof(dead_lid)), 0);
	CU_ASSERT_EQUAL(kill(pid, SIGKILL), 0);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	/* Each round: one packet to the stuck port, one to the dead one, one to c. */
	for (i = 0; i < n; i++) {
		send_seq(a, 2, (uint32_t)i);
		send_seq(a, dead_lid, (uint32_t)i);
		send_seq(a, 3, (uint32_t)i);
		if (recv_seq(c) == i)
			got++;
	}
	CU_ASSERT_EQUAL(got, n);
	s = stats_of(a);
	CU_ASSERT_TRUE(s.drop_busy > 0); /* the stuck port's ring filled */
	CU_ASSERT_TRUE(s.drop_busy + s.drop_dead + s.drop_unknown > (uint64_t)n / 2);
	/* The dead port goes from the registry once a sender has looked. */
	end = test_now_ms() + WAIT_MS;
	while (soft_fabric_port_by_lid(a, dead_lid, &info) == IB_SUCCESS && test_now_ms() < end)
		send_seq(a, dead_lid, 0); /* each full ring is a reason to look (100 ms apart) */
	CU_ASSERT_EQUAL(soft_fabric_port_by_lid(a, dead_lid, &info), IB_NOT_FOUND);
	/* The stuck port is still there, and gets packets again once it drains. */
	CU_ASSERT_EQUAL(soft_fabric_port_by_lid(a, 2, &info), IB_SUCCESS);
	for (i = 0; !nothing_waiting(b); i++)
		;
	CU_ASSERT_TRUE(i > 0);
	send_seq(a, 2, 7);
	CU_ASSERT_EQUAL(recv_seq(b), 7);
	close(to_child);
	close(from_child);
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	soft_fabric_port_close(c);
	fabric_end();
}

static void test_two_processes(void)
{
	soft_fabric_port_t *a, *c;
	soft_fabric_port_info_t info;
	soft_fabric_stats_t s;
	int to_child, from_child, status;
	uint16_t child_lid = 0;
	siginfo_t si;
	size_t n = 0;
	pid_t pid;
	char ack = 0;

	fabric_begin();
	a = open_port(1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	pid = spawn_child(2, TRUE, &to_child, &from_child);
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(read_pipe(from_child, &child_lid, sizeof(child_lid)), 0);
	CU_ASSERT_EQUAL(child_lid, 2);
	/* The registry is shared: the child's port is visible here. */
	CU_ASSERT_EQUAL(soft_fabric_port_by_lid(a, child_lid, &info), IB_SUCCESS);
	CU_ASSERT_EQUAL(info.owner_pid, pid);
	CU_ASSERT_EQUAL(info.port_guid, GUID(2));
	CU_ASSERT_EQUAL(soft_fabric_port_list(a, NULL, 0, &n), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(n, 2);
	/* Exchange. */
	send_seq(a, child_lid, 41);
	CU_ASSERT_EQUAL(recv_seq(a), 42);
	CU_ASSERT_EQUAL(read_pipe(from_child, &ack, 1), 0);
	CU_ASSERT_EQUAL(ack, 'R');
	/* Kill it; keep it a zombie for now (a PID that exists, a closed socket). */
	CU_ASSERT_EQUAL(kill(pid, SIGKILL), 0);
	memset(&si, 0, sizeof(si));
	CU_ASSERT_EQUAL(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	send_seq(a, child_lid, 43); /* refused: counted dead, record reclaimed */
	send_seq(a, child_lid, 44); /* its socket file is gone now: unknown */
	s = stats_of(a);
	CU_ASSERT_EQUAL(s.drop_dead, 1);
	CU_ASSERT_EQUAL(s.drop_unknown, 1);
	CU_ASSERT_EQUAL(s.delivered, 1);
	CU_ASSERT_FALSE(sock_file_exists(child_lid));
	CU_ASSERT_EQUAL(soft_fabric_port_by_lid(a, child_lid, &info), IB_NOT_FOUND);
	CU_ASSERT_EQUAL(soft_fabric_port_list(a, NULL, 0, &n), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* The child's LID goes to the next port. */
	c = open_port(3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(soft_fabric_port_lid(c), child_lid);
	send_seq(a, child_lid, 45);
	CU_ASSERT_EQUAL(recv_seq(c), 45);
	close(to_child);
	close(from_child);
	soft_fabric_port_close(c);
	soft_fabric_port_close(a);
	fabric_end();
}

#define N_CHILDREN 4
#define PORTS_PER_CHILD 3

/* Processes opening ports at the same time get distinct LIDs. */
static void test_concurrent_processes(void)
{
	uint16_t lids[N_CHILDREN * PORTS_PER_CHILD];
	int up[N_CHILDREN], down[N_CHILDREN], i, j, k, status;
	soft_fabric_port_t *a;
	pid_t pid[N_CHILDREN];
	size_t n = 0;

	fabric_begin();
	a = open_port(1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	fflush(stdout);
	for (i = 0; i < N_CHILDREN; i++) {
		int u[2], d[2];

		CU_ASSERT_FATAL(pipe(u) == 0 && pipe(d) == 0);
		pid[i] = fork();
		if (pid[i] == 0) {
			soft_fabric_port_t *p[PORTS_PER_CHILD];
			uint16_t l[PORTS_PER_CHILD];
			char c;

			close(u[0]);
			close(d[1]);
			for (k = 0; k < PORTS_PER_CHILD; k++) {
				if (soft_fabric_port_open(GUID(1000 + (unsigned)(i * 10 + k)), NODE(i), 1,
							  &p[k]) != IB_SUCCESS)
					_exit(30);
				l[k] = soft_fabric_port_lid(p[k]);
			}
			if (write(u[1], l, sizeof(l)) != (ssize_t)sizeof(l))
				_exit(31);
			read_pipe(d[0], &c, 1); /* until the parent is done looking */
			for (k = 0; k < PORTS_PER_CHILD; k++)
				soft_fabric_port_close(p[k]);
			_exit(0);
		}
		CU_ASSERT_FATAL(pid[i] > 0);
		close(u[1]);
		close(d[0]);
		up[i] = u[0];
		down[i] = d[1];
	}
	for (i = 0; i < N_CHILDREN; i++)
		CU_ASSERT_EQUAL(read_pipe(up[i], &lids[i * PORTS_PER_CHILD],
					  PORTS_PER_CHILD * sizeof(uint16_t)), 0);
	for (i = 0; i < N_CHILDREN * PORTS_PER_CHILD; i++) {
		CU_ASSERT_TRUE(lids[i] >= 2 && lids[i] <= 1 + N_CHILDREN * PORTS_PER_CHILD);
		for (j = 0; j < i; j++)
			CU_ASSERT_NOT_EQUAL(lids[i], lids[j]);
	}
	CU_ASSERT_EQUAL(soft_fabric_port_list(a, NULL, 0, &n), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(n, 1 + N_CHILDREN * PORTS_PER_CHILD);
	for (i = 0; i < N_CHILDREN; i++) {
		CU_ASSERT_EQUAL(write(down[i], "x", 1), 1);
		CU_ASSERT_EQUAL(waitpid(pid[i], &status, 0), pid[i]);
		CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		close(up[i]);
		close(down[i]);
	}
	/* They deregistered on close. */
	CU_ASSERT_EQUAL(soft_fabric_port_list(a, NULL, 0, &n), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(n, 1);
	soft_fabric_port_close(a);
	fabric_end();
}

/* A forked child closing a port it inherited leaves the parent's port alone. */
static void test_fork_inherited_port(void)
{
	soft_fabric_port_t *a, *c;
	soft_fabric_port_info_t info;
	int status;
	pid_t pid;

	fabric_begin();
	a = open_port(1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		soft_fabric_port_close(a);
		/* The child's own port is another registration. */
		if (soft_fabric_port_open(GUID(2), NODE(2), 1, &c) != IB_SUCCESS)
			_exit(20);
		if (soft_fabric_port_lid(c) != 2)
			_exit(21);
		soft_fabric_port_close(c);
		_exit(0);
	}
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_EQUAL(soft_fabric_port_by_lid(a, 1, &info), IB_SUCCESS);
	CU_ASSERT_EQUAL(info.owner_pid, getpid());
	CU_ASSERT_EQUAL(soft_fabric_port_by_lid(a, 2, &info), IB_NOT_FOUND);
	send_seq(a, 1, 5);
	CU_ASSERT_EQUAL(recv_seq(a), 5);
	soft_fabric_port_close(a);
	fabric_end();
}

/* Dead holders found by an open: the lowest dead LID is reused, a returning GUID gets its own. */
static void test_dead_process_reclaimed_on_open(void)
{
	soft_fabric_port_t *a, *b, *x, *y;
	int to_child[2], from_child[2], i, status;
	uint16_t lid[2] = { 0, 0 };
	pid_t pid[2];

	fabric_begin();
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	for (i = 0; i < 2; i++) {
		pid[i] = spawn_child(10 + (unsigned)i, FALSE, &to_child[i], &from_child[i]);
		CU_ASSERT_FATAL(pid[i] > 0);
		CU_ASSERT_EQUAL(read_pipe(from_child[i], &lid[i], sizeof(lid[i])), 0);
	}
	CU_ASSERT_EQUAL(lid[0], 3);
	CU_ASSERT_EQUAL(lid[1], 4);
	for (i = 0; i < 2; i++) {
		kill(pid[i], SIGKILL);
		CU_ASSERT_EQUAL(waitpid(pid[i], &status, 0), pid[i]);
		close(to_child[i]);
		close(from_child[i]);
	}
	soft_fabric_port_close(b); /* LID 2 free; 3 and 4 held by the dead */
	/* The second child's GUID comes back: it gets LID 4 again, not 2. */
	x = open_port(11);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_EQUAL(soft_fabric_port_lid(x), lid[1]);
	y = open_port(20);
	CU_ASSERT_PTR_NOT_NULL_FATAL(y);
	CU_ASSERT_EQUAL(soft_fabric_port_lid(y), 2);
	soft_fabric_port_close(y);
	y = open_port(21);
	CU_ASSERT_PTR_NOT_NULL_FATAL(y);
	CU_ASSERT_EQUAL(soft_fabric_port_lid(y), 2);
	/* With 2 taken and 4 freed, the next is 3, from the first dead child. */
	soft_fabric_port_close(x);
	x = open_port(22);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_EQUAL(soft_fabric_port_lid(x), lid[0]);
	soft_fabric_port_close(x);
	soft_fabric_port_close(y);
	soft_fabric_port_close(a);
	fabric_end();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_open_params),
	TEST_ENTRY(test_unusable_directories),
	TEST_ENTRY(test_untrusted_directories),
	TEST_ENTRY(test_registry_full_disk),
	TEST_ENTRY(test_lids_unique_and_stable),
	TEST_ENTRY(test_lookups),
	TEST_ENTRY(test_stale_socket_reclaimed),
	TEST_ENTRY(test_default_directory),
	TEST_ENTRY(test_directories_isolate),
	TEST_ENTRY(test_unicast_exchange),
	TEST_ENTRY(test_bad_sends_and_unknown_lids),
	TEST_ENTRY(test_send_to),
	TEST_ENTRY(test_recv_edges),
	TEST_ENTRY(test_multicast),
	TEST_ENTRY(test_multicast_limit),
	TEST_ENTRY(test_full_receiver_drops),
	TEST_ENTRY(test_full_receiver_holds),
	TEST_ENTRY(test_backpressure_lossless),
	TEST_ENTRY(test_ring_bad_length),
	TEST_ENTRY(test_ring_peek),
	TEST_ENTRY(test_ring_resident),
	TEST_ENTRY(test_ring_abandoned_claim),
	TEST_ENTRY(test_ring_bogus_indexes),
	TEST_ENTRY(test_threads),
	TEST_ENTRY(test_peer_replaced_while_sending),
	TEST_ENTRY(test_two_processes),
	TEST_ENTRY(test_stuck_and_dead_peers),
	TEST_ENTRY(test_concurrent_processes),
	TEST_ENTRY(test_fork_inherited_port),
	TEST_ENTRY(test_dead_process_reclaimed_on_open),
};

TEST_MAIN("soft fabric", tests)
