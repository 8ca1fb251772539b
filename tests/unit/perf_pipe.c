/* SPDX-License-Identifier: MIT */
/*
 * perf's pipe format read back, without perf privileges: a stream written
 * by pfr_perf_file_create("-") (standard output sent to a temporary file)
 * is opened with pfr_perf_file_open(): its attrs, ids, names and data
 * records come back, perf's own records are not returned as data.  Then
 * every prefix of the stream, and the stream with a byte corrupted at each
 * offset, opens to an error or reads cleanly to an error or an end,
 * never past the buffer (run under ASan by make asan).
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfring/perf.h>

#include "tap.h"

static const uint64_t ST = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			   PERF_SAMPLE_TID | PERF_SAMPLE_TIME;

static int write_stream(const char *path)
{
	struct pfr_perf_file *f = NULL;
	struct perf_event_attr a;
	uint64_t ids0[2] = {11, 12}, ids1[1] = {21};
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int save = dup(1), err;

	if (fd < 0 || save < 0 || dup2(fd, 1) < 0)
		return -1;
	close(fd);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_type = ST;
	a.sample_id_all = 1;
	err = pfr_perf_file_create(&f, "-");
	if (!err)
		err = pfr_perf_file_add_event(f, &a, "cpu-clock", ids0, 2);
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	if (!err)
		err = pfr_perf_file_add_event(f, &a, "my-task-clock", ids1, 1);
	for (uint64_t i = 0; !err && i < 4; i++) {
		/* id, ip, pid/tid, time */
		uint64_t s[4] = {i == 3 ? 21 : 11, 0x1000 + i, (7ULL << 32) | 7,
				 100 + i};
		struct pfr_record_header h = {PERF_RECORD_SAMPLE, 0,
					      8 + sizeof(s)};

		err = pfr_perf_file_write(f, &h, s, sizeof(s));
	}
	if (f && pfr_perf_file_close(f) && !err)
		err = -1;
	fflush(stdout);
	dup2(save, 1);
	close(save);
	return err;
}

/* Opens path, reads every record: the number of records, or an error. */
static int read_all(const char *path, uint64_t *last_ip)
{
	struct pfr_perf_file *f = NULL;
	struct pfr_record rec;
	int n = 0, r, err = pfr_perf_file_open(&f, path);

	if (err)
		return err;
	while ((r = pfr_perf_file_next(f, &rec)) == 1) {
		if (rec.hdr.type >= 64 || rec.len + 8 != rec.hdr.size) {
			pfr_perf_file_close(f);
			return -1000;
		}
		if (last_ip && rec.len >= 8)
			memcpy(last_ip, rec.payload, 8);
		n++;
	}
	pfr_perf_file_close(f);
	return r < 0 ? r : n;
}

static void check_stream(const char *path)
{
	struct pfr_perf_file *f = NULL;
	const struct perf_event_attr *a;
	struct pfr_record rec;
	uint64_t ip = 0;
	int r;

	is_int(pfr_perf_file_open(&f, path), 0, "the pipe stream opens");
	if (!f)
		return;
	is_uint(pfr_perf_file_nr_events(f), 2, "two attrs from HEADER_ATTR");
	a = pfr_perf_file_attr(f, 1);
	ok(a && a->config == PERF_COUNT_SW_TASK_CLOCK && a->sample_type == ST,
	   "the second attr as written");
	ok(!strcmp(pfr_perf_file_event_name(f, 0), "cpu-clock") &&
		   !strcmp(pfr_perf_file_event_name(f, 1), "my-task-clock"),
	   "names from EVENT_UPDATE (%s, %s)", pfr_perf_file_event_name(f, 0),
	   pfr_perf_file_event_name(f, 1));
	r = 0;
	for (int i = 0; pfr_perf_file_next(f, &rec) == 1; i++) {
		uint32_t ev = pfr_perf_file_event_of(f, &rec.hdr, rec.payload,
						     rec.len);

		memcpy(&ip, (const unsigned char *)rec.payload + 8, 8);
		if (rec.hdr.type == PERF_RECORD_SAMPLE && ip == 0x1000u + i &&
		    ev == (i == 3 ? 1u : 0u))
			r++;
		else
			tap_diag("record %d: type %u ip %#llx event %u", i,
				 rec.hdr.type, (unsigned long long)ip, ev);
	}
	is_int(r, 4, "four samples, in order, each to its event by id");
	pfr_perf_file_close(f);
	is_int(read_all(path, &ip), 4, "read_all agrees");
}

static int load(const char *path, unsigned char **m, size_t *len)
{
	FILE *in = fopen(path, "rb");
	long l;

	if (!in)
		return -1;
	fseek(in, 0, SEEK_END);
	l = ftell(in);
	rewind(in);
	*m = malloc((size_t)l + 1);
	*len = *m ? fread(*m, 1, (size_t)l, in) : 0;
	fclose(in);
	return *m && *len == (size_t)l ? 0 : -1;
}

static int store(const char *path, const unsigned char *m, size_t len)
{
	FILE *o = fopen(path, "wb");
	int bad;

	if (!o)
		return -1;
	bad = fwrite(m, 1, len, o) != len;
	return fclose(o) || bad ? -1 : 0;
}

/* Every prefix, then every byte flipped: an error or a clean read. */
static void check_damage(const char *path, const char *tmp)
{
	unsigned char *m = NULL;
	size_t len = 0, bad = 0, full = 0;

	ok(!load(path, &m, &len) && len > 16, "stream loaded");
	for (size_t l = 0; m && l <= len; l++) {
		int r;

		if (store(tmp, m, l))
			break;
		r = read_all(tmp, NULL);
		if (r == -1000 || r > 4)
			bad++;
		full += r == 4;
	}
	ok(!bad, "every prefix: an error or a clean shorter read (%zu bad)",
	   bad);
	ok(full == 1,
	   "only the prefix ending at the last sample reads all four "
	   "(%zu did)",
	   full);
	bad = 0;
	for (size_t i = 0; m && i < len; i++) {
		int r;

		m[i] ^= 0xa5;
		if (store(tmp, m, len))
			break;
		r = read_all(tmp, NULL);
		m[i] ^= 0xa5;
		if (r == -1000)
			bad++;
	}
	ok(!bad, "every corrupted byte: no perf record returned as data");
	free(m);
}

int main(void)
{
	char path[] = "/tmp/pfr-pipe-XXXXXX", tmp[] = "/tmp/pfr-pipe2-XXXXXX";
	int fd = mkstemp(path), fd2 = mkstemp(tmp);

	if (fd < 0 || fd2 < 0)
		tap_skip_all("no temporary file");
	close(fd);
	close(fd2);
	is_int(write_stream(path), 0, "pipe stream written to a file");
	check_stream(path);
	check_damage(path, tmp);
	unlink(path);
	unlink(tmp);
	return tap_done();
}
