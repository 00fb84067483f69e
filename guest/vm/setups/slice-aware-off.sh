#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's SLICE_AWARE_SELECT sched_feat off, so that a waking
# task of a short custom slice that finds no idle CPU is queued on the wakeup
# target, as in mainline, instead of on the busy CPU where it would wait least.
#   SETUP=guest/vm/setups/slice-aware-off.sh make run PROFILE=... KERNEL=patched
sched_feats NO_SLICE_AWARE_SELECT
