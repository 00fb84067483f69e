#!/bin/sh
# Guest job: walk the simulated platform's cpufreq status through off, passive and
# active, then turn EAS off and on with the sysctl, recording after each step
# whether EAS runs. Writes modes.txt: one "step status eas" line per step, where eas
# is the sched_energy_aware value or "-" when EAS is not possible.
# shellcheck source=guest/jobs/lib.sh
. "$1/lib.sh"
out=$1/..
status=/sys/devices/system/cpu/hybrid_sim/status
sysctl=/proc/sys/kernel/sched_energy_aware

record() {
	eas=$(cat "$sysctl" 2>/dev/null)
	echo "$1 $(cat "$status" 2>/dev/null || echo none) ${eas:--}" >> "$out/modes.txt"
}

: > "$out/modes.txt"
record boot
for mode in off passive active passive; do
	echo "$mode" > "$status" || echo "writing $mode failed" >> "$out/modes.txt"
	record "$mode"
done
echo 0 > "$sysctl" && record sysctl-0
echo 1 > "$sysctl" && record sysctl-1
save_state "$out"
