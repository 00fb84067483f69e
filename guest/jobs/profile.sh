#!/bin/sh
# Guest job: replay an rt-app profile while tracing into the ring buffer, then leave
# the trace, the rt-app logs and snapshots of the scheduler state in the share.
# $1 is the job directory (/host/guest); results go to its parent, the run folder.
# Runs under busybox sh.
job=$1
out=$job/..
T=/sys/kernel/tracing
BUFFER_KB=32768

# shellcheck source=guest/jobs/lib.sh
. "$job/lib.sh"

# The per-task load-tracking events fire on every update of every task: keep the
# profile's threads only (rt-app names them after their task keys). The filter goes
# on the command line, as trace-cmd start resets filters written before it and
# events would slip through until one written after it.
filter=$(awk 'NF { printf "%scomm == \"%s\"", sep, $1; sep = " || " }' "$job/task-names.txt")

# Scheduler events, plus every project event (eas*), plus idle/frequency events
# when present. Missing ones are skipped, not errors. Built as "$@" so that the
# filters keep their spaces and quotes.
set --
for e in sched:sched_switch sched:sched_waking sched:sched_wakeup sched:sched_wakeup_new \
	sched:sched_migrate_task sched:sched_process_fork sched:sched_process_exit \
	power:cpu_idle power:cpu_frequency; do
	[ -d "$T/events/${e%%:*}/${e#*:}" ] && set -- "$@" -e "$e"
done
for dir in "$T"/events/eas*/*/; do
	[ -f "$dir/format" ] || continue
	name=$(basename "$dir")
	set -- "$@" -e "$(basename "$(dirname "$dir")"):$name"
	case "$name" in
	eas_pelt_se | eas_util_est_se) [ -n "$filter" ] && set -- "$@" -f "$filter" ;;
	esac
done
# rt-app's trace_marker lines are recorded whatever events are enabled.

# A profile with "faithful_speed": true runs on capacity-faithful E-cores.
if [ -f "$job/faithful-speed" ]; then
	knob=/sys/devices/system/cpu/hybrid_sim/faithful
	[ -w "$knob" ] || { echo "the profile asks for faithful_speed but $knob is missing (no simulated hybrid platform?)" >&2; exit 1; }
	echo 1 > "$knob" || { echo "could not switch capacity-faithful speed on" >&2; exit 1; }
fi

# Per-run setup the host asked for (sched_features, sysctls, cpufreq status...).
# shellcheck source=/dev/null
[ -f "$job/setup.sh" ] && . "$job/setup.sh"

# Recording into the ring buffer keeps no recorder threads waking idle CPUs.
trace-cmd start -C mono -b "$BUFFER_KB" "$@" > "$out/trace-cmd-start.log" 2>&1 ||
	echo "trace-cmd start failed" >&2
# The eas events' probes are attached lazily: enabling an event only queues a work
# item that registers its probe on the scheduler's bare tracepoint (its
# registration callback cannot do so itself, under tracepoints_mutex), and nothing
# is recorded until that work item has run. tracefs shows no sign of it, so give
# it a moment before the replay: on a guest idle but for this shell the system
# workqueue runs it within milliseconds; 0.3 s leaves room for a slow TCG vCPU,
# and rt-app's first moves are not missed.
sleep 0.3

busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
# CPU time of this shell's finished children, in ticks. `times` must run in this
# shell, not in a $(...) subshell, which has no children of its own.
children() { times > /tmp/times; awk 'NR == 2 { gsub(/[ms]/, " "); printf "%d\n", ($1 * 60 + $2 + $3 * 60 + $4) * 100 }' /tmp/times; }

rtapp_logs_ready
busy0=$(busy)
children > /tmp/ch0
# A profile's util_min/util_max/slice_us keys: the shim applies them in each
# thread as rt-app names it, before its first event.
if [ -s "$job/sched-attrs.txt" ]; then
	shim=/usr/lib/eas/eas-sched-attrs.so
	# Without the shim rt-app would run with the keys silently ignored.
	[ -f "$shim" ] || { echo "$shim missing from the initramfs (run 'make initramfs')" >&2; exit 1; }
	# Evidence that the attributes stay in force: the kernel's view of those
	# threads one second after they appear (rt-app creates them late).
	# Shell builtins only in the loop: a process per thread is slow under TCG.
	names=" $(awk '{ printf "%s ", $1 }' "$job/sched-attrs.txt")"
	snapshot() {
		for t in /proc/[0-9]*/task/[0-9]*; do
			read -r name < "$t/comm" 2>/dev/null || continue
			case "$names" in *" $name "*) ;; *) continue ;; esac
			echo "== $name ${t##*/}"
			grep -E '^(uclamp|effective uclamp|se\.slice)' "$t/sched"
		done
	}
	(
		i=0
		while [ $i -lt 60 ] && [ -z "$(snapshot)" ]; do sleep 1; i=$((i + 1)); done
		sleep 1
		snapshot > "$out/proc-sched.txt"
	) &
	LD_PRELOAD=$shim EAS_SCHED_ATTRS="$job/sched-attrs.txt" \
		rt-app "$job/rt-app.json" > "$out/rt-app.stdout" 2>&1
else
	rt-app "$job/rt-app.json" > "$out/rt-app.stdout" 2>&1
fi
rtapp_rc=$?
children > /tmp/ch1
busy1=$(busy)
trace-cmd stop

# Events lost to a full ring buffer, summed over CPUs.
lost=0
for s in "$T"/per_cpu/cpu*/stats; do
	n=$(awk '/^overrun:/ { print $2 }' "$s")
	lost=$((lost + ${n:-0}))
done

# Uncompressed: the host's trace-cmd 3.1.6 cannot read the guest's default
# (zstd-compressed) files ("error reading header").
trace-cmd extract --compression none -o /tmp/trace.dat > "$out/trace-cmd-extract.log" 2>&1
cp /tmp/trace.dat "$out/trace.dat"
rtapp_logs_to "$out/rt-app"

save_state "$out"

# USER_HZ ticks: CPU time of the whole system and of rt-app during the replay.
cat > "$out/guest-stats.txt" <<STATS
rtapp_status=$rtapp_rc
lost_events=$lost
busy_ticks=$((busy1 - busy0))
rtapp_ticks=$(($(cat /tmp/ch1) - $(cat /tmp/ch0)))
user_hz=100
kernel=$(uname -r)
cpus_online=$(cat /sys/devices/system/cpu/online)
STATS
[ "$rtapp_rc" = 0 ]
