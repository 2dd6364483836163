# attnjudge — build, run, test, bench, fuzz.
#
#   make            build build/attnjudge
#   make run        build and start 'attnjudge serve' with its defaults (docs/contract.md §1);
#                   SERVE_FLAGS adds flags: make run SERVE_FLAGS="--port 9000"
#   make test       build and run every test; ends with "N passed, N failed"
#   make test SUITE="http cli"   build, then run only the named suites
#                   (tests/run-all.sh --help lists them)
#   make bench      print the speed figures
#   make fuzz       libFuzzer targets, FUZZ_SECONDS (60) each (docs/fuzzing.md)
#   make container-check   deploy/Dockerfile and compose.yaml built and run with podman (as root)
#   make SANITIZE=address,undefined test   the same suite under sanitizers
#
# Packages first, then the build. Every target first makes sure the Debian
# packages it needs are installed (scripts/deps.sh: apt-get as root, which
# also creates the system user attnjudge that a root server runs as;
# otherwise it prints the command), and only then is the real build run, in
# a second make: the libraries' flags come from pkg-config, which can only
# answer once their -dev packages are there. (Asked in the same make, it
# answered "nothing" on a fresh machine, and the first `make test` installed
# the packages and then failed to link; tests/build/first-run.sh.)

DEPS ?= scripts/deps.sh

ifndef ATTNJUDGE_DEPS_DONE
# ---- stage 1: the packages, then make again with the same goals ----------

GOALS := $(or $(MAKECMDGOALS),all)
# goals that need no package: cleaning, and the deps targets themselves
NODEPS_GOALS := clean deps deps-test deps-bench deps-fuzz
DEPS_SET := $(if $(filter bench,$(GOALS)),bench,$(if $(filter fuzz fuzz-merge \
	fuzz-coverage,$(GOALS)),fuzz,$(if $(filter test,$(GOALS)),test,build)))

.PHONY: $(GOALS)
# The first goal runs the whole second make; the others wait for it.
$(firstword $(GOALS)):
	@$(if $(filter-out $(NODEPS_GOALS),$(GOALS)),$(DEPS) $(DEPS_SET) &&) \
	$(MAKE) --no-print-directory ATTNJUDGE_DEPS_DONE=1 $(GOALS)
$(filter-out $(firstword $(GOALS)),$(GOALS)): $(firstword $(GOALS))
	@:

else
# ---- stage 2: the build, with the packages installed ---------------------

CC ?= gcc
BUILD := build$(if $(SANITIZE),-sanitize)
PKGS := libmicrohttpd jansson sqlite3 libpq libseccomp libsodium libcmark-gfm libarchive cjose libcurl

WARN := -Wall -Wextra -Werror -Wstrict-prototypes -Wmissing-prototypes \
        -Wshadow -Wformat=2 -Wvla
HARDEN := -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE \
          -fstack-clash-protection -fcf-protection

# Asked once per make, and a missing package stops the build here with
# pkg-config's own message rather than with undefined references later.
ifneq ($(filter-out clean deps%,$(or $(MAKECMDGOALS),all)),)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_CFLAGS_STATUS := $(.SHELLSTATUS)
# libpq is not linked: server/pq.c loads it with the first PostgreSQL
# connection (why: server/pq.h)
PKG_LIBS := $(shell pkg-config --libs $(filter-out libpq,$(PKGS)))
ifneq ($(PKG_CFLAGS_STATUS)$(.SHELLSTATUS),00)
$(error pkg-config cannot find $(PKGS); run: $(DEPS) build)
endif
endif

CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 -D_GNU_SOURCE $(WARN) $(HARDEN) -I. $(PKG_CFLAGS)
LDFLAGS_HARDEN := -pie -Wl,-z,relro -Wl,-z,now -Wl,-z,noexecstack
LDLIBS := $(PKG_LIBS) -lpthread -lm

ifdef SANITIZE
override CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -U_FORTIFY_SOURCE
LDFLAGS_HARDEN += -fsanitize=$(SANITIZE)
endif
# clang's -Wformat=2 also flags vprintf-style wrappers, and libseccomp's
# SCMP_A0() initializers, that gcc accepts.
ifneq ($(findstring clang,$(CC)),)
override CFLAGS += -Wno-format-nonliteral -Wno-missing-field-initializers
endif
# The libFuzzer build (make fuzz runs it as FUZZ=1 CC=clang BUILD=build-fuzz):
# every object instrumented for coverage, ASan and UBSan; undefined behaviour
# is a crash, not a message.
FUZZ_SAN := address,undefined
ifdef FUZZ
override CFLAGS += -fsanitize=fuzzer-no-link,$(FUZZ_SAN) -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -U_FORTIFY_SOURCE
endif
# Source-based line coverage (make fuzz-coverage: COVERAGE=1 CC=clang).
ifdef COVERAGE
override CFLAGS += -fprofile-instr-generate -fcoverage-mapping
LDFLAGS_HARDEN += -fprofile-instr-generate
endif

UTIL_SRC := $(wildcard util/*.c)
SANDBOX_SRC := $(wildcard sandbox/*.c)
JUDGE_SRC := $(filter-out judge/harness_rt.c,$(wildcard judge/*.c))
SERVER_SRC := $(wildcard server/*.c)
CLI_SRC := $(wildcard cli/*.c)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
# one libFuzzer target per parser of untrusted bytes (docs/fuzzing.md)
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(filter-out tests/fuzz/replay.c,\
	$(wildcard tests/fuzz/*.c)))

UTIL_OBJ := $(UTIL_SRC:%.c=$(BUILD)/%.o)
SANDBOX_OBJ := $(SANDBOX_SRC:%.c=$(BUILD)/%.o)
JUDGE_OBJ := $(JUDGE_SRC:%.c=$(BUILD)/%.o) $(BUILD)/judge/harness_embed.o \
             $(BUILD)/judge/samples_embed.o
SERVER_OBJ := $(SERVER_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
# the subcommands without main(), so that unit tests can link them
CLI_LIB_OBJ := $(filter-out $(BUILD)/cli/main.o,$(CLI_OBJ))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
REPLAY_BIN := $(FUZZ_TARGETS:%=$(BUILD)/tests/fuzz_%)

# Highest layer first, as the linker wants them: cli → server → judge →
# sandbox → util (docs/architecture.md).
LIBS_A := $(if $(SERVER_SRC),$(BUILD)/libserver.a) $(BUILD)/libjudge.a $(BUILD)/libsandbox.a \
          $(BUILD)/libutil.a

.PHONY: all run test bench fuzz fuzz-build fuzz-merge fuzz-coverage clean install \
	deps deps-test deps-bench deps-fuzz web
all: $(BUILD)/attnjudge web

# The browser UI: CodeMirror and KaTeX bundled with esbuild from npm, pinned
# by web/package-lock.json, into web/dist/ (served by attnjudge serve).
web:
	@web/build.sh

deps:
	@$(DEPS) build
deps-test:
	@$(DEPS) test
deps-bench:
	@$(DEPS) bench
deps-fuzz:
	@$(DEPS) fuzz

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# The harness runtime is compiled into every submission, inside the sandbox;
# attnjudge carries its source text (see judge/harness.c).
$(BUILD)/judge/harness_embed.o: judge/harness_embed.S judge/harness_rt.c judge/harness_proto.h
	@mkdir -p $(dir $@)
	$(CC) -c $< -o $@

# The sample kit's loader is shipped in every sample archive (judge/samples.c).
$(BUILD)/judge/samples_embed.o: judge/samples_embed.S judge/kit/caseio.c judge/kit/caseio.h
	@mkdir -p $(dir $@)
	$(CC) -c $< -o $@

$(BUILD)/libutil.a: $(UTIL_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^
$(BUILD)/libsandbox.a: $(SANDBOX_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^
$(BUILD)/libjudge.a: $(JUDGE_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^
$(BUILD)/libserver.a: $(SERVER_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^
$(BUILD)/libcli.a: $(CLI_LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/attnjudge: $(CLI_OBJ) $(LIBS_A)
	$(CC) $(CFLAGS) $(LDFLAGS_HARDEN) $(CLI_OBJ) $(LIBS_A) $(LDLIBS) -o $@

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libcli.a $(LIBS_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS_HARDEN) $(TEST_WRAP) $< $(BUILD)/libcli.a $(LIBS_A) $(LDLIBS) \
		-lcmocka -o $@

# the sample kit's loader is shipped as source (judge/kit/); its test compiles it in
$(BUILD)/tests/test_samples: TEST_WRAP := judge/kit/caseio.c
$(BUILD)/tests/test_samples: judge/kit/caseio.c judge/kit/caseio.h

# the store's tests share their database fixture (tests/unit/fixture_db.h)
FIXTURE_DB_BIN := $(filter $(BUILD)/tests/test_store% $(BUILD)/tests/test_queue,$(UNIT_BIN))
$(FIXTURE_DB_BIN): TEST_WRAP := tests/unit/fixture_db.c
$(FIXTURE_DB_BIN): tests/unit/fixture_db.c tests/unit/fixture_db.h

# fault injection: the test replaces these functions (tests/unit/test_judge_faults.c)
$(BUILD)/tests/test_judge_faults: TEST_WRAP := -Wl,--wrap=strdup,--wrap=sodium_init

# make test replays every kept fuzz input (tests/fuzz/<target>/) through the
# target built with the normal compiler and a plain main (tests/fuzz/replay.c).
$(BUILD)/tests/fuzz_%: tests/fuzz/%.c $(BUILD)/tests/fuzz/replay.o $(BUILD)/libcli.a $(LIBS_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS_HARDEN) $< $(BUILD)/tests/fuzz/replay.o $(BUILD)/libcli.a $(LIBS_A) \
		$(LDLIBS) -o $@

run: all
	$(BUILD)/attnjudge serve $(SERVE_FLAGS)

# Under the sanitizers the server's own work (an uploaded problem's check,
# a sign-up's hash beside it) is several times slower: the tests' HTTP
# clients wait up to 120 s for a response instead of 30.
test: export ATTNJUDGE_TEST_HTTP_TIMEOUT_S := $(if $(SANITIZE),120,30)
test: $(BUILD)/attnjudge web $(UNIT_BIN) $(REPLAY_BIN)
	@tests/run-all.sh $(BUILD) $(SUITE)

$(BUILD)/bench_sandbox: tests/bench/sandbox_overhead.c $(BUILD)/libsandbox.a $(BUILD)/libutil.a
	$(CC) $(CFLAGS) $(LDFLAGS_HARDEN) $< $(BUILD)/libsandbox.a $(BUILD)/libutil.a $(LDLIBS) -o $@

bench: $(BUILD)/attnjudge $(BUILD)/bench_sandbox
	@tests/bench.sh $(BUILD)

# deploy/Dockerfile and deploy/compose.yaml built and run with podman, as
# root (tests/deploy/container.sh); not in test: it downloads hundreds of MB
.PHONY: container-check
container-check:
	@tests/deploy/container.sh

# ---- fuzzing (docs/fuzzing.md) ----
FUZZ_SECONDS ?= 60
FUZZ_BUILD := build-fuzz
FUZZ_BIN := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz/%)

fuzz: fuzz-build
	@tests/fuzz/fuzz.sh run $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)
fuzz-merge: fuzz-build
	@tests/fuzz/fuzz.sh merge $(FUZZ_BUILD) 0 $(FUZZ_TARGETS)
# line coverage of each target's parser by its kept inputs and the corpus
# of the last make fuzz, with llvm-cov
fuzz-coverage:
	@$(MAKE) --no-print-directory COVERAGE=1 CC=clang BUILD=build-cov SANITIZE= \
		$(FUZZ_TARGETS:%=build-cov/tests/fuzz_%)
	@tests/fuzz/fuzz.sh coverage build-cov 0 $(FUZZ_TARGETS)
fuzz-build:
	@$(MAKE) --no-print-directory FUZZ=1 CC=clang BUILD=$(FUZZ_BUILD) SANITIZE= \
		$(FUZZ_BIN)

$(FUZZ_BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_BUILD)/libcli.a $(LIBS_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fsanitize=fuzzer,$(FUZZ_SAN) $(LDFLAGS_HARDEN) $< $(FUZZ_BUILD)/libcli.a $(LIBS_A) \
		$(LDLIBS) -o $@

# the layout deploy/ expects (docs/operations.md, "Deploying on one machine"):
# the command, and the problems, references and web UI it serves; copies
# merge into what is there (an operator's own packages are kept)
SHARE := $(DESTDIR)/usr/local/share/attnjudge
install: all
	install -D -m 0755 $(BUILD)/attnjudge $(DESTDIR)/usr/local/bin/attnjudge
	install -d $(SHARE)/web
	cp -R problems reference $(SHARE)/
	cp -R web/dist/. $(SHARE)/web/

clean:
	rm -rf build build-sanitize build-fuzz build-cov web/dist

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
endif
