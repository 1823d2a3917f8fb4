# gilk: build, test, benchmark. `make check` sets up what is missing, builds,
# and runs every suite; its last line is "N passed, N failed".
CC      ?= cc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE
B       := build
CORE_LIBS := -lZydis -lcapstone -lbpf -ldw -lelf -llzma -lzstd -lz

# The kernel profile (scripts/setup): ref, 6.12, rt or debug. Modules for ref
# are built in build/ as they always were; another profile's in build/k/NAME/.
# Unless told, the machine's own kind: an arm64 machine reads its arm64
# kernel (scripts/setup --profile arm64).
HOST_ARCH := $(shell uname -m)
KERNEL  ?= $(if $(filter aarch64 arm64,$(HOST_ARCH)),arm64,ref)
KCACHE  := $(B)/cache/$(KERNEL)
# The profile's instruction set (setup writes arm64's): gilk.ko and the
# modules built against it are x86-64's only so far.
KARCH   := $(or $(shell cat $(KCACHE)/arch 2>/dev/null),x86_64)
# The symbols the planner reads a kernel with: its System.map where the
# profile keeps one (arm64's kallsyms lacks the data symbols that bound the
# kernel's tables), else the kallsyms of its boot.
KSYMS    = $(if $(wildcard $(KCACHE)/System.map),$(KCACHE)/System.map,$(KCACHE)/kallsyms)
KDIR    ?= $(CURDIR)/$(KCACHE)/headers
KO      := $(if $(filter ref,$(KERNEL)),$(B),$(B)/k/$(KERNEL))
# One module per instrument, each from its own instruments/NAME.c.
INSTRUMENTS := $(basename $(notdir $(filter-out %.mod.c,$(wildcard instruments/*.c))))
INSTR_KO := $(INSTRUMENTS:%=$(KO)/instruments/%.ko)
KMODS   := $(KO)/gilk.ko $(INSTR_KO) $(KO)/tests/gilk_target.ko $(KO)/tests/gilk_fields.ko
SETUP   := scripts/setup $(if $(filter ref,$(KERNEL)),,--profile $(KERNEL))
# The one place the version is written: the shell's --version, DKMS.
VERSION := $(shell cat VERSION)
SUITES  := unit cfg-objdump differential differential-arm64 shell packaging checkpatch lab uniproc docs guest guest-preempt-full
CORE_SRC := $(wildcard core/*.c)
CORE_OBJ := $(CORE_SRC:%.c=$(B)/%.o)

.PHONY: all user kmods cross-arm64 check check-matrix check-fresh kernel-debug soak torture bench bench-offline bench-live lab grade setup \
	clean install uninstall deb check-install completions $(addprefix check-,$(SUITES))
all: user kmods
ifeq ($(KARCH),x86_64)
kmods: $(KMODS)
else
kmods:
	@echo "gilk.ko: not built for the $(KERNEL) kernel ($(KARCH)): it splices x86-64 kernels only so far"
endif
COMPLETIONS := $(B)/completions/gilk.bash $(B)/completions/_gilk
user: $(B)/gilk $(COMPLETIONS) $(B)/libgilkcore.a $(B)/libgilklive.a $(B)/bench-offline \
     $(B)/bench-live $(B)/bench-complete \
     $(B)/bin/test-unit $(B)/bin/test-diff $(B)/bin/test-diff-arm64 $(B)/bin/test-cfg-objdump \
     $(B)/bin/test-arm64-objdump \
     $(B)/bin/test-kcore $(B)/bin/test-live $(B)/bin/test-json $(B)/bin/test-pty \
     $(B)/bin/gilk-soak $(B)/bin/gilk-torture $(B)/bin/netlat-sender $(B)/examples/netlat-receiver

# Each folder sees core/; lib/ sees core/ and include/ (the uapi header,
# uapi/gilk.h, and gilk.ko's templates, gilk_tramp.h); the shell, the
# benchmarks and the tests see lib/ too. Nothing sees the shell's folder but the shell, the
# tests and the benchmark of its Tab completion. The shell's rooms (shell/README.md)
# include each other by the room's name ("session/session.h"), so what a room
# reaches is written in its includes.
INC_core  := -Icore
INC_lib   := -Icore -Ilib -Iinclude
INC_shell := -Icore -Ilib -Iinclude -Ishell -I$(B)/gen
INC_bench := -Icore -Ilib -Iinclude -Ishell -I$(B)/gen
INC_tests := -Icore -Ilib -Iinclude -Ishell -I$(B)/gen -Ibench
inc_of = $(INC_$(firstword $(subst /, ,$(1))))

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(call inc_of,$<) -MMD -MP -c $< -o $@

$(B)/libgilkcore.a: $(CORE_OBJ)
	ar rcs $@ $^

# The trampoline templates are gilk.ko's (kmod/arch/x86/tramp.c, neutral
# C): the planner links that very file, so a header's bytes have one
# producer.
$(B)/neutral/x86/tramp.o: kmod/arch/x86/tramp.c include/gilk_tramp.h include/gilk_neutral.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Iinclude -MMD -MP -c $< -o $@

LIB_SRC := $(wildcard lib/*.c)
$(B)/libgilklive.a: $(LIB_SRC:%.c=$(B)/%.o) $(B)/neutral/x86/tramp.o
	ar rcs $@ $^

SHELL_SRC := $(wildcard shell/*.c shell/*/*.c)
# The command table is every cmd_NAME.c's row, by name: one file a command.
CMD_SRC := $(sort $(wildcard shell/commands/cmd_*.c))
$(B)/gen/command_list.h: $(CMD_SRC) Makefile
	@mkdir -p $(dir $@)
	@names=$$(sed -n 's/^const struct command \(cmd_[a-z_]*\) = {$$/\1/p' $(CMD_SRC) | LC_ALL=C sort); \
	{ echo '/* Made by the Makefile from shell/commands/cmd_*.c: a row a command, by name. */'; \
	  for n in $$names; do echo "extern const struct command $$n;"; done; \
	  printf '#define COMMAND_ROWS'; for n in $$names; do printf ' &%s,' $$n; done; echo; } >$@.new
	@cmp -s $@.new $@ && rm $@.new || mv $@.new $@
$(SHELL_SRC:%.c=$(B)/%.o): | $(B)/gen/command_list.h
$(B)/shell/main.o: CFLAGS += -DGILK_VERSION='"$(VERSION)"'
$(B)/shell/main.o: VERSION
$(B)/gilk: $(SHELL_SRC:%.c=$(B)/%.o) $(B)/libgilklive.a $(B)/libgilkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(CORE_LIBS) -lreadline $(LDLIBS)

# The shell for another architecture's lab (scripts/lab --kernel arm64), with
# Debian's cross compiler and its multiarch libraries (scripts/setup --profile
# arm64), which the lab copies into the guest beside it.
cross-arm64:
	@$(MAKE) --no-print-directory B=$(B)/arm64 CC=aarch64-linux-gnu-gcc $(B)/arm64/gilk

# Kbuild writes next to its sources: build a copy under $(KO)/kmod.
KMOD_SRC := $(wildcard kmod/*.c kmod/*.h kmod/*.S kmod/*.list kmod/Kbuild kmod/arch/*/*.[chS] \
	include/*.h include/uapi/*.h)
# Rebuilt when setup moves the profile to another kernel (its ABI file changes).
K_ABI := $(wildcard $(KCACHE)/abi)
$(KO)/gilk.ko: $(KMOD_SRC) $(K_ABI)
	@mkdir -p $(KO)/kmod
	@# a source moved or removed in kmod/ must not stay in the copy, where
	@# an include would still find it
	@cd $(KO)/kmod && find . -type f \( -name '*.[chS]' -o -name '*.list' \) ! -name '*.mod.c' | \
		while read -r f; do [ -e "$(CURDIR)/kmod/$$f" ] || rm -f "$$f"; done
	cp -r kmod/. $(KO)/kmod/
	@mkdir -p $(KO)/include
	cp -r include/. $(KO)/include/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(KO)/kmod modules
	cp $(KO)/kmod/gilk.ko $@

# Instruments link against gilk.ko's exported symbols.
INSTR_SRC := $(wildcard instruments/*.c instruments/Kbuild)
$(INSTR_KO) &: $(INSTR_SRC) $(KO)/gilk.ko
	@mkdir -p $(KO)/instruments
	cp -r instruments/. $(KO)/instruments/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(KO)/instruments \
		KBUILD_EXTRA_SYMBOLS=$(CURDIR)/$(KO)/kmod/Module.symvers modules

# Code with WARN() and BUG() sites for the guest tests to splice.
TARGET_SRC := $(wildcard tests/guest/target/*.c tests/guest/target/*.h tests/guest/target/Kbuild)
$(KO)/tests/gilk_target.ko: $(TARGET_SRC) $(K_ABI)
	@mkdir -p $(KO)/tests/target
	cp -r tests/guest/target/. $(KO)/tests/target/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(KO)/tests/target modules
	cp $(KO)/tests/target/gilk_target.ko $@

# An instrument built outside instruments/, as an author's would be.
FIELDS_SRC := $(wildcard tests/guest/instrument/*.c tests/guest/instrument/Kbuild)
$(KO)/tests/gilk_fields.ko: $(FIELDS_SRC) $(KO)/gilk.ko
	@mkdir -p $(KO)/tests/instrument
	cp -r tests/guest/instrument/. $(KO)/tests/instrument/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(KO)/tests/instrument \
		KBUILD_EXTRA_SYMBOLS=$(CURDIR)/$(KO)/kmod/Module.symvers modules
	cp $(KO)/tests/instrument/gilk_fields.ko $@

# gilk.ko's code checker and templates, built for user space with the
# kernel's own x86 decoder from its tools tree (scripts/setup fetches it), so
# the tests feed plans and mutations to the very checker the kernel runs.
KD      := $(B)/cache/kdecoder
KV_INC  := -Ikmod -Ikmod/arch/x86 -Iinclude -I$(KD)/arch/x86/include -I$(KD)/include
$(B)/kverify/%.o: kmod/arch/x86/%.c $(wildcard kmod/*.h kmod/arch/x86/*.h include/*.h include/uapi/*.h)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Werror -Wno-sign-compare $(KV_INC) -c $< -o $@
$(B)/kverify/%.o: $(KD)/arch/x86/lib/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -w $(KV_INC) -I$(KD)/arch/x86/lib -c $< -o $@
# (The templates it compares with come from libgilklive.a, as the planner's.)
$(B)/libkverify.a: $(B)/kverify/verify.o $(B)/kverify/verify_ctx.o $(B)/kverify/verify_reloc.o \
		$(B)/kverify/verify_walk.o $(B)/kverify/flags.o $(B)/kverify/insn.o $(B)/kverify/inat.o
	ar rcs $@ $^

$(B)/bin/test-json: $(B)/tests/json_check.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^

$(B)/bin/test-pty: $(B)/tests/pty_run.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^

$(B)/bench-offline: $(B)/bench/offline.o $(B)/bench/report.o $(B)/libgilkcore.a
	$(CC) -o $@ $^ $(CORE_LIBS) -lm

# The shell's completion, linked as the shell links it, without its main().
$(B)/bench-complete: $(B)/bench/complete.o $(B)/bench/report.o \
		$(filter-out $(B)/shell/main.o,$(SHELL_SRC:%.c=$(B)/%.o)) $(B)/libgilklive.a $(B)/libgilkcore.a
	$(CC) -o $@ $^ $(CORE_LIBS) -lreadline -lm

$(B)/bench-live: $(B)/bench/live.o $(B)/bench/tracers.o $(B)/bench/report.o \
		$(B)/libgilklive.a $(B)/libgilkcore.a
	$(CC) -o $@ $^ $(CORE_LIBS) -lm

UNIT_SRC := $(wildcard tests/unit/*.c)
# The shell's pure parts are unit-tested too, and make bench's line format.
$(B)/bin/test-unit: $(UNIT_SRC:%.c=$(B)/%.o) $(B)/shell/events/histogram.o \
		$(B)/shell/events/agg_view.o $(B)/shell/output/quote.o $(B)/shell/output/symbolizer.o \
		$(B)/shell/events/payload.o \
		$(B)/bench/report.o \
		$(B)/libgilklive.a $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS) -lcmocka -lm

DIFF_SRC := $(filter-out tests/diff/kverify_glue.c,$(wildcard tests/diff/*.c))
$(B)/kverify/kverify_glue.o: tests/diff/kverify_glue.c $(wildcard kmod/*.h kmod/arch/x86/*.h include/*.h include/uapi/*.h) \
		tests/diff/kverify.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Werror $(KV_INC) -c $< -o $@
$(B)/bin/test-diff: $(DIFF_SRC:%.c=$(B)/%.o) $(B)/kverify/kverify_glue.o $(B)/libkverify.a \
		$(B)/libgilklive.a $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -rdynamic -o $@ $^ $(CORE_LIBS) -lunicorn -lpthread

setup:
	@$(SETUP)

# `make check` runs on the reference kernel only, whatever KERNEL says.
check:
	@scripts/setup
	@$(MAKE) --no-print-directory KERNEL=ref all
	@tests/run

# One suite: make check-shell, check-guest, ... (tests/run names them).
$(addprefix check-,$(SUITES)): check-%: setup
	@$(MAKE) --no-print-directory all
	@tests/run $*

# The bash and zsh completions, written by gilk from its command table at
# build time, so a new command completes with nothing else edited.
completions: $(COMPLETIONS)
$(B)/completions/gilk.bash: $(B)/gilk
	@mkdir -p $(dir $@)
	$(B)/gilk --completion bash >$@
$(B)/completions/_gilk: $(B)/gilk
	@mkdir -p $(dir $@)
	$(B)/gilk --completion zsh >$@

# Installed like a real tool. gilk.ko and the instruments go through DKMS,
# not Kbuild's modules_install: a module must match the running kernel
# exactly, and DKMS rebuilds them for each kernel installed later, where
# modules_install would leave them behind at the next kernel update.
PREFIX  ?= /usr/local
DESTDIR ?=
DKMS_SRC := /usr/src/gilk-$(VERSION)
INSTALLED := $(PREFIX)/bin/gilk $(PREFIX)/share/man/man1/gilk.1 \
	$(PREFIX)/share/bash-completion/completions/gilk \
	$(PREFIX)/share/zsh/site-functions/_gilk \
	$(PREFIX)/include/gilk/gilk.h $(PREFIX)/include/gilk/uapi/gilk.h \
	$(PREFIX)/include/gilk/uapi/gilk_refusals.h
# DKMS needs dkms, root and no DESTDIR; otherwise install says what to run.
DKMS_LIVE = $(and $(if $(DESTDIR),,y),$(shell command -v dkms 2>/dev/null))

install: $(B)/gilk $(COMPLETIONS)
	install -D -m 0755 $(B)/gilk $(DESTDIR)$(PREFIX)/bin/gilk
	install -D -m 0644 shell/gilk.1 $(DESTDIR)$(PREFIX)/share/man/man1/gilk.1
	install -D -m 0644 $(B)/completions/gilk.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/gilk
	install -D -m 0644 $(B)/completions/_gilk $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_gilk
	install -D -m 0644 include/gilk.h $(DESTDIR)$(PREFIX)/include/gilk/gilk.h
	install -D -m 0644 include/uapi/gilk.h $(DESTDIR)$(PREFIX)/include/gilk/uapi/gilk.h
	install -D -m 0644 include/uapi/gilk_refusals.h \
		$(DESTDIR)$(PREFIX)/include/gilk/uapi/gilk_refusals.h
	@for f in $(KMOD_SRC) $(INSTR_SRC); do \
		install -D -m 0644 $$f $(DESTDIR)$(DKMS_SRC)/$$f || exit 1; done
	{ sed 's/@VERSION@/$(VERSION)/' dkms/dkms.conf; i=1; for m in $(INSTRUMENTS); do \
		printf 'BUILT_MODULE_NAME[%d]="%s"\nBUILT_MODULE_LOCATION[%d]="instruments/"\nDEST_MODULE_LOCATION[%d]="/extra"\n' \
			$$i $$m $$i $$i; i=$$((i + 1)); done; } >$(DESTDIR)$(DKMS_SRC)/dkms.conf
ifneq ($(DKMS_LIVE),)
	dkms install -m gilk -v $(VERSION)
else
	@echo "gilk.ko: its source is in $(DESTDIR)$(DKMS_SRC); as root, with dkms installed:"
	@echo "  dkms install -m gilk -v $(VERSION)    (builds it for $$(uname -r) and each later kernel)"
endif

uninstall:
ifneq ($(DKMS_LIVE),)
	-dkms remove -m gilk -v $(VERSION) --all
endif
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rm -rf $(DESTDIR)$(DKMS_SRC)
	-rmdir $(DESTDIR)$(PREFIX)/include/gilk/uapi $(DESTDIR)$(PREFIX)/include/gilk 2>/dev/null

# The Debian packages, gilk and gilk-dkms, in build/deb (debian/ holds the
# packaging; scripts/deb builds them from a copy of the tree and runs lintian).
deb:
	@scripts/setup
	@scripts/deb

# gilk installed from its packages and used on a real Debian 12 system under
# QEMU, rebooted, then purged (tests/debian/run; not in check).
check-install:
	@scripts/setup --debian
	@tests/debian/run

# The guest suite on every profile that is set up, and on ref with preempt=full;
# each of them brought up to date first (a new line index format, say).
MATRIX_PROFILES = $(foreach p,6.12 rt debug arm64,$(if $(wildcard $(B)/cache/$(p)/vmlinuz),--profile $(p)))
check-matrix:
	@scripts/setup --profile ref $(MATRIX_PROFILES)
	@$(MAKE) --no-print-directory KERNEL=ref all
	@tests/matrix

# The README's two commands on a Debian 12 system with nothing on it, made
# with mmdebstrap (not in check: it runs all of make check again).
check-fresh:
	@scripts/setup --debian
	@tests/fresh

# The long stress, on the debug kernel unless KERNEL is given (not in check).
soak:
	@tests/soak $(if $(filter command line,$(origin KERNEL)),$(KERNEL),debug)

# The whole kernel spliced, every entry at once and every block in chunks,
# culprits found by bisection across boots (not in check); on ref unless
# KERNEL is given; tests/torture says how to change its pace and time limit.
torture:
	@scripts/setup $(if $(filter command line,$(origin KERNEL)),--profile $(KERNEL))
	@tests/torture $(if $(filter command line,$(origin KERNEL)),$(KERNEL),ref)

# Built only on request: tens of minutes on two cores.
kernel-debug:
	@scripts/setup --profile debug

# make bench: every figure beside its reference, one "bench:" line each
# (bench/report.h): the offline ones here (bench-offline's full report goes
# to build/bench/offline.txt), then the live ones in one boot of the lab with
# bpftrace inside. Not part of make check; under TCG it takes what it takes.
bench:
	@scripts/setup --bench
	@$(MAKE) --no-print-directory all
	@$(B)/bench-offline $(KCACHE)/vmlinuz $(KSYMS) >$(B)/bench/offline.txt
	@grep '^bench: ' $(B)/bench/offline.txt
	@$(B)/bench-complete $(KCACHE)/vmlinuz $(KCACHE)/kallsyms
	@$(MAKE) --no-print-directory bench-live

# The offline scan alone, with its coverage by mode and refusals by reason.
bench-offline: setup
	@$(MAKE) --no-print-directory $(B)/bench-offline
	@$(B)/bench-offline $(KCACHE)/vmlinuz $(KSYMS)

# The live figures alone, in the lab: gilk.ko loaded, debugfs and tracefs
# mounted for the kprobe events, bpftrace inside (its LLVM wants the memory).
bench-live:
	@scripts/setup --bench
	@$(MAKE) --no-print-directory all
	@scripts/lab --kernel $(KERNEL) --with-bpftrace --mem 2048 --timeout 3600 \
		--run 'insmod build/gilk.ko && insmod build/instruments/hello.ko && \
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; build/bench-live'

# (arm64's: gilk cross-built for it; gilk.ko is not built for arm64 yet)
lab: setup
	@$(MAKE) --no-print-directory $(if $(filter arm64,$(KERNEL)),cross-arm64,all)
	@scripts/lab --kernel $(KERNEL)

# A lab's transcript graded in the lab: make grade LAB=N FILE=TRANSCRIPT
# (docs/labs/README.md).
grade: setup
	@[ -n "$(LAB)" ] && [ -n "$(FILE)" ] || { echo "usage: make grade LAB=N FILE=TRANSCRIPT" >&2; exit 2; }
	@$(MAKE) --no-print-directory all
	@scripts/grade '$(LAB)' '$(FILE)'

# Everything under build/ but the shared cache of the reference kernel.
clean:
	[ ! -d $(B) ] || find $(B) -mindepth 1 -maxdepth 1 ! -name cache -exec rm -rf {} +

-include $(shell find $(B) -path $(B)/cache -prune -o -name '*.d' -type f -print 2>/dev/null)

$(B)/bin/test-cfg-objdump: $(B)/tests/cfg_objdump.o $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS)

$(B)/bin/test-diff-arm64: $(B)/tests/diff_arm64.o $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS) -lunicorn

$(B)/bin/test-arm64-objdump: $(B)/tests/arm64_objdump.o $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS)

$(B)/bin/test-kcore: $(B)/tests/kcore_check.o $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS)

$(B)/bin/gilk-soak: $(B)/tests/soak.o $(B)/tests/load.o $(B)/libgilklive.a $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS) -lpthread

$(B)/bin/gilk-torture: $(B)/tests/torture.o $(B)/tests/load.o $(B)/tests/lifecycle.o $(B)/libgilklive.a $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS) -lpthread

GUEST_SRC := $(wildcard tests/guest/*.c)
$(B)/bin/test-live: $(GUEST_SRC:%.c=$(B)/%.o) \
		$(B)/libgilklive.a $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS)

# GILK's network case study (examples/netlatency): the host's sender, and
# the guest's receiver (under build/, so the lab carries it).
$(B)/bin/netlat-sender: examples/netlatency/sender.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<
$(B)/examples/netlat-receiver: examples/netlatency/receiver.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<
