/* SPDX-License-Identifier: MIT */
/*
 * perfring script reads perf record -z files (PERF_RECORD_COMPRESSED, one
 * zstd stream for the whole file) with Debian's libzstd, as perf script
 * does; the library is loaded only when a file is read, so that perfring
 * runs without it.  The reader itself is the library's
 * (pfr_perf_file_set_inflate()): this file only fills its hook.
 */
#include <stddef.h>

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
	ZSTD_DCtx *dctx; /* one file at a time */
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
	return cli_zd.is_error(r) ? -1 : (long)o.pos;
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
	if (!cli_zd.create || !cli_zd.free || !cli_zd.stream ||
	    !cli_zd.is_error) {
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

void cli_zstd_reader_free(void)
{
}
#endif
