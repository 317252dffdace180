/// Something with a deadline in a ``DeadlineHeap``: a task (its idle read
/// and total timeouts) or a connection (its connect or idle timeout).
///
/// A base class rather than a protocol so the heap stores plain references
/// (no existential boxes); the heap writes `heapIndex` as entries move.
/// Loop thread only.
@usableFromInline
internal class DeadlineEntry {
    /// The entry's position in the heap, or -1 when it is not in it.
    internal final var heapIndex = -1
    /// The deadline the entry waits for, in nanoseconds (valid while in
    /// the heap).
    internal final var heapDeadline: UInt64 = 0

    @usableFromInline
    internal init() {}

    /// Whether the entry waits in a heap.
    internal final var isScheduled: Bool { heapIndex >= 0 }
}

/// A binary min-heap of deadlines, indexed so that any entry can be moved or
/// removed in O(log n): all of a session's timeouts share the session's one
/// timer, armed for the earliest deadline.
///
/// Equal deadlines come out in no particular order. Allocates only while
/// growing (the array keeps its capacity).
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
internal struct DeadlineHeap {
    private var entries: [DeadlineEntry] = []

    internal init() {}

    /// The number of scheduled entries.
    internal var count: Int { entries.count }

    /// The entry with the earliest deadline.
    internal var earliest: DeadlineEntry? { entries.first }

    /// Schedules `entry` at `deadline`, or moves it there if it is
    /// scheduled already.
    internal mutating func schedule(_ entry: DeadlineEntry, at deadline: UInt64) {
        if entry.heapIndex >= 0 {
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
    internal mutating func remove(_ entry: DeadlineEntry) {
        let index = entry.heapIndex
        guard index >= 0 else { return }
        entry.heapIndex = -1
        let last = entries.count - 1
        if index == last {
            entries.removeLast()
            return
        }
        let moved = entries[last]
        entries.removeLast()
        entries[index] = moved
        moved.heapIndex = index
        if index > 0 && moved.heapDeadline < entries[(index - 1) / 2].heapDeadline {
            siftUp(index)
        } else {
            siftDown(index)
        }
    }

    /// Removes and returns the earliest entry if its deadline is at or
    /// before `now`.
    internal mutating func popDue(now: UInt64) -> DeadlineEntry? {
        guard let first = entries.first, first.heapDeadline <= now else { return nil }
        remove(first)
        return first
    }

    /// Unschedules every entry.
    internal mutating func removeAll() {
        for entry in entries { entry.heapIndex = -1 }
        entries.removeAll()
    }

    private mutating func siftUp(_ start: Int) {
        var index = start
        let entry = entries[index]
        while index > 0 {
            let parent = (index - 1) / 2
            let above = entries[parent]
            guard entry.heapDeadline < above.heapDeadline else { break }
            entries[index] = above
            above.heapIndex = index
            index = parent
        }
        entries[index] = entry
        entry.heapIndex = index
    }

    private mutating func siftDown(_ start: Int) {
        var index = start
        let entry = entries[index]
        let count = entries.count
        while true {
            let left = 2 * index + 1
            guard left < count else { break }
            let right = left + 1
            var child = left
            if right < count && entries[right].heapDeadline < entries[left].heapDeadline { child = right }
            let below = entries[child]
            guard below.heapDeadline < entry.heapDeadline else { break }
            entries[index] = below
            below.heapIndex = index
            index = child
        }
        entries[index] = entry
        entry.heapIndex = index
    }
}
