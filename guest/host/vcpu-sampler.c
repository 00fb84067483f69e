// SPDX-License-Identifier: GPL-2.0
/*
 * vcpu-sampler: the host's scheduling statistics of each vCPU thread of a QEMU, every
 * few ms, for as long as that QEMU runs (guest/host/qemu-run.sh starts it beside
 * QEMU; the analysis turns it into each vCPU's steal, analysis/easan/fidelity.py).
 *
 *   vcpu-sampler -p PIDFILE -o OUT [-n VCPUS] [-i PERIOD_US] [-d DIR] [-m NAME]...
 *
 * PIDFILE: QEMU's -pidfile, waited for (up to 60 s). The vCPU threads are those QEMU
 * names "CPU N/TCG" (or "CPU N/KVM") under -name ...,debug-threads=on, found under
 * /proc/PID/task/<tid>/comm (up to 30 s, until VCPUS of them are there). Every
 * PERIOD_US (default 5000) it reads /proc/PID/task/<tid>/schedstat of each: the time
 * the thread ran and the time it waited on a runqueue (runnable, not running), in ns.
 * Each NAME (-m, relative to DIR) is a file the guest creates in the share; the
 * sample that first sees it writes a mark line. It stops by itself when QEMU's
 * vCPU threads are gone, when its parent (the runner) is gone, or on SIGTERM.
 *
 * OUT, tab-separated, one record a line (analysis/contract/run_folder.py, the
 * contract, says the same):
 *   # ...                            a comment
 *   qemu PID PERIOD_NS                before the vCPU lines
 *   vcpu N TID                        one per vCPU thread, by N
 *   sample T_NS RUN_NS WAIT_NS ...    a pair per vCPU, in the order of the vcpu lines
 *   mark T_NS NAME                    NAME appeared in the period before T_NS
 *   end T_NS REASON                   the sampler stopped (qemu exited, stopped...)
 *   error TEXT                        nothing (more) could be sampled, and why
 * T_NS is the host's CLOCK_MONOTONIC. Sampling never fails the run: whatever goes
 * wrong (no schedstat in the host kernel, no vCPU thread) is one error line, exit 0.
 * Only /proc is read; nothing of the host is written but OUT.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define MAX_VCPUS 256
#define MAX_MARKS 64
#define PID_WAIT_NS (60LL * 1000000000)
#define THREAD_WAIT_NS (30LL * 1000000000)
#define POLL_NS (10LL * 1000000)
/* Written out about once a second, and at each mark and at the end. */
#define FLUSH_EVERY_NS 1000000000LL

struct vcpu {
	int index;
	pid_t tid;
	int fd;
};

static volatile sig_atomic_t stop;
static FILE *out;
static pid_t parent;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void nap(long long ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	nanosleep(&ts, NULL);
}

/* Whether to give up: a signal, or the runner that started us is gone. */
static int must_stop(void)
{
	return stop || getppid() != parent;
}

/* The one error line, then exit 0: sampling never fails the run. */
static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("error\t", out);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
	fclose(out);
	exit(0);
}

static pid_t read_pidfile(const char *path)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return (pid_t)strtol(buf, NULL, 10);
}

/* Whether the process is gone or a zombie (its threads gone). */
static int process_gone(pid_t pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/*
 * Whether pid is gone or goes within half a second: a QEMU being killed loses
 * its threads one by one, so a vCPU thread may be gone before the process
 * reads as exited (a timeout's kill made the sampler report a lost vCPU).
 */
static int process_going(pid_t pid)
{
	int i;

	for (i = 0; i < 50; i++) {
		if (process_gone(pid))
			return 1;
		nap(10000000);
	}
	return 0;
}

/* The vCPU threads of pid, by index; their count. */
static int find_vcpus(pid_t pid, struct vcpu *v)
{
	char path[96], comm[32];
	struct dirent *e;
	int n = 0, i, index;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)) && n < MAX_VCPUS) {
		ssize_t len;
		pid_t tid;
		int fd;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		tid = (pid_t)atoi(e->d_name);
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		len = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		if (len <= 0)
			continue;
		comm[len] = 0;
		if (sscanf(comm, "CPU %d/", &index) != 1 || index < 0)
			continue;
		v[n].index = index;
		v[n].tid = tid;
		v[n].fd = -1;
		n++;
	}
	closedir(d);
	/* By index (insertion sort: a handful). */
	for (i = 1; i < n; i++) {
		struct vcpu x = v[i];
		int j = i - 1;

		while (j >= 0 && v[j].index > x.index) {
			v[j + 1] = v[j];
			j--;
		}
		v[j + 1] = x;
	}
	return n;
}

/* One thread's run and wait times (ns); 0 on success. */
static int read_schedstat(int fd, unsigned long long *run, unsigned long long *wait)
{
	char buf[128], *end;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = 0;
	*run = strtoull(buf, &end, 10);
	if (end == buf || *end != ' ')
		return -1;
	*wait = strtoull(end + 1, &end, 10);
	return *end == ' ' || *end == '\n' ? 0 : -1;
}

static void usage(void)
{
	fprintf(stderr, "usage: vcpu-sampler -p PIDFILE -o OUT [-n VCPUS] [-i PERIOD_US] "
		"[-d DIR] [-m NAME]...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *pidfile = NULL, *outfile = NULL, *dir = ".";
	const char *marks[MAX_MARKS];
	static char mark_path[MAX_MARKS][8192];
	int seen[MAX_MARKS] = { 0 };
	struct vcpu v[MAX_VCPUS];
	long long period_ns = 5000000, t, next, start, last_flush;
	int nmarks = 0, want = 0, nv = 0, found, i, opt;
	struct sigaction sa;
	struct timespec ts;
	pid_t pid = 0;

	while ((opt = getopt(argc, argv, "p:o:n:i:d:m:")) != -1) {
		switch (opt) {
		case 'p': pidfile = optarg; break;
		case 'o': outfile = optarg; break;
		case 'n': want = atoi(optarg); break;
		case 'i': period_ns = atoll(optarg) * 1000; break;
		case 'd': dir = optarg; break;
		case 'm':
			if (nmarks == MAX_MARKS)
				usage();
			marks[nmarks++] = optarg;
			break;
		default: usage();
		}
	}
	if (!pidfile || !outfile || optind != argc || want < 0 || want > MAX_VCPUS ||
	    period_ns < 100000)
		usage();
	out = fopen(outfile, "w");
	if (!out) {
		perror(outfile);
		return 1;
	}
	parent = getppid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	for (i = 0; i < nmarks; i++)
		snprintf(mark_path[i], sizeof(mark_path[i]), "%s/%s", dir, marks[i]);
	fputs("# host-vcpu.tsv: QEMU's vCPU threads as the host scheduled them "
	      "(guest/host/vcpu-sampler.c; format in analysis/contract/run_folder.py)\n", out);
	fflush(out);

	start = mono_ns();
	while (!(pid = read_pidfile(pidfile)) || process_gone(pid)) {
		if (must_stop())
			fail("stopped before QEMU's pid appeared in %s", pidfile);
		if (mono_ns() - start > PID_WAIT_NS)
			fail("no running QEMU pid in %s after %lld s", pidfile,
			     PID_WAIT_NS / 1000000000);
		nap(POLL_NS);
	}
	/* vCPU threads are created before the guest starts: wait until all are named. */
	start = mono_ns();
	for (;;) {
		found = find_vcpus(pid, v);
		if (want ? found >= want : found > 0 && found == nv)
			break;
		nv = found;
		if (must_stop() || process_gone(pid) || mono_ns() - start > THREAD_WAIT_NS)
			break;
		nap(want ? POLL_NS : 10 * POLL_NS);
	}
	nv = found;
	if (!nv)
		fail("no vCPU thread named 'CPU N/...' in QEMU pid %d (QEMU started without "
		     "-name ...,debug-threads=on?)", (int)pid);
	fprintf(out, "qemu\t%d\t%lld\n", (int)pid, period_ns);
	if (want && nv != want)
		fprintf(out, "# found %d of the %d vCPU threads\n", nv, want);
	for (i = 0; i < nv; i++) {
		char path[96];

		fprintf(out, "vcpu\t%d\t%d\n", v[i].index, (int)v[i].tid);
		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid, (int)v[i].tid);
		v[i].fd = open(path, O_RDONLY | O_CLOEXEC);
		if (v[i].fd < 0)
			fail("cannot read %s: %s (a host kernel without CONFIG_SCHED_INFO?)", path,
			     strerror(errno));
	}

	clock_gettime(CLOCK_MONOTONIC, &ts);
	next = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	last_flush = next;
	for (;;) {
		const char *why = NULL;

		if (must_stop()) {
			why = stop ? "stopped" : "runner gone";
		} else {
			char line[64 + MAX_VCPUS * 42];
			int len;

			t = mono_ns();
			len = snprintf(line, sizeof(line), "sample\t%lld", t);
			for (i = 0; i < nv; i++) {
				unsigned long long run, wait;

				if (read_schedstat(v[i].fd, &run, &wait)) {
					why = process_going(pid) ? "qemu exited" :
						"a vCPU thread is gone";
					break;
				}
				len += snprintf(line + len, sizeof(line) - len, "\t%llu\t%llu", run, wait);
			}
			/* A sample cut short is not written. */
			if (!why) {
				fputs(line, out);
				fputc('\n', out);
				for (i = 0; i < nmarks; i++) {
					struct stat st;

					if (!seen[i] && !stat(mark_path[i], &st)) {
						seen[i] = 1;
						fprintf(out, "mark\t%lld\t%s\n", t, marks[i]);
						fflush(out);
					}
				}
				if (t - last_flush >= FLUSH_EVERY_NS) {
					fflush(out);
					last_flush = t;
				}
			}
		}
		if (why) {
			fprintf(out, "end\t%lld\t%s\n", mono_ns(), why);
			break;
		}
		/* A fixed grid; after a late wakeup, start again from now. */
		next += period_ns;
		t = mono_ns();
		if (next <= t)
			next = t + period_ns;
		ts.tv_sec = next / 1000000000;
		ts.tv_nsec = next % 1000000000;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !stop)
			;
	}
	fclose(out);
	return 0;
}
