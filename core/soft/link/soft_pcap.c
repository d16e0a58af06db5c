/*
 * ibal soft provider: pcap capture files of InfiniBand packets.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <complib/cl_memory.h>
#include "soft_pcap.h"
#include "ibal_log.h"

/* Classic pcap, nanosecond timestamps, version 2.4, in the writer's byte order. */
#define PCAP_MAGIC_NS 0xA1B23C4Du
#define PCAP_VERSION_MAJOR 2
#define PCAP_VERSION_MINOR 4
#define PCAP_SNAPLEN 65535u
#define PCAP_FILE_HDR_LEN 24
#define PCAP_REC_HDR_LEN 16

/* Endace ERF record header: 64-bit timestamp, type, flags, rlen, lctr, wlen. */
#define ERF_HDR_LEN 16
#define ERF_TYPE_INFINIBAND 21
#define ERF_FLAG_VARLEN 0x04
#define ERF_FLAG_RXERR 0x10

struct soft_pcap {
	int fd;
	uint32_t linktype;
	uint32_t stopped;        /* atomic: a write failed; nothing more is written */
	char path[PATH_MAX];
};

typedef struct {
	uint32_t magic;
	uint16_t major, minor;
	int32_t thiszone;
	uint32_t sigfigs, snaplen, linktype;
} pcap_file_hdr_t;

typedef struct {
	uint32_t sec, nsec, incl_len, orig_len;
} pcap_rec_hdr_t;

ib_api_status_t soft_pcap_expand_path(const char *tmpl, pid_t pid, char *out, size_t cap)
{
	char num[24];
	size_t n = 0, k;
	const char *s;

	if (!tmpl || !out || !cap)
		return IB_INVALID_PARAMETER;
	snprintf(num, sizeof(num), "%ld", (long)pid);
	for (s = tmpl; *s; s++) {
		const char *piece = s;
		size_t len = 1;

		if (s[0] == '%' && s[1] == 'p') {
			piece = num;
			len = strlen(num);
			s++;
		} else if (s[0] == '%' && s[1] == '%') {
			s++;
		}
		if (n + len >= cap)
			return IB_OVERFLOW;
		for (k = 0; k < len; k++)
			out[n++] = piece[k];
	}
	out[n] = '\0';
	return IB_SUCCESS;
}

static void fill_file_hdr(pcap_file_hdr_t *h, uint32_t linktype)
{
	memset(h, 0, sizeof(*h));
	h->magic = PCAP_MAGIC_NS;
	h->major = PCAP_VERSION_MAJOR;
	h->minor = PCAP_VERSION_MINOR;
	h->snaplen = PCAP_SNAPLEN;
	h->linktype = linktype;
}

/* Writes the header into an empty file, or checks the header of a non-empty one. */
static ib_api_status_t check_or_write_hdr(int fd, uint32_t linktype)
{
	pcap_file_hdr_t want, have;
	struct stat st;
	ssize_t n;

	fill_file_hdr(&want, linktype);
	if (fstat(fd, &st) < 0)
		return IB_ERROR;
	if (st.st_size == 0) {
		n = write(fd, &want, sizeof(want));
		return n == (ssize_t)sizeof(want) ? IB_SUCCESS : IB_ERROR;
	}
	n = pread(fd, &have, sizeof(have), 0);
	if (n != (ssize_t)sizeof(have) || have.magic != want.magic || have.major != want.major ||
	    have.linktype != want.linktype)
		return IB_INVALID_SETTING;
	return IB_SUCCESS;
}

ib_api_status_t soft_pcap_open(const char *tmpl, uint32_t linktype, soft_pcap_t **pp_pcap)
{
	soft_pcap_t *p;
	ib_api_status_t status;

	if (!tmpl || !pp_pcap ||
	    (linktype != SOFT_PCAP_LINKTYPE_ERF && linktype != SOFT_PCAP_LINKTYPE_INFINIBAND))
		return IB_INVALID_PARAMETER;
	p = (soft_pcap_t *)cl_zalloc(sizeof(*p));
	if (!p)
		return IB_INSUFFICIENT_MEMORY;
	p->linktype = linktype;
	status = soft_pcap_expand_path(tmpl, getpid(), p->path, sizeof(p->path));
	if (status != IB_SUCCESS) {
		cl_free(p);
		return status;
	}
	p->fd = open(p->path, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (p->fd < 0) {
		IBAL_ERR(IBAL_SUB_FABRIC, "capture %s: %s%s", p->path, strerror(errno),
			 errno == ELOOP ? " (a symbolic link: refused)" : "");
		cl_free(p);
		return IB_ERROR;
	}
	while (flock(p->fd, LOCK_EX) < 0 && errno == EINTR)
		;
	status = check_or_write_hdr(p->fd, linktype);
	flock(p->fd, LOCK_UN);
	if (status != IB_SUCCESS) {
		close(p->fd);
		cl_free(p);
		return status;
	}
	*pp_pcap = p;
	return IB_SUCCESS;
}

static void put_be16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

/* ERF timestamp: seconds in the high 32 bits, binary fraction in the low 32, little endian. */
static void put_erf_ts(uint8_t *b, const struct timespec *ts)
{
	uint64_t frac = ((uint64_t)ts->tv_nsec << 32) / 1000000000u;
	uint64_t v = ((uint64_t)(uint32_t)ts->tv_sec << 32) | frac;
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

void soft_pcap_write(soft_pcap_t *pcap, const void *pkt, size_t len, boolean_t dropped)
{
	struct timespec ts;
	pcap_rec_hdr_t rec;
	uint8_t erf[ERF_HDR_LEN];
	struct iovec iov[3];
	int n = 0;
	ssize_t rc;

	if (!pcap || !pkt || len > 0xFFFF - ERF_HDR_LEN ||
	    __atomic_load_n(&pcap->stopped, __ATOMIC_RELAXED))
		return;
	if (dropped && pcap->linktype != SOFT_PCAP_LINKTYPE_ERF)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	rec.sec = (uint32_t)ts.tv_sec;
	rec.nsec = (uint32_t)ts.tv_nsec;
	rec.incl_len = rec.orig_len = (uint32_t)len;
	iov[n].iov_base = &rec;
	iov[n++].iov_len = sizeof(rec);
	if (pcap->linktype == SOFT_PCAP_LINKTYPE_ERF) {
		rec.incl_len = rec.orig_len = (uint32_t)(len + ERF_HDR_LEN);
		put_erf_ts(erf, &ts);
		erf[8] = ERF_TYPE_INFINIBAND;
		erf[9] = (uint8_t)(ERF_FLAG_VARLEN | (dropped ? ERF_FLAG_RXERR : 0));
		put_be16(erf + 10, (uint16_t)(len + ERF_HDR_LEN)); /* rlen */
		put_be16(erf + 12, 0);                             /* loss counter */
		put_be16(erf + 14, (uint16_t)len);                 /* wlen */
		iov[n].iov_base = erf;
		iov[n++].iov_len = sizeof(erf);
	}
	iov[n].iov_base = (void *)(uintptr_t)pkt;
	iov[n++].iov_len = len;
	do
		rc = writev(pcap->fd, iov, n);
	while (rc < 0 && errno == EINTR);
	if (rc == (ssize_t)(iov[0].iov_len + (n == 3 ? iov[1].iov_len : 0) + len))
		return;
	/* A full disk (or a short write): a torn record would garble every
	 * later one, so the capture ends here, and says so once. */
	if (!__atomic_exchange_n(&pcap->stopped, 1, __ATOMIC_RELAXED))
		IBAL_ERR(IBAL_SUB_FABRIC, "capture %s cut short: %s; no more packets are written to it",
			 pcap->path, rc < 0 ? strerror(errno) : "short write");
}

const char *soft_pcap_path(const soft_pcap_t *pcap)
{
	return pcap->path;
}

void soft_pcap_close(soft_pcap_t *pcap)
{
	if (!pcap)
		return;
	close(pcap->fd);
	cl_free(pcap);
}
