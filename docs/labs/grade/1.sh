# Lab 1, system calls: what the running kernel says for each question.
t=$(pointer_at sys_call_table+312)
verdict 1 "the function system call 39 (getpid) enters" "$(sym_eq 1 "$t"; echo $?)" "$t"

n=$(events_by __x64_sys_getdents64 ls 'ls /')
verdict 2 "how many times ls / calls getdents64" "$(num_eq 2 "${n}"; echo $?)" "$n"

rax=$(field_of __x64_sys_openat:exit regs cat 'cat /nonexistent' rax)
verdict 3 "what openat returns to cat for a file that does not exist" "$(num_eq 3 "${rax}"; echo $?)" "$rax"

why=$(gk 'blocks do_syscall_64' | sed -n 's/^ *0 .* refused: \([a-z0-9-]*\).*/\1/p')
verdict 4 "why do_syscall_64's first block cannot be spliced" "$(word_in 4 "$why"; echo $?)" "$why"

path=$(fetched_of __x64_sys_openat 'path=(char *)regs->si' id 'id' path)
verdict 5 "the file id opens first, as the fetched path shows it" "$(str_eq 5 "$path"; echo $?)" "$path"

n=$(gk 'whatis sys_call_table' | sed -n 's/^type = .*\[\([0-9]*\)\]$/\1/p')
verdict 6 "how many entries sys_call_table has" "$(num_eq 6 "${n}"; echo $?)" "$n"

n=$(count_of ksys_read dd 'dd if=/dev/zero of=/dev/null bs=1 count=20000 2> /dev/null')
verdict 7 "how many times dd calls ksys_read, counted exactly in gilk.ko" "$(num_eq 7 "${n}"; echo $?)" "$n"
