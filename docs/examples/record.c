/* SPDX-License-Identifier: MIT */
#include <linux/perf_event.h>
#include <perfring/perf.h>
#include <stdio.h>

static int on_record(void *out, const struct pfr_perf_session_rec *r)
{
	struct pfr_perf_rec d;

	if (r->hdr->type == PERF_RECORD_SAMPLE &&
	    !pfr_perf_decode(r->lay, r->hdr, r->payload, r->len, &d))
		fprintf(out, "sample %u/%u %llu %#llx\n", d.pid, d.tid,
			(unsigned long long)d.time, (unsigned long long)d.ip);
	return 0;
}

int main(int argc, char **argv)
{
	struct pfr_perf_session_opts o = {sizeof(o), .on_record = on_record,
					  .arg = stdout};
	struct pfr_perf_session *s = NULL;
	int err = argc < 2 ? -PFR_E_INVAL : pfr_perf_session_create(&s, &o);

	if (!err && !(err = pfr_perf_session_start_command(s, argv + 1)) &&
	    !(err = pfr_perf_session_open(s)) &&
	    !(err = pfr_perf_session_enable(s)))
		err = pfr_perf_session_run(s);
	pfr_perf_session_destroy(s);
	return err ? fprintf(stderr, "%s\n", pfr_perf_strerror(err)), 1 : 0;
}
