#!/bin/sh
# Guest job for make bench-speed, in one boot (the host's speed differs between
# boots far more than the option's effect on a P-core):
#  - PAIRS times, replay the profile with capacity-faithful speed off, then on;
#    rt-app logs go to speed/<0|1>-<pair>/, with the option's totals
#    (faithful_stats) before and after the replay;
#  - FLIPS times, replay it while a background loop switches the option every
#    FLIP seconds, so that P-core runs with and without it sit side by side;
#    logs go to speed/flip-<n>/ with flips.txt, one line per switch,
#    "UPTIME_BEFORE UPTIME_AFTER STATE" (rt-app logs CLOCK_MONOTONIC, which
#    /proc/uptime follows in a guest that never suspends). Only P-core runs
#    count there: each switch on recalibrates the E-cores' tick cost under load.
# The host's SETUP snippet may set PAIRS or FLIPS: make bench-speed boots once
# for each kind of replay, each with its own profile.
job=$1
out=$job/..
PAIRS=3
FLIPS=2
FLIP=0.5
# shellcheck source=guest/vm/vm-lib.sh
. "$job/vm-lib.sh"
# shellcheck source=/dev/null
[ -f "$job/setup.sh" ] && . "$job/setup.sh"

knob=/sys/devices/system/cpu/hybrid_sim/faithful
stats=$HYBRID_SIM_DEBUG/faithful_stats
if [ ! -w "$knob" ]; then
	echo "no $knob: not a simulated hybrid platform, or a kernel without the option" >&2
	exit 1
fi
pair=1
while [ "$pair" -le "$PAIRS" ]; do
	for on in 0 1; do
		echo "$on" > "$knob" || exit 1
		dir=$out/speed/$on-$pair
		mkdir -p "$dir"
		rtapp_logs_ready
		# The regulation's own totals around the replay (busy, given, ticks,
		# capacity, timer state), from debugfs.
		cat "$stats" > "$dir/faithful-stats-before.txt"
		rt-app "$job/rt-app.json" > "$out/rt-app-$on-$pair.stdout" 2>&1 || exit 1
		cat "$stats" > "$dir/faithful-stats-after.txt"
		rtapp_logs_to "$dir"
	done
	pair=$((pair + 1))
done
echo 0 > "$knob"

uptime_s() {
	cut -d' ' -f1 /proc/uptime
}

# flipper DIR: switch the option every FLIP s until DIR/stop exists; leave it off.
flipper() {
	state=0
	while [ ! -e "$1/stop" ]; do
		state=$((1 - state))
		before=$(uptime_s)
		echo "$state" > "$knob" || exit 1
		echo "$before $(uptime_s) $state" >> "$1/flips.txt"
		sleep "$FLIP"
	done
	before=$(uptime_s)
	echo 0 > "$knob"
	echo "$before $(uptime_s) 0" >> "$1/flips.txt"
}

n=1
while [ "$n" -le "$FLIPS" ]; do
	dir=$out/speed/flip-$n
	mkdir -p "$dir"
	rtapp_logs_ready
	flipper "$dir" &
	flipping=$!
	rt-app "$job/rt-app.json" > "$out/rt-app-flip-$n.stdout" 2>&1 || exit 1
	: > "$dir/stop"
	wait "$flipping" || exit 1
	rtapp_logs_to "$dir"
	n=$((n + 1))
done
save_state "$out"
