import CLibUV
import LoopSupport
import UVCombine

/// Sizes of the loop workloads.
enum LoopWorkload {
    /// Timers created, fired once each and torn down per iteration of the
    /// `Loop.timers100k` workloads (libuv's million-timers benchmark, at a
    /// tenth of its size).
    static let timers = 100_000

    /// The interval of those timers, in milliseconds: long enough that each
    /// fires once before the last one fired even when creating them takes
    /// more than a second on a busy machine.
    static let timerIntervalMilliseconds = 2_000

    /// Timers ticking at once in the `Loop.tick` workloads, every
    /// millisecond (the loop clock's grain).
    static let tickingTimers = 1_000

    /// Ticks delivered per iteration of the `Loop.tick` workloads.
    static let ticks = 100_000

    /// Values sent from another thread per iteration of the cross-thread
    /// workloads.
    static let crossThreadValues = 1_000_000
}

/// Which phase of a timers workload an iteration measures: the other two run
/// unmeasured, so each phase gets its own row, as libuv's million-timers
/// benchmark reports init, dispatch and cleanup apart.
enum TimerPhase: Equatable {
    case setup, dispatch, teardown
}

/// Counts deliveries down and stops the loop at zero: the measured region
/// ends when the last expected value arrived. Loop thread.
final class Countdown {
    let loop: UVLoop
    private(set) var remaining: Int

    init(loop: UVLoop, count: Int) {
        self.loop = loop
        remaining = count
    }

    @inline(__always)
    func tick() {
        remaining -= 1
        if remaining == 0 { loop.stop() }
    }
}

/// `uv_timer_t`s with no library around them, as a C program (or libuv's own
/// benchmarks) keeps them: one array, one context, capture-free callbacks.
final class BareTimers {
    let loop: UnsafeMutablePointer<uv_loop_t>
    let timers: UnsafeMutablePointer<uv_timer_t>
    let count: Int
    /// Firings still expected; `uv_stop` at zero (repeating timers only).
    var remaining = 0
    var fired = 0

    init(count: Int) {
        self.count = count
        loop = .allocate(capacity: 1)
        precondition(uv_loop_init(loop) == 0, "uv_loop_init")
        timers = .allocate(capacity: count)
    }

    deinit {
        timers.deallocate()
        loop.deallocate()
    }

    /// Initialises and starts every timer: first expiry after `timeout`
    /// milliseconds, then every `repeatInterval` (0: once).
    func start(timeout: UInt64, repeatInterval: UInt64) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        for index in 0..<count {
            let timer = timers + index
            uv_timer_init(loop, timer)
            timer.pointee.data = context
            uv_timer_start(timer, { timer in
                Unmanaged<BareTimers>.fromOpaque(timer!.pointee.data).takeUnretainedValue().timerFired()
            }, timeout, repeatInterval)
        }
    }

    @inline(__always)
    private func timerFired() {
        fired &+= 1
        remaining -= 1
        if remaining == 0 { uv_stop(loop) }
    }

    /// Runs the loop until it has nothing left to do or `uv_stop`.
    func run() {
        uv_run(loop, UV_RUN_DEFAULT)
    }

    /// Closes every timer, runs the close callbacks and closes the loop.
    func close() {
        for index in 0..<count {
            uv_close(UnsafeMutableRawPointer(timers + index).assumingMemoryBound(to: uv_handle_t.self), nil)
        }
        uv_run(loop, UV_RUN_DEFAULT)
        precondition(uv_loop_close(loop) == 0, "uv_loop_close")
    }
}
