import Synchronization

extension Publisher {
    /// Buffers elements received from an upstream publisher.
    ///
    /// Elements the downstream has not asked for yet wait in a buffer of
    /// `size` elements and are delivered, oldest first, as demand arrives.
    /// `prefetch` decides what the upstream is asked for:
    /// - `.keepFull`: `size` elements right after subscribing, then one more
    ///   for each element delivered downstream, so the buffer stays full;
    /// - `.byRequest`: `.unlimited` right after subscribing, as Combine does
    ///   (the buffer then absorbs bursts; `whenFull` decides what happens to
    ///   elements that do not fit).
    ///
    /// `whenFull` applies when an element arrives and `size` elements are
    /// waiting: `.dropNewest` discards the arriving element, `.dropOldest`
    /// discards the oldest waiting one, `.customError` cancels the upstream
    /// and fails with the closure's error on the next request, after as
    /// many buffered elements as that request allows.
    ///
    /// As in Combine, the upstream is asked for its prefetch before the
    /// downstream gets the subscription, so a synchronous upstream fills
    /// the buffer first; `.finished` follows the last buffered element once
    /// the downstream has demand. An upstream failure is delivered at once,
    /// after the buffered elements the outstanding demand allows; the rest
    /// are discarded. `request(.none)` is accepted.
    ///
    /// ```swift
    /// let c = (1...5).publisher
    ///     .buffer(size: 2, prefetch: .byRequest, whenFull: .dropNewest)
    ///     .sink { print($0) }
    /// // Prints: "1 2" (the sequence fills the buffer before the sink asks)
    /// ```
    @inlinable
    public func buffer(size: Int, prefetch: Publishers.PrefetchStrategy,
                       whenFull: Publishers.BufferingStrategy<Failure>) -> Publishers.Buffer<Self> {
        Publishers.Buffer(upstream: self, size: size, prefetch: prefetch, whenFull: whenFull)
    }
}

extension Publishers {
    /// A strategy for filling a buffer.
    ///
    /// ```swift
    /// let strategy: Publishers.PrefetchStrategy = .keepFull
    /// ```
    public enum PrefetchStrategy: Equatable, Hashable, Sendable {
        /// A strategy to fill the buffer at subscription time, and keep it
        /// full thereafter.
        ///
        /// It demands `size` elements from the upstream when the subscriber
        /// first connects, then one more for each element it delivers.
        case keepFull

        /// A strategy that avoids prefetching and instead performs requests
        /// on demand.
        ///
        /// As in Combine, the upstream is asked for `.unlimited` elements at
        /// once; the buffer holds those the downstream has not asked for.
        case byRequest
    }

    /// A strategy that handles exhaustion of a buffer's capacity.
    ///
    /// ```swift
    /// struct Overflow: Error {}
    /// let strategy = Publishers.BufferingStrategy<Overflow>.customError { Overflow() }
    /// ```
    public enum BufferingStrategy<Failure: Error> {
        /// When the buffer is full, discard the newly received element.
        case dropNewest

        /// When the buffer is full, discard the oldest element in the
        /// buffer.
        case dropOldest

        /// When the buffer is full, execute the closure to provide a custom
        /// error.
        case customError(() -> Failure)
    }

    /// A publisher that buffers elements from an upstream publisher.
    ///
    /// Threading: elements are delivered on the thread that delivers them
    /// from the upstream or on the thread that requests them; one thread
    /// delivers at a time (a request made from inside `receive(_:)` joins
    /// the delivery already running). The closure of `.customError` runs
    /// outside the lock. The subscription describes itself as `Buffer`.
    ///
    /// ```swift
    /// let buffered = Publishers.Buffer(upstream: readings, size: 16, prefetch: .keepFull, whenFull: .dropOldest)
    /// ```
    public struct Buffer<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The maximum number of elements to store.
        public let size: Int

        /// The strategy for initially populating the buffer.
        public let prefetch: Publishers.PrefetchStrategy

        /// The action to take when the buffer becomes full.
        public let whenFull: Publishers.BufferingStrategy<Failure>

        /// Creates a publisher that buffers elements received from an
        /// upstream publisher.
        @inlinable
        public init(upstream: Upstream, size: Int, prefetch: Publishers.PrefetchStrategy,
                    whenFull: Publishers.BufferingStrategy<Failure>) {
            self.upstream = upstream
            self.size = size
            self.prefetch = prefetch
            self.whenFull = whenFull
        }

        /// Subscribes a `Buffer` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            if size < 0 { violation("buffer(size:prefetch:whenFull:): size must not be negative") }
            upstream.receive(subscriber: Inner(downstream: subscriber, size: size, prefetch: prefetch,
                                               whenFull: whenFull))
        }
    }
}

extension Publishers.Buffer {
    /// Holds what the downstream has not asked for in a ring buffer and
    /// delivers it as demand arrives.
    ///
    /// Combine's rules, pinned by tests:
    /// - the upstream is asked for `size` (`.keepFull`) or `.unlimited`
    ///   (`.byRequest`) before the downstream gets the subscription; what
    ///   arrives meanwhile waits in the buffer until the downstream has it;
    /// - `request(.none)` is accepted; a request made from inside
    ///   `receive(_:)` only adds demand to the delivery already running;
    /// - `.finished` is delivered once the buffer is empty *and* the
    ///   downstream has demand; values that arrive after `.finished` are
    ///   still buffered; a failure goes out at once, after what the demand
    ///   allows (an overflow with `.customError` on the next request);
    /// - with `.keepFull` each element delivered from a request is asked
    ///   for again from the upstream (also, as in Combine, when the upstream
    ///   has completed or was cancelled by an overflow);
    /// - a cancel before the upstream's subscription is ignored (the
    ///   subscription is still accepted and asked for the prefetch), and so
    ///   is a request; a second subscription is cancelled;
    /// - the downstream and the upstream subscription are released once the
    ///   completion is delivered and on cancel.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline
        internal struct State {
            @usableFromInline var subscribed = false
            /// Completed downstream or cancelled.
            @usableFromInline var done = false
            /// Values are no longer accepted: the upstream failed or the
            /// buffer overflowed with `.customError`.
            @usableFromInline var closed = false
            /// Held until the downstream completes or cancels (Combine asks
            /// a completed upstream for refills with `.keepFull`).
            @usableFromInline var upstream: (any Subscription)?
            /// Released once the completion is delivered and on cancel.
            @usableFromInline var downstream: Downstream?
            @usableFromInline var values = RingBuffer<Upstream.Output>()
            /// Outstanding downstream demand.
            @usableFromInline var demand: Subscribers.Demand = .none
            /// The upstream's completion (or the overflow failure), due
            /// once the buffer allows it.
            @usableFromInline var completion: Subscribers.Completion<Upstream.Failure>?
            /// The failure waits for the next request (`.customError`).
            @usableFromInline var failureWaitsForRequest = false
            /// A thread is delivering; others only add to the state. Also
            /// set until the downstream has its subscription, so nothing
            /// reaches it before.
            @usableFromInline var draining = true

            @inlinable
            init(downstream: Downstream) {
                self.downstream = downstream
            }
        }

        @usableFromInline
        internal enum Step {
            case emit(Upstream.Output, Downstream)
            case complete(Subscribers.Completion<Upstream.Failure>, Downstream)
            case stop
        }

        /// What an arriving value leads to.
        @usableFromInline
        internal enum Arrival {
            case ignore
            /// The buffer was empty and the downstream waiting: deliver the
            /// value directly (this thread now drains).
            case deliver(Downstream)
            case drain
            case overflow
        }

        /// `whenFull` without the closure, decided once.
        @usableFromInline
        internal enum FullPolicy: UInt8 {
            case dropNewest
            case dropOldest
            case fail
        }

        @usableFromInline let size: Int
        @usableFromInline let keepFull: Bool
        @usableFromInline let whenFull: Publishers.BufferingStrategy<Upstream.Failure>
        @usableFromInline let fullPolicy: FullPolicy
        @usableFromInline let state: Locked<State>

        @inlinable
        init(downstream: Downstream, size: Int, prefetch: Publishers.PrefetchStrategy,
             whenFull: Publishers.BufferingStrategy<Upstream.Failure>) {
            self.size = size
            keepFull = prefetch == .keepFull
            self.whenFull = whenFull
            switch whenFull {
            case .dropNewest: fullPolicy = .dropNewest
            case .dropOldest: fullPolicy = .dropOldest
            case .customError: fullPolicy = .fail
            }
            state = Locked(State(downstream: downstream))
        }

        // MARK: Subscriber

        @inlinable
        func receive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Downstream? in
                guard !s.subscribed, !s.done else { return nil }
                s.subscribed = true
                s.upstream = subscription
                return s.downstream
            }
            guard let downstream = accepted else {
                subscription.cancel()
                return
            }
            // As Combine: prefetch first, then hand the subscription on.
            // `draining` is still set, so whatever arrives meanwhile waits.
            if !keepFull {
                subscription.request(.unlimited)
            } else if size > 0 {
                subscription.request(.max(size))
            }
            downstream.receive(subscription: self)
            let refill = drainLoop(delivered: 0, more: .none)
            requestRefill(refill)
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            let arrival = state.withLock { s -> Arrival in
                guard s.subscribed, !s.done, !s.closed else { return .ignore }
                if s.values.isEmpty, s.demand.rawValue > 0, !s.draining,
                   let downstream = s.downstream
                {
                    s.demand -= 1
                    s.draining = true
                    return .deliver(downstream)
                }
                guard s.values.count >= size else {
                    s.values.append(input)
                    return .drain
                }
                switch fullPolicy {
                case .dropNewest:
                    return .drain
                case .dropOldest:
                    _ = s.values.popFirst()
                    if size > 0 { s.values.append(input) }
                    return .drain
                case .fail:
                    s.closed = true
                    return .overflow
                }
            }
            switch arrival {
            case .ignore:
                return .none
            case .deliver(let downstream):
                let more = downstream.receive(input)
                return drainLoop(delivered: 1, more: more)
            case .drain:
                return drain()
            case .overflow:
                overflow()
                return .none
            }
        }

        /// `.customError`: cancel the upstream, then fail once the buffer
        /// allows (normally on the next request).
        @inlinable
        func overflow() {
            let upstream = state.withLock { $0.upstream }
            upstream?.cancel()
            guard case .customError(let makeError) = whenFull else { return }
            let error = makeError()
            let waits = state.withLock { s -> Bool in
                guard !s.done else { return true }
                s.completion = .failure(error)
                // Normally nothing is asked for when the buffer is full;
                // if demand came in meanwhile, nobody will request again.
                s.failureWaitsForRequest = s.demand.rawValue == 0
                return s.failureWaitsForRequest
            }
            if !waits { _ = drain() }
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            let accepted = state.withLock { s -> Bool in
                guard s.subscribed, !s.done, !s.closed, s.completion == nil else {
                    return false
                }
                // Combine keeps buffering values that come after `.finished`.
                if case .failure = completion { s.closed = true }
                s.completion = completion
                return true
            }
            if accepted { _ = drain() }
        }

        // MARK: Subscription

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            let upstream = state.withLock { s -> (any Subscription)? in
                // Combine drops a request that comes before the subscription.
                guard s.subscribed, !s.done else { return nil }
                s.demand += demand
                s.failureWaitsForRequest = false
                return s.upstream
            }
            guard let upstream = upstream else { return }
            let refill = drain()
            // Combine refills through the subscription it held when the
            // request came, even if delivery completed meanwhile.
            if refill.rawValue > 0 { upstream.request(refill) }
        }

        @inlinable
        func cancel() {
            let released = state.withLock { s -> ((any Subscription)?, Downstream?) in
                // Combine ignores a cancel that comes before the subscription.
                guard s.subscribed, !s.done else { return (nil, nil) }
                s.done = true
                s.values.removeAll(keepingCapacity: false)
                s.completion = nil
                let upstream = s.upstream
                s.upstream = nil
                return (upstream, s.downstream.take())
            }
            // The downstream is released here, outside the lock.
            released.0?.cancel()
        }

        // MARK: Delivery

        /// Asks the upstream for `refill` elements, if any.
        @inlinable
        func requestRefill(_ refill: Subscribers.Demand) {
            guard refill.rawValue > 0 else { return }
            let upstream = state.withLock { $0.upstream }
            upstream?.request(refill)
        }

        /// Delivers what the demand allows, then a due completion. Returns
        /// what to ask the upstream for in place of the delivered elements
        /// (`.keepFull` only). A call made while another delivers returns
        /// at once; the running loop picks the new state up.
        @inlinable
        func drain() -> Subscribers.Demand {
            let start = state.withLock { s -> Bool in
                guard !s.draining else { return false }
                s.draining = true
                return true
            }
            guard start else { return .none }
            return drainLoop(delivered: 0, more: .none)
        }

        /// The delivery loop; the caller has set `draining`. `delivered`
        /// and `more` account for a value the caller already delivered.
        @inlinable
        func drainLoop(delivered alreadyDelivered: Int, more alreadyMore: Subscribers.Demand) -> Subscribers.Demand {
            var delivered = alreadyDelivered
            var more = alreadyMore
            while true {
                let step = state.withLock { s -> Step in
                    if more.rawValue > 0 { s.demand += more }
                    guard !s.done, let downstream = s.downstream else {
                        s.draining = false
                        return .stop
                    }
                    let hasDemand = s.demand.rawValue > 0
                    if hasDemand, let value = s.values.popFirst() {
                        s.demand -= 1
                        return .emit(value, downstream)
                    }
                    if let completion = s.completion {
                        let due: Bool
                        switch completion {
                        case .finished:
                            // As Combine: an empty buffer and some demand.
                            due = hasDemand && s.values.isEmpty
                        case .failure:
                            due = !s.failureWaitsForRequest
                        }
                        if due {
                            s.done = true
                            s.draining = false
                            s.completion = nil
                            s.upstream = nil
                            s.downstream = nil
                            s.values.removeAll(keepingCapacity: false)
                            return .complete(completion, downstream)
                        }
                    }
                    s.draining = false
                    return .stop
                }
                switch step {
                case .emit(let value, let downstream):
                    delivered &+= 1
                    more = downstream.receive(value)
                case .complete(let completion, let downstream):
                    downstream.receive(completion: completion)
                    return keepFull && delivered > 0 ? .max(delivered) : .none
                case .stop:
                    return keepFull && delivered > 0 ? .max(delivered) : .none
                }
            }
        }

        @usableFromInline var description: String { "Buffer" }
        /// Combine's children: `values`, `state`, `downstreamDemand`,
        /// `terminal`.
        @usableFromInline var customMirror: Mirror {
            let snapshot = state.withLock { s -> ([Upstream.Output], String, Subscribers.Demand,
                                                                    Subscribers.Completion<Upstream.Failure>?) in
                var values: [Upstream.Output] = []
                values.reserveCapacity(s.values.count)
                var copy = s.values
                while let value = copy.popFirst() { values.append(value) }
                let status: String
                if s.done {
                    status = "terminal"
                } else if let upstream = s.upstream {
                    status = "subscribed(\(upstream))"
                } else {
                    status = "awaitingSubscription"
                }
                return (values, status, s.demand, s.completion)
            }
            let children: KeyValuePairs<String, Any> = [
                "values": snapshot.0,
                "state": snapshot.1,
                "downstreamDemand": snapshot.2,
                "terminal": snapshot.3 as Any,
            ]
            return Mirror(self, children: children)
        }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
