#!/bin/sh
# Guest job for make bench-speed: replay the profile with capacity-faithful speed
# switched off, then on, PAIRS times in one boot, so that the comparison never
# crosses boots (the host's speed differs between boots far more than the option's
# effect on a P-core). rt-app logs go to speed/<0|1>-<pair>/ in the run folder.
job=$1
out=$job/..
PAIRS=3
# shellcheck source=guest/jobs/lib.sh
. "$job/lib.sh"

knob=/sys/devices/system/cpu/hybrid_sim/faithful
stats=/sys/devices/system/cpu/hybrid_sim/faithful_stats
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
		# The regulation's own totals around the replay (busy, given, ticks).
		cat "$stats" > "$dir/faithful-stats-before.txt"
		rt-app "$job/rt-app.json" > "$out/rt-app-$on-$pair.stdout" 2>&1 || exit 1
		cat "$stats" > "$dir/faithful-stats-after.txt"
		rtapp_logs_to "$dir"
	done
	pair=$((pair + 1))
done
echo 0 > "$knob"
save_state "$out"
