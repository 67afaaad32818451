# roofline: build, test, install. `make help` lists the targets.
PREFIX ?= /usr/local
DATADIR ?= $(PREFIX)/share/roofline
CC ?= cc
PKGS := yaml-0.1 gsl cairo pangocairo libmicrohttpd libcurl
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla -Werror
# link-time optimisation: the engine's small helpers (dtype sizes, peaks, model shapes) live in
# their own files and are called per operator of every simulated step; LTO inlines them
OPT ?= -O2 -g -flto=auto
SANITIZE ?=
ifneq ($(SANITIZE),)
  OPT := -O1 -g -fno-omit-frame-pointer
  SANFLAGS := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all
  BUILD := build/san
else
  SANFLAGS :=
  BUILD := build/rel
endif
# ALLOC_HOOK=1 (make alloc-test): every allocation of roofline's own code can be made to fail
ifneq ($(ALLOC_HOOK),)
  OPT := -O1 -g
  BUILD := build/oom
  CFLAGS += -DROOFLINE_ALLOC_HOOK -include src/util/alloc_hook.h
endif
$(BUILD)/src/util/alloc.o: CFLAGS_ALL += -DROOFLINE_ALLOC_HOOK_IMPL
# -ffile-prefix-map: the same binary whichever directory it is built in
CFLAGS_ALL := -std=c17 -D_POSIX_C_SOURCE=200809L $(WARN) $(OPT) $(SANFLAGS) -Isrc $(PKG_CFLAGS) \
              -ffile-prefix-map=$(CURDIR)=. -DROOFLINE_DATADIR='"$(DATADIR)"' \
              -DROOFLINE_CFLAGS='"$(strip -std=c17 $(OPT) $(SANFLAGS) $(CFLAGS))"' $(CFLAGS)
LDFLAGS_ALL := $(SANFLAGS) $(filter -flto%,$(OPT)) $(LDFLAGS)
LIBS := $(PKG_LIBS) -lm -lpthread

# EXCLUDE: sources left out of this build (patterns), e.g. work in progress
EXCLUDE ?=
LIB_SRC := $(filter-out $(EXCLUDE),$(wildcard src/util/*.c src/core/*.c src/io/*.c src/sim/*.c src/plan/*.c src/net/*.c src/bench/*.c src/render/*.c src/cli/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(filter-out $(EXCLUDE),$(wildcard tests/unit/*.c))
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
DEPS := $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BUILD)/src/main.d

BIN := roofline
ifneq ($(SANITIZE)$(ALLOC_HOOK),)
  BIN := $(BUILD)/roofline
endif

.PHONY: all test check unit perf install clean help check-layers check-links format-check deps run validate fuzz fuzz-build FORCE

all: $(BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

# The version (git describe) lives in one generated header that only util/version.c includes;
# it is rewritten only when the string changes (git's GIT-VERSION-FILE), so after a commit
# `make` rebuilds one object and `roofline version` is never stale.
VERSION_H := $(BUILD)/gen/version-gen.h
$(VERSION_H): FORCE
	@mkdir -p $(dir $@)
	@v=$$(git describe --always --dirty 2>/dev/null || echo 0.1); \
	  new="#define ROOFLINE_VERSION_STRING \"$$v\""; \
	  if [ "$$(cat $@ 2>/dev/null)" != "$$new" ]; then echo "$$new" >$@; echo "  GEN     $@ ($$v)"; fi
$(BUILD)/src/util/version.o: $(VERSION_H)
$(BUILD)/src/util/version.o: CFLAGS_ALL += -I$(BUILD)/gen
FORCE:

$(BUILD)/libroofline.a: $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BIN): $(BUILD)/src/main.o $(BUILD)/libroofline.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS)

$(BUILD)/unit_tests: $(TEST_OBJ) $(BUILD)/libroofline.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS)

$(BUILD)/bench_engine: $(BUILD)/tests/perf/bench_engine.o $(BUILD)/libroofline.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS)

$(BUILD)/bench_sim: $(BUILD)/tests/perf/bench_sim.o $(BUILD)/libroofline.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS)

$(BUILD)/bench_report: $(BUILD)/tests/perf/bench_report.o $(BUILD)/libroofline.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS)

$(BUILD)/bench_plan: $(BUILD)/tests/perf/bench_plan.o $(BUILD)/libroofline.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS)

# The whole suite: unit tests plus CLI tests; the last line is "N passed, N failed", then
# " (failed: NAME, ...)" when any failed (tests/run.sh).
test: $(BIN) $(BUILD)/unit_tests check-layers check-links
	@LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0 \
	  ROOFLINE=$(abspath $(BIN)) UNIT=$(abspath $(BUILD)/unit_tests) sh tests/run.sh

check: test

# Sharding for real: a private single-node Slurm cluster on localhost (slurm-wlm, munge; its own
# key, conf, ports and spool in a temporary directory) runs the sharded work as an array job,
# GNU parallel runs it again, and the merged shards must equal one unsharded run byte for byte.
# Prints the timings. CLUSTER_CORRUPT=I alters shard I to show the check failing.
.PHONY: test-cluster
test-cluster: $(BIN)
	@ROOFLINE=$(abspath $(BIN)) timeout 900 sh tests/cluster/slurm-local.sh sh tests/cluster/sharded.sh

# Benchmarks that print figures (never timed tests): the engine's evaluations per second and
# the simulator's requests per wall-second on a 100,000-request ShareGPT-like scenario.
perf: $(BUILD)/bench_engine $(BUILD)/bench_sim $(BUILD)/bench_plan $(BUILD)/bench_report
	@$(BUILD)/bench_engine
	@$(BUILD)/bench_sim
	@ROOFLINE_DATA=$(CURDIR) $(BUILD)/bench_plan
	@ROOFLINE_DATA=$(CURDIR) $(BUILD)/bench_report

run: $(BIN)
	./$(BIN)

# Leave-one-device-out cross-validation of the calibrated model on the published measurements
# (calibration/measurements.yaml, a copy of ../shared/calibration/measurements.yaml).
MEASUREMENTS ?= calibration/measurements.yaml
validate: $(BIN)
	./$(BIN) calibrate --measurements $(MEASUREMENTS) --cross-validate

# The dependency direction util <- core <- {io, sim, bench} <- render <- cli <- main, no YAML
# or Cairo in core/ and util/, no printing in library code (scripts/check-layers.sh).
check-layers:
	@sh scripts/check-layers.sh src

# Links in docs/ and README.md, and docs references in source comments, resolve (file and
# heading anchor).
check-links:
	@python3 scripts/check-links.py .

format-check:
	clang-format --dry-run --Werror src/*.c src/*/*.c src/*/*.h tests/unit/*.c tests/unit/*.h

deps:
	sh scripts/install-deps.sh

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(DATADIR)/hardware_profiles $(DESTDIR)$(DATADIR)/model_profiles
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/roofline
	install -m 644 hardware_profiles/*.yaml $(DESTDIR)$(DATADIR)/hardware_profiles/
	install -m 644 model_profiles/*.yaml $(DESTDIR)$(DATADIR)/model_profiles/
	install -d $(DESTDIR)$(DATADIR)/engine_profiles $(DESTDIR)$(DATADIR)/calibration
	install -m 644 engine_profiles/*.yaml $(DESTDIR)$(DATADIR)/engine_profiles/
	install -m 644 calibration/*.yaml $(DESTDIR)$(DATADIR)/calibration/
	install -d $(DESTDIR)$(DATADIR)/reports
	install -m 644 reports/*.yaml $(DESTDIR)$(DATADIR)/reports/

clean:
	rm -rf build roofline

help:
	@echo "make            build ./roofline"
	@echo "make test       run the whole suite (SANITIZE=address,undefined for sanitizers)"
	@echo "make perf       engine and simulator benchmarks (print figures, never assert speed)"
	@echo "make test-cluster  sharded runs on a private local Slurm and GNU parallel = one run"
	@echo "make validate   leave-one-device-out, then leave-one-vendor-out cross-validation on calibration/measurements.yaml"
	@echo "make fuzz       libFuzzer smoke run of every parser (FUZZ_SECONDS=60 each; clang)"
	@echo "make alloc-test fail each allocation of a few commands in turn (ALLOC_HOOK build)"
	@echo "make install    PREFIX=/usr/local"
	@echo "make deps       install Debian packages (apt-get; sudo when not root)"

# libFuzzer harnesses (tests/fuzz/README.md): clang with ASan and UBSan, one binary per parser.
# `make fuzz` runs each for FUZZ_SECONDS (a smoke run; not part of `make test`).
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_BUILD := build/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_NAMES := hw model hfconfig measure engine scenario trace measured bench_report cli
FUZZ_BINS := $(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz_%)
FUZZ_OBJ := $(filter-out $(FUZZ_BUILD)/src/main.o,$(LIB_SRC:%.c=$(FUZZ_BUILD)/%.o))

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $<"
	@$(FUZZ_CC) -std=c17 -D_POSIX_C_SOURCE=200809L $(WARN) -Wno-format-nonliteral -O1 -g -fno-omit-frame-pointer \
	  -fsanitize=fuzzer-no-link $(FUZZ_SAN) -Isrc -Itests/fuzz -I$(BUILD)/gen $(PKG_CFLAGS) \
	  -DROOFLINE_DATADIR='"$(DATADIR)"' \
	  -DROOFLINE_CFLAGS='"fuzz"' -MMD -MP -c $< -o $@

$(FUZZ_BUILD)/src/util/version.o: $(VERSION_H)

$(FUZZ_BUILD)/libroofline.a: $(FUZZ_OBJ)
	@rm -f $@
	@$(AR) rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_BUILD)/libroofline.a
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(LIBS)

# Fails each allocation of a few commands in turn (tests/alloc/alloc_fail.sh): exit 1 with
# "out of memory", or exit 0 with the normal output; never a signal. Not in `make test` (slow).
.PHONY: alloc-test
alloc-test:
	$(MAKE) ALLOC_HOOK=1 build/oom/roofline
	ROOFLINE=$(abspath build/oom/roofline) sh tests/alloc/alloc_fail.sh

fuzz-build: $(FUZZ_BINS)

fuzz: $(FUZZ_BINS)
	@for f in $(FUZZ_NAMES); do sh tests/fuzz/run.sh $$f $(FUZZ_SECONDS) || exit 1; done

-include $(FUZZ_OBJ:.o=.d) $(FUZZ_NAMES:%=$(FUZZ_BUILD)/tests/fuzz/fuzz_%.d)
-include $(DEPS)
