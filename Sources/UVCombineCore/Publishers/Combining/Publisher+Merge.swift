// The `merge(with:)` operators. The publishers they build are in
// Publishers.Merge.swift (Merge, Merge3, Merge4) and Publishers.Merge5-8.swift;
// the one subscription behind all of them is MergeInner (MergeInner.swift).

extension Publisher {
    /// Combines elements from this publisher with those from another publisher,
    /// delivering an interleaved sequence of elements.
    ///
    /// Each element goes downstream as soon as either upstream publishes it.
    /// The merged publisher finishes when both upstreams have finished, and
    /// fails with the first failure, cancelling the other upstream.
    /// Downstream demand is shared: while it is finite each upstream is asked
    /// for one element at a time, and an element that arrives while there is
    /// no demand waits in that upstream's one-element buffer (see
    /// ``Publishers/Merge``).
    ///
    /// Threading: the upstreams may publish on any threads; elements go
    /// downstream one at a time.
    ///
    /// ```swift
    /// let a = PassthroughSubject<Int, Never>()
    /// let b = PassthroughSubject<Int, Never>()
    /// let c = a.merge(with: b).sink { print($0, terminator: " ") }
    /// a.send(1); b.send(10); a.send(2)
    /// // Prints: "1 10 2 "
    /// ```
    @inlinable
    public func merge<P: Publisher>(with other: P) -> Publishers.Merge<Self, P>
        where Failure == P.Failure, Output == P.Output
    {
        Publishers.Merge(self, other)
    }

    /// Combines elements from this publisher with those from two other publishers,
    /// delivering an interleaved sequence of elements.
    ///
    /// The rules of `merge(with:)` apply: elements go
    /// downstream as they arrive, the merge finishes when every upstream has
    /// finished, the first failure cancels the others, and each upstream
    /// buffers at most one element while the downstream has no demand.
    ///
    /// ```swift
    /// let c = Just(1).merge(with: Just(2), Just(3)).sink { print($0, terminator: " ") }
    /// // Prints: "1 2 3 "
    /// ```
    @inlinable
    public func merge<B: Publisher, C: Publisher>(with b: B, _ c: C) -> Publishers.Merge3<Self, B, C>
        where Failure == B.Failure, Output == B.Output, B.Failure == C.Failure, B.Output == C.Output
    {
        Publishers.Merge3(self, b, c)
    }

    /// Combines elements from this publisher with those from three other publishers,
    /// delivering an interleaved sequence of elements.
    ///
    /// The rules of `merge(with:)` apply: elements go
    /// downstream as they arrive, the merge finishes when every upstream has
    /// finished, the first failure cancels the others, and each upstream
    /// buffers at most one element while the downstream has no demand.
    ///
    /// ```swift
    /// let c = Just(1).merge(with: Just(2), Just(3), Just(4)).sink { print($0, terminator: " ") }
    /// // Prints: "1 2 3 4 "
    /// ```
    @inlinable
    public func merge<B: Publisher, C: Publisher, D: Publisher>(with b: B, _ c: C, _ d: D) -> Publishers.Merge4<Self, B, C, D>
        where Failure == B.Failure, Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output
    {
        Publishers.Merge4(self, b, c, d)
    }

    /// Combines elements from this publisher with those from four other publishers,
    /// delivering an interleaved sequence of elements.
    ///
    /// The rules of `merge(with:)` apply: elements go
    /// downstream as they arrive, the merge finishes when every upstream has
    /// finished, the first failure cancels the others, and each upstream
    /// buffers at most one element while the downstream has no demand.
    ///
    /// ```swift
    /// let c = Just(1).merge(with: Just(2), Just(3), Just(4), Just(5)).sink { print($0, terminator: " ") }
    /// // Prints: "1 2 3 4 5 "
    /// ```
    @inlinable
    public func merge<B: Publisher, C: Publisher, D: Publisher, E: Publisher>(with b: B, _ c: C, _ d: D, _ e: E) -> Publishers.Merge5<Self, B, C, D, E>
        where Failure == B.Failure, Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output
    {
        Publishers.Merge5(self, b, c, d, e)
    }

    /// Combines elements from this publisher with those from five other publishers,
    /// delivering an interleaved sequence of elements.
    ///
    /// The rules of `merge(with:)` apply: elements go
    /// downstream as they arrive, the merge finishes when every upstream has
    /// finished, the first failure cancels the others, and each upstream
    /// buffers at most one element while the downstream has no demand.
    ///
    /// ```swift
    /// let c = Just(1).merge(with: Just(2), Just(3), Just(4), Just(5), Just(6)).sink { print($0, terminator: " ") }
    /// // Prints: "1 2 3 4 5 6 "
    /// ```
    @inlinable
    public func merge<B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher>(with b: B, _ c: C, _ d: D, _ e: E, _ f: F) -> Publishers.Merge6<Self, B, C, D, E, F>
        where Failure == B.Failure, Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output, E.Failure == F.Failure, E.Output == F.Output
    {
        Publishers.Merge6(self, b, c, d, e, f)
    }

    /// Combines elements from this publisher with those from six other publishers,
    /// delivering an interleaved sequence of elements.
    ///
    /// The rules of `merge(with:)` apply: elements go
    /// downstream as they arrive, the merge finishes when every upstream has
    /// finished, the first failure cancels the others, and each upstream
    /// buffers at most one element while the downstream has no demand.
    ///
    /// ```swift
    /// let c = Just(1).merge(with: Just(2), Just(3), Just(4), Just(5), Just(6), Just(7)).sink { print($0, terminator: " ") }
    /// // Prints: "1 2 3 4 5 6 7 "
    /// ```
    @inlinable
    public func merge<B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, G: Publisher>(with b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G) -> Publishers.Merge7<Self, B, C, D, E, F, G>
        where Failure == B.Failure, Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output, E.Failure == F.Failure, E.Output == F.Output, F.Failure == G.Failure, F.Output == G.Output
    {
        Publishers.Merge7(self, b, c, d, e, f, g)
    }

    /// Combines elements from this publisher with those from seven other publishers,
    /// delivering an interleaved sequence of elements.
    ///
    /// The rules of `merge(with:)` apply: elements go
    /// downstream as they arrive, the merge finishes when every upstream has
    /// finished, the first failure cancels the others, and each upstream
    /// buffers at most one element while the downstream has no demand.
    ///
    /// ```swift
    /// let c = Just(1).merge(with: Just(2), Just(3), Just(4), Just(5), Just(6), Just(7), Just(8)).sink { print($0, terminator: " ") }
    /// // Prints: "1 2 3 4 5 6 7 8 "
    /// ```
    @inlinable
    public func merge<B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, G: Publisher, H: Publisher>(with b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H) -> Publishers.Merge8<Self, B, C, D, E, F, G, H>
        where Failure == B.Failure, Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output, E.Failure == F.Failure, E.Output == F.Output, F.Failure == G.Failure, F.Output == G.Output, G.Failure == H.Failure, G.Output == H.Output
    {
        Publishers.Merge8(self, b, c, d, e, f, g, h)
    }
}
