// Combine's operator specialisations for `Just` that have no operator file
// of their own. The others sit beside the operator they specialise
// (`Just.map` in Just.swift, `Just.filter` in Optional.Publisher.swift,
// `Just.count` in Publishers.Count.swift, ...); together they are the full
// set Combine declares, with its return types (pinned by
// Tests/UVCombineCoreTests/Publishers/Creating/JustSpecializationTests.swift).

extension Just {
    /// `Just` never fails, so retrying changes nothing: the same publisher.
    ///
    /// ```swift
    /// let p: Just<Int> = Just(1).retry(3) // Just(1)
    /// ```
    @inlinable
    public func retry(_ times: Int) -> Just<Output> {
        self
    }
}
