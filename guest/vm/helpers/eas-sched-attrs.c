// SPDX-License-Identifier: GPL-2.0
/*
 * eas-sched-attrs.so: give rt-app threads the uclamp limits and EEVDF slice
 * their profile asks for, before their first event, and change their uclamp
 * limits later while they run when the profile says so.
 *
 * rt-app 1.0 has no keys for util_min/util_max or a custom slice. Loaded with
 * LD_PRELOAD, this library wraps pthread_setname_np(): rt-app names each
 * thread first thing in the thread itself, before its first event, so the
 * attributes are applied synchronously at a point no event can precede.
 *
 *   EAS_SCHED_ATTRS=FILE   lines "NAME UTIL_MIN UTIL_MAX SLICE_US AFTER_MS
 *                          NEW_UTIL_MIN NEW_UTIL_MAX", -1 = unset (the last
 *                          three may be left out: no change)
 *   EAS_SCHED_ATTRS_MARKER=FILE   append the marker lines to FILE instead of
 *                          the trace marker (tests on the host)
 *
 * One sched_setattr() call sets everything, without SCHED_FLAG_KEEP_PARAMS:
 * with it the kernel copies the current slice into sched_runtime and a
 * uclamp-only call would turn the default slice into a custom one. A task
 * without slice_us gets sched_runtime 0, the default slice. The result is read
 * back with sched_getattr(); a mismatch or a failure stops rt-app. Each thread
 * writes what it got to the trace marker ("eas-sched-attrs: ...").
 *
 * With AFTER_MS >= 0 (the profile's "uclamp_change"), the thread also starts a
 * helper thread, named "eas-attrs", that sleeps AFTER_MS and then sets the
 * new clamps on it with the same call (the unchanged clamp and the slice as
 * before), reads them back and writes "eas-sched-attrs: pid=TID util_min=...
 * util_max=... slice_ns=..." to the trace marker right after the change took
 * effect, so that the trace times the scheduler's reaction from it. A thread
 * that ended before its change is left alone ("... pid=TID gone").
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
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
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
	/* uclamp_change: after_ms < 0 for none */
	long after_ms;
	int new_util_min, new_util_max;
};

/* What a change helper needs: the thread and the attributes it gets then. */
struct change {
	pid_t tid;
	long after_ms;
	struct wanted then;
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
		int n = sscanf(line, "%15s %d %d %ld %ld %d %d", w->name,
			       &w->util_min, &w->util_max, &w->slice_us,
			       &w->after_ms, &w->new_util_min, &w->new_util_max);

		if (n == 4)
			w->after_ms = -1;
		else if (n != 7)
			fail(path, "malformed line");
		found = !strcmp(w->name, name);
	}
	fclose(f);
	return found;
}

static void marker(const char *text)
{
	const char *to = getenv("EAS_SCHED_ATTRS_MARKER");
	int fd = to ? open(to, O_WRONLY | O_APPEND | O_CREAT, 0644) :
		      open("/sys/kernel/tracing/trace_marker", O_WRONLY);

	if (fd < 0 && !to)
		fd = open("/sys/kernel/debug/tracing/trace_marker", O_WRONLY);
	if (fd < 0)
		return;
	/* One write per line: each is one trace event. */
	if (write(fd, text, strlen(text)) < 0 || (to && write(fd, "\n", 1) < 0))
		perror("eas-sched-attrs: trace_marker");
	close(fd);
}

/*
 * Set @w on thread @tid (0: the calling one) and read it back. Returns 0, or
 * ESRCH when the thread no longer exists; any other failure stops rt-app.
 */
static int apply(pid_t tid, const struct wanted *w)
{
	struct sched_attr attr = { .size = sizeof(attr) }, got = { 0 };
	char text[160], who[32] = "";

	errno = 0;
	attr.sched_policy = sched_getscheduler(tid);
	if (errno == ESRCH)
		return ESRCH;
	if (attr.sched_policy != SCHED_OTHER && attr.sched_policy != SCHED_BATCH)
		fail(w->name, "uclamp/slice keys need a SCHED_OTHER or SCHED_BATCH task");
	errno = 0;
	attr.sched_nice = getpriority(PRIO_PROCESS, tid);
	if (errno)
		return errno == ESRCH ? ESRCH : (fail(w->name, "getpriority failed"), 0);
	if (w->util_min >= 0) {
		attr.sched_flags |= SCHED_FLAG_UTIL_CLAMP_MIN;
		attr.sched_util_min = w->util_min;
	}
	if (w->util_max >= 0) {
		attr.sched_flags |= SCHED_FLAG_UTIL_CLAMP_MAX;
		attr.sched_util_max = w->util_max;
	}
	attr.sched_runtime = w->slice_us > 0 ? w->slice_us * 1000ULL : 0;
	if (syscall(SYS_sched_setattr, tid, &attr, 0))
		return errno == ESRCH ? ESRCH : (fail(w->name, strerror(errno)), 0);
	if (syscall(SYS_sched_getattr, tid, &got, sizeof(got), 0))
		return errno == ESRCH ? ESRCH : (fail(w->name, strerror(errno)), 0);
	if ((w->util_min >= 0 && got.sched_util_min != attr.sched_util_min) ||
	    (w->util_max >= 0 && got.sched_util_max != attr.sched_util_max) ||
	    (w->slice_us > 0 && got.sched_runtime != attr.sched_runtime))
		fail(w->name, "sched_getattr does not read back what was set");
	if (tid)
		snprintf(who, sizeof(who), "pid=%d ", (int)tid);
	/* sched_runtime reads back the task's se.slice, custom or default. */
	snprintf(text, sizeof(text),
		 "eas-sched-attrs: %sutil_min=%u util_max=%u slice_ns=%llu", who,
		 got.sched_util_min, got.sched_util_max,
		 (unsigned long long)got.sched_runtime);
	marker(text);
	return 0;
}

/* The helper thread of a uclamp_change: sleep, then change the clamps. */
static void *change_later(void *arg)
{
	struct change *c = arg;
	struct timespec ts = { c->after_ms / 1000, (c->after_ms % 1000) * 1000000L };
	char text[64];

	prctl(PR_SET_NAME, "eas-attrs");
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	if (apply(c->tid, &c->then) == ESRCH) {
		snprintf(text, sizeof(text), "eas-sched-attrs: pid=%d gone", (int)c->tid);
		marker(text);
	}
	free(c);
	return NULL;
}

/* Start the helper of @w's uclamp_change for the calling thread. */
static void change_start(const struct wanted *w)
{
	struct change *c = malloc(sizeof(*c));
	pthread_attr_t pa;
	pthread_t t;

	if (!c)
		fail(w->name, "out of memory");
	c->tid = (pid_t)syscall(SYS_gettid);
	c->after_ms = w->after_ms;
	/* The slice and any clamp the change leaves alone stay as they are. */
	c->then = *w;
	if (w->new_util_min >= 0)
		c->then.util_min = w->new_util_min;
	if (w->new_util_max >= 0)
		c->then.util_max = w->new_util_max;
	if (pthread_attr_init(&pa) ||
	    pthread_attr_setdetachstate(&pa, PTHREAD_CREATE_DETACHED) ||
	    pthread_create(&t, &pa, change_later, c))
		fail(w->name, "cannot start the uclamp_change thread");
	pthread_attr_destroy(&pa);
}

int pthread_setname_np(pthread_t thread, const char *name)
{
	static int (*real)(pthread_t, const char *);
	struct wanted w;
	int ret;

	if (!real)
		real = (int (*)(pthread_t, const char *))dlsym(RTLD_NEXT, "pthread_setname_np");
	ret = real(thread, name);
	if (pthread_equal(thread, pthread_self()) && lookup(name, &w)) {
		apply(0, &w);
		if (w.after_ms >= 0)
			change_start(&w);
	}
	return ret;
}
