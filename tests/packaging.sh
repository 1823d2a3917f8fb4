#!/usr/bin/env bash
# make install and make uninstall into a DESTDIR: the tree, what each file
# does once installed (gilk runs, the man page renders, the headers compile,
# the DKMS tree builds gilk.ko and the instruments for the reference kernel),
# then nothing left behind; make deb's two packages, what they hold and
# lintian's verdict; and make clean removes all it built. (make check-install
# installs the packages on a real Debian system: tests/debian/run.)
set -u
cd "$(dirname "$0")/.."
pass=0 fail=0
check() { # check NAME STATUS
	if [ "$2" = 0 ]; then echo "PASS $1"; pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); fi
}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
version=$(cat VERSION)
ref=build/cache/ref

make --no-print-directory install DESTDIR="$t/root" PREFIX=/usr >"$t/log" 2>&1
check "make install DESTDIR=... PREFIX=/usr succeeds" "$?"
(cd "$t/root" && find . -type f | sort) >"$t/tree"
{
	printf '%s\n' ./usr/bin/gilk ./usr/include/gilk/gilk.h ./usr/include/gilk/uapi/gilk.h \
		./usr/include/gilk/uapi/gilk_refusals.h \
		./usr/share/bash-completion/completions/gilk ./usr/share/man/man1/gilk.1 \
		./usr/share/zsh/site-functions/_gilk "./usr/src/gilk-$version/dkms.conf"
	# every file of kmod/, include/ and instruments/ but the Makefiles and the
	# READMEs (builds go to
	# build/; a tree from git archive has no .git to ask)
	find kmod include instruments -type f ! -name Makefile ! -name README.md | sed "s|^|./usr/src/gilk-$version/|"
} | sort >"$t/want"
check "the tree: gilk, its man page, bash and zsh completions, the headers, gilk.ko's DKMS source" \
	"$(diff "$t/want" "$t/tree" >&2; echo $?)"
check "gilk is installed executable and runs" \
	"$([ -x "$t/root/usr/bin/gilk" ] && "$t/root/usr/bin/gilk" --kernel $ref/vmlinuz --symbols $ref/kallsyms -c 'info symbol jiffies' | grep -q '^jiffies in section'; echo $?)"
check "the installed completions are what the installed gilk writes" \
	"$("$t/root/usr/bin/gilk" --completion bash | cmp -s - "$t/root/usr/share/bash-completion/completions/gilk" &&
	   "$t/root/usr/bin/gilk" --completion zsh | cmp -s - "$t/root/usr/share/zsh/site-functions/_gilk"; echo $?)"
check "the installed man page renders" \
	"$(groff -man -Tutf8 -ww "$t/root/usr/share/man/man1/gilk.1" 2>&1 >/dev/null | grep -q . && exit 1;
	   groff -man -Tutf8 "$t/root/usr/share/man/man1/gilk.1" 2>/dev/null | grep -q 'gilk - splice'; echo $?)"
printf '#include <gilk/uapi/gilk.h>\nint main(void) { return GILK_ABI_VERSION > 0 ? 0 : 1; }\n' >"$t/abi.c"
check "the installed ABI header compiles in user space" \
	"$(cc -I"$t/root/usr/include" -o "$t/abi" "$t/abi.c" && "$t/abi"; echo $?)"
grep -q 'dkms install -m gilk -v' "$t/log"
check "with a DESTDIR, install says how DKMS builds gilk.ko" "$?"

# DKMS: its MAKE line, run as dkms runs it (dkms.conf is shell), against the
# reference kernel's headers, builds both modules for that kernel.
d=$t/dkms
mkdir -p "$d/gilk/$version"
cp -r "$t/root/usr/src/gilk-$version" "$d/gilk/$version/build"
(
	kernel_source_dir=$PWD/$ref/headers dkms_tree=$d
	. "$d/gilk/$version/build/dkms.conf"
	[ "$PACKAGE_VERSION" = "$version" ] || exit 1
	eval "${MAKE[0]}"
) >"$t/dkms.log" 2>&1
instr=$(ls instruments/*.c | sed 's/\.c$//')
check "DKMS builds gilk.ko and every instrument module for the reference kernel, and installs each ($(cat $ref/abi): $(echo $instr | sed 's,instruments/,,g'))" \
	"$([ $? = 0 ] && for m in kmod/gilk $instr; do
	     modinfo -F vermagic "$d/gilk/$version/build/$m.ko" | grep -q "^$(cat $ref/abi) " || exit 1
	     grep -q "^BUILT_MODULE_NAME\[[0-9]*\]=\"${m##*/}\"$" "$t/root/usr/src/gilk-$version/dkms.conf" || exit 1; done; echo $?)"

# make deb: both packages, what each holds against what make install put in
# the DESTDIR, the version of VERSION, and lintian's verdict.
scripts/deb >"$t/deb.log" 2>&1
check "make deb builds gilk and gilk-dkms, and lintian finds no error" "$?"
check "lintian finds no warning either" "$(! grep -E '^[EW]: ' "$t/deb.log" >&2; echo $?)"
gdeb=build/deb/gilk_${version}_amd64.deb kdeb=build/deb/gilk-dkms_${version}_all.deb
deb_files() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print $6 }' | grep -v "^./usr/share/doc/$2/" | sort; }
check "gilk's package holds the shell, its man page, the completions and the headers" \
	"$(grep -v '^./usr/src/' "$t/want" | sed 's|/gilk\.1$|/gilk.1.gz|' | diff - <(deb_files "$gdeb" gilk) >&2; echo $?)"
check "gilk-dkms's package holds gilk.ko's DKMS source, and its scripts run dkms for gilk $version" \
	"$(grep '^./usr/src/' "$t/want" | diff - <(deb_files "$kdeb" gilk-dkms) >&2 &&
	   dpkg-deb -e "$kdeb" "$t/ctl" && grep -q "^DKMS_VERSION=$version$" "$t/ctl/postinst" &&
	   grep -q 'dkms remove -m $DKMS_NAME' "$t/ctl/prerm"; echo $?)"
dpkg-deb -x "$gdeb" "$t/deb"
check "both packages are at version $version, and the packaged gilk says so" \
	"$([ "$(dpkg-deb -f "$gdeb" Version)" = "$version" ] && [ "$(dpkg-deb -f "$kdeb" Version)" = "$version" ] &&
	   [ "$("$t/deb/usr/bin/gilk" --version)" = "gilk $version" ]; echo $?)"

make --no-print-directory uninstall DESTDIR="$t/root" PREFIX=/usr >"$t/log" 2>&1
check "make uninstall removes every file install made" \
	"$([ $? = 0 ] && [ -z "$(find "$t/root" -type f)" ] && [ ! -e "$t/root/usr/include/gilk" ]; echo $?)"

# make clean: in a copy of the build tree's shape, everything but the cache goes
c=$t/clean
mkdir -p "$c/build/cache/ref"
cp Makefile "$c/"
touch "$c/build/cache/ref/keep"
(cd build && find . -mindepth 1 -path ./cache -prune -o -print) | while read -r f; do
	if [ -d "build/$f" ]; then mkdir -p "$c/build/$f"; else mkdir -p "$c/build/$(dirname "$f")"; touch "$c/build/$f"; fi
done
n=$(find "$c/build" -mindepth 1 -maxdepth 1 ! -name cache | wc -l)
make --no-print-directory -C "$c" clean >/dev/null 2>&1
check "make clean removes all it built ($n entries under build/) and keeps the kernel cache" \
	"$([ "$n" -gt 5 ] && [ "$(ls "$c/build")" = cache ] && [ -e "$c/build/cache/ref/keep" ]; echo $?)"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
