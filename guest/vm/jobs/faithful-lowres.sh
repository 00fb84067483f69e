#!/bin/sh
# Guest job, booted with highres=off and hybrid_sim.faithful=1: no CPU ever reaches
# high-resolution timer mode, so every CPU's timer start waits and is retried
# (every 100 ms for 20 s). Copies of faithful_stats: states-boot.txt at once (every
# CPU waiting); states-online.txt after E-core CPU 1 went offline (its pending retry
# cancelled) and online again (a new one queued); states-off.txt after the option
# was switched off (every retry cancelled); states-gave-up.txt after it was switched
# on again and 21 s went by (every CPU gave up waiting after 20 s). Then save the
# state and power off.
# shellcheck source=guest/vm/vm-lib.sh
. "$1/vm-lib.sh"
out=$1/..
stats=$HYBRID_SIM_DEBUG/faithful_stats
cat "$stats" > "$out/states-boot.txt"
if echo 0 > /sys/devices/system/cpu/cpu1/online && echo 1 > /sys/devices/system/cpu/cpu1/online; then
	cat "$stats" > "$out/states-online.txt"
else
	echo "cannot take CPU 1 offline and online" >> "$out/errors.txt"
fi
echo 0 > /sys/devices/system/cpu/hybrid_sim/faithful ||
	echo "cannot switch capacity-faithful speed off" >> "$out/errors.txt"
cat "$stats" > "$out/states-off.txt"
echo 1 > /sys/devices/system/cpu/hybrid_sim/faithful ||
	echo "cannot switch capacity-faithful speed on again" >> "$out/errors.txt"
sleep 21
cat "$stats" > "$out/states-gave-up.txt"
save_state "$out"
