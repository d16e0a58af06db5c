#!/bin/sh
# ibal realstack: the guest's /init (busybox sh), put into the initramfs by tests/integration/realstack/rxe-vm.sh.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# Loads the kernel modules listed in /ibal/modules.list (dependency order), makes soft-RoCE
# (rdma_rxe) on a guest-local dummy0 (10.77.0.1/24), waits for the port to be ACTIVE, checks
# rdma-core's view of it (ibv_devinfo), then runs every program of /ibal/progs.list twice:
#   phase kcm   - the kernel's CM modules loaded (ib_cm, iw_cm, rdma_cm, rdma_ucm)
#   phase nokcm - after `rmmod rdma_ucm rdma_cm iw_cm ib_cm` (a user agent may own MAD class 0x07)
# and, when asked (IBAL_RXE_BENCH=1 in /ibal/config), /ibal/guest-bench.sh with the CM modules
# loaded again. Results go to $OUT: the host's 9p share "hostout" when it mounts, else /tmp/out,
# in which case logs of failures are also printed on the console. Every line meant for the host
# starts with "@@ ". Ends with `poweroff -f`: the host treats a guest that did not say
# "@@ POWEROFF" as not having ended cleanly.
#
# /ibal/config (shell assignments): KVER PROG_TIMEOUT BENCH BENCH_TIMEOUT PROG_ENV
# /ibal/progs.list: one line per program: ID NAME KIND (KIND elf or sh; the file is /opt/ibal/bin/ID)
# Result lines ($OUT/results.txt, and on the console after "@@ "):
#   RESULT PHASE NAME STATUS RC SECONDS TESTS FAILED NOTE
#   (STATUS PASS, FAIL or SKIP; TESTS/FAILED from the program's CUNIT-TOTALS line, "-" if none)

export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /dev/shm
# shellcheck disable=SC3045 # busybox sh has these
ulimit -l unlimited 2>/dev/null # memory registration pins pages
# shellcheck disable=SC3045
ulimit -c 0

PROG_TIMEOUT=300
BENCH=0
BENCH_TIMEOUT=600
PROG_ENV=
KVER=$(uname -r)
. /ibal/config

RXE_IP=10.77.0.1
RXE_DEV=rxe0
RXE_NETDEV=dummy0
BIN=/opt/ibal/bin
LIB=/opt/ibal/lib
NINEP="trans=virtio,version=9p2000.L,msize=262144"

up() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(up)" 'BEGIN { printf "%.2f", b - a }'; }
say() { echo "@@ $*"; }
PH_T=0
PH_NAME=
ph_start() { PH_NAME=$1; PH_T=$(up); say "phase guest-$1 ..."; }
ph_end() { say "PHASE guest-$PH_NAME $(since "$PH_T") s"; }

T_INIT=$(up)
say "INIT kernel $(uname -r) uptime ${T_INIT}s"

# ---------------------------------------------------------------- modules
ph_start modules
OUT=/tmp/out
mkdir -p $OUT
for m in $(cat /ibal/modules.list); do
	insmod "/lib/modules/$KVER/$m" 2>>/tmp/insmod.err || say "insmod $m failed: $(tail -1 /tmp/insmod.err)"
done
SHARED=0
if mount -t 9p -o "$NINEP" hostout /mnt/out 2>/tmp/mount.err; then
	OUT=/mnt/out
	SHARED=1
else
	say "9p share hostout did not mount ($(cat /tmp/mount.err)); results only on the console"
fi
mount -t 9p -o "$NINEP,ro" hostbuild /mnt/build 2>/dev/null && say "build dir shared read-only at /mnt/build"
ph_end

# ---------------------------------------------------------------- rxe0 on dummy0
ph_start rxe
ip link set lo up
ip link show $RXE_NETDEV >/dev/null 2>&1 || ip link add $RXE_NETDEV type dummy
ip addr add $RXE_IP/24 dev $RXE_NETDEV
ip link set $RXE_NETDEV up
rdma link add $RXE_DEV type rxe netdev $RXE_NETDEV || say "rdma link add $RXE_DEV failed"
# Port ACTIVE and an IPv4 RoCE v2 GID. Only the first GID entries are read: all 1024 of them take
# seconds under emulation.
P=/sys/class/infiniband/$RXE_DEV/ports/1
GIDX=
st=
i=0
while [ $i -lt 300 ]; do
	st=$(cat $P/state 2>/dev/null)
	for n in 0 1 2 3 4 5 6 7; do
		case "$(cat $P/gids/$n 2>/dev/null)" in 0000:0000:0000:0000:0000:ffff:*)
			[ "$(cat $P/gid_attrs/types/$n 2>/dev/null)" = "RoCE v2" ] && GIDX=$n ;;
		esac
	done
	case "$st" in *ACTIVE*) [ -n "$GIDX" ] && break ;; esac
	sleep 0.1
	i=$((i + 1))
done
say "$RXE_DEV port 1: ${st:-absent}; IPv4 RoCE v2 GID index ${GIDX:-none}"
ph_end

# ---------------------------------------------------------------- results
: >$OUT/results.txt
result() { # PHASE NAME STATUS RC SECONDS TESTS FAILED NOTE
	echo "RESULT $*" >>$OUT/results.txt
	say "RESULT $*"
}
show_tail() { # LOGFILE: only when the host cannot read the file itself
	[ $SHARED = 1 ] && return
	say "--- last 30 lines of $1"
	tail -30 "$1" | sed 's/^/@@ | /'
}

kill_session() { # SID: kill what a program left running in its session
	sid=$1
	for s in /proc/[0-9]*/stat; do
		read -r line <"$s" 2>/dev/null || continue
		# shellcheck disable=SC2086 # fields after "(comm) ": state ppid pgrp session
		set -- ${line##*) }
		[ "$4" = "$sid" ] && [ "$1" != Z ] || continue
		p=${s#/proc/}
		p=${p%/stat}
		c=${line#*(}
		echo "realstack: killing process $p (${c%%) *}), left behind"
		kill -9 "$p" 2>/dev/null
	done
}

# spawn TIMEOUT LOG DIR CMD...: CMD in DIR, in a session of its own (setsid in place: a background
# job here leads no process group) so that whatever it leaves behind is found and killed
# afterwards, under a timeout (TERM, KILL 10 s later); output to LOG; exit status in rc.
spawn() {
	to=$1 log=$2 dir=$3
	shift 3
	(cd "$dir" && exec setsid timeout -k 10 "$to" "$@") >"$log" 2>&1 </dev/null &
	pid=$!
	wait $pid
	rc=$?
	kill_session $pid >>"$log"
}

why() { # RC SECONDS TIMEOUT NOTE: "timeout", "signal-N" or NOTE
	if [ "$1" -ge 124 ] && awk -v s="$2" -v t="$3" 'BEGIN { exit !(s >= t - 1) }'; then
		echo timeout
	elif [ "$1" -gt 128 ] && [ "$1" -lt 160 ]; then
		echo "signal-$(($1 - 128))"
	else
		echo "$4"
	fi
}

# run_one PHASE ID NAME KIND
run_one() {
	ph=$1 id=$2 name=$3 kind=$4
	log=$OUT/$ph/$id.log
	dir=/tmp/run/$ph/$id
	mkdir -p "$OUT/$ph" "$dir"
	cmd=$BIN/$id
	[ "$kind" = sh ] && cmd="sh $BIN/$id"
	say "run $ph $name (timeout ${PROG_TIMEOUT}s)"
	t=$(up)
	# shellcheck disable=SC2086 # PROG_ENV and cmd are word lists on purpose
	spawn "$PROG_TIMEOUT" "$log" $dir env IBAL_PROVIDERS=verbs IBAL_RXE_PHASE=$ph IBAL_RXE_IP=$RXE_IP \
		IBAL_RXE_NETDEV=$RXE_NETDEV IBAL_RXE_DEV=$RXE_DEV IBAL_RXE_PORT=1 IBAL_RXE_GID=$GIDX LD_LIBRARY_PATH=$LIB $PROG_ENV $cmd
	secs=$(since "$t")
	tot=$(grep -o 'CUNIT-TOTALS: tests=[0-9]* failed=[0-9]*' "$log" | tail -1)
	tests=-
	failed=-
	if [ -n "$tot" ]; then
		tests=$(echo "$tot" | sed 's/.*tests=\([0-9]*\).*/\1/')
		failed=$(echo "$tot" | sed 's/.*failed=\([0-9]*\).*/\1/')
	fi
	note=-
	case $rc in
	0) st=PASS ;;
	77) st=SKIP ;;
	*) st=FAIL ;;
	esac
	[ $st = PASS ] && [ "$failed" != - ] && [ "$failed" != 0 ] && { st=FAIL; note=cunit-failures; }
	note=$(why "$rc" "$secs" "$PROG_TIMEOUT" $note)
	result "$ph" "$name" $st $rc "$secs" "$tests" "$failed" "$note"
	[ $st = FAIL ] && show_tail "$log"
}

run_phase() { # PHASE
	while read -r id name kind; do
		[ -n "$id" ] && run_one "$1" "$id" "$name" "$kind"
	done </ibal/progs.list
}

# ---------------------------------------------------------------- sanity: rdma-core sees rxe0
ph_start sanity
mkdir -p $OUT/setup
t=$(up)
timeout 60 ibv_devinfo -v -d $RXE_DEV >$OUT/setup/ibv_devinfo.log 2>&1
rc=$?
st=FAIL
[ $rc = 0 ] && grep -q PORT_ACTIVE $OUT/setup/ibv_devinfo.log && [ -n "$GIDX" ] && st=PASS
result setup ibv_devinfo $st $rc "$(since "$t")" - - -
[ $st = FAIL ] && show_tail $OUT/setup/ibv_devinfo.log
ph_end

# ---------------------------------------------------------------- phase kcm
ph_start kcm
run_phase kcm
ph_end

# ---------------------------------------------------------------- phase nokcm
ph_start nokcm
rmmod rdma_ucm rdma_cm iw_cm ib_cm
rc=$?
if [ -d /sys/module/ib_cm ]; then
	say "ib_cm still loaded after rmmod (rc=$rc)"
	result nokcm rmmod-ib_cm FAIL $rc 0 - - ib_cm-still-loaded
else
	run_phase nokcm
fi
ph_end

# ---------------------------------------------------------------- benchmark hook
if [ "$BENCH" = 1 ]; then
	ph_start bench
	for m in ib_cm iw_cm rdma_cm rdma_ucm; do # the kernel CM back, for the tools that need it
		f=$(grep "/$m.ko" /ibal/modules.list)
		[ -n "$f" ] && insmod "/lib/modules/$KVER/$f" 2>/dev/null
	done
	if [ -f /ibal/guest-bench.sh ]; then
		mkdir -p $OUT/bench
		t=$(up)
		say "run bench guest-bench.sh (timeout ${BENCH_TIMEOUT}s)"
		spawn "$BENCH_TIMEOUT" $OUT/bench/guest-bench.log $OUT/bench env OUT=$OUT/bench \
			IBAL_RXE_IP=$RXE_IP IBAL_RXE_DEV=$RXE_DEV IBAL_RXE_PORT=1 IBAL_RXE_GID=$GIDX \
			IBAL_RXE_BIN=$BIN IBAL_RXE_LIB=$LIB sh /ibal/guest-bench.sh
		secs=$(since "$t")
		st=PASS
		[ $rc = 0 ] || st=FAIL
		result bench guest-bench.sh $st $rc "$secs" - - "$(why $rc "$secs" "$BENCH_TIMEOUT" -)"
		[ $st = FAIL ] && show_tail $OUT/bench/guest-bench.log
	else
		say "IBAL_RXE_BENCH=1 but there is no tests/integration/realstack/guest-bench.sh: nothing to run"
	fi
	ph_end
fi

# ---------------------------------------------------------------- end
dmesg >$OUT/dmesg.txt 2>&1
grep -E 'rxe|rdma|infiniband|BUG:|WARNING:|Oops|segfault|Call Trace' $OUT/dmesg.txt | tail -20 | sed 's/^/@@ dmesg: /'
say "guest MemAvailable $(awk '/MemAvailable/ { print $2 }' /proc/meminfo) kB"
say "GUEST-DONE $(since "$T_INIT") s since init"
if [ $SHARED = 1 ]; then
	sync
	umount /mnt/out
fi
umount /mnt/build 2>/dev/null
say POWEROFF
poweroff -f
