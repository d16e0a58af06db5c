/*
 * ibal fuzzing: CM message unpacking (al_cm_unpack), any bytes received on QP1.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Each input is a MAD; one that unpacks is packed again and unpacked once
 * more, and both messages must be the same (the wire format is one table:
 * what the unpacker reads, the packer writes). Seeds: every CM message type
 * as al_cm_pack makes it (the packer test_cm_tshark checks against
 * Wireshark).
 */
#include <string.h>
#include "al_cm_wire.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const names[] = { "req", "mra", "rej", "rep", "rtu", "dreq", "drep",
					     "sidr-req", "sidr-rep", "lap", "apr" };
	union {
		ib_mad_t hdr;
		uint8_t bytes[MAD_BLOCK_SIZE];
	} mad;
	al_cm_msg_t m;
	unsigned t;

	(void)argc;
	(void)argv;
	for (t = AL_CM_MSG_REQ; t <= AL_CM_MSG_APR; t++) {
		memset(&m, 0, sizeof(m));
		memset(&mad, 0, sizeof(mad));
		/* The first fields of every message are its comm IDs (or the
		 * SIDR request ID); the rest stay zero but for a few. */
		m.req.local_comm_id = 0x11223344u;
		m.req.service_id = 0x1000;
		m.req.local_ca_guid = 0x0002C90300000001ull;
		m.req.local_qpn = 0x12;
		m.req.starting_psn = 0x100;
		m.req.primary.local_lid = 1;
		m.req.primary.remote_lid = 2;
		m.rej.reason = 8;
		al_cm_pack((al_cm_msg_type_t)t, &m, CL_HTON64(0x77), &mad.hdr);
		fuzz_seed(names[t - AL_CM_MSG_REQ], mad.bytes, sizeof(mad.bytes));
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	union {
		ib_mad_t hdr;
		uint8_t bytes[MAD_BLOCK_SIZE];
	} in, out;
	al_cm_msg_type_t type, type2;
	al_cm_msg_t *m1, *m2;

	if (size > sizeof(in))
		size = sizeof(in);
	memcpy(in.bytes, data, size);
	m1 = (al_cm_msg_t *)calloc(2, sizeof(*m1));
	if (!m1)
		return 0;
	m2 = m1 + 1;
	if (al_cm_unpack(&in.hdr, size, &type, m1) == IB_SUCCESS) {
		memset(&out, 0, sizeof(out));
		al_cm_pack(type, m1, in.hdr.trans_id, &out.hdr);
		if (al_cm_unpack(&out.hdr, sizeof(out), &type2, m2) != IB_SUCCESS || type2 != type ||
		    memcmp(m1, m2, sizeof(*m1)))
			abort();   /* packer and unpacker disagree */
	}
	free(m1);
	return 0;
}
