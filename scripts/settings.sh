# shellcheck shell=bash
# settings.sh - the labels of configs/settings, applied and read back in a
# guest.  Sourced after scripts/lib.sh by bench/guest/guest-run and
# tests/guest/stress.sh.
#   setting_labels        the labels, in table order
#   setting_apply LABEL   write LABEL's sysctls (suffix -a: the same values)
#   setting_supported LABEL  status 0 when this kernel has every sysctl that
#                         LABEL sets to something else than '=' or 0
#   setting_json          the sysctls as read back from /proc, as JSON
#                         (null where the kernel has no such sysctl)

settings_file=${top:?source scripts/lib.sh first}/configs/settings
# (no process substitution here: a guest's /dev has no /dev/fd)
read -r -a setting_names <<<"$(awk '!/^#/ && NF {print $2, $3; exit}' "$settings_file")"
declare -A setting_boot=()
for name in "${setting_names[@]}"; do
	setting_boot[$name]=$(cat "/proc/sys/vm/$name" 2>/dev/null || echo none)
done

setting_labels() {
	awk '!/^#/ && NF && n++ {print $1}' "$settings_file"
}

setting_values() {
	read -r -a values <<<"$(awk -v l="${1%-a}" '!/^#/ && $1 == l {print $2, $3}' "$settings_file")"
	[ ${#values[@]} = 2 ] || die "unknown setting '$1' (see configs/settings)" 2
}

setting_supported() {
	local values i
	setting_values "$1"
	for i in 0 1; do
		[ "${setting_boot[${setting_names[i]}]}" != none ] || [ "${values[i]}" = = ] ||
			[ "${values[i]}" = 0 ] || return 1
	done
}

setting_apply() {
	local values i name val
	setting_values "$1"
	for i in 0 1; do
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
