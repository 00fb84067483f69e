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
if [ ! -w "$knob" ]; then
	echo "no $knob: not a simulated hybrid platform, or a kernel without the option" >&2
	exit 1
fi
mkdir -p /tmp/rt-app-logs
pair=1
while [ "$pair" -le "$PAIRS" ]; do
	for on in 0 1; do
		echo "$on" > "$knob" || exit 1
		rt-app "$job/rt-app.json" > "$out/rt-app-$on-$pair.stdout" 2>&1 || exit 1
		mkdir -p "$out/speed/$on-$pair"
		mv /tmp/rt-app-logs/* "$out/speed/$on-$pair/"
	done
	pair=$((pair + 1))
done
echo 0 > "$knob"
save_state "$out"
