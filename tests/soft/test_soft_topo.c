/*
 * ibal tests: the fabric service's topology file (soft_topo.c) and the
 * registry's reservation of its LIDs (soft_fabric_reserve()).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "soft_fabric.h"
#include "soft_topo.h"
#include "../common/cl_test.h"
#include "../common/fab_dir.h"

static soft_topo_t topo;
static char err[256];

static ib_api_status_t parse(const char *text)
{
	return soft_topo_parse(text, strlen(text), &topo, err, sizeof(err));
}

static void test_parse_good(void)
{
	const soft_topo_node_t *n;

	CU_ASSERT_EQUAL(parse("# a fabric\n\n"
			      "node server guid=0x0002c90300001230 lid=0x10   # comment\r\n"
			      "  node client-2.b lid=32,0x21 guid=0x0002c90300001240\n"
			      "node last guid=1024 lid=49151"),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(topo.n_nodes, 3);
	n = soft_topo_find(&topo, "client-2.b");
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT_EQUAL(n->n_ports, 2);
	CU_ASSERT_EQUAL(n->lid[0], 32);
	CU_ASSERT_EQUAL(n->lid[1], 0x21);
	CU_ASSERT_EQUAL(n->node_guid, CL_HTON64(0x0002c90300001240ull));
	CU_ASSERT_EQUAL(soft_topo_port_guid(n, 2), CL_HTON64(0x0002c90300001242ull));
	CU_ASSERT_EQUAL(soft_topo_find(&topo, "last")->lid[0], 0xBFFF);
	CU_ASSERT_PTR_NULL(soft_topo_find(&topo, "nobody"));
	CU_ASSERT_PTR_NULL(soft_topo_find(NULL, "server"));
}

/* Each bad text fails with the line and the reason in the message. */
static void test_parse_bad(void)
{
	static const struct {
		const char *text;
		const char *says;
	} bad[] = {
		{ "", "no node" },
		{ "# only a comment\n", "no node" },
		{ "host a guid=0x10 lid=1\n", "line 1: unknown keyword" },
		{ "node\n", "line 1: a node needs a name" },
		{ "node a/b guid=0x10 lid=1\n", "a node needs a name" },
		{ "node a guid=0x10\n", "needs guid= and lid=" },
		{ "node a lid=1\n", "needs guid= and lid=" },
		{ "node a guid=0x11 lid=1\n", "bad node GUID" },
		{ "node a guid=0 lid=1\n", "bad node GUID" },
		{ "node a guid=0x1g0 lid=1\n", "bad node GUID" },
		{ "node a guid=0x10 lid=0\n", "bad LID" },
		{ "node a guid=0x10 lid=0xC000\n", "bad LID" },
		{ "node a guid=0x10 lid=-1\n", "bad LID" },
		{ "node a guid=0x10 lid=1,2,3\n", "more than 2 ports" },
		{ "node a guid=0x10 lid=1,\n", "bad LID list" },
		{ "node a guid=0x10 lid=1,1\n", "duplicate LID" },
		{ "node a guid=0x10 lid=1 lid=2\n", "unexpected" },
		{ "node a guid=0x10 lid=1 color=red\n", "unexpected 'color=red'" },
		{ "node a guid=0x10 lid=1\nnode a guid=0x20 lid=2\n", "line 2: duplicate node name" },
		{ "node a guid=0x10 lid=1\nnode b guid=0x10 lid=2\n", "line 2: duplicate node GUID" },
		{ "node a guid=0x10 lid=1\n\nnode b guid=0x20 lid=3,1\n", "line 3: duplicate LID 0x1" },
		{ "node a guid=0x10 lid=1 x x x x x x x\n", "line too long" },
	};
	char text[16384]; /* SOFT_TOPO_MAX_NODES + 1 short lines */
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT_EQUAL(parse(bad[i].text), IB_INVALID_SETTING);
		if (!strstr(err, bad[i].says))
			fprintf(stderr, "'%s': said '%s', not '%s'\n", bad[i].text, err, bad[i].says);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, bad[i].says));
	}
	/* A NUL byte, a word too long, too many nodes. */
	CU_ASSERT_EQUAL(soft_topo_parse("node a\0", 7, &topo, err, sizeof(err)), IB_INVALID_SETTING);
	memset(text, 'x', sizeof(text));
	memcpy(text, "node ", 5);
	CU_ASSERT_EQUAL(soft_topo_parse(text, sizeof(text), &topo, err, sizeof(err)),
			IB_INVALID_SETTING);
	/* As many nodes as the service holds, and one more. */
	text[0] = '\0';
	for (i = 0; i < SOFT_TOPO_MAX_NODES; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "node n%zu guid=%zu lid=%zu\n",
			 i, (i + 1) * 16, i + 1);
	CU_ASSERT_EQUAL(parse(text), IB_SUCCESS);
	CU_ASSERT_EQUAL(topo.n_nodes, SOFT_TOPO_MAX_NODES);
	snprintf(text + strlen(text), sizeof(text) - strlen(text), "node n%zu guid=%zu lid=%zu\n", i,
		 (i + 1) * 16, i + 1);
	CU_ASSERT_EQUAL(parse(text), IB_INVALID_SETTING);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "more than 255 nodes"));
	CU_ASSERT_EQUAL(soft_topo_parse(NULL, 0, &topo, err, sizeof(err)), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_topo_parse("", 0, NULL, err, sizeof(err)), IB_INVALID_PARAMETER);
	/* No room for the message is fine. */
	CU_ASSERT_EQUAL(soft_topo_parse("x", 1, &topo, NULL, 0), IB_INVALID_SETTING);
}

static void test_load(void)
{
	char dir[] = "/tmp/ibal-topo-XXXXXX", path[64];
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/net", dir);
	CU_ASSERT_EQUAL(soft_topo_load(path, &topo, err, sizeof(err)), IB_NOT_FOUND);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("node a guid=0x10 lid=5\nnode b guid=0x20 lid=x\n", f);
	fclose(f);
	CU_ASSERT_EQUAL(soft_topo_load(path, &topo, err, sizeof(err)), IB_INVALID_SETTING);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "net: line 2: bad LID 'x'"));
	/* Too big a file is refused before it is parsed. */
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("node a guid=0x10 lid=5\n", f);
	CU_ASSERT_EQUAL(fseek(f, SOFT_TOPO_MAX_FILE, SEEK_SET), 0);
	fputs("#\n", f);
	fclose(f);
	CU_ASSERT_EQUAL(soft_topo_load(path, &topo, err, sizeof(err)), IB_INVALID_SETTING);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "larger than"));
	test_rm_tree(dir);
}

/* Reserved LIDs go to their port GUIDs only, and stay reserved across opens. */
static void test_reservations(void)
{
	char dir[] = "/tmp/ibal-topo-XXXXXX";
	soft_fabric_port_info_t res[2];
	soft_fabric_port_t *a, *b, *c;
	ib_net64_t ga = CL_HTON64(0x0002c90300001231ull), gb = CL_HTON64(0x0002c90300001241ull);
	size_t bad = 99;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	setenv(SOFT_FABRIC_ENV_DIR, dir, 1);
	memset(res, 0, sizeof(res));
	res[0].port_guid = ga;
	res[0].node_guid = CL_HTON64(0x0002c90300001230ull);
	res[0].lid = 1;
	res[0].port_num = 1;
	res[1].port_guid = gb;
	res[1].node_guid = CL_HTON64(0x0002c90300001240ull);
	res[1].lid = 3;
	res[1].port_num = 1;
	CU_ASSERT_EQUAL(soft_fabric_reserve(res, 2, &bad), IB_SUCCESS);
	/* A port without a LID of its own skips both. */
	CU_ASSERT_EQUAL(soft_fabric_port_open(CL_HTON64(0x77ull << 4 | 1), CL_HTON64(0x77ull << 4), 1,
					      &c),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_fabric_port_lid(c), 2);
	/* Another GUID cannot have a reserved LID; its own GUID gets it. */
	CU_ASSERT_EQUAL(soft_fabric_port_open_at(CL_HTON64(0x88ull << 4 | 1), CL_HTON64(0x88ull << 4),
						 1, 3, &b),
			IB_RESOURCE_BUSY);
	CU_ASSERT_EQUAL(soft_fabric_port_open_at(gb, res[1].node_guid, 1, 3, &b), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_fabric_port_lid(b), 3);
	CU_ASSERT_EQUAL(soft_fabric_port_open(ga, res[0].node_guid, 1, &a), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_fabric_port_lid(a), 1); /* its reserved LID is its former one */
	/* A LID a live port of another GUID holds cannot be reserved. */
	res[1].lid = 2;
	CU_ASSERT_EQUAL(soft_fabric_reserve(res, 2, &bad), IB_RESOURCE_BUSY);
	CU_ASSERT_EQUAL(bad, 1);
	CU_ASSERT_EQUAL(soft_fabric_port_set_lid(c, 1), IB_RESOURCE_BUSY);
	res[1].lid = 3;
	/* Closed, the reserved LID stays its GUID's. */
	soft_fabric_port_close(b);
	CU_ASSERT_EQUAL(soft_fabric_port_set_lid(c, 3), IB_RESOURCE_BUSY);
	CU_ASSERT_EQUAL(soft_fabric_port_open_at(gb, res[1].node_guid, 1, 3, &b), IB_SUCCESS);
	soft_fabric_port_close(b);
	/* Lifted, it is anyone's. */
	soft_fabric_unreserve(res, 2);
	CU_ASSERT_EQUAL(soft_fabric_port_set_lid(c, 3), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_fabric_reserve(NULL, 1, NULL), IB_INVALID_PARAMETER);
	res[0].lid = 0xC000;
	CU_ASSERT_EQUAL(soft_fabric_reserve(res, 1, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_fabric_port_open_at(gb, res[1].node_guid, 1, 0xC000, &b),
			IB_INVALID_PARAMETER);
	soft_fabric_port_close(a);
	soft_fabric_port_close(c);
	test_rm_tree(dir);
	unsetenv(SOFT_FABRIC_ENV_DIR);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_parse_good),
	TEST_ENTRY(test_parse_bad),
	TEST_ENTRY(test_load),
	TEST_ENTRY(test_reservations),
};

TEST_MAIN("soft_topo", tests)
