/* SPDX-License-Identifier: MIT */
/*
 * tools/reader-pace-ab.c - paired A/B of the reader's pacing (docs/ring.md)
 * within one process, for machines too loaded for the bench's absolute
 * figures: a writer thread (CPU 0) publishing every 8-byte record and a
 * reader (CPU 1) that waits with pfr_reader_poll() ("paced"), loops on
 * pfr_reader_begin() ("naive", the loop a user writes first) or on
 * pfr_reader_begin_unpaced() ("unpaced"), the three modes interleaved
 * round after round.  Per mode: the median M records/s, the records per
 * load of head that found records (the pacing's mechanism, far less
 * sensitive to time-sharing than a rate), and the median of the per-round
 * ratios to the paced reader.  Every record is checked.
 *
 * With --latency: a ping-pong over two rings, rounds interleaved between
 * a reader on pfr_reader_begin() and one on pfr_reader_begin_unpaced();
 * p50 and p99 of the one-way time, and the cost of one pause.
 *
 *   cc -O2 -D_GNU_SOURCE -Iinclude -o build/reader-pace-ab \
 *      tools/reader-pace-ab.c build/libperfring.a -lpthread
 *   build/reader-pace-ab [CAPACITY [ROUNDS]]
 *   build/reader-pace-ab --latency
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <perfring/ring.h>

#define MAXR 64

enum { PACED, NAIVE, UNPACED, NMODES };
static const char *const mode_name[NMODES] = {"paced (poll)", "naive (begin)",
					      "unpaced"};

static uint64_t n_rec = 2000000;
static struct pfr_ring *ring, *ring2;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	return v[n / 2];
}

static void *writer(void *p)
{
	struct pfr_writer w;

	(void)p;
	pin(0);
	if (pfr_ring_writer(ring, &w))
		return p;
	for (uint64_t i = 0; i < n_rec; i++)
		while (pfr_writer_write(&w, 1, &i, sizeof(i)))
			pfr_cpu_relax();
	return NULL;
}

struct chk {
	uint64_t got, bad;
};

static int check(void *ctx, const struct pfr_record *rec)
{
	struct chk *c = (struct chk *)ctx;
	uint64_t v;

	memcpy(&v, rec->payload, sizeof(v));
	c->bad += rec->len != 8 || v != c->got;
	c->got++;
	return 0;
}

static int64_t wait_mode(struct pfr_reader *r, int mode)
{
	if (mode == PACED)
		return pfr_reader_poll(r, 64);
	return mode == NAIVE ? pfr_reader_begin(r)
			     : pfr_reader_begin_unpaced(r);
}

/* One round: M records/s into *mps, records per load into *per. */
static int one_round(size_t cap, int mode, double *mps, double *per)
{
	struct pfr_ring_opts o = {.data_size = cap,
				  .policy = PFR_POLICY_BLOCK,
				  .ordering = PFR_ORDER_ACQREL};
	struct pfr_reader r;
	struct chk c = {0, 0};
	uint64_t loads = 0, t0;
	pthread_t th;
	void *wr;

	if (pfr_ring_create(&ring, &o) || pfr_ring_reader(ring, &r))
		return -1;
	t0 = now_ns();
	if (pthread_create(&th, NULL, writer, NULL))
		return -1;
	while (c.got < n_rec) {
		int64_t a = wait_mode(&r, mode), got;

		if (a < 0)
			break;
		if (!a) {
			if (mode != PACED)
				pfr_cpu_relax();
			continue;
		}
		loads++;
		do {
			got = pfr_reader_consume(&r, check, &c, 1024);
			pfr_reader_end(&r);
		} while (got == 1024);
	}
	*mps = (double)n_rec / ((double)(now_ns() - t0) / 1e3);
	*per = loads ? (double)c.got / (double)loads : 0;
	pthread_join(th, &wr);
	pfr_ring_close(ring);
	return c.got == n_rec && !c.bad && !wr ? 0 : -1;
}

static int throughput(size_t cap, int rounds)
{
	static double mps[NMODES][MAXR], per[NMODES][MAXR], q[MAXR];

	pin(1);
	for (int i = 0; i < rounds; i++)
		for (int m = 0; m < NMODES; m++)
			if (one_round(cap, m, &mps[m][i], &per[m][i])) {
				fprintf(stderr, "round failed\n");
				return 1;
			}
	for (int m = NMODES - 1; m >= 0; m--) {
		double qm, rate, per_load;

		for (int i = 0; i < rounds; i++)
			q[i] = mps[m][i] / mps[PACED][i];
		/* each median sorts its array: taken before q's ends */
		qm = median(q, rounds);
		rate = median(mps[m], rounds);
		per_load = median(per[m], rounds);
		printf("capacity %zu, %-14s %7.1f M/s (median of %d), "
		       "%6.1f records per load, paired ratio to paced %.2fx "
		       "[%.2f-%.2f]\n",
		       cap, mode_name[m], rate, rounds, per_load, qm, q[0],
		       q[rounds - 1]);
	}
	return 0;
}

/* --latency: the server echoes each message; rounds of `per` messages
 * alternate between the two loads of head. */
static const long lat_per = 20000, lat_rounds = 20;

static int64_t lat_begin(struct pfr_reader *r, long i)
{
	return (i / lat_per) & 1 ? pfr_reader_begin_unpaced(r)
				 : pfr_reader_begin(r);
}

static void *server(void *p)
{
	struct pfr_writer w;
	struct pfr_reader r;
	struct pfr_record rec;

	pin(1);
	if (pfr_ring_writer(ring2, &w) || pfr_ring_reader(ring, &r))
		return p;
	for (long i = 0; i < lat_per * lat_rounds; i++) {
		while (lat_begin(&r, i) == 0)
			;
		if (pfr_reader_next(&r, &rec) != 1 ||
		    pfr_writer_write(&w, 1, rec.payload, rec.len))
			return p;
		pfr_reader_end(&r);
	}
	return NULL;
}

static int latency(void)
{
	static double t[2][20000 * 10];
	struct pfr_ring_opts o = {.data_size = 65536,
				  .policy = PFR_POLICY_BLOCK};
	struct pfr_writer w;
	struct pfr_reader r;
	struct pfr_record rec;
	long k[2] = {0, 0};
	uint64_t v = 0, t0;
	pthread_t th;
	void *sr;

	if (pfr_ring_create(&ring, &o) || pfr_ring_create(&ring2, &o) ||
	    pfr_ring_writer(ring, &w) || pfr_ring_reader(ring2, &r) ||
	    pthread_create(&th, NULL, server, &o))
		return 1;
	pin(0);
	for (long i = 0; i < lat_per * lat_rounds; i++, v++) {
		int m = (int)((i / lat_per) & 1);

		t0 = now_ns();
		pfr_writer_write(&w, 1, &v, sizeof(v));
		while (lat_begin(&r, i) == 0)
			;
		if (pfr_reader_next(&r, &rec) != 1)
			return 1;
		pfr_reader_end(&r);
		t[m][k[m]++] = (double)(now_ns() - t0) / 2;
	}
	pthread_join(th, &sr);
	for (int m = 0; m < 2; m++) {
		qsort(t[m], (size_t)k[m], sizeof(double), cmp_d);
		printf("ping-pong, %-22s one-way p50 %.1f ns, p99 %.1f ns "
		       "(%ld round trips)\n",
		       m ? "pfr_reader_begin_unpaced" : "pfr_reader_begin",
		       t[m][k[m] / 2], t[m][k[m] * 99 / 100], k[m]);
	}
	t0 = now_ns();
	for (int i = 0; i < 1000000; i++)
		pfr_cpu_relax();
	printf("one pause %.1f ns: the pacing's bound, 127 pauses, %.0f ns\n",
	       (double)(now_ns() - t0) / 1e6,
	       (double)(now_ns() - t0) / 1e6 * 127);
	return sr ? 1 : 0;
}

int main(int argc, char **argv)
{
	size_t cap = 32768;
	int rounds = 7;

	if (argc > 1 && !strcmp(argv[1], "--latency"))
		return latency();
	if (argc > 1)
		cap = strtoul(argv[1], NULL, 0);
	if (argc > 2)
		rounds = atoi(argv[2]);
	if (rounds < 1 || rounds > MAXR) {
		fprintf(stderr, "usage: reader-pace-ab [CAPACITY [ROUNDS]] | "
				"--latency\n");
		return 2;
	}
	return throughput(cap, rounds);
}
