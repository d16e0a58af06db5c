/*
 * ibal_stat: the channel adapters and ports the access layer sees, in the manner of vstat and ibstat.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Written on the public API only (ib_al.h): ib_get_ca_guids, ib_open_ca and
 * ib_query_ca for every CA of every provider, ib_local_mad (PerfMgt Get
 * PortCounters) for the counters. Human tables by default, one JSON object
 * with --json; -v adds every attribute and the GID and P_Key tables; -r
 * prints again every so many seconds. Errors are one line on stderr and a
 * non-zero status: 2 for a bad command line, 1 for anything else.
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include "ibal_cmdline.h"

typedef struct opts {
	int verbose, counters, json, list;
	unsigned repeat_s;          /* 0: once */
	unsigned count;             /* with repeat_s: prints, 0 for ever */
	ib_net64_t ca_guid;         /* 0: every CA */
	int ca_index;               /* -1: every CA; else the one at this index */
	unsigned port;              /* 0: every port */
} opts_t;

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* ---- Names of encodings ---- */

static const char *state_name(uint8_t s)
{
	static const char *const n[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER" };

	return s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

static const char *phys_name(uint8_t s)
{
	static const char *const n[] = { "NoStateChange", "Sleep", "Polling", "Disabled",
					 "PortConfigurationTraining", "LinkUp", "LinkErrorRecovery",
					 "PhyTest" };

	return s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

static unsigned mtu_bytes(uint8_t m)
{
	return m >= 1 && m <= 5 ? 128u << m : 0;
}

static unsigned width_lanes(uint8_t w)
{
	return w == 1 ? 1 : w == 2 ? 4 : w == 4 ? 8 : w == 8 ? 12 : w == 16 ? 2 : 0;
}

/* Speed name and signalling rate of one lane, Gb/s (extended speeds first). */
static const char *speed_name(const ib_port_attr_t *p, double *p_lane)
{
	static const struct {
		uint8_t code;
		const char *name;
		double gbps;
	} ext[] = { { 1, "FDR", 14.0625 }, { 2, "EDR", 25.78125 }, { 4, "HDR", 53.125 } },
	  base[] = { { 1, "SDR", 2.5 }, { 2, "DDR", 5.0 }, { 4, "QDR", 10.0 } };
	size_t i;

	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (p->ext_active_speed == ext[i].code) {
			*p_lane = ext[i].gbps;
			return ext[i].name;
		}
	for (i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		if (p->active_speed == base[i].code) {
			*p_lane = base[i].gbps;
			return base[i].name;
		}
	*p_lane = 0;
	return "?";
}

static const char *link_layer(const ib_port_attr_t *p)
{
	return p->transport == RDMA_TRANSPORT_RDMAOE ? "Ethernet"
	       : p->transport == RDMA_TRANSPORT_IWARP ? "iWARP"
						    : "InfiniBand";
}

/* The capability names of a port, space-separated, into @p buf. */
static void cap_names(const ib_port_cap_t *c, char *buf, size_t size, const char *sep)
{
	const struct {
		boolean_t on;
		const char *name;
	} caps[] = {
		{ c->cm, "cm" },           { c->snmp, "snmp" },         { c->dev_mgmt, "dev_mgmt" },
		{ c->vend, "vendor" },     { c->sm, "sm" },             { c->sm_disable, "sm_disabled" },
		{ c->qkey_ctr, "qkey_ctr" }, { c->pkey_ctr, "pkey_ctr" }, { c->notice, "notice" },
		{ c->trap, "trap" },       { c->apm, "apm" },           { c->slmap, "slmap" },
		{ c->sysguid, "sysguid" }, { c->dr_notice, "dr_notice" }, { c->boot_mgmt, "boot_mgmt" },
		{ c->capm_notice, "capm_notice" }, { c->reinit, "reinit" }, { c->ledinfo, "ledinfo" },
		{ c->client_reregister, "client_reregister" },
	};
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		if (caps[i].on && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? sep : "",
						caps[i].name);
}

static void gid_str(const ib_gid_t *g, char *buf, size_t size)
{
	const uint8_t *b = g->raw;

	snprintf(buf, size, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
		 b[13], b[14], b[15]);
}

/* ---- Counters ---- */

typedef struct counters {
	uint32_t symbol_errors, link_recoveries, link_downed, rcv_errors, xmit_discards;
	uint32_t vl15_dropped, xmit_data, rcv_data, xmit_pkts, rcv_pkts;
} counters_t;

static uint32_t be16_at(const uint8_t *p)
{
	return ((uint32_t)p[0] << 8) | p[1];
}

static uint32_t be32_at(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* PortCounters of a port through its PMA; IB_SUCCESS or why not. */
static ib_api_status_t read_counters(ib_ca_handle_t ca, uint8_t port, counters_t *c)
{
	uint8_t in[MAD_BLOCK_SIZE], out[MAD_BLOCK_SIZE];
	ib_mad_t *m = (ib_mad_t *)in;
	const uint8_t *d = out + 64;   /* the attribute, after the PerfMgt header */
	ib_api_status_t st;

	memset(in, 0, sizeof(in));
	ib_mad_init_new(m, IB_MCLASS_PERF, 1, IB_MAD_METHOD_GET, CL_HTON64(0x57A7), IB_MAD_ATTR_PORT_CNTRS,
			0);
	in[64 + 1] = port;             /* PortSelect */
	st = ib_local_mad(ca, port, in, out);
	if (st != IB_SUCCESS)
		return st;
	if (((const ib_mad_t *)out)->status)
		return IB_REMOTE_ERROR;
	c->symbol_errors = be16_at(d + 4);
	c->link_recoveries = d[6];
	c->link_downed = d[7];
	c->rcv_errors = be16_at(d + 8);
	c->xmit_discards = be16_at(d + 14);
	c->vl15_dropped = be16_at(d + 22);
	c->xmit_data = be32_at(d + 24);
	c->rcv_data = be32_at(d + 28);
	c->xmit_pkts = be32_at(d + 32);
	c->rcv_pkts = be32_at(d + 36);
	return IB_SUCCESS;
}

static const struct {
	const char *name;
	size_t off;
} counter_fields[] = {
	{ "symbol_errors", offsetof(counters_t, symbol_errors) },
	{ "link_error_recoveries", offsetof(counters_t, link_recoveries) },
	{ "link_downed", offsetof(counters_t, link_downed) },
	{ "port_rcv_errors", offsetof(counters_t, rcv_errors) },
	{ "port_xmit_discards", offsetof(counters_t, xmit_discards) },
	{ "vl15_dropped", offsetof(counters_t, vl15_dropped) },
	{ "port_xmit_data", offsetof(counters_t, xmit_data) },
	{ "port_rcv_data", offsetof(counters_t, rcv_data) },
	{ "port_xmit_packets", offsetof(counters_t, xmit_pkts) },
	{ "port_rcv_packets", offsetof(counters_t, rcv_pkts) },
};

#define N_COUNTERS (sizeof(counter_fields) / sizeof(counter_fields[0]))

static uint32_t counter_at(const counters_t *c, size_t i)
{
	return *(const uint32_t *)(const void *)((const uint8_t *)c + counter_fields[i].off);
}

/* ---- Human tables ---- */

static void print_port_text(ib_ca_handle_t ca, const ib_port_attr_t *p, const opts_t *o)
{
	char caps[512], gid[64];
	double lane;
	const char *speed = speed_name(p, &lane);
	unsigned lanes = width_lanes(p->active_width), i;
	counters_t c;
	ib_api_status_t st;

	cap_names(&p->cap, caps, sizeof(caps), " ");
	printf("\tPort %u:\n", p->port_num);
	printf("\t\tState:          %s\n", state_name(p->link_state));
	printf("\t\tPhysical state: %s\n", phys_name(p->phys_state));
	printf("\t\tLID:            0x%04x (LMC %u)\n", cl_ntoh16(p->lid), p->lmc);
	printf("\t\tSM LID:         0x%04x (SL %u)\n", cl_ntoh16(p->sm_lid), p->sm_sl);
	printf("\t\tPort GUID:      0x%016" PRIx64 "\n", cl_ntoh64(p->port_guid));
	if (p->num_gids && p->p_gid_table) {
		gid_str(&p->p_gid_table[0], gid, sizeof(gid));
		printf("\t\tGID[0]:         %s\n", gid);
	}
	printf("\t\tRate:           %g Gb/s (%uX %s)\n", lane * lanes, lanes, speed);
	printf("\t\tActive MTU:     %u\n", mtu_bytes(p->mtu));
	printf("\t\tLink layer:     %s\n", link_layer(p));
	printf("\t\tCapabilities:   %s\n", caps);
	if (o->verbose) {
		printf("\t\tMax message:    %" PRIu64 "\n", p->max_msg_size);
		printf("\t\tData VLs:       %u\n", p->max_vls);
		printf("\t\tSubnet timeout: %u\n", p->subnet_timeout);
		printf("\t\tP_Key violations: %u  Q_Key violations: %u\n", p->pkey_ctr, p->qkey_ctr);
		for (i = 0; p->p_gid_table && i < p->num_gids; i++) {
			gid_str(&p->p_gid_table[i], gid, sizeof(gid));
			printf("\t\tGID[%u]: %s\n", i, gid);
		}
		for (i = 0; p->p_pkey_table && i < p->num_pkeys; i++)
			printf("\t\tP_Key[%u]: 0x%04x\n", i, cl_ntoh16(p->p_pkey_table[i]));
	}
	if (!o->counters)
		return;
	st = read_counters(ca, p->port_num, &c);
	if (st != IB_SUCCESS) {
		printf("\t\tCounters:       unavailable (%s)\n", ib_get_err_str(st));
		return;
	}
	printf("\t\tCounters:\n");
	for (i = 0; i < N_COUNTERS; i++)
		printf("\t\t\t%-22s %u\n", counter_fields[i].name, counter_at(&c, i));
}

static void print_ca_text(ib_ca_handle_t ca, const ib_ca_attr_t *a, const opts_t *o)
{
	uint8_t i;

	printf("CA 0x%016" PRIx64 "\n", cl_ntoh64(a->ca_guid));
	printf("\tVendor ID:      0x%06x\n", a->vend_id);
	printf("\tDevice ID:      0x%04x\n", a->dev_id);
	printf("\tRevision:       0x%04x\n", a->revision);
	printf("\tFirmware:       0x%016" PRIx64 "\n", a->fw_ver);
	printf("\tPorts:          %u\n", a->num_ports);
	if (o->verbose) {
		printf("\tSystem image GUID: 0x%016" PRIx64 "\n", cl_ntoh64(a->system_image_guid));
		printf("\tMax QPs %u, WRs %u, SGEs %u, CQs %u, CQEs %u, PDs %u, SRQs %u\n",
		       a->max_qps, a->max_wrs, a->max_sges, a->max_cqs, a->max_cqes, a->max_pds,
		       a->max_srq);
		printf("\tMax regions %u, windows %u, address handles %" PRIu64 ", partitions %u\n",
		       a->init_regions, a->init_windows, a->max_addr_handles, a->max_partitions);
		printf("\tMax multicast groups %u, QPs per group %u; responder resources %u per QP\n",
		       a->max_mcast_grps, a->max_qps_per_mcast_grp, a->max_qp_resp_res);
		printf("\tAPM %s, port shutdown %s, port-active events %s\n",
		       a->apm_support ? "yes" : "no", a->shutdown_port_capability ? "yes" : "no",
		       a->port_active_event_support ? "yes" : "no");
	}
	for (i = 0; i < a->num_ports; i++)
		if (!o->port || o->port == a->p_port_attr[i].port_num)
			print_port_text(ca, &a->p_port_attr[i], o);
}

/* ---- JSON ---- */

static void print_port_json(ib_ca_handle_t ca, const ib_port_attr_t *p, const opts_t *o)
{
	char caps[512], gid[64];
	double lane;
	const char *speed = speed_name(p, &lane);
	unsigned lanes = width_lanes(p->active_width), i;
	counters_t c;

	cap_names(&p->cap, caps, sizeof(caps), "\",\"");
	printf("{\"port\":%u,\"state\":\"%s\",\"phys_state\":\"%s\",\"lid\":%u,\"lmc\":%u,"
	       "\"sm_lid\":%u,\"sm_sl\":%u,\"port_guid\":\"0x%016" PRIx64 "\",",
	       p->port_num, state_name(p->link_state), phys_name(p->phys_state), cl_ntoh16(p->lid),
	       p->lmc, cl_ntoh16(p->sm_lid), p->sm_sl, cl_ntoh64(p->port_guid));
	if (p->num_gids && p->p_gid_table) {
		gid_str(&p->p_gid_table[0], gid, sizeof(gid));
		printf("\"gid\":\"%s\",", gid);
	}
	printf("\"rate_gbps\":%g,\"width\":\"%uX\",\"speed\":\"%s\",\"mtu\":%u,\"link_layer\":\"%s\","
	       "\"capabilities\":[%s%s%s]",
	       lane * lanes, lanes, speed, mtu_bytes(p->mtu), link_layer(p), caps[0] ? "\"" : "", caps,
	       caps[0] ? "\"" : "");
	if (o->verbose) {
		printf(",\"max_msg_size\":%" PRIu64 ",\"data_vls\":%u,\"subnet_timeout\":%u,"
		       "\"pkey_violations\":%u,\"qkey_violations\":%u,\"gids\":[",
		       p->max_msg_size, p->max_vls, p->subnet_timeout, p->pkey_ctr, p->qkey_ctr);
		for (i = 0; p->p_gid_table && i < p->num_gids; i++) {
			gid_str(&p->p_gid_table[i], gid, sizeof(gid));
			printf("%s\"%s\"", i ? "," : "", gid);
		}
		printf("],\"pkeys\":[");
		for (i = 0; p->p_pkey_table && i < p->num_pkeys; i++)
			printf("%s%u", i ? "," : "", cl_ntoh16(p->p_pkey_table[i]));
		printf("]");
	}
	if (o->counters && read_counters(ca, p->port_num, &c) == IB_SUCCESS) {
		printf(",\"counters\":{");
		for (i = 0; i < N_COUNTERS; i++)
			printf("%s\"%s\":%u", i ? "," : "", counter_fields[i].name, counter_at(&c, i));
		printf("}");
	}
	printf("}");
}

static void print_ca_json(ib_ca_handle_t ca, const ib_ca_attr_t *a, const opts_t *o)
{
	uint8_t i;
	int first = 1;

	printf("{\"guid\":\"0x%016" PRIx64 "\",\"vendor_id\":%u,\"device_id\":%u,\"revision\":%u,"
	       "\"firmware\":%" PRIu64 ",\"num_ports\":%u,",
	       cl_ntoh64(a->ca_guid), a->vend_id, a->dev_id, a->revision, a->fw_ver, a->num_ports);
	if (o->verbose)
		printf("\"max_qps\":%u,\"max_wrs\":%u,\"max_sges\":%u,\"max_cqs\":%u,\"max_cqes\":%u,"
		       "\"max_pds\":%u,\"max_srq\":%u,\"max_mcast_grps\":%u,\"apm\":%s,",
		       a->max_qps, a->max_wrs, a->max_sges, a->max_cqs, a->max_cqes, a->max_pds,
		       a->max_srq, a->max_mcast_grps, a->apm_support ? "true" : "false");
	printf("\"ports\":[");
	for (i = 0; i < a->num_ports; i++) {
		if (o->port && o->port != a->p_port_attr[i].port_num)
			continue;
		if (!first)
			printf(",");
		first = 0;
		print_port_json(ca, &a->p_port_attr[i], o);
	}
	printf("]}");
}

/* ---- One look at every CA ---- */

static ib_api_status_t query(ib_ca_handle_t ca, ib_ca_attr_t **pp_attr)
{
	uint32_t size = 0;
	ib_api_status_t st = ib_query_ca(ca, NULL, &size);

	if (st != IB_INSUFFICIENT_MEMORY)
		return st == IB_SUCCESS ? IB_ERROR : st;
	*pp_attr = (ib_ca_attr_t *)malloc(size);
	if (!*pp_attr)
		return IB_INSUFFICIENT_MEMORY;
	st = ib_query_ca(ca, *pp_attr, &size);
	if (st != IB_SUCCESS)
		free(*pp_attr);
	return st;
}

static int look(ib_al_handle_t al, const opts_t *o)
{
	ib_net64_t *guids = NULL;
	size_t n = 0, i;
	int shown = 0, first = 1, failed = 0;
	ib_api_status_t st = ib_get_ca_guids(al, NULL, &n);

	if (st != IB_INSUFFICIENT_MEMORY || !n) {
		fprintf(stderr, "ibal_stat: no channel adapter (%s)\n",
			st == IB_SUCCESS || st == IB_INSUFFICIENT_MEMORY ? "none found"
									 : ib_get_err_str(st));
		return 1;
	}
	guids = (ib_net64_t *)calloc(n, sizeof(*guids));
	if (!guids || ib_get_ca_guids(al, guids, &n) != IB_SUCCESS) {
		fprintf(stderr, "ibal_stat: cannot list the channel adapters\n");
		free(guids);
		return 1;
	}
	if (o->json)
		printf("{\"cas\":[");
	for (i = 0; i < n; i++) {
		ib_ca_handle_t ca;
		ib_ca_attr_t *a = NULL;

		if ((o->ca_guid && guids[i] != o->ca_guid) || (o->ca_index >= 0 && (size_t)o->ca_index != i))
			continue;
		shown++;
		if (o->list) {
			printf("0x%016" PRIx64 "\n", cl_ntoh64(guids[i]));
			continue;
		}
		st = ib_open_ca(al, guids[i], NULL, NULL, &ca);
		if (st == IB_SUCCESS)
			st = query(ca, &a);
		if (st != IB_SUCCESS) {
			fprintf(stderr, "ibal_stat: CA 0x%016" PRIx64 ": cannot open it: %s\n",
				cl_ntoh64(guids[i]), ib_get_err_str(st));
			failed = 1;
			continue;
		}
		if (o->port && o->port > a->num_ports) {
			fprintf(stderr, "ibal_stat: CA 0x%016" PRIx64 " has no port %u\n",
				cl_ntoh64(guids[i]), o->port);
			free(a);
			ib_close_ca(ca, ib_sync_destroy);
			free(guids);
			return 1;
		}
		if (o->json) {
			if (!first)
				printf(",");
			print_ca_json(ca, a, o);
		} else {
			print_ca_text(ca, a, o);
		}
		first = 0;
		free(a);
		ib_close_ca(ca, ib_sync_destroy);
	}
	if (o->json)
		printf("]}\n");
	free(guids);
	if (!shown) {
		if (o->ca_index >= 0)
			fprintf(stderr, "ibal_stat: no CA %d (%zu found)\n", o->ca_index, n);
		else
			fprintf(stderr, "ibal_stat: no CA with GUID 0x%016" PRIx64 "\n",
				cl_ntoh64(o->ca_guid));
		return 1;
	}
	fflush(stdout);
	return failed;
}

/* ---- Command line ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ibal_stat [options] [CA_GUID [PORT]]\n"
		"The channel adapters and ports of every provider (or of CA_GUID, port PORT).\n"
		"  -C, --ca N          the Nth CA only (from 0, in the order of --list)\n"
		"  -p, --port N        port N only\n"
		"  -l, --list          the CA GUIDs only, one per line\n"
		"  -v, --verbose       every attribute, the GID and P_Key tables\n"
		"  -c, --counters      the ports' PortCounters (PerfMgt, through ib_local_mad)\n"
		"  -j, --json          one JSON object instead of tables\n"
		"  -r, --repeat SEC    print again every SEC seconds, until interrupted\n"
		"  -n, --count N       with --repeat: stop after N prints\n"
		"  -h, --help          this text\n");
}

/* A whole unsigned number in [min, max]; 0 on success. */
static int parse_uint(const char *s, unsigned long long max, unsigned long long *p_v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	*p_v = strtoull(s, &end, 0);
	return *end || *p_v > max ? -1 : 0;
}

static int parse(int argc, char **argv, opts_t *o)
{
	static const struct option longopts[] = {
		{ "list", no_argument, NULL, 'l' },     { "verbose", no_argument, NULL, 'v' },
		{ "counters", no_argument, NULL, 'c' }, { "json", no_argument, NULL, 'j' },
		{ "repeat", required_argument, NULL, 'r' }, { "count", required_argument, NULL, 'n' },
		{ "ca", required_argument, NULL, 'C' }, { "port", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },     { NULL, 0, NULL, 0 },
	};
	unsigned long long v;
	int c, li;

	memset(o, 0, sizeof(*o));
	o->ca_index = -1;
	opterr = 0;
	opterr = 0;
	while ((li = -1, c = getopt_long(argc, argv, ":lvcjr:n:C:p:h", longopts, &li)) != -1) {
		switch (c) {
		case 'l': o->list = 1; break;
		case 'v': o->verbose = 1; break;
		case 'c': o->counters = 1; break;
		case 'j': o->json = 1; break;
		case 'r':
			if (parse_uint(optarg, 86400, &v) || !v) {
				fprintf(stderr, "ibal_stat: bad --repeat '%s' (1 to 86400 seconds)\n", optarg);
				return 2;
			}
			o->repeat_s = (unsigned)v;
			break;
		case 'n':
			if (parse_uint(optarg, 1000000, &v) || !v) {
				fprintf(stderr, "ibal_stat: bad --count '%s'\n", optarg);
				return 2;
			}
			o->count = (unsigned)v;
			break;
		case 'C':
			if (parse_uint(optarg, 1023, &v)) {
				fprintf(stderr, "ibal_stat: bad --ca '%s' (a CA's index, from 0)\n", optarg);
				return 2;
			}
			o->ca_index = (int)v;
			break;
		case 'p':
			if (parse_uint(optarg, 254, &v) || !v) {
				fprintf(stderr, "ibal_stat: bad port '%s' (1 to 254)\n", optarg);
				return 2;
			}
			o->port = (unsigned)v;
			break;
		case 'h': usage(stdout); return -1;
		default: /* '?', ':' */
			return ibal_cmdline_error("ibal_stat", c, longopts, li, argv);
		}
	}
	if (optind < argc) {
		if (parse_uint(argv[optind], UINT64_MAX, &v) || !v) {
			fprintf(stderr, "ibal_stat: bad CA GUID '%s'\n", argv[optind]);
			return 2;
		}
		o->ca_guid = cl_hton64((uint64_t)v);
		optind++;
	}
	if (optind < argc) {
		if (parse_uint(argv[optind], 254, &v) || !v) {
			fprintf(stderr, "ibal_stat: bad port '%s' (1 to 254)\n", argv[optind]);
			return 2;
		}
		o->port = (unsigned)v;
		optind++;
	}
	if (optind < argc) {
		fprintf(stderr, "ibal_stat: unexpected '%s' (ibal_stat --help)\n", argv[optind]);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	ib_al_handle_t al;
	ib_api_status_t st;
	unsigned printed = 0;
	opts_t o;
	int rc = parse(argc, argv, &o);

	if (rc)
		return rc < 0 ? 0 : rc;
	st = ib_open_al(&al);
	if (st != IB_SUCCESS) {
		fprintf(stderr, "ibal_stat: cannot open the access layer: %s\n", ib_get_err_str(st));
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (;;) {
		rc = look(al, &o);
		printed++;
		if (rc || !o.repeat_s || stop || (o.count && printed >= o.count))
			break;
		sleep(o.repeat_s);
		if (stop)
			break;
		if (!o.json)
			printf("\n");
	}
	ib_close_al(al);
	return rc;
}
