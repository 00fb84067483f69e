#!/bin/bash
# Install the Debian packages the project needs. Quiet when they are all there.
#   deps.sh [slurm]     slurm: also Slurm and munge (make check-slurm, experiments-slurm)
set -euo pipefail
# shellcheck source=guest/host/host-lib.sh
. "$(dirname "$0")/host-lib.sh"

PACKAGES=(
	linux-source-6.12 qemu-system-x86 rt-app rt-tests trace-cmd busybox-static
	libtracecmd-dev libtraceevent-dev libtracefs-dev pkg-config
	python3-matplotlib python3-pandas python3-numpy python3-scipy python3-pytest
	build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils zstd dwarves
	ccache file shellcheck lava-common python3-yaml
)
[ "${1:-}" != slurm ] || PACKAGES+=(slurm-wlm munge)

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

[ "$(id -u)" = 0 ] || die "missing packages: ${missing[*]}; run 'make deps' as root (apt-get install)"
command -v apt-get >/dev/null || die "missing packages: ${missing[*]}; no apt-get here (Debian 12 expected)"
info "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || die "apt-get update failed"
mkdir -p "$BUILD"
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$BUILD/apt.log" 2>&1; then
	tail -5 "$BUILD/apt.log" >&2
	die "apt-get install failed for: ${missing[*]} (see $BUILD/apt.log)"
fi
