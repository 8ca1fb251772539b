/* SPDX-License-Identifier: MIT */
/*
 * perf's option grammar (its parse-options), the one parser of both perf
 * commands (record and script), each with its own table:
 *
 *   -o F  -oF  --output F  --output=F    a value, attached or the next word
 *   -ag  -aqo F  -aqoF                   short options bundled; one taking
 *                                        a value ends the bundle
 *   --out                                any unambiguous prefix of a long
 *                                        name (an ambiguous one is refused
 *                                        with its candidates named)
 *   --no-NAME, --NAME for a no-NAME      perf's negation (exact or prefix)
 *   -z  -z3  --switch-output[=X]         an optional value: attached or
 *                                        after '=' only, never the next word
 *   --                                   ends the options
 *
 * The first word that is not an option (or "-" alone) ends them too, as
 * perf's PARSE_OPT_STOP_AT_NON_OPTION.  The commands' own helpers, not the
 * library's.
 */
#ifndef PFR_CLI_PERFOPT_H
#define PFR_CLI_PERFOPT_H

#include <stddef.h>

/* How an option takes its value (struct cli_perfopt's arg). */
#define CLI_PERFOPT_FLAG 0 /* none */
#define CLI_PERFOPT_VALUE 1 /* required: attached, after '=', next word */
#define CLI_PERFOPT_OPTVAL 2 /* optional: attached or after '=' only */

/* One option of a command's table.  tools/cli-options.py reads the tables
 * in this shape ({'x', "long", arg, ID, why}), one entry a line. */
struct cli_perfopt {
	char s; /* short name, or 0 */
	const char *l; /* long name, or NULL */
	int arg; /* CLI_PERFOPT_* */
	int id; /* the command's own */
	const char *why; /* the command's own (what to use instead) */
};

/* The command's side of the parse. */
struct cli_perfopt_cmd {
	const char *name; /* "record": the messages' "perfring record: " */
	const struct cli_perfopt *opts;
	size_t nopts;
	/* Option o given with value v (NULL: none), as the user spelled it
	 * (spelled: "-o", "--out=x.data").  0, or the status to stop with. */
	int (*apply)(void *arg, const struct cli_perfopt *o, const char *v,
		     const char *spelled);
	/* perf's negation of o: its default back, or a refusal.  0, or the
	 * status to stop with. */
	int (*negate)(void *arg, const struct cli_perfopt *o,
		      const char *spelled);
	void *arg;
};

/*
 * cli_perfopt_parse() - parse argv[1..argc) in perf's option grammar
 * @c:        the command's table and callbacks
 * @argc:     the number of words
 * @argv:     the words; argv[0] is the command's name
 * @rest:     out: the index of the first word after the options (argc
 *            when none)
 * @dashdash: out: 1 when "--" ended the options (*rest is after it)
 *
 * Calls c->apply or c->negate for each option in order.  An unknown, an
 * ambiguous, or a misused option (a missing value, a value for a flag) is
 * a usage error: its one-line message on stderr ("perfring NAME: ..."),
 * status 2.
 *
 * Return: 0, or the first non-zero status (a usage error's or a
 * callback's).
 * Concurrency: none of its own; the table is read only.
 * Progress: bounded by argc times the table's size.
 */
int cli_perfopt_parse(const struct cli_perfopt_cmd *c, int argc, char **argv,
		      int *rest, int *dashdash);

#endif
