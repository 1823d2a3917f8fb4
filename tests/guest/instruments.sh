# Sourced by tests/guest/run.sh (check() is its): FUNC:entry and FUNC:exit
# live, and the instrument modules of instruments/, each at work.

insmod build/instruments/hello.ko && insmod build/instruments/latency.ko
check "the hello and latency instrument modules load" \
	"$(build/gilk -c 'info instruments' | grep -q '^ *hello ' && build/gilk -c 'info instruments' | grep -q '^ *latency '; echo $?)"

# An exit splice runs before the return: rax holds the return value.
build/gilk -c events >/dev/null
out=$(build/gilk -c 'splice __x64_sys_getppid:entry' -c 'splice __x64_sys_getppid:exit regs' 2>&1)
entry=$(echo "$out" | sed -n 's/^splice \([0-9]*\) at .*instrument count$/\1/p')
exits=$(echo "$out" | sed -n 's/^  splice \([0-9]*\) at .*: \(ret\|return thunk\|tail call\) (block [0-9]*)$/\1/p')
build/bin/test-live workload getppid 25
ev=$(build/gilk -c 'events 1000')
n=$(echo "$ev" | grep -c " regs: rax=0x$(printf %x $$) ")
he=$(build/gilk -c "info splice $entry" | sed -n 's/.*instrument count, \([0-9]*\) hits$/\1/p')
hx=0
for id in $exits; do
	hx=$((hx + $(build/gilk -c "info splice $id" | sed -n 's/.*instrument regs, \([0-9]*\) hits$/\1/p')))
done
check "FUNC:exit live: every return point spliced, before the return: rax holds getppid's result ($n of 25; entry $he hits, exits $hx)" \
	"$(echo "$out" | grep -q '^spliced the [0-9]* return points\? of __x64_sys_getppid with regs in one batch' &&
	   [ -n "$exits" ] && [ "$n" = 25 ] && [ "$he" = 25 ] && [ "$hx" = 25 ]; echo $?)"
build/gilk -c 'unsplice all' >/dev/null

# hello: the template instrument, an event with the pid per hit
build/gilk -c events >/dev/null
build/gilk -c 'splice __x64_sys_getpgrp hello' >/dev/null
build/bin/test-live workload getpgrp 7 &
pid=$!
wait $pid
n=$(build/gilk -c 'events 100' | grep -c " hello: pid=$pid\$")
check "hello records the pid of the task at the site, once per hit ($n of 7)" "$([ "$n" = 7 ]; echo $?)"
build/gilk -c 'unsplice all' >/dev/null

# latency: sleeps of a known length, each begun on CPU 0 and ended on CPU 1
out=$(build/gilk -c 'latency hrtimer_nanosleep' 2>&1)
build/gilk -c events >/dev/null
build/bin/test-live sleep-migrate 6 20 &
pid=$!
wait $pid
st=$?
build/gilk -c 'dump events /tmp/lat.csv' >/dev/null
# the columns by name: time_ns,cpu,pid,tid,...,instrument, then the payload's
col() { head -1 /tmp/lat.csv | tr , '\n' | grep -nx "$1" | cut -d: -f1; }
cns=$(col ns) cpid=$(col data.pid) ccpu=$(col cpu) cover=$(col overflows) cins=$(col instrument)
rows=$(awk -F, -v p="$cpid" -v id="$pid" -v i="$cins" '$i == "latency" && $p == id' /tmp/lat.csv)
n=$(echo "$rows" | grep -c .)
all=$(grep -c ',latency,' /tmp/lat.csv)
bad=$(echo "$rows" | awk -F, -v ns="$cns" -v o="$cover" '$ns < 20000000 || $ns > 520000000 || $o != 0' | grep -c .)
moved=$(echo "$rows" | awk -F, -v cpu="$ccpu" '$cpu == 1' | grep -c .)
check "latency FUNC: one duration per sleep, each >= 20 ms (and < 0.5 s under emulation), begun on CPU 0, ended on CPU 1 ($moved; the mover may come late under emulation) ($(echo "$out" | head -1); status $st, $n of $all events, $bad out of bounds:$(echo "$rows" | awk -F, -v ns="$cns" -v cpu="$ccpu" '{printf " %s@cpu%s", $ns, $cpu}'))" \
	"$(echo "$out" | grep -q '^timing hrtimer_nanosleep: splice [0-9]* at its entry, [0-9]*\.\.[0-9]* at its [0-9]* return points\?$' &&
	   [ "$st" = 0 ] && [ "$n" = 6 ] && [ "$all" = 6 ] && [ "$bad" = 0 ] && [ "$moved" -ge 1 ]; echo $?)"
build/bin/test-live sleep-migrate 3 40 &
pid=$!
wait $pid
out=$(build/gilk -c 'hist ns')
check "hist ns draws latency's durations ($(echo "$out" | head -1))" \
	"$(echo "$out" | grep -Eq '^ns over 3 of 3 drained events: min 4[0-9]{7}, max [0-9]+$'; echo $?)"
build/gilk -c 'unsplice all' >/dev/null
# Recursion: each call timed on the task's depth stack, 8 deep; deeper
# calls are not timed, and both counts say so.
insmod build/tests/gilk_target.ko
build/gilk -c 'latency gilk_target_recurse' >/dev/null
build/gilk -c events >/dev/null
echo "recurse 5" >/proc/gilk_target
r5=$(cat /proc/gilk_target)
ev=$(build/gilk -c 'events 100' | grep ' latency: ')
depths=$(echo "$ev" | sed -n 's/.* depth=\([0-9]*\) .*/\1/p' | tr '\n' ' ')
check "latency of a recursive function: one event per call, innermost first, each at its depth ($depths; result $r5)" \
	"$([ "$r5" = 15 ] && [ "$depths" = "5 4 3 2 1 0 " ] && ! echo "$ev" | grep -qv 'overflows=0 unmatched=0$'; echo $?)"
echo "recurse 12" >/proc/gilk_target
ev=$(build/gilk -c 'events 100' | grep ' latency: ')
n=$(echo "$ev" | grep -c .)
check "calls deeper than the depth stack (8) are counted as overflows, their exits as unmatched, never timed wrong ($n events)" \
	"$([ "$n" = 8 ] && [ "$(echo "$ev" | sed -n 's/.* depth=\([0-9]*\) .*/\1/p' | tr '\n' ' ')" = "7 6 5 4 3 2 1 0 " ] &&
	   ! echo "$ev" | grep -qv 'overflows=5 unmatched=5$'; echo $?)"
build/gilk -c 'unsplice all' >/dev/null
rmmod gilk_target
out=$(build/gilk -c 'latency do_exit' 2>&1)
check "latency of a function that never returns is refused, and nothing is spliced ($out)" \
	"$(echo "$out" | grep -q 'do_exit has no return point: it never returns' &&
	   build/gilk -c 'info splices' | grep -qx 'no splices'; echo $?)"
# stack: the kernel's unwinder from the site's registers, symbolized
insmod build/instruments/stack.ko && insmod build/instruments/skb.ko
check "the stack and skb instrument modules load" "$?"
build/gilk -c events >/dev/null
build/gilk -c 'splice do_prlimit stack' >/dev/null
build/bin/test-live workload getrlimit 3
out=$(build/gilk -c 'events 1')
check "stack: the site, then its callers up to the syscall entry, each with its symbol ($out)" \
	"$(echo "$out" | grep -q ' stack: suppressed=0 frame0=0x[0-9a-f]* <do_prlimit+[0-9]*> frame1=0x[0-9a-f]* <[_a-z0-9]*sys_prlimit64+[0-9]*> .*<do_syscall_64+[0-9]*>'; echo $?)"
build/gilk -c 'unsplice all' >/dev/null
build/gilk -c events >/dev/null
build/gilk -c 'splice __x64_sys_getppid stack 3' >/dev/null
build/bin/test-live workload getppid 200
sleep 2	# a new second: its first stack says what the last one left out
build/bin/test-live workload getppid 1
ev=$(build/gilk -c 'events 1000')
n=$(echo "$ev" | grep -c ' stack: ')
last=$(echo "$ev" | grep ' stack: ' | tail -1 | sed -n 's/.* suppressed=\([0-9]*\) .*/\1/p')
check "stack is rate-limited (3 a second per CPU here: $n stacks for 201 hits) and says how many it left out (${last:-none})" \
	"$([ "$n" -ge 2 ] && [ "$n" -lt 200 ] && [ "${last:-0}" -gt 0 ] && [ $((n + last)) -ge 201 ]; echo $?)"
build/gilk -c 'unsplice all' >/dev/null

# skb: length and protocol of each packet at ip_rcv (pings on loopback)
ip link set lo up
build/gilk -c events >/dev/null
build/gilk -c 'splice ip_rcv skb' >/dev/null
ping -c 3 -s 56 127.0.0.1 >/dev/null
out=$(build/gilk -c 'events 100')
n=$(echo "$out" | grep -c ' skb: skb=0x[0-9a-f]* <[^>]*> len=84 protocol=0x800 tstamp=[0-9]* unreadable=0$\| skb: skb=0x[0-9a-f]* len=84 protocol=0x800 tstamp=[0-9]* unreadable=0$')
check "skb at ip_rcv: 3 echo requests and 3 replies of 84 bytes, IPv4 ($n)" "$([ "$n" = 6 ]; echo $?)"
build/gilk -c 'unsplice all' >/dev/null
build/gilk -c 'splice ip_rcv skb nosuchreg' >/dev/null
ping -c 1 127.0.0.1 >/dev/null
# (one session: what was spliced as it began is planned from its original
# bytes once removed)
build/gilk -c 'unsplice all' -c 'splice ip_rcv skb' >/dev/null
ping -c 1 127.0.0.1 >/dev/null
out=$(build/gilk -c 'events 100')
check "skb with a register it does not know records nothing, and says so in the next events" \
	"$(echo "$out" | grep -q ' skb: .* unreadable=2$' && ! echo "$out" | grep -q ' unreadable=0$'; echo $?)"
build/gilk -c 'unsplice all' >/dev/null

# An instrument from outside instruments/: the shell names its fields from
# what it publishes, and knows nothing of it otherwise.
insmod build/tests/gilk_fields.ko
r=$(cat /sys/module/gilk_fields/parameters/refused 2>/dev/null)
check "gilk.ko refuses an instrument's field list that is wrong in one thing, and registers the good one ($r of 12 refused)" \
	"$([ "$r" = 12 ] && build/gilk -c 'info instruments' | grep -q '^gilk_fields '; echo $?)"
out=$(build/gilk -c 'info instruments')
check "info instruments lists the fields each instrument publishes ($(echo "$out" | grep -A1 '^gilk_fields ' | tail -1))" \
	"$(echo "$out" | grep -A1 '^gilk_fields ' | tail -1 | grep -qx '  fields: answer where/x \[pid\]' &&
	   echo "$out" | grep -A1 '^stack ' | tail -1 | grep -q '^  fields: suppressed \[frame0/x frame1/x .* frame15/x\]$' &&
	   echo "$out" | grep -A1 '^regs ' | tail -1 | grep -q '^  fields: rax/x rbx/x .* rip/x rflags/x$' &&
	   echo "$out" | grep -A1 '^count ' | tail -1 | grep -q '^tsc '; echo $?)"
build/gilk -c events >/dev/null
build/gilk -c 'splice __x64_sys_getpgrp gilk_fields' -c 'splice __x64_sys_getppid gilk_fields short' >/dev/null
build/bin/test-live workload getpgrp 3 &
pid=$!
wait $pid
build/bin/test-live workload getppid 2 &
pid2=$!
wait $pid2
out=$(build/gilk -c 'events 1000')
n=$(echo "$out" | grep -c "\[$pid\] splice [0-9]* gilk_fields: answer=42 where=0x[0-9a-f]* <[_a-z0-9]*sys_getpgrp[^>]*> pid=$pid\$")
ns=$(echo "$out" | grep -c "\[$pid2\] splice [0-9]* gilk_fields: answer=42 where=0x[0-9a-f]* <[_a-z0-9]*sys_getppid[^>]*>\$")
check "events names the fields an unknown instrument publishes, the site symbolized, the optional pid left off where the event ends before it ($n of 3, $ns of 2)" \
	"$([ "$n" = 3 ] && [ "$ns" = 2 ]; echo $?)"
build/bin/test-live workload getpgrp 4 &
pid=$!
wait $pid
out=$(build/gilk -c "hist data.pid if data.pid == $pid" 2>&1)
check "hist and a filter read its fields by name ($(echo "$out" | head -1))" \
	"$(echo "$out" | head -1 | grep -Eq "^data.pid over 4 of [0-9]+ drained events: min $pid, max $pid\$"; echo $?)"
build/bin/test-live workload getpgrp 2 &
pid=$!
wait $pid
out=$(build/gilk -c 'events 1' -c 'unsplice all' -c '!rmmod gilk_fields' -c 'hist answer' 2>&1)
check "events kept from before their instrument's module went keep its fields' names ($(echo "$out" | grep '^answer over'))" \
	"$(! grep -q '^gilk_fields ' /proc/modules && echo "$out" | grep -q "\[$pid\] splice [0-9]* gilk_fields: answer=42 where=0x" &&
	   echo "$out" | grep -Eq '^answer over [1-9][0-9]* of [1-9][0-9]* drained events: min 42, max 42$'; echo $?)"

rmmod latency hello stack skb
check "the instrument modules unload once no splice uses them" \
	"$(! grep -qE '^(hello|latency|stack|skb) ' /proc/modules; echo $?)"
