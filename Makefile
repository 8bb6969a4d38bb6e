# anatomy — the two commands of the quick start are `make run` and `make test`.
# Both install missing Debian packages first (when run as root), configure
# with CMake + Ninja, and build.

BUILD      ?= build
ASAN_BUILD ?= build-asan
BENCH_BUILD?= build-bench
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?=
JOBS       ?= $(shell nproc)

# Debian 12 packages the build and tests need (chromium: the test that opens
# the HTML report in a headless browser; zlib: it decodes the screenshot;
# protobuf: Chakra execution traces; python3-torch: the real gloo job that
# trace_e2e.sh captures and replays, and anatomy calibrate's probe;
# sqlite3: the sweep store; Open MPI: sweeps across ranks, and the test
# that runs one under mpirun; pybind11, python3-dev and pytest: the Python
# module and its tests, on Debian's /usr/bin/python3; matplotlib: the
# example that plots a sweep's Pareto front).
PACKAGES := cmake ninja-build g++ pkg-config libfmt-dev libcli11-dev nlohmann-json3-dev \
            libyaml-cpp-dev libgtest-dev libgmock-dev libbenchmark-dev \
            zlib1g-dev chromium protobuf-compiler libprotobuf-dev python3-torch \
            libsqlite3-dev openmpi-bin libopenmpi-dev \
            pybind11-dev python3-pybind11 python3-dev python3-pytest python3-matplotlib

.PHONY: all deps configure build run test test-release test-asan golden docs bench fuzz clean

all: build

deps:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "missing Debian packages:$$missing"; echo "run 'sudo make deps' or install them"; exit 1; \
	  fi; \
	fi

$(BUILD)/build.ninja: CMakeLists.txt
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/anatomy run

test-release: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The sanitizer build leaves out the Python module (an ASan-built .so cannot
# load into a plain python3) and MPI (Open MPI's own allocations read as leaks).
# -O1 -g1, as ASan's documentation advises: the suite (611 tests) ran in
# 80 s on 2 cores against 4-5 min at -O0, for about 15% more compile time
# per source, and line tables are all a sanitizer's report needs.
test-asan: deps
	@[ -f $(ASAN_BUILD)/build.ninja ] || cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DANATOMY_SANITIZE=ON \
	  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DANATOMY_PYTHON=OFF -DANATOMY_MPI=OFF
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -LE 'slow|golden' -E '$(ASAN_SKIP)'

# Tests that repeat whole default-scenario runs only to compare bytes or
# published numbers: determinism and accuracy, which the release pass
# checks; under ASan at -O0 they took 190 of the pass's 630 CPU-seconds.
ASAN_SKIP := SameScenarioSameBytes|CliValidate.MegatronWeakScaling|SweepCli.SixtyFourPointsOnTwoThreads

test: test-release test-asan

# Rewrites every golden output (tests/golden/) from the current build: run it
# when a change alters a number on purpose, and say why in the commit.
golden: build
	@for c in tests/golden/*/; do bash tests/golden/golden.sh $(CURDIR)/$(BUILD)/anatomy $(CURDIR) $(CURDIR)/$${c%/} --update; done

# Rewrites docs/scenario.md, the schema as `anatomy schema --format markdown`
# prints it from the field declarations (a test fails while it is stale).
docs: build
	./$(BUILD)/anatomy schema --format markdown > docs/scenario.md

bench: deps
	@[ -f $(BENCH_BUILD)/build.ninja ] || cmake -S . -B $(BENCH_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DANATOMY_BENCH=ON -DANATOMY_TESTS=OFF
	cmake --build $(BENCH_BUILD) -j $(JOBS)
	./bench/run.sh $(BENCH_BUILD)

# libFuzzer over the scenario parser and the calibration reader (fuzz/),
# FUZZ_SECONDS per target; outside `make test`. Needs clang and its runtime.
fuzz: deps
	@for p in clang libclang-rt-14-dev; do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || \
	  { [ "$$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$p || { echo "missing $$p"; exit 1; }; }; done
	@[ -f $(FUZZ_BUILD)/build.ninja ] || cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DANATOMY_FUZZ=ON -DANATOMY_TESTS=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target anatomy scenario_fuzzer calibration_fuzzer trace_fuzzer cluster_trace_fuzzer
	./fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(BENCH_BUILD) $(FUZZ_BUILD)
