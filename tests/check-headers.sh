#!/bin/sh
# ibal tests: public header hygiene.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# Every public header compiles on its own as C99, gnu11 and C++17 with gcc
# and clang under -Wall -Wextra -Werror; none includes <unistd.h> or
# <getopt.h>; a program that declares its own optarg/getopt_long compiles
# after including all of them; and the C library declarations upstream's
# headers bring (tests/headers/brings.txt) are there after including only
# the header, with implicit declarations an error (as gcc 14 and clang 16
# make them).
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
# What upstream's headers bring: "header: statements" per line.
while IFS= read -r line; do
	case "$line" in ''|'#'*) continue ;; esac
	h=${line%%:*}
	body=${line#*: }
	printf '#include <%s>\nstatic int use(const char *fmt, ...)\n{\n%s\n}\nint main(void) { return use("%%d", 1) < 0; }\n' \
		"$h" "$body" > "$tmp/brings.c"
	for cc in $compilers; do
		for std in c99 gnu11; do
			n=$((n + 1))
			if ! $cc -std=$std -Wall -Wextra -Werror -Werror=implicit-function-declaration \
				-I"$inc" "$tmp/brings.c" -o "$tmp/b.out" 2>"$tmp/err"; then
				echo "FAIL: $h does not bring what upstream's does ($cc -std=$std): $body"
				cat "$tmp/err"; fail=$((fail + 1))
			fi
		done
	done
done < "$src/tests/headers/brings.txt"

echo "CUNIT-TOTALS: tests=$n failed=$fail"
echo "header checks: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
