/* SPDX-License-Identifier: MIT */
/*
 * tools/mpsc-reserve-bench.c - the shared MPSC ring's reservation
 * measured (docs/mpsc.md): the library's (<perfring/mpsc.h>, since layout
 * 3 lock-free: the producer announces its range in its slot, then one
 * release CAS on prod_pos) against a bare CAS loop on the producer
 * position, on the same record format, ring size and reader, with no
 * announcement, no fairness flag and no dead-producer recovery.  Threads:
 * N producers, one reader; every record is checked (producer, sequence).
 *
 * The bare variant is the floor the library's extra stores are measured
 * against: its reader zeroes what it consumes as the library's does (a
 * zero header = not written yet), but a producer dying between its CAS
 * and its header store would leave a record of unknown size, which the
 * library sizes from the announcement.  It is here only to be measured.
 *
 *   make mpsc-reserve-bench && build/mpsc-reserve-bench [SECONDS] [SIZE]
 *
 * Two more modes:
 *   build/mpsc-reserve-bench count N     one thread writes N 16-byte
 *       records through pfr_mpsc_write() (a reader drained every 64); run
 *       under valgrind --tool=callgrind --toggle-collect=one_write to
 *       count the instructions of one write;
 *   build/mpsc-reserve-bench pair SECONDS REPS   two producer threads
 *       pinned to CPUs 0 and 1, the reader pinned to CPU 1 (it shares a
 *       CPU with producer 1; READER_CPU=0 moves it), BLOCK (nothing
 *       lost): M records read per second and fairness (the slower
 *       producer's records over the faster's), per rep.
 */
#include <pthread.h>
#include <sys/resource.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <perfring/mpsc.h>

#define RING (64 * 1024)
#define MAXP 8

static double secs = 1.0;
static unsigned payload = 16;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct run {
	int variant; /* 0 the library, 1 bare CAS */
	unsigned np;
	volatile int stop;
	uint64_t read, bad, attempts[MAXP], written[MAXP];
	/* the library */
	struct pfr_mpsc *m;
	/* CAS variant: its own ring */
	uint64_t prod __attribute__((aligned(128)));
	uint64_t cons __attribute__((aligned(128)));
	unsigned char *data;
};

struct pctx {
	struct run *r;
	unsigned id;
};

/* ---- CAS variant ---- */

static int cas_write(struct run *r, unsigned id, const void *buf, uint32_t len)
{
	uint64_t size = (len + 8 + 7) & ~7ull, pos, cons;
	unsigned char *p;

	uint64_t claim, room;

	pos = __atomic_load_n(&r->prod, __ATOMIC_RELAXED);
	do {
		/* purpose: A, pairs with the reader's release of cons */
		cons = __atomic_load_n(&r->cons, __ATOMIC_ACQUIRE);
		room = RING - (pos & (RING - 1));
		claim = room < size ? room + size : size; /* PAD first */
		if (pos + claim - cons > RING)
			return -1; /* DROP */
	} while (!__atomic_compare_exchange_n(&r->prod, &pos, pos + claim, 1,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	if (claim != size) {
		/* purpose: the PAD header is final at once; pairs with C2 */
		__atomic_store_n((uint64_t *)(r->data + (pos & (RING - 1))),
				 pfr__mpsc_hdr(2, id, room), __ATOMIC_RELEASE);
		pos += room;
	}
	/* the window: prod covers [pos, pos+size) but its header is 0 */
	p = r->data + (pos & (RING - 1));
	__atomic_store_n((uint64_t *)p, pfr__mpsc_hdr(PFR_MPSC_BUSY, id, size),
			 __ATOMIC_RELAXED);
	memcpy(p + 8, buf, len);
	/* purpose: B (commit), pairs with the reader's acquire of it */
	__atomic_store_n((uint64_t *)p, pfr__mpsc_hdr(1, id, size),
			 __ATOMIC_RELEASE);
	return 0;
}

static void *cas_reader(void *arg)
{
	struct run *r = arg;
	uint64_t tail = 0, next[MAXP] = {0};

	while (!r->stop) {
		/* purpose: C1, pairs with the producers' CAS (relaxed: the
		 * header's own acquire below carries the ordering) */
		uint64_t head = __atomic_load_n(&r->prod, __ATOMIC_ACQUIRE);
		uint64_t start = tail;

		while (tail != head) {
			unsigned char *p = r->data + (tail & (RING - 1));
			/* purpose: C2, pairs with B in cas_write() */
			uint64_t raw = __atomic_load_n((uint64_t *)p,
						       __ATOMIC_ACQUIRE);
			struct pfr_record_header h;
			uint64_t v;

			memcpy(&h, &raw, 8);
			if (raw != 0 && h.type == 2) {
				tail += h.size; /* PAD */
				continue;
			}
			if (raw == 0 || h.type != 1)
				break; /* not written yet, or BUSY */
			memcpy(&v, p + 8, 8);
			if (h.misc >= MAXP || v != next[h.misc]++)
				r->bad++;
			r->read++;
			tail += h.size;
		}
		if (tail != start) {
			/* zero what was consumed, so that 0 means "not written
			 * yet" on the next lap */
			for (uint64_t q = start; q != tail; q += 8)
				__atomic_store_n((uint64_t *)(r->data +
							      (q & (RING - 1))),
						 0, __ATOMIC_RELAXED);
			/* purpose: D, pairs with A in cas_write() */
			__atomic_store_n(&r->cons, tail, __ATOMIC_RELEASE);
		} else {
			sched_yield();
		}
	}
	return NULL;
}

/* ---- the library ---- */

static void *lib_reader(void *arg)
{
	struct run *r = arg;
	struct pfr_mpsc_reader rd;
	struct pfr_record rec;
	uint64_t next[MAXP] = {0};
	unsigned idx[MAXP];

	(void)idx;
	if (pfr_mpsc_reader(r->m, &rd))
		return NULL;
	pfr_mpsc_set_stall(&rd, UINT64_MAX);
	while (!r->stop) {
		int n = 0;

		pfr_mpsc_begin(&rd);
		while (pfr_mpsc_next(&rd, &rec) == 1) {
			uint64_t v, pid;

			if (rec.hdr.type == PFR_RECORD_LOST)
				continue;
			memcpy(&v, rec.payload, 8);
			memcpy(&pid, (const char *)rec.payload + 8, 8);
			if (pid >= MAXP || v != next[pid]++)
				r->bad++;
			r->read++;
			n++;
		}
		pfr_mpsc_end(&rd);
		if (!n)
			sched_yield();
	}
	pfr_mpsc_reader_close(&rd);
	return NULL;
}

static void *producer(void *arg)
{
	struct pctx *x = arg;
	struct run *r = x->r;
	struct pfr_mpsc_producer p;
	uint64_t buf[8] = {0}, n = 0;

	if (r->variant == 0 && pfr_mpsc_join(r->m, &p))
		return NULL;
	buf[1] = x->id;
	while (!r->stop) {
		int err;

		buf[0] = n;
		err = r->variant == 0 ? pfr_mpsc_write(&p, 1, buf, payload)
				      : cas_write(r, x->id, buf, payload);
		r->attempts[x->id]++;
		if (!err)
			r->written[x->id] = ++n;
		else
			sched_yield(); /* full: let the reader run */
	}
	if (r->variant == 0)
		pfr_mpsc_leave(&p);
	return NULL;
}

/* ---- count and pair modes ---- */

static __attribute__((noinline)) int one_write(struct pfr_mpsc_producer *p,
					       const uint64_t *buf)
{
	return pfr_mpsc_write(p, 1, buf, 16);
}

static int count_mode(uint64_t n)
{
	struct pfr_mpsc *m;
	struct pfr_mpsc_opts o;
	struct pfr_mpsc_producer p;
	struct pfr_mpsc_reader rd;
	struct pfr_record rec;
	uint64_t buf[2] = {0, 0}, read = 0;

	memset(&o, 0, sizeof(o));
	o.data_size = RING;
	if (pfr_mpsc_create(&m, &o) || pfr_mpsc_join(m, &p) ||
	    pfr_mpsc_reader(m, &rd))
		return 1;
	for (uint64_t i = 0; i < n; i++) {
		buf[0] = i;
		if (one_write(&p, buf))
			return 1;
		if ((i & 63) == 63) {
			pfr_mpsc_begin(&rd);
			while (pfr_mpsc_next(&rd, &rec) == 1)
				read++;
			pfr_mpsc_end(&rd);
		}
	}
	printf("%llu written, %llu read\n", (unsigned long long)n,
	       (unsigned long long)read);
	return 0;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *pair_producer(void *arg)
{
	struct pctx *x = arg;

	pin((int)x->id);
	return producer(arg);
}

static void *pair_reader(void *arg)
{
	pin(getenv("READER_CPU") ? atoi(getenv("READER_CPU")) : 1);
	return lib_reader(arg);
}

static int pair_mode(int reps)
{
	for (int rep = 0; rep < reps; rep++) {
		static struct run r;
		pthread_t rt, pt[2];
		struct pctx x[2];
		struct pfr_mpsc_opts o;
		uint64_t t0, lo, hi;
		double dt;

		memset(&r, 0, sizeof(r));
		memset(&o, 0, sizeof(o));
		o.data_size = RING;
		o.max_producers = MAXP;
		o.policy = PFR_POLICY_BLOCK; /* nothing lost */
		if (pfr_mpsc_create(&r.m, &o))
			return 1;
		pthread_create(&rt, NULL, pair_reader, &r);
		t0 = now_ns();
		for (unsigned i = 0; i < 2; i++) {
			x[i] = (struct pctx){&r, i};
			pthread_create(&pt[i], NULL, pair_producer, &x[i]);
		}
		while (now_ns() - t0 < (uint64_t)(secs * 1e9)) {
			struct timespec ts = {0, 10000000};

			nanosleep(&ts, NULL);
		}
		r.stop = 1;
		for (unsigned i = 0; i < 2; i++)
			pthread_join(pt[i], NULL);
		pthread_join(rt, NULL);
		dt = (double)(now_ns() - t0) / 1e9;
		lo = r.written[0] < r.written[1] ? r.written[0] : r.written[1];
		hi = r.written[0] < r.written[1] ? r.written[1] : r.written[0];
		printf("rep %d: %.2f M records read/s, fairness %.2f "
		       "(%.2f / %.2f M/s written), attempts %.2f M/s, "
		       "%llu bad\n",
		       rep, (double)r.read / dt / 1e6,
		       hi ? (double)lo / (double)hi : 0.0,
		       (double)r.written[0] / dt / 1e6,
		       (double)r.written[1] / dt / 1e6,
		       (double)(r.attempts[0] + r.attempts[1]) / dt / 1e6,
		       (unsigned long long)r.bad);
		pfr_mpsc_close(r.m);
	}
	return 0;
}

static double cpu_s(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec * 1e-6 +
	       (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec * 1e-6;
}

/* M records read per second of wall time; *per_cpu: per CPU-second of
 * this process (robust to other jobs on the machine). */
static double run_one(int variant, unsigned np, double *per_cpu)
{
	double c0 = cpu_s();
	static struct run r;
	pthread_t rt, pt[MAXP];
	struct pctx x[MAXP];
	struct pfr_mpsc_opts o;
	uint64_t t0;
	double dt;

	memset(&r, 0, sizeof(r));
	r.variant = variant;
	r.np = np;
	memset(&o, 0, sizeof(o));
	o.data_size = RING;
	o.max_producers = MAXP;
	if (variant == 0) {
		if (pfr_mpsc_create(&r.m, &o))
			exit(1);
	} else {
		r.data = calloc(1, RING);
	}
	pthread_create(&rt, NULL, variant ? cas_reader : lib_reader, &r);
	t0 = now_ns();
	for (unsigned i = 0; i < np; i++) {
		x[i] = (struct pctx){&r, i};
		pthread_create(&pt[i], NULL, producer, &x[i]);
	}
	while (now_ns() - t0 < (uint64_t)(secs * 1e9)) {
		struct timespec ts = {0, 10000000};

		nanosleep(&ts, NULL);
	}
	r.stop = 1;
	for (unsigned i = 0; i < np; i++)
		pthread_join(pt[i], NULL);
	pthread_join(rt, NULL);
	dt = (double)(now_ns() - t0) / 1e9;
	if (r.bad)
		fprintf(stderr, "%s: %llu bad records\n",
			variant ? "cas" : "lib", (unsigned long long)r.bad);
	if (variant == 0)
		pfr_mpsc_close(r.m);
	else
		free(r.data);
	*per_cpu = (double)r.read / (cpu_s() - c0) / 1e6;
	return (double)r.read / dt / 1e6;
}

int main(int argc, char **argv)
{
	static const unsigned nps[] = {1, 2, 4, 8};
	double res[2][4][7], cpu[2][4][7];

	if (argc > 2 && strcmp(argv[1], "count") == 0)
		return count_mode(strtoull(argv[2], NULL, 10));
	if (argc > 3 && strcmp(argv[1], "pair") == 0) {
		secs = atof(argv[2]);
		payload = 16;
		return pair_mode(atoi(argv[3]));
	}
	if (argc > 1)
		secs = atof(argv[1]);
	if (argc > 2)
		payload = (unsigned)atoi(argv[2]);
	if (payload < 16 || payload > 56 || (payload & 7)) {
		fprintf(stderr, "payload: 16..56, a multiple of 8\n");
		return 2;
	}
	/* interleaved repetitions: lib, cas, lib, cas, ... */
	for (int rep = 0; rep < 7; rep++)
		for (int k = 0; k < 4; k++)
			for (int v = 0; v < 2; v++)
				res[v][k][rep] =
					run_one(v, nps[k], &cpu[v][k][rep]);
	printf("M records read per second (median of 7, min-max), %u-byte "
	       "payload, 64 KiB ring, DROP;\nwall: per second of wall time; "
	       "cpu: per CPU-second of this process\n",
	       payload);
	printf("producers  lib wall             CAS wall             "
	       "lib cpu   CAS cpu\n");
	for (int k = 0; k < 4; k++) {
		for (int v = 0; v < 2; v++)
			for (int i = 0; i < 7; i++)
				for (int j = i + 1; j < 7; j++) {
					double t;

					if (res[v][k][j] < res[v][k][i]) {
						t = res[v][k][i];
						res[v][k][i] = res[v][k][j];
						res[v][k][j] = t;
					}
					if (cpu[v][k][j] < cpu[v][k][i]) {
						t = cpu[v][k][i];
						cpu[v][k][i] = cpu[v][k][j];
						cpu[v][k][j] = t;
					}
				}
		printf("%9u  %6.2f (%5.2f-%5.2f) %6.2f (%5.2f-%5.2f)  %6.2f  "
		       "%6.2f\n",
		       nps[k], res[0][k][3], res[0][k][0], res[0][k][6],
		       res[1][k][3], res[1][k][0], res[1][k][6], cpu[0][k][3],
		       cpu[1][k][3]);
	}
	return 0;
}
