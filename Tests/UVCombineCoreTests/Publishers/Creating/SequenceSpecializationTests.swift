import Testing
import UVCombineCore
import UVCombineTesting

// Issue 16 §2: every operator Combine specialises on `Publishers.Sequence`
// returns the type Combine declares (each result is stored in a variable of
// that exact type) and publishes what the general operator would.
@Suite("Publishers.Sequence specialisations")
struct SequenceSpecializationTests {
    let numbers = [3, 1, 4, 1, 5].publisher
    let failing = [3, 1, 4, 1, 5].publisher.setFailureType(to: TestError.self)

    @Test func minByMaxByFirstWhereAreOptionalPublishersWhenNeverFailing() throws {
        let low: Optional<Int>.Publisher = numbers.min(by: <)
        let high: Optional<Int>.Publisher = numbers.max(by: <)
        let firstBig: Optional<Int>.Publisher = numbers.first { $0 > 3 }
        #expect(low.output == 1 && high.output == 5 && firstBig.output == 4)
        #expect([Int]().publisher.min(by: <).output == nil)
        #expect(numbers.first { $0 > 9 }.output == nil)
        #expect(emitted(low) == ["value(1)", "finished"])
    }

    @Test func allSatisfy() throws {
        let p: Result<Bool, Never>.Publisher = numbers.allSatisfy { $0 > 0 }
        let typed: Result<Bool, TestError>.Publisher = failing.allSatisfy { $0 > 1 }
        #expect(p.result == .success(true))
        #expect(typed.result == .success(false))
        #expect([Int]().publisher.allSatisfy { _ in false }.result == .success(true))
    }

    @Test func tryAllSatisfy() throws {
        let p: Result<Bool, any Error>.Publisher = numbers.tryAllSatisfy { $0 > 0 }
        #expect(try p.result.get())
        #expect(throws: Oops()) { try numbers.tryAllSatisfy { _ in throw Oops() }.result.get() }
    }

    @Test func collect() throws {
        let p: Result<[Int], Never>.Publisher = numbers.collect()
        #expect(p.result == .success([3, 1, 4, 1, 5]))
        #expect(emitted(p) == ["value([3, 1, 4, 1, 5])", "finished"])
    }

    @Test func compactMap() throws {
        let p: Publishers.Sequence<[Int], Never> = ["1", "x", "3"].publisher.compactMap { Int($0) }
        #expect(p.sequence == [1, 3])
        #expect(emitted(p) == ["value(1)", "value(3)", "finished"])
    }

    @Test func containsWhereAndTryContainsWhere() throws {
        let p: Result<Bool, TestError>.Publisher = failing.contains { $0 == 4 }
        let q: Result<Bool, any Error>.Publisher = numbers.tryContains { $0 == 9 }
        #expect(p.result == .success(true))
        #expect(try q.result.get() == false)
        #expect(throws: Oops()) { try numbers.tryContains { _ in throw Oops() }.result.get() }
    }

    @Test func dropWhile() throws {
        let p: Publishers.Sequence<DropWhileSequence<[Int]>, Never> = numbers.drop { $0 != 4 }
        #expect(Array(p.sequence) == [4, 1, 5])
        #expect(emitted(p) == ["value(4)", "value(1)", "value(5)", "finished"])
    }

    @Test func dropFirst() throws {
        let p: Publishers.Sequence<DropFirstSequence<[Int]>, Never> = numbers.dropFirst(3)
        let one: Publishers.Sequence<DropFirstSequence<[Int]>, Never> = numbers.dropFirst()
        #expect(Array(p.sequence) == [1, 5])
        #expect(Array(one.sequence) == [1, 4, 1, 5])
    }

    @Test func filter() throws {
        let p: Publishers.Sequence<[Int], TestError> = failing.filter { $0 != 1 }
        #expect(p.sequence == [3, 4, 5])
    }

    @Test func ignoreOutput() throws {
        let p: Empty<Int, Never> = numbers.ignoreOutput()
        #expect(p.completeImmediately)
        #expect(emitted(p) == ["finished"])
    }

    @Test func map() throws {
        let p: Publishers.Sequence<[String], Never> = [1, 2].publisher.map { "\($0)" }
        #expect(p.sequence == ["1", "2"])
        #expect(emitted(p) == ["value(1)", "value(2)", "finished"])
    }

    @Test func prefix() throws {
        let p: Publishers.Sequence<PrefixSequence<[Int]>, Never> = numbers.prefix(2)
        #expect(Array(p.sequence) == [3, 1])
    }

    @Test func prefixWhile() throws {
        let p: Publishers.Sequence<[Int], Never> = numbers.prefix { $0 != 4 }
        #expect(p.sequence == [3, 1])
    }

    @Test func reduceAndTryReduce() throws {
        let sum: Result<Int, TestError>.Publisher = failing.reduce(0, +)
        let product: Result<Int, any Error>.Publisher = numbers.tryReduce(1, *)
        #expect(sum.result == .success(14))
        #expect(try product.result.get() == 60)
        #expect(throws: Oops()) { try numbers.tryReduce(0) { _, _ in throw Oops() }.result.get() }
    }

    @Test func replaceNil() throws {
        let p: Publishers.Sequence<[Int?], Never> = [1, nil, 3].publisher.replaceNil(with: 0)
        #expect(p.sequence == [1, 0, 3])
    }

    @Test func scan() throws {
        let p: Publishers.Sequence<[Int], Never> = [1, 2, 3].publisher.scan(10, +)
        #expect(p.sequence == [11, 13, 16])
        #expect(emitted(p) == ["value(11)", "value(13)", "value(16)", "finished"])
    }

    @Test func setFailureType() throws {
        let p: Publishers.Sequence<[Int], TestError> = [1].publisher.setFailureType(to: TestError.self)
        #expect(p.sequence == [1])
    }

    @Test func removeDuplicatesDropsConsecutiveRepeatsOnly() throws {
        let p: Publishers.Sequence<[Int], Never> = [1, 1, 2, 2, 1].publisher.removeDuplicates()
        #expect(p.sequence == [1, 2, 1])
    }

    @Test func containsOutput() throws {
        let p: Result<Bool, Never>.Publisher = numbers.contains(5)
        let q: Result<Bool, TestError>.Publisher = failing.contains(9)
        #expect(p.result == .success(true))
        #expect(q.result == .success(false))
    }

    @Test func minAndMax() throws {
        let low: Optional<Int>.Publisher = numbers.min()
        let high: Optional<Int>.Publisher = numbers.max()
        #expect(low.output == 1 && high.output == 5)
        #expect([Int]().publisher.max().output == nil)
    }

    @Test func firstOfACollection() throws {
        let p: Optional<Int>.Publisher = numbers.first()
        #expect(p.output == 3)
        #expect([Int]().publisher.first().output == nil)
        // A sequence that is not a collection keeps the general operator.
        let general: Publishers.First<Publishers.Sequence<StrideTo<Int>, Never>> = stride(from: 0, to: 3, by: 1)
            .publisher.first()
        #expect(emitted(general) == ["value(0)", "finished"])
    }

    @Test func outputAtIndex() throws {
        let p: Optional<Int>.Publisher = numbers.output(at: 2)
        #expect(p.output == 4)
        #expect(numbers.output(at: 9).output == nil)
        #expect(numbers.output(at: -1).output == nil)
        // A collection that is not random-access (Set is only a Collection).
        let seven = Set([7])
        let set: Optional<Int>.Publisher = seven.publisher.output(at: seven.startIndex)
        #expect(set.output == 7)
    }

    @Test func outputInRange() throws {
        let p: Publishers.Sequence<[Int], Never> = numbers.output(in: 1..<3)
        let typed: Publishers.Sequence<[Int], TestError> = failing.output(in: 0..<1)
        #expect(p.sequence == [1, 4])
        #expect(typed.sequence == [3])
    }

    @Test func countIsAJustOnANeverFailingRandomAccessCollection() throws {
        let p: Just<Int> = numbers.count()
        #expect(p.output == 5)
        #expect(emitted(p) == ["value(5)", "finished"])
    }

    @Test func countIsAResultPublisherOtherwise() throws {
        let failingArray: Result<Int, TestError>.Publisher = failing.count()
        let set: Result<Int, Never>.Publisher = Set([1, 2]).publisher.count()
        #expect(failingArray.result == .success(5))
        #expect(set.result == .success(2))
    }

    @Test func lastAndLastWhere() throws {
        let last: Optional<Int>.Publisher = numbers.last()
        let lastSmall: Optional<Int>.Publisher = numbers.last { $0 < 3 }
        #expect(last.output == 5 && lastSmall.output == 1)
        #expect([Int]().publisher.last().output == nil)
    }

    @Test func appendAndPrependStaySequences() throws {
        let appended: Publishers.Sequence<[Int], Never> = [1].publisher.append(2, 3)
        let prepended: Publishers.Sequence<[Int], Never> = [3].publisher.prepend([1, 2])
        #expect(appended.sequence == [1, 2, 3])
        #expect(prepended.sequence == [1, 2, 3])
    }
}
