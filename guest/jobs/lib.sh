# shellcheck shell=sh
# Helpers for guest jobs (busybox sh). run.sh copies this file next to job.sh.

# The simulator's test knobs: cpuN/capacity and faithful_stats.
HYBRID_SIM_DEBUG=/sys/kernel/debug/hybrid_sim

# save_state DIR: the kernel log, the scheduler's debug state, the energy model
# and the EAS switch, as files under DIR.
save_state() {
	dmesg > "$1/dmesg.txt"
	if [ -r /proc/sched_debug ]; then
		cat /proc/sched_debug > "$1/sched_debug.txt"
	else
		cat /sys/kernel/debug/sched/debug > "$1/sched_debug.txt" 2>/dev/null
	fi
	# debugfs files report size 0, so copy them by reading, not with cp -r.
	if [ -d /sys/kernel/debug/energy_model ]; then
		(cd /sys/kernel/debug && find energy_model -type f) | while read -r f; do
			mkdir -p "$1/$(dirname "$f")"
			cat "/sys/kernel/debug/$f" > "$1/$f" 2>/dev/null
		done
	fi
	# The switch reads as empty where EAS is impossible: then leave no file.
	eas=$(cat /proc/sys/kernel/sched_energy_aware 2>/dev/null)
	if [ -n "$eas" ]; then
		echo "$eas" > "$1/sched_energy_aware.txt"
	fi
	cat /sys/devices/system/cpu/cpufreq/policy*/scaling_driver > "$1/cpufreq_drivers.txt" 2>/dev/null
	# Whether capacity-faithful speed was on (absent without the simulator).
	faithful=$(cat /sys/devices/system/cpu/hybrid_sim/faithful 2>/dev/null)
	if [ -n "$faithful" ]; then
		echo "$faithful" > "$1/faithful.txt"
	fi
	# Capacity-faithful speed's totals and timer states, where its timers
	# ever ran (empty when the option was never on): debugfs, read first.
	stats=$(cat "$HYBRID_SIM_DEBUG/faithful_stats" 2>/dev/null)
	if [ -n "$stats" ]; then
		echo "$stats" > "$1/faithful_stats.txt"
	fi
	return 0
}

# eas_marker: the kernel's last "sched_energy_set:" line, with its timestamp (empty
# before EAS ever started). With sched_verbose (run.sh passes it) the kernel prints
# "sched_energy_set: starting EAS" or "... stopping EAS" at each change, so the last
# one is the real state, whatever /proc/sys/kernel/sched_energy_aware says.
eas_marker() {
	dmesg | grep 'sched_energy_set: ' | tail -n 1
}

# eas_state BEFORE: "on" or "off", the real EAS state once a change has taken
# effect. BEFORE is eas_marker from before the change. EAS starts and stops through
# a sched-domain rebuild that may be queued as a work item, so wait (0.1 s polls,
# up to 2 s) until the marker has moved and then stayed put for 0.5 s (a switch
# can stop EAS and start it again); a change that moves nothing waits the 2 s out.
eas_state() {
	last=$1
	quiet=0
	i=0
	while [ "$i" -lt 20 ]; do
		sleep 0.1
		now=$(eas_marker)
		if [ "$now" = "$last" ]; then
			quiet=$((quiet + 1))
		else
			last=$now
			quiet=0
		fi
		[ "$last" != "$1" ] && [ "$quiet" -ge 5 ] && break
		i=$((i + 1))
	done
	case "$last" in
	*"starting EAS"*) echo on ;;
	*) echo off ;;
	esac
}

# rt-app writes its per-thread logs here: the logdir guest/profile.py gives every
# profile (GUEST_LOGDIR).
RTAPP_LOGS=/tmp/rt-app-logs
# rtapp_logs_ready: an empty log folder before a replay.
rtapp_logs_ready() {
	rm -rf "$RTAPP_LOGS" && mkdir -p "$RTAPP_LOGS"
}
# rtapp_logs_to DIR: move the last replay's logs into DIR.
rtapp_logs_to() {
	mkdir -p "$1" && mv "$RTAPP_LOGS"/* "$1/" 2>/dev/null
	return 0
}

