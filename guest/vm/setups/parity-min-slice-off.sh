#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's PARITY_MIN_SLICE sched_feat off (its default), so that
# RUN_TO_PARITY protects the running fair task's slice to its deadline, as in mainline.
#   SETUP=guest/vm/setups/parity-min-slice-off.sh make run PROFILE=... KERNEL=patched
features=/sys/kernel/debug/sched/features
if ! grep -qE "(^| )(NO_)?PARITY_MIN_SLICE( |$)" "$features" 2>/dev/null; then
	echo "PARITY_MIN_SLICE is not a sched_feat of this kernel (use KERNEL=patched)" >&2
	exit 1
fi
echo NO_PARITY_MIN_SLICE > "$features" || { echo "could not switch PARITY_MIN_SLICE off" >&2; exit 1; }
