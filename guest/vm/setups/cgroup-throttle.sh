#!/bin/sh
# SETUP snippet: replay the profile in a cgroup (v2) whose cpu.max lets all its
# tasks together use one CPU's worth of time per 100 ms period (CFS bandwidth), so
# that CPU-bound tasks get throttled in every period: while a task's hierarchy is
# throttled, a push must leave it alone. The replay records the cgroup's cpu.stat
# (nr_throttled, throttled_usec) as cgroup-cpu.stat.
#   SETUP=guest/vm/setups/cgroup-throttle.sh make run PROFILE=... KERNEL=patched
# QUOTA_US may be set before (by an earlier snippet); default 100000.
cg=/sys/fs/cgroup
if ! grep -q " $cg cgroup2 " /proc/mounts; then
	mount -t cgroup2 none "$cg" || { echo "could not mount cgroup2 on $cg" >&2; exit 1; }
fi
echo +cpu > "$cg/cgroup.subtree_control" || { echo "no cpu controller in cgroup v2" >&2; exit 1; }
mkdir -p "$cg/throttled"
echo "${QUOTA_US:-100000} 100000" > "$cg/throttled/cpu.max" ||
	{ echo "could not write cpu.max (CONFIG_CFS_BANDWIDTH?)" >&2; exit 1; }
# shellcheck disable=SC2034
RTAPP_CGROUP=$cg/throttled
