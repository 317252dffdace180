import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What the profile executables (NginxProfile, HTTP2Profile) share: their
/// command line, and the measured region that callgrind collects by name
/// (`valgrind --tool=callgrind --toggle-collect='*measuredRegion*'`), so
/// the instruction counts cover the measured requests only (a busy machine
/// changes times, not instruction counts).
///
/// Threading: call from the thread that runs the workload.
///
/// ```swift
/// let (workload, requests) = ProfileHarness.arguments(usage: "NginxProfile WORKLOAD [REQUESTS]")
/// let measured = ProfileHarness.measuredRegion { runner.run(total: requests ?? 2_000, width: 1) }
/// print(measured.thread / (requests ?? 2_000), "ns thread CPU per request")
/// ```
public enum ProfileHarness {
    /// CPU and wall time of one measured region, in nanoseconds.
    public struct Measurement: Sendable {
        /// The calling thread's CPU time.
        public var thread = 0
        /// The process's CPU time (all threads: a client's own event loop).
        public var process = 0
        /// Wall-clock time.
        public var wall = 0

        /// Nothing measured yet.
        public init() {}
    }

    /// The workload (the first argument) and the request count (the
    /// second, if given); prints `usage` and exits with status 2 without
    /// a workload.
    public static func arguments(usage: String) -> (workload: String, requests: Int?) {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2 else {
            print("usage: \(usage)")
            exit(2)
        }
        guard arguments.count > 2 else { return (arguments[1], nil) }
        guard let requests = Int(arguments[2]), requests > 0 else {
            print("usage: \(usage) (REQUESTS: a positive number, not \(arguments[2]))")
            exit(2)
        }
        return (arguments[1], requests)
    }

    /// `clock`'s time in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`,
    /// `CLOCK_PROCESS_CPUTIME_ID`).
    public static func nanoseconds(_ clock: clockid_t) -> Int {
        var now = timespec()
        clock_gettime(clock, &now)
        return Int(now.tv_sec) * 1_000_000_000 + Int(now.tv_nsec)
    }

    /// Runs `body`, the region callgrind collects (by this function's
    /// name), and returns what it cost.
    @inline(never)
    public static func measuredRegion(_ body: () -> Void) -> Measurement {
        var measurement = Measurement()
        let wall = DispatchTime.now().uptimeNanoseconds
        let process = nanoseconds(CLOCK_PROCESS_CPUTIME_ID)
        let thread = nanoseconds(CLOCK_THREAD_CPUTIME_ID)
        body()
        measurement.thread = nanoseconds(CLOCK_THREAD_CPUTIME_ID) - thread
        measurement.process = nanoseconds(CLOCK_PROCESS_CPUTIME_ID) - process
        measurement.wall = Int(DispatchTime.now().uptimeNanoseconds - wall)
        return measurement
    }
}
