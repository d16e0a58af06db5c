/*
 * ibal tests: memory regions and windows on any provider (placeholder, to be written).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
int main(void) { return 77; }
