# attnjudge — build, run, test, bench.
#
#   make            build build/attnjudge
#   make run        build and start 'attnjudge serve' with its defaults (docs/contract.md §1)
#   make test       build and run every test; ends with "N passed, N failed"
#   make test SUITE="http cli"   build, then run only the named suites
#                   (tests/run-all.sh --help lists them)
#   make bench      print the speed figures
#   make SANITIZE=address,undefined test   the same suite under sanitizers
#
# Every target first makes sure the Debian packages it needs are installed
# (scripts/deps.sh: apt-get as root, otherwise it prints the command).

CC ?= gcc
BUILD := build$(if $(SANITIZE),-sanitize)
PKGS := libmicrohttpd jansson sqlite3 libseccomp libsodium libcmark-gfm

WARN := -Wall -Wextra -Werror -Wstrict-prototypes -Wmissing-prototypes \
        -Wshadow -Wformat=2 -Wvla
HARDEN := -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE \
          -fstack-clash-protection -fcf-protection
CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 -D_GNU_SOURCE $(WARN) $(HARDEN) -I. \
	$(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDFLAGS_HARDEN := -pie -Wl,-z,relro -Wl,-z,now -Wl,-z,noexecstack
LDLIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm

ifdef SANITIZE
override CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -U_FORTIFY_SOURCE
LDFLAGS_HARDEN += -fsanitize=$(SANITIZE)
endif

UTIL_SRC := $(wildcard util/*.c)
SANDBOX_SRC := $(wildcard sandbox/*.c)
JUDGE_SRC := $(filter-out judge/harness_rt.c,$(wildcard judge/*.c))
SERVER_SRC := $(wildcard server/*.c)
CLI_SRC := $(wildcard cli/*.c)
UNIT_SRC := $(wildcard tests/unit/test_*.c)

UTIL_OBJ := $(UTIL_SRC:%.c=$(BUILD)/%.o)
SANDBOX_OBJ := $(SANDBOX_SRC:%.c=$(BUILD)/%.o)
JUDGE_OBJ := $(JUDGE_SRC:%.c=$(BUILD)/%.o) $(BUILD)/judge/harness_embed.o
SERVER_OBJ := $(SERVER_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
# the subcommands without main(), so that unit tests can link them
CLI_LIB_OBJ := $(filter-out $(BUILD)/cli/main.o,$(CLI_OBJ))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

# Highest layer first, as the linker wants them: cli → server → judge →
# sandbox → util (docs/architecture.md).
LIBS_A := $(if $(SERVER_SRC),$(BUILD)/libserver.a) $(BUILD)/libjudge.a $(BUILD)/libsandbox.a \
          $(BUILD)/libutil.a

.PHONY: all run test bench clean install deps deps-test deps-bench web
all: deps $(BUILD)/attnjudge web

# The browser UI: CodeMirror and KaTeX bundled with esbuild from npm, pinned
# by web/package-lock.json, into web/dist/ (served by attnjudge serve).
web:
	@web/build.sh

deps:
	@scripts/deps.sh build
deps-test:
	@scripts/deps.sh test
deps-bench:
	@scripts/deps.sh bench

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# The harness runtime is compiled into every submission, inside the sandbox;
# attnjudge carries its source text (see judge/harness.c).
$(BUILD)/judge/harness_embed.o: judge/harness_embed.S judge/harness_rt.c judge/harness_proto.h
	@mkdir -p $(dir $@)
	$(CC) -c $< -o $@

$(BUILD)/libutil.a: $(UTIL_OBJ)
	$(AR) rcs $@ $^
$(BUILD)/libsandbox.a: $(SANDBOX_OBJ)
	$(AR) rcs $@ $^
$(BUILD)/libjudge.a: $(JUDGE_OBJ)
	$(AR) rcs $@ $^
$(BUILD)/libserver.a: $(SERVER_OBJ)
	$(AR) rcs $@ $^
$(BUILD)/libcli.a: $(CLI_LIB_OBJ)
	$(AR) rcs $@ $^

$(BUILD)/attnjudge: $(CLI_OBJ) $(LIBS_A)
	$(CC) $(CFLAGS) $(LDFLAGS_HARDEN) $(CLI_OBJ) $(LIBS_A) $(LDLIBS) -o $@

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libcli.a $(LIBS_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS_HARDEN) $(TEST_WRAP) $< $(BUILD)/libcli.a $(LIBS_A) $(LDLIBS) \
		-lcmocka -o $@

# fault injection: the test replaces these functions (tests/unit/test_judge_faults.c)
$(BUILD)/tests/test_judge_faults: TEST_WRAP := -Wl,--wrap=strdup,--wrap=sodium_init

run: all
	$(BUILD)/attnjudge serve

test: deps-test $(BUILD)/attnjudge web $(UNIT_BIN)
	@tests/run-all.sh $(BUILD) $(SUITE)

$(BUILD)/bench_sandbox: tests/bench/sandbox_overhead.c $(BUILD)/libsandbox.a $(BUILD)/libutil.a
	$(CC) $(CFLAGS) $(LDFLAGS_HARDEN) $< $(BUILD)/libsandbox.a $(BUILD)/libutil.a $(LDLIBS) -o $@

bench: deps-bench $(BUILD)/attnjudge $(BUILD)/bench_sandbox
	@tests/bench.sh $(BUILD)

install: all
	install -D -m 0755 $(BUILD)/attnjudge $(DESTDIR)/usr/local/bin/attnjudge

clean:
	rm -rf build build-sanitize web/dist

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
