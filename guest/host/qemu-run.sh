#!/bin/bash
# Boot a guest kernel with the project's initramfs under QEMU, with a hard timeout.
#
#   qemu-run.sh KERNEL_IMAGE SHARE_DIR
#
# Settings come from the environment: CPUS (6), MEM (2048 MiB), TIMEOUT (seconds, 300),
# CMDLINE (appended to the kernel command line), ACCEL (auto|tcg|kvm), TCG_CPU (the
# -cpu model under TCG). The default TCG_CPU is QEMU's "max" presented as an Intel
# family 6 part, which Linux trusts to have a constant TSC: with the default AMD-like
# "max" (no invariant TSC under TCG) the first cpufreq transition marks the TSC
# unstable and the guest keeps time on the emulated HPET, whose every read traps into
# QEMU. Real hybrid Intel parts have an invariant TSC.
# VIRTFS=0 boots without the 9p share, as a LAVA lab's QEMU does (the run folder
# then comes in a per-run ramdisk, INITRD; see guest/host/lava-ramdisk.sh).
# SHARE_DIR is exported to the guest over virtio-9p and receives console.log,
# qemu-args.txt and host-vcpu.tsv: while QEMU runs, guest/host/vcpu-sampler.c (built
# into $BUILD/host-bin/ when missing or older than its source) records every 5 ms
# how the host scheduled each vCPU thread (run and wait time from
# /proc/PID/task/TID/schedstat; read only), and when the guest's replay-start and
# replay-end files appeared in the share (of each SETUPS replay too); the analysis
# turns it into each vCPU's steal. It stops when QEMU does, and this script stops it
# on every way out; a sampler that cannot sample leaves an error line in the file,
# never a failed run. Exit status: 0 when the guest powered off, 124 when the timeout fired
# (QEMU killed, SHARE_DIR/timeout written), QEMU's status otherwise.
set -euo pipefail
# shellcheck source=guest/host/host-lib.sh
. "$(dirname "$0")/host-lib.sh"

image=${1:?usage: qemu-run.sh KERNEL_IMAGE SHARE_DIR}
share=${2:?usage: qemu-run.sh KERNEL_IMAGE SHARE_DIR}
CPUS=${CPUS:-6}
MEM=${MEM:-2048}
TIMEOUT=${TIMEOUT:-300}
ACCEL=${ACCEL:-auto}
TCG_CPU=${TCG_CPU:-max,vendor=GenuineIntel,family=6,model=15}
TCG=tcg,thread=multi
INITRD=${INITRD:-$BUILD/initramfs.cpio.gz}

[ -f "$image" ] || die "kernel image $image not found (run 'make kernel')"
[ -f "$INITRD" ] || die "initramfs $INITRD not found (run 'make initramfs')"
[ -d "$share" ] || die "share directory $share does not exist"
case "$CPUS" in '' | *[!0-9]*) die "CPUS must be a number, got '$CPUS'" ;; esac
case "$TIMEOUT" in '' | *[!0-9]*) die "TIMEOUT must be a number of seconds, got '$TIMEOUT'" ;; esac
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found (run 'make deps')"

# KVM is used only where a probe boot proved it works: on these machines /dev/kvm
# exists but guests hang after "Booting from ROM" when the host CPU hides vmx/svm.
kvm_works() {
	local probe=$BUILD/kvm-probe
	[ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo || return 1
	if [ ! -f "$probe" ]; then
		local dir
		dir=$(mktemp -d)
		if timeout -k 5 60 qemu-system-x86_64 -accel kvm -m 256 -smp 1 -kernel "$image" \
			-initrd "$INITRD" -append "console=ttyS0 panic=-1" -no-reboot \
			-display none -monitor none -serial "file:$dir/console" >/dev/null 2>&1 &&
			grep -q 'guest-init' "$dir/console"; then
			echo ok >"$probe"
		else
			echo no >"$probe"
		fi
		rm -rf "$dir"
	fi
	[ "$(cat "$probe")" = ok ]
}

case "$ACCEL" in
auto) if kvm_works; then accel=(-accel kvm -cpu host); else accel=(-accel "$TCG" -cpu "$TCG_CPU"); fi ;;
kvm) accel=(-accel kvm -cpu host) ;;
tcg) accel=(-accel "$TCG" -cpu "$TCG_CPU") ;;
*) die "ACCEL must be auto, tcg or kvm, got '$ACCEL'" ;;
esac

console=$share/console.log
# QEMU's pid for the sampler, outside the run folder.
tmp=$(mktemp -d)
sampler=$BUILD/host-bin/vcpu-sampler
samples=$share/host-vcpu.tsv
sampler_pid=
stop_sampler() {
	if [ -n "$sampler_pid" ]; then
		# It ends by itself within a period of QEMU's exit; give it that, then stop it.
		local i=0
		while [ "$i" -lt 20 ] && kill -0 "$sampler_pid" 2>/dev/null; do
			sleep 0.05
			i=$((i + 1))
		done
		kill "$sampler_pid" 2>/dev/null || true
		wait "$sampler_pid" 2>/dev/null || true
		sampler_pid=
	fi
	rm -rf "$tmp"
}
trap stop_sampler EXIT
# bash runs no EXIT trap when a signal kills it: exit on them, so that it does.
trap 'exit 143' TERM INT HUP
args=(
	"${accel[@]}" -m "$MEM" -smp "$CPUS"
	-name "eas,debug-threads=on" -pidfile "$tmp/qemu.pid"
	-kernel "$image" -initrd "$INITRD"
	-append "console=ttyS0 panic=-1 oops=panic loglevel=6 ${CMDLINE:-}"
	-no-reboot -display none -monitor none -nodefaults
	-serial "file:$console"
)
case "${VIRTFS:-1}" in
1) args+=(-virtfs "local,path=$share,mount_tag=host,security_model=none,id=host") ;;
0) ;;
*) die "VIRTFS must be 0 or 1, got '$VIRTFS'" ;;
esac
# One argument per line, for run.json.
printf '%s\n' qemu-system-x86_64 "${args[@]}" >"$share/qemu-args.txt"

# The vCPU threads' host scheduling statistics, beside QEMU (see the header).
if err=$(build_helper "$TOP/guest/host/vcpu-sampler.c" "$sampler" 2>&1); then
	# The files the guest's replay_profile creates: a plain run's, and each SETUPS
	# replay's (guest/vm/jobs/replays.sh names its folders after the snippets).
	marks=(-m replay-start -m replay-end)
	for f in "$share"/guest/setups/*.sh; do
		[ -f "$f" ] || continue
		marks+=(-m "replays/$(basename "$f" .sh)/replay-start" -m "replays/$(basename "$f" .sh)/replay-end")
	done
	"$sampler" -p "$tmp/qemu.pid" -o "$samples" -n "$CPUS" -i 5000 -d "$share" "${marks[@]}" \
		</dev/null >/dev/null 2>&1 &
	sampler_pid=$!
else
	printf 'error\tvcpu-sampler not built: %s\n' "${err##*$'\n'}" >"$samples"
fi

rc=0
timeout -k 10 "$TIMEOUT" qemu-system-x86_64 "${args[@]}" 2>"$share/qemu-stderr.log" || rc=$?
stop_sampler
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "QEMU killed after the ${TIMEOUT}s timeout" >"$share/timeout"
	printf '%s: error: guest did not power off within %ss; QEMU killed. Console tail (%s):\n' \
		"${0##*/}" "$TIMEOUT" "$console" >&2
	tail -n 20 "$console" >&2 || true
	exit 124
fi
if [ "$rc" != 0 ]; then
	cat "$share/qemu-stderr.log" >&2
	die "QEMU exited with status $rc (see $console)"
fi
