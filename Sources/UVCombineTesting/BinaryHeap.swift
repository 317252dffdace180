/// A min-heap in an array: `push` and `popMin` are O(log n), `remove(where:)`
/// is O(n) (a linear search, then one sift). Storage is reused: popping does
/// not shrink the array, so a steady workload stops allocating.
@usableFromInline
internal struct BinaryHeap<Element: Comparable> {
    @usableFromInline internal var storage: ContiguousArray<Element> = []

    @inlinable
    internal init() {}

    @inlinable
    internal var count: Int { storage.count }

    @inlinable
    internal var isEmpty: Bool { storage.isEmpty }

    /// The smallest element, if any.
    @inlinable
    internal var min: Element? { storage.first }

    @inlinable
    internal mutating func push(_ element: Element) {
        storage.append(element)
        siftUp(storage.count - 1)
    }

    @inlinable
    internal mutating func popMin() -> Element? {
        guard !storage.isEmpty else { return nil }
        return remove(at: 0)
    }

    /// Removes the first element matching `predicate` (in storage order).
    @inlinable
    internal mutating func remove(where predicate: (Element) -> Bool) -> Element? {
        guard let index = storage.firstIndex(where: predicate) else { return nil }
        return remove(at: index)
    }

    @inlinable
    internal mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
    }

    @inlinable
    internal mutating func remove(at index: Int) -> Element {
        let last = storage.count - 1
        if index != last { storage.swapAt(index, last) }
        let removed = storage.removeLast()
        if index < storage.count {
            siftDown(index)
            siftUp(index)
        }
        return removed
    }

    @inlinable
    internal mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard storage[child] < storage[parent] else { return }
            storage.swapAt(child, parent)
            child = parent
        }
    }

    @inlinable
    internal mutating func siftDown(_ start: Int) {
        var parent = start
        let count = storage.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { return }
            let right = left + 1
            var smallest = left
            if right < count && storage[right] < storage[left] { smallest = right }
            guard storage[smallest] < storage[parent] else { return }
            storage.swapAt(smallest, parent)
            parent = smallest
        }
    }
}
