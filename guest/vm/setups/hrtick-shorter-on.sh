#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's HRTICK_SHORTER sched_feat on (off by default): while a
# task of a shorter slice waits behind the running fair task, the running task's
# slice ends on the hrtick instead of at the next tick (4 ms at HZ=250); with no
# shorter slice waiting no timer is armed. For A/B with hrtick-shorter-off.sh.
#   SETUPS="guest/vm/setups/hrtick-shorter-on.sh guest/vm/setups/hrtick-shorter-off.sh"
sched_feats HRTICK_SHORTER
