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
}
