/*
 * ibal complib: the umbrella header.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file comp_lib.h
 * @brief Includes every user-mode complib component header, as OFED for
 * Windows' comp_lib.h does.
 */
#ifndef _CL_COMPLIB_H_
#define _CL_COMPLIB_H_

#include <complib/cl_types.h>
#include <complib/cl_memory.h>
#include <complib/cl_math.h>
#include <complib/cl_byteswap.h>
#include <complib/cl_atomic.h>
#include <complib/cl_debug.h>
#include <complib/cl_log.h>
#include <complib/cl_spinlock.h>
#include <complib/cl_mutex.h>
#include <complib/cl_passivelock.h>
#include <complib/cl_event.h>
#include <complib/cl_waitobj.h>
#include <complib/cl_thread.h>
#include <complib/cl_threadpool.h>
#include <complib/cl_timer.h>
#include <complib/cl_async_proc.h>
#include <complib/cl_reqmgr.h>
#include <complib/cl_obj.h>
#include <complib/cl_qlist.h>
#include <complib/cl_list.h>
#include <complib/cl_qmap.h>
#include <complib/cl_map.h>
#include <complib/cl_fleximap.h>
#include <complib/cl_rbmap.h>
#include <complib/cl_qcomppool.h>
#include <complib/cl_qpool.h>
#include <complib/cl_comppool.h>
#include <complib/cl_pool.h>
#include <complib/cl_qlockpool.h>
#include <complib/cl_vector.h>
#include <complib/cl_ptr_vector.h>
#include <complib/cl_perf.h>
#include <complib/cl_nodenamemap.h>
#include <complib/cl_ioctl.h>

#endif /* _CL_COMPLIB_H_ */
