#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's SLICE_AWARE_SELECT sched_feat off, so that a waking
# task of a short custom slice that finds no idle CPU is queued on the wakeup
# target, as in mainline, instead of on the busy CPU where it would wait least.
#   SETUP=guest/vm/setups/slice-aware-off.sh make run PROFILE=... KERNEL=patched
features=/sys/kernel/debug/sched/features
if ! grep -q SLICE_AWARE_SELECT "$features" 2>/dev/null; then
	echo "SLICE_AWARE_SELECT is not a sched_feat of this kernel (use KERNEL=patched)" >&2
	exit 1
fi
echo NO_SLICE_AWARE_SELECT > "$features" || { echo "could not switch SLICE_AWARE_SELECT off" >&2; exit 1; }
