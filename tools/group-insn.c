// SPDX-License-Identifier: MIT
/*
 * The group reader's instructions per record, for tools/group-insn.sh
 * (callgrind): one thread, 4 writers joined to a 4-slot group, 32 records
 * of 8 bytes per writer between drains, 20 000 drains, by
 * pfr_group_drain() or (argument "consume") pfr_group_consume().  Nothing
 * waits, so the count does not depend on placement.
 *   group-insn [consume]
 */
#include <stdio.h>
#include <string.h>

#include <perfring/group.h>

#define WRITERS 4
#define PER_DRAIN 32
#define DRAINS 20000

static int take(void *arg, const struct pfr_group_rec *r)
{
	*(uint64_t *)arg += r->len;
	return 0;
}

int main(int argc, char **argv)
{
	struct pfr_group_opts o;
	struct pfr_group *g;
	struct pfr_writer w[WRITERS];
	uint64_t bytes = 0, n = 0;
	int consume = argc > 1 && !strcmp(argv[1], "consume");

	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.slots = WRITERS;
	o.data_size = 65536;
	o.policy = PFR_POLICY_DROP;
	if (pfr_group_create(&g, &o) || pfr_group_reader_open(g, 0, NULL, NULL))
		return 1;
	for (int i = 0; i < WRITERS; i++)
		if (pfr_group_join(g, &w[i], (uint64_t)i) < 0)
			return 1;
	for (int d = 0; d < DRAINS; d++) {
		for (int i = 0; i < WRITERS; i++)
			for (int j = 0; j < PER_DRAIN; j++, n++)
				if (pfr_writer_write(&w[i], 1, &n, 8))
					return 1;
		if ((consume ? pfr_group_consume(g, take, &bytes, 0)
			     : pfr_group_drain(g, take, &bytes, 0)) < 0)
			return 1;
	}
	printf("%llu records, %llu bytes read\n", (unsigned long long)n,
	       (unsigned long long)bytes);
	return bytes == 8 * n ? 0 : 1;
}
