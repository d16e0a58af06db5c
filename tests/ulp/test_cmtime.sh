#!/bin/sh
# ibal tests: the connection benchmark ibal_cmtime connects, exchanges and disconnects through the CM.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# Runs $CMTIME (default ./ulp/ibal_cmtime), each run in a fresh fabric
# directory and within 60 s: both sides in one process (-f), the no-CM
# reference (-f --raw), then a server and a client as two processes with
# the client given the server's GID, its LID, and nothing but the service
# ID (found through the SA's ServiceRecord), a thousand and then four
# thousand connections at once with no CM message resent (the second beyond
# what the client's CM puts on the wire at once); last, a client asking for a
# service nobody listens on must fail with REJ reason 8 (invalid service
# ID) and exit 1; a client with no path to its server's LID exits 1 (no
# crash). A passing run exits 0, prints its step table with every
# CM step, and a JSON line with "ok":true and every connection counted.
set -u
prog=${CMTIME:-./ulp/ibal_cmtime}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibal-cmtime-test-XXXXXX") || exit 1
srv_pid=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[ -z "$srv_pid" ] || kill "$srv_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
n=0 fail=0 k=0

# result NAME BAD OUTPUT...: counts one test.
result() {
	n=$((n + 1))
	if [ -n "$2" ]; then
		echo "FAIL: $1: $2"
		shift 2
		cat "$@"
		fail=$((fail + 1))
	else
		echo "ok: $1"
	fi
}

# check_run OUTPUT STATUS CONNS ROWS...: what a passing run prints.
check_run() {
	bad=""
	[ "$2" -eq 0 ] || bad="exit status $2"
	out=$1 conns=$3
	shift 3
	for row in "$@"; do
		grep -q "^$row *: " "$out" || bad="$bad${bad:+; }no row '$row'"
	done
	grep -q "^{\"tool\":\"ibal_cmtime\".*\"ok\":true,\"conns\":$conns," "$out" ||
		bad="$bad${bad:+; }no JSON line with ok and $conns connections"
	echo "$bad"
}

# fresh: a new fabric directory in IBAL_SOFT_FABRIC.
fresh() {
	k=$((k + 1))
	IBAL_SOFT_FABRIC=$tmp/fab.$k
	export IBAL_SOFT_FABRIC
	mkdir "$IBAL_SOFT_FABRIC"
}

# server_start [N]: a server in the background (of N connections from any
# number of clients: -c); waits for its "listening" line.
server_start() {
	srv_out=$tmp/srv.$k
	"$prog" -s ${1:+-c "$1"} -T 50 --json >"$srv_out" 2>&1 &
	srv_pid=$!
	i=0
	while ! grep -q "listening" "$srv_out" 2>/dev/null; do
		i=$((i + 1))
		if [ "$i" -gt 200 ] || ! kill -0 "$srv_pid" 2>/dev/null; then
			return 1
		fi
		sleep 0.05
	done
	gid=$(sed -n 's/.* GID \([0-9a-fA-F:]*\) .*/\1/p' "$srv_out")
	lid=$(sed -n 's/.* LID \(0x[0-9a-fA-F]*\) .*/\1/p' "$srv_out")
	return 0
}

# server_end: waits for the server; its status in srv_rc.
server_end() {
	wait "$srv_pid" 2>/dev/null
	srv_rc=$?
	srv_pid=
}

if [ ! -x "$prog" ]; then
	echo "FAIL: no ibal_cmtime at $prog (set CMTIME)"
	echo "CUNIT-TOTALS: tests=1 failed=1"
	exit 1
fi

cm_rows="create qp|req -> rep|rtu|connect|exchange|disconnect|destroy qp"

# 1. Both sides in one process.
fresh
timeout 60 "$prog" -f -c 50 -n 3 -T 50 --json >"$tmp/f.out" 2>&1
rc=$?
IFS='|'
# shellcheck disable=SC2086
bad=$(check_run "$tmp/f.out" $rc 50 $cm_rows)
unset IFS
grep -q "^rep -> rtu *: " "$tmp/f.out" || bad="$bad${bad:+; }no server table"
cr=$(printf '\r')
grep -q "$cr" "$tmp/f.out" && bad="$bad${bad:+; }a progress line though stderr is not a terminal"
result "ibal_cmtime -f (server and client threads, 50 connections)" "$bad" "$tmp/f.out"

# 1b. The progress line, forced (IBAL_PROGRESS=1): on stderr only, erased.
fresh
IBAL_PROGRESS=1 timeout 60 "$prog" -f -c 20 -T 50 >"$tmp/p.out" 2>"$tmp/p.err"
rc=$?
bad=""
[ "$rc" -eq 0 ] || bad="exit status $rc"
grep -q "replies: [0-9]*/20 (" "$tmp/p.err" || bad="$bad${bad:+; }no progress of the replies on stderr"
[ "$(tail -c 4 "$tmp/p.err" | od -An -c | tr -d ' ')" = '\r033[K' ] ||
	bad="$bad${bad:+; }the last progress line not erased"
grep -q "$cr" "$tmp/p.out" && bad="$bad${bad:+; }progress on stdout"
result "IBAL_PROGRESS=1: a progress line on stderr, erased at the end" "$bad" "$tmp/p.err"

# 2. The reference without a CM.
fresh
timeout 60 "$prog" -f --raw -c 50 -n 3 -T 50 --json >"$tmp/raw.out" 2>&1
bad=$(check_run "$tmp/raw.out" $? 50 "create qp" "connect" "exchange" "disconnect" "destroy qp")
result "ibal_cmtime -f --raw (ib_modify_qp by hand)" "$bad" "$tmp/raw.out"

# 3. Two processes: the client given the GID, the LID, or only the service ID.
for how in gid lid svc; do
	fresh
	if ! server_start; then
		result "two processes, server found by $how" "the server did not start" "$srv_out"
		continue
	fi
	case $how in
	gid) dest=$gid ;;
	lid) dest=$lid ;;
	svc) dest= ;;
	esac
	# shellcheck disable=SC2086
	timeout 60 "$prog" -c 40 -n 2 -T 50 --json $dest >"$tmp/c.$k" 2>&1
	rc=$?
	server_end
	IFS='|'
	# shellcheck disable=SC2086
	bad=$(check_run "$tmp/c.$k" $rc 40 resolve\ path $cm_rows)
	unset IFS
	[ "$srv_rc" -eq 0 ] || bad="$bad${bad:+; }server exit status $srv_rc"
	grep -q "^{\"tool\":\"ibal_cmtime\",\"role\":\"server\".*\"ok\":true,\"conns\":40," "$srv_out" ||
		bad="$bad${bad:+; }the server did not count 40 connections"
	result "two processes, server found by $how" "$bad" "$tmp/c.$k" "$srv_out"
done

# What the cm and soft debug lines say when a CM message is resent or dropped.
resend_re='no answer in [0-9]* ms, sending again\|dropped: no receive posted'

# burst N OUT: a client of N connections, all at once, against the server
# started; sets bad to what went wrong, CM messages dropped or resent
# included (the cm and soft debug lines).
burst() {
	timeout 60 "$prog" -c "$1" -n 1 -w 0 -t 20000 -T 50 --json "$gid" >"$2" 2>&1
	rc=$?
	server_end
	IFS='|'
	# shellcheck disable=SC2086
	bad=$(check_run "$2" $rc "$1" $cm_rows)
	unset IFS
	[ "$srv_rc" -eq 0 ] || bad="$bad${bad:+; }server exit status $srv_rc"
	if grep -q "$resend_re" \
		"$2" "$srv_out"; then
		bad="$bad${bad:+; }CM messages were dropped and resent"
	fi
}

# 4. A thousand REQs at once (-w 0), then a thousand DREQs: the MAD layer's
#    receive buffers take the bursts, so no CM message is dropped or resent
#    (a resend would show in the cm debug lines; the response timeout of
#    20 s keeps a slow host's late answers from looking like one). The
#    server's MAD dispatcher grows its receive buffers for its listen
#    (asked by the CM) or at a full poll with a quarter of them waiting.
#    The client's CM puts at most 256 requests to the server's port on the
#    wire at once (al_cm_pace.c), whose answers fit its dispatcher's first
#    buffers: its CM does not ask for room (it would with requests to
#    several remote ports out at once).
fresh
IBAL_LOG_SUBSYS=cm=debug,soft=debug,mad=info
export IBAL_LOG_SUBSYS
if server_start; then
	burst 1000 "$tmp/burst.out"
	# Asked for (a burst expected) or found at its first full poll (a burst
	# of MADs), whichever its thread came to first.
	grep -q "MAD QP 0x1: a burst .*, now [0-9]* receive buffers" "$srv_out" ||
		bad="$bad${bad:+; }the server's dispatcher did not make room for its listen"
	! grep -q "MAD QP 0x1: a burst expected" "$tmp/burst.out" ||
		bad="$bad${bad:+; }the client's CM asked for room for the answers of one remote port"
	result "1,000 connections at once between two processes, nothing resent" "$bad" \
		"$tmp/burst.out" "$srv_out"
else
	result "1,000 connections at once between two processes, nothing resent" \
		"the server did not start" "$srv_out"
fi

# 4b. Four thousand at once: more than the server's QP1 and ring hold. The
#     client's CM keeps at most 256 requests to the server's port on the
#     wire unanswered (al_cm_pace.c); the rest wait their turn, so again no
#     CM message is dropped or resent. How many waited depends on how fast
#     the server answers (none under TSan, where the client is as slow): the
#     count is printed, not checked; test_al_cm_ext checks the waiting. (RC
#     packets of the message exchange may meet a full ring and be resent by
#     their QPs: not checked here.)
fresh
if server_start; then
	burst 4000 "$tmp/burst4k.out"
	echo "requests that waited for room: $(grep -c ": [A-Z]* waits, " "$tmp/burst4k.out")"
	result "4,000 connections at once between two processes, nothing resent" "$bad" \
		"$tmp/burst4k.out" "$srv_out"
else
	result "4,000 connections at once between two processes, nothing resent" \
		"the server did not start" "$srv_out"
fi

# 4c. Sixteen client processes at once, 250 connections each, against one
#     server: up to 4,000 requests and their RTUs from 16 senders at the
#     server's port, more than its ring holds (about 3,000 MADs) whenever
#     its threads wait for a processor meanwhile. A MAD that finds the ring
#     full waits in its sender's QP1 (soft_ud.c), and the server's
#     dispatcher grows its receive buffers at the burst (doubling them up
#     to 16,384 while a quarter of them wait), so
#     again no CM message is dropped or resent. (Heavier bursts, which
#     this step keeps short of for slow hosts: docs/bench-cm.md.)
fresh
if server_start 4000; then
	pids=""
	for c in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
		timeout 60 "$prog" -c 250 -n 1 -w 0 -t 20000 -T 50 --json "$gid" \
			>"$tmp/many.$c" 2>&1 &
		pids="$pids $!"
	done
	bad=""
	c=0
	shown="$tmp/many.1" # on failure: the server's output, the first client's and each failed one's
	for p in $pids; do
		c=$((c + 1))
		wait "$p"
		rc=$?
		IFS='|'
		# shellcheck disable=SC2086
		b=$(check_run "$tmp/many.$c" $rc 250 $cm_rows)
		unset IFS
		[ -z "$b" ] || bad="$bad${bad:+; }client $c: $b"
		[ -z "$b" ] || [ "$c" -eq 1 ] || shown="$shown $tmp/many.$c"
	done
	server_end
	[ "$srv_rc" -eq 0 ] || bad="$bad${bad:+; }server exit status $srv_rc"
	resent=$(grep -l "$resend_re" \
		"$tmp"/many.* "$srv_out")
	if [ -n "$resent" ]; then
		bad="$bad${bad:+; }CM messages were dropped and resent"
		# the outputs that say so are shown too, with their lines first
		for f in $resent; do
			grep "$resend_re" "$f" |
				sed "s|^|$(basename "$f"): |"
			case " $shown $srv_out " in *" $f "*) ;; *) shown="$shown $f" ;; esac
		done
	fi
	# shellcheck disable=SC2086 # the file names hold no blanks
	result "16 processes of 250 connections at once at one server, nothing resent" "$bad" \
		"$srv_out" $shown
else
	result "16 processes of 250 connections at once at one server, nothing resent" \
		"the server did not start" "$srv_out"
fi
unset IBAL_LOG_SUBSYS

# 5. Nobody listens on the service ID: rejected (reason 8), exit 1, no hang.
fresh
if server_start; then
	timeout 60 "$prog" -c 3 -S 0x1234 -T 20 "$lid" >"$tmp/rej.out" 2>&1
	rc=$?
	kill "$srv_pid" 2>/dev/null
	server_end
	bad=""
	[ "$rc" -eq 1 ] || bad="exit status $rc, not 1"
	grep -q "rejected (reason 8" "$tmp/rej.out" || bad="$bad${bad:+; }no REJ reason 8"
	result "a REQ to an unknown service ID is rejected" "$bad" "$tmp/rej.out"
else
	result "a REQ to an unknown service ID is rejected" "the server did not start" "$srv_out"
fi

# 6. A client that fails before it made its connections (no path to a LID
#    nobody has): exit 1 with a message and its JSON line, not a crash.
fresh
timeout 60 "$prog" -c 3 -T 20 --json 0x7ff0 >"$tmp/early.out" 2>&1
rc=$?
bad=""
[ "$rc" -eq 1 ] || bad="exit status $rc, not 1"
grep -q "\"ok\":false" "$tmp/early.out" || bad="$bad${bad:+; }no JSON line with ok false"
result "a client failing before its connections exist exits 1" "$bad" "$tmp/early.out"

echo "CUNIT-TOTALS: tests=$n failed=$fail"
echo "cmtime checks: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
