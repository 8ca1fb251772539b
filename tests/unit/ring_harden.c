/* SPDX-License-Identifier: MIT */
/*
 * The ring's public API against the inputs a careless caller or a hostile
 * peer hands it:
 *  - error codes of any int, INT_MIN included, are named, never a crash;
 *  - ring options: every field is checked, a shm mode outside 0777 (setuid,
 *    setgid, sticky, file-type bits) is refused before anything is created;
 *  - attach limits: a peer declares the ring's size, the attacher caps it
 *    (a default, or its own), and the options struct is checked;
 *  - a snapshot of a huge sparse ring costs memory bounded by the caller's
 *    buffer, not by the size the peer declared;
 *  - NULL: every out-of-line function checks its pointers (each call runs
 *    in a child, so that one crash names itself);
 *  - a second thread that flips `oldest` between an aligned value and
 *    head - 4 while snapshots run (under ASan: no read outside the ring or
 *    the caller's buffer; in every build: only whole records or an error);
 *  - PFR_RING_INBAND: refused with another ordering, OVERWRITE or
 *    PFR_RING_WAIT; and a second thread that flips a committed header
 *    between its value and forged ones (size 0, unaligned, past the data
 *    area, zero) while an in-band reader walks and reads: only whole
 *    records or an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/perf.h>

#include "ring_common.h"

#define OFF(f) offsetof(struct pfr_ring_ctl, f)

/* ---- error names ---- */

static void test_strerror(void)
{
	static const int codes[] = {
		INT_MIN,	  INT_MIN + 1,	 -INT_MAX,
		INT_MAX,	  -PFR_E__COUNT, PFR_E__COUNT,
		-PFR_PERF_E__END, 1000,		 -1000};

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		const char *a = pfr_strerror(codes[i]);
		const char *b = pfr_perf_strerror(codes[i]);

		ok(a && b && !strcmp(a, "unknown perfring error") &&
			   !strcmp(b, "unknown perfring error"),
		   "strerror(%d): unknown", codes[i]);
	}
	ok(!strcmp(pfr_strerror(-PFR_E_INVAL), pfr_strerror(PFR_E_INVAL)) &&
		   strcmp(pfr_strerror(PFR_E_INVAL), "unknown perfring error"),
	   "either sign names a known code");
	ok(strcmp(pfr_strerror(-PFR_E_TOOBIG), "unknown perfring error") != 0,
	   "PFR_E_TOOBIG has a name: %s", pfr_strerror(-PFR_E_TOOBIG));
	ok(strcmp(pfr_perf_strerror(-PFR_PERF_E_STRING), pfr_strerror(0)) &&
		   !strcmp(pfr_perf_strerror(-PFR_E_BUSY),
			   pfr_strerror(PFR_E_BUSY)),
	   "perf_strerror names both sets");
}

/* ---- options ---- */

static char shm_name[64];

static int shm_exists(void)
{
	char path[80];
	int fd;

	snprintf(path, sizeof(path), "/%s", shm_name);
	fd = shm_open(path, O_RDONLY, 0);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

static void test_opts(void)
{
	static const uint32_t bad_modes[] = {0200000, 04777, 02777,
					     01777,   04000, 0100600,
					     0170000, 01000, 0xffffffffu};
	static const uint64_t bad_sizes[] = {
		1,	 8,	     4095,	 4097,	    8192 + 8,
		3 << 12, 1ull << 41, 1ull << 63, UINT64_MAX};
	struct pfr_ring_opts o;
	struct pfr_ring *ring = NULL;
	struct stat st;

	snprintf(shm_name, sizeof(shm_name), "pfr-harden-%d", (int)getpid());
	memset(&o, 0, sizeof(o));
	o.data_size = 4096;
	for (size_t i = 0; i < sizeof(bad_modes) / 4; i++) {
		o.mode = bad_modes[i];
		is_intf(pfr_ring_create_shm(&ring, shm_name, &o), -PFR_E_INVAL,
			"create_shm with mode %#o refused", bad_modes[i]);
		ok(!shm_exists(), "  and nothing was created");
		is_intf(pfr_ring_create(&ring, &o), -PFR_E_INVAL,
			"create with mode %#o refused", bad_modes[i]);
		is_intf(pfr_ring_create_memfd(&ring, &o), -PFR_E_INVAL,
			"create_memfd with mode %#o refused", bad_modes[i]);
	}
	{
		static const uint32_t good[] = {0777, 0640, 0400, 0};
		static const uint32_t want[] = {0777, 0640, 0400, 0600};

		for (size_t i = 0; i < 4; i++) {
			o.mode = good[i];
			if (!ok(pfr_ring_create_shm(&ring, shm_name, &o) == 0,
				"create_shm with mode %#o", good[i]))
				continue;
			ok(fstat(pfr_ring_fd(ring), &st) == 0 &&
				   (st.st_mode & 07777) == want[i],
			   "  the object's mode is %#o (%#o)", want[i],
			   (unsigned)(st.st_mode & 07777));
			pfr_ring_close(ring);
			pfr_ring_unlink(shm_name);
		}
	}
	o.mode = 0;
	for (size_t i = 0; i < sizeof(bad_sizes) / 8; i++) {
		o.data_size = bad_sizes[i];
		is_intf(pfr_ring_create(&ring, &o), -PFR_E_INVAL,
			"data_size %#llx refused",
			(unsigned long long)bad_sizes[i]);
	}
	o.data_size = 4096;
	o.policy = PFR_POLICY__COUNT;
	is_int(pfr_ring_create(&ring, &o), -PFR_E_INVAL, "unknown policy");
	o.policy = (enum pfr_policy) - 1;
	is_int(pfr_ring_create(&ring, &o), -PFR_E_INVAL, "policy -1");
	o.policy = PFR_POLICY_DROP;
	o.ordering = PFR_ORDER__COUNT;
	is_int(pfr_ring_create(&ring, &o), -PFR_E_INVAL, "unknown ordering");
	o.ordering = (enum pfr_ordering) - 1;
	is_int(pfr_ring_create(&ring, &o), -PFR_E_INVAL, "ordering -1");
	o.ordering = PFR_ORDER_ACQREL;
	{
		uint32_t accepted = 0;

		/* 4 is PFR_RING_EVENTFD (PERFRING_0.3) */
		for (uint32_t f = 8; f; f <<= 1) {
			o.flags = PFR_RING_WAIT | f;
			if (pfr_ring_create(&ring, &o) != -PFR_E_INVAL)
				accepted |= f;
			o.flags = PFR_RING_INBAND | f;
			if (pfr_ring_create(&ring, &o) != -PFR_E_INVAL)
				accepted |= f;
		}
		is_uint(accepted, 0, "every unknown flag refused");
	}
	o.flags = PFR_RING_INBAND;
	for (int ord = 0; ord < PFR_ORDER__COUNT; ord++)
		for (int pol = 0; pol < PFR_POLICY__COUNT; pol++) {
			int want = ord == PFR_ORDER_ACQREL &&
						   pol != PFR_POLICY_OVERWRITE
					   ? 0
					   : -PFR_E_INVAL;
			int err;

			o.ordering = (enum pfr_ordering)ord;
			o.policy = (enum pfr_policy)pol;
			err = pfr_ring_create(&ring, &o);
			is_intf(err, want, "PFR_RING_INBAND, %s, %s",
				pfr_ordering_name(o.ordering),
				pfr_policy_name(o.policy));
			if (!err)
				pfr_ring_close(ring);
		}
	o.ordering = PFR_ORDER_ACQREL;
	o.policy = PFR_POLICY_DROP;
	o.flags = PFR_RING_INBAND | PFR_RING_WAIT;
	is_int(pfr_ring_create(&ring, &o), -PFR_E_INVAL,
	       "PFR_RING_INBAND with PFR_RING_WAIT");
	o.flags = 0;
	o.lost_id = UINT64_MAX;
	ok(pfr_ring_create(&ring, &o) == 0, "any lost_id is fine");
	pfr_ring_close(ring);
}

/* ---- attach limits ---- */

/* A memfd holding a copy of a real ring's control page that declares a
 * data area of `size` bytes (and a head and oldest), grown sparsely to
 * what it declares: no memory is used until something reads it. */
static int sparse_ring(uint64_t size, uint64_t head, uint64_t oldest)
{
	struct pfr_ring_opts o = {.sz = sizeof(o),
				  .data_size = 4096,
				  .policy = PFR_POLICY_OVERWRITE,
				  .ordering = PFR_ORDER_ACQREL};
	struct pfr_ring *ring;
	unsigned char *page;
	uint32_t mr;
	uint64_t off;
	int fd;

	if (pfr_ring_create_memfd(&ring, &o))
		return -1;
	off = pfr_ring_ctl(ring)->data_offset; /* a page: 4 or 64 KiB */
	page = malloc(off);
	if (!page || pread(pfr_ring_fd(ring), page, off, 0) != (ssize_t)off) {
		free(page);
		pfr_ring_close(ring);
		return -1;
	}
	pfr_ring_close(ring);
	mr = (uint32_t)((size / 2 - 8) & ~7ull);
	if (mr > PFR_RECORD_MAX)
		mr = PFR_RECORD_MAX;
	memcpy(page + OFF(data_size), &size, 8);
	memcpy(page + OFF(max_record), &mr, 4);
	memcpy(page + OFF(head), &head, 8);
	memcpy(page + OFF(oldest), &oldest, 8);
	fd = memfd_create("pfr-sparse", MFD_CLOEXEC);
	if (fd >= 0 && (pwrite(fd, page, off, 0) != (ssize_t)off ||
			ftruncate(fd, (off_t)(off + size)) < 0)) {
		close(fd);
		fd = -1;
	}
	free(page);
	return fd;
}

/* A 32-bit process may have no room for a mapping of a GiB or two: there
 * the limit's checks still run, and the mapping may fail afterwards. */
static int no_room(int err)
{
	return sizeof(void *) < 8 && err == -PFR_E_SYSTEM;
}

static int attach_with(int fd, uint64_t max)
{
	struct pfr_ring_attach_opts ao = {sizeof(ao), 0, max};
	struct pfr_ring *ring;
	int err = pfr_ring_attach_fd_opts(&ring, fd, &ao);

	if (!err)
		pfr_ring_close(ring);
	return no_room(err) ? 0 : err;
}

static void test_attach_limit(void)
{
	const uint64_t gib = 1ull << 30;
	/* a 32-bit off_t cannot size an object of 2 GiB and more */
	const int big_files = sizeof(off_t) >= 8;
	struct pfr_ring *ring;
	int fd1 = sparse_ring(gib, 0, 0), err;
	int fd2 = big_files ? sparse_ring(2 * gib, 0, 0) : -1;

	if (!ok(fd1 >= 0 && (fd2 >= 0 || !big_files),
		"sparse memfds of 1 GiB and (64-bit off_t) 2 GiB"))
		return;
	is_uint(PFR_RING_ATTACH_MAX_DEFAULT, gib, "the default limit: 1 GiB");
	err = pfr_ring_attach_fd(&ring, fd1);
	if (!err)
		pfr_ring_close(ring);
	ok(!err || no_room(err),
	   "1 GiB: attaches by default (the limit is inclusive) (%d)", err);
	if (big_files) {
		is_int(pfr_ring_attach_fd(&ring, fd2), -PFR_E_TOOBIG,
		       "2 GiB: too big by default");
		is_int(attach_with(fd2, 0), -PFR_E_TOOBIG,
		       "2 GiB, max_data_size 0 (the default): too big");
		is_int(attach_with(fd2, 2 * gib), 0,
		       "2 GiB with a 2 GiB limit");
		close(fd2);
	}
	is_int(attach_with(fd1, gib - 4096), -PFR_E_TOOBIG,
	       "1 GiB with a smaller limit: too big");
	is_int(attach_with(fd1, 8192), -PFR_E_TOOBIG,
	       "1 GiB with an 8 KiB limit: too big");
	{
		struct {
			struct pfr_ring_attach_opts o;
			uint64_t more;
		} big;

		memset(&big, 0, sizeof(big));
		big.o.sz = sizeof(big);
		big.o.max_data_size = gib;
		err = pfr_ring_attach_fd_opts(&ring, fd1, &big.o);
		if (!err)
			pfr_ring_close(ring);
		ok(!err || no_room(err),
		   "a newer caller's larger options, zero beyond ours (%d)",
		   err);
		big.more = 1;
		is_int(pfr_ring_attach_fd_opts(&ring, fd1, &big.o),
		       -PFR_E_INVAL, "an option this library does not know");
		big.more = 0;
		big.o.flags = 1;
		is_int(pfr_ring_attach_fd_opts(&ring, fd1, &big.o),
		       -PFR_E_INVAL, "unknown attach flags");
		big.o.flags = 0;
		big.o.sz = 0;
		is_int(pfr_ring_attach_fd_opts(&ring, fd1, &big.o),
		       -PFR_E_INVAL, "sz 0");
		big.o.sz = sizeof(big.o) - 1;
		is_int(pfr_ring_attach_fd_opts(&ring, fd1, &big.o),
		       -PFR_E_INVAL, "sz smaller than the struct");
	}
	close(fd1);
	/* by name */
	{
		struct pfr_ring_opts o = {.sz = sizeof(o),
					  .data_size = 8192,
					  .policy = PFR_POLICY_DROP,
					  .ordering = PFR_ORDER_ACQREL};
		struct pfr_ring_attach_opts ao = {sizeof(ao), 0, 4096};
		struct pfr_ring *mine, *b;

		if (!ok(pfr_ring_create_shm(&mine, shm_name, &o) == 0,
			"shm ring of 8 KiB"))
			return;
		is_int(pfr_ring_attach_shm_opts(&b, shm_name, &ao),
		       -PFR_E_TOOBIG, "attach_shm with a 4 KiB limit");
		ao.max_data_size = 8192;
		if (ok(pfr_ring_attach_shm_opts(&b, shm_name, &ao) == 0,
		       "attach_shm with an 8 KiB limit"))
			pfr_ring_close(b);
		pfr_ring_close(mine);
		pfr_ring_unlink(shm_name);
	}
}

/* Resident pages of this process, from /proc/self/statm. */
static long resident_pages(void)
{
	long size = -1, res = -1;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &size, &res) != 2)
			res = -1;
		fclose(f);
	}
	return res;
}

/* A 256 MiB OVERWRITE ring, sparse, whose head says it is full: a snapshot
 * into a 64 KiB buffer must not cost memory in proportion to 256 MiB. */
static void test_snapshot_memory(void)
{
	const uint64_t size = 256ull << 20;
	long pg = sysconf(_SC_PAGESIZE), before, after;
	unsigned char *buf = malloc(65536);
	struct pfr_ring *ring;
	int64_t n;
	int fd = sparse_ring(size, size, 0);

	if (!ok(fd >= 0 && pfr_ring_attach_fd(&ring, fd) == 0,
		"a sparse, full 256 MiB OVERWRITE ring attaches"))
		return;
	memset(buf, 0, 65536);
	before = resident_pages();
	n = pfr_ring_snapshot(ring, buf, 65536);
	after = resident_pages();
	is_int(n, -PFR_E_RECSIZE_ZERO,
	       "its first record header (never written) has size 0");
	ok(before > 0 && after - before < (16l << 20) / pg,
	   "the snapshot's resident memory grew by %ld KiB (< 16 MiB)",
	   (after - before) * pg / 1024);
	pfr_ring_close(ring);
	close(fd);
	free(buf);
}

/* ---- NULL ---- */

/* Runs expr in a child: ok when it returns want (a crash names itself). */
#define NULL_CASE(want, expr)                                                  \
	do {                                                                   \
		int st_;                                                       \
		pid_t pid_ = fork();                                           \
		if (pid_ == 0)                                                 \
			_exit((long long)(expr) == (long long)(want) ? 0 : 1); \
		waitpid(pid_, &st_, 0);                                        \
		if (!ok(WIFEXITED(st_) && WEXITSTATUS(st_) == 0, "NULL: %s",   \
			#expr))                                                \
			tap_diag("  %s %d",                                    \
				 WIFSIGNALED(st_) ? "signal" : "exit",         \
				 WIFSIGNALED(st_) ? WTERMSIG(st_)              \
						  : WEXITSTATUS(st_));         \
	} while (0)

static void test_null(void)
{
	const struct pfr_ring_opts o = {.sz = sizeof(o),
					.data_size = 4096,
					.policy = PFR_POLICY_OVERWRITE,
					.ordering = PFR_ORDER_ACQREL,
					.flags = PFR_RING_WAIT};
	const struct pfr_ring_attach_opts ao = {sizeof(ao), 0, 0};
	struct pfr_ring *ring = NULL, *r2;
	struct pfr_writer w;
	struct pfr_reader r;
	struct pfr_ring_stats st;
	struct pfr_perf_layout lay;
	struct pfr_record_header hdr = {9, 0, 16};
	struct pfr_perf_rec prec;
	uint64_t u = 0, id;
	unsigned char data[64], scratch[16];
	char nb[16];
	int fd;

	if (!ok(pfr_ring_create_memfd(&ring, &o) == 0, "a ring to pass"))
		return;
	fd = pfr_ring_fd(ring);
	memset(&lay, 0, sizeof(lay));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_create(NULL, &o));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_create(&r2, NULL));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_create_shm(NULL, shm_name, &o));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_create_shm(&r2, NULL, &o));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_create_shm(&r2, shm_name, NULL));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_create_memfd(NULL, &o));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_create_memfd(&r2, NULL));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_attach_shm(NULL, shm_name));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_attach_shm(&r2, NULL));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_attach_fd(NULL, fd));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_attach_fd_opts(NULL, fd, &ao));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_attach_fd_opts(&r2, fd, NULL));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_attach_shm_opts(NULL, shm_name, &ao));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_attach_shm_opts(&r2, NULL, &ao));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_attach_shm_opts(&r2, shm_name, NULL));
	NULL_CASE(0, (pfr_ring_close(NULL), 0));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_unlink(NULL));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_fd(NULL));
	NULL_CASE(0, pfr_ring_sealed(NULL));
	NULL_CASE(0, pfr_ring_ctl(NULL) != NULL);
	NULL_CASE(0, (pfr_ring_stats(ring, NULL), 0));
	st.head = 1;
	NULL_CASE(0, (pfr_ring_stats(NULL, &st), st.head));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_writer(NULL, &w));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_writer(ring, NULL));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_reader(NULL, &r));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_reader(ring, NULL));
	NULL_CASE(-PFR_E_INVAL, pfr_reader_init(NULL, &u, &u, data, 64,
						PFR_ORDER_ACQREL, 0, scratch));
	NULL_CASE(-PFR_E_INVAL, pfr_reader_init(&r, NULL, &u, data, 64,
						PFR_ORDER_ACQREL, 0, scratch));
	NULL_CASE(-PFR_E_INVAL, pfr_reader_init(&r, &u, NULL, data, 64,
						PFR_ORDER_ACQREL, 0, scratch));
	NULL_CASE(-PFR_E_INVAL, pfr_reader_init(&r, &u, &u, NULL, 64,
						PFR_ORDER_ACQREL, 0, scratch));
	NULL_CASE(-PFR_E_INVAL, pfr_reader_init(&r, &u, &u, data, 64,
						PFR_ORDER_ACQREL, 0, NULL));
	NULL_CASE(0, (pfr_writer_set_timeout(NULL, 5), 0));
	NULL_CASE(0, (pfr_writer_flush(NULL), 0));
	NULL_CASE(0, (pfr_reader_set_wakeup(NULL, 1, 1), 0));
	NULL_CASE(-PFR_E_INVAL, pfr_reader_wait(NULL, 0));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_snapshot(NULL, data, 64));
	NULL_CASE(-PFR_E_INVAL, pfr_ring_snapshot(ring, NULL, 64));
	NULL_CASE(0, pfr_ring_snapshot(ring, NULL, 0));
	NULL_CASE(-1, pfr_ordering_parse(NULL));
	NULL_CASE(-1, pfr_policy_parse(NULL));
	/* <perfring/perf.h> */
	NULL_CASE(-PFR_E_INVAL, pfr_perf_ring_map(NULL, -1, 0, 1, 0));
	NULL_CASE(0, (pfr_perf_ring_unmap(NULL), 0));
	NULL_CASE(-PFR_E_INVAL, pfr_perf_ring_snapshot(NULL, NULL, NULL));
	NULL_CASE(-PFR_E_INVAL, pfr_perf_online_cpus(NULL, 4));
	NULL_CASE(0, (pfr_perf_attr_name(NULL, nb, sizeof(nb)), nb[0]));
	NULL_CASE(0, (pfr_perf_attr_name(NULL, NULL, 0), 0));
	NULL_CASE(-PFR_E_INVAL, pfr_perf_event_parse(NULL, NULL, NULL, 0, 0));
	NULL_CASE(-PFR_E_INVAL, pfr_perf_decode(NULL, &hdr, data, 8, &prec));
	NULL_CASE(-PFR_E_INVAL, pfr_perf_decode(&lay, NULL, data, 8, &prec));
	NULL_CASE(-PFR_E_INVAL, pfr_perf_decode(&lay, &hdr, NULL, 8, &prec));
	NULL_CASE(-PFR_E_INVAL, pfr_perf_decode(&lay, &hdr, data, 8, NULL));
	NULL_CASE(-PFR_E_INVAL,
		  pfr_perf_record_id(~0ull, 1, NULL, data, 8, &id));
	NULL_CASE(-PFR_E_INVAL,
		  pfr_perf_record_id(~0ull, 1, &hdr, NULL, 8, &id));
	NULL_CASE(-PFR_E_INVAL,
		  pfr_perf_record_id(~0ull, 1, &hdr, data, 8, NULL));
	pfr_ring_close(ring);
}

/* ---- a thread flipping oldest ---- */

struct flipper {
	struct pfr_ring_ctl *c;
	uint64_t a, b;
	volatile int stop;
	unsigned long flips;
};

static void *flip(void *arg)
{
	struct flipper *f = (struct flipper *)arg;

	while (!PFR_READ_ONCE(f->stop)) {
		PFR_WRITE_ONCE(f->c->oldest, f->a);
		PFR_WRITE_ONCE(f->c->oldest, f->b);
		f->flips++;
	}
	PFR_WRITE_ONCE(f->c->oldest, f->a);
	return NULL;
}

static void test_flip_thread(enum pfr_ordering ord)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct flipper f;
	pthread_t t;
	unsigned char *buf = malloc(4096);
	unsigned long whole = 0, unaligned = 0, other = 0;
	int good = 1;

	if (rt_mkring(&ring, 4096, PFR_POLICY_OVERWRITE, ord, 0) ||
	    pfr_ring_writer(ring, &w))
		return (void)ok(0, "create");
	for (uint64_t seq = 0; seq < 300; seq++)
		pfr_writer_write(&w, 7, &seq, 8);
	memset(&f, 0, sizeof(f));
	f.c = pfr_ring_ctl(ring);
	f.a = f.c->oldest;
	f.b = f.c->head - 4;
	if (pthread_create(&t, NULL, flip, &f))
		return (void)ok(0, "thread");
	for (int i = 0; i < 20000 && good; i++) {
		size_t bl = i % 2 ? 4096 : 160;
		int64_t n = pfr_ring_snapshot(ring, buf, bl);

		if (n >= 0) {
			/* whole 16-byte records, the newest ones */
			good = (uint64_t)n <= bl && n % 16 == 0;
			for (int64_t q = 0; good && q < n; q += 16) {
				struct pfr_record_header h;

				memcpy(&h, buf + q, 8);
				good = h.size == 16 && h.type == 7;
			}
			whole++;
		} else if (n == -PFR_E_RECSIZE_ALIGN) {
			unaligned++;
		} else {
			other++;
			good = 0;
			tap_diag("  snapshot %d: %s", i, pfr_strerror((int)n));
		}
	}
	PFR_WRITE_ONCE(f.stop, 1);
	pthread_join(t, NULL);
	ok(good,
	   "%s: oldest flipping between %#llx and head - 4: whole "
	   "records or -PFR_E_RECSIZE_ALIGN only",
	   pfr_ordering_name(ord), (unsigned long long)f.a);
	tap_diag("  %lu whole, %lu unaligned, %lu other; %lu flips", whole,
		 unaligned, other, f.flips);
	free(buf);
	pfr_ring_close(ring);
}

/* ---- an in-band reader against a header that changes under it ---- */

struct hflip {
	uint64_t *word;
	uint64_t vals[4];
	volatile int stop;
	unsigned long flips;
};

static void *hflip_run(void *arg)
{
	struct hflip *f = (struct hflip *)arg;

	while (!PFR_READ_ONCE(f->stop)) {
		for (int i = 0; i < 4; i++)
			/* purpose: a hostile writer's commit; pairs with Ci
			 * (load_acquire) in pfr__begin_inband() */
			pfr_smp_store_release(f->word, f->vals[i]);
		f->flips++;
	}
	/* purpose: the header restored; pairs with Ci in pfr__begin_inband() */
	pfr_smp_store_release(f->word, f->vals[0]);
	return NULL;
}

static void test_inband_flip(void)
{
	struct pfr_ring *ring;
	struct pfr_ring_ctl *c;
	struct pfr_writer w;
	struct hflip f;
	pthread_t t;
	unsigned long whole = 0, errs = 0;
	int good = 1;

	if (rt_mkring(&ring, 4096, PFR_POLICY_DROP, PFR_ORDER_ACQREL,
		      PFR_RING_INBAND) ||
	    pfr_ring_writer(ring, &w))
		return (void)ok(0, "create");
	for (uint64_t seq = 0; seq < 200; seq++)
		pfr_writer_write(&w, 7, &seq, 8);
	c = pfr_ring_ctl(ring);
	memset(&f, 0, sizeof(f));
	/* record 100's header: its value, then size 0, size 12, a size past
	 * the data area's end */
	f.word = (uint64_t *)((unsigned char *)c + c->data_offset + 1600);
	f.vals[0] = *f.word;
	{
		struct pfr_record_header h[3] = {{7, 0, 0}, {7, 0, 12},
						 {7, 0, 0xfff8}};

		for (int i = 0; i < 3; i++)
			memcpy(&f.vals[i + 1], &h[i], 8);
	}
	if (pthread_create(&t, NULL, hflip_run, &f))
		return (void)ok(0, "thread");
	for (int i = 0; i < 5000 && good; i++) {
		struct pfr_reader r;
		struct pfr_record rec;
		uint64_t n = 0;
		int64_t a;
		int rc = 0;

		PFR_WRITE_ONCE(c->tail, 0);
		pfr_ring_reader(ring, &r);
		while ((a = pfr_reader_begin_unpaced(&r)) > 0) {
			while ((rc = pfr_reader_next(&r, &rec)) == 1) {
				uint64_t v;

				memcpy(&v, rec.payload, 8);
				good &= rec.hdr.type == 7 && rec.len == 8 &&
					v == n;
				n++;
			}
			if (rc < 0)
				break;
		}
		if (a < 0 || rc < 0) {
			errs++;
			good &= n == 100; /* stopped at the flipped header */
		} else {
			whole++;
			good &= n == 100 || n == 200;
		}
	}
	PFR_WRITE_ONCE(f.stop, 1);
	pthread_join(t, NULL);
	ok(good,
	   "in band: a header flipping between its value and forged ones: "
	   "whole records in order, then the rest or an error");
	tap_diag("  %lu reads ended, %lu errors; %lu flips", whole, errs,
		 f.flips);
	pfr_ring_close(ring);
}

int main(void)
{
	test_snapshot_memory(); /* first: nothing else resident yet */
	test_strerror();
	test_opts();
	test_attach_limit();
	test_null();
	for (int i = 0; i < PFR_ORDER__COUNT; i++)
		test_flip_thread(rt_orders[i]);
	test_inband_flip();
	return rt_done();
}
