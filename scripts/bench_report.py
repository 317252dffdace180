#!/usr/bin/env python3
"""Reads UVCombine's benchmark results, renders them, and checks them.

The benchmark package (Benchmarks/) exports its results with
`swift package benchmark --format influx`: one CSV row per benchmark, metric
and percentile, with raw values (nanoseconds for times, plain counts for
mallocs) for one whole iteration. Every benchmark also records an `elements`
metric: how many elements (deliveries, pipelines) its measured region
handled. This script divides by it, so every figure below is per element.

Times are the measuring thread's CPU time (`threadCPUTime`): on a machine
shared with other work the wall clock also counts waiting for a core. The
wall clock is reported beside it.

    bench_report.py render --results R.csv --command CMD --markdown OUT.md --chart OUT.png
        Writes the results table, the targets and the fan-out chart.
    bench_report.py check --results R.csv --thresholds Benchmarks/Thresholds
        Exits 1 when a result breaks a committed limit, or when the
        UVCombine and OpenCombine workloads stop being the same code.

Only the standard library is needed, except matplotlib for the chart.
"""

import argparse
import csv
import datetime
import json
import os
import platform
import re
import subprocess
import sys
from dataclasses import dataclass, field

UV = "UVCombineBenchmarks"
OC = "OpenCombineBenchmarks"
LB = "LowerBoundBenchmarks"
LOOP = "LoopBenchmarks"
HTTP = "HTTPBenchmarks"
NGINX = "NginxBenchmarks"
LIBRARY_NAMES = {UV: "UVCombine", OC: "OpenCombine 0.14", LB: "lower bound"}

TIME = "threadCPUTime"
PROCESS = "processCPUTime"
CLIENT = "clientCPUTime"
SERVER = "serverCPUTime"
WALL = "Time(wallclock)"
MALLOCS = "Malloc(total)"
ELEMENTS = "elements"

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIRRORED = (os.path.join(REPO, "Benchmarks", "Benchmarks", UV), os.path.join(REPO, "Benchmarks", "Benchmarks", OC))


# ---------------------------------------------------------------- results

@dataclass
class Result:
    """One benchmark of one executable, normalised per element."""
    target: str
    name: str
    iterations: int
    # percentile (0, 25, 50, 75, 90, 99, 100) -> raw value for one iteration
    raw: dict = field(default_factory=dict)

    @property
    def elements(self):
        return self.raw[ELEMENTS][50.0]

    def per_element(self, metric, percentile):
        return self.raw[metric][percentile] / self.elements

    @property
    def ns(self):
        """Median nanoseconds per element."""
        return self.per_element(TIME, 50.0)

    @property
    def ns_spread(self):
        """Interquartile range of nanoseconds per element."""
        return self.per_element(TIME, 25.0), self.per_element(TIME, 75.0)

    @property
    def wall_ns(self):
        """Median wall-clock nanoseconds per element."""
        return self.per_element(WALL, 50.0)

    def median(self, metric):
        """Median of `metric` per element; None when not recorded."""
        if metric not in self.raw:
            return None
        return self.per_element(metric, 50.0)

    def spread(self, metric):
        """Interquartile range of `metric` per element."""
        return self.per_element(metric, 25.0), self.per_element(metric, 75.0)

    @property
    def mallocs(self):
        """Mallocs per element in the worst measured iteration."""
        return self.per_element(MALLOCS, 100.0)

    @property
    def mallocs_per_iteration(self):
        return self.raw[MALLOCS][100.0]


@dataclass
class Run:
    results: dict  # (target, name) -> Result
    machine: dict
    time: str

    def get(self, target, name):
        return self.results.get((target, name))

    def names(self, target):
        return sorted(name for (t, name) in self.results if t == target)


def read_results(path):
    results = {}
    machine = {}
    time = ""
    with open(path, newline="") as f:
        rows = [line for line in f if not line.startswith("#")]
    for row in csv.DictReader(rows):
        key = (row["measurement"], row["test"])
        result = results.get(key)
        if result is None:
            result = results[key] = Result(target=key[0], name=key[1], iterations=int(row["iterations"]))
        result.raw.setdefault(row["metric"], {})[float(row["percentile"])] = int(row["value"])
        machine = {
            "host": row["hostName"],
            "processors": row["processors"],
            "memory": row["memory"],
            "kernel": row["kernelVersion"],
        }
        time = max(time, row["time"])
    for result in results.values():
        for metric in (TIME, WALL, MALLOCS, ELEMENTS):
            if metric not in result.raw:
                sys.exit(f"{path}: {result.target}:{result.name} has no '{metric}' metric")
    return Run(results=results, machine=machine, time=time)


# ---------------------------------------------------------------- mirror

def mirror_problems():
    """The two library targets must hold the same files with the same text,
    except for the library's name."""
    uv_dir, oc_dir = MIRRORED
    problems = []
    uv_files = sorted(f for f in os.listdir(uv_dir) if f.endswith(".swift"))
    oc_files = sorted(f for f in os.listdir(oc_dir) if f.endswith(".swift"))
    if uv_files != oc_files:
        problems.append(f"files differ: {UV} has {uv_files}, {OC} has {oc_files}")
    for name in sorted(set(uv_files) & set(oc_files)):
        with open(os.path.join(uv_dir, name)) as f:
            expected = f.read().replace("UVCombine", "OpenCombine")
        with open(os.path.join(oc_dir, name)) as f:
            actual = f.read()
        if expected != actual:
            problems.append(f"{OC}/{name} is not {UV}/{name} with the library's name changed")
    return problems


# ---------------------------------------------------------------- checks

@dataclass
class Outcome:
    check: dict
    measured: float  # None when the results lack a benchmark
    passed: bool
    target_met: bool


METRICS = {"cpu": TIME, "wall": WALL, "client": CLIENT, "process": PROCESS}


def evaluate(check, run):
    """Measures one threshold entry. Kinds:
    mallocsPerElement  mallocs per element (worst iteration) <= limit; with
                       `perIteration`, per iteration (e.g. one request)
    speedup            the baseline's median / the benchmark's median >= limit
    lowerBoundGap      the benchmark's median / the lower bound's median <= limit
    `executable` names the benchmark's executable (default UVCombineBenchmarks).
    For speedup the baseline is `baseline` in the same executable, or the
    same name in OpenCombineBenchmarks; for lowerBoundGap the lower bound is
    `lowerBound` in `lowerBoundExecutable` (default LowerBoundBenchmarks).
    With `skipWithoutResults`, a check whose executable has no results at
    all (NginxBenchmarks registers nothing without nginx) passes as skipped.
    `metric` picks the median compared: cpu (the measuring thread's CPU
    time, the default), wall, client (HTTP: the process's CPU time less the
    server's) or process.
    """
    kind = check["kind"]
    name = check["benchmark"]
    executable = check.get("executable", UV)
    subject = run.get(executable, name)
    if check.get("skipWithoutResults") and not run.names(executable):
        # The executable registered nothing (NginxBenchmarks without nginx).
        return Outcome(check, None, True, False)
    metric = METRICS[check.get("metric", "cpu")]

    def median(result):
        return result.median(metric) if result else None

    if kind == "mallocsPerElement":
        if subject is None:
            value = None
        elif check.get("perIteration"):
            value = subject.mallocs_per_iteration
        else:
            value = subject.mallocs
        better = lambda v, bound: v <= bound
    elif kind == "speedup":
        if "baseline" in check:
            base = run.get(executable, check["baseline"])
        else:
            base = run.get(OC, name)
        value = median(base) / median(subject) if median(base) and median(subject) else None
        better = lambda v, bound: v >= bound
    elif kind == "lowerBoundGap":
        bound = run.get(check.get("lowerBoundExecutable", LB), check["lowerBound"])
        value = median(subject) / median(bound) if median(subject) and median(bound) else None
        better = lambda v, bound: v <= bound
    else:
        sys.exit(f"unknown check kind '{kind}' in {check}")
    if value is None:
        return Outcome(check, None, False, False)
    target = check["target"]
    target_met = target is not None and better(value, target)
    return Outcome(check, value, better(value, check["limit"]), target_met)


def load_thresholds(path):
    """The checks of one thresholds file, or of every `*.json` in a folder."""
    if os.path.isdir(path):
        files = sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".json"))
    else:
        files = [path]
    checks = []
    for file in files:
        with open(file) as f:
            data = json.load(f)
        for check in data["checks"]:
            for key in ("kind", "benchmark", "target", "limit"):
                if key not in check:
                    sys.exit(f"{file}: a check lacks '{key}': {check}")
            checks.append(check)
    return checks


METRIC_WORDS = {"cpu": "", "wall": " (wall clock)", "client": " (client CPU)", "process": " (process CPU)"}


def describe_check(check):
    kind = check["kind"]
    name = check["benchmark"]
    words = METRIC_WORDS[check.get("metric", "cpu")]
    if kind == "mallocsPerElement":
        unit = check.get("unit", "pipeline" if name.startswith("Subscribe.") else "element")
        return f"`{name}`: mallocs per {unit}", "≤"
    if kind == "speedup":
        baseline = f"`{check['baseline']}`" if "baseline" in check else "OpenCombine"
        return f"`{name}`: times faster than {baseline}{words}", "≥"
    bound = f"`{check['lowerBound']}`" if "lowerBoundExecutable" in check else "the lower bound"
    return f"`{name}`: times {bound}{words}", "≤"


def format_value(check, value):
    if value is None:
        return "—"
    if check["kind"] == "mallocsPerElement":
        return f"{value:.6g}"
    return f"{value:.2f}×"


def command_check(args):
    run = read_results(args.results)
    failures = []
    for problem in mirror_problems():
        failures.append(problem)
        print(f"FAIL  mirror: {problem}")
    for check in load_thresholds(args.thresholds):
        outcome = evaluate(check, run)
        what, relation = describe_check(check)
        what = what.replace("`", "")
        measured = format_value(check, outcome.measured) if outcome.measured is not None else "missing from the results"
        status = "ok  " if outcome.passed else "FAIL"
        if outcome.passed and outcome.measured is None:
            print(f"skip  {what}: no {check['executable']} results (skipWithoutResults)")
            continue
        if check["target"] is None:
            note = " (a guard against regressions; no target set)"
        elif outcome.target_met:
            note = ""
        else:
            note = f" (target {relation} {format_value(check, check['target'])} not reached yet)"
        print(f"{status}  {what}: {measured}, limit {relation} {format_value(check, check['limit'])}{note}")
        if not outcome.passed:
            failures.append(what)
    # Every core workload that both libraries run is guarded as a ratio to
    # OpenCombine's in the same run (issue 32: a 2.5x regression of the
    # one-subscriber send passed every check because only some were).
    guarded = {c["benchmark"] for c in load_thresholds(args.thresholds)
               if c["kind"] == "speedup" and c.get("executable", UV) == UV}
    for name in sorted(set(run.names(UV)) & set(run.names(OC))):
        if name not in guarded:
            failures.append(f"{name}: no speedup check")
            print(f"FAIL  {name}: no speedup check against OpenCombine in Benchmarks/Thresholds")
    if failures:
        print(f"\n{len(failures)} benchmark check(s) failed; see docs/benchmarks.md for what each limit means.")
        return 1
    print("\nAll benchmark checks passed.")
    return 0


# ---------------------------------------------------------------- render

SECTIONS = [
    ("Fan-out", "FanOut.", "ns per delivered element (value × subscriber)", "element"),
    ("Chains", "Chain.", "ns per value", "element"),
    ("Subscription cost", "Subscribe.", "ns per pipeline (build, subscribe, receive if any, cancel)", "pipeline"),
    ("Operators on shared engines", "Operator.", "ns per value", "element"),
]


def fmt_ns(value):
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def fmt_time(result):
    if result is None:
        return "—"
    low, high = result.ns_spread
    return f"{fmt_ns(result.ns)} ({fmt_ns(low)}–{fmt_ns(high)})"


def fmt_mallocs(result):
    if result is None:
        return "—"
    value = result.mallocs
    return "0" if value == 0 else f"{value:.3g}"


def lower_bound_for(name):
    match = re.match(r"FanOut\.\w+\.(N\d+)$", name)
    return f"FanOut.lowerBound.{match.group(1)}" if match else None


def toolchain():
    try:
        out = subprocess.run(["swift", "--version"], capture_output=True, text=True, check=True)
        return out.stdout.strip().splitlines()[0]
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_average(results_path):
    """The load averages `make bench` wrote beside the results: other work
    on the machine shows in the wall clock, much less in CPU time."""
    path = os.path.join(os.path.dirname(results_path), "loadavg")
    try:
        with open(path) as f:
            loads = dict(line.split(" ", 1) for line in f.read().splitlines() if " " in line)
    except OSError:
        return "load average not recorded"
    parts = [f"{loads[k].split()[0]} at the {k}" for k in ("start", "end") if k in loads]
    return "load average (1 min) " + ", ".join(parts) + " of the run"


# Rows in the order the workloads are introduced in docs/benchmarks.md.
ORDER = ["FanOut.share.", "FanOut.makeConnectable.", "FanOut.multicast.", "FanOut.lowerBound.",
         "FanOut.swiftClosures.", "Chain.subject.sink", "Chain.subject.map", "Chain.sequence.",
         "Subscribe.just.", "Subscribe.subject.share."]


def natural_key(name):
    rank = next((i for i, prefix in enumerate(ORDER) if name.startswith(prefix)), len(ORDER))
    return [rank] + [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def results_table(run):
    lines = []
    names = sorted(set(run.names(UV)) | set(run.names(OC)), key=natural_key)
    for title, prefix, unit, _ in SECTIONS:
        rows = [n for n in names if n.startswith(prefix)]
        hand_written = [n for n in run.names(LB) if n.startswith(prefix)]
        if not rows and not hand_written:
            continue
        lines.append(f"### {title}: {unit}\n")
        if rows:
            lines.append("| workload | UVCombine | OpenCombine | UVCombine faster by | UVCombine / lower bound | "
                         "UVCombine mallocs | OpenCombine mallocs | wall clock UVCombine / OpenCombine |")
            lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
            for name in rows:
                uv, oc = run.get(UV, name), run.get(OC, name)
                lb_name = lower_bound_for(name)
                lb = run.get(LB, lb_name) if lb_name else None
                ratio = f"{oc.ns / uv.ns:.1f}×" if uv and oc else "—"
                lb_text = f"{uv.ns / lb.ns:.1f}×" if lb and uv else "—"
                wall = " / ".join(fmt_ns(r.wall_ns) if r else "—" for r in (uv, oc))
                lines.append(f"| `{name}` | {fmt_time(uv)} | {fmt_time(oc)} | {ratio} | {lb_text} | "
                             f"{fmt_mallocs(uv)} | {fmt_mallocs(oc)} | {wall} |")
            lines.append("")
        if hand_written:
            lines.append(f"Hand-written ({LB}), {unit}:\n")
            lines.append("| workload | CPU time | mallocs | wall clock |")
            lines.append("| --- | ---: | ---: | ---: |")
            for name in sorted(hand_written, key=natural_key):
                lb = run.get(LB, name)
                lines.append(f"| `{name}` | {fmt_time(lb)} | {fmt_mallocs(lb)} | {fmt_ns(lb.wall_ns)} |")
            lines.append("")
    return "\n".join(lines)


def fmt_spread(result, metric, scale=1.0):
    """Median per element (times `scale`) with the interquartile range."""
    if result is None or result.median(metric) is None:
        return "—"
    low, high = result.spread(metric)
    return f"{fmt_ns(result.median(metric) * scale)} ({fmt_ns(low * scale)}–{fmt_ns(high * scale)})"


def fmt_rate(result, unit_per_second=1.0):
    """Elements per second from the wall clock: the median iteration's rate,
    with the rates of the quartile iterations (slower first)."""
    if result is None:
        return "—"
    low, high = result.spread(WALL)
    rate = lambda ns: 1e9 / ns / unit_per_second
    return f"{fmt_ns(rate(result.median(WALL)))} ({fmt_ns(rate(high))}–{fmt_ns(rate(low))})"


def ratio(numerator, denominator, digits=1):
    if numerator is None or denominator is None or denominator == 0:
        return "—"
    return f"{numerator / denominator:.{digits}f}×"


def loop_tables(run):
    """The loop workloads (LoopBenchmarks): 100,000 timers by phase, the
    cost of a tick, and receive(on:) across threads."""
    names = run.names(LOOP)
    if not names:
        return ""
    get = lambda name: run.get(LOOP, name)
    cpu = lambda r: r.median(TIME) if r else None
    lines = []
    phases = [p for p in ("setup", "dispatch", "teardown") if get(f"Loop.timers100k.publisher.{p}")
              or get(f"Loop.timers100k.uv.{p}")]
    if phases:
        lines += ["### Loop: 100,000 timers, ns per timer by phase\n",
                  "Like libuv's million-timers benchmark: create and start the timers, run the loop until each "
                  "fired once, close them. `UVTimer` is `UVTimer.publish(every: 2 s, on: loop)` + `sink` + "
                  "`connect()` per timer; `uv_timer` is bare one-shot `uv_timer_t`s in one array, as in "
                  "libuv's benchmark; `uv_timer` repeating is the same timers repeating every 2 s like the "
                  "publisher's, so at teardown they are still in libuv's timer heap and closing each removes "
                  "it from there, as cancelling a publisher does. CPU time of the loop's thread (dispatch "
                  "waits 2 s for the timers on the wall clock).\n",
                  "| phase | UVTimer | uv_timer | UVTimer / uv_timer | uv_timer repeating | UVTimer / repeating "
                  "| UVTimer mallocs | uv_timer mallocs |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for phase in phases:
            pub, uv = get(f"Loop.timers100k.publisher.{phase}"), get(f"Loop.timers100k.uv.{phase}")
            rep = get(f"Loop.timers100k.uvRepeating.{phase}")
            lines.append(f"| {phase} | {fmt_spread(pub, TIME)} | {fmt_spread(uv, TIME)} | {ratio(cpu(pub), cpu(uv))} | "
                         f"{fmt_spread(rep, TIME) if rep else '—'} | {ratio(cpu(pub), cpu(rep)) if rep else '—'} | "
                         f"{fmt_mallocs(pub)} | {fmt_mallocs(uv)} |")
        lines.append("")
    pub, uv = get("Loop.tick.publisher"), get("Loop.tick.uv")
    if pub or uv:
        lines += ["### Loop: ns per tick (1,000 timers every millisecond, 100,000 ticks)\n",
                  "| workload | CPU time | × uv_timer | mallocs | wall clock |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        for name, result in (("Loop.tick.publisher", pub), ("Loop.tick.uv", uv)):
            if result:
                lines.append(f"| `{name}` | {fmt_spread(result, TIME)} | {ratio(cpu(result), cpu(uv))} | "
                             f"{fmt_mallocs(result)} | {fmt_ns(result.wall_ns)} |")
        lines.append("")
    cross = [n for n in ("Loop.receiveOn.crossThread", "Loop.schedule.crossThread") if get(n)]
    if cross:
        lines += ["### Loop: values sent from another thread, delivered on the loop\n",
                  "Throughput from the wall clock (the producer and the loop's thread run at once); CPU time "
                  "of the whole process (both threads) per value.\n",
                  "| workload | million values/s | wall ns per value | process CPU ns per value | mallocs per value |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        for name in cross:
            result = get(name)
            lines.append(f"| `{name}` | {fmt_rate(result, 1e6)} | {fmt_ns(result.wall_ns)} | "
                         f"{fmt_spread(result, PROCESS)} | {fmt_mallocs(result)} |")
        lines.append("")
    return "\n".join(lines)


def http_tables(run):
    """The HTTP workloads (HTTPBenchmarks) against the local server."""
    names = run.names(HTTP)
    if not names:
        return ""
    get = lambda name: run.get(HTTP, name)
    wall = lambda r: r.median(WALL) if r else None
    lines = []
    for title, prefix in (("sequential keep-alive GETs (100-byte body)", "HTTP.sequential."),
                          ("64 concurrent requests (100-byte body)", "HTTP.concurrent64.")):
        rows = [n for n in (prefix + c for c in ("uvcombine", "asyncHTTPClient", "libuv")) if get(n)]
        if not rows:
            continue
        ahc = get(prefix + "asyncHTTPClient")
        lines += [f"### HTTP: {title}\n",
                  "| workload | requests/s | × AsyncHTTPClient | client CPU µs per request | "
                  "server CPU µs per request | mallocs per request |",
                  "| --- | ---: | ---: | ---: | ---: | ---: |"]
        for name in rows:
            result = get(name)
            lines.append(f"| `{name}` | {fmt_rate(result)} | {ratio(wall(ahc), wall(result), 2)} | "
                         f"{fmt_spread(result, CLIENT, 1e-3)} | {fmt_ns(result.median(SERVER) * 1e-3)} | "
                         f"{fmt_mallocs(result)} |")
        lines.append("")
    rows = [n for n in ("HTTP.body64MiB.uvcombine.dataTask", "HTTP.body64MiB.uvcombine.bytes",
                        "HTTP.body64MiB.asyncHTTPClient", "HTTP.body64MiB.libuv") if get(n)]
    if rows:
        bare = get("HTTP.body64MiB.libuv")
        lines += ["### HTTP: one 64 MiB body\n",
                  "| workload | MiB/s | × bare libuv read loop | client CPU ms per body | mallocs per body |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        for name in rows:
            result = get(name)
            bytes_per_body = result.elements
            lines.append(f"| `{name}` | {fmt_rate(result, 1 << 20)} | {ratio(wall(bare), wall(result), 2)} | "
                         f"{fmt_ns(result.median(CLIENT) * bytes_per_body * 1e-6)} | "
                         f"{result.mallocs_per_iteration:,} |")
        lines.append("")
    rows = [n for n in ("HTTP.gzip64MiB.uvcombine.dataTask", "HTTP.gzip64MiB.uvcombine.bytes",
                        "HTTP.gzip64MiB.asyncHTTPClient") if get(n)]
    if rows:
        ahc = get("HTTP.gzip64MiB.asyncHTTPClient")
        lines += ["### HTTP: a gzip body decoding to 64 MiB\n",
                  "| workload | decoded MiB/s | × AsyncHTTPClient | client CPU ms per body | mallocs per body |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        for name in rows:
            result = get(name)
            bytes_per_body = result.elements
            lines.append(f"| `{name}` | {fmt_rate(result, 1 << 20)} | {ratio(wall(ahc), wall(result), 2)} | "
                         f"{fmt_ns(result.median(CLIENT) * bytes_per_body * 1e-6)} | "
                         f"{result.mallocs_per_iteration:,} |")
        lines.append("")
    return "\n".join(lines)


def nginx_tables(run):
    """The workloads against nginx (NginxBenchmarks): UVURLSession beside
    the bare libuv client, issue 17's four ratios."""
    names = run.names(NGINX)
    if not names:
        return ""
    get = lambda name: run.get(NGINX, name)
    cpu = lambda r: r.median(TIME) if r else None
    wall = lambda r: r.median(WALL) if r else None
    lines = []
    for title, prefix, rows in (
            ("sequential keep-alive GETs of a 100-byte file", "Nginx.sequential.",
             ("uvcombine", "uvcombine.inPlace", "libuv")),
            ("64 requests in flight (100-byte file, 64 connections)", "Nginx.concurrent64.", ("uvcombine", "libuv"))):
        present = [prefix + r for r in rows if get(prefix + r)]
        if not present:
            continue
        bare = get(prefix + "libuv")
        lines += [f"### nginx: {title}\n",
                  "| workload | requests/s | × bare libuv (rate) | client CPU µs per request | × bare libuv (CPU) "
                  "| mallocs per request |",
                  "| --- | ---: | ---: | ---: | ---: | ---: |"]
        for name in present:
            result = get(name)
            lines.append(f"| `{name}` | {fmt_rate(result)} | {ratio(wall(bare), wall(result), 2)} | "
                         f"{fmt_spread(result, TIME, 1e-3)} | {ratio(cpu(result), cpu(bare), 2)} | "
                         f"{fmt_mallocs(result)} |")
        lines.append("")
    rows = [n for n in ("Nginx.body64MiB.uvcombine.dataTask", "Nginx.body64MiB.uvcombine.bytes",
                        "Nginx.body64MiB.libuv") if get(n)]
    if rows:
        streamed = get("Nginx.body64MiB.uvcombine.bytes")
        lines += ["### nginx: one 64 MiB body\n",
                  "| workload | MiB/s | × streamed (`bytes`) | client CPU ms per body | mallocs per body |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        for name in rows:
            result = get(name)
            lines.append(f"| `{name}` | {fmt_rate(result, 1 << 20)} | {ratio(wall(streamed), wall(result), 2)} | "
                         f"{fmt_ns(result.median(TIME) * result.elements * 1e-6)} | "
                         f"{result.mallocs_per_iteration:,} |")
        lines.append("")
    return "\n".join(lines)


def targets_table(run, checks):
    lines = ["| check | target | committed limit | measured now | |",
             "| --- | ---: | ---: | ---: | --- |"]
    for check in checks:
        outcome = evaluate(check, run)
        what, relation = describe_check(check)
        if outcome.passed and outcome.measured is None:
            status = "skipped: not in this run"
        elif not outcome.passed:
            status = "**fails the limit**"
        elif check["target"] is None:
            status = "guard, no target"
        elif outcome.target_met:
            status = "target met"
        else:
            status = "target not met yet"
        target = "none" if check["target"] is None else f"{relation} {format_value(check, check['target'])}"
        lines.append(f"| {what} | {target} | "
                     f"{relation} {format_value(check, check['limit'])} | "
                     f"{format_value(check, outcome.measured)} | {status} |")
        if check.get("note"):
            lines.append(f"| ↳ {check['note']} | | | | |")
    return "\n".join(lines)


def render_chart(run, path):
    """Fan-out through share(): both libraries and the lower bound; written
    only when the results hold UVCombine's share() workloads."""
    series = [
        (UV, "FanOut.share.N{}", "UVCombine share()", "o-"),
        (OC, "FanOut.share.N{}", "OpenCombine share()", "s-"),
        (LB, "FanOut.lowerBound.N{}", "lower bound: C callbacks in an array", "^--"),
        (LB, "FanOut.swiftClosures.N{}", "Swift closures in an array", "v:"),
    ]
    if not any(name.startswith("FanOut.share.") for name in run.names(UV)):
        return False
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 5), dpi=120)
    for target, pattern, label, style in series:
        points = []
        for name in run.names(target):
            match = re.fullmatch(pattern.replace("{}", r"(\d+)").replace(".", r"\."), name)
            if match:
                points.append((int(match.group(1)), run.get(target, name)))
        if not points:
            continue
        points.sort()
        xs = [n for n, _ in points]
        ys = [r.ns for _, r in points]
        low = [r.ns - r.ns_spread[0] for _, r in points]
        high = [r.ns_spread[1] - r.ns for _, r in points]
        ax.errorbar(xs, ys, yerr=[low, high], fmt=style, capsize=3, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    low_y, high_y = ax.get_ylim()
    ticks = [t for t in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000) if low_y <= t <= high_y]
    ax.set_yticks(ticks)
    ax.set_yticklabels([str(t) for t in ticks])
    ax.minorticks_off()
    ax.set_xticks([1, 8, 64])
    ax.set_xticklabels(["1", "8", "64"])
    ax.set_xlabel("subscribers N")
    ax.set_ylabel("ns per delivered element (median, IQR bars)")
    ax.set_title("PassthroughSubject → share() → N sinks")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def command_render(args):
    run = read_results(args.results)
    checks = load_thresholds(args.thresholds)
    chart_written = render_chart(run, args.chart)
    when = run.time.replace("T", " ").replace("Z", " UTC")
    chart_rel = os.path.relpath(args.chart, os.path.dirname(args.markdown))
    machine = run.machine
    with open(args.template) as f:
        template = f.read()
    generated = "\n".join([
        f"Measured {when} on `{machine['host']}`: {cpu_model()}, {machine['processors']} cores, "
        f"{machine['memory']} GB, Linux {platform.release()}; {toolchain()}; "
        f"{load_average(args.results)}.",
        "",
        "```sh",
        args.command,
        "```",
        "",
        "Times are CPU time of the measuring thread: median per element, with the "
        "interquartile range of the iterations in parentheses; the last column gives the "
        "median wall clock for comparison. Mallocs: per element in the worst iteration.",
        "",
        results_table(run),
        loop_tables(run),
        http_tables(run),
        nginx_tables(run),
        "### Targets (`make bench-check`)",
        "",
        targets_table(run, checks),
        "",
        f"![Fan-out through share()]({chart_rel})" if chart_written
        else "The fan-out chart appears once `share()` workloads are in the results.",
    ])
    begin, end = "<!-- results:begin -->", "<!-- results:end -->"
    if begin not in template or end not in template:
        sys.exit(f"{args.template} lacks the {begin} / {end} markers")
    head, rest = template.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(args.markdown, "w") as f:
        f.write(f"{head}{begin}\n{generated}\n{end}{tail}")
    print(f"Wrote {args.markdown}" + (f" and {args.chart}" if chart_written else ""))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command_name", required=True)
    default_results = os.path.join(REPO, "Benchmarks", "Results", "Current_run.influx.csv")
    default_thresholds = os.path.join(REPO, "Benchmarks", "Thresholds")

    render = sub.add_parser("render", help="write docs/benchmarks.md and the fan-out chart")
    render.add_argument("--results", default=default_results)
    render.add_argument("--thresholds", default=default_thresholds)
    render.add_argument("--command", required=True, help="the exact command that produced the results")
    render.add_argument("--markdown", default=os.path.join(REPO, "docs", "benchmarks.md"))
    render.add_argument("--template", default=None, help="defaults to --markdown (regenerated in place)")
    render.add_argument("--chart", default=os.path.join(REPO, "docs", "benchmarks-fanout.png"))
    render.set_defaults(handler=command_render)

    check = sub.add_parser("check", help="exit 1 when a result breaks a committed limit")
    check.add_argument("--results", default=default_results)
    check.add_argument("--thresholds", default=default_thresholds)
    check.set_defaults(handler=command_check)

    args = parser.parse_args()
    if getattr(args, "template", "") is None:
        args.template = args.markdown
    if not os.path.exists(args.results):
        sys.exit(f"No results at {args.results}: run `make bench` first.")
    sys.exit(args.handler(args))


if __name__ == "__main__":
    main()
