# Thin wrapper over the set-up script and CMake. `make demo` and `make test` are the two
# commands a new user runs (see README.md); both set up everything first.
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60
FUZZ_DIR ?= build-fuzz
# The clang build's optimisation (the sanitizer tests and the fuzzers): -O1 runs more fuzz inputs
# a second; CI takes -O0, which compiles its some 390 objects about a third faster.
FUZZ_OPT ?= -O1

.PHONY: deps configure build test demo fuzz fuzz-configure sanitize sanitize-configure sanitize-ci format clean cross-aarch64

deps:
	@if [ "$$(id -u)" -eq 0 ]; then bash deploy/install-deps.sh; else sudo bash deploy/install-deps.sh; fi

configure: deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

demo: build
	bash examples/demo.sh $(BUILD_DIR)

# kiln-device-runner for aarch64 Linux (a board, or a phone's Linux userland; Android: docs/phone.md)
# into $(CROSS_AARCH64_DIR)/kiln-device-runner. `make build` cross-builds it too (into
# $(BUILD_DIR)/device-runner-aarch64), and `make test` runs it under qemu-aarch64-static.
CROSS_AARCH64_DIR ?= build-aarch64
cross-aarch64: deps
	cmake -S worker/device_runner -B $(CROSS_AARCH64_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/deploy/toolchains/aarch64-linux-gnu.cmake
	cmake --build $(CROSS_AARCH64_DIR) -j $(JOBS)

# Every test again under AddressSanitizer and UndefinedBehaviorSanitizer (-O1: with both
# sanitizers -O2 takes twice as long to compile; asserts stay on).
SANITIZE_DIR ?= build-asan
sanitize-configure: deps
	cmake -S . -B $(SANITIZE_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_SANITIZE=ON \
	  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1"

# A UBSan report stops its program, so that it fails the test; a leak that is by design would be
# suppressed, with its reason, in tests/sanitizers/lsan.supp (none is).
SANITIZE_ENV = UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitizers/lsan.supp:print_suppressions=0
sanitize: sanitize-configure
	cmake --build $(SANITIZE_DIR) -j $(JOBS)
	$(SANITIZE_ENV) ctest --test-dir $(SANITIZE_DIR) --output-on-failure -j $(JOBS)

# CI's share of it, with the fuzz targets in one clang build ($(FUZZ_DIR): ASan, UBSan and
# libFuzzer's coverage on every object), so that the sanitizer tests and the fuzzers share their
# libraries' objects: the parsers (TVMScript text, TVM's JSON graphs), the wire messages, the
# tuning databases and the service (the coordinator's dispatcher, job service and server, on
# real sockets), each test program run whole; a UBSan report stops the program, so it fails.
SANITIZE_CI_TESTS = ir/text/ir_text_test ir/tvm_json/tvm_json_test \
  ir/tvm_json/tvm_json_prim_func_test schemas/schemas_test database/database_test \
  database/tvm_json_database_test coordinator/coordinator_test
fuzz-configure: deps
	cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Fuzz \
	  -DCMAKE_C_FLAGS_FUZZ="$(FUZZ_OPT) -gline-tables-only" -DCMAKE_CXX_FLAGS_FUZZ="$(FUZZ_OPT) -gline-tables-only" \
	  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DKILN_FUZZ=ON -DKILN_SANITIZE=ON -DKILN_BUILD_TESTS=ON
sanitize-ci: fuzz-configure
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target $(notdir $(SANITIZE_CI_TESTS))
	set -e; for t in $(SANITIZE_CI_TESTS); do \
	  echo "== sanitizers: $$t"; \
	  $(SANITIZE_ENV) $(FUZZ_DIR)/tests/$$t --gtest_brief=1; \
	done

# libFuzzer targets (clang), each run for FUZZ_SECONDS on a seed corpus from the test inputs.
fuzz: fuzz-configure
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target kiln_fuzzers
	bash fuzz/run_all.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

format:
	git ls-files '*.h' '*.cc' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR) $(FUZZ_DIR) $(SANITIZE_DIR)
