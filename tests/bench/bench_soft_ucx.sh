#!/bin/bash
# ibal bench: the soft fabric next to UCX's shared-memory transports (ucx_perftest) and memcpy, two processes on one host.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# usage: tests/bench/bench_soft_ucx.sh [path/to/bench_soft]
#   (default: $BENCH_SOFT, else ./tests/bench/bench_soft, ./bench_soft, or next to this script)
# environment:
#   BENCH_SOFT_ARGS    more bench_soft options, e.g. "-t 1 -r 2" (the sizes are this script's;
#                      -r is per round, default 1)
#   BENCH_SOFT_ROUNDS_OUT  a file to which each round's bench_soft rows are appended (-p lines)
#   BENCH_UCX_TLS      UCX_TLS for ucx_perftest (default shm: posix, sysv and cma here)
#   BENCH_UCX_RUNS     rounds (default 3): each runs bench_soft once, then each ucx_perftest
#                      test once; each row keeps its best over the rounds
#   BENCH_UCX_TIMEOUT  seconds allowed to each ucx_perftest process (default 30)
#   BENCH_UCX_NETNS    1 (default): server and client in a private network namespace when
#                      unshare permits it; 0: in this one, on a free port (the client
#                      connects to 127.0.0.1; the server listens on all addresses)
#   UCX_PERFTEST       the program (default ucx_perftest, Debian package ucx-utils)
#   BENCH_SOFT_SCALE   the scale rows' numbers of pairs (default 1,2,4,8; 0: no scale rows)
#   BENCH_SOFT_SCALE_ARGS  more bench_soft options for the scale rows, e.g. "-t 2 -r 3"
#
# In one run, in rounds: bench_soft -p (two processes, parent and forked child, over the soft
# fabric), then ucx_perftest (server and client processes, client to 127.0.0.1), each
# measurement alone; the rounds interleave the two, so that a host whose speed changes over
# minutes gives both sides the same chances:
#   latency_2_process     8, 64 B   bench_soft: half the round trip of an RC send ping-pong
#                                   UCX: -t tag_lat (reports half the round trip), mean
#   send_rate_2_process   8, 64 B   bench_soft: RC sends, 128 in flight; UCX: -t tag_bw msg/s
#   rdma_write_2_process  4 KiB, 64 KiB, 1 MiB
#                                   bench_soft: RC RDMA writes; UCX: -t ucp_put_bw
# and prints one table: both figures, ibal/UCX and the goal of issue 16 (latency <= 3;
# send rate >= 0.3; RDMA write >= 0.3 at 1 MiB), and RDMA writes against memcpy.
# bench_soft asks for transparent huge pages for its RDMA buffers (UCX's allocator, for
# ucx_perftest's, tries huge pages first too: UCX_ALLOC_PRIO, UCX_SYSV_HUGETLB_MODE=try); the
# row rdma_write_2_process_4k_pages is the 1 MiB write again on 4 KiB pages (bench_soft -4),
# beside the same UCX figure, for the record (no goal).
# Then the scale rows: N pairs of processes writing 1 MiB at once (bench_soft -P; UCX: N
# ucx_perftest -t ucp_put_bw pairs, the N servers listening before the N clients start
# together), the sum of their bandwidths and its ratio to one pair's, for each side (issue 16's
# goal: no ibal row below one pair).
# MB = 10^6 bytes (ucx_perftest's MB/s are MiB/s: converted).
# The ucx_perftest server listens on all addresses of its network namespace: by default that
# is a private one (unshare -n, or -rn when not root) whose only interface is lo.
# Exit: 0 done (also when ucx_perftest is missing or fails: the table says so), 1 bench_soft
# failed, 2 usage.
set -uo pipefail

SELF=$(readlink -f "$0")
HERE=$(dirname "$SELF")
UCXP=${UCX_PERFTEST:-ucx_perftest}
T=${BENCH_UCX_TIMEOUT:-30}
case $T in '' | *[!0-9]*) T=30 ;; esac

# pair DIR NETNS TEST SIZE ITERS: one ucx_perftest server and client; prints the client's CSV
# (-f -v: a header line, then the final figures). Runs as its own process (--pair) so that its
# trap stops the background server on every exit path; in a private network namespace when
# NETNS is 1. Every process is bounded by `timeout`.
pair() {
	local dir=$1 netns=$2 test=$3 size=$4 n=$5 port srv_rc='' rc=1
	local srv='' cli=''
	trap '[ -n "$cli" ] && kill "$cli" 2>/dev/null; [ -n "$srv" ] && kill "$srv" 2>/dev/null; wait' EXIT
	trap 'exit 143' TERM
	trap 'exit 130' INT
	export UCX_TLS=${BENCH_UCX_TLS:-shm} UCX_WARN_UNUSED_ENV_VARS=n
	: >"$dir/client.err"
	if [ "$netns" = 1 ]; then
		ip link set lo up || { echo "cannot bring lo up in the network namespace" >&2; exit 1; }
	fi
	# Up to three servers: outside a namespace the port may be taken meanwhile.
	for _ in 1 2 3; do
		port=13337
		[ "$netns" = 1 ] || port=$(free_port)
		timeout -k 2 "$T" "$UCXP" -p "$port" >"$dir/server.log" 2>&1 &
		srv=$!
		# Connect until the server listens (refused until then), at most 200 tries.
		for _ in $(seq 1 200); do
			if ! kill -0 "$srv" 2>/dev/null; then
				break   # the server ended: port taken, or broken
			fi
			timeout -k 2 "$T" "$UCXP" 127.0.0.1 -p "$port" -t "$test" -s "$size" -n "$n" \
				-w $((n / 10 < 10000 ? n / 10 : 10000)) -f -v >"$dir/client.out" 2>"$dir/client.err" &
			cli=$!
			wait "$cli"
			rc=$?
			cli=''
			# (UCX logs to stdout)
			[ "$rc" != 0 ] && cat "$dir/client.out" "$dir/client.err" | grep -q 'connect() failed' || break
			sleep 0.05
		done
		if [ "$rc" = 0 ]; then
			wait "$srv"
			srv_rc=$?
			srv=''
			[ "$srv_rc" = 0 ] || { echo "server exit status $srv_rc" >&2; sed 's/^/  server: /' "$dir/server.log" | tail -5 >&2; exit 1; }
			cat "$dir/client.out"
			exit 0
		fi
		if kill -0 "$srv" 2>/dev/null; then
			break   # the server runs: the client itself failed
		fi
		wait "$srv"
		srv_rc=$?
		srv=''
		[ "$netns" != 1 ] && grep -qi 'address already in use\|bind' "$dir/server.log" || break
	done
	[ -z "$srv_rc" ] || echo "server exit status $srv_rc" >&2
	echo "client exit status $rc" >&2
	cat "$dir/client.out" "$dir/client.err" 2>/dev/null | sed 's/^/  client: /' | tail -5 >&2
	sed 's/^/  server: /' "$dir/server.log" | grep -v '^  server: [|+]' | tail -5 >&2
	exit 1
}

# A TCP port in 20000..60999 that nothing listens on (when ss can tell).
free_port() {
	local p used
	used=$(ss -Htan 2>/dev/null | awk '{ n = split($4, a, ":"); print a[n] }')
	for _ in $(seq 1 50); do
		p=$((20000 + RANDOM % 41000))
		printf '%s\n' "$used" | grep -qx "$p" || break
	done
	echo "$p"
}

# pairs DIR NETNS N SIZE ITERS: N ucx_perftest -t ucp_put_bw pairs at once: the N servers, and
# once all of them listen (ss), the N clients together; prints the clients' CSVs one after the
# other. Bounded by `timeout` as pair() is; any failure fails the whole measurement.
pairs() {
	local dir=$1 netns=$2 n=$3 size=$4 iters=$5 i rc=0 up
	local -a port=() srv=() cli=()
	trap 'kill "${cli[@]}" "${srv[@]}" 2>/dev/null; wait' EXIT
	trap 'exit 143' TERM
	trap 'exit 130' INT
	export UCX_TLS=${BENCH_UCX_TLS:-shm} UCX_WARN_UNUSED_ENV_VARS=n
	if [ "$netns" = 1 ]; then
		ip link set lo up || { echo "cannot bring lo up in the network namespace" >&2; exit 1; }
	fi
	for i in $(seq 1 "$n"); do
		if [ "$netns" = 1 ]; then port[i]=$((13337 + i)); else port[i]=$(free_port); fi
		timeout -k 2 "$T" "$UCXP" -p "${port[i]}" >"$dir/server$i.log" 2>&1 &
		srv[i]=$!
	done
	for _ in $(seq 1 200); do
		up=0
		for i in $(seq 1 "$n"); do
			ss -Hltn "sport = :${port[i]}" 2>/dev/null | grep -q . && up=$((up + 1))
		done
		[ "$up" = "$n" ] && break
		sleep 0.05
	done
	[ "$up" = "$n" ] || { echo "$up of $n ucx_perftest servers listen" >&2; exit 1; }
	for i in $(seq 1 "$n"); do
		timeout -k 2 "$T" "$UCXP" 127.0.0.1 -p "${port[i]}" -t ucp_put_bw -s "$size" -n "$iters" \
			-w $((iters / 10)) -f -v >"$dir/client$i.out" 2>"$dir/client$i.err" &
		cli[i]=$!
	done
	for i in $(seq 1 "$n"); do
		wait "${cli[i]}" || { rc=1; echo "client $i of $n failed:" >&2; tail -5 "$dir/client$i.out" "$dir/client$i.err" >&2; }
		wait "${srv[i]}" 2>/dev/null
	done
	cli=() srv=()
	[ "$rc" = 0 ] || exit 1
	for i in $(seq 1 "$n"); do
		cat "$dir/client$i.out"
	done
	exit 0
}

if [ "${1:-}" = --pair ]; then
	shift
	pair "$@"
fi
if [ "${1:-}" = --pairs ]; then
	shift
	pairs "$@"
fi

PROG=${1:-${BENCH_SOFT:-}}
if [ -z "$PROG" ]; then
	for c in ./tests/bench/bench_soft ./bench_soft "$HERE/bench_soft"; do
		[ -x "$c" ] && { PROG=$c; break; }
	done
fi
[ -n "$PROG" ] && [ -x "$PROG" ] || { echo "bench_soft_ucx: bench_soft not found (make bench builds it)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibal-bench-ucx.XXXXXX") || exit 1
child=''
cleanup() {
	[ -n "$child" ] && kill "$child" 2>/dev/null && wait "$child" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# run OUT ERR CMD...: in the background, so that a signal reaches the trap at once.
run() {
	local out=$1 err=$2 rc
	shift 2
	"$@" >"$out" 2>"$err" &
	child=$!
	wait "$child"
	rc=$?
	child=''
	return $rc
}

# soft_round: bench_soft's rows once (-r 1 unless BENCH_SOFT_ARGS says otherwise), appended to
# $tmp/soft. Its own alarm bounds it (two minutes and more); `timeout` (SIGTERM: it cleans up)
# is the backstop.
soft_round() {
	# shellcheck disable=SC2086
	if ! run "$tmp/soft1" "$tmp/soft.err" timeout -k 10 3600 "$PROG" -r 1 ${BENCH_SOFT_ARGS:-} \
		-p -s 4k,64k,1m -m 8,64 -l 8,64; then
		echo "bench_soft_ucx: bench_soft failed:" >&2
		cat "$tmp/soft.err" >&2
		exit 1
	fi
	cat "$tmp/soft1" >>"$tmp/soft"
	[ -z "${BENCH_SOFT_ROUNDS_OUT:-}" ] || cat "$tmp/soft1" >>"$BENCH_SOFT_ROUNDS_OUT"
}
: >"$tmp/soft"

# The 1 MiB write again with the RDMA buffers on 4 KiB pages (-4; the rounds below ask for
# transparent huge pages, as UCX's allocator prefers huge pages): a row for the record.
# shellcheck disable=SC2086
if run "$tmp/small" "$tmp/soft.err" timeout -k 10 3600 "$PROG" ${BENCH_SOFT_ARGS:-} \
	-p -4 -s 1m -m 8 -l 8; then
	sed -n 's/^rdma_write_2_process 1048576 /rdma_write_2_process_4k_pages 1048576 /p' "$tmp/small" >>"$tmp/soft"
else
	echo "bench_soft_ucx: bench_soft -4 failed (its row is left out):" >&2
	cat "$tmp/soft.err" >&2
fi

# The scale rows' numbers of pairs: a comma list of 1 to 16 (one pair first, as bench_soft -P
# wants), or none.
scale=${BENCH_SOFT_SCALE-1,2,4,8}
case $scale in 0 | '') scale='' ;; 1 | 1,*) ;; *) echo "bench_soft_ucx: BENCH_SOFT_SCALE must start with 1" >&2; exit 2 ;; esac
if [ -n "$scale" ]; then
	# shellcheck disable=SC2086
	if ! run "$tmp/scale" "$tmp/soft.err" timeout -k 10 3600 "$PROG" ${BENCH_SOFT_SCALE_ARGS:-} \
		-p -P "$scale" -s 1m; then
		echo "bench_soft_ucx: bench_soft -P $scale failed:" >&2
		cat "$tmp/soft.err" >&2
		exit 1
	fi
	cat "$tmp/scale" >>"$tmp/soft"
fi

# The CSV of one ucx_perftest client on stdin: the line after the header "iterations,...", whose
# columns name overall_lat (us), overall_mr (msg/s), overall_bw (MiB/s); UCX logs to stdout, so
# other lines are skipped. Prints the row of $row, $test and $size; fails without a figure.
parse_pair() {
	awk -F, -v row="$row" -v size="$size" -v test="$test" '
	/^iterations,/ { for (i = 1; i <= NF; i++) col[$i] = i; cols = 1; next }
	!cols || !/^[0-9]/ { next }
	test == "tag_lat" && col["overall_lat"] { print row, size, $col["overall_lat"], "us"; ok = 1 }
	test == "tag_bw" && col["overall_mr"] { print row, size, $col["overall_mr"], "msg/s"; ok = 1 }
	test == "ucp_put_bw" && col["overall_bw"] {
		printf "%s %s %.3f MB/s\n", row, size, $col["overall_bw"] * 1.048576; ok = 1
	}
	END { exit !ok }'
}

# The CSVs of $np ucx_perftest ucp_put_bw clients on stdin: the row of their summed bandwidths;
# fails unless each gave its figure.
parse_pairs() {
	awk -F, -v row="rdma_write_${np}_pairs" -v np="$np" '
	/^iterations,/ { for (i = 1; i <= NF; i++) col[$i] = i; next }
	!col["overall_bw"] || !/^[0-9]/ { next }
	{ sum += $col["overall_bw"] * 1.048576; n++ }
	END { if (n != np) exit 1; printf "%s 1048576 %.3f MB/s\n", row, sum }'
}

# ucx_measure WHAT PARSE N ARGS...: N runs of this script with ARGS (--pair or --pairs), each
# bounded; PARSE turns each run's output into its row in $tmp/ucx. A failed run, or one
# without figures, is reported on stderr and in the table's note.
ucx_measure() {
	local what=$1 parse=$2 n=$3 r=1
	shift 3
	while [ "$r" -le "$n" ]; do
		# shellcheck disable=SC2086
		if run "$tmp/csv" "$tmp/pair.err" timeout -k 5 $((2 * T + 20)) $U bash "$SELF" "$@"; then
			"$parse" <"$tmp/csv" >>"$tmp/ucx" ||
				{ echo "bench_soft_ucx: no figures from $what:" >&2
				  cat "$tmp/csv" >&2; ucx_note="$ucx_note; some UCX runs failed (see above)"; }
		else
			echo "bench_soft_ucx: $what failed:" >&2
			cat "$tmp/pair.err" >&2
			ucx_note="$ucx_note; some UCX runs failed (see above)"
		fi
		r=$((r + 1))
	done
}

# ucx_perftest's tests and iterations (-n; -w a tenth, at most 10,000).
tests="latency_2_process:tag_lat:8:100000 latency_2_process:tag_lat:64:100000
send_rate_2_process:tag_bw:8:1000000 send_rate_2_process:tag_bw:64:1000000
rdma_write_2_process:ucp_put_bw:4096:262144 rdma_write_2_process:ucp_put_bw:65536:16384
rdma_write_2_process:ucp_put_bw:1048576:1024"
runs=${BENCH_UCX_RUNS:-3}
case $runs in '' | *[!0-9]* | 0) runs=3 ;; esac
: >"$tmp/ucx"
ucx_note='' have_ucx=0 netns=0 U=''
if ! command -v "$UCXP" >/dev/null 2>&1; then
	ucx_note="ucx_perftest not found (Debian package ucx-utils): ibal's figures alone"
else
	have_ucx=1
	if [ "${BENCH_UCX_NETNS:-1}" = 1 ] && command -v unshare >/dev/null 2>&1 && command -v ip >/dev/null 2>&1; then
		for u in "unshare -n" "unshare -rn"; do
			if $u ip link set lo up 2>/dev/null; then
				netns=1 U=$u
				break
			fi
		done
	fi
	where="client to 127.0.0.1, $([ "$netns" = 1 ] && echo "private network namespace ($U)" || echo "free port of this host")"
	ucx_note="UCX $(ucx_info -v 2>/dev/null | sed -n 's/^# Version //p') UCX_TLS=${BENCH_UCX_TLS:-shm}, $where; best of $runs rounds, bench_soft and ucx_perftest interleaved"
fi

# 2. The rounds: bench_soft's rows, then each ucx_perftest test once (without ucx_perftest,
# bench_soft alone).
for _ in $(seq 1 "$runs"); do
	soft_round
	[ "$have_ucx" = 1 ] || continue
	for spec in $tests; do
		IFS=: read -r row test size n <<<"$spec"
		ucx_measure "ucx_perftest -t $test -s $size" parse_pair 1 --pair "$tmp" "$netns" "$test" "$size" "$n"
	done
done
# The scale rows: N pairs at once, 64 Ki writes of 1 MiB shared among them (about a second
# here); the row is their sum, best of the runs.
if [ "$have_ucx" = 1 ]; then
	for np in ${scale//,/ }; do
		ucx_measure "$np ucx_perftest pairs at once" parse_pairs "$runs" --pairs "$tmp" "$netns" "$np" 1048576 $((65536 / np))
	done
fi

pages=$(sed -n 's/^# rdma buffers: //p' "$tmp/soft" | head -1)

# 3. The tables: best figure of each row (lowest latency, highest rate or bandwidth).
awk -v note="$ucx_note" -v scale="$scale" -v pages="${pages:-unknown}" '
function best(arr, k, v, unit) {
	if (!(k in arr) || (unit == "us" ? v < arr[k] : v > arr[k])) arr[k] = v
}
function human(b) {
	return b >= 1048576 ? b / 1048576 " MiB" : b >= 1024 ? b / 1024 " KiB" : b " B"
}
function fig(v, unit) {
	return unit == "us" ? sprintf("%.2f us", v) : sprintf("%.0f %s", v, unit)
}
FNR == 1 { file++ }
$3 + 0 <= 0 { next }
file == 1 { best(ibal, $1 " " $2, $3 + 0, $4) }
file == 2 { best(ucx, $1 " " $2, $3 + 0, $4) }
END {
	split("latency_2_process 8|latency_2_process 64|send_rate_2_process 8|send_rate_2_process 64|" \
	      "rdma_write_2_process 4096|rdma_write_2_process 65536|rdma_write_2_process 1048576|" \
	      "rdma_write_2_process_4k_pages 1048576", keys, "|")
	print "# soft fabric (bench_soft) against UCX shared memory (ucx_perftest), two processes on this host"
	print "# " note
	print "# ratio = ibal / UCX, both from this run; memcpy = bench_soft'"'"'s memcpy at that size; MB = 10^6 bytes"
	print "# ibal rdma buffers: " pages "; the _4k_pages row: 4 KiB pages (bench_soft -4)"
	printf "%-29s %8s %14s %14s %9s %6s %4s %12s %12s\n", "row", "size", "ibal", "UCX", "ratio", "goal", "met", \
	       "ibal/memcpy", "UCX/memcpy"
	for (i = 1; i <= 8; i++) {
		k = keys[i]
		split(k, a, " ")
		ku = a[1] == "rdma_write_2_process_4k_pages" ? "rdma_write_2_process " a[2] : k
		u = a[1] == "latency_2_process" ? "us" : a[1] == "send_rate_2_process" ? "msg/s" : "MB/s"
		goal = a[1] == "latency_2_process" ? "<= 3" : a[1] == "send_rate_2_process" ? ">= 0.3" : \
		       a[1] == "rdma_write_2_process" && a[2] == 1048576 ? ">= 0.3" : "-"
		fi = k in ibal ? fig(ibal[k], u) : "n/a"
		fu = ku in ucx ? fig(ucx[ku], u) : "n/a"
		r = "-"; met = "-"
		if ((k in ibal) && (ku in ucx)) {
			q = ibal[k] / ucx[ku]
			r = sprintf("%.3g", q)
			if (goal != "-")
				met = (u == "us" ? q <= 3 : q >= 0.3) ? "yes" : "no"
		}
		m = "memcpy " a[2]; mi = mu = ""
		if (u == "MB/s" && (m in ibal)) {
			mi = (k in ibal) ? sprintf("%.3g", ibal[k] / ibal[m]) : "n/a"
			mu = (ku in ucx) ? sprintf("%.3g", ucx[ku] / ibal[m]) : "n/a"
		}
		printf "%-29s %8s %14s %14s %9s %6s %4s %12s %12s\n", a[1], human(a[2]), fi, fu, r, goal, met, mi, mu
	}
	if (!scale)
		exit
	print ""
	print "# scale: N pairs of processes writing 1 MiB at once, the sum of their bandwidths (MB/s);"
	print "# ratio = N pairs / 1 pair of the same side, this run; goal (ibal): no row below one pair"
	printf "%-22s %14s %11s %14s %11s %6s %4s\n", "row", "ibal", "ibal ratio", "UCX", "UCX ratio", "goal", "met"
	n = split(scale, np, ",")
	k1 = "rdma_write_1_pairs 1048576"
	for (i = 1; i <= n; i++) {
		k = "rdma_write_" np[i] "_pairs 1048576"
		fi = k in ibal ? fig(ibal[k], "MB/s") : "n/a"
		fu = k in ucx ? fig(ucx[k], "MB/s") : "n/a"
		ri = (k in ibal) && (k1 in ibal) ? sprintf("%.3f", ibal[k] / ibal[k1]) : "-"
		ru = (k in ucx) && (k1 in ucx) ? sprintf("%.3f", ucx[k] / ucx[k1]) : "-"
		met = ri == "-" ? "-" : ri + 0 >= 1 ? "yes" : "no"
		printf "%-22s %14s %11s %14s %11s %6s %4s\n", "rdma_write_" np[i] "_pairs", fi, ri, fu, ru, ">= 1", met
	}
}' "$tmp/soft" "$tmp/ucx"
exit 0
