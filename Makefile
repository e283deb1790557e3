# The two commands that matter (see README.md):
#   make run    install what is missing, build, serve on 127.0.0.1:8086 with ./nubo-data
#   make test   install what is missing, build, run every test, print a summary
# Everything else is for development.

JOBS ?= $(shell nproc)
BUILD ?= build

.PHONY: run test build test-asan bench bench-health format clean deps

deps:
	@bash scripts/deps.sh build

$(BUILD)/release/build.ninja:
	cmake -S . -B $(BUILD)/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DNUBO_TESTS=OFF

build: deps $(BUILD)/release/build.ninja
	ninja -C $(BUILD)/release -j $(JOBS) nubo

run: build
	exec $(BUILD)/release/nubo serve

$(BUILD)/test/build.ninja:
	cmake -S . -B $(BUILD)/test -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNUBO_WERROR=ON

test:
	@bash scripts/deps.sh test
	@$(MAKE) --no-print-directory $(BUILD)/test/build.ninja
	ninja -C $(BUILD)/test -j $(JOBS)
	cd $(BUILD)/test && ctest --output-on-failure --timeout 900

# Unit tests under AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan:
	@bash scripts/deps.sh test
	cmake -S . -B $(BUILD)/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DNUBO_WERROR=ON -DNUBO_SANITIZE=ON
	ninja -C $(BUILD)/asan -j $(JOBS)
	cd $(BUILD)/asan && ctest --output-on-failure -R '^unit$$'

# Benchmarks are never part of `make test` (see bench/README.md).
bench: bench-health
bench-health: build
	@bash scripts/deps.sh bench
	bash bench/run.sh health

format:
	clang-format -i $$(git ls-files 'src/*.cc' 'src/*.h')

clean:
	rm -rf $(BUILD)
