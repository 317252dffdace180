#!/usr/bin/env python3
"""Start-up of libuvcombine-c.so beside a plain C libuv program, in
instructions: the guard of issue 30's start-up goal.

Runs Examples/c-footprint's two programs (plain.c, uvc.c) under valgrind's
callgrind with FOOTPRINT_EXIT_AT=armed, so that each ends with _exit(0)
as soon as its timer is armed, and counts the instructions each ran from
exec (the dynamic loader's first instruction) to there: loading and
relocating the libraries, their initialisers, main's set-up (for uvc.c:
adopting the loop, the session, the timer, its subscription and
connection). The difference is what the library adds to start-up.

Why instructions and not wall time: on the shared 2-core machine wall
time moves by milliseconds with the load; an instruction count does not
move at all (the same binaries, the same environment: the programs run
with a fixed, minimal one). Wall time is measure.py's, for the docs.

Fails (exit status 1) when the difference is over --limit-kinstr thousand
instructions. With perf available (a software event: no hardware counters
needed) it also counts each program's page faults to the armed timer,
which move by one or two between runs, and fails when uvc.c's exceed
plain.c's by more than --limit-faults: in this VM a fault costs a few
microseconds, and the library's start-up order (order.py) keeps them
down. Without perf that check is skipped, and says so.

    Examples/c-footprint/startup.py --plain BIN --uvc BIN --library SO --limit-kinstr N --limit-faults N

`make c-startup` builds both programs and runs it; `make c-footprint` and
the C API tests (LibraryTests) run that.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Nothing listens there: both programs exit before connecting anywhere.
URL = "http://127.0.0.1:9/payload"


def environment(library_dir):
    """The programs' whole environment, the same for both: callgrind's
    count includes the loader's and libc's walks over it."""
    return {
        "FOOTPRINT_EXIT_AT": "armed",
        "LD_LIBRARY_PATH": library_dir,
        "PATH": "/usr/bin:/bin",
    }


def instructions(binary, library_dir):
    """Instructions from exec to the timer armed (callgrind's total)."""
    result = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", os.path.abspath(binary), URL],
        env=environment(library_dir), capture_output=True, text=True)
    match = re.search(r"Collected : (\d+)", result.stderr)
    if result.returncode != 0 or not match:
        sys.exit(f"startup.py: {binary} under callgrind failed (status {result.returncode}): {result.stderr[-2000:]}")
    return int(match.group(1))


def page_faults(binary, library_dir, runs=20):
    """Page faults from exec to the timer armed, mean of perf stat's runs;
    None without a working perf."""
    if shutil.which("perf") is None:
        return None
    result = subprocess.run(
        ["perf", "stat", "-x", ",", "-r", str(runs), "-e", "page-faults", os.path.abspath(binary), URL],
        env=environment(library_dir), capture_output=True, text=True)
    match = re.search(r"^([\d.]+),,page-faults", result.stderr, re.MULTILINE)
    if result.returncode != 0 or not match:
        return None
    return float(match.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plain", required=True)
    parser.add_argument("--uvc", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--limit-kinstr", type=int, required=True,
                        help="most thousands of instructions uvc may run beyond plain to its armed timer")
    parser.add_argument("--limit-faults", type=int, required=True,
                        help="most page faults uvc may take beyond plain to its armed timer (checked with perf)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("startup.py: valgrind is missing: sudo apt-get install -y valgrind")

    with tempfile.TemporaryDirectory(prefix="uvc-startup-") as library_dir:
        # A stripped copy, found first through LD_LIBRARY_PATH (uvc's
        # RUNPATH gives way to it): callgrind refuses the library's own
        # debug information ("Possibly corrupted debuginfo file").
        subprocess.run(["strip", "-o", os.path.join(library_dir, "libuvcombine-c.so"), args.library], check=True)
        plain = instructions(args.plain, library_dir)
        uvc = instructions(args.uvc, library_dir)
        plain_faults = page_faults(args.plain, library_dir)
        uvc_faults = page_faults(args.uvc, library_dir)

    gap = uvc - plain
    print(f"exec to timer armed, instructions (callgrind): plain {plain / 1e6:.3f} M, "
          f"libuvcombine-c.so {uvc / 1e6:.3f} M, difference {gap / 1e6:+.3f} M "
          f"(limit {args.limit_kinstr / 1e3:.3f} M)")
    faults = None
    if plain_faults is not None and uvc_faults is not None:
        faults = uvc_faults - plain_faults
        print(f"exec to timer armed, page faults (perf stat -r 20): plain {plain_faults:.0f}, "
              f"libuvcombine-c.so {uvc_faults:.0f}, difference {faults:+.0f} (limit {args.limit_faults})")
    else:
        print("exec to timer armed, page faults: not checked (perf stat does not run here)")
    if gap > args.limit_kinstr * 1000:
        sys.exit(f"startup.py: the library's start-up grew: {gap / 1e6:.3f} M instructions beyond the plain "
                 f"C program's to the armed timer, over the limit of {args.limit_kinstr / 1e3:.3f} M "
                 f"(README, \"Footprint\": what runs before the timer is armed)")
    if faults is not None and faults > args.limit_faults:
        sys.exit(f"startup.py: the library's start-up takes {faults:.0f} page faults beyond the plain C "
                 f"program's to the armed timer, over the limit of {args.limit_faults}: if the code moved, "
                 f"`make c-startup-order` renews the start-up order (Examples/c-footprint/order.py)")


if __name__ == "__main__":
    main()
