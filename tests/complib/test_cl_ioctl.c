/*
 * ibal tests: cl_ioctl (cl_ioctl_request on real file descriptors).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#define _GNU_SOURCE
#include <complib/cl_ioctl.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sys/socket.h>
#include <unistd.h>
#include "../common/cl_test.h"

static int fds[2];

static void open_pipe(void)
{
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
}

static void close_pipe(void)
{
	close(fds[0]);
	close(fds[1]);
}

static void test_fionread_on_pipe(void)
{
	void *h;
	size_t ret = 99;
	int n = -1;

	open_pipe();
	h = cl_ioctl_handle_from_fd(fds[0]);
	CU_ASSERT_EQUAL(cl_ioctl_fd_from_handle(h), fds[0]);
	CU_ASSERT_EQUAL(cl_ioctl_request(h, FIONREAD, NULL, 0, &n, sizeof(n), &ret, NULL),
			CL_SUCCESS);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_EQUAL(ret, sizeof(n));
	CU_ASSERT_EQUAL(write(fds[1], "hello", 5), 5);
	CU_ASSERT_EQUAL(cl_ioctl_request(h, FIONREAD, NULL, 0, &n, sizeof(n), &ret, NULL),
			CL_SUCCESS);
	CU_ASSERT_EQUAL(n, 5);
	CU_ASSERT_EQUAL(ret, sizeof(n));
	/* p_ret_bytes is optional. */
	n = -1;
	CU_ASSERT_EQUAL(cl_ioctl_request(h, FIONREAD, NULL, 0, &n, sizeof(n), NULL, NULL),
			CL_SUCCESS);
	CU_ASSERT_EQUAL(n, 5);
	close_pipe();
}

static void test_input_only(void)
{
	void *h;
	size_t ret = 99;
	int on = 1, off = 0;

	open_pipe();
	h = cl_ioctl_handle_from_fd(fds[0]);
	CU_ASSERT_FALSE(fcntl(fds[0], F_GETFL) & O_NONBLOCK);
	CU_ASSERT_EQUAL(cl_ioctl_request(h, FIONBIO, &on, sizeof(on), NULL, 0, &ret, NULL),
			CL_SUCCESS);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_TRUE(fcntl(fds[0], F_GETFL) & O_NONBLOCK);
	CU_ASSERT_EQUAL(cl_ioctl_request(h, FIONBIO, &off, sizeof(off), NULL, 0, NULL, NULL),
			CL_SUCCESS);
	CU_ASSERT_FALSE(fcntl(fds[0], F_GETFL) & O_NONBLOCK);
	close_pipe();
}

static void test_in_and_out_buffers(void)
{
	struct ifreq in, out;
	unsigned idx = if_nametoindex("lo");
	size_t ret = 0;
	void *h;
	int s;

	CU_ASSERT_NOT_EQUAL_FATAL(idx, 0);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	CU_ASSERT_TRUE_FATAL(s >= 0);
	h = cl_ioctl_handle_from_fd(s);
	/* Distinct buffers: the input reaches the device, the result the output. */
	memset(&in, 0, sizeof(in));
	memset(&out, 0xA5, sizeof(out));
	snprintf(in.ifr_name, sizeof(in.ifr_name), "lo");
	CU_ASSERT_EQUAL(cl_ioctl_request(h, SIOCGIFINDEX, &in, sizeof(in), &out, sizeof(out),
					 &ret, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(ret, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out.ifr_name, "lo");
	CU_ASSERT_EQUAL((unsigned)out.ifr_ifindex, idx);
	CU_ASSERT_EQUAL(in.ifr_ifindex, 0); /* the input buffer is not written */
	/* A shorter output gets only its first bytes. */
	memset(&out, 0xA5, sizeof(out));
	CU_ASSERT_EQUAL(cl_ioctl_request(h, SIOCGIFINDEX, &in, sizeof(in), &out, 4, &ret, NULL),
			CL_SUCCESS);
	CU_ASSERT_EQUAL(ret, 4);
	CU_ASSERT_EQUAL(memcmp(out.ifr_name, "lo\0\0", 4), 0);
	CU_ASSERT_EQUAL((uint8_t)out.ifr_name[4], 0xA5);
	/* The same buffer for both. */
	memset(&in, 0, sizeof(in));
	snprintf(in.ifr_name, sizeof(in.ifr_name), "lo");
	CU_ASSERT_EQUAL(cl_ioctl_request(h, SIOCGIFINDEX, &in, sizeof(in), &in, sizeof(in),
					 &ret, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL((unsigned)in.ifr_ifindex, idx);
	/* A device error comes back as a status. */
	snprintf(in.ifr_name, sizeof(in.ifr_name), "nosuchif0");
	CU_ASSERT_EQUAL(cl_ioctl_request(h, SIOCGIFINDEX, &in, sizeof(in), &out, sizeof(out),
					 &ret, NULL), CL_UNAVAILABLE);
	CU_ASSERT_EQUAL(errno, ENODEV);
	CU_ASSERT_EQUAL(ret, 0);
	close(s);
}

static void test_bad_handles(void)
{
	size_t ret = 99;
	int n = 0, closed_fd;

	open_pipe();
	closed_fd = fds[0];
	close_pipe();
	CU_ASSERT_EQUAL(cl_ioctl_request(cl_ioctl_handle_from_fd(closed_fd), FIONREAD, NULL, 0,
					 &n, sizeof(n), &ret, NULL), CL_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(errno, EBADF);
	CU_ASSERT_EQUAL(ret, 0);
	/* Handles that cannot be file descriptors are refused without a call. */
	ret = 99;
	CU_ASSERT_EQUAL(cl_ioctl_request((void *)(intptr_t)-1, FIONREAD, NULL, 0, &n, sizeof(n),
					 &ret, NULL), CL_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_EQUAL(cl_ioctl_fd_from_handle((void *)(intptr_t)-1), -1);
	CU_ASSERT_EQUAL(cl_ioctl_request((void *)(intptr_t)0x100000000ll, FIONREAD, NULL, 0, &n,
					 sizeof(n), NULL, NULL), CL_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(cl_ioctl_fd_from_handle((void *)(intptr_t)0x100000000ll), -1);
}

static void test_unknown_request(void)
{
	struct winsize ws;
	size_t ret = 99;

	open_pipe();
	/* A pipe is not a terminal. */
	CU_ASSERT_EQUAL(cl_ioctl_request(cl_ioctl_handle_from_fd(fds[0]), TIOCGWINSZ, NULL, 0,
					 &ws, sizeof(ws), &ret, NULL), CL_INVALID_REQUEST);
	CU_ASSERT_EQUAL(errno, ENOTTY);
	CU_ASSERT_EQUAL(ret, 0);
	/* A code made by IOCTL_CODE that the pipe does not know. */
	CU_ASSERT_EQUAL(cl_ioctl_request(cl_ioctl_handle_from_fd(fds[0]), IOCTL_CODE(0x3B, 1),
					 NULL, 0, NULL, 0, NULL, NULL), CL_INVALID_REQUEST);
	close_pipe();
}

static void test_invalid_buffers(void)
{
	int n = 0;
	size_t ret = 99;

	open_pipe();
	CU_ASSERT_EQUAL(cl_ioctl_request(cl_ioctl_handle_from_fd(fds[0]), FIONREAD, NULL, 0,
					 NULL, sizeof(n), &ret, NULL), CL_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_EQUAL(cl_ioctl_request(cl_ioctl_handle_from_fd(fds[0]), FIONBIO, NULL,
					 sizeof(int), NULL, 0, NULL, NULL), CL_INVALID_PARAMETER);
	CU_ASSERT_FALSE(fcntl(fds[0], F_GETFL) & O_NONBLOCK);
	close_pipe();
}

static void test_async_unsupported(void)
{
	char overlapped[32];
	size_t ret = 99;
	int on = 1;

	open_pipe();
	/* Nothing is sent: the descriptor stays blocking. */
	CU_ASSERT_EQUAL(cl_ioctl_request(cl_ioctl_handle_from_fd(fds[0]), FIONBIO, &on,
					 sizeof(on), NULL, 0, &ret, overlapped),
			CL_INVALID_OPERATION);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_FALSE(fcntl(fds[0], F_GETFL) & O_NONBLOCK);
	ret = 99;
	CU_ASSERT_EQUAL(cl_ioctl_result(cl_ioctl_handle_from_fd(fds[0]), overlapped, &ret, TRUE),
			CL_INVALID_OPERATION);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_EQUAL(cl_ioctl_result(cl_ioctl_handle_from_fd(fds[0]), NULL, NULL, FALSE),
			CL_INVALID_OPERATION);
	close_pipe();
}

static void test_ioctl_code(void)
{
	uint32_t c = IOCTL_CODE(0x3B, 5);

	CU_ASSERT_EQUAL(c, (uint32_t)_IOC(_IOC_READ | _IOC_WRITE, 0x3B, 5, 0));
	CU_ASSERT_EQUAL(_IOC_TYPE(c), 0x3B);
	CU_ASSERT_EQUAL(_IOC_NR(c), 5);
	CU_ASSERT_EQUAL(_IOC_SIZE(c), 0);
	CU_ASSERT_EQUAL(_IOC_DIR(c), _IOC_READ | _IOC_WRITE);
	/* Truncated to 8 bits each. */
	CU_ASSERT_EQUAL(IOCTL_CODE(0x13B, 0x105), c);
	/* Range checks of upstream work: codes grow with the command. */
	CU_ASSERT_TRUE(IOCTL_CODE(0x3B, 4) < c && c < IOCTL_CODE(0x3B, 6));
	CU_ASSERT_TRUE(IOCTL_CODE(0x3B, 0) < IOCTL_CODE(0x3B, 0xFF));
	CU_ASSERT_NOT_EQUAL(IOCTL_CODE(0x3C, 5), c);
}

static void test_by_value_argument(void)
{
	/* Both sizes 0: the pointer is passed unchanged (also how a by-value
	 * argument travels, cast to a pointer). */
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	int n = -1;

	CU_ASSERT_TRUE_FATAL(s >= 0);
	CU_ASSERT_EQUAL(cl_ioctl_request(cl_ioctl_handle_from_fd(s), FIONREAD, NULL, 0, &n, 0,
					 NULL, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(n, 0);
	close(s);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_fionread_on_pipe),
	TEST_ENTRY(test_input_only),
	TEST_ENTRY(test_in_and_out_buffers),
	TEST_ENTRY(test_bad_handles),
	TEST_ENTRY(test_unknown_request),
	TEST_ENTRY(test_invalid_buffers),
	TEST_ENTRY(test_async_unsupported),
	TEST_ENTRY(test_ioctl_code),
	TEST_ENTRY(test_by_value_argument),
};

TEST_MAIN("cl_ioctl", tests)
