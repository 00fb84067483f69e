#!/bin/sh
# Guest job: replay one profile several times in one boot, each replay after its
# own SETUP snippet (run.sh's SETUPS, copied to setups/NN-NAME.sh in the order
# given), e.g. a sched_feat off, then on: the settings compared on one kernel and
# one boot, without the spread between boots. Each replay leaves what a run of
# guest/vm/jobs/profile.sh leaves in replays/NN-NAME/ of the run folder; finish-run.sh
# then makes each a run folder of its own. A snippet changes what it changes for the
# replays after it too: each should set everything it depends on.
# shellcheck source=guest/vm/vm-lib.sh
. "$1/vm-lib.sh"
job=$1
out=$job/..
rc=0
for setup in "$job"/setups/*.sh; do
	[ -f "$setup" ] || { echo "no SETUPS snippets in $job/setups" >&2; exit 1; }
	dir=$out/replays/$(basename "$setup" .sh)
	mkdir -p "$dir"
	replay_profile "$job" "$dir" "$setup" || rc=1
done
save_state "$out"
[ "$rc" = 0 ]
