/// A subject's subscriber entries: the first kept inline, the rest in an
/// array.
///
/// Why: most subjects and shares have one subscriber (a `share()` in front
/// of one `sink`, a subject feeding one pipeline), and an array would cost
/// an allocation for it on every subscription. Indices are positions in
/// subscription order (0 is the inline one); removal keeps that order, as
/// the engine's delivery order is subscription order.
///
/// Not thread-safe: the engine touches it only under its gate.
///
/// ```swift
/// var list = EntryList<Int>()
/// list.append(1)        // inline, no allocation
/// list.append(2)        // the array starts here
/// list[1] += 1          // 3
/// ```
@usableFromInline
internal struct EntryList<Element> {
    /// The first element; nil exactly when the list is empty.
    @usableFromInline internal var head: Element?
    /// Elements 1..<count; empty while `head` is nil.
    @usableFromInline internal var tail: ContiguousArray<Element> = []

    /// An empty list. No allocation.
    @inlinable
    internal init() {}

    @inlinable
    internal var isEmpty: Bool { head == nil }

    /// How many elements there are.
    @inlinable
    internal var count: Int { head == nil ? 0 : 1 &+ tail.count }

    /// The element at `index` (0..<count).
    ///
    /// A getter and a setter, not a `_modify` coroutine: the coroutine was
    /// not always inlined, and its frame then cost an allocation per call
    /// (entries are small trivially-copyable values; writing one whole is
    /// cheap).
    @inlinable
    internal subscript(index: Int) -> Element {
        @inline(__always) get {
            index == 0 ? head.unsafelyUnwrapped : tail[index &- 1]
        }
        @inline(__always) set {
            if index == 0 {
                head = newValue
            } else {
                tail[index &- 1] = newValue
            }
        }
    }

    /// Adds `element` at the end.
    @inlinable
    internal mutating func append(_ element: Element) {
        if head == nil {
            head = element
        } else {
            tail.append(element)
        }
    }

    /// Removes and returns the element at `index`; later elements move up
    /// by one.
    @inlinable
    internal mutating func remove(at index: Int) -> Element {
        precondition(index >= 0 && index < count, "EntryList index out of range")
        if index > 0 { return tail.remove(at: index &- 1) }
        let first = head.unsafelyUnwrapped
        head = tail.isEmpty ? nil : tail.removeFirst()
        return first
    }

    /// Removes every element for which `shouldRemove` is true, keeping the
    /// order of the others.
    @inlinable
    internal mutating func removeAll(where shouldRemove: (Element) -> Bool) {
        guard head != nil else { return }
        let headGoes = shouldRemove(head.unsafelyUnwrapped)
        tail.removeAll(where: shouldRemove)
        if headGoes { head = tail.isEmpty ? nil : tail.removeFirst() }
    }

    /// Calls `body` with each element, in order.
    @inlinable
    internal func forEach(_ body: (Element) -> Void) {
        var i = 0
        while i < count {
            body(self[i])
            i &+= 1
        }
    }
}
