#!/bin/bash
# hw_run.sh - run in a guest of the patched kernel, as if it were the
# hardware: scripts/hw-run --quick --reps 1 writes a report with every
# default setting and load and non-empty figures; a SIGTERM in the middle
# of a run leaves both pcp sysctls as they were before it.  Prints one
# ok/not ok line per check.
#
# Usage: tests/guest/hw_run.sh   (tests/run -t hw-run: check-full only)
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"
scale=/proc/sys/vm/pcp_batch_scale_max frac=/proc/sys/vm/percpu_pagelist_high_fraction
[ -f $scale ] || die "this kernel has no vm.pcp_batch_scale_max: boot the patched kernel" 4
read -r boot_scale <$scale
read -r boot_frac <$frac
out=$(mktemp -d "${VM_OUT:-/run}/hw-run-test.XXXXXX")
fail=0

# 1. a quick run: every setting x load in hw-report.json with figures
rc=0
"$top/scripts/hw-run" --quick --reps 1 --out "$out/run" >"$out/run.log" 2>&1 || rc=$?
if [ "$rc" != 0 ]; then
	echo "not ok - hw-run --quick --reps 1 exited $rc"
	tail -n 15 "$out/run.log" | sed 's/^/#   /'
	fail=1
elif err=$(/usr/bin/python3 - "$out/run" <<'PY'
import json, sys
d = sys.argv[1]
r = json.load(open(d + "/hw-report.json"))
bad = []
rows = {(x["load"], x["setting"]): x for x in r["rows"]}
for load in ("yafang", "pf1", "pf2"):
    for s in ("def", "k1", "k0", "hfmax"):
        x = rows.get((load, s))
        if not x:
            bad.append(f"no row {load} {s}")
            continue
        if not x["throughput"]["mean"] > 0:
            bad.append(f"{load} {s}: no throughput")
        h = x["holds"]
        if not all(k in h for k in ("refill", "drain")):
            bad.append(f"{load} {s}: no refill or drain column")
        # yafang's maps outgrow the pcp lists: every setting refills.  A
        # quick pf1/pf2 may recycle its pages through the lists without one.
        if load == "yafang" and not (h.get("refill") or {}).get("calls"):
            bad.append(f"{load} {s}: no refill holds")
    for k in ("refill", "drain"):
        if not any(((rows.get((load, s)) or {}).get("holds", {}).get(k) or {}).get("p99_us")
                   for s in ("def", "k1", "k0", "hfmax")):
            bad.append(f"{load}: no {k} p99 at any setting")
# the guest is a virtual machine: the report must say so
if not r["machine"].get("virt") or r["machine"]["virt"] == "none":
    bad.append("machine.virt %r in a QEMU guest" % r["machine"].get("virt"))
p = r["provenance"]
if p["timing"] != "hw" or p["qemu"] is not None:
    bad.append("provenance: timing %r qemu %r" % (p["timing"], p["qemu"]))
md = open(d + "/hw-report.md").read()
for want in ("### yafang", "### pf1", "### pf2", "knob 0", "fraction INT_MAX", "- virtualisation: "):
    if want not in md:
        bad.append("hw-report.md lacks " + want)
if "||" in md:
    bad.append("hw-report.md has an empty cell")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
); then
	echo "ok - hw-run --quick --reps 1: every setting and load in hw-report.json/md, with figures"
else
	echo "not ok - hw-run --quick --reps 1: $err"
	fail=1
fi

# 2. SIGTERM while k0 is applied: both sysctls back at their values at start
echo 3 >$scale
echo 100 >$frac
"$top/scripts/hw-run" --quick --reps 1 --settings k0 --out "$out/term" >"$out/term.log" 2>&1 &
pid=$!
caught=''
for _ in $(seq 600); do
	[ "$(cat $scale)" != 0 ] || { caught=1; break; }
	kill -0 $pid 2>/dev/null || break
	sleep 0.2
done
[ -z "$caught" ] || kill -TERM $pid
rc=0
wait $pid || rc=$?
got="$(cat $scale) $(cat $frac)"
if [ -n "$caught" ] && [ "$rc" = 143 ] && [ "$got" = "3 100" ] && grep -q 'restored vm.pcp_batch_scale_max=3' "$out/term.log"; then
	echo "ok - SIGTERM with knob 0 applied: exit 143, both sysctls back at 3 100, and it said so"
else
	echo "not ok - SIGTERM: caught '${caught:-no}', exit $rc (want 143), sysctls '$got' (want '3 100')"
	tail -n 5 "$out/term.log" | sed 's/^/#   /'
	fail=1
fi
# 3. --kbuild on a small tree, --compare against run 1: kbuild rows with
# real/user/sys, and the report's comparison section with run 1's rows
kb="$out/kb"
mkdir -p "$kb"
for i in 1 2 3 4 5 6; do
	printf 'int f%s(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * %s; return s; }\n' "$i" "$i" >"$kb/f$i.c"
done
cat >"$kb/Makefile" <<'MK'
objs := $(patsubst %.c,%.o,$(wildcard *.c))
all: $(objs)
%.o: %.c
	gcc -O2 -c -o $@ $<
clean:
	rm -f *.o
MK
rc=0
"$top/scripts/hw-run" --quick --reps 1 --settings def,k0 --kbuild "$kb" --compare "$out/run" \
	--out "$out/cmp" >"$out/cmp.log" 2>&1 || rc=$?
if [ "$rc" != 0 ]; then
	echo "not ok - hw-run --kbuild --compare exited $rc"
	tail -n 15 "$out/cmp.log" | sed 's/^/#   /'
	fail=1
elif err=$(/usr/bin/python3 - "$out/cmp" <<'PY'
import json, sys
d = sys.argv[1]
r = json.load(open(d + "/hw-report.json"))
bad = []
rows = {(x["load"], x["setting"]): x for x in r["rows"]}
for s in ("def", "k0"):
    k = (rows.get(("kbuild", s)) or {}).get("kbuild")
    if not k or not k["real"] > 0 or k["user"] is None or k["sys"] is None:
        bad.append(f"kbuild {s}: no real/user/sys ({k})")
md = open(d + "/hw-report.md").read()
if "### kbuild" not in md:
    bad.append("hw-report.md lacks ### kbuild")
cmp = md.split("## Against an earlier run")
if len(cmp) != 2:
    bad.append("hw-report.md lacks the comparison section")
else:
    for want in ("| pf1 | knob 0 |", "| yafang | default (5) |"):
        if want not in cmp[1]:
            bad.append("comparison lacks the row " + want)
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
); then
	echo "ok - hw-run --kbuild --compare: kbuild real/user/sys at def and k0, and the comparison with run 1"
else
	echo "not ok - hw-run --kbuild --compare: $err"
	fail=1
fi
[ -f "$kb/f1.o" ] || { echo "not ok - --kbuild left no objects: make did not build in $kb"; fail=1; }

echo "$boot_scale" >$scale
echo "$boot_frac" >$frac
exit $fail
