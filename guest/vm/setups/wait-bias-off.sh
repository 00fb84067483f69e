#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's EAS_WAIT_BIAS sched_feat off (its default), leaving
# EAS_WAIT_TIE as it is: energy alone decides between CPUs of different cost.
# For A/B with wait-bias-on.sh.
features=/sys/kernel/debug/sched/features
if ! grep -qE "(^| )(NO_)?EAS_WAIT_BIAS( |$)" "$features" 2>/dev/null; then
	echo "EAS_WAIT_BIAS is not a sched_feat of this kernel (use KERNEL=patched)" >&2
	exit 1
fi
echo NO_EAS_WAIT_BIAS > "$features" || { echo "could not switch EAS_WAIT_BIAS off" >&2; exit 1; }
