#!/bin/sh
# ibal realstack: data-path benchmark in the guest: ibal_perf on ibal and on raw libibverbs, and perftest.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# Run by the guest's /init (tests/integration/realstack/guest-init.sh) when the host asked for it with
# IBAL_RXE_BENCH=1, after the test programs, with the kernel's CM modules loaded. The host must have
# copied ibal_perf into the guest: IBAL_RXE_EXTRA=ulp/ibal_perf (or the path of one built elsewhere).
# Environment from /init: OUT (this script's output directory), IBAL_RXE_DEV, IBAL_RXE_IP,
# IBAL_RXE_PORT, IBAL_RXE_GID (index of rxe0's IPv4 RoCE v2 GID), IBAL_RXE_BIN, IBAL_RXE_LIB.
#
# For each test, on rxe0 port 1:
#   lat   RC send/receive ping-pong, one-way latency (us): average and median
#   bw    RDMA write bandwidth (MB/s, MB = 2^20 bytes)
#   rate  RC send message rate (msg/s)
# ibal_perf runs --api ibal (IBAL_PROVIDERS=verbs) and --api raw alternately, REPS times each
# (ibal first in odd rounds, raw first in even ones), one process per run; the best run of each
# counts (lowest latency, highest bandwidth or rate). perftest then runs the same test REPS times,
# server and client on this host (-d DEV -x GID -F, the same size and iterations; ib_send_lat
# with -I 0 since ibal_perf sends nothing inline; the bandwidth tools with -t WINDOW -Q 16, the
# window and signaling interval ibal_perf uses), best run again:
#   lat   ib_send_lat: t_avg and t_typical (its median)
#   bw    ib_write_bw: BW average
#   rate  ib_send_bw -s 64: MsgRate (Mpps * 10^6) of the receiving side (the server)
# Last, ibal_perf --api both runs the two APIs in turns inside one process: ROUNDS rounds of
# 2 N / ROUNDS iterations on each, the order swapped every round, and reports the median of the
# rounds' ratios ibal/raw (with their minimum and maximum): a paired comparison that a drifting
# machine (an emulated guest on a shared host) disturbs far less than it does separate runs.
# Printed: a table (test | ibal | raw verbs | ibal/raw | perftest | paired ibal/raw) and one
# machine-readable line per row:
#   @@ BENCH test=lat metric=avg unit=us size=2 n=1000 ibal=V raw=V ratio=R perftest=V|-
#            paired=R|- paired_min=R|- paired_max=R|-
# (lat: the paired ratio is of the rounds' median latencies, on both lat rows), and a table of
# the CPU time per operation in the paired runs, user and system, of each API:
#   @@ BENCH-CPU test=rate ibal_user_us=V raw_user_us=V ibal_sys_us=V raw_sys_us=V
# plus one per run: @@ BENCH-RUN tool=ibal_perf|perftest api=ibal|raw|- test=T rep=K value=V|-
# median=V|- [cpu_process=S cpu_main=S] (ibal_perf: CPU seconds of the process, all threads, and
# of its main thread during the test), and per paired run
#   @@ BENCH-PAIR api=ibal|raw test=T value=V median=V|- best=V user_us=V sys_us=V
#   @@ BENCH-PAIR api=pair test=T rounds=R ratio=R min=R max=R
# The tables and the lines go to stdout (the host's WORK/out/bench/guest-bench.log) and to the
# guest console (the host's serial log). Each run's output is kept in $OUT/runs/.
#
# Knobs: IBAL_BENCH_REPS (3), IBAL_BENCH_LAT_N (10000), IBAL_BENCH_BW_N (1000), IBAL_BENCH_RATE_N
# (50000), IBAL_BENCH_LAT_S (2), IBAL_BENCH_BW_S (65536), IBAL_BENCH_RATE_S (64),
# IBAL_BENCH_WINDOW (64), IBAL_BENCH_WARM (100), IBAL_BENCH_TIMEOUT (seconds per run, 120),
# IBAL_BENCH_TESTS ("lat bw rate"), IBAL_BENCH_PERFTEST (1; 0: skip perftest),
# IBAL_BENCH_ROUNDS (40; 0: no paired run), IBAL_BENCH_ENV
# (VAR=value[,VAR=value...] added to both APIs' ibal_perf environment, e.g.
# IBAL_VERBS_POLL_MS=60000). They are read from the environment and from the IBAL_BENCH_*=value
# words of the host's IBAL_RXE_ENV (so IBAL_BENCH_TESTS takes one test there).
#
# Exit: 0 when every ibal_perf run gave its figure; 1 otherwise (ibal_perf missing, a run failed).
# A perftest run that fails only leaves "-" in its column.

export PATH=/usr/sbin:/usr/bin:/sbin:/bin
OUT=${OUT:-/tmp/bench}
DEV=${IBAL_RXE_DEV:-rxe0}
IP=${IBAL_RXE_IP:-10.77.0.1}
GID=${IBAL_RXE_GID:-}
BIN=${IBAL_RXE_BIN:-/opt/ibal/bin}
LIB=${IBAL_RXE_LIB:-/opt/ibal/lib}

# IBAL_BENCH_* words of the host's IBAL_RXE_ENV (the programs' extra environment)
if [ -f /ibal/config ]; then
	# shellcheck disable=SC1091 # made by rxe-vm.sh
	PROG_ENV=$(. /ibal/config && echo "${PROG_ENV:-}")
	for w in $PROG_ENV; do
		# shellcheck disable=SC2163 # exports the assignment the word holds
		case $w in IBAL_BENCH_[A-Z_]*=*) export "$w" ;; esac
	done
fi
REPS=${IBAL_BENCH_REPS:-3}
LAT_N=${IBAL_BENCH_LAT_N:-10000}
BW_N=${IBAL_BENCH_BW_N:-1000}
RATE_N=${IBAL_BENCH_RATE_N:-50000}
LAT_S=${IBAL_BENCH_LAT_S:-2}
BW_S=${IBAL_BENCH_BW_S:-65536}
RATE_S=${IBAL_BENCH_RATE_S:-64}
WINDOW=${IBAL_BENCH_WINDOW:-64}
WARM=${IBAL_BENCH_WARM:-100}
T=${IBAL_BENCH_TIMEOUT:-120}
TESTS=${IBAL_BENCH_TESTS:-lat bw rate}
PERFTEST=${IBAL_BENCH_PERFTEST:-1}
ROUNDS=${IBAL_BENCH_ROUNDS:-40}
EXTRA_ENV=$(echo "${IBAL_BENCH_ENV:-}" | tr ',' ' ')

RUNS=$OUT/runs
mkdir -p "$RUNS"
CONSOLE=
[ -w /dev/console ] && CONSOLE=/dev/console
# show LINE...: stdout and the console
show() {
	echo "$*"
	[ -n "$CONSOLE" ] && echo "$*" >"$CONSOLE" 2>/dev/null
	return 0
}

PERF=$BIN/ibal_perf
if [ ! -x "$PERF" ]; then
	show "guest-bench: $PERF not found: pass IBAL_RXE_EXTRA=ulp/ibal_perf to rxe-vm.sh"
	exit 1
fi
XOPT=
[ -n "$GID" ] && XOPT="-x $GID"
FAILED=0
PORT_NO=18515 # perftest's TCP port, a new one per run

show "guest-bench: $DEV, GID index ${GID:-auto}, $(nproc 2>/dev/null || echo '?') CPUs, kernel $(uname -r);" \
	"$REPS runs each, window $WINDOW, warm-up $WARM"

# field VALUE-LINE KEY: the value of KEY=... in an ibal_perf result line
field() {
	echo "$1" | awk -v k="$2" '{ for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) { print substr($i, length(k) + 2); exit } }'
}

# perf_run API TEST SIZE N REP: one ibal_perf run; sets V and M (value, median or -)
perf_run() {
	log=$RUNS/ibal_perf-$2-$1-$5.log
	# shellcheck disable=SC2086 # XOPT and EXTRA_ENV are word lists on purpose
	env IBAL_PROVIDERS=verbs LD_LIBRARY_PATH="$LIB" $EXTRA_ENV timeout -k 5 "$T" "$PERF" --api "$1" \
		-t "$2" -s "$3" -n "$4" -W "$WARM" -w "$WINDOW" -T "$T" $XOPT >"$log" 2>&1 </dev/null
	rc=$?
	line=$(grep "^ibal_perf api=$1 test=$2 " "$log" | tail -1)
	V=$(field "$line" value)
	M=$(field "$line" median)
	[ -n "$M" ] || M=-
	# CPU seconds (user + sys) of the process and of its main thread during the test
	cpu=$(awk '/^# cpu test=/ { printf "cpu_process=%.3f cpu_main=%.3f", $6 + $9, $14 + $17 }' "$log")
	if [ $rc != 0 ] || [ -z "$V" ]; then
		V=-
		FAILED=1
		show "guest-bench: ibal_perf --api $1 -t $2 failed (exit $rc); last lines of $log:"
		tail -5 "$log" | while read -r l; do show "  | $l"; done
	fi
	show "@@ BENCH-RUN tool=ibal_perf api=$1 test=$2 rep=$5 value=$V median=$M${cpu:+ $cpu}"
}

# pair_run TEST SIZE N: ibal_perf --api both; sets P PMIN PMAX (the median ratio, min, max or -)
pair_run() {
	log=$RUNS/ibal_perf-$1-pair.log
	# shellcheck disable=SC2086 # XOPT and EXTRA_ENV are word lists on purpose
	env IBAL_PROVIDERS=verbs LD_LIBRARY_PATH="$LIB" $EXTRA_ENV timeout -k 5 "$((T * 2))" "$PERF" \
		--api both -r "$ROUNDS" -t "$1" -s "$2" -n "$3" -W "$WARM" -w "$WINDOW" -T "$T" $XOPT \
		>"$log" 2>&1 </dev/null
	rc=$?
	line=$(grep "^ibal_perf api=pair test=$1 " "$log" | tail -1)
	P=$(field "$line" value)
	PMIN=$(field "$line" min)
	PMAX=$(field "$line" max)
	if [ $rc != 0 ] || [ -z "$P" ]; then
		P=- PMIN=- PMAX=-
		FAILED=1
		show "guest-bench: ibal_perf --api both -t $1 failed (exit $rc); last lines of $log:"
		tail -5 "$log" | while read -r l; do show "  | $l"; done
	fi
	cpuline=$1
	for api in ibal raw; do
		line=$(grep "^ibal_perf api=$api test=$1 " "$log" | tail -1)
		v=$(field "$line" value)
		m=$(field "$line" median)
		b=$(field "$line" best)
		u=$(field "$line" user_us)
		y=$(field "$line" sys_us)
		show "@@ BENCH-PAIR api=$api test=$1 value=${v:--} median=${m:--} best=${b:--}" \
			"user_us=${u:--} sys_us=${y:--}"
		cpuline="$cpuline ${u:--} ${y:--}"
	done
	echo "$cpuline" >>"$CPUROWS"
	show "@@ BENCH-PAIR api=pair test=$1 rounds=$ROUNDS ratio=$P min=$PMIN max=$PMAX"
}

# pt_run TOOL SIZE N REP KIND: one perftest run, server in the background; sets V and M
# (KIND lat: t_avg and t_typical; bw: BW average MB/s; rate: MsgRate in msg/s)
pt_run() {
	tool=$1
	PORT_NO=$((PORT_NO + 1))
	opts="-d $DEV -F -s $2 -n $3 -p $PORT_NO $XOPT"
	case $5 in
	lat) opts="$opts -I 0" ;;
	*) opts="$opts -t $WINDOW -Q 16" ;;
	esac
	slog=$RUNS/$tool-s$2-$4.server.log
	clog=$RUNS/$tool-s$2-$4.client.log
	V=-
	M=-
	# shellcheck disable=SC2086
	timeout -k 5 "$T" "$tool" $opts >"$slog" 2>&1 </dev/null &
	spid=$!
	tries=0
	rc=1
	# the server needs a moment to listen: the client is retried while it cannot connect
	while [ $tries -lt 20 ]; do
		sleep 0.3
		# shellcheck disable=SC2086
		timeout -k 5 "$T" "$tool" $opts "$IP" >"$clog" 2>&1 </dev/null
		rc=$?
		[ $rc = 0 ] && break
		grep -q "Couldn't connect\|Unable to open file descriptor\|Failed to connect" "$clog" || break
		kill -0 $spid 2>/dev/null || break
		tries=$((tries + 1))
	done
	[ $rc = 0 ] || kill $spid 2>/dev/null
	wait $spid 2>/dev/null
	if [ $rc = 0 ]; then
		# the result line "#bytes #iterations ..." (numbers) -> "VALUE MEDIAN"; a zero
		# figure counts as none. ib_send_bw: the receiver's (server's) message rate, as
		# ibal_perf counts B's receives; the client's if the server gave none.
		res=
		for f in $([ "$5" = rate ] && echo "$slog") "$clog"; do
			res=$(awk -v s="$2" -v n="$3" -v k="$5" '$1 == s && $2 == n {
				if (k == "lat" && $6 > 0) print $6, $5
				else if (k == "bw" && $4 > 0) print $4, "-"
				else if (k == "rate" && $5 > 0) printf "%.0f -\n", $5 * 1000000
				exit
			}' "$f")
			[ -n "$res" ] && break
		done
		if [ -n "$res" ]; then
			V=${res% *}
			M=${res#* }
		fi
	fi
	if [ "$V" = - ]; then
		show "guest-bench: $tool failed (exit $rc); last lines of $clog:"
		tail -5 "$clog" | while read -r l; do show "  | $l"; done
	fi
	show "@@ BENCH-RUN tool=perftest api=- test=$tool rep=$4 value=$V median=$M"
}

# best MODE V...: the lowest (MODE min) or highest (max) of the numbers given, or -
best() {
	mode=$1
	shift
	echo "$@" | awk -v m="$mode" '{
		for (i = 1; i <= NF; i++) if ($i != "-") {
			if (!have || (m == "min" && $i + 0 < b + 0) || (m == "max" && $i + 0 > b + 0)) b = $i
			have = 1
		}
		print have ? b : "-"
	}'
}

ratio() { # A B: A/B with 4 decimals, or -
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.4f\n", a / b }'
}

ROWS=$OUT/rows.txt
CPUROWS=$OUT/cpu-rows.txt
: >"$ROWS"
: >"$CPUROWS"
row() { # TEST METRIC UNIT SIZE N IBAL RAW PERFTEST (and P PMIN PMAX of the paired run)
	r=$(ratio "$6" "$7")
	echo "$1 $2 $3 $4 $5 $6 $7 $r $8 $P $PMIN $PMAX" >>"$ROWS"
}

for t in $TESTS; do
	case $t in
	lat) s=$LAT_S n=$LAT_N mode=min ;;
	bw) s=$BW_S n=$BW_N mode=max ;;
	rate) s=$RATE_S n=$RATE_N mode=max ;;
	*) show "guest-bench: unknown test $t"; FAILED=1; continue ;;
	esac
	iv='' rv='' imed='' rmed=''
	k=1
	while [ $k -le "$REPS" ]; do
		if [ $((k % 2)) = 1 ]; then order="ibal raw"; else order="raw ibal"; fi
		for api in $order; do
			perf_run "$api" "$t" "$s" "$n" "$k"
			if [ "$api" = ibal ]; then iv="$iv $V" imed="$imed $M"; else rv="$rv $V" rmed="$rmed $M"; fi
		done
		k=$((k + 1))
	done
	pv='' pm=''
	if [ "$PERFTEST" = 1 ]; then
		case $t in
		lat) tool=ib_send_lat ;;
		bw) tool=ib_write_bw ;;
		rate) tool=ib_send_bw ;;
		esac
		if command -v "$tool" >/dev/null; then
			k=1
			while [ $k -le "$REPS" ]; do
				pt_run "$tool" "$s" "$n" "$k" "$t"
				pv="$pv $V" pm="$pm $M"
				k=$((k + 1))
			done
		else
			show "guest-bench: $tool not in the guest"
		fi
	fi
	P=- PMIN=- PMAX=-
	[ "$ROUNDS" -gt 0 ] && pair_run "$t" "$s" "$((n * 2))"
	case $t in
	lat)
		row lat avg us "$s" "$n" "$(best min "$iv")" "$(best min "$rv")" "$(best min "$pv")"
		row lat median us "$s" "$n" "$(best min "$imed")" "$(best min "$rmed")" "$(best min "$pm")"
		;;
	bw) row bw write MB/s "$s" "$n" "$(best max "$iv")" "$(best max "$rv")" "$(best max "$pv")" ;;
	rate) row rate send msg/s "$s" "$n" "$(best max "$iv")" "$(best max "$rv")" "$(best max "$pv")" ;;
	esac
done

# ---- CM connection rate: ibal_cmtime (ib_cm_* through librdmacm, the kernel CM
# being loaded here) against rdma-core's cmtime, N connections each, server and
# client on this device; the wall time of the client run (/proc/uptime).
CM_N=${IBAL_BENCH_CM_N:-200}
uptime_cs() { awk '{ split($1, a, "."); print a[1] * 100 + a[2] }' /proc/uptime; }
cm_rate() { # name, then the server and client commands as one string each
	name=$1 srv=$2 cli=$3
	log=$RUNS/cm-$name.log
	sh -c "$srv" >"$log.srv" 2>&1 </dev/null &
	spid=$!
	sleep 1 # the server's listen (a shell bench, not a test)
	t0=$(uptime_cs)
	timeout -k 5 "$T" sh -c "$cli" >"$log" 2>&1 </dev/null
	rc=$?
	t1=$(uptime_cs)
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	if [ $rc = 0 ] && [ "$t1" -gt "$t0" ]; then
		echo "$CM_N $t0 $t1" | awk '{ printf "%.0f", $1 * 100 / ($3 - $2) }'
	else
		FAILED=1
		show "guest-bench: CM run $name failed (exit $rc); last lines of $log:"
		tail -5 "$log" | while read -r l; do show "  | $l"; done
		echo -
	fi
}
CMT=$BIN/ibal_cmtime
CM_IBAL=- CM_RAW=-
if [ -x "$CMT" ] && command -v cmtime >/dev/null 2>&1; then
	CM_IBAL=$(cm_rate ibal "env IBAL_PROVIDERS=verbs LD_LIBRARY_PATH=$LIB $CMT -s -c $CM_N -n 0 -T $T" \
		"env IBAL_PROVIDERS=verbs LD_LIBRARY_PATH=$LIB $CMT -c $CM_N -n 0 -T $T ::ffff:$IP")
	CM_RAW=$(cm_rate cmtime "cmtime -b $IP -c $CM_N" "cmtime -s $IP -c $CM_N")
	show "@@ BENCH-CM tool=ibal_cmtime n=$CM_N conn_per_s=$CM_IBAL"
	show "@@ BENCH-CM tool=cmtime n=$CM_N conn_per_s=$CM_RAW"
else
	show "guest-bench: CM rate skipped (ibal_cmtime or rdma-core's cmtime missing)"
fi

show ""
show "ibal data path on $DEV (best of $REPS; lat: one-way us, lower is better; bw, rate: higher is better)"
show "$(printf '%-26s | %12s | %12s | %8s | %12s | %s' test ibal 'raw verbs' ibal/raw perftest \
	"paired ibal/raw ($ROUNDS rounds: median, min..max)")"
show "------------------------------------------------------------------------------------------------------------------"
while read -r t m u s n iv rv r pv P PMIN PMAX; do
	pr=$P
	[ "$P" = - ] || pr="$P ($PMIN..$PMAX)"
	show "$(printf '%-26s | %12s | %12s | %8s | %12s | %s' "$t $m ($u, ${s} B)" "$iv" "$rv" "$r" "$pv" "$pr")"
done <"$ROWS"
show "perftest: lat ib_send_lat -I 0 (t_avg, t_typical), bw ib_write_bw, rate ib_send_bw (receiver's MsgRate)"
show ""
show "CM connection rate on $DEV ($CM_N connections, connect + disconnect, wall time of the client):"
show "  ibal_cmtime (ib_cm_* through librdmacm): $CM_IBAL/s   rdma-core cmtime: $CM_RAW/s   ratio $(ratio "$CM_IBAL" "$CM_RAW")"
if [ -s "$CPUROWS" ]; then
	show ""
	show "CPU us per operation in the paired runs (the process, all threads; lat: per round trip;"
	show "user: ibal or libibverbs with the loop, sys: the kernel, rxe included)"
	show "$(printf '%-6s | %10s | %10s | %10s | %10s | %10s' test 'ibal user' 'raw user' 'user ratio' 'ibal sys' 'raw sys')"
	show "----------------------------------------------------------------------"
	while read -r t iu is ru rs; do
		show "$(printf '%-6s | %10s | %10s | %10s | %10s | %10s' "$t" "$iu" "$ru" "$(ratio "$iu" "$ru")" "$is" "$rs")"
		show "@@ BENCH-CPU test=$t ibal_user_us=$iu raw_user_us=$ru ibal_sys_us=$is raw_sys_us=$rs"
	done <"$CPUROWS"
fi
while read -r t m u s n iv rv r pv P PMIN PMAX; do
	show "@@ BENCH test=$t metric=$m unit=$u size=$s n=$n ibal=$iv raw=$rv ratio=$r perftest=$pv" \
		"paired=$P paired_min=$PMIN paired_max=$PMAX"
done <"$ROWS"
exit $FAILED
