/*
 * ibal access layer: AL instances, loaded providers, shared provider CAs, CA enumeration.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The first ib_open_al() starts the object machinery (al_init()) and loads
 * the providers named in IBAL_PROVIDERS (a comma list of provider names;
 * unset or empty: every built-in provider), giving them the upcalls, then
 * starts the clients (al_client.h); the last ib_close_al() unloads the
 * providers and stops the clients. mgr_lock guards the instance count,
 * the provider list and the list of provider CAs; no provider slot that
 * may call back is called with it held, except open_ca and close_ca, which
 * providers make without upcalls.
 */
#include <stdlib.h>
#include <string.h>
#include <complib/cl_memory.h>
#include "al_verbs.h"
#include "al_client.h"


#define AL_MAX_PROVS 4

/* The providers built in, in enumeration order. */
static const al_prov_ops_t *const builtin[] = { &soft_prov_ops, &verbs_prov_ops };

static pthread_mutex_t mgr_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t n_open;
static const al_prov_ops_t *provs[AL_MAX_PROVS];
static al_prov_ops_t prov_tabs[AL_MAX_PROVS]; /* the loaded copies, stubs filled in */
static unsigned n_provs;
static cl_qlist_t ci_list; /* al_ci_ca_t::item */

/* ---- Upcalls ---- */

static void up_cq_comp(void *al_cq)
{
	al_cq_comp(PARENT_STRUCT(al_cq, al_cq_t, kind));
}

static void up_async(void *ctx, ib_async_event_t code, uint64_t vendor)
{
	switch (*(al_ctx_kind_t *)ctx) {
	case AL_CTX_CI_CA:
		al_ca_event((al_ci_ca_t *)ctx, code, vendor);
		break;
	case AL_CTX_QP:
		al_qp_event(PARENT_STRUCT(ctx, al_qp_t, kind), code, vendor);
		break;
	case AL_CTX_CQ:
		al_cq_event(PARENT_STRUCT(ctx, al_cq_t, kind), code, vendor);
		break;
	case AL_CTX_SRQ:
		al_srq_event(PARENT_STRUCT(ctx, al_srq_t, kind), code, vendor);
		break;
	}
}

/* Bumped by every port_change upcall (al_ca_attr_gen()). */
static uint32_t ca_attr_gen;

uint32_t al_ca_attr_gen(void)
{
	return __atomic_load_n(&ca_attr_gen, __ATOMIC_ACQUIRE);
}

static void up_port_change(void *al_ca, uint8_t port_num)
{
	(void)port_num;
	__atomic_add_fetch(&ca_attr_gen, 1, __ATOMIC_ACQ_REL);
	/* No CA: the provider's set of CAs changed. */
	if (!al_ca)
		al_clients_ca_list_changed();
	/* The PnP manager re-reads the CAs on its own thread. */
	al_pnp_poke();
}

static const al_prov_upcalls_t upcalls = { up_cq_comp, up_async, up_port_change };

/* ---- Providers ---- */

/* Whether @p name is in the comma list @p list. */
static boolean_t listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while (*p) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && !strncmp(p, name, n))
			return TRUE;
		if (!e)
			break;
		p = e + 1;
	}
	return FALSE;
}

static void unload_provs(void)
{
	while (n_provs)
		provs[--n_provs]->cleanup();
}

static ib_api_status_t load_provs(void)
{
	const char *env = getenv("IBAL_PROVIDERS");
	size_t i;

	n_provs = 0;
	for (i = 0; i < sizeof(builtin) / sizeof(builtin[0]) && n_provs < AL_MAX_PROVS; i++) {
		const al_prov_ops_t *p = builtin[i];

		if (p->size < sizeof(al_prov_ops_t) || (env && *env && !listed(env, p->name)))
			continue;
		al_prov_fill(&prov_tabs[n_provs], p);
		if (prov_tabs[n_provs].init(&upcalls) != IB_SUCCESS)
			continue;
		provs[n_provs] = &prov_tabs[n_provs];
		n_provs++;
	}
	return IB_SUCCESS;
}

/* ---- Instances ---- */

static void inst_free(al_obj_t *p_obj)
{
	cl_free(PARENT_STRUCT(p_obj, al_inst_t, obj));
}

al_inst_t *al_inst_enter(ib_al_handle_t h_al)
{
	return (al_inst_t *)AL_ENTER(h_al, AL_HDL_AL);
}

/* Undoes the first open's work; mgr_lock held. */
static void last_close(void)
{
	unload_provs();
	al_clients_stop();
	al_cleanup();
}

ib_api_status_t ib_open_al(ib_al_handle_t *const ph_al)
{
	al_inst_t *p_al;
	ib_api_status_t st;

	if (!ph_al)
		return IB_INVALID_PARAMETER;
	pthread_mutex_lock(&mgr_lock);
	if (!n_open) {
		st = al_init();
		if (st != IB_SUCCESS) {
			pthread_mutex_unlock(&mgr_lock);
			return st;
		}
		cl_qlist_init(&ci_list);
		load_provs();
		al_clients_start();
	}
	n_open++;
	pthread_mutex_unlock(&mgr_lock);

	p_al = (al_inst_t *)cl_zalloc(sizeof(*p_al));
	if (!p_al) {
		st = IB_INSUFFICIENT_MEMORY;
		goto fail;
	}
	al_obj_construct(&p_al->obj, AL_HDL_AL);
	st = al_obj_init(&p_al->obj, NULL, NULL, NULL, NULL, inst_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_al->obj);
		cl_free(p_al);
		goto fail;
	}
	st = al_obj_insert_handle(&p_al->obj);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_al->obj, ib_sync_destroy);
		goto fail;
	}
	*ph_al = (ib_al_handle_t)al_obj_h(&p_al->obj);
	return IB_SUCCESS;
fail:
	pthread_mutex_lock(&mgr_lock);
	if (!--n_open)
		last_close();
	pthread_mutex_unlock(&mgr_lock);
	return st;
}

ib_api_status_t ib_close_al(const ib_al_handle_t h_al)
{
	al_inst_t *p_al;
	ib_api_status_t st;

	/* Waiting for callbacks from a callback thread could never end. */
	if (al_is_cb_thread())
		return IB_INVALID_STATE;
	/* Entered until the destruction is claimed: a concurrent close of the
	 * same handle cannot free the instance under us. */
	p_al = al_inst_enter(h_al);
	if (!p_al)
		return IB_INVALID_AL_HANDLE;
	st = al_obj_destroy_entered(&p_al->obj, ib_sync_destroy, AL_HANDLE_FROM_IB(h_al));
	if (st != IB_SUCCESS)
		return IB_INVALID_AL_HANDLE;
	/* The CM's last messages go, the DM agents of the IOCs that went with
	 * the instance end. */
	al_clients_al_closed();
	pthread_mutex_lock(&mgr_lock);
	if (n_open && !--n_open)
		last_close();
	pthread_mutex_unlock(&mgr_lock);
	return IB_SUCCESS;
}

/* ---- Provider CAs ---- */

/* The provider owning a GUID (*pp_ops); mgr_lock held. IB_INVALID_GUID when
 * no provider enumerates it, IB_INSUFFICIENT_MEMORY when the list of a
 * provider's GUIDs could not be made. */
static ib_api_status_t prov_of_guid(ib_net64_t guid, const al_prov_ops_t **pp_ops)
{
	ib_net64_t *g;
	size_t n, i;
	unsigned p;

	for (p = 0; p < n_provs; p++) {
		n = 0;
		if (provs[p]->get_ca_guids(NULL, &n) != IB_INSUFFICIENT_MEMORY || !n)
			continue;
		g = (ib_net64_t *)cl_malloc(n * sizeof(*g));
		if (!g)
			return IB_INSUFFICIENT_MEMORY;
		if (provs[p]->get_ca_guids(g, &n) == IB_SUCCESS)
			for (i = 0; i < n; i++)
				if (g[i] == guid) {
					cl_free(g);
					*pp_ops = provs[p];
					return IB_SUCCESS;
				}
		cl_free(g);
	}
	return IB_INVALID_GUID;
}

ib_api_status_t al_ci_ca_acquire(ib_net64_t guid, al_ci_ca_t **pp_ci)
{
	cl_list_item_t *it;
	al_ci_ca_t *p_ci;
	const al_prov_ops_t *p_ops;
	ib_api_status_t st;

	pthread_mutex_lock(&mgr_lock);
	/* Only a CA the providers enumerate now (one unplugged stays open
	 * for its users but cannot be opened again). */
	st = prov_of_guid(guid, &p_ops);
	if (st != IB_SUCCESS) {
		pthread_mutex_unlock(&mgr_lock);
		return st;
	}
	for (it = cl_qlist_head(&ci_list); it != cl_qlist_end(&ci_list); it = cl_qlist_next(it)) {
		p_ci = PARENT_STRUCT(it, al_ci_ca_t, item);
		if (p_ci->guid == guid) {
			p_ci->ref++;
			pthread_mutex_unlock(&mgr_lock);
			*pp_ci = p_ci;
			return IB_SUCCESS;
		}
	}
	p_ci = (al_ci_ca_t *)cl_zalloc(sizeof(*p_ci));
	if (!p_ci) {
		pthread_mutex_unlock(&mgr_lock);
		return IB_INSUFFICIENT_MEMORY;
	}
	p_ci->kind = AL_CTX_CI_CA;
	p_ci->guid = guid;
	p_ci->p_ops = p_ops;
	p_ci->ref = 1;
	pthread_mutex_init(&p_ci->lock, NULL);
	cl_qlist_init(&p_ci->cas);
	st = p_ops->open_ca(guid, p_ci, &p_ci->p_prov);
	if (st != IB_SUCCESS) {
		pthread_mutex_unlock(&mgr_lock);
		pthread_mutex_destroy(&p_ci->lock);
		cl_free(p_ci);
		return st;
	}
	cl_qlist_insert_tail(&ci_list, &p_ci->item);
	pthread_mutex_unlock(&mgr_lock);
	*pp_ci = p_ci;
	return IB_SUCCESS;
}

void al_ci_ca_release(al_ci_ca_t *p_ci)
{
	pthread_mutex_lock(&mgr_lock);
	if (--p_ci->ref) {
		pthread_mutex_unlock(&mgr_lock);
		return;
	}
	cl_qlist_remove_item(&ci_list, &p_ci->item);
	/* Under the lock: a new open of the GUID waits for the close. */
	p_ci->p_ops->close_ca(p_ci->p_prov);
	pthread_mutex_unlock(&mgr_lock);
	pthread_mutex_destroy(&p_ci->lock);
	cl_free(p_ci);
}

ib_api_status_t al_ci_ca_query_alloc(al_ci_ca_t *p_ci, ib_ca_attr_t **pp_attr)
{
	uint32_t size = 0;
	ib_ca_attr_t *p_attr;
	ib_api_status_t st;

	for (;;) {
		st = p_ci->p_ops->query_ca(p_ci->p_prov, NULL, &size);
		if (st != IB_INSUFFICIENT_MEMORY)
			return st == IB_SUCCESS ? IB_ERROR : st;
		p_attr = (ib_ca_attr_t *)cl_zalloc(size);
		if (!p_attr)
			return IB_INSUFFICIENT_MEMORY;
		st = p_ci->p_ops->query_ca(p_ci->p_prov, p_attr, &size);
		if (st == IB_SUCCESS) {
			*pp_attr = p_attr;
			return IB_SUCCESS;
		}
		cl_free(p_attr);
		if (st != IB_INSUFFICIENT_MEMORY)
			return st;
	}
}

/* ---- Enumeration ---- */

/* Lists the CA GUIDs of every loaded provider into g while they fit in
 * room entries (g may be NULL with room 0); returns how many there are. */
static size_t enum_guids(ib_net64_t *g, size_t room)
{
	size_t total = 0, n, got;
	unsigned p;

	pthread_mutex_lock(&mgr_lock);
	for (p = 0; p < n_provs; p++) {
		n = 0;
		provs[p]->get_ca_guids(NULL, &n);
		if (n && total + n <= room) {
			got = n;
			if (provs[p]->get_ca_guids(g + total, &got) != IB_SUCCESS)
				got = 0;
			n = got;
		}
		total += n;
	}
	pthread_mutex_unlock(&mgr_lock);
	return total;
}

ib_api_status_t al_ca_guids_alloc(ib_net64_t **pp_guids, size_t *p_count)
{
	ib_net64_t *g = NULL;
	size_t total, cap = 0;

	/* CAs may come between two counts: grow until the list fits. */
	while ((total = enum_guids(g, cap)) > cap) {
		cl_free(g);
		cap = total + 4;
		g = (ib_net64_t *)cl_malloc(cap * sizeof(*g));
		if (!g)
			return IB_INSUFFICIENT_MEMORY;
	}
	*pp_guids = g;
	*p_count = total;
	return IB_SUCCESS;
}

ib_api_status_t ib_get_ca_guids(ib_al_handle_t h_al, ib_net64_t *const p_guid_array,
				size_t *const p_guid_cnt)
{
	al_inst_t *p_al = al_inst_enter(h_al);
	size_t room, total;
	ib_api_status_t st = IB_SUCCESS;

	if (!p_al)
		return IB_INVALID_AL_HANDLE;
	if (!p_guid_cnt) {
		AL_EXIT(h_al);
		return IB_INVALID_PARAMETER;
	}
	room = p_guid_array ? *p_guid_cnt : 0;
	total = enum_guids(p_guid_array, room);
	if (total && (!p_guid_array || total > room))
		st = IB_INSUFFICIENT_MEMORY;
	*p_guid_cnt = total;
	AL_EXIT(h_al);
	return st;
}

/* What a by-GID lookup returns. */
typedef enum { BY_GID_CA, BY_GID_PORT } by_gid_t;

static ib_api_status_t find_gid(ib_al_handle_t h_al, const ib_gid_t *p_gid, ib_net64_t *p_out,
				by_gid_t what)
{
	ib_net64_t *guids = NULL;
	size_t n = 0, i;
	ib_api_status_t st;
	uint32_t port, g;

	st = ib_get_ca_guids(h_al, NULL, &n);
	if (st != IB_INSUFFICIENT_MEMORY && st != IB_SUCCESS)
		return st;
	if (!p_gid || !p_out)
		return IB_INVALID_PARAMETER;
	if (!n)
		return IB_NOT_FOUND;
	guids = (ib_net64_t *)cl_malloc(n * sizeof(*guids));
	if (!guids)
		return IB_INSUFFICIENT_MEMORY;
	st = ib_get_ca_guids(h_al, guids, &n);
	if (st != IB_SUCCESS) {
		cl_free(guids);
		return st == IB_INSUFFICIENT_MEMORY ? IB_NOT_FOUND : st;
	}
	st = IB_NOT_FOUND;
	for (i = 0; i < n && st == IB_NOT_FOUND; i++) {
		al_ci_ca_t *p_ci;
		ib_ca_attr_t *p_attr;

		if (al_ci_ca_acquire(guids[i], &p_ci) != IB_SUCCESS)
			continue;
		if (al_ci_ca_query_alloc(p_ci, &p_attr) == IB_SUCCESS) {
			for (port = 0; port < p_attr->num_ports && st == IB_NOT_FOUND; port++) {
				const ib_port_attr_t *pa = &p_attr->p_port_attr[port];

				for (g = 0; g < pa->num_gids; g++) {
					if (!memcmp(&pa->p_gid_table[g], p_gid, sizeof(*p_gid))) {
						*p_out = what == BY_GID_CA ? p_attr->ca_guid
									   : pa->port_guid;
						st = IB_SUCCESS;
						break;
					}
				}
			}
			cl_free(p_attr);
		}
		al_ci_ca_release(p_ci);
	}
	cl_free(guids);
	return st;
}

ib_api_status_t ib_get_ca_by_gid(ib_al_handle_t h_al, const ib_gid_t *const p_gid,
				 ib_net64_t *const p_ca_guid)
{
	return find_gid(h_al, p_gid, p_ca_guid, BY_GID_CA);
}

ib_api_status_t ib_get_port_by_gid(ib_al_handle_t h_al, const ib_gid_t *const p_gid,
				   ib_net64_t *const p_port_guid)
{
	return find_gid(h_al, p_gid, p_port_guid, BY_GID_PORT);
}
