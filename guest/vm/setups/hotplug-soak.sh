#!/bin/sh
# SETUP snippet for guest/vm/jobs/hotplug-push.sh (make soak): 200 offline/online
# cycles instead of the test's 20.
# shellcheck disable=SC2034
CYCLES=200
