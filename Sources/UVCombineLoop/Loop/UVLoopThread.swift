import Synchronization
import UVCombineCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``UVLoop`` running on a thread of its own, for Swift programs that
/// want the loop in the background (a server, an app whose main thread is
/// busy elsewhere).
///
/// The loop runs until ``shutdown()``, even with nothing to do. Reach it
/// from other threads through its scheduling methods and the publishers
/// bound to it; values from those publishers arrive on the loop thread.
///
/// Threading: every member may be used from any thread, except that
/// ``shutdown()`` must not be called on the loop thread itself (it joins
/// that thread). Call `shutdown()` before releasing the object.
///
/// ```swift
/// let background = try UVLoopThread()
/// let ticks = UVTimer.publish(every: 1, on: background.loop)
///     .autoconnect()
///     .sink { print("tick at \($0)") }
/// // …
/// ticks.cancel()
/// try background.shutdown()
/// ```
public final class UVLoopThread: Sendable {
    /// The loop the thread runs.
    public let loop: UVLoop

    /// The loop as a Swift concurrency executor (serial and task executor):
    /// jobs run on this thread until ``shutdown()``. Any thread.
    ///
    /// ```swift
    /// let background = try UVLoopThread()
    /// Task(executorPreference: background.executor) { /* on the loop thread */ }
    /// ```
    public var executor: UVLoop { loop }

    /// The loop's unowned serial executor, for an actor that lives on this
    /// thread. Any thread.
    ///
    /// ```swift
    /// nonisolated var unownedExecutor: UnownedSerialExecutor { background.unownedExecutor }
    /// ```
    public var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    private enum Phase {
        case running(pthread_t)
        case stopping(pthread_t)
        case joined
    }

    private let phase: Mutex<Phase>
    private let keepAliveToken: AnyCancellable
    private let body: ThreadBody

    /// Creates a loop and starts a thread that runs it.
    ///
    /// Throws the ``UVError`` from creating the loop, or the error
    /// `pthread_create` reported (as `UVError(code: -errno)`, e.g.
    /// `UV_EAGAIN`) when no thread can be started.
    ///
    /// ```swift
    /// let background = try UVLoopThread()
    /// ```
    public init() throws(UVError) {
        loop = try UVLoop()
        keepAliveToken = loop.keepAlive()
        body = ThreadBody(loop: loop)
        let start = Unmanaged.passRetained(body).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { argument in
            Unmanaged<UVLoopThread.ThreadBody>.fromOpaque(argument!).takeRetainedValue().run()
            return nil
        }, start)
        guard status == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(start).release()
            keepAliveToken.cancel()
            try? loop.close()
            throw UVError(code: 0 - status)
        }
        phase = Mutex(.running(thread))
    }

    deinit {
        if case .joined = phase.withLock({ $0 }) { return }
        violation("UVLoopThread deinitialised without shutdown()")
    }

    /// What the thread runs: the loop until it stops, then closing it.
    private final class ThreadBody: Sendable {
        let loop: UVLoop
        /// What `close()` reported on the loop thread, read after the join.
        let closeResult = Mutex<UVError?>(nil)

        init(loop: UVLoop) {
            self.loop = loop
        }

        func run() {
            loop.run()
            do {
                try loop.close()
            } catch {
                closeResult.withLock { $0 = error }
            }
        }
    }

    /// Asks the loop to stop (it closes every handle it owns, then the
    /// thread ends). Any thread; returns at once. Idempotent.
    internal func requestStop() {
        let stop = phase.withLock { phase -> Bool in
            guard case .running(let thread) = phase else { return false }
            phase = .stopping(thread)
            return true
        }
        guard stop else { return }
        keepAliveToken.cancel()
        loop.stop()
    }

    /// Waits for the thread to end. Any thread but the loop's.
    internal func join() throws(UVError) {
        if loop.isInLoop { violation("UVLoopThread.shutdown() called on its own loop thread") }
        // Held while joining: a concurrent shutdown waits for this one.
        let error = phase.withLock { phase -> UVError? in
            guard case .stopping(let thread) = phase else { return nil }
            pthread_join(thread, nil)
            phase = .joined
            return body.closeResult.withLock { $0 }
        }
        if let error { throw error }
    }

    /// Stops the loop, closes every handle it owns (timers stop, queued
    /// actions are discarded), closes the loop and joins the thread.
    /// Idempotent; any thread except the loop thread.
    ///
    /// Throws ``UVError/busy`` when handles opened on the raw `uvLoop` by
    /// other code kept the loop from closing.
    ///
    /// ```swift
    /// try background.shutdown()
    /// ```
    public func shutdown() throws(UVError) {
        requestStop()
        try join()
    }
}
