#!/bin/sh
# SETUP snippet (sourced in the guest before the replay): EAS on through the
# sched_energy_aware sysctl (its default), written explicitly so that a CAS vs EAS
# A/B names both sides (eas-off.sh is the other).
#   SETUP=guest/vm/setups/eas-on.sh make run PROFILE=...
knob=/proc/sys/kernel/sched_energy_aware
[ -w "$knob" ] || { echo "no $knob in this guest (no energy model?)" >&2; exit 1; }
echo 1 > "$knob" || { echo "could not write 1 to $knob" >&2; exit 1; }
