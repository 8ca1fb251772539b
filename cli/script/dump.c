/* SPDX-License-Identifier: MIT */
/*
 * `perfring script --header` (the file's header features, in perf
 * script's words) and `-D` (every record in file order, in hex, as perf
 * script -D dumps it).  The header is read again from the file here: it
 * is untrusted, so every feature is checked against its section.
 */
#include <ctype.h>
#include <stddef.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../cli.h"
#include "script.h"

/* perf's feature names, by bit (tools/perf/util/header.h, 6.1). */
static const char *const cli_feat_names[] = {
	"RESERVED",
	"TRACING_DATA",
	"BUILD_ID",
	"HOSTNAME",
	"OSRELEASE",
	"VERSION",
	"ARCH",
	"NRCPUS",
	"CPUDESC",
	"CPUID",
	"TOTAL_MEM",
	"CMDLINE",
	"EVENT_DESC",
	"CPU_TOPOLOGY",
	"NUMA_TOPOLOGY",
	"BRANCH_STACK",
	"PMU_MAPPINGS",
	"GROUP_DESC",
	"AUXTRACE",
	"STAT",
	"CACHE",
	"SAMPLE_TIME",
	"MEM_TOPOLOGY",
	"CLOCKID",
	"DIR_FORMAT",
	"BPF_PROG_INFO",
	"BPF_BTF",
	"COMPRESSED",
	"CPU_PMU_CAPS",
	"CLOCK_DATA",
	"HYBRID_TOPOLOGY",
};
#define PFR_NFEAT ((int)(sizeof(cli_feat_names) / sizeof(*cli_feat_names)))

struct cli_sec {
	const unsigned char *p;
	uint64_t n, off;
};

static int cli_sec_u32(struct cli_sec *s, uint32_t *v)
{
	if (s->n - s->off < 4)
		return -1;
	memcpy(v, s->p + s->off, 4);
	s->off += 4;
	return 0;
}

static int cli_sec_u64(struct cli_sec *s, uint64_t *v)
{
	if (s->n - s->off < 8)
		return -1;
	memcpy(v, s->p + s->off, 8);
	s->off += 8;
	return 0;
}

/* A perf_header_string: u32 length, then NUL-terminated bytes. */
static const char *cli_sec_str(struct cli_sec *s)
{
	uint32_t l;
	const char *r;

	if (cli_sec_u32(s, &l) || !l || l > s->n - s->off ||
	    !memchr(s->p + s->off, 0, l))
		return NULL;
	r = (const char *)s->p + s->off;
	s->off += l;
	return r;
}

static void pfr_put(const char *label, const char *v)
{
	if (!v)
		return;
	printf("# %s : ", label);
	util_text_str(stdout, v);
	putchar('\n');
}

/* Prints feature b from its section s, as perf's print_* do. */
static void cli_print_feat(int b, struct cli_sec *s)
{
	uint32_t a, o, nr;
	uint64_t v, w;

	switch (b) {
	case 3:
		pfr_put("hostname", cli_sec_str(s));
		break;
	case 4:
		pfr_put("os release", cli_sec_str(s));
		break;
	case 5:
		pfr_put("perf version", cli_sec_str(s));
		break;
	case 6:
		pfr_put("arch", cli_sec_str(s));
		break;
	case 8:
		pfr_put("cpudesc", cli_sec_str(s));
		break;
	case 9:
		pfr_put("cpuid", cli_sec_str(s));
		break;
	case 7:
		if (!cli_sec_u32(s, &a) && !cli_sec_u32(s, &o))
			printf("# nrcpus online : %u\n# nrcpus avail : %u\n", o,
			       a);
		break;
	case 10:
		if (!cli_sec_u64(s, &v))
			printf("# total memory : %llu kB\n",
			       (unsigned long long)v);
		break;
	case 11:
		if (cli_sec_u32(s, &nr))
			break;
		printf("# cmdline : ");
		for (uint32_t i = 0; i < nr; i++) {
			const char *c = cli_sec_str(s);

			if (!c)
				break;
			util_text_str(stdout, c);
			putchar(' ');
		}
		putchar('\n');
		break;
	case 13:
	case 14:
	case 20:
	case 22:
	case 30:
		printf("# %s info available, use -I to display\n",
		       cli_feat_names[b]);
		break;
	case 16:
		if (cli_sec_u32(s, &nr))
			break;
		printf("# pmu mappings: ");
		for (uint32_t i = 0; i < nr; i++) {
			const char *c;

			if (cli_sec_u32(s, &a) || !(c = cli_sec_str(s)))
				break;
			printf("%s", i ? ", " : "");
			util_text_str(stdout, c);
			printf(" = %u", a);
		}
		putchar('\n');
		break;
	case 21:
		if (cli_sec_u64(s, &v) || cli_sec_u64(s, &w))
			break;
		printf("# time of first sample : %llu.%06llu\n"
		       "# time of last sample : %llu.%06llu\n"
		       "# sample duration : %10.3f ms\n",
		       (unsigned long long)(v / 1000000000ULL),
		       (unsigned long long)(v % 1000000000ULL / 1000),
		       (unsigned long long)(w / 1000000000ULL),
		       (unsigned long long)(w % 1000000000ULL / 1000),
		       (double)(w - v) / 1e6);
		break;
	default: /* EVENT_DESC, GROUP_DESC and the rest: not printed */
		break;
	}
}

struct cli_bit {
	int bit;
	const char *name;
};

/* Names of set bits, in the table's order, joined by '|' as perf's
 * __p_bits() prints them (bits it does not name are left out). */
static void cli_bits(uint64_t v, const struct cli_bit *t, size_t n)
{
	int first = 1;

	for (size_t i = 0; i < n; i++)
		if (v & (1ULL << t[i].bit)) {
			printf("%s%s", first ? "" : "|", t[i].name);
			first = 0;
		}
}

static const struct cli_bit cli_st_names[] = {
	{0, "IP"},
	{1, "TID"},
	{2, "TIME"},
	{3, "ADDR"},
	{4, "READ"},
	{5, "CALLCHAIN"},
	{6, "ID"},
	{7, "CPU"},
	{8, "PERIOD"},
	{9, "STREAM_ID"},
	{10, "RAW"},
	{11, "BRANCH_STACK"},
	{12, "REGS_USER"},
	{13, "STACK_USER"},
	{16, "IDENTIFIER"},
	{18, "REGS_INTR"},
	{15, "DATA_SRC"},
	{14, "WEIGHT"},
	{19, "PHYS_ADDR"},
	{20, "AUX"},
	{21, "CGROUP"},
	{22, "DATA_PAGE_SIZE"},
	{23, "CODE_PAGE_SIZE"},
	{24, "WEIGHT_STRUCT"},
};
static const struct cli_bit cli_rf_names[] = {
	{0, "TOTAL_TIME_ENABLED"},
	{1, "TOTAL_TIME_RUNNING"},
	{2, "ID"},
	{3, "GROUP"},
	{4, "LOST"},
};
/* The attr's flag bits from disabled (bit 0) on, perf's names. */
static const char *const cli_flag_names[] = {
	"disabled",
	"inherit",
	"pinned",
	"exclusive",
	"exclude_user",
	"exclude_kernel",
	"exclude_hv",
	"exclude_idle",
	"mmap",
	"comm",
	"freq",
	"inherit_stat",
	"enable_on_exec",
	"task",
	"watermark",
	NULL, /* precise_ip: two bits */
	NULL,
	"mmap_data",
	"sample_id_all",
	"exclude_host",
	"exclude_guest",
	"exclude_callchain_kernel",
	"exclude_callchain_user",
	"mmap2",
	"comm_exec",
	"use_clockid",
	"context_switch",
	"write_backward",
	"namespaces",
	"ksymbol",
	"bpf_event",
	"aux_output",
	"cgroup",
	"text_poke",
	"build_id",
	"inherit_thread",
	"remove_on_exec",
	"sigtrap",
};

/* perf_event_attr__fprintf(): every non-zero field, perf's words. */
static void cli_print_attr(const struct perf_event_attr *a)
{
	uint64_t fl;

	printf(", type = %u, size = %u", a->type, a->size);
	if (a->config)
		printf(", config = %#llx", (unsigned long long)a->config);
	if (a->sample_period)
		printf(", { sample_period, sample_freq } = %llu",
		       (unsigned long long)a->sample_period);
	if (a->sample_type) {
		printf(", sample_type = ");
		cli_bits(a->sample_type, cli_st_names,
			 sizeof(cli_st_names) / sizeof(*cli_st_names));
	}
	if (a->read_format) {
		printf(", read_format = ");
		cli_bits(a->read_format, cli_rf_names,
			 sizeof(cli_rf_names) / sizeof(*cli_rf_names));
	}
	memcpy(&fl,
	       (const char *)a + offsetof(struct perf_event_attr, read_format) +
		       8,
	       8);
	for (int b = 0;
	     b < (int)(sizeof(cli_flag_names) / sizeof(*cli_flag_names)); b++) {
		if (b == 15 && a->precise_ip)
			printf(", precise_ip = %u", (unsigned)a->precise_ip);
		if (cli_flag_names[b] && (fl & (1ULL << b)))
			printf(", %s = 1", cli_flag_names[b]);
	}
	if (a->wakeup_events)
		printf(", { wakeup_events, wakeup_watermark } = %u",
		       a->wakeup_events);
	if (a->bp_type)
		printf(", bp_type = %u", a->bp_type);
	if (a->bp_addr)
		printf(", { bp_addr, config1 } = %#llx",
		       (unsigned long long)a->bp_addr);
	if (a->bp_len)
		printf(", { bp_len, config2 } = %#llx",
		       (unsigned long long)a->bp_len);
	if (a->sample_regs_user)
		printf(", sample_regs_user = %#llx",
		       (unsigned long long)a->sample_regs_user);
	if (a->sample_stack_user)
		printf(", sample_stack_user = %u", a->sample_stack_user);
	if (a->clockid)
		printf(", clockid = %d", a->clockid);
	if (a->sample_regs_intr)
		printf(", sample_regs_intr = %#llx",
		       (unsigned long long)a->sample_regs_intr);
	if (a->sample_max_stack)
		printf(", sample_max_stack = %u", a->sample_max_stack);
}

/* "# event : name = ..." for each attr of the file (its attrs section,
 * h[2..4]), named as the file names it. */
static void cli_print_events(struct cli_script *S, int fd, const uint64_t *h,
			     uint64_t fsize)
{
	uint64_t asz = h[2], n;

	if (asz < 64 + 16 || asz > 4096 || h[3] > fsize || h[4] > fsize - h[3])
		return;
	n = h[4] / asz;
	for (uint64_t i = 0; i < n && i < 4096; i++) {
		struct perf_event_attr a;
		uint64_t sec[2], id;
		unsigned char buf[4096];

		if (pread(fd, buf, asz, (off_t)(h[3] + i * asz)) !=
		    (ssize_t)asz)
			return;
		memset(&a, 0, sizeof(a));
		memcpy(&a, buf, asz - 16 < sizeof(a) ? asz - 16 : sizeof(a));
		memcpy(sec, buf + asz - 16, 16);
		printf("# event : name = ");
		util_text_str(stdout,
			      pfr_perf_file_event_name(S->f, (uint32_t)i));
		printf(", ");
		if (sec[1] >= 8 && sec[0] <= fsize &&
		    sec[1] <= fsize - sec[0]) {
			printf(", id = {");
			for (uint64_t k = 0; k < sec[1] / 8 && k < 4096; k++)
				if (pread(fd, &id, 8,
					  (off_t)(sec[0] + 8 * k)) == 8)
					printf("%s %llu", k ? "," : "",
					       (unsigned long long)id);
			printf(" }");
		}
		cli_print_attr(&a);
		putchar('\n');
	}
}

/* Reads (off, len) of fd into a malloc'ed buffer, at most 64 MiB. */
static unsigned char *cli_read_at(int fd, uint64_t off, uint64_t len)
{
	unsigned char *b;

	if (len > (64u << 20))
		return NULL;
	b = malloc(len ? len : 1);
	if (b && pread(fd, b, len, (off_t)off) != (ssize_t)len) {
		free(b);
		return NULL;
	}
	return b;
}

static void cli_header_feats(struct cli_script *S, int fd, const uint64_t *h,
			     uint64_t fsize)
{
	uint64_t idx = h[5] + h[6], nset = 0;
	char missing[1024] = "";

	for (int b = 1; b < 256; b++)
		nset += !!(h[9 + b / 64] & (1ULL << (b % 64)));
	for (int b = 1, k = 0; b < 256; b++) {
		uint64_t sec[2];
		struct cli_sec s;
		unsigned char *buf;

		if (!(h[9 + b / 64] & (1ULL << (b % 64)))) {
			if (b < PFR_NFEAT &&
			    strlen(missing) + 20 < sizeof(missing)) {
				strcat(missing, cli_feat_names[b]);
				strcat(missing, " ");
			}
			continue;
		}
		if (pread(fd, sec, sizeof(sec), (off_t)(idx + 16ULL * k++)) !=
			    (ssize_t)sizeof(sec) ||
		    sec[0] > fsize || sec[1] > fsize - sec[0])
			continue;
		if (b == 12) /* EVENT_DESC: the events, from the attrs */
			cli_print_events(S, fd, h, fsize);
		buf = cli_read_at(fd, sec[0], sec[1]);
		if (!buf)
			continue;
		s = (struct cli_sec){buf, sec[1], 0};
		cli_print_feat(b, &s);
		free(buf);
	}
	(void)nset;
	if (*missing)
		printf("# missing features: %s\n", missing);
}

int cli_script_header(struct cli_script *S)
{
	uint64_t h[13];
	struct stat st;
	char when[64];
	int fd;

	if (!strcmp(S->in, "-"))
		return 0; /* a stream: its features are records */
	fd = util_open_regular(S->in);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) ||
	    pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) || h[1] == 16) {
		close(fd);
		return h[1] == 16 ? 0 : -1;
	}
	ctime_r(&st.st_mtime, when);
	printf("# ========\n# captured on    : %s", when);
	printf("# header version : 1\n# data offset    : %llu\n"
	       "# data size      : %llu\n# feat offset    : %llu\n",
	       (unsigned long long)h[5], (unsigned long long)h[6],
	       (unsigned long long)(h[5] + h[6]));
	cli_header_feats(S, fd, h, (uint64_t)st.st_size);
	printf("# ========\n#\n");
	close(fd);
	return 0;
}

/* perf's trace_event(): the record in hex, 16 bytes a line. */
static void pfr_hex(const unsigned char *p, uint32_t n)
{
	printf(".\n. ... raw event: size %u bytes\n", n);
	for (uint32_t i = 0; i < n; i += 16) {
		uint32_t k, m = n - i < 16 ? n - i : 16;

		printf(".  %04x: ", i);
		for (k = 0; k < 16; k++)
			printf(k < m ? " %02x" : "   ", p[i + (k < m ? k : 0)]);
		printf("  ");
		for (k = 0; k < 16; k++)
			putchar(k < m ? (isprint(p[i + k]) && isascii(p[i + k])
						 ? p[i + k]
						 : '.')
				      : ' ');
		putchar('\n');
	}
	putchar('\n');
}

void cli_script_dump(struct cli_script *S, const struct pfr_record *rec,
		     uint32_t ev)
{
	unsigned char *b = malloc(rec->hdr.size);
	const char *name = pfr_perf_record_name(rec->hdr.type);
	struct pfr_perf_layout lay;
	struct pfr_perf_rec r;

	if (!b)
		return;
	memcpy(b, &rec->hdr, sizeof(rec->hdr));
	memcpy(b + sizeof(rec->hdr), rec->payload, rec->len);
	printf("\n%#llx@%s [%#x]: event: %u\n", (unsigned long long)rec->pos,
	       S->in, rec->hdr.size, rec->hdr.type);
	pfr_hex(b, rec->hdr.size);
	free(b);
	pfr_perf_file_layout(S->f, ev, &lay);
	if (!pfr_perf_decode(&lay, &rec->hdr, rec->payload, rec->len, &r) &&
	    (r.fields & PFR_PERF_F_TIME))
		printf("%llu ", (unsigned long long)r.time);
	else
		printf("0 ");
	printf("%#llx [%#x]: PERF_RECORD_%s", (unsigned long long)rec->pos,
	       rec->hdr.size, name ? name : "UNKNOWN");
	if (rec->hdr.type == PERF_RECORD_SAMPLE &&
	    !pfr_perf_decode(&lay, &rec->hdr, rec->payload, rec->len, &r))
		printf("(IP, 0x%x): %u/%u: %#llx period: %llu addr: %#llx",
		       rec->hdr.misc, r.pid, r.tid, (unsigned long long)r.ip,
		       (unsigned long long)r.period,
		       (unsigned long long)r.addr);
	putchar('\n');
	S->records++;
}
