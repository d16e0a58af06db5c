/*
 * ibal fuzzing: fuzz seeds from the captures the tshark tests check (scripts/fuzz-seeds).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * usage: seeds_from_pcap CORPUS_DIR PREFIX CAPTURE.pcap...
 *
 * Reads soft-fabric captures (classic pcap, link type ERF, records of type
 * InfiniBand, as IBAL_SOFT_PCAP writes them and Wireshark decodes them in
 * tests/soft/test_*_tshark) and writes, under CORPUS_DIR (tests/fuzz/corpus):
 * every packet distinct by content to soft_pkt/; the MAD of every UD send to
 * QP0 or QP1 to mad/, and by class to smp/ (0x01, 0x81, 0x04), sa/ (0x03)
 * and cm_msg/ (0x07). Files are named PREFIX-<FNV-1a hash of the content>, so
 * that running it again adds nothing twice. Prints how many it wrote.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <iba/ib_types.h>
#include "../soft/tshark_test.h"

static unsigned n_written;

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

static void save(const char *corpus, const char *sub, const char *prefix, const uint8_t *p,
		 size_t n)
{
	char path[4096];
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", corpus, sub);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s-%016llx", corpus, sub, prefix,
		 (unsigned long long)fnv1a(p, n));
	if (!stat(path, &st))
		return;
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n) {
		fprintf(stderr, "seeds_from_pcap: %s: cannot write\n", path);
		if (f)
			fclose(f);
		exit(1);
	}
	fclose(f);
	n_written++;
}

/* One capture; -1 when it is not one. */
static int read_one(const char *corpus, const char *prefix, const char *pcap)
{
	uint8_t buf[8192];
	uint32_t len;
	int swap;
	FILE *f = tshark_pcap_open_erf(pcap, &swap);

	if (!f)
		return -1;
	while (tshark_pcap_next(f, swap, &len)) {
		const uint8_t *p = buf + 16;   /* after the ERF header */
		size_t n, off = 8;             /* LRH */
		uint8_t cls;

		if (len > sizeof(buf) || len < 16 + 8 || fread(buf, len, 1, f) != 1)
			break;
		if (buf[8] != 21)              /* ERF type InfiniBand */
			continue;
		n = len - 16;
		save(corpus, "soft_pkt", prefix, p, n);
		if ((p[1] & 3) == 3)
			off += 40;             /* GRH */
		/* BTH opcode 0x64 (UD Send Only) to QP0 or QP1, DETH, the MAD. */
		if ((p[1] & 3) < 2 || n < off + 12 + 8 + MAD_BLOCK_SIZE || p[off] != 0x64 ||
		    p[off + 5] || p[off + 6] || p[off + 7] > 1)
			continue;
		p += off + 12 + 8;
		save(corpus, "mad", prefix, p, MAD_BLOCK_SIZE);
		cls = p[1];
		if (cls == IB_MCLASS_SUBN_LID || cls == IB_MCLASS_SUBN_DIR || cls == IB_MCLASS_PERF)
			save(corpus, "smp", prefix, p, MAD_BLOCK_SIZE);
		else if (cls == IB_MCLASS_SUBN_ADM)
			save(corpus, "sa", prefix, p, MAD_BLOCK_SIZE);
		else if (cls == IB_MCLASS_COMM_MGMT)
			save(corpus, "cm_msg", prefix, p, MAD_BLOCK_SIZE);
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 4) {
		fprintf(stderr, "usage: seeds_from_pcap CORPUS_DIR PREFIX CAPTURE.pcap...\n");
		return 2;
	}
	for (i = 3; i < argc; i++)
		if (read_one(argv[1], argv[2], argv[i])) {
			fprintf(stderr, "seeds_from_pcap: %s: not a capture of the soft fabric\n",
				argv[i]);
			return 1;
		}
	printf("seeds_from_pcap: %u new seed(s) in %s\n", n_written, argv[1]);
	return 0;
}
