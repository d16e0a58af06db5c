# ibal tests: what the tools' shell tests share (sourced): counting checks, running the tool, bad input.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# Set before sourcing: tmp (a scratch directory); for run and expect_error
# also prog (the tool to run) and tool (the name its error
# lines start with). Provides:
#   check NAME BAD            counts one test; BAD empty is a pass, else it
#                             is printed with the last run's output
#   run ARGS...               runs the tool (60 s bound): $tmp/out, $tmp/err, rc
#   expect_error NAME STATUS TEXT ARGS...
#                             a run that exits STATUS with exactly one line of
#                             the tool's own on stderr, naming TEXT
#   tool_test_end             prints the CUNIT-TOTALS line; fails if any failed
n=0 fail=0

check() {
	n=$((n + 1))
	if [ -n "$2" ]; then
		echo "FAIL: $1: $2"
		sed 's/^/    /' "$tmp/out" "$tmp/err" 2>/dev/null | head -40
		fail=$((fail + 1))
	else
		echo "ok: $1"
	fi
}

run() {
	timeout 60 "$prog" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

expect_error() {
	name=$1 want=$2 text=$3
	shift 3
	run "$@"
	bad=""
	[ "$rc" -eq "$want" ] || bad="status $rc, not $want"
	[ "$(grep -c "^$tool: " "$tmp/err")" -eq 1 ] || bad="$bad${bad:+; }not one line of its own on stderr"
	grep -q "$text" "$tmp/err" || bad="$bad${bad:+; }no '$text'"
	check "$name" "$bad"
}

tool_test_end() {
	echo "CUNIT-TOTALS: tests=$n failed=$fail"
	[ "$fail" -eq 0 ]
}
