#!/bin/bash
# Scan a guest console log for kernel splats: WARNING, BUG, lockdep reports, RCU
# stalls, oopses and panics. Prints each finding and exits 1 when there is any.
#
#   scan-log.sh CONSOLE_LOG...
set -euo pipefail

PATTERNS=(
	'WARNING: '
	'BUG: '
	'Oops'
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

[ $# -gt 0 ] || { echo "usage: scan-log.sh CONSOLE_LOG..." >&2; exit 2; }
re=$(IFS='|'; echo "${PATTERNS[*]}")
found=0
for log in "$@"; do
	[ -r "$log" ] || { echo "scan-log.sh: error: cannot read $log" >&2; exit 2; }
	hits=$(grep -nE "$re" "$log" || true)
	if [ -n "$hits" ]; then
		printf '%s\n' "$hits" | head -n 20 | sed "s|^|$log:|"
		found=1
	fi
done
exit "$found"
