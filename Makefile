# UVCombine: the README's Quick start is `make demo` and `make test`.
#
# Both install libuv1-dev with apt-get when it is missing and we run as root;
# otherwise they print exactly what to install.

SWIFT ?= swift
SWIFT_TEST_FLAGS ?=

.PHONY: all build test test-debug demo deps bench bench-check clean

all: build

deps:
	@if pkg-config --exists libuv 2>/dev/null; then :; \
	elif [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
		echo "Installing libuv1-dev (pkg-config libuv not found)"; \
		(apt-get install -y -qq libuv1-dev pkg-config >/dev/null 2>&1 || \
		 (apt-get update -qq && apt-get install -y -qq libuv1-dev pkg-config)); \
	else \
		echo "libuv is missing. Install it with:"; \
		echo "    sudo apt-get install -y libuv1-dev pkg-config"; \
		exit 1; \
	fi

build: deps
	$(SWIFT) build

# Release: allocation counts and specialisation are only meaningful
# optimised; preconditions stay on in release builds.
test: deps
	$(SWIFT) test -c release $(SWIFT_TEST_FLAGS)

test-debug: deps
	$(SWIFT) test $(SWIFT_TEST_FLAGS)

demo: deps
	$(SWIFT) run -c release uvcombine demo

# Benchmarks: the nested package Benchmarks/ (docs/benchmarks.md explains the
# workloads). `make bench` runs the suite and renders docs/benchmarks.md and
# its chart from the results; `make bench-check` runs it and fails when a
# result breaks a limit committed in Benchmarks/Thresholds/. With BENCH_RUN=0
# both use the last results (Benchmarks/Results/) instead of running again.
BENCH_RUN ?= 1
BENCH_COMMAND = $(SWIFT) package --disable-sandbox benchmark --no-progress --format influx --path Results
BENCH_REPORT = python3 scripts/bench_report.py

define bench_run
	@if [ "$(BENCH_RUN)" != "0" ]; then \
		rm -rf Benchmarks/Results && mkdir -p Benchmarks/Results && \
		echo "start $$(cut -d' ' -f1-3 /proc/loadavg)" > Benchmarks/Results/loadavg && \
		echo "cd Benchmarks && $(BENCH_COMMAND)" && \
		(cd Benchmarks && $(BENCH_COMMAND)) && \
		echo "end $$(cut -d' ' -f1-3 /proc/loadavg)" >> Benchmarks/Results/loadavg; \
	fi
endef

bench: deps
	@python3 -c 'import matplotlib' 2>/dev/null || \
		{ echo "Installing matplotlib (for the chart in docs/benchmarks.md)"; python3 -m pip install --quiet matplotlib; }
	$(bench_run)
	$(BENCH_REPORT) render --command "cd Benchmarks && $(BENCH_COMMAND)"

bench-check: deps
	$(bench_run)
	$(BENCH_REPORT) check

clean:
	rm -rf .build
