#!/bin/bash
# ibal tests: runs test_al_sa_ibsim (the access layer's SA client through the verbs provider) against OpenSM on ibsim.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# Usage: tests/integration/ibsim/ibsim-al.sh [path/to/test_al_sa_ibsim]
#   (default: $TEST_AL_SA_IBSIM, else ./tests/integration/ibsim/test_al_sa_ibsim, ./test_al_sa_ibsim, or next to
#   this script)
#
# The fabric of tests/integration/ibsim/ibsim-common.sh (ibsim, OpenSM master on H1); the program runs on H2
# with IBAL_PROVIDERS=verbs under LD_PRELOAD=libumad2sim.so, and asks through ib_query,
# ib_reg_svc, ib_join_mcast_no_qp and ib_subscribe what saquery, run here from the same node in
# the same run, is asked too; the answers are compared. The program prints "SYNC <tag>" when it
# wants the harness to act, and waits for a line on its stdin (a fifo):
#   svc_registered / svc_deregistered  saquery -S shows / no longer shows its ServiceRecord
#   mc_joined / mc_left                saquery -m shows / no longer shows its membership
#   link_down / link_up                H3's link is taken down / restored (ibsim console)
#   stop_sm                            the answers are compared with saquery's, OpenSM stopped
#   pause_ibsim / resume_ibsim         ibsim is paused / resumed (a MAD held across the close)
# Twice, each on a fresh fabric: as a plain client (ibsim gives unsolicited requests, hence SA
# Reports, only to a port's SM client: reports are not expected) and with IBAL_VERBS_ISSM=1 and
# TEST_SA_QP0=1: the program holds a QP0 alias and the port claims IsSM once that QP0 can
# receive, so the access layer answers the SubnGet(SMInfo) of OpenSM's sweep (an SM that is not
# active, docs/mad.md) and the sweep completes. The reports of traps 128, 65 and 64 must come then (TEST_SA_STRICT_TRAPS=0
# reports missing ones of 65/64 as KNOWN instead). ibsim has no RMPP: GetTable() answers come as
# one MAD without RMPP, as long as what OpenSM wrote; record counts and fields are compared with
# saquery's, a GetTable() the access layer did not accept is reported KNOWN-IBSIM (a failure
# with TEST_SA_STRICT_GETTABLE=1).
# The plain run ends with a MAD that comes back after ib_close_al(): ibsim, paused, holds a query
# to the stopped SM, canceled, across the close; resumed, it returns the query to the program
# at once, which must live on (libumad2sim crashed a process on a MAD for a closed umad device;
# the verbs provider keeps a MAD-only CA's device open) and get the answer to a PerfMgt Get.
# IBSIM_AL_MODES="plain issm" (the default) chooses the runs. An ASan build runs too: the preload
# library comes first (verify_asan_link_order=0), and ASan's memcpy check is off
# (replace_intrin=0) because libumad2sim.so's read() copies past its own 288-byte buffer when
# the caller asks for more.
# Exit: 0 pass, 1 fail, 77 skipped (a tool, the preload library or unshare is missing).
# Work files: $IBSIM_WORK (default ${TMPDIR:-/tmp}/ibal-ibsim-$$), removed on success unless
# IBSIM_KEEP=1.
set -uo pipefail

SELF=$(readlink -f "$0")
HERE=$(dirname "$SELF")
. "$HERE/ibsim-common.sh"
PROG=${1:-${TEST_AL_SA_IBSIM:-}}
if [ -z "$PROG" ]; then # make check runs from the build directory
	for c in ./tests/integration/ibsim/test_al_sa_ibsim ./test_al_sa_ibsim "$HERE/test_al_sa_ibsim"; do
		[ -x "$c" ] && { PROG=$c; break; }
	done
fi
PROG=$(readlink -f "${PROG:-./test_al_sa_ibsim}")
ibsim_check
[ -x "$PROG" ] || { echo "FAIL: test program $PROG not found"; exit 1; }
IBSIM_TIMEOUT=${IBSIM_TIMEOUT:-600} ibsim_enter "$SELF" "$PROG" # two runs of up to 250 s

FAILS=0
ok() { echo "OK    $*"; }
FAILED=
bad() { echo "FAIL  $*"; FAILS=$((FAILS+1)); FAILED="$FAILED
  ${MODE:-plain}: $*"; }
expect() { # regex what
	if grep -q "$1" prog.out; then ok "$2"; else bad "$2"; fi
}
line() { grep -m1 "^$1 " prog.out; }
kv() { line "$1" | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; } # KEY FIELD
field() { sed -n "s/^[[:space:]]*$1\.\.*:*\.*\(.*\)$/\1/p" | head -1 | tr -d ' '; }
cmp_field() { # name ours theirs
	if [ -n "$2" ] && [ -n "$3" ] && [ "$(($2))" = "$(($3))" ]; then echo "SAME  $1: $2"
	else bad "$1: ours '$2' saquery '$3'"; fi
}
known() { # KEY: 0 when the program's answer was ibsim's known GetTable() case
	grep -q "^$1 KNOWN-IBSIM" prog.out && { echo "KNOWN $1: not accepted by the access layer (RMPP-less GetTable answer), not compared"; return 0; }
	return 1
}

cmp_count() { # KEY saquery-log RECORD-TITLE: records counted by the access layer and printed by saquery
	cmp_field "$1 record count" "$(kv "$1" cnt)" "$(grep -c "^$3 dump:" "$2")"
}
cmp_path() { # KEY saquery-log
	local k=$1 f theirs
	known "$k" && return
	[ "$(kv "$k" status)" = IB_SUCCESS ] || { bad "$k: $(line "$k")"; return; }
	cmp_count "$k" "$2" PathRecord
	for f in slid dlid sl mtu rate pkt_life pkey; do
		theirs=$(field $f < "$2")
		case $f in mtu|rate|pkt_life) [ -n "$theirs" ] && theirs=$((theirs & 0x3F));; esac
		cmp_field "$k $f" "$(kv "$k" $f)" "$theirs"
	done
}
cmp_node() { # KEY saquery-log
	local k=$1 ours theirs
	known "$k" && return
	[ -n "$(line "$k")" ] || { echo "SKIP  $k: not asked (it needs NR_LID's answer)"; return; }
	[ "$(kv "$k" status)" = IB_SUCCESS ] || { bad "$k: $(line "$k")"; return; }
	cmp_count "$k" "$2" NodeRecord
	cmp_field "$k lid" "$(kv "$k" lid)" "$(field lid < "$2")"
	cmp_field "$k node_guid" "$(kv "$k" node_guid)" "$(field node_guid < "$2")"
	cmp_field "$k port_guid" "$(kv "$k" port_guid)" "$(field port_guid < "$2")"
	ours=$(line "$k" | sed -n 's/.* desc=\(.*\)$/\1/p')
	theirs=$(sed -n 's/^[[:space:]]*NodeDescription\.\.*\(.*\)$/\1/p' "$2" | head -1)
	if [ -n "$ours" ] && [ "$ours" = "$theirs" ]; then echo "SAME  $k NodeDescription: $ours"
	else bad "$k NodeDescription: ours '$ours' saquery '$theirs'"; fi
}
cmp_pir() { # KEY saquery-log
	local k=$1
	known "$k" && return
	[ "$(kv "$k" status)" = IB_SUCCESS ] || { bad "$k: $(line "$k")"; return; }
	cmp_count "$k" "$2" PortInfoRecord
	cmp_field "$k EndPortLid" "$(kv "$k" lid)" "$(field EndPortLid < "$2")"
	cmp_field "$k Lid" "$(kv "$k" base_lid)" "$(sed -n 's/^[[:space:]]*Lid:\.*\(.*\)$/\1/p' "$2" | head -1)"
	cmp_field "$k SMLid" "$(kv "$k" sm_lid)" "$(sed -n 's/^[[:space:]]*SMLid:\.*\(.*\)$/\1/p' "$2" | head -1)"
	cmp_field "$k CapMask" "$(kv "$k" cap_mask)" "$(sed -n 's/^[[:space:]]*CapMask:\.*\(.*\)$/\1/p' "$2" | head -1)"
}
compare() { # the program's answers against saquery's, asked from the same node while the SM runs
	local LID SMLID c
	LID=$(kv PORT lid); SMLID=$(kv PORT sm_lid)
	if [ -z "$LID" ] || [ -z "$SMLID" ]; then bad "no LID/SM LID in the program's output"; return; fi
	sa -p --src-to-dst "$LID:$SMLID" > sa-path.log
	for c in PR_LIDS PR_GIDS PR_GUIDS PR_SYNC; do cmp_path $c sa-path.log; done
	sa "$SMLID" > sa-node-sm.log
	cmp_node NR_LID sa-node-sm.log
	cmp_node NR_GUID sa-node-sm.log
	sa "$LID" > sa-node-self.log
	cmp_node NR_SELF sa-node-self.log
	sa PIR "$LID" > sa-pir-self.log
	cmp_pir PIR_SELF sa-pir-self.log
	sa PIR "$SMLID" > sa-pir-sm.log
	cmp_pir PIR_SM sa-pir-sm.log
	sa -c > sa-cpi.log
	if [ "$(kv CPI status)" = IB_SUCCESS ]; then
		cmp_field "CPI base_ver" "$(kv CPI base_ver)" "$(field 'Base version' < sa-cpi.log)"
		cmp_field "CPI class_ver" "$(kv CPI class_ver)" "$(field 'Class version' < sa-cpi.log)"
		cmp_field "CPI cap_mask" "$(kv CPI cap_mask)" "$(field 'Capability mask' < sa-cpi.log)"
		cmp_field "CPI resp_time" "$(kv CPI resp_time)" "$(field 'Response time value' < sa-cpi.log)"
	else bad "CPI: $(line CPI)"; fi
	sa > sa-all.log
	# ibsim delivers only the first MAD of a multi-MAD answer, to saquery as to the program
	echo "INFO  all NodeRecords: saquery printed $(grep -c 'NodeRecord dump' sa-all.log), the program got $(grep -c '^NRALL_REC ' prog.out) ($(line NRALL | cut -c1-80))"
	[ "$(kv NRALL status)" = IB_SUCCESS ] && cmp_count NRALL sa-all.log NodeRecord
	cmp_field "PR_NOLID answers with an SA error (no record)" "$(kv PR_NOLID sa_status)" 0x0300
}

svc_name() { line SVC_REG | sed -n 's/.* name=\([^ ]*\).*/\1/p'; }
mc_mgid() { kv MC_JOIN mgid; }
mc_member() { # saquery-log: 0 when the log has a member record of our MGID with our port GID
	# (OpenSM shows PortGid :: to a requester without the SM_Key: then the MGID alone counts)
	awk -v m="$(mc_mgid)" -v g="$(kv PORT gid)" '
		/MGID/ { mg = $NF; sub(/^.*\.\.*/, "", mg) }
		/PortGid/ { pg = $NF; sub(/^.*\.\.*/, "", pg); if (mg == m && (pg == g || pg == "::")) f = 1 }
		END { exit !f }' "$1"
}
osm_excerpt() { # what OpenSM logged about notices, sweeps and errors
	grep -E 'Notice|Removed port|Discovered new port|SUBNET UP|ERR|SMInfo|Timeout' osm/osm.log |
		tail -40 | sed 's/^/osm: /'
}
act() { # TAG: what the program asked for
	case $1 in
	svc_registered)
		sa -S > sa-svc1.log
		if grep -q "ServiceName.*$(svc_name)\$" sa-svc1.log; then ok "saquery -S shows the registered service $(svc_name)"
		else bad "saquery -S does not show the registered service $(svc_name)"; fi ;;
	svc_deregistered)
		sa -S > sa-svc2.log
		if grep -q "ServiceName.*$(svc_name)\$" sa-svc2.log; then bad "saquery -S still shows the deregistered service"
		else ok "saquery -S no longer shows the service"; fi ;;
	mc_joined)
		sa -m --smkey 1 > sa-mc1.log # OpenSM's default SM_Key: a trusted query shows port GIDs
		grep -q 'MCMemberRecord member dump' sa-mc1.log || sa -m > sa-mc1.log
		if mc_member sa-mc1.log; then ok "saquery -m shows the membership of $(kv PORT gid) in $(mc_mgid)"
		else bad "saquery -m does not show the membership of $(kv PORT gid) in $(mc_mgid)"; fi
		sa -g > sa-mcg1.log
		cmp_field "MC_JOIN mlid (saquery -g)" "$(kv MC_JOIN mlid)" \
			"$(grep -A3 "$(mc_mgid)\$" sa-mcg1.log | sed -n 's/^[[:space:]]*Mlid\.\.*\(.*\)$/\1/p' | head -1)" ;;
	mc_left)
		sa -m --smkey 1 > sa-mc2.log
		grep -q 'MCMemberRecord member dump' sa-mc2.log || sa -m > sa-mc2.log
		if mc_member sa-mc2.log; then bad "saquery -m still shows the membership after ib_leave_mcast"
		else ok "saquery -m no longer shows the membership"; fi ;;
	# OpenSM (-s 0: no periodic sweep) may sweep on the switch's trap 128 before ibsim has
	# applied the change: SIGHUP makes it sweep again until its log shows H3 gone or back;
	# it then reports trap 65 or 64 to the subscribers.
	link_down)
		if ibsim_change 'Unlink "H3"' 'Removed port .*of node:H3' 10; then ok "OpenSM saw H3's link go down"
		else bad "OpenSM did not see H3's link go down"; osm_excerpt; fi ;;
	link_up)
		if ibsim_change 'ReLink "H3"' 'Discovered new port .*of node: *H3' 10; then ok "OpenSM saw H3's link come back"
		else bad "OpenSM did not see H3's link come back"; osm_excerpt; fi ;;
	stop_sm) compare; ibsim_stop_sm; echo "OpenSM stopped" ;;
	pause_ibsim) if ibsim_signal STOP; then echo "ibsim paused"; else bad "ibsim could not be paused"; fi ;;
	resume_ibsim) if ibsim_signal CONT; then echo "ibsim resumed"; else bad "ibsim could not be resumed"; fi ;;
	*) bad "unknown SYNC tag '$1'" ;;
	esac
}

run_mode() { # NAME ENV: one run on a fresh fabric
	local mode=$1 menv=$2 n=0 tag rc
	ibsim_start "$WORK/$mode" || { bad "the fabric did not come up"; stop_all; return; }
	echo "=== mode $mode: fabric up (ibsim, OpenSM master on H1), program on H2 ${menv:+with $menv}"
	rm -f ctl; mkfifo ctl; exec 4<>ctl
	env SIM_HOST=H2 LD_PRELOAD=$SIM IBAL_PROVIDERS=verbs IBAL_VERBS_POLL_MS=100 \
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:replace_intrin=0 $menv \
		timeout 250 "$PROG" <&4 > prog.out 2> prog.err & PROG_PID=$!
	while :; do
		tag=$(grep '^SYNC ' prog.out | sed -n "$((n+1))p" | cut -d' ' -f2)
		if [ -n "$tag" ]; then
			n=$((n+1)); act "$tag"; echo "$tag done" >&4; continue
		fi
		kill -0 $PROG_PID 2>/dev/null || break
		sleep 0.1
	done
	wait $PROG_PID; rc=$?
	[ -n "${OSM_PID:-}" ] && { echo "(the program did not reach stop_sm: comparing now)"; compare; }
	sed 's/^/prog: /' prog.out
	grep -v '^ *$' prog.err | head -20 | sed 's/^/stderr: /'
	[ $rc = 0 ] || bad "test program exit status $rc"
	if [ "$mode" = issm ]; then
		expect '^REPORT trap=128 RECEIVED' "Report of trap 128 (link state change) delivered to the issm client"
		for t in 65 64; do
			if grep -q "^REPORT trap=$t RECEIVED" prog.out; then ok "Report of trap $t delivered to the issm client"
			elif grep -q "^REPORT trap=$t KNOWN-IBSIM" prog.out; then echo "KNOWN Report of trap $t not delivered (TEST_SA_STRICT_TRAPS=0)"
			else bad "Report of trap $t"; osm_fail=1; fi
		done
		[ -n "${osm_fail:-}" ] && osm_excerpt; osm_fail=
	else
		echo "INFO  plain client: $(grep '^REPORT trap=' prog.out | tr '\n' ' ')(ibsim hands Reports only to SM clients)"
	fi
	expect '^SM_GONE_TIMEOUT status=IB_TIMEOUT' "with the SM stopped, a query ends in IB_TIMEOUT"
	[ "$mode" = issm ] ||
		expect '^AFTER_CLOSE status=IB_SUCCESS' "a MAD back after ib_close_al, then a PerfMgt Get answered"
	exec 4>&-
	stop_all
	exec 3>&-
	cd "$WORK"
}

for m in ${IBSIM_AL_MODES:-plain issm}; do
	case $m in
	plain) run_mode plain "" ;;
	issm) # strict trap 64/65 Reports, under TSan too
		MODE=issm run_mode issm "IBAL_VERBS_ISSM=1 TEST_SA_QP0=1 TEST_SA_EXPECT_REPORTS=1 TEST_SA_STRICT_TRAPS=${TEST_SA_STRICT_TRAPS:-1}" ;;
	esac
done
if [ $FAILS = 0 ]; then
	echo "RESULT: PASS"
	[ "${IBSIM_KEEP:-0}" = 1 ] || rm -rf "$WORK"
	exit 0
fi
echo "RESULT: FAIL ($FAILS) - logs in $WORK; failed:$FAILED"
exit 1
