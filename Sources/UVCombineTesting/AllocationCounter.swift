import CUVCombineAllocationHooks

/// Counts the heap allocations the current thread makes while running a
/// closure.
///
/// Counting is opt-in: add the product `UVCombineAllocationCounting` to the
/// test target. It interposes `malloc` and its siblings with a thread-local
/// counter for the whole test process (which is why linking
/// `UVCombineTesting` alone does not), so the count covers only the calling
/// thread even while other tests run in parallel. Without it, `isCounting`
/// is false and every count is 0. Run the measured code synchronously.
///
/// ```swift
/// // Package.swift
/// .testTarget(name: "MyTests", dependencies: [
///     .product(name: "UVCombineTesting", package: "UVCombine"),
///     .product(name: "UVCombineAllocationCounting", package: "UVCombine"),
/// ])
/// ```
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
        let before = uvc_allocation_hooks_thread_total()
        try body()
        return uvc_allocation_hooks_thread_total() - before
    }

    /// The number of allocations the calling thread has made so far.
    public static var threadTotal: Int { uvc_allocation_hooks_thread_total() }

    /// Whether allocations are counted. False when the process does not link
    /// `UVCombineAllocationCounting`, and in builds with AddressSanitizer or
    /// ThreadSanitizer (`make asan`, `make tsan`), whose runtimes own
    /// `malloc`: the interposer is compiled out there and every count is 0.
    /// Allocation tests are disabled unless this is true.
    ///
    /// ```swift
    /// @Test(.enabled(if: AllocationCounter.isCounting)) func noMallocs() { ... }
    /// ```
    public static var isCounting: Bool { uvc_allocation_hooks_is_counting() != 0 }
}
