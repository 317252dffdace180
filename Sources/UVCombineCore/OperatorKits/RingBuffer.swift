/// A FIFO queue in a circular buffer: `append` and `popFirst` are O(1) and
/// allocate nothing once the buffer has grown to the working size. Capacity
/// is a power of two and only grows (doubling, elements copied in order);
/// popped slots are cleared at once so values are released promptly.
///
/// Used by operators that hand values to a scheduler in batches
/// (`receive(on:)`, `timeout`, `delay`) instead of scheduling one closure
/// per value.
@usableFromInline
internal struct RingBuffer<Element> {
    @usableFromInline internal var storage: ContiguousArray<Element?> = []
    @usableFromInline internal var head = 0
    @usableFromInline internal private(set) var count = 0

    @inlinable
    internal init() {}

    @inlinable
    internal var isEmpty: Bool { count == 0 }

    @inlinable
    internal var capacity: Int { storage.count }

    /// The oldest element, if any.
    @inlinable
    internal var first: Element? {
        count == 0 ? nil : storage[head]
    }

    @inlinable
    internal mutating func append(_ element: Element) {
        if count == storage.count { grow() }
        storage[(head &+ count) & (storage.count &- 1)] = element
        count &+= 1
    }

    @inlinable
    internal mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        var element: Element? = nil
        swap(&element, &storage[head])
        head = (head &+ 1) & (storage.count &- 1)
        count &-= 1
        return element
    }

    /// Drops every element; keeps the storage for reuse unless asked not to.
    @inlinable
    internal mutating func removeAll(keepingCapacity: Bool) {
        if keepingCapacity {
            while popFirst() != nil {}
            head = 0
        } else {
            storage = []
            head = 0
            count = 0
        }
    }

    @inlinable
    internal mutating func grow() {
        let newCapacity = Swift.max(16, storage.count &* 2)
        var bigger = ContiguousArray<Element?>(repeating: nil, count: newCapacity)
        for i in 0..<count {
            swap(&bigger[i], &storage[(head &+ i) & (storage.count &- 1)])
        }
        storage = bigger
        head = 0
    }
}
