#!/bin/bash
# stress.sh - run in a guest: stress-ng's vm, fault and mmap stressors
# for SECONDS at each of three pcp settings (the smallest bound with the
# minimum high, knob 2, the Kconfig default: the largest bound); prints one KTAP
# ok/not ok line per setting (scripts/lib.sh's ktap_result).  Splats are
# the host's to catch (scripts/vm --fail-on-warn).
#
# Usage: tests/guest/stress.sh SECONDS
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=scripts/settings.sh
. "$top/scripts/settings.sh"
secs=${1:?usage: stress.sh SECONDS}
fail=0
for setting in hf-1k0 k2 def; do
	setting_apply "$setting"
	read_back=$(for name in "${setting_names[@]}"; do
		printf '%s=%s\n' "$name" "$(cat "/proc/sys/vm/$name" 2>/dev/null || echo none)"
	done | paste -sd, | sed 's/,/, /g')
	rc=0
	out=$(stress-ng --temp-path /tmp --vm 2 --vm-bytes 256M --fault 2 --mmap 2 --mmap-bytes 128M \
		--timeout "${secs}s" --metrics-brief 2>&1) || rc=$?
	printf '%s\n' "$out" | grep -E 'stress-ng: (info|metrc).*(vm|fault|mmap) ' | sed 's/^/# /'
	ktap_result "stress-ng vm, fault, mmap for ${secs}s at $setting ($read_back)" \
		"$rc" "$out" 5
	[ "$rc" = 0 ] || fail=1
done
setting_apply def
exit $fail
