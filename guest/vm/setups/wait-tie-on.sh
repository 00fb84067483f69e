#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's EAS_WAIT_TIE sched_feat on (off by default): at wakeup,
# of the CPUs that cost the task the same energy, EAS takes the one it would wait
# least on (idle or, for a short slice, preempting at once; fewer tasks; a lower
# runnable_avg...) rather than prev, the first perf domain or the most spare capacity. For A/B with wait-tie-off.sh.
#   SETUPS="guest/vm/setups/wait-tie-on.sh guest/vm/setups/wait-tie-off.sh"
sched_feats EAS_WAIT_TIE
