#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The perf.data library (<perfring/perfdata.h>) on recordings of this
# build's `perfring record`, against what `perfring script` prints of the
# same files:
#  - tracepoint samples: pfr_perfdata_trace_text() is script's text of
#    the fields, and pfr_perfdata_field_by_name() gives each field's value
#    and kind (fd and count unsigned, as the text shows them in hex);
#  - two compressed (record -z) files read at once, record by record in
#    turn, each give all their samples (each handle has its own zstd
#    stream: a single one shared by the process lost the first file's);
#  - a recording piped through standard input ("-") gives the samples the
#    file gives.
. "$(dirname "$0")/lib.sh"
need_perf_events
cc=${CC:-cc}
tap_plan 9

cat >"$tmp/pdcat.c" <<'EOC'
#include <perfring/perfdata.h>
#include <stdio.h>
#include <string.h>

static int opened(struct pfr_perfdata **pd, const char *p)
{
	int err = pfr_perfdata_open(pd, p, NULL);

	if (err)
		fprintf(stderr, "%s: %s\n", p, pfr_strerror(err));
	return err;
}

/* fields FILE: per tracepoint sample, the text, then fd= count= */
static int fields(const char *p)
{
	const struct pfr_perfdata_event *ev;
	struct pfr_perfdata_value fd, cnt;
	struct pfr_perfdata *pd;
	char text[512];
	int r;

	if (opened(&pd, p))
		return 1;
	while ((r = pfr_perfdata_next(pd, &ev)) == 1) {
		if (ev->type != 9)
			continue;
		if (pfr_perfdata_trace_text(pd, ev, text, sizeof(text)) < 0 ||
		    pfr_perfdata_field_by_name(pd, ev, "fd", &fd) ||
		    pfr_perfdata_field_by_name(pd, ev, "count", &cnt))
			return 2;
		printf("%s|%u %llx|%u %llx|%d\n", text, fd.kind,
		       (unsigned long long)fd.u, cnt.kind,
		       (unsigned long long)cnt.u,
		       pfr_perfdata_nr_fields(pd, ev));
	}
	pfr_perfdata_close(pd);
	return r != 0;
}

/* two A B: both read at once, a record of each in turn */
static int two(const char *a, const char *b)
{
	const struct pfr_perfdata_event *ev;
	struct pfr_perfdata *pa, *pb;
	unsigned long long na = 0, nb = 0;
	int ra = 1, rb = 1;

	if (opened(&pa, a) || opened(&pb, b))
		return 1;
	while (ra == 1 || rb == 1) {
		if (ra == 1 && (ra = pfr_perfdata_next(pa, &ev)) == 1)
			na += ev->type == 9;
		if (rb == 1 && (rb = pfr_perfdata_next(pb, &ev)) == 1)
			nb += ev->type == 9;
	}
	printf("%llu %llu\n", na, nb);
	if (ra || rb)
		fprintf(stderr, "%s: %s; %s: %s\n", a, pfr_strerror(ra), b,
			pfr_strerror(rb));
	pfr_perfdata_close(pa);
	pfr_perfdata_close(pb);
	return ra || rb;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "fields"))
		return fields(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "two"))
		return two(argv[2], argv[3]);
	return 2;
}
EOC
$cc -std=gnu11 -Wall -Werror ${SANITIZE:+-fsanitize=$SANITIZE} \
	-I"$top/include" -o "$tmp/pdcat" "$tmp/pdcat.c" -L"$build" \
	-lperfring-perfdata -lperfring >"$tmp/log" 2>&1
ok $? "a reader builds against this build's libperfring-perfdata" "$tmp/log"
export LD_LIBRARY_PATH=$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# 1. Tracepoint fields.
"$P" record -e syscalls:sys_enter_write -o "$tmp/tp.data" -- sh -c \
	'for i in 1 2 3 4 5 6 7 8; do echo hello$i; done >/dev/null' \
	>"$tmp/log" 2>&1
ok $? "perfring record -e syscalls:sys_enter_write" "$tmp/log"
"$P" script -i "$tmp/tp.data" -F trace 2>"$tmp/log" >"$tmp/tp.script"
"$tmp/pdcat" fields "$tmp/tp.data" >"$tmp/tp.lib" 2>>"$tmp/log"
cut -d'|' -f1 "$tmp/tp.lib" >"$tmp/tp.text"
n=$(wc -l <"$tmp/tp.text")
[ "$n" -ge 8 ] && cmp -s "$tmp/tp.script" "$tmp/tp.text"
ok $? "trace_text() is perfring script -F trace's text ($n samples)" "$tmp/log"
diff "$tmp/tp.script" "$tmp/tp.text" | head -n 10 | diag
# each line: "fd: 0x%08x, buf: ..., count: 0x%08x|KIND FD|KIND COUNT|N"
bad=$(awk -F'|' '{
	split($1, w, /[:,] */)
	fd = w[2]; cnt = w[6]; sub(/^0x0*/, "", fd); sub(/^0x0*/, "", cnt)
	if (fd == "") fd = "0"; if (cnt == "") cnt = "0"
	split($2, a, " "); split($3, b, " ")
	if (a[1] != 2 || b[1] != 2 || a[2] != fd || b[2] != cnt || $4 < 4)
		print NR": "$0
}' "$tmp/tp.lib" | head -n 3)
[ -s "$tmp/tp.lib" ] && [ -z "$bad" ]
ok $? "field_by_name(): fd and count unsigned, the text's values${bad:+ (bad: $bad)}"

# 2. Two compressed files at once.
build_spin
for f in z1 z2; do
	"$P" record -z -F 2000 -o "$tmp/$f.data" -- "$tmp/spin" 0.2 \
		>"$tmp/log" 2>&1 || break
done
ok $? "perfring record -z, twice" "$tmp/log"
want="$("$P" script -i "$tmp/z1.data" | grep -c ' cpu-clock: ') $("$P" script -i "$tmp/z2.data" | grep -c ' cpu-clock: ')"
got=$("$tmp/pdcat" two "$tmp/z1.data" "$tmp/z2.data" 2>"$tmp/log")
rc=$?
[ $rc -eq 0 ] && [ "$got" = "$want" ] && [ "${want% *}" -gt 0 ]
ok $? "two -z files read at once: $got samples (script: $want)" "$tmp/log"

# 3. Standard input.
cat "$tmp/z1.data" | "$tmp/pdcat" two - "$tmp/z2.data" >"$tmp/out" 2>"$tmp/log"
[ $? -eq 0 ] && [ "$(cat "$tmp/out")" = "$want" ]
ok $? "a -z file piped to standard input (\"-\"): $(cat "$tmp/out") samples" "$tmp/log"
"$P" record -F 2000 -o - -- "$tmp/spin" 0.2 2>"$tmp/log" >"$tmp/pipe.data"
ok $? "perfring record -o - (perf's pipe format)" "$tmp/log"
want=$("$P" script -i "$tmp/pipe.data" | grep -c ' cpu-clock: ')
got=$(cat "$tmp/pipe.data" | "$tmp/pdcat" two - "$tmp/pipe.data" 2>"$tmp/log")
[ "$got" = "$want $want" ] && [ "$want" -gt 0 ]
ok $? "the pipe format piped to standard input and as a file: $got samples (script: $want)" "$tmp/log"

tap_done
