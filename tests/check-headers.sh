#!/bin/sh
# ibal tests: public header hygiene.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# Every public header compiles on its own as C99, gnu11 and C++17 with gcc
# and clang under -Wall -Wextra -Werror; none includes <unistd.h> or
# <getopt.h>; and a program that declares its own optarg/getopt_long
# compiles after including all of them.
set -u
src=${top_srcdir:-.}
inc="$src/inc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
compilers="gcc clang"
command -v clang >/dev/null 2>&1 || compilers="gcc"

headers=$(cd "$inc" && ls complib/*.h iba/*.h 2>/dev/null | grep -v -e '/cl_packon.h$' -e '/cl_packoff.h$')

for h in $headers; do
	if grep -Eq '^[[:space:]]*#[[:space:]]*include[[:space:]]*<(unistd|getopt)\.h>' "$inc/$h"; then
		echo "FAIL: $h includes unistd.h or getopt.h"; fail=$((fail + 1))
	fi
	printf '#include <%s>\n' "$h" > "$tmp/one.c"
	for cc in $compilers; do
		cxx=g++; [ "$cc" = clang ] && cxx=clang++
		for std in c99 gnu11; do
			n=$((n + 1))
			if ! $cc -std=$std -Wall -Wextra -Werror -I"$inc" -c "$tmp/one.c" -o "$tmp/o.o" 2>"$tmp/err"; then
				echo "FAIL: $h with $cc -std=$std"; cat "$tmp/err"; fail=$((fail + 1))
			fi
		done
		n=$((n + 1))
		if ! $cxx -std=c++17 -Wall -Wextra -Werror -I"$inc" -x c++ -c "$tmp/one.c" -o "$tmp/o.o" 2>"$tmp/err"; then
			echo "FAIL: $h with $cxx -std=c++17"; cat "$tmp/err"; fail=$((fail + 1))
		fi
	done
done

: > "$tmp/all.c"
for h in $headers; do printf '#include <%s>\n' "$h" >> "$tmp/all.c"; done
cat "$src/tests/headers/own_getopt.c" >> "$tmp/all.c"
for cc in $compilers; do
	n=$((n + 1))
	if ! $cc -std=gnu11 -Wall -Wextra -Werror -I"$inc" "$tmp/all.c" -o "$tmp/a.out" -lpthread 2>"$tmp/err" || ! "$tmp/a.out"; then
		echo "FAIL: own optarg/getopt_long after all headers with $cc"; cat "$tmp/err"; fail=$((fail + 1))
	fi
done
echo "CUNIT-TOTALS: tests=$n failed=$fail"
echo "header checks: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
