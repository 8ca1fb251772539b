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
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
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
#define MAX_IDS 64

/* The user registers perf samples for DWARF unwinding (its
 * arch__user_reg_mask(): every general register of the ABI). */
#if defined(__x86_64__)
#define PFR_USER_REGS 0xff0fffULL
#elif defined(__aarch64__)
#define PFR_USER_REGS ((1ULL << 33) - 1)
#else
#define PFR_USER_REGS 0ULL
#endif

struct rec_ev {
	char spec[160];
	char name[160];
	int tracking; /* overwrite mode: the side-band event, own rings */
	struct pfr_perf_evinfo info; /* group, terms */
	const char *filter; /* --filter for a tracepoint */
	int cgroup_fd; /* -G: the cgroup's directory, or -1 */
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
	int sample_addr, raw_samples, all_user, all_kernel;
	unsigned long long dump_size; /* --call-graph dwarf: stack bytes */
	int last_e; /* first event of the last -e (for --filter) */
	pid_t pid, tid; /* the first of pids[], tids[] */
	pid_t pids[MAX_IDS], tids[MAX_IDS];
	int npids, ntids;
	uid_t uid;
	int uid_set, cpus_given;
	const char *cgroups;
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
	uint64_t lost_counted; /* PERF_FORMAT_LOST, summed over the fds */
	int read_lost; /* the kernel takes PERF_FORMAT_LOST */
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
		"usage: perfring record [OPTION]... [--] [CMD [ARG]...]\n"
		"\n"
		"Records perf events with perfring's reader of the kernel's "
		"ring.  Options\n"
		"as perf record spells them (-F99, -ag, --freq=99, prefixes "
		"of long names).\n"
		"  -e, --event LIST   events: cpu-clock (default), task-clock, "
		"page-faults,\n"
		"                     cs, ..., rHEX, PMU/terms/, SYS:TRACEPOINT; "
		"a,b lists,\n"
		"                     {a,b} groups, ev/period=N/, :u :k :p ... "
		"modifiers\n"
		"      --filter F     filter for the tracepoints of the "
		"previous -e\n"
		"  -c, --count N      sample every N events\n"
		"  -F, --freq HZ|max  sample HZ times a second (default 4000; "
		"tracepoints:\n"
		"                     every hit)\n"
		"  -a, --all-cpus     every CPU (the default without a target "
		"or command)\n"
		"  -C, --cpu LIST     these CPUs only (0-3,6)\n"
		"  -p, --pid PID,...  existing processes (with a command: while "
		"it runs)\n"
		"  -t, --tid TID,...  existing threads\n"
		"  -u, --uid USER     the user's processes\n"
		"  -G, --cgroup NAME  with -a: only the cgroup's tasks\n"
		"  -m, --mmap-pages N data pages per ring, or a size (512K, "
		"8M); default 128\n"
		"  -o, --output FILE  write perf.data (-: perf's pipe format "
		"on stdout)\n"
		"      --json         stream JSON Lines instead of perf "
		"script lines\n"
		"  -g, --call-graph fp|dwarf[,SIZE]|no  call chains\n"
		"  -d, --data         sample data addresses\n"
		"  -R, --raw-samples  raw data of every event\n"
		"      --all-user, --all-kernel  every event in one mode\n"
		"      --switch-events  record context switches "
		"(PERF_RECORD_SWITCH*)\n"
		"      --overwrite    flight recorder: keep the newest data, "
		"write it on\n"
		"                     SIGUSR2 and at exit\n"
		"  -q, --quiet        no summary\n"
		"  -i, --no-inherit   do not follow new threads and children\n"
		"      --no-symbols   print addresses without looking up "
		"symbols\n"
		"With neither -o nor --json, records stream to stdout in perf "
		"script's\n"
		"shape.  A summary goes to stderr at the end.  Exit status: 0, "
		"1 failure,\n"
		"2 usage (and perf options perfring has no equivalent for), 3 "
		"not\n"
		"permitted, 4 event unknown or unsupported, 5 tracefs, 6 mmap, "
		"127 command\n"
		"not found.\n");
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

/* -u: every thread of every process the user owns now. */
static int list_user(struct rec *R)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	if (!d)
		return fail(EX_FAIL, "/proc: %s", strerror(errno));
	while ((de = readdir(d))) {
		char p[300], line[256];
		FILE *f;
		unsigned long uid = (unsigned long)-1;
		pid_t pid;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		pid = (pid_t)atoi(de->d_name);
		snprintf(p, sizeof(p), "/proc/%s/status", de->d_name);
		f = fopen(p, "r");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "Uid: %lu", &uid) == 1)
				break;
		if (f)
			fclose(f);
		if (uid != (unsigned long)R->uid || pid == getpid())
			continue;
		list_threads(R, pid); /* gone meanwhile: skipped */
	}
	closedir(d);
	if (!R->ntargets)
		return fail(EX_FAIL,
			    "user %lu has no processes.\nFix: start one, or "
			    "record with -a.",
			    (unsigned long)R->uid);
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
	uint32_t terms = e->info.terms;
	int member = e->info.leader != (uint32_t)(e - R->ev);
	int only_cmd =
		R->cmd && !R->all_cpus && !R->npids && !R->ntids && !R->uid_set;
	long paranoid = 2;

	a->size = sizeof(*a);
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD;
	if ((R->callgraph && !(terms & PFR_PERF_TERM_CALLGRAPH_NO)) ||
	    (terms & PFR_PERF_TERM_CALLGRAPH_FP))
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (R->callgraph == 2 && !(terms & PFR_PERF_TERM_CALLGRAPH_NO)) {
		/* DWARF: the kernel's chain stops at user space; perf
		 * report unwinds the user part from the sampled registers
		 * and stack. */
		a->sample_type |= PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER | PERF_SAMPLE_ADDR |
				  PERF_SAMPLE_DATA_SRC; /* as perf */
		a->sample_regs_user = PFR_USER_REGS;
		a->sample_stack_user = (uint32_t)R->dump_size;
		a->exclude_callchain_user = 1;
	}
	if (a->type == PERF_TYPE_TRACEPOINT || R->raw_samples)
		a->sample_type |= PERF_SAMPLE_RAW;
	if (R->sample_addr) /* -d: perf adds the data source too */
		a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	/* perf's precedence: the event's own period= or freq=, then -c or
	 * -F (tracepoints included), then each tracepoint hit, and 4000 Hz
	 * for everything else. */
	if (terms & (PFR_PERF_TERM_PERIOD | PFR_PERF_TERM_FREQ)) {
		/* as the terms set it */
	} else if (R->period) {
		a->sample_period = R->period;
		a->freq = 0;
	} else if (R->freq) {
		a->freq = 1;
		a->sample_freq = R->freq;
	} else if (a->type == PERF_TYPE_TRACEPOINT) {
		a->sample_period = 1;
	} else {
		a->freq = 1;
		a->sample_freq = 4000;
	}
	if (R->all_user) {
		a->exclude_kernel = 1;
		a->exclude_user = 0;
	} else if (R->all_kernel) {
		a->exclude_kernel = 0;
		a->exclude_user = 1;
	}
	/* The kernel's count of what it could not write, per event
	 * (PERF_FORMAT_LOST, Linux 6.0), as perf asks for it. */
	a->read_format = PERF_FORMAT_ID | (R->read_lost ? PERF_FORMAT_LOST : 0);
	/* A group's members start and stop with their leader. */
	a->disabled = !member;
	a->inherit = !R->no_inherit && !R->ntids;
	if (terms & PFR_PERF_TERM_INHERIT)
		a->inherit = 1;
	if (terms & PFR_PERF_TERM_NO_INHERIT)
		a->inherit = 0;
	a->enable_on_exec = only_cmd && !member;
	a->sample_id_all = 1;
	if (first) {
		/* Side-band records once, from the first event only. */
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->context_switch = R->switch_events;
		/* Data mappings too: for -d addresses, and for DWARF
		 * unwinding, which reads the binaries' data segments. */
		a->mmap_data = R->callgraph == 2 || R->sample_addr;
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
}

/* Whether this kernel takes PERF_FORMAT_LOST (Linux 6.0 and later). */
static int kernel_reads_lost(void)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	fd = pfr_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
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

		for (int t = 0; t < R->ntargets; t++) {
			int lfd[MAX_EV];

			for (int i = 0; i < R->nev; i++) {
				struct rec_ev *e = &R->ev[i];
				int ow = R->overwrite && !e->tracking;
				int *ring_fd = &ring_fds[ow];
				int lead = (int)e->info.leader;
				/* -G: the cgroup stands in for the pid. */
				int cg = e->cgroup_fd >= 0 && R->targets[t] < 0;
				int fd;
				uint64_t id;

				lfd[i] = -1;
				if (lead != i && lfd[lead] < 0)
					continue; /* its leader's thread exited */
				fd = pfr_perf_open(
					&e->attr,
					cg ? e->cgroup_fd : R->targets[t],
					R->cpus[c], lead != i ? lfd[lead] : -1,
					PERF_FLAG_FD_CLOEXEC |
						(cg ? PERF_FLAG_PID_CGROUP
						    : 0));
				if (fd == -ESRCH && (R->npids || R->uid_set) &&
				    R->ntargets > 1)
					continue; /* a thread exited */
				if (fd < 0)
					return open_error(R, e, R->targets[t],
							  R->cpus[c], -fd);
				lfd[i] = fd;
				R->fds[R->nfds++] = fd;
				if (e->filter &&
				    ioctl(fd, PERF_EVENT_IOC_SET_FILTER,
					  e->filter))
					return fail(EX_EVENT,
						    "event '%s': the kernel "
						    "rejected the filter '%s' "
						    "(%s).\nFix: check it "
						    "against the fields in %s/"
						    "events/%s/format.",
						    e->name, e->filter,
						    strerror(errno),
						    pfr_perf_tracefs_path(),
						    e->name);
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
	}
	return 0;
}

/* Where the cgroups that perf events can follow are: a cgroup v1
 * hierarchy with the perf_event controller, else the cgroup2 one. */
static int cgroup_root(char *root, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "r");
	char dev[256], dir[512], type[64], opts[1024];
	int found = 0;

	while (f && fscanf(f, "%255s %511s %63s %1023s %*d %*d", dev, dir, type,
			   opts) == 4) {
		int v1 = !strcmp(type, "cgroup") && strstr(opts, "perf_event");

		if (v1 || (!found && !strcmp(type, "cgroup2"))) {
			snprintf(root, len, "%s", dir);
			found = 1;
			if (v1)
				break;
		}
	}
	if (f)
		fclose(f);
	return found ? 0 : -1;
}

/* -G NAME[,NAME...]: event i counts in the i-th cgroup (one name: all of
 * them; an empty name: none), each opened as its cgroupfs directory. */
static int open_cgroups(struct rec *R)
{
	char names[1024], *p, *save = NULL, root[512] = "";
	int n = 0;

	for (int i = 0; i < R->nev; i++)
		R->ev[i].cgroup_fd = -1;
	if (!R->cgroups)
		return 0;
	if (strlen(R->cgroups) >= sizeof(names))
		return pfr_cli_usage_error("record", "-G: list too long");
	if (cgroup_root(root, sizeof(root)))
		return fail(
			EX_FAIL,
			"-G: no cgroup file system with perf_event is "
			"mounted.\nFix: mount -t cgroup2 none /sys/fs/cgroup "
			"(or a cgroup v1 hierarchy with -o perf_event).");
	snprintf(names, sizeof(names), "%s", R->cgroups);
	/* strsep keeps the empty names. */
	for (p = names; (save = strsep(&p, ",")) && n < R->nev; n++) {
		char path[1200];
		int fd;

		if (!*save)
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, save);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return fail(EX_FAIL,
				    "cgroup '%s': %s (looked for %s).\nFix: "
				    "give a cgroup's path under %s.",
				    save, strerror(errno), path, root);
		R->ev[n].cgroup_fd = fd;
	}
	if (n == 1) /* one cgroup for every event */
		for (int i = 1; i < R->nev; i++)
			if (R->ev[0].cgroup_fd >= 0 &&
			    (R->ev[i].cgroup_fd = dup(R->ev[0].cgroup_fd)) < 0)
				return fail(EX_FAIL, "dup: %s",
					    strerror(errno));
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

/* The sample_id trailer (sample_id_all) every kernel record has, for a
 * record of pid/tid and event id, at buf; its length. */
static uint32_t sample_id_trailer(const struct rec *R, unsigned char *buf,
				  uint32_t pid, uint32_t tid, uint64_t id)
{
	uint64_t st = R->lay.sample_type, z = 0;
	uint32_t n = 0;

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
		memcpy(buf + n, &id, 8);
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
		memcpy(buf + n, &id, 8);
		n += 8;
	}
	return n;
}

/* Appends the sample_id trailer every kernel record has. */
static int synth(struct rec *R, uint32_t type, uint16_t misc, const void *body,
		 uint32_t blen, uint32_t pid, uint32_t tid)
{
	unsigned char buf[PFR_RECORD_MAX];
	struct pfr_record_header h;
	uint32_t n = (blen + 7) & ~7u;

	if (n + 64 > sizeof(buf))
		return 0;
	memset(buf, 0, n);
	memcpy(buf, body, blen);
	n += sample_id_trailer(R, buf + n, pid, tid, R->ev[0].ids[0]);
	h.type = type;
	h.misc = misc;
	h.size = (uint16_t)(n + sizeof(h));
	return push(R, &h, buf, n, 0) ? fail(EX_FAIL, "out of memory") : 0;
}

/*
 * perf's account of the samples the kernel could not write (the ring was
 * full): one PERF_RECORD_LOST_SAMPLES per event fd with its count
 * (PERF_FORMAT_LOST, read at the end), after every other record.  perf
 * report's "Total Lost Samples" is their sum.
 */
static int write_lost_samples(struct rec *R)
{
	for (int i = 0; i < R->nfds; i++) {
		uint64_t v[3]; /* value, id, lost */
		unsigned char buf[16 + 64];
		struct pfr_record_header h;
		uint32_t n = 8;

		if (!R->read_lost ||
		    read(R->fds[i], v, sizeof(v)) != (ssize_t)sizeof(v) ||
		    !v[2])
			continue;
		R->lost_counted += v[2];
		memcpy(buf, &v[2], 8);
		n += sample_id_trailer(R, buf + n, 0, 0, v[1]);
		h.type = PERF_RECORD_LOST_SAMPLES;
		h.misc = 0;
		h.size = (uint16_t)(n + sizeof(h));
		if (R->file && pfr_perf_file_write(R->file, &h, buf, n))
			return fail(EX_FAIL, "writing %s: %s", R->output,
				    strerror(errno));
	}
	return 0;
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
		/* Files, and the vdso (perf shows its symbols and lists
		 * its build id; the kernel announces it only at exec). */
		if ((perm[2] != 'x' &&
		     !((R->callgraph == 2 || R->sample_addr) &&
		       perm[0] == 'r')) ||
		    (path[0] != '/' && strcmp(path, "[vdso]")))
			continue;
		if (path[0] != '/')
			maj = min = 0, ino = 0;
		prot = (perm[0] == 'r' ? PROT_READ : 0) |
		       (perm[1] == 'w' ? PROT_WRITE : 0) |
		       (perm[2] == 'x' ? PROT_EXEC : 0);
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
		err = synth(R, PERF_RECORD_MMAP2,
			    PERF_RECORD_MISC_USER |
				    (perm[2] == 'x'
					     ? 0
					     : PERF_RECORD_MISC_MMAP_DATA),
			    body, 64 + (uint32_t)strlen(path) + 1, upid, upid);
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
	if (R->all_cpus || R->uid_set) {
		DIR *d = opendir("/proc");
		struct dirent *de;

		while (d && (de = readdir(d)) && !err)
			if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
				err = synth_process(R, (pid_t)atoi(de->d_name));
		if (d)
			closedir(d);
	} else if (R->npids) {
		for (int i = 0; i < R->npids && !err; i++)
			err = synth_process(R, R->pids[i]);
	} else if (R->ntids) {
		for (int i = 0; i < R->ntids && !err; i++) {
			char p[64];
			long tgid = R->tids[i];
			FILE *f;
			char line[256];

			snprintf(p, sizeof(p), "/proc/%d/status",
				 (int)R->tids[i]);
			f = fopen(p, "r");
			while (f && fgets(line, sizeof(line), f))
				if (sscanf(line, "Tgid: %ld", &tgid) == 1)
					break;
			if (f)
				fclose(f);
			err = synth_process(R, (pid_t)tgid);
		}
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
			"\"decode_errors\":%llu,\"throttle\":%llu,"
			"\"unthrottle\":%llu,\"lost_counted\":%llu,"
			"\"rings\":%d,"
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
			(unsigned long long)R->decode_errors,
			(unsigned long long)R->by_type[PERF_RECORD_THROTTLE],
			(unsigned long long)R->by_type[PERF_RECORD_UNTHROTTLE],
			(unsigned long long)R->lost_counted, R->nrings,
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
	if (R->by_type[PERF_RECORD_THROTTLE])
		fprintf(f,
			"[ perfring record: the kernel throttled sampling %llu "
			"times (%llu unthrottled): samples over "
			"kernel.perf_event_max_sample_rate's CPU budget were "
			"not taken ]\n",
			(unsigned long long)R->by_type[PERF_RECORD_THROTTLE],
			(unsigned long long)R->by_type[PERF_RECORD_UNTHROTTLE]);
	if (R->lost_counted != R->lost)
		fprintf(f,
			"[ perfring record: the kernel counted %llu samples "
			"it could not write (PERF_FORMAT_LOST) ]\n",
			(unsigned long long)R->lost_counted);
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

/* --- options, in perf record's grammar --- */

enum {
	O_EVENT = 1,
	O_FILTER,
	O_COUNT,
	O_FREQ,
	O_ALL,
	O_PID,
	O_TID,
	O_UID,
	O_CPU,
	O_CGROUP,
	O_MMAP,
	O_OUTPUT,
	O_JSON,
	O_G,
	O_CALLGRAPH,
	O_SWITCH_EVENTS,
	O_OVERWRITE,
	O_QUIET,
	O_NO_INHERIT,
	O_NO_SYMS,
	O_ADDR,
	O_RAW,
	O_ALL_USER,
	O_ALL_KERNEL,
	O_HELP,
	O_NOOP, /* accepted; perfring always does it, or it changes nothing */
	O_NONE, /* perf has it, perfring does not */
};

struct ropt {
	char s; /* short name, or 0 */
	const char *l; /* long name */
	int arg; /* takes a value */
	int id;
	const char *why; /* O_NONE: what to use instead */
};

static const struct ropt ropts[] = {
	{'e', "event", 1, O_EVENT, NULL},
	{0, "filter", 1, O_FILTER, NULL},
	{'c', "count", 1, O_COUNT, NULL},
	{'F', "freq", 1, O_FREQ, NULL},
	{'a', "all-cpus", 0, O_ALL, NULL},
	{'p', "pid", 1, O_PID, NULL},
	{'t', "tid", 1, O_TID, NULL},
	{'u', "uid", 1, O_UID, NULL},
	{'C', "cpu", 1, O_CPU, NULL},
	{'G', "cgroup", 1, O_CGROUP, NULL},
	{'m', "mmap-pages", 1, O_MMAP, NULL},
	{'o', "output", 1, O_OUTPUT, NULL},
	{0, "json", 0, O_JSON, NULL},
	{'g', NULL, 0, O_G, NULL},
	{0, "call-graph", 1, O_CALLGRAPH, NULL},
	{0, "switch-events", 0, O_SWITCH_EVENTS, NULL},
	{0, "overwrite", 0, O_OVERWRITE, NULL},
	{'q', "quiet", 0, O_QUIET, NULL},
	{'i', "no-inherit", 0, O_NO_INHERIT, NULL},
	{0, "no-symbols", 0, O_NO_SYMS, NULL},
	{'d', "data", 0, O_ADDR, NULL},
	{'R', "raw-samples", 0, O_RAW, NULL},
	{0, "all-user", 0, O_ALL_USER, NULL},
	{0, "all-kernel", 0, O_ALL_KERNEL, NULL},
	{'h', "help", 0, O_HELP, NULL},
	{'T', "timestamp", 0, O_NOOP, NULL},
	{'P', "period", 0, O_NOOP, NULL},
	{0, "sample-cpu", 0, O_NOOP, NULL},
	{'v', "verbose", 0, O_NOOP, NULL},
	{'N', "no-buildid-cache", 0, O_NOOP, NULL},
	{'s', "stat", 0, O_NONE, "use perf stat for per-thread counts"},
	{'n', "no-samples", 0, O_NONE, "use perf stat to count"},
	{'b', "branch-any", 0, O_NONE, "branch stacks need a hardware PMU"},
	{'j', "branch-filter", 1, O_NONE, "branch stacks need a hardware PMU"},
	{'W', "weight", 0, O_NONE, NULL},
	{'k', "clockid", 1, O_NONE, "timestamps are perf_clock's"},
	{'S', "snapshot", 2, O_NONE,
	 "use --overwrite, which writes on SIGUSR2"},
	{'z', "compression-level", 2, O_NONE, NULL},
	{'r', "realtime", 1, O_NONE, NULL},
	{'D', "delay", 1, O_NONE, NULL},
	{'B', "no-buildid", 0, O_NONE, NULL},
	{0, "switch-output", 2, O_NONE,
	 "run perfring record again for each file"},
	{0, "switch-max-files", 1, O_NONE, NULL},
	{0, "per-thread", 0, O_NONE, NULL},
	{0, "user-regs", 1, O_NONE, NULL},
	{0, "intr-regs", 1, O_NONE, NULL},
	{0, "max-size", 1, O_NONE, NULL},
	{0, "namespaces", 0, O_NONE, NULL},
	{0, "all-cgroups", 0, O_NONE, NULL},
	{0, "mmap-flush", 1, O_NONE, NULL},
	{0, "tail-synthesize", 0, O_NONE, NULL},
	{0, "kcore", 0, O_NONE, NULL},
	{0, "threads", 2, O_NONE, NULL},
	{0, "control", 1, O_NONE, NULL},
	{0, "affinity", 1, O_NONE, NULL},
	{0, "aux-sample", 2, O_NONE, NULL},
	{0, "timestamp-filename", 0, O_NONE, NULL},
	{0, "timestamp-boundary", 0, O_NONE, NULL},
	{0, "off-cpu", 0, O_NONE, NULL},
	{0, "phys-data", 0, O_NONE, NULL},
	{0, "data-page-size", 0, O_NONE, NULL},
	{0, "code-page-size", 0, O_NONE, NULL},
	{0, "transaction", 0, O_NONE, NULL},
	{0, "running-time", 0, O_NONE, NULL},
	{0, "inherit-stat", 0, O_NONE, NULL},
	{0, "proc-map-timeout", 1, O_NONE, NULL},
	{0, "buildid-all", 0, O_NONE, NULL},
	{0, "buildid-mmap", 0, O_NONE, NULL},
	{0, "no-bpf-event", 0, O_NONE, NULL},
	{0, "vmlinux", 1, O_NONE, NULL},
	{0, "setup-filter", 1, O_NONE, NULL},
};
#define NROPTS (sizeof(ropts) / sizeof(ropts[0]))

static int no_equivalent(const char *opt, const char *val, const char *why)
{
	fprintf(stderr,
		"perfring record: %s%s%s: no equivalent in perfring%s%s\n", opt,
		val ? " " : "", val ? val : "", why ? "; " : "",
		why ? why : "");
	return 2;
}

/* A long option by its name or an unambiguous prefix of it. */
static const struct ropt *find_long(const char *name, size_t len, int *amb)
{
	const struct ropt *hit = NULL;

	*amb = 0;
	for (size_t k = 0; k < NROPTS; k++)
		if (ropts[k].l && strlen(ropts[k].l) == len &&
		    !strncmp(ropts[k].l, name, len))
			return &ropts[k];
	for (size_t k = 0; k < NROPTS; k++)
		if (ropts[k].l && !strncmp(ropts[k].l, name, len)) {
			if (hit)
				*amb = 1;
			hit = &ropts[k];
		}
	return *amb ? NULL : hit;
}

/* -m: pages (rounded up to a power of two), or bytes with a B, K, M or G
 * suffix, as perf takes it. */
static int parse_pages(const char *v, unsigned long long *pages)
{
	unsigned long long n, psz = (unsigned long long)getpagesize();
	char *end;

	if (!*v || *v == '-' || strchr(v, ','))
		return -1;
	errno = 0;
	n = strtoull(v, &end, 0);
	if (errno || end == v)
		return -1;
	if (*end) {
		unsigned long long mul = 1;

		switch (*end | 0x20) {
		case 'b':
			break;
		case 'k':
			mul = 1ULL << 10;
			break;
		case 'm':
			mul = 1ULL << 20;
			break;
		case 'g':
			mul = 1ULL << 30;
			break;
		default:
			return -1;
		}
		if (end[1] || n > (1ULL << 40) / mul)
			return -1;
		n = n * mul / psz;
	}
	if (!n || n > (1ULL << 30))
		return -1;
	while (n & (n - 1)) /* round up to a power of two */
		n = (n | (n - 1)) + 1;
	*pages = n;
	return 0;
}

/* A comma list of process or thread ids. */
static int parse_ids(const char *v, pid_t *ids, int max, int *n)
{
	char buf[1024], *save = NULL, *t;

	if (strlen(v) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", v);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		unsigned long long x;

		if (pfr_cli_parse_u64(t, &x) || !x || x > 0x7fffffff ||
		    *n == max)
			return -1;
		ids[(*n)++] = (pid_t)x;
	}
	return *n ? 0 : -1;
}

static int add_events(struct rec *R, const char *v)
{
	static struct perf_event_attr attrs[MAX_EV];
	static struct pfr_perf_evinfo info[MAX_EV];
	uint32_t n = 0;
	int err;

	/* One slot stays free for --overwrite's side-band event. */
	err = pfr_perf_event_list_parse(v, attrs, info, MAX_EV - 1 - R->nev, &n,
					geteuid() == 0);
	if (err == -PFR_PERF_E_TOO_MANY)
		return pfr_cli_usage_error("record", "at most %d events",
					   MAX_EV - 1);
	if (err == -PFR_PERF_E_EVENT_SYNTAX)
		return pfr_cli_usage_error("record", "bad event list '%s': %s",
					   v, pfr_perf_strerror(err));
	if (err)
		return event_parse_error(v, err);
	R->last_e = R->nev;
	for (uint32_t i = 0; i < n; i++) {
		struct rec_ev *e = &R->ev[R->nev];

		e->attr = attrs[i];
		e->info = info[i];
		e->info.leader += (uint32_t)R->nev - i;
		snprintf(e->spec, sizeof(e->spec), "%.159s", info[i].name);
		snprintf(e->name, sizeof(e->name), "%.159s", info[i].name);
		R->nev++;
	}
	return 0;
}

static int parse_cpus(struct rec *R, const char *v)
{
	static int online[MAX_CPUS];
	int non = pfr_perf_online_cpus(online, MAX_CPUS);
	int n = pfr_perf_cpu_list(v, R->cpus, MAX_CPUS);

	if (n <= 0)
		return pfr_cli_usage_error(
			"record", "bad -C '%s': a cpu list such as 0-3,6", v);
	for (int i = 0; i < n; i++) {
		int found = 0;

		for (int k = 0; k < non; k++)
			found |= online[k] == R->cpus[i];
		if (!found)
			return pfr_cli_usage_error(
				"record", "bad -C '%s': CPU %d is not online",
				v, R->cpus[i]);
	}
	R->ncpu = n;
	R->cpus_given = 1;
	return 0;
}

/* One option with its value (NULL for a flag). */
static int apply_opt(struct rec *R, const struct ropt *o, const char *v,
		     const char *spelled)
{
	unsigned long long n;

	switch (o->id) {
	case O_EVENT:
		return add_events(R, v);
	case O_FILTER: {
		int any = 0;

		for (int i = R->last_e; i < R->nev; i++)
			if (R->ev[i].attr.type == PERF_TYPE_TRACEPOINT) {
				R->ev[i].filter = v;
				any = 1;
			}
		if (!any)
			return pfr_cli_usage_error(
				"record",
				"--filter must follow a -e with a tracepoint");
		return 0;
	}
	case O_COUNT:
		if (pfr_cli_parse_u64(v, &n) || !n)
			return pfr_cli_usage_error(
				"record", "bad -c '%s': a count > 0", v);
		R->period = n;
		return 0;
	case O_FREQ:
		if (!strcmp(v, "max")) {
			long rate = 0;

			if (read_int_file("/proc/sys/kernel/"
					  "perf_event_max_sample_rate",
					  &rate) ||
			    rate <= 0)
				return fail(
					EX_FAIL,
					"-F max: cannot read "
					"kernel.perf_event_max_sample_rate");
			fprintf(stderr,
				"info: Using a maximum frequency rate of %ld "
				"Hz\n",
				rate);
			R->freq = (unsigned long long)rate;
			return 0;
		}
		if (pfr_cli_parse_u64(v, &n) || !n || n > 1000000000)
			return pfr_cli_usage_error(
				"record", "bad -F '%s': a frequency > 0 or max",
				v);
		R->freq = n;
		return 0;
	case O_ALL:
		R->all_cpus = 1;
		return 0;
	case O_PID:
		if (parse_ids(v, R->pids, MAX_IDS, &R->npids))
			return pfr_cli_usage_error(
				"record", "bad %s '%s': a process id list",
				spelled, v);
		R->pid = R->pids[0];
		return 0;
	case O_TID:
		if (parse_ids(v, R->tids, MAX_IDS, &R->ntids))
			return pfr_cli_usage_error(
				"record", "bad %s '%s': a thread id list",
				spelled, v);
		R->tid = R->tids[0];
		return 0;
	case O_UID: {
		struct passwd *pw = getpwnam(v);

		if (pw)
			R->uid = pw->pw_uid;
		else if (!pfr_cli_parse_u64(v, &n) && n < 0xffffffffULL)
			R->uid = (uid_t)n;
		else
			return pfr_cli_usage_error(
				"record", "bad -u '%s': no such user", v);
		R->uid_set = 1;
		return 0;
	}
	case O_CPU:
		return parse_cpus(R, v);
	case O_CGROUP:
		R->cgroups = v;
		return 0;
	case O_MMAP:
		if (parse_pages(v, &n))
			return pfr_cli_usage_error(
				"record",
				"bad -m '%s': data pages per ring (rounded up "
				"to a power of two) or a size such as 512K, 8M",
				v);
		R->pages = n;
		return 0;
	case O_OUTPUT:
		R->output = v;
		return 0;
	case O_JSON:
		R->json = 1;
		return 0;
	case O_G:
		R->callgraph = 1;
		return 0;
	case O_CALLGRAPH:
		if (!strcmp(v, "fp")) {
			R->callgraph = 1;
			return 0;
		}
		if (!strcmp(v, "no")) {
			R->callgraph = 0;
			return 0;
		}
		if (!strncmp(v, "dwarf", 5) && (!v[5] || v[5] == ',')) {
			/* The user stack and registers go into each sample
			 * for perf report to unwind with the DWARF CFI;
			 * size: the stack bytes (8192 as perf; at most
			 * 65528, a multiple of 8). */
			n = 8192;
			if (v[5] &&
			    (pfr_cli_parse_u64(v + 6, &n) || !n || n > 65528))
				return pfr_cli_usage_error(
					"record",
					"bad %s '%s': dwarf,SIZE with SIZE "
					"at most 65528",
					spelled, v);
			if (!PFR_USER_REGS)
				return no_equivalent(
					spelled, v,
					"no user register mask known for this "
					"architecture");
			R->callgraph = 2;
			R->dump_size = (n + 7) & ~7ULL;
			return 0;
		}
		return no_equivalent(spelled, v,
				     "perfring records call chains with "
				     "--call-graph fp or dwarf");
	case O_SWITCH_EVENTS:
		R->switch_events = 1;
		return 0;
	case O_OVERWRITE:
		R->overwrite = 1;
		return 0;
	case O_QUIET:
		R->quiet = 1;
		return 0;
	case O_NO_INHERIT:
		R->no_inherit = 1;
		return 0;
	case O_NO_SYMS:
		R->no_syms = 1;
		return 0;
	case O_ADDR:
		R->sample_addr = 1;
		return 0;
	case O_RAW:
		R->raw_samples = 1;
		return 0;
	case O_ALL_USER:
		R->all_user = 1;
		return 0;
	case O_ALL_KERNEL:
		R->all_kernel = 1;
		return 0;
	case O_HELP:
		usage(stdout);
		return -1;
	case O_NOOP:
		return 0;
	}
	return no_equivalent(spelled, NULL, o->why);
}

/*
 * perf's option grammar (its parse-options): short options bundle (-ag)
 * and take a value attached (-F99) or as the next word (-F 99); long ones
 * take --name=value or --name value and may be shortened to any
 * unambiguous prefix; the first word that is not an option, or everything
 * after "--", is the command.
 */
static int parse_args(struct rec *R, int argc, char **argv)
{
	int i, rc;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct ropt *o = NULL;
		const char *v = NULL;

		if (!strcmp(a, "--")) {
			if (i + 1 >= argc)
				return pfr_cli_usage_error(
					"record", "'--' needs a command");
			R->cmd = argv + i + 1;
			break;
		}
		if (a[0] != '-' || !a[1]) {
			R->cmd = argv + i; /* a command without '--' */
			break;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			int amb;

			o = find_long(a + 2, len, &amb);
			if (!o)
				return pfr_cli_usage_error(
					"record", "%s option '%.*s'",
					amb ? "ambiguous" : "unknown",
					(int)len + 2, a);
			if (eq && !o->arg)
				return pfr_cli_usage_error(
					"record",
					"option '--%s' takes no value", o->l);
			if (eq)
				v = eq + 1;
			else if (o->arg == 1 && i + 1 < argc)
				v = argv[++i];
			else if (o->arg == 1)
				return pfr_cli_usage_error(
					"record", "option '%s' needs a value",
					a);
			if ((rc = apply_opt(R, o, v, a)))
				return rc;
			continue;
		}
		/* A bundle of short options; one taking a value ends it. */
		for (int j = 1; a[j]; j++) {
			char sp[3] = {'-', a[j], 0};

			o = NULL;
			for (size_t k = 0; k < NROPTS && !o; k++)
				if (ropts[k].s == a[j])
					o = &ropts[k];
			if (!o)
				return pfr_cli_usage_error(
					"record", "unknown option '%s'", sp);
			v = NULL;
			if (o->arg && a[j + 1]) {
				v = a + j + 1;
			} else if (o->arg == 1) {
				if (i + 1 >= argc)
					return pfr_cli_usage_error(
						"record",
						"option '%s' needs a value",
						sp);
				v = argv[++i];
			}
			if ((rc = apply_opt(R, o, v, sp)))
				return rc;
			if (v)
				break;
		}
	}
	if (R->period && R->freq)
		return pfr_cli_usage_error("record",
					   "-c and -F exclude each other");
	if (R->output && !strcmp(R->output, "-") && R->json)
		return pfr_cli_usage_error(
			"record", "-o - and --json both want standard output");
	if (!!R->all_cpus + !!R->npids + !!R->ntids + !!R->uid_set > 1)
		return pfr_cli_usage_error(
			"record", "-a, -p, -t and -u exclude each other");
	if (R->cgroups && !R->all_cpus && !R->cpus_given)
		return pfr_cli_usage_error(
			"record", "-G (cgroups) needs CPU-wide recording: -a "
				  "or -C");
	/* No target and no command: every CPU, as perf does.  -C alone:
	 * those CPUs. */
	if (!R->npids && !R->ntids && !R->uid_set && !R->cmd)
		R->all_cpus = 1;
	if (R->cpus_given && !R->npids && !R->ntids && !R->uid_set &&
	    !(R->cmd && !R->all_cpus))
		R->all_cpus = 1;
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
	struct stat ost;
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
	/* -o must be a file: opening a FIFO for writing would wait for a
	 * reader (checked before anything starts; /dev/null is allowed) */
	if (R->output && !stat(R->output, &ost) && !S_ISREG(ost.st_mode) &&
	    !S_ISCHR(ost.st_mode))
		return pfr_cli_usage_error("record",
					   "-o %s: not a regular file (a "
					   "FIFO, socket or directory cannot "
					   "hold perf.data)",
					   R->output);
	if (!R->nev && (rc = add_events(R, "cpu-clock")))
		return rc;
	if (R->overwrite) {
		/* The flight recorder keeps only the newest records; the
		 * side-band (mmap, comm, task) that symbolizes them goes to
		 * a dummy event with ordinary rings, as perf does. */
		struct rec_ev *e = &R->ev[R->nev];

		snprintf(e->spec, sizeof(e->spec), "dummy");
		if (pfr_perf_event_parse("dummy", &e->attr, e->name,
					 sizeof(e->name), 0))
			return fail(EX_FAIL, "no dummy event");
		e->info.leader = (uint32_t)R->nev;
		e->info.nr_members = 1;
		e->tracking = 1;
		R->nev++;
	}
	R->read_lost = kernel_reads_lost();
	for (int i = 0; i < R->nev; i++)
		setup_attr(R, &R->ev[i],
			   R->overwrite ? R->ev[i].tracking : i == 0);
	/* One layout per session (the merge and the decoder read every
	 * record with it): the union of what the events sample. */
	R->lay.sample_type = 0;
	for (int i = 0; i < R->nev; i++)
		R->lay.sample_type |= R->ev[i].attr.sample_type;
	for (int i = 0; i < R->nev; i++)
		R->ev[i].attr.sample_type = R->lay.sample_type;
	R->lay.sample_id_all = 1;
	if ((rc = open_cgroups(R)))
		return rc;
	if (!R->cpus_given)
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
	} else if (R->npids) {
		for (int i = 0; i < R->npids; i++)
			if ((rc = list_threads(R, R->pids[i])))
				return rc;
	} else if (R->ntids) {
		for (int i = 0; i < R->ntids; i++)
			add_target(R, R->tids[i]);
	} else if (R->uid_set) {
		if ((rc = list_user(R)))
			return rc;
	}
	if (R->cmd) {
		rc = start_command(R, &orig);
		if (rc)
			return rc;
		/* With -p, -t or -u the command only times the recording
		 * (perf record -p PID -- sleep 5). */
		if (!R->ntargets)
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
		for (int i = 0; !rc && i < R->nev; i++)
			if (R->ev[i].info.nr_members > 1 &&
			    pfr_perf_file_add_group(R->file, "{anon_group}",
						    (uint32_t)i,
						    R->ev[i].info.nr_members))
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
	if (!R->ev[0].attr.enable_on_exec)
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
	if (!rc)
		rc = write_lost_samples(R);
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
	for (int i = 0; i < R->nev; i++) {
		free(R->ev[i].ids);
		if (R->ev[i].cgroup_fd > 0)
			close(R->ev[i].cgroup_fd);
	}
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
