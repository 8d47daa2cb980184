#!/bin/bash
# stress.sh - run in a guest: stress-ng's vm, fault and mmap stressors
# for SECONDS at each of three pcp settings (the smallest bound with the
# minimum high, the Kconfig default, the largest bound); prints one ok/not ok
# line per setting.  Splats are the host's to catch (scripts/vm
# --fail-on-warn).
#
# Usage: tests/guest/stress.sh SECONDS
set -eu
secs=${1:?usage: stress.sh SECONDS}
scale=/proc/sys/vm/pcp_batch_scale_max frac=/proc/sys/vm/percpu_pagelist_high_fraction
saved_scale=$(cat $scale) saved_frac=$(cat $frac)
fail=0
for setting in "0 -1" "$saved_scale $saved_frac" "6 0"; do
	# shellcheck disable=SC2086 # two words on purpose
	set -- $setting
	echo "$1" >$scale
	echo "$2" >$frac
	rc=0
	out=$(stress-ng --temp-path /tmp --vm 2 --vm-bytes 256M --fault 2 --mmap 2 --mmap-bytes 128M \
		--timeout "${secs}s" --metrics-brief 2>&1) || rc=$?
	printf '%s\n' "$out" | grep -E 'stress-ng: (info|metrc).*(vm|fault|mmap) ' | sed 's/^/# /'
	if [ "$rc" = 0 ]; then
		echo "ok - stress-ng vm, fault, mmap for ${secs}s at pcp_batch_scale_max=$1, high_fraction=$2"
	else
		echo "not ok - stress-ng at pcp_batch_scale_max=$1, high_fraction=$2 exited $rc"
		printf '%s\n' "$out" | tail -n 5 | sed 's/^/#   /'
		fail=1
	fi
done
echo "$saved_scale" >$scale
echo "$saved_frac" >$frac
exit $fail
