#!/bin/bash
# The demo: one profile on the base and on the patched kernel; prints the run folders.
set -euo pipefail
# shellcheck source=guest/lib.sh
. "$(dirname "$0")/lib.sh"

profile=${1:?usage: demo.sh PROFILE}
runs=()
for k in $KERNELS; do
	runs+=("$("$TOP/guest/run.sh" "$profile" "$k")")
done
echo
echo "Run folders (trace.dat opens with 'trace-cmd report -i' or KernelShark):"
printf '  %s\n' "${runs[@]}"
