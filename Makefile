# Footprint — build, test, benchmark and demo commands.
SWIFT ?= swift
BUILD_PACKAGES := libsqlite3-dev zlib1g-dev libmicrohttpd-dev libssl-dev libqrencode-dev pkg-config
TEST_PACKAGES := chromium chromium-driver python3 zbar-tools
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps test-deps build test browser-test lint format bench demo fuzz ios-typecheck clean

# Installs the Debian packages named in $(1) that are missing.
define install_missing
	@missing=""; for p in $(1); do \
		dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
endef

## Install the Debian packages the build needs, when missing.
deps:
	$(call install_missing,$(BUILD_PACKAGES))

## Also the headless browser the dashboard test drives.
test-deps: deps
	$(call install_missing,$(TEST_PACKAGES))

build: deps
	$(SWIFT) build

## Run every test (Swift Testing), then the headless-browser test of the dashboard.
test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	$(MAKE) browser-test

## Headless Chromium signs in to the dashboard and opens every page (screenshots in artifacts/browser/).
browser-test: test-deps
	$(SWIFT) build --product footprint
	python3 Tests/Browser/dashboard_test.py .build/debug/footprint

## Check formatting with the toolchain's swift-format and the checked-in .swift-format.
lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

## Release-build benchmarks; prints one table per suite.
bench: deps
	$(SWIFT) run -c release FootprintBenchmarks $(BENCH)

## The end-to-end demo: embedded server, virtual users through the real SDK, then the report.
demo: deps
	$(SWIFT) run -c release footprint demo $(DEMO_ARGS)

## libFuzzer on the request decoding (FuzzEntry), FUZZ_SECONDS per target (default 60): new
## inputs go to .build/fuzz/corpus, crash inputs to Tests/Fuzz/crashes (commit them: `make test`
## replays every one).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= ingest reports snapshots
FUZZ_FLAGS ?=
fuzz: deps
	FOOTPRINT_FUZZ=1 $(SWIFT) build -c release --scratch-path .build/fuzz --product FootprintFuzzer \
		-Xswiftc -sanitize=fuzzer -Xswiftc -use-ld=lld
	@for target in $(FUZZ_TARGETS); do \
		mkdir -p .build/fuzz/corpus/$$target Tests/Fuzz/crashes/$$target; \
		echo "fuzzing $$target for $(FUZZ_SECONDS) s"; \
		FOOTPRINT_FUZZ_TARGET=$$target SWIFT_BACKTRACE=enable=no .build/fuzz/release/FootprintFuzzer \
			.build/fuzz/corpus/$$target Tests/Fuzz/corpus/$$target \
			-artifact_prefix=Tests/Fuzz/crashes/$$target/ -max_total_time=$(FUZZ_SECONDS) \
			-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -timeout=10 -rss_limit_mb=2048 \
			-max_len=65536 -print_final_stats=1 $(FUZZ_FLAGS) || exit 1; \
	done
	@ls Tests/Fuzz/crashes/*/ | grep -E '^(crash|timeout|oom|leak)-' && \
		echo "crash inputs above: fix them, keep them in Tests/Fuzz/crashes" || echo "no crash input"

## Type-check the SDK, Examples/ and the README's iOS snippet for iOS: SDK=<path to an extracted iPhoneOS.sdk>.
ios-typecheck:
	@test -n "$(SDK)" || { echo "usage: make ios-typecheck SDK=<path to an extracted iPhoneOS.sdk>"; exit 2; }
	scripts/ios-typecheck.sh "$(SDK)"

clean:
	rm -rf .build
