# Footprint — build, test, benchmark and demo commands.
SWIFT ?= swift
BUILD_PACKAGES := libsqlite3-dev zlib1g-dev libmicrohttpd-dev libssl-dev libqrencode-dev libpq-dev pkg-config
# PostgreSQL 15: the PostgreSQL metadata store's tests start servers of their own from its binaries
# (initdb and pg_ctl, as the postgres user when run as root), in the first test run.
TEST_PACKAGES := chromium chromium-driver python3 python3-venv zbar-tools postgresql
# The local scale-out cluster (scripts/cluster.sh): two ClickHouse shards (with replicas, and
# ZooKeeper for them), collectors, HAProxy, and PostgreSQL for the collectors' metadata.
CLUSTER_PACKAGES := clickhouse-server clickhouse-client haproxy zookeeperd postgresql
# chDB, the current ClickHouse release in-process (the engine wheel alone, without its optional
# DataFrame dependencies), in a virtual environment under .build: the ClickHouse tests run the
# store's schema and report queries on it.
CHDB_PACKAGE := chdb-core==26.9.0
CHDB_VENV := .build/chdb
# Port bases and state folders (data, logs, pid files, cluster.env) of the cluster `make test`
# starts and of the one `make cluster` starts; see scripts/cluster.sh for the ports.
TEST_CLUSTER_PORT_BASE ?= 21000
TEST_CLUSTER_STATE ?= .build/test-cluster
CLUSTER_PORT_BASE ?= 23000
CLUSTER_STATE ?= .build/cluster
# make cluster's replicas of each shard (1: no ZooKeeper, plain MergeTree tables).
CLUSTER_REPLICAS ?= 2
# The suites that drive the cluster block their threads on child processes and HTTP for long
# stretches; make test runs them after the others, so they never starve the SDK's async tests
# of the few cooperative threads a 2-core machine has. Among them ClickHouseReplicaTests start
# a replicated cluster of their own per test (scripts/cluster.sh --replicas 2, with ZooKeeper),
# stopped afterwards; the others run on the shards make test starts.
CLUSTER_SUITES := ClickHouse|StoreMigration
# The cluster suites that start replicated clusters of their own (ZooKeeper and four ClickHouse
# servers each): each in a run of its own after the others, so that two such clusters never share
# the machine's cores with each other or with the other suites.
REPLICA_SUITES := ClickHouseReplicaTests ClickHouseSettlingTests
empty :=
space := $(empty) $(empty)
# The SDK's end-to-end run against the cluster (the demo on ClickHouse), on its own: it needs the
# cooperative threads the blocking suites hold, and its ClickHouse load slows the other suites'.
CLUSTER_SDK_SUITES := ClusterDemoTests
# The 10,000-connection load test holds 11,000 client sockets in the test process for its whole
# run; in a process of its own it never takes the descriptors that tests running beside it need.
ISOLATED_SUITES := HTTPLoadTests
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps test-deps cluster-deps build test browser-test lint format bench demo fuzz ios-typecheck \
	cluster cluster-stop cluster-status clean

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

## Also the headless browser the dashboard test drives, ClickHouse, HAProxy and chDB.
test-deps: deps cluster-deps
	$(call install_missing,$(TEST_PACKAGES))
	@$(CHDB_VENV)/bin/python -c 'import chdb' 2>/dev/null || { \
		echo "installing $(CHDB_PACKAGE) into $(CHDB_VENV)"; \
		python3 -m venv $(CHDB_VENV) && $(CHDB_VENV)/bin/pip install -q --no-deps '$(CHDB_PACKAGE)'; }

## ClickHouse and HAProxy from Debian, for the local cluster.
cluster-deps:
	$(call install_missing,$(CLUSTER_PACKAGES))

build: deps
	$(SWIFT) build

## Run every test (Swift Testing): first all but the cluster suites and the load test (with the
## PostgreSQL metadata store's suites, which must not skip: FOOTPRINT_REQUIRE_POSTGRES=1); then the
## load test in a process of its own; then, with the two ClickHouse
## shards running (stopped afterwards, also when a test fails), the cluster suites in a run of
## their own and the demo on the cluster in another, so their long blocking tests never hold the
## threads the other suites' tests wait on; then the headless-browser test of the dashboard.
## Each run's output is kept in .build/test-logs/; a failed run ends with a summary of why.
test: test-deps
	$(SWIFT) build --build-tests
	FOOTPRINT_REQUIRE_POSTGRES=1 SWIFT=$(SWIFT) scripts/swift-test.sh main --skip '$(CLUSTER_SUITES)|$(CLUSTER_SDK_SUITES)|$(ISOLATED_SUITES)'
	SWIFT=$(SWIFT) scripts/swift-test.sh isolated --filter '$(ISOLATED_SUITES)'
	@trap 'scripts/cluster.sh stop --state $(TEST_CLUSTER_STATE)' EXIT; trap 'exit 1' INT TERM; \
	scripts/cluster.sh start --base $(TEST_CLUSTER_PORT_BASE) --state $(TEST_CLUSTER_STATE) && \
	set -a && . $(TEST_CLUSTER_STATE)/cluster.env && set +a && \
	export FOOTPRINT_REQUIRE_CLICKHOUSE=1 FOOTPRINT_CHDB_PYTHON="$(CURDIR)/$(CHDB_VENV)/bin/python" && \
	SWIFT=$(SWIFT) scripts/swift-test.sh cluster --filter '$(CLUSTER_SUITES)' \
		--skip '$(subst $(space),|,$(REPLICA_SUITES))' && \
	for suite in $(REPLICA_SUITES); do SWIFT=$(SWIFT) scripts/swift-test.sh $$suite --filter $$suite || exit 1; done && \
	SWIFT=$(SWIFT) scripts/swift-test.sh cluster-demo --filter '$(CLUSTER_SDK_SUITES)'
	$(MAKE) browser-test

## The local scale-out cluster: PostgreSQL for the metadata, ZooKeeper, two ClickHouse shards of
## CLUSTER_REPLICAS replicas each (every server on a loopback address of its own), two collectors
## and HAProxy in front of them.
cluster: cluster-deps
	$(SWIFT) build -c release --product footprint
	scripts/cluster.sh start --base $(CLUSTER_PORT_BASE) --state $(CLUSTER_STATE) --replicas $(CLUSTER_REPLICAS) \
		--postgres --collectors 2 --haproxy --footprint .build/release/footprint
	@. $(CLUSTER_STATE)/cluster.env && echo && \
		echo "apps send to:  $$FOOTPRINT_HAPROXY_URL (write key $$FOOTPRINT_WRITE_KEY)" && \
		echo "dashboard:     $$FOOTPRINT_HAPROXY_URL/ (admin token $$FOOTPRINT_ADMIN_TOKEN)" && \
		echo "ClickHouse:    $$FOOTPRINT_CLICKHOUSE_URL" && \
		echo "PostgreSQL:    $$FOOTPRINT_POSTGRES_URL" && \
		echo "environment:   $(CLUSTER_STATE)/cluster.env" && \
		echo "stop it with:  make cluster-stop"

cluster-stop:
	scripts/cluster.sh stop --state $(CLUSTER_STATE)

cluster-status:
	scripts/cluster.sh status --state $(CLUSTER_STATE)

## Headless Chromium signs in to the dashboard and opens every page (screenshots in artifacts/browser/).
browser-test: test-deps
	$(SWIFT) build --product footprint
	python3 Tests/Browser/dashboard_test.py .build/debug/footprint

## Check formatting with the toolchain's swift-format and the checked-in .swift-format.
lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

## Release-build benchmarks; prints one table per suite. BENCH=clickhouse (only when named)
## starts two ClickHouse shards, two collectors and HAProxy (kept in BENCH_CLUSTER_STATE with
## their data between runs, stopped afterwards) and compares them with one SQLite server;
## BENCH=clickhouse-100m (only when named, never in make test) multiplies the 10M events loaded
## there to 100M inside ClickHouse and times every report once (docs/BENCHMARKS.md).
## BENCH_CLUSTER_REPLICAS=2 replicates each shard (with ZooKeeper).
BENCH_CLUSTER_PORT_BASE ?= 25000
BENCH_CLUSTER_STATE ?= .build/bench-cluster
BENCH_CLUSTER_REPLICAS ?= 1
bench: deps
ifneq ($(filter clickhouse clickhouse-100m,$(BENCH)),)
	$(MAKE) cluster-deps
	$(SWIFT) build -c release --product footprint
	$(SWIFT) build -c release --product FootprintBenchmarks
	@trap 'scripts/cluster.sh stop --state $(BENCH_CLUSTER_STATE)' EXIT; trap 'exit 1' INT TERM; \
	scripts/cluster.sh start --base $(BENCH_CLUSTER_PORT_BASE) --state $(BENCH_CLUSTER_STATE) \
		--replicas $(BENCH_CLUSTER_REPLICAS) --collectors 2 --haproxy --footprint .build/release/footprint && \
	FOOTPRINT_CLUSTER_STATE="$(abspath $(BENCH_CLUSTER_STATE))" .build/release/FootprintBenchmarks $(BENCH)
else
	$(SWIFT) run -c release FootprintBenchmarks $(BENCH)
endif

## The end-to-end demo: embedded server, virtual users through the real SDK, then the report.
demo: deps
	$(SWIFT) run -c release footprint demo $(DEMO_ARGS)

## libFuzzer on the request decoding (FuzzEntry), FUZZ_SECONDS per target (default 60): new
## inputs go to .build/fuzz/corpus, crash inputs to Tests/Fuzz/crashes (commit them: `make test`
## replays every one).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= ingest reports snapshots targets
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
