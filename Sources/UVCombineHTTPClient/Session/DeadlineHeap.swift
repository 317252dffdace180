import UVCombineHTTPCore

/// Something with a deadline in a ``DeadlineHeap``: a task (its idle read
/// and total timeouts) or a connection (its connect or idle timeout).
///
/// A base class rather than a protocol so the heap stores plain references
/// (no existential boxes); the heap writes `heapIndex` as entries move.
/// Loop thread only.
@usableFromInline
package class DeadlineEntry {
    /// The entry's position in the heap, or -1 when it is not in it.
    @exclusivity(unchecked) package final var heapIndex = -1
    /// The deadline the entry waits for, in nanoseconds (valid while in
    /// the heap).
    @exclusivity(unchecked) package final var heapDeadline: UInt64 = 0
    /// When the entry was last scheduled, among the heap's schedules: the
    /// tie-break that makes equal deadlines come out in that order.
    @exclusivity(unchecked) package final var heapSequence: UInt64 = 0

    @usableFromInline
    package init() {}

    /// Whether the entry waits in a heap.
    package final var isScheduled: Bool { heapIndex >= 0 }
}

/// A binary min-heap of deadlines, indexed so that any entry can be moved or
/// removed in O(log n): all of a session's timeouts share the session's one
/// timer, armed for the earliest deadline.
///
/// Equal deadlines come out in the order they were scheduled (a moved
/// entry counts as scheduled when it moved), as libuv's timers do: a
/// connection and a task that time out in the same millisecond are handled
/// in a predictable order. Allocates only while growing (the array keeps
/// its capacity).
///
/// ```swift
/// var heap = DeadlineHeap()
/// heap.schedule(task, at: 5_000)
/// heap.schedule(connection, at: 1_000)
/// heap.earliest === connection // true
/// heap.remove(connection)
/// ```
///
/// Threading: a value type owned by the session engine (loop thread).
package struct DeadlineHeap {
    private var entries: [DeadlineEntry] = []
    /// The next `heapSequence`; 2^64 schedules do not happen.
    private var nextSequence: UInt64 = 0

    package init() {}

    /// The number of scheduled entries.
    package var count: Int { entries.count }

    /// The entry with the earliest deadline.
    package var earliest: DeadlineEntry? { entries.first }

    /// Schedules `entry` at `deadline`, or moves it there if it is
    /// scheduled already.
    package mutating func schedule(_ entry: DeadlineEntry, at deadline: UInt64) {
        entry.heapSequence = nextSequence
        nextSequence &+= 1
        if entry.heapIndex >= 0 {
            // The new sequence is the largest, so an equal deadline moves later.
            let earlier = deadline < entry.heapDeadline
            entry.heapDeadline = deadline
            if earlier { siftUp(entry.heapIndex) } else { siftDown(entry.heapIndex) }
            return
        }
        entry.heapDeadline = deadline
        entry.heapIndex = entries.count
        entries.append(entry)
        siftUp(entries.count - 1)
    }

    /// Removes `entry` if it is scheduled.
    package mutating func remove(_ entry: DeadlineEntry) {
        let index = entry.heapIndex
        guard index >= 0 else { return }
        entry.heapIndex = -1
        let last = entries.count - 1
        if index != last {
            // The last entry takes the removed one's place: swapped in the
            // buffer (moves, no retain or release), then sifted.
            entries.withUnsafeMutableBufferPointer { $0.swapAt(index, last) }
        }
        entries.removeLast()
        guard index != last else { return }
        let moves = entries.withUnsafeMutableBufferPointer { buffer in
            buffer[index].heapIndex = index
            return index > 0 && Self.precedes(buffer[index], buffer[(index - 1) / 2])
        }
        if moves {
            siftUp(index)
        } else {
            siftDown(index)
        }
    }

    /// Removes and returns the earliest entry if its deadline is at or
    /// before `now`.
    package mutating func popDue(now: UInt64) -> DeadlineEntry? {
        guard let first = entries.first, first.heapDeadline <= now else { return nil }
        remove(first)
        return first
    }

    /// Unschedules every entry.
    package mutating func removeAll() {
        for entry in entries { entry.heapIndex = -1 }
        entries.removeAll()
    }

    /// Whether `a` comes out before `b`: the earlier deadline, then the
    /// earlier schedule.
    private static func precedes(_ a: DeadlineEntry, _ b: DeadlineEntry) -> Bool {
        a.heapDeadline < b.heapDeadline || (a.heapDeadline == b.heapDeadline && a.heapSequence < b.heapSequence)
    }

    // The sifts move references inside the array's buffer (`move`,
    // `moveInitialize`, `initialize`) instead of reading and writing
    // elements, which retained and released an entry at every step and
    // checked the buffer's uniqueness at every write: with the heap's
    // other operations about 1,200 instructions per HTTP request for a
    // heap of two entries (callgrind, issue 17).

    private mutating func siftUp(_ start: Int) {
        entries.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            var index = start
            // A hole at `index`; `entry` owns the reference meanwhile.
            let entry = (base + index).move()
            while index > 0 {
                let parent = (index - 1) / 2
                guard Self.precedes(entry, base[parent]) else { break }
                (base + index).moveInitialize(from: base + parent, count: 1)
                base[index].heapIndex = index
                index = parent
            }
            entry.heapIndex = index
            (base + index).initialize(to: entry)
        }
    }

    private mutating func siftDown(_ start: Int) {
        entries.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            let count = buffer.count
            var index = start
            let entry = (base + index).move()
            while true {
                let left = 2 * index + 1
                guard left < count else { break }
                let right = left + 1
                var child = left
                if right < count && Self.precedes(base[right], base[left]) { child = right }
                guard Self.precedes(base[child], entry) else { break }
                (base + index).moveInitialize(from: base + child, count: 1)
                base[index].heapIndex = index
                index = child
            }
            entry.heapIndex = index
            (base + index).initialize(to: entry)
        }
    }
}
