/* SPDX-License-Identifier: MIT */
/*
 * The NULL rule of <perfring/perf.h>, as <perfring/ring.h> states it for
 * the whole library: every out-of-line function checks its pointers, a
 * NULL it does not allow is -PFR_E_INVAL (or the function's neutral
 * result: 0, NULL, "?", nothing), and pfr_perf_file_close(NULL) and
 * pfr_perf_ring_unmap(NULL) are no-ops.  Each call runs in a forked child,
 * so a crash is one failed check, not the end of the test.  Also: a file
 * opened for reading refuses writes, one opened for writing refuses
 * pfr_perf_file_next().
 */
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/perf.h>

#include "tap.h"

static char wpath[64], rpath[64];
static struct pfr_perf_file *wf, *rf; /* opened for writing, reading */
static struct perf_event_attr attr;
static const struct pfr_record_header hdr = {PERF_RECORD_SAMPLE, 0, 16};
static const uint64_t payload = 0x1234;

/* Runs fn in a child: passes when it returns 1 and the child neither
 * crashes nor hangs. */
static void check(const char *name, int (*fn)(void))
{
	pid_t pid = fork();
	int st = 0;

	if (pid == 0) {
		alarm(30);
		_exit(fn() ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid) {
		ok(0, "%s: fork", name);
		return;
	}
	if (!ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", name)) {
		if (WIFSIGNALED(st))
			tap_diag("  killed by signal %d", WTERMSIG(st));
		else
			tap_diag("  wrong result");
	}
}

#define INVAL(e) ((e) == -PFR_E_INVAL)

static int t_strerror(void)
{
	return pfr_perf_strerror(-PFR_E_INVAL) != NULL;
}

static int t_event_parse(void)
{
	char name[64];

	return INVAL(pfr_perf_event_parse(NULL, &attr, name, sizeof(name),
					  0)) &&
	       INVAL(pfr_perf_event_parse("cpu-clock", NULL, name, sizeof(name),
					  0)) &&
	       !pfr_perf_event_parse("cpu-clock", &attr, NULL, 0, 0);
}

static int t_event_list_parse(void)
{
	struct perf_event_attr a[2];
	struct pfr_perf_evinfo info[2];
	uint32_t nr = 0;

	return pfr_perf_event_list_parse(NULL, a, info, 2, &nr, 0) < 0 &&
	       INVAL(pfr_perf_event_list_parse("cpu-clock", NULL, info, 2, &nr,
					       0)) &&
	       INVAL(pfr_perf_event_list_parse("cpu-clock", a, NULL, 2, &nr,
					       0)) &&
	       INVAL(pfr_perf_event_list_parse("cpu-clock", a, info, 2, NULL,
					       0)) &&
	       pfr_perf_event_list_parse("cpu-clock", NULL, NULL, 0, &nr, 0) ==
		       -PFR_PERF_E_TOO_MANY &&
	       nr == 0;
}

static int t_event_list_past_max(void)
{
	struct perf_event_attr a[2];
	struct pfr_perf_evinfo info[2];
	uint32_t nr = 5; /* already past max: nothing may be written */

	return pfr_perf_event_list_parse("cpu-clock", a, info, 2, &nr, 0) ==
		       -PFR_PERF_E_TOO_MANY &&
	       nr == 5;
}

static int t_cpu_list(void)
{
	int cpus[4];

	return INVAL(pfr_perf_cpu_list(NULL, cpus, 4)) &&
	       INVAL(pfr_perf_cpu_list("0-1", NULL, 4)) &&
	       pfr_perf_cpu_list("0-1", NULL, 0) == -PFR_PERF_E_TOO_MANY;
}

static int t_online_cpus(void)
{
	return INVAL(pfr_perf_online_cpus(NULL, 4));
}

static int t_perf_open(void)
{
	/* the kernel's answer for a NULL attr, as -errno */
	return pfr_perf_open(NULL, 0, -1, -1, 0) < 0;
}

static int t_ring(void)
{
	struct pfr_perf_ring ring;

	memset(&ring, 0, sizeof(ring));
	pfr_perf_ring_unmap(NULL);
	return INVAL(pfr_perf_ring_map(NULL, -1, -1, 1, 0)) &&
	       INVAL(pfr_perf_ring_snapshot(NULL, NULL, NULL)) &&
	       INVAL(pfr_perf_ring_snapshot(&ring, NULL, NULL));
}

static int t_decode(void)
{
	struct pfr_perf_layout lay = {0, 0, 0, 0};
	struct pfr_perf_rec r;
	uint64_t id;

	return INVAL(pfr_perf_decode(NULL, &hdr, &payload, 8, &r)) &&
	       INVAL(pfr_perf_decode(&lay, NULL, &payload, 8, &r)) &&
	       INVAL(pfr_perf_decode(&lay, &hdr, NULL, 8, &r)) &&
	       INVAL(pfr_perf_decode(&lay, &hdr, &payload, 8, NULL)) &&
	       INVAL(pfr_perf_record_id(PERF_SAMPLE_IDENTIFIER, 0, NULL,
					&payload, 8, &id)) &&
	       INVAL(pfr_perf_record_id(PERF_SAMPLE_IDENTIFIER, 0, &hdr, NULL,
					8, &id)) &&
	       INVAL(pfr_perf_record_id(PERF_SAMPLE_IDENTIFIER, 0, &hdr,
					&payload, 8, NULL));
}

static int t_attr_name(void)
{
	char buf[16] = "x";

	pfr_perf_attr_name(NULL, buf, sizeof(buf));
	pfr_perf_attr_name(&attr, NULL, 16);
	return buf[0] == 0;
}

static int t_file_create(void)
{
	struct pfr_perf_file *f = NULL;

	return INVAL(pfr_perf_file_create(NULL, wpath)) &&
	       INVAL(pfr_perf_file_create(&f, NULL)) && !f;
}

static int t_file_open(void)
{
	struct pfr_perf_file *f = NULL;

	return INVAL(pfr_perf_file_open(NULL, rpath)) &&
	       INVAL(pfr_perf_file_open(&f, NULL)) && !f;
}

static int t_file_add_event(void)
{
	uint64_t id = 1;

	return INVAL(pfr_perf_file_add_event(NULL, &attr, "a", &id, 1)) &&
	       INVAL(pfr_perf_file_add_event(wf, NULL, "a", &id, 1)) &&
	       INVAL(pfr_perf_file_add_event(wf, &attr, "a", NULL, 1)) &&
	       !pfr_perf_file_add_event(wf, &attr, NULL, NULL, 0) &&
	       INVAL(pfr_perf_file_add_event(rf, &attr, "a", &id, 1));
}

static int t_file_add_group(void)
{
	return !pfr_perf_file_add_event(wf, &attr, "a", NULL, 0) &&
	       INVAL(pfr_perf_file_add_group(NULL, "g", 0, 1)) &&
	       !pfr_perf_file_add_group(wf, NULL, 0, 1) &&
	       INVAL(pfr_perf_file_add_group(rf, "g", 0, 1));
}

static int t_file_set_cmdline(void)
{
	char *argv[] = {"a", NULL};

	return INVAL(pfr_perf_file_set_cmdline(NULL, 1, argv)) &&
	       INVAL(pfr_perf_file_set_cmdline(wf, 1, NULL)) &&
	       INVAL(pfr_perf_file_set_cmdline(wf, 2, argv)) &&
	       INVAL(pfr_perf_file_set_cmdline(wf, -1, argv)) &&
	       !pfr_perf_file_set_cmdline(wf, 0, NULL) &&
	       !pfr_perf_file_set_cmdline(wf, 1, argv);
}

static int t_file_write(void)
{
	return INVAL(pfr_perf_file_write(NULL, &hdr, &payload, 8)) &&
	       INVAL(pfr_perf_file_write(wf, NULL, &payload, 8)) &&
	       INVAL(pfr_perf_file_write(wf, &hdr, NULL, 8)) &&
	       INVAL(pfr_perf_file_write(rf, &hdr, &payload, 8)) &&
	       !pfr_perf_file_write(wf, &hdr, &payload, 8);
}

static int t_file_close(void)
{
	return pfr_perf_file_close(NULL) == 0;
}

static int t_file_accessors(void)
{
	struct pfr_perf_layout lay;

	memset(&lay, 0xff, sizeof(lay));
	pfr_perf_file_layout(NULL, 0, &lay);
	pfr_perf_file_layout(rf, 0, NULL);
	return pfr_perf_file_nr_events(NULL) == 0 &&
	       pfr_perf_file_attr(NULL, 0) == NULL &&
	       !strcmp(pfr_perf_file_event_name(NULL, 0), "?") &&
	       lay.sample_type == 0 && lay.read_format == 0 &&
	       pfr_perf_file_event_of(NULL, &hdr, &payload, 8) == 0 &&
	       pfr_perf_file_event_of(rf, NULL, NULL, 0) == 0;
}

static int t_file_next(void)
{
	struct pfr_record rec;

	return INVAL(pfr_perf_file_next(NULL, &rec)) &&
	       INVAL(pfr_perf_file_next(rf, NULL)) &&
	       INVAL(pfr_perf_file_next(wf, &rec)) &&
	       pfr_perf_file_next(rf, &rec) == 1;
}

int main(void)
{
	uint64_t id = 1;
	int fd;

	snprintf(wpath, sizeof(wpath), "/tmp/pfr-null-w-XXXXXX");
	snprintf(rpath, sizeof(rpath), "/tmp/pfr-null-r-XXXXXX");
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_type = PERF_SAMPLE_IP;
	/* one file to read back (a sample), one left open for writing */
	if ((fd = mkstemp(rpath)) < 0 || close(fd) ||
	    pfr_perf_file_create(&wf, rpath) ||
	    pfr_perf_file_add_event(wf, &attr, "cpu-clock", &id, 1) ||
	    pfr_perf_file_write(wf, &hdr, &payload, 8) ||
	    pfr_perf_file_close(wf) || pfr_perf_file_open(&rf, rpath) ||
	    (fd = mkstemp(wpath)) < 0 || close(fd) ||
	    pfr_perf_file_create(&wf, wpath)) {
		ok(0, "set up a file to read and one to write");
		return tap_done();
	}
	check("pfr_perf_strerror", t_strerror);
	check("pfr_perf_event_parse", t_event_parse);
	check("pfr_perf_event_list_parse", t_event_list_parse);
	check("pfr_perf_event_list_parse never writes past max",
	      t_event_list_past_max);
	check("pfr_perf_cpu_list", t_cpu_list);
	check("pfr_perf_online_cpus", t_online_cpus);
	check("pfr_perf_open", t_perf_open);
	check("pfr_perf_ring_map, _unmap, _snapshot", t_ring);
	check("pfr_perf_decode, pfr_perf_record_id", t_decode);
	check("pfr_perf_attr_name", t_attr_name);
	check("pfr_perf_file_create", t_file_create);
	check("pfr_perf_file_open", t_file_open);
	check("pfr_perf_file_add_event", t_file_add_event);
	check("pfr_perf_file_add_group", t_file_add_group);
	check("pfr_perf_file_set_cmdline", t_file_set_cmdline);
	check("pfr_perf_file_write", t_file_write);
	check("pfr_perf_file_close(NULL)", t_file_close);
	check("pfr_perf_file_nr_events, _attr, _event_name, _layout, "
	      "_event_of",
	      t_file_accessors);
	check("pfr_perf_file_next", t_file_next);
	ok(pfr_perf_file_close(rf) == 0, "close the file read");
	/* the children wrote to wf's stream buffer, not the parent's */
	ok(pfr_perf_file_close(wf) == 0, "close the file written");
	unlink(wpath);
	unlink(rpath);
	return tap_done();
}
