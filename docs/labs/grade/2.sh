# Lab 2, the path walk: what the running kernel says for each question.
n=$(gk 'blocks path_init' | sed -n 's/^path_init: .*, \([0-9]*\) blocks$/\1/p')
verdict 1 "how many basic blocks path_init has" "$(num_eq 1 "${n}"; echo $?)" "$n"

n=$(events_by walk_component stat 'stat /proc/self/status')
verdict 2 "how many times stat /proc/self/status runs walk_component" "$(num_eq 2 "${n}"; echo $?)" "$n"

# Any function that runs for a path through the link /proc/self and not
# for one without a link is an answer; the one expected is proc_self_get_link
f=$(answer 3)
ok=1
if is_name "$f"; then
	plain=$(events_by "$f" stat 'stat /proc/version')
	link=$(events_by "$f" stat 'stat /proc/self/status')
	[ "$plain" = 0 ] && [ "$link" -gt 0 ] && ok=0
fi
verdict 3 "a function that gives the walk the target of /proc/self" "$ok" "proc_self_get_link"

# Lines of path_init that ran for an absolute path and not for a relative
# one, from coverage report as the student reads it
clean
gk 'coverage stop' >/dev/null
gk 'coverage path_init if comm == "cat"' 'coverage reset' 'shell cat /proc/version > /dev/null' \
	'coverage report path_init' >/tmp/grade-abs.txt
gk 'coverage reset' 'shell cd /proc && cat version > /dev/null' 'coverage report path_init' \
	'coverage stop' >/tmp/grade-rel.txt
count_at() { sed -n "s/^ *\([^:]*\): *$2:.*/\1/p" "$1"; }
l=$(answer 4)
ok=1
if is_num "$l"; then
	a=$(count_at /tmp/grade-abs.txt "$((l))")
	r=$(count_at /tmp/grade-rel.txt "$((l))")
	[ -n "$a" ] && [ "$a" != '#####' ] && [ "$a" != - ] && [ "$a" != '?' ] && [ "$r" = '#####' ] && ok=0
fi
verdict 4 "a line of path_init an absolute path runs and a relative one does not" "$ok" \
	"$(paste -d' ' /tmp/grade-abs.txt /tmp/grade-rel.txt | awk -F: '$1 !~ /#|-|\?/ {print}' | head -1)"

off=$(gk 'ptype struct nameidata' | sed -n 's|^ */\* *\([0-9]*\) *[0-9]* \*/ .*[ *]depth;$|\1|p')
verdict 5 "the offset of depth in struct nameidata" "$(num_eq 5 "${off}"; echo $?)" "$off"

# The caller of walk_component in the most of stat's hits, from its stacks
callers=$(top_callers walk_component stat 'stat /proc/self/status')
verdict 6 "the function that calls walk_component the most for stat /proc/self/status" \
	"$(word_in 6 $callers; echo $?)" "$(echo $callers)"
