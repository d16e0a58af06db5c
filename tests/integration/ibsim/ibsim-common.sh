# ibal tests: shell functions shared by the harnesses that run programs against OpenSM on an ibsim fabric.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# Sourced (not run) by tests/integration/ibsim/ibsim-run.sh, tests/integration/ibsim/ibsim-al.sh and
# tests/bench/bench_sa_ibsim.sh. A simulated fabric (ibsim, Debian package
# ibsim-utils: 1 switch S1, 3 HCAs H1..H3), OpenSM as master on H1 through
# LD_PRELOAD=libumad2sim.so (libumad2sim0), programs on H2. Every wait is
# bounded; OpenSM is stopped before ibsim (it may ignore SIGTERM once ibsim
# is gone).
#
#   ibsim_check      finds the preload library (SIM); skips (exit 77) when it
#                    or a tool is missing.
#   ibsim_enter SELF ARGS...  re-executes SELF ARGS in a private
#                    network namespace (ibsim's sockets are abstract unix
#                    sockets another instance could meet; IBSIM_NETNS=0 runs
#                    in the current one), then makes and enters the work
#                    directory WORK ($IBSIM_WORK, default
#                    ${TMPDIR:-/tmp}/ibal-ibsim-<pid>).
#   ibsim_start DIR  a fresh fabric in DIR: ibsim (console on fd 3, a fifo),
#                    OpenSM (wrapper pid in OSM_PID) up to SUBNET UP.
#   ibsim_sweep      makes OpenSM sweep now (SIGHUP).
#   ibsim_change CMD RE N  gives ibsim's console CMD, then SIGHUPs OpenSM
#                    until its log holds one more line matching RE than
#                    before (up to N tries, 3 s each); fails when it never does.
#   ibsim_stop_sm    stops OpenSM alone.
#   ibsim_signal STOP|CONT  pauses or resumes ibsim.
#   stop_all         stops everything started (newest first).
#   sa ARGS...       saquery from H2.
#   wait_for RE N F  waits up to N tenths of a second for RE in file F.

skip() { echo "SKIP: $*"; exit 77; }

ibsim_find_sim() {
	local c
	SIM=${UMAD2SIM:-}
	for c in /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so /usr/lib/*/umad2sim/libumad2sim.so \
		 /usr/lib64/umad2sim/libumad2sim.so /usr/lib/umad2sim/libumad2sim.so; do
		[ -z "$SIM" ] && [ -f "$c" ] && SIM=$c
	done
}

ibsim_check() {
	local t
	ibsim_find_sim
	for t in ibsim opensm saquery timeout pgrep; do
		command -v $t >/dev/null 2>&1 || skip "$t not found"
	done
	[ -n "$SIM" ] && [ -f "$SIM" ] || skip "libumad2sim.so not found (package libumad2sim0)"
}

ibsim_enter() { # SELF ARGS...
	local self=$1 U
	shift
	if [ "${IBSIM_IN_NETNS:-0}" != 1 ] && [ "${IBSIM_NETNS:-1}" = 1 ]; then
		command -v unshare >/dev/null 2>&1 || skip "unshare not found"
		unshare -n true 2>/dev/null || unshare -rn true 2>/dev/null || skip "unshare -n not permitted"
		if unshare -n true 2>/dev/null; then U="unshare -n"; else U="unshare -rn"; fi
		exec env IBSIM_IN_NETNS=1 timeout "${IBSIM_TIMEOUT:-300}" $U "$self" "$@"
	fi
	WORK=${IBSIM_WORK:-${TMPDIR:-/tmp}/ibal-ibsim-$$}
	rm -rf "$WORK"; mkdir -p "$WORK" && cd "$WORK" || exit 1
	PIDS=()
	trap cleanup EXIT
}

stop() { # $1: pid of a `timeout CMD` wrapper: TERM the command, KILL it after 2 s
	local w=$1 c i
	c=$(pgrep -P "$w" 2>/dev/null || true)
	kill -TERM "$w" 2>/dev/null || true
	for i in $(seq 1 20); do [ -n "$c" ] && kill -0 "$c" 2>/dev/null || break; sleep 0.1; done
	[ -n "$c" ] && kill -KILL "$c" 2>/dev/null || true
}
cleanup() { local i; for ((i=${#PIDS[@]}-1; i>=0; i--)); do stop "${PIDS[i]}"; done; wait 2>/dev/null; }
stop_all() { cleanup; PIDS=(); }

# Waits up to $2 tenths of a second for regex $1 in file $3.
wait_for() { local i; for i in $(seq 1 "$2"); do grep -q "$1" "$3" 2>/dev/null && return 0; sleep 0.1; done; return 1; }

ibsim_net_small() {
	cat <<'EOF'
# 1 switch, 3 single-port HCAs. OpenSM attaches as H1, the test program and saquery as H2.
Hca	1 "H1"
[1]	"S1"[1]

Hca	1 "H2"
[1]	"S1"[2]

Hca	1 "H3"
[1]	"S1"[3]

Switch	8 "S1"
[1]	"H1"[1]
[2]	"H2"[1]
[3]	"H3"[1]
EOF
}

ibsim_start() { # DIR
	local d=$1
	mkdir -p "$d/osm" && cd "$d" || return 1
	ibsim_net_small > net.small
	rm -f console; mkfifo console || return 1
	exec 3<>console # ibsim's console (needs no -n): kept open so ibsim never sees EOF
	timeout 280 ibsim -s net.small <&3 > ibsim.log 2>&1 & PIDS+=($!)
	IBSIM_WRAP=$!
	wait_for 'Network simulator ready' 100 ibsim.log || { echo "FAIL: ibsim did not start"; cat ibsim.log; return 1; }
	SIM_HOST=H1 OSM_TMP_DIR=$d/osm OSM_CACHE_DIR=$d/osm LD_PRELOAD=$SIM \
		timeout 280 opensm -e -d2 -s 0 -f "$d/osm/osm.log" < /dev/null > opensm.out 2>&1 & PIDS+=($!)
	OSM_PID=$!
	wait_for 'SUBNET UP' 300 osm/osm.log || { echo "FAIL: OpenSM: no SUBNET UP"; tail -20 osm/osm.log; return 1; }
}

ibsim_sweep() { # asks OpenSM for a heavy sweep (SIGHUP)
	local c
	sleep 0.5 # let ibsim take the console command first
	c=$(pgrep -P "${OSM_PID:-0}" 2>/dev/null | head -1)
	[ -n "$c" ] && kill -HUP "$c" && echo "OpenSM: SIGHUP (heavy sweep)"
}

# A change made on ibsim's console reaches OpenSM only when a sweep finds it:
# the switch's trap 128 may start one before ibsim has applied the change, and
# a loaded machine may take longer than any fixed pause, so a sweep is asked
# for again until OpenSM's log shows it saw the change.
ibsim_change() { # CONSOLE-COMMAND RE TRIES
	local re=$2 tries=$3 n0 t
	n0=$(grep -c "$re" osm/osm.log 2>/dev/null)
	echo "$1" >&3; echo "ibsim console: $1"
	for t in $(seq 1 "$tries"); do
		ibsim_sweep
		for _ in $(seq 1 30); do
			[ "$(grep -c "$re" osm/osm.log 2>/dev/null)" -gt "$n0" ] && return 0
			sleep 0.1
		done
		echo "OpenSM: sweep $t did not log /$re/ yet"
	done
	return 1
}

ibsim_stop_sm() { [ -n "${OSM_PID:-}" ] && stop "$OSM_PID"; OSM_PID=; }

# Pauses (STOP) or resumes (CONT) ibsim itself: what clients send meanwhile waits in its sockets.
ibsim_signal() { local c; c=$(pgrep -P "${IBSIM_WRAP:-0}" 2>/dev/null | head -1); [ -n "$c" ] && kill "-$1" "$c"; }

sa() { SIM_HOST=H2 LD_PRELOAD=$SIM timeout 30 saquery "$@" 2>&1; }
