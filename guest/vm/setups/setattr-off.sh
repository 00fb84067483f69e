#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's two reactions to sched_setattr() off:
# OVERUTIL_CLAMP_RECHECK (a lowered uclamp_max ends the root domain's overutilized
# state at once if no CPU is overutilized any more) and FAIR_PUSH_SETATTR (a
# changed clamp has the stopper try to push the task at once). The fair push's
# other triggers stay as they are. For A/B on one boot with setattr-on.sh.
#   SETUPS="guest/vm/setups/setattr-off.sh guest/vm/setups/setattr-on.sh"
sched_feats NO_OVERUTIL_CLAMP_RECHECK NO_FAIR_PUSH_SETATTR
