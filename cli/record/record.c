/* SPDX-License-Identifier: MIT */
/*
 * perfring record: perf record's options, messages and exit statuses
 * around the library's recording session (<perfring/session.h>), which
 * opens the events (one ring per CPU), reads the kernel's rings with
 * perfring's reader, merges them into time order, synthesizes what
 * already runs and writes perf.data.  This file parses the options in
 * perf's grammar, turns them into attrs, targets and session options,
 * prints the records (perf script's shape or JSON Lines), explains each
 * failure with its fix and exit status, and prints the summary.  See
 * man/perfring-record.1.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sched.h>
#include <linux/perf_event.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perfring/perf.h>
#include <perfring/perfdata.h>

#include "../cli.h"
#include "../perfopt.h"

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
	int exclude_perf; /* --exclude-perf: not perfring's own hits */
	char *filter_buf; /* the filter made for exclude_perf */
	int cgroup_fd; /* -G: the cgroup's directory, or -1 */
	struct perf_event_attr attr;
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
	const char *cpu_list; /* -C */
	int cpus[MAX_CPUS];
	const char *cgroups;
	char **cmd;
	unsigned long long pages;
	const char *output;
	int stream; /* --stream: text on stdout */
	int no_buildid, clockid, delay_ms, zlevel, ts_filename;
	int buildid_all, no_buildid_cache; /* --buildid-all, -N */
	const char *buildid_dir; /* --buildid-dir: the build-id cache */
	unsigned long long max_size; /* --max-size: bytes, 0: none */
	int switch_mode; /* --switch-output: SW_* */
	unsigned long long switch_size, switch_secs;
	int switch_max; /* --switch-max-files */
	char **switch_files; /* the files written, oldest first */
	int nswitch;
	const char *threads; /* --threads[=SPEC] */
	int group, exclude_perf, user_cc, kernel_cc, no_bpf_event, dry_run;
	int rt_prio;
	int size_hit; /* --max-size or a size switch requested */
	char **cmdline; /* the file's command line */
	/* the recording */
	struct pfr_perf_session *sess;
	int writing; /* the output file was created */
	struct pfr_perfdata_printer *out;
	uint64_t out_bad; /* records the printer could not decode */
	struct rusage ru_loop; /* at the start of the reading loop */
};

/* --switch-output's triggers. */
#define SW_SIGNAL 1
#define SW_SIZE 2
#define SW_TIME 3

/* The session the signal handlers talk to (requests are
 * async-signal-safe), NULL outside the recording. */
static struct pfr_perf_session *volatile sig_sess;
static volatile sig_atomic_t sig_switch; /* SIGUSR2 switches the file */

static void on_signal(int s)
{
	unsigned int what = PFR_PERF_REQ_STOP;

	if (s == SIGCHLD)
		what = PFR_PERF_REQ_CHILD;
	else if (s == SIGUSR2 && sig_switch)
		what = PFR_PERF_REQ_SWITCH;
	else if (s == SIGUSR2)
		what = PFR_PERF_REQ_SNAPSHOT;
	else if (s == SIGALRM)
		what = PFR_PERF_REQ_SWITCH;
	pfr_perf_session_request(sig_sess, what);
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
		"  -o, --output FILE  the file (default ./perf.data; -: perf's "
		"pipe format)\n"
		"      --stream       print the records in perf script's shape "
		"instead\n"
		"      --json         print JSON Lines instead\n"
		"  -B, --no-buildid   no build ids in the file (nor the cache)\n"
		"  -N, --no-buildid-cache  no build-id cache update\n"
		"      --buildid-all  the build ids of every file mapped, not only "
		"of those hit\n"
		"      --buildid-dir DIR  the build-id cache ($PERF_BUILDID_DIR, "
		"~/.debug)\n"
		"  -k, --clockid CLK  monotonic, monotonic_raw, realtime, "
		"boottime, tai\n"
		"  -D, --delay MSECS  enable the events this long after the "
		"start (-1: never)\n"
		"      --max-size SZ  stop when the file passes SZ (10M)\n"
		"  -z, --compression-level[=N]  zstd-compressed records "
		"(level 1-22)\n"
		"      --switch-output[=signal|SIZE|TIME]  rotate the file "
		"(SIGUSR2, 10M, 30s)\n"
		"      --threads[=cpu|core|package|numa|MASKS]  reader "
		"threads\n"
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
		"      --no-NAME      perf's negation of --NAME (--inherit, "
		"--buildid,\n"
		"                     --samples for the --no-* ones): the "
		"default back\n"
		"      --switch-max-files N, --timestamp-filename  with "
		"--switch-output\n"
		"      --group        the events as one group\n"
		"      --exclude-perf, --user-callchains, --kernel-callchains, "
		"--no-bpf-event\n"
		"  -r, --realtime PRIO  the reader at SCHED_FIFO priority PRIO\n"
		"      --dry-run      check the options and stop\n"
		"  -T, --timestamp, -P, --period, --sample-cpu, -v, --verbose,\n"
		"      --sample-identifier, --strict-freq,\n"
		"      --no-buffering, --num-thread-synthesize, "
		"--proc-map-timeout,\n"
		"      --mmap-flush, --affinity, --tail-synthesize  accepted as "
		"perf takes\n"
		"                     them; no effect here\n"
		"perf's other options: man perfring-record.  "
		"A summary goes to stderr at the\n"
		"end.  Exit status: 0, "
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

/* --- events --- */

/* The attr as perf record sets it from the options (the session adds what
 * every event of a session needs: ids, sample_id_all, the side-band, ring
 * wake-ups). */

static void setup_attr(struct rec *R, struct rec_ev *e)
{
	struct perf_event_attr *a = &e->attr;
	uint32_t terms = e->info.terms;
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
	if (R->user_cc) /* perf's --user-callchains, --kernel-callchains */
		a->exclude_callchain_kernel = 1;
	if (R->kernel_cc)
		a->exclude_callchain_user = 1;
	if (R->clockid >= 0) {
		a->use_clockid = 1;
		a->clockid = R->clockid;
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
	a->inherit = !R->no_inherit && !R->ntids;
	if (terms & PFR_PERF_TERM_INHERIT)
		a->inherit = 1;
	if (terms & PFR_PERF_TERM_NO_INHERIT)
		a->inherit = 0;
	/* Unprivileged at paranoid 2: user space only, as perf does. */
	read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid);
	if (geteuid() != 0 && paranoid >= 2 && !a->exclude_user)
		a->exclude_kernel = a->exclude_hv = 1;
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
		return util_usage_error("record", "-G: list too long");
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

/* --- the summary --- */

static double tv_s(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

static void summary(struct rec *R, const struct pfr_perf_session_stats *st,
		    const struct rusage *ru, double wall)
{
	FILE *f = R->json ? stdout : stderr;
	double user = tv_s(ru->ru_utime), sys = tv_s(ru->ru_stime);
	double loop = user + sys - tv_s(R->ru_loop.ru_utime) -
		      tv_s(R->ru_loop.ru_stime);
	uint64_t bad = st->decode_errors + R->out_bad;
	int first = 1;

	if (R->json) {
		fprintf(f,
			"{\"type\":\"summary\",\"records\":%llu,"
			"\"by_type\":{",
			(unsigned long long)st->records);
		for (int t = 0; t < NTYPES; t++)
			if (st->by_type[t]) {
				const char *n = pfr_perf_record_name(t);

				fprintf(f, "%s\"%s\":%llu", first ? "" : ",",
					n ? n : "UNKNOWN",
					(unsigned long long)st->by_type[t]);
				first = 0;
			}
		if (st->other_types)
			fprintf(f, "%s\"other\":%llu", first ? "" : ",",
				(unsigned long long)st->other_types);
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
			(unsigned long long)st->samples,
			(unsigned long long)st->lost,
			(unsigned long long)st->lost_records,
			(unsigned long long)st->lost_samples,
			(unsigned long long)st->bytes,
			(unsigned long long)st->wakeups,
			(unsigned long long)st->snapshots,
			(unsigned long long)bad,
			(unsigned long long)st->by_type[PERF_RECORD_THROTTLE],
			(unsigned long long)st->by_type[PERF_RECORD_UNTHROTTLE],
			(unsigned long long)st->lost_counted, (int)st->nr_rings,
			R->pages * (unsigned long long)getpagesize(),
			user + sys, loop, user, sys, wall);
		return;
	}
	fprintf(f, "[ perfring record: %llu records:",
		(unsigned long long)st->records);
	for (int t = 0; t < NTYPES; t++)
		if (st->by_type[t]) {
			const char *n = pfr_perf_record_name(t);

			fprintf(f, "%s %s %llu", first ? "" : ",",
				n ? n : "UNKNOWN",
				(unsigned long long)st->by_type[t]);
			first = 0;
		}
	if (st->other_types)
		fprintf(f, "%s other %llu", first ? "" : ",",
			(unsigned long long)st->other_types);
	fprintf(f, " ]\n");
	fprintf(f,
		"[ perfring record: %llu samples, %llu lost (in %llu LOST "
		"records), %llu bytes from %d ring%s of %llu KiB, %llu "
		"wake-ups%s ]\n",
		(unsigned long long)st->samples, (unsigned long long)st->lost,
		(unsigned long long)st->lost_records,
		(unsigned long long)st->bytes, (int)st->nr_rings,
		(int)st->nr_rings == 1 ? "" : "s",
		R->pages * (unsigned long long)getpagesize() / 1024,
		(unsigned long long)st->wakeups,
		R->overwrite ? " (overwrite mode)" : "");
	if (st->snapshots)
		fprintf(f, "[ perfring record: %llu snapshots ]\n",
			(unsigned long long)st->snapshots);
	if (st->lost_samples)
		fprintf(f,
			"[ perfring record: %llu samples lost before the ring "
			"(LOST_SAMPLES) ]\n",
			(unsigned long long)st->lost_samples);
	if (st->by_type[PERF_RECORD_THROTTLE])
		fprintf(f,
			"[ perfring record: the kernel throttled sampling %llu "
			"times (%llu unthrottled): samples over "
			"kernel.perf_event_max_sample_rate's CPU budget were "
			"not taken ]\n",
			(unsigned long long)st->by_type[PERF_RECORD_THROTTLE],
			(unsigned long long)
				st->by_type[PERF_RECORD_UNTHROTTLE]);
	if (st->lost_counted != st->lost)
		fprintf(f,
			"[ perfring record: the kernel counted %llu samples "
			"it could not write (PERF_FORMAT_LOST) ]\n",
			(unsigned long long)st->lost_counted);
	if (bad)
		fprintf(f,
			"[ perfring record: %llu malformed records skipped ]\n",
			(unsigned long long)bad);
	fprintf(f,
		"[ perfring record: reader CPU time %.3f s (user %.3f s, "
		"sys %.3f s; %.3f s in the read loop) over %.3f s ]\n",
		user + sys, user, sys, loop, wall);
	if (R->output)
		fprintf(f, "[ perfring record: wrote %s (%llu records) ]\n",
			R->output, (unsigned long long)st->delivered);
	if (R->cmd && st->child_reaped && WIFEXITED(st->child_status) &&
	    WEXITSTATUS(st->child_status))
		fprintf(f,
			"[ perfring record: the command exited with "
			"status %d ]\n",
			WEXITSTATUS(st->child_status));
	else if (R->cmd && st->child_reaped && WIFSIGNALED(st->child_status))
		fprintf(f,
			"[ perfring record: the command was killed by "
			"signal %d ]\n",
			WTERMSIG(st->child_status));
}

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
	O_STREAM,
	O_NO_BUILDID,
	O_NO_BUILDID_CACHE,
	O_BUILDID_ALL,
	O_BUILDID_DIR,
	O_CLOCKID,
	O_DELAY,
	O_MAX_SIZE,
	O_COMPRESS,
	O_SWITCH_OUTPUT,
	O_SWITCH_MAX_FILES,
	O_TS_FILENAME,
	O_THREADS,
	O_GROUP,
	O_EXCLUDE_PERF,
	O_USER_CALLCHAINS,
	O_KERNEL_CALLCHAINS,
	O_NO_BPF_EVENT,
	O_REALTIME,
	O_DRY_RUN,
	O_NOOP, /* accepted; perfring always does it, or it changes nothing */
	O_NONE, /* perf has it, perfring does not */
};

/* perf record's options (cli_perfopt: short, long, value, id, why). */
static const struct cli_perfopt ropts[] = {
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
	{0, "stream", 0, O_STREAM, NULL},
	{'B', "no-buildid", 0, O_NO_BUILDID, NULL},
	{'k', "clockid", 1, O_CLOCKID, NULL},
	{'D', "delay", 1, O_DELAY, NULL},
	{0, "max-size", 1, O_MAX_SIZE, NULL},
	{'z', "compression-level", 2, O_COMPRESS, NULL},
	{0, "switch-output", 2, O_SWITCH_OUTPUT, NULL},
	{0, "switch-max-files", 1, O_SWITCH_MAX_FILES, NULL},
	{0, "timestamp-filename", 0, O_TS_FILENAME, NULL},
	{0, "threads", 2, O_THREADS, NULL},
	{0, "group", 0, O_GROUP, NULL},
	{0, "exclude-perf", 0, O_EXCLUDE_PERF, NULL},
	{0, "user-callchains", 0, O_USER_CALLCHAINS, NULL},
	{0, "kernel-callchains", 0, O_KERNEL_CALLCHAINS, NULL},
	{0, "no-bpf-event", 0, O_NO_BPF_EVENT, NULL},
	{'r', "realtime", 1, O_REALTIME, NULL},
	{0, "dry-run", 0, O_DRY_RUN, NULL},
	{'N', "no-buildid-cache", 0, O_NO_BUILDID_CACHE, NULL},
	{0, "buildid-all", 0, O_BUILDID_ALL, NULL},
	{0, "buildid-dir", 1, O_BUILDID_DIR, NULL},
	/* What perfring always does, or what changes nothing here. */
	{'T', "timestamp", 0, O_NOOP, NULL},
	{'P', "period", 0, O_NOOP, NULL},
	{0, "sample-cpu", 0, O_NOOP, NULL},
	{0, "sample-identifier", 0, O_NOOP, NULL},
	{0, "strict-freq", 0, O_NOOP, NULL}, /* -F above the limit fails */
	{'v', "verbose", 0, O_NOOP, NULL},
	{0, "no-buffering", 0, O_NOOP, NULL},
	{0, "num-thread-synthesize", 1, O_NOOP, NULL},
	{0, "proc-map-timeout", 1, O_NOOP, NULL},
	{0, "mmap-flush", 1, O_NOOP, NULL},
	{0, "affinity", 1, O_NOOP, NULL},
	{0, "tail-synthesize", 0, O_NOOP, NULL},
	/* perf has them, perfring does not. */
	{'s', "stat", 0, O_NONE, "use perf stat for per-thread counts"},
	{'n', "no-samples", 0, O_NONE, "use perf stat to count"},
	{'b', "branch-any", 0, O_NONE, "branch stacks need a hardware PMU"},
	{'j', "branch-filter", 1, O_NONE, "branch stacks need a hardware PMU"},
	{'W', "weight", 0, O_NONE, NULL},
	{'I', "intr-regs", 2, O_NONE, NULL},
	{'S', "snapshot", 2, O_NONE,
	 "use --overwrite, which writes on SIGUSR2"},
	{0, "per-thread", 0, O_NONE, NULL},
	{0, "user-regs", 1, O_NONE, NULL},
	{0, "namespaces", 0, O_NONE, NULL},
	{0, "all-cgroups", 0, O_NONE, NULL},
	{0, "kcore", 0, O_NONE, NULL},
	{0, "control", 1, O_NONE, NULL},
	{0, "aux-sample", 2, O_NONE, NULL},
	{0, "timestamp-boundary", 0, O_NONE, NULL},
	{0, "off-cpu", 0, O_NONE, "it needs perf's BPF programs"},
	{0, "phys-data", 0, O_NONE, NULL},
	{0, "data-page-size", 0, O_NONE, NULL},
	{0, "code-page-size", 0, O_NONE, NULL},
	{0, "transaction", 0, O_NONE, NULL},
	{0, "running-time", 0, O_NONE, NULL},
	{0, "inherit-stat", 0, O_NONE, NULL},
	{0, "buildid-mmap", 0, O_NONE, NULL},
	{0, "vmlinux", 1, O_NONE, NULL},
	{0, "setup-filter", 1, O_NONE, NULL},
	{0, "aio", 2, O_NONE, NULL},
	{0, "clang-opt", 1, O_NONE, NULL},
	{0, "clang-path", 1, O_NONE, NULL},
	{0, "debuginfod", 2, O_NONE, NULL},
	{0, "switch-output-event", 1, O_NONE, NULL},
	{0, "synth", 1, O_NONE, NULL},
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

/* -m: pages (rounded up to a power of two), or bytes with a B, K, M or G
 * suffix (util_parse_size()), as perf takes it: decimal only, so 010
 * is 10 pages (16 after rounding) and 0x10 is refused. */
static int parse_pages(const char *v, unsigned long long *pages)
{
	unsigned long long n, psz = (unsigned long long)getpagesize();
	size_t l = strlen(v);

	if (util_parse_size(v, &n))
		return -1;
	if (l && (v[l - 1] < '0' || v[l - 1] > '9')) { /* bytes */
		if (n > (1ULL << 40))
			return -1;
		n = (n + psz - 1) / psz;
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

		if (util_parse_u64(t, &x) || !x || x > 0x7fffffff || *n == max)
			return -1;
		ids[(*n)++] = (pid_t)x;
	}
	return *n ? 0 : -1;
}

/* Appends the tracepoints under tracefs that match SYS:NAME globs (as
 * perf expands 'sched:sched_process_*') to out, comma-separated; the
 * number appended. */
static int glob_tracepoints(const char *sysg, const char *nameg, char *out,
			    size_t len)
{
	char dir[600];
	DIR *d, *sd;
	struct dirent *a, *b;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/events", pfr_perf_tracefs_path());
	if (!(d = opendir(dir)))
		return 0;
	while ((a = readdir(d))) {
		char sub[900];

		if (a->d_name[0] == '.' || fnmatch(sysg, a->d_name, 0))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, a->d_name);
		if (!(sd = opendir(sub)))
			continue;
		while ((b = readdir(sd))) {
			size_t l = strlen(out);

			if (b->d_name[0] == '.' || b->d_type != DT_DIR ||
			    fnmatch(nameg, b->d_name, 0))
				continue;
			if (l + strlen(a->d_name) + strlen(b->d_name) + 3 >=
			    len)
				break;
			snprintf(out + l, len - l, "%s%s:%s", l ? "," : "",
				 a->d_name, b->d_name);
			n++;
		}
		closedir(sd);
	}
	closedir(d);
	return n;
}

/* The event list with each SYS:NAME glob (*, ? or [) replaced by the
 * tracepoints it matches; an item that matches none stays as it is (its
 * error comes from the parser). */
static const char *expand_globs(const char *v, char *out, size_t len)
{
	char item[512];
	const char *p = v;
	int depth = 0;

	if (!strpbrk(v, "*?["))
		return v;
	out[0] = 0;
	while (*p) {
		size_t k = 0, l;
		char *colon;

		/* one item: up to a comma outside {} and // */
		for (; *p && (*p != ',' || depth); p++) {
			if (*p == '{' || (*p == '/' && !(depth & 0x100)))
				depth += *p == '{' ? 1 : 0x100;
			else if (*p == '}' || *p == '/')
				depth -= *p == '}' ? 1 : 0x100;
			if (k + 1 < sizeof(item))
				item[k++] = *p;
		}
		item[k] = 0;
		if (*p == ',')
			p++;
		l = strlen(out);
		colon = strchr(item, ':');
		if (strpbrk(item, "*?[") && colon && !strpbrk(item, "{}/") &&
		    !strchr(colon + 1, ':')) {
			char tps[8192] = "";

			*colon = 0;
			if (glob_tracepoints(item, colon + 1, tps,
					     sizeof(tps))) {
				snprintf(out + l, len - l, "%s%s", l ? "," : "",
					 tps);
				continue;
			}
			*colon = ':';
		}
		snprintf(out + l, len - l, "%s%s", l ? "," : "", item);
	}
	return out;
}

static int add_events(struct rec *R, const char *v)
{
	static char expanded[16384];

	static struct perf_event_attr attrs[MAX_EV];
	static struct pfr_perf_evinfo info[MAX_EV];
	uint32_t n = 0;
	int err;

	v = expand_globs(v, expanded, sizeof(expanded));
	/* One slot stays free for --overwrite's side-band event. */
	err = pfr_perf_event_list_parse(v, attrs, info, MAX_EV - 1 - R->nev, &n,
					geteuid() == 0);
	if (err == -PFR_PERF_E_TOO_MANY)
		return util_usage_error("record", "at most %d events",
					MAX_EV - 1);
	if (err == -PFR_PERF_E_EVENT_SYNTAX)
		return util_usage_error("record", "bad event list '%s': %s", v,
					pfr_perf_strerror(err));
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
		return util_usage_error(
			"record", "bad -C '%s': a cpu list such as 0-3,6", v);
	for (int i = 0; i < n; i++) {
		int found = 0;

		for (int k = 0; k < non; k++)
			found |= online[k] == R->cpus[i];
		if (!found)
			return util_usage_error(
				"record", "bad -C '%s': CPU %d is not online",
				v, R->cpus[i]);
	}
	R->cpu_list = v;
	R->cpus_given = 1;
	return 0;
}

/* --filter: for the tracepoints of the last -e. */
static int opt_filter(struct rec *R, const char *v)
{
	int any = 0;

	for (int i = R->last_e; i < R->nev; i++)
		if (R->ev[i].attr.type == PERF_TYPE_TRACEPOINT) {
			R->ev[i].filter = v;
			any = 1;
		}
	if (!any)
		return util_usage_error(
			"record",
			"--filter must follow a -e with a tracepoint");
	return 0;
}

/* --exclude-perf: for the tracepoints of the last -e. */
static int opt_exclude_perf(struct rec *R)
{
	int any = 0;

	for (int i = R->last_e; i < R->nev; i++)
		if (R->ev[i].attr.type == PERF_TYPE_TRACEPOINT)
			R->ev[i].exclude_perf = any = 1;
	if (!any)
		return util_usage_error(
			"record",
			"--exclude-perf must follow a -e with a tracepoint");
	return 0;
}

/* A tracepoint's filter with --exclude-perf's condition added. */
static int make_filter(struct rec_ev *e)
{
	size_t n;

	if (!e->exclude_perf)
		return 0;
	n = (e->filter ? strlen(e->filter) : 0) + 64;
	e->filter_buf = malloc(n);
	if (!e->filter_buf)
		return -1;
	if (e->filter)
		snprintf(e->filter_buf, n, "(%s) && common_pid != %d",
			 e->filter, (int)getpid());
	else
		snprintf(e->filter_buf, n, "common_pid != %d", (int)getpid());
	e->filter = e->filter_buf;
	return 0;
}

/* -F HZ or -F max. */
static int opt_freq(struct rec *R, const char *v)
{
	unsigned long long n;

	if (!strcmp(v, "max")) {
		long rate = 0;

		if (read_int_file("/proc/sys/kernel/perf_event_max_sample_rate",
				  &rate) ||
		    rate <= 0)
			return fail(EX_FAIL,
				    "-F max: cannot read "
				    "kernel.perf_event_max_sample_rate");
		fprintf(stderr,
			"info: Using a maximum frequency rate of %ld Hz\n",
			rate);
		R->freq = (unsigned long long)rate;
		return 0;
	}
	if (util_parse_u64(v, &n) || !n || n > 1000000000)
		return util_usage_error(
			"record", "bad -F '%s': a frequency > 0 or max", v);
	R->freq = n;
	return 0;
}

/* -u USER: a name or a number. */
static int opt_uid(struct rec *R, const char *v)
{
	struct passwd *pw = getpwnam(v);
	unsigned long long n;

	if (pw)
		R->uid = pw->pw_uid;
	else if (!util_parse_u64(v, &n) && n < 0xffffffffULL)
		R->uid = (uid_t)n;
	else
		return util_usage_error("record", "bad -u '%s': no such user",
					v);
	R->uid_set = 1;
	return 0;
}

/* --call-graph fp|dwarf[,SIZE]|no. */
static int opt_callgraph(struct rec *R, const char *v, const char *spelled)
{
	unsigned long long n;

	if (!strcmp(v, "fp")) {
		R->callgraph = 1;
		return 0;
	}
	if (!strcmp(v, "no")) {
		R->callgraph = 0;
		return 0;
	}
	if (!strncmp(v, "dwarf", 5) && (!v[5] || v[5] == ',')) {
		/* The user stack and registers go into each sample for perf
		 * report to unwind with the DWARF CFI; size: the stack bytes
		 * (8192 as perf; at most 65528, a multiple of 8). */
		n = 8192;
		if (v[5] && (util_parse_u64(v + 6, &n) || !n || n > 65528))
			return util_usage_error(
				"record",
				"bad %s '%s': dwarf,SIZE with SIZE at most "
				"65528",
				spelled, v);
		if (!PFR_USER_REGS)
			return no_equivalent(spelled, v,
					     "no user register mask known for "
					     "this architecture");
		R->callgraph = 2;
		R->dump_size = (n + 7) & ~7ULL;
		return 0;
	}
	return no_equivalent(spelled, v,
			     "perfring records call chains with "
			     "--call-graph fp or dwarf");
}

/* -k: a clock by perf's names, or its number. */
static int opt_clockid(struct rec *R, const char *v)
{
	static const struct {
		const char *n;
		int id;
	} clocks[] = {{"monotonic", CLOCK_MONOTONIC},
		      {"mono", CLOCK_MONOTONIC},
		      {"monotonic_raw", CLOCK_MONOTONIC_RAW},
		      {"raw", CLOCK_MONOTONIC_RAW},
		      {"realtime", CLOCK_REALTIME},
		      {"real", CLOCK_REALTIME},
		      {"boottime", CLOCK_BOOTTIME},
		      {"boot", CLOCK_BOOTTIME},
		      {"tai", CLOCK_TAI}};
	const char *n = strncasecmp(v, "CLOCK_", 6) ? v : v + 6;
	unsigned long long id;

	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (!strcasecmp(n, clocks[i].n)) {
			R->clockid = clocks[i].id;
			return 0;
		}
	if (util_parse_u64(v, &id) || id > 64)
		return util_usage_error(
			"record",
			"bad -k '%s': a clock (monotonic, monotonic_raw, "
			"realtime, boottime, tai) or its number",
			v);
	R->clockid = (int)id;
	return 0;
}

/* A size in bytes with an optional B, K, M or G suffix (KB, MB, GB). */
static int parse_size(const char *v, unsigned long long *out)
{
	static const char units[] = "bkmg";
	unsigned long long n, mul = 1;
	const char *u;
	char *end;

	if (!*v || *v == '-')
		return -1;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || end == v)
		return -1;
	if (*end) {
		u = strchr(units, *end | 0x20);
		if (!u ||
		    (end[1] && ((end[1] | 0x20) != 'b' || end[2] || *u == 'b')))
			return -1;
		mul = 1ULL << (10 * (u - units));
	}
	if (n > (1ULL << 50) / mul)
		return -1;
	*out = n * mul;
	return 0;
}

/* --switch-output[=signal|SIZE|TIME]: SIZE with B/K/M/G, TIME with
 * s/m/h/d, as perf takes them. */
static int opt_switch_output(struct rec *R, const char *v)
{
	static const char units[] = "smhd";
	static const unsigned mul[] = {1, 60, 3600, 86400};
	size_t l = v ? strlen(v) : 0;
	unsigned long long n;
	char num[32];

	if (!v || !strcmp(v, "signal")) {
		R->switch_mode = SW_SIGNAL;
		return 0;
	}
	if (l > 1 && l < sizeof(num) && strchr(units, v[l - 1])) {
		memcpy(num, v, l - 1);
		num[l - 1] = 0;
		/* alarm() takes an unsigned int of seconds */
		if (!util_parse_u64(num, &n) && n && n <= 1000000 &&
		    n * mul[strchr(units, v[l - 1]) - units] <= 0x7fffffff) {
			R->switch_mode = SW_TIME;
			R->switch_secs =
				n * mul[strchr(units, v[l - 1]) - units];
			return 0;
		}
	} else if (!parse_size(v, &n) && n) {
		R->switch_mode = SW_SIZE;
		R->switch_size = n;
		return 0;
	}
	return util_usage_error("record",
				"bad --switch-output '%s': signal, a size "
				"(10M) or a time (30s, 5m, 1h, 1d)",
				v);
}

/* --threads: a keyword, or masks CPUS/AFFINITY[:...] whose CPUs are online
 * (set_readers() indexes its map of MAX_CPUS by them) and at most 4096
 * of them (the session's readers). */
static int opt_threads(struct rec *R, const char *v)
{
	static int online[MAX_CPUS], cpus[MAX_CPUS];
	static const char *const kw[] = {"cpu", "core", "package", "socket",
					 "numa"};
	int non = pfr_perf_online_cpus(online, MAX_CPUS), nr = 0;
	char buf[1024], *save = NULL, *m;

	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (!strcmp(v, kw[i])) {
			R->threads = v;
			return 0;
		}
	if (strlen(v) >= sizeof(buf))
		return util_usage_error("record", "bad --threads: too long "
						  "(at most 1023 characters)");
	snprintf(buf, sizeof(buf), "%s", v);
	for (m = strtok_r(buf, ":", &save); m;
	     m = strtok_r(NULL, ":", &save), nr++) {
		int n;

		m[strcspn(m, "/")] = 0;
		n = pfr_perf_cpu_list(m, cpus, MAX_CPUS);
		if (n <= 0 || nr >= 4096)
			return util_usage_error(
				"record",
				"bad --threads '%s': cpu, core, package, "
				"numa or CPUS/AFFINITY[:...] masks (at most "
				"4096, of at most %d CPUs each)",
				v, MAX_CPUS);
		for (int i = 0; i < n; i++) {
			int found = 0;

			for (int k = 0; k < non; k++)
				found |= online[k] == cpus[i];
			if (!found || cpus[i] >= MAX_CPUS)
				return util_usage_error(
					"record",
					"bad --threads '%s': CPU %d is not "
					"online; give online CPUs (as -C)",
					v, cpus[i]);
		}
	}
	R->threads = v;
	return 0;
}

/* The options perf has in its own meaning that need more than a flag. */
static int apply_perf_opt(struct rec *R, const struct cli_perfopt *o,
			  const char *v, const char *spelled)
{
	unsigned long long n;

	switch (o->id) {
	case O_CLOCKID:
		return opt_clockid(R, v);
	case O_DELAY:
		if (!strcmp(v, "-1")) {
			R->delay_ms = -1;
			return 0;
		}
		if (util_parse_u64(v, &n) || n > 0x7fffffff)
			return util_usage_error(
				"record", "bad %s '%s': milliseconds, or -1",
				spelled, v);
		R->delay_ms = (int)n;
		return 0;
	case O_MAX_SIZE:
		if (parse_size(v, &n) || !n)
			return util_usage_error(
				"record", "bad --max-size '%s': a size (10M)",
				v);
		R->max_size = n;
		return 0;
	case O_COMPRESS:
		n = 1;
		if (v && (util_parse_u64(v, &n) || !n || n > 22))
			return util_usage_error(
				"record", "bad %s '%s': a level from 1 to 22",
				spelled, v);
		R->zlevel = (int)n;
		return 0;
	case O_SWITCH_OUTPUT:
		return opt_switch_output(R, v);
	case O_SWITCH_MAX_FILES:
		if (util_parse_u64(v, &n) || n > 100000)
			return util_usage_error(
				"record", "bad --switch-max-files '%s'", v);
		R->switch_max = (int)n;
		return 0;
	case O_THREADS:
		return opt_threads(R, v ? v : "cpu");
	case O_REALTIME:
		if (util_parse_u64(v, &n) || !n || n > 99)
			return util_usage_error("record",
						"bad %s '%s': a priority 1-99",
						spelled, v);
		R->rt_prio = (int)n;
		return 0;
	}
	return no_equivalent(spelled, v, o->why);
}

/* One option with its value (NULL for a flag). */
static int apply_opt(struct rec *R, const struct cli_perfopt *o, const char *v,
		     const char *spelled)
{
	unsigned long long n;

	switch (o->id) {
	case O_EVENT:
		return add_events(R, v);
	case O_FILTER:
		return opt_filter(R, v);
	case O_COUNT:
		if (util_parse_u64(v, &n) || !n || n >> 63)
			return util_usage_error(
				"record",
				"bad -c '%s': a count from 1 to 2^63-1", v);
		R->period = n;
		return 0;
	case O_FREQ:
		return opt_freq(R, v);
	case O_ALL:
		R->all_cpus = 1;
		return 0;
	case O_PID:
		if (parse_ids(v, R->pids, MAX_IDS, &R->npids))
			return util_usage_error(
				"record", "bad %s '%s': a process id list",
				spelled, v);
		R->pid = R->pids[0];
		return 0;
	case O_TID:
		if (parse_ids(v, R->tids, MAX_IDS, &R->ntids))
			return util_usage_error("record",
						"bad %s '%s': a thread id list",
						spelled, v);
		R->tid = R->tids[0];
		return 0;
	case O_UID:
		return opt_uid(R, v);
	case O_CPU:
		return parse_cpus(R, v);
	case O_CGROUP:
		R->cgroups = v;
		return 0;
	case O_MMAP:
		if (parse_pages(v, &n))
			return util_usage_error(
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
		return opt_callgraph(R, v, spelled);
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
	case O_STREAM:
		R->stream = 1;
		return 0;
	case O_NO_BUILDID:
		R->no_buildid = 1;
		return 0;
	case O_NO_BUILDID_CACHE:
		R->no_buildid_cache = 1;
		return 0;
	case O_BUILDID_ALL:
		R->buildid_all = 1;
		return 0;
	case O_BUILDID_DIR:
		R->buildid_dir = v;
		return 0;
	case O_TS_FILENAME:
		R->ts_filename = 1;
		return 0;
	case O_GROUP:
		R->group = 1;
		return 0;
	case O_EXCLUDE_PERF:
		return opt_exclude_perf(R);
	case O_USER_CALLCHAINS:
		R->user_cc = 1;
		return 0;
	case O_KERNEL_CALLCHAINS:
		R->kernel_cc = 1;
		return 0;
	case O_NO_BPF_EVENT:
		R->no_bpf_event = 1;
		return 0;
	case O_DRY_RUN:
		R->dry_run = 1;
		return 0;
	case O_NOOP:
		return 0;
	case O_NONE:
		return no_equivalent(spelled, v, o->why);
	}
	return apply_perf_opt(R, o, v, spelled);
}

/*
 * perf's negation of option o: --no-NAME, or --NAME for an option named
 * no-NAME (perf's parse-options accepts both for every long option).  It
 * puts the option back to its default; for one perfring has no
 * equivalent of, the default is "without it", which is what perfring
 * does.  Those whose negation perf itself refuses (a usage error), or
 * that would ask for what perfring does not do, get the one-line
 * refusal.
 */
static int apply_negated(struct rec *R, const struct cli_perfopt *o,
			 const char *spelled)
{
	switch (o->id) {
	case O_COUNT:
		R->period = 0;
		return 0;
	case O_ALL:
		R->all_cpus = 0;
		return 0;
	case O_PID:
		R->npids = 0;
		R->pid = 0;
		return 0;
	case O_TID:
		R->ntids = 0;
		R->tid = 0;
		return 0;
	case O_UID:
		R->uid_set = 0;
		return 0;
	case O_CPU:
		R->cpus_given = 0;
		R->cpu_list = NULL;
		return 0;
	case O_CGROUP:
		R->cgroups = NULL;
		return 0;
	case O_OUTPUT:
		R->output = NULL;
		return 0;
	case O_JSON:
		R->json = 0;
		return 0;
	case O_CALLGRAPH:
		R->callgraph = 0;
		return 0;
	case O_SWITCH_EVENTS:
		R->switch_events = 0;
		return 0;
	case O_OVERWRITE:
		R->overwrite = 0;
		return 0;
	case O_QUIET:
		R->quiet = 0;
		return 0;
	case O_NO_INHERIT:
		R->no_inherit = 0;
		return 0;
	case O_NO_SYMS:
		R->no_syms = 0;
		return 0;
	case O_ADDR:
		R->sample_addr = 0;
		return 0;
	case O_RAW:
		R->raw_samples = 0;
		return 0;
	case O_ALL_USER:
		R->all_user = 0;
		return 0;
	case O_ALL_KERNEL:
		R->all_kernel = 0;
		return 0;
	case O_STREAM:
		R->stream = 0;
		return 0;
	case O_NO_BUILDID:
		R->no_buildid = 0;
		return 0;
	case O_CLOCKID:
		R->clockid = -1;
		return 0;
	case O_DELAY:
		R->delay_ms = 0;
		return 0;
	case O_MAX_SIZE:
		R->max_size = 0;
		return 0;
	case O_COMPRESS:
		R->zlevel = 0;
		return 0;
	case O_SWITCH_OUTPUT:
		R->switch_mode = 0;
		return 0;
	case O_SWITCH_MAX_FILES:
		R->switch_max = 0;
		return 0;
	case O_TS_FILENAME:
		R->ts_filename = 0;
		return 0;
	case O_THREADS:
		R->threads = NULL;
		return 0;
	case O_GROUP:
		R->group = 0;
		return 0;
	case O_USER_CALLCHAINS:
		R->user_cc = 0;
		return 0;
	case O_KERNEL_CALLCHAINS:
		R->kernel_cc = 0;
		return 0;
	case O_NO_BPF_EVENT:
		R->no_bpf_event = 0;
		return 0;
	case O_REALTIME:
		R->rt_prio = 0;
		return 0;
	case O_DRY_RUN:
		R->dry_run = 0;
		return 0;
	case O_NO_BUILDID_CACHE:
		R->no_buildid_cache = 0;
		return 0;
	case O_BUILDID_ALL:
		R->buildid_all = 0;
		return 0;
	case O_BUILDID_DIR:
		R->buildid_dir = NULL;
		return 0;
	case O_NOOP:
		return 0;
	case O_NONE: /* without it: what perfring does */
		return !strcmp(o->l, "synth")
			       ? no_equivalent(spelled, NULL,
					       "perfring always synthesizes "
					       "the tasks and mappings")
			       : 0;
	}
	/* -e, --filter, --exclude-perf, -F, -m, -h: perf refuses their
	 * negation too (a usage error, or a crash) */
	return no_equivalent(spelled, NULL, NULL);
}

/* What the options mean together. */
static int check_args(struct rec *R)
{
	if (R->group && R->nev > 1) { /* --group: one group of them all */
		for (int i = 0; i < R->nev; i++)
			if (R->ev[i].info.leader != (uint32_t)i ||
			    R->ev[i].info.nr_members > 1)
				return util_usage_error(
					"record",
					"--group with events already in a "
					"{group}");
		for (int i = 0; i < R->nev; i++)
			R->ev[i].info.leader = 0;
		R->ev[0].info.nr_members = (uint32_t)R->nev;
	}
	/* perf writes ./perf.data unless told otherwise; --stream and
	 * --json print the records instead (or as well, with -o). */
	if (!R->output && !R->stream && !R->json)
		R->output = "perf.data";
	if (R->output && !strcmp(R->output, "-") &&
	    (R->zlevel || R->switch_mode))
		return no_equivalent(R->zlevel ? "-z" : "--switch-output",
				     "with -o -",
				     "perf's pipe format is written "
				     "uncompressed to one stream");
	if (!R->output && (R->zlevel || R->switch_mode || R->max_size))
		return util_usage_error(
			"record", "-z, --switch-output and --max-size need a "
				  "file (not --stream or --json alone)");
	if (R->threads && R->overwrite)
		return no_equivalent("--threads", "with --overwrite",
				     "the flight recorder is read by one "
				     "thread");
	if (R->switch_mode && R->overwrite)
		return no_equivalent("--switch-output", "with --overwrite",
				     "--overwrite writes a snapshot on "
				     "SIGUSR2");
	return 0;
}

static int rec_apply(void *arg, const struct cli_perfopt *o, const char *v,
		     const char *spelled)
{
	return apply_opt(arg, o, v, spelled);
}

static int rec_negate(void *arg, const struct cli_perfopt *o,
		      const char *spelled)
{
	return apply_negated(arg, o, spelled);
}

/* The options in perf's grammar (cli/perfopt.h); the first word that is
 * not an option, or everything after "--", is the command. */
static int parse_args(struct rec *R, int argc, char **argv)
{
	const struct cli_perfopt_cmd cmd = {"record",  ropts,	   NROPTS,
					    rec_apply, rec_negate, R};
	int rest, dashdash, rc;

	if ((rc = cli_perfopt_parse(&cmd, argc, argv, &rest, &dashdash)))
		return rc;
	if (dashdash && rest >= argc)
		return util_usage_error("record", "'--' needs a command");
	if (rest < argc)
		R->cmd = argv + rest;
	if (R->period && R->freq)
		return util_usage_error("record",
					"-c and -F exclude each other");
	if (R->output && !strcmp(R->output, "-") && R->json)
		return util_usage_error(
			"record", "-o - and --json both want standard output");
	if (!!R->all_cpus + !!R->npids + !!R->ntids + !!R->uid_set > 1)
		return util_usage_error("record",
					"-a, -p, -t and -u exclude each other");
	if (R->cgroups && !R->all_cpus && !R->cpus_given)
		return util_usage_error(
			"record", "-G (cgroups) needs CPU-wide recording: -a "
				  "or -C");
	/* No target and no command: every CPU, as perf does.  -C: those
	 * CPUs, every task on them (with a command too: it only times the
	 * recording), unless -p, -t or -u name the tasks. */
	if (!R->npids && !R->ntids && !R->uid_set && !R->cmd)
		R->all_cpus = 1;
	if (R->cpus_given && !R->npids && !R->ntids && !R->uid_set)
		R->all_cpus = 1;
	return check_args(R);
}

/* --- the recording: a client of the library's session --- */

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Each record, in time order, as perf script shows it (or JSON). */
static int emit(void *arg, const struct pfr_perf_session_rec *r)
{
	struct rec *R = arg;

	if (R->out)
		pfr_perfdata_printer_record(
			R->out, pfr_perf_session_event_name(R->sess, r->event),
			r->lay, r->hdr, r->payload, r->len);
	if ((R->max_size || R->switch_mode == SW_SIZE) && !R->size_hit) {
		uint64_t b = pfr_perf_session_file_bytes(R->sess);

		if (R->max_size && b > R->max_size) {
			fprintf(stderr,
				"[ perfring record: perf size limit reached "
				"(%llu KB), stopping session ]\n",
				(unsigned long long)b / 1024);
			R->size_hit = 1;
			pfr_perf_session_request(R->sess, PFR_PERF_REQ_STOP);
		} else if (R->switch_mode == SW_SIZE && b > R->switch_size) {
			R->size_hit = 1; /* until the new file */
			pfr_perf_session_request(R->sess, PFR_PERF_REQ_SWITCH);
		}
	}
	return 0;
}

/* perf's name for a file it switched away from: FILE.YYYYmmddHHMMSScc. */
static void stamped_name(const char *path, char *out, size_t len)
{
	struct timeval tv;
	struct tm tm;
	char ts[32];

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y%m%d%H%M%S", &tm);
	snprintf(out, len, "%s.%s%02u", path, ts,
		 (unsigned)(tv.tv_usec / 10000));
}

/* perf record's build-id cache update: the objects HEADER_BUILD_ID lists
 * for the file at path go into the cache (unless -B or -N).  A cache
 * that cannot be written is warned about; the recording stands. */
static void cache_build_ids(struct rec *R, const char *path)
{
	if (R->no_buildid || R->no_buildid_cache || !strcmp(path, "-"))
		return;
	const char *dir =
		R->buildid_dir ? R->buildid_dir : getenv("PERF_BUILDID_DIR");

	if (pfr_perfdata_buildid_cache_add(path, R->buildid_dir) ==
	    -PFR_E_SYSTEM)
		fprintf(stderr,
			"perfring record: warning: build-id cache %s not "
			"updated: %s\n",
			dir ? dir : "$HOME/.debug", strerror(errno));
}

/* The file written so far gets its time-stamped name; --switch-max-files
 * keeps only the newest ones. */
static int put_away(struct rec *R)
{
	char name[4096];
	char **f;

	stamped_name(R->output, name, sizeof(name));
	if (rename(R->output, name))
		return fail(EX_FAIL, "rename %s to %s: %s", R->output, name,
			    strerror(errno));
	fprintf(stderr, "[ perfring record: dump %s ]\n", name);
	cache_build_ids(R, name);
	f = realloc(R->switch_files, (size_t)(R->nswitch + 1) * sizeof(*f));
	if (!f || !(f[R->nswitch] = strdup(name)))
		return fail(EX_FAIL, "out of memory");
	R->switch_files = f;
	R->nswitch++;
	if (R->switch_max && R->nswitch > R->switch_max) {
		unlink(f[R->nswitch - R->switch_max - 1]);
		fprintf(stderr, "[ perfring record: removed %s ]\n",
			f[R->nswitch - R->switch_max - 1]);
	}
	return 0;
}

/* --switch-output: on SIGUSR2, a size or a time. */
static int on_switch(void *arg)
{
	struct rec *R = arg;
	int rc;

	if (!R->switch_mode || (rc = put_away(R)))
		return 0;
	rc = pfr_perf_session_switch_file(R->sess, R->output);
	if (rc)
		return rc;
	R->size_hit = 0;
	if (R->switch_mode == SW_TIME)
		alarm((unsigned)R->switch_secs);
	return 0;
}

static void drained(void *arg)
{
	struct rec *R = arg;

	if (R->out)
		fflush(stdout);
}

/* The flight recorder keeps only the newest records; the side-band (mmap,
 * comm, task) that symbolizes them goes to a dummy event with ordinary
 * rings, as perf does. */
static int add_tracking(struct rec *R)
{
	struct rec_ev *e = &R->ev[R->nev];

	snprintf(e->spec, sizeof(e->spec), "dummy");
	if (pfr_perf_event_parse("dummy", &e->attr, e->name, sizeof(e->name),
				 0))
		return fail(EX_FAIL, "no dummy event");
	e->info.leader = (uint32_t)R->nev;
	e->info.nr_members = 1;
	e->tracking = 1;
	R->nev++;
	return 0;
}

/* The session, with the events as the options made them. */
static int make_session(struct rec *R)
{
	struct pfr_perf_session_opts o;

	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.flags = (R->overwrite ? PFR_PERF_SESSION_OVERWRITE : 0) |
		  (R->switch_events ? PFR_PERF_SESSION_SWITCH_EVENTS : 0) |
		  (R->callgraph == 2 || R->sample_addr
			   ? PFR_PERF_SESSION_DATA_MAPS
			   : 0);
	/* perf's dummy:HG for the side-band when CPU-wide or delayed */
	if (R->all_cpus || R->delay_ms)
		o.flags |= PFR_PERF_SESSION_TRACKING;
	o.flags |= (R->no_buildid ? PFR_PERF_SESSION_NO_BUILDID : 0) |
		   (R->buildid_all ? PFR_PERF_SESSION_BUILDID_ALL : 0) |
		   (R->no_bpf_event ? PFR_PERF_SESSION_NO_BPF_EVENT : 0);
	o.compress_level = R->zlevel;
	o.delay_ms = R->delay_ms;
	o.on_switch = on_switch;
	o.data_pages = (uint32_t)R->pages;
	/* A stream to a reader shows up within a second even when the
	 * rings fill slowly; a file needs no such tick. */
	o.tick_ms = (R->stream || R->json) && !R->overwrite ? 1000 : 0;
	o.on_record = emit;
	o.on_drained = drained;
	o.arg = R;
	if (pfr_perf_session_create(&R->sess, &o))
		return fail(EX_FAIL, "out of memory");
	for (int i = 0; i < R->nev; i++) {
		struct rec_ev *e = &R->ev[i];
		struct pfr_perf_event_opts eo;

		memset(&eo, 0, sizeof(eo));
		eo.sz = sizeof(eo);
		eo.name = e->name;
		eo.leader = e->info.leader;
		eo.nr_members = e->info.nr_members;
		eo.flags = (e->info.leader != (uint32_t)i
				    ? PFR_PERF_EVENT_GROUP_MEMBER
				    : 0) |
			   (e->tracking ? PFR_PERF_EVENT_TRACKING : 0);
		eo.cgroup_fd = e->cgroup_fd > 0 ? e->cgroup_fd : 0;
		eo.filter = e->filter;
		if (pfr_perf_session_add_event(R->sess, &e->attr, &eo) < 0)
			return fail(EX_FAIL, "out of memory");
	}
	return 0;
}

/* A failure of the session, with its cause and fix. */
/* The output file refused (pfr_perf_file_create()): what stood at its
 * path, and the fix. */
static int out_file_error(const char *path, int e)
{
	const char *what = NULL;

	switch (e) {
	case ELOOP:
		what = "is a symbolic link (the output follows no link)";
		break;
	case EINVAL:
	case ENXIO:
		what = "is not a regular file (a device, FIFO, socket or "
		       "directory)";
		break;
	case EPERM:
		what = "belongs to another user";
		break;
	case EMLINK:
		what = "has other hard links";
		break;
	}
	if (!what)
		return fail(EX_FAIL, "cannot create %s: %s", path, strerror(e));
	return fail(EX_FAIL,
		    "cannot create %s: it %s.\nFix: remove it, or give -o "
		    "another path.",
		    path, what);
}

static int session_error(struct rec *R, int err)
{
	struct pfr_perf_session_error e = {.sz = sizeof(e)};
	int ev;

	pfr_perf_session_last_error(R->sess, &e);
	ev = e.event >= 0 && e.event < R->nev ? e.event : 0;
	switch (e.step) {
	case PFR_PERF_STEP_OPEN:
		return open_error(R, &R->ev[ev], (pid_t)e.pid, e.cpu,
				  e.sys_errno);
	case PFR_PERF_STEP_FILTER:
		return fail(EX_EVENT,
			    "event '%s': the kernel rejected the filter '%s' "
			    "(%s).\nFix: check it against the fields in %s/"
			    "events/%s/format.",
			    R->ev[ev].name, R->ev[ev].filter,
			    strerror(e.sys_errno), pfr_perf_tracefs_path(),
			    R->ev[ev].name);
	case PFR_PERF_STEP_ID:
		return fail(EX_FAIL, "PERF_EVENT_IOC_ID: %s",
			    strerror(e.sys_errno));
	case PFR_PERF_STEP_OUTPUT:
		return fail(EX_FAIL, "PERF_EVENT_IOC_SET_OUTPUT: %s",
			    strerror(e.sys_errno));
	case PFR_PERF_STEP_MMAP:
		if (err == -PFR_PERF_E_MMAP)
			return mmap_error(R, e.sys_errno);
		return fail(EX_MMAP, "perf ring: %s", pfr_perf_strerror(err));
	case PFR_PERF_STEP_CPU:
		return fail(EX_FAIL, "cannot read the online CPUs");
	case PFR_PERF_STEP_FILE:
		if (!R->writing)
			return out_file_error(R->output, e.sys_errno);
		return fail(EX_FAIL, "%s %s: %s",
			    R->writing ? "writing" : "cannot create", R->output,
			    strerror(e.sys_errno));
	case PFR_PERF_STEP_RING:
		return fail(EX_FAIL, "CPU %d ring: %s", e.cpu,
			    pfr_perf_strerror(err));
	case PFR_PERF_STEP_POLL:
		return fail(EX_FAIL, "poll: %s", strerror(e.sys_errno));
	case PFR_PERF_STEP_EXEC:
		if (err != -PFR_PERF_E_EXEC)
			return fail(EX_FAIL, "cannot start the command");
		if (e.sys_errno == ENOENT)
			return fail(
				EX_NOCMD,
				"command not found: '%s'.\nFix: check its "
				"spelling and $PATH, or give its full path.",
				R->cmd[0]);
		return fail(e.sys_errno == EACCES ? 126 : EX_NOCMD,
			    "cannot execute '%s': %s.\nFix: check that it is "
			    "an executable file you may run.",
			    R->cmd[0], strerror(e.sys_errno));
	}
	if (err == -PFR_E_SYSTEM)
		return fail(EX_FAIL, "out of memory");
	return fail(EX_FAIL, "%s", pfr_perf_strerror(err));
}

/* -a, -p, -t, -u, and the command. */
static int add_targets(struct rec *R)
{
	int err = 0;

	if (R->all_cpus)
		err = pfr_perf_session_add_thread(R->sess, -1);
	for (int i = 0; !R->all_cpus && i < R->npids && !err; i++) {
		err = pfr_perf_session_add_process(R->sess, R->pids[i]);
		if (err == -PFR_PERF_E_NO_PROCESS) {
			struct pfr_perf_session_error e = {.sz = sizeof(e)};

			pfr_perf_session_last_error(R->sess, &e);
			return fail(EX_FAIL,
				    "no such process %d (%s).\nFix: check the "
				    "pid with ps(1).",
				    (int)R->pids[i], strerror(e.sys_errno));
		}
	}
	for (int i = 0; !R->all_cpus && i < R->ntids && !err; i++)
		err = pfr_perf_session_add_thread(R->sess, R->tids[i]);
	if (!R->all_cpus && R->uid_set) {
		err = pfr_perf_session_add_user(R->sess, R->uid);
		if (err == -PFR_PERF_E_NO_PROCESS)
			return fail(
				EX_FAIL,
				"user %lu has no processes.\nFix: start one, "
				"or record with -a.",
				(unsigned long)R->uid);
	}
	if (!err && R->cmd)
		err = pfr_perf_session_start_command(R->sess, R->cmd);
	if (err == -PFR_E_SYSTEM)
		return fail(EX_FAIL, "cannot start: %s", strerror(errno));
	return err ? session_error(R, err) : 0;
}

/* perf keeps the file it would overwrite as FILE.old. */
static int keep_old(const char *path)
{
	char old[4096];
	struct stat st;

	/* lstat: a link is left in place (the file's creation refuses it),
	 * not renamed with its target's size as the test */
	if (!strcmp(path, "-") || lstat(path, &st) || !S_ISREG(st.st_mode) ||
	    !st.st_size)
		return 0;
	snprintf(old, sizeof(old), "%s.old", path);
	if (rename(path, old))
		return fail(EX_FAIL, "cannot keep %s as %s: %s", path, old,
			    strerror(errno));
	return 0;
}

/* The file (-o) and the stream (without -o, or with --json). */
static int start_output(struct rec *R, int argc, char **argv)
{
	if (R->output) {
		/* "perfring record ...", as perf writes "perf record" */
		char **cl = calloc((size_t)argc + 2, sizeof(*cl));
		int err;

		if (!cl)
			return fail(EX_FAIL, "out of memory");
		if ((err = keep_old(R->output))) {
			free(cl);
			return err;
		}
		cl[0] = (char *)"perfring";
		memcpy(cl + 1, argv, (size_t)argc * sizeof(*cl));
		R->cmdline = cl; /* the session refers to it at each switch */
		err = pfr_perf_session_write_file(R->sess, R->output, argc + 1,
						  cl);
		if (err)
			return session_error(R, err);
		R->writing = 1;
	}
	if (R->stream || R->json) {
		const char *names[MAX_EV];

		/* tracepoint fields, from this machine's formats */
		for (int i = 0; i < R->nev; i++)
			names[i] = R->ev[i].name;
		if (pfr_perfdata_printer_new(
			    &R->out, stdout,
			    (R->json ? PFR_PERFDATA_PRINT_JSON : 0u) |
				    (R->no_syms ? PFR_PERFDATA_PRINT_NO_SYMBOLS
						: 0u),
			    names, (unsigned)R->nev))
			return fail(EX_FAIL, "out of memory");
	}
	return 0;
}

/* Signals become the session's requests: SIGINT, SIGTERM and SIGHUP stop,
 * SIGUSR2 takes a snapshot, SIGCHLD looks at the command. */
static void catch_signals(struct pfr_perf_session *s)
{
	static const int sigs[] = {SIGCHLD, SIGINT,  SIGTERM,
				   SIGHUP,  SIGUSR2, SIGALRM};
	struct sigaction sa;

	sig_sess = s;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* perf's fallback: 'cycles' without a PMU that counts them (a virtual
 * machine) records cpu-clock instead, with the same modifiers. */
static void cycles_fallback(struct rec *R, struct rec_ev *e)
{
	struct perf_event_attr a = e->attr;
	const char *mod;
	char name[160];
	int fd;

	if (a.type != PERF_TYPE_HARDWARE ||
	    (a.config & 0xffffffffULL) != PERF_COUNT_HW_CPU_CYCLES)
		return;
	a.disabled = 1;
	fd = pfr_perf_open(&a, R->all_cpus ? -1 : 0, R->all_cpus ? 0 : -1, -1,
			   PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return;
	}
	if (fd != -ENOENT && fd != -EOPNOTSUPP && fd != -ENODEV)
		return; /* the error comes with its fix at the open */
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	mod = strchr(e->name, ':');
	snprintf(name, sizeof(name), "cpu-clock%s", mod ? mod : "");
	if (!R->quiet)
		fprintf(stderr,
			"Warning: the cycles event is not supported, "
			"recording %s instead (as perf falls back)\n",
			name);
	snprintf(e->name, sizeof(e->name), "%s", name);
}

/* A CPU's topology id from sysfs (-1 when it has none). */
static long topo_id(int cpu, const char *what)
{
	char path[128];
	long v = -1;

	if (!strcmp(what, "node")) {
		for (int n = 0; n < 1024; n++) {
			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%d/node%d", cpu,
				 n);
			if (!access(path, F_OK))
				return n;
		}
		return 0;
	}
	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
	read_int_file(path, &v);
	return v;
}

/* --threads[=cpu|core|package|numa|MASKS]: a reader thread per CPU, per
 * core, per package, per NUMA node, or per mask of perf's form
 * CPUS/AFFINITY[:CPUS/AFFINITY...] (the CPUs whose rings it reads). */
static int set_readers(struct rec *R)
{
	static uint32_t map[MAX_CPUS];
	static long key[MAX_CPUS];
	static int online[MAX_CPUS];
	int non = pfr_perf_online_cpus(online, MAX_CPUS), nr = 0, rc;
	const char *t = R->threads, *what = NULL;

	if (non <= 0)
		return fail(EX_FAIL, "--threads: cannot read the online CPUs");
	memset(map, 0, sizeof(map));
	if (!strcmp(t, "cpu"))
		what = "cpu";
	else if (!strcmp(t, "core"))
		what = "core_id";
	else if (!strcmp(t, "package") || !strcmp(t, "socket"))
		what = "physical_package_id";
	else if (!strcmp(t, "numa"))
		what = "node";
	for (int i = 0; what && i < non; i++) {
		int c = online[i], k;
		long id = strcmp(what, "cpu") ? topo_id(c, what) : c;

		if (!strcmp(what, "core_id")) /* a core within its package */
			id = id * 4096 + topo_id(c, "physical_package_id");
		for (k = 0; k < nr && key[k] != id; k++)
			;
		if (k == nr)
			key[nr++] = id;
		if (c >= 0 && c < MAX_CPUS)
			map[c] = (uint32_t)k;
	}
	if (!what) { /* masks: the CPUs before each '/' */
		char buf[1024], *save = NULL, *m;
		static int cpus[MAX_CPUS];

		snprintf(buf, sizeof(buf), "%s", t);
		for (m = strtok_r(buf, ":", &save); m;
		     m = strtok_r(NULL, ":", &save), nr++) {
			int n;

			m[strcspn(m, "/")] = 0;
			n = pfr_perf_cpu_list(m, cpus, MAX_CPUS);
			if (n <= 0)
				return util_usage_error(
					"record",
					"bad --threads '%s': cpu, core, package, "
					"numa or CPUS/AFFINITY[:...] masks",
					t);
			for (int i = 0; i < n; i++) /* opt_threads() checked */
				if (cpus[i] >= 0 && cpus[i] < MAX_CPUS)
					map[cpus[i]] = (uint32_t)nr;
		}
	}
	rc = pfr_perf_session_set_readers(R->sess, (uint32_t)nr, map, MAX_CPUS);
	if (rc)
		return fail(EX_FAIL, "--threads: %s", pfr_perf_strerror(rc));
	return 0;
}

/* Options to attrs and a session; the session opened and started. */
static int record_start(struct rec *R, int argc, char **argv)
{
	int rc;

	if (!R->nev && (rc = add_events(R, "cpu-clock")))
		return rc;
	if (R->overwrite && (rc = add_tracking(R)))
		return rc;
	for (int i = 0; i < R->nev; i++) {
		setup_attr(R, &R->ev[i]);
		cycles_fallback(R, &R->ev[i]);
		if (make_filter(&R->ev[i]))
			return fail(EX_FAIL, "out of memory");
	}
	if (R->rt_prio) { /* -r: perf's SCHED_FIFO for the recorder */
		struct sched_param sp = {.sched_priority = R->rt_prio};

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			return fail(EX_PERM, "-r %d: sched_setscheduler: %s",
				    R->rt_prio, strerror(errno));
	}
	if ((rc = open_cgroups(R)) || (rc = make_session(R)))
		return rc;
	if (R->threads && (rc = set_readers(R)))
		return rc;
	if (R->cpus_given &&
	    (rc = pfr_perf_session_set_cpus(R->sess, R->cpu_list)))
		return session_error(R, rc);
	catch_signals(R->sess);
	if ((rc = add_targets(R)))
		return rc;
	if ((rc = pfr_perf_session_open(R->sess)))
		return session_error(R, rc);
	if ((rc = start_output(R, argc, argv)))
		return rc;
	rc = pfr_perf_session_synthesize(R->sess);
	if (rc < 0)
		return session_error(R, rc);
	if ((rc = pfr_perf_session_enable(R->sess)))
		return session_error(R, rc);
	return 0;
}

static int record_run(struct rec *R, int argc, char **argv)
{
	struct pfr_perf_session_stats st = {.sz = sizeof(st)};
	struct stat ost;
	struct rusage ru;
	double t0 = now_s();
	int rc;

	R->pages = 128;
	R->clockid = -1;
	rc = parse_args(R, argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (R->dry_run) /* perf's: the options parsed, nothing recorded */
		return 0;
	sig_switch = R->switch_mode != 0;
	/* -o must be a file: opening a FIFO for writing would wait for a
	 * reader (checked before anything starts; /dev/null is allowed) */
	if (R->output && !stat(R->output, &ost) && !S_ISREG(ost.st_mode) &&
	    !S_ISCHR(ost.st_mode))
		return util_usage_error("record",
					"-o %s: not a regular file (a "
					"FIFO, socket or directory cannot "
					"hold perf.data)",
					R->output);
	if ((rc = record_start(R, argc, argv)))
		return rc;
	getrusage(RUSAGE_SELF, &R->ru_loop);
	if (R->switch_mode == SW_TIME)
		alarm((unsigned)R->switch_secs);
	rc = pfr_perf_session_run(R->sess);
	alarm(0);
	if (rc)
		rc = session_error(R, rc);
	if (!rc && R->output && (R->switch_mode || R->ts_filename))
		rc = put_away(R);
	else if (!rc && R->output)
		cache_build_ids(R, R->output);
	if (R->out)
		R->out_bad = pfr_perfdata_printer_bad(R->out);
	fflush(stdout);
	getrusage(RUSAGE_SELF, &ru);
	pfr_perf_session_stats(R->sess, &st);
	if (!R->quiet)
		summary(R, &st, &ru, now_s() - t0);
	return rc;
}

int cli_cmd_record(int argc, char **argv)
{
	struct rec *R = calloc(1, sizeof(*R));
	int rc;

	if (!R)
		return fail(EX_FAIL, "out of memory");
	rc = record_run(R, argc, argv);
	/* Everything, on every path (the sanitizer runs check for leaks). */
	sig_sess = NULL;
	pfr_perf_session_destroy(R->sess);
	for (int i = 0; i < R->nev; i++)
		if (R->ev[i].cgroup_fd > 0)
			close(R->ev[i].cgroup_fd);
	pfr_perfdata_printer_free(R->out);
	for (int i = 0; i < R->nev; i++)
		free(R->ev[i].filter_buf);
	for (int i = 0; i < R->nswitch; i++)
		free(R->switch_files[i]);
	free(R->switch_files);
	free(R->cmdline);
	free(R);
	return rc;
}
