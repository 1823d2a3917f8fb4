# Lab 5, the network receive path: what the running kernel says for each
# question (the lab's network: the gateway 10.0.2.2 answers pings).
f=$(answer 1)
ok=1
if word_in 1 e1000_clean_rx_irq e1000_clean_jumbo_rx_irq; then
	clean
	n=$(gk "splice $f" 'shell ping -c 3 10.0.2.2 > /dev/null' 'info splices' 'unsplice all' |
		awk '$1 ~ /^[0-9]+$/ {print $4; exit}')
	[ "${n:-0}" -gt 0 ] && ok=0
fi
verdict 1 "the e1000 function that takes received packets off the ring" "$ok" "e1000_clean_rx_irq"

clean
n=$(gk 'splice icmp_rcv regs' 'shell ping -c 5 10.0.2.2 > /dev/null' 'unsplice all' 'hist cpu' |
	sed -n 's/^cpu over \([0-9]*\) of .*/\1/p')
verdict 2 "how many times icmp_rcv runs for ping -c 5" "$(num_eq 2 "${n:-0}"; echo $?)" "$n"

clean
len=$(gk 'splice icmp_rcv skb' 'shell ping -c 1 -s 100 10.0.2.2 > /dev/null' 'unsplice all' 'events' |
	sed -n 's/.* skb: skb=[^ ]* len=\([0-9]*\) .*/\1/p' | head -n 1)
verdict 3 "skb->len at icmp_rcv for ping -s 100" "$(num_eq 3 "${len:-x}"; echo $?)" "$len"

clean
ctx=$(gk 'splice icmp_rcv regs' 'shell ping -c 3 10.0.2.2 > /dev/null' 'unsplice all' 'hist cpu by context' |
	sed -n 's/^@\[\([a-z]*\)\]: .*/\1/p' | head -n 1)
verdict 4 "the context icmp_rcv runs in" "$(word_in 4 "$ctx"; echo $?)" "$ctx"
