/*
 * ibal tests: filling a soft port's ring from another port (test_soft_rc,
 * test_soft_ud), for the tests of what a sender does at a full ring.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#ifndef IBAL_TESTS_SOFT_RING_FILL_TEST_H
#define IBAL_TESTS_SOFT_RING_FILL_TEST_H

#include <string.h>
#include "../common/cl_test.h"
#include "soft_fabric.h"
#include "soft_ring.h"
#include "soft_wire.h"

/*
 * Sends, from fabric port @p fp (LID @p slid), datagrams of @p payload
 * bytes to QP 0xFFFFFE of the port with LID @p dlid (none: its receiver
 * drops them) until one is dropped for want of room.
 */
static inline void fill_ring_with(soft_fabric_port_t *fp, uint16_t slid, uint16_t dlid,
				  uint32_t payload)
{
	uint8_t buf[256];
	soft_pkt_t pkt;
	size_t hdr_len, len;
	uint64_t busy0 = 0;
	soft_fabric_stats_t s;
	long i;

	memset(&pkt, 0, sizeof(pkt));
	pkt.lrh.lnh = SOFT_LNH_IBA_LOCAL;
	pkt.lrh.dlid = dlid;
	pkt.lrh.slid = slid;
	pkt.bth.opcode = SOFT_OPCODE(SOFT_TRANSPORT_UD, SOFT_OP_SEND_ONLY);
	pkt.bth.pkey = 0xFFFF;
	pkt.bth.dest_qp = 0xFFFFFE;
	pkt.deth.qkey = 0x11;
	pkt.deth.src_qp = 0x22;
	pkt.payload_len = payload;
	CU_ASSERT_EQUAL_FATAL(soft_pkt_build_hdrs(&pkt, buf, sizeof(buf), &hdr_len), SOFT_WIRE_OK);
	len = soft_pkt_len(&pkt);
	memset(buf + hdr_len, 0, len - hdr_len);
	CU_ASSERT_EQUAL_FATAL(soft_pkt_seal(buf, len), SOFT_WIRE_OK);
	soft_fabric_port_stats(fp, &s);
	busy0 = s.drop_busy;
	for (i = 0; i < (long)(SOFT_RING_BYTES / SOFT_RING_ALIGN) + 100; i++) {
		CU_ASSERT_EQUAL(soft_fabric_send(fp, buf, len), IB_SUCCESS);
		soft_fabric_port_stats(fp, &s);
		if (s.drop_busy > busy0)
			return;
	}
	CU_FAIL("the ring did not fill");
}

/*
 * Fills the ring of the port with LID @p dlid from fabric port @p fp (LID
 * @p slid): datagrams of 64 bytes, then of none, until one of each is
 * dropped for want of room, so that no packet fits. Its CA must not take
 * packets meanwhile (the test holds its rx_lock).
 */
static inline void fill_ring_at(soft_fabric_port_t *fp, uint16_t slid, uint16_t dlid)
{
	fill_ring_with(fp, slid, dlid, 64);
	fill_ring_with(fp, slid, dlid, 0);
}

#endif
