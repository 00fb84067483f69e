#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's HRTICK_SHORTER sched_feat off (its default), so that, with HRTICK off
# as by default, a fair task's slice ends at the next tick (4 ms at HZ=250) even while
# a task of a shorter slice waits behind it, as in mainline.
#   SETUP=guest/vm/setups/hrtick-shorter-off.sh make run PROFILE=... KERNEL=patched
sched_feats NO_HRTICK_SHORTER
