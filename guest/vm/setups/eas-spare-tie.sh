#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's EAS_SPARE_TIE sched_feat on, so that a task moves to
# the CPU of its perf domain with the most spare capacity when that costs the same
# energy as staying (the selection the v0.21 energy model was designed for).
#   SETUP=guest/vm/setups/eas-spare-tie.sh make run PROFILE=... KERNEL=patched
sched_feats EAS_SPARE_TIE
