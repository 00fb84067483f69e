#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's EAS_WAIT_TIE sched_feat off (its default), so that an
# energy tie at wakeup goes to prev, the first perf domain found, or the CPU of a
# domain with the most spare capacity, as in mainline.
#   SETUP=guest/vm/setups/wait-tie-off.sh make run PROFILE=... KERNEL=patched
sched_feats NO_EAS_WAIT_TIE
