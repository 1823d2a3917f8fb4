#!/usr/bin/env bash
# Guest tests: the lab harness itself, and core/image on /proc/kcore of the
# running reference kernel. Few boots, many checks each.
set -u
cd "$(dirname "$0")/.."
pass=0 fail=0
check() { # check NAME CONDITION-STATUS
	if [ "$2" = 0 ]; then echo "PASS $1"; pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); fi
}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# Boot 1: a command's output and exit status come back; kcore reads.
scripts/lab --run 'build/bin/test-kcore live; echo lab-marker >&2; exit 7' >"$t/out" 2>"$t/err"
rc=$?
check "lab: the guest command's exit status is the harness's (7)" "$([ $rc = 7 ]; echo $?)"
check "lab: stdout and stderr of the guest command come back" "$(grep -q lab-marker "$t/out"; echo $?)"
build/bin/test-kcore compare "$t/out" >"$t/kcore"
cat "$t/kcore" | grep -v '^[0-9]* passed'
pass=$((pass + $(grep -c '^PASS' "$t/kcore"))); fail=$((fail + $(grep -c '^FAIL' "$t/kcore")))

# Boot 2: a hung guest is killed at the timeout and reported with its console.
scripts/lab --timeout 30 --run 'sleep 1000' >"$t/out" 2>"$t/err"
rc=$?
check "lab: a hung guest is killed at the timeout and reported" \
	"$([ $rc = 125 ] && grep -q 'did not finish within 30s' "$t/err"; echo $?)"

# Boot 3: a panicking guest is reported as a failure with the panic in the log.
scripts/lab --run 'echo c > /proc/sysrq-trigger; sleep 30' >"$t/out" 2>"$t/err"
rc=$?
check "lab: a guest panic is a failure and its console log is shown" \
	"$([ $rc = 125 ] && grep -q 'Kernel panic' "$t/err"; echo $?)"

# Boot 4: a kernel report fails the run even after `dmesg -c`; a report
# bracketed as expected, and matching what was expected, does not.
scripts/lab --run 'echo "BUG: planted by tests/lab.sh" >/dev/kmsg; dmesg -c >/dev/null
	echo "gilk-lab: expect reports: WARNING: forgiven" >/dev/kmsg
	echo "WARNING: forgiven by tests/lab.sh" >/dev/kmsg
	echo "gilk-lab: end of expected reports" >/dev/kmsg' >"$t/out" 2>"$t/err"
rc=$?
check "lab: a BUG: line in the kernel log fails the run (126), even after dmesg -c" \
	"$([ $rc = 126 ] && grep -q 'BUG: planted by tests/lab.sh' "$t/err"; echo $?)"
check "lab: a report bracketed as expected is forgiven" \
	"$(! grep -q 'WARNING: forgiven' "$t/err"; echo $?)"
check "lab: the reports it searches for (kmsg-reports on a sample of each kind)" \
	"$(printf '%s\n' 'BUG: KASAN: slab-out-of-bounds in f+0x1/0x2' 'BUG: KFENCE: use-after-free read in g' \
		'WARNING: possible circular locking dependency detected' \
		'BUG: sleeping function called from invalid context at mm/slab.h:1' \
		'rcu: INFO: rcu_preempt self-detected stall on CPU' 'watchdog: BUG: soft lockup - CPU#1 stuck for 22s!' \
		'WARNING: CPU: 0 PID: 1 at x.c:1 f+0x0/0x1' 'a quiet line' | scripts/kmsg-reports | grep -c . |
		grep -qx 7; echo $?)"
scripts/lab --kernel no-such-profile --run true >"$t/out" 2>"$t/err"
rc=$?
check "lab: an unknown profile is refused with what to run" \
	"$([ $rc = 1 ] && grep -q 'scripts/setup --profile no-such-profile' "$t/err"; echo $?)"

# Setup is idempotent: with nothing missing it changes nothing and says nothing.
scripts/setup >"$t/out" 2>"$t/err"
rc=$?
check "setup: a second run with nothing missing does nothing" \
	"$([ $rc = 0 ] && [ ! -s "$t/err" ] && [ ! -s "$t/out" ]; echo $?)"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
