#!/bin/bash
# race.sh - run in a guest: for SECONDS, at once, writers flipping both pcp
# sysctls through every valid value, repeated exit storms, CPU 1 going
# offline and online, and drop_caches/compaction.  Then check that no pages
# leaked (MemFree after draining within 1% of before) and that the knob and
# the -1 mode still hold (the kselftest, run after the race).
#
# Drain before each MemFree reading: drop_caches=3, compact_memory, then
# percpu_pagelist_high_fraction=-1 and vm.stat_refresh rounds, which decay
# every CPU's pcp list to 4 * batch.
#
# Needs build/$BASE/bench/storm and build/$BASE/selftests/pcp_batch_test
# (tests/run builds them first).
#
# Usage: tests/guest/race.sh SECONDS
# shellcheck disable=SC2317 # the workers are called through loop()
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"
secs=${1:?usage: race.sh SECONDS}
for f in "$build/bench/storm" "$build/selftests/pcp_batch_test"; do
	[ -x "$f" ] || die "${f#"$top"/} missing: tests/run -t races builds it" 66
done
scale=/proc/sys/vm/pcp_batch_scale_max frac=/proc/sys/vm/percpu_pagelist_high_fraction
cpu1=/sys/devices/system/cpu/cpu1/online
tmp=$(mktemp -d)

drained_memfree() {
	echo 3 >/proc/sys/vm/drop_caches
	echo 1 >/proc/sys/vm/compact_memory
	echo -1 >$frac
	for _ in $(seq 40); do echo 1 >/proc/sys/vm/stat_refresh; done
	awk '/^MemFree:/ {print $2}' /proc/meminfo
}

loop() { # loop NAME CMD...: run CMD until the deadline, count the rounds
	local name=$1 n=0
	shift
	while [ "$(date +%s)" -lt "$deadline" ]; do
		"$@" >/dev/null 2>&1 || { echo "$name failed at round $n" >"$tmp/$name.err"; }
		n=$((n + 1))
	done
	echo "$n" >"$tmp/$name.count"
}
flip_scale() {
	local v
	for v in 0 1 2 3 4 5 6; do
		echo "$v" >"$scale"
	done
}
flip_frac() { local v; for v in -1 0 8 -1 100 0; do echo "$v" >"$frac"; done; }
storm() { "$build/bench/storm" -n 2 -s 64 -v -1 -a 0 -c 0; }
hotplug() { echo 0 >"$cpu1"; sleep 0.2; echo 1 >"$cpu1"; }
reclaim() { echo 3 >/proc/sys/vm/drop_caches; echo 1 >/proc/sys/vm/compact_memory; }

saved_scale=$(cat $scale) saved_frac=$(cat $frac)
before=$(drained_memfree)
echo "$saved_frac" >$frac
deadline=$(( $(date +%s) + secs ))
loop scale flip_scale & loop frac flip_frac & loop storm storm &
loop reclaim reclaim &
[ -w $cpu1 ] && loop hotplug hotplug &
wait
[ "$(cat $cpu1 2>/dev/null || echo 1)" = 1 ] || echo 1 >$cpu1
after=$(drained_memfree)
echo "$saved_scale" >$scale
echo "$saved_frac" >$frac

fail=0
for f in "$tmp"/*.count; do
	name=$(basename "$f" .count)
	echo "# $name: $(cat "$f") rounds in ${secs}s"
done
for f in "$tmp"/*.err; do
	[ -e "$f" ] || continue
	echo "not ok - race: $(cat "$f")"
	fail=1
done
[ $fail = 1 ] || echo "ok - race: writers, exit storms, CPU hotplug and reclaim ran ${secs}s without an error"
delta=$(( before > after ? before - after : after - before ))
if [ $((delta * 100)) -le "$before" ]; then
	echo "ok - race: MemFree after draining within 1% of before ($before kB -> $after kB)"
else
	echo "not ok - race: MemFree after draining moved more than 1% ($before kB -> $after kB)"
	fail=1
fi
# with its CPU hotplug case (run_vmtests.sh -d)
PCP_TEST_DESTRUCTIVE=1 "$build/selftests/pcp_batch_test" >"$tmp/kselftest.log" 2>&1 && rc=0 || rc=$?
if [ "$rc" = 0 ]; then
	echo "ok - race: afterwards the kselftest passes (knob bound and -1 mode hold on every CPU)"
else
	echo "not ok - race: afterwards the kselftest fails (exit $rc)"
	grep '^not ok' "$tmp/kselftest.log" | sed 's/^/#   /'
	fail=1
fi
rm -rf "$tmp"
exit $fail
