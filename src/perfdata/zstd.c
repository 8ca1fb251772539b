/* SPDX-License-Identifier: MIT */
/*
 * perfring script reads perf record -z files (PERF_RECORD_COMPRESSED, one
 * zstd stream for the whole file) with Debian's libzstd, as perf script
 * does; the library is loaded only when a file is read, so that perfring
 * runs without it.  The reader itself is the library's
 * (pfr_perf_file_set_inflate()): this file only fills its hook.
 */
#include <stddef.h>
#include <string.h>

#ifdef PFR_HAVE_ZSTD
#include <dlfcn.h>
#include <zstd.h>
#endif

#include "zstd.h"

#ifdef PFR_HAVE_ZSTD
static struct {
	ZSTD_DCtx *(*create)(void);
	size_t (*free)(ZSTD_DCtx *);
	size_t (*stream)(ZSTD_DCtx *, ZSTD_outBuffer *, ZSTD_inBuffer *);
	unsigned (*is_error)(size_t);
	unsigned long long (*content_size)(const void *, size_t);
	ZSTD_DCtx *dctx; /* one file at a time */
	size_t last; /* the last call's return: 0 at a frame's end */
	int fed; /* the stream was fed since the last frame ended */
	unsigned long long frames; /* frames ended so far */
	/* the current frame's first bytes (its header) and output so far */
	unsigned char head[18];
	size_t head_len;
	unsigned long long out;
} pfr__zd;

static long pfr__zstd_inflate(void *arg, const void *in, size_t in_len,
			      size_t *in_used, void *out, size_t out_cap)
{
	ZSTD_inBuffer i = {in, in_len, 0};
	ZSTD_outBuffer o = {out, out_cap, 0};
	size_t r;

	(void)arg;
	r = pfr__zd.stream(pfr__zd.dctx, &o, &i);
	*in_used = i.pos;
	if (pfr__zd.is_error(r))
		return -1;
	if (!pfr__zd.fed) {
		pfr__zd.head_len = 0;
		pfr__zd.out = 0;
	}
	if (i.pos) {
		size_t k = sizeof(pfr__zd.head) - pfr__zd.head_len;

		k = k < i.pos ? k : i.pos;
		memcpy(pfr__zd.head + pfr__zd.head_len, in, k);
		pfr__zd.head_len += k;
		pfr__zd.fed = 1;
	}
	pfr__zd.out += o.pos;
	if (!r && pfr__zd.fed) {
		pfr__zd.frames++;
		pfr__zd.fed = 0;
	}
	pfr__zd.last = r;
	return (long)o.pos;
}

static int pfr_zstd_load(void)
{
	void *h;

	if (pfr__zd.stream)
		return 0;
	h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -1;
	*(void **)&pfr__zd.create = dlsym(h, "ZSTD_createDCtx");
	*(void **)&pfr__zd.free = dlsym(h, "ZSTD_freeDCtx");
	*(void **)&pfr__zd.stream = dlsym(h, "ZSTD_decompressStream");
	*(void **)&pfr__zd.is_error = dlsym(h, "ZSTD_isError");
	*(void **)&pfr__zd.content_size = dlsym(h, "ZSTD_getFrameContentSize");
	if (!pfr__zd.create || !pfr__zd.free || !pfr__zd.stream ||
	    !pfr__zd.is_error || !pfr__zd.content_size) {
		pfr__zd.stream = NULL;
		dlclose(h);
		return -1;
	}
	return 0; /* kept loaded for the process's lifetime */
}

int pfr__zstd_reader(struct pfr_perf_file *f, const char **why)
{
	if (pfr_zstd_load()) {
		*why = "libzstd.so.1 cannot be loaded (Debian: libzstd1)";
		return -1;
	}
	pfr__zstd_reader_free();
	pfr__zd.last = 0;
	pfr__zd.fed = 0;
	pfr__zd.frames = 0;
	pfr__zd.dctx = pfr__zd.create();
	if (!pfr__zd.dctx) {
		*why = "out of memory";
		return -1;
	}
	if (pfr_perf_file_set_inflate(f, pfr__zstd_inflate, NULL)) {
		*why = "the file was already read from";
		return -1;
	}
	return 0;
}

unsigned long long pfr__zstd_cut_frame(void)
{
	/* 0: the last frame ended; 3 (ZSTD_blockHeaderSize): a frame flushed
	 * but not ended (perf record -z and perfring's writer leave the
	 * stream so), waiting for its next block header with none of it
	 * read.  Anything else is a frame, block or skippable frame whose
	 * bytes the stream does not hold. */
	unsigned long long want;

	if (!pfr__zd.dctx || !pfr__zd.fed || !pfr__zd.last)
		return 0;
	if (pfr__zd.last != 3)
		return pfr__zd.frames + 1;
	/* at a block's end: cut there when the frame's header says how
	 * much it holds and less came out (ZSTD_CONTENTSIZE_UNKNOWN and
	 * _ERROR are the two largest values) */
	want = pfr__zd.content_size(pfr__zd.head, pfr__zd.head_len);
	if (want < ~1ULL && pfr__zd.out < want)
		return pfr__zd.frames + 1;
	return 0;
}

void pfr__zstd_reader_free(void)
{
	if (pfr__zd.dctx)
		pfr__zd.free(pfr__zd.dctx);
	pfr__zd.dctx = NULL;
}
#else
int pfr__zstd_reader(struct pfr_perf_file *f, const char **why)
{
	(void)f;
	*why = "this perfring was built without zstd.h";
	return -1;
}

unsigned long long pfr__zstd_cut_frame(void)
{
	return 0;
}

void pfr__zstd_reader_free(void)
{
}
#endif
