/*
 * ibal access layer: memory regions (ib_reg_mem .. ib_dereg_mr, ib_reg_shmid).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * ib_dereg_mr() deregisters with the provider in the caller's thread, so
 * that it can report IB_RESOURCE_BUSY (windows bound); the object then goes
 * asynchronously, its handle invalid at once. A region destroyed with its
 * PD is deregistered at cleanup; windows bound to it hold a reference, so
 * they are gone by then.
 *
 * ib_reg_shmid(): the first sizeof(int) bytes of the ib_shmid_t hold a
 * System V shared memory identifier (shmget(), host order). The segment is
 * attached (shmat) and the region registered is its first
 * p_mr_create->length bytes (p_mr_create->vaddr is ignored), with
 * p_mr_create->access_ctrl; *p_vaddr receives the attach address. The
 * segment is detached when the region is deregistered.
 *
 * A region moved to another PD (IB_MR_MOD_PD) stays a child of the PD it was
 * registered on (it is destroyed with that one) and references the new PD.
 */
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <complib/cl_memory.h>
#include "al_verbs.h"

static void set_cur_pd(al_mr_t *p_mr, al_pd_t *p_pd)
{
	al_pd_t *old;

	if (p_pd != p_mr->p_pd)
		al_obj_ref(&p_pd->v.obj);
	old = __atomic_exchange_n(&p_mr->p_cur_pd, p_pd, __ATOMIC_ACQ_REL);
	if (old && old != p_mr->p_pd)
		al_obj_deref(&old->v.obj);
}

static void mr_cleanup(al_obj_t *p_obj)
{
	al_mr_t *p_mr = PARENT_STRUCT(p_obj, al_mr_t, v.obj);

	if (p_mr->v.p_prov)
		p_mr->v.p_ops->dereg_mr(p_mr->v.p_prov);
	p_mr->v.p_prov = NULL;
	if (p_mr->shm_addr)
		shmdt(p_mr->shm_addr);
	p_mr->shm_addr = NULL;
	set_cur_pd(p_mr, p_mr->p_pd);
}

static void mr_free(al_obj_t *p_obj)
{
	al_mr_t *p_mr = PARENT_STRUCT(p_obj, al_mr_t, v.obj);

	pthread_rwlock_destroy(&p_mr->use_lock);
	cl_free(p_mr);
}

al_mr_t *al_mr_use(ib_mr_handle_t h_mr)
{
	al_mr_t *p_mr = (al_mr_t *)AL_ENTER(h_mr, AL_HDL_MR);

	if (!p_mr)
		return NULL;
	pthread_rwlock_rdlock(&p_mr->use_lock);
	if (!p_mr->v.p_prov) {
		pthread_rwlock_unlock(&p_mr->use_lock);
		AL_EXIT(h_mr);
		return NULL;
	}
	return p_mr;
}

void al_mr_unuse(ib_mr_handle_t h_mr, al_mr_t *p_mr)
{
	pthread_rwlock_unlock(&p_mr->use_lock);
	AL_EXIT(h_mr);
}

/* A new MR object on p_pd, initialized, not yet backed by the provider. */
static ib_api_status_t mr_new(al_pd_t *p_pd, al_mr_t **pp_mr)
{
	al_mr_t *p_mr = (al_mr_t *)cl_zalloc(sizeof(*p_mr));
	ib_api_status_t st;

	if (!p_mr)
		return IB_INSUFFICIENT_MEMORY;
	p_mr->p_pd = p_mr->p_cur_pd = p_pd;
	p_mr->v.p_ops = p_pd->v.p_ops;
	pthread_rwlock_init(&p_mr->use_lock, NULL);
	al_obj_construct(&p_mr->v.obj, AL_HDL_MR);
	st = al_obj_init(&p_mr->v.obj, &p_pd->v.obj, NULL, NULL, mr_cleanup, mr_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_mr->v.obj);
		pthread_rwlock_destroy(&p_mr->use_lock);
		cl_free(p_mr);
		return st == IB_INVALID_STATE ? IB_INVALID_PD_HANDLE : st;
	}
	*pp_mr = p_mr;
	return IB_SUCCESS;
}

/* Publishes a backed MR, or destroys it after a failure. */
static ib_api_status_t mr_done(al_mr_t *p_mr, ib_api_status_t st, ib_mr_handle_t *ph_mr)
{
	if (st == IB_SUCCESS)
		st = al_obj_insert_handle(&p_mr->v.obj);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_mr->v.obj, NULL);
		return st;
	}
	*ph_mr = (ib_mr_handle_t)al_obj_h(&p_mr->v.obj);
	return IB_SUCCESS;
}

ib_api_status_t ib_reg_mem(const ib_pd_handle_t h_pd, const ib_mr_create_t *const p_mr_create,
			   net32_t *const p_lkey, net32_t *const p_rkey, ib_mr_handle_t *const ph_mr)
{
	al_pd_t *p_pd = (al_pd_t *)AL_ENTER(h_pd, AL_HDL_PD);
	al_mr_t *p_mr;
	ib_api_status_t st;

	if (!p_pd)
		return IB_INVALID_PD_HANDLE;
	if (!p_mr_create || !p_lkey || !p_rkey || !ph_mr)
		st = IB_INVALID_PARAMETER;
	else if ((st = mr_new(p_pd, &p_mr)) == IB_SUCCESS)
		st = mr_done(p_mr, p_pd->v.p_ops->reg_mem(p_pd->v.p_prov, p_mr_create, p_lkey,
							   p_rkey, &p_mr->v.p_prov), ph_mr);
	AL_EXIT(h_pd);
	return st;
}

ib_api_status_t ib_reg_phys(const ib_pd_handle_t h_pd, const ib_phys_create_t *const p_phys_create,
			    uint64_t *const p_vaddr, net32_t *const p_lkey, net32_t *const p_rkey,
			    ib_mr_handle_t *const ph_mr)
{
	al_pd_t *p_pd = (al_pd_t *)AL_ENTER(h_pd, AL_HDL_PD);
	al_mr_t *p_mr;
	ib_api_status_t st;

	if (!p_pd)
		return IB_INVALID_PD_HANDLE;
	if (!p_phys_create || !p_vaddr || !p_lkey || !p_rkey || !ph_mr)
		st = IB_INVALID_PARAMETER;
	else if ((st = mr_new(p_pd, &p_mr)) == IB_SUCCESS)
		st = mr_done(p_mr, p_pd->v.p_ops->reg_phys(p_pd->v.p_prov, p_phys_create, p_vaddr,
							    p_lkey, p_rkey, &p_mr->v.p_prov),
			     ph_mr);
	AL_EXIT(h_pd);
	return st;
}

ib_api_status_t ib_query_mr(const ib_mr_handle_t h_mr, ib_mr_attr_t *const p_mr_attr)
{
	al_mr_t *p_mr = al_mr_use(h_mr);
	ib_api_status_t st;

	if (!p_mr)
		return IB_INVALID_MR_HANDLE;
	if (!p_mr_attr) {
		st = IB_INVALID_PARAMETER;
	} else {
		st = p_mr->v.p_ops->query_mr(p_mr->v.p_prov, p_mr_attr);
		if (st == IB_SUCCESS)
			p_mr_attr->h_pd = (ib_pd_handle_t)al_obj_h(
				&__atomic_load_n(&p_mr->p_cur_pd, __ATOMIC_ACQUIRE)->v.obj);
	}
	al_mr_unuse(h_mr, p_mr);
	return st;
}

/* The new PD of a re-registration, entered when IB_MR_MOD_PD asks for one. */
static ib_api_status_t rereg_pd(al_mr_t *p_mr, ib_mr_mod_t mask, ib_pd_handle_t h_pd,
				al_pd_t **pp_pd)
{
	*pp_pd = NULL;
	if (!(mask & IB_MR_MOD_PD))
		return IB_SUCCESS;
	*pp_pd = (al_pd_t *)AL_ENTER(h_pd, AL_HDL_PD);
	if (!*pp_pd)
		return IB_INVALID_PD_HANDLE;
	if ((*pp_pd)->p_ca->p_ci != p_mr->p_pd->p_ca->p_ci) {
		AL_EXIT(h_pd);
		*pp_pd = NULL;
		return IB_INVALID_PD_HANDLE;
	}
	return IB_SUCCESS;
}

ib_api_status_t ib_rereg_mem(const ib_mr_handle_t h_mr, const ib_mr_mod_t mr_mod_mask,
			     const ib_mr_create_t *const p_mr_create, net32_t *const p_lkey,
			     net32_t *const p_rkey, const ib_pd_handle_t h_pd)
{
	al_mr_t *p_mr = al_mr_use(h_mr);
	al_pd_t *p_pd = NULL;
	ib_api_status_t st;

	if (!p_mr)
		return IB_INVALID_MR_HANDLE;
	if (!p_lkey || !p_rkey || !mr_mod_mask ||
	    (mr_mod_mask & ~(ib_mr_mod_t)(IB_MR_MOD_ADDR | IB_MR_MOD_PD | IB_MR_MOD_ACCESS)) ||
	    ((mr_mod_mask & (IB_MR_MOD_ADDR | IB_MR_MOD_ACCESS)) && !p_mr_create))
		st = IB_INVALID_PARAMETER;
	else if ((st = rereg_pd(p_mr, mr_mod_mask, h_pd, &p_pd)) == IB_SUCCESS) {
		st = p_mr->v.p_ops->rereg_mem(p_mr->v.p_prov, mr_mod_mask, p_mr_create,
					      p_pd ? p_pd->v.p_prov : NULL, p_lkey, p_rkey);
		if (st == IB_SUCCESS && p_pd)
			set_cur_pd(p_mr, p_pd);
		if (p_pd)
			AL_EXIT(h_pd);
	}
	al_mr_unuse(h_mr, p_mr);
	return st;
}

ib_api_status_t ib_rereg_phys(const ib_mr_handle_t h_mr, const ib_mr_mod_t mr_mod_mask,
			      const ib_phys_create_t *const p_phys_create, uint64_t *const p_vaddr,
			      net32_t *const p_lkey, net32_t *const p_rkey, const ib_pd_handle_t h_pd)
{
	al_mr_t *p_mr = al_mr_use(h_mr);
	al_pd_t *p_pd = NULL;
	ib_api_status_t st;

	if (!p_mr)
		return IB_INVALID_MR_HANDLE;
	if (!p_vaddr || !p_lkey || !p_rkey || !mr_mod_mask ||
	    (mr_mod_mask & ~(ib_mr_mod_t)(IB_MR_MOD_ADDR | IB_MR_MOD_PD | IB_MR_MOD_ACCESS)) ||
	    ((mr_mod_mask & (IB_MR_MOD_ADDR | IB_MR_MOD_ACCESS)) && !p_phys_create))
		st = IB_INVALID_PARAMETER;
	else if ((st = rereg_pd(p_mr, mr_mod_mask, h_pd, &p_pd)) == IB_SUCCESS) {
		st = p_mr->v.p_ops->rereg_phys(p_mr->v.p_prov, mr_mod_mask, p_phys_create,
					       p_pd ? p_pd->v.p_prov : NULL, p_vaddr, p_lkey,
					       p_rkey);
		if (st == IB_SUCCESS && p_pd)
			set_cur_pd(p_mr, p_pd);
		if (p_pd)
			AL_EXIT(h_pd);
	}
	al_mr_unuse(h_mr, p_mr);
	return st;
}

ib_api_status_t ib_reg_shared(const ib_mr_handle_t h_mr, const ib_pd_handle_t h_pd,
			      const ib_access_t access_ctrl, uint64_t *const p_vaddr,
			      net32_t *const p_lkey, net32_t *const p_rkey, ib_mr_handle_t *const ph_mr)
{
	al_mr_t *p_mr = al_mr_use(h_mr);
	al_pd_t *p_pd;
	al_mr_t *p_new;
	ib_api_status_t st;

	if (!p_mr)
		return IB_INVALID_MR_HANDLE;
	p_pd = (al_pd_t *)AL_ENTER(h_pd, AL_HDL_PD);
	if (!p_pd || p_pd->p_ca->p_ci != p_mr->p_pd->p_ca->p_ci)
		st = IB_INVALID_PD_HANDLE;
	else if (!p_vaddr || !p_lkey || !p_rkey || !ph_mr)
		st = IB_INVALID_PARAMETER;
	else if ((st = mr_new(p_pd, &p_new)) == IB_SUCCESS)
		st = mr_done(p_new, p_mr->v.p_ops->reg_shared(p_mr->v.p_prov, p_pd->v.p_prov,
							       access_ctrl, p_vaddr, p_lkey, p_rkey,
							       &p_new->v.p_prov), ph_mr);
	if (p_pd)
		AL_EXIT(h_pd);
	al_mr_unuse(h_mr, p_mr);
	return st;
}

ib_api_status_t ib_reg_shmid(const ib_pd_handle_t h_pd, const ib_shmid_t shmid,
			     const ib_mr_create_t *const p_mr_create, uint64_t *const p_vaddr,
			     net32_t *const p_lkey, net32_t *const p_rkey, ib_mr_handle_t *const ph_mr)
{
	al_pd_t *p_pd = (al_pd_t *)AL_ENTER(h_pd, AL_HDL_PD);
	struct shmid_ds ds;
	ib_mr_create_t c;
	al_mr_t *p_mr;
	void *addr;
	int id;
	ib_api_status_t st;

	if (!p_pd)
		return IB_INVALID_PD_HANDLE;
	if (!shmid || !p_mr_create || !p_vaddr || !p_lkey || !p_rkey || !ph_mr) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	memcpy(&id, shmid, sizeof(id));
	if (shmctl(id, IPC_STAT, &ds) != 0) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	if (!p_mr_create->length || p_mr_create->length > ds.shm_segsz) {
		st = IB_INVALID_SETTING;
		goto out;
	}
	addr = shmat(id, NULL, 0);
	if (addr == (void *)-1) {
		st = IB_INVALID_PERMISSION;
		goto out;
	}
	st = mr_new(p_pd, &p_mr);
	if (st != IB_SUCCESS) {
		shmdt(addr);
		goto out;
	}
	p_mr->shm_addr = addr; /* detached at cleanup, success or not */
	c = *p_mr_create;
	c.vaddr = addr;
	st = mr_done(p_mr, p_pd->v.p_ops->reg_mem(p_pd->v.p_prov, &c, p_lkey, p_rkey,
						   &p_mr->v.p_prov), ph_mr);
	if (st == IB_SUCCESS)
		*p_vaddr = (uint64_t)(uintptr_t)addr;
out:
	AL_EXIT(h_pd);
	return st;
}

ib_api_status_t ib_dereg_mr(const ib_mr_handle_t h_mr)
{
	al_mr_t *p_mr = (al_mr_t *)AL_ENTER(h_mr, AL_HDL_MR);
	ib_api_status_t st;

	if (!p_mr)
		return IB_INVALID_MR_HANDLE;
	/* Exclusive: no call is using the provider MR while it goes, and
	 * the calls after it find none (IB_INVALID_MR_HANDLE). */
	pthread_rwlock_wrlock(&p_mr->use_lock);
	if (!p_mr->v.p_prov) {
		st = IB_INVALID_MR_HANDLE; /* another thread deregistered it */
	} else {
		st = p_mr->v.p_ops->dereg_mr(p_mr->v.p_prov);
		if (st == IB_SUCCESS)
			__atomic_store_n(&p_mr->v.p_prov, NULL, __ATOMIC_RELEASE);
	}
	pthread_rwlock_unlock(&p_mr->use_lock);
	/* Fails only when its PD is going already: the cleanup then finds the
	 * region deregistered. */
	if (st == IB_SUCCESS)
		(void)al_obj_destroy(&p_mr->v.obj, NULL);
	AL_EXIT(h_mr);
	return st;
}
