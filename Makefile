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
	$(SWIFT) build
	@echo "The demo executable arrives with the demo issue; the examples so far run as tests:"
	$(SWIFT) test --filter Seed

clean:
	rm -rf .build
