#!/bin/sh
# SETUP snippet (sourced in the guest by guest/vm/jobs/profile.sh before the replay):
# switch the patched kernel's HRTICK_SHORTER sched_feat on (off by default): while a
# task of a shorter slice waits behind the running fair task, the running task's
# slice ends on the hrtick instead of at the next tick (4 ms at HZ=250); with no
# shorter slice waiting no timer is armed. For A/B with hrtick-shorter-off.sh.
#   SETUPS="guest/vm/setups/hrtick-shorter-on.sh guest/vm/setups/hrtick-shorter-off.sh"
features=/sys/kernel/debug/sched/features
if ! grep -qE "(^| )(NO_)?HRTICK_SHORTER( |$)" "$features" 2>/dev/null; then
	echo "HRTICK_SHORTER is not a sched_feat of this kernel (use KERNEL=patched)" >&2
	exit 1
fi
echo HRTICK_SHORTER > "$features" || { echo "could not switch HRTICK_SHORTER on" >&2; exit 1; }
