/*
 * ibal complib: the node name map (GUID to name) of the InfiniBand diagnostics.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_nodenamemap.h
 * @brief Node name map: friendly names for node GUIDs, read from a text
 * file, with a fallback to the node's own description.
 *
 * File format: one entry per line, `GUID "name"`. The GUID is a number in C
 * syntax (`0x0002c90300001234`, or decimal). The name is the text between
 * double quotes (it may contain spaces and `#`); an unquoted name runs to a
 * `#` or the end of the line, trailing blanks removed. Blank lines and lines
 * whose first non-blank character is `#` are comments, and `#` after the
 * name starts a comment. A line with a GUID but no name adds no entry. A
 * line whose GUID is not a number (or is not followed by a blank, `#` or the
 * end of the line) makes the whole file invalid. When a GUID appears twice,
 * the first entry is kept. Lines may be of any length.
 *
 * Strings returned by remap_node_name() are allocated with malloc(): free
 * them with free().
 *
 * Thread safety: a map is not changed after open_node_name_map(), so any
 * number of threads may call remap_node_name() on it concurrently;
 * close_node_name_map() must not run concurrently with them.
 */
#ifndef _CL_NODE_NAME_MAP_H_
#define _CL_NODE_NAME_MAP_H_

#include <stdio.h>
#include <complib/cl_qmap.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Makes a node description printable: ends it at 63 characters when its
 * first 64 bytes hold no terminator (an InfiniBand NodeDescription is a
 * 64-byte field) and replaces each non-printable character with a space.
 * Changes the string in place.
 * @param nodedesc the description; may be NULL.
 * @return @p nodedesc.
 */
char *clean_nodedesc(IN char *nodedesc);

/** Entry of a node name map. */
typedef struct _name_map_item {
	cl_map_item_t item; /**< Link in the map, keyed by the GUID. */
	uint64_t guid;      /**< Node GUID, in host byte order. */
	char *name;         /**< Name from the file (malloc'd). */
} name_map_item_t;

/** A node name map: a cl_qmap_t of name_map_item_t keyed by GUID. */
typedef cl_qmap_t nn_map_t;

/**
 * Reads a node name map file. Failures are reported on the complib log
 * target (stderr unless CL_LOG_FILE names a file).
 * @param node_name_map path of the file; NULL means no map (or, when ibal is
 * built with HAVE_DEFAULT_NODENAME_MAP, that default path if it exists).
 * @return the map, to be released with close_node_name_map(); NULL when
 * there is no map, the file cannot be read, it is invalid (see the file
 * format), or memory ran out. NULL is a valid map argument of the other
 * functions: it has no entries.
 */
nn_map_t *CL_API open_node_name_map(IN const char *node_name_map);

/**
 * Releases a map and all its entries.
 * @param map the map; NULL is allowed.
 */
void CL_API close_node_name_map(IN nn_map_t *map);

/**
 * Name to display for a node.
 * @param map the map; may be NULL.
 * @param target_guid GUID of the node, in host byte order.
 * @param nodedesc the node's description, used (after clean_nodedesc(),
 * which may change it) when the map has no entry for the GUID.
 * @return a malloc'd copy of the map's name for the GUID, else of the
 * cleaned @p nodedesc; NULL when memory ran out, or when there is no entry
 * and @p nodedesc is NULL.
 */
char *CL_API remap_node_name(IN nn_map_t *map, IN uint64_t target_guid, IN char *nodedesc);

/**
 * Reads a node name map file and calls @p create for each entry line, in
 * file order. Comments and blank lines are skipped.
 * @param file_name path of the file.
 * @param create called with @p cxt, the GUID, and the rest of the line after
 * the GUID (leading and trailing blanks and the newline removed; quotes and
 * comments are left in). The string may be changed by the callback and is
 * valid only during the call. A nonzero return stops the parse.
 * @param cxt passed to @p create.
 * @return 0 when the whole file was read; -1 when it cannot be opened (errno
 * tells why), a line has an invalid GUID (errno is EINVAL), memory ran out
 * (ENOMEM), or @p create returned nonzero.
 */
int CL_API parse_node_map(IN const char *file_name, IN int (*create)(void *, uint64_t, char *),
			  IN void *cxt);

#ifdef __cplusplus
}
#endif

#endif /* _CL_NODE_NAME_MAP_H_ */
