#!/bin/sh
# SETUP snippet, a lab aid (not used by make check): read the scheduler's debug file
# in three loops, in the background, for as long as the guest runs, so that the reads
# overlap the replay's wakeups on every CPU. Written to reproduce the 6.12 base's
# unlocked avg_vruntime() in print_cfs_rq() (fixed by
# patches/upstream/0001-sched-debug-Read-avg_vruntime-under-the-runqueue-loc.patch):
#   SETUP=guest/vm/setups/sched-debug-reader.sh guest/host/run.sh \
#       rt-app-profiles/many-small.json base
# on a kernel without the fix (build/kernels/base/bzImage built from a series whose
# upstream/ line was commented out), the guest can oops in pick_task_fair(): 3 boots of
# 7 did on 2026-12-08 (one loop: none in 20; experiments/lab-notes.md). The loops
# still fork while the guest powers off, which can WARN "Unexpected reschedule of
# offline CPU" after "reboot: Power down".
debug_file=/sys/kernel/debug/sched/debug
for _ in 1 2 3; do
	( while :; do cat "$debug_file" > /dev/null 2>&1; done ) &
done
