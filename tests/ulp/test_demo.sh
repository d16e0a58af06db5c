#!/bin/sh
# ibal tests: the access-layer demo runs to the end on a soft fabric of its own.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# Runs $DEMO (default ./ulp/ibal_demo) in a fresh fabric directory, within
# 120 s each (the demo's own limit is set to 100 s so that it reports a hang
# itself): once as one command (it forks a server and a client), once as two
# commands meeting at a Unix socket path. Each run must exit 0, say that the
# RC connection was made through the connection manager, print every row of
# the result table as passed, and end with "demo OK".
set -u
demo=${DEMO:-./ulp/ibal_demo}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibal-demo-test-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
IBAL_SOFT_FABRIC="$tmp/fabric"
export IBAL_SOFT_FABRIC
mkdir "$IBAL_SOFT_FABRIC"
n=0 fail=0

# check NAME OUTPUT-FILE STATUS [MORE-FAILURES]: the status and the table of one run.
check() {
	n=$((n + 1))
	bad="${4:-}"
	[ "$3" -eq 0 ] || bad="$bad${bad:+; }exit status $3"
	for row in "send/recv latency" "send message rate" "RDMA write bandwidth" \
		   "RDMA read bandwidth"; do
		grep -q "^  $row .* ok: " "$2" || bad="$bad${bad:+; }no passed row '$row'"
	done
	grep -q "^  RC connection through the CM " "$2" ||
		bad="$bad${bad:+; }no 'RC connection through the CM' line"
	grep -q "^demo OK$" "$2" || bad="$bad${bad:+; }no 'demo OK' line"
	if [ -n "$bad" ]; then
		echo "FAIL: $1: $bad"
		cat "$2"
		fail=$((fail + 1))
	else
		echo "ok: $1"
		grep -e "^  test " -e " ok: " "$2"
	fi
}

if [ ! -x "$demo" ]; then
	echo "FAIL: no demo binary at $demo (set DEMO)"
	echo "CUNIT-TOTALS: tests=1 failed=1"
	exit 1
fi

# One command: a server and a client forked on a socket pair.
timeout 120 "$demo" --timeout 100 >"$tmp/both.out" 2>&1
check "ibal_demo (forked server and client)" "$tmp/both.out" $?

# Two commands: the client waits for the server's socket to appear.
sock="$tmp/ctl"
small="--messages 5000 --size 1048576 --timeout 100"
# shellcheck disable=SC2086
timeout 120 "$demo" --client "$sock" $small >"$tmp/client.out" 2>&1 &
client=$!
# shellcheck disable=SC2086
timeout 120 "$demo" --server "$sock" $small >"$tmp/server.out" 2>&1
server_rc=$?
wait "$client"
client_rc=$?
server_bad=""
if [ "$server_rc" -ne 0 ] || ! grep -q "^demo OK$" "$tmp/server.out"; then
	server_bad="server exit status $server_rc"
	cat "$tmp/server.out"
fi
check "ibal_demo --server PATH / --client PATH" "$tmp/client.out" $client_rc "$server_bad"

echo "CUNIT-TOTALS: tests=$n failed=$fail"
echo "demo checks: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
