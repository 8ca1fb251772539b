/* SPDX-License-Identifier: MIT */
/*
 * Records for what existed before the session started, as perf record
 * synthesizes them: the kernel's map (from kallsyms), and per process a
 * COMM for each thread and an MMAP2 for each executable file mapping and
 * for [vdso] (the kernel announces the vdso only at exec, so a process
 * that was already running would show its samples there as unknown).
 * Everything is read under the session's /proc root, so that a test can
 * point it at a fixture.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "perf/perf_header.h"
#include "perf/perf_session_int.h"

uint32_t pfr__sess_trailer(const struct pfr_perf_session *s, unsigned char *buf,
			   uint32_t pid, uint32_t tid, uint64_t id)
{
	uint64_t st = s->lay.sample_type, z = 0;
	uint32_t n = 0;

	if (st & PERF_SAMPLE_TID) {
		memcpy(buf + n, &pid, 4);
		memcpy(buf + n + 4, &tid, 4);
		n += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		memcpy(buf + n, &z, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		memcpy(buf + n, &id, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		memcpy(buf + n, &z, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		memcpy(buf + n, &z, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		memcpy(buf + n, &id, 8);
		n += 8;
	}
	return n;
}

long pfr__sess_status_field(const struct pfr_perf_session *s, pid_t pid,
			    const char *key)
{
	char p[300], line[256];
	size_t kl = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%d/status", s->proc, (int)pid);
	f = fopen(p, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			v = strtol(line + kl + 1, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

/* Queues body[0..blen) padded to 8 bytes and followed by the sample_id
 * trailer, as the kernel writes such a record.  1 queued, or an error. */
int pfr__sess_synth(struct pfr_perf_session *s, uint32_t type, uint16_t misc,
		    const void *body, uint32_t blen, uint32_t pid, uint32_t tid)
{
	unsigned char buf[PFR_RECORD_MAX];
	struct pfr_record_header h;
	uint32_t n = (blen + 7) & ~7u;
	uint64_t id = s->nev && s->ev[0].nids ? s->ev[0].ids[0] : 0;

	if (n + 64 > sizeof(buf))
		return 0;
	memset(buf, 0, n);
	memcpy(buf, body, blen);
	n += pfr__sess_trailer(s, buf + n, pid, tid, id);
	h.type = type;
	h.misc = misc;
	h.size = (uint16_t)(n + sizeof(h));
	return pfr__sess_push(s, &h, buf, n, 0) ? -PFR_E_SYSTEM : 1;
}

static int synth_kernel(struct pfr_perf_session *s)
{
	static const char kname[] = "[kernel.kallsyms]_text";
	char line[512], name[256], type;
	unsigned long long a, text = 0, etext = 0;
	unsigned char body[32 + sizeof(kname)];
	uint32_t pid = (uint32_t)-1, tid = 0;
	uint64_t v;
	FILE *f;

	snprintf(line, sizeof(line), "%s/kallsyms", s->proc);
	f = fopen(line, "r");
	if (!f)
		return 0;
	/* Only two of ~100k lines matter: test their tail before parsing. */
	while (fgets(line, sizeof(line), f) && !(text && etext)) {
		size_t l = strlen(line);

		if (l < 8 || (strcmp(line + l - 7, " _text\n") &&
			      strcmp(line + l - 8, " _etext\n")))
			continue;
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3) {
			if (!strcmp(name, "_text"))
				text = a;
			else if (!strcmp(name, "_etext"))
				etext = a;
		}
	}
	fclose(f);
	if (!text || etext <= text)
		return 0; /* kptr_restrict hides addresses */
	memset(body, 0, sizeof(body));
	memcpy(body, &pid, 4);
	memcpy(body + 4, &tid, 4);
	v = text;
	memcpy(body + 8, &v, 8);
	v = etext - text;
	memcpy(body + 16, &v, 8);
	v = text;
	memcpy(body + 24, &v, 8);
	memcpy(body + 32, kname, sizeof(kname));
	return pfr__sess_synth(s, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL,
			       body, (uint32_t)sizeof(body), pid, tid);
}

static int synth_comms(struct pfr_perf_session *s, pid_t pid)
{
	char p[300], comm[64] = "";
	struct dirent *de;
	int n = 0, err;
	FILE *f;
	DIR *d;

	snprintf(p, sizeof(p), "%s/%d/comm", s->proc, (int)pid);
	f = fopen(p, "r");
	if (!f)
		return -1; /* gone */
	if (fgets(comm, sizeof(comm), f))
		comm[strcspn(comm, "\n")] = 0;
	fclose(f);
	snprintf(p, sizeof(p), "%s/%d/task", s->proc, (int)pid);
	d = opendir(p);
	while (d && (de = readdir(d))) {
		unsigned char body[8 + 16];
		uint32_t tid, upid = (uint32_t)pid;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		tid = (uint32_t)atoi(de->d_name);
		memset(body, 0, sizeof(body));
		memcpy(body, &upid, 4);
		memcpy(body + 4, &tid, 4);
		snprintf((char *)body + 8, 16, "%s", comm);
		err = pfr__sess_synth(
			s, PERF_RECORD_COMM, 0, body,
			8 + (uint32_t)strlen((char *)body + 8) + 1, upid, tid);
		if (err < 0) {
			closedir(d);
			return err;
		}
		n += err;
	}
	if (d)
		closedir(d);
	return n;
}

/* One line of /proc/PID/maps as an MMAP2 record (0 when it is not one
 * perf would synthesize). */
static int synth_map(struct pfr_perf_session *s, pid_t pid, const char *line)
{
	unsigned long long st, e, off, ino;
	unsigned maj, min;
	char perm[8], path[4096] = "", *q = path;
	unsigned char body[64 + 4096];
	uint32_t upid = (uint32_t)pid, prot, flags = MAP_PRIVATE;
	int data = !!(s->o.flags & PFR_PERF_SESSION_DATA_MAPS);
	uint64_t v;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &st, &e,
		   perm, &off, &maj, &min, &ino, path) < 7 ||
	    strlen(perm) < 3)
		return 0;
	while (*q == ' ')
		q++;
	/* Files, and the vdso (perf shows its symbols and lists its build
	 * id); readable data mappings too when asked for. */
	if ((perm[2] != 'x' && !(data && perm[0] == 'r')) ||
	    (q[0] != '/' && strcmp(q, "[vdso]")))
		return 0;
	if (q[0] != '/')
		maj = min = 0, ino = 0;
	prot = (perm[0] == 'r' ? PROT_READ : 0) |
	       (perm[1] == 'w' ? PROT_WRITE : 0) |
	       (perm[2] == 'x' ? PROT_EXEC : 0);
	memset(body, 0, 64);
	memcpy(body, &upid, 4);
	memcpy(body + 4, &upid, 4);
	v = st;
	memcpy(body + 8, &v, 8);
	v = e - st;
	memcpy(body + 16, &v, 8);
	v = off;
	memcpy(body + 24, &v, 8);
	memcpy(body + 32, &maj, 4);
	memcpy(body + 36, &min, 4);
	v = ino;
	memcpy(body + 40, &v, 8);
	memcpy(body + 56, &prot, 4);
	memcpy(body + 60, &flags, 4);
	snprintf((char *)body + 64, 4096, "%s", q);
	return pfr__sess_synth(
		s, PERF_RECORD_MMAP2,
		PERF_RECORD_MISC_USER |
			(perm[2] == 'x' ? 0 : PERF_RECORD_MISC_MMAP_DATA),
		body, 64 + (uint32_t)strlen(q) + 1, upid, upid);
}

/* COMM for each thread, MMAP2 for each mapping; a process gone: 0. */
static int synth_process(struct pfr_perf_session *s, pid_t pid)
{
	char p[300], line[4352];
	int n = synth_comms(s, pid), err;
	FILE *f;

	if (n < 0)
		return n == -1 ? 0 : n;
	snprintf(p, sizeof(p), "%s/%d/maps", s->proc, (int)pid);
	f = fopen(p, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if ((err = synth_map(s, pid, line)) < 0) {
			fclose(f);
			return err;
		}
		n += err;
	}
	if (f)
		fclose(f);
	return n;
}

static int synth_all(struct pfr_perf_session *s)
{
	DIR *d = opendir(s->proc);
	struct dirent *de;
	int n = 0, err = 0;

	while (d && (de = readdir(d)) && err >= 0)
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9') {
			err = synth_process(s, (pid_t)atoi(de->d_name));
			n += err > 0 ? err : 0;
		}
	if (d)
		closedir(d);
	return err < 0 ? err : n;
}

int pfr_perf_session_synthesize(struct pfr_perf_session *s)
{
	int n, nb = 0, err = 0;

	if (!s)
		return -PFR_E_INVAL;
	/* perf's order: the BPF programs (none with --no-bpf-event), then
	 * the kernel and the tasks; the programs' features go in every
	 * file */
	if (!s->bpf_collected) {
		if (!(s->o.flags & PFR_PERF_SESSION_NO_BPF_EVENT) &&
		    pfr__sess_bpf_collect(s))
			return pfr__sess_fail(s, -PFR_E_SYSTEM,
					      PFR_PERF_STEP_MEMORY, ENOMEM, -1,
					      -1, 0);
		s->bpf_collected = 1;
		if (s->file)
			pfr__file_set_bpf(s->file, s->bpf_info, s->bpf_info_len,
					  s->bpf_nprog, s->bpf_btf,
					  s->bpf_btf_len, s->bpf_nbtf_ids);
		nb = pfr__sess_bpf_synth(s);
		if (nb < 0)
			return nb;
	}
	n = synth_kernel(s);
	if (n < 0)
		return n;
	n += nb;
	if (s->synth_all) {
		err = synth_all(s);
		n += err > 0 ? err : 0;
	}
	for (int i = 0; !s->synth_all && i < s->npids && err >= 0; i++) {
		err = synth_process(s, s->pids[i]);
		n += err > 0 ? err : 0;
	}
	for (int i = 0; !s->synth_all && !s->npids && i < s->ntids && err >= 0;
	     i++) {
		long tgid = pfr__sess_status_field(s, s->tids[i], "Tgid");

		err = synth_process(s, tgid > 0 ? (pid_t)tgid : s->tids[i]);
		n += err > 0 ? err : 0;
	}
	if (err < 0)
		return pfr__sess_fail(s, err, PFR_PERF_STEP_MEMORY, 0, -1, -1,
				      0);
	return n;
}
