#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's fair push off: its five sched_feats FAIR_PUSH (push a
# stuck task put back after preemption; never while the root domain is
# overutilized, load balance's time), FAIR_PUSH_TICK (push a stuck task running alone,
# from the tick), EAS_FEWER_RUNNABLE (outside wakeup, among CPUs of one cost,
# prefer the one with the fewest runnable tasks), EAS_CHEAPER_TIE (outside
# wakeup, an equal-energy tie to the cheaper perf domain) and EAS_PUSH_OWN_COST (a
# queued task's whole busy time on its own CPU). Scheduling is then mainline's.
#   SETUP=guest/vm/setups/push-off.sh make run PROFILE=... KERNEL=patched
sched_feats NO_FAIR_PUSH NO_FAIR_PUSH_TICK NO_EAS_FEWER_RUNNABLE NO_EAS_CHEAPER_TIE NO_EAS_PUSH_OWN_COST
