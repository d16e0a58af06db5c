/*
 * ibal tests: cl_nodenamemap (map files, remapping, node description cleanup).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#define _GNU_SOURCE
#include <complib/cl_nodenamemap.h>
#include <errno.h>
#include <unistd.h>
#include "../common/cl_test.h"

static char log_path[64];
static long log_pos;

static char *file_take(const char *path, long *pos)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long end;
	size_t n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	end = ftell(f);
	buf = (char *)malloc((size_t)(end - *pos) + 1);
	fseek(f, *pos, SEEK_SET);
	n = fread(buf, 1, (size_t)(end - *pos), f);
	buf[n] = '\0';
	*pos += (long)n;
	fclose(f);
	return buf;
}

/* Writes `text` to a new temporary file; returns its path (static buffer). */
static const char *temp_map(const char *text)
{
	static char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_cl_nnmap.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

/* remap_node_name result compared to `expect`, freed. */
static int remaps_to(nn_map_t *map, uint64_t guid, const char *desc, const char *expect)
{
	char buf[128];
	char *got;
	int ok;

	snprintf(buf, sizeof(buf), "%s", desc);
	got = remap_node_name(map, guid, buf);
	ok = got && !strcmp(got, expect);
	if (!ok)
		fprintf(stderr, "guid 0x%" PRIx64 ": got \"%s\", expected \"%s\"\n", guid,
			got ? got : "(null)", expect);
	free(got);
	return ok;
}

static const char good_map[] =
	"# node name map for the test\n"
	"   # indented comment\n"
	"\n"
	"  \t \n"
	"0x0002c90300001234 \"switch-1\"   # trailing comment\n"
	"0x2c90300005678\t\"host with spaces\"\n"
	"0X10 unquoted name   # comment after it\n"
	"17 \"decimal guid\"\n"
	"0x20\n"
	"0x21 # a GUID with only a comment\n"
	"0x22 \"\"\n"
	"0x0002c90300001234 \"duplicate is ignored\"\n"
	"0x30 \"unterminated quote  \n"
	"0x40 \"hash # inside quotes\" # comment\n"
	"0x50 \"crlf line\"\r\n"
	"0xffffffffffffffff \"max guid\"\n"
	"0x60#\"glued comment\"\n"
	"0x70 \"last line without newline\"";

static void test_open_and_remap(void)
{
	const char *path = temp_map(good_map);
	nn_map_t *map;

	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	map = open_node_name_map(path);
	unlink(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(map);
	/* Entries: 0x..1234, 0x..5678, 0x10, 17, 0x30, 0x40, 0x50, max, 0x70. */
	CU_ASSERT_EQUAL(cl_qmap_count(map), 9);
	CU_ASSERT_TRUE(remaps_to(map, 0x0002c90300001234ull, "desc", "switch-1"));
	CU_ASSERT_TRUE(remaps_to(map, 0x2c90300005678ull, "desc", "host with spaces"));
	CU_ASSERT_TRUE(remaps_to(map, 0x10, "desc", "unquoted name"));
	CU_ASSERT_TRUE(remaps_to(map, 17, "desc", "decimal guid"));
	CU_ASSERT_TRUE(remaps_to(map, 0x30, "desc", "unterminated quote"));
	CU_ASSERT_TRUE(remaps_to(map, 0x40, "desc", "hash # inside quotes"));
	CU_ASSERT_TRUE(remaps_to(map, 0x50, "desc", "crlf line"));
	CU_ASSERT_TRUE(remaps_to(map, UINT64_MAX, "desc", "max guid"));
	CU_ASSERT_TRUE(remaps_to(map, 0x70, "desc", "last line without newline"));
	/* Lines without a name add nothing: the description is used. */
	CU_ASSERT_TRUE(remaps_to(map, 0x20, "node 20", "node 20"));
	CU_ASSERT_TRUE(remaps_to(map, 0x21, "node 21", "node 21"));
	CU_ASSERT_TRUE(remaps_to(map, 0x22, "node 22", "node 22"));
	CU_ASSERT_TRUE(remaps_to(map, 0x60, "node 60", "node 60"));
	/* Unknown GUID: the cleaned description. */
	CU_ASSERT_TRUE(remaps_to(map, 0x99, "mlx4_0\tport\x01", "mlx4_0 port "));
	close_node_name_map(map);
	/* Nothing reported for a valid file. */
	free(file_take(log_path, &log_pos));
}

static void test_map_items(void)
{
	const char *path = temp_map("0x3 \"c\"\n0x1 \"a\"\n0x2 \"b\"\n");
	nn_map_t *map;
	cl_map_item_t *it;
	uint64_t expect = 1;

	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	map = open_node_name_map(path);
	unlink(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(map);
	/* The map is a cl_qmap of name_map_item_t, in GUID order. */
	for (it = cl_qmap_head(map); it != cl_qmap_end(map); it = cl_qmap_next(it)) {
		name_map_item_t *item = (name_map_item_t *)it;

		CU_ASSERT_EQUAL(item->guid, expect);
		CU_ASSERT_EQUAL(cl_qmap_key(it), expect);
		CU_ASSERT_EQUAL(item->name[0], (char)('a' + expect - 1));
		CU_ASSERT_EQUAL(item->name[1], '\0');
		expect++;
	}
	CU_ASSERT_EQUAL(expect, 4);
	close_node_name_map(map);
}

static void test_empty_file(void)
{
	const char *path = temp_map("# only comments\n\n");
	nn_map_t *map;

	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	map = open_node_name_map(path);
	unlink(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(map);
	CU_ASSERT_TRUE(cl_is_qmap_empty(map));
	CU_ASSERT_TRUE(remaps_to(map, 1, "x", "x"));
	close_node_name_map(map);
}

static void test_bad_guid_lines(void)
{
	static const char *const bad[] = {
		"0x10 \"a\"\nzzz \"b\"\n",        /* not a number */
		"0x10 \"a\"\n0x1g \"b\"\n",       /* junk after the number */
		"0x12\"glued\"\n",                /* no blank after the GUID */
		"-5 \"negative\"\n",
		"0x1ffffffffffffffff \"big\"\n",  /* more than 64 bits */
		"\"no guid\"\n",
	};
	static const unsigned bad_line[] = { 2, 2, 1, 1, 1, 1 };
	char expect[128];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *path = temp_map(bad[i]);
		char *logged;
		nn_map_t *map;

		CU_ASSERT_PTR_NOT_NULL_FATAL(path);
		map = open_node_name_map(path);
		CU_ASSERT_PTR_NULL(map);
		close_node_name_map(map);
		logged = file_take(log_path, &log_pos);
		snprintf(expect, sizeof(expect),
			 "WARNING failed to open node name map \"%s\" (line %u: invalid GUID)\n",
			 path, bad_line[i]);
		CU_ASSERT_STRING_EQUAL(logged, expect);
		free(logged);
		unlink(path);
	}
	/* Without a map every node falls back to its description. */
	CU_ASSERT_TRUE(remaps_to(NULL, 0x10, "fallback\x7f", "fallback "));
}

static void test_missing_file(void)
{
	char *logged;

	errno = 0;
	CU_ASSERT_PTR_NULL(open_node_name_map("/nonexistent/ibal/node-name-map"));
	CU_ASSERT_EQUAL(errno, ENOENT);
	logged = file_take(log_path, &log_pos);
	CU_ASSERT_PTR_NOT_NULL(strstr(logged, "\"/nonexistent/ibal/node-name-map\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(logged, strerror(ENOENT)));
	free(logged);
	/* No file name: no map, nothing reported. */
	CU_ASSERT_PTR_NULL(open_node_name_map(NULL));
	logged = file_take(log_path, &log_pos);
	CU_ASSERT_STRING_EQUAL(logged, "");
	free(logged);
	close_node_name_map(NULL);
}

static void test_long_lines(void)
{
	char text[1200], name[1001];
	const char *path;
	nn_map_t *map;
	char *got;

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(text, sizeof(text), "0x5 \"%s\"\n0x6 \"short\"\n", name);
	path = temp_map(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	map = open_node_name_map(path);
	unlink(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(map);
	got = remap_node_name(map, 5, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_STRING_EQUAL(got, name);
	free(got);
	CU_ASSERT_TRUE(remaps_to(map, 6, "x", "short"));
	/* No entry and no description: NULL. */
	CU_ASSERT_PTR_NULL(remap_node_name(map, 7, NULL));
	close_node_name_map(map);
}

typedef struct {
	int calls;
	int fail_at;
	uint64_t guids[8];
	char rest[8][64];
} record_t;

static int record(void *cxt, uint64_t guid, char *rest)
{
	record_t *r = (record_t *)cxt;

	if (r->calls == r->fail_at)
		return -1;
	if (r->calls < 8) {
		r->guids[r->calls] = guid;
		snprintf(r->rest[r->calls], sizeof(r->rest[0]), "%s", rest);
	}
	r->calls++;
	return 0;
}

static void test_parse_node_map(void)
{
	const char *path = temp_map("# c\n0x1 \"one\" # note  \n  2\t  free text \n0x3\n");
	record_t r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	memset(&r, 0, sizeof(r));
	r.fail_at = -1;
	CU_ASSERT_EQUAL(parse_node_map(path, record, &r), 0);
	CU_ASSERT_EQUAL(r.calls, 3);
	CU_ASSERT_EQUAL(r.guids[0], 1);
	CU_ASSERT_STRING_EQUAL(r.rest[0], "\"one\" # note");
	CU_ASSERT_EQUAL(r.guids[1], 2);
	CU_ASSERT_STRING_EQUAL(r.rest[1], "free text");
	CU_ASSERT_EQUAL(r.guids[2], 3);
	CU_ASSERT_STRING_EQUAL(r.rest[2], "");
	/* A failing callback stops the parse. */
	memset(&r, 0, sizeof(r));
	r.fail_at = 1;
	CU_ASSERT_EQUAL(parse_node_map(path, record, &r), -1);
	CU_ASSERT_EQUAL(r.calls, 1);
	unlink(path);
	/* Bad GUID: -1 with EINVAL, after the lines before it. */
	path = temp_map("0x1 a\nbad b\n0x3 c\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	memset(&r, 0, sizeof(r));
	r.fail_at = -1;
	errno = 0;
	CU_ASSERT_EQUAL(parse_node_map(path, record, &r), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(r.calls, 1);
	unlink(path);
	errno = 0;
	CU_ASSERT_EQUAL(parse_node_map("/nonexistent/ibal/map", record, &r), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	CU_ASSERT_EQUAL(parse_node_map(NULL, record, &r), -1);
	/* parse_node_map reports nothing itself. */
	{
		char *logged = file_take(log_path, &log_pos);

		CU_ASSERT_STRING_EQUAL(logged, "");
		free(logged);
	}
}

static void test_clean_nodedesc(void)
{
	char desc[80], shortd[8];
	size_t i;

	CU_ASSERT_PTR_NULL(clean_nodedesc(NULL));
	/* Non-printable characters, including high bytes, become spaces. */
	snprintf(desc, sizeof(desc), "a\tb\nc\x01\x7f\xc3\xa9z");
	CU_ASSERT_PTR_EQUAL(clean_nodedesc(desc), desc);
	CU_ASSERT_STRING_EQUAL(desc, "a b c    z");
	/* A full 64-byte field without a terminator is cut to 63 characters. */
	memset(desc, 'x', sizeof(desc));
	clean_nodedesc(desc);
	CU_ASSERT_EQUAL(strlen(desc), 63);
	for (i = 64; i < sizeof(desc); i++)
		CU_ASSERT_EQUAL(desc[i], 'x'); /* nothing written past the field */
	/* A short string is left as is (no write past its end). */
	snprintf(shortd, sizeof(shortd), "abc");
	clean_nodedesc(shortd);
	CU_ASSERT_STRING_EQUAL(shortd, "abc");
	/* remap_node_name cleans the caller's description in place. */
	snprintf(desc, sizeof(desc), "host\x02" "1");
	{
		char *got = remap_node_name(NULL, 1, desc);

		CU_ASSERT_STRING_EQUAL(got, "host 1");
		CU_ASSERT_STRING_EQUAL(desc, "host 1");
		free(got);
	}
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_open_and_remap),
	TEST_ENTRY(test_map_items),
	TEST_ENTRY(test_empty_file),
	TEST_ENTRY(test_bad_guid_lines),
	TEST_ENTRY(test_missing_file),
	TEST_ENTRY(test_long_lines),
	TEST_ENTRY(test_parse_node_map),
	TEST_ENTRY(test_clean_nodedesc),
};

int main(void)
{
	int fd, rc;

	/* CL_LOG_FILE is read once: set it before any output. */
	snprintf(log_path, sizeof(log_path), "/tmp/test_cl_nnmap_log.XXXXXX");
	fd = mkstemp(log_path);
	if (fd < 0)
		return 2;
	close(fd);
	setenv("CL_LOG_FILE", log_path, 1);
	rc = test_run_suite("cl_nodenamemap", tests, TEST_COUNT(tests));
	unlink(log_path);
	return rc;
}
