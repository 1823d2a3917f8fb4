# Sourced by tests/guest/run.sh (check() is its): several splices at one
# site. A splice where another is joins it (GILK_SPLICE_JOIN): each counts
# every hit with its own filter, is removed in any order, and the site's
# bytes come back with the last; what cannot join says why.
insmod build/tests/gilk_target.ko 2>/dev/null
insmod build/instruments/latency.ko
build/gilk -c 'unsplice all' >/dev/null
hits_of() { # hits_of ID: its hits, as info splices shows them
	build/gilk -c 'info splices' | awk -v id="$1" '$1 == id {print $4}'
}
target() { # target OP N TIMES: writes "OP N" to /proc/gilk_target TIMES times
	j=0
	while [ $j -lt "$3" ]; do
		echo "$1 $2" >/proc/gilk_target
		j=$((j + 1))
	done
}
id_of() { # id_of TEXT ERE: the splice id of the first line of TEXT matching ERE
	echo "$1" | grep -E "^splice [0-9]+ at .*$2" | head -n1 | sed 's/^splice \([0-9]*\) .*/\1/'
}

# count, then latency and a filtered regs at the same function entry
warn_bytes=$(build/gilk -c 'x/32xb gilk_target_warn')
out=$(build/gilk -c 'splice gilk_target_warn' -c 'latency gilk_target_warn' \
	-c 'splice gilk_target_warn regs if arg0 == 2' 2>&1)
site=$(echo "$out" | sed -n '1s/^splice [0-9]* at \([^ ]*\) .*/\1/p')
c=$(id_of "$out" 'instrument count$')
# what the site held: the bytes its first splice displaced
before=$(build/gilk -c "info splice $c" | sed -n 's/^  displaced [0-9]* bytes: //p')
build/gilk -c events >/dev/null
l=$(echo "$out" | sed -n 's/^timing gilk_target_warn: splice \([0-9]*\) at its entry.*/\1/p')
r=$(id_of "$out" 'joins the splices there.*instrument regs')
check "latency and a filtered regs join a counted site, each a splice of its own ($(echo "$out" | tr '\n' ' '))" \
	"$([ -n "$c" ] && [ -n "$l" ] && [ -n "$r" ] &&
	   build/gilk -c 'info splices' | grep -Eq "^ *$l .*latency entry +\(joined\)$"; echo $?)"
target warn 2 7
target warn 4 3
hc=$(hits_of "$c") hl=$(hits_of "$l") hr=$(hits_of "$r")
info=$(build/gilk -c "info splice $r" -c "info splice $c" 2>&1)
check "each splice at the site counts every hit, the filtered one its own: count $hc, latency $hl of 10, regs $hr of 7" \
	"$([ "$hc" = 10 ] && [ "$hl" = 10 ] && [ "$hr" = 7 ]; echo $?)"
check "info splice says where each goes on to ($(echo "$info" | grep 'the site holds' | tr '\n' ' '))" \
	"$(echo "$info" | grep -q "^  the site holds 3 splices; its trampoline goes on to splice $l$" &&
	   echo "$info" | grep -q "^  the site holds 3 splices; it replays the site's code$"; echo $?)"
ev=$(build/gilk -c 'events 100' 2>&1)
check "the joined regs splice's events are its own ($(echo "$ev" | grep -c "splice $r regs") of 7)" \
	"$([ "$(echo "$ev" | grep -c "splice $r regs")" = 7 ]; echo $?)"

# the middle one goes: the top goes on to the first
build/gilk -c "unsplice $l" >/dev/null
target warn 2 5
info=$(build/gilk -c "info splice $r" 2>&1)
check "the middle splice removed, the others count on: count $(hits_of "$c") of 15, regs $(hits_of "$r") of 12, the top goes on to splice $c" \
	"$([ "$(hits_of "$c")" = 15 ] && [ "$(hits_of "$r")" = 12 ] &&
	   echo "$info" | grep -q "^  the site holds 2 splices; its trampoline goes on to splice $c$"; echo $?)"

# the first one goes: its trampoline stays for the other, unlisted
build/gilk -c "unsplice $c" >/dev/null
target warn 2 4
list=$(build/gilk -c 'info splices' 2>&1)
check "the first splice removed while another stays: gone from the list, the other counts on ($(hits_of "$r") of 16)" \
	"$([ "$(hits_of "$r")" = 16 ] && ! echo "$list" | grep -q "^ *$c " &&
	   build/gilk -c "unsplice $c" 2>&1 | grep -q 'no such splice'; echo $?)"
build/gilk -c "unsplice $r" >/dev/null
after=$(build/gilk -c "x/$(echo "$before" | wc -w)xb $site" | sed 's/^[^:]*://' | tr -s ' \t' ' ' | sed 's/0x//g; s/^ //; s/ $//')
list=$(build/gilk -c 'info splices' 2>&1)
check "the last splice of the site removed: its bytes are the kernel's again ($after)" \
	"$([ -n "$before" ] && [ "$before" = "$after" ] && ! echo "$list" | grep -q "^ *[0-9]* *$site "; echo $?)"
build/gilk -c 'unsplice all' >/dev/null
check "with the function's other splices removed, all its bytes are the kernel's" \
	"$([ "$(build/gilk -c 'x/32xb gilk_target_warn')" = "$warn_bytes" ]; echo $?)"

# sites whose jmp is a bounce slot's, through padding and through an evicted neighbour
for t in pad evict; do
	off=$(build/gilk -c "blocks gilk_target_$t" | sed -n 's/^ *[0-9]* *\(+0x[0-9a-f]*\) .*bounce via.*/\1/p' | head -n1)
	before=$(build/gilk -c "x/48xb gilk_target_$t")
	out=$(build/gilk -c "splice gilk_target_$t$off" -c "splice gilk_target_$t$off" -c "splice gilk_target_$t$off tsc" 2>&1)
	a=$(id_of "$out" 'bounce.*instrument count$')
	b=$(id_of "$out" 'joins the splices there.*instrument count$')
	d=$(id_of "$out" 'joins the splices there.*instrument tsc$')
	target "$t" 3 6
	ha=$(hits_of "$a") hb=$(hits_of "$b") hd=$(hits_of "$d")
	build/gilk -c "unsplice $a $d" >/dev/null
	target "$t" 3 2
	hb2=$(hits_of "$b")
	build/gilk -c "unsplice $b" >/dev/null
	after=$(build/gilk -c "x/48xb gilk_target_$t")
	check "a bounced site ($t$off) takes two more, each counting every hit ($ha $hb $hd of 6), the last left counting on ($hb2 of 8), the bytes back after" \
		"$([ -n "$a" ] && [ "$ha" = 6 ] && [ "$hb" = 6 ] && [ "$hd" = 6 ] && [ "$hb2" = 8 ] &&
		   [ "$before" = "$after" ]; echo $?)"
done

# all of a site's splices in one batch, with one of another site
out=$(build/gilk -c 'splice gilk_target_warn' -c 'splice gilk_target_warn' -c 'splice gilk_target_flags' 2>&1)
ids=$(echo "$out" | sed -n 's/^splice \([0-9]*\) at .*/\1/p' | tr '\n' ' ')
out=$(build/gilk -c "unsplice $ids" -c 'info splices' 2>&1)
check "a batch removes a site's splices with another's ($ids: $(echo "$out" | tr '\n' ' '))" \
	"$(echo "$out" | grep -qx 'no splices' && [ "$(build/gilk -c 'x/32xb gilk_target_warn')" = "$warn_bytes" ]; echo $?)"

# the most a site takes, then said
cmds=""
k=0
while [ $k -lt 17 ]; do
	cmds="$cmds -c 'splice gilk_target_warn'"
	k=$((k + 1))
done
out=$(eval build/gilk "$cmds" 2>&1)
check "a site takes 16 splices, and the 17th is refused with that said ($(echo "$out" | tail -n1))" \
	"$([ "$(echo "$out" | grep -c '^splice [0-9]* at ')" = 16 ] &&
	   echo "$out" | grep -q 'holds 16 splices, the most a site takes'; echo $?)"
build/gilk -c 'unsplice all' >/dev/null

# a site inside another splice's bytes, not at its start: refused, the owner
# named (the evict target's first 9 bytes are one region: its first
# instruction is 3 bytes)
out=$(build/gilk -c 'splice gilk_target_evict' -c 'splice gilk_target_evict+0x3' 2>&1)
own=$(id_of "$out" 'instrument count$')
check "a splice inside another's bytes is refused, the owner named ($(echo "$out" | tr '\n' ' '))" \
	"$(echo "$out" | grep -q "another splice already owns some of these bytes (splice $own, count, at gilk_target_evict)"; echo $?)"
build/gilk -c 'unsplice all' >/dev/null

# an instrument going (rmmod -f) takes its joined splices; the site's others stay
out=$(build/gilk -c 'splice gilk_target_warn' -c 'latency gilk_target_warn' 2>&1)
c=$(id_of "$out" 'instrument count$')
rmmod -f latency
st=$?
target warn 2 3
list=$(build/gilk -c 'info splices' 2>&1)
check "rmmod -f of a joined splice's instrument removes its splices; the site's first counts on (status $st; $(echo "$list" | tr '\n' ' '))" \
	"$([ "$st" = 0 ] && [ "$(hits_of "$c")" = 3 ] && ! echo "$list" | grep -q latency; echo $?)"
insmod build/instruments/latency.ko
# and with the first removed under them: the site's bytes come back
build/gilk -c 'latency gilk_target_warn' >/dev/null
build/gilk -c "unsplice $c" >/dev/null
rmmod -f latency
st=$?
list=$(build/gilk -c 'info splices' 2>&1)
check "rmmod -f of the instrument of the splices left on a removed first: they go, the site's bytes back (status $st; $(echo "$list" | tr '\n' ' '))" \
	"$([ "$st" = 0 ] && echo "$list" | grep -qx 'no splices' &&
	   [ "$(build/gilk -c 'x/32xb gilk_target_warn')" = "$warn_bytes" ]; echo $?)"
insmod build/instruments/latency.ko

# joins and removals of one site's splices racing from two processes, its
# first removed under them, and the instrument of some of them unloaded
# meanwhile: each is done whole or refused (the site busy), nothing is left
out=$(build/gilk -c 'splice gilk_target_warn' -c 'splice gilk_target_warn' 2>&1)
build/gilk -c "unsplice $(id_of "$out" 'instrument count$')" >/dev/null
for i in $(seq 25); do
	echo 'splice gilk_target_warn'
	echo 'latency gilk_target_warn'
	echo 'splice gilk_target_warn regs if arg0 == 2'
	echo 'unsplice all'
done >/tmp/joinchurn.gilk
dmesg -c >/dev/null
build/gilk -batch -x /tmp/joinchurn.gilk >/dev/null 2>&1 &
p1=$!
build/gilk -batch -x /tmp/joinchurn.gilk >/dev/null 2>&1 &
p2=$!
target warn 2 300 &
p3=$!
sleep 2
rmmod -f latency
rm=$?
wait $p1 $p2 $p3
insmod build/instruments/latency.ko
build/gilk -c 'unsplice all' >/dev/null 2>&1
list=$(build/gilk -c 'info splices' 2>&1)
check "joins and removals at one site racing from two shells, an instrument unloaded among them (rmmod -f: $rm): nothing left, the bytes back, no kernel report" \
	"$(echo "$list" | grep -qx 'no splices' && [ "$(build/gilk -c 'x/32xb gilk_target_warn')" = "$warn_bytes" ] &&
	   ! dmesg | grep -qE 'BUG|WARNING|Oops|still has'; echo $?)"

# the module whose text a site's splices share goes (rmmod -f): all go
insmod build/instruments/argfilter.ko 2>/dev/null
out=$(build/gilk -c 'splice argfilter_fn' -c 'splice argfilter_fn regs' -c 'splice argfilter_fn tsc' 2>&1)
build/gilk -c "unsplice $(id_of "$out" 'instrument count$')" >/dev/null
rmmod -f argfilter
st=$?
list=$(build/gilk -c 'info splices' 2>&1)
check "rmmod -f of the module whose text holds a site's splices (its first removed) takes them all (status $st; $(echo "$list" | tr '\n' ' '))" \
	"$([ "$st" = 0 ] && echo "$list" | grep -qx 'no splices' && ! dmesg | grep -qE 'BUG|WARNING|Oops'; echo $?)"
insmod build/instruments/argfilter.ko
build/gilk -c 'unsplice all' >/dev/null
rmmod latency
# as the suite had it: the target module not loaded
rmmod gilk_target
