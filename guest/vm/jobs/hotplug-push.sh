#!/bin/sh
# Guest job: CPU hotplug while fair pushes fire. A loop takes CPUs offline and back
# online, alternating E- and P-cores (1 4 2 5 3 on the default platform), CYCLES
# times (a cycle: one CPU off, then on again), while the profile (a push-heavy one,
# e.g. capped-hogs) is replayed again and again, each replay traced like a run of
# guest/vm/jobs/profile.sh into replays/NN/; the last replay starts before the loop
# ends. Writes hotplug.txt, a line per cycle "N CPU OFF_OK ON_OK" (1 when the
# write succeeded), and errors.txt for a write the kernel refused. The host's SETUP
# snippet may set CYCLES (default 20; make soak: 200).
job=$1
out=$job/..
CYCLES=20
# shellcheck source=guest/vm/vm-lib.sh
. "$job/vm-lib.sh"
# shellcheck source=/dev/null
[ -f "$job/setup.sh" ] && . "$job/setup.sh"

# The CPUs that take turns, E and P alternately, among those that can go offline.
turns=""
for cpu in 1 4 2 5 3; do
	[ -w "/sys/devices/system/cpu/cpu$cpu/online" ] && turns="$turns $cpu"
done
[ -n "$turns" ] || { echo "no CPU can go offline here" >&2; exit 1; }

# set_online CPU 0|1: 1 when the write succeeded.
set_online() {
	if echo "$2" > "/sys/devices/system/cpu/cpu$1/online"; then
		echo 1
	else
		echo "cpu$1: writing $2 to online failed" >> "$out/errors.txt"
		echo 0
	fi
}

hotplug() {
	n=0
	while :; do
		for cpu in $turns; do
			[ "$n" -ge "$CYCLES" ] && { : > /tmp/hotplug-done; return 0; }
			n=$((n + 1))
			off=$(set_online "$cpu" 0)
			sleep 0.05
			on=$(set_online "$cpu" 1)
			echo "$n $cpu $off $on" >> "$out/hotplug.txt"
			sleep 0.05
		done
	done
}

rm -f /tmp/hotplug-done
: > "$out/hotplug.txt"
hotplug &
plugger=$!
rc=0
r=0
while [ ! -e /tmp/hotplug-done ]; do
	r=$((r + 1))
	dir=$out/replays/$(printf %03d "$r")
	mkdir -p "$dir"
	replay_profile "$job" "$dir" || rc=1
done
wait "$plugger" || rc=1
cat /sys/devices/system/cpu/online > "$out/online.txt"
save_state "$out"
[ "$rc" = 0 ]
