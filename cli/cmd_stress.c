/* SPDX-License-Identifier: MIT */
/*
 * perfring stress - a verified writer/reader run over one ring, with
 * threads or with two processes over POSIX shared memory.
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
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perfring/ring.h>

#include "cli.h"
#include "stress_mw.h"

#define STRESS_TYPE 0x5354u /* "ST" */
#define STRESS_HDR 16u

struct stress_cfg {
	double seconds;
	int ordering, policy;
	uint32_t min_len, max_len, batch;
	uint64_t ring_size;
	int processes, wait, json;
	uint64_t seed;
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
	char first_error[160];
};

static uint64_t stress_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t stress_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* FNV-1a over seq, the length and the filler. */
static uint64_t stress_sum(uint64_t seq, const unsigned char *fill, uint32_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ seq;

	h = (h ^ n) * 0x100000001b3ull;
	for (uint32_t i = 0; i < n; i++)
		h = (h ^ fill[i]) * 0x100000001b3ull;
	return h;
}

static void stress_fill(unsigned char *p, uint64_t seq, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		p[i] = (unsigned char)(seq * 31 + i);
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
	uint64_t seq, sum;

	if (h->type != STRESS_TYPE || len < STRESS_HDR) {
		stress_fail(sh, "record type %u length %u", h->type, len);
		return UINT64_MAX;
	}
	memcpy(&seq, p, 8);
	memcpy(&sum, p + 8, 8);
	/* the record's own length is padded to 8: filler is the rest */
	if (sum != stress_sum(seq, p + STRESS_HDR, len - STRESS_HDR)) {
		stress_fail(sh, "checksum mismatch at seq %llu",
			    (unsigned long long)seq);
		return UINT64_MAX;
	}
	return seq;
}

static void stress_write(const struct stress_cfg *cfg, struct pfr_ring *ring,
			 struct stress_shared *sh)
{
	struct pfr_writer w;
	uint64_t end, seq = 0, rnd = cfg->seed | 1;
	uint32_t pending = 0;
	int err = pfr_ring_writer(ring, &w);

	if (err) {
		snprintf(sh->first_error, sizeof(sh->first_error), "writer: %s",
			 pfr_strerror(err));
		sh->corrupt++;
		PFR_WRITE_ONCE(sh->done, 1);
		return;
	}
	pfr_writer_set_timeout(&w, 20000000ull); /* BLOCK: 20 ms */
	end = stress_now_ns() + (uint64_t)(cfg->seconds * 1e9);
	for (;;) {
		uint32_t span = cfg->max_len - cfg->min_len + 1;
		uint32_t len =
			cfg->min_len + (uint32_t)(stress_rand(&rnd) % span);
		unsigned char *p;
		uint64_t sum;

		if ((seq & 1023) == 0 && stress_now_ns() >= end)
			break;
		len = (len + 7) & ~7u; /* the reader sees the padded length */
		err = pfr_writer_reserve(&w, STRESS_TYPE, len, (void **)&p);
		seq++;
		if (err)
			continue; /* dropped: the ring counted it */
		memcpy(p, &(uint64_t){seq - 1}, 8);
		stress_fill(p + STRESS_HDR, seq - 1, len - STRESS_HDR);
		sum = stress_sum(seq - 1, p + STRESS_HDR, len - STRESS_HDR);
		memcpy(p + 8, &sum, 8);
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

static void stress_read(const struct stress_cfg *cfg, struct pfr_ring *ring,
			struct stress_shared *sh)
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
		if (!avail)
			pfr_cpu_relax();
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
			 struct stress_shared *sh)
{
	(void)cfg;
	/* purpose: pairs with store_release of done in stress_write() */
	while (!pfr_smp_load_acquire(&sh->done)) {
		stress_snapshot(ring, sh, 0);
		usleep(1000);
	}
	stress_snapshot(ring, sh, 1);
}

struct stress_thread {
	const struct stress_cfg *cfg;
	struct pfr_ring *ring;
	struct stress_shared *sh;
};

static void *stress_reader_thread(void *arg)
{
	struct stress_thread *t = (struct stress_thread *)arg;

	stress_pin(1);
	if (t->cfg->policy == PFR_POLICY_OVERWRITE)
		stress_watch(t->cfg, t->ring, t->sh);
	else
		stress_read(t->cfg, t->ring, t->sh);
	return NULL;
}

/* Runs one combination; returns 0 when everything verified. */
static int stress_one(const struct stress_cfg *cfg, FILE *out)
{
	struct pfr_ring_opts o = {0};
	struct stress_shared *sh;
	struct pfr_ring *ring;
	char name[64];
	uint64_t lost, t0 = stress_now_ns();
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
	err = cfg->processes ? pfr_ring_create_shm(&ring, name, &o)
			     : pfr_ring_create(&ring, &o);
	if (err) {
		fprintf(stderr,
			"perfring stress: cannot create the ring: %s%s%s\n",
			pfr_strerror(err), err == -PFR_E_SYSTEM ? ": " : "",
			err == -PFR_E_SYSTEM ? strerror(errno) : "");
		munmap(sh, sizeof(*sh));
		return 1;
	}
	if (cfg->processes) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			/* the reader: a separate process attaching by name */
			struct pfr_ring *mine;
			struct stress_thread t = {cfg, NULL, sh};

			if (pfr_ring_attach_shm(&mine, name)) {
				sh->reader_err = PFR_E_SYSTEM;
				_exit(1);
			}
			t.ring = mine;
			stress_reader_thread(&t);
			pfr_ring_close(mine);
			_exit(0);
		}
		if (pid < 0) {
			perror("perfring stress: fork");
			return 1;
		}
		stress_pin(0);
		stress_write(cfg, ring, sh);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			sh->reader_err =
				sh->reader_err ? sh->reader_err : PFR_E_SYSTEM;
		pfr_ring_unlink(name);
	} else {
		pthread_t th;
		struct stress_thread t = {cfg, ring, sh};

		if (pthread_create(&th, NULL, stress_reader_thread, &t)) {
			fprintf(stderr,
				"perfring stress: pthread_create failed\n");
			return 1;
		}
		stress_pin(0);
		stress_write(cfg, ring, sh);
		pthread_join(th, NULL);
	}
	pfr_ring_close(ring);

	if (cfg->policy == PFR_POLICY_OVERWRITE) {
		/* nothing is lost in a flight recorder, only overwritten:
		 * the last snapshot must end at the last record written */
		lost = 0;
		bad = sh->corrupt || sh->reader_err ||
		      sh->last_seq + 1 != sh->written;
	} else {
		/* LOST records report most drops; a count still pending
		 * when the run ended is in writer_lost but in no record */
		lost = sh->writer_lost;
		bad = sh->corrupt || sh->reader_err ||
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
			(double)(stress_now_ns() - t0) / 1e9,
			(unsigned long long)sh->written,
			(unsigned long long)sh->read, (unsigned long long)lost,
			(unsigned long long)sh->lost_seen,
			(unsigned long long)sh->corrupt,
			(unsigned long long)sh->snapshots);
		pfr_cli_json_str(
			out, sh->reader_err ? pfr_strerror((int)sh->reader_err)
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
		if (sh->reader_err)
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
	       "      --processes      writer and reader in two processes over\n"
	       "                       POSIX shared memory (default: threads)\n"
	       "      --wait           the reader blocks in pfr_reader_wait()\n"
	       "      --seed N         record-size sequence seed\n"
	       "      --json           one JSON object per combination\n"
	       "  -h, --help\n");
}

/* `--mode group|mpsc` selects a many-writer stress (cli/stress_group.c,
 * cli/stress_mpsc.c), which parses its own options. */
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

int pfr_cmd_stress(int argc, char **argv)
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
		{"wait", no_argument, NULL, 'w'},
		{"seed", required_argument, NULL, 'S'},
		{"json", no_argument, NULL, 'j'},
		{"mode", required_argument, NULL, 'M'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
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
				 0x9e3779b9};
	int all_ord = 0, all_pol = 0, c, failed = 0;
	unsigned long long v;
	char *end;

	switch (stress_mode(argc, argv)) {
	case 1:
		return pfr_stress_group(argc, argv);
	case 2:
		return pfr_stress_mpsc(argc, argv);
	case -1:
		return pfr_cli_usage_error("stress",
					   "--mode takes spsc, group or mpsc");
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:o:p:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			cfg.seconds = strtod(optarg, &end);
			if (*end || !(cfg.seconds > 0) || cfg.seconds > 86400)
				return pfr_cli_usage_error(
					"stress",
					"--seconds: '%s' is not a "
					"time in seconds",
					optarg);
			break;
		case 'o':
			if (!strcmp(optarg, "all")) {
				all_ord = 1;
				break;
			}
			cfg.ordering = pfr_ordering_parse(optarg);
			if (cfg.ordering < 0)
				return pfr_cli_usage_error(
					"stress",
					"--ordering: '%s' is not "
					"full, acqrel, ctrldep or all",
					optarg);
			break;
		case 'p':
			if (!strcmp(optarg, "all")) {
				all_pol = 1;
				break;
			}
			cfg.policy = pfr_policy_parse(optarg);
			if (cfg.policy < 0)
				return pfr_cli_usage_error(
					"stress",
					"--policy: '%s' is not drop, "
					"block, overwrite or all",
					optarg);
			break;
		case 'A':
			all_ord = all_pol = 1;
			break;
		case 'z': {
			unsigned a, b;
			char tail;

			if (sscanf(optarg, "%u:%u%c", &a, &b, &tail) != 2 ||
			    a < STRESS_HDR || b < a || b > PFR_RECORD_MAX - 8)
				return pfr_cli_usage_error(
					"stress",
					"--sizes: want MIN:MAX with "
					"16 <= MIN <= MAX <= %u",
					PFR_RECORD_MAX - 8);
			cfg.min_len = a;
			cfg.max_len = b;
			break;
		}
		case 'r':
			if (pfr_cli_parse_u64(optarg, &v) || v < 4096 ||
			    (v & (v - 1)))
				return pfr_cli_usage_error(
					"stress",
					"--ring-size: want a power of "
					"two of at least 4096");
			cfg.ring_size = v;
			break;
		case 'b':
			if (pfr_cli_parse_u64(optarg, &v) || !v || v > 1u << 20)
				return pfr_cli_usage_error(
					"stress", "--batch: want 1..1048576");
			cfg.batch = (uint32_t)v;
			break;
		case 'P':
			cfg.processes = 1;
			break;
		case 'w':
			cfg.wait = 1;
			break;
		case 'S':
			if (pfr_cli_parse_u64(optarg, &v))
				return pfr_cli_usage_error(
					"stress", "--seed: want a number");
			cfg.seed = v;
			break;
		case 'M': /* spsc: this file's stress */
			break;
		case 'j':
			cfg.json = 1;
			break;
		case 'h':
			stress_help();
			return 0;
		default:
			return pfr_cli_usage_error("stress", "bad option");
		}
	}
	if (optind < argc)
		return pfr_cli_usage_error("stress", "unexpected argument '%s'",
					   argv[optind]);
	if ((uint64_t)((cfg.max_len + 8 + 7) & ~7u) > (cfg.ring_size / 2 - 8))
		return pfr_cli_usage_error(
			"stress",
			"records of %u bytes do not fit a ring of "
			"%llu bytes (the largest is half the ring)",
			cfg.max_len, (unsigned long long)cfg.ring_size);
	for (int o = 0; o < PFR_ORDER__COUNT; o++) {
		if (!all_ord && o != cfg.ordering)
			continue;
		for (int p = 0; p < PFR_POLICY__COUNT; p++) {
			struct stress_cfg one = cfg;

			if (!all_pol && p != cfg.policy)
				continue;
			one.ordering = o;
			one.policy = p;
			failed |= stress_one(&one, stdout);
		}
	}
	return failed ? 1 : 0;
}
