# UVCombine: the README's Quick start is `make demo` and `make test`.
#
# Both install libuv1-dev, libssl-dev (OpenSSL 3, for https), zlib1g-dev
# (gzip and deflate response bodies), libnghttp2-dev (HTTP/2), and the
# openssl command line (the TLS tests make their certificates with it), with
# apt-get when they are missing and we run as root; otherwise they print
# exactly what to install.

SWIFT ?= swift
SWIFT_TEST_FLAGS ?=

.PHONY: all build test test-debug demo deps bench bench-check clean \
	c-deps c-lib c-lib-size c-build c-host c-test c-footprint install docs \
	fuzz-build fuzz fuzz-smoke tsan asan check-dependent interop-servers test-traits

all: build

deps:
	@if pkg-config --exists libuv openssl zlib libnghttp2 2>/dev/null && command -v openssl >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
		echo "Installing libuv1-dev, libssl-dev, zlib1g-dev, libnghttp2-dev and openssl (pkg-config libuv, openssl, zlib or libnghttp2, or the openssl tool, not found)"; \
		(apt-get install -y -qq libuv1-dev libssl-dev zlib1g-dev libnghttp2-dev openssl pkg-config >/dev/null 2>&1 || \
		 (apt-get update -qq && apt-get install -y -qq libuv1-dev libssl-dev zlib1g-dev libnghttp2-dev openssl pkg-config)); \
	else \
		echo "libuv, OpenSSL, zlib or libnghttp2 is missing. Install them with:"; \
		echo "    sudo apt-get install -y libuv1-dev libssl-dev zlib1g-dev libnghttp2-dev openssl pkg-config"; \
		exit 1; \
	fi

build: deps
	$(SWIFT) build

# Release: allocation counts and specialisation are only meaningful
# optimised; preconditions stay on in release builds.
test: deps interop-servers
	$(INTEROP_ENV) $(SWIFT) test -c release $(SWIFT_TEST_FLAGS)

test-debug: deps interop-servers
	$(INTEROP_ENV) $(SWIFT) test $(SWIFT_TEST_FLAGS)

# The optional integrations, off by default, each behind a package trait
# (Package.swift): OpenAPI (UVCombineOpenAPI) and Logging (the session's
# swift-log lines). Built with every trait on, in a scratch directory of
# its own (switching a trait rebuilds every target of the package), and
# only the suites the traits gate run: the default build's suites do not
# change with them. A first build is a full debug build of the package
# and its tests; later ones are incremental.
TRAITS ?= OpenAPI,Logging
TRAITS_SCRATCH ?= .build-traits
TRAIT_SUITES ?= UVCombineOpenAPITests|UVCombineLoggingTests

test-traits: deps
	$(SWIFT) test --traits $(TRAITS) --scratch-path $(TRAITS_SCRATCH) --filter '$(TRAIT_SUITES)' $(SWIFT_TEST_FLAGS)

# WebSocket servers nobody here wrote that need a build: the
# hummingbird-websocket 2.8.1 echo server, a test-only nested package
# (Tests/Interop/HummingbirdWebSocketServer; SwiftNIO and Hummingbird never
# reach the main package). Its path reaches UVCombineWebSocketTests and the
# WebSocket benchmarks in UVCOMBINE_HUMMINGBIRD_WS_SERVER. A first build
# takes 5-10 minutes on the shared 2-core machine; later ones are no-ops.
INTEROP_SCRATCH ?= .build-interop
HUMMINGBIRD_WS_SERVER = $(abspath $(INTEROP_SCRATCH))/release/HummingbirdEchoServer
INTEROP_ENV = UVCOMBINE_HUMMINGBIRD_WS_SERVER=$(HUMMINGBIRD_WS_SERVER)

interop-servers: deps
	$(SWIFT) build -c release --package-path Tests/Interop/HummingbirdWebSocketServer --scratch-path $(INTEROP_SCRATCH)

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
		(cd Benchmarks && $(INTEROP_ENV) $(BENCH_COMMAND)) && \
		echo "end $$(cut -d' ' -f1-3 /proc/loadavg)" >> Benchmarks/Results/loadavg; \
	fi
endef

bench: deps interop-servers
	@python3 -c 'import matplotlib' 2>/dev/null || \
		{ echo "Installing matplotlib (for the chart in docs/benchmarks.md)"; python3 -m pip install --quiet matplotlib; }
	$(bench_run)
	$(BENCH_REPORT) render --command "cd Benchmarks && $(BENCH_COMMAND)"

bench-check: deps interop-servers
	$(bench_run)
	$(BENCH_REPORT) check

# The C API: libuvcombine-c.so and uvcombine.h for C hosts (docs in the
# header, Sources/CUVCombine/include/uvcombine.h).
#   make c-host                  builds the library and Examples/c-host with gcc, runs it next to
#                                a local HTTP server (Examples/c-host/run-with-server.sh: python3)
#   make c-test                  also the C API tests (Tests/CUVCombineImplementationTests/C),
#                                plain and under AddressSanitizer/LeakSanitizer
#   make install PREFIX=/usr/local   header, library and uvcombine.pc, so that
#                                `cc -std=gnu11 host.c $$(pkg-config --cflags --libs uvcombine)` works
# C_CONFIG picks the Swift build (release or debug); C_SCRATCH is its scratch
# directory, apart from .build because the library's link flags (C_LIB_FLAGS)
# would otherwise rebuild every module that `swift build` had built. The Swift tests build in .build/c-api: they run inside
# `swift test`, which holds the lock on .build, and whose modules are
# compiled with -enable-testing (sharing .build would recompile them).
C_CONFIG ?= release
C_SCRATCH ?= .build/c-lib
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
C_TEST_SOURCE = Tests/CUVCombineImplementationTests/C/api_test.c Tests/CUVCombineImplementationTests/C/test_http_server.c
C_WITH_SERVER = Examples/c-host/run-with-server.sh
# api_test's websocket case: python's websockets echo server in UVC_TEST_WS_URL.
C_WITH_WS_SERVER = Tests/CUVCombineImplementationTests/C/run-with-ws-server.sh
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

# The library carries the Swift runtime inside (-static-stdlib, which a
# dynamic library product does not get from --static-swift-stdlib; no
# Foundation archive: the C API's modules import none) and exports
# only the header's uvc_ functions (uvcombine.map). These flags are given
# here rather than in Package.swift: SwiftPM refuses unsafe flags in a
# package that others depend on. `--product` builds one link, so they reach
# only libuvcombine-c.so.
#
# Size (issue 30; README, "Footprint"): linked by lld with identical code
# folding (--icf=all) and packed relative relocations (DT_RELR: the Swift
# metadata's pointers make most of the relocations; glibc 2.36 or later
# loads them, Debian 12 has 2.36). Against gold's defaults, 1.4 MB less
# stripped (16.9 -> 15.5 MB).
C_LIB_FLAGS = -Xswiftc -static-stdlib \
	-Xlinker -soname=libuvcombine-c.so \
	-Xlinker --version-script=$(abspath Sources/CUVCombineImplementation/uvcombine.map) \
	-Xswiftc -use-ld=lld -Xlinker --icf=all -Xlinker -z -Xlinker pack-relative-relocs

# A throw-away package that depends on this one by path and uses every
# product a dependent can link (CI runs it): SwiftPM refuses a dependency
# whose products carry unsafe flags.
check-dependent: c-deps
	scripts/check_dependent_package.sh

c-lib: c-deps
	$(SWIFT) build -c $(C_CONFIG) --scratch-path $(C_SCRATCH) --product uvcombine-c $(C_LIB_FLAGS) $(C_SWIFT_FLAGS)

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

# The stripped library's size limit (issue 30). Measured: 61 MB while
# Foundation (with ICU's tables) was linked in; 15.8 MB while the WebSocket
# functions ran on UVCombineWebSocket's URL/Data task (FoundationEssentials);
# 10.8 MB now that they drive UVCombineWebSocketClient's byte task and the
# library links no Foundation module at all. Floors on the same machine
# and flags: 5.6 MB for the Swift runtime alone, 12.5 MB with
# FoundationEssentials (README, "Footprint", says what the rest is). The
# limit is the measured size plus about 3%, so FoundationEssentials coming
# back (about +5 MB) or a Foundation import (about +45 MB) fails it at once.
# `make c-lib-size` prints the size and fails above the limit; the C API
# tests run it (Tests/CUVCombineImplementationTests/LibraryTests.swift), so
# `make test` fails when the library grows past it. The limit is for the
# release build; a debug library is larger.
C_LIB_STRIPPED_LIMIT_KB ?= 11100

c-lib-size: c-lib
	@strip -o $(C_LIB_DIR)/libuvcombine-c.stripped.so $(C_LIB_DIR)/libuvcombine-c.so
	@size=$$(($$(stat -c %s $(C_LIB_DIR)/libuvcombine-c.stripped.so) / 1000)); \
	echo "libuvcombine-c.so: $$(($$(stat -c %s $(C_LIB_DIR)/libuvcombine-c.so) / 1000)) kB, $$size kB stripped (limit $(C_LIB_STRIPPED_LIMIT_KB) kB)"; \
	rm -f $(C_LIB_DIR)/libuvcombine-c.stripped.so; \
	if [ $$size -gt $(C_LIB_STRIPPED_LIMIT_KB) ]; then \
		echo "c-lib-size: the stripped library is over its limit: did a Foundation import reach the C API's modules?"; exit 1; \
	fi

# Footprint (issue 30): Examples/c-footprint's plain C libuv program and the
# same work through libuvcombine-c.so (a 1 ms timer, then 64 fetches at once
# from a local python3 http.server), each run C_FOOTPRINT_RUNS times, and the
# `uvcombine` executable's size and start-up; prints the table that README.md
# and docs/benchmarks.md ("Footprint") carry.
C_FOOTPRINT_OUT = $(C_SCRATCH)/c-footprint/$(C_CONFIG)
C_FOOTPRINT_RUNS ?= 15
# The tool as `make demo` builds it (`swift build -c release`; after `make
# test`, which builds .build/release with -enable-testing, that recompiles).

c-footprint: c-lib
	mkdir -p $(C_FOOTPRINT_OUT)
	$(C_CC) -std=gnu11 -Wall -Wextra -Werror -O2 Examples/c-footprint/plain.c -o $(C_FOOTPRINT_OUT)/plain -luv
	$(C_CC) -std=gnu11 -Wall -Wextra -Werror -O2 -I$(C_INCLUDE) Examples/c-footprint/uvc.c -o $(C_FOOTPRINT_OUT)/uvc $(C_LINK)
	$(SWIFT) build -c release --product uvcombine
	python3 Examples/c-footprint/measure.py --runs $(C_FOOTPRINT_RUNS) --plain $(C_FOOTPRINT_OUT)/plain \
		--uvc $(C_FOOTPRINT_OUT)/uvc --library $(C_LIB_DIR)/libuvcombine-c.so \
		--tool .build/release/uvcombine

c-host: c-lib | $(C_OUT)
	$(C_CC) $(C_CFLAGS) -I$(C_INCLUDE) Examples/c-host/host.c -o $(C_OUT)/host $(C_LINK)
	$(C_WITH_SERVER) $(C_OUT)/host

c-test: c-build
	$(C_WITH_WS_SERVER) $(C_OUT)/api_test
	$(ASAN_RUN) $(C_WITH_WS_SERVER) $(C_OUT)/api_test-asan
	$(ASAN_RUN) $(C_WITH_SERVER) $(C_OUT)/host-asan

install: c-lib
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 0644 $(C_INCLUDE)/uvcombine.h $(DESTDIR)$(PREFIX)/include/uvcombine.h
	install -m 0755 $(C_LIB_DIR)/libuvcombine-c.so $(DESTDIR)$(PREFIX)/lib/libuvcombine-c.so
	printf '%s\n' 'prefix=$(PREFIX)' 'exec_prefix=$${prefix}' 'libdir=$${exec_prefix}/lib' \
		'includedir=$${prefix}/include' '' 'Name: uvcombine' \
		'Description: Combine on a libuv event loop: the C API' 'Version: $(C_VERSION)' \
		'Requires: libuv' 'Requires.private: openssl zlib' 'Libs: -L$${libdir} -luvcombine-c' 'Cflags: -I$${includedir}' \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/uvcombine.pc

# Documentation: the DocC catalog Sources/UVCombine/UVCombine.docc and the
# modules UVCombine re-exports. DocC (as swift-docc-plugin 1.5.0 runs it)
# documents only what a module declares itself, and the umbrella declares
# nothing, so the modules are built together as one combined archive
# (--enable-experimental-combined-documentation), and the catalog links to
# their symbols by absolute paths (``/UVCombineLoop/UVLoop``), as must doc
# comments that link across modules. The build fails on any DocC warning
# (--warnings-as-errors; the log is checked too, since the plugin ignores a
# failing `docc merge`) and on any public symbol without a doc comment
# (scripts/check_doc_comments.py).
# View it with
#   python3 -m http.server -d .build/documentation/UVCombine.doccarchive 8000
# and open http://localhost:8000/documentation/uvcombine
DOCS_TARGETS = UVCombineCore UVCombineDispatch UVCombineFoundation UVCombineLoop UVCombineLoopFoundation \
	UVCombineHTTP UVCombineTesting UVCombine
DOCS_OUTPUT ?= .build/documentation/UVCombine.doccarchive
DOCS_LOG = .build/documentation/docs.log

docs: deps
	python3 scripts/check_doc_comments.py --examples
	@mkdir -p $(dir $(DOCS_OUTPUT))
	@echo "$(SWIFT) package generate-documentation (log: $(DOCS_LOG))"
	@status=0; $(SWIFT) package --disable-sandbox generate-documentation \
		--enable-experimental-combined-documentation \
		$(foreach target,$(DOCS_TARGETS),--target $(target)) \
		--output-path $(DOCS_OUTPUT) --warnings-as-errors \
		> $(DOCS_LOG) 2>&1 || status=$$?; \
	grep -v '^\[[0-9]*/[0-9]*\]' $(DOCS_LOG); \
	if [ $$status -ne 0 ]; then echo "make docs: failed (exit $$status)"; exit 1; fi; \
	if grep -qiE '^(error|warning):' $(DOCS_LOG) || [ ! -f $(DOCS_OUTPUT)/index.html ]; then \
		echo "make docs: DocC reported problems (above)"; exit 1; fi; \
	echo "make docs: no warnings; open $(DOCS_OUTPUT)"

# Fuzzing: libFuzzer targets for the HTTP core in the nested package Fuzz/,
# built with -sanitize=fuzzer,address in their own scratch directory (the
# main package's builds never see the flags). docs/reliability.md lists the
# targets, the properties each checks and the executions reached.
#   make fuzz                  every target for FUZZ_SECONDS (default 300)
#   make fuzz-smoke            every target for 30 seconds (CI)
#   make fuzz FUZZ_TARGETS=ChunkedDecoderFuzzer FUZZ_SECONDS=3600
#   make fuzz FUZZ_RUNS=10000000 FUZZ_SECONDS=20000   (stops at 10M executions)
# A finding stops the target, saves the input in .build-fuzz/artifacts/ and
# fails the make; replay it with `.build-fuzz/release/<target> <file>`.
FUZZ_SECONDS ?= 300
FUZZ_SMOKE_SECONDS ?= 30
FUZZ_TARGETS ?= ResponseParserFuzzer ChunkedDecoderFuzzer RequestValidationFuzzer RequestWriterFuzzer \
	WebSocketFrameFuzzer WebSocketInflateFuzzer
FUZZ_SCRATCH ?= .build-fuzz
FUZZ_RUNS ?=

fuzz-build: deps
	$(SWIFT) build -c release --package-path Fuzz --scratch-path $(FUZZ_SCRATCH) -Xswiftc -sanitize=fuzzer,address

fuzz: fuzz-build
	FUZZ_SCRATCH=$(FUZZ_SCRATCH) FUZZ_RUNS=$(FUZZ_RUNS) Fuzz/Scripts/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-smoke: fuzz-build
	FUZZ_SCRATCH=$(FUZZ_SCRATCH) Fuzz/Scripts/run.sh $(FUZZ_SMOKE_SECONDS) $(FUZZ_TARGETS)

# Sanitizers (docs/reliability.md): the test suites in debug builds with
# ThreadSanitizer or AddressSanitizer + LeakSanitizer, each in its own
# scratch directory. Under either, the malloc interposer of the test support
# module is compiled out (the sanitizer owns malloc; allocation tests are
# disabled) and UVC_SANITIZER tells the tests which sanitizer runs. Skipped:
# the two tests that bound wall-clock time (100,000 timers in 20 s; a TLS
# handshake against a 1 s connect timeout), which a sanitizer's 5-15x
# slowdown breaks without any bug.
#   make tsan   Core, Loop, HTTP and test-support suites: every thread test
#               (concurrent send, cancel during delivery, schedule from many
#               threads, receive(on:), data tasks from background threads);
#               fails on any ThreadSanitizer report
#   make asan   Loop, HTTP and test-support suites with leak checking, the
#               Core suites without (many Core tests leave a subscription
#               open, and an open subscription and its subscriber hold each
#               other, as in Combine), then the C API tests and the C host
#               example against libuvcombine-c.so, all built with
#               AddressSanitizer; fails on any error or leak. Leaks inside
#               the toolchain's XCTest and Foundation.Process are suppressed
#               (scripts/lsan-suppressions.txt)
# SANITIZER_TESTS narrows a run: make tsan SANITIZER_TESTS=SubjectTests
TSAN_SCRATCH ?= .build-tsan
ASAN_SCRATCH ?= .build-asan
TSAN_TESTS = UVCombineCoreTests|UVCombineLoopTests|UVCombineHTTPTests|UVCombineTestingTests
ASAN_TESTS = UVCombineLoopTests|UVCombineHTTPTests|UVCombineTestingTests
ASAN_CORE_TESTS = UVCombineCoreTests
SANITIZER_SKIP = aHundredThousandTimers|handshakeTimeout
TSAN_RUN = UVC_SANITIZER=thread TSAN_OPTIONS=halt_on_error=0:second_deadlock_stack=1
ASAN_TEST_RUN = UVC_SANITIZER=address ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1 \
	LSAN_OPTIONS=suppressions=$(abspath scripts/lsan-suppressions.txt)
ASAN_C_SCRATCH = $(ASAN_SCRATCH)/c-lib
ASAN_C_LIB_DIR = $(ASAN_C_SCRATCH)/debug
ASAN_C_OUT = $(ASAN_C_SCRATCH)/c-host
ASAN_C_LINK = -L$(ASAN_C_LIB_DIR) -luvcombine-c -luv -lpthread -Wl,-rpath,$(abspath $(ASAN_C_LIB_DIR))

tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path $(TSAN_SCRATCH)
	$(TSAN_RUN) $(SWIFT) test --skip-build --sanitize=thread --scratch-path $(TSAN_SCRATCH) \
		--filter '$(or $(SANITIZER_TESTS),$(TSAN_TESTS))' --skip '$(SANITIZER_SKIP)'

# The C programs are built by clang, whose AddressSanitizer runtime is the
# one the Swift library was instrumented for (gcc's libasan is another), and
# linked by lld (gold warns about every ASan assembly symbol).
asan: deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path $(ASAN_SCRATCH)
	$(ASAN_TEST_RUN) $(SWIFT) test --skip-build --sanitize=address --scratch-path $(ASAN_SCRATCH) \
		--filter '$(or $(SANITIZER_TESTS),$(ASAN_TESTS))' --skip '$(SANITIZER_SKIP)'
	$(ASAN_TEST_RUN) ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:detect_stack_use_after_return=1 \
		$(SWIFT) test --skip-build --sanitize=address --scratch-path $(ASAN_SCRATCH) --filter '$(ASAN_CORE_TESTS)'
	$(SWIFT) build --scratch-path $(ASAN_C_SCRATCH) --product uvcombine-c --sanitize=address $(C_LIB_FLAGS)
	mkdir -p $(ASAN_C_OUT)
	$(C_CLANG) -fuse-ld=lld $(C_CFLAGS) $(C_ASAN_FLAGS) -I$(C_INCLUDE) $(C_TEST_SOURCE) -o $(ASAN_C_OUT)/api_test $(ASAN_C_LINK)
	$(C_CLANG) -fuse-ld=lld $(C_CFLAGS) $(C_ASAN_FLAGS) -I$(C_INCLUDE) Examples/c-host/host.c -o $(ASAN_C_OUT)/host $(ASAN_C_LINK)
	$(ASAN_RUN) $(ASAN_C_OUT)/api_test
	$(ASAN_RUN) $(C_WITH_SERVER) $(ASAN_C_OUT)/host

clean:
	rm -rf .build
