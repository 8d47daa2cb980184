#!/bin/bash
# peer.sh - run in a guest: the kernel's own mm selftests (run_vmtests.sh)
# for the given categories, from a writable copy in /tmp, each "running"
# line stamped with the seconds since the start.
#
# Usage: tests/guest/peer.sh BINDIR SRCDIR CATEGORY...
#   BINDIR  the mm selftests built with OUTPUT=BINDIR
#   SRCDIR  tools/testing/selftests/mm of the tree (run_vmtests.sh, helpers)
set -eu
[ $# -ge 3 ] || { echo "usage: peer.sh BINDIR SRCDIR CATEGORY..." >&2; exit 2; }
bin=$1 src=$2
shift 2
work=$(mktemp -d /tmp/mm.XXXXXX)
cp -a "$bin"/. "$work"/
cp "$src"/*.sh "$src"/settings "$work"/
cd "$work"
start=$(date +%s)
./run_vmtests.sh -t "$*" 2>&1 | while IFS= read -r line; do
	case $line in
	"# running "*) printf '# [%4ds] %s\n' $(( $(date +%s) - start )) "${line#\# }" ;;
	*) printf '%s\n' "$line" ;;
	esac
	case $line in "# SUMMARY: "*) touch "$work/.summary" ;; esac
done
echo "# run_vmtests.sh finished in $(( $(date +%s) - start ))s"
# run_vmtests.sh exits 4 when a test skipped and 1 when one failed: the host
# compares its TAP lines between kernels; here only a missing summary (the
# script itself broke off) is an error.
[ -e "$work/.summary" ] || { echo "# run_vmtests.sh printed no SUMMARY line"; exit 1; }
