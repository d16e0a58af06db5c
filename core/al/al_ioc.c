/*
 * ibal access layer: local I/O controllers and service entries (ib_create_ioc .. ib_remove_svc_entry), the IOU registry.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * See al_ioc.h for the model. One mutex (reg_lock) guards the list of
 * IOUs and everything they hold; it is a leaf: the DM agent is started and
 * stopped with it released.
 */
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <complib/cl_memory.h>
#include "al_verbs.h"
#include "al_ioc.h"

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static cl_qlist_t reg_ious;
static boolean_t reg_init;

/* ---- The registry (reg_lock held) ---- */

static al_iou_t *iou_find(ib_net64_t ca_guid)
{
	cl_list_item_t *it;

	if (!reg_init)
		return NULL;
	for (it = cl_qlist_head(&reg_ious); it != cl_qlist_end(&reg_ious); it = cl_qlist_next(it))
		if (PARENT_STRUCT(it, al_iou_t, item)->ca_guid == ca_guid)
			return PARENT_STRUCT(it, al_iou_t, item);
	return NULL;
}

/* The IOU of a CA, made if needed, with one more IOC counted. */
static al_iou_t *iou_get(ib_net64_t ca_guid)
{
	al_iou_t *p_iou = iou_find(ca_guid);
	struct timespec ts;

	if (!reg_init) {
		cl_qlist_init(&reg_ious);
		reg_init = TRUE;
	}
	if (!p_iou) {
		p_iou = (al_iou_t *)cl_zalloc(sizeof(*p_iou));
		if (!p_iou)
			return NULL;
		p_iou->ca_guid = ca_guid;
		/* An IOU made again after all its IOCs went starts from another
		 * change ID, so that an initiator's old value does not match. */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		p_iou->change_id = (uint16_t)(ts.tv_nsec ^ (ts.tv_sec << 4));
		cl_qlist_insert_tail(&reg_ious, &p_iou->item);
	}
	p_iou->n_ioc++;
	return p_iou;
}

static void iou_put(al_iou_t *p_iou)
{
	if (--p_iou->n_ioc)
		return;
	cl_qlist_remove_item(&reg_ious, &p_iou->item);
	cl_free(p_iou);
}

/* Frees an IOC's slot; TRUE when it had one. */
static boolean_t ioc_unslot(al_ioc_t *p_ioc)
{
	if (!p_ioc->slot)
		return FALSE;
	p_ioc->p_iou->slots[p_ioc->slot] = NULL;
	p_ioc->slot = 0;
	p_ioc->p_iou->n_reg--;
	p_ioc->p_iou->change_id++;
	return TRUE;
}

/* ---- IOC objects ---- */

static void ioc_destroying(al_obj_t *p_obj)
{
	al_ioc_t *p_ioc = PARENT_STRUCT(p_obj, al_ioc_t, obj);
	boolean_t was_reg;

	pthread_mutex_lock(&reg_lock);
	p_ioc->gone = TRUE;
	was_reg = ioc_unslot(p_ioc);
	pthread_mutex_unlock(&reg_lock);
	if (was_reg)
		al_dm_agent_stop(p_ioc->ca_guid);
}

static void ioc_free(al_obj_t *p_obj)
{
	al_ioc_t *p_ioc = PARENT_STRUCT(p_obj, al_ioc_t, obj);

	pthread_mutex_lock(&reg_lock);
	if (p_ioc->p_iou)
		iou_put(p_ioc->p_iou);
	pthread_mutex_unlock(&reg_lock);
	cl_free(p_ioc);
}

ib_api_status_t ib_create_ioc(const ib_ca_handle_t h_ca, const ib_ioc_profile_t *const p_ioc_profile,
			      ib_ioc_handle_t *const ph_ioc)
{
	al_ca_t *p_ca = (al_ca_t *)AL_ENTER(h_ca, AL_HDL_CA);
	al_ioc_t *p_ioc;
	ib_api_status_t st;

	if (!p_ca)
		return IB_INVALID_CA_HANDLE;
	if (!p_ioc_profile || !ph_ioc) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	p_ioc = (al_ioc_t *)cl_zalloc(sizeof(*p_ioc));
	if (!p_ioc) {
		st = IB_INSUFFICIENT_MEMORY;
		goto out;
	}
	al_obj_construct(&p_ioc->obj, AL_HDL_IOC);
	p_ioc->ca_guid = p_ca->p_ci->guid;
	p_ioc->profile = *p_ioc_profile;
	p_ioc->profile.num_svc_entries = 0;
	cl_qlist_init(&p_ioc->svc_list);
	pthread_mutex_lock(&reg_lock);
	p_ioc->p_iou = iou_get(p_ioc->ca_guid);
	pthread_mutex_unlock(&reg_lock);
	if (!p_ioc->p_iou) {
		al_obj_deinit(&p_ioc->obj);
		cl_free(p_ioc);
		st = IB_INSUFFICIENT_MEMORY;
		goto out;
	}
	st = al_obj_init(&p_ioc->obj, &p_ca->v.obj, NULL, ioc_destroying, NULL, ioc_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_ioc->obj);
		ioc_free(&p_ioc->obj);
		st = st == IB_INVALID_STATE ? IB_INVALID_CA_HANDLE : st;
		goto out;
	}
	st = al_obj_insert_handle(&p_ioc->obj);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_ioc->obj, NULL);
		st = st == IB_INVALID_STATE ? IB_INVALID_CA_HANDLE : st;
		goto out;
	}
	*ph_ioc = (ib_ioc_handle_t)al_obj_h(&p_ioc->obj);
out:
	AL_EXIT(h_ca);
	return st;
}

ib_api_status_t ib_destroy_ioc(const ib_ioc_handle_t h_ioc)
{
	return al_destroy_handle((void *)h_ioc, AL_HDL_IOC, al_sync_unless_cb(), IB_INVALID_HANDLE);
}

/* Gives an entered IOC the lowest free slot; reg_lock held. */
static ib_api_status_t ioc_slot(al_ioc_t *p_ioc)
{
	al_iou_t *p_iou = p_ioc->p_iou;
	uint32_t s;

	if (p_ioc->gone)
		return IB_INVALID_HANDLE;
	if (p_ioc->slot)
		return IB_INVALID_STATE;
	for (s = 1; s <= AL_IOU_MAX_SLOTS; s++)
		if (!p_iou->slots[s])
			break;
	if (s > AL_IOU_MAX_SLOTS)
		return IB_INSUFFICIENT_RESOURCES;
	p_iou->slots[s] = p_ioc;
	p_ioc->slot = (uint8_t)s;
	p_iou->n_reg++;
	p_iou->change_id++;
	return IB_SUCCESS;
}

ib_api_status_t ib_reg_ioc(const ib_ioc_handle_t h_ioc)
{
	al_ioc_t *p_ioc = (al_ioc_t *)AL_ENTER(h_ioc, AL_HDL_IOC);
	ib_api_status_t st;

	if (!p_ioc)
		return IB_INVALID_HANDLE;
	pthread_mutex_lock(&reg_lock);
	st = p_ioc->gone ? IB_INVALID_HANDLE : p_ioc->slot ? IB_INVALID_STATE : IB_SUCCESS;
	pthread_mutex_unlock(&reg_lock);
	/* The agent first, so that the IOC is answered for once it shows. */
	if (st == IB_SUCCESS)
		st = al_dm_agent_start(p_ioc->ca_guid);
	if (st == IB_SUCCESS) {
		pthread_mutex_lock(&reg_lock);
		st = ioc_slot(p_ioc);
		pthread_mutex_unlock(&reg_lock);
		if (st != IB_SUCCESS)
			al_dm_agent_stop(p_ioc->ca_guid);
	}
	AL_EXIT(h_ioc);
	return st;
}

/* ---- Service entries ---- */

static void svc_destroying(al_obj_t *p_obj)
{
	al_svc_entry_t *p_svc = PARENT_STRUCT(p_obj, al_svc_entry_t, obj);
	al_ioc_t *p_ioc = p_svc->p_ioc;

	pthread_mutex_lock(&reg_lock);
	if (p_svc->listed) {
		cl_qlist_remove_item(&p_ioc->svc_list, &p_svc->item);
		p_svc->listed = FALSE;
		p_ioc->profile.num_svc_entries--;
		if (p_ioc->slot)
			p_ioc->p_iou->change_id++;
	}
	pthread_mutex_unlock(&reg_lock);
}

static void svc_free(al_obj_t *p_obj)
{
	cl_free(PARENT_STRUCT(p_obj, al_svc_entry_t, obj));
}

/* Lists an entry at the end of its IOC's table; reg_lock held. */
static ib_api_status_t svc_list(al_svc_entry_t *p_svc)
{
	al_ioc_t *p_ioc = p_svc->p_ioc;

	if (p_ioc->gone)
		return IB_INVALID_HANDLE;
	if (cl_qlist_count(&p_ioc->svc_list) >= AL_IOC_MAX_SVC_ENTRIES)
		return IB_INSUFFICIENT_RESOURCES;
	cl_qlist_insert_tail(&p_ioc->svc_list, &p_svc->item);
	p_svc->listed = TRUE;
	p_ioc->profile.num_svc_entries++;
	if (p_ioc->slot)
		p_ioc->p_iou->change_id++;
	return IB_SUCCESS;
}

ib_api_status_t ib_add_svc_entry(const ib_ioc_handle_t h_ioc, const ib_svc_entry_t *const p_svc_entry,
				 ib_svc_handle_t *const ph_svc)
{
	al_ioc_t *p_ioc = (al_ioc_t *)AL_ENTER(h_ioc, AL_HDL_IOC);
	al_svc_entry_t *p_svc;
	ib_api_status_t st;

	if (!p_ioc)
		return IB_INVALID_HANDLE;
	if (!p_svc_entry || !ph_svc) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	pthread_mutex_lock(&reg_lock);
	st = p_ioc->gone ? IB_INVALID_HANDLE
	     : cl_qlist_count(&p_ioc->svc_list) >= AL_IOC_MAX_SVC_ENTRIES ? IB_INSUFFICIENT_RESOURCES
									 : IB_SUCCESS;
	pthread_mutex_unlock(&reg_lock);
	if (st != IB_SUCCESS)
		goto out;
	p_svc = (al_svc_entry_t *)cl_zalloc(sizeof(*p_svc));
	if (!p_svc) {
		st = IB_INSUFFICIENT_MEMORY;
		goto out;
	}
	al_obj_construct(&p_svc->obj, AL_HDL_SVC_ENTRY);
	p_svc->p_ioc = p_ioc;
	p_svc->entry = *p_svc_entry;
	st = al_obj_init(&p_svc->obj, &p_ioc->obj, NULL, svc_destroying, NULL, svc_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_svc->obj);
		svc_free(&p_svc->obj);
		st = st == IB_INVALID_STATE ? IB_INVALID_HANDLE : st;
		goto out;
	}
	st = al_obj_insert_handle(&p_svc->obj);
	if (st == IB_SUCCESS) {
		pthread_mutex_lock(&reg_lock);
		st = svc_list(p_svc);
		pthread_mutex_unlock(&reg_lock);
	}
	if (st != IB_SUCCESS) {
		/* Not listed: its destruction changes nothing visible. */
		al_obj_destroy(&p_svc->obj, NULL);
		st = st == IB_INVALID_STATE ? IB_INVALID_HANDLE : st;
		goto out;
	}
	*ph_svc = (ib_svc_handle_t)al_obj_h(&p_svc->obj);
out:
	AL_EXIT(h_ioc);
	return st;
}

ib_api_status_t ib_remove_svc_entry(const ib_svc_handle_t h_svc)
{
	return al_destroy_handle((void *)h_svc, AL_HDL_SVC_ENTRY, al_sync_unless_cb(),
				 IB_INVALID_HANDLE);
}

/* ---- Reads for the DM agent ---- */

uint32_t al_iou_reg_count(ib_net64_t ca_guid)
{
	al_iou_t *p_iou;
	uint32_t n;

	pthread_mutex_lock(&reg_lock);
	p_iou = iou_find(ca_guid);
	n = p_iou ? p_iou->n_reg : 0;
	pthread_mutex_unlock(&reg_lock);
	return n;
}

/* Writes one ControllerList nibble (slot from 1). */
static void set_nibble(uint8_t *p_list, uint32_t slot, uint8_t v)
{
	uint8_t *p = &p_list[(slot - 1) / 2];

	if (slot & 1)
		*p = (uint8_t)((*p & 0x0F) | (v << 4));
	else
		*p = (uint8_t)((*p & 0xF0) | (v & 0x0F));
}

ib_api_status_t al_iou_get_info(ib_net64_t ca_guid, ib_iou_info_t *p_info)
{
	al_iou_t *p_iou;
	uint32_t s;

	if (!p_info)
		return IB_INVALID_PARAMETER;
	memset(p_info, 0, sizeof(*p_info));
	pthread_mutex_lock(&reg_lock);
	p_iou = iou_find(ca_guid);
	if (!p_iou) {
		pthread_mutex_unlock(&reg_lock);
		return IB_NOT_FOUND;
	}
	p_info->change_id = cl_hton16(p_iou->change_id);
	p_info->max_controllers = AL_IOU_MAX_SLOTS;
	for (s = 1; s <= IB_DM_CTRL_LIST_SIZE * 2; s++)
		set_nibble(p_info->controller_list, s,
			   s > AL_IOU_MAX_SLOTS ? SLOT_DOES_NOT_EXIST
			   : p_iou->slots[s]    ? IOC_INSTALLED
						: IOC_NOT_INSTALLED);
	pthread_mutex_unlock(&reg_lock);
	return IB_SUCCESS;
}

/* The registered IOC in a slot; reg_lock held. */
static ib_api_status_t slot_ioc(ib_net64_t ca_guid, uint32_t slot, al_ioc_t **pp_ioc)
{
	al_iou_t *p_iou;

	if (!slot || slot > AL_IOU_MAX_SLOTS)
		return IB_INVALID_PARAMETER;
	p_iou = iou_find(ca_guid);
	if (!p_iou || !p_iou->slots[slot])
		return IB_NOT_FOUND;
	*pp_ioc = p_iou->slots[slot];
	return IB_SUCCESS;
}

ib_api_status_t al_iou_get_profile(ib_net64_t ca_guid, uint32_t slot, ib_ioc_profile_t *p_profile)
{
	al_ioc_t *p_ioc = NULL;
	ib_api_status_t st;

	if (!p_profile)
		return IB_INVALID_PARAMETER;
	pthread_mutex_lock(&reg_lock);
	st = slot_ioc(ca_guid, slot, &p_ioc);
	if (st == IB_SUCCESS)
		*p_profile = p_ioc->profile;
	pthread_mutex_unlock(&reg_lock);
	return st;
}

ib_api_status_t al_iou_get_svc_entries(ib_net64_t ca_guid, uint32_t slot, uint8_t first, uint8_t last,
				       ib_svc_entries_t *p_entries)
{
	al_ioc_t *p_ioc = NULL;
	cl_list_item_t *it;
	ib_api_status_t st;
	uint32_t i;

	if (!p_entries)
		return IB_INVALID_PARAMETER;
	memset(p_entries, 0, sizeof(*p_entries));
	pthread_mutex_lock(&reg_lock);
	st = slot_ioc(ca_guid, slot, &p_ioc);
	if (st == IB_SUCCESS && (last < first || last - first >= SVC_ENTRY_COUNT ||
				 last >= cl_qlist_count(&p_ioc->svc_list)))
		st = IB_INVALID_INDEX;
	if (st == IB_SUCCESS) {
		it = cl_qlist_head(&p_ioc->svc_list);
		for (i = 0; i < first; i++)
			it = cl_qlist_next(it);
		for (i = 0; i <= (uint32_t)(last - first); i++, it = cl_qlist_next(it))
			p_entries->service_entry[i] = PARENT_STRUCT(it, al_svc_entry_t, item)->entry;
	}
	pthread_mutex_unlock(&reg_lock);
	return st;
}
