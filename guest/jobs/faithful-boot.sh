#!/bin/sh
# Guest job: capacity-faithful speed switched on at boot (hybrid_sim.faithful=1 on
# the command line). Every CPU's timer must start, also those set up before they
# were in high-resolution mode (the kernel retries them every 100 ms): wait up to
# 10 s until faithful_stats lists each online CPU with a timer other than "off",
# then save the state (faithful_stats.txt, dmesg.txt) and power off.
# shellcheck source=guest/jobs/lib.sh
. "$1/lib.sh"
online=$(grep -c '^processor' /proc/cpuinfo)
i=0
while [ "$i" -lt 100 ]; do
	started=$(awk '$6 != "off"' "$HYBRID_SIM_DEBUG/faithful_stats" 2>/dev/null | wc -l)
	[ "$started" -ge "$online" ] && break
	sleep 0.1
	i=$((i + 1))
done
save_state "$1/.."
