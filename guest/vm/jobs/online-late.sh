#!/bin/sh
# Guest job: bring online the CPUs that the boot left offline (maxcpus=), as a
# CPU that comes up late after the cpufreq driver started, then save the state.
# shellcheck source=guest/vm/vm-lib.sh
. "$1/vm-lib.sh"
for f in /sys/devices/system/cpu/cpu[0-9]*/online; do
	[ "$(cat "$f")" = 1 ] && continue
	echo 1 > "$f" || echo "could not online ${f%/online}" >> "$1/../errors.txt"
done
# The sched domain rebuild that follows a CPU's onlining restarts EAS.
sleep 1
cat /sys/devices/system/cpu/online > "$1/../online.txt"
save_state "$1/.."
