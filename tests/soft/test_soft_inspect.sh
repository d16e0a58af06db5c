#!/bin/sh
# ibal tests: ibal_soft_inspect shows a running soft fabric (ports, holders, SM, service, counters) and switches its capture on and off.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# On a fresh fabric directory the fabric service ($SOFT_FABRIC, default
# ./core/soft/service/ibal_soft_fabric) holds a topology of two nodes;
# $SOFT_INSPECT (default ./core/soft/service/ibal_soft_inspect) must show the
# directory, the master SM (the service's process), the service and its
# topology, both nodes at their LIDs by name, counters that grew, as tables
# and as JSON. `capture start` must make the processes of the running
# fabric write captures (a run of $CMTIME -f, default ./ulp/ibal_cmtime,
# leaves one of its own), and after `capture stop` a new process writes
# none. Bad input: an unknown option, a missing FILE, a bad link type:
# status 2; no fabric: status 1; each one line of the tool's own on stderr.
set -u
prog=${SOFT_INSPECT:-./core/soft/service/ibal_soft_inspect}
service=${SOFT_FABRIC:-./core/soft/service/ibal_soft_fabric}
cmtime=${CMTIME:-./ulp/ibal_cmtime}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibal-inspect-test-XXXXXX") || exit 1
svc_pid=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[ -z "$svc_pid" ] || kill "$svc_pid" 2>/dev/null
	[ -z "$svc_pid" ] || wait "$svc_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
tool=ibal_soft_inspect
# shellcheck source=../common/tool_test.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/common/tool_test.sh"

IBAL_SOFT_FABRIC=$tmp/fab
IBAL_PROVIDERS=soft
export IBAL_SOFT_FABRIC IBAL_PROVIDERS

expect_error "no fabric" 1 "no soft fabric at $tmp/fab" show
expect_error "unknown option" 2 "unknown option --bogus" --bogus
expect_error "capture start without FILE" 2 "needs a FILE" capture start
expect_error "bad link type" 2 "erf or 247" --linktype 12 capture start x.pcap
expect_error "unknown command" 2 "show or capture" frobnicate

mkdir "$IBAL_SOFT_FABRIC"
cat >"$tmp/topo" <<'EOF'
node alpha guid=0x0002c90300001230 lid=0x10
node beta  guid=0x0002c90300001240 lid=0x20
EOF
"$service" -q "$tmp/topo" >"$tmp/svc" 2>&1 &
svc_pid=$!
i=0
while ! grep -q "^ready" "$tmp/svc" 2>/dev/null; do
	i=$((i + 1))
	if [ "$i" -gt 400 ] || ! kill -0 "$svc_pid" 2>/dev/null; then
		echo "FAIL: the fabric service did not start"; cat "$tmp/svc"
		echo "CUNIT-TOTALS: tests=1 failed=1"
		exit 1
	fi
	sleep 0.05
done

run show
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
grep -q "^fabric   $(cd "$tmp/fab" && pwd -P)\$" "$tmp/out" || bad="$bad; not the fabric directory"
grep -q "^SM       master at LID 0x[0-9a-f]*, .*process $svc_pid " "$tmp/out" || bad="$bad; not the service's SM"
grep -q "^service  running (topology .*/topology, 2 nodes)" "$tmp/out" || bad="$bad; no service"
grep -q "^capture  off" "$tmp/out" || bad="$bad; capture not off"
grep -q "^0x0010  0x0002c90300001231  0x0002c90300001230  *1  *$svc_pid  alpha  *live" "$tmp/out" ||
	bad="$bad; node alpha not at 0x10"
grep -q "^0x0020  0x0002c90300001241  0x0002c90300001240  *1  *$svc_pid  beta  *live" "$tmp/out" ||
	bad="$bad; node beta not at 0x20"
check "show: directory, SM, service, nodes" "$bad"

# The SM has swept the nodes: their ports sent and received SMPs.
run -c
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
grep -q "tx_packets  *tx_bytes  *delivered" "$tmp/out" || bad="$bad; no counter table"
awk '$1 == "0x0010" && NF == 13 && $2 > 0 && $5 > 0 { f = 1 } END { exit !f }' "$tmp/out" ||
	bad="$bad; no packets counted at 0x10"
check "counters" "$bad"

run --json -c
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
[ "$(wc -l <"$tmp/out")" -eq 1 ] || bad="$bad; not one line"
grep -q '"sm":{"running":true,"pid":'"$svc_pid"',' "$tmp/out" || bad="$bad; no SM"
grep -q '"service":{"running":true,' "$tmp/out" || bad="$bad; no service"
grep -q '{"lid":16,"port_guid":"0x0002c90300001231",.*"node":"alpha","state":"live"' "$tmp/out" ||
	bad="$bad; no node alpha"
grep -q '"counters":{"tx_packets":[1-9]' "$tmp/out" || bad="$bad; no counters"
check "json" "$bad"

# traffic N: a process that is two nodes of the fabric connects and
# disconnects through the CM; its PID (which names its capture) in cm_pid,
# and bad starts with its failure, if any.
traffic() {
	"$cmtime" -f -c 2 -T 60 >"$tmp/cm$1" 2>&1 &
	cm_pid=$!
	wait "$cm_pid"
	cm_rc=$?
	bad=""
	[ "$cm_rc" -eq 0 ] || bad="ibal_cmtime -f status $cm_rc"
}

# Capture on for the running fabric: a process started now captures.
run capture start "$tmp/cap-%p.pcap"
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
grep -q "^capture started on .*: $tmp/cap-%p.pcap (erf)" "$tmp/out" || bad="$bad; not said"
check "capture start" "$bad"
run show
grep -q "^capture  on: $tmp/cap-%p.pcap (erf)" "$tmp/out" && bad="" || bad="capture not shown on"
check "show: capture on" "$bad"
traffic 1
[ -s "$tmp/cap-$cm_pid.pcap" ] || bad="$bad; no capture of the process that ran"
# An ERF capture: the pcap magic (nanoseconds) and link type 197.
[ "$(od -An -tx1 -N4 "$tmp/cap-$cm_pid.pcap" 2>/dev/null | tr -d ' ')" = "4d3cb2a1" ] ||
	bad="$bad; not a pcap with nanosecond times"
[ "$(stat -c %s "$tmp/cap-$cm_pid.pcap" 2>/dev/null || echo 0)" -gt 1000 ] || bad="$bad; capture too small"
check "capture of a running fabric" "$bad"

run capture stop
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
check "capture stop" "$bad"
traffic 2
[ ! -e "$tmp/cap-$cm_pid.pcap" ] || bad="$bad; a process started after the stop captured"
check "no capture after stop" "$bad"

run show
grep -q "^capture  off" "$tmp/out" && bad="" || bad="capture not shown off"
check "show: capture off" "$bad"

kill "$svc_pid"
wait "$svc_pid" 2>/dev/null
svc_pid=
run show
bad=""
[ "$rc" -eq 0 ] || bad="status $rc"
grep -q "^SM       none running" "$tmp/out" || bad="$bad; an SM still shown"
grep -q "^service  not running" "$tmp/out" || bad="$bad; the service still shown"
check "show after the service stopped" "$bad"

tool_test_end
