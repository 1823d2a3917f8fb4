# Lab 4, interrupts and softirqs: what the running kernel says for each
# question.
t=$(pointer_at softirq_vec+24)
verdict 1 "the handler of NET_RX_SOFTIRQ" "$(sym_eq 1 "$t"; echo $?)" "$t"

j=$(gk 'x/gd &jiffies' 'shell sleep 1' 'x/gd &jiffies' | sed -n 's/^0x[0-9a-f]* <jiffies>:[[:space:]]*\(-*[0-9]*\)$/\1/p' | tr '\n' ' ')
set -- $j 0 0
d=$(($2 - $1))
verdict 2 "HZ, as jiffies advance in a second" "$(num_in 2 $((d - d / 10)) $((d + d / 10)); echo $?)" "$d"

clean
ctx=$(gk 'splice hrtimer_interrupt regs' 'shell sleep 1' 'unsplice all' 'hist cpu by context' |
	sed -n 's/^@\[\([a-z]*\)\]: .*/\1/p' | head -n 1)
verdict 3 "the context hrtimer_interrupt runs in" "$(word_in 3 "$ctx"; echo $?)" "$ctx"
