#!/bin/bash
# Build a guest kernel from Debian's linux-source-6.12 with the project's series.
#
#   guest/kernel/kernel.sh KERNEL [KCONFIG]
#   guest/kernel/kernel.sh --prefixes       build every prefix of the series (slow;
#                                    PREFIXES_FROM=n: from the n-th on)
#
# KERNEL is base (the series up to "# base-end"), patched (the whole series) or
# notrace (up to "# notrace-end": the simulated platform without the trace events);
# KCONFIG is default or debug. The tarball is extracted once into build/linux and put
# under git. All kernels build from one worktree (build/src) into their own object
# directory (build/obj/ID): switching kernels rewrites only the files the series
# changes, and as the source path stays the same ccache serves the objects built
# before. Editing one patch rebuilds only what it touches.
# The bzImage lands in build/kernels/ID/ with a description of what it was built from.
set -euo pipefail
# shellcheck source=guest/kernel/kernel-lib.sh
. "$(dirname "$0")/kernel-lib.sh"

prefixes=
if [ "${1:-}" = --prefixes ]; then
	prefixes=1
	set -- patched default
fi
kernel=${1:?usage: kernel.sh notrace|base|patched [default|debug] | --prefixes}
kconfig=${2:-default}
check_kernel_name "$kernel"
check_kconfig_name "$kconfig"
id=$(kernel_id "$kernel" "$kconfig")

TARBALL=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
REPO=$BUILD/linux
SRC=$BUILD/src
OBJ=$BUILD/obj/$id
OUT=$BUILD/kernels/$id

export GIT_AUTHOR_NAME=build GIT_AUTHOR_EMAIL=build@localhost
export GIT_COMMITTER_NAME=build GIT_COMMITTER_EMAIL=build@localhost

debian_version() {
	dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown
}

# Extract the tarball once and commit it as the "pristine" tag.
prepare_repo() {
	[ -f "$TARBALL" ] || die "$TARBALL not found (run 'make deps' to install linux-source-6.12)"
	git -C "$REPO" rev-parse -q --verify pristine >/dev/null 2>&1 && return
	info "extracting $TARBALL into $REPO"
	rm -rf "$REPO" "$SRC"
	mkdir -p "$REPO"
	tar -xJf "$TARBALL" -C "$REPO" --strip-components=1
	git -C "$REPO" init -q
	# Objects stay uncompressed: zlib over 1.4 GB is most of the set-up time.
	git -C "$REPO" config core.compression 0
	git -C "$REPO" config gc.auto 0
	# The tree's own .gitignore ignores everything: force-add.
	git -C "$REPO" add -f .
	git -C "$REPO" commit -q -m "Debian linux-source-6.12 $(debian_version)"
	git -C "$REPO" tag pristine
}

# Apply the whole series on top of pristine (in the main worktree, which is never
# built) and tag the result series-patched; every other kernel is the same chain cut
# at its "# NAME-end" line, tagged series-NAME.
apply_series() {
	local stamp p k list n_all
	mapfile -t all < <(series_patches patched)
	stamp=$(cd "$TOP/patches" && sha_of_files series "${all[@]}")
	if [ "$(cat "$REPO/.series-stamp" 2>/dev/null)" = "$stamp" ] &&
		git -C "$REPO" rev-parse -q --verify series-patched >/dev/null; then
		return
	fi
	info "applying ${#all[@]} patch(es) with git am"
	# Notes (below-the-line text) follow commits through rebases in build/src.
	git -C "$REPO" config notes.rewriteRef refs/notes/commits
	git -C "$REPO" am --abort >/dev/null 2>&1 || true
	git -C "$REPO" checkout -q --detach pristine
	for p in "${all[@]}"; do
		[ -f "$TOP/patches/$p" ] || die "patches/series lists $p, which does not exist"
		if ! git -C "$REPO" am -q --committer-date-is-author-date "$TOP/patches/$p" >"$BUILD/git-am.log" 2>&1; then
			git -C "$REPO" am --abort >/dev/null 2>&1 || true
			git -C "$REPO" checkout -q --detach pristine
			die "patch $p does not apply to linux-source-6.12 $(debian_version) (see $BUILD/git-am.log)"
		fi
		# git am drops what sits below the "---" line; keep it as a git note so
		# that export-patches.sh (format-patch --notes) writes it back.
		notes=$(patch_notes "$TOP/patches/$p")
		[ -z "$notes" ] || git -C "$REPO" notes add -f -m "$notes" HEAD
	done
	n_all=${#all[@]}
	for k in $ALL_KERNELS; do
		list=$(series_patches "$k")
		git -C "$REPO" tag -f "series-$k" "HEAD~$((n_all - $(wc -w <<<"$list")))" >/dev/null
	done
	echo "$stamp" >"$REPO/.series-stamp"
}

# Move the build worktree to this kernel's commit; git rewrites only the files that
# differ, so make rebuilds only what depends on them.
checkout_kernel() {
	if [ ! -e "$SRC/.git" ]; then
		git -C "$REPO" worktree prune
		git -C "$REPO" worktree add -q --detach "$SRC" "series-$kernel"
	else
		git -C "$SRC" checkout -q --detach "series-$kernel"
	fi
}

# tinyconfig + the project's fragments; fail if a requested option did not stick.
configure() {
	local frags=("$TOP/guest/kernel/config/guest.config") stamp sym want got
	[ "$kconfig" = debug ] && frags+=("$TOP/guest/kernel/config/debug.config")
	stamp="$(git -C "$SRC" rev-parse HEAD) $(sha_of_files "${frags[@]}")"
	[ -f "$OBJ/.config" ] && [ "$(cat "$OBJ/.config-stamp" 2>/dev/null)" = "$stamp" ] && return
	info "configuring $id"
	mkdir -p "$OBJ"
	make -s -C "$SRC" O="$OBJ" tinyconfig >/dev/null
	(cd "$SRC" && scripts/kconfig/merge_config.sh -m -O "$OBJ" "$OBJ/.config" "${frags[@]}" >/dev/null)
	make -s -C "$SRC" O="$OBJ" olddefconfig >/dev/null
	# An option the tree knows but that olddefconfig dropped means a missing dependency.
	while IFS='=' read -r sym want; do
		got=$(grep -E "^$sym=|^# $sym is not set" "$OBJ/.config" | head -1 || true)
		case "$got" in
		"$sym=$want") continue ;;
		"# $sym is not set") [ "$want" = n ] && continue ;;
		"") [ "$want" = n ] && continue ;;
		esac
		if git -C "$SRC" grep -qE "^(menu)?config ${sym#CONFIG_}\$" -- '*Kconfig*'; then
			die "$id: $sym=$want requested by the config fragment, got '${got:-unset}'"
		fi
	done < <(sed -E -n 's/^(CONFIG_[A-Za-z0-9_]+)=(.*)$/\1=\2/p; s/^# (CONFIG_[A-Za-z0-9_]+) is not set$/\1=n/p' "${frags[@]}")
	echo "$stamp" >"$OBJ/.config-stamp"
}

# compile WHAT: make the bzImage in $OBJ from $SRC (through ccache when present);
# on failure show the errors and die naming WHAT.
compile() {
	local cc=gcc
	command -v ccache >/dev/null && cc="ccache gcc"
	export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache-eas}
	export CCACHE_BASEDIR=$BUILD
	if ! make -C "$SRC" O="$OBJ" -j"$(nproc)" CC="$cc" bzImage >"$OBJ/build.log" 2>&1; then
		grep -E 'error|Error' "$OBJ/build.log" | head -20 >&2
		die "$1 does not build (see $OBJ/build.log)"
	fi
}

build() {
	info "building $id (log: $OBJ/build.log)"
	compile "$id"
	mkdir -p "$OUT"
	cp "$OBJ/arch/x86/boot/bzImage" "$OUT/bzImage.new"
	mv "$OUT/bzImage.new" "$OUT/bzImage"
	series_patches "$kernel" | /usr/bin/python3 -c '
import json, sys
keys = ("kernel", "kconfig", "release", "debian_version", "commit", "series_hash")
info = dict(zip(keys, sys.argv[1:]))
info["patches"] = sys.stdin.read().split()
json.dump(info, open(sys.argv[-1], "w"), indent=1)' "$kernel" "$kconfig" \
		"$(cat "$OBJ/include/config/kernel.release")" "$(debian_version)" \
		"$(git -C "$SRC" rev-parse HEAD)" "$(cat "$REPO/.series-stamp")" "$OUT/info.json"
	info "$id ready: $OUT/bzImage"
}

# Every prefix of the series must build on its own (one logical change per patch):
# check out each in turn and build it into build/obj/prefix, then go back to the
# whole series. Nothing lands in build/kernels. PREFIXES_FROM=n starts at the
# n-th prefix (after a rework of the series' tail, the earlier ones are unchanged).
build_prefixes() {
	local n total from=${PREFIXES_FROM:-1}
	total=$(series_patches patched | wc -l)
	if ! [[ $from =~ ^[1-9][0-9]*$ ]] || ((from > total)); then
		die "PREFIXES_FROM=$from: not a prefix of the series (1-$total)"
	fi
	for ((n = from; n <= total; n++)); do
		git -C "$SRC" checkout -q --detach "series-patched~$((total - n))"
		info "prefix $n/$total: $(git -C "$SRC" log -1 --format=%s)"
		id=prefix OBJ=$BUILD/obj/prefix
		configure
		compile "prefix $n ($(git -C "$SRC" log -1 --format=%s))"
	done
	git -C "$SRC" checkout -q --detach series-patched
	info "prefixes $from-$total of $total build"
}

# All kernels share build/linux and the build worktree: one kernel.sh at a time.
mkdir -p "$BUILD"
exec 9>"$BUILD/.kernel.lock"
flock 9
prepare_repo
apply_series
checkout_kernel
if [ -n "$prefixes" ]; then
	build_prefixes
	exit 0
fi
configure
build
