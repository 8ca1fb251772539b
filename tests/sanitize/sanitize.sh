#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Sanitizer runs (called by t_asan.sh and t_tsan.sh): builds the library,
# `perfring` and every unit test with `make SANITIZE=...` into its own
# build directory, then runs the selected unit tests (tests/unit/*.c, by
# name, whoever added them) and fails on any failing test or any sanitizer
# report.  Never runs `make check` (that would recurse).
#
#   sanitize.sh address   every unit test, SANITIZE=address,undefined
#   sanitize.sh thread    unit tests named *stress*, *mp*, group or merge,
#                         SANITIZE=thread (barrier.h selects the C11 backend
#                         under TSan)
# Both also run brief `perfring stress --mode group|mpsc` (threads; and
# processes under ASan).
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
kind=${1:?usage: sanitize.sh address|thread}
cc=${CC:-cc}
# Next to the check's own build directory: build-asan, build-tsan for the
# default BUILD=build.
base=${PFR_BUILD:-$top/build}
case $kind in
address) sanitize=address,undefined build=$base-asan ;;
thread) sanitize=thread build=$base-tsan ;;
*) echo "Bail out! unknown sanitizer $kind"; exit 2 ;;
esac

# The compiler must have the runtime: a one-line program shows it.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'int main(void) { return 0; }' >"$probe/p.c"
if ! $cc -fsanitize="$sanitize" "$probe/p.c" -o "$probe/p" \
	>"$probe/log" 2>&1 || ! "$probe/p" >>"$probe/log" 2>&1; then
	skip_all "$cc has no working -fsanitize=$sanitize runtime:" \
		"$(head -c 200 "$probe/log" | tr '\n' ' ')"
fi

log=$probe/run.log

# A sub-make must not inherit the outer make's command-line variables.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top" --no-print-directory \
	-j2 BUILD="$build" SANITIZE="$sanitize" CC="$cc" all unit-tests \
	>"$log" 2>&1
rc=$?
ok $rc "make BUILD=${build#"$top"/} SANITIZE=$sanitize all unit-tests" "$log"
[ $rc -eq 0 ] || tap_done

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
export PFR_TOP=$top PFR_BUILD=$build PERFRING=$build/perfring
ran=0
for src in "$top"/tests/unit/*.c; do
	[ -e "$src" ] || continue
	u=$(basename "$src" .c)
	if [ "$kind" = thread ]; then
		case $u in
		*stress* | *mp* | group | merge) ;;
		*) continue ;;
		esac
	fi
	bin=$build/tests/unit/$u
	(cd "$top" && timeout -k 10 600 "$bin") >"$log" 2>&1
	rc=$?
	if [ $rc -eq 77 ]; then
		skip "$(grep -m1 -o 'SKIP.*' "$log" | sed 's/^SKIP *//')" "unit/$u"
		continue
	fi
	# a report that did not change the exit status still fails
	if grep -q -e 'ERROR: AddressSanitizer' -e 'runtime error:' \
		-e 'WARNING: ThreadSanitizer' -e 'ERROR: LeakSanitizer' "$log"; then
		[ $rc -eq 0 ] && rc=1
	fi
	ok $rc "unit/$u under -fsanitize=$sanitize (exit $rc)" "$log"
	ran=$((ran + 1))
done
[ $ran -gt 0 ]
ok $? "ran $ran unit test(s)"
if [ "$kind" = address ]; then
	# the two-process stress (memfd and named shm, pidfd watches) and
	# script on a hostile recording run sanitized too
	"$build/perfring" stress --all --processes --seconds 0.1 >"$log" 2>&1 &&
		"$build/perfring" stress --all --shm --wait --seconds 0.1 \
			>>"$log" 2>&1 &&
		! grep -q -e 'Sanitizer' -e 'runtime error:' "$log"
	ok $? "perfring stress --processes / --shm under -fsanitize=$sanitize" \
		"$log"
fi
# the many-writer stresses: threads under both, processes under ASan (TSan
# does not follow a memfd into another process)
hows=(threads)
[ "$kind" = address ] && hows+=(processes)
for mode in group mpsc; do
	for how in "${hows[@]}"; do
		extra=()
		[ "$how" = processes ] && extra=(--processes)
		timeout -k 10 300 "$build/perfring" stress --mode "$mode" \
			--writers 3 --seconds 0.3 --json "${extra[@]}" >"$log" 2>&1
		rc=$?
		case $mode in
		group) grep -q '"result":"pass"' "$log" ;;
		mpsc) grep -q '"ok":true' "$log" && ! grep -q '"ok":false' "$log" ;;
		esac
		verdict=$?
		[ $rc -eq 0 ] && [ $verdict -ne 0 ] && rc=1
		if grep -q -e 'Sanitizer' -e 'runtime error:' "$log"; then
			[ $rc -eq 0 ] && rc=1
		fi
		ok $rc "perfring stress --mode $mode --writers 3 ($how) under -fsanitize=$sanitize (exit $rc)" \
			"$log"
	done
done
"$build/perfring" info >"$log" 2>&1 &&
	! grep -q -e 'Sanitizer' -e 'runtime error:' "$log"
ok $? "perfring info under -fsanitize=$sanitize" "$log"
tap_done
