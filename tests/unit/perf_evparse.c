/* SPDX-License-Identifier: MIT */
/*
 * perf's event grammar in pfr_perf_event_list_parse() and its cpu lists in
 * pfr_perf_cpu_list(), without perf privileges (no event is opened): each
 * spelling against the attr perf itself builds for it (perf evlist -v),
 * and the malformed ones against their errors.
 */
#include <linux/perf_event.h>
#include <string.h>

#include <perfring/perf.h>

#include "../tap.h"

#define MAXEV 8

static struct perf_event_attr at[MAXEV];
static struct pfr_perf_evinfo in[MAXEV];

static int parse(const char *list, uint32_t *n)
{
	*n = 0;
	memset(at, 0, sizeof(at));
	memset(in, 0, sizeof(in));
	return pfr_perf_event_list_parse(list, at, in, MAXEV, n, 0);
}

static void lists(void)
{
	uint32_t n;

	is_int(parse("cpu-clock", &n), 0, "cpu-clock");
	ok(n == 1 && at[0].type == PERF_TYPE_SOFTWARE &&
		   at[0].config == PERF_COUNT_SW_CPU_CLOCK &&
		   at[0].exclude_guest && !at[0].exclude_kernel &&
		   in[0].leader == 0 && in[0].nr_members == 1 &&
		   !strcmp(in[0].name, "cpu-clock"),
	   "cpu-clock: software 0, exclude_guest as perf sets it, alone");
	is_int(parse("page-faults,cs,cpu-clock", &n), 0, "a, b, c");
	ok(n == 3 && at[1].config == PERF_COUNT_SW_CONTEXT_SWITCHES &&
		   in[2].leader == 2 && !strcmp(in[1].name, "cs"),
	   "three events, each its own leader");
	is_int(parse("{cpu-clock,page-faults}:u,task-clock", &n), 0,
	       "{a,b}:u,c");
	ok(n == 3 && in[0].nr_members == 2 && in[1].leader == 0 &&
		   in[1].nr_members == 0 && in[2].leader == 2 &&
		   in[2].nr_members == 1,
	   "the group is events 0-1, led by 0; event 2 alone");
	ok(at[0].exclude_kernel && at[0].exclude_hv && !at[0].exclude_user &&
		   at[1].exclude_kernel && at[1].exclude_hv &&
		   at[0].exclude_guest && !at[2].exclude_kernel,
	   ":u after the group applies to both members only");
	is_int(parse("cpu-clock:k", &n), 0, ":k");
	ok(at[0].exclude_user && at[0].exclude_hv && !at[0].exclude_kernel &&
		   !at[0].exclude_guest,
	   ":k excludes user and hv, not the guest (as perf)");
	is_int(parse("cpu-clock:ppp", &n), 0, ":ppp");
	ok(at[0].precise_ip == 3 && at[0].exclude_guest, ":ppp: precise_ip 3");
	is_int(parse("cpu-clock:G", &n), 0, ":G");
	ok(at[0].exclude_host && !at[0].exclude_guest, ":G: the guest only");
	is_int(parse("cpu-clock:pppp", &n), -PFR_PERF_E_UNKNOWN_EVENT,
	       ":pppp refused");
	is_int(parse("cpu-clock:x", &n), -PFR_PERF_E_UNKNOWN_EVENT,
	       ":x refused");
	is_int(parse("cpu-clock/period=1234/", &n), 0, "ev/period=N/");
	ok(at[0].sample_period == 1234 && !at[0].freq &&
		   (in[0].terms & PFR_PERF_TERM_PERIOD) &&
		   !strcmp(in[0].name, "cpu-clock/period=1234/"),
	   "period=1234 kept, name as written");
	is_int(parse("task-clock/freq=500,name=tc,call-graph=fp/:u", &n), 0,
	       "ev/freq=N,name=S,call-graph=fp/:u");
	ok(at[0].freq && at[0].sample_freq == 500 &&
		   (in[0].terms & PFR_PERF_TERM_CALLGRAPH_FP) &&
		   !strcmp(in[0].name, "tc") && at[0].exclude_kernel,
	   "freq, name, call graph and modifier");
	is_int(parse("cpu-clock/no-inherit/", &n), 0, "no-inherit term");
	ok(in[0].terms & PFR_PERF_TERM_NO_INHERIT, "no-inherit noted");
	is_int(parse("cpu-clock/bogus=1/", &n), -PFR_PERF_E_EVENT_SYNTAX,
	       "unknown term refused");
	is_int(parse("cpu-clock/period=/", &n), -PFR_PERF_E_EVENT_SYNTAX,
	       "empty period refused");
	/* term values as perf's event parser reads them: decimal, or hex
	 * after 0x; a leading 0 is not octal */
	is_int(parse("cpu-clock/period=010/", &n), 0, "period=010");
	ok(at[0].sample_period == 10, "period=010 is 10, not 8 (got %llu)",
	   (unsigned long long)at[0].sample_period);
	is_int(parse("cpu-clock/period=0x10/", &n), 0, "period=0x10");
	ok(at[0].sample_period == 16, "period=0x10 is 16 (got %llu)",
	   (unsigned long long)at[0].sample_period);
	is_int(parse("cpu-clock/period=0x/", &n), -PFR_PERF_E_EVENT_SYNTAX,
	       "period=0x refused");
	is_int(parse("cpu-clock/period=+5/", &n), -PFR_PERF_E_EVENT_SYNTAX,
	       "period=+5 refused");
	is_int(parse("cpu-clock/period=08/", &n), 0, "period=08 (not octal)");
	ok(at[0].sample_period == 8, "period=08 is 8 (got %llu)",
	   (unsigned long long)at[0].sample_period);
	is_int(parse("r1a8:u", &n), 0, "raw rHEX:u");
	ok(at[0].type == PERF_TYPE_RAW && at[0].config == 0x1a8 &&
		   at[0].exclude_kernel,
	   "raw 0x1a8, user only");
	is_int(parse("{cpu-clock", &n), -PFR_PERF_E_EVENT_SYNTAX,
	       "unclosed group");
	is_int(parse("cpu-clock,", &n), -PFR_PERF_E_EVENT_SYNTAX,
	       "trailing comma");
	is_int(parse("{}", &n), -PFR_PERF_E_EVENT_SYNTAX, "empty group");
	is_int(parse("{cs,{cs}}", &n), -PFR_PERF_E_EVENT_SYNTAX,
	       "nested group");
	is_int(parse("no-such-event", &n), -PFR_PERF_E_UNKNOWN_EVENT,
	       "unknown event");
	n = 0;
	ok(pfr_perf_event_list_parse("cs,cs,cs", at, in, 2, &n, 0) ==
			   -PFR_PERF_E_TOO_MANY &&
		   n == 0,
	   "more events than room: TOO_MANY, *nr unchanged");
	/* pfr_perf_event_parse is for one event */
	is_int(pfr_perf_event_parse("cs,cs", &at[0], NULL, 0, 0),
	       -PFR_PERF_E_EVENT_SYNTAX, "a list is not one event");
}

static void cpus(void)
{
	int c[16];

	is_int(pfr_perf_cpu_list("0-3,8,10-11", c, 16), 7, "0-3,8,10-11");
	ok(c[0] == 0 && c[3] == 3 && c[4] == 8 && c[6] == 11, "in order");
	is_int(pfr_perf_cpu_list("2,2,1-2", c, 16), 2, "duplicates once");
	is_int(pfr_perf_cpu_list("3-1", c, 16), -PFR_E_INVAL, "3-1 refused");
	is_int(pfr_perf_cpu_list("a", c, 16), -PFR_E_INVAL, "a refused");
	is_int(pfr_perf_cpu_list("1,", c, 16), -PFR_E_INVAL, "1, refused");
	is_int(pfr_perf_cpu_list("", c, 16), -PFR_E_INVAL, "empty refused");
	is_int(pfr_perf_cpu_list("0-20", c, 16), -PFR_PERF_E_TOO_MANY,
	       "more than the array: TOO_MANY");
}

int main(void)
{
	lists();
	cpus();
	return tap_done();
}
