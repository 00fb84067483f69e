#!/bin/bash
# make experiments: repeated runs whose comparison is statistical, too slow for
# make check. Each experiment writes an A/B report under build/reports/experiments/.
#   guest/experiments.sh [NAME...]     (default: all; REPS=n repetitions, default 3)
set -euo pipefail
# shellcheck source=guest/lib.sh
. "$(dirname "$0")/lib.sh"

REPS=${REPS:-3}
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "REPS=$REPS: expected a whole number, at least 1"
OUT=$BUILD/reports/experiments

# runs PROFILE LAYOUT [PARAMS]: REPS run folders of PROFILE on the patched kernel
# with that energy-model layout (and kernel PARAMS, then the caller's CMDLINE),
# one per line.
runs() {
	local i
	for ((i = 1; i <= REPS; i++)); do
		info "$1 with layout $2 ${3:-}: run $i/$REPS" >&2
		CMDLINE="hybrid_em.layout=$2 ${3:-} ${CMDLINE:-}" \
			"$TOP/guest/run.sh" "$TOP/rt-app-profiles/$1.json" patched | tail -n 1
	done
}

# compare NAME PROFILE LAYOUT_A LAYOUT_B [PARAMS]
compare() {
	local a b
	mapfile -t a < <(runs "$2" "$3" "${5:-}")
	mapfile -t b < <(runs "$2" "$4" "${5:-}")
	info "$1: A = $3, B = $4"
	"$TOP/analysis/report" -o "$OUT/$1" "${a[@]}" --vs "${b[@]}"
}

# The issue's claim: per-CPU domains (v0.3) move small tasks between E-cores less
# often than per-type domains (v0.21). Under 6.12's rule (prev_cpu wins on equal
# energy) and under the selection v0.21 was designed for (EAS_SPARE_TIE: the CPU
# with the most spare capacity wins).
layout_same_type() { compare layout-same-type many-small v0.21 v0.3; }
layout_same_type_spare_tie() {
	SETUP=$TOP/guest/setups/eas-spare-tie.sh compare layout-same-type-spare-tie many-small v0.21 v0.3
}
# The 6.19 retune: P-cores take work once E-cores pass ~60 % utilization.
layout_v619_takeover() { compare layout-v6.19-takeover e-load-70 v0.3 v6.19; }
# The same with E-cores that take 1024/600 as long to do the work (the profile asks
# for faithful_speed), so that a task's util is the same on either type (without it,
# a task's util on a P-core reads 1024/600 of its util on an E-core and it never fits
# an E-core again).
layout_v619_takeover_faithful() {
	compare layout-v6.19-takeover-faithful e-load-50-faithful v0.3 v6.19
}

ALL=(layout_same_type layout_same_type_spare_tie layout_v619_takeover layout_v619_takeover_faithful)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=("${ALL[@]}")
for n in "${names[@]}"; do
	n=${n//-/_}
	n=${n//./}
	declare -F "$n" >/dev/null || die "unknown experiment '$n' (have: ${ALL[*]})"
	"$n"
done
