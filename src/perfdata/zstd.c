/* SPDX-License-Identifier: MIT */
/*
 * perfring script reads perf record -z files (PERF_RECORD_COMPRESSED, one
 * zstd stream for the whole file) with Debian's libzstd, as perf script
 * does; the library is loaded only when a file is read, so that perfring
 * runs without it.  The reader itself is the library's
 * (pfr_perf_file_set_inflate()): this file only fills its hook.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifdef PFR_HAVE_ZSTD
#include <dlfcn.h>
#include <zstd.h>
#endif

#include "zstd.h"

#ifdef PFR_HAVE_ZSTD
/* libzstd's functions, loaded once for the process. */
static struct {
	ZSTD_DCtx *(*create)(void);
	size_t (*free)(ZSTD_DCtx *);
	size_t (*stream)(ZSTD_DCtx *, ZSTD_outBuffer *, ZSTD_inBuffer *);
	unsigned (*is_error)(size_t);
	unsigned long long (*content_size)(const void *, size_t);
} pfr__zl;

/* One file's decompression. */
struct pfr__zstd {
	ZSTD_DCtx *dctx;
	size_t last; /* the last call's return: 0 at a frame's end */
	int fed; /* the stream was fed since the last frame ended */
	unsigned long long frames; /* frames ended so far */
	/* the current frame's first bytes (its header) and output so far */
	unsigned char head[18];
	size_t head_len;
	unsigned long long out;
};

static long pfr__zstd_inflate(void *arg, const void *in, size_t in_len,
			      size_t *in_used, void *out, size_t out_cap)
{
	ZSTD_inBuffer i = {in, in_len, 0};
	ZSTD_outBuffer o = {out, out_cap, 0};
	struct pfr__zstd *z = arg;
	size_t r;

	r = pfr__zl.stream(z->dctx, &o, &i);
	*in_used = i.pos;
	if (pfr__zl.is_error(r))
		return -1;
	if (!z->fed) {
		z->head_len = 0;
		z->out = 0;
	}
	if (i.pos) {
		size_t k = sizeof(z->head) - z->head_len;

		k = k < i.pos ? k : i.pos;
		memcpy(z->head + z->head_len, in, k);
		z->head_len += k;
		z->fed = 1;
	}
	z->out += o.pos;
	if (!r && z->fed) {
		z->frames++;
		z->fed = 0;
	}
	z->last = r;
	return (long)o.pos;
}

static int pfr_zstd_load(void)
{
	void *h;

	if (pfr__zl.stream)
		return 0;
	h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -1;
	*(void **)&pfr__zl.create = dlsym(h, "ZSTD_createDCtx");
	*(void **)&pfr__zl.free = dlsym(h, "ZSTD_freeDCtx");
	*(void **)&pfr__zl.stream = dlsym(h, "ZSTD_decompressStream");
	*(void **)&pfr__zl.is_error = dlsym(h, "ZSTD_isError");
	*(void **)&pfr__zl.content_size = dlsym(h, "ZSTD_getFrameContentSize");
	if (!pfr__zl.create || !pfr__zl.free || !pfr__zl.stream ||
	    !pfr__zl.is_error || !pfr__zl.content_size) {
		pfr__zl.stream = NULL;
		dlclose(h);
		return -1;
	}
	return 0; /* kept loaded for the process's lifetime */
}

struct pfr__zstd *pfr__zstd_new(struct pfr_perf_file *f, const char **why)
{
	struct pfr__zstd *z;

	if (pfr_zstd_load()) {
		*why = "libzstd.so.1 cannot be loaded (Debian: libzstd1)";
		return NULL;
	}
	z = calloc(1, sizeof(*z));
	if (!z || !(z->dctx = pfr__zl.create())) {
		free(z);
		*why = "out of memory";
		return NULL;
	}
	if (pfr_perf_file_set_inflate(f, pfr__zstd_inflate, z)) {
		pfr__zstd_free(z);
		*why = "the file was already read from";
		return NULL;
	}
	return z;
}

unsigned long long pfr__zstd_cut(const struct pfr__zstd *z)
{
	/* 0: the last frame ended; 3 (ZSTD_blockHeaderSize): a frame flushed
	 * but not ended (perf record -z and perfring's writer leave the
	 * stream so), waiting for its next block header with none of it
	 * read.  Anything else is a frame, block or skippable frame whose
	 * bytes the stream does not hold. */
	unsigned long long want;

	if (!z || !z->dctx || !z->fed || !z->last)
		return 0;
	if (z->last != 3)
		return z->frames + 1;
	/* at a block's end: cut there when the frame's header says how
	 * much it holds and less came out (ZSTD_CONTENTSIZE_UNKNOWN and
	 * _ERROR are the two largest values) */
	want = pfr__zl.content_size(z->head, z->head_len);
	if (want < ~1ULL && z->out < want)
		return z->frames + 1;
	return 0;
}

void pfr__zstd_free(struct pfr__zstd *z)
{
	if (!z)
		return;
	if (z->dctx)
		pfr__zl.free(z->dctx);
	free(z);
}
#else
struct pfr__zstd *pfr__zstd_new(struct pfr_perf_file *f, const char **why)
{
	(void)f;
	*why = "this perfring was built without zstd.h";
	return NULL;
}

unsigned long long pfr__zstd_cut(const struct pfr__zstd *z)
{
	(void)z;
	return 0;
}

void pfr__zstd_free(struct pfr__zstd *z)
{
	(void)z;
}
#endif

/* perfring script's one file (its former interface, kept for it). */
static struct pfr__zstd *pfr__zd_cur;

int pfr__zstd_reader(struct pfr_perf_file *f, const char **why)
{
	pfr__zstd_reader_free();
	pfr__zd_cur = pfr__zstd_new(f, why);
	return pfr__zd_cur ? 0 : -1;
}

unsigned long long pfr__zstd_cut_frame(void)
{
	return pfr__zstd_cut(pfr__zd_cur);
}

void pfr__zstd_reader_free(void)
{
	pfr__zstd_free(pfr__zd_cur);
	pfr__zd_cur = NULL;
}
