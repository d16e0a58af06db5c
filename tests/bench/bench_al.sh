#!/bin/sh
# ibal bench: instructions the access layer adds per ib_post_send / ib_poll_cq, under callgrind.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# usage: bench_al.sh BENCH_AL [N]
# environment:
#   VALGRIND     the valgrind program (default: valgrind)
#   BENCH_AL_N   calls per variant when N is not given (default 10000)
#   CALLGRIND_ANNOTATE  the callgrind_annotate program (default: callgrind_annotate)
#
# Builds nothing: BENCH_AL is the bench_al program made by `make bench`.
# Runs it once per measured function under
# `valgrind --tool=callgrind --toggle-collect=FUNC`, so that each run
# collects only the instructions executed inside that function (one public
# call or one provider-slot call, and everything below it), and reads the
# inclusive counts with callgrind_annotate. Per call:
#
#   provider  = FUNC_prov total / calls      (the slot called directly)
#   overhead  = (FUNC_public - soft slot inside it) / calls
#             - (FUNC_prov   - soft slot inside it) / calls
#   public    = provider + overhead
#
# The overhead counts only instructions outside the provider's function
# (soft_post_send, soft_poll_cq), so it is exact and the same on every run
# of a given binary; the provider's own cost per post varies by a few
# dozen instructions between runs (its fabric path), which is why it is not
# taken from two different runs' totals.
set -u

prog=${1:?usage: bench_al.sh BENCH_AL [N]}
n=${2:-${BENCH_AL_N:-10000}}
valgrind=${VALGRIND:-valgrind}
annotate=${CALLGRIND_ANNOTATE:-callgrind_annotate}
case $n in ''|*[!0-9]*|0) n=10000 ;; esac
for t in "$valgrind" "$annotate"; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "bench_al.sh: $t not found" >&2
		exit 1
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibal-bench-al.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# incl FILE FUNC: inclusive instructions of FUNC in a callgrind output (0 if absent).
incl() {
	"$annotate" --inclusive=yes --threshold=100 "$1" 2>/dev/null |
	awk -v f="$2" '{ for (i = 2; i <= NF; i++) if ($i ~ (":" f "$")) { gsub(/,/, "", $1); print $1; exit } }' |
	{ read -r v && echo "$v" || echo 0; }
}

# ir FUNC SLOT: prints "FUNC<TAB>total/call<TAB>outside-SLOT/call".
ir() {
	if ! "$valgrind" --tool=callgrind --quiet --toggle-collect="$1" \
		--callgrind-out-file="$tmp/out.$1" "$prog" -c -n "$n" >"$tmp/rows.$1" 2>"$tmp/err"; then
		echo "bench_al.sh: $prog failed under callgrind ($1)" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	total=$(incl "$tmp/out.$1" "$1")
	slot=$(incl "$tmp/out.$1" "$2")
	if [ "$total" = 0 ] || [ "$slot" = 0 ]; then
		echo "bench_al.sh: no instructions found for $1 or $2 (not the soft provider?)" >&2
		exit 1
	fi
	awk -F '\t' -v f="$1" -v total="$total" -v slot="$slot" \
		'$1 == "CG" && $2 == f && $3 > 0 { printf "%s\t%.1f\t%.1f\n", f, total / $3, (total - slot) / $3 }' \
		"$tmp/rows.$1"
}

echo "bench_al.sh: callgrind, $n calls per variant (plus 10% warm-up, counted)" >&2
{
	ir bench_al_post_public soft_post_send
	ir bench_al_post_prov soft_post_send
	ir bench_al_poll_public soft_poll_cq
	ir bench_al_poll_prov soft_poll_cq
} >"$tmp/ir" || exit 1

awk -F '\t' '
	{ v[$1] = $2; o[$1] = $3 }
	END {
		if (!("bench_al_post_public" in v) || !("bench_al_post_prov" in v) ||
		    !("bench_al_poll_public" in v) || !("bench_al_poll_prov" in v)) {
			print "bench_al.sh: missing rows" > "/dev/stderr"
			exit 1
		}
		print ""
		print "Access-layer cost per call (callgrind instructions, public call vs provider slot)"
		row("ib_post_send", "bench_al_post_public", "bench_al_post_prov")
		row("ib_poll_cq", "bench_al_poll_public", "bench_al_poll_prov")
	}
	function row(name, pub, prov,   x) {
		x = o[pub] - o[prov]
		printf "%s overhead: %.1f instructions/call (public %.1f vs provider %.1f)\n",
			name, x, v[prov] + x, v[prov]
	}' "$tmp/ir"
