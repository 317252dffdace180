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
    /// `.finished` follows the last buffered element. An upstream failure is
    /// delivered at once, after the buffered elements the outstanding
    /// demand allows; the rest are discarded.
    ///
    /// ```swift
    /// let c = (1...5).publisher
    ///     .buffer(size: 2, prefetch: .byRequest, whenFull: .dropNewest)
    ///     .sink { print($0) }
    /// // Prints: "1 2 3 4 5"
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
            /// No more values are accepted (the upstream completed or the
            /// buffer overflowed with `.customError`).
            @usableFromInline var closed = false
            @usableFromInline var upstream: (any Subscription)?
            @usableFromInline var values = RingBuffer<Upstream.Output>()
            /// Outstanding downstream demand.
            @usableFromInline var demand: Subscribers.Demand = .none
            /// The completion to deliver once the buffer allows it.
            @usableFromInline var completion: Subscribers.Completion<Upstream.Failure>?
            /// The failure waits for the next request (`.customError`).
            @usableFromInline var failureWaitsForRequest = false
            /// A thread is delivering; others only add to the state.
            @usableFromInline var draining = false

            @inlinable
            init() {}
        }

        @usableFromInline
        internal enum Step {
            case emit(Upstream.Output)
            case complete(Subscribers.Completion<Upstream.Failure>)
            case stop
        }

        /// What an arriving value leads to. No payload: deciding it under
        /// the lock copies no existential.
        @usableFromInline
        internal enum Arrival: UInt8 {
            case ignore
            /// The buffer was empty and the downstream waiting: deliver the
            /// value directly (this thread now drains).
            case deliver
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

        @usableFromInline let downstream: Downstream
        @usableFromInline let size: Int
        @usableFromInline let keepFull: Bool
        @usableFromInline let whenFull: Publishers.BufferingStrategy<Upstream.Failure>
        @usableFromInline let fullPolicy: FullPolicy
        @usableFromInline let state: Mutex<UncheckedSendable<State>>

        @inlinable
        init(downstream: Downstream, size: Int, prefetch: Publishers.PrefetchStrategy,
             whenFull: Publishers.BufferingStrategy<Upstream.Failure>) {
            self.downstream = downstream
            self.size = size
            keepFull = prefetch == .keepFull
            self.whenFull = whenFull
            switch whenFull {
            case .dropNewest: fullPolicy = .dropNewest
            case .dropOldest: fullPolicy = .dropOldest
            case .customError: fullPolicy = .fail
            }
            state = Mutex(UncheckedSendable(State()))
        }

        // MARK: Subscriber

        @inlinable
        func receive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard !s.value.subscribed, !s.value.done else { return false }
                s.value.subscribed = true
                s.value.upstream = subscription
                return true
            }
            guard accepted else {
                subscription.cancel()
                return
            }
            // The downstream gets its subscription before anything can be
            // delivered to it; then the upstream is asked to fill the buffer.
            downstream.receive(subscription: self)
            let active = state.withLock { !$0.value.done && !$0.value.closed }
            guard active else { return }
            if !keepFull {
                subscription.request(.unlimited)
            } else if size > 0 {
                subscription.request(.max(size))
            }
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            let arrival = state.withLock { s -> Arrival in
                guard s.value.subscribed, !s.value.done, !s.value.closed else { return .ignore }
                if s.value.values.isEmpty, s.value.demand.rawValue > 0, !s.value.draining {
                    s.value.demand -= 1
                    s.value.draining = true
                    return .deliver
                }
                // Full only matters when the value cannot go out at once.
                guard s.value.values.count >= size, s.value.demand.rawValue == 0 else {
                    s.value.values.append(input)
                    return .drain
                }
                switch fullPolicy {
                case .dropNewest:
                    return .drain
                case .dropOldest:
                    _ = s.value.values.popFirst()
                    if size > 0 { s.value.values.append(input) }
                    return .drain
                case .fail:
                    s.value.closed = true
                    return .overflow
                }
            }
            switch arrival {
            case .ignore:
                return .none
            case .deliver:
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
            let upstream = state.withLock { s -> UncheckedSendable<(any Subscription)?> in
                let upstream = s.value.upstream
                s.value.upstream = nil
                return UncheckedSendable(upstream)
            }
            upstream.value?.cancel()
            guard case .customError(let makeError) = whenFull else { return }
            let error = makeError()
            let waits = state.withLock { s -> Bool in
                guard !s.value.done else { return true }
                s.value.completion = .failure(error)
                // Normally nothing is asked for when the buffer is full;
                // if demand came in meanwhile, nobody will request again.
                s.value.failureWaitsForRequest = s.value.demand.rawValue == 0
                return s.value.failureWaitsForRequest
            }
            if !waits { _ = drain() }
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            let accepted = state.withLock { s -> Bool in
                guard s.value.subscribed, !s.value.done, !s.value.closed else { return false }
                s.value.closed = true
                s.value.upstream = nil
                s.value.completion = completion
                return true
            }
            if accepted { _ = drain() }
        }

        // MARK: Subscription

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            state.withLock { s in
                s.value.demand += demand
                s.value.failureWaitsForRequest = false
            }
            let refill = drain()
            guard refill.rawValue > 0 else { return }
            let upstream = state.withLock { UncheckedSendable($0.value.upstream) }
            upstream.value?.request(refill)
        }

        @inlinable
        func cancel() {
            let upstream = state.withLock { s -> UncheckedSendable<(any Subscription)?> in
                s.value.done = true
                s.value.values.removeAll(keepingCapacity: false)
                s.value.completion = nil
                let upstream = s.value.upstream
                s.value.upstream = nil
                return UncheckedSendable(upstream)
            }
            upstream.value?.cancel()
        }

        // MARK: Delivery

        /// Delivers what the demand allows, then a due completion. Returns
        /// what to ask the upstream for in place of the delivered elements
        /// (`.keepFull` only). A call made while another delivers returns
        /// at once; the running loop picks the new state up.
        @inlinable
        func drain() -> Subscribers.Demand {
            let start = state.withLock { s -> Bool in
                guard !s.value.draining else { return false }
                s.value.draining = true
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
                let step = state.withLock { s -> UncheckedSendable<Step> in
                    if more.rawValue > 0 { s.value.demand += more }
                    guard !s.value.done else {
                        s.value.draining = false
                        return UncheckedSendable(.stop)
                    }
                    if s.value.demand.rawValue > 0, !s.value.values.isEmpty, let value = s.value.values.popFirst() {
                        s.value.demand -= 1
                        return UncheckedSendable(.emit(value))
                    }
                    if let completion = s.value.completion {
                        var due = s.value.values.isEmpty
                        if case .failure = completion { due = !s.value.failureWaitsForRequest }
                        if due {
                            s.value.done = true
                            s.value.draining = false
                            s.value.completion = nil
                            s.value.values.removeAll(keepingCapacity: false)
                            return UncheckedSendable(.complete(completion))
                        }
                    }
                    s.value.draining = false
                    return UncheckedSendable(.stop)
                }
                switch step.value {
                case .emit(let value):
                    delivered &+= 1
                    more = downstream.receive(value)
                case .complete(let completion):
                    downstream.receive(completion: completion)
                    return .none
                case .stop:
                    return keepFull && delivered > 0 ? .max(delivered) : .none
                }
            }
        }

        @usableFromInline var description: String { "Buffer" }
        @usableFromInline var customMirror: Mirror {
            let (count, demand) = state.withLock { ($0.value.values.count, $0.value.demand) }
            return Mirror(self, children: ["buffered": count, "downstreamDemand": demand])
        }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
