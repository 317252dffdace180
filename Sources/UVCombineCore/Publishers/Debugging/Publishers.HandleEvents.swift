import Synchronization

extension Publisher {
    /// Performs the specified closures when publisher events occur.
    ///
    /// Every closure is optional. `receiveRequest` sees both the demand the
    /// downstream requests through the subscription and any non-zero demand
    /// it returns from `receive(_:)`. After completion or cancellation the
    /// closures are released (which breaks retain cycles through captured
    /// owners) and not called again.
    ///
    /// ```swift
    /// let c = [1, 2].publisher
    ///     .handleEvents(receiveOutput: { print("got \($0)") },
    ///                   receiveCompletion: { print("done: \($0)") })
    ///     .sink { _ in }
    /// // Prints: "got 1", "got 2", "done: finished"
    /// ```
    @inlinable
    public func handleEvents(
        receiveSubscription: ((any Subscription) -> Void)? = nil,
        receiveOutput: ((Output) -> Void)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
        receiveCancel: (() -> Void)? = nil,
        receiveRequest: ((Subscribers.Demand) -> Void)? = nil
    ) -> Publishers.HandleEvents<Self> {
        Publishers.HandleEvents(upstream: self,
                                receiveSubscription: receiveSubscription,
                                receiveOutput: receiveOutput,
                                receiveCompletion: receiveCompletion,
                                receiveCancel: receiveCancel,
                                receiveRequest: receiveRequest)
    }
}

extension Publishers {
    /// A publisher that performs the specified closures when publisher events
    /// occur.
    ///
    /// Threading: each closure runs on the thread of the event it observes
    /// (values and completion on the upstream's thread; request and cancel on
    /// the caller's), outside any lock. The subscription describes itself as
    /// `HandleEvents`.
    ///
    /// ```swift
    /// let traced = Publishers.HandleEvents(upstream: [1].publisher, receiveOutput: { print($0) },
    ///                                      receiveRequest: { print("demand \($0)") })
    /// ```
    public struct HandleEvents<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that executes when the publisher receives the
        /// subscription from the upstream publisher.
        public var receiveSubscription: ((any Subscription) -> Void)?

        /// A closure that executes when the publisher receives a value from
        /// the upstream publisher.
        public var receiveOutput: ((Upstream.Output) -> Void)?

        /// A closure that executes when the upstream publisher finishes
        /// normally or terminates with an error.
        public var receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Void)?

        /// A closure that executes when the downstream receiver cancels
        /// publishing.
        public var receiveCancel: (() -> Void)?

        /// A closure that executes when the publisher receives a request for
        /// more elements.
        public var receiveRequest: ((Subscribers.Demand) -> Void)?

        /// Creates a publisher that runs the given closures on events of
        /// `upstream`.
        @inlinable
        public init(upstream: Upstream,
                    receiveSubscription: ((any Subscription) -> Void)? = nil,
                    receiveOutput: ((Output) -> Void)? = nil,
                    receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
                    receiveCancel: (() -> Void)? = nil,
                    receiveRequest: ((Subscribers.Demand) -> Void)?) {
            self.upstream = upstream
            self.receiveSubscription = receiveSubscription
            self.receiveOutput = receiveOutput
            self.receiveCompletion = receiveCompletion
            self.receiveCancel = receiveCancel
            self.receiveRequest = receiveRequest
        }

        /// Subscribes a `HandleEvents` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let handlers = Handlers(subscription: receiveSubscription, output: receiveOutput,
                                    completion: receiveCompletion, cancel: receiveCancel,
                                    request: receiveRequest)
            upstream.receive(subscriber: Inner(downstream: subscriber, handlers: handlers))
        }
    }
}

extension Publishers.HandleEvents {
    /// The five closures together in one struct: closures kept in a struct
    /// field never change representation, so calling them allocates nothing
    /// (see `Subscribers.Sink.Handlers`).
    @usableFromInline
    internal struct Handlers {
        @usableFromInline let subscription: ((any Subscription) -> Void)?
        @usableFromInline let output: ((Upstream.Output) -> Void)?
        @usableFromInline let completion: ((Subscribers.Completion<Upstream.Failure>) -> Void)?
        @usableFromInline let cancel: (() -> Void)?
        @usableFromInline let request: ((Subscribers.Demand) -> Void)?

        @inlinable
        init(subscription: ((any Subscription) -> Void)?,
             output: ((Upstream.Output) -> Void)?,
             completion: ((Subscribers.Completion<Upstream.Failure>) -> Void)?,
             cancel: (() -> Void)?,
             request: ((Subscribers.Demand) -> Void)?) {
            self.subscription = subscription
            self.output = output
            self.completion = completion
            self.cancel = cancel
            self.request = request
        }
    }

    /// Runs the closures around each event and forwards it.
    ///
    /// Combine's rules for events out of order: values and completions are
    /// forwarded whenever they come (before the subscription, after
    /// completion or cancel); the closures run until the stream completes
    /// or is cancelled, then they are released. Requests (`.none` included)
    /// and cancels reach their closures also before the subscription, but
    /// the upstream only while subscribed; a cancel before the subscription
    /// leaves the subscription that arrives later untouched.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline
        internal struct State {
            @usableFromInline var status: SubscriptionStatus = .awaitingSubscription
            /// `nil` once completed or cancelled.
            @usableFromInline var handlers: Handlers?

            @inlinable
            init(handlers: Handlers) {
                self.handlers = handlers
            }
        }

        @usableFromInline let downstream: Downstream
        @usableFromInline let state: Locked<State>

        @inlinable
        init(downstream: Downstream, handlers: Handlers) {
            self.downstream = downstream
            state = Locked(State(handlers: handlers))
        }

        @inlinable
        func receive(subscription: any Subscription) {
            let handlers = state.withLock { $0.handlers }
            handlers?.subscription?(subscription)
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

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            let handlers = state.withLock { $0.handlers }
            handlers?.output?(input)
            let more = downstream.receive(input)
            if more != .none {
                // Read again: the downstream may have cancelled meanwhile.
                let handlers = state.withLock { $0.handlers }
                handlers?.request?(more)
            }
            return more
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            let handlers = state.withLock { $0.handlers }
            handlers?.completion?(completion)
            state.withLock { s in
                s.status = .terminal
                s.handlers = nil
            }
            downstream.receive(completion: completion)
        }

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            let handlers = state.withLock { $0.handlers }
            handlers?.request?(demand)
            let upstream = state.withLock { s -> (any Subscription)? in
                guard case .subscribed(let upstream) = s.status else { return nil }
                return upstream
            }
            upstream?.request(demand)
        }

        @inlinable
        func cancel() {
            let handlers = state.withLock { $0.handlers }
            handlers?.cancel?()
            let upstream = state.withLock { s -> (any Subscription)? in
                guard case .subscribed(let upstream) = s.status else { return nil }
                s.status = .terminal
                s.handlers = nil
                return upstream
            }
            upstream?.cancel()
        }

        @usableFromInline var description: String { "HandleEvents" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
