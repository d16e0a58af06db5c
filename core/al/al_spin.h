/*
 * ibal access layer: a bounded look for more work before a thread of the access layer sleeps.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file al_spin.h
 * @brief The callback threads (al_obj.c) and the MAD dispatchers (al_mad.c)
 * look for more work for a while before they sleep: under a steady flow (a
 * connection's CM messages one after the other) the next item comes within
 * microseconds, and a thread that is still awake takes it without being
 * woken (a system call for the thread that queued it, a switch for the
 * processor). The look is bounded by IBAL_AL_SPIN_US and yields the
 * processor every few looks, so that a thread sharing it (the one that
 * will queue the work) runs.
 */
#ifndef AL_SPIN_H
#define AL_SPIN_H

#include <complib/cl_types.h>

/** Environment: how long a thread of the access layer looks for more work before it sleeps, us. */
#define AL_ENV_SPIN_US "IBAL_AL_SPIN_US"
/** Default of AL_ENV_SPIN_US. */
#define AL_SPIN_US_DEFAULT 20u
/** Most of AL_ENV_SPIN_US. */
#define AL_SPIN_US_MAX 1000000u

/** A look: TRUE when there is work (it may have done some). */
typedef boolean_t (*al_spin_look_t)(void *context);

/**
 * Whether threads look before they sleep (IBAL_AL_SPIN_US is not 0).
 * @return TRUE if al_spin_until() can return TRUE.
 */
boolean_t al_spin_enabled(void);

/**
 * Sets the bound instead of IBAL_AL_SPIN_US (the tests' hook); threads
 * looking now go by it from their next reading of the clock.
 * @param us microseconds, at most AL_SPIN_US_MAX; 0: no look.
 */
void al_spin_configure(uint64_t us);

/**
 * Calls @p pfn_look(@p context) until it returns TRUE or IBAL_AL_SPIN_US
 * have passed, yielding the processor every few calls.
 * @return TRUE when a look found work; FALSE when the time ran out (at once
 * when the setting is 0, without a look).
 */
boolean_t al_spin_until(al_spin_look_t pfn_look, void *context);

#endif /* AL_SPIN_H */
