// Combine's operator specialisations for `Optional.Publisher` that have no
// operator file of their own. The others sit beside the operator they
// specialise (`map`/`filter`/`scan` in Optional.Publisher.swift,
// `count` in Publishers.Count.swift, ...); together they are the full set
// Combine declares, with its return types (pinned by
// Tests/UVCombineCoreTests/Publishers/Creating/OptionalPublisherSpecializationTests.swift).

extension Optional.Publisher {
    /// An `Optional.Publisher` never fails, so retrying changes nothing:
    /// the same publisher.
    ///
    /// ```swift
    /// let p: Optional<Int>.Publisher = Optional(1).publisher.retry(3)
    /// ```
    @inlinable
    public func retry(_ times: Int) -> Optional<Output>.Publisher {
        self
    }
}
