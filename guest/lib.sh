# shellcheck shell=bash
# Helpers shared by the host-side scripts in guest/. Source it; do not run it.

# Project root and build directory, whatever the caller's working directory.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
export TOP BUILD

# die MSG: one clear line on stderr, non-zero exit. Messages are named after the
# script, or after the one a user ran (EAS_PROG, for a script that finishes its job).
die() {
	printf '%s: error: %s\n' "${EAS_PROG:-${0##*/}}" "$*" >&2
	exit 1
}

info() {
	printf '%s: %s\n' "${EAS_PROG:-${0##*/}}" "$*" >&2
}

# cpio_gz DIR [PATH...]: a gzipped newc archive of DIR's PATHs (default: all of it),
# in a stable order, on stdout; the initramfs and a per-run ramdisk are made so.
cpio_gz() {
	local dir=$1
	shift
	(cd "$dir" && find "${@:-.}" -print0 | sort -z | cpio --null -o -H newc --quiet) | gzip -6
}

# The kernels a demo compares, and every kernel `make run` knows (KERNEL= must be one
# of them): notrace is the series cut before the trace events, for measuring what
# they cost (make bench-trace).
KERNELS="base patched"
ALL_KERNELS="notrace $KERNELS"

check_kernel_name() {
	case " $ALL_KERNELS " in
	*" $1 "*) ;;
	*) die "unknown KERNEL '$1' (expected one of: $ALL_KERNELS)" ;;
	esac
}

# The config variants; KCONFIG=debug adds lockdep and friends.
check_kconfig_name() {
	case "$1" in
	default | debug) ;;
	*) die "unknown KCONFIG '$1' (expected default or debug)" ;;
	esac
}

# Name under build/kernels/ for a kernel and a config variant.
kernel_id() {
	if [ "$2" = default ]; then echo "$1"; else echo "$1-$2"; fi
}

# Patches of the series, one per line, in order; $1 = a kernel name. The series file
# lists patches in order; a line "# NAME-end" (base-end, notrace-end) marks the end of
# the prefix that makes kernel NAME; patched is the whole list. A kernel other than
# patched without its marker is an error, not the whole series.
series_patches() {
	awk -v want="$1" '
		/^#[[:space:]]*[a-z]+-end[[:space:]]*$/ {
			name = $0
			sub(/^#[[:space:]]*/, "", name)
			sub(/-end[[:space:]]*$/, "", name)
			if (name == want) { found = 1; exit }
			next
		}
		/^[[:space:]]*(#|$)/ { next }
		{ print $1 }
		END { if (want != "patched" && !found) exit 1 }' "$TOP/patches/series" ||
		die "patches/series has no \"# $1-end\" line"
}

sha_of_files() {
	cat "$@" 2>/dev/null | sha256sum | cut -c1-16
}

# patch_notes FILE: the notes of a git format-patch --notes file (the "Notes:"
# block below the "---" line: port notes, checkpatch exceptions), unindented.
patch_notes() {
	awk '
		!cut && $0 == "---" { cut = 1; next }
		cut == 1 && $0 == "Notes:" { cut = 2; next }
		cut == 1 && $0 != "" { exit }
		cut == 2 && /^    / { print substr($0, 5); next }
		cut == 2 && $0 == "" { exit }' "$1"
}
