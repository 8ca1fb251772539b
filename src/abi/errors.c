/* SPDX-License-Identifier: MIT */
/*
 * One error space: the ring's codes (PFR_E_*, <perfring/ring.h>) take
 * 1..99 and the kernel perf reader's (PFR_PERF_E_*, <perfring/perf.h>)
 * 100..199, so that a function of either header returns a code that
 * pfr_strerror() names.  A test (tests/harden/t_harden_errors.sh) checks
 * that every code the installed headers declare has a name of its own.
 */
#include <perfring/perf.h>
#include <perfring/ring.h>

_Static_assert((int)PFR_E__COUNT <= (int)PFR_PERF_E_BASE,
	       "the ring's codes stay below the perf codes");
_Static_assert(PFR_PERF_E_BASE == 100 && PFR_PERF_E__END <= 200,
	       "the perf codes stay in 100..199");

static const char *const pfr_errors[PFR_E__COUNT] = {
	[PFR_OK] = "success",
	[PFR_E_AGAIN] = "nothing to do now, try again",
	[PFR_E_NOSPC] = "ring full: record dropped and counted",
	[PFR_E_TIMEDOUT] = "timed out",
	[PFR_E_INVAL] = "invalid argument",
	[PFR_E_HEAD_AHEAD] = "shared head is more than a ring ahead of tail",
	[PFR_E_HEAD_BEHIND] = "shared head is behind the reader's tail",
	[PFR_E_RECSIZE_ZERO] = "record header with size 0",
	[PFR_E_RECSIZE_ALIGN] = "record size or position not a multiple of 8",
	[PFR_E_RECSIZE_SHORT] = "record too short for its type",
	[PFR_E_RECSIZE_PAST_HEAD] = "record extends past head",
	[PFR_E_MAGIC] = "not a perfring ring (bad magic number)",
	[PFR_E_VERSION] = "ring made by another perfring layout version",
	[PFR_E_LAYOUT] = "ring control block has inconsistent sizes",
	[PFR_E_MAPPING] = "shared object smaller than the ring it describes",
	[PFR_E_OVERWRITTEN] = "everything was overwritten during the snapshot",
	[PFR_E_SYSTEM] = "system call failed",
	[PFR_E_BUSY] = "role already taken",
	[PFR_E_TOOBIG] = "ring larger than the attach limit",
	[PFR_E_FULL] = "no free writer slot in the group",
	[PFR_E_STALLED] = "a live producer has held a reserved record past "
			  "the stall time-out",
	[PFR_E_CLOSED] = "the ring's other side closed or died",
};

static const char *const pfr_perf_errors[] = {
	[PFR_PERF_E_UNKNOWN_EVENT - PFR_PERF_E_BASE] = "unknown event",
	[PFR_PERF_E_NO_TRACEFS - PFR_PERF_E_BASE] = "tracefs is not mounted",
	[PFR_PERF_E_NO_TRACEPOINT - PFR_PERF_E_BASE] = "no such tracepoint",
	[PFR_PERF_E_SAMPLE_TYPE - PFR_PERF_E_BASE] =
		"sample_type has fields this decoder does not support",
	[PFR_PERF_E_TRUNCATED - PFR_PERF_E_BASE] =
		"a field runs past the end of its record",
	[PFR_PERF_E_STRING - PFR_PERF_E_BASE] =
		"a string is not terminated inside its record",
	[PFR_PERF_E_FILE_MAGIC - PFR_PERF_E_BASE] =
		"not a perf.data file (bad magic, or another byte order)",
	[PFR_PERF_E_FILE_LAYOUT - PFR_PERF_E_BASE] =
		"perf.data header or section out of bounds",
	[PFR_PERF_E_EVENT_SYNTAX - PFR_PERF_E_BASE] =
		"malformed event list (groups, /terms/ or modifiers)",
	[PFR_PERF_E_TOO_MANY - PFR_PERF_E_BASE] =
		"more events or CPUs than the array holds",
	[PFR_PERF_E_CPU - PFR_PERF_E_BASE] = "a CPU that is not online",
	[PFR_PERF_E_NO_PROCESS - PFR_PERF_E_BASE] = "no such process",
	[PFR_PERF_E_OPEN - PFR_PERF_E_BASE] =
		"perf_event_open refused an event",
	[PFR_PERF_E_FILTER - PFR_PERF_E_BASE] =
		"the kernel refused a tracepoint filter",
	[PFR_PERF_E_MMAP - PFR_PERF_E_BASE] = "cannot map a perf ring",
	[PFR_PERF_E_EXEC - PFR_PERF_E_BASE] = "cannot execute the command",
	[PFR_PERF_E_COMPRESSED - PFR_PERF_E_BASE] =
		"compressed records (perf record -z) and no decompressor",
};

const char *pfr_strerror(int err)
{
	/* The magnitude in unsigned arithmetic: -INT_MIN does not fit an
	 * int. */
	unsigned int e = err < 0 ? 0u - (unsigned int)err : (unsigned int)err;

	if (e < PFR_E__COUNT && pfr_errors[e])
		return pfr_errors[e];
	if (e >= PFR_PERF_E_BASE && e < PFR_PERF_E__END &&
	    pfr_perf_errors[e - PFR_PERF_E_BASE])
		return pfr_perf_errors[e - PFR_PERF_E_BASE];
	return "unknown perfring error";
}
