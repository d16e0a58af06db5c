#!/bin/bash
# ibal tests: runs test_umad_prov (the verbs provider's MAD path) against OpenSM on an ibsim fabric.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# Usage: tests/integration/ibsim/ibsim-run.sh [path/to/test_umad_prov]
#   (default: $TEST_UMAD_PROV, else ./tests/integration/ibsim/test_umad_prov, ./test_umad_prov, or next to this script)
#
# A simulated fabric (tests/integration/ibsim/ibsim-common.sh; ibsim, Debian package ibsim-utils: 1 switch S1, 3 HCAs H1..H3), OpenSM as
# master on H1 through LD_PRELOAD=libumad2sim.so (libumad2sim0), then on H2: the test program,
# and saquery (infiniband-diags) asking the same questions, whose answers are compared with the
# program's. Twice, each on a fresh fabric: as a plain client (ibsim must not hand it unsolicited
# requests) and with IBAL_VERBS_ISSM=1 (it must: an SA Report and a GMP it sent itself). While the
# program waits for a Report, H3's link is taken down through ibsim's console (stdin, a fifo). Everything runs in a private network namespace (`unshare -n`, re-executed here; needs
# root or unprivileged user namespaces: with IBSIM_NETNS=0 it runs in the current one), because
# ibsim's sockets are abstract unix sockets another instance could meet. Every wait is bounded;
# OpenSM is stopped before ibsim (it may ignore SIGTERM once ibsim is gone).
# Exit: 0 pass, 1 fail, 77 skipped (a tool, the preload library or unshare is missing).
# Work files: $IBSIM_WORK (default ${TMPDIR:-/tmp}/ibal-ibsim-$$), removed on success unless
# IBSIM_KEEP=1.
set -uo pipefail

SELF=$(readlink -f "$0")
HERE=$(dirname "$SELF")
. "$HERE/ibsim-common.sh" # skip, ibsim_check/enter/start, stop_all, wait_for, sa
PROG=${1:-${TEST_UMAD_PROV:-}}
if [ -z "$PROG" ]; then # make check runs from the build directory
	for c in ./tests/integration/ibsim/test_umad_prov ./test_umad_prov "$HERE/test_umad_prov"; do
		[ -x "$c" ] && { PROG=$c; break; }
	done
fi
PROG=$(readlink -f "${PROG:-./test_umad_prov}")
ibsim_check
[ -x "$PROG" ] || { echo "FAIL: test program $PROG not found"; exit 1; }
ibsim_enter "$SELF" "$PROG"

# One run: a fresh fabric, the program on H2 (with the environment given in $2), saquery's answers
# compared. $1 = mode name: "plain" (an ordinary client: unsolicited requests must NOT arrive,
# ibsim gives them only to SM clients) or "issm" (IBAL_VERBS_ISSM=1: the provider holds the issm
# device, so ibsim hands it unsolicited requests: the SA Report and the self-sent GMP must arrive).
run_mode() {
	local mode=$1 menv=$2 d="$WORK/$1" rc
	ibsim_start "$d" || return 1
	echo "=== mode $mode: fabric up (ibsim, OpenSM master on H1), program on H2 ${menv:+with $menv}"
	env SIM_HOST=H2 LD_PRELOAD=$SIM ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:replace_intrin=0 IBAL_LOG_LEVEL=debug IBAL_LOG_SUBSYS=verbs,cm IBAL_VERBS_POLL_MS=100 $menv \
		timeout 60 "$PROG" > prog.out 2> prog.err & PROG_PID=$!
	# Once the program has subscribed to traps, take H3's link down: the switch traps to
	# OpenSM, which reports it to its subscribers (the program included).
	if wait_for '^SUBSCRIBED' 300 prog.out; then
		echo 'Unlink "H3"' >&3
		echo "ibsim console: Unlink \"H3\""
	fi
	wait $PROG_PID
	rc=$?
	cat prog.out
	sed 's/^/stderr: /' prog.err | grep -v '^stderr: *$' | grep -v 'agent [0-9]*$' | head -40
	[ $rc = 0 ] || { echo "FAIL: test program exit status $rc"; FAILS=$((FAILS+1)); }
	compare
	# ibsim hands QP0/QP1 requests only to the port's SM client: what it dropped.
	grep -o 'no one to handle pkt: .*' ibsim.log | sort | uniq -c | sed 's/^ */INFO  ibsim dropped (times, packet): /'
	if [ "$mode" = issm ]; then
		expect '^UNSOLICITED class 0x09 .*: RECEIVED' "unsolicited GMP delivered to the issm client"
		expect '^REPORT RECEIVED' "SA Report delivered to the issm client"
	else
		expect '^UNSOLICITED class 0x09 .*: NOT RECEIVED' "unsolicited GMP not delivered to a plain client"
		expect '^REPORT NOT RECEIVED' "SA Report not delivered to a plain client"
	fi
	stop_all
	exec 3>&-
	cd "$WORK"
}
expect() { # regex what
	if grep -q "$1" prog.out; then echo "OK    $2"; else echo "FAIL  $2"; FAILS=$((FAILS+1)); fi
}
line() { grep -m1 "^$1 " prog.out; }
cmp_field() { # name ours theirs
	if [ -n "$2" ] && [ -n "$3" ] && [ $(($2)) = $(($3)) ]; then echo "SAME  $1: $2"
	else echo "DIFF  $1: ours '$2' saquery '$3'"; FAILS=$((FAILS+1)); fi
}
field() { sed -n "s/^[[:space:]]*$1\.\.*\(.*\)$/\1/p" | head -1 | tr -d ' '; }
compare() { # the program's answers against saquery's, asked from the same node
	local LID SMLID PR NR f theirs ours_desc their_desc
	LID=$(line PORT | sed -n 's/.* lid=\([0-9]*\).*/\1/p')
	SMLID=$(line PORT | sed -n 's/.* sm_lid=\([0-9]*\).*/\1/p')
	if [ -z "$LID" ] || [ -z "$SMLID" ]; then
		echo "FAIL: no LID/SM LID in the program's output"; FAILS=$((FAILS+1)); return
	fi
	sa -p --src-to-dst "$LID:$SMLID" > sa-path.log
	PR=$(line PR)
	for f in slid dlid sl mtu rate pkt_life pkey; do
		theirs=$(field $f < sa-path.log)
		case $f in mtu|rate|pkt_life) [ -n "$theirs" ] && theirs=$((theirs & 0x3F));; esac # no selector
		cmp_field "PathRecord $f" "$(echo "$PR" | sed -n "s/.* $f=\([^ ]*\).*/\1/p")" "$theirs"
	done
	sa "$SMLID" > sa-node.log
	NR=$(grep -m1 '^NR lid=' prog.out)
	cmp_field "NodeRecord lid" "$(echo "$NR" | sed -n 's/.* lid=\([0-9]*\).*/\1/p')" "$(field lid < sa-node.log)"
	cmp_field "NodeRecord node_guid" "$(echo "$NR" | sed -n 's/.* node_guid=\([^ ]*\).*/\1/p')" "$(field node_guid < sa-node.log)"
	ours_desc=$(echo "$NR" | sed -n 's/.* desc=\(.*\)$/\1/p')
	their_desc=$(sed -n 's/^[[:space:]]*NodeDescription\.\.*\(.*\)$/\1/p' sa-node.log | head -1)
	if [ -n "$ours_desc" ] && [ "$ours_desc" = "$their_desc" ]; then echo "SAME  NodeRecord NodeDescription: $ours_desc"
	else echo "DIFF  NodeRecord NodeDescription: ours '$ours_desc' saquery '$their_desc'"; FAILS=$((FAILS+1)); fi
	sa > sa-all.log
	echo "INFO  all NodeRecords: saquery printed $(grep -c 'NodeRecord dump' sa-all.log), the program got $(grep -c '^NRALL lid=' prog.out) (ibsim delivers only the first MAD of a multi-MAD answer)"
}

FAILS=0
run_mode plain "" || FAILS=$((FAILS+1))
run_mode issm "IBAL_VERBS_ISSM=1" || FAILS=$((FAILS+1))
if [ $FAILS = 0 ]; then
	echo "RESULT: PASS"
	[ "${IBSIM_KEEP:-0}" = 1 ] || rm -rf "$WORK"
	exit 0
fi
echo "RESULT: FAIL ($FAILS) - logs in $WORK"
exit 1
