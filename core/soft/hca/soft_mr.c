/*
 * ibal soft provider: memory regions over the caller's virtual memory, the key table, access checks.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Keys: bits 31..8 index a per-CA table shared by MRs and MWs (index 0 is
 * never used, so key 0 is never valid), bits 7..0 a byte that changes each
 * time the entry is reused or a window is rebound, so stale keys fail.
 * An MR's L_Key and R_Key are the same value; the R_Key is usable remotely
 * only with remote rights.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include "soft_hca.h"
#include "ibal_mem.h"

#define AC_REMOTE (IB_AC_RDMA_READ | IB_AC_RDMA_WRITE | IB_AC_ATOMIC)
#define AC_ALL (AC_REMOTE | IB_AC_LOCAL_WRITE | IB_AC_MW_BIND | IB_AC_NOT_CACHABLE)

ib_api_status_t soft_key_alloc(soft_ca_t *ca, uint8_t type, void *obj, uint32_t *p_key)
{
	uint32_t i, idx;

	for (i = 0; i < SOFT_MAX_KEYS - 1; i++) {
		idx = 1 + (ca->next_key - 1 + i) % (SOFT_MAX_KEYS - 1);
		if (ca->keys[idx].type == SOFT_KEY_FREE) {
			ca->keys[idx].type = type;
			ca->keys[idx].obj = obj;
			ca->keys[idx].key++;
			ca->next_key = idx % (SOFT_MAX_KEYS - 1) + 1;
			*p_key = (idx << 8) | ca->keys[idx].key;
			return IB_SUCCESS;
		}
	}
	return IB_INSUFFICIENT_RESOURCES;
}

void soft_key_free(soft_ca_t *ca, uint32_t key)
{
	soft_key_ent_t *e = &ca->keys[key >> 8];

	e->type = SOFT_KEY_FREE;
	e->obj = NULL;
}

uint32_t soft_key_bump(soft_ca_t *ca, uint32_t key)
{
	soft_key_ent_t *e = &ca->keys[key >> 8];

	e->key++;
	return (key & ~0xFFu) | e->key;
}

/* The entry a key names, if its key byte is current. */
static soft_key_ent_t *key_lookup(soft_ca_t *ca, uint32_t key)
{
	uint32_t idx = key >> 8;

	if (idx == 0 || idx >= SOFT_MAX_KEYS || ca->keys[idx].type == SOFT_KEY_FREE ||
	    ca->keys[idx].key != (uint8_t)key)
		return NULL;
	return &ca->keys[idx];
}

static int in_bounds(uint64_t start, uint64_t len, uint64_t va, uint64_t n)
{
	return va >= start && n <= len && va - start <= len - n;
}

/* soft_mr_check(), inline in the copies of the data path (sgl_copy). */
static inline __attribute__((always_inline)) ib_api_status_t
mr_check(soft_pd_t *pd, uint32_t key, uint64_t va, uint64_t len, ib_access_t access)
{
	boolean_t remote = (access & AC_REMOTE) != 0;
	soft_key_ent_t *e = key_lookup(pd->ca, key);
	ib_api_status_t bad_key = remote ? IB_INVALID_RKEY : IB_INVALID_LKEY;

	if (!e)
		return bad_key;
	if (e->type == SOFT_KEY_MR) {
		soft_mr_t *mr = e->obj;

		if (mr->pd != pd)
			return IB_INVALID_PD_HANDLE;
		if ((access & mr->access & ~IB_AC_NOT_CACHABLE) != access)
			return IB_INVALID_PERMISSION;
		return len == 0 || in_bounds(mr->va, mr->len, va, len) ? IB_SUCCESS : IB_INVALID_SETTING;
	}
	{
		soft_mw_t *mw = e->obj;

		if (!remote)
			return bad_key;
		if (!mw->mr || mw->pd != pd)
			return mw->mr ? IB_INVALID_PD_HANDLE : bad_key;
		if ((access & mw->access) != access)
			return IB_INVALID_PERMISSION;
		return len == 0 || in_bounds(mw->va, mw->len, va, len) ? IB_SUCCESS : IB_INVALID_SETTING;
	}
}

ib_api_status_t soft_mr_check(soft_pd_t *pd, uint32_t key, uint64_t va, uint64_t len,
			      ib_access_t access)
{
	return mr_check(pd, key, va, len, access);
}

/* soft_sgl_scatter (@p src into the segments) and soft_sgl_gather (the
 * segments into @p dst): one walk of the segments from @p off, each piece
 * checked for @p access; exactly one of src and dst is used (neither, for a
 * scatter that only checks). */
static inline ib_wc_status_t sgl_copy(soft_pd_t *pd, const ib_local_ds_t *ds, uint32_t num_ds,
				      uint64_t off, const uint8_t *src, uint8_t *dst, uint64_t n,
				      ib_access_t access)
{
	uint32_t i;

	for (i = 0; i < num_ds && n; i++) {
		uint64_t k;
		uint8_t *seg;

		if (off >= ds[i].length) {
			off -= ds[i].length;
			continue;
		}
		k = ds[i].length - off < n ? ds[i].length - off : n;
		seg = (uint8_t *)(uintptr_t)(ds[i].vaddr + off);
		if (mr_check(pd, cl_ntoh32(ds[i].lkey), ds[i].vaddr + off, k, access) != IB_SUCCESS)
			return IB_WCS_LOCAL_PROTECTION_ERR;
		if (src) {
			memcpy(seg, src, (size_t)k);
			src += k;
		} else if (dst) {
			memcpy(dst, seg, (size_t)k);
			dst += k;
		}
		n -= k;
		off = 0;
	}
	return n ? IB_WCS_LOCAL_LEN_ERR : IB_WCS_SUCCESS;
}

ib_wc_status_t soft_sgl_scatter(soft_pd_t *pd, const ib_local_ds_t *ds, uint32_t num_ds,
				uint64_t off, const uint8_t *src, uint64_t n)
{
	return sgl_copy(pd, ds, num_ds, off, src, NULL, n, IB_AC_LOCAL_WRITE);
}

ib_wc_status_t soft_sgl_gather(soft_pd_t *pd, const ib_local_ds_t *ds, uint32_t num_ds,
			       uint64_t off, uint8_t *dst, uint64_t n)
{
	return sgl_copy(pd, ds, num_ds, off, NULL, dst, n, 0);
}

/* Checks a registration request: NULL address or zero length (parameter),
 * unknown bits and remote write/atomic without local write (permission). */
/* Whether [va, va + len) is mapped in this process, as a hardware
 * registration pins it (ibv_reg_mr fails with EFAULT otherwise). mincore
 * reads nothing of the range and fails with ENOMEM on an unmapped page; it
 * is asked a chunk of pages at a time. */
static boolean_t range_mapped(uint64_t va, uint64_t len)
{
	unsigned char vec[1024];
	uint64_t page = ibal_mem_page_size(), at = va & ~(page - 1), end = va + len;

	while (at < end) {
		uint64_t n = (end - at + page - 1) / page;

		if (n > sizeof(vec))
			n = sizeof(vec);
		if (mincore((void *)(uintptr_t)at, (size_t)(n * page), vec) < 0 && errno == ENOMEM)
			return FALSE;
		at += n * page;
	}
	return TRUE;
}

static ib_api_status_t check_create(uint64_t va, uint64_t len, ib_access_t access)
{
	if (!va || !len || len > SOFT_MAX_MR_SIZE || va + len < va)
		return IB_INVALID_PARAMETER;
	if (!range_mapped(va, len))
		return IB_INVALID_PARAMETER;
	if (access & ~AC_ALL)
		return IB_INVALID_PERMISSION;
	if ((access & (IB_AC_RDMA_WRITE | IB_AC_ATOMIC)) && !(access & IB_AC_LOCAL_WRITE))
		return IB_INVALID_PERMISSION;
	return IB_SUCCESS;
}

static ib_api_status_t mr_new(soft_pd_t *pd, uint64_t va, uint64_t len, ib_access_t access,
			      net32_t *p_lkey, net32_t *p_rkey, void **pp_mr)
{
	soft_ca_t *ca = pd->ca;
	soft_mr_t *mr;
	ib_api_status_t st;

	if (!p_lkey || !p_rkey || !pp_mr)
		return IB_INVALID_PARAMETER;
	st = check_create(va, len, access);
	if (st != IB_SUCCESS)
		return st;
	mr = cl_zalloc(sizeof(*mr));
	if (!mr)
		return IB_INSUFFICIENT_MEMORY;
	mr->pd = pd;
	mr->va = va;
	mr->len = len;
	mr->access = access;
	soft_tab_write(ca);
	st = soft_key_alloc(ca, SOFT_KEY_MR, mr, &mr->lkey);
	soft_tab_write_end(ca);
	if (st != IB_SUCCESS) {
		cl_free(mr);
		return st;
	}
	mr->rkey = mr->lkey;
	*p_lkey = cl_hton32(mr->lkey);
	*p_rkey = cl_hton32(mr->rkey);
	*pp_mr = mr;
	return IB_SUCCESS;
}

ib_api_status_t soft_reg_mem(void *h, const ib_mr_create_t *p_create, net32_t *p_lkey,
			     net32_t *p_rkey, void **pp_mr)
{
	if (!p_create)
		return IB_INVALID_PARAMETER;
	return mr_new(h, (uint64_t)(uintptr_t)p_create->vaddr, p_create->length,
		      p_create->access_ctrl, p_lkey, p_rkey, pp_mr);
}

ib_api_status_t soft_query_mr(void *h, ib_mr_attr_t *p_attr)
{
	soft_mr_t *mr = h;

	if (!p_attr)
		return IB_INVALID_PARAMETER;
	soft_rwlock_read(&mr->pd->ca->tab_lock);
	p_attr->h_pd = NULL; /* the core fills in its PD handle */
	p_attr->local_lb = mr->va;
	p_attr->local_ub = mr->va + mr->len - 1;
	p_attr->remote_lb = (mr->access & AC_REMOTE) ? mr->va : 0;
	p_attr->remote_ub = (mr->access & AC_REMOTE) ? mr->va + mr->len - 1 : 0;
	p_attr->access_ctrl = mr->access;
	p_attr->lkey = cl_hton32(mr->lkey);
	p_attr->rkey = cl_hton32(mr->rkey);
	soft_rwlock_read_end(&mr->pd->ca->tab_lock);
	return IB_SUCCESS;
}

ib_api_status_t soft_rereg_mem(void *h, ib_mr_mod_t mask, const ib_mr_create_t *p_create,
			       void *new_pd, net32_t *p_lkey, net32_t *p_rkey)
{
	soft_mr_t *mr = h;
	soft_ca_t *ca = mr->pd->ca;
	uint64_t va = mr->va, len = mr->len;
	ib_access_t access = mr->access;
	ib_api_status_t st;

	if (!p_lkey || !p_rkey || !mask || (mask & ~(IB_MR_MOD_ADDR | IB_MR_MOD_PD | IB_MR_MOD_ACCESS)))
		return IB_INVALID_PARAMETER;
	if ((mask & (IB_MR_MOD_ADDR | IB_MR_MOD_ACCESS)) && !p_create)
		return IB_INVALID_PARAMETER;
	if ((mask & IB_MR_MOD_PD) && (!new_pd || ((soft_pd_t *)new_pd)->ca != ca))
		return IB_INVALID_PD_HANDLE;
	if (mask & IB_MR_MOD_ADDR) {
		va = (uint64_t)(uintptr_t)p_create->vaddr;
		len = p_create->length;
	}
	if (mask & IB_MR_MOD_ACCESS)
		access = p_create->access_ctrl;
	st = check_create(va, len, access);
	if (st != IB_SUCCESS)
		return st == IB_INVALID_PARAMETER ? IB_INVALID_SETTING : st;
	soft_tab_write(ca);
	if (mr->n_mw) {
		soft_tab_write_end(ca);
		return IB_RESOURCE_BUSY;
	}
	mr->va = va;
	mr->len = len;
	mr->access = access;
	if (mask & IB_MR_MOD_PD)
		mr->pd = new_pd;
	mr->lkey = mr->rkey = soft_key_bump(ca, mr->lkey);
	soft_tab_write_end(ca);
	*p_lkey = cl_hton32(mr->lkey);
	*p_rkey = cl_hton32(mr->rkey);
	return IB_SUCCESS;
}

ib_api_status_t soft_reg_shared(void *h, void *pd, ib_access_t access, uint64_t *p_vaddr,
				net32_t *p_lkey, net32_t *p_rkey, void **pp_mr)
{
	soft_mr_t *mr = h;
	uint64_t va, len;

	if (!p_vaddr)
		return IB_INVALID_PARAMETER;
	if (!pd || ((soft_pd_t *)pd)->ca != mr->pd->ca)
		return IB_INVALID_PD_HANDLE;
	/* Same memory: virtual registration cannot remap, so the address stays. */
	soft_rwlock_read(&mr->pd->ca->tab_lock);
	va = mr->va;
	len = mr->len;
	soft_rwlock_read_end(&mr->pd->ca->tab_lock);
	*p_vaddr = va;
	return mr_new(pd, va, len, access, p_lkey, p_rkey, pp_mr);
}

ib_api_status_t soft_dereg_mr(void *h)
{
	soft_mr_t *mr = h;
	soft_ca_t *ca = mr->pd->ca;

	soft_tab_write(ca);
	if (mr->n_mw) {
		soft_tab_write_end(ca);
		return IB_RESOURCE_BUSY;
	}
	soft_key_free(ca, mr->lkey);
	soft_tab_write_end(ca);
	cl_free(mr);
	return IB_SUCCESS;
}
