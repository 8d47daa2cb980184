# shellcheck shell=bash
# Host-side tests of the harness, sourced by tests/run (after scripts/lib.sh),
# which lists each in its table.  Each test_* function is one test: it
# succeeds or fails, and says why on failure.  test_vm_* functions boot
# build/$BASE/kernel-patched/bzImage.
: "${build:?source scripts/lib.sh first}"

expect_status() { # expect_status WANT CMD...: run CMD, want exit status WANT
	local want=$1 rc=0
	shift
	"$@" || rc=$?
	[ "$rc" = "$want" ] || { echo "'$*' exited $rc, want $want"; return 1; }
}

# shell_scripts: every tracked shell script: *.sh, and files whose first line
# names sh or bash.
shell_scripts() {
	local f
	git ls-files | while IFS= read -r f; do
		case $f in
		*.sh) echo "$f" ;;
		*.*) ;;
		*) head -n 1 "$f" | grep -qE '^#!/bin/(ba)?sh' && echo "$f" ;;
		esac
	done
}

test_scripts_are_shellcheck_clean() {
	local files
	mapfile -t files < <(shell_scripts)
	[ ${#files[@]} -gt 15 ] || { echo "found only ${#files[@]} shell scripts: ${files[*]}"; return 1; }
	shellcheck -x "${files[@]}"
}

# A harness a newcomer can read: no tracked file under bench/, scripts/ or
# tests/ over 600 lines, the README (a front page) at most 160.
# Every tracked file with a #! line runs: executable in git's index (what
# a clone gets) and here (make figures exited 126 on one that was not).
test_scripts_are_executable() {
	local mode f bad=0
	while read -r mode _ _ f; do
		if [ ! -f "$f" ] || [ "$(head -c 2 "$f")" != "#!" ]; then continue; fi
		[ "$mode" = 100755 ] && [ -x "$f" ] && continue
		echo "$f: a #! line but not executable (chmod +x $f; git update-index --chmod=+x $f)"
		bad=1
	done < <(git ls-files -s)
	return $bad
}

test_files_stay_small() {
	local f n bad=0
	while IFS= read -r f; do
		n=$(wc -l <"$f")
		[ "$n" -le 600 ] || { echo "$f: $n lines, over 600: split it by job"; bad=1; }
	done < <(git ls-files bench scripts tests)
	n=$(wc -l <README.md)
	[ "$n" -le 160 ] || { echo "README.md: $n lines, over 160: move the detail to docs/"; bad=1; }
	return $bad
}

test_python_compiles() {
	local files
	mapfile -t files < <(git ls-files '*.py')
	/usr/bin/python3 -m py_compile "${files[@]}"
}

# pyflakes (python3-pyflakes): no unused import or name, no undefined one
test_python_is_pyflakes_clean() {
	local files
	mapfile -t files < <(git ls-files '*.py')
	pyflakes3 "${files[@]}"
}

test_scripts_reject_bad_usage() {
	local err
	for cmd in "scripts/vm --bogus -- true" "scripts/vm" "scripts/vm --smp" \
		"scripts/vm --smp x -- true" "scripts/vm --mem 4 -- true" \
		"scripts/vm --timeout -1 -- true" "scripts/kernel bogus" \
		"scripts/export extra" "scripts/tree extra" "scripts/deps --bogus" \
		"scripts/base extra" "tests/run -x" "bench/run --bogus" \
		"scripts/vm --icount --accel kvm -- true" "bench/run --timing x" \
		"bench/run --smoke --multi" "bench/run --probes --short" "bench/run --reps 0" "scripts/series --bogus" \
		"bench/run --instruments bogus" "bench/run --instruments pcp,none" "bench/run --instruments none" \
		"bench/run --instruments pcp --probes" "bench/run --plan bogus" "bench/run --mode instruments" \
		"bench/run --settings k6" "bench/guest/guest-run --bogus a b c" "bench/guest/guest-run --phases=x a b c" \
		"bench/guest/workloads-run --reps=0 a b c" "tests/peer bogus" "tests/peer --bogus" \
		"scripts/series -v 0" "scripts/cover.py bogus" "tests/check-series --bogus" \
		"scripts/hw-run --reps 0" "scripts/hw-run --cpus x" "scripts/hw-run --settings bogus" \
		"scripts/hw-run --settings def,k6" "tests/alone 9" "tests/alone --bogus" \
		"tests/mutants --tree /nonexistent" "scripts/rt-bench --reps 0" "scripts/rt-bench --bogus"; do
		# shellcheck disable=SC2086 # split on purpose
		err=$(expect_status 2 $cmd 2>&1 >/dev/null) || { echo "$err"; return 1; }
		[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] ||
			{ echo "'$cmd' printed more than one line: $err"; return 1; }
	done
	expect_status 66 scripts/vm --kernel /nonexistent/bzImage -- true 2>/dev/null
	# scripts/hw-run on a kernel without the knob (the host's, as a rule):
	# exit 4, one line naming patch 0003
	if [ ! -e /proc/sys/vm/pcp_batch_scale_max ]; then
		err=$(expect_status 4 scripts/hw-run 2>&1 >/dev/null) || { echo "$err"; return 1; }
		case $err in
		*'patch 0003'*) [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] ||
			{ echo "scripts/hw-run without the knob printed more than one line: $err"; return 1; } ;;
		*) echo "scripts/hw-run without the knob: '$err' names no patch 0003"; return 1 ;;
		esac
	fi
}

# model_checks DIR: bench/model/model.py --check into DIR: every CPU count x
# setting x kernel kind (mainline, 6.12, mainline-ck) in model.json, each
# anchor within 2x, the chunked refill's (mainline-ck) refill holds at k5 no
# longer than mainline's at k0 (63 pages each); --cpus 2 --measured sets a
# results.json beside the model; a bad argument or input is one line on
# stderr, exit 2, and writes nothing.
model_checks() {
	local dir=$1 args err
	/usr/bin/python3 bench/model/model.py --check --out "$dir/out" || return 1
	/usr/bin/python3 - "$dir/out/model.json" <<'EOF' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
labels = ["k%d" % k for k in range(7)] + ["hf-1"]
cpus = (16, 32, 64, 128, 256)
want = {(k, n, s) for k in ("mainline", "6.12", "mainline-ck") for n in cpus for s in labels}
cells = {(c["kind"], c["cpus"], c["setting"]): c for c in d["cells"]
         if c["victim_wait"]["samples"] and c["victim_wait"]["p999_us"] is not None}
errs = ["no cell %s, %d CPUs, %s" % m for m in sorted(want - set(cells))]
for n in cpus:
    ck, k0 = cells.get(("mainline-ck", n, "k5")), cells.get(("mainline", n, "k0"))
    if ck and k0:
        a, b = ck["holds"]["refill"]["max_us"], k0["holds"]["refill"]["max_us"]
        if a is None or b is None or a > b:
            errs.append("%d CPUs: mainline-ck k5 refill hold max %s us, want <= "
                        "mainline k0's %s us" % (n, a, b))
ratios = {a["name"]: a["ratio"] for a in d["anchors"]}
for name in ("ying-batch63", "ying-batch2047", "yafang-6329", "yafang-4xbatch"):
    if ratios.get(name) is None or not 0.5 <= ratios[name] <= 2:
        errs.append("anchor %s: model/anchor %s, want within [0.5, 2]" % (name, ratios.get(name)))
for e in errs:
    print(e)
sys.exit(1 if errs else 0)
EOF
	cat >"$dir/measured.json" <<'EOF'
[{"base": "7.3", "timing": "tcg", "kernel": "patched", "setting": "def",
  "scenario": "exit-storm", "workload": "exit-storm",
  "settings": {"pcp_batch_scale_max": 5, "percpu_pagelist_high_fraction": 0},
  "victim_lock_wait_by_phase": {"exit": {"p99_us": 131.0}, "fault_in": {"p99_us": 262.0}},
  "holds": {"free": {"calls": 100, "total_us": 9000.0, "p99_us": 131.0, "max_pages": 63},
            "refill": {"calls": 320, "total_us": 30000.0, "p99_us": 262.0, "max_pages": 63,
                       "per_refill": {"pages_total": 20160, "max_pages_per_refill": 2016}}}},
 {"base": "7.3", "timing": "tcg", "kernel": "base", "setting": "def",
  "scenario": "exit-storm", "workload": "exit-storm",
  "settings": {},
  "victim_lock_wait_by_phase": {"exit": {"p99_us": 131.0}, "fault_in": {"p99_us": 524.0}},
  "holds": {"free": {"calls": 100, "total_us": 9000.0, "p99_us": 131.0, "max_pages": 63},
            "refill": {"calls": 10, "total_us": 30000.0, "p99_us": 2100.0, "max_pages": 2016,
                       "per_refill": {"pages_total": 20160, "max_pages_per_refill": 2016}}}}]
EOF
	/usr/bin/python3 bench/model/model.py --cpus 2 --measured "$dir/measured.json" \
		--out "$dir/two" >/dev/null || return 1
	grep -q '^## Beside the 2-vCPU measurement' "$dir/two/model.md" ||
		{ echo "--measured: no section 'Beside the 2-vCPU measurement' in model.md"; return 1; }
	/usr/bin/python3 - "$dir/two/model.json" <<'EOF' || return 1
import json, sys
d = json.load(open(sys.argv[1]))
rows = d.get("measured", {}).get("rows", [])
# the patched row refills in holds smaller than a refill (0006): mainline-ck;
# the unpatched one in one hold per refill: mainline
got = [(r.get("kernel"), r.get("kind"), (r.get("model") or {}).get("setting"),
        bool((r.get("ratio") or {}).get("wait_p99"))) for r in rows]
if got != [("patched", "mainline-ck", "k5", True), ("base", "mainline", "k5", True)]:
    sys.exit("--measured: want patched -> mainline-ck k5 and base -> mainline k5, both "
             "with ratios; got %s" % got)
if d["cpu_counts"] != [2]:
    sys.exit("--cpus 2: cpu_counts %s" % d["cpu_counts"])
EOF
	echo '[{"setting": "def"}]' >"$dir/no-holds.json"
	echo '[{"holds": {"free": {"calls": 0}}}]' >"$dir/empty-holds.json"
	for args in "--calibrate /nonexistent" "--calibrate $dir/no-holds.json" \
		"--calibrate $dir/empty-holds.json" "--bogus" "--cpus 0" "--cpus x" \
		"--cpus 1" "--cpus 2,,4" "--measured $dir/no-holds.json"; do
		# shellcheck disable=SC2086 # split on purpose
		err=$(expect_status 2 bench/model/model.py $args --out "$dir/bad" 2>&1 >/dev/null) ||
			{ echo "$err"; return 1; }
		[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] ||
			{ echo "'model.py $args' printed more than one line: $err"; return 1; }
		[ ! -e "$dir/bad" ] || { echo "'model.py $args' wrote $dir/bad"; return 1; }
	done
}

test_model_reproduces_the_anchors() {
	local dir rc=0
	dir=$(mktemp -d)
	model_checks "$dir" || rc=$?
	rm -rf "$dir"
	return $rc
}

# A BASE_FALLBACK base (scripts/base) is not the pinned one, so its commit
# cannot be compared with the pin; tests/run has no skip for a function
# test, and CI must not pass on a base nobody pinned: it fails, saying so.
test_base_commit_is_reproducible() {
	local version root
	# shellcheck source=configs/base-6.12.pin
	. "configs/base-$BASE.pin"
	version=$(cat "$build/base/version" 2>/dev/null) ||
		{ echo "no build/$BASE/base/version: scripts/base has not unpacked the base"; return 1; }
	[ "$version" = "$BASE_VERSION" ] ||
		{ echo "build/$BASE/base is $version, not the pinned $BASE_VERSION (BASE_FALLBACK=1?): the base commit cannot be checked; unpack the pinned base or update configs/base-$BASE.pin"; return 1; }
	root=$(git -C "$build/linux" rev-list --max-parents=0 HEAD)
	[ "$root" = "$BASE_COMMIT" ] ||
		{ echo "the tree's base commit is $root, configs/base-$BASE.pin says $BASE_COMMIT"; return 1; }
}

test_tree_export_round_trip_is_a_noop() {
	local before after
	scripts/export --check ||
		{ echo "the tree differs from patches/: run 'make export' first"; return 1; }
	before=$(patch_files | xargs sha256sum)
	scripts/export || { echo "scripts/export failed (exit $?)"; return 1; }
	after=$(patch_files | xargs sha256sum)
	[ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); return 1; }
}

test_tree_refuses_to_drop_unexported_work() {
	local rc=0
	scripts/export --check || { echo "the tree already differs from patches/"; return 1; }
	echo probe >"$build/linux/unexported-probe"
	git -C "$build/linux" add -f unexported-probe
	git -C "$build/linux" commit -q -m "probe: unexported work"
	scripts/tree || rc=$?
	git -C "$build/linux" reset -q --hard HEAD~1
	[ "$rc" = 1 ] || { echo "scripts/tree exited $rc over unexported work, want 1"; return 1; }
	scripts/export --check
}

test_vm_propagates_exit_status_0_1_7() {
	local n
	for n in 0 1 7; do
		expect_status "$n" scripts/vm -- sh -c "exit $n" || return 1
	done
}

test_vm_true_prints_nothing() {
	local out
	out=$(scripts/vm -- true 2>&1)
	[ -z "$out" ] || { echo "unexpected output: $out"; return 1; }
}

test_vm_runs_as_root_in_cwd_and_streams_output() {
	local out
	out=$(scripts/vm -- sh -c 'pwd; id -u; nproc')
	[ "$out" = "$(printf '%s\n0\n2' "$PWD")" ] || { echo "got: $out"; return 1; }
}

test_vm_out_dir_is_writable() {
	local dir
	dir=$(mktemp -d)
	# shellcheck disable=SC2016 # expanded in the guest
	scripts/vm --out "$dir" -- sh -c 'echo hello >"$VM_OUT/file"'
	[ "$(cat "$dir/file")" = hello ] || { rm -rf "$dir"; return 1; }
	rm -rf "$dir"
}

test_vm_reports_a_guest_panic() {
	local err
	err=$(expect_status 125 scripts/vm -- sh -c 'echo c >/proc/sysrq-trigger' 2>&1) ||
		{ echo "$err"; return 1; }
	printf '%s\n' "$err" | grep -q 'guest panicked'
}

# icount: guest time counts instructions, so the same work takes the same
# time: three runs of the page-fault probe in one boot within 0.5% of their
# median (TCG real time drifts by several % between runs).
test_vm_icount_is_deterministic() {
	local out vals
	# shellcheck disable=SC2016 # expanded in the guest
	# the first probe after a boot warms up (0.5-0.7% slower, as in
	# bench/guest/guest-run's unrecorded warm-up round): it is not compared
	out=$(scripts/vm --icount -- sh -c 'echo "timing=$VM_TIMING"; "$0" pf 2 >/dev/null; for i in 1 2 3; do "$0" pf 2; done' \
		"$build/bench/micro") || { echo "$out"; return 1; }
	printf '%s\n' "$out" | head -n 1 | grep -qx 'timing=icount' ||
		{ echo "the guest did not see VM_TIMING=icount: $out"; return 1; }
	vals=$(printf '%s\n' "$out" | sed -n 's/.*"value": \([0-9.]*\).*/\1/p')
	[ "$(printf '%s\n' "$vals" | wc -l)" = 3 ] || { echo "want 3 figures: $out"; return 1; }
	printf '%s\n' "$vals" | sort -n | awk '{v[NR] = $1} END {
		d = (v[3] - v[1]) / 2 / v[2] * 100
		printf "page faults/s: %s %s %s, half-range %.3f%% of the median\n", v[1], v[2], v[3], d
		exit !(d <= 0.5)}'
}

# bench/micro lock: two processes on the two CPUs take turns on one spin
# lock and lose no increment under it (the probe's own check, exit 1), and
# its figure is what the timing charges per acquisition; add, the plain
# baseline, runs in one process only.
test_micro_lock_excludes() {
	local out
	out=$("$build/bench/micro" -p 2 lock 200000) || { echo "$out"; return 1; }
	printf '%s\n' "$out" | grep -q '"probe": "lock", "procs": 2, "unit": "ns/op", "value": [0-9]' ||
		{ echo "not a lock figure: $out"; return 1; }
	expect_status 2 "$build/bench/micro" -p 2 add 2>/dev/null
}

test_vm_times_out() {
	expect_status 124 scripts/vm --timeout 10 -- sleep 100 2>/dev/null
}

test_vm_reports_kernel_splats() {
	local err
	# sysrq-t prints every task's stack: a "Call Trace:" the runner must
	# report, and fail on when asked to.
	err=$(scripts/vm -- sh -c 'echo t >/proc/sysrq-trigger' 2>&1 >/dev/null) ||
		{ echo "$err"; return 1; }
	printf '%s\n' "$err" | grep -q 'Call Trace' || { echo "not reported: $err"; return 1; }
	expect_status 123 scripts/vm --fail-on-warn -- sh -c 'echo t >/proc/sysrq-trigger' \
		2>/dev/null
}

# bench_copy DIR: configs/, bench/ and scripts/ of this tree in DIR (a
# fresh clone's: no kernel), for bench/run --plan.
bench_copy() {
	cp -r configs bench scripts "$1"/
	rm -rf "$1/build"
}
# plan_boots DIR ARG...: the boot lines of bench/run --plan ARG... in DIR,
# without their time.
plan_boots() {
	local dir=$1
	shift
	(cd "$dir" && BASE=7.3 BENCH_REPS='' bench/run --plan "$@") | grep -v '^#' | sed 's/  # ~[0-9]* min$//'
}

# A new setting is one line of configs/settings, a new sysctl one column:
# in a copy with both, bench/run --plan runs it on the patched kernel of
# the full run and not on the unpatched one, and scripts/settings.sh reads
# the third sysctl.
test_new_setting_is_one_line() {
	local dir rc=0 plan names
	dir=$(mktemp -d)
	bench_copy "$dir"
	awk -F'|' -v OFS='|' '/^#/ || !NF {print; next}
		{$3 = $3 "|" (n++ ? " = " : " min_free_kbytes "); print}' configs/settings >"$dir/configs/settings"
	echo 'k5 | 5 | 0 | = | patched | knob | no | - | tab:red | knob 5 | knob 5 | knob 5: a test' >>"$dir/configs/settings"
	plan=$(plan_boots "$dir") || { rm -rf "$dir"; echo "bench/run --plan failed in the copy"; return 1; }
	printf '%s\n' "$plan" | grep -q '^tcg patched .*guest-run .* patched /run/out .* k5\( \|$\)' ||
		{ echo "k5 is not in the patched kernel's tcg boot:"; printf '%s\n' "$plan"; rc=1; }
	! printf '%s\n' "$plan" | grep -q '^[a-z]* base .* k5\( \|$\)' ||
		{ echo "k5 (kernels: patched) boots on the unpatched kernel:"; printf '%s\n' "$plan"; rc=1; }
	names=$(cd "$dir" && bash -c '. scripts/lib.sh; . scripts/settings.sh; echo "${setting_names[*]}"; setting_values k5; echo "${values[*]}"')
	[ "$names" = "$(printf 'pcp_batch_scale_max percpu_pagelist_high_fraction min_free_kbytes\n5 0 =')" ] ||
		{ echo "scripts/settings.sh read: $names"; rc=1; }
	rm -rf "$dir"
	return $rc
}

# bench/run --plan MODE boots what bench/run booted before its modes became
# bench/modes (read from that script, bf05c80, with the tracer kernel
# built): the same boots, folders and settings, each guest-run option with
# the value that won where the old script gave it twice (its icount boots
# appended their sizes to the tcg ones), and the settings in
# configs/settings' order (def-a, which the old script appended last, is
# second there).
test_plan_boots_what_the_modes_booted() {
	local dir rc=0 mode want got
	dir=$(mktemp -d)
	bench_copy "$dir"
	mkdir -p "$dir/build/7.3/kernel-tracers"
	touch "$dir/build/7.3/kernel-tracers/bzImage"
	while IFS= read -r mode; do
		want=$(sed -n "/^== $mode\$/,/^==/{/^==/d;p}" <<'PLANS'
== full
tcg base smp=2 raw/base: bench/guest/guest-run -r 5 -n 4 -s 128 -R 2000 -N 4 -S 64 -i waits,rlat base /run/out def def-a hfmax
tcg base smp=2 raw/base: bench/guest/workloads-run -r 5 -T -w pf,lru,anon,kbuild base /run/out def hfmax
tcg patched smp=2 raw/patched: bench/guest/guest-run -r 5 -n 4 -s 128 -R 2000 -N 4 -S 64 -i waits,rlat patched /run/out def def-a k0 k1 k2 k3 k4 hf-1 hfmax hf-1k0
tcg patched smp=2 raw/patched: bench/guest/workloads-run -r 5 -T -w pf,lru,anon,kbuild patched /run/out def k0 k1 hf-1 hfmax
icount base smp=2 icount/raw/base: bench/guest/guest-run -r 5 -A -t plain -n 4 -s 64 -a 0 -R 500 -N 4 -S 32 -i solo1,pcp,rlat,frag -m base /run/out def hfmax
icount base smp=2 icount/raw/base: bench/guest/workloads-run -r 5 -W -w pf,anon,net,bonnie base /run/out def hfmax
icount patched smp=2 icount/raw/patched: bench/guest/guest-run -r 5 -A -t plain -n 4 -s 64 -a 0 -R 500 -N 4 -S 32 -i solo1,pcp,rlat,frag -m patched /run/out def k0 k1 k2 k3 k4 hf-1 hfmax hf-1k0
icount patched smp=2 icount/raw/patched: bench/guest/workloads-run -r 5 -W -w pf,anon,net,bonnie patched /run/out def k0 k1 hf-1 hfmax
icount patched smp=2 icount/raw/sweep: bench/guest/guest-run -r 5 -K -t plain patched /run/out def k0 k1 k2 k3 k4 hf-1 hfmax hf-1k0
icount tracers smp=1 icount/raw/tracers: bench/guest/guest-run -r 5 -n 4 -s 64 -R 500 -N 4 -S 32 -t none -i tracers tracers /run/out def k0 k1 k2 k3 k4 hf-1 hfmax hf-1k0
== --timing tcg --settings k0,hfmax --workloads none
tcg base smp=2 raw/base: bench/guest/guest-run -r 5 -n 4 -s 128 -R 2000 -N 4 -S 64 -i waits,rlat -m base /run/out def hfmax
tcg patched smp=2 raw/patched: bench/guest/guest-run -r 5 -n 4 -s 128 -R 2000 -N 4 -S 64 -i waits,rlat -m patched /run/out k0 hfmax
== --smoke
tcg patched smp=2 raw/patched: bench/guest/guest-run -r 1 -n 2 -s 64 -R 1000 -N 2 -S 32 -t traced -H -i plain,waits,rt,solo1,tracers,pcp -I def patched /run/out def k0 k2
tcg patched smp=2 raw/patched: bench/guest/workloads-run -q -T -w pf,lru,anon,kbuild patched /run/out def
tcg tracers smp=2 raw/tracers: bench/guest/guest-run -r 1 -n 2 -s 64 -R 1000 -N 2 -S 32 -I def -t none -i tracers tracers /run/out def k0 k2
== --short
tcg base smp=2 raw/base: bench/guest/guest-run -r 2 -n 4 -s 128 -R 2000 -N 4 -S 64 -i waits,rt,solo1,tracers,rlat,frag base /run/out def hfmax
tcg base smp=2 raw/base: bench/guest/workloads-run -q -T -w pf,lru,anon,kbuild,net,bonnie base /run/out def hfmax
tcg patched smp=2 raw/patched: bench/guest/guest-run -r 2 -n 4 -s 128 -R 2000 -N 4 -S 64 -i waits,rt,solo1,tracers,rlat,frag patched /run/out def k0 k2 hfmax hf-1
tcg patched smp=2 raw/patched: bench/guest/workloads-run -q -T -w pf,lru,anon,kbuild,net,bonnie patched /run/out def k0 hfmax hf-1
tcg tracers smp=2 raw/tracers: bench/guest/guest-run -r 2 -n 4 -s 128 -R 1000 -N 4 -S 64 -t none -i tracers tracers /run/out def k0 k2 hfmax hf-1
icount tracers smp=1 icount/raw/tracers: bench/guest/guest-run -r 1 -n 4 -s 64 -R 500 -N 4 -S 32 -t none -i tracers tracers /run/out def k0
== --multi
tcg base smp=4 raw/tcg-smp4/base: bench/guest/guest-run -r 3 -n 2 -s 128 -t plain -M 2 base /run/out def
tcg patched smp=4 raw/tcg-smp4/patched: bench/guest/guest-run -r 3 -n 2 -s 128 -t plain -M 2 patched /run/out def k0 hf-1
tcg base smp=8 raw/tcg-smp8/base: bench/guest/guest-run -r 3 -n 2 -s 128 -t plain -M 4 base /run/out def
tcg patched smp=8 raw/tcg-smp8/patched: bench/guest/guest-run -r 3 -n 2 -s 128 -t plain -M 4 patched /run/out def k0 hf-1
icount base smp=4 raw/icount-smp4/base: bench/guest/guest-run -r 3 -n 2 -s 128 -t plain -M 2 base /run/out def
icount patched smp=4 raw/icount-smp4/patched: bench/guest/guest-run -r 3 -n 2 -s 128 -t plain -M 2 patched /run/out def k0 hf-1
icount base smp=8 raw/icount-smp8/base: bench/guest/guest-run -r 3 -n 2 -s 128 -t plain -M 4 base /run/out def
icount patched smp=8 raw/icount-smp8/patched: bench/guest/guest-run -r 3 -n 2 -s 128 -t plain -M 4 patched /run/out def k0 hf-1
== --probes
tcg base smp=2 raw/base: bench/guest/guest-run -r 5 -t none -m base /run/out def
tcg patched smp=2 raw/patched: bench/guest/guest-run -r 5 -t none -m patched /run/out def
icount base smp=2 icount/raw/base: bench/guest/guest-run -r 5 -t none -m base /run/out def
icount patched smp=2 icount/raw/patched: bench/guest/guest-run -r 5 -t none -m patched /run/out def
== --instruments pcp --timing icount --settings def,k0,hfmax
icount base smp=2 icount/raw/base: bench/guest/guest-run -r 5 -t none -i pcp -n 4 -s 64 -a 0 -R 500 -N 4 -S 32 base /run/out def hfmax
icount patched smp=2 icount/raw/patched: bench/guest/guest-run -r 5 -t none -i pcp -n 4 -s 64 -a 0 -R 500 -N 4 -S 32 patched /run/out def k0 hfmax
== --instruments none --workloads pf --timing tcg
tcg base smp=2 raw/base: bench/guest/workloads-run -r 5 -T -w pf base /run/out def hfmax
tcg patched smp=2 raw/patched: bench/guest/workloads-run -r 5 -T -w pf patched /run/out def k0 k1 hf-1 hfmax
== --case
tcg patched smp=2 raw/patched: bench/guest/guest-run -r 5 -t traced -n 4 -s 128 -R 2000 -N 4 -S 64 -i waits,rlat patched /run/out def k1 k0 hfmax
tcg patched smp=2 raw/patched: bench/guest/workloads-run -r 5 -w kbuild,lru patched /run/out def k1 k0 hfmax
icount patched smp=2 icount/raw/patched: bench/guest/guest-run -r 5 -A -t none -n 4 -s 64 -a 0 -R 500 -N 4 -S 32 -i rlat,frag patched /run/out def k1 k0 hfmax
icount patched smp=2 icount/raw/patched: bench/guest/workloads-run -r 5 -W -w pf,net,bonnie patched /run/out def k1 k0 hfmax
== --quoted
icount base smp=2 icount/raw/base: bench/guest/guest-run -r 5 -A -t plain -n 4 -s 64 -a 0 -R 500 -N 4 -S 32 -i solo1 base /run/out def hfmax
icount patched smp=2 icount/raw/patched: bench/guest/guest-run -r 5 -A -t plain -n 4 -s 64 -a 0 -R 500 -N 4 -S 32 -i solo1 patched /run/out def k0 k1 k2 k3 k4 hfmax hf-1
icount patched smp=2 icount/raw/sweep: bench/guest/guest-run -r 5 -K -t plain patched /run/out def k0 k1 k2 k3 k4 hfmax hf-1
icount tracers smp=1 icount/raw/tracers: bench/guest/guest-run -r 5 -n 4 -s 64 -R 500 -N 4 -S 32 -t none -i tracers tracers /run/out def k0 k1 k2 k3 k4 hfmax hf-1
==
PLANS
)
		# shellcheck disable=SC2086 # the mode's options, split on purpose
		got=$(plan_boots "$dir" ${mode#full}) || { echo "bench/run --plan $mode failed"; rc=1; continue; }
		[ "$got" = "$want" ] || { echo "bench/run --plan $mode:"; diff <(echo "$want") <(echo "$got"); rc=1; }
	done <<<"$(printf '%s\n' full '--timing tcg --settings k0,hfmax --workloads none' --smoke --short --case --quoted --multi \
		--probes '--instruments pcp --timing icount --settings def,k0,hfmax' '--instruments none --workloads pf --timing tcg')"
	rm -rf "$dir"
	return $rc
}
