// SPDX-License-Identifier: MIT
/*
 * The writer at hostile positions (issue 34, item 1).  A peer may put
 * head and tail (or oldest) anywhere: just below 2^64, past 2^63, one lap
 * before the wrap.  No writer path - write, write_deferred + publish,
 * reserve + commit, write_burst - of any ring (head-polled, PFR_RING_WAIT,
 * PFR_RING_INBAND; DROP, BLOCK, OVERWRITE; every ordering) may then store
 * outside its data area, and what it writes must read back intact and in
 * order, every failed write reported in a LOST record.
 *
 * The data area sits between PROT_NONE guard pages and every case runs in
 * a child: a store out of bounds kills it with SIGSEGV, without ASan too.
 * Before the fix, the in-band writer opened at head = tail = 2^64 - 32
 * copied its first payload past the end of the data area (its fast path's
 * limit was head itself, and head + size wrapped below it), and a burst of
 * either kind at 2^64 - 3 laps passed head + n * size <= limit by the same
 * wrap and copied n records in one stretch past the end.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "ring_common.h"
#include "writers/group_int.h"

#define DS 4096u
#define ROUNDS 6

enum path { P_WRITE, P_DEFERRED, P_RESERVE, P_BURST, P__N };
static const char *const path_name[P__N] = {"write", "write_deferred",
					    "reserve/commit", "write_burst"};

struct kind {
	uint32_t flags;
	enum pfr_policy pol;
	enum pfr_ordering ord;
};

/* What a case found wrong (exit status of its child). */
enum {
	CASE_OK,
	CASE_OPEN,
	CASE_BEGIN,
	CASE_RECORD,
	CASE_COUNT,
	CASE_WINDOW,
	CASE_SNAP,
};

struct wcase {
	struct pfr_ring_ctl *c;
	unsigned char *data, *scratch, *buf;
	struct pfr_writer w;
	struct pfr_reader r;
	uint64_t wseq, rseq, rnd;
	size_t maxlen;
	int reads;
};

static size_t pick_len(struct wcase *k)
{
	/* multiples of 8: the payload read back is the one stamped */
	static const size_t lens[] = {RT_HDR, 24, 40, 104, 1000};
	uint64_t x = rt_rand(&k->rnd) % 6;

	return x < 5 ? lens[x] : k->maxlen;
}

/* One attempt on `path`: returns the records written (0 on a failure,
 * which the writer counts as lost: its seq is used all the same). */
static int attempt(struct wcase *k, enum path p)
{
	size_t len = pick_len(k);
	void *dst;
	int e, n;

	switch (p) {
	case P_WRITE:
		rt_stamp(k->buf, len, k->wseq++);
		return pfr_writer_write(&k->w, 1, k->buf, len) == 0;
	case P_DEFERRED:
		rt_stamp(k->buf, len, k->wseq++);
		e = pfr_writer_write_deferred(&k->w, 1, k->buf, len);
		if (k->wseq % 3 == 0)
			pfr_writer_publish(&k->w);
		return e == 0;
	case P_RESERVE:
		e = pfr_writer_reserve(&k->w, 1, len, &dst);
		if (e) {
			k->wseq++;
			return 0;
		}
		rt_stamp(dst, len, k->wseq++);
		pfr_writer_commit(&k->w);
		return 1;
	case P_BURST:
	default:
		n = 1 + (int)(rt_rand(&k->rnd) % 7);
		if ((size_t)n * len > 8 * DS)
			n = 1;
		for (int i = 0; i < n; i++)
			rt_stamp(k->buf + (size_t)i * len, len,
				 k->wseq + (uint64_t)i);
		e = pfr_writer_write_burst(&k->w, 1, k->buf, len, (unsigned)n);
		/* the first record that did not fit is counted lost, the
		 * ones after it were never tried (stamped again next time) */
		k->wseq += (uint64_t)e + (e < n);
		return e == n;
	}
}

/* Reads what the writer published: every record must verify with the
 * next sequence number, a LOST record moves the sequence on. */
static int drain(struct wcase *k)
{
	struct pfr_record rec;
	int64_t a;

	while ((a = pfr_reader_begin(&k->r)) > 0) {
		while (pfr_reader_next(&k->r, &rec) == 1) {
			uint64_t s = 0, n;

			if (rec.hdr.type == PFR_RECORD_LOST) {
				memcpy(&n, (const char *)rec.payload + 8, 8);
				k->rseq += n;
				continue;
			}
			if (rec.hdr.type != 1 ||
			    !rt_verify(rec.payload, rec.len, &s) ||
			    s != k->rseq)
				return CASE_RECORD;
			k->rseq++;
			k->reads++;
		}
		pfr_reader_end(&k->r);
	}
	return a < 0 ? CASE_BEGIN : CASE_OK;
}

/* OVERWRITE has no consuming reader: walk oldest..head in place (records
 * never straddle the end of the data area: the writer pads) and check
 * that the window holds whole records in increasing order. */
static int walk_window(struct wcase *k)
{
	uint64_t pos = k->c->oldest, head = k->c->head, last = 0;
	int any = 0;

	if (head - pos > DS || (pos & 7))
		return CASE_WINDOW;
	while (pos != head) {
		struct pfr_record_header h;
		uint64_t s = 0;

		memcpy(&h, k->data + (pos & (DS - 1)), 8);
		if (!h.size || (h.size & 7) || h.size > head - pos ||
		    h.size > DS - (pos & (DS - 1)))
			return CASE_SNAP;
		if (h.type == 1) {
			if (!rt_verify(k->data + (pos & (DS - 1)) + 8,
				       h.size - 8u, &s) ||
			    (any && s <= last))
				return CASE_SNAP;
			last = s;
			any = 1;
		}
		pos += h.size;
	}
	return any && last == k->wseq - 1 ? CASE_OK : CASE_SNAP;
}

static int run_case(const struct kind *kd, uint64_t base, enum path p)
{
	static struct pfr_ring_ctl ctl __attribute__((aligned(128)));
	struct wcase k;
	int err;

	memset(&k, 0, sizeof(k));
	k.c = &ctl;
	k.data = rt_guarded(DS);
	k.scratch = malloc(PFR_RECORD_MAX + 8);
	k.buf = malloc(8 * DS + 64);
	k.rnd = 0x9e3779b97f4a7c15ull ^ base ^ (uint64_t)p;
	memset(k.data, 0, DS);
	ctl.head = ctl.tail = ctl.oldest = base;
	if (pfr__writer_open_at(&k.w, k.c, k.data, DS, kd->pol, kd->ord,
				kd->flags))
		return CASE_OPEN;
	/* the largest record this ring takes (less in band) */
	k.maxlen = (size_t)k.w.max_record - 8;
	pfr_writer_set_timeout(&k.w, 1000000);
	if (kd->pol != PFR_POLICY_OVERWRITE) {
		if (pfr_reader_init(&k.r, &ctl.head, &ctl.tail, k.data, DS,
				    kd->ord, PFR_READER_SKIP_PAD, k.scratch))
			return CASE_OPEN;
		if (kd->flags & PFR_RING_INBAND)
			k.r.iflags |= PFR__READER_INBAND;
	}
	for (int round = 0; round < ROUNDS; round++) {
		/* until the ring refuses (or three rings' worth) */
		for (unsigned i = 0; i < 3 * DS / RT_HDR; i++)
			if (!attempt(&k, p))
				break;
		pfr_writer_publish(&k.w);
		if (ctl.head - ctl.tail > DS && kd->pol != PFR_POLICY_OVERWRITE)
			return CASE_WINDOW;
		err = kd->pol == PFR_POLICY_OVERWRITE ? walk_window(&k)
						      : drain(&k);
		if (err)
			return err;
	}
	if (kd->pol == PFR_POLICY_OVERWRITE)
		return CASE_OK;
	/* the last drops go out with a flush, into the room just read */
	pfr_writer_flush(&k.w);
	err = drain(&k);
	if (err)
		return err;
	return k.rseq == k.wseq && k.reads > 0 ? CASE_OK : CASE_COUNT;
}

static const char *kind_name(const struct kind *kd, char *b, size_t n)
{
	snprintf(b, n, "%s %s %s",
		 kd->flags & PFR_RING_INBAND ? "in-band"
		 : kd->flags & PFR_RING_WAIT ? "wait"
					     : "head-polled",
		 pfr_policy_name(kd->pol), pfr_ordering_name(kd->ord));
	return b;
}

/* Every path at one kind and base, each in a child; one check. */
static int check_base(const struct kind *kd, uint64_t base)
{
	char kn[64], bad[256] = "";
	int nbad = 0;

	for (int p = 0; p < P__N; p++) {
		pid_t pid = fork();
		int st = 0;

		if (pid == 0) {
			alarm(60); /* an endless loop fails too (SIGALRM) */
			_exit(run_case(kd, base, (enum path)p));
		}
		waitpid(pid, &st, 0);
		if (WIFEXITED(st) && !WEXITSTATUS(st))
			continue;
		nbad++;
		snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
			 " %s:%s%d", path_name[p],
			 WIFSIGNALED(st) ? "signal " : "fail ",
			 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	}
	ok(!nbad,
	   "%s, head = tail = %#llx: every path writes within the data "
	   "area and reads back%s",
	   kind_name(kd, kn, sizeof(kn)), (unsigned long long)base, bad);
	return P__N;
}

int main(void)
{
	static const uint64_t bases[] = {
		(uint64_t)0 - 32,
		(uint64_t)0 - 8,
		(uint64_t)0 - 40,
		(uint64_t)0 - DS - 8,
		(uint64_t)0 - 3 * DS,
		(uint64_t)0 - 3 * DS + 24,
		1ull << 63,
		(1ull << 63) - 32,
		0,
	};
	static const uint32_t flagset[] = {0, PFR_RING_WAIT, PFR_RING_INBAND};
	int cases = 0;

	for (size_t f = 0; f < 3; f++)
		for (int pol = 0; pol < 3; pol++)
			for (int o = 0; o < PFR_ORDER__COUNT; o++) {
				struct kind kd = {flagset[f],
						  (enum pfr_policy)pol,
						  rt_orders[o]};

				/* PFR_RING_INBAND takes ACQREL, a consuming
				 * reader */
				if ((kd.flags & PFR_RING_INBAND) &&
				    (kd.ord != PFR_ORDER_ACQREL ||
				     kd.pol == PFR_POLICY_OVERWRITE))
					continue;
				for (size_t b = 0;
				     b < sizeof(bases) / sizeof(bases[0]); b++)
					cases += check_base(&kd, bases[b]);
			}
	tap_diag("%d cases", cases);
	return rt_done();
}
