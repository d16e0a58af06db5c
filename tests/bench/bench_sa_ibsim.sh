#!/bin/bash
# ibal bench: PathRecord queries per second through ib_query (bench_sa) against OpenSM on ibsim, with saquery as the reference.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# Usage: tests/bench/bench_sa_ibsim.sh [path/to/bench_sa]
#   (default: $BENCH_SA, else ./tests/bench/bench_sa, ./bench_sa, or next to this script)
#
# The fabric of tests/integration/ibsim/ibsim-common.sh (ibsim, OpenSM master on H1); on H2, in the same run:
#  - bench_sa with IBAL_PROVIDERS=verbs under LD_PRELOAD=libumad2sim.so ($BENCH_SA_ARGS, default
#    "-t 1 -r 3"): PathRecord Get()s from H2's LID to the SM's, one at a time and 16 in flight;
#  - saquery -p --src-to-dst LID:SMLID, the same query, $SAQUERY_N times (default 50) in a loop:
#    saquery asks one question per process, so its rate includes a process start and the
#    umad2sim connection each time (the cost a script that calls it pays);
#  - saquery ClassPortInfo (-c) the same number of times, for the per-process cost alone.
# Output: bench_sa's tab-separated rows (name, queries/s, queries), the saquery rows in the same
# form, and the ratios of bench_sa's rates to saquery's. Absolute figures depend on ibsim (every
# MAD crosses two unix sockets and the simulator); compare ratios measured in the same run.
# Exit: 0 done, 1 failed, 77 skipped (a tool, the preload library or unshare is missing).
set -uo pipefail

SELF=$(readlink -f "$0")
HERE=$(dirname "$SELF")
. "$HERE/../integration/ibsim/ibsim-common.sh"
PROG=${1:-${BENCH_SA:-}}
if [ -z "$PROG" ]; then
	for c in ./tests/bench/bench_sa ./bench_sa "$HERE/bench_sa"; do
		[ -x "$c" ] && { PROG=$c; break; }
	done
fi
PROG=$(readlink -f "${PROG:-./bench_sa}")
ibsim_check
[ -x "$PROG" ] || { echo "bench_sa_ibsim: $PROG not found (make bench builds it)"; exit 1; }
ibsim_enter "$SELF" "$PROG"

N=${SAQUERY_N:-50}
ibsim_start "$WORK/bench" || exit 1

now() { date +%s.%N; }
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.0f", n / (b - a) }'; }

echo "# PathRecord queries against OpenSM on ibsim from H2 to the SM's port, one run"
env SIM_HOST=H2 LD_PRELOAD=$SIM IBAL_PROVIDERS=verbs IBAL_VERBS_POLL_MS=100 \
	timeout 200 "$PROG" ${BENCH_SA_ARGS:--t 1 -r 3} > bench_sa.out 2> bench_sa.err
rc=$?
cat bench_sa.out
[ $rc = 0 ] || { echo "bench_sa_ibsim: bench_sa failed ($rc)"; sed 's/^/bench_sa: /' bench_sa.err | head -20; exit 1; }
# The LIDs bench_sa used (its first line: "... LID <src> -> LID <dst>, ..."), for saquery.
LID=$(sed -n '1s/.* LID \([0-9]*\) -> LID \([0-9]*\).*/\1/p' bench_sa.out)
SMLID=$(sed -n '1s/.* LID \([0-9]*\) -> LID \([0-9]*\).*/\2/p' bench_sa.out)
[ -n "$LID" ] && [ -n "$SMLID" ] || { echo "bench_sa_ibsim: no LIDs in bench_sa's output"; exit 1; }

t0=$(now)
for ((i = 0; i < N; i++)); do
	sa -p --src-to-dst "$LID:$SMLID" > sa-one.log || { echo "bench_sa_ibsim: saquery failed"; cat sa-one.log; exit 1; }
done
t1=$(now)
grep -q 'dlid\.*'"$SMLID"'$' sa-one.log || { echo "bench_sa_ibsim: saquery's last answer is wrong"; exit 1; }
for ((i = 0; i < N; i++)); do sa -c > /dev/null || exit 1; done
t2=$(now)
SQ=$(rate "$N" "$t0" "$t1")
SC=$(rate "$N" "$t1" "$t2")
printf 'saquery_path_process\t%s\t%s\n' "$SQ" "$N"
printf 'saquery_cpi_process\t%s\t%s\n' "$SC" "$N"
echo "# ratios: bench_sa's queries/s over saquery -p's (one query per process)"
awk -F'\t' -v sq="$SQ" '/^path_query/ && sq > 0 { printf "ratio_%s_over_saquery\t%.1f\n", $1, $2 / sq }' bench_sa.out
stop_all
[ "${IBSIM_KEEP:-0}" = 1 ] || rm -rf "$WORK"
exit 0
