import Synchronization
import Testing
import UVCombineCore

@Suite("AnyCancellable")
struct AnyCancellableTests {
    /// A class cancellable is kept as itself with its type's `cancel`; a
    /// struct one as an existential. Both forward exactly once, by
    /// `cancel()` or by the token's death, and the token keeps a class
    /// cancellable alive until then.
    final class Counter: Sendable {
        let value = Mutex(0)
        var current: Int { value.withLock { $0 } }
    }

    final class CountingCancellable: Cancellable {
        let counter: Counter
        init(_ counter: Counter) { self.counter = counter }
        func cancel() { counter.value.withLock { $0 += 1 } }
    }

    struct StructCancellable: Cancellable {
        let target: CountingCancellable
        let padding = (1, 2, 3) // larger than an existential's inline buffer
        func cancel() { target.cancel() }
    }

    @Test func classCancellableIsKeptAliveForwardedOnceThenReleased() {
        let counter = Counter()
        weak var weakTarget: CountingCancellable?
        let token: AnyCancellable
        do {
            let target = CountingCancellable(counter)
            weakTarget = target
            token = AnyCancellable(target)
        }
        #expect(weakTarget != nil)
        token.cancel()
        token.cancel()
        #expect(counter.current == 1)
        #expect(weakTarget == nil)
    }

    @Test func classCancellableIsForwardedOnDeinit() {
        let counter = Counter()
        do {
            _ = AnyCancellable(CountingCancellable(counter))
        }
        #expect(counter.current == 1)
    }

    @Test func structCancellableIsForwardedOnceOnDeinit() {
        let counter = Counter()
        do {
            let token = AnyCancellable(StructCancellable(target: CountingCancellable(counter)))
            token.cancel()
        }
        #expect(counter.current == 1)
    }

    @Test func classCancellableSeenThroughAnExistentialIsForwarded() {
        let counter = Counter()
        let erased: any Cancellable = CountingCancellable(counter)
        let token = AnyCancellable(erased)
        token.cancel()
        #expect(counter.current == 1)
    }

    @Test func cancelRunsOnceAndIsIdempotent() {
        let count = Mutex(0)
        let token = AnyCancellable { count.withLock { $0 += 1 } }
        token.cancel()
        token.cancel()
        #expect(count.withLock { $0 } == 1)
    }

    @Test func deinitCancels() {
        let count = Mutex(0)
        do {
            _ = AnyCancellable { count.withLock { $0 += 1 } }
        }
        #expect(count.withLock { $0 } == 1)
    }

    @Test func cancelThenDeinitRunsOnce() {
        let count = Mutex(0)
        do {
            let token = AnyCancellable { count.withLock { $0 += 1 } }
            token.cancel()
        }
        #expect(count.withLock { $0 } == 1)
    }

    @Test func storeInSetAndRemovalCancels() {
        let count = Mutex(0)
        var set = Set<AnyCancellable>()
        AnyCancellable { count.withLock { $0 += 1 } }.store(in: &set)
        AnyCancellable { count.withLock { $0 += 1 } }.store(in: &set)
        #expect(set.count == 2)
        set.removeAll()
        #expect(count.withLock { $0 } == 2)
    }

    @Test func storeInRangeReplaceableCollection() {
        let count = Mutex(0)
        var bag: [AnyCancellable] = []
        AnyCancellable { count.withLock { $0 += 1 } }.store(in: &bag)
        struct Plain: Cancellable {
            let count: Mutex<Int>.Type
            let bump: () -> Void
            func cancel() { bump() }
        }
        Plain(count: Mutex<Int>.self, bump: { count.withLock { $0 += 10 } }).store(in: &bag)
        #expect(bag.count == 2)
        bag = []
        #expect(count.withLock { $0 } == 11)
    }

    @Test func wrappingAnotherAnyCancellableCancelsItOnce() {
        let count = Mutex(0)
        let inner = AnyCancellable { count.withLock { $0 += 1 } }
        let outer = AnyCancellable(inner)
        outer.cancel()
        inner.cancel()
        #expect(count.withLock { $0 } == 1)
    }

    @Test func hashableByIdentity() {
        let a = AnyCancellable {}
        let b = AnyCancellable {}
        #expect(a == a)
        #expect(a != b)
        #expect(Set([a, b, a]).count == 2)
    }

    @Test func concurrentCancelRunsOnce() async {
        let count = Mutex(0)
        let token = AnyCancellable { count.withLock { $0 += 1 } }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<16 { group.addTask { token.cancel() } }
        }
        #expect(count.withLock { $0 } == 1)
    }
}
