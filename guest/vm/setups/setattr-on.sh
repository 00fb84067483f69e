#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's two reactions to sched_setattr() on (their default):
# OVERUTIL_CLAMP_RECHECK (a lowered uclamp_max ends the root domain's overutilized
# state at once if no CPU is overutilized any more) and FAIR_PUSH_SETATTR (a
# changed clamp has the stopper try to push the task at once). For A/B on one boot
# with setattr-off.sh.
#   SETUPS="guest/vm/setups/setattr-on.sh guest/vm/setups/setattr-off.sh"
sched_feats OVERUTIL_CLAMP_RECHECK FAIR_PUSH_SETATTR
