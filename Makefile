# pfmon & perfex: top-level build.  `make` builds the library, the two
# front ends and the test workloads; `make check` installs what is missing,
# builds and runs every suite; `make bench` prints the benchmark figures.
# `make ARCH=arm64` cross-builds the same for arm64 into build/arm64 (see
# "arm64" below); `make check-hw` runs the hardware-counter suite on this
# machine's own PMU.

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
BASHCOMPDIR = $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR = $(PREFIX)/share/zsh/vendor-completions
MANDIR = $(PREFIX)/share/man
LIBDIR = $(PREFIX)/lib
INCLUDEDIR = $(PREFIX)/include
VERSION = $(shell cat VERSION)

CC ?= cc
# CC, AR and PKG_CONFIG may be set on the command line or in the
# environment: a Debian cross build (debian/rules) passes the host's, as
# aarch64-linux-gnu-gcc, aarch64-linux-gnu-ar, aarch64-linux-gnu-pkg-config
PKG_CONFIG ?= pkg-config

# Every build output is under build/: objects in build/obj, the library,
# the front ends in build/bin, the unit tests and workloads in build/tests,
# the public headers in build/include.
B = build

# ARCH=arm64 on an amd64 machine: the cross compiler, Debian's multiarch
# :arm64 libraries (scripts/install-deps.sh installs both), and every
# output under build/arm64, so the native build's files are never touched.
# The modules are built from copies of kernel/ and formats/ there too
# (scripts/build-guest-modules.sh).  On an arm64 machine plain `make`
# builds natively into build/, as on x86 (ARM64_TARGET leaves out what is
# x86-64's alone).
CROSS_ARM64 :=
ARM64_TARGET :=
ifeq ($(shell uname -m),aarch64)
ARM64_TARGET := 1
else ifeq ($(ARCH),arm64)
ARM64_TARGET := 1
CROSS_ARM64 := 1
B = build/arm64
CROSS_COMPILE ?= aarch64-linux-gnu-
CC = $(CROSS_COMPILE)gcc
AR = $(CROSS_COMPILE)ar
PKG_CONFIG = PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config
endif

# SAN=1: the library, the front ends and the unit tests built with
# AddressSanitizer and UndefinedBehaviorSanitizer (every finding fatal)
# into build/san, for the sanitizer suites of make check (tests/run-all.sh
# san).  perfex is linked dynamically there: the sanitizers' run-times
# are not made for a static program.
SAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
ifeq ($(SAN),1)
B = build/san
CFLAGS = -O1 -g $(SAN_FLAGS)
endif

PKGS = popt libdw libelf zlib
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
# libpfm4 ships no pkg-config file on Debian.  It is linked statically into
# non-PIE front ends: its large pointer tables then need no relocation at
# start-up, which took perfex --version from about 10 ms to under 4 ms here.
PFM_LIBS = -Wl,-Bstatic -lpfm -Wl,-Bdynamic
CMD_LDFLAGS = -no-pie

CFLAGS ?= -O2 -g
# lib/ is in folders by responsibility (base, event, backend/perf,
# backend/module, backend/perfev, session, symbols, profile, report); its headers
# are found by name in any of them.
LIB_DIRS := $(sort $(dir $(shell find lib -name '*.h')))
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE \
	  -DPX_VERSION='"$(VERSION)"' -Ikernel/uapi -Iformats $(PKG_CFLAGS) $(JSON_CFLAGS)
LDLIBS = $(PKG_LIBS) $(PFM_LIBS) -lm -lpthread
# json-c reads the rank files pfmon-report merges; only it and the unit
# tests link it
JSON_CFLAGS := $(shell $(PKG_CONFIG) --cflags json-c 2>/dev/null)
JSON_LIBS := $(shell $(PKG_CONFIG) --libs json-c 2>/dev/null)

# The library's public headers: what the front ends (cmd/) may include.
# They are copied to build/include, the one library include path cmd/ is
# built with, so a front end that includes an internal header (any other
# header under lib/) does not compile.  The library itself, its unit
# tests and the benchmark drivers see every folder of lib/.
PUBLIC_HDRS = lib/base/cpulist.h lib/base/error.h lib/base/outfile.h \
	lib/base/scale.h lib/base/stats.h lib/event/events.h \
	lib/backend/backend.h lib/session/monitor.h lib/session/target.h \
	lib/backend/sampler.h lib/session/smpl_session.h lib/session/smpl_spec.h lib/symbols/procs.h \
	lib/profile/smpl_resolve.h lib/profile/chains.h lib/base/maps.h lib/base/procfs.h \
	lib/symbols/symbols.h lib/profile/profile.h lib/report/emit.h \
	lib/report/report.h lib/report/mon_report.h lib/report/smpl_report.h \
	lib/report/listing.h lib/profile/callgraph.h lib/base/bigbuf.h \
	lib/report/flamegraph.h lib/base/runctx.h lib/merge/merge.h lib/merge/diff.h \
	lib/self/region_run.h
PUBLIC_STAMP = $(B)/include/.done
INTERNAL_CFLAGS = $(addprefix -I,$(LIB_DIRS)) -Iinclude
LIB_SRCS := $(shell find lib -name '*.c') $(wildcard formats/*/lib/*.c)
LIB_HDRS := $(shell find lib -name '*.h') $(wildcard formats/*/*.h) $(wildcard kernel/uapi/*.h)
LIB_OBJS = $(LIB_SRCS:%.c=$(B)/obj/%.o)
LIB = $(B)/libpx.a

# libpx for programs (include/px_counters.h, include/px_region.h): a
# shared library exporting those headers' functions alone (the library's
# objects are built with hidden visibility, lib/self/api.h marks what is
# public), a static one, and its pkg-config file.  The shared library
# holds what lib/self needs: the event parser (libpfm4), the perf system
# call and ring (the children's sums), the module backend (whose table of
# operations brings its sampler and the formats' readers along), the
# schema's row writer.
LIBPX_SONAME = libpx.so.0
LIBPX_OBJS = $(patsubst %.c,$(B)/obj/%.o,$(wildcard lib/self/*.c) lib/event/events.c \
	lib/event/uprobe.c lib/backend/perfev/perf_syscall.c lib/backend/perfev/perf_ring.c \
	lib/backend/module/backend_module.c lib/backend/module/sampler_module.c \
	lib/backend/sampler_check.c lib/backend/perfev/sideband.c lib/base/random.c \
	$(wildcard formats/*/lib/*.c) lib/base/error.c lib/base/runctx.c lib/base/grow.c lib/base/scale.c lib/report/row.c lib/report/emit.c)
LIBPX = $(B)/lib/$(LIBPX_SONAME) $(B)/lib/libpx.so $(B)/lib/libpx.a $(B)/lib/pkgconfig/libpx.pc
PUBLIC_API_HDRS = include/px_counters.h include/px_region.h
# The examples of docs/libpx.md, built against build/lib as a
# program would be against the installed library.
EXAMPLES = $(patsubst %.c,$(B)/%,$(wildcard examples/*.c))

CMDS = $(B)/bin/perfex $(B)/bin/pfmon $(B)/bin/pfmon-report
UNIT_SRCS = $(wildcard tests/unit/test_*.c)
UNIT_BINS = $(UNIT_SRCS:%.c=$(B)/%)
# The module suite's helper programs, which run in the test guests (and
# pfm_test also in the hardware suite, tests/hw): those that drive the
# library, and those that use /dev/perfmon alone (the statically linked
# workloads of tests/module are built by scripts/vm/lib.sh).
MODULE_LIB_SRCS = tests/module/smpl_ops.c tests/module/cc_smpl.c \
	$(addprefix tests/module/,pfm_test.c pfm_fuzz.c pfm_bench.c runas.c swkeys.c px_self.c)
MODULE_LIB_BINS = $(MODULE_LIB_SRCS:%.c=$(B)/%)
WORKLOAD_SRCS = $(wildcard tests/workloads/*.c)
# refault: built without the C library, so a run is its loop from the
# first instruction, without a loader's or libc's start-up (whose slower
# faults would fall in whichever event set is active first)
# calls_ibtplt: calls linked with Intel IBT's two PLTs (.plt.sec beside
# .plt), the stubs test_plt names
WORKLOADS = $(WORKLOAD_SRCS:%.c=$(B)/%) $(B)/tests/workloads/refault \
	$(B)/tests/workloads/calls_ibtplt
# The hardware-counter suite's programs (tests/hw): a reference counter
# on plain perf_event_open, a workload of a known instruction count, and
# a nest of calls for the call chains.
HW_BINS = $(B)/tests/hw/hw_ref $(B)/tests/hw/nops $(B)/tests/hw/nest $(B)/tests/hw/selfread \
	$(B)/tests/hw/selfovf $(B)/tests/hw/libpx_cost $(B)/tests/hw/selfregion

# The man pages: scdoc sources in man/, roff pages in build/man.
MAN_SRCS = $(wildcard man/*.1.scd)
MANS = $(MAN_SRCS:man/%.scd=$(B)/man/%)

.PHONY: all tools check check-hw bench install uninstall clean module deps arm64-modules \
	fuzzers fuzz

SYMBOLS_WORKLOAD = tests/workloads/symbols/build/.done
CALLGRAPH_WORKLOAD = $(B)/tests/workloads/callgraph/.done
MPI_WORKLOAD = $(B)/tests/workloads/mpi/ranks

# On arm64 (native or cross), not x86's IBT PLT workload and anon_exec
# (x86-64 code bytes), nor test_unwind (it captures x86-64 registers in
# asm, for the DWARF unwinder of lib/symbols/unwind.c, which is x86-64's).
ifdef ARM64_TARGET
WORKLOADS := $(filter-out %/calls_ibtplt %/anon_exec,$(WORKLOADS))
UNIT_BINS := $(filter-out %/test_unwind,$(UNIT_BINS))
endif

ifdef CROSS_ARM64
# The cross build: the front ends, the library and libpx, its unit tests,
# the workloads and the hardware suite's programs, then perfmon.ko and its
# formats.  Not the man pages (the same for every machine: the native
# build makes them), nor the workloads that scripts build in folders of
# their own for the native tests (symbols, call graph) or that need Open
# MPI's compiler.
all: $(CMDS) $(LIBPX) $(UNIT_BINS) $(MODULE_LIB_BINS) $(WORKLOADS) $(HW_BINS) arm64-modules

# The modules, from copies of kernel/, formats/ and the test format in
# build/arm64/src, against Debian's arm64 headers fetched and cached in
# build/arm64/kdir (the script skips kbuild when no source changed).
arm64-modules:
	+VM_ARCH=arm64 VM_KERNEL=6.1 scripts/build-guest-modules.sh
else
all: $(CMDS) $(LIBPX) $(EXAMPLES) $(UNIT_BINS) $(MODULE_LIB_BINS) $(WORKLOADS) $(HW_BINS) \
     $(SYMBOLS_WORKLOAD) $(CALLGRAPH_WORKLOAD) $(MANS) $(MPI_WORKLOAD)
endif

# What `make install` installs, alone: the front ends and their man pages
# (the Debian packages build this, not the tests and workloads of `all`,
# some of which build for this machine alone).
tools: $(CMDS) $(MANS)

# made anew, so that the objects of files moved or removed leave it
$(LIB): $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

LIB_COMPILE = $(CC) $(CFLAGS) $(INTERNAL_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<
$(B)/obj/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(LIB_COMPILE)
$(B)/obj/formats/%.o: formats/%.c
	@mkdir -p $(@D)
	$(LIB_COMPILE)
$(LIB_OBJS): $(LIB_HDRS)

$(B)/lib/$(LIBPX_SONAME): $(LIBPX_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,$(LIBPX_SONAME) -Wl,-z,defs -o $@ $^ -lpfm -lelf -lm -lpthread
$(B)/lib/libpx.so: $(B)/lib/$(LIBPX_SONAME)
	ln -sf $(LIBPX_SONAME) $@
$(B)/lib/libpx.a: $(LIBPX_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^
# libpx.pc for prefix $(1), libdir $(2) and includedir $(3) into $(4)
# (make install writes its own, for where it installs).  Programs link
# with -z now: with lazy binding, the first call of a region would count
# the dynamic linker resolving px_region_end (540 instructions in the
# arm64 guest) on top of the region's own.
define libpx_pc
	printf '%s\n' 'prefix=$(1)' 'libdir=$(2)' 'includedir=$(3)' '' \
		'Name: libpx' 'Description: a program'"'"'s own performance counters and code-region markers' \
		'Version: $(VERSION)' 'Libs: -L$${libdir} -lpx -Wl,-z,now' 'Libs.private: -lpfm -lelf -lm -lpthread' \
		'Cflags: -I$${includedir}' > $(4)
endef
$(B)/lib/pkgconfig/libpx.pc: Makefile VERSION $(PUBLIC_STAMP)
	@mkdir -p $(@D)
	$(call libpx_pc,$(CURDIR)/$(B),$(CURDIR)/$(B)/lib,$(CURDIR)/$(B)/include,$@)

$(B)/examples/%: examples/%.c $(PUBLIC_API_HDRS) $(B)/lib/libpx.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DPX_REGIONS -Iinclude -o $@ $< -L$(B)/lib -Wl,-rpath,$(CURDIR)/$(B)/lib -lpx -lpthread

$(PUBLIC_STAMP): $(PUBLIC_HDRS) $(PUBLIC_API_HDRS)
	@mkdir -p $(@D)
	cp $(PUBLIC_HDRS) $(PUBLIC_API_HDRS) $(@D)/
	touch $@

$(B)/obj/cmd/cli.o: cmd/cli.c cmd/cli.h $(PUBLIC_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(B)/include -c -o $@ $<

$(B)/bin/%: cmd/%.c $(B)/obj/cmd/cli.o $(LIB) $(PUBLIC_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(B)/include $(CMD_LDFLAGS) -o $@ $< $(B)/obj/cmd/cli.o $(LIB) $(LDLIBS)

# perfex's own cost is a benchmark target, and it needs no libdw: it is
# linked wholly static, which saves the dynamic loader's work at every run
# (perfex --version: 5 ms dynamic, under 2 ms static, here).
ifneq ($(SAN),1)
$(B)/bin/perfex: CMD_LDFLAGS = -static
$(B)/bin/perfex: LDLIBS = -lpopt -lpfm -lelf -lz -lm -lpthread
endif
$(B)/bin/pfmon-report: LDLIBS += $(JSON_LIBS)

$(B)/tests/unit/test_%: tests/unit/test_%.c $(wildcard tests/unit/*.h) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(INTERNAL_CFLAGS) -Itests/unit -DPX_TREE='"$(CURDIR)"' -o $@ $< $(LIB) $(LDLIBS) $(JSON_LIBS)

# test_unwind checks that CFI alone unwinds its functions: no frame
# pointers ("private": not passed on to the library it depends on)
$(B)/tests/unit/test_unwind: private CFLAGS += -O2 -fomit-frame-pointer

$(B)/tests/module/%: tests/module/%.c tests/module/pfm_util.h $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(INTERNAL_CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# Workloads are the measured programs: no optimisation that could fold
# their loops away, frame pointers and debug info for the sampling tests.
WORKLOAD_CC = $(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -Wall -Wextra -Werror
$(B)/tests/workloads/%: tests/workloads/%.c
	@mkdir -p $(@D)
	$(WORKLOAD_CC) -no-pie -o $@ $< -lpthread -ldl
$(B)/tests/workloads/refault: tests/workloads/nolibc/refault.c
	@mkdir -p $(@D)
	$(WORKLOAD_CC) -static -no-pie -nostdlib -ffreestanding -fno-stack-protector -o $@ $<
$(B)/tests/workloads/calls_ibtplt: tests/workloads/calls.c
	@mkdir -p $(@D)
	$(WORKLOAD_CC) -no-pie -fcf-protection=full -Wl,-z,ibtplt -o $@ $<

# The hardware suite's programs are static, so the guests need no
# libraries for them; nops is its loop and an exit, no libc at all, so
# its instruction count is the loop's alone.
$(B)/tests/hw/hw_ref: tests/hw/hw_ref.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -static -o $@ $<
$(B)/tests/hw/nops: tests/hw/nops.S
	@mkdir -p $(@D)
	$(CC) -static -nostdlib -o $@ $<
$(B)/tests/hw/selfread $(B)/tests/hw/selfovf: $(B)/tests/hw/%: tests/hw/%.c tests/hw/loop5.h \
		$(LIB) $(PUBLIC_API_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iinclude -static -o $@ $< $(LIB) -lpfm -lelf -lz -lm -lpthread
# a program marking regions, linked as docs/libpx.md says programs link libpx:
# pkg-config's flags (the tree's libpx.pc), the shared library
LIBPX_PC = PKG_CONFIG_PATH=$(B)/lib/pkgconfig $(PKG_CONFIG)
$(B)/tests/hw/selfregion: tests/hw/selfregion.c tests/hw/loop5.h $(LIBPX) $(PUBLIC_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DPX_REGIONS $$($(LIBPX_PC) --cflags libpx) -o $@ $< \
		$$($(LIBPX_PC) --libs libpx) -Wl,-rpath,$(CURDIR)/$(B)/lib
# libpx's costs in the arm64 guest (scripts/bench-libpx.sh): the same
# program as the host's, static for the guest
$(B)/tests/hw/libpx_cost: tests/bench/libpx_cost.c $(LIB) $(PUBLIC_API_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Iinclude -static -o $@ $< $(LIB) -lpfm -lelf -lz -lm -lpthread
# libpx's cost figures (scripts/bench-libpx.sh), against the built libpx
$(B)/tests/bench/libpx_cost: tests/bench/libpx_cost.c $(B)/lib/libpx.so $(PUBLIC_API_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -O2 -Iinclude -o $@ $< -L$(B)/lib -Wl,-rpath,$(CURDIR)/$(B)/lib -lpx -lpthread
$(B)/tests/hw/nest: tests/hw/nest.c
	@mkdir -p $(@D)
	$(CC) -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-inline \
		-Wall -Wextra -Werror -static -o $@ $<

# the MPI workload of the per-rank tests (tests/cli/mpi.bats): Open MPI's
# compiler wrapper, which scripts/install-deps.sh installs
MPICC ?= mpicc
$(MPI_WORKLOAD): CC = $(MPICC)
$(MPI_WORKLOAD): tests/workloads/mpi/ranks.c
	@mkdir -p $(@D)
	$(WORKLOAD_CC) -no-pie -o $@ $<

# the symbol-resolution workload: several files, shared and dlopen'ed
# libraries, stripped copies with separate debug files (built into its
# own build/ folder, whose paths its tests know)
$(SYMBOLS_WORKLOAD): $(wildcard tests/workloads/symbols/*.[ch]) scripts/build-symbols-workload.sh
	scripts/build-symbols-workload.sh

# the call-graph workload: a known call tree through shared, dlopen'ed
# and inlined code, built with and without frame pointers
$(CALLGRAPH_WORKLOAD): $(wildcard tests/workloads/callgraph/*.[ch]) scripts/build-callgraph-workload.sh
	scripts/build-callgraph-workload.sh $(B)/tests/workloads/callgraph

# @VERSION@ in a page's title line becomes the tree's version.  Written
# through a temporary file, so a page scdoc refuses is not left half made.
$(B)/man/%.1: man/%.1.scd VERSION
	@mkdir -p $(@D)
	sed 's/@VERSION@/$(VERSION)/' $< | scdoc >$@.tmp
	mv $@.tmp $@

deps:
	scripts/install-deps.sh

# The test target installs its own dependencies first, so it must not
# depend on targets that need them to build.
# libFuzzer fuzzers of the parsers of outside input (tests/fuzz/fuzz_*.c,
# docs/testing.md, "Fuzzing"): clang, with the library's sources built again with
# -fsanitize=fuzzer-no-link,address,undefined into build/fuzz.  `make
# fuzz` runs each for FUZZ_SECONDS; make check replays their corpora.
FUZZ_CC = clang
FUZZ_B = build/fuzz
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE \
	-DPX_VERSION='"$(VERSION)"' -Ikernel/uapi -Iformats $(PKG_CFLAGS) $(JSON_CFLAGS) \
	$(INTERNAL_CFLAGS)
FUZZ_LIB_OBJS = $(LIB_SRCS:%.c=$(FUZZ_B)/obj/%.o)
FUZZERS = $(patsubst tests/fuzz/%.c,$(FUZZ_B)/%,$(wildcard tests/fuzz/fuzz_*.c))
$(FUZZ_B)/obj/%.o: %.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<
$(FUZZ_B)/libpx.a: $(FUZZ_LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^
$(FUZZ_B)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/util.c tests/fuzz/fuzz.h $(FUZZ_B)/libpx.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Itests/fuzz -o $@ $< tests/fuzz/util.c \
		$(FUZZ_B)/libpx.a $(PKG_LIBS) $(PFM_LIBS) -lm -lpthread $(JSON_LIBS)
fuzzers: $(FUZZERS)
fuzz: fuzzers
	scripts/fuzz.sh run $(FUZZ_SECONDS)

# What the sanitizer suites run: `make SAN=1 sanitized` builds them into
# build/san (tests/run-all.sh san runs them).
sanitized: $(CMDS) $(UNIT_BINS)

check:
	scripts/install-deps.sh
	$(MAKE) all
	tests/run-all.sh

# The hardware-counter suite on this machine's own PMU (a real x86 or
# arm64 machine, not a VM without one): perf backend, and the module's
# too when /dev/perfmon is there.  docs/arm64.md ("On a machine with a PMU") says
# what it needs.
check-hw: all
	tests/run-all.sh hw

bench:
	scripts/install-deps.sh
	$(MAKE) all
	scripts/bench.sh
	scripts/bench-pfmon.sh
	scripts/bench-symbols.sh
	scripts/bench-sampling.sh
	scripts/bench-libpx.sh
	scripts/bench-callgraph.sh
	scripts/bench-merge.sh
	scripts/bench-module.sh
	scripts/bench-module-fuzz.sh

ifdef CROSS_ARM64
module: arm64-modules
else
module:
	$(MAKE) -C kernel
endif

install: $(CMDS) $(MANS) $(LIBPX)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)
	install -m 644 $(PUBLIC_API_HDRS) $(DESTDIR)$(INCLUDEDIR)/
	install -m 755 $(B)/lib/$(LIBPX_SONAME) $(DESTDIR)$(LIBDIR)/
	ln -sf $(LIBPX_SONAME) $(DESTDIR)$(LIBDIR)/libpx.so
	install -m 644 $(B)/lib/libpx.a $(DESTDIR)$(LIBDIR)/
	$(call libpx_pc,$(PREFIX),$(LIBDIR),$(INCLUDEDIR),$(DESTDIR)$(LIBDIR)/pkgconfig/libpx.pc)
	install -m 755 $(CMDS) $(DESTDIR)$(BINDIR)/
	install -m 644 $(MANS) $(DESTDIR)$(MANDIR)/man1/
	for f in completions/*.bash; do \
		install -m 644 $$f $(DESTDIR)$(BASHCOMPDIR)/$$(basename $$f .bash); done
	install -m 644 completions/_* $(DESTDIR)$(ZSHCOMPDIR)/

uninstall:
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(notdir $(PUBLIC_API_HDRS)))
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/,$(LIBPX_SONAME) libpx.so libpx.a pkgconfig/libpx.pc)
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(CMDS)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MANS)))
	for f in completions/*.bash; do rm -f $(DESTDIR)$(BASHCOMPDIR)/$$(basename $$f .bash); done
	for f in completions/_*; do rm -f $(DESTDIR)$(ZSHCOMPDIR)/$$(basename $$f); done

ifdef CROSS_ARM64
# the fetched headers (build/arm64/kdir) stay: they are a cache
clean:
	rm -rf $(B)/obj $(B)/bin $(B)/tests $(B)/include $(B)/src $(LIB)
else
clean:
	rm -rf $(B)/obj $(B)/bin $(B)/tests $(B)/include $(B)/man $(LIB)
	rm -rf tests/workloads/symbols/build
	-$(MAKE) -C kernel clean 2>/dev/null
endif
