# shellcheck shell=sh
# Helpers for guest jobs (busybox sh). run.sh copies this file next to job.sh.

# The simulator's test knobs: cpuN/capacity and faithful_stats.
HYBRID_SIM_DEBUG=/sys/kernel/debug/hybrid_sim

# copy_text SRC DST: a small text file, line by line, with shell builtins only (no
# fork); a file that cannot be read (a perf domain being rebuilt) is skipped.
copy_text() {
	while IFS= read -r line || [ -n "$line" ]; do
		printf '%s\n' "$line"
	done 2>/dev/null < "$1" > "$2"
}

# save_state DIR: the kernel log, the scheduler's debug state, the energy model
# and the EAS switch, as files under DIR.
save_state() {
	dmesg > "$1/dmesg.txt"
	if [ -r /proc/sched_debug ]; then
		cat /proc/sched_debug > "$1/sched_debug.txt"
	else
		cat /sys/kernel/debug/sched/debug > "$1/sched_debug.txt" 2>/dev/null
	fi
	# debugfs files report size 0, so copy them by reading, not with cp -r. One
	# mkdir for all folders and shell builtins for the files: a fork per file
	# made each call take ~30 s on the lockdep kernel under TCG (6 vCPUs on
	# 2 host cores), and runtime-changes.sh makes nine calls.
	if [ -d /sys/kernel/debug/energy_model ]; then
		# Only the folders that hold files: no energy_model/ when there is none.
		(cd /sys/kernel/debug && find energy_model -type f) |
			sed 's,/[^/]*$,,' | sort -u | (cd "$1" && xargs -r mkdir -p)
		(cd /sys/kernel/debug && find energy_model -type f) | while read -r f; do
			copy_text "/sys/kernel/debug/$f" "$1/$f"
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

# rt-app writes its per-thread logs here: the logdir contract.rtapp_profile gives every
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


# The trace's size in the ring buffer, per CPU.
TRACE_BUFFER_KB=32768
# The trace-cmd event arguments enabled by this boot's last trace-cmd start.
TRACE_EVENTS_ON=/tmp/trace-events-on

# sched_feats FEAT|NO_FEAT...: switch sched_feats on (FEAT) or off (NO_FEAT), for the
# setup snippets of guest/vm/setups/. A name this kernel does not have (a base kernel,
# or a config without it) ends the job with a one-line error.
sched_feats() {
	_features=/sys/kernel/debug/sched/features
	for _feat in "$@"; do
		_name=${_feat#NO_}
		if ! grep -qE "(^| )(NO_)?$_name( |$)" "$_features" 2>/dev/null; then
			echo "$_name is not a sched_feat of this kernel (KERNEL=patched? its config?)" >&2
			exit 1
		fi
		echo "$_feat" > "$_features" || { echo "could not write $_feat to $_features" >&2; exit 1; }
	done
}

# replay_profile JOB OUT [SETUP]: replay JOB/rt-app.json (contract.rtapp_profile's
# output) while tracing into the ring buffer, and leave in OUT the trace
# (trace.dat), the rt-app logs (rt-app/), rt-app's output, the kernel's view
# of the threads with util_min/util_max/slice_us keys (proc-sched.txt), the
# scheduler's state (save_state), guest-stats.txt, and the replay-start and
# replay-end files (replay_mark, around rt-app). SETUP, a snippet, is
# sourced first (in this shell: it may exit, or set RTAPP_CGROUP, see run_rtapp;
# then the cgroup's cpu.stat after the replay goes to cgroup-cpu.stat). Succeeds
# when rt-app did.
replay_profile() {
	_job=$1
	_out=$2
	_setup=${3:-}
	_T=/sys/kernel/tracing

	# The per-task load-tracking events fire on every update of every task: keep
	# the profile's threads only (rt-app names them after their task keys). The
	# filter goes on the command line, as trace-cmd start resets filters written
	# before it and events would slip through until one written after it.
	_filter=$(awk 'NF { printf "%scomm == \"%s\"", sep, $1; sep = " || " }' "$_job/task-names.txt")

	# Scheduler events, plus every project event (eas*), plus idle/frequency
	# events when present. Missing ones are skipped, not errors. Built as "$@"
	# so that the filters keep their spaces and quotes.
	set --
	for _e in sched:sched_switch sched:sched_waking sched:sched_wakeup sched:sched_wakeup_new \
		sched:sched_migrate_task sched:sched_process_fork sched:sched_process_exit \
		power:cpu_idle power:cpu_frequency; do
		[ -d "$_T/events/${_e%%:*}/${_e#*:}" ] && set -- "$@" -e "$_e"
	done
	for _dir in "$_T"/events/eas*/*/; do
		[ -f "$_dir/format" ] || continue
		_name=$(basename "$_dir")
		set -- "$@" -e "$(basename "$(dirname "$_dir")"):$_name"
		case "$_name" in
		eas_pelt_se | eas_util_est_se) [ -n "$_filter" ] && set -- "$@" -f "$_filter" ;;
		esac
	done
	# rt-app's trace_marker lines are recorded whatever events are enabled.

	# A profile with "faithful_speed": true runs on capacity-faithful E-cores.
	if [ -f "$_job/faithful-speed" ]; then
		_knob=/sys/devices/system/cpu/hybrid_sim/faithful
		[ -w "$_knob" ] || { echo "the profile asks for faithful_speed but $_knob is missing (no simulated hybrid platform?)" >&2; exit 1; }
		echo 1 > "$_knob" || { echo "could not switch capacity-faithful speed on" >&2; exit 1; }
	fi

	# Per-run setup the host asked for (sched_features, sysctls, cpufreq status...).
	# shellcheck source=/dev/null
	[ -n "$_setup" ] && [ -f "$_setup" ] && . "$_setup"

	# Enabling or disabling an event live-patches kernel text (static calls and
	# keys, text_poke_bp()), and under QEMU's multi-threaded TCG a vCPU may run
	# a stale translation of such a patch later (guest/host/scan-log.sh
	# --stale-int3). So the events stay enabled from one replay of a boot to the
	# next when the list is the same (extract -k below): only the ring buffer
	# is cleared and tracing switched back on.
	_events=$(printf '%s\n' "$@")
	if [ -f "$TRACE_EVENTS_ON" ] && [ "$_events" = "$(cat "$TRACE_EVENTS_ON")" ]; then
		{ trace-cmd clear && trace-cmd restart; } > "$_out/trace-cmd-start.log" 2>&1 ||
			echo "trace-cmd clear/restart failed" >&2
	else
		# Recording into the ring buffer keeps no recorder threads waking idle CPUs.
		trace-cmd start -C mono -b "$TRACE_BUFFER_KB" "$@" > "$_out/trace-cmd-start.log" 2>&1 ||
			echo "trace-cmd start failed" >&2
		printf '%s\n' "$_events" > "$TRACE_EVENTS_ON"
		# The eas events' probes are attached lazily: enabling an event only queues a
		# work item that registers its probe on the scheduler's bare tracepoint (its
		# registration callback cannot do so itself, under tracepoints_mutex), and
		# nothing is recorded until that work item has run. tracefs shows no sign of
		# it, so give it a moment before the replay: on a guest idle but for this
		# shell the system workqueue runs it within milliseconds; 0.3 s leaves room
		# for a slow TCG vCPU, and rt-app's first moves are not missed.
		sleep 0.3
	fi

	rtapp_logs_ready
	_busy0=$(cpu_busy)
	children_ticks > /tmp/ch0
	replay_mark start "$_out"
	# A profile's util_min/util_max/slice_us keys: the shim applies them in each
	# thread as rt-app names it, before its first event.
	if [ -s "$_job/sched-attrs.txt" ]; then
		_shim=/usr/lib/eas/eas-sched-attrs.so
		# Without the shim rt-app would run with the keys silently ignored.
		[ -f "$_shim" ] || { echo "$_shim missing from the initramfs (run 'make initramfs')" >&2; exit 1; }
		# Evidence that the attributes stay in force: the kernel's view of those
		# threads one second after they appear (rt-app creates them late).
		proc_sched_snapshot "$_job" > "$_out/proc-sched.txt" &
		(
			export LD_PRELOAD="$_shim" EAS_SCHED_ATTRS="$_job/sched-attrs.txt"
			run_rtapp "$_job/rt-app.json" > "$_out/rt-app.stdout" 2>&1
		)
	else
		run_rtapp "$_job/rt-app.json" > "$_out/rt-app.stdout" 2>&1
	fi
	_rtapp_rc=$?
	replay_mark end "$_out"
	# The cgroup's throttling totals (nr_throttled, throttled_usec...), if any.
	[ -z "${RTAPP_CGROUP:-}" ] || cat "$RTAPP_CGROUP/cpu.stat" > "$_out/cgroup-cpu.stat"
	children_ticks > /tmp/ch1
	_busy1=$(cpu_busy)
	trace-cmd stop

	# Events lost to a full ring buffer, summed over CPUs.
	_lost=0
	for _s in "$_T"/per_cpu/cpu*/stats; do
		_n=$(awk '/^overrun:/ { print $2 }' "$_s")
		_lost=$((_lost + ${_n:-0}))
	done

	# Uncompressed: the host's trace-cmd 3.1.6 cannot read the guest's default
	# (zstd-compressed) files ("error reading header").
	# -k: the events stay enabled for the boot's next replay (see above).
	trace-cmd extract -k --compression none -o /tmp/trace.dat > "$_out/trace-cmd-extract.log" 2>&1
	cp /tmp/trace.dat "$_out/trace.dat"
	rm -f /tmp/trace.dat
	rtapp_logs_to "$_out/rt-app"

	save_state "$_out"

	# USER_HZ ticks: CPU time of the whole system and of rt-app during the replay.
	cat > "$_out/guest-stats.txt" <<STATS
rtapp_status=$_rtapp_rc
lost_events=$_lost
busy_ticks=$((_busy1 - _busy0))
rtapp_ticks=$(($(cat /tmp/ch1) - $(cat /tmp/ch0)))
user_hz=100
kernel=$(uname -r)
cpus_online=$(cat /sys/devices/system/cpu/online)
STATS
	[ "$_rtapp_rc" = 0 ]
}

# replay_mark start|end OUT: "eas: replay start" (or end) in the trace, then the
# file OUT/replay-start (or replay-end): the host's vCPU sampler
# (guest/host/vcpu-sampler.c) notes when that file appears in the share, which
# aligns the guest's trace clock with the host's (analysis/easan/fidelity.py).
# Builtins only, so that the two are a few microseconds apart.
REPLAY_MARKER_PREFIX="eas: replay"
replay_mark() {
	echo "$REPLAY_MARKER_PREFIX $1" > /sys/kernel/tracing/trace_marker 2>/dev/null ||
		echo "$REPLAY_MARKER_PREFIX $1" > /sys/kernel/debug/tracing/trace_marker 2>/dev/null
	: > "$2/replay-$1"
	return 0
}

# run_rtapp ARGS...: rt-app, in the cgroup v2 directory RTAPP_CGROUP when a SETUP
# snippet set one (guest/vm/setups/cgroup-throttle.sh), the job's shell staying out.
run_rtapp() {
	if [ -n "${RTAPP_CGROUP:-}" ]; then
		# shellcheck disable=SC2016
		sh -c 'echo $$ > "$0/cgroup.procs" && exec rt-app "$@"' "$RTAPP_CGROUP" "$@"
	else
		rt-app "$@"
	fi
}

# cpu_busy: busy CPU time of the whole system so far, in USER_HZ ticks.
cpu_busy() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat
}

# children_ticks: CPU time of this shell's finished children, in ticks. `times`
# must run in this shell, not in a $(...) subshell, which has no children of its own.
children_ticks() {
	times > /tmp/times
	awk 'NR == 2 { gsub(/[ms]/, " "); printf "%d\n", ($1 * 60 + $2 + $3 * 60 + $4) * 100 }' /tmp/times
}

# proc_sched_snapshot JOB: /proc/<tid>/sched's uclamp and slice lines of the
# threads named in JOB/sched-attrs.txt, one second after the first appears (looked
# for every 0.1 s, up to a minute). Shell builtins only: a process per thread (a
# grep) takes tens of ms under TCG, and a short busy profile's threads would be
# gone before it is done.
proc_sched_snapshot() {
	_names=" $(awk '{ printf "%s ", $1 }' "$1/sched-attrs.txt")"
	# _ours TASKDIR: whether the thread is one of the named ones.
	_ours() {
		read -r _tname 2>/dev/null < "$1/comm" || return 1
		case "$_names" in *" $_tname "*) return 0 ;; esac
		return 1
	}
	_appeared() {
		for _t in /proc/[0-9]*/task/[0-9]*; do
			_ours "$_t" && return 0
		done
		return 1
	}
	_i=0
	while [ $_i -lt 600 ] && ! _appeared; do sleep 0.1; _i=$((_i + 1)); done
	sleep 1
	for _t in /proc/[0-9]*/task/[0-9]*; do
		_ours "$_t" || continue
		echo "== $_tname ${_t##*/}"
		while IFS= read -r _line; do
			case "$_line" in
			uclamp* | "effective uclamp"* | se.slice*) echo "$_line" ;;
			esac
		done 2>/dev/null < "$_t/sched"
	done
}
