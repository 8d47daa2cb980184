#!/bin/bash
# kselftest_kill.sh - run in a guest: SIGKILL pcp_batch_test in the middle of
# a case, once for each of its three processes (the harness's main process,
# the test process the harness forks, and the process that runs the test
# body), and check that both pcp sysctls end as they were before the run,
# every CPU is online and the trace instance is gone.  The case: the
# tracepoint one while it has the knob at 0, or, on a kernel without the
# events, the CPU hotplug one while it has the fraction at -1.  Prints one
# ok/not ok line per process killed.
#
# Needs build/$BASE/selftests/pcp_batch_test (tests/run builds it), or the
# binary given.
#
# Usage: tests/guest/kselftest_kill.sh [PCP_BATCH_TEST]
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"
sel=${1:-$build/selftests/pcp_batch_test}
[ -x "$sel" ] || die "${sel#"$top"/} missing: tests/run -t kselftest-sigkill builds it" 66
scale=/proc/sys/vm/pcp_batch_scale_max frac=/proc/sys/vm/percpu_pagelist_high_fraction
inst=/sys/kernel/tracing/instances/pcp_batch_test
if [ -d /sys/kernel/tracing/events/kmem/mm_page_pcpu_refill_hold ]; then
	# the case that loads every CPU with the knob at 0 (its name on 6.12)
	test_case=pcp.no_refill_hold_exceeds_the_bound
	"$sel" -l 2>&1 | grep -q no_refill_hold_exceeds_the_bound ||
		test_case=pcp.no_zone_lock_hold_exceeds_the_bound
	running() { [ -d $inst ] && [ "$1" = 0 ] && [ "$2" = -1 ]; }
else
	test_case=pcp.minus_1_holds_for_a_cpu_onlined_again
	running() { [ "$2" = -1 ]; }
fi

# catch VICTIM: run the case, SIGKILL VICTIM's process while the case has
# the sysctls changed, wait for what is left of the run; status 2 when the
# case ended before it was caught
catch() {
	local victim=$1 main test='' body='' s f end
	PCP_TEST_DESTRUCTIVE=1 "$sel" -r "$test_case" >/dev/null 2>&1 &
	main=$!
	# -r runs the one case: its processes stay the same until it ends
	end=$((SECONDS + 60))
	while [ $SECONDS -lt $end ] && kill -0 "$main" 2>/dev/null; do
		[ -n "$test" ] || test=$(ps -o pid= --ppid "$main" | awk 'NR == 1 { print $1 }')
		[ -z "$test" ] || [ -n "$body" ] ||
			body=$(ps -o pid= --ppid "$test" | awk 'NR == 1 { print $1 }')
		read -r s <$scale
		read -r f <$frac
		[ -z "$body" ] || ! running "$s" "$f" || break
	done
	local -A pids=([main]=$main [test]=$test [body]=$body)
	if [ -z "$body" ] || ! running "$s" "$f" || ! kill -KILL "${pids[$victim]}" 2>/dev/null; then
		wait "$main" || true
		return 2
	fi
	wait "$main" 2>/dev/null || true
	# a killed main leaves the test and body processes to finish
	for _ in $(seq 600); do
		kill -0 "$test" 2>/dev/null || kill -0 "$body" 2>/dev/null || break
		sleep 0.1
	done
}

ps -o pid= -p $$ >/dev/null	# warm the caches: the first ps is slow
fail=0
for victim in main test body; do
	for attempt in 1 2 3; do
		# values other than the defaults, so that a restore to a default shows
		echo 3 >$scale
		echo 100 >$frac
		rc=0
		catch $victim || rc=$?
		[ "$rc" = 2 ] || break
	done
	if [ "$rc" = 2 ]; then
		echo "not ok - SIGKILL of the $victim process: the case ended before it was caught, $attempt times"
		fail=1
		continue
	fi
	got="$(cat $scale) $(cat $frac)"
	offline=$(cat /sys/devices/system/cpu/offline)
	if [ "$got" = "3 100" ] && [ ! -d $inst ] && [ -z "$offline" ]; then
		echo "ok - SIGKILL of the $victim process in $test_case (attempt $attempt): both sysctls back at 3 100, all CPUs online, no trace instance"
	else
		echo "not ok - SIGKILL of the $victim process in $test_case: sysctls '$got' (want '3 100'), offline CPUs '$offline', instance $([ -d $inst ] && echo left || echo gone)"
		fail=1
	fi
done
exit $fail
