#!/bin/sh
# ibal tests: every installed program answers bad input (unknown option, missing fabric, bad LID/GUID) with a line of its own and a status, never a crash.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# For each program of bin_PROGRAMS ($MAN_CHECK_PROGRAMS, which make check
# passes; else the list below): an unknown option gives status 2, nothing
# on stdout and exactly one line on stderr, starting with the program's
# name. Each program that opens the soft fabric, given a fabric directory
# that cannot be one (a path under a regular file), exits with a status
# from 1 to 125 (no signal) and says why on stderr in a line of its own
# (besides the library's log lines). ibal_cmtime given a destination that
# is neither a GID nor a unicast LID, or a port GUID that is not a number,
# says so in one line and fails. (ibal_stat's and ibal_saquery's bad
# LIDs and GUIDs are in their own tests.)
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibal-bad-input-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
progs=${MAN_CHECK_PROGRAMS:-"ulp/ibal_complib_demo ulp/ibal_demo ulp/ibal_cmtime ulp/ibal_perf
	ulp/ibal_stat ulp/ibal_saquery ulp/ibal_ioc_target ulp/ibal_ioc_initiator
	core/soft/service/ibal_soft_fabric core/soft/service/ibal_soft_inspect"}
tool=
# shellcheck source=../common/tool_test.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/common/tool_test.sh"

# Lines of stderr that are the program's own, not the library's log ("ibal[PID] ...").
own_lines() { grep -vc '^ibal\[' "$tmp/err"; }

for p in $progs; do
	name=$(basename "$p")
	timeout 30 "./$p" --no-such-option >"$tmp/out" 2>"$tmp/err"
	rc=$?
	bad=""
	[ "$rc" -eq 2 ] || bad="status $rc, not 2"
	[ -s "$tmp/out" ] && bad="$bad${bad:+; }output on stdout"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || bad="$bad${bad:+; }not one line on stderr"
	grep -q "^$name: " "$tmp/err" || bad="$bad${bad:+; }the line does not start with '$name: '"
	check "$name --no-such-option" "$bad"
done

# A fabric directory that cannot be one.
: >"$tmp/file"
printf 'node alpha guid=0x0002c90300001230 lid=0x10\n' >"$tmp/topo"
args_of() {
	case $1 in
	ibal_demo) echo "--timeout 20" ;;
	ibal_cmtime) echo "-s -T 10" ;;
	ibal_perf) echo "-n 10 -T 10" ;;
	ibal_saquery) echo "nodes" ;;
	ibal_ioc_target | ibal_ioc_initiator) echo "--timeout 5" ;;
	ibal_soft_fabric) echo "-q $tmp/topo" ;;
	*) echo "" ;;
	esac
}
for p in $progs; do
	name=$(basename "$p")
	[ "$name" = ibal_complib_demo ] && continue # no fabric
	# shellcheck disable=SC2046
	IBAL_SOFT_FABRIC=$tmp/file/fab IBAL_PROVIDERS=soft IBAL_SOFT_NODE= \
		timeout 60 "./$p" $(args_of "$name") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	bad=""
	[ "$rc" -ge 1 ] && [ "$rc" -le 125 ] || bad="status $rc"
	[ "$(own_lines)" -ge 1 ] || bad="$bad${bad:+; }nothing of its own on stderr"
	check "$name with no usable fabric directory" "$bad"
done

# ibal_cmtime's destination and port GUID.
mkdir "$tmp/fab"
for a in "zz:zz" "0x12345" "-P 0xnothex"; do
	# shellcheck disable=SC2086
	IBAL_SOFT_FABRIC=$tmp/fab IBAL_PROVIDERS=soft timeout 60 ./ulp/ibal_cmtime -T 10 $a \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	bad=""
	[ "$rc" -ge 1 ] && [ "$rc" -le 2 ] || bad="status $rc"
	[ "$(own_lines)" -eq 1 ] || bad="$bad${bad:+; }not one line of its own on stderr"
	grep -q "not a GID\|not a unicast LID\|bad value" "$tmp/err" || bad="$bad${bad:+; }does not say what is wrong"
	check "ibal_cmtime $a" "$bad"
done

tool_test_end
