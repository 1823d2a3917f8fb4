# gilk: build, test, benchmark. `make check` sets up what is missing, builds,
# and runs every suite; its last line is "N passed, N failed".
CC      ?= cc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE
B       := build
CORE_LIBS := -lcapstone -lelf -llzma -lzstd -lz

KDIR    ?= $(CURDIR)/$(B)/cache/ref/headers
CORE_SRC := $(wildcard core/*.c)
CORE_OBJ := $(CORE_SRC:%.c=$(B)/%.o)

.PHONY: all check bench-offline bench-live lab setup clean
all: $(B)/gilk $(B)/libgilkcore.a $(B)/libgilklive.a $(B)/gilk.ko $(B)/instruments/argfilter.ko $(B)/bench-offline \
     $(B)/bench-live \
     $(B)/tests/gilk_target.ko \
     $(B)/bin/test-unit $(B)/bin/test-diff $(B)/bin/test-cfg-objdump \
     $(B)/bin/test-kcore $(B)/bin/test-live $(B)/bin/test-json

# Each folder sees core/; lib/ sees core/; the shell, the benchmarks and the
# tests see lib/ too. Nothing sees the shell's folder but the shell.
INC_core  := -Icore
INC_lib   := -Icore -Ilib
INC_shell := -Icore -Ilib -Ishell
INC_bench := -Icore -Ilib
INC_tests := -Icore -Ilib -Ishell
inc_of = $(INC_$(firstword $(subst /, ,$(1))))

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(call inc_of,$<) -MMD -MP -c $< -o $@

$(B)/libgilkcore.a: $(CORE_OBJ)
	ar rcs $@ $^

LIB_SRC := $(wildcard lib/*.c)
$(B)/libgilklive.a: $(LIB_SRC:%.c=$(B)/%.o)
	ar rcs $@ $^

SHELL_SRC := $(wildcard shell/*.c)
$(B)/gilk: $(SHELL_SRC:%.c=$(B)/%.o) $(B)/libgilklive.a $(B)/libgilkcore.a
	$(CC) -o $@ $^ $(CORE_LIBS) -lreadline

# Kbuild writes next to its sources: build a copy under build/kmod.
KMOD_SRC := $(wildcard kmod/*.c kmod/*.h kmod/Kbuild kmod/include/*.h kmod/include/uapi/*.h)
# Rebuilt when setup moves to another reference kernel (its ABI file changes).
REF_ABI := $(wildcard $(B)/cache/ref/abi)
$(B)/gilk.ko: $(KMOD_SRC) $(REF_ABI)
	@mkdir -p $(B)/kmod
	cp -r kmod/. $(B)/kmod/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(B)/kmod modules
	cp $(B)/kmod/gilk.ko $@

# Instruments link against gilk.ko's exported symbols.
INSTR_SRC := $(wildcard instruments/*.c instruments/Kbuild)
$(B)/instruments/argfilter.ko: $(INSTR_SRC) $(B)/gilk.ko
	@mkdir -p $(B)/instruments
	cp -r instruments/. $(B)/instruments/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(B)/instruments \
		KBUILD_EXTRA_SYMBOLS=$(CURDIR)/$(B)/kmod/Module.symvers modules

# Code with WARN() and BUG() sites for the guest tests to splice.
TARGET_SRC := $(wildcard tests/guest/target/*.c tests/guest/target/*.h tests/guest/target/Kbuild)
$(B)/tests/gilk_target.ko: $(TARGET_SRC) $(REF_ABI)
	@mkdir -p $(B)/tests/target
	cp -r tests/guest/target/. $(B)/tests/target/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(B)/tests/target modules
	cp $(B)/tests/target/gilk_target.ko $@

# gilk.ko's code checker and templates, built for user space with the
# kernel's own x86 decoder from its tools tree (scripts/setup fetches it), so
# the tests feed plans and mutations to the very checker the kernel runs.
KD      := $(B)/cache/kdecoder
KV_INC  := -Ikmod -I$(KD)/arch/x86/include -I$(KD)/include
$(B)/kverify/%.o: kmod/%.c $(wildcard kmod/*.h)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Werror -Wno-sign-compare $(KV_INC) -c $< -o $@
$(B)/kverify/%.o: $(KD)/arch/x86/lib/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -w $(KV_INC) -I$(KD)/arch/x86/lib -c $< -o $@
$(B)/libkverify.a: $(B)/kverify/verify.o $(B)/kverify/tramp.o $(B)/kverify/insn.o $(B)/kverify/inat.o
	ar rcs $@ $^

$(B)/bin/test-json: $(B)/tests/json_check.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^

$(B)/bench-offline: $(B)/bench/offline.o $(B)/libgilkcore.a
	$(CC) -o $@ $^ $(CORE_LIBS)

$(B)/bench-live: $(B)/bench/live.o $(B)/libgilklive.a $(B)/libgilkcore.a
	$(CC) -o $@ $^ $(CORE_LIBS)

UNIT_SRC := $(wildcard tests/unit/*.c)
# The shell's pure parts are unit-tested too.
$(B)/bin/test-unit: $(UNIT_SRC:%.c=$(B)/%.o) $(B)/shell/histogram.o $(B)/libgilklive.a $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS) -lcmocka

DIFF_SRC := $(filter-out tests/diff/kverify_glue.c,$(wildcard tests/diff/*.c))
$(B)/kverify/kverify_glue.o: tests/diff/kverify_glue.c $(wildcard kmod/*.h) tests/diff/kverify.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Werror $(KV_INC) -c $< -o $@
$(B)/bin/test-diff: $(DIFF_SRC:%.c=$(B)/%.o) $(B)/kverify/kverify_glue.o $(B)/libkverify.a \
		$(B)/libgilklive.a $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS) -lunicorn -lpthread

setup:
	@scripts/setup

check: setup
	@$(MAKE) --no-print-directory all
	@tests/run

bench-offline: setup
	@$(MAKE) --no-print-directory $(B)/bench-offline
	@$(B)/bench-offline

# In the lab: gilk.ko loaded, debugfs and tracefs mounted for the kprobe.
bench-live: setup
	@$(MAKE) --no-print-directory all
	@scripts/lab --timeout 900 --run 'insmod build/gilk.ko && \
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; build/bench-live'

lab: setup
	@$(MAKE) --no-print-directory all
	@scripts/lab

clean:
	rm -rf $(B)/core $(B)/lib $(B)/bench $(B)/tests $(B)/shell $(B)/kmod $(B)/bin $(B)/*.a $(B)/*.ko $(B)/bench-offline $(B)/bench-live

-include $(shell find $(B) -path $(B)/cache -prune -o -name '*.d' -type f -print 2>/dev/null)

$(B)/bin/test-cfg-objdump: $(B)/tests/cfg_objdump.o $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS)

$(B)/bin/test-kcore: $(B)/tests/kcore_check.o $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS)

GUEST_SRC := $(wildcard tests/guest/*.c)
$(B)/bin/test-live: $(GUEST_SRC:%.c=$(B)/%.o) $(B)/libgilklive.a $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS)
