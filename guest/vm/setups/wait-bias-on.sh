#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's EAS_WAIT_TIE and EAS_WAIT_BIAS sched_feats on (both off
# by default): at wakeup, where the CPU energy chose makes the task wait, EAS takes a
# CPU that runs it at once (idle or, for a short slice, preempting) if its estimate
# adds no more than 1/64 of the task's own. For A/B with wait-bias-off.sh.
#   SETUPS="guest/vm/setups/wait-bias-on.sh guest/vm/setups/wait-bias-off.sh"
sched_feats EAS_WAIT_TIE EAS_WAIT_BIAS
