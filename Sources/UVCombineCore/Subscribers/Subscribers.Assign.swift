import Synchronization

extension Subscribers {
    /// A simple subscriber that assigns received elements to a property
    /// indicated by a key path.
    ///
    /// Requests `.unlimited`. Holds the object strongly until completion or
    /// cancellation, then releases it. As in Combine, values, a completion
    /// or a cancel that come before the subscription are ignored, and a
    /// second subscription is cancelled.
    /// Threading: assignments happen on the thread the publisher delivers on.
    ///
    /// ```swift
    /// final class Model { var count = 0 }
    /// let model = Model()
    /// let cancellable = [1, 2].publisher.assign(to: \.count, on: model)
    /// print(model.count) // Prints: "2"
    /// ```
    public final class Assign<Root, Input>: Subscriber, Cancellable,
        CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    {
        /// Assign cannot fail.
        public typealias Failure = Never

        @usableFromInline
        internal struct State {
            @usableFromInline var status: SubscriptionStatus = .awaitingSubscription
            @usableFromInline var object: Root?
        }

        @usableFromInline internal let state: Locked<State>

        /// The key path this subscriber assigns to.
        public let keyPath: ReferenceWritableKeyPath<Root, Input>

        /// The object assigned to, or `nil` after completion or cancellation.
        public var object: Root? { state.withLock { $0.object } }

        /// Creates a subscriber that assigns each value to `object[keyPath:]`.
        ///
        /// ```swift
        /// let assign = Subscribers.Assign(object: model, keyPath: \Model.count)
        /// ```
        public init(object: Root, keyPath: ReferenceWritableKeyPath<Root, Input>) {
            self.keyPath = keyPath
            state = Locked(State(object: object))
        }

        /// Stores the subscription and requests `.unlimited`.
        public func receive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard case .awaitingSubscription = s.status else { return false }
                s.status = .subscribed(subscription)
                return true
            }
            if accepted { subscription.request(.unlimited) } else { subscription.cancel() }
        }

        /// Assigns the value while subscribed.
        @inlinable
        public func receive(_ value: Input) -> Subscribers.Demand {
            let target = state.withLock { s in
                s.status.isSubscribed ? s.object : nil
            }
            if let object = target {
                object[keyPath: keyPath] = value
            }
            return .none
        }

        /// Releases the object (without cancelling the subscription). As in
        /// Combine, a completion before the subscription is ignored.
        public func receive(completion: Subscribers.Completion<Never>) {
            _ = takeAll()
        }

        /// Cancels upstream and releases the object. As in Combine, a cancel
        /// before the subscription is ignored.
        public func cancel() {
            takeAll()?.status.subscription?.cancel()
        }

        /// Ends the subscription if there is one, returning what was held
        /// (released by the caller, outside the lock).
        private func takeAll() -> State? {
            state.withLock { s -> State? in
                guard s.status.isSubscribed else { return nil }
                let old = s
                s = State(status: .terminal, object: nil)
                return old
            }
        }

        /// `Assign`, as Combine describes it.
        public var description: String { "Assign \(Root.self)." }
        /// The object, key path and status, as in Combine.
        public var customMirror: Mirror {
            let (object, status) = state.withLock { s in
                (s.object, s.status)
            }
            let children: [Mirror.Child] = [("object", object as Any), ("keyPath", keyPath), ("status", status as Any)]
            return Mirror(self, children: children)
        }
        /// The description.
        public var playgroundDescription: Any { description }
    }
}

extension Publisher where Failure == Never {
    /// Assigns each element from a publisher to a property on an object.
    ///
    /// The object is held strongly until the publisher completes or the
    /// returned cancellable is cancelled.
    ///
    /// ```swift
    /// let cancellable = subject.assign(to: \.title, on: label)
    /// ```
    public func assign<Root>(to keyPath: ReferenceWritableKeyPath<Root, Output>,
                             on object: Root) -> AnyCancellable {
        let subscriber = Subscribers.Assign(object: object, keyPath: keyPath)
        subscribe(subscriber)
        return AnyCancellable(subscriber)
    }
}
