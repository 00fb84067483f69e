#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's fair push on, explicitly (it is on by default): its
# five sched_feats FAIR_PUSH (push a stuck task put back after preemption; never
# while the root domain is overutilized, load balance's time), FAIR_PUSH_TICK
# (push a stuck task running alone, from the tick), EAS_FEWER_RUNNABLE (outside
# wakeup, among CPUs of one cost, prefer the one with the fewest runnable tasks),
# EAS_CHEAPER_TIE (outside wakeup, an equal-energy tie to the cheaper perf domain)
# and EAS_PUSH_OWN_COST (a queued task's whole busy time on its own CPU).
# With guest/vm/jobs/replays.sh it undoes push-off.sh between two replays of one boot.
#   SETUP=guest/vm/setups/push-on.sh make run PROFILE=... KERNEL=patched
sched_feats FAIR_PUSH FAIR_PUSH_TICK EAS_FEWER_RUNNABLE EAS_CHEAPER_TIE EAS_PUSH_OWN_COST
