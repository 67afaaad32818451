# roofline: build, test, install. `make help` lists the targets.
PREFIX ?= /usr/local
DATADIR ?= $(PREFIX)/share/roofline
CC ?= cc
PKGS := yaml-0.1 gsl cairo pangocairo
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
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)
CFLAGS_ALL := -std=c17 -D_POSIX_C_SOURCE=200809L $(WARN) $(OPT) $(SANFLAGS) -Isrc $(PKG_CFLAGS) \
              -DROOFLINE_DATADIR='"$(DATADIR)"' -DROOFLINE_VERSION='"$(VERSION)"' \
              -DROOFLINE_CFLAGS='"$(strip -std=c17 $(OPT) $(SANFLAGS) $(CFLAGS))"' $(CFLAGS)
LDFLAGS_ALL := $(SANFLAGS) $(filter -flto%,$(OPT)) $(LDFLAGS)
LIBS := $(PKG_LIBS) -lm -lpthread

# EXCLUDE: sources left out of this build (patterns), e.g. work in progress
EXCLUDE ?=
LIB_SRC := $(filter-out $(EXCLUDE),$(wildcard src/util/*.c src/core/*.c src/io/*.c src/sim/*.c src/plan/*.c src/bench/*.c src/render/*.c src/cli/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(filter-out $(EXCLUDE),$(wildcard tests/unit/*.c))
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
DEPS := $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BUILD)/src/main.d

BIN := roofline
ifneq ($(SANITIZE),)
  BIN := $(BUILD)/roofline
endif

.PHONY: all test check unit perf install clean help check-layers format-check deps run validate

all: $(BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

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

# The whole suite: unit tests plus CLI tests; the last line is "N passed, N failed".
test: $(BIN) $(BUILD)/unit_tests check-layers
	@LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0 \
	  ROOFLINE=$(abspath $(BIN)) UNIT=$(abspath $(BUILD)/unit_tests) sh tests/run.sh

check: test

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

# core/ never includes YAML or Cairo; only cli/ and main.c print.
check-layers:
	@! grep -n -E '#include <(yaml|cairo|pango)' src/core/*.c src/core/*.h src/util/* || \
	  (echo "layer violation: core/util include yaml/cairo/pango" >&2; exit 1)
	@! grep -n -E '\b(printf|puts|fprintf)\(' src/core/*.c src/util/*.c src/io/*.c src/plan/*.c || \
	  (echo "layer violation: library code prints" >&2; exit 1)

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

clean:
	rm -rf build roofline

help:
	@echo "make            build ./roofline"
	@echo "make test       run the whole suite (SANITIZE=address,undefined for sanitizers)"
	@echo "make perf       engine and simulator benchmarks (print figures, never assert speed)"
	@echo "make validate   leave-one-device-out cross-validation on calibration/measurements.yaml"
	@echo "make install    PREFIX=/usr/local"
	@echo "make deps       install Debian packages (apt-get; sudo when not root)"

-include $(DEPS)
