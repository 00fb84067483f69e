#!/bin/bash
# Scan a guest console log for kernel splats: WARNING, BUG, lockdep reports, RCU
# stalls, oopses and panics. Prints each finding and exits 1 when there is any.
#
#   scan-log.sh CONSOLE_LOG...
#   scan-log.sh --crash CONSOLE_LOG
#   scan-log.sh --stale-int3 CONSOLE_LOG
#
# With --crash, says whether the guest kernel crashed, in one line
# "STATUS<TAB>FIRST SPLAT LINE" (timestamp removed), and exits 1; STATUS is "oops"
# when the log holds an oops (with oops=panic, what qemu-run.sh passes, every oops
# panics right after it), "kernel-panic" when it holds a panic without one. Prints
# nothing and exits 0 when the kernel did not crash.
set -euo pipefail

PATTERNS=(
	'WARNING: '
	'BUG: '
	'kernel BUG at '
	'Oops'
	': [0-9a-f]{4} \[#[0-9]+\]'
	'Kernel panic'
	'general protection fault'
	'possible circular locking dependency'
	'possible recursive locking'
	'inconsistent lock state'
	'suspicious RCU usage'
	'DEBUG_LOCKS_WARN_ON'
	'INFO: trying to register non-static key'
	'rcu_.*detected stalls'
	'rcu: INFO: .*stall'
	'sleeping function called from invalid context'
	'hung_task|blocked for more than'
	'UBSAN:'
)
# An oops: x86's die() header, "Oops: divide error: 0000 [#1] PREEMPT SMP" (6.12;
# older kernels print it without "Oops: "), or the lines that come before it.
OOPS='Oops: |: [0-9a-f]{4} \[#[0-9]+\]|kernel BUG at |general protection fault'
PANIC='Kernel panic - not syncing'

re=$(IFS='|'; echo "${PATTERNS[*]}")

readable() {
	[ -r "$1" ] || { echo "scan-log.sh: error: cannot read $1" >&2; exit 2; }
}

# With --stale-int3, exits 0 when the log's first oops is an int3 trap whose
# breakpoint is no longer in memory: its Code: line shows, just before the byte at
# RIP, the instruction byte back in place of cc. Live patching of kernel text
# (static calls, static keys: text_poke_bp()) puts an int3 there for a moment;
# under QEMU's multi-threaded TCG a vCPU may still run a translation made in that
# moment after the patch is done. That is the emulator's fault, not the kernel's.
if [ "${1:-}" = --stale-int3 ]; then
	[ $# = 2 ] || { echo "usage: scan-log.sh --stale-int3 CONSOLE_LOG" >&2; exit 2; }
	log=$2
	readable "$log"
	first=$(grep -m1 -E "$OOPS" "$log" || true)
	case "$first" in *"Oops: int3"*) ;; *) exit 1 ;; esac
	before=$(tr -d '\r' <"$log" | sed -n '/Oops: int3/,$ { /Code:/ { s/.* \([0-9a-f][0-9a-f]\) <[0-9a-f][0-9a-f]>.*/\1/p; q; } }')
	[ -n "$before" ] && [ "$before" != cc ]
	exit
fi

if [ "${1:-}" = --crash ]; then
	[ $# = 2 ] || { echo "usage: scan-log.sh --crash CONSOLE_LOG" >&2; exit 2; }
	log=$2
	readable "$log"
	if grep -qE "$OOPS" "$log"; then
		kind=oops
	elif grep -qE "$PANIC" "$log"; then
		kind=kernel-panic
	else
		exit 0
	fi
	# The serial console ends lines with CR LF; printk prefixes a timestamp.
	first=$({ grep -m1 -E "$re" "$log" || true; } | tr -d '\r' | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //')
	printf '%s\t%s\n' "$kind" "$first"
	exit 1
fi

[ $# -gt 0 ] || { echo "usage: scan-log.sh CONSOLE_LOG..." >&2; exit 2; }
found=0
for log in "$@"; do
	readable "$log"
	hits=$(grep -nE "$re" "$log" || true)
	if [ -n "$hits" ]; then
		printf '%s\n' "$hits" | head -n 20 | sed "s|^|$log:|"
		found=1
	fi
done
exit "$found"
