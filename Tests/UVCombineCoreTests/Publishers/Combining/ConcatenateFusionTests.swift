import Testing
import UVCombineCore

/// The `Just` and `Publishers.Sequence` specialisations of `prepend` and
/// `append` build their collection as Combine's do. The expected call logs
/// are those OpenCombine's tests recorded against Combine
/// (`SequenceTests.testPrepend…OperatorSpecialization`,
/// `testAppend…OperatorSpecialization`, `JustTests.testPrependOperatorSpecialization`,
/// `testAppendOperatorSpecialization`), with index-level calls left out.
@Suite("prepend and append on Just and sequences build as Combine")
struct ConcatenateFusionTests {
    @Test func sequencePrependValuesSizesFromCountThenAppendsBoth() {
        let base = LoggingCollection([4, 5, 6, 7])
        let result = Publishers.Sequence<LoggingCollection<Int>, Never>(sequence: base).prepend(1, 2, 3).sequence
        #expect(result.storage == [1, 2, 3, 4, 5, 6, 7])
        #expect(base.storage == [4, 5, 6, 7])
        #expect(base.log == [.initFromSequence, .count, .underestimatedCount, .makeIterator])
        #expect(result.log == [.emptyInit, .reserveCapacity, .appendSequence, .appendSequence])
    }

    @Test func sequencePrependSequenceReadsItsUnderestimatedCountOnly() {
        let base = LoggingCollection([4, 5, 6, 7])
        let head = LoggingCollection([1, 2, 3])
        let result = Publishers.Sequence<LoggingCollection<Int>, Never>(sequence: base).prepend(head).sequence
        #expect(result.storage == [1, 2, 3, 4, 5, 6, 7])
        #expect(head.storage == [1, 2, 3])
        #expect(base.log == [.initFromSequence, .count, .underestimatedCount, .makeIterator])
        #expect(head.log == [.initFromSequence, .underestimatedCount, .underestimatedCount, .makeIterator])
        #expect(result.log == [.emptyInit, .reserveCapacity, .appendSequence, .appendSequence])
    }

    @Test func sequencePrependPublisherAppendsIntoTheOtherCollection() {
        let base = LoggingCollection([4, 5, 6, 7])
        let head = LoggingCollection([1, 2, 3])
        let result = Publishers.Sequence<LoggingCollection<Int>, Never>(sequence: base)
            .prepend(Publishers.Sequence(sequence: head)).sequence
        #expect(result === head) // in place
        #expect(head.storage == [1, 2, 3, 4, 5, 6, 7])
        #expect(base.storage == [4, 5, 6, 7])
        #expect(base.log == [.initFromSequence, .underestimatedCount, .makeIterator])
        #expect(head.log == [.initFromSequence, .appendSequence])
    }

    @Test func sequenceAppendAppendsIntoThisCollection() {
        let base = LoggingCollection([1, 2, 3])
        let tail = LoggingCollection([4, 5, 6, 7])
        let result = Publishers.Sequence<LoggingCollection<Int>, Never>(sequence: base).append(tail).sequence
        #expect(result === base)
        #expect(base.storage == [1, 2, 3, 4, 5, 6, 7])
        #expect(base.log == [.initFromSequence, .appendSequence])
        #expect(tail.log == [.initFromSequence, .underestimatedCount, .makeIterator])

        let other = LoggingCollection([8])
        let more = Publishers.Sequence<LoggingCollection<Int>, Never>(sequence: base)
            .append(Publishers.Sequence(sequence: other)).sequence
        #expect(more.storage == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(other.log == [.initFromSequence, .underestimatedCount, .makeIterator])
    }

    @Test func justPrependSizesFromUnderestimatedCountNeverCount() {
        let head = LoggingCollection([1, 2, 3, 4])
        #expect(Just(5).prepend(head).sequence == [1, 2, 3, 4, 5])
        #expect(head.log == [.initFromSequence, .underestimatedCount, .underestimatedCount, .makeIterator])
        #expect(Just(5).prepend(1, 2).sequence == [1, 2, 5])
    }

    @Test func justAppendReadsUnderestimatedCountThenIterates() {
        let tail = LoggingCollection([2, 3, 4, 5])
        #expect(Just(1).append(tail).sequence == [1, 2, 3, 4, 5])
        #expect(tail.log == [.initFromSequence, .underestimatedCount, .makeIterator])
        #expect(Just(1).append(2, 3).sequence == [1, 2, 3])
    }
}
