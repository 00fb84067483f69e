#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's SLICE_AWARE_SELECT sched_feat on (its default): a
# waking task of a short custom slice that finds no idle CPU goes to the busy CPU
# where it would wait least. For A/B on one boot with slice-aware-off.sh.
#   SETUPS="guest/vm/setups/slice-aware-on.sh guest/vm/setups/slice-aware-off.sh"
sched_feats SLICE_AWARE_SELECT
