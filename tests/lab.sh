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

# Boot 1: a command's output and exit status come back; kcore reads; a
# statically linked executable in build/ is copied like any other.
mkdir -p build/lab-static && cp /bin/busybox build/lab-static/busybox
scripts/lab --run 'build/bin/test-kcore live; build/lab-static/busybox echo lab-static-ran
	echo lab-marker >&2; exit 7' >"$t/out" 2>"$t/err"
rc=$?
rm -rf build/lab-static
check "lab: the guest command's exit status is the harness's (7)" "$([ $rc = 7 ]; echo $?)"
check "lab: stdout and stderr of the guest command come back" "$(grep -q lab-marker "$t/out"; echo $?)"
check "lab: a statically linked executable in build/ is copied and runs" \
	"$(grep -q lab-static-ran "$t/out"; echo $?)"
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

# Boots 3b: two labs with the network at once, no port asked: the second
# takes the next free port (the first holds its port through QEMU)
unset GILK_LAB_UDP_PORT
# UDP ports held near 5555 (hex 15xx: 5376 to 5631)
udp_ports() { awk 'FNR > 1 { split($2, a, ":"); if (a[2] ~ /^15/) print a[2] }' /proc/net/udp /proc/net/udp6 2>/dev/null | sort -u; }
udp_ports >"$t/ports0"
scripts/lab --net --run 'echo port=$(cat /lab/udp-port); sleep 20' >"$t/net1" 2>&1 &
first=$!
# the first holds its port once its QEMU runs (its output comes at its end)
for i in $(seq 600); do
	udp_ports | comm -13 "$t/ports0" - | grep -q . && break
	sleep 0.2
done
scripts/lab --net --run 'echo port=$(cat /lab/udp-port)' >"$t/net2" 2>&1
rc=$?
wait $first
rc1=$?
p1=$(sed -n 's/^port=\([0-9]*\)$/\1/p' "$t/net1")
p2=$(sed -n 's/^port=\([0-9]*\)$/\1/p' "$t/net2")
check "lab: two labs with the network at once take two free ports ($p1, $p2; status $rc1, $rc)" \
	"$([ $rc1 = 0 ] && [ $rc = 0 ] && [ -n "$p1" ] && [ -n "$p2" ] && [ "$p1" != "$p2" ]; echo $?)"

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
# Boot: line coverage of a running kernel, rendered by lcov's genhtml. The
# guest writes the tracefile with its source paths (the lab's share of
# build/cache/ref/debug); here they are the host's.
scripts/lab --run 'insmod build/gilk.ko && build/gilk -c "coverage path_init" >/dev/null &&
	ls / >/dev/null && cat /proc/version >/dev/null &&
	build/gilk -c "dump coverage --format lcov /tmp/cov.info" >/dev/null && build/gilk -c "coverage stop" >/dev/null &&
	cat /tmp/cov.info' >"$t/cov.info" 2>"$t/err"
rc=$?
sed -i "s|^SF:/var/cache/gilk/debug/|SF:$(pwd)/build/cache/ref/debug/|" "$t/cov.info"
genhtml -q -o "$t/html" "$t/cov.info" >"$t/genhtml.out" 2>&1
grc=$?
page=$(find "$t/html" -name 'namei.c.gcov.html' 2>/dev/null | head -1)
check "lab: a live kernel's line coverage (dump coverage --format lcov) renders with genhtml, fs/namei.c with counted lines (lab $rc, genhtml $grc$( [ $grc = 0 ] || echo ": $(head -3 "$t/genhtml.out" | tr '\n' ' ')"))" \
	"$([ $rc = 0 ] && [ $grc = 0 ] && [ -s "$t/html/index.html" ] && [ -n "$page" ] &&
	   grep -q 'lineCov' "$page" && grep -q 'path_init' "$page"; echo $?)"

# Boot 5: --script: gilk -x FILE in the lab as a person gets it (gilk.ko, the
# instruments, the e1000 on user-mode networking with a forwarded UDP port),
# extra guest commands first, and host-side traffic once the script says go
# (then it waits for the five packets, up to a minute: a loaded host's
# emulated guest can take seconds over them).
# A port of its own: other labs may be running beside.
port=$((20000 + RANDOM % 20000))
cat >"$t/net.gilk" <<'GILK'
splice e1000_clean_rx_irq
splice udp_rcv
shell echo gilk-lab: go
shell i=0; while [ $i -lt 120 ]; do n=$(build/gilk -c 'info splices' | awk '$2 ~ /^udp_rcv/ {print $4}'); [ "${n:-0}" -ge 5 ] && break; i=$((i + 1)); sleep 0.5; done
info splices
GILK
scripts/lab --udp-port "$port" --script "$t/net.gilk" --guest 'echo guest-extra $(cat /proc/net/dev | grep -c eth0)' \
	--host "for i in 1 2 3 4 5; do echo packet\$i >/dev/udp/127.0.0.1/$port; sleep 0.3; done" >"$t/out" 2>"$t/err"
rc=$?
rx=$(awk '$2 ~ /^e1000_clean_rx_irq/ {print $4}' "$t/out")
udp=$(awk '$2 ~ /^udp_rcv/ {print $4}' "$t/out")
check "lab --script: gilk -x in the guest with the instruments, after the extra guest commands; the host's UDP to the forwarded port reaches the e1000 ($rx hits) and udp_rcv ($udp of 5)" \
	"$([ $rc = 0 ] && grep -q '^guest-extra 1$' "$t/out" && grep -q '^splice 1 at e1000_clean_rx_irq+0x' "$t/out" &&
	   [ "${rx:-0}" -ge 1 ] && [ "${udp:-0}" = 5 ]; echo $?)"
printf 'info instruments\ndisas no_such_function\ninfo splices\n' >"$t/bad.gilk"
scripts/lab --udp-port "$port" --script "$t/bad.gilk" >"$t/out" 2>"$t/err"
rc=$?
check "lab --script: gilk's status is the lab's (1 at the first error), its output and error come back" \
	"$([ $rc = 1 ] && grep -q '^latency ' "$t/out" && grep -q "no symbol 'no_such_function'" "$t/out" &&
	   ! grep -q 'no splices' "$t/out"; echo $?)"

# Boot 6: the lab itself lands in the gilk shell, live, Tab completing
# symbols, in /root, which is a directory of the host's; quit leaves a root
# shell; poweroff ends it.
tmux kill-session -t gilk-lab-test 2>/dev/null
mkdir -p "$t/labtmp"
tmux new-session -d -s gilk-lab-test -x 160 -y 50 \
	"TMPDIR=$t/labtmp GILK_LAB_HOME=$t/home GILK_LAB_UDP_PORT=$port scripts/lab; echo lab-ended; sleep 60"
. tests/screen.sh
lab_screen() { screen_shows gilk-lab-test "$1" "$2"; }
lab_screen '(gilk)' 300
ready=$?
banner=$(tmux capture-pane -t gilk-lab-test -p | grep -m1 'ready [0-9.]* s after boot')
tmux send-keys -t gilk-lab-test 'info splices' Enter
lab_screen 'no splices' 60 && tmux send-keys -t gilk-lab-test 'disas tcp_v4_rc' Tab &&
	lab_screen '(gilk) disas tcp_v4_rcv' 60
tabbed=$?
# Ctrl-C at the prompt reaches the shell that waits for gilk too
tmux send-keys -t gilk-lab-test C-c
lab_screen 'Quit' 60
quitted=$?
tmux send-keys -t gilk-lab-test C-u 'record kept.gilk' Enter
lab_screen 'recording' 60 && tmux send-keys -t gilk-lab-test 'info symbol jiffies' Enter && lab_screen 'jiffies in section' 60
recorded=$?
kept=$(grep -v '^#' "$t/home/kept.gilk" 2>/dev/null)
pane=$(tmux display -p -t gilk-lab-test '#{pane_height} #{pane_width}')
tmux send-keys -t gilk-lab-test 'shell stty size' Enter
lab_screen "$pane" 60
sized=$?
tmux send-keys -t gilk-lab-test 'quit' Enter
lab_screen '/root #' 60 && tmux send-keys -t gilk-lab-test 'poweroff' Enter && lab_screen 'lab-ended' 60
ended=$?
tmux kill-session -t gilk-lab-test 2>/dev/null
check "make lab: the gilk shell, live, with boot-to-prompt time ($banner); Tab completes a symbol; Ctrl-C says Quit and quit still leaves a root shell, poweroff ends it" \
	"$([ $ready = 0 ] && [ -n "$banner" ] && [ $tabbed = 0 ] && [ $quitted = 0 ] && [ $ended = 0 ]; echo $?)"
check "make lab: /root is the host's GILK_LAB_HOME, shared as the lab runs: a transcript recorded there is on the host at once (${kept:-nothing}), and the lab's ~/.gilkinit" \
	"$([ $recorded = 0 ] && [ "$kept" = 'info symbol jiffies' ] && grep -qx 'set filter-self on' "$t/home/.gilkinit"; echo $?)"
check "make lab: the console has the host terminal's size ($pane), for the pager and long lines" \
	"$([ $sized = 0 ]; echo $?)"
check "make lab leaves nothing in TMPDIR when it ends ($(ls "$t/labtmp" | wc -l) entries)" \
	"$([ -z "$(ls -A "$t/labtmp")" ]; echo $?)"

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
