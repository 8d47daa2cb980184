# shellcheck shell=bash
# settings.sh - configs/settings (its header says the format) for the shell:
# read on the host (bench/run) and in a guest, where the labels are applied
# and read back.  Sourced after scripts/lib.sh by bench/run,
# bench/guest/guest-run, bench/guest/workloads-run and tests/guest/stress.sh.
#   setting_names           the sysctl columns, /proc/sys/vm names (an array)
#   setting_labels          the labels, in table order, one a line
#   setting_known LABEL     status 0 when configs/settings has LABEL
#   setting_field LABEL COLUMN  LABEL's value in COLUMN (kernels, group, ...)
#   setting_runs_on KERNEL LABEL  status 0 when LABEL's kernels column names
#                           KERNEL (base, patched)
#   setting_alone LABEL     status 0 when LABEL's storm runs alone (no victim)
#   setting_view VIEW       the labels whose views column names VIEW, one a line
#   setting_apply LABEL     write LABEL's sysctls
#   setting_supported LABEL status 0 when this kernel has every sysctl that
#                           LABEL sets to something else than '=' or 0
#   setting_json            the sysctls as read back from /proc, as JSON
#                           (null where the kernel has no such sysctl)
#   setting_filter_supported LABEL...  into the array settings: those this
#                           kernel supports; the others are skipped, said so
#                           with step (the caller's); dies when none is left
#   setting_rotation REP    the array settings in repetition REP's order
#   setting_fresh LABEL     setting_apply, then the same start for every run
# No process substitution here: a guest's /dev has no /dev/fd.

settings_file=${top:?source scripts/lib.sh first}/configs/settings
setting_columns=() setting_names=() setting_order=()
declare -A setting_col=() setting_row=()

# settings_parse: the table, each line's '|' fields trimmed, into
# setting_row[LABEL] (fields joined by '|') and the header into
# setting_columns, setting_col[NAME] (its index) and setting_names (the
# columns between label and kernels).
settings_parse() {
	local line i lines fields
	[ -f "$settings_file" ] || die "no ${settings_file#"$top"/}: the settings table" 66
	lines=$(awk -F'|' -v OFS='|' '!/^#/ && NF {
		for (i = 1; i <= NF; i++) gsub(/^[ \t]+|[ \t]+$/, "", $i)
		$1 = $1; print }' "$settings_file")
	while IFS= read -r line; do
		IFS='|' read -r -a fields <<<"$line"
		if [ ${#setting_columns[@]} = 0 ]; then
			setting_columns=("${fields[@]}")
			for i in "${!fields[@]}"; do setting_col[${fields[i]}]=$i; done
			continue
		fi
		[ ${#fields[@]} = ${#setting_columns[@]} ] ||
			die "configs/settings: '${fields[0]}' has ${#fields[@]} columns, the header ${#setting_columns[@]}"
		setting_order+=("${fields[0]}")
		setting_row[${fields[0]}]=$line
	done <<<"$lines"
	for i in label kernels group alone views; do
		[ -n "${setting_col[$i]:-}" ] || die "configs/settings: the header has no column '$i'"
	done
	[ "${setting_col[label]}" = 0 ] || die "configs/settings: the first column must be label"
	setting_names=("${setting_columns[@]:1:${setting_col[kernels]}-1}")
}
settings_parse

setting_labels() {
	printf '%s\n' "${setting_order[@]}"
}

setting_known() {
	[ -n "${setting_row[$1]:-}" ]
}

setting_field() {
	local fields
	setting_known "$1" || die "unknown setting '$1' (see configs/settings)" 2
	IFS='|' read -r -a fields <<<"${setting_row[$1]}"
	echo "${fields[${setting_col[$2]:?configs/settings has no column $2}]}"
}

setting_runs_on() {
	setting_known "$2" || die "unknown setting '$2' (see configs/settings)" 2
	case ,$(setting_field "$2" kernels), in *",$1,"*) return 0 ;; esac
	return 1
}

setting_alone() {
	[ "$(setting_field "$1" alone)" = yes ]
}

setting_view() {
	local l
	for l in "${setting_order[@]}"; do
		case ,$(setting_field "$l" views), in *",$1,"*) echo "$l" ;; esac
	done
}

# setting_values LABEL: its sysctl columns into the array values.
setting_values() {
	local fields
	setting_known "$1" || die "unknown setting '$1' (see configs/settings)" 2
	IFS='|' read -r -a fields <<<"${setting_row[$1]}"
	values=("${fields[@]:1:${#setting_names[@]}}")
}

declare -A setting_boot=()
for name in "${setting_names[@]}"; do
	setting_boot[$name]=$(cat "/proc/sys/vm/$name" 2>/dev/null || echo none)
done

setting_supported() {
	local values i
	setting_values "$1"
	for i in "${!setting_names[@]}"; do
		[ "${setting_boot[${setting_names[i]}]}" != none ] || [ "${values[i]}" = = ] ||
			[ "${values[i]}" = 0 ] || return 1
	done
}

setting_apply() {
	local values i name val
	setting_values "$1"
	for i in "${!setting_names[@]}"; do
		name=${setting_names[i]} val=${values[i]}
		[ "$val" != = ] || val=${setting_boot[$name]}
		if [ "${setting_boot[$name]}" = none ]; then
			[ "$val" = none ] || [ "$val" = 0 ] ||
				die "setting '$1' needs vm.$name, which this kernel lacks" 2
			continue
		fi
		echo "$val" >"/proc/sys/vm/$name"
	done
}

setting_json() {
	local name sep='{'
	for name in "${setting_names[@]}"; do
		printf '%s"%s": %s' "$sep" "$name" "$(cat "/proc/sys/vm/$name" 2>/dev/null || echo null)"
		sep=', '
	done
	echo '}'
}

setting_filter_supported() {
	local s
	settings=()
	for s in "$@"; do
		if setting_supported "$s"; then
			settings+=("$s")
		else
			step "skipping setting $s: this kernel lacks a sysctl it sets (configs/settings)"
		fi
	done
	[ ${#settings[@]} -gt 0 ] || die "no setting this kernel supports among: $*" 2
}

# setting_rotation REP: the array settings in repetition REP's order, one a
# line: shifted by one per repetition, so that no setting always runs first
# after the boot or after the same neighbour.
setting_rotation() {
	local n=${#settings[@]} i
	for i in $(seq 0 $((n - 1))); do
		echo "${settings[$(( (i + $1 - 1) % n ))]}"
	done
}

# setting_fresh LABEL: its sysctls, then the same start for every run: an
# empty page cache, compacted memory.
setting_fresh() {
	setting_apply "$1"
	echo 3 >/proc/sys/vm/drop_caches
	echo 1 >/proc/sys/vm/compact_memory 2>/dev/null || true
}
