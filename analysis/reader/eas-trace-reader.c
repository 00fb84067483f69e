// SPDX-License-Identifier: GPL-2.0
/*
 * eas-trace-reader: read a trace-cmd trace.dat with libtracecmd and write the
 * events the analysis needs as one table per question into OUTDIR.
 *
 *   eas-trace-reader [--binary] TRACE.DAT OUTDIR
 *   eas-trace-reader --schema
 *
 * The tables and their columns are declared once, in tables[] below; --schema
 * prints them as JSON, and the analysis (analysis/easan/tables.py) and the
 * tests' synthetic runs take them from there.  Times are trace timestamps in
 * ns.  Each table is written as NAME.csv (first line the header), or with
 * --binary as NAME.npy, a NumPy array of one int64 per column (named in the
 * file's dtype), plus strings.bin, the NUL-terminated strings that the string
 * columns index, and schema.json, the --schema text.
 *
 * Events are dispatched by libtracecmd (tracecmd_follow_event()), and lost
 * events counted from its tracecmd_follow_missed_events() callback.
 *
 * The migration reason comes from the eas_migrate_reason event that the
 * kernel emits just before the move, on the same CPU; a move without one is
 * "unknown" (a kernel without the event, or a path that does not report).
 * Kernels before the reasons became an enum recorded the reasons of that event
 * and of eas_placement_decision as strings; later ones record the value and
 * print it with __print_symbolic(), whose table in the event's format names
 * it here too ("reason_<N>" for a value the table lacks).  eas_push's
 * trigger, why and outcome are named the same way ("outcome_<N>"...).  The
 * symbols table lists every name of those tables, so that the analysis counts
 * a reason that never occurred as 0 without a list of its own.
 *
 * A field that a kernel gained later (eas_push's cost_ns) is optional in its
 * handler: a trace whose format lacks it still has the column, -1 in every
 * row; any other missing field means an unexpected format and is an error.
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

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "the binary tables are written as little-endian int64");

#define COMM_LEN 16
#define REASON_LEN 24

/*
 * A column holds an integer, a name (an identifier such as a migration
 * reason: bare in CSV) or free text (a comm, a trace_marker write: quoted in
 * CSV).  Every value is an int64 in the binary tables, a string an index into
 * strings.bin.
 */
enum col_type { COL_INT, COL_NAME, COL_TEXT };

#define INT(n)	{ .name = (n), .type = COL_INT }
#define NAME(n)	{ .name = (n), .type = COL_NAME }
#define TEXT(n)	{ .name = (n), .type = COL_TEXT }

static const char *const type_names[] = {
	[COL_INT] = "int", [COL_NAME] = "name", [COL_TEXT] = "text",
};

struct column {
	const char *name;
	enum col_type type;
};

#define MAX_COLUMNS 14

struct table {
	const char *name;
	const char *doc;
	struct column col[MAX_COLUMNS];
	/* Output state. */
	int nr_cols;
	FILE *f;
	unsigned long rows;
	int next;			/* the column the next value fills */
	long long row[MAX_COLUMNS];	/* --binary: the row being filled */
	long header_len;		/* --binary: bytes of the .npy header */
};

enum table_id {
	T_SWITCH, T_WAKEUP, T_MIGRATE, T_DELAYED, T_DECISION, T_PUSH, T_EXIT, T_PELT_SE,
	T_PELT_CFS, T_UTIL_EST, T_OVERUTIL, T_OVERUTIL_RECHECK, T_HRTICK_SHORTER, T_PARITY_CUT,
	T_CAPACITY, T_ENERGY, T_IDLE, T_FREQ, T_PRINT, T_MARKERS, T_COMM, T_SYMBOLS, T_META, T_NR
};

static struct table tables[T_NR] = {
	[T_SWITCH] = { .name = "switch", .doc = "sched_switch: next_pid runs on cpu from ts",
		.col = { INT("ts"), INT("cpu"), INT("prev_pid"), INT("prev_state"),
			 INT("next_pid") } },
	[T_WAKEUP] = { .name = "wakeup",
		.doc = "sched_waking, sched_wakeup, sched_wakeup_new (kind waking|wakeup|new)",
		.col = { INT("ts"), INT("cpu"), INT("pid"), INT("target_cpu"), NAME("kind") } },
	[T_MIGRATE] = { .name = "migrate",
		.doc = "sched_migrate_task with the reason of the eas_migrate_reason that "
		       "announced it, else unknown",
		.col = { INT("ts"), INT("cpu"), INT("pid"), INT("orig_cpu"), INT("dest_cpu"),
			 NAME("reason") } },
	[T_DELAYED] = { .name = "delayed",
		.doc = "eas_wakeup_delayed: wakeups of sched_delayed tasks",
		.col = { INT("ts"), INT("cpu"), INT("pid") } },
	[T_DECISION] = { .name = "decision",
		.doc = "eas_placement_decision: a placement heuristic overrode mainline's CPU "
		       "(src_cpu: what mainline chose)",
		.col = { INT("ts"), INT("cpu"), INT("pid"), INT("src_cpu"), INT("dst_cpu"),
			 NAME("reason") } },
	[T_PUSH] = { .name = "push",
		.doc = "eas_push: fair push decisions; trigger putback|tick|setattr, why none|"
		       "stuck_capacity|stuck_uclamp|overutilized_idle (older kernels), "
		       "outcome pushed|no_better_cpu|not_allowed|rate_limited (older "
		       "kernels)|raced; dst_cpu -1 when no CPU "
		       "was chosen; cost_ns: the decision's own time (lock hand-over, energy "
		       "search, checks; not the move) on the sched clock of the deciding CPU "
		       "(cpu), -1 when the trace's kernel does not record it",
		.col = { INT("ts"), INT("cpu"), INT("pid"), INT("src_cpu"), INT("dst_cpu"),
			 NAME("trigger"), NAME("why"), NAME("outcome"), INT("util"),
			 INT("runnable"), INT("util_est"), INT("capacity"), INT("uclamp_max"),
			 INT("cost_ns") } },
	[T_EXIT] = { .name = "exit", .doc = "sched_process_exit",
		.col = { INT("ts"), INT("pid") } },
	[T_PELT_SE] = { .name = "pelt_se", .doc = "eas_pelt_se: a task's PELT util",
		.col = { INT("ts"), INT("pid"), INT("cpu"), INT("util") } },
	[T_PELT_CFS] = { .name = "pelt_cfs", .doc = "eas_pelt_cfs: a CPU's root CFS util",
		.col = { INT("ts"), INT("cpu"), INT("util") } },
	[T_UTIL_EST] = { .name = "util_est", .doc = "eas_util_est_se: a task's util_est",
		.col = { INT("ts"), INT("pid"), INT("cpu"), INT("util_est"), INT("util") } },
	[T_OVERUTIL] = { .name = "overutil", .doc = "eas_overutilized",
		.col = { INT("ts"), INT("overutilized") } },
	[T_OVERUTIL_RECHECK] = { .name = "overutil_recheck",
		.doc = "eas_overutilized_recheck: a lowered uclamp_max of pid had the "
		       "overutilized root domain looked at again; busy_cpu: a CPU still "
		       "overutilized, or -1 (the state ended)",
		.col = { INT("ts"), INT("cpu"), INT("pid"), INT("busy_cpu") } },
	[T_HRTICK_SHORTER] = { .name = "hrtick_shorter",
		.doc = "eas_hrtick_shorter: the hrtick armed on cpu to end, delay ns later, "
		       "the slice (ns) of an entity of pid, running there, as one of the "
		       "shorter slice min_slice waits beside it",
		.col = { INT("ts"), INT("cpu"), INT("pid"), INT("slice"), INT("delay"),
			 INT("min_slice") } },
	[T_PARITY_CUT] = { .name = "parity_cut",
		.doc = "eas_parity_cut: PARITY_MIN_SLICE ended, on cpu, the protected slice "
		       "(ns) of an entity of pid, running there, ran ns after its pick, as "
		       "one of the shorter slice min_slice waits beside it",
		.col = { INT("ts"), INT("cpu"), INT("pid"), INT("slice"), INT("ran"),
			 INT("min_slice") } },
	[T_CAPACITY] = { .name = "capacity", .doc = "eas_cpu_capacity",
		.col = { INT("ts"), INT("cpu"), INT("capacity"), INT("capacity_orig") } },
	[T_ENERGY] = { .name = "energy", .doc = "eas_compute_energy: one EAS estimate",
		.col = { INT("ts"), INT("pid"), INT("dst_cpu"), INT("energy") } },
	[T_IDLE] = { .name = "idle", .doc = "cpu_idle (state 4294967295: idle exit)",
		.col = { INT("ts"), INT("cpu"), INT("state") } },
	[T_FREQ] = { .name = "freq", .doc = "cpu_frequency",
		.col = { INT("ts"), INT("cpu"), INT("khz") } },
	[T_PRINT] = { .name = "print",
		.doc = "trace_marker writes but rt-app's thread markers, up to a newline",
		.col = { INT("ts"), INT("cpu"), INT("pid"), TEXT("text") } },
	[T_MARKERS] = { .name = "markers",
		.doc = "rt-app's [N] markers: kind begin|end (of a phase step) or start (any "
		       "other [N] line but executing, which is left out)",
		.col = { INT("ts"), INT("pid"), INT("thread"), NAME("kind"), INT("loop"),
			 INT("phase") } },
	[T_COMM] = { .name = "comm", .doc = "the last name seen per pid",
		.col = { INT("pid"), TEXT("comm") } },
	[T_SYMBOLS] = { .name = "symbols",
		.doc = "the names the trace's formats give the values of an event's "
		       "__print_symbolic() field (event, field, value, name), every name "
		       "of the kernel's enum whether or not it occurred",
		.col = { NAME("event"), NAME("field"), INT("value"), NAME("name") } },
	[T_META] = { .name = "meta",
		.doc = "records, missed_events (and missed_unknown: records after a loss of "
		       "unknown size), first_ts, last_ts, cpus, events.NAME (-1: not in the "
		       "trace's kernel)",
		.col = { NAME("key"), INT("value") } },
};

/* Up to this many fields are looked up once per event type. */
#define MAX_FIELDS 12
/* Up to this many of them are written by name (see struct handler). */
#define MAX_SYMBOLIC 3
/* Up to this many of them may be absent from the trace's format. */
#define MAX_OPTIONAL 2

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
	enum table_id table;		/* where on_fields() writes */
	bool rec_cpu;			/* on_fields(): the record's CPU after ts */
	const char *symbolic[MAX_SYMBOLIC];	/* fields written by name: strings
					 * or enums printed with __print_symbolic() */
	const char *optional[MAX_OPTIONAL];	/* on_fields() fields an older
					 * kernel's format lacks: -1 in their
					 * (integer) column then */
	struct tep_event *event;
	struct tep_format_field *field[MAX_FIELDS];	/* NULL: an absent optional one */
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
static struct pid_info *pids;
static size_t nr_pids;
static unsigned long long first_ts, last_ts;
static unsigned long nr_records, nr_missed, nr_missed_unknown;
static int max_cpu = -1;
static bool binary;

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

/*
 * Output: each table is filled a value at a time in its declared column
 * order (put_int(), put_str()); the last column ends the row.
 */

/* --binary: strings are interned; a string column holds the string's index. */
static struct {
	FILE *f;
	char **str;
	size_t nr;
	size_t *slot;			/* open addressing: index + 1, 0 if free */
	size_t nr_slots;
} strtab;

static size_t hash(const char *s)
{
	size_t h = 14695981039346656037UL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211UL;
	return h;
}

static void strtab_grow(void)
{
	size_t n = strtab.nr_slots ? 2 * strtab.nr_slots : 1024, i;
	size_t *slot = calloc(n, sizeof(*slot));

	if (!slot)
		die("out of memory");
	for (i = 0; i < strtab.nr; i++) {
		size_t j = hash(strtab.str[i]) & (n - 1);

		while (slot[j])
			j = (j + 1) & (n - 1);
		slot[j] = i + 1;
	}
	free(strtab.slot);
	strtab.slot = slot;
	strtab.nr_slots = n;
	strtab.str = realloc(strtab.str, n / 2 * sizeof(*strtab.str));
	if (!strtab.str)
		die("out of memory");
}

static long long intern(const char *s)
{
	size_t j;

	if (2 * (strtab.nr + 1) > strtab.nr_slots)
		strtab_grow();
	for (j = hash(s) & (strtab.nr_slots - 1); strtab.slot[j];
	     j = (j + 1) & (strtab.nr_slots - 1))
		if (!strcmp(strtab.str[strtab.slot[j] - 1], s))
			return strtab.slot[j] - 1;
	strtab.str[strtab.nr] = strdup(s);
	if (!strtab.str[strtab.nr])
		die("out of memory");
	fwrite(s, 1, strlen(s) + 1, strtab.f);
	strtab.slot[j] = ++strtab.nr;
	return strtab.slot[j] - 1;
}

/*
 * The .npy header (format 1.0): the dtype names the columns, one '<i8' each;
 * padded so that the data starts at a multiple of 64 bytes.  Written first
 * with room for any row count, then again with the count.
 */
static void npy_header(struct table *t, unsigned long rows)
{
	char dict[1024];
	int n = 0, i;

	n += snprintf(dict + n, sizeof(dict) - n, "{'descr': [");
	for (i = 0; i < t->nr_cols; i++)
		n += snprintf(dict + n, sizeof(dict) - n, "('%s', '<i8'), ", t->col[i].name);
	n += snprintf(dict + n, sizeof(dict) - n,
		      "], 'fortran_order': False, 'shape': (%lu,), }", rows);
	if (n >= (int)sizeof(dict) - 1)
		die("internal error: table %s: header too long", t->name);
	if (!t->header_len)	/* room for the longest count, and the final '\n' */
		t->header_len = (10 + n + 20 + 1 + 63) / 64 * 64;
	fwrite("\x93NUMPY\x01\x00", 1, 8, t->f);
	fputc((t->header_len - 10) & 0xff, t->f);
	fputc((t->header_len - 10) >> 8, t->f);
	fwrite(dict, 1, n, t->f);
	fprintf(t->f, "%*s\n", (int)(t->header_len - 10 - n - 1), "");
}

static FILE *open_out(const char *dir, const char *file)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (!f)
		die("cannot write %s: %s", path, strerror(errno));
	/* Big buffers: the tables are written a value at a time. */
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	return f;
}

static void close_out(FILE *f, const char *what)
{
	if (ferror(f) || fclose(f))
		die("writing %s failed", what);
}

static void open_table(struct table *t, const char *dir)
{
	char file[64];
	int i;

	snprintf(file, sizeof(file), "%s.%s", t->name, binary ? "npy" : "csv");
	t->f = open_out(dir, file);
	if (binary) {
		npy_header(t, 0);
		return;
	}
	for (i = 0; i < t->nr_cols; i++)
		fprintf(t->f, "%s%s", i ? "," : "", t->col[i].name);
	fputc('\n', t->f);
}

static void close_table(struct table *t)
{
	if (t->next)
		die("internal error: table %s ends in a partial row", t->name);
	if (binary) {
		if (fflush(t->f) || fseek(t->f, 0, SEEK_SET))
			die("writing %s failed", t->name);
		npy_header(t, t->rows);
	}
	close_out(t->f, t->name);
}

/* The column the next value of t fills, which must be of that kind. */
static void expect(struct table *t, bool is_int)
{
	if (t->next >= t->nr_cols || (t->col[t->next].type == COL_INT) != is_int)
		die("internal error: table %s: %s value for column %d", t->name,
		    is_int ? "an integer" : "a string", t->next);
	if (!binary && t->next)
		fputc(',', t->f);
}

static void filled(struct table *t)
{
	if (++t->next < t->nr_cols)
		return;
	if (binary)
		fwrite(t->row, sizeof(t->row[0]), t->nr_cols, t->f);
	else
		fputc('\n', t->f);
	t->next = 0;
	t->rows++;
}

static void put_int(enum table_id id, long long v)
{
	struct table *t = &tables[id];

	expect(t, true);
	if (binary)
		t->row[t->next] = v;
	else
		fprintf(t->f, "%lld", v);
	filled(t);
}

/* Text in CSV is quoted, quotes doubled; names are identifiers (no comma). */
static void put_str(enum table_id id, const char *s)
{
	struct table *t = &tables[id];

	expect(t, false);
	if (binary) {
		t->row[t->next] = intern(s);
	} else if (t->col[t->next].type == COL_TEXT) {
		fputc('"', t->f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', t->f);
			fputc(*s, t->f);
		}
		fputc('"', t->f);
	} else {
		fputs(s, t->f);
	}
	filled(t);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* --schema: the tables and their columns as JSON, one table a line. */
static void print_schema(FILE *f)
{
	int t, i;

	fprintf(f, "{\"version\": 1, \"strings\": \"strings.bin\", \"tables\": [\n");
	for (t = 0; t < T_NR; t++) {
		fprintf(f, "  {\"name\": ");
		json_str(f, tables[t].name);
		fprintf(f, ", \"doc\": ");
		json_str(f, tables[t].doc);
		fprintf(f, ", \"columns\": [");
		for (i = 0; i < tables[t].nr_cols; i++) {
			fprintf(f, "%s{\"name\": ", i ? ", " : "");
			json_str(f, tables[t].col[i].name);
			fprintf(f, ", \"type\": \"%s\"}", type_names[tables[t].col[i].type]);
		}
		fprintf(f, "]}%s\n", t + 1 < T_NR ? "," : "");
	}
	fprintf(f, "]}\n");
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
	put_int(T_SWITCH, rec->ts);
	put_int(T_SWITCH, rec->cpu);
	put_int(T_SWITCH, prev_pid);
	put_int(T_SWITCH, num(h, 2, rec));
	put_int(T_SWITCH, next_pid);
}

static void on_wakeup(struct handler *h, struct tep_record *rec)
{
	char comm[COMM_LEN];
	unsigned long long pid = num(h, 0, rec);

	remember_comm(pid, str(h, 1, rec, comm, sizeof(comm)));
	put_int(T_WAKEUP, rec->ts);
	put_int(T_WAKEUP, rec->cpu);
	put_int(T_WAKEUP, pid);
	put_int(T_WAKEUP, snum(h, 2, rec));
	put_str(T_WAKEUP, h->arg);
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
	put_int(T_MIGRATE, rec->ts);
	put_int(T_MIGRATE, rec->cpu);
	put_int(T_MIGRATE, pid);
	put_int(T_MIGRATE, snum(h, 2, rec));
	put_int(T_MIGRATE, dest);
	put_str(T_MIGRATE, reason);
	p->pending.reason[0] = '\0';
}

/*
 * Tables that are the event's fields in order, after the timestamp and, for a
 * handler with rec_cpu, the CPU that recorded the event (check_handlers()
 * holds them to their table's columns).  String fields and the names of a
 * symbolic field must be identifiers (no comma).  An optional field the
 * trace's format lacks is -1.
 */
static void on_fields(struct handler *h, struct tep_record *rec)
{
	char buf[REASON_LEN];
	int i;

	put_int(h->table, rec->ts);
	if (h->rec_cpu)
		put_int(h->table, rec->cpu);
	for (i = 0; i < MAX_FIELDS && h->fields[i]; i++) {
		if (!h->field[i])
			put_int(h->table, -1);
		else if (h->sym[i] || h->field[i]->flags & TEP_FIELD_IS_STRING)
			put_str(h->table, text(h, i, rec, buf, sizeof(buf)));
		else if (h->field[i]->flags & TEP_FIELD_IS_SIGNED)
			put_int(h->table, snum(h, i, rec));
		else
			put_int(h->table, num(h, i, rec));
	}
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
	put_int(T_MARKERS, rec->ts);
	put_int(T_MARKERS, pid);
	put_int(T_MARKERS, thread);
	put_str(T_MARKERS, kind);
	put_int(T_MARKERS, loop);
	put_int(T_MARKERS, phase);
	return 1;
}

/* Marker text up to its first newline. */
static void on_print(struct handler *h, struct tep_record *rec)
{
	char text[512];
	int pid = tep_data_pid(tep, rec);

	str(h, 0, rec, text, sizeof(text));
	if (rtapp_marker(rec, pid, text))
		return;
	text[strcspn(text, "\n")] = '\0';
	put_int(T_PRINT, rec->ts);
	put_int(T_PRINT, rec->cpu);
	put_int(T_PRINT, pid);
	put_str(T_PRINT, text);
}

static struct handler handlers[] = {
	{ "sched", "sched_switch",
	  { "prev_pid", "prev_comm", "prev_state", "next_pid", "next_comm" },
	  on_switch },
	{ "sched", "sched_waking", { "pid", "comm", "target_cpu" }, on_wakeup,
	  .arg = "waking" },
	{ "sched", "sched_wakeup", { "pid", "comm", "target_cpu" }, on_wakeup,
	  .arg = "wakeup" },
	{ "sched", "sched_wakeup_new", { "pid", "comm", "target_cpu" }, on_wakeup,
	  .arg = "new" },
	{ "sched", "sched_migrate_task",
	  { "pid", "comm", "orig_cpu", "dest_cpu" }, on_migrate },
	{ "sched", "sched_process_exit", { "pid" }, on_fields, .table = T_EXIT },
	{ "eas", "eas_migrate_reason", { "pid", "dst_cpu", "reason" },
	  on_migrate_reason, .symbolic = { "reason" } },
	{ "eas", "eas_wakeup_delayed", { "cpu", "pid" }, on_fields, .table = T_DELAYED },
	{ "eas", "eas_placement_decision", { "pid", "src_cpu", "dst_cpu", "reason" },
	  on_fields, .table = T_DECISION, .rec_cpu = true, .symbolic = { "reason" } },
	{ "eas", "eas_push",
	  { "pid", "src_cpu", "dst_cpu", "trigger", "why", "outcome", "util", "runnable",
	    "util_est", "capacity", "uclamp_max", "cost_ns" },
	  on_fields, .table = T_PUSH, .rec_cpu = true,
	  .symbolic = { "trigger", "why", "outcome" }, .optional = { "cost_ns" } },
	{ "eas", "eas_pelt_se", { "pid", "cpu", "util" }, on_fields, .table = T_PELT_SE },
	{ "eas", "eas_pelt_cfs", { "cpu", "util" }, on_fields, .table = T_PELT_CFS },
	{ "eas", "eas_util_est_se", { "pid", "cpu", "util_est", "util" }, on_fields,
	  .table = T_UTIL_EST },
	{ "eas", "eas_overutilized", { "overutilized" }, on_fields, .table = T_OVERUTIL },
	{ "eas", "eas_overutilized_recheck", { "pid", "busy_cpu" }, on_fields,
	  .table = T_OVERUTIL_RECHECK, .rec_cpu = true },
	{ "eas", "eas_hrtick_shorter", { "pid", "slice", "delay", "min_slice" }, on_fields,
	  .table = T_HRTICK_SHORTER, .rec_cpu = true },
	{ "eas", "eas_parity_cut", { "pid", "slice", "ran", "min_slice" }, on_fields,
	  .table = T_PARITY_CUT, .rec_cpu = true },
	{ "eas", "eas_cpu_capacity", { "cpu", "capacity", "capacity_orig" }, on_fields,
	  .table = T_CAPACITY },
	{ "eas", "eas_compute_energy", { "pid", "dst_cpu", "energy" }, on_fields,
	  .table = T_ENERGY },
	/* cpu_id and state fill the columns cpu and state (idle), cpu and khz (freq). */
	{ "power", "cpu_idle", { "cpu_id", "state" }, on_fields, .table = T_IDLE },
	{ "power", "cpu_frequency", { "cpu_id", "state" }, on_fields, .table = T_FREQ },
	{ "ftrace", "print", { "buf" }, on_print },
};

#define NR_HANDLERS (sizeof(handlers) / sizeof(handlers[0]))

/* Whether name is one of the first n entries of list (up to a NULL). */
static bool listed(const char *const *list, int n, const char *name)
{
	int k;

	for (k = 0; k < n && list[k]; k++)
		if (!strcmp(list[k], name))
			return true;
	return false;
}

/*
 * The columns' count of every table, and that of each on_fields() handler's
 * values: ts, the CPU if rec_cpu, then its fields, a string where the column
 * holds one (a symbolic field, or a string one, which is not known before an
 * event is bound) and an integer elsewhere.  Optional fields are on_fields()
 * ones that fill an integer column (with -1 when absent), and not symbolic.
 */
static void check_handlers(void)
{
	size_t i;
	int t, j;

	for (t = 0; t < T_NR; t++)
		while (tables[t].nr_cols < MAX_COLUMNS && tables[t].col[tables[t].nr_cols].name)
			tables[t].nr_cols++;
	for (i = 0; i < NR_HANDLERS; i++) {
		struct handler *h = &handlers[i];
		struct table *t = &tables[h->table];
		int n = 1 + h->rec_cpu;

		if (h->fn != on_fields) {
			if (h->optional[0])
				die("internal error: %s has optional fields but is not on_fields()",
				    h->name);
			continue;
		}
		for (j = 0; j < MAX_FIELDS && h->fields[j]; j++, n++) {
			bool sym = listed(h->symbolic, MAX_SYMBOLIC, h->fields[j]);
			bool opt = listed(h->optional, MAX_OPTIONAL, h->fields[j]);

			if (n < t->nr_cols && sym && t->col[n].type == COL_INT)
				die("internal error: %s's field %s fills integer column %s of table %s",
				    h->name, h->fields[j], t->col[n].name, t->name);
			if (n < t->nr_cols && opt && (sym || t->col[n].type != COL_INT))
				die("internal error: %s's optional field %s must fill integer "
				    "column %s of table %s unnamed", h->name, h->fields[j],
				    t->col[n].name, t->name);
		}
		for (j = 0; j < MAX_OPTIONAL && h->optional[j]; j++)
			if (!listed(h->fields, MAX_FIELDS, h->optional[j]))
				die("internal error: %s's optional %s is none of its fields",
				    h->name, h->optional[j]);
		if (n != t->nr_cols)
			die("internal error: %s writes %d values into table %s of %d columns",
			    h->name, n, t->name, t->nr_cols);
	}
}

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

static int on_event(struct tracecmd_input *handle __attribute__((unused)),
		    struct tep_event *event __attribute__((unused)),
		    struct tep_record *rec, int cpu __attribute__((unused)), void *data)
{
	struct handler *h = data;

	h->count++;
	h->fn(h, rec);
	return 0;
}

/* Events lost before rec on its CPU: a count, or -1 when the size is unknown. */
static int on_missed(struct tracecmd_input *handle __attribute__((unused)),
		     struct tep_event *event __attribute__((unused)),
		     struct tep_record *rec, int cpu __attribute__((unused)),
		     void *data __attribute__((unused)))
{
	if (rec->missed_events > 0)
		nr_missed += rec->missed_events;
	else
		nr_missed_unknown++;
	return 0;
}

/* Every record, after its event's handler. */
static int on_record(struct tracecmd_input *handle __attribute__((unused)),
		     struct tep_record *rec, int cpu __attribute__((unused)),
		     void *data __attribute__((unused)))
{
	if (!nr_records++)
		first_ts = rec->ts;
	last_ts = rec->ts;
	if (rec->cpu > max_cpu)
		max_cpu = rec->cpu;
	return 0;
}

/* Have libtracecmd call each handler for its event, if the trace has it. */
static void bind_handlers(struct tracecmd_input *handle)
{
	size_t i;
	int j;

	for (i = 0; i < NR_HANDLERS; i++) {
		struct handler *h = &handlers[i];

		h->event = tep_find_event_by_name(tep, h->system, h->name);
		if (!h->event)
			continue;
		for (j = 0; j < MAX_FIELDS && h->fields[j]; j++) {
			h->field[j] = tep_find_any_field(h->event, h->fields[j]);
			if (!h->field[j] && listed(h->optional, MAX_OPTIONAL, h->fields[j]))
				continue;	/* an older kernel's format: -1 */
			if (!h->field[j])
				die("event %s:%s has no field '%s' (unexpected kernel format)",
				    h->system, h->name, h->fields[j]);
			h->sym[j] = listed(h->symbolic, MAX_SYMBOLIC, h->fields[j]);
			if (h->sym[j] && !(h->field[j]->flags & TEP_FIELD_IS_STRING))
				bind_symbols(h, j);
		}
		if (tracecmd_follow_event(handle, h->system, h->name, on_event, h))
			die("cannot follow %s:%s: %s", h->system, h->name, strerror(errno));
	}
	if (tracecmd_follow_missed_events(handle, on_missed, NULL))
		die("out of memory");
}

static void put_meta(const char *key, long long value)
{
	put_str(T_META, key);
	put_int(T_META, value);
}

/* The names bind_symbols() found, so that a count can list those that stayed 0. */
static void write_symbols(void)
{
	unsigned int v;
	size_t i;
	int j;

	for (i = 0; i < NR_HANDLERS; i++) {
		struct handler *h = &handlers[i];

		for (j = 0; j < MAX_FIELDS && h->fields[j]; j++) {
			for (v = 0; v < h->names[j].nr; v++) {
				if (!h->names[j].name[v])
					continue;
				put_str(T_SYMBOLS, h->name);
				put_str(T_SYMBOLS, h->fields[j]);
				put_int(T_SYMBOLS, v);
				put_str(T_SYMBOLS, h->names[j].name[v]);
			}
		}
	}
}

static void write_tail(void)
{
	char key[64];
	size_t i;

	for (i = 0; i < nr_pids; i++) {
		if (!pids[i].seen)
			continue;
		put_int(T_COMM, i);
		put_str(T_COMM, pids[i].comm);
	}
	write_symbols();
	put_meta("records", nr_records);
	put_meta("missed_events", nr_missed);
	put_meta("missed_unknown", nr_missed_unknown);
	put_meta("first_ts", first_ts);
	put_meta("last_ts", last_ts);
	put_meta("cpus", max_cpu + 1);
	for (i = 0; i < NR_HANDLERS; i++) {
		snprintf(key, sizeof(key), "events.%s", handlers[i].name);
		put_meta(key, handlers[i].event ? (long long)handlers[i].count : -1);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: eas-trace-reader [--binary] TRACE.DAT OUTDIR\n"
		"       eas-trace-reader --schema\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct tracecmd_input *handle;
	const char *trace, *dir;
	struct stat st;
	int t;

	check_handlers();
	if (argc == 2 && !strcmp(argv[1], "--schema")) {
		print_schema(stdout);
		return fflush(stdout) ? 1 : 0;
	}
	binary = argc == 4 && !strcmp(argv[1], "--binary");
	if (argc != 3 + binary || argv[1 + binary][0] == '-')
		usage();
	trace = argv[1 + binary];
	dir = argv[2 + binary];
	if (stat(trace, &st))
		die("%s: %s", trace, strerror(errno));
	if (!st.st_size)
		die("%s: empty file", trace);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		die("%s: not a directory", dir);

	tracecmd_set_loglevel(TEP_LOG_CRITICAL);
	handle = tracecmd_open(trace, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!handle)
		die("%s: not a readable trace-cmd file (truncated or corrupt?)", trace);
	tep = tracecmd_get_tep(handle);
	bind_handlers(handle);

	if (binary)
		strtab.f = open_out(dir, "strings.bin");
	for (t = 0; t < T_NR; t++)
		open_table(&tables[t], dir);
	if (tracecmd_iterate_events(handle, NULL, 0, on_record, NULL) < 0)
		die("%s: reading the events failed (truncated?)", trace);
	write_tail();
	for (t = 0; t < T_NR; t++)
		close_table(&tables[t]);
	if (binary) {
		FILE *f = open_out(dir, "schema.json");

		close_out(strtab.f, "strings.bin");
		print_schema(f);
		close_out(f, "schema.json");
	}
	tracecmd_close(handle);
	return 0;
}
