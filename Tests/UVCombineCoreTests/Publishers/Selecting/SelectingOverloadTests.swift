import Testing
import UVCombineCore
import UVCombineTesting

/// Combine answers these operators at once for `Just` and
/// `Optional.Publisher`, with simpler result types.
@Suite("Selecting and reducing on Just and Optional.Publisher")
struct SelectingOverloadTests {
    typealias OP = Optional<Int>.Publisher

    @Test func justSelecting() {
        #expect(Just(1).prefix(1) == OP(1))
        #expect(Just(1).prefix(0) == OP(nil))
        #expect(Just(1).output(at: 0) == OP(1))
        #expect(Just(1).output(at: 2) == OP(nil))
        #expect(Just(1).output(in: 0..<2) == OP(1))
        #expect(Just(1).output(in: 1...) == OP(nil))
        #expect(Just(1).output(in: 0..<0) == OP(1)) // as Combine: the lower bound decides (issue 31)
        #expect(Just(1).prefix { $0 > 0 } == OP(1))
        #expect(Just(1).prefix { $0 > 1 } == OP(nil))
        #expect(Just(1).drop { $0 > 0 } == OP(nil))
        #expect(Just(1).drop { $0 > 1 } == OP(1))
        #expect(Just(1).dropFirst() == OP(nil))
        #expect(Just(1).dropFirst(0) == OP(1))
        #expect(Just(1).first() == Just(1))
        #expect(Just(1).first { $0 > 1 } == OP(nil))
        #expect(Just(1).last() == Just(1))
        #expect(Just(1).last { $0 == 1 } == OP(1))
    }

    @Test func justReducingAndMatching() throws {
        #expect(Just(1).collect() == Just([1]))
        #expect(Just(2).reduce(10, +).result.get() == 12)
        #expect(try Just(2).tryReduce(10, +).result.get() == 12)
        #expect(throws: TestError.boom) { try Just(2).tryReduce(10) { _, _ -> Int in throw TestError.boom }.result.get() }
        #expect(Just("a").count() == Just(1))
        #expect(Just(1).contains(1) == Just(true))
        #expect(Just(1).contains { $0 > 1 } == Just(false))
        #expect(try Just(1).tryContains { $0 == 1 }.result.get() == true)
        #expect(Just(1).allSatisfy { $0 > 0 } == Just(true))
        #expect(try Just(1).tryAllSatisfy { $0 > 1 }.result.get() == false)
        #expect(throws: TestError.other) { try Just(1).tryAllSatisfy { _ in throw TestError.other }.result.get() }
        #expect(Just(3).min() == Just(3))
        #expect(Just(3).max() == Just(3))
        #expect(Just(3).min { $0 < $1 } == Just(3))
        #expect(Just(3).max { $0 < $1 } == Just(3))
        #expect(Just(3).removeDuplicates() == Just(3))
        #expect(Just(3).removeDuplicates { $0 == $1 } == Just(3))
        #expect(try Just(3).tryRemoveDuplicates { $0 == $1 }.result.get() == 3)
        #expect(Just(3).replaceEmpty(with: 0) == Just(3))
        #expect(Just(3).ignoreOutput() == Empty<Int, Never>())
    }

    @Test func optionalPublisher() {
        let some = OP(2)
        let none = OP(nil)
        #expect(some.prefix(1) == some)
        #expect(some.prefix(0) == none)
        #expect(some.output(at: 0) == some)
        #expect(some.output(in: 1..<3) == none)
        #expect(some.prefix { $0 > 5 } == none)
        #expect(some.drop { $0 > 5 } == some)
        #expect(some.dropFirst() == none)
        #expect(some.first() == some)
        #expect(some.first { $0 == 2 } == some)
        #expect(none.last() == none)
        #expect(some.last { $0 == 3 } == none)
        #expect(some.collect() == Optional([2]).publisher)
        #expect(none.collect() == Optional([Int]()).publisher)
        #expect(some.reduce(1, +) == OP(3))
        #expect(none.reduce(1, +) == none)
        #expect(some.count() == OP(1))
        #expect(none.count() == none)
        #expect(some.contains(2) == Optional(true).publisher)
        #expect(some.contains { $0 > 2 } == Optional(false).publisher)
        #expect(none.allSatisfy { _ in false } == Optional<Bool>.none.publisher)
        #expect(some.min() == some)
        #expect(some.max { $0 < $1 } == some)
        #expect(some.removeDuplicates() == some)
        #expect(some.removeDuplicates { $0 == $1 } == some)
        #expect(none.replaceEmpty(with: 7) == Just(7))
        #expect(some.replaceEmpty(with: 7) == Just(2))
        #expect(some.ignoreOutput() == Empty<Int, Never>())
    }

    @Test func negativeArgumentsTrap() async {
        await #expect(processExitsWith: .failure) { _ = Just(1).dropFirst(-1) }
        await #expect(processExitsWith: .failure) { _ = Just(1).prefix(-1) }
        await #expect(processExitsWith: .failure) { _ = Optional(1).publisher.output(at: -1) }
    }
}
