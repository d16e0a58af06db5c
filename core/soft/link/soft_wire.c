/*
 * ibal soft provider: header field tables, opcode table, ICRC/VCRC and packet build/parse.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>
#include "soft_wire.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------ */
/* Field tables                                                              */
/* ------------------------------------------------------------------------ */

/* A field stored in member `m` of host structure `t`. */
#define FLD(t, m, byte, bit, width, flags) \
	{ #m, (uint16_t)offsetof(t, m), (uint8_t)sizeof(((t *)0)->m), byte, bit, width, flags }
/* A field with no member: reserved bits, or a GRH field (the GRH has no host form). */
#define RAW(name, byte, bit, width, flags) { name, 0, 0, byte, bit, width, flags }
#define RSVD(name, byte, bit, width) RAW(name, byte, bit, width, SOFT_FIELD_RSVD)

static const soft_field_t lrh_fields[] = {
	FLD(soft_lrh_t, vl, 0, 0, 4, SOFT_FIELD_VARIANT),
	FLD(soft_lrh_t, lver, 0, 4, 4, 0),
	FLD(soft_lrh_t, sl, 1, 0, 4, 0),
	RSVD("resv2", 1, 4, 2),
	FLD(soft_lrh_t, lnh, 1, 6, 2, 0),
	FLD(soft_lrh_t, dlid, 2, 0, 16, 0),
	RSVD("resv5", 4, 0, 5),
	FLD(soft_lrh_t, pkt_len, 4, 5, 11, 0),
	FLD(soft_lrh_t, slid, 6, 0, 16, 0),
};

/* Indices of the GRH fields soft_pkt_build_hdrs() computes and soft_pkt_parse() checks. */
enum { GRH_IPVER = 0, GRH_PAY_LEN = 3, GRH_NXT_HDR = 4 };

static const soft_field_t grh_fields[] = {
	RAW("ipver", 0, 0, 4, 0),
	RAW("tclass", 0, 4, 8, SOFT_FIELD_VARIANT),
	RAW("flow_label", 1, 4, 20, SOFT_FIELD_VARIANT),
	RAW("pay_len", 4, 0, 16, 0),
	RAW("nxt_hdr", 6, 0, 8, 0),
	RAW("hop_lmt", 7, 0, 8, SOFT_FIELD_VARIANT),
	RAW("sgid_prefix", 8, 0, 64, 0),
	RAW("sgid_guid", 16, 0, 64, 0),
	RAW("dgid_prefix", 24, 0, 64, 0),
	RAW("dgid_guid", 32, 0, 64, 0),
};

static const soft_field_t bth_fields[] = {
	FLD(soft_bth_t, opcode, 0, 0, 8, 0),
	FLD(soft_bth_t, se, 1, 0, 1, 0),
	FLD(soft_bth_t, mig, 1, 1, 1, 0),
	FLD(soft_bth_t, pad_cnt, 1, 2, 2, 0),
	FLD(soft_bth_t, tver, 1, 4, 4, 0),
	FLD(soft_bth_t, pkey, 2, 0, 16, 0),
	RAW("resv8a", 4, 0, 8, SOFT_FIELD_RSVD | SOFT_FIELD_VARIANT),
	FLD(soft_bth_t, dest_qp, 5, 0, 24, 0),
	FLD(soft_bth_t, ack_req, 8, 0, 1, 0),
	RSVD("resv7", 8, 1, 7),
	FLD(soft_bth_t, psn, 9, 0, 24, 0),
};

static const soft_field_t deth_fields[] = {
	FLD(soft_deth_t, qkey, 0, 0, 32, 0),
	RSVD("resv8", 4, 0, 8),
	FLD(soft_deth_t, src_qp, 5, 0, 24, 0),
};

static const soft_field_t reth_fields[] = {
	FLD(soft_reth_t, va, 0, 0, 64, 0),
	FLD(soft_reth_t, rkey, 8, 0, 32, 0),
	FLD(soft_reth_t, dma_len, 12, 0, 32, 0),
};

static const soft_field_t aeth_fields[] = {
	FLD(soft_aeth_t, syndrome, 0, 0, 8, 0),
	FLD(soft_aeth_t, msn, 1, 0, 24, 0),
};

static const soft_field_t atomic_eth_fields[] = {
	FLD(soft_atomic_eth_t, va, 0, 0, 64, 0),
	FLD(soft_atomic_eth_t, rkey, 8, 0, 32, 0),
	FLD(soft_atomic_eth_t, swap_add, 12, 0, 64, 0),
	FLD(soft_atomic_eth_t, compare, 20, 0, 64, 0),
};

static const soft_field_t atomic_ack_eth_fields[] = {
	FLD(soft_atomic_ack_eth_t, orig, 0, 0, 64, 0),
};

static const soft_field_t immdt_fields[] = {
	FLD(soft_immdt_t, data, 0, 0, 32, 0),
};

static const soft_field_t ieth_fields[] = {
	FLD(soft_ieth_t, rkey, 0, 0, 32, 0),
};

/* ------------------------------------------------------------------------ */
/* Direct codecs of the headers every packet carries                         */
/* ------------------------------------------------------------------------ */

/*
 * Every header but the GRH (whose structure is its wire image) has a codec
 * written out for its layout, used in place of the field-by-field walk: the
 * LRH and BTH are packed and parsed on every packet, a DETH on every
 * datagram (every MAD), the others on every packet of their opcodes.
 * The field tables stay the definition (formatting, reserved bits, the
 * mask of invariant fields); test_wire checks that both agree on every field.
 */
static void put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

static uint32_t get_be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t get_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static uint32_t get_be32(const uint8_t *p)
{
	return get_be16(p) << 16 | get_be16(p + 2);
}

static void put_be64(uint8_t *p, uint64_t v)
{
	v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
}

/*
 * The LRH of @p h with PktLen @p pkt_len. The fields are read one by one:
 * a packet's builder has just stored them one by one, and a load of the
 * whole struct would wait for those stores to reach the cache (a failed
 * store-to-load forward, most of the cost of a build in perf).
 */
static inline boolean_t lrh_put(const soft_lrh_t *h, uint16_t pkt_len, uint8_t *w)
{
	put_be64(w, (uint64_t)((h->vl & 0xfu) << 4 | (h->lver & 0xfu)) << 56 |
			    (uint64_t)((h->sl & 0xfu) << 4 | (h->lnh & 3u)) << 48 |
			    (uint64_t)h->dlid << 32 | (uint64_t)(pkt_len & 0x7ffu) << 16 | h->slid);
	return !((h->vl | h->lver | h->sl) >> 4 | h->lnh >> 2 | pkt_len >> 11);
}

static boolean_t lrh_pack(const void *hs, uint8_t *w)
{
	const soft_lrh_t *h = (const soft_lrh_t *)hs;

	return lrh_put(h, h->pkt_len, w);
}

/* The LRH at @p w (inline: the parse of every packet calls it directly). */
static inline __attribute__((always_inline)) void lrh_get(const uint8_t *w, soft_lrh_t *h)
{
	h->vl = w[0] >> 4;
	h->lver = w[0] & 0xf;
	h->sl = w[1] >> 4;
	h->lnh = w[1] & 3;
	h->dlid = (uint16_t)get_be16(w + 2);
	h->pkt_len = (uint16_t)(get_be16(w + 4) & 0x7ffu);
	h->slid = (uint16_t)get_be16(w + 6);
}

static void lrh_unpack(const uint8_t *w, void *hs)
{
	lrh_get(w, (soft_lrh_t *)hs);
}

/* The BTH of @p h with PadCnt @p pad_cnt; fields one by one, as lrh_put. */
static inline boolean_t bth_put(const soft_bth_t *h, uint8_t pad_cnt, uint8_t *w)
{
	put_be64(w, (uint64_t)h->opcode << 56 |
			    (uint64_t)((h->se & 1u) << 7 | (h->mig & 1u) << 6 | (pad_cnt & 3u) << 4 |
				       (h->tver & 0xfu)) << 48 |
			    (uint64_t)h->pkey << 32 | (h->dest_qp & 0xffffffu));
	put_be32(w + 8, (uint32_t)(h->ack_req & 1u) << 31 | (h->psn & 0xffffffu));
	return !((h->se | h->mig | h->ack_req) >> 1 | pad_cnt >> 2 | h->tver >> 4 |
		 (h->dest_qp | h->psn) >> 24);
}

static boolean_t bth_pack(const void *hs, uint8_t *w)
{
	const soft_bth_t *h = (const soft_bth_t *)hs;

	return bth_put(h, h->pad_cnt, w);
}

/* The BTH at @p w (inline, as lrh_get). */
static inline __attribute__((always_inline)) void bth_get(const uint8_t *w, soft_bth_t *h)
{
	h->opcode = w[0];
	h->se = w[1] >> 7;
	h->mig = (w[1] >> 6) & 1;
	h->pad_cnt = (w[1] >> 4) & 3;
	h->tver = w[1] & 0xf;
	h->pkey = (uint16_t)get_be16(w + 2);
	h->dest_qp = get_be24(w + 5);
	h->ack_req = w[8] >> 7;
	h->psn = get_be24(w + 9);
}

static void bth_unpack(const uint8_t *w, void *hs)
{
	bth_get(w, (soft_bth_t *)hs);
}

static boolean_t aeth_pack(const void *hs, uint8_t *w)
{
	const soft_aeth_t *h = (const soft_aeth_t *)hs;

	w[0] = h->syndrome;
	put_be24(w + 1, h->msn);
	return !(h->msn >> 24);
}

static void aeth_unpack(const uint8_t *w, void *hs)
{
	soft_aeth_t *h = (soft_aeth_t *)hs;

	h->syndrome = w[0];
	h->msn = get_be24(w + 1);
}

static boolean_t reth_pack(const void *hs, uint8_t *w)
{
	const soft_reth_t *h = (const soft_reth_t *)hs;

	put_be32(w, (uint32_t)(h->va >> 32));
	put_be32(w + 4, (uint32_t)h->va);
	put_be32(w + 8, h->rkey);
	put_be32(w + 12, h->dma_len);
	return TRUE;
}

static void reth_unpack(const uint8_t *w, void *hs)
{
	soft_reth_t *h = (soft_reth_t *)hs;

	h->va = soft_get_be64(w);
	h->rkey = get_be32(w + 8);
	h->dma_len = get_be32(w + 12);
}

static boolean_t deth_pack(const void *hs, uint8_t *w)
{
	const soft_deth_t *h = (const soft_deth_t *)hs;

	put_be32(w, h->qkey);
	put_be32(w + 4, h->src_qp & 0xffffffu);  /* the reserved byte stays 0 */
	return !(h->src_qp >> 24);
}

static void deth_unpack(const uint8_t *w, void *hs)
{
	soft_deth_t *h = (soft_deth_t *)hs;

	h->qkey = get_be32(w);
	h->src_qp = get_be24(w + 5);
}

static boolean_t atomic_eth_pack(const void *hs, uint8_t *w)
{
	const soft_atomic_eth_t *h = (const soft_atomic_eth_t *)hs;

	put_be64(w, h->va);
	put_be32(w + 8, h->rkey);
	put_be64(w + 12, h->swap_add);
	put_be64(w + 20, h->compare);
	return TRUE;
}

static void atomic_eth_unpack(const uint8_t *w, void *hs)
{
	soft_atomic_eth_t *h = (soft_atomic_eth_t *)hs;

	h->va = soft_get_be64(w);
	h->rkey = get_be32(w + 8);
	h->swap_add = soft_get_be64(w + 12);
	h->compare = soft_get_be64(w + 20);
}

static boolean_t atomic_ack_eth_pack(const void *hs, uint8_t *w)
{
	put_be64(w, ((const soft_atomic_ack_eth_t *)hs)->orig);
	return TRUE;
}

static void atomic_ack_eth_unpack(const uint8_t *w, void *hs)
{
	((soft_atomic_ack_eth_t *)hs)->orig = soft_get_be64(w);
}

/* ImmDt and IETH: one 32-bit word each, the same layout. */
static boolean_t word_pack(const void *hs, uint8_t *w)
{
	uint32_t v;

	memcpy(&v, hs, 4);
	put_be32(w, v);
	return TRUE;
}

static void word_unpack(const uint8_t *w, void *hs)
{
	uint32_t v = get_be32(w);

	memcpy(hs, &v, 4);
}
_Static_assert(sizeof(soft_immdt_t) == 4 && sizeof(soft_ieth_t) == 4, "ImmDt and IETH: one word");

#define DESC(name, len, type, wire, tab) \
	{ name, len, (uint16_t)sizeof(type), wire, (uint8_t)COUNT(tab), tab, NULL, NULL }
#define DESC_FAST(name, len, type, tab, pack, unpack) \
	{ name, len, (uint16_t)sizeof(type), FALSE, (uint8_t)COUNT(tab), tab, pack, unpack }

static const soft_hdr_desc_t hdr_descs[SOFT_HDR_COUNT] = {
	[SOFT_HDR_LRH] = DESC_FAST("LRH", SOFT_LRH_LEN, soft_lrh_t, lrh_fields, lrh_pack,
					 lrh_unpack),
	[SOFT_HDR_GRH] = DESC("GRH", SOFT_GRH_LEN, ib_grh_t, TRUE, grh_fields),
	[SOFT_HDR_BTH] = DESC_FAST("BTH", SOFT_BTH_LEN, soft_bth_t, bth_fields, bth_pack,
					 bth_unpack),
	[SOFT_HDR_DETH] = DESC_FAST("DETH", SOFT_DETH_LEN, soft_deth_t, deth_fields, deth_pack,
					   deth_unpack),
	[SOFT_HDR_RETH] = DESC_FAST("RETH", SOFT_RETH_LEN, soft_reth_t, reth_fields, reth_pack,
					   reth_unpack),
	[SOFT_HDR_AETH] = DESC_FAST("AETH", SOFT_AETH_LEN, soft_aeth_t, aeth_fields, aeth_pack,
					   aeth_unpack),
	[SOFT_HDR_ATOMIC_ETH] = DESC_FAST("AtomicETH", SOFT_ATOMIC_ETH_LEN, soft_atomic_eth_t,
					  atomic_eth_fields, atomic_eth_pack, atomic_eth_unpack),
	[SOFT_HDR_ATOMIC_ACK_ETH] = DESC_FAST("AtomicAckETH", SOFT_ATOMIC_ACK_ETH_LEN,
					      soft_atomic_ack_eth_t, atomic_ack_eth_fields,
					      atomic_ack_eth_pack, atomic_ack_eth_unpack),
	[SOFT_HDR_IMMDT] = DESC_FAST("ImmDt", SOFT_IMMDT_LEN, soft_immdt_t, immdt_fields, word_pack,
				     word_unpack),
	[SOFT_HDR_IETH] = DESC_FAST("IETH", SOFT_IETH_LEN, soft_ieth_t, ieth_fields, word_pack,
				    word_unpack),
};

const soft_hdr_desc_t *soft_hdr_desc(soft_hdr_id_t id)
{
	return (unsigned)id < SOFT_HDR_COUNT ? &hdr_descs[id] : NULL;
}

const soft_field_t *soft_hdr_field(soft_hdr_id_t id, const char *name)
{
	const soft_hdr_desc_t *d = soft_hdr_desc(id);
	unsigned i;

	if (!d || !name)
		return NULL;
	for (i = 0; i < d->n_fields; i++)
		if (strcmp(d->fields[i].name, name) == 0)
			return &d->fields[i];
	return NULL;
}

/*
 * A field of the tables lies in at most 8 bytes: those are read as one
 * big-endian word and the field is shifted and masked out of it. Wider
 * spans (a 64-bit field not starting on a byte, which only callers of the
 * generic functions make) go bit group by bit group.
 */
static unsigned field_bytes(const soft_field_t *f)
{
	return (f->bit_off + f->width + 7u) / 8u;
}

static uint64_t field_mask(const soft_field_t *f)
{
	return f->width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << f->width) - 1;
}

static uint64_t field_get_wide(const soft_field_t *f, const uint8_t *p)
{
	unsigned bit = f->bit_off, left = f->width;
	uint64_t v = 0;

	for (; left; bit = 0, p++) {
		unsigned take = left < 8 - bit ? left : 8 - bit;

		v = (v << take) | ((*p >> (8 - bit - take)) & ((1u << take) - 1));
		left -= take;
	}
	return v;
}

static void field_set_wide(const soft_field_t *f, uint8_t *p, uint64_t value)
{
	unsigned bit = f->bit_off, left = f->width;

	for (; left; bit = 0, p++) {
		unsigned take = left < 8 - bit ? left : 8 - bit;
		unsigned shift = 8 - bit - take;
		unsigned mask = ((1u << take) - 1) << shift;

		*p = (uint8_t)((*p & ~mask) | (((unsigned)(value >> (left - take)) << shift) & mask));
		left -= take;
	}
}

uint64_t soft_field_get(const soft_field_t *f, const uint8_t *hdr)
{
	const uint8_t *p = hdr + f->byte_off;
	unsigned i, n = field_bytes(f);
	uint64_t w = 0;

	if (n > 8)
		return field_get_wide(f, p);
	for (i = 0; i < n; i++)
		w = (w << 8) | p[i];
	return (w >> (n * 8u - f->bit_off - f->width)) & field_mask(f);
}

void soft_field_set(const soft_field_t *f, uint8_t *hdr, uint64_t value)
{
	uint8_t *p = hdr + f->byte_off;
	unsigned i, n = field_bytes(f), shift;
	uint64_t mask, w = 0;

	if (n > 8) {
		field_set_wide(f, p, value);
		return;
	}
	shift = n * 8u - f->bit_off - f->width;
	mask = field_mask(f) << shift;
	for (i = 0; i < n; i++)
		w = (w << 8) | p[i];
	w = (w & ~mask) | ((value << shift) & mask);
	for (i = n; i-- > 0; w >>= 8)
		p[i] = (uint8_t)w;
}

static uint64_t member_get(const void *s, const soft_field_t *f)
{
	const uint8_t *m = (const uint8_t *)s + f->struct_off;
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (f->struct_size) {
	case 1:
		memcpy(&v8, m, 1);
		return v8;
	case 2:
		memcpy(&v16, m, 2);
		return v16;
	case 4:
		memcpy(&v32, m, 4);
		return v32;
	default:
		memcpy(&v64, m, 8);
		return v64;
	}
}

static void member_set(void *s, const soft_field_t *f, uint64_t v)
{
	uint8_t *m = (uint8_t *)s + f->struct_off;
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	switch (f->struct_size) {
	case 1:
		memcpy(m, &v8, 1);
		break;
	case 2:
		memcpy(m, &v16, 2);
		break;
	case 4:
		memcpy(m, &v32, 4);
		break;
	default:
		memcpy(m, &v, 8);
		break;
	}
}

/* Header @p id (a valid one) through its direct codec if it has one, else
 * field by field: the one dispatch of soft_hdr_pack() and the packet build. */
static inline boolean_t hdr_pack(soft_hdr_id_t id, const void *hdr_struct, uint8_t *wire)
{
	const soft_hdr_desc_t *d = &hdr_descs[id];

	return d->pack ? d->pack(hdr_struct, wire) : soft_hdr_pack_fields(id, hdr_struct, wire);
}

/* As hdr_pack(), the other way: soft_hdr_unpack() and the packet parse. */
static inline void hdr_unpack(soft_hdr_id_t id, const uint8_t *wire, void *hdr_struct)
{
	const soft_hdr_desc_t *d = &hdr_descs[id];

	if (d->unpack)
		d->unpack(wire, hdr_struct);
	else
		soft_hdr_unpack_fields(id, wire, hdr_struct);
}

boolean_t soft_hdr_pack(soft_hdr_id_t id, const void *hdr_struct, uint8_t *wire)
{
	if ((unsigned)id >= SOFT_HDR_COUNT)
		return FALSE;
	return hdr_pack(id, hdr_struct, wire);
}

boolean_t soft_hdr_pack_fields(soft_hdr_id_t id, const void *hdr_struct, uint8_t *wire)
{
	const soft_hdr_desc_t *d = soft_hdr_desc(id);
	boolean_t fits = TRUE;
	unsigned i;

	if (!d)
		return FALSE;
	if (d->wire_struct) {
		memcpy(wire, hdr_struct, d->len);
		return TRUE;
	}
	memset(wire, 0, d->len);
	for (i = 0; i < d->n_fields; i++) {
		const soft_field_t *f = &d->fields[i];
		uint64_t v;

		if (!f->struct_size)
			continue;
		v = member_get(hdr_struct, f);
		if (f->width < 64 && (v >> f->width))
			fits = FALSE;
		soft_field_set(f, wire, v);
	}
	return fits;
}

void soft_hdr_unpack(soft_hdr_id_t id, const uint8_t *wire, void *hdr_struct)
{
	if ((unsigned)id < SOFT_HDR_COUNT)
		hdr_unpack(id, wire, hdr_struct);
}

void soft_hdr_unpack_fields(soft_hdr_id_t id, const uint8_t *wire, void *hdr_struct)
{
	const soft_hdr_desc_t *d = soft_hdr_desc(id);
	unsigned i;

	if (!d)
		return;
	if (d->wire_struct) {
		memcpy(hdr_struct, wire, d->len);
		return;
	}
	for (i = 0; i < d->n_fields; i++)
		if (d->fields[i].struct_size)
			member_set(hdr_struct, &d->fields[i], soft_field_get(&d->fields[i], wire));
}

int soft_hdr_format(soft_hdr_id_t id, const uint8_t *wire, char *out, size_t out_size)
{
	const soft_hdr_desc_t *d = soft_hdr_desc(id);
	size_t used = 0;
	unsigned i;
	int n;

	if (!d)
		return -1;
	if (out && out_size)
		out[0] = '\0';
	for (i = 0; i < d->n_fields; i++) {
		const soft_field_t *f = &d->fields[i];
		unsigned long long v;

		if (f->flags & SOFT_FIELD_RSVD)
			continue;
		v = (unsigned long long)soft_field_get(f, wire);
		n = snprintf(used < out_size ? out + used : NULL,
			     used < out_size ? out_size - used : 0,
			     f->width > 8 ? "%s%s=0x%llx" : "%s%s=%llu", used ? " " : "", f->name,
			     v);
		if (n < 0)
			return -1;
		used += (size_t)n;
	}
	return (int)used;
}

/* ------------------------------------------------------------------------ */
/* Opcodes                                                                   */
/* ------------------------------------------------------------------------ */

#define H_DETH   SOFT_HDRF_DETH
#define H_RETH   SOFT_HDRF_RETH
#define H_AETH   SOFT_HDRF_AETH
#define H_ATOMIC SOFT_HDRF_ATOMIC_ETH
#define H_AACK   SOFT_HDRF_ATOMIC_ACK_ETH
#define H_IMM    SOFT_HDRF_IMMDT
#define H_IETH   SOFT_HDRF_IETH

#define EXT_LEN(h) \
	(((h) & H_DETH ? SOFT_DETH_LEN : 0) + ((h) & H_RETH ? SOFT_RETH_LEN : 0) + \
	 ((h) & H_AETH ? SOFT_AETH_LEN : 0) + ((h) & H_ATOMIC ? SOFT_ATOMIC_ETH_LEN : 0) + \
	 ((h) & H_AACK ? SOFT_ATOMIC_ACK_ETH_LEN : 0) + ((h) & H_IMM ? SOFT_IMMDT_LEN : 0) + \
	 ((h) & H_IETH ? SOFT_IETH_LEN : 0))

#define OP_ENTRY(tr, op, h, fl) \
	[SOFT_TRANSPORT_##tr | SOFT_OP_##op] = { #tr "_" #op, (uint16_t)(h), (uint8_t)EXT_LEN(h), \
						  (uint16_t)(fl) }

#define P  SOFT_OPF_PAYLOAD
#define RQ SOFT_OPF_REQUEST
#define RS SOFT_OPF_RESPONSE

/* The send and RDMA WRITE opcodes, common to RC and UC. */
#define SEND_WRITE_OPS(tr)                                                                    \
	OP_ENTRY(tr, SEND_FIRST, 0, P | RQ | SOFT_OPF_SEND | SOFT_OPF_FIRST),                \
	OP_ENTRY(tr, SEND_MIDDLE, 0, P | RQ | SOFT_OPF_SEND | SOFT_OPF_MIDDLE),              \
	OP_ENTRY(tr, SEND_LAST, 0, P | RQ | SOFT_OPF_SEND | SOFT_OPF_LAST),                  \
	OP_ENTRY(tr, SEND_LAST_IMM, H_IMM,                                                    \
		 P | RQ | SOFT_OPF_SEND | SOFT_OPF_LAST | SOFT_OPF_IMM),                      \
	OP_ENTRY(tr, SEND_ONLY, 0, P | RQ | SOFT_OPF_SEND | SOFT_OPF_ONLY),                  \
	OP_ENTRY(tr, SEND_ONLY_IMM, H_IMM,                                                    \
		 P | RQ | SOFT_OPF_SEND | SOFT_OPF_ONLY | SOFT_OPF_IMM),                      \
	OP_ENTRY(tr, WRITE_FIRST, H_RETH, P | RQ | SOFT_OPF_WRITE | SOFT_OPF_FIRST),         \
	OP_ENTRY(tr, WRITE_MIDDLE, 0, P | RQ | SOFT_OPF_WRITE | SOFT_OPF_MIDDLE),            \
	OP_ENTRY(tr, WRITE_LAST, 0, P | RQ | SOFT_OPF_WRITE | SOFT_OPF_LAST),                \
	OP_ENTRY(tr, WRITE_LAST_IMM, H_IMM,                                                   \
		 P | RQ | SOFT_OPF_WRITE | SOFT_OPF_LAST | SOFT_OPF_IMM),                     \
	OP_ENTRY(tr, WRITE_ONLY, H_RETH, P | RQ | SOFT_OPF_WRITE | SOFT_OPF_ONLY),           \
	OP_ENTRY(tr, WRITE_ONLY_IMM, H_RETH | H_IMM,                                          \
		 P | RQ | SOFT_OPF_WRITE | SOFT_OPF_ONLY | SOFT_OPF_IMM)

const soft_opcode_info_t soft_opcodes[256] = {
	SEND_WRITE_OPS(RC),
	OP_ENTRY(RC, READ_REQUEST, H_RETH, RQ | SOFT_OPF_READ),
	OP_ENTRY(RC, READ_RESPONSE_FIRST, H_AETH, P | RS | SOFT_OPF_READ | SOFT_OPF_FIRST),
	OP_ENTRY(RC, READ_RESPONSE_MIDDLE, 0, P | RS | SOFT_OPF_READ | SOFT_OPF_MIDDLE),
	OP_ENTRY(RC, READ_RESPONSE_LAST, H_AETH, P | RS | SOFT_OPF_READ | SOFT_OPF_LAST),
	OP_ENTRY(RC, READ_RESPONSE_ONLY, H_AETH, P | RS | SOFT_OPF_READ | SOFT_OPF_ONLY),
	OP_ENTRY(RC, ACKNOWLEDGE, H_AETH, RS | SOFT_OPF_ACK),
	OP_ENTRY(RC, ATOMIC_ACKNOWLEDGE, H_AETH | H_AACK, RS | SOFT_OPF_ACK | SOFT_OPF_ATOMIC),
	OP_ENTRY(RC, COMPARE_SWAP, H_ATOMIC, RQ | SOFT_OPF_ATOMIC),
	OP_ENTRY(RC, FETCH_ADD, H_ATOMIC, RQ | SOFT_OPF_ATOMIC),
	OP_ENTRY(RC, SEND_LAST_INV, H_IETH,
		 P | RQ | SOFT_OPF_SEND | SOFT_OPF_LAST | SOFT_OPF_INV),
	OP_ENTRY(RC, SEND_ONLY_INV, H_IETH,
		 P | RQ | SOFT_OPF_SEND | SOFT_OPF_ONLY | SOFT_OPF_INV),
	SEND_WRITE_OPS(UC),
	OP_ENTRY(UD, SEND_ONLY, H_DETH, P | RQ | SOFT_OPF_SEND | SOFT_OPF_ONLY),
	OP_ENTRY(UD, SEND_ONLY_IMM, H_DETH | H_IMM,
		 P | RQ | SOFT_OPF_SEND | SOFT_OPF_ONLY | SOFT_OPF_IMM),
};

/* ------------------------------------------------------------------------ */
/* AETH codes                                                                */
/* ------------------------------------------------------------------------ */

/* 0, 1, 2, 3, 4, 6, 8, 12, 16, ...: powers of two and 1.5 times them alternate. */
static uint32_t half_log_series(unsigned code)
{
	if (code < 2)
		return code;
	return code & 1 ? 3u << ((code - 3) / 2) : 1u << (code / 2);
}

int soft_aeth_credits(unsigned code)
{
	if (code >= SOFT_AETH_CREDITS_INVALID)
		return -1;
	return (int)half_log_series(code);
}

uint32_t soft_rnr_timer_us(unsigned code)
{
	code &= 0x1F;
	return code ? 10u * half_log_series(code) : 655360u;
}

/* ------------------------------------------------------------------------ */
/* CRCs                                                                      */
/* ------------------------------------------------------------------------ */

#define CRC16_POLY_REFLECTED 0xD008u     /* 0x100B bit-reversed */

/* Slicing-by-8 table of the VCRC: t[k][b] is the register after byte b then k zero bytes. */
static uint32_t crc16_tab[8][256];
/* OR-masks putting ones in the variant fields, LRH through BTH. */
static uint8_t icrc_mask_local[SOFT_LRH_LEN + SOFT_BTH_LEN];
static uint8_t icrc_mask_global[SOFT_LRH_LEN + SOFT_GRH_LEN + SOFT_BTH_LEN];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void make_crc_tables(uint32_t (*t)[256], uint32_t poly)
{
	unsigned b, k, i;

	for (b = 0; b < 256; b++) {
		uint32_t c = b;

		for (i = 0; i < 8; i++)
			c = (c & 1) ? (c >> 1) ^ poly : c >> 1;
		t[0][b] = c;
	}
	for (k = 1; k < 8; k++)
		for (b = 0; b < 256; b++)
			t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
}

static void mask_variant(soft_hdr_id_t id, uint8_t *mask)
{
	const soft_hdr_desc_t *d = soft_hdr_desc(id);
	unsigned i;

	for (i = 0; i < d->n_fields; i++)
		if (d->fields[i].flags & SOFT_FIELD_VARIANT)
			soft_field_set(&d->fields[i], mask, ~(uint64_t)0);
}

static void init_tables(void)
{
	make_crc_tables(crc16_tab, CRC16_POLY_REFLECTED);
	mask_variant(SOFT_HDR_LRH, icrc_mask_local);
	mask_variant(SOFT_HDR_BTH, icrc_mask_local + SOFT_LRH_LEN);
	/* A router rewrites the whole LRH of a global packet. */
	memset(icrc_mask_global, 0xFF, SOFT_LRH_LEN);
	mask_variant(SOFT_HDR_GRH, icrc_mask_global + SOFT_LRH_LEN);
	mask_variant(SOFT_HDR_BTH, icrc_mask_global + SOFT_LRH_LEN + SOFT_GRH_LEN);
}

static void tables_ready(void)
{
	pthread_once(&tables_once, init_tables);
}

static uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

/* One slicing-by-8 step: the register after 8 bytes; lo = first 4 bytes XOR register. */
#define SLICE8(t, lo, hi)                                                                 \
	((t)[7][(lo) & 0xFF] ^ (t)[6][((lo) >> 8) & 0xFF] ^ (t)[5][((lo) >> 16) & 0xFF] ^ \
	 (t)[4][(lo) >> 24] ^ (t)[3][(hi) & 0xFF] ^ (t)[2][((hi) >> 8) & 0xFF] ^          \
	 (t)[1][((hi) >> 16) & 0xFF] ^ (t)[0][(hi) >> 24])

/* Runs a bit-reflected CRC register of up to 32 bits over n bytes. */
static uint32_t crc_run(uint32_t (*t)[256], uint32_t c, const uint8_t *p, size_t n)
{
	while (n >= 8) {
		uint32_t lo = c ^ load_le32(p);
		uint32_t hi = load_le32(p + 4);

		c = SLICE8(t, lo, hi);
		p += 8;
		n -= 8;
	}
	while (n--)
		c = (c >> 8) ^ t[0][(c ^ *p++) & 0xFF];
	return c;
}

uint32_t soft_crc32(uint32_t crc, const void *data, size_t len)
{
	return (uint32_t)crc32((uLong)crc, (const Bytef *)data, (uInt)len);
}

uint16_t soft_crc16(uint16_t crc, const void *data, size_t len)
{
	tables_ready();
	return (uint16_t)~crc_run(crc16_tab, (uint16_t)~crc, (const uint8_t *)data, len);
}

static size_t route_len(const uint8_t *pkt)
{
	return SOFT_LRH_LEN + (soft_lrh_lnh(pkt) == SOFT_LNH_IBA_GLOBAL ? SOFT_GRH_LEN : 0);
}

/*
 * The ICRC of a packet and the VCRC of its bytes before the ICRC (chainable
 * soft_crc16() value), in one pass. FALSE if icrc_off is shorter than the headers.
 */
static boolean_t packet_crcs(const uint8_t *pkt, size_t icrc_off, uint32_t *p_icrc,
			     uint16_t *p_vcrc_part)
{
	uint8_t hdr[sizeof(icrc_mask_global)];
	const uint8_t *mask;
	uint32_t a, b;
	size_t n, i;

	if (!pkt || icrc_off < SOFT_LRH_LEN)
		return FALSE;
	n = route_len(pkt) + SOFT_BTH_LEN;
	if (icrc_off < n)
		return FALSE;
	tables_ready();
	mask = n == sizeof(icrc_mask_global) ? icrc_mask_global : icrc_mask_local;
	for (i = 0; i < n; i++)
		hdr[i] = pkt[i] | mask[i];
	/* The ICRC is the IBA's CRC-32, zlib's: its crc32() is a tuned,
	 * well-kept implementation. The VCRC's CRC-16 has no such library. */
	a = (uint32_t)crc32(crc32(0L, hdr, (uInt)n), pkt + n, (uInt)(icrc_off - n));
	b = crc_run(crc16_tab, 0xFFFFu, pkt, icrc_off);
	*p_icrc = a;
	*p_vcrc_part = (uint16_t)~b;
	return TRUE;
}

uint32_t soft_icrc(const uint8_t *pkt, size_t icrc_off)
{
	uint32_t icrc;
	uint16_t part;

	return packet_crcs(pkt, icrc_off, &icrc, &part) ? icrc : 0;
}

uint16_t soft_vcrc(const uint8_t *pkt, size_t vcrc_off)
{
	return soft_crc16(0, pkt, vcrc_off);
}

static void store_le(uint8_t *p, uint32_t v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

soft_wire_status_t soft_pkt_seal(uint8_t *pkt, size_t len)
{
	size_t icrc_off = len - SOFT_VCRC_LEN - SOFT_ICRC_LEN;
	uint32_t icrc;
	uint16_t vcrc;

	if (!pkt || len < SOFT_MIN_PKT_LEN || !packet_crcs(pkt, icrc_off, &icrc, &vcrc))
		return SOFT_WIRE_ERR_ARG;
	store_le(pkt + icrc_off, icrc, SOFT_ICRC_LEN);
	vcrc = soft_crc16(vcrc, pkt + icrc_off, SOFT_ICRC_LEN);
	store_le(pkt + len - SOFT_VCRC_LEN, vcrc, SOFT_VCRC_LEN);
	return SOFT_WIRE_OK;
}

soft_wire_status_t soft_pkt_seal_none(uint8_t *pkt, size_t len)
{
	if (!pkt || len < SOFT_MIN_PKT_LEN)
		return SOFT_WIRE_ERR_ARG;
	memset(pkt + len - SOFT_VCRC_LEN - SOFT_ICRC_LEN, 0, SOFT_VCRC_LEN + SOFT_ICRC_LEN);
	return SOFT_WIRE_OK;
}

/* ------------------------------------------------------------------------ */
/* Whole packets                                                             */
/* ------------------------------------------------------------------------ */

/* Where each extended header lives in soft_pkt_t. */
static const uint16_t ext_member[SOFT_HDR_COUNT] = {
	[SOFT_HDR_DETH] = offsetof(soft_pkt_t, deth),
	[SOFT_HDR_RETH] = offsetof(soft_pkt_t, reth),
	[SOFT_HDR_AETH] = offsetof(soft_pkt_t, aeth),
	[SOFT_HDR_ATOMIC_ETH] = offsetof(soft_pkt_t, atomic_eth),
	[SOFT_HDR_ATOMIC_ACK_ETH] = offsetof(soft_pkt_t, atomic_ack),
	[SOFT_HDR_IMMDT] = offsetof(soft_pkt_t, immdt),
	[SOFT_HDR_IETH] = offsetof(soft_pkt_t, ieth),
};

static const char *const status_names[SOFT_WIRE_STATUS_COUNT] = {
	"SOFT_WIRE_OK",        "SOFT_WIRE_ERR_ARG",     "SOFT_WIRE_ERR_SPACE",
	"SOFT_WIRE_ERR_SHORT", "SOFT_WIRE_ERR_LENGTH",  "SOFT_WIRE_ERR_LNH",
	"SOFT_WIRE_ERR_VERSION", "SOFT_WIRE_ERR_VCRC",  "SOFT_WIRE_ERR_ICRC",
	"SOFT_WIRE_ERR_OPCODE", "SOFT_WIRE_ERR_PAD",
};

const char *soft_wire_strerror(soft_wire_status_t status)
{
	if ((unsigned)status >= SOFT_WIRE_STATUS_COUNT)
		return "SOFT_WIRE_UNKNOWN";
	return status_names[status];
}

static size_t hdr_len_of(uint8_t lnh, const soft_opcode_info_t *info)
{
	if ((lnh != SOFT_LNH_IBA_LOCAL && lnh != SOFT_LNH_IBA_GLOBAL) || !info)
		return 0;
	return (size_t)SOFT_LRH_LEN + (lnh == SOFT_LNH_IBA_GLOBAL ? SOFT_GRH_LEN : 0) +
	       SOFT_BTH_LEN + info->ext_len;
}

size_t soft_pkt_hdr_len(const soft_pkt_t *pkt)
{
	return pkt ? hdr_len_of(pkt->lrh.lnh, soft_opcode_info(pkt->bth.opcode)) : 0;
}

static size_t pad_of(uint32_t payload_len)
{
	return (4 - (payload_len & 3)) & 3;
}

size_t soft_pkt_len(const soft_pkt_t *pkt)
{
	size_t hdr = soft_pkt_hdr_len(pkt);

	if (!hdr)
		return 0;
	return hdr + pkt->payload_len + pad_of(pkt->payload_len) + SOFT_ICRC_LEN + SOFT_VCRC_LEN;
}

/* Payload size rules of an opcode; pad is the pad count that goes with it. */
static boolean_t payload_ok(const soft_opcode_info_t *info, uint32_t payload_len, size_t pad)
{
	if (!(info->flags & SOFT_OPF_PAYLOAD))
		return payload_len == 0 && pad == 0;
	if (payload_len > SOFT_MAX_PAYLOAD)
		return FALSE;
	/* First and middle packets carry a whole path MTU: never empty, never padded. */
	if (info->flags & (SOFT_OPF_FIRST | SOFT_OPF_MIDDLE))
		return payload_len != 0 && pad == 0;
	return TRUE;
}

soft_wire_status_t soft_pkt_build_hdrs(const soft_pkt_t *pkt, uint8_t *buf, size_t buf_size,
				       size_t *p_hdr_len)
{
	const soft_opcode_info_t *info;
	uint8_t scratch[SOFT_MAX_HDR_LEN];
	size_t hdr, total, off;
	boolean_t fits;
	unsigned id, ext;

	if (!pkt || !buf)
		return SOFT_WIRE_ERR_ARG;
	info = soft_opcode_info(pkt->bth.opcode);
	hdr = hdr_len_of(pkt->lrh.lnh, info);
	if (!hdr || !payload_ok(info, pkt->payload_len, pad_of(pkt->payload_len)))
		return SOFT_WIRE_ERR_ARG;
	/* Too small: still pack (into scratch) so that argument errors come first. */
	if (buf_size < hdr)
		buf = scratch;
	total = hdr + pkt->payload_len + pad_of(pkt->payload_len) + SOFT_ICRC_LEN;

	/* The LRH and BTH of every packet through their codecs directly, the
	 * extended headers by the opcode's bits: a packet is built for every
	 * message and ACK, so this is the data path. */
	fits = lrh_put(&pkt->lrh, (uint16_t)(total / 4), buf);
	off = SOFT_LRH_LEN;
	if (pkt->lrh.lnh == SOFT_LNH_IBA_GLOBAL) {
		uint8_t *grh = buf + off;

		soft_hdr_pack(SOFT_HDR_GRH, &pkt->grh, grh);
		soft_field_set(&grh_fields[GRH_IPVER], grh, SOFT_GRH_IPVER);
		soft_field_set(&grh_fields[GRH_PAY_LEN], grh, total - SOFT_LRH_LEN - SOFT_GRH_LEN);
		soft_field_set(&grh_fields[GRH_NXT_HDR], grh, SOFT_GRH_NXTHDR_IBA);
		off += SOFT_GRH_LEN;
	}
	fits &= bth_put(&pkt->bth, (uint8_t)pad_of(pkt->payload_len), buf + off);
	off += SOFT_BTH_LEN;
	for (ext = info->hdrs & ~((1u << SOFT_HDR_DETH) - 1u); ext; ext &= ext - 1) {
		id = (unsigned)__builtin_ctz(ext);   /* in header order, as the IBA lays them */
		fits &= hdr_pack((soft_hdr_id_t)id, (const uint8_t *)pkt + ext_member[id], buf + off);
		off += hdr_descs[id].len;
	}
	if (!fits)
		return SOFT_WIRE_ERR_ARG;
	if (buf == scratch)
		return SOFT_WIRE_ERR_SPACE;
	if (p_hdr_len)
		*p_hdr_len = hdr;
	return SOFT_WIRE_OK;
}

soft_wire_status_t soft_pkt_build(const soft_pkt_t *pkt, uint8_t *buf, size_t buf_size,
				  size_t *p_len)
{
	soft_wire_status_t st;
	size_t hdr, total;

	if (!pkt || !buf || (pkt->payload_len && !pkt->payload))
		return SOFT_WIRE_ERR_ARG;
	st = soft_pkt_build_hdrs(pkt, buf, buf_size, &hdr);
	if (st != SOFT_WIRE_OK)
		return st;
	total = soft_pkt_len(pkt);
	if (buf_size < total)
		return SOFT_WIRE_ERR_SPACE;
	if (pkt->payload_len)
		memcpy(buf + hdr, pkt->payload, pkt->payload_len);
	memset(buf + hdr + pkt->payload_len, 0, pad_of(pkt->payload_len));
	soft_pkt_seal(buf, total);
	if (p_len)
		*p_len = total;
	return SOFT_WIRE_OK;
}

soft_wire_status_t soft_pkt_parse(const uint8_t *buf, size_t len, soft_pkt_t *pkt)
{
	return soft_pkt_parse_flags(buf, len, 0, pkt);
}

soft_wire_status_t soft_pkt_parse_flags(const uint8_t *buf, size_t len, unsigned flags,
					soft_pkt_t *pkt)
{
	const soft_opcode_info_t *info;
	size_t route, off, end, area;
	uint32_t icrc;
	uint16_t vcrc;
	unsigned id, ext;

	if (!buf || !pkt)
		return SOFT_WIRE_ERR_ARG;
	memset(pkt, 0, sizeof(*pkt));
	if (len < SOFT_LRH_LEN)
		return SOFT_WIRE_ERR_SHORT;
	if (soft_lrh_lnh(buf) < SOFT_LNH_IBA_LOCAL)
		return SOFT_WIRE_ERR_LNH;
	route = route_len(buf);
	if (len < route + SOFT_BTH_LEN + SOFT_ICRC_LEN + SOFT_VCRC_LEN)
		return SOFT_WIRE_ERR_SHORT;
	if (len > SOFT_MAX_PKT_LEN || (size_t)soft_lrh_pkt_len(buf) * 4 + SOFT_VCRC_LEN != len)
		return SOFT_WIRE_ERR_LENGTH;
	end = len - SOFT_VCRC_LEN - SOFT_ICRC_LEN; /* end of headers + payload + pad */
	pkt->vcrc = (uint16_t)(buf[len - 2] | (buf[len - 1] << 8));
	pkt->icrc = load_le32(buf + end);
	if (!(flags & SOFT_PARSE_NO_CRC)) {
		packet_crcs(buf, end, &icrc, &vcrc);
		if (soft_crc16(vcrc, buf + end, SOFT_ICRC_LEN) != pkt->vcrc)
			return SOFT_WIRE_ERR_VCRC;
		if (icrc != pkt->icrc)
			return SOFT_WIRE_ERR_ICRC;
	}

	/* The LRH and BTH of every packet through their codecs directly, the
	 * extended headers by the opcode's bits (as soft_pkt_build_hdrs). */
	lrh_get(buf, &pkt->lrh);
	if (route > SOFT_LRH_LEN) {
		const uint8_t *grh = buf + SOFT_LRH_LEN;

		if (soft_field_get(&grh_fields[GRH_IPVER], grh) != SOFT_GRH_IPVER ||
		    soft_field_get(&grh_fields[GRH_NXT_HDR], grh) != SOFT_GRH_NXTHDR_IBA)
			return SOFT_WIRE_ERR_VERSION;
		if (soft_field_get(&grh_fields[GRH_PAY_LEN], grh) != end + SOFT_ICRC_LEN - route)
			return SOFT_WIRE_ERR_LENGTH;
		soft_hdr_unpack(SOFT_HDR_GRH, grh, &pkt->grh);
	}
	bth_get(buf + route, &pkt->bth);
	if (pkt->lrh.lver != 0 || pkt->bth.tver != 0)
		return SOFT_WIRE_ERR_VERSION;
	info = soft_opcode_info(pkt->bth.opcode);
	if (!info)
		return SOFT_WIRE_ERR_OPCODE;
	off = route + SOFT_BTH_LEN;
	if (end - off < info->ext_len)
		return SOFT_WIRE_ERR_SHORT;
	for (ext = info->hdrs & ~((1u << SOFT_HDR_DETH) - 1u); ext; ext &= ext - 1) {
		id = (unsigned)__builtin_ctz(ext);   /* in header order, as the IBA lays them */
		hdr_unpack((soft_hdr_id_t)id, buf + off, (uint8_t *)pkt + ext_member[id]);
		off += hdr_descs[id].len;
	}
	area = end - off;
	if (pkt->bth.pad_cnt > area)
		return SOFT_WIRE_ERR_PAD;
	if (!payload_ok(info, (uint32_t)(area - pkt->bth.pad_cnt), pkt->bth.pad_cnt))
		return SOFT_WIRE_ERR_PAD;
	pkt->payload = area ? buf + off : NULL;
	pkt->payload_len = (uint32_t)(area - pkt->bth.pad_cnt);
	return SOFT_WIRE_OK;
}
