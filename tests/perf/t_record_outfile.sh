#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# record's output file (issue 34, item 7): no link is followed (a dangling
# link's target is not created, a link to another user's file or to
# /dev/null is not written through), only a regular file is written (no
# device, FIFO or socket; -o - stays perf's pipe format on stdout), a file
# another user owns or that has other hard links is refused, and the
# profile is 0600 whatever mode a file already there had.  perf.data.old
# rotation still works and never moves a link.
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1
need_perf_events

refused() { # description, what is checked after (a command)...
	local desc=$1 rc
	shift
	"$P" record -q -- true >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "^perfring record: cannot create perf.data" \
		"$tmp/err" && grep -q "^Fix: " "$tmp/err" && "$@"; then
		ok 0 "$desc: refused, exit 1, cause and fix"
	else
		ok 1 "$desc: exit $rc (want 1, a cause and a fix)"
		diag <"$tmp/err"
	fi
}

# A dangling link: its target must not be created.
ln -s "$tmp/victim" perf.data
refused "a dangling perf.data link" test ! -e "$tmp/victim"
rm -f perf.data

# A link to another user's empty file: not written through.
mkdir -m 1777 other
: >other/theirs
chown nobody other/theirs 2>/dev/null || true
chmod 644 other/theirs
ln -s "$tmp/other/theirs" perf.data
refused "a link to another user's empty file" test ! -s "$tmp/other/theirs"
rm -f perf.data

# A link to /dev/null (any device), and a device node in place.
ln -s /dev/null perf.data
refused "a link to /dev/null" test -L perf.data
rm -f perf.data
if mknod perf.data c 1 3 2>/dev/null; then
	refused "a character device (null) in place" test -c perf.data
	rm -f perf.data
else
	skip "not root: no mknod" "a device node in place"
fi

# -o /dev/null by that name discards the records (perf takes it too);
# another device given by name is refused.
"$P" record -q -o /dev/null -- true 2>"$tmp/err"
ok $? "-o /dev/null, named as such, records into nothing"
"$P" record -q -o /dev/zero -- true 2>"$tmp/err"
rc=$?
grep -q "cannot create /dev/zero: it is not a regular file" "$tmp/err"
ok $((rc != 1 || $? != 0)) "-o /dev/zero (another device) is refused (exit $rc)"

# A link in place is not rotated to perf.data.old either.
echo data >target
ln -s "$tmp/target" perf.data
refused "a link to a non-empty file" test -L perf.data -a ! -e perf.data.old
rm -f perf.data target

# A file owned by another user (empty: a non-empty one is rotated).
if [ "$(id -u)" -eq 0 ]; then
	: >perf.data
	chown nobody perf.data
	refused "an empty perf.data another user owns" test ! -s perf.data
	rm -f perf.data
else
	skip "not root: cannot give a file away" "a file another user owns"
fi

# An empty file with another hard link.
: >mine
ln mine perf.data
refused "an empty perf.data with another hard link" test ! -s mine
rm -f perf.data mine

# A pre-created 0666 perf.data: the profile is 0600.
: >perf.data
chmod 666 perf.data
"$P" record -q -- true 2>"$tmp/err"
rc=$?
mode=$(stat -c %a perf.data)
ok $((rc != 0 || mode != 600)) "a pre-created 0666 perf.data ends 0600 (exit $rc, mode $mode)"
umask 000
rm -f perf.data
"$P" record -q -- true 2>"$tmp/err"
mode=$(stat -c %a perf.data)
ok $((mode != 600)) "a new perf.data is 0600 under umask 000 (mode $mode)"
umask 022

# perf.data.old rotation and the pipe format still work.
"$P" record -q -- true 2>"$tmp/err"
ok $(($? != 0)) "a second recording rotates perf.data"
[ -f perf.data.old ] && [ -s perf.data ] && [ ! -L perf.data.old ]
ok $? "perf.data.old is the previous file"
"$P" record -q -o - -- true >pipe.out 2>"$tmp/err"
rc=$?
magic=$(head -c 8 pipe.out)
ok $((rc != 0)) "-o - writes the pipe format to stdout (exit $rc, magic $magic)"
[ "$magic" = PERFILE2 ]
ok $? "-o - output starts with PERFILE2"
"$P" record -q -o - -- true 2>"$tmp/err" | cat >/dev/null
ok "${PIPESTATUS[0]}" "-o - into a pipe"
tap_done
