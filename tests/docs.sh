#!/usr/bin/env bash
# The teaching material runs as written: every "(gilk) " command of
# docs/tutorial.md, in order, in one lab boot (gilk stops at the first that
# fails), and each exercise's reference solution in docs/exercises.md, with
# checks on what they show.
set -u
cd "$(dirname "$0")/.."
pass=0 fail=0
check() { # check NAME STATUS
	if [ "$2" = 0 ]; then echo "PASS $1"; pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); fi
}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
# The guest sees build/ at the same place: the commands go there.
mkdir -p build/docs
commands() { # commands FILE: its "(gilk) " lines, as typed
	sed -n 's/^    (gilk) //p' "$1"
}

commands docs/tutorial.md >build/docs/tutorial.cmds
n=$(wc -l <build/docs/tutorial.cmds)
# docs/security.md's tables are the shell's help refusals and help errors
G=(build/gilk --kernel build/cache/ref/vmlinuz --symbols build/cache/ref/kallsyms)
table() { # table FILE MARKER: the rows between <!-- MARKER --> and <!-- end -->
	sed -n "/^<!-- $2 -->\$/,/^<!-- end -->\$/p" "$1" | grep '^| ' | tail -n +3
}
"${G[@]}" -c 'help refusals' 2>/dev/null | sed -n 's/^  \([a-z0-9-]*\) *\(.*\)$/| `\1` | \2 |/p' >"$t/refusals"
"${G[@]}" -c 'help errors' 2>/dev/null | sed -n 's/^  \(E[A-Z0-9]*\) *\([^:]*\): \(.*\)$/| \1 | \2 | \3 |/p' >"$t/errors"
"${G[@]}" -c 'help errors' 2>/dev/null | sed -n '/^Why gilk.ko refuses a splice/,$p' |
	sed -n 's/^  \([a-z0-9-]*\) *\(E[A-Z0-9]*\) *\(.*\)$/| `\1` | \2 | \3 |/p' >"$t/kernel-refusals"
check "docs/security.md: the refusal table is help refusals ($(wc -l <"$t/refusals") rows)" \
	"$([ -s "$t/refusals" ] && table docs/security.md 'help refusals' | diff "$t/refusals" - >&2; echo $?)"
check "docs/security.md: the errno table is help errors ($(wc -l <"$t/errors") rows)" \
	"$([ -s "$t/errors" ] && table docs/security.md 'help errors' | diff "$t/errors" - >&2; echo $?)"
check "docs/security.md: gilk.ko's refusal table is help errors' ($(wc -l <"$t/kernel-refusals") rows)" \
	"$([ -s "$t/kernel-refusals" ] && table docs/security.md 'help errors: refusals' |
	   diff "$t/kernel-refusals" - >&2; echo $?)"

# The README's figures are the latest run's: each row of its table names a
# "bench:" line (NAME vs REFERENCE) whose ratio docs/performance.md's latest
# run must give, and the page stays a page (method, latest run, goals)
rows=$(sed -n '/^<!-- bench -->$/,/^<!-- end -->$/p' README.md | sed -n 's/^| `\([^`]*\)` vs `\([^`]*\)` | .* | \([-0-9.n/a]*\) |$/\1|\2|\3/p')
bad=$(echo "$rows" | while IFS='|' read -r name ref ratio; do
	grep -qF "bench: $name " docs/performance.md &&
	grep -F "bench: $name " docs/performance.md | grep -qF "(vs $ref: $ratio)" || echo "$name vs $ref"; done)
check "the README's figures ($(echo "$rows" | grep -c .)) are docs/performance.md's latest run${bad:+; not: $bad}" \
	"$([ "$(echo "$rows" | grep -c .)" -ge 5 ] && [ -z "$bad" ]; echo $?)"
check "docs/performance.md and docs/kernels.md stay under 150 lines ($(wc -l <docs/performance.md), $(wc -l <docs/kernels.md))" \
	"$([ "$(wc -l <docs/performance.md)" -lt 150 ] && [ "$(wc -l <docs/kernels.md)" -lt 150 ]; echo $?)"

# An instrument is its file in instruments/ and its doc: the build finds it
# (the Makefile, Kbuild and make install's dkms.conf), docs/instruments.md
# must say what it does.
missing=$(for f in instruments/*.c; do n=$(basename "$f" .c)
	sed -n '/^The instruments here:/,/^$/p' docs/instruments.md | grep -q "\`$n\`" || echo "$n"; done)
check "docs/instruments.md says what each instrument of instruments/ does${missing:+; not: $missing}" \
	"$([ -z "$missing" ] && ls instruments/*.c >/dev/null; echo $?)"

# make check-install runs the tutorial on a Debian system from a checked
# transcript: the same commands, in the same order
check "the Debian install check's transcript holds the tutorial's commands" \
	"$(grep -v '^#' tests/debian/tutorial.gilk | diff build/docs/tutorial.cmds - >&2; echo $?)"
scripts/lab --run '. /lab/up; build/gilk <build/docs/tutorial.cmds; st=$?; echo "== recorded"; cat /tmp/lab1.gilk; exit $st' \
	>"$t/out" 2>"$t/err"
rc=$?
check "tutorial: all $n commands run in the lab, none fails (status $rc)" "$([ $rc = 0 ] && [ "$n" -ge 15 ]; echo $?)"
hits=$(awk '$2 ~ /^do_filp_open\+/ && $NF == "count" {print $4}' "$t/out" | head -1)
check "tutorial: Tab's list, the disassembly, the blocks with their exits and the noreturn call, the counted opens (${hits:-none})" \
	"$(grep -qx 'disas do_sys_openat2' "$t/out" && grep -q '^> 0x[0-9a-f]* <do_sys_openat2+0>: ' "$t/out" &&
	   grep -q '\[exit: \(ret\|return thunk\) at +0x[0-9a-f]*, jmp' "$t/out" && grep -q -- '-> noreturn ' "$t/out" &&
	   grep -q '\[splice 1: [0-9]* hits\]$' "$t/out" && [ "${hits:-0}" -gt 0 ]; echo $?)"
check "tutorial: latency times do_sys_openat2, events show durations, hist draws them" \
	"$(grep -q '^timing do_sys_openat2: splice [0-9]* at its entry' "$t/out" &&
	   grep -q ' latency: ns=[0-9]* pid=' "$t/out" && grep -q '^ns over [0-9]* of [0-9]* drained events' "$t/out"; echo $?)"
rec=$(sed -n '/^== recorded$/,$p' "$t/out" | tail -n +2 | grep -v '^#')
check "tutorial: the transcript holds the commands that ran, and source replays it ($(echo "$rec" | wc -l) lines)" \
	"$([ "$(echo "$rec" | head -1)" = 'complete disas do_sys_ope' ] && echo "$rec" | grep -qx 'latency do_sys_openat2' &&
	   ! echo "$rec" | grep -q '^record' && [ "$(grep -c '^timing do_sys_openat2:' "$t/out")" = 2 ]; echo $?)"

# The README's demo, as typed (its comments aside), in the lab: each
# command runs, and each shows what it says (the lab is idle, so the demo
# brings its own work).
sed -n '/^## Thirty seconds/,/^## [A-Z]/p' README.md | sed -n 's/^    (gilk) //p' |
	sed 's/   *# .*$//' >build/docs/readme.cmds
# (from /tmp: its dump writes a file where it runs)
scripts/lab --run '. /lab/up; tree=$PWD; cd /tmp && "$tree/build/gilk" <"$tree/build/docs/readme.cmds"' \
	>"$t/out" 2>"$t/err"
rc=$?
check "README: its demo's $(wc -l <build/docs/readme.cmds) commands run in the lab as typed, none fails (status $rc)" \
	"$([ $rc = 0 ] && [ "$(wc -l <build/docs/readme.cmds)" -ge 30 ]; echo $?)"
check "README: the demo's events, filtered in gilk.ko and in the shell, its histograms and stacks show what they say" \
	"$(grep -q 'filename="/proc/version"' "$t/out" && grep -q ' dd\[[0-9]*\].* rax=0x' "$t/out" &&
	   [ "$(grep -c ' dd\[[0-9]*\] splice [0-9]* regs: .* rdx=0x2000 ' "$t/out")" = 3 ] &&
	   grep -q '^ns over [0-9]* of [0-9]* drained events' "$t/out" &&
	   grep -q '^@\[dd\]: 50 hits, average 100' "$t/out" && grep -q '^    ksys_write+[0-9]*$' "$t/out" &&
	   grep -q '^wrote the line coverage of' "$t/out"; echo $?)"
[ $rc = 0 ] || { echo "the README's demo said:"; tail -n 20 "$t/out" "$t/err" | sed 's/^/  /'; }

# The exercises: each reference solution, piped into gilk, in one boot.
run=". /lab/up"
cp docs/solutions/*.gilk build/docs/
for f in docs/solutions/*.gilk; do
	run="$run; echo '== $(basename "$f" .gilk)'; build/gilk <build/docs/${f##*/} || echo '== failed'"
done
scripts/lab --run "$run" >"$t/out" 2>"$t/err"
rc=$?
part() { sed -n "/^== $1\$/,/^== /p" "$t/out"; }
n=$(grep -c '^## [0-9]' docs/exercises.md)
check "exercises: $n in docs/exercises.md, a reference solution for each, all run without error (status $rc)" \
	"$([ $rc = 0 ] && [ "$n" -ge 3 ] && [ "$(ls docs/solutions/*.gilk | wc -l)" = "$n" ] &&
	   for e in $(sed -n 's,.*Solution: `docs/solutions/\(.*\)\.gilk`.*,\1,p' docs/exercises.md); do
		[ -e "docs/solutions/$e.gilk" ] || exit 1; done && ! grep -q '^== failed' "$t/out"; echo $?)"
six=$(part vfs_read | grep -c ' regs: rax=0x6 .*rip=0x[0-9a-f]* <vfs_read+[0-9]*>')
check "exercise 1 (vfs_read): its exit sees the 6 bytes dd read ($six)" "$([ "$six" -ge 1 ]; echo $?)"
max=$(part schedule | sed -n 's/^ns over [0-9]* of [0-9]* drained events: min [0-9]*, max \([0-9]*\)$/\1/p')
check "exercise 2 (schedule): the longest time away is the second slept (${max:-none} ns)" \
	"$([ "${max:-0}" -ge 1000000000 ] && [ "${max:-0}" -lt 5000000000 ]; echo $?)"
part o_creat | awk '$2 ~ /^build_open_flags/ {print $2, $4}' >"$t/hits"
nb=$(part o_creat | sed -n 's/^spliced \([0-9]*\) of .* blocks of build_open_flags.*/\1/p')
only=$(awk -v n="$nb" 'NR <= n {before[$1] = $2; next} before[$1] == 0 && $2 >= 10 {print $1}' "$t/hits")
check "exercise 3 (O_CREAT): blocks of build_open_flags no plain open reached and every create did: ${only:-none}" \
	"$([ -n "$nb" ] && [ "$(wc -l <"$t/hits")" = $((2 * nb)) ] && [ -n "$only" ]; echo $?)"

# The labs: each has its text, grader and reference transcript; make grade
# passes every reference transcript and fails a planted wrong answer, in one
# boot.
nlabs=$(ls docs/labs/[0-9]-*.md | wc -l)
check "docs/labs: $nlabs labs, each with its grader and reference transcript, in the index" \
	"$([ "$nlabs" = 6 ] && for n in $(seq 1 $nlabs); do
		[ -e "docs/labs/grade/$n.sh" ] && [ -e "docs/labs/answers/$n.gilk" ] &&
			grep -q "^| \[$n\](" docs/labs/README.md || exit 1; done; echo $?)"
scripts/grade 7 docs/labs/answers/1.gilk >"$t/out" 2>&1
rc1=$?
scripts/grade 1 "$t/none.gilk" >>"$t/out" 2>&1
rc2=$?
check "make grade: an unknown lab and a missing transcript are refused before any boot" \
	"$([ $rc1 = 2 ] && [ $rc2 = 2 ] && grep -q "^grade: no lab '7' (the labs: 1 2 3 4 5 6 )" "$t/out" &&
	   grep -q "^grade: cannot read the transcript '$t/none.gilk'" "$t/out"; echo $?)"
# planted: lab 3's sysctl_sched_latency as the source's default, not this
# machine's; answer 1 not a number; an answer to a question lab 3 lacks
sed 's/^# answer 2: .*/# answer 2: 6000000/; s/^# answer 1: .*/# answer 1: about a second/' \
	docs/labs/answers/3.gilk >build/docs/wrong3.gilk
echo '# answer 9: 42' >>build/docs/wrong3.gilk
args=()
for n in $(seq 1 $nlabs); do args+=("$n" "docs/labs/answers/$n.gilk"); done
make --no-print-directory grade FILE=docs/labs/answers/1.gilk >"$t/one" 2>&1
rc1=$?
scripts/grade "${args[@]}" 3 build/docs/wrong3.gilk >"$t/out" 2>&1
rc=$?
for n in $(seq 1 $nlabs); do
	q=$(grep -c '^ *[0-9]\. ' <(sed -n '/^## Questions$/,/^Think about/p' docs/labs/$n-*.md))
	line=$(grep "^lab $n (docs/labs/answers/$n.gilk): " "$t/out")
	check "make grade: lab $n's reference transcript replays and answers its $q questions right ($line)" \
		"$([ "$line" = "lab $n (docs/labs/answers/$n.gilk): $q of $q questions right" ] &&
		   sed -n "/^== lab $n (docs\/labs\/answers\/$n.gilk)\$/,/^lab $n /p" "$t/out" |
			grep -q '^PASS the transcript replays: '; echo $?)"
done
w3=$(sed -n '/^== lab 3 (build\/docs\/wrong3.gilk)$/,$p' "$t/out")
check "make grade: a planted wrong answer fails, named; one not a number is said unread; one to no question is noted; the run fails (status $rc): $(grep '^lab 3 (build/docs/wrong3.gilk)' "$t/out")" \
	"$([ $rc = 1 ] && grep -q "^lab 3 (build/docs/wrong3.gilk): 1 of 3 questions right$" "$t/out" &&
	   echo "$w3" | grep -q "^FAIL question 2: .*(your answer: '6000000')$" &&
	   echo "$w3" | grep -q "^FAIL question 1: .*(could not read your answer 'about a second': not a number or a name as asked)$" &&
	   echo "$w3" | grep -q "^NOTE answer 9: this lab has no question 9 (its questions: 1 2 3 )$" &&
	   tail -n 1 "$t/out" | grep -q '^[0-9]* passed, 2 failed$'; echo $?)"
check "make grade without LAB says how to call it" \
	"$([ $rc1 != 0 ] && grep -q '^usage: make grade LAB=N FILE=TRANSCRIPT$' "$t/one"; echo $?)"
[ $rc = 1 ] || { echo "scripts/grade said:"; tail -n 40 "$t/out" | sed 's/^/  /'; }

# GILK's case study (examples/netlatency), a short run: every packet timed
# at every layer, the report's parts there.
examples/netlatency/run 20 20 64 >"$t/out" 2>"$t/err"
rc=$?
rows=$(tail -n +2 build/netlatency/packets.csv | awk -F, '$2 != "" && $3 != "" && $4 != "" && $5 != "" && $3 > $2 && $5 >= $3' | wc -l)
arrived=$(sed -n 's/^20 sent; \([0-9]*\) at the driver, \1 at udp_recvmsg, \1 captured, \1 received$/\1/p' "$t/out")
check "examples/netlatency/run: each packet that arrived timed at the driver, the socket, the capture and the application, in that order ($rows rows, ${arrived:-?} of 20 arrived; status $rc)" \
	"$([ $rc = 0 ] && [ "${arrived:-0}" -ge 15 ] && [ "$rows" = "$arrived" ] &&
	   grep -q '^  driver (e1000_clean_rx_irq) ' "$t/out" && grep -q '^driver to socket (udp_recvmsg exit), us:$' "$t/out" &&
	   grep -q '^capture stamp minus driver time, us: mean ' "$t/out"; echo $?)"
# A failed run's own account (a CI log holds nothing else of it).
[ $rc = 0 ] || { echo "examples/netlatency/run said:"; tail -n 30 "$t/err" | sed 's/^/  /'; }

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
