/*
 * ibal access layer: a bounded look for more work before a thread of the access layer sleeps.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <pthread.h>
#include <sched.h>
#include <complib/cl_timer.h>
#include "al_spin.h"
#include "ibal_cpu.h"
#include "ibal_env.h"

/* Looks between two readings of the clock (and yields of the processor). */
#define AL_SPIN_LOOKS_PER_YIELD 16u

static pthread_once_t spin_once = PTHREAD_ONCE_INIT;
static uint64_t spin_us; /* atomic: al_spin_configure() may change it */

static void spin_read(void)
{
	__atomic_store_n(&spin_us, __cl_env_uint(AL_ENV_SPIN_US, 0, AL_SPIN_US_MAX, AL_SPIN_US_DEFAULT),
			 __ATOMIC_RELAXED);
}

static uint64_t spin_bound(void)
{
	pthread_once(&spin_once, spin_read);
	return __atomic_load_n(&spin_us, __ATOMIC_RELAXED);
}

void al_spin_configure(uint64_t us)
{
	pthread_once(&spin_once, spin_read);
	__atomic_store_n(&spin_us, us < AL_SPIN_US_MAX ? us : AL_SPIN_US_MAX, __ATOMIC_RELAXED);
}

boolean_t al_spin_enabled(void)
{
	return spin_bound() != 0;
}

boolean_t al_spin_until(al_spin_look_t pfn_look, void *context)
{
	uint64_t start;
	unsigned looks = 0;

	if (!al_spin_enabled())
		return FALSE;
	start = cl_get_time_stamp();
	for (;;) {
		if (pfn_look(context))
			return TRUE;
		if (++looks % AL_SPIN_LOOKS_PER_YIELD) {
			ibal_cpu_relax();
			continue;
		}
		if (cl_get_time_stamp() - start >= spin_bound())
			return FALSE;
		sched_yield(); /* the thread that queues the work may share the processor */
	}
}
