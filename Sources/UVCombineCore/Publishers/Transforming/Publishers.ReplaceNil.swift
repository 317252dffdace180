extension Publisher {
    /// Replaces `nil` elements in the stream with the provided element.
    ///
    /// A `map` (as in Combine): the result is a `Publishers.Map`, stateless
    /// and passing the subscription through.
    ///
    /// ```swift
    /// let c = [1, nil, 3].publisher.replaceNil(with: 0).sink { print($0) }
    /// // Prints: "1 0 3"
    /// ```
    @inlinable
    public func replaceNil<T>(with output: T) -> Publishers.Map<Self, T> where Output == T? {
        Publishers.Map(upstream: self) { $0 ?? output }
    }
}
