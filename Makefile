# Footprint — build, test, benchmark and demo commands.
SWIFT ?= swift
BUILD_PACKAGES := libsqlite3-dev zlib1g-dev libmicrohttpd-dev pkg-config
TEST_PACKAGES := chromium chromium-driver python3
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps test-deps build test browser-test lint format bench demo ios-typecheck clean

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

## Type-check the SDK, Examples/ and the README's iOS snippet for iOS: SDK=<path to an extracted iPhoneOS.sdk>.
ios-typecheck:
	@test -n "$(SDK)" || { echo "usage: make ios-typecheck SDK=<path to an extracted iPhoneOS.sdk>"; exit 2; }
	scripts/ios-typecheck.sh "$(SDK)"

clean:
	rm -rf .build
