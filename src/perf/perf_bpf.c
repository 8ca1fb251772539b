/* SPDX-License-Identifier: MIT */
/*
 * The BPF programs loaded when a recording starts, as perf record
 * describes them (perf's util/bpf-event.c): for each program a
 * PERF_RECORD_KSYMBOL per JITed function and a PERF_RECORD_BPF_EVENT
 * (PROG_LOAD), so that samples in BPF code have names, and the
 * BPF_PROG_INFO and BPF_BTF header features (each program's
 * bpf_prog_info with its JITed addresses, lengths and tags; the BTF of
 * those that have one).  Read with the bpf() system call (libc's
 * syscall(), no libbpf): where the kernel refuses (no CAP_BPF or
 * CAP_SYS_ADMIN, or no bpf()), there are no programs to describe and the
 * features say so (count 0), as in perf.
 *
 * Differences from perf: the function name of a program's second and
 * later functions comes from its BTF in perf (libbpf parses it); here,
 * as perf without BTF, it is "F": bpf_prog_<tag>_F.  The stored
 * bpf_prog_info carries the JITed addresses, function lengths and tags,
 * not the instructions, line and function info (their lengths are zeroed,
 * so perf does not look for them).
 */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perf/perf_session_int.h"

/* perf's bpf_prog_info_linear arrays (util/bpf-utils.h), by bit */
#define PFR_BPIL_JITED_KSYMS 3
#define PFR_BPIL_JITED_FUNC_LENS 4
#define PFR_BPIL_PROG_TAGS 8
#define PFR_BPF_MAX_FUNCS 4096

static int pfr_bpf(int cmd, union bpf_attr *a)
{
#ifdef SYS_bpf
	return (int)syscall(SYS_bpf, cmd, a, sizeof(*a));
#else
	(void)cmd, (void)a;
	errno = ENOSYS;
	return -1;
#endif
}

static int pfr_obj_info(int fd, void *info, uint32_t len)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (uint32_t)fd;
	a.info.info_len = len;
	a.info.info = (uint64_t)(uintptr_t)info;
	return pfr_bpf(BPF_OBJ_GET_INFO_BY_FD, &a);
}

static int pfr_put(unsigned char **b, size_t *len, size_t *cap, const void *p,
		   size_t n)
{
	if (*len + n > *cap) {
		size_t c = *cap ? *cap : 4096;
		unsigned char *nb;

		while (c < *len + n)
			c *= 2;
		nb = realloc(*b, c);
		if (!nb)
			return -1;
		*b = nb;
		*cap = c;
	}
	memcpy(*b + *len, p, n);
	*len += n;
	return 0;
}

/*
 * One program's entry of BPF_PROG_INFO (perf's struct perf_bpil: info_len,
 * data_len, arrays, the info with its array pointers as offsets into the
 * data, the data), appended to the session's blob.  0, 1 when the program
 * is gone, or -1 (memory).
 */
static int pfr_bpf_prog(struct pfr_perf_session *s, int fd)
{
	struct bpf_prog_info info;
	uint32_t n, nl, nt, il = (uint32_t)sizeof(info), dl;
	uint64_t arrays = (1ULL << PFR_BPIL_JITED_KSYMS) |
			  (1ULL << PFR_BPIL_JITED_FUNC_LENS) |
			  (1ULL << PFR_BPIL_PROG_TAGS);
	unsigned char *data;
	int err;

	memset(&info, 0, sizeof(info));
	if (pfr_obj_info(fd, &info, il))
		return 1;
	n = info.nr_jited_ksyms;
	nl = info.nr_jited_func_lens;
	nt = info.nr_prog_tags;
	if (n > PFR_BPF_MAX_FUNCS || nl != n || nt > PFR_BPF_MAX_FUNCS)
		n = nl = nt = 0;
	/* the arrays in perf's order, each rounded up to 8 bytes */
	dl = 8 * n + ((4 * n + 7) & ~7u) + 8 * nt;
	data = calloc(1, dl ? dl : 1);
	if (!data)
		return -1;
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = n;
	info.jited_ksyms = (uint64_t)(uintptr_t)data;
	info.nr_jited_func_lens = n;
	info.jited_func_lens = (uint64_t)(uintptr_t)(data + 8 * n);
	info.nr_prog_tags = nt;
	info.prog_tags =
		(uint64_t)(uintptr_t)(data + 8 * n + ((4 * n + 7) & ~7u));
	if (pfr_obj_info(fd, &info, il) || info.nr_jited_ksyms != n ||
	    info.nr_jited_func_lens != n || info.nr_prog_tags != nt) {
		free(data);
		return 1; /* gone, or changed: left out */
	}
	/* what perf would look for without these arrays: none */
	info.jited_prog_len = info.xlated_prog_len = 0;
	info.jited_prog_insns = info.xlated_prog_insns = 0;
	info.nr_map_ids = info.nr_func_info = info.nr_line_info = 0;
	info.nr_jited_line_info = 0;
	info.map_ids = info.func_info = info.line_info = 0;
	info.jited_line_info = 0;
	/* pointers into data become offsets from its start */
	info.jited_ksyms = 0;
	info.jited_func_lens = 8ULL * n;
	info.prog_tags = 8ULL * n + ((4 * n + 7) & ~7u);
	err = pfr_put(&s->bpf_info, &s->bpf_info_len, &s->bpf_info_cap, &il,
		      4) ||
	      pfr_put(&s->bpf_info, &s->bpf_info_len, &s->bpf_info_cap, &dl,
		      4) ||
	      pfr_put(&s->bpf_info, &s->bpf_info_len, &s->bpf_info_cap, &arrays,
		      8) ||
	      pfr_put(&s->bpf_info, &s->bpf_info_len, &s->bpf_info_cap, &info,
		      il) ||
	      pfr_put(&s->bpf_info, &s->bpf_info_len, &s->bpf_info_cap, data,
		      dl);
	free(data);
	if (err)
		return -1;
	s->bpf_nprog++;
	return 0;
}

/* A BTF object's entry of BPF_BTF (id, size, data), once per id. */
static int pfr_bpf_btf(struct pfr_perf_session *s, uint32_t id)
{
	struct bpf_btf_info bi;
	union bpf_attr a;
	unsigned char *data;
	uint32_t sz;
	int fd, err;

	for (uint32_t i = 0; i < s->bpf_nbtf_ids; i++)
		if (s->bpf_btf_ids[i] == id)
			return 0;
	memset(&a, 0, sizeof(a));
	a.btf_id = id;
	fd = pfr_bpf(BPF_BTF_GET_FD_BY_ID, &a);
	if (fd < 0)
		return 0;
	memset(&bi, 0, sizeof(bi));
	if (pfr_obj_info(fd, &bi, sizeof(bi)) || !bi.btf_size ||
	    bi.btf_size > (64u << 20)) {
		close(fd);
		return 0;
	}
	sz = bi.btf_size;
	data = malloc(sz);
	if (!data) {
		close(fd);
		return -1;
	}
	memset(&bi, 0, sizeof(bi));
	bi.btf = (uint64_t)(uintptr_t)data;
	bi.btf_size = sz;
	err = pfr_obj_info(fd, &bi, sizeof(bi));
	close(fd);
	if (err || bi.btf_size != sz) {
		free(data);
		return 0;
	}
	{
		uint32_t *ids = realloc(s->bpf_btf_ids,
					(s->bpf_nbtf_ids + 1) * sizeof(*ids));

		if (!ids) {
			free(data);
			return -1;
		}
		s->bpf_btf_ids = ids;
		ids[s->bpf_nbtf_ids++] = id;
	}
	err = pfr_put(&s->bpf_btf, &s->bpf_btf_len, &s->bpf_btf_cap, &id, 4) ||
	      pfr_put(&s->bpf_btf, &s->bpf_btf_len, &s->bpf_btf_cap, &sz, 4) ||
	      pfr_put(&s->bpf_btf, &s->bpf_btf_len, &s->bpf_btf_cap, data, sz);
	free(data);
	return err ? -1 : 0;
}

int pfr__sess_bpf_collect(struct pfr_perf_session *s)
{
	union bpf_attr a;
	uint32_t id = 0;

	for (;;) {
		struct bpf_prog_info info;
		int fd, r;

		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (pfr_bpf(BPF_PROG_GET_NEXT_ID, &a))
			break; /* ENOENT: the last; EPERM, ENOSYS: none */
		id = a.next_id;
		memset(&a, 0, sizeof(a));
		a.prog_id = id;
		fd = pfr_bpf(BPF_PROG_GET_FD_BY_ID, &a);
		if (fd < 0)
			continue; /* unloaded meanwhile */
		r = pfr_bpf_prog(s, fd);
		memset(&info, 0, sizeof(info));
		if (!r && !pfr_obj_info(fd, &info, sizeof(info)) &&
		    info.btf_id && pfr_bpf_btf(s, info.btf_id) < 0)
			r = -1;
		close(fd);
		if (r < 0)
			return -PFR_E_SYSTEM;
	}
	return 0;
}

/* Hex of a tag, as perf's snprintf_hex(). */
static void pfr_hex(char *out, const unsigned char *tag)
{
	static const char d[] = "0123456789abcdef";

	for (int i = 0; i < 8; i++) {
		out[2 * i] = d[tag[i] >> 4];
		out[2 * i + 1] = d[tag[i] & 15];
	}
	out[16] = 0;
}

int pfr__sess_bpf_synth(struct pfr_perf_session *s)
{
	size_t off = 0;
	int n = 0;

	while (off + 16 + sizeof(struct bpf_prog_info) <= s->bpf_info_len) {
		struct bpf_prog_info info;
		uint32_t il, dl;
		const unsigned char *data;

		memcpy(&il, s->bpf_info + off, 4);
		memcpy(&dl, s->bpf_info + off + 4, 4);
		memcpy(&info, s->bpf_info + off + 16, sizeof(info));
		data = s->bpf_info + off + 16 + il;
		off += 16 + (size_t)il + dl;
		for (uint32_t i = 0; i < info.nr_jited_ksyms; i++) {
			unsigned char body[24 + 128];
			uint64_t addr;
			uint32_t len;
			uint16_t type = PERF_RECORD_KSYMBOL_TYPE_BPF, fl = 0;
			char tag[17];
			int l;

			memcpy(&addr, data + info.jited_ksyms + 8 * i, 8);
			memcpy(&len, data + info.jited_func_lens + 4 * i, 4);
			if (i < info.nr_prog_tags)
				pfr_hex(tag, data + info.prog_tags + 8 * i);
			else
				pfr_hex(tag, info.tag);
			memset(body, 0, sizeof(body));
			memcpy(body, &addr, 8);
			memcpy(body + 8, &len, 4);
			memcpy(body + 12, &type, 2);
			memcpy(body + 14, &fl, 2);
			/* perf's name without BTF: the program's name for a
			 * program of one function, else "F" */
			l = snprintf(
				(char *)body + 16, 128, "bpf_prog_%s%s%.16s",
				tag,
				info.nr_jited_ksyms == 1 && !info.name[0] ? ""
									  : "_",
				info.nr_jited_ksyms == 1 ? info.name : "F");
			if (pfr__sess_synth(s, PERF_RECORD_KSYMBOL, 0, body,
					    (uint32_t)(16 + l + 1), 0, 0) < 0)
				return -PFR_E_SYSTEM;
			n++;
		}
		{
			unsigned char body[16];
			uint16_t type = PERF_BPF_EVENT_PROG_LOAD, fl = 0;

			memcpy(body, &type, 2);
			memcpy(body + 2, &fl, 2);
			memcpy(body + 4, &info.id, 4);
			memcpy(body + 8, info.tag, 8);
			if (pfr__sess_synth(s, PERF_RECORD_BPF_EVENT, 0, body,
					    sizeof(body), 0, 0) < 0)
				return -PFR_E_SYSTEM;
			n++;
		}
	}
	return n;
}
