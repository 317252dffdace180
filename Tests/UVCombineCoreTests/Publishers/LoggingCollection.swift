/// A range-replaceable collection with reference semantics that logs the
/// calls made on it, the way Combine's own tests observe how an operator
/// builds a collection (which calls, in which order, in place or not).
/// Index-level calls (`startIndex`, `subscript`, ...) are not logged: they
/// depend on the standard library's copying strategy, not on the operator.
final class LoggingCollection<Element>: RangeReplaceableCollection, @unchecked Sendable {
    // @unchecked Sendable: used on one thread per test.
    enum Call: String, CustomStringConvertible {
        case makeIterator, underestimatedCount, count
        case emptyInit, initFromSequence, reserveCapacity, append, appendSequence

        var description: String { rawValue }
    }

    private(set) var log: [Call]
    private(set) var storage: [Element]

    init() {
        log = [.emptyInit]
        storage = []
    }

    init<S: Sequence>(_ elements: S) where S.Element == Element {
        log = [.initFromSequence]
        storage = Array(elements)
    }

    func makeIterator() -> IndexingIterator<[Element]> {
        log.append(.makeIterator)
        return storage.makeIterator()
    }

    var underestimatedCount: Int {
        log.append(.underestimatedCount)
        return storage.underestimatedCount
    }

    var count: Int {
        log.append(.count)
        return storage.count
    }

    var startIndex: Int { storage.startIndex }
    var endIndex: Int { storage.endIndex }
    func index(after i: Int) -> Int { i + 1 }
    subscript(position: Int) -> Element { storage[position] }

    func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == Element {
        storage.replaceSubrange(subrange, with: newElements)
    }

    func reserveCapacity(_ n: Int) {
        log.append(.reserveCapacity)
        storage.reserveCapacity(n)
    }

    func append(_ newElement: Element) {
        log.append(.append)
        storage.append(newElement)
    }

    func append<S: Sequence>(contentsOf newElements: S) where S.Element == Element {
        log.append(.appendSequence)
        storage.append(contentsOf: newElements)
    }
}
