#!/usr/bin/env bash
# The gilk shell, offline against the reference kernel: commands, errors and
# exit statuses, transcripts, and Tab completion in a real terminal (tmux).
# Kernel addresses are never written down here: checks compare the shell's
# answers with each other and with the symbol table.
set -u
cd "$(dirname "$0")/.."
ref=build/cache/ref
G=(build/gilk --kernel "$ref/vmlinuz" --symbols "$ref/kallsyms")
pass=0 fail=0
check() { # check NAME STATUS
	if [ "$2" = 0 ]; then echo "PASS $1"; pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); fi
}
fails() { # fails NAME COMMAND TEXT: "gilk -c COMMAND" exits 1, saying TEXT
	"${G[@]}" -c "$2" >/dev/null 2>"$t/e"
	check "$1" "$([ $? = 1 ] && grep -q -- "$3" "$t/e"; echo $?)"
}
t=$(mktemp -d)
trap 'rm -rf "$t"; tmux kill-session -t gilk-test 2>/dev/null' EXIT

"${G[@]}" -c help >"$t/help"
# The command table, as gilk's own complete command lists it
"${G[@]}" -c 'complete' >"$t/cmds"
check "help lists every command of the table ($(wc -l <"$t/cmds") commands)" \
	"$([ "$(wc -l <"$t/cmds")" -ge 18 ] && for c in $(cat "$t/cmds"); do grep -q "^  $c" "$t/help" || exit 1; done; echo $?)"
"${G[@]}" -c 'help dis' >"$t/h"
check "help COMMAND shows usage and help; a unique prefix names a command" \
	"$(grep -q '^usage: disas \[/rs\] LOCATION \[COUNT\]' "$t/h" && grep -q "block" "$t/h"; echo $?)"

# disas of a whole function: one line per instruction, as many as blocks says
"${G[@]}" -c 'disas __x64_sys_getppid' >"$t/d"
"${G[@]}" -c 'blocks __x64_sys_getppid' >"$t/b"
ninsn=$(sed -n 's/.*, \([0-9]*\) instructions,.*/\1/p' "$t/b")
check "disas shows every instruction of a function ($ninsn)" \
	"$([ -n "$ninsn" ] && [ "$(wc -l <"$t/d")" = "$ninsn" ]; echo $?)"
addr=$(awk '$1 == "__x64_sys_getppid" || $3 == "__x64_sys_getppid" {print $1}' "$ref/kallsyms" | head -1)
check "disas starts at the symbol's address, marks the block start, labels with the name given" \
	"$(head -1 "$t/d" | grep -q "^> 0x$addr <__x64_sys_getppid+0>:"; echo $?)"
check "blocks: the entry block is spliced past the ftrace nop" \
	"$(grep -q '^   0 .*(past ftrace) jmp' "$t/b"; echo $?)"
"${G[@]}" -c 'x __x64_sys_getppid 5' >"$t/x"
check "x shows the bytes disas decoded" \
	"$(bytes=$(head -1 "$t/d" | awk '{print $4, $5, $6, $7, $8}'); grep -q ": $bytes\$" "$t/x"; echo $?)"

# A pasted list of any length is one command: 400 function names (some
# 8 KiB), from -c, a transcript and standard input alike.
names=$(awk '$2 ~ /^[tT]$/ && $3 ~ /^[a-z_]+$/ {n[$3]++; if (n[$3] == 1) o[++k] = $3}
	END {for (i = 1; i <= k && c < 400; i++) if (n[o[i]] == 1) {print o[i]; c++}}' "$ref/kallsyms" | tr '\n' ' ')
"${G[@]}" -c "plan --blocks $names" >"$t/long-c" 2>&1
echo "plan --blocks $names" >"$t/long.gilk"
"${G[@]}" -x "$t/long.gilk" >"$t/long-x" 2>&1
echo "plan --blocks $names" | "${G[@]}" >"$t/long-in" 2>&1
nfn=$(tail -1 "$t/long-c" | sed -n 's/^[0-9]* of [0-9]* blocks of \([0-9]*\) functions spliceable$/\1/p')
check "a line of 400 names ($(echo "$names" | wc -c) bytes) plans every function (${nfn:-none}), from -c, -x and stdin" \
	"$([ "$(echo "$names" | wc -w)" = 400 ] && [ "${nfn:-0}" -ge 390 ] &&
	   cmp -s "$t/long-c" "$t/long-x" && cmp -s "$t/long-c" "$t/long-in"; echo $?)"

# A name static functions share: the error names each as NAME@ADDR, and one
# of them, or all (NAME@*), can be asked for.
dup=$(awk '$2 ~ /^[tT]$/ {n[$3]++} END {for (f in n) if (n[f] == 2 && f ~ /^[a-z_]+$/) {print f; exit}}' "$ref/kallsyms")
"${G[@]}" -c "blocks $dup" >/dev/null 2>"$t/e"
second=$(awk -v f="$dup" '$3 == f {print $1}' "$ref/kallsyms" | sed -n 2p)
"${G[@]}" -c "blocks $dup@0x$second" >"$t/o" 2>&1
"${G[@]}" -c "plan --blocks $dup@*" >"$t/all" 2>&1
check "a name two functions share ($dup) is refused naming each as NAME@ADDR; $dup@ADDR is one, $dup@* both" \
	"$(grep -q "'$dup' names 2 symbols: $dup@0x[0-9a-f]*, $dup@0x$second; name one as NAME@ADDR" "$t/e" &&
	   head -1 "$t/o" | grep -q "^$dup: [0-9]* bytes" &&
	   [ "$(grep -c "^$dup@0x[0-9a-f]*: [0-9]* of [0-9]* blocks spliceable" "$t/all")" = 2 ] &&
	   tail -1 "$t/all" | grep -q " blocks of 2 functions spliceable\$"; echo $?)"
fails "NAME@ADDR where no copy of NAME is names the copies there are" "blocks $dup@0x1" "no '$dup' at 0x1; its copies: $dup@0x"

# errors: specific, on stderr, status 1, nothing after them runs
"${G[@]}" -c 'disas __x64_sys_getppid+1' >"$t/o" 2>"$t/e"
check "an address inside an instruction is refused, naming the instruction" \
	"$([ $? = 1 ] && grep -q 'is inside the instruction at +0x0 (5 bytes)' "$t/e"; echo $?)"
"${G[@]}" -c 'plan __x64_sys_getppid' >"$t/o" 2>"$t/e"
check "plan at an ftrace site is refused with the reason" \
	"$([ $? = 1 ] && grep -q 'ftrace call site' "$t/e"; echo $?)"
# A WARN() and a BUG() block of do_exit: replayed, so plannable.
"${G[@]}" -c 'blocks do_exit' >"$t/o"
warn=$(grep -m1 'WARN replayed' "$t/o" | awk '{print $2}')
bug=$(grep -m1 'BUG replayed' "$t/o" | awk '{print $2}')
"${G[@]}" -c "plan do_exit$warn" -c "disas do_exit$warn 1" >"$t/p" 2>"$t/e"
check "plan at a WARN() ud2 ($warn) says it is replayed, not relocated" \
	"$([ $? = 0 ] && grep -q 'WARN replayed' "$t/p" && grep -q 'is a WARN() site: it stays out of the trampoline' "$t/p" &&
	   grep -q '(the ud2 replayed, 0 in 0 instructions relocated)' "$t/p" &&
	   grep -q 'ud2' "$t/p"; echo $?)"
"${G[@]}" -c "plan do_exit$bug" >"$t/p" 2>"$t/e"
check "plan at a BUG() ud2 ($bug) says it is replayed, then an oops" \
	"$([ $? = 0 ] && grep -q 'BUG replayed' "$t/p" && grep -q 'kernel BUG report, then an oops' "$t/p"; echo $?)"
# plan --blocks: several functions, by name and by glob, a line each (what
# splice --blocks reports live, per function), the total their sum.
"${G[@]}" -c "plan --blocks 'tcp_v4_*' path_init tcp_v4_rcv" >"$t/pb" 2>"$t/e"
# (init code, freed after boot, is not matched: only .text)
nglob=$(awk '$3 == "_stext" {lo = $1} $3 == "_etext" {hi = $1}
	     $2 ~ /^[tT]$/ && $3 ~ /^tcp_v4_/ {a[$1] = 1}
	     END {for (x in a) if (x >= lo && x < hi) n++; print n}' "$ref/kallsyms")
"${G[@]}" -c 'blocks tcp_v4_rcv' >"$t/o"
check "plan --blocks: a line per function a glob or name gives, each once ($nglob match tcp_v4_*), as blocks counts them" \
	"$([ "$(grep -c ' blocks spliceable' "$t/pb")" = "$((nglob + 1))" ] &&
	   [ "$(grep -c '^tcp_v4_rcv: ' "$t/pb")" = 1 ] && grep -q '^path_init: 60 of 60 blocks spliceable$' "$t/pb" &&
	   ok=$(awk '/^[0-9]+ of [0-9]+ blocks spliceable or spliced/ {print $1 " of " $3}' "$t/o") &&
	   grep -q "^tcp_v4_rcv: $ok blocks spliceable, refused: " "$t/pb" &&
	   sum=$(awk '/: [0-9]+ of [0-9]+ blocks spliceable/ {g += $2; n += $4} END {print g " of " n}' "$t/pb") &&
	   grep -q "^$sum blocks of $((nglob + 1)) functions spliceable$" "$t/pb"; echo $?)"
# The whole kernel takes seconds: past the first, stderr says how far it is
# (a line a second, not on stdout), and the result is the same
"${G[@]}" -c "plan --blocks '*'" >"$t/all-o" 2>"$t/all-e"
check "plan --blocks '*': progress on stderr past the first second ($(head -1 "$t/all-e")), the answer on stdout" \
	"$([ $? = 0 ] && grep -qE '^[0-9]+ of [0-9]+ functions read, [0-9]+ blocks$' "$t/all-e" &&
	   ! grep -q 'functions read' "$t/all-o" &&
	   tail -1 "$t/all-o" | grep -qE '^[0-9]+ of [0-9]+ blocks of [0-9]+ functions spliceable$'; echo $?)"
fails "plan --blocks with a glob no function matches says so" "plan --blocks 'no_such_fn_*' path_init" "no kernel function matches 'no_such_fn_\*'"
fails "plan --blocks without a function is a usage error" 'plan --blocks' 'usage: plan \[--blocks\] LOCATION...'
# Locations: FUNC:entry, FUNC:exit, FUNC:blocks, FUNC:block N
"${G[@]}" -c 'blocks do_sys_openat2' >"$t/b"
"${G[@]}" -c 'blocks do_sys_openat2:exit' >"$t/bx"
nexit=$(grep -c '^ *[0-9]* .* -> exit .*\[exit: ' "$t/b")
check "blocks FUNC:exit lists exactly the blocks that return ($nexit), with where each exit splice goes" \
	"$([ "$nexit" -ge 1 ] && [ "$(grep -c '\[exit: ' "$t/bx")" = "$nexit" ] &&
	   [ "$(grep '\[exit: ' "$t/b")" = "$(grep '\[exit: ' "$t/bx")" ] &&
	   grep -q '\[exit: return thunk at +0x[0-9a-f]*, jmp, region 5 bytes\]' "$t/bx"; echo $?)"
check "blocks: the block before a noreturn call is not an exit, and says so" \
	"$(grep -q -- '-> noreturn .*\[calls __stack_chk_fail, which does not return: not an exit\]' "$t/b" &&
	   ! grep -q -- '__stack_chk_fail' "$t/bx"; echo $?)"
"${G[@]}" -c 'disas do_sys_openat2:exit' >"$t/dx"
check "disas FUNC:exit shows each return point's instruction, one per exit" \
	"$([ "$(wc -l <"$t/dx")" = "$nexit" ] && ! grep -vq 'jmp .*<__x86_return_thunk>\|ret\|jmp .*<[a-z_]*>$' "$t/dx"; echo $?)"
"${G[@]}" -c 'plan do_sys_openat2:exit' >"$t/px"
check "plan FUNC:exit gives a verdict per return point" \
	"$([ "$(grep -c '^block [0-9]* at do_sys_openat2+0x[0-9a-f]* (0x[0-9a-f]*), return thunk: jmp' "$t/px")" = "$nexit" ] &&
	   grep -qx "$nexit of $nexit sites can be spliced" "$t/px"; echo $?)"
"${G[@]}" -c 'plan do_sys_openat2:entry' -c 'plan do_sys_openat2+5' >"$t/pe"
check "FUNC:entry is the entry block past the ftrace nop" \
	"$([ "$(sed -n 2p "$t/pe")" = "$(sed -n 5p "$t/pe")" ] && sed -n 2p "$t/pe" | grep -q '^region: do_sys_openat2+0x5 '; echo $?)"
off=$(awk '$1 == "3" {print $2}' "$t/b")
n=$(awk '$1 == "3" {print $5}' "$t/b")
"${G[@]}" -c 'disas do_sys_openat2:block 3' >"$t/d3"
check "disas FUNC:block N shows block N, as blocks numbers it ($off, $n instructions)" \
	"$([ "$(wc -l <"$t/d3")" = "$n" ] && head -1 "$t/d3" | grep -q "^> 0x[0-9a-f]* <do_sys_openat2+$((off))>:" &&
	   "${G[@]}" -c 'blocks do_sys_openat2:block 3' | grep -q "^   3  $off "; echo $?)"
"${G[@]}" -c 'blocks schedule:exit' >"$t/o"
check "a tail call is a return point: spliced before the jmp" \
	"$(grep -q '\[exit: tail call to [a-z_]* at +0x[0-9a-f]*, jmp' "$t/o"; echo $?)"
nb=$(sed -n 's/.*, \([0-9]*\) blocks$/\1/p' "$t/b")
fails "FUNC:block past the last block is refused, saying how many there are" 'disas do_sys_openat2:block 999' "do_sys_openat2 has $nb blocks (0 to $((nb - 1))), not block 999"
fails "FUNC:block without a number says what it needs" 'plan do_sys_openat2:block' 'FUNC:block needs a block number'
fails "an unknown suffix names the ones there are" 'plan do_sys_openat2:ret' ':entry, :exit, :blocks or :block N'
fails "FUNC:exit of a function that never returns is refused" 'plan do_exit:exit' 'do_exit has no return point: it never returns'
fails "splice FUNC:exit offline needs live mode" 'splice do_sys_openat2:exit' 'splice needs live mode'
fails "a missing symbol is named" 'disas no_such_symbol_anywhere' "no symbol 'no_such_symbol_anywhere'"
"${G[@]}" -c 'frobnicate' -c 'help' >"$t/o" 2>"$t/e"
check "an unknown command stops -c with status 1; later commands do not run" \
	"$([ $? = 1 ] && grep -q 'undefined command: "frobnicate"' "$t/e" && [ ! -s "$t/o" ]; echo $?)"
fails "an ambiguous prefix is not a command" 'sh x' 'undefined command: "sh"'
fails "an unterminated quote is an error" 'help "disas' 'unterminated quote'
"${G[@]}" -c 'splice __x64_sys_getppid' 2>"$t/e"
check "splice offline says it needs live mode, and what to do instead" \
	"$([ $? = 1 ] && grep -q 'splice needs live mode (/dev/gilk, gilk.ko loaded); offline, "plan" shows' "$t/e"; echo $?)"
# Live-only commands and arity errors come from the table, one message each
bad=""
for c in $(cat "$t/cmds"); do
	"${G[@]}" -c "help $c" >"$t/hc"
	usage=$(sed -n 's/^usage: //p' "$t/hc")
	if grep -q '^Needs live mode.$' "$t/hc"; then
		"${G[@]}" -c "$c 1 2 3 4 5 6" 2>"$t/e" >/dev/null
		grep -qx "gilk: $c needs live mode (/dev/gilk, gilk.ko loaded)\(; offline, .*\)\?" "$t/e" || bad="$bad $c(live)"
	fi
done
for c in "disas" "plan" "x" "source" "record" "set listsize" "info" "dump memory"; do
	"${G[@]}" -c "$c" 2>"$t/e" >/dev/null
	[ $? = 1 ] && grep -q "^gilk: usage: " "$t/e" || bad="$bad $c(too few)"
done
for c in "help a b" "disas a b c" "plan a b" "quit now" "show a b" "events 1 2"; do
	"${G[@]}" -c "$c" 2>"$t/e" >/dev/null
	[ $? = 1 ] && grep -q "^gilk: \(usage: \|events needs live\)" "$t/e" || bad="$bad $c(too many)"
done
check "arity and live-mode errors come from the command table${bad:+:$bad}" "$([ -z "$bad" ]; echo $?)"
# subcommands: their own rows give the usage, the arity, the mode, and the
# list an unknown one gets; a unique prefix names one
"${G[@]}" -c 'help info' >"$t/hc"
"${G[@]}" -c 'info sym jiffies' >"$t/o" 2>&1
"${G[@]}" -c 'info splices' 2>"$t/e1" >/dev/null
"${G[@]}" -c 'dump memory x jiffies' 2>"$t/e2" >/dev/null
"${G[@]}" -c 'info instruments now' 2>"$t/e3" >/dev/null
"${G[@]}" -c 'info s' 2>"$t/e4" >/dev/null
check "subcommands: usage, arity, live mode and prefixes from their rows" \
	"$(grep -q '^usage: info splices \[ID\] | info instruments | info symbol LOCATION | ' "$t/hc" &&
	   grep -qx 'Needs live mode: info splices, info instruments.' "$t/hc" &&
	   grep -q '^jiffies in section' "$t/o" &&
	   grep -qx 'gilk: info splices needs live mode (/dev/gilk, gilk.ko loaded)' "$t/e1" &&
	   grep -qx 'gilk: usage: dump memory FILE START END|+LEN' "$t/e2" &&
	   grep -qx 'gilk: usage: info instruments' "$t/e3" &&
	   grep -q '^gilk: info what? splices, instruments, symbol' "$t/e4"; echo $?)"
build/gilk --kernel "$ref/vmlinuz" -c help 2>"$t/e"
check "offline mode needs both --kernel and --symbols" "$([ $? = 2 ] && grep -q 'needs both' "$t/e"; echo $?)"

# output redirection, as in crash
"${G[@]}" -c "blocks __x64_sys_getppid > $t/r" >"$t/o"
"${G[@]}" -c "blocks __x64_sys_getppid >> $t/r" >>"$t/o"
check "CMD > FILE writes FILE, >> appends, nothing on stdout" \
	"$([ ! -s "$t/o" ] && [ "$(grep -c spliceable "$t/r")" = 2 ]; echo $?)"
echo kept >"$t/kept"
"${G[@]}" -c "disas > $t/kept" 2>"$t/e"
check "a usage error leaves the file it would have written alone" \
	"$([ $? = 1 ] && grep -q 'usage: disas' "$t/e" && [ "$(cat "$t/kept")" = kept ]; echo $?)"
fails "a redirection without a file is an error" 'blocks __x64_sys_getppid >' 'redirection needs a file'
fails "a file that cannot be written is named" 'help > /nonexistent/dir/file' '/nonexistent/dir/file: No such file'

# transcripts: -x, source, and a pipe; the first error names its line
printf 'help quit\n# a comment\nblocks __x64_sys_getppid\nbogus here\nhelp\n' >"$t/script"
"${G[@]}" -x "$t/script" >"$t/o" 2>"$t/e"
check "-x FILE runs commands until the first error (status 1)" \
	"$([ $? = 1 ] && grep -q 'spliceable' "$t/o" && ! grep -q 'gilk commands' "$t/o"; echo $?)"
"${G[@]}" -c "source $t/script" >"$t/o" 2>"$t/e"
check "source names the failing line" "$([ $? = 1 ] && grep -q "$t/script:4: undefined command" "$t/e"; echo $?)"
printf 'help quit\nblocks __x64_sys_getppid\n' | "${G[@]}" >"$t/o" 2>&1
check "commands piped on stdin run in batch mode (status 0)" "$([ $? = 0 ] && grep -q 'spliceable' "$t/o"; echo $?)"
printf 'nonsense\nhelp\n' | "${G[@]}" >"$t/o" 2>&1
check "in batch mode the first error ends the run (status 1)" "$([ $? = 1 ] && ! grep -q 'gilk commands' "$t/o"; echo $?)"

# blocks --dot: the same blocks and edges as the listing, as a digraph
"${G[@]}" -c 'blocks --dot do_exit' >"$t/dot" 2>"$t/e"
nodes=$(grep -c '^  b[0-9]* \[label="block ' "$t/dot")
edges=$(grep -c '^  b[0-9]* -> b[0-9]*' "$t/dot")
"${G[@]}" -c 'blocks do_exit' >"$t/o"
nblocks=$(sed -n 's/.*, \([0-9]*\) blocks$/\1/p' "$t/o")
nsucc=$(awk '$7 == "->" && $8 ~ /^[0-9,]+$/ {n += split($8, a, ",")} END {print n + 0}' "$t/o")
check "blocks --dot: a node per block ($nodes of $nblocks), an edge per successor ($edges of $nsucc)" \
	"$([ "$nodes" = "$nblocks" ] && [ "$edges" = "$nsucc" ] && head -1 "$t/dot" | grep -q '^digraph "do_exit" {$' &&
	   [ "$(tail -1 "$t/dot")" = "}" ] && grep -q 'label="after WARN"' "$t/dot" && grep -q 'WARN replayed' "$t/dot"; echo $?)"
fails "blocks --dot without a function is a usage error" 'blocks --dot' 'usage: blocks \[--dot\] LOCATION'

# Symbolized operands, as gdb prints them: every address checked against kallsyms
sym_addr() { awk -v n="$1" '$3 == n {print "0x" $1; exit}' "$ref/kallsyms"; }
fentry=$(sym_addr __fentry__) rethunk=$(sym_addr __x86_return_thunk)
check "disas names call and jump targets: <__fentry__>, <__x86_return_thunk>, said to be a return thunk" \
	"$(head -1 "$t/d" | grep -q "call $fentry <__fentry__> .*# ftrace entry\$" &&
	   grep -q "jmp $rethunk <__x86_return_thunk> .*# return thunk\$" "$t/d"; echo $?)"
"${G[@]}" -c 'disas tcp_v4_rcv' >"$t/tcp"
line=$(grep -m1 'qword ptr \[rip + 0x[0-9a-f]*\].*# 0x[0-9a-f]* <[a-z_]*>$' "$t/tcp")
ripsym=$(echo "$line" | sed -n 's/.*# \(0x[0-9a-f]*\) <\([a-z_]*\)>$/\2/p')
ripaddr=$(echo "$line" | sed -n 's/.*# \(0x[0-9a-f]*\) <.*/\1/p')
check "a RIP-relative operand gets its address and symbol as a comment ($ripsym)" \
	"$([ -n "$ripsym" ] && [ "$(sym_addr "$ripsym")" = "$ripaddr" ]; echo $?)"
sct=$(grep -m1 'call 0x[0-9a-f]* <__SCT__[a-z_0-9]*> *# static call ' "$t/tcp")
check "a static call trampoline is named, with where it goes now" \
	"$(echo "$sct" | grep -q '# static call [a-z_0-9]*, now [a-z_0-9]*$'; echo $?)"
"${G[@]}" -c 'disas panic' >"$t/o"
imm=$(grep -m1 '48 c7 c7 .*mov rdi, 0xffffffff[0-9a-f]* <' "$t/o")
immsym=$(echo "$imm" | sed -n 's/.*mov rdi, \(0x[0-9a-f]*\) <\([^>+]*\)>.*/\2/p')
check "an immediate that is a kernel address (Capstone's -0x...) is shown as one, with its symbol ($immsym)" \
	"$([ -n "$immsym" ] && [ "$(sym_addr "$immsym")" = "$(echo "$imm" | sed -n 's/.*mov rdi, \(0x[0-9a-f]*\) .*/\1/p')" ]; echo $?)"
check "a per-CPU variable (gs-relative) is named" "$(grep -q 'gs:\[rip + 0x[0-9a-f]*\] *# 0x[0-9a-f]* <__preempt_count>' "$t/tcp"; echo $?)"
"${G[@]}" -c 'blocks --dot __x64_sys_getppid' >"$t/o"
check "blocks --dot shows symbolized operands too" "$(grep -q "call $fentry <__fentry__>" "$t/o"; echo $?)"

# x/NFU, as gdb's x
jiffies=$(sym_addr jiffies)
"${G[@]}" -c 'x/8xb jiffies' -c 'x jiffies 8' -c 'x/2xw jiffies' -c 'x/1xg jiffies' -c 'x/2dh jiffies' \
	-c 'x/1ub jiffies' -c 'x/1ob jiffies' -c 'x/1tb jiffies' >"$t/o" 2>"$t/e"
bytes=$(sed -n 2p "$t/o" | cut -d: -f2 | tr -d ' ')
le() { echo "$bytes" | cut -c"$1" | sed 's/\(..\)/\1 /g' | awk '{for (i = NF; i; i--) printf "%s", $i}'; }
check "x/8xb, x/2xw, x/1xg and x/2dh read the same bytes, little-endian, labelled <jiffies>" \
	"$([ $? = 0 ] && [ "$(sed -n 1p "$t/o")" = "$jiffies <jiffies>:	$(echo "$bytes" | sed 's/\(..\)/0x\1	/g; s/	$//')" ] &&
	   [ "$(sed -n 3p "$t/o")" = "$jiffies <jiffies>:	0x$(le 1-8)	0x$(le 9-16)" ] &&
	   [ "$(sed -n 4p "$t/o")" = "$jiffies <jiffies>:	0x$(le 1-16)" ] &&
	   [ "$(sed -n 5p "$t/o" | cut -f2)" = "$(( $(printf '%d' 0x$(le 1-4)) > 32767 ? $(printf '%d' 0x$(le 1-4)) - 65536 : $(printf '%d' 0x$(le 1-4)) ))" ]; echo $?)"
b0=$((16#$(echo "$bytes" | cut -c1-2)))
check "x/1ub, x/1ob and x/1tb: decimal, octal and binary" \
	"$([ "$(sed -n 6p "$t/o" | cut -f2)" = "$b0" ] && [ "$(sed -n 7p "$t/o" | cut -f2)" = "0$(printf '%o' $b0)" ] &&
	   [ "$(sed -n 8p "$t/o" | cut -f2)" = "$(for b in 7 6 5 4 3 2 1 0; do printf %d $((b0 >> b & 1)); done)" ]; echo $?)"
"${G[@]}" -c 'x/3i __x64_sys_getppid' -c 'disas __x64_sys_getppid 3' -c 'x/s linux_banner' -c 'show version' \
	-c 'x/2a sys_call_table' -c 'x/5c linux_banner' >"$t/o" 2>"$t/e"
check "x/3i shows the instructions disas shows" \
	"$([ "$(sed -n 1,3p "$t/o" | cut -f2)" = "$(sed -n 4,6p "$t/o" | sed 's/^.*>: .\{24\} //')" ] &&
	   sed -n 1p "$t/o" | grep -q "^   $(sym_addr __x64_sys_getppid) <__[a-z0-9]*_sys_getppid>:"; echo $?)"
check "x/s shows the kernel's banner string" \
	"$(grep -q "<linux_banner>:	\"$(sed -n 's/^kernel: //p' "$t/o" | sed 's/[][\.*^$]/\\&/g')\\\\n\"\$" "$t/o"; echo $?)"
check "x/2a shows addresses with their symbols" \
	"$(grep -q "<sys_call_table>:	$(sym_addr __x64_sys_read) <__x64_sys_read>	$(sym_addr __x64_sys_write) <__x64_sys_write>\$" "$t/o"; echo $?)"
check "x/5c shows characters" "$(grep -q "<linux_banner>:	76 'L'	105 'i'	110 'n'	117 'u'	120 'x'\$" "$t/o"; echo $?)"
"${G[@]}" -c 'x/4q jiffies' 2>"$t/e"
check "x with an unknown format names the formats and sizes" \
	"$([ $? = 1 ] && grep -q "'q' is neither a format (x d u o t c a i s) nor a size (b h w g)" "$t/e"; echo $?)"
fails "x/NFU with a second argument says the count is N" 'x/4i jiffies 8' 'the count is N'
fails "a /FORMAT on a command that takes none is refused" 'blocks/4 jiffies' 'blocks takes no /FORMAT'

# aliases at one address (__x64_sys_X, __ia32_sys_X): the one named last is
# the one gilk shows for that address
ga=$(sym_addr __x64_sys_getppid)
"${G[@]}" -c "x/i $ga" -c 'x/i __x64_sys_getppid' -c "x/i $ga" -c 'x/i __ia32_sys_getppid' -c "x/i $ga" \
	-c "info symbol $ga" >"$t/o" 2>&1
check "of aliases, the one named is the one shown for their address from then on" \
	"$([ "$(sed -n 's/^ *0x[0-9a-f]* <\([^>]*\)>:.*/\1/p' "$t/o" | sed 1d | tr '\n' ' ')" = \
	     "__x64_sys_getppid __x64_sys_getppid __ia32_sys_getppid __ia32_sys_getppid " ] &&
	   tail -n1 "$t/o" | grep -q '^__ia32_sys_getppid in section'; echo $?)"

# help errors: a row for every errno gilk.ko's code returns, none other;
# help refusals: a row for every reason the planner names
"${G[@]}" -c 'help errors' >"$t/o"
sed -n 's/^  \(E[A-Z0-9]*\) .*/\1/p' "$t/o" | sort >"$t/table"
# kmod/'s own, and those its refusal table gives
{ grep -ohE -- '-E[A-Z0-9]{2,}\b' kmod/*.c kmod/arch/*/*.c | tr -d -
  sed -n 's/^GILK_REFUSAL([A-Z_]*, \(E[A-Z0-9]*\),.*/\1/p' include/uapi/gilk_refusals.h; } | sort -u >"$t/code"
check "help errors explains every errno kmod/ returns, and only those ($(wc -l <"$t/code"))" \
	"$([ -s "$t/code" ] && diff "$t/code" "$t/table" >&2; echo $?)"
# a row per kind of refusal in gilk.ko's table, with the errno it gives
sed -n '/^Why gilk.ko refuses a splice/,$p' "$t/o" | sed -n 's/^  \([a-z0-9-]*\) *\(E[A-Z0-9]*\) .*/\1 \2/p' >"$t/rows"
sed -n 's/^GILK_REFUSAL([A-Z_]*, \(E[A-Z0-9]*\), "\([a-z0-9-]*\)".*/\2 \1/p' include/uapi/gilk_refusals.h >"$t/table"
check "help errors names every kind of refusal gilk.ko's table has, with its errno ($(wc -l <"$t/rows"))" \
	"$([ "$(wc -l <"$t/rows")" -ge 30 ] && diff "$t/table" "$t/rows" >&2; echo $?)"
"${G[@]}" -c 'help refusals' >"$t/o"
check "help refusals names every reason the planner refuses a site for" \
	"$(grep -q '^  gilk-path  ' "$t/o" && grep -q '^  occupied  ' "$t/o" &&
	   [ "$(grep -c '^  [a-z]' "$t/o")" -ge 24 ]; echo $?)"

# info symbol, address, line, functions, variables: offline, over kallsyms
"${G[@]}" -c 'info symbol __x64_sys_getppid+5' -c "info symbol $(sym_addr jiffies)" -c 'info symbol 0x1000000000000000' \
	-c 'info address jiffies' -c 'info address __x64_sys_getppid' -c 'info line __x64_sys_getppid' \
	-c 'info functions ^__x64_sys_getppid$' -c 'info variables ^jiffies$' >"$t/o" 2>"$t/e"
check "info symbol: symbol + offset and section, or no symbol" \
	"$([ $? = 0 ] && [ "$(sed -n 1,3p "$t/o")" = "__x64_sys_getppid + 5 in section .text
jiffies in section .data
No symbol matches 0x1000000000000000." ]; echo $?)"
check "info address: where a variable and a function are" \
	"$(sed -n 4p "$t/o" | grep -q "^Symbol \"jiffies\" is static storage at address $(sym_addr jiffies) " &&
	   sed -n 5p "$t/o" | grep -q "^Symbol \"__x64_sys_getppid\" is a function at address $(sym_addr __x64_sys_getppid) "; echo $?)"
check "info line: the source line of a function's start" \
	"$(grep -q '^Line [0-9]* of "kernel/sys.c" starts at address .*<__[a-z0-9]*_sys_getppid> and ends at ' "$t/o"; echo $?)"
check "info functions and info variables list the matching symbols" \
	"$(grep -qx "$(sym_addr __x64_sys_getppid | sed 's/^0x/0x0*/')  __x64_sys_getppid" "$t/o" &&
	   grep -qx "$(sym_addr jiffies)  jiffies" "$t/o" && [ "$(grep -c '^0x' "$t/o")" = 2 ]; echo $?)"
# Past an object's end, no symbol: its size from the ELF symbol table (the
# line index keeps it) against its type's size in BTF, two sources. The
# objects of a struct type with a gap after them in kallsyms:
awk '$2 ~ /^[dDbB]$/ && $3 !~ /\./ { if (prev != "" && $1 != pa) print prev, pa, $1; prev = $3; pa = $1 }' "$ref/kallsyms" |
	while read -r name a b; do
		[ $((16#$b - 16#$a)) -ge 64 ] && echo "$name $((16#$b - 16#$a))"
	done | head -n 40 >"$t/gaps"
obj= size=
while read -r name gap; do
	s=$("${G[@]}" -c "ptype $name" 2>/dev/null | sed -n 's|^} /\* size: \([0-9]*\) \*/$|\1|p')
	if [ -n "$s" ] && [ "$s" -lt "$gap" ]; then obj=$name size=$s; break; fi
done <"$t/gaps"
"${G[@]}" -c "info symbol $obj+$((size - 1))" -c "info symbol $obj+$size" -c "x/a $obj+$size" >"$t/o" 2>&1
check "info symbol: an address past an object's size is no symbol's ($obj, $size bytes by its type: $(sed -n 2p "$t/o"))" \
	"$([ -n "$obj" ] && sed -n 1p "$t/o" | grep -qx "$obj + $((size - 1)) in section .*" &&
	   sed -n 2p "$t/o" | grep -qx "No symbol matches $obj+$size. (It is 0 bytes past the end of $obj, which is $size bytes.)" &&
	   ! sed -n 3p "$t/o" | grep -q "<$obj+"; echo $?)"
n_fn=$("${G[@]}" -c 'info functions ^tcp_v4_' | grep -c '^0x')
check "info functions REGEX finds every text symbol that matches ($n_fn)" \
	"$([ "$n_fn" = "$(awk '$2 ~ /^[tT]$/ && $3 ~ /^tcp_v4_/' "$ref/kallsyms" | wc -l)" ]; echo $?)"
fails "a bad regular expression is named" 'info functions (' "'(' is not a regular expression"
fails "info splices offline says it needs live mode" 'info splices' 'info splices needs live mode'
fails "info of an unknown thing lists what there is" 'info bogus' 'info what? splices, instruments, symbol'

# pipes and shell escapes
"${G[@]}" -c 'disas tcp_v4_rcv | head -3' >"$t/o" 2>"$t/e"
check "CMD | SHELL-COMMAND pipes the output (disas | head -3: 3 lines, status 0)" \
	"$([ $? = 0 ] && [ "$(wc -l <"$t/o")" = 3 ] && [ "$(cat "$t/o")" = "$(head -3 "$t/tcp")" ] && [ ! -s "$t/e" ]; echo $?)"
"${G[@]}" -c 'disas tcp_v4_rcv | wc -l' -c "help | grep -c '^  '" >"$t/o"
check "every line goes through the pipe" "$([ "$(sed -n 1p "$t/o")" = "$(wc -l <"$t/tcp")" ] && [ "$(sed -n 2p "$t/o")" = "$(wc -l <"$t/cmds")" ]; echo $?)"
fails "a pipe's shell command that fails is an error" 'help | grep -q nosuchthing' 'exited with status 1'
fails "a pipe without a command says so" 'help |' 'a pipe needs a shell command'
"${G[@]}" -c "help > $t/both | cat" 2>"$t/e"
check "output to a file and a pipe at once is refused" \
	"$([ $? = 1 ] && grep -q 'to a file or a pipe, not both' "$t/e" && [ ! -e "$t/both" ]; echo $?)"
"${G[@]}" -c 'help "a|b"' 2>"$t/e"
check "a | inside quotes is not a pipe" "$(grep -q 'no command "a|b"' "$t/e"; echo $?)"
"${G[@]}" -c '!printf "%s|%s\n" "a  b" c' -c 'shell echo $((6 * 7))' -c 'she echo prefix' >"$t/o" 2>"$t/e"
check "!CMD and shell CMD run the line as the shell sees it" \
	"$([ $? = 0 ] && [ "$(cat "$t/o")" = "a  b|c
42
prefix" ]; echo $?)"
"${G[@]}" -c 'shell exit 3' -c help >"$t/o" 2>"$t/e"
check "a shell command's status is the command's: the run stops" \
	"$([ $? = 1 ] && grep -q 'shell command "exit 3" exited with status 3' "$t/e" && [ ! -s "$t/o" ]; echo $?)"
fails "! alone is a usage error" '!' 'usage: shell COMMAND'

# print and &symbol, as gdb's; the addresses come from kallsyms
jif=$(awk '$3 == "jiffies" {print $1; exit}' "$ref/kallsyms" | sed 's/^0*//')
fn_a=$(awk '$3 == "do_sys_openat2" {print $1; exit}' "$ref/kallsyms")
fn_b=$(awk '$3 == "do_sys_open" {print $1; exit}' "$ref/kallsyms")
"${G[@]}" -c 'print &jiffies' -c 'p (char *)&jiffies+4' -c 'p/x 4096' -c 'p 0x10 + 4 - 1' -c 'p -1' \
	-c 'p/xb 0x1234' -c 'p/t 5' -c 'p do_sys_openat2 - do_sys_open' -c 'x/gx &jiffies' >"$t/o" 2>"$t/e"
check "print: &symbol with its address and type, a char pointer's step, numbers in decimal or /x, a distance between functions; x takes &symbol" \
	"$([ $? = 0 ] && [ "$(sed -n 1,7p "$t/o")" = "(long unsigned int *) 0x$jif <jiffies>
(char *) 0x$(printf %x $((0x$jif + 4))) <jiffies+4>
0x1000
19
-1
0x34
101" ] && [ "$(sed -n 8p "$t/o")" = "$((0x$fn_a - 0x$fn_b))" ] &&
	   sed -n 9p "$t/o" | grep -q "^0x$jif <jiffies>:	0x[0-9a-f]\{16\}$"; echo $?)"
# Typed values, offline from the image's BTF and data, with variables' types
# from the line index
"${G[@]}" -c 'print jiffies' -c 'p init_task.comm' -c 'p init_uts_ns.name.release' -c 'whatis init_task.comm' \
	-c 'p &init_task.tasks - &init_task.tasks' -c 'p/x init_task.flags' -c 'whatis init_task.tasks.next' \
	-c 'p ((struct task_struct *)&init_task)->comm' -c 'p init_uts_ns.name' >"$t/o" 2>"$t/e"
check "print reads typed values as gdb's: jiffies' value, a char array as a string, members, a cast, a struct whole; whatis names types" \
	"$([ $? = 0 ] && sed -n 1p "$t/o" | grep -qx '[0-9][0-9]*' &&
	   [ "$(sed -n 2,3p "$t/o")" = "\"swapper\"
\"$(cat "$ref/abi")\"" ] && sed -n 4p "$t/o" | grep -qx 'type = char \[16\]' &&
	   sed -n 5p "$t/o" | grep -qx 0 && sed -n 6p "$t/o" | grep -qx '0x[0-9a-f]*' &&
	   sed -n 7p "$t/o" | grep -qx 'type = struct list_head \*' && sed -n 8p "$t/o" | grep -qx '"swapper"' &&
	   grep -qx '  sysname = "Linux",' "$t/o" && grep -qx "  release = \"$(cat "$ref/abi")\"," "$t/o"; echo $?)"
"${G[@]}" -c 'ptype struct list_head' >"$t/o"
check "ptype: a struct's members with their offsets and sizes, and its size" \
	"$([ "$(cat "$t/o")" = "type = struct list_head {
    /*     0     8 */ struct list_head *next;
    /*     8     8 */ struct list_head *prev;
} /* size: 16 */" ]; echo $?)"
"${G[@]}" -c 'ptype enum pid_type' -c 'ptype init_task.se.load' -c 'whatis u64' >"$t/o"
check "ptype: an enum's values; an expression's type; whatis a typedef" \
	"$(grep -qx '    PIDTYPE_PID = 0,' "$t/o" && grep -q '^type = struct load_weight {$' "$t/o" &&
	   tail -1 "$t/o" | grep -qx 'type = u64'; echo $?)"
fails "a type that does not exist gets did-you-mean" 'ptype struct fiel' "no type 'struct fiel' in the kernel's BTF; did you mean struct file"
fails "a member a struct lacks is named" 'p init_task.nosuch' "struct task_struct has no member named 'nosuch'"
# Fetch programs, compiled offline against the image's BTF as splice would
# send them: parameters by name, members through pointers, strings, globals.
"${G[@]}" -c 'plan do_sys_openat2:entry fetch filename, how->flags, m=how->mode' \
	-c 'plan vfs_read:entry fetch file->f_path.dentry->d_name.name, current->comm, p=&file->f_pos' \
	-c 'plan vfs_read:exit fetch retval' -c 'plan vfs_read:block 3 fetch s=(char *)rsi' \
	-c 'plan vfs_read:entry fetch jiffies' 2>&1 | grep '^fetch ' >"$t/o"
off_dentry=$("${G[@]}" -c 'ptype struct path' | sed -n 's|^    /\* *\([0-9]*\) .* \*dentry;$|\1|p')
off_f_path=$("${G[@]}" -c 'ptype struct file' | sed -n 's|^    /\* *\([0-9]*\) .* f_path;$|\1|p')
check "plan ... fetch: each value's program as kprobe events write it (string through a parameter, members through pointers, current, an address, retval signed, a cast register, a global)" \
	"$([ "$(sed -n 1,3p "$t/o")" = 'fetch filename: +0(%si):string (at most 64 bytes)
fetch flags: +0(%dx):u64
fetch m: +8(%dx):u64' ] &&
	   sed -n 4p "$t/o" | grep -q "^fetch name: +[0-9]*(+[0-9]*(+$((off_f_path + off_dentry))(%di))):string (at most 64 bytes)\$" &&
	   sed -n 5p "$t/o" | grep -q '^fetch comm: +[0-9]*(\$current):string (at most 16 bytes)$' &&
	   sed -n 6p "$t/o" | grep -q '^fetch p: (%di)+[0-9]*:x64$' &&
	   sed -n 7p "$t/o" | grep -qx 'fetch retval: %ax:s64' &&
	   sed -n 8p "$t/o" | grep -qx 'fetch s: +0(%si):string (at most 64 bytes)' &&
	   sed -n 9p "$t/o" | grep -q '^fetch jiffies: @0xffffffff[0-9a-f]*:u64$'; echo $?)"
fails "fetch: a struct is refused, naming what to do" 'plan vfs_read:entry fetch file->f_path' "fetch: 'file->f_path' is a struct or union: fetch one of its members (ptype shows them)"
fails "fetch: a constant reads nothing at the hit" 'plan vfs_read:entry fetch n=5' "fetch: '5' is known now, not read at the hit: print shows it"
fails "fetch: two values read at the hit in one expression are refused" 'plan vfs_read:entry fetch count + file' "fetch: 'count + file' reads two values at the hit; fetch each on its own"
fails "fetch: a bit-field is refused" 'plan vfs_read:entry fetch file->f_mode, current->in_execve' "fetch: 'in_execve' is a bit-field, which fetch does not read"
fails "fetch: two values of one name are refused" 'plan vfs_read:entry fetch file->f_pos, f_pos=count' "fetch: two values named 'f_pos'; name one: NAME=EXPR"
fails "fetch: at most four values" 'plan vfs_read:entry fetch a=rdi, b=rsi, c=rdx, d=rcx, e=r8' "fetch: at most 4 values a splice"
fails "fetch: a parameter another function has is unknown, and the site's names are listed" 'plan vfs_read:entry fetch filename' "fetch: no parameter, local or global 'filename' here; the site has: file buf count pos"
# Mid-function, the line index says where each parameter and local is.
off_name=$("${G[@]}" -c 'ptype struct nameidata' | sed -n 's|^    /\* *\([0-9]*\) .* \*name;$|\1|p')
"${G[@]}" -c 'info scope path_init:block 4' >"$t/scope" 2>&1
reg=$(sed -n 's/^Symbol nd is in \$\([a-z0-9]*\), of type struct nameidata \*\.$/\1/p' "$t/scope")
freg=$(sed -n 's/^Symbol flags is in \$\([a-z0-9]*\), of type unsigned int\.$/\1/p' "$t/scope")
"${G[@]}" -c 'plan path_init:block 4 fetch p=nd->name->name, nd->depth, flags' 2>&1 | grep '^fetch ' >"$t/o"
kreg() { case $1 in r[0-9]*) echo "$1" ;; *) echo "${1#r}" ;; esac; }	# as kprobe events name it
check "info scope: path_init's parameters mid-function, each in its register ($(tr '\n' ' ' <"$t/scope")); a fetch there reads through them" \
	"$([ -n "$reg" ] && [ -n "$freg" ] && head -1 "$t/scope" | grep -q '^At path_init+0x[0-9a-f]* (0x[0-9a-f]*):$' &&
	   grep -q "^fetch p: +0(+0(+[0-9]*(%$(kreg "$reg")))):string (at most 64 bytes)\$" "$t/o" &&
	   grep -q "^fetch depth: +[0-9]*(%$(kreg "$reg")):u32\$" "$t/o" && grep -q "^fetch flags: %$(kreg "$freg"):u32\$" "$t/o"; echo $?)"
fails "fetch: a name the block does not have lists those it has" 'plan path_init:block 4 fetch nosuch' "the site has: flags nd"
# A local in scope that DWARF gives no location there is optimized out, as
# gdb says, and a fetch of it says so rather than that it does not exist.
out_name= n=
for n in 1 2 3 4 5 6 7 8 9 10 11 12; do
	out_name=$("${G[@]}" -c "info scope path_init:block $n" 2>&1 |
		sed -n 's/^Symbol \([a-z_0-9]*\) is optimized out, of type .*\.$/\1/p' | head -1)
	[ -n "$out_name" ] && break
done
"${G[@]}" -c "plan path_init:block $n fetch ${out_name:-?}" >"$t/o" 2>&1
check "info scope names a local optimized out at path_init's block $n (${out_name:-none}); a fetch of it says so ($(head -1 "$t/o"))" \
	"$([ -n "$out_name" ] && grep -q "^gilk: fetch: '$out_name' is optimized out here: the kernel's debug information gives it no location at this site" "$t/o"; echo $?)"
"${G[@]}" -c 'info scope do_filp_open:block 3' -c 'plan do_filp_open:block 3 fetch nd.name->name' >"$t/o" 2>&1
at=$(sed -n 's/^Symbol nd is at \[\$rsp+\([0-9]*\)\], of type struct nameidata\.$/\1/p' "$t/o")
check "info scope: a local in the frame is at rsp plus the CFA's offset from the ORC table and its own; a fetch reads it there ($(grep '^Symbol nd \|^fetch' "$t/o" | tr '\n' ' '))" \
	"$([ -n "$at" ] && grep -q "^fetch name: +0(+0(+$((at + off_name))(%sp))):string (at most 64 bytes)\$" "$t/o"; echo $?)"

fails "fetch: nothing to fetch" 'plan vfs_read:entry fetch' "fetch: what to fetch? fetch EXPR"
fails "fetch: an array of numbers needs an element" 'plan vfs_read:entry fetch current->comm, x=init_task.cpus_mask.bits' "fetch: 'init_task.cpus_mask.bits' is an array: fetch one element of it"
fails "-> on a struct says to use ." 'p init_task->pid' "needs a pointer; this is no pointer (use '.')"
fails "an address no memory backs is an error, not a fault" 'p *(struct file *)0' 'no image bytes at 0x0'
fails "current is live only" 'p current->pid' 'live only'
fails "a variable the debug information gives no type says how to cast it" 'p linux_banner' "has unknown type"
fails "print/2x: a count means nothing to print" 'print/2x 1' 'a count means nothing to print'
fails "print/i: a format print does not take is named" 'p/i 1' "'i' is neither a format (x d u o t c a)"
fails "print of an unknown symbol says so" 'p nosuchsymbol + 1' "no symbol 'nosuchsymbol'"
fails "print of two terms without an operator says where" 'p 1 2' "an operator (+ - \* / %) expected at '2'"
"${G[@]}" -c 'p 39*8' -c 'p 1+2*3-4/2' -c 'p/x 0x10%3' -c 'p sys_call_table+39*8/8' \
	-c 'x/a sys_call_table+39*8' >"$t/o" 2>&1
check "print works out * / % as C does, and an x location's offset too ($(tr '\n' ' ' <"$t/o"))" \
	"$([ "$(sed -n 1,3p "$t/o" | tr '\n' ' ')" = "312 5 0x1 " ] &&
	   sed -n 4p "$t/o" | grep -q '<sys_call_table+312>$' &&
	   sed -n 5p "$t/o" | grep -q '^0x[0-9a-f]* <sys_call_table+312>:.*<__[a-z0-9]*_sys_getpid>$'; echo $?)"
"${G[@]}" -c 'disas /r vfs_read' >"$t/r" 2>&1
"${G[@]}" -c 'disas vfs_read' >"$t/o" 2>&1
most() { awk -F'>: ' '{ n = 0; for (i = 1; i <= 16; i++) if (substr($2, 3 * i - 2, 3) ~ /^[0-9a-f][0-9a-f] $/) n = i; else break; if (n > m) m = n } END { print m }' "$1"; }
check "disas /r shows every byte of each instruction, disas the first 8 ($(most "$t/r") and $(most "$t/o") at most)" \
	"$([ "$(most "$t/r")" -gt 8 ] && [ "$(most "$t/o")" = 8 ] &&
	   [ "$(grep -c '^[ >-] 0x' "$t/r")" = "$(grep -c '^[ >-] 0x' "$t/o")" ]; echo $?)"
fails "print: a division by 0 is refused" 'p 5/0' 'a division by 0'
fails "print: * between pointers is refused" 'p sys_call_table*2' "'\*' takes numbers, not pointers"
fails "an x offset that is not a constant says what it takes" 'x/a sys_call_table+39*' \
	"'39\*' is not an offset (a number, decimal or 0x-hex, or numbers with"
fails "print of a bad number says so" 'p 12abc' "'12abc' is not a number"
fails "print \$rax before any event with registers says where registers come from" 'p $rax' \
	'\$rax: no event with registers shown yet: \$NAME reads the last one "events" showed'
fails "print of a register there is not names those there are" 'p $foo' \
	'\$foo: no such register (rax..r15, rip, rflags, arg0..arg5, retval; \$pc, \$sp, \$fp'
fails "info symbol \$rip before any event says why" 'info symbol $rip' '\$rip: no event with registers shown yet'
printf 'set trace-commands on\n# a comment\n\ninfo symbol jiffies\nshow trace-commands\n' >"$t/trace"
"${G[@]}" -x "$t/trace" >"$t/o" 2>&1
check "set trace-commands on: source and -x echo each command, + first, before its output" \
	"$([ "$(sed -n 1,3p "$t/o")" = "+info symbol jiffies
jiffies in section .data
+show trace-commands" ] && sed -n 4p "$t/o" | grep -Eq '^trace-commands +on '; echo $?)"
fails "set of an unknown setting lists the settings from the table" 'set bogus 1' \
	"no setting 'bogus': listsize, instrument, trap, format, pagination, height, trace-commands"
check "gilk --version prints the version from the VERSION file" \
	"$([ "$(build/gilk --version)" = "gilk $(cat VERSION)" ]; echo $?)"

# record -> -x round trip, from a pipe (commands typed at a terminal: below)
printf 'record %s\ndisas __x64_sys_getppid 4\nx/2xg jiffies\ninfo symbol jiffies\nrecord stop\nhelp quit\n' "$t/rec" |
	"${G[@]}" >"$t/o" 2>"$t/e"
"${G[@]}" -x "$t/rec" >"$t/o2" 2>"$t/e2"
check "record saves the commands that ran (not itself), and -x and source replay them to the same output" \
	"$([ $? = 0 ] && [ "$(grep -v '^#' "$t/rec")" = "disas __x64_sys_getppid 4
x/2xg jiffies
info symbol jiffies" ] && [ "$(sed '/^recording/,$!d; /^recording/d; /^usage: quit/,$d' "$t/o")" = "$(cat "$t/o2")" ] &&
	   "${G[@]}" -c "source $t/rec" | cmp -s - "$t/o2"; echo $?)"
fails "record stop when not recording says so" 'record stop' 'not recording'
"${G[@]}" -c "record $t/r1" -c "record $t/r2" 2>"$t/e" >/dev/null
check "record while recording says where it records" "$([ $? = 1 ] && grep -q "already recording to $t/r1" "$t/e"; echo $?)"
fails "record to a file that cannot be made names it" 'record /nonexistent/dir/r' '/nonexistent/dir/r: No such file'

# checked transcripts: gilk --check
cat >"$t/ok.gilk" <<'END'
# a lab's first steps: patterns where addresses differ between kernels
disas __x64_sys_getppid 2
#=> > {{0x[0-9a-f]+}} <__x64_sys_getppid+0>: e8 {{.*}}call {{0x[0-9a-f]+}} <__fentry__>        # ftrace entry
#=>   {{0x[0-9a-f]+}} <__x64_sys_getppid+5>: 53{{ +}}push rbx
info symbol __x64_sys_getppid+5
#=> __x64_sys_getppid + 5 in section .text
blocks __x64_sys_getppid
#=> {{__[a-z0-9]+_sys_getppid}}: {{[0-9]+}} bytes, {{.*}}
#=> ...
#=> {{[0-9]+}} of {{[0-9]+}} blocks spliceable or spliced (0 more through a bounce)
show listsize
disas no_such_function
#=! no symbol 'no_such_function'{{.*}}
help disas | head -1
#=> usage: disas [/rs] LOCATION [COUNT]
END
"${G[@]}" --check "$t/ok.gilk" >"$t/o" 2>"$t/e"
check "--check passes a transcript whose output matches (patterns, ..., an expected error)" \
	"$([ $? = 0 ] && grep -qx "$t/ok.gilk: 6 commands, all as expected" "$t/o" && [ ! -s "$t/e" ]; echo $?)"
"${G[@]}" -x "$t/ok.gilk" >/dev/null 2>"$t/e"
check "-x reads a checked transcript's expectations as comments (and stops at its expected error)" \
	"$([ $? = 1 ] && grep -q "$t/ok.gilk:12: no symbol 'no_such_function'" "$t/e"; echo $?)"
sed 's/^#=> __x64_sys_getppid + 5 in section .text$/#=> __x64_sys_getppid + 6 in section .text/' "$t/ok.gilk" >"$t/bad1.gilk"
"${G[@]}" --check "$t/bad1.gilk" >"$t/o" 2>"$t/e"
check "--check fails at the line of the first expected line that differs, and says what came" \
	"$([ $? = 1 ] && [ "$(cat "$t/e")" = "$t/bad1.gilk:6: expected: __x64_sys_getppid + 6 in section .text
$t/bad1.gilk:6:      got: __x64_sys_getppid + 5 in section .text" ] && [ ! -s "$t/o" ]; echo $?)"
{ echo '# gilk transcript, recorded 2026-01-01 00:00:00 (live mode)'; cat "$t/bad1.gilk"; } >"$t/live1.gilk"
"${G[@]}" --check "$t/live1.gilk" >"$t/o" 2>"$t/e"
check "--check of a transcript recorded live, replayed offline, says why their bytes may differ" \
	"$([ $? = 1 ] && grep -q "^$t/live1.gilk: recorded live and replayed offline: the running kernel's text differs" "$t/e" &&
	   [ "$(grep -c 'recorded live and replayed offline' "$t/e")" = 1 ]; echo $?)"
"${G[@]}" --check "$t/bad1.gilk" >/dev/null 2>"$t/e"
check "--check of a transcript with no recording header (or recorded offline) gives no such hint" \
	"$([ $? = 1 ] && ! grep -q 'recorded' "$t/e"; echo $?)"
sed 's/^#=! .*/#=! no symbol named that/' "$t/ok.gilk" >"$t/bad2.gilk"
"${G[@]}" --check "$t/bad2.gilk" 2>"$t/e" >/dev/null
check "--check fails on an error other than the one expected, at its line" \
	"$([ $? = 1 ] && grep -q "^$t/bad2.gilk:13: expected error: no symbol named that" "$t/e"; echo $?)"
sed '/^#=! /d' "$t/ok.gilk" >"$t/bad3.gilk"
"${G[@]}" --check "$t/bad3.gilk" 2>"$t/e" >/dev/null
check "--check fails at a command that fails unexpectedly" \
	"$([ $? = 1 ] && grep -q "^$t/bad3.gilk:12: disas no_such_function failed: no symbol" "$t/e"; echo $?)"
sed 's/^#=> \.\.\.$//' "$t/ok.gilk" >"$t/bad4.gilk"
"${G[@]}" --check "$t/bad4.gilk" 2>"$t/e" >/dev/null
check "--check fails when there are more lines than expected (without ...)" \
	"$([ $? = 1 ] && grep -q "^$t/bad4.gilk:10: expected: {{\[0-9\]+}} of" "$t/e"; echo $?)"
printf 'show listsize\n#=> listsize {{(}}\n' >"$t/bad5.gilk"
"${G[@]}" --check "$t/bad5.gilk" 2>"$t/e" >/dev/null
check "--check names a bad pattern" "$([ $? = 1 ] && grep -q "bad5.gilk:2: bad pattern" "$t/e"; echo $?)"
"${G[@]}" --check "$t/ok.gilk" -c help 2>"$t/e"
check "--check with -c is a usage error" "$([ $? = 2 ] && grep -q 'runs a transcript alone' "$t/e"; echo $?)"

# -batch: runs what it is given and exits, never reading stdin
echo help | "${G[@]}" -batch >"$t/o" 2>&1
check "-batch with nothing to run reads no commands and exits 0" "$([ $? = 0 ] && [ ! -s "$t/o" ]; echo $?)"

# set and show
"${G[@]}" -c 'show' -c 'set listsize 3' -c 'set instrument tsc' -c 'set trap on' -c 'set format csv' -c 'show' \
	-c 'disas __x64_sys_getppid+5' >"$t/o" 2>"$t/e"
check "show lists the settings with their defaults; set changes them" \
	"$([ $? = 0 ] && [ "$(sed -n 1,8p "$t/o" | awk '{print $1 "=" $2}' | tr '\n' ' ')" = "listsize=16 instrument=count trap=off format=auto pagination=on height=auto trace-commands=off filter-self=off " ] &&
	   [ "$(sed -n 9,12p "$t/o" | awk '{print $1 "=" $2}' | tr '\n' ' ')" = "listsize=3 instrument=tsc trap=on format=csv " ]; echo $?)"
check "set listsize is how many instructions disas shows past a function's start" \
	"$([ "$(sed -n '17,$p' "$t/o" | wc -l)" = 3 ]; echo $?)"
"${G[@]}" -c 'set pagination off' -c 'set height 7' -c 'show pagination' -c 'show height' -c 'set height auto' -c 'show height' >"$t/o" 2>"$t/e"
check "set pagination and set height change what show says" \
	"$([ $? = 0 ] && [ "$(awk '{print $1 "=" $2}' "$t/o" | tr '\n' ' ')" = "pagination=off height=7 height=auto " ]; echo $?)"
fails "set height with a bad value says what it takes" 'set height -3' 'set height N|auto'
"${G[@]}" -c 'help set' >"$t/o"
n=0
for s in $("${G[@]}" -c show | awk '{print $1}'); do
	grep -q "^  set $s [^:]*: " "$t/o" && n=$((n + 1))
done
check "help set lists every setting show shows, with what it takes ($n)" \
	"$([ "$n" = "$("${G[@]}" -c show | wc -l)" ] && [ "$n" -ge 8 ] &&
	   grep -q '^  set filter-self on|off: .*gilk.s own process' "$t/o"; echo $?)"
"${G[@]}" -c 'set filter-self on' -c 'show filter-self' >"$t/o"
check "set filter-self on, and show says so" "$(grep -q '^filter-self *on ' "$t/o"; echo $?)"
fails "dump memory takes no if EXPR" 'dump memory /tmp/x jiffies +8 if pid == 1' 'dump memory takes no "if EXPR"'
# ~/.gilkinit runs first, as gdb's ~/.gdbinit; -nx skips it; an error in it
# is said and the session goes on
mkdir -p "$t/home"
printf 'set listsize 7\nset nosuch 1\n' >"$t/home/.gilkinit"
HOME=$t/home "${G[@]}" -c 'show listsize' >"$t/o" 2>"$t/e"
HOME=$t/home "${G[@]}" -nx -c 'show listsize' >"$t/o2" 2>"$t/e2"
check "~/.gilkinit runs before -c (an error in it said, the rest run); -nx skips it" \
	"$(grep -q '^listsize *7 ' "$t/o" && grep -q "gilkinit:2: .*no setting 'nosuch'" "$t/e" &&
	   grep -q '^listsize *16 ' "$t/o2" && [ ! -s "$t/e2" ]; echo $?)"
# Ctrl-C before a -c command runs (here while ~/.gilkinit, a pipe, is
# read) stops gilk: the command does not run as if no one had asked
mkdir -p "$t/slow" && mkfifo "$t/slow/.gilkinit"
HOME=$t/slow "${G[@]}" -c 'print 1' >"$t/o" 2>"$t/e" &
pid=$!
exec 3>"$t/slow/.gilkinit"	# returns once gilk opened it to read
kill -INT $pid
sleep 1
exec 3>&-
wait $pid
st=$?
check "Ctrl-C while gilk starts stops it before its -c command (status $st: $(tr '\n' ' ' <"$t/e"))" \
	"$([ $st = 1 ] && grep -qx 'gilk: interrupted' "$t/e" && [ ! -s "$t/o" ]; echo $?)"
fails "set with a bad value says what the setting takes" 'set trap maybe' 'set trap on|off'
"${G[@]}" -c 'set colour blue' 2>"$t/e"
check "set of an unknown setting lists the settings" \
	"$([ $? = 1 ] && grep -q "no setting 'colour': listsize, instrument, trap, format, pagination, height" "$t/e"; echo $?)"
"${G[@]}" -c 'show version' >"$t/o" 2>"$t/e"
check "show version: gilk's ABI and the image's own banner" \
	"$([ $? = 0 ] && grep -q '^gilk: ioctl ABI [0-9]*, offline mode$' "$t/o" &&
	   grep -q "^kernel: Linux version $(cat "$ref/abi")" "$t/o"; echo $?)"

# dump memory: the bytes x shows, by END or by +LENGTH; errors leave no file
"${G[@]}" -c 'dump memory '"$t"'/m1 __x64_sys_getppid +32' -c 'dump memory '"$t"'/m2 __x64_sys_getppid __x64_sys_getppid+32' \
	-c 'x __x64_sys_getppid 32' >"$t/o" 2>"$t/e"
check "dump memory writes the bytes x shows, by END or +LENGTH" \
	"$([ $? = 0 ] && grep -q '^wrote 32 bytes from __x64_sys_getppid (0x' "$t/o" && cmp -s "$t/m1" "$t/m2" &&
	   [ "$(od -An -tx1 -v "$t/m1" | tr -s ' \n' ' ')" = "$(grep '^0x' "$t/o" | cut -d: -f2 | tr -s ' \n' ' ')" ]; echo $?)"
"${G[@]}" -c 'dump memory '"$t"'/m3 __x64_sys_getppid+8 __x64_sys_getppid' 2>"$t/e"
check "dump memory with END before START says so and writes nothing" \
	"$([ $? = 1 ] && grep -q 'is not past the start' "$t/e" && [ ! -e "$t/m3" ]; echo $?)"
"${G[@]}" -c 'dump memory '"$t"'/m3 __x64_sys_getppid +0x10000000' 2>"$t/e"
check "dump memory refuses more than 64 MiB" "$([ $? = 1 ] && grep -q 'writes 1 byte to 64 MiB' "$t/e"; echo $?)"
fails "dump to a file that cannot be made names it" 'dump memory /nonexistent/dir/m __x64_sys_getppid +8' '/nonexistent/dir/m: No such file'
"${G[@]}" -c 'dump events '"$t"'/ev.csv' 2>"$t/e"
check "dump events offline says it needs live mode" "$([ $? = 1 ] && grep -q 'dump events needs live mode' "$t/e"; echo $?)"
"${G[@]}" -c 'dump events --format yaml '"$t"'/ev' 2>"$t/e"
check "dump with an unknown format lists the formats" "$([ $? = 1 ] && grep -q "no format 'yaml': text, csv, json or chrome" "$t/e"; echo $?)"
"${G[@]}" -c 'dump splices --format chrome '"$t"'/sp' 2>"$t/e"
check "dump splices as a Chrome trace is refused" "$([ $? = 1 ] && grep -q 'a Chrome trace holds events' "$t/e"; echo $?)"
fails "hist offline says it needs live mode (its fields are checked live)" 'hist rsx' "hist needs live mode"
fails "gdb's break says gilk never stops the kernel, and what it does instead" 'b vfs_read' \
	'b: gilk never stops the kernel: "splice LOCATION regs" records the registers'
fails "gdb's bt points at the stack instrument" 'bt' 'bt: no task stops for a backtrace: "splice LOCATION stack"'
fails "gdb's continue says nothing is stopped" 'c' 'c: nothing is stopped: the kernel runs on'
fails "dump of an unknown thing names the five" 'dump things x' 'dump what? memory, events, splices, coverage or hist'
fails "coverage offline says it needs live mode, and what to do instead" 'coverage tcp_v4_rcv' 'shows which blocks could be spliced'
fails "dump coverage offline says it needs live mode" 'dump coverage x.csv' "dump coverage needs live mode"

# test-json, which the guest's dump tests rely on, tells JSON from not JSON
printf '{"a": [1, -2.5e3, "x\\u00e9\\n", true, null, {}], "events": [[1], {"b": 2}, 3]}' >"$t/j1"
printf '{"a": [1,]}' >"$t/j2"
printf '[1, 2] x' >"$t/j3"
printf '["a\tb", 01]' >"$t/j4"
check "test-json counts a valid document's array and rejects broken ones" \
	"$([ "$(build/bin/test-json "$t/j1" events)" = 3 ] && ! build/bin/test-json "$t/j2" 2>/dev/null &&
	   ! build/bin/test-json "$t/j3" 2>/dev/null && ! build/bin/test-json "$t/j4" 2>/dev/null; echo $?)"

# Source lines, from the reference kernel's line index and source tree
# (scripts/setup: build/cache/ref/debug). Line numbers are found in the
# source here, never written down.
src=$ref/debug/src
check "the reference kernel's line index and source tree are set up" \
	"$(ls "$ref"/debug/*.lines >/dev/null 2>&1 && [ -s "$src/fs/namei.c" ]; echo $?)"
"${G[@]}" -c 'list fs/namei.c:100-102' >"$t/o"
check "list FILE:FIRST-LAST shows those lines of the source, numbered as gdb does" \
	"$(sed -n 100,102p "$src/fs/namei.c" | awk '{printf "%d\t%s\n", NR + 99, $0}' | cmp -s - "$t/o"; echo $?)"
decl=$(grep -n '^static const char \*path_init(' "$src/fs/namei.c" | cut -d: -f1)
jumped=$(awk -v d="$decl" 'NR > d && /nd->state \|= ND_JUMPED;/ {print NR; exit}' "$src/fs/namei.c")
"${G[@]}" -c 'list path_init' -c 'list' -c 'list -' >"$t/o"
check "list FUNC: ten lines around its declaration ($decl); list goes on; list - goes back before them" \
	"$([ -n "$decl" ] && [ "$(awk '{print $1}' "$t/o" | tr '\n' ' ')" = \
		"$(seq $((decl - 5)) $((decl + 14)) | tr '\n' ' ')$(seq $((decl - 15)) $((decl - 6)) | tr '\n' ' ')" ]; echo $?)"
"${G[@]}" -c "info line namei.c:$jumped" >"$t/o"
"${G[@]}" -c 'blocks path_init' >"$t/b"
blk=$(sed -n 's/.*, block \([0-9]*\)$/\1/p' "$t/o" | head -1)
check "info line FILE:LINE: where its code is, in which function and block; blocks names the line in that block's row" \
	"$(head -1 "$t/o" | grep -q "^Line $jumped of \"fs/namei.c\" has code in [0-9]* place" &&
	   grep -q "^  path_init+0x[0-9a-f]* (0x[0-9a-f]*) to .*, [0-9]* bytes, block $blk\$" "$t/o" &&
	   grep "^ *$blk  +0x" "$t/b" | grep -q "lines .*namei.c:[0-9,-]*\b\($jumped\|[0-9]*-[0-9]*\)"; echo $?)"
lineof=$(awk '/^static __always_inline void list_add\(/ {f = 1} f && /__list_add\(new, head, head->next\);/ {print NR; exit}' "$src/include/linux/list.h")
"${G[@]}" -c "info line include/linux/list.h:$lineof" >"$t/o"
check "info line of an inline function's line: its copies in every caller, said as inlined ($(head -1 "$t/o" | grep -o '[0-9]* places'))" \
	"$(head -1 "$t/o" | grep -q "has code in [0-9][0-9]* places" && [ "$(grep -c '(inlined)$' "$t/o")" -ge 10 ]; echo $?)"
place=$(grep '(inlined)$' "$t/o" | head -1 | awk '{print $1}')
"${G[@]}" -c "info line $place" >"$t/o2"
check "info line of an address in an inlined copy names the copy and where it is called from ($place: $(sed -n 2p "$t/o2"))" \
	"$(grep -q '^  in list_add, inlined into [a-z_0-9.]* at [a-z_/0-9.-]*:[0-9]*$' "$t/o2"; echo $?)"
comment=$(awk -v d="$decl" 'NR > d && /^\t\/\*/ {print NR; exit}' "$src/fs/namei.c")
fails "a line with no code says so and names the nearest lines with code" "info line fs/namei.c:$comment" \
	"fs/namei.c:$comment has no code; the nearest lines with code are [0-9]* and [0-9]*"
fails "a file the kernel has no code of gets did-you-mean" 'list nemei.c:3' 'no file nemei.c .*did you mean fs/namei.c'
fails "a tail several files end with is refused, naming them" 'list main.c:1' 'main.c names several files of the kernel: .*init/main.c'
fails "disas takes /s and /r only" 'disas /x vfs_read' 'disas takes /s (source lines between the instructions) and /r'
"${G[@]}" -c 'disas /s path_init 8' >"$t/o"
check "disas /s: the source lines between the instructions, the file named where it changes" \
	"$(sed -n 1p "$t/o" | grep -qx 'fs/namei.c:' && grep -q "^$((decl + 1))	{\$" "$t/o" &&
	   [ "$(grep -c '^[> ] 0x' "$t/o")" = 8 ]; echo $?)"
"${G[@]}" -c "plan fs/namei.c:$jumped" -c "plan --blocks namei.c:$jumped" >"$t/o" 2>&1
check "plan FILE:LINE plans the blocks of that line, as --blocks does" \
	"$(grep -q '^path_init: [0-9]* of [0-9]* blocks spliceable$' "$t/o" && [ "$(grep -c '^path_init:' "$t/o")" = 2 ]; echo $?)"
# Without the index (an image with no debug/ beside it), every other command
# works, and the line commands say what is missing and how to make it.
ln -s "$(pwd)/$ref/vmlinuz" "$t/vmlinuz"
GN=(build/gilk --kernel "$t/vmlinuz" --symbols "$ref/kallsyms")
GILK_DEBUG_DIR= "${GN[@]}" -c 'blocks path_init' >"$t/o" 2>&1
rc1=$?
GILK_DEBUG_DIR= "${GN[@]}" -c 'info line path_init' >/dev/null 2>"$t/e"
rc2=$?
check "without a line index blocks works (no lines), and info line says which index is missing and how to make it" \
	"$([ $rc1 = 0 ] && ! grep -q ' lines ' "$t/o" && [ $rc2 = 1 ] &&
	   grep -q "no line index for this kernel (build id [0-9a-f]*) in $t/debug:/var/cache/gilk/debug\. Make one .*gilk --index" "$t/e"; echo $?)"
# An index of another build is refused, even under this kernel's name.
id=$(ls "$ref"/debug/*.lines | head -1 | xargs basename)
mkdir -p "$t/debug" "$t/other"
printf 'asm(".text\\n.globl _text\\n_text:\\n");\nint f(int a)\n{\n\treturn a + 1;\n}\n' >"$t/other/o.c"
(cd "$t/other" && cc -g -O0 -fno-toplevel-reorder -nostdlib -static -Wl,--build-id -Wl,-e,f -o o o.c)
build/gilk --index "$t/other/o" -o "$t/debug/$id" >"$t/o" 2>&1
GILK_DEBUG_DIR= "${GN[@]}" -c 'list path_init' >/dev/null 2>"$t/e"
check "an index made from another build is refused, naming both build ids" \
	"$([ $? = 1 ] && grep -q "$t/debug/$id was made from another build of the kernel (build id [0-9a-f]*, this one's is ${id%.lines})" "$t/e"; echo $?)"
build/gilk --index /nonexistent -o "$t/x" >/dev/null 2>"$t/e"
check "gilk --index: a missing vmlinux is said" "$([ $? = 1 ] && grep -q '^gilk: /nonexistent: No such file' "$t/e"; echo $?)"
build/gilk --index "$t/other/o" >/dev/null 2>"$t/e"
check "gilk --index without -o says what it needs" "$([ $? = 2 ] && grep -q 'needs -o' "$t/e"; echo $?)"

# One table: help, the man page and the bash and zsh completions agree with it
man_cmds() { sed -n '/^\.SH COMMANDS/,/^\.SH SOURCE LINES/p' "${1:-shell/gilk.1}"; }
# man_matches GILK MANPAGE: an entry per command, in help's order, with its
# usage, and (live) on exactly the commands the table marks
man_matches() {
	local help usages
	help=$("$1" --kernel "$ref/vmlinuz" --symbols "$ref/kallsyms" -c help) || return 1
	usages=$(echo "$help" | sed -n 's/^  \([a-z].*\)/\1/p' | sed 's/   (live)$//')
	[ -n "$usages" ] &&
	[ "$usages" = "$(man_cmds "$2" | awk '/^\.TP/ {getline; print}' | sed 's/\\f[BIR]//g; s/\\-/-/g')" ] &&
	[ "$(echo "$help" | grep '   (live)$' | awk '{print $1}')" = \
	  "$(man_cmds "$2" | awk '/^\.TP/ {getline u; getline d; if (d ~ /^\(live\)/) print u}' | sed 's/\\f[BIR]//g' | awk '{print $1}')" ]
}
check "the man page has an entry per command, in help's order (by group, then name), with its usage and (live) where the table says" \
	"$(man_matches build/gilk shell/gilk.1; echo $?)"
check "help heads each group of commands, and lists each command once" \
	"$([ "$(grep -c '^[A-Z].*:$' "$t/help")" = 4 ] && [ "$(grep '^  [a-z]' "$t/help" | awk '{print $1}' | sed 's|/.*||; s/\[.*//' | sort | uniq -d)" = "" ]; echo $?)"
for sh in bash zsh; do
	f=build/completions/gilk.bash; [ $sh = zsh ] && f=build/completions/_gilk
	build/gilk --completion $sh | cmp -s - $f
	check "completions: the build wrote $f from the table, as \"gilk --completion $sh\" writes it now" "$?"
done
bash -c 'source build/completions/gilk.bash; COMP_WORDS=(gilk -c ""); COMP_CWORD=2; _gilk; printf "%s\n" "${COMPREPLY[@]}"' >"$t/o"
check "bash completion offers every command of the table after -c" "$(cmp -s "$t/o" "$t/cmds"; echo $?)"
check "zsh completion describes every command of the table" \
	"$([ "$(sed -n "/^cmds=(/,/^)/s/^	'\([a-z]*\):.*/\1/p" build/completions/_gilk)" = "$(cat "$t/cmds")" ]; echo $?)"
opts=$(build/gilk --help | sed -n 's/^  \(-[-a-z]*\).*/\1/p')
bash -c 'source build/completions/gilk.bash; COMP_WORDS=(gilk -); COMP_CWORD=1; _gilk; printf "%s\n" "${COMPREPLY[@]}"' | sort >"$t/o"
check "gilk --help, the man page and both completions know the same options" \
	"$([ "$(echo "$opts" | sort)" = "$(cat "$t/o")" ] &&
	   [ "$(echo "$opts" | sort)" = "$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' shell/gilk.1 | awk '/^\.TP/ {getline; print $1}' | sed 's/\\f[BIR]//g; s/\\-/-/g' | sort)" ] &&
	   [ "$(echo "$opts" | sort)" = "$(sed -n "s/^	'\*\{0,1\}\(-[-a-z]*\)\[.*/\1/p" build/completions/_gilk | sort)" ]; echo $?)"
# zsh, where it is installed: its syntax, and completion in a terminal
if command -v zsh >/dev/null; then
	zsh -n build/completions/_gilk
	check "zsh reads its completion" "$?"
	mkdir -p "$t/zfunc" && cp build/completions/_gilk "$t/zfunc/"
	tmux kill-session -t gilk-zsh 2>/dev/null
	tmux new-session -d -s gilk-zsh -x 150 -y 30 "HOME=$t zsh -f"
	tmux send-keys -t gilk-zsh "fpath=($t/zfunc \$fpath); autoload -U compinit; compinit -u; echo zsh-ready" Enter
	for _ in $(seq 100); do tmux capture-pane -t gilk-zsh -p | grep -qx 'zsh-ready' && break; sleep 0.1; done
	zsh_tab() { # zsh_tab TYPED WANT: Tab after TYPED shows WANT
		tmux send-keys -t gilk-zsh C-u "$1" Tab
		for _ in $(seq 100); do tmux capture-pane -t gilk-zsh -p | grep -qF -- "$2" && return 0; sleep 0.1; done
		return 1
	}
	zsh_tab 'gilk -c rec' 'gilk -c record' && zsh_tab 'gilk --comp' 'gilk --completion'
	check "zsh completes gilk's commands after -c and its options" "$?"
	tmux kill-session -t gilk-zsh
fi
# A new command is its cmd_NAME.c and its man page entry: in a copy of the
# tree (with this build's objects, so only what the new file touches is
# rebuilt), a command added without an entry fails the man page check, and
# with one passes, nothing else edited; help, Tab and the completions know it.
mkdir -p "$t/tree/build"
tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C "$t/tree"
cp -a build/shell build/core build/lib build/gen build/neutral build/libgilkcore.a build/libgilklive.a "$t/tree/build/"
cat >"$t/tree/shell/commands/cmd_greet.c" <<'C'
/* greet: says hello (a command added by the shell tests). */
#include "commands/commands.h"

static int greet_command(struct session *s, int argc, char **argv, struct gerr *e)
{
	(void)argc, (void)argv, (void)e;
	fprintf(s->out, "hello\n");
	return 0;
}

const struct command cmd_greet = {
	.name = "greet",
	.group = GROUP_SESSION,
	.run = greet_command,
	.min_args = 0,
	.max_args = 0,
	.usage = "greet",
	.help = "Says hello.",
};
C
(cd "$t/tree" && make -s build/gilk build/completions/gilk.bash) >"$t/build.log" 2>&1
built=$?
"$t/tree/build/gilk" --kernel "$ref/vmlinuz" --symbols "$ref/kallsyms" -c greet >"$t/o" 2>&1
check "a command added as one cmd_NAME.c builds and runs, with nothing else edited" \
	"$([ $built = 0 ] && grep -qx hello "$t/o"; echo $?)"
man_matches "$t/tree/build/gilk" "$t/tree/shell/gilk.1"
check "... and the man page check fails until its man page has an entry" "$([ $? != 0 ]; echo $?)"
awk '/^\.TP$/ { tp = 1; next } tp && /^\\fBhelp\\fR/ { print ".TP\n\\fBgreet\\fR\nSays hello."; }
     tp { print ".TP"; tp = 0 } { print }' "$t/tree/shell/gilk.1" >"$t/gilk.1"
# (the entry goes before help's: by name within its group, as help lists it)
man_matches "$t/tree/build/gilk" "$t/gilk.1"
check "... then passes, with the entry the only edit" "$?"
bash -c "source $t/tree/build/completions/gilk.bash; COMP_WORDS=(gilk -c gr); COMP_CWORD=2; _gilk; [ \"\${COMPREPLY[*]}\" = greet ]"
check "... and the completions the build wrote complete it" "$?"
warnings=$(groff -man -Tutf8 -ww -z shell/gilk.1 2>&1)
check "the man page renders without a warning${warnings:+: $warnings}" "$([ -z "$warnings" ] && command -v groff >/dev/null; echo $?)"
bash -c 'source build/completions/gilk.bash; COMP_WORDS=(gilk --ke); COMP_CWORD=1; _gilk; [ "${COMPREPLY[*]}" = "--kernel" ]'
check "bash completion completes gilk's options" "$?"
bash -c 'source build/completions/gilk.bash; COMP_WORDS=(gilk --completion z); COMP_CWORD=2; _gilk; [ "${COMPREPLY[*]}" = "zsh" ]'
check "bash completion completes --completion's shells" "$?"

# Tab completion in a real terminal. Each step waits (up to 20 s) for what
# it expects on the screen rather than sleeping a fixed time.
screen_has() { # screen_has TEXT: wait until the pane shows TEXT
	for _ in $(seq 200); do
		tmux capture-pane -t gilk-test -p 2>/dev/null | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
# Waits until gilk has done all it was given (a marker echoed back through
# `shell`), then clears the screen: a loaded machine may still be printing
# the previous command's output.
settle() {
	local m="settled-$RANDOM$RANDOM"
	tmux send-keys -t gilk-test C-u "shell echo $m" Enter
	screen_has "$m" >/dev/null
	tmux send-keys -t gilk-test C-l
	for _ in $(seq 100); do
		tmux capture-pane -t gilk-test -p | grep -qF -- "$m" || break
		sleep 0.1
	done
}
tab() { # tab KEYS... TEXT: type KEYS, then Tab, and wait for TEXT
	tmux send-keys -t gilk-test "${@:1:$#-1}" Tab
	screen_has "${!#}"
}
tmux kill-session -t gilk-test 2>/dev/null
HOME=$t tmux new-session -d -s gilk-test -x 200 -y 50 "${G[*]}"
screen_has '(gilk)'
tab 'bl' '(gilk) blocks' &&
	tab '__x64_sys_getpp' '(gilk) blocks __x64_sys_getppid'
check "Tab completes a command and a kernel symbol" "$?"
tab C-u 'dump ev' '(gilk) dump events'
check "Tab completes what dump writes" "$?"
tmux send-keys -t gilk-test C-u 'disas _' Tab Tab
screen_has 'symbols start with "_": showing the first 1000'
check "a long completion list is cut short, and says so" "$?"
tab C-u 'rec' '(gilk) record' &&
	tab 's' '(gilk) record stop'
check "Tab completes record and its stop" "$?"
tab C-u 'info sym' '(gilk) info symbol' &&
	tab '__x64_sys_getpp' '(gilk) info symbol __x64_sys_getppid'
check "Tab completes info's new words, then a symbol" "$?"
settle
tab C-u 'splice do_sys_openat2:e' Tab 'do_sys_openat2:entry  do_sys_openat2:exit' &&
	tab 'x' '(gilk) splice do_sys_openat2:exit' && settle &&
	tab C-u 'blocks do_sys_openat2:bl' '(gilk) blocks do_sys_openat2:block' &&
	tmux send-keys -t gilk-test Tab Tab && screen_has 'do_sys_openat2:block   do_sys_openat2:blocks'
check "Tab completes a location's suffixes after a function name" "$?"
tab C-u 'x/4i __x64_sys_getpp' '(gilk) x/4i __x64_sys_getppid'
check "Tab completes a symbol after x/FMT" "$?"
settle
tab C-u 'list fs/name' '(gilk) list fs/name' && tmux send-keys -t gilk-test Tab Tab &&
	screen_has 'fs/namei.c:      fs/namespace.c:' && tab 'i' '(gilk) list fs/namei.c:' &&
	tmux send-keys -t gilk-test "$jumped" Enter && screen_has 'nd->state |= ND_JUMPED;'
check "Tab completes a source file's path, ready for its line" "$?"
tab C-u 'set pag' '(gilk) set pagination' &&
	tab C-u 'she' '(gilk) shell'
check "Tab completes settings and the shell command" "$?"

# The pager: a screenful, then the question; RET for more, q to stop
tmux send-keys -t gilk-test C-u 'set height 10' Enter C-l 'disas tcp_v4_rcv' Enter
screen_has '--Type <RET> for more, q to quit, c to continue without paging--'
check "the pager stops a long disas after a screenful (set height 10: 9 lines)" \
	"$([ "$(tmux capture-pane -t gilk-test -p | grep -c '<tcp_v4_rcv+[0-9]*>:')" = 9 ]; echo $?)"
tmux send-keys -t gilk-test Enter
for _ in $(seq 100); do [ "$(tmux capture-pane -t gilk-test -p | grep -c 'Type <RET>')" = 2 ] && break; sleep 0.1; done
check "RET shows the next screenful" "$([ "$(tmux capture-pane -t gilk-test -p | grep -c '<tcp_v4_rcv+[0-9]*>:')" = 18 ]; echo $?)"
tmux send-keys -t gilk-test 'q' Enter C-l 'help quit' Enter
screen_has 'usage: quit'
check "q stops the command, and the shell goes on" "$(! tmux capture-pane -t gilk-test -p | grep -q 'tcp_v4_rcv+'; echo $?)"
tmux send-keys -t gilk-test C-u 'set pagination off' Enter C-l 'disas __x64_sys_getppid' Enter
screen_has '<__x64_sys_getppid+55>:'
check "set pagination off: 14 lines on a 10-line screen, no question" \
	"$([ $? = 0 ] && ! tmux capture-pane -t gilk-test -p | grep -q 'Type <RET>'; echo $?)"

# A command typed ahead is no answer to the pager: it runs next, and the
# output before it runs on unpaged
tmux send-keys -t gilk-test C-u 'set pagination on' Enter C-l 'disas tcp_v4_rcv' Enter 'info symbol jiffies' Enter
screen_has 'jiffies in section'
check "a command typed ahead of the pager's question runs next; the output runs on" \
	"$([ $? = 0 ] && ! tmux capture-pane -t gilk-test -p | grep -q 'Type <RET>'; echo $?)"
tmux send-keys -t gilk-test C-u 'set pagination off' Enter

# Enter on an empty line: x and disas go on where they stopped
settle
tmux send-keys -t gilk-test 'x/2i __x64_sys_getpid' Enter
screen_has '_sys_getpid+5>:'
tmux send-keys -t gilk-test Enter
screen_has '_sys_getpid+12>:'
check "Enter repeats x/2i with the next two instructions" "$?"
settle
tmux send-keys -t gilk-test 'disas __x64_sys_getppid+5 2' Enter
screen_has '<__x64_sys_getppid+6>:'
tmux send-keys -t gilk-test Enter
screen_has '_sys_getppid+13>:'
check "Enter repeats disas from where it stopped" "$?"
settle
tmux send-keys -t gilk-test 'show height' Enter Enter
screen_has 'height'
sleep 0.5
check "after another command, Enter does nothing" "$([ "$(tmux capture-pane -t gilk-test -p | grep -c '^height')" = 1 ]; echo $?)"

# Ctrl-C: gilk's own loop (info functions, blocked on a pipe nobody reads),
# a shell command, and the pager's question; the session goes on
settle
running() { # running COMMAND: wait until the shell command COMMAND runs
	for _ in $(seq 200); do pgrep -xf "$1" >/dev/null && return 0; sleep 0.1; done
	return 1
}
tmux send-keys -t gilk-test 'info functions | sleep 61' Enter
running 'sleep 61'
tmux send-keys -t gilk-test C-c
screen_has 'gilk: interrupted'
check "Ctrl-C interrupts a long command (info functions into a full pipe)" "$?"
tmux send-keys -t gilk-test C-l 'shell sleep 62' Enter
running 'sleep 62'
tmux send-keys -t gilk-test C-c
screen_has 'gilk: interrupted'
tmux send-keys -t gilk-test C-l 'set pagination on' Enter 'disas tcp_v4_rcv' Enter
screen_has 'Type <RET>'
tmux send-keys -t gilk-test C-c
screen_has 'gilk: interrupted'
tmux send-keys -t gilk-test C-l 'info symbol jiffies' Enter
screen_has 'jiffies in section .data'
check "Ctrl-C in a shell command and at the pager, and the session goes on" "$?"
# at the prompt, as gdb's: the line typed goes, "Quit", a new prompt
settle
tmux send-keys -t gilk-test 'disas half-typed'
screen_has '(gilk) disas half-typed'
tmux send-keys -t gilk-test C-c
screen_has 'Quit'
tmux send-keys -t gilk-test 'info symbol jiffies' Enter
screen_has 'jiffies in section .data'
check "Ctrl-C at the prompt drops what was typed, says Quit and prompts again" \
	"$([ $? = 0 ] && tmux capture-pane -t gilk-test -p | grep -qx '(gilk) info symbol jiffies' &&
	   ! tmux capture-pane -t gilk-test -p | grep -q 'half-typedinfo'; echo $?)"

# record at the terminal: what was typed and succeeded, replayed by -x
tmux send-keys -t gilk-test C-u "record $t/typed" Enter 'disas __x64_sys_getppid 2' Enter 'bogus' Enter \
	'x/2xg jiffies' Enter 'record stop' Enter
screen_has "recording to $t/typed stopped"
check "record saves the commands typed that succeeded, and -x replays them" \
	"$([ "$(grep -v '^#' "$t/typed")" = "disas __x64_sys_getppid 2
x/2xg jiffies" ] && "${G[@]}" -x "$t/typed" | grep -q '<jiffies>:'; echo $?)"

tmux send-keys -t gilk-test C-u 'quit' Enter
for _ in $(seq 100); do tmux has-session -t gilk-test 2>/dev/null || break; sleep 0.1; done
check "quit leaves the shell (offline: no splices to ask about) and history is saved" \
	"$(grep -qx quit "$t/.gilk_history" 2>/dev/null && ! tmux has-session -t gilk-test 2>/dev/null; echo $?)"

# make bench's Tab completion figures: the shell's completion agrees with a
# scan of the symbol table on every prefix (else it fails), and says so in
# make bench's line format.
build/bench-complete "$ref/vmlinuz" "$ref/kallsyms" 50 >"$t/bc" 2>"$t/e"
check "bench-complete: Tab completion agrees with a scan, $(head -1 "$t/bc")" \
	"$([ $? = 0 ] && [ "$(grep -cE '^bench: [a-z0-9-]+ -?[0-9.]+ [^ ]+ \(vs [^:]+: (-?[0-9.]+|n/a)\)$' "$t/bc")" = 3 ]; echo $?)"
# Names as the compiler left them: a function known only by its one copy
# (NAME.constprop.0 and the like) resolves to it and says so; several copies
# are listed; a near miss gets the closest names. Picked from the kallsyms.
awk '$2 ~ /^[tT]$/ { n = $3; exact[n] = 1
	if (n ~ /\.(constprop|isra|part)\.[0-9]+$/) { b = n; sub(/\..*/, "", b); c[b]++; v[b] = n } }
	END { for (b in c) if (!exact[b]) print c[b], b, v[b] }' "$ref/kallsyms" | sort >"$t/variants"
one=$(awk '$1 == 1 && $3 !~ /cold/ {print $2, $3; exit}' "$t/variants")
many=$(awk '$1 > 1 {print $2; exit}' "$t/variants")
"${G[@]}" -c "disas ${one% *} 1" >"$t/o" 2>"$t/e"
check "a name the kernel has only as the compiler's one copy (${one#* }) resolves to it and says so" \
	"$([ $? = 0 ] && [ -n "$one" ] && grep -qx "(${one% *} is ${one#* }, the compiler's copy of it)" "$t/o" &&
	   grep -q "<${one#* }+0>" "$t/o"; echo $?)"
fails "a name with several copies by the compiler lists them ($many)" "disas $many" \
	"no symbol '$many', but the compiler made [0-9]* copies of it: $many\."
fails "a near miss gets the closest names" "disas __x64_sys_getppd" \
	"no symbol '__x64_sys_getppd'; did you mean .*__x64_sys_getppid"
"${G[@]}" -c "complete disas ${one% *}" >"$t/o"
check "Tab offers the compiler's copies of a name" "$(grep -qx "disas ${one#* }" "$t/o"; echo $?)"

build/bench-complete "$ref/vmlinuz" "$ref/kallsyms" 0 >/dev/null 2>"$t/e"
check "bench-complete refuses 0 samples with its usage" "$([ $? = 2 ] && grep -q '^usage: bench-complete' "$t/e"; echo $?)"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
