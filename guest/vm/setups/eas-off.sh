#!/bin/sh
# SETUP snippet (sourced in the guest before the replay): capacity-aware scheduling
# only (CAS): EAS off through the sched_energy_aware sysctl, which rebuilds the
# sched domains without perf domains. Pair it with eas-on.sh for a CAS vs EAS A/B.
#   SETUP=guest/vm/setups/eas-off.sh make run PROFILE=...
knob=/proc/sys/kernel/sched_energy_aware
[ -w "$knob" ] || { echo "no $knob in this guest (no energy model?)" >&2; exit 1; }
echo 0 > "$knob" || { echo "could not write 0 to $knob" >&2; exit 1; }
