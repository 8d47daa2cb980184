# shellcheck shell=bash disable=SC2154 # guest-run's variables
# refill-instruments.sh - bench/guest/guest-run's rlat and frag instruments:
# where a refill's zone->lock hold still hurts on 7.3 (issue 39 item 3).
# Sourced by guest-run after its own functions; uses its apply, with_settings,
# attach, kprobes_plain, cyclictest_during, step and its variables (out, bin,
# reps, rprocs, rmib, refill_ms, settings).
#
# Both run the refill scenario (bench/storm -R: -N processes on CPU 0 map,
# write and unmap -S MiB each for -R ms: Yafang Shao's reproducer, scaled to
# the guest) without the victim, -a 0.
#   rlat  per setting, first untraced with cyclictest on CPU 0 (rt/LABEL.y.hist:
#         the RT task's latency on the loaded CPU), then, all settings again,
#         under bench/guest/refill-lat.bt (his funclatency method: each refill
#         call, waits included; rlat-lat.json) and bench/guest/refill-hold.bt
#         (the hold alone, 0002's event; rlat-hold.json); storm lines in
#         refill-rlat.jsonl (labels LABEL.y untraced, LABEL.t traced).
#   frag  per setting, under refill-hold.bt (frag.json): the load as the free
#         lists are (LABEL.n), then with them fragmented on purpose
#         (LABEL.f): bench/workloads hold-fragments holds 9 x (the load + 64)
#         MiB of unmovable pipe pages of which a third are freed again, single
#         pages inside unmovable pageblocks; then all but those holes (or what
#         bench/storm asks to find free, if more) are taken as huge pages, so
#         that a movable refill finds its own lists empty and steals from the
#         holes.
#         The proof, in frag/: /proc/pagetypeinfo before fragmenting and
#         after (LABEL.pagetypeinfo.before/after), the huge pages taken
#         (LABEL.hugepages), the system's kmem:mm_page_alloc_extfrag events
#         during each load, counted by perf (LABEL.{n,f}.extfrag, perf stat
#         -x, output), hold-fragments' lines (hold.jsonl).

# refill_load LABEL PHASE [PREFIX...]: the refill scenario at the setting
# applied, PREFIX (a command that runs the rest) around bench/storm, its line
# with the sysctls into OUTDIR/refill-PHASE.jsonl.
refill_load() {
	local label=$1 phase=$2
	shift 2
	with_settings "$@" "$bin/storm" -n "$rprocs" -s "$rmib" -a 0 -v -1 -R "$refill_ms" -l "$label" \
		>>"$out/refill-$phase.jsonl" 2>>"$out/storm.err" || { cat "$out/storm.err" >&2; exit 1; }
}

# rlat_attach: the untraced pass with cyclictest, then refill-lat.bt and,
# where the kernel has 0002's event, refill-hold.bt attached for the
# traced pass (guest-run's repetitions, refill_load LABEL.t rlat).
rlat_attach() {
	local rep s
	[ "$refill_ms" != 0 ] || die "rlat needs the refill scenario (-R MS, not 0)" 2
	mkdir -p "$out/rt"
	for rep in $(seq "$reps"); do
		for s in $(setting_rotation "$rep"); do
			step "rlat rep $rep/$reps setting $s: refill load, cyclictest on CPU 0 (untraced)"
			apply "$s"
			refill_load "$s.y" rlat cyclictest_during "$s.y"
		done
	done
	kprobes_plain rlat-kprobes-optimization
	attach rlat-lat "$top/bench/guest/refill-lat.bt"
	[ ! -d /sys/kernel/tracing/events/kmem/mm_page_pcpu_refill_hold ] ||
		attach rlat-hold "$top/bench/guest/refill-hold.bt"
}

# pagetypeinfo FILE LABEL: /proc/pagetypeinfo appended to FILE after a
# "=== LABEL" line.
pagetypeinfo() {
	{ echo "=== $2"; cat /proc/pagetypeinfo; } >>"$1"
}

# frag_run SETTING: the load as the free lists are, then fragmented.
frag_run() {
	local s=$1 f=$out/frag hp=/proc/sys/vm/nr_hugepages fmib fpid free n i holes keep
	local ev=(perf stat -a -x "," -e kmem:mm_page_alloc_extfrag --append -o)
	command -v perf >/dev/null || die "frag: no perf in the guest (Debian: linux-perf)" 66
	[ "$refill_ms" != 0 ] || die "frag needs the refill scenario (-R MS, not 0)" 2
	# holes of ~70% of a third of it (pages the pipes took from pcp lists
	# or neighbours merge): more than bench/storm wants free, so that the
	# free Movable pages left are few (6 x left ~110 MiB, and no fallback
	# at k1 under icount -N 4 -S 32)
	fmib=$((9 * (rprocs * rmib + 64)))
	step "frag setting $s: refill load, free lists as they are"
	apply "$s"
	refill_load "$s.n" frag "${ev[@]}" "$f/$s.n.extfrag" --
	step "frag setting $s: fragmenting $fmib MiB (a third freed again)"
	apply "$s"
	pagetypeinfo "$f/$s.pagetypeinfo.before" "$s"
	"$build/bench/workloads" -F "$fmib" hold-fragments >"$f/hold.tmp" 2>>"$out/storm.err" &
	fpid=$!
	for i in $(seq 600); do
		grep -q hold-fragments "$f/hold.tmp" && break
		kill -0 "$fpid" 2>/dev/null || { cat "$out/storm.err" >&2; die "frag: bench/workloads hold-fragments failed"; }
		[ "$i" != 600 ] || die "frag: bench/workloads hold-fragments not in place after 300 s"
		sleep 0.5
	done
	cat "$f/hold.tmp" >>"$f/hold.jsonl"
	# all free memory as huge pages but the holes (the Unmovable lists'
	# free pages, MiB) and 16 MiB, or what bench/storm wants free (the load
	# + 64 MiB within 90% of MemAvailable) if more: the load then runs out
	# of movable pages and falls back into the holes
	holes=$(awk '$6 == "Unmovable" { for (o = 7; o <= NF; o++) p += $o * 2 ^ (o - 7) }
		END { print int(p / 256) }' /proc/pagetypeinfo)
	keep=$(( (rprocs * rmib + 64) * 10 / 9 + 48 ))
	[ "$keep" -ge $((holes + 16)) ] || keep=$((holes + 16))
	free=$(awk '/^MemFree:/ { print int($2 / 1024) }' /proc/meminfo)
	n=$(( (free - keep) / 2 ))
	[ "$n" -gt 0 ] || n=0
	echo "$n" >$hp
	echo "$s asked $n got $(cat $hp) holes_mib $holes free_mib $free" >>"$f/$s.hugepages"
	pagetypeinfo "$f/$s.pagetypeinfo.after" "$s"
	step "frag setting $s: refill load, free lists fragmented ($(cat $hp) huge pages held)"
	refill_load "$s.f" frag "${ev[@]}" "$f/$s.f.extfrag" --
	kill -TERM "$fpid"
	wait "$fpid" 2>/dev/null || true
	echo 0 >$hp
	rm -f "$f/hold.tmp"
}
