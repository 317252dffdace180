# UVCombine: the README's Quick start is `make demo` and `make test`.
#
# Both install libuv1-dev with apt-get when it is missing and we run as root;
# otherwise they print exactly what to install.

SWIFT ?= swift
SWIFT_TEST_FLAGS ?=

.PHONY: all build test test-debug demo deps bench bench-check clean \
	c-deps c-lib c-build c-host c-test install

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
# workloads: core operators beside OpenCombine, the loop beside bare libuv,
# HTTP beside AsyncHTTPClient against a local server on loopback, hence
# --disable-sandbox). `make bench` runs the suite and renders
# docs/benchmarks.md and its chart from the results; `make bench-check` runs
# it and fails when a result breaks a limit committed in
# Benchmarks/Thresholds/*.json. With BENCH_RUN=0 both use the last results
# (Benchmarks/Results/) instead of running again.
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

# The C API: libuvcombine-c.so and uvcombine.h for C hosts (docs in the
# header, Sources/CUVCombine/include/uvcombine.h).
#   make c-host                  builds the library and Examples/c-host with gcc, runs it
#   make c-test                  also the C API tests (Tests/CUVCombineImplementationTests/C),
#                                plain and under AddressSanitizer/LeakSanitizer
#   make install PREFIX=/usr/local   header, library and uvcombine.pc, so that
#                                `cc -std=gnu11 host.c $$(pkg-config --cflags --libs uvcombine)` works
# C_CONFIG picks the Swift build (release or debug); C_SCRATCH is its scratch
# directory. The Swift tests build in .build/c-api: they run inside
# `swift test`, which holds the lock on .build, and whose modules are
# compiled with -enable-testing (sharing .build would recompile them).
C_CONFIG ?= release
C_SCRATCH ?= .build
C_SWIFT_FLAGS ?=
C_CC ?= gcc
C_CXX ?= g++
C_CLANG ?= clang
C_CFLAGS ?= -std=gnu11 -Wall -Wextra -Werror -g
C_ASAN_FLAGS = -fsanitize=address -fno-omit-frame-pointer
C_INCLUDE = Sources/CUVCombine/include
C_LIB_DIR = $(C_SCRATCH)/$(C_CONFIG)
C_OUT = $(C_SCRATCH)/c-host/$(C_CONFIG)
C_LINK = -L$(C_LIB_DIR) -luvcombine-c -luv -lpthread -Wl,-rpath,$(abspath $(C_LIB_DIR))
C_TEST_SOURCE = Tests/CUVCombineImplementationTests/C/api_test.c
C_VERSION := $(shell awk '/^\#define UVC_VERSION_(MAJOR|MINOR|PATCH) /{v=v s $$3; s="."} END{print v}' $(C_INCLUDE)/uvcombine.h)
PREFIX ?= /usr/local
DESTDIR ?=
ASAN_RUN = ASAN_OPTIONS=detect_leaks=1:halt_on_error=1

c-deps: deps
	@command -v $(C_CC) >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
			echo "Installing gcc and g++"; apt-get install -y -qq gcc g++ >/dev/null 2>&1 || \
			(apt-get update -qq && apt-get install -y -qq gcc g++); \
		else echo "gcc is missing: sudo apt-get install -y gcc g++"; exit 1; fi; }

c-lib: c-deps
	$(SWIFT) build -c $(C_CONFIG) --scratch-path $(C_SCRATCH) --product uvcombine-c $(C_SWIFT_FLAGS)

$(C_OUT):
	mkdir -p $@

# Everything C, built but not run: the library, the example and the tests
# (plain and with AddressSanitizer), and the header compiled as C++ and by
# clang with its nullability warnings.
c-build: c-lib | $(C_OUT)
	$(C_CC) $(C_CFLAGS) -I$(C_INCLUDE) Examples/c-host/host.c -o $(C_OUT)/host $(C_LINK)
	$(C_CC) $(C_CFLAGS) $(C_ASAN_FLAGS) -I$(C_INCLUDE) Examples/c-host/host.c -o $(C_OUT)/host-asan $(C_LINK)
	$(C_CC) $(C_CFLAGS) -I$(C_INCLUDE) $(C_TEST_SOURCE) -o $(C_OUT)/api_test $(C_LINK)
	$(C_CC) $(C_CFLAGS) $(C_ASAN_FLAGS) -I$(C_INCLUDE) $(C_TEST_SOURCE) -o $(C_OUT)/api_test-asan $(C_LINK)
	echo '#include <uvcombine.h>' | $(C_CXX) -std=c++11 -Wall -Wextra -Werror -I$(C_INCLUDE) -fsyntax-only -x c++ -
	echo '#include <uvcombine.h>' | $(C_CLANG) -std=gnu11 -Wall -Wextra -Werror -Wnullability-completeness \
		-I$(C_INCLUDE) -fsyntax-only -x c -

c-host: c-lib | $(C_OUT)
	$(C_CC) $(C_CFLAGS) -I$(C_INCLUDE) Examples/c-host/host.c -o $(C_OUT)/host $(C_LINK)
	$(C_OUT)/host

c-test: c-build
	$(C_OUT)/api_test
	$(ASAN_RUN) $(C_OUT)/api_test-asan
	$(ASAN_RUN) $(C_OUT)/host-asan

install: c-lib
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 0644 $(C_INCLUDE)/uvcombine.h $(DESTDIR)$(PREFIX)/include/uvcombine.h
	install -m 0755 $(C_LIB_DIR)/libuvcombine-c.so $(DESTDIR)$(PREFIX)/lib/libuvcombine-c.so
	printf '%s\n' 'prefix=$(PREFIX)' 'exec_prefix=$${prefix}' 'libdir=$${exec_prefix}/lib' \
		'includedir=$${prefix}/include' '' 'Name: uvcombine' \
		'Description: Combine on a libuv event loop: the C API' 'Version: $(C_VERSION)' \
		'Requires: libuv' 'Libs: -L$${libdir} -luvcombine-c' 'Cflags: -I$${includedir}' \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/uvcombine.pc

clean:
	rm -rf .build
