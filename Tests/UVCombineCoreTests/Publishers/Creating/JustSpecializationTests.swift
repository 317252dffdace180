import Testing
import UVCombineCore
import UVCombineTesting

// Issue 16 §2: every operator Combine specialises on `Just` returns the type
// Combine declares (each result is stored in a variable of that exact type)
// and carries the right payload.
@Suite("Just specialisations")
struct JustSpecializationTests {
    let four = Just(4)

    @Test func minAndMax() throws {
        let low: Just<Int> = four.min()
        let high: Just<Int> = four.max()
        #expect(low == four && high == four)
    }

    @Test func containsAndRemoveDuplicates() throws {
        let yes: Just<Bool> = four.contains(4)
        let same: Just<Int> = four.removeDuplicates()
        #expect(yes.output && !four.contains(5).output)
        #expect(same == four)
    }

    @Test func allSatisfyAndTryAllSatisfy() throws {
        let p: Just<Bool> = four.allSatisfy { $0 > 3 }
        let q: Result<Bool, any Error>.Publisher = four.tryAllSatisfy { $0 > 5 }
        #expect(p.output)
        #expect(try q.result.get() == false)
        #expect(throws: Oops()) { try four.tryAllSatisfy { _ in throw Oops() }.result.get() }
    }

    @Test func collect() throws {
        let p: Just<[Int]> = four.collect()
        #expect(p.output == [4])
        #expect(emitted(p) == ["value([4])", "finished"])
    }

    @Test func compactMap() throws {
        let some: Optional<Int>.Publisher = Just("7").compactMap { Int($0) }
        #expect(some.output == 7)
        #expect(Just("x").compactMap { Int($0) }.output == nil)
    }

    @Test func minByAndMaxBy() throws {
        let low: Just<Int> = four.min(by: <)
        let high: Just<Int> = four.max(by: <)
        #expect(low == four && high == four)
    }

    @Test func prependAndAppend() throws {
        let before: Publishers.Sequence<[Int], Never> = four.prepend(1, 2)
        let beforeSequence: Publishers.Sequence<[Int], Never> = four.prepend(1...2)
        let after: Publishers.Sequence<[Int], Never> = four.append(5, 6)
        let afterSequence: Publishers.Sequence<[Int], Never> = four.append(5...6)
        #expect(before.sequence == [1, 2, 4] && beforeSequence.sequence == [1, 2, 4])
        #expect(after.sequence == [4, 5, 6] && afterSequence.sequence == [4, 5, 6])
    }

    @Test func containsWhereAndTryContainsWhere() throws {
        let p: Just<Bool> = four.contains { $0 == 4 }
        let q: Result<Bool, any Error>.Publisher = four.tryContains { $0 == 3 }
        #expect(p.output)
        #expect(try q.result.get() == false)
    }

    @Test func count() throws {
        let p: Just<Int> = Just("x").count()
        #expect(p.output == 1)
    }

    @Test func dropFirstAndDropWhile() throws {
        let none: Optional<Int>.Publisher = four.dropFirst()
        let kept: Optional<Int>.Publisher = four.dropFirst(0)
        let dropped: Optional<Int>.Publisher = four.drop { $0 == 4 }
        #expect(none.output == nil && kept.output == 4 && dropped.output == nil)
        #expect(four.drop { $0 == 5 }.output == 4)
    }

    @Test func firstLastAndTheirWhereForms() throws {
        let first: Just<Int> = four.first()
        let last: Just<Int> = four.last()
        let firstWhere: Optional<Int>.Publisher = four.first { $0 > 9 }
        let lastWhere: Optional<Int>.Publisher = four.last { $0 < 9 }
        #expect(first == four && last == four)
        #expect(firstWhere.output == nil && lastWhere.output == 4)
    }

    @Test func filter() throws {
        let p: Optional<Int>.Publisher = four.filter { $0 > 5 }
        #expect(p.output == nil)
        #expect(four.filter { $0 < 5 }.output == 4)
    }

    @Test func ignoreOutput() throws {
        let p: Empty<Int, Never> = four.ignoreOutput()
        #expect(emitted(p) == ["finished"])
    }

    @Test func mapIsAJust() throws {
        let p: Just<Int> = Just(1).map { $0 + 1 }
        #expect(p.output == 2)
        #expect(emitted(p) == ["value(2)", "finished"])
    }

    @Test func tryMap() throws {
        let p: Result<String, any Error>.Publisher = four.tryMap { "\($0)" }
        #expect(try p.result.get() == "4")
        #expect(throws: Oops()) { try four.tryMap { _ -> Int in throw Oops() }.result.get() }
    }

    @Test func mapError() throws {
        let p: Result<Int, TestError>.Publisher = four.mapError { (never: Never) -> TestError in switch never {} }
        #expect(p.result == .success(4))
    }

    @Test func outputAtAndIn() throws {
        let at0: Optional<Int>.Publisher = four.output(at: 0)
        let at1: Optional<Int>.Publisher = four.output(at: 1)
        let inRange: Optional<Int>.Publisher = four.output(in: 0..<3)
        let outOfRange: Optional<Int>.Publisher = four.output(in: 1...)
        #expect(at0.output == 4 && at1.output == nil)
        #expect(inRange.output == 4 && outOfRange.output == nil)
    }

    // OpenCombine's `JustTests.testOutputInRangeOperatorSpecialization`,
    // written against Combine (its comment: "Broken in Apple's Combine?
    // Empty range should result in a nil"): the lower bound alone decides.
    @Test func outputInKeepsTheValueExactlyWhenTheRangeStartsAtZero() {
        #expect(four.output(in: 0..<10).output == 4)
        #expect(four.output(in: 0..<0).output == 4)
        #expect(four.output(in: 0...0).output == 4)
        #expect(four.output(in: 0..<Int.max).output == 4)
        #expect(four.output(in: ..<5).output == 4)
        #expect(four.output(in: -10..<10).output == nil)
        #expect(four.output(in: (-10)...).output == nil)
        #expect(four.output(in: -10...10).output == nil)
        #expect(four.output(in: -10 ..< -5).output == nil)
        #expect(four.output(in: 1..<10).output == nil)
    }

    // `output(at:)` with a negative index traps, as in OpenCombine's
    // reconstruction (`testOutputAtIndexOperatorSpecializationCrashesOnNegativeIndex`).
    @Test func outputAtANegativeIndexTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = Just(4).output(at: -1)
        }
    }

    @Test func prefixAndPrefixWhile() throws {
        let one: Optional<Int>.Publisher = four.prefix(1)
        let zero: Optional<Int>.Publisher = four.prefix(0)
        let whileSmall: Optional<Int>.Publisher = four.prefix { $0 < 3 }
        #expect(one.output == 4 && zero.output == nil && whileSmall.output == nil)
    }

    @Test func reduceAndTryReduce() throws {
        let p: Result<Int, Never>.Publisher = four.reduce(10, +)
        let q: Result<Int, any Error>.Publisher = four.tryReduce(10, *)
        #expect(p.result == .success(14))
        #expect(try q.result.get() == 40)
    }

    @Test func removeDuplicatesByAndTryRemoveDuplicatesBy() throws {
        let p: Just<Int> = four.removeDuplicates { $0 == $1 }
        let q: Result<Int, any Error>.Publisher = four.tryRemoveDuplicates { $0 == $1 }
        #expect(p == four)
        #expect(try q.result.get() == 4)
    }

    @Test func replaceErrorAndReplaceEmpty() throws {
        let p: Just<Int> = four.replaceError(with: 0)
        let q: Just<Int> = four.replaceEmpty(with: 0)
        #expect(p == four && q == four)
    }

    @Test func retryIsAJust() throws {
        let p: Just<Int> = four.retry(3)
        #expect(p == four)
    }

    @Test func scanIsAResultPublisher() throws {
        let p: Result<Int, Never>.Publisher = four.scan(10, +)
        #expect(p.result == .success(14))
        #expect(emitted(p) == ["value(14)", "finished"])
    }

    @Test func tryScan() throws {
        let p: Result<Int, any Error>.Publisher = four.tryScan(10, *)
        #expect(try p.result.get() == 40)
        #expect(throws: Oops()) { try four.tryScan(10) { _, _ in throw Oops() }.result.get() }
    }

    @Test func setFailureType() throws {
        let p: Result<Int, TestError>.Publisher = four.setFailureType(to: TestError.self)
        #expect(p.result == .success(4))
    }
}
