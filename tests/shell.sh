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
t=$(mktemp -d)
trap 'rm -rf "$t"; tmux kill-session -t gilk-test 2>/dev/null' EXIT

"${G[@]}" -c help >"$t/help"
# The command table, as gilk's own complete command lists it
"${G[@]}" -c 'complete' >"$t/cmds"
check "help lists every command of the table ($(wc -l <"$t/cmds") commands)" \
	"$([ "$(wc -l <"$t/cmds")" -ge 18 ] && for c in $(cat "$t/cmds"); do grep -q "^  $c" "$t/help" || exit 1; done; echo $?)"
"${G[@]}" -c 'help dis' >"$t/h"
check "help COMMAND shows usage and help; a unique prefix names a command" \
	"$(grep -q '^usage: disas LOCATION \[COUNT\]' "$t/h" && grep -q "block" "$t/h"; echo $?)"

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
"${G[@]}" -c 'disas no_such_symbol_anywhere' 2>"$t/e"
check "a missing symbol is named" "$([ $? = 1 ] && grep -q "no symbol 'no_such_symbol_anywhere'" "$t/e"; echo $?)"
"${G[@]}" -c 'frobnicate' -c 'help' >"$t/o" 2>"$t/e"
check "an unknown command stops -c with status 1; later commands do not run" \
	"$([ $? = 1 ] && grep -q 'undefined command: "frobnicate"' "$t/e" && [ ! -s "$t/o" ]; echo $?)"
"${G[@]}" -c 's x' 2>"$t/e"
check "an ambiguous prefix is not a command" "$([ $? = 1 ] && grep -q 'undefined command: "s"' "$t/e"; echo $?)"
"${G[@]}" -c 'help "disas' 2>"$t/e"
check "an unterminated quote is an error" "$([ $? = 1 ] && grep -q 'unterminated quote' "$t/e"; echo $?)"
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
build/gilk --kernel "$ref/vmlinuz" -c help 2>"$t/e"
check "offline mode needs both --kernel and --symbols" "$([ $? = 2 ] && grep -q 'needs both' "$t/e"; echo $?)"

# output redirection, as in crash
"${G[@]}" -c "blocks __x64_sys_getppid > $t/r" >"$t/o"
"${G[@]}" -c "blocks __x64_sys_getppid >> $t/r" >>"$t/o"
check "CMD > FILE writes FILE, >> appends, nothing on stdout" \
	"$([ ! -s "$t/o" ] && [ "$(grep -c spliceable "$t/r")" = 2 ]; echo $?)"
"${G[@]}" -c 'blocks __x64_sys_getppid >' 2>"$t/e"
check "a redirection without a file is an error" "$([ $? = 1 ] && grep -q 'redirection needs a file' "$t/e"; echo $?)"
"${G[@]}" -c 'help > /nonexistent/dir/file' 2>"$t/e"
check "a file that cannot be written is named" "$([ $? = 1 ] && grep -q '/nonexistent/dir/file: No such file' "$t/e"; echo $?)"

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
nsucc=$(awk '$7 == "->" && $8 != "exit" {n += split($8, a, ",")} END {print n + 0}' "$t/o")
check "blocks --dot: a node per block ($nodes of $nblocks), an edge per successor ($edges of $nsucc)" \
	"$([ "$nodes" = "$nblocks" ] && [ "$edges" = "$nsucc" ] && head -1 "$t/dot" | grep -q '^digraph "do_exit" {$' &&
	   [ "$(tail -1 "$t/dot")" = "}" ] && grep -q 'label="after WARN"' "$t/dot" && grep -q 'WARN replayed' "$t/dot"; echo $?)"
"${G[@]}" -c 'blocks --dot' 2>"$t/e"
check "blocks --dot without a function is a usage error" "$([ $? = 1 ] && grep -q 'usage: blocks \[--dot\] FUNCTION' "$t/e"; echo $?)"

# set and show
"${G[@]}" -c 'show' -c 'set listsize 3' -c 'set instrument tsc' -c 'set trap on' -c 'set format csv' -c 'show' \
	-c 'disas __x64_sys_getppid+5' >"$t/o" 2>"$t/e"
check "show lists the settings with their defaults; set changes them" \
	"$([ $? = 0 ] && [ "$(sed -n 1,6p "$t/o" | awk '{print $1 "=" $2}' | tr '\n' ' ')" = "listsize=16 instrument=count trap=off format=auto pagination=on height=auto " ] &&
	   [ "$(sed -n 7,10p "$t/o" | awk '{print $1 "=" $2}' | tr '\n' ' ')" = "listsize=3 instrument=tsc trap=on format=csv " ]; echo $?)"
check "set listsize is how many instructions disas shows past a function's start" \
	"$([ "$(sed -n '13,$p' "$t/o" | wc -l)" = 3 ]; echo $?)"
"${G[@]}" -c 'set pagination off' -c 'set height 7' -c 'show pagination' -c 'show height' -c 'set height auto' -c 'show height' >"$t/o" 2>"$t/e"
check "set pagination and set height change what show says" \
	"$([ $? = 0 ] && [ "$(awk '{print $1 "=" $2}' "$t/o" | tr '\n' ' ')" = "pagination=off height=7 height=auto " ]; echo $?)"
"${G[@]}" -c 'set height -3' 2>"$t/e"
check "set height with a bad value says what it takes" "$([ $? = 1 ] && grep -q 'set height N|auto' "$t/e"; echo $?)"
"${G[@]}" -c 'set trap maybe' 2>"$t/e"
check "set with a bad value says what the setting takes" "$([ $? = 1 ] && grep -q 'set trap on|off' "$t/e"; echo $?)"
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
"${G[@]}" -c 'dump memory /nonexistent/dir/m __x64_sys_getppid +8' 2>"$t/e"
check "dump to a file that cannot be made names it" "$([ $? = 1 ] && grep -q '/nonexistent/dir/m: No such file' "$t/e"; echo $?)"
"${G[@]}" -c 'dump events '"$t"'/ev.csv' 2>"$t/e"
check "dump events offline says it needs live mode" "$([ $? = 1 ] && grep -q 'dump events needs live mode' "$t/e"; echo $?)"
"${G[@]}" -c 'dump events --format yaml '"$t"'/ev' 2>"$t/e"
check "dump with an unknown format lists the formats" "$([ $? = 1 ] && grep -q "no format 'yaml': text, csv, json or chrome" "$t/e"; echo $?)"
"${G[@]}" -c 'dump splices --format chrome '"$t"'/sp' 2>"$t/e"
check "dump splices as a Chrome trace is refused" "$([ $? = 1 ] && grep -q 'a Chrome trace holds events' "$t/e"; echo $?)"
"${G[@]}" -c 'hist rsx' 2>"$t/e"
check "hist offline says it needs live mode (its fields are checked live)" "$([ $? = 1 ] && grep -q "hist needs live mode" "$t/e"; echo $?)"
"${G[@]}" -c 'dump things x' 2>"$t/e"
check "dump of an unknown thing names the three" "$([ $? = 1 ] && grep -q 'dump what? "memory", "events" or "splices"' "$t/e"; echo $?)"

# test-json, which the guest's dump tests rely on, tells JSON from not JSON
printf '{"a": [1, -2.5e3, "x\\u00e9\\n", true, null, {}], "events": [[1], {"b": 2}, 3]}' >"$t/j1"
printf '{"a": [1,]}' >"$t/j2"
printf '[1, 2] x' >"$t/j3"
printf '["a\tb", 01]' >"$t/j4"
check "test-json counts a valid document's array and rejects broken ones" \
	"$([ "$(build/bin/test-json "$t/j1" events)" = 3 ] && ! build/bin/test-json "$t/j2" 2>/dev/null &&
	   ! build/bin/test-json "$t/j3" 2>/dev/null && ! build/bin/test-json "$t/j4" 2>/dev/null; echo $?)"

# the man page documents exactly the commands help lists
help_cmds=$(sed -n 's/^  \([a-z]*\).*/\1/p' "$t/help")
entries=$(sed -n '/^\.SH COMMANDS/,/^\.SH INSTRUMENTS/p' shell/gilk.1 | grep -c '^\.TP')
check "the man page documents exactly the commands help lists" \
	"$(for c in $help_cmds; do grep -q "^\\\\fB$c\(\\\\fR\| \)" shell/gilk.1 || exit 1; done
	   [ "$entries" = "$(echo "$help_cmds" | wc -l)" ]; echo $?)"
warnings=$(groff -man -Tutf8 -ww -z shell/gilk.1 2>&1)
check "the man page renders without a warning${warnings:+: $warnings}" "$([ -z "$warnings" ] && command -v groff >/dev/null; echo $?)"
bash -c 'source completions/gilk.bash; COMP_WORDS=(gilk --ke); COMP_CWORD=1; _gilk; [ "${COMPREPLY[*]}" = "--kernel" ]'
check "bash completion completes gilk's options" "$?"

# Tab completion in a real terminal. Each step waits (up to 20 s) for what
# it expects on the screen rather than sleeping a fixed time.
screen_has() { # screen_has TEXT: wait until the pane shows TEXT
	for _ in $(seq 200); do
		tmux capture-pane -t gilk-test -p 2>/dev/null | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
tmux kill-session -t gilk-test 2>/dev/null
HOME=$t tmux new-session -d -s gilk-test -x 200 -y 50 "${G[*]}"
screen_has '(gilk)'
tmux send-keys -t gilk-test 'bl' Tab
screen_has '(gilk) blocks'
tmux send-keys -t gilk-test '__x64_sys_getpp' Tab
screen_has '(gilk) blocks __x64_sys_getppid'
check "Tab completes a command and a kernel symbol" "$?"
tmux send-keys -t gilk-test C-u 'dump ev' Tab
screen_has '(gilk) dump events'
check "Tab completes what dump writes" "$?"
tmux send-keys -t gilk-test C-u 'disas _' Tab Tab
screen_has 'symbols start with "_": showing the first 1000'
check "a long completion list is cut short, and says so" "$?"
tmux send-keys -t gilk-test C-u 'quit' Enter
for _ in $(seq 100); do tmux has-session -t gilk-test 2>/dev/null || break; sleep 0.1; done
check "quit leaves the shell and history is saved" \
	"$(grep -qx quit "$t/.gilk_history" 2>/dev/null && ! tmux has-session -t gilk-test 2>/dev/null; echo $?)"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
