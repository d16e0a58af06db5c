/*
 * ibal soft provider: direct placement of RDMA data between processes.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Descriptor layout (host byte order: both ends run on this host):
 * magic "DIR1" (32 bits), segment count (32 bits), then per segment its
 * address and length (64 bits each).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* process_vm_readv */
#endif
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include "soft_direct.h"
#include "soft_fabric.h"
#include "ibal_log.h"

#define DESC_MAGIC 0x31524944u /* "DIR1" read little endian */

uint32_t soft_direct_min = SOFT_DIRECT_MIN_DEFAULT;

void soft_direct_encode(uint8_t *dst, const soft_direct_seg_t *seg, uint32_t n)
{
	uint32_t hdr[2] = { DESC_MAGIC, n };

	memcpy(dst, hdr, sizeof(hdr));
	memcpy(dst + sizeof(hdr), seg, (size_t)n * sizeof(*seg));
}

uint32_t soft_direct_decode(const uint8_t *src, uint32_t len, soft_direct_seg_t *seg,
			    uint64_t *p_total)
{
	uint32_t hdr[2], i;
	uint64_t total = 0;

	if (len < sizeof(hdr))
		return 0;
	memcpy(hdr, src, sizeof(hdr));
	if (hdr[0] != DESC_MAGIC || !hdr[1] || hdr[1] > SOFT_DIRECT_MAX_SEGS ||
	    len != soft_direct_desc_len(hdr[1]))
		return 0;
	memcpy(seg, src + sizeof(hdr), (size_t)hdr[1] * sizeof(*seg));
	for (i = 0; i < hdr[1]; i++) {
		if (!seg[i].len || seg[i].len > UINT32_MAX || seg[i].addr + seg[i].len < seg[i].addr)
			return 0;
		total += seg[i].len;
	}
	*p_total = total;
	return hdr[1];
}

/* Within this process: segment by segment. */
static void copy_local(const soft_direct_seg_t *dst, uint32_t nd, const soft_direct_seg_t *src,
		       uint32_t ns)
{
	uint64_t doff = 0, soff = 0, k;
	uint32_t d = 0, s = 0;

	while (d < nd && s < ns) {
		k = dst[d].len - doff < src[s].len - soff ? dst[d].len - doff : src[s].len - soff;
		memmove((void *)(uintptr_t)(dst[d].addr + doff),
			(const void *)(uintptr_t)(src[s].addr + soff), (size_t)k);
		doff += k;
		soff += k;
		if (doff == dst[d].len) {
			d++;
			doff = 0;
		}
		if (soff == src[s].len) {
			s++;
			soff = 0;
		}
	}
}

boolean_t soft_direct_pull(int32_t pid, const soft_direct_seg_t *dst, uint32_t nd,
			   const soft_direct_seg_t *src, uint32_t ns)
{
	static int warned;
	struct iovec liov[SOFT_DIRECT_MAX_SEGS], riov[SOFT_DIRECT_MAX_SEGS];
	uint64_t total = 0;
	ssize_t got;
	uint32_t i;

	if (pid <= 0 || !nd || !ns || nd > SOFT_DIRECT_MAX_SEGS || ns > SOFT_DIRECT_MAX_SEGS)
		return FALSE;
	if (pid == (int32_t)getpid()) {
		copy_local(dst, nd, src, ns);
		return TRUE;
	}
	for (i = 0; i < nd; i++) {
		liov[i].iov_base = (void *)(uintptr_t)dst[i].addr;
		liov[i].iov_len = (size_t)dst[i].len;
		total += dst[i].len;
	}
	for (i = 0; i < ns; i++) {
		riov[i].iov_base = (void *)(uintptr_t)src[i].addr;
		riov[i].iov_len = (size_t)src[i].len;
	}
	do
		got = process_vm_readv((pid_t)pid, liov, nd, riov, ns, 0);
	while (got < 0 && errno == EINTR);
	if (got >= 0 && (uint64_t)got == total)
		return TRUE;
	if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		IBAL_WARN(IBAL_SUB_SOFT, "direct placement from process %d failed (%s): RDMA data "
				 "travels in packets on the QPs concerned",
				 (int)pid, got < 0 ? strerror(errno) : "short copy");
	return FALSE;
}
