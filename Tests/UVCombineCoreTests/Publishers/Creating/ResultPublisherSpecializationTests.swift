import Testing
import UVCombineCore
import UVCombineTesting

// Issue 16 §2: every operator Combine specialises on `Result.Publisher`
// returns the type Combine declares (each result is stored in a variable of
// that exact type) and carries the right payload; a failure passes through.
@Suite("Result.Publisher specialisations")
struct ResultPublisherSpecializationTests {
    typealias Sut<Output> = Result<Output, TestError>.Publisher

    let ok = Sut<Int>(4)
    let bad = Sut<Int>(TestError.boom)

    @Test func containsOutput() throws {
        let yes: Result<Bool, TestError>.Publisher = ok.contains(4)
        let no: Result<Bool, TestError>.Publisher = ok.contains(5)
        #expect(yes.result == .success(true))
        #expect(no.result == .success(false))
        #expect(bad.contains(4).result == .failure(.boom))
        #expect(emitted(yes) == ["value(true)", "finished"])
    }

    @Test func removeDuplicates() throws {
        let p: Result<Int, TestError>.Publisher = ok.removeDuplicates()
        #expect(p == ok)
        #expect(bad.removeDuplicates() == bad)
    }

    @Test func minAndMax() throws {
        let low: Result<Int, TestError>.Publisher = ok.min()
        let high: Result<Int, TestError>.Publisher = ok.max()
        #expect(low == ok && high == ok)
        #expect(bad.min() == bad && bad.max() == bad)
    }

    @Test func allSatisfy() throws {
        var calls = 0
        let p: Result<Bool, TestError>.Publisher = ok.allSatisfy { calls += 1; return $0 > 3 }
        #expect(p.result == .success(true))
        #expect(bad.allSatisfy { calls += 1; return $0 > 3 }.result == .failure(.boom))
        #expect(calls == 1)
        #expect(emitted(p) == ["value(true)", "finished"])
    }

    @Test func tryAllSatisfy() throws {
        let p: Result<Bool, any Error>.Publisher = ok.tryAllSatisfy { $0 > 5 }
        #expect(try p.result.get() == false)
        #expect(throws: Oops()) { try ok.tryAllSatisfy { _ in throw Oops() }.result.get() }
        #expect(throws: TestError.boom) { try bad.tryAllSatisfy { _ in throw Oops() }.result.get() }
    }

    @Test func containsWhere() throws {
        let p: Result<Bool, TestError>.Publisher = ok.contains { $0 == 4 }
        #expect(p.result == .success(true))
        #expect(bad.contains { $0 == 4 }.result == .failure(.boom))
    }

    @Test func tryContainsWhere() throws {
        let p: Result<Bool, any Error>.Publisher = ok.tryContains { $0 == 3 }
        #expect(try p.result.get() == false)
        #expect(throws: Oops()) { try ok.tryContains { _ in throw Oops() }.result.get() }
        #expect(throws: TestError.boom) { try bad.tryContains { _ in throw Oops() }.result.get() }
    }

    @Test func collect() throws {
        let p: Result<[Int], TestError>.Publisher = ok.collect()
        #expect(p.result == .success([4]))
        #expect(bad.collect().result == .failure(.boom))
        #expect(emitted(p) == ["value([4])", "finished"])
    }

    @Test func minByAndMaxByDoNotCallTheComparator() throws {
        var calls = 0
        let low: Result<Int, TestError>.Publisher = ok.min { calls += 1; return $0 < $1 }
        let high: Result<Int, TestError>.Publisher = ok.max { calls += 1; return $0 < $1 }
        #expect(low == ok && high == ok)
        #expect(calls == 0)
    }

    @Test func tryMinByAndTryMaxByCallTheComparatorOnceWithTheValueTwice() throws {
        var seen: [[Int]] = []
        let low: Result<Int, any Error>.Publisher = ok.tryMin { seen.append([$0, $1]); return $0 < $1 }
        let high: Result<Int, any Error>.Publisher = ok.tryMax { seen.append([$0, $1]); return $0 < $1 }
        #expect(try low.result.get() == 4)
        #expect(try high.result.get() == 4)
        #expect(seen == [[4, 4], [4, 4]])
        #expect(throws: Oops()) { try ok.tryMin { _, _ in throw Oops() }.result.get() }
        #expect(throws: Oops()) { try ok.tryMax { _, _ in throw Oops() }.result.get() }
        #expect(throws: TestError.boom) { try bad.tryMin { _, _ in throw Oops() }.result.get() }
    }

    @Test func count() throws {
        let p: Result<Int, TestError>.Publisher = Sut<String>("x").count()
        #expect(p.result == .success(1))
        #expect(bad.count().result == .failure(.boom))
    }

    @Test func firstAndLast() throws {
        let first: Result<Int, TestError>.Publisher = ok.first()
        let last: Result<Int, TestError>.Publisher = ok.last()
        #expect(first == ok && last == ok)
        #expect(bad.first() == bad && bad.last() == bad)
    }

    @Test func ignoreOutputIsAnEmptyThatFinishesEvenForAFailure() throws {
        let p: Empty<Int, TestError> = ok.ignoreOutput()
        #expect(p.completeImmediately)
        #expect(emitted(p) == ["finished"])
        #expect(emitted(bad.ignoreOutput()) == ["finished"])
    }

    @Test func map() throws {
        let p: Result<String, TestError>.Publisher = ok.map { "\($0)!" }
        #expect(p.result == .success("4!"))
        #expect(bad.map { "\($0)!" }.result == .failure(.boom))
        #expect(emitted(p) == ["value(4!)", "finished"])
    }

    @Test func tryMap() throws {
        let p: Result<String, any Error>.Publisher = ok.tryMap { "\($0)" }
        #expect(try p.result.get() == "4")
        #expect(throws: Oops()) { try ok.tryMap { _ -> Int in throw Oops() }.result.get() }
        #expect(throws: TestError.boom) { try bad.tryMap { _ -> Int in throw Oops() }.result.get() }
        #expect(emitted(ok.tryMap { _ -> Int in throw Oops() }) == ["failure(oops)"])
    }

    @Test func mapError() throws {
        let p: Result<Int, Oops>.Publisher = bad.mapError { _ in Oops() }
        #expect(p.result == .failure(Oops()))
        #expect(ok.mapError { _ in Oops() }.result == .success(4))
        #expect(emitted(p) == ["failure(oops)"])
    }

    @Test func removeDuplicatesByDoesNotCallThePredicate() throws {
        var calls = 0
        let p: Result<Int, TestError>.Publisher = ok.removeDuplicates { calls += 1; return $0 == $1 }
        #expect(p == ok)
        #expect(calls == 0)
    }

    @Test func tryRemoveDuplicatesBy() throws {
        var seen: [[Int]] = []
        let p: Result<Int, any Error>.Publisher = ok.tryRemoveDuplicates { seen.append([$0, $1]); return $0 == $1 }
        #expect(try p.result.get() == 4)
        #expect(seen == [[4, 4]])
        #expect(throws: Oops()) { try ok.tryRemoveDuplicates { _, _ in throw Oops() }.result.get() }
        #expect(throws: TestError.boom) { try bad.tryRemoveDuplicates { _, _ in throw Oops() }.result.get() }
    }

    @Test func replaceErrorNeverFails() throws {
        let p: Result<Int, Never>.Publisher = bad.replaceError(with: 9)
        #expect(p.result == .success(9))
        #expect(ok.replaceError(with: 9).result == .success(4))
        #expect(emitted(p) == ["value(9)", "finished"])
    }

    @Test func replaceEmptyAndRetryAreTheSamePublisher() throws {
        let replaced: Result<Int, TestError>.Publisher = ok.replaceEmpty(with: 9)
        let retried: Result<Int, TestError>.Publisher = bad.retry(3)
        #expect(replaced == ok)
        #expect(retried == bad)
        #expect(bad.replaceEmpty(with: 9) == bad)
    }

    @Test func reduce() throws {
        let p: Result<Int, TestError>.Publisher = ok.reduce(10, +)
        #expect(p.result == .success(14))
        #expect(bad.reduce(10, +).result == .failure(.boom))
    }

    @Test func tryReduce() throws {
        let p: Result<Int, any Error>.Publisher = ok.tryReduce(10, *)
        #expect(try p.result.get() == 40)
        #expect(throws: Oops()) { try ok.tryReduce(10) { _, _ in throw Oops() }.result.get() }
        #expect(throws: TestError.boom) { try bad.tryReduce(10) { _, _ in throw Oops() }.result.get() }
    }

    @Test func scan() throws {
        let p: Result<Int, TestError>.Publisher = ok.scan(10, +)
        #expect(p.result == .success(14))
        #expect(bad.scan(10, +).result == .failure(.boom))
        #expect(emitted(p) == ["value(14)", "finished"])
    }

    @Test func tryScan() throws {
        let p: Result<Int, any Error>.Publisher = ok.tryScan(10, *)
        #expect(try p.result.get() == 40)
        #expect(throws: Oops()) { try ok.tryScan(10) { _, _ in throw Oops() }.result.get() }
        #expect(throws: TestError.boom) { try bad.tryScan(10) { _, _ in throw Oops() }.result.get() }
    }

    @Test func setFailureType() throws {
        let p: Result<Int, TestError>.Publisher = Result<Int, Never>.Publisher(4).setFailureType(to: TestError.self)
        #expect(p.result == .success(4))
        #expect(emitted(p) == ["value(4)", "finished"])
    }
}
