#!/bin/sh
# ibal tests: inc/iba/ib_al.h declares every user-mode call of OFED for Windows.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# tests/iba/al_calls.txt lists the 93 exported calls ("call") and the 7
# inline helpers ("inline"). For each one, a program that takes its address
# must compile against the header alone, in C (gcc, clang) and C++; the
# header must declare exported calls as extern functions and inline helpers
# as static inline definitions; and it must declare no other function. The
# last two checks use gcc's -aux-info listing of the declarations.
# shellcheck disable=SC2086 # compiler flags and name lists are split on purpose
set -u
src=${top_srcdir:-.}
inc="$src/inc"
list="$src/tests/iba/al_calls.txt"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
compilers="gcc clang"
command -v clang >/dev/null 2>&1 || compilers="gcc"

ok() { n=$((n + 1)); }
bad() { n=$((n + 1)); fail=$((fail + 1)); echo "FAIL: $*"; }

# name kind, one per line, without comments and blank lines.
sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list" > "$tmp/names"
calls=$(awk '$2 == "call"' "$tmp/names" | wc -l | tr -d ' ')
inlines=$(awk '$2 == "inline"' "$tmp/names" | wc -l | tr -d ' ')
if awk '$2 != "call" && $2 != "inline" || NF != 2 { exit 1 }' "$tmp/names"; then ok; else
	bad "al_calls.txt: every line must be 'name call' or 'name inline'"
fi
if [ "$calls" -eq 93 ] && [ "$inlines" -eq 7 ]; then ok; else
	bad "al_calls.txt lists $calls calls and $inlines inline helpers, not 93 and 7"
fi
if [ -z "$(awk '{ print $1 }' "$tmp/names" | sort | uniq -d)" ]; then ok; else
	bad "al_calls.txt lists a name twice"
fi

# One program taking the address of every listed function.
{
	echo '#include <iba/ib_al.h>'
	echo 'int main(void)'
	echo '{'
	awk '{ printf "\t(void)&%s;\n", $1 }' "$tmp/names"
	echo '	return 0;'
	echo '}'
} > "$tmp/all.c"

# Whether "name" alone compiles with compiler $2 ($3: extra flags).
compiles_one() {
	printf '#include <iba/ib_al.h>\nint main(void)\n{\n\t(void)&%s;\n\treturn 0;\n}\n' "$1" \
		> "$tmp/one.c"
	$2 $3 -Wall -Wextra -Werror -I"$inc" -c "$tmp/one.c" -o "$tmp/one.o" 2>/dev/null
}

for cc in $compilers; do
	cxx=g++; [ "$cc" = clang ] && cxx=clang++
	for variant in "$cc|-std=c99" "$cc|-std=gnu11" "$cxx|-std=c++17 -x c++"; do
		comp=${variant%%|*} flags=${variant#*|}
		if $comp $flags -Wall -Wextra -Werror -I"$inc" -c "$tmp/all.c" -o "$tmp/all.o" \
			2>"$tmp/err"; then
			ok
			continue
		fi
		bad "taking the address of the listed calls fails with $comp $flags"
		head -20 "$tmp/err"
		# Name the missing ones.
		while read -r name kind; do
			compiles_one "$name" "$comp" "$flags" ||
				echo "  not declared: $name ($kind)"
		done < "$tmp/names"
	done
done

# What the header declares, and how (gcc only).
printf '#include <iba/ib_al.h>\n' > "$tmp/hdr.c"
if gcc -std=gnu11 -I"$inc" -aux-info "$tmp/aux" -c "$tmp/hdr.c" -o "$tmp/hdr.o" 2>/dev/null; then
	# "name extern" or "name static" for each function declared in ib_al.h.
	grep '^/\* [^ ]*iba/ib_al\.h:' "$tmp/aux" |
		sed -e 's/^\/\* [^*]* \*\/ *//' |
		awk '{
			kind = ($1 == "static") ? "static" : "extern"
			line = $0; sub(/ *\(.*/, "", line); n = split(line, w, /[ *]+/)
			print w[n], kind
		}' | sort -u > "$tmp/declared"
	while read -r name kind; do
		want=extern; [ "$kind" = inline ] && want=static
		got=$(awk -v f="$name" '$1 == f { print $2 }' "$tmp/declared")
		if [ "$got" = "$want" ]; then ok; else
			bad "$name ($kind) is declared ${got:-nowhere} in ib_al.h, not $want"
		fi
	done < "$tmp/names"
	awk '{ print $1 }' "$tmp/names" > "$tmp/listed"
	extra=$(awk '{ print $1 }' "$tmp/declared" | grep -vxF -f "$tmp/listed")
	if [ -z "$extra" ]; then ok; else
		bad "ib_al.h declares functions that are not in al_calls.txt:" $extra
	fi
	total=$(wc -l < "$tmp/declared" | tr -d ' ')
else
	bad "gcc -aux-info failed"
	total=unknown
fi

echo "ib_al.h: $calls exported calls and $inlines inline helpers listed; $total functions declared"
echo "CUNIT-TOTALS: tests=$n failed=$fail"
echo "al_calls checks: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
