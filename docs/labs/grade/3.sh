# Lab 3, the scheduler: what the running kernel says for each question.
clean
max=$(gk 'latency schedule' 'shell sleep 1' 'unsplice all' 'hist ns if comm == "sleep"' |
	sed -n 's/^ns over [0-9]* of [0-9]* drained events: min [0-9]*, max \([0-9]*\)$/\1/p')
verdict 1 "how long sleep 1 is away in its longest schedule(), in ns" \
	"$([ -n "$max" ] && num_in 1 1000000000 $((max + max / 5)); echo $?)" "$max"

v=$(gk 'x/dw sysctl_sched_latency' | sed -n 's/^0x[0-9a-f]* <sysctl_sched_latency>:[[:space:]]*\([0-9]*\)$/\1/p')
verdict 2 "sysctl_sched_latency on this machine, in ns" "$(num_eq 2 "${v}"; echo $?)" "$v"

n=$(gk 'blocks schedule:exit' | grep -c '\[exit: ')
verdict 3 "how many return points schedule has" "$(num_eq 3 "${n}"; echo $?)" "$n"
