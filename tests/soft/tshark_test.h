/*
 * ibal tests: running `tshark -T fields` on a capture and reading its output and the pcap file.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file tshark_test.h
 * @brief Shared by the programs that check packets against Wireshark's
 * dissector (test_cm_tshark, test_sa_tshark, test_wire_tshark).
 *
 * tshark_run() runs tshark once on a capture with one `-e` per field and
 * hands each output line's values (one malloc'd string per field, in the
 * order of the names) to slots the caller provides; tshark_run_rows()
 * keeps them in a growing table of rows (tshark_free_rows() frees it). tshark_num() and tshark_u64_is() read the
 * first occurrence of a value printed with `-E occurrence=a
 * -E aggregator='|'`. tshark_pcap_open_erf() and tshark_pcap_next() walk
 * the records of a classic pcap file of link type ERF (what IBAL_SOFT_PCAP
 * writes by default); tshark_capture_env() sets up the capture of a
 * two-CA soft fabric.
 *
 * Every function is static inline: each test program has its own copy. Not
 * thread-safe (tests call them from the CUnit thread only).
 */
#ifndef IBAL_TESTS_TSHARK_TEST_H
#define IBAL_TESTS_TSHARK_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/** tshark options printing every occurrence of a field, joined by '|', unquoted. */
#define TSHARK_ALL_OCCURRENCES "-E occurrence=a -E aggregator='|' -E quote=n"

/** @cond INTERNAL */
#define TSHARK_AS_ENUM(id, name) id,
#define TSHARK_AS_NAME(id, name) name,
/** @endcond */

/**
 * Declares a program's decoded packets from an X-macro list of its fields,
 * FIELDS(X) expanding to X(F_ID, "tshark.field.name") entries: the enum
 * of the F_ IDs and N_FIELDS (their count), field_names[], row_t (one
 * decoded packet: char *v[N_FIELDS], each field's occurrences joined by
 * '|'), rows (the table, from tshark_run_rows()) and n_rows (the packets
 * tshark printed; -1: it did not run).
 * @param FIELDS The list macro.
 */
#define TSHARK_DECLARE_ROWS(FIELDS)                                         \
	enum { FIELDS(TSHARK_AS_ENUM) N_FIELDS };                           \
	static const char *const field_names[] = { FIELDS(TSHARK_AS_NAME) }; \
	typedef struct {                                                    \
		char *v[N_FIELDS];                                          \
	} row_t;                                                            \
	static row_t *rows;                                                 \
	static int n_rows = -1

/** pcap link type of ERF records. */
#define TSHARK_LINKTYPE_ERF 197

/**
 * Where tshark_run() puts the values of output line @p index.
 * @param ctx   The caller's context given to tshark_run().
 * @param index The line's number, from 0.
 * @return An array of the run's field count of string pointers (each
 * value is stored as a malloc'd string, fields missing at the line's end
 * are left as they are), or NULL to count the line without keeping it.
 */
typedef char **(*tshark_slot_fn)(void *ctx, int index);

/**
 * Byte-swaps a 32-bit value.
 * @param v The value.
 * @return v with its bytes in the other order.
 */
static inline uint32_t tshark_swap32(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v & 0xFF00u) << 8) | (v << 24);
}

/**
 * Opens a classic pcap file whose link type is ERF.
 * @param path   The file.
 * @param p_swap Set to 1 if the file's byte order is not the machine's, else 0.
 * @return The file, positioned at its first record (close it with fclose),
 * or NULL if it cannot be read or is not such a file.
 */
static inline FILE *tshark_pcap_open_erf(const char *path, int *p_swap)
{
	FILE *f = fopen(path, "rb");
	uint32_t hdr[6];

	if (!f)
		return NULL;
	if (fread(hdr, sizeof(hdr), 1, f) != 1) {
		fclose(f);
		return NULL;
	}
	*p_swap = hdr[0] == 0x4D3CB2A1u || hdr[0] == 0xD4C3B2A1u;
	if ((*p_swap ? tshark_swap32(hdr[5]) : hdr[5]) != TSHARK_LINKTYPE_ERF) {
		fclose(f);
		return NULL;
	}
	return f;
}

/**
 * Reads the header of the next record of a file from tshark_pcap_open_erf().
 * @param f     The file, positioned at a record.
 * @param swap  The byte-order flag tshark_pcap_open_erf() gave.
 * @param p_len Set to the record's captured length (its data follow).
 * @return 1 if a record header was read, 0 at the end of the file.
 */
static inline int tshark_pcap_next(FILE *f, int swap, uint32_t *p_len)
{
	uint32_t rec[4];

	if (fread(rec, sizeof(rec), 1, f) != 1)
		return 0;
	*p_len = swap ? tshark_swap32(rec[2]) : rec[2];
	return 1;
}

/**
 * Splits one line of `tshark -T fields -E separator=/t` output.
 * @param line     The line (its end of line is not part of the last value).
 * @param v        Gets up to @p n_fields malloc'd values, in order.
 * @param n_fields How many fields were asked for.
 */
static inline void tshark_split_row(const char *line, char **v, unsigned n_fields)
{
	const char *p = line;
	unsigned f;

	for (f = 0; f < n_fields; f++) {
		const char *tab = strchr(p, '\t');
		size_t n = tab ? (size_t)(tab - p) : strcspn(p, "\r\n");
		char *s = (char *)malloc(n + 1);

		memcpy(s, p, n);
		s[n] = '\0';
		v[f] = s;
		if (!tab)
			break;
		p = tab + 1;
	}
}

/**
 * Runs `tshark <before> -n -r '<path>' -T fields -E separator=/t <after>`
 * with `-e <name>` for each field, and reads its output.
 * @param before   Options before the file (may be "").
 * @param path     The capture.
 * @param after    Options after `-T fields -E separator=/t` (may be "").
 * @param names    The fields' names.
 * @param n_fields How many names.
 * @param slot     Gives where each line's values go (see tshark_slot_fn).
 * @param ctx      Passed to @p slot.
 * @return The lines tshark printed, or -1 if the command is too long, does
 * not start, or exits with an error.
 */
static inline int tshark_run(const char *before, const char *path, const char *after,
		      const char *const *names, unsigned n_fields, tshark_slot_fn slot, void *ctx)
{
	char cmd[8192];
	char *line = NULL;
	size_t used, cap = 0;
	unsigned i;
	FILE *out;
	int n = 0;

	used = (size_t)snprintf(cmd, sizeof(cmd), "tshark %s -n -r '%s' -T fields -E separator=/t %s",
				before, path, after);
	for (i = 0; i < n_fields && used < sizeof(cmd); i++)
		used += (size_t)snprintf(cmd + used, sizeof(cmd) - used, " -e %s", names[i]);
	if (used >= sizeof(cmd) - 20)
		return -1;
	snprintf(cmd + used, sizeof(cmd) - used, " 2>/dev/null");
	out = popen(cmd, "r");
	if (!out)
		return -1;
	while (getline(&line, &cap, out) > 0) {
		char **v = slot(ctx, n);

		if (v)
			tshark_split_row(line, v, n_fields);
		n++;
	}
	free(line);
	if (pclose(out) != 0)
		return -1;
	return n;
}

/**
 * Makes room for element @p index of a growing array (doubling, from 256
 * elements) and zeroes that element.
 * @param base     The array (NULL at first).
 * @param p_max    Its capacity in elements (0 at first), updated.
 * @param index    The element wanted: at most *p_max.
 * @param elem_size The size of one element.
 * @return The array, maybe moved.
 */
static inline void *tshark_grow(void *base, int *p_max, int index, size_t elem_size)
{
	if (index == *p_max) {
		*p_max = *p_max ? 2 * *p_max : 256;
		base = realloc(base, (size_t)*p_max * elem_size);
	}
	memset((char *)base + (size_t)index * elem_size, 0, elem_size);
	return base;
}

/**
 * Frees the values of one row and clears them.
 * @param v        The row's values (NULL ones are skipped).
 * @param n_fields How many.
 */
static inline void tshark_free_row(char **v, unsigned n_fields)
{
	unsigned f;

	for (f = 0; f < n_fields; f++) {
		free(v[f]);
		v[f] = NULL;
	}
}

/**
 * The first occurrence of a numeric value ('|'-joined occurrences).
 * @param v The value as tshark printed it (NULL: absent).
 * @return The number (decimal or 0x-hex), or -1 if absent or not a number.
 */
static inline long long tshark_num(const char *v)
{
	char *end;
	unsigned long long x;

	if (!v || !*v)
		return -1;
	x = strtoull(v, &end, 0);
	return (*end && *end != '|') ? -1 : (long long)x;
}

/**
 * Whether the first occurrence of a 64-bit value is @p expect (as unsigned).
 * @param v      The value as tshark printed it (NULL: absent).
 * @param expect The number expected.
 * @return 1 if it is, else 0.
 */
static inline int tshark_u64_is(const char *v, uint64_t expect)
{
	char *end;

	return v && *v && strtoull(v, &end, 0) == expect && (!*end || *end == '|');
}

/** @cond INTERNAL */
/* tshark_run_rows()'s growing table. */
typedef struct {
	void *rows;       /* the table */
	size_t row_size;  /* one row */
	int max;          /* rows allocated */
} tshark_table_t;

/* tshark_run()'s slot over a tshark_table_t: a zeroed row at @index. */
static inline char **tshark_table_slot(void *ctx, int index)
{
	tshark_table_t *t = (tshark_table_t *)ctx;

	t->rows = tshark_grow(t->rows, &t->max, index, t->row_size);
	return (char **)(void *)((char *)t->rows + (size_t)index * t->row_size);
}
/** @endcond */

/**
 * tshark_run() with every field's occurrences joined by '|'
 * (TSHARK_ALL_OCCURRENCES), each line stored in a row of a table.
 * @param rows     A table to reuse (its rows are overwritten), or NULL.
 * @param path     The capture.
 * @param names    The fields' names.
 * @param n_fields How many names.
 * @param row_size The size of the caller's row type, which is an array of
 *                 @p n_fields string pointers (or a struct of just that).
 * @param p_n      Set to tshark_run()'s result: the rows, or -1.
 * @return The table (free it with tshark_free_rows()); @p rows if no line was read.
 */
static inline void *tshark_run_rows(void *rows, const char *path, const char *const *names,
				    unsigned n_fields, size_t row_size, int *p_n)
{
	tshark_table_t t = { rows, row_size, 0 };

	*p_n = tshark_run("", path, TSHARK_ALL_OCCURRENCES, names, n_fields, tshark_table_slot, &t);
	return t.rows;
}

/**
 * Frees a table from tshark_run_rows(): the values of its rows, then the table.
 * @param rows     The table (NULL: nothing).
 * @param n_rows   The rows whose values to free (tshark_run_rows()'s count; -1: none).
 * @param n_fields The fields of a row.
 * @param row_size The size of a row.
 */
static inline void tshark_free_rows(void *rows, int n_rows, unsigned n_fields, size_t row_size)
{
	int r;

	for (r = 0; r < n_rows; r++)
		tshark_free_row((char **)(void *)((char *)rows + (size_t)r * row_size), n_fields);
	free(rows);
}

/**
 * Makes the fabric directory of a capture of two soft CAs and sets the
 * environment for it: IBAL_SOFT_FABRIC, IBAL_SOFT_CAS=2, IBAL_SOFT_PCAP
 * (the file, emptied: the fabric appends), a long IBAL_SOFT_SM_WAIT_MS (for
 * valgrind), and none of the variables that would change the traffic.
 * @param dir       A mkdtemp() template (ending in XXXXXX), made the directory's name.
 * @param pcap      Gets the capture's path: IBAL_TSHARK_KEEP if set, else @p file in @p dir.
 * @param pcap_cap  The size of @p pcap.
 * @param file      The capture's name inside @p dir.
 * @return 0, or -1 if the directory cannot be made (nothing set then).
 */
static inline int tshark_capture_env(char *dir, char *pcap, size_t pcap_cap, const char *file)
{
	const char *keep = getenv("IBAL_TSHARK_KEEP");

	if (!mkdtemp(dir))
		return -1;
	if (keep && *keep)
		snprintf(pcap, pcap_cap, "%s", keep);
	else
		snprintf(pcap, pcap_cap, "%s/%s", dir, file);
	unlink(pcap);
	setenv("IBAL_SOFT_FABRIC", dir, 1);
	setenv("IBAL_SOFT_CAS", "2", 1);
	setenv("IBAL_SOFT_PCAP", pcap, 1);
	setenv("IBAL_SOFT_SM_WAIT_MS", "20000", 1);
	unsetenv("IBAL_SOFT_PCAP_LINKTYPE");
	unsetenv("IBAL_SOFT_DROP_PCT");
	unsetenv("IBAL_SOFT_DELAY_US");
	unsetenv("IBAL_SOFT_SM");
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
	return 0;
}

#endif /* IBAL_TESTS_TSHARK_TEST_H */
