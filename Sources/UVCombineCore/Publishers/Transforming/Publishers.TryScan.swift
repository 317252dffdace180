import Synchronization

extension Publisher {
    /// Transforms elements from the upstream publisher by providing the
    /// current element to an error-throwing closure along with the last
    /// value it returned.
    ///
    /// If the closure throws, the upstream subscription is cancelled and the
    /// publisher fails with the thrown error; nothing is published after it.
    ///
    /// ```swift
    /// struct Overflow: Error {}
    /// let c = [1, 2, 3, 4].publisher
    ///     .tryScan(0) { sum, v in guard sum + v < 5 else { throw Overflow() }; return sum + v }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// // Prints: "1 3 failure(Overflow())"
    /// ```
    @inlinable
    public func tryScan<T>(_ initialResult: T,
                           _ nextPartialResult: @escaping (T, Output) throws -> T) -> Publishers.TryScan<Self, T> {
        Publishers.TryScan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
    }
}

extension Publishers {
    /// A publisher that transforms elements by providing each one to an
    /// error-throwing closure along with the last value the closure returned.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on,
    /// outside any lock. The subscription describes itself as `TryScan`.
    ///
    /// ```swift
    /// let totals = Publishers.TryScan(upstream: amounts.publisher, initialResult: 0) { try add($0, $1) }
    /// ```
    public struct TryScan<Upstream: Publisher, Output>: Publisher {
        /// Any error: the upstream's, or the one the closure throws.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The value the closure receives with the first element.
        public let initialResult: Output

        /// An error-throwing closure that takes the previous result and the
        /// next element and returns the next result.
        public let nextPartialResult: (Output, Upstream.Output) throws -> Output

        /// Creates a throwing scan over `upstream`.
        @inlinable
        public init(upstream: Upstream, initialResult: Output,
                    nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output) {
            self.upstream = upstream
            self.initialResult = initialResult
            self.nextPartialResult = nextPartialResult
        }

        /// Subscribes a `TryScan` subscription holding a fresh accumulator.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            upstream.receive(subscriber: Inner(downstream: subscriber, initialResult: initialResult,
                                     nextPartialResult: nextPartialResult))
        }
    }
}

extension Publishers.TryScan {
    /// Keeps the accumulator and the upstream link; a thrown error cancels
    /// upstream and fails downstream.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Output, Downstream.Failure == any Error
    {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline
        internal struct State {
            @usableFromInline var status: SubscriptionStatus = .awaitingSubscription
            @usableFromInline var result: Output

            @inlinable
            init(result: Output) {
                self.result = result
            }
        }

        @usableFromInline let downstream: Downstream
        @usableFromInline let nextPartialResult: (Output, Upstream.Output) throws -> Output
        @usableFromInline let state: Locked<State>

        @inlinable
        init(downstream: Downstream, initialResult: Output,
             nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output) {
            self.downstream = downstream
            self.nextPartialResult = nextPartialResult
            state = Locked(State(result: initialResult))
        }

        @inlinable
        func receive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard case .awaitingSubscription = s.status else { return false }
                s.status = .subscribed(subscription)
                return true
            }
            if accepted {
                downstream.receive(subscription: self)
            } else {
                subscription.cancel()
            }
        }

        /// As Combine's: every value goes through the closure and on to the
        /// downstream, also one that arrives before the subscription or after
        /// completion (a misbehaving upstream is not gated).
        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            let previous = state.withLock { $0.result }
            let next: Output
            do {
                next = try nextPartialResult(previous, input)
            } catch {
                fail(error)
                return .none
            }
            state.withLock { $0.result = next }
            return downstream.receive(next)
        }

        /// Ends the stream after a thrown error: cancel upstream, then fail.
        /// Only while subscribed, as in Combine.
        @inlinable
        func fail(_ error: any Error) {
            let upstream = state.withLock { s -> (any Subscription)? in
                guard case .subscribed(let upstream) = s.status else { return nil }
                s.status = .terminal
                return upstream
            }
            guard let upstream = upstream else { return }
            upstream.cancel()
            downstream.receive(completion: .failure(error))
        }

        /// Forwarded only while subscribed; the upstream subscription is
        /// released.
        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            let wasSubscribed = state.withLock { s -> Bool in
                guard s.status.isSubscribed else { return false }
                s.status = .terminal
                return true
            }
            if wasSubscribed { downstream.receive(completion: completion.eraseError) }
        }

        /// Forwarded while subscribed (`.none` included, as Combine does);
        /// ignored otherwise.
        @inlinable
        func request(_ demand: Subscribers.Demand) {
            let upstream = state.withLock { $0.status.subscription }
            upstream?.request(demand)
        }

        /// Cancels the upstream while subscribed. A cancel before the
        /// subscription does nothing: the subscription that arrives later is
        /// kept, neither requested from nor cancelled (Combine's rule).
        @inlinable
        func cancel() {
            let upstream = state.withLock { s -> (any Subscription)? in
                guard case .subscribed(let upstream) = s.status else { return nil }
                s.status = .terminal
                return upstream
            }
            upstream?.cancel()
        }

        @usableFromInline var description: String { "TryScan" }
        @usableFromInline var customMirror: Mirror {
            let state = self.state.withLock { ($0.status, $0.result) }
            let children: [Mirror.Child] = [("downstream", downstream), ("status", state.0), ("result", state.1)]
            return Mirror(self, children: children)
        }
        @usableFromInline var playgroundDescription: Any { description }
    }
}

extension Just {
    /// Applies the throwing accumulator to the single value at once, as
    /// Combine does for `Just`: the result publishes the value or the error.
    ///
    /// ```swift
    /// let p: Result<Int, any Error>.Publisher = Just(2).tryScan(10) { try add($0, $1) }
    /// ```
    @inlinable
    public func tryScan<T>(_ initialResult: T,
                           _ nextPartialResult: (T, Output) throws -> T) -> Result<T, any Error>.Publisher {
        Result<T, any Error>.Publisher(Result { try nextPartialResult(initialResult, output) })
    }
}
