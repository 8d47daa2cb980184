# shellcheck shell=bash
# lib.sh - the small things every harness script shares; sourced, never run:
#   . "$(dirname "$0")/../scripts/lib.sh"      (or the matching relative path)
#
# Sets: top (repository root), myname (the program's path from the top: it
# begins every error), BASE (the kernel base) and build
# (build/$BASE: every output of that base lives under it; two bases never
# share an output folder).
#
# Exit codes, the same in every script:
#   0 pass   1 failure   2 usage error   4 skip
#   66 an input is missing (a kernel, a binary)   69 QEMU failed
#   123 kernel warnings or splat   124 timeout   125 guest panic
# die MSG [CODE] prints "myname: MSG" on stderr and exits CODE (default 1).

# The default kernel base: the one line to change when a new base becomes
# the default.  Every entry point takes BASE=... from the environment.
: "${BASE:=7.3}"
export BASE

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# the program's path from the top (bench/run, tests/run: two programs, two
# names), or its file name when it lives elsewhere
myname=${0##*/}
case $(realpath -m "$0" 2>/dev/null) in "$top"/*) myname=$(realpath -m --relative-to="$top" "$0") ;; esac
build=$top/build/$BASE
lib_start=$(date +%s)

die() {
	echo "$myname: $1" >&2
	exit "${2:-1}"
}
# usage_error MSG: a wrong command line: one line on stderr, exit 2.
usage_error() {
	die "$1 (see $myname --help)" 2
}
# help_or_usage_error ARG: for a script that takes no such argument: -h and
# --help print usage() and exit 0, anything else is a usage error.
help_or_usage_error() {
	case $1 in
	-h|--help) usage; exit 0 ;;
	*) usage_error "unexpected argument '$1'" ;;
	esac
}

# long_options MAP ARG...: ARG... into the array opts, each --LONG of MAP
# (pairs S:LONG, e.g. "r:reps m:probes") as -S, --LONG=VALUE as -S VALUE,
# for getopts; after "--" nothing changes.  An unknown --LONG is a usage
# error.
long_options() {
	local map=" $1 " a name
	shift
	opts=()
	while [ $# -gt 0 ]; do
		a=$1
		shift
		case $a in
		--) opts+=("$a" "$@"); return ;;
		--?*)
			name=${a#--}
			[[ $map =~ \ (.):${name%%=*}\  ]] || usage_error "unknown option '${a%%=*}'"
			opts+=("-${BASH_REMATCH[1]}")
			[ "$name" = "${name%%=*}" ] || opts+=("${name#*=}") ;;
		*) opts+=("$a") ;;
		esac
	done
}

# bases: the bases there is a pin for, space separated.
bases() {
	local f
	for f in "$top"/configs/base-*.pin; do
		f=${f##*/base-}
		printf '%s ' "${f%.pin}"
	done
}
[ -f "$top/configs/base-$BASE.pin" ] || die "unknown BASE '$BASE'; pinned: $(bases)" 2

# progress MSG: "# [  12s] MSG", seconds since the script started.
progress() {
	printf '# [%4ds] %s\n' $(( $(date +%s) - lib_start )) "$*"
}

# The series for this base: patches/ for the mainline base, patches/$BASE/
# for a backport.
patch_dir() {
	case $BASE in
	7.3) echo "$top/patches" ;;
	*) echo "$top/patches/$BASE" ;;
	esac
}

# patch_files: the series' NNNN-*.patch, in order, one path a line.
patch_files() {
	find "$(patch_dir)" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' | sort
}

# postings: the postings of the series (patch_dir/postings: the format is
# in patches/postings), checked, one a line, tab separated:
#   N NAME FIRST LAST COVER NEEDS PREFIX
# FIRST and LAST are patch numbers (1 = 0001), COVER a file of the series
# folder or -, NEEDS the postings it applies on (comma separated, or -),
# PREFIX the subject prefix.  The postings must take the patches in order,
# each once, from 0001 on; a malformed line dies naming it (so call it as
# p=$(postings) || exit, not in a pipe).
postings() {
	local f n name range cover needs prefix first last next=1 want=1 d
	f=$(patch_dir)/postings
	[ -f "$f" ] || die "no ${f#"$top"/}: it says which patches go out together (see patches/postings)"
	while read -r n name range cover needs prefix; do
		case $n in '' | '#'*) continue ;; esac
		bad() { die "${f#"$top"/}: posting '$n': $1"; }
		[ "$n" = "$want" ] || bad "postings are numbered 1, 2, ... in order; expected $want"
		[[ $name =~ ^[a-z0-9][a-z0-9-]*$ ]] || bad "NAME '$name' is not lower-case-with-dashes"
		[[ $range =~ ^([0-9]{4})(-([0-9]{4}))?$ ]] || bad "PATCHES '$range' is not NNNN or NNNN-NNNN"
		first=$((10#${BASH_REMATCH[1]})) last=$((10#${BASH_REMATCH[3]:-${BASH_REMATCH[1]}}))
		if [ "$first" != "$next" ] || [ "$last" -lt "$first" ]; then
			bad "PATCHES '$range' must start at $(printf %04d "$next") and not run backwards"
		fi
		if [ "$cover" = - ]; then
			[ "$first" = "$last" ] || bad "a posting of several patches needs a cover letter"
		else
			[[ $cover =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] || bad "COVER '$cover' is not a file name"
			[ -f "$(patch_dir)/$cover" ] || bad "COVER '$cover' is not a file of ${f%/*}"
		fi
		if [ "$needs" != - ]; then
			for d in ${needs//,/ }; do
				[[ $d =~ ^[0-9]+$ ]] || bad "NEEDS '$needs' is not N[,N...] or -"
				[ "$d" -lt "$n" ] || bad "NEEDS '$needs' names no earlier posting"
			done
		fi
		[ -n "$prefix" ] || bad "no subject PREFIX"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$name" "$first" "$last" "$cover" "$needs" "$prefix"
		next=$((last + 1)) want=$((n + 1))
	done <"$f"
	[ "$want" -gt 1 ] || die "${f#"$top"/} lists no posting"
}

# results_file: the committed results of this base (a copy of a full bench
# run's results.json; bench/run refreshes it), relative to the top: the
# tables of the cover letters come from it.
results_file() {
	echo "docs/results/$BASE.json"
}

# kernel_dir VARIANT: the folder scripts/kernel builds VARIANT in.  The
# unpatched kernel builds next to its tree, build/$BASE/base/{linux,kernel-base},
# so that each tree sits at ../linux from its output folder: compiler command
# lines then match, and ccache serves the base from the patched build.
kernel_dir() {
	case $1 in
	base) echo "$build/base/kernel-base" ;;
	*) echo "$build/kernel-$1" ;;
	esac
}

# series_tip TREE: the last commit of what is mailed (make series) and
# checked (tests/check-series): commits whose message starts with
# EXPERIMENTAL stay out, and must come last; status 1 when one does not.
series_tip() {
	local tree=$1 base tip=HEAD
	base=$(git -C "$tree" rev-list --max-parents=0 HEAD | tail -n 1)
	while [ "$(git -C "$tree" rev-parse "$tip")" != "$base" ] &&
		git -C "$tree" log -1 --format=%b "$tip" | head -n 1 | grep -q '^EXPERIMENTAL'; do
		tip=$tip~1
	done
	! git -C "$tree" log --format=%b "$base..$tip" | grep -q '^EXPERIMENTAL' || return 1
	git -C "$tree" rev-parse "$tip"
}

# applied_tree REPO BASE PATCH|MBOX...: the tree object git am of the patches
# (format-patch files or mboxes, in order) gives on commit BASE of the git
# repository REPO, without a checkout: git mailsplit, then git mailinfo and
# git apply --cached per message on a temporary index.  Status 1, with git's
# message on stderr, when a message has no patch or a patch does not apply.
applied_tree() {
	local repo=$1 base=$2 tmp m rc=0
	shift 2
	tmp=$(mktemp -d)
	if git mailsplit -o"$tmp" -b -- "$@" >/dev/null &&
		GIT_INDEX_FILE=$tmp/index git -C "$repo" read-tree "$base"; then
		for m in "$tmp"/[0-9]*; do
			if ! git mailinfo "$tmp/msg" "$tmp/patch" <"$m" >/dev/null || [ ! -s "$tmp/patch" ] ||
				! GIT_INDEX_FILE=$tmp/index git -C "$repo" apply --cached "$tmp/patch"; then
				echo "applied_tree: message ${m##*/} has no patch that applies" >&2
				rc=1
				break
			fi
		done
		[ $rc != 0 ] || GIT_INDEX_FILE=$tmp/index git -C "$repo" write-tree || rc=1
	else
		rc=1
	fi
	rm -rf "$tmp"
	return $rc
}

# attached JSON ERR PID WHAT: wait (60 s at most) until the bpftrace PID
# writing JSON has attached its probes; if it died or did not attach, its
# ERR and a message naming WHAT, exit 1.
attached() {
	for _ in $(seq 120); do
		grep -q attached_probes "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || { cat "$2" >&2; die "bpftrace did not attach $4"; }
		sleep 0.5
	done
	die "bpftrace did not attach $4 in 60 s"
}

# stop_tracer PID WHAT: SIGINT to the bpftrace PID (a child of this shell),
# which prints its maps and exits; SIGINT again after 60 s, SIGKILL after
# 120 s.  Under TCG on a loaded host a bpftrace has been seen never to exit
# (a run stuck 18 minutes): the wait is bounded.  Status 1, with a line
# naming WHAT on stderr, when it had to be killed (its maps are lost); its
# own exit status is not looked at.
stop_tracer() {
	local pid=$1 i
	kill -INT "$pid" 2>/dev/null || true
	for i in $(seq 120); do
		kill -0 "$pid" 2>/dev/null || break
		[ "$i" != 60 ] || kill -INT "$pid" 2>/dev/null || true
		sleep 1
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "$myname: $2 (bpftrace $pid) did not exit 120 s after SIGINT; killed, its maps are lost" >&2
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		return 1
	fi
	wait "$pid" 2>/dev/null || true
}

# need_tree: make sure build/$BASE/linux exists (scripts/tree, output on stderr).
need_tree() {
	[ -d "$build/linux/.git" ] || "$top/scripts/tree" >&2
}

# kbuild_env: reproducible objects, so that ccache hits across clones, bases
# and runs (CCACHE_BASEDIR covers the clone; object paths are relative).
kbuild_env() {
	export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
	export KBUILD_BUILD_USER=pcp KBUILD_BUILD_HOST=guest KBUILD_BUILD_VERSION=1
	export CCACHE_BASEDIR=$top CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros
}

# KTAP output (as tools/testing/selftests/kselftest/ktap_helpers.sh):
# ktap_header, one ktap_ok/ktap_fail/ktap_skip/ktap_result per result, ktap_plan N (at the
# end when the count is not known up front), ktap_totals.
ktap_n=0 ktap_pass=0 ktap_fail=0 ktap_skip=0
ktap_failed=()
ktap_header() { echo "TAP version 13"; }
ktap_plan() { echo "1..$1"; }
ktap_ok() { ktap_n=$((ktap_n + 1)) ktap_pass=$((ktap_pass + 1)); echo "ok $ktap_n $1"; }
ktap_skip() { # ktap_skip NAME REASON
	ktap_n=$((ktap_n + 1)) ktap_skip=$((ktap_skip + 1))
	echo "ok $ktap_n $1 # SKIP ${2:-}"
}
# ktap_fail NAME [RC]: RC names a timeout, panic or splat by scripts/vm's codes.
ktap_fail() {
	local why=''
	case ${2:-} in
	124) why=' # TIMEOUT' ;; 125) why=' # PANIC' ;; 123) why=' # SPLAT' ;;
	'' | 1) ;; *) why=" # exit=$2" ;;
	esac
	ktap_n=$((ktap_n + 1)) ktap_fail=$((ktap_fail + 1))
	ktap_failed+=("$1")
	echo "not ok $ktap_n $1$why"
}
# ktap_result NAME RC [OUTPUT [N]]: ktap_ok when RC is 0, else ktap_fail NAME RC
# with the last N (default 20) lines of OUTPUT as "#   " diagnostics.
ktap_result() {
	if [ "$2" = 0 ]; then
		ktap_ok "$1"
		return
	fi
	ktap_fail "$1" "$2"
	[ -z "${3:-}" ] || printf '%s\n' "$3" | tail -n "${4:-20}" | sed 's/^/#   /'
}
ktap_bail() { echo "Bail out! $*"; }
# ktap_totals: the kselftest totals line, then the line CI reads; status 1
# when anything failed.
ktap_totals() {
	echo "# Totals: pass:$ktap_pass fail:$ktap_fail xfail:0 xpass:0 skip:$ktap_skip error:0"
	echo "$ktap_pass passed, $ktap_fail failed, $ktap_skip skipped"
	[ "$ktap_fail" -eq 0 ]
}

# kernel_provenance VARIANT SRC OUT: OUT/provenance.json, what a kernel build
# was made of (results name the kernel they measured: docs/reading-results.md):
# base_version (the pinned Debian version), series_sha (SRC's HEAD^{tree}:
# the code built; null for a tree without git), code_sha (the same tree
# without Documentation/: equal code_sha, equal code built and tested, when
# only the text of the documentation changed), tree_dirty, patch_ids (git
# patch-id --stable of each commit after the base commit), config_sha256,
# variant, built (date).
kernel_provenance() {
	local ver bc tree=null code=null dirty=false ids=''
	ver=$(sed -n 's/^BASE_VERSION=//p' "$top/configs/base-$BASE.pin")
	# a tree of its own (the pristine base is no repository: git would
	# find the one around it)
	if [ "$(git -C "$2" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$2" && pwd -P)" ]; then
		tree=$(git -C "$2" rev-parse 'HEAD^{tree}')
		code=$(code_tree "$2")
		[ -z "$(git -C "$2" status --porcelain --untracked-files=no)" ] || dirty=true
		bc=$(sed -n 's/^BASE_COMMIT=//p' "$top/configs/base-$BASE.pin")
		# the unpatched tree is an import of its own: no series on it
		! git -C "$2" merge-base --is-ancestor "$bc" HEAD 2>/dev/null ||
			ids=$(git -C "$2" rev-list --reverse "$bc..HEAD" |
				while read -r c; do git -C "$2" show "$c" | git patch-id --stable | cut -d' ' -f1; done)
	fi
	/usr/bin/python3 - "$1" "$ver" "$tree" "$dirty" "$3" "$ids" "$code" <<'PY'
import datetime, hashlib, json, os, sys
variant, ver, tree, dirty, out, ids, code = sys.argv[1:]
with open(os.path.join(out, ".config"), "rb") as f:
    cfg = hashlib.sha256(f.read()).hexdigest()
with open(os.path.join(out, "provenance.json"), "w") as f:
    json.dump({"base_version": ver, "series_sha": None if tree == "null" else tree,
               "code_sha": None if code == "null" else code,
               "tree_dirty": dirty == "true", "patch_ids": ids.split(),
               "config_sha256": cfg, "variant": variant,
               "built": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")},
              f, indent=1)
PY
}

# code_tree REPO [TREE]: the tree object of TREE (default HEAD) of REPO
# without Documentation/ and tools/testing/selftests/, the parts no
# benchmark builds into or runs with the kernel (git mktree: anyone can
# recompute it from the commit or tree)
code_tree() {
	local t
	t=$(tree_without "$1" "$(git -C "$1" rev-parse "${2:-HEAD}^{tree}")" Documentation) &&
		tree_without "$1" "$t" tools/testing/selftests
}

# tree_without REPO TREE PATH: TREE with PATH (a/b/c) taken out
tree_without() {
	local head=${3%%/*} sub
	if [ "$head" = "$3" ]; then
		git -C "$1" ls-tree "$2" | awk -F '\t' -v n="$head" '$2 != n' | git -C "$1" mktree
		return
	fi
	sub=$(git -C "$1" rev-parse -q --verify "$2:$head") || { echo "$2"; return; }
	sub=$(tree_without "$1" "$sub" "${3#*/}") || return
	git -C "$1" ls-tree "$2" |
		awk -F '\t' -v n="$head" -v s="$sub" '$2 == n { sub(/ [0-9a-f]+$/, " " s, $1) } { print $1 "\t" $2 }' |
		git -C "$1" mktree
}

# run_provenance IMAGE TIMING DIR: DIR/provenance.json, the kernel IMAGE's
# build provenance (null fields when its folder has none: an image built
# elsewhere) and this run's side: commit (the repository's HEAD, -dirty
# when it was), qemu, timing, host_cpu, date.  The guest's uname -rv
# (scripts/vm-init: DIR/uname.txt) joins it in the analysis.
run_provenance() {
	local commit qemu cpu
	commit=$(git -C "$top" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
	[ -z "$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null)" ] || commit+=-dirty
	qemu=$(qemu-system-x86_64 --version 2>/dev/null | sed -n '1s/^QEMU emulator version //p')
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	/usr/bin/python3 - "$1" "$2" "$3" "$commit" "$qemu" "$cpu" <<'PY'
import datetime, json, os, sys
image, timing, out, commit, qemu, cpu = sys.argv[1:]
keys = ("base_version", "series_sha", "code_sha", "tree_dirty", "patch_ids", "config_sha256", "variant")
try:
    with open(os.path.join(os.path.dirname(image), "provenance.json")) as f:
        built = json.load(f)
except OSError:
    built = {}
p = {k: built.get(k) for k in keys}
p.update(commit=commit, qemu=qemu or None, timing=timing, host_cpu=cpu or None,
         date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
with open(os.path.join(out, "provenance.json"), "w") as f:
    json.dump(p, f, indent=1)
PY
}
