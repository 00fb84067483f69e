#!/bin/sh
# Guest job: walk the simulated platform's cpufreq status and governors, then turn
# EAS off and on with the sysctl, recording after each step whether EAS runs.
# Boot in active mode (hybrid_sim.mode=active) for the walk as the tests expect it:
#   active: policy performance, then powersave (a setpolicy driver: EAS only with
#     powersave on the patched kernel, never on base);
#   status off (no cpufreq driver: EAS impossible), passive;
#   passive: governor performance, then schedutil (mainline: EAS only with schedutil);
#   status active, passive; the sysctl to 0 and 1; status off again.
# Writes modes.txt, one line per step:
#   STEP STATUS GOVERNOR SYSCTL EAS
# GOVERNOR is policy0's scaling_governor (the policy in active mode), "-" without
# one; SYSCTL the sched_energy_aware value, "-" when it reads empty (EAS is not
# possible); EAS "on" or "off", the real state from the kernel log once the
# sched-domain rebuild the step queued has run (eas_state in vm-lib.sh).
# Writes the kernel refused go to errors.txt.
# shellcheck source=guest/vm/vm-lib.sh
. "$1/vm-lib.sh"
out=$1/..
status=/sys/devices/system/cpu/hybrid_sim/status
sysctl=/proc/sys/kernel/sched_energy_aware
policies=/sys/devices/system/cpu/cpufreq

# record STEP BEFORE: one modes.txt line; BEFORE is eas_marker before the step.
record() {
	eas=$(eas_state "$2")
	gov=$(cat "$policies/policy0/scaling_governor" 2>/dev/null)
	ctl=$(cat "$sysctl" 2>/dev/null)
	echo "$1 $(cat "$status" 2>/dev/null || echo none) ${gov:--} ${ctl:--} $eas" >> "$out/modes.txt"
}

# write VALUE FILE...: write VALUE to each FILE, noting refusals in errors.txt.
write() {
	value=$1
	shift
	for f in "$@"; do
		echo "$value" > "$f" || echo "writing $value to $f failed" >> "$out/errors.txt"
	done
}

# step NAME VALUE FILE...: write, then record.
step() {
	name=$1
	shift
	before=$(eas_marker)
	write "$@"
	record "$name" "$before"
}

: > "$out/modes.txt"
record boot "$(eas_marker)"
step active-performance performance "$policies"/policy*/scaling_governor
step active-powersave powersave "$policies"/policy*/scaling_governor
step off off "$status"
step passive passive "$status"
step passive-performance performance "$policies"/policy*/scaling_governor
step passive-schedutil schedutil "$policies"/policy*/scaling_governor
step active active "$status"
step passive-again passive "$status"
step sysctl-0 0 "$sysctl"
step sysctl-1 1 "$sysctl"
step off-again off "$status"
save_state "$out"
