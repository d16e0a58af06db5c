/*
 * ibal soft provider: reads the fabric service's topology file (soft_topo.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A line is split into words at blanks; the first word must be "node", the
 * second is the name, the rest are key=value words (guid=, lid=). Every
 * check names the line it failed on.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "soft_topo.h"

#define MAX_WORDS 8
#define MAX_WORD 256

typedef struct topo_line {
	unsigned no;                 /* 1-based line number */
	unsigned n_words;
	char word[MAX_WORDS][MAX_WORD];
} topo_line_t;

static ib_api_status_t fail(char *err, size_t err_size, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static ib_api_status_t fail(char *err, size_t err_size, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (err && err_size) {
		if (line)
			n = snprintf(err, err_size, "line %u: ", line);
		if (n >= 0 && (size_t)n < err_size) {
			va_start(ap, fmt);
			vsnprintf(err + n, err_size - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	return IB_INVALID_SETTING;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Splits text[0..len) into words (a '#' ends the line); -1 if a word or their number is too big. */
static int split(const char *text, size_t len, topo_line_t *l)
{
	size_t i = 0, n;

	l->n_words = 0;
	while (i < len && text[i] != '#') {
		if (is_blank(text[i])) {
			i++;
			continue;
		}
		for (n = 0; i + n < len && !is_blank(text[i + n]) && text[i + n] != '#'; n++)
			;
		if (l->n_words == MAX_WORDS || n >= MAX_WORD)
			return -1;
		memcpy(l->word[l->n_words], text + i, n);
		l->word[l->n_words++][n] = '\0';
		i += n;
	}
	return 0;
}

static int name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n >= SOFT_TOPO_NAME_SIZE)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return 0;
	}
	return 1;
}

/* A whole unsigned number (decimal or 0x hex) at most max; -1 otherwise. */
static int parse_num(const char *s, unsigned long long max, unsigned long long *p_v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || is_blank(*s))
		return -1;
	errno = 0;
	*p_v = strtoull(s, &end, 0);
	return errno || *end || *p_v > max ? -1 : 0;
}

static ib_api_status_t parse_lids(const char *v, soft_topo_node_t *node, char *err, size_t es,
				  unsigned line)
{
	char buf[MAX_WORD];
	char *save = NULL, *tok;
	unsigned long long lid;

	strcpy(buf, v);
	node->n_ports = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (node->n_ports == SOFT_TOPO_MAX_PORTS)
			return fail(err, es, line, "more than %d ports", SOFT_TOPO_MAX_PORTS);
		if (parse_num(tok, 0xBFFF, &lid) || !lid)
			return fail(err, es, line, "bad LID '%s' (1..0xBFFF)", tok);
		node->lid[node->n_ports++] = (uint16_t)lid;
	}
	if (!node->n_ports || v[strlen(v) - 1] == ',' || strstr(v, ",,"))
		return fail(err, es, line, "bad LID list '%s'", v);
	return IB_SUCCESS;
}

/* Checks a new node against the ones before it. */
static ib_api_status_t check_unique(const soft_topo_t *t, const soft_topo_node_t *node, char *err,
				    size_t es, unsigned line)
{
	unsigned i, p, q;

	for (i = 0; i < t->n_nodes; i++) {
		const soft_topo_node_t *o = &t->node[i];

		if (!strcmp(o->name, node->name))
			return fail(err, es, line, "duplicate node name '%s'", node->name);
		if (o->node_guid == node->node_guid)
			return fail(err, es, line, "duplicate node GUID of '%s'", o->name);
		for (p = 0; p < node->n_ports; p++)
			for (q = 0; q < o->n_ports; q++)
				if (node->lid[p] == o->lid[q])
					return fail(err, es, line, "duplicate LID 0x%x (node '%s')",
						    node->lid[p], o->name);
	}
	for (p = 1; p < node->n_ports; p++)
		if (node->lid[p] == node->lid[0])
			return fail(err, es, line, "duplicate LID 0x%x", node->lid[p]);
	return IB_SUCCESS;
}

static ib_api_status_t parse_node(const topo_line_t *l, soft_topo_t *t, char *err, size_t es)
{
	soft_topo_node_t node;
	unsigned long long guid;
	unsigned i;
	int have_guid = 0, have_lid = 0;
	ib_api_status_t st;

	if (strcmp(l->word[0], "node"))
		return fail(err, es, l->no, "unknown keyword '%s' (expected 'node')", l->word[0]);
	if (l->n_words < 2 || !name_ok(l->word[1]))
		return fail(err, es, l->no, "a node needs a name of 1-63 of A-Z a-z 0-9 _ . -");
	memset(&node, 0, sizeof(node));
	strcpy(node.name, l->word[1]);
	for (i = 2; i < l->n_words; i++) {
		const char *w = l->word[i];

		if (!strncmp(w, "guid=", 5) && !have_guid) {
			if (parse_num(w + 5, ~0ull, &guid) || !guid || (guid & 0xF))
				return fail(err, es, l->no,
					    "bad node GUID '%s' (non-zero, low 4 bits 0)", w + 5);
			node.node_guid = cl_hton64((uint64_t)guid);
			have_guid = 1;
		} else if (!strncmp(w, "lid=", 4) && !have_lid) {
			st = parse_lids(w + 4, &node, err, es, l->no);
			if (st != IB_SUCCESS)
				return st;
			have_lid = 1;
		} else {
			return fail(err, es, l->no, "unexpected '%s' (guid= and lid= once each)", w);
		}
	}
	if (!have_guid || !have_lid)
		return fail(err, es, l->no, "node '%s' needs guid= and lid=", node.name);
	st = check_unique(t, &node, err, es, l->no);
	if (st != IB_SUCCESS)
		return st;
	if (t->n_nodes == SOFT_TOPO_MAX_NODES)
		return fail(err, es, l->no, "more than %d nodes", SOFT_TOPO_MAX_NODES);
	t->node[t->n_nodes++] = node;
	return IB_SUCCESS;
}

ib_api_status_t soft_topo_parse(const char *text, size_t len, soft_topo_t *p_topo, char *err,
				size_t err_size)
{
	topo_line_t *l;
	size_t start = 0, end;
	ib_api_status_t st = IB_SUCCESS;

	if (!text || !p_topo)
		return IB_INVALID_PARAMETER;
	if (err && err_size)
		err[0] = '\0';
	if (memchr(text, '\0', len))
		return fail(err, err_size, 0, "not a text file (NUL byte)");
	l = (topo_line_t *)malloc(sizeof(*l));
	if (!l)
		return IB_INSUFFICIENT_MEMORY;
	memset(p_topo, 0, sizeof(*p_topo));
	l->no = 0;
	while (start < len && st == IB_SUCCESS) {
		for (end = start; end < len && text[end] != '\n'; end++)
			;
		l->no++;
		if (split(text + start, end - start, l))
			st = fail(err, err_size, l->no, "line too long");
		else if (l->n_words)
			st = parse_node(l, p_topo, err, err_size);
		start = end + 1;
	}
	free(l);
	if (st == IB_SUCCESS && !p_topo->n_nodes)
		st = fail(err, err_size, 0, "no node");
	return st;
}

ib_api_status_t soft_topo_load(const char *path, soft_topo_t *p_topo, char *err, size_t err_size)
{
	char *buf, sub[192];
	ssize_t n;
	size_t len = 0;
	ib_api_status_t st;
	int fd;

	if (!path || !p_topo)
		return IB_INVALID_PARAMETER;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		if (err && err_size)
			snprintf(err, err_size, "%s: %s", path, strerror(errno));
		return IB_NOT_FOUND;
	}
	buf = (char *)malloc(SOFT_TOPO_MAX_FILE + 1);
	if (!buf) {
		close(fd);
		return IB_INSUFFICIENT_MEMORY;
	}
	do {
		n = read(fd, buf + len, SOFT_TOPO_MAX_FILE + 1 - len);
		if (n > 0)
			len += (size_t)n;
	} while ((n > 0 || (n < 0 && errno == EINTR)) && len <= SOFT_TOPO_MAX_FILE);
	close(fd);
	if (n < 0) {
		st = IB_NOT_FOUND;
		snprintf(sub, sizeof(sub), "%s", strerror(errno));
	} else if (len > SOFT_TOPO_MAX_FILE) {
		st = fail(sub, sizeof(sub), 0, "larger than %d bytes", SOFT_TOPO_MAX_FILE);
	} else {
		st = soft_topo_parse(buf, len, p_topo, sub, sizeof(sub));
	}
	free(buf);
	if (st != IB_SUCCESS && err && err_size)
		snprintf(err, err_size, "%s: %s", path, sub);
	return st;
}

const soft_topo_node_t *soft_topo_find(const soft_topo_t *p_topo, const char *name)
{
	unsigned i;

	if (!p_topo || !name)
		return NULL;
	for (i = 0; i < p_topo->n_nodes; i++)
		if (!strcmp(p_topo->node[i].name, name))
			return &p_topo->node[i];
	return NULL;
}
