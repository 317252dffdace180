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
/// A task that moves between two contexts on the same loop (an actor on the
/// loop awaiting another actor on it; a task that prefers the loop entering
/// or leaving an actor on it) continues at once, without a trip through the
/// queue, as the runtime does for default actors on the global executor:
/// work queued before the switch runs after it. After 64 such switches in a
/// row the next one is queued, so that a task which never suspends still
/// lets the loop turn.
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
    /// Queues `job` to run on the loop thread, isolated to the loop: the
    /// runtime calls it for an actor whose executor is this loop. Any
    /// thread; allocates nothing beyond the queue's amortised storage (the
    /// job is the runtime's). Traps when the loop is closed.
    ///
    /// ```swift
    /// await counter.increment() // an actor on the loop: enqueue(_:) runs it
    /// ```
    public func enqueue(_ job: consuming ExecutorJob) {
        submitSwiftJob(UnownedJob(job), asTaskExecutor: false)
    }

    /// Queues `job` to run on the loop thread for a task that prefers the
    /// loop as its task executor, outside any actor (`TaskExecutor`'s
    /// `enqueue(_:)`, which the runtime calls apart from the serial
    /// executor's). Any thread; allocates nothing beyond the queue's
    /// amortised storage. Traps when the loop is closed.
    ///
    /// ```swift
    /// Task(executorPreference: loop) { print(loop.isInLoop) } // true
    /// ```
    // Two witnesses because the runtime does not say which role a job was
    // enqueued for, and the context a job runs in decides whether the
    // runtime can switch inline afterwards (see `runSwiftJob`).
    @_implements(TaskExecutor, enqueue(_:))
    public func enqueueForTaskExecutor(_ job: consuming ExecutorJob) {
        submitSwiftJob(UnownedJob(job), asTaskExecutor: true)
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

    /// Traps unless the calling code runs isolated to the loop: on the
    /// loop's thread while the loop runs (inside ``run(_:)``, a host's
    /// iteration of an adopted loop, or ``close()`` running the jobs left).
    /// The message names the loop and the thread it runs on.
    ///
    /// The runtime calls it for `assumeIsolated`, `preconditionIsolated`
    /// and `assertIsolated` when the current job was not started by this
    /// executor (a libuv callback, a scheduled action) and
    /// ``isIsolatingCurrentContext()`` could not say yes. Any thread.
    ///
    /// ```swift
    /// loop.schedule {
    ///     counter.assumeIsolated { $0.value += 1 } // fine: the loop runs this action
    /// }
    /// ```
    public func checkIsolated() {
        if !isIsolatingCallingThread {
            violation("UVLoop.checkIsolated(): \(isolationFailureDescription) (assumeIsolated, preconditionIsolated or assertIsolated for an actor or code isolated to this loop was called outside it)")
        }
    }

    /// `true` when the calling code runs isolated to the loop (see
    /// ``checkIsolated()``), `nil` otherwise.
    ///
    /// `nil` rather than `false`, on purpose: for an assertion the runtime
    /// then calls ``checkIsolated()``, whose trap names the loop and the
    /// thread it runs on, where a `false` ends in the runtime's own message
    /// naming neither; a check that must not trap treats `nil` as "not
    /// isolated", as it does `false`. Any thread.
    ///
    /// ```swift
    /// let onLoop = loop.isIsolatingCurrentContext() == true // true inside an action
    /// ```
    @available(macOS 26.0, *)
    public func isIsolatingCurrentContext() -> Bool? {
        isIsolatingCallingThread ? true : nil
    }

    /// Whether the calling thread is the loop's and the loop is serving it
    /// right now: running (``run(_:)``), or running the jobs ``close()``
    /// found queued; an adopted loop serves its host's thread whenever that
    /// thread calls us. Any thread (the flags read are the calling
    /// thread's own once `isInLoop` holds).
    internal var isIsolatingCallingThread: Bool {
        guard isInLoop else { return false }
        switch ownership {
        case .adopted:
            return true
        case .owned:
            return running.load(ordering: .relaxed) || isRunningJobsOnClose
        }
    }

    /// Why the calling code is not isolated to the loop, for trap messages.
    internal var isolationFailureDescription: String {
        let loop = "UVLoop \(UVLoop.describe(address: UnsafeRawPointer(uvLoop)))"
        let thread = home.load(ordering: .acquiring)
        if thread == 0 { return "\(loop) never ran, so no thread is isolated to it" }
        if thread == currentThreadIdentity() { return "\(loop) is not running on this thread (its thread \(thread) runs no iteration of it now)" }
        return "the calling thread \(currentThreadIdentity()) is not \(loop)'s thread \(thread)"
    }

    /// `0x` and the address in hexadecimal.
    internal static func describe(address: UnsafeRawPointer) -> String {
        "0x" + String(UInt(bitPattern: address), radix: 16)
    }

    /// Queues a Swift job, or, when it is the job running right now
    /// switching to another context on this same loop, has `runSwiftJob`
    /// run it as soon as it returns. Any thread.
    internal func submitSwiftJob(_ job: UnownedJob, asTaskExecutor: Bool) {
        if isInLoop, let running = runningSwiftJob, running == UVLoop.address(of: job),
           switchedSwiftJob == nil {
            // The task switched to another context on this loop and the
            // runtime enqueued it here again (it switches inline only from
            // the generic executor or a default actor, and only when no task
            // executor is in effect). Which enqueue it called tells us the
            // context: on the serial executor's the task has a task executor
            // the running context lacked (this loop, as a rule); on the task
            // executor's it prefers this loop and left the loop's isolation.
            switchedSwiftJob = (job, asTaskExecutor ? .preferringLoop : .isolatedPreferringLoop)
            return
        }
        post(.swiftJob(job, asTaskExecutor ? .preferringLoop : .isolated))
    }

    /// Runs a Swift job in `context`, then any switch of that job to
    /// another context on this loop at once, as the runtime does inline for
    /// default actors: without going round the queue and without a loop
    /// iteration. Loop thread.
    ///
    /// The context matters to the runtime's next `swift_task_switch`: it
    /// continues inline only when the job's serial executor and task
    /// executor both match the task's, and the runtime tells an executor
    /// neither which actor a job is for nor the task's preference. So a
    /// job runs in the context its path implies (`SwiftJobContext`), and a
    /// wrong guess shows as the job enqueueing itself here, which
    /// `submitSwiftJob` turns into the right context.
    internal func runSwiftJob(_ job: UnownedJob, _ context: SwiftJobContext) {
        var job = job
        var context = context
        // A task that keeps switching between contexts still lets the loop
        // turn every so often (the switch is then queued instead).
        for _ in 0..<UVLoop.inlineSwitchLimit {
            runningSwiftJob = UVLoop.address(of: job)
            switch context {
            case .isolated:
                job.runSynchronously(on: asUnownedSerialExecutor())
            case .isolatedPreferringLoop:
                job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
            case .preferringLoop:
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
            runningSwiftJob = nil
            guard let next = switchedSwiftJob else { return }
            switchedSwiftJob = nil
            (job, context) = next
        }
        post(.swiftJob(job, context))
    }

    /// How many switches of one job `runSwiftJob` runs back to back.
    internal static let inlineSwitchLimit = 64

    /// A job's address, its identity (`UnownedJob` is one pointer).
    @inline(__always)
    internal static func address(of job: UnownedJob) -> UnsafeRawPointer {
        unsafeBitCast(job, to: UnsafeRawPointer.self)
    }
}

/// The executor context a Swift job runs in on its loop.
internal enum SwiftJobContext: Sendable {
    /// Isolated to the loop, no task executor: a job enqueued for an actor
    /// on the loop (a task without a preference, the usual case).
    case isolated
    /// Isolated to the loop, the loop as task executor: a task that prefers
    /// the loop, running in an actor on it.
    case isolatedPreferringLoop
    /// Not isolated, the loop as task executor: a task that prefers the
    /// loop, running nonisolated code.
    case preferringLoop
}
