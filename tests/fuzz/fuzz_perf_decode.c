/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for everything in <perfring/perf.h> that reads bytes it
 * does not trust: the record decoder, the ring reader feeding it (over a
 * fake perf mmap page, records straddling the end included), the
 * perf.data reader, and the record printer of perfring script.  Input layout: 16 bytes of parameters (sample_type,
 * read_format bits, sample_id_all, ring tail, mode), then the bytes.
 * Mode 4 drives the printer's process table (threads, each process's
 * shared map lists, exec, fork, exit) with records built from 8-byte
 * operations on a handful of pids, so that forks, maps and execs collide;
 * mode 5 runs `perfring script` itself (cli/script/script.c) on the bytes
 * as a perf.data file, text and JSON, in file and time order.
 * Every buffer is allocated at its exact size so that AddressSanitizer
 * catches a read one byte past it.
 *
 * Build and run: tests/fuzz/t_fuzz_perf.sh (FUZZ_SECONDS=N for longer).
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <perfring/perf.h>

#include "cli.h"
#include "perfdata/out.h"

/* What cmd_script.c needs from cli/main.c (whose main() libFuzzer
 * replaces); util/util.c is linked as it is. */
int util_usage_error(const char *cmd, const char *fmt, ...)
{
	(void)cmd;
	(void)fmt;
	return PFR_EXIT_USAGE;
}

static FILE *devnull;

static void decode_one(const struct pfr_perf_layout *lay, const uint8_t *d,
		       size_t n)
{
	struct pfr_record_header h;
	struct pfr_perf_rec r;
	uint64_t id;
	uint8_t *p;
	uint32_t len;

	if (n < 8)
		return;
	memcpy(&h, d, 8);
	len = (uint32_t)(n - 8 > 65528 ? 65528 : n - 8);
	p = malloc(len ? len : 1);
	if (!p)
		return;
	memcpy(p, d + 8, len);
	if (pfr_perf_decode(lay, &h, p, len, &r) == 0) {
		/* Touch what the decoder handed out. */
		volatile size_t sink = 0;

		if (r.type == 1 || r.type == 10)
			sink += strlen(r.u.mmap.filename);
		if (r.type == 3)
			sink += strlen(r.u.comm.comm);
		if (r.type == 17)
			sink += strlen(r.u.ksymbol.name);
		for (uint64_t i = 0; i < r.nr_callchain; i++)
			sink += (size_t)pfr_perf_u64(r.callchain, i);
		if (r.raw_size)
			sink += ((const uint8_t *)r.raw)[r.raw_size - 1];
		(void)sink;
	}
	pfr_perf_record_id(lay->sample_type, lay->sample_id_all, &h, p, len,
			   &id);
	free(p);
}

static void ring(const struct pfr_perf_layout *lay, const uint8_t *d, size_t n,
		 uint64_t tail)
{
	static unsigned char scratch[PFR_RECORD_MAX + 8];
	enum { SIZE = 512 };
	uint64_t head, t;
	unsigned char *data = malloc(SIZE);
	struct pfr_reader r;
	struct pfr_record rec;

	if (!data)
		return;
	memset(data, 0, SIZE);
	memcpy(data, d, n < SIZE ? n : SIZE);
	t = tail & ~7ULL;
	head = t + ((n < SIZE ? n : SIZE) & ~(size_t)7);
	if (pfr_reader_init(&r, &head, &t, data, SIZE, PFR_ORDER_ACQREL, 0,
			    scratch) == 0 &&
	    pfr_reader_begin(&r) >= 0) {
		while (pfr_reader_next(&r, &rec) == 1) {
			struct pfr_perf_rec pr;

			pfr_perf_decode(lay, &rec.hdr, rec.payload, rec.len,
					&pr);
		}
		pfr_reader_end(&r);
	}
	free(data);
}

/* The printer (perfring script's): a sequence of records, side-band state
 * built from them, every line printed (to /dev/null), text and JSON. */
static void print(const struct pfr_perf_layout *lay, const uint8_t *d, size_t n,
		  int json)
{
	struct pfr__out *o;
	size_t off = 0;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	o = pfr__out_new(devnull, PFR_OUT_NO_SYMS | (json ? PFR_OUT_JSON : 0));
	if (!o)
		return;
	while (n - off >= 8) {
		struct pfr_record_header h;
		uint8_t *p;
		uint32_t len;

		memcpy(&h, d + off, 8);
		if (h.size < 8 || h.size > n - off)
			break;
		len = h.size - 8u;
		p = malloc(len ? len : 1);
		if (!p)
			break;
		memcpy(p, d + off + 8, len);
		pfr__out_record(o, "ev", lay, &h, p, len);
		free(p);
		off += h.size;
	}
	pfr__out_free(o);
}

static void file(const uint8_t *d, size_t n)
{
	char path[64];
	struct pfr_perf_file *f;
	struct pfr_record rec;
	int fd = memfd_create("fuzz", 0);

	if (fd < 0)
		return;
	if (write(fd, d, n) == (ssize_t)n) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (pfr_perf_file_open(&f, path) == 0) {
			while (pfr_perf_file_next(f, &rec) == 1) {
				struct pfr_perf_layout lay;
				struct pfr_perf_rec pr;
				uint32_t ev = pfr_perf_file_event_of(
					f, &rec.hdr, rec.payload, rec.len);

				pfr_perf_file_layout(f, ev, &lay);
				pfr_perf_decode(&lay, &rec.hdr, rec.payload,
						rec.len, &pr);
				(void)pfr_perf_file_event_name(f, ev);
			}
			pfr_perf_file_close(f);
		}
	}
	close(fd);
}

/* One record of type/misc with payload p[0..len) in an exact-size buffer,
 * printed (and tracked) by o. */
static void emit(struct pfr__out *o, const struct pfr_perf_layout *lay,
		 uint32_t type, uint16_t misc, const void *p, size_t len)
{
	struct pfr_record_header h = {type, misc, (uint16_t)(8 + len)};
	uint8_t *b = malloc(len ? len : 1);

	if (!b)
		return;
	memcpy(b, p, len);
	pfr__out_record(o, "ev", lay, &h, b, (uint32_t)len);
	free(b);
}

/* Mode 4: the process table.  Each 8 bytes: op, pid a, pid b, flags, a
 * 16-bit address, a length, a name byte. */
static void procs(const uint8_t *d, size_t n, int json)
{
	struct pfr_perf_layout lay;
	struct pfr__out *o;

	memset(&lay, 0, sizeof(lay));
	lay.sample_type = 0x3; /* IP | TID */
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	o = pfr__out_new(devnull, PFR_OUT_NO_SYMS | (json ? PFR_OUT_JSON : 0));
	if (!o)
		return;
	for (size_t i = 0; i + 8 <= n; i += 8) {
		const uint8_t *q = d + i;
		uint32_t a = q[1] % 16, b = q[2] % 16;
		uint64_t addr = (uint64_t)(q[4] | q[5] << 8) << 12;
		uint8_t rec[128];
		uint32_t u[4];
		size_t l;

		memset(rec, 0, sizeof(rec));
		switch (q[0] % 6) {
		case 0: /* MMAP2 a: addr, len, "/m/NAME" */
		case 5: { /* MMAP a, maybe marked kernel */
			uint64_t v[3] = {addr, ((uint64_t)q[6] + 1) << 12, 0};
			size_t off = q[0] % 6 ? 32 : 64;

			u[0] = u[1] = a;
			memcpy(rec, u, 8);
			memcpy(rec + 8, v, 24);
			l = (size_t)snprintf((char *)rec + off, 16, "/m/%c%u",
					     q[7] | 0x20, q[3] & 7);
			emit(o, &lay,
			     q[0] % 6 ? PERF_RECORD_MMAP : PERF_RECORD_MMAP2,
			     q[3] & 0x80 ? PERF_RECORD_MISC_KERNEL
					 : PERF_RECORD_MISC_USER,
			     rec, (off + l + 8) & ~(size_t)7);
			break;
		}
		case 1: /* FORK a from b */
		case 3: /* EXIT a */
			u[0] = a;
			u[1] = b;
			u[2] = a;
			u[3] = b;
			memcpy(rec, u, 16);
			emit(o, &lay,
			     q[0] % 6 == 1 ? PERF_RECORD_FORK
					   : PERF_RECORD_EXIT,
			     0, rec, 24);
			break;
		case 2: /* COMM a, exec when flags & 1; the name raw bytes */
			u[0] = u[1] = a;
			memcpy(rec, u, 8);
			memcpy(rec + 8, q + 4, 4);
			emit(o, &lay, PERF_RECORD_COMM,
			     q[3] & 1 ? PERF_RECORD_MISC_COMM_EXEC : 0, rec,
			     16);
			break;
		case 4: /* SAMPLE in a at addr */
			addr += q[6];
			u[0] = u[1] = a;
			memcpy(rec, &addr, 8);
			memcpy(rec + 8, u, 8);
			emit(o, &lay, PERF_RECORD_SAMPLE,
			     q[3] & 0x80 ? PERF_RECORD_MISC_KERNEL
					 : PERF_RECORD_MISC_USER,
			     rec, 16);
			break;
		}
	}
	pfr__out_free(o);
}

/* Mode 5: perfring script on the bytes as a file. */
static void script(const uint8_t *d, size_t n, uint8_t flags)
{
	char path[64];
	char *argv[8];
	int argc = 0, fd = memfd_create("fuzz-script", 0);

	static int quiet;

	if (!quiet && freopen("/dev/null", "w", stdout))
		quiet = 1; /* the printed records: not needed */
	if (fd < 0)
		return;
	if (write(fd, d, n) == (ssize_t)n) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		argv[argc++] = (char *)"script";
		argv[argc++] = (char *)"-i";
		argv[argc++] = path;
		argv[argc++] = (char *)"--no-symbols";
		if (flags & 1)
			argv[argc++] = (char *)"--json";
		if (flags & 2)
			argv[argc++] = (char *)"--file-order";
		if (flags & 4)
			argv[argc++] = (char *)"--samples";
		argv[argc] = NULL;
		cli_cmd_script(argc, argv);
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pfr_perf_layout lay;
	uint64_t tail;

	if (size < 16)
		return 0;
	memset(&lay, 0, sizeof(lay));
	memcpy(&lay.sample_type, data, 8);
	lay.sample_type &= (1ULL << 25) - 1;
	lay.read_format = data[8] & 0x1f;
	lay.sample_id_all = data[9] & 1;
	tail = (uint64_t)data[10] * 8 + ((uint64_t)data[11] << 40);
	switch (data[12] & 7) {
	case 0:
		file(data + 16, size - 16);
		break;
	case 1:
		ring(&lay, data + 16, size - 16, tail);
		break;
	case 3:
		print(&lay, data + 16, size - 16, data[13] & 1);
		break;
	case 4:
		procs(data + 16, size - 16, data[13] & 1);
		break;
	case 5:
		script(data + 16, size - 16, data[13]);
		break;
	default:
		decode_one(&lay, data + 16, size - 16);
		break;
	}
	return 0;
}
