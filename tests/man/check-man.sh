#!/bin/sh
# ibal tests: every installed program has a man page that renders cleanly and names each option of its --help; ibal.7 names every variable the library reads.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# make check passes (tests/man/Makefile.include): MAN_CHECK_PROGRAMS, the
# programs make installs ($(bin_PROGRAMS), paths in the build tree, the
# current directory), and MAN_CHECK_MAN1 and MAN_CHECK_MAN7, the pages it
# installs ($(dist_man1_MANS), $(dist_man7_MANS), paths in $top_srcdir).
#
# Each page renders with man(1) with warnings on, with nothing on stderr and
# some text on stdout. Each program's page is its path with .1 (next to its
# source) and is among the man1 pages; every option word its --help prints
# (a word starting with - or --, such as -v, --json, -1) is in the rendered
# page. ibal.7 names every IBAL_* and CL_* variable the library reads: the
# string literals of core/ and inc/ passed to getenv() or to the settings
# parser (__cl_env_*() of ibal_env.h), directly or through a macro defined
# as the string, and every macro named *ENV* defined as such a string.
# Prints "ok - ..." or "not ok - ..." per check; exit 1 on any failure, 77
# when man is not installed.
set -u
src=${top_srcdir:-.}
programs=${MAN_CHECK_PROGRAMS:-}
man1=${MAN_CHECK_MAN1:-}
man7=${MAN_CHECK_MAN7:-}
n=0 fail=0

if ! command -v man >/dev/null 2>&1; then
	echo "skip: man is not installed (apt-get install man-db groff-base)"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibal-man-test-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# result NAME BAD: one check; BAD empty is a pass.
result() {
	n=$((n + 1))
	if [ -n "$2" ]; then
		echo "not ok - $1: $2"
		fail=$((fail + 1))
	else
		echo "ok - $1"
	fi
}

# plain: man's output without overstrikes (col(1) when there is one).
plain() {
	if command -v col >/dev/null 2>&1; then col -bx; else cat; fi
}

# render PAGE OUT: the page as ASCII text in OUT, man's stderr in OUT.err;
# prints what is wrong, nothing when it rendered cleanly.
render() {
	LC_ALL=C MANWIDTH=80 MAN_KEEP_FORMATTING='' man --warnings -E ascii -l "$1" 2>"$2.err" |
		plain >"$2"
	if [ -s "$2.err" ]; then
		tr '\n' ' ' <"$2.err" | cut -c1-300
	elif ! grep -q '[A-Za-z]' "$2"; then
		echo "no output"
	fi
}

# has_word FILE WORD: WORD occurs in FILE, not as part of a longer option
# or name (no letter, digit, _ or - around it).
has_word() {
	grep -Eq -- "(^|[^A-Za-z0-9_-])$2([^A-Za-z0-9_-]|\$)" "$1"
}

# help_options FILE: the option words of a --help text, one per line.
help_options() {
	sed 's/[][()|,]/ /g' "$1" | tr -s '[:blank:]' '\n' |
		grep -oE '^--?[A-Za-z0-9][A-Za-z0-9-]*' | sed 's/-*$//' | sort -u
}

[ -n "$programs" ] || result "MAN_CHECK_PROGRAMS" "empty (run through make check)"
[ -n "$man1" ] || result "MAN_CHECK_MAN1" "empty (run through make check)"

# text PAGE: where the rendered text of PAGE is kept.
text() {
	echo "$tmp/$(echo "$1" | tr / _).txt"
}

# Every section-1 page renders.
for page in $man1; do
	bad=$(render "$src/$page" "$(text "$page")")
	result "$page renders without warnings" "$bad"
done

# Every program: its page exists, is installed, and names its options.
for prog in $programs; do
	page=$prog.1
	name=${prog##*/}
	opts=
	bad="not in dist_man1_MANS"
	for p in $man1; do
		[ "$p" != "$page" ] || bad=
	done
	[ -f "$src/$page" ] || bad="${bad:+$bad; }$src/$page does not exist"
	result "$name has the page $page" "$bad"
	[ -f "$src/$page" ] || continue
	txt=$(text "$page")
	[ -f "$txt" ] || render "$src/$page" "$txt" >/dev/null
	bad=
	timeout 30 "./$prog" --help >"$tmp/help" 2>"$tmp/help.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		bad="$name --help exited with status $rc"
	elif [ ! -s "$tmp/help" ]; then
		bad="$name --help printed nothing on stdout"
	else
		opts=$(help_options "$tmp/help")
		missing=
		for o in $opts; do
			has_word "$txt" "$o" || missing="$missing $o"
		done
		[ -n "$opts" ] || bad="no option found in $name --help"
		[ -z "$missing" ] || bad="lacks options of --help:$missing"
	fi
	result "$page names every option of $name --help ($(echo "$opts" | wc -w))" "$bad"
done

# Section 7: each page renders; ibal.7 names every variable the library reads.
overview=
for page in $man7; do
	bad=$(render "$src/$page" "$(text "$page")")
	result "$page renders without warnings" "$bad"
	[ "${page##*/}" != ibal.7 ] || overview=$page
done
if [ -z "$overview" ]; then
	result "ibal.7 is installed" "not in dist_man7_MANS"
else
	files=$(find "$src/core" "$src/inc" -name '*.[ch]' | sort)
	readers='(getenv|secure_getenv|__cl_env_[a-z]+)[[:space:]]*\([[:space:]]*'
	lit='"(IBAL|CL)_[A-Z0-9_]+"'
	# shellcheck disable=SC2086 # $files: one path per word
	{
		grep -hoE "$readers$lit" $files
		grep -hoE "${readers}[A-Z][A-Z0-9_]*[[:space:]]*[,)]" $files |
			sed -E 's/.*\([[:space:]]*([A-Z0-9_]+).*/\1/' | sort -u |
			while read -r m; do
				grep -hE "^[[:space:]]*#[[:space:]]*define[[:space:]]+${m}[[:space:]]+$lit" $files
			done
		grep -hE "^[[:space:]]*#[[:space:]]*define[[:space:]]+[A-Z0-9_]*ENV[A-Z0-9_]*[[:space:]]+$lit" $files
	} | grep -oE "$lit" | tr -d '"' | sort -u >"$tmp/vars"
	while read -r v; do
		has_word "$(text "$overview")" "$v" || echo "$v"
	done <"$tmp/vars" >"$tmp/missing"
	missing=$(tr '\n' ' ' <"$tmp/missing" | sed 's/ $//')
	bad=
	[ -s "$tmp/vars" ] || bad="no variable found in $src/core and $src/inc"
	[ -z "$missing" ] || bad="lacks $missing"
	result "$overview names every variable the library reads ($(wc -l <"$tmp/vars"))" "$bad"
fi

echo "check-man: $((n - fail)) of $n checks passed"
[ "$fail" -eq 0 ] || exit 1
exit 0
