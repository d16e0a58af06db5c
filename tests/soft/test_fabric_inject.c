/*
 * ibal tests: the soft fabric's loss and delay injection, drop filters,
 * packet capture (pcap, decoded by tshark when it is on PATH) and the
 * inspector's view of a running fabric. The helpers are fabric_test.[ch].
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Every test runs in a fabric directory of its own (mkdtemp, named by
 * IBAL_SOFT_FABRIC), so test programs may run in parallel.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
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
#include "fabric_test.h"

/* ------------------------------------------------------------------------ */
/* Injection                                                                 */
/* ------------------------------------------------------------------------ */

static void test_drop_all(void)
{
	soft_fabric_port_t *a, *b;
	soft_fabric_stats_t s;
	int i;

	fabric_begin();
	setenv(SOFT_FABRIC_ENV_DROP_PCT, "100", 1);
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	for (i = 0; i < 20; i++)
		send_seq(a, 2, (uint32_t)i);
	send_seq(a, MLID, 20);
	CU_ASSERT_TRUE(nothing_waiting(b));
	s = stats_of(a);
	CU_ASSERT_EQUAL(s.tx_packets, 21);
	CU_ASSERT_EQUAL(s.drop_injected, 21);
	CU_ASSERT_EQUAL(s.delivered, 0);
	CU_ASSERT_EQUAL(s.drop_unknown, 0);
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	fabric_end();
}

#define PCT_PKTS 400

/* Sends PCT_PKTS packets under IBAL_SOFT_DROP_PCT=50 and records which arrived. */
static int drop_pattern(const char *seed, uint8_t *arrived)
{
	uint8_t buf[SOFT_FABRIC_MAX_PACKET];
	soft_fabric_port_t *a, *b;
	soft_fabric_stats_t s;
	size_t len;
	uint32_t seq;
	int i;

	fabric_begin();
	setenv(SOFT_FABRIC_ENV_DROP_PCT, "50", 1);
	if (seed)
		setenv(SOFT_FABRIC_ENV_SEED, seed, 1);
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	memset(arrived, 0, PCT_PKTS);
	for (i = 0; i < PCT_PKTS; i++) {
		send_seq(a, 2, (uint32_t)i);
		/* Delivery is synchronous: a packet not dropped is there now. */
		if (soft_fabric_recv(b, buf, sizeof(buf), &len) != IB_SUCCESS)
			continue;
		seq = pkt_seq(buf);
		CU_ASSERT_EQUAL(seq, (uint32_t)i);
		if (seq < PCT_PKTS)
			arrived[seq] = 1;
	}
	s = stats_of(a);
	CU_ASSERT_EQUAL(s.drop_injected + s.delivered, PCT_PKTS);
	CU_ASSERT_EQUAL(stats_of(b).rx_packets, s.delivered);
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	fabric_end();
	return (int)s.delivered;
}

static void test_drop_pct_reproducible(void)
{
	static uint8_t p1[PCT_PKTS], p2[PCT_PKTS], p3[PCT_PKTS];
	int n1, n2, n3, i, count = 0;

	n1 = drop_pattern(NULL, p1);
	n2 = drop_pattern(NULL, p2);
	n3 = drop_pattern("12345", p3);
	/* About half arrive (the bounds are 6 standard deviations wide). */
	CU_ASSERT_TRUE(n1 > PCT_PKTS / 2 - 60 && n1 < PCT_PKTS / 2 + 60);
	for (i = 0; i < PCT_PKTS; i++)
		count += p1[i];
	CU_ASSERT_EQUAL(count, n1);
	/* The same seed drops the same packets; another seed others. */
	CU_ASSERT_EQUAL(n1, n2);
	CU_ASSERT_EQUAL(memcmp(p1, p2, PCT_PKTS), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(p1, p3, PCT_PKTS), 0);
	(void)n3;
}

typedef struct {
	uint8_t opcode;
	int nth;
	int seen;
	int calls;
} nth_filter_t;

/* Drops the nth packet (1-based) with the given BTH opcode. */
static boolean_t drop_nth(void *context, const void *pkt, size_t len)
{
	nth_filter_t *f = (nth_filter_t *)context;
	const uint8_t *b = (const uint8_t *)pkt;

	f->calls++;
	if (len < 9 || b[8] != f->opcode)
		return FALSE;
	return ++f->seen == f->nth;
}

static void test_drop_filter(void)
{
	soft_fabric_port_t *a, *b;
	nth_filter_t f = { OP_RC_SEND_ONLY, 3, 0, 0 };
	uint8_t pkt[128];
	size_t len;
	int i;

	fabric_begin();
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	soft_fabric_set_drop_filter(drop_nth, &f);
	/* Alternate two kinds; seq 0..9; RC ones are the odd seqs: the third is 5. */
	for (i = 0; i < 10; i++) {
		len = make_pkt(pkt, 2, 1, (i & 1) ? OP_RC_SEND_ONLY : OP_UD_SEND_ONLY,
			       (uint32_t)i, 8);
		CU_ASSERT_EQUAL(soft_fabric_send(a, pkt, len), IB_SUCCESS);
	}
	soft_fabric_set_drop_filter(NULL, NULL);
	send_seq(a, 2, 10);
	CU_ASSERT_EQUAL(f.calls, 10);
	for (i = 0; i <= 10; i++)
		if (i != 5)
			CU_ASSERT_EQUAL(recv_seq(b), i);
	CU_ASSERT_TRUE(nothing_waiting(b));
	CU_ASSERT_EQUAL(stats_of(a).drop_injected, 1);
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	fabric_end();
}

static void test_delay(void)
{
	soft_fabric_port_t *a, *b;
	const uint64_t delay_ms = 50;
	boolean_t closed_in_time;
	uint64_t t0;
	long seq;
	int i;

	fabric_begin();
	setenv(SOFT_FABRIC_ENV_DELAY_US, "50000", 1);
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	t0 = test_now_ms();
	for (i = 0; i < 6; i++)
		send_seq(a, 2, (uint32_t)i);
	/* They arrive, in order, and not before their time. */
	for (i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(recv_seq(b), i);
	CU_ASSERT_TRUE(test_now_ms() - t0 >= delay_ms);
	/* The timer thread counts a packet after sending it: the 6th may not be counted yet. */
	CU_ASSERT_TRUE(stats_of(a).delivered >= 5 && stats_of(a).delivered <= 6);
	/* Packets still delayed when their port closes are discarded. */
	t0 = test_now_ms();
	for (i = 0; i < 3; i++)
		send_seq(a, 2, 100 + (uint32_t)i);
	soft_fabric_port_close(a);
	closed_in_time = test_now_ms() - t0 < delay_ms;
	a = open_port(1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	send_seq(a, 2, 200);
	do
		seq = recv_seq(b);
	while (!closed_in_time && seq >= 100 && seq < 103); /* a slow run may have sent some */
	CU_ASSERT_EQUAL(seq, 200);
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	fabric_end();
}

/* ------------------------------------------------------------------------ */
/* Capture                                                                   */
/* ------------------------------------------------------------------------ */

static void test_pcap_expand_path(void)
{
	char out[64];

	CU_ASSERT_EQUAL(soft_pcap_expand_path("/x/cap-%p.pcap", 1234, out, sizeof(out)), IB_SUCCESS);
	CU_ASSERT_STRING_EQUAL(out, "/x/cap-1234.pcap");
	CU_ASSERT_EQUAL(soft_pcap_expand_path("a%%p%p%", 7, out, sizeof(out)), IB_SUCCESS);
	CU_ASSERT_STRING_EQUAL(out, "a%p7%");
	CU_ASSERT_EQUAL(soft_pcap_expand_path("%p%p", 123456, out, 12), IB_OVERFLOW);
	CU_ASSERT_EQUAL(soft_pcap_expand_path("%p%p", 123456, out, 13), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_pcap_expand_path(NULL, 1, out, sizeof(out)), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_pcap_expand_path("x", 1, out, 0), IB_INVALID_PARAMETER);
}

typedef struct {
	uint32_t linktype;
	int records;
	int dropped;    /* ERF records with the RX error flag */
	uint16_t dlid[16];
	uint32_t seq[16];
} pcap_summary_t;

/* Parses a capture written by soft_pcap; -1 if it is malformed. */
static int read_capture(const char *path, pcap_summary_t *sum)
{
	uint8_t buf[SOFT_FABRIC_MAX_PACKET + 64];
	uint32_t hdr[6], rec[4];
	FILE *f = fopen(path, "rb");
	int rc = 0;

	memset(sum, 0, sizeof(*sum));
	if (!f)
		return -1;
	if (fread(hdr, 4, 6, f) != 6 || hdr[0] != 0xA1B23C4Du || hdr[5] == 0) {
		fclose(f);
		return -1;
	}
	sum->linktype = hdr[5];
	while (fread(rec, 4, 4, f) == 4) {
		const uint8_t *pkt = buf;

		if (rec[2] != rec[3] || rec[2] > sizeof(buf) || rec[1] >= 1000000000u ||
		    fread(buf, 1, rec[2], f) != rec[2]) {
			rc = -1;
			break;
		}
		if (sum->linktype == SOFT_PCAP_LINKTYPE_ERF) {
			/* type 21, varlen, rlen = record length, wlen = packet length */
			if (buf[8] != 21 || !(buf[9] & 0x04) || get16(buf + 10) != rec[2] ||
			    get16(buf + 14) != rec[2] - 16) {
				rc = -1;
				break;
			}
			if (buf[9] & 0x10)
				sum->dropped++;
			pkt = buf + 16;
		}
		if (sum->records < 16) {
			sum->dlid[sum->records] = get16(pkt + 2);
			sum->seq[sum->records] = pkt_seq(pkt);
		}
		sum->records++;
	}
	fclose(f);
	return rc;
}

static int on_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);

		if (n && n + strlen(name) + 2 <= sizeof(buf)) {
			memcpy(buf, path, n);
			buf[n] = '/';
			strcpy(buf + n + 1, name);
			if (access(buf, X_OK) == 0)
				return 1;
		}
		path = colon ? colon + 1 : NULL;
	}
	return 0;
}

/* tshark's view: one line per frame, "<rxe flag>\t<dlid>"; returns the frame count. */
static int tshark_frames(const char *path, int *p_rxe, uint16_t *dlids, int max)
{
	char cmd[1024], line[256];
	int frames = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "tshark -n -r '%s' -T fields -e erf.flags.rxe -e infiniband.lrh.dlid 2>/dev/null",
		 path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	*p_rxe = 0;
	while (fgets(line, sizeof(line), p)) {
		char *tab = strchr(line, '\t');

		if (line[0] == '1')
			(*p_rxe)++;
		if (tab && frames < max)
			dlids[frames] = (uint16_t)strtoul(tab + 1, NULL, 0);
		frames++;
	}
	if (pclose(p) != 0)
		return -1;
	return frames;
}

static void test_pcap_capture(void)
{
	soft_fabric_port_t *a, *b;
	nth_filter_t f = { OP_UD_SEND_ONLY, 2, 0, 0 };
	char tmpl[512], path[512];
	pcap_summary_t sum;
	uint16_t dlids[8];
	int i, rxe = 0;

	fabric_begin();
	snprintf(tmpl, sizeof(tmpl), "%s/cap-%%p.pcap", fab_dir);
	snprintf(path, sizeof(path), "%s/cap-%ld.pcap", fab_dir, (long)getpid());
	setenv(SOFT_FABRIC_ENV_PCAP, tmpl, 1);
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	soft_fabric_set_drop_filter(drop_nth, &f);
	for (i = 0; i < 4; i++)
		send_seq(a, 2, (uint32_t)i); /* the second is dropped */
	soft_fabric_set_drop_filter(NULL, NULL);
	send_seq(b, 1, 4);
	send_seq(b, 0x77, 5); /* unknown LID: on the wire all the same */
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	/* Six records, the injected drop flagged, in sending order. */
	CU_ASSERT_EQUAL_FATAL(read_capture(path, &sum), 0);
	CU_ASSERT_EQUAL(sum.linktype, SOFT_PCAP_LINKTYPE_ERF);
	CU_ASSERT_EQUAL(sum.records, 6);
	CU_ASSERT_EQUAL(sum.dropped, 1);
	for (i = 0; i < 6 && i < sum.records; i++)
		CU_ASSERT_EQUAL(sum.seq[i], (uint32_t)i);
	CU_ASSERT_EQUAL(sum.dlid[4], 1);
	CU_ASSERT_EQUAL(sum.dlid[5], 0x77);
	if (on_path("tshark")) {
		CU_ASSERT_EQUAL(tshark_frames(path, &rxe, dlids, 8), 6);
		CU_ASSERT_EQUAL(rxe, 1);
		CU_ASSERT_EQUAL(dlids[0], 2);
		CU_ASSERT_EQUAL(dlids[5], 0x77);
	} else {
		printf("(tshark not on PATH: capture not decoded) ");
	}
	/* Reopening appends to the same file, behind one header. */
	a = open_port(1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	send_seq(a, 1, 6);
	soft_fabric_port_close(a);
	CU_ASSERT_EQUAL(read_capture(path, &sum), 0);
	CU_ASSERT_EQUAL(sum.records, 7);
	fabric_end();
}

/* A packet sent without CRCs says so to its receiver, unless it is captured:
 * then it is captured, and delivered, with its CRCs computed. */
/*
 * A capture cut short by a full file system (here a file size limit, with
 * SIGXFSZ ignored, in a child): the process goes on sending, the capture
 * keeps whole records only (a torn one would garble the rest) and stops.
 */
static void test_pcap_cut_short(void)
{
	char tmpl[512], path[512];
	pcap_summary_t sum;
	soft_fabric_port_t *a;
	int status = -1;
	pid_t pid;

	fabric_begin();
	a = open_port(1);   /* the registry exists before the limit */
	soft_fabric_port_close(a);
	snprintf(tmpl, sizeof(tmpl), "%s/cut-%%p.pcap", fab_dir);
	setenv(SOFT_FABRIC_ENV_PCAP, tmpl, 1);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (!pid) {
		struct rlimit rl = { 600, 600 };
		uint8_t b[256];
		size_t len;
		int i;

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
			_exit(2);
		if (soft_fabric_port_open(GUID(1), NODE(1), 1, &a) != IB_SUCCESS)
			_exit(3);
		for (i = 0; i < 20; i++) {
			len = make_pkt(b, 2, soft_fabric_port_lid(a), OP_UD_SEND_ONLY, (uint32_t)i, 16);
			if (soft_fabric_send(a, b, len) != IB_SUCCESS)
				_exit(4);
		}
		soft_fabric_port_close(a);
		_exit(0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	snprintf(path, sizeof(path), "%s/cut-%ld.pcap", fab_dir, (long)pid);
	CU_ASSERT_EQUAL(read_capture(path, &sum), 0);
	CU_ASSERT(sum.records > 0 && sum.records < 20);
	unsetenv(SOFT_FABRIC_ENV_PCAP);
	fabric_end();
}

static void test_no_crc_flag(void)
{
	uint8_t pkt[256], got[SOFT_FABRIC_MAX_PACKET];
	soft_fabric_port_t *a, *b;
	soft_pkt_t parsed;
	char path[512];
	size_t len, n = 0;

	fabric_begin();
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	len = make_pkt(pkt, 2, soft_fabric_port_lid(a), OP_UD_SEND_ONLY, 7, 16);
	CU_ASSERT_EQUAL(soft_fabric_send_flags(a, pkt, len, SOFT_FABRIC_NO_CRC), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_recv(b, got, sizeof(got), &n, WAIT_MS), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_fabric_rx_flags(b), SOFT_FABRIC_NO_CRC);
	CU_ASSERT_EQUAL(n, len);
	CU_ASSERT_EQUAL(soft_pkt_parse(got, n, &parsed), SOFT_WIRE_ERR_VCRC);
	CU_ASSERT_EQUAL(soft_pkt_parse_flags(got, n, SOFT_PARSE_NO_CRC, &parsed), SOFT_WIRE_OK);
	send_seq(a, 2, 8);
	CU_ASSERT_EQUAL(recv_seq(b), 8);
	CU_ASSERT_EQUAL(soft_fabric_rx_flags(b), 0);
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	fabric_end();

	fabric_begin();
	snprintf(path, sizeof(path), "%s/cap.pcap", fab_dir);
	setenv(SOFT_FABRIC_ENV_PCAP, path, 1);
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	len = make_pkt(pkt, 2, soft_fabric_port_lid(a), OP_UD_SEND_ONLY, 9, 16);
	CU_ASSERT_EQUAL(soft_fabric_send_flags(a, pkt, len, SOFT_FABRIC_NO_CRC), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_recv(b, got, sizeof(got), &n, WAIT_MS), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_fabric_rx_flags(b), 0);
	CU_ASSERT_EQUAL(soft_pkt_parse(got, n, &parsed), SOFT_WIRE_OK);
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	fabric_end();
}

static void test_pcap_linktype_247(void)
{
	soft_fabric_port_t *a;
	nth_filter_t f = { OP_UD_SEND_ONLY, 1, 0, 0 };
	char path[512];
	pcap_summary_t sum;
	FILE *fp;

	fabric_begin();
	snprintf(path, sizeof(path), "%s/ib.pcap", fab_dir);
	setenv(SOFT_FABRIC_ENV_PCAP, path, 1);
	setenv(SOFT_FABRIC_ENV_PCAP_LINKTYPE, "247", 1);
	a = open_port(1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	soft_fabric_set_drop_filter(drop_nth, &f);
	send_seq(a, 1, 0); /* dropped: not in a 247 capture */
	soft_fabric_set_drop_filter(NULL, NULL);
	send_seq(a, 1, 1);
	send_seq(a, 1, 2);
	soft_fabric_port_close(a);
	CU_ASSERT_EQUAL_FATAL(read_capture(path, &sum), 0);
	CU_ASSERT_EQUAL(sum.linktype, SOFT_PCAP_LINKTYPE_INFINIBAND);
	CU_ASSERT_EQUAL(sum.records, 2);
	CU_ASSERT_EQUAL(sum.seq[0], 1);
	CU_ASSERT_EQUAL(sum.seq[1], 2);
	/* A file of another kind is left alone: the port opens without capture. */
	setenv(SOFT_FABRIC_ENV_PCAP_LINKTYPE, "erf", 1);
	a = open_port(1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	send_seq(a, 1, 3);
	soft_fabric_port_close(a);
	CU_ASSERT_EQUAL(read_capture(path, &sum), 0);
	CU_ASSERT_EQUAL(sum.records, 2);
	/* So is a file that is not a capture at all. */
	fp = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	fputs("not a capture, not a capture", fp);
	fclose(fp);
	a = open_port(1);
	CU_ASSERT_PTR_NOT_NULL(a);
	send_seq(a, 1, 4);
	soft_fabric_port_close(a);
	CU_ASSERT_NOT_EQUAL(read_capture(path, &sum), 0);
	fabric_end();
}

/* ------------------------------------------------------------------------ */
/* The inspector's view (soft_fabric_view.h)                                 */
/* ------------------------------------------------------------------------ */

/* The view lists the ports with their holders and the counters their
 * processes keep, and changes nothing; bad arguments get statuses. */
static void test_view_ports_and_counters(void)
{
	soft_fabric_port_t *a, *b;
	soft_fabric_view_t *v = NULL;
	soft_view_port_t ports[4];
	soft_fabric_stats_t st;
	soft_view_capture_t cap;
	soft_view_sm_t sm;
	char path[1100];
	size_t n = 0;
	int i;

	fabric_begin();
	/* No registry yet: nothing to inspect, and nothing is created. */
	CU_ASSERT_EQUAL(soft_fabric_view_open(NULL, &v), IB_NOT_FOUND);
	CU_ASSERT_EQUAL(soft_fabric_view_open("/nonexistent/ibal-fabric", &v), IB_NOT_FOUND);
	CU_ASSERT_EQUAL(soft_fabric_view_open(NULL, NULL), IB_INVALID_PARAMETER);
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	for (i = 0; i < 5; i++)
		send_seq(a, soft_fabric_port_lid(b), (uint32_t)i);
	CU_ASSERT_EQUAL_FATAL(soft_fabric_view_open(fab_dir, &v), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_fabric_view_ports(v, NULL, 0, &n), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(soft_fabric_view_ports(v, ports, 1, &n), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(soft_fabric_view_ports(v, NULL, 1, &n), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL_FATAL(soft_fabric_view_ports(v, ports, 4, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(ports[0].info.lid, soft_fabric_port_lid(a));
	CU_ASSERT_EQUAL(ports[0].info.port_guid, GUID(1));
	CU_ASSERT_EQUAL(ports[0].info.node_guid, NODE(1));
	CU_ASSERT_EQUAL(ports[0].info.owner_pid, getpid());
	CU_ASSERT_EQUAL(ports[0].flags, SOFT_VIEW_ACTIVE | SOFT_VIEW_LIVE | SOFT_VIEW_RING);
	soft_fabric_port_stats(a, &st);
	CU_ASSERT_EQUAL(st.tx_packets, 5);
	CU_ASSERT_EQUAL(memcmp(&ports[0].stats, &st, sizeof(st)), 0);
	CU_ASSERT_EQUAL(ports[1].info.lid, soft_fabric_port_lid(b));
	CU_ASSERT_EQUAL(ports[1].stats.tx_packets, 0);
	CU_ASSERT(ports[1].ring_used > 0); /* five packets wait at b */
	/* No SM ran here; the capture is off. */
	soft_fabric_view_sm(v, &sm);
	CU_ASSERT_FALSE(sm.running);
	CU_ASSERT_EQUAL(sm.pid, 0);
	soft_fabric_view_capture(v, &cap);
	CU_ASSERT_FALSE(cap.on);
	CU_ASSERT_FALSE(soft_fabric_view_service(v, NULL, 0));
	/* Bad capture requests change nothing. */
	CU_ASSERT_EQUAL(soft_fabric_view_capture_set(v, "x.pcap", 12), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_fabric_view_capture_set(v, "", SOFT_PCAP_LINKTYPE_ERF),
			IB_INVALID_PARAMETER);
	memset(path, 'a', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	CU_ASSERT_EQUAL(soft_fabric_view_capture_set(v, path, SOFT_PCAP_LINKTYPE_ERF), IB_OVERFLOW);
	soft_fabric_view_capture(v, &cap);
	CU_ASSERT_FALSE(cap.on);
	CU_ASSERT_EQUAL(cap.gen, 0);
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	CU_ASSERT_EQUAL(soft_fabric_view_ports(v, ports, 4, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL(n, 0);
	soft_fabric_view_close(v);
	soft_fabric_view_close(NULL);
	fabric_end();
}

typedef struct capture_sender {
	soft_fabric_port_t *port;
	uint16_t dlid;
	int n;
} capture_sender_t;

static void *capture_send_thread(void *arg)
{
	capture_sender_t *c = arg;
	int i;

	for (i = 0; i < c->n; i++)
		send_seq(c->port, c->dlid, (uint32_t)i);
	return NULL;
}

/* A capture started and stopped through the registry: packets sent while it
 * is on are captured, others not; toggled while threads send, the file holds
 * whole records only. */
static void test_view_capture_live(void)
{
	soft_fabric_port_t *a, *b;
	soft_fabric_view_t *v = NULL;
	capture_sender_t snd[2];
	soft_view_capture_t cap;
	pthread_t th[2];
	pcap_summary_t sum;
	char tmpl[512], path[512];
	uint8_t buf[SOFT_FABRIC_MAX_PACKET];
	size_t len;
	int i;

	fabric_begin();
	snprintf(tmpl, sizeof(tmpl), "%s/live-%%p.pcap", fab_dir);
	snprintf(path, sizeof(path), "%s/live-%ld.pcap", fab_dir, (long)getpid());
	a = open_port(1);
	b = open_port(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL_FATAL(soft_fabric_view_open(fab_dir, &v), IB_SUCCESS);
	send_seq(a, soft_fabric_port_lid(b), 100);
	CU_ASSERT_EQUAL(soft_fabric_view_capture_set(v, tmpl, SOFT_PCAP_LINKTYPE_ERF), IB_SUCCESS);
	soft_fabric_view_capture(v, &cap);
	CU_ASSERT(cap.on);
	CU_ASSERT_STRING_EQUAL(cap.path, tmpl);
	CU_ASSERT_EQUAL(cap.linktype, SOFT_PCAP_LINKTYPE_ERF);
	for (i = 0; i < 3; i++)
		send_seq(a, soft_fabric_port_lid(b), (uint32_t)i);
	CU_ASSERT_EQUAL(soft_fabric_view_capture_set(v, NULL, SOFT_PCAP_LINKTYPE_ERF), IB_SUCCESS);
	send_seq(a, soft_fabric_port_lid(b), 101);
	send_seq(b, soft_fabric_port_lid(a), 102);
	CU_ASSERT_EQUAL(soft_fabric_view_capture_set(v, tmpl, SOFT_PCAP_LINKTYPE_ERF), IB_SUCCESS);
	send_seq(b, soft_fabric_port_lid(a), 3);
	CU_ASSERT_EQUAL(soft_fabric_view_capture_set(v, NULL, SOFT_PCAP_LINKTYPE_ERF), IB_SUCCESS);
	send_seq(b, soft_fabric_port_lid(a), 103);
	CU_ASSERT_EQUAL_FATAL(read_capture(path, &sum), 0);
	CU_ASSERT_EQUAL(sum.records, 4);
	for (i = 0; i < 4 && i < sum.records; i++)
		CU_ASSERT_EQUAL(sum.seq[i], (uint32_t)i);
	/* Every packet was delivered whether captured or not. */
	for (i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(wait_recv(b, buf, sizeof(buf), &len, WAIT_MS), IB_SUCCESS);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(wait_recv(a, buf, sizeof(buf), &len, WAIT_MS), IB_SUCCESS);
	/* Toggled while two threads send: whole records, fewer than were sent. */
	snd[0].port = a;
	snd[0].dlid = 0x7777; /* nobody: the ring does not fill */
	snd[0].n = 3000;
	snd[1] = snd[0];
	snd[1].port = b;
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, capture_send_thread, &snd[i]), 0);
	for (i = 0; i < 40; i++)
		soft_fabric_view_capture_set(v, i % 2 ? NULL : tmpl, SOFT_PCAP_LINKTYPE_ERF);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	CU_ASSERT_EQUAL(read_capture(path, &sum), 0);
	CU_ASSERT(sum.records >= 4 && sum.records <= 4 + 6000);
	soft_fabric_view_close(v);
	soft_fabric_port_close(a);
	soft_fabric_port_close(b);
	fabric_end();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_no_crc_flag),
	TEST_ENTRY(test_drop_all),
	TEST_ENTRY(test_drop_pct_reproducible),
	TEST_ENTRY(test_drop_filter),
	TEST_ENTRY(test_delay),
	TEST_ENTRY(test_pcap_expand_path),
	TEST_ENTRY(test_pcap_capture),
	TEST_ENTRY(test_pcap_cut_short),
	TEST_ENTRY(test_pcap_linktype_247),
	TEST_ENTRY(test_view_ports_and_counters),
	TEST_ENTRY(test_view_capture_live),
};

TEST_MAIN("soft fabric injection and capture", tests)
