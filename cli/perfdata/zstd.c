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
} cli_zd;

static long cli_zstd_inflate(void *arg, const void *in, size_t in_len,
			     size_t *in_used, void *out, size_t out_cap)
{
	ZSTD_inBuffer i = {in, in_len, 0};
	ZSTD_outBuffer o = {out, out_cap, 0};
	size_t r;

	(void)arg;
	r = cli_zd.stream(cli_zd.dctx, &o, &i);
	*in_used = i.pos;
	if (cli_zd.is_error(r))
		return -1;
	if (!cli_zd.fed) {
		cli_zd.head_len = 0;
		cli_zd.out = 0;
	}
	if (i.pos) {
		size_t k = sizeof(cli_zd.head) - cli_zd.head_len;

		k = k < i.pos ? k : i.pos;
		memcpy(cli_zd.head + cli_zd.head_len, in, k);
		cli_zd.head_len += k;
		cli_zd.fed = 1;
	}
	cli_zd.out += o.pos;
	if (!r && cli_zd.fed) {
		cli_zd.frames++;
		cli_zd.fed = 0;
	}
	cli_zd.last = r;
	return (long)o.pos;
}

static int pfr_zstd_load(void)
{
	void *h;

	if (cli_zd.stream)
		return 0;
	h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -1;
	*(void **)&cli_zd.create = dlsym(h, "ZSTD_createDCtx");
	*(void **)&cli_zd.free = dlsym(h, "ZSTD_freeDCtx");
	*(void **)&cli_zd.stream = dlsym(h, "ZSTD_decompressStream");
	*(void **)&cli_zd.is_error = dlsym(h, "ZSTD_isError");
	*(void **)&cli_zd.content_size = dlsym(h, "ZSTD_getFrameContentSize");
	if (!cli_zd.create || !cli_zd.free || !cli_zd.stream ||
	    !cli_zd.is_error || !cli_zd.content_size) {
		cli_zd.stream = NULL;
		dlclose(h);
		return -1;
	}
	return 0; /* kept loaded for the process's lifetime */
}

int cli_zstd_reader(struct pfr_perf_file *f, const char **why)
{
	if (pfr_zstd_load()) {
		*why = "libzstd.so.1 cannot be loaded (Debian: libzstd1)";
		return -1;
	}
	cli_zstd_reader_free();
	cli_zd.last = 0;
	cli_zd.fed = 0;
	cli_zd.frames = 0;
	cli_zd.dctx = cli_zd.create();
	if (!cli_zd.dctx) {
		*why = "out of memory";
		return -1;
	}
	if (pfr_perf_file_set_inflate(f, cli_zstd_inflate, NULL)) {
		*why = "the file was already read from";
		return -1;
	}
	return 0;
}

unsigned long long cli_zstd_cut_frame(void)
{
	/* 0: the last frame ended; 3 (ZSTD_blockHeaderSize): a frame flushed
	 * but not ended (perf record -z and perfring's writer leave the
	 * stream so), waiting for its next block header with none of it
	 * read.  Anything else is a frame, block or skippable frame whose
	 * bytes the stream does not hold. */
	unsigned long long want;

	if (!cli_zd.dctx || !cli_zd.fed || !cli_zd.last)
		return 0;
	if (cli_zd.last != 3)
		return cli_zd.frames + 1;
	/* at a block's end: cut there when the frame's header says how
	 * much it holds and less came out (ZSTD_CONTENTSIZE_UNKNOWN and
	 * _ERROR are the two largest values) */
	want = cli_zd.content_size(cli_zd.head, cli_zd.head_len);
	if (want < ~1ULL && cli_zd.out < want)
		return cli_zd.frames + 1;
	return 0;
}

void cli_zstd_reader_free(void)
{
	if (cli_zd.dctx)
		cli_zd.free(cli_zd.dctx);
	cli_zd.dctx = NULL;
}
#else
int cli_zstd_reader(struct pfr_perf_file *f, const char **why)
{
	(void)f;
	*why = "this perfring was built without zstd.h";
	return -1;
}

unsigned long long cli_zstd_cut_frame(void)
{
	return 0;
}

void cli_zstd_reader_free(void)
{
}
#endif
