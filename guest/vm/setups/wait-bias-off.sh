#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's EAS_WAIT_BIAS sched_feat off (its default), leaving
# EAS_WAIT_TIE as it is: energy alone decides between CPUs of different cost.
# For A/B with wait-bias-on.sh.
sched_feats NO_EAS_WAIT_BIAS
