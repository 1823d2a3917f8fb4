#!/usr/bin/env bash
# Kernel-side code follows kernel style: checkpatch.pl, file by file, with no
# errors and no warnings.
set -u
cd "$(dirname "$0")/.."
cp=build/cache/checkpatch/checkpatch.pl
pass=0 fail=0
for f in kmod/*.c kmod/*.h kmod/arch/*/*.[chS] include/*.h include/uapi/*.h instruments/*.c \
	tests/guest/target/*.c tests/guest/target/*.h tests/guest/instrument/*.c; do
	# clean: exit status 0 and nothing said
	if out=$(perl "$cp" --no-tree --terse --file "$f" 2>&1) && [ -z "$out" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL checkpatch $f"
		echo "$out"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
