import Testing
import UVCombineCore
import UVCombineTesting

/// Steady-state paths of the combining operators must not allocate per
/// element with unlimited demand. Each test warms the path up, then counts
/// the calling thread's mallocs over many elements. Only meaningful
/// optimised (`swift test -c release`).
@Suite("Combining allocations", .enabled(if: isOptimizedBuild, "allocation counts are meaningful only with -c release"))
struct CombiningAllocationTests {
    @Test func mergeAllocatesNothingPerElement() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        var total = 0
        let c = a.merge(with: b).map { $0 &* 2 }.sink { total &+= $0 }
        for i in 0..<1_000 { a.send(i); b.send(i) }
        let mallocs = AllocationCounter.count {
            for i in 0..<10_000 { a.send(i); b.send(i) }
        }
        #expect(mallocs == 0)
        #expect(total > 0)
        c.cancel()
    }

    @Test func mergeManyAllocatesNothingPerElement() {
        let subjects = (0..<6).map { _ in PassthroughSubject<Int, Never>() }
        var total = 0
        let c = Publishers.MergeMany(subjects).sink { total &+= $0 }
        for i in 0..<1_000 { subjects[i % 6].send(i) }
        let mallocs = AllocationCounter.count {
            for i in 0..<10_000 { subjects[i % 6].send(i) }
        }
        #expect(mallocs == 0)
        #expect(total > 0)
        c.cancel()
    }

    @Test func combineLatestAllocatesNothingPerElement() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let c3 = PassthroughSubject<Int, Never>()
        var total = 0
        let c = a.combineLatest(b, c3) { $0 &+ $1 &+ $2 }.sink { total &+= $0 }
        for i in 0..<1_000 { a.send(i); b.send(i); c3.send(i) }
        let mallocs = AllocationCounter.count {
            for i in 0..<10_000 { a.send(i); b.send(i); c3.send(i) }
        }
        #expect(mallocs == 0)
        #expect(total > 0)
        c.cancel()
    }

    @Test func zipAllocatesNothingPerElement() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        var total = 0
        let c = a.zip(b).sink { total &+= $0.0 &+ $0.1 }
        // Warm up with the queues at their working size (a runs ahead by 8).
        for i in 0..<8 { a.send(i) }
        for i in 0..<1_000 { a.send(i); b.send(i) }
        let mallocs = AllocationCounter.count {
            for i in 0..<10_000 { a.send(i); b.send(i) }
        }
        #expect(mallocs == 0)
        #expect(total > 0)
        c.cancel()
    }

    @Test func zipOfFourWithTransformAllocatesNothingPerElement() {
        let subjects = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
        var total = 0
        let c = subjects[0].zip(subjects[1], subjects[2], subjects[3]) { $0 &+ $1 &+ $2 &+ $3 }
            .sink { total &+= $0 }
        for i in 0..<1_000 { for s in subjects { s.send(i) } }
        let mallocs = AllocationCounter.count {
            for i in 0..<10_000 { for s in subjects { s.send(i) } }
        }
        #expect(mallocs == 0)
        #expect(total > 0)
        c.cancel()
    }
}
