#!/bin/sh
# Guest job: replay an rt-app profile while tracing into the ring buffer, then leave
# the trace, the rt-app logs and snapshots of the scheduler state in the share
# (replay_profile in vm-lib.sh). $1 is the job directory (/host/guest); results go to
# its parent, the run folder. The host's SETUP snippet, if any, is sourced first.
# Runs under busybox sh.
job=$1
out=$job/..

# shellcheck source=guest/vm/vm-lib.sh
. "$job/vm-lib.sh"

replay_profile "$job" "$out" "$job/setup.sh"
