# shellcheck shell=bash
# Helpers shared by the host-side scripts (guest/host/, and guest/kernel/ through
# kernel-lib.sh). Source it; do not run it.

# Project root and build directory, whatever the caller's working directory.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
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

# build_helper SRC OUT [GCC-ARGS...]: compile one C file (a guest helper, a host
# program) into OUT when OUT is missing or older than SRC. The object is written
# beside OUT under a name of this process's own, so that runs side by side that
# both compile it never mix their output.
build_helper() {
	local src=$1 out=$2
	shift 2
	if [ ! -f "$out" ] || [ "$src" -nt "$out" ]; then
		mkdir -p "$(dirname "$out")"
		gcc -O2 -Wall -Wextra -Werror -o "$out.new.$$" "$src" "$@" || {
			rm -f "$out.new.$$"
			die "building $out failed"
		}
		mv "$out.new.$$" "$out"
	fi
}

# python3 -m MODULE ARGS...: a Python module of analysis/ (contract.rtapp_profile...) as a
# command, with Debian's interpreter.
py_module() {
	PYTHONPATH="$TOP/analysis${PYTHONPATH:+:$PYTHONPATH}" /usr/bin/python3 -m "$@"
}

# The simulated platform a run gets when it names none (PLATFORM), and the grammar of
# hybrid_sim= that run.sh checks before booting (the kernel checks the rest).
# shellcheck disable=SC2034  # both are for the scripts that source this file
DEFAULT_PLATFORM=e:4:600,p:2:1024
# shellcheck disable=SC2034
PLATFORM_PATTERN='^[a-z]+:[0-9]+:[0-9]+(:[0-9]+)?(,[a-z]+:[0-9]+:[0-9]+(:[0-9]+)?)*$'

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

sha_of_files() {
	cat "$@" 2>/dev/null | sha256sum | cut -c1-16
}
