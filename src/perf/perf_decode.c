/* SPDX-License-Identifier: MIT */
/*
 * Decoding the kernel's perf records (include/uapi/linux/perf_event.h,
 * enum perf_event_type).  Every record comes from memory we do not trust
 * (a ring the kernel shares, or a file): each field is read with memcpy
 * after a bounds check against the record's own length, strings must end
 * inside the record, and nothing is read past [payload, payload + len).
 * The decoder is fuzzed (tests/fuzz/fuzz_perf_decode.c).
 */
#include <linux/perf_event.h>
#include <string.h>

#include <perfring/perf.h>

#include "ring/compiler.h"

/* A cursor over one record's payload. */
struct pfr__cur {
	const unsigned char *p;
	uint32_t off, len;
	int err;
};

static uint64_t pfr__u64(struct pfr__cur *c)
{
	uint64_t v = 0;

	if (c->err || c->len - c->off < 8) {
		c->err = -PFR_PERF_E_TRUNCATED;
		return 0;
	}
	memcpy(&v, c->p + c->off, 8);
	c->off += 8;
	return v;
}

/* Two u32 in one u64 slot (pid/tid, cpu/res, ...). */
static void pfr__u32x2(struct pfr__cur *c, uint32_t *a, uint32_t *b)
{
	uint32_t v[2] = {0, 0};

	if (c->err || c->len - c->off < 8) {
		c->err = -PFR_PERF_E_TRUNCATED;
	} else {
		memcpy(v, c->p + c->off, 8);
		c->off += 8;
	}
	*a = v[0];
	*b = v[1];
}

static void pfr__skip(struct pfr__cur *c, uint64_t n)
{
	if (c->err || n > c->len - c->off) {
		c->err = -PFR_PERF_E_TRUNCATED;
		return;
	}
	c->off += (uint32_t)n;
}

/* A NUL-terminated string starting at the cursor, inside [off, end). */
static const char *pfr__str(struct pfr__cur *c, uint32_t end)
{
	const char *s;

	if (c->err)
		return NULL;
	if (end < c->off || end > c->len ||
	    !memchr(c->p + c->off, 0, end - c->off)) {
		c->err = -PFR_PERF_E_STRING;
		return NULL;
	}
	s = (const char *)c->p + c->off;
	c->off = end;
	return s;
}

/* Bytes of the sample_id trailer that sample_id_all appends to every
 * non-SAMPLE kernel record. */
static uint32_t pfr__id_trailer_size(uint64_t st)
{
	uint32_t n = 0;

	n += (st & PERF_SAMPLE_TID) ? 8 : 0;
	n += (st & PERF_SAMPLE_TIME) ? 8 : 0;
	n += (st & PERF_SAMPLE_ID) ? 8 : 0;
	n += (st & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
	n += (st & PERF_SAMPLE_CPU) ? 8 : 0;
	n += (st & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
	return n;
}

static void pfr__id_trailer(struct pfr__cur *c, uint64_t st,
			    struct pfr_perf_rec *r)
{
	if (st & PERF_SAMPLE_TID) {
		pfr__u32x2(c, &r->pid, &r->tid);
		r->fields |= PFR_PERF_F_TID;
	}
	if (st & PERF_SAMPLE_TIME) {
		r->time = pfr__u64(c);
		r->fields |= PFR_PERF_F_TIME;
	}
	if (st & PERF_SAMPLE_ID) {
		r->id = pfr__u64(c);
		r->fields |= PFR_PERF_F_ID;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		r->stream_id = pfr__u64(c);
		r->fields |= PFR_PERF_F_STREAM;
	}
	if (st & PERF_SAMPLE_CPU) {
		uint32_t res;

		pfr__u32x2(c, &r->cpu, &res);
		r->fields |= PFR_PERF_F_CPU;
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		r->id = pfr__u64(c);
		r->fields |= PFR_PERF_F_ID;
	}
}

/* PERF_SAMPLE_READ: skipped over (its shape depends on read_format). */
static void pfr__skip_read(struct pfr__cur *c, uint64_t rf)
{
	uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	uint64_t hdr = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		       !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);

	if (rf & PERF_FORMAT_GROUP) {
		uint64_t nr = pfr__u64(c);

		if (nr > c->len / 8) {
			c->err = -PFR_PERF_E_TRUNCATED;
			return;
		}
		pfr__skip(c, 8 * (hdr + nr * per));
	} else {
		pfr__skip(c, 8 * (hdr + per));
	}
}

static int pfr__decode_sample(const struct pfr_perf_layout *lay,
			      struct pfr__cur *c, struct pfr_perf_rec *r)
{
	uint64_t st = lay->sample_type;

	if (st & PERF_SAMPLE_IDENTIFIER) {
		r->id = pfr__u64(c);
		r->fields |= PFR_PERF_F_ID;
	}
	if (st & PERF_SAMPLE_IP) {
		r->ip = pfr__u64(c);
		r->fields |= PFR_PERF_F_IP;
	}
	if (st & PERF_SAMPLE_TID) {
		pfr__u32x2(c, &r->pid, &r->tid);
		r->fields |= PFR_PERF_F_TID;
	}
	if (st & PERF_SAMPLE_TIME) {
		r->time = pfr__u64(c);
		r->fields |= PFR_PERF_F_TIME;
	}
	if (st & PERF_SAMPLE_ADDR) {
		r->addr = pfr__u64(c);
		r->fields |= PFR_PERF_F_ADDR;
	}
	if (st & PERF_SAMPLE_ID) {
		r->id = pfr__u64(c);
		r->fields |= PFR_PERF_F_ID;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		r->stream_id = pfr__u64(c);
		r->fields |= PFR_PERF_F_STREAM;
	}
	if (st & PERF_SAMPLE_CPU) {
		uint32_t res;

		pfr__u32x2(c, &r->cpu, &res);
		r->fields |= PFR_PERF_F_CPU;
	}
	if (st & PERF_SAMPLE_PERIOD) {
		r->period = pfr__u64(c);
		r->fields |= PFR_PERF_F_PERIOD;
	}
	if (st & PERF_SAMPLE_READ)
		pfr__skip_read(c, lay->read_format);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = pfr__u64(c);

		/* nr * 8 must fit in what is left (checked without
		 * overflow: nr is compared with a bound first). */
		if (!c->err && nr > (c->len - c->off) / 8)
			c->err = -PFR_PERF_E_TRUNCATED;
		if (!c->err) {
			r->nr_callchain = nr;
			r->callchain = (const uint64_t *)(c->p + c->off);
			c->off += (uint32_t)(nr * 8);
			r->fields |= PFR_PERF_F_CALLCHAIN;
		}
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t sz = 0;

		if (c->err || c->len - c->off < 4) {
			c->err = c->err ? c->err : -PFR_PERF_E_TRUNCATED;
		} else {
			memcpy(&sz, c->p + c->off, 4);
			c->off += 4;
			if (sz > c->len - c->off) {
				c->err = -PFR_PERF_E_TRUNCATED;
			} else {
				r->raw_size = sz;
				r->raw = c->p + c->off;
				c->off += sz;
				r->fields |= PFR_PERF_F_RAW;
			}
		}
	}
	/* Fields after RAW (branch stack, registers, user stack, weight,
	 * ...) are not decoded; the record's size bounds them. */
	return c->err;
}

int pfr_perf_decode(const struct pfr_perf_layout *lay,
		    const struct pfr_record_header *hdr, const void *payload,
		    uint32_t len, struct pfr_perf_rec *r)
{
	struct pfr__cur c = {(const unsigned char *)payload, 0, len, 0};
	uint64_t st;
	uint32_t end = len; /* where the fixed part must end */

	if (!lay || !hdr || !r || (!payload && len))
		return -PFR_E_INVAL;
	st = lay->sample_type;
	memset(r, 0, sizeof(*r));
	r->type = hdr->type;
	r->misc = hdr->misc;
	r->size = hdr->size;
	if (hdr->type == PERF_RECORD_SAMPLE)
		return pfr__decode_sample(lay, &c, r);
	if (hdr->type >= PERF_RECORD_MAX)
		return 0; /* perf's own (>= 64) or newer: skip by size */
	if (lay->sample_id_all) {
		uint32_t t = pfr__id_trailer_size(st);
		struct pfr__cur tc = c;

		if (t > len)
			return -PFR_PERF_E_TRUNCATED;
		end = len - t;
		tc.off = end;
		pfr__id_trailer(&tc, st, r);
		if (tc.err)
			return tc.err;
	}
	c.len = end; /* the fixed part may not reach into the trailer */
	switch (hdr->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		pfr__u32x2(&c, &r->u.mmap.pid, &r->u.mmap.tid);
		r->u.mmap.start = pfr__u64(&c);
		r->u.mmap.len = pfr__u64(&c);
		r->u.mmap.pgoff = pfr__u64(&c);
		if (hdr->type == PERF_RECORD_MMAP2) {
			pfr__skip(&c, 24); /* maj/min/ino/gen or build id */
			pfr__u32x2(&c, &r->u.mmap.prot, &r->u.mmap.flags);
		}
		r->u.mmap.filename = pfr__str(&c, end);
		break;
	case PERF_RECORD_LOST:
		r->u.lost.id = pfr__u64(&c);
		r->u.lost.lost = pfr__u64(&c);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		r->u.lost.lost = pfr__u64(&c);
		break;
	case PERF_RECORD_COMM:
		pfr__u32x2(&c, &r->u.comm.pid, &r->u.comm.tid);
		r->u.comm.comm = pfr__str(&c, end);
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		pfr__u32x2(&c, &r->u.task.pid, &r->u.task.ppid);
		pfr__u32x2(&c, &r->u.task.tid, &r->u.task.ptid);
		r->u.task.time = pfr__u64(&c);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		r->u.throttle.time = pfr__u64(&c);
		r->u.throttle.id = pfr__u64(&c);
		r->u.throttle.stream_id = pfr__u64(&c);
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		pfr__u32x2(&c, &r->u.sw.next_prev_pid, &r->u.sw.next_prev_tid);
		break;
	case PERF_RECORD_KSYMBOL: {
		uint32_t lt[2];

		r->u.ksymbol.addr = pfr__u64(&c);
		pfr__u32x2(&c, &lt[0], &lt[1]);
		r->u.ksymbol.len = lt[0];
		r->u.ksymbol.ksym_type = (uint16_t)lt[1];
		r->u.ksymbol.flags = (uint16_t)(lt[1] >> 16);
		r->u.ksymbol.name = pfr__str(&c, end);
		break;
	}
	default: /* SWITCH (trailer only), AUX, NAMESPACES, ...: by size */
		break;
	}
	return c.err;
}

int pfr_perf_record_id(uint64_t sample_type, uint32_t sample_id_all,
		       const struct pfr_record_header *hdr, const void *payload,
		       uint32_t len, uint64_t *id)
{
	if (!hdr || !payload || !id ||
	    !(sample_type & PERF_SAMPLE_IDENTIFIER) || len < 8)
		return -PFR_E_INVAL;
	if (hdr->type == PERF_RECORD_SAMPLE) {
		memcpy(id, payload, 8);
		return 0;
	}
	if (hdr->type >= PERF_RECORD_MAX || !sample_id_all)
		return -PFR_E_INVAL;
	memcpy(id, (const unsigned char *)payload + len - 8, 8);
	return 0;
}

const char *pfr_perf_record_name(uint32_t type)
{
	static const char *const kernel[] = {
		[PERF_RECORD_MMAP] = "MMAP",
		[PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM",
		[PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK",
		[PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE",
		[PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX",
		[PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
		[PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES",
		[PERF_RECORD_KSYMBOL] = "KSYMBOL",
		[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
		[PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
		[PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	};
	/* perf's own record types (tools/perf/util/event.h), >= 64. */
	static const char *const user[] = {
		"HEADER_ATTR",
		"HEADER_EVENT_TYPE",
		"HEADER_TRACING_DATA",
		"HEADER_BUILD_ID",
		"FINISHED_ROUND",
		"ID_INDEX",
		"AUXTRACE_INFO",
		"AUXTRACE",
		"AUXTRACE_ERROR",
		"THREAD_MAP",
		"CPU_MAP",
		"STAT_CONFIG",
		"STAT",
		"STAT_ROUND",
		"EVENT_UPDATE",
		"TIME_CONV",
		"HEADER_FEATURE",
		"COMPRESSED",
		"FINISHED_INIT",
	};

	if (type < sizeof(kernel) / sizeof(kernel[0]))
		return kernel[type];
	if (type >= 64 && type - 64 < sizeof(user) / sizeof(user[0]))
		return user[type - 64];
	return NULL;
}
