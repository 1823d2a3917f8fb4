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
	   echo "$err" | grep -q "hist by comm, pid, tid, cpu, splice, context or a fetched value, not 'nosuch'"; echo $?)"
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

# splice ... if EXPR: gilk.ko runs the instrument only where EXPR holds and
# counts the rest as filtered
build/gilk -c events >/dev/null
out=$(build/gilk -c 'splice __x64_sys_getpgrp hello if comm == "test-live" && context == task' 2>&1)
id=$(echo "$out" | sed -n 's/^splice \([0-9]*\) at .*/\1/p')
build/bin/test-live workload getpgrp 7
sh -c 'i=0; while [ $i -lt 5 ]; do i=$((i + 1)); done' # other tasks' calls, if any
info=$(build/gilk -c 'info splices' | awk -v id="$id" '$1 == id')
one=$(build/gilk -c "info splice $id" | sed -n 2p)
ev=$(build/gilk -c 'events 100' | grep ' hello: ')
build/gilk -c 'unsplice all' >/dev/null
check "splice F hello if EXPR: only test-live's 7 calls run hello, listed with the filter ($out; $info)" \
	"$(echo "$out" | grep -q '^splice [0-9]* at __x64_sys_getpgrp+0x[0-9a-f]* .*instrument hello if comm == "test-live" && context == task$' &&
	   echo "$info" | awk '{exit !($4 == 7)}' &&
	   echo "$info" | grep -q ' hello if comm == "test-live" && context == task$' &&
	   echo "$one" | grep -q '^  if comm == "test-live" && context == task: [0-9]* hits filtered out' &&
	   [ "$(echo "$ev" | grep -c ' test-live\[[0-9]*\] splice ')" = 7 ] && [ "$(echo "$ev" | wc -l)" = 7 ]; echo $?)"
out=$(build/gilk -c 'splice __x64_sys_getpgrp hello if pdi == 1' 2>&1; build/gilk -c 'info splices')
check "a filter with a mistyped field: refused with the fields a splice reads, nothing spliced ($(echo "$out" | head -1 | cut -c1-100))" \
	"$(echo "$out" | grep -q "no field 'pdi'; a splice's filter reads: pid tid comm cpu context arg0" &&
	   echo "$out" | tail -1 | grep -qx 'no splices'; echo $?)"
out=$(build/gilk -c 'latency __x64_sys_getpgrp if arg0 == 1' 2>&1; build/gilk -c 'info splices')
check "latency's filter reads the task only: a register is refused, nothing spliced ($(echo "$out" | head -1 | cut -c1-100))" \
	"$(echo "$out" | grep -q 'arg0 differs between a function.s entry and its exits' &&
	   echo "$out" | tail -1 | grep -qx 'no splices'; echo $?)"

# filter-self in gilk.ko: a splice whose instrument is called gets "not
# gilk"; gilk's own reads of /dev/gilk are turned away, not recorded
out=$(build/gilk -c 'set filter-self on' -c 'shell echo self=$PPID' -c 'splice ksys_read hello' \
	-c 'events' -c 'events' -c 'info splices' -c 'unsplice all' 2>&1)
self=$(echo "$out" | sed -n 's/^self=//p')
row=$(echo "$out" | grep ' ksys_read' | tail -1)
check "set filter-self on: splice ksys_read hello is filtered by gilk.ko (not gilk), its reads counted as filtered, none recorded ($row)" \
	"$([ -n "$self" ] && echo "$out" | grep -q "instrument hello if not gilk\$" &&
	   echo "$row" | awk '{exit !($7 >= 1)}' && echo "$row" | grep -q " hello if not gilk\$" &&
	   ! echo "$out" | grep -q "gilk\[$self\]" && ! echo "$out" | grep -q "events of gilk's own left out"; echo $?)"
out=$(build/gilk -c 'set filter-self on' -c 'splice __x64_sys_getpgrp' -c 'info splices' -c 'unsplice all' 2>&1)
check "filter-self leaves an inline count inline, unfiltered ($(echo "$out" | head -1))" \
	"$(echo "$out" | grep -q 'instrument count$' && echo "$out" | grep ' __x64_sys_getpgrp' | grep -q ' count$'; echo $?)"

# retval at FUNC:exit: getppid returns our pid to the workload we start
out=$(build/gilk -c "splice __x64_sys_getppid:exit count if retval == $$ && comm == test-live" 2>&1)
id=$(echo "$out" | sed -n 's/.* splices \([0-9]*\)\.\.[0-9]*$/\1/p')
build/bin/test-live workload getppid 30
# (listed by the name kallsyms gives first, __ia32_sys_getppid on 6.1)
hits=$(build/gilk -c 'info splices' | awk -v id="${id:-x}" '$1 == id {print $4}')
build/gilk -c 'unsplice all' >/dev/null
check "splice F:exit count if retval == V: each return of getppid to test-live counted ($hits of 30; $(echo "$out" | head -1))" \
	"$([ "$hits" = 30 ]; echo $?)"

# argfilter N=V is a special case of a filter: gilk.ko tests argN == V
build/gilk -c 'splice __task_pid_nr_ns argfilter 1=0' >/dev/null
build/bin/test-live workload getppid 20
row=$(build/gilk -c 'info splices' | grep ' argfilter ')
build/gilk -c 'unsplice all' >/dev/null
check "splice F argfilter N=V is filtered by gilk.ko (argN == V): getppid's calls (arg1 1) turned away ($row)" \
	"$(echo "$row" | grep -q ' argfilter 1=0 if arg1 == 0$' && echo "$row" | awk '{exit !($7 >= 20)}'; echo $?)"

# coverage if EXPR: hits counted only where EXPR holds
build/gilk -c 'coverage __x64_sys_getpgrp if comm == "nobody"' >/dev/null
build/bin/test-live workload getpgrp 4
none=$(build/gilk -c 'info splices')
build/gilk -c 'coverage stop' >/dev/null
build/gilk -c 'coverage __x64_sys_getpgrp if comm == "test-live"' >/dev/null
build/bin/test-live workload getpgrp 4
some=$(build/gilk -c 'coverage report' -c 'info splices')
build/gilk -c 'coverage stop' >/dev/null
check "coverage F if EXPR: no hits for another task's name (all filtered), 4 at the entry for test-live's" \
	"$(echo "$none" | grep ' count coverage if comm == "nobody"$' | awk '{h += $4; f += $7} END {exit !(h == 0 && f >= 4)}' &&
	   echo "$some" | grep ' count coverage if comm == "test-live"$' | awk '{if ($4 > m) m = $4} END {exit !(m == 4)}'; echo $?)"

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
