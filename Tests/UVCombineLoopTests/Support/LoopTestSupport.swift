import CLibUV
import Synchronization
import Testing
import UVCombineLoop

#if canImport(Glibc)
import Glibc
#endif

#if DEBUG
let isOptimizedBuild = false
#else
let isOptimizedBuild = true
#endif

/// Runs `body` with a fresh loop, then closes it and checks the libuv rule
/// every test loop ends with: all handles closed, close callbacks run,
/// `uv_loop_close == 0` (`close()` throws exactly `uv_loop_close`'s error),
/// and the loop object released.
func withLoop(sourceLocation: SourceLocation = #_sourceLocation, _ body: (UVLoop) throws -> Void) rethrows {
    weak var released: UVLoop?
    do {
        let loop: UVLoop
        do {
            loop = try UVLoop()
        } catch {
            Issue.record("UVLoop() failed: \(error)", sourceLocation: sourceLocation)
            return
        }
        released = loop
        try body(loop)
        #expect(throws: Never.self, "uv_loop_close must return 0", sourceLocation: sourceLocation) {
            try loop.close()
        }
    }
    #expect(released == nil, "the loop must be released after close()", sourceLocation: sourceLocation)
}

/// State shared between a test and the closures it hands to the loop or to
/// other threads.
final class Shared<Value>: @unchecked Sendable {
    // @unchecked Sendable: the value lives inside the mutex.
    private let storage: Mutex<Value>

    init(_ value: sending Value) {
        storage = Mutex(value)
    }

    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R {
        storage.withLock { body(&$0) }
    }

}

extension Shared where Value: Sendable {
    var value: Value {
        storage.withLock { $0 }
    }
}

extension Shared where Value: RangeReplaceableCollection {
    func append(_ element: Value.Element) {
        withLock { $0.append(element) }
    }
}

/// The calling thread's identity: `pthread_self()`, read where the call
/// stands.
///
/// Not inlinable on purpose: glibc declares `pthread_self`
/// `__attribute__((const))`, and in an async function the optimiser then
/// merges or hoists the call across an `await`, reporting the thread the
/// function ran on before it suspended. Tests of threading rules take the
/// thread here, never from the library's own bookkeeping.
@inline(never) @_optimize(none)
func threadID() -> UInt {
    UInt(pthread_self())
}

/// Waits, yielding the CPU, until `condition` holds.
func spinUntil(_ condition: () -> Bool) {
    while !condition() { sched_yield() }
}

/// The value at fraction `q` (0...1) of sorted `values`.
func percentile<T: Comparable>(_ values: [T], _ q: Double) -> T {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * q))]
}

/// An object to watch with a weak reference.
final class Token: @unchecked Sendable {}

/// A value handed to another thread or stored for a closure in tests where
/// the test itself orders every access (set before the loop runs, read on
/// the loop thread).
final class Unchecked<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// CPU time the calling thread has used, in nanoseconds.
func threadCPUTime() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
