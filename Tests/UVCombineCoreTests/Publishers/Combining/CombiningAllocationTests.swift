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
        // Different upstream types: a `Publishers.Merge` (same types would
        // give a `MergeMany`, tested below).
        let merged: Publishers.Merge<PassthroughSubject<Int, Never>, Publishers.Map<PassthroughSubject<Int, Never>, Int>> =
            a.merge(with: b.map { $0 &+ 1 })
        let c = merged.map { $0 &* 2 }.sink { total &+= $0 }
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

    @Test func flatMapInnerValuesAllocateNothingPerElement() {
        let upstream = PassthroughSubject<Int, Never>()
        let inners = (0..<3).map { _ in PassthroughSubject<Int, Never>() }
        var total = 0
        let c = upstream.flatMap { inners[$0] }.sink { total &+= $0 }
        for i in 0..<3 { upstream.send(i) }
        for i in 0..<1_000 { inners[i % 3].send(i) }
        let mallocs = AllocationCounter.count {
            for i in 0..<10_000 { inners[i % 3].send(i) }
        }
        #expect(mallocs == 0)
        #expect(total > 0)
        c.cancel()
    }

    @Test func switchToLatestAndConcatenateAllocateNothingPerElement() {
        let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
        let inner = PassthroughSubject<Int, Never>()
        let prefix = PassthroughSubject<Int, Never>()
        var total = 0
        let c1 = outer.switchToLatest().sink { total &+= $0 }
        let c2 = prefix.append(1, 2).sink { total &+= $0 }
        outer.send(inner)
        for i in 0..<1_000 { inner.send(i); prefix.send(i) }
        let mallocs = AllocationCounter.count {
            for i in 0..<10_000 { inner.send(i); prefix.send(i) }
        }
        #expect(mallocs == 0)
        #expect(total > 0)
        c1.cancel()
        c2.cancel()
    }
}
