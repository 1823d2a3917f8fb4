# Sourced by tests/guest/run.sh (check() is its): every event says which
# task ran the site, and in what context; events, hist and dump events
# filter on it (if EXPR), hist groups by it, and gilk leaves its own out.

# The C path (hello): comm[pid], task context, for each hit
insmod build/instruments/hello.ko
build/gilk -c events >/dev/null
build/gilk -c 'splice __x64_sys_getpgrp hello' >/dev/null
build/bin/test-live workload getpgrp 9 &
pid=$!
wait $pid
ev=$(build/gilk -c 'events 100')
n=$(echo "$ev" | grep -c " cpu[0-9]* test-live\[$pid\] splice [0-9]* hello: pid=$pid\$")
check "an event names the task that ran the site: test-live[$pid], in task context ($n of 9)" \
	"$([ "$n" = 9 ]; echo $?)"

# events if EXPR: the matches shown, the others kept for the session's next
# reader
build/bin/test-live workload getpgrp 4 &
a=$!
wait $a
build/bin/test-live workload getpgrp 6 &
b=$!
wait $b
ev=$(build/gilk -c "events if pid == $b && comm == test-live" -c 'shell echo ---' -c 'events')
rest=$(echo "$ev" | sed -n '/^---$/,$p')
ev=$(echo "$ev" | sed '/^---$/,$d')
check "events if pid == P && comm == NAME: only P's events; the others kept, then shown ($(echo "$ev" | tail -1))" \
	"$([ "$(echo "$ev" | grep -c "test-live\[$b\]")" = 6 ] && ! echo "$ev" | grep -q "\[$a\]" &&
	   echo "$ev" | grep -q '^(4 events the filter does not match kept)$' &&
	   [ "$(echo "$rest" | grep -c "test-live\[$a\]")" = 4 ]; echo $?)"
out=$(build/gilk -c 'events if pidd == 3' 2>&1)
build/bin/test-live workload getpgrp 2
kept=$(build/gilk -c 'events' | grep -c ' hello: ')
check "a filter with a mistyped field is refused with the fields listed, and drains nothing ($(echo "$out" | cut -c1-80))" \
	"$(echo "$out" | grep -q "no field 'pidd'.*every event: time_ns cpu pid tid comm context splice" &&
	   [ "$kept" = 2 ]; echo $?)"
build/bin/test-live workload getpgrp 3
out=$(build/gilk -c 'events if comm ~ "test-*" || pid == 1 | grep -c hello' 2>&1)
check "a filter's || is not a pipe; a pipe after it still is ($out)" "$([ "$out" = 3 ]; echo $?)"

# hist by: one histogram per value of the key, the most events first
build/bin/test-live workload getpgrp 5 &
a=$!
wait $a
build/bin/test-live workload getpgrp 3 &
b=$!
wait $b
out=$(build/gilk -c 'hist cpu by pid if comm == test-live')
check "hist FIELD by pid if EXPR: a histogram per task, the most events first ($(echo "$out" | grep '^@' | tr '\n' ' '))" \
	"$([ "$(echo "$out" | grep -c '^@')" = 2 ] &&
	   echo "$out" | grep '^@' | head -1 | grep -q "^@\[$a\]: cpu over 5 of 8 drained events" &&
	   echo "$out" | grep '^@' | tail -1 | grep -q "^@\[$b\]: cpu over 3 of 8 drained events"; echo $?)"
err=$(build/gilk -c 'hist comm' 2>&1; build/gilk -c 'hist cpu by nosuch' 2>&1)
check "hist of a string, or by an unknown key, says what to do ($(echo "$err" | tr '\n' ' ' | cut -c1-120))" \
	"$(echo "$err" | grep -q 'comm is a string, not a number: "hist FIELD by comm" groups by it' &&
	   echo "$err" | grep -q "hist by comm, pid, tid, cpu, splice or context, not 'nosuch'"; echo $?)"
build/gilk -c 'unsplice all' >/dev/null

# The inline tsc template records the task's pid and interrupt state
# itself; its name is found when drained, alive or (exited) from gilk.ko's
# record of exits
build/gilk -c events >/dev/null
build/gilk -c 'splice __x64_sys_getppid tsc' >/dev/null
build/bin/test-live workload getppid 12 &
pid=$!
wait $pid
build/gilk -c 'dump events --format json /tmp/tsc.json' >/dev/null
n=$(grep -c "\"pid\": $pid, \"tid\": $pid, \"comm\": \"test-live\", \"context\": \"task\", \"splice\"" /tmp/tsc.json)
check "tsc, inline: each event names its task, found by its pid after it exited ($n of 12)" \
	"$([ "$n" = 12 ]; echo $?)"
build/gilk -c 'unsplice all' >/dev/null

# Interrupt context: a hard interrupt's handler and a softirq's, by the C
# path (hello), and a hard interrupt's inline (tsc)
# in_context FUNC CONTEXT MIN: hello's events at FUNC for a second, each
# marked (CONTEXT), at least MIN of them
in_context() {
	local ev all in
	build/gilk -c events >/dev/null
	build/gilk -c "splice $1 hello" >/dev/null
	sleep 1
	# read while the splice is there: a removed one's events lose their instrument
	ev=$(build/gilk -c events)
	build/gilk -c 'unsplice all' >/dev/null
	all=$(echo "$ev" | grep -c ' hello: ')
	in=$(echo "$ev" | grep -c " ($2) splice [0-9]* hello: ")
	check "hello on $1: every event in $2 context ($in of $all)" \
		"$([ "$all" -ge "$3" ] && [ "$in" = "$all" ]; echo $?)"
}
in_context hrtimer_interrupt irq 5
in_context run_timer_softirq softirq 2
build/gilk -c events >/dev/null
build/gilk -c 'splice hrtimer_interrupt tsc' >/dev/null
sleep 1
build/gilk -c 'unsplice all' >/dev/null
out=$(build/gilk -c 'hist cpu by context')
check "tsc inline on hrtimer_interrupt: every hit's preempt count says hard interrupt ($(echo "$out" | grep '^@' | tr '\n' ' '))" \
	"$([ "$(echo "$out" | grep -c '^@')" = 1 ] && echo "$out" | grep -q '^@\[irq\]: cpu over [0-9]* of'; echo $?)"

# filter-self: gilk's own reads left out; off, they show
build/gilk -c 'splice ksys_read hello' >/dev/null
build/gilk -c events >/dev/null
on=$(build/gilk -c 'set filter-self on' -c 'shell echo self=$PPID' -c 'events')
self=$(echo "$on" | sed -n 's/^self=//p')
off=$(build/gilk -c 'shell echo self=$PPID' -c 'events')
self2=$(echo "$off" | sed -n 's/^self=//p')
build/gilk -c 'unsplice all' >/dev/null
check "set filter-self on: the events of gilk's own reads are left out, and it says so; off, they show ($self: $(echo "$on" | tail -1))" \
	"$([ -n "$self" ] && ! echo "$on" | grep -q "\[$self\]" &&
	   echo "$on" | grep -q "^([0-9]* events of gilk's own left out: set filter-self off)$" &&
	   echo "$off" | grep -q "gilk\[$self2\] splice [0-9]* hello: "; echo $?)"

# A removed splice's id is not given to the next splice: the events it left
# in the buffer are not read as the new splice's, through its instrument
old=$(build/gilk -c 'splice __x64_sys_getpgrp hello' | sed -n 's/^splice \([0-9]*\) at .*/\1/p')
build/bin/test-live workload getpgrp 3
build/gilk -c 'unsplice all' >/dev/null
new=$(build/gilk -c 'splice __x64_sys_getpgrp' | sed -n 's/^splice \([0-9]*\) at .*/\1/p')
ev=$(build/gilk -c 'events')
build/gilk -c 'unsplice all' >/dev/null
check "a new splice gets a new id ($old, then $new): the 3 events the removed one left are not the new one's" \
	"$([ -n "$old" ] && [ -n "$new" ] && [ "$old" != "$new" ] &&
	   [ "$(echo "$ev" | grep -c "test-live\[[0-9]*\] splice $old ")" = 3 ] &&
	   ! echo "$ev" | grep -q " splice $new "; echo $?)"
rmmod hello
