#!/bin/sh
# Guest job: boot, save the platform's state (kernel log, energy model, EAS switch)
# and power off, without running the profile.
# shellcheck source=guest/vm/vm-lib.sh
. "$1/vm-lib.sh"
save_state "$1/.."
