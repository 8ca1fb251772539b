#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf's option grammar (its parse-options), the same on both perf
# commands (cli/perfopt.c): each case runs against perfring record and
# perfring script with the command's own options in the same roles.
# The probes have no side effect: record with --dry-run (the options
# parsed, nothing recorded), script on a small generated file.
#
# Roles: V a short option with a value whose value the command checks
# (record -m / --mmap-pages, script -i / --input), GOOD and BAD values of
# it (a BAD one is refused with the value named, so the value reached the
# option), A and B two flags (record -a/--all-cpus and -q; script -G/
# --hide-call-graph and -f), AMB an ambiguous prefix.
#
# Cases that failed on main before the shared parser, script only: long
# prefixes (--inp), bundled short options (-Gfi), the ambiguous prefix
# named with its candidates, "unknown option" for an unknown one,
# "takes no value", negated prefixes (--no-hide), and --no-help refused in
# one line, --buildid-dir; record only: the ambiguous prefix's
# candidates, --buildid-all and --buildid-dir.
# shellcheck source=tests/perf/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1

python3 "$top/tests/perf/gen_small.py" s.data 20 >/dev/null ||
	{ fail "gen_small.py writes s.data"; tap_done; }
"$P" script -i s.data >ref.out 2>ref.err
ok $? "script -i s.data: the reference output" ref.err

# run CMD ARGS...: the command with its probe around ARGS; status in $rc,
# output in out, messages in err.  record: --dry-run -q ARGS (ARGS may end
# the options themselves); script: ARGS alone.
run() {
	local cmd=$1
	shift
	case $cmd in
	record) "$P" record --dry-run -q "$@" >out 2>err ;;
	script) "$P" script "$@" >out 2>err ;;
	esac
	rc=$?
}

# accepted CMD DESC ARGS...: exit 0 and nothing on stderr (script: the
# reference output, so the value of -i reached it).
accepted() {
	local cmd=$1 desc=$2
	shift 2
	run "$cmd" "$@"
	if [ "$cmd" = script ]; then
		[ $rc -eq 0 ] && [ ! -s err ] && cmp -s out ref.out
	else
		[ $rc -eq 0 ] && [ ! -s err ]
	fi
	ok $? "$cmd $desc: accepted (exit $rc)" err
}

# refused CMD DESC WANT REGEX ARGS...: exit WANT, one message line
# matching REGEX (besides perfring's hint to run --help or its Fix: line).
refused() {
	local cmd=$1 desc=$2 want=$3 re=$4
	shift 4
	run "$cmd" "$@"
	[ $rc -eq "$want" ] &&
		[ "$(grep -cv -e "^Try 'perfring" -e '^Fix: ' err)" -eq 1 ] &&
		grep -Eq -- "$re" err
	ok $? "$cmd $desc: exit $rc (want $want), /$re/" err
}

for cmd in record script; do
	if [ $cmd = record ]; then
		V=m LV=mmap-pages PV=mmap-p GOOD=8 BAD=8X A=a LA=all-cpus B=q
		AMB=sw AMB1=switch-events AMB2=switch-output
		NEGPFX=no-qui NONEG=event END=(-- true)
	else
		V=i LV=input PV=inp GOOD=s.data BAD=nosuch.data A=G
		LA=hide-call-graph B=f AMB=ti AMB1=time AMB2=tid
		NEGPFX=no-hide NONEG=demangle END=()
	fi
	# a refused BAD value: record's usage error, script's unreadable file
	bad_rc=2 bad_re="'?$BAD'?"
	[ $cmd = script ] && bad_rc=1

	# values: separate, attached, --long VALUE, --long=VALUE, a prefix
	accepted $cmd "-$V $GOOD" -$V $GOOD "${END[@]}"
	accepted $cmd "-$V$GOOD" -$V$GOOD "${END[@]}"
	accepted $cmd "--$LV $GOOD" --$LV $GOOD "${END[@]}"
	accepted $cmd "--$LV=$GOOD" --$LV=$GOOD "${END[@]}"
	accepted $cmd "--$PV $GOOD (a prefix)" --$PV $GOOD "${END[@]}"
	accepted $cmd "--$PV=$GOOD (a prefix)" --$PV=$GOOD "${END[@]}"
	refused $cmd "-$V $BAD" $bad_rc "$bad_re" -$V $BAD "${END[@]}"
	refused $cmd "--$PV=$BAD" $bad_rc "$bad_re" --$PV=$BAD "${END[@]}"

	# bundles: flags, then one taking a value (attached or the next word)
	accepted $cmd "-$A$B$V $GOOD" -$A$B$V $GOOD "${END[@]}"
	accepted $cmd "-$A$B$V$GOOD" -$A$B$V$GOOD "${END[@]}"
	accepted $cmd "-$A$B --$LA -$V $GOOD" -$A$B --$LA -$V $GOOD "${END[@]}"
	refused $cmd "-$A$B$V $BAD" $bad_rc "$bad_re" -$A$B$V $BAD "${END[@]}"
	refused $cmd "-${A}Q (unknown in a bundle)" 2 \
		"unknown option '-Q'" -${A}Q -$V $GOOD "${END[@]}"

	# missing value, value for a flag, unknown and ambiguous options
	refused $cmd "-$V (no value)" 2 "option '-$V' needs a value" -$V
	refused $cmd "--$LV (no value)" 2 "option '--$LV' needs a value" --$LV
	refused $cmd "--$LA=1" 2 "option '--$LA' takes no value" \
		--$LA=1 -$V $GOOD "${END[@]}"
	refused $cmd "--bogus-opt" 2 "unknown option '--bogus-opt'" \
		--bogus-opt -$V $GOOD "${END[@]}"
	refused $cmd "--$AMB (ambiguous)" 2 \
		"ambiguous option '--$AMB' \(could be .*--$AMB1.*--$AMB2" \
		--$AMB 1 -$V $GOOD "${END[@]}"

	# perf's negation: exact, a prefix, a value refused, no negation
	accepted $cmd "--$LA --no-$LA" --$LA --no-$LA -$V $GOOD "${END[@]}"
	accepted $cmd "--$NEGPFX (a negated prefix)" --$NEGPFX -$V $GOOD \
		"${END[@]}"
	refused $cmd "--no-$LA=1" 2 "option '--no-$LA' takes no value" \
		--no-$LA=1 -$V $GOOD "${END[@]}"
	refused $cmd "--no-$NONEG (perf refuses it)" 2 \
		"--no-$NONEG: no equivalent in perfring" \
		--no-$NONEG -$V $GOOD "${END[@]}"
	refused $cmd "--no-help" 2 "--no-help: no equivalent in perfring" \
		--no-help -$V $GOOD "${END[@]}"
	refused $cmd "--no-bogus-opt" 2 "unknown option '--no-bogus-opt'" \
		--no-bogus-opt -$V $GOOD "${END[@]}"

	# -h, --help: the usage on standard output, exit 0
	for h in -h --help --hel; do
		[ "$cmd$h" = script--hel ] && continue # --header, --help
		run $cmd $h
		[ $rc -eq 0 ] && grep -q '^usage: perfring' out
		ok $? "$cmd $h: the usage, exit $rc" err
	done
done

# "--" ends the options: after it, --bogus-opt is no option (record: the
# command; script: an argument, which it takes only for -s).
refused record "--bogus-opt" 2 "unknown option" --bogus-opt
accepted record "-- --bogus-opt (the command)" -- --bogus-opt
refused script "-i s.data -- --bogus-opt" 2 \
	"unknown argument '--bogus-opt'" -i s.data -- --bogus-opt
# ... and so does the first word that is not an option
accepted record "true -a (the command and its argument)" true -a
refused script "-i s.data foo -G" 2 "unknown argument 'foo'" \
	-i s.data foo -G
# --NAME negates an option named no-NAME (record's -i, --no-inherit)
accepted record "--no-inherit --inherit" --no-inherit --inherit -- true

# The build-id options parsed (another change gives them their effect):
# record's -N, --buildid-all, --buildid-dir DIR; script's --buildid-dir.
accepted record "-N --buildid-all --buildid-dir DIR" -N --buildid-all \
	--buildid-dir "$tmp" -- true
accepted record "--no-buildid-cache --buildid-all --no-buildid-all \
--buildid-dir=DIR --no-buildid-dir" --no-buildid-cache --buildid-all \
	--no-buildid-all --buildid-dir="$tmp" --no-buildid-dir -- true
accepted script "-i s.data --buildid-dir DIR" -i s.data --buildid-dir "$tmp"
accepted script "-i s.data --buildid-dir=DIR --no-buildid-dir" -i s.data \
	--buildid-dir="$tmp" --no-buildid-dir
refused record "--buildid-dir (no value)" 2 "option '--buildid-dir' needs" \
	--buildid-dir
refused script "--buildid-dir (no value)" 2 "option '--buildid-dir' needs" \
	-i s.data --buildid-dir

# Optional values (perf's -z[N], --switch-output[=X]): attached or after
# '=', never the next word.
accepted record "-z" -z -- true
accepted record "-z3" -z3 -- true
accepted record "-qz" -qz -- true
refused record "-z0" 2 "bad -z '0'" -z0 -- true
refused record "--compression-level=0" 2 "'0'" --compression-level=0 -- true
refused record "--comp=0 (a prefix)" 2 "'0'" --comp=0 -- true
refused record "--switch-output=bogus" 2 "bogus" --switch-output=bogus -- true
accepted record "--switch-output 1x (not its value: the command)" \
	--switch-output 1x
tap_done
