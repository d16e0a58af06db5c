/*
 * ibal internal: ThreadSanitizer annotations, compiled away in every other build.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * ThreadSanitizer sees the synchronization of atomics and pthread locks,
 * not that of the soft provider's futex locks nor what another process
 * does in shared memory. The library tells it about those with
 * IBAL_TSAN_ANNOTATE(__tsan_...(...)), which is nothing unless the build
 * has -fsanitize=thread. Private to the library's sources; every folder of
 * core/ may include it.
 */
#ifndef IBAL_TSAN_H
#define IBAL_TSAN_H

#if defined(__SANITIZE_THREAD__)
#define IBAL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define IBAL_TSAN 1
#endif
#endif

#ifdef IBAL_TSAN
#include <sanitizer/tsan_interface.h>
/** Makes @p call, a __tsan_* annotation, in a ThreadSanitizer build only. */
#define IBAL_TSAN_ANNOTATE(call) call
#else
#define IBAL_TSAN_ANNOTATE(call) ((void)0)
#endif

#endif /* IBAL_TSAN_H */
