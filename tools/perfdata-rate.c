/* SPDX-License-Identifier: MIT */
/*
 * The perf.data library's reader rate (tools/script-cpu.sh): every event
 * of FILE through pfr_perfdata_next() with its frames symbolized (and
 * DWARF-unwound when the file has stacks), as a program linking
 * libperfring-perfdata reads it.  Prints one line: samples, frames, the
 * process CPU seconds in all, those until the first sample (the setup:
 * header, features, /proc/kallsyms) and the samples per CPU second after
 * it.
 *   perfdata-rate FILE
 */
#include <stdio.h>
#include <time.h>

#include <perfring/perfdata.h>

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const struct pfr_perfdata_event *ev;
	unsigned long long n = 0, frames = 0;
	struct pfr_perfdata *pd;
	double t0 = cpu_s(), t1 = 0, t2;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: perfdata-rate FILE\n");
		return 2;
	}
	err = pfr_perfdata_open(&pd, argv[1], NULL);
	if (err) {
		fprintf(stderr, "%s: %s\n", argv[1], pfr_strerror(err));
		return 1;
	}
	while ((err = pfr_perfdata_next(pd, &ev)) == 1)
		if (ev->type == 9) { /* PERF_RECORD_SAMPLE */
			if (!n++)
				t1 = cpu_s();
			frames += ev->nr_frames;
		}
	pfr_perfdata_close(pd);
	t2 = cpu_s();
	if (err < 0 || n < 2) {
		fprintf(stderr, "%s: %s, %llu samples\n", argv[1],
			err < 0 ? pfr_strerror(err) : "read", n);
		return 1;
	}
	printf("%llu %llu %.3f %.3f %.0f\n", n, frames, t2 - t0, t1 - t0,
	       (double)(n - 1) / (t2 - t1));
	return 0;
}
