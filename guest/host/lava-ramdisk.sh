#!/bin/bash
# A per-run ramdisk for a lab that boots the guest without the 9p share (LAVA):
# the project's initramfs followed by a second cpio archive that carries a prepared
# run folder (run.sh --prepare-only) as /host, where guest/vm/init finds the job.
#
#   lava-ramdisk.sh RUN_DIR OUT.cpio.gz
#
# The kernel unpacks concatenated archives in order, so the first stays as built.
set -euo pipefail
# shellcheck source=guest/host/host-lib.sh
. "$(dirname "$0")/host-lib.sh"

run=${1:?usage: lava-ramdisk.sh RUN_DIR OUT.cpio.gz}
out=${2:?usage: lava-ramdisk.sh RUN_DIR OUT.cpio.gz}
base=${INITRD:-$BUILD/initramfs.cpio.gz}

[ -f "$base" ] || die "initramfs $base not found (run 'make initramfs')"
[ -f "$run/guest/job.sh" ] || die "$run is not a prepared run folder (no guest/job.sh; see run.sh --prepare-only)"
command -v cpio >/dev/null || die "cpio not found (run 'make deps')"

stage=$(mktemp -d)
trap 'rm -rf "$stage" "$out.new"' EXIT
mkdir "$stage/host"
cp -a "$run/." "$stage/host/"
{
	cat "$base"
	cpio_gz "$stage" host
} >"$out.new"
mv "$out.new" "$out"
info "per-run ramdisk: $out ($(du -h "$out" | cut -f1))"
