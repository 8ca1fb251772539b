/* SPDX-License-Identifier: MIT */
/*
 * perfring record: open perf events, read the kernel's rings with
 * perfring's reader, merge the per-CPU rings into timestamp order, and
 * write perf.data or stream the records.  See man/perfring-record.1.
 *
 * One ring per CPU: every event on a CPU (each event x each target thread)
 * is redirected into the CPU's first event's ring with
 * PERF_EVENT_IOC_SET_OUTPUT.  The reader sleeps in ppoll() until a ring
 * passes its wakeup_watermark (a quarter of the ring) or a signal arrives,
 * then drains every ring: pfr_reader_begin() loads data_head with acquire
 * (C, pairing with the kernel's smp_wmb() in perf_output_put_handle()),
 * the records are copied out, and pfr_reader_end() stores data_tail with
 * release (D, pairing with the control dependency in perf_output_begin()).
 *
 * Merging: within one ring the kernel writes records in time order; across
 * rings it does not.  After each pass over all rings the pending records
 * are sorted by time and those not later than the newest time seen in the
 * previous pass are emitted (perf's FINISHED_ROUND rule): a record still in
 * flight on another CPU carries a time later than anything a completed
 * earlier pass saw.  Everything left is emitted at the end.
 */
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perfring/merge.h>
#include <perfring/perf.h>

#include "cli.h"
#include "perf_out.h"

/* Exit statuses (man/perfring-record.1). */
#define EX_FAIL 1
#define EX_PERM 3
#define EX_EVENT 4
#define EX_TRACEFS 5
#define EX_MMAP 6
#define EX_NOCMD 127

#define MAX_EV 32
#define MAX_CPUS 1024
#define NTYPES 32

struct rec_ev {
	char spec[128];
	char name[160];
	int tracking; /* overwrite mode: the side-band event, own rings */
	struct perf_event_attr attr;
	uint64_t *ids;
	uint32_t nids, cap;
};

struct rec {
	/* options */
	struct rec_ev ev[MAX_EV];
	int nev;
	unsigned long long period, freq;
	int all_cpus, overwrite, json, callgraph, switch_events, quiet;
	int no_syms, no_inherit;
	pid_t pid, tid;
	char **cmd;
	unsigned long long pages;
	const char *output;
	/* state */
	int cpus[MAX_CPUS], ncpu;
	pid_t *targets;
	int ntargets;
	struct pfr_perf_ring *rings;
	int nrings;
	int *fds;
	int nfds;
	pid_t child;
	int go_fd, err_fd;
	struct pfr_perf_layout lay;
	struct pfr_perf_file *file;
	struct pfr_out *out;
	/* merge */
	struct pfr_merge *merge; /* <perfring/merge.h> */
	int emit_rc; /* emit()'s failure, which stopped a flush */
	uint64_t prev_max, round_max;
	uint64_t *snap_last; /* overwrite: newest time emitted, per ring */
	/* summary */
	uint64_t by_type[NTYPES], other_types, records, samples, lost,
		lost_records, lost_samples, bytes, wakeups, snapshots,
		decode_errors;
	uint64_t out_records;
	int child_status;
	struct rusage ru_loop; /* at the start of the reading loop */
	struct pollfd *pfd;
};

static volatile sig_atomic_t sig_stop, sig_child, sig_snap;

static void on_signal(int s)
{
	if (s == SIGCHLD)
		sig_child = 1;
	else if (s == SIGUSR2)
		sig_snap = 1;
	else
		sig_stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfring record [-e EVENT]... [-c N | -F HZ]\n"
		"                       [-a | -p PID | -t TID] [-m PAGES] "
		"[-o FILE] [--json]\n"
		"                       [-g] [--switch-events] [--overwrite] "
		"[-q] [-- CMD [ARG]...]\n"
		"\n"
		"Records perf events with perfring's reader of the kernel's "
		"ring.\n"
		"  -e, --event EV     cpu-clock (default), task-clock, "
		"page-faults,\n"
		"                     minor-faults, major-faults, "
		"context-switches,\n"
		"                     cpu-migrations, a tracepoint SYS:NAME "
		"...; repeatable\n"
		"  -c, --count N      sample every N events\n"
		"  -F, --freq HZ      sample HZ times a second (default "
		"4000)\n"
		"  -a, --all-cpus     every CPU (one ring each)\n"
		"  -p, --pid PID      every thread of process PID\n"
		"  -t, --tid TID      thread TID only\n"
		"  -m, --mmap-pages N data pages per ring, a power of two "
		"(default 128)\n"
		"  -o, --output FILE  write perf.data for perf report / perf "
		"script\n"
		"      --json         stream JSON Lines instead of perf "
		"script lines\n"
		"                     (with -o: the file and the stream)\n"
		"  -g                 record call chains\n"
		"      --switch-events  record context switches "
		"(PERF_RECORD_SWITCH*)\n"
		"      --overwrite    flight recorder: keep the newest data, "
		"write it on\n"
		"                     SIGUSR2 and at exit\n"
		"  -q, --quiet        no summary\n"
		"      --no-inherit   do not follow new threads and children\n"
		"      --no-symbols   print addresses without looking up "
		"symbols\n"
		"With neither -o nor --json, records stream to stdout in perf "
		"script's\n"
		"shape.  A summary goes to stderr at the end.  Exit status: 0, "
		"1 failure,\n"
		"2 usage, 3 not permitted, 4 event unknown or unsupported, 5 "
		"tracefs,\n"
		"6 mmap, 127 command not found.\n");
}

static int read_int_file(const char *path, long *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%ld", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

static int fail(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "perfring record: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return code;
}

/* --- opening events: errors with cause and fix --- */

static int open_error(struct rec *R, struct rec_ev *e, pid_t pid, int cpu,
		      int err)
{
	long paranoid = 99, rate = 0;
	int cpu_wide = pid == -1;

	read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid);
	switch (err) {
	case EACCES:
	case EPERM:
		if (geteuid() != 0 &&
		    (paranoid > 2 || (cpu_wide && paranoid > 0) ||
		     (!e->attr.exclude_kernel && paranoid > 1)))
			return fail(
				EX_PERM,
				"event '%s': not permitted: "
				"kernel.perf_event_paranoid is %ld, which "
				"forbids %s to unprivileged users.\n"
				"Fix: run as root (or with CAP_PERFMON), or "
				"lower it: sysctl -w kernel.perf_event_paranoid=%d",
				e->name, paranoid,
				cpu_wide       ? "CPU-wide recording (-a)"
				: paranoid > 2 ? "all perf events"
					       : "kernel sampling",
				cpu_wide ? 0 : 1);
		return fail(EX_PERM,
			    "event '%s' on %s %d: not permitted (%s).\n"
			    "Fix: you may only record your own processes "
			    "unless root or CAP_PERFMON; check ptrace "
			    "permission (kernel.yama.ptrace_scope) for -p/-t.",
			    e->name, cpu_wide ? "CPU" : "thread",
			    cpu_wide ? cpu : (int)pid, strerror(err));
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (e->attr.type == PERF_TYPE_HARDWARE)
			return fail(
				EX_EVENT,
				"event '%s': hardware event not supported on "
				"this machine (perf_event_open: %s).\n"
				"A virtual machine usually exposes no PMU "
				"counters to its guests.  Fix: use a software "
				"event such as -e cpu-clock or -e task-clock.",
				e->name, strerror(err));
		return fail(EX_EVENT,
			    "event '%s': not supported by this kernel "
			    "(perf_event_open: %s).\n"
			    "Fix: pick another event; 'perfring record "
			    "--help' lists the software events.",
			    e->name, strerror(err));
	case ESRCH:
		return fail(EX_FAIL,
			    "no such process or thread %d.\nFix: check the "
			    "pid with ps(1).",
			    (int)pid);
	case EINVAL:
		read_int_file("/proc/sys/kernel/perf_event_max_sample_rate",
			      &rate);
		if (R->freq && rate && (long)R->freq > rate)
			return fail(EX_EVENT,
				    "event '%s': -F %llu is above "
				    "kernel.perf_event_max_sample_rate "
				    "(%ld).\nFix: use -F %ld or less, or -c.",
				    e->name, R->freq, rate, rate);
		return fail(EX_EVENT,
			    "event '%s': the kernel rejected its "
			    "attributes (EINVAL).\nFix: try without -g, "
			    "--switch-events or --overwrite (older kernels "
			    "lack them).",
			    e->name);
	case EMFILE:
		return fail(EX_FAIL,
			    "too many open files (one per event, thread and "
			    "CPU).\nFix: raise the limit (ulimit -n) or "
			    "record fewer events.");
	default:
		return fail(EX_FAIL, "event '%s': perf_event_open: %s", e->name,
			    strerror(err));
	}
}

static int mmap_error(struct rec *R, int err)
{
	long mlock_kb = 0;
	unsigned long long kb =
		R->pages * (unsigned long long)getpagesize() / 1024;

	read_int_file("/proc/sys/kernel/perf_event_mlock_kb", &mlock_kb);
	if (err == EPERM || err == EACCES)
		return fail(EX_MMAP,
			    "cannot map a ring of %llu KiB per CPU (-m %llu): "
			    "above the locked-memory allowance "
			    "(kernel.perf_event_mlock_kb = %ld KiB per user, "
			    "plus RLIMIT_MEMLOCK).\n"
			    "Fix: use a smaller -m, raise "
			    "kernel.perf_event_mlock_kb or ulimit -l, or run "
			    "as root.",
			    kb, R->pages, mlock_kb);
	if (err == ENOMEM || err == EINVAL)
		return fail(EX_MMAP,
			    "cannot map a ring of %llu KiB per CPU (-m %llu): "
			    "%s.\nFix: use a smaller -m.",
			    kb, R->pages, strerror(err));
	return fail(EX_MMAP, "mmap of the perf ring: %s", strerror(err));
}

static int event_parse_error(const char *spec, int err)
{
	if (err == -PFR_PERF_E_NO_TRACEFS)
		return fail(EX_TRACEFS,
			    "event '%s': tracefs is not mounted at %s, so "
			    "tracepoint ids cannot be read%s.\n"
			    "Fix (as root): mount -t tracefs nodev "
			    "/sys/kernel/tracing",
			    spec, pfr_perf_tracefs_path(),
			    geteuid() ? " (mounting it needs root)" : "");
	if (err == -PFR_PERF_E_NO_TRACEPOINT)
		return fail(EX_EVENT,
			    "event '%s': no such tracepoint under %s/events."
			    "\nFix: list them with: ls %s/events/<subsystem>",
			    spec, pfr_perf_tracefs_path(),
			    pfr_perf_tracefs_path());
	{
		const char *const *n = pfr_perf_event_names();

		fprintf(stderr,
			"perfring record: unknown event '%s'.\nFix: use one "
			"of:",
			spec);
		for (; *n; n++)
			fprintf(stderr, " %s", *n);
		fprintf(stderr, ",\nor a tracepoint SUBSYSTEM:NAME (e.g. "
				"sched:sched_switch).\n");
	}
	return EX_EVENT;
}

/* --- targets --- */

static int add_target(struct rec *R, pid_t t)
{
	pid_t *n = realloc(R->targets, (R->ntargets + 1) * sizeof(*n));

	if (!n)
		return -1;
	R->targets = n;
	R->targets[R->ntargets++] = t;
	return 0;
}

static int list_threads(struct rec *R, pid_t pid)
{
	char p[64];
	DIR *d;
	struct dirent *de;

	snprintf(p, sizeof(p), "/proc/%d/task", (int)pid);
	d = opendir(p);
	if (!d)
		return fail(EX_FAIL,
			    "no such process %d (%s).\nFix: check the pid "
			    "with ps(1).",
			    (int)pid, strerror(errno));
	while ((de = readdir(d)))
		if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
			add_target(R, (pid_t)atoi(de->d_name));
	closedir(d);
	return 0;
}

/* Fork the command, stopped before exec until go_fd is written.  exec
 * errors come back through err_fd (close-on-exec: EOF means exec
 * succeeded). */
static int start_command(struct rec *R, const sigset_t *orig)
{
	int go[2], er[2];

	if (pipe2(go, O_CLOEXEC) || pipe2(er, O_CLOEXEC))
		return fail(EX_FAIL, "pipe: %s", strerror(errno));
	R->child = fork();
	if (R->child < 0)
		return fail(EX_FAIL, "fork: %s", strerror(errno));
	if (R->child == 0) {
		char c;
		int e;

		close(go[1]);
		close(er[0]);
		sigprocmask(SIG_SETMASK, orig, NULL);
		signal(SIGUSR2, SIG_DFL);
		if (read(go[0], &c, 1) != 1)
			_exit(EX_FAIL); /* recording never started */
		execvp(R->cmd[0], R->cmd);
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(EX_NOCMD);
		_exit(EX_NOCMD);
	}
	close(go[0]);
	close(er[1]);
	R->go_fd = go[1];
	R->err_fd = er[0];
	return 0;
}

/* --- events, rings --- */

static void setup_attr(struct rec *R, struct rec_ev *e, int first)
{
	struct perf_event_attr *a = &e->attr;
	long paranoid = 2;

	a->size = sizeof(*a);
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD;
	if (R->callgraph)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (a->type == PERF_TYPE_TRACEPOINT)
		a->sample_type |= PERF_SAMPLE_RAW;
	if (R->period) {
		a->sample_period = R->period;
	} else if (R->freq) {
		a->freq = 1;
		a->sample_freq = R->freq;
	} else if (a->type == PERF_TYPE_TRACEPOINT ||
		   (a->type == PERF_TYPE_SOFTWARE &&
		    a->config != PERF_COUNT_SW_CPU_CLOCK &&
		    a->config != PERF_COUNT_SW_TASK_CLOCK)) {
		a->sample_period = 1; /* each occurrence, as perf does */
	} else {
		a->freq = 1;
		a->sample_freq = 4000;
	}
	a->disabled = 1;
	a->inherit = !R->no_inherit && !R->tid;
	a->enable_on_exec = R->cmd && !R->all_cpus;
	a->sample_id_all = 1;
	if (first) {
		/* Side-band records once, from the first event only. */
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->context_switch = R->switch_events;
	}
	if (R->overwrite && !e->tracking) {
		a->write_backward = 1;
	} else {
		uint64_t data = R->pages * (uint64_t)getpagesize();

		a->watermark = 1;
		a->wakeup_watermark = (uint32_t)(data / 4 ? data / 4 : 8);
	}
	/* Unprivileged at paranoid 2: user space only, as perf does. */
	read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid);
	if (geteuid() != 0 && paranoid >= 2 && !a->exclude_user)
		a->exclude_kernel = a->exclude_hv = 1;
	(void)R;
}

static int add_id(struct rec_ev *e, uint64_t id)
{
	if (e->nids == e->cap) {
		uint32_t nc = e->cap ? e->cap * 2 : 8;
		uint64_t *n = realloc(e->ids, nc * sizeof(*n));

		if (!n)
			return -1;
		e->ids = n;
		e->cap = nc;
	}
	e->ids[e->nids++] = id;
	return 0;
}

static int open_all(struct rec *R)
{
	R->rings = calloc(2 * R->ncpu, sizeof(*R->rings));
	R->fds =
		calloc((size_t)R->ncpu * R->ntargets * R->nev + 1, sizeof(int));
	if (!R->rings || !R->fds)
		return fail(EX_FAIL, "out of memory");
	for (int c = 0; c < R->ncpu; c++) {
		int ring_fds[2] = {-1, -1};

		for (int t = 0; t < R->ntargets; t++)
			for (int i = 0; i < R->nev; i++) {
				struct rec_ev *e = &R->ev[i];
				int ow = R->overwrite && !e->tracking;
				int *ring_fd = &ring_fds[ow];
				int fd = pfr_perf_open(&e->attr, R->targets[t],
						       R->cpus[c], -1,
						       PERF_FLAG_FD_CLOEXEC);
				uint64_t id;

				if (fd == -ESRCH && R->pid && t > 0)
					continue; /* a thread exited */
				if (fd < 0)
					return open_error(R, e, R->targets[t],
							  R->cpus[c], -fd);
				R->fds[R->nfds++] = fd;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id) ||
				    add_id(e, id))
					return fail(EX_FAIL,
						    "PERF_EVENT_IOC_ID: %s",
						    strerror(errno));
				if (*ring_fd < 0) {
					int err = pfr_perf_ring_map(
						&R->rings[R->nrings], fd,
						R->cpus[c], (uint32_t)R->pages,
						ow);

					if (err == -PFR_E_SYSTEM)
						return mmap_error(R, errno);
					if (err)
						return fail(
							EX_MMAP,
							"perf ring: %s",
							pfr_perf_strerror(err));
					R->nrings++;
					*ring_fd = fd;
				} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT,
						 *ring_fd)) {
					return fail(EX_FAIL,
						    "PERF_EVENT_IOC_SET_OUTPUT:"
						    " %s",
						    strerror(errno));
				}
			}
	}
	return 0;
}

/* --- the merge queue --- */

/* Queues a copy of a record in the time-ordered merge (0 or -1). */
static int push(struct rec *R, const struct pfr_record_header *h,
		const void *payload, uint32_t len, uint64_t time)
{
	if (!R->merge && pfr_merge_create(&R->merge, 0))
		return -1;
	return pfr_merge_push(R->merge, h, payload, len, time, 0) ? -1 : 0;
}

static const char *event_name_of(struct rec *R,
				 const struct pfr_record_header *h,
				 const void *payload, uint32_t len)
{
	uint64_t id;

	if (R->nev > 1 &&
	    !pfr_perf_record_id(R->lay.sample_type, 1, h, payload, len, &id))
		for (int i = 0; i < R->nev; i++)
			for (uint32_t k = 0; k < R->ev[i].nids; k++)
				if (R->ev[i].ids[k] == id)
					return R->ev[i].name;
	return R->ev[0].name;
}

static int emit(void *arg, const struct pfr_merge_rec *mr)
{
	struct rec *R = arg;
	struct pfr_record_header h = *mr->hdr;
	const void *payload = mr->payload;
	uint32_t len = mr->len;

	R->out_records++;
	if (R->file) {
		int err = pfr_perf_file_write(R->file, &h, payload, len);

		if (err) {
			R->emit_rc = fail(EX_FAIL, "writing %s: %s", R->output,
					  strerror(errno));
			return -1; /* stops the flush */
		}
	}
	if (R->out)
		pfr_out_record(R->out, event_name_of(R, &h, payload, len),
			       &R->lay, &h, payload, len);
	return 0;
}

/* Emit the queued records up to limit (all when limit is UINT64_MAX), in
 * (time, arrival) order: the library's merge (<perfring/merge.h>). */
static int flush(struct rec *R, uint64_t limit)
{
	int64_t n;

	if (!R->merge)
		return 0;
	n = pfr_merge_flush(R->merge, limit, emit, R);
	if (R->out)
		fflush(stdout);
	if (n < 0)
		return R->emit_rc ? R->emit_rc : fail(EX_FAIL, "out of memory");
	return 0;
}

/* Account one record from a ring and queue it. */
static int take(struct rec *R, const struct pfr_record *rec)
{
	struct pfr_perf_rec d;
	uint64_t time = 0;

	R->records++;
	R->bytes += rec->hdr.size;
	if (rec->hdr.type < NTYPES)
		R->by_type[rec->hdr.type]++;
	else
		R->other_types++;
	if (pfr_perf_decode(&R->lay, &rec->hdr, rec->payload, rec->len, &d)) {
		R->decode_errors++;
		return 0; /* counted, skipped by its size */
	}
	if (d.fields & PFR_PERF_F_TIME)
		time = d.time;
	if (d.type == PERF_RECORD_SAMPLE)
		R->samples++;
	if (d.type == PERF_RECORD_LOST) {
		R->lost += d.u.lost.lost;
		R->lost_records++;
	}
	if (d.type == PERF_RECORD_LOST_SAMPLES)
		R->lost_samples += d.u.lost.lost; /* dropped by the PMU */
	if (time > R->round_max)
		R->round_max = time;
	if (push(R, &rec->hdr, rec->payload, rec->len, time))
		return fail(EX_FAIL, "out of memory");
	return 0;
}

static int drain_ring(struct rec *R, struct pfr_perf_ring *ring)
{
	struct pfr_record rec;
	int64_t avail = pfr_reader_begin(&ring->reader);
	int n, err = 0;

	if (avail < 0)
		return fail(EX_FAIL, "CPU %d ring: %s", ring->cpu,
			    pfr_perf_strerror((int)avail));
	while ((n = pfr_reader_next(&ring->reader, &rec)) == 1)
		if ((err = take(R, &rec)))
			break;
	pfr_reader_end(&ring->reader);
	if (n < 0)
		return fail(EX_FAIL, "CPU %d ring: %s", ring->cpu,
			    pfr_perf_strerror(n));
	return err;
}

static int drain_all(struct rec *R, int final)
{
	int err;

	R->round_max = 0;
	for (int i = 0; i < R->nrings; i++)
		if (!R->rings[i].overwrite &&
		    (err = drain_ring(R, &R->rings[i])))
			return err;
	/* Overwrite mode: side-band waits for the snapshot it belongs to. */
	err = flush(R, final ? UINT64_MAX : R->overwrite ? 0 : R->prev_max);
	if (R->round_max > R->prev_max)
		R->prev_max = R->round_max;
	return err;
}

struct snap_ctx {
	struct rec *R;
	uint64_t last, newest;
	int err;
};

static int snap_one(void *arg, const struct pfr_record *rec)
{
	struct snap_ctx *s = arg;
	struct pfr_perf_rec d;

	/* Only what the previous snapshot did not already write. */
	if (!pfr_perf_decode(&s->R->lay, &rec->hdr, rec->payload, rec->len,
			     &d) &&
	    (d.fields & PFR_PERF_F_TIME)) {
		if (s->last && d.time <= s->last)
			return 0;
		if (d.time > s->newest)
			s->newest = d.time;
	}
	s->err = take(s->R, rec);
	return s->err;
}

static int snapshot(struct rec *R)
{
	int err = drain_all(R, 0); /* side-band rings first */

	if (err)
		return err;
	for (int i = 0; i < R->nrings; i++) {
		struct snap_ctx s = {R, R->snap_last[i], R->snap_last[i], 0};
		int64_t n;

		if (!R->rings[i].overwrite)
			continue;
		n = pfr_perf_ring_snapshot(&R->rings[i], snap_one, &s);

		if (n < 0)
			return fail(EX_FAIL, "snapshot of CPU %d: %s",
				    R->rings[i].cpu, pfr_perf_strerror((int)n));
		if (s.err)
			return s.err;
		R->snap_last[i] = s.newest;
	}
	R->snapshots++;
	return flush(R, UINT64_MAX);
}

/* --- synthesized side-band for threads that exist already --- */

/* Appends the sample_id trailer (sample_id_all) every kernel record has. */
static int synth(struct rec *R, uint32_t type, uint16_t misc, const void *body,
		 uint32_t blen, uint32_t pid, uint32_t tid)
{
	unsigned char buf[PFR_RECORD_MAX];
	struct pfr_record_header h;
	uint64_t st = R->lay.sample_type, z = 0;
	uint32_t n = (blen + 7) & ~7u;

	if (n + 64 > sizeof(buf))
		return 0;
	memset(buf, 0, n);
	memcpy(buf, body, blen);
	if (st & PERF_SAMPLE_TID) {
		memcpy(buf + n, &pid, 4);
		memcpy(buf + n + 4, &tid, 4);
		n += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		memcpy(buf + n, &z, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		memcpy(buf + n, &R->ev[0].ids[0], 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		memcpy(buf + n, &z, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		memcpy(buf + n, &z, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		memcpy(buf + n, &R->ev[0].ids[0], 8);
		n += 8;
	}
	h.type = type;
	h.misc = misc;
	h.size = (uint16_t)(n + sizeof(h));
	return push(R, &h, buf, n, 0) ? fail(EX_FAIL, "out of memory") : 0;
}

static int synth_kernel_mmap(struct rec *R)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type;
	unsigned long long a, text = 0, etext = 0;
	unsigned char body[64 + 32];
	uint32_t pid = (uint32_t)-1, tid = 0;
	uint64_t v;

	if (!f)
		return 0;
	/* Only two of ~100k lines matter: test their tail before parsing. */
	while (fgets(line, sizeof(line), f) && !(text && etext)) {
		size_t l = strlen(line);

		if (l < 8 || (strcmp(line + l - 7, " _text\n") &&
			      strcmp(line + l - 8, " _etext\n")))
			continue;
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3) {
			if (!strcmp(name, "_text"))
				text = a;
			else if (!strcmp(name, "_etext"))
				etext = a;
		}
	}
	fclose(f);
	if (!text || etext <= text)
		return 0; /* kptr_restrict hides addresses */
	memset(body, 0, sizeof(body));
	memcpy(body, &pid, 4);
	memcpy(body + 4, &tid, 4);
	v = text;
	memcpy(body + 8, &v, 8);
	v = etext - text;
	memcpy(body + 16, &v, 8);
	v = text;
	memcpy(body + 24, &v, 8);
	strcpy((char *)body + 32, "[kernel.kallsyms]_text");
	return synth(R, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, body,
		     32 + (uint32_t)strlen("[kernel.kallsyms]_text") + 1, pid,
		     tid);
}

static int synth_process(struct rec *R, pid_t pid)
{
	char p[128], line[4096], comm[64] = "";
	FILE *f;
	DIR *d;
	struct dirent *de;
	int err = 0;

	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	f = fopen(p, "r");
	if (!f)
		return 0;
	if (fgets(comm, sizeof(comm), f))
		comm[strcspn(comm, "\n")] = 0;
	fclose(f);
	snprintf(p, sizeof(p), "/proc/%d/task", (int)pid);
	d = opendir(p);
	while (d && (de = readdir(d)) && !err) {
		unsigned char body[8 + 64];
		uint32_t tid, upid = (uint32_t)pid;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		tid = (uint32_t)atoi(de->d_name);
		memset(body, 0, sizeof(body));
		memcpy(body, &upid, 4);
		memcpy(body + 4, &tid, 4);
		snprintf((char *)body + 8, 16, "%s", comm);
		err = synth(R, PERF_RECORD_COMM, 0, body,
			    8 + (uint32_t)strlen((char *)body + 8) + 1, upid,
			    tid);
	}
	if (d)
		closedir(d);
	snprintf(p, sizeof(p), "/proc/%d/maps", (int)pid);
	f = fopen(p, "r");
	while (f && !err && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off, ino;
		unsigned maj, min;
		char perm[8], path[4096] = "";
		unsigned char body[64 + 4096];
		uint32_t upid = (uint32_t)pid, prot = 0, flags = 0x02;
		uint64_t v;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &s,
			   &e, perm, &off, &maj, &min, &ino, path) < 7)
			continue;
		{
			char *q = path;

			while (*q == ' ')
				q++;
			memmove(path, q, strlen(q) + 1);
		}
		if (perm[2] != 'x' || path[0] != '/')
			continue;
		prot = (perm[0] == 'r' ? PROT_READ : 0) |
		       (perm[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
		memset(body, 0, 64);
		memcpy(body, &upid, 4);
		memcpy(body + 4, &upid, 4);
		v = s;
		memcpy(body + 8, &v, 8);
		v = e - s;
		memcpy(body + 16, &v, 8);
		v = off;
		memcpy(body + 24, &v, 8);
		memcpy(body + 32, &maj, 4);
		memcpy(body + 36, &min, 4);
		v = ino;
		memcpy(body + 40, &v, 8);
		memcpy(body + 56, &prot, 4);
		memcpy(body + 60, &flags, 4);
		snprintf((char *)body + 64, 4096, "%s", path);
		err = synth(R, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, body,
			    64 + (uint32_t)strlen(path) + 1, upid, upid);
	}
	if (f)
		fclose(f);
	return err;
}

static int synth_existing(struct rec *R)
{
	int err = synth_kernel_mmap(R);

	if (err)
		return err;
	if (R->all_cpus) {
		DIR *d = opendir("/proc");
		struct dirent *de;

		while (d && (de = readdir(d)) && !err)
			if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
				err = synth_process(R, (pid_t)atoi(de->d_name));
		if (d)
			closedir(d);
	} else if (R->pid) {
		err = synth_process(R, R->pid);
	} else if (R->tid) {
		char p[64];
		long tgid = R->tid;
		FILE *f;
		char line[256];

		snprintf(p, sizeof(p), "/proc/%d/status", (int)R->tid);
		f = fopen(p, "r");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "Tgid: %ld", &tgid) == 1)
				break;
		if (f)
			fclose(f);
		err = synth_process(R, (pid_t)tgid);
	}
	return err;
}

/* --- the summary --- */

static double tv_s(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

static void summary(struct rec *R, const struct rusage *ru, double wall)
{
	FILE *f = R->json ? stdout : stderr;
	double user = tv_s(ru->ru_utime), sys = tv_s(ru->ru_stime);
	double loop = user + sys - tv_s(R->ru_loop.ru_utime) -
		      tv_s(R->ru_loop.ru_stime);
	int first = 1;

	if (R->json) {
		fprintf(f,
			"{\"type\":\"summary\",\"records\":%llu,"
			"\"by_type\":{",
			(unsigned long long)R->records);
		for (int t = 0; t < NTYPES; t++)
			if (R->by_type[t]) {
				const char *n = pfr_perf_record_name(t);

				fprintf(f, "%s\"%s\":%llu", first ? "" : ",",
					n ? n : "UNKNOWN",
					(unsigned long long)R->by_type[t]);
				first = 0;
			}
		if (R->other_types)
			fprintf(f, "%s\"other\":%llu", first ? "" : ",",
				(unsigned long long)R->other_types);
		fprintf(f,
			"},\"samples\":%llu,\"lost\":%llu,"
			"\"lost_records\":%llu,\"lost_samples\":%llu,"
			"\"bytes\":%llu,"
			"\"wakeups\":%llu,\"snapshots\":%llu,"
			"\"decode_errors\":%llu,\"rings\":%d,"
			"\"ring_bytes\":%llu,\"reader_cpu_s\":%.6f,"
			"\"reader_loop_cpu_s\":%.6f,"
			"\"reader_user_s\":%.6f,\"reader_sys_s\":%.6f,"
			"\"wall_s\":%.3f}\n",
			(unsigned long long)R->samples,
			(unsigned long long)R->lost,
			(unsigned long long)R->lost_records,
			(unsigned long long)R->lost_samples,
			(unsigned long long)R->bytes,
			(unsigned long long)R->wakeups,
			(unsigned long long)R->snapshots,
			(unsigned long long)R->decode_errors, R->nrings,
			R->pages * (unsigned long long)getpagesize(),
			user + sys, loop, user, sys, wall);
		return;
	}
	fprintf(f, "[ perfring record: %llu records:",
		(unsigned long long)R->records);
	for (int t = 0; t < NTYPES; t++)
		if (R->by_type[t]) {
			const char *n = pfr_perf_record_name(t);

			fprintf(f, "%s %s %llu", first ? "" : ",",
				n ? n : "UNKNOWN",
				(unsigned long long)R->by_type[t]);
			first = 0;
		}
	if (R->other_types)
		fprintf(f, "%s other %llu", first ? "" : ",",
			(unsigned long long)R->other_types);
	fprintf(f, " ]\n");
	fprintf(f,
		"[ perfring record: %llu samples, %llu lost (in %llu LOST "
		"records), %llu bytes from %d ring%s of %llu KiB, %llu "
		"wake-ups%s ]\n",
		(unsigned long long)R->samples, (unsigned long long)R->lost,
		(unsigned long long)R->lost_records,
		(unsigned long long)R->bytes, R->nrings,
		R->nrings == 1 ? "" : "s",
		R->pages * (unsigned long long)getpagesize() / 1024,
		(unsigned long long)R->wakeups,
		R->overwrite ? " (overwrite mode)" : "");
	if (R->snapshots)
		fprintf(f, "[ perfring record: %llu snapshots ]\n",
			(unsigned long long)R->snapshots);
	if (R->lost_samples)
		fprintf(f,
			"[ perfring record: %llu samples lost before the ring "
			"(LOST_SAMPLES) ]\n",
			(unsigned long long)R->lost_samples);
	if (R->decode_errors)
		fprintf(f,
			"[ perfring record: %llu malformed records skipped ]\n",
			(unsigned long long)R->decode_errors);
	fprintf(f,
		"[ perfring record: reader CPU time %.3f s (user %.3f s, "
		"sys %.3f s; %.3f s in the read loop) over %.3f s ]\n",
		user + sys, user, sys, loop, wall);
	if (R->output)
		fprintf(f, "[ perfring record: wrote %s (%llu records) ]\n",
			R->output, (unsigned long long)R->out_records);
	if (R->cmd && WIFEXITED(R->child_status) &&
	    WEXITSTATUS(R->child_status))
		fprintf(f,
			"[ perfring record: the command exited with "
			"status %d ]\n",
			WEXITSTATUS(R->child_status));
	else if (R->cmd && WIFSIGNALED(R->child_status))
		fprintf(f,
			"[ perfring record: the command was killed by "
			"signal %d ]\n",
			WTERMSIG(R->child_status));
}

/* --- main --- */

static int parse_args(struct rec *R, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		unsigned long long n;

#define NEED_ARG()                                                             \
	do {                                                                   \
		if (!v)                                                        \
			return pfr_cli_usage_error(                            \
				"record", "option '%s' needs a value", a);     \
		i++;                                                           \
	} while (0)
		if (!strcmp(a, "--")) {
			if (i + 1 >= argc)
				return pfr_cli_usage_error(
					"record", "'--' needs a command");
			R->cmd = argv + i + 1;
			break;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return -1;
		} else if (!strcmp(a, "-e") || !strcmp(a, "--event")) {
			NEED_ARG();
			if (R->nev == MAX_EV)
				return pfr_cli_usage_error(
					"record", "at most %d events", MAX_EV);
			if (strlen(v) >= sizeof(R->ev[0].spec))
				return pfr_cli_usage_error(
					"record", "event name too long");
			snprintf(R->ev[R->nev++].spec, sizeof(R->ev[0].spec),
				 "%s", v);
		} else if (!strcmp(a, "-c") || !strcmp(a, "--count")) {
			NEED_ARG();
			if (pfr_cli_parse_u64(v, &n) || !n)
				return pfr_cli_usage_error(
					"record", "bad -c '%s': a count > 0",
					v);
			R->period = n;
		} else if (!strcmp(a, "-F") || !strcmp(a, "--freq")) {
			NEED_ARG();
			if (pfr_cli_parse_u64(v, &n) || !n || n > 1000000000)
				return pfr_cli_usage_error(
					"record",
					"bad -F '%s': a frequency > 0", v);
			R->freq = n;
		} else if (!strcmp(a, "-a") || !strcmp(a, "--all-cpus")) {
			R->all_cpus = 1;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--pid") ||
			   !strcmp(a, "-t") || !strcmp(a, "--tid")) {
			NEED_ARG();
			if (pfr_cli_parse_u64(v, &n) || !n || n > 0x7fffffff)
				return pfr_cli_usage_error(
					"record", "bad %s '%s': a process id",
					a, v);
			if (a[1] == 'p' || a[2] == 'p')
				R->pid = (pid_t)n;
			else
				R->tid = (pid_t)n;
		} else if (!strcmp(a, "-m") || !strcmp(a, "--mmap-pages")) {
			NEED_ARG();
			if (pfr_cli_parse_u64(v, &n) || !n || (n & (n - 1)) ||
			    n > (1ULL << 30))
				return pfr_cli_usage_error(
					"record",
					"bad -m '%s': data pages per ring, a "
					"power of two (1, 2, 4, ... 128)",
					v);
			R->pages = n;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			NEED_ARG();
			R->output = v;
		} else if (!strcmp(a, "--json")) {
			R->json = 1;
		} else if (!strcmp(a, "-g")) {
			R->callgraph = 1;
		} else if (!strcmp(a, "--switch-events")) {
			R->switch_events = 1;
		} else if (!strcmp(a, "--overwrite")) {
			R->overwrite = 1;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			R->quiet = 1;
		} else if (!strcmp(a, "--no-inherit")) {
			R->no_inherit = 1;
		} else if (!strcmp(a, "--no-symbols")) {
			R->no_syms = 1;
		} else if (a[0] == '-') {
			return pfr_cli_usage_error("record",
						   "unknown option '%s'", a);
		} else {
			R->cmd = argv + i; /* a command without '--' */
			break;
		}
#undef NEED_ARG
	}
	if (R->period && R->freq)
		return pfr_cli_usage_error("record",
					   "-c and -F exclude each other");
	if (!!R->all_cpus + !!R->pid + !!R->tid > 1)
		return pfr_cli_usage_error("record",
					   "-a, -p and -t exclude each other");
	if ((R->pid || R->tid) && R->cmd)
		return pfr_cli_usage_error(
			"record", "-p/-t and a command exclude each other");
	if (!R->all_cpus && !R->pid && !R->tid && !R->cmd)
		return pfr_cli_usage_error(
			"record", "nothing to record: give -a, -p PID, -t TID "
				  "or -- COMMAND");
	return 0;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int record_run(struct rec *R, int argc, char **argv)
{
	sigset_t block, orig;
	struct sigaction sa;
	struct pollfd *pfd = NULL;
	struct rusage ru;
	double t0 = now_s();
	const struct timespec tick = {1, 0};
	int rc, live;

	R->pages = 128;
	R->go_fd = R->err_fd = -1;
	rc = parse_args(R, argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (!R->nev)
		snprintf(R->ev[R->nev++].spec, sizeof(R->ev[0].spec),
			 "cpu-clock");
	if (R->overwrite) {
		/* The flight recorder keeps only the newest records; the
		 * side-band (mmap, comm, task) that symbolizes them goes to
		 * a dummy event with ordinary rings, as perf does. */
		if (R->nev == MAX_EV)
			return pfr_cli_usage_error("record", "too many events");
		snprintf(R->ev[R->nev].spec, sizeof(R->ev[0].spec), "dummy");
		R->ev[R->nev++].tracking = 1;
	}
	for (int i = 0; i < R->nev; i++) {
		int err = pfr_perf_event_parse(
			R->ev[i].spec, &R->ev[i].attr, R->ev[i].name,
			sizeof(R->ev[i].name), geteuid() == 0);

		if (err)
			return event_parse_error(R->ev[i].spec, err);
		setup_attr(R, &R->ev[i],
			   R->overwrite ? R->ev[i].tracking : i == 0);
	}
	R->lay.sample_type = R->ev[0].attr.sample_type;
	R->lay.sample_id_all = 1;
	for (int i = 1; i < R->nev; i++)
		if (R->ev[i].attr.sample_type != R->lay.sample_type) {
			/* One layout per session: RAW for all when one is a
			 * tracepoint. */
			for (int k = 0; k < R->nev; k++)
				R->ev[k].attr.sample_type |= PERF_SAMPLE_RAW;
			R->lay.sample_type |= PERF_SAMPLE_RAW;
			break;
		}
	R->ncpu = pfr_perf_online_cpus(R->cpus, MAX_CPUS);
	if (R->ncpu <= 0)
		return fail(EX_FAIL, "cannot read the online CPUs");

	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGUSR2);
	sigprocmask(SIG_BLOCK, &block, &orig);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);

	if (R->all_cpus) {
		add_target(R, -1);
	} else if (R->pid) {
		rc = list_threads(R, R->pid);
		if (rc)
			return rc;
	} else if (R->tid) {
		add_target(R, R->tid);
	}
	if (R->cmd) {
		rc = start_command(R, &orig);
		if (rc)
			return rc;
		if (!R->all_cpus)
			add_target(R, R->child);
	}
	rc = open_all(R);
	if (!rc && R->output) {
		if (pfr_perf_file_create(&R->file, R->output))
			rc = fail(EX_FAIL, "cannot create %s: %s", R->output,
				  strerror(errno));
		for (int i = 0; !rc && i < R->nev; i++)
			if (pfr_perf_file_add_event(R->file, &R->ev[i].attr,
						    R->ev[i].name, R->ev[i].ids,
						    R->ev[i].nids))
				rc = fail(EX_FAIL, "out of memory");
		if (!rc) {
			/* "perfring record ...", as perf writes "perf record" */
			char **cl = calloc((size_t)argc + 2, sizeof(*cl));

			if (cl) {
				cl[0] = (char *)"perfring";
				memcpy(cl + 1, argv,
				       (size_t)argc * sizeof(*cl));
				pfr_perf_file_set_cmdline(R->file, argc + 1,
							  cl);
				free(cl);
			}
		}
	}
	/* Stream without -o, or as well as -o with --json. */
	if (!rc && (!R->output || R->json)) {
		R->out = pfr_out_new(
			stdout, (R->json ? PFR_OUT_JSON : 0) |
					(R->no_syms ? PFR_OUT_NO_SYMS : 0));
		if (!R->out)
			rc = fail(EX_FAIL, "out of memory");
	}
	R->snap_last = calloc(R->nrings + 1, sizeof(*R->snap_last));
	pfd = R->pfd = calloc(R->nrings + 1, sizeof(*pfd));
	if (!rc && (!R->snap_last || !pfd))
		rc = fail(EX_FAIL, "out of memory");
	if (!rc)
		rc = synth_existing(R);
	if (rc) {
		if (R->child > 0) {
			close(R->go_fd); /* the child exits without exec */
			waitpid(R->child, NULL, 0);
		}
		return rc;
	}
	/* Start: enable the events (enable_on_exec does it for a command
	 * recorded alone), then let the command exec. */
	if (!(R->cmd && !R->all_cpus))
		for (int i = 0; i < R->nfds; i++)
			ioctl(R->fds[i], PERF_EVENT_IOC_ENABLE, 0);
	if (R->child > 0) {
		int e = 0;
		ssize_t n;

		if (write(R->go_fd, "g", 1) != 1)
			return fail(EX_FAIL, "cannot start the command");
		close(R->go_fd);
		n = read(R->err_fd, &e, sizeof(e));
		close(R->err_fd);
		if (n == (ssize_t)sizeof(e)) {
			waitpid(R->child, NULL, 0);
			if (e == ENOENT)
				return fail(EX_NOCMD,
					    "command not found: '%s'.\nFix: "
					    "check its spelling and $PATH, or "
					    "give its full path.",
					    R->cmd[0]);
			return fail(e == EACCES ? 126 : EX_NOCMD,
				    "cannot execute '%s': %s.\nFix: check "
				    "that it is an executable file you may "
				    "run.",
				    R->cmd[0], strerror(e));
		}
	}
	for (int i = 0; i < R->nrings; i++) {
		pfd[i].fd = R->rings[i].fd;
		/* Overwrite rings are never drained: only their hang-up. */
		pfd[i].events = R->rings[i].overwrite ? 0 : POLLIN;
	}
	live = R->nrings;
	getrusage(RUSAGE_SELF, &R->ru_loop);
	while (!rc) {
		int n;

		if (sig_child && R->child > 0) {
			int st;

			if (waitpid(R->child, &st, WNOHANG) == R->child) {
				R->child_status = st;
				R->child = 0;
				sig_stop = 1;
			}
			sig_child = 0;
		}
		if (sig_snap) {
			sig_snap = 0;
			if (R->overwrite)
				rc = snapshot(R);
		}
		if (!rc)
			rc = drain_all(R, 0);
		if (sig_stop || rc || !live)
			break;
		/* A stream to a reader shows up within a second even when
		 * the rings fill slowly: a quiet second drains and releases
		 * everything (nothing stays in flight that long).  A file
		 * needs no such tick. */
		n = ppoll(pfd, R->nrings,
			  R->file || R->overwrite ? NULL : &tick, &orig);
		if (n == 0 && !rc)
			rc = drain_all(R, 1);
		if (n > 0) {
			R->wakeups++;
			for (int i = 0; i < R->nrings; i++)
				if (pfd[i].revents & (POLLHUP | POLLERR)) {
					/* The target is gone; stop polling
					 * this ring (it is still drained). */
					pfd[i].fd = -1;
					live--;
				}
		} else if (n < 0 && errno != EINTR) {
			rc = fail(EX_FAIL, "poll: %s", strerror(errno));
		}
	}
	for (int i = 0; i < R->nfds; i++)
		ioctl(R->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	if (!rc)
		rc = R->overwrite ? snapshot(R) : drain_all(R, 1);
	if (!rc)
		rc = flush(R, UINT64_MAX);
	if (R->child > 0) {
		int st;

		kill(R->child, SIGTERM);
		waitpid(R->child, &st, 0);
		R->child_status = st;
	}
	if (R->file) {
		int err = pfr_perf_file_close(R->file);

		R->file = NULL;
		if (err && !rc)
			rc = fail(EX_FAIL, "writing %s: %s", R->output,
				  strerror(errno));
	}
	if (R->out)
		R->decode_errors += pfr_out_bad(R->out);
	fflush(stdout);
	getrusage(RUSAGE_SELF, &ru);
	if (!R->quiet)
		summary(R, &ru, now_s() - t0);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return rc;
}

int pfr_cmd_record(int argc, char **argv)
{
	struct rec *R = calloc(1, sizeof(*R));
	int rc;

	if (!R)
		return fail(EX_FAIL, "out of memory");
	rc = record_run(R, argc, argv);
	/* Everything, on every path (the sanitizer runs check for leaks). */
	if (R->file)
		pfr_perf_file_close(R->file);
	for (int i = 0; i < R->nrings; i++)
		pfr_perf_ring_unmap(&R->rings[i]);
	for (int i = 0; i < R->nfds; i++)
		close(R->fds[i]);
	for (int i = 0; i < R->nev; i++)
		free(R->ev[i].ids);
	pfr_out_free(R->out);
	free(R->rings);
	free(R->fds);
	free(R->targets);
	pfr_merge_destroy(R->merge);
	free(R->snap_last);
	free(R->pfd);
	free(R);
	return rc;
}
