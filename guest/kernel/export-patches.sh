#!/bin/bash
# Write the commits of the build worktree (build/src, since the tag "pristine")
# back to patches/ as git format-patch files, after a patch was edited there.
# Keeps patches/series; fails if the series no longer names exactly those files.
# The upstream fixes the series starts with (upstream/*) are not written back: the
# export starts after them.
set -euo pipefail
# shellcheck source=guest/kernel/kernel-lib.sh
. "$(dirname "$0")/kernel-lib.sh"

SRC=${SRC:-$BUILD/src}
git -C "$SRC" rev-parse -q --verify pristine >/dev/null || die "no build worktree in $SRC (run 'make kernel')"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The upstream fixes lead the series, so ours start that many commits after pristine.
n_up=$(series_patches patched | awk '/^upstream\// { if (ours) bad = 1; n++; next } { ours = 1 } END { print bad ? -1 : n + 0 }')
[ "$n_up" -ge 0 ] || die "patches/series lists an upstream/ fix after the project's patches"
from=$(git -C "$SRC" rev-list --reverse pristine..HEAD | awk -v n="$n_up" 'NR == n { print; exit }')
if [ "$n_up" -gt 0 ]; then
	# The last upstream fix must be that commit, or an edit of a fix would be dropped.
	last=$(series_patches patched | grep '^upstream/' | tail -n 1)
	want=$(git mailinfo /dev/null /dev/null <"$TOP/patches/$last" | sed -n 's/^Subject: //p')
	[ "$(git -C "$SRC" log -1 --format=%s "$from")" = "$want" ] ||
		die "the worktree's commit $n_up after pristine is not $last (edit upstream fixes in patches/upstream/)"
fi
git -C "$SRC" format-patch -q --notes -o "$tmp" "${from:-pristine}..HEAD"
new=$(cd "$tmp" && ls)
listed=$(series_patches patched | grep -v '^upstream/' | sort)
if [ "$(sort <<<"$new")" != "$listed" ]; then
	info "format-patch made: $(echo "$new" | tr '\n' ' ')"
	die "patches/series does not list exactly these files; update it, then run again"
fi
rm -f "$TOP"/patches/*.patch
cp "$tmp"/*.patch "$TOP/patches/"
info "wrote $(wc -l <<<"$new") patch(es) to $TOP/patches"
