#!/bin/bash
# peer.sh - run in a guest: the kernel's own mm selftests (run_vmtests.sh)
# for the given categories, from a writable copy in /tmp, each "running"
# line stamped with the seconds since the start.  With --rerun N: run the
# given test command lines (as run_vmtests.sh names them) N times each,
# with run_vmtests.sh's huge page reservation, one "rerun" line per run.
#
# Usage: tests/guest/peer.sh BINDIR SRCDIR CATEGORY...
#        tests/guest/peer.sh --rerun N BINDIR SRCDIR 'CMD [ARGS]'...
#   BINDIR  the mm selftests built with OUTPUT=BINDIR
#   SRCDIR  tools/testing/selftests/mm of the tree (run_vmtests.sh, helpers)
set -eu
usage() { echo "usage: peer.sh [--rerun N] BINDIR SRCDIR CATEGORY|CMD..." >&2; exit 2; }
rerun=0
if [ "${1:-}" = --rerun ]; then
	rerun=${2:-}
	case $rerun in ''|*[!0-9]*|0) usage ;; esac
	shift 2
fi
[ $# -ge 3 ] || usage
bin=$1 src=$2
shift 2
work=$(mktemp -d /tmp/mm.XXXXXX)
cp -a "$bin"/. "$work"/
cp "$src"/*.sh "$src"/settings "$work"/
cd "$work"
start=$(date +%s)

if [ "$rerun" -gt 0 ]; then
	# run_vmtests.sh reserves max(256 MiB, 2 huge pages per CPU) of huge pages
	hp_kb=$(awk '/^Hugepagesize:/ {print $2}' /proc/meminfo)
	need=$(( 262144 > hp_kb * 2 * $(nproc) ? 262144 : hp_kb * 2 * $(nproc) ))
	saved=$(cat /proc/sys/vm/nr_hugepages)
	echo 3 >/proc/sys/vm/drop_caches
	echo $((need / hp_kb)) >/proc/sys/vm/nr_hugepages
	for i in $(seq "$rerun"); do
		for cmd in "$@"; do
			rc=0
			# shellcheck disable=SC2086 # a command line, split on purpose
			./$cmd >"$work/rerun.out" 2>&1 || rc=$?
			case $rc in 0) res=PASS ;; 4) res=SKIP ;; *) res=FAIL ;; esac
			echo "rerun $i $res $cmd"
			[ $res != FAIL ] || tail -n 3 "$work/rerun.out" | sed 's/^/#   /'
		done
	done
	echo "$saved" >/proc/sys/vm/nr_hugepages
	echo "# reruns finished in $(( $(date +%s) - start ))s"
	exit 0
fi

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
