/*
 * ibal: the InfiniBand types header of OFED for Windows, for Linux.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file ib_types.h
 * @brief InfiniBand architecture types: constants, wire structures (MADs,
 * SMP attributes, SA records, DM attributes, GRH), their inline helpers, and
 * the verbs data types of the access layer.
 *
 * Include this header (as `<iba/ib_types.h>`); the `ib_types_*.h` parts it
 * pulls in are split only to keep files small and are not included alone.
 * Wire structures are byte-packed and their multi-byte fields are in network
 * byte order (`ib_net16_t`, `ib_net32_t`, `ib_net64_t`), exactly as OFED for
 * Windows and OpenSM lay them out.
 */
#ifndef __IB_TYPES_H__
#define __IB_TYPES_H__

#include <complib/cl_types.h>
#include <complib/cl_byteswap.h>

#include <iba/ib_types_base.h>   /* portability, constants, GID, LRH/GRH, MAD/SMP/SA headers */
#include <iba/ib_types_smp.h>    /* subnet management attributes */
#include <iba/ib_types_sa.h>     /* SA records, DM, PerfMgt, CC attributes */
#include <iba/ib_types_verbs.h>  /* verbs and access-layer data types */

#endif /* __IB_TYPES_H__ */
