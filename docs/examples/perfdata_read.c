/* SPDX-License-Identifier: MIT */
/*
 * Prints the samples of a perf.data file with their symbolized call
 * chains, one line per sample and one per frame, as perf script does:
 *   cc perfdata_read.c $(pkg-config --cflags --libs perfring-perfdata)
 *   ./a.out perf.data
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <perfring/perfdata.h>

#define SAMPLE 9 /* PERF_RECORD_SAMPLE */

static void print_frame(const struct pfr_perfdata_frame *fr)
{
	printf("\t%16llx %s", (unsigned long long)fr->addr, fr->sym);
	if (fr->flags & PFR_PERFDATA_FRAME_FOUND)
		printf("+0x%llx", (unsigned long long)fr->symoff);
	printf(fr->dso ? " (%s)\n" : " (inlined)\n", fr->dso);
}

int main(int argc, char **argv)
{
	struct pfr_perfdata_opts o = {.sz = sizeof(o)};
	const struct pfr_perfdata_event *ev;
	struct pfr_perfdata *pd;
	int n, err = pfr_perfdata_open(&pd, argc > 1 ? argv[1] : "perf.data",
				       &o);

	if (err) {
		/* -PFR_E_SYSTEM: errno holds the failed call's cause */
		fprintf(stderr, "%s: %s\n", argc > 1 ? argv[1] : "perf.data",
			err == -PFR_E_SYSTEM ? strerror(errno)
					     : pfr_strerror(err));
		return 1;
	}
	while ((n = pfr_perfdata_next(pd, &ev)) == 1) {
		if (ev->type != SAMPLE)
			continue;
		printf("%s %u/%u %llu.%09llu %s:\n", ev->comm, ev->rec.pid,
		       ev->rec.tid,
		       (unsigned long long)(ev->rec.time / 1000000000),
		       (unsigned long long)(ev->rec.time % 1000000000),
		       ev->name);
		for (uint32_t i = 0; i < ev->nr_frames; i++)
			print_frame(&ev->frames[i]);
		printf("\n");
	}
	if (n < 0)
		fprintf(stderr, "reading: %s\n", pfr_strerror(n));
	pfr_perfdata_close(pd);
	return n < 0;
}
