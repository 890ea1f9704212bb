# pfmon & perfex: top-level build.  `make` builds the library, the two
# front ends and the test workloads; `make check` installs what is missing,
# builds and runs every suite; `make bench` prints the benchmark figures.

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
BASHCOMPDIR = $(PREFIX)/share/bash-completion/completions
VERSION = $(shell cat VERSION)

CC ?= cc
PKGS = popt libdw libelf
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# libpfm4 ships no pkg-config file on Debian.  It is linked statically into
# non-PIE front ends: its large pointer tables then need no relocation at
# start-up, which took perfex --version from about 10 ms to under 4 ms here.
PFM_LIBS = -Wl,-Bstatic -lpfm -Wl,-Bdynamic
CMD_LDFLAGS = -no-pie

# perfex's own cost is a benchmark target, and it needs no libdw: it is
# linked wholly static, which saves the dynamic loader's work at every run
# (perfex --version: 5 ms dynamic, under 2 ms static, here).
cmd/perfex: CMD_LDFLAGS = -static
cmd/perfex: LDLIBS = -lpopt -lpfm -lelf -lz -lm -lpthread

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE \
	  -DPX_VERSION='"$(VERSION)"' -Ilib -Ikernel/uapi -Iformats $(PKG_CFLAGS)
LDLIBS = $(PKG_LIBS) $(PFM_LIBS) -lm -lpthread

LIB_SRCS = $(wildcard lib/*.c) $(wildcard formats/*/lib/*.c)
LIB_OBJS = $(LIB_SRCS:.c=.o)
LIB = lib/libpx.a

CMDS = cmd/perfex $(if $(wildcard cmd/pfmon.c),cmd/pfmon)
UNIT_SRCS = $(wildcard tests/unit/test_*.c)
UNIT_BINS = $(UNIT_SRCS:.c=)
WORKLOAD_SRCS = $(wildcard tests/workloads/*.c)
WORKLOADS = $(WORKLOAD_SRCS:.c=)

.PHONY: all check bench install uninstall clean module deps

SYMBOLS_WORKLOAD = tests/workloads/symbols/build/.done

all: $(CMDS) $(UNIT_BINS) $(WORKLOADS) $(SYMBOLS_WORKLOAD)

$(LIB): $(LIB_OBJS)
	$(AR) rcs $@ $^

lib/%.o formats/%.o: CFLAGS += -fvisibility=hidden
$(LIB_OBJS): $(wildcard lib/*.h) $(wildcard formats/*/*.h) $(wildcard kernel/uapi/*.h)

cmd/cli.o: cmd/cli.c cmd/cli.h

cmd/%: cmd/%.c cmd/cli.o $(LIB)
	$(CC) $(CFLAGS) $(CMD_LDFLAGS) -o $@ $< cmd/cli.o $(LIB) $(LDLIBS)

tests/unit/test_%: tests/unit/test_%.c $(wildcard tests/unit/*.h) $(LIB)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(LIB) $(LDLIBS)

# Workloads are the measured programs: no optimisation that could fold
# their loops away, frame pointers and debug info for the sampling tests.
tests/workloads/%: tests/workloads/%.c
	$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -no-pie -Wall -Wextra -Werror -o $@ $< -lpthread -ldl

# the symbol-resolution workload: several files, shared and dlopen'ed
# libraries, stripped copies with separate debug files
$(SYMBOLS_WORKLOAD): $(wildcard tests/workloads/symbols/*.[ch]) scripts/build-symbols-workload.sh
	scripts/build-symbols-workload.sh

deps:
	scripts/install-deps.sh

# The test target installs its own dependencies first, so it must not
# depend on targets that need them to build.
check:
	scripts/install-deps.sh
	$(MAKE) all
	tests/run-all.sh

bench:
	scripts/install-deps.sh
	$(MAKE) all
	scripts/bench.sh
	scripts/bench-pfmon.sh
	scripts/bench-symbols.sh
	scripts/bench-sampling.sh
	scripts/bench-module.sh

module:
	$(MAKE) -C kernel

install: $(CMDS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(BASHCOMPDIR)
	install -m 755 $(CMDS) $(DESTDIR)$(BINDIR)/
	for f in completions/*.bash; do \
		install -m 644 $$f $(DESTDIR)$(BASHCOMPDIR)/$$(basename $$f .bash); done

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(CMDS)))
	for f in completions/*.bash; do rm -f $(DESTDIR)$(BASHCOMPDIR)/$$(basename $$f .bash); done

clean:
	rm -f $(LIB) $(LIB_OBJS) cmd/cli.o cmd/perfex cmd/pfmon $(UNIT_BINS) $(WORKLOADS)
	rm -rf tests/workloads/symbols/build
	-$(MAKE) -C kernel clean 2>/dev/null
