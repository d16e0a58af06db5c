#!/bin/bash
# ibal tests: runs built test programs against a real Linux RDMA stack (soft-RoCE) in a qemu guest.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# Usage: tests/integration/realstack/rxe-vm.sh [BUILD_DIR] [-- PROG ...]
#   BUILD_DIR  the build tree (default $IBAL_RXE_BUILD, else the current directory)
#   PROG       a test program: a path relative to BUILD_DIR (tests/verbs/test_verbs_unit) or an
#              absolute one; a libtool wrapper is replaced by its real executable (DIR/.libs/NAME or
#              DIR/.libs/lt-NAME), an ELF is taken as is, any other file is run with the guest's sh.
#              Without "--", the programs are the words of $IBAL_RXE_PROGS; with none at all only
#              the sanity step (rdma-core's ibv_devinfo on rxe0) runs.
#
# Debian 12's own kernel (linux-image-amd64, fetched with `apt-get download`, never installed) boots
# under qemu-system-x86_64 with software emulation (no KVM needed) from a busybox initramfs made
# here: the kernel modules for rdma_rxe, ib_umad, rdma_ucm and 9p; rdma-core's libraries, the rxe
# provider and tools (ibverbs-utils, rdmacm-utils, perftest, for later comparisons); the programs
# with every library `ldd` lists for them (the build's libibal*.so* go to /opt/ibal/lib). The guest
# (tests/integration/realstack/guest-init.sh, its /init) makes rxe0 on a guest-local dummy0 (10.77.0.1/24,
# qemu -nic none: nothing leaves the guest) and runs each program twice: phase kcm (the kernel's CM
# loaded) and phase nokcm (after `rmmod rdma_ucm rdma_cm iw_cm ib_cm`), each with
#   IBAL_PROVIDERS=verbs IBAL_RXE_PHASE=kcm|nokcm IBAL_RXE_IP=10.77.0.1 IBAL_RXE_DEV=rxe0
#   IBAL_RXE_PORT=1 IBAL_RXE_GID=<index of the IPv4 RoCE v2 GID> LD_LIBRARY_PATH=/opt/ibal/lib
# in a scratch directory of its own, under a timeout. Exit 0 = PASS, 77 = SKIP, anything else FAIL;
# a `CUNIT-TOTALS: tests=N failed=M` line in its output gives the test counts. Results come back
# over a 9p share (WORK/out: results.txt and one log per program and phase) and the serial console
# (WORK/serial.log, also shown as it runs). Printed at the end: one line per program and phase,
# the tail of each failing program's log, and `realstack: N passed, M failed` (CUnit tests summed;
# a program without CUnit totals counts as one test).
#
# Exit: 0 when nothing failed, every expected result arrived and the guest powered off by itself;
#       77 when a needed tool is missing (qemu-system-x86_64, busybox, ...) and cannot be installed;
#       1 otherwise.
#
# Host needs (Debian 12; installed with apt-get when missing and we are root or have sudo):
#   qemu-system-x86 busybox-static cpio kmod ibverbs-utils ibverbs-providers rdmacm-utils perftest
#   iproute2, plus apt access to the Debian archive for the kernel package (cached after one run).
# Knobs (environment):
#   IBAL_RXE_WORK          cache and work directory (default BUILD_DIR/realstack-work): the kernel
#                          is kept there between runs; out/, serial.log, initrd.img are per run
#   IBAL_RXE_PROGS         programs, when none follow "--"
#   IBAL_RXE_EXTRA         more programs copied into the guest's /opt/ibal/bin but not run (for the
#                          benchmark script)
#   IBAL_RXE_ENV           extra VAR=value words added to every program's environment
#   IBAL_RXE_PROG_TIMEOUT  seconds per program and phase (default 300)
#   IBAL_RXE_TIMEOUT       seconds for the whole guest, boot to power-off (default 1500)
#   IBAL_RXE_BENCH=1       afterwards run tests/integration/realstack/guest-bench.sh in the guest, if it exists
#                          (CM modules loaded again; env OUT, IBAL_RXE_IP/DEV/PORT/GID, IBAL_RXE_BIN,
#                          IBAL_RXE_LIB; its output lands in WORK/out/bench; its exit status counts
#                          as one test), at most IBAL_RXE_BENCH_TIMEOUT seconds (default 600)
#   IBAL_RXE_NO_APT=1      never call apt-get install (missing tools: skip)
#   IBAL_RXE_REQUIRE=1     a missing tool is a failure (exit 1), not a skip (for CI)
#   IBAL_RXE_KPKG          kernel package (default: what linux-image-amd64 depends on)
#   IBAL_RXE_ACCEL IBAL_RXE_CPU IBAL_RXE_SMP IBAL_RXE_MEM  qemu settings (tcg,thread=multi max 2 1024)
#   IBAL_RXE_COMP          initramfs compression: gzip (default) or none
# Programs must not be built with -march=native: the emulated CPU lacks AVX-512 and the like.
set -uo pipefail
export PATH=$PATH:/usr/sbin:/sbin
export LC_ALL=C

SELF=$(readlink -f "$0")
HERE=$(dirname "$SELF")

BUILD=${IBAL_RXE_BUILD:-.}
if [ $# -gt 0 ] && [ "$1" != -- ]; then
	BUILD=$1
	shift
fi
# shellcheck disable=SC2206 # a word list on purpose
PROGS=(${IBAL_RXE_PROGS:-})
if [ $# -gt 0 ] && [ "$1" = -- ]; then
	shift
	PROGS=("$@")
elif [ $# -gt 0 ]; then
	echo "usage: $0 [BUILD_DIR] [-- PROG ...]" >&2
	exit 2
fi
[ -d "$BUILD" ] || { echo "realstack: build directory $BUILD not found" >&2; exit 2; }
BUILD=$(readlink -f "$BUILD")
WORK=${IBAL_RXE_WORK:-$BUILD/realstack-work}
PROG_TIMEOUT=${IBAL_RXE_PROG_TIMEOUT:-300}
GUEST_TIMEOUT=${IBAL_RXE_TIMEOUT:-1500}
BENCH=${IBAL_RXE_BENCH:-0}
COMP=${IBAL_RXE_COMP:-gzip}
mkdir -p "$WORK" || exit 2
WORK=$(readlink -f "$WORK")

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
T_ALL=$(now)
PH_T=0
PH_NAME=
ph_start() { PH_NAME=$1; PH_T=$(now); echo "=== realstack: $1"; }
ph_end() { printf 'PHASE %-7s %7s s\n' "$PH_NAME" "$(elapsed "$PH_T")"; }
die() { echo "realstack: $*" >&2; exit 1; }
skip() { # a missing tool: skip, or fail under IBAL_RXE_REQUIRE=1
	echo "realstack: SKIP: $*"
	[ "${IBAL_RXE_REQUIRE:-0}" = 1 ] && exit 1
	exit 77
}
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }
can_root() { [ "$(id -u)" = 0 ] || sudo -n true 2>/dev/null; }

# ---------------------------------------------------------------- deps
ph_start deps
HOST_PKGS="qemu-system-x86 busybox-static cpio kmod ibverbs-utils ibverbs-providers rdmacm-utils perftest iproute2"
if command -v dpkg-query >/dev/null; then
	missing=
	for p in $HOST_PKGS; do
		[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || missing="$missing $p"
	done
	# busybox (dynamic) serves as well as busybox-static: its libraries are copied too
	case " $missing " in *" busybox-static "*) command -v busybox >/dev/null && missing=${missing/ busybox-static/} ;; esac
	if [ -n "$missing" ]; then
		if [ "${IBAL_RXE_NO_APT:-0}" != 1 ] && can_root; then
			echo "realstack: installing$missing"
			as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >"$WORK/apt.log" 2>&1
			# shellcheck disable=SC2086
			as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
				$missing >>"$WORK/apt.log" 2>&1 || echo "realstack: apt-get install failed, see $WORK/apt.log"
		else
			echo "realstack: missing packages:$missing (not installing them)"
		fi
	fi
fi
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not found (package qemu-system-x86)"
for t in busybox cpio depmod modprobe dpkg-deb apt-get ibv_devinfo ip rdma; do
	command -v $t >/dev/null || skip "$t not found (packages: $HOST_PKGS)"
done
RXE_PROV=$(ls /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so 2>/dev/null | head -1)
[ -n "$RXE_PROV" ] && [ -f /etc/libibverbs.d/rxe.driver ] || skip "rdma-core's rxe provider not found (package ibverbs-providers)"
ph_end

# ---------------------------------------------------------------- kernel (cached in WORK/kernel)
ph_start kernel
KPKG=${IBAL_RXE_KPKG:-}
kpkg_of_meta() { apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $2; exit }'; }
[ -n "$KPKG" ] || KPKG=$(kpkg_of_meta)
if [ -z "$KPKG" ] && can_root; then # no package lists yet
	as_root apt-get update -qq >"$WORK/apt-update.log" 2>&1
	KPKG=$(kpkg_of_meta)
fi
if [ -z "$KPKG" ]; then # offline: the kernel cached last time
	KPKG=$(ls -d "$WORK"/kernel/linux-image-*/ 2>/dev/null | tail -1 | xargs -r basename)
	[ -n "$KPKG" ] || skip "no Debian kernel package known to apt (linux-image-amd64) and none cached in $WORK/kernel"
fi
KVER=${KPKG#linux-image-}
KDIR=$WORK/kernel/$KPKG
# the modules the guest loads (with their dependencies, in this order); crc32: rdma_rxe asks the
# crypto API for it by name, which no module dependency records
MODULES="crc32_generic crc32-pclmul dummy rdma_rxe ib_umad rdma_ucm virtio_pci 9pnet_virtio 9p"
# mod_closure: the .ko files (under lib/modules/KVER) of MODULES and their dependencies, in load order
mod_closure() {
	local m deps f rel seen=" "
	for m in $MODULES; do
		deps=$(modprobe -d "$KDIR" -S "$KVER" --show-depends "$m" 2>&1) || { echo "realstack: module $m: $deps" >&2; return 1; }
		while read -r f; do
			rel=${f#*/lib/modules/"$KVER"/}
			[[ $seen == *" $rel "* ]] && continue
			seen="$seen$rel "
			echo "$rel"
		done < <(awk '$1 == "insmod" { print $2 }' <<<"$deps")
	done
}
if [ "$(cat "$KDIR/.ready" 2>/dev/null)" != "$MODULES" ]; then
	rm -rf "$WORK/kernel"
	mkdir -p "$KDIR" "$WORK/kernel/dl"
	(cd "$WORK/kernel/dl" && timeout 600 apt-get download "$KPKG") >"$WORK/kernel/download.log" 2>&1 ||
		{ cat "$WORK/kernel/download.log"; die "apt-get download $KPKG failed"; }
	dpkg-deb -x "$WORK"/kernel/dl/"$KPKG"_*.deb "$KDIR" || die "dpkg-deb -x failed"
	rm -rf "$WORK/kernel/dl" "${KDIR:?}/usr"
	depmod -b "$KDIR" "$KVER" || die "depmod failed"
	# keep only the modules needed (400 MB -> a few): the cache stays small
	KEEP=$(mod_closure) || die "module dependencies not found"
	(cd "$KDIR/lib/modules/$KVER" && find kernel -name '*.ko*' -type f | grep -vxF "$KEEP" | xargs -r rm -f)
	echo "$MODULES" >"$KDIR/.ready"
fi
VMLINUZ=$KDIR/boot/vmlinuz-$KVER
[ -f "$VMLINUZ" ] || die "$VMLINUZ missing"
echo "kernel: $KPKG (cache $KDIR)"
ph_end

# ---------------------------------------------------------------- initrd
ph_start initrd
R=$WORK/root
rm -rf "$R" "$WORK/initrd.img"
mkdir -p "$R"/{usr/bin,usr/sbin,usr/lib/x86_64-linux-gnu,usr/lib64,etc,proc,sys,dev,tmp,run,root} \
	"$R"/{mnt/out,mnt/build,opt/ibal/bin,opt/ibal/lib,ibal} || die "cannot make $R"
ln -s usr/bin "$R/bin"
ln -s usr/sbin "$R/sbin"
ln -s usr/lib "$R/lib"
ln -s usr/lib64 "$R/lib64"

is_elf() { [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ]; }
# copy_libs ELF: the libraries the dynamic loader finds for it (the build's own first, as
# LD_LIBRARY_PATH does in the guest) into the root: system ones at the same path, others (the
# build's libibal*.so*, anything from a private directory) under /opt/ibal/lib by the name asked
# for. Fails if one is not found. (Few forks: they cost 10 ms each on a busy CI machine.)
declare -A COPIED
copy_libs() {
	local out name arrow path dest
	out=$(LD_LIBRARY_PATH=$BUILD/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ldd "$1" 2>&1) || return 0 # static
	if [[ $out == *"not found"* ]]; then
		echo "realstack: $1 needs libraries not found:" >&2
		grep 'not found' <<<"$out" >&2
		return 1
	fi
	while read -r name arrow path _; do
		case $name in /*) path=$name ;; *) [ "$arrow" = "=>" ] && [ "${path#/}" != "$path" ] || continue ;; esac
		[ -z "${COPIED[$path]:-}" ] || continue
		COPIED[$path]=1
		case ${path%/*} in
		/lib64 | /usr/lib64 | /lib | /usr/lib | /lib/x86_64-linux-gnu | /usr/lib/x86_64-linux-gnu)
			dest=$path ;;
		*) dest=/opt/ibal/lib/${name##*/} ;;
		esac
		[ -e "$R$dest" ] && continue
		[ -d "$R${dest%/*}" ] || mkdir -p "$R${dest%/*}"
		cp -L "$path" "$R$dest" || return 1
	done <<<"$out"
}
copy_elf() { # SRC DEST-IN-ROOT
	[ -d "$R${2%/*}" ] || mkdir -p "$R${2%/*}"
	cp -L "$1" "$R$2" && copy_libs "$1"
}

BUSYBOX=$(readlink -f "$(command -v busybox)")
copy_elf "$BUSYBOX" /usr/bin/busybox || die "busybox copy failed"
# rdma-core tools and iproute2 at their own paths (ip and rdma are needed; the rest for comparisons)
TOOLS="ip rdma ibv_devinfo ibv_devices ibv_rc_pingpong ibv_ud_pingpong ibv_srq_pingpong ibv_uc_pingpong
	rping ucmatose udaddy mckey rdma_server rdma_client cmtime riostream ib_write_bw ib_write_lat
	ib_read_bw ib_read_lat ib_send_bw ib_send_lat ib_atomic_bw ib_atomic_lat"
NTOOLS=0
for t in $TOOLS; do
	p=$(command -v "$t") || { echo "realstack: note: $t not on this host, not in the guest"; continue; }
	rp=$(readlink -f "$p")
	copy_elf "$rp" "$rp" || die "cannot copy $t"
	[ "$rp" = "$p" ] || [ -e "$R$p" ] || ln -s "$rp" "$R$p"
	NTOOLS=$((NTOOLS + 1))
done
# the rxe provider (dlopen'ed: no tool's ldd lists it) and libgcc_s (dlopen'ed by glibc for
# pthread_cancel/pthread_exit)
mkdir -p "$R/etc/libibverbs.d"
copy_elf "$RXE_PROV" "$RXE_PROV" || die "cannot copy $RXE_PROV"
cp /etc/libibverbs.d/rxe.driver "$R/etc/libibverbs.d/"
GCC_S=$(ldconfig -p | awk '$1 == "libgcc_s.so.1" && $NF ~ /x86_64|lib64|^\/lib|^\/usr\/lib/ { print $NF; exit }')
[ -n "$GCC_S" ] && copy_elf "$GCC_S" "$GCC_S"
# busybox's applets as links to the host's path of busybox (made there too); existing files (the
# real tools) are kept, and links in usr/bin that would hide a real tool of usr/sbin removed
[ -e "$R$BUSYBOX" ] || ln -s /usr/bin/busybox "$R$BUSYBOX"
"$BUSYBOX" --install -s "$R/usr/bin" 2>/dev/null
for a in "$R"/usr/sbin/*; do
	[ -L "$R/usr/bin/${a##*/}" ] && rm "$R/usr/bin/${a##*/}"
done
[ -x "$R/usr/bin/sh" ] || die "busybox --install made no usable sh"
echo "root:x:0:0:root:/root:/bin/sh" >"$R/etc/passwd"
echo "root:x:0:" >"$R/etc/group"
printf '127.0.0.1 localhost\n' >"$R/etc/hosts"
printf 'hosts: files\n' >"$R/etc/nsswitch.conf"

# the programs: PROGS are run, IBAL_RXE_EXTRA only copied
: >"$R/ibal/progs.list"
real_prog() { # PATH -> the file to copy (a libtool wrapper's executable)
	local f=$1 d n
	if ! is_elf "$f" && head -5 "$f" | grep -q 'temporary wrapper script for'; then
		d=$(dirname "$f")
		n=$(basename "$f")
		for c in "$d/.libs/$n" "$d/.libs/lt-$n"; do
			is_elf "$c" && { echo "$c"; return 0; }
		done
		echo "realstack: $f is a libtool wrapper without $d/.libs/$n or lt-$n" >&2
		return 1
	fi
	echo "$f"
}
add_prog() { # PROG RUN(1|0)
	local p=$1 f src id kind name
	case $p in /*) f=$p ;; *) f=$BUILD/$p ;; esac
	[ -f "$f" ] || die "program $p not found ($f)"
	case $f in "$BUILD"/*) name=${f#"$BUILD"/} ;; *) name=$f ;; esac
	src=$(real_prog "$f") || exit 1
	id=$(basename "$f")
	while [ -e "$R/opt/ibal/bin/$id" ]; do id=${id}_; done
	if is_elf "$src"; then
		kind=elf
		copy_elf "$src" "/opt/ibal/bin/$id" || die "cannot copy $src or its libraries"
	else
		kind="sh"
		cp "$src" "$R/opt/ibal/bin/$id"
	fi
	chmod 755 "$R/opt/ibal/bin/$id"
	[ "$2" = 1 ] && echo "$id $name $kind" >>"$R/ibal/progs.list"
	[ "$src" = "$f" ] && src= # the same file: say nothing more
	echo "program: $name ($kind${src:+, from ${src#"$BUILD"/}})${3:-}"
}
for p in "${PROGS[@]}"; do add_prog "$p" 1; done
# shellcheck disable=SC2086
for p in ${IBAL_RXE_EXTRA:-}; do add_prog "$p" 0 " [copied only]"; done

# kernel modules: the dependency closure of MODULES, in load order
M=$R/lib/modules/$KVER
mkdir -p "$M"
: >"$R/ibal/modules.list"
mod_closure >"$R/ibal/modules.list" || die "module dependencies not found"
while read -r rel; do
	mkdir -p "$M/${rel%/*}"
	cp "$KDIR/lib/modules/$KVER/$rel" "$M/$rel" || die "module $rel missing from $KDIR"
done <"$R/ibal/modules.list"
cp "$KDIR/lib/modules/$KVER/"modules.{order,builtin,builtin.modinfo} "$M/" 2>/dev/null
depmod -b "$R" "$KVER"
ldconfig -r "$R" 2>/dev/null

cp "$HERE/guest-init.sh" "$R/init"
chmod 755 "$R/init"
[ "$BENCH" = 1 ] && [ -f "$HERE/guest-bench.sh" ] && cp "$HERE/guest-bench.sh" "$R/ibal/guest-bench.sh"
printf '%s=%q\n' KVER "$KVER" PROG_TIMEOUT "$PROG_TIMEOUT" BENCH "$BENCH" \
	BENCH_TIMEOUT "${IBAL_RXE_BENCH_TIMEOUT:-600}" PROG_ENV "${IBAL_RXE_ENV:-}" >"$R/ibal/config"
case $COMP in
gzip) (cd "$R" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$WORK/initrd.img" ;;
none) (cd "$R" && find . | cpio -o -H newc -R 0:0 --quiet) >"$WORK/initrd.img" ;;
*) die "IBAL_RXE_COMP=$COMP: gzip or none" ;;
esac
[ -s "$WORK/initrd.img" ] || die "initramfs not made"
echo "initramfs: $(du -sh "$R" | cut -f1) unpacked, $(du -h "$WORK/initrd.img" | cut -f1) ($COMP);" \
	"$(wc -l <"$R/ibal/modules.list") modules, $NTOOLS tools, $(wc -l <"$R/ibal/progs.list") programs"
ph_end

# ---------------------------------------------------------------- boot: guest runs everything
ph_start boot
OUT=$WORK/out
rm -rf "$OUT"
mkdir -p "$OUT"
echo "qemu: ${IBAL_RXE_ACCEL:-tcg,thread=multi} -cpu ${IBAL_RXE_CPU:-max} -smp ${IBAL_RXE_SMP:-2}" \
	"-m ${IBAL_RXE_MEM:-1024}, guest timeout ${GUEST_TIMEOUT}s, ${PROG_TIMEOUT}s per program"
: >"$WORK/serial.raw"
# qemu in the background (GNU timeout makes a process group of its own, out of reach of a ^C
# to this script: the trap passes that on), its console followed as it is written
timeout "$GUEST_TIMEOUT" qemu-system-x86_64 \
	-accel "${IBAL_RXE_ACCEL:-tcg,thread=multi}" -cpu "${IBAL_RXE_CPU:-max}" \
	-smp "${IBAL_RXE_SMP:-2}" -m "${IBAL_RXE_MEM:-1024}" \
	-nic none -display none -monitor none -serial stdio -no-reboot \
	-virtfs "local,path=$OUT,mount_tag=hostout,security_model=none,id=hostout" \
	-virtfs "local,path=$BUILD,mount_tag=hostbuild,security_model=none,readonly=on,id=hostbuild" \
	-kernel "$VMLINUZ" -initrd "$WORK/initrd.img" \
	-append "console=ttyS0 quiet loglevel=3 panic=-1 rdinit=/init mitigations=off" \
	</dev/null >"$WORK/serial.raw" 2>&1 &
QPID=$!
trap 'kill $QPID 2>/dev/null' EXIT
trap 'kill $QPID 2>/dev/null; exit 130' INT TERM HUP # runs during a `wait`, not a foreground job
stamp() { # each line with the seconds since the boot began (bash's clock: no fork per line)
	local t0=${EPOCHREALTIME/./} line d
	while IFS= read -r line; do
		d=$(((${EPOCHREALTIME/./} - t0) / 100000))
		printf '[%4d.%d] %s\n' $((d / 10)) $((d % 10)) "${line%$'\r'}"
	done
}
tail -s 0.2 -n +1 -f --pid=$QPID "$WORK/serial.raw" | stamp &
wait $QPID
QRC=$?
wait $!
trap - EXIT INT TERM HUP
sed 's/\r$//' "$WORK/serial.raw" >"$WORK/serial.log"
ph_end
CLEAN=1
if [ "$QRC" = 124 ]; then
	echo "realstack: the guest did not finish within ${GUEST_TIMEOUT}s (IBAL_RXE_TIMEOUT); qemu killed"
	CLEAN=0
elif [ "$QRC" != 0 ]; then
	echo "realstack: qemu exit status $QRC"
	CLEAN=0
fi
grep -q '^@@ POWEROFF' "$WORK/serial.log" || { echo "realstack: the guest did not power off by itself"; CLEAN=0; }

# ---------------------------------------------------------------- report
RES=$WORK/results.txt
if [ -s "$OUT/results.txt" ]; then
	cp "$OUT/results.txt" "$RES"
else # no 9p: what the console said
	sed -n 's/^@@ \(RESULT .*\)/\1/p' "$WORK/serial.log" >"$RES"
fi
# expected: the sanity step, every program in both phases, the benchmark script if asked for
{
	echo "setup ibv_devinfo"
	for ph in kcm nokcm; do
		while read -r id name kind; do echo "$ph $name"; done <"$R/ibal/progs.list"
	done
	[ -f "$R/ibal/guest-bench.sh" ] && echo "bench guest-bench.sh"
} >"$WORK/expected.txt"
echo
echo "realstack results ($KPKG, rxe0 on dummy0; logs in $OUT):"
printf '  %-6s %-36s %-7s %5s %6s %8s  %s\n' phase program result tests failed seconds note
awk -v cf="$WORK/counts.txt" '
	FNR == NR { if ($1 == "RESULT") { key = $2 " " $3; line[key] = $0; seen[key] = 1 } next }
	{
		key = $1 " " $2
		if (!(key in seen)) {
			printf "  %-6s %-36s %-7s %5s %6s %8s  %s\n", $1, $2, "MISSING", "-", "-", "-", "no result (guest ended early?)"
			fail++; missing++; next
		}
		split(line[key], f, " ")
		st = f[4]; tests = f[7]; failed = f[8]; note = f[9] == "-" ? "" : f[9]
		if (note == "" && f[5] != 0 && st != "SKIP") note = "exit " f[5]
		printf "  %-6s %-36s %-7s %5s %6s %8s  %s\n", f[2], f[3], st, tests, failed, f[6], note
		if (st == "SKIP") { skipped++; next }
		if (tests != "-") { pass += tests - failed; if (st == "FAIL") fail += failed > 0 ? failed : 1 }
		else if (st == "PASS") pass++
		else fail++
	}
	END {
		printf "%d %d %d %d\n", pass, fail, skipped, missing > cf
	}' "$RES" "$WORK/expected.txt"
read -r NPASS NFAIL NSKIP NMISS <"$WORK/counts.txt"
# the end of each failing program's log
while read -r tag ph name st rest; do
	[ "$tag" = RESULT ] && [ "$st" = FAIL ] || continue
	id=
	while read -r i n _; do [ "$n" = "$name" ] && id=$i; done <"$R/ibal/progs.list"
	log=$OUT/$ph/${id:-$name}.log
	[ "$ph" = setup ] && log=$OUT/setup/$name.log
	[ "$ph" = bench ] && log=$OUT/bench/guest-bench.log
	[ -f "$log" ] || continue
	echo "--- $ph $name: last 25 lines of $log"
	tail -25 "$log" | sed 's/^/  | /'
done <"$RES"
[ "$NSKIP" -gt 0 ] && echo "realstack: $NSKIP program runs skipped (exit 77)"
[ "$CLEAN" = 1 ] || echo "realstack: the guest did not end cleanly (see $WORK/serial.log)"
printf 'PHASE %-7s %7s s\n' total "$(elapsed "$T_ALL")"
echo "realstack: $NPASS passed, $NFAIL failed"
[ "$NFAIL" = 0 ] && [ "$NMISS" = 0 ] && [ "$CLEAN" = 1 ] && exit 0
exit 1
