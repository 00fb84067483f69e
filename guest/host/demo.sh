#!/bin/bash
# The demo: one profile on the base and on the patched kernel, then the A/B report.
set -euo pipefail
# shellcheck source=guest/host/host-lib.sh
. "$(dirname "$0")/host-lib.sh"

profile=${1:?usage: demo.sh PROFILE}
runs=()
for k in $KERNELS; do
	runs+=("$("$TOP/guest/host/run.sh" "$profile" "$k" | tail -n 1)")
done
out=$BUILD/reports/demo
"$TOP/analysis/report" -o "$out" --perfetto "${runs[0]}" --vs "${runs[@]:1}"
echo
echo "Run folders (trace.dat opens with 'trace-cmd report -i' or KernelShark):"
printf '  %s\n' "${runs[@]}"
echo "Report: $out/report.html"
