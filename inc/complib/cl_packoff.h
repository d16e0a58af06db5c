/*
 * ibal complib: end of a packed region.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_packoff.h
 * @brief Ends the packing region begun by cl_packon.h. No include guard.
 */
#pragma pack(pop)
