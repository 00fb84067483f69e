#!/bin/sh
# Guest job: capacity-faithful speed switched on at boot (hybrid_sim.faithful=1 on
# the command line). Every CPU's timer must start, also those set up before they
# were in high-resolution mode (the kernel retries them every 100 ms): wait up to
# 10 s until faithful_stats lists each online CPU with a timer other than "off"
# or "waiting". Then take E-core CPU 1 offline and online again five times (each
# time it comes back in low-resolution mode until its first tick) and wait the
# same way for its timer; hotplug-states.txt has the TIMER states CPU 1 went
# through. Save the state (faithful_stats.txt, dmesg.txt) and power off.
# shellcheck source=guest/vm/vm-lib.sh
. "$1/vm-lib.sh"
out=$1/..

# started: how many CPUs' timers are started (any state but off and waiting).
started() {
	awk '$6 != "off" && $6 != "waiting"' "$HYBRID_SIM_DEBUG/faithful_stats" 2>/dev/null | wc -l
}

# wait_started N: poll (0.1 s, up to 10 s) until N CPUs' timers are started;
# CPU 1's state at each poll goes to hotplug-states.txt when HOTPLUG is set.
wait_started() {
	i=0
	while [ "$i" -lt 100 ]; do
		if [ -n "${HOTPLUG:-}" ]; then
			awk '$1 == 1 { print $6 }' "$HYBRID_SIM_DEBUG/faithful_stats" >> "$out/hotplug-states.txt"
		fi
		[ "$(started)" -ge "$1" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

online=$(grep -c '^processor' /proc/cpuinfo)
wait_started "$online" || echo "not every CPU's timer started at boot" >> "$out/errors.txt"
for cycle in 1 2 3 4 5; do
	if echo 0 > /sys/devices/system/cpu/cpu1/online && echo 1 > /sys/devices/system/cpu/cpu1/online; then
		HOTPLUG=1 wait_started "$online" ||
			echo "CPU 1's timer did not start again after onlining ($cycle)" >> "$out/errors.txt"
	else
		echo "cannot take CPU 1 offline and online ($cycle)" >> "$out/errors.txt"
	fi
done
save_state "$out"
