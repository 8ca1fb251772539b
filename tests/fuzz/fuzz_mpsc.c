// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the shared MPSC ring's untrusted-input paths
 * (<perfring/mpsc.h>):
 *
 *  1. raw: the input becomes the whole shared object (a memfd); when
 *     pfr_mpsc_attach_fd() accepts it, the ring is exercised (below);
 *  2. patched: a valid ring with records of three producers in it
 *     (committed, BUSY, discarded, an unwritten reservation sized only by
 *     its announcement, a LOST count pending, a reader killed while
 *     zeroing) is
 *     patched with the input, read as { u16 offset; u64 value } pairs
 *     (the control block, the producer table and the data area are all
 *     fair game), then attached and exercised.
 *
 * Exercising a ring: a reader drains it (stall time-out 0, so BUSY
 * records go through the owner check at once; every payload byte read),
 * a producer joins and writes, reserves and discards, flushes and
 * leaves (time-outs of 1 ms: space that never comes is an error, not a
 * hang), the reader drains again, the counters are read.
 * No input may crash, hang, leak or read out of bounds.  Built with
 * clang -fsanitize=fuzzer,address,undefined by tests/fuzz/t_fuzz_mpsc.sh.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <perfring/mpsc.h>

static volatile unsigned sink;

static void drain(struct pfr_mpsc_reader *r)
{
	for (int batch = 0; batch < 16; batch++) {
		struct pfr_record rec;
		int64_t avail = pfr_mpsc_begin(r);
		int e, n = 0;

		if (avail <= 0)
			return;
		while (n++ < 1024 && (e = pfr_mpsc_next(r, &rec)) == 1) {
			const unsigned char *p = rec.payload;
			unsigned s = 0;

			for (uint32_t i = 0; i < rec.len; i++)
				s += p[i];
			sink += s + rec.hdr.type;
		}
		pfr_mpsc_end(r);
	}
}

static void exercise(int fd)
{
	struct pfr_mpsc *m = NULL;
	struct pfr_mpsc_reader r;
	struct pfr_mpsc_producer p;
	struct pfr_mpsc_stats st;
	int have_r;

	if (pfr_mpsc_attach_fd(&m, fd, 1u << 20))
		return;
	have_r = pfr_mpsc_reader(m, &r) == 0;
	if (have_r) {
		pfr_mpsc_set_stall(&r, 0);
		drain(&r);
		(void)pfr_mpsc_wait(&r, 0);
	}
	if (pfr_mpsc_join(m, &p) == 0) {
		uint64_t buf[16] = {1, 2, 3};
		void *dst;

		pfr_mpsc_set_timeout(&p, 1000000);
		for (unsigned i = 0; i < 6; i++)
			(void)pfr_mpsc_write(&p, 5, buf, (i * 24) % 128);
		if (pfr_mpsc_reserve(&p, 6, 40, &dst) == 0) {
			memset(dst, 0x77, 40);
			pfr_mpsc_discard(&p);
		}
		(void)pfr_mpsc_flush(&p);
		pfr_mpsc_leave(&p);
	}
	if (have_r) {
		drain(&r);
		pfr_mpsc_reader_close(&r);
	}
	pfr_mpsc_stats(m, NULL, &st);
	sink += (unsigned)st.lost_total;
	(void)pfr_mpsc_reader_alive(m);
	pfr_mpsc_close(m);
}

static int memfd_with(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-mpsc", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	return fd;
}

/* Reads up to n records of r's ring (a batch, not ended). */
static void read_some(struct pfr_mpsc_reader *r, int n)
{
	struct pfr_record rec;

	if (pfr_mpsc_begin(r) <= 0)
		return;
	while (n-- > 0 && pfr_mpsc_next(r, &rec) == 1)
		;
}

/* A valid ring: 4 producer slots, 4 KiB of data, records of three
 * producers: committed, discarded, BUSY (the second producer's last),
 * an unwritten reservation (the third producer's: announced in its slot,
 * prod_pos moved past it, its header zero, as a kill between the CAS and
 * the header leaves it), a LOST count pending, and a reader killed while
 * zeroing (free_pos ahead of cons_pos, half the range zeroed).  Returns
 * the memfd. */
static int template_ring(void)
{
	struct pfr_mpsc_opts o;
	struct pfr_mpsc *m = NULL;
	struct pfr_mpsc_producer a, b, c;
	struct pfr_mpsc_reader r;
	uint64_t buf[8] = {9, 8, 7}, pos;
	void *dst;
	int fd;

	memset(&o, 0, sizeof(o));
	o.data_size = 4096;
	o.max_producers = 4;
	o.flags = PFR_MPSC_WAIT;
	if (pfr_mpsc_create_memfd(&m, &o))
		abort();
	pfr_mpsc_join(m, &a);
	pfr_mpsc_join(m, &b);
	pfr_mpsc_join(m, &c);
	if (pfr_mpsc_reader(m, &r))
		abort();
	for (int i = 0; i < 40; i++)
		(void)pfr_mpsc_write(i & 1 ? &a : &b, 3, buf, 8 * (i % 6));
	for (int i = 0; i < 100; i++)
		(void)pfr_mpsc_write(&a, 3, buf, 56); /* fills: LOST later */
	read_some(&r, 30);
	pfr_mpsc_end(&r); /* room for what follows */
	if (pfr_mpsc_reserve(&b, 4, 16, &dst) == 0)
		pfr_mpsc_discard(&b);
	pos = PFR_READ_ONCE(c.ctl->prod_pos);
	pfr__mpsc_announce(&c, pos, pos + 32);
	(void)pfr__mpsc_cas_release(&c.ctl->prod_pos, &pos, pos + 32);
	(void)pfr_mpsc_reserve(&b, 4, 16, &dst); /* stays BUSY */
	/* the reader reads on and is "killed" in pfr_mpsc_end(): free_pos
	 * stored, half of its range zeroed, cons_pos not stored */
	read_some(&r, 10);
	PFR_WRITE_ONCE(r.ctl->free_pos, r.tail);
	pfr__mpsc_zero((unsigned char *)r.data, r.mask, r.published,
		       r.published + (r.tail - r.published) / 16 * 8);
	fd = dup(pfr_mpsc_fd(m));
	pfr_mpsc_close(m); /* the slots and the reader role stay claimed,
			    * owners this thread */
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *tmpl;
	static size_t tlen;
	uint8_t *obj;
	int fd;

	fd = memfd_with(data, size);
	exercise(fd);
	close(fd);

	if (!tmpl) {
		int t = template_ring();

		tlen = (size_t)lseek(t, 0, SEEK_END);
		tmpl = malloc(tlen);
		if (!tmpl || pread(t, tmpl, tlen, 0) != (ssize_t)tlen)
			abort();
		close(t);
	}
	obj = malloc(tlen);
	if (!obj)
		abort();
	memcpy(obj, tmpl, tlen);
	for (size_t i = 0; i + 10 <= size; i += 10) {
		uint16_t off;

		memcpy(&off, data + i, 2);
		off %= (uint16_t)(tlen - 8);
		memcpy(obj + off, data + i + 2, 8);
	}
	fd = memfd_with(obj, tlen);
	exercise(fd);
	close(fd);
	free(obj);
	return 0;
}
