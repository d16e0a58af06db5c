/*
 * ibal access layer: librdmacm addresses of a path's GIDs and service IDs.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include "al_cm_kern_int.h"

#ifdef HAVE_AL_CM_KERN
#include <ifaddrs.h>
#include <net/if.h>

static int gid_is_v4_mapped(const ib_gid_t *g)
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(g->raw, pfx, sizeof(pfx));
}

socklen_t kc_gid_addr(const ib_gid_t *gid, int ib_link, uint32_t ifindex, ib_net16_t pkey,
			     uint64_t svc_id, struct sockaddr *sa)
{
	uint16_t port = htons(kc_sid_port(svc_id));

	if (ib_link) {
		struct sockaddr_ib *sib = (struct sockaddr_ib *)sa;

		memset(sib, 0, sizeof(*sib));
		sib->sib_family = AF_IB;
		sib->sib_pkey = pkey;
		memcpy(&sib->sib_addr, gid->raw, 16);
		sib->sib_sid = htobe64(svc_id);
		sib->sib_sid_mask = htobe64(~0ull);
		return sizeof(*sib);
	}
	if (gid_is_v4_mapped(gid)) {
		struct sockaddr_in *sin = (struct sockaddr_in *)sa;

		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_port = port;
		memcpy(&sin->sin_addr, gid->raw + 12, 4);
		return sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)sa;

		memset(sin6, 0, sizeof(*sin6));
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = port;
		memcpy(&sin6->sin6_addr, gid->raw, 16);
		if (gid->raw[0] == 0xfe && (gid->raw[1] & 0xc0) == 0x80)
			sin6->sin6_scope_id = ifindex;
		return sizeof(*sin6);
	}
}

uint32_t kc_gid_ifindex(const ib_gid_t *gid)
{
	struct ifaddrs *list, *a;
	uint32_t idx = 0;

	if (getifaddrs(&list))
		return 0;
	for (a = list; a && !idx; a = a->ifa_next) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(const void *)a->ifa_addr;

		if (s6 && s6->sin6_family == AF_INET6 && !memcmp(&s6->sin6_addr, gid->raw, 16))
			idx = if_nametoindex(a->ifa_name);
	}
	freeifaddrs(list);
	return idx;
}

#else /* !HAVE_AL_CM_KERN */
typedef int al_cm_kern_addr_unused_t;
#endif /* HAVE_AL_CM_KERN */
