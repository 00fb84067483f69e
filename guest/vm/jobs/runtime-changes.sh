#!/bin/sh
# Guest job: change the simulated platform while a profile runs, and record after
# each step whether EAS still runs and what the energy model looks like.
#   - lower scaling_max_freq of E-core CPU 1 to its lowest frequency, then restore it;
#   - change CPU 0's capacity 600 -> 480 and back at run time through
#     /sys/kernel/debug/hybrid_sim/cpu0/capacity (the path that reaches
#     em_adjust_cpu_capacity());
#   - take E-core CPU 2 offline and back online;
#   - switch the cpufreq status to active and back to passive.
# Writes steps.txt ("step eas" lines), steps/<step>/ (state as save_state has it)
# and errors.txt for any write the kernel refused.
# shellcheck source=guest/vm/vm-lib.sh
. "$1/vm-lib.sh"
job=$1
out=$job/..
sim=/sys/devices/system/cpu/hybrid_sim

step() {
	eas=$(cat /proc/sys/kernel/sched_energy_aware 2>/dev/null)
	echo "$1 ${eas:--}" >> "$out/steps.txt"
	mkdir -p "$out/steps/$1"
	save_state "$out/steps/$1"
}

: > "$out/steps.txt"
rtapp_logs_ready
rt-app "$job/rt-app.json" > "$out/rt-app.stdout" 2>&1 &
rtapp=$!
sleep 1
step start

pol=/sys/devices/system/cpu/cpu1/cpufreq
cat "$pol/cpuinfo_min_freq" > "$pol/scaling_max_freq" || echo "scaling_max_freq write failed" >> "$out/errors.txt"
sleep 1
step maxfreq-low
cat "$pol/cpuinfo_max_freq" > "$pol/scaling_max_freq"
step maxfreq-restored

cap0=$HYBRID_SIM_DEBUG/cpu0/capacity
echo 480 > "$cap0" || echo "capacity write failed" >> "$out/errors.txt"
sleep 1
step capacity-480
echo 600 > "$cap0" || echo "capacity write failed" >> "$out/errors.txt"
step capacity-600

echo 0 > /sys/devices/system/cpu/cpu2/online || echo "offline failed" >> "$out/errors.txt"
sleep 1
step cpu2-offline
echo 1 > /sys/devices/system/cpu/cpu2/online || echo "online failed" >> "$out/errors.txt"
sleep 1
step cpu2-online

echo active > "$sim/status" && step active
echo passive > "$sim/status" && step passive

wait "$rtapp"
echo "rtapp_status=$?" > "$out/guest-stats.txt"
save_state "$out"
