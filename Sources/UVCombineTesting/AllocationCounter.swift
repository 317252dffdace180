import CUVCombineMallocCounter

/// Counts the heap allocations the current thread makes while running a
/// closure.
///
/// Linking `UVCombineTesting` interposes `malloc` and its siblings with a
/// thread-local counter, so the count covers only the calling thread even
/// while other tests run in parallel. Run the measured code synchronously.
///
/// ```swift
/// let mallocs = AllocationCounter.count {
///     for i in 0..<1_000 { subject.send(i) }
/// }
/// #expect(mallocs == 0)
/// ```
public enum AllocationCounter {
    /// The number of allocations the calling thread made during `body`.
    public static func count(_ body: () throws -> Void) rethrows -> Int {
        let before = uvc_malloc_counter_thread_total()
        try body()
        return uvc_malloc_counter_thread_total() - before
    }

    /// The number of allocations the calling thread has made so far.
    public static var threadTotal: Int { uvc_malloc_counter_thread_total() }

    /// Whether allocations are counted. False in builds with AddressSanitizer
    /// or ThreadSanitizer (`make asan`, `make tsan`), whose runtimes own
    /// `malloc`: the interposer is compiled out there and every count is 0.
    /// Allocation tests are disabled unless this is true.
    ///
    /// ```swift
    /// @Test(.enabled(if: AllocationCounter.isCounting)) func noMallocs() { ... }
    /// ```
    public static var isCounting: Bool { uvc_malloc_counter_is_counting() != 0 }
}
