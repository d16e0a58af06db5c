/*
 * ibal complib: start of a packed region.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_packon.h
 * @brief Starts byte packing (`#pragma pack(push, 1)`) for wire structures;
 * close the region with cl_packoff.h. Included once per region, so no guard.
 */
#ifndef PACK_SUFFIX
/** Attribute placed after a packed structure's closing brace. */
#define PACK_SUFFIX __attribute__((packed))
#endif
#pragma pack(push, 1)
