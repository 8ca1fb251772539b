/* SPDX-License-Identifier: MIT */
/*
 * The session's state (<perfring/session.h>), shared by perf_session.c
 * (events, rings, the loop), perf_session_run.c (draining, delivery, the
 * end) and perf_synth.c (records for what exists already).
 */
#ifndef PFR_PERF_SESSION_INT_H
#define PFR_PERF_SESSION_INT_H

#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>

#include <perfring/merge.h>
#include <perfring/perf.h>

struct pfr__sess_ev {
	struct perf_event_attr attr;
	char name[160];
	uint32_t leader, nr_members;
	int cgroup_fd; /* > 0, or 0: none */
	int tracking; /* overwrite mode: the side-band dummy, ordinary rings */
	char *filter;
	uint64_t *ids;
	int32_t *id_cpu, *id_tid; /* per id: its CPU and thread (ID_INDEX) */
	uint32_t nids, cap;
};

struct pfr_perf_session {
	struct pfr_perf_session_opts o;
	char proc[256]; /* the /proc root */
	struct pfr__sess_ev *ev;
	uint32_t nev, cap_ev;
	int *cpus, ncpu;
	pid_t *targets;
	int ntargets;
	/* what synthesis covers */
	pid_t *pids, *tids;
	int npids, ntids;
	int synth_all; /* CPU-wide or user targets: every process */
	int by_process; /* targets listed from /proc: a thread may be gone */
	struct pfr_perf_ring *rings;
	int nrings, cap_rings;
	int *fds;
	uint32_t *fd_ev; /* per fd: its event */
	int nfds, cap_fds;
	struct pollfd *pfd;
	int npoll; /* the rings polled: those opened (pfd[npoll]: requests) */
	int live; /* rings still polled */
	int opened, finished;
	int has_tracking; /* an event with PFR_PERF_EVENT_TRACKING */
	pid_t child;
	int go_fd, err_fd;
	int cmd_only; /* the command is the only target */
	int read_lost; /* the kernel takes PERF_FORMAT_LOST */
	int req_fd[2]; /* the request pipe: written by _request() */
	volatile sig_atomic_t req_stop, req_snap, req_child, req_switch;
	volatile sig_atomic_t req_lost; /* wake-ups a full pipe held back */
	struct pfr_perf_layout lay;
	struct pfr_perf_file *file;
	int file_argc; /* the command line of the file (not a copy) */
	char *const *file_argv;
	int init_done; /* FINISHED_INIT written */
	uint64_t round_delivered; /* delivered when the last round ended */
	int delayed; /* events wait for delay_ms */
	int64_t enable_at_ms; /* CLOCK_MONOTONIC ms when they are enabled */
	int has_ksymbol; /* the kernel takes attr.ksymbol and bpf_event */
	/* the BPF programs loaded at the start (perf_bpf.c): BPF_PROG_INFO's
	 * and BPF_BTF's entries, for every file of the session */
	int bpf_collected;
	unsigned char *bpf_info, *bpf_btf;
	size_t bpf_info_len, bpf_info_cap, bpf_btf_len, bpf_btf_cap;
	uint32_t bpf_nprog, *bpf_btf_ids, bpf_nbtf_ids;
	uint32_t nr_readers; /* reader threads (0: the session's thread) */
	uint32_t *reader_of_cpu, nr_reader_map; /* CPU -> reader */
	struct pfr_merge *merge;
	int emit_err; /* the delivery's error, which stopped a flush */
	/* a 0.2 caller (pfr_perf_session_create@PERFRING_0.2): on_record's
	 * positive values act as 0, as they did then (docs/api.md) */
	int cb_legacy;
	uint64_t prev_max, round_max;
	uint64_t *snap_last; /* overwrite: newest time delivered, per ring */
	struct pfr_perf_session_stats st;
	struct pfr_perf_session_error err;
};

/* Records an error (returns code). */
int pfr__sess_fail(struct pfr_perf_session *s, int code, int step, int sys,
		   int event, int cpu, int pid);
void pfr__sess_log(struct pfr_perf_session *s, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Queues a copy of a record (0, or -PFR_E_SYSTEM). */
int pfr__sess_push(struct pfr_perf_session *s,
		   const struct pfr_record_header *h, const void *payload,
		   uint32_t len, uint64_t time);

/* The sample_id trailer (sample_id_all) of a record of pid/tid and event
 * id, at buf (64 bytes at most); its length. */
uint32_t pfr__sess_trailer(const struct pfr_perf_session *s, unsigned char *buf,
			   uint32_t pid, uint32_t tid, uint64_t id);

/* perf_session_run.c, for the reader threads: one record from a ring
 * into the merge; delivery up to limit (and a FINISHED_ROUND); the
 * requests (child, switch, snapshot) handled; a wait of up to ms for a
 * request. */
int pfr__sess_take(struct pfr_perf_session *s, const struct pfr_record *rec);
int pfr__sess_flush_to(struct pfr_perf_session *s, uint64_t limit);
int pfr__sess_requests(struct pfr_perf_session *s);
void pfr__sess_wait(struct pfr_perf_session *s, int ms);
/* perf_session_threads.c: pfr_perf_session_run()'s loop with readers. */
int pfr__sess_run_threads(struct pfr_perf_session *s);

/* CLOCK_MONOTONIC in ms; the events -D held back, enabled. */
int64_t pfr__sess_now_ms(void);
void pfr__sess_enable_delayed(struct pfr_perf_session *s);

/* A synthesized record of type (body padded to 8 bytes, then the
 * trailer of pid/tid): 1, 0 when too large, or -PFR_E_SYSTEM
 * (perf_synth.c). */
int pfr__sess_synth(struct pfr_perf_session *s, uint32_t type, uint16_t misc,
		    const void *body, uint32_t blen, uint32_t pid,
		    uint32_t tid);
/* perf_bpf.c: the loaded BPF programs into the session's BPF_PROG_INFO
 * and BPF_BTF entries (0, or -PFR_E_SYSTEM); their KSYMBOL and BPF_EVENT
 * records (how many, or -PFR_E_SYSTEM). */
int pfr__sess_bpf_collect(struct pfr_perf_session *s);
int pfr__sess_bpf_synth(struct pfr_perf_session *s);

/* Reads "Key: N" from <proc>/pid/status; -1 when absent. */
long pfr__sess_status_field(const struct pfr_perf_session *s, pid_t pid,
			    const char *key);

#endif /* PFR_PERF_SESSION_INT_H */
