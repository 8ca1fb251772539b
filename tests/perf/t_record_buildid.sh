#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build ids as perf records them, checked against Debian's perf on one
# workload (a program, a library it spends time in, a library only on its
# call chains and one it links but never calls):
#  - HEADER_BUILD_ID: `perf buildid-list` on perfring's file lists exactly
#    the DSOs a sample's ip fell in (as perf script sees them) and [vdso],
#    each with the id perf lists; with --buildid-all the same list as perf
#    --buildid-all (every DSO mapped), a superset of the default; -B none;
#  - the build-id cache: the tree perfring record writes under
#    --buildid-dir is the one perf writes (paths, link targets, modes,
#    sizes but the kallsyms copy's); -N writes none; PERF_BUILDID_DIR and
#    $HOME/.debug are used when no --buildid-dir is given; an unwritable
#    cache is a warning and the recording stands;
#  - perfring script resolves a rebuilt and a moved program through the
#    cache to the symbols perf script prints.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null 2>&1 || skip_all "perf(1) is not installed"
cd "$tmp" || exit 1
# nothing of this test may reach the user's own cache
export HOME=$tmp/home
unset PERF_BUILDID_DIR
mkdir -p "$HOME"

# CPU-time bound spins, so that each part gets samples on a busy machine.
cat >spin.h <<'EOC'
#include <time.h>
static inline double pfr_cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
EOC
cat >bw.c <<'EOC'
#include "spin.h"
volatile unsigned long sink;
double libwork(double secs);
void run_cb(void (*f)(double), double secs);
void unused_fn(void);
#ifdef REBUILT /* moves mainwork: the old addresses fall elsewhere */
__attribute__((noinline)) void other(double secs)
{
	double t0 = pfr_cpu_s();

	while (pfr_cpu_s() - t0 < secs)
		for (int i = 0; i < 3000; i++)
			sink += i * 3;
}
#endif
__attribute__((noinline)) void mainwork(double secs)
{
	double t0 = pfr_cpu_s();

	while (pfr_cpu_s() - t0 < secs)
		for (int i = 0; i < 100000; i++)
			sink += i;
}
int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 5)
		unused_fn(); /* never: libunused.so is mapped, not run */
	run_cb(mainwork, 0.15);
	libwork(0.1);
	return 0;
}
EOC
cat >bwlib.c <<'EOC'
#include "spin.h"
volatile unsigned long lsink;
double libwork(double secs)
{
	double t0 = pfr_cpu_s();

	while (pfr_cpu_s() - t0 < secs)
		for (int i = 0; i < 100000; i++)
			lsink += i;
	return (double)lsink;
}
EOC
cat >cb.c <<'EOC'
volatile int cb_after;
void run_cb(void (*f)(double), double secs)
{
	f(secs);
	cb_after++; /* not a tail call: run_cb stays on the chain */
}
EOC
echo 'void unused_fn(void) {}' >unused.c
FP=(-O1 -g -fno-omit-frame-pointer -Wl,--build-id)
cc "${FP[@]}" -shared -fPIC -o libbw.so bwlib.c &&
	cc "${FP[@]}" -shared -fPIC -o libcb.so cb.c &&
	cc "${FP[@]}" -shared -fPIC -o libunused.so unused.c &&
	cc "${FP[@]}" -o bw bw.c -L. -Wl,--no-as-needed -lbw -lcb -lunused \
		-Wl,-rpath,"$tmp" ||
	{
		fail "the workload builds"
		tap_done
	}

ids() { # ids FILE: its "id path" lines, sorted
	perf buildid-list -i "$1" 2>/dev/null | sort
}

# --- HEADER_BUILD_ID ---
$P record -q -g --buildid-dir "$tmp/rc" -o pfr.data ./bw 2>rec.err
ok $? "perfring record -g ./bw" rec.err
perf --buildid-dir "$tmp/pc" record -q -g -o perf.data ./bw \
	>/dev/null 2>&1
perf --buildid-dir "$tmp/pca" record -q --buildid-all -o perf-all.data ./bw \
	>/dev/null 2>&1
$P record -q --buildid-all --buildid-dir "$tmp/rca" -o pfr-all.data ./bw \
	2>rec.err
ok $? "perfring record --buildid-all ./bw" rec.err
ids pfr.data >pfr.ids
ids perf-all.data >perf-all.ids
ids pfr-all.data >pfr-all.ids
# perf's rule (perf 6.1): a DSO is listed when a sample's ip is in it
# (not for being on a call chain), [vdso] whenever it is mapped.
perf script -G -F ip,dso -i pfr.data 2>/dev/null |
	sed -n 's/^.*(\(.*\)) *$/\1/p' | grep -vx unknown | sort -u >hit
{
	cat hit
	echo '[vdso]'
} | sort -u >want
awk '{ print $2 }' pfr.ids | sort >got
diff want got >hit.diff
ok $? "buildid-list on perfring's file: the DSOs samples hit, and [vdso] ($(wc -l <got) listed)" hit.diff
[ -s got ] && { grep -q 'libcb\.so' hit || ! grep -q 'libcb\.so' got; }
ok $? "a DSO only on the call chains is not listed (as perf)"
# each id is the one perf lists for that path
join -1 2 -2 2 <(sort -k2 pfr.ids) <(sort -k2 perf-all.ids) |
	awk '$2 != $3' >idmis
ok $([ ! -s idmis ] && [ -s pfr.ids ]; echo $?) "every id listed is perf's for that path" idmis
diff perf-all.ids pfr-all.ids >all.diff
ok $? "--buildid-all: the list perf --buildid-all gives ($(wc -l <pfr-all.ids) entries)" all.diff
comm -23 pfr.ids pfr-all.ids >notsub
ok $([ ! -s notsub ] && grep -q '/libunused\.so$' pfr-all.ids &&
	! grep -q '/libunused\.so$' pfr.ids; echo $?) \
	"--buildid-all lists a superset of the default, libunused.so (never run) only there" notsub
# -a: the same rule over every process (a file whose id cannot be read,
# deleted or without one, is listed by neither), and perf's ids.
./bw >/dev/null 2>&1 &
$P record -q -a --buildid-dir "$tmp/rcA" -o pfr-a.data -- sleep 0.5 \
	2>rec.err
ok $? "perfring record -a" rec.err
perf --buildid-dir "$tmp/pcA" record -q -a -o perf-a.data -- sleep 0.5 \
	>/dev/null 2>&1
wait
perf script -G -F ip,dso -i pfr-a.data 2>/dev/null |
	sed -n 's/^ *[0-9a-f]* (\(.*\)) *$/\1/p' | grep -vx unknown |
	sort -u >hit-a
{
	cat hit-a
	echo '[vdso]'
} | sort -u >want-a
ids pfr-a.data >pfr-a.ids
awk '{ print $2 }' pfr-a.ids | sort >got-a
comm -13 want-a got-a >extra-a
comm -23 want-a got-a | while read -r f; do
	# a hit file not listed must be one no id can be read from
	[ -f "$f" ] && readelf -n "$f" 2>/dev/null | grep -q 'Build ID' &&
		echo "$f"
done >missing-a
cat extra-a missing-a >a.diff
ok $([ ! -s a.diff ] && grep -qx '\[vdso\]' got-a; echo $?) \
	"-a: the DSOs samples hit and [vdso] ($(wc -l <got-a) listed)" a.diff
join -1 2 -2 2 <(sort -k2 pfr-a.ids) <(ids perf-a.data | sort -k2) >both-a
awk '$2 != $3' both-a >idmis-a
ok $([ ! -s idmis-a ] && grep -q '^\[kernel\.kallsyms\] ' both-a &&
	grep -q '^\[vdso\] ' both-a; echo $?) \
	"-a: the ids of the $(wc -l <both-a) DSOs both list are perf's, the kernel's and [vdso]'s among them" idmis-a
$P record -q -B --buildid-dir "$tmp/rcB" -o pfr-B.data ./bw 2>/dev/null
perf --buildid-dir "$tmp/pcB" record -q -B -o perf-B.data ./bw \
	>/dev/null 2>&1
perf report --header-only -i pfr-B.data 2>/dev/null |
	grep '^# missing features:' | grep -qw BUILD_ID &&
	! perf buildid-list -i pfr-B.data 2>/dev/null | grep -q '^[0-9a-f]'
ok $? "-B: no BUILD_ID feature, no id listed (as perf -B)"
ok $([ ! -e "$tmp/rcB" ] && [ ! -e "$tmp/pcB" ]; echo $?) "-B: no cache, as perf"

# --- the cache ---
tree() { # tree DIR: paths, link targets, modes and sizes, sorted
	(cd "$1" && find . | sort | while read -r f; do
		if [ -L "$f" ]; then
			echo "$f -> $(readlink "$f")"
		elif [ -d "$f" ]; then
			echo "$f/ $(stat -c %a "$f")"
		elif [ "${f##*/}" = kallsyms ]; then
			echo "$f $(stat -c %a "$f")" # a copy of a live file
		else
			echo "$f $(stat -c '%a %s' "$f")"
		fi
	done)
}
if [ -d pca ] && [ -d rca ]; then
	tree pca >pca.tree
	tree rca >rca.tree
	diff pca.tree rca.tree >tree.diff
	ok $? "--buildid-all: the cache tree is perf's ($(wc -l <rca.tree) entries)" tree.diff
else
	fail "--buildid-all: both caches written (perf: $([ -d pca ] && echo yes || echo no), perfring: $([ -d rca ] && echo yes || echo no))"
fi
# a C++ program: libstdc++'s SDT notes make perf write a non-empty
# probes file (its probe list for uprobe_events)
printf '%s\n' '#include <stdexcept>' \
	'int main() { try { throw std::runtime_error("x"); } catch (...) {} }' \
	>cx.cc
if command -v c++ >/dev/null 2>&1 && c++ -O1 -o cx cx.cc 2>/dev/null; then
	perf --buildid-dir "$tmp/pcx" record -q --buildid-all -o cx-perf.data \
		./cx >/dev/null 2>&1
	$P record -q --buildid-all --buildid-dir "$tmp/rcx" -o cx-pfr.data \
		./cx 2>/dev/null
	tree pcx >pcx.tree
	tree rcx >rcx.tree
	diff pcx.tree rcx.tree >cx.diff
	for d in pcx rcx; do
		(cd $d && find . -name probes -size +0 | sort | xargs cat) >$d.probes
	done
	diff pcx.probes rcx.probes >>cx.diff
	ok $([ ! -s cx.diff ] && [ -d rcx ]; echo $?) \
		"a C++ program: the cache tree and the probes files' SDT lists are perf's ($(grep -c '^p:' rcx.probes) probes)" cx.diff
else
	skip "no C++ compiler" "a C++ program's cache tree and SDT lists"
fi
k=$(awk '$2 == "[kernel.kallsyms]" { print $1 }' pfr-all.ids)
cmp -s "rca/.build-id/${k:0:2}/${k:2}/kallsyms" /proc/kallsyms ||
	[ "$(wc -l <"rca/.build-id/${k:0:2}/${k:2}/kallsyms")" -gt 1000 ]
ok $? "the kernel's entry is a copy of /proc/kallsyms (through .build-id)"
b=$(awk '$2 ~ /\/bw$/ { print $1 }' pfr.ids)
cmp -s "rc/.build-id/${b:0:2}/${b:2}/elf" bw
ok $? "the default recording cached bw's elf under its id ($b)"
$P record -q -N --buildid-dir "$tmp/rcN" -o pfr-N.data ./bw 2>/dev/null
ok $([ ! -e "$tmp/rcN" ] && ids pfr-N.data | grep -q '/bw$'; echo $?) \
	"-N: ids in the file, no cache written"
PERF_BUILDID_DIR=$tmp/envc $P record -q -o pfr-env.data ./bw 2>/dev/null
ok $([ -L "envc/.build-id/${b:0:2}/${b:2}" ] && [ ! -e "$HOME/.debug" ]; echo $?) \
	"PERF_BUILDID_DIR is the cache when no --buildid-dir is given"
PERF_BUILDID_DIR=$tmp/envc2 $P record -q --buildid-dir "$tmp/optc" \
	-o pfr-opt.data ./bw 2>/dev/null
ok $([ -L "optc/.build-id/${b:0:2}/${b:2}" ] && [ ! -e envc2 ]; echo $?) \
	"--buildid-dir wins over PERF_BUILDID_DIR"
$P --buildid-dir "$tmp/glob" record -q -o pfr-glob.data ./bw 2>/dev/null
ok $([ -L "glob/.build-id/${b:0:2}/${b:2}" ]; echo $?) \
	"perf's global form: perfring --buildid-dir DIR record"
$P record -q -o pfr-home.data ./bw 2>/dev/null
ok $([ -L "$HOME/.debug/.build-id/${b:0:2}/${b:2}" ]; echo $?) \
	"neither given: \$HOME/.debug, perf's default"
$P record -q --buildid-dir "$tmp/bw/cache" -o pfr-bad.data ./bw 2>bad.err
rc=$?
ok $([ $rc -eq 0 ] && grep -q 'warning: build-id cache' bad.err &&
	ids pfr-bad.data | grep -q '/bw$'; echo $?) \
	"an unwritable cache: a warning, exit 0, the recording kept (rc $rc)" bad.err

# --- script through the cache ---
# PLT stubs aside: perf 6.1 names an executable's stubs _init where
# perfring says NAME@plt, cache or not (elf.c's matter, not this test's).
syms() { # syms: the user-space samples' ip, symbol and DSO
	grep -v -e 'kernel\.kallsyms' -e '@plt (' -e ' _init (' |
		sed 's/^ *//'
}
cp bw bw.orig
cc "${FP[@]}" -DREBUILT -o bw bw.c -L. -Wl,--no-as-needed -lbw -lcb -lunused \
	-Wl,-rpath,"$tmp"
perf --buildid-dir "$tmp/rc" script -G -F ip,sym,dso -i pfr.data \
	2>/dev/null | syms >ref.rebuilt
$P script --buildid-dir "$tmp/rc" -G -F ip,sym,dso -i pfr.data \
	2>/dev/null | syms >out.rebuilt
diff ref.rebuilt out.rebuilt >rebuilt.diff
ok $([ $? -eq 0 ] && grep -q 'mainwork' ref.rebuilt; echo $?) \
	"bw rebuilt: perfring script's symbols are perf script's through the cache ($(grep -c mainwork out.rebuilt) in mainwork)" rebuilt.diff
perf --buildid-dir "$tmp/pc" script -G -F ip,sym,dso -i perf.data \
	2>/dev/null | syms >ref.perf
$P script --buildid-dir "$tmp/pc" -G -F ip,sym,dso -i perf.data \
	2>/dev/null | syms >out.perf
diff ref.perf out.perf >perfc.diff
ok $([ $? -eq 0 ] && grep -q 'mainwork' ref.perf; echo $?) \
	"and on perf's file through perf's cache" perfc.diff
perf --buildid-dir "$tmp/none" script -G -F ip,sym,dso -i pfr.data \
	2>/dev/null | syms >ref.none
$P script --buildid-dir "$tmp/none" -G -F ip,sym,dso -i pfr.data \
	2>/dev/null | syms >out.none
diff ref.none out.none >none.diff
ok $([ $? -eq 0 ] && [ -s out.none ] && ! grep -q ' mainwork ' out.none; echo $?) \
	"no cache: bw's samples stay unresolved, as in perf (not the rebuilt file's symbols)" none.diff
mv bw bw.moved
mv bw.orig bw.gone
perf --buildid-dir "$tmp/rc" script -G -F ip,sym,dso -i pfr.data \
	2>/dev/null | syms >ref.moved
PERF_BUILDID_DIR=$tmp/rc $P script -G -F ip,sym,dso -i pfr.data \
	2>/dev/null | syms >out.moved
diff ref.moved out.moved >moved.diff
ok $([ $? -eq 0 ] && grep -q 'mainwork' out.moved; echo $?) \
	"bw moved away: the same symbols as perf script (PERF_BUILDID_DIR)" moved.diff

# The kernel: a recording whose kernel build id is not the running
# kernel's resolves through the cache's [kernel.kallsyms]/<id>/kallsyms
# (here the running one's with every name but _text and _stext renamed
# K_NAME), and without one stays unresolved, as perf script.
cat >kpatch.py <<'EOP'
import struct, sys
src, dst, fake = sys.argv[1], sys.argv[2], bytes.fromhex(sys.argv[3])
b = bytearray(open(src, 'rb').read())
doff, dsize = struct.unpack_from('<QQ', b, 40)
feat = struct.unpack_from('<Q', b, 72)[0]
off, size = struct.unpack_from('<QQ', b, doff + dsize + 16 * bin(feat & 3).count('1'))
o = off
while o < off + size:
    esz = struct.unpack_from('<H', b, o + 6)[0]
    if bytes(b[o + 36:o + esz]).split(b'\0')[0] == b'[kernel.kallsyms]':
        b[o + 12:o + 12 + len(fake)] = fake
    o += esz
open(dst, 'wb').write(b)
EOP
fake=abababababababababababababababababababab
if python3 kpatch.py pfr.data kfake.data $fake 2>kp.err &&
	ids kfake.data | grep -q "^$fake \[kernel.kallsyms\]"; then
	mkdir -p "kc/[kernel.kallsyms]/$fake"
	sed '/ _s\?text$/!s/^\([0-9a-f]* [tTwW] \)/\1K_/' /proc/kallsyms \
		>"kc/[kernel.kallsyms]/$fake/kallsyms"
	for c in kc none; do
		perf --buildid-dir "$tmp/$c" script -G -F ip,sym,dso -i kfake.data \
			2>/dev/null | grep 'kernel\.kallsyms' >"k.ref.$c"
		$P script --buildid-dir "$tmp/$c" -G -F ip,sym,dso -i kfake.data \
			2>/dev/null | grep 'kernel\.kallsyms' >"k.out.$c"
	done
	diff k.ref.kc k.out.kc >k.diff
	ok $([ $? -eq 0 ] && grep -q ' K_' k.out.kc; echo $?) \
		"another kernel's recording: its symbols from the cache's kallsyms, as perf script ($(grep -c ' K_' k.out.kc) samples)" k.diff
	diff k.ref.none k.out.none >k.diff
	ok $([ $? -eq 0 ] && [ -s k.out.none ] && ! grep -qv '\[unknown\]' k.out.none; echo $?) \
		"and without a cached kallsyms, unresolved as in perf (not the running kernel's names)" k.diff
else
	fail "the kernel's build id patched into a copy of the file" kp.err
fi
tap_done
