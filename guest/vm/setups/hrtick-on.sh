#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch mainline's HRTICK sched_feat on (off by default): a fair task's slice then ends
# on an hrtimer instead of at the next tick (4 ms at HZ=250), so a hog that keeps the
# CPU past its slice is preempted when the slice ends.
#   SETUP=guest/vm/setups/hrtick-on.sh make run PROFILE=... KERNEL=patched
sched_feats HRTICK
