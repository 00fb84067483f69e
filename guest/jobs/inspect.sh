#!/bin/sh
# Guest job: boot, save the platform's state (kernel log, energy model, EAS switch)
# and power off, without running the profile.
# shellcheck source=guest/jobs/lib.sh
. "$1/lib.sh"
save_state "$1/.."
