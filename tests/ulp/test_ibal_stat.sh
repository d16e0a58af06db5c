#!/bin/sh
# ibal tests: ibal_stat shows the soft fabric's CAs and ports, as tables, JSON, with counters; bad input is one line and a status.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# Runs $IBAL_STAT (default ./ulp/ibal_stat) on a fresh fabric directory with
# two soft CAs: the default tables (two CAs, ACTIVE ports, LID, rate, MTU),
# --json (one line, both CAs), --counters, --verbose (P_Key table), --list,
# a CA (by index: soft CAs are the process's own, their GUIDs new in each)
# and a port; then bad input: an unknown option, a bad GUID, a GUID no CA
# has, a port the CA lacks, a bad --repeat, a fabric directory that cannot
# be made: each one line of the tool's on stderr (the library may log its
# own) and status 2 (the command line) or 1 (the rest).
set -u
prog=${IBAL_STAT:-./ulp/ibal_stat}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibal-stat-test-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
tool=ibal_stat
# shellcheck source=../common/tool_test.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/common/tool_test.sh"

IBAL_SOFT_FABRIC=$tmp/fab
IBAL_SOFT_CAS=2
IBAL_PROVIDERS=soft
export IBAL_SOFT_FABRIC IBAL_SOFT_CAS IBAL_PROVIDERS
mkdir "$IBAL_SOFT_FABRIC"

run
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
[ "$(grep -c '^CA 0x' "$tmp/out")" -eq 2 ] || bad="$bad; not two CAs"
[ "$(grep -c 'State: *ACTIVE' "$tmp/out")" -eq 2 ] || bad="$bad; not two ACTIVE ports"
grep -q 'LID: *0x[0-9a-f]\{4\} (LMC 0)' "$tmp/out" || bad="$bad; no LID"
grep -q 'Rate: *[0-9.]* Gb/s ([0-9]*X [A-Z]*)' "$tmp/out" || bad="$bad; no rate"
grep -q 'Active MTU: *[0-9]' "$tmp/out" || bad="$bad; no MTU"
grep -q 'Link layer: *InfiniBand' "$tmp/out" || bad="$bad; no link layer"
check "tables" "$bad"

run --json
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
[ "$(wc -l <"$tmp/out")" -eq 1 ] || bad="$bad; not one line"
grep -q '^{"cas":\[{"guid":"0x' "$tmp/out" || bad="$bad; not a cas array"
[ "$(grep -o '"state":"ACTIVE"' "$tmp/out" | wc -l)" -eq 2 ] || bad="$bad; not two ACTIVE ports"
grep -q '}]}$' "$tmp/out" || bad="$bad; not closed"
check "json" "$bad"

run --counters --json
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
grep -q '"counters":{"symbol_errors":[0-9]*,.*"port_xmit_packets":[0-9]*,"port_rcv_packets":[0-9]*}' \
	"$tmp/out" || bad="$bad; no counters"
check "counters" "$bad"

run -v -c
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
grep -q 'P_Key\[0\]: 0xffff' "$tmp/out" || bad="$bad; no P_Key table"
grep -q 'Max QPs' "$tmp/out" || bad="$bad; no CA attributes"
grep -q 'port_rcv_packets *[0-9]' "$tmp/out" || bad="$bad; no counters"
check "verbose" "$bad"

run --list
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
[ "$(grep -c '^0x[0-9a-f]\{16\}$' "$tmp/out")" -eq 2 ] || bad="$bad; not two GUIDs"
check "list" "$bad"

run --ca 1 --port 1
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
[ "$(grep -c '^CA 0x' "$tmp/out")" -eq 1 ] || bad="$bad; not one CA"
grep -q 'Port 1:' "$tmp/out" || bad="$bad; no port 1"
check "one CA, one port" "$bad"

run --repeat 1 --count 2 --ca 0
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
[ "$(grep -c '^CA 0x' "$tmp/out")" -eq 2 ] || bad="$bad; not printed twice"
check "repeat" "$bad"

expect_error "unknown option" 2 "unknown option '-x'" -x
expect_error "bad GUID" 2 "bad CA GUID 'zzz'" zzz
expect_error "bad port" 2 "bad port '0'" --port 0
expect_error "bad CA index" 2 "bad --ca 'x'" --ca x
expect_error "bad repeat" 2 "bad --repeat '0'" -r 0
expect_error "missing value" 2 "needs a value" --repeat
expect_error "no such CA" 1 "no CA with GUID 0x0000000000001234" 0x1234
expect_error "no such port" 1 "has no port 9" --ca 0 --port 9
expect_error "no such CA index" 1 "no CA 7 (2 found)" --ca 7
: >"$tmp/file"
IBAL_SOFT_CAS=1 IBAL_SOFT_FABRIC=$tmp/file/fab expect_error "no fabric" 1 "cannot open it"

tool_test_end
