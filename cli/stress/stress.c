/* SPDX-License-Identifier: MIT */
/*
 * perfring stress - a verified writer/reader run over one ring, with
 * threads or with two processes (a sealed memfd passed across fork, or a
 * named POSIX shared-memory object).
 *
 * Every record carries { u64 seq; u64 sum; bytes... }: seq counts every
 * record the writer tried to write (dropped ones too), sum is a hash of
 * seq, the length and the filler bytes.  The reader checks every record and
 * follows the LOST records: after LOST {n}, the next seq must be n further
 * on.  At the end: written == read + lost, exactly.
 */
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perfring/ring.h>

#include "../cli.h"
#include "../../util/payload.h"
#include "mw.h"

#define STRESS_TYPE 0x5354u /* "ST" */
#define STRESS_HDR PFR__PAYLOAD_HDR /* seq, hash (util/payload.h) */

struct stress_cfg {
	double seconds;
	int ordering, policy;
	uint32_t min_len, max_len, batch;
	uint64_t ring_size;
	int processes, wait, json;
	uint64_t seed;
	int shm; /* processes over a named shm object, not a memfd */
};

/* Shared between the writer and the reader (threads or processes). */
struct stress_shared {
	uint64_t written; /* records attempted */
	uint64_t writer_lost; /* the ring's count, at the end */
	uint64_t lost_pending; /* dropped, in no LOST record yet */
	uint64_t read; /* records verified */
	uint64_t lost_seen; /* sum of LOST records' counts */
	uint64_t corrupt; /* records that failed a check */
	uint64_t snapshots; /* OVERWRITE: snapshots verified */
	uint64_t last_seq; /* OVERWRITE: newest seq in the last one */
	uint32_t done; /* the writer finished (see below) */
	uint32_t reader_err; /* a reader API error (PFR_E_*) */
	uint32_t reader_ready; /* the reader runs: the writer's clock starts */
	uint32_t peer_died; /* the other process died: the run stopped */
	char first_error[160];
};

/*
 * The other process of a --processes run, watched through a pidfd: it
 * becomes readable when the process exits, whatever killed it.  pidfds
 * (Linux 5.3) are used rather than PR_SET_PDEATHSIG and SIGCHLD because
 * they work in both directions without signal handlers (the reader gets
 * the writer's pidfd, opened before fork, so there is no window in which
 * the writer could die unseen, and a pid reused meanwhile cannot be
 * mistaken for it), and because PR_SET_PDEATHSIG fires when the parent
 * *thread* exits, not the process.  Where pidfd_open() is missing the
 * watch falls back to waitpid(WNOHANG) for a child and to getppid() for
 * the parent.
 */
struct stress_peer {
	pid_t pid;
	int fd; /* pidfd, or -1 */
	int child; /* pid is our child (waitpid works) */
	int exited, status; /* child: reaped by the fallback */
	uint64_t checked; /* last check, ns */
	const char *role; /* "writer" or "reader" */
};

pid_t cli_stress_fork(void)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	/* The many-writer runs have several children each, some of which
	 * never look at their parent (a writer that blocks, a stopper that
	 * sleeps): the kernel ends them when the parent dies.  A parent
	 * killed before prctl() is seen by getppid() after it. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(3);
	return 0;
}

static int stress_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* 1 when the peer process has exited (or is exiting), else 0. */
static int stress_peer_gone(struct stress_peer *pe)
{
	if (!pe)
		return 0;
	if (pe->fd >= 0) {
		struct pollfd p = {pe->fd, POLLIN, 0};

		return poll(&p, 1, 0) > 0;
	}
	if (!pe->child)
		return getppid() != pe->pid;
	if (!pe->exited && waitpid(pe->pid, &pe->status, WNOHANG) == pe->pid)
		pe->exited = 1;
	return pe->exited;
}

static void stress_pin(int cpu)
{
	cpu_set_t set;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	(void)sched_setaffinity(0, sizeof(set), &set);
}

static void stress_fail(struct stress_shared *sh, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void stress_fail(struct stress_shared *sh, const char *fmt, ...)
{
	va_list ap;

	if (sh->corrupt++ == 0) {
		va_start(ap, fmt);
		vsnprintf(sh->first_error, sizeof(sh->first_error), fmt, ap);
		va_end(ap);
	}
}

/* Verifies one stress record; returns its seq (or UINT64_MAX if bad). */
static uint64_t stress_check(struct stress_shared *sh,
			     const struct pfr_record_header *h,
			     const unsigned char *p, uint32_t len)
{
	uint64_t seq;

	if (h->type != STRESS_TYPE || len < STRESS_HDR) {
		stress_fail(sh, "record type %u length %u", h->type, len);
		return UINT64_MAX;
	}
	/* the record's own length is padded to 8: filler is the rest */
	if (!pfr__payload_verify(p, len, 0, &seq)) {
		stress_fail(sh, "checksum mismatch at seq %llu",
			    (unsigned long long)seq);
		return UINT64_MAX;
	}
	return seq;
}

/* The writer waits until the reader runs: the run's time counts from the
 * moment both sides do (a loaded machine may take long to start the
 * reader).  Returns 0, or -1 when the reader died first. */
static int stress_wait_reader(struct stress_shared *sh, struct stress_peer *pe)
{
	/* purpose: the reader's attach before we start; pairs with the
	 * store_release of reader_ready in stress_reader_thread() */
	while (!pfr_smp_load_acquire(&sh->reader_ready)) {
		if (stress_peer_gone(pe))
			return -1;
		usleep(200);
	}
	return 0;
}

static void stress_write(const struct stress_cfg *cfg, struct pfr_ring *ring,
			 struct stress_shared *sh, struct stress_peer *pe)
{
	struct pfr_writer w;
	uint64_t end, now, seq = 0, rnd = cfg->seed | 1, run;
	uint32_t pending = 0;
	/* BLOCK waits: the clock is read at every record, each wait is at
	 * most 20 ms and never past the end, so the run ends on time even
	 * when the reader stops freeing space (the others never wait: every
	 * 1024 records is often enough) */
	uint64_t every = cfg->policy == PFR_POLICY_BLOCK ? 0 : 1023;
	int err = pfr_ring_writer(ring, &w);

	if (err) {
		snprintf(sh->first_error, sizeof(sh->first_error), "writer: %s",
			 pfr_strerror(err));
		sh->corrupt++;
		PFR_WRITE_ONCE(sh->done, 1);
		return;
	}
	if (stress_wait_reader(sh, pe)) {
		PFR_WRITE_ONCE(sh->peer_died, 1);
		/* purpose: peer_died before done; pairs with the
		 * load_acquire of done in stress_read() */
		pfr_smp_store_release(&sh->done, 1);
		return;
	}
	run = (uint64_t)(cfg->seconds * 1e9);
	end = util_now_ns() + run;
	pfr_writer_set_timeout(&w, run < 20000000ull ? run : 20000000ull);
	for (;;) {
		uint32_t span = cfg->max_len - cfg->min_len + 1;
		uint32_t len =
			cfg->min_len + (uint32_t)(util_xorshift(&rnd) % span);
		unsigned char *p;

		if ((seq & every) == 0) {
			now = util_now_ns();
			if (now >= end)
				break;
			if (now - (pe ? pe->checked : now) >= 10000000ull) {
				/* a poll() every 10 ms at most */
				pe->checked = now;
				if (stress_peer_gone(pe)) {
					PFR_WRITE_ONCE(sh->peer_died, 1);
					break;
				}
			}
			if (!every && end - now < 20000000ull)
				pfr_writer_set_timeout(&w, end - now);
		}
		len = (len + 7) & ~7u; /* the reader sees the padded length */
		err = pfr_writer_reserve(&w, STRESS_TYPE, len, (void **)&p);
		seq++;
		if (err == -PFR_E_TIMEDOUT && stress_peer_gone(pe)) {
			/* no space for 20 ms: is the reader still there? */
			PFR_WRITE_ONCE(sh->peer_died, 1);
			break;
		}
		if (err)
			continue; /* dropped: the ring counted it */
		pfr__payload_stamp(p, len, 0, seq - 1);
		pfr_writer_commit_deferred(&w);
		if (++pending >= cfg->batch) {
			pfr_writer_publish(&w);
			pending = 0;
		}
	}
	pfr_writer_flush(&w);
	sh->written = seq;
	/* a LOST count that could not be flushed stays pending */
	sh->writer_lost = pfr_writer_lost(&w);
	sh->lost_pending = PFR_READ_ONCE(pfr_ring_ctl(ring)->lost_pending);
	/* purpose: the counts above before done; pairs with the reader's
	 * load_acquire of done in stress_read() */
	pfr_smp_store_release(&sh->done, 1);
}

/* An idle reader's look at the writer: a poll() every 5 ms at most (the
 * clock is cheap next to an idle round).  Returns 1 (and marks the run)
 * when the writer process is gone before it finished. */
static int stress_idle_check(struct stress_shared *sh, struct stress_peer *pe)
{
	uint64_t now;

	if (!pe)
		return 0;
	now = util_now_ns();
	if (now - pe->checked < 5000000ull)
		return 0;
	pe->checked = now;
	if (!stress_peer_gone(pe))
		return 0;
	/* the writer may have finished just before it died; purpose: pairs
	 * with the store_release of done in stress_write() */
	if (pfr_smp_load_acquire(&sh->done))
		return 0;
	PFR_WRITE_ONCE(sh->peer_died, 1);
	return 1;
}

static void stress_read(const struct stress_cfg *cfg, struct pfr_ring *ring,
			struct stress_shared *sh, struct stress_peer *pe)
{
	struct pfr_reader r;
	struct pfr_record rec;
	uint64_t expect = 0;
	int err = pfr_ring_reader(ring, &r), done = 0, n;

	if (err) {
		sh->reader_err = (uint32_t)-err;
		return;
	}
	for (;;) {
		int64_t avail;

		if (!done) /* purpose: pairs with store_release in
			    * stress_write(): counts before done */
			done = pfr_smp_load_acquire(&sh->done);
		avail = cfg->wait ? pfr_reader_wait(&r, 10000000ull)
				  : pfr_reader_begin(&r);
		if (avail == -PFR_E_TIMEDOUT)
			avail = 0;
		if (avail < 0) {
			sh->reader_err = (uint32_t)-avail;
			return;
		}
		while ((n = pfr_reader_next(&r, &rec)) == 1) {
			const unsigned char *p =
				(const unsigned char *)rec.payload;
			uint64_t seq;

			if (rec.hdr.type == PFR_RECORD_LOST) {
				struct pfr_lost_record lr;

				memcpy(&lr, p - 8, sizeof(lr));
				sh->lost_seen += lr.lost;
				expect += lr.lost;
				continue;
			}
			seq = stress_check(sh, &rec.hdr, p, rec.len);
			if (seq == UINT64_MAX)
				continue;
			if (seq != expect)
				stress_fail(sh, "seq %llu, expected %llu",
					    (unsigned long long)seq,
					    (unsigned long long)expect);
			expect = seq + 1;
			sh->read++;
		}
		if (n < 0) {
			sh->reader_err = (uint32_t)-n;
			return;
		}
		pfr_reader_end(&r);
		if (done && avail == 0 && pfr_reader_begin(&r) == 0)
			return;
		if (!avail) {
			if (!done && stress_idle_check(sh, pe))
				return;
			pfr_cpu_relax();
		}
	}
}

/* OVERWRITE: snapshot repeatedly; every snapshot must be a contiguous run
 * of whole, correct records. */
static void stress_snapshot(struct pfr_ring *ring, struct stress_shared *sh,
			    int final)
{
	struct pfr_ring_stats st;
	unsigned char *buf;
	int64_t n;

	pfr_ring_stats(ring, &st);
	buf = malloc(st.data_size);
	if (!buf)
		return;
	for (int tries = 0; tries < 100; tries++) {
		n = pfr_ring_snapshot(ring, buf, st.data_size);
		if (n != -PFR_E_OVERWRITTEN)
			break;
	}
	if (n < 0) {
		if (n != -PFR_E_OVERWRITTEN)
			sh->reader_err = (uint32_t)-n;
		free(buf);
		return;
	}
	{
		uint64_t prev = UINT64_MAX;

		for (int64_t off = 0; off < n;) {
			struct pfr_record_header h;
			uint64_t seq;

			memcpy(&h, buf + off, 8);
			seq = stress_check(sh, &h, buf + off + 8, h.size - 8u);
			if (seq != UINT64_MAX && prev != UINT64_MAX &&
			    seq != prev + 1)
				stress_fail(sh, "snapshot: seq %llu after %llu",
					    (unsigned long long)seq,
					    (unsigned long long)prev);
			if (seq != UINT64_MAX) {
				prev = seq;
				sh->read++;
			}
			off += h.size;
		}
		sh->snapshots++;
		if (final)
			sh->last_seq = prev;
	}
	free(buf);
}

static void stress_watch(const struct stress_cfg *cfg, struct pfr_ring *ring,
			 struct stress_shared *sh, struct stress_peer *pe)
{
	(void)cfg;
	/* purpose: pairs with store_release of done in stress_write() */
	while (!pfr_smp_load_acquire(&sh->done)) {
		stress_snapshot(ring, sh, 0);
		if (stress_idle_check(sh, pe))
			return;
		usleep(1000);
	}
	stress_snapshot(ring, sh, 1);
}

struct stress_thread {
	const struct stress_cfg *cfg;
	struct pfr_ring *ring;
	struct stress_shared *sh;
	struct stress_peer *writer; /* processes: the writer, watched */
};

static void *stress_reader_thread(void *arg)
{
	struct stress_thread *t = (struct stress_thread *)arg;

	stress_pin(1);
	/* purpose: the writer starts its clock now; pairs with the
	 * load_acquire in stress_wait_reader() */
	pfr_smp_store_release(&t->sh->reader_ready, 1);
	if (t->cfg->policy == PFR_POLICY_OVERWRITE)
		stress_watch(t->cfg, t->ring, t->sh, t->writer);
	else
		stress_read(t->cfg, t->ring, t->sh, t->writer);
	return NULL;
}

/* The reader process of a --processes run: attaches to the ring (by the
 * memfd it inherited, or by name), reads, and stops with a message when
 * the writer dies.  Never returns. */
static void stress_child(const struct stress_cfg *cfg, struct pfr_ring *ring,
			 const char *name, struct stress_shared *sh,
			 struct stress_peer *writer)
{
	struct pfr_ring *mine;
	struct stress_thread t = {cfg, NULL, sh, writer};
	int err = cfg->shm ? pfr_ring_attach_shm(&mine, name)
			   : pfr_ring_attach_fd(&mine, pfr_ring_fd(ring));

	if (err) {
		fprintf(stderr, "perfring stress: reader: cannot attach: %s\n",
			pfr_strerror(err));
		sh->reader_err = (uint32_t)-err;
		_exit(1);
	}
	/* both sides hold the object now: the name can go, so that a kill
	 * -9 of either leaves nothing behind in /dev/shm */
	if (cfg->shm)
		pfr_ring_unlink(name);
	pfr_ring_close(ring); /* the writer's mapping, inherited */
	t.ring = mine;
	stress_reader_thread(&t);
	pfr_ring_close(mine);
	if (PFR_READ_ONCE(sh->peer_died)) {
		fprintf(stderr,
			"perfring stress: reader: the writer process %d died "
			"during the run; the reader stops (run failed)\n",
			(int)writer->pid);
		_exit(3);
	}
	_exit(0);
}

/* Why a reader process ended, from its wait status, into buf. */
static void stress_exit_cause(char *buf, size_t n, pid_t pid, int status)
{
	if (WIFSIGNALED(status))
		snprintf(buf, n,
			 "reader process %d died (killed by signal %d%s)",
			 (int)pid, WTERMSIG(status),
			 WTERMSIG(status) == SIGKILL ? ", SIGKILL" : "");
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		snprintf(buf, n, "reader process %d exited with status %d",
			 (int)pid, WEXITSTATUS(status));
	else
		buf[0] = 0;
}

/* The writer's side of a --processes run: forks the reader, writes,
 * reaps it.  cause gets a message when the reader process failed.
 * Returns 0, or -1 when the reader could not be started. */
static int stress_processes(const struct stress_cfg *cfg, struct pfr_ring *ring,
			    const char *name, struct stress_shared *sh,
			    char *cause, size_t ncause)
{
	struct stress_peer writer = {getpid(), -1, 0, 0, 0, 0, "writer"};
	struct stress_peer reader = {0, -1, 1, 0, 0, 0, "reader"};
	pid_t pid;
	int status = 0;

	/* opened before fork: the child watches this very process */
	writer.fd = stress_pidfd(writer.pid);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		stress_child(cfg, ring, name, sh, &writer);
		_exit(1); /* not reached */
	}
	if (writer.fd >= 0)
		close(writer.fd);
	if (pid < 0) {
		perror("perfring stress: fork");
		return -1;
	}
	reader.pid = pid;
	reader.fd = stress_pidfd(pid); /* a zombie until reaped: no race */
	stress_pin(0);
	stress_write(cfg, ring, sh, &reader);
	if (cfg->shm) /* in case the reader died before it could */
		pfr_ring_unlink(name);
	if (reader.exited)
		status = reader.status;
	else
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	if (reader.fd >= 0)
		close(reader.fd);
	stress_exit_cause(cause, ncause, pid, status);
	if (!cause[0] && PFR_READ_ONCE(sh->peer_died))
		snprintf(cause, ncause, "reader process %d ended early",
			 (int)pid);
	return 0;
}

/* Runs one combination; returns 0 when everything verified. */
static int stress_one(const struct stress_cfg *cfg, FILE *out)
{
	struct pfr_ring_opts o = {0};
	struct stress_shared *sh;
	struct pfr_ring *ring;
	char name[64], cause[160] = "";
	uint64_t lost, t0 = util_now_ns();
	int err, bad;

	o.data_size = cfg->ring_size;
	o.policy = (enum pfr_policy)cfg->policy;
	o.ordering = (enum pfr_ordering)cfg->ordering;
	o.flags = cfg->wait ? PFR_RING_WAIT : 0;
	o.lost_id = 1;
	sh = (struct stress_shared *)mmap(NULL, sizeof(*sh),
					  PROT_READ | PROT_WRITE,
					  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("perfring stress: mmap");
		return 1;
	}
	memset(sh, 0, sizeof(*sh));
	snprintf(name, sizeof(name), "perfring-stress-%d", (int)getpid());
	/* a child peer gets a sealed memfd (it cannot be shrunk under the
	 * writer); --shm keeps the named object for tests that need one */
	err = !cfg->processes ? pfr_ring_create(&ring, &o)
	      : cfg->shm      ? pfr_ring_create_shm(&ring, name, &o)
			      : pfr_ring_create_memfd(&ring, &o);
	if (err) {
		fprintf(stderr,
			"perfring stress: cannot create the ring: %s%s%s\n",
			pfr_strerror(err), err == -PFR_E_SYSTEM ? ": " : "",
			err == -PFR_E_SYSTEM ? strerror(errno) : "");
		munmap(sh, sizeof(*sh));
		return 1;
	}
	if (cfg->processes) {
		if (stress_processes(cfg, ring, name, sh, cause,
				     sizeof(cause))) {
			if (cfg->shm)
				pfr_ring_unlink(name);
			pfr_ring_close(ring);
			munmap(sh, sizeof(*sh));
			return 1;
		}
	} else {
		pthread_t th;
		struct stress_thread t = {cfg, ring, sh, NULL};

		if (pthread_create(&th, NULL, stress_reader_thread, &t)) {
			fprintf(stderr,
				"perfring stress: pthread_create failed\n");
			return 1;
		}
		stress_pin(0);
		stress_write(cfg, ring, sh, NULL);
		pthread_join(th, NULL);
	}
	pfr_ring_close(ring);

	if (cfg->policy == PFR_POLICY_OVERWRITE) {
		/* nothing is lost in a flight recorder, only overwritten:
		 * the last snapshot must end at the last record written */
		lost = 0;
		bad = sh->corrupt || sh->reader_err || cause[0] ||
		      sh->last_seq + 1 != sh->written;
	} else {
		/* LOST records report most drops; a count still pending
		 * when the run ended is in writer_lost but in no record */
		lost = sh->writer_lost;
		bad = sh->corrupt || sh->reader_err || cause[0] ||
		      sh->written != sh->read + lost ||
		      sh->lost_seen + sh->lost_pending != lost;
	}
	if (cfg->json) {
		fprintf(out,
			"{\"ordering\":\"%s\",\"policy\":\"%s\","
			"\"transport\":\"%s\",\"seconds\":%.3f,"
			"\"written\":%llu,\"read\":%llu,\"lost\":%llu,"
			"\"lost_reported\":%llu,\"corrupt\":%llu,"
			"\"snapshots\":%llu,\"error\":",
			pfr_ordering_name((enum pfr_ordering)cfg->ordering),
			pfr_policy_name((enum pfr_policy)cfg->policy),
			cfg->processes ? "processes" : "threads",
			(double)(util_now_ns() - t0) / 1e9,
			(unsigned long long)sh->written,
			(unsigned long long)sh->read, (unsigned long long)lost,
			(unsigned long long)sh->lost_seen,
			(unsigned long long)sh->corrupt,
			(unsigned long long)sh->snapshots);
		util_json_str(out, cause[0] ? cause
				   : sh->reader_err
					   ? pfr_strerror((int)sh->reader_err)
					   : sh->first_error);
		fprintf(out, ",\"ok\":%s}\n", bad ? "false" : "true");
	} else {
		fprintf(out,
			"%-8s %-9s %-9s written %12llu  read %12llu  "
			"lost %10llu  corrupt %llu  %s\n",
			pfr_ordering_name((enum pfr_ordering)cfg->ordering),
			pfr_policy_name((enum pfr_policy)cfg->policy),
			cfg->processes ? "processes" : "threads",
			(unsigned long long)sh->written,
			(unsigned long long)sh->read, (unsigned long long)lost,
			(unsigned long long)sh->corrupt, bad ? "FAIL" : "ok");
		if (sh->first_error[0])
			fprintf(out, "  first error: %s\n", sh->first_error);
		if (cause[0])
			fprintf(out, "  reader error: %s\n", cause);
		else if (sh->reader_err)
			fprintf(out, "  reader error: %s\n",
				pfr_strerror((int)sh->reader_err));
		if (cfg->policy == PFR_POLICY_OVERWRITE)
			fprintf(out, "  %llu snapshots verified\n",
				(unsigned long long)sh->snapshots);
	}
	fflush(out);
	munmap(sh, sizeof(*sh));
	return bad;
}

static void stress_help(void)
{
	printf("usage: perfring stress [options]\n\n"
	       "Runs a writer and a reader over one ring for a while; every\n"
	       "record carries a sequence number and a checksum.  Prints the\n"
	       "written, read, lost and corrupt counts and exits 1 on any\n"
	       "corruption or when written != read + lost.\n\n"
	       "  -s, --seconds N      run time per combination (default 2)\n"
	       "  -o, --ordering O     full, acqrel (default), ctrldep, or all\n"
	       "  -p, --policy P       drop (default), block, overwrite, or all\n"
	       "      --all            every ordering and every policy\n"
	       "      --sizes MIN:MAX  payload bytes per record (16:256)\n"
	       "      --ring-size N    data area bytes, power of two (64Ki)\n"
	       "      --batch N        records per publication (1)\n"
	       "      --processes      writer and reader in two processes (a\n"
	       "                       sealed memfd; default: threads); a\n"
	       "                       process whose peer dies stops with a\n"
	       "                       message naming it, and fails\n"
	       "      --shm            --processes over a named POSIX shared-\n"
	       "                       memory object (unlinked once both\n"
	       "                       sides are attached)\n"
	       "      --wait           the reader blocks in pfr_reader_wait()\n"
	       "      --seed N         record-size sequence seed\n"
	       "      --json           one JSON object per combination\n"
	       "      --mode M         spsc: one writer, one ring (this, the\n"
	       "                       default); group: many writers, a ring\n"
	       "                       each; mpsc: many writers, one shared\n"
	       "                       ring; with --writers N, and options of\n"
	       "                       their own:\n"
	       "                       perfring stress --mode group --help\n"
	       "                       perfring stress --mode mpsc --help\n"
	       "  -h, --help\n\n"
	       "lost: records the writer dropped because the ring was full.\n"
	       "A DROP writer never waits for the reader, so a writer faster\n"
	       "than its reader loses most of what it writes, and that is the\n"
	       "policy at work: the run is ok when no record is corrupt and\n"
	       "written = read + lost exactly (each loss reported in a LOST\n"
	       "record).  BLOCK waits for space, up to a time-out, first.\n");
}

/* `--mode group|mpsc` selects a many-writer stress (cli/stress/group.c,
 * cli/stress/mpsc.c), which parses its own options. */
static int stress_mode(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *m = NULL;

		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--mode") && i + 1 < argc)
			m = argv[i + 1];
		else if (!strncmp(argv[i], "--mode=", 7))
			m = argv[i] + 7;
		if (m && !strcmp(m, "group"))
			return 1;
		if (m && !strcmp(m, "mpsc"))
			return 2;
		if (m && strcmp(m, "spsc"))
			return -1;
	}
	return 0;
}

/* --sizes MIN:MAX into cfg: 0, or the usage error's exit status. */
static int stress_parse_sizes(const char *arg, struct stress_cfg *cfg)
{
	/* each side parsed in full: no 32-bit wrap, no sign,
	 * nothing after it */
	unsigned long long a = 0, b = 0;

	if (util_parse_size_pair(arg, &a, &b) || a < STRESS_HDR || b < a ||
	    b > PFR_RECORD_MAX - 8)
		return util_usage_error("stress",
					"--sizes: want MIN:MAX with "
					"16 <= MIN <= MAX <= %u",
					PFR_RECORD_MAX - 8);
	cfg->min_len = (uint32_t)a;
	cfg->max_len = (uint32_t)b;
	return 0;
}

/* Parses the options of the SPSC stress into cfg (all_ord, all_pol: every
 * ordering, every policy): -1 to run, else the exit status. */
static int stress_parse(int argc, char **argv, struct stress_cfg *cfg,
			int *all_ord, int *all_pol)
{
	static const struct option opts[] = {
		{"seconds", required_argument, NULL, 's'},
		{"ordering", required_argument, NULL, 'o'},
		{"policy", required_argument, NULL, 'p'},
		{"all", no_argument, NULL, 'A'},
		{"sizes", required_argument, NULL, 'z'},
		{"ring-size", required_argument, NULL, 'r'},
		{"batch", required_argument, NULL, 'b'},
		{"processes", no_argument, NULL, 'P'},
		{"shm", no_argument, NULL, 'H'},
		{"wait", no_argument, NULL, 'w'},
		{"seed", required_argument, NULL, 'S'},
		{"json", no_argument, NULL, 'j'},
		{"mode", required_argument, NULL, 'M'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned long long v;
	unsigned char seen[256] = {0};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "s:o:p:h", opts, NULL)) != -1) {
		if (util_once("stress", opts, seen, c, NULL))
			return PFR_EXIT_USAGE;
		switch (c) {
		case 's':
			if (util_parse_seconds(optarg, &cfg->seconds) ||
			    !(cfg->seconds > 0) || cfg->seconds > 86400)
				return util_usage_error(
					"stress",
					"--seconds: '%s' is not a "
					"time in seconds",
					optarg);
			break;
		case 'o':
			if (!strcmp(optarg, "all")) {
				*all_ord = 1;
				break;
			}
			cfg->ordering = pfr_ordering_parse(optarg);
			if (cfg->ordering < 0)
				return util_usage_error(
					"stress",
					"--ordering: '%s' is not "
					"full, acqrel, ctrldep or all",
					optarg);
			break;
		case 'p':
			if (!strcmp(optarg, "all")) {
				*all_pol = 1;
				break;
			}
			cfg->policy = pfr_policy_parse(optarg);
			if (cfg->policy < 0)
				return util_usage_error(
					"stress",
					"--policy: '%s' is not drop, "
					"block, overwrite or all",
					optarg);
			break;
		case 'A':
			*all_ord = *all_pol = 1;
			break;
		case 'z':
			c = stress_parse_sizes(optarg, cfg);
			if (c)
				return c;
			break;
		case 'r':
			if (util_parse_size(optarg, &v) || v < 4096 ||
			    (v & (v - 1)))
				return util_usage_error(
					"stress",
					"--ring-size: want a power of "
					"two of at least 4096");
			cfg->ring_size = v;
			break;
		case 'b':
			if (util_parse_u64(optarg, &v) || !v || v > 1u << 20)
				return util_usage_error(
					"stress", "--batch: want 1..1048576");
			cfg->batch = (uint32_t)v;
			break;
		case 'P':
			cfg->processes = 1;
			break;
		case 'H':
			cfg->processes = cfg->shm = 1;
			break;
		case 'w':
			cfg->wait = 1;
			break;
		case 'S':
			if (util_parse_u64(optarg, &v))
				return util_usage_error(
					"stress", "--seed: want a number");
			cfg->seed = v;
			break;
		case 'M': /* spsc: this file's stress */
			break;
		case 'j':
			cfg->json = 1;
			break;
		case 'h':
			stress_help();
			return 0;
		default:
			return util_usage_error("stress", "bad option");
		}
	}
	if (optind < argc)
		return util_usage_error("stress", "unexpected argument '%s'",
					argv[optind]);
	if ((uint64_t)((cfg->max_len + 8 + 7) & ~7u) > (cfg->ring_size / 2 - 8))
		return util_usage_error(
			"stress",
			"records of %u bytes do not fit a ring of "
			"%llu bytes (the largest is half the ring)",
			cfg->max_len, (unsigned long long)cfg->ring_size);
	return -1;
}

/* Runs the stress for the selected orderings and policies, each with its
 * report.  Returns 1 when any failed, else 0. */
static int stress_run_all(const struct stress_cfg *cfg, int all_ord,
			  int all_pol)
{
	int failed = 0, drop = 0;

	for (int o = 0; o < PFR_ORDER__COUNT; o++) {
		if (!all_ord && o != cfg->ordering)
			continue;
		for (int p = 0; p < PFR_POLICY__COUNT; p++) {
			struct stress_cfg one = *cfg;

			if (!all_pol && p != cfg->policy)
				continue;
			one.ordering = o;
			one.policy = p;
			failed |= stress_one(&one, stdout);
			drop |= p == PFR_POLICY_DROP;
		}
	}
	if (drop && !cfg->json)
		printf("lost: records a DROP writer discarded because the ring "
		       "was full\n(a writer faster than its reader loses most; "
		       "ok means written = read + lost\nand no record corrupt)"
		       "\n");
	return failed ? 1 : 0;
}

int cli_cmd_stress(int argc, char **argv)
{
	struct stress_cfg cfg = {2.0,
				 PFR_ORDER_DEFAULT,
				 PFR_POLICY_DROP,
				 16,
				 256,
				 1,
				 1u << 16,
				 0,
				 0,
				 0,
				 0x9e3779b9,
				 0};
	int all_ord = 0, all_pol = 0, err;

	switch (stress_mode(argc, argv)) {
	case 1:
		return cli_stress_group(argc, argv);
	case 2:
		return cli_stress_mpsc(argc, argv);
	case -1:
		return util_usage_error("stress",
					"--mode takes spsc, group or mpsc");
	}
	err = stress_parse(argc, argv, &cfg, &all_ord, &all_pol);
	if (err >= 0)
		return err;
	return stress_run_all(&cfg, all_ord, all_pol);
}
