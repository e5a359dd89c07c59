# Thin wrapper over the set-up script and CMake. `make demo` and `make test` are the two
# commands a new user runs (see README.md); both set up everything first.
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60
FUZZ_DIR ?= build-fuzz

.PHONY: deps configure build test demo fuzz sanitize format clean

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

# Every test again under AddressSanitizer and UndefinedBehaviorSanitizer (-O1: with both
# sanitizers -O2 takes twice as long to compile; asserts stay on).
SANITIZE_DIR ?= build-asan
sanitize: deps
	cmake -S . -B $(SANITIZE_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_SANITIZE=ON \
	  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1"
	cmake --build $(SANITIZE_DIR) -j $(JOBS)
	ctest --test-dir $(SANITIZE_DIR) --output-on-failure -j $(JOBS)

# libFuzzer targets (clang), each run for FUZZ_SECONDS on a seed corpus from the test inputs.
fuzz: deps
	cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Fuzz \
	  -DCMAKE_C_FLAGS_FUZZ="-O1 -gline-tables-only" -DCMAKE_CXX_FLAGS_FUZZ="-O1 -gline-tables-only" \
	  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DKILN_FUZZ=ON -DKILN_BUILD_TESTS=OFF
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target kiln_fuzzers
	bash fuzz/run_all.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

format:
	git ls-files '*.h' '*.cc' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR) $(FUZZ_DIR) $(SANITIZE_DIR)
