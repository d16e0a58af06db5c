#!/bin/sh
# ibal bench: connections per second through the CM, N RC connections between two processes on the soft fabric.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# usage: bench_cm.sh [CMTIME]     (default ./ulp/ibal_cmtime)
# environment:
#   BENCH_CM_N       connections per run (default 1000)
#   BENCH_CM_MSGS    messages exchanged on each connection (default 1)
#   BENCH_CM_WINDOW  connection requests (and DREQs) in flight (default 0: all, as cmtime)
#   BENCH_CM_RUNS    runs of each measurement; the best is kept (default 3)
#   BENCH_CM_LIMIT   seconds one run may take (default 120)
#
# Each run gets a fabric directory of its own (IBAL_SOFT_FABRIC). A server
# process (`ibal_cmtime -s`) and a client process (`ibal_cmtime -c N GID`)
# connect N RC QPs through the CM (REQ, REP, RTU), exchange the messages,
# disconnect them (DREQ, DREP) and destroy the QPs; the client's JSON line
# gives its phase times. Connections per second = N / (wall time of the
# connect phase + wall time of the disconnect phase), as the client saw them.
#
# The reference, measured in the same run, alternating with the CM runs:
# `ibal_cmtime -f --raw`, the same N QP pairs (two soft CAs in one process)
# taken RESET -> INIT -> RTR -> RTS on both ends by hand with ib_modify_qp,
# the same messages, then both ends put in ERROR - what the CM does to the
# QPs, without its messages, timers and callbacks. Ratio = CM / reference
# (below 1: the CM is slower, as it must be; it says what the protocol costs).
#
# Also measured, for the record: the CM with both sides as threads of one
# process (`ibal_cmtime -f`), which leaves out what crossing processes costs.
#
# Prints the tables of the best runs, a summary, and one line
#   BENCH-CM conns=N cm_conn_per_s=.. cm_conn_disc_per_s=.. cm_one_process_conn_disc_per_s=..
#            raw_conn_disc_per_s=.. ratio=..
# Exit status 0 if every run passed.
set -u

prog=${1:-./ulp/ibal_cmtime}
n=${BENCH_CM_N:-1000}
msgs=${BENCH_CM_MSGS:-1}
window=${BENCH_CM_WINDOW:-0}
runs=${BENCH_CM_RUNS:-3}
limit=${BENCH_CM_LIMIT:-120}
for v in "$n" "$msgs" "$window" "$runs" "$limit"; do
	case $v in ''|*[!0-9]*) echo "bench_cm.sh: not a number: '$v'" >&2; exit 2 ;; esac
done
[ "$runs" -gt 0 ] || runs=1
if [ ! -x "$prog" ]; then
	echo "bench_cm.sh: no ibal_cmtime at $prog (give its path)" >&2
	exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibal-bench-cm.XXXXXX") || exit 2
srv_pid=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[ -z "$srv_pid" ] || kill "$srv_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
status=0

# json_num FILE KEY: the number after "KEY": in the client's JSON line of FILE (the
# top-level keys conn_per_s and conn_disc_per_s are unique in the line).
json_num() {
	grep '^{"tool":"ibal_cmtime","role":"client"' "$1" | tail -1 |
		sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p"
}

# cm_run I: server and client as two processes; the client's output in $tmp/cm.I.
cm_run() {
	fab=$tmp/fab.cm.$1
	mkdir "$fab"
	srv=$tmp/srv.$1
	IBAL_SOFT_FABRIC=$fab "$prog" -s -c "$n" -T "$limit" --json >"$srv" 2>&1 &
	srv_pid=$!
	i=0
	while ! grep -q "listening" "$srv" 2>/dev/null; do
		i=$((i + 1))
		if [ "$i" -gt 200 ] || ! kill -0 "$srv_pid" 2>/dev/null; then
			echo "bench_cm.sh: the server did not start listening" >&2
			cat "$srv" >&2
			kill "$srv_pid" 2>/dev/null
			wait "$srv_pid" 2>/dev/null
			srv_pid=
			status=1
			return 1
		fi
		sleep 0.05
	done
	gid=$(sed -n 's/.* GID \([0-9a-fA-F:]*\) .*/\1/p' "$srv" | head -1)
	IBAL_SOFT_FABRIC=$fab "$prog" -c "$n" -n "$msgs" -w "$window" -T "$limit" --json "$gid" \
		>"$tmp/cm.$1" 2>&1
	cli_rc=$?
	wait "$srv_pid"
	srv_rc=$?
	srv_pid=
	if [ "$cli_rc" -ne 0 ] || [ "$srv_rc" -ne 0 ]; then
		echo "bench_cm.sh: CM run $1 failed (client $cli_rc, server $srv_rc)" >&2
		cat "$tmp/cm.$1" "$srv" >&2
		status=1
		return 1
	fi
	cp "$srv" "$tmp/cmsrv.$1"
}

# raw_run I: the reference; output in $tmp/raw.I.
raw_run() {
	fab=$tmp/fab.raw.$1
	mkdir "$fab"
	if ! IBAL_SOFT_FABRIC=$fab IBAL_SOFT_CAS=2 "$prog" -f --raw -c "$n" -n "$msgs" -w "$window" \
		-T "$limit" --json >"$tmp/raw.$1" 2>&1; then
		echo "bench_cm.sh: reference run $1 failed" >&2
		cat "$tmp/raw.$1" >&2
		status=1
		return 1
	fi
}

# cmf_run I: the CM with both sides in one process (-f); output in $tmp/cmf.I.
cmf_run() {
	fab=$tmp/fab.cmf.$1
	mkdir "$fab"
	if ! IBAL_SOFT_FABRIC=$fab IBAL_SOFT_CAS=2 "$prog" -f -c "$n" -n "$msgs" -w "$window" \
		-T "$limit" --json >"$tmp/cmf.$1" 2>&1; then
		echo "bench_cm.sh: one-process CM run $1 failed" >&2
		cat "$tmp/cmf.$1" >&2
		status=1
		return 1
	fi
}

# best PREFIX: the run (index) with the highest conn_disc_per_s.
best() {
	b='' bv=0
	for f in "$tmp/$1".*; do
		[ -f "$f" ] || continue
		v=$(json_num "$f" conn_disc_per_s)
		[ -n "$v" ] || continue
		if [ -z "$b" ] || awk -v a="$v" -v b="$bv" 'BEGIN { exit !(a > b) }'; then
			b=${f##*.}
			bv=$v
		fi
	done
	echo "$b"
}

echo "bench_cm.sh: $n RC connections, $msgs message(s) each, window $window, $runs run(s) of each" >&2
r=1
while [ "$r" -le "$runs" ]; do
	if [ $((r % 2)) -eq 1 ]; then
		cm_run "$r"
		cmf_run "$r"
		raw_run "$r"
	else
		raw_run "$r"
		cmf_run "$r"
		cm_run "$r"
	fi
	r=$((r + 1))
done

bc=$(best cm)
bf=$(best cmf)
br=$(best raw)
if [ -z "$bc" ]; then
	echo "bench_cm.sh: no CM run passed" >&2
	exit 1
fi
echo
echo "Through the CM, two processes (best of $runs by connect + disconnect):"
grep -v '^{' "$tmp/cm.$bc"
grep -v -e '^{' -e 'listening' "$tmp/cmsrv.$bc"
cm_c=$(json_num "$tmp/cm.$bc" conn_per_s)
cm_cd=$(json_num "$tmp/cm.$bc" conn_disc_per_s)
cmf_cd=-
if [ -n "$bf" ]; then
	cmf_cd=$(json_num "$tmp/cmf.$bf" conn_disc_per_s)
fi
if [ -n "$br" ]; then
	echo
	echo "Reference, no CM: QP pairs connected by hand with ib_modify_qp (best of $runs):"
	grep -v '^{' "$tmp/raw.$br"
	raw_cd=$(json_num "$tmp/raw.$br" conn_disc_per_s)
	ratio=$(awk -v a="$cm_cd" -v b="$raw_cd" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }')
else
	raw_cd=-
	ratio=-
fi
echo
echo "Summary: $n RC connections through the CM between two processes:"
echo "  connect: $cm_c connections/s; connect + disconnect: $cm_cd connections/s"
echo "  the same through the CM with both sides in one process (-f): $cmf_cd connections/s"
echo "  reference without a CM (ib_modify_qp by hand): $raw_cd connections/s; CM / reference = $ratio"
echo "BENCH-CM conns=$n cm_conn_per_s=$cm_c cm_conn_disc_per_s=$cm_cd cm_one_process_conn_disc_per_s=$cmf_cd raw_conn_disc_per_s=$raw_cd ratio=$ratio"
exit $status
