/*
 * ibal_saquery: records of the subnet administrator through ib_query, in the manner of saquery.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Written on the public API only (ib_al.h): the records are asked for with
 * ib_query() from a local port (the first ACTIVE port, or the one given),
 * synchronously, and printed one block per record (or one JSON object with
 * --json). Queries: NodeRecords (all, or by node GUID), PortInfoRecords (all,
 * or by LID), PathRecords between two LIDs, port GUIDs or GIDs,
 * ServiceRecords (all, by name or by service ID) and MCMemberRecords. Errors
 * are one line on stderr and a non-zero status: 2 for a bad command line, 1
 * for anything else (no port, no answer, an SA error).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <iba/ib_al.h>
#include "ibal_cmdline.h"

typedef struct opts {
	int json;
	unsigned timeout_ms;
	ib_net64_t port_guid;        /* 0: the first ACTIVE port */
} opts_t;

static ib_query_rec_t g_rec;

static void AL_API on_query(ib_query_rec_t *p_rec)
{
	g_rec = *p_rec;
}

/* ---- Printing ---- */

static int g_first = 1;

static void gid_str(const ib_gid_t *g, char *buf, size_t size)
{
	if (!inet_ntop(AF_INET6, g->raw, buf, (socklen_t)size))
		snprintf(buf, size, "?");
}

/* Starts a record: a blank line between blocks, a comma between JSON objects. */
static void rec_begin(const opts_t *o, const char *kind)
{
	if (o->json)
		printf("%s{\"record\":\"%s\"", g_first ? "" : ",", kind);
	else
		printf("%s%s\n", g_first ? "" : "\n", kind);
	g_first = 0;
}

static void rec_end(const opts_t *o)
{
	if (o->json)
		printf("}");
}

static void field_u(const opts_t *o, const char *name, uint64_t v, int hex)
{
	if (o->json)
		printf(",\"%s\":%" PRIu64, name, v);
	else if (hex)
		printf("\t%-18s 0x%" PRIx64 "\n", name, v);
	else
		printf("\t%-18s %" PRIu64 "\n", name, v);
}

static void field_s(const opts_t *o, const char *name, const char *v)
{
	const char *c;

	if (!o->json) {
		printf("\t%-18s %s\n", name, v);
		return;
	}
	printf(",\"%s\":\"", name);
	for (c = v; *c; c++)
		if (*c == '"' || *c == '\\')
			printf("\\%c", *c);
		else if ((unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7F)
			putchar(*c);
	printf("\"");
}

static void field_guid(const opts_t *o, const char *name, ib_net64_t g)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, cl_ntoh64(g));
	field_s(o, name, buf);
}

static void field_gid(const opts_t *o, const char *name, const ib_gid_t *g)
{
	char buf[64];

	gid_str(g, buf, sizeof(buf));
	field_s(o, name, buf);
}

/* A fixed-size text field that may lack its NUL. */
static void field_text(const opts_t *o, const char *name, const uint8_t *p, size_t size)
{
	char buf[80];
	size_t n = 0;

	while (n < size && n < sizeof(buf) - 1 && p[n]) {
		buf[n] = (char)p[n];
		n++;
	}
	buf[n] = '\0';
	field_s(o, name, buf);
}

static void print_node(const opts_t *o, const ib_node_record_t *r)
{
	const ib_node_info_t *ni = &r->node_info;

	rec_begin(o, "NodeRecord");
	field_u(o, "lid", cl_ntoh16(r->lid), 1);
	field_u(o, "node_type", ni->node_type, 0);
	field_u(o, "num_ports", ni->num_ports, 0);
	field_guid(o, "sys_guid", ni->sys_guid);
	field_guid(o, "node_guid", ni->node_guid);
	field_guid(o, "port_guid", ni->port_guid);
	field_u(o, "device_id", cl_ntoh16(ni->device_id), 1);
	field_u(o, "vendor_id", cl_ntoh32(ni->port_num_vendor_id) & 0xFFFFFF, 1);
	field_u(o, "local_port", cl_ntoh32(ni->port_num_vendor_id) >> 24, 0);
	field_text(o, "node_desc", r->node_desc.description, sizeof(r->node_desc.description));
	rec_end(o);
}

static void print_portinfo(const opts_t *o, const ib_portinfo_record_t *r)
{
	const ib_port_info_t *pi = &r->port_info;

	rec_begin(o, "PortInfoRecord");
	field_u(o, "lid", cl_ntoh16(r->lid), 1);
	field_u(o, "port_num", r->port_num, 0);
	field_u(o, "base_lid", cl_ntoh16(pi->base_lid), 1);
	field_u(o, "master_sm_lid", cl_ntoh16(pi->master_sm_base_lid), 1);
	field_u(o, "capability_mask", cl_ntoh32(pi->capability_mask), 1);
	field_u(o, "port_state", ib_port_info_get_port_state(pi), 0);
	field_u(o, "lmc", pi->mkey_lmc & IB_PORT_LMC_MASK, 0);
	rec_end(o);
}

static void print_path(const opts_t *o, const ib_path_rec_t *r)
{
	rec_begin(o, "PathRecord");
	field_gid(o, "sgid", &r->sgid);
	field_gid(o, "dgid", &r->dgid);
	field_u(o, "slid", cl_ntoh16(r->slid), 1);
	field_u(o, "dlid", cl_ntoh16(r->dlid), 1);
	field_u(o, "pkey", cl_ntoh16(r->pkey), 1);
	field_u(o, "sl", ib_path_rec_sl(r), 0);
	field_u(o, "mtu", ib_path_rec_mtu(r), 0);
	field_u(o, "rate", ib_path_rec_rate(r), 0);
	field_u(o, "pkt_life", r->pkt_life & 0x3F, 0);
	field_u(o, "num_path", r->num_path & 0x7F, 0);
	rec_end(o);
}

static void print_service(const opts_t *o, const ib_service_record_t *r)
{
	rec_begin(o, "ServiceRecord");
	field_guid(o, "service_id", r->service_id);
	field_gid(o, "service_gid", &r->service_gid);
	field_u(o, "service_pkey", cl_ntoh16(r->service_pkey), 1);
	field_u(o, "service_lease", cl_ntoh32(r->service_lease), 0);
	field_text(o, "service_name", r->service_name, sizeof(r->service_name));
	rec_end(o);
}

static void print_member(const opts_t *o, const ib_member_rec_t *r)
{
	rec_begin(o, "MCMemberRecord");
	field_gid(o, "mgid", &r->mgid);
	field_gid(o, "port_gid", &r->port_gid);
	field_u(o, "mlid", cl_ntoh16(r->mlid), 1);
	field_u(o, "qkey", cl_ntoh32(r->qkey), 1);
	field_u(o, "pkey", cl_ntoh16(r->pkey), 1);
	field_u(o, "mtu", r->mtu & 0x3F, 0);
	field_u(o, "rate", r->rate & 0x3F, 0);
	field_u(o, "join_state", r->scope_state & 0x0F, 1);
	rec_end(o);
}

/* ---- Queries ---- */

typedef enum kind { K_NODE, K_PORTINFO, K_PATH, K_SERVICE, K_MEMBER } kind_t;

/* The name of an SA status (IBA 15.2.1.1), or NULL. */
static const char *sa_status_name(uint16_t st)
{
	static const char *const names[] = { NULL, "out of resources", "invalid request",
					     "no matching record", "more than one record",
					     "invalid GID", "insufficient components", "denied",
					     "priority suggested" };
	unsigned code = (st >> 8) & 0x7F;

	return !(st & 0xFF) && code < sizeof(names) / sizeof(names[0]) ? names[code] : NULL;
}

/* Runs one query; prints its records. 0, or 1 with a line on stderr. */
static int run_query(ib_al_handle_t al, const opts_t *o, ib_query_type_t type, const void *in,
		     kind_t kind)
{
	ib_query_req_t q;
	ib_api_status_t st;
	uint32_t i;

	memset(&q, 0, sizeof(q));
	memset(&g_rec, 0, sizeof(g_rec));
	q.query_type = type;
	q.p_query_input = in;
	q.port_guid = o->port_guid;
	q.timeout_ms = o->timeout_ms;
	q.retry_cnt = 3;
	q.flags = IB_FLAGS_SYNC;
	q.pfn_query_cb = on_query;
	st = ib_query(al, &q, NULL);
	if (st == IB_SUCCESS)
		st = g_rec.status;
	if (st == IB_REMOTE_ERROR && g_rec.p_result_mad) {
		uint16_t sa_st = cl_ntoh16(((const ib_mad_t *)g_rec.p_result_mad->p_mad_buf)->status);
		const char *name = sa_status_name(sa_st);

		fprintf(stderr, "ibal_saquery: the SA answered status 0x%04x%s%s\n", sa_st,
			name ? ": " : "", name ? name : "");
		ib_put_mad(g_rec.p_result_mad);
		return 1;
	}
	if (st != IB_SUCCESS) {
		fprintf(stderr, "ibal_saquery: %s\n",
			st == IB_TIMEOUT ? "no answer from the SA (IB_TIMEOUT)" : ib_get_err_str(st));
		if (g_rec.p_result_mad)
			ib_put_mad(g_rec.p_result_mad);
		return 1;
	}
	if (o->json)
		printf("{\"records\":[");
	for (i = 0; i < g_rec.result_cnt; i++) {
		const void *r = ib_get_query_result(g_rec.p_result_mad, i);

		switch (kind) {
		case K_NODE: print_node(o, (const ib_node_record_t *)r); break;
		case K_PORTINFO: print_portinfo(o, (const ib_portinfo_record_t *)r); break;
		case K_PATH: print_path(o, (const ib_path_rec_t *)r); break;
		case K_SERVICE: print_service(o, (const ib_service_record_t *)r); break;
		case K_MEMBER: print_member(o, (const ib_member_rec_t *)r); break;
		}
	}
	if (o->json)
		printf("],\"count\":%u}\n", g_rec.result_cnt);
	if (g_rec.p_result_mad)
		ib_put_mad(g_rec.p_result_mad);
	return 0;
}

/* All records of one attribute (SubnAdmGetTable, no component). */
static int query_all(ib_al_handle_t al, const opts_t *o, ib_net16_t attr, uint32_t size, kind_t kind)
{
	ib_user_query_t u;

	memset(&u, 0, sizeof(u));
	u.method = IB_MAD_METHOD_GETTABLE;
	u.attr_id = attr;
	u.attr_size = size;
	return run_query(al, o, IB_QUERY_USER_DEFINED, &u, kind);
}

/* ---- Arguments ---- */

static int parse_u64(const char *s, uint64_t max, uint64_t *p_v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	*p_v = strtoull(s, &end, 0);
	return *end || *p_v > max ? -1 : 0;
}

/* A path end: a GID (has ':'), else a LID (at most 0xBFFF), else a port GUID. */
typedef enum end_kind { E_BAD, E_LID, E_GUID, E_GID } end_kind_t;

static end_kind_t parse_end(const char *s, ib_gid_t *p_gid, uint64_t *p_v)
{
	if (strchr(s, ':'))
		return inet_pton(AF_INET6, s, p_gid->raw) == 1 ? E_GID : E_BAD;
	if (parse_u64(s, UINT64_MAX, p_v) || !*p_v)
		return E_BAD;
	return *p_v <= 0xBFFF ? E_LID : E_GUID;
}

static int do_path(ib_al_handle_t al, const opts_t *o, const char *a, const char *b)
{
	ib_gid_pair_t gp;
	ib_lid_pair_t lp;
	ib_guid_pair_t up;
	uint64_t va = 0, vb = 0;
	end_kind_t ka = parse_end(a, &gp.src_gid, &va), kb = parse_end(b, &gp.dest_gid, &vb);

	if (ka == E_BAD || kb == E_BAD || ka != kb) {
		fprintf(stderr, "ibal_saquery: path: '%s' and '%s' are not two LIDs, GUIDs or GIDs\n",
			a, b);
		return 2;
	}
	if (ka == E_GID)
		return run_query(al, o, IB_QUERY_PATH_REC_BY_GIDS, &gp, K_PATH);
	if (ka == E_LID) {
		lp.src_lid = cl_hton16((uint16_t)va);
		lp.dest_lid = cl_hton16((uint16_t)vb);
		return run_query(al, o, IB_QUERY_PATH_REC_BY_LIDS, &lp, K_PATH);
	}
	up.src_guid = cl_hton64(va);
	up.dest_guid = cl_hton64(vb);
	return run_query(al, o, IB_QUERY_PATH_REC_BY_PORT_GUIDS, &up, K_PATH);
}

static int do_query(ib_al_handle_t al, const opts_t *o, int argc, char **argv)
{
	const char *what = argv[0];
	uint64_t v;
	ib_net64_t g;
	ib_net16_t lid;
	ib_svc_name_t name;

	if (!strcmp(what, "nodes") && argc == 1)
		return query_all(al, o, IB_MAD_ATTR_NODE_RECORD, sizeof(ib_node_record_t), K_NODE);
	if (!strcmp(what, "node") && argc == 2) {
		if (parse_u64(argv[1], UINT64_MAX, &v) || !v)
			goto bad_arg;
		g = cl_hton64(v);
		return run_query(al, o, IB_QUERY_NODE_REC_BY_NODE_GUID, &g, K_NODE);
	}
	if (!strcmp(what, "portinfo") && argc == 1)
		return query_all(al, o, IB_MAD_ATTR_PORTINFO_RECORD, sizeof(ib_portinfo_record_t),
				 K_PORTINFO);
	if (!strcmp(what, "portinfo") && argc == 2) {
		if (parse_u64(argv[1], 0xBFFF, &v) || !v)
			goto bad_arg;
		lid = cl_hton16((uint16_t)v);
		return run_query(al, o, IB_QUERY_PORT_REC_BY_LID, &lid, K_PORTINFO);
	}
	if (!strcmp(what, "path") && argc == 3)
		return do_path(al, o, argv[1], argv[2]);
	if (!strcmp(what, "services") && argc == 1)
		return run_query(al, o, IB_QUERY_ALL_SVC_RECS, NULL, K_SERVICE);
	if (!strcmp(what, "service") && argc == 2) {
		if (strlen(argv[1]) >= sizeof(name))
			goto bad_arg;
		memset(name, 0, sizeof(name));
		memcpy(name, argv[1], strlen(argv[1]));
		return run_query(al, o, IB_QUERY_SVC_REC_BY_NAME, name, K_SERVICE);
	}
	if (!strcmp(what, "service-id") && argc == 2) {
		if (parse_u64(argv[1], UINT64_MAX, &v))
			goto bad_arg;
		g = cl_hton64(v);
		return run_query(al, o, IB_QUERY_SVC_REC_BY_ID, &g, K_SERVICE);
	}
	if (!strcmp(what, "mcmembers") && argc == 1)
		return query_all(al, o, IB_MAD_ATTR_MCMEMBER_RECORD, sizeof(ib_member_rec_t), K_MEMBER);
	fprintf(stderr, "ibal_saquery: unknown query '%s' with %d argument(s) (ibal_saquery --help)\n",
		what, argc - 1);
	return 2;
bad_arg:
	fprintf(stderr, "ibal_saquery: %s: bad argument '%s'\n", what, argv[1]);
	return 2;
}

/* The first ACTIVE port of any CA; IB_SUCCESS with *p_guid, or why not. */
static ib_api_status_t first_active_port(ib_al_handle_t al, ib_net64_t *p_guid)
{
	ib_net64_t guids[64];
	size_t n = 64, i;
	ib_api_status_t st = ib_get_ca_guids(al, guids, &n);
	uint8_t p;

	if (st != IB_SUCCESS)
		return st;
	for (i = 0; i < n; i++) {
		ib_ca_handle_t ca;
		ib_ca_attr_t *a;
		uint32_t size = 0;

		if (ib_open_ca(al, guids[i], NULL, NULL, &ca) != IB_SUCCESS)
			continue;
		ib_query_ca(ca, NULL, &size);
		a = size ? (ib_ca_attr_t *)malloc(size) : NULL;
		if (a && ib_query_ca(ca, a, &size) == IB_SUCCESS)
			for (p = 0; p < a->num_ports; p++)
				if (a->p_port_attr[p].link_state == IB_LINK_ACTIVE) {
					*p_guid = a->p_port_attr[p].port_guid;
					free(a);
					ib_close_ca(ca, ib_sync_destroy);
					return IB_SUCCESS;
				}
		free(a);
		ib_close_ca(ca, ib_sync_destroy);
	}
	return IB_NOT_FOUND;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ibal_saquery [options] QUERY [ARGUMENTS]\n"
		"Records of the subnet administrator, asked for with ib_query from a local port.\n"
		"Queries:\n"
		"  nodes | node NODE_GUID         NodeRecords\n"
		"  portinfo [LID]                 PortInfoRecords\n"
		"  path SRC DST                   PathRecords; SRC and DST both LIDs, port GUIDs or GIDs\n"
		"  services | service NAME | service-id ID   ServiceRecords\n"
		"  mcmembers                      MCMemberRecords\n"
		"Options:\n"
		"  -P, --port-guid GUID   the local port to ask from (default: the first ACTIVE one)\n"
		"  -t, --timeout MS       time to wait for each answer (default 1000), 3 retries\n"
		"  -j, --json             one JSON object instead of blocks\n"
		"  -h, --help             this text\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "port-guid", required_argument, NULL, 'P' }, { "timeout", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },            { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	ib_al_handle_t al;
	ib_api_status_t st;
	opts_t o;
	uint64_t v;
	int c, li, rc;

	memset(&o, 0, sizeof(o));
	o.timeout_ms = 1000;
	opterr = 0;
	opterr = 0;
	while ((li = -1, c = getopt_long(argc, argv, "+:P:t:jh", longopts, &li)) != -1) {
		switch (c) {
		case 'P':
			if (parse_u64(optarg, UINT64_MAX, &v) || !v) {
				fprintf(stderr, "ibal_saquery: bad port GUID '%s'\n", optarg);
				return 2;
			}
			o.port_guid = cl_hton64(v);
			break;
		case 't':
			if (parse_u64(optarg, 600000, &v) || !v) {
				fprintf(stderr, "ibal_saquery: bad --timeout '%s' (1 to 600000 ms)\n", optarg);
				return 2;
			}
			o.timeout_ms = (unsigned)v;
			break;
		case 'j': o.json = 1; break;
		case 'h': usage(stdout); return 0;
		default: /* '?', ':' */
			return ibal_cmdline_error("ibal_saquery", c, longopts, li, argv);
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "ibal_saquery: no query (ibal_saquery --help)\n");
		return 2;
	}
	st = ib_open_al(&al);
	if (st != IB_SUCCESS) {
		fprintf(stderr, "ibal_saquery: cannot open the access layer: %s\n", ib_get_err_str(st));
		return 1;
	}
	if (!o.port_guid && (st = first_active_port(al, &o.port_guid)) != IB_SUCCESS) {
		fprintf(stderr, "ibal_saquery: no ACTIVE port to ask from (%s)\n", ib_get_err_str(st));
		ib_close_al(al);
		return 1;
	}
	rc = do_query(al, &o, argc - optind, argv + optind);
	ib_close_al(al);
	return rc;
}
