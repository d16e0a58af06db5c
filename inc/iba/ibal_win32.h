/*
 * ibal: opt-in Win32 names for programs ported from OFED for Windows.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file ibal_win32.h
 * @brief Maps the Win32 names that OFED-for-Windows programs use most often
 * beyond the access-layer API onto ISO C and POSIX.
 *
 * No other ibal header includes this one: a ported program includes it
 * explicitly, after or before <iba/ib_al.h>, to keep compiling code that
 * uses the Windows integer type names (`ULONG`, `DWORD`, `BOOLEAN`,
 * `unsigned __int64` ...), the calling-convention markers (`__cdecl`,
 * `WINAPI` ...), `Sleep()`, `GetTickCount()`, the Microsoft "secure" string
 * functions (`sprintf_s`, `strcpy_s`, `strncpy_s`, `strtok_s` ...),
 * `_stricmp`, `_snprintf`, `_byteswap_*`, `_countof`, `ZeroMemory` and a few
 * more. Everything is a macro, a typedef or a static inline function; the
 * header needs no library.
 *
 * What is deliberately not here: `min`/`max` (as macros they break C++
 * standard headers: use MIN/MAX of <complib/cl_math.h> or std::min),
 * `GetLastError()` (Windows error codes are not errno values), sockets
 * (`SOCKET`, `closesocket`), `sscanf_s` (its `%s` takes an extra size
 * argument that sscanf would misread) and wide-character types (`wchar_t`
 * has 32 bits on Linux, 16 on Windows).
 *
 * Differences to keep in mind:
 * - The Windows 32-bit `LONG`, `ULONG` and `DWORD` are `int32_t`/`uint32_t`
 *   here, as on Windows (LLP64), not `long`: print them with `%d`/`%u` or
 *   PRId32/PRIu32, not `%ld`/`%lu`.
 * - glibc's printf does not know `%I64x`; it reads `I` as its own flag.
 *   Use `%" PRIx64 "` (the functions below carry printf format checking,
 *   so the compiler points such formats out).
 * - `Sleep()`, `GetTickCount()`, `GetTickCount64()` and the performance
 *   counter need the POSIX clocks, which strict ISO C modes (`-std=c99`,
 *   `-std=c11` without a feature-test macro) hide. They are defined when
 *   IBAL_WIN32_HAVE_POSIX_TIME is 1: with the GNU modes (`-std=gnu11`, the
 *   default), in C++, or with `_POSIX_C_SOURCE` >= 199309L defined before
 *   the first system header.
 * - The string functions report errors by their return value and never call
 *   an invalid-parameter handler; they never write outside the buffer size
 *   they are given.
 *
 * Thread safety: every function is reentrant; strtok_s() keeps its position
 * in the caller's context pointer.
 */
#ifndef IBAL_WIN32_H
#define IBAL_WIN32_H

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if (defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 199309L) || \
	(defined(_XOPEN_SOURCE) && _XOPEN_SOURCE >= 500) || defined(_GNU_SOURCE) || \
	defined(_DEFAULT_SOURCE) || defined(_BSD_SOURCE)
/** 1 when the POSIX clocks are visible and Sleep(), GetTickCount() etc. are defined. */
#define IBAL_WIN32_HAVE_POSIX_TIME 1
#include <sched.h>
#else
/** 1 when the POSIX clocks are visible and Sleep(), GetTickCount() etc. are defined. */
#define IBAL_WIN32_HAVE_POSIX_TIME 0
#endif

/* ------------------------------------------------------------------------ */
/* Calling conventions and annotations                                       */
/* ------------------------------------------------------------------------ */

#ifndef __cdecl
#define __cdecl /**< Windows C calling convention: the only one on Linux. */
#endif
#ifndef __stdcall
#define __stdcall /**< Windows callee-cleanup calling convention: nothing here. */
#endif
#ifndef __fastcall
#define __fastcall /**< Windows register calling convention: nothing here. */
#endif
#ifndef WINAPI
#define WINAPI /**< Calling convention of Win32 API functions: nothing here. */
#endif
#ifndef APIENTRY
#define APIENTRY /**< Same as WINAPI. */
#endif
#ifndef CALLBACK
#define CALLBACK /**< Calling convention of Win32 callbacks: nothing here. */
#endif
#ifndef NTAPI
#define NTAPI /**< Calling convention of native NT functions: nothing here. */
#endif
#ifndef __forceinline
/** Microsoft's "always inline": GCC's always_inline attribute. */
#define __forceinline __inline__ __attribute__((__always_inline__))
#endif
#ifndef UNREFERENCED_PARAMETER
/** Marks the parameter @p P as intentionally unused. */
#define UNREFERENCED_PARAMETER(P) ((void)(P))
#endif

/* ------------------------------------------------------------------------ */
/* Integer and pointer types                                                 */
/* ------------------------------------------------------------------------ */

/*
 * Microsoft's sized integer keywords, as macros so that `unsigned __int64`
 * keeps working.
 */
#ifndef __int8
#define __int8 char /**< Microsoft 8-bit integer keyword. */
#endif
#ifndef __int16
#define __int16 short /**< Microsoft 16-bit integer keyword. */
#endif
#ifndef __int32
#define __int32 int /**< Microsoft 32-bit integer keyword. */
#endif
#ifndef __int64
#define __int64 long long /**< Microsoft 64-bit integer keyword. */
#endif

#ifndef VOID
#define VOID void /**< The Windows spelling of void. */
#endif

typedef char CHAR;                 /**< Character. */
typedef unsigned char UCHAR;       /**< Unsigned 8-bit integer. */
typedef unsigned char BYTE;        /**< Unsigned 8-bit integer. */
typedef int16_t SHORT;             /**< Signed 16-bit integer. */
typedef uint16_t USHORT;           /**< Unsigned 16-bit integer. */
typedef uint16_t WORD;             /**< Unsigned 16-bit integer. */
typedef int INT;                   /**< Signed int. */
typedef unsigned int UINT;         /**< Unsigned int. */
typedef int32_t LONG;              /**< Windows LONG: signed 32 bits (not long). */
typedef uint32_t ULONG;            /**< Windows ULONG: unsigned 32 bits (not unsigned long). */
typedef uint32_t DWORD;            /**< Windows DWORD: unsigned 32 bits. */
typedef int64_t LONGLONG;          /**< Signed 64-bit integer. */
typedef uint64_t ULONGLONG;        /**< Unsigned 64-bit integer. */
typedef int64_t LONG64;            /**< Signed 64-bit integer. */
typedef uint64_t ULONG64;          /**< Unsigned 64-bit integer. */
typedef uint64_t DWORD64;          /**< Unsigned 64-bit integer. */
typedef int8_t INT8;               /**< Signed 8-bit integer. */
typedef int16_t INT16;             /**< Signed 16-bit integer. */
typedef int32_t INT32;             /**< Signed 32-bit integer. */
typedef int64_t INT64;             /**< Signed 64-bit integer. */
typedef uint8_t UINT8;             /**< Unsigned 8-bit integer. */
typedef uint16_t UINT16;           /**< Unsigned 16-bit integer. */
typedef uint32_t UINT32;           /**< Unsigned 32-bit integer. */
typedef uint64_t UINT64;           /**< Unsigned 64-bit integer. */
typedef intptr_t INT_PTR;          /**< Signed integer the size of a pointer. */
typedef uintptr_t UINT_PTR;        /**< Unsigned integer the size of a pointer. */
typedef intptr_t LONG_PTR;         /**< Signed integer the size of a pointer. */
typedef uintptr_t ULONG_PTR;       /**< Unsigned integer the size of a pointer. */
typedef uintptr_t DWORD_PTR;       /**< Unsigned integer the size of a pointer. */
typedef size_t SIZE_T;             /**< Size of an object. */
typedef intptr_t SSIZE_T;          /**< Signed size of an object. */
typedef int BOOL;                  /**< Win32 boolean: an int, TRUE or FALSE. */
typedef UCHAR BOOLEAN;             /**< NT boolean: one byte, TRUE or FALSE. */
typedef void *PVOID;               /**< Untyped pointer. */
typedef void *LPVOID;              /**< Untyped pointer. */
typedef const void *LPCVOID;       /**< Untyped pointer to constant data. */
typedef void *HANDLE;              /**< Opaque handle. */
typedef CHAR *PCHAR;               /**< Pointer to characters. */
typedef CHAR *PSTR;                /**< NUL-terminated string. */
typedef CHAR *LPSTR;               /**< NUL-terminated string. */
typedef const CHAR *PCSTR;         /**< Constant NUL-terminated string. */
typedef const CHAR *LPCSTR;        /**< Constant NUL-terminated string. */
typedef UCHAR *PUCHAR;             /**< Pointer to unsigned bytes. */
typedef BYTE *PBYTE;               /**< Pointer to bytes. */
typedef BYTE *LPBYTE;              /**< Pointer to bytes. */
typedef USHORT *PUSHORT;           /**< Pointer to USHORT. */
typedef ULONG *PULONG;             /**< Pointer to ULONG. */
typedef DWORD *PDWORD;             /**< Pointer to DWORD. */
typedef DWORD *LPDWORD;            /**< Pointer to DWORD. */
typedef ULONG_PTR *PULONG_PTR;     /**< Pointer to ULONG_PTR. */

#if !defined(_ERRCODE_DEFINED) && !defined(__STDC_LIB_EXT1__)
#define _ERRCODE_DEFINED /**< errno_t is defined (Microsoft's guard macro). */
/** Error code returned by the *_s functions: 0 or an errno value. */
typedef int errno_t;
#endif

/** 64-bit integer that can also be read as two 32-bit halves. */
typedef union _LARGE_INTEGER {
	/** The two halves, in memory order of the host. */
	struct {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		LONG HighPart;  /**< Upper 32 bits, signed. */
		DWORD LowPart;  /**< Lower 32 bits. */
#else
		DWORD LowPart;  /**< Lower 32 bits. */
		LONG HighPart;  /**< Upper 32 bits, signed. */
#endif
	} u;
	LONGLONG QuadPart; /**< The whole value. */
} LARGE_INTEGER;

#ifndef FALSE
#define FALSE 0 /**< Boolean false. */
#endif
#ifndef TRUE
#define TRUE 1 /**< Boolean true. */
#endif

#define INFINITE 0xFFFFFFFFu /**< Timeout meaning "wait forever" (Sleep(INFINITE)). */
/** Value of an invalid HANDLE (as CreateFile returns on failure). */
#define INVALID_HANDLE_VALUE ((HANDLE)(intptr_t)-1)
#ifndef MAX_PATH
#define MAX_PATH 260 /**< Windows' maximum path length, for buffers sized by it. */
#endif
#define _TRUNCATE ((size_t)-1) /**< Count argument of strncpy_s/_snprintf_s: truncate to fit. */
#define STRUNCATE 80 /**< strncpy_s result when _TRUNCATE cut the string. */
#define _NLSCMPERROR INT_MAX /**< _stricmp/_strnicmp result for a NULL argument. */

/** Number of elements of the array @p a (not a pointer). */
#define _countof(a) (sizeof(a) / sizeof((a)[0]))

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Memory                                                                    */
/* ------------------------------------------------------------------------ */

/** Fills @p len bytes at @p dst with zeros. */
#define ZeroMemory(dst, len) ((void)memset((dst), 0, (len)))
/** Same as ZeroMemory. */
#define RtlZeroMemory(dst, len) ZeroMemory(dst, len)
/** Copies @p len bytes from @p src to @p dst; the areas must not overlap. */
#define CopyMemory(dst, src, len) ((void)memcpy((dst), (src), (len)))
/** Same as CopyMemory. */
#define RtlCopyMemory(dst, src, len) CopyMemory(dst, src, len)
/** Copies @p len bytes from @p src to @p dst; the areas may overlap. */
#define MoveMemory(dst, src, len) ((void)memmove((dst), (src), (len)))
/** Same as MoveMemory. */
#define RtlMoveMemory(dst, src, len) MoveMemory(dst, src, len)
/** Fills @p len bytes at @p dst with the byte @p fill (note the argument order). */
#define FillMemory(dst, len, fill) ((void)memset((dst), (fill), (len)))
/** Same as FillMemory. */
#define RtlFillMemory(dst, len, fill) FillMemory(dst, len, fill)
/** Nonzero when the @p len bytes at @p a and @p b are equal. */
#define RtlEqualMemory(a, b, len) (!memcmp((a), (b), (len)))
/** Same as RtlEqualMemory. */
#define EqualMemory(a, b, len) RtlEqualMemory(a, b, len)

/* ------------------------------------------------------------------------ */
/* Byte swapping                                                             */
/* ------------------------------------------------------------------------ */

/**
 * Reverses the bytes of a 16-bit value.
 * @param v the value.
 * @return @p v with its two bytes swapped.
 */
static inline USHORT _byteswap_ushort(USHORT v)
{
	return (USHORT)__builtin_bswap16(v);
}

/**
 * Reverses the bytes of a 32-bit value (Windows' unsigned long).
 * @param v the value.
 * @return @p v with its four bytes reversed.
 */
static inline ULONG _byteswap_ulong(ULONG v)
{
	return (ULONG)__builtin_bswap32(v);
}

/**
 * Reverses the bytes of a 64-bit value.
 * @param v the value.
 * @return @p v with its eight bytes reversed.
 */
static inline ULONGLONG _byteswap_uint64(ULONGLONG v)
{
	return (ULONGLONG)__builtin_bswap64(v);
}

/* ------------------------------------------------------------------------ */
/* Time                                                                      */
/* ------------------------------------------------------------------------ */

#if IBAL_WIN32_HAVE_POSIX_TIME
/**
 * Suspends the calling thread for at least @p ms milliseconds (nanosleep,
 * resumed after signal interruptions). Sleep(0) yields the processor;
 * Sleep(INFINITE) never returns. errno is left unchanged.
 * @param ms milliseconds to sleep, or INFINITE.
 */
static inline void Sleep(DWORD ms)
{
	struct timespec ts;
	int saved = errno;

	if (ms == 0) {
		sched_yield();
		return;
	}
	if (ms == INFINITE) {
		for (;;) {
			ts.tv_sec = 1000000;
			ts.tv_nsec = 0;
			nanosleep(&ts, NULL);
		}
	}
	ts.tv_sec = (time_t)(ms / 1000u);
	ts.tv_nsec = (long)(ms % 1000u) * 1000000L;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	errno = saved;
}

/**
 * Milliseconds of CLOCK_MONOTONIC (time since boot, not counting suspend).
 * @return the count modulo 2^64.
 */
static inline ULONGLONG GetTickCount64(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ULONGLONG)ts.tv_sec * 1000u + (ULONGLONG)ts.tv_nsec / 1000000u;
}

/**
 * Milliseconds of CLOCK_MONOTONIC, truncated to 32 bits: it wraps around
 * after about 49.7 days, as on Windows. Compute intervals as unsigned
 * differences.
 * @return GetTickCount64() modulo 2^32.
 */
static inline DWORD GetTickCount(void)
{
	return (DWORD)GetTickCount64();
}

/**
 * Reads the performance counter: CLOCK_MONOTONIC in nanoseconds.
 * @param p_count receives the counter.
 * @return TRUE, or FALSE if @p p_count is NULL.
 */
static inline BOOL QueryPerformanceCounter(LARGE_INTEGER *p_count)
{
	struct timespec ts;

	if (!p_count)
		return FALSE;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	p_count->QuadPart = (LONGLONG)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	return TRUE;
}

/**
 * Frequency of the performance counter: 1,000,000,000 counts a second.
 * @param p_freq receives the frequency.
 * @return TRUE, or FALSE if @p p_freq is NULL.
 */
static inline BOOL QueryPerformanceFrequency(LARGE_INTEGER *p_freq)
{
	if (!p_freq)
		return FALSE;
	p_freq->QuadPart = 1000000000LL;
	return TRUE;
}
#endif /* IBAL_WIN32_HAVE_POSIX_TIME */

/* ------------------------------------------------------------------------ */
/* String comparison and duplication                                         */
/* ------------------------------------------------------------------------ */

/**
 * Compares at most @p n characters of two strings, ignoring ASCII case
 * (characters are compared as lower case, as Microsoft's C library does).
 * @param a first string.
 * @param b second string.
 * @param n most characters to compare.
 * @return <0, 0 or >0 as @p a sorts before, equal to or after @p b;
 * _NLSCMPERROR with errno EINVAL if either is NULL.
 */
static inline int _strnicmp(const char *a, const char *b, size_t n)
{
	int ca, cb;

	if (!a || !b) {
		errno = EINVAL;
		return _NLSCMPERROR;
	}
	for (; n; n--, a++, b++) {
		ca = tolower((unsigned char)*a);
		cb = tolower((unsigned char)*b);
		if (ca != cb || ca == 0)
			return ca - cb;
	}
	return 0;
}

/**
 * Compares two strings ignoring ASCII case.
 * @param a first string.
 * @param b second string.
 * @return <0, 0 or >0 as @p a sorts before, equal to or after @p b;
 * _NLSCMPERROR with errno EINVAL if either is NULL.
 */
static inline int _stricmp(const char *a, const char *b)
{
	return _strnicmp(a, b, (size_t)-1);
}

/** Old name of _stricmp. */
#define stricmp(a, b) _stricmp(a, b)
/** Old name of _stricmp. */
#define _strcmpi(a, b) _stricmp(a, b)
/** Old name of _strnicmp. */
#define strnicmp(a, b, n) _strnicmp(a, b, n)

/**
 * Win32 case-insensitive comparison. Unlike Windows (which uses the user's
 * locale and word-sort rules) it compares bytes as _stricmp() does. A NULL
 * string sorts before any other string and equals another NULL.
 * @param a first string, or NULL.
 * @param b second string, or NULL.
 * @return <0, 0 or >0 as @p a sorts before, equal to or after @p b.
 */
static inline int lstrcmpiA(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return _stricmp(a, b);
}

/**
 * Win32 case-sensitive comparison (strcmp; a NULL string sorts first).
 * @param a first string, or NULL.
 * @param b second string, or NULL.
 * @return <0, 0 or >0 as @p a sorts before, equal to or after @p b.
 */
static inline int lstrcmpA(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

/**
 * Win32 string length.
 * @param s the string, or NULL.
 * @return strlen(@p s), or 0 for NULL.
 */
static inline int lstrlenA(const char *s)
{
	return s ? (int)strlen(s) : 0;
}

#define lstrcmpi lstrcmpiA /**< ANSI lstrcmpi (there is no UNICODE build here). */
#define lstrcmp lstrcmpA   /**< ANSI lstrcmp. */
#define lstrlen lstrlenA   /**< ANSI lstrlen. */

/**
 * Duplicates a string into memory from malloc().
 * @param s the string.
 * @return the copy, to be released with free(); NULL if @p s is NULL or
 * memory is short.
 */
static inline char *_strdup(const char *s)
{
	size_t n;
	char *d;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	d = (char *)malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/**
 * Splits a string into tokens (strtok_r semantics with Microsoft's name).
 * @param str string to split on the first call, NULL on the following ones;
 * its delimiters are overwritten with NUL characters.
 * @param delim the delimiter characters.
 * @param context the caller's position pointer, kept between calls.
 * @return the next token, or NULL when none is left or @p delim or
 * @p context is NULL (errno EINVAL), or @p str and *@p context are both NULL.
 */
static inline char *strtok_s(char *str, const char *delim, char **context)
{
	char *end;

	if (!delim || !context) {
		errno = EINVAL;
		return NULL;
	}
	if (!str)
		str = *context;
	if (!str)
		return NULL;
	str += strspn(str, delim);
	if (*str == '\0') {
		*context = str;
		return NULL;
	}
	end = str + strcspn(str, delim);
	if (*end != '\0')
		*end++ = '\0';
	*context = end;
	return str;
}

/**
 * Converts a string to a signed 64-bit integer (strtoll).
 * @param s the string.
 * @param end receives the first unparsed character, or NULL.
 * @param base number base, 0 or 2..36.
 * @return the value.
 */
static inline INT64 _strtoi64(const char *s, char **end, int base)
{
	return (INT64)strtoll(s, end, base);
}

/**
 * Converts a string to an unsigned 64-bit integer (strtoull).
 * @param s the string.
 * @param end receives the first unparsed character, or NULL.
 * @param base number base, 0 or 2..36.
 * @return the value.
 */
static inline UINT64 _strtoui64(const char *s, char **end, int base)
{
	return (UINT64)strtoull(s, end, base);
}

/**
 * Converts a decimal string to a signed 64-bit integer (atoll).
 * @param s the string.
 * @return the value.
 */
static inline INT64 _atoi64(const char *s)
{
	return (INT64)strtoll(s, NULL, 10);
}

/* ------------------------------------------------------------------------ */
/* Bounded string copies                                                     */
/* ------------------------------------------------------------------------ */

/**
 * Copies a string into a buffer of @p size bytes. It never truncates: if
 * the string with its NUL does not fit, the buffer gets an empty string.
 * @param dst destination buffer.
 * @param size size of @p dst in bytes.
 * @param src string to copy.
 * @return 0 on success; EINVAL if @p dst or @p src is NULL (an empty string
 * is stored when @p dst is usable); ERANGE if @p size is 0 or too small.
 */
static inline errno_t strcpy_s(char *dst, size_t size, const char *src)
{
	size_t n;

	if (!dst)
		return EINVAL;
	if (size == 0)
		return ERANGE;
	if (!src) {
		dst[0] = '\0';
		return EINVAL;
	}
	n = strlen(src);
	if (n >= size) {
		dst[0] = '\0';
		return ERANGE;
	}
	memcpy(dst, src, n + 1);
	return 0;
}

/**
 * Copies at most @p count characters of a string and a NUL into a buffer of
 * @p size bytes. With @p count _TRUNCATE, copies as much as fits.
 * @param dst destination buffer.
 * @param size size of @p dst in bytes.
 * @param src string to copy (may be NULL only when @p count is 0).
 * @param count most characters to copy, or _TRUNCATE.
 * @return 0 on success; STRUNCATE if _TRUNCATE shortened the string;
 * EINVAL if @p dst is NULL or @p src is NULL with a nonzero @p count;
 * ERANGE if @p size is 0 or, without _TRUNCATE, the copy does not fit (the
 * buffer then holds an empty string).
 */
static inline errno_t strncpy_s(char *dst, size_t size, const char *src, size_t count)
{
	size_t n = 0;

	if (!dst)
		return EINVAL;
	if (size == 0)
		return ERANGE;
	if (!src) {
		dst[0] = '\0';
		return count ? EINVAL : 0;
	}
	while (n < count && src[n] != '\0')
		n++;
	if (n >= size) {
		if (count == _TRUNCATE) {
			memcpy(dst, src, size - 1);
			dst[size - 1] = '\0';
			return STRUNCATE;
		}
		dst[0] = '\0';
		return ERANGE;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

/**
 * Appends a string to the string in a buffer of @p size bytes; never
 * truncates.
 * @param dst buffer holding a NUL-terminated string.
 * @param size size of @p dst in bytes.
 * @param src string to append.
 * @return 0 on success; EINVAL if a pointer is NULL or @p dst holds no NUL
 * within @p size bytes; ERANGE if @p size is 0 or the result does not fit
 * (the buffer then holds an empty string).
 */
static inline errno_t strcat_s(char *dst, size_t size, const char *src)
{
	const char *end;
	size_t used, n;

	if (!dst)
		return EINVAL;
	if (size == 0)
		return ERANGE;
	if (!src) {
		dst[0] = '\0';
		return EINVAL;
	}
	end = (const char *)memchr(dst, '\0', size);
	if (!end) {
		dst[0] = '\0';
		return EINVAL;
	}
	used = (size_t)(end - dst);
	n = strlen(src);
	if (n >= size - used) {
		dst[0] = '\0';
		return ERANGE;
	}
	memcpy(dst + used, src, n + 1);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Formatted output                                                          */
/* ------------------------------------------------------------------------ */

/**
 * Formats into a buffer of @p size bytes; never truncates.
 * @param buf destination buffer.
 * @param size size of @p buf in bytes.
 * @param fmt printf format.
 * @param ap the arguments.
 * @return the number of characters stored (without the NUL); -1 if a
 * pointer is NULL, @p size is 0 or the text does not fit (the buffer then
 * holds an empty string; errno is EINVAL or ERANGE).
 */
static inline int __attribute__((__format__(__printf__, 3, 0)))
vsprintf_s(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n;

	if (!buf || size == 0 || !fmt) {
		if (buf && size)
			buf[0] = '\0';
		errno = EINVAL;
		return -1;
	}
	n = vsnprintf(buf, size, fmt, ap);
	if (n < 0 || (size_t)n >= size) {
		buf[0] = '\0';
		errno = ERANGE;
		return -1;
	}
	return n;
}

/**
 * Formats into a buffer of @p size bytes; never truncates (see vsprintf_s()).
 * @param buf destination buffer.
 * @param size size of @p buf in bytes.
 * @param fmt printf format, then its arguments.
 * @return the number of characters stored, or -1 as vsprintf_s() says.
 */
static inline int __attribute__((__format__(__printf__, 3, 4)))
sprintf_s(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsprintf_s(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/**
 * Microsoft's _vsnprintf: stores at most @p count characters and appends a
 * NUL only when there is room for it.
 * @param buf destination buffer of at least @p count bytes.
 * @param count most characters to store.
 * @param fmt printf format.
 * @param ap the arguments.
 * @return the length of the text when it fits in @p count characters
 * (the buffer is NUL-terminated only if it is shorter than @p count);
 * -1 when the text was cut to @p count characters (not NUL-terminated),
 * on a formatting error, or when @p buf or @p fmt is NULL.
 */
static inline int __attribute__((__format__(__printf__, 3, 0)))
_vsnprintf(char *buf, size_t count, const char *fmt, va_list ap)
{
	va_list ap2;
	char *tmp;
	int n;

	if (!buf || !fmt) {
		errno = EINVAL;
		return -1;
	}
	va_copy(ap2, ap);
	n = vsnprintf(buf, count, fmt, ap);
	if (n < 0 || (size_t)n < count) {
		va_end(ap2);
		return n;
	}
	/* The text fills count characters or more: store count of them, no NUL. */
	tmp = (char *)malloc((size_t)n + 1);
	if (tmp) {
		vsnprintf(tmp, (size_t)n + 1, fmt, ap2);
		memcpy(buf, tmp, count);
		free(tmp);
	}
	va_end(ap2);
	return (size_t)n == count && tmp ? n : -1;
}

/**
 * Microsoft's _snprintf (see _vsnprintf() for the NUL and the result).
 * @param buf destination buffer of at least @p count bytes.
 * @param count most characters to store.
 * @param fmt printf format, then its arguments.
 * @return as _vsnprintf().
 */
static inline int __attribute__((__format__(__printf__, 3, 4)))
_snprintf(char *buf, size_t count, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = _vsnprintf(buf, count, fmt, ap);
	va_end(ap);
	return n;
}

/**
 * Microsoft's _vsnprintf_s: stores at most @p count characters of the text
 * and a NUL into a buffer of @p size bytes.
 * @param buf destination buffer.
 * @param size size of @p buf in bytes.
 * @param count most characters to store, or _TRUNCATE (as many as fit).
 * @param fmt printf format.
 * @param ap the arguments.
 * @return the number of characters stored when the whole text was stored;
 * -1 when it was cut to @p count characters or, with _TRUNCATE, to
 * @p size - 1 (the buffer is NUL-terminated in both cases); -1 with the
 * buffer emptied and errno ERANGE when @p count characters do not fit in
 * @p size bytes, or errno EINVAL for a NULL pointer or a zero @p size.
 */
static inline int __attribute__((__format__(__printf__, 4, 0)))
_vsnprintf_s(char *buf, size_t size, size_t count, const char *fmt, va_list ap)
{
	va_list ap2;
	size_t keep;
	char *tmp;
	int n;

	if (!buf || size == 0 || !fmt) {
		if (buf && size)
			buf[0] = '\0';
		errno = EINVAL;
		return -1;
	}
	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0) {
		va_end(ap2);
		buf[0] = '\0';
		return -1;
	}
	keep = (size_t)n < count ? (size_t)n : count;
	if (keep >= size) {
		if (count != _TRUNCATE) {
			va_end(ap2);
			buf[0] = '\0';
			errno = ERANGE;
			return -1;
		}
		keep = size - 1;
	}
	tmp = (char *)malloc((size_t)n + 1);
	if (!tmp) {
		va_end(ap2);
		buf[0] = '\0';
		errno = ENOMEM;
		return -1;
	}
	vsnprintf(tmp, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	memcpy(buf, tmp, keep);
	buf[keep] = '\0';
	free(tmp);
	return keep == (size_t)n ? n : -1;
}

/**
 * Microsoft's _snprintf_s (see _vsnprintf_s()).
 * @param buf destination buffer.
 * @param size size of @p buf in bytes.
 * @param count most characters to store, or _TRUNCATE.
 * @param fmt printf format, then its arguments.
 * @return as _vsnprintf_s().
 */
static inline int __attribute__((__format__(__printf__, 4, 5)))
_snprintf_s(char *buf, size_t size, size_t count, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = _vsnprintf_s(buf, size, count, fmt, ap);
	va_end(ap);
	return n;
}

#ifdef __cplusplus
}
#endif

#endif /* IBAL_WIN32_H */
