import Testing
import UVCombineCore
import UVCombineTesting

/// Fan-out through the connectable family and the error-recovery operators
/// must not allocate per element. Each test warms the path up, then counts
/// the calling thread's mallocs over many elements.
@Suite("Connectable allocations", .enabled(if: isOptimizedBuild, "allocation counts are meaningful only with -c release"))
struct ConnectableAllocationTests {
    /// Where the sinks add up what they receive (one context shared by all).
    final class Total {
        var value = 0
    }

    @Test func shareFanOutToEightSinksAllocatesNothingPerElement() {
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.share()
        let total = Total()
        let sinks = (0..<8).map { _ in shared.sink { total.value &+= $0 } }
        for i in 0..<1_000 { subject.send(i) } // warm up: one-time metadata caches
        let mallocs = AllocationCounter.count {
            for i in 0..<10_000 { subject.send(i) }
        }
        #expect(mallocs == 0)
        #expect(total.value == 8 * (0..<1_000).reduce(0, +) + 8 * (0..<10_000).reduce(0, +))
        for sink in sinks { sink.cancel() }
    }

    @Test func makeConnectableAfterConnectAllocatesNothingPerElement() {
        let subject = PassthroughSubject<Int, Never>()
        let connectable = subject.map { $0 &* 2 }.makeConnectable()
        let total = Total()
        let first = connectable.sink { total.value &+= $0 }
        let second = connectable.sink { total.value &+= $0 }
        let connection = connectable.connect()
        for i in 0..<1_000 { subject.send(i) }
        let mallocs = AllocationCounter.count {
            for i in 0..<10_000 { subject.send(i) }
        }
        #expect(mallocs == 0)
        #expect(total.value > 0)
        connection.cancel()
        first.cancel()
        second.cancel()
    }

    @Test func multicastWithASubjectAllocatesNothingPerElement() {
        let subject = PassthroughSubject<Int, Never>()
        let multicast = subject.filter { $0 % 3 != 0 }.multicast(subject: PassthroughSubject<Int, Never>())
        let total = Total()
        let sinks = (0..<4).map { _ in multicast.sink { total.value &+= $0 } }
        let connection = multicast.connect()
        for i in 0..<1_000 { subject.send(i) }
        let mallocs = AllocationCounter.count {
            for i in 0..<10_000 { subject.send(i) }
        }
        #expect(mallocs == 0)
        #expect(total.value > 0)
        connection.cancel()
        for sink in sinks { sink.cancel() }
    }

    @Test func seedPipelineAllocatesNothingPerElement() {
        // map → catch → share → makeConnectable → two sinks, as in the seed.
        let subject = PassthroughSubject<Int, TestError>()
        let connectable = subject.map { $0 &+ 1 }.catch { _ in Just(0) }.share().makeConnectable()
        let total = Total()
        let first = connectable.sink { total.value &+= $0 }
        let second = connectable.sink { total.value &+= $0 }
        let connection = connectable.connect()
        for i in 0..<1_000 { subject.send(i) }
        let mallocs = AllocationCounter.count {
            for i in 0..<10_000 { subject.send(i) }
        }
        #expect(mallocs == 0)
        #expect(total.value > 0)
        connection.cancel()
        first.cancel()
        second.cancel()
    }

    @Test func retryAndCatchAllocateNothingPerElement() {
        let subject = PassthroughSubject<Int, TestError>()
        let total = Total()
        let c = subject.retry(3).tryCatch { _ in Just(0) }.catch { _ in Just(0) }.sink { total.value &+= $0 }
        for i in 0..<1_000 { subject.send(i) }
        let mallocs = AllocationCounter.count {
            for i in 0..<10_000 { subject.send(i) }
        }
        #expect(mallocs == 0)
        #expect(total.value > 0)
        c.cancel()
    }

    @Test func catchAfterRecoveryAllocatesNothingPerElement() {
        let failing = PassthroughSubject<Int, TestError>()
        let replacement = PassthroughSubject<Int, Never>()
        let total = Total()
        let c = failing.catch { _ in replacement }.sink { total.value &+= $0 }
        failing.send(completion: .failure(.boom))
        for i in 0..<1_000 { replacement.send(i) }
        let mallocs = AllocationCounter.count {
            for i in 0..<10_000 { replacement.send(i) }
        }
        #expect(mallocs == 0)
        #expect(total.value > 0)
        c.cancel()
    }
}
