# Helpers of the lab graders, sourced in the lab's guest by scripts/grade:
# they ask the running kernel, through gilk, what the answers are, and
# compare the student's (from $ANSWERS, the transcript's "# answer N:" lines).
# Each grader calls verdict once per question.

# gilk's commands, one per argument, in one session
gk() {
	for c; do printf '%s\n' "$c"; done | build/gilk -nx 2>&1
}

# Nothing of the last measurement left: no splice, no event
clean() {
	build/gilk -nx -batch -c 'unsplice all' >/dev/null 2>&1
	build/gilk -nx -batch -c 'events' >/dev/null 2>&1
}

# answer N: the last "# answer N: TEXT" of the transcript, trimmed
answer() {
	sed -n "s/^#[[:space:]]*answer[[:space:]]*$1[[:space:]]*:[[:space:]]*//p" "$ANSWERS" |
		tail -n 1 | sed 's/[[:space:]]*$//'
}

is_num() { echo "$1" | grep -Eqx -- '-?(0[xX][0-9a-fA-F]{1,16}|[0-9]{1,19})'; }
is_name() { echo "$1" | grep -Eqx '[A-Za-z_][A-Za-z0-9_.]{0,127}'; }

# The questions verdict has graded, for extra_answers: " 1 2 3 "
GRADED=" "

# verdict N TEXT STATUS [KERNEL]: the question's line; when wrong, the
# answer given, and the kernel's (KERNEL) only for a teacher who asks for it
# with GILK_GRADE_SHOW=1. STATUS 0: right; 2: the answer is not of the
# question's kind (a number, a name), so it could not be read; 3: none
# given; anything else: wrong.
verdict() {
	GRADED="$GRADED$1 "
	if [ "$3" = 0 ]; then
		echo "PASS question $1: $2"
		return
	fi
	case $3 in
	2) why="could not read your answer '$(answer "$1")': not a number or a name as asked" ;;
	3) why="no answer: a line '# answer $1: ...' in the transcript" ;;
	*) why="your answer: '$(answer "$1")'" ;;
	esac
	if [ "${GILK_GRADE_SHOW:-0}" = 1 ]; then
		echo "FAIL question $1: $2 ($why; the kernel's: '${4:-}')"
	else
		echo "FAIL question $1: $2 ($why)"
	fi
}

# After the grader: an answer to a question the lab does not have is said,
# not silently left out (graded nowhere: a NOTE line).
extra_answers() {
	for n in $(sed -n 's/^#[[:space:]]*answer[[:space:]]*\([0-9]*\)[[:space:]]*:.*/\1/p' "$ANSWERS" | sort -un); do
		case "$GRADED" in
		*" $n "*) ;;
		*) echo "NOTE answer $n: this lab has no question $n (its questions:$GRADED)" ;;
		esac
	done
}

# readable N KIND: 3 when question N has no answer, 2 when it is not of
# KIND (num, name), else 0
readable() {
	a=$(answer "$1")
	[ -n "$a" ] || return 3
	case $2 in
	num) is_num "$a" || return 2 ;;
	name) is_name "$a" || return 2 ;;
	esac
	return 0
}

# num_eq N VALUE: the answer is a number equal to VALUE (hex or decimal;
# 64-bit two's complement, so 0xfffffffffffffffe is -2)
num_eq() {
	readable "$1" num || return
	a=$(answer "$1")
	is_num "$2" && [ "$((a))" = "$(($2))" ]
}

# num_in N LOW HIGH: the answer is a number from LOW to HIGH
num_in() {
	readable "$1" num || return
	a=$(answer "$1")
	[ "$((a))" -ge "$2" ] && [ "$((a))" -le "$3" ]
}

# word_in N WORD...: the answer is one of the words (case aside)
word_in() {
	readable "$1" any || return
	a=$(answer "$1" | tr 'A-Z' 'a-z')
	n=$1
	shift
	for w; do
		[ "$a" = "$(echo "$w" | tr 'A-Z' 'a-z')" ] && return 0
	done
	return 1
}

# addr_of NAME: a symbol's address, as gilk's print &NAME gives it (a
# variable's with its type first: "(unsigned long *) 0x... <jiffies>")
addr_of() {
	is_name "$1" || return 1
	gk "print &$1" | sed -n 's/^\(([^)]*) \)\{0,1\}\(0x[0-9a-f]*\) <.*>$/\2/p'
}

# pointer_at LOCATION: the address the 8 bytes at LOCATION hold (x/a)
pointer_at() {
	gk "x/a $1" | sed -n 's/^0x[0-9a-f]* <[^>]*>:[[:space:]]*\(0x[0-9a-f]*\).*/\1/p'
}

# sym_eq N ADDRESS: the answer names a symbol at ADDRESS (any of its aliases)
sym_eq() {
	readable "$1" name || return
	a=$(addr_of "$(answer "$1")")
	[ -n "$a" ] && [ "$((a))" = "$(($2))" ]
}

# events_by LOCATION COMM COMMAND: how many times tasks named COMM ran
# LOCATION while COMMAND ran (regs events, filtered by comm)
events_by() {
	clean
	gk "splice $1 regs" "shell $3; true > /dev/null" "unsplice all" \
	   "hist cpu if comm == \"$2\"" |
		sed -n 's/^cpu over \([0-9]*\) of [0-9]* drained events.*/\1/p' | grep . || echo 0
}

# fetched_of LOCATION FETCH COMM COMMAND NAME: the string value NAME of the
# first event tasks named COMM made at LOCATION while COMMAND ran, with
# "fetch FETCH" (events' NAME="VALUE"), without its quotes
fetched_of() {
	clean
	gk "splice $1 regs fetch $2 if comm == \"$3\"" "shell $4; true > /dev/null" \
	   "unsplice all" "events" |
		sed -n "s/.* $5=\"\([^\"]*\)\".*/\1/p" | head -n 1
}

# str_eq N TEXT: the answer is TEXT (quotes around it aside)
str_eq() {
	readable "$1" any || return
	a=$(answer "$1" | sed 's/^"\(.*\)"$/\1/')
	[ -n "$a" ] && [ "$a" = "$2" ]
}

# field_of LOCATION INSTRUMENT COMM COMMAND FIELD: FIELD of the first event
# tasks named COMM made at LOCATION while COMMAND ran (events' NAME=VALUE)
field_of() {
	clean
	gk "splice $1 $2" "shell $4; true > /dev/null" "unsplice all" \
	   "events if comm == \"$3\"" |
		sed -n "s/.* $5=\([^ ]*\).*/\1/p" | head -n 1
}

# count_of LOCATION COMM COMMAND: how many times tasks named COMM ran
# LOCATION while COMMAND ran, counted in gilk.ko (count by comm: exact,
# whatever the load)
count_of() {
	clean
	id=$(gk "splice $1 count by comm" | sed -n 's/^splice \([0-9]*\) at .*/\1/p')
	[ -n "$id" ] || { echo 0; return; }
	gk "shell $3; true > /dev/null" "hist $id" "unsplice all" |
		sed -n "s/^@\[$2\]: \([0-9]*\)\$/\1/p" | grep . || echo 0
}

# top_callers LOCATION COMM COMMAND: the functions that call LOCATION's
# function the most times in tasks named COMM while COMMAND runs (one a
# line, several when tied), from its stacks counted in gilk.ko (count by
# stack, folded: the frame before the last is the caller)
top_callers() {
	clean
	rm -f /tmp/grade-stacks.folded
	gk "splice $1 count by stack if comm == \"$2\"" "shell $3; true > /dev/null" \
	   "dump hist --format folded /tmp/grade-stacks.folded last" "unsplice all" >/dev/null
	awk '{ n = split($1, f, ";"); if (n > 1) hits[f[n - 1]] += $2 }
	     END { for (c in hits) if (hits[c] > top) top = hits[c]
		   for (c in hits) if (hits[c] == top) print c }' /tmp/grade-stacks.folded 2>/dev/null |
		# a compiler's copy (link_path_walk.part.0) answers to its name too
		sed 'p; s/\..*//' | sort -u
}
