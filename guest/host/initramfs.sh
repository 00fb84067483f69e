#!/bin/bash
# Build the guest initramfs: busybox, rt-app, trace-cmd, hackbench (rt-tests, for
# make bench-push), their shared libraries, the project's guest helpers and guest/vm/init. Output: build/initramfs.cpio.gz (rebuilt
# only when one of its inputs changed).
set -euo pipefail
# shellcheck source=guest/host/host-lib.sh
. "$(dirname "$0")/host-lib.sh"

OUT=$BUILD/initramfs.cpio.gz
ROOT=$BUILD/initramfs
BINS=(/bin/busybox /usr/bin/rt-app /usr/bin/trace-cmd /usr/bin/hackbench)
# Programs of guest/vm/helpers/ other than the shim: one C file each, in /usr/bin
# (build_helper: host-lib.sh).
for src in "$TOP"/guest/vm/helpers/*.c; do
	[ "$(basename "$src")" = eas-sched-attrs.c ] && continue
	build_helper "$src" "$BUILD/guest-bin/$(basename "$src" .c)"
done
HELPERS=()
for h in "$BUILD"/guest-bin/*; do [ -x "$h" ] && HELPERS+=("$h"); done
# LD_PRELOAD shim that applies a profile's uclamp/slice keys (see the source).
SHIM_SRC=$TOP/guest/vm/helpers/eas-sched-attrs.c
SHIM=$BUILD/guest-lib/eas-sched-attrs.so
build_helper "$SHIM_SRC" "$SHIM" -shared -fPIC -ldl

for b in "${BINS[@]}"; do
	[ -x "$b" ] || die "$b not found (run 'make deps')"
done
[ "$(file -b "${BINS[0]}" | grep -c 'statically linked')" = 1 ] ||
	die "/bin/busybox is not static (install busybox-static: 'make deps')"

stamp=$(sha_of_files "$TOP/guest/vm/init" "$0" "${BINS[@]}" "${HELPERS[@]}" "$SHIM")
if [ -f "$OUT" ] && [ "$(cat "$OUT.stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi

info "building $OUT"
rm -rf "$ROOT"
mkdir -p "$ROOT"/{bin,sbin,usr/bin,dev,proc,sys,tmp,host,etc,root}

# Copy a file with its directory, following links (libraries are often links).
copy_in() {
	mkdir -p "$ROOT$(dirname "$1")"
	cp -L "$1" "$ROOT$1"
}

# Shared libraries of the dynamic binaries. libgcc_s is not in ldd's list: glibc
# dlopens it on pthread cancellation, which rt-app uses at the end of a run.
libs() {
	ldd "$@" 2>/dev/null | awk '/=>/ { print $3 } /^[[:space:]]*\/lib/ { print $1 }' | sort -u
	ldconfig -p | awk '/libgcc_s\.so\.1 .*x86-64/ { print $NF; exit }'
}

cp /bin/busybox "$ROOT/bin/busybox"
for b in "${BINS[@]:1}" "${HELPERS[@]}"; do
	cp "$b" "$ROOT/usr/bin/"
done
while read -r lib; do
	[ -n "$lib" ] && copy_in "$lib"
done < <(libs "${BINS[@]:1}" "${HELPERS[@]}")
mkdir -p "$ROOT/usr/lib/eas"
cp "$SHIM" "$ROOT/usr/lib/eas/"
# Also the lib64 path the program interpreter is linked with.
copy_in /lib64/ld-linux-x86-64.so.2
install -m 0755 "$TOP/guest/vm/init" "$ROOT/init"
echo "root:x:0:0:root:/root:/bin/sh" >"$ROOT/etc/passwd"

cpio_gz "$ROOT" >"$OUT.new"
mv "$OUT.new" "$OUT"
echo "$stamp" >"$OUT.stamp"
info "initramfs ready: $OUT ($(du -h "$OUT" | cut -f1))"
