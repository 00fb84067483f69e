#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's two reactions to sched_setattr() on (their default):
# OVERUTIL_CLAMP_RECHECK (a lowered uclamp_max ends the root domain's overutilized
# state at once if no CPU is overutilized any more) and FAIR_PUSH_SETATTR (a
# changed clamp has the stopper try to push the task at once). For A/B on one boot
# with setattr-off.sh.
#   SETUPS="guest/vm/setups/setattr-on.sh guest/vm/setups/setattr-off.sh"
features=/sys/kernel/debug/sched/features
for feat in OVERUTIL_CLAMP_RECHECK FAIR_PUSH_SETATTR; do
	if ! grep -qE "(^| )(NO_)?$feat( |$)" "$features" 2>/dev/null; then
		echo "$feat is not a sched_feat of this kernel (use KERNEL=patched)" >&2
		exit 1
	fi
	echo "$feat" > "$features" || { echo "could not switch $feat on" >&2; exit 1; }
done
