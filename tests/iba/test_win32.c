/*
 * ibal tests: the opt-in Win32 porting header <iba/ibal_win32.h>.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Every mapping is exercised: type sizes, Sleep() (including resumption
 * after signals), the tick counters, the string functions with their
 * truncation rules and NULL arguments, the byte swaps and memory macros.
 */
#include <signal.h>
#include <sys/time.h>
#include <iba/ibal_win32.h>
#include <iba/ib_types.h>
#include "../common/cl_test.h"

/* Monotonic nanoseconds, independent of the header under test. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Loose upper bound for sleeps: slow CI machines and valgrind. */
#define SLACK_MS 5000u

/* --- types and constants ------------------------------------------------ */

static void test_type_sizes(void)
{
	unsigned __int64 u64 = 0;
	unsigned __int16 u16 = 0;
	__int32 i32 = -1;
	__int8 c = 'x';

	CU_ASSERT_EQUAL(sizeof(UCHAR), 1);
	CU_ASSERT_EQUAL(sizeof(BYTE), 1);
	CU_ASSERT_EQUAL(sizeof(BOOLEAN), 1);
	CU_ASSERT_EQUAL(sizeof(USHORT), 2);
	CU_ASSERT_EQUAL(sizeof(WORD), 2);
	CU_ASSERT_EQUAL(sizeof(LONG), 4);
	CU_ASSERT_EQUAL(sizeof(ULONG), 4);
	CU_ASSERT_EQUAL(sizeof(DWORD), 4);
	CU_ASSERT_EQUAL(sizeof(UINT32), 4);
	CU_ASSERT_EQUAL(sizeof(UINT64), 8);
	CU_ASSERT_EQUAL(sizeof(ULONGLONG), 8);
	CU_ASSERT_EQUAL(sizeof(u64), 8);
	CU_ASSERT_EQUAL(sizeof(u16), 2);
	CU_ASSERT_EQUAL(sizeof(i32), 4);
	CU_ASSERT_EQUAL(sizeof(c), 1);
	CU_ASSERT_EQUAL(sizeof(ULONG_PTR), sizeof(void *));
	CU_ASSERT_EQUAL(sizeof(LONG_PTR), sizeof(void *));
	CU_ASSERT_EQUAL(sizeof(SIZE_T), sizeof(size_t));
	CU_ASSERT_EQUAL(sizeof(HANDLE), sizeof(void *));
	CU_ASSERT_EQUAL(sizeof(BOOL), sizeof(int));
	CU_ASSERT_EQUAL(sizeof(LARGE_INTEGER), 8);
	/* signedness */
	u64 = (unsigned __int64)-1;
	CU_ASSERT_EQUAL(u64, UINT64_MAX);
	CU_ASSERT_TRUE((LONG)-1 < 0);
	CU_ASSERT_TRUE((ULONG)-1 > 0);
	CU_ASSERT_TRUE((DWORD)-1 == 0xFFFFFFFFu);
	CU_ASSERT_TRUE(i32 < 0);
}

static void test_constants(void)
{
	int arr[7];
	char str[] = "abc";
	LARGE_INTEGER li;

	CU_ASSERT_EQUAL(TRUE, 1);
	CU_ASSERT_EQUAL(FALSE, 0);
	CU_ASSERT_EQUAL(INFINITE, 0xFFFFFFFFu);
	CU_ASSERT_PTR_NOT_NULL(INVALID_HANDLE_VALUE);
	CU_ASSERT_EQUAL((intptr_t)INVALID_HANDLE_VALUE, -1);
	CU_ASSERT_EQUAL(_countof(arr), 7);
	CU_ASSERT_EQUAL(_countof(str), 4);
	CU_ASSERT_EQUAL(_TRUNCATE, (size_t)-1);
	CU_ASSERT_EQUAL(MAX_PATH, 260);

	li.QuadPart = 0x0000000100000002LL;
	CU_ASSERT_EQUAL(li.u.LowPart, 2);
	CU_ASSERT_EQUAL(li.u.HighPart, 1);
	li.QuadPart = -2;
	CU_ASSERT_EQUAL(li.u.LowPart, 0xFFFFFFFEu);
	CU_ASSERT_EQUAL(li.u.HighPart, -1);
}

/* Calling conventions and annotations compile away. */
typedef int(WINAPI *pfn_t)(int);

static int __cdecl cdecl_fn(int x)
{
	return x + 1;
}

static int WINAPI winapi_fn(int x)
{
	return x * 2;
}

static int __stdcall CALLBACK stdcall_fn(int x, int unused)
{
	UNREFERENCED_PARAMETER(unused);
	return x - 1;
}

static __forceinline int forced(int x)
{
	return x * x;
}

static VOID void_fn(VOID)
{
}

static void test_calling_conventions(void)
{
	pfn_t p = winapi_fn;

	void_fn();
	CU_ASSERT_EQUAL(cdecl_fn(1), 2);
	CU_ASSERT_EQUAL(p(3), 6);
	CU_ASSERT_EQUAL(stdcall_fn(5, 0), 4);
	CU_ASSERT_EQUAL(forced(4), 16);
}

/* --- time ---------------------------------------------------------------- */

static void test_sleep_waits_at_least(void)
{
	static const DWORD ms[] = { 1, 20, 120 };
	size_t i;

	for (i = 0; i < _countof(ms); i++) {
		uint64_t t0 = now_ns(), dt;

		Sleep(ms[i]);
		dt = now_ns() - t0;
		CU_ASSERT(dt >= (uint64_t)ms[i] * 1000000u);
		CU_ASSERT(dt < ((uint64_t)ms[i] + SLACK_MS) * 1000000u);
	}
}

static void test_sleep_zero_yields(void)
{
	uint64_t t0 = now_ns();
	int i;

	for (i = 0; i < 100; i++)
		Sleep(0);
	CU_ASSERT(now_ns() - t0 < (uint64_t)SLACK_MS * 1000000u);
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* Signals interrupt nanosleep; Sleep() resumes and keeps errno. */
static void test_sleep_resumes_after_signals(void)
{
	struct sigaction sa, old;
	struct itimerval it, off;
	uint64_t t0, dt;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART: nanosleep returns EINTR */
	sigemptyset(&sa.sa_mask);
	CU_ASSERT_EQUAL_FATAL(sigaction(SIGALRM, &sa, &old), 0);
	memset(&it, 0, sizeof(it));
	it.it_value.tv_usec = 10000;
	it.it_interval.tv_usec = 10000;
	memset(&off, 0, sizeof(off));
	alarms = 0;
	errno = 1234;
	t0 = now_ns();
	CU_ASSERT_EQUAL_FATAL(setitimer(ITIMER_REAL, &it, NULL), 0);
	errno = 1234;
	Sleep(150);
	dt = now_ns() - t0;
	CU_ASSERT_EQUAL(errno, 1234);
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	CU_ASSERT(alarms > 0);
	CU_ASSERT(dt >= 150u * 1000000u);
	CU_ASSERT(dt < (150u + SLACK_MS) * 1000000u);
}

static void test_tick_count(void)
{
	DWORD t1, t2, prev;
	ULONGLONG t64;
	int i;

	t64 = GetTickCount64();
	t1 = GetTickCount();
	CU_ASSERT((DWORD)(t1 - (DWORD)t64) < SLACK_MS);
	prev = t1;
	for (i = 0; i < 1000; i++) {
		DWORD t = GetTickCount();

		CU_ASSERT((int32_t)(t - prev) >= 0);
		prev = t;
	}
	Sleep(30);
	t2 = GetTickCount();
	CU_ASSERT((DWORD)(t2 - t1) >= 30);
	CU_ASSERT((DWORD)(t2 - t1) < 30 + SLACK_MS);
	CU_ASSERT(GetTickCount64() >= t64 + 30);
}

static void test_performance_counter(void)
{
	LARGE_INTEGER f, c1, c2;

	CU_ASSERT_TRUE(QueryPerformanceFrequency(&f));
	CU_ASSERT_EQUAL(f.QuadPart, 1000000000LL);
	CU_ASSERT_TRUE(QueryPerformanceCounter(&c1));
	Sleep(5);
	CU_ASSERT_TRUE(QueryPerformanceCounter(&c2));
	CU_ASSERT(c2.QuadPart - c1.QuadPart >= 5 * f.QuadPart / 1000);
	CU_ASSERT_FALSE(QueryPerformanceCounter(NULL));
	CU_ASSERT_FALSE(QueryPerformanceFrequency(NULL));
}

/* --- string comparison ---------------------------------------------------- */

static void test_stricmp(void)
{
	CU_ASSERT_EQUAL(_stricmp("HeLLo", "hello"), 0);
	CU_ASSERT_EQUAL(_stricmp("", ""), 0);
	CU_ASSERT(_stricmp("abc", "ABD") < 0);
	CU_ASSERT(_stricmp("ABD", "abc") > 0);
	CU_ASSERT(_stricmp("ab", "AbC") < 0);
	CU_ASSERT(_stricmp("abc", "AB") > 0);
	/* letters compare as lower case, as in Microsoft's C library: '_' (0x5F)
	 * and '[' (0x5B) sort before 'a' (0x61), though after 'A' (0x41) */
	CU_ASSERT(_stricmp("_", "A") < 0);
	CU_ASSERT(_stricmp("[", "a") < 0);
	CU_ASSERT_EQUAL(stricmp("X", "x"), 0);
	CU_ASSERT_EQUAL(_strcmpi("Yes", "yES"), 0);
	errno = 0;
	CU_ASSERT_EQUAL(_stricmp(NULL, "a"), _NLSCMPERROR);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(_stricmp("a", NULL), _NLSCMPERROR);
	CU_ASSERT_EQUAL(errno, EINVAL);
}

static void test_strnicmp(void)
{
	CU_ASSERT_EQUAL(_strnicmp("ABCdef", "abcXYZ", 3), 0);
	CU_ASSERT(_strnicmp("ABCdef", "abcXYZ", 4) < 0);
	CU_ASSERT_EQUAL(_strnicmp("a", "b", 0), 0);
	CU_ASSERT_EQUAL(_strnicmp("ab", "AB", 100), 0);
	CU_ASSERT(_strnicmp("ab", "ABC", 100) < 0);
	CU_ASSERT_EQUAL(strnicmp("Port1", "PORT2", 4), 0);
	errno = 0;
	CU_ASSERT_EQUAL(_strnicmp(NULL, NULL, 1), _NLSCMPERROR);
	CU_ASSERT_EQUAL(errno, EINVAL);
}

static void test_lstr(void)
{
	CU_ASSERT_EQUAL(lstrcmpi("ibal", "IBAL"), 0);
	CU_ASSERT(lstrcmpi("a", "B") < 0);
	CU_ASSERT_EQUAL(lstrcmpi(NULL, NULL), 0);
	CU_ASSERT(lstrcmpi(NULL, "") < 0);
	CU_ASSERT(lstrcmpi("", NULL) > 0);
	CU_ASSERT(lstrcmp("a", "B") > 0); /* case-sensitive: 'a' > 'B' */
	CU_ASSERT_EQUAL(lstrcmp("x", "x"), 0);
	CU_ASSERT(lstrcmp(NULL, "x") < 0);
	CU_ASSERT_EQUAL(lstrlen("four"), 4);
	CU_ASSERT_EQUAL(lstrlen(NULL), 0);
}

static void test_strdup(void)
{
	const char *s = "duplicate me";
	char *d = _strdup(s);

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_PTR_NOT_EQUAL(d, s);
	CU_ASSERT_STRING_EQUAL(d, s);
	free(d);
	d = _strdup("");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d[0], '\0');
	free(d);
	CU_ASSERT_PTR_NULL(_strdup(NULL));
}

static void test_strtok_s(void)
{
	char a[] = ";;guid:0x8001,0x8002;;last;";
	char b[] = "x y";
	char *ca = NULL, *cb = NULL, *t;

	t = strtok_s(a, ";:,", &ca);
	CU_ASSERT_STRING_EQUAL(t, "guid");
	/* a second tokenizer in between does not disturb the first */
	CU_ASSERT_STRING_EQUAL(strtok_s(b, " ", &cb), "x");
	CU_ASSERT_STRING_EQUAL(strtok_s(NULL, ";:,", &ca), "0x8001");
	CU_ASSERT_STRING_EQUAL(strtok_s(NULL, " ", &cb), "y");
	CU_ASSERT_PTR_NULL(strtok_s(NULL, " ", &cb));
	CU_ASSERT_STRING_EQUAL(strtok_s(NULL, ";:,", &ca), "0x8002");
	CU_ASSERT_STRING_EQUAL(strtok_s(NULL, ";:,", &ca), "last");
	CU_ASSERT_PTR_NULL(strtok_s(NULL, ";:,", &ca));
	CU_ASSERT_PTR_NULL(strtok_s(NULL, ";:,", &ca)); /* stays at the end */

	ca = NULL;
	CU_ASSERT_PTR_NULL(strtok_s(NULL, ";", &ca)); /* nothing started */
	errno = 0;
	CU_ASSERT_PTR_NULL(strtok_s(a, NULL, &ca));
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_PTR_NULL(strtok_s(a, ";", NULL));
	CU_ASSERT_EQUAL(errno, EINVAL);
}

static void test_strtoi64(void)
{
	char *end;

	CU_ASSERT_EQUAL(_strtoui64("0xFFFFFFFFFFFFFFFF", NULL, 16), UINT64_MAX);
	CU_ASSERT_EQUAL(_strtoui64("0x0002c903000a1234z", &end, 0), 0x0002c903000a1234ULL);
	CU_ASSERT_EQUAL(*end, 'z');
	CU_ASSERT_EQUAL(_strtoi64("-9223372036854775808", NULL, 10), INT64_MIN);
	CU_ASSERT_EQUAL(_atoi64("12345678901"), 12345678901LL);
}

/* --- bounded copies --------------------------------------------------------- */

#define GUARD 'G'

/* A 16-byte buffer whose declared size is @p size; the rest is a guard. */
static void guard_fill(char buf[16])
{
	memset(buf, GUARD, 16);
}

static int guard_intact(const char buf[16], size_t from)
{
	size_t i;

	for (i = from; i < 16; i++)
		if (buf[i] != GUARD)
			return 0;
	return 1;
}

static void test_strcpy_s(void)
{
	char buf[16];

	guard_fill(buf);
	CU_ASSERT_EQUAL(strcpy_s(buf, 8, "1234567"), 0); /* exact fit */
	CU_ASSERT_STRING_EQUAL(buf, "1234567");
	CU_ASSERT(guard_intact(buf, 8));

	guard_fill(buf);
	CU_ASSERT_EQUAL(strcpy_s(buf, 8, "12345678"), ERANGE); /* no truncation */
	CU_ASSERT_EQUAL(buf[0], '\0');
	CU_ASSERT(guard_intact(buf, 8));

	guard_fill(buf);
	CU_ASSERT_EQUAL(strcpy_s(buf, 0, "x"), ERANGE);
	CU_ASSERT_EQUAL(buf[0], GUARD); /* size 0: nothing written */
	CU_ASSERT_EQUAL(strcpy_s(NULL, 8, "x"), EINVAL);
	CU_ASSERT_EQUAL(strcpy_s(buf, 8, NULL), EINVAL);
	CU_ASSERT_EQUAL(buf[0], '\0');
	CU_ASSERT_EQUAL(strcpy_s(buf, 8, ""), 0);
	CU_ASSERT_STRING_EQUAL(buf, "");
}

static void test_strncpy_s(void)
{
	char buf[16];

	guard_fill(buf);
	CU_ASSERT_EQUAL(strncpy_s(buf, 8, "abcdefghij", 3), 0);
	CU_ASSERT_STRING_EQUAL(buf, "abc");
	CU_ASSERT(guard_intact(buf, 8));

	guard_fill(buf);
	CU_ASSERT_EQUAL(strncpy_s(buf, 8, "abc", 10), 0); /* count beyond the string */
	CU_ASSERT_STRING_EQUAL(buf, "abc");

	guard_fill(buf);
	CU_ASSERT_EQUAL(strncpy_s(buf, 8, "abcdefghij", 8), ERANGE);
	CU_ASSERT_EQUAL(buf[0], '\0');
	CU_ASSERT(guard_intact(buf, 8));

	guard_fill(buf);
	CU_ASSERT_EQUAL(strncpy_s(buf, 8, "abcdefghij", _TRUNCATE), STRUNCATE);
	CU_ASSERT_STRING_EQUAL(buf, "abcdefg");
	CU_ASSERT(guard_intact(buf, 8));

	guard_fill(buf);
	CU_ASSERT_EQUAL(strncpy_s(buf, 8, "abcdefg", _TRUNCATE), 0); /* fits exactly */
	CU_ASSERT_STRING_EQUAL(buf, "abcdefg");

	guard_fill(buf);
	CU_ASSERT_EQUAL(strncpy_s(buf, 8, NULL, 0), 0);
	CU_ASSERT_EQUAL(buf[0], '\0');
	CU_ASSERT_EQUAL(strncpy_s(buf, 8, NULL, 1), EINVAL);
	CU_ASSERT_EQUAL(strncpy_s(NULL, 8, "a", 1), EINVAL);
	guard_fill(buf);
	CU_ASSERT_EQUAL(strncpy_s(buf, 0, "a", 1), ERANGE);
	CU_ASSERT_EQUAL(buf[0], GUARD);
}

static void test_strcat_s(void)
{
	char buf[16];

	guard_fill(buf);
	CU_ASSERT_EQUAL(strcpy_s(buf, 8, "abc"), 0);
	CU_ASSERT_EQUAL(strcat_s(buf, 8, "defg"), 0); /* exact fit */
	CU_ASSERT_STRING_EQUAL(buf, "abcdefg");
	CU_ASSERT(guard_intact(buf, 8));
	CU_ASSERT_EQUAL(strcat_s(buf, 8, "h"), ERANGE);
	CU_ASSERT_EQUAL(buf[0], '\0');
	CU_ASSERT(guard_intact(buf, 8));

	guard_fill(buf); /* no NUL within the size */
	CU_ASSERT_EQUAL(strcat_s(buf, 8, "x"), EINVAL);
	CU_ASSERT_EQUAL(buf[0], '\0');
	CU_ASSERT(guard_intact(buf, 8));
	CU_ASSERT_EQUAL(strcat_s(NULL, 8, "x"), EINVAL);
	CU_ASSERT_EQUAL(strcat_s(buf, 8, NULL), EINVAL);
	CU_ASSERT_EQUAL(strcat_s(buf, 0, "x"), ERANGE);
}

/* --- formatted output ------------------------------------------------------- */

static void test_sprintf_s(void)
{
	char buf[16];

	guard_fill(buf);
	CU_ASSERT_EQUAL(sprintf_s(buf, 8, "%d-%s", 42, "ab"), 5);
	CU_ASSERT_STRING_EQUAL(buf, "42-ab");
	CU_ASSERT(guard_intact(buf, 8));

	guard_fill(buf);
	CU_ASSERT_EQUAL(sprintf_s(buf, 8, "%s", "1234567"), 7); /* exact fit */
	CU_ASSERT_STRING_EQUAL(buf, "1234567");

	guard_fill(buf);
	errno = 0;
	CU_ASSERT_EQUAL(sprintf_s(buf, 8, "%s", "12345678"), -1);
	CU_ASSERT_EQUAL(errno, ERANGE);
	CU_ASSERT_EQUAL(buf[0], '\0');
	CU_ASSERT(guard_intact(buf, 8));

	errno = 0;
	CU_ASSERT_EQUAL(sprintf_s(NULL, 8, "x"), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	guard_fill(buf);
	CU_ASSERT_EQUAL(sprintf_s(buf, 0, "x"), -1);
	CU_ASSERT_EQUAL(buf[0], GUARD);
	CU_ASSERT_EQUAL(sprintf_s(buf, 8, "%" PRIx64, (uint64_t)0xABCDEFULL), 6);
	CU_ASSERT_STRING_EQUAL(buf, "abcdef");
}

static void test_snprintf(void)
{
	char buf[16];

	guard_fill(buf);
	CU_ASSERT_EQUAL(_snprintf(buf, 8, "%s", "abc"), 3);
	CU_ASSERT_STRING_EQUAL(buf, "abc");
	CU_ASSERT(guard_intact(buf, 8));

	/* exactly count characters: stored without a NUL, length returned */
	guard_fill(buf);
	CU_ASSERT_EQUAL(_snprintf(buf, 8, "%s", "abcdefgh"), 8);
	CU_ASSERT(memcmp(buf, "abcdefgh", 8) == 0);
	CU_ASSERT(guard_intact(buf, 8));

	/* longer: cut to count characters, no NUL, -1 */
	guard_fill(buf);
	CU_ASSERT_EQUAL(_snprintf(buf, 8, "%d%s", 123, "456789"), -1);
	CU_ASSERT(memcmp(buf, "12345678", 8) == 0);
	CU_ASSERT(guard_intact(buf, 8));

	guard_fill(buf);
	CU_ASSERT_EQUAL(_snprintf(buf, 0, "%s", ""), 0);
	CU_ASSERT_EQUAL(_snprintf(buf, 0, "%s", "a"), -1);
	CU_ASSERT_EQUAL(buf[0], GUARD);
	CU_ASSERT_EQUAL(_snprintf(NULL, 8, "x"), -1);
}

static void test_snprintf_s(void)
{
	char buf[16];

	guard_fill(buf);
	CU_ASSERT_EQUAL(_snprintf_s(buf, 8, _TRUNCATE, "%s", "abc"), 3);
	CU_ASSERT_STRING_EQUAL(buf, "abc");

	guard_fill(buf);
	CU_ASSERT_EQUAL(_snprintf_s(buf, 8, _TRUNCATE, "%s", "abcdefghij"), -1);
	CU_ASSERT_STRING_EQUAL(buf, "abcdefg");
	CU_ASSERT(guard_intact(buf, 8));

	guard_fill(buf); /* count cuts the text, the buffer is big enough */
	CU_ASSERT_EQUAL(_snprintf_s(buf, 8, 3, "%s", "abcdef"), -1);
	CU_ASSERT_STRING_EQUAL(buf, "abc");

	guard_fill(buf); /* count characters plus NUL do not fit */
	errno = 0;
	CU_ASSERT_EQUAL(_snprintf_s(buf, 8, 8, "%s", "abcdefghij"), -1);
	CU_ASSERT_EQUAL(errno, ERANGE);
	CU_ASSERT_EQUAL(buf[0], '\0');
	CU_ASSERT(guard_intact(buf, 8));

	guard_fill(buf);
	CU_ASSERT_EQUAL(_snprintf_s(buf, 8, 7, "%s", "abcdefg"), 7);
	CU_ASSERT_STRING_EQUAL(buf, "abcdefg");

	errno = 0;
	CU_ASSERT_EQUAL(_snprintf_s(NULL, 8, 1, "x"), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	guard_fill(buf);
	CU_ASSERT_EQUAL(_snprintf_s(buf, 0, 1, "x"), -1);
	CU_ASSERT_EQUAL(buf[0], GUARD);
}

/* --- byte swaps and memory -------------------------------------------------- */

static void test_byteswap(void)
{
	CU_ASSERT_EQUAL(_byteswap_ushort(0x1234), 0x3412);
	CU_ASSERT_EQUAL(_byteswap_ulong(0x12345678u), 0x78563412u);
	CU_ASSERT_EQUAL(_byteswap_uint64(0x0102030405060708ULL), 0x0807060504030201ULL);
	/* agree with complib on this host */
	CU_ASSERT_EQUAL(_byteswap_ulong(0xA1B2C3D4u) == cl_hton32(0xA1B2C3D4u),
			cl_hton32(1) != 1);
}

static void test_memory_macros(void)
{
	unsigned char a[8], b[8];

	FillMemory(a, sizeof(a), 0x5A); /* Windows order: length, then fill byte */
	CU_ASSERT_EQUAL(a[0], 0x5A);
	CU_ASSERT_EQUAL(a[7], 0x5A);
	ZeroMemory(a, 4);
	CU_ASSERT_EQUAL(a[3], 0);
	CU_ASSERT_EQUAL(a[4], 0x5A);
	RtlZeroMemory(a, sizeof(a));
	CU_ASSERT_EQUAL(a[7], 0);
	memcpy(b, "01234567", 8);
	CopyMemory(a, b, 8);
	CU_ASSERT_TRUE(RtlEqualMemory(a, b, 8));
	CU_ASSERT_TRUE(EqualMemory(a, b, 8));
	MoveMemory(a + 1, a, 7); /* overlapping */
	CU_ASSERT(memcmp(a, "00123456", 8) == 0);
	RtlMoveMemory(a, a + 1, 7);
	CU_ASSERT(memcmp(a, "01234566", 8) == 0);
	RtlCopyMemory(b, a, 2);
	RtlFillMemory(b + 2, 6, '-');
	CU_ASSERT(memcmp(b, "01------", 8) == 0);
	CU_ASSERT_FALSE(RtlEqualMemory(a, b, 8));
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_type_sizes),
	TEST_ENTRY(test_constants),
	TEST_ENTRY(test_calling_conventions),
	TEST_ENTRY(test_sleep_waits_at_least),
	TEST_ENTRY(test_sleep_zero_yields),
	TEST_ENTRY(test_sleep_resumes_after_signals),
	TEST_ENTRY(test_tick_count),
	TEST_ENTRY(test_performance_counter),
	TEST_ENTRY(test_stricmp),
	TEST_ENTRY(test_strnicmp),
	TEST_ENTRY(test_lstr),
	TEST_ENTRY(test_strdup),
	TEST_ENTRY(test_strtok_s),
	TEST_ENTRY(test_strtoi64),
	TEST_ENTRY(test_strcpy_s),
	TEST_ENTRY(test_strncpy_s),
	TEST_ENTRY(test_strcat_s),
	TEST_ENTRY(test_sprintf_s),
	TEST_ENTRY(test_snprintf),
	TEST_ENTRY(test_snprintf_s),
	TEST_ENTRY(test_byteswap),
	TEST_ENTRY(test_memory_macros),
};

TEST_MAIN("ibal_win32.h", tests)
