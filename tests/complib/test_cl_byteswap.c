/*
 * ibal tests: cl_byteswap.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_byteswap.h>
#include "../common/cl_test.h"

/* The macros must be constant expressions. */
static const uint16_t k16 = CL_HTON16(0x1234);
static const uint32_t k32 = CL_HTON32(0x12345678);
static const uint64_t k64 = CL_HTON64(CL_CONST64(0x0102030405060708));
enum { K_ENUM = CL_NTOH16(0x0100) };
typedef char k_array_t[CL_NTOH32(CL_HTON32(3))];

/* Byte i of v as it lies in memory. */
static uint8_t byte_at(const void *v, int i)
{
	return ((const uint8_t *)v)[i];
}

static void test_cpu_order(void)
{
	uint16_t one = 1;

	CU_ASSERT_EQUAL(CPU_LE + CPU_BE, 1);
	CU_ASSERT_EQUAL(CPU_LE, byte_at(&one, 0) == 1);
}

static void test_functions_give_network_order(void)
{
	uint16_t v16 = cl_hton16(0x1234);
	uint32_t v32 = cl_hton32(0x12345678);
	uint64_t v64 = cl_hton64(CL_CONST64(0x0102030405060708));
	int i;

	CU_ASSERT_EQUAL(byte_at(&v16, 0), 0x12);
	CU_ASSERT_EQUAL(byte_at(&v16, 1), 0x34);
	CU_ASSERT_EQUAL(byte_at(&v32, 0), 0x12);
	CU_ASSERT_EQUAL(byte_at(&v32, 3), 0x78);
	for (i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(byte_at(&v64, i), i + 1);
	CU_ASSERT_EQUAL(cl_ntoh16(v16), 0x1234);
	CU_ASSERT_EQUAL(cl_ntoh32(v32), 0x12345678u);
	CU_ASSERT_EQUAL(cl_ntoh64(v64), CL_CONST64(0x0102030405060708));
}

static void test_macros_match_functions(void)
{
	uint64_t x = CL_CONST64(0x8899AABBCCDDEEFF);
	int i;

	CU_ASSERT_EQUAL(k16, cl_hton16(0x1234));
	CU_ASSERT_EQUAL(k32, cl_hton32(0x12345678));
	CU_ASSERT_EQUAL(k64, cl_hton64(CL_CONST64(0x0102030405060708)));
	CU_ASSERT_EQUAL(K_ENUM, cl_ntoh16(0x0100));
	CU_ASSERT_EQUAL(sizeof(k_array_t), 3);
	for (i = 0; i < 64; i++, x = x * CL_CONST64(6364136223846793005) + 1442695040888963407ULL) {
		CU_ASSERT_EQUAL(CL_NTOH16((uint16_t)x), cl_ntoh16((uint16_t)x));
		CU_ASSERT_EQUAL(CL_HTON16((uint16_t)x), cl_hton16((uint16_t)x));
		CU_ASSERT_EQUAL(CL_NTOH32((uint32_t)x), cl_ntoh32((uint32_t)x));
		CU_ASSERT_EQUAL(CL_HTON32((uint32_t)x), cl_hton32((uint32_t)x));
		CU_ASSERT_EQUAL(CL_NTOH64(x), cl_ntoh64(x));
		CU_ASSERT_EQUAL(CL_HTON64(x), cl_hton64(x));
		CU_ASSERT_EQUAL(cl_ntoh64(cl_hton64(x)), x);
		CU_ASSERT_EQUAL(cl_ntoh32(cl_hton32((uint32_t)x)), (uint32_t)x);
	}
}

static void test_macro_truncates_wide_argument(void)
{
	/* Only the low 16/32 bits take part, as with the functions. */
	CU_ASSERT_EQUAL(CL_HTON16(0xABCD1234u), cl_hton16(0x1234));
	CU_ASSERT_EQUAL(CL_HTON32(CL_CONST64(0xFFFFFFFF12345678)), cl_hton32(0x12345678));
}

static void test_switch_case_labels(void)
{
	uint16_t wire = cl_hton16(0x0002);
	int hit = 0;

	switch (wire) {
	case CL_HTON16(0x0001):
		hit = 1;
		break;
	case CL_HTON16(0x0002):
		hit = 2;
		break;
	default:
		break;
	}
	CU_ASSERT_EQUAL(hit, 2);
}

static void test_ntoh_buffer(void)
{
	char src[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	char dst[9];
	char odd[5] = { 1, 2, 3, 4, 5 };
	char even[4] = { 1, 2, 3, 4 };
	char one[1] = { 7 };
	uint32_t wire = cl_hton32(0xA1B2C3D4), host;
	int i;

	memset(dst, 0, sizeof(dst));
	cl_ntoh(dst, src, 9);
	for (i = 0; i < 9; i++)
		CU_ASSERT_EQUAL(dst[i], CPU_LE ? 9 - i : i + 1);
	cl_ntoh(odd, odd, 5);	/* in place, odd size: the middle stays */
	for (i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(odd[i], CPU_LE ? 5 - i : i + 1);
	cl_ntoh(even, even, 4);
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(even[i], CPU_LE ? 4 - i : i + 1);
	cl_ntoh(one, one, 1);
	CU_ASSERT_EQUAL(one[0], 7);
	cl_ntoh(dst, src, 0);	/* nothing happens */
	CU_ASSERT_EQUAL(dst[0], CPU_LE ? 9 : 1);
	cl_ntoh((char *)&host, (const char *)&wire, sizeof(host));
	CU_ASSERT_EQUAL(host, 0xA1B2C3D4u);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_cpu_order),
	TEST_ENTRY(test_functions_give_network_order),
	TEST_ENTRY(test_macros_match_functions),
	TEST_ENTRY(test_macro_truncates_wide_argument),
	TEST_ENTRY(test_switch_case_labels),
	TEST_ENTRY(test_ntoh_buffer),
};

TEST_MAIN("cl_byteswap", tests)
