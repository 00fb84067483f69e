#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's FAIR_PUSH_SLICE sched_feat off (its default): a task of a
# short custom slice is tried by the push only as any task is (when stuck). For A/B
# with push-slice-on.sh.
sched_feats NO_FAIR_PUSH_SLICE
