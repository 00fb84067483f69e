#!/bin/bash
# Say how a guest run ended and record it: run.json in the run folder (and in each
# replay's folder of a SETUPS boot), then exit non-zero with a one-line reason if the
# run failed. Used by run.sh after QEMU, and for a run folder that came back from a
# LAVA lab (analysis/sweep lava-results), so that both are judged the same way.
#
#   finish-run.sh RUN PROFILE KERNEL KCONFIG QEMU_STATUS
#
# QEMU_STATUS: qemu-run.sh's exit status (124: its timeout fired).
set -euo pipefail
# shellcheck source=guest/host/host-lib.sh
. "$(dirname "$0")/host-lib.sh"

run=${1:?usage: finish-run.sh RUN PROFILE KERNEL KCONFIG QEMU_STATUS}
profile=${2:?usage: finish-run.sh RUN PROFILE KERNEL KCONFIG QEMU_STATUS}
kernel=${3:?usage: finish-run.sh RUN PROFILE KERNEL KCONFIG QEMU_STATUS}
kconfig=${4:?usage: finish-run.sh RUN PROFILE KERNEL KCONFIG QEMU_STATUS}
rc=${5:?usage: finish-run.sh RUN PROFILE KERNEL KCONFIG QEMU_STATUS}
PY=/usr/bin/python3
[ -d "$run" ] || die "run folder $run not found"

status=ok
if [ "$rc" = 124 ]; then
	status=timeout
elif [ "$rc" != 0 ]; then
	status=qemu-failed
elif [ ! -f "$run/guest/job-status" ]; then
	status=no-job-status
elif [ "$(cat "$run/guest/job-status")" != 0 ]; then
	status=job-failed
fi
splats=0
"$TOP/guest/host/scan-log.sh" "$run/console.log" >"$run/splats.txt" || splats=$?
[ "$splats" = 1 ] && [ "$status" = ok ] && status=splat
# A kernel that oopsed or panicked explains whatever else went wrong (with
# panic=-1 the guest reboots, QEMU exits and the job never reports a status).
crash=$("$TOP/guest/host/scan-log.sh" --crash "$run/console.log" 2>/dev/null) || true
[ -z "$crash" ] || status=${crash%%$'\t'*}

"$PY" "$TOP/guest/host/run_record.py" "$run" "$status" "$profile" "$kernel" "$kconfig"
# Each replay of a SETUPS boot: a run folder with what the boot had in common,
# its own snippet as the run's SETUP, and the boot's status.
for replay in "$run"/replays/*/; do
	[ -d "$replay" ] || continue
	replay=${replay%/}
	setup=$run/guest/setups/$(basename "$replay").sh
	mkdir -p "$replay/guest"
	for f in "$run"/guest/*; do
		[ -f "$f" ] && [ "$(basename "$f")" != job-status ] && cp "$f" "$replay/guest/"
	done
	if [ -f "$setup" ]; then
		cp "$setup" "$replay/guest/setup.sh"
		basename "$setup" .sh | sed 's/^[0-9]*-//' >"$replay/guest/setup-name"
	fi
	cp "$run/profile.json" "$run/kernel.json" "$replay/"
	[ ! -f "$run/qemu-args.txt" ] || cp "$run/qemu-args.txt" "$replay/"
	"$PY" "$TOP/guest/host/run_record.py" "$replay" "$status" "$profile" "$kernel" "$kconfig"
	info "replay $(cat "$replay/guest/setup-name" 2>/dev/null || basename "$replay"): $replay"
done
case "$status" in
ok) ;;
splat)
	cat "$run/splats.txt" >&2
	die "the guest kernel reported a splat (see $run/console.log)" ;;
oops) die "guest kernel oops: ${crash#*$'\t'} (see $run/console.log)" ;;
kernel-panic) die "guest kernel panic: ${crash#*$'\t'} (see $run/console.log)" ;;
timeout) die "run timed out (see $run/timeout and $run/console.log)" ;;
job-failed) die "the guest job failed with status $(cat "$run/guest/job-status") (see $run/console.log, $run/rt-app.stdout)" ;;
*) die "run failed: $status (see $run/console.log)" ;;
esac
