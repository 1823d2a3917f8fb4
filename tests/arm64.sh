#!/usr/bin/env bash
# arm64, read and planned: Debian's arm64 kernel (scripts/setup --profile
# arm64) decoded against binutils' objdump word for word, the shell offline
# on its Image (read with kallsyms, planned with the System.map of its -dbg
# package), the planner over every block, and gilk cross-built for it
# reading the running kernel's /proc/kcore in the arm64 lab. Kernel
# addresses are never written down: checks compare the shell's answers with
# each other, with kallsyms and with objdump.
set -u
cd "$(dirname "$0")/.."
a64=build/cache/arm64
G=(build/gilk -nx --kernel "$a64/vmlinuz" --symbols "$a64/kallsyms")
M=(build/gilk -nx --kernel "$a64/vmlinuz" --symbols "$a64/System.map")
pass=0 fail=0
check() { # check NAME STATUS
	if [ "$2" = 0 ]; then echo "PASS $1"; pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); fi
}
fails() { # fails NAME COMMAND TEXT: "gilk -c COMMAND" exits 1, saying TEXT
	"${G[@]}" -batch -c "$2" >/dev/null 2>"$t/e"
	check "$1" "$([ $? = 1 ] && grep -q -- "$3" "$t/e"; echo $?)"
}
mfails() { # the same, the kernel read with its System.map
	"${M[@]}" -batch -c "$2" >/dev/null 2>"$t/e"
	check "$1" "$([ $? = 1 ] && grep -q -- "$3" "$t/e"; echo $?)"
}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
# tool NAME FILE: a test program's PASS and FAIL lines in FILE counted; one
# that did not run to its summary (not built, crashed) is a failure
tool() {
	grep -v ' passed, ' "$2"
	pass=$((pass + $(grep -c '^PASS' "$2"))) fail=$((fail + $(grep -c '^FAIL' "$2")))
	grep -Eq '^[0-9]+ passed, [0-9]+ failed$' "$2" ||
		check "$1 ran to its summary" 1
}

# What it runs is built first: a tool missing is a failure, never a skip.
make --no-print-directory -s build/gilk build/bin/test-arm64-objdump build/bin/test-diff-arm64 \
	>"$t/make" 2>&1
check "the shell and the arm64 test programs build" "$?"
[ -s "$a64/vmlinuz" ] && [ -s "$a64/System.map" ]
check "the arm64 profile is set up (scripts/setup --profile arm64)" "$?"

# 1. Every word of the text, against objdump
build/bin/test-arm64-objdump "$a64/vmlinuz" "$a64/kallsyms" >"$t/od" 2>&1
tool test-arm64-objdump "$t/od"

# 2. The shell, offline on the Image
addr=$(awk '$3 == "vfs_read" {print $1}' "$a64/kallsyms" | head -1)
"${G[@]}" -batch -c 'disas vfs_read' >"$t/d"
"${G[@]}" -batch -c 'blocks vfs_read' >"$t/b"
ninsn=$(sed -n 's/^vfs_read: \([0-9]*\) bytes, \([0-9]*\) instructions,.*/\2/p' "$t/b")
nbytes=$(sed -n 's/^vfs_read: \([0-9]*\) bytes,.*/\1/p' "$t/b")
check "disas shows every instruction of a function, 4 bytes each ($ninsn)" \
	"$([ -n "$ninsn" ] && [ "$(wc -l <"$t/d")" = "$ninsn" ] && [ "$nbytes" = $((ninsn * 4)) ]; echo $?)"
check "disas starts at kallsyms' address, marked as a block start" \
	"$(head -1 "$t/d" | grep -q "^> 0x$addr <vfs_read+0>: "; echo $?)"
check "the two ftrace nops, then paciasp, as binutils names it" \
	"$(sed -n 1,3p "$t/d" | awk '{print $NF}' | tr '\n' ' ' | grep -qx 'nop nop paciasp '; echo $?)"
# objdump's branches in vfs_read, symbolized by gilk
check "a branch's target is named as gilk names it (bl to a function)" \
	"$(grep -q 'bl #0x[0-9a-f]* <[a-z_][a-z0-9_.]*>$' "$t/d"; echo $?)"
nblocks=$(sed -n 's/.*instructions, \([0-9]*\) blocks$/\1/p' "$t/b")
check "blocks with kallsyms: one line per block, each refused as no-tables ($nblocks)" \
	"$([ -n "$nblocks" ] && [ "$(grep -c 'refused: no-tables' "$t/b")" -ge "$nblocks" ] &&
	   grep -q "^0 of $nblocks blocks spliceable" "$t/b"; echo $?)"
# every block starts where disas marks one
check "disas marks exactly the block starts blocks lists" \
	"$([ "$(grep -c '^>' "$t/d")" = "$nblocks" ]; echo $?)"
"${G[@]}" -batch -c 'blocks --dot vfs_read' >"$t/dot"
check "blocks --dot: a graph with a node per block" \
	"$(head -1 "$t/dot" | grep -q '^digraph' && [ "$(grep -c '^  b[0-9]* \[' "$t/dot")" = "$nblocks" ]; echo $?)"
"${G[@]}" -batch -c 'x/3i vfs_read+8' >"$t/x"
check "x/3i from a symbol plus an offset" \
	"$([ "$(wc -l <"$t/x")" = 3 ] && head -1 "$t/x" | grep -q '<vfs_read+8>:.*paciasp'; echo $?)"
"${G[@]}" -batch -c 'info symbol vfs_read+8' >"$t/s"
check "info symbol: a name and an offset" "$(grep -q '^vfs_read + 8' "$t/s"; echo $?)"
fails "plan with kallsyms: refused, the kernel's tables unknown" 'plan vfs_read+8' 'its System.map does'
fails "disas in the middle of an instruction is an error" 'disas vfs_read+2' 'inside the instruction at +0x0 (4 bytes)'
# ARMv8.1's atomics decode (Capstone 4 does not know them): a lock's slow
# path, full of them, has all its blocks, none undecodable
"${G[@]}" -batch -c 'disas queued_spin_lock_slowpath' >"$t/q"
"${G[@]}" -batch -c 'blocks queued_spin_lock_slowpath' >"$t/qb"
check "queued_spin_lock_slowpath: its LSE atomics decode, no block undecodable" \
	"$(grep -qE '<queued_spin_lock_slowpath\+[0-9]+>: .* (cas|(ld|st)(add|clr|eor|set|[su](max|min))|swp)[albh]* ' "$t/q" &&
	   ! grep -q '(bad)' "$t/q" && grep -q 'refused: no-tables' "$t/qb" && ! grep -q undecodable "$t/qb"; echo $?)"

# A switch the compiler made a table of (adrp, add, ldrh, adr, add ... sxth
# #2, br) whose table's address was stored to the stack before the loop and
# loaded back at the dispatch, its bound checked in the block before: read
# all the same (the image's bytes, kallsyms or not), its br no tail call
"${G[@]}" -batch -c 'blocks apply_relocate_add' >"$t/sw"
check "a switch's table spilled to the stack is read: its br leads to each of its cases, nothing unseen" \
	"$(grep -q ' -> [0-9,]*,\.\.\. ([0-9]*) ' "$t/sw" && ! grep -q 'jumps through a table' "$t/sw" &&
	   ! grep -q 'indirect tail call' "$t/sw"; echo $?)"

# 2b. Planned, with the System.map's data symbols: the kernel's tables are
# read from the Image (relocated as the boot code does), every site is one
# instruction a b replaces, and the refusals have their reasons.
"${M[@]}" -batch -c 'blocks vfs_read' >"$t/mb"
nbug=$(grep -c 'refused: bug-site' "$t/mb")
check "blocks vfs_read: every block planned as a b over one instruction but its BUG()s ($nbug)" \
	"$(grep -q "^$((nblocks - nbug)) of $nblocks blocks spliceable" "$t/mb" &&
	   [ "$(grep -c 'b, region 4 bytes' "$t/mb")" -ge $((nblocks - nbug)) ]; echo $?)"
check "the entry block is spliced past ftrace's two nops and the paciasp" \
	"$(grep -q '^   0  +0x0 .*(past ftrace, paciasp) b, region 4 bytes' "$t/mb"; echo $?)"
"${M[@]}" -batch -c 'plan vfs_read:entry' >"$t/mp"
# the fourth instruction's bytes, as disas shows them (little-endian)
b4=$(sed -n 4p "$t/d" | sed -n 's/^.*<vfs_read+12>: \([0-9a-f][0-9a-f]\) \([0-9a-f][0-9a-f]\) \([0-9a-f][0-9a-f]\) \([0-9a-f][0-9a-f]\) .*/\1 \2 \3 \4/p')
check "plan vfs_read:entry: the instruction past the paciasp, at +0xc ($b4), planned" \
	"$([ -n "$b4" ] && sed -n 1p "$t/mp" | grep -qx 'b, region 4 bytes' &&
	   sed -n 2p "$t/mp" | grep -q "vfs_read+0xc .*: $b4\$" && sed -n 3p "$t/mp" | grep -q '^relocated: 1 word'; echo $?)"
"${M[@]}" -batch -c 'plan vfs_read+8' >"$t/mp8"
check "plan vfs_read+8, the paciasp past ftrace's nops (no landing pad): planned, relocated as itself" \
	"$(sed -n 1p "$t/mp8" | grep -qx 'b, region 4 bytes' && sed -n 2p "$t/mp8" | grep -q 'vfs_read+0x8 .*: 3f 23 03 d5$' &&
	   sed -n 3p "$t/mp8" | grep -q '^relocated: 1 word for a trampoline at 0x[0-9a-f]*: d503233f$'; echo $?)"
mfails "plan at ftrace's nops: refused as ftrace" 'plan vfs_read' 'ftrace call site'
# splice, which gilk.ko does for x86-64 alone: where to go instead, by
# what the symbols let gilk plan
fails "splice, the symbols kallsyms: gilk.ko does not splice arm64; plan needs the System.map" \
	'splice vfs_read' 'needs gilk.ko, which does not splice arm64 kernels yet; offline, plan needs the kernel.s tables.*--symbols System.map'
mfails "splice, the symbols a System.map: gilk.ko does not splice arm64; plan shows what it would do" \
	'splice vfs_read' 'needs gilk.ko, which does not splice arm64 kernels yet; offline, "plan" shows'
"${M[@]}" -batch -c 'blocks read_pmevcntrn' >"$t/msw"
nsw=$(sed -n 's/^read_pmevcntrn: .* instructions, \([0-9]*\) blocks$/\1/p' "$t/msw")
check "a switch's table read from the Image: its br leads to all 31 counters, nothing unseen" \
	"$([ -n "$nsw" ] && grep -q ' -> [0-9,]*,\.\.\. (31) ' "$t/msw"; echo $?)"
check "the switch's function planned ($nsw blocks)" \
	"$([ -n "$nsw" ] && grep -q "^$((nsw - $(grep -c 'refused: bug-site' "$t/msw"))) of $nsw blocks spliceable" "$t/msw"; echo $?)"
"${M[@]}" -batch -c 'blocks apply_relocate_add' >"$t/msw2"
nsw2=$(sed -n 's/^apply_relocate_add: .* instructions, \([0-9]*\) blocks$/\1/p' "$t/msw2")
check "a switch whose table's address was stored to the stack: read, its function planned ($nsw2 blocks)" \
	"$([ -n "$nsw2" ] && ! grep -q 'jumps through a table' "$t/msw2" &&
	   grep -q "^$((nsw2 - $(grep -c 'refused: bug-site' "$t/msw2"))) of $nsw2 blocks spliceable" "$t/msw2"; echo $?)"
"${M[@]}" -batch -c 'disas read_pmevcntrn' >"$t/mswd"
check "a WARN()'s brk falls through, by the bug table: a block starts after it" \
	"$(grep -q 'brk #0x800$' "$t/mswd" && awk '/brk #0x800$/ {getline; print}' "$t/mswd" | grep -q '^> '; echo $?)"
"${M[@]}" -batch -c 'blocks fpsimd_save_state' >"$t/mbti"
check "an assembly function's bti c is a landing pad: spliced past" \
	"$(grep -q '^   0  +0x0 .*(past bti c) b, region 4 bytes' "$t/mbti"; echo $?)"
mfails "plan at a bti: refused as a landing pad" 'plan fpsimd_save_state' 'landing pad'
"${M[@]}" -batch -c 'blocks register_debug_hook' >"$t/mx"
"${M[@]}" -batch -c 'disas register_debug_hook' >"$t/mxd"
head=$(sed -n 's/^> 0x[0-9a-f]* <register_debug_hook+\([0-9]*\)>: .* ld[a]*xr .*/\1/p' "$t/mxd" | head -1)
check "an LL/SC loop: its ldaxr is planned, the store-exclusive's block refused as exclusive" \
	"$([ -n "$head" ] && grep -q "^ *[0-9]*  +0x$(printf %x "$head") .* b, region 4 bytes" "$t/mx" &&
	   grep -q 'refused: exclusive' "$t/mx"; echo $?)"
# every planned site of the kernel, original against relocated, under
# Unicorn (and planted bugs caught)
build/bin/test-diff-arm64 --kernel "$a64/vmlinuz" "$a64/System.map" >"$t/dk" 2>&1
tool test-diff-arm64 "$t/dk"
make --no-print-directory -s bench-offline KERNEL=arm64 >"$t/bo" 2>&1
engine=$(sed -n 's/^engine: \([0-9.]*\)% .*/\1/p' "$t/bo")
check "bench-offline on arm64: at least 99.9% of the blocks outside reserved code planned ($engine%)" \
	"$([ -n "$engine" ] && awk -v e="$engine" 'BEGIN { exit !(e >= 99.9) }'; echo $?)"
tables=$(sed -n 's/^switch tables: \([0-9]* of [0-9]*\) read$/\1/p' "$t/bo")
check "bench-offline on arm64: every switch table of the kernel read ($tables)" \
	"$(echo "$tables" | awk '$1 == $3 && $1 > 100 { ok = 1 } END { exit !ok }'; echo $?)"

# 3. The arm64 lab: gilk, cross-built, on the running kernel's /proc/kcore
make --no-print-directory -s cross-arm64 >"$t/cross" 2>&1 ||
	{ cat "$t/cross"; echo "FAIL make cross-arm64"; fail=$((fail + 1)); }
scripts/lab --kernel arm64 --run 'uname -m; gilk -nx --kernel /proc/kcore --symbols /proc/kallsyms -batch -c "x/2i vfs_read" -c "blocks vfs_read"; gilk -nx -batch -c "info splices"' \
	>"$t/live" 2>&1
check "the arm64 lab runs gilk, cross-built, on aarch64" "$(head -1 "$t/live" | grep -qx aarch64; echo $?)"
# a run that went wrong shows what the guest printed (its console with it)
grep -q '<vfs_read>:.*mov x9, x30' "$t/live" || { echo "the arm64 lab run printed:"; tail -n 60 "$t/live"; } >&2
# ftrace has made the first nop "mov x9, x30" at boot: the live bytes
check "live: the running kernel's text, patched by ftrace at boot (mov x9, x30)" \
	"$(grep -q '<vfs_read>:.*mov x9, x30' "$t/live"; echo $?)"
check "live: the same blocks as offline ($nblocks)" \
	"$(grep -q "^vfs_read: $nbytes bytes, $ninsn instructions, $nblocks blocks" "$t/live"; echo $?)"
check "live: plain gilk (no /dev/gilk) says gilk.ko is not built for the machine's kernel, and how to read it" \
	"$(grep -q '/dev/gilk: No such file or directory (gilk.ko is not built for this machine.s kernel yet: gilk reads it with gilk --kernel /proc/kcore --symbols /proc/kallsyms)' "$t/live"; echo $?)"

# 4. make lab KERNEL=arm64, as a person uses it: the gilk shell on
# /proc/kcore, /root shared with the host, quit to a root shell, poweroff
tmux kill-session -t gilk-arm64-test 2>/dev/null
mkdir -p "$t/labtmp"
tmux new-session -d -s gilk-arm64-test -x 160 -y 50 \
	"TMPDIR=$t/labtmp GILK_LAB_HOME=$t/home make --no-print-directory lab KERNEL=arm64; echo lab-ended; sleep 60"
. tests/screen.sh
screen() { screen_shows gilk-arm64-test "$1" "$2"; }
screen '(gilk)' 300
ready=$?
banner=$(tmux capture-pane -t gilk-arm64-test -p | grep -m1 'ready [0-9.]* s after boot')
tmux capture-pane -t gilk-arm64-test -p | grep -q 'This is the gilk shell on /proc/kcore'
kcore=$?
tmux send-keys -t gilk-arm64-test 'record kept.gilk' Enter
screen 'recording' 60 && tmux send-keys -t gilk-arm64-test 'blocks getname' Enter && screen 'blocks spliceable' 60
blocked=$?
kept=$(grep -v '^#' "$t/home/kept.gilk" 2>/dev/null)
tmux send-keys -t gilk-arm64-test 'quit' Enter
screen '/root #' 60 && tmux send-keys -t gilk-arm64-test 'poweroff' Enter && screen 'lab-ended' 60
ended=$?
tmux kill-session -t gilk-arm64-test 2>/dev/null
check "make lab KERNEL=arm64: the gilk shell on /proc/kcore ($banner); quit leaves a root shell, poweroff ends it" \
	"$([ $ready = 0 ] && [ $kcore = 0 ] && [ -n "$banner" ] && [ $blocked = 0 ] && [ $ended = 0 ]; echo $?)"
check "make lab KERNEL=arm64: /root is the host's, a transcript recorded there is on the host (${kept:-nothing})" \
	"$([ "$kept" = 'blocks getname' ]; echo $?)"
check "make lab KERNEL=arm64 leaves nothing in TMPDIR ($(ls "$t/labtmp" | wc -l) entries)" \
	"$([ -z "$(ls -A "$t/labtmp")" ]; echo $?)"

# Bad input: an arm64 guest with the network, which it has not
scripts/lab --kernel arm64 --net --run true >"$t/out" 2>"$t/err"
check "lab: --net on arm64 is refused, saying why" \
	"$([ $? = 2 ] && grep -q 'no network and no bpftrace yet (--net)' "$t/err"; echo $?)"
scripts/lab --kernel arm64 --with-bpftrace --run true >"$t/out" 2>"$t/err"
check "lab: --with-bpftrace on arm64 (the host's x86 bpftrace) is refused" \
	"$([ $? = 2 ] && grep -q '(--with-bpftrace)' "$t/err"; echo $?)"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
