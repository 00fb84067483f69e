#!/bin/sh
# Guest job: capacity-faithful timers follow run-time capacity changes. On the
# default platform (E-cores 0-3 at 600, P-cores 4-5 at 1024), with capacity-faithful
# speed switched on, and a profile (the background load); while it runs:
#   raise E-core CPU 1 to 1024 (its timer must stop: TIMER full, no more ticks),
#   lower P-core CPU 5 to 600 (a timer must start: TIMER running or idle, ticks),
#   restore both (CPU 1 ticks again, CPU 5 full).
# A busy loop pinned to each of CPU 1 and CPU 5 makes sure a task runs there,
# wherever EAS puts the profile's tasks. After each step and once more a second
# later: follow/NN-STEP.txt, a copy of /sys/kernel/debug/hybrid_sim/faithful_stats
# ("CPU BUSY_US GIVEN_US TICKS CAPACITY TIMER"). Writes the kernel refused go to
# errors.txt.
# shellcheck source=guest/vm/vm-lib.sh
. "$1/vm-lib.sh"
job=$1
out=$job/..
n=0

# snap NAME: copy faithful_stats as follow/NN-NAME.txt (NN keeps the order).
snap() {
	n=$((n + 1))
	cat "$HYBRID_SIM_DEBUG/faithful_stats" > "$out/follow/$(printf %02d "$n")-$1.txt" ||
		echo "reading faithful_stats failed" >> "$out/errors.txt"
}

# capacity CPU VALUE
capacity() {
	echo "$2" > "$HYBRID_SIM_DEBUG/cpu$1/capacity" ||
		echo "writing $2 to cpu$1/capacity failed" >> "$out/errors.txt"
}

# settle STEP: two copies a second apart, the first a second after the change.
settle() {
	sleep 1
	snap "$1"
	sleep 1
	snap "$1-later"
}

mkdir -p "$out/follow"
# Switched on here, as a profile's faithful_speed does (faithful-boot.sh tests
# hybrid_sim.faithful=1 at boot).
knob=/sys/devices/system/cpu/hybrid_sim/faithful
if ! echo 1 > "$knob" || [ "$(cat "$knob" 2>/dev/null)" != 1 ]; then
	echo "cannot switch capacity-faithful speed on ($knob)" >&2
	exit 1
fi
rtapp_logs_ready
rt-app "$job/rt-app.json" > "$out/rt-app.stdout" 2>&1 &
rtapp=$!
taskset -c 1 sh -c 'while :; do :; done' &
hog1=$!
taskset -c 5 sh -c 'while :; do :; done' &
hog5=$!
settle start

capacity 1 1024
settle raised
capacity 5 600
settle lowered
capacity 1 600
capacity 5 1024
settle restored

kill "$hog1" "$hog5"
wait "$rtapp"
echo "rtapp_status=$?" > "$out/guest-stats.txt"
save_state "$out"
