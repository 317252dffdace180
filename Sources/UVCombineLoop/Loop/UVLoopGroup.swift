import Synchronization

/// N loops on N threads, handed out round-robin: spread independent work
/// (timers, connections) over the machine's cores.
///
/// Threading: every member may be used from any thread, except that
/// ``shutdown()`` must not be called on one of the group's loop threads.
/// Call `shutdown()` before releasing the group.
///
/// ```swift
/// let group = try UVLoopGroup(numberOfThreads: 4)
/// for _ in 0..<8 {
///     let loop = group.next()
///     loop.schedule { print("on \(loop)") }
/// }
/// try group.shutdown()
/// ```
public final class UVLoopGroup: Sendable {
    /// The loop threads, in the order ``next()`` visits them.
    public let threads: [UVLoopThread]
    private let cursor = Atomic<Int>(0)

    /// Starts `numberOfThreads` loop threads (at least one).
    ///
    /// Throws the first ``UVError`` from starting a loop; the loops already
    /// started are shut down first.
    ///
    /// ```swift
    /// let group = try UVLoopGroup(numberOfThreads: 2)
    /// ```
    public init(numberOfThreads: Int) throws(UVError) {
        var threads: [UVLoopThread] = []
        do {
            for _ in 0..<max(1, numberOfThreads) {
                threads.append(try UVLoopThread())
            }
        } catch {
            for thread in threads { try? thread.shutdown() }
            throw error
        }
        self.threads = threads
    }

    /// The group's loops, in the order ``next()`` visits them.
    public var loops: [UVLoop] { threads.map(\.loop) }

    /// The next loop, round-robin. Any thread.
    ///
    /// ```swift
    /// let loop = group.next()
    /// ```
    public func next() -> UVLoop {
        let index = cursor.wrappingAdd(1, ordering: .relaxed).oldValue
        return threads[Int(UInt(bitPattern: index) % UInt(threads.count))].loop
    }

    /// The group's loops as Swift concurrency executors (serial and task
    /// executors), in the order ``nextExecutor()`` visits them.
    ///
    /// ```swift
    /// let executors = group.executors
    /// ```
    public var executors: [UVLoop] { loops }

    /// The next loop's executor, round-robin (the same cursor as
    /// ``next()``): spread actors and tasks over the group's threads. Any
    /// thread.
    ///
    /// ```swift
    /// let session = Session(executor: group.nextExecutor()) // an actor on one loop
    /// Task(executorPreference: group.nextExecutor()) { await serve() }
    /// ```
    public func nextExecutor() -> UVLoop { next() }

    /// Stops every loop, then joins every thread (so the loops shut down in
    /// parallel); every handle is closed and every loop closed. Idempotent.
    /// Throws the first ``UVError`` a loop reported while closing.
    ///
    /// ```swift
    /// try group.shutdown()
    /// ```
    public func shutdown() throws(UVError) {
        for thread in threads { thread.requestStop() }
        var firstError: UVError?
        for thread in threads {
            do {
                try thread.join()
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }
    }
}
