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
