#!/bin/bash
# Replay an rt-app profile in a QEMU guest and collect a run folder.
#
#   run.sh [--check-only|--prepare-only] PROFILE [KERNEL [KCONFIG]]
#
# --prepare-only makes the run folder (the guest's inputs) and prints it without
# booting: a LAVA lab boots it from a per-run ramdisk (guest/host/lava-ramdisk.sh).
# KERNEL: base|patched (default patched); KCONFIG: default|debug.
# Environment: PLATFORM, the simulated hybrid platform as hybrid_sim= takes it
# (default DEFAULT_PLATFORM of host-lib.sh, e:4:600,p:2:1024: 4 E-cores of capacity 600 and 2 P-cores; "none" for
# a plain SMP guest); CPUS (default: the platform's CPU count), CMDLINE, TIMEOUT,
# MEM, ACCEL (see qemu-run.sh); SETUP, a shell
# snippet sourced in the guest before the replay (sched_features, sysctls...);
# SETUPS, snippets (space-separated) for one replay each in one boot
# (guest/vm/jobs/replays.sh, the default JOB then): each replay becomes a run folder
# of its own, RUN/replays/NN-NAME, named after its snippet;
# JOB, a guest job script instead of guest/vm/jobs/profile.sh; RUNS, where run folders go
# (build/runs); RUN_DIR_FILE, a file that run.sh writes the run folder's path to as soon
# as the folder exists (the way for a caller to find it, whatever happens next).
# Prints the run folder on stdout. Everything is checked before booting.
set -euo pipefail
# shellcheck source=guest/host/host-lib.sh
. "$(dirname "$0")/host-lib.sh"

args=("$@")
check_only=0 prepare_only=0
case "${1:-}" in
--check-only) check_only=1; shift ;;
--prepare-only) prepare_only=1; shift ;;
esac
profile=${1:?usage: run.sh [--check-only|--prepare-only] PROFILE [KERNEL [KCONFIG]]}
kernel=${2:-patched}
kconfig=${3:-default}
read -r -a setups <<<"${SETUPS:-}"
if [ ${#setups[@]} -gt 0 ]; then
	[ -z "${SETUP:-}" ] || die "SETUP and SETUPS exclude each other (give the snippet in SETUPS)"
	JOB=${JOB:-$TOP/guest/vm/jobs/replays.sh}
fi
JOB=${JOB:-$TOP/guest/vm/jobs/profile.sh}
RUNS=${RUNS:-$BUILD/runs}

check_kernel_name "$kernel"
check_kconfig_name "$kconfig"
[ -f "$profile" ] || die "profile $profile not found"
PLATFORM=${PLATFORM:-$DEFAULT_PLATFORM}
err=$(py_module contract.rtapp_profile check --platform "$PLATFORM" "$profile" 2>&1) ||
	die "${err:-profile check failed}"
[ -f "$JOB" ] || die "job script $JOB not found"
if [ "$PLATFORM" != none ]; then
	# The kernel checks the spec fully; here only what decides the vCPU count.
	[[ "$PLATFORM" =~ $PLATFORM_PATTERN ]] ||
		die "PLATFORM '$PLATFORM' is not TYPE:COUNT:CAPACITY[:SCALING][,...]"
	ncpus=$(tr ',' '\n' <<<"$PLATFORM" | awk -F: '{ n += $2 } END { print n }')
	[ -z "${CPUS:-}" ] || [ "$CPUS" = "$ncpus" ] ||
		die "PLATFORM '$PLATFORM' has $ncpus CPUs but CPUS=$CPUS"
	export CPUS=$ncpus
	export CMDLINE="hybrid_sim=$PLATFORM ${CMDLINE:-}"
fi
export CMDLINE="sched_verbose ${CMDLINE:-}"
[ -z "${SETUP:-}" ] || [ -f "$SETUP" ] || die "SETUP file $SETUP not found"
for f in "${setups[@]}"; do
	[ -f "$f" ] || die "SETUPS file $f not found"
done
[ "$check_only" = 1 ] && exit 0
id=$(kernel_id "$kernel" "$kconfig")
image=$BUILD/kernels/$id/bzImage
[ -f "$image" ] || die "kernel $id not built (run 'make kernel KERNEL=$kernel KCONFIG=$kconfig')"

name=$(basename "$profile" .json)
stamp=$(date -u +%Y%m%dT%H%M%SZ)
run=$RUNS/$name-$id-$stamp
n=1
# mkdir, not a test then mkdir: guests of a sweep start side by side.
mkdir -p "$RUNS"
until mkdir "$run" 2>/dev/null; do
	[ -w "$RUNS" ] || die "cannot create a run folder in $RUNS"
	run=$RUNS/$name-$id-$stamp.$n
	n=$((n + 1))
done
mkdir "$run/guest"
[ -z "${RUN_DIR_FILE:-}" ] || echo "$run" >"$RUN_DIR_FILE"

py_module contract.rtapp_profile prepare "$profile" "$run/guest"
cp "$profile" "$run/profile.json"
cp "$JOB" "$run/guest/job.sh"
cp "$TOP/guest/vm/vm-lib.sh" "$run/guest/vm-lib.sh"
basename "$JOB" >"$run/guest/job-name"
if [ -n "${SETUP:-}" ]; then
	cp "$SETUP" "$run/guest/setup.sh"
	basename "$SETUP" .sh >"$run/guest/setup-name"
fi
n=0
for f in "${setups[@]}"; do
	n=$((n + 1))
	mkdir -p "$run/guest/setups"
	cp "$f" "$run/guest/setups/$(printf %02d "$n")-$(basename "$f")"
done
cp "$BUILD/kernels/$id/info.json" "$run/kernel.json"
if [ "$prepare_only" = 1 ]; then
	echo "$run"
	exit 0
fi

info "booting $id with $name (${CPUS:-6} vCPUs, platform $PLATFORM) -> $run"
rc=0
"$TOP/guest/host/qemu-run.sh" "$image" "$run" || rc=$?
# A guest that ran out of time or whose QEMU failed says so; finish-run.sh
# says how the rest went and records it.
frc=0
EAS_PROG=run.sh "$TOP/guest/host/finish-run.sh" "$run" "$profile" "$kernel" "$kconfig" "$rc" || frc=$?
echo "$run"
# A breakpoint that live patching had already taken out, run by a stale QEMU
# translation (scan-log.sh --stale-int3): not the kernel's fault; boot again, at
# most twice (CI on 2026-12-07 saw it on two boots in a row of one fixture).
stale_boots=${EAS_STALE_INT3_BOOTS:-0}
if [ "$frc" != 0 ] && [ "$stale_boots" -lt 2 ] &&
	"$TOP/guest/host/scan-log.sh" --stale-int3 "$run/console.log"; then
	info "the guest ran an int3 that live patching had already removed (QEMU TCG); booting once more"
	EAS_STALE_INT3_BOOTS=$((stale_boots + 1)) exec "$0" "${args[@]}"
fi
exit "$frc"
