#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's PARITY_MIN_SLICE sched_feat on (off by default): with
# RUN_TO_PARITY, the running fair task's slice is protected for no more run time than
# the shortest slice queued beside it, instead of to its deadline. For A/B with
# parity-min-slice-off.sh.
#   SETUPS="guest/vm/setups/parity-min-slice-on.sh guest/vm/setups/parity-min-slice-off.sh"
sched_feats PARITY_MIN_SLICE
