extension Publisher {
    /// Raises a fatal error when its upstream publisher fails, and otherwise
    /// republishes all received input.
    ///
    /// Use it for internal sanity checks: the failure stops the process with
    /// `"<prefix>: <error>"` (or only the error when `prefix` is empty),
    /// reported at `file` and `line`, in debug and release builds alike.
    /// Stateless: the subscription is passed through.
    ///
    /// ```swift
    /// let c = [1, 2].publisher.setFailureType(to: URLError.self)
    ///     .assertNoFailure("numbers").sink { print($0) }
    /// // Prints: "1 2"
    /// ```
    @inlinable
    public func assertNoFailure(_ prefix: String = "", file: StaticString = #file,
                                line: UInt = #line) -> Publishers.AssertNoFailure<Self> {
        Publishers.AssertNoFailure(upstream: self, prefix: prefix, file: file, line: line)
    }
}

extension Publishers {
    /// A publisher that raises a fatal error upon receiving any failure,
    /// and otherwise republishes all received input.
    ///
    /// Threading: values and the completion pass on the upstream's thread;
    /// the trap happens there too.
    ///
    /// ```swift
    /// let safe = Publishers.AssertNoFailure(upstream: risky, prefix: "config", file: #file, line: #line)
    /// ```
    public struct AssertNoFailure<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// A failure traps, so this publisher never fails.
        public typealias Failure = Never

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The string used at the beginning of the fatal error message.
        public let prefix: String

        /// The filename used in the error message.
        public let file: StaticString

        /// The line number used in the error message.
        public let line: UInt

        /// Creates a publisher that traps when `upstream` fails.
        @inlinable
        public init(upstream: Upstream, prefix: String, file: StaticString, line: UInt) {
            self.upstream = upstream
            self.prefix = prefix
            self.file = file
            self.line = line
        }

        /// Subscribes a stateless inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            upstream.receive(subscriber: AssertNoFailureInner<Upstream.Failure, S>(
                downstream: subscriber, prefix: prefix, file: file, line: line))
        }
    }
}

/// Forwards values and `.finished`; traps on failure. The subscription goes
/// straight through. Top level for the reason given on `MapInner`.
@usableFromInline
internal struct AssertNoFailureInner<Failure: Error, Downstream: Subscriber>: Subscriber, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible where Downstream.Failure == Never
{
    @usableFromInline typealias Input = Downstream.Input

    @usableFromInline let downstream: Downstream
    @usableFromInline let prefix: String
    @usableFromInline let file: StaticString
    @usableFromInline let line: UInt
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(downstream: Downstream, prefix: String, file: StaticString, line: UInt) {
        self.downstream = downstream
        self.prefix = prefix
        self.file = file
        self.line = line
    }

    @inlinable
    func receive(subscription: any Subscription) {
        downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Downstream.Input) -> Subscribers.Demand {
        downstream.receive(input)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished:
            downstream.receive(completion: .finished)
        case .failure(let error):
            assertNoFailureTrap(prefix: prefix, error: error, file: file, line: line)
        }
    }

    @usableFromInline var description: String { "AssertNoFailure" }
    @usableFromInline var customMirror: Mirror {
        Mirror(self, children: ["file": file, "line": line, "prefix": prefix])
    }
    @usableFromInline var playgroundDescription: Any { description }
}

/// Stops the process with Combine's message, through the package's one
/// `trap` (which keeps its message in release builds).
@usableFromInline @inline(never)
internal func assertNoFailureTrap(prefix: String, error: any Error, file: StaticString, line: UInt) -> Never {
    trap(prefix.isEmpty ? "\(error)" : "\(prefix): \(error)", file: file, line: line)
}
