import CLibUV
import Glibc
import UVCombineCore
import Synchronization

/// A libuv event loop: the thread that runs it delivers every timer tick,
/// every scheduled action and (later) every socket event, and it is a
/// Combine ``/UVCombineCore/Scheduler``.
///
/// ## Threading
///
/// A loop runs on exactly one thread at a time: the one inside ``run(_:)``.
/// Every libuv call happens on that thread. While the loop is not running,
/// the thread that last ran it (or, for an adopted loop, the thread that
/// adopted it) is its thread; a loop that never ran has no thread yet.
///
/// - From any thread: ``schedule(options:_:)`` and the other `schedule`
///   methods, ``stop()``, ``keepAlive()``, ``now``, ``isInLoop``, and
///   everything built on them (timer publishers' `connect()`, cancelling).
///   Work coming from another thread goes through one queue behind a mutex,
///   drained on the loop thread when an eventfd of ours, watched by a
///   `uv_poll_t`, wakes it (not a `uv_async_t`: see `UVLoop.Wakeup`).
/// - On the loop's thread, while the loop is not running: ``run(_:)`` and
///   ``close()``.
///
/// To move a loop to another thread, hand it over through a synchronisation
/// point (a thread start, a lock) before the new thread calls `run()`.
///
/// ## Lifetime
///
/// ``run(_:)`` returns when no referenced work is left (active timers,
/// ``keepAlive()`` tokens) and no action is queued: the loop's own machinery
/// never keeps it alive. ``close()`` closes every handle the loop owns and
/// finishes only when `uv_loop_close` returned 0; call it once you are done
/// with the loop, or the loop and its memory stay alive.
///
/// ```swift
/// let loop = try UVLoop()
/// loop.schedule(after: loop.now.advanced(by: .seconds(1))) { print("one second later") }
/// loop.run()          // returns after the action ran
/// try loop.close()
/// ```
public final class UVLoop: @unchecked Sendable {
    // @unchecked Sendable: the fields below the "loop thread" mark are only
    // touched on the loop's thread (see the threading rules above); the rest
    // are immutable, atomic, or inside the inbox mutex.

    /// How a loop runs.
    ///
    /// ```swift
    /// while loop.run(.once) {} // one iteration at a time until nothing is left
    /// ```
    public enum RunMode: Sendable {
        /// Runs until no referenced work is left, or ``UVLoop/stop()``.
        case `default`
        /// Runs one iteration, waiting for events if nothing is pending
        /// (`UV_RUN_ONCE`).
        case once
        /// Runs one iteration without waiting (`UV_RUN_NOWAIT`).
        case noWait
    }

    internal enum Ownership {
        /// We created the loop: we run and close it. `allocated` says
        /// whether we also free its memory (not for libuv's default loop).
        case owned(allocated: Bool)
        /// A host's loop: never run or closed by us.
        case adopted
    }

    /// The libuv loop, for code that talks to libuv directly (C hosts,
    /// other libuv libraries). Only use it on the loop's thread.
    public let uvLoop: UnsafeMutablePointer<uv_loop_t>

    internal let ownership: Ownership
    /// The eventfd and its poll handle that wake the loop for work queued
    /// from other threads; the handle is unref'd unless ``keepAlive()``
    /// tokens exist or the loop thread queued work for itself.
    internal let wakeup: Wakeup
    /// Work posted for the loop thread, and whether the loop still takes it.
    internal let inbox: Mutex<Inbox>
    /// The loop's thread (`currentThreadIdentity()`), or 0 for none yet.
    internal let home: Atomic<UInt>
    /// Whether a thread is inside `run()`.
    internal let running = Atomic<Bool>(false)
    /// Outstanding ``keepAlive()`` tokens.
    internal let keepAliveCount = Atomic<Int>(0)

    // MARK: Loop thread only

    /// The drained buffer, kept so that draining allocates nothing.
    internal var spare: ContiguousArray<Job> = []
    internal var isInsideUVRun = false
    internal var stopRequested = false
    internal var isDraining = false
    /// `close()` began: nothing new is opened any more.
    internal var isClosed = false
    /// `uv_loop_close` returned 0 (owned loops only).
    internal var isLoopClosed = false
    internal var isWakeupClosed = false
    /// The wake-up handle is ref'd because the loop thread queued work.
    internal var isWakeupRefForQueue = false
    /// The idle handle that wakes the loop for work the loop thread queued
    /// for itself (no system call, unlike the eventfd); created on first
    /// use.
    internal var idleWakeup: UnsafeMutablePointer<uv_idle_t>?
    internal var isIdleActive = false
    internal var isIdleClosing = false
    /// Every handle owner whose handle is open or closing.
    internal var owners = HandleOwnerRegistry()
    /// The Swift job `runSwiftJob` is running, to recognise the job
    /// enqueueing itself (a switch between two contexts on this loop).
    internal var runningSwiftJob: UnsafeRawPointer?
    /// The running job's switch to another context on this loop, run as
    /// soon as the job returns (see `runSwiftJob`).
    internal var switchedSwiftJob: (job: UnownedJob, context: SwiftJobContext)?
    /// `close()` is running the Swift jobs it found queued: they run
    /// isolated to the loop although `run()` is not running.
    internal var isRunningJobsOnClose = false

    /// Creates a loop with its own `uv_loop_t`. It has no thread until the
    /// first ``run(_:)``: what other code sets up before then is queued and
    /// runs when the loop starts.
    ///
    /// Throws the ``UVError`` from `uv_loop_init`, `eventfd` or
    /// `uv_poll_init` (out of file descriptors or memory).
    ///
    /// ```swift
    /// let loop = try UVLoop()
    /// ```
    public convenience init() throws(UVError) {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<uv_loop_t>.size,
                                                   alignment: MemoryLayout<uv_loop_t>.alignment)
        let loop = raw.bindMemory(to: uv_loop_t.self, capacity: 1)
        let status = uv_loop_init(loop)
        guard status == 0 else {
            raw.deallocate()
            throw UVError(code: status)
        }
        let wakeup: Wakeup
        do {
            wakeup = try Wakeup.make(on: loop)
        } catch {
            _ = uv_loop_close(loop)
            raw.deallocate()
            throw error
        }
        self.init(uvLoop: loop, wakeup: wakeup, ownership: .owned(allocated: true), home: 0)
    }

    /// Adopts a loop that a host owns and runs (a C service, another
    /// library). We never run or close it; ``close()`` closes the handles we
    /// opened on it, and the host's next iteration runs their callbacks.
    ///
    /// Call it on the thread that runs `loop`, which becomes this loop's
    /// thread. Work other threads schedule is queued and runs in the host's
    /// iterations; it does not keep the host's loop alive.
    ///
    /// ```swift
    /// let loop = try UVLoop(adopting: uv_default_loop())
    /// ```
    public convenience init(adopting loop: UnsafeMutablePointer<uv_loop_t>) throws(UVError) {
        let wakeup = try Wakeup.make(on: loop)
        self.init(uvLoop: loop, wakeup: wakeup, ownership: .adopted, home: currentThreadIdentity())
    }

    private init(uvLoop: UnsafeMutablePointer<uv_loop_t>, wakeup: Wakeup,
                 ownership: Ownership, home: UInt) {
        self.uvLoop = uvLoop
        self.wakeup = wakeup
        self.ownership = ownership
        self.home = Atomic(home)
        inbox = Mutex(Inbox())
        // Retained until the wake-up handle's close callback.
        wakeup.poll.pointee.data = Unmanaged.passRetained(self).toOpaque()
    }

    /// A process-wide loop for simple programs: libuv's default loop, run
    /// by whoever calls ``run(_:)`` on it (usually the main thread).
    /// Libraries and tests should create their own loops.
    ///
    /// ```swift
    /// UVLoop.default.schedule { print("hello") }
    /// UVLoop.default.run()
    /// ```
    public static let `default`: UVLoop = {
        guard let loop = uv_default_loop() else { violation("uv_default_loop() failed") }
        do {
            let wakeup = try Wakeup.make(on: loop)
            return UVLoop(uvLoop: loop, wakeup: wakeup, ownership: .owned(allocated: false), home: 0)
        } catch {
            violation("UVLoop.default: \(error)")
        }
    }()

    deinit {
        // The wake-up handle retains the loop until close() closed it, so
        // reaching deinit means close() ran.
        if !isClosed { violation("UVLoop deinitialised without close()") }
        // Closed here, not in the poll handle's close callback: a thread
        // inside post(_:) holds a reference, so no signal() can follow.
        _ = Glibc.close(wakeup.fd)
        if case .owned(allocated: true) = ownership {
            UnsafeMutableRawPointer(uvLoop).deallocate()
        }
    }

    /// Any libuv handle as the `uv_handle_t` libuv's generic functions take.
    @inline(__always)
    internal static func handle<Handle>(_ pointer: UnsafeMutablePointer<Handle>) -> UnsafeMutablePointer<uv_handle_t> {
        UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: uv_handle_t.self)
    }

    // MARK: Thread identity

    /// Whether the calling thread is the loop's thread: the one running it,
    /// or, while it is not running, the one that last ran it (for an
    /// adopted loop, the one that adopted it).
    ///
    /// Never true on a thread that is not the loop's thread; false on every
    /// thread for a loop that never ran. Any thread.
    ///
    /// ```swift
    /// if loop.isInLoop { startNow() } else { loop.schedule { startNow() } }
    /// ```
    public var isInLoop: Bool {
        home.load(ordering: .acquiring) == currentThreadIdentity()
    }

    /// Traps unless the calling thread is the loop's thread, naming the
    /// rule. Use it to guard loop-confined state.
    ///
    /// ```swift
    /// loop.preconditionInLoop()
    /// ```
    public func preconditionInLoop(file: StaticString = #fileID, line: UInt = #line) {
        if !isInLoop {
            violation("this must be called on the UVLoop's thread", file: file, line: line)
        }
    }

    // MARK: Running

    /// Runs the loop on the calling thread, which becomes the loop's thread.
    ///
    /// - `.default` runs until no referenced work is left (no active timer,
    ///   no ``keepAlive()`` token, nothing queued) or until ``stop()``.
    /// - `.once` runs one iteration, waiting for an event if none is
    ///   pending; `.noWait` runs one iteration without waiting.
    ///
    /// Work queued from other threads runs in the same iterations. Not
    /// re-entrant: calling it from an action, or while another thread runs
    /// the loop, traps; so does calling it on an adopted or closed loop.
    ///
    /// Returns whether referenced work remains (libuv's `uv_run` result),
    /// so `while loop.run(.once) {}` runs until idle.
    ///
    /// ```swift
    /// loop.schedule { print("queued") }
    /// loop.run() // Prints: "queued"
    /// ```
    @discardableResult
    public func run(_ mode: RunMode = .default) -> Bool {
        guard case .owned = ownership else { violation("UVLoop.run(): an adopted loop is run by its host") }
        guard running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            violation("UVLoop.run(): the loop is already running (run() is not re-entrant and runs on one thread at a time)")
        }
        defer { running.store(false, ordering: .releasing) }
        home.store(currentThreadIdentity(), ordering: .releasing)
        if isClosed { violation("UVLoop.run(): the loop is closed") }

        switch mode {
        case .default:
            while true {
                isInsideUVRun = true
                let alive = uv_run(uvLoop, UV_RUN_DEFAULT)
                isInsideUVRun = false
                if takeStopRequest() { return alive != 0 || hasQueuedWork }
                // uv_run returned because nothing referenced is left; work
                // queued meanwhile (its wake-up is unref'd) runs now, and may
                // have started timers: go round again if it did anything.
                let ran = drainInbox()
                if takeStopRequest() { return uv_loop_alive(uvLoop) != 0 || hasQueuedWork }
                if ran == 0 { return false }
            }
        case .once, .noWait:
            isInsideUVRun = true
            _ = uv_run(uvLoop, mode == .once ? UV_RUN_ONCE : UV_RUN_NOWAIT)
            isInsideUVRun = false
            drainInbox()
            _ = takeStopRequest()
            return uv_loop_alive(uvLoop) != 0 || hasQueuedWork
        }
    }

    private func takeStopRequest() -> Bool {
        defer { stopRequested = false }
        return stopRequested
    }

    /// Whether work waits in the cross-thread queue. Any thread; for tests.
    package var hasQueuedWorkForTesting: Bool { hasQueuedWork }

    private var hasQueuedWork: Bool {
        inbox.withLock { !$0.jobs.isEmpty }
    }

    /// Makes ``run(_:)`` return as soon as the current iteration ends.
    ///
    /// Any thread: from another thread the request is queued (libuv's
    /// `uv_stop` is not thread-safe). A stop that arrives while the loop is
    /// not running ends the next `run()` after its first iteration. Traps on
    /// an adopted loop, which its host stops.
    ///
    /// ```swift
    /// DispatchQueue.global().async { loop.stop() }
    /// loop.run()
    /// ```
    public func stop() {
        guard case .owned = ownership else { violation("UVLoop.stop(): an adopted loop is stopped by its host") }
        if isInLoop && running.load(ordering: .relaxed) {
            performStop()
        } else {
            post(.stop)
        }
    }

    internal func performStop() {
        if isInsideUVRun { uv_stop(uvLoop) }
        stopRequested = true
    }

    /// Keeps ``run(_:)`` from returning while the token is alive, even with
    /// nothing else to do: for loops fed from other threads (a background
    /// producer, ``UVLoopThread``). Cancel the token, or let it deinitialise,
    /// to release it. Any thread.
    ///
    /// ```swift
    /// let token = loop.keepAlive()
    /// producer.start { value in loop.schedule { handle(value) } } onDone: { token.cancel() }
    /// loop.run() // returns once the token is cancelled and the work is done
    /// ```
    public func keepAlive() -> AnyCancellable {
        if keepAliveCount.add(1, ordering: .relaxed).newValue == 1 {
            submitUnordered(.syncKeepAlive)
        }
        return AnyCancellable { [self] in
            if keepAliveCount.subtract(1, ordering: .relaxed).newValue == 0 {
                submitUnordered(.syncKeepAlive)
            }
        }
    }

    internal func syncKeepAlive() {
        guard !isWakeupClosed else { return }
        if keepAliveCount.load(ordering: .relaxed) > 0 || isWakeupRefForQueue {
            uv_ref(UVLoop.handle(wakeup.poll))
        } else {
            uv_unref(UVLoop.handle(wakeup.poll))
        }
    }

    // MARK: Closing

    /// Closes every handle this loop opened, lets their close callbacks run,
    /// and closes the libuv loop; returns only when `uv_loop_close`
    /// returned 0. Idempotent.
    ///
    /// Actions still queued are discarded (their closures released), and
    /// timers and timer publishers' connections stop. Call it on the loop's
    /// thread while the loop is not running (a loop that never ran may be
    /// closed from any thread).
    ///
    /// Throws ``UVError/busy`` when handles opened on ``uvLoop`` by other
    /// code are still open; close those and call `close()` again. For an
    /// adopted loop it only closes our handles: their callbacks run in the
    /// host's next iteration, and the host closes its loop.
    ///
    /// ```swift
    /// loop.run()
    /// try loop.close()
    /// ```
    public func close() throws(UVError) {
        let me = currentThreadIdentity()
        switch ownership {
        case .owned:
            if running.load(ordering: .acquiring) {
                violation("UVLoop.close(): the loop is running; stop it and close it from the thread that ran it")
            }
            let previous = home.load(ordering: .acquiring)
            if previous != 0 && previous != me {
                violation("UVLoop.close(): must be called on the loop's thread")
            }
            home.store(me, ordering: .releasing)
        case .adopted:
            preconditionInLoop()
        }

        if !isClosed {
            isClosed = true
            // Queued actions are discarded, but Swift jobs run now, on this
            // thread (the loop's): a dropped job would leak its task. Jobs
            // they enqueue run too; the inbox closes once it is empty, and
            // enqueueing a job after that traps.
            while true {
                let pending = inbox.withLock { inbox -> ContiguousArray<Job> in
                    if inbox.jobs.isEmpty { inbox.isClosed = true }
                    defer { inbox.jobs = [] }
                    return inbox.jobs
                }
                if pending.isEmpty { break }
                isRunningJobsOnClose = true
                defer { isRunningJobsOnClose = false }
                for job in pending {
                    if case .swiftJob(let swiftJob, let context) = job { runSwiftJob(swiftJob, context) } else { job.abandon() }
                }
            }
            owners.forEach { $0.shutdown() }
            closeIdleWakeup()
            uv_close(UVLoop.handle(wakeup.poll)) { handle in
                guard let handle else { return }
                let loop = Unmanaged<UVLoop>.fromOpaque(handle.pointee.data).takeRetainedValue()
                loop.isWakeupClosed = true
                UnsafeMutableRawPointer(handle).deallocate()
            }
        }
        guard case .owned = ownership, !isLoopClosed else { return }
        // Every handle we own is closing: one iteration runs their close
        // callbacks (a loop with closing handles polls without waiting).
        while !isWakeupClosed || isIdleClosing || !owners.isEmpty {
            uv_run(uvLoop, UV_RUN_ONCE)
        }
        let status = uv_loop_close(uvLoop)
        try UVError.check(status)
        isLoopClosed = true
    }

    /// Whether a handle this loop opened (its wake-up handle included) is
    /// still open or waiting for its close callback. After ``close()`` on an
    /// adopted loop it turns false in the host's iteration that ran the last
    /// close callback; the C API's detach reports completion then. Loop
    /// thread.
    package var hasOpenHandles: Bool { !isWakeupClosed || isIdleClosing || !owners.isEmpty }
}
