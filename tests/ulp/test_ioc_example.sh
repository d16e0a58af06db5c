#!/bin/sh
# ibal tests: the IOC example pair (ulp/ibal_ioc_target, ulp/ibal_ioc_initiator) end to end.
# Copyright (c) 2026 The ibal authors. BSD-2-Clause.
#
# In a fresh soft-fabric directory, starts the target (an IOC with two
# service entries, listening on the first) and the initiator (finds the IOC
# through PnP, connects to the first service with the path of the IOC path
# record, checks echoed messages, disconnects, waits for the IOC removal),
# each within 90 s (their own limit is 80 s so that they report a hang
# themselves). Both must exit 0 and print their OK lines.
set -u
target=${IOC_TARGET:-./ulp/ibal_ioc_target}
initiator=${IOC_INITIATOR:-./ulp/ibal_ioc_initiator}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibal-ioc-test-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
IBAL_SOFT_FABRIC="$tmp/fabric"
IBAL_IOC_SWEEP_MS=${IBAL_IOC_SWEEP_MS:-200}
export IBAL_SOFT_FABRIC IBAL_IOC_SWEEP_MS
mkdir "$IBAL_SOFT_FABRIC"
fail=0

for b in "$target" "$initiator"; do
	if [ ! -x "$b" ]; then
		echo "FAIL: no binary at $b (set IOC_TARGET / IOC_INITIATOR)"
		echo "CUNIT-TOTALS: tests=1 failed=1"
		exit 1
	fi
done

timeout 90 "$target" --timeout 80 >"$tmp/target.out" 2>&1 &
tpid=$!
timeout 90 "$initiator" --timeout 80 --messages 50 >"$tmp/initiator.out" 2>&1
irc=$?
wait "$tpid"
trc=$?

bad=""
[ "$trc" -eq 0 ] || bad="$bad${bad:+; }target exit status $trc"
[ "$irc" -eq 0 ] || bad="$bad${bad:+; }initiator exit status $irc"
for line in "^target: IOC .* registered" "^target: echoed 50 messages" "^target OK$"; do
	grep -q "$line" "$tmp/target.out" || bad="$bad${bad:+; }target printed no '$line'"
done
for line in "^initiator: IOC .* 2 service entries" "^initiator:   service 0: \"ibal.echo\"" \
	    "^initiator:   service 1: \"ibal.spare\"" "^initiator: connected to service \"ibal.echo\"" \
	    "^initiator: 50 messages echoed unchanged" "^initiator: IOC removal reported" \
	    "^initiator OK$"; do
	grep -q "$line" "$tmp/initiator.out" || bad="$bad${bad:+; }initiator printed no '$line'"
done
if [ -n "$bad" ]; then
	echo "FAIL: IOC example: $bad"
	echo "--- target:"; cat "$tmp/target.out"
	echo "--- initiator:"; cat "$tmp/initiator.out"
	fail=1
else
	echo "ok: IOC example (target and initiator on one soft fabric)"
	cat "$tmp/initiator.out"
fi
echo "CUNIT-TOTALS: tests=1 failed=$fail"
[ "$fail" -eq 0 ]
