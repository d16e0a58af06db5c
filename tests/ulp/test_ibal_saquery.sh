#!/bin/sh
# ibal tests: ibal_saquery asks the soft fabric's SA for node, port, path, service and multicast records; bad input is one line and a status.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# A server of $CMTIME (default ./ulp/ibal_cmtime -s) holds a node on a fresh
# fabric directory and registers its service; $IBAL_SAQUERY (default
# ./ulp/ibal_saquery) then asks for: every NodeRecord (the server's and its
# own), the server's PortInfoRecord by LID, PathRecords by LIDs and by
# GIDs, ServiceRecords (the server's), MCMemberRecords, as blocks and as
# JSON; then bad input: no query, an unknown query, path ends of two kinds,
# a bad LID, a bad timeout: status 2; a path to a LID no port has and a
# fabric with no ACTIVE port: status 1; each one line of the tool's own on
# stderr.
set -u
prog=${IBAL_SAQUERY:-./ulp/ibal_saquery}
cmtime=${CMTIME:-./ulp/ibal_cmtime}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibal-saquery-test-XXXXXX") || exit 1
srv_pid=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[ -z "$srv_pid" ] || kill "$srv_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
tool=ibal_saquery
# shellcheck source=../common/tool_test.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/common/tool_test.sh"

IBAL_SOFT_FABRIC=$tmp/fab
IBAL_PROVIDERS=soft
export IBAL_SOFT_FABRIC IBAL_PROVIDERS
mkdir "$IBAL_SOFT_FABRIC"

"$cmtime" -s -T 60 >"$tmp/srv" 2>&1 &
srv_pid=$!
i=0
while ! grep -q "listening" "$tmp/srv" 2>/dev/null; do
	i=$((i + 1))
	if [ "$i" -gt 200 ] || ! kill -0 "$srv_pid" 2>/dev/null; then
		echo "FAIL: the server did not start"; cat "$tmp/srv"
		echo "CUNIT-TOTALS: tests=1 failed=1"
		exit 1
	fi
	sleep 0.05
done
gid=$(sed -n 's/.* GID \([0-9a-fA-F:]*\) .*/\1/p' "$tmp/srv")
lid=$(sed -n 's/.* LID \(0x[0-9a-fA-F]*\) .*/\1/p' "$tmp/srv")
hlid=$(printf '0x%04x' "$lid")

run nodes
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
[ "$(grep -c '^NodeRecord' "$tmp/out")" -ge 2 ] || bad="$bad; not two NodeRecords"
grep -q "lid  *$(printf '0x%x' "$lid")\$" "$tmp/out" || bad="$bad; not the server's LID"
check "nodes" "$bad"

run --json nodes
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
grep -q '^{"records":\[{"record":"NodeRecord",' "$tmp/out" || bad="$bad; not JSON records"
grep -q '"count":[2-9]}$' "$tmp/out" || bad="$bad; no count of two or more"
check "nodes json" "$bad"

run portinfo "$lid"
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
[ "$(grep -c '^PortInfoRecord' "$tmp/out")" -eq 1 ] || bad="$bad; not one record"
grep -q "base_lid  *$(printf '0x%x' "$lid")\$" "$tmp/out" || bad="$bad; not its LID"
grep -q 'port_state  *4$' "$tmp/out" || bad="$bad; not ACTIVE"
check "portinfo by LID ($hlid)" "$bad"

run path "$lid" "$lid"
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
grep -q '^PathRecord' "$tmp/out" || bad="$bad; no PathRecord"
grep -q "dlid  *$(printf '0x%x' "$lid")\$" "$tmp/out" || bad="$bad; not to its LID"
check "path by LIDs" "$bad"

run --json path "$gid" "$gid"
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
grep -q '"record":"PathRecord"' "$tmp/out" || bad="$bad; no PathRecord"
check "path by GIDs" "$bad"

run services
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
grep -q '^ServiceRecord' "$tmp/out" || bad="$bad; no ServiceRecord"
check "services" "$bad"

run --json mcmembers
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
grep -q '^{"records":\[.*\],"count":[0-9]*}$' "$tmp/out" || bad="$bad; not a JSON answer"
check "mcmembers" "$bad"

expect_error "no query" 2 "no query"
expect_error "unknown query" 2 "unknown query 'routes'" routes
expect_error "mixed path ends" 2 "are not two LIDs" path "$lid" "$gid"
expect_error "bad LID" 2 "bad argument '0xffff'" portinfo 0xffff
expect_error "bad timeout" 2 "bad --timeout '0'" -t 0 nodes
expect_error "unknown option" 2 "unknown option '-x'" -x nodes
expect_error "no such path" 1 "the SA answered status 0x0300: no matching record" path "$lid" 0x7ff0
kill "$srv_pid" 2>/dev/null
wait "$srv_pid" 2>/dev/null
srv_pid=
mkdir "$tmp/fab2"
IBAL_SOFT_FABRIC=$tmp/fab2 IBAL_SOFT_SM=off expect_error "no ACTIVE port" 1 "no ACTIVE port" nodes

tool_test_end
