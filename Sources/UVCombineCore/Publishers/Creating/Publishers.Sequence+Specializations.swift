// Combine's operator specialisations for `Publishers.Sequence`: the operator
// runs over the sequence at once, when it is applied, and returns another
// `Publishers.Sequence` (element-wise operators), a `Result.Publisher`
// (aggregates that can still fail with `Failure`), an `Optional.Publisher`
// (aggregates that may find nothing, when `Failure == Never`), `Just`
// (`count()` of a never-failing random-access collection) or `Empty`
// (`ignoreOutput()`), with the constraints and return types Combine declares,
// so code that stores the result in a typed property compiles unchanged.
// (`append`/`prepend` on range-replaceable sequences live with
// Publishers.Concatenate.)

extension Publishers.Sequence where Failure == Never {
    /// The smallest element by `areInIncreasingOrder`, or nothing when the
    /// sequence is empty.
    ///
    /// ```swift
    /// [3, 1, 2].publisher.min(by: <) // Optional(1).publisher
    /// ```
    @inlinable
    public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(sequence.min(by: areInIncreasingOrder))
    }

    /// The largest element by `areInIncreasingOrder`, or nothing when the
    /// sequence is empty.
    ///
    /// ```swift
    /// [3, 1, 2].publisher.max(by: <) // Optional(3).publisher
    /// ```
    @inlinable
    public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(sequence.max(by: areInIncreasingOrder))
    }

    /// The first element that satisfies `predicate`, if any.
    ///
    /// ```swift
    /// [1, 2, 3].publisher.first { $0 > 1 } // Optional(2).publisher
    /// ```
    @inlinable
    public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(sequence.first(where: predicate))
    }
}

extension Publishers.Sequence {
    /// Whether every element satisfies `predicate` (`true` when empty).
    ///
    /// ```swift
    /// [1, 2].publisher.allSatisfy { $0 > 0 } // Result.Publisher(true)
    /// ```
    @inlinable
    public func allSatisfy(_ predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(sequence.allSatisfy(predicate))
    }

    /// Whether every element satisfies the throwing `predicate`; what it
    /// throws becomes the failure.
    ///
    /// ```swift
    /// let p: Result<Bool, any Error>.Publisher = [1, 2].publisher.tryAllSatisfy { try check($0) }
    /// ```
    @inlinable
    public func tryAllSatisfy(_ predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(Result { try sequence.allSatisfy(predicate) })
    }

    /// All the elements in one array.
    ///
    /// ```swift
    /// (1...3).publisher.collect() // Result.Publisher([1, 2, 3])
    /// ```
    @inlinable
    public func collect() -> Result<[Output], Failure>.Publisher {
        Result<[Output], Failure>.Publisher(Array(sequence))
    }

    /// The non-`nil` results of `transform` on each element.
    ///
    /// ```swift
    /// ["1", "x", "3"].publisher.compactMap { Int($0) } // Publishers.Sequence([1, 3])
    /// ```
    @inlinable
    public func compactMap<T>(_ transform: (Output) -> T?) -> Publishers.Sequence<[T], Failure> {
        Publishers.Sequence<[T], Failure>(sequence: sequence.compactMap(transform))
    }

    /// Whether some element satisfies `predicate`.
    ///
    /// ```swift
    /// [1, 2].publisher.contains { $0 > 1 } // Result.Publisher(true)
    /// ```
    @inlinable
    public func contains(where predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(sequence.contains(where: predicate))
    }

    /// Whether some element satisfies the throwing `predicate`; what it
    /// throws becomes the failure.
    ///
    /// ```swift
    /// let p: Result<Bool, any Error>.Publisher = [1, 2].publisher.tryContains { try check($0) }
    /// ```
    @inlinable
    public func tryContains(where predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(Result { try sequence.contains(where: predicate) })
    }

    /// The elements after the leading ones that satisfy `predicate`.
    ///
    /// ```swift
    /// [1, 2, 3, 1].publisher.drop { $0 < 2 } // Publishers.Sequence([2, 3, 1])
    /// ```
    @inlinable
    public func drop(while predicate: (Elements.Element) -> Bool)
        -> Publishers.Sequence<DropWhileSequence<Elements>, Failure>
    {
        Publishers.Sequence<DropWhileSequence<Elements>, Failure>(sequence: sequence.drop(while: predicate))
    }

    /// The elements after the first `count`.
    ///
    /// ```swift
    /// [1, 2, 3].publisher.dropFirst() // Publishers.Sequence([2, 3])
    /// ```
    @inlinable
    public func dropFirst(_ count: Int = 1) -> Publishers.Sequence<DropFirstSequence<Elements>, Failure> {
        Publishers.Sequence<DropFirstSequence<Elements>, Failure>(sequence: sequence.dropFirst(count))
    }

    /// The elements that satisfy `isIncluded`.
    ///
    /// ```swift
    /// [1, 2, 3].publisher.filter { $0 != 2 } // Publishers.Sequence([1, 3])
    /// ```
    @inlinable
    public func filter(_ isIncluded: (Output) -> Bool) -> Publishers.Sequence<[Output], Failure> {
        Publishers.Sequence<[Output], Failure>(sequence: sequence.filter(isIncluded))
    }

    /// An `Empty` that finishes at once.
    ///
    /// ```swift
    /// let done: Empty<Int, Never> = [1, 2].publisher.ignoreOutput()
    /// ```
    @inlinable
    public func ignoreOutput() -> Empty<Output, Failure> {
        Empty()
    }

    /// `transform` applied to each element.
    ///
    /// ```swift
    /// [1, 2].publisher.map { $0 * 10 } // Publishers.Sequence([10, 20])
    /// ```
    @inlinable
    public func map<T>(_ transform: (Elements.Element) -> T) -> Publishers.Sequence<[T], Failure> {
        Publishers.Sequence<[T], Failure>(sequence: sequence.map(transform))
    }

    /// The first `maxLength` elements.
    ///
    /// ```swift
    /// [1, 2, 3].publisher.prefix(2) // Publishers.Sequence([1, 2])
    /// ```
    @inlinable
    public func prefix(_ maxLength: Int) -> Publishers.Sequence<PrefixSequence<Elements>, Failure> {
        Publishers.Sequence<PrefixSequence<Elements>, Failure>(sequence: sequence.prefix(maxLength))
    }

    /// The leading elements that satisfy `predicate`.
    ///
    /// ```swift
    /// [1, 2, 3, 1].publisher.prefix { $0 < 3 } // Publishers.Sequence([1, 2])
    /// ```
    @inlinable
    public func prefix(while predicate: (Elements.Element) -> Bool) -> Publishers.Sequence<[Elements.Element], Failure> {
        Publishers.Sequence<[Elements.Element], Failure>(sequence: sequence.prefix(while: predicate))
    }

    /// The elements folded with `nextPartialResult`, from `initialResult`.
    ///
    /// ```swift
    /// [1, 2, 3].publisher.reduce(0, +) // Result.Publisher(6)
    /// ```
    @inlinable
    public func reduce<T>(_ initialResult: T,
                          _ nextPartialResult: @escaping (T, Output) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(sequence.reduce(initialResult, nextPartialResult))
    }

    /// The elements folded with the throwing `nextPartialResult`; what it
    /// throws becomes the failure.
    ///
    /// ```swift
    /// let p: Result<Int, any Error>.Publisher = [1, 2].publisher.tryReduce(0) { try add($0, $1) }
    /// ```
    @inlinable
    public func tryReduce<T>(_ initialResult: T,
                             _ nextPartialResult: @escaping (T, Output) throws -> T) -> Result<T, any Error>.Publisher {
        Result<T, any Error>.Publisher(Result { try sequence.reduce(initialResult, nextPartialResult) })
    }

    /// The elements with `nil` replaced by `output`.
    ///
    /// ```swift
    /// [1, nil, 3].publisher.replaceNil(with: 0) // Publishers.Sequence([Optional(1), Optional(0), Optional(3)])
    /// ```
    @inlinable
    public func replaceNil<T>(with output: T) -> Publishers.Sequence<[Output], Failure> where Elements.Element == T? {
        Publishers.Sequence<[Output], Failure>(sequence: sequence.map { $0 ?? output })
    }

    /// The running results of `nextPartialResult`, from `initialResult`.
    ///
    /// ```swift
    /// [1, 2, 3].publisher.scan(0, +) // Publishers.Sequence([1, 3, 6])
    /// ```
    @inlinable
    public func scan<T>(_ initialResult: T,
                        _ nextPartialResult: @escaping (T, Output) -> T) -> Publishers.Sequence<[T], Failure> {
        var accumulated = initialResult
        var results: [T] = []
        results.reserveCapacity(sequence.underestimatedCount)
        for element in sequence {
            accumulated = nextPartialResult(accumulated, element)
            results.append(accumulated)
        }
        return Publishers.Sequence<[T], Failure>(sequence: results)
    }

    /// The same sequence with another failure type.
    ///
    /// ```swift
    /// let p: Publishers.Sequence<[Int], URLError> = [1].publisher.setFailureType(to: URLError.self)
    /// ```
    @inlinable
    public func setFailureType<E: Error>(to error: E.Type) -> Publishers.Sequence<Elements, E> {
        Publishers.Sequence<Elements, E>(sequence: sequence)
    }
}

extension Publishers.Sequence where Elements.Element: Equatable {
    /// The elements without consecutive repeats.
    ///
    /// ```swift
    /// [1, 1, 2, 1].publisher.removeDuplicates() // Publishers.Sequence([1, 2, 1])
    /// ```
    @inlinable
    public func removeDuplicates() -> Publishers.Sequence<[Output], Failure> {
        var kept: [Output] = []
        for element in sequence where kept.last != element {
            kept.append(element)
        }
        return Publishers.Sequence<[Output], Failure>(sequence: kept)
    }

    /// Whether the sequence contains `output`.
    ///
    /// ```swift
    /// [1, 2].publisher.contains(2) // Result.Publisher(true)
    /// ```
    @inlinable
    public func contains(_ output: Elements.Element) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(sequence.contains(output))
    }
}

extension Publishers.Sequence where Failure == Never, Elements.Element: Comparable {
    /// The smallest element, or nothing when the sequence is empty.
    ///
    /// ```swift
    /// [3, 1, 2].publisher.min() // Optional(1).publisher
    /// ```
    @inlinable
    public func min() -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(sequence.min())
    }

    /// The largest element, or nothing when the sequence is empty.
    ///
    /// ```swift
    /// [3, 1, 2].publisher.max() // Optional(3).publisher
    /// ```
    @inlinable
    public func max() -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(sequence.max())
    }
}

extension Publishers.Sequence where Elements: Collection, Failure == Never {
    /// The first element, or nothing when the collection is empty.
    ///
    /// ```swift
    /// [1, 2].publisher.first() // Optional(1).publisher
    /// ```
    @inlinable
    public func first() -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(sequence.first)
    }

    /// The element at `index`, or nothing when the index is out of bounds.
    ///
    /// ```swift
    /// [1, 2].publisher.output(at: 1) // Optional(2).publisher
    /// ```
    @inlinable
    public func output(at index: Elements.Index) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(sequence.indices.contains(index) ? sequence[index] : nil)
    }
}

extension Publishers.Sequence where Elements: Collection {
    /// The number of elements.
    ///
    /// ```swift
    /// let p: Result<Int, URLError>.Publisher = Set([1, 2]).publisher.setFailureType(to: URLError.self).count()
    /// ```
    @inlinable
    public func count() -> Result<Int, Failure>.Publisher {
        Result<Int, Failure>.Publisher(sequence.count)
    }

    /// The elements in `range` (which must be a valid range of the
    /// collection, as for its subscript).
    ///
    /// ```swift
    /// [1, 2, 3].publisher.output(in: 1..<3) // Publishers.Sequence([2, 3])
    /// ```
    @inlinable
    public func output(in range: Range<Elements.Index>) -> Publishers.Sequence<[Output], Failure> {
        Publishers.Sequence<[Output], Failure>(sequence: Array(sequence[range]))
    }
}

extension Publishers.Sequence where Elements: BidirectionalCollection, Failure == Never {
    /// The last element, or nothing when the collection is empty.
    ///
    /// ```swift
    /// [1, 2].publisher.last() // Optional(2).publisher
    /// ```
    @inlinable
    public func last() -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(sequence.last)
    }

    /// The last element that satisfies `predicate`, if any.
    ///
    /// ```swift
    /// [1, 2, 3].publisher.last { $0 < 3 } // Optional(2).publisher
    /// ```
    @inlinable
    public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(sequence.last(where: predicate))
    }
}

extension Publishers.Sequence where Elements: RandomAccessCollection, Failure == Never {
    /// The element at `index`, or nothing when the index is out of bounds.
    ///
    /// ```swift
    /// [1, 2].publisher.output(at: 5) // Optional<Int>.none.publisher
    /// ```
    @inlinable
    public func output(at index: Elements.Index) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(sequence.indices.contains(index) ? sequence[index] : nil)
    }

    /// The number of elements, which a never-failing random-access
    /// collection always has: a `Just`.
    ///
    /// ```swift
    /// let n: Just<Int> = [1, 2, 3].publisher.count() // Just(3)
    /// ```
    @inlinable
    public func count() -> Just<Int> {
        Just(sequence.count)
    }
}

extension Publishers.Sequence where Elements: RandomAccessCollection {
    /// The elements in `range` (which must be a valid range of the
    /// collection, as for its subscript).
    ///
    /// ```swift
    /// [1, 2, 3].publisher.output(in: 0..<2) // Publishers.Sequence([1, 2])
    /// ```
    @inlinable
    public func output(in range: Range<Elements.Index>) -> Publishers.Sequence<[Output], Failure> {
        Publishers.Sequence<[Output], Failure>(sequence: Array(sequence[range]))
    }

    /// The number of elements.
    ///
    /// ```swift
    /// let p: Result<Int, URLError>.Publisher = [1, 2].publisher.setFailureType(to: URLError.self).count()
    /// ```
    @inlinable
    public func count() -> Result<Int, Failure>.Publisher {
        Result<Int, Failure>.Publisher(sequence.count)
    }
}
