// SPDX-License-Identifier: GPL-2.0
/*
 * eas-trace-reader: read a trace-cmd trace.dat with libtracecmd and write the
 * events the analysis needs as one CSV table per question into OUTDIR.
 *
 *   eas-trace-reader TRACE.DAT OUTDIR
 *
 * Tables (first line is the header; times are trace timestamps in ns):
 *   switch.csv    ts,cpu,prev_pid,prev_state,next_pid
 *   wakeup.csv    ts,cpu,pid,target_cpu,kind        kind: waking|wakeup|new
 *   migrate.csv   ts,cpu,pid,orig_cpu,dest_cpu,reason
 *   delayed.csv   ts,cpu,pid                        wakeups of sched_delayed tasks
 *   decision.csv  ts,cpu,pid,src_cpu,dst_cpu,reason placement heuristics that
 *                 overrode mainline's CPU (src_cpu: what mainline chose)
 *   push.csv      ts,cpu,pid,src_cpu,dst_cpu,trigger,why,outcome,util,runnable,
 *                 util_est,capacity,uclamp_max      fair push decisions (eas_push):
 *                 trigger putback|tick, why none|stuck_capacity|stuck_uclamp|
 *                 overutilized_idle, outcome pushed|no_better_cpu|not_allowed|
 *                 rate_limited|raced; dst_cpu -1 when no CPU was chosen
 *   exit.csv      ts,pid
 *   pelt_se.csv   ts,pid,cpu,util
 *   pelt_cfs.csv  ts,cpu,util
 *   util_est.csv  ts,pid,cpu,util_est,util
 *   overutil.csv  ts,overutilized
 *   capacity.csv  ts,cpu,capacity,capacity_orig
 *   energy.csv    ts,pid,dst_cpu,energy
 *   idle.csv      ts,cpu,state                      4294967295 = idle exit
 *   freq.csv      ts,cpu,khz
 *   markers.csv   ts,pid,thread,kind,loop,phase     rt-app's "[N] ..." markers:
 *                 kind begin|end (of a phase step) or start (any other
 *                 "[N]" line but "executing", which is left out)
 *   print.csv     ts,cpu,pid,text                   other trace_marker writes
 *   comm.csv      pid,comm                          last name seen per pid
 *   meta.csv      key,value                         counts, first/last ts, cpus
 *
 * The migration reason comes from the eas_migrate_reason event that the
 * kernel emits just before the move, on the same CPU; a move without one is
 * "unknown" (a kernel without the event, or a path that does not report).
 * Kernels before the reasons became an enum recorded the reasons of that event
 * and of eas_placement_decision as strings; later ones record the value and
 * print it with __print_symbolic(), whose table in the event's format names
 * it here too ("reason_<N>" for a value the table lacks).  eas_push's
 * trigger, why and outcome are named the same way ("outcome_<N>"...).
 *
 * Reading records and fields through libtraceevent avoids re-parsing the text
 * of `trace-cmd report`, and lets this run faster than that command does.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <trace-cmd.h>
#include <event-parse.h>

#define COMM_LEN 16
#define REASON_LEN 24

enum table {
	T_SWITCH, T_WAKEUP, T_MIGRATE, T_DELAYED, T_DECISION, T_PUSH, T_EXIT, T_PELT_SE,
	T_PELT_CFS, T_UTIL_EST, T_OVERUTIL, T_CAPACITY, T_ENERGY, T_IDLE, T_FREQ, T_PRINT,
	T_MARKERS, T_NR
};

static const struct {
	const char *file;
	const char *header;
} tables[T_NR] = {
	[T_SWITCH]	= { "switch.csv", "ts,cpu,prev_pid,prev_state,next_pid" },
	[T_WAKEUP]	= { "wakeup.csv", "ts,cpu,pid,target_cpu,kind" },
	[T_MIGRATE]	= { "migrate.csv", "ts,cpu,pid,orig_cpu,dest_cpu,reason" },
	[T_DELAYED]	= { "delayed.csv", "ts,cpu,pid" },
	[T_DECISION]	= { "decision.csv", "ts,cpu,pid,src_cpu,dst_cpu,reason" },
	[T_PUSH]	= { "push.csv", "ts,cpu,pid,src_cpu,dst_cpu,trigger,why,outcome,util,"
			    "runnable,util_est,capacity,uclamp_max" },
	[T_EXIT]	= { "exit.csv", "ts,pid" },
	[T_PELT_SE]	= { "pelt_se.csv", "ts,pid,cpu,util" },
	[T_PELT_CFS]	= { "pelt_cfs.csv", "ts,cpu,util" },
	[T_UTIL_EST]	= { "util_est.csv", "ts,pid,cpu,util_est,util" },
	[T_OVERUTIL]	= { "overutil.csv", "ts,overutilized" },
	[T_CAPACITY]	= { "capacity.csv", "ts,cpu,capacity,capacity_orig" },
	[T_ENERGY]	= { "energy.csv", "ts,pid,dst_cpu,energy" },
	[T_IDLE]	= { "idle.csv", "ts,cpu,state" },
	[T_FREQ]	= { "freq.csv", "ts,cpu,khz" },
	[T_PRINT]	= { "print.csv", "ts,cpu,pid,text" },
	[T_MARKERS]	= { "markers.csv", "ts,pid,thread,kind,loop,phase" },
};

/* Up to this many fields are looked up once per event type. */
#define MAX_FIELDS 12
/* Up to this many of them are written by name (see struct handler). */
#define MAX_SYMBOLIC 3

struct handler;
typedef void (*handler_fn)(struct handler *h, struct tep_record *rec);

/* Names of an integer field's values, from its __print_symbolic() table. */
struct symbols {
	const char **name;		/* by value; NULL where the table has none */
	unsigned int nr;
};

/* Values beyond this are not indexed (enums of the kernel start at 0). */
#define MAX_SYMBOL 4096

struct handler {
	const char *system;
	const char *name;
	const char *fields[MAX_FIELDS];
	handler_fn fn;
	const char *arg;		/* per-handler constant, e.g. a wakeup kind */
	enum table table;		/* where on_fields() writes */
	bool rec_cpu;			/* on_fields(): the record's CPU after ts */
	const char *symbolic[MAX_SYMBOLIC];	/* fields written by name: strings
					 * or enums printed with __print_symbolic() */
	struct tep_event *event;
	struct tep_format_field *field[MAX_FIELDS];
	bool sym[MAX_FIELDS];		/* fields[i] is one of symbolic[] */
	struct symbols names[MAX_FIELDS];	/* their names, if not strings */
	unsigned long count;
};

/* What the last eas_migrate_reason said about a pid, until its move. */
struct pending_reason {
	int dst_cpu;
	char reason[REASON_LEN];
};

struct pid_info {
	char comm[COMM_LEN];
	struct pending_reason pending;
	int seen;
};

static struct tep_handle *tep;
static FILE *out[T_NR];
static struct pid_info *pids;
static size_t nr_pids;
static unsigned long long first_ts, last_ts;
static unsigned long nr_records, nr_missed;
static int max_cpu = -1;

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("eas-trace-reader: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static struct pid_info *pid_info(unsigned long long pid)
{
	if (pid >= nr_pids) {
		size_t n = nr_pids ? nr_pids : 1024;

		while (n <= pid)
			n *= 2;
		pids = realloc(pids, n * sizeof(*pids));
		if (!pids)
			die("out of memory");
		memset(pids + nr_pids, 0, (n - nr_pids) * sizeof(*pids));
		nr_pids = n;
	}
	return &pids[pid];
}

static unsigned long long num(struct handler *h, int i, struct tep_record *rec)
{
	unsigned long long v = 0;

	tep_read_number_field(h->field[i], rec->data, &v);
	return v;
}

static long long snum(struct handler *h, int i, struct tep_record *rec)
{
	unsigned long long v = num(h, i, rec);

	/* Sign-extend what the field's size holds: ints are 4 bytes. */
	if (h->field[i]->size == 4)
		return (int)v;
	return (long long)v;
}

/*
 * A string field: fixed char arrays (comm), __string() dynamic fields and the
 * flexible buf[] of ftrace's print event.  Bounded by the record's size.
 */
static const char *str(struct handler *h, int i, struct tep_record *rec,
		       char *buf, size_t len)
{
	struct tep_format_field *f = h->field[i];
	unsigned int off = f->offset, n = f->size;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		unsigned int v = (unsigned int)num(h, i, rec);

		off = v & 0xffff;
		n = v >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
	} else if (!n) {
		n = rec->size > (int)off ? rec->size - off : 0;
	}
	if (off >= (unsigned int)rec->size)
		n = 0;
	else if (off + n > (unsigned int)rec->size)
		n = rec->size - off;
	if (n >= len)
		n = len - 1;
	memcpy(buf, (const char *)rec->data + off, n);
	buf[n] = '\0';
	return buf;
}

/*
 * Field i as text: a string field as it is, an integer one by the name its
 * event prints for the value, or "<field>_<value>" when it has none.
 */
static const char *text(struct handler *h, int i, struct tep_record *rec,
			char *buf, size_t len)
{
	long long v;

	if (h->field[i]->flags & TEP_FIELD_IS_STRING)
		return str(h, i, rec, buf, len);
	v = snum(h, i, rec);
	if (v >= 0 && v < h->names[i].nr && h->names[i].name[v])
		snprintf(buf, len, "%s", h->names[i].name[v]);
	else
		snprintf(buf, len, "%s_%lld", h->field[i]->name, v);
	return buf;
}

static void remember_comm(unsigned long long pid, const char *comm)
{
	struct pid_info *p = pid_info(pid);

	memcpy(p->comm, comm, COMM_LEN - 1);
	p->comm[COMM_LEN - 1] = '\0';
	p->seen = 1;
}

static void on_switch(struct handler *h, struct tep_record *rec)
{
	char prev[COMM_LEN], next[COMM_LEN];
	unsigned long long prev_pid = num(h, 0, rec), next_pid = num(h, 3, rec);

	remember_comm(prev_pid, str(h, 1, rec, prev, sizeof(prev)));
	remember_comm(next_pid, str(h, 4, rec, next, sizeof(next)));
	fprintf(out[T_SWITCH], "%llu,%d,%llu,%llu,%llu\n", rec->ts, rec->cpu,
		prev_pid, num(h, 2, rec), next_pid);
}

static void on_wakeup(struct handler *h, struct tep_record *rec)
{
	char comm[COMM_LEN];
	unsigned long long pid = num(h, 0, rec);

	remember_comm(pid, str(h, 1, rec, comm, sizeof(comm)));
	fprintf(out[T_WAKEUP], "%llu,%d,%llu,%lld,%s\n", rec->ts, rec->cpu,
		pid, snum(h, 2, rec), h->arg);
}

static void on_migrate_reason(struct handler *h, struct tep_record *rec)
{
	struct pid_info *p = pid_info(num(h, 0, rec));

	p->pending.dst_cpu = (int)snum(h, 1, rec);
	text(h, 2, rec, p->pending.reason, sizeof(p->pending.reason));
}

static void on_migrate(struct handler *h, struct tep_record *rec)
{
	char comm[COMM_LEN];
	unsigned long long pid = num(h, 0, rec);
	long long dest = snum(h, 3, rec);
	struct pid_info *p = pid_info(pid);
	const char *reason = "unknown";

	remember_comm(pid, str(h, 1, rec, comm, sizeof(comm)));
	if (p->pending.reason[0] && p->pending.dst_cpu == dest)
		reason = p->pending.reason;
	fprintf(out[T_MIGRATE], "%llu,%d,%llu,%lld,%lld,%s\n", rec->ts,
		rec->cpu, pid, snum(h, 2, rec), dest, reason);
	p->pending.reason[0] = '\0';
}

/*
 * Tables that are the event's fields in order, after the timestamp and, for a
 * handler with rec_cpu, the CPU that recorded the event.  String fields and
 * the names of a symbolic field must be identifiers (no comma).
 */
static void on_fields(struct handler *h, struct tep_record *rec)
{
	FILE *f = out[h->table];
	char buf[REASON_LEN];
	int i;

	fprintf(f, "%llu", rec->ts);
	if (h->rec_cpu)
		fprintf(f, ",%d", rec->cpu);
	for (i = 0; i < MAX_FIELDS && h->field[i]; i++) {
		if (h->sym[i] || h->field[i]->flags & TEP_FIELD_IS_STRING)
			fprintf(f, ",%s", text(h, i, rec, buf, sizeof(buf)));
		else if (h->field[i]->flags & TEP_FIELD_IS_SIGNED)
			fprintf(f, ",%lld", snum(h, i, rec));
		else
			fprintf(f, ",%llu", num(h, i, rec));
	}
	fputc('\n', f);
}

/*
 * rt-app writes a few markers per activation of every thread; parsing them
 * here keeps a text column of that size out of the analysis.  Returns 1 if
 * the text was an rt-app thread marker (written or deliberately dropped).
 */
static int rtapp_marker(struct tep_record *rec, int pid, const char *text)
{
	int thread, loop, phase, n = 0;
	const char *kind = "start";

	if (sscanf(text, "[%d] %n", &thread, &n) != 1 || !n)
		return 0;
	loop = phase = -1;
	if (sscanf(text + n, "begins loop %d phase %d", &loop, &phase) == 2)
		kind = "begin";
	else if (sscanf(text + n, "end loop %d phase %d", &loop, &phase) == 2)
		kind = "end";
	else if (!strncmp(text + n, "executing", 9))
		return 1;
	fprintf(out[T_MARKERS], "%llu,%d,%d,%s,%d,%d\n", rec->ts, pid, thread,
		kind, loop, phase);
	return 1;
}

/* Marker text as a quoted CSV field: no newline, quotes doubled. */
static void on_print(struct handler *h, struct tep_record *rec)
{
	char text[512];
	const char *c;
	FILE *f = out[T_PRINT];
	int pid = tep_data_pid(tep, rec);

	str(h, 0, rec, text, sizeof(text));
	if (rtapp_marker(rec, pid, text))
		return;
	fprintf(f, "%llu,%d,%d,\"", rec->ts, rec->cpu, pid);
	for (c = text; *c && *c != '\n'; c++) {
		if (*c == '"')
			fputc('"', f);
		fputc(*c, f);
	}
	fputs("\"\n", f);
}

static struct handler handlers[] = {
	{ "sched", "sched_switch",
	  { "prev_pid", "prev_comm", "prev_state", "next_pid", "next_comm" },
	  on_switch },
	{ "sched", "sched_waking", { "pid", "comm", "target_cpu" }, on_wakeup,
	  "waking" },
	{ "sched", "sched_wakeup", { "pid", "comm", "target_cpu" }, on_wakeup,
	  "wakeup" },
	{ "sched", "sched_wakeup_new", { "pid", "comm", "target_cpu" }, on_wakeup,
	  "new" },
	{ "sched", "sched_migrate_task",
	  { "pid", "comm", "orig_cpu", "dest_cpu" }, on_migrate },
	{ "sched", "sched_process_exit", { "pid" }, on_fields, NULL, T_EXIT },
	{ "eas", "eas_migrate_reason", { "pid", "dst_cpu", "reason" },
	  on_migrate_reason, .symbolic = { "reason" } },
	{ "eas", "eas_wakeup_delayed", { "cpu", "pid" }, on_fields, NULL, T_DELAYED },
	{ "eas", "eas_placement_decision", { "pid", "src_cpu", "dst_cpu", "reason" },
	  on_fields, NULL, T_DECISION, true, .symbolic = { "reason" } },
	{ "eas", "eas_push",
	  { "pid", "src_cpu", "dst_cpu", "trigger", "why", "outcome", "util", "runnable",
	    "util_est", "capacity", "uclamp_max" },
	  on_fields, NULL, T_PUSH, true, .symbolic = { "trigger", "why", "outcome" } },
	{ "eas", "eas_pelt_se", { "pid", "cpu", "util" }, on_fields, NULL, T_PELT_SE },
	{ "eas", "eas_pelt_cfs", { "cpu", "util" }, on_fields, NULL, T_PELT_CFS },
	{ "eas", "eas_util_est_se", { "pid", "cpu", "util_est", "util" }, on_fields, NULL,
	  T_UTIL_EST },
	{ "eas", "eas_overutilized", { "overutilized" }, on_fields, NULL, T_OVERUTIL },
	{ "eas", "eas_cpu_capacity", { "cpu", "capacity", "capacity_orig" },
	  on_fields, NULL, T_CAPACITY },
	{ "eas", "eas_compute_energy", { "pid", "dst_cpu", "energy" }, on_fields,
	  NULL, T_ENERGY },
	{ "power", "cpu_idle", { "cpu_id", "state" }, on_fields, NULL, T_IDLE },
	{ "power", "cpu_frequency", { "cpu_id", "state" }, on_fields, NULL, T_FREQ },
	{ "ftrace", "print", { "buf" }, on_print },
};

#define NR_HANDLERS (sizeof(handlers) / sizeof(handlers[0]))

/* Whether a print argument is (a cast of) the event field called name. */
static bool is_field(struct tep_print_arg *arg, const char *name)
{
	while (arg && arg->type == TEP_PRINT_TYPE)
		arg = arg->typecast.item;
	return arg && arg->type == TEP_PRINT_FIELD && !strcmp(arg->field.name, name);
}

/* The __print_symbolic() of field name among args (and in their operands). */
static struct tep_print_arg *symbolic_arg(struct tep_print_arg *arg, const char *name)
{
	for (; arg; arg = arg->next) {
		struct tep_print_arg *found = NULL;

		switch (arg->type) {
		case TEP_PRINT_SYMBOL:
			if (is_field(arg->symbol.field, name))
				return arg;
			break;
		case TEP_PRINT_OP:
			found = symbolic_arg(arg->op.left, name);
			if (!found)
				found = symbolic_arg(arg->op.right, name);
			break;
		case TEP_PRINT_TYPE:
			found = symbolic_arg(arg->typecast.item, name);
			break;
		default:
			break;
		}
		if (found)
			return found;
	}
	return NULL;
}

/*
 * Index the names the event's print format gives the values of field i,
 * once per event type.  A value that is not a plain number (an enum the
 * kernel did not resolve) or is out of range stays unnamed.
 */
static void bind_symbols(struct handler *h, int i)
{
	struct tep_print_arg *arg = symbolic_arg(h->event->print_fmt.args, h->fields[i]);
	struct symbols *names = &h->names[i];
	struct tep_print_flag_sym *s;

	for (s = arg ? arg->symbol.symbols : NULL; s; s = s->next) {
		char *end;
		long long v = strtoll(s->value, &end, 0);

		if (end == s->value || *end || v < 0 || v >= MAX_SYMBOL)
			continue;
		if (v >= names->nr) {
			names->name = realloc(names->name, (v + 1) * sizeof(char *));
			if (!names->name)
				die("out of memory");
			memset(names->name + names->nr, 0,
			       (v + 1 - names->nr) * sizeof(char *));
			names->nr = v + 1;
		}
		if (!names->name[v])
			names->name[v] = s->str;
	}
}

/* Event id -> handler, for the ids this trace uses. */
static struct handler **by_id;
static int nr_ids;

static void bind_handlers(void)
{
	size_t i;
	int j, k;

	for (i = 0; i < NR_HANDLERS; i++) {
		struct handler *h = &handlers[i];

		h->event = tep_find_event_by_name(tep, h->system, h->name);
		if (!h->event)
			continue;
		for (j = 0; j < MAX_FIELDS && h->fields[j]; j++) {
			h->field[j] = tep_find_any_field(h->event, h->fields[j]);
			if (!h->field[j])
				die("event %s:%s has no field '%s' (unexpected kernel format)",
				    h->system, h->name, h->fields[j]);
			for (k = 0; k < MAX_SYMBOLIC && h->symbolic[k]; k++)
				h->sym[j] |= !strcmp(h->fields[j], h->symbolic[k]);
			if (h->sym[j] && !(h->field[j]->flags & TEP_FIELD_IS_STRING))
				bind_symbols(h, j);
		}
		if (h->event->id >= nr_ids) {
			int n = h->event->id + 1;

			by_id = realloc(by_id, n * sizeof(*by_id));
			if (!by_id)
				die("out of memory");
			memset(by_id + nr_ids, 0, (n - nr_ids) * sizeof(*by_id));
			nr_ids = n;
		}
		by_id[h->event->id] = h;
	}
}

static int on_record(struct tracecmd_input *handle __attribute__((unused)),
		     struct tep_record *rec,
		     int cpu __attribute__((unused)),
		     void *data __attribute__((unused)))
{
	int id = tep_data_type(tep, rec);

	if (!nr_records++)
		first_ts = rec->ts;
	last_ts = rec->ts;
	if (rec->cpu > max_cpu)
		max_cpu = rec->cpu;
	if (rec->missed_events > 0)
		nr_missed += rec->missed_events;
	if (id >= 0 && id < nr_ids && by_id[id]) {
		by_id[id]->count++;
		by_id[id]->fn(by_id[id], rec);
	}
	return 0;
}

static FILE *open_out(const char *dir, const char *file)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (!f)
		die("cannot write %s: %s", path, strerror(errno));
	/* Big buffers: the tables are written a line at a time. */
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	return f;
}

static void close_out(FILE *f, const char *what)
{
	if (ferror(f) || fclose(f))
		die("writing %s failed", what);
}

static void write_tail(const char *dir)
{
	FILE *f = open_out(dir, "comm.csv");
	size_t i;

	fputs("pid,comm\n", f);
	for (i = 0; i < nr_pids; i++) {
		const char *c;

		if (!pids[i].seen)
			continue;
		fprintf(f, "%zu,\"", i);
		for (c = pids[i].comm; *c; c++) {
			if (*c == '"')
				fputc('"', f);
			fputc(*c, f);
		}
		fputs("\"\n", f);
	}
	close_out(f, "comm.csv");

	f = open_out(dir, "meta.csv");
	fputs("key,value\n", f);
	fprintf(f, "records,%lu\nmissed_events,%lu\nfirst_ts,%llu\nlast_ts,%llu\n",
		nr_records, nr_missed, first_ts, last_ts);
	fprintf(f, "cpus,%d\n", max_cpu + 1);
	for (i = 0; i < NR_HANDLERS; i++)
		fprintf(f, "events.%s,%ld\n", handlers[i].name,
			handlers[i].event ? (long)handlers[i].count : -1L);
	close_out(f, "meta.csv");
}

int main(int argc, char **argv)
{
	struct tracecmd_input *handle;
	struct stat st;
	int t;

	if (argc != 3) {
		fprintf(stderr, "usage: eas-trace-reader TRACE.DAT OUTDIR\n");
		return 2;
	}
	if (stat(argv[1], &st))
		die("%s: %s", argv[1], strerror(errno));
	if (!st.st_size)
		die("%s: empty file", argv[1]);
	if (stat(argv[2], &st) || !S_ISDIR(st.st_mode))
		die("%s: not a directory", argv[2]);

	tracecmd_set_loglevel(TEP_LOG_CRITICAL);
	handle = tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!handle)
		die("%s: not a readable trace-cmd file (truncated or corrupt?)",
		    argv[1]);
	tep = tracecmd_get_tep(handle);
	bind_handlers();

	for (t = 0; t < T_NR; t++) {
		out[t] = open_out(argv[2], tables[t].file);
		fprintf(out[t], "%s\n", tables[t].header);
	}
	if (tracecmd_iterate_events(handle, NULL, 0, on_record, NULL) < 0)
		die("%s: reading the events failed (truncated?)", argv[1]);
	for (t = 0; t < T_NR; t++)
		close_out(out[t], tables[t].file);
	write_tail(argv[2]);
	tracecmd_close(handle);
	return 0;
}
