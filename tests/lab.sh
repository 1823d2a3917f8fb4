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

# Setup is idempotent: with nothing missing it changes nothing and says nothing.
scripts/setup >"$t/out" 2>"$t/err"
rc=$?
check "setup: a second run with nothing missing does nothing" \
	"$([ $rc = 0 ] && [ ! -s "$t/err" ] && [ ! -s "$t/out" ]; echo $?)"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
