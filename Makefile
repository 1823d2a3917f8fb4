# gilk: build, test, benchmark. `make check` sets up what is missing, builds,
# and runs every suite; its last line is "N passed, N failed".
CC      ?= cc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE
B       := build
CORE_LIBS := -lcapstone -lelf -llzma -lzstd -lz

# The kernel profile (scripts/setup): ref, 6.12, rt or debug. Modules for ref
# are built in build/ as they always were; another profile's in build/k/NAME/.
KERNEL  ?= ref
KCACHE  := $(B)/cache/$(KERNEL)
KDIR    ?= $(CURDIR)/$(KCACHE)/headers
KO      := $(if $(filter ref,$(KERNEL)),$(B),$(B)/k/$(KERNEL))
KMODS   := $(KO)/gilk.ko $(KO)/instruments/argfilter.ko $(KO)/tests/gilk_target.ko
SETUP   := scripts/setup $(if $(filter ref,$(KERNEL)),,--profile $(KERNEL))
CORE_SRC := $(wildcard core/*.c)
CORE_OBJ := $(CORE_SRC:%.c=$(B)/%.o)

.PHONY: all user kmods check check-matrix kernel-debug soak bench-offline bench-live lab setup clean
all: user kmods
kmods: $(KMODS)
user: $(B)/gilk $(B)/libgilkcore.a $(B)/libgilklive.a $(B)/bench-offline \
     $(B)/bench-live \
     $(B)/bin/test-unit $(B)/bin/test-diff $(B)/bin/test-cfg-objdump \
     $(B)/bin/test-kcore $(B)/bin/test-live $(B)/bin/test-json $(B)/bin/gilk-soak

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

# Kbuild writes next to its sources: build a copy under $(KO)/kmod.
KMOD_SRC := $(wildcard kmod/*.c kmod/*.h kmod/Kbuild kmod/include/*.h kmod/include/uapi/*.h)
# Rebuilt when setup moves the profile to another kernel (its ABI file changes).
K_ABI := $(wildcard $(KCACHE)/abi)
$(KO)/gilk.ko: $(KMOD_SRC) $(K_ABI)
	@mkdir -p $(KO)/kmod
	cp -r kmod/. $(KO)/kmod/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(KO)/kmod modules
	cp $(KO)/kmod/gilk.ko $@

# Instruments link against gilk.ko's exported symbols.
INSTR_SRC := $(wildcard instruments/*.c instruments/Kbuild)
$(KO)/instruments/argfilter.ko: $(INSTR_SRC) $(KO)/gilk.ko
	@mkdir -p $(KO)/instruments
	cp -r instruments/. $(KO)/instruments/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(KO)/instruments \
		KBUILD_EXTRA_SYMBOLS=$(CURDIR)/$(KO)/kmod/Module.symvers modules

# Code with WARN() and BUG() sites for the guest tests to splice.
TARGET_SRC := $(wildcard tests/guest/target/*.c tests/guest/target/Kbuild)
$(KO)/tests/gilk_target.ko: $(TARGET_SRC) $(K_ABI)
	@mkdir -p $(KO)/tests/target
	cp -r tests/guest/target/. $(KO)/tests/target/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(KO)/tests/target modules
	cp $(KO)/tests/target/gilk_target.ko $@

$(B)/bin/test-json: $(B)/tests/json_check.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^

$(B)/bench-offline: $(B)/bench/offline.o $(B)/libgilkcore.a
	$(CC) -o $@ $^ $(CORE_LIBS)

$(B)/bench-live: $(B)/bench/live.o $(B)/libgilklive.a $(B)/libgilkcore.a
	$(CC) -o $@ $^ $(CORE_LIBS)

UNIT_SRC := $(wildcard tests/unit/*.c)
# The shell's pure parts are unit-tested too.
$(B)/bin/test-unit: $(UNIT_SRC:%.c=$(B)/%.o) $(B)/shell/histogram.o $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS) -lcmocka

DIFF_SRC := $(wildcard tests/diff/*.c)
$(B)/bin/test-diff: $(DIFF_SRC:%.c=$(B)/%.o) $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS) -lunicorn -lpthread

setup:
	@$(SETUP)

# `make check` runs on the reference kernel only, whatever KERNEL says.
check:
	@scripts/setup
	@$(MAKE) --no-print-directory KERNEL=ref all
	@tests/run

# The guest suite on every profile that is set up, and on ref with preempt=full.
check-matrix:
	@scripts/setup
	@$(MAKE) --no-print-directory KERNEL=ref all
	@tests/matrix

# The long stress, on the debug kernel unless KERNEL is given (not in check).
soak:
	@tests/soak $(if $(filter command line,$(origin KERNEL)),$(KERNEL),debug)

# Built only on request: tens of minutes on two cores.
kernel-debug:
	@scripts/setup --profile debug

bench-offline: setup
	@$(MAKE) --no-print-directory $(B)/bench-offline
	@$(B)/bench-offline $(KCACHE)/vmlinuz $(KCACHE)/kallsyms

# In the lab: gilk.ko loaded, debugfs and tracefs mounted for the kprobe.
bench-live: setup
	@$(MAKE) --no-print-directory all
	@scripts/lab --kernel $(KERNEL) --timeout 900 --run 'insmod build/gilk.ko && \
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; build/bench-live'

lab: setup
	@$(MAKE) --no-print-directory all
	@scripts/lab --kernel $(KERNEL)

clean:
	rm -rf $(B)/core $(B)/lib $(B)/bench $(B)/tests $(B)/shell $(B)/kmod $(B)/bin $(B)/*.a $(B)/*.ko $(B)/bench-offline $(B)/bench-live \
		$(B)/instruments $(B)/k

-include $(shell find $(B) -name '*.d' 2>/dev/null)

$(B)/bin/test-cfg-objdump: $(B)/tests/cfg_objdump.o $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS)

$(B)/bin/test-kcore: $(B)/tests/kcore_check.o $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS)

$(B)/bin/gilk-soak: $(B)/tests/soak.o $(B)/libgilklive.a $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS)

$(B)/bin/test-live: $(B)/tests/guest/live_test.o $(B)/libgilklive.a $(B)/libgilkcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CORE_LIBS)
