#!/bin/sh
# Guest tests of gilk.ko, run inside the reference kernel by scripts/lab:
#   scripts/lab --run 'sh tests/guest/run.sh'
# Prints PASS/FAIL lines and "N passed, N failed".
pass=0
fail=0
check() { # check NAME STATUS
	if [ "$2" = 0 ]; then echo "PASS $1"; pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); fi
}
suite() { # suite ARGS...: a test-live subcommand, its counts added to ours
	build/bin/test-live "$@" >/tmp/suite.out 2>&1
	grep -v '^[0-9]* passed, [0-9]* failed$' /tmp/suite.out
	line=$(grep '^[0-9]* passed, [0-9]* failed$' /tmp/suite.out)
	if [ -z "$line" ]; then
		echo "FAIL test-live $*: no result (crashed?)"
		fail=$((fail + 1))
		return
	fi
	pass=$((pass + ${line%% passed*}))
	f=${line#*passed, }
	fail=$((fail + ${f%% failed}))
}

insmod build/gilk.ko
check "gilk.ko loads and creates /dev/gilk" "$([ -c /dev/gilk ]; echo $?)"
insmod build/instruments/argfilter.ko
check "the argfilter instrument module loads" "$(grep -q '^argfilter ' /proc/modules; echo $?)"

suite basic
suite blocks
suite facts
suite module
suite refusals
suite events
suite privs
suite fuzz 10000
suite stress "${GILK_STRESS_CYCLES:-1000}"

# rmmod with splices in place: every splice removed, bytes restored.
set -- $(build/bin/test-live splice-hold __x64_sys_getppid count "")
site=$2 len=$3 orig=$4
held=$(build/bin/test-kcore peek "$site" "$len")
check "a held splice changed the bytes at the site ($held)" "$([ -n "$held" ] && [ "$held" != "$orig" ]; echo $?)"
rmmod gilk
check "rmmod gilk with a splice in place succeeds" "$?"
check "/dev/gilk is gone after rmmod" "$([ ! -e /dev/gilk ]; echo $?)"
after=$(build/bin/test-kcore peek "$site" "$len")
check "after rmmod the site holds its original bytes ($after)" "$([ "$after" = "$orig" ]; echo $?)"
insmod build/gilk.ko
check "gilk.ko loads again after rmmod" "$?"
suite basic

# Lockdown (integrity) raised at run time: /dev/gilk refuses from then on.
# Irreversible, so it is the last thing this boot does with gilk.
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
if echo integrity >/sys/kernel/security/lockdown 2>/dev/null; then
	out=$(build/bin/test-live basic 2>&1 | head -1)
	check "under integrity lockdown /dev/gilk refuses ($out)" \
		"$(echo "$out" | grep -q 'Operation not permitted'; echo $?)"
else
	check "integrity lockdown can be raised" 1
fi

if dmesg | grep -E 'Oops|BUG:|WARNING:|general protection|soft lockup|RCU stall|Call Trace' >/tmp/bad; then
	cat /tmp/bad
	check "dmesg shows no oops, BUG, WARNING, lockup or stall" 1
else
	check "dmesg shows no oops, BUG, WARNING, lockup or stall" 0
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
