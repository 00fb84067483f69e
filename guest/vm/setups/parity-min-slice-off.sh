#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's PARITY_MIN_SLICE sched_feat off (its default), so that
# RUN_TO_PARITY protects the running fair task's slice to its deadline, as in mainline.
#   SETUP=guest/vm/setups/parity-min-slice-off.sh make run PROFILE=... KERNEL=patched
sched_feats NO_PARITY_MIN_SLICE
