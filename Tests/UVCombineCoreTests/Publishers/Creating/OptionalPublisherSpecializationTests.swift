import Testing
import UVCombineCore
import UVCombineTesting

// Issue 16 §2: every operator Combine specialises on `Optional.Publisher`
// returns the type Combine declares (each result is stored in a variable of
// that exact type) and carries the right payload; `nil` stays `nil`.
@Suite("Optional.Publisher specialisations")
struct OptionalPublisherSpecializationTests {
    let four = Optional(4).publisher
    let none = Optional<Int>.none.publisher

    @Test func containsAndRemoveDuplicates() throws {
        let yes: Optional<Bool>.Publisher = four.contains(4)
        let same: Optional<Int>.Publisher = four.removeDuplicates()
        #expect(yes.output == true && four.contains(5).output == false)
        #expect(none.contains(4).output == nil)
        #expect(same == four)
    }

    @Test func minAndMax() throws {
        let low: Optional<Int>.Publisher = four.min()
        let high: Optional<Int>.Publisher = four.max()
        #expect(low == four && high == four && none.min() == none)
    }

    @Test func allSatisfy() throws {
        let p: Optional<Bool>.Publisher = four.allSatisfy { $0 > 3 }
        #expect(p.output == true)
        #expect(none.allSatisfy { $0 > 3 }.output == nil)
    }

    @Test func collect() throws {
        let p: Optional<[Int]>.Publisher = four.collect()
        #expect(p.output == [4])
        #expect(none.collect().output == []) // as collecting an empty publisher
    }

    @Test func compactMap() throws {
        let p: Optional<String>.Publisher = four.compactMap { $0 > 3 ? "big" : nil }
        #expect(p.output == "big")
    }

    @Test func minByAndMaxBy() throws {
        let low: Optional<Int>.Publisher = four.min(by: <)
        let high: Optional<Int>.Publisher = four.max(by: <)
        #expect(low == four && high == four)
    }

    @Test func containsWhere() throws {
        let p: Optional<Bool>.Publisher = four.contains { $0 == 4 }
        #expect(p.output == true)
    }

    @Test func count() throws {
        let p: Optional<Int>.Publisher = four.count()
        #expect(p.output == 1)
        #expect(none.count().output == nil) // Combine's: no count for nil
    }

    @Test func dropFirstAndDropWhile() throws {
        let dropped: Optional<Int>.Publisher = four.dropFirst()
        let kept: Optional<Int>.Publisher = four.drop { $0 > 9 }
        #expect(dropped.output == nil && kept.output == 4)
    }

    @Test func firstLastAndTheirWhereForms() throws {
        let first: Optional<Int>.Publisher = four.first()
        let last: Optional<Int>.Publisher = four.last()
        let firstWhere: Optional<Int>.Publisher = four.first { $0 > 9 }
        let lastWhere: Optional<Int>.Publisher = four.last { $0 < 9 }
        #expect(first == four && last == four)
        #expect(firstWhere.output == nil && lastWhere.output == 4)
    }

    @Test func filter() throws {
        let p: Optional<Int>.Publisher = four.filter { $0 > 5 }
        #expect(p.output == nil)
    }

    @Test func ignoreOutput() throws {
        let p: Empty<Int, Never> = four.ignoreOutput()
        #expect(emitted(p) == ["finished"])
    }

    @Test func map() throws {
        let p: Optional<String>.Publisher = four.map { "\($0)" }
        #expect(p.output == "4")
        #expect(emitted(p) == ["value(4)", "finished"])
        #expect(emitted(none.map { "\($0)" }) == ["finished"])
    }

    @Test func outputAtAndIn() throws {
        let at0: Optional<Int>.Publisher = four.output(at: 0)
        let inRange: Optional<Int>.Publisher = four.output(in: 1..<3)
        #expect(at0.output == 4 && inRange.output == nil)
    }

    @Test func prefixAndPrefixWhile() throws {
        let one: Optional<Int>.Publisher = four.prefix(1)
        let whileSmall: Optional<Int>.Publisher = four.prefix { $0 < 9 }
        #expect(one.output == 4 && whileSmall.output == 4)
        #expect(four.prefix(0).output == nil)
    }

    @Test func reduceAndScan() throws {
        let reduced: Optional<Int>.Publisher = four.reduce(10, +)
        let scanned: Optional<Int>.Publisher = four.scan(10, +)
        #expect(reduced.output == 14 && scanned.output == 14)
        #expect(none.reduce(10, +).output == nil)
    }

    @Test func removeDuplicatesBy() throws {
        let p: Optional<Int>.Publisher = four.removeDuplicates { $0 == $1 }
        #expect(p == four)
    }

    @Test func replaceErrorAndReplaceEmpty() throws {
        let p: Optional<Int>.Publisher = four.replaceError(with: 0)
        let filled: Just<Int> = none.replaceEmpty(with: 7)
        let kept: Just<Int> = four.replaceEmpty(with: 7)
        #expect(p == four)
        #expect(filled.output == 7 && kept.output == 4)
    }

    @Test func retryIsTheSamePublisher() throws {
        let p: Optional<Int>.Publisher = four.retry(3)
        #expect(p == four)
        #expect(none.retry(1) == none)
    }
}
