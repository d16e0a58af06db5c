/*
 * ibal complib: memory allocation with optional tracking.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_memory.h
 * @brief Allocation (`cl_malloc`, `cl_zalloc`, `cl_palloc`, `cl_pzalloc`,
 * `cl_free`), buffer helpers, and allocation tracking with a leak display.
 *
 * Tracking records each live allocation with its file and line. Code
 * compiled with `CL_TRACK_MEM` (or `_DEBUG_` without `CL_NO_TRACK_MEM`)
 * passes its file and line, and its first allocation starts tracking for
 * the process. Tracking can also be switched on for every allocation at run
 * time with `__cl_mem_track(TRUE)`, or by starting the process with
 * `CL_MEM_TRACK=1` in the environment. While tracking is on when the library
 * unloads, allocations still live are listed (see cl_mem_display()) to the
 * complib log target (stderr, or the file in `CL_LOG_FILE`). Tracked and untracked
 * allocations may be freed by either `cl_free` variant: the block layout is
 * the same, so code built with and without tracking can be mixed.
 *
 * Thread safety: all functions may be called from any thread.
 */
#ifndef _CL_MEMORY_H_
#define _CL_MEMORY_H_

#include <complib/cl_types.h>
#include <complib/cl_memory_osd.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Starts or stops allocation tracking for the whole process.
 * @param start TRUE to start, FALSE to stop; stopping displays what is still
 * allocated (as cl_mem_display does) and forgets it.
 * @return CL_SUCCESS, or CL_INSUFFICIENT_MEMORY if the tracking table could
 * not be created.
 */
cl_status_t CL_API __cl_mem_track(IN const boolean_t start);

/**
 * Fault injection for tests (an ibal extension): the @p nth allocation
 * (cl_malloc, cl_zalloc, cl_palloc, cl_pzalloc) made from now on by the
 * calling thread returns NULL, once; other threads are not affected, so a
 * test that walks @p nth over 1, 2, ... fails each of its own allocations in
 * turn, deterministically.
 * @param nth 1 for the next allocation; 0 cancels a failure not yet made.
 * @return whether the failure asked for by the previous call was made.
 */
boolean_t CL_API __cl_mem_fail_nth(IN const uint32_t nth);

/**
 * Fault injection for allocators built beside complib's (an ibal extension:
 * the library's arenas of per-connection objects): counts one allocation of
 * the calling thread toward __cl_mem_fail_nth(), as cl_malloc() does.
 * @return TRUE if it is the allocation asked to fail: the caller then fails
 * it.
 */
boolean_t CL_API __cl_mem_fail_due(void);

/**
 * Initializes complib for the process. Called automatically when the library
 * loads; applications ported from Windows may call it, and calls nest.
 * @return CL_SUCCESS.
 */
cl_status_t CL_API _cl_init(void);

/** Undoes one _cl_init. */
void CL_API _cl_deinit(void);

/**
 * Prints every tracked allocation still live (file, line, size, tag) to the
 * complib log target (stderr unless CL_LOG_FILE names a file).
 */
void CL_API cl_mem_display(void);

/**
 * Number of tracked allocations still live (ibal extension, for leak tests).
 * @return the count; 0 when tracking is off.
 */
size_t CL_API cl_mem_track_count(void);

/**
 * Allocates and tracks a block. Called through the cl_malloc macros.
 * @param p_file_name source file of the caller.
 * @param line_num line of the caller.
 * @param bytes size in bytes.
 * @param pageable ignored on Linux (user memory is always pageable).
 * @return the block, or NULL.
 */
void *CL_API __cl_malloc_trk(IN const char *const p_file_name, IN const int32_t line_num,
			     IN const size_t bytes, IN const boolean_t pageable);
/**
 * Allocates and tracks a block with a descriptive tag.
 * @param p_file_name source file of the caller.
 * @param line_num line of the caller.
 * @param size size in bytes.
 * @param pageable ignored on Linux.
 * @param tag optional text shown by cl_mem_display (not copied: keep it valid).
 * @return the block, or NULL.
 */
void *CL_API __cl_malloc_trk_ex(IN const char *const p_file_name, IN const int32_t line_num,
				IN const size_t size, IN const boolean_t pageable,
				IN const char *tag);
/**
 * Allocates, zeroes and tracks a block.
 * @param p_file_name source file of the caller.
 * @param line_num line of the caller.
 * @param bytes size in bytes.
 * @param pageable ignored on Linux.
 * @return the block, or NULL.
 */
void *CL_API __cl_zalloc_trk(IN const char *const p_file_name, IN const int32_t line_num,
			     IN const size_t bytes, IN const boolean_t pageable);
/**
 * Allocates, zeroes and tracks a block with a descriptive tag.
 * @param p_file_name source file of the caller.
 * @param line_num line of the caller.
 * @param size size in bytes.
 * @param pageable ignored on Linux.
 * @param tag optional text shown by cl_mem_display.
 * @return the block, or NULL.
 */
void *CL_API __cl_zalloc_trk_ex(IN const char *const p_file_name, IN const int32_t line_num,
				IN const size_t size, IN const boolean_t pageable,
				IN const char *tag);
/**
 * Allocates a block (tracked only if tracking was started at run time).
 * @param size size in bytes.
 * @param pageable ignored on Linux.
 * @return the block, or NULL.
 */
void *CL_API __cl_malloc_ntrk(IN const size_t size, IN const boolean_t pageable);
/**
 * Allocates a zeroed block (tracked only if tracking was started at run time).
 * @param bytes size in bytes.
 * @param pageable ignored on Linux.
 * @return the block, or NULL.
 */
void *CL_API __cl_zalloc_ntrk(IN const size_t bytes, IN const boolean_t pageable);
/**
 * Frees a block from any cl allocation function; NULL is ignored.
 * @param p_memory the block.
 */
void CL_API __cl_free_trk(IN void *const p_memory);
/**
 * Frees a block from any cl allocation function; NULL is ignored.
 * @param p_memory the block.
 */
void CL_API __cl_free_ntrk(IN void *const p_memory);

#ifndef _CL_MEMCLR_DEFINED_
/**
 * Zeroes @p count bytes at @p p_memory.
 * @param p_memory destination.
 * @param count number of bytes.
 */
CL_INLINE void CL_API cl_memclr(IN void *const p_memory, IN const size_t count)
{
	cl_memset(p_memory, 0, count);
}
#endif

#if defined(CL_NO_TRACK_MEM) && defined(CL_TRACK_MEM)
#error Conflict: define at most one of CL_NO_TRACK_MEM and CL_TRACK_MEM.
#endif
#if defined(_DEBUG_) && !defined(CL_NO_TRACK_MEM) && !defined(CL_TRACK_MEM)
#define CL_TRACK_MEM
#endif

#if defined(CL_TRACK_MEM) || defined(__DOXYGEN__)
/** Allocates @p a bytes; NULL on failure. */
#define cl_malloc(a) __cl_malloc_trk(__FILE__, __LINE__, a, FALSE)
/** Allocates @p a zeroed bytes; NULL on failure. */
#define cl_zalloc(a) __cl_zalloc_trk(__FILE__, __LINE__, a, FALSE)
/** Allocates @p a bytes of pageable memory (same as cl_malloc on Linux). */
#define cl_palloc(a) __cl_malloc_trk(__FILE__, __LINE__, a, TRUE)
/** Allocates @p a zeroed bytes of pageable memory (same as cl_zalloc on Linux). */
#define cl_pzalloc(a) __cl_zalloc_trk(__FILE__, __LINE__, a, TRUE)
/** cl_malloc with a tag for the leak display. */
#define cl_malloc_ex(a, tag) __cl_malloc_trk_ex(__FILE__, __LINE__, a, FALSE, tag)
/** cl_zalloc with a tag for the leak display. */
#define cl_zalloc_ex(a, tag) __cl_zalloc_trk_ex(__FILE__, __LINE__, a, FALSE, tag)
/** cl_palloc with a tag for the leak display. */
#define cl_palloc_ex(a, tag) __cl_malloc_trk_ex(__FILE__, __LINE__, a, TRUE, tag)
/** cl_pzalloc with a tag for the leak display. */
#define cl_pzalloc_ex(a, tag) __cl_zalloc_trk_ex(__FILE__, __LINE__, a, TRUE, tag)
/** Frees memory from any cl allocation macro; NULL is ignored. */
#define cl_free(a) __cl_free_trk(a)
#else
#define cl_malloc(a) __cl_malloc_ntrk(a, FALSE)
#define cl_zalloc(a) __cl_zalloc_ntrk(a, FALSE)
#define cl_palloc(a) __cl_malloc_ntrk(a, TRUE)
#define cl_pzalloc(a) __cl_zalloc_ntrk(a, TRUE)
#define cl_malloc_ex(a, tag) cl_malloc(a)
#define cl_zalloc_ex(a, tag) cl_zalloc(a)
#define cl_palloc_ex(a, tag) cl_palloc(a)
#define cl_pzalloc_ex(a, tag) cl_pzalloc(a)
#define cl_free(a) __cl_free_ntrk(a)
#endif

#ifdef __cplusplus
}
#endif

#endif /* _CL_MEMORY_H_ */
