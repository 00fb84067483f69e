#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# the patched kernel's fair push on, but for EAS_PUSH_OWN_COST: a push outside
# wakeup then estimates energy as a wakeup does, each perf domain's busy time
# clamped at its capacity. What 0032 changes, A/B on one boot with push-on.sh.
#   SETUP=guest/vm/setups/own-cost-off.sh make run PROFILE=... KERNEL=patched
sched_feats FAIR_PUSH FAIR_PUSH_TICK EAS_FEWER_RUNNABLE EAS_CHEAPER_TIE NO_EAS_PUSH_OWN_COST
