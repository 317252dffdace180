#!/usr/bin/env python3
"""Writes the start-up symbol order of libuvcombine-c.so (issue 30).

Runs Examples/c-footprint's uvc.c up to its timer's first tick
(FOOTPRINT_EXIT_AT=tick) under valgrind's lackey, which prints every
instruction fetched and every load and store, finds the library's load
address (LD_DEBUG=files) and lists, in the order they are first touched,
the library's functions and zero-initialised variables (nm types t, T, b,
B) that start-up touches (main's set-up first, then the first tick's
path). lld's --symbol-ordering-file (the Makefile's
C_LIB_FLAGS) then lays those out first in .text and .bss, so that start-up
touches a few dense pages instead of pages spread over 7.5 MB of code and
440 kB of variables: 45 fewer page faults to the armed timer (274 -> 229,
`make c-startup`, 2026-11-29; README, "Footprint").

Initialised data is left out: the loader's relocation pass writes every
page of .data and .data.rel.ro anyway. A stale list is harmless (a symbol
that no longer exists is skipped: --no-warn-symbol-ordering) but slowly
loses its effect; `make c-startup` guards the page faults, and

    make c-startup-order

regenerates the list from the current library.

    Examples/c-footprint/order.py --uvc BIN --library SO --output FILE
"""
import argparse
import bisect
import os
import re
import subprocess
import sys
import tempfile

URL = "http://127.0.0.1:9/payload"
KINDS = ("t", "T", "b", "B")


def symbols(library):
    """(address, size, type, name) of the library's defined symbols, sorted."""
    output = subprocess.run(["nm", "-S", "--defined-only", library], capture_output=True, text=True,
                            check=True).stdout
    table = []
    for line in output.splitlines():
        parts = line.split()
        if len(parts) == 4:
            table.append((int(parts[0], 16), int(parts[1], 16), parts[2], parts[3]))
    table.sort()
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--uvc", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="uvc-order-") as scratch:
        # Without its debug information: valgrind refuses the library's.
        copy = os.path.join(scratch, "libuvcombine-c.so")
        subprocess.run(["strip", "--strip-debug", "-o", copy, args.library], check=True)
        trace = os.path.join(scratch, "trace")
        environment = {"FOOTPRINT_EXIT_AT": "tick", "LD_LIBRARY_PATH": scratch, "LD_DEBUG": "files",
                       "PATH": "/usr/bin:/bin"}
        result = subprocess.run(["valgrind", "--tool=lackey", "--trace-mem=yes", f"--log-file={trace}",
                                 os.path.abspath(args.uvc), URL], env=environment, capture_output=True, text=True)
        base = re.search(r"file=.*libuvcombine-c\.so \[0\];.*?base: 0x([0-9a-f]+)\s+size: 0x([0-9a-f]+)",
                         result.stderr, re.DOTALL)
        if result.returncode != 0 or not base:
            sys.exit(f"order.py: the traced run failed ({result.returncode}): {result.stderr[-2000:]}")
        start, size = int(base.group(1), 16), int(base.group(2), 16)

        table = symbols(args.library)
        addresses = [entry[0] for entry in table]
        seen = set()
        order = []
        access = re.compile(r"^(?:I |\s[LSM])\s+([0-9a-f]+),")
        with open(trace) as lines:
            for line in lines:
                match = access.match(line)
                if not match:
                    continue
                offset = int(match.group(1), 16) - start
                if not 0 <= offset < size:
                    continue
                index = bisect.bisect_right(addresses, offset) - 1
                if index < 0:
                    continue
                address, length, kind, name = table[index]
                if offset >= address + max(length, 1) or kind not in KINDS or name in seen:
                    continue
                seen.add(name)
                order.append(name)

    with open(args.output, "w") as output:
        output.write("\n".join(order) + "\n")
    print(f"order.py: {len(order)} symbols touched up to the first tick -> {args.output}")


if __name__ == "__main__":
    main()
