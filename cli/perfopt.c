/* SPDX-License-Identifier: MIT */
/*
 * perf's option grammar, shared by perfring record and perfring script:
 * see perfopt.h.  The lookups follow perf's parse-options: an exact long
 * name first, then an exact negation (--no-NAME, or --NAME of an option
 * named no-NAME), then an unambiguous prefix of a name, then an
 * unambiguous prefix of a negation.
 */
#include <stdio.h>
#include <string.h>

#include "perfopt.h"
#include "../util/util.h"

/* A lookup's result: the option, whether it is negated, and how many
 * options matched (more than one: ambiguous). */
struct po_hit {
	const struct cli_perfopt *o;
	int neg, n;
};

/* The option named exactly name[0..len), or NULL. */
static const struct cli_perfopt *po_exact(const struct cli_perfopt_cmd *c,
					  const char *name, size_t len)
{
	for (size_t k = 0; k < c->nopts; k++)
		if (c->opts[k].l && strlen(c->opts[k].l) == len &&
		    !strncmp(c->opts[k].l, name, len))
			return &c->opts[k];
	return NULL;
}

/* Whether name[0..len) is a prefix of long name l (of its negation when
 * neg: --no-PREFIX, or --PREFIX for an option named no-NAME). */
static int po_match(const char *l, const char *name, size_t len, int neg)
{
	if (!l)
		return 0;
	if (!neg)
		return !strncmp(l, name, len);
	if (len >= 3 && !strncmp(name, "no-", 3))
		return !strncmp(l, name + 3, len - 3);
	return !strncmp(l, "no-", 3) && !strncmp(l + 3, name, len);
}

/* The options name[0..len) is a prefix of (of their negation when neg):
 * the last in h->o, their number in h->n. */
static void po_prefix(const struct cli_perfopt_cmd *c, const char *name,
		      size_t len, int neg, struct po_hit *h)
{
	h->o = NULL;
	h->n = 0;
	h->neg = neg;
	for (size_t k = 0; k < c->nopts; k++)
		if (po_match(c->opts[k].l, name, len, neg)) {
			h->o = &c->opts[k];
			h->n++;
		}
}

/* The exact negation of name[0..len): --no-NAME, or --NAME for an option
 * named no-NAME; NULL when none. */
static const struct cli_perfopt *po_negated(const struct cli_perfopt_cmd *c,
					    const char *name, size_t len)
{
	const struct cli_perfopt *o = NULL;
	char buf[80];

	if (len > 3 && !strncmp(name, "no-", 3))
		o = po_exact(c, name + 3, len - 3);
	if (o || len + 4 > sizeof(buf))
		return o;
	snprintf(buf, sizeof(buf), "no-%.*s", (int)len, name);
	return po_exact(c, buf, len + 3);
}

/* The usage error for an ambiguous name[0..len), its candidates named as
 * perf does ("could be --stat or --stream"). */
static int po_ambiguous(const struct cli_perfopt_cmd *c, const char *name,
			size_t len, int neg)
{
	char list[320];
	size_t at = 0;
	struct po_hit h;
	int left;

	po_prefix(c, name, len, neg, &h);
	left = h.n;
	list[0] = 0;
	for (size_t k = 0; k < c->nopts && at < sizeof(list) - 1; k++) {
		const char *l = c->opts[k].l;
		int w;

		if (!po_match(l, name, len, neg))
			continue;
		left--;
		w = snprintf(list + at, sizeof(list) - at, "%s--%s%s",
			     at ? (left ? ", " : " or ") : "",
			     neg && strncmp(l, "no-", 3) ? "no-" : "",
			     neg && !strncmp(l, "no-", 3) ? l + 3 : l);
		at += w > 0 ? (size_t)w : 0;
	}
	return util_usage_error(c->name,
				"ambiguous option '--%.*s' (could be %s)",
				(int)len, name, list);
}

/* The long option word a (after "--"), with the next words argv[*i + 1..)
 * for its value.  0, or the status to stop with. */
static int po_long(const struct cli_perfopt_cmd *c, int argc, char **argv,
		   int *i)
{
	const char *a = argv[*i], *name = a + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct cli_perfopt *o = po_exact(c, name, len);
	const struct cli_perfopt *neg = o ? NULL : po_negated(c, name, len);
	struct po_hit h = {NULL, 0, 0};
	const char *v = NULL;

	if (!o && !neg && len) {
		po_prefix(c, name, len, 0, &h);
		if (h.n > 1)
			return po_ambiguous(c, name, len, 0);
		o = h.o;
	}
	if (!o && !neg && len) {
		po_prefix(c, name, len, 1, &h);
		if (h.n > 1)
			return po_ambiguous(c, name, len, 1);
		neg = h.o;
	}
	if (neg) {
		if (eq)
			return util_usage_error(
				c->name, "option '--%.*s' takes no value",
				(int)len, name);
		return c->negate(c->arg, neg, a);
	}
	if (!o)
		return util_usage_error(c->name, "unknown option '--%.*s'",
					(int)len, name);
	if (eq && o->arg == CLI_PERFOPT_FLAG)
		return util_usage_error(c->name, "option '--%s' takes no value",
					o->l);
	if (eq)
		v = eq + 1;
	else if (o->arg == CLI_PERFOPT_VALUE && *i + 1 < argc)
		v = argv[++*i];
	else if (o->arg == CLI_PERFOPT_VALUE)
		return util_usage_error(c->name, "option '%s' needs a value",
					a);
	return c->apply(c->arg, o, v, a);
}

/* The bundle of short options argv[*i]; one taking a value ends it.  0,
 * or the status to stop with. */
static int po_short(const struct cli_perfopt_cmd *c, int argc, char **argv,
		    int *i)
{
	const char *a = argv[*i];

	for (int j = 1; a[j]; j++) {
		char sp[3] = {'-', a[j], 0};
		const struct cli_perfopt *o = NULL;
		const char *v = NULL;
		int rc;

		for (size_t k = 0; k < c->nopts && !o; k++)
			if (c->opts[k].s == a[j])
				o = &c->opts[k];
		if (!o)
			return util_usage_error(c->name, "unknown option '%s'",
						sp);
		if (o->arg != CLI_PERFOPT_FLAG && a[j + 1]) {
			v = a + j + 1;
		} else if (o->arg == CLI_PERFOPT_VALUE) {
			if (*i + 1 >= argc)
				return util_usage_error(
					c->name, "option '%s' needs a value",
					sp);
			v = argv[++*i];
		}
		if ((rc = c->apply(c->arg, o, v, sp)))
			return rc;
		if (v)
			break;
	}
	return 0;
}

int cli_perfopt_parse(const struct cli_perfopt_cmd *c, int argc, char **argv,
		      int *rest, int *dashdash)
{
	int i, rc;

	*dashdash = 0;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			*dashdash = 1;
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break; /* the first word that is no option */
		rc = a[1] == '-' ? po_long(c, argc, argv, &i)
				 : po_short(c, argc, argv, &i);
		if (rc)
			return rc;
	}
	*rest = i;
	return 0;
}
