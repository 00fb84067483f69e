#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's FAIR_PUSH_SLICE sched_feat on (off by default): a switch
# that passes over a queued task of a short custom slice which has waited on its CPU
# longer than that slice tries to push it (the push's trigger "slice"). It rides the
# fair push: FAIR_PUSH must be on (it is by default). For A/B with push-slice-off.sh.
#   SETUPS="guest/vm/setups/push-slice-on.sh guest/vm/setups/push-slice-off.sh"
sched_feats FAIR_PUSH_SLICE
