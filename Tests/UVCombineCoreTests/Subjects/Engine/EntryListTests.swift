import Testing
@testable import UVCombineCore

/// The subject engine's subscriber list: first element inline, the rest in
/// an array, subscription order kept through every removal.
@Suite("EntryList")
struct EntryListTests {
    func contents(_ list: EntryList<Int>) -> [Int] {
        var out: [Int] = []
        list.forEach { out.append($0) }
        return out
    }

    @Test func appendKeepsOrderAndCount() {
        var list = EntryList<Int>()
        #expect(list.isEmpty)
        for i in 1...4 { list.append(i) }
        #expect(list.count == 4)
        #expect(contents(list) == [1, 2, 3, 4])
        #expect(list[0] == 1 && list[3] == 4)
    }

    @Test func oneElementNeedsNoArray() {
        var list = EntryList<Int>()
        list.append(7)
        #expect(list.tail.capacity == 0)
        #expect(list[0] == 7)
    }

    @Test func setWritesTheRightElement() {
        var list = EntryList<Int>()
        for i in 1...3 { list.append(i) }
        list[0] = 10
        list[2] += 30
        #expect(contents(list) == [10, 2, 33])
    }

    @Test func removingTheFirstMovesTheSecondInline() {
        var list = EntryList<Int>()
        for i in 1...3 { list.append(i) }
        #expect(list.remove(at: 0) == 1)
        #expect(contents(list) == [2, 3])
        #expect(list.remove(at: 1) == 3)
        #expect(contents(list) == [2])
        #expect(list.remove(at: 0) == 2)
        #expect(list.isEmpty)
        #expect(list.head == nil)
        list.append(9)
        #expect(contents(list) == [9])
    }

    @Test func removeAllKeepsTheOthersInOrder() {
        var list = EntryList<Int>()
        for i in 1...6 { list.append(i) }
        list.removeAll { $0 % 2 == 1 }
        #expect(contents(list) == [2, 4, 6])
        #expect(list.count == 3)
        list.removeAll { $0 == 2 }
        #expect(contents(list) == [4, 6])
        list.removeAll { _ in true }
        #expect(list.isEmpty)
        #expect(list.head == nil)
        list.removeAll { _ in true }
        #expect(list.isEmpty)
    }
}
