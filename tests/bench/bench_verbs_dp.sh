#!/bin/sh
# ibal bench: instructions the verbs provider adds per work request and completion, under callgrind.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# usage: bench_verbs_dp.sh BENCH_VERBS_DP [N]
# environment:
#   VALGRIND            the valgrind program (default: valgrind)
#   CALLGRIND_ANNOTATE  the callgrind_annotate program (default: callgrind_annotate)
#
# BENCH_VERBS_DP is tests/bench/bench_verbs_dp (make tests/bench/bench_verbs_dp).
# One run under `valgrind --tool=callgrind --toggle-collect=vdp_*`: only the
# measured calls are collected; each one's inclusive instructions divided by
# its calls, and the provider's variant minus the raw libibverbs one (same
# stub device below both) divided by the WRs or WCs per call, is what the
# provider adds per WR or WC. Deterministic: the same binary gives the same
# figures on every run.
set -u

prog=${1:?usage: bench_verbs_dp.sh BENCH_VERBS_DP [N]}
n=${2:-10000}
valgrind=${VALGRIND:-valgrind}
annotate=${CALLGRIND_ANNOTATE:-callgrind_annotate}
for t in "$valgrind" "$annotate"; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "bench_verbs_dp.sh: $t not found" >&2
		exit 1
	fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibal-bench-vdp.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

if ! "$valgrind" --tool=callgrind --quiet --toggle-collect='vdp_*' \
	--callgrind-out-file="$tmp/out" "$prog" -c -n "$n" >"$tmp/rows" 2>"$tmp/err"; then
	echo "bench_verbs_dp.sh: $prog failed under callgrind" >&2
	cat "$tmp/err" >&2
	exit 1
fi
"$annotate" --inclusive=yes --threshold=100 "$tmp/out" >"$tmp/ann" 2>/dev/null

awk -F '\t' -v ann="$tmp/ann" '
	BEGIN {
		while ((getline line < ann) > 0) {
			n = split(line, f, " ")
			if (n < 2)
				continue
			for (i = 2; i <= n; i++)
				if (f[i] ~ /:vdp_[a-z0-9_]*$/) {
					name = f[i]
					sub(/.*:/, "", name)
					ir = f[1]
					gsub(/,/, "", ir)
					incl[name] = ir
				}
		}
	}
	$1 == "CG" { calls[$2] = $3; work[$2] = $4; order[++k] = $2 }
	END {
		printf "%-8s %12s %12s %14s\n", "what", "raw/call", "ibal/call", "added per WR/WC"
		for (i = 1; i <= k; i++) {
			p = order[i]
			if (p !~ /_prov$/)
				continue
			r = p
			sub(/_prov$/, "_raw", r)
			base = p
			sub(/_prov$/, "", base)
			sub(/^vdp_/, "", base)
			if (!(p in incl) || !(r in incl)) {
				printf "bench_verbs_dp.sh: no instructions for %s or %s\n", p, r > "/dev/stderr"
				bad = 1
				continue
			}
			a = incl[r] / calls[r]
			b = incl[p] / calls[p]
			printf "%-8s %12.1f %12.1f %14.1f\n", base, a, b, (b - a) / work[p]
		}
		exit bad
	}' "$tmp/rows"
