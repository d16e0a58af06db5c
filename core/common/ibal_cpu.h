/*
 * ibal internal: the processor hint of a spinning thread.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Every loop of the library that spins on memory (complib's
 * cl_thread_stall, the soft provider's locks and progress thread, the
 * access layer's look for work in al_spin.c) tells the processor so with
 * this one function. Private to the library's sources; every folder of
 * core/ may include it.
 */
#ifndef IBAL_CPU_H
#define IBAL_CPU_H

/** Tells the processor that the thread spins (x86 `pause`); nothing elsewhere. */
static inline void ibal_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

#endif /* IBAL_CPU_H */
