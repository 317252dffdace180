import Synchronization

extension Publisher {
    /// Prints log messages for all publishing events.
    ///
    /// The lines are Combine's: `receive subscription: (Just)`,
    /// `request unlimited`, `request max: (1)`, `receive value: (1)`,
    /// `request max: (1) (synchronous)` (non-zero demand returned from
    /// `receive(_:)`), `receive finished`, `receive error: (…)` and
    /// `receive cancel`, each preceded by `prefix: ` when a prefix is given.
    /// Each line goes to `stream`, or to standard output when it is `nil`.
    ///
    /// ```swift
    /// let c = [1, 2].publisher.print("numbers").sink { _ in }
    /// // Prints:
    /// //  numbers: receive subscription: ([1, 2])
    /// //  numbers: request unlimited
    /// //  numbers: receive value: (1)
    /// //  numbers: receive value: (2)
    /// //  numbers: receive finished
    /// ```
    @inlinable
    public func print(_ prefix: String = "", to stream: (any TextOutputStream)? = nil) -> Publishers.Print<Self> {
        Publishers.Print(upstream: self, prefix: prefix, to: stream)
    }
}

extension Publishers {
    /// A publisher that prints log messages for all publishing events,
    /// optionally prefixed with a given string.
    ///
    /// It logs subscription, values, normal completion, failure, requests
    /// and cancellation, and forwards every event unchanged (also values and
    /// completions that arrive before the subscription or after completion,
    /// as Combine does). Each subscription writes to its own copy of
    /// `stream` (a class-based stream is shared). Threading: the lines of all
    /// `print` subscriptions are serialised by one lock, so concurrent events
    /// produce whole lines; they are written on the thread of the event,
    /// outside the subscription's state lock. The stream must not call back
    /// into a `print` pipeline.
    ///
    /// ```swift
    /// final class Log: TextOutputStream { var text = ""; func write(_ s: String) { text += s } }
    /// let log = Log()
    /// let c = Just(1).print("p", to: log).sink { _ in }
    /// // log.text == "p: receive subscription: (Just)\np: request unlimited\n..."
    /// ```
    public struct Print<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// A string with which to prefix all log messages.
        public let prefix: String

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The stream that receives the log lines; `nil` means standard
        /// output.
        public let stream: (any TextOutputStream)?

        /// Creates a publisher that prints log messages for all publishing
        /// events of `upstream`.
        @inlinable
        public init(upstream: Upstream, prefix: String, to stream: (any TextOutputStream)? = nil) {
            self.upstream = upstream
            self.prefix = prefix
            self.stream = stream
        }

        /// Subscribes a `Print` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, prefix: prefix, stream: stream))
        }
    }
}

/// Serialises the lines of every `print` subscription (see `Inner.log`).
internal let printOperatorLines = Mutex(())

extension Publishers.Print {
    /// Gives `Swift.print(_:to:)` a concrete stream type to write through.
    @usableFromInline
    internal struct Target: TextOutputStream {
        @usableFromInline var stream: any TextOutputStream

        @inlinable
        init(_ stream: any TextOutputStream) {
            self.stream = stream
        }

        @inlinable
        mutating func write(_ string: String) {
            stream.write(string)
        }
    }

    /// Logs each event, then forwards it.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let downstream: Downstream
        /// `"prefix: "`, or empty.
        @usableFromInline let prefix: String
        @usableFromInline let status: Locked<SubscriptionStatus>
        /// This subscription's copy of the stream; `nil` for standard
        /// output. Its own lock serialises the lines.
        @usableFromInline let target: Locked<Target?>

        @inlinable
        init(downstream: Downstream, prefix: String, stream: (any TextOutputStream)?) {
            self.downstream = downstream
            self.prefix = prefix.isEmpty ? "" : prefix + ": "
            status = Locked(.awaitingSubscription)
            var copy: Target?
            if let stream { copy = Target(stream) }
            target = Locked(copy)
        }

        /// Writes one line. All `print` subscriptions write under one lock,
        /// so lines from events on different threads (and from different
        /// subscriptions sharing a class-based stream or standard output)
        /// never interleave: each line is whole.
        @usableFromInline
        func log(_ line: String) {
            printOperatorLines.withLock { _ in
                target.withLock { t in
                    if t == nil {
                        Swift.print(prefix + line)
                    } else {
                        Swift.print(prefix + line, to: &t!)
                    }
                }
            }
        }

        @usableFromInline
        func logDemand(_ demand: Subscribers.Demand, synchronous: Bool) {
            let suffix = synchronous ? " (synchronous)" : ""
            if let max = demand.max {
                log("request max: (\(max))" + suffix)
            } else {
                log("request unlimited" + suffix)
            }
        }

        @usableFromInline
        func receive(subscription: any Subscription) {
            log("receive subscription: (\(subscription))")
            let accepted = status.withLock { s -> Bool in
                guard case .awaitingSubscription = s else { return false }
                s = .subscribed(subscription)
                return true
            }
            if accepted {
                downstream.receive(subscription: self)
            } else {
                subscription.cancel()
            }
        }

        @usableFromInline
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            log("receive value: (\(input))")
            let more = downstream.receive(input)
            if more.rawValue > 0 { logDemand(more, synchronous: true) }
            return more
        }

        @usableFromInline
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            switch completion {
            case .finished: log("receive finished")
            case .failure(let error): log("receive error: (\(error))")
            }
            status.withLock { $0 = .terminal }
            downstream.receive(completion: completion)
        }

        @usableFromInline
        func request(_ demand: Subscribers.Demand) {
            // `.none` is logged and forwarded, as Combine does.
            logDemand(demand, synchronous: false)
            let upstream = status.withLock { s in
                s.isSubscribed ? s.subscription : nil
            }
            upstream?.request(demand)
        }

        @usableFromInline
        func cancel() {
            log("receive cancel")
            let upstream = status.withLock { s -> (any Subscription)? in
                guard case .subscribed(let upstream) = s else { return nil }
                s = .terminal
                return upstream
            }
            upstream?.cancel()
        }

        @usableFromInline var description: String { "Print" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
