#!/bin/sh
# ibal bench: runs bench_ibal and bench_osm interleaved and prints ns/op and their ratio per row.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# usage: run-bench.sh BENCH_IBAL [BENCH_OSM]
# environment:
#   BENCH_RUNS       runs of each program per group (default 3); a row keeps its best
#   BENCH_GROUPS     groups to run (default: all; see `bench_ibal -l`)
#   BENCH_CALLGRIND  1: also instructions per op under callgrind; only: just that
#   VALGRIND         the valgrind program (default: valgrind)
#   IBAL_PROGRESS    0: no progress line; 1: one even when stderr is not a
#                    terminal (default: only on a terminal)
#
# Each group (qlist, qmap, ...) runs as its own process, ibal and OpenSM
# alternating (ABBA order across runs), so that both see the same machine
# load; each program keeps the best sample of a row and this script the best
# run. Ratio = ibal / OpenSM: below 1.00 ours is faster.
set -u

ibal=${1:?usage: run-bench.sh BENCH_IBAL [BENCH_OSM]}
osm=${2:-}
runs=${BENCH_RUNS:-3}
groups=${BENCH_GROUPS:-}
cg=${BENCH_CALLGRIND:-}
valgrind=${VALGRIND:-valgrind}
case $runs in ''|*[!0-9]*|0) runs=3 ;; esac
[ -n "$groups" ] || groups=$("$ibal" -l) || exit 2

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibal-bench.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
status=0

# On a terminal: one line on stderr, rewritten, saying which group and run
# is going on; erased before the tables. Nothing when not a terminal.
progress=0
[ -t 2 ] && progress=1
case ${IBAL_PROGRESS:-} in 0) progress=0 ;; ?*) progress=1 ;; esac
show() { [ "$progress" = 0 ] || printf '\r\033[K%s' "$*" >&2; }
clear_line() { [ "$progress" = 0 ] || printf '\r\033[K' >&2; }

# run PROG OUTFILE ARGS...: appends the program's rows; remembers failures.
run() {
	run_who=$1 run_out=$2
	shift 2
	if ! "$@" >>"$run_out" 2>>"$tmp/stderr"; then
		echo "run-bench.sh: $run_who failed: $*" >&2
		cat "$tmp/stderr" >&2
		status=1
	fi
	: >"$tmp/stderr"
}

# table TITLE UNIT TOLERANCE IBAL_FILE [OSM_FILE]: best value per row, in
# first-seen order; a ratio above 1 + TOLERANCE is marked "slower", one
# above 1.00 but within it "~" (within noise).
table() {
	awk -F '\t' -v title="$1" -v unit="$2" -v tol="$3" -v have_osm="${5:+1}" '
	FNR == 1 { file++ }
	{
		k = $1; v = $2 + 0
		if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		if (file == 1) { if (!(k in a) || v < a[k]) a[k] = v }
		else { if (!(k in b) || v < b[k]) b[k] = v }
	}
	END {
		print ""
		print title
		if (have_osm) {
			printf "%-34s %12s %12s %7s\n", "operation", "ibal " unit, "OpenSM " unit, "ratio"
			for (i = 1; i <= n; i++) {
				k = order[i]
				if (!(k in a) || !(k in b)) continue
				r = b[k] > 0 ? a[k] / b[k] : 0
				mark = r > 1 + tol ? "  slower" : r > 1.00 ? "  ~" : ""
				printf "%-34s %12.2f %12.2f %7.2f%s\n", k, a[k], b[k], r, mark
				rows++; if (r <= 1.00) ok++; else if (r <= 1 + tol) near++
			}
			if (tol > 0)
				printf "%d rows: ours faster or equal on %d, within %d%% (noise) on %d, slower on %d\n",
					rows, ok, tol * 100 + 0.5, near, rows - ok - near
			else
				printf "%d rows: ours fewer or equal on %d, more on %d\n", rows, ok, rows - ok
		} else {
			printf "%-34s %12s\n", "operation", "ibal " unit
			for (i = 1; i <= n; i++)
				printf "%-34s %12.2f\n", order[i], a[order[i]]
			print "(OpenSM complib not found by configure: ours only)"
		}
	}' "$4" ${5:+"$5"}
}

# Timing: best of $runs runs per group and program.
if [ "$cg" != only ]; then
	: >"$tmp/ibal" && : >"$tmp/osm" && : >"$tmp/stderr"
	echo "make bench: $runs run(s) per group, ABBA order; ibal=$ibal${osm:+ OpenSM=$osm}" >&2
	n_groups=$(echo $groups | wc -w) i=0
	for g in $groups; do
		i=$((i + 1))
		r=1
		while [ "$r" -le "$runs" ]; do
			show "make bench: group $i/$n_groups ($g), run $r/$runs"
			if [ -z "$osm" ]; then
				run ibal "$tmp/ibal" "$ibal" "$g"
			elif [ $((r % 2)) -eq 1 ]; then
				run ibal "$tmp/ibal" "$ibal" "$g"
				run OpenSM "$tmp/osm" "$osm" "$g"
			else
				run OpenSM "$tmp/osm" "$osm" "$g"
				run ibal "$tmp/ibal" "$ibal" "$g"
			fi
			r=$((r + 1))
		done
	done
	clear_line
	table "Time per operation (best of $runs runs; on a shared machine expect a few % of noise)" \
		ns/op 0.05 "$tmp/ibal" ${osm:+"$tmp/osm"}
fi

# Instructions: callgrind, one measured sample per row (see bench_complib.c).
cg_run() {
	cg_prog=$1 cg_out=$2 cg_dir=$tmp/cg.$3
	mkdir -p "$cg_dir"
	# shellcheck disable=SC2086
	run "$3" "$cg_dir/rows" "$valgrind" --tool=callgrind --quiet \
		--callgrind-out-file="$cg_dir/out" "$cg_prog" -c $groups
	# Each dump names its row ("desc: Trigger: Client Request: ROW") and
	# gives the instructions since the zeroing at the row's start ("totals:").
	for f in "$cg_dir"/out.*; do
		[ -f "$f" ] || continue
		awk '/^desc: Trigger: Client Request: / { sub(/^desc: Trigger: Client Request: /, ""); row = $0 }
		     /^totals: / { ir = $2 }
		     END { if (row != "") printf "%s\t%s\n", row, ir }' "$f"
	done >"$cg_dir/ir"
	awk -F '\t' 'NR == FNR { ir[$1] = $2; next }
		$1 == "CG" && ($2 in ir) && $3 > 0 { printf "%s\t%.1f\n", $2, ir[$2] / $3 }' "$cg_dir/ir" "$cg_dir/rows" >"$cg_out"
}
if [ -n "$cg" ] && [ "$cg" != 0 ]; then
	if ! command -v "$valgrind" >/dev/null 2>&1; then
		echo "run-bench.sh: BENCH_CALLGRIND set but valgrind not found" >&2
		exit 1
	fi
	echo "make bench: callgrind (small sizes: maps at 1e3 and 1e4)" >&2
	show "make bench: callgrind, ibal"
	cg_run "$ibal" "$tmp/cg_ibal" ibal
	show "make bench: callgrind, OpenSM"
	[ -z "$osm" ] || cg_run "$osm" "$tmp/cg_osm" osm
	clear_line
	table "Instructions per operation (callgrind; all threads; deterministic up to lock contention)" \
		Ir/op 0 "$tmp/cg_ibal" ${osm:+"$tmp/cg_osm"}
fi
exit $status
