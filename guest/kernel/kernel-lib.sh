# shellcheck shell=bash
# Helpers of the kernel build (guest/kernel/): the series file and the patches' notes,
# on top of the host side's helpers. Source it; do not run it.
# shellcheck source=guest/host/host-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../host/host-lib.sh"

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
