/*
 * ibal fuzzing: the IOC discovery's parser of DevMgt answers (al_ioc_read_unit).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The discovery asks a unit for its IOUnitInfo, then for the profile and the
 * service entries of each controller the unit says is installed; every
 * count it goes by (MaxControllers, the ControllerList, NumSvcEntries) is
 * the peer's. Here the answers are the input, read in order: before each
 * answer one byte, whose top bit makes the Get fail (a status in the
 * answer, or no answer), else the answer's data, as many bytes as the Get
 * takes (what the input lacks is zero). An input that runs out ends the unit
 * as a timeout would. Seeds: a unit with two installed controllers of five
 * and zero service entries, and one that fails half-way.
 */
#include <string.h>
#include "al_verbs.h"
#include "fuzz.h"

typedef struct answers {
	const uint8_t *p;
	size_t left;
	unsigned gets;
} answers_t;

static ib_api_status_t next_answer(void *ctx, ib_net16_t attr_id, ib_net32_t attr_mod,
				   void *p_data, size_t len)
{
	answers_t *a = (answers_t *)ctx;
	uint8_t head;
	size_t n;

	(void)attr_id;
	(void)attr_mod;
	a->gets++;
	if (!a->left)
		return IB_TIMEOUT;
	head = *a->p++;
	a->left--;
	if (head & 0x80)
		return IB_REMOTE_ERROR;
	n = len < a->left ? len : a->left;
	memset(p_data, 0, len);
	memcpy(p_data, a->p, n);
	a->p += n;
	a->left -= n;
	return IB_SUCCESS;
}

/* Appends one answer (a head byte and @p len bytes of @p p) to @p out. */
static size_t put(uint8_t *out, size_t at, const void *p, size_t len)
{
	out[at] = 0;
	memcpy(out + at + 1, p, len);
	return at + 1 + len;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static uint8_t seed[4096];
	ib_iou_info_t iou;
	ib_ioc_profile_t prof;
	ib_svc_entries_t ents;
	size_t at = 0;

	(void)argc;
	(void)argv;
	memset(&iou, 0, sizeof(iou));
	iou.change_id = CL_HTON16(7);
	iou.max_controllers = 3;
	iou.controller_list[0] = (IOC_INSTALLED << 4) | IOC_NOT_INSTALLED; /* slots 1, 2 */
	iou.controller_list[1] = IOC_INSTALLED << 4;                      /* slot 3 */
	at = put(seed, at, &iou, sizeof(iou));
	memset(&prof, 0, sizeof(prof));
	prof.ioc_guid = CL_HTON64(0x0002c90300001231ull);
	prof.num_svc_entries = 5;
	memcpy(prof.id_string, "fuzz ioc", 8);
	at = put(seed, at, &prof, sizeof(prof));
	memset(&ents, 0, sizeof(ents));
	ents.service_entry[0].id = CL_HTON64(0x1000);
	memcpy(ents.service_entry[0].name, "svc0", 4);
	at = put(seed, at, &ents, sizeof(ents)); /* entries 0-3 */
	at = put(seed, at, &ents, sizeof(ents)); /* entry 4 */
	prof.num_svc_entries = 0;
	at = put(seed, at, &prof, sizeof(prof)); /* slot 3: no entries */
	fuzz_seed("two-iocs", seed, at);
	seed[at - sizeof(prof) - 1] = 0x80;      /* slot 3's profile: an error status */
	fuzz_seed("second-fails", seed, at - sizeof(prof));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	answers_t a = { data, size, 0 };
	uint32_t n_ioc = 0, n_svc = 0;
	ib_api_status_t st = al_ioc_read_unit(next_answer, &a, &n_ioc, &n_svc);

	/* What it read is bounded by what a unit can claim, and it asked for
	 * no more than the input could answer plus the one that found it
	 * empty. */
	if (n_ioc > 255 || n_svc > 255u * 255u || a.gets > size + 1 ||
	    (st != IB_SUCCESS && st != IB_TIMEOUT && st != IB_REMOTE_ERROR &&
	     st != IB_INSUFFICIENT_MEMORY))
		abort();
	return 0;
}
