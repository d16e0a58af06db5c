/*
 * ibal complib: node name map files, lookup and node description cleanup.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_DEFAULT_NODENAME_MAP
#include <unistd.h>
#endif
#include <complib/cl_nodenamemap.h>
#include "cl_internal.h"

/* Size of an InfiniBand NodeDescription field. */
#define NODEDESC_LEN 64

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static void trim_end(char *s)
{
	size_t n = strlen(s);

	while (n && is_blank(s[n - 1]))
		s[--n] = '\0';
}

/* Parses one line; returns 1 for an entry (guid, *rest set), 0 for a
 * comment or blank line, -1 for an invalid GUID. */
static int parse_line(char *line, uint64_t *guid, char **rest)
{
	char *p = line, *e;

	while (is_blank(*p))
		p++;
	if (*p == '\0' || *p == '#')
		return 0;
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	*guid = strtoull(p, &e, 0);
	if (errno || e == p || (*e && *e != '#' && !is_blank(*e)))
		return -1;
	while (is_blank(*e))
		e++;
	trim_end(e);
	*rest = e;
	return 1;
}

/* parse_node_map, also telling the number of the offending line. */
static int parse_file(const char *file_name, int (*create)(void *, uint64_t, char *),
		      void *cxt, unsigned *bad_line)
{
	char *line = NULL, *rest = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	uint64_t guid = 0;
	int rc = 0, err = 0;
	FILE *f;

	*bad_line = 0;
	f = fopen(file_name, "r");
	if (!f)
		return -1;
	errno = 0;
	while (getline(&line, &cap, f) != -1) {
		int kind = parse_line(line, &guid, &rest);

		lineno++;
		if (kind < 0) {
			*bad_line = lineno;
			err = EINVAL;
			rc = -1;
			break;
		}
		if (kind && create(cxt, guid, rest)) {
			err = errno ? errno : EINVAL;
			rc = -1;
			break;
		}
		errno = 0;
	}
	if (!rc && ferror(f)) {
		err = errno ? errno : EIO;
		rc = -1;
	} else if (!rc && errno == ENOMEM) {
		err = ENOMEM;
		rc = -1;
	}
	free(line);
	fclose(f);
	if (rc)
		errno = err;
	return rc;
}

int parse_node_map(const char *file_name, int (*create)(void *, uint64_t, char *), void *cxt)
{
	unsigned bad_line;

	if (!file_name || !create) {
		errno = EINVAL;
		return -1;
	}
	return parse_file(file_name, create, cxt, &bad_line);
}

/* Extracts the name from the rest of an entry line; NULL when empty. */
static char *entry_name(char *rest)
{
	char *end;

	if (*rest == '"') {
		rest++;
		end = strchr(rest, '"');
		if (end)
			*end = '\0';
	} else {
		end = strchr(rest, '#');
		if (end)
			*end = '\0';
	}
	trim_end(rest);
	return *rest ? rest : NULL;
}

/* parse_node_map callback of open_node_name_map: adds one entry. */
static int add_entry(void *cxt, uint64_t guid, char *rest)
{
	nn_map_t *map = (nn_map_t *)cxt;
	name_map_item_t *item;
	char *name = entry_name(rest);

	if (!name)
		return 0;
	item = (name_map_item_t *)malloc(sizeof(*item));
	if (!item)
		return -1;
	item->guid = guid;
	item->name = strdup(name);
	if (!item->name) {
		free(item);
		return -1;
	}
	/* The first entry for a GUID wins: drop a later duplicate. */
	if (cl_qmap_insert(map, guid, &item->item) != &item->item) {
		free(item->name);
		free(item);
	}
	return 0;
}

nn_map_t *open_node_name_map(const char *node_name_map)
{
	unsigned bad_line;
	nn_map_t *map;

	if (!node_name_map) {
#ifdef HAVE_DEFAULT_NODENAME_MAP
		node_name_map = HAVE_DEFAULT_NODENAME_MAP;
		if (access(node_name_map, R_OK))
			return NULL;
#else
		return NULL;
#endif
	}
	map = (nn_map_t *)malloc(sizeof(*map));
	if (!map) {
		cl_out_printf("WARNING failed to open node name map \"%s\" (%s)\n",
			      node_name_map, strerror(ENOMEM));
		return NULL;
	}
	cl_qmap_init(map);
	if (parse_file(node_name_map, add_entry, map, &bad_line)) {
		int err = errno;

		if (bad_line)
			cl_out_printf("WARNING failed to open node name map \"%s\" "
				      "(line %u: invalid GUID)\n", node_name_map, bad_line);
		else
			cl_out_printf("WARNING failed to open node name map \"%s\" (%s)\n",
				      node_name_map, strerror(err));
		close_node_name_map(map);
		errno = err;
		return NULL;
	}
	return map;
}

void close_node_name_map(nn_map_t *map)
{
	cl_map_item_t *it;

	if (!map)
		return;
	while ((it = cl_qmap_head(map)) != cl_qmap_end(map)) {
		name_map_item_t *item = PARENT_STRUCT(it, name_map_item_t, item);

		cl_qmap_remove_item(map, it);
		free(item->name);
		free(item);
	}
	free(map);
}

char *remap_node_name(nn_map_t *map, uint64_t target_guid, char *nodedesc)
{
	cl_map_item_t *it;

	if (map) {
		it = cl_qmap_get(map, target_guid);
		if (it != cl_qmap_end(map))
			return strdup(PARENT_STRUCT(it, name_map_item_t, item)->name);
	}
	if (!nodedesc)
		return NULL;
	return strdup(clean_nodedesc(nodedesc));
}

char *clean_nodedesc(char *nodedesc)
{
	size_t i, n;

	if (!nodedesc)
		return NULL;
	n = strnlen(nodedesc, NODEDESC_LEN);
	if (n == NODEDESC_LEN)
		nodedesc[--n] = '\0';
	for (i = 0; i < n; i++)
		if (!isprint((unsigned char)nodedesc[i]))
			nodedesc[i] = ' ';
	return nodedesc;
}
