# Front door for the two everyday jobs. On a fresh Debian 12 machine, as root
# or with sudo:
#   make demo   installs what is missing, builds a release binary, runs the walkthrough
#   make test   installs what tests need, checks the module boundaries and the formatting
#               (scripts/check-includes.sh, check-format.sh), builds with -Werror and ASan+UBSan, runs a
#               short libFuzzer run of every fuzzer (clang), then every test
# Other targets: build, release, fuzz, chaos, bench, format, clean, deps, test-deps.
# `make test-tsan` builds with ThreadSanitizer in build/tsan and runs the tests labelled
# tsan (the thread pool, --threads determinism, the concurrency tests).
# `make test-rss` checks the peak memory of ingest and compaction at 4 threads on a
# Release build (scripts/rss-check.sh: under 256 MiB).
# `make chaos` runs the long chaos suite (scripts/chaos.sh: 30 min of kills,
# full and read-only disks beside live ingestion; ctest runs a short form).

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD_TEST ?= build/test
BUILD_RELEASE ?= build/release
BUILD_TSAN ?= build/tsan
TSAN_TARGETS ?= inlet test_pool test_buf_stash test_stream test_delta_replay_par test_threads test_threads_snapload \
		test_maint_concurrency test_delta_race test_objstore_threads test_scan_text_threads
DEMO_DIR ?= build/inlet-demo
# Each fuzzer's share of the short fuzz run that `make test` ends with.
CI_FUZZ_SECONDS ?= 20

.PHONY: all build release demo test test-tsan test-rss deps test-deps fuzz fuzz-long chaos bench format clean

all: release

deps:
	@scripts/install-deps.sh build

test-deps:
	@scripts/install-deps.sh test

release: deps
	cmake -S . -B $(BUILD_RELEASE) -DCMAKE_BUILD_TYPE=Release -DINLET_BUILD_TESTS=OFF
	cmake --build $(BUILD_RELEASE) -j $(JOBS)

build: release

demo: release
	$(BUILD_RELEASE)/inlet demo $(DEMO_DIR)

test: test-deps
	scripts/check-includes.sh
	scripts/check-format.sh
	cmake -S . -B $(BUILD_TEST) -DCMAKE_BUILD_TYPE=Debug -DINLET_WERROR=ON \
	  -DINLET_SANITIZE=ON -DINLET_BUILD_TESTS=ON
	cmake --build $(BUILD_TEST) -j $(JOBS)
	FUZZ_SECONDS=$(CI_FUZZ_SECONDS) scripts/fuzz.sh short
	cd $(BUILD_TEST) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS)

test-tsan: test-deps
	cmake -S . -B $(BUILD_TSAN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DINLET_WERROR=ON \
	  -DINLET_TSAN=ON -DINLET_BUILD_TESTS=ON
	cmake --build $(BUILD_TSAN) -j $(JOBS) --target $(TSAN_TARGETS)
	cd $(BUILD_TSAN) && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --output-on-failure -L tsan -j $(JOBS)

test-rss: test-deps
	RSS_BUILD=$(BUILD_RELEASE) JOBS=$(JOBS) scripts/rss-check.sh

fuzz: test-deps
	scripts/fuzz.sh short

fuzz-long: test-deps
	scripts/fuzz.sh long

chaos: test-deps
	scripts/chaos.sh long

bench: deps
	scripts/bench.sh

format:
	find include src tests fuzz bench -name '*.[ch]' | xargs clang-format -i

clean:
	rm -rf build
