/*
 * ibal soft provider: ibal_soft_inspect, the soft fabric's inspector.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Shows a running soft fabric from outside, without attaching a port to it
 * (soft_fabric_view.h): its directory, the processes and nodes holding its
 * LIDs, the master SM, the fabric service, each port's counters, and starts
 * or stops the capture of every packet of the running fabric.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "soft_fabric_view.h"
#include "soft_pcap.h"
#include "soft_topo.h"

#define PROG "ibal_soft_inspect"
#define MAX_PORTS 0xC000u

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [options] [show]\n"
		"       " PROG " [options] capture start FILE [--linktype erf|247]\n"
		"       " PROG " [options] capture stop\n"
		"A running soft fabric from outside: its directory, the processes and nodes\n"
		"holding its LIDs, the master SM, the fabric service and the ports' counters;\n"
		"capture start/stop switches the capture of every packet of every process of\n"
		"the fabric on and off (FILE: %%p becomes each process's PID).\n"
		"  -d, --fabric DIR    the fabric directory (default $IBAL_SOFT_FABRIC, else\n"
		"                      /tmp/ibal-soft-<uid>/default)\n"
		"  -c, --counters      each port's counters (packets, bytes, drops by cause)\n"
		"  -j, --json          one JSON object instead of tables\n"
		"  --linktype TYPE     capture start: erf (default, Wireshark) or 247\n"
		"                      (LINKTYPE_INFINIBAND)\n"
		"  -h, --help          this text\n");
}

static int fail_usage(const char *what)
{
	fprintf(stderr, PROG ": %s (try --help)\n", what);
	return 2;
}

typedef struct opts {
	const char *dir;
	int counters, json;
	const char *cmd, *sub, *file;
	uint32_t linktype;
} opts_t;

static int parse(int argc, char **argv, opts_t *o)
{
	int i, n_pos = 0;
	const char *pos[3] = { NULL, NULL, NULL };

	memset(o, 0, sizeof(*o));
	o->linktype = SOFT_PCAP_LINKTYPE_ERF;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "-c") || !strcmp(a, "--counters")) {
			o->counters = 1;
		} else if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			o->json = 1;
		} else if (!strcmp(a, "-d") || !strcmp(a, "--fabric")) {
			if (++i >= argc)
				return fail_usage("--fabric needs a directory");
			o->dir = argv[i];
		} else if (!strcmp(a, "--linktype")) {
			if (++i >= argc)
				return fail_usage("--linktype needs erf or 247");
			if (!strcmp(argv[i], "erf") || !strcmp(argv[i], "197"))
				o->linktype = SOFT_PCAP_LINKTYPE_ERF;
			else if (!strcmp(argv[i], "247") || !strcmp(argv[i], "infiniband"))
				o->linktype = SOFT_PCAP_LINKTYPE_INFINIBAND;
			else
				return fail_usage("--linktype is erf or 247");
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, PROG ": unknown option %s (try --help)\n", a);
			return 2;
		} else if (n_pos < 3) {
			pos[n_pos++] = a;
		} else {
			return fail_usage("too many arguments");
		}
	}
	o->cmd = pos[0] ? pos[0] : "show";
	o->sub = pos[1];
	o->file = pos[2];
	if (!strcmp(o->cmd, "show"))
		return n_pos > 1 ? fail_usage("show takes no argument") : 0;
	if (strcmp(o->cmd, "capture"))
		return fail_usage("the command is show or capture");
	if (o->sub && !strcmp(o->sub, "start"))
		return o->file ? 0 : fail_usage("capture start needs a FILE");
	if (o->sub && !strcmp(o->sub, "stop"))
		return o->file ? fail_usage("capture stop takes no FILE") : 0;
	return fail_usage("capture start FILE or capture stop");
}

/* ---- What the tables and the JSON show ---- */

static void proc_name(int32_t pid, char *out, size_t cap)
{
	char path[64];
	FILE *f;
	size_t n;

	snprintf(out, cap, "-");
	if (pid <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(out, (int)cap, f)) {
		n = strcspn(out, "\n");
		out[n] = '\0';
	}
	fclose(f);
}

static const char *node_name(const soft_topo_t *topo, ib_net64_t node_guid)
{
	unsigned i;

	for (i = 0; topo && i < topo->n_nodes; i++)
		if (topo->node[i].node_guid == node_guid)
			return topo->node[i].name;
	return NULL;
}

static const char *state_of(const soft_view_port_t *p)
{
	if (!(p->flags & SOFT_VIEW_ACTIVE))
		return "reserved";
	return p->flags & SOFT_VIEW_LIVE ? "live" : "gone";
}

static const char *linktype_name(uint32_t lt)
{
	return lt == SOFT_PCAP_LINKTYPE_INFINIBAND ? "247" : "erf";
}

/* Writes s as a JSON string (it comes from files: escape everything odd). */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static const char *const stat_names[] = {
	"tx_packets", "tx_bytes", "delivered", "rx_packets", "rx_bytes", "drop_injected",
	"drop_unknown", "drop_dead", "drop_busy", "drop_error", "rx_truncated", "rx_ring_dropped",
};

static uint64_t stat_at(const soft_fabric_stats_t *st, size_t i)
{
	return ((const uint64_t *)(const void *)st)[i];
}

_Static_assert(sizeof(stat_names) / sizeof(stat_names[0]) ==
		       sizeof(soft_fabric_stats_t) / sizeof(uint64_t),
	       "a name for every counter");

typedef struct fabric_state {
	const char *dir;
	soft_view_sm_t sm;
	boolean_t service;
	char topo_path[4200];
	soft_topo_t *topo; /* the service's topology, when it runs */
	soft_view_capture_t cap;
	soft_view_port_t *ports;
	size_t n_ports;
} fabric_state_t;

static void print_sm_line(const fabric_state_t *s)
{
	char name[64], when[64] = "-";
	time_t t = (time_t)s->sm.since;
	struct tm tm;

	if (!s->sm.running) {
		printf("SM       none running%s\n",
		       s->sm.pid ? " (the last master has stopped)" : "");
		return;
	}
	proc_name(s->sm.pid, name, sizeof(name));
	if (t && localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	printf("SM       master at LID 0x%04x, port GUID 0x%016" PRIx64 ", process %ld (%s), "
	       "priority %u, %" PRIu64 " sweeps, since %s\n",
	       s->sm.lid, (uint64_t)cl_ntoh64(s->sm.guid), (long)s->sm.pid, name, s->sm.priority,
	       s->sm.sweeps, when);
}

static void print_tables(const fabric_state_t *s, int counters)
{
	size_t i, j;

	printf("fabric   %s\n", s->dir);
	print_sm_line(s);
	if (s->service)
		printf("service  running (topology %s, %u nodes)\n", s->topo_path,
		       s->topo ? s->topo->n_nodes : 0);
	else
		printf("service  not running\n");
	if (s->cap.on)
		printf("capture  on: %s (%s)\n", s->cap.path, linktype_name(s->cap.linktype));
	else
		printf("capture  off\n");
	printf("ports    %zu\n\n", s->n_ports);
	if (!s->n_ports)
		return;
	printf("%-6s  %-18s  %-18s  %4s  %7s  %-16s  %-8s  %5s  %9s\n", "LID", "PORT GUID",
	       "NODE GUID", "PORT", "PID", "PROCESS/NODE", "STATE", "MCAST", "RING");
	for (i = 0; i < s->n_ports; i++) {
		const soft_view_port_t *p = &s->ports[i];
		const char *node = node_name(s->topo, p->info.node_guid);
		char name[64], ring[32] = "-";

		proc_name(p->info.owner_pid, name, sizeof(name));
		if (node)
			snprintf(name, sizeof(name), "%s", node);
		if (p->flags & SOFT_VIEW_RING)
			snprintf(ring, sizeof(ring), "%" PRIu64 " B", p->ring_used);
		printf("0x%04x  0x%016" PRIx64 "  0x%016" PRIx64 "  %4u  %7ld  %-16s  %-8s  %5u  %9s\n",
		       p->info.lid, (uint64_t)cl_ntoh64(p->info.port_guid),
		       (uint64_t)cl_ntoh64(p->info.node_guid), p->info.port_num,
		       (long)p->info.owner_pid, name, state_of(p), p->n_mcast, ring);
	}
	if (!counters)
		return;
	printf("\n%-6s", "LID");
	for (j = 0; j < sizeof(stat_names) / sizeof(stat_names[0]); j++)
		printf("  %*s", j == 1 || j == 4 ? 12 : 10, stat_names[j]);
	printf("\n");
	for (i = 0; i < s->n_ports; i++) {
		const soft_view_port_t *p = &s->ports[i];

		printf("0x%04x", p->info.lid);
		for (j = 0; j < sizeof(stat_names) / sizeof(stat_names[0]); j++) {
			if (p->flags & SOFT_VIEW_RING)
				printf("  %*" PRIu64, j == 1 || j == 4 ? 12 : 10, stat_at(&p->stats, j));
			else
				printf("  %*s", j == 1 || j == 4 ? 12 : 10, "-");
		}
		printf("\n");
	}
}

static void print_json(const fabric_state_t *s, int counters)
{
	char name[64];
	size_t i, j;

	printf("{\"fabric\":");
	json_str(s->dir);
	printf(",\"sm\":{\"running\":%s", s->sm.running ? "true" : "false");
	if (s->sm.running) {
		proc_name(s->sm.pid, name, sizeof(name));
		printf(",\"pid\":%ld,\"process\":", (long)s->sm.pid);
		json_str(name);
		printf(",\"lid\":%u,\"port_guid\":\"0x%016" PRIx64 "\",\"priority\":%u,"
		       "\"sweeps\":%" PRIu64 ",\"since\":%" PRIu64,
		       s->sm.lid, (uint64_t)cl_ntoh64(s->sm.guid), s->sm.priority, s->sm.sweeps,
		       s->sm.since);
	}
	printf("},\"service\":{\"running\":%s", s->service ? "true" : "false");
	if (s->service) {
		printf(",\"topology\":");
		json_str(s->topo_path);
		printf(",\"nodes\":%u", s->topo ? s->topo->n_nodes : 0);
	}
	printf("},\"capture\":{\"on\":%s", s->cap.on ? "true" : "false");
	if (s->cap.on) {
		printf(",\"path\":");
		json_str(s->cap.path);
		printf(",\"linktype\":\"%s\"", linktype_name(s->cap.linktype));
	}
	printf("},\"ports\":[");
	for (i = 0; i < s->n_ports; i++) {
		const soft_view_port_t *p = &s->ports[i];
		const char *node = node_name(s->topo, p->info.node_guid);

		proc_name(p->info.owner_pid, name, sizeof(name));
		printf("%s{\"lid\":%u,\"port_guid\":\"0x%016" PRIx64 "\",\"node_guid\":\"0x%016" PRIx64
		       "\",\"port\":%u,\"pid\":%ld,\"process\":",
		       i ? "," : "", p->info.lid, (uint64_t)cl_ntoh64(p->info.port_guid),
		       (uint64_t)cl_ntoh64(p->info.node_guid), p->info.port_num,
		       (long)p->info.owner_pid);
		json_str(name);
		if (node) {
			printf(",\"node\":");
			json_str(node);
		}
		printf(",\"state\":\"%s\",\"mcast_groups\":%u", state_of(p), p->n_mcast);
		if (p->flags & SOFT_VIEW_RING)
			printf(",\"ring_bytes\":%" PRIu64, p->ring_used);
		if (counters && (p->flags & SOFT_VIEW_RING)) {
			printf(",\"counters\":{");
			for (j = 0; j < sizeof(stat_names) / sizeof(stat_names[0]); j++)
				printf("%s\"%s\":%" PRIu64, j ? "," : "", stat_names[j],
				       stat_at(&p->stats, j));
			printf("}");
		}
		printf("}");
	}
	printf("]}\n");
}

/* ---- Commands ---- */

static int show(soft_fabric_view_t *v, const opts_t *o)
{
	fabric_state_t s;
	char err[256];
	ib_api_status_t st;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	s.dir = soft_fabric_view_dir(v);
	soft_fabric_view_sm(v, &s.sm);
	soft_fabric_view_capture(v, &s.cap);
	s.service = soft_fabric_view_service(v, s.topo_path, sizeof(s.topo_path));
	if (s.service) {
		s.topo = (soft_topo_t *)malloc(sizeof(*s.topo));
		if (s.topo && soft_topo_load(s.topo_path, s.topo, err, sizeof(err)) != IB_SUCCESS) {
			free(s.topo);
			s.topo = NULL;
		}
	}
	s.ports = (soft_view_port_t *)calloc(MAX_PORTS, sizeof(*s.ports));
	if (!s.ports) {
		fprintf(stderr, PROG ": out of memory\n");
		free(s.topo);
		return 1;
	}
	st = soft_fabric_view_ports(v, s.ports, MAX_PORTS, &s.n_ports);
	if (st != IB_SUCCESS) {
		fprintf(stderr, PROG ": %s: cannot read the registry (%s)\n", s.dir,
			ib_get_err_str(st));
		rc = 1;
	} else if (o->json) {
		print_json(&s, o->counters);
	} else {
		print_tables(&s, o->counters);
	}
	free(s.ports);
	free(s.topo);
	return rc;
}

static int capture(soft_fabric_view_t *v, const opts_t *o)
{
	char path[4096];
	ib_api_status_t st;

	if (!strcmp(o->sub, "stop")) {
		st = soft_fabric_view_capture_set(v, NULL, SOFT_PCAP_LINKTYPE_ERF);
		if (st == IB_SUCCESS)
			printf("capture stopped on %s\n", soft_fabric_view_dir(v));
	} else {
		/* Every process opens the path from its own working directory: make it absolute. */
		if (o->file[0] == '/') {
			snprintf(path, sizeof(path), "%s", o->file);
		} else {
			if (!getcwd(path, sizeof(path) / 2)) {
				fprintf(stderr, PROG ": cannot tell the working directory: %s\n",
					strerror(errno));
				return 1;
			}
			snprintf(path + strlen(path), sizeof(path) - strlen(path), "/%s", o->file);
		}
		st = soft_fabric_view_capture_set(v, path, o->linktype);
		if (st == IB_SUCCESS)
			printf("capture started on %s: %s (%s)\n", soft_fabric_view_dir(v), path,
			       linktype_name(o->linktype));
		else if (st == IB_OVERFLOW)
			fprintf(stderr, PROG ": %s: path too long (at most 1023 bytes)\n", path);
	}
	if (st != IB_SUCCESS && st != IB_OVERFLOW)
		fprintf(stderr, PROG ": cannot change the capture: %s\n", ib_get_err_str(st));
	return st == IB_SUCCESS ? 0 : 1;
}

int main(int argc, char **argv)
{
	soft_fabric_view_t *v;
	ib_api_status_t st;
	opts_t o;
	int rc = parse(argc, argv, &o);
	const char *dir;
	char dflt[64];

	if (rc)
		return rc;
	st = soft_fabric_view_open(o.dir, &v);
	if (st != IB_SUCCESS) {
		dir = o.dir ? o.dir : getenv("IBAL_SOFT_FABRIC");
		if (!dir || !*dir) {
			snprintf(dflt, sizeof(dflt), "/tmp/ibal-soft-%lu/default",
				 (unsigned long)getuid());
			dir = dflt;
		}
		if (st == IB_NOT_FOUND)
			fprintf(stderr, PROG ": no soft fabric at %s (no process has opened one there)\n",
				dir);
		else if (st == IB_INVALID_SETTING)
			fprintf(stderr, PROG ": %s cannot be inspected: not a fabric directory of this "
				"user and version\n", dir);
		else
			fprintf(stderr, PROG ": cannot open the fabric: %s\n", ib_get_err_str(st));
		return 1;
	}
	rc = !strcmp(o.cmd, "show") ? show(v, &o) : capture(v, &o);
	soft_fabric_view_close(v);
	return rc;
}
