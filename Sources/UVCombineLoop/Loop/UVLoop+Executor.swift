import CLibUV
import UVCombineCore

/// A loop runs Swift concurrency jobs on its thread, like SwiftNIO's event
/// loops: it is a `SerialExecutor` (an actor can live on it) and a
/// `TaskExecutor` (a task can prefer it).
///
/// ## Threading
///
/// `UVLoop.enqueue(_:)` may be called from any thread. Jobs go through the same
/// queue as `UVLoop.schedule(options:_:)`: jobs and actions enqueued from one
/// thread run in the order they were enqueued, on the loop thread, inside
/// `UVLoop.run(_:)` (or a host's iteration for an adopted loop). From the loop
/// thread itself enqueueing makes no system call.
///
/// ## Lifetime
///
/// A queued job is work like a queued action: `UVLoop.run(_:)` runs it before
/// returning. A task suspended on something else (an `await` on a data
/// task, a sleep on another clock) does not keep `run()` going; hold a
/// `UVLoop.keepAlive()` token for as long as such a task should be served.
///
/// `UVLoop.close()` runs the jobs still queued (on the closing thread, which is
/// the loop's) instead of dropping them, because a dropped job leaks its
/// task; the jobs they enqueue run too. Enqueueing a job once the loop is
/// closed traps: the job could never run.
///
/// ```swift
/// actor Counter {
///     let loop: UVLoop
///     var value = 0
///     init(loop: UVLoop) { self.loop = loop }
///     nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
///     func increment() -> Int { value += 1; return value }
/// }
///
/// let background = try UVLoopThread()
/// let counter = Counter(loop: background.loop)
/// let value = await counter.increment() // runs on the loop thread
/// ```
extension UVLoop: SerialExecutor, TaskExecutor {
    /// Queues `job` to run on the loop thread. Any thread; allocates
    /// nothing beyond the queue's amortised storage (the job is the
    /// runtime's). Traps when the loop is closed.
    ///
    /// ```swift
    /// Task(executorPreference: loop) { print(loop.isInLoop) } // true
    /// ```
    public func enqueue(_ job: consuming ExecutorJob) {
        post(.swiftJob(UnownedJob(job)))
    }

    /// The loop as the runtime's unowned serial executor, for an actor's
    /// `unownedExecutor`. Any thread.
    ///
    /// ```swift
    /// nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
    /// ```
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// The loop as the runtime's unowned task executor. Any thread.
    ///
    /// ```swift
    /// let executor = loop.asUnownedTaskExecutor()
    /// ```
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Traps unless the calling thread is the loop's thread; the runtime
    /// calls it for `assumeIsolated` and `preconditionIsolated` when the
    /// current job was not started by this executor (a libuv callback, a
    /// scheduled action). Any thread.
    ///
    /// ```swift
    /// loop.schedule {
    ///     counter.assumeIsolated { $0.value += 1 } // fine: on the loop thread
    /// }
    /// ```
    public func checkIsolated() {
        if !isInLoop {
            violation("UVLoop.checkIsolated(): not on the UVLoop's thread (assumeIsolated/preconditionIsolated for an actor or code isolated to this loop was called from another thread)")
        }
    }

    /// Whether the calling thread is the loop's thread (``isInLoop``); the
    /// runtime asks it before `checkIsolated()`. Any thread.
    ///
    /// ```swift
    /// let onLoop = loop.isIsolatingCurrentContext() // true inside an action
    /// ```
    @available(macOS 26.0, *)
    public func isIsolatingCurrentContext() -> Bool? {
        isInLoop
    }

    /// Runs a Swift job isolated to this loop and with it as the task
    /// executor. Loop thread.
    internal func runSwiftJob(_ job: UnownedJob) {
        job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
    }
}
