# The two commands that matter (see README.md):
#   make run    install what is missing, build, serve on 127.0.0.1:8086 with ./nubo-data
#   make test   install what is missing, build, run every test, print a summary
# Everything else is for development.

JOBS ?= $(shell nproc)
BUILD ?= build

.PHONY: run test test-release test-web web build test-asan fuzz soak soak-load bench bench-quick bench-health format clean deps

deps:
	@bash scripts/deps.sh build

$(BUILD)/release/build.ninja:
	cmake -S . -B $(BUILD)/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DNUBO_TESTS=OFF

build: deps $(BUILD)/release/build.ninja
	ninja -C $(BUILD)/release -j $(JOBS) nubo

# The web UI (web/dist), built with the committed lockfile.
web:
	cd web && npm ci --no-audit --no-fund && npm run build

run: build web
	exec $(BUILD)/release/nubo serve

$(BUILD)/test/build.ninja:
	cmake -S . -B $(BUILD)/test -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNUBO_WERROR=ON

# Every test on the optimized build, the web UI's tests (vitest, then
# end to end in Debian's Chromium against the optimized build), then every
# test again under the sanitizers. Each run ends with its summary line.
test: test-release test-web test-asan

test-web:
	@bash scripts/deps.sh web
	@$(MAKE) --no-print-directory web
	cd web && npm test
	cd web && NUBO_BIN=$(CURDIR)/$(BUILD)/test/nubo npm run e2e

test-release:
	@bash scripts/deps.sh test web
	@$(MAKE) --no-print-directory $(BUILD)/test/build.ninja
	ninja -C $(BUILD)/test -j $(JOBS)
	@# The black-box tests drive a real tus client from web/node_modules.
	cd web && npm ci --no-audit --no-fund
	cd $(BUILD)/test && ctest -j $(JOBS) --output-on-failure --timeout 900

# Every test again under AddressSanitizer + UndefinedBehaviorSanitizer
# (the streaming test moves 256 MiB instead of 4 GiB; RSS is not asserted;
# the black-box suites on PostgreSQL run in the release pass only).
test-asan:
	@bash scripts/deps.sh test web
	cmake -S . -B $(BUILD)/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DNUBO_WERROR=ON -DNUBO_SANITIZE=ON
	ninja -C $(BUILD)/asan -j $(JOBS)
	cd web && test -d node_modules/tus-js-client || npm ci --no-audit --no-fund
	cd $(BUILD)/asan && NUBO_TEST_SANITIZED=1 NUBO_TEST_BIG_BYTES=268435456 \
	  ctest -j $(JOBS) --output-on-failure --timeout 900 -LE pg_blackbox

# Coverage-guided fuzzing with libFuzzer (clang); new inputs land in the
# corpora, which `make test` replays. FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 60
fuzz:
	@bash scripts/deps.sh fuzz
	cmake -S . -B $(BUILD)/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNUBO_TESTS=OFF \
	  -DNUBO_FUZZ=ON -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14
	ninja -C $(BUILD)/fuzz -j $(JOBS) $$(basename -s .cc fuzz/fuzz_*.cc)
	for t in fuzz/fuzz_*.cc; do n=$$(basename $$t .cc); \
	  $(BUILD)/fuzz/$$n -max_total_time=$(FUZZ_SECONDS) -max_len=4096 fuzz/corpus/$$n || exit 1; \
	  rm -rf $(BUILD)/fuzz/min && mkdir -p $(BUILD)/fuzz/min && \
	  $(BUILD)/fuzz/$$n -merge=1 $(BUILD)/fuzz/min fuzz/corpus/$$n 2>/dev/null && \
	  find fuzz/corpus/$$n -type f ! -regex '.*/[0-9a-f]\{40\}' -exec cp -n {} $(BUILD)/fuzz/min/ \; ; \
	  rm -rf fuzz/corpus/$$n && mv $(BUILD)/fuzz/min fuzz/corpus/$$n; done

# Long crash-consistency soak (kill -9 trials; SOAK_TRIALS, default 1000).
SOAK_TRIALS ?= 1000
soak:
	@bash scripts/deps.sh test
	@$(MAKE) --no-print-directory $(BUILD)/test/build.ninja
	ninja -C $(BUILD)/test -j $(JOBS) nubo
	cd tests/blackbox && NUBO_BIN=$(CURDIR)/$(BUILD)/test/nubo NUBO_CRASH_TRIALS=$(SOAK_TRIALS) \
	  NUBO_CRASH_SEED=$$(date +%s) /usr/bin/python3 -m unittest -v test_crash
	cd tests/crash && NUBO_BIN=$(CURDIR)/$(BUILD)/test/nubo NUBO_SERVER_CRASH_TRIALS=$(SOAK_TRIALS) \
	  NUBO_CRASH_SEED=$$(date +%s) /usr/bin/python3 -m unittest -v test_server_crash

# Mixed REST + WebDAV load for SOAK_SECONDS (default 600) on the release
# build: errors must be 0, RSS flat, fsck clean.
soak-load: build
	NUBO_BIN=$(CURDIR)/$(BUILD)/release/nubo /usr/bin/python3 tests/soak/soak_load.py

# Benchmarks are never part of `make test` (see bench/README.md).
bench: build
	@bash scripts/deps.sh bench
	cmake -S . -B $(BUILD)/release
	ninja -C $(BUILD)/release -j $(JOBS) nubo nubo_micro_bench nubo_rank_bench
	bash bench/run.sh all
	$(BUILD)/release/nubo_micro_bench
	$(BUILD)/release/nubo_rank_bench

# The same suite with smaller sizes and one round (under 5 minutes).
bench-quick: build
	@bash scripts/deps.sh bench
	bash bench/run.sh all --quick

bench-health: build
	@bash scripts/deps.sh bench
	bash bench/run.sh health

format:
	clang-format -i $$(git ls-files 'src/*.cc' 'src/*.h')

clean:
	rm -rf $(BUILD)
