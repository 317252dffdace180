import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Process {
    /// Starts the process and suspends the calling task until it exits;
    /// returns its termination status and how long it ran (measured when it
    /// exited, not when the task resumed: the pool may be busy). With a
    /// `timeout`, kills it by PID (SIGKILL) that many seconds after launch.
    ///
    /// Why not `waitUntilExit()`: Swift Testing runs tests on the
    /// cooperative pool (as many threads as cores, two here), and a test
    /// blocked there while a subprocess ran held a thread every other test
    /// needed, which made the timing tests flaky. Foundation's termination
    /// handler, called on its own queue after it reaped the child, resumes
    /// the task instead. Replaces any `terminationHandler` set before.
    ///
    /// Threading: call once, from any task; configure the process first.
    ///
    /// ```swift
    /// let process = Process()
    /// process.executableURL = URL(fileURLWithPath: "/usr/bin/true")
    /// let (status, elapsed) = try await process.runUntilExit(timeout: 60)
    /// ```
    public func runUntilExit(timeout: Double? = nil) async throws -> (status: Int32, elapsed: Duration) {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(status: Int32, elapsed: Duration), any Error>) in
            // Armed after the launch, when the PID is known; cancelled by
            // the termination handler (set before `run()`, so an instant
            // exit is not missed).
            let watchdog = ExitWatchdog()
            let start = ContinuousClock.now
            terminationHandler = { process in
                let elapsed = ContinuousClock.now - start
                watchdog.cancel()
                continuation.resume(returning: (process.terminationStatus, elapsed))
            }
            do {
                try run()
            } catch {
                terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            if let timeout { watchdog.arm(pid: processIdentifier, after: timeout) }
        }
    }
}

/// Kills a process by PID after a delay unless cancelled first. Any thread.
private final class ExitWatchdog: Sendable {
    private enum State {
        case idle
        case armed(DispatchWorkItem)
        case cancelled
    }

    private let state = Mutex(State.idle)

    /// Schedules the kill `seconds` from now, unless already cancelled.
    func arm(pid: pid_t, after seconds: Double) {
        state.withLock { state in
            guard case .idle = state else { return }
            // SIGKILL: the child inherits the test thread's signal mask, in
            // which SIGTERM may be blocked.
            let work = DispatchWorkItem { _ = kill(pid, SIGKILL) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: work)
            state = .armed(work)
        }
    }

    /// Cancels the kill, or keeps a later `arm(pid:after:)` from scheduling
    /// one.
    func cancel() {
        state.withLock { state in
            if case .armed(let work) = state { work.cancel() }
            state = .cancelled
        }
    }
}
