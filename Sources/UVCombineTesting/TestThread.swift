#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A joinable POSIX thread for tests of threading rules: a real thread of
/// its own (not a pool thread that may be shared with other work), started
/// at once, joined explicitly.
///
/// Threading: create and join from any thread; `body` runs once on the new
/// thread. Join every thread you start (a test that does not leaves it
/// running past its end).
///
/// ```swift
/// let canceller = TestThread { cancellable.cancel() }
/// subject.send(1)
/// canceller.join()
///
/// TestThread.run(4) { subject.send(2) }   // four threads, all joined
/// ```
public final class TestThread: @unchecked Sendable {
    // @unchecked Sendable: `thread` is written once, in init, before
    // anyone can read it.
    private var thread: pthread_t

    private final class Start {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts a thread that runs `body` once.
    ///
    /// ```swift
    /// let thread = TestThread { work() }
    /// thread.join()
    /// ```
    public init(_ body: @escaping @Sendable () -> Void) {
        let start = Unmanaged.passRetained(Start(body)).toOpaque()
        #if canImport(Darwin)
        var created: pthread_t?
        #else
        var created = pthread_t()
        #endif
        let status = pthread_create(&created, nil, { argument in
            Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue().body()
            return nil
        }, start)
        precondition(status == 0, "pthread_create failed with \(status)")
        #if canImport(Darwin)
        thread = created!
        #else
        thread = created
        #endif
    }

    /// Waits until the thread's body has returned. Call once.
    ///
    /// ```swift
    /// TestThread { work() }.join()
    /// ```
    public func join() {
        pthread_join(thread, nil)
    }

    /// Runs `body` on `count` new threads at once and joins them all; the
    /// argument is the thread's index, 0..<count.
    ///
    /// ```swift
    /// TestThread.run(8) { index in subject.send(index) }
    /// ```
    public static func run(_ count: Int, _ body: @escaping @Sendable (_ index: Int) -> Void) {
        let threads = (0..<count).map { index in TestThread { body(index) } }
        for thread in threads { thread.join() }
    }
}
