/* SPDX-License-Identifier: MIT */
/*
 * A perf recording session (<perfring/session.h>): its options, events,
 * CPUs and targets, the command it starts, and the opening of every event
 * on every CPU for every target with one ring per CPU.
 *
 * One ring per CPU: every event on a CPU (each event x each target thread)
 * is redirected into the CPU's first event's ring with
 * PERF_EVENT_IOC_SET_OUTPUT, so that draining a CPU is one pass over one
 * ring.  Overwrite mode has a second ring per CPU, for the side-band.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ring/compiler.h"
#include "abi/compat.h"
#include "ring/opts.h"
#include "perf/perf_header.h"
#include "perf/perf_session_int.h"

/* The command's exit statuses when it never ran: exec failed, or the
 * session was destroyed before it could. */
#define PFR__EXIT_EXEC 127
#define PFR__EXIT_NOSTART 1

int pfr__sess_fail(struct pfr_perf_session *s, int code, int step, int sys,
		   int event, int cpu, int pid)
{
	s->err.step = step;
	s->err.code = code;
	s->err.sys_errno = sys;
	s->err.event = event;
	s->err.cpu = cpu;
	s->err.pid = pid;
	return code;
}

void pfr__sess_log(struct pfr_perf_session *s, int level, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!s->o.log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->o.log(s->o.log_arg, level, msg);
}

/* Copies a caller's options struct by the library's one sz rule
 * (pfr__opts_copy(): sz 0 is this layout, the first the session had);
 * NULL gives the defaults.  0 or -PFR_E_INVAL. */
static int copy_opts(void *dst, size_t dsz, const void *src)
{
	if (!src) {
		memset(dst, 0, dsz);
		return 0;
	}
	return pfr__opts_copy(dst, dsz, dsz, src, dsz);
}

/* Fills an output struct up to its sz from ours. */
static int copy_out(void *dst, const void *src, size_t ssz)
{
	size_t sz;

	if (!dst)
		return -PFR_E_INVAL;
	memcpy(&sz, dst, sizeof(sz));
	if (!sz)
		sz = ssz; /* as for options: 0 is this layout */
	if (sz < sizeof(size_t))
		return -PFR_E_INVAL;
	if (sz > ssz) {
		memset((unsigned char *)dst + ssz, 0, sz - ssz);
		sz = ssz;
	}
	memcpy((unsigned char *)dst + sizeof(size_t),
	       (const unsigned char *)src + sizeof(size_t),
	       sz - sizeof(size_t));
	return 0;
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

/* Whether this kernel takes attr.ksymbol and attr.bpf_event (5.1). */
static int kernel_has_ksymbol(void)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.ksymbol = 1;
	a.bpf_event = 1;
	fd = pfr_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int pfr__perf_session_create_v03(struct pfr_perf_session **sp,
				 const struct pfr_perf_session_opts *opts)
{
	struct pfr_perf_session *s;
	int err;

	if (!sp)
		return -PFR_E_INVAL;
	*sp = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -PFR_E_SYSTEM;
	err = copy_opts(&s->o, sizeof(s->o), opts);
	if (!err && !s->o.data_pages)
		s->o.data_pages = 128;
	if (!err && (s->o.data_pages & (s->o.data_pages - 1)))
		err = -PFR_E_INVAL;
	if (!err && s->o.proc_root && strlen(s->o.proc_root) >= 200)
		err = -PFR_E_INVAL;
	if (!err && (s->o.compress_level < 0 || s->o.compress_level > 22 ||
		     s->o.delay_ms < -1))
		err = -PFR_E_INVAL;
	if (err) {
		free(s);
		return err;
	}
	snprintf(s->proc, sizeof(s->proc), "%s",
		 s->o.proc_root ? s->o.proc_root : "/proc");
	s->o.proc_root = NULL; /* the caller's string is not kept */
	s->o.sz = sizeof(s->o);
	s->st.sz = sizeof(s->st);
	s->err.sz = sizeof(s->err);
	s->err.event = s->err.cpu = -1;
	s->go_fd = s->err_fd = -1;
	s->req_fd[0] = s->req_fd[1] = -1;
	if (pipe2(s->req_fd, O_CLOEXEC | O_NONBLOCK) ||
	    pfr_merge_create(&s->merge, 0)) {
		pfr_perf_session_destroy(s);
		return -PFR_E_SYSTEM;
	}
	*sp = s;
	return 0;
}
PFR__SYMVER_DEFAULT(pfr__perf_session_create_v03, pfr_perf_session_create,
		    "PERFRING_0.3");

/* 0.2's: on_record's positive values act as 0 (src/abi/compat.c). */
void pfr__perf_session_legacy(struct pfr_perf_session *s)
{
	if (s)
		s->cb_legacy = 1;
}

void pfr_perf_session_destroy(struct pfr_perf_session *s)
{
	if (!s)
		return;
	if (s->go_fd >= 0)
		close(s->go_fd); /* a held command exits without exec */
	if (s->err_fd >= 0)
		close(s->err_fd);
	if (s->child > 0) {
		kill(s->child, SIGTERM);
		waitpid(s->child, NULL, 0);
	}
	if (s->file)
		pfr_perf_file_close(s->file);
	for (int i = 0; i < s->nrings; i++)
		pfr_perf_ring_unmap(&s->rings[i]);
	for (int i = 0; i < s->nfds; i++)
		close(s->fds[i]);
	for (uint32_t i = 0; i < s->nev; i++) {
		free(s->ev[i].ids);
		free(s->ev[i].id_cpu);
		free(s->ev[i].id_tid);
		free(s->ev[i].filter);
	}
	for (int i = 0; i < 2; i++)
		if (s->req_fd[i] >= 0)
			close(s->req_fd[i]);
	pfr_merge_destroy(s->merge);
	free(s->ev);
	free(s->cpus);
	free(s->targets);
	free(s->pids);
	free(s->tids);
	free(s->rings);
	free(s->fds);
	free(s->fd_ev);
	free(s->reader_of_cpu);
	free(s->pfd);
	free(s->snap_last);
	free(s->bpf_info);
	free(s->bpf_btf);
	free(s->bpf_btf_ids);
	free(s);
}

/* Grows *arr (of *cap elements of size sz) to hold n + 1. */
static int grow(void *arrp, int *cap, int n, size_t sz)
{
	void **arr = arrp;
	void *p;
	int nc;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 8;
	p = realloc(*arr, (size_t)nc * sz);
	if (!p)
		return -PFR_E_SYSTEM;
	*arr = p;
	*cap = nc;
	return 0;
}

int pfr_perf_session_add_event(struct pfr_perf_session *s,
			       const struct perf_event_attr *attr,
			       const struct pfr_perf_event_opts *opts)
{
	struct pfr_perf_event_opts o;
	struct pfr__sess_ev *e;
	int cap, err;

	if (!s || !attr || s->opened)
		return -PFR_E_INVAL;
	if ((err = copy_opts(&o, sizeof(o), opts)))
		return err;
	if ((o.flags & PFR_PERF_EVENT_GROUP_MEMBER) && o.leader >= s->nev)
		return -PFR_E_INVAL;
	cap = (int)s->cap_ev;
	if (grow(&s->ev, &cap, (int)s->nev, sizeof(*s->ev)))
		return -PFR_E_SYSTEM;
	s->cap_ev = (uint32_t)cap;
	e = &s->ev[s->nev];
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	e->attr.size = sizeof(e->attr);
	if (o.name)
		snprintf(e->name, sizeof(e->name), "%s", o.name);
	else
		pfr_perf_attr_name(&e->attr, e->name, sizeof(e->name));
	e->leader = o.flags & PFR_PERF_EVENT_GROUP_MEMBER ? o.leader : s->nev;
	e->nr_members = o.nr_members;
	e->cgroup_fd = o.cgroup_fd > 0 ? o.cgroup_fd : 0;
	e->tracking = !!(o.flags & PFR_PERF_EVENT_TRACKING);
	if (e->tracking)
		s->has_tracking = 1;
	if (o.filter && !(e->filter = strdup(o.filter)))
		return -PFR_E_SYSTEM;
	if (!e->attr.sample_type)
		e->attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				      PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				      PERF_SAMPLE_PERIOD;
	e->attr.sample_type |=
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	if (!e->attr.sample_period) { /* sample_freq shares the field */
		e->attr.freq = e->attr.type != PERF_TYPE_TRACEPOINT;
		e->attr.sample_period = e->attr.freq ? 4000 : 1;
	}
	/* One layout per session (the merge and the decoder read every
	 * record with it): the union of what the events sample. */
	s->lay.sample_type |= e->attr.sample_type;
	s->lay.sample_id_all = 1;
	return (int)s->nev++;
}

int pfr_perf_session_set_cpus(struct pfr_perf_session *s, const char *list)
{
	int online[1024], cpus[1024], non, n;

	if (!s || s->opened)
		return -PFR_E_INVAL;
	non = pfr_perf_online_cpus(online, 1024);
	if (non <= 0)
		return pfr__sess_fail(s, -PFR_E_SYSTEM, PFR_PERF_STEP_CPU,
				      errno, -1, -1, 0);
	n = list ? pfr_perf_cpu_list(list, cpus, 1024) : non;
	if (n <= 0)
		return pfr__sess_fail(s, n ? n : -PFR_E_INVAL,
				      PFR_PERF_STEP_CPU, 0, -1, -1, 0);
	for (int i = 0; list && i < n; i++) {
		int found = 0;

		for (int k = 0; k < non; k++)
			found |= online[k] == cpus[i];
		if (!found)
			return pfr__sess_fail(s, -PFR_PERF_E_CPU,
					      PFR_PERF_STEP_CPU, 0, -1, cpus[i],
					      0);
	}
	free(s->cpus);
	s->cpus = malloc((size_t)n * sizeof(int));
	if (!s->cpus) {
		s->ncpu = 0;
		return -PFR_E_SYSTEM;
	}
	memcpy(s->cpus, list ? cpus : online, (size_t)n * sizeof(int));
	s->ncpu = n;
	return 0;
}

static int add_target(struct pfr_perf_session *s, pid_t t)
{
	pid_t *n = realloc(s->targets, (size_t)(s->ntargets + 1) * sizeof(*n));

	if (!n)
		return -PFR_E_SYSTEM;
	s->targets = n;
	s->targets[s->ntargets++] = t;
	return 0;
}

static int add_id(pid_t **arr, int *n, pid_t id)
{
	pid_t *p = realloc(*arr, (size_t)(*n + 1) * sizeof(*p));

	if (!p)
		return -PFR_E_SYSTEM;
	*arr = p;
	p[(*n)++] = id;
	return 0;
}

int pfr_perf_session_add_thread(struct pfr_perf_session *s, pid_t tid)
{
	if (!s || s->opened || tid < -1 || tid == 0)
		return -PFR_E_INVAL;
	if (tid == -1)
		s->synth_all = 1;
	else if (add_id(&s->tids, &s->ntids, tid))
		return -PFR_E_SYSTEM;
	return add_target(s, tid);
}

static int list_threads(struct pfr_perf_session *s, pid_t pid)
{
	char p[300];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(p, sizeof(p), "%s/%d/task", s->proc, (int)pid);
	d = opendir(p);
	if (!d)
		return pfr__sess_fail(s, -PFR_PERF_E_NO_PROCESS,
				      PFR_PERF_STEP_PROCESS, errno, -1, -1,
				      (int)pid);
	while (!err && (de = readdir(d)))
		if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
			err = add_target(s, (pid_t)atoi(de->d_name));
	closedir(d);
	s->by_process = 1;
	return err;
}

int pfr_perf_session_add_process(struct pfr_perf_session *s, pid_t pid)
{
	int err;

	if (!s || s->opened || pid <= 0)
		return -PFR_E_INVAL;
	if ((err = list_threads(s, pid)))
		return err;
	return add_id(&s->pids, &s->npids, pid);
}

int pfr_perf_session_add_user(struct pfr_perf_session *s, uid_t uid)
{
	DIR *d;
	struct dirent *de;
	int before, err = 0;

	if (!s || s->opened)
		return -PFR_E_INVAL;
	before = s->ntargets;
	d = opendir(s->proc);
	if (!d)
		return pfr__sess_fail(s, -PFR_E_SYSTEM, PFR_PERF_STEP_PROCESS,
				      errno, -1, -1, 0);
	while (!err && (de = readdir(d))) {
		pid_t pid;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		pid = (pid_t)atoi(de->d_name);
		if (pfr__sess_status_field(s, pid, "Uid") != (long)uid ||
		    pid == getpid())
			continue;
		err = list_threads(s, pid); /* gone meanwhile: skipped */
		if (err == -PFR_PERF_E_NO_PROCESS)
			err = 0;
	}
	closedir(d);
	if (err)
		return err;
	s->synth_all = 1;
	if (s->ntargets == before)
		return pfr__sess_fail(s, -PFR_PERF_E_NO_PROCESS,
				      PFR_PERF_STEP_PROCESS, 0, -1, -1, 0);
	memset(&s->err, 0, sizeof(s->err));
	s->err.sz = sizeof(s->err);
	return 0;
}

int pfr_perf_session_start_command(struct pfr_perf_session *s,
				   char *const argv[])
{
	int go[2], er[2];

	if (!s || !argv || !argv[0] || s->child || s->opened)
		return -PFR_E_INVAL;
	if (pipe2(go, O_CLOEXEC))
		return -PFR_E_SYSTEM;
	if (pipe2(er, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -PFR_E_SYSTEM;
	}
	s->child = fork();
	if (s->child == 0) {
		char c;
		int e;

		close(go[1]);
		close(er[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(PFR__EXIT_NOSTART); /* recording never started */
		execvp(argv[0], argv);
		/* exec errors come back through er (close-on-exec: EOF
		 * means exec succeeded) */
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(PFR__EXIT_EXEC);
		_exit(PFR__EXIT_EXEC);
	}
	close(go[0]);
	close(er[1]);
	if (s->child < 0) {
		s->child = 0;
		close(go[1]);
		close(er[0]);
		return -PFR_E_SYSTEM;
	}
	s->go_fd = go[1];
	s->err_fd = er[0];
	if (!s->ntargets) {
		s->cmd_only = 1;
		return add_target(s, s->child);
	}
	return 0;
}

/* Completes the attrs as <perfring/session.h> says. */
static void prepare_attrs(struct pfr_perf_session *s)
{
	uint64_t data = (uint64_t)s->o.data_pages * (uint64_t)getpagesize();
	int ow = !!(s->o.flags & PFR_PERF_SESSION_OVERWRITE);

	for (uint32_t i = 0; i < s->nev; i++) {
		struct pfr__sess_ev *e = &s->ev[i];
		struct perf_event_attr *a = &e->attr;
		int member = e->leader != i;

		a->sample_type = s->lay.sample_type;
		a->read_format =
			PERF_FORMAT_ID | (s->read_lost ? PERF_FORMAT_LOST : 0);
		/* perf's dummy:HG starts at once (but for a command
		 * recorded alone: at its exec) */
		a->disabled = !member && !(e->tracking && !ow && !s->cmd_only);
		a->enable_on_exec =
			s->cmd_only && !member && (!s->delayed || e->tracking);
		a->sample_id_all = 1;
		if (s->nr_readers && !a->use_clockid) {
			/* the reader threads read this clock to order */
			a->use_clockid = 1;
			a->clockid = CLOCK_MONOTONIC;
		}
		if (s->has_tracking ? e->tracking : i == 0) {
			/* Side-band records once, from one event only. */
			a->mmap = 1;
			a->mmap2 = 1;
			a->comm = 1;
			a->comm_exec = 1;
			a->task = 1;
			a->context_switch =
				!!(s->o.flags & PFR_PERF_SESSION_SWITCH_EVENTS);
			a->mmap_data =
				!!(s->o.flags & PFR_PERF_SESSION_DATA_MAPS);
			a->ksymbol = a->bpf_event = s->has_ksymbol;
		}
		if (ow && !e->tracking) {
			a->write_backward = 1;
		} else {
			/* Half the ring, the kernel's default (perf's too).
			 * A quarter woke the reader twice as often, each
			 * wake-up a sleep, a poll and a pass; on a loaded
			 * machine that reader used more CPU and lost more
			 * samples at 16 KiB rings, not fewer (docs/record.md,
			 * "Recorder CPU and loss against perf record"). */
			a->watermark = 1;
			a->wakeup_watermark =
				(uint32_t)(data / 2 ? data / 2 : 8);
		}
	}
}

/* Overwrite mode: the side-band goes to a dummy event with ordinary
 * rings, as perf does; it samples as the first event would.  Else
 * (PFR_PERF_SESSION_TRACKING) perf's "dummy:HG": every hit, host and
 * guest. */
static int add_tracking(struct pfr_perf_session *s)
{
	struct perf_event_attr a;
	int ow = !!(s->o.flags & PFR_PERF_SESSION_OVERWRITE);
	struct pfr_perf_event_opts o = {.sz = sizeof(o),
					.name = ow ? "dummy" : "dummy:HG",
					.flags = PFR_PERF_EVENT_TRACKING};
	const struct perf_event_attr *f = &s->ev[0].attr;
	int i;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.exclude_guest = ow;
	a.sample_period = ow ? f->sample_period : 1;
	a.freq = ow && f->freq;
	a.use_clockid = f->use_clockid;
	a.clockid = f->clockid;
	a.sample_type = f->sample_type;
	/* the user stack and registers too (the kernel refuses STACK_USER
	 * with no size), as perf's dummy:HG takes them */
	a.sample_regs_user = f->sample_regs_user;
	a.sample_stack_user = f->sample_stack_user;
	a.exclude_callchain_user = f->exclude_callchain_user;
	a.exclude_kernel = f->exclude_kernel;
	a.exclude_user = f->exclude_user;
	a.exclude_hv = f->exclude_hv;
	a.inherit = f->inherit;
	i = pfr_perf_session_add_event(s, &a, &o);
	if (i < 0)
		return i;
	s->ev[i].nr_members = 1;
	return 0;
}

static int add_ring(struct pfr_perf_session *s)
{
	if (grow(&s->rings, &s->cap_rings, s->nrings, sizeof(*s->rings)))
		return -PFR_E_SYSTEM;
	memset(&s->rings[s->nrings], 0, sizeof(*s->rings));
	return 0;
}

static int sess_add_id(struct pfr__sess_ev *e, uint64_t id, int cpu, int tid)
{
	int cap = (int)e->cap;

	if (grow(&e->ids, &cap, (int)e->nids, sizeof(*e->ids)))
		return -PFR_E_SYSTEM;
	if (cap != (int)e->cap) {
		int32_t *c = realloc(e->id_cpu, (size_t)cap * sizeof(*c));

		if (c)
			e->id_cpu = c;
		c = c ? realloc(e->id_tid, (size_t)cap * sizeof(*c)) : NULL;
		if (!c)
			return -PFR_E_SYSTEM;
		e->id_tid = c;
	}
	e->cap = (uint32_t)cap;
	e->id_cpu[e->nids] = cpu;
	e->id_tid[e->nids] = tid;
	e->ids[e->nids++] = id;
	return 0;
}

/* After an fd is open: its filter, its id, its ring (the CPU's first
 * fd's, mapped here, or redirected into it). */
static int setup_fd(struct pfr_perf_session *s, uint32_t i, int fd, int c,
		    int tid, int *ring_fd)
{
	struct pfr__sess_ev *e = &s->ev[i];
	int ow = (s->o.flags & PFR_PERF_SESSION_OVERWRITE) && !e->tracking;
	int cpu = s->cpus[c], err;
	uint64_t id;

	if (e->filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, e->filter))
		return pfr__sess_fail(s, -PFR_PERF_E_FILTER,
				      PFR_PERF_STEP_FILTER, errno, (int)i, cpu,
				      0);
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id))
		return pfr__sess_fail(s, -PFR_E_SYSTEM, PFR_PERF_STEP_ID, errno,
				      (int)i, cpu, 0);
	if (sess_add_id(e, id, cpu, tid))
		return pfr__sess_fail(s, -PFR_E_SYSTEM, PFR_PERF_STEP_MEMORY,
				      ENOMEM, (int)i, cpu, 0);
	if (*ring_fd >= 0) {
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *ring_fd))
			return pfr__sess_fail(s, -PFR_E_SYSTEM,
					      PFR_PERF_STEP_OUTPUT, errno,
					      (int)i, cpu, 0);
		return 0;
	}
	if (add_ring(s))
		return pfr__sess_fail(s, -PFR_E_SYSTEM, PFR_PERF_STEP_MEMORY,
				      ENOMEM, (int)i, cpu, 0);
	err = pfr_perf_ring_map(&s->rings[s->nrings], fd, cpu, s->o.data_pages,
				ow);
	if (err)
		return pfr__sess_fail(
			s, err == -PFR_E_SYSTEM ? -PFR_PERF_E_MMAP : err,
			PFR_PERF_STEP_MMAP, errno, (int)i, cpu, 0);
	s->nrings++;
	*ring_fd = fd;
	return 0;
}

/* Room for one more fd (and its event). */
static int grow_fds(struct pfr_perf_session *s)
{
	int cap = s->cap_fds;
	uint32_t *ev;

	if (grow(&s->fds, &cap, s->nfds, sizeof(int)))
		return -PFR_E_SYSTEM;
	if (cap != s->cap_fds) {
		ev = realloc(s->fd_ev, (size_t)cap * sizeof(*ev));
		if (!ev)
			return -PFR_E_SYSTEM;
		s->fd_ev = ev;
		s->cap_fds = cap;
	}
	return 0;
}

/* Every event for target t on CPU index c. */
static int open_target(struct pfr_perf_session *s, int c, int t,
		       int ring_fds[2])
{
	int *lfd = calloc(s->nev, sizeof(int));
	int err = 0;

	if (!lfd)
		return -PFR_E_SYSTEM;
	for (uint32_t i = 0; i < s->nev && !err; i++) {
		struct pfr__sess_ev *e = &s->ev[i];
		int ow = (s->o.flags & PFR_PERF_SESSION_OVERWRITE) &&
			 !e->tracking;
		uint32_t lead = e->leader;
		/* A cgroup stands in for the pid of a CPU-wide target. */
		int cg = e->cgroup_fd > 0 && s->targets[t] < 0;
		int fd;

		lfd[i] = -1;
		if (lead != i && lfd[lead] < 0)
			continue; /* its leader's thread exited */
		fd = pfr_perf_open(&e->attr, cg ? e->cgroup_fd : s->targets[t],
				   s->cpus[c], lead != i ? lfd[lead] : -1,
				   PERF_FLAG_FD_CLOEXEC |
					   (cg ? PERF_FLAG_PID_CGROUP : 0));
		if (fd == -ESRCH && s->by_process && s->ntargets > 1) {
			pfr__sess_log(s, PFR_PERF_LOG_DEBUG,
				      "thread %d exited before it was opened",
				      (int)s->targets[t]);
			continue;
		}
		if (fd < 0) {
			err = pfr__sess_fail(s, -PFR_PERF_E_OPEN,
					     PFR_PERF_STEP_OPEN, -fd, (int)i,
					     s->cpus[c], (int)s->targets[t]);
			break;
		}
		lfd[i] = fd;
		if (grow_fds(s)) {
			close(fd);
			err = -PFR_E_SYSTEM;
			break;
		}
		s->fd_ev[s->nfds] = i;
		s->fds[s->nfds++] = fd;
		err = setup_fd(s, i, fd, c, cg ? -1 : (int)s->targets[t],
			       &ring_fds[ow]);
	}
	free(lfd);
	return err;
}

int pfr_perf_session_open(struct pfr_perf_session *s)
{
	int err;

	if (!s || s->opened)
		return -PFR_E_INVAL;
	if (!s->nev) {
		struct perf_event_attr a;
		char name[64];

		err = pfr_perf_event_parse("cpu-clock", &a, name, sizeof(name),
					   0);
		/* perf record's default: children followed (inherit), but
		 * for threads or processes named one by one (-t, -p) */
		a.inherit = !s->ntids && !s->npids;
		if (!err)
			err = pfr_perf_session_add_event(s, &a, NULL);
		if (err < 0)
			return err;
	}
	if ((s->o.flags &
	     (PFR_PERF_SESSION_OVERWRITE | PFR_PERF_SESSION_TRACKING)) &&
	    !s->has_tracking && (err = add_tracking(s)))
		return err;
	if (!s->ntargets && (err = pfr_perf_session_add_thread(s, -1)))
		return err;
	if (!s->ncpu && (err = pfr_perf_session_set_cpus(s, NULL)))
		return err;
	s->opened = 1;
	s->read_lost = kernel_reads_lost();
	s->has_ksymbol = !(s->o.flags & PFR_PERF_SESSION_NO_BPF_EVENT) &&
			 kernel_has_ksymbol();
	s->delayed = s->o.delay_ms != 0;
	prepare_attrs(s);
	for (int c = 0; c < s->ncpu; c++) {
		int ring_fds[2] = {-1, -1};

		for (int t = 0; t < s->ntargets; t++)
			if ((err = open_target(s, c, t, ring_fds)))
				return err;
	}
	s->pfd = calloc((size_t)s->nrings + 2, sizeof(*s->pfd));
	s->snap_last = calloc((size_t)s->nrings + 1, sizeof(*s->snap_last));
	if (!s->pfd || !s->snap_last)
		return -PFR_E_SYSTEM;
	for (int i = 0; i < s->nrings; i++) {
		s->pfd[i].fd = s->rings[i].fd;
		/* Overwrite rings are never drained: only their hang-up. */
		s->pfd[i].events = s->rings[i].overwrite ? 0 : POLLIN;
	}
	s->live = s->npoll = s->nrings;
	s->st.nr_rings = (uint32_t)s->nrings;
	s->st.nr_fds = (uint32_t)s->nfds;
	s->st.ring_bytes = (uint64_t)s->o.data_pages * (uint64_t)getpagesize();
	return 0;
}

int pfr_perf_session_add_ring(struct pfr_perf_session *s, void *base,
			      size_t map_len, int cpu)
{
	struct perf_event_mmap_page *pg = base;
	struct pfr_perf_ring *r;
	uint64_t off, size, psz = (uint64_t)getpagesize();
	int err;

	if (!s || !base || map_len < sizeof(*pg))
		return -PFR_E_INVAL;
	off = PFR_READ_ONCE(pg->data_offset);
	size = PFR_READ_ONCE(pg->data_size);
	if (!off && !size && map_len > psz) {
		off = psz;
		size = map_len - psz;
	}
	if (off < sizeof(*pg) || size < 8 || (size & (size - 1)) ||
	    off > map_len || size > map_len - off)
		return -PFR_E_LAYOUT;
	if (add_ring(s))
		return -PFR_E_SYSTEM;
	r = &s->rings[s->nrings];
	r->fd = -1;
	r->cpu = cpu;
	r->page = pg; /* base stays NULL: not ours to unmap */
	r->data_size = size;
	r->scratch = malloc(PFR_RECORD_MAX + 8);
	if (!r->scratch)
		return -PFR_E_SYSTEM;
	err = pfr_reader_init(
		&r->reader, (const uint64_t *)(void *)&pg->data_head,
		(uint64_t *)(void *)&pg->data_tail, (unsigned char *)base + off,
		size, PFR_ORDER_ACQREL, 0, r->scratch);
	if (err) {
		free(r->scratch);
		r->scratch = NULL;
		return err;
	}
	s->nrings++;
	s->st.nr_rings = (uint32_t)s->nrings;
	return 0;
}

/* perf's records of the file's start (tools/lib/perf/include/perf/
 * event.h): which CPU and thread each id is (ID_INDEX), the threads and
 * the CPUs recorded (THREAD_MAP, CPU_MAP). */
#define PFR__REC_ID_INDEX 69
#define PFR__REC_THREAD_MAP 73
#define PFR__REC_CPU_MAP 74

/* One record of n bytes at body into the file (n a multiple of 8). */
static int put_rec(struct pfr_perf_session *s, uint32_t type, const void *body,
		   size_t n)
{
	struct pfr_record_header h = {type, 0, (uint16_t)(n + 8)};

	return pfr_perf_file_write(s->file, &h, body, (uint32_t)n) ? -1 : 0;
}

/* ID_INDEX: { u64 nr; { u64 id, idx, cpu, tid; } [nr] }, cut into records
 * of at most 2000 entries. */
static int write_id_index(struct pfr_perf_session *s)
{
	enum { CHUNK = 2000 };
	uint64_t *b = malloc((1 + 4 * CHUNK) * sizeof(*b));
	uint64_t n = 0;
	int err = 0;

	if (!b)
		return -1;
	for (uint32_t i = 0; i < s->nev && !err; i++)
		for (uint32_t k = 0; k < s->ev[i].nids && !err; k++) {
			uint64_t *e = b + 1 + 4 * n;

			e[0] = s->ev[i].ids[k];
			e[1] = i;
			e[2] = (uint64_t)(int64_t)s->ev[i].id_cpu[k];
			e[3] = (uint64_t)(int64_t)s->ev[i].id_tid[k];
			if (++n == CHUNK) {
				b[0] = n;
				err = put_rec(s, PFR__REC_ID_INDEX, b,
					      8 * (1 + 4 * n));
				n = 0;
			}
		}
	if (!err && n) {
		b[0] = n;
		err = put_rec(s, PFR__REC_ID_INDEX, b, 8 * (1 + 4 * n));
	}
	free(b);
	return err;
}

/* THREAD_MAP: { u64 nr; { u64 pid; char comm[16]; } [nr] } (at most 2000
 * threads: the rest are left out); CPU_MAP: { u16 type = 0 (a list);
 * u16 nr; u16 cpu[nr] } padded to 8 bytes. */
static int write_maps(struct pfr_perf_session *s)
{
	int nt = s->ntargets < 2000 ? s->ntargets : 2000;
	size_t tn = 8 + 24 * (size_t)nt,
	       cn = (4 + 2 * (size_t)s->ncpu + 7) & ~7u;
	unsigned char *b = calloc(1, tn > cn ? tn : cn);
	uint64_t v = (uint64_t)nt;
	uint16_t w;
	int err;

	if (!b)
		return -1;
	memcpy(b, &v, 8);
	for (int t = 0; t < nt; t++) {
		char path[300], comm[17] = "";
		FILE *f;

		v = (uint64_t)(int64_t)s->targets[t];
		memcpy(b + 8 + 24 * t, &v, 8);
		snprintf(path, sizeof(path), "%s/%d/comm", s->proc,
			 (int)s->targets[t]);
		if (s->targets[t] > 0 && (f = fopen(path, "r"))) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = 0;
			fclose(f);
		}
		memcpy(b + 8 + 24 * t + 8, comm, 16);
	}
	err = put_rec(s, PFR__REC_THREAD_MAP, b, tn);
	memset(b, 0, cn);
	w = (uint16_t)s->ncpu;
	memcpy(b + 2, &w, 2);
	for (int c = 0; c < s->ncpu; c++) {
		w = (uint16_t)s->cpus[c];
		memcpy(b + 4 + 2 * c, &w, 2);
	}
	if (!err)
		err = put_rec(s, PFR__REC_CPU_MAP, b, cn);
	free(b);
	return err;
}

/* A new file at path with the session's events, options and command line,
 * opening with perf's ID_INDEX, THREAD_MAP and CPU_MAP. */
static int open_file(struct pfr_perf_session *s, const char *path)
{
	const struct perf_event_attr *a0 = &s->ev[0].attr;
	int err;

	if (pfr_perf_file_create(&s->file, path))
		return pfr__sess_fail(s, -PFR_E_SYSTEM, PFR_PERF_STEP_FILE,
				      errno, -1, -1, 0);
	err = pfr__file_set_opts(
		s->file,
		s->o.flags & PFR_PERF_SESSION_NO_BUILDID    ? PFR__BUILDID_NONE
		: s->o.flags & PFR_PERF_SESSION_BUILDID_ALL ? PFR__BUILDID_ALL
							    : PFR__BUILDID_HIT,
		a0->use_clockid ? (int)a0->clockid : -1, s->o.compress_level);
	if (err)
		return pfr__sess_fail(s, err, PFR_PERF_STEP_FILE, errno, -1, -1,
				      0);
	for (uint32_t i = 0; i < s->nev; i++)
		if (pfr_perf_file_add_event(s->file, &s->ev[i].attr,
					    s->ev[i].name, s->ev[i].ids,
					    s->ev[i].nids))
			return pfr__sess_fail(s, -PFR_E_SYSTEM,
					      PFR_PERF_STEP_MEMORY, ENOMEM,
					      (int)i, -1, 0);
	for (uint32_t i = 0; i < s->nev; i++)
		if (s->ev[i].nr_members > 1 &&
		    pfr_perf_file_add_group(s->file, "{anon_group}", i,
					    s->ev[i].nr_members))
			return pfr__sess_fail(s, -PFR_E_SYSTEM,
					      PFR_PERF_STEP_MEMORY, ENOMEM,
					      (int)i, -1, 0);
	if (s->file_argc)
		pfr_perf_file_set_cmdline(s->file, s->file_argc, s->file_argv);
	if (s->bpf_collected) /* a switched file: the programs again */
		pfr__file_set_bpf(s->file, s->bpf_info, s->bpf_info_len,
				  s->bpf_nprog, s->bpf_btf, s->bpf_btf_len,
				  s->bpf_nbtf_ids);
	s->init_done = 0;
	if (write_id_index(s) || write_maps(s))
		return pfr__sess_fail(s, -PFR_E_SYSTEM, PFR_PERF_STEP_FILE,
				      errno, -1, -1, 0);
	return 0;
}

int pfr_perf_session_write_file(struct pfr_perf_session *s, const char *path,
				int argc, char *const *argv)
{
	if (!s || !path || !s->opened || s->file || argc < 0 || (argc && !argv))
		return -PFR_E_INVAL;
	s->file_argc = argc;
	s->file_argv = argv;
	return open_file(s, path);
}

int pfr_perf_session_switch_file(struct pfr_perf_session *s, const char *path)
{
	int err;

	if (!s || !path || !s->file)
		return -PFR_E_INVAL;
	if ((err = pfr_perf_session_drain(s, 1)))
		return err;
	err = pfr_perf_file_close(s->file);
	s->file = NULL;
	if (err)
		return pfr__sess_fail(s, err, PFR_PERF_STEP_FILE, errno, -1, -1,
				      0);
	if ((err = open_file(s, path)))
		return err;
	err = pfr_perf_session_synthesize(s);
	return err < 0 ? err : 0;
}

uint64_t pfr_perf_session_file_bytes(const struct pfr_perf_session *s)
{
	return s ? pfr__file_bytes(s->file) : 0;
}

int pfr_perf_session_enable(struct pfr_perf_session *s)
{
	int e = 0;
	ssize_t n;

	if (!s || !s->opened)
		return -PFR_E_INVAL;
	/* enable_on_exec does it for a command recorded alone; with a
	 * delay, only the tracking event starts now */
	for (int i = 0; !s->cmd_only && i < s->nfds; i++)
		if (!s->delayed || s->ev[s->fd_ev[i]].tracking)
			ioctl(s->fds[i], PERF_EVENT_IOC_ENABLE, 0);
	if (s->delayed && s->o.delay_ms > 0)
		s->enable_at_ms = pfr__sess_now_ms() + s->o.delay_ms;
	if (s->child <= 0 || s->go_fd < 0)
		return 0;
	n = write(s->go_fd, "g", 1);
	close(s->go_fd);
	s->go_fd = -1;
	if (n != 1)
		return pfr__sess_fail(s, -PFR_E_SYSTEM, PFR_PERF_STEP_EXEC,
				      errno, -1, -1, (int)s->child);
	n = read(s->err_fd, &e, sizeof(e));
	close(s->err_fd);
	s->err_fd = -1;
	if (n != (ssize_t)sizeof(e))
		return 0; /* EOF: exec succeeded */
	waitpid(s->child, NULL, 0);
	n = s->child;
	s->child = 0;
	return pfr__sess_fail(s, -PFR_PERF_E_EXEC, PFR_PERF_STEP_EXEC, e, -1,
			      -1, (int)n);
}

int64_t pfr__sess_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void pfr__sess_enable_delayed(struct pfr_perf_session *s)
{
	for (int i = 0; i < s->nfds; i++)
		if (!s->ev[s->fd_ev[i]].tracking)
			ioctl(s->fds[i], PERF_EVENT_IOC_ENABLE, 0);
	s->delayed = 0;
}

int pfr_perf_session_disable(struct pfr_perf_session *s)
{
	if (!s)
		return -PFR_E_INVAL;
	for (int i = 0; i < s->nfds; i++)
		ioctl(s->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	return 0;
}

int pfr_perf_session_stats(const struct pfr_perf_session *s,
			   struct pfr_perf_session_stats *st)
{
	struct pfr_perf_session_stats t;

	if (!s)
		return -PFR_E_INVAL;
	t = s->st;
	t.throttle = t.by_type[PERF_RECORD_THROTTLE];
	t.unthrottle = t.by_type[PERF_RECORD_UNTHROTTLE];
	return copy_out(st, &t, sizeof(t));
}

int pfr_perf_session_last_error(const struct pfr_perf_session *s,
				struct pfr_perf_session_error *e)
{
	if (!s)
		return -PFR_E_INVAL;
	return copy_out(e, &s->err, sizeof(s->err));
}

uint32_t pfr_perf_session_nr_events(const struct pfr_perf_session *s)
{
	return s ? s->nev : 0;
}

const struct perf_event_attr *
pfr_perf_session_attr(const struct pfr_perf_session *s, uint32_t i)
{
	return s && i < s->nev ? &s->ev[i].attr : NULL;
}

const char *pfr_perf_session_event_name(const struct pfr_perf_session *s,
					uint32_t i)
{
	return s && i < s->nev ? s->ev[i].name : "?";
}

void pfr_perf_session_layout(const struct pfr_perf_session *s,
			     struct pfr_perf_layout *lay)
{
	if (!lay)
		return;
	if (s)
		*lay = s->lay;
	else
		memset(lay, 0, sizeof(*lay));
}

pid_t pfr_perf_session_child(const struct pfr_perf_session *s)
{
	return s && s->child > 0 ? s->child : 0;
}
