// SPDX-License-Identifier: GPL-2.0
/*
 * eas-sched-attrs.so: give rt-app threads the uclamp limits and EEVDF slice
 * their profile asks for, before their first event.
 *
 * rt-app 1.0 has no keys for util_min/util_max or a custom slice. Loaded with
 * LD_PRELOAD, this library wraps pthread_setname_np(): rt-app names each
 * thread first thing in the thread itself, before its first event, so the
 * attributes are applied synchronously at a point no event can precede.
 *
 *   EAS_SCHED_ATTRS=FILE   lines "NAME UTIL_MIN UTIL_MAX SLICE_US", -1 = unset
 *
 * One sched_setattr() call sets everything, without SCHED_FLAG_KEEP_PARAMS:
 * with it the kernel copies the current slice into sched_runtime and a
 * uclamp-only call would turn the default slice into a custom one. A task
 * without slice_us gets sched_runtime 0, the default slice. The result is read
 * back with sched_getattr(); a mismatch or a failure stops rt-app. Each thread
 * writes what it got to the trace marker ("eas-sched-attrs: ...").
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NAME_LEN 16

/* uapi linux/sched/types.h clashes with glibc's sched.h; its layout (v1, 56 bytes): */
struct sched_attr {
	__u32 size;
	__u32 sched_policy;
	__u64 sched_flags;
	__s32 sched_nice;
	__u32 sched_priority;
	__u64 sched_runtime;
	__u64 sched_deadline;
	__u64 sched_period;
	__u32 sched_util_min;
	__u32 sched_util_max;
};

#define SCHED_FLAG_UTIL_CLAMP_MIN	0x20
#define SCHED_FLAG_UTIL_CLAMP_MAX	0x40

struct wanted {
	char name[NAME_LEN];
	int util_min, util_max;
	long slice_us;
};

static void fail(const char *name, const char *what)
{
	fprintf(stderr, "eas-sched-attrs: %s: %s\n", name, what);
	_exit(3);
}

/* The line of FILE for NAME; 0 if there is none. */
static int lookup(const char *name, struct wanted *w)
{
	const char *path = getenv("EAS_SCHED_ATTRS");
	char line[128];
	FILE *f;
	int found = 0;

	if (!path)
		return 0;
	f = fopen(path, "r");
	if (!f)
		fail(path, strerror(errno));
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%15s %d %d %ld", w->name, &w->util_min,
			   &w->util_max, &w->slice_us) != 4)
			fail(path, "malformed line");
		found = !strcmp(w->name, name);
	}
	fclose(f);
	return found;
}

static void marker(const char *text)
{
	int fd = open("/sys/kernel/tracing/trace_marker", O_WRONLY);

	if (fd < 0)
		fd = open("/sys/kernel/debug/tracing/trace_marker", O_WRONLY);
	if (fd < 0)
		return;
	if (write(fd, text, strlen(text)) < 0)
		perror("eas-sched-attrs: trace_marker");
	close(fd);
}

static void apply(const struct wanted *w)
{
	struct sched_attr attr = { .size = sizeof(attr) }, got = { 0 };
	char text[160];

	attr.sched_policy = sched_getscheduler(0);
	if (attr.sched_policy != SCHED_OTHER && attr.sched_policy != SCHED_BATCH)
		fail(w->name, "uclamp/slice keys need a SCHED_OTHER or SCHED_BATCH task");
	errno = 0;
	attr.sched_nice = getpriority(PRIO_PROCESS, 0);
	if (errno)
		fail(w->name, "getpriority failed");
	if (w->util_min >= 0) {
		attr.sched_flags |= SCHED_FLAG_UTIL_CLAMP_MIN;
		attr.sched_util_min = w->util_min;
	}
	if (w->util_max >= 0) {
		attr.sched_flags |= SCHED_FLAG_UTIL_CLAMP_MAX;
		attr.sched_util_max = w->util_max;
	}
	attr.sched_runtime = w->slice_us > 0 ? w->slice_us * 1000ULL : 0;
	if (syscall(SYS_sched_setattr, 0, &attr, 0))
		fail(w->name, strerror(errno));
	if (syscall(SYS_sched_getattr, 0, &got, sizeof(got), 0))
		fail(w->name, strerror(errno));
	if ((w->util_min >= 0 && got.sched_util_min != attr.sched_util_min) ||
	    (w->util_max >= 0 && got.sched_util_max != attr.sched_util_max) ||
	    (w->slice_us > 0 && got.sched_runtime != attr.sched_runtime))
		fail(w->name, "sched_getattr does not read back what was set");
	/* sched_runtime reads back the task's se.slice, custom or default. */
	snprintf(text, sizeof(text),
		 "eas-sched-attrs: util_min=%u util_max=%u slice_ns=%llu",
		 got.sched_util_min, got.sched_util_max,
		 (unsigned long long)got.sched_runtime);
	marker(text);
}

int pthread_setname_np(pthread_t thread, const char *name)
{
	static int (*real)(pthread_t, const char *);
	struct wanted w;
	int ret;

	if (!real)
		real = (int (*)(pthread_t, const char *))dlsym(RTLD_NEXT, "pthread_setname_np");
	ret = real(thread, name);
	if (pthread_equal(thread, pthread_self()) && lookup(name, &w))
		apply(&w);
	return ret;
}
