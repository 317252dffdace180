// Combine's operator specialisations for `Result.Publisher`: each operator
// is applied to the result at once and returns another `Result.Publisher`
// (or `Empty` for `ignoreOutput`), with the constraints and return types
// Combine declares, so code that stores the result in a typed property
// compiles unchanged. A failure passes through unchanged (closures are not
// called for it); the `try` variants turn a thrown error into the failure.
//
// Where Combine calls a comparator or predicate on the single value, these
// do too (the `try` comparators are called once with the value on both
// sides, so that a throwing comparator fails as it would with a longer
// sequence); where it does not (`min(by:)`, `removeDuplicates(by:)`), they
// do not.

extension Result.Publisher where Output: Equatable {
    /// Publishes whether the value equals `output`.
    ///
    /// ```swift
    /// Result<Int, Never>.Publisher(3).contains(3) // Result.Publisher(true)
    /// ```
    @inlinable
    public func contains(_ output: Output) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map { $0 == output })
    }

    /// A single value has no duplicates: the same publisher.
    ///
    /// ```swift
    /// Result<Int, Never>.Publisher(3).removeDuplicates() // Result.Publisher(3)
    /// ```
    @inlinable
    public func removeDuplicates() -> Result<Output, Failure>.Publisher {
        self
    }
}

extension Result.Publisher where Output: Comparable {
    /// The minimum of a single value is that value: the same publisher.
    ///
    /// ```swift
    /// Result<Int, Never>.Publisher(3).min() // Result.Publisher(3)
    /// ```
    @inlinable
    public func min() -> Result<Output, Failure>.Publisher {
        self
    }

    /// The maximum of a single value is that value: the same publisher.
    ///
    /// ```swift
    /// Result<Int, Never>.Publisher(3).max() // Result.Publisher(3)
    /// ```
    @inlinable
    public func max() -> Result<Output, Failure>.Publisher {
        self
    }
}

extension Result.Publisher {
    /// Publishes whether the value satisfies `predicate`.
    ///
    /// ```swift
    /// Result<Int, Never>.Publisher(3).allSatisfy { $0 > 0 } // Result.Publisher(true)
    /// ```
    @inlinable
    public func allSatisfy(_ predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map(predicate))
    }

    /// Publishes whether the value satisfies the throwing `predicate`, or
    /// fails with what it throws.
    ///
    /// ```swift
    /// let p: Result<Bool, any Error>.Publisher = Result<Int, Never>.Publisher(3).tryAllSatisfy { try check($0) }
    /// ```
    @inlinable
    public func tryAllSatisfy(_ predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(uvTryMap(predicate))
    }

    /// Publishes whether the value satisfies `predicate`.
    ///
    /// ```swift
    /// Result<Int, Never>.Publisher(3).contains { $0 > 2 } // Result.Publisher(true)
    /// ```
    @inlinable
    public func contains(where predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
        Result<Bool, Failure>.Publisher(result.map(predicate))
    }

    /// Publishes whether the value satisfies the throwing `predicate`, or
    /// fails with what it throws.
    ///
    /// ```swift
    /// let p: Result<Bool, any Error>.Publisher = Result<Int, Never>.Publisher(3).tryContains { try check($0) }
    /// ```
    @inlinable
    public func tryContains(where predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
        Result<Bool, any Error>.Publisher(uvTryMap(predicate))
    }

    /// Publishes the value in a one-element array.
    ///
    /// ```swift
    /// Result<Int, Never>.Publisher(3).collect() // Result.Publisher([3])
    /// ```
    @inlinable
    public func collect() -> Result<[Output], Failure>.Publisher {
        Result<[Output], Failure>.Publisher(result.map { [$0] })
    }

    /// The minimum of a single value is that value; `areInIncreasingOrder`
    /// is not called.
    ///
    /// ```swift
    /// Result<Int, Never>.Publisher(3).min(by: <) // Result.Publisher(3)
    /// ```
    @inlinable
    public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher {
        self
    }

    /// The minimum of a single value: the comparator is called once with the
    /// value on both sides, and what it throws becomes the failure.
    ///
    /// ```swift
    /// let p: Result<Int, any Error>.Publisher = Result<Int, Never>.Publisher(3).tryMin { try less($0, $1) }
    /// ```
    @inlinable
    public func tryMin(by areInIncreasingOrder: (Output, Output) throws -> Bool)
        -> Result<Output, any Error>.Publisher
    {
        Result<Output, any Error>.Publisher(uvTryMap { _ = try areInIncreasingOrder($0, $0); return $0 })
    }

    /// The maximum of a single value is that value; `areInIncreasingOrder`
    /// is not called.
    ///
    /// ```swift
    /// Result<Int, Never>.Publisher(3).max(by: <) // Result.Publisher(3)
    /// ```
    @inlinable
    public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher {
        self
    }

    /// The maximum of a single value: the comparator is called once with the
    /// value on both sides, and what it throws becomes the failure.
    ///
    /// ```swift
    /// let p: Result<Int, any Error>.Publisher = Result<Int, Never>.Publisher(3).tryMax { try less($0, $1) }
    /// ```
    @inlinable
    public func tryMax(by areInIncreasingOrder: (Output, Output) throws -> Bool)
        -> Result<Output, any Error>.Publisher
    {
        Result<Output, any Error>.Publisher(uvTryMap { _ = try areInIncreasingOrder($0, $0); return $0 })
    }

    /// Publishes 1 (the number of values), or the failure.
    ///
    /// ```swift
    /// Result<String, Never>.Publisher("a").count() // Result.Publisher(1)
    /// ```
    @inlinable
    public func count() -> Result<Int, Failure>.Publisher {
        Result<Int, Failure>.Publisher(result.map { _ in 1 })
    }

    /// The first of a single value is that value: the same publisher.
    ///
    /// ```swift
    /// Result<Int, Never>.Publisher(3).first() // Result.Publisher(3)
    /// ```
    @inlinable
    public func first() -> Result<Output, Failure>.Publisher {
        self
    }

    /// The last of a single value is that value: the same publisher.
    ///
    /// ```swift
    /// Result<Int, Never>.Publisher(3).last() // Result.Publisher(3)
    /// ```
    @inlinable
    public func last() -> Result<Output, Failure>.Publisher {
        self
    }

    /// An `Empty` that finishes at once. As in Combine, a failure is not
    /// kept: the returned publisher finishes even when the result is one.
    ///
    /// ```swift
    /// let done: Empty<Int, URLError> = Result<Int, URLError>.Publisher(3).ignoreOutput()
    /// ```
    @inlinable
    public func ignoreOutput() -> Empty<Output, Failure> {
        Empty()
    }

    /// Transforms the value at once.
    ///
    /// ```swift
    /// Result<Int, Never>.Publisher(3).map { $0 * 2 } // Result.Publisher(6)
    /// ```
    @inlinable
    public func map<T>(_ transform: (Output) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(result.map(transform))
    }

    /// Transforms the value at once with a throwing closure; what it throws
    /// becomes the failure.
    ///
    /// ```swift
    /// let p: Result<Int, any Error>.Publisher = Result<String, Never>.Publisher("7").tryMap { try parse($0) }
    /// ```
    @inlinable
    public func tryMap<T>(_ transform: (Output) throws -> T) -> Result<T, any Error>.Publisher {
        Result<T, any Error>.Publisher(uvTryMap(transform))
    }

    /// Transforms the failure at once.
    ///
    /// ```swift
    /// let p: Result<Int, AppError>.Publisher = Result<Int, URLError>.Publisher(3).mapError(AppError.init)
    /// ```
    @inlinable
    public func mapError<E: Error>(_ transform: (Failure) -> E) -> Result<Output, E>.Publisher {
        Result<Output, E>.Publisher(result.mapError(transform))
    }

    /// A single value has no duplicates: the same publisher; `predicate` is
    /// not called.
    ///
    /// ```swift
    /// Result<Int, Never>.Publisher(3).removeDuplicates(by: ==) // Result.Publisher(3)
    /// ```
    @inlinable
    public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher {
        self
    }

    /// A single value has no duplicates: the predicate is called once with
    /// the value on both sides, and what it throws becomes the failure.
    ///
    /// ```swift
    /// let p: Result<Int, any Error>.Publisher = Result<Int, Never>.Publisher(3).tryRemoveDuplicates { try same($0, $1) }
    /// ```
    @inlinable
    public func tryRemoveDuplicates(by predicate: (Output, Output) throws -> Bool)
        -> Result<Output, any Error>.Publisher
    {
        Result<Output, any Error>.Publisher(uvTryMap { _ = try predicate($0, $0); return $0 })
    }

    /// Publishes the value, or `output` in place of the failure.
    ///
    /// ```swift
    /// Result<Int, URLError>.Publisher(URLError(.badURL)).replaceError(with: 0) // Result<Int, Never>.Publisher(0)
    /// ```
    @inlinable
    public func replaceError(with output: Output) -> Result<Output, Never>.Publisher {
        switch result {
        case .success(let value): Result<Output, Never>.Publisher(value)
        case .failure: Result<Output, Never>.Publisher(output)
        }
    }

    /// Never empty: the same publisher.
    ///
    /// ```swift
    /// Result<Int, Never>.Publisher(3).replaceEmpty(with: 0) // Result.Publisher(3)
    /// ```
    @inlinable
    public func replaceEmpty(with output: Output) -> Result<Output, Failure>.Publisher {
        self
    }

    /// Retrying delivers the same result again: the same publisher.
    ///
    /// ```swift
    /// Result<Int, URLError>.Publisher(3).retry(2) // Result.Publisher(3)
    /// ```
    @inlinable
    public func retry(_ times: Int) -> Result<Output, Failure>.Publisher {
        self
    }

    /// Publishes `nextPartialResult(initialResult, value)`.
    ///
    /// ```swift
    /// Result<Int, Never>.Publisher(3).reduce(10, +) // Result.Publisher(13)
    /// ```
    @inlinable
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(result.map { nextPartialResult(initialResult, $0) })
    }

    /// Publishes `nextPartialResult(initialResult, value)`, or fails with
    /// what it throws.
    ///
    /// ```swift
    /// let p: Result<Int, any Error>.Publisher = Result<Int, Never>.Publisher(3).tryReduce(10) { try add($0, $1) }
    /// ```
    @inlinable
    public func tryReduce<T>(_ initialResult: T,
                             _ nextPartialResult: (T, Output) throws -> T) -> Result<T, any Error>.Publisher {
        Result<T, any Error>.Publisher(uvTryMap { try nextPartialResult(initialResult, $0) })
    }

    /// Publishes `nextPartialResult(initialResult, value)`.
    ///
    /// ```swift
    /// Result<Int, Never>.Publisher(3).scan(10, +) // Result.Publisher(13)
    /// ```
    @inlinable
    public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Failure>.Publisher {
        Result<T, Failure>.Publisher(result.map { nextPartialResult(initialResult, $0) })
    }

    /// Publishes `nextPartialResult(initialResult, value)`, or fails with
    /// what it throws.
    ///
    /// ```swift
    /// let p: Result<Int, any Error>.Publisher = Result<Int, Never>.Publisher(3).tryScan(10) { try add($0, $1) }
    /// ```
    @inlinable
    public func tryScan<T>(_ initialResult: T,
                           _ nextPartialResult: (T, Output) throws -> T) -> Result<T, any Error>.Publisher {
        Result<T, any Error>.Publisher(uvTryMap { try nextPartialResult(initialResult, $0) })
    }

    /// The result with `transform` applied to a success, a thrown error or
    /// the failure (as `any Error`) otherwise.
    @inlinable
    internal func uvTryMap<T>(_ transform: (Output) throws -> T) -> Result<T, any Error> {
        switch result {
        case .success(let value):
            do { return .success(try transform(value)) } catch { return .failure(error) }
        case .failure(let error):
            return .failure(error)
        }
    }
}

extension Result.Publisher where Failure == Never {
    /// Changes the failure type, keeping the value.
    ///
    /// ```swift
    /// let p: Result<Int, URLError>.Publisher = Result<Int, Never>.Publisher(3).setFailureType(to: URLError.self)
    /// ```
    @inlinable
    public func setFailureType<E: Error>(to failureType: E.Type) -> Result<Output, E>.Publisher {
        switch result {
        case .success(let value): Result<Output, E>.Publisher(value)
        }
    }
}
