#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's two reactions to sched_setattr() off:
# OVERUTIL_CLAMP_RECHECK (a lowered uclamp_max ends the root domain's overutilized
# state at once if no CPU is overutilized any more) and FAIR_PUSH_SETATTR (a
# changed clamp has the stopper try to push the task at once). The fair push's
# other triggers stay as they are. For A/B on one boot with setattr-on.sh.
#   SETUPS="guest/vm/setups/setattr-off.sh guest/vm/setups/setattr-on.sh"
features=/sys/kernel/debug/sched/features
for feat in OVERUTIL_CLAMP_RECHECK FAIR_PUSH_SETATTR; do
	if ! grep -qE "(^| )(NO_)?$feat( |$)" "$features" 2>/dev/null; then
		echo "$feat is not a sched_feat of this kernel (use KERNEL=patched)" >&2
		exit 1
	fi
	echo "NO_$feat" > "$features" || { echo "could not switch $feat off" >&2; exit 1; }
done
