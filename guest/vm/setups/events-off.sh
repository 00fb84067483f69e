#!/bin/sh
# SETUP snippet (sourced in the guest before a replay or a benchmark): no trace event
# enabled and the ring buffer off, so that a kernel with the project's trace events
# runs as a user's would (make bench-trace compares it with the notrace kernel).
#   SETUP=guest/vm/setups/events-off.sh make run PROFILE=... KERNEL=base
tracing=/sys/kernel/tracing
[ -d "$tracing/events" ] || tracing=/sys/kernel/debug/tracing
echo 0 > "$tracing/tracing_on" 2>/dev/null || true
: > "$tracing/set_event" 2>/dev/null || true
if [ -s "$tracing/set_event" ]; then
	echo "trace events stay enabled: $(head -3 "$tracing/set_event" | tr '\n' ' ')" >&2
	exit 1
fi
