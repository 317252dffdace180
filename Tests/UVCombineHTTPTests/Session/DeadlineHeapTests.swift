import Testing
import UVCombineHTTP
import UVCombineHTTPCore

/// The session's deadline heap: earliest first, and equal deadlines in the
/// order they were scheduled, as libuv's timers fire.
@Suite("DeadlineHeap")
struct DeadlineHeapTests {
    private func drain(_ heap: inout DeadlineHeap, now: UInt64) -> [DeadlineEntry] {
        var out: [DeadlineEntry] = []
        while let entry = heap.popDue(now: now) { out.append(entry) }
        return out
    }

    @Test("equal deadlines come out in the order they were scheduled")
    func equalDeadlinesInInsertionOrder() {
        var heap = DeadlineHeap()
        let entries = (0..<64).map { _ in DeadlineEntry() }
        for entry in entries { heap.schedule(entry, at: 1_000) }
        let out = drain(&heap, now: 1_000)
        #expect(out.count == 64)
        #expect(zip(out, entries).allSatisfy { $0 === $1 })
    }

    @Test("earlier deadlines first; ties among them by schedule order; not before they are due")
    func mixedDeadlines() {
        var heap = DeadlineHeap()
        let a = DeadlineEntry(), b = DeadlineEntry(), c = DeadlineEntry(), d = DeadlineEntry()
        heap.schedule(a, at: 20)
        heap.schedule(b, at: 10)
        heap.schedule(c, at: 20)
        heap.schedule(d, at: 10)
        #expect(heap.popDue(now: 9) == nil)
        let out = drain(&heap, now: 20)
        #expect(out.map(ObjectIdentifier.init) == [b, d, a, c].map(ObjectIdentifier.init))
        #expect(heap.count == 0 && !a.isScheduled)
    }

    @Test("an entry moved to an equal deadline counts as scheduled when it moved")
    func rescheduleGoesLast() {
        var heap = DeadlineHeap()
        let a = DeadlineEntry(), b = DeadlineEntry(), c = DeadlineEntry()
        heap.schedule(a, at: 5)
        heap.schedule(b, at: 5)
        heap.schedule(c, at: 7)
        heap.schedule(a, at: 5)   // moved (to the same deadline): after b
        heap.schedule(c, at: 5)   // moved earlier: after a
        let out = drain(&heap, now: 5)
        #expect(out.map(ObjectIdentifier.init) == [b, a, c].map(ObjectIdentifier.init))
    }

    @Test("removing entries keeps the order of the rest")
    func removeKeepsOrder() {
        var heap = DeadlineHeap()
        let entries = (0..<32).map { _ in DeadlineEntry() }
        for (index, entry) in entries.enumerated() { heap.schedule(entry, at: UInt64(index % 4)) }
        for (index, entry) in entries.enumerated() where index % 3 == 0 { heap.remove(entry) }
        let kept = entries.enumerated().filter { $0.offset % 3 != 0 }
        let expected = kept.sorted { ($0.offset % 4, $0.offset) < ($1.offset % 4, $1.offset) }.map { ObjectIdentifier($0.element) }
        #expect(drain(&heap, now: 10).map(ObjectIdentifier.init) == expected)
    }
}
