#!/bin/sh
# Guest job for make bench-push: the cost of the fair push on wakeup-heavy work,
# its settings interleaved in one boot. The host's SETUPS are the settings (e.g.
# guest/vm/setups/push-on.sh and push-off.sh, in the run folder's guest/setups/NN-NAME.sh); each of
# REPS repetitions runs every workload once under each setting, the settings'
# order reversed every other repetition so that a drift of the host's speed
# falls on both alike. Workloads:
#   hackbench-process  hackbench -g HB_GROUPS -l HB_LOOPS       (processes, sockets)
#   hackbench-pipe     hackbench -p -g HB_GROUPS -l HB_LOOPS    (processes, pipes)
#   pingpong           pingpong ROUNDS (two processes, one byte over pipes)
# Writes bench.txt, a line per measurement "REP SETTING WORKLOAD SECONDS" (the
# time each program prints), and the programs' output in bench/. The settings of
# REPS, HB_GROUPS, HB_LOOPS and ROUNDS below are the defaults: analysis/easlab/bench_push.py
# boots a copy of this job with its own values on those lines.
job=$1
out=$job/..
REPS=10
HB_GROUPS=4
HB_LOOPS=50
ROUNDS=1000
# shellcheck source=guest/vm/vm-lib.sh
. "$job/vm-lib.sh"

settings=$(ls "$job"/setups/*.sh 2>/dev/null)
[ -n "$settings" ] || { echo "no settings: give the host's SETUPS" >&2; exit 1; }
reversed=$(echo "$settings" | awk '{ l[NR] = $0 } END { for (i = NR; i > 0; i--) print l[i] }')

# measure REP SETTING WORKLOAD COMMAND...: one run, its time to bench.txt.
measure() {
	rep=$1 setting=$2 workload=$3
	shift 3
	log=$out/bench/$rep-$setting-$workload.txt
	"$@" > "$log" 2>&1 || { echo "$workload failed under $setting (see $log)" >&2; exit 1; }
	secs=$(awk '/^Time:/ { print $2 }' "$log")
	[ -n "$secs" ] || { echo "$workload printed no time (see $log)" >&2; exit 1; }
	echo "$rep $setting $workload $secs" >> "$out/bench.txt"
}

mkdir -p "$out/bench"
: > "$out/bench.txt"
rep=1
while [ "$rep" -le "$REPS" ]; do
	order=$settings
	[ $((rep % 2)) = 0 ] && order=$reversed
	for setup in $order; do
		# shellcheck source=/dev/null
		. "$setup"
		setting=$(basename "$setup" .sh | sed 's/^[0-9]*-//')
		measure "$rep" "$setting" hackbench-process hackbench -g "$HB_GROUPS" -l "$HB_LOOPS"
		measure "$rep" "$setting" hackbench-pipe hackbench -p -g "$HB_GROUPS" -l "$HB_LOOPS"
		measure "$rep" "$setting" pingpong pingpong "$ROUNDS"
	done
	rep=$((rep + 1))
done
cat /sys/kernel/debug/sched/features > "$out/features.txt"
save_state "$out"
