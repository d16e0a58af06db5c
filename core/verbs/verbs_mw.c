/*
 * ibal verbs provider: memory windows (placeholder, to be written).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include "verbs_prov.h"
