/*
 * ibal bench: PathRecord queries per second through ib_query against the subnet administrator.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Public API only. The program picks the first active port that knows an SM
 * (or the port of -p), and asks the SA for the PathRecords from that port's
 * LID to a destination LID (-d, default the SM's LID), best of -r runs of -t
 * seconds each:
 *
 *   path_query_sync      one query at a time, IB_FLAGS_SYNC
 *   path_query_async_N   N queries in flight, callbacks from the AL threads
 *
 * Every answer is checked (status, at least one record, its DLID). Output:
 * tab-separated rows `name<TAB>queries/s<TAB>queries` under '#' comment
 * lines. On the soft fabric (the default when IBAL_PROVIDERS is unset) it
 * runs in a private fabric directory, where this process is the master SM,
 * unless IBAL_SOFT_FABRIC is set; against OpenSM on ibsim it runs under
 * tests/integration/ibsim/ibsim-run.sh (tests/bench/bench_sa_ibsim.sh). A query that
 * fails or an answer that does not arrive within WAIT_MS ends the program
 * with status 1.
 *
 * usage: bench_sa [-t SECONDS] [-r RUNS] [-n INFLIGHT] [-p PORT_GUID] [-d DLID]
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <iba/ib_al.h>

#define WAIT_MS 10000u     /* bound of one wait for answers */
#define QUERY_TIMEOUT_MS 1000u
#define QUERY_RETRIES 3u
#define MAX_INFLIGHT 256u

typedef struct bench {
	ib_al_handle_t h_al;
	ib_net64_t port_guid;
	ib_lid_pair_t lids;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned inflight;  /* queries started and not answered */
	uint64_t done;      /* answers checked */
	int failed;         /* an answer was wrong */
} bench_t;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, ib_api_status_t st)
{
	fprintf(stderr, "bench_sa: %s: %s\n", what, ib_get_err_str(st));
	exit(1);
}

/* Checks one answer and counts it. */
static void AL_API on_query(ib_query_rec_t *p_rec)
{
	bench_t *b = (bench_t *)p_rec->query_context;
	int bad = p_rec->status != IB_SUCCESS || p_rec->result_cnt < 1 || !p_rec->p_result_mad;

	if (!bad && ib_get_query_path_rec(p_rec->p_result_mad, 0)->dlid != b->lids.dest_lid)
		bad = 1;
	if (bad)
		fprintf(stderr, "bench_sa: bad answer: %s, %u records\n",
			ib_get_err_str(p_rec->status), p_rec->result_cnt);
	if (p_rec->p_result_mad)
		ib_put_mad(p_rec->p_result_mad);
	pthread_mutex_lock(&b->lock);
	b->failed |= bad;
	b->done++;
	b->inflight--;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

static void start_query(bench_t *b, ib_al_flags_t flags)
{
	ib_query_req_t req;
	ib_api_status_t st;

	memset(&req, 0, sizeof(req));
	req.query_type = IB_QUERY_PATH_REC_BY_LIDS;
	req.p_query_input = &b->lids;
	req.port_guid = b->port_guid;
	req.timeout_ms = QUERY_TIMEOUT_MS;
	req.retry_cnt = QUERY_RETRIES;
	req.flags = flags;
	req.query_context = b;
	req.pfn_query_cb = on_query;
	pthread_mutex_lock(&b->lock);
	b->inflight++;
	pthread_mutex_unlock(&b->lock);
	st = ib_query(b->h_al, &req, NULL);
	if (st != IB_SUCCESS)
		die("ib_query", st);
}

/* Waits until at most @p max queries are in flight; exits on a timeout. */
static void wait_inflight(bench_t *b, unsigned max)
{
	struct timespec dl;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += WAIT_MS / 1000;
	pthread_mutex_lock(&b->lock);
	while (b->inflight > max) {
		if (pthread_cond_timedwait(&b->cond, &b->lock, &dl) == ETIMEDOUT) {
			pthread_mutex_unlock(&b->lock);
			fprintf(stderr, "bench_sa: no answer within %u ms\n", WAIT_MS);
			exit(1);
		}
	}
	pthread_mutex_unlock(&b->lock);
}

/* One measurement: queries per second with @p n in flight (0: synchronous). */
static double measure(bench_t *b, unsigned n, double secs, uint64_t *p_count)
{
	double t0 = now_s(), t;
	uint64_t start = b->done;

	do {
		if (n == 0) {
			start_query(b, IB_FLAGS_SYNC);
		} else {
			wait_inflight(b, n - 1);
			start_query(b, 0);
		}
		t = now_s();
	} while (t - t0 < secs);
	wait_inflight(b, 0);
	t = now_s();
	if (b->failed)
		exit(1);
	*p_count = b->done - start;
	return (double)*p_count / (t - t0);
}

/* Finds the port: the one of @p want, or the first active one with an SM. */
static void find_port(bench_t *b, ib_net64_t want)
{
	ib_net64_t guids[16];
	size_t n = 16, i;
	uint8_t p;
	ib_api_status_t st;

	st = ib_get_ca_guids(b->h_al, guids, &n);
	if (st != IB_SUCCESS)
		die("ib_get_ca_guids", st);
	for (i = 0; i < n; i++) {
		ib_ca_handle_t h_ca;
		ib_ca_attr_t *attr;
		uint32_t size = 0;

		if (ib_open_ca(b->h_al, guids[i], NULL, NULL, &h_ca) != IB_SUCCESS)
			continue;
		ib_query_ca(h_ca, NULL, &size);
		attr = malloc(size);
		if (attr && ib_query_ca(h_ca, attr, &size) == IB_SUCCESS) {
			for (p = 0; p < attr->num_ports; p++) {
				const ib_port_attr_t *pa = &attr->p_port_attr[p];

				if (want ? pa->port_guid != want
					 : (pa->link_state != IB_LINK_ACTIVE || !pa->sm_lid))
					continue;
				b->port_guid = pa->port_guid;
				b->lids.src_lid = pa->lid;
				if (!b->lids.dest_lid)
					b->lids.dest_lid = pa->sm_lid;
				break;
			}
		}
		free(attr);
		ib_close_ca(h_ca, NULL);
		if (b->port_guid)
			return;
	}
	fprintf(stderr, "bench_sa: no active port with a subnet manager\n");
	exit(1);
}

static char g_dir[64];

static void rm_dir(void)
{
	char cmd[96];

	if (g_dir[0] && snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir) < (int)sizeof(cmd) &&
	    system(cmd) != 0)
		fprintf(stderr, "bench_sa: could not remove %s\n", g_dir);
}

int main(int argc, char **argv)
{
	bench_t b;
	double secs = 1.0, best, q;
	unsigned runs = 3, inflight = 16, r, mode;
	uint64_t want = 0, cnt, best_cnt;
	int c;
	ib_api_status_t st;

	memset(&b, 0, sizeof(b));
	while ((c = getopt(argc, argv, "t:r:n:p:d:h")) != -1) {
		switch (c) {
		case 't': secs = atof(optarg); break;
		case 'r': runs = (unsigned)atoi(optarg); break;
		case 'n': inflight = (unsigned)atoi(optarg); break;
		case 'p': want = strtoull(optarg, NULL, 16); break;
		case 'd': b.lids.dest_lid = cl_hton16((uint16_t)strtoul(optarg, NULL, 0)); break;
		default:
			fprintf(stderr, "usage: bench_sa [-t SECONDS] [-r RUNS] [-n INFLIGHT] "
					"[-p PORT_GUID] [-d DLID]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (secs <= 0 || !runs || !inflight || inflight > MAX_INFLIGHT) {
		fprintf(stderr, "bench_sa: bad option value\n");
		return 2;
	}
	if (!getenv("IBAL_SOFT_FABRIC") && !getenv("IBAL_PROVIDERS")) {
		strcpy(g_dir, "/tmp/ibal-bench-sa.XXXXXX");
		if (!mkdtemp(g_dir)) {
			perror("bench_sa: mkdtemp");
			return 1;
		}
		atexit(rm_dir);
		setenv("IBAL_SOFT_FABRIC", g_dir, 1);
	}
	pthread_mutex_init(&b.lock, NULL);
	pthread_cond_init(&b.cond, NULL);
	st = ib_open_al(&b.h_al);
	if (st != IB_SUCCESS)
		die("ib_open_al", st);
	find_port(&b, cl_hton64(want));
	printf("# PathRecord queries through ib_query: port 0x%016" PRIx64 " LID %u -> LID %u, "
	       "best of %u runs of %.1f s\n", cl_ntoh64(b.port_guid), cl_ntoh16(b.lids.src_lid),
	       cl_ntoh16(b.lids.dest_lid), runs, secs);
	printf("# name\tqueries/s\tqueries\n");
	for (mode = 0; mode < 2; mode++) {
		best = 0;
		best_cnt = 0;
		for (r = 0; r < runs; r++) {
			q = measure(&b, mode ? inflight : 0, secs, &cnt);
			if (q > best) {
				best = q;
				best_cnt = cnt;
			}
		}
		if (mode)
			printf("path_query_async_%u\t%.0f\t%" PRIu64 "\n", inflight, best, best_cnt);
		else
			printf("path_query_sync\t%.0f\t%" PRIu64 "\n", best, best_cnt);
		fflush(stdout);
	}
	ib_close_al(b.h_al);
	return 0;
}
