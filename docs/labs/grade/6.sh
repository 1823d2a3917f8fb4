# Lab 6, memory allocation: what the running kernel says for each question.
n=$(events_by __alloc_pages cat 'cat /proc/version')
verdict 1 "how many times cat /proc/version calls __alloc_pages" "$(num_eq 1 "${n}"; echo $?)" "$n"

clean
ev=$(gk 'splice kmalloc_trace regs' 'shell cat /proc/version > /dev/null' 'unsplice all' 'events if comm == "cat"')
big=$(echo "$ev" | sed -n 's/.* rdx=\(0x[0-9a-f]*\) .*/\1/p' | while read -r v; do echo $((v)); done | sort -n | tail -n 1)
verdict 2 "the largest size cat asks kmalloc_trace for" "$(num_eq 2 "${big:-x}"; echo $?)" "$big"
flags=$(echo "$ev" | sed -n 's/.* rdx=\(0x[0-9a-f]*\) rsi=\(0x[0-9a-f]*\) .*/\1 \2/p' |
	while read -r sz fl; do [ "$((sz))" = "$big" ] && echo "$fl"; done | head -n 1)
verdict 3 "the gfp flags of that allocation" "$(num_eq 3 "${flags:-x}"; echo $?)" "$flags"

n=$(events_by alloc_empty_file cat 'cat /proc/version')
verdict 4 "how many struct files cat /proc/version allocates" "$(num_eq 4 "$n"; echo $?)" "$n"
