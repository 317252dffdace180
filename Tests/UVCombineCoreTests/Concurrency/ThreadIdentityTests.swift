import Synchronization
import Testing
@testable import UVCombineCore
import UVCombineTesting

#if canImport(Glibc)
import Glibc
#endif

/// `pthread_self()` behind a call the optimiser cannot see through: the
/// oracle the package's inline identity read is checked against.
@inline(never) @_optimize(none)
private func oracleThread() -> UInt {
    UInt(pthread_self())
}

/// The package's thread identity (`currentThreadIdentity()`): one inline
/// read of the thread pointer, issue 32's replacement for issue 29's call.
@Suite("Thread identity")
struct ThreadIdentityTests {
    #if os(Linux) && arch(x86_64)
    /// On x86-64 Linux the thread pointer is what glibc's `pthread_self()`
    /// returns, so the loop's and the tests' identities agree.
    @Test("equals pthread_self() on x86-64 Linux, on the main and on spawned threads")
    func equalsPthreadSelf() {
        #expect(currentThreadIdentity() == oracleThread())
        let mismatches = Atomic<Int>(0)
        TestThread.run(4) { _ in
            for _ in 0..<1_000 where currentThreadIdentity() != oracleThread() {
                mismatches.add(1, ordering: .relaxed)
            }
        }
        #expect(mismatches.load(ordering: .relaxed) == 0)
    }
    #endif

    /// Never 0, stable on one thread, different between live threads.
    @Test("is non-zero, stable per thread and distinct between live threads")
    func distinctAndStable() {
        let threads = 8
        let ids = Mutex<[UInt]>([])
        let unstable = Atomic<Int>(0)
        TestThread.run(threads) { _ in
            let first = currentThreadIdentity()
            for _ in 0..<10_000 where currentThreadIdentity() != first {
                unstable.add(1, ordering: .relaxed)
            }
            ids.withLock { $0.append(first) }
        }
        let seen = ids.withLock { $0 }
        #expect(seen.count == threads)
        #expect(!seen.contains(0))
        #expect(Set(seen).count == threads)
        #expect(unstable.load(ordering: .relaxed) == 0)
    }

    /// The read is not merged with one taken before an `await`: after each
    /// hop to a detached task the identity follows the thread the code now
    /// runs on, every time (the failure of issue 29 was a hoisted read).
    @Test("follows the thread across awaits, for every one of 2,000 hops")
    func followsTheThreadAcrossAwaits() async {
        var wrong = 0
        for _ in 0..<2_000 {
            _ = await Task.detached { currentThreadIdentity() }.value
            if currentThreadIdentity() != oracleThread() { wrong += 1 }
        }
        #expect(wrong == 0)
    }
}
